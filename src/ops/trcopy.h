/*
 * ops/trcopy.h: the contiguous copy of a transposed view, tile by tile
 * (ops/trcopy.c).  Kernels that need an operand contiguous copy it
 * through ops/scratch.h's gp_scratch_as, which asks here first.
 */
#ifndef GPTOP_SRC_OPS_TRCOPY_H
#define GPTOP_SRC_OPS_TRCOPY_H

#include <stdbool.h>

#include "graph/tensor.h"

/* Copy src into dst (contiguous, src's shape and dtype) when src is a
 * transposed view of 4-byte values: some dimension other than the last
 * is src's contiguous one, and the last is strided.  Returns false,
 * having copied nothing, for any other layout. */
bool	gp_trcopy(struct gp_tensor *dst, const struct gp_tensor *src);

#endif
