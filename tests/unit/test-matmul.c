/*
 * test-matmul.c: the matmul op (src/ops/matmul.c) against numpy: every
 * case of tests/data/matmul/matmul.json (made by
 * tests/data/matmul/make-cases.py with numpy's matmul, in float64 from
 * exact float32 inputs) runs through the kernel in float32 and float64.
 * Then: transposed and strided views reach BLAS without a copy (the
 * count of gp_blas_copies stays) and give the contiguous operands'
 * values, the output overlapping an operand, Op names, flop counts and
 * the prepare errors.  And param packed (gemm_pack's, with y packed into
 * input P): the values ops/conv-gemm.c's micro-kernel gives, bit for bit
 * (so the packed path ran), alpha and a bias after it, a (197, 1, K)
 * view's rows, and a layout it cannot take (x's rows stepping) through
 * BLAS on y.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "graph/op.h"
#include "ops/blas.h"
#include "ops/conv-gemm.h"
#include "ops/ops.h"

#include "ops-helpers.h"

static double
fx2(int i)
{
	return (fa(i) + 0.125 * (i % 5));
}

static double
tol_of(enum gp_dtype dt)
{
	return (dt == GP_FLOAT32 ? 1e-6 : 1e-14);
}

/* Every case of tests/data/matmul/matmul.json, in float32 and float64. */
static void
test_cases(void)
{
	int ran, n = run_json_cases("tests/data/matmul/matmul.json",
	    "matmul", tol_of(GP_FLOAT32), tol_of(GP_FLOAT64), &ran);

	if (n >= 0)
		ok(n >= 19 && ran == n, "%d cases ran in each dtype", ran);
}

/* The value of a permuted view: dims of t reordered by perm (a view of
 * the same storage). */
static void
permute(struct gp_tensor *t, const int *perm)
{
	struct gp_tensor s = *t;

	for (int d = 0; d < t->ndim; d++) {
		t->shape[d] = s.shape[perm[d]];
		t->strides[d] = s.strides[perm[d]];
	}
}

/*
 * The attention's forms: Q (4, 6, 5) a transposed view of a (6, 4, 5)
 * block, K^T (4, 5, 6) a view (perm 1, 2, 0) of a (6, 4, 5) block: every
 * matrix reaches BLAS where it lies (no copy), and the values are those of
 * the same product on contiguous copies (checked against numpy above).
 */
static void
test_views(void)
{
	int64_t s3[3] = {6, 4, 5}, c1[3] = {4, 6, 5}, c2[3] = {4, 5, 6};
	int perm1[3] = {1, 0, 2}, perm2[3] = {1, 2, 0};
	int q = var_fn(GP_FLOAT32, 3, s3, fa), k = var_fn(GP_FLOAT32, 3, s3,
	    fa);
	int qc = var_fn(GP_FLOAT32, 3, c1, NULL), kc = var_fn(GP_FLOAT32, 3,
	    c2, NULL);
	struct gp_tensor *tq = &g->vars[q].value, *tk = &g->vars[k].value;
	struct gp_tensor a, b;
	double want[4 * 6 * 6];
	uint64_t copies;
	int in[2], ni;

	/* the views (types changed to the views' shapes, then copies) */
	permute(tq, perm1);
	permute(tk, perm2);
	g->vars[q].type.shape[0] = 4;
	g->vars[q].type.shape[1] = 6;
	g->vars[k].type.shape[0] = 4;
	g->vars[k].type.shape[1] = 5;
	g->vars[k].type.shape[2] = 6;
	gp_tensor_copy_into(&g->vars[qc].value, tq);
	gp_tensor_copy_into(&g->vars[kc].value, tk);
	in[0] = qc;
	in[1] = kc;
	ni = node_ok("matmul", NULL, 2, in);
	run(ni, &a);
	for (int i = 0; i < 4 * 6 * 6; i++)
		want[i] = gp_tensor_get(&a, i);
	in[0] = q;
	in[1] = k;
	ni = node_ok("matmul", NULL, 2, in);
	copies = gp_blas_copies();
	run(ni, &b);
	ok(gp_blas_copies() == copies, "transposed views: no copy (%llu)",
	    (unsigned long long)(gp_blas_copies() - copies));
	check(&b, want, 4 * 6 * 6, 0, "transposed views: the values of the "
	    "contiguous operands");
	gp_tensor_release(&a);
	gp_tensor_release(&b);
}

/* [B, M, K] x [K, N] folds into one gemm; a batch whose x is strided per
 * batch (every other matrix of a block) does not fold but still reads x
 * where it lies. */
static void
test_fold(void)
{
	int64_t xs[3] = {3, 4, 5}, ys[2] = {5, 2}, bs[3] = {6, 4, 5};
	int x = var_fn(GP_FLOAT64, 3, xs, fa), y = var_fn(GP_FLOAT64, 2, ys,
	    fx2), xb = var_fn(GP_FLOAT64, 3, bs, NULL), in[2] = {x, y}, ni;
	struct gp_tensor *t = &g->vars[xb].value, a, b;
	double want[3 * 4 * 2];
	uint64_t copies;

	ni = node_ok("matmul", NULL, 2, in);
	run(ni, &a);
	for (int i = 0; i < 3; i++)
		for (int r = 0; r < 4; r++)
			for (int c = 0; c < 2; c++) {
				double s = 0;

				for (int kk = 0; kk < 5; kk++)
					s += fa(i * 20 + r * 5 + kk) *
					    fx2(kk * 2 + c);
				want[(i * 4 + r) * 2 + c] = s;
			}
	check(&a, want, 24, 1e-15, "3d x 2d (folded into one gemm): the "
	    "sums computed here");
	/* xb: matrices 0, 2, 4 of a (6, 4, 5) block hold x */
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 20; j++)
			((double *)gp_tensor_data(t))[i * 40 + j] =
			    fa(i * 20 + j);
	t->shape[0] = 3;
	t->strides[0] *= 2;
	g->vars[xb].type.shape[0] = 3;
	in[0] = xb;
	ni = node_ok("matmul", NULL, 2, in);
	copies = gp_blas_copies();
	run(ni, &b);
	ok(gp_blas_copies() == copies, "every other matrix: no copy");
	check(&b, want, 24, 1e-15, "every other matrix: the same values");
	gp_tensor_release(&a);
	gp_tensor_release(&b);
	/* x (3, 1, 5), the view (perm 1, 0, 2) of a (1, 3, 5) block (the
	 * transformer's input): single rows whose own stride is the block's
	 * size; the batch still folds, without a copy */
	{
		int64_t s1[3] = {1, 3, 5}, s2[3] = {3, 1, 5};
		int xr = var_fn(GP_FLOAT64, 3, s1, fa), xc = var_fn(GP_FLOAT64,
		    3, s2, fa);
		int perm[3] = {1, 0, 2};
		struct gp_tensor c;
		double w2[3 * 2];

		permute(&g->vars[xr].value, perm);
		memcpy(g->vars[xr].type.shape, s2, sizeof(s2));
		in[0] = xc;
		ni = node_ok("matmul", NULL, 2, in);
		run(ni, &a);
		for (int i = 0; i < 6; i++)
			w2[i] = gp_tensor_get(&a, i);
		in[0] = xr;
		ni = node_ok("matmul", NULL, 2, in);
		copies = gp_blas_copies();
		run(ni, &c);
		ok(gp_blas_copies() == copies, "(3, 1, 5) view: no copy");
		check(&c, w2, 6, 0, "(3, 1, 5) view: the contiguous x's values");
		gp_tensor_release(&a);
		gp_tensor_release(&c);
	}
}

/* The output may share storage with an operand (a rewrite's in-place
 * plan never asks it, the kernel must still be right): computed aside. */
static void
test_overlap(void)
{
	int64_t s[3] = {2, 3, 3};
	int x = var_fn(GP_FLOAT64, 3, s, fa), y = var_fn(GP_FLOAT64, 3, s,
	    fx2), in[2] = {x, y}, ni;
	struct gp_tensor a, *outs[1], *ins[2];
	struct gp_tensor xc;
	double want[18];

	ni = node_ok("matmul", NULL, 2, in);
	run(ni, &a);
	for (int i = 0; i < 18; i++)
		want[i] = gp_tensor_get(&a, i);
	gp_tensor_copy(&xc, &g->vars[x].value);
	ins[0] = &xc;
	ins[1] = &g->vars[y].value;
	outs[0] = &xc;
	g->nodes[ni].kernel(&g->nodes[ni], ins, outs);
	check(&xc, want, 18, 0, "output over x: the same values");
	gp_tensor_release(&xc);
	gp_tensor_release(&a);
}

/*
 * A Linear layer's bias (one value per column) on many rows: the rows'
 * loop runs over the OpenMP threads (256 x 160 elements); each element
 * against its dot product and bias summed here in long double.
 */
static void
test_bias_rows(void)
{
	int64_t sx[2] = {256, 8}, sy[2] = {8, 160}, sb[1] = {160};
	int x = var_fn(GP_FLOAT32, 2, sx, fa), y = var_fn(GP_FLOAT32, 2, sy,
	    fx2), b = var_fn(GP_FLOAT32, 1, sb, fx2), in[3] = {x, y, b}, ni;
	struct gp_tensor o;
	double worst = 0;

	if ((ni = node_ok("matmul", NULL, 3, in)) < 0)
		return;
	run(ni, &o);
	for (int64_t i = 0; i < 256; i++)
		for (int64_t j = 0; j < 160; j++) {
			long double d = gp_tensor_get(&g->vars[b].value, j);
			double got = gp_tensor_get(&o, i * 160 + j), e;

			for (int64_t k = 0; k < 8; k++)
				d += (long double)gp_tensor_get(
				    &g->vars[x].value, i * 8 + k) *
				    gp_tensor_get(&g->vars[y].value, k * 160 + j);
			e = fabs(got - (double)d) / (fabsl(d) > 1 ?
			    (double)fabsl(d) : 1);
			if (!(e <= worst))
				worst = isnan(e) ? INFINITY : e;
		}
	ok(worst <= 1e-6, "matmul(x, y, b): a bias per column on 256 rows of "
	    "160 (a parallel loop): worst error %g", worst);
	gp_tensor_release(&o);
}

/* A batch of small matrices, over the threads (batch_par: 2048 gemms of
 * 9 x 32 . 32 x 7, 2^22 multiply-adds in all), y broadcast over the first batch dimension or not, and
 * a bias of the trailing (3, 9, 7) block repeated over the first: every
 * value against the sums computed here. */
static void
test_batch_bias(void)
{
	for (int bc = 0; bc < 2; bc++) {
		int64_t sx[4] = {1024, 2, 9, 32}, sy[4] = {1024, 2, 32, 7};
		int64_t sb[4] = {1, 2, 9, 7};
		int x = var_fn(GP_FLOAT32, 4, sx, fa);
		int y = bc ? var_fn(GP_FLOAT32, 3, sy + 1, fx2) :
		    var_fn(GP_FLOAT32, 4, sy, fx2);
		int b = var_fn(GP_FLOAT32, 4, sb, fx2), in[3] = {x, y, b}, ni;
		struct gp_tensor o;
		double worst = 0;

		if ((ni = node_ok("matmul", NULL, 3, in)) < 0)
			return;
		run(ni, &o);
		for (int64_t i = 0; i < 1024 * 2; i++)
			for (int64_t r = 0; r < 9; r++)
				for (int64_t c = 0; c < 7; c++) {
					int64_t yi = bc ? i % 2 : i;
					long double d = gp_tensor_get(
					    &g->vars[b].value, (i % 2) * 63 +
					    r * 7 + c);
					double got = gp_tensor_get(&o, i * 63 +
					    r * 7 + c), e;

					for (int64_t k = 0; k < 32; k++)
						d += (long double)gp_tensor_get(
						    &g->vars[x].value, i * 288 +
						    r * 32 + k) * gp_tensor_get(
						    &g->vars[y].value, yi * 224 +
						    k * 7 + c);
					e = fabs(got - (double)d) /
					    (fabsl(d) > 1 ? (double)fabsl(d) :
					    1);
					if (!(e <= worst))
						worst = isnan(e) ? INFINITY : e;
				}
		ok(worst <= 1e-6, "matmul of (1024, 2, 9, 32) and %s + a (1, 2, "
		    "9, 7) bias: 2048 small gemms over the threads, the bias's "
		    "block repeated: worst error %g", bc ? "(2, 32, 7)" :
		    "(1024, 2, 32, 7)", worst);
		gp_tensor_release(&o);
	}
}

/* A float32 (rows x cols) matrix input of fa-made values (f: fa or fx2)
 * scaled to stay small: the sums of 40 products stay exact enough that
 * only the order of the additions tells two paths apart. */
static double
fs(int i)
{
	return (fa(i * 3 + 1) * 0.37);
}

/* matmul with param packed against gp_conv_gemm_mm_f32 called here on
 * the same rows: the same bits, then alpha and the bias. */
static void
test_packed(void)
{
	int64_t xs[3] = {3, 4, 40}, ys[2] = {40, 20}, bs[1] = {20};
	int64_t ps[1] = {gp_conv_gemm_pack_len(40, 20)};
	int x, y, b, p, in[4], ni;
	struct gp_tensor o, want;
	const float *xp;
	float *pp;
	bool same = true;

	if (!gp_conv_gemm_ok()) {
		ok(true, "# SKIP no AVX2 and FMA: the micro-kernel does not "
		    "run");
		return;
	}
	x = var_fn(GP_FLOAT32, 3, xs, fs);
	y = var_fn(GP_FLOAT32, 2, ys, fx2);
	b = var_fn(GP_FLOAT32, 1, bs, fx2);
	p = var_fn(GP_FLOAT32, 1, ps, NULL);
	pp = (float *)(void *)gp_tensor_data(&g->vars[p].value);
	gp_conv_gemm_pack((const float *)(const void *)gp_tensor_data(
	    &g->vars[y].value), 20, 1, 40, 20, pp);
	xp = (const float *)(const void *)gp_tensor_data(&g->vars[x].value);
	gp_tensor_alloc(&want, GP_FLOAT32, 2, (int64_t[]){12, 20});
	gp_conv_gemm_mm_f32(xp, 40, pp, (float *)(void *)gp_tensor_data(
	    &want), 20, 12, 40, 20, false);
	in[0] = x;
	in[1] = y;
	in[2] = p;
	ni = node_ok("matmul", "{\"packed\": true}", 3, in);
	if (ni >= 0) {
		run(ni, &o);
		for (int64_t i = 0; i < 240; i++)
			same &= gp_tensor_get(&o, i) == gp_tensor_get(&want, i);
		ok(same, "packed (3, 4, 40) . (40, 20): the micro-kernel's "
		    "values, bit for bit");
		gp_tensor_release(&o);
	}
	/* alpha 0.5 and a bias per column: (k . y) * 0.5 + b, in float */
	in[2] = b;
	in[3] = p;
	ni = node_ok("matmul", "{\"packed\": true, \"alpha\": 0.5}", 4, in);
	if (ni >= 0) {
		same = true;
		run(ni, &o);
		for (int64_t i = 0; i < 240; i++)
			same &= gp_tensor_get(&o, i) == (double)((float)(
			    (float)gp_tensor_get(&want, i) * 0.5f) +
			    (float)gp_tensor_get(&g->vars[b].value, i % 20));
		ok(same, "packed with alpha 0.5 and a bias: the product times "
		    "alpha, then the bias, bit for bit");
		gp_tensor_release(&o);
	}
	/* x (12, 1, 40), the view (perm 1, 0, 2) of a (1, 12, 40) block:
	 * single rows 40 apart, the batch folded into one call */
	{
		int64_t s1[3] = {1, 12, 40}, s2[3] = {12, 1, 40};
		int xr = var_fn(GP_FLOAT32, 3, s1, fs), perm[3] = {1, 0, 2};

		permute(&g->vars[xr].value, perm);
		memcpy(g->vars[xr].type.shape, s2, sizeof(s2));
		in[0] = xr;
		in[2] = p;
		ni = node_ok("matmul", "{\"packed\": true}", 3, in);
		if (ni >= 0) {
			same = true;
			run(ni, &o);
			for (int64_t i = 0; i < 240; i++)
				same &= gp_tensor_get(&o, i) ==
				    gp_tensor_get(&want, i);
			ok(same, "packed, x a (12, 1, 40) view of single rows: "
			    "the same bits");
			gp_tensor_release(&o);
		}
	}
	/* x's rows stepping (a transposed view): BLAS on y, the same
	 * values within float rounding */
	{
		int xt = var_transposed(GP_FLOAT32, 12, 40, fs);
		double w[240];

		for (int64_t i = 0; i < 240; i++)
			w[i] = gp_tensor_get(&want, i);
		in[0] = xt;
		in[2] = p;
		ni = node_ok("matmul", "{\"packed\": true}", 3, in);
		if (ni >= 0) {
			run(ni, &o);
			check(&o, w, 240, 1e-6, "packed, x's rows stepping "
			    "(a transpose): through BLAS on y");
			gp_tensor_release(&o);
		}
	}
	gp_tensor_release(&want);
}

static void
test_names_flops(void)
{
	int64_t xs[3] = {4, 3, 5}, ys[2] = {5, 2}, bs[1] = {2};
	int x = var_fn(GP_FLOAT32, 3, xs, fa), y = var_fn(GP_FLOAT32, 2, ys,
	    fa), b = var_fn(GP_FLOAT32, 1, bs, fa), in[3] = {x, y, b}, ni;

	ni = node_ok("matmul", NULL, 2, in);
	format_is(ni, "MatMul");
	ok(gp_node_flops(g, &g->nodes[ni]) == 2.0 * 4 * 3 * 2 * 5,
	    "flops 2 B M N K (got %g)", gp_node_flops(g, &g->nodes[ni]));
	ni = node_ok("matmul", "{\"alpha\": 0.25}", 3, in);
	format_is(ni, "MatMul{bias, alpha=0.25}");
	ok(gp_node_flops(g, &g->nodes[ni]) == 4.0 * 3 * 2 * (2 * 5 + 2),
	    "flops with alpha and bias: B M N (2 K + 2) (got %g)",
	    gp_node_flops(g, &g->nodes[ni]));
	ni = node_ok("matmul", NULL, 3, in);
	format_is(ni, "MatMul{bias}");
	ok(g->nodes[ni].impl == GP_IMPL_BLAS, "impl BLAS");
}

static void
test_errors(void)
{
	int64_t a[3] = {2, 3, 4}, b[3] = {3, 4, 5}, c[2] = {5, 4}, d[1] = {3};
	int x = var_fn(GP_FLOAT32, 3, a, fa), y = var_fn(GP_FLOAT32, 3, b,
	    fa), z = var_fn(GP_FLOAT32, 2, c, fa), w = var_fn(GP_FLOAT64, 2,
	    c, fa), s = var_scalar(GP_FLOAT32, 2), i = var_fn(GP_INT32, 2, c,
	    fa), bias = var_fn(GP_FLOAT32, 1, d, fa);
	int in[3];

	in[0] = x;
	in[1] = y;
	expect_err("matmul", NULL, 2, in, "(2, 3, 4) and (3, 4, 5)",
	    "do not broadcast", "batch 2 against 3");
	in[1] = z;
	expect_err("matmul", NULL, 2, in, "not aligned: 4 (x's last "
	    "dimension) != 5", NULL, "inner dimensions differ");
	in[0] = z;
	in[1] = w;
	expect_err("matmul", NULL, 2, in, "y is float64 but x is float32",
	    NULL, "mixed dtypes");
	in[0] = i;
	in[1] = i;
	expect_err("matmul", NULL, 2, in, "x must be float32 or float64, got "
	    "int32", NULL, "integers");
	in[0] = s;
	in[1] = z;
	expect_err("matmul", NULL, 2, in, "0-d operand", NULL, "a scalar");
	in[0] = x;
	in[1] = var_fn(GP_FLOAT32, 2, (int64_t[]){4, 5}, fa);
	in[2] = bias;
	expect_err("matmul", NULL, 3, in, "bias of shape (3,) does not "
	    "broadcast to the product's shape (2, 3, 5)", NULL,
	    "a bias that does not broadcast");
	expect_err("matmul", "{\"alpha\": \"x\"}", 2, in, "alpha", NULL,
	    "alpha not a number");
	expect_err("matmul", "{\"beta\": 1}", 2, in, "beta", NULL,
	    "an unknown param");
}

int
main(void)
{
	g = gp_graph_new("matmul");
	test_cases();
	test_views();
	test_fold();
	test_overlap();
	test_bias_rows();
	test_batch_bias();
	test_packed();
	test_names_flops();
	test_errors();
	gp_graph_free(g);
	return (done_testing());
}
