/*
 * ops/scratch.h: per-thread work space for kernels (the im2col matrix of a
 * convolution, a normalization's per-channel factors).  Each slot is one
 * buffer that grows to the largest size asked of it and is then reused, so
 * a kernel allocates nothing in the steady state; the buffers are freed
 * when their thread exits.
 *
 * They are not tensors, but the memory profile and the allocator's
 * counters both count them, as work space (doc/memory.md, "Workspace"):
 *  - an op whose kernel asks for scratch declares how much for its shapes
 *    (struct gp_op's workspace(): the sum over the slots of the largest
 *    request the kernel makes of each in one execution), and the memory
 *    profile holds those bytes alive during that apply;
 *  - gp_scratch_get() counts the bytes asked (each slot at the largest
 *    request of the apply) as live on the calling thread's counters
 *    (base/alloc.h's `work`) until the apply ends (gp_alloc_work_end(),
 *    called by the VM after every kernel).
 * The tests hold the two equal (tests/unit/test-memprof on the real
 * models), so a kernel's declaration must follow its requests.
 *
 * Operands a kernel needs contiguous, or in another dtype, are copied
 * here too, not into new storages: gp_scratch_as() below, one slot per
 * input copied at once, and gp_scratch_out() for an output the kernel
 * must write contiguously when the VM hands it a strided one (an output
 * overwriting a strided input).  The op's workspace() adds the same
 * copies for the layouts its inputs arrive in (gp_scratch_as_bytes(),
 * gp_scratch_out_bytes()), so the prediction holds them.
 *
 * Ask on the kernel's calling thread, outside OpenMP parallel regions
 * (ops/par.h): a thread of a region has counters nobody reads.  Threads
 * that each need their own part take it from one request of
 * parts * gp_par_max_threads() bytes made before the region.
 */
#ifndef GPTOP_SRC_OPS_SCRATCH_H
#define GPTOP_SRC_OPS_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"

enum gp_scratch_slot {
	GP_SCRATCH_COL,		/* a convolution's im2col / col2im matrix */
	GP_SCRATCH_COPY,	/* a kernel's own intermediate (resize) */
	GP_SCRATCH_PARAMS,	/* per-channel or per-column factors */
	GP_SCRATCH_IN0,		/* gp_scratch_as() of input 0, 1, 2 */
	GP_SCRATCH_IN1,
	GP_SCRATCH_IN2,
	GP_SCRATCH_OUT,		/* gp_scratch_out() */
	GP_SCRATCH__COUNT
};
#define GP_SCRATCH_N_IN 3	/* inputs gp_scratch_as() copies at once */

/* A tensor header over scratch bytes (its storage is not counted: the
 * slot's bytes are, as work space). */
struct gp_scratch_tmp {
	struct gp_storage	st;
	struct gp_tensor	t;
};

/* At least n bytes (malloc's alignment) for the calling thread; the previous
 * contents of the slot are not kept.  Counts n bytes of work space held by
 * the running apply (the slot's largest request of the apply). */
void	*gp_scratch_get(enum gp_scratch_slot slot, size_t n);

/* x itself when it is contiguous and of dtype dt; else a contiguous copy
 * of x converted to dt, in slot GP_SCRATCH_IN0 + k (k <
 * GP_SCRATCH_N_IN), its header in *tmp: valid until the slot is asked
 * again. */
const struct gp_tensor *gp_scratch_as(const struct gp_tensor *x,
	    enum gp_dtype dt, int k, struct gp_scratch_tmp *tmp);
/* The bytes gp_scratch_as(x, dt, ...) asks for x's layout. */
static inline uint64_t
gp_scratch_as_bytes(const struct gp_tensor *x, enum gp_dtype dt)
{
	if (x->dtype == dt && gp_tensor_is_contiguous(x))
		return (0);
	return ((uint64_t)gp_tensor_numel(x) * gp_dtype_size(dt));
}
/* o itself when contiguous; else a contiguous tensor of o's dtype and
 * shape in slot GP_SCRATCH_OUT (contents unspecified), header in *tmp;
 * gp_scratch_out_done() then copies it into o. */
struct gp_tensor *gp_scratch_out(struct gp_tensor *o,
	    struct gp_scratch_tmp *tmp);
void	gp_scratch_out_done(struct gp_tensor *o, const struct gp_tensor *y);
/* The bytes gp_scratch_out() asks for output 0 of n: the VM allocates it
 * contiguous, unless it overwrites an input (destroy[0]), whose layout
 * in[] gives. */
static inline uint64_t
gp_scratch_out_bytes(const struct gp_node *n, const struct gp_tensor *const *in)
{
	if (n->destroy[0] < 0)
		return (0);
	return (gp_scratch_as_bytes(in[n->destroy[0]],
	    in[n->destroy[0]]->dtype));
}

#endif
