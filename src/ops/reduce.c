/*
 * ops/reduce.c: (being written) the reduce op family.
 */
#include "config.h"

#include "ops/ops.h"

const struct gp_op *const gp_ops_reduce[] = {
	NULL,
};
