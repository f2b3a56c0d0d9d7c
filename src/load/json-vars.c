/*
 * json-vars.c: the graph file's "variables": each one's kind, dtype and
 * shape (checked against the memory limit, alone and all together) and its
 * initial value ("init": fill, arange, uniform, normal, integers, values,
 * npy), made through the builder API (graph/build.h).
 */
#include "config.h"

#include "load/json-loader.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/npy.h"
#include "base/rng.h"

/* Elements. */

static void
store_int(void *p, enum gp_dtype dt, int64_t v)
{
	gp_dtype_convert(p, dt, &v, GP_INT64, 0, 1);
}

/* A shape as text, "(10, 3)", in b. */
static const char *
shape_str(struct gp_buf *b, int ndim, const int64_t *shape)
{
	gp_buf_clear(b);
	gp_shape_format(b, ndim, shape);
	return (gp_buf_str(b));
}

/* A JSON scalar (number or boolean) as a literal, false if it is none. */
bool
gp_load_json_literal(const json_t *v, struct gp_literal *lit)
{
	*lit = (struct gp_literal){.as = GP_FLOAT64};
	if (json_is_boolean(v)) {
		lit->as = GP_BOOL;
		lit->i = json_is_true(v);
	} else if (json_is_integer(v)) {
		lit->as = GP_INT64;
		lit->i = json_integer_value(v);
	} else if (json_is_real(v))
		lit->d = json_real_value(v);
	else
		return (false);
	return (true);
}

/* Store the JSON scalar v as one element of dtype dt at p.  A problem is
 * described in why (for "expected ..." messages) and -1 returned. */
static int
store_scalar(void *p, enum gp_dtype dt, const json_t *v, char *why,
    size_t cap)
{
	struct gp_literal lit;

	if (!gp_load_json_literal(v, &lit)) {
		snprintf(why, cap, "a number%s", dt == GP_BOOL ?
		    " or a boolean" : "");
		return (-1);
	}
	return (gp_literal_store(&lit, dt, p, why, cap));
}

/* Variables. */

static const char *const var_keys[] = {
	"kind", "dtype", "shape", "init", "doc", NULL
};
static const char *const init_methods[] = {
	"fill", "arange", "uniform", "normal", "integers", "values", "npy",
	NULL
};

/* Parse "shape" into type and check its byte count. */
static int
load_shape(struct loader *L, const json_t *js, struct where w, const char *ctx,
    struct gp_type *t)
{
	struct gp_buf b = {0};
	uint64_t nb;
	size_t i;
	json_t *e;

	if (!json_is_array(js))
		return (gp_load_bad_type(L, w, ctx, "shape",
		    "an array of non-negative integers like [10, 3]",
		    js));
	if (json_array_size(js) > GP_MAX_DIMS)
		return (gp_load_fail(L, w, false,
		    "%s: shape %s has %zu dimensions: expected at most %d",
		    ctx, gp_load_show(L, js), json_array_size(js),
		    GP_MAX_DIMS));
	t->ndim = (int)json_array_size(js);
	json_array_foreach(js, i, e) {
		if (!json_is_integer(e) || json_integer_value(e) < 0)
			return (gp_load_fail(L, w_idx(w, i), false, "%s: shape "
			    "dimension %zu is %s: expected a non-negative "
			    "integer", ctx, i, gp_load_show(L, e)));
		t->shape[i] = json_integer_value(e);
	}
	if (!gp_npy_nbytes(t->ndim, t->shape, t->dtype, &nb)) {
		gp_load_fail(L, w, false,
		    "%s: shape %s of %s overflows: its byte "
		    "count does not fit in 64 bits",
		    ctx, shape_str(&b, t->ndim, t->shape),
		    gp_dtype_name(t->dtype));
		gp_buf_free(&b);
		return (-1);
	}
	if (nb > L->limit) {
		gp_load_fail(L, w, false,
		    "%s: %s %s needs %" PRIu64 " bytes, over the "
		    "memory limit of %" PRIu64 " bytes (flag memory_limit)",
		    ctx, gp_dtype_name(t->dtype),
		    shape_str(&b, t->ndim, t->shape), nb, L->limit);
		gp_buf_free(&b);
		return (-1);
	}
	gp_buf_free(&b);
	return (0);
}

/* A [a, b] pair of numbers (integers when ints). */
static int
load_pair(struct loader *L, const json_t *v, struct where w, const char *ctx,
    const char *method, const char *names, bool ints, double *a, double *b,
    int64_t *ia, int64_t *ib)
{
	json_t *x, *y;

	if (!json_is_array(v) || json_array_size(v) != 2 ||
	    !json_is_number(x = json_array_get(v, 0)) ||
	    !json_is_number(y = json_array_get(v, 1)) ||
	    (ints && (!json_is_integer(x) || !json_is_integer(y))))
		return (gp_load_fail(L, w, false,
		    "%s: init \"%s\" must be [%s], two %s, got %s",
		    ctx, method, names, ints ? "integers" : "numbers",
		    gp_load_show(L, v)));
	*a = json_number_value(x);
	*b = json_number_value(y);
	if (ia != NULL) {
		*ia = json_is_integer(x) ? json_integer_value(x) : 0;
		*ib = json_is_integer(y) ? json_integer_value(y) : 0;
	}
	return (0);
}

/* "values": nested arrays matching the shape exactly. */
static int
fill_values(struct loader *L, const struct gp_var *var, const json_t *v,
    int dim, struct where w, const char *ctx, char **p)
{
	const struct gp_type *t = &var->type;
	struct gp_buf b = {0};
	char why[128];
	size_t i;
	json_t *e;

	if (dim == t->ndim) {
		if (!json_is_number(v) && !json_is_boolean(v)) {
			gp_load_fail(L, w, false,
			    "%s: init \"values\" must match the "
			    "shape %s exactly: expected a number here, got %s",
			    ctx, shape_str(&b, t->ndim, t->shape),
			    gp_load_show(L, v));
			gp_buf_free(&b);
			return (-1);
		}
		if (store_scalar(*p, t->dtype, v, why, sizeof(why)) < 0)
			return (gp_load_fail(L, w, false,
			    "%s: init value %s does not fit: expected %s",
			    ctx, gp_load_show(L, v), why));
		*p += gp_dtype_size(t->dtype);
		return (0);
	}
	if (!json_is_array(v) || json_array_size(v) != (size_t)t->shape[dim]) {
		char got[80];

		if (json_is_array(v))
			snprintf(got, sizeof(got), "an array of %zu",
			    json_array_size(v));
		else
			snprintf(got, sizeof(got), "%s", gp_load_show(L, v));
		gp_load_fail(L, w, false,
		    "%s: init \"values\" must match the shape %s "
		    "exactly: expected an array of %lld (dimension %d), got %s",
		    ctx, shape_str(&b, t->ndim, t->shape),
		    (long long)t->shape[dim], dim, got);
		gp_buf_free(&b);
		return (-1);
	}
	json_array_foreach(v, i, e)
		if (fill_values(L, var, e, dim + 1, w_idx(w, i), ctx, p) < 0)
			return (-1);
	return (0);
}

static int
init_npy(struct loader *L, int vi, const json_t *v, struct where w,
    const char *ctx)
{
	const struct gp_var *var = &L->g->vars[vi];
	struct gp_npy_info info;
	struct gp_tensor t = {0};
	struct gp_type ft;
	struct gp_buf a = {0}, b = {0};
	char *path;
	int rc = 0;

	if (!json_is_string(v) || json_string_length(v) == 0)
		return (gp_load_bad_type(L, w, ctx, "npy", "a file name like "
		    "\"w.npy\" (relative to the graph's folder)", v));
	if (json_string_value(v)[0] == '/')
		path = gp_xstrdup(json_string_value(v));
	else
		path = gp_xasprintf("%s/%s", L->dir, json_string_value(v));
	if (gp_npy_read_info(path, &info, L->err) < 0) {
		free(path);
		return (gp_load_fail(L, w, false, "%s: init \"npy\": %s", ctx,
		    L->err->msg));
	}
	ft.dtype = info.dtype;
	ft.ndim = info.ndim;
	memcpy(ft.shape, info.shape, sizeof(ft.shape));
	if (!gp_type_equal(&ft, &var->type)) {
		gp_type_format(&a, &ft);
		gp_type_format(&b, &var->type);
		rc = gp_load_fail(L, w, false,
		    "%s: %s holds %s, the variable is "
		    "declared %s: expected the same dtype and shape",
		    ctx, path, gp_buf_str(&a), gp_buf_str(&b));
	} else if (gp_npy_read_limit(path, L->limit, &t, L->err) < 0) {
		rc = gp_load_fail(L, w, false, "%s: init \"npy\": %s", ctx,
		    L->err->msg);
	} else if (gp_graph_set_value(L->g, vi, &t, L->err) < 0) {
		gp_tensor_release(&t);	/* cannot be: the types match */
		rc = gp_load_fail(L, w, false, "%s: init \"npy\": %s", ctx,
		    L->err->msg);
	}
	free(path);
	gp_buf_free(&a);
	gp_buf_free(&b);
	return (rc);
}

static int
load_init(struct loader *L, int vi, const json_t *ji, struct where w,
    const char *ctx)
{
	const struct gp_var *var = &L->g->vars[vi];
	enum gp_dtype dt = var->type.dtype;
	const char *method = NULL, *key;
	json_t *v, *mv = NULL, *seed;
	int64_t n = gp_shape_numel(var->type.ndim, var->type.shape);
	size_t sz = gp_dtype_size(dt);
	struct gp_rng rng;
	bool random;
	char *p, why[128];
	double a, b;
	int64_t ia, ib;

	if (ji == NULL) {
		(void)gp_graph_alloc_value(L->g, vi, true);
		return (0);
	}
	if (!json_is_object(ji))
		return (gp_load_bad_type(L, w, ctx, "init", "an object like "
		    "{\"fill\": 0}", ji));
	json_object_foreach((json_t *)ji, key, v) {
		bool known = strcmp(key, "seed") == 0;

		for (size_t i = 0; init_methods[i] != NULL; i++) {
			if (strcmp(key, init_methods[i]) != 0)
				continue;
			known = true;
			if (method != NULL)
				return (gp_load_fail(L, w_key(w, key), true,
				    "%s: init has both \"%s\" and \"%s\": "
				    "expected one method", ctx, method, key));
			method = key;
			mv = v;
		}
		if (!known) {
			struct gp_buf lb = {0};

			gp_load_fail(L, w_key(w, key), true,
			    "%s: unknown init method "
			    "\"%s\" (expected one of %s; \"seed\" goes with "
			    "uniform, normal and integers)",
			    ctx, key, gp_load_list_str(&lb, init_methods));
			gp_buf_free(&lb);
			return (-1);
		}
	}
	if (method == NULL) {
		struct gp_buf lb = {0};

		gp_load_fail(L, w, false,
		    "%s: init has no method: expected one of %s", ctx,
		    gp_load_list_str(&lb, init_methods));
		gp_buf_free(&lb);
		return (-1);
	}
	random = strcmp(method, "uniform") == 0 ||
	    strcmp(method, "normal") == 0 || strcmp(method, "integers") == 0;
	seed = json_object_get(ji, "seed");
	if (random && seed == NULL)
		return (gp_load_fail(L, w, false,
		    "%s: init \"%s\" needs a \"seed\" (a "
		    "non-negative integer), so the data is reproducible",
		    ctx, method));
	if (!random && seed != NULL)
		return (gp_load_fail(L, w_key(w, "seed"), true,
		    "%s: \"seed\" goes "
		    "only with uniform, normal and integers, not \"%s\"",
		    ctx, method));
	if (seed != NULL && (!json_is_integer(seed) ||
	    json_integer_value(seed) < 0))
		return (gp_load_bad_type(L, w_key(w, "seed"), ctx, "seed",
		    "a non-negative integer", seed));
	if (seed != NULL)
		gp_rng_seed(&rng, (uint64_t)json_integer_value(seed));

	w = w_key(w, method);
	if (strcmp(method, "npy") == 0)
		return (init_npy(L, vi, mv, w, ctx));
	p = gp_tensor_data(gp_graph_alloc_value(L->g, vi, false));

	if (strcmp(method, "fill") == 0) {
		char elem[16];

		if (!json_is_number(mv) && !json_is_boolean(mv))
			return (gp_load_bad_type(L, w, ctx, "fill",
			    "a number or true/false",
			    mv));
		if (store_scalar(elem, dt, mv, why, sizeof(why)) < 0)
			return (gp_load_fail(L, w, false,
			    "%s: fill value %s does not fit: expected %s",
			    ctx, gp_load_show(L, mv), why));
		for (int64_t i = 0; i < n; i++)
			memcpy(p + (size_t)i * sz, elem, sz);
	} else if (strcmp(method, "values") == 0) {
		char *q = p;

		return (fill_values(L, var, mv, 0, w, ctx, &q));
	} else if (strcmp(method, "arange") == 0) {
		if (dt == GP_BOOL)
			return (gp_load_fail(L, w, false,
			    "%s: init \"arange\" needs "
			    "a numeric dtype, not bool",
			    ctx));
		if (load_pair(L, mv, w, ctx, "arange", "start, step",
		    !gp_dtype_is_float(dt), &a, &b, &ia, &ib) < 0)
			return (-1);
		if (gp_dtype_is_float(dt)) {
			for (int64_t i = 0; i < n; i++)
				gp_dtype_store(p + (size_t)i * sz, dt,
				    a + (double)i * b);
			if (dt == GP_FLOAT32 && n > 0 && (fabs(a) > FLT_MAX ||
			    fabs(a + (double)(n - 1) * b) > FLT_MAX))
				return (gp_load_fail(L, w, false,
				    "%s: init \"arange\" "
				    "leaves float32's range",
				    ctx));
		} else {
			int64_t lo, hi, last = ia;

			gp_dtype_int_range(dt, &lo, &hi);
			if (n > 0 && (__builtin_mul_overflow(ib, n - 1,
			    &last) || __builtin_add_overflow(last, ia, &last) ||
			    ia < lo || ia > hi || last < lo || last > hi))
				return (gp_load_fail(L, w, false,
				    "%s: init \"arange\" "
				    "runs out of %s's range %" PRId64
				    "..%" PRId64,
				    ctx, gp_dtype_name(dt), lo, hi));
			for (int64_t i = 0; i < n; i++)
				store_int(p + (size_t)i * sz, dt, ia + i * ib);
		}
	} else if (strcmp(method, "uniform") == 0 ||
	    strcmp(method, "normal") == 0) {
		bool uni = method[0] == 'u';

		if (!gp_dtype_is_float(dt))
			return (gp_load_fail(L, w, false,
			    "%s: init \"%s\" makes "
			    "floats, the dtype is %s: expected float32 or "
			    "float64 (for integers use \"integers\")",
			    ctx, method, gp_dtype_name(dt)));
		if (load_pair(L, mv, w, ctx, method, uni ? "lo, hi" :
		    "mean, std", false, &a, &b, NULL, NULL) < 0)
			return (-1);
		if (uni && !(a < b))
			return (gp_load_fail(L, w, false,
			    "%s: init \"uniform\" needs lo < hi, got %s",
			    ctx, gp_load_show(L, mv)));
		if (!uni && !(b >= 0))
			return (gp_load_fail(L, w, false,
			    "%s: init \"normal\" needs std >= 0, got %s",
			    ctx, gp_load_show(L, mv)));
		if (uni && !isfinite(b - a))
			return (gp_load_fail(L, w, false,
			    "%s: init \"uniform\": hi - lo overflows",
			    ctx));
		for (int64_t i = 0; i < n; i++)
			gp_dtype_store(p + (size_t)i * sz, dt, uni ?
			    gp_rng_uniform(&rng, a, b) :
			    gp_rng_normal(&rng, a, b));
	} else {		/* integers */
		int64_t lo, hi;

		if (load_pair(L, mv, w, ctx, "integers", "lo, hi", true, &a,
		    &b, &ia, &ib) < 0)
			return (-1);
		if (ia >= ib)
			return (gp_load_fail(L, w, false,
			    "%s: init \"integers\" needs "
			    "lo < hi (hi is excluded), got %s",
			    ctx, gp_load_show(L, mv)));
		if (!gp_dtype_is_float(dt)) {
			gp_dtype_int_range(dt, &lo, &hi);
			if (ia < lo || ib - 1 > hi)
				return (gp_load_fail(L, w, false,
				    "%s: init \"integers\" %s leaves %s's "
				    "range %" PRId64 "..%" PRId64, ctx,
				    gp_load_show(L, mv), gp_dtype_name(dt), lo,
				    hi));
		}
		for (int64_t i = 0; i < n; i++)
			store_int(p + (size_t)i * sz, dt,
			    gp_rng_integers(&rng, ia, ib));
	}
	return (0);
}

/* A variable's position: its key (variables come first in the graph). */
static void
var_pos(void *vg, size_t i, const struct gp_jsonpos_elem *e)
{
	struct gp_graph *g = vg;

	if (i < g->n_vars)
		gp_graph_place_var(g, (int)i, e->line, e->col);
}

int
gp_load_variables(struct loader *L, const json_t *jvars)
{
	struct where wv = w_key(W_ROOT, "variables");
	const char *name;
	json_t *jv;

	json_object_foreach((json_t *)jvars, name, jv) {
		struct where w = w_key(wv, name);
		struct gp_type t = {0};
		enum gp_var_kind kind;
		json_t *e;
		char *ctx;
		int vi, rc = -1;
		const char *s;

		if (gp_load_check_name(L, name, w, true, "variable name") < 0)
			return (-1);
		ctx = gp_xasprintf("variable '%s'", name);
		if (!json_is_object(jv)) {
			gp_load_fail(L, w, false,
			    "%s: expected an object like "
			    "{\"kind\": \"input\", \"dtype\": \"float64\", "
			    "\"shape\": [10]}, got %s",
			    ctx, gp_load_show(L, jv));
			goto out;
		}
		if (gp_load_check_keys(L, jv, var_keys, w, ctx, 0) < 0)
			goto out;
		if ((e = json_object_get(jv, "kind")) == NULL) {
			gp_load_fail(L, w, false,
			    "%s: missing \"kind\": expected "
			    "input, shared or constant",
			    ctx);
			goto out;
		}
		if (!json_is_string(e)) {
			gp_load_bad_type(L, w_key(w, "kind"), ctx, "kind",
			    "\"input\", \"shared\" or \"constant\"",
			    e);
			goto out;
		}
		s = json_string_value(e);
		if (strcmp(s, "input") == 0)
			kind = GP_VAR_INPUT;
		else if (strcmp(s, "shared") == 0)
			kind = GP_VAR_SHARED;
		else if (strcmp(s, "constant") == 0)
			kind = GP_VAR_CONSTANT;
		else {
			gp_load_fail(L, w_key(w, "kind"), false,
			    "%s: unknown kind %s "
			    "(expected input, shared or constant)",
			    ctx, gp_load_show_name(L, e));
			goto out;
		}
		if ((e = json_object_get(jv, "dtype")) == NULL) {
			gp_load_fail(L, w, false,
			    "%s: missing \"dtype\": expected one of %s",
			    ctx, gp_dtype_names());
			goto out;
		}
		if (!json_is_string(e) ||
		    !gp_dtype_parse(json_string_value(e), &t.dtype)) {
			gp_load_fail(L, w_key(w, "dtype"), false,
			    "%s: unknown dtype %s (expected one of %s)",
			    ctx, gp_load_show_name(L, e), gp_dtype_names());
			goto out;
		}
		if ((e = json_object_get(jv, "shape")) == NULL) {
			gp_load_fail(L, w, false,
			    "%s: missing \"shape\": expected an array of "
			    "dimensions like [10, 3] ([] for a scalar)", ctx);
			goto out;
		}
		if (load_shape(L, e, w_key(w, "shape"), ctx, &t) < 0)
			goto out;
		/* and all the values together (each is under the limit) */
		L->total += gp_type_nbytes(&t);
		if (L->total > L->limit) {
			gp_load_fail(L, w_key(w, "shape"), false,
			    "%s: the variables' "
			    "values need %" PRIu64 " bytes with this one, over "
			    "the memory limit of %" PRIu64 " bytes (flag "
			    "memory_limit)",
			    ctx, L->total, L->limit);
			goto out;
		}
		if ((e = json_object_get(jv, "doc")) != NULL &&
		    !json_is_string(e)) {
			gp_load_bad_type(L, w_key(w, "doc"), ctx, "doc",
			    "a string", e);
			goto out;
		}
		vi = gp_graph_add_var(L->g, name, kind, &t);
		rc = load_init(L, vi, json_object_get(jv, "init"),
		    w_key(w, "init"), ctx);
out:
		free(ctx);
		if (rc < 0)
			return (-1);
	}
	/* each variable is placed at its key */
	(void)gp_jsonpos_each(L->text, L->len,
	    &(struct gp_jsonpos_step){.key = "variables"}, 1, var_pos, L->g);
	return (0);
}
