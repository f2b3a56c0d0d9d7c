/*
 * ops/scratch.h: per-thread work space for kernels (the im2col matrix of a
 * convolution, a normalization's per-channel factors).  Each slot is one
 * buffer that grows to the largest size asked of it and is then reused, so
 * a kernel allocates nothing in the steady state; the buffers are freed
 * when their thread exits.  They are not tensors: the allocator's counters
 * and the memory profile do not see them (doc/graph-format.md says which
 * ops use them and how much).
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
 * contents of the slot are not kept. */
void	*gp_scratch_get(enum gp_scratch_slot slot, size_t n);

#endif
