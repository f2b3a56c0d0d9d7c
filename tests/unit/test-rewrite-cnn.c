/*
 * test-rewrite-cnn.c: the CNN rewriters (src/rewrite/cnn.c): bn_fold,
 * conv_bias, conv_act, bn_act, layer_norm_fuse, conv_winograd, pad_pool
 * and gemm_pack (its outputs also against the product computed here in
 * double).  Each on a
 * small graph where it must fire (the applies left, and the results
 * against the graph with the rewrite left out), and on look-alikes where
 * it must not; then
 * data/graphs/cnn.json and the ONNX model data/models/cnn with and without
 * the rewrites.  GPTOP_CNN_MODELS (':'-separated .onnx paths, e.g. the
 * resnet18 and mobilenet_v2 bench/onnx/export.py makes) adds models to
 * the last check.
 *
 * "Identical" is bit for bit (conv_bias, conv_act and bn_act keep the
 * arithmetic's order); bn_fold rounds W * a once instead of the conv's
 * output times a, and layer_norm computes its statistics in double, so
 * those are compared within 1e-6 of the largest magnitude of each output
 * (max |on - off| <= 1e-6 max |off|).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "base/flags.h"
#include "graph/graph.h"
#include "graph/op.h"
#include "load/graph-json.h"
#include "load/onnx-build.h"
#include "ops/conv-gemm.h"
#include "rewrite/rewrite.h"
#include "run/vm.h"

static const char *top_srcdir = ".";

/* JSON with ' for " (readable test graphs). */
static char *
q(const char *s)
{
	char *r = gp_xstrdup(s);

	for (char *p = r; *p != '\0'; p++)
		if (*p == '\'')
			*p = '"';
	return (r);
}

static struct gp_graph *
graph_of(const char *vars, const char *nodes, const char *outs,
    const char *updates)
{
	char *text = gp_xasprintf("{'format': 'gptop-graph/1', 'name': 't', "
	    "'variables': {%s}, 'nodes': [%s], 'functions': {'f': "
	    "{'outputs': [%s]%s%s%s}}}", vars, nodes, outs,
	    updates ? ", 'updates': {" : "", updates ? updates : "",
	    updates ? "}" : "");
	char *json = q(text);
	struct gp_err err;
	struct gp_graph *g;

	g = gp_graph_load_buf(json, strlen(json), "<test>", NULL, NULL, &err);
	if (g == NULL)
		diag("load failed: %s\n%s", err.msg, json);
	free(text);
	free(json);
	return (g);
}

static struct gp_graph *
rewritten(const struct gp_graph *g, const char *flags)
{
	struct gp_graph *c = gp_graph_clone(g);
	struct gp_flags f;
	struct gp_err err;

	gp_flags_init(&f);
	if (gp_flags_parse(&f, flags, "test", &err) < 0 ||
	    gp_rewrite_run(c, &f, NULL, &err) < 0) {
		diag("rewrite (%s) failed: %s", flags, err.msg);
		gp_flags_done(&f);
		gp_graph_free(c);
		return (NULL);
	}
	gp_flags_done(&f);
	return (c);
}

/* The live nodes' formatted op names, space-separated, in node order. */
static char *
ops_of(const struct gp_graph *g)
{
	struct gp_buf b = {0};
	char *s;

	for (size_t i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i].dead)
			continue;
		if (b.len > 0)
			gp_buf_puts(&b, " ");
		gp_node_format_op(g, &g->nodes[i], &b);
	}
	s = gp_xstrdup(gp_buf_str(&b));
	gp_buf_free(&b);
	return (s);
}

static int
n_op(const struct gp_graph *g, const char *op)
{
	int n = 0;

	for (size_t i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i].dead && strcmp(g->nodes[i].op->name, op) == 0)
			n++;
	return (n);
}

static int
n_live(const struct gp_graph *g)
{
	int n = 0;

	for (size_t i = 0; i < g->n_nodes; i++)
		n += !g->nodes[i].dead;
	return (n);
}

/* Every function output after two calls, as doubles, outputs apart. */
struct res {
	double	*v;
	size_t	 n, cap;
	size_t	*start;	/* output k: v[start[k] .. start[k + 1]) */
	size_t	 n_out, cap_out;
};

static void
push(struct res *r, double x)
{
	gp_grow(&r->v, &r->cap, r->n + 1, sizeof(double));
	r->v[r->n++] = x;
}

static bool
run(struct gp_graph *g, struct res *r)
{
	struct gp_vm_opts o = {.allow_gc = true};
	struct gp_err err;
	struct gp_vm *vm;

	memset(r, 0, sizeof(*r));
	if (g == NULL)
		return (false);
	if ((vm = gp_vm_new(g, &o, NULL, &err)) == NULL) {
		diag("link failed: %s", err.msg);
		return (false);
	}
	for (int c = 0; c < 2; c++)
		for (size_t f = 0; f < g->n_fns; f++) {
			gp_vm_call(vm, (int)f, NULL);
			for (int k = 0; k < g->fns[f].n_out; k++) {
				const struct gp_tensor *t = gp_vm_output(vm,
				    (int)f, k);
				int64_t n = gp_tensor_numel(t);

				gp_grow(&r->start, &r->cap_out, r->n_out + 2,
				    sizeof(size_t));
				r->start[r->n_out++] = r->n;
				for (int64_t i = 0; i < n; i++)
					push(r, gp_tensor_get(t, i));
			}
		}
	gp_grow(&r->start, &r->cap_out, r->n_out + 2, sizeof(size_t));
	r->start[r->n_out] = r->n;
	gp_vm_free(vm);
	return (true);
}

static void
res_free(struct res *r)
{
	free(r->v);
	free(r->start);
}

/* The worst output's max |a - b| / max |b| (0 when identical), or -1 when
 * the shapes differ; *same: bit for bit (NaN equal to NaN). */
static double
differ(const struct res *a, const struct res *b, bool *same)
{
	double worst = 0;

	*same = true;
	if (a->n != b->n || a->n_out != b->n_out)
		return (-1);
	for (size_t k = 0; k < a->n_out; k++) {
		double dmax = 0, ymax = 0;

		for (size_t i = b->start[k]; i < b->start[k + 1]; i++) {
			double x = a->v[i], y = b->v[i];

			if (isnan(x) && isnan(y))
				continue;
			if (x != y)
				*same = false;
			if (isnan(x) != isnan(y))
				return (INFINITY);
			if (fabs(x - y) > dmax)
				dmax = fabs(x - y);
			if (fabs(y) > ymax)
				ymax = fabs(y);
		}
		if (dmax > 0 && dmax / (ymax > 0 ? ymax : 1) > worst)
			worst = dmax / (ymax > 0 ? ymax : 1);
	}
	return (worst);
}

/* Rewrite g with `on` and with `off`, run both: identical (exact) or
 * within 1e-6 of each output's largest magnitude. */
static void
compare(const struct gp_graph *g, const char *on, const char *off,
    bool exact, const char *what)
{
	struct gp_graph *a = rewritten(g, on), *b = rewritten(g, off);
	struct res ra, rb;
	bool same;
	double d;

	if (!run(a, &ra) || !run(b, &rb)) {
		ok(false, "%s: run", what);
	} else {
		d = differ(&ra, &rb, &same);
		if (exact)
			ok(same, "%s: identical with %s and with %s", what,
			    on, off);
		else
			ok(d >= 0 && d <= 1e-6, "%s: within 1e-6 with %s and "
			    "with %s", what, on, off);
		diag("  %s: %d applies with %s, %d with %s; max |diff| / max "
		    "|value| %.3g%s", what, a ? n_live(a) : -1, on,
		    b ? n_live(b) : -1, off, d, same ? " (bit for bit)" : "");
	}
	res_free(&ra);
	res_free(&rb);
	gp_graph_free(a);
	gp_graph_free(b);
}

/* g rewritten with flags leaves the applies `want`. */
static void
expect_ops(const struct gp_graph *g, const char *flags, const char *want,
    const char *what)
{
	struct gp_graph *r = g ? rewritten(g, flags) : NULL;
	char *got;

	if (r == NULL) {
		ok(false, "%s: rewrite", what);
		return;
	}
	got = ops_of(r);
	if (!ok(strcmp(got, want) == 0, "%s: %s", what, want))
		diag("  got: %s", got);
	free(got);
	gp_graph_free(r);
}

#define ONLY(r)	"optimizer=None,optimizer_including=" r
#define NONE	"optimizer=None"

/*
 * Conv graphs: x (2, 3, 6, 6) float32, W (4, 3, 3, 3), BN params (4).
 */

#define V(name, kind, shape, lo, hi, seed) "'" name "': {'kind': '" kind \
	"', 'dtype': 'float32', 'shape': " shape ", 'init': {'uniform': [" \
	#lo ", " #hi "], 'seed': " #seed "}}"
#define CONV_VARS							\
	V("x", "input", "[2, 3, 6, 6]", -1, 1, 1) ", "			\
	V("W", "shared", "[4, 3, 3, 3]", -0.5, 0.5, 2) ", "		\
	V("b", "shared", "[4]", -0.1, 0.1, 3) ", "			\
	V("gamma", "shared", "[4]", 0.5, 1.5, 4) ", "			\
	V("beta", "shared", "[4]", -0.1, 0.1, 5) ", "			\
	V("mu", "shared", "[4]", -0.2, 0.2, 6) ", "			\
	V("var", "shared", "[4]", 0.5, 1.5, 7)
#define CONV(out, extra) "{'op': 'conv', 'inputs': ['x', 'W'" extra "], " \
	"'outputs': ['" out "'], 'params': {'pads': [1, 1, 1, 1]}}"
#define BN(in, out, mu) "{'op': 'batch_norm', 'inputs': ['" in "', "	\
	"'gamma', 'beta', '" mu "', 'var'], 'outputs': ['" out "']}"
#define RELU(in, out) "{'op': 'maximum', 'inputs': ['" in "', 0], "	\
	"'outputs': ['" out "']}"

static void
test_bn_fold(void)
{
	struct gp_graph *g;

	/* conv + bn -> one conv, then with the relu fused */
	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", " BN("c", "n", "mu"),
	    "'n'", NULL);
	expect_ops(g, ONLY("bn_fold"), "Conv{3x3, pads=[1, 1, 1, 1]}",
	    "bn_fold: conv + batch_norm");
	compare(g, "optimizer=fast_run", "optimizer_excluding=bn_fold", false,
	    "bn_fold: conv + batch_norm");
	gp_graph_free(g);
	g = graph_of(CONV_VARS, CONV("c", "") ", " BN("c", "n", "mu") ", "
	    RELU("n", "r"), "'r'", NULL);
	expect_ops(g, ONLY("bn_fold:conv_act"),
	    "Conv{3x3, pads=[1, 1, 1, 1], relu}",
	    "bn_fold + conv_act: conv (no bias) + batch_norm + relu");
	compare(g, "optimizer=fast_run", "optimizer_excluding=cnn", false,
	    "bn_fold + conv_act: conv + batch_norm + relu");
	gp_graph_free(g);

	/* must not fire: the conv's output read elsewhere too */
	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", " BN("c", "n", "mu")
	    ", {'op': 'sum', 'inputs': ['c'], 'outputs': ['s']}", "'n', 's'",
	    NULL);
	expect_ops(g, ONLY("cnn"), "Conv{3x3, pads=[1, 1, 1, 1]} "
	    "BatchNormalization{epsilon=1e-05} Sum",
	    "bn_fold: not when the conv's output has another reader");
	gp_graph_free(g);
	/* ... or is a function output */
	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", " BN("c", "n", "mu"),
	    "'n', 'c'", NULL);
	expect_ops(g, ONLY("cnn"), "Conv{3x3, pads=[1, 1, 1, 1]} "
	    "BatchNormalization{epsilon=1e-05}",
	    "bn_fold: not when the conv's output is a function output");
	gp_graph_free(g);
	/* ... or a statistic is an input (not known now) */
	g = graph_of(CONV_VARS ", " V("m2", "input", "[4]", -0.2, 0.2, 8),
	    CONV("c", ", 'b'") ", " BN("c", "n", "m2"), "'n'", NULL);
	expect_ops(g, ONLY("cnn"), "Conv{3x3, pads=[1, 1, 1, 1]} "
	    "BatchNormalization{epsilon=1e-05}",
	    "bn_fold: not when a statistic is an input");
	gp_graph_free(g);
	/* ... or a shared statistic some function updates */
	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", " BN("c", "n", "mu") ", "
	    "{'op': 'mul', 'inputs': ['mu', 0.5], 'outputs': ['mu2']}", "'n'",
	    "'mu': 'mu2'");
	expect_ops(g, ONLY("cnn"), "Conv{3x3, pads=[1, 1, 1, 1]} "
	    "BatchNormalization{epsilon=1e-05} Elemwise{mul}",
	    "bn_fold: not when a statistic is updated");
	compare(g, "optimizer=fast_run", NONE, true,
	    "bn_fold: updated statistic, over two calls");
	gp_graph_free(g);
	/* ... nor when the weights are updated */
	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", " BN("c", "n", "mu") ", "
	    "{'op': 'mul', 'inputs': ['W', 0.5], 'outputs': ['W2']}", "'n'",
	    "'W': 'W2'");
	expect_ops(g, ONLY("cnn"), "Conv{3x3, pads=[1, 1, 1, 1]} "
	    "BatchNormalization{epsilon=1e-05} Elemwise{mul}",
	    "bn_fold: not when the weights are updated");
	gp_graph_free(g);
	/* the batch_norm's output read twice: folded, but the relu stays
	 * apart (the folded conv's output has two readers) */
	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", " BN("c", "n", "mu")
	    ", " RELU("n", "r") ", {'op': 'sum', 'inputs': ['n'], "
	    "'outputs': ['s']}", "'r', 's'", NULL);
	expect_ops(g, ONLY("cnn"), "Elemwise{maximum} Sum "
	    "Conv{3x3, pads=[1, 1, 1, 1]}",
	    "bn_fold + conv_act: batch_norm read twice: folded, relu apart");
	compare(g, "optimizer=fast_run", "optimizer_excluding=cnn", false,
	    "batch_norm read twice");
	gp_graph_free(g);
}

/* bn_act: the clamp into a batch_norm that stays (bn_fold left out
 * here, as for DenseNet's pre-activations, which follow no conv) */
static void
test_bn_act(void)
{
	struct gp_graph *g;

	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", " BN("c", "n", "mu") ", "
	    RELU("n", "r"), "'r'", NULL);
	expect_ops(g, ONLY("bn_act"), "Conv{3x3, pads=[1, 1, 1, 1]} "
	    "BatchNormalization{epsilon=1e-05, relu}",
	    "bn_act: batch_norm + relu");
	compare(g, "optimizer=fast_run,optimizer_excluding=bn_fold",
	    "optimizer=fast_run,optimizer_excluding=bn_fold:bn_act", true,
	    "bn_act: batch_norm + relu");
	/* after a conv, bn_fold comes first: one conv */
	expect_ops(g, ONLY("bn_fold:conv_act:bn_act"),
	    "Conv{3x3, pads=[1, 1, 1, 1], relu}",
	    "bn_act: after a conv, folded into it (bn_fold, conv_act)");
	gp_graph_free(g);
	/* relu then clip(0, 6): one clamp, the intersection */
	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", " BN("c", "n", "mu") ", "
	    RELU("n", "r0") ", {'op': 'clip', 'inputs': ['r0', 0, 6], "
	    "'outputs': ['r']}", "'r'", NULL);
	expect_ops(g, ONLY("bn_act"), "Conv{3x3, pads=[1, 1, 1, 1]} "
	    "BatchNormalization{epsilon=1e-05, clip=[0, 6]}",
	    "bn_act: relu then clip(0, 6)");
	compare(g, "optimizer=fast_run,optimizer_excluding=bn_fold",
	    "optimizer=fast_run,optimizer_excluding=bn_fold:bn_act", true,
	    "bn_act: relu then clip(0, 6)");
	gp_graph_free(g);
	/* a batch_norm that clamps already (bn_act's, or the graph's own)
	 * folded into a conv: the folded conv clamps the same */
	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", {'op': 'batch_norm', "
	    "'inputs': ['c', 'gamma', 'beta', 'mu', 'var'], 'outputs': ['n'], "
	    "'params': {'act_min': 0, 'act_max': 0.5}}", "'n'", NULL);
	expect_ops(g, ONLY("bn_fold"),
	    "Conv{3x3, pads=[1, 1, 1, 1], clip=[0, 0.5]}",
	    "bn_fold: a clamped batch_norm, the clamp kept");
	compare(g, "optimizer=fast_run", "optimizer_excluding=cnn", false,
	    "bn_fold: a clamped batch_norm, the clamp kept");
	gp_graph_free(g);
	/* must not fire: the batch_norm's output is also a function output */
	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", " BN("c", "n", "mu") ", "
	    RELU("n", "r"), "'r', 'n'", NULL);
	expect_ops(g, ONLY("bn_act"), "Conv{3x3, pads=[1, 1, 1, 1]} "
	    "BatchNormalization{epsilon=1e-05} Elemwise{maximum}",
	    "bn_act: not when the batch_norm's output is a function output");
	gp_graph_free(g);
}

static void
test_conv_act(void)
{
	struct gp_graph *g;

	/* conv + bias add (C, 1, 1) + relu6 (clip) -> one conv */
	g = graph_of(CONV_VARS ", " V("bb", "shared", "[4, 1, 1]", -0.1, 0.1,
	    9), CONV("c", "") ", {'op': 'add', 'inputs': ['c', 'bb'], "
	    "'outputs': ['a']}, {'op': 'clip', 'inputs': ['a', 0, 6], "
	    "'outputs': ['r']}", "'r'", NULL);
	expect_ops(g, ONLY("conv_bias:conv_act"), "Reshape{1} "
	    "Conv{3x3, pads=[1, 1, 1, 1], clip=[0, 6]}",
	    "conv_bias + conv_act: conv + (C, 1, 1) bias + clip(0, 6)");
	compare(g, "optimizer=fast_run", "optimizer_excluding=cnn", true,
	    "conv_bias + conv_act: conv + bias + clip");
	gp_graph_free(g);
	/* bias (1, C, 1, 1) first, relu as maximum(0, y) */
	g = graph_of(CONV_VARS ", " V("bb", "shared", "[1, 4, 1, 1]", -0.1, 0.1,
	    9), CONV("c", "") ", {'op': 'add', 'inputs': ['bb', 'c'], "
	    "'outputs': ['a']}, {'op': 'maximum', 'inputs': [0, 'a'], "
	    "'outputs': ['r']}", "'r'", NULL);
	compare(g, "optimizer=fast_run", "optimizer_excluding=cnn", true,
	    "conv_bias + conv_act: (1, C, 1, 1) bias + maximum(0, y)");
	expect_ops(g, ONLY("conv_bias:conv_act"), "Reshape{1} "
	    "Conv{3x3, pads=[1, 1, 1, 1], relu}",
	    "conv_bias + conv_act: bias first, maximum(0, y)");
	gp_graph_free(g);
	/* a clamp of a clamped conv: Relu then Clip(0, 6) (torch's ReLU6)
	 * is one clamp; disjoint ranges (always 8) stay two applies */
	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", " RELU("c", "r0") ", "
	    "{'op': 'clip', 'inputs': ['r0', 0, 6], 'outputs': ['r']}", "'r'",
	    NULL);
	expect_ops(g, ONLY("conv_act"), "Conv{3x3, pads=[1, 1, 1, 1], "
	    "clip=[0, 6]}", "conv_act: relu then clip(0, 6), one clamp");
	compare(g, "optimizer=fast_run", "optimizer_excluding=cnn", true,
	    "conv_act: relu then clip(0, 6)");
	gp_graph_free(g);
	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", {'op': 'clip', "
	    "'inputs': ['c', 0, 6], 'outputs': ['r0']}, {'op': 'clip', "
	    "'inputs': ['r0', 8, 10], 'outputs': ['r']}", "'r'", NULL);
	expect_ops(g, ONLY("conv_act"), "Elemwise{clip} "
	    "Conv{3x3, pads=[1, 1, 1, 1], clip=[0, 6]}",
	    "conv_act: not a second clamp disjoint from the first");
	compare(g, "optimizer=fast_run", "optimizer_excluding=cnn", true,
	    "conv_act: disjoint clamps");
	gp_graph_free(g);
	/* must not fire: a bias over the pixels, not the channels */
	g = graph_of(CONV_VARS ", " V("bb", "shared", "[6, 6]", -0.1, 0.1, 9),
	    CONV("c", "") ", {'op': 'add', 'inputs': ['c', 'bb'], "
	    "'outputs': ['a']}", "'a'", NULL);
	expect_ops(g, ONLY("cnn"), "Conv{3x3, pads=[1, 1, 1, 1]} Elemwise{add}",
	    "conv_bias: not for a (H, W) addend");
	gp_graph_free(g);
	/* ... nor a relu of a conv read elsewhere */
	g = graph_of(CONV_VARS, CONV("c", ", 'b'") ", " RELU("c", "r"),
	    "'r', 'c'", NULL);
	expect_ops(g, ONLY("cnn"), "Conv{3x3, pads=[1, 1, 1, 1]} Elemwise{maximum}",
	    "conv_act: not when the conv's output is also a function output");
	gp_graph_free(g);
	/* ... nor a clip by non-constant bounds, nor a maximum that
	 * broadcasts the conv's output */
	g = graph_of(CONV_VARS ", " V("lo", "input", "[]", 0, 1, 10),
	    CONV("c", ", 'b'") ", {'op': 'clip', 'inputs': ['c', 'lo', 6], "
	    "'outputs': ['r']}", "'r'", NULL);
	expect_ops(g, ONLY("cnn"), "Conv{3x3, pads=[1, 1, 1, 1]} Elemwise{clip}",
	    "conv_act: not for a clip whose bound is an input");
	gp_graph_free(g);
	g = graph_of(CONV_VARS ", 'z': {'kind': 'constant', 'dtype': "
	    "'float32', 'shape': [3, 2, 4, 6, 6], 'init': {'fill': 0}}",
	    CONV("c", ", 'b'") ", {'op': 'maximum', 'inputs': ['c', 'z'], "
	    "'outputs': ['r']}", "'r'", NULL);
	expect_ops(g, ONLY("cnn"), "Conv{3x3, pads=[1, 1, 1, 1]} "
	    "Elemwise{maximum}", "conv_act: not for a maximum that "
	    "broadcasts the conv's output");
	gp_graph_free(g);
}

/*
 * The decomposed LayerNorm: x (2, 3, 8) float32, gamma, beta (8).
 */

#define LN_VARS								\
	V("x", "input", "[2, 3, 8]", -2, 2, 11) ", "			\
	V("gamma", "shared", "[8]", 0.5, 1.5, 12) ", "			\
	V("beta", "shared", "[8]", -0.5, 0.5, 13)
#define MEAN(in, out, ax) "{'op': 'mean', 'inputs': ['" in "'], "	\
	"'outputs': ['" out "'], 'params': {'axis': " ax ", "		\
	"'keepdims': true}}"
#define OP2(op, a, b, out) "{'op': '" op "', 'inputs': [" a ", " b "], " \
	"'outputs': ['" out "']}"
/* torch's export: ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul,
 * Add; ax1 and ax2 the two means' axes */
#define LN(ax1, ax2, tail)						\
	MEAN("x", "m", ax1) ", " OP2("sub", "'x'", "'m'", "d") ", "	\
	OP2("pow", "'d'", "2", "p") ", " MEAN("p", "v", ax2) ", "	\
	tail ", " OP2("true_div", "'d'", "'s'", "nr") ", "		\
	OP2("mul", "'nr'", "'gamma'", "sc") ", "			\
	OP2("add", "'sc'", "'beta'", "y")
#define EPS_IN "{'op': 'add', 'inputs': ['v', 1e-5], 'outputs': ['ve']}, " \
	"{'op': 'sqrt', 'inputs': ['ve'], 'outputs': ['s']}"

static void
test_layer_norm(void)
{
	struct gp_graph *g;

	g = graph_of(LN_VARS, LN("[-1]", "[-1]", EPS_IN), "'y'", NULL);
	expect_ops(g, ONLY("layer_norm_fuse"),
	    "LayerNormalization{axis=2, epsilon=1e-05}",
	    "layer_norm_fuse: the 9 applies torch exports");
	compare(g, "optimizer=fast_run", "optimizer_excluding=layer_norm_fuse",
	    false, "layer_norm_fuse");
	gp_graph_free(g);
	/* over the last two axes, after pow_specialize made pow a sqr */
	g = graph_of(LN_VARS ", " V("g2", "shared", "[3, 8]", 0.5, 1.5, 14)
	    ", " V("b2", "shared", "[1, 3, 8]", -0.5, 0.5, 15),
	    MEAN("x", "m", "[1, 2]") ", " OP2("sub", "'x'", "'m'", "d") ", "
	    OP2("pow", "'d'", "2", "p") ", " MEAN("p", "v", "[-2, -1]") ", "
	    EPS_IN ", " OP2("true_div", "'d'", "'s'", "nr") ", "
	    OP2("mul", "'g2'", "'nr'", "sc") ", "
	    OP2("add", "'b2'", "'sc'", "y"), "'y'", NULL);
	expect_ops(g, ONLY("pow_specialize:layer_norm_fuse"),
	    "LayerNormalization{axis=1, epsilon=1e-05}",
	    "layer_norm_fuse: two trailing axes, operands swapped, sqr");
	compare(g, "optimizer=fast_run", "optimizer_excluding=layer_norm_fuse",
	    false, "layer_norm_fuse: two axes");
	gp_graph_free(g);

	/* look-alikes that must stay: epsilon added after the sqrt */
	g = graph_of(LN_VARS, LN("[-1]", "[-1]",
	    "{'op': 'sqrt', 'inputs': ['v'], 'outputs': ['sv']}, "
	    "{'op': 'add', 'inputs': ['sv', 1e-5], 'outputs': ['s']}"), "'y'",
	    NULL);
	ok(n_op(g, "mean") == 2, "look-alike graph loads");
	{
		struct gp_graph *r = rewritten(g, ONLY("cnn:pow_specialize"));

		ok(r != NULL && n_op(r, "layer_norm") == 0 && n_op(r, "mean") ==
		    2, "layer_norm_fuse: not with epsilon added after the "
		    "sqrt");
		gp_graph_free(r);
	}
	gp_graph_free(g);
	/* ... means over a leading axis */
	g = graph_of(LN_VARS, LN("[1]", "[1]", EPS_IN), "'y'", NULL);
	expect_ops(g, ONLY("cnn"), "Mean{axis=[1], keepdims} Elemwise{sub} "
	    "Elemwise{pow} Mean{axis=[1], keepdims} Elemwise{add} "
	    "Elemwise{sqrt} Elemwise{true_div} Elemwise{mul} Elemwise{add}",
	    "layer_norm_fuse: not over a leading axis");
	gp_graph_free(g);
	/* ... the two means over different axes */
	g = graph_of(LN_VARS, LN("[-1]", "[1, 2]", EPS_IN), "'y'", NULL);
	{
		struct gp_graph *r = rewritten(g, ONLY("cnn"));

		ok(r != NULL && n_op(r, "layer_norm") == 0, "layer_norm_fuse: "
		    "not when the two means take different axes");
		gp_graph_free(r);
	}
	gp_graph_free(g);
	/* ... the centred x read by a third apply */
	g = graph_of(LN_VARS, LN("[-1]", "[-1]", EPS_IN) ", {'op': 'sum', "
	    "'inputs': ['d'], 'outputs': ['sd']}", "'y', 'sd'", NULL);
	{
		struct gp_graph *r = rewritten(g, ONLY("cnn"));

		ok(r != NULL && n_op(r, "layer_norm") == 0, "layer_norm_fuse: "
		    "not when x - mean(x) has a third reader");
		gp_graph_free(r);
	}
	gp_graph_free(g);
	/* ... a square of something else than x - mean(x) */
	g = graph_of(LN_VARS, MEAN("x", "m", "[-1]") ", "
	    OP2("sub", "'x'", "'m'", "d") ", " OP2("pow", "'x'", "2", "p") ", "
	    MEAN("p", "v", "[-1]") ", " EPS_IN ", "
	    OP2("true_div", "'d'", "'s'", "nr") ", "
	    OP2("mul", "'nr'", "'gamma'", "sc") ", "
	    OP2("add", "'sc'", "'beta'", "y"), "'y'", NULL);
	{
		struct gp_graph *r = rewritten(g, ONLY("cnn"));

		ok(r != NULL && n_op(r, "layer_norm") == 0, "layer_norm_fuse: "
		    "not for mean(x^2) (an RMS look-alike)");
		gp_graph_free(r);
	}
	gp_graph_free(g);
}

/*
 * conv_winograd: x (1, C, S, S), W (16, C, 3, 3) of kind wk, pads 1, relu.
 */

static struct gp_graph *
wino_graph_of(int c, int sz, const char *dtype, const char *strides,
    const char *wk, const char *updates)
{
	char *vars = gp_xasprintf("'x': {'kind': 'input', 'dtype': '%s', "
	    "'shape': [1, %d, %d, %d], 'init': {'uniform': [-1, 1], 'seed': "
	    "1}}, 'W': {'kind': '%s', 'dtype': '%s', 'shape': [16, %d, 3, "
	    "3], 'init': {'uniform': [-0.2, 0.2], 'seed': 2}}, 'b': {'kind': "
	    "'shared', 'dtype': '%s', 'shape': [16], 'init': {'uniform': "
	    "[-0.1, 0.1], 'seed': 3}}", dtype, c, sz, sz, wk, dtype, c, dtype);
	char *nodes = gp_xasprintf("{'op': 'conv', 'inputs': ['x', 'W', 'b'], "
	    "'outputs': ['c'], 'params': {'pads': [1, 1, 1, 1], 'strides': "
	    "%s}}, {'op': 'maximum', 'inputs': ['c', 0], 'outputs': ['r']}%s",
	    strides, updates != NULL ? ", {'op': 'mul', 'inputs': ['W', "
	    "1.5], 'outputs': ['W2']}" : "");
	struct gp_graph *g = graph_of(vars, nodes, "'r'", updates);

	free(vars);
	free(nodes);
	return (g);
}

static struct gp_graph *
wino_graph(int c, const char *dtype, const char *strides)
{
	return (wino_graph_of(c, 20, dtype, strides, "shared", NULL));
}

/* The first live apply of op in r, or NULL. */
static const struct gp_node *
op_of(const struct gp_graph *r, const char *op)
{
	for (size_t i = 0; r != NULL && i < r->n_nodes; i++)
		if (!r->nodes[i].dead && strcmp(r->nodes[i].op->name, op) == 0)
			return (&r->nodes[i]);
	return (NULL);
}

/*
 * U, the weights' transform the rewrite made, against G w G^T computed
 * here in double from W's taps, G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2;
 * 0 0 1]: every element of every filter and channel.
 */
static double
u_error(const struct gp_graph *r, const struct gp_node *cv, int64_t m,
    int64_t cg)
{
	static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5},
	    {0.5, -0.5, 0.5}, {0, 0, 1}};
	const float *w = (const float *)(const void *)gp_tensor_data(
	    &r->vars[cv->in[1]].value);
	const float *u = (const float *)(const void *)gp_tensor_data(
	    &r->vars[cv->in[3]].value);
	double worst = 0;

	for (int64_t o = 0; o < m; o++)
		for (int64_t c = 0; c < cg; c++) {
			const float *g = w + (o * cg + c) * 9;

			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++) {
					double v = 0, d;

					for (int a = 0; a < 3; a++)
						for (int b = 0; b < 3; b++)
							v += G[i][a] * g[a * 3 +
							    b] * G[j][b];
					d = fabs(v - u[((i * 4 + j) * m + o) *
					    cg + c]);
					if (d > worst)
						worst = d;
				}
		}
	return (worst);
}

/* The fixed weights' transform: a constant U, input 3. */
static void
test_wino_fixed(bool avx)
{
	struct gp_graph *g, *r;
	const struct gp_node *cv;
	const struct gp_type *ut;

	if (!avx) {
		/* no AVX2 and FMA: no Winograd kernel, no U */
		g = wino_graph_of(128, 14, "float32", "[1, 1]", "shared",
		    NULL);
		r = g ? rewritten(g, ONLY("conv_winograd")) : NULL;
		cv = op_of(r, "conv");
		ok(cv != NULL && cv->n_in == 3, "conv_winograd: no AVX2 and "
		    "FMA: no transformed weights");
		gp_graph_free(r);
		gp_graph_free(g);
		return;
	}
	g = wino_graph(64, "float32", "[1, 1]");
	r = g ? rewritten(g, ONLY("conv_winograd")) : NULL;
	cv = op_of(r, "conv");
	ut = cv != NULL && cv->n_in == 4 ? &r->vars[cv->in[3]].type : NULL;
	if (ok(ut != NULL && ut->ndim == 4 && ut->shape[0] == 1 &&
	    ut->shape[1] == 16 && ut->shape[2] == 16 && ut->shape[3] == 64 &&
	    r->vars[cv->in[3]].kind == GP_VAR_CONSTANT && strcmp(
	    r->vars[cv->in[3]].name, "W.winograd") == 0, "conv_winograd: "
	    "fixed W -> constant W.winograd (1, 16, 16, 64), input 3"))
		ok(u_error(r, cv, 16, 64) <= 1e-6, "conv_winograd: U = G w "
		    "G^T of every filter and channel (within 1e-6; |w| <= "
		    "0.2)");
	else
		ok(false, "conv_winograd: U = G w G^T");
	gp_graph_free(r);
	gp_graph_free(g);
	/* 14x14: 49 tiles; taken from 128 channels with W fixed only */
	g = wino_graph_of(128, 14, "float32", "[1, 1]", "shared", NULL);
	r = g ? rewritten(g, ONLY("conv_winograd")) : NULL;
	cv = op_of(r, "conv");
	ok(cv != NULL && cv->n_in == 4, "conv_winograd: 128 channels at "
	    "14x14 with fixed W: taken, U made");
	gp_graph_free(r);
	if (g != NULL)
		compare(g, "optimizer=fast_run", "optimizer_excluding="
		    "conv_winograd", false, "conv_winograd: 128 channels, "
		    "14x14, U fixed");
	gp_graph_free(g);
	/* W an input, or a shared variable an update changes: not fixed */
	g = wino_graph_of(128, 14, "float32", "[1, 1]", "input", NULL);
	expect_ops(g, ONLY("conv_winograd"), "Conv{3x3, pads=[1, 1, 1, 1]} "
	    "Elemwise{maximum}", "conv_winograd: not at 14x14 when W is an "
	    "input");
	gp_graph_free(g);
	g = wino_graph_of(64, 20, "float32", "[1, 1]", "shared", "'W': 'W2'");
	r = g ? rewritten(g, ONLY("conv_winograd")) : NULL;
	cv = op_of(r, "conv");
	ok(cv != NULL && cv->n_in == 3 && json_is_true(json_object_get(
	    cv->params, "winograd")), "conv_winograd: W updated by the "
	    "function: winograd, U transformed each call (3 inputs)");
	gp_graph_free(r);
	gp_graph_free(g);
}

static void
test_conv_winograd(void)
{
	struct gp_graph *g;
	bool avx = gp_conv_gemm_ok();

	g = wino_graph(64, "float32", "[1, 1]");
	expect_ops(g, ONLY("conv_act:conv_winograd"), avx ?
	    "Conv{3x3, pads=[1, 1, 1, 1], relu, winograd}" :
	    "Conv{3x3, pads=[1, 1, 1, 1], relu}", "conv_winograd: 64 "
	    "channels, 20x20, after conv_act");
	compare(g, "optimizer=fast_run", "optimizer_excluding=conv_winograd",
	    false, "conv_winograd: 64 channels, 20x20");
	gp_graph_free(g);
	/* where it does not pay, or does not apply: the conv unchanged */
	g = wino_graph(32, "float32", "[1, 1]");
	expect_ops(g, ONLY("conv_winograd"), "Conv{3x3, pads=[1, 1, 1, 1]} "
	    "Elemwise{maximum}", "conv_winograd: not on 32 input channels");
	gp_graph_free(g);
	g = wino_graph(64, "float32", "[2, 2]");
	expect_ops(g, ONLY("conv_winograd"), "Conv{3x3, strides=2x2, "
	    "pads=[1, 1, 1, 1]} Elemwise{maximum}", "conv_winograd: not on "
	    "strides 2");
	gp_graph_free(g);
	g = wino_graph(64, "float64", "[1, 1]");
	expect_ops(g, ONLY("conv_winograd"), "Conv{3x3, pads=[1, 1, 1, 1]} "
	    "Elemwise{maximum}", "conv_winograd: not in float64");
	gp_graph_free(g);
	test_wino_fixed(avx);
}

/*
 * Whole graphs and models: the rewrites on and off.
 */

static void
check_model(struct gp_graph *g, const char *what)
{
	if (!ok(g != NULL, "%s loads", what))
		return;
	compare(g, "optimizer=fast_run", "optimizer_excluding=cnn", false,
	    what);
	compare(g, "optimizer_excluding=bn_fold:layer_norm_fuse:"
	    "conv_winograd", "optimizer_excluding=cnn", true, what);
	gp_graph_free(g);
}

static void
test_models(void)
{
	struct gp_err err;
	char *p = gp_xasprintf("%s/data/graphs/cnn.json", top_srcdir);
	struct gp_graph *g = gp_graph_load(p, NULL, &err), *r;
	struct gp_onnx_load_opts o = {.limit_bytes = 1 << 30};
	const char *more = getenv("GPTOP_CNN_MODELS");

	if (g != NULL) {
		/* conv+bn+relu, depthwise, pointwise+bias+relu: 3 convs */
		r = rewritten(g, "optimizer=fast_run");
		ok(r != NULL && n_op(r, "conv") == 3 && n_op(r,
		    "batch_norm") == 0 && n_op(r, "maximum") == 0,
		    "cnn.json: batch_norm folded, both relus fused");
		gp_graph_free(r);
	}
	check_model(g, "data/graphs/cnn.json");
	free(p);
	p = gp_xasprintf("%s/data/models/cnn/model.onnx", top_srcdir);
	g = gp_onnx_load(p, &o, &err);
	if (g == NULL)
		diag("%s", err.msg);
	if (g != NULL) {
		r = rewritten(g, "optimizer=fast_run");
		ok(r != NULL && n_op(r, "conv") == 2 && n_op(r, "maximum") == 0,
		    "data/models/cnn: both Conv+Relu fused");
		gp_graph_free(r);
	}
	check_model(g, "data/models/cnn");
	free(p);
	/* torch's own exports (tests/data/rewrite/make.py) */
	p = gp_xasprintf("%s/tests/data/rewrite/conv-bn-act.onnx", top_srcdir);
	g = gp_onnx_load(p, &o, &err);
	if (g == NULL)
		diag("%s", err.msg);
	if (g != NULL) {
		r = rewritten(g, "optimizer=fast_run");
		if (!ok(r != NULL && n_live(r) == 2 && n_op(r, "conv") == 2,
		    "conv-bn-act.onnx: Conv, BatchNormalization, Relu, Clip "
		    "and Conv, BatchNormalization, Relu: two conv applies"))
			diag("  got: %s", r ? ops_of(r) : "no graph");
		else {
			char *ops = ops_of(r);
			const struct gp_node *a = NULL, *b = NULL;

			/* the ONNX names and labels stay, with the clamp */
			if (!ok(strcmp(ops, "Conv{3x3,p1,clip[0,6]} "
			    "Conv{3x3,p1,relu}") == 0, "conv-bn-act.onnx: the "
			    "labels say what the conv took in"))
				diag("  got: %s", ops);
			free(ops);
			for (size_t i = 0; i < r->n_nodes; i++)
				if (!r->nodes[i].dead)
					*(a == NULL ? &a : &b) = &r->nodes[i];
			ok(a != NULL && b != NULL && a->name != NULL &&
			    b->name != NULL && strcmp(a->name, "/c1/Conv") == 0 &&
			    strcmp(b->name, "/c2/Conv") == 0, "conv-bn-act.onnx: "
			    "the fused applies keep the Conv nodes' names");
		}
		gp_graph_free(r);
	}
	check_model(g, "tests/data/rewrite/conv-bn-act.onnx");
	free(p);
	p = gp_xasprintf("%s/tests/data/rewrite/layernorm13.onnx", top_srcdir);
	g = gp_onnx_load(p, &o, &err);
	if (g == NULL)
		diag("%s", err.msg);
	if (g != NULL) {
		r = rewritten(g, "optimizer=fast_run");
		ok(r != NULL && n_live(r) == 1 && n_op(r, "layer_norm") == 1,
		    "layernorm13.onnx: the 9 nodes of torch's LayerNorm, one "
		    "layer_norm apply");
		gp_graph_free(r);
	}
	check_model(g, "tests/data/rewrite/layernorm13.onnx");
	free(p);
	while (more != NULL && *more != '\0') {
		const char *e = strchr(more, ':');
		size_t len = e ? (size_t)(e - more) : strlen(more);

		p = gp_xasprintf("%.*s", (int)len, more);
		g = gp_onnx_load(p, &o, &err);
		if (g == NULL)
			diag("%s", err.msg);
		check_model(g, p);
		free(p);
		more = e ? e + 1 : NULL;
	}
}

/*
 * gemm_pack: y = gemm(alloc(b, (M, N)), alpha, x, Y, beta), x (M, K)
 * input, Y = transpose(W) of W (N, K) of kind wk (or, ty false, Y = W of
 * shape (K, N)), b (N) shared; dtype dt.
 */
static struct gp_graph *
pack_graph(int64_t m, int64_t k, int64_t n, const char *dt, const char *wk,
    bool ty, const char *alpha, const char *beta)
{
	char *vars = gp_xasprintf("'x': {'kind': 'input', 'dtype': '%s', "
	    "'shape': [%lld, %lld], 'init': {'uniform': [-1, 1], 'seed': 1}}, "
	    "'W': {'kind': '%s', 'dtype': '%s', 'shape': [%lld, %lld], "
	    "'init': {'uniform': [-0.2, 0.2], 'seed': 2}}, 'b': {'kind': "
	    "'shared', 'dtype': '%s', 'shape': [%lld], 'init': {'uniform': "
	    "[-0.1, 0.1], 'seed': 3}}", dt, (long long)m, (long long)k, wk, dt,
	    (long long)(ty ? n : k), (long long)(ty ? k : n), dt,
	    (long long)n);
	char *nodes = gp_xasprintf("{'op': 'transpose', 'inputs': ['W'], "
	    "'outputs': ['Wt']}, {'op': 'alloc', 'inputs': ['b'], 'outputs': "
	    "['Z'], 'params': {'shape': [%lld, %lld]}}, {'op': 'gemm', "
	    "'inputs': ['Z', %s, 'x', '%s', %s], 'outputs': ['y']}",
	    (long long)m, (long long)n, alpha, ty ? "Wt" : "W", beta);
	struct gp_graph *g = graph_of(vars, nodes, "'y'", NULL);

	free(vars);
	free(nodes);
	return (g);
}

/* g rewritten with flags, run once into rr; x, W and b its variables.
 * NULL when it did not run. */
static struct gp_graph *
run_xwb(const struct gp_graph *g, const char *flags, struct res *rr,
    const struct gp_tensor **x, const struct gp_tensor **w,
    const struct gp_tensor **b)
{
	struct gp_graph *r = rewritten(g, flags);

	if (r == NULL || !run(r, rr)) {
		gp_graph_free(r);
		return (NULL);
	}
	*x = &r->vars[gp_graph_find_var(r, "x")].value;
	*w = &r->vars[gp_graph_find_var(r, "W")].value;
	*b = &r->vars[gp_graph_find_var(r, "b")].value;
	return (r);
}

/* y of graph g rewritten with flags (its first call) against alpha x . Y
 * + beta b computed here in double from the graph's values (x, the
 * variable xn: rows of k as the product reads them, or with xt its
 * transpose's; Y: W (k x n), or its transpose with ty): the largest
 * |diff| over the largest |y|; -1 when it did not run. */
static double
product_error(const struct gp_graph *g, const char *flags, const char *xn,
    int64_t m, int64_t k, int64_t n, bool xt, bool ty, double alpha,
    double beta)
{
	const struct gp_tensor *x, *w, *b;
	struct res rr;
	struct gp_graph *r = rewritten(g, flags);
	double dmax = 0, ymax = 0;

	if (r == NULL || !run(r, &rr)) {
		gp_graph_free(r);
		return (-1);
	}
	x = &r->vars[gp_graph_find_var(r, xn)].value;
	w = &r->vars[gp_graph_find_var(r, "W")].value;
	b = &r->vars[gp_graph_find_var(r, "b")].value;
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			double v = 0, d;

			for (int64_t q = 0; q < k; q++)
				v += gp_tensor_get(x, xt ? q * m + i : i * k +
				    q) * gp_tensor_get(w, ty ? j * k + q : q * n +
				    j);
			v = alpha * v + beta * gp_tensor_get(b, j);
			d = fabs(rr.v[i * n + j] - v);
			dmax = d > dmax ? d : dmax;
			ymax = fabs(v) > ymax ? fabs(v) : ymax;
		}
	res_free(&rr);
	gp_graph_free(r);
	return (dmax / ymax);
}

static void
test_gemm_pack(void)
{
	static const struct {
		int64_t	m, k, n;
		bool	ty;
		const char *beta, *what;
	} cases[] = {
		{130, 256, 200, true, "1", "130 x 256 . (200 x 256)^T: "
		    "a last sliver of 8 columns, a last row tile of 4"},
		{128, 784, 512, true, "1", "the MLP's first layer: k in two "
		    "blocks"},
		{64, 300, 257, false, "1", "Y fixed as it lies (300 x 257): "
		    "a last sliver of 1 column"},
		{100, 256, 200, true, "0", "beta 0: Z ignored"},
		{128, 512, 10, true, "1", "the MLP's last layer: 10 columns, "
		    "one sliver, its rows over the threads"},
	};
	bool avx = gp_conv_gemm_ok();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gp_graph *g = pack_graph(cases[i].m, cases[i].k,
		    cases[i].n, "float32", "shared", cases[i].ty, "1",
		    cases[i].beta);
		struct gp_graph *r = g ? rewritten(g, ONLY("gemm_pack")) :
		    NULL;
		const struct gp_node *n = op_of(r, "gemm");
		const struct gp_var *pv = n != NULL && n->n_in == 6 ?
		    &r->vars[n->in[5]] : NULL;
		double e;

		if (avx)
			ok(pv != NULL && pv->kind == GP_VAR_CONSTANT &&
			    strcmp(pv->name, "W.packed") == 0 &&
			    pv->type.ndim == 1 && pv->type.shape[0] ==
			    (cases[i].n + 15) / 16 * 16 * cases[i].k,
			    "gemm_pack: %s: a constant W.packed of %lld "
			    "values, input 5", cases[i].what, (long long)(
			    (cases[i].n + 15) / 16 * 16 * cases[i].k));
		else
			ok(n != NULL && n->n_in == 5, "gemm_pack: no AVX2 "
			    "and FMA: %s unchanged", cases[i].what);
		e = g ? product_error(g, "optimizer=fast_run", "x", cases[i].m,
		    cases[i].k, cases[i].n, false, cases[i].ty, 1,
		    atof(cases[i].beta)) : -1;
		ok(e >= 0 && e <= 1e-6, "gemm_pack: %s: y against beta b + x "
		    ". Y in double, within 1e-6 of max |y| (%.2g)",
		    cases[i].what, e);
		if (g != NULL)
			compare(g, "optimizer=fast_run", "optimizer_excluding="
			    "gemm_pack", false, cases[i].what);
		gp_graph_free(r);
		gp_graph_free(g);
	}
	/* not taken: small, alpha not 1, beta not 0 or 1, W an input,
	 * float64 */
	{
		static const struct {
			int64_t		 m, k, n;
			const char	*dt, *wk, *alpha, *beta, *what;
		} no[] = {
			{32, 128, 128, "float32", "shared", "1", "1",
			    "32 x 128 x 128 (under 4M multiply-adds, over 16 "
			    "columns)"},
			{128, 512, 512, "float32", "shared", "2", "1",
			    "alpha 2"},
			{128, 512, 512, "float32", "shared", "1", "0.5",
			    "beta 0.5"},
			{128, 512, 512, "float32", "input", "1", "1",
			    "W an input"},
			{128, 512, 512, "float64", "shared", "1", "1",
			    "float64"},
		};

		for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
			struct gp_graph *g = pack_graph(no[i].m, no[i].k,
			    no[i].n, no[i].dt, no[i].wk, true, no[i].alpha,
			    no[i].beta);
			struct gp_graph *r = g ? rewritten(g,
			    ONLY("gemm_pack")) : NULL;
			const struct gp_node *n = op_of(r, "gemm");

			ok(n != NULL && n->n_in == 5, "gemm_pack: not for %s",
			    no[i].what);
			gp_graph_free(r);
			gp_graph_free(g);
		}
	}
}

/*
 * gemm_pack on matmul: y = matmul(x, Y) (dot(x, Y) when x is 2-d: a
 * dot22 after dot_to_blas) [* 0.5] [+ b], x input of shape
 * xs (rank xr) or, xt, the transpose of an input (k x rows: x's rows then
 * step), Y = W (K, N) or transpose(W) of W (N, K) when ty, W of kind wk
 * and dtype dt, b (N) shared.  With the full pipeline, matmul_scale and
 * matmul_bias take the scale and the bias into the matmul before
 * gemm_pack packs it.
 */
static struct gp_graph *
mm_graph(const int64_t *xs, int xr, bool xt, int64_t n, const char *dt,
    const char *wk, bool ty, bool scale, bool bias)
{
	int64_t k = xs[xr - 1];
	struct gp_buf sh = {0}, nodes = {0};
	char *vars;
	struct gp_graph *g;

	for (int d = 0; d < xr; d++)
		gp_buf_printf(&sh, "%s%lld", d ? ", " : "", (long long)
		    (xt ? xs[xr - 1 - d] : xs[d]));
	vars = gp_xasprintf("'xin': {'kind': 'input', 'dtype': '%s', "
	    "'shape': [%s], 'init': {'uniform': [-1, 1], 'seed': 1}}, "
	    "'W': {'kind': '%s', 'dtype': '%s', 'shape': [%lld, %lld], "
	    "'init': {'uniform': [-0.2, 0.2], 'seed': 2}}, 'b': {'kind': "
	    "'shared', 'dtype': '%s', 'shape': [%lld], 'init': {'uniform': "
	    "[-0.1, 0.1], 'seed': 3}}", dt, gp_buf_str(&sh), wk, dt,
	    (long long)(ty ? n : k), (long long)(ty ? k : n), dt,
	    (long long)n);
	gp_buf_printf(&nodes, "{'op': '%s', 'inputs': ['xin'], 'outputs': "
	    "['x']}, {'op': 'transpose', 'inputs': ['W'], 'outputs': ['Wt']}, "
	    "{'op': '%s', 'inputs': ['x', '%s'], 'outputs': ['p']}",
	    xt ? "transpose" : "identity", xr == 2 ? "dot" : "matmul",
	    ty ? "Wt" : "W");
	gp_buf_printf(&nodes, ", {'op': 'mul', 'inputs': ['p', %s], "
	    "'outputs': ['q']}, {'op': 'add', 'inputs': ['q', %s], 'outputs': "
	    "['y']}", scale ? "0.5" : "1", bias ? "'b'" : "0");
	g = graph_of(vars, gp_buf_str(&nodes), "'y'", NULL);
	free(vars);
	gp_buf_free(&sh);
	gp_buf_free(&nodes);
	return (g);
}

static void
test_matmul_pack(void)
{
	static const struct {
		int64_t		 xs[3];
		int		 xr;
		int64_t		 n;
		bool		 xt, ty, scale, bias;
		const char	*op, *what;
	} cases[] = {
		{{1, 100, 256}, 3, 200, false, false, false, false,
		    "MatMul{packed}", "(1, 100, 256) . (256, 200): a last "
		    "sliver of 8 columns"},
		{{130, 256}, 2, 200, false, false, false, false,
		    "MatMul{packed}", "(130, 256) . (256, 200): a 2-d product "
		    "(dot22) made a packed matmul"},
		{{2, 65, 256}, 3, 130, false, false, true, true,
		    "MatMul{bias, alpha=0.5, packed}", "(2, 65, 256) . (256, "
		    "130) * 0.5 + b: the batch's rows in one call, alpha and "
		    "the bias"},
		{{1, 128, 256}, 3, 300, false, true, false, true,
		    "MatMul{bias, packed}", "(1, 128, 256) . (300, 256)^T + b: "
		    "Y a transpose of the weights"},
		{{1, 128, 256}, 3, 200, true, false, false, false,
		    "MatMul{packed}", "x a transpose, its rows stepping: the "
		    "call goes to BLAS on Y"},
	};
	bool avx = gp_conv_gemm_ok();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int xr = cases[i].xr;
		int64_t k = cases[i].xs[xr - 1], n = cases[i].n, rows = 1;
		struct gp_graph *g = mm_graph(cases[i].xs, xr, cases[i].xt, n,
		    "float32", "shared", cases[i].ty, cases[i].scale,
		    cases[i].bias);
		struct gp_graph *r = g ? rewritten(g, "optimizer=fast_run") :
		    NULL;
		const struct gp_node *mn = op_of(r, "matmul");
		const struct gp_var *pv = mn != NULL && mn->n_in >= 3 ?
		    &r->vars[mn->in[mn->n_in - 1]] : NULL;
		struct gp_buf lb = {0};
		double e;

		for (int d = 0; d < xr - 1; d++)
			rows *= cases[i].xs[d];
		if (mn != NULL)
			mn->op->format(r, mn, &lb);
		if (avx)
			ok(pv != NULL && pv->kind == GP_VAR_CONSTANT &&
			    strcmp(pv->name, "W.packed") == 0 &&
			    pv->type.ndim == 1 && pv->type.shape[0] ==
			    (n + 15) / 16 * 16 * k && mn->n_in ==
			    (cases[i].bias ? 4 : 3) && strcmp(gp_buf_str(&lb),
			    cases[i].op) == 0, "gemm_pack: matmul %s: %s, a "
			    "constant W.packed of %lld values, last (got %s)",
			    cases[i].what, cases[i].op, (long long)((n + 15) /
			    16 * 16 * k), gp_buf_str(&lb));
		else
			ok(mn == NULL || json_object_get(mn->params,
			    "packed") == NULL, "gemm_pack: no AVX2 and FMA: "
			    "matmul %s unpacked", cases[i].what);
		e = g ? product_error(g, "optimizer=fast_run", "xin", rows, k,
		    n, cases[i].xt, cases[i].ty, cases[i].scale ? 0.5 : 1,
		    cases[i].bias ? 1 : 0) : -1;
		ok(e >= 0 && e <= 1e-6, "gemm_pack: matmul %s: y against "
		    "alpha x . Y + b in double, within 1e-6 of max |y| (%.2g)",
		    cases[i].what, e);
		if (g != NULL)
			compare(g, "optimizer=fast_run", "optimizer_excluding="
			    "gemm_pack", false, cases[i].what);
		gp_buf_free(&lb);
		gp_graph_free(r);
		gp_graph_free(g);
	}
	/* not taken: small, Y an input, float64, a batch of Y */
	{
		static const struct {
			int64_t		 xs[3];
			int64_t		 n;
			const char	*dt, *wk, *what;
		} no[] = {
			{{1, 32, 128}, 128, "float32", "shared",
			    "(1, 32, 128) . (128, 128): under 4M multiply-adds, "
			    "over 16 columns"},
			{{1, 128, 512}, 512, "float32", "input", "W an input"},
			{{1, 128, 512}, 512, "float64", "shared", "float64"},
		};

		for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
			struct gp_graph *g = mm_graph(no[i].xs, 3, false,
			    no[i].n, no[i].dt, no[i].wk, false, false, false);
			struct gp_graph *r = g ? rewritten(g,
			    "optimizer=fast_run") : NULL;
			const struct gp_node *mn = op_of(r, "matmul");

			ok(mn != NULL && mn->n_in == 2 && json_object_get(
			    mn->params, "packed") == NULL,
			    "gemm_pack: matmul not for %s", no[i].what);
			gp_graph_free(r);
			gp_graph_free(g);
		}
	}
	{
		/* y = transpose(W, axes (0, 1)), which swaps nothing (kept by
		 * leaving useless_dimshuffle out): not packed as a transpose */
		int64_t xs[3] = {1, 128, 256};
		struct gp_graph *g = graph_of("'xin': {'kind': 'input', "
		    "'dtype': 'float32', 'shape': [1, 128, 256], 'init': "
		    "{'uniform': [-1, 1], 'seed': 1}}, 'W': {'kind': 'shared', "
		    "'dtype': 'float32', 'shape': [256, 200], 'init': "
		    "{'uniform': [-0.2, 0.2], 'seed': 2}}, 'b': {'kind': "
		    "'shared', 'dtype': 'float32', 'shape': [200], 'init': "
		    "{'uniform': [-0.1, 0.1], 'seed': 3}}", "{'op': "
		    "'transpose', 'inputs': ['W'], 'outputs': ['Wt'], 'params': "
		    "{'axes': [0, 1]}}, {'op': 'matmul', 'inputs': ['xin', "
		    "'Wt'], 'outputs': ['y']}", "'y'", NULL);
		const char *fl = "optimizer_excluding=useless_dimshuffle";
		double e = g ? product_error(g, fl, "xin", xs[1], xs[2], 200,
		    false, false, 1, 0) : -1;

		ok(e >= 0 && e <= 1e-6, "gemm_pack: matmul of transpose(W, "
		    "axes (0, 1)): W as it lies, within 1e-6 of x . W (%.2g)",
		    e);
		gp_graph_free(g);
	}
	{
		/* y with a batch of its own: a matmul gemm_pack leaves */
		struct gp_graph *g = graph_of("'x': {'kind': 'input', 'dtype': "
		    "'float32', 'shape': [2, 128, 256], 'init': {'uniform': "
		    "[-1, 1], 'seed': 1}}, 'W': {'kind': 'shared', 'dtype': "
		    "'float32', 'shape': [2, 256, 256], 'init': {'uniform': "
		    "[-0.2, 0.2], 'seed': 2}}", "{'op': 'matmul', 'inputs': "
		    "['x', 'W'], 'outputs': ['y']}", "'y'", NULL);
		struct gp_graph *r = g ? rewritten(g, "optimizer=fast_run") :
		    NULL;
		const struct gp_node *mn = op_of(r, "matmul");

		ok(mn != NULL && mn->n_in == 2, "gemm_pack: matmul not for a "
		    "y of 3 dimensions (a batch of weights)");
		gp_graph_free(r);
		gp_graph_free(g);
	}
}

/*
 * gemm_pack on a pointwise conv: y = conv(x, W[, b]) with act_min/act_max
 * from act ("" for none), x (N, C, H, Wd) input, W (M, C, kh, kw) of
 * kind wk, b (M) shared; dtype dt, group grp.
 */
static struct gp_graph *
pw_graph(int64_t nimg, int64_t c, int64_t m, int64_t h, int64_t wd,
    int64_t kh, const char *dt, const char *wk, bool bias, int64_t grp,
    const char *act)
{
	char *vars = gp_xasprintf("'x': {'kind': 'input', 'dtype': '%s', "
	    "'shape': [%lld, %lld, %lld, %lld], 'init': {'uniform': [-1, 1], "
	    "'seed': 1}}, 'W': {'kind': '%s', 'dtype': '%s', 'shape': [%lld, "
	    "%lld, %lld, %lld], 'init': {'uniform': [-0.2, 0.2], 'seed': 2}}, "
	    "'b': {'kind': 'shared', 'dtype': '%s', 'shape': [%lld], 'init': "
	    "{'uniform': [-0.1, 0.1], 'seed': 3}}", dt, (long long)nimg,
	    (long long)c, (long long)h, (long long)wd, wk, dt, (long long)m,
	    (long long)(c / grp), (long long)kh, (long long)kh, dt,
	    (long long)m);
	char *nodes = gp_xasprintf("{'op': 'conv', 'inputs': ['x', 'W'%s], "
	    "'outputs': ['y'], 'params': {'kernel_shape': [%lld, %lld], "
	    "'group': %lld%s}}", bias ? ", 'b'" : "", (long long)kh,
	    (long long)kh, (long long)grp, act);
	struct gp_graph *g = graph_of(vars, nodes, "'y'", NULL);

	free(vars);
	free(nodes);
	return (g);
}

/* y of the pointwise conv graph g rewritten with flags against W . x + b
 * clamped to [lo, hi], computed here in double: the largest |diff| over
 * the largest |y|; -1 when it did not run. */
static double
pw_error(const struct gp_graph *g, const char *flags, int64_t nimg,
    int64_t c, int64_t m, int64_t px, double lo, double hi)
{
	const struct gp_tensor *x, *w, *b;
	struct res rr;
	struct gp_graph *r = run_xwb(g, flags, &rr, &x, &w, &b);
	double dmax = 0, ymax = 0;

	if (r == NULL)
		return (-1);
	for (int64_t i = 0; i < nimg; i++)
		for (int64_t o = 0; o < m; o++)
			for (int64_t q = 0; q < px; q++) {
				double v = gp_tensor_get(b, o), d;

				for (int64_t k = 0; k < c; k++)
					v += gp_tensor_get(w, o * c + k) *
					    gp_tensor_get(x, (i * c + k) * px +
					    q);
				v = v < lo ? lo : v > hi ? hi : v;
				d = fabs(rr.v[(i * m + o) * px + q] - v);
				dmax = d > dmax ? d : dmax;
				ymax = fabs(v) > ymax ? fabs(v) : ymax;
			}
	res_free(&rr);
	gp_graph_free(r);
	return (dmax / ymax);
}

static void
test_conv_pack(void)
{
	static const struct {
		int64_t		 n, c, m, h, w;
		const char	*act;
		double		 lo, hi;
		const char	*what;
	} cases[] = {
		{1, 192, 1152, 7, 7, "", -INFINITY, INFINITY, "192 -> 1152 "
		    "at 7x7 (MnasNet's expand conv): 72 slivers, pixels in 8 "
		    "row tiles of 6 and one of 1"},
		{2, 20, 40, 5, 5, ", 'act_min': 0, 'act_max': 0.3", 0, 0.3,
		    "20 -> 40 at 5x5, 2 images, clamped: a last sliver of 8 "
		    "channels, 20 input channels (a partial transpose block)"},
		{1, 13, 30, 3, 5, ", 'act_min': 0", 0, INFINITY, "13 -> 30 "
		    "at 3x5, relu: a last sliver of 14, 15 pixels"},
	};
	bool avx = gp_conv_gemm_ok();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gp_graph *g = pw_graph(cases[i].n, cases[i].c,
		    cases[i].m, cases[i].h, cases[i].w, 1, "float32", "shared",
		    true, 1, cases[i].act);
		struct gp_graph *r = g ? rewritten(g, ONLY("gemm_pack")) :
		    NULL;
		const struct gp_node *n = op_of(r, "conv");
		const struct gp_var *pv = n != NULL && n->n_in == 4 ?
		    &r->vars[n->in[3]] : NULL;
		int64_t len = (cases[i].m + 15) / 16 * 16 * cases[i].c;
		double e;

		if (avx)
			ok(pv != NULL && pv->kind == GP_VAR_CONSTANT &&
			    strcmp(pv->name, "W.packed") == 0 &&
			    pv->type.ndim == 1 && pv->type.shape[0] == len &&
			    json_is_true(json_object_get(n->params, "packed")),
			    "gemm_pack: conv %s: param packed, a constant "
			    "W.packed of %lld values, input 3", cases[i].what,
			    (long long)len);
		else
			ok(n != NULL && n->n_in == 3, "gemm_pack: no AVX2 and "
			    "FMA: conv %s unchanged", cases[i].what);
		e = g ? pw_error(g, "optimizer=fast_run", cases[i].n,
		    cases[i].c, cases[i].m, cases[i].h * cases[i].w,
		    cases[i].lo, cases[i].hi) : -1;
		ok(e >= 0 && e <= 1e-6, "gemm_pack: conv %s: y against W . x "
		    "+ b in double, within 1e-6 of max |y| (%.2g)",
		    cases[i].what, e);
		if (g != NULL)
			compare(g, "optimizer=fast_run", "optimizer_excluding="
			    "gemm_pack", false, cases[i].what);
		gp_graph_free(r);
		gp_graph_free(g);
	}
	/* bn_fold on a packed conv (param packed, input P: gemm_pack's in
	 * an earlier pass): the folded conv has new weights and no P, so
	 * it drops param packed (gemm_pack packs it again later); P's
	 * values are not read here */
	{
		char *vars = gp_xstrdup("'x': {'kind': 'input', 'dtype': "
		    "'float32', 'shape': [1, 13, 3, 5], 'init': {'uniform': "
		    "[-1, 1], 'seed': 1}}, 'W': {'kind': 'shared', 'dtype': "
		    "'float32', 'shape': [30, 13, 1, 1], 'init': {'uniform': "
		    "[-0.2, 0.2], 'seed': 2}}, 'b': {'kind': 'shared', "
		    "'dtype': 'float32', 'shape': [30], 'init': {'uniform': "
		    "[-0.1, 0.1], 'seed': 3}}, 'P': {'kind': 'shared', "
		    "'dtype': 'float32', 'shape': [416], 'init': {'uniform': "
		    "[-0.2, 0.2], 'seed': 8}}, 'gamma': {'kind': 'shared', "
		    "'dtype': 'float32', 'shape': [30], 'init': {'uniform': "
		    "[0.5, 1.5], 'seed': 4}}, 'beta': {'kind': 'shared', "
		    "'dtype': 'float32', 'shape': [30], 'init': {'uniform': "
		    "[-0.1, 0.1], 'seed': 5}}, 'mu': {'kind': 'shared', "
		    "'dtype': 'float32', 'shape': [30], 'init': {'uniform': "
		    "[-0.2, 0.2], 'seed': 6}}, 'var': {'kind': 'shared', "
		    "'dtype': 'float32', 'shape': [30], 'init': {'uniform': "
		    "[0.5, 1.5], 'seed': 7}}");
		char *nodes = gp_xstrdup("{'op': 'conv', 'inputs': ['x', 'W', "
		    "'b', 'P'], 'outputs': ['c'], 'params': {'kernel_shape': "
		    "[1, 1], 'packed': true}}, {'op': 'batch_norm', 'inputs': "
		    "['c', 'gamma', 'beta', 'mu', 'var'], 'outputs': ['y']}");
		struct gp_graph *g = graph_of(vars, nodes, "'y'", NULL);
		struct gp_graph *r = g ? rewritten(g, ONLY("bn_fold")) : NULL;
		const struct gp_node *n = op_of(r, "conv");

		ok(r != NULL && op_of(r, "batch_norm") == NULL && n != NULL &&
		    n->n_in == 3 && json_object_get(n->params, "packed") ==
		    NULL, "bn_fold on a packed conv: folded, the new conv "
		    "without P and param packed");
		gp_graph_free(r);
		gp_graph_free(g);
		free(vars);
		free(nodes);
	}
	/* two packed convs joined on the channels: join_into makes them
	 * write their planes of one tensor in turn (param into after
	 * packed, inputs X, W, B, P, D) */
	{
		char *vars = gp_xstrdup("'x': {'kind': 'input', 'dtype': "
		    "'float32', 'shape': [1, 13, 3, 5], 'init': {'uniform': "
		    "[-1, 1], 'seed': 1}}, 'WA': {'kind': 'shared', 'dtype': "
		    "'float32', 'shape': [30, 13, 1, 1], 'init': {'uniform': "
		    "[-0.2, 0.2], 'seed': 2}}, 'WB': {'kind': 'shared', "
		    "'dtype': 'float32', 'shape': [30, 13, 1, 1], 'init': "
		    "{'uniform': [-0.2, 0.2], 'seed': 4}}, 'b': {'kind': "
		    "'shared', 'dtype': 'float32', 'shape': [30], 'init': "
		    "{'uniform': [-0.1, 0.1], 'seed': 3}}");
		char *nodes = gp_xstrdup("{'op': 'conv', 'inputs': ['x', 'WB', "
		    "'b'], 'outputs': ['yB'], 'params': {'kernel_shape': [1, "
		    "1]}}, {'op': 'conv', 'inputs': ['x', 'WA', 'b'], "
		    "'outputs': ['yA'], 'params': {'kernel_shape': [1, 1]}}, "
		    "{'op': 'join', 'inputs': ['yA', 'yB'], 'outputs': ['y'], "
		    "'params': {'axis': 1}}");
		struct gp_graph *g = graph_of(vars, nodes, "'y'", NULL);

		if (g != NULL)
			compare(g, "optimizer=fast_run", "optimizer_excluding="
			    "gemm_pack:join_into", false, "gemm_pack: two "
			    "packed convs of 30 channels joined (join_into)");
		gp_graph_free(g);
		free(vars);
		free(nodes);
	}
	/* not taken */
	{
		static const struct {
			int64_t		 c, m, h, w, kh, grp;
			const char	*dt, *wk;
			bool		 bias;
			const char	*what;
		} no[] = {
			{192, 1152, 7, 7, 1, 1, "float32", "shared", false,
			    "a conv without a bias"},
			{192, 1152, 7, 7, 1, 1, "float32", "input", true,
			    "W an input"},
			{192, 1152, 7, 7, 1, 1, "float64", "shared", true,
			    "float64"},
			{64, 384, 7, 7, 3, 1, "float32", "shared", true,
			    "a 3x3 conv"},
			{64, 384, 7, 7, 1, 2, "float32", "shared", true,
			    "2 groups"},
			{64, 32, 8, 8, 1, 1, "float32", "shared", true,
			    "fewer output channels (32) than pixels (64)"},
			{576, 144, 1, 1, 1, 1, "float32", "shared", true,
			    "one pixel (a squeeze-and-excitation's)"},
			{32, 64, 56, 56, 1, 1, "float32", "shared", true,
			    "56x56 pixels (the blocked gemm's direct path)"},
		};

		for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
			struct gp_graph *g = pw_graph(1, no[i].c, no[i].m,
			    no[i].h, no[i].w, no[i].kh, no[i].dt, no[i].wk,
			    no[i].bias, no[i].grp, no[i].kh == 3 ?
			    ", 'pads': [1, 1, 1, 1]" : "");
			struct gp_graph *r = g ? rewritten(g,
			    ONLY("gemm_pack")) : NULL;
			const struct gp_node *n = op_of(r, "conv");

			ok(n != NULL && n->n_in == (no[i].bias ? 3 : 2) &&
			    json_object_get(n->params, "packed") == NULL,
			    "gemm_pack: not for %s", no[i].what);
			gp_graph_free(r);
			gp_graph_free(g);
		}
	}
}

/*
 * pad_pool: y = average_pool(pad(x)), x (1, 8, 17, 17) input, the pad's
 * params and the pool's given.
 */
static struct gp_graph *
pad_pool_graph(const char *pad_params, const char *pool_params,
    bool pad_read_twice)
{
	char *nodes = gp_xasprintf("{'op': 'pad', 'inputs': ['x'], "
	    "'outputs': ['p'], 'params': {%s}}, {'op': 'average_pool', "
	    "'inputs': ['p'], 'outputs': ['y'], 'params': {'kernel_shape': "
	    "[3, 3]%s}}%s", pad_params, pool_params, pad_read_twice ?
	    ", {'op': 'exp', 'inputs': ['p'], 'outputs': ['z']}" : "");
	struct gp_graph *g = graph_of("'x': {'kind': 'input', 'dtype': "
	    "'float32', 'shape': [1, 8, 17, 17], 'init': {'uniform': [-1, 1], "
	    "'seed': 1}}", nodes, pad_read_twice ? "'y', 'z'" : "'y'", NULL);

	free(nodes);
	return (g);
}

static void
test_pad_pool(void)
{
	static const struct {
		const char *pad, *pool, *want, *what;
	} yes[] = {
		{"'pads': [0, 0, 1, 1, 0, 0, 1, 1]", "",
		    "AveragePool{3x3, pads=[1, 1, 1, 1], count_include_pad}",
		    "a pad of 1 all round (Inception's)"},
		{"'pads': [0, 0, 0, 2, 0, 0, 1, 0], 'mode': 'constant', "
		    "'value': 0", ", 'strides': [2, 2], 'pads': [1, 1, 1, 1], "
		    "'count_include_pad': 1",
		    "AveragePool{3x3, strides=2x2, pads=[1, 3, 2, 1], "
		    "count_include_pad}", "uneven pads added to the pool's "
		    "own, which it counted"},
	};
	static const struct {
		const char *pad, *pool, *what;
		bool twice;
	} no[] = {
		{"'pads': [0, 0, 1, 1, 0, 0, 1, 1], 'value': 1", "",
		    "a pad of ones", false},
		{"'pads': [0, 1, 1, 1, 0, 0, 1, 1]", "", "a pad of the "
		    "channels", false},
		{"'pads': [0, 0, 1, 1, 0, 0, 1, 1], 'mode': 'reflect'", "",
		    "a reflecting pad", false},
		{"'pads': [0, 0, -1, 1, 0, 0, 1, 1]", "", "a crop", false},
		{"'pads': [0, 0, 1, 1, 0, 0, 1, 1]", ", 'pads': [1, 1, 1, 1]",
		    "a pool whose own pads it does not count", false},
		{"'pads': [0, 0, 1, 1, 0, 0, 1, 1]", "", "a pad read by "
		    "another apply too", true},
	};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		struct gp_graph *g = pad_pool_graph(yes[i].pad, yes[i].pool,
		    false);

		expect_ops(g, ONLY("pad_pool"), yes[i].want, yes[i].what);
		if (g != NULL)
			compare(g, "optimizer=fast_run", "optimizer_excluding="
			    "pad_pool", true, yes[i].what);
		gp_graph_free(g);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		struct gp_graph *g = pad_pool_graph(no[i].pad, no[i].pool,
		    no[i].twice);
		struct gp_graph *r = g ? rewritten(g, ONLY("pad_pool")) : NULL;

		ok(op_of(r, "pad") != NULL, "pad_pool: not for %s",
		    no[i].what);
		gp_graph_free(r);
		gp_graph_free(g);
	}
}

/*
 * A packed operand P that is a view off the micro-kernel's 32-byte
 * alignment (one value into a shared vector): the conv runs on W, the
 * gemm on Y, as without P (before, the aligned loads faulted).  P's
 * values are then not read, so random ones serve.
 */
static void
unaligned_one(const char *what, const char *vars, const char *with,
    const char *without)
{
	struct gp_graph *a = graph_of(vars, with, "'y'", NULL);
	struct gp_graph *b = graph_of(vars, without, "'y'", NULL);
	struct res ra = {0}, rb = {0};
	bool same = false;

	if (a != NULL && b != NULL && run(a, &ra) && run(b, &rb))
		(void)differ(&ra, &rb, &same);
	ok(same, "%s: P one value off its alignment: the same result as "
	    "without P, bit for bit", what);
	res_free(&ra);
	res_free(&rb);
	gp_graph_free(a);
	gp_graph_free(b);
}

static void
test_pack_unaligned(void)
{
	unaligned_one("conv packed", "'x': {'kind': 'input', 'dtype': "
	    "'float32', 'shape': [1, 4, 3, 3], 'init': {'uniform': [-1, 1], "
	    "'seed': 1}}, 'W': {'kind': 'shared', 'dtype': 'float32', "
	    "'shape': [20, 4, 1, 1], 'init': {'uniform': [-0.5, 0.5], 'seed': "
	    "2}}, 'b': {'kind': 'shared', 'dtype': 'float32', 'shape': [20], "
	    "'init': {'uniform': [-0.1, 0.1], 'seed': 3}}, 'big': {'kind': "
	    "'shared', 'dtype': 'float32', 'shape': [129], 'init': "
	    "{'uniform': [-1, 1], 'seed': 4}}",
	    "{'op': 'subtensor', 'inputs': ['big'], 'outputs': ['P'], "
	    "'params': {'idx': [{'start': 1}]}}, {'op': 'conv', 'inputs': "
	    "['x', 'W', 'b', 'P'], 'outputs': ['y'], 'params': "
	    "{'kernel_shape': [1, 1], 'packed': true}}",
	    "{'op': 'conv', 'inputs': ['x', 'W', 'b'], 'outputs': ['y'], "
	    "'params': {'kernel_shape': [1, 1]}}");
	unaligned_one("gemm packed", "'x': {'kind': 'input', 'dtype': "
	    "'float32', 'shape': [4, 8], 'init': {'uniform': [-1, 1], "
	    "'seed': 1}}, 'Y': {'kind': 'shared', 'dtype': 'float32', "
	    "'shape': [8, 10], 'init': {'uniform': [-0.5, 0.5], 'seed': 2}}, "
	    "'Z': {'kind': 'shared', 'dtype': 'float32', 'shape': [4, 10], "
	    "'init': {'uniform': [-0.1, 0.1], 'seed': 3}}, 'big': {'kind': "
	    "'shared', 'dtype': 'float32', 'shape': [129], 'init': "
	    "{'uniform': [-1, 1], 'seed': 4}}",
	    "{'op': 'subtensor', 'inputs': ['big'], 'outputs': ['P'], "
	    "'params': {'idx': [{'start': 1}]}}, {'op': 'gemm', 'inputs': "
	    "['Z', 1, 'x', 'Y', 1, 'P'], 'outputs': ['y']}",
	    "{'op': 'gemm', 'inputs': ['Z', 1, 'x', 'Y', 1], 'outputs': "
	    "['y']}");
}

int
main(void)
{
	const char *s = getenv("top_srcdir");

	if (s != NULL && s[0] != '\0')
		top_srcdir = s;
	test_bn_fold();
	test_conv_act();
	test_bn_act();
	test_layer_norm();
	test_conv_winograd();
	test_gemm_pack();
	test_matmul_pack();
	test_conv_pack();
	test_pad_pool();
	test_pack_unaligned();
	test_models();
	return (done_testing());
}
