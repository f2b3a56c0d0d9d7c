/*
 * ops-helpers.h: helpers shared by the op-library unit tests (test-blas,
 * test-nn, test-reduce, test-shape, test-cnn, test-spatial, test-matmul,
 * test-index): one graph g, input variables filled
 * by a function of the element index (fa is the common formula A), nodes
 * added with or without an expected prepare error, running a node's kernel
 * into an allocated or view output, comparing a tensor (dtype, shape,
 * values) with expected ones within a tolerance, and checking an op's
 * printed name; and running the committed JSON cases of tests/data/
 * (test-cnn, test-spatial, test-matmul; test-index's inputs).
 *
 * Everything is static: include this once, after the test's own includes.
 * Per-test pieces (other value formulas, tolerances) stay in the tests and
 * come in as parameters.
 */
#ifndef GPTOP_TESTS_UNIT_OPS_HELPERS_H
#define GPTOP_TESTS_UNIT_OPS_HELPERS_H

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "graph/op.h"

static struct gp_graph *g;

static double
fa(int i)
{
	return (((i * 7 + 3) % 11 - 5) * 0.25);
}

/* An input variable of the given type whose element i (C order) is f(i). */
static int
var_fn(enum gp_dtype dt, int ndim, const int64_t *shape, double (*f)(int))
{
	struct gp_type t = {.dtype = dt, .ndim = ndim};
	struct gp_tensor *v;
	int64_t n = gp_shape_numel(ndim, shape);
	int idx;

	memcpy(t.shape, shape, sizeof(int64_t) * (size_t)ndim);
	idx = gp_graph_add_var(g, NULL, GP_VAR_INPUT, &t);
	v = &g->vars[idx].value;
	gp_tensor_alloc(v, dt, ndim, shape);
	for (int64_t i = 0; i < n; i++)
		gp_dtype_store(gp_tensor_data(v) + i * (int64_t)
		    gp_dtype_size(dt), dt, f != NULL ? f((int)i) : 0);
	return (idx);
}

static int __attribute__((__unused__))
var_scalar(enum gp_dtype dt, double x)
{
	int64_t none[1] = {1};
	int idx = var_fn(dt, 0, none, NULL);

	gp_dtype_store(gp_tensor_data(&g->vars[idx].value), dt, x);
	return (idx);
}

/* A matrix input (rows x cols) stored transposed: its value is a view of a
 * (cols x rows) contiguous block with the strides swapped. */
static int __attribute__((__unused__))
var_transposed(enum gp_dtype dt, int64_t rows, int64_t cols,
    double (*f)(int))
{
	int64_t shape[2] = {rows, cols};
	int idx = var_fn(dt, 2, shape, NULL);
	struct gp_tensor *v = &g->vars[idx].value;
	size_t isz = gp_dtype_size(dt);

	v->strides[0] = (int64_t)isz;
	v->strides[1] = rows * (int64_t)isz;
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++)
			gp_dtype_store(gp_tensor_data(v) + i * v->strides[0] +
			    j * v->strides[1], dt, f((int)(i * cols + j)));
	return (idx);
}

static int
node(const char *op, const char *params, int nin, const int *in,
    struct gp_err *err)
{
	const struct gp_op *o = gp_op_find(op);
	json_t *p = NULL;

	if (o == NULL) {
		gp_err_set(err, "no op %s", op);
		return (-1);
	}
	if (params != NULL && (p = json_loads(params, 0, NULL)) == NULL)
		abort();
	return (gp_graph_add_node(g, o, p, nin, in, 1, err));
}

/* Add a node that must prepare; on failure report and return -1. */
static int
node_ok(const char *op, const char *params, int nin, const int *in)
{
	struct gp_err err;
	int ni = node(op, params, nin, in, &err);

	if (ni < 0)
		ok(false, "prepare %s: %s", op, err.msg);
	return (ni);
}

/* Run node ni into *out (allocated here unless the output is a view). */
static void
run(int ni, struct gp_tensor *out)
{
	struct gp_node *n = &g->nodes[ni];
	struct gp_tensor *in[8], *outs[1] = {out};
	const struct gp_type *t = &g->vars[n->out[0]].type;

	for (int k = 0; k < n->n_in; k++)
		in[k] = &g->vars[n->in[k]].value;
	memset(out, 0, sizeof(*out));
	if (n->view[0] < 0)
		gp_tensor_alloc(out, t->dtype, t->ndim, t->shape);
	n->kernel(n, in, outs);
}

/* Every element of t against want, within tol (relative above 1). */
static bool
check(const struct gp_tensor *t, const double *want, int64_t n, double tol,
    const char *what)
{
	if (gp_tensor_numel(t) != n)
		return (ok(false, "%s: %lld elements, want %lld", what,
		    (long long)gp_tensor_numel(t), (long long)n));
	for (int64_t i = 0; i < n; i++) {
		double got = gp_tensor_get(t, i);
		double sc = fabs(want[i]) > 1 ? fabs(want[i]) : 1;

		if (isnan(want[i]) ? !isnan(got) : !(fabs(got - want[i]) <=
		    tol * sc)) {
			diag("  %s: element %lld is %.17g, want %.17g", what,
			    (long long)i, got, want[i]);
			return (ok(false, "%s", what));
		}
	}
	return (ok(true, "%s", what));
}

/* Run node ni into *o, then check its dtype, its shape (as printed) and
 * every value against want within tol: two checks.  The caller releases
 * *o. */
static void __attribute__((__unused__))
run_check(int ni, struct gp_tensor *o, enum gp_dtype dt, const char *shape,
    const double *want, double tol, const char *what)
{
	struct gp_buf b = {0};

	run(ni, o);
	gp_shape_format(&b, o->ndim, o->shape);
	ok(o->dtype == dt && strcmp(gp_buf_str(&b), shape) == 0,
	    "%s: %s%s (got %s%s)", what, gp_dtype_name(dt), shape,
	    gp_dtype_name(o->dtype), gp_buf_str(&b));
	check(o, want, gp_tensor_numel(o), tol, what);
	gp_buf_free(&b);
}

/* Prepare must fail with a message containing each of the strings. */
static void
expect_err(const char *op, const char *params, int nin, const int *in,
    const char *s1, const char *s2, const char *what)
{
	struct gp_err err = {{0}};
	int ni = node(op, params, nin, in, &err);

	ok(ni < 0 && strstr(err.msg, s1) != NULL && (s2 == NULL ||
	    strstr(err.msg, s2) != NULL), "%s: %s", what, err.msg);
}

static void
format_is(int ni, const char *want)
{
	struct gp_buf b = {0};

	gp_node_format_op(g, &g->nodes[ni], &b);
	ok(strcmp(gp_buf_str(&b), want) == 0, "op name %s (got %s)", want,
	    gp_buf_str(&b));
	gp_buf_free(&b);
}

/*
 * The committed cases of tests/data/ (cnn/, spatial/, matmul/, index/):
 * {"cases": [{"name", "op", "params", "inputs": [{"shape", "data"}...],
 * "output": {"shape", "data"}}...]}, each made by the make-cases.py next
 * to it (which says how the expected values were computed).
 */

/* An input variable of dtype dt holding a case's {"shape", "data"}. */
static int __attribute__((__unused__))
var_json(enum gp_dtype dt, const json_t *spec)
{
	const json_t *sh = json_object_get(spec, "shape");
	const json_t *data = json_object_get(spec, "data");
	int64_t shape[GP_MAX_DIMS];
	int nd = (int)json_array_size(sh), idx;
	struct gp_tensor *v;

	for (int i = 0; i < nd; i++)
		shape[i] = json_integer_value(json_array_get(sh, (size_t)i));
	idx = var_fn(dt, nd, shape, NULL);
	v = &g->vars[idx].value;
	for (size_t i = 0; i < json_array_size(data); i++)
		gp_dtype_store(gp_tensor_data(v) + (int64_t)i *
		    (int64_t)gp_dtype_size(dt), dt,
		    json_number_value(json_array_get(data, i)));
	return (idx);
}

/* Case c in dtype dt through op (NULL: the case's "op"): its output's
 * dtype, shape and values within tol.  Returns whether the node was
 * made and run. */
static bool __attribute__((__unused__))
run_json_case(const json_t *c, const char *op, enum gp_dtype dt, double tol)
{
	const char *name = json_string_value(json_object_get(c, "name"));
	const json_t *ins = json_object_get(c, "inputs");
	const json_t *out = json_object_get(c, "output");
	const json_t *od = json_object_get(out, "data");
	const json_t *osh = json_object_get(out, "shape");
	char *params = json_dumps(json_object_get(c, "params"), JSON_COMPACT);
	char what[200], shape[128];
	int in[8], nin = (int)json_array_size(ins), ni = -1;
	size_t n = json_array_size(od), len = 0;
	double *want = malloc(sizeof(double) * (n ? n : 1));
	struct gp_tensor o;

	if (op == NULL)
		op = json_string_value(json_object_get(c, "op"));
	for (int k = 0; k < nin && k < 8; k++)
		in[k] = var_json(dt, json_array_get(ins, (size_t)k));
	for (size_t i = 0; i < n; i++)
		want[i] = json_number_value(json_array_get(od, i));
	len += (size_t)snprintf(shape, sizeof(shape), "(");
	for (size_t i = 0; i < json_array_size(osh); i++)
		len += (size_t)snprintf(shape + len, sizeof(shape) - len,
		    "%s%lld", i ? ", " : "", (long long)json_integer_value(
		    json_array_get(osh, i)));
	snprintf(shape + len, sizeof(shape) - len, "%s)",
	    json_array_size(osh) == 1 ? "," : "");
	snprintf(what, sizeof(what), "%s %s", name, gp_dtype_name(dt));
	if (nin <= 8)
		ni = node_ok(op, params, nin, in);
	if (ni >= 0) {
		run_check(ni, &o, dt, shape, want, tol, what);
		gp_tensor_release(&o);
	} else
		ok(false, "%s: runs", what);
	free(params);
	free(want);
	return (ni >= 0);
}

/* Every case of $top_srcdir/rel in float32 (within tol32) and float64
 * (tol64) through op (NULL: each case's own).  Returns how many cases the
 * file has (-1: it did not load), *ran how many ran in both dtypes. */
static int __attribute__((__unused__))
run_json_cases(const char *rel, const char *op, double tol32, double tol64,
    int *ran)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	json_error_t je;
	json_t *root, *cases, *c;
	size_t i;
	int n;

	*ran = 0;
	snprintf(path, sizeof(path), "%s/%s", top != NULL ? top : ".", rel);
	root = json_load_file(path, 0, &je);
	if (!ok(root != NULL, "load %s", path)) {
		diag("  %s", je.text);
		return (-1);
	}
	cases = json_object_get(root, "cases");
	json_array_foreach(cases, i, c) {
		bool a = run_json_case(c, op, GP_FLOAT32, tol32);
		bool b = run_json_case(c, op, GP_FLOAT64, tol64);

		*ran += a && b;
	}
	n = (int)json_array_size(cases);
	json_decref(root);
	return (n);
}

#endif /* GPTOP_TESTS_UNIT_OPS_HELPERS_H */
