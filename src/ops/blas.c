/*
 * ops/blas.c: (being written) the blas op family.
 */
#include "config.h"

#include "ops/ops.h"

const struct gp_op *const gp_ops_blas[] = {
	NULL,
};
