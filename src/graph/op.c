/*
 * op.c: the op registry (every family's table, looked up by name through a
 * sorted index) and the params helpers ops use in prepare().
 */
#include "config.h"

#include "graph/op.h"
#include "ops/ops.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const struct gp_op *const *const families[] = {
	gp_ops_elemwise, gp_ops_blas, gp_ops_reduce, gp_ops_shape, gp_ops_nn,
	gp_ops_extern, gp_ops_conv, gp_ops_pool, gp_ops_norm,
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

int
gp_op_param_int(const json_t *params, const char *key, int64_t def,
    int64_t *out, struct gp_err *err)
{
	json_t *v = json_object_get(params, key);

	if (v == NULL) {
		*out = def;
		return (0);
	}
	if (!json_is_integer(v))
		return (gp_err_set(err, "param '%s' must be an integer", key));
	*out = json_integer_value(v);
	return (0);
}

int
gp_op_param_double(const json_t *params, const char *key, double def,
    double *out, struct gp_err *err)
{
	json_t *v = json_object_get(params, key);

	if (v == NULL) {
		*out = def;
		return (0);
	}
	if (!json_is_number(v))
		return (gp_err_set(err, "param '%s' must be a number", key));
	*out = json_number_value(v);
	if (!isfinite(*out))
		return (gp_err_set(err, "param '%s' must be finite", key));
	return (0);
}

int
gp_op_param_bool(const json_t *params, const char *key, bool def, bool *out,
    struct gp_err *err)
{
	json_t *v = json_object_get(params, key);

	if (v == NULL) {
		*out = def;
		return (0);
	}
	if (!json_is_boolean(v))
		return (gp_err_set(err, "param '%s' must be true or false",
		    key));
	*out = json_is_true(v);
	return (0);
}

static int
cmp_int(const void *a, const void *b)
{
	return (*(const int *)a - *(const int *)b);
}

int
gp_op_param_axes(const json_t *params, const char *key, int ndim,
    bool all_default, int *axes, int *n, struct gp_err *err)
{
	json_t *v = json_object_get(params, key);
	size_t i;
	json_t *e;

	*n = 0;
	if (v == NULL || json_is_null(v)) {
		if (all_default)
			for (int d = 0; d < ndim; d++)
				axes[(*n)++] = d;
		return (0);
	}
	if (json_is_integer(v)) {
		json_t *one = json_pack("[O]", v);
		json_t *tmp = json_pack("{s:o}", key, one);
		int rc = gp_op_param_axes(tmp, key, ndim, all_default, axes, n,
		    err);

		json_decref(tmp);
		return (rc);
	}
	if (!json_is_array(v))
		return (gp_err_set(err, "param '%s' must be an axis or a list "
		    "of axes", key));
	json_array_foreach(v, i, e) {
		json_int_t a;

		if (!json_is_integer(e))
			return (gp_err_set(err, "param '%s': axes must be "
			    "integers", key));
		a = json_integer_value(e);
		if (a < -ndim || a >= ndim)
			return (gp_err_set(err, "param '%s': axis %lld is out "
			    "of range for %d dimensions", key, (long long)a,
			    ndim));
		if (a < 0)
			a += ndim;
		if (*n >= GP_MAX_DIMS)
			return (gp_err_set(err, "param '%s': too many axes",
			    key));
		axes[(*n)++] = (int)a;
	}
	qsort(axes, (size_t)*n, sizeof(int), cmp_int);
	for (int k = 1; k < *n; k++)
		if (axes[k] == axes[k - 1])
			return (gp_err_set(err, "param '%s': axis %d repeated",
			    key, axes[k]));
	return (0);
}
