/*
 * test-reduce.c: the reductions (sum, prod, max, min, mean, any, all,
 * argmax, argmin) run through their kernels on tiny graphs, in float32 and
 * float64 and in integer types: single, negative and multiple axes,
 * keepdims, numpy's output dtypes, non-contiguous inputs, NaN propagation,
 * accuracy of a long float32 sum, the fast paths against plain loops,
 * names and flops, and every prepare error.
 *
 * X is the (2, 3, 4) tensor with X.flat[i] = ((i*7+3)%11-5)*0.25 (exact
 * in float32).  Expected values were made once with /usr/bin/python3 and
 * numpy 1.24.2:
 *
 *   import numpy as np
 *   def A(n): return np.array([((i*7+3)%11-5)*0.25 for i in range(n)])
 *   X = A(24).reshape(2,3,4)
 *   want_sum_all = X.sum(); want_sum_0 = X.sum(axis=0)
 *   want_sum_1 = X.sum(axis=1); want_sum_m1 = X.sum(axis=-1)
 *   want_sum_02 = X.sum(axis=(0,2)); want_prod_1 = X.prod(axis=1)
 *   want_max_02 = X.max(axis=(0,2), keepdims=True)
 *   want_min_1 = X.min(axis=1, keepdims=True)
 *   want_mean_2 = X.mean(axis=2); want_mean_all = X.mean()
 *   want_any_2 = (X > 0.5).any(axis=2); want_all_2 = (X > -1).all(axis=2)
 *   want_argmax_0/1/2 = X.argmax(axis=0/1/2); want_argmax_flat = X.argmax()
 *   want_argmin_1 = X.argmin(axis=1); want_argmin_flat = X.argmin()
 *   Xi = (X * 4).astype(np.int32)
 *   want_isum_1 = Xi.sum(axis=1)     # int64
 *   want_imean_2 = Xi.mean(axis=2)   # float64
 *   M = A(12).reshape(3,4)
 *   want_t_sum0 = M.T.sum(axis=0); want_t_argmax1 = M.T.argmax(axis=1)
 *   numpy's dtypes: uint8 sum -> uint64, bool sum -> int64, int16 max -> int16
 *   float64(float32(0.1)) * 1e6 = 100000.00149011612
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "graph/op.h"
#include "ops/ops.h"

#include "ops-helpers.h"

static const double want_sum_all[1] = {0.75};
static const double want_sum_0[12] = {0.75, 1.5, -0.5, 0.25, 1.0, -1.0, -0.25,
    0.5, -1.5, -0.75, 0.0, 0.75};
static const double want_sum_1[8] = {0.25, 0.0, -0.25, -0.5, 0.0, -0.25, -0.5,
    2.0};
static const double want_sum_m1[6] = {0.25, 0.75, -1.5, 1.75, -0.5, 0.0};
static const double want_sum_02[3] = {2.0, 0.25, -1.5};
static const double want_prod_1[8] = {0.125, -0.0, -0.125, 0.28125, -0.0,
    -0.125, 0.28125, -0.3125};
static const double want_max_02[3] = {1.25, 1.0, 1.25};
static const double want_min_1[8] = {-0.5, -1.25, -1.0, -0.75, -1.25, -1.0,
    -0.75, -0.25};
static const double want_mean_2[6] = {0.0625, 0.1875, -0.375, 0.4375, -0.125,
    0.0};
static const double want_mean_all[1] = {0.03125};
static const double want_any_2[6] = {1, 1, 0, 1, 1, 1};
static const double want_all_2[6] = {1, 0, 0, 1, 0, 0};
static const double want_argmax_0[12] = {1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1};
static const double want_argmax_1[8] = {1, 0, 2, 1, 0, 2, 1, 2};
static const double want_argmax_2[6] = {1, 0, 2, 0, 2, 3};
static const double want_argmax_flat[1] = {1};
static const double want_argmin_1[8] = {0, 2, 1, 0, 2, 1, 0, 1};
static const double want_argmin_flat[1] = {9};
static const double want_isum_1[8] = {1, 0, -1, -2, 0, -1, -2, 8};
static const double want_imean_2[6] = {0.25, 0.75, -1.5, 1.75, -0.5, 0.0};
static const double want_t_sum0[3] = {0.25, 0.75, -1.5};
static const double want_t_argmax1[4] = {1, 0, 2, 1};

/*
 * Helpers of this test; the shared ones are in ops-helpers.h.
 */

static double
tol_of(enum gp_dtype dt)
{
	return (dt == GP_FLOAT32 ? 1e-6 : 1e-14);
}

/*
 * The tests.
 */

static double
fi(int i)
{
	return ((i * 7 + 3) % 11 - 5);
}

static double
fgt(int i)
{
	return (fa(i) > 0.5);
}

static double
fgtm1(int i)
{
	return (fa(i) > -1);
}

/* element k of M^T (4 x 3) for M = A(12).reshape(3, 4) */
static double
fmt(int k)
{
	return (fa((k % 3) * 4 + k / 3));
}

/* Reduce variable x; check the dtype, the shape (as printed) and values. */
static void
red(const char *op, const char *params, int x, enum gp_dtype dt,
    const char *shape, const double *want, double tol, const char *what)
{
	int ni = node_ok(op, params, 1, &x);
	struct gp_tensor o;

	if (ni < 0)
		return;
	run_check(ni, &o, dt, shape, want, tol, what);
	gp_tensor_release(&o);
}

static void
test_float(enum gp_dtype dt)
{
	int64_t s[3] = {2, 3, 4};
	int x = var_fn(dt, 3, s, fa), bgt = var_fn(dt, 3, s, fgt);
	int bgm = var_fn(dt, 3, s, fgtm1);
	double t = tol_of(dt), xs[24];

	for (int i = 0; i < 24; i++)
		xs[i] = fa(i);

	diag("%s", gp_dtype_name(dt));
	red("sum", NULL, x, dt, "()", want_sum_all, t, "sum over all");
	red("sum", "{\"axis\": 0}", x, dt, "(3, 4)", want_sum_0, t,
	    "sum axis 0");
	red("sum", "{\"axis\": [1]}", x, dt, "(2, 4)", want_sum_1, t,
	    "sum axis [1]");
	red("sum", "{\"axis\": -1}", x, dt, "(2, 3)", want_sum_m1, t,
	    "sum axis -1");
	red("sum", "{\"axis\": [2, 0]}", x, dt, "(3,)", want_sum_02, t,
	    "sum axes [2, 0]");
	red("sum", "{\"axis\": 1, \"keepdims\": true}", x, dt, "(2, 1, 4)",
	    want_sum_1, t, "sum axis 1 keepdims");
	red("sum", "{\"axis\": []}", x, dt, "(2, 3, 4)", xs, 0,
	    "sum over no axes copies");
	red("prod", "{\"axis\": 1}", x, dt, "(2, 4)", want_prod_1, t,
	    "prod axis 1");
	red("max", "{\"axis\": [0, 2], \"keepdims\": true}", x, dt,
	    "(1, 3, 1)", want_max_02, 0, "max axes [0, 2] keepdims");
	red("min", "{\"axis\": -2, \"keepdims\": true}", x, dt, "(2, 1, 4)",
	    want_min_1, 0, "min axis -2 keepdims");
	red("mean", "{\"axis\": 2}", x, dt, "(2, 3)", want_mean_2, t,
	    "mean axis 2");
	red("mean", NULL, x, dt, "()", want_mean_all, t, "mean over all");
	red("any", "{\"axis\": 2}", bgt, GP_BOOL, "(2, 3)", want_any_2, 0,
	    "any axis 2");
	red("all", "{\"axis\": 2}", bgm, GP_BOOL, "(2, 3)", want_all_2, 0,
	    "all axis 2");
	red("argmax", "{\"axis\": 0}", x, GP_INT64, "(3, 4)", want_argmax_0, 0,
	    "argmax axis 0");
	red("argmax", "{\"axis\": 1}", x, GP_INT64, "(2, 4)", want_argmax_1, 0,
	    "argmax axis 1");
	red("argmax", "{\"axis\": -1}", x, GP_INT64, "(2, 3)", want_argmax_2,
	    0, "argmax axis -1");
	red("argmax", "{\"axis\": 1, \"keepdims\": true}", x, GP_INT64,
	    "(2, 1, 4)", want_argmax_1, 0, "argmax axis 1 keepdims");
	red("argmax", NULL, x, GP_INT64, "()", want_argmax_flat, 0,
	    "argmax flattened");
	red("argmin", "{\"axis\": 1}", x, GP_INT64, "(2, 4)", want_argmin_1, 0,
	    "argmin axis 1");
	red("argmin", "{\"axis\": null}", x, GP_INT64, "()", want_argmin_flat,
	    0, "argmin flattened");
}

static double
fu200(int i)
{
	return (200);
}

static double
fbool(int i)
{
	return (i % 3 == 0);
}

static void
test_ints(void)
{
	int64_t s[3] = {2, 3, 4}, s4[1] = {4}, s2[1] = {2};
	int xi = var_fn(GP_INT32, 3, s, fi);
	int u8 = var_fn(GP_UINT8, 1, s4, fu200);
	int bo = var_fn(GP_BOOL, 3, s, fbool);
	int i16 = var_fn(GP_INT16, 3, s, fi);
	int big = var_fn(GP_INT64, 1, s2, NULL);
	int i32 = var_fn(GP_INT32, 1, s2, NULL);
	double w800[1] = {800}, w8[1] = {8}, w0[1] = {0}, w5[1] = {5};
	double wbig[1] = {2147483648.0}, wany[6] = {1, 1, 1, 1, 1, 1};

	((int64_t *)gp_tensor_data(&g->vars[big].value))[0] = (int64_t)1 << 32;
	((int64_t *)gp_tensor_data(&g->vars[big].value))[1] = (int64_t)1 << 32;
	((int32_t *)gp_tensor_data(&g->vars[i32].value))[0] = INT32_MAX;
	((int32_t *)gp_tensor_data(&g->vars[i32].value))[1] = 1;
	red("sum", "{\"axis\": 1}", xi, GP_INT64, "(2, 4)", want_isum_1, 0,
	    "int32 sum is int64");
	red("mean", "{\"axis\": 2}", xi, GP_FLOAT64, "(2, 3)", want_imean_2,
	    1e-15, "int32 mean is float64");
	red("sum", NULL, u8, GP_UINT64, "()", w800, 0,
	    "uint8 sum is uint64 and does not wrap at 256");
	red("sum", NULL, bo, GP_INT64, "()", w8, 0, "bool sum counts, int64");
	red("max", NULL, i16, GP_INT16, "()", w5, 0, "int16 max stays int16");
	red("any", "{\"axis\": 2}", xi, GP_BOOL, "(2, 3)", wany, 0,
	    "any of int32 is bool");
	red("argmax", "{\"axis\": 2}", xi, GP_INT64, "(2, 3)", want_argmax_2,
	    0, "argmax of int32");
	red("prod", NULL, big, GP_INT64, "()", w0, 0,
	    "int64 product wraps modulo 2^64 as numpy (2^32 * 2^32 = 0)");
	red("sum", NULL, i32, GP_INT64, "()", wbig, 0,
	    "int32 sum accumulates in int64 (INT32_MAX + 1)");
}

static void
test_noncontig(enum gp_dtype dt)
{
	int xt = var_transposed(dt, 4, 3, fmt);
	int64_t s5[1] = {5};
	int rv = var_fn(dt, 1, s5, NULL);
	struct gp_tensor *v = &g->vars[rv].value;
	size_t isz = gp_dtype_size(dt);
	double wsum[1] = {0}, warg[1] = {0};

	diag("non-contiguous %s", gp_dtype_name(dt));
	red("sum", "{\"axis\": 0}", xt, dt, "(3,)", want_t_sum0, tol_of(dt),
	    "sum axis 0 of a transposed matrix");
	red("argmax", "{\"axis\": 1}", xt, GP_INT64, "(4,)", want_t_argmax1, 0,
	    "argmax axis 1 of a transposed matrix");
	/* a reversed vector: element i is fa(i), stored backwards */
	for (int i = 0; i < 5; i++) {
		gp_dtype_store(gp_tensor_data(v) + i * (int64_t)isz, dt,
		    fa(4 - i));
		wsum[0] += fa(i);
	}
	warg[0] = 1;	/* fa = -0.5, 1.25, -1.0, 0.75, -1.25 */
	v->offset = 4 * isz;
	v->strides[0] = -(int64_t)isz;
	red("sum", NULL, rv, dt, "()", wsum, tol_of(dt),
	    "sum of a negative-stride vector");
	red("argmax", NULL, rv, GP_INT64, "()", warg, 0,
	    "argmax of a negative-stride vector (copied flat)");
	red("argmax", "{\"axis\": 0}", rv, GP_INT64, "()", warg, 0,
	    "argmax axis 0 of a negative-stride vector");
}

static void
test_nan(void)
{
	int64_t s4[1] = {4}, s32[2] = {3, 2};
	int v = var_fn(GP_FLOAT64, 1, s4, NULL), m = var_fn(GP_FLOAT64, 2, s32,
	    NULL);
	double *d = (double *)gp_tensor_data(&g->vars[v].value);
	double *e = (double *)gp_tensor_data(&g->vars[m].value);
	double nan[1] = {NAN}, one[1] = {1}, col[2] = {1, 2};

	d[0] = 1;
	d[1] = NAN;
	d[2] = 3;
	d[3] = NAN;
	/* columns: [0, NaN, 5] and [1, 2, 7] */
	e[0] = 0;
	e[1] = 1;
	e[2] = NAN;
	e[3] = 2;
	e[4] = 5;
	e[5] = 7;
	red("max", NULL, v, GP_FLOAT64, "()", nan, 0, "max propagates NaN");
	red("min", NULL, v, GP_FLOAT64, "()", nan, 0, "min propagates NaN");
	red("sum", NULL, v, GP_FLOAT64, "()", nan, 0, "sum propagates NaN");
	red("argmax", NULL, v, GP_INT64, "()", one, 0,
	    "argmax gives the first NaN");
	red("argmin", NULL, v, GP_INT64, "()", one, 0,
	    "argmin gives the first NaN");
	red("argmax", "{\"axis\": 0}", m, GP_INT64, "(2,)", col, 0,
	    "argmax axis 0 (column mode) keeps the first NaN");
	{
		double wmax[2] = {NAN, 7};

		red("max", "{\"axis\": 0}", m, GP_FLOAT64, "(2,)", wmax, 0,
		    "max axis 0 (row accumulate) propagates NaN");
	}
}

static double
f01(int i)
{
	return (0.1);
}

static void
test_accuracy(void)
{
	int64_t n[1] = {1000000};
	int x32 = var_fn(GP_FLOAT32, 1, n, f01), x64 = var_fn(GP_FLOAT64, 1, n,
	    f01);
	double w32[1] = {100000.0}, w64[1] = {100000.0}, w01[1] = {0.1};

	/* a float32 running sum would end near 100958 */
	red("sum", NULL, x32, GP_FLOAT32, "()", w32, 1e-7,
	    "sum of 1e6 float32 0.1 rounds once (100000)");
	/* a plain double loop is off by 1.3e-11 relative */
	red("sum", NULL, x64, GP_FLOAT64, "()", w64, 1e-14,
	    "sum of 1e6 float64 0.1 is pairwise-accurate");
	red("mean", NULL, x64, GP_FLOAT64, "()", w01, 1e-14,
	    "mean of 1e6 float64 0.1");
}

static double
frand(int i)
{
	uint32_t h = (uint32_t)i * 2654435761u;

	h ^= h >> 15;
	return ((double)(h % 2001) / 1000.0 - 1.0);
}

/* The contiguous fast paths (last axis, first axis, all) against loops. */
static void
test_fast_paths(void)
{
	enum { R = 300, C = 200 };
	int64_t s[2] = {R, C};
	int x = var_fn(GP_FLOAT64, 2, s, frand);
	static double rows[R], cols[C], rmax[C], all[1];
	static double amax0[C], amax1[R];

	all[0] = 0;
	for (int j = 0; j < C; j++) {
		cols[j] = 0;
		rmax[j] = -INFINITY;
	}
	for (int i = 0; i < R; i++) {
		double bm = -INFINITY;

		rows[i] = 0;
		for (int j = 0; j < C; j++) {
			double v = frand(i * C + j);

			rows[i] += v;
			cols[j] += v;
			all[0] += v;
			if (v > rmax[j]) {
				rmax[j] = v;
				amax0[j] = i;
			}
			if (v > bm) {
				bm = v;
				amax1[i] = j;
			}
		}
	}
	red("sum", "{\"axis\": 1}", x, GP_FLOAT64, "(300,)", rows, 1e-12,
	    "sum over the last axis of a 300x200 matrix");
	red("sum", "{\"axis\": 0}", x, GP_FLOAT64, "(200,)", cols, 1e-12,
	    "sum over the first axis of a 300x200 matrix");
	red("sum", NULL, x, GP_FLOAT64, "()", all, 1e-12,
	    "sum over all of a 300x200 matrix");
	red("max", "{\"axis\": 0}", x, GP_FLOAT64, "(200,)", rmax, 0,
	    "max over the first axis");
	red("argmax", "{\"axis\": 0}", x, GP_INT64, "(200,)", amax0, 0,
	    "argmax over the first axis (column mode)");
	red("argmax", "{\"axis\": 1}", x, GP_INT64, "(300,)", amax1, 0,
	    "argmax over the last axis (row mode)");
}

static void
test_empty(void)
{
	int64_t s[2] = {0, 3};
	int x = var_fn(GP_FLOAT64, 2, s, NULL);
	double z[3] = {0, 0, 0}, one[3] = {1, 1, 1}, nan[3] = {NAN, NAN, NAN};

	red("sum", "{\"axis\": 0}", x, GP_FLOAT64, "(3,)", z, 0,
	    "sum over an empty axis is 0");
	red("prod", "{\"axis\": 0}", x, GP_FLOAT64, "(3,)", one, 0,
	    "prod over an empty axis is 1");
	red("mean", "{\"axis\": 0}", x, GP_FLOAT64, "(3,)", nan, 0,
	    "mean over an empty axis is NaN");
	red("all", "{\"axis\": 0}", x, GP_BOOL, "(3,)", one, 0,
	    "all over an empty axis is true");
	red("max", "{\"axis\": 1}", x, GP_FLOAT64, "(0,)", z, 0,
	    "max along a non-empty axis of an empty input is empty");
}

static void
test_names(void)
{
	int64_t s[3] = {2, 3, 4};
	int x = var_fn(GP_FLOAT64, 3, s, fa), xi = var_fn(GP_INT32, 3, s, fi);
	int ni;

	if ((ni = node_ok("sum", "{\"axis\": 0}", 1, &x)) >= 0) {
		format_is(ni, "Sum{axis=[0]}");
		is_double(gp_node_flops(g, &g->nodes[ni]), 24, 0,
		    "sum flops: one per input element");
		ok(strcmp(g->nodes[ni].op->cls, "CAReduce") == 0 &&
		    g->nodes[ni].impl == GP_IMPL_C, "sum is a C CAReduce");
	}
	if ((ni = node_ok("sum", NULL, 1, &x)) >= 0)
		format_is(ni, "Sum");
	if ((ni = node_ok("max", "{\"axis\": [2, 0], \"keepdims\": true}", 1,
	    &x)) >= 0)
		format_is(ni, "Max{axis=[0, 2], keepdims}");
	if ((ni = node_ok("mean", "{\"keepdims\": true}", 1, &x)) >= 0) {
		format_is(ni, "Mean{keepdims}");
		is_double(gp_node_flops(g, &g->nodes[ni]), 25, 0,
		    "mean flops: elements plus one divide");
	}
	if ((ni = node_ok("argmax", NULL, 1, &x)) >= 0)
		format_is(ni, "Argmax");
	if ((ni = node_ok("argmin", "{\"axis\": -2}", 1, &x)) >= 0)
		format_is(ni, "Argmin{axis=[1]}");
	if ((ni = node_ok("sum", NULL, 1, &xi)) >= 0)
		is_double(gp_node_flops(g, &g->nodes[ni]), 0, 0,
		    "integer sums count no flops");
}

static void
test_errors(void)
{
	int64_t s[3] = {2, 3, 4}, e[2] = {0, 3};
	int x = var_fn(GP_FLOAT64, 3, s, fa), ex = var_fn(GP_FLOAT64, 2, e,
	    NULL);

	expect_err("sum", "{\"axis\": 3}", 1, &x, "axis 3 is out of range",
	    "3 dimensions", "bad axis");
	expect_err("mean", "{\"axis\": [0, -3]}", 1, &x, "repeated", NULL,
	    "repeated axis");
	expect_err("prod", "{\"axis\": \"0\"}", 1, &x, "axis", NULL,
	    "axis of the wrong type");
	expect_err("argmax", "{\"axis\": [0, 1]}", 1, &x, "one axis", NULL,
	    "argmax takes one axis");
	expect_err("argmin", "{\"axis\": -4}", 1, &x, "out of range", NULL,
	    "argmin bad axis");
	expect_err("max", "{\"axis\": 0}", 1, &ex, "empty", "(0, 3)",
	    "max over an empty axis");
	expect_err("argmax", NULL, 1, &ex, "empty", NULL,
	    "argmax of an empty input");
	expect_err("sum", "{\"keepdims\": 1}", 1, &x, "true or false", NULL,
	    "keepdims must be a bool");
	expect_err("sum", "{\"axes\": 1}", 1, &x, "unknown param 'axes'",
	    "axis, keepdims", "unknown param");
}

int
main(void)
{
	g = gp_graph_new("test-reduce");
	test_float(GP_FLOAT32);
	test_float(GP_FLOAT64);
	test_ints();
	test_noncontig(GP_FLOAT32);
	test_noncontig(GP_FLOAT64);
	test_nan();
	test_accuracy();
	test_fast_paths();
	test_empty();
	test_names();
	test_errors();
	gp_graph_free(g);
	return (done_testing());
}
