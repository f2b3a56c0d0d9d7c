/*
 * ops/extern.h: the extern op, which calls a C function from a shared
 * library through libffi (or, for the common scalar signatures, through a
 * typed function pointer).  See doc/graph-format.md (the extern op) for the params and the
 * calling conventions, doc/security.md for what loading code implies.
 *
 * Libraries are opened once per process and shared by every node naming
 * them (a reference-counted cache; the last node freed closes the library).
 * Loading is refused unless the graph has allow_extern set.
 */
#ifndef GPTOP_SRC_OPS_EXTERN_H
#define GPTOP_SRC_OPS_EXTERN_H

#include "graph/graph.h"
#include "base/util.h"

/* The most parameters an extern signature may have. */
#define GP_EXTERN_MAX_PARAMS 32

/* Append the profile's detail text for a prepared extern node n: the call
 * with its inputs' dtypes and shapes and the C signature, in
 * accelerate.profiler's style, then the library and the call route:
 * "erf(x: ndarray(dtype=float64, shape=(1000,))) -> double(double)
 * [libm.so.6, direct]".  Meant for struct gp_op's describe hook. */
void	gp_extern_describe(const struct gp_graph *g, const struct gp_node *n,
	    struct gp_buf *b);

/* Libraries the cache holds open now (tests: sharing and closing). */
int	gp_extern_libs_open(void);

#endif
