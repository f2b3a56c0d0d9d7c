/*
 * ops/extern.c: (being written) extern ops through libffi.
 */
#include "config.h"

#include "ops/ops.h"

const struct gp_op *const gp_ops_extern[] = {
	NULL,
};
