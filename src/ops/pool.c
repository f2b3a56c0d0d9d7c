/*
 * ops/pool.c: the pooling family: max_pool and average_pool (ONNX MaxPool
 * and AveragePool, 1-D to 3-D, with strides, dilations, pads or auto_pad,
 * ceil_mode, and count_include_pad) and the global pools
 * (GlobalAveragePool, GlobalMaxPool), NCHW in float32 or float64;
 * max_pool also in int8 and uint8, and with ONNX's Indices output.
 *
 * The windowed pools run one pass over each output plane per kernel tap
 * (as the depthwise conv does): the inner loop runs along an output row
 * between the first and last output whose tap falls inside the input, so
 * it has no bounds test.  average_pool then divides each output by the
 * number of its taps that count (inside the input, or inside input and
 * pads with count_include_pad), a product of one count per dimension.
 * Both dtypes share one definition, instantiated by a macro.  max_pool of
 * integers, or with Indices, runs one output at a time over its window
 * (maxw_), tracking where the maximum is.
 * The planes (and the global pools' planes) are an OpenMP parallel loop
 * (ops/par.h); a windowed plane's function is compiled for the baseline
 * and for AVX2 (GP_SIMD_CLONES in ops/ops.h), its row loops in functions
 * of their own so that GCC vectorizes max_pool's select.
 */
#include "config.h"

#include "ops/ops.h"
#include "ops/par.h"
#include "ops/scratch.h"
#include "ops/window.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The outputs o in [*lo, *hi) whose tap o*s + off lies in [0, in). */
static inline void
tap_range(int64_t off, int64_t s, int64_t in, int64_t out, int64_t *lo,
    int64_t *hi)
{
	int64_t l = off >= 0 ? 0 : (-off + s - 1) / s;
	int64_t h = in - 1 - off < 0 ? 0 : (in - 1 - off) / s + 1;

	if (h > out)
		h = out;
	if (l > h)
		l = h;
	*lo = l;
	*hi = h;
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

#define DEF_POOL(SFX, T)                                                      \
/* One tap along an output row: yr[lo, hi) takes the tap's inputs, xr at   \
 * stride sw (max: a NaN wins; average: added).  Functions of their own:   \
 * GCC vectorizes the max's select only so. */                             \
static inline __attribute__((always_inline)) void                             \
max_row_##SFX(T *restrict yr, const T *restrict xr, int64_t lo, int64_t hi,   \
    int64_t sw)                                                               \
{                                                                             \
	if (sw == 1) {                                                        \
		GP_SIMD                                                       \
		for (int64_t ow = lo; ow < hi; ow++) {                        \
			T v = xr[ow], m = yr[ow];                             \
			yr[ow] = v > m || v != v ? v : m;                     \
		}                                                             \
	} else if (sw == 2) {                                                 \
		GP_SIMD                                                       \
		for (int64_t ow = lo; ow < hi; ow++) {                        \
			T v = xr[2 * ow], m = yr[ow];                         \
			yr[ow] = v > m || v != v ? v : m;                     \
		}                                                             \
	} else {                                                              \
		GP_SIMD                                                       \
		for (int64_t ow = lo; ow < hi; ow++) {                        \
			T v = xr[ow * sw], m = yr[ow];                        \
			yr[ow] = v > m || v != v ? v : m;                     \
		}                                                             \
	}                                                                     \
}                                                                             \
static inline __attribute__((always_inline)) void                             \
add_row_##SFX(T *restrict yr, const T *restrict xr, int64_t lo, int64_t hi,   \
    int64_t sw)                                                               \
{                                                                             \
	if (sw == 1) {                                                        \
		GP_SIMD                                                       \
		for (int64_t ow = lo; ow < hi; ow++)                          \
			yr[ow] += xr[ow];                                     \
	} else {                                                              \
		GP_SIMD                                                       \
		for (int64_t ow = lo; ow < hi; ow++)                          \
			yr[ow] += xr[ow * sw];                                \
	}                                                                     \
}                                                                             \
/* One plane: every tap of the kernel in turn, each over the outputs it   \
 * reaches inside X, one row at a time. */                                 \
GP_SIMD_CLONES static void                                                    \
plane_##SFX(const T *xc, T *yc, const struct gp_win *w, bool mx,             \
    const T *div)                                                             \
{                                                                             \
	int64_t ovol = vol(w->out);                                           \
	for (int64_t o = 0; o < ovol; o++)                                    \
		yc[o] = mx ? -INFINITY : 0;                                   \
	for (int64_t kd = 0; kd < w->k[0]; kd++) {                            \
	int64_t dlo, dhi;                                                     \
	tap_range(kd * w->d[0] - w->pb[0], w->s[0], w->in[0], w->out[0],      \
	    &dlo, &dhi);                                                      \
	for (int64_t kh = 0; kh < w->k[1]; kh++) {                            \
	int64_t hlo, hhi;                                                     \
	tap_range(kh * w->d[1] - w->pb[1], w->s[1], w->in[1], w->out[1],      \
	    &hlo, &hhi);                                                      \
	for (int64_t kw = 0; kw < w->k[2]; kw++) {                            \
		int64_t offw = kw * w->d[2] - w->pb[2], lo, hi, sw = w->s[2]; \
		tap_range(offw, sw, w->in[2], w->out[2], &lo, &hi);           \
		for (int64_t od = dlo; od < dhi; od++)                        \
		for (int64_t oh = hlo; oh < hhi; oh++) {                      \
			int64_t id = od * w->s[0] - w->pb[0] + kd * w->d[0];  \
			int64_t ih = oh * w->s[1] - w->pb[1] + kh * w->d[1];  \
			T *yr = yc + (od * w->out[1] + oh) * w->out[2];       \
			const T *xr = xc + (id * w->in[1] + ih) * w->in[2] +  \
			    offw;                                             \
			if (mx)                                               \
				max_row_##SFX(yr, xr, lo, hi, sw);            \
			else                                                  \
				add_row_##SFX(yr, xr, lo, hi, sw);            \
		}                                                             \
	}                                                                     \
	}                                                                     \
	}                                                                     \
	if (!mx) {                                                            \
		GP_SIMD                                                       \
		for (int64_t o = 0; o < ovol; o++)                            \
			yc[o] *= div[o];                                      \
	}                                                                     \
}                                                                             \
static void                                                                   \
pool_##SFX(const T *x, T *y, int64_t planes, const struct pool_priv *pp)      \
{                                                                             \
	const struct gp_win *w = &pp->w;                                      \
	int64_t ivol = vol(w->in), ovol = vol(w->out);                        \
	bool mx = pp->kind == P_MAX;                                          \
	T *div = NULL;                                                        \
	if (!mx) {                                                            \
		/* 1 / taps counted, per output pixel of a plane */           \
		int64_t ncnt = w->out[0] + w->out[1] + w->out[2];             \
		T *cnt = gp_scratch_get(GP_SCRATCH_PARAMS, sizeof(T) *        \
		    (size_t)(ncnt + ovol));                                   \
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
	}                                                                     \
	GP_PAR_FOR(planes * ovol * pp->w.k[0] * pp->w.k[1] * pp->w.k[2])      \
	for (int64_t pl = 0; pl < planes; pl++)                               \
		plane_##SFX(x + pl * ivol, y + pl * ovol, w, mx, div);        \
}                                                                             \
static void                                                                   \
gpool_##SFX(const T *x, T *y, int64_t planes, int64_t len, bool mx)           \
{                                                                             \
	GP_PAR_FOR(planes * len)                                              \
	for (int64_t pl = 0; pl < planes; pl++) {                             \
		const T *xc = x + pl * len;                                   \
		if (mx) {                                                     \
			T m = -INFINITY;                                      \
			for (int64_t i = 0; i < len; i++)                     \
				if (xc[i] > m || xc[i] != xc[i])              \
					m = xc[i];                            \
			y[pl] = m;                                            \
		} else {                                                      \
			double s = 0;                                         \
			for (int64_t i = 0; i < len; i++)                     \
				s += xc[i];                                   \
			y[pl] = (T)(s / (double)len);                         \
		}                                                             \
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
 * a strided X; average_pool's divisors, the taps counted along each
 * output dimension and one per output pixel of a plane. */
static uint64_t
work_pool(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	const struct pool_priv *pp = n->priv;
	const struct gp_type *y = &g->vars[n->out[0]].type;
	const int64_t *o;
	uint64_t copy;

	if (pp == NULL || gp_type_nbytes(y) == 0)
		return (0);
	copy = gp_scratch_as_bytes(in[0], in[0]->dtype);
	if (pp->kind != P_AVG)
		return (copy);
	o = pp->w.out;
	return (copy + gp_dtype_size(y->dtype) * (uint64_t)(o[0] + o[1] +
	    o[2] + vol(o)));
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
