/*
 * ops/conv-dw.c: the depthwise convolution kernel (conv with one input
 * channel per group, any channel multiplier: MobileNet's 3x3 convs),
 * float32 and float64 from one definition instantiated by a macro.
 *
 * The output planes (image, channel) are an OpenMP parallel loop
 * (ops/par.h).  A 2-D 3x3 kernel with stride 1 or 2 and no dilation
 * (plane3_) copies the part of the input plane its outputs read into a
 * zero-padded buffer of the per-thread scratch (stride 2: four planes, of
 * the even and odd rows and columns, so that the taps of consecutive
 * outputs are consecutive), then sums the nine taps, the bias and the
 * clamp of each output in one vectorized loop with no bounds test: along
 * each output row, or along the whole padded plane at once when rows are
 * short.  plane3_ is compiled for the baseline and for AVX2 with FMA
 * (GP_SIMD_CLONES).  Any other kernel, stride or dilation (row_gen_)
 * sums one tap at a time along each output row, between the first and
 * last output whose tap lies inside X, then clamps the row.  The clamp is
 * a fused Relu or Clip (act_min/act_max); without one its bounds are
 * -inf and inf, and a NaN passes through.
 */
#include "config.h"

#include "ops/conv-kern.h"
#include "ops/ops.h"
#include "ops/par.h"
#include "ops/scratch.h"

#include <math.h>

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

/* Does plane3_ take this geometry?  2-D, 3x3, stride 1 or 2 both ways,
 * no dilation. */
static bool
fast3(const struct gp_win *w)
{
	return (w->k[0] == 1 && w->in[0] == 1 && w->k[1] == 3 && w->k[2] == 3 &&
	    w->d[1] == 1 && w->d[2] == 1 && w->s[1] == w->s[2] &&
	    (w->s[1] == 1 || w->s[1] == 2));
}

/* The work space of plane3_ (values): the padded plane (stride 2: its
 * four planes of even and odd rows and columns), then the outputs as one
 * long row. */
static int64_t
pad3_len(const struct gp_win *w)
{
	int64_t s = w->s[2], oh = w->out[1], ow = w->out[2];

	if (s == 1)
		return ((oh + 2) * (ow + 2) + oh * (ow + 2));
	return (4 * (oh + 1) * (ow + 1) + oh * (ow + 1));
}

int64_t
gp_conv_dw_work(const struct gp_win *w)
{
	return (fast3(w) ? pad3_len(w) : 0);
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
/* A 2-D 3x3 kernel, stride S (1 or 2), no dilation, any pads: the plane   \
 * is first copied into buf[] with its pads as zeros (only the part the    \
 * outputs read); with stride 2 the copy puts the padded plane's even and  \
 * odd rows and columns apart, into four planes, so that the taps of        \
 * consecutive outputs are consecutive.  Then every output sums its nine    \
 * taps, its bias, and is clamped, in one vectorized loop with no border:  \
 * along each output row, or, when the rows are short (MobileNet's 7x7 and  \
 * 14x14 planes), along the whole padded plane at once, as one long row    \
 * (the outputs past each row's end, which read the next row, are dropped  \
 * when the rows are copied out).  buf[] holds pad3_len(w) values. */       \
GP_SIMD_CLONES static void                                                      \
plane3_##SFX(const T *restrict xc, const T *restrict wc, T bv,                \
    T *restrict yc, const struct gp_win *w, T *restrict buf, T lo, T hi)      \
{                                                                             \
	int64_t S = w->s[2], oh_n = w->out[1], ow_n = w->out[2];              \
	int64_t hp = (oh_n - 1) * S + 3, wp = (ow_n - 1) * S + 3;             \
	/* row stride in buf, and where the four planes start (stride 2) */  \
	int64_t ld = S == 1 ? wp : ow_n + 1, sub = (oh_n + 1) * ld;           \
	int64_t a, e, len = (oh_n - 1) * ld + ow_n;                           \
	bool whole = ow_n < 32;                                               \
	T *restrict tmp = buf + (S == 1 ? hp * ld : 4 * sub);                 \
	/* padded columns [a, e) hold X's columns [a - pl, e - pl) */         \
	a = w->pb[2] < wp ? w->pb[2] : wp;                                    \
	e = w->pb[2] + w->in[2] < wp ? w->pb[2] + w->in[2] : wp;              \
	for (int64_t r = 0; r < hp; r++) {                                    \
		int64_t ih = r - w->pb[1];                                    \
		bool in = ih >= 0 && ih < w->in[1];                           \
		const T *restrict xr = xc + (in ? ih : 0) * w->in[2] -        \
		    w->pb[2];                                                 \
		for (int64_t q = 0; q < S; q++) {                             \
			/* padded column c = S j + q lies in X for j in      \
			 * [(a - q + S - 1) / S, (e - q + S - 1) / S) */      \
			T *restrict dst = S == 1 ? buf + r * ld : buf +       \
			    ((r & 1) * 2 + q) * sub + (r >> 1) * ld;          \
			int64_t j0 = (a - q + S - 1) / S, j1 = (e - q + S -   \
			    1) / S;                                           \
			if (!in)                                              \
				j0 = j1 = 0;                                  \
			for (int64_t j = 0; j < j0; j++)                      \
				dst[j] = 0;                                   \
			if (S == 1) {                                         \
				for (int64_t j = j0; j < j1; j++)             \
					dst[j] = xr[j];                       \
			} else {                                              \
				GP_SIMD                                       \
				for (int64_t j = j0; j < j1; j++)             \
					dst[j] = xr[2 * j + q];               \
			}                                                     \
			for (int64_t j = j1; j < ld; j++)                     \
				dst[j] = 0;                                   \
		}                                                             \
	}                                                                     \
	if (whole && S == 1)                                                  \
		taps1_##SFX(tmp, buf, ld, sub, len, wc, bv, lo, hi);          \
	else if (whole)                                                       \
		taps2_##SFX(tmp, buf, ld, sub, len, wc, bv, lo, hi);          \
	else if (S == 1)                                                      \
		for (int64_t oh = 0; oh < oh_n; oh++)                         \
			taps1_##SFX(yc + oh * ow_n, buf + oh * ld, ld, sub,   \
			    ow_n, wc, bv, lo, hi);                            \
	else                                                                  \
		for (int64_t oh = 0; oh < oh_n; oh++)                         \
			taps2_##SFX(yc + oh * ow_n, buf + oh * ld, ld, sub,   \
			    ow_n, wc, bv, lo, hi);                            \
	if (whole)                                                            \
		for (int64_t oh = 0; oh < oh_n; oh++)                         \
			for (int64_t ow = 0; ow < ow_n; ow++)                 \
				yc[oh * ow_n + ow] = tmp[oh * ld + ow];       \
}                                                                             \
void                                                                          \
gp_conv_dw_##SFX(const T *x, const T *wt, const T *b, T *y,                   \
    const struct gp_conv_geom *g)                                             \
{                                                                             \
	const struct gp_win *w = g->w;                                        \
	int64_t ivol = vol(w->in), ovol = vol(w->out), kvol = vol(w->k);      \
	int64_t og = g->cout / g->cin, planes = g->n * g->cout;               \
	T lo = (T)g->lo, hi = (T)g->hi, *buf = NULL;                          \
	int64_t plen = gp_conv_dw_work(w);                                    \
	/* each thread's padded planes: its part of one request */           \
	if (plen > 0)                                                         \
		buf = gp_scratch_get(GP_SCRATCH_COL, sizeof(T) * (size_t)     \
		    (plen * gp_par_max_threads()));                           \
	/* one output plane per iteration, each written by one thread */     \
	GP_PAR_FOR(planes * ovol * kvol)                                      \
	for (int64_t i = 0; i < planes; i++) {                                \
		int64_t co = i % g->cout;                                     \
		const T *xc = x + ((i / g->cout) * g->cin + co / og) * ivol;  \
		const T *wc = wt + co * kvol;                                 \
		T *yc = y + i * ovol, bv = b != NULL ? b[co] : 0;             \
		if (plen > 0) {                                               \
			plane3_##SFX(xc, wc, bv, yc, w, buf + plen *          \
			    gp_par_thread(), lo, hi);                         \
			continue;                                             \
		}                                                             \
		for (int64_t od = 0; od < w->out[0]; od++)                    \
			for (int64_t oh = 0; oh < w->out[1]; oh++)            \
				row_gen_##SFX(xc, wc, bv, yc + (od *          \
				    w->out[1] + oh) * w->out[2], w, od, oh,   \
				    0, w->out[2], lo, hi);                    \
	}                                                                     \
}

DEF_DW(f32, float)
DEF_DW(f64, double)
