/*
 * bench/bench-input.h: the float32 input variable the kernel benchmarks
 * (bench-conv, bench-spatial) give their ops: shape given, values in
 * [-0.5, 0.5) from a linear congruential sequence of the seed, so that
 * every run and both programs see the same numbers.
 */
#ifndef GPTOP_BENCH_BENCH_INPUT_H
#define GPTOP_BENCH_BENCH_INPUT_H

#include <string.h>

#include "graph/graph.h"

static int
bench_input(struct gp_graph *g, int ndim, const int64_t *shape,
    unsigned seed)
{
	struct gp_type t = {.dtype = GP_FLOAT32, .ndim = ndim};
	int64_t nel = gp_shape_numel(ndim, shape);
	float *d;
	int v;

	memcpy(t.shape, shape, sizeof(int64_t) * (size_t)ndim);
	v = gp_graph_add_var(g, NULL, GP_VAR_INPUT, &t);
	gp_tensor_alloc(&g->vars[v].value, GP_FLOAT32, ndim, shape);
	d = (float *)gp_tensor_data(&g->vars[v].value);
	for (int64_t i = 0; i < nel; i++) {
		seed = seed * 1103515245u + 12345u;
		d[i] = (float)((seed >> 8) & 0xffff) / 65536.0f - 0.5f;
	}
	return (v);
}

#endif
