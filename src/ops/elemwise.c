/*
 * ops/elemwise.c: (being written) the elementwise family.
 */
#include "config.h"

#include "ops/elemwise.h"

const struct gp_op *const gp_ops_elemwise[] = {
	NULL,
};
