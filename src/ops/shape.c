/*
 * ops/shape.c: (being written) the shape op family.
 */
#include "config.h"

#include "ops/ops.h"

const struct gp_op *const gp_ops_shape[] = {
	NULL,
};
