/*
 * bench-conv.c: time per call of the conv kernel (src/ops/conv.c) on the
 * float32 shapes of real CNNs, against im2col + one cblas_sgemm per group
 * (the way gptop ran them before src/ops/conv-gemm.c) and a naive 7-deep
 * loop over the same buffers (whose output also checks the kernel's),
 * best of several runs, the kernel and im2col + sgemm interleaved.
 * bench/torch/conv.py prints PyTorch's times for the same shapes; `make
 * bench/bench-conv` builds this (not part of `make check`).
 *
 *   bench/bench-conv [REPS [MATCH]]
 *
 * MATCH: only the cases whose name contains it.  With BENCH_CPU=1 in the
 * environment the times are the process's CPU time (all its threads), not
 * wall time: with OMP_NUM_THREADS=1, a figure that other processes on a
 * loaded machine do not lengthen (they take the CPU, not this process's
 * CPU time).
 *
 * Columns: case, GFLOP (2 N Cout Hout Wout Cin/g kh kw), gptop ms,
 * GFLOP/s, im2col + sgemm ms (its threads: OPENBLAS_NUM_THREADS), naive
 * ms, largest relative difference from the naive output.  A conv the
 * conv_winograd rewrite takes (param winograd: ops/conv-wino.c, its
 * weights' transform U made once, as the rewrite makes it of fixed
 * weights) runs both ways, interleaved, and prints a second line: the
 * median times of the direct conv and of Winograd's over the same
 * repetitions, the median of their per-repetition ratios, and Winograd's
 * largest relative difference from the naive output.
 */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "graph/graph.h"
#include "graph/op.h"
#include "ops/conv-wino.h"

#include "bench-input.h"

struct bcase {
	const char	*name;
	int64_t		 n, c, h, w, m, k, s, p, group;
};

static const struct bcase cases[] = {
	{.name = "resnet18 3x3 64->64 56x56", .n = 1, .c = 64, .h = 56,
	    .w = 56, .m = 64, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "resnet18 conv1 7x7/2 3->64 224x224", .n = 1, .c = 3,
	    .h = 224, .w = 224, .m = 64, .k = 7, .s = 2, .p = 3, .group = 1},
	{.name = "resnet18 3x3 128->128 28x28", .n = 1, .c = 128, .h = 28,
	    .w = 28, .m = 128, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "resnet18 3x3 256->256 14x14", .n = 1, .c = 256, .h = 14,
	    .w = 14, .m = 256, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "resnet18 3x3 512->512 7x7", .n = 1, .c = 512, .h = 7,
	    .w = 7, .m = 512, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "resnet18 3x3/2 64->128 56x56", .n = 1, .c = 64, .h = 56,
	    .w = 56, .m = 128, .k = 3, .s = 2, .p = 1, .group = 1},
	{.name = "resnet18 3x3/2 128->256 28x28", .n = 1, .c = 128, .h = 28,
	    .w = 28, .m = 256, .k = 3, .s = 2, .p = 1, .group = 1},
	{.name = "resnet18 3x3/2 256->512 14x14", .n = 1, .c = 256, .h = 14,
	    .w = 14, .m = 512, .k = 3, .s = 2, .p = 1, .group = 1},
	{.name = "squeezenet 3x3 16->64 55x55", .n = 1, .c = 16, .h = 55,
	    .w = 55, .m = 64, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "squeezenet 3x3 32->128 54x54", .n = 1, .c = 32, .h = 54,
	    .w = 54, .m = 128, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "squeezenet 3x3 32->128 27x27", .n = 1, .c = 32, .h = 27,
	    .w = 27, .m = 128, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "squeezenet 3x3 48->192 27x27", .n = 1, .c = 48, .h = 27,
	    .w = 27, .m = 192, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "squeezenet 3x3 64->256 27x27", .n = 1, .c = 64, .h = 27,
	    .w = 27, .m = 256, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "squeezenet 3x3 64->256 13x13", .n = 1, .c = 64, .h = 13,
	    .w = 13, .m = 256, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "squeezenet conv1 7x7/2 3->96 224", .n = 1, .c = 3,
	    .h = 224, .w = 224, .m = 96, .k = 7, .s = 2, .p = 0, .group = 1},
	{.name = "mbv2 stem 3x3/2 3->32 224x224", .n = 1, .c = 3, .h = 224,
	    .w = 224, .m = 32, .k = 3, .s = 2, .p = 1, .group = 1},
	{.name = "1x1 64->256 56x56", .n = 1, .c = 64,
	    .h = 56, .w = 56, .m = 256, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 16->96 112x112", .n = 1, .c = 16,
	    .h = 112, .w = 112, .m = 96, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 32->16 112x112", .n = 1, .c = 32,
	    .h = 112, .w = 112, .m = 16, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 96->24 56x56", .n = 1, .c = 96,
	    .h = 56, .w = 56, .m = 24, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 24->144 56x56", .n = 1, .c = 24,
	    .h = 56, .w = 56, .m = 144, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 144->24 56x56", .n = 1, .c = 144,
	    .h = 56, .w = 56, .m = 24, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 32->192 28x28", .n = 1, .c = 32,
	    .h = 28, .w = 28, .m = 192, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 384->64 14x14", .n = 1, .c = 384,
	    .h = 14, .w = 14, .m = 64, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 576->96 14x14", .n = 1, .c = 576,
	    .h = 14, .w = 14, .m = 96, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 960->160 7x7", .n = 1, .c = 960,
	    .h = 7, .w = 7, .m = 160, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 320->1280 7x7", .n = 1, .c = 320,
	    .h = 7, .w = 7, .m = 1280, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 160->960 7x7", .n = 1, .c = 160,
	    .h = 7, .w = 7, .m = 960, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 64->384 14x14", .n = 1, .c = 64,
	    .h = 14, .w = 14, .m = 384, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mbv2 1x1 96->576 14x14", .n = 1, .c = 96,
	    .h = 14, .w = 14, .m = 576, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mnasnet 1x1 192->1152 7x7", .n = 1, .c = 192,
	    .h = 7, .w = 7, .m = 1152, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mnasnet 1x1 1152->192 7x7", .n = 1, .c = 1152,
	    .h = 7, .w = 7, .m = 192, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mnasnet 1x1 80->480 14x14", .n = 1, .c = 80,
	    .h = 14, .w = 14, .m = 480, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "mnasnet 1x1 480->80 14x14", .n = 1, .c = 480,
	    .h = 14, .w = 14, .m = 80, .k = 1, .s = 1, .p = 0, .group = 1},
	/* squeeze-and-excitation (MobileNetV3, EfficientNet): one pixel */
	{.name = "se 1x1 576->144 1x1", .n = 1, .c = 576,
	    .h = 1, .w = 1, .m = 144, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "se 1x1 144->576 1x1", .n = 1, .c = 144,
	    .h = 1, .w = 1, .m = 576, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "se 1x1 1152->48 1x1", .n = 1, .c = 1152,
	    .h = 1, .w = 1, .m = 48, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "squeezenet 1x1 96->16 55x55", .n = 1, .c = 96,
	    .h = 55, .w = 55, .m = 16, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "squeezenet 1x1 16->64 55x55", .n = 1, .c = 16,
	    .h = 55, .w = 55, .m = 64, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "squeezenet 1x1 256->32 27x27", .n = 1, .c = 256,
	    .h = 27, .w = 27, .m = 32, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "squeezenet 1x1 384->64 27x27", .n = 1, .c = 384,
	    .h = 27, .w = 27, .m = 64, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "squeezenet 1x1 64->256 13x13", .n = 1, .c = 64,
	    .h = 13, .w = 13, .m = 256, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "squeezenet 1x1 512->1000 13x13", .n = 1, .c = 512,
	    .h = 13, .w = 13, .m = 1000, .k = 1, .s = 1, .p = 0, .group = 1},
	{.name = "depthwise 3x3 32 112x112", .n = 1, .c = 32, .h = 112,
	    .w = 112, .m = 32, .k = 3, .s = 1, .p = 1, .group = 32},
	{.name = "depthwise 3x3 144 56x56", .n = 1, .c = 144, .h = 56,
	    .w = 56, .m = 144, .k = 3, .s = 1, .p = 1, .group = 144},
	{.name = "depthwise 3x3/2 96 112x112", .n = 1, .c = 96, .h = 112,
	    .w = 112, .m = 96, .k = 3, .s = 2, .p = 1, .group = 96},
	{.name = "depthwise 3x3/2 144 56x56", .n = 1, .c = 144, .h = 56,
	    .w = 56, .m = 144, .k = 3, .s = 2, .p = 1, .group = 144},
	{.name = "depthwise 3x3 192 28x28", .n = 1, .c = 192, .h = 28,
	    .w = 28, .m = 192, .k = 3, .s = 1, .p = 1, .group = 192},
	{.name = "depthwise 3x3 576 14x14", .n = 1, .c = 576, .h = 14,
	    .w = 14, .m = 576, .k = 3, .s = 1, .p = 1, .group = 576},
	{.name = "depthwise 3x3 960 7x7", .n = 1, .c = 960, .h = 7,
	    .w = 7, .m = 960, .k = 3, .s = 1, .p = 1, .group = 960},
	/* MobileNetV3's, EfficientNet's and MnasNet's 5x5, ConvNeXt's 7x7 */
	{.name = "depthwise 5x5/2 72 56x56", .n = 1, .c = 72, .h = 56,
	    .w = 56, .m = 72, .k = 5, .s = 2, .p = 2, .group = 72},
	{.name = "depthwise 5x5 240 14x14", .n = 1, .c = 240, .h = 14,
	    .w = 14, .m = 240, .k = 5, .s = 1, .p = 2, .group = 240},
	{.name = "depthwise 5x5 576 7x7", .n = 1, .c = 576, .h = 7,
	    .w = 7, .m = 576, .k = 5, .s = 1, .p = 2, .group = 576},
	{.name = "depthwise 5x5 480 14x14", .n = 1, .c = 480, .h = 14,
	    .w = 14, .m = 480, .k = 5, .s = 1, .p = 2, .group = 480},
	{.name = "depthwise 5x5/2 240 28x28", .n = 1, .c = 240, .h = 28,
	    .w = 28, .m = 240, .k = 5, .s = 2, .p = 2, .group = 240},
	{.name = "depthwise 5x5/2 576 14x14", .n = 1, .c = 576, .h = 14,
	    .w = 14, .m = 576, .k = 5, .s = 2, .p = 2, .group = 576},
	{.name = "depthwise 5x5 1152 7x7", .n = 1, .c = 1152, .h = 7,
	    .w = 7, .m = 1152, .k = 5, .s = 1, .p = 2, .group = 1152},
	{.name = "depthwise 5x5 120 28x28", .n = 1, .c = 120, .h = 28,
	    .w = 28, .m = 120, .k = 5, .s = 1, .p = 2, .group = 120},
	{.name = "depthwise 5x5 240 28x28", .n = 1, .c = 240, .h = 28,
	    .w = 28, .m = 240, .k = 5, .s = 1, .p = 2, .group = 240},
	{.name = "depthwise 3x3/2 192 28x28", .n = 1, .c = 192, .h = 28,
	    .w = 28, .m = 192, .k = 3, .s = 2, .p = 1, .group = 192},
	{.name = "depthwise 3x3 384 14x14", .n = 1, .c = 384, .h = 14,
	    .w = 14, .m = 384, .k = 3, .s = 1, .p = 1, .group = 384},
	{.name = "depthwise 7x7 96 56x56", .n = 1, .c = 96, .h = 56,
	    .w = 56, .m = 96, .k = 7, .s = 1, .p = 3, .group = 96},
	{.name = "depthwise 7x7 384 14x14", .n = 1, .c = 384, .h = 14,
	    .w = 14, .m = 384, .k = 7, .s = 1, .p = 3, .group = 384},
	/* DenseNet-121's 3x3 convs: 128 -> 32 (its growth rate) */
	{.name = "densenet 3x3 128->32 56x56", .n = 1, .c = 128, .h = 56,
	    .w = 56, .m = 32, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "densenet 3x3 128->32 28x28", .n = 1, .c = 128, .h = 28,
	    .w = 28, .m = 32, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "densenet 3x3 128->32 14x14", .n = 1, .c = 128, .h = 14,
	    .w = 14, .m = 32, .k = 3, .s = 1, .p = 1, .group = 1},
	{.name = "densenet 3x3 128->32 7x7", .n = 1, .c = 128, .h = 7,
	    .w = 7, .m = 32, .k = 3, .s = 1, .p = 1, .group = 1},
	/* RegNetY-400MF's grouped 3x3 convs: groups of 8 channels */
	{.name = "grouped 3x3 g6 48 56x56", .n = 1, .c = 48, .h = 56,
	    .w = 56, .m = 48, .k = 3, .s = 1, .p = 1, .group = 6},
	{.name = "grouped 3x3 g13 104 28x28", .n = 1, .c = 104, .h = 28,
	    .w = 28, .m = 104, .k = 3, .s = 1, .p = 1, .group = 13},
	{.name = "grouped 3x3 g26 208 14x14", .n = 1, .c = 208, .h = 14,
	    .w = 14, .m = 208, .k = 3, .s = 1, .p = 1, .group = 26},
	{.name = "grouped 3x3 g55 440 7x7", .n = 1, .c = 440, .h = 7,
	    .w = 7, .m = 440, .k = 3, .s = 1, .p = 1, .group = 55},
	{.name = "grouped 3x3/2 g55 440 14x14", .n = 1, .c = 440, .h = 14,
	    .w = 14, .m = 440, .k = 3, .s = 2, .p = 1, .group = 55},
};

static void
naive(const struct bcase *b, const float *x, const float *w, float *y,
    int64_t oh, int64_t ow)
{
	int64_t cg = b->c / b->group, mg = b->m / b->group;

	for (int64_t n = 0; n < b->n; n++)
	for (int64_t m = 0; m < b->m; m++)
	for (int64_t i = 0; i < oh; i++)
	for (int64_t j = 0; j < ow; j++) {
		float acc = 0;

		for (int64_t c = 0; c < cg; c++)
		for (int64_t u = 0; u < b->k; u++)
		for (int64_t v = 0; v < b->k; v++) {
			int64_t ih = i * b->s - b->p + u, iw = j * b->s - b->p +
			    v, ci = (m / mg) * cg + c;

			if (ih < 0 || ih >= b->h || iw < 0 || iw >= b->w)
				continue;
			acc += x[((n * b->c + ci) * b->h + ih) * b->w + iw] *
			    w[((m * cg + c) * b->k + u) * b->k + v];
		}
		y[((n * b->m + m) * oh + i) * ow + j] = acc;
	}
}

/* im2col of each group into col, then one sgemm per group. */
static void
im2col_gemm(const struct bcase *b, const float *x, const float *w,
    float *col, float *y, int64_t oh, int64_t ow)
{
	int64_t cg = b->c / b->group, mg = b->m / b->group;
	int64_t kk = cg * b->k * b->k, np = oh * ow;

	for (int64_t n = 0; n < b->n; n++)
	for (int64_t g = 0; g < b->group; g++) {
		const float *xg = x + (n * b->c + g * cg) * b->h * b->w;
		float *dst = col;

		for (int64_t c = 0; c < cg; c++)
		for (int64_t u = 0; u < b->k; u++)
		for (int64_t v = 0; v < b->k; v++)
		for (int64_t i = 0; i < oh; i++)
		for (int64_t j = 0; j < ow; j++) {
			int64_t ih = i * b->s - b->p + u, iw = j * b->s - b->p +
			    v;

			*dst++ = ih < 0 || ih >= b->h || iw < 0 || iw >= b->w ?
			    0 : xg[(c * b->h + ih) * b->w + iw];
		}
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
		    (int)mg, (int)np, (int)kk, 1, w + g * mg * kk, (int)kk,
		    col, (int)np, 0, y + (n * b->m + g * mg) * np, (int)np);
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

/* The median of v[0 .. n) (sorted in place). */
static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

/* The largest |y - ref| / max(1, |ref|). */
static double
max_rel(const float *y, const float *ref, int64_t nel)
{
	double m = 0;

	for (int64_t i = 0; i < nel; i++) {
		double a = y[i], e = ref[i];
		double rel = fabs(a - e) / (fabs(e) > 1 ? fabs(e) : 1);

		if (rel > m)
			m = rel;
	}
	return (m);
}

/* Nanoseconds: wall time, or with BENCH_CPU set the process's CPU time. */
static uint64_t
now(void)
{
	static int cpu = -1;
	struct timespec ts;

	if (cpu < 0)
		cpu = getenv("BENCH_CPU") != NULL && atoi(getenv("BENCH_CPU"));
	if (!cpu)
		return (gp_clock_ns());
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}


int
main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 20;

	printf("%-36s %8s %9s %8s %10s %9s %9s\n", "case", "GFLOP",
	    "gptop ms", "GFLOP/s", "im2col+gemm", "naive ms", "max rel");
	for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		if (argc > 2 && strstr(cases[ci].name, argv[2]) == NULL)
			continue;
		const struct bcase *b = &cases[ci];
		struct gp_graph *g = gp_graph_new("bench");
		int64_t xs[4] = {b->n, b->c, b->h, b->w};
		int64_t ws[4] = {b->m, b->c / b->group, b->k, b->k};
		int in[2] = {bench_input(g, 4, xs, 1), bench_input(g, 4, ws, 2)}, ni;
		char params[200];
		struct gp_err err;
		struct gp_node *nd;
		struct gp_tensor *tin[2], out = {0}, *tout[1] = {&out};
		struct gp_tensor *twin[4] = {NULL};
		struct gp_tensor wout = {0}, *twout[1] = {&wout};
		const struct gp_type *ot;
		double best = INFINITY, nbest = INFINITY, maxrel = 0, fl;
		double gbest = INFINITY;
		double *td = calloc((size_t)reps, sizeof(double));
		double *tw = calloc((size_t)reps, sizeof(double));
		double *tr = calloc((size_t)reps, sizeof(double));
		struct gp_node *wn = NULL;
		struct gp_buf fb = {0};
		float *ref, *col;
		int64_t nel;
		int wi;

		snprintf(params, sizeof(params), "{\"strides\": [%lld, %lld], "
		    "\"pads\": [%lld, %lld, %lld, %lld], \"group\": %lld}",
		    (long long)b->s, (long long)b->s, (long long)b->p,
		    (long long)b->p, (long long)b->p, (long long)b->p,
		    (long long)b->group);
		ni = gp_graph_add_node(g, gp_op_find("conv"), json_loads(params,
		    0, NULL), 2, in, 1, &err);
		if (ni < 0) {
			fprintf(stderr, "bench-conv: %s\n", err.msg);
			return (1);
		}
		/* the same conv with param winograd, when it takes it, as the
		 * rewrite conv_winograd makes it of fixed weights: a bias (of
		 * zeros here) and input U, the weights' transform */
		snprintf(params + strlen(params) - 1, sizeof(params) -
		    strlen(params) + 1, ", \"winograd\": true}");
		if (b->group == 1 && b->k == 3) {
			int64_t bs[1] = {b->m}, us[4] = {1, 16, b->m, b->c};
			int win[4] = {in[0], in[1], bench_input(g, 1, bs, 3),
			    bench_input(g, 4, us, 4)};
			float *bd = (float *)(void *)gp_tensor_data(
			    &g->vars[win[2]].value);

			memset(bd, 0, sizeof(float) * (size_t)b->m);
			if (!gp_conv_wino_weights((const float *)(const void *)
			    gp_tensor_data(&g->vars[in[1]].value), b->c, b->m,
			    (float *)(void *)gp_tensor_data(
			    &g->vars[win[3]].value)))
				win[3] = -1;
			wi = win[3] < 0 ? -1 : gp_graph_add_node(g,
			    gp_op_find("conv"), json_loads(params, 0, NULL), 4,
			    win, 1, &err);
		} else
			wi = -1;
		if (wi >= 0) {
			gp_node_format_op(g, &g->nodes[wi], &fb);
			if (strstr(gp_buf_str(&fb), "winograd") != NULL)
				wn = &g->nodes[wi];
			gp_buf_free(&fb);
		}
		nd = &g->nodes[ni];
		ot = &g->vars[nd->out[0]].type;
		gp_tensor_alloc(&out, ot->dtype, ot->ndim, ot->shape);
		gp_tensor_alloc(&wout, ot->dtype, ot->ndim, ot->shape);
		tin[0] = &g->vars[in[0]].value;
		tin[1] = &g->vars[in[1]].value;
		if (wn != NULL)
			for (int k = 0; k < 4; k++)
				twin[k] = &g->vars[wn->in[k]].value;
		nel = gp_tensor_numel(&out);
		ref = malloc(sizeof(float) * (size_t)nel);
		col = malloc(sizeof(float) * (size_t)(b->c / b->group * b->k *
		    b->k * ot->shape[2] * ot->shape[3]));
		for (int r = 0; r < reps; r++) {
			uint64_t t0 = now();

			nd->kernel(nd, tin, tout);
			t0 = now() - t0;
			if (t0 < best)
				best = (double)t0;
			td[r] = (double)t0;
			if (wn != NULL) {
				t0 = now();
				wn->kernel(wn, twin, twout);
				t0 = now() - t0;
				tw[r] = (double)t0;
				tr[r] = tw[r] / td[r];
			}
			t0 = now();
			im2col_gemm(b, (const float *)gp_tensor_data(tin[0]),
			    (const float *)gp_tensor_data(tin[1]), col, ref,
			    ot->shape[2], ot->shape[3]);
			t0 = now() - t0;
			if (t0 < gbest)
				gbest = (double)t0;
		}
		for (int r = 0; r < 1; r++) {
			uint64_t t0 = now();

			naive(b, (const float *)gp_tensor_data(tin[0]),
			    (const float *)gp_tensor_data(tin[1]), ref,
			    ot->shape[2], ot->shape[3]);
			t0 = now() - t0;
			if (t0 < nbest)
				nbest = (double)t0;
		}
		maxrel = max_rel((const float *)gp_tensor_data(&out), ref, nel);
		fl = gp_node_flops(g, nd);
		printf("%-36s %8.3f %9.3f %8.1f %10.3f %9.2f %9.1e\n",
		    b->name, fl / 1e9, best / 1e6, fl / best, gbest / 1e6,
		    nbest / 1e6, maxrel);
		if (wn != NULL)
			printf("  winograd: median %.3f ms (direct %.3f ms), "
			    "winograd / direct %.3f, max rel %.1e\n",
			    median(tw, reps) / 1e6, median(td, reps) / 1e6,
			    median(tr, reps), max_rel((const float *)
			    gp_tensor_data(&wout), ref, nel));
		free(ref);
		free(col);
		free(td);
		free(tw);
		free(tr);
		gp_tensor_release(&wout);
		gp_tensor_release(&out);
		gp_graph_free(g);
	}
	return (0);
}
