/*
 * ops/ops.h: what the op families share: their registration tables (one
 * NULL-terminated array per family file, gathered by ops/table.c) and the
 * helpers several families use.
 */
#ifndef GPTOP_SRC_OPS_OPS_H
#define GPTOP_SRC_OPS_OPS_H

#include "graph/graph.h"
#include "graph/op.h"

extern const struct gp_op *const gp_ops_elemwise[];
extern const struct gp_op *const gp_ops_blas[];
extern const struct gp_op *const gp_ops_reduce[];
extern const struct gp_op *const gp_ops_shape[];
extern const struct gp_op *const gp_ops_nn[];
extern const struct gp_op *const gp_ops_extern[];
extern const struct gp_op *const gp_ops_conv[];
extern const struct gp_op *const gp_ops_pool[];
extern const struct gp_op *const gp_ops_norm[];
extern const struct gp_op *const gp_ops_pad[];
extern const struct gp_op *const gp_ops_resize[];
extern const struct gp_op *const gp_ops_depth[];
extern const struct gp_op *const gp_ops_index[];
extern const struct gp_op *const gp_ops_matmul[];

/* Before an inner loop whose iterations are independent: vectorize it
 * (OpenMP's simd directive, when configure found -fopenmp-simd). */
#ifdef GP_HAVE_OMP_SIMD
#define GP_SIMD _Pragma("omp simd")
#else
#define GP_SIMD
#endif

/* Before a function whose vectorized loops gain from AVX2 and FMA (8
 * floats a vector, a multiply-add an instruction): GCC compiles it twice,
 * for x86-64's baseline (SSE2) and for x86-64-v3, and the loader picks
 * the one the CPU runs (target_clones, an ifunc).  Such loops go in
 * functions of their own: a loop that a clone inlines from a plain
 * function is vectorized for the clone's target too.  Not in a
 * ThreadSanitizer build: the loader runs an ifunc's resolver while it
 * relocates the program, before TSan's runtime is set up, and the
 * instrumented resolver faults (every gptop of that build died at start). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&   \
    defined(__has_attribute) && !defined(__SANITIZE_THREAD__)
#if __has_attribute(target_clones)
#define GP_SIMD_CLONES                                                  \
	__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
#endif
#ifndef GP_SIMD_CLONES
#define GP_SIMD_CLONES
#endif

/* Set output k of n to a type. */
static inline void
gp_ops_set_out(struct gp_graph *g, struct gp_node *n, int k,
    enum gp_dtype dt, int ndim, const int64_t *shape)
{
	struct gp_type *t = gp_graph_out_type(g, n, k);

	t->dtype = dt;
	t->ndim = ndim;
	for (int i = 0; i < ndim; i++)
		t->shape[i] = shape[i];
}

#endif
