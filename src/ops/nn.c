/*
 * ops/nn.c: (being written) the nn op family.
 */
#include "config.h"

#include "ops/ops.h"

const struct gp_op *const gp_ops_nn[] = {
	NULL,
};
