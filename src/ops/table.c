/*
 * ops/table.c: the op registry: every family's table (one NULL-terminated
 * array per file of ops/), looked up by name through a sorted index built
 * once (gp_op_find and gp_op_all, declared in graph/op.h with the op
 * type).  A new family's table is added to families[].
 */
#include "config.h"

#include "graph/op.h"
#include "ops/ops.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const struct gp_op *const *const families[] = {
	gp_ops_elemwise, gp_ops_blas, gp_ops_reduce, gp_ops_shape, gp_ops_nn,
	gp_ops_extern, gp_ops_conv, gp_ops_pool, gp_ops_norm, gp_ops_pad,
	gp_ops_resize, gp_ops_depth, gp_ops_index, gp_ops_matmul,
};

static const struct gp_op **sorted;
static size_t n_sorted;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int
cmp_op(const void *a, const void *b)
{
	const struct gp_op *const *x = a, *const *y = b;

	return (strcmp((*x)->name, (*y)->name));
}

static void
build_index(void)
{
	size_t n = 0, cap = 0;

	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
		for (const struct gp_op *const *p = families[f]; *p; p++) {
			gp_grow(&sorted, &cap, n + 1, sizeof(*sorted));
			sorted[n++] = *p;
		}
	qsort(sorted, n, sizeof(*sorted), cmp_op);
	n_sorted = n;
}

const struct gp_op *
gp_op_find(const char *name)
{
	size_t lo = 0, hi;

	pthread_once(&once, build_index);
	hi = n_sorted;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, sorted[mid]->name);

		if (c == 0)
			return (sorted[mid]);
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return (NULL);
}

const struct gp_op *const *
gp_op_all(size_t *n)
{
	pthread_once(&once, build_index);
	*n = n_sorted;
	return (sorted);
}
