/*
 * test-blas.c: the BLAS family (dot, dot22, gemm, gemv, ger) run through
 * their kernels on tiny graphs, in float32 and float64: numpy's dot rules
 * for every rank combination, gemm with beta 0 and not, in-place updates,
 * transposed operands reaching BLAS without a copy, broadcast operands
 * copied (and counted), integer dot, and every prepare error.
 *
 * Inputs are built from the formulas A, B, C below (multiples of 1/4, so
 * every product here is exact in float32 too).  Expected values were made
 * once with /usr/bin/python3 and numpy 1.24.2 by this script:
 *
 *   import numpy as np
 *   def A(n): return np.array([((i*7+3)%11-5)*0.25 for i in range(n)])
 *   def B(n): return np.array([((i*5+1)%9-4)*0.5 for i in range(n)])
 *   def C(n): return np.array([((i*3+2)%7-3)*0.5 for i in range(n)])
 *   X = A(6).reshape(2,3); Y = B(12).reshape(3,4); Z = C(8).reshape(2,4)
 *   v3 = B(3); w3 = A(3); v2 = C(2); v4 = C(4)
 *   want_vv = np.dot(w3, v3); want_mv = np.dot(X, v3)
 *   want_vm = np.dot(v3, Y); want_mm = np.dot(X, Y)
 *   want_gemm = 1.5*np.dot(X, Y) + -0.5*Z; want_gemm0 = 1.5*np.dot(X, Y)
 *   want_gemv = 2.0*np.dot(X, v3) + 0.5*v2
 *   want_ger = Z + 0.75*np.outer(v2, v4)
 *   Xi, Yi = the int32 versions of A and B without the scale factors
 *   want_mm_int = np.dot(Xi, Yi)        # dtype int32
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "graph/op.h"
#include "ops/blas.h"
#include "ops/ops.h"

#include "ops-helpers.h"

static const double want_vv[1] = {1.75};
static const double want_mv[2] = {1.75, 2.125};
static const double want_vm[4] = {1.25, 2.0, 0.5, -3.25};
static const double want_mm[8] = {0.25, 1.625, 0.75, -3.5, 0.625, 1.25, 0.75,
    -3.125};
static const double want_gemm[8] = {0.625, 1.9375, 1.625, -5.5, 1.6875, 1.875,
    0.375, -4.4375};
static const double want_gemm0[8] = {0.375, 2.4375, 1.125, -5.25, 0.9375,
    1.875, 1.125, -4.6875};
static const double want_gemv[2] = {3.25, 4.75};
static const double want_ger[8] = {-0.3125, 0.625, -0.625, 0.3125, -1.875,
    0.75, 0.75, -0.125};
static const double want_mm_int[8] = {2, 13, 6, -28, 5, 10, 6, -25};

/*
 * Helpers of this test; the shared ones are in ops-helpers.h.
 */

static double
fb(int i)
{
	return (((i * 5 + 1) % 9 - 4) * 0.5);
}

static double
fc(int i)
{
	return (((i * 3 + 2) % 7 - 3) * 0.5);
}

static double
tol_of(enum gp_dtype dt)
{
	return (dt == GP_FLOAT32 ? 1e-6 : 1e-14);
}

/*
 * The tests.
 */

static void
test_dot_ranks(enum gp_dtype dt)
{
	const char *dn = gp_dtype_name(dt);
	int64_t s3[1] = {3}, s23[2] = {2, 3}, s34[2] = {3, 4};
	int x = var_fn(dt, 2, s23, fa), y = var_fn(dt, 2, s34, fb);
	int v3 = var_fn(dt, 1, s3, fb), w3 = var_fn(dt, 1, s3, fa);
	int in[2], ni;
	struct gp_tensor o;
	char what[64];

	in[0] = w3;
	in[1] = v3;
	if ((ni = node_ok("dot", NULL, 2, in)) >= 0) {
		run(ni, &o);
		snprintf(what, sizeof(what), "dot vector.vector %s", dn);
		ok(o.ndim == 0 && o.dtype == dt, "%s is a 0-d %s", what, dn);
		check(&o, want_vv, 1, tol_of(dt), what);
		is_double(gp_node_flops(g, &g->nodes[ni]), 6, 0,
		    "dot vector.vector flops 2N");
		ok(g->nodes[ni].impl == GP_IMPL_BLAS, "float dot is BLAS");
		format_is(ni, "dot");
		gp_tensor_release(&o);
	}
	in[0] = x;
	in[1] = v3;
	if ((ni = node_ok("dot", NULL, 2, in)) >= 0) {
		run(ni, &o);
		snprintf(what, sizeof(what), "dot matrix.vector %s", dn);
		ok(o.ndim == 1 && o.shape[0] == 2, "%s shape (2,)", what);
		check(&o, want_mv, 2, tol_of(dt), what);
		gp_tensor_release(&o);
	}
	in[0] = v3;
	in[1] = y;
	if ((ni = node_ok("dot", NULL, 2, in)) >= 0) {
		run(ni, &o);
		snprintf(what, sizeof(what), "dot vector.matrix %s", dn);
		ok(o.ndim == 1 && o.shape[0] == 4, "%s shape (4,)", what);
		check(&o, want_vm, 4, tol_of(dt), what);
		gp_tensor_release(&o);
	}
	in[0] = x;
	in[1] = y;
	if ((ni = node_ok("dot", NULL, 2, in)) >= 0) {
		run(ni, &o);
		snprintf(what, sizeof(what), "dot matrix.matrix %s", dn);
		ok(o.ndim == 2 && o.shape[0] == 2 && o.shape[1] == 4,
		    "%s shape (2, 4)", what);
		check(&o, want_mm, 8, tol_of(dt), what);
		is_double(gp_node_flops(g, &g->nodes[ni]), 2 * 2 * 4 * 3, 0,
		    "dot matrix.matrix flops 2MNK");
		gp_tensor_release(&o);
	}
	if ((ni = node_ok("dot22", NULL, 2, in)) >= 0) {
		run(ni, &o);
		snprintf(what, sizeof(what), "dot22 %s", dn);
		check(&o, want_mm, 8, tol_of(dt), what);
		format_is(ni, "Dot22");
		gp_tensor_release(&o);
	}
}

static void
test_dot_scalar(void)
{
	int64_t s23[2] = {2, 3};
	int m = var_fn(GP_FLOAT64, 2, s23, fa);
	int s = var_scalar(GP_FLOAT64, 2.5), t = var_scalar(GP_FLOAT64, -2);
	int sf = var_scalar(GP_FLOAT32, 4), in[2], ni;
	double want[6], w2[1] = {-5};
	struct gp_tensor o;

	for (int i = 0; i < 6; i++)
		want[i] = 2.5 * fa(i);
	in[0] = s;
	in[1] = m;
	if ((ni = node_ok("dot", NULL, 2, in)) >= 0) {
		run(ni, &o);
		ok(o.ndim == 2 && o.shape[1] == 3, "dot 0-d . matrix keeps "
		    "the matrix shape");
		check(&o, want, 6, 0, "dot 0-d . matrix multiplies");
		gp_tensor_release(&o);
	}
	in[0] = m;
	in[1] = s;
	if ((ni = node_ok("dot", NULL, 2, in)) >= 0) {
		run(ni, &o);
		check(&o, want, 6, 0, "dot matrix . 0-d multiplies");
		gp_tensor_release(&o);
	}
	in[0] = s;
	in[1] = t;
	if ((ni = node_ok("dot", NULL, 2, in)) >= 0) {
		run(ni, &o);
		ok(o.ndim == 0, "dot 0-d . 0-d is 0-d");
		check(&o, w2, 1, 0, "dot 0-d . 0-d");
		gp_tensor_release(&o);
	}
	/* float32 0-d with a float32 vector stays float32 */
	{
		int64_t s3[1] = {3};
		int v = var_fn(GP_FLOAT32, 1, s3, fb);
		double w3[3] = {4 * fb(0), 4 * fb(1), 4 * fb(2)};

		in[0] = v;
		in[1] = sf;
		if ((ni = node_ok("dot", NULL, 2, in)) >= 0) {
			run(ni, &o);
			ok(o.dtype == GP_FLOAT32, "dot float32 . float32 0-d "
			    "is float32");
			check(&o, w3, 3, 0, "dot float32 vector . 0-d");
			gp_tensor_release(&o);
		}
	}
}

static void
test_dot_int(void)
{
	int64_t s23[2] = {2, 3}, s34[2] = {3, 4}, s2[1] = {2};
	int x = var_fn(GP_INT32, 2, s23, NULL), y = var_fn(GP_INT32, 2, s34,
	    NULL);
	int bx = var_fn(GP_BOOL, 1, s2, NULL), by = var_fn(GP_BOOL, 1, s2,
	    NULL);
	int in[2] = {x, y}, ni;
	struct gp_tensor o;

	for (int i = 0; i < 6; i++)
		((int32_t *)gp_tensor_data(&g->vars[x].value))[i] =
		    (i * 7 + 3) % 11 - 5;
	for (int i = 0; i < 12; i++)
		((int32_t *)gp_tensor_data(&g->vars[y].value))[i] =
		    (i * 5 + 1) % 9 - 4;
	if ((ni = node_ok("dot", NULL, 2, in)) >= 0) {
		run(ni, &o);
		ok(o.dtype == GP_INT32, "dot int32 . int32 is int32");
		ok(g->nodes[ni].impl == GP_IMPL_C, "integer dot is a C loop");
		check(&o, want_mm_int, 8, 0, "dot int32 matrix.matrix");
		gp_tensor_release(&o);
	}
	/* bool . bool: [1, 0] . [0, 1] = False, [1, 1] . [0, 1] = True */
	((_Bool *)gp_tensor_data(&g->vars[bx].value))[0] = 1;
	((_Bool *)gp_tensor_data(&g->vars[by].value))[1] = 1;
	in[0] = bx;
	in[1] = by;
	if ((ni = node_ok("dot", NULL, 2, in)) >= 0) {
		double f[1] = {0}, t[1] = {1};

		run(ni, &o);
		ok(o.dtype == GP_BOOL, "dot bool . bool is bool");
		check(&o, f, 1, 0, "dot [1,0] . [0,1] is false");
		gp_tensor_release(&o);
		((_Bool *)gp_tensor_data(&g->vars[bx].value))[1] = 1;
		run(ni, &o);
		check(&o, t, 1, 0, "dot [1,1] . [0,1] is true");
		gp_tensor_release(&o);
	}
}

static void
test_dot_mixed(void)
{
	int64_t s23[2] = {2, 3}, s34[2] = {3, 4};
	int x = var_fn(GP_FLOAT32, 2, s23, fa), y = var_fn(GP_FLOAT64, 2, s34,
	    fb);
	int in[2] = {x, y}, ni;
	struct gp_tensor o;
	uint64_t c0;

	if ((ni = node_ok("dot", NULL, 2, in)) < 0)
		return;
	c0 = gp_blas_copies();
	run(ni, &o);
	ok(o.dtype == GP_FLOAT64, "dot float32 . float64 is float64");
	check(&o, want_mm, 8, 1e-14, "dot float32 . float64 values");
	is_int((long long)(gp_blas_copies() - c0), 1,
	    "the float32 operand is converted: one copy counted");
	gp_tensor_release(&o);
}

static void
test_gemm(enum gp_dtype dt)
{
	const char *dn = gp_dtype_name(dt);
	int64_t s23[2] = {2, 3}, s34[2] = {3, 4}, s24[2] = {2, 4};
	int z = var_fn(dt, 2, s24, fc), x = var_fn(dt, 2, s23, fa);
	int y = var_fn(dt, 2, s34, fb), zn = var_fn(dt, 2, s24, fc);
	int al = var_scalar(dt, 1.5), be = var_scalar(dt, -0.5);
	int b0 = var_scalar(GP_FLOAT64, 0);
	int xt = var_transposed(dt, 2, 3, fa), yt = var_transposed(dt, 3, 4,
	    fb);
	int in[5], ni;
	struct gp_tensor o;
	char what[80];
	uint64_t c0;

	/* Z full of NaN: beta 0 must not read it */
	for (int i = 0; i < 8; i++)
		gp_dtype_store(gp_tensor_data(&g->vars[zn].value) +
		    i * (int64_t)gp_dtype_size(dt), dt, NAN);
	in[0] = z;
	in[1] = al;
	in[2] = x;
	in[3] = y;
	in[4] = be;
	if ((ni = node_ok("gemm", NULL, 5, in)) >= 0) {
		run(ni, &o);
		snprintf(what, sizeof(what), "gemm beta=-0.5 %s", dn);
		check(&o, want_gemm, 8, tol_of(dt), what);
		ok(g->nodes[ni].impl == GP_IMPL_BLAS, "gemm is BLAS");
		is_double(gp_node_flops(g, &g->nodes[ni]),
		    2.0 * 2 * 4 * 3 + 3 * 8, 0, "gemm flops 2MNK + 3MN");
		format_is(ni, "Gemm{no_inplace}");
		ok(g->vars[z].value.storage != o.storage &&
		    gp_tensor_get(&g->vars[z].value, 0) == fc(0),
		    "not in place: Z untouched");
		gp_tensor_release(&o);
	}
	in[0] = zn;
	in[4] = b0;
	if ((ni = node_ok("gemm", NULL, 5, in)) >= 0) {
		run(ni, &o);
		snprintf(what, sizeof(what), "gemm beta=0 ignores a NaN Z %s",
		    dn);
		check(&o, want_gemm0, 8, tol_of(dt), what);
		gp_tensor_release(&o);
	}
	/* transposed X and Y reach BLAS as CblasTrans: no copy */
	in[0] = z;
	in[2] = xt;
	in[3] = yt;
	in[4] = be;
	if ((ni = node_ok("gemm", NULL, 5, in)) >= 0) {
		c0 = gp_blas_copies();
		run(ni, &o);
		snprintf(what, sizeof(what), "gemm with transposed X and Y %s",
		    dn);
		check(&o, want_gemm, 8, tol_of(dt), what);
		is_int((long long)(gp_blas_copies() - c0), 0,
		    "transposed operands are not copied");
		gp_tensor_release(&o);
	}
	/* in place: the output is Z itself */
	in[2] = x;
	in[3] = y;
	if ((ni = node_ok("gemm", NULL, 5, in)) >= 0) {
		struct gp_node *n = &g->nodes[ni];
		struct gp_tensor zv = {0}, *ins[5], *outs[1] = {&zv};

		n->destroy[0] = 0;
		format_is(ni, "Gemm{inplace}[(0, 0)]");
		for (int k = 0; k < 5; k++)
			ins[k] = &g->vars[n->in[k]].value;
		gp_tensor_view(&zv, ins[0]);
		n->kernel(n, ins, outs);
		snprintf(what, sizeof(what), "gemm in place writes Z %s", dn);
		check(&g->vars[z].value, want_gemm, 8, tol_of(dt), what);
		gp_tensor_release(&zv);
	}
	/* in place into a column-major Z: computed as the transposed product,
	 * still no copy */
	{
		int zt = var_transposed(dt, 2, 4, fc);

		in[0] = zt;
		if ((ni = node_ok("gemm", NULL, 5, in)) >= 0) {
			struct gp_node *n = &g->nodes[ni];
			struct gp_tensor zv = {0}, *ins[5], *outs[1] = {&zv};

			n->destroy[0] = 0;
			for (int k = 0; k < 5; k++)
				ins[k] = &g->vars[n->in[k]].value;
			gp_tensor_view(&zv, ins[0]);
			c0 = gp_blas_copies();
			n->kernel(n, ins, outs);
			snprintf(what, sizeof(what), "gemm in place into a "
			    "column-major Z %s", dn);
			check(&g->vars[zt].value, want_gemm, 8, tol_of(dt),
			    what);
			is_int((long long)(gp_blas_copies() - c0), 0,
			    "a column-major output is not copied");
			gp_tensor_release(&zv);
		}
	}
	/* in place into a Z BLAS cannot address (every other column of a
	 * (2, 8) block): computed aside and copied back, the columns in
	 * between untouched */
	{
		int64_t s28[2] = {2, 8};
		int zs = var_fn(dt, 2, s28, NULL);
		struct gp_tensor *v = &g->vars[zs].value;
		size_t isz = gp_dtype_size(dt);
		bool kept = true;

		for (int i = 0; i < 16; i++)
			gp_dtype_store(gp_tensor_data(v) + i * (int64_t)isz, dt,
			    i % 2 ? 100 + i : fc(i / 2));
		g->vars[zs].type.shape[1] = 4;
		v->shape[1] = 4;
		v->strides[1] = 2 * (int64_t)isz;
		in[0] = zs;
		if ((ni = node_ok("gemm", NULL, 5, in)) >= 0) {
			struct gp_node *n = &g->nodes[ni];
			struct gp_tensor zv = {0}, *ins[5], *outs[1] = {&zv};

			n->destroy[0] = 0;
			for (int k = 0; k < 5; k++)
				ins[k] = &g->vars[n->in[k]].value;
			gp_tensor_view(&zv, ins[0]);
			c0 = gp_blas_copies();
			n->kernel(n, ins, outs);
			snprintf(what, sizeof(what), "gemm in place into a Z of "
			    "column stride 2 %s", dn);
			check(v, want_gemm, 8, tol_of(dt), what);
			is_int((long long)(gp_blas_copies() - c0), 1,
			    "an output BLAS cannot address is one copy");
			for (int i = 1; i < 16; i += 2)
				if (gp_dtype_load(gp_tensor_data(v) + i *
				    (int64_t)isz, dt) != 100 + i)
					kept = false;
			ok(kept, "the columns between are untouched");
			gp_tensor_release(&zv);
		}
	}
	/* a broadcast X (stride 0 rows) must be copied, and counted */
	{
		int64_t s13[2] = {1, 3};
		int xb = var_fn(dt, 2, s23, NULL);
		struct gp_tensor *v = &g->vars[xb].value, row = {0};
		double want[8];

		gp_tensor_alloc(&row, dt, 2, s13);
		for (int j = 0; j < 3; j++)
			gp_dtype_store(gp_tensor_data(&row) + j *
			    (int64_t)gp_dtype_size(dt), dt, fa(j));
		gp_tensor_view(v, &row);
		v->shape[0] = 2;
		v->strides[0] = 0;
		gp_tensor_release(&row);
		/* want_mm row 0 is X row 0 . Y; both rows of xb are X row 0 */
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 4; j++)
				want[i * 4 + j] = 1.5 * want_mm[j] -
				    0.5 * fc(i * 4 + j);
		in[0] = var_fn(dt, 2, s24, fc);	/* z was updated in place */
		in[2] = xb;
		in[3] = y;
		if ((ni = node_ok("gemm", NULL, 5, in)) >= 0) {
			c0 = gp_blas_copies();
			run(ni, &o);
			snprintf(what, sizeof(what), "gemm with a broadcast X "
			    "%s", dn);
			check(&o, want, 8, tol_of(dt), what);
			is_int((long long)(gp_blas_copies() - c0), 1,
			    "a broadcast operand is copied once");
			gp_tensor_release(&o);
		}
	}
}

/* A rows x cols input whose elements lie 2 apart along dimension d (a
 * view of every other element of a larger block). */
static int
var_spread(enum gp_dtype dt, int64_t rows, int64_t cols, int d,
    double (*f)(int))
{
	int64_t big[2] = {d == 0 ? 2 * rows : rows, d == 1 ? 2 * cols : cols};
	int idx = var_fn(dt, 2, big, NULL);
	struct gp_tensor *v = &g->vars[idx].value;

	v->shape[0] = rows;
	v->shape[1] = cols;
	if (d == 0)
		v->strides[0] *= 2;
	else
		v->strides[1] *= 2;
	g->vars[idx].type.shape[0] = rows;
	g->vars[idx].type.shape[1] = cols;
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++)
			gp_dtype_store(gp_tensor_data(v) + i * v->strides[0] +
			    j * v->strides[1], dt, f((int)(i * cols + j)));
	return (idx);
}

/*
 * gemm of one row or one column of Z (a classifier's 1 x K . K x N): a
 * gemv on BLAS's side (large: in slices over the threads), with X and Y
 * plain, stored transposed, or with
 * their elements 2 apart (X along its row, Y down its column: the
 * vector's increment); values from a loop here.
 */
static void
test_gemm_vec(enum gp_dtype dt)
{
	/* the last two large enough (M N or N K >= 2^18) for the gemv to be
	 * split over the kernels' threads (ops/blas.c, gemv_par) */
	static const int64_t shapes[][3] = {{1, 5, 7}, {4, 1, 7}, {1, 1, 7},
	    {1, 300, 40}, {1, 1000, 300}, {700, 1, 400}};

	for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
		int64_t m = shapes[si][0], nn = shapes[si][1], k = shapes[si][2];
		int64_t sz[2] = {m, nn}, sx[2] = {m, k}, sy[2] = {k, nn};

		for (int tr = 0; tr < 6; tr++) {
			int x = tr == 4 ? var_spread(dt, m, k, 1, fa) : tr & 1 ?
			    var_transposed(dt, m, k, fa) : var_fn(dt, 2, sx, fa);
			int y = tr == 5 ? var_spread(dt, k, nn, 0, fb) :
			    tr & 2 && tr < 4 ? var_transposed(dt, k, nn, fb) :
			    var_fn(dt, 2, sy, fb);
			int in[5] = {var_fn(dt, 2, sz, fc), var_scalar(dt, 1.5),
			    x, y, var_scalar(dt, -0.5)}, ni;
			double *want = malloc(sizeof(double) * (size_t)(m *
			    nn));
			struct gp_tensor o;
			char what[120];

			for (int64_t i = 0; i < m; i++)
				for (int64_t j = 0; j < nn; j++) {
					double acc = 0;

					for (int64_t q = 0; q < k; q++)
						acc += fa((int)(i * k + q)) *
						    fb((int)(q * nn + j));
					want[i * nn + j] = 1.5 * acc - 0.5 *
					    fc((int)(i * nn + j));
				}
			snprintf(what, sizeof(what), "gemm %lld x %lld x %lld, "
			    "X %s, Y %s %s", (long long)m, (long long)k,
			    (long long)nn, tr == 4 ? "2 apart" : tr & 1 ?
			    "transposed" : "plain", tr == 5 ? "2 apart" : tr &
			    2 && tr < 4 ? "transposed" : "plain",
			    gp_dtype_name(dt));
			if ((ni = node_ok("gemm", NULL, 5, in)) >= 0) {
				run(ni, &o);
				check(&o, want, m * nn, tol_of(dt) * k, what);
				gp_tensor_release(&o);
			}
			free(want);
		}
	}
}

static void
test_gemv(enum gp_dtype dt)
{
	const char *dn = gp_dtype_name(dt);
	int64_t s23[2] = {2, 3}, s3[1] = {3}, s2[1] = {2};
	int y = var_fn(dt, 1, s2, fc), a = var_fn(dt, 2, s23, fa);
	int x = var_fn(dt, 1, s3, fb), al = var_scalar(dt, 2);
	int be = var_scalar(dt, 0.5), at = var_transposed(dt, 2, 3, fa);
	int xr = var_fn(dt, 1, s3, NULL);
	int in[5] = {y, al, a, x, be}, ni;
	struct gp_tensor o;
	char what[80];
	uint64_t c0;

	if ((ni = node_ok("gemv", NULL, 5, in)) >= 0) {
		run(ni, &o);
		snprintf(what, sizeof(what), "gemv %s", dn);
		check(&o, want_gemv, 2, tol_of(dt), what);
		format_is(ni, "Gemv{no_inplace}");
		is_double(gp_node_flops(g, &g->nodes[ni]), 2 * 2 * 3 + 3 * 2,
		    0, "gemv flops 2MN + 3M");
		gp_tensor_release(&o);
	}
	/* a transposed A and a reversed x (negative stride): no copy */
	{
		struct gp_tensor *v = &g->vars[xr].value;
		size_t isz = gp_dtype_size(dt);

		for (int i = 0; i < 3; i++)
			gp_dtype_store(gp_tensor_data(v) + i * (int64_t)isz,
			    dt, fb(2 - i));
		v->offset = 2 * isz;
		v->strides[0] = -(int64_t)isz;
	}
	in[2] = at;
	in[3] = xr;
	if ((ni = node_ok("gemv", NULL, 5, in)) >= 0) {
		c0 = gp_blas_copies();
		run(ni, &o);
		snprintf(what, sizeof(what), "gemv with transposed A, reversed "
		    "x %s", dn);
		check(&o, want_gemv, 2, tol_of(dt), what);
		is_int((long long)(gp_blas_copies() - c0), 0,
		    "gemv: transposed A and negative-stride x are not copied");
		gp_tensor_release(&o);
	}
	/* in place on y */
	in[2] = a;
	in[3] = x;
	if ((ni = node_ok("gemv", NULL, 5, in)) >= 0) {
		struct gp_node *n = &g->nodes[ni];
		struct gp_tensor yv = {0}, *ins[5], *outs[1] = {&yv};

		n->destroy[0] = 0;
		for (int k = 0; k < 5; k++)
			ins[k] = &g->vars[n->in[k]].value;
		gp_tensor_view(&yv, ins[0]);
		n->kernel(n, ins, outs);
		snprintf(what, sizeof(what), "gemv in place writes y %s", dn);
		check(&g->vars[y].value, want_gemv, 2, tol_of(dt), what);
		gp_tensor_release(&yv);
	}
}

static void
test_ger(enum gp_dtype dt)
{
	const char *dn = gp_dtype_name(dt);
	int64_t s24[2] = {2, 4}, s2[1] = {2}, s4[1] = {4};
	int a = var_fn(dt, 2, s24, fc), al = var_scalar(dt, 0.75);
	int x = var_fn(dt, 1, s2, fc), y = var_fn(dt, 1, s4, fc);
	int at = var_transposed(dt, 2, 4, fc);
	int in[4] = {a, al, x, y}, ni;
	struct gp_tensor o;
	char what[80];
	uint64_t c0;

	if ((ni = node_ok("ger", NULL, 4, in)) >= 0) {
		run(ni, &o);
		snprintf(what, sizeof(what), "ger %s", dn);
		check(&o, want_ger, 8, tol_of(dt), what);
		format_is(ni, "Ger{non-destructive}");
		ok(gp_tensor_get(&g->vars[a].value, 1) == fc(1),
		    "ger not in place leaves A");
		gp_tensor_release(&o);
	}
	in[0] = at;
	if ((ni = node_ok("ger", NULL, 4, in)) >= 0) {
		struct gp_node *n = &g->nodes[ni];
		struct gp_tensor av = {0}, *ins[4], *outs[1] = {&av};

		n->destroy[0] = 0;
		format_is(ni, "Ger{destructive}[(0, 0)]");
		for (int k = 0; k < 4; k++)
			ins[k] = &g->vars[n->in[k]].value;
		gp_tensor_view(&av, ins[0]);
		c0 = gp_blas_copies();
		n->kernel(n, ins, outs);
		snprintf(what, sizeof(what), "ger in place on a column-major "
		    "A %s", dn);
		check(&g->vars[at].value, want_ger, 8, tol_of(dt), what);
		is_int((long long)(gp_blas_copies() - c0), 0,
		    "ger: column-major A is not copied");
		gp_tensor_release(&av);
	}
}

static void
test_errors(void)
{
	int64_t s23[2] = {2, 3}, s42[2] = {4, 2}, s3[1] = {3}, s4[1] = {4};
	int64_t s222[3] = {2, 2, 2}, s24[2] = {2, 4}, s34[2] = {3, 4};
	int m23 = var_fn(GP_FLOAT64, 2, s23, fa);
	int m42 = var_fn(GP_FLOAT64, 2, s42, fa);
	int v4 = var_fn(GP_FLOAT64, 1, s4, fa);
	int v3 = var_fn(GP_FLOAT64, 1, s3, fa);
	int t3 = var_fn(GP_FLOAT64, 3, s222, fa);
	int z = var_fn(GP_FLOAT64, 2, s23, fa);
	int y34 = var_fn(GP_FLOAT64, 2, s34, fa);
	int z24f = var_fn(GP_FLOAT32, 2, s24, fa);
	int i23 = var_fn(GP_INT32, 2, s23, fa);
	int sc = var_scalar(GP_FLOAT64, 1);
	int in[5];

	in[0] = m23;
	in[1] = m42;
	expect_err("dot", NULL, 2, in, "(2, 3)", "(4, 2)",
	    "dot: a shape mismatch names both shapes");
	in[1] = v4;
	expect_err("dot", NULL, 2, in, "(4,)", "not aligned",
	    "dot: matrix . vector mismatch");
	in[0] = v3;
	expect_err("dot", NULL, 2, in, "(3,)", "(4,)",
	    "dot: vector . vector length mismatch");
	in[0] = t3;
	in[1] = m23;
	expect_err("dot", NULL, 2, in, "(2, 2, 2)", "more than 2",
	    "dot: 3-d operands refused");
	in[0] = i23;
	in[1] = y34;
	expect_err("dot22", NULL, 2, in, "float32 or float64", "int32",
	    "dot22: integer operand refused");
	/* gemm: Z (2, 3) but X.Y is (2, 4) */
	in[0] = z;
	in[1] = sc;
	in[2] = m23;
	in[3] = y34;
	in[4] = sc;
	expect_err("gemm", NULL, 5, in, "(2, 3)", "(2, 4)",
	    "gemm: Z and X.Y shapes named");
	in[0] = z24f;
	expect_err("gemm", NULL, 5, in, "float64", "float32",
	    "gemm: mixed dtypes refused");
	in[0] = z;
	in[1] = v3;
	expect_err("gemm", NULL, 5, in, "alpha", "0-d",
	    "gemm: alpha must be 0-d");
	in[1] = sc;
	in[3] = m42;
	expect_err("gemm", NULL, 5, in, "(2, 3)", "(4, 2)",
	    "gemm: X and Y not aligned");
	/* gemv: A (2, 3) with x (4,) */
	in[0] = var_fn(GP_FLOAT64, 1, s23, fa);
	in[2] = m23;
	in[3] = v4;
	expect_err("gemv", NULL, 5, in, "(2, 3)", "(4,)",
	    "gemv: A and x not aligned");
	/* ger: A (2, 3) with x (3,), y (4,) */
	in[0] = m23;
	in[1] = sc;
	in[2] = v3;
	in[3] = v4;
	expect_err("ger", NULL, 4, in, "(2, 3)", "(3, 4)",
	    "ger: A and outer(x, y) shapes named");
	expect_err("ger", NULL, 3, in, "takes 4 inputs", NULL,
	    "ger: arity checked");
	expect_err("dot", "{\"axis\": 1}", 2, in, "unknown param 'axis'",
	    NULL, "dot: params refused");
}

int
main(void)
{
	g = gp_graph_new("test-blas");
	test_dot_ranks(GP_FLOAT32);
	test_dot_ranks(GP_FLOAT64);
	test_dot_scalar();
	test_dot_int();
	test_dot_mixed();
	test_gemm(GP_FLOAT32);
	test_gemm(GP_FLOAT64);
	test_gemm_vec(GP_FLOAT32);
	test_gemm_vec(GP_FLOAT64);
	test_gemv(GP_FLOAT32);
	test_gemv(GP_FLOAT64);
	test_ger(GP_FLOAT32);
	test_ger(GP_FLOAT64);
	test_errors();
	gp_graph_free(g);
	return (done_testing());
}
