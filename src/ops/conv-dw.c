/*
 * ops/conv-dw.c: the depthwise convolution kernel (conv with one input
 * channel per group, any channel multiplier: MobileNet's 3x3 convs,
 * MobileNetV3's and EfficientNet's 5x5, ConvNeXt's 7x7), float32 and
 * float64 from one definition instantiated by a macro.
 *
 * The output planes (image, channel) are an OpenMP parallel loop
 * (ops/par.h), in one run of consecutive planes per thread.  A 2-D 3x3,
 * 5x5 or 7x7 kernel with stride 1 or 2 and no dilation (planek_) copies
 * the part of the input plane its outputs read into a zero-padded buffer
 * of the run's scratch (stride 2: four planes, of the even and odd rows
 * and columns, so that the taps of consecutive outputs are consecutive;
 * the pads are zeroed once per run, the layout being the same for every
 * plane), then sums the taps, the bias and the clamp of each output in
 * one vectorized loop with no bounds test: along each output row, or
 * along the whole padded plane at once when rows are short.  planek_, a
 * function a kernel size (plane3_, plane5_, plane7_), is compiled for
 * the baseline and for AVX2 with FMA (GP_SIMD_CLONES), and
 * the file lets GCC contract a * b + c into one FMA (-std=c11 forbids it
 * by default: the 3x3 sums ran at half the speed).  Any other kernel,
 * stride or dilation (row_gen_) sums one tap at a time along each output
 * row, between the first and last output whose tap lies inside X, then
 * clamps the row.  In float32 on AVX2 and FMA, with channels a multiple
 * of 8, the 5x5 and 7x7 kernels and the 3x3 of stride 1 on short rows
 * go 8 channels at a time, the planes transposed so that one vector holds
 * a pixel's 8 channels (cb_block; cb_geom says where it pays).
 * Stride 2 in float32 on AVX2 and FMA (s2_plane) reads the taps where X
 * lies (or, for uncommon pads, from a plainly padded copy) and splits
 * them into even and odd in registers.  The clamp is a fused Relu or Clip
 * (act_min/act_max); without one its bounds are -inf and inf, and a NaN
 * passes through.
 */
#include "config.h"

/* a * b + c as one FMA where the target has it (see above) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast", "no-tree-loop-distribute-patterns")
#endif

#include "ops/conv-kern.h"
#include "ops/ops.h"
#include "ops/par.h"
#include "ops/scratch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t
vol(const int64_t *v)
{
	return (v[0] * v[1] * v[2]);
}

/* The outputs o in [*lo, *hi) whose tap o*s + off lies in [0, in),
 * within [c0, c1). */
static inline void
tap_range(int64_t off, int64_t s, int64_t in, int64_t c0, int64_t c1,
    int64_t *lo, int64_t *hi)
{
	int64_t l = off >= 0 ? 0 : (-off + s - 1) / s;
	int64_t h = in - 1 - off < 0 ? 0 : (in - 1 - off) / s + 1;

	if (l < c0)
		l = c0;
	if (h > c1)
		h = c1;
	if (l > h)
		l = h;
	*lo = l;
	*hi = h;
}

/* d[0, bytes) = s[0, bytes) in pieces of 32 bytes (16 under 32), the
 * last one ending at bytes, over the one before when bytes is not a
 * multiple: the rows of planek_'s short planes (14 values) copied with
 * no element-by-element tail. */
static inline __attribute__((always_inline)) void
row_copy(void *restrict d, const void *restrict s, size_t bytes)
{
	char *dc = d;
	const char *sc = s;
	size_t i = 0;

	if (bytes < 16) {
		for (; i < bytes; i++)
			dc[i] = sc[i];
		return;
	}
	if (bytes < 32) {
		memcpy(dc, sc, 16);
		memcpy(dc + bytes - 16, sc + bytes - 16, 16);
		return;
	}
	for (; i + 32 <= bytes; i += 32)
		memcpy(dc + i, sc + i, 32);
	if (i < bytes)
		memcpy(dc + bytes - 32, sc + bytes - 32, 32);
}

/* Does planek_ take this geometry?  2-D (a 3-D window of depth 1 with
 * no depth pads), 3x3, 5x5 or 7x7, stride 1 or 2 both ways, no
 * dilation. */
static bool
fastk(const struct gp_win *w)
{
	return (w->k[0] == 1 && w->in[0] == 1 && w->out[0] == 1 &&
	    w->k[1] == w->k[2] &&
	    (w->k[1] == 3 || w->k[1] == 5 || w->k[1] == 7) &&
	    w->d[1] == 1 && w->d[2] == 1 && w->s[1] == w->s[2] &&
	    (w->s[1] == 1 || w->s[1] == 2));
}

/* The 3x3 of those (s2_plane's). */
static bool
fast3(const struct gp_win *w)
{
	return (fastk(w) && w->k[1] == 3);
}

struct cbp {
	int64_t	ih, iw, oh, ow, pt, pl;
	int64_t	hp, wp;		/* the padded plane, in vectors */
};

static void
cb_plan(const struct gp_win *w, struct cbp *c)
{
	c->ih = w->in[1];
	c->iw = w->in[2];
	c->oh = w->out[1];
	c->ow = w->out[2];
	c->pt = w->pb[1];
	c->pl = w->pb[2];
	c->hp = (c->oh - 1) * w->s[1] + w->k[1];
	c->wp = (c->ow - 1) * w->s[2] + w->k[2];
}

/* cb_block's work space (values): the padded plane and the outputs. */
static int64_t
cb_len(const struct gp_win *w)
{
	struct cbp c;

	cb_plan(w, &c);
	return (8 * (c.hp * c.wp + c.oh * c.ow));
}

/* Does cb_block take this geometry (in float32 on AVX2 and FMA, 8
 * channels at a time; pads of at least 0)?  Measured against planek_
 * (bench-conv, one thread and two): 3x3 of stride 1 on rows of at most 8
 * outputs (MobileNet's 7x7 layers: 0.6-0.68 of the time; at 14x14
 * 0.97-1.1, at 28x28 and stride 2 1.2-2.2, so not those); 5x5 and 7x7,
 * except 5x5 of stride 1 on rows of more than 16 (28x28: 0.91-1.09):
 * 5x5 at 7x7 0.55-0.6, at 14x14 0.8-0.86, stride 2 0.45-0.74, 7x7 at
 * 14x14 0.75-0.77 and at 56x56 0.58-0.71. */
static bool
cb_geom(const struct gp_win *w)
{
	int64_t K = w->k[1], S = w->s[1], ow = w->out[2];

	if (!fastk(w) || w->pb[1] < 0 || w->pb[2] < 0)
		return (false);
	if (K == 3)
		return (S == 1 && ow <= 8);
	return (K == 7 || S == 2 || ow <= 16);
}

/* The work space of planek_ (values): the padded plane (stride 2: its
 * four planes of even and odd rows and columns; stride 1: then 8 zeros),
 * then the outputs as one long row (stride 1: and 8 values past it, see
 * pad3_plan). */
#define S2_MAX(a, b)	((a) > (b) ? (a) : (b))

static int64_t
pad3_len(const struct gp_win *w)
{
	int64_t s = w->s[2], oh = w->out[1], ow = w->out[2], s2;
	int64_t h = w->k[1] - 1, hh = h / 2;

	if (s == 1)
		return ((oh + h) * (ow + h) + 8 + oh * (ow + h) + 8);
	/* or, if larger, s2_plane's plainly padded plane (s2_plan) */
	s2 = fast3(w) ? (2 * oh + 2) * (2 * ((ow + 7) / 8 * 8) + 2) : 0;
	return (S2_MAX(4 * (oh + hh) * (ow + hh) + oh * (ow + hh), s2));
}

int64_t
gp_conv_dw_work(const struct gp_win *w)
{
	if (!fastk(w))
		return (0);
	return (S2_MAX(pad3_len(w), cb_geom(w) ? cb_len(w) : 0));
}

/* How planek_ lays out a plane in its work space, the same for every
 * plane of a call: the padded plane (rows of ld values; stride 2: four
 * planes, sub values apart, of its even and odd rows and columns), then
 * the outputs as one long row (at tmp), and which of its values hold X. */
struct pad3 {
	int64_t	s, oh, ow;	/* stride, output rows and columns */
	int64_t	ld, sub, tmp;
	int64_t	zero;		/* the padded planes' values (zeroed),
				 * and stride 1's 8 zeros after them */
	int64_t	pt, pl, iw;	/* X's top and left pads, X's row length */
	int64_t	r0, r1;		/* padded rows [r0, r1) hold X's rows */
	int64_t	j0[2], j1[2];	/* their columns S j + q, j in [j0, j1) */
	int64_t	len;		/* outputs of the whole plane as one row */
	bool	whole;		/* compute along the whole plane at once */
};

static void
pad3_plan(const struct gp_win *w, struct pad3 *p)
{
	int64_t K = w->k[1], S = w->s[2], hp = (w->out[1] - 1) * S + K;
	int64_t wp = (w->out[2] - 1) * S + K, a, e;

	/* stride 2: each of the four planes has (K - 1) / 2 rows and
	 * columns past the outputs' */
	p->s = S;
	p->oh = w->out[1];
	p->ow = w->out[2];
	p->ld = S == 1 ? wp : p->ow + (K - 1) / 2;
	p->sub = (p->oh + (K - 1) / 2) * p->ld;
	p->tmp = p->zero = S == 1 ? hp * p->ld + 8 : 4 * p->sub;
	p->pt = w->pb[1];
	p->pl = w->pb[2];
	p->iw = w->in[2];
	p->r0 = p->pt < hp ? p->pt : hp;
	p->r1 = p->pt + w->in[1] < hp ? p->pt + w->in[1] : hp;
	/* padded columns [a, e) hold X's columns [a - pl, e - pl) */
	a = p->pl < wp ? p->pl : wp;
	e = p->pl + w->in[2] < wp ? p->pl + w->in[2] : wp;
	for (int64_t q = 0; q < 2; q++) {
		p->j0[q] = (a - q + S - 1) / S;
		p->j1[q] = (e - q + S - 1) / S;
		if (p->j1[q] < p->j0[q])
			p->j1[q] = p->j0[q];
	}
	p->whole = p->ow < 32;
	/* stride 1: up to a multiple of 8 values, so that the taps' loop
	 * has no scalar tail (14x14 planes: 0.88-0.91 of the time with the
	 * row copies of row_copy, bench-conv); the extra outputs read the 8
	 * zeros after the padded plane and land in the 8 values after tmp's
	 * row, and are never copied out */
	p->len = (p->oh - 1) * p->ld + p->ow;
	if (S == 1)
		p->len = (p->len + 7) / 8 * 8;
}

/* v clamped to [lo, hi]; a NaN stays NaN.  Two selects (GCC does not
 * if-convert the nested conditional in a vectorized loop). */
static inline float
clamp_f32(float v, float lo, float hi)
{
	v = v < lo ? lo : v;
	return (v > hi ? hi : v);
}

static inline double
clamp_f64(double v, double lo, double hi)
{
	v = v < lo ? lo : v;
	return (v > hi ? hi : v);
}

/*
 * Stride 2 in float32 on AVX2 and FMA (MobileNet's four strided 3x3
 * layers): for each output row and 8 outputs, the taps of each kernel row
 * come from two loads of 8 consecutive inputs and two more 2 values on,
 * split into their even and odd values in registers, so that no copy
 * splits the plane into its even and odd rows and columns (that split's
 * short strided loops took most of the time on 14x14 and 28x28 planes).
 * The split is one shuffle within the 128-bit lanes, which leaves the 8
 * sums in the order 0 1 4 5 2 3 6 7; one permute puts them in order before
 * the store (rather than one per tap: 0.89-0.96 of the time).  Where the
 * input is a plane of 2 oh x 2 ow and the pads 1 at the top and left (a
 * "same" conv of even size: all of MobileNet's), s2_direct reads X where
 * it lies (no copy of the plane: 0.82-0.92 of the time, bench-conv): the
 * top pad row is skipped; per kernel row, two loads from the centre
 * taps' first column give the centre and right taps, the left taps are
 * the right ones one lane on (the left pad entering as 0), and only the
 * vectors past the plane's end are masked loads; the rows of the next
 * output row are prefetched.  Against four loads per kernel row and
 * masked loads at every row's start: 0.69 of the time at 96 channels of
 * 112x112, 0.62 at 144 of 56x56 (one thread).  Other geometries copy the
 * plane row by row into a plainly padded buffer first (s2_plane).  The
 * same sum (bias, then the taps row by row, FMA by FMA) and clamp as
 * taps2_.
 */
struct s2plan {
	bool	avx;		/* the CPU has AVX2 and FMA */
	bool	on, direct;
	int64_t	oh, ow, ih, iw, pt, pl;
	int64_t	ldp, len;	/* padded row stride; values (all rows) */
	int64_t	r0, r1, c0, c1;	/* padded rows, columns holding X */
};

static void
s2_plan(const struct gp_win *w, int64_t plen, struct s2plan *q)
{
	bool avx = false;
	int64_t hp, wp;

	memset(q, 0, sizeof(*q));
#if defined(__x86_64__) && defined(__GNUC__)
	__builtin_cpu_init();
	avx = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
	q->avx = avx;
	if (!avx || !fast3(w) || w->s[1] != 2 || w->pb[1] < 0 ||
	    w->pb[2] < 0)
		return;
	q->oh = w->out[1];
	q->ow = w->out[2];
	q->ih = w->in[1];
	q->iw = w->in[2];
	q->pt = w->pb[1];
	q->pl = w->pb[2];
	/* 2 values an output rounded to whole vectors, and the loads' reach
	 * (2 past them) */
	q->ldp = 2 * ((q->ow + 7) / 8 * 8) + 2;
	q->len = (2 * q->oh + 2) * q->ldp;
	hp = 2 * q->oh + 1;
	wp = 2 * q->ow + 1;
	q->r0 = q->pt < hp ? q->pt : hp;
	q->r1 = q->pt + q->ih < hp ? q->pt + q->ih : hp;
	q->c0 = q->pl < wp ? q->pl : wp;
	q->c1 = q->pl + q->iw < wp ? q->pl + q->iw : wp;
	q->direct = q->pt == 1 && q->pl == 1 && q->ih == 2 * q->oh &&
	    q->iw == 2 * q->ow;
	q->on = q->direct || q->len <= plen;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include "ops/lanes.h"

/* p[a .. b) in lanes a to b - 1 (b past 8: to 7), zeros in the others;
 * the lanes outside are not read. */
__attribute__((target("avx2"), always_inline)) static inline __m256
s2_lanes(const float *p, int64_t a, int64_t b)
{
	__m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);

	return (_mm256_maskload_ps(p, _mm256_and_si256(_mm256_cmpgt_epi32(
	    lane, _mm256_set1_epi32((int)a - 1)), _mm256_cmpgt_epi32(
	    _mm256_set1_epi32((int)(b < 8 ? b : 8)), lane))));
}

/* acc + the three taps of one kernel row (weights w0, w1, w2) for 8
 * outputs, from the inputs t[0 .. 18) as l = t[0 .. 8), h = t[8 .. 16),
 * l2 = t[2 .. 10), h2 = t[10 .. 18): in the order 0 1 4 5 2 3 6 7. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256
s2_row(__m256 acc, __m256 l, __m256 h, __m256 l2, __m256 h2, __m256 w0,
    __m256 w1, __m256 w2)
{
	acc = _mm256_fmadd_ps(w0, _mm256_shuffle_ps(l, h, 0x88), acc);
	acc = _mm256_fmadd_ps(w1, _mm256_shuffle_ps(l, h, 0xdd), acc);
	return (_mm256_fmadd_ps(w2, _mm256_shuffle_ps(l2, h2, 0x88), acc));
}

/* The 8 sums of outputs o .. o + 7 of row yr, clamped, in order, stored
 * (the last of a row: past the row's end are the next rows' starts,
 * written after, inside the plane; the plane's last: only its lanes). */
__attribute__((target("avx2,fma"), always_inline)) static inline void
s2_store(float *yr, int64_t o, int64_t oh, const struct s2plan *q,
    __m256 acc, __m256 vlo, __m256 vhi)
{
	/* clamp_f32: max(lo, v), min(hi, v) return v when it is NaN (the
	 * second operand) */
	acc = _mm256_min_ps(vhi, _mm256_max_ps(vlo, acc));
	acc = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(acc),
	    0xd8));
	if (o + 8 <= q->ow || (oh * q->ow + o + 8 <= q->oh * q->ow))
		_mm256_storeu_ps(yr + o, acc);
	else
		gp_lanes_store(yr + o, acc, (int)(q->ow - o));
}

/* acc + the three taps of one input row t for 8 outputs (see s2_direct);
 * n: the values left in the plane from t (masked loads below 16). */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256
s2_taps(__m256 acc, const float *t, int64_t n, __m256 w0, __m256 w1,
    __m256 w2, __m256 *carry)
{
	/* lane j of the left taps: the odd value of output pi(j) - 1, pi =
	 * 0 1 4 5 2 3 6 7 the order of the split; lane 0 gets odd value 7,
	 * the next vector's left tap 0 */
	const __m256i rot = _mm256_setr_epi32(7, 0, 5, 2, 1, 4, 3, 6);
	__m256 a, b, od, p;

	if (n >= 16) {
		a = _mm256_loadu_ps(t);
		b = _mm256_loadu_ps(t + 8);
	} else {
		a = s2_lanes(t, 0, n);
		b = s2_lanes(t + 8, 0, n - 8);
	}
	od = _mm256_shuffle_ps(a, b, 0xdd);
	p = _mm256_permutevar8x32_ps(od, rot);
	acc = _mm256_fmadd_ps(w0, _mm256_blend_ps(p, *carry, 1), acc);
	*carry = p;
	acc = _mm256_fmadd_ps(w1, _mm256_shuffle_ps(a, b, 0x88), acc);
	return (_mm256_fmadd_ps(w2, od, acc));
}

/* acc + the taps of 8 outputs near the plane's end (s2_direct's rare
 * case, out of its loop): t the centre row's first tap, n the values left
 * in the plane from the row below t, top whether the row above t is X's
 * (not the top pad); carry: the three rows' carried vectors. */
__attribute__((target("avx2,fma"), noinline, cold)) static __m256
s2_edge(__m256 acc, const float *t, int64_t iw, int64_t n, bool top,
    const float *wc, __m256 *carry)
{
	__m256 w[9];

	for (int k = 0; k < 9; k++)
		w[k] = _mm256_set1_ps(wc[k]);
	if (top)
		acc = s2_taps(acc, t - iw, n + 2 * iw, w[0], w[1], w[2],
		    &carry[0]);
	acc = s2_taps(acc, t, n + iw, w[3], w[4], w[5], &carry[1]);
	return (s2_taps(acc, t + iw, n, w[6], w[7], w[8], &carry[2]));
}

/* One plane read where it lies (q->direct: output (oh, o) reads input
 * rows 2 oh - 1 .. 2 oh + 1, columns 2 o - 1 .. 2 o + 1).  Per input row
 * and 8 outputs: two loads from column 2 o, split into the even columns
 * (the centre taps) and the odd ones (the right taps); the left taps are
 * the odd ones one lane on, with the previous vector's last odd value
 * (0 at the row's start: the left pad) in lane 0; masked loads only
 * past the plane's end. */
__attribute__((target("avx2,fma"))) static void
s2_direct(const float *xc, const float *wc, float bv, float *yc,
    const struct s2plan *q, float lo, float hi)
{
	__m256 w0 = _mm256_set1_ps(wc[0]), w1 = _mm256_set1_ps(wc[1]);
	__m256 w2 = _mm256_set1_ps(wc[2]), w3 = _mm256_set1_ps(wc[3]);
	__m256 w4 = _mm256_set1_ps(wc[4]), w5 = _mm256_set1_ps(wc[5]);
	__m256 w6 = _mm256_set1_ps(wc[6]), w7 = _mm256_set1_ps(wc[7]);
	__m256 w8 = _mm256_set1_ps(wc[8]), vb = _mm256_set1_ps(bv);
	__m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
	const int64_t oh_n = q->oh, ow_n = q->ow, iw = q->iw;
	const int64_t len = q->ih * iw;		/* the plane's values */

	for (int64_t oh = 0; oh < oh_n; oh++) {
		const float *r1 = xc + 2 * oh * iw, *r2 = r1 + iw;
		const float *r0 = oh > 0 ? r1 - iw : r1;
		__m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0;
		bool last = oh == oh_n - 1;
		/* the values left in the plane from row 2 oh + 1 */
		int64_t left = len - (2 * oh + 1) * iw;

		for (int64_t o = 0; o < ow_n; o += 8) {
			__m256 acc = vb;
			int64_t c = 2 * o;

			/* the next output row's rows: 0.77 of the time at
			 * 112x112 */
			if (!last) {
				_mm_prefetch((const char *)(r2 + iw + c),
				    _MM_HINT_T0);
				_mm_prefetch((const char *)(r2 + 2 * iw + c),
				    _MM_HINT_T0);
			}
			/* oh 0: row -1 is the top pad.  A load of 16 from a
			 * row is masked where it would pass the plane's end
			 * (a small plane's rows, or the last row's end); the
			 * rows above row 2 oh + 1 have more room than it */
			if (left - c >= 16) {
				if (oh > 0)
					acc = s2_taps(acc, r0 + c, 16, w0, w1,
					    w2, &c0);
				acc = s2_taps(acc, r1 + c, 16, w3, w4, w5,
				    &c1);
				acc = s2_taps(acc, r2 + c, 16, w6, w7, w8,
				    &c2);
			} else {
				__m256 cr[3] = {c0, c1, c2};

				acc = s2_edge(acc, r1 + c, iw, left - c,
				    oh > 0, wc, cr);
				c0 = cr[0];
				c1 = cr[1];
				c2 = cr[2];
			}
			s2_store(yc + oh * ow_n, o, oh, q, acc, vlo, vhi);
		}
	}
}

/* One plane copied row by row into buf, plainly padded (its pads zeroed
 * once per run of planes), and read there (padded rows 2 oh ..,
 * columns 2 o ..); or read where it lies by s2_direct. */
__attribute__((target("avx2,fma"))) static void
s2_plane(const float *xc, const float *wc, float bv, float *yc,
    const struct s2plan *q, float *buf, float lo, float hi)
{
	__m256 wv[9], vb = _mm256_set1_ps(bv), vlo = _mm256_set1_ps(lo);
	__m256 vhi = _mm256_set1_ps(hi);
	const float *src = buf;
	int64_t ld = q->ldp;

	if (q->direct) {
		s2_direct(xc, wc, bv, yc, q, lo, hi);
		return;
	}
	for (int64_t r = q->r0; r < q->r1; r++)
		memcpy(buf + r * q->ldp + q->c0, xc + (r - q->pt) * q->iw +
		    (q->c0 - q->pl), sizeof(float) * (size_t)(q->c1 - q->c0));
	for (int k = 0; k < 9; k++)
		wv[k] = _mm256_set1_ps(wc[k]);
	for (int64_t oh = 0; oh < q->oh; oh++) {
		for (int64_t o = 0; o < q->ow; o += 8) {
			__m256 acc = vb;

			for (int kh = 0; kh < 3; kh++) {
				const float *t = src + (2 * oh + kh) * ld +
				    2 * o;

				acc = s2_row(acc, _mm256_loadu_ps(t),
				    _mm256_loadu_ps(t + 8),
				    _mm256_loadu_ps(t + 2),
				    _mm256_loadu_ps(t + 10), wv[3 * kh],
				    wv[3 * kh + 1], wv[3 * kh + 2]);
			}
			s2_store(yc + oh * q->ow, o, oh, q, acc, vlo, vhi);
		}
	}
}

/*
 * Eight channels at once (cb_geom's geometries): the 8 planes x[c * ivol]
 * transposed, row by row and 8 pixels at a time, into one padded plane
 * of 8-channel vectors at buf (cbp's hp x wp of them, the border zeroed by
 * the caller and never written), so that each output is K x K vector
 * multiply-adds of the 8 channels' taps, with no short rows and, at
 * stride 2, no split into even and odd values; the outputs go to a plane
 * of vectors after it, 4 of a row at a time (each weight loaded once for
 * 4 multiply-adds), and are transposed back 8 at a time into the 8 output
 * planes.  On short planes the per-plane way (planek_) spends most of its
 * time on its row copies.  The same sum (bias, then the taps row by row,
 * FMA by FMA) and clamp as taps1_ and taps2_.
 */
/* NB consecutive outputs of a row (o: NB vectors) from the padded plane
 * at t (the first output's top-left tap; rows wp vectors apart): each
 * weight loaded once for NB multiply-adds. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
cb_outs(float *o, const float *t, int64_t wp, const float (*tw)[8],
    __m256 bv, __m256 vlo, __m256 vhi, const int K, const int S,
    const int NB)
{
	__m256 a0 = bv, a1 = bv, a2 = bv, a3 = bv;

	for (int kh = 0; kh < K; kh++)
		for (int kw = 0; kw < K; kw++) {
			__m256 wv = _mm256_load_ps(tw[kh * K + kw]);
			const float *u = t + 8 * (kh * wp + kw);

			a0 = _mm256_fmadd_ps(wv, _mm256_loadu_ps(u), a0);
			if (NB > 1)
				a1 = _mm256_fmadd_ps(wv, _mm256_loadu_ps(u +
				    8 * S), a1);
			if (NB > 2)
				a2 = _mm256_fmadd_ps(wv, _mm256_loadu_ps(u +
				    16 * S), a2);
			if (NB > 3)
				a3 = _mm256_fmadd_ps(wv, _mm256_loadu_ps(u +
				    24 * S), a3);
		}
	_mm256_storeu_ps(o, _mm256_min_ps(vhi, _mm256_max_ps(vlo, a0)));
	if (NB > 1)
		_mm256_storeu_ps(o + 8, _mm256_min_ps(vhi, _mm256_max_ps(vlo,
		    a1)));
	if (NB > 2)
		_mm256_storeu_ps(o + 16, _mm256_min_ps(vhi,
		    _mm256_max_ps(vlo, a2)));
	if (NB > 3)
		_mm256_storeu_ps(o + 24, _mm256_min_ps(vhi,
		    _mm256_max_ps(vlo, a3)));
}

__attribute__((target("avx2,fma"), always_inline)) static inline void
cb_block_k(const float *x, const float *wt, const float *b, float *y,
    const struct cbp *g, float *buf, float lo, float hi, const int K,
    const int S)
{
	int64_t ivol = g->ih * g->iw, n = g->oh * g->ow, wp = g->wp;
	float *ob = buf + 8 * g->hp * wp;
	__m256 r[8], vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
	__m256 bv = _mm256_setzero_ps();
	float tw[49][8] __attribute__((aligned(32)));

	for (int c = 0; c < 8; c++)
		for (int k = 0; k < K * K; k++)
			tw[k][c] = wt[c * K * K + k];
	if (b != NULL)
		bv = _mm256_loadu_ps(b);
	/* X's rows into the padded plane (those inside it) */
	for (int64_t i = 0; i < g->ih && i + g->pt < g->hp; i++) {
		float *d = buf + 8 * ((i + g->pt) * wp + g->pl);
		int64_t cols = g->iw < wp - g->pl ? g->iw : wp - g->pl;

		for (int64_t j = 0; j < cols; j += 8) {
			int cnt = cols - j < 8 ? (int)(cols - j) : 8;

			for (int c = 0; c < 8; c++)
				r[c] = gp_lanes_load(x + c * ivol + i * g->iw +
				    j, cnt);
			gp_transpose8(r);
			for (int k = 0; k < cnt; k++)
				_mm256_storeu_ps(d + 8 * (j + k), r[k]);
		}
	}
	/* the outputs, 4 of a row at a time, then the 1 to 3 left */
	for (int64_t oh = 0; oh < g->oh; oh++) {
		const float *r0 = buf + 8 * (oh * S * wp);
		float *o = ob + 8 * oh * g->ow;
		int64_t ow = 0;

		for (; ow + 4 <= g->ow; ow += 4)
			cb_outs(o + 8 * ow, r0 + 8 * ow * S, wp, tw, bv, vlo,
			    vhi, K, S, 4);
		switch (g->ow - ow) {
		case 3:
			cb_outs(o + 8 * ow, r0 + 8 * ow * S, wp, tw, bv, vlo,
			    vhi, K, S, 3);
			break;
		case 2:
			cb_outs(o + 8 * ow, r0 + 8 * ow * S, wp, tw, bv, vlo,
			    vhi, K, S, 2);
			break;
		case 1:
			cb_outs(o + 8 * ow, r0 + 8 * ow * S, wp, tw, bv, vlo,
			    vhi, K, S, 1);
			break;
		}
	}
	/* back into the 8 output planes, 8 outputs at a time */
	for (int64_t p = 0; p < n; p += 8) {
		int cnt = n - p < 8 ? (int)(n - p) : 8;

		for (int k = 0; k < 8; k++)
			r[k] = k < cnt ? _mm256_loadu_ps(ob + 8 * (p + k)) :
			    _mm256_setzero_ps();
		gp_transpose8(r);
		for (int c = 0; c < 8; c++)
			gp_lanes_store(y + c * n + p, r[c], cnt);
	}
}

/* cb_block_k for each kernel side and stride, a function of its own. */
#define CB_DEF(K, S)							\
	__attribute__((target("avx2,fma"))) static void		\
	cb_block_##K##_##S(const float *x, const float *wt,		\
	    const float *b, float *y, const struct cbp *g, float *buf,	\
	    float lo, float hi)						\
	{								\
		cb_block_k(x, wt, b, y, g, buf, lo, hi, K, S);		\
	}
CB_DEF(3, 1)
CB_DEF(5, 1)
CB_DEF(5, 2)
CB_DEF(7, 1)
CB_DEF(7, 2)

static void
cb_block(const float *x, const float *wt, const float *b, float *y,
    const struct gp_win *w, float *buf, float lo, float hi)
{
	static void (*const fns[3][2])(const float *, const float *,
	    const float *, float *, const struct cbp *, float *, float,
	    float) = {
		{cb_block_3_1, NULL},	/* cb_geom takes no 3x3 of stride 2 */
		{cb_block_5_1, cb_block_5_2},
		{cb_block_7_1, cb_block_7_2},
	};
	struct cbp g;

	cb_plan(w, &g);
	fns[w->k[1] / 2 - 1][w->s[1] - 1](x, wt, b, y, &g, buf, lo, hi);
}

/* A row of n outputs of a stride-1 K x K kernel (5x5, 7x7) in float32,
 * 32 outputs at a time: each tap's weight broadcast once for 4 vectors
 * of outputs.  The generic sum (tapsk1_) ran a vector at a time with its
 * K x K weights and tap addresses reloaded from the stack for each (25
 * or 49 do not fit the registers): 3 loads an FMA.  The same sum (bias,
 * then the taps in row order, FMA by FMA) and clamp; returns how many
 * outputs it did (a multiple of 32), the rest left to tapsk1_. */
__attribute__((target("avx2,fma"))) static int64_t
tapsk_blocked(float *restrict o, const float *restrict r0, int64_t ld,
    int64_t n, const float *restrict wc, float bv, float lo, float hi, int K)
{
	__m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
	int64_t j;

	for (j = 0; j + 32 <= n; j += 32) {
		__m256 a0 = _mm256_set1_ps(bv), a1 = a0, a2 = a0, a3 = a0;

		for (int kh = 0; kh < K; kh++) {
			const float *r = r0 + kh * ld + j;

			for (int kw = 0; kw < K; kw++) {
				__m256 w = _mm256_broadcast_ss(wc + kh * K + kw);

				a0 = _mm256_fmadd_ps(w, _mm256_loadu_ps(r + kw),
				    a0);
				a1 = _mm256_fmadd_ps(w, _mm256_loadu_ps(r + kw +
				    8), a1);
				a2 = _mm256_fmadd_ps(w, _mm256_loadu_ps(r + kw +
				    16), a2);
				a3 = _mm256_fmadd_ps(w, _mm256_loadu_ps(r + kw +
				    24), a3);
			}
		}
		/* clamp_f32's order: a NaN passes */
		_mm256_storeu_ps(o + j, _mm256_min_ps(vhi, _mm256_max_ps(vlo,
		    a0)));
		_mm256_storeu_ps(o + j + 8, _mm256_min_ps(vhi,
		    _mm256_max_ps(vlo, a1)));
		_mm256_storeu_ps(o + j + 16, _mm256_min_ps(vhi,
		    _mm256_max_ps(vlo, a2)));
		_mm256_storeu_ps(o + j + 24, _mm256_min_ps(vhi,
		    _mm256_max_ps(vlo, a3)));
	}
	return (j);
}

#define TAPSK_BLOCKED_f32(o, r0, ld, n, wc, bv, lo, hi, K)		\
	(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? \
	    tapsk_blocked(o, r0, ld, n, wc, bv, lo, hi, K) : 0)

/* A plane through s2_plane when s2_plan took the geometry (float32 only;
 * q->on is false elsewhere): true if it ran. */
#define S2_PLANE_f32(xc, wc, bv, yc, q, pb, lo, hi)			\
	((q)->on && (s2_plane(xc, wc, bv, yc, q, pb, lo, hi), true))
#define CB_BLOCK_f32(xc, wc, bc, yc, w, pb, lo, hi)			\
	cb_block(xc, wc, bc, yc, w, pb, lo, hi)
#else
#define S2_PLANE_f32(...)	false
#define CB_BLOCK_f32(...)	abort()
#define TAPSK_BLOCKED_f32(...)	0
#endif
#define CB_BLOCK_f64(...)	abort()
#define S2_PLANE_f64(...)	false
#define TAPSK_BLOCKED_f64(...)	0

/* the taps' loops unrolled before the row is vectorized */
#if defined(__GNUC__) && !defined(__clang__)
#define DW_UNROLL	_Pragma("GCC unroll 8")
#else
#define DW_UNROLL
#endif

/* plane<K>_: planek_ for one kernel side K (inside DEF_DW). */
#define DEF_PLANE(SFX, T, K)						\
	GP_SIMD_CLONES static void					\
	plane##K##_##SFX(const T *restrict xc, const T *restrict wc,	\
	    T bv, T *restrict yc, const struct pad3 *p,			\
	    T *restrict buf, T lo, T hi)				\
	{								\
		planek_##SFX(xc, wc, bv, yc, p, buf, lo, hi, K);	\
	}

#define DEF_DW(SFX, T)                                                        \
/* yr[c0, c1) = clamp(bias + the taps of output row (od, oh)), any        \
 * kernel, stride, dilation and pads. */                                  \
static void                                                                   \
row_gen_##SFX(const T *xc, const T *wc, T bv, T *restrict yr,                 \
    const struct gp_win *w, int64_t od, int64_t oh, int64_t c0, int64_t c1,   \
    T lo, T hi)                                                               \
{                                                                             \
	int64_t sw = w->s[2];                                                 \
	for (int64_t ow = c0; ow < c1; ow++)                                  \
		yr[ow] = bv;                                                  \
	for (int64_t kd = 0; kd < w->k[0]; kd++) {                            \
		int64_t id = od * w->s[0] - w->pb[0] + kd * w->d[0];          \
		if (id < 0 || id >= w->in[0])                                 \
			continue;                                             \
		for (int64_t kh = 0; kh < w->k[1]; kh++) {                    \
			int64_t ih = oh * w->s[1] - w->pb[1] + kh * w->d[1];  \
			const T *restrict xr;                                 \
			const T *wr = wc + (kd * w->k[1] + kh) * w->k[2];     \
			if (ih < 0 || ih >= w->in[1])                         \
				continue;                                     \
			xr = xc + (id * w->in[1] + ih) * w->in[2];            \
			for (int64_t kw = 0; kw < w->k[2]; kw++) {            \
				int64_t off = kw * w->d[2] - w->pb[2], a, e;  \
				T wv = wr[kw];                                \
				tap_range(off, sw, w->in[2], c0, c1, &a, &e); \
				if (sw == 1) {                                \
					GP_SIMD                               \
					for (int64_t ow = a; ow < e; ow++)    \
						yr[ow] += wv * xr[ow + off];  \
				} else {                                      \
					GP_SIMD                               \
					for (int64_t ow = a; ow < e; ow++)    \
						yr[ow] += wv *                \
						    xr[ow * sw + off];        \
				}                                             \
			}                                                     \
		}                                                             \
	}                                                                     \
	GP_SIMD                                                               \
	for (int64_t ow = c0; ow < c1; ow++)                                  \
		yr[ow] = clamp_##SFX(yr[ow], lo, hi);                            \
}                                                                             \
/* o[0, n) = clamp(bias + 3x3 taps) of the padded rows from r0 (row      \
 * stride ld): stride 1, and stride 2 from the four planes of even and     \
 * odd rows and columns (ee, then eo, oe, oo at sub apart).  Functions of   \
 * their own: GCC if-converts the clamp only so. */                        \
static inline __attribute__((always_inline)) void                             \
taps1_##SFX(T *restrict o, const T *restrict r0, int64_t ld, int64_t sub,     \
    int64_t n, const T *restrict wc, T bv, T lo, T hi)                        \
{                                                                             \
	const T *restrict r1 = r0 + ld, *restrict r2 = r1 + ld;               \
	T w0 = wc[0], w1 = wc[1], w2 = wc[2], w3 = wc[3], w4 = wc[4],         \
	    w5 = wc[5], w6 = wc[6], w7 = wc[7], w8 = wc[8];                   \
	(void)sub;                                                            \
	GP_SIMD                                                               \
	for (int64_t j = 0; j < n; j++) {                                     \
		T v = bv + w0 * r0[j] + w1 * r0[j + 1] + w2 * r0[j + 2] +     \
		    w3 * r1[j] + w4 * r1[j + 1] + w5 * r1[j + 2] +            \
		    w6 * r2[j] + w7 * r2[j + 1] + w8 * r2[j + 2];             \
		o[j] = clamp_##SFX(v, lo, hi);                                \
	}                                                                     \
}                                                                             \
static inline __attribute__((always_inline)) void                             \
taps2_##SFX(T *restrict o, const T *restrict ee, int64_t ld, int64_t sub,     \
    int64_t n, const T *restrict wc, T bv, T lo, T hi)                        \
{                                                                             \
	const T *restrict eo = ee + sub, *restrict oe = eo + sub,             \
	    *restrict oo = oe + sub;                                          \
	T w0 = wc[0], w1 = wc[1], w2 = wc[2], w3 = wc[3], w4 = wc[4],         \
	    w5 = wc[5], w6 = wc[6], w7 = wc[7], w8 = wc[8];                   \
	GP_SIMD                                                               \
	for (int64_t j = 0; j < n; j++) {                                     \
		T v = bv + w0 * ee[j] + w1 * eo[j] + w2 * ee[j + 1] +         \
		    w3 * oe[j] + w4 * oo[j] + w5 * oe[j + 1] +                \
		    w6 * ee[j + ld] + w7 * eo[j + ld] + w8 * ee[j + ld + 1];  \
		o[j] = clamp_##SFX(v, lo, hi);                                \
	}                                                                     \
}                                                                             \
/* The same for a K x K kernel (5x5, 7x7; K a constant at each call, so  \
 * that GCC unrolls the taps and vectorizes along the row): the taps in    \
 * row order, FMA by FMA; with stride 2, tap (kh, kw) in plane (kh % 2,    \
 * kw % 2), kh / 2 rows and kw / 2 columns on.  Used for 3x3 too, it       \
 * spilled the weights out of registers (1.1-1.2x the time at 14x14 and    \
 * 28x28), so the 3x3 keeps its own. */                                    \
static inline __attribute__((always_inline)) void                             \
tapsk1_##SFX(T *restrict o, const T *restrict r0, int64_t ld, int64_t n,      \
    const T *restrict wc, T bv, T lo, T hi, const int K)                      \
{                                                                             \
	GP_SIMD                                                               \
	for (int64_t j = 0; j < n; j++) {                                     \
		T v = bv;                                                     \
		DW_UNROLL                                                     \
		for (int kh = 0; kh < K; kh++)                                \
			DW_UNROLL                                             \
			for (int kw = 0; kw < K; kw++)                        \
				v += wc[kh * K + kw] * r0[kh * ld + j + kw];  \
		o[j] = clamp_##SFX(v, lo, hi);                                \
	}                                                                     \
}                                                                             \
static inline __attribute__((always_inline)) void                             \
tapsk2_##SFX(T *restrict o, const T *restrict ee, int64_t ld, int64_t sub,    \
    int64_t n, const T *restrict wc, T bv, T lo, T hi, const int K)           \
{                                                                             \
	GP_SIMD                                                               \
	for (int64_t j = 0; j < n; j++) {                                     \
		T v = bv;                                                     \
		DW_UNROLL                                                     \
		for (int kh = 0; kh < K; kh++)                                \
			DW_UNROLL                                             \
			for (int kw = 0; kw < K; kw++)                        \
				v += wc[kh * K + kw] * ee[((kh & 1) * 2 +     \
				    (kw & 1)) * sub + (kh >> 1) * ld + j +    \
				    (kw >> 1)];                               \
		o[j] = clamp_##SFX(v, lo, hi);                                \
	}                                                                     \
}                                                                             \
/* The taps of one row (or of the whole plane as one row), for K. */      \
static inline __attribute__((always_inline)) void                             \
taps_##SFX(T *restrict o, const T *restrict r0, int64_t ld, int64_t sub,      \
    int64_t n, const T *restrict wc, T bv, T lo, T hi, int64_t S,             \
    const int K)                                                              \
{                                                                             \
	if (K == 3 && S == 1)                                                 \
		taps1_##SFX(o, r0, ld, sub, n, wc, bv, lo, hi);               \
	else if (K == 3)                                                      \
		taps2_##SFX(o, r0, ld, sub, n, wc, bv, lo, hi);               \
	else if (S == 1) {                                                    \
		int64_t d = TAPSK_BLOCKED_##SFX(o, r0, ld, n, wc, bv, lo, hi, \
		    K);                                                       \
		tapsk1_##SFX(o + d, r0 + d, ld, n - d, wc, bv, lo, hi, K);    \
	} else                                                                \
		tapsk2_##SFX(o, r0, ld, sub, n, wc, bv, lo, hi, K);           \
}                                                                             \
/* A 2-D K x K kernel (3x3, 5x5, 7x7), stride S (1 or 2), no dilation,    \
 * any pads: the plane is first copied into buf[] (laid out by pad3_plan:  \
 * its pads are zeros, written once per chunk of planes by pad3_zero, and  \
 * only the part of X the outputs read is copied); with stride 2 the copy  \
 * puts the padded plane's even and odd rows and columns apart, into four  \
 * planes, so that the taps of consecutive outputs are consecutive.  Then  \
 * every output sums its K x K taps, its bias, and is clamped, in one      \
 * vectorized loop with no border: along each output row, or, when the   \
 * rows are short (MobileNet's 7x7 and 14x14 planes), along the whole      \
 * padded plane at once, as one long row (the outputs past each row's      \
 * end, which read the next row, are dropped when the rows are copied      \
 * out). */                                                                \
static inline __attribute__((always_inline)) void                             \
planek_##SFX(const T *restrict xc, const T *restrict wc, T bv,                \
    T *restrict yc, const struct pad3 *p, T *restrict buf, T lo, T hi,        \
    const int K)                                                              \
{                                                                             \
	int64_t S = p->s, oh_n = p->oh, ow_n = p->ow, ld = p->ld;             \
	int64_t sub = p->sub;                                                 \
	T *restrict tmp = buf + p->tmp;                                       \
	for (int64_t r = p->r0; r < p->r1; r++) {                             \
		const T *restrict xr = xc + (r - p->pt) * p->iw - p->pl;      \
		if (S == 1) {                                                 \
			T *restrict dst = buf + r * ld;                       \
			if (p->whole) {                                       \
				row_copy(dst + p->j0[0], xr + p->j0[0],       \
				    sizeof(T) * (size_t)(p->j1[0] - p->j0[0]));\
				continue;                                     \
			}                                                     \
			GP_SIMD                                               \
			for (int64_t j = p->j0[0]; j < p->j1[0]; j++)         \
				dst[j] = xr[j];                               \
			continue;                                             \
		}                                                             \
		for (int64_t q = 0; q < 2; q++) {                             \
			/* padded column 2 j + q */                           \
			T *restrict dst = buf + ((r & 1) * 2 + q) * sub +     \
			    (r >> 1) * ld;                                    \
			GP_SIMD                                               \
			for (int64_t j = p->j0[q]; j < p->j1[q]; j++)         \
				dst[j] = xr[2 * j + q];                       \
		}                                                             \
	}                                                                     \
	if (p->whole)                                                         \
		taps_##SFX(tmp, buf, ld, sub, p->len, wc, bv, lo, hi, S, K);  \
	else                                                                  \
		for (int64_t oh = 0; oh < oh_n; oh++)                         \
			taps_##SFX(yc + oh * ow_n, buf + oh * ld, ld, sub,    \
			    ow_n, wc, bv, lo, hi, S, K);                      \
	if (p->whole)                                                         \
		for (int64_t oh = 0; oh < oh_n; oh++) {                       \
			row_copy(yc + oh * ow_n, tmp + oh * ld, sizeof(T) *   \
			    (size_t)ow_n);                                    \
		}                                                             \
}                                                                             \
/* planek_ for each K, a function (and its clones) of its own: one for   \
 * every K spilled the 3x3's weights out of registers (1.1-1.2x the time  \
 * at 14x14 and 28x28). */                                                 \
DEF_PLANE(SFX, T, 3)                                                          \
DEF_PLANE(SFX, T, 5)                                                          \
DEF_PLANE(SFX, T, 7)                                                          \
void                                                                          \
gp_conv_dw_##SFX(const T *x, const T *wt, const T *b, T *y,                   \
    const struct gp_conv_geom *g)                                             \
{                                                                             \
	const struct gp_win *w = g->w;                                        \
	int64_t ivol = vol(w->in), ovol = vol(w->out), kvol = vol(w->k);      \
	int64_t og = g->cout / g->cin, planes = g->n * g->cout;               \
	T lo = (T)g->lo, hi = (T)g->hi, *buf = NULL;                          \
	int64_t plen = gp_conv_dw_work(w);                                    \
	int nt = gp_par_max_threads();                                        \
	struct pad3 p;                                                        \
	struct s2plan q = {0};                                                \
	bool cb = false;                                                      \
	void (*plane)(const T *, const T *, T, T *, const struct pad3 *,      \
	    T *, T, T) = w->k[1] == 3 ? plane3_##SFX : w->k[1] == 5 ?          \
	    plane5_##SFX : plane7_##SFX;                                      \
	/* each part's padded planes: its share of one request */            \
	if (plen > 0) {                                                       \
		buf = gp_scratch_get(GP_SCRATCH_COL, sizeof(T) * (size_t)     \
		    (plen * nt));                                             \
		pad3_plan(w, &p);                                             \
		if (sizeof(T) == sizeof(float))                               \
			s2_plan(w, plen, &q);                                 \
		cb = sizeof(T) == sizeof(float) && q.avx && cb_geom(w) &&     \
		    og == 1 && g->cout % 8 == 0;                              \
	}                                                                     \
	/* the planes in nt runs, one per thread (of whole blocks of 8 when  \
	 * cb_block takes them): each output plane written by one thread,    \
	 * each run's padded planes zeroed once */                           \
	GP_PAR_FOR(planes * ovol * kvol)                                      \
	for (int k = 0; k < nt; k++) {                                        \
		int64_t i0, i1;                                               \
		T *pb = plen > 0 ? buf + plen * k : NULL;                     \
		gp_par_split(planes, cb ? 8 : 1, k, nt, &i0, &i1);            \
		if (plen > 0 && i0 < i1 && (cb || !q.direct))                 \
			memset(pb, 0, sizeof(T) * (size_t)(cb ? plen :        \
			    q.on ? q.len : p.zero));                          \
		for (int64_t i = i0; i < i1; i++) {                           \
			int64_t co = i % g->cout;                             \
			const T *xc = x + ((i / g->cout) * g->cin + co /      \
			    og) * ivol;                                       \
			const T *wc = wt + co * kvol;                         \
			T *yc = y + i * ovol, bv = b != NULL ? b[co] : 0;     \
			if (cb) {                                             \
				CB_BLOCK_##SFX(xc, wc, b != NULL ? b + co :   \
				    NULL, yc, w, pb, lo, hi);                 \
				i += 7;                                       \
				continue;                                     \
			}                                                     \
			if (plen > 0) {                                       \
				if (!S2_PLANE_##SFX(xc, wc, bv, yc, &q, pb,   \
				    lo, hi))                                  \
					plane(xc, wc, bv, yc, &p, pb, lo,     \
					    hi);                              \
				continue;                                     \
			}                                                     \
			for (int64_t od = 0; od < w->out[0]; od++)            \
				for (int64_t oh = 0; oh < w->out[1]; oh++)    \
					row_gen_##SFX(xc, wc, bv, yc + (od *  \
					    w->out[1] + oh) * w->out[2], w,   \
					    od, oh, 0, w->out[2], lo, hi);    \
		}                                                             \
	}                                                                     \
}

DEF_DW(f32, float)
DEF_DW(f64, double)
