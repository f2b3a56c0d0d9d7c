/*
 * op.c: the params helpers ops use in prepare() (see op.h); the registry
 * that finds ops by name is ops/table.c.
 */
#include "config.h"

#include "graph/op.h"
#include "graph/tensor.h"	/* GP_MAX_DIMS */

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
