/*
 * test-spatial.c: pad, resize, depth_to_space and space_to_depth
 * (src/ops/pad.c, resize.c, depth.c) against PyTorch and numpy: every case
 * of tests/data/spatial/spatial.json (made by
 * tests/data/spatial/make-cases.py, which says how each expected value was
 * computed) runs in float32 and in float64 on the same inputs.  Then, with
 * hand-computed values: integer dtypes, pad's constant as an input,
 * tf_crop_and_resize's extrapolation, inputs that are not contiguous, Op
 * names, flop counts and the prepare errors.
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

static double
tol_of(enum gp_dtype dt)
{
	return (dt == GP_FLOAT32 ? 2e-5 : 1e-12);
}

/* Every case of tests/data/spatial/spatial.json, in float32 and
 * float64. */
static void
test_cases(void)
{
	int ran, n = run_json_cases("tests/data/spatial/spatial.json", NULL,
	    tol_of(GP_FLOAT32), tol_of(GP_FLOAT64), &ran);

	if (n >= 0)
		ok(n > 0 && ran == n, "%d cases ran in each dtype", ran);
}

static double
fi(int i)
{
	return (i + 1);
}

/* Integer dtypes and the constant as an input, by hand. */
static void
test_by_hand(void)
{
	int64_t s23[2] = {2, 3}, s14[2] = {1, 4}, s4[1] = {4};
	int xi = var_fn(GP_INT32, 2, s23, fi), xu = var_fn(GP_UINT8, 2, s14,
	    fi), xf = var_fn(GP_FLOAT32, 1, s4, fi);
	int in[2] = {xi, var_scalar(GP_INT32, -7)}, ni;
	struct gp_tensor o;
	/* [[1 2 3] [4 5 6]] reflect by (1, 2) rows and (2, 1) columns */
	static const double want_reflect[5 * 6] = {
		6, 5, 4, 5, 6, 5,
		3, 2, 1, 2, 3, 2,
		6, 5, 4, 5, 6, 5,
		3, 2, 1, 2, 3, 2,
		6, 5, 4, 5, 6, 5,
	};
	/* the same with the constant -7 (input 1), pads (0, 1) (1, 0) */
	static const double want_const[3 * 4] = {
		-7, 1, 2, 3, -7, 4, 5, 6, -7, -7, -7, -7,
	};
	/* uint8 [[1 2 3 4]] to sizes (2, 6), nearest, half_pixel,
	 * round_prefer_floor: x = (o + 0.5) * 4/6 - 0.5 = -0.17, 0.5,
	 * 1.17, 1.83, 2.5, 3.17 -> 0, 0, 1, 2, 2, 3 */
	static const double want_near[12] = {1, 1, 2, 3, 3, 4, 1, 1, 2, 3, 3,
		4};
	/* [1 2 3 4] cropped to roi [0.5, 1.4] in 4 outputs, linear: x =
	 * 1.5 + o * 0.9 * 3 / 3 = 1.5, 2.4, 3.3 (past 3: the value 9), 4.2 */
	static const double want_crop[4] = {2.5, 3.4, 9, 9};

	ni = node_ok("pad", "{\"pads\": [1, 2, 2, 1], \"mode\": "
	    "\"reflect\"}", 1, in);
	if (ni >= 0) {
		run_check(ni, &o, GP_INT32, "(5, 6)", want_reflect, 0,
		    "pad reflect int32, past the axis");
		gp_tensor_release(&o);
	}
	ni = node_ok("pad", "{\"pads\": [0, 1, 1, 0], \"value\": 3}", 2, in);
	if (ni >= 0) {
		run_check(ni, &o, GP_INT32, "(3, 4)", want_const, 0,
		    "pad constant int32 from input 1 (not the param)");
		format_is(ni, "Pad{constant, pads=[0, 1, 1, 0]}");
		gp_tensor_release(&o);
	}
	in[0] = xu;
	ni = node_ok("resize", "{\"sizes\": [2, 6]}", 1, in);
	if (ni >= 0) {
		run_check(ni, &o, GP_UINT8, "(2, 6)", want_near, 0,
		    "resize nearest uint8, half_pixel");
		format_is(ni, "Resize{nearest, half_pixel, sizes=[2, 6]}");
		ok(gp_node_flops(g, &g->nodes[ni]) == 0, "nearest: no flops");
		gp_tensor_release(&o);
	}
	in[0] = xf;
	/* [1 2 3 4] to 3 with the scale 1.5 for the coordinates (as ONNX's
	 * keep_aspect_ratio_policy makes): (o + 0.5) / 1.5 - 0.5 = -0.17,
	 * 0.5, 1.17 -> 0, 0, 1 (the sizes alone: scale 0.75, 0, 1, 3) */
	ni = node_ok("resize", "{\"sizes\": [3], \"scales\": [1.5]}", 1, in);
	if (ni >= 0) {
		static const double want_both[3] = {1, 1, 2};

		run_check(ni, &o, GP_FLOAT32, "(3,)", want_both, 0,
		    "resize with sizes and scales: the scales place the "
		    "coordinates");
		format_is(ni, "Resize{nearest, half_pixel, sizes=[3], "
		    "scales=[1.5]}");
		gp_tensor_release(&o);
	}
	ni = node_ok("resize", "{\"mode\": \"linear\", "
	    "\"coordinate_transformation_mode\": \"tf_crop_and_resize\", "
	    "\"roi\": [0.5, 1.4], \"sizes\": [4], \"extrapolation_value\": 9}",
	    1, in);
	if (ni >= 0) {
		run_check(ni, &o, GP_FLOAT32, "(4,)", want_crop, 1e-6,
		    "resize tf_crop_and_resize: extrapolation past the input");
		gp_tensor_release(&o);
	}
}

/* A transposed view gives what its contiguous copy gives. */
static void
same_as_copy(const char *op, const char *params, int64_t d0, int64_t d1,
    const char *what)
{
	int64_t s[4] = {1, 2, d0, d1};
	int x = var_fn(GP_FLOAT64, 4, s, fa), xt, ni, n;
	struct gp_tensor *t, a, b;
	double *want;

	/* xt: the same values stored (1, 2, d1, d0), viewed (1, 2, d0, d1) */
	xt = var_fn(GP_FLOAT64, 4, s, NULL);
	t = &g->vars[xt].value;
	t->shape[2] = d1;
	t->shape[3] = d0;
	gp_shape_strides(4, t->shape, 8, t->strides);
	for (int c = 0; c < 2; c++)
		for (int64_t h = 0; h < d0; h++)
			for (int64_t w = 0; w < d1; w++)
				*(double *)(gp_tensor_data(t) + c *
				    t->strides[1] + w * t->strides[2] + h *
				    t->strides[3]) = fa((int)((c * d0 + h) *
				    d1 + w));
	t->shape[2] = d0;
	t->shape[3] = d1;
	{
		int64_t st = t->strides[2];

		t->strides[2] = t->strides[3];
		t->strides[3] = st;
	}
	ni = node_ok(op, params, 1, &x);
	if (ni < 0)
		return;
	run(ni, &a);
	n = (int)gp_tensor_numel(&a);
	want = malloc(sizeof(double) * (size_t)n);
	for (int i = 0; i < n; i++)
		want[i] = gp_tensor_get(&a, i);
	ni = node_ok(op, params, 1, &xt);
	if (ni >= 0) {
		run(ni, &b);
		check(&b, want, n, 0, what);
		gp_tensor_release(&b);
	}
	free(want);
	gp_tensor_release(&a);
}

static void
test_strided(void)
{
	same_as_copy("pad", "{\"pads\": [0, 0, 1, 2, 0, 0, 3, 1], \"mode\": "
	    "\"reflect\"}", 4, 5, "pad of a transposed view");
	same_as_copy("resize", "{\"mode\": \"cubic\", \"scales\": [1, 1, 1.5, "
	    "0.5]}", 4, 6, "resize of a transposed view");
	same_as_copy("depth_to_space", "{\"blocksize\": 1}", 3, 5,
	    "depth_to_space of a transposed view");
	same_as_copy("space_to_depth", "{\"blocksize\": 2}", 4, 6,
	    "space_to_depth of a transposed view");
}

static void
test_names_flops(void)
{
	int64_t xs[4] = {2, 8, 6, 4};
	int x = var_fn(GP_FLOAT32, 4, xs, fa), ni;

	ni = node_ok("pad", "{\"pads\": [0, 0, 1, 1, 0, 0, 1, 1], \"mode\": "
	    "\"edge\"}", 1, &x);
	format_is(ni, "Pad{edge, pads=[0, 0, 1, 1, 0, 0, 1, 1]}");
	ok(gp_node_flops(g, &g->nodes[ni]) == 0, "pad: no flops");
	ni = node_ok("pad", "{\"pads\": [0, 0, 1, 1, 0, 0, 1, 1], \"value\": "
	    "0.5}", 1, &x);
	format_is(ni, "Pad{constant=0.5, pads=[0, 0, 1, 1, 0, 0, 1, 1]}");
	/* linear: H 6 -> 3 first (it shrinks): 2*8*3*4 outputs of 3 flops,
	 * then W 4 -> 8: 2*8*3*8 outputs of 3 */
	ni = node_ok("resize", "{\"mode\": \"linear\", \"scales\": [1, 1, 0.5, "
	    "2]}", 1, &x);
	format_is(ni, "Resize{linear, half_pixel, scales=[1, 1, 0.5, 2]}");
	ok(gp_node_flops(g, &g->nodes[ni]) == 3.0 * (2 * 8 * 3 * 4 + 2 * 8 * 3 *
	    8), "resize linear flops: 3 per output of each pass (got %g)",
	    gp_node_flops(g, &g->nodes[ni]));
	ni = node_ok("resize", "{\"mode\": \"cubic\", \"sizes\": [2, 8, 6, 5], "
	    "\"cubic_coeff_a\": -0.5, \"exclude_outside\": 1}", 1, &x);
	format_is(ni, "Resize{cubic, half_pixel, a=-0.5, exclude_outside, "
	    "sizes=[2, 8, 6, 5]}");
	ok(gp_node_flops(g, &g->nodes[ni]) == 7.0 * 2 * 8 * 6 * 5,
	    "resize cubic flops: one pass, 7 per output (got %g)",
	    gp_node_flops(g, &g->nodes[ni]));
	ni = node_ok("depth_to_space", "{\"blocksize\": 2, \"mode\": "
	    "\"CRD\"}", 1, &x);
	format_is(ni, "DepthToSpace{blocksize=2, CRD}");
	ni = node_ok("space_to_depth", "{\"blocksize\": 2}", 1, &x);
	format_is(ni, "SpaceToDepth{blocksize=2}");
}

static void
test_errors(void)
{
	int64_t xs[4] = {1, 3, 4, 5}, es[2] = {0, 3}, vs[1] = {2};
	int x = var_fn(GP_FLOAT32, 4, xs, fa), e = var_fn(GP_FLOAT32, 2, es,
	    fa), xi = var_fn(GP_INT32, 4, xs, fa);
	int in[2] = {x, var_fn(GP_FLOAT32, 1, vs, fa)};

	expect_err("pad", NULL, 1, in, "pad: param 'pads' is required", NULL,
	    "pad: no pads");
	expect_err("pad", "{\"pads\": [1, 1]}", 1, in, "must be a list of 8 "
	    "integers", NULL, "pad: pads of the wrong length");
	expect_err("pad", "{\"pads\": [0, 0, -3, 0, 0, 0, -2, 0]}", 1, in,
	    "dimension 2: size 4 with pads -3 and -2 is negative", NULL,
	    "pad: cropped past nothing");
	expect_err("pad", "{\"pads\": [0, 0, 0, 0, 0, 0, 0, 0], \"mode\": "
	    "\"symmetric\"}", 1, in, "'mode' must be \"constant\", "
	    "\"reflect\", \"edge\" or \"wrap\"", NULL, "pad: unknown mode");
	expect_err("pad", "{\"pads\": [0, 0, 0, 0, 0, 0, 0, 0]}", 2, in,
	    "the constant (input 1) must hold one element, it has shape (2,)",
	    NULL, "pad: a constant of 2 elements");
	expect_err("pad", "{\"pads\": [1, 0, 0, 0], \"mode\": \"edge\"}", 1,
	    &e, "dimension 0 is empty: mode \"edge\" has nothing to repeat",
	    NULL, "pad: edge of an empty axis");
	expect_err("resize", "{\"mode\": \"linear\"}", 1, in, "give the param "
	    "'scales' or 'sizes'", NULL, "resize: neither scales nor sizes");
	expect_err("resize", "{\"scales\": [1, 1, -2, 2], \"sizes\": [1, 3, "
	    "8, 10]}", 1, in, "scales[2] is -2", NULL, "resize: sizes with a "
	    "negative scale");
	expect_err("resize", "{\"scales\": [1, 1, 0, 2]}", 1, in, "scales[2] "
	    "is 0: expected more than 0", NULL, "resize: a zero scale");
	expect_err("resize", "{\"sizes\": [1, 3, 2.5, 2]}", 1, in, "sizes[2] "
	    "is 2.5", NULL, "resize: a fractional size");
	expect_err("resize", "{\"scales\": [1, 2]}", 1, in, "'scales' must be "
	    "a list of 4 numbers", NULL, "resize: scales of the wrong length");
	expect_err("resize", "{\"mode\": \"bilinear\", \"scales\": [1, 1, 2, "
	    "2]}", 1, in, "'mode' must be \"nearest\", \"linear\" or "
	    "\"cubic\"", NULL, "resize: unknown mode");
	expect_err("resize", "{\"mode\": \"linear\", \"scales\": [1, 1, 2, "
	    "2]}", 1, &xi, "mode \"linear\" needs float32 or float64 X, got "
	    "int32", NULL, "resize: linear of integers");
	{
		/* a uint8 output of 100 kB within a limit of 1 MB, but 2 MB
		 * of taps (20 bytes each) */
		int64_t s4[1] = {4};
		int u = var_fn(GP_UINT8, 1, s4, fa);

		g->limit_bytes = 1000000;
		expect_err("resize", "{\"sizes\": [100000]}", 1, &u, "the "
		    "tables of taps need 2000000 bytes, over the memory limit "
		    "of 1000000 bytes", NULL, "resize: tables past the memory "
		    "limit");
		g->limit_bytes = UINT64_MAX;
	}
	expect_err("depth_to_space", "{}", 1, in, "param 'blocksize' is "
	    "required", NULL, "depth_to_space: no blocksize");
	expect_err("depth_to_space", "{\"blocksize\": 2}", 1, in, "X's 3 "
	    "channels do not divide by blocksize² 4", NULL, "depth_to_space: "
	    "channels");
	expect_err("depth_to_space", "{\"blocksize\": 1, \"mode\": \"RCD\"}",
	    1, in, "'mode' must be \"DCR\" or \"CRD\"", NULL,
	    "depth_to_space: unknown mode");
	expect_err("space_to_depth", "{\"blocksize\": 2}", 1, in, "X's "
	    "dimension 3 (5) does not divide by blocksize 2", NULL,
	    "space_to_depth: width");
	expect_err("space_to_depth", "{\"blocksize\": 2}", 1, &e, "X must "
	    "have 4 dimensions (N, C, H, W), got 2", NULL,
	    "space_to_depth: 2-d X");
}

int
main(void)
{
	g = gp_graph_new("spatial");
	test_cases();
	test_by_hand();
	test_strided();
	test_names_flops();
	test_errors();
	gp_graph_free(g);
	return (done_testing());
}
