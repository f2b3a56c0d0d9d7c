/*
 * test-cnn.c: the CNN ops (src/ops/conv.c, pool.c, norm.c) against
 * PyTorch: every case of tests/data/cnn/conv.json, pool.json and
 * norm.json (one file per op family, made by tests/data/cnn/make-cases.py, which says how each
 * expected value was computed) runs through the op's kernel in float32 and in float64 on the
 * same inputs (exact float32 numbers).  Then: an input that is not
 * contiguous, Op names, flop counts, NaN through the max pools, the
 * prepare errors, max_pool's Indices output and int8 X (by hand), and
 * shapes large enough for the kernels' parallel loops against plain loops
 * written here.  conv's param into (the output is input D with the conv's
 * channels written into it): against the plain conv and D, copied and in
 * place, and its errors; alloc_empty's type and errors.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "graph/op.h"
#include "ops/conv-gemm.h"
#include "ops/ops.h"

#include "ops-helpers.h"

static double
tol_of(enum gp_dtype dt)
{
	return (dt == GP_FLOAT32 ? 2e-5 : 1e-12);
}

/* Every case of tests/data/cnn/FAMILY.json, in float32 and float64. */
static void
test_cases(const char *family)
{
	char rel[128];
	int n, ran;

	snprintf(rel, sizeof(rel), "tests/data/cnn/%s.json", family);
	n = run_json_cases(rel, NULL, tol_of(GP_FLOAT32), tol_of(GP_FLOAT64),
	    &ran);
	if (n >= 0)
		ok(n > 0 && ran == n, "%s: %d cases ran in each dtype",
		    family, ran);
}

/*
 * A conv whose X is a transposed view: the kernel copies it first.  The
 * expected values are those of the contiguous X, by the same op: the
 * contiguous case is checked against torch above.
 */
static double
fx(int i)
{
	return (fa(i) + 0.125 * (i % 5));
}

static void
test_strided(void)
{
	int64_t xs[4] = {1, 2, 5, 4}, ws[4] = {3, 2, 3, 3};
	int x = var_fn(GP_FLOAT64, 4, xs, fx), w = var_fn(GP_FLOAT64, 4, ws,
	    fa);
	int xt = var_fn(GP_FLOAT64, 4, xs, NULL), in[2] = {x, w}, ni;
	struct gp_tensor *t = &g->vars[xt].value, a, b;
	double want[3 * 5 * 4];

	/* xt holds X in (1, 2, 4, 5) order, viewed as (1, 2, 5, 4) */
	t->shape[2] = 4;
	t->shape[3] = 5;
	gp_shape_strides(4, t->shape, 8, t->strides);
	for (int c = 0; c < 2; c++)
		for (int h = 0; h < 5; h++)
			for (int ww = 0; ww < 4; ww++)
				*(double *)(gp_tensor_data(t) + c * t->strides[1]
				    + ww * t->strides[2] + h * t->strides[3]) =
				    fx(c * 20 + h * 4 + ww);
	t->shape[2] = 5;
	t->shape[3] = 4;
	{
		int64_t s = t->strides[2];

		t->strides[2] = t->strides[3];
		t->strides[3] = s;
	}
	ni = node_ok("conv", "{\"pads\": [1, 1, 1, 1]}", 2, in);
	run(ni, &a);
	for (int i = 0; i < 60; i++)
		want[i] = gp_tensor_get(&a, i);
	in[0] = xt;
	ni = node_ok("conv", "{\"pads\": [1, 1, 1, 1]}", 2, in);
	run(ni, &b);
	check(&b, want, 60, 0, "conv of a transposed view equals conv of "
	    "its contiguous copy");
	gp_tensor_release(&a);
	gp_tensor_release(&b);
}

static void
test_names_flops(void)
{
	int64_t xs[4] = {2, 4, 9, 9}, ws[4] = {6, 2, 3, 3}, dws[4] = {4, 1, 3,
	    3}, ts[4] = {4, 3, 2, 2};
	int x = var_fn(GP_FLOAT32, 4, xs, fa), w = var_fn(GP_FLOAT32, 4, ws,
	    fa), dw = var_fn(GP_FLOAT32, 4, dws, fa), tw = var_fn(GP_FLOAT32,
	    4, ts, fa);
	int in[2] = {x, w}, ni;

	ni = node_ok("conv", "{\"group\": 2, \"strides\": [2, 2], \"pads\": "
	    "[1, 1, 1, 1]}", 2, in);
	format_is(ni, "Conv{3x3, strides=2x2, pads=[1, 1, 1, 1], group=2}");
	/* output (2, 6, 5, 5): 2 * 2*6*25 * (4/2)*9 */
	ok(gp_node_flops(g, &g->nodes[ni]) == 2.0 * 2 * 6 * 25 * 2 * 9,
	    "conv flops 2 N Cout Hout Wout Cin/g kh kw (got %g)",
	    gp_node_flops(g, &g->nodes[ni]));
	in[1] = dw;
	ni = node_ok("conv", "{\"group\": 4, \"auto_pad\": \"SAME_UPPER\", "
	    "\"dilations\": [2, 2]}", 2, in);
	format_is(ni, "Conv{3x3, dilations=2x2, SAME_UPPER, group=4 "
	    "depthwise}");
	ok(gp_node_flops(g, &g->nodes[ni]) == 2.0 * 2 * 4 * 81 * 1 * 9,
	    "depthwise conv flops (got %g)", gp_node_flops(g, &g->nodes[ni]));
	ok(g->nodes[ni].impl == GP_IMPL_C && g->nodes[ni - 1].impl ==
	    (gp_conv_gemm_ok() ? GP_IMPL_C : GP_IMPL_BLAS), "depthwise runs "
	    "the direct loop, a float32 grouped conv the blocked gemm (C) "
	    "where the CPU has AVX2 and FMA, else im2col + BLAS");
	{
		/* pointwise float32: the blocked gemm's direct path on many
		 * pixels (20x20), ops/conv-pw.c's BLAS blocks on few (7x7) */
		int64_t x2s[4] = {1, 8, 20, 20}, w2s[4] = {4, 8, 1, 1};
		int64_t x3s[4] = {1, 32, 7, 7}, w3s[4] = {32, 32, 1, 1};
		int p2[2] = {var_fn(GP_FLOAT32, 4, x2s, fa),
		    var_fn(GP_FLOAT32, 4, w2s, fa)};
		int p3[2] = {var_fn(GP_FLOAT32, 4, x3s, fa),
		    var_fn(GP_FLOAT32, 4, w3s, fa)};
		int n2 = node_ok("conv", "{}", 2, p2);
		int n3 = node_ok("conv", "{}", 2, p3);

		ok(n2 >= 0 && n3 >= 0 && g->nodes[n2].impl ==
		    (gp_conv_gemm_ok() ? GP_IMPL_C : GP_IMPL_BLAS) &&
		    g->nodes[n3].impl == GP_IMPL_BLAS, "a float32 pointwise "
		    "conv on 20x20 runs the blocked gemm (C) where the CPU "
		    "has AVX2 and FMA, on 7x7 OpenBLAS's gemm in blocks");
	}
	in[1] = tw;
	ni = node_ok("conv_transpose", "{\"strides\": [2, 2]}", 2, in);
	format_is(ni, "ConvTranspose{2x2, strides=2x2}");
	/* 2 N Cin (9x9) Cout/g (2x2) */
	ok(gp_node_flops(g, &g->nodes[ni]) == 2.0 * 2 * 4 * 81 * 3 * 4,
	    "conv_transpose flops (got %g)", gp_node_flops(g, &g->nodes[ni]));
}

static void
test_errors(void)
{
	int64_t xs[4] = {1, 4, 5, 5}, ws[4] = {6, 3, 3, 3}, w2s[4] = {6, 2, 3,
	    3}, bs[1] = {5}, big[4] = {2, 4, 8, 8}, x1s[3] = {1, 4, 5}, wts[4] = {4, 2, 3, 3},
	    woks[4] = {6, 4, 3, 3};
	int x = var_fn(GP_FLOAT32, 4, xs, fa), w = var_fn(GP_FLOAT32, 4, ws,
	    fa), w2 = var_fn(GP_FLOAT32, 4, w2s, fa), b = var_fn(GP_FLOAT32,
	    1, bs, fa), wb = var_fn(GP_FLOAT32, 4, big, fa);
	int x64 = var_fn(GP_FLOAT64, 4, xs, fa), xi = var_fn(GP_INT32, 4, xs,
	    fa), x1 = var_fn(GP_FLOAT32, 3, x1s, fa), wt = var_fn(GP_FLOAT32,
	    4, wts, fa), wok = var_fn(GP_FLOAT32, 4, woks, fa);
	int in[3] = {x, w, b};

	expect_err("conv", NULL, 2, in, "X of shape (1, 4, 5, 5) has 4 "
	    "channels but W of shape (6, 3, 3, 3) takes 3", NULL,
	    "conv: channels mismatch");
	in[1] = w2;
	expect_err("conv", "{\"group\": 3}", 2, in, "group 3 does not divide "
	    "X's 4 input channels", NULL, "conv: group not dividing Cin");
	expect_err("conv", "{\"group\": 1}", 2, in, "X of shape (1, 4, 5, 5) "
	    "has 4 channels but W of shape (6, 2, 3, 3) takes 2 (W's dimension "
	    "1, 2, times group 1)", NULL, "conv: group times W's channels not "
	    "Cin");
	expect_err("conv", "{\"group\": 4}", 2, in, "group 4 does not divide "
	    "W's 6 output channels", NULL, "conv: group not dividing Cout");
	expect_err("conv", "{\"group\": 0}", 2, in, "group is 0", NULL,
	    "conv: group 0");
	in[1] = wok;
	expect_err("conv", NULL, 3, in, "B of shape (5,): expected (6,)",
	    NULL, "conv: bias length");
	in[1] = wb;
	expect_err("conv", NULL, 2, in, "spatial dimension 0: the kernel "
	    "spans 8", "padded input is 5", "conv: kernel larger than the "
	    "input");
	expect_err("conv", "{\"pads\": [2, 1, 2, 1], \"dilations\": [1, 2]}",
	    2, in, "spatial dimension 1: the kernel spans 15",
	    "padded input is 7", "conv: dilated kernel larger than the padded "
	    "input");
	in[1] = wok;
	expect_err("conv", "{\"pads\": [1, 1]}", 2, in, "'pads' must be a "
	    "list of 4 integers", NULL, "conv: pads of the wrong length");
	expect_err("conv", "{\"strides\": [0, 1]}", 2, in, "'strides': entry "
	    "0 is 0", NULL, "conv: stride 0");
	expect_err("conv", "{\"pads\": [1, 1, -1, 1]}", 2, in, "'pads': entry "
	    "2 is -1", NULL, "conv: negative pad");
	expect_err("conv", "{\"auto_pad\": \"SAME\"}", 2, in, "'auto_pad' "
	    "must be", NULL, "conv: unknown auto_pad");
	expect_err("conv", "{\"auto_pad\": \"VALID\", \"pads\": [1, 0, 0, "
	    "0]}", 2, in, "pads and auto_pad VALID given together", NULL,
	    "conv: pads with auto_pad");
	expect_err("conv", "{\"kernel_shape\": [3, 2]}", 2, in,
	    "kernel_shape[1] is 2 but the weights' kernel is 3", NULL,
	    "conv: kernel_shape not W's");
	in[0] = x64;
	expect_err("conv", NULL, 2, in, "W is float32 but X is float64", NULL,
	    "conv: mixed dtypes");
	in[0] = xi;
	expect_err("conv", NULL, 2, in, "X must be float32 or float64, got "
	    "int32", NULL, "conv: integer X");
	in[0] = x1;
	expect_err("conv", NULL, 2, in, "W of shape (6, 4, 3, 3) for X of "
	    "shape (1, 4, 5)", NULL, "conv: W's rank not X's");
	{
		int64_t zs[4] = {1, 0, 5, 5}, wzs[4] = {2, 0, 3, 3};
		int z[2] = {var_fn(GP_FLOAT32, 4, zs, NULL), var_fn(GP_FLOAT32,
		    4, wzs, NULL)};

		expect_err("conv", NULL, 2, z, "conv: X has no channels", NULL,
		    "conv: X with 0 channels");
	}
	in[0] = x;
	expect_err("conv_transpose", NULL, 2, in, "X of shape (1, 4, 5, 5) "
	    "has 4 channels but W of shape (6, 4, 3, 3) takes 6", NULL,
	    "conv_transpose: channels mismatch");
	in[1] = wt;
	expect_err("conv_transpose", "{\"output_shape\": [5]}", 2, in,
	    "'output_shape' must be a list of 2 sizes", NULL,
	    "conv_transpose: output_shape length");
}

/* Pools and norms: names, flops (hand-counted), NaN, errors. */
static double
fnan(int i)
{
	return (i == 5 ? NAN : i);
}

static void
test_pool_norm(void)
{
	int64_t xs[4] = {2, 3, 6, 6}, cs[1] = {3}, c4[1] = {4}, x2s[2] = {4,
	    3}, ls[2] = {6, 6}, l2[2] = {3, 6}, ns[4] = {1, 1, 3, 3};
	int x = var_fn(GP_FLOAT32, 4, xs, fa), c = var_fn(GP_FLOAT32, 1, cs,
	    fa), cc = var_fn(GP_FLOAT32, 1, c4, fa), x2 = var_fn(GP_FLOAT32, 2,
	    x2s, fa), l = var_fn(GP_FLOAT32, 2, ls, fa), lb = var_fn(GP_FLOAT32,
	    2, l2, fa), xn = var_fn(GP_FLOAT64, 4, ns, fnan);
	int xi = var_fn(GP_INT32, 4, xs, fa);
	int in[5] = {x, c, c, c, c}, ni;
	struct gp_tensor o;
	/* 2x2 windows, stride 1, over [[0 1 2] [3 4 nan] [6 7 8]] */
	static const double want_nan[4] = {4, NAN, 7, NAN};

	ni = node_ok("max_pool", "{\"kernel_shape\": [3, 3], \"strides\": "
	    "[2, 2], \"pads\": [1, 1, 1, 1], \"ceil_mode\": 1}", 1, in);
	format_is(ni, "MaxPool{3x3, strides=2x2, pads=[1, 1, 1, 1], "
	    "ceil_mode}");
	/* output (2, 3, 4, 4): 96 outputs of 9 compares */
	ok(gp_node_flops(g, &g->nodes[ni]) == 96 * 9, "max_pool flops (got "
	    "%g)", gp_node_flops(g, &g->nodes[ni]));
	ni = node_ok("average_pool", "{\"kernel_shape\": [2, 2], "
	    "\"count_include_pad\": true, \"auto_pad\": \"SAME_UPPER\"}", 1,
	    in);
	format_is(ni, "AveragePool{2x2, SAME_UPPER, count_include_pad}");
	ok(gp_node_flops(g, &g->nodes[ni]) == 216 * 5, "average_pool flops "
	    "(got %g)", gp_node_flops(g, &g->nodes[ni]));
	ni = node_ok("global_average_pool", NULL, 1, in);
	format_is(ni, "GlobalAveragePool");
	ok(gp_node_flops(g, &g->nodes[ni]) == 216 + 6, "global_average_pool "
	    "flops (got %g)", gp_node_flops(g, &g->nodes[ni]));
	ni = node_ok("batch_norm", "{\"epsilon\": 0.001, \"momentum\": 0.9}",
	    5, in);
	format_is(ni, "BatchNormalization{epsilon=0.001}");
	ok(gp_node_flops(g, &g->nodes[ni]) == 2 * 216, "batch_norm flops (got "
	    "%g)", gp_node_flops(g, &g->nodes[ni]));
	in[1] = l;
	ni = node_ok("layer_norm", "{\"axis\": -2}", 2, in);
	format_is(ni, "LayerNormalization{axis=2, epsilon=1e-05}");
	ok(gp_node_flops(g, &g->nodes[ni]) == 7 * 216, "layer_norm flops "
	    "without B (got %g)", gp_node_flops(g, &g->nodes[ni]));
	in[0] = xn;
	ni = node_ok("max_pool", "{\"kernel_shape\": [2, 2]}", 1, in);
	if (ni >= 0) {
		run_check(ni, &o, GP_FLOAT64, "(1, 1, 2, 2)", want_nan, 0,
		    "max_pool: a NaN in the window gives NaN");
		gp_tensor_release(&o);
	}
	ni = node_ok("global_max_pool", NULL, 1, in);
	if (ni >= 0) {
		run_check(ni, &o, GP_FLOAT64, "(1, 1, 1, 1)", want_nan + 1, 0,
		    "global_max_pool: a NaN gives NaN");
		gp_tensor_release(&o);
	}

	in[0] = x;
	expect_err("max_pool", NULL, 1, in, "max_pool: param 'kernel_shape' is "
	    "required", NULL, "max_pool: no kernel_shape");
	expect_err("max_pool", "{\"kernel_shape\": [3]}", 1, in,
	    "'kernel_shape' must be a list of 2 integers", NULL,
	    "max_pool: kernel_shape of the wrong length");
	expect_err("max_pool", "{\"kernel_shape\": [3, 9], \"pads\": [0, 1, "
	    "0, 1]}", 1, in, "spatial dimension 1: the kernel spans 9",
	    "padded input is 8", "max_pool: kernel larger than the padded "
	    "input");
	expect_err("average_pool", "{\"kernel_shape\": [2, 2], "
	    "\"count_include_pad\": 2}", 1, in, "'count_include_pad' must be "
	    "0, 1, true or false", NULL, "average_pool: bad flag");
	expect_err("max_pool", "{\"kernel_shape\": [2, 2], \"ceil_mode\": "
	    "\"yes\"}", 1, in, "'ceil_mode' must be 0, 1", NULL,
	    "max_pool: bad ceil_mode");
	in[0] = xi;
	expect_err("global_max_pool", NULL, 1, in, "X must be float32 or "
	    "float64, got int32", NULL, "global_max_pool: integer X");
	in[0] = x2;
	expect_err("global_average_pool", NULL, 1, in, "at least 3 "
	    "dimensions", NULL, "global_average_pool: 2-d X");
	in[0] = x;
	in[1] = cc;
	expect_err("batch_norm", NULL, 5, in, "batch_norm: scale of shape "
	    "(4,): expected (3,)", NULL, "batch_norm: scale of the wrong "
	    "length");
	in[1] = c;
	in[4] = cc;
	expect_err("batch_norm", NULL, 5, in, "input_var of shape (4,): "
	    "expected (3,)", NULL, "batch_norm: var of the wrong length");
	in[4] = c;
	expect_err("batch_norm", "{\"training_mode\": 1}", 5, in,
	    "training_mode is set", NULL, "batch_norm: training mode");
	in[1] = lb;
	expect_err("layer_norm", "{\"axis\": 2}", 2, in, "layer_norm: Scale "
	    "of shape (3, 6): expected (6, 6)", NULL, "layer_norm: Scale not "
	    "of the normalized shape");
	expect_err("layer_norm", "{\"axis\": 4}", 2, in, "axis 4 is out of "
	    "range", NULL, "layer_norm: axis out of range");
	in[1] = c;
	in[2] = cc;
	expect_err("instance_norm", NULL, 3, in, "instance_norm: B of shape "
	    "(4,): expected (3,)", NULL, "instance_norm: B of the wrong "
	    "length");
	in[2] = c;
	expect_err("instance_norm", "{\"epsilon\": -1}", 3, in, "epsilon is "
	    "-1", NULL, "instance_norm: negative epsilon");
}

/* Two int8 planes of 2x2x2 (one 3-D window each): every element -20 -
 * i % 5, but for each plane's maximum: -3 at (d, h, w) = (1, 1, 0) of
 * plane 0 (element 6) and 100 at (0, 1, 1) of plane 1 (element 8 + 3). */
static double
fmax3(int i)
{
	return (i == 6 ? -3 : i == 11 ? 100 : -20 - i % 5);
}

/* max_pool's Indices output (ONNX's rule, by hand): the plane's offset (8
 * per plane) plus the position in the plane, C order for storage_order 0
 * (d * 4 + h * 2 + w: 6, and 8 + 3 = 11), column-major over the spatial
 * dimensions for 1 (d + h * 2 + w * 4: 1 + 2 = 3, and 8 + 2 + 4 = 14);
 * and Y of int8, whose maxima are below 0 (no window starts at 0). */
static void
test_maxpool_indices(void)
{
	static const int64_t xs[5] = {1, 2, 2, 2, 2};
	static const double want_y[2] = {-3, 100};
	static const double want_i[2][2] = {{6, 11}, {3, 14}};
	int x = var_fn(GP_INT8, 5, xs, fmax3);

	for (int so = 0; so < 2; so++) {
		char params[96];
		struct gp_err err;
		struct gp_tensor y = {0}, ix = {0}, *in[1], *out[2] = {&y, &ix};
		struct gp_node *n;
		int ni;

		snprintf(params, sizeof(params), "{\"kernel_shape\": [2, 2, 2], "
		    "\"storage_order\": %d}", so);
		ni = gp_graph_add_node(g, gp_op_find("max_pool"),
		    json_loads(params, 0, NULL), 1, &x, 2, &err);
		if (!ok(ni >= 0, "max_pool with Indices prepares (%s)",
		    ni < 0 ? err.msg : ""))
			continue;
		n = &g->nodes[ni];
		ok(g->vars[n->out[0]].type.dtype == GP_INT8 &&
		    g->vars[n->out[1]].type.dtype == GP_INT64 &&
		    g->vars[n->out[1]].type.ndim == 5 &&
		    g->vars[n->out[1]].type.shape[1] == 2,
		    "Y int8, Indices int64 of Y's shape");
		in[0] = &g->vars[x].value;
		gp_tensor_alloc(&y, GP_INT8, 5, g->vars[n->out[0]].type.shape);
		gp_tensor_alloc(&ix, GP_INT64, 5,
		    g->vars[n->out[1]].type.shape);
		n->kernel(n, in, out);
		check(&y, want_y, 2, 0, "max_pool of int8: the maxima");
		check(&ix, want_i[so], 2, 0, so ? "Indices, storage_order 1: "
		    "column-major in the plane" : "Indices, storage_order 0: "
		    "C order");
		gp_tensor_release(&y);
		gp_tensor_release(&ix);
	}
	{
		struct gp_err err;
		int ni = gp_graph_add_node(g, gp_op_find("max_pool"),
		    json_pack("{s:[i,i,i]}", "kernel_shape", 2, 2, 2), 1, &x, 3,
		    &err);

		ok(ni < 0 && strstr(err.msg, "max_pool has 1 or 2 outputs "
		    "(Y, Indices), got 3") != NULL, "3 outputs refused: %s",
		    err.msg);
	}
}

/*
 * Shapes past ops/par.h's GP_PAR_MIN, so that the kernels' OpenMP loops
 * run over the threads (im2col's rows, the depthwise planes, the bias,
 * the pools' planes, BatchNormalization's planes): every output element
 * against a plain serial loop written here, in double, from the
 * definitions (ONNX Conv: y = b + sum over c, kh, kw of w * x at
 * o * s - p + k; padding is 0 for conv and average, -inf for max).
 */
static double
fb(int i)
{
	return (((i * 13 + 5) % 17 - 8) * 0.0625);
}

static void
ref_conv(const struct gp_tensor *x, const struct gp_tensor *w,
    const struct gp_tensor *b, int64_t group, int64_t s, int64_t pad,
    int64_t oh, int64_t ow, double *y)
{
	int64_t n = x->shape[0], cin = x->shape[1], h = x->shape[2],
	    wd = x->shape[3], cout = w->shape[0], cg = cin / group,
	    og = cout / group, k = w->shape[2];

	for (int64_t i = 0; i < n; i++)
	for (int64_t co = 0; co < cout; co++)
	for (int64_t r = 0; r < oh; r++)
	for (int64_t q = 0; q < ow; q++) {
		double acc = gp_tensor_get(b, co);

		for (int64_t c = 0; c < cg; c++)
		for (int64_t u = 0; u < k; u++)
		for (int64_t v = 0; v < k; v++) {
			int64_t ih = r * s - pad + u, iw = q * s - pad + v;

			if (ih < 0 || ih >= h || iw < 0 || iw >= wd)
				continue;
			acc += gp_tensor_get(w, ((co * cg + c) * k + u) * k +
			    v) * gp_tensor_get(x, ((i * cin + co / og * cg +
			    c) * h + ih) * wd + iw);
		}
		*y++ = acc;
	}
}

static void
ref_pool(const struct gp_tensor *x, bool mx, int64_t k, int64_t s,
    int64_t pad, int64_t oh, int64_t ow, double *y)
{
	int64_t planes = x->shape[0] * x->shape[1], h = x->shape[2],
	    wd = x->shape[3];

	for (int64_t pl = 0; pl < planes; pl++)
	for (int64_t r = 0; r < oh; r++)
	for (int64_t q = 0; q < ow; q++) {
		double acc = mx ? -INFINITY : 0;
		int cnt = 0;

		for (int64_t u = 0; u < k; u++)
		for (int64_t v = 0; v < k; v++) {
			int64_t ih = r * s - pad + u, iw = q * s - pad + v;
			double e;

			if (ih < 0 || ih >= h || iw < 0 || iw >= wd)
				continue;
			e = gp_tensor_get(x, (pl * h + ih) * wd + iw);
			acc = mx ? (e > acc ? e : acc) : acc + e;
			cnt++;
		}
		*y++ = mx ? acc : acc / cnt;
	}
}

static void
test_large(enum gp_dtype dt)
{
	int64_t xs[4] = {2, 8, 64, 64}, ws[4] = {16, 4, 3, 3}, bs[1] = {16},
	    dws[4] = {16, 1, 3, 3}, cs[1] = {8};
	int x = var_fn(dt, 4, xs, fa), w = var_fn(dt, 4, ws, fb),
	    b = var_fn(dt, 1, bs, fa), dw = var_fn(dt, 4, dws, fb);
	int sc = var_fn(dt, 1, cs, fb), bi = var_fn(dt, 1, cs, fa);
	int mean = var_fn(dt, 1, cs, fb), var = var_fn(dt, 1, cs, fa);
	/* (g->vars moves as nodes are added: values are looked up after) */
#define VAL(i) (&g->vars[(i)].value)
	double *want = malloc(sizeof(double) * 2 * 16 * 64 * 64);
	double tol = dt == GP_FLOAT32 ? 1e-4 : 1e-12;
	struct gp_tensor o;
	char what[96];
	int ni;

	/* grouped 3x3 conv with bias: im2col + gemm per image and group */
	snprintf(what, sizeof(what), "large grouped conv %s",
	    gp_dtype_name(dt));
	ni = node_ok("conv", "{\"group\": 2, \"pads\": [1, 1, 1, 1]}", 3,
	    (int[]){x, w, b});
	if (ni >= 0) {
		ref_conv(VAL(x), VAL(w), VAL(b), 2, 1, 1,
		    64, 64, want);
		run_check(ni, &o, dt, "(2, 16, 64, 64)", want, tol, what);
		gp_tensor_release(&o);
	}
	/* depthwise, channel multiplier 2, stride 2: the direct loop */
	snprintf(what, sizeof(what), "large depthwise conv %s",
	    gp_dtype_name(dt));
	ni = node_ok("conv", "{\"group\": 8, \"strides\": [2, 2], "
	    "\"pads\": [1, 1, 1, 1]}", 3, (int[]){x, dw, b});
	if (ni >= 0) {
		ref_conv(VAL(x), VAL(dw), VAL(b), 8, 2, 1,
		    32, 32, want);
		run_check(ni, &o, dt, "(2, 16, 32, 32)", want, tol, what);
		gp_tensor_release(&o);
	}
	snprintf(what, sizeof(what), "large max_pool %s", gp_dtype_name(dt));
	ni = node_ok("max_pool", "{\"kernel_shape\": [3, 3], \"strides\": "
	    "[2, 2], \"pads\": [1, 1, 1, 1]}", 1, &x);
	if (ni >= 0) {
		ref_pool(VAL(x), true, 3, 2, 1, 32, 32, want);
		run_check(ni, &o, dt, "(2, 8, 32, 32)", want, tol, what);
		gp_tensor_release(&o);
	}
	snprintf(what, sizeof(what), "large average_pool %s",
	    gp_dtype_name(dt));
	ni = node_ok("average_pool", "{\"kernel_shape\": [3, 3], \"strides\": "
	    "[1, 1], \"pads\": [1, 1, 1, 1]}", 1, &x);
	if (ni >= 0) {
		ref_pool(VAL(x), false, 3, 1, 1, 64, 64, want);
		run_check(ni, &o, dt, "(2, 8, 64, 64)", want, tol, what);
		gp_tensor_release(&o);
	}
	/* batch_norm: (x - mean) * scale / sqrt(var + eps) + bias; var from
	 * fa is negative in places: use |var| + 1 through the formula below */
	snprintf(what, sizeof(what), "large batch_norm %s", gp_dtype_name(dt));
	for (int c = 0; c < 8; c++)
		gp_dtype_store(gp_tensor_data(VAL(var)) + c *
		    (int64_t)gp_dtype_size(dt), dt, 0.5 + 0.25 * c);
	ni = node_ok("batch_norm", "{\"epsilon\": 0.001}", 5,
	    (int[]){x, sc, bi, mean, var});
	if (ni >= 0) {
		for (int64_t i = 0; i < 2 * 8 * 64 * 64; i++) {
			int64_t c = i / (64 * 64) % 8;

			want[i] = (gp_tensor_get(VAL(x), i) - fb((int)c)) * fb((int)
			    c) / sqrt(0.5 + 0.25 * (double)c + 0.001) +
			    fa((int)c);
		}
		run_check(ni, &o, dt, "(2, 8, 64, 64)", want, tol, what);
		gp_tensor_release(&o);
	}
	/* the same with the four per-channel inputs of the other float
	 * dtype, which the kernel reads value by value (not where they lie):
	 * the same values where they are exact in both */
	{
		enum gp_dtype od = dt == GP_FLOAT32 ? GP_FLOAT64 : GP_FLOAT32;
		int p[4] = {sc, bi, mean, var}, q[5] = {x};

		for (int k = 0; k < 4; k++) {
			q[k + 1] = var_fn(od, 1, cs, NULL);
			for (int c = 0; c < 8; c++)
				gp_dtype_store(gp_tensor_data(VAL(q[k + 1])) +
				    c * (int64_t)gp_dtype_size(od), od,
				    gp_tensor_get(VAL(p[k]), c));
		}
		snprintf(what, sizeof(what), "large batch_norm %s, its "
		    "parameters %s", gp_dtype_name(dt), gp_dtype_name(od));
		ni = node_ok("batch_norm", "{\"epsilon\": 0.001}", 5, q);
		if (ni >= 0) {
			run_check(ni, &o, dt, "(2, 8, 64, 64)", want, tol,
			    what);
			gp_tensor_release(&o);
		}
	}
	free(want);
#undef VAL
}

/*
 * max_pool 3x3 of strides 2 in float32 (ops/pool.c's AVX2 path where the
 * CPU has it, else the generic one): the shapes of ResNet and SqueezeNet
 * and odd ones (1 to 3 rows under a window, a last vector of 1 to 8
 * outputs, a run of rows ending mid-row), floor and ceil_mode, pads 0 to 2
 * and asymmetric; every output against the window's maximum computed
 * here in double from ONNX MaxPool's definition (-inf in the pads; a
 * NaN in the window gives NaN), also with a NaN in X (the path redoes
 * those rows generically) and with -0 and +0 tied (the first in the
 * window's order wins, as in the generic path).
 */
struct mp_case {
	int64_t	c, h, w, pt, pl, pb, pr;
	bool	ceil;
};

static double
fmp(int i)
{
	return (((i * 37 + 11) % 101 - 50) * 0.125);
}

static void
ref_max3s2(const struct gp_tensor *x, const struct mp_case *m, int64_t oh,
    int64_t ow, double *y)
{
	for (int64_t p = 0; p < m->c; p++)
	for (int64_t r = 0; r < oh; r++)
	for (int64_t q = 0; q < ow; q++) {
		double acc = -INFINITY;

		for (int64_t u = 0; u < 3; u++)
		for (int64_t v = 0; v < 3; v++) {
			int64_t ih = 2 * r - m->pt + u, iw = 2 * q - m->pl + v;
			double e;

			if (ih < 0 || ih >= m->h || iw < 0 || iw >= m->w)
				continue;
			e = gp_tensor_get(x, (p * m->h + ih) * m->w + iw);
			if (isnan(e) || isnan(acc))
				acc = NAN;
			else if (e > acc)
				acc = e;
		}
		*y++ = acc;
	}
}

/* Output j's value as the window's order keeps it: the first of the
 * largest (so -0 or +0, whichever comes first among the zeros). */
static double
first_zero(const struct gp_tensor *x, const struct mp_case *m, int64_t oh,
    int64_t ow, int64_t j)
{
	int64_t p = j / (oh * ow), r = j / ow % oh, q = j % ow;
	double acc = -INFINITY;

	/* rows first (each column's maximum over the window's rows, the
	 * first of equal ones), then along the row: the kernels' order */
	for (int64_t v = 0; v < 3; v++) {
		double col = -INFINITY;
		int64_t iw = 2 * q - m->pl + v;

		if (iw < 0 || iw >= m->w)
			continue;
		for (int64_t u = 0; u < 3; u++) {
			int64_t ih = 2 * r - m->pt + u;
			double e;

			if (ih < 0 || ih >= m->h)
				continue;
			e = gp_tensor_get(x, (p * m->h + ih) * m->w + iw);
			if (e > col)
				col = e;
		}
		if (col > acc)
			acc = col;
	}
	return (acc);
}

static int64_t
mp_out(int64_t in, int64_t pb, int64_t pe, bool ceil)
{
	int64_t span = in + pb + pe - 3;

	return ((ceil ? (span + 1) / 2 : span / 2) + 1);
}

static double
fnan2(int i)
{
	return (i == 5 || i == 11 || i == 12 ? NAN : i);
}

/* 2x2 pools of stride 2 (the pair way) over [[0 1 2 3] [4 nan 6 7]
 * [8 9 10 nan] [nan 13 14 15]]: a NaN in a window's bottom row, second
 * column, in its top row, second column, and in its bottom row, first
 * column, each make its output NaN. */
static void
test_pool_pairs(void)
{
	int64_t xs[4] = {1, 1, 4, 4};
	int x = var_fn(GP_FLOAT64, 4, xs, fnan2), ni;
	static const double want_max[4] = {NAN, 7, NAN, NAN};
	static const double want_avg[4] = {NAN, 4.5, NAN, NAN};
	struct gp_tensor o;

	ni = node_ok("max_pool", "{\"kernel_shape\": [2, 2], \"strides\": "
	    "[2, 2]}", 1, &x);
	if (ni >= 0) {
		run_check(ni, &o, GP_FLOAT64, "(1, 1, 2, 2)", want_max, 0,
		    "max_pool 2x2 stride 2: a NaN anywhere in the window "
		    "wins");
		gp_tensor_release(&o);
	}
	ni = node_ok("average_pool", "{\"kernel_shape\": [2, 2], "
	    "\"strides\": [2, 2]}", 1, &x);
	if (ni >= 0) {
		run_check(ni, &o, GP_FLOAT64, "(1, 1, 2, 2)", want_avg, 0,
		    "average_pool 2x2 stride 2");
		gp_tensor_release(&o);
	}
}

/* A 3-D pool of depth 1 with pads on the depth: X (1, 2, 1, 4, 4),
 * kernel 1x3x3, strides 1, pads 1 everywhere: output (1, 2, 3, 4, 4),
 * its first and last depth slices all padding (-inf for max, 0 for an
 * average counting the pads), the middle one the 3x3 pool of each plane
 * (against plain loops here).  The whole-plane way, which takes a 2-D
 * window, must leave it to the row way. */
static void
test_pool_depth_pads(void)
{
	int64_t xs[5] = {1, 2, 1, 4, 4};
	int x = var_fn(GP_FLOAT32, 5, xs, fa), ni;
	double want_max[96], want_avg[96];
	struct gp_tensor o;

	for (int c = 0; c < 2; c++)
		for (int od = 0; od < 3; od++)
			for (int oh = 0; oh < 4; oh++)
				for (int ow = 0; ow < 4; ow++) {
					double m = -INFINITY, sum = 0;
					int at = ((c * 3 + od) * 4 + oh) * 4 + ow;

					for (int kh = -1; od == 1 && kh <= 1; kh++)
						for (int kw = -1; kw <= 1; kw++) {
							int ih = oh + kh, iw = ow + kw;
							double v;

							if (ih < 0 || ih >= 4 || iw < 0 ||
							    iw >= 4)
								continue;
							v = fa((c * 4 + ih) * 4 + iw);
							m = v > m ? v : m;
							sum += v;
						}
					want_max[at] = m;
					want_avg[at] = sum / 9;
				}
	ni = node_ok("max_pool", "{\"kernel_shape\": [1, 3, 3], \"pads\": "
	    "[1, 1, 1, 1, 1, 1]}", 1, &x);
	if (ni >= 0) {
		int bad = 0;

		run(ni, &o);
		for (int i = 0; i < 96; i++)
			bad += gp_tensor_get(&o, i) != want_max[i];
		ok(o.ndim == 5 && o.shape[2] == 3 && bad == 0, "max_pool "
		    "1x3x3 of depth 1, pads 1 on the depth too: -inf in the "
		    "pad slices, the 3x3 maxima between (%d wrong)", bad);
		gp_tensor_release(&o);
	}
	ni = node_ok("average_pool", "{\"kernel_shape\": [1, 3, 3], "
	    "\"pads\": [1, 1, 1, 1, 1, 1], \"count_include_pad\": 1}", 1,
	    &x);
	if (ni >= 0) {
		run_check(ni, &o, GP_FLOAT32, "(1, 2, 3, 4, 4)", want_avg, 1e-6,
		    "average_pool 1x3x3 of depth 1, pads 1 on the depth too, "
		    "count_include_pad");
		gp_tensor_release(&o);
	}
}

static void
test_max3s2(void)
{
	static const struct mp_case cases[] = {
		{.c = 3, .h = 112, .w = 112, .pt = 1, .pl = 1, .pb = 1,
		    .pr = 1},
		{.c = 5, .h = 109, .w = 109, .ceil = true},
		{.c = 7, .h = 54, .w = 54, .ceil = true},
		{.c = 9, .h = 27, .w = 27, .ceil = true},
		{.c = 4, .h = 13, .w = 17, .pt = 2, .pl = 0, .pb = 0,
		    .pr = 2},
		{.c = 6, .h = 5, .w = 3, .pt = 0, .pl = 1, .pb = 2,
		    .pr = 0, .ceil = true},
		{.c = 11, .h = 8, .w = 33, .pt = 1, .pl = 2, .pb = 1,
		    .pr = 1},
		{.c = 2, .h = 3, .w = 3},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (int nan = 0; nan < 3; nan++) {
			const struct mp_case *m = &cases[i];
			int64_t xs[4] = {1, m->c, m->h, m->w};
			int64_t oh = mp_out(m->h, m->pt, m->pb, m->ceil);
			int64_t ow = mp_out(m->w, m->pl, m->pr, m->ceil);
			int x = var_fn(GP_FLOAT32, 4, xs, fmp), ni;
			int64_t nx = m->c * m->h * m->w;
			float *xd = (float *)(void *)gp_tensor_data(
			    &g->vars[x].value);
			double *want = malloc(sizeof(double) * (size_t)(m->c *
			    oh * ow));
			char params[200], what[160], shape[64];
			struct gp_tensor o;

			if (nan == 1) {
				/* NaNs: one mid-plane, one at a row's end */
				xd[nx / 2] = NAN;
				xd[m->w - 1] = NAN;
			} else if (nan == 2) {
				/* ties of -0 and +0, the rest negative */
				for (int64_t j = 0; j < nx; j++)
					xd[j] = j % 3 == 0 ? -0.0f : j % 3 ==
					    1 ? 0.0f : -1.0f - (float)(j % 5);
			}
			snprintf(params, sizeof(params), "{\"kernel_shape\": "
			    "[3, 3], \"strides\": [2, 2], \"pads\": [%lld, "
			    "%lld, %lld, %lld], \"ceil_mode\": %d}",
			    (long long)m->pt, (long long)m->pl,
			    (long long)m->pb, (long long)m->pr, m->ceil);
			snprintf(what, sizeof(what), "max_pool 3x3/2 float32 "
			    "(%lld, %lld, %lld), pads [%lld %lld %lld %lld]%s%s",
			    (long long)m->c, (long long)m->h, (long long)m->w,
			    (long long)m->pt, (long long)m->pl,
			    (long long)m->pb, (long long)m->pr, m->ceil ?
			    ", ceil" : "", nan == 1 ? ", NaNs" : nan == 2 ?
			    ", -0 and +0" : "");
			snprintf(shape, sizeof(shape), "(1, %lld, %lld, %lld)",
			    (long long)m->c, (long long)oh, (long long)ow);
			ni = node_ok("max_pool", params, 1, &x);
			if (ni >= 0) {
				ref_max3s2(&g->vars[x].value, m, oh, ow, want);
				run_check(ni, &o, GP_FLOAT32, shape, want, 0,
				    what);
				if (nan == 2) {
					/* the sign of each zero: the first
					 * in the window's order */
					int64_t bad = -1;

					for (int64_t j = 0; j < m->c * oh * ow &&
					    bad < 0; j++)
						if (want[j] == 0 && !signbit(
						    ((float *)(void *)
						    gp_tensor_data(&o))[j]) !=
						    !signbit(first_zero(&g->vars[
						    x].value, m, oh, ow, j)))
							bad = j;
					if (!ok(bad < 0, "%s: the sign of the "
					    "zeros (first bad %lld)", what,
					    (long long)bad))
						diag("  got %g, want %g",
						    (double)((float *)(void *)
						    gp_tensor_data(&o))[bad],
						    first_zero(&g->vars[x].value,
						    m, oh, ow, bad));
				}
				gp_tensor_release(&o);
			}
			free(want);
		}
}

/*
 * The float32 convs that run as the blocked gemm of ops/conv-gemm.c (and
 * the float64 ones, im2col + dgemm): shapes that exercise its edges (a
 * row count not a multiple of its 6-row tile, columns not a multiple of
 * its 16-column sliver and a last sliver of 8 or fewer, a depth of more
 * than one 256-row block, columns shared between the threads or rows when
 * the columns are few), asymmetric pads, strides 2 and 3, dilation,
 * groups, 1-D and 3-D, the bias and clamps (relu, clip) of its epilogue,
 * and a NaN through the clamp; every output element against the plain
 * loop below, in double from ONNX Conv's definition (y = b + sum over c
 * and the taps of w * x at o * s - pb + k * d, 0 in the pads), clamped.
 */
struct nd_conv {
	const char	*what;
	int		 nsp, group;
	int64_t		 n, c, m, in[3], k[3], s[3], d[3], pb[3], pe[3];
	double		 lo, hi;	/* clamp; lo > hi: none */
	bool		 bias, nan;
	bool		 wino;		/* param winograd */
	bool		 taken;		/* ... taken (float32, AVX2) */
};

static void
ref_conv_nd(const struct nd_conv *cv, const struct gp_tensor *x,
    const struct gp_tensor *w, const struct gp_tensor *b,
    const int64_t *out, double *y)
{
	int64_t cg = cv->c / cv->group, og = cv->m / cv->group;
	int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1};
	int64_t d[3] = {1, 1, 1}, pb[3] = {0, 0, 0}, o[3] = {1, 1, 1};
	int off = 3 - cv->nsp;

	for (int i = 0; i < cv->nsp; i++) {
		in[off + i] = cv->in[i];
		k[off + i] = cv->k[i];
		s[off + i] = cv->s[i];
		d[off + i] = cv->d[i];
		pb[off + i] = cv->pb[i];
		o[off + i] = out[i];
	}
	for (int64_t i = 0; i < cv->n; i++)
	for (int64_t co = 0; co < cv->m; co++)
	for (int64_t a = 0; a < o[0]; a++)
	for (int64_t r = 0; r < o[1]; r++)
	for (int64_t q = 0; q < o[2]; q++) {
		double acc = b != NULL ? gp_tensor_get(b, co) : 0;

		for (int64_t c = 0; c < cg; c++)
		for (int64_t u = 0; u < k[0]; u++)
		for (int64_t v = 0; v < k[1]; v++)
		for (int64_t t = 0; t < k[2]; t++) {
			int64_t id = a * s[0] - pb[0] + u * d[0];
			int64_t ih = r * s[1] - pb[1] + v * d[1];
			int64_t iw = q * s[2] - pb[2] + t * d[2];
			int64_t ci = co / og * cg + c;

			if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] ||
			    iw < 0 || iw >= in[2])
				continue;
			acc += gp_tensor_get(w, (((co * cg + c) * k[0] + u) *
			    k[1] + v) * k[2] + t) * gp_tensor_get(x, (((i *
			    cv->c + ci) * in[0] + id) * in[1] + ih) * in[2] +
			    iw);
		}
		if (cv->lo <= cv->hi && !isnan(acc))
			acc = acc < cv->lo ? cv->lo : acc > cv->hi ? cv->hi :
			    acc;
		*y++ = acc;
	}
}

static double
fc(int i)
{
	return (((i * 29 + 7) % 23 - 11) * 0.046875);
}

static void
json_ints(char *buf, size_t len, const char *key, int n, const int64_t *a,
    const int64_t *b)
{
	size_t l = strlen(buf);

	l += (size_t)snprintf(buf + l, len - l, ", \"%s\": [", key);
	for (int i = 0; i < n; i++)
		l += (size_t)snprintf(buf + l, len - l, "%s%lld", i ? ", " :
		    "", (long long)a[i]);
	for (int i = 0; b != NULL && i < n; i++)
		l += (size_t)snprintf(buf + l, len - l, ", %lld",
		    (long long)b[i]);
	snprintf(buf + l, len - l, "]");
}

static void
test_gemm_shapes(enum gp_dtype dt)
{
	static const struct nd_conv cases[] = {
		{.what = "2-D, 7 rows, pads [1, 0; 2, 1], strides 2x1, "
		    "dilations 1x2, relu", .nsp = 2, .group = 1, .n = 2, .c = 5,
		    .m = 7, .in = {13, 11}, .k = {3, 3}, .s = {2, 1},
		    .d = {1, 2}, .pb = {1, 0}, .pe = {2, 1}, .lo = 0,
		    .hi = INFINITY, .bias = true},
		{.what = "depth 720 (two blocks), 24 columns (a last sliver "
		    "of 8), 26 rows shared by the threads", .nsp = 2,
		    .group = 1, .n = 1, .c = 80, .m = 26, .in = {6, 4}, .k = {3, 3}, .s = {1, 1},
		    .d = {1, 1}, .pb = {1, 1}, .pe = {1, 1}, .lo = 1, .hi = 0,
		    .bias = true},
		{.what = "depth 3200 (five blocks), 25 columns, 13 rows",
		    .nsp = 2, .group = 1, .n = 1, .c = 128, .m = 13,
		    .in = {5, 5}, .k = {5, 5}, .s = {1, 1}, .d = {1, 1},
		    .pb = {2, 2}, .pe = {2, 2}, .lo = 1, .hi = 0},
		{.what = "7x7 stride 2 over 70x70 (1225 columns, chunks "
		    "over the threads), clip [-0.5, 0.5]", .nsp = 2, .group = 1,
		    .n = 1, .c = 3, .m = 8, .in = {70, 70}, .k = {7, 7},
		    .s = {2, 2}, .d = {1, 1}, .pb = {3, 3}, .pe = {3, 3},
		    .lo = -0.5, .hi = 0.5, .bias = true},
		{.what = "group 2, dilation 2, pads 2", .nsp = 2, .group = 2,
		    .n = 1, .c = 6, .m = 4, .in = {9, 9}, .k = {3, 3},
		    .s = {1, 1}, .d = {2, 2}, .pb = {2, 2}, .pe = {2, 2},
		    .lo = 1, .hi = 0, .bias = true},
		{.what = "1-D, stride 3, pads [2; 1]", .nsp = 1, .group = 1,
		    .n = 2, .c = 4, .m = 5, .in = {37}, .k = {5}, .s = {3},
		    .d = {1}, .pb = {2}, .pe = {1}, .lo = 1, .hi = 0},
		{.what = "3-D, strides 1x2x1, pads [1, 0, 1; 0, 1, 1]",
		    .nsp = 3, .group = 1, .n = 1, .c = 3, .m = 4,
		    .in = {5, 6, 7}, .k = {2, 3, 3}, .s = {1, 2, 1},
		    .d = {1, 1, 1}, .pb = {1, 0, 1}, .pe = {0, 1, 1},
		    .lo = 0, .hi = INFINITY, .bias = true},
		{.what = "a NaN in X through bias and relu", .nsp = 2,
		    .group = 1, .n = 1, .c = 2, .m = 6, .in = {8, 8},
		    .k = {3, 3}, .s = {1, 1}, .d = {1, 1}, .pb = {1, 1},
		    .pe = {1, 1}, .lo = 0, .hi = INFINITY, .bias = true,
		    .nan = true},
		/* the direct path (strides 1, B read from the padded input
		 * or, pointwise, from X itself) */
		{.what = "direct: 41 columns a row (a last tile of 9), pads "
		    "[1, 2; 0, 1], 2 images, relu", .nsp = 2, .group = 1,
		    .n = 2, .c = 5, .m = 7, .in = {12, 40}, .k = {3, 3},
		    .s = {1, 1}, .d = {1, 1}, .pb = {1, 2}, .pe = {0, 1},
		    .lo = 0, .hi = INFINITY, .bias = true},
		{.what = "direct: dilations 2x1, pads 2, 36 columns (a last "
		    "tile of 4)", .nsp = 2, .group = 1, .n = 1, .c = 3,
		    .m = 8, .in = {15, 36}, .k = {3, 3}, .s = {1, 1},
		    .d = {2, 1}, .pb = {2, 1}, .pe = {2, 1}, .lo = 1,
		    .hi = 0, .bias = true},
		{.what = "direct: depth 720 (two blocks), 13 rows, 16x20, "
		    "clip [-1, 1]", .nsp = 2, .group = 1, .n = 1, .c = 80,
		    .m = 13, .in = {16, 20}, .k = {3, 3}, .s = {1, 1},
		    .d = {1, 1}, .pb = {1, 1}, .pe = {1, 1}, .lo = -1,
		    .hi = 1, .bias = true},
		{.what = "direct: group 2, 5x5, pads 2, 24x24", .nsp = 2,
		    .group = 2, .n = 1, .c = 4, .m = 6, .in = {24, 24},
		    .k = {5, 5}, .s = {1, 1}, .d = {1, 1}, .pb = {2, 2},
		    .pe = {2, 2}, .lo = 1, .hi = 0, .bias = true},
		{.what = "direct: 1-D, dilation 2, pads [3; 1], length 300",
		    .nsp = 1, .group = 1, .n = 2, .c = 3, .m = 5,
		    .in = {300}, .k = {5}, .s = {1}, .d = {2}, .pb = {3},
		    .pe = {1}, .lo = 1, .hi = 0},
		{.what = "direct, stride 2: 7x7, pads [3, 2; 1, 3], 31x29 "
		    "(phases of 18 and 17 values), 2 images, relu", .nsp = 2,
		    .group = 1, .n = 2, .c = 3, .m = 10, .in = {31, 29},
		    .k = {7, 7}, .s = {2, 2}, .d = {1, 1}, .pb = {3, 2},
		    .pe = {1, 3}, .lo = 0, .hi = INFINITY, .bias = true},
		{.what = "direct, stride 2: 5x5, dilations 2, pads 4, 40x37, "
		    "30 rows, clip [-1, 1]", .nsp = 2, .group = 1, .n = 1,
		    .c = 4, .m = 30, .in = {40, 37}, .k = {5, 5},
		    .s = {2, 2}, .d = {2, 2}, .pb = {4, 4}, .pe = {4, 4},
		    .lo = -1, .hi = 1, .bias = true},
		{.what = "direct: a NaN in X, 3x3 pads 1 on 16x24, relu",
		    .nsp = 2, .group = 1, .n = 1, .c = 2, .m = 6,
		    .in = {16, 24}, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
		    .pb = {1, 1}, .pe = {1, 1}, .lo = 0, .hi = INFINITY,
		    .bias = true, .nan = true},
		{.what = "pointwise direct: 17x19 (323 columns, a masked last "
		    "tile of 3), 2 images, clip [0, 6]", .nsp = 2,
		    .group = 1, .n = 2, .c = 7, .m = 9, .in = {17, 19},
		    .k = {1, 1}, .s = {1, 1}, .d = {1, 1}, .pb = {0, 0},
		    .pe = {0, 0}, .lo = 0, .hi = 6, .bias = true},
		{.what = "pointwise direct: group 2, 21x21 (a masked last "
		    "tile of 9 at the end of X)", .nsp = 2, .group = 2,
		    .n = 1, .c = 8, .m = 6, .in = {21, 21}, .k = {1, 1},
		    .s = {1, 1}, .d = {1, 1}, .pb = {0, 0}, .pe = {0, 0},
		    .lo = 1, .hi = 0, .bias = true},
		{.what = "pointwise direct: depth 700 (three blocks), 15x18 "
		    "(a masked last tile of 14), 26 rows", .nsp = 2,
		    .group = 1, .n = 1, .c = 700, .m = 26, .in = {15, 18},
		    .k = {1, 1}, .s = {1, 1}, .d = {1, 1}, .pb = {0, 0},
		    .pe = {0, 0}, .lo = 1, .hi = 0, .bias = true},
		{.what = "pointwise direct: a NaN in X, 1-D length 1000, "
		    "relu", .nsp = 1, .group = 1, .n = 1, .c = 4, .m = 7,
		    .in = {1000}, .k = {1}, .s = {1}, .d = {1}, .pb = {0},
		    .pe = {0}, .lo = 0, .hi = INFINITY, .bias = true,
		    .nan = true},
		/* a pointwise conv packed after all (flat_packs: planes not
		 * a multiple of 16 values, m >= 32, k >= 128) */
		{.what = "pointwise packed: 160 -> 32 (a last row tile of "
		    "2), 11x23 (253 columns), relu", .nsp = 2, .group = 1,
		    .n = 1, .c = 160, .m = 32, .in = {11, 23}, .k = {1, 1},
		    .s = {1, 1}, .d = {1, 1}, .pb = {0, 0}, .pe = {0, 0},
		    .lo = 0, .hi = INFINITY, .bias = true},
		{.what = "pointwise packed: 128 -> 64, 17x19 (323 columns: "
		    "chunks of 128, a last sliver of 3), 2 images, clip "
		    "[0, 6]", .nsp = 2, .group = 1, .n = 2, .c = 128,
		    .m = 64, .in = {17, 19}, .k = {1, 1}, .s = {1, 1},
		    .d = {1, 1}, .pb = {0, 0}, .pe = {0, 0}, .lo = 0,
		    .hi = 6, .bias = true},
		{.what = "pointwise packed: depth 700 (two blocks of k), "
		    "70 rows (a last row tile of 4), 13x21, group 2, no "
		    "bias", .nsp = 2, .group = 2, .n = 1, .c = 1400,
		    .m = 140, .in = {13, 21}, .k = {1, 1}, .s = {1, 1},
		    .d = {1, 1}, .pb = {0, 0}, .pe = {0, 0}, .lo = 1,
		    .hi = 0},
		/* Winograd F(2x2, 3x3) (ops/conv-wino.c): tiles cut by the
		 * output's edges, groups of 8 tiles across slivers, output
		 * channels past a group of 24, depth past a block of k */
		{.what = "winograd: 64 -> 13 channels, 23x21 (half tiles on "
		    "both edges), pads 1, 2 images, relu", .nsp = 2,
		    .group = 1, .n = 2, .c = 64, .m = 13, .in = {23, 21},
		    .k = {3, 3}, .s = {1, 1}, .d = {1, 1}, .pb = {1, 1},
		    .pe = {1, 1}, .lo = 0, .hi = INFINITY, .bias = true,
		    .wino = true, .taken = true},
		{.what = "winograd: pads [0, 2; 2, 0], 30 output channels, "
		    "22x18", .nsp = 2, .group = 1, .n = 1, .c = 64, .m = 30,
		    .in = {22, 18}, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
		    .pb = {0, 2}, .pe = {2, 0}, .lo = 1, .hi = 0,
		    .bias = true, .wino = true, .taken = true},
		{.what = "winograd: depth 700 (two blocks of k), 20x20, clip "
		    "[-1, 1]", .nsp = 2, .group = 1, .n = 1, .c = 700,
		    .m = 7, .in = {20, 20}, .k = {3, 3}, .s = {1, 1},
		    .d = {1, 1}, .pb = {1, 1}, .pe = {1, 1}, .lo = -1,
		    .hi = 1, .bias = true, .wino = true, .taken = true},
		{.what = "winograd: group 2 of 64 channels, no pads, 26x26, "
		    "no bias", .nsp = 2, .group = 2, .n = 1, .c = 128,
		    .m = 12, .in = {26, 26}, .k = {3, 3}, .s = {1, 1},
		    .d = {1, 1}, .pb = {0, 0}, .pe = {0, 0}, .lo = 1,
		    .hi = 0, .wino = true, .taken = true},
		{.what = "winograd: 13x31 (a group's output rows 15 wide, "
		    "odd rows: the last row half), no act", .nsp = 2,
		    .group = 1, .n = 1, .c = 64, .m = 8, .in = {13, 31},
		    .k = {3, 3}, .s = {1, 1}, .d = {1, 1}, .pb = {1, 1},
		    .pe = {1, 1}, .lo = 1, .hi = 0, .bias = true,
		    .wino = true, .taken = true},
		{.what = "winograd: a NaN in X (that call on the direct "
		    "conv: NaN only where a window holds it), relu",
		    .nsp = 2, .group = 1, .n = 1, .c = 64, .m = 6,
		    .in = {24, 24}, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
		    .pb = {1, 1}, .pe = {1, 1}, .lo = 0, .hi = INFINITY,
		    .bias = true, .nan = true, .wino = true, .taken = true},
		{.what = "winograd asked of 32 input channels: not taken",
		    .nsp = 2, .group = 1, .n = 1, .c = 32, .m = 8,
		    .in = {24, 24}, .k = {3, 3}, .s = {1, 1}, .d = {1, 1},
		    .pb = {1, 1}, .pe = {1, 1}, .lo = 1, .hi = 0,
		    .bias = true, .wino = true},
		{.what = "winograd asked of strides 2: not taken", .nsp = 2,
		    .group = 1, .n = 1, .c = 32, .m = 8, .in = {48, 48},
		    .k = {3, 3}, .s = {2, 2}, .d = {1, 1}, .pb = {1, 1},
		    .pe = {1, 1}, .lo = 1, .hi = 0, .wino = true},
	};

	for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		const struct nd_conv *cv = &cases[ci];
		int64_t xs[5] = {cv->n, cv->c}, ws[5] = {cv->m,
		    cv->c / cv->group}, bs[1] = {cv->m}, out[3], ys[5];
		int x, w, b, ni, in[3];
		char params[400], what[200], shape[96];
		size_t len;
		double *want;
		struct gp_tensor o;

		for (int i = 0; i < cv->nsp; i++) {
			xs[2 + i] = cv->in[i];
			ws[2 + i] = cv->k[i];
			out[i] = (cv->in[i] + cv->pb[i] + cv->pe[i] - (cv->k[i] -
			    1) * cv->d[i] - 1) / cv->s[i] + 1;
		}
		x = var_fn(dt, 2 + cv->nsp, xs, fa);
		w = var_fn(dt, 2 + cv->nsp, ws, fc);
		b = var_fn(dt, 1, bs, fb);
		if (cv->nan)
			gp_dtype_store(gp_tensor_data(&g->vars[x].value) + 19 *
			    (int64_t)gp_dtype_size(dt), dt, NAN);
		snprintf(params, sizeof(params), "{\"group\": %d", cv->group);
		json_ints(params, sizeof(params), "strides", cv->nsp, cv->s,
		    NULL);
		json_ints(params, sizeof(params), "dilations", cv->nsp, cv->d,
		    NULL);
		json_ints(params, sizeof(params), "pads", cv->nsp, cv->pb,
		    cv->pe);
		if (cv->wino)
			snprintf(params + strlen(params), sizeof(params) -
			    strlen(params), ", \"winograd\": true");
		len = strlen(params);
		if (cv->lo <= cv->hi && isinf(cv->hi))
			snprintf(params + len, sizeof(params) - len, ", "
			    "\"act_min\": %g}", cv->lo);
		else if (cv->lo <= cv->hi)
			snprintf(params + len, sizeof(params) - len, ", "
			    "\"act_min\": %g, \"act_max\": %g}", cv->lo,
			    cv->hi);
		else
			snprintf(params + len, sizeof(params) - len, "}");
		in[0] = x;
		in[1] = w;
		in[2] = b;
		ni = node_ok("conv", params, cv->bias ? 3 : 2, in);
		snprintf(what, sizeof(what), "conv %s: %s", gp_dtype_name(dt),
		    cv->what);
		if (ni < 0) {
			diag("  params %s", params);
			continue;
		}
		if (cv->wino) {
			struct gp_buf fb = {0};
			bool taken = cv->taken && dt == GP_FLOAT32 &&
			    gp_conv_gemm_ok();

			gp_node_format_op(g, &g->nodes[ni], &fb);
			ok((strstr(gp_buf_str(&fb), "winograd") != NULL) == taken,
			    "%s: %s (%s)", what, taken ? "Winograd taken" :
			    "the direct conv", gp_buf_str(&fb));
			gp_buf_free(&fb);
		}
		ys[0] = cv->n;
		ys[1] = cv->m;
		memcpy(ys + 2, out, sizeof(int64_t) * (size_t)cv->nsp);
		len = (size_t)snprintf(shape, sizeof(shape), "(");
		for (int i = 0; i < 2 + cv->nsp; i++)
			len += (size_t)snprintf(shape + len, sizeof(shape) - len,
			    "%s%lld", i ? ", " : "", (long long)ys[i]);
		snprintf(shape + len, sizeof(shape) - len, ")");
		want = malloc(sizeof(double) * (size_t)gp_shape_numel(2 +
		    cv->nsp, ys));
		ref_conv_nd(cv, &g->vars[x].value, &g->vars[w].value,
		    cv->bias ? &g->vars[b].value : NULL, out, want);
		run_check(ni, &o, dt, shape, want, tol_of(dt), what);
		gp_tensor_release(&o);
		free(want);
	}
}

/* Element i of a fixed pattern unlike fa's: D's values. */
static double
fd(int i)
{
	return ((i % 13) - 6.5);
}

/*
 * conv with param into: the output is D (1, 21, 9, 9) with channels [3,
 * 19) the conv's (3x3, pads 1, bias, relu: 16 output channels), element
 * for element the plain conv's; the other channels D's.  First through
 * the copy (no destroy: D unchanged), then in place (destroy[0] = 3, the
 * output a view of D, as the VM passes it): D itself changed.
 */
static void
test_into(enum gp_dtype dt)
{
	int64_t xs[4] = {1, 8, 9, 9}, ws[4] = {16, 8, 3, 3}, bs[1] = {16};
	int64_t ds[4] = {1, 21, 9, 9}, plane = 81;
	const char *prm = "{\"pads\": [1, 1, 1, 1], \"act_min\": 0}";
	const char *prm_in = "{\"pads\": [1, 1, 1, 1], \"act_min\": 0, "
	    "\"into\": 3}";
	int x = var_fn(dt, 4, xs, fa), w = var_fn(dt, 4, ws, fa);
	int b = var_fn(dt, 1, bs, fd), d = var_fn(dt, 4, ds, fd);
	int in[4] = {x, w, b, d};
	int pl = node_ok("conv", prm, 3, in), ni = node_ok("conv", prm_in, 4,
	    in);
	struct gp_tensor y = {0}, o = {0}, *ins[4], *outs[1] = {&o};
	const struct gp_tensor *dv = &g->vars[d].value;
	bool same = true, kept = true;

	if (pl < 0 || ni < 0)
		return;
	ok(g->vars[g->nodes[ni].out[0]].type.shape[1] == 21,
	    "%s conv into: the output has D's shape", gp_dtype_name(dt));
	format_is(ni, "Conv{3x3, pads=[1, 1, 1, 1], relu, into=3}");
	ok(gp_node_flops(g, &g->nodes[ni]) == gp_node_flops(g,
	    &g->nodes[pl]), "%s conv into: the plain conv's flops",
	    gp_dtype_name(dt));
	run(pl, &y);
	run(ni, &o);
	for (int64_t c = 0; c < 21; c++)
		for (int64_t i = 0; i < plane; i++) {
			double got = gp_tensor_get(&o, c * plane + i);

			if (c >= 3 && c < 19)
				same = same && got == gp_tensor_get(&y,
				    (c - 3) * plane + i);
			else
				same = same && got == gp_tensor_get(dv,
				    c * plane + i);
			kept = kept && gp_tensor_get(dv, c * plane + i) ==
			    fd((int)(c * plane + i));
		}
	ok(same && kept, "%s conv into 3, copied: channels 3-18 the conv's, "
	    "the others D's; D unchanged", gp_dtype_name(dt));
	gp_tensor_release(&o);
	/* in place: the output arrives as D */
	for (int k = 0; k < 4; k++)
		ins[k] = &g->vars[in[k]].value;
	g->nodes[ni].destroy[0] = 3;
	gp_tensor_view(&o, dv);
	g->nodes[ni].kernel(&g->nodes[ni], ins, outs);
	same = true;
	for (int64_t c = 0; c < 21; c++)
		for (int64_t i = 0; i < plane; i++)
			same = same && gp_tensor_get(dv, c * plane + i) ==
			    (c >= 3 && c < 19 ? gp_tensor_get(&y, (c - 3) *
			    plane + i) : fd((int)(c * plane + i)));
	ok(same, "%s conv into 3, in place: D's channels 3-18 the conv's, "
	    "the others kept", gp_dtype_name(dt));
	g->nodes[ni].destroy[0] = -1;
	gp_tensor_release(&o);
	gp_tensor_release(&y);
}

static void
test_into_errors(void)
{
	int64_t xs[4] = {1, 4, 5, 5}, ws[4] = {6, 4, 3, 3}, ds[4] = {1, 8, 3,
	    3}, d2s[4] = {1, 8, 4, 3}, x2s[4] = {2, 4, 5, 5}, d3s[4] = {2, 8,
	    3, 3};
	int x = var_fn(GP_FLOAT32, 4, xs, fa), w = var_fn(GP_FLOAT32, 4, ws,
	    fa), d = var_fn(GP_FLOAT32, 4, ds, fa), d2 = var_fn(GP_FLOAT32, 4,
	    d2s, fa), d64 = var_fn(GP_FLOAT64, 4, ds, fa), x2 = var_fn(
	    GP_FLOAT32, 4, x2s, fa), w2 = var_fn(GP_FLOAT32, 4, ws, fa),
	    d3 = var_fn(GP_FLOAT32, 4, d3s, fa);
	int in[5] = {x, w, d, d, d};
	struct gp_err err = {{0}};
	int ni;

	ni = node("conv", "{\"into\": 2}", 3, in, &err);
	ok(ni >= 0 && g->vars[g->nodes[ni].out[0]].type.shape[1] == 8,
	    "conv into 2: 6 channels of 8 fit");
	expect_err("conv", "{\"into\": 3}", 3, in, "into 3: the output of "
	    "shape (1, 6, 3, 3) does not fit in D of shape (1, 8, 3, 3)",
	    "C >= into + 6", "conv into: channels past D's");
	expect_err("conv", "{\"into\": -1}", 3, in, "into is -1: expected "
	    "a channel offset", NULL, "conv into: a negative offset");
	in[2] = d2;
	expect_err("conv", "{\"into\": 0}", 3, in, "does not fit in D of "
	    "shape (1, 8, 4, 3)", NULL, "conv into: D of another spatial "
	    "size");
	in[2] = d64;
	expect_err("conv", "{\"into\": 0}", 3, in, "D is float64 but X is "
	    "float32", NULL, "conv into: D of another dtype");
	in[0] = x2;
	in[1] = w2;
	in[2] = d3;
	expect_err("conv", "{\"into\": 0}", 3, in, "for a batch of 1: X "
	    "has 2 images", NULL, "conv into: a batch of 2");
	in[0] = x;
	in[1] = w;
	expect_err("conv", "{\"into\": 0}", 2, in, "into needs input D "
	    "after X and W", NULL, "conv into: no D");
	expect_err("conv", NULL, 5, in, "5 inputs without param into", NULL,
	    "conv: 5 inputs without into");
	ni = node("alloc_empty", "{\"shape\": [1, 8, 3, 3], \"dtype\": "
	    "\"float32\"}", 0, NULL, &err);
	ok(ni >= 0 && g->vars[g->nodes[ni].out[0]].type.dtype == GP_FLOAT32 &&
	    g->vars[g->nodes[ni].out[0]].type.ndim == 4 &&
	    g->vars[g->nodes[ni].out[0]].type.shape[1] == 8,
	    "alloc_empty: float32 (1, 8, 3, 3)");
	expect_err("alloc_empty", "{\"shape\": [1, 8]}", 0, NULL, "param "
	    "'dtype' must be one of", NULL, "alloc_empty: no dtype");
	expect_err("alloc_empty", "{\"shape\": [1, -8], \"dtype\": "
	    "\"float32\"}", 0, NULL, "entry 1 must be a size", NULL,
	    "alloc_empty: a negative size");
}

int
main(void)
{
	g = gp_graph_new("cnn");
	test_cases("conv");
	test_cases("pool");
	test_cases("norm");
	test_strided();
	test_names_flops();
	test_errors();
	test_pool_norm();
	test_maxpool_indices();
	test_pool_depth_pads();
	test_pool_pairs();
	test_large(GP_FLOAT32);
	test_max3s2();
	test_large(GP_FLOAT64);
	test_gemm_shapes(GP_FLOAT32);
	test_gemm_shapes(GP_FLOAT64);
	test_into(GP_FLOAT32);
	test_into(GP_FLOAT64);
	test_into_errors();
	gp_graph_free(g);
	return (done_testing());
}
