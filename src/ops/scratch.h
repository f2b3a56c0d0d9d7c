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
 * Ask on the kernel's calling thread, outside OpenMP parallel regions
 * (ops/par.h): a thread of a region has counters nobody reads.  Threads
 * that each need their own part take it from one request of
 * parts * gp_par_max_threads() bytes made before the region.
 */
#ifndef GPTOP_SRC_OPS_SCRATCH_H
#define GPTOP_SRC_OPS_SCRATCH_H

#include <stddef.h>

enum gp_scratch_slot {
	GP_SCRATCH_COL,		/* a convolution's im2col / col2im matrix */
	GP_SCRATCH_COPY,	/* a contiguous copy of an input */
	GP_SCRATCH_PARAMS,	/* per-channel or per-column factors */
	GP_SCRATCH__COUNT
};

/* At least n bytes (malloc's alignment) for the calling thread; the previous
 * contents of the slot are not kept.  Counts n bytes of work space held by
 * the running apply (the slot's largest request of the apply). */
void	*gp_scratch_get(enum gp_scratch_slot slot, size_t n);

#endif
