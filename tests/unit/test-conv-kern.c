/*
 * test-conv-kern.c: the conv kernels of their own (src/ops/conv-dw.c, the
 * depthwise conv, and src/ops/conv-pw.c, the pointwise conv) through the
 * conv op, in float32 and float64, against a plain loop written here from
 * ONNX Conv's definition (y = b + sum over the group's channels c and
 * the kernel taps k of w * x at o * s - pad_begin + k * d, the taps in the
 * pads adding nothing; then clamped to [act_min, act_max]), in double.
 * The cases cover the 3x3 fast paths (stride 1 and 2, planes narrower
 * and wider than the kernel's whole-plane limit of 32 columns; stride 2
 * read in place, even sizes with pads 1, or from a padded copy), the
 * 5x5 and 7x7 paths, the general path (dilation, 9x9, 1-D, 3-D), grouped
 * convs of many small groups (their groups over the threads) and of a
 * few large ones, the gemm conv's direct path on small planes (strides 1
 * and 2), asymmetric and oversized pads,
 * odd sizes, a channel multiplier, and for the pointwise conv both ways
 * of cutting the gemm (column and row blocks), several images, with and
 * without bias; shapes past GP_PAR_MIN run over the threads.  Then the
 * windowed and global pools (src/ops/pool.c) against plain loops: strides
 * 1, 2, 3, dilations, odd and asymmetric pads, ceil_mode's partial
 * windows, count_include_pad, rows shorter than a vector, several images,
 * NaNs (first plane, last plane, last value).
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

/* Inputs: values of both signs, not periodic over small sizes. */
static double
fx(int i)
{
	return ((((int64_t)i * 7919 + 13) % 211) / 105.0 - 1.0);
}

static double
fw(int i)
{
	return ((((int64_t)i * 104729 + 5) % 97) / 64.0 - 0.75);
}

static double
fbias(int i)
{
	return (0.25 * (i % 5) - 0.5);
}

struct geo {
	int	nsp;		/* spatial dimensions: 1 to 3 */
	int64_t	k[3], s[3], d[3], pb[3], pe[3];	/* leading dims padded */
};

/* The plain loop: x (n, cin, in[3]), w (cout, cin/group, k[3]). */
static void
ref(const struct gp_tensor *x, const struct gp_tensor *w,
    const struct gp_tensor *b, int64_t group, const struct geo *q,
    const int64_t *in, const int64_t *out, double lo, double hi, double *y)
{
	int64_t n = x->shape[0], cin = x->shape[1], cout = w->shape[0];
	int64_t cg = cin / group, og = cout / group;
	int64_t ivol = in[0] * in[1] * in[2], kvol = q->k[0] * q->k[1] * q->k[2];

	for (int64_t i = 0; i < n; i++)
	for (int64_t co = 0; co < cout; co++)
	for (int64_t a = 0; a < out[0]; a++)
	for (int64_t r = 0; r < out[1]; r++)
	for (int64_t c = 0; c < out[2]; c++) {
		double acc = b != NULL ? gp_tensor_get(b, co) : 0;

		for (int64_t ci = 0; ci < cg; ci++)
		for (int64_t u = 0; u < q->k[0]; u++)
		for (int64_t v = 0; v < q->k[1]; v++)
		for (int64_t t = 0; t < q->k[2]; t++) {
			int64_t id = a * q->s[0] - q->pb[0] + u * q->d[0];
			int64_t ih = r * q->s[1] - q->pb[1] + v * q->d[1];
			int64_t iw = c * q->s[2] - q->pb[2] + t * q->d[2];
			int64_t xc = i * cin + co / og * cg + ci;

			if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] ||
			    iw < 0 || iw >= in[2])
				continue;
			acc += gp_tensor_get(w, (co * cg + ci) * kvol + (u *
			    q->k[1] + v) * q->k[2] + t) * gp_tensor_get(x, xc *
			    ivol + (id * in[1] + ih) * in[2] + iw);
		}
		acc = acc < lo ? lo : acc > hi ? hi : acc;
		*y++ = acc;
	}
}

/* JSON list of the op's nsp values of v (the trailing ones). */
static int
list(char *buf, size_t len, const int64_t *v, int nsp)
{
	int n = snprintf(buf, len, "[");

	for (int i = 3 - nsp; i < 3; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%lld", i > 3 - nsp ?
		    ", " : "", (long long)v[i]);
	return (n + snprintf(buf + n, len - (size_t)n, "]"));
}

/*
 * One conv: X (n, cin, spatial...), cout output channels, the group, the
 * geometry, bias or not, a clamp (lo > hi: none).
 */
/* Where one() puts a NaN in X (-1: nowhere). */
static int64_t dw_nan_at = -1;

static void
one(enum gp_dtype dt, const char *name, int64_t n, int64_t cin,
    const int64_t *sp, int64_t cout, int64_t group, const struct geo *q,
    bool bias, double lo, double hi)
{
	int64_t xs[5], ws[5], bs[1] = {cout}, in[3], out[3], nout;
	int nd = q->nsp + 2, x, w, b = -1, ni;
	char params[512], l1[64], l2[64], l3[64], p4[128], what[200];
	char shape[128];
	double *want;
	struct gp_tensor o;
	int len;

	xs[0] = n;
	xs[1] = cin;
	ws[0] = cout;
	ws[1] = cin / group;
	for (int i = 0; i < 3; i++) {
		in[i] = i < 3 - q->nsp ? 1 : sp[i - (3 - q->nsp)];
		out[i] = (in[i] + q->pb[i] + q->pe[i] - (q->k[i] - 1) *
		    q->d[i] - 1) / q->s[i] + 1;
	}
	for (int i = 0; i < q->nsp; i++) {
		xs[2 + i] = in[3 - q->nsp + i];
		ws[2 + i] = q->k[3 - q->nsp + i];
	}
	x = var_fn(dt, nd, xs, fx);
	if (dw_nan_at >= 0)
		gp_dtype_store(gp_tensor_data(&g->vars[x].value) + dw_nan_at *
		    (int64_t)gp_dtype_size(dt), dt, NAN);
	w = var_fn(dt, nd, ws, fw);
	if (bias)
		b = var_fn(dt, 1, bs, fbias);
	list(l1, sizeof(l1), q->s, q->nsp);
	list(l2, sizeof(l2), q->d, q->nsp);
	{
		int64_t pads[6];
		int k = snprintf(p4, sizeof(p4), "[");

		for (int i = 0; i < q->nsp; i++)
			pads[i] = q->pb[3 - q->nsp + i], pads[q->nsp + i] =
			    q->pe[3 - q->nsp + i];
		for (int i = 0; i < 2 * q->nsp; i++)
			k += snprintf(p4 + k, sizeof(p4) - (size_t)k, "%s%lld",
			    i ? ", " : "", (long long)pads[i]);
		snprintf(p4 + k, sizeof(p4) - (size_t)k, "]");
	}
	list(l3, sizeof(l3), q->k, q->nsp);
	len = snprintf(params, sizeof(params), "{\"kernel_shape\": %s, "
	    "\"strides\": %s, \"dilations\": %s, \"pads\": %s, \"group\": "
	    "%lld", l3, l1, l2, p4, (long long)group);
	if (lo <= hi)
		len += snprintf(params + len, sizeof(params) - (size_t)len,
		    ", \"act_min\": %g", lo);
	if (lo <= hi && hi < INFINITY)
		len += snprintf(params + len, sizeof(params) - (size_t)len,
		    ", \"act_max\": %g", hi);
	snprintf(params + len, sizeof(params) - (size_t)len, "}");
	snprintf(what, sizeof(what), "%s %s", name, gp_dtype_name(dt));
	ni = node_ok("conv", params, bias ? 3 : 2, (int[]){x, w, b});
	if (ni < 0)
		return;
	nout = n * cout * out[0] * out[1] * out[2];
	want = malloc(sizeof(double) * (size_t)nout);
	ref(&g->vars[x].value, &g->vars[w].value, bias ? &g->vars[b].value :
	    NULL, group, q, in, out, lo <= hi ? lo : -INFINITY, lo <= hi ? hi :
	    INFINITY, want);
	len = snprintf(shape, sizeof(shape), "(%lld, %lld", (long long)n,
	    (long long)cout);
	for (int i = 3 - q->nsp; i < 3; i++)
		len += snprintf(shape + len, sizeof(shape) - (size_t)len,
		    ", %lld", (long long)out[i]);
	snprintf(shape + len, sizeof(shape) - (size_t)len, ")");
	run_check(ni, &o, dt, shape, want, dt == GP_FLOAT32 ? 1e-4 : 1e-12,
	    what);
	gp_tensor_release(&o);
	free(want);
}

/* A 2-D geometry: kernel kh x kw, stride, dilation, pads t, l, b, r. */
static struct geo
g2(int64_t kh, int64_t kw, int64_t s, int64_t d, int64_t t, int64_t l,
    int64_t bo, int64_t r)
{
	struct geo q = {.nsp = 2, .k = {1, kh, kw}, .s = {1, s, s},
	    .d = {1, d, d}, .pb = {0, t, l}, .pe = {0, bo, r}};

	return (q);
}

static void
test_depthwise(enum gp_dtype dt)
{
	struct geo q;

	/* 3x3 stride 1: whole-plane path (< 32 columns), odd sizes */
	q = g2(3, 3, 1, 1, 1, 1, 1, 1);
	one(dt, "dw 3x3 s1 p1 13x9 bias clip", 1, 3, (int64_t[]){13, 9}, 3,
	    3, &q, true, 0, 6);
	/* 3x3 stride 1 pads 1, at most 8 columns, channels a multiple of 8:
	 * 8 channels at a time (float32); 14 and 31 columns: per plane */
	one(dt, "dw 3x3 s1 p1 7x7, 16 channels, bias clip", 1, 16,
	    (int64_t[]){7, 7}, 16, 16, &q, true, 0, 6);
	one(dt, "dw 3x3 s1 p1 14x14, 24 channels, 2 images, relu", 2, 24,
	    (int64_t[]){14, 14}, 24, 24, &q, true, 0, INFINITY);
	one(dt, "dw 3x3 s1 p1 6x31, 8 channels, no bias", 1, 8,
	    (int64_t[]){6, 31}, 8, 8, &q, false, 1, 0);
	dw_nan_at = 5 * 15 + 2 * 5 + 4;
	one(dt, "dw 3x3 s1 p1 3x5, 8 channels, a NaN", 1, 8,
	    (int64_t[]){3, 5}, 8, 8, &q, true, -1, 1);
	dw_nan_at = -1;
	one(dt, "dw large 3x3 s1 p1 (1, 960, 7, 7)", 1, 960,
	    (int64_t[]){7, 7}, 960, 960, &q, true, 0, 6);
	/* stride 1, per-row path (>= 32 columns), asymmetric pads */
	q = g2(3, 3, 1, 1, 2, 1, 0, 2);
	one(dt, "dw 3x3 s1 pads 2,1,0,2 7x40 relu", 2, 2,
	    (int64_t[]){7, 40}, 2, 2, &q, true, 0, INFINITY);
	/* stride 2, odd and even sizes, each path */
	q = g2(3, 3, 2, 1, 1, 1, 1, 1);
	one(dt, "dw 3x3 s2 p1 15x11", 1, 4, (int64_t[]){15, 11}, 4, 4, &q,
	    true, 1, 0);
	one(dt, "dw 3x3 s2 p1 9x70 clip", 1, 3, (int64_t[]){9, 70}, 3, 3, &q,
	    false, -0.5, 0.5);
	/* a NaN through the taps and the clamp: NaN in the 4 outputs that
	 * read it (plane 1, row 3, column 7 of 9x70) */
	dw_nan_at = 9 * 70 + 3 * 70 + 7;
	one(dt, "dw 3x3 s2 p1 9x70 clip, a NaN", 1, 3, (int64_t[]){9, 70}, 3,
	    3, &q, false, -0.5, 0.5);
	dw_nan_at = -1;
	one(dt, "dw 3x3 s2 p1 2x2 (one output)", 1, 2, (int64_t[]){2, 2}, 2, 2,
	    &q, true, 1, 0);
	/* even sizes, pads 1: read in place (float32), the first vector of
	 * each row masked at the left pad, the last (past the row) at the
	 * plane's end */
	one(dt, "dw 3x3 s2 p1 10x18 clip, 2 images", 2, 3,
	    (int64_t[]){10, 18}, 3, 3, &q, true, -0.5, 0.5);
	one(dt, "dw 3x3 s2 p1 14x14", 1, 5, (int64_t[]){14, 14}, 5, 5, &q,
	    false, 1, 0);
	dw_nan_at = 2 * 16 * 40 + 15 * 40 + 39;
	one(dt, "dw 3x3 s2 p1 16x40 relu, a NaN in the last value", 1, 3,
	    (int64_t[]){16, 40}, 3, 3, &q, true, 0, INFINITY);
	dw_nan_at = 16 * 40 + 0 * 40 + 0;
	one(dt, "dw 3x3 s2 p1 16x40 relu, a NaN in the first value", 1, 3,
	    (int64_t[]){16, 40}, 3, 3, &q, true, 0, INFINITY);
	dw_nan_at = -1;
	q = g2(3, 3, 2, 1, 0, 0, 1, 1);
	one(dt, "dw 3x3 s2 pads 0,0,1,1 14x14", 1, 3, (int64_t[]){14, 14}, 3,
	    3, &q, true, 1, 0);
	q = g2(3, 3, 2, 1, 0, 0, 0, 0);
	one(dt, "dw 3x3 s2 no pads 8x8", 1, 2, (int64_t[]){8, 8}, 2, 2, &q,
	    false, 1, 0);
	q = g2(3, 3, 1, 1, 0, 0, 0, 0);
	one(dt, "dw 3x3 s1 no pads 5x6", 1, 2, (int64_t[]){5, 6}, 2, 2, &q,
	    true, 1, 0);
	/* pads wider than the kernel: outputs with no tap in X */
	q = g2(3, 3, 1, 1, 3, 3, 3, 3);
	one(dt, "dw 3x3 s1 pads 3 on 4x4", 1, 2, (int64_t[]){4, 4}, 2, 2, &q,
	    true, 1, 0);
	q = g2(3, 3, 2, 1, 3, 4, 3, 2);
	one(dt, "dw 3x3 s2 pads 3,4,3,2 on 5x5", 1, 2, (int64_t[]){5, 5}, 2,
	    2, &q, true, 1, 0);
	/* channel multiplier 2 */
	q = g2(3, 3, 1, 1, 1, 1, 1, 1);
	one(dt, "dw multiplier 2 3x3 s1 p1", 2, 3, (int64_t[]){6, 7}, 6, 3,
	    &q, true, 1, 0);
	/* 5x5 and 7x7 (planek_ with K 5 and 7): stride 1 and 2, the whole
	 * plane at once (< 32 columns) and per row, odd sizes, asymmetric
	 * pads and pads wider than the kernel, a NaN, channel multiplier 2 */
	q = g2(5, 5, 1, 1, 2, 2, 2, 2);
	one(dt, "dw 5x5 s1 p2 7x7, 16 channels, bias clip", 1, 16,
	    (int64_t[]){7, 7}, 16, 16, &q, true, 0, 6);
	one(dt, "dw 5x5 s1 p2 14x13, 2 images, relu", 2, 5,
	    (int64_t[]){14, 13}, 5, 5, &q, true, 0, INFINITY);
	one(dt, "dw 5x5 s1 p2 9x40, no bias", 1, 3, (int64_t[]){9, 40}, 3, 3,
	    &q, false, 1, 0);
	/* plane 1, row 4, column 6 of 9x40: NaN in the 25 outputs around */
	dw_nan_at = 9 * 40 + 4 * 40 + 6;
	one(dt, "dw 5x5 s1 p2 9x40 clip, a NaN", 1, 3, (int64_t[]){9, 40}, 3,
	    3, &q, true, -0.5, 0.5);
	dw_nan_at = -1;
	one(dt, "dw multiplier 2 5x5 s1 p2", 1, 3, (int64_t[]){6, 9}, 6, 3,
	    &q, true, 1, 0);
	q = g2(5, 5, 1, 1, 0, 3, 1, 4);
	one(dt, "dw 5x5 s1 pads 0,3,1,4 on 6x5", 1, 2, (int64_t[]){6, 5}, 2,
	    2, &q, true, 1, 0);
	q = g2(5, 5, 1, 1, 0, 0, 0, 0);
	one(dt, "dw 5x5 s1 no pads 5x5 (one output)", 1, 2,
	    (int64_t[]){5, 5}, 2, 2, &q, true, 1, 0);
	q = g2(5, 5, 2, 1, 2, 2, 2, 2);
	one(dt, "dw 5x5 s2 p2 14x14 clip", 1, 4, (int64_t[]){14, 14}, 4, 4, &q,
	    true, -0.5, 0.5);
	one(dt, "dw 5x5 s2 p2 11x71", 1, 3, (int64_t[]){11, 71}, 3, 3, &q,
	    false, 1, 0);
	dw_nan_at = 2 * 11 * 71 + 5 * 71 + 70;
	one(dt, "dw 5x5 s2 p2 11x71, a NaN in a row's last value", 1, 3,
	    (int64_t[]){11, 71}, 3, 3, &q, true, 0, INFINITY);
	dw_nan_at = -1;
	q = g2(5, 5, 2, 1, 2, 1, 2, 0);
	one(dt, "dw 5x5 s2 pads 2,1,2,0 12x13", 1, 2, (int64_t[]){12, 13}, 2,
	    2, &q, true, 1, 0);
	q = g2(5, 5, 2, 1, 6, 5, 4, 6);
	one(dt, "dw 5x5 s2 pads 6,5,4,6 on 3x4", 1, 2, (int64_t[]){3, 4}, 2,
	    2, &q, true, 1, 0);
	q = g2(7, 7, 1, 1, 3, 3, 3, 3);
	one(dt, "dw 7x7 s1 p3 14x14 relu", 1, 4, (int64_t[]){14, 14}, 4, 4, &q,
	    true, 0, INFINITY);
	one(dt, "dw 7x7 s1 p3 10x37", 2, 3, (int64_t[]){10, 37}, 3, 3, &q,
	    true, 1, 0);
	q = g2(7, 7, 2, 1, 3, 3, 3, 3);
	one(dt, "dw 7x7 s2 p3 13x13 clip", 1, 3, (int64_t[]){13, 13}, 3, 3, &q,
	    true, 0, 6);
	one(dt, "dw 7x7 s2 p3 9x70", 1, 2, (int64_t[]){9, 70}, 2, 2, &q,
	    false, 1, 0);
	/* 8 channels at a time (float32, channels a multiple of 8): 5x5
	 * and 7x7, stride 1 and 2; rows of 4 outputs and 1, 2 or 3 more;
	 * pads asymmetric, none (X's last row and column past the padded
	 * plane), and wider than the kernel; a NaN; 3x3 of stride 1 on
	 * short rows with uneven pads */
	q = g2(5, 5, 2, 1, 2, 2, 2, 2);
	one(dt, "dw 5x5 s2 p2 14x14, 16 channels, 2 images, clip", 2, 16,
	    (int64_t[]){14, 14}, 16, 16, &q, true, -0.5, 0.5);
	dw_nan_at = 8 * 11 * 13 + 5 * 13 + 12;
	one(dt, "dw 5x5 s2 p2 11x13, 16 channels, a NaN", 1, 16,
	    (int64_t[]){11, 13}, 16, 16, &q, false, 1, 0);
	dw_nan_at = -1;
	q = g2(5, 5, 2, 1, 0, 0, 0, 0);
	one(dt, "dw 5x5 s2 no pads 8x10, 8 channels", 1, 8,
	    (int64_t[]){8, 10}, 8, 8, &q, true, 0, INFINITY);
	one(dt, "dw 5x5 s2 no pads 6x40 (one output row), 8 channels", 1, 8,
	    (int64_t[]){6, 40}, 8, 8, &q, false, 1, 0);
	/* X's last column past the padded row, left pads to keep zero */
	q = g2(5, 5, 2, 1, 2, 2, 0, 0);
	one(dt, "dw 5x5 s2 pads 2,2,0,0 9x10, 8 channels", 1, 8,
	    (int64_t[]){9, 10}, 8, 8, &q, true, 1, 0);
	q = g2(5, 5, 2, 1, 6, 5, 4, 6);
	one(dt, "dw 5x5 s2 pads 6,5,4,6 on 3x4, 8 channels", 1, 8,
	    (int64_t[]){3, 4}, 8, 8, &q, true, 1, 0);
	q = g2(5, 5, 1, 1, 2, 1, 0, 3);
	one(dt, "dw 5x5 s1 pads 2,1,0,3 9x14, 24 channels", 1, 24,
	    (int64_t[]){9, 14}, 24, 24, &q, true, 0, 6);
	q = g2(7, 7, 1, 1, 3, 3, 3, 3);
	one(dt, "dw 7x7 s1 p3 10x37, 8 channels, relu", 1, 8,
	    (int64_t[]){10, 37}, 8, 8, &q, true, 0, INFINITY);
	q = g2(7, 7, 2, 1, 3, 3, 3, 3);
	one(dt, "dw 7x7 s2 p3 13x13, 16 channels, clip", 1, 16,
	    (int64_t[]){13, 13}, 16, 16, &q, true, 0, 6);
	q = g2(3, 3, 1, 1, 2, 1, 0, 2);
	one(dt, "dw 3x3 s1 pads 2,1,0,2 5x6, 8 channels", 1, 8,
	    (int64_t[]){5, 6}, 8, 8, &q, true, 1, 0);
	/* the general path: dilation, 9x9, 3x1, stride 3 */
	q = g2(3, 3, 1, 2, 2, 2, 2, 2);
	one(dt, "dw 3x3 dilation 2 p2 11x10", 1, 3, (int64_t[]){11, 10}, 3,
	    3, &q, true, 0, 6);
	q = g2(9, 9, 1, 1, 4, 4, 4, 4);
	one(dt, "dw 9x9 s1 p4 12x11", 1, 2, (int64_t[]){12, 11}, 2, 2, &q,
	    true, 1, 0);
	q = g2(3, 1, 3, 1, 1, 0, 1, 0);
	one(dt, "dw 3x1 s3 p1 10x9", 1, 2, (int64_t[]){10, 9}, 2, 2, &q,
	    false, 1, 0);
	/* 1-D and 3-D */
	q = (struct geo){.nsp = 1, .k = {1, 1, 3}, .s = {1, 1, 2},
	    .d = {1, 1, 1}, .pb = {0, 0, 1}, .pe = {0, 0, 0}};
	one(dt, "dw 1-D k3 s2 pads 1,0 len 17", 2, 3, (int64_t[]){17}, 3, 3,
	    &q, true, 1, 0);
	q = (struct geo){.nsp = 3, .k = {3, 3, 3}, .s = {1, 2, 1},
	    .d = {1, 1, 2}, .pb = {1, 1, 2}, .pe = {1, 0, 2}};
	one(dt, "dw 3-D 3x3x3 4x5x6", 1, 2, (int64_t[]){4, 5, 6}, 2, 2, &q,
	    true, 0, 6);
	/* a 3-D window of depth 1 on a depth-1 input with pads on the
	 * depth: 3 output slices (the outer two the bias alone), not a 2-D
	 * conv's one (8 channels: the channel-blocked way's shape but for
	 * the depth) */
	q = (struct geo){.nsp = 3, .k = {1, 5, 5}, .s = {1, 1, 1},
	    .d = {1, 1, 1}, .pb = {1, 2, 2}, .pe = {1, 2, 2}};
	one(dt, "dw 3-D 1x5x5 of depth 1, pads 1 on the depth, 8 channels", 1,
	    8, (int64_t[]){1, 7, 7}, 8, 8, &q, true, 1, 0);
	/* large enough for the threads: both paths */
	q = g2(3, 3, 1, 1, 1, 1, 1, 1);
	one(dt, "dw large 3x3 s1 p1 (2, 32, 40, 40)", 2, 32,
	    (int64_t[]){40, 40}, 32, 32, &q, true, 0, 6);
	q = g2(3, 3, 2, 1, 1, 1, 1, 1);
	one(dt, "dw large 3x3 s2 p1 (1, 96, 28, 28)", 1, 96,
	    (int64_t[]){28, 28}, 96, 96, &q, true, 0, 6);
	q = g2(5, 5, 1, 1, 2, 2, 2, 2);
	one(dt, "dw large 5x5 s1 p2 (1, 72, 14, 14)", 1, 72,
	    (int64_t[]){14, 14}, 72, 72, &q, true, 0, 6);
	q = g2(5, 5, 2, 1, 2, 2, 2, 2);
	one(dt, "dw large 5x5 s2 p2 (1, 40, 28, 28)", 1, 40,
	    (int64_t[]){28, 28}, 40, 40, &q, true, 1, 0);
}

/* Grouped convs of many small groups (RegNet's: 8 channels a group) run
 * their groups over the threads, each group's gemm on one thread; groups
 * of more than 64 output channels each run their gemm over the threads. */
static void
test_grouped(enum gp_dtype dt)
{
	struct geo q = g2(3, 3, 1, 1, 1, 1, 1, 1);

	one(dt, "grouped 3x3 s1 p1, 26 groups of 8, 14x14, 2 images, relu", 2,
	    208, (int64_t[]){14, 14}, 208, 26, &q, true, 0, INFINITY);
	one(dt, "grouped 3x3 s1 p1, 55 groups of 8, 7x7", 1, 440,
	    (int64_t[]){7, 7}, 440, 55, &q, false, 1, 0);
	q = g2(3, 3, 2, 1, 1, 1, 1, 1);
	one(dt, "grouped 3x3 s2 p1, 6 groups of 8, 28x27, bias", 1, 48,
	    (int64_t[]){28, 27}, 48, 6, &q, true, 1, 0);
	q = g2(3, 3, 1, 1, 1, 1, 1, 1);
	one(dt, "grouped 3x3 s1 p1, 3 groups of 16 -> 80 (each over the "
	    "threads), 12x12", 1, 48, (int64_t[]){12, 12}, 240, 3, &q, true,
	    0, 6);
}

/* The float32 gemm conv's direct path on small planes (ops/conv-gemm.c):
 * padded planes narrower than a vector (their rows written whole over the
 * next rows, never past the plane: the threads pad the planes side by
 * side), stride 2 on few output channels (its even and odd phases), and
 * row tiles of 6, 4 and 4 rows (14 output channels) or 4 and 4 (8). */
static void
test_small_planes(enum gp_dtype dt)
{
	struct geo q = g2(3, 3, 2, 1, 0, 0, 0, 0);

	one(dt, "gemm 3x3 s2 no pads, 24 -> 8 on 9x7 (phases of 4 values)", 1,
	    24, (int64_t[]){9, 7}, 8, 1, &q, true, 1, 0);
	q = g2(3, 3, 2, 1, 1, 1, 1, 1);
	one(dt, "gemm 3x3 s2 p1, 12 -> 20 on 14x13, 2 images, relu", 2, 12,
	    (int64_t[]){14, 13}, 20, 1, &q, true, 0, INFINITY);
	q = g2(3, 3, 1, 1, 1, 1, 1, 1);
	one(dt, "gemm 3x3 s1 p1, 40 -> 14 on 5x5 (padded rows of 7)", 1, 40,
	    (int64_t[]){5, 5}, 14, 1, &q, true, 0, 6);
	one(dt, "gemm 3x3 s1 p1, 48 -> 20 on 7x7, 3 images", 3, 48,
	    (int64_t[]){7, 7}, 20, 1, &q, false, 1, 0);
	q = g2(3, 3, 1, 2, 2, 2, 2, 2);
	one(dt, "gemm 3x3 s1 d2 p2, 24 -> 8 on 7x6", 1, 24,
	    (int64_t[]){7, 6}, 8, 1, &q, true, 1, 0);
	q = g2(3, 3, 1, 1, 0, 0, 0, 0);
	one(dt, "gemm 3x3 s1 no pads, 32 -> 14 on 3x9 (one output row)", 1, 32,
	    (int64_t[]){3, 9}, 14, 1, &q, true, 1, 0);
}

/* The float32 gemm conv's rows mode (few output pixels, many output
 * channels) with a last sliver of 1 to 4 columns (ops/conv-gemm.c,
 * kernel_tail): 49 pixels (16 x 3 + 1), 35 (+ 3), 18 (+ 2) and 196 (+ 4);
 * two blocks of k of 365 and 364 (not multiples of 8); row tiles of 6 and
 * 4 rows; bias or none, clamped or not; a NaN read by the last pixel's
 * outputs, through the clamp. */
static void
test_rows_tail(enum gp_dtype dt)
{
	struct geo q = g2(3, 3, 1, 1, 1, 1, 1, 1);

	one(dt, "gemm rows 3x3 s1 p1, 81 -> 100 on 7x7, bias clip", 1, 81,
	    (int64_t[]){7, 7}, 100, 1, &q, true, 0, 6);
	one(dt, "gemm rows 3x3 s1 p1, 16 -> 96 on 5x7, 2 images", 2, 16,
	    (int64_t[]){5, 7}, 96, 1, &q, false, 1, 0);
	one(dt, "gemm rows 3x3 s1 p1, 24 -> 98 on 3x6, relu", 1, 24,
	    (int64_t[]){3, 6}, 98, 1, &q, true, 0, INFINITY);
	one(dt, "gemm rows 3x3 s1 p1, 16 -> 96 on 14x14", 1, 16,
	    (int64_t[]){14, 14}, 96, 1, &q, true, 1, 0);
	dw_nan_at = 48;
	one(dt, "gemm rows 3x3 s1 p1, 72 -> 96 on 7x7, a NaN, clip", 1, 72,
	    (int64_t[]){7, 7}, 96, 1, &q, true, -1, 1);
	dw_nan_at = -1;
	q = g2(3, 3, 2, 1, 1, 1, 1, 1);
	one(dt, "gemm rows 3x3 s2 p1, 20 -> 40 on 14x14 (7x7 out)", 1, 20,
	    (int64_t[]){14, 14}, 40, 1, &q, true, 1, 0);
}

static void
test_pointwise(enum gp_dtype dt)
{
	struct geo q = g2(1, 1, 1, 1, 0, 0, 0, 0);
	struct geo q1 = {.nsp = 1, .k = {1, 1, 1}, .s = {1, 1, 1},
	    .d = {1, 1, 1}};

	one(dt, "pw small 5 -> 9 on 7x7 bias clip", 1, 5, (int64_t[]){7, 7}, 9,
	    1, &q, true, 0, 6);
	/* one pixel (a squeeze-and-excitation's): a gemv per image */
	one(dt, "pw one pixel 576 -> 144, bias clip", 1, 576,
	    (int64_t[]){1, 1}, 144, 1, &q, true, 0, 6);
	one(dt, "pw one pixel 40 -> 160, 3 images, no bias", 3, 40,
	    (int64_t[]){1, 1}, 160, 1, &q, false, 1, 0);
	one(dt, "pw one pixel 1-D 24 -> 8, relu", 2, 24, (int64_t[]){1}, 8, 1,
	    &q1, true, 0, INFINITY);
	/* column blocks (pixels >= channels), two images */
	one(dt, "pw column blocks 24 -> 16 on 56x56, 2 images, relu", 2, 24,
	    (int64_t[]){56, 56}, 16, 1, &q, true, 0, INFINITY);
	one(dt, "pw column blocks 16 -> 40 on 1-D 1001", 1, 16,
	    (int64_t[]){1001}, 40, 1, &q1, false, 1, 0);
	/* row blocks (channels > pixels) */
	one(dt, "pw row blocks 160 -> 960 on 7x7 bias clip", 1, 160,
	    (int64_t[]){7, 7}, 960, 1, &q, true, 0, 6);
	one(dt, "pw row blocks 64 -> 301 on 9x9, 3 images, no bias", 3, 64,
	    (int64_t[]){9, 9}, 301, 1, &q, false, 1, 0);
	/* two groups: the im2col path's gemm per group (not the kernel) */
	one(dt, "pw 2 groups 8 -> 6 on 5x5", 1, 8, (int64_t[]){5, 5}, 6, 2, &q,
	    true, 1, 0);
}

/* A windowed pool's geometry, 2-D: kernel, stride, dilation (both
 * dimensions alike), pads (top, left, bottom, right), ceil_mode,
 * count_include_pad. */
struct pgeo {
	int64_t	k, s, d, pt, pl, pb, pr;
	bool	ceil, incl;
};

/* Output size along one dimension (ONNX; ceil_mode: a window must start
 * inside the input or its begin pad, PyTorch's rule). */
static int64_t
pool_out(int64_t in, int64_t k, int64_t s, int64_t d, int64_t p0,
    int64_t p1, bool ceil)
{
	int64_t span = (k - 1) * d + 1, room = in + p0 + p1 - span;
	int64_t o = (ceil ? (room + s - 1) / s : room / s) + 1;

	if (ceil && (o - 1) * s >= in + p0)
		o--;
	return (o);
}

/* The windowed pools (src/ops/pool.c: each output row reduced from the
 * rows of X into a padded row, then along it, in whole vectors): a plain
 * loop from the definitions (max: the largest tap inside X, a NaN
 * winning, -inf for a window with none; average: the mean of the taps
 * inside X, or with count_include_pad of those inside X and the pads),
 * 2-D, with NaNs in the first plane, at an odd column of the last plane
 * and as the very last value of X. */
static void
one_pool(enum gp_dtype dt, const char *op, int64_t n, int64_t planes,
    int64_t h, int64_t wd, const struct pgeo *q)
{
	int64_t xs[4] = {n, planes, h, wd}, np = n * planes;
	int64_t oh = pool_out(h, q->k, q->s, q->d, q->pt, q->pb, q->ceil);
	int64_t ow = pool_out(wd, q->k, q->s, q->d, q->pl, q->pr, q->ceil);
	int x = var_fn(dt, 4, xs, fx), ni;
	bool mx = strcmp(op, "max_pool") == 0;
	char params[320], what[200], shape[96];
	double *want = malloc(sizeof(double) * (size_t)(np * oh * ow));
	const struct gp_tensor *xv;
	struct gp_tensor o;
	int64_t nan_at[3] = {3, (np - 1) * h * wd + (h / 2) * wd + 1,
	    np * h * wd - 1};

	for (int i = 0; i < 3; i++)
		gp_dtype_store(gp_tensor_data(&g->vars[x].value) + nan_at[i] *
		    (int64_t)gp_dtype_size(dt), dt, NAN);
	xv = &g->vars[x].value;
	for (int64_t pl = 0; pl < np; pl++)
	for (int64_t r = 0; r < oh; r++)
	for (int64_t c = 0; c < ow; c++) {
		double acc = mx ? -INFINITY : 0;
		int cnt = 0;

		for (int64_t u = 0; u < q->k; u++)
		for (int64_t v = 0; v < q->k; v++) {
			int64_t ih = r * q->s - q->pt + u * q->d;
			int64_t iw = c * q->s - q->pl + v * q->d;
			double e;

			if (q->incl && ih < h + q->pb && iw < wd + q->pr)
				cnt++;
			if (ih < 0 || ih >= h || iw < 0 || iw >= wd)
				continue;
			e = gp_tensor_get(xv, (pl * h + ih) * wd + iw);
			acc = !mx ? acc + e : isnan(e) || e > acc ? e : acc;
			cnt += !q->incl;
		}
		want[(pl * oh + r) * ow + c] = mx ? acc : acc / cnt;
	}
	snprintf(params, sizeof(params), "{\"kernel_shape\": [%lld, %lld], "
	    "\"strides\": [%lld, %lld], \"pads\": [%lld, %lld, %lld, %lld], "
	    "\"ceil_mode\": %d%s%s}", (long long)q->k, (long long)q->k,
	    (long long)q->s, (long long)q->s, (long long)q->pt,
	    (long long)q->pl, (long long)q->pb, (long long)q->pr, q->ceil,
	    mx || !q->incl ? "" : ", \"count_include_pad\": 1", "");
	if (q->d != 1)
		snprintf(params + strlen(params) - 1, sizeof(params) -
		    strlen(params) + 1, ", \"dilations\": [%lld, %lld]}",
		    (long long)q->d, (long long)q->d);
	snprintf(what, sizeof(what), "%s %lldx%lld s%lld d%lld pads %lld,%lld,"
	    "%lld,%lld%s%s on %lldx%lldx%lldx%lld %s", op, (long long)q->k,
	    (long long)q->k, (long long)q->s, (long long)q->d,
	    (long long)q->pt, (long long)q->pl, (long long)q->pb,
	    (long long)q->pr, q->ceil ? " ceil" : "", !mx && q->incl ?
	    " include_pad" : "", (long long)n, (long long)planes,
	    (long long)h, (long long)wd, gp_dtype_name(dt));
	snprintf(shape, sizeof(shape), "(%lld, %lld, %lld, %lld)",
	    (long long)n, (long long)planes, (long long)oh, (long long)ow);
	ni = node_ok(op, params, 1, &x);
	if (ni >= 0) {
		run_check(ni, &o, dt, shape, want, dt == GP_FLOAT32 ? 1e-5 :
		    1e-12, what);
		gp_tensor_release(&o);
	}
	free(want);
}

static void
test_pools(enum gp_dtype dt)
{
	static const char *const ops[] = {"max_pool", "average_pool"};
	const struct pgeo q3s2p1 = {3, 2, 1, 1, 1, 1, 1, false, false};
	const struct pgeo q3s1p1 = {3, 1, 1, 1, 1, 1, 1, false, false};
	const struct pgeo q2s3 = {2, 3, 1, 0, 0, 0, 0, false, false};
	const struct pgeo q3d2p2 = {3, 1, 2, 2, 2, 2, 2, false, false};
	/* squeezenet's MaxPool: partial windows at the end */
	const struct pgeo q3s2c = {3, 2, 1, 0, 0, 0, 0, true, false};
	const struct pgeo q2s2c = {2, 2, 1, 0, 0, 0, 0, true, false};
	/* odd and asymmetric pads with stride 2: X's columns start on an
	 * odd value of the padded row; dilation 3 with stride 2: the taps
	 * alternate between its even and odd values */
	const struct pgeo qasym = {3, 2, 1, 0, 1, 2, 0, true, true};
	const struct pgeo qd3s2 = {3, 2, 3, 1, 3, 2, 1, false, true};
	const struct pgeo qk1s2 = {1, 2, 1, 0, 0, 0, 0, false, false};
	const struct pgeo q5s3i = {5, 3, 1, 2, 1, 2, 2, true, true};

	for (int i = 0; i < 2; i++) {
		one_pool(dt, ops[i], 1, 3, 15, 17, &q3s2p1);
		one_pool(dt, ops[i], 1, 2, 9, 40, &q3s1p1);
		one_pool(dt, ops[i], 1, 2, 13, 11, &q2s3);
		one_pool(dt, ops[i], 1, 2, 12, 12, &q3d2p2);
		/* resnet18's MaxPool, large enough for the threads */
		one_pool(dt, ops[i], 1, 16, 56, 56, &q3s2p1);
		/* squeezenet's, on its three sizes (fewer planes): 109 ->
		 * 54 exact, 54 -> 27 with a partial window, 27 -> 13; rows
		 * of 13 and 27 outputs, several images */
		one_pool(dt, ops[i], 1, 5, 109, 109, &q3s2c);
		one_pool(dt, ops[i], 2, 24, 54, 54, &q3s2c);
		one_pool(dt, ops[i], 3, 40, 27, 27, &q3s2c);
		/* rows shorter than a vector: the outputs past a row run
		 * into the next rows, and past the last one */
		one_pool(dt, ops[i], 1, 7, 9, 9, &q3s2c);
		one_pool(dt, ops[i], 2, 3, 5, 5, &q2s2c);
		one_pool(dt, ops[i], 1, 300, 3, 3, &q2s2c);
		one_pool(dt, ops[i], 1, 4, 11, 23, &qasym);
		one_pool(dt, ops[i], 1, 3, 14, 31, &qd3s2);
		one_pool(dt, ops[i], 1, 2, 7, 19, &qk1s2);
		one_pool(dt, ops[i], 2, 3, 16, 21, &q5s3i);
		one_pool(dt, ops[i], 1, 64, 33, 65, &qasym);
	}
}

/* The global pools (vector reductions): a plain loop, plane lengths
 * around a vector's multiples, a NaN in one plane. */
static void
one_gpool(enum gp_dtype dt, const char *op, int64_t planes, int64_t h,
    int64_t wd)
{
	int64_t xs[4] = {1, planes, h, wd}, len = h * wd;
	int x = var_fn(dt, 4, xs, fx), ni;
	bool mx = strcmp(op, "global_max_pool") == 0;
	double *want = malloc(sizeof(double) * (size_t)planes);
	const struct gp_tensor *xv;
	struct gp_tensor o;
	char what[120], shape[64];

	gp_dtype_store(gp_tensor_data(&g->vars[x].value) + (planes / 2 * len +
	    len - 1) * (int64_t)gp_dtype_size(dt), dt, NAN);
	xv = &g->vars[x].value;
	for (int64_t pl = 0; pl < planes; pl++) {
		double acc = mx ? -INFINITY : 0;

		for (int64_t i = 0; i < len; i++) {
			double e = gp_tensor_get(xv, pl * len + i);

			acc = !mx ? acc + e : isnan(e) || e > acc ? e : acc;
		}
		want[pl] = mx ? acc : acc / (double)len;
	}
	snprintf(what, sizeof(what), "%s %lldx%lldx%lld %s", op,
	    (long long)planes, (long long)h, (long long)wd,
	    gp_dtype_name(dt));
	snprintf(shape, sizeof(shape), "(1, %lld, 1, 1)", (long long)planes);
	ni = node_ok(op, NULL, 1, &x);
	if (ni >= 0) {
		run_check(ni, &o, dt, shape, want, dt == GP_FLOAT32 ? 1e-5 :
		    1e-12, what);
		gp_tensor_release(&o);
	}
	free(want);
}

static void
test_gpools(enum gp_dtype dt)
{
	static const char *const ops[] = {"global_max_pool",
	    "global_average_pool"};

	for (int i = 0; i < 2; i++) {
		one_gpool(dt, ops[i], 5, 1, 1);
		one_gpool(dt, ops[i], 3, 1, 7);
		one_gpool(dt, ops[i], 7, 3, 3);
		/* mobilenet_v2's and squeezenet's, over the threads */
		one_gpool(dt, ops[i], 1280, 7, 7);
		one_gpool(dt, ops[i], 1000, 13, 13);
		one_gpool(dt, ops[i], 2, 33, 31);
	}
}

int
main(void)
{
	g = gp_graph_new("conv-kern");
	test_depthwise(GP_FLOAT32);
	test_depthwise(GP_FLOAT64);
	test_pointwise(GP_FLOAT32);
	test_pointwise(GP_FLOAT64);
	test_grouped(GP_FLOAT32);
	test_grouped(GP_FLOAT64);
	test_small_planes(GP_FLOAT32);
	test_small_planes(GP_FLOAT64);
	test_rows_tail(GP_FLOAT32);
	test_rows_tail(GP_FLOAT64);
	test_pools(GP_FLOAT32);
	test_pools(GP_FLOAT64);
	test_gpools(GP_FLOAT32);
	test_gpools(GP_FLOAT64);
	gp_graph_free(g);
	return (done_testing());
}
