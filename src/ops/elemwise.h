/*
 * ops/elemwise.h: (being written) the scalar op description shared by the
 * elementwise family, fusion and the JIT.
 */
#ifndef GPTOP_SRC_OPS_ELEMWISE_H
#define GPTOP_SRC_OPS_ELEMWISE_H

#include "ops/ops.h"

struct gp_scalar_op {
	const char	*name;
};

#endif
