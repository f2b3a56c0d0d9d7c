/*
 * ops/pool.c: the pooling family: max_pool and average_pool (ONNX MaxPool
 * and AveragePool, 1-D to 3-D, with strides, dilations, pads or auto_pad,
 * ceil_mode, and count_include_pad) and the global pools
 * (GlobalAveragePool, GlobalMaxPool), NCHW in float32 or float64;
 * max_pool also in int8 and uint8, and with ONNX's Indices output.
 *
 * The windowed pools (rows_) compute each output row in two passes: the
 * rows of X its windows cover reduced (max: a NaN wins; average: added)
 * into one row padded with the pads' value, then each output the
 * reduction of its kw taps along that row (stride 2: from the row's even
 * and odd values, split apart first, so that every loop reads
 * consecutive values), both vectorized with no bounds test and over
 * whole vectors where that stays inside X and the thread's output rows;
 * average_pool then divides each output by the number of its taps that
 * count (inside the input, or inside input and pads with
 * count_include_pad), a product of one count per dimension.  Both dtypes
 * share one definition, instantiated by a macro.  The global pools reduce
 * each plane with vector reductions (gplanes_).  max_pool of integers, or
 * with Indices, runs one output at a time over its window (maxw_),
 * tracking where the maximum is.
 * max_pool 3x3 of strides 2 in float32 on AVX2 (max3s2) has a kernel of
 * its own, below; 2-D pools of strides 1 on short rows go a whole plane
 * at a time (plane_, see plane_geo), 2x2 pools of stride 2 a row in one
 * loop (pair_, see pair_geo).
 * The output rows (global pools: the planes) are an OpenMP parallel loop
 * (ops/par.h), one run per thread; the row functions are compiled for
 * the baseline and for AVX2 (GP_SIMD_CLONES in ops/ops.h), their loops in
 * functions of their own so that GCC vectorizes max_pool's select.
 */
#include "config.h"

#include "ops/ops.h"
#include "ops/par.h"
#include "ops/scratch.h"
#include "ops/window.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Before a vectorized loop reducing into one or two variables. */
#ifdef GP_HAVE_OMP_SIMD
#define SIMD_REDUCE(a)		GP_PAR_PRAGMA(omp simd reduction(a))
#define SIMD_REDUCE2(a, b)	GP_PAR_PRAGMA(omp simd reduction(a) reduction(b))
#else
#define SIMD_REDUCE(a)
#define SIMD_REDUCE2(a, b)
#endif

enum pool_kind { P_MAX, P_AVG, P_GMAX, P_GAVG };

struct pool_priv {
	struct gp_win	w;
	enum pool_kind	kind;
	bool		include_pad;	/* average_pool's count_include_pad */
	bool		col_major;	/* max_pool's storage_order 1 */
};

static const char *const p_max[] = {"kernel_shape", "strides", "dilations",
	"pads", "auto_pad", "ceil_mode", "storage_order", NULL};
static const char *const p_avg[] = {"kernel_shape", "strides", "dilations",
	"pads", "auto_pad", "ceil_mode", "count_include_pad", NULL};

static int64_t
vol(const int64_t *v)
{
	return (v[0] * v[1] * v[2]);
}

/* Rounded up to a whole number of 8-value vectors. */
static int64_t
up8(int64_t n)
{
	return ((n + 7) / 8 * 8);
}

/* A windowed pool's reduced row (see rows_): the padded input row as far
 * as the last output's window reaches (pads and ceil_mode's partial
 * windows included), *reach values; X's columns [0, *n) of it start at
 * the left pad.  With stride 2 the row is then split into its even and
 * odd values, *half each (rounded up to whole vectors).  Returns the
 * values the row buffer holds: the loops run over whole vectors (up8(n)
 * columns, up8(out) outputs), past both ends. */
static int64_t
row_len(const struct gp_win *w, int64_t *reach, int64_t *n, int64_t *half)
{
	int64_t rl = (w->out[2] - 1) * w->s[2] + (w->k[2] - 1) * w->d[2] + 1;
	int64_t nx = w->in[2] < rl - w->pb[2] ? w->in[2] : rl - w->pb[2];
	int64_t all = (up8(w->out[2]) - 1) * w->s[2] + (w->k[2] - 1) *
	    w->d[2] + 1;
	int64_t hf = up8(up8(w->out[2]) + (w->k[2] - 1) * w->d[2] / 2);

	if (nx < 0)
		nx = 0;
	if (all < w->pb[2] + up8(nx))
		all = w->pb[2] + up8(nx);
	if (w->s[2] == 2 && all < 2 * hf)
		all = 2 * hf;
	if (reach != NULL)
		*reach = rl;
	if (n != NULL)
		*n = nx;
	if (half != NULL)
		*half = hf;
	return (w->s[2] == 2 ? all + 2 * hf : all);
}

/* The taps of output o (along one dimension) in [lo, hi). */
static int64_t
taps_in(const struct gp_win *w, int i, int64_t o, int64_t lo, int64_t hi)
{
	int64_t c = 0;

	for (int64_t k = 0; k < w->k[i]; k++) {
		int64_t p = o * w->s[i] - w->pb[i] + k * w->d[i];

		c += p >= lo && p < hi;
	}
	return (c);
}

/*
 * The whole-plane way (plane_): a 2-D pool of strides and dilations 1
 * (GoogLeNet's 3x3 max pools of pads 1, Inception's 3x3 average pools)
 * on rows of at most PLANE_MAX_OW outputs.  rows_ spends most of such a
 * row's time entering and leaving its short loops (a 3x3 average: 7 of
 * them a row); here each pass runs along the whole plane at once, as
 * one long row: the plane padded (pads holding the pads' value, written
 * once per run: the layout is the same for every plane; no pads: X's
 * plane itself), the kh rows of each window reduced into v (one pass a
 * kernel row), v's kw taps into t (one pass a kernel column; the values
 * falling between rows are dropped), average_pool's divisors applied
 * from a plane of them laid out as t, and t's rows copied out.  A 3x3
 * window takes two passes (plane3_), its 3 rows, then its 3 columns and
 * the divisor.  GoogLeNet's 14x14 max pools: 50-60 us against 300-400
 * (two threads), Inception's 17x17 average pools about 60 against 700.
 */
#define PLANE_MAX_OW	64	/* Inception's 35x35 planes: 0.2-0.25 of
				 * rows_' time */

struct plane_geo {
	int64_t	oh, ow, hp, wp;	/* the padded plane: hp x wp */
	int64_t	nv, nt;		/* v's values (oh wp) and t's */
	bool	direct;		/* no pads: X's plane is the padded one */
};

static bool
plane_geo(const struct gp_win *w, struct plane_geo *q)
{
	if (w->k[0] != 1 || w->in[0] != 1 || w->out[0] != 1 || w->s[1] != 1 ||
	    w->s[2] != 1 ||
	    w->d[1] != 1 || w->d[2] != 1 || w->pb[1] < 0 || w->pb[2] < 0 ||
	    w->pe[1] < 0 || w->pe[2] < 0 || w->out[2] > PLANE_MAX_OW ||
	    w->out[1] < 1 || w->out[2] < 1)
		return (false);
	q->oh = w->out[1];
	q->ow = w->out[2];
	q->hp = q->oh + w->k[1] - 1;
	q->wp = q->ow + w->k[2] - 1;
	q->nv = q->oh * q->wp;
	q->nt = q->nv - (w->k[2] - 1);
	q->direct = w->pb[1] == 0 && w->pb[2] == 0 && q->hp == w->in[1] &&
	    q->wp == w->in[2];
	return (true);
}

/* The values of plane_'s divisors (average_pool): t's layout, oh rows
 * of wp, rounded up to whole vectors; 0 when plane_ does not take w. */
static int64_t
plane_div_len(const struct gp_win *w)
{
	struct plane_geo q;

	return (plane_geo(w, &q) ? up8(q.nv) : 0);
}

/* One thread's work space of plane_ (values): the padded plane unless
 * direct, v and t; 0 when plane_ does not take w. */
static int64_t
plane_len(const struct gp_win *w)
{
	struct plane_geo q;

	if (!plane_geo(w, &q))
		return (0);
	return ((q.direct ? 0 : up8(q.hp * q.wp)) + 2 * up8(q.nv));
}

/*
 * 2x2 windows of stride 2 with no pads, every window whole (DenseNet's
 * transitions, GoogLeNet's and VGG's 2x2 max pools): each output row in
 * one loop over its two input rows (pair_), no work space.  The row way
 * ran 6 short loops a row (DenseNet's 14x14 -> 7x7 at 512 channels).
 * The same operations in the same order: the two rows of a column
 * first, then the two columns; average_pool times 1/4.
 */
static bool
pair_geo(const struct gp_win *w)
{
	return (w->k[0] == 1 && w->in[0] == 1 && w->out[0] == 1 &&
	    w->k[1] == 2 && w->k[2] == 2 && w->s[1] == 2 && w->s[2] == 2 &&
	    w->d[1] == 1 && w->d[2] == 1 && w->pb[1] == 0 && w->pb[2] == 0 &&
	    2 * w->out[1] <= w->in[1] && 2 * w->out[2] <= w->in[2]);
}

#define DEF_POOL(SFX, T)                                                      \
/* Reduce rows of X into r[0, n): r = a op b for the first two rows of a \
 * window (b NULL: a copy of a, a window of one row), r = r op xr for the \
 * next ones (max: the larger, a NaN wins; average: added).  Functions of  \
 * their own: GCC vectorizes the max's select only so. */                  \
static inline __attribute__((always_inline)) void                             \
vred_##SFX(T *restrict r, const T *restrict a, const T *restrict b,           \
    int64_t n, bool mx)                                                       \
{                                                                             \
	if (b == NULL) {                                                      \
		GP_SIMD                                                       \
		for (int64_t j = 0; j < n; j++)                               \
			r[j] = a[j];                                          \
	} else if (mx && a != r) {                                            \
		GP_SIMD                                                       \
		for (int64_t j = 0; j < n; j++) {                             \
			T v = b[j], m = a[j];                                 \
			r[j] = v > m || v != v ? v : m;                       \
		}                                                             \
	} else if (mx) {                                                      \
		GP_SIMD                                                       \
		for (int64_t j = 0; j < n; j++) {                             \
			T v = b[j], m = r[j];                                 \
			r[j] = v > m || v != v ? v : m;                       \
		}                                                             \
	} else if (a != r) {                                                  \
		GP_SIMD                                                       \
		for (int64_t j = 0; j < n; j++)                               \
			r[j] = a[j] + b[j];                                   \
	} else {                                                              \
		GP_SIMD                                                       \
		for (int64_t j = 0; j < n; j++)                               \
			r[j] += b[j];                                         \
	}                                                                     \
}                                                                             \
/* yr[0, n) takes one tap of each output along the reduced row: r[o s]   \
 * (max: the larger, a NaN wins; average: added; the first tap copies).   \
 * Stride 2 comes here as stride 1, from the row's even or odd values     \
 * (a loop reading every other value leaves GCC a scalar remainder). */    \
static inline __attribute__((always_inline)) void                             \
hred_##SFX(T *restrict yr, const T *restrict r, int64_t n, int64_t s,         \
    bool mx, bool first)                                                      \
{                                                                             \
	if (first && s == 1) {                                                \
		GP_SIMD                                                       \
		for (int64_t o = 0; o < n; o++)                               \
			yr[o] = r[o];                                         \
	} else if (first) {                                                   \
		GP_SIMD                                                       \
		for (int64_t o = 0; o < n; o++)                               \
			yr[o] = r[o * s];                                     \
	} else if (mx && s == 1) {                                            \
		GP_SIMD                                                       \
		for (int64_t o = 0; o < n; o++) {                             \
			T v = r[o], m = yr[o];                                \
			yr[o] = v > m || v != v ? v : m;                      \
		}                                                             \
	} else if (mx) {                                                      \
		GP_SIMD                                                       \
		for (int64_t o = 0; o < n; o++) {                             \
			T v = r[o * s], m = yr[o];                            \
			yr[o] = v > m || v != v ? v : m;                      \
		}                                                             \
	} else if (s == 1) {                                                  \
		GP_SIMD                                                       \
		for (int64_t o = 0; o < n; o++)                               \
			yr[o] += r[o];                                        \
	} else {                                                              \
		GP_SIMD                                                       \
		for (int64_t o = 0; o < n; o++)                               \
			yr[o] += r[o * s];                                    \
	}                                                                     \
}                                                                             \
/* Output rows [i0, i1) of the planes (row i: plane i / (out0 out1), then  \
 * od, oh, so that row i of Y starts at y + i out2), each in two passes:   \
 * the rows of X its windows cover reduced into one padded row (r: the     \
 * pads hold -inf for max, 0 for average), then each output the reduction \
 * of its kw taps along that row, no bounds test in either loop;           \
 * average_pool then multiplies by the output's divisor.  Both loops run   \
 * over whole vectors where that stays inside X (xend) and inside the      \
 * run's rows of Y (the outputs past a row's end are the next rows', which \
 * are written after it), so short rows (13 or 27 values) take no scalar   \
 * remainder; the values they read past X's row in r are put back to the   \
 * pads' value.  r holds row_len(w) values. */                             \
GP_SIMD_CLONES static void                                                    \
rows_##SFX(const T *x, const T *xend, T *y, const struct gp_win *w, bool mx,  \
    const T *div, int64_t i0, int64_t i1, T *restrict r)                      \
{                                                                             \
	int64_t ivol = vol(w->in), rl, n, ow = w->out[2];                     \
	int64_t hf, all = row_len(w, &rl, &n, &hf), pl = w->pb[2];            \
	int64_t n8 = up8(n);                                                  \
	int64_t pr = w->out[0] * w->out[1];                                   \
	T init = mx ? (T)-INFINITY : 0;                                       \
	T *rx = r + (n > 0 ? pl : 0);	/* X's columns in r */                \
	T *re, *ro;	/* stride 2: r's even and odd values, after r */      \
	if (w->s[2] == 2)                                                     \
		all -= 2 * hf;                                                \
	re = r + all;                                                         \
	ro = re + hf;                                                         \
	for (int64_t j = 0; j < all; j++)                                     \
		r[j] = init;                                                  \
	/* row i0's plane, od and oh, then counted on (no division a row) */ \
	int64_t p = i0 / pr, od = i0 % pr / w->out[1], oh = i0 % w->out[1];   \
	for (int64_t i = i0; i < i1; i++, oh = oh + 1 < w->out[1] ? oh + 1 :  \
	    (od = od + 1 < w->out[0] ? od + 1 : (p++, 0), 0)) {               \
		const T *xc = x + p * ivol;                                   \
		T *yr = y + i * ow;                                           \
		/* the window's first row waits for its second (one pass     \
		 * for both); len: the values both reduced rows hold */        \
		const T *wait = NULL;                                         \
		int64_t len = n8, nrow = 0;                                   \
		for (int64_t kd = 0; kd < w->k[0]; kd++) {                    \
			int64_t id = od * w->s[0] - w->pb[0] + kd * w->d[0];  \
			if (id < 0 || id >= w->in[0])                         \
				continue;                                     \
			for (int64_t kh = 0; kh < w->k[1]; kh++) {            \
				int64_t ih = oh * w->s[1] - w->pb[1] + kh *   \
				    w->d[1];                                  \
				const T *xr;                                  \
				if (ih < 0 || ih >= w->in[1])                 \
					continue;                             \
				xr = xc + (id * w->in[1] + ih) * w->in[2];    \
				if (xend - xr < n8)                           \
					len = n;                              \
				if (nrow++ == 0)                              \
					wait = xr;                            \
				else {                                        \
					vred_##SFX(rx, nrow == 2 ? wait : rx, \
					    xr, len, mx);                     \
				}                                             \
			}                                                     \
		}                                                             \
		if (nrow == 1)                                                \
			vred_##SFX(rx, wait, NULL, len, mx);                  \
		/* no row of X: the pads' value; past X's row: the pads */    \
		for (int64_t j = nrow == 0 ? 0 : n; j < n8 && pl + j < all;   \
		    j++)                                                      \
			rx[j] = init;                                         \
		if (w->s[2] == 2) {                                           \
			/* the even and odd values of r: pairs read whole */  \
			GP_SIMD                                               \
			for (int64_t j = 0; j < hf; j++) {                    \
				re[j] = r[2 * j];                             \
				ro[j] = r[2 * j + 1];                         \
			}                                                     \
		}                                                             \
		for (int64_t kw = 0; kw < w->k[2]; kw++) {                    \
			int64_t off = kw * w->d[2];                           \
			hred_##SFX(yr, w->s[2] != 2 ? r + off : (off & 1 ?    \
			    ro : re) + off / 2, (i1 - i) * ow >= up8(ow) ?    \
			    up8(ow) : ow, w->s[2] == 2 ? 1 : w->s[2], mx,     \
			    kw == 0);                                         \
		}                                                             \
		if (!mx) {                                                    \
			const T *dr = div + (od * w->out[1] + oh) * ow;       \
			GP_SIMD                                               \
			for (int64_t o = 0; o < ow; o++)                      \
				yr[o] *= dr[o];                               \
		}                                                             \
	}                                                                     \
}                                                                             \
/* Output rows [i0, i1) of all planes the pair way (see pair_geo). */    \
GP_SIMD_CLONES static void                                                    \
pair_##SFX(const T *x, T *y, const struct gp_win *w, bool mx, int64_t i0,     \
    int64_t i1)                                                               \
{                                                                             \
	int64_t oh = w->out[1], ow = w->out[2], iw = w->in[2];                \
	int64_t ivol = w->in[1] * iw;                                         \
	for (int64_t i = i0; i < i1; i++) {                                   \
		const T *restrict x0 = x + i / oh * ivol + 2 * (i % oh) * iw; \
		const T *restrict x1 = x0 + iw;                               \
		T *restrict yr = y + i * ow;                                  \
		if (mx) {                                                     \
			GP_SIMD                                               \
			for (int64_t o = 0; o < ow; o++) {                    \
				T m = x0[2 * o], n = x0[2 * o + 1];           \
				T v = x1[2 * o], u = x1[2 * o + 1];           \
				m = v > m || v != v ? v : m;                  \
				n = u > n || u != u ? u : n;                  \
				yr[o] = n > m || n != n ? n : m;              \
			}                                                     \
		} else {                                                      \
			GP_SIMD                                               \
			for (int64_t o = 0; o < ow; o++)                      \
				yr[o] = ((x0[2 * o] + x1[2 * o]) + (x0[2 * o +\
				    1] + x1[2 * o + 1])) * (T)0.25;           \
		}                                                             \
	}                                                                     \
}                                                                             \
/* The 3x3 window (the common one) in two passes rather than seven: v  \
 * the sum or largest of 3 rows, t of 3 values of v, times the divisor.   \
 * The same operations in the same order as the passes of plane_. */      \
static inline __attribute__((always_inline)) void                             \
plane3_##SFX(const T *restrict P, T *restrict v, T *restrict t,               \
    const T *restrict dv, int64_t wp, int64_t nv, int64_t nt, bool mx)        \
{                                                                             \
	if (mx) {                                                             \
		GP_SIMD                                                       \
		for (int64_t j = 0; j < nv; j++) {                            \
			T a = P[j], b = P[j + wp], c = P[j + 2 * wp];         \
			a = b > a || b != b ? b : a;                          \
			v[j] = c > a || c != c ? c : a;                       \
		}                                                             \
		GP_SIMD                                                       \
		for (int64_t j = 0; j < nt; j++) {                            \
			T a = v[j], b = v[j + 1], c = v[j + 2];               \
			a = b > a || b != b ? b : a;                          \
			t[j] = c > a || c != c ? c : a;                       \
		}                                                             \
		return;                                                       \
	}                                                                     \
	GP_SIMD                                                               \
	for (int64_t j = 0; j < nv; j++)                                      \
		v[j] = P[j] + P[j + wp] + P[j + 2 * wp];                      \
	GP_SIMD                                                               \
	for (int64_t j = 0; j < nt; j++)                                      \
		t[j] = (v[j] + v[j + 1] + v[j + 2]) * dv[j];                  \
}                                                                             \
/* Planes [p0, p1) the whole-plane way (see plane_geo): buf holds       \
 * plane_len(w) values, dv the divisors laid out as t (average_pool). */   \
GP_SIMD_CLONES static void                                                    \
plane_##SFX(const T *x, T *y, const struct gp_win *w, bool mx,               \
    const T *dv, int64_t p0, int64_t p1, T *restrict buf)                     \
{                                                                             \
	struct plane_geo q;                                                   \
	int64_t ivol = w->in[1] * w->in[2], ovol = w->out[1] * w->out[2];     \
	T init = mx ? (T)-INFINITY : 0, *pad = buf, *v, *t;                   \
	(void)plane_geo(w, &q);                                               \
	v = buf + (q.direct ? 0 : up8(q.hp * q.wp));                          \
	t = v + up8(q.nv);                                                    \
	if (!q.direct)                                                        \
		for (int64_t j = 0; j < q.hp * q.wp; j++)                     \
			pad[j] = init;                                        \
	for (int64_t i = p0; i < p1; i++) {                                   \
		const T *xc = x + i * ivol, *P = xc;                          \
		T *yc = y + i * ovol;                                         \
		if (!q.direct) {                                              \
			/* X's rows and columns inside the padded plane */    \
			int64_t c1 = w->in[2] < q.wp - w->pb[2] ? w->in[2] :  \
			    q.wp - w->pb[2];                                  \
			for (int64_t r = 0; r < w->in[1] && r + w->pb[1] <    \
			    q.hp; r++) {                                      \
				T *d = pad + (r + w->pb[1]) * q.wp + w->pb[2];\
				const T *sr = xc + r * w->in[2];              \
				GP_SIMD                                       \
				for (int64_t j = 0; j < c1; j++)              \
					d[j] = sr[j];                         \
			}                                                     \
			P = pad;                                              \
		}                                                             \
		if (w->k[1] == 3 && w->k[2] == 3)                             \
			plane3_##SFX(P, v, t, dv, q.wp, q.nv, q.nt, mx);      \
		else {                                                        \
			if (w->k[1] == 1)                                     \
				vred_##SFX(v, P, NULL, q.nv, mx);             \
			for (int64_t kh = 1; kh < w->k[1]; kh++)              \
				vred_##SFX(v, kh == 1 ? P : v, P + kh * q.wp, \
				    q.nv, mx);                                \
			for (int64_t kw = 0; kw < w->k[2]; kw++)              \
				hred_##SFX(t, v + kw, q.nt, 1, mx, kw == 0);  \
			if (!mx) {                                            \
				GP_SIMD                                       \
				for (int64_t j = 0; j < q.nt; j++)            \
					t[j] *= dv[j];                        \
			}                                                     \
		}                                                             \
		for (int64_t r = 0; r < q.oh; r++) {                          \
			T *d = yc + r * q.ow;                                 \
			const T *sr = t + r * q.wp;                           \
			GP_SIMD                                               \
			for (int64_t j = 0; j < q.ow; j++)                    \
				d[j] = sr[j];                                 \
		}                                                             \
	}                                                                     \
}                                                                             \
static void                                                                   \
pool_##SFX(const T *x, T *y, int64_t planes, const struct pool_priv *pp)      \
{                                                                             \
	const struct gp_win *w = &pp->w;                                      \
	int64_t ovol = vol(w->out), rl = row_len(w, NULL, NULL, NULL);         \
	int64_t rows = planes * w->out[0] * w->out[1];                        \
	bool mx = pp->kind == P_MAX;                                          \
	int nt = gp_par_max_threads();                                        \
	int64_t plen = plane_len(w), dl = mx ? 0 : plane_div_len(w);          \
	T *div = NULL, *r, *dv = NULL;                                        \
	if (pair_geo(w)) {                                                    \
		GP_PAR_FOR(planes * ovol * 4)                                 \
		for (int k = 0; k < nt; k++) {                                \
			int64_t i0, i1;                                       \
			gp_par_split(rows, 1, k, nt, &i0, &i1);               \
			if (i0 < i1)                                          \
				pair_##SFX(x, y, w, mx, i0, i1);              \
		}                                                             \
		return;                                                       \
	}                                                                     \
	if (!mx) {                                                            \
		/* 1 / taps counted, per output pixel of a plane */           \
		int64_t ncnt = w->out[0] + w->out[1] + w->out[2];             \
		T *cnt = gp_scratch_get(GP_SCRATCH_PARAMS, sizeof(T) *        \
		    (size_t)(ncnt + ovol + dl));                              \
		T *c0 = cnt, *c1 = c0 + w->out[0], *c2 = c1 + w->out[1];      \
		T *c[3] = {c0, c1, c2};                                       \
		div = cnt + ncnt;                                             \
		for (int i = 0; i < 3; i++)                                   \
			for (int64_t o = 0; o < w->out[i]; o++)               \
				c[i][o] = (T)(pp->include_pad ?               \
				    taps_in(w, i, o, -w->pb[i], w->in[i] +    \
				    w->pe[i]) : taps_in(w, i, o, 0,           \
				    w->in[i]));                               \
		for (int64_t a = 0; a < w->out[0]; a++)                       \
			for (int64_t b = 0; b < w->out[1]; b++)               \
				for (int64_t e = 0; e < w->out[2]; e++)       \
					div[(a * w->out[1] + b) * w->out[2] + \
					    e] = (T)1 / (c0[a] * c1[b] *      \
					    c2[e]);                           \
		/* the whole-plane way's: laid out as its rows of wp */        \
		dv = div + ovol;                                              \
		for (int64_t j = 0; j < dl; j++) {                            \
			int64_t wp = w->out[2] + w->k[2] - 1;                 \
			dv[j] = j % wp < w->out[2] && j / wp < w->out[1] ?    \
			    div[j / wp * w->out[2] + j % wp] : 0;             \
		}                                                             \
	}                                                                     \
	if (plen > 0) {                                                       \
		r = gp_scratch_get(GP_SCRATCH_COL, sizeof(T) * (size_t)(plen *\
		    nt));                                                     \
		GP_PAR_FOR(planes * ovol * pp->w.k[1] * pp->w.k[2])          \
		for (int k = 0; k < nt; k++) {                                \
			int64_t i0, i1;                                       \
			gp_par_split(planes, 1, k, nt, &i0, &i1);             \
			if (i0 < i1)                                          \
				plane_##SFX(x, y, w, mx, dv, i0, i1, r + plen \
				    * k);                                     \
		}                                                             \
		return;                                                       \
	}                                                                     \
	/* each thread's reduced row: its part of one request */             \
	r = gp_scratch_get(GP_SCRATCH_COL, sizeof(T) * (size_t)(rl * nt));    \
	/* the output rows in nt runs, one per thread */                     \
	GP_PAR_FOR(planes * ovol * pp->w.k[0] * pp->w.k[1] * pp->w.k[2])      \
	for (int k = 0; k < nt; k++) {                                        \
		int64_t i0, i1;                                               \
		gp_par_split(rows, 1, k, nt, &i0, &i1);                       \
		if (i0 < i1)                                                  \
			rows_##SFX(x, x + planes * vol(w->in), y, w, mx, div, \
			    i0, i1, r + rl * k);                              \
	}                                                                     \
}                                                                             \
/* The global pools' planes [p0, p1): the sum (in double) or the largest \
 * value (and whether there is a NaN) of each, as vector reductions: the  \
 * late planes of a CNN are short (49 or 169 values), a loop carrying one  \
 * sum from value to value ran at 4 cycles a value. */                     \
GP_SIMD_CLONES static void                                                    \
gplanes_##SFX(const T *x, T *y, int64_t p0, int64_t p1, int64_t len, bool mx) \
{                                                                             \
	for (int64_t pl = p0; pl < p1; pl++) {                                \
		const T *restrict xc = x + pl * len;                          \
		if (mx) {                                                     \
			T m = (T)-INFINITY;                                   \
			int nan = 0;                                          \
			SIMD_REDUCE2(max : m, | : nan)                        \
			for (int64_t i = 0; i < len; i++) {                   \
				m = xc[i] > m ? xc[i] : m;                    \
				nan |= xc[i] != xc[i];                        \
			}                                                     \
			y[pl] = nan ? (T)NAN : m;                             \
		} else {                                                      \
			double s = 0;                                         \
			SIMD_REDUCE(+ : s)                                    \
			for (int64_t i = 0; i < len; i++)                     \
				s += xc[i];                                   \
			y[pl] = (T)(s / (double)len);                         \
		}                                                             \
	}                                                                     \
}                                                                             \
static void                                                                   \
gpool_##SFX(const T *x, T *y, int64_t planes, int64_t len, bool mx)           \
{                                                                             \
	int nt = gp_par_max_threads();                                        \
	/* the planes in nt runs, one per thread */                          \
	GP_PAR_FOR(planes * len)                                              \
	for (int k = 0; k < nt; k++) {                                        \
		int64_t p0, p1;                                               \
		gp_par_split(planes, 1, k, nt, &p0, &p1);                     \
		gplanes_##SFX(x, y, p0, p1, len, mx);                         \
	}                                                                     \
}
DEF_POOL(f32, float)
DEF_POOL(f64, double)

/* max_pool one output at a time, for the integer dtypes and for ONNX's
 * Indices output: each output's maximum (as pool_: a NaN wins, else the
 * first largest in the window's order) and, when idx is not NULL, where
 * it is in X flattened: the plane's offset plus the position in the plane
 * in C order, or with storage_order 1 (col_major) with the spatial
 * dimensions in column-major order (ONNX's rule).  A window with no tap in
 * X gives LOW and index -1. */
#define DEF_MAXW(SFX, T, LOW)                                                 \
static void                                                                   \
maxw_##SFX(const T *x, T *y, int64_t *idx, int64_t planes,                    \
    const struct pool_priv *pp)                                               \
{                                                                             \
	const struct gp_win *w = &pp->w;                                      \
	int64_t ivol = vol(w->in), ovol = vol(w->out);                        \
	for (int64_t pl = 0; pl < planes; pl++) {                             \
	const T *xc = x + pl * ivol;                                          \
	for (int64_t od = 0; od < w->out[0]; od++)                            \
	for (int64_t oh = 0; oh < w->out[1]; oh++)                            \
	for (int64_t ow = 0; ow < w->out[2]; ow++) {                          \
		int64_t o = pl * ovol + (od * w->out[1] + oh) * w->out[2] +   \
		    ow, at = -1;                                              \
		T m = LOW;                                                    \
		for (int64_t kd = 0; kd < w->k[0]; kd++) {                    \
		int64_t id = od * w->s[0] - w->pb[0] + kd * w->d[0];          \
		if (id < 0 || id >= w->in[0])                                 \
			continue;                                             \
		for (int64_t kh = 0; kh < w->k[1]; kh++) {                    \
		int64_t ih = oh * w->s[1] - w->pb[1] + kh * w->d[1];          \
		if (ih < 0 || ih >= w->in[1])                                 \
			continue;                                             \
		for (int64_t kw = 0; kw < w->k[2]; kw++) {                    \
			int64_t iw = ow * w->s[2] - w->pb[2] + kw * w->d[2];  \
			T v;                                                  \
			if (iw < 0 || iw >= w->in[2])                         \
				continue;                                     \
			v = xc[(id * w->in[1] + ih) * w->in[2] + iw];         \
			if (at < 0 || v > m || v != v) {                      \
				m = v;                                        \
				at = pp->col_major ? id + (ih + iw *          \
				    w->in[1]) * w->in[0] : (id * w->in[1] +   \
				    ih) * w->in[2] + iw;                      \
			}                                                     \
		}                                                             \
		}                                                             \
		}                                                             \
		y[o] = m;                                                     \
		if (idx != NULL)                                              \
			idx[o] = at < 0 ? -1 : pl * ivol + at;                \
	}                                                                     \
	}                                                                     \
}
DEF_MAXW(f32, float, -INFINITY)
DEF_MAXW(f64, double, -INFINITY)
DEF_MAXW(i8, int8_t, INT8_MIN)
DEF_MAXW(u8, uint8_t, 0)

/*
 * max_pool 2-D 3x3 of strides 2 in float32 on AVX2 (ResNet's 3x3/2 with
 * pads 1, SqueezeNet's three with ceil_mode), one output row at a time
 * without the generic path's general loops: its (one to three) input
 * rows reduced into a line of -inf pads (kept from row to row: only X's
 * columns are rewritten), then 8 outputs at a time from the line's even
 * and odd values (two loads of 8 deinterleaved by a shuffle and a
 * permute), max(v0, v1, v2) in the window's order, as the generic path
 * keeps the first of equal values.  It tracks no NaN: a row run that
 * holds one is redone by the generic path (rows_f32), whose rule is that
 * a NaN wins.  SqueezeNet's three took 0.224 ms (512 x 27x27) to 0.303
 * ms with the generic path, 2 threads (bench-spatial).
 */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include "ops/deint.h"
#include "ops/lanes.h"
#define GP_POOL_X86 1

/* The line's values: 2 per output (rounded to whole vectors) and the
 * loads' reach. */
static int64_t
max3s2_line(const struct gp_win *w)
{
	return (2 * up8(w->out[2]) + 16);
}

static bool
max3s2_ok(const struct gp_win *w)
{
	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2") || w->k[0] != 1 || w->in[0] != 1 ||
	    w->out[0] != 1)
		return (false);
	for (int i = 1; i < GP_WIN_DIMS; i++)
		/* every window starts inside X (or in the first pad) */
		if (w->k[i] != 3 || w->s[i] != 2 || w->d[i] != 1 ||
		    w->pb[i] < 0 || w->pb[i] > 2 || 2 * (w->out[i] - 1) -
		    w->pb[i] > w->in[i] - 1 || w->in[i] < 1)
			return (false);
	return (w->pb[2] + w->in[2] <= max3s2_line(w) - 16 &&
	    max3s2_line(w) <= row_len(w, NULL, NULL, NULL));
}

/* Output rows [i0, i1) into y; v: max3s2_line(w) values.  False when
 * the rows read a NaN (y then to be redone). */
__attribute__((target("avx2"))) static bool
max3s2_rows(const float *x, float *y, const struct gp_win *w, int64_t i0,
    int64_t i1, float *v)
{
	int64_t ih = w->in[1], iw = w->in[2], ohn = w->out[1], ow = w->out[2];
	int64_t pt = w->pb[1], n = max3s2_line(w);
	float *vr = v + w->pb[2];
	__m256 bad = _mm256_setzero_ps();
	bool nan = false;

	for (int64_t j = 0; j < n; j++)
		v[j] = -INFINITY;
	for (int64_t i = i0; i < i1; i++) {
		int64_t oh = i % ohn, r0 = 2 * oh - pt, j = 0;
		int64_t ra = r0 < 0 ? 0 : r0, rb = r0 + 3 > ih ? ih : r0 + 3;
		const float *xp = x + i / ohn * ih * iw;
		/* one to three rows: the missing ones repeat the last */
		const float *a = xp + ra * iw;
		const float *b = xp + (ra + 1 < rb ? ra + 1 : rb - 1) * iw;
		const float *c = xp + (rb - 1) * iw;
		float *yr = y + i * ow;

		for (; j < iw && iw >= 8; j += 8) {
			/* the last 8 values of the row, over the ones before
			 * (the same maxima again) when iw is not a multiple */
			int64_t q = j + 8 <= iw ? j : iw - 8;
			__m256 xa = _mm256_loadu_ps(a + q);
			__m256 xb = _mm256_loadu_ps(b + q);
			__m256 xc = _mm256_loadu_ps(c + q);

			bad = _mm256_or_ps(bad, _mm256_or_ps(_mm256_cmp_ps(xa,
			    xb, _CMP_UNORD_Q), _mm256_cmp_ps(xc, xc,
			    _CMP_UNORD_Q)));
			_mm256_storeu_ps(vr + q, _mm256_max_ps(xc,
			    _mm256_max_ps(xb, xa)));
		}
		for (; j < iw; j++) {
			float m = a[j];

			m = b[j] > m ? b[j] : m;
			m = c[j] > m ? c[j] : m;
			nan |= a[j] != a[j] || b[j] != b[j] || c[j] != c[j];
			vr[j] = m;
		}
		for (int64_t o = 0; o < ow; o += 8) {
			const float *q = v + 2 * o;
			__m256 l = _mm256_loadu_ps(q), h = _mm256_loadu_ps(q + 8);
			__m256 l2 = _mm256_loadu_ps(q + 2);
			__m256 h2 = _mm256_loadu_ps(q + 10);
			__m256 e = gp_deint_even(l, h), od = gp_deint_odd(l, h);
			__m256 e2 = gp_deint_even(l2, h2);
			__m256 m = _mm256_max_ps(e2, _mm256_max_ps(od, e));

			if (o + 8 <= ow || i * ow + o + 8 <= i1 * ow) {
				/* past the row's end: the next rows' start,
				 * which this run writes after */
				_mm256_storeu_ps(yr + o, m);
			} else
				gp_lanes_store(yr + o, m, (int)(ow - o));
		}
	}
	return (!nan && _mm256_movemask_ps(bad) == 0);
}

/* The output rows in nt runs, one per thread (as pool_); a run that read
 * a NaN redone by the generic path. */
static void
max3s2(const struct gp_tensor *t, struct gp_tensor *o, int64_t planes,
    const struct pool_priv *pp)
{
	const float *x = (const float *)gp_tensor_data(t);
	float *y = (float *)gp_tensor_data(o), *r;
	const struct gp_win *w = &pp->w;
	int64_t rows = planes * w->out[1], rl = row_len(w, NULL, NULL, NULL);
	int nt = gp_par_max_threads();

	r = gp_scratch_get(GP_SCRATCH_COL, sizeof(float) * (size_t)(rl * nt));
	GP_PAR_FOR(planes * vol(w->out) * 9)
	for (int k = 0; k < nt; k++) {
		int64_t i0, i1;

		gp_par_split(rows, 1, k, nt, &i0, &i1);
		if (i0 < i1 && !max3s2_rows(x, y, w, i0, i1, r + rl * k))
			rows_f32(x, x + planes * vol(w->in), y, w, true, NULL,
			    i0, i1, r + rl * k);
	}
}
#endif

static void
k_pool(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct pool_priv *pp = n->priv;
	struct gp_tensor *o = out[0];
	const struct gp_tensor *t;
	struct gp_scratch_tmp tc;
	int64_t planes = o->shape[0] * o->shape[1], len;
	bool g = pp->kind == P_GMAX || pp->kind == P_GAVG;

	if (gp_tensor_numel(o) == 0)
		return;
	/* X contiguous: a strided one copied into work space */
	t = gp_scratch_as(in[0], in[0]->dtype, 0, &tc);
	len = planes > 0 ? gp_tensor_numel(t) / planes : 0;
	if (pp->kind == P_MAX && (n->n_out > 1 || (o->dtype != GP_FLOAT32 &&
	    o->dtype != GP_FLOAT64))) {
		const void *xd = gp_tensor_data(t);
		void *yd = gp_tensor_data(o);
		int64_t *idx = n->n_out > 1 ? (int64_t *)gp_tensor_data(out[1]) :
		    NULL;

		switch (o->dtype) {
		case GP_FLOAT32:
			maxw_f32(xd, yd, idx, planes, pp);
			break;
		case GP_FLOAT64:
			maxw_f64(xd, yd, idx, planes, pp);
			break;
		case GP_INT8:
			maxw_i8(xd, yd, idx, planes, pp);
			break;
		default:
			maxw_u8(xd, yd, idx, planes, pp);
		}
	} else if (o->dtype == GP_FLOAT32) {
		if (g)
			gpool_f32((const float *)gp_tensor_data(t),
			    (float *)gp_tensor_data(o), planes, len,
			    pp->kind == P_GMAX);
#ifdef GP_POOL_X86
		else if (pp->kind == P_MAX && max3s2_ok(&pp->w))
			max3s2(t, o, planes, pp);
#endif
		else
			pool_f32((const float *)gp_tensor_data(t),
			    (float *)gp_tensor_data(o), planes, pp);
	} else {
		if (g)
			gpool_f64((const double *)gp_tensor_data(t),
			    (double *)gp_tensor_data(o), planes, len,
			    pp->kind == P_GMAX);
		else
			pool_f64((const double *)gp_tensor_data(t),
			    (double *)gp_tensor_data(o), planes, pp);
	}
}

static int
prep_pool(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	struct pool_priv *pp = gp_xcalloc(1, sizeof(*pp));
	const char *op = n->op->name;
	int64_t shape[GP_MAX_DIMS];
	int nsp = x->ndim - 2;

	n->priv = pp;
	pp->kind = strcmp(op, "max_pool") == 0 ? P_MAX : strcmp(op,
	    "average_pool") == 0 ? P_AVG : strcmp(op, "global_max_pool") == 0 ?
	    P_GMAX : P_GAVG;
	if (pp->kind == P_MAX && (x->dtype == GP_INT8 || x->dtype == GP_UINT8))
		;	/* max_pool compares integers too */
	else if (x->dtype != GP_FLOAT32 && x->dtype != GP_FLOAT64)
		return (gp_err_set(err, "%s: X must be float32 or float64%s, "
		    "got %s", op, pp->kind == P_MAX ? " (or int8, uint8)" : "",
		    gp_dtype_name(x->dtype)));
	if (pp->kind == P_MAX && (n->n_out < 1 || n->n_out > 2))
		return (gp_err_set(err, "%s has 1 or 2 outputs (Y, Indices), "
		    "got %d", op, n->n_out));
	if (pp->kind == P_GMAX || pp->kind == P_GAVG) {
		if (x->ndim < 3)
			return (gp_err_set(err, "%s: X must have at least 3 "
			    "dimensions (N, C, then the spatial ones), got %d",
			    op, x->ndim));
		shape[0] = x->shape[0];
		shape[1] = x->shape[1];
		for (int i = 2; i < x->ndim; i++)
			shape[i] = 1;
		if (gp_shape_numel(x->ndim - 2, x->shape + 2) == 0)
			return (gp_err_set(err, "%s: X has an empty spatial "
			    "dimension: the pool of nothing is undefined", op));
		gp_ops_set_out(g, n, 0, x->dtype, x->ndim, shape);
		n->kernel = k_pool;
		return (0);
	}
	if (x->ndim < 3 || x->ndim > 5)
		return (gp_err_set(err, "%s: X must have 3 to 5 dimensions "
		    "(N, C, then 1 to 3 spatial ones), got %d", op, x->ndim));
	if (pp->kind == P_MAX) {
		int64_t so;

		if (gp_op_param_int(n->params, "storage_order", 0, &so,
		    err) < 0)
			return (-1);
		if (so != 0 && so != 1)
			return (gp_err_set(err, "%s: storage_order is %lld: "
			    "expected 0 or 1", op, (long long)so));
		pp->col_major = so == 1;
	} else if (gp_win_param_flag(n->params, "count_include_pad", false,
	    &pp->include_pad, err) < 0)
		return (-1);
	if (gp_win_parse(n->params, op, nsp, NULL, true, &pp->w, err) < 0 ||
	    gp_win_output(&pp->w, op, x->shape + 2, err) < 0)
		return (-1);
	shape[0] = x->shape[0];
	shape[1] = x->shape[1];
	for (int i = 0; i < nsp; i++)
		shape[2 + i] = pp->w.out[GP_WIN_DIMS - nsp + i];
	gp_ops_set_out(g, n, 0, x->dtype, x->ndim, shape);
	if (pp->kind == P_MAX && n->n_out > 1)
		gp_ops_set_out(g, n, 1, GP_INT64, x->ndim, shape);
	n->kernel = k_pool;
	return (0);
}

/* Windowed: one compare or add per tap of each output (average_pool: and
 * one multiply); global: one per input element (average: and one divide
 * per plane). */
static double
flops_pool(const struct gp_graph *g, const struct gp_node *n)
{
	const struct pool_priv *pp = n->priv;
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	const struct gp_type *y = &g->vars[n->out[0]].type;
	double outs = (double)gp_shape_numel(y->ndim, y->shape);

	if (pp == NULL)
		return (0);
	switch (pp->kind) {
	case P_MAX:
		return (outs * (double)vol(pp->w.k));
	case P_AVG:
		return (outs * ((double)vol(pp->w.k) + 1));
	case P_GMAX:
		return ((double)gp_shape_numel(x->ndim, x->shape));
	default:
		return ((double)gp_shape_numel(x->ndim, x->shape) + outs);
	}
}

/* The work space (ops/scratch.h) of one execution: a contiguous copy of
 * a strided X; a windowed float pool's reduced row per thread (row_len
 * values each), and average_pool's divisors, the taps counted along each
 * output dimension and one per output pixel of a plane. */
static uint64_t
work_pool(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	const struct pool_priv *pp = n->priv;
	const struct gp_type *y = &g->vars[n->out[0]].type;
	const int64_t *o;
	uint64_t copy, sz = gp_dtype_size(y->dtype), rows;
	int64_t plen;

	if (pp == NULL || gp_type_nbytes(y) == 0)
		return (0);
	copy = gp_scratch_as_bytes(in[0], in[0]->dtype);
	if (pp->kind != P_AVG && pp->kind != P_MAX)
		return (copy);
	/* max_pool's integer and Indices path (maxw_) asks for no row */
	if (pp->kind == P_MAX && (n->n_out > 1 || (y->dtype != GP_FLOAT32 &&
	    y->dtype != GP_FLOAT64)))
		return (copy);
	if (pair_geo(&pp->w))
		return (copy);	/* pair_ asks for none */
	o = pp->w.out;
	plen = plane_len(&pp->w);
	rows = sz * (uint64_t)(plen > 0 ? plen : row_len(&pp->w, NULL, NULL,
	    NULL)) * (uint64_t)gp_par_max_threads();
	if (pp->kind == P_MAX)
		return (copy + rows);
	/* the divisors: per dimension, per pixel, and (plane_) per value of
	 * t's layout */
	return (copy + rows + sz * (uint64_t)(o[0] + o[1] + o[2] + vol(o) +
	    plane_div_len(&pp->w)));
}

static void
fmt_pool(const struct gp_graph *g, const struct gp_node *n, struct gp_buf *b)
{
	const struct pool_priv *pp = n->priv;

	gp_buf_puts(b, n->op->cls);
	if (pp == NULL || pp->kind == P_GMAX || pp->kind == P_GAVG)
		return;
	gp_buf_puts(b, "{");
	gp_win_format(&pp->w, b);
	if (pp->include_pad)
		gp_buf_puts(b, ", count_include_pad");
	gp_buf_puts(b, "}");
}

static const struct gp_op op_max_pool = {
	.name = "max_pool",
	.cls = "MaxPool",
	.doc = "max_pool(X; kernel_shape, strides, dilations, pads, auto_pad, "
	    "ceil_mode, storage_order) -> Y[, Indices]: ONNX MaxPool, 1-D to "
	    "3-D, NCHW; NaN propagates; float32, float64, int8 or uint8; "
	    "Indices int64, X's flat index (storage_order 1: spatial dims "
	    "column-major)",
	.min_in = 1, .max_in = 1, .n_out = 0,	/* 1 or 2: prep_pool */
	.params = p_max,
	.prepare = prep_pool,
	.flops = flops_pool,
	.workspace = work_pool,
	.format = fmt_pool,
	.free_priv = free,
};

static const struct gp_op op_average_pool = {
	.name = "average_pool",
	.cls = "AveragePool",
	.doc = "average_pool(X; kernel_shape, strides, dilations, pads, "
	    "auto_pad, ceil_mode, count_include_pad): ONNX AveragePool, 1-D "
	    "to 3-D, NCHW; float32 or float64",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.params = p_avg,
	.prepare = prep_pool,
	.flops = flops_pool,
	.workspace = work_pool,
	.format = fmt_pool,
	.free_priv = free,
};

static const struct gp_op op_global_average_pool = {
	.name = "global_average_pool",
	.cls = "GlobalAveragePool",
	.doc = "global_average_pool(X): ONNX GlobalAveragePool, the mean of "
	    "each (n, c) plane, (N, C, 1, ...); float32 or float64",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.prepare = prep_pool,
	.flops = flops_pool,
	.workspace = work_pool,
	.format = fmt_pool,
	.free_priv = free,
};

static const struct gp_op op_global_max_pool = {
	.name = "global_max_pool",
	.cls = "GlobalMaxPool",
	.doc = "global_max_pool(X): ONNX GlobalMaxPool, the maximum of each "
	    "(n, c) plane, (N, C, 1, ...); NaN propagates; float32 or float64",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.prepare = prep_pool,
	.flops = flops_pool,
	.workspace = work_pool,
	.format = fmt_pool,
	.free_priv = free,
};

const struct gp_op *const gp_ops_pool[] = {
	&op_average_pool,
	&op_global_average_pool,
	&op_global_max_pool,
	&op_max_pool,
	NULL,
};
