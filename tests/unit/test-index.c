/*
 * test-index.c: the index ops (src/ops/index.c) against numpy and PyTorch:
 * every case of tests/data/index/cases.json (made by
 * tests/data/index/make-cases.py, which says how each expected value was
 * computed) runs through the op's kernel with its data in float32,
 * float64, int32 and int64 (small integers, exact in each) and its indices
 * in int64 and int32 (alternately).  Then: a strided input, NaN in top_k,
 * Op names, flop counts and the prepare errors.  The run-time error of an
 * index out of range (it ends the process) is tests/index-errors.sh's.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "graph/op.h"
#include "ops/ops.h"

#include "ops-helpers.h"

static const enum gp_dtype data_dt[] = {GP_FLOAT32, GP_FLOAT64, GP_INT32,
	GP_INT64};

/* Add node op (n_out outputs); -1 with err set. */
static int
node_n(const char *op, const char *params, int nin, const int *in,
    int n_out, struct gp_err *err)
{
	json_t *p = params != NULL ? json_loads(params, 0, NULL) : NULL;

	return (gp_graph_add_node(g, gp_op_find(op), p, nin, in, n_out, err));
}

/* Run node ni into its outputs (allocated here). */
static void
run_all(int ni, struct gp_tensor *o)
{
	struct gp_node *n = &g->nodes[ni];
	struct gp_tensor *in[8], *outs[GP_MAX_OUT];

	for (int k = 0; k < n->n_in; k++)
		in[k] = &g->vars[n->in[k]].value;
	for (int k = 0; k < n->n_out; k++) {
		const struct gp_type *t = &g->vars[n->out[k]].type;

		memset(&o[k], 0, sizeof(o[k]));
		gp_tensor_alloc(&o[k], t->dtype, t->ndim, t->shape);
		outs[k] = &o[k];
	}
	n->kernel(n, in, outs);
}

/* Tensor t has the case's output spec (shape and values) and dtype dt. */
static bool
same(const struct gp_tensor *t, enum gp_dtype dt, const json_t *spec,
    const char *what)
{
	const json_t *sh = json_object_get(spec, "shape");
	const json_t *data = json_object_get(spec, "data");
	bool good = t->dtype == dt && t->ndim == (int)json_array_size(sh);

	for (int d = 0; good && d < t->ndim; d++)
		good = t->shape[d] == json_integer_value(json_array_get(sh,
		    (size_t)d));
	if (!good) {
		diag("  %s: dtype %s, %d dimensions", what,
		    gp_dtype_name(t->dtype), t->ndim);
		return (false);
	}
	for (size_t i = 0; i < json_array_size(data); i++) {
		double want = json_number_value(json_array_get(data, i));
		double got = gp_tensor_get(t, (int64_t)i);

		if (got != want) {
			diag("  %s: element %zu is %.17g, want %.17g", what, i,
			    got, want);
			return (false);
		}
	}
	return (true);
}

static int n_ran;

static void
run_case(const json_t *c, int di)
{
	const char *name = json_string_value(json_object_get(c, "name"));
	const char *op = json_string_value(json_object_get(c, "op"));
	const json_t *ins = json_object_get(c, "inputs");
	const json_t *kinds = json_object_get(c, "kinds");
	const json_t *outs = json_object_get(c, "outputs");
	char *params = json_dumps(json_object_get(c, "params"), JSON_COMPACT);
	enum gp_dtype dt = data_dt[di], it = di % 2 ? GP_INT32 : GP_INT64;
	int in[8], nin = (int)json_array_size(ins), ni;
	int n_out = (int)json_array_size(outs);
	struct gp_tensor o[GP_MAX_OUT];
	struct gp_err err;
	bool good = true;
	char what[256];

	for (int k = 0; k < nin; k++) {
		const char *kind = json_string_value(json_array_get(kinds,
		    (size_t)k));

		in[k] = var_json(strcmp(kind, "index") == 0 ? it : dt,
		    json_array_get(ins, (size_t)k));
	}
	snprintf(what, sizeof(what), "%s: data %s, indices %s", name,
	    gp_dtype_name(dt), gp_dtype_name(it));
	ni = node_n(op, params, nin, in, n_out, &err);
	free(params);
	if (ni < 0) {
		ok(false, "%s: prepare: %s", what, err.msg);
		return;
	}
	run_all(ni, o);
	for (int k = 0; k < n_out; k++) {
		/* top_k's output 1: int64 indices */
		enum gp_dtype want = k == 1 ? GP_INT64 : dt;

		good = same(&o[k], want, json_array_get(outs, (size_t)k),
		    what) && good;
		gp_tensor_release(&o[k]);
	}
	ok(good, "%s", what);
	n_ran++;
}

static void
test_cases(void)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	json_error_t je;
	json_t *root, *cases, *c;
	size_t i;

	snprintf(path, sizeof(path), "%s/tests/data/index/cases.json",
	    top != NULL ? top : ".");
	root = json_load_file(path, 0, &je);
	if (!ok(root != NULL, "load %s", path)) {
		diag("  %s", je.text);
		return;
	}
	cases = json_object_get(root, "cases");
	json_array_foreach(cases, i, c)
		for (int d = 0; d < 4; d++)
			run_case(c, d);
	ok(json_array_size(cases) >= 90 && n_ran == 4 * (int)json_array_size(
	    cases), "%d cases ran, 4 dtypes each", (int)json_array_size(cases));
	json_decref(root);
}

/* gather_elements on a transposed (strided) x: the same as on x's
 * contiguous copy, element by element (x[i][idx[i][j]] by hand). */
static void
test_strided(void)
{
	int64_t is[2] = {3, 2};
	int x = var_transposed(GP_FLOAT64, 3, 4, fa);
	int i = var_fn(GP_INT64, 2, is, NULL), in[2] = {x, i}, ni;
	int64_t *id = (int64_t *)gp_tensor_data(&g->vars[i].value);
	const int64_t pick[6] = {3, 0, -1, 2, 1, -4};
	double want[6];
	struct gp_tensor o;

	for (int k = 0; k < 6; k++) {
		int64_t col = pick[k] < 0 ? pick[k] + 4 : pick[k];

		id[k] = pick[k];
		want[k] = fa((int)((k / 2) * 4 + col));
	}
	if ((ni = node_ok("gather_elements", "{\"axis\": 1}", 2, in)) < 0)
		return;
	run_check(ni, &o, GP_FLOAT64, "(3, 2)", want, 0, "gather_elements "
	    "of a transposed x");
	gp_tensor_release(&o);
}

/* NaN orders as the largest, like torch.topk: [1, NaN, 3, 3]. */
static void
test_nan(void)
{
	int64_t s[1] = {4};
	int x = var_fn(GP_FLOAT32, 1, s, NULL), ni;
	float *xd = (float *)gp_tensor_data(&g->vars[x].value);
	struct gp_tensor o[2];
	struct gp_err err;
	double v;

	xd[0] = 1;
	xd[1] = NAN;
	xd[2] = 3;
	xd[3] = 3;
	ni = node_n("top_k", "{\"k\": 3}", 1, &x, 2, &err);
	if (!ok(ni >= 0, "top_k with NaN prepares"))
		return;
	run_all(ni, o);
	v = gp_tensor_get(&o[0], 0);
	ok(isnan(v) && gp_tensor_get(&o[0], 1) == 3 && gp_tensor_get(&o[0],
	    2) == 3 && gp_tensor_get(&o[1], 0) == 1 && gp_tensor_get(&o[1],
	    1) == 2 && gp_tensor_get(&o[1], 2) == 3, "top_k: NaN first, "
	    "then the tied 3s by index (indices 1, 2, 3)");
	gp_tensor_release(&o[0]);
	gp_tensor_release(&o[1]);
	ni = node_n("top_k", "{\"k\": 2, \"largest\": false}", 1, &x, 2,
	    &err);
	run_all(ni, o);
	ok(gp_tensor_get(&o[0], 0) == 1 && gp_tensor_get(&o[0], 1) == 3 &&
	    gp_tensor_get(&o[1], 1) == 2, "top_k smallest: NaN last");
	gp_tensor_release(&o[0]);
	gp_tensor_release(&o[1]);
}

/* Integers wrap as numpy's do (computed unsigned: no signed overflow for
 * UBSan).  numpy 1.24: np.cumsum(np.array([2**31-1, 1, 1], np.int32),
 * dtype=np.int32) is [2147483647, -2147483648, -2147483647], and
 * np.multiply(np.array([3486784401]), np.array([3486784401])) (3^20 squared
 * in int64) is [-6289078614652622815]. */
static void
test_wrap(void)
{
	int64_t s3[1] = {3}, s1[1] = {1};
	int x = var_fn(GP_INT32, 1, s3, NULL), y = var_fn(GP_INT64, 1, s1,
	    NULL), i = var_fn(GP_INT64, 1, s1, NULL), u = var_fn(GP_INT64, 1,
	    s1, NULL), ni;
	int32_t *xd = (int32_t *)gp_tensor_data(&g->vars[x].value);
	const double want[3] = {2147483647, -2147483648.0, -2147483647};
	struct gp_tensor o;

	xd[0] = INT32_MAX;
	xd[1] = 1;
	xd[2] = 1;
	if ((ni = node_ok("cumsum", NULL, 1, &x)) >= 0) {
		run_check(ni, &o, GP_INT32, "(3,)", want, 0, "cumsum of int32 "
		    "wraps");
		gp_tensor_release(&o);
	}
	*(int64_t *)gp_tensor_data(&g->vars[y].value) = 3486784401;
	*(int64_t *)gp_tensor_data(&g->vars[u].value) = 3486784401;
	if ((ni = node_ok("scatter_elements", "{\"reduction\": \"mul\"}", 3,
	    (int[]){y, i, u})) >= 0) {
		run(ni, &o);
		ok(*(int64_t *)gp_tensor_data(&o) == -6289078614652622815LL,
		    "scatter_elements mul of int64 wraps (got %lld)",
		    (long long)*(int64_t *)gp_tensor_data(&o));
		gp_tensor_release(&o);
	}
}

static int
named(const char *op, const char *params, int nin, const int *in,
    int n_out, const char *want)
{
	struct gp_err err;
	int ni = node_n(op, params, nin, in, n_out, &err);

	if (ni < 0) {
		ok(false, "%s: %s", want, err.msg);
		return (-1);
	}
	format_is(ni, want);
	return (ni);
}

static void
test_names_flops(void)
{
	int64_t s34[2] = {3, 4}, s24[2] = {2, 4}, s21[2] = {2, 1}, s3[1] = {3};
	int64_t s2[1] = {2};
	int x = var_fn(GP_FLOAT32, 2, s34, fa);
	int xi = var_fn(GP_INT32, 2, s34, fa);
	int i = var_fn(GP_INT64, 2, s24, NULL);
	int u = var_fn(GP_FLOAT32, 2, s24, fa);
	int ui = var_fn(GP_INT32, 2, s24, fa);
	int i21 = var_fn(GP_INT64, 2, s21, NULL);
	int i31 = var_fn(GP_INT64, 2, (int64_t[]){3, 1}, NULL);
	int oh = var_fn(GP_INT64, 1, s3, NULL), val = var_fn(GP_FLOAT32, 1,
	    s2, fa);
	int ni;

	named("gather_elements", "{\"axis\": -1}", 2, (int[]){x, i}, 1,
	    "GatherElements{axis=1}");
	ni = named("scatter_elements", "{\"reduction\": \"add\"}", 3,
	    (int[]){x, i, u}, 1, "ScatterElements{axis=0,add}");
	ok(ni >= 0 && gp_node_flops(g, &g->nodes[ni]) == 8, "scatter_elements "
	    "add, float32: one flop per update (8)");
	ni = named("scatter_elements", NULL, 3, (int[]){x, i, u}, 1,
	    "ScatterElements{axis=0}");
	ok(ni >= 0 && gp_node_flops(g, &g->nodes[ni]) == 0, "scatter_elements "
	    "none: no flops");
	ni = named("scatter_elements", "{\"reduction\": \"mul\"}", 3,
	    (int[]){xi, i, ui}, 1, "ScatterElements{axis=0,mul}");
	ok(ni >= 0 && gp_node_flops(g, &g->nodes[ni]) == 0, "scatter_elements "
	    "of int32: no flops");
	ni = named("top_k", "{\"k\": 2, \"axis\": 1, \"largest\": false}", 1,
	    &x, 2, "TopK{k=2,axis=1,smallest}");
	ok(ni >= 0 && gp_node_flops(g, &g->nodes[ni]) == 12 * 2,
	    "top_k: numel * ceil(log2(4)) comparisons (24)");
	ni = named("cumsum", "{\"exclusive\": true, \"reverse\": true}", 1,
	    &x, 1, "CumSum{axis=0,exclusive,reverse}");
	ok(ni >= 0 && gp_node_flops(g, &g->nodes[ni]) == 12, "cumsum: one "
	    "flop per element (12)");
	ni = named("cumsum", "{\"axis\": 1}", 1, &xi, 1, "CumSum{axis=1}");
	ok(ni >= 0 && gp_node_flops(g, &g->nodes[ni]) == 0, "cumsum of "
	    "int32: no flops");
	named("one_hot", "{\"depth\": 4, \"axis\": 0}", 2, (int[]){oh, val}, 1,
	    "OneHot{depth=4,axis=0}");
	named("gather_nd", NULL, 2, (int[]){x, i21}, 1, "GatherND");
	named("gather_nd", "{\"batch_dims\": 1}", 2, (int[]){x, i31}, 1,
	    "GatherND{batch_dims=1}");
	ni = named("scatter_nd", "{\"reduction\": \"max\"}", 3,
	    (int[]){x, i21, u}, 1, "ScatterND{max}");
	ok(ni >= 0 && gp_node_flops(g, &g->nodes[ni]) == 8, "scatter_nd max: "
	    "one flop per update (8)");
}

static void
err_n(const char *op, const char *params, int nin, const int *in, int n_out,
    const char *s1, const char *what)
{
	struct gp_err err = {{0}};
	int ni = node_n(op, params, nin, in, n_out, &err);

	ok(ni < 0 && strstr(err.msg, s1) != NULL, "%s: %s", what, err.msg);
}

static void
test_errors(void)
{
	int64_t s34[2] = {3, 4}, s24[2] = {2, 4}, s25[2] = {2, 5}, s4[1] = {4};
	int64_t s23[2] = {2, 3}, s2[1] = {2}, s3[1] = {3};
	int x = var_fn(GP_FLOAT32, 2, s34, fa);
	int i = var_fn(GP_INT64, 2, s24, NULL);
	int i25 = var_fn(GP_INT64, 2, s25, NULL);
	int fi = var_fn(GP_FLOAT32, 2, s24, NULL);
	int i1 = var_fn(GP_INT64, 1, s4, NULL);
	int i23 = var_fn(GP_INT64, 2, s23, NULL);
	int i21 = var_fn(GP_INT64, 2, (int64_t[]){2, 1}, NULL);
	int u = var_fn(GP_FLOAT32, 2, s24, NULL);
	int u64 = var_fn(GP_FLOAT64, 2, s24, NULL);
	int v2 = var_fn(GP_FLOAT32, 1, s2, NULL), v3 = var_fn(GP_FLOAT32, 1, s3,
	    NULL);
	int xb = var_fn(GP_BOOL, 2, s34, NULL);

	expect_err("gather_elements", NULL, 2, (int[]){x, fi}, "the indices "
	    "must be integers", "not float32", "float indices");
	err_n("gather_elements", NULL, 2, (int[]){x, i1}, 1,
	    "same number of dimensions", "indices of another rank");
	err_n("gather_elements", NULL, 2, (int[]){x, i25}, 1,
	    "larger than x outside the axis", "indices wider than x");
	err_n("gather_elements", "{\"axis\": 2}", 2, (int[]){x, i}, 1,
	    "axis 2 is out of range for 2 dimensions", "axis out of range");
	err_n("scatter_elements", NULL, 3, (int[]){x, i, v2}, 1,
	    "must have the same shape", "updates of another shape");
	err_n("scatter_elements", NULL, 3, (int[]){x, i, u64}, 1,
	    "updates are float64, x is float32", "updates of another dtype");
	err_n("scatter_elements", "{\"reduction\": \"sum\"}", 3,
	    (int[]){x, i, u}, 1, "param 'reduction' must be", "an unknown "
	    "reduction");
	err_n("top_k", NULL, 1, &x, 2, "param 'k' is required", "top_k "
	    "without k");
	err_n("top_k", "{\"k\": 5}", 1, &x, 2, "'k': 5 is out of range for "
	    "axis 1 of size 4", "k past the axis");
	err_n("top_k", "{\"k\": 1}", 1, &x, 1, "", "top_k with one output "
	    "name");
	err_n("cumsum", NULL, 1, &xb, 1, "cumsum needs numbers", "cumsum of "
	    "bools");
	err_n("one_hot", "{\"depth\": 0}", 2, (int[]){i, v2}, 1,
	    "'depth': 0, at least 1", "depth 0");
	err_n("one_hot", "{\"depth\": 3}", 2, (int[]){i, v3}, 1,
	    "values must hold 2 elements", "3 values");
	err_n("one_hot", "{\"depth\": 3, \"axis\": 3}", 2, (int[]){i, v2}, 1,
	    "axis 3 is out of range for 3 dimensions", "one_hot axis past "
	    "the new rank");
	err_n("gather_nd", NULL, 2, (int[]){x, i23}, 1,
	    "last dimension must be from 1", "coordinates longer than x's "
	    "rank");
	err_n("gather_nd", "{\"batch_dims\": 1}", 2, (int[]){x, i1}, 1,
	    "out of range", "batch_dims as large as the indices' rank");
	err_n("gather_nd", "{\"batch_dims\": 1}", 2, (int[]){x, i21}, 1,
	    "batch dimensions differ", "batch dimensions differ");
	err_n("scatter_nd", NULL, 3, (int[]){x, i21, v2}, 1,
	    "the updates must have the indices' dimensions", "scatter_nd "
	    "updates of a wrong shape");
}

int
main(void)
{
	g = gp_graph_new("test-index");
	test_cases();
	test_strided();
	test_nan();
	test_wrap();
	test_names_flops();
	test_errors();
	gp_graph_free(g);
	return (done_testing());
}
