/*
 * test-nn.c: the nn family (softmax, log_softmax, softmax_grad,
 * crossentropy_categorical_1hot and its gradient) run through the kernels
 * on tiny graphs in float32 and float64: rows of large inputs, transposed
 * and 3-d inputs, integer inputs upgraded to float, out-of-range targets,
 * names and flops, and every prepare error.
 *
 * Expected values were made once with /usr/bin/python3 and numpy 1.24.2:
 *
 *   import numpy as np
 *   def A(n): return np.array([((i*7+3)%11-5)*0.25 for i in range(n)])
 *   def B(n): return np.array([((i*5+1)%9-4)*0.5 for i in range(n)])
 *   def softmax(x):
 *       e = np.exp(x - x.max(axis=-1, keepdims=True))
 *       return e / e.sum(axis=-1, keepdims=True)
 *   def logsoftmax(x):
 *       m = x.max(axis=-1, keepdims=True)
 *       return (x - m) - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))
 *   X = A(12).reshape(3,4)*2; DY = B(12).reshape(3,4); SM = softmax(X)
 *   want_sm = SM; want_lsm = logsoftmax(X)
 *   want_smg = (DY - (DY*SM).sum(axis=-1, keepdims=True)) * SM
 *   y = np.array([2, 0, 3]); g = np.array([1.0, -0.5, 2.0])
 *   want_xent = -np.log(SM[np.arange(3), y])
 *   G = np.zeros_like(SM); G[np.arange(3), y] = -g / SM[np.arange(3), y]
 *   want_xentg = G
 *   want_big = softmax(np.array([[1000., 1001., 1002., 999.]]))
 *   want_lbig = logsoftmax(np.array([[1000., 1001., 1002., 999.]]))
 *   want_smT = softmax(X.T)
 *   want_smi = softmax((A(12).reshape(3,4)*4).astype(np.int32) * 1.0)
 *
 * The scale param's values, with python3's math module (no numpy):
 *
 *   X = [2 * ((i*7+3)%11-5)*0.25 for i in range(12)]
 *   def sm(row, s):
 *       y = [v*s for v in row]; m = max(y); e = [math.exp(v-m) for v in y]
 *       return [v / sum(e) for v in e]
 *   def lsm(row, s):
 *       y = [v*s for v in row]; m = max(y)
 *       return [(v-m) - math.log(sum(math.exp(w-m) for w in y)) for v in y]
 *   want_sm_s = sm(X[0:4], 0.5) + sm(X[4:8], 0.5) + sm(X[8:12], 0.5)
 *   want_lsm_s = lsm(X[0:4], -1.5) + ... (the same rows)
 *
 * Long rows (log_softmax's blocks), many rows (the parallel loop) and a
 * NaN row are checked against the definition computed here in long
 * double with libm's expl and logl, element by element.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "graph/op.h"
#include "ops/ops.h"

#include "ops-helpers.h"

static const double want_sm[12] = {0.025507814878654368, 0.8447028181852957,
    0.11431809514987193, 0.015471271786177958, 0.5681232040593226,
    0.07688711473466031, 0.010405539449861192, 0.344584141756156,
    0.1606798683172233, 0.021745655489133046, 0.7201172096606593,
    0.0974572665329845};
static const double want_lsm[12] = {-3.6687704079392334, -0.16877040793923356,
    -2.1687704079392334, -4.168770407939234, -0.5654169752270998,
    -2.5654169752271, -4.5654169752271, -1.0654169752270999,
    -1.8283412890257247, -3.8283412890257247, -0.32834128902572474,
    -2.3283412890257247};
static const double want_smg[12] = {-0.05650822519852959, 0.24046162863036605,
    -0.1960932476815161, 0.012139844249679666, 0.18149017088286845,
    0.216779810517745, 0.008526878156675872, -0.4067968595572892,
    -0.027376859960074596, -0.04719636607509187, 0.2373640307670875,
    -0.16279080473192117};
static const double want_xent[3] = {2.168770407939234, 0.5654169752270997,
    2.328341289025725};
static const double want_xentg[12] = {0.0, 0.0, -8.747521542315694, 0.0,
    0.88009079091899, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -20.521815059558417};
static const double want_big[4] = {0.08714431874203256, 0.23688281808991016,
    0.6439142598879724, 0.03205860328008498};
static const double want_lbig[4] = {-2.4401896985611953, -1.4401896985611953,
    -0.44018969856119533, -3.4401896985611953};
static const double want_smT[12] = {0.043986480292057845, 0.8834920740271945,
    0.07252144568074777, 0.9184229667642034, 0.07538874796299669,
    0.006188285272800036, 0.3661922162818002, 0.03005888756957402,
    0.6037488961486258, 0.043986480292057845, 0.8834920740271945,
    0.07252144568074777};
static const double want_smi[12] = {0.0008943851241441664, 0.9808123835416462,
    0.01796420543454744, 0.00032902589966220697, 0.7212246461309761,
    0.013209690176190052, 0.0002419439150991564, 0.2653237197777348,
    0.04657286146495953, 0.0008530117126072424, 0.9354409285729488,
    0.01713319824948431};

static const double want_sm_s[12] = {0.1036226104451576, 0.5963069513624032,
    0.21936906803384734, 0.08070137015859187, 0.4382091167752508,
    0.1612081249955106, 0.05930515493564446, 0.341277603293594,
    0.2345391641750664, 0.08628213664954061, 0.49651941445493847,
    0.18265928472045453};
static const double want_lsm_s[12] = {-1.1717533143001249,
    -6.421753314300124, -3.421753314300125, -0.42175331430012475,
    -6.0559202455171, -3.055920245517101, -0.05592024551710067,
    -5.3059202455171, -3.148793910490489, -0.14879391049048907,
    -5.398793910490489, -2.398793910490489};

/*
 * Helpers of this test; the shared ones are in ops-helpers.h.
 */

static double
fb(int i)
{
	return (((i * 5 + 1) % 9 - 4) * 0.5);
}

static double
tol_of(enum gp_dtype dt)
{
	return (dt == GP_FLOAT32 ? 2e-6 : 1e-13);
}

/*
 * The tests.
 */

static double
fx(int i)
{
	return (2 * fa(i));
}

static double
fxt(int k)	/* X.T (4 x 3), C order */
{
	return (fx((k % 3) * 4 + k / 3));
}

static double
fxi(int i)
{
	return (4 * fa(i));
}

/* Run op on inputs; check dtype, shape (as printed) and values. */
static void
nn(const char *op, int nin, const int *in, enum gp_dtype dt,
    const char *shape, const double *want, double tol, const char *what)
{
	int ni = node_ok(op, NULL, nin, in);
	struct gp_tensor o;

	if (ni < 0)
		return;
	run_check(ni, &o, dt, shape, want, tol, what);
	gp_tensor_release(&o);
}

static int
targets(enum gp_dtype dt, int64_t a, int64_t b, int64_t c)
{
	int64_t s[1] = {3};
	int v = var_fn(dt, 1, s, NULL);
	int64_t t[3] = {a, b, c};

	gp_dtype_convert(gp_tensor_data(&g->vars[v].value), dt, t, GP_INT64,
	    sizeof(int64_t), 3);
	return (v);
}

/* Element i of the long-row tests: a few units, irregular. */
static double
frow(int i)
{
	return (((i * 37 + 11) % 101 - 50) * 0.13 + (i % 7) * 0.01);
}

/*
 * op (softmax or log_softmax) with scale sc on rows x k of frow values
 * (with nan_row: element 40 a NaN, so row 1 when k is 37), against the
 * definition in long double: y = x * sc, exp(y - max) / sum, or (y - max)
 * - log(sum).
 */
static void
test_rows(enum gp_dtype dt, int64_t rows, int64_t k, double sc,
    const char *op, const char *what)
{
	int64_t s[2] = {rows, k};
	int x = var_fn(dt, 2, s, frow), ni;
	bool lg = strcmp(op, "log_softmax") == 0, nan_row = k == 37;
	char params[64];
	struct gp_tensor o;
	double tol = dt == GP_FLOAT32 ? 2e-6 : 1e-13, worst = 0;
	int64_t bad = -1;

	if (nan_row)
		gp_dtype_store(gp_tensor_data(&g->vars[x].value) + 40 *
		    (int64_t)gp_dtype_size(dt), dt, NAN);
	snprintf(params, sizeof(params), "{\"scale\": %.17g}", sc);
	if ((ni = node_ok(op, params, 1, &x)) < 0)
		return;
	run(ni, &o);
	for (int64_t r = 0; r < rows; r++) {
		long double m = -INFINITY, sum = 0, y[1024];
		bool has_nan = false;

		for (int64_t i = 0; i < k; i++) {
			y[i] = (long double)gp_tensor_get(&g->vars[x].value,
			    r * k + i) * (dt == GP_FLOAT32 ? (float)sc : sc);
			if (dt == GP_FLOAT32)	/* the product in float */
				y[i] = (float)y[i];
			has_nan |= isnan(y[i]);
			if (y[i] > m)
				m = y[i];
		}
		for (int64_t i = 0; i < k; i++)
			sum += expl(y[i] - m);
		for (int64_t i = 0; i < k; i++) {
			double want = (double)(lg ? (y[i] - m) - logl(sum) :
			    expl(y[i] - m) / sum);
			double got = gp_tensor_get(&o, r * k + i);
			double d = fabs(got - want) / (fabs(want) > 1 ?
			    fabs(want) : 1);

			if (has_nan ? !isnan(got) : !(d <= worst)) {
				if (has_nan || isnan(d)) {
					bad = r * k + i;
					worst = INFINITY;
				} else
					worst = d;
			}
		}
	}
	ok(worst <= tol, "%s %s: %s (worst error %g, element %lld)", op,
	    gp_dtype_name(dt), what, worst, (long long)bad);
	gp_tensor_release(&o);
}

static void
test_float(enum gp_dtype dt)
{
	int64_t s[2] = {3, 4}, s3[1] = {3};
	int x = var_fn(dt, 2, s, fx), dy = var_fn(dt, 2, s, fb);
	int xt = var_transposed(dt, 4, 3, fxt), gy = var_fn(dt, 1, s3, NULL);
	int y = targets(GP_INT32, 2, 0, 3), in[3];
	double t = tol_of(dt);

	diag("%s", gp_dtype_name(dt));
	gp_dtype_store(gp_tensor_data(&g->vars[gy].value), dt, 1);
	gp_dtype_store(gp_tensor_data(&g->vars[gy].value) + gp_dtype_size(dt),
	    dt, -0.5);
	gp_dtype_store(gp_tensor_data(&g->vars[gy].value) +
	    2 * gp_dtype_size(dt), dt, 2);
	nn("softmax", 1, &x, dt, "(3, 4)", want_sm, t, "softmax");
	nn("log_softmax", 1, &x, dt, "(3, 4)", want_lsm, t, "log_softmax");
	nn("softmax", 1, &xt, dt, "(4, 3)", want_smT, t,
	    "softmax of a transposed input");
	/* softmax_grad takes the softmax as its second input */
	{
		int smv = var_fn(dt, 2, s, NULL);

		for (int i = 0; i < 12; i++)
			gp_dtype_store(gp_tensor_data(&g->vars[smv].value) +
			    i * (int64_t)gp_dtype_size(dt), dt, want_sm[i]);
		in[0] = dy;
		in[1] = smv;
		nn("softmax_grad", 2, in, dt, "(3, 4)", want_smg,
		    dt == GP_FLOAT32 ? 1e-6 : 1e-14, "softmax_grad");
		in[0] = smv;
		in[1] = y;
		nn("crossentropy_categorical_1hot", 2, in, dt, "(3,)",
		    want_xent, t, "crossentropy_categorical_1hot");
		in[0] = gy;
		in[1] = smv;
		in[2] = y;
		nn("crossentropy_categorical_1hot_grad", 3, in, dt, "(3, 4)",
		    want_xentg, t, "crossentropy_categorical_1hot_grad");
		/* targets out of range: NaN loss, NaN gradient row */
		in[0] = smv;
		in[1] = targets(GP_INT64, 2, 4, -1);
		{
			double w[3] = {want_xent[0], NAN, NAN};

			nn("crossentropy_categorical_1hot", 2, in, dt, "(3,)",
			    w, t, "targets 4 and -1 (K = 4) give NaN losses");
		}
		in[0] = gy;
		in[1] = smv;
		in[2] = targets(GP_UINT8, 2, 200, 3);
		{
			double w[12];

			memcpy(w, want_xentg, sizeof(w));
			for (int j = 4; j < 8; j++)
				w[j] = NAN;
			nn("crossentropy_categorical_1hot_grad", 3, in, dt,
			    "(3, 4)", w, t, "target 200 gives a NaN gradient "
			    "row, other rows intact");
		}
	}
	/* large inputs: no overflow, rows sum to 1 */
	{
		int64_t s14[2] = {1, 4};
		int big = var_fn(dt, 2, s14, NULL), ni;
		double v[4] = {1000, 1001, 1002, 999};
		struct gp_tensor o;

		for (int j = 0; j < 4; j++)
			gp_dtype_store(gp_tensor_data(&g->vars[big].value) +
			    j * (int64_t)gp_dtype_size(dt), dt, v[j]);
		nn("softmax", 1, &big, dt, "(1, 4)", want_big, t,
		    "softmax of inputs near 1000");
		if ((ni = node_ok("softmax", NULL, 1, &big)) >= 0) {
			double sum = 0;

			run(ni, &o);
			for (int j = 0; j < 4; j++)
				sum += gp_tensor_get(&o, j);
			is_double(sum, 1, dt == GP_FLOAT32 ? 1e-6 : 1e-15,
			    "a row of inputs near 1000 sums to 1");
			gp_tensor_release(&o);
		}
		nn("log_softmax", 1, &big, dt, "(1, 4)", want_lbig,
		    dt == GP_FLOAT32 ? 1e-6 : 1e-15,
		    "log_softmax of inputs near 1000");
	}
	/* rows of 19 (a vector's 8 lanes twice, then 3 more) near 1000 whose
	 * largest value lies in lane 5 of the first 8, in lane 2 of the
	 * next, or in the last 3: each row's maximum found wherever it
	 * lies, or exp overflows and the row is NaN; softmax(x) =
	 * exp(x - max) / sum computed here in double */
	{
		int64_t s319[2] = {3, 19};
		int big = var_fn(dt, 2, s319, NULL), ni;
		static const int at[3] = {5, 10, 17};
		struct gp_tensor o;

		for (int r = 0; r < 3; r++)
			for (int j = 0; j < 19; j++)
				gp_dtype_store(gp_tensor_data(&g->vars[big].value)
				    + (r * 19 + j) * (int64_t)gp_dtype_size(dt),
				    dt, j == at[r] ? 1800 : 1000 + j);
		if ((ni = node_ok("softmax", NULL, 1, &big)) >= 0) {
			double worst = 0;

			run(ni, &o);
			for (int r = 0; r < 3; r++) {
				double sum = 0;

				for (int j = 0; j < 19; j++)
					sum += exp((j == at[r] ? 1800 : 1000 +
					    j) - 1800.0);
				for (int j = 0; j < 19; j++) {
					double w = exp((j == at[r] ? 1800 :
					    1000 + j) - 1800.0) / sum;
					double d = fabs(gp_tensor_get(&o, r *
					    19 + j) - w);

					worst = isnan(worst) || isnan(d) ? NAN :
					    d > worst ? d : worst;
				}
			}
			ok(worst <= 1e-6, "softmax %s: rows of 19 near 1000, "
			    "the largest in a vector's lanes or the last 3 "
			    "(worst error %g)", gp_dtype_name(dt), worst);
			gp_tensor_release(&o);
		}
	}
	/* the scale param: softmax(x * 0.5), log_softmax(x * -1.5) */
	{
		int ni;
		struct gp_tensor o;

		if ((ni = node_ok("softmax", "{\"scale\": 0.5}", 1, &x)) >=
		    0) {
			run_check(ni, &o, dt, "(3, 4)", want_sm_s, t,
			    "softmax{scale=0.5}");
			gp_tensor_release(&o);
		}
		if ((ni = node_ok("log_softmax", "{\"scale\": -1.5}", 1,
		    &x)) >= 0) {
			run_check(ni, &o, dt, "(3, 4)", want_lsm_s,
			    dt == GP_FLOAT32 ? 4e-6 : 1e-13,
			    "log_softmax{scale=-1.5}: a negative scale");
			gp_tensor_release(&o);
		}
	}
	test_rows(dt, 3, 700, 0.01, "softmax", "rows of 700 (log_softmax "
	    "sums its exponentials in blocks)");
	test_rows(dt, 3, 700, 0.01, "log_softmax", "rows of 700");
	test_rows(dt, 256, 160, 0.3, "softmax", "256 rows of 160 (a "
	    "parallel loop)");
	test_rows(dt, 256, 160, 0.3, "log_softmax", "256 rows of 160");
	test_rows(dt, 5, 37, 1, "softmax", "a row with a NaN is NaN, the "
	    "others intact");
	/* a 3-d input: rows along the last axis */
	{
		int64_t s134[3] = {3, 1, 4};
		int x3 = var_fn(dt, 3, s134, fx);

		nn("softmax", 1, &x3, dt, "(3, 1, 4)", want_sm, t,
		    "softmax of a 3-d input runs over the last axis");
	}
}

static void
test_misc(void)
{
	int64_t s[2] = {3, 4};
	int xi = var_fn(GP_INT32, 2, s, fxi), x = var_fn(GP_FLOAT64, 2, s, fx);
	int y = targets(GP_INT64, 2, 0, 3), in[3], ni;

	nn("softmax", 1, &xi, GP_FLOAT64, "(3, 4)", want_smi, 1e-13,
	    "softmax of int32 is float64");
	if ((ni = node_ok("softmax", NULL, 1, &x)) >= 0) {
		format_is(ni, "Softmax");
		is_double(gp_node_flops(g, &g->nodes[ni]), 48, 0,
		    "softmax flops: 4 per element");
	}
	if ((ni = node_ok("softmax", "{\"scale\": 0.125}", 1, &x)) >= 0) {
		format_is(ni, "Softmax{scale=0.125}");
		is_double(gp_node_flops(g, &g->nodes[ni]), 60, 0,
		    "softmax{scale} flops: one more per element");
	}
	if ((ni = node_ok("log_softmax", NULL, 1, &x)) >= 0) {
		format_is(ni, "LogSoftmax");
		is_double(gp_node_flops(g, &g->nodes[ni]), 51, 0,
		    "log_softmax flops: 4 per element and a log per row");
	}
	in[0] = x;
	in[1] = x;
	if ((ni = node_ok("softmax_grad", NULL, 2, in)) >= 0)
		format_is(ni, "SoftmaxGrad");
	in[1] = y;
	if ((ni = node_ok("crossentropy_categorical_1hot", NULL, 2, in)) >= 0) {
		format_is(ni, "CrossentropyCategorical1Hot");
		is_double(gp_node_flops(g, &g->nodes[ni]), 3, 0,
		    "crossentropy flops: one log per row");
	}
	in[0] = var_fn(GP_FLOAT64, 1, s, NULL);
	in[1] = x;
	in[2] = y;
	if ((ni = node_ok("crossentropy_categorical_1hot_grad", NULL, 3,
	    in)) >= 0)
		format_is(ni, "CrossentropyCategorical1HotGrad");
}

static void
test_errors(void)
{
	int64_t s[2] = {3, 4}, s43[2] = {4, 3}, s3[1] = {3}, s2[1] = {2};
	int x = var_fn(GP_FLOAT64, 2, s, fx), x43 = var_fn(GP_FLOAT64, 2, s43,
	    fx);
	int v3 = var_fn(GP_FLOAT64, 1, s3, fx), y2 = var_fn(GP_INT32, 1, s2,
	    NULL);
	int yf = var_fn(GP_FLOAT64, 1, s3, NULL), sc = var_fn(GP_FLOAT64, 0,
	    s, NULL);
	int y = targets(GP_INT32, 0, 1, 2), in[3];

	expect_err("softmax", NULL, 1, &sc, "0-d", NULL,
	    "softmax of a 0-d tensor");
	in[0] = x;
	in[1] = x43;
	expect_err("softmax_grad", NULL, 2, in, "(3, 4)", "(4, 3)",
	    "softmax_grad: a shape mismatch names both shapes");
	in[1] = y2;
	expect_err("crossentropy_categorical_1hot", NULL, 2, in, "(2,)",
	    "(3, 4)", "crossentropy: targets of the wrong length");
	in[1] = yf;
	expect_err("crossentropy_categorical_1hot", NULL, 2, in, "integers",
	    "float64", "crossentropy: float targets refused");
	in[0] = v3;
	in[1] = y;
	expect_err("crossentropy_categorical_1hot", NULL, 2, in, "matrix",
	    NULL, "crossentropy: a vector coding distribution refused");
	in[0] = y2;
	in[1] = x;
	in[2] = y;
	expect_err("crossentropy_categorical_1hot_grad", NULL, 3, in, "(2,)",
	    "(3, 4)", "crossentropy grad: g_nll of the wrong length");
	expect_err("softmax", "{\"axis\": 0}", 1, &x, "unknown param",
	    "scale", "softmax takes no axis (its rows are the last axis)");
	expect_err("softmax", "{\"scale\": 0}", 1, &x, "scale must be",
	    "got 0", "softmax: a scale of 0 refused");
}

int
main(void)
{
	g = gp_graph_new("test-nn");
	test_float(GP_FLOAT32);
	test_float(GP_FLOAT64);
	test_misc();
	test_errors();
	gp_graph_free(g);
	return (done_testing());
}
