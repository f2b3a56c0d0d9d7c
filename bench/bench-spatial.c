/*
 * bench-spatial.c: time per call of the CNNs' memory-bound kernels (the
 * depthwise conv, src/ops/conv-dw.c; the pools, src/ops/pool.c; Concat,
 * the join op; the residual Add) on the float32 shapes of mobilenet_v2 and
 * squeezenet1_0, as GB/s of input + output bytes against a memcpy of the
 * same number of bytes (the bandwidth they cannot beat), the two
 * interleaved, best of several runs.  The kernel runs on the same buffers
 * every time, as one layer after another does in a model (its input was
 * just written: in cache when it fits).  `make bench/bench-spatial`
 * builds it (not part of `make check`).
 *
 *   bench/bench-spatial [REPS [FILTER]]
 *
 * Columns: case, KB moved (input + output), gptop us, GB/s, memcpy us of
 * the same bytes (half read, half written), gptop / memcpy.  FILTER keeps
 * the cases whose name contains it.  Like gptop, the process first sets
 * libgomp's idle threads' policy from the machine's load (gp_par_init).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "graph/graph.h"
#include "graph/op.h"
#include "ops/par.h"

#include "bench-input.h"

struct bcase {
	const char	*name;
	const char	*op;
	const char	*params;
	int		 nin;
	int64_t		 shape[3][4];	/* inputs (conv: X, then W, B made) */
};

#define DW(NAME, C, H, S)                                                     \
	{.name = NAME, .op = "conv", .nin = 3, .shape = {{1, C, H, H},        \
	    {C, 1, 3, 3}, {C}}, .params = "{\"strides\": [" #S ", " #S "], "  \
	    "\"pads\": [1, 1, 1, 1], \"group\": " #C ", \"act_min\": 0, "     \
	    "\"act_max\": 6}"}
#define MAXPOOL(NAME, C, H)                                                   \
	{.name = NAME, .op = "max_pool", .nin = 1, .shape = {{1, C, H, H}},   \
	    .params = "{\"kernel_shape\": [3, 3], \"strides\": [2, 2], "      \
	    "\"ceil_mode\": 1}"}
#define CONCAT(NAME, C, H)                                                    \
	{.name = NAME, .op = "join", .nin = 2, .shape = {{1, C, H, H},        \
	    {1, C, H, H}}, .params = "{\"axis\": 1}"}
#define ADD(NAME, C, H)                                                       \
	{.name = NAME, .op = "add", .nin = 2, .shape = {{1, C, H, H},         \
	    {1, C, H, H}}, .params = NULL}
#define GAP(NAME, C, H)                                                       \
	{.name = NAME, .op = "global_average_pool", .nin = 1,                 \
	    .shape = {{1, C, H, H}}, .params = NULL}

/* mobilenet_v2's 17 depthwise convs (3x3, pads 1, ReLU6 fused), their
 * distinct shapes; squeezenet1_0's 3 max pools, its Concats (the expand
 * 1x1 and 3x3 outputs of each fire module), the two GlobalAveragePools
 * and mobilenet's residual Adds. */
static const struct bcase cases[] = {
	DW("mbv2 dw 32 112x112", 32, 112, 1),
	DW("mbv2 dw/2 96 112x112", 96, 112, 2),
	DW("mbv2 dw 144 56x56", 144, 56, 1),
	DW("mbv2 dw/2 144 56x56", 144, 56, 2),
	DW("mbv2 dw 192 28x28 (x2)", 192, 28, 1),
	DW("mbv2 dw/2 192 28x28", 192, 28, 2),
	DW("mbv2 dw 384 14x14 (x4)", 384, 14, 1),
	DW("mbv2 dw 576 14x14 (x2)", 576, 14, 1),
	DW("mbv2 dw/2 576 14x14", 576, 14, 2),
	DW("mbv2 dw 960 7x7 (x3)", 960, 7, 1),
	ADD("mbv2 add 24 56x56", 24, 56),
	ADD("mbv2 add 64 14x14 (x3)", 64, 14),
	GAP("mbv2 gap 1280 7x7", 1280, 7),
	MAXPOOL("sqz maxpool 96 109x109", 96, 109),
	MAXPOOL("sqz maxpool 256 54x54", 256, 54),
	MAXPOOL("sqz maxpool 512 27x27", 512, 27),
	CONCAT("sqz concat 2x64 54x54 (x2)", 64, 54),
	CONCAT("sqz concat 2x128 27x27 (x2)", 128, 27),
	CONCAT("sqz concat 2x192 13x13 (x2)", 192, 13),
	CONCAT("sqz concat 2x256 13x13 (x2)", 256, 13),
	GAP("sqz gap 1000 13x13", 1000, 13),
};

/* An input of shape (up to 4 dimensions, a 0 ending a shorter one). */
static int
input(struct gp_graph *g, const int64_t *shape, unsigned seed)
{
	int ndim = 0;

	while (ndim < 4 && shape[ndim] > 0)
		ndim++;
	return (bench_input(g, ndim, shape, seed));
}

int
main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 200;
	const char *filter = argc > 2 ? argv[2] : NULL;

	gp_par_init(argv);
	printf("%-30s %8s %9s %7s %9s %7s\n", "case", "KB", "gptop us",
	    "GB/s", "memcpy us", "ratio");
	for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		const struct bcase *b = &cases[ci];
		struct gp_graph *g;
		int in[3], ni;
		struct gp_err err;
		struct gp_node *nd;
		struct gp_tensor *tin[3], out = {0}, *tout[1] = {&out};
		const struct gp_type *ot;
		double best = INFINITY, cbest = INFINITY, bytes;
		char *src, *dst;

		if (filter != NULL && strstr(b->name, filter) == NULL)
			continue;
		g = gp_graph_new("bench");
		for (int k = 0; k < b->nin; k++) {
			in[k] = input(g, b->shape[k], (unsigned)k + 1);
			tin[k] = &g->vars[in[k]].value;
		}
		ni = gp_graph_add_node(g, gp_op_find(b->op), b->params != NULL ?
		    json_loads(b->params, 0, NULL) : NULL, b->nin, in, 1, &err);
		if (ni < 0) {
			fprintf(stderr, "bench-spatial: %s: %s\n", b->name,
			    err.msg);
			return (1);
		}
		nd = &g->nodes[ni];
		ot = &g->vars[nd->out[0]].type;
		gp_tensor_alloc(&out, ot->dtype, ot->ndim, ot->shape);
		/* the activations moved: X (and a second operand), Y */
		bytes = (double)gp_tensor_nbytes(&out);
		for (int k = 0; k < (strcmp(b->op, "conv") == 0 ? 1 : b->nin);
		    k++)
			bytes += (double)gp_tensor_nbytes(tin[k]);
		src = calloc(1, (size_t)bytes / 2 + 64);
		dst = calloc(1, (size_t)bytes / 2 + 64);
		for (int r = 0; r < reps; r++) {
			uint64_t t0 = gp_clock_ns();

			nd->kernel(nd, tin, tout);
			t0 = gp_clock_ns() - t0;
			if (t0 < best)
				best = (double)t0;
			t0 = gp_clock_ns();
			memcpy(dst, src, (size_t)bytes / 2);
			t0 = gp_clock_ns() - t0;
			if (t0 < cbest)
				cbest = (double)t0;
		}
		printf("%-30s %8.0f %9.1f %7.1f %9.1f %7.2f\n", b->name,
		    bytes / 1024, best / 1e3, bytes / best, cbest / 1e3,
		    best / cbest);
		free(src);
		free(dst);
		gp_tensor_release(&out);
		gp_graph_free(g);
	}
	return (0);
}
