/*
 * ops/conv.c: the convolution family: conv (ONNX Conv, 1-D to 3-D, with
 * strides, dilations, pads or auto_pad, groups and an optional bias) and
 * conv_transpose (ONNX ConvTranspose, with output_padding and
 * output_shape), NCHW (NCW, NCDHW) in float32 or float64.
 *
 * A float32 conv that is not depthwise runs as the blocked gemm of
 * ops/conv-gemm.c (implicit im2col, the bias and clamp in its epilogue,
 * over the OpenMP threads) where the CPU has AVX2 and FMA; a pointwise
 * one only when that gemm reads its input where it lies (many pixels),
 * else as ops/conv-pw.c's blocks.
 * Otherwise conv runs as im2col + one BLAS gemm per image and group: the
 * input patches of one group become a (C/g * kernel) x (output pixels)
 * matrix in per-thread scratch (ops/scratch.h), multiplied by the group's
 * weights.  Two shapes have their own kernels (ops/conv-kern.h): a
 * pointwise conv (1x1, stride 1, no pads, one group) multiplies the input
 * itself, in blocks over the threads (ops/conv-pw.c), and a conv with one
 * input channel per group (depthwise, any channel multiplier) runs as a
 * direct vectorized loop (ops/conv-dw.c).  conv_transpose is the adjoint:
 * one gemm W^T x into the scratch matrix, then col2im adds it into the
 * output.  im2col's rows and the bias planes are OpenMP parallel loops
 * (ops/par.h); the gemm threads itself (OpenBLAS).
 *
 * conv may clamp its output (params act_min, act_max: a fused Relu or
 * Clip, see the conv_act rewriter) in the loop that adds the bias (the
 * two kernels of their own: in the pass that writes the output).
 *
 * Both dtypes share one definition of each kernel, instantiated by a
 * macro for float and double.
 */
#include "config.h"

#include "ops/conv-gemm.h"
#include "ops/conv-kern.h"
#include "ops/conv-wino.h"
#include "ops/ops.h"
#include "ops/par.h"
#include "ops/scratch.h"
#include "ops/window.h"

#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct conv_priv {
	struct gp_win	w;	/* conv_transpose: w.in is the output's
				 * spatial size and w.out the input's (the
				 * forward conv it is the adjoint of) */
	int64_t		group;
	int64_t		cg, og;		/* input, output channels per group */
	int64_t		kvol;		/* kernel volume */
	bool		direct;		/* one input channel per group */
	bool		pointwise;	/* 1x1, stride 1, no pads */
	bool		packed;		/* float32 through ops/conv-gemm.c */
	bool		wino;		/* ... or ops/conv-wino.c (param
					 * winograd, rewrite conv_winograd) */
	bool		wino_u;		/* input U: W's Winograd transform,
					 * made once by the rewrite */
	bool		pwt;		/* param packed, input P: W^T packed
					 * once (rewrite gemm_pack), through
					 * ops/conv-gemm.c's transposed
					 * pointwise kernel */
	bool		act;		/* clamp the output to [lo, hi] */
	double		lo, hi;
	int		nc;		/* inputs X, W[, B[, U or P]] */
	bool		into;		/* param into: the output is input D
					 * (after them) with channels [off,
					 * off + M) the conv's */
	int64_t		off;
};

static const char *const p_conv[] = {"kernel_shape", "strides", "dilations",
	"pads", "auto_pad", "group", "act_min", "act_max", "winograd", "packed",
	"into", NULL};
static const char *const p_convt[] = {"kernel_shape", "strides",
	"dilations", "pads", "auto_pad", "group", "output_padding",
	"output_shape", NULL};

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

/*
 * Kernels, one definition per dtype.
 *
 * im2col: col[(c, kd, kh, kw), (od, oh, ow)] = x[c, id, ih, iw] with
 * i = o * s - pb + k * d, or 0 in the pads.  col2im adds col back into y at
 * the same places (the adjoint), skipping the pads.
 */
/* v clamped to [lo, hi]; a NaN stays NaN (as numpy's maximum and clip) */
#define GP_CONV_CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))

#define DEF_CONV(SFX, T, GEMM)                                                \
static void                                                                   \
im2col_##SFX(const T *x, T *col, const struct conv_priv *p, int64_t nch)      \
{                                                                             \
	const struct gp_win *w = &p->w;                                       \
	int64_t ovol = vol(w->out), ivol = vol(w->in);                        \
	/* one row of col per (channel, tap), each written by one thread */   \
	GP_PAR_FOR(nch * p->kvol * ovol)                                      \
	for (int64_t r = 0; r < nch * p->kvol; r++) {                         \
		int64_t c = r / p->kvol, t = r % p->kvol;                     \
		int64_t kw = t % w->k[2], kh = t / w->k[2] % w->k[1];         \
		int64_t kd = t / w->k[2] / w->k[1];                           \
		int64_t offw = kw * w->d[2] - w->pb[2], lo, hi;               \
		T *dst = col + r * ovol;                                      \
		tap_range(offw, w->s[2], w->in[2], w->out[2], &lo, &hi);      \
		for (int64_t od = 0; od < w->out[0]; od++) {                  \
			int64_t id = od * w->s[0] - w->pb[0] + kd * w->d[0];  \
			for (int64_t oh = 0; oh < w->out[1]; oh++) {          \
				int64_t ih = oh * w->s[1] - w->pb[1] +        \
				    kh * w->d[1];                             \
				const T *xr;                                  \
				if (id < 0 || id >= w->in[0] || ih < 0 ||    \
				    ih >= w->in[1]) {                         \
					memset(dst, 0, sizeof(T) *            \
					    (size_t)w->out[2]);               \
					dst += w->out[2];                     \
					continue;                             \
				}                                             \
				xr = x + c * ivol + (id * w->in[1] + ih) *    \
				    w->in[2] + offw;                          \
				for (int64_t ow = 0; ow < lo; ow++)           \
					dst[ow] = 0;                          \
				if (w->s[2] == 1)                             \
					memcpy(dst + lo, xr + lo, sizeof(T) * \
					    (size_t)(hi - lo));               \
				else {                                        \
					GP_SIMD                               \
					for (int64_t ow = lo; ow < hi; ow++)  \
						dst[ow] = xr[ow * w->s[2]];   \
				}                                             \
				for (int64_t ow = hi; ow < w->out[2]; ow++)   \
					dst[ow] = 0;                          \
				dst += w->out[2];                             \
			}                                                     \
		}                                                             \
	}                                                                     \
}                                                                             \
static void                                                                   \
col2im_##SFX(const T *col, T *y, const struct conv_priv *p, int64_t nch)      \
{                                                                             \
	const struct gp_win *w = &p->w;                                       \
	int64_t ivol = vol(w->in);                                            \
	const T *src = col;                                                   \
	for (int64_t c = 0; c < nch; c++)                                     \
	for (int64_t kd = 0; kd < w->k[0]; kd++)                              \
	for (int64_t kh = 0; kh < w->k[1]; kh++)                              \
	for (int64_t kw = 0; kw < w->k[2]; kw++) {                            \
		int64_t offw = kw * w->d[2] - w->pb[2], lo, hi;               \
		tap_range(offw, w->s[2], w->in[2], w->out[2], &lo, &hi);      \
		for (int64_t od = 0; od < w->out[0]; od++) {                  \
			int64_t id = od * w->s[0] - w->pb[0] + kd * w->d[0];  \
			for (int64_t oh = 0; oh < w->out[1]; oh++,            \
			    src += w->out[2]) {                               \
				int64_t ih = oh * w->s[1] - w->pb[1] +        \
				    kh * w->d[1];                             \
				T *yr;                                        \
				if (id < 0 || id >= w->in[0] || ih < 0 ||    \
				    ih >= w->in[1])                           \
					continue;                             \
				yr = y + c * ivol + (id * w->in[1] + ih) *    \
				    w->in[2] + offw;                          \
				GP_SIMD                                       \
				for (int64_t ow = lo; ow < hi; ow++)          \
					yr[ow * w->s[2]] += src[ow];          \
			}                                                     \
		}                                                             \
	}                                                                     \
}                                                                             \
static void                                                                   \
conv_##SFX(const T *x, const T *wt, const T *b, T *y, int64_t n,              \
    int64_t cin, int64_t cout, const struct conv_priv *p)                     \
{                                                                             \
	const struct gp_win *w = &p->w;                                       \
	int64_t ivol = vol(w->in), ovol = vol(w->out);                        \
	int64_t kk = p->cg * p->kvol;                                         \
	T *col = NULL;                                                        \
	struct gp_conv_geom geom = {&p->w, n, cin, cout, p->lo, p->hi};       \
	if (p->direct) {                                                      \
		gp_conv_dw_##SFX(x, wt, b, y, &geom);                         \
		return;                                                       \
	}                                                                     \
	if (p->pointwise && p->group == 1) {                                  \
		gp_conv_pw_##SFX(x, wt, b, y, &geom);                         \
		return;                                                       \
	}                                                                     \
	if (!p->pointwise)                                                    \
		col = gp_scratch_get(GP_SCRATCH_COL, sizeof(T) *              \
		    (size_t)(kk * ovol));                                     \
	for (int64_t i = 0; i < n; i++)                                       \
		for (int64_t g = 0; g < p->group; g++) {                      \
			const T *xg = x + (i * cin + g * p->cg) * ivol;       \
			T *yg = y + (i * cout + g * p->og) * ovol;            \
			if (!p->pointwise)                                    \
				im2col_##SFX(xg, col, p, p->cg);              \
			GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans,       \
			    (int)p->og, (int)ovol, (int)kk, 1,                \
			    wt + g * p->og * kk, (int)kk,                     \
			    p->pointwise ? xg : col, (int)ovol, 0, yg,        \
			    (int)ovol);                                       \
			if (b == NULL && !p->act)                             \
				continue;                                     \
			GP_PAR_FOR(p->og * ovol)                              \
			for (int64_t c = 0; c < p->og; c++) {                 \
				T bv = b != NULL ? b[g * p->og + c] : 0;      \
				T *yr = yg + c * ovol, lo = (T)p->lo,         \
				    hi = (T)p->hi;                            \
				if (!p->act) {                                \
					GP_SIMD                               \
					for (int64_t o = 0; o < ovol; o++)    \
						yr[o] += bv;                  \
					continue;                             \
				}                                             \
				GP_SIMD                                       \
				for (int64_t o = 0; o < ovol; o++)            \
					yr[o] = GP_CONV_CLAMP(yr[o] + bv, lo, \
					    hi);                              \
			}                                                     \
		}                                                             \
}                                                                             \
static void                                                                   \
convt_##SFX(const T *x, const T *wt, const T *b, T *y, int64_t n,             \
    int64_t cin, int64_t cout, const struct conv_priv *p)                     \
{                                                                             \
	const struct gp_win *w = &p->w;                                       \
	int64_t xvol = vol(w->out), yvol = vol(w->in);                        \
	int64_t mk = p->og * p->kvol;                                         \
	T *col = gp_scratch_get(GP_SCRATCH_COL, sizeof(T) *                   \
	    (size_t)(mk * xvol));                                             \
	for (int64_t i = 0; i < n * cout; i++) {                              \
		T bv = b != NULL ? b[i % cout] : 0, *yr = y + i * yvol;       \
		for (int64_t o = 0; o < yvol; o++)                            \
			yr[o] = bv;                                           \
	}                                                                     \
	for (int64_t i = 0; i < n; i++)                                       \
		for (int64_t g = 0; g < p->group; g++) {                      \
			GEMM(CblasRowMajor, CblasTrans, CblasNoTrans,         \
			    (int)mk, (int)xvol, (int)p->cg, 1,                \
			    wt + g * p->cg * mk, (int)mk,                     \
			    x + (i * cin + g * p->cg) * xvol, (int)xvol, 0,   \
			    col, (int)xvol);                                  \
			col2im_##SFX(col, y + (i * cout + g * p->og) * yvol,  \
			    p, p->og);                                        \
		}                                                             \
}
DEF_CONV(f32, float, cblas_sgemm)
DEF_CONV(f64, double, cblas_dgemm)

/* The scratch of conv_packed: Winograd's, or the blocked gemm's when
 * Winograd declines (a non-finite value), whichever is larger, asked at
 * once (so that the bytes measured are the bytes declared). */
static size_t
packed_scratch(const struct conv_priv *p)
{
	size_t gb = gp_conv_gemm_scratch(&p->w, p->cg, p->og), wb;

	if (!p->wino)
		return (gb);
	wb = gp_conv_wino_scratch(&p->w, p->cg, p->og, p->wino_u);
	return (wb > gb ? wb : gb);
}

/* Groups over the threads, each group's gemm on one thread, rather than
 * each group's gemm over the threads: when the groups are many and small
 * (RegNet's and ResNeXt's grouped 3x3 convs, groups of 8 to 64 output
 * channels), one parallel region a group cost more than its gemm
 * (regnet_y_400mf's grouped convs 2-6x ONNX Runtime's time). */
static bool
groups_over_threads(const struct conv_priv *p)
{
	int nt = gp_par_max_threads();

	return (nt > 1 && p->group >= nt && p->og <= 64 && !p->wino);
}

/* float32 conv through ops/conv-gemm.c: one blocked gemm per image and
 * group, the bias and clamp in its epilogue; or through ops/conv-wino.c,
 * which declines an image and group holding an infinity or a NaN. */
static void
conv_packed(const float *x, const float *wt, const float *u, const float *b,
    float *y, int64_t n, int64_t cin, int64_t cout, const struct conv_priv *p)
{
	int64_t ivol = vol(p->w.in), ovol = vol(p->w.out);
	void *ws = p->wino ? gp_scratch_get(GP_SCRATCH_COL, packed_scratch(p)) :
	    NULL;

	if (groups_over_threads(p)) {
		/* each thread's buffers one part of one request (its
		 * gemm's own regions then run on it alone) */
		size_t part = gp_conv_gemm_scratch(&p->w, p->cg, p->og);
		char *all = gp_scratch_get(GP_SCRATCH_COL, part * (size_t)
		    gp_par_max_threads());

		GP_PAR_FOR_DYNAMIC(n * cout * p->cg * p->kvol * ovol)
		for (int64_t j = 0; j < n * p->group; j++) {
			int64_t i = j / p->group, g = j % p->group;

			gp_conv_gemm_f32_in(x + (i * cin + g * p->cg) * ivol,
			    wt + g * p->og * p->cg * p->kvol, b != NULL ? b +
			    g * p->og : NULL, y + (i * cout + g * p->og) * ovol,
			    &p->w, p->cg, p->og, p->act, (float)p->lo,
			    (float)p->hi, all + part * (size_t)gp_par_thread());
		}
		return;
	}

	for (int64_t i = 0; i < n; i++)
		for (int64_t g = 0; g < p->group; g++) {
			const float *xg = x + (i * cin + g * p->cg) * ivol;
			const float *wg = wt + g * p->og * p->cg * p->kvol;
			const float *bg = b != NULL ? b + g * p->og : NULL;
			const float *ug = u != NULL ? u + g *
			    gp_conv_wino_weights_len(p->cg, p->og) : NULL;
			float *yg = y + (i * cout + g * p->og) * ovol;

			if (p->wino && gp_conv_wino_f32(xg, wg, ug, bg, yg,
			    &p->w, p->cg, p->og, p->act, (float)p->lo,
			    (float)p->hi, ws))
				continue;
			gp_conv_gemm_f32(xg, wg, bg, yg, &p->w, p->cg, p->og,
			    p->act, (float)p->lo, (float)p->hi);
		}
}

/* The inputs as contiguous tensors: the ones that are, copies of the
 * others in work space (ops/scratch.h; work_conv counts them). */
static void
contiguous(const struct gp_tensor **t, struct gp_scratch_tmp *tt,
    struct gp_tensor *const *in, int nin)
{
	for (int k = 0; k < nin; k++)
		t[k] = gp_scratch_as(in[k], in[k]->dtype, k, &tt[k]);
}

static void
k_conv(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct conv_priv *p = n->priv;
	const struct gp_tensor *t[4];
	struct gp_scratch_tmp tt[4];
	struct gp_tensor *o = out[0];
	bool tr = n->op->name[4] == '_';
	int64_t nb = o->shape[0], cin = in[0]->shape[1];
	int64_t cout = p->group * p->og;
	char *y = gp_tensor_data(o);

	if (gp_tensor_numel(o) == 0)
		return;
	if (p->into) {
		/* into D's channels [off, off + M): D itself when the VM
		 * passes it in place (destroy), else a copy of it first */
		if (n->destroy[0] != p->nc)
			gp_tensor_copy_into(o, in[p->nc]);
		y += p->off * vol(p->w.out) * (int64_t)gp_dtype_size(o->dtype);
		if (cout == 0 || vol(p->w.out) == 0)
			return;
	}
	contiguous(t, tt, in, p->nc);
#define ARGS(T) (const T *)gp_tensor_data(t[0]),                              \
	    (const T *)gp_tensor_data(t[1]),                                  \
	    p->nc > 2 ? (const T *)gp_tensor_data(t[2]) : NULL,               \
	    (T *)(void *)y, nb, cin, cout, p
	/* P a view off the kernel's 32-byte alignment: conv-pw.c on W */
	if (p->pwt && !gp_conv_gemm_packed_ok(in[3]))
		conv_f32(ARGS(float));
	else if (p->pwt)
		for (int64_t i = 0; i < nb; i++)
			gp_conv_gemm_pwt_f32((const float *)gp_tensor_data(t[0])
			    + i * cin * vol(p->w.in), (const float *)
			    gp_tensor_data(t[3]), (const float *)gp_tensor_data(
			    t[2]), (float *)(void *)y + i * cout * vol(p->w.out),
			    cin, cout, vol(p->w.out), p->act, (float)p->lo,
			    (float)p->hi);
	else if (p->packed)
		conv_packed((const float *)gp_tensor_data(t[0]),
		    (const float *)gp_tensor_data(t[1]), p->wino_u ?
		    (const float *)gp_tensor_data(t[3]) : NULL, p->nc > 2 ?
		    (const float *)gp_tensor_data(t[2]) : NULL,
		    (float *)(void *)y, nb, cin, cout, p);
	else if (o->dtype == GP_FLOAT32)
		(tr ? convt_f32 : conv_f32)(ARGS(float));
	else
		(tr ? convt_f64 : conv_f64)(ARGS(double));
#undef ARGS
}

/*
 * Prepare.
 */

static int
check_inputs(struct gp_graph *g, struct gp_node *n, const char *op, int nc,
    struct gp_err *err)
{
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	const struct gp_type *w = gp_graph_in_type(g, n, 1);
	/* input 3: W packed with param packed, else the Winograd U */
	const char *const names[] = {"X", "W", "B", json_is_true(
	    json_object_get(n->params, "packed")) ? "P" : "U"};

	if (x->ndim < 3 || x->ndim > 5)
		return (gp_err_set(err, "%s: X must have 3 to 5 dimensions "
		    "(N, C, then 1 to 3 spatial ones), got %d", op, x->ndim));
	if (x->dtype != GP_FLOAT32 && x->dtype != GP_FLOAT64)
		return (gp_err_set(err, "%s: X must be float32 or float64, got "
		    "%s", op, gp_dtype_name(x->dtype)));
	for (int k = 1; k < nc; k++) {
		const struct gp_type *t = gp_graph_in_type(g, n, k);

		if (t->dtype != x->dtype)
			return (gp_err_set(err, "%s: %s is %s but X is %s: "
			    "expected one float dtype", op, names[k],
			    gp_dtype_name(t->dtype), gp_dtype_name(x->dtype)));
	}
	if (x->shape[1] < 1)
		return (gp_err_set(err, "%s: X has no channels (dimension 1 "
		    "is 0): expected at least 1", op));
	if (w->ndim != x->ndim) {
		struct gp_buf a = {0}, b = {0};

		gp_shape_format(&a, x->ndim, x->shape);
		gp_shape_format(&b, w->ndim, w->shape);
		gp_err_set(err, "%s: W of shape %s for X of shape %s: expected "
		    "W to have X's %d dimensions", op, gp_buf_str(&b),
		    gp_buf_str(&a), x->ndim);
		gp_buf_free(&a);
		gp_buf_free(&b);
		return (-1);
	}
	return (0);
}

static int
err_shape(struct gp_err *err, const char *head, const struct gp_type *t,
    const char *fmt, ...) __attribute__((__format__(__printf__, 4, 5)));

static int
err_shape(struct gp_err *err, const char *head, const struct gp_type *t,
    const char *fmt, ...)
{
	struct gp_buf a = {0}, b = {0};
	va_list ap;

	gp_shape_format(&a, t->ndim, t->shape);
	va_start(ap, fmt);
	gp_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	gp_err_set(err, "%s%s%s", head, gp_buf_str(&a), gp_buf_str(&b));
	gp_buf_free(&a);
	gp_buf_free(&b);
	return (-1);
}

static int
check_bias(struct gp_graph *g, struct gp_node *n, const char *op, int nc,
    int64_t cout, struct gp_err *err)
{
	const struct gp_type *b;
	char head[64];

	if (nc < 3)
		return (0);
	b = gp_graph_in_type(g, n, 2);
	snprintf(head, sizeof(head), "%s: B of shape ", op);
	if (b->ndim != 1 || b->shape[0] != cout)
		return (err_shape(err, head, b, ": expected (%lld,), one "
		    "value per output channel", (long long)cout));
	return (0);
}

/* Input U (after B): W's Winograd transform, one (16, M/group, C/group)
 * block per group, made by the rewrite conv_winograd from fixed weights
 * (gp_conv_wino_weights); only with param winograd, float32, 3x3. */
static int
check_wino_u(struct gp_graph *g, struct gp_node *n, struct conv_priv *p,
    struct gp_err *err)
{
	const struct gp_type *u = gp_graph_in_type(g, n, 3);
	int64_t want[4] = {p->group, 16, p->og, p->cg};

	if (!p->wino)
		return (gp_err_set(err, "conv: input U (W's Winograd transform) "
		    "without param winograd: expected winograd true"));
	if (u->dtype != GP_FLOAT32 || gp_graph_in_type(g, n, 0)->ndim != 4 ||
	    p->w.k[1] != 3 || p->w.k[2] != 3)
		return (gp_err_set(err, "conv: input U (W's Winograd transform) "
		    "is for a float32 2-D 3x3 conv only"));
	if (u->ndim != 4 || memcmp(u->shape, want, sizeof(want)) != 0)
		return (err_shape(err, "conv: U of shape ", u, ": expected "
		    "(%lld, 16, %lld, %lld), (group, 16, M/group, C/group)",
		    (long long)want[0], (long long)want[2],
		    (long long)want[3]));
	p->wino_u = true;
	return (0);
}

/* Input P (after B): W (M, C, 1...) transposed and packed for the
 * transposed pointwise kernel (gp_conv_gemm_pack of its C x M), made by
 * the rewrite gemm_pack from fixed weights; only with param packed, of
 * a float32 pointwise conv of one group. */
static int
check_pw_p(struct gp_graph *g, struct gp_node *n, struct conv_priv *p,
    struct gp_err *err)
{
	const struct gp_type *pt = gp_graph_in_type(g, n, 3);
	int64_t len = gp_conv_gemm_pack_len(p->cg, p->og);

	if (p->wino)
		return (gp_err_set(err, "conv: params packed and winograd "
		    "together: expected one of them"));
	if (pt->dtype != GP_FLOAT32 || gp_graph_in_type(g, n, 0)->dtype !=
	    GP_FLOAT32 || !p->pointwise || p->group != 1)
		return (gp_err_set(err, "conv: input P (W packed) is for a "
		    "float32 pointwise conv (1x1, strides 1, no pads) of one "
		    "group only"));
	if (pt->ndim != 1 || pt->shape[0] != len)
		return (err_shape(err, "conv: P of shape ", pt, ": expected "
		    "(%lld,), W's %lld x %lld transpose in slivers of 16 "
		    "columns", (long long)len, (long long)p->cg,
		    (long long)p->og));
	p->pwt = true;
	return (0);
}

static int
check_blas(const char *op, const struct conv_priv *p, int64_t m, int64_t nn,
    int64_t k, struct gp_err *err)
{
	(void)p;
	if (m > INT_MAX || nn > INT_MAX || k > INT_MAX)
		return (gp_err_set(err, "%s: a matrix of the gemm is %lld x "
		    "%lld x %lld, over BLAS's int sizes", op, (long long)m,
		    (long long)nn, (long long)k));
	return (0);
}

/* Input D of a conv with param into (the last input): X's dtype, a batch
 * of 1, the output's spatial size, room for the M channels at off; the
 * output takes D's shape (shape: the conv's own, replaced). */
static int
check_into(struct gp_graph *g, struct gp_node *n, const struct conv_priv *p,
    int64_t *shape, struct gp_err *err)
{
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	const struct gp_type *d = gp_graph_in_type(g, n, p->nc);
	bool same = d->ndim == x->ndim && d->shape[0] == shape[0];

	if (d->dtype != x->dtype)
		return (gp_err_set(err, "conv: D is %s but X is %s: expected "
		    "one float dtype", gp_dtype_name(d->dtype),
		    gp_dtype_name(x->dtype)));
	if (shape[0] != 1)
		return (gp_err_set(err, "conv: into writes into D's channels, "
		    "for a batch of 1: X has %lld images",
		    (long long)shape[0]));
	for (int i = 2; same && i < x->ndim; i++)
		same = d->shape[i] == shape[i];
	if (!same || p->off > d->shape[1] - shape[1]) {
		struct gp_buf a = {0};
		char head[128];

		gp_shape_format(&a, x->ndim, shape);
		snprintf(head, sizeof(head), "conv: into %lld: the output of "
		    "shape %s does not fit in D of shape ", (long long)p->off,
		    gp_buf_str(&a));
		gp_buf_free(&a);
		return (err_shape(err, head, d, ": expected D (1, C, ...) "
		    "with the output's spatial size and C >= into + %lld",
		    (long long)shape[1]));
	}
	memcpy(shape, d->shape, sizeof(int64_t) * (size_t)d->ndim);
	return (0);
}

static int
prep_conv(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	const struct gp_type *w = gp_graph_in_type(g, n, 1);
	struct conv_priv *p = gp_xcalloc(1, sizeof(*p));
	int64_t shape[GP_MAX_DIMS], cin, cout;
	int nsp;
	bool packed;

	n->priv = p;
	if (gp_op_param_int(n->params, "into", -1, &p->off, err) < 0)
		return (-1);
	p->into = json_object_get(n->params, "into") != NULL;
	p->nc = n->n_in - (p->into ? 1 : 0);
	if (p->into && p->off < 0)
		return (gp_err_set(err, "conv: into is %lld: expected a channel "
		    "offset, 0 or more", (long long)p->off));
	if (p->nc < 2)
		return (gp_err_set(err, "conv: into needs input D after X and "
		    "W: expected 3 to 5 inputs"));
	if (p->nc > 4)
		return (gp_err_set(err, "conv: 5 inputs without param into: "
		    "expected X, W, B and U at most"));
	if (check_inputs(g, n, "conv", p->nc, err) < 0)
		return (-1);
	nsp = x->ndim - 2;
	cin = x->shape[1];
	cout = w->shape[0];
	if (gp_op_param_int(n->params, "group", 1, &p->group, err) < 0)
		return (-1);
	if (p->group < 1)
		return (gp_err_set(err, "conv: group is %lld: expected 1 or "
		    "more", (long long)p->group));
	if (cin % p->group != 0)
		return (gp_err_set(err, "conv: group %lld does not divide X's "
		    "%lld input channels", (long long)p->group,
		    (long long)cin));
	if (cout % p->group != 0)
		return (gp_err_set(err, "conv: group %lld does not divide W's "
		    "%lld output channels", (long long)p->group,
		    (long long)cout));
	if (w->shape[1] * p->group != cin) {
		struct gp_buf a = {0};
		char head[160];

		gp_shape_format(&a, x->ndim, x->shape);
		snprintf(head, sizeof(head), "conv: X of shape %s has %lld "
		    "channels but W of shape ", gp_buf_str(&a),
		    (long long)cin);
		gp_buf_free(&a);
		return (err_shape(err, head, w, " takes %lld (W's dimension "
		    "1, %lld, times group %lld)", (long long)(w->shape[1] *
		    p->group), (long long)w->shape[1], (long long)p->group));
	}
	if (check_bias(g, n, "conv", p->nc, cout, err) < 0)
		return (-1);
	if (gp_op_param_double(n->params, "act_min", -INFINITY, &p->lo,
	    err) < 0 || gp_op_param_double(n->params, "act_max", INFINITY,
	    &p->hi, err) < 0)
		return (-1);
	if (isnan(p->lo) || isnan(p->hi) || p->lo > p->hi)
		return (gp_err_set(err, "conv: act_min %g and act_max %g: "
		    "expected act_min <= act_max", p->lo, p->hi));
	p->act = p->lo > -INFINITY || p->hi < INFINITY;
	if (gp_win_parse(n->params, "conv", nsp, w->shape + 2, false, &p->w,
	    err) < 0 || gp_win_output(&p->w, "conv", x->shape + 2, err) < 0)
		return (-1);
	p->cg = cin / p->group;
	p->og = cout / p->group;
	p->kvol = vol(p->w.k);
	p->direct = p->cg == 1 && p->group > 1;
	p->pointwise = p->kvol == 1 && vol(p->w.s) == 1 && p->w.pb[0] == 0 &&
	    p->w.pb[1] == 0 && p->w.pb[2] == 0 && p->w.pe[0] == 0 &&
	    p->w.pe[1] == 0 && p->w.pe[2] == 0;
	/* a pointwise conv: through the blocked gemm unless of few pixels
	 * (ops/conv-gemm.h), else ops/conv-pw.c */
	p->packed = x->dtype == GP_FLOAT32 && !p->direct && gp_conv_gemm_ok() &&
	    (!p->pointwise || gp_conv_gemm_pointwise(&p->w, p->cg, p->og));
	if (gp_op_param_bool(n->params, "winograd", false, &p->wino, err) < 0)
		return (-1);
	if (gp_op_param_bool(n->params, "packed", false, &packed, err) < 0)
		return (-1);
	if (packed && p->nc < 4)
		return (gp_err_set(err, "conv: param packed without input P: "
		    "expected X, W, B and P"));
	if (p->nc > 3 && (packed ? check_pw_p(g, n, p, err) : check_wino_u(g,
	    n, p, err)) < 0)
		return (-1);
	/* P is used where the kernel runs: elsewhere conv-pw.c takes W */
	p->pwt = p->pwt && gp_conv_gemm_ok();
	/* a request: taken where F(2x2, 3x3) applies and pays */
	p->wino = p->wino && p->packed && gp_conv_wino_ok(&p->w, p->cg, p->og,
	    p->wino_u);
	if (check_blas("conv", p, p->og, vol(p->w.out), p->cg * p->kvol,
	    err) < 0)
		return (-1);
	shape[0] = x->shape[0];
	shape[1] = cout;
	for (int i = 0; i < nsp; i++)
		shape[2 + i] = p->w.out[GP_WIN_DIMS - nsp + i];
	if (p->into && check_into(g, n, p, shape, err) < 0)
		return (-1);
	gp_ops_set_out(g, n, 0, x->dtype, x->ndim, shape);
	n->kernel = k_conv;
	n->impl = p->direct || p->packed || p->pwt ? GP_IMPL_C : GP_IMPL_BLAS;
	return (0);
}

static int
prep_convt(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	const struct gp_type *w = gp_graph_in_type(g, n, 1);
	struct conv_priv *p = gp_xcalloc(1, sizeof(*p));
	int64_t shape[GP_MAX_DIMS], opad[GP_WIN_DIMS], osh[GP_WIN_DIMS + 2];
	int64_t cin, cout;
	json_t *os = json_object_get(n->params, "output_shape");
	int nsp, off;
	bool has_os = os != NULL && !json_is_null(os);
	struct gp_win *wi = &p->w;

	n->priv = p;
	p->nc = n->n_in;
	if (check_inputs(g, n, "conv_transpose", p->nc, err) < 0)
		return (-1);
	nsp = x->ndim - 2;
	off = GP_WIN_DIMS - nsp;
	cin = x->shape[1];
	if (gp_op_param_int(n->params, "group", 1, &p->group, err) < 0)
		return (-1);
	if (p->group < 1)
		return (gp_err_set(err, "conv_transpose: group is %lld: "
		    "expected 1 or more", (long long)p->group));
	if (cin % p->group != 0)
		return (gp_err_set(err, "conv_transpose: group %lld does not "
		    "divide X's %lld input channels", (long long)p->group,
		    (long long)cin));
	if (w->shape[0] != cin) {
		struct gp_buf a = {0};
		char head[160];

		gp_shape_format(&a, x->ndim, x->shape);
		snprintf(head, sizeof(head), "conv_transpose: X of shape %s "
		    "has %lld channels but W of shape ", gp_buf_str(&a),
		    (long long)cin);
		gp_buf_free(&a);
		return (err_shape(err, head, w, " takes %lld (W's dimension "
		    "0)", (long long)w->shape[0]));
	}
	cout = w->shape[1] * p->group;
	if (check_bias(g, n, "conv_transpose", p->nc, cout, err) < 0)
		return (-1);
	if (gp_win_parse(n->params, "conv_transpose", nsp, w->shape + 2,
	    false, wi, err) < 0)
		return (-1);
	if (gp_win_param_ints(n->params, "output_padding", nsp, 0, 0, opad,
	    NULL, err) < 0)
		return (-1);
	if (has_os) {
		size_t len = json_is_array(os) ? json_array_size(os) : 0;
		int skip = len == (size_t)nsp + 2 ? 2 : 0;

		if (len != (size_t)nsp && len != (size_t)nsp + 2)
			return (gp_err_set(err, "conv_transpose: param "
			    "'output_shape' must be a list of %d sizes (the "
			    "spatial ones) or of %d", nsp, nsp + 2));
		if (gp_win_param_ints(n->params, "output_shape", (int)len, 1,
		    1, osh, NULL, err) < 0)
			return (-1);
		memmove(osh, osh + skip, sizeof(int64_t) * (size_t)nsp);
	}
	for (int j = 0; j < nsp; j++) {
		int i = j + off;
		int64_t span = (wi->k[i] - 1) * wi->d[i] + 1, o;
		int64_t full = wi->s[i] * (x->shape[2 + j] - 1) + opad[j] + span;

		if (has_os || wi->auto_pad == GP_WIN_SAME_UPPER ||
		    wi->auto_pad == GP_WIN_SAME_LOWER) {
			int64_t tot;

			int64_t half;

			o = has_os ? osh[j] : x->shape[2 + j] * wi->s[i];
			tot = full - o;
			/* ONNX: SAME_UPPER puts the smaller half first.  The
			 * halves are floored, as ONNX's Python reference
			 * does: an output_shape past the full output (tot
			 * < 0) grows the end, pe = tot and pb = 0 for one
			 * more row; C's / would shift it to the start */
			half = tot >= 0 ? tot / 2 : -((1 - tot) / 2);
			wi->pb[i] = wi->auto_pad == GP_WIN_SAME_UPPER ? half :
			    tot - half;
			wi->pe[i] = tot - wi->pb[i];
		} else {
			if (wi->auto_pad == GP_WIN_VALID)
				wi->pb[i] = wi->pe[i] = 0;
			o = full - wi->pb[i] - wi->pe[i];
		}
		if (o < 1)
			return (gp_err_set(err, "conv_transpose: spatial "
			    "dimension %d: the output size would be %lld (%lld "
			    "before pads %lld and %lld): expected at least 1",
			    j, (long long)o, (long long)full,
			    (long long)wi->pb[i], (long long)wi->pe[i]));
		wi->in[i] = o;
		wi->out[i] = x->shape[2 + j];
	}
	p->cg = cin / p->group;
	p->og = w->shape[1];
	p->kvol = vol(wi->k);
	if (check_blas("conv_transpose", p, p->og * p->kvol, vol(wi->out),
	    p->cg, err) < 0)
		return (-1);
	shape[0] = x->shape[0];
	shape[1] = cout;
	for (int j = 0; j < nsp; j++)
		shape[2 + j] = wi->in[off + j];
	gp_ops_set_out(g, n, 0, x->dtype, x->ndim, shape);
	n->kernel = k_conv;
	n->impl = GP_IMPL_BLAS;
	return (0);
}

/* conv: 2 N Cout (output pixels) Cin/g (kernel volume); conv_transpose:
 * 2 N Cin (input pixels) Cout/g (kernel volume).  Bias adds not counted. */
static double
flops_conv(const struct gp_graph *g, const struct gp_node *n)
{
	const struct conv_priv *p = n->priv;
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	const struct gp_type *y = &g->vars[n->out[0]].type;
	bool tr = n->op->name[4] == '_';

	if (p == NULL)
		return (0);
	if (tr)
		return (2.0 * (double)x->shape[0] * (double)x->shape[1] *
		    (double)vol(p->w.out) * (double)p->og * (double)p->kvol);
	return (2.0 * (double)y->shape[0] * (double)(p->group * p->og) *
	    (double)vol(p->w.out) * (double)p->cg * (double)p->kvol);
}

/* The work space (ops/scratch.h) of one execution, one line per kernel
 * that takes some: the blocked gemm's packed blocks (ops/conv-gemm.h);
 * im2col's matrix for one image and group, (C/g kernel volume) x (output
 * pixels); conv_transpose's col2im matrix, (M/g kernel volume) x (input
 * pixels).  The direct (depthwise) and pointwise kernels take none.  Plus
 * the contiguous copies of strided inputs (contiguous()). */
static uint64_t
work_conv(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	const struct conv_priv *p = n->priv;
	const struct gp_type *y = &g->vars[n->out[0]].type;
	uint64_t isz = gp_dtype_size(y->dtype), copies = 0;

	if (p == NULL || gp_type_nbytes(y) == 0)
		return (0);
	for (int k = 0; k < p->nc; k++)
		copies += gp_scratch_as_bytes(in[k], in[k]->dtype);
	if (n->op->name[4] == '_')
		return (copies + isz * (uint64_t)(p->og * p->kvol *
		    vol(p->w.out)));
	if (p->pwt && gp_conv_gemm_packed_ok(in[3]))
		return (copies + (uint64_t)gp_conv_gemm_pwt_scratch(p->cg,
		    vol(p->w.out)));
	if (p->pwt)
		return (copies);
	if (p->direct)
		return (copies + isz * (uint64_t)gp_conv_dw_work(&p->w) *
		    (uint64_t)gp_par_max_threads());
	if (p->packed && groups_over_threads(p))
		return (copies + (uint64_t)gp_conv_gemm_scratch(&p->w, p->cg,
		    p->og) * (uint64_t)gp_par_max_threads());
	if (p->packed)
		return (copies + (uint64_t)packed_scratch(p));
	if (p->pointwise)
		return (copies);
	return (copies + isz * (uint64_t)(p->cg * p->kvol * vol(p->w.out)));
}

static void
fmt_conv(const struct gp_graph *g, const struct gp_node *n, struct gp_buf *b)
{
	const struct conv_priv *p = n->priv;

	gp_buf_printf(b, "%s{", n->op->cls);
	if (p != NULL) {
		gp_win_format(&p->w, b);
		if (p->group != 1)
			gp_buf_printf(b, ", group=%lld%s",
			    (long long)p->group, p->direct &&
			    n->op->name[4] != '_' ? " depthwise" : "");
		if (p->act && p->lo == 0 && p->hi == INFINITY)
			gp_buf_puts(b, ", relu");
		else if (p->act)
			gp_buf_printf(b, ", clip=[%g, %g]", p->lo, p->hi);
		if (p->wino)
			gp_buf_puts(b, ", winograd");
		if (p->pwt)
			gp_buf_puts(b, ", packed");
		if (p->into)
			gp_buf_printf(b, ", into=%lld", (long long)p->off);
	}
	gp_buf_puts(b, "}");
}

static const struct gp_op op_conv = {
	.name = "conv",
	.cls = "Conv",
	.doc = "conv(X, W[, B[, U or P]][, D]; kernel_shape, strides, dilations, "
	    "pads, auto_pad, group): ONNX Conv, 1-D to 3-D, NCHW; X (N, C, "
	    "...), W (M, C/group, k...), B (M); act_min, act_max clamp the "
	    "output (a fused Relu or Clip); winograd: Winograd's F(2x2, 3x3), "
	    "U W's transform (group, 16, M/group, C/group) made once; packed: "
	    "a float32 pointwise conv through the transposed kernel, P W "
	    "packed once; into: "
	    "the output is D (1, C, ...) with channels [into, into + M) the "
	    "conv's, D overwritten in place when the rewrite join_into made "
	    "it; float32 or float64",
	.min_in = 2, .max_in = 5, .n_out = 1,
	.flags = GP_OPF_BLAS,
	.params = p_conv,
	.prepare = prep_conv,
	.flops = flops_conv,
	.workspace = work_conv,
	.format = fmt_conv,
	.free_priv = free,
};

static const struct gp_op op_conv_transpose = {
	.name = "conv_transpose",
	.cls = "ConvTranspose",
	.doc = "conv_transpose(X, W[, B]; kernel_shape, strides, dilations, "
	    "pads, auto_pad, group, output_padding, output_shape): ONNX "
	    "ConvTranspose, 1-D to 3-D; X (N, C, ...), W (C, M/group, k...), "
	    "B (M); float32 or float64; never in place",
	.min_in = 2, .max_in = 3, .n_out = 1,
	.flags = GP_OPF_BLAS,
	.params = p_convt,
	.prepare = prep_convt,
	.flops = flops_conv,
	.workspace = work_conv,
	.format = fmt_conv,
	.free_priv = free,
};

const struct gp_op *const gp_ops_conv[] = {
	&op_conv,
	&op_conv_transpose,
	NULL,
};
