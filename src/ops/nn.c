/*
 * ops/nn.c: the neural-network family: softmax and log_softmax over the
 * last axis (max-subtracted, so large inputs do not overflow),
 * softmax_grad (Theano's SoftmaxGrad), and the categorical cross-entropy
 * with integer targets and its gradient (Theano's
 * CrossentropyCategorical1Hot and CrossentropyCategorical1HotGrad).
 *
 * softmax and log_softmax take a param scale (default 1): softmax(x *
 * scale), the attention's scale of its scores in the same apply (the
 * rewrite softmax_scale puts it there).  Each row is scaled in the dtype,
 * y = x * scale, then the max of y subtracted, so softmax(x; scale=c)
 * gives the bits of softmax(mul(x, c)).  Their rows are made contiguous
 * (an input that is not is copied), the exponentials are computed by the
 * Elemwise exp's own evaluator (libmvec's vector exp where elemwise.c uses
 * it, so softmax and exp agree), the sum of each row in double, and the
 * rows are an OpenMP parallel loop (ops/par.h) when large.
 *
 * Kernels run in float32 or float64; integer inputs are converted to the
 * float type first (Theano's upgrade_to_float).  Inputs may have any
 * strides.  A target outside [0, K) gives NaN as that row's loss and a row
 * of NaN in the gradient: the bad row stays visible, nothing is read out of
 * bounds.
 */
#include "config.h"

#include "ops/elemwise.h"
#include "ops/ops.h"
#include "ops/par.h"
#include "ops/scratch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
fmt_cls(const struct gp_graph *g, const struct gp_node *n, struct gp_buf *b)
{
	gp_buf_puts(b, n->op->cls);
}

static int
err_shapes(struct gp_err *err, const char *head, const struct gp_type *a,
    const char *mid, const struct gp_type *b, const char *tail)
{
	struct gp_buf sa = {0}, sb = {0};

	gp_shape_format(&sa, a->ndim, a->shape);
	gp_shape_format(&sb, b->ndim, b->shape);
	gp_err_set(err, "%s%s%s%s%s", head, gp_buf_str(&sa), mid,
	    gp_buf_str(&sb), tail);
	gp_buf_free(&sa);
	gp_buf_free(&sb);
	return (-1);
}

/* Inputs not of the output's float dtype are converted into work space
 * (ops/scratch.h); c->use[] gets the tensors to use. */
struct conv {
	struct gp_scratch_tmp	t[GP_SCRATCH_N_IN];
	const struct gp_tensor	*use[GP_SCRATCH_N_IN];
};

static void
conv_inputs(struct conv *c, struct gp_tensor *const *in, int nin,
    enum gp_dtype dt)
{
	for (int k = 0; k < nin; k++)
		c->use[k] = in[k]->dtype != dt ? gp_scratch_as(in[k], dt, k,
		    &c->t[k]) : in[k];
}

/* The work space conv_inputs() takes for inputs 0 to nin - 1. */
static uint64_t
conv_bytes(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in, int nin)
{
	enum gp_dtype dt = g->vars[n->out[0]].type.dtype;
	uint64_t b = 0;

	for (int k = 0; k < nin; k++)
		if (in[k]->dtype != dt)
			b += gp_scratch_as_bytes(in[k], dt);
	return (b);
}

static uint64_t
work_rows(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	return (conv_bytes(g, n, in, n->n_in));
}

static uint64_t
work_xent(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	return (conv_bytes(g, n, in, 1));
}

static uint64_t
work_xent_grad(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	return (conv_bytes(g, n, in, 2));
}

/*
 * Row-wise ops over the last axis.  ptrs[0] is the output row, then the
 * inputs' rows; s[k] their strides along the row.
 */

typedef void (*row_fn)(char *const *p, const int64_t *s, int64_t k);

struct row_ctx {
	int	nop;
	int64_t	len;
	int64_t	s[3];
	row_fn	fn;
};

static void
rows_inner(char **p, const int64_t *st, int64_t n, void *vctx)
{
	const struct row_ctx *c = vctx;

	for (int64_t j = 0; j < n; j++) {
		char *q[3];

		for (int k = 0; k < c->nop; k++)
			q[k] = p[k] + j * st[k];
		c->fn(q, c->s, c->len);
	}
}

/* Run fn on every row (last axis) of t[0..nop-1] (all of one shape). */
static void
walk_rows(const struct gp_tensor *const *t, int nop, row_fn fn)
{
	const struct gp_tensor *o = t[0];
	struct gp_tensor h[3];
	struct gp_iter it;
	struct row_ctx c = {.nop = nop, .fn = fn};
	int nd = o->ndim - 1;

	c.len = o->shape[nd];
	if (gp_tensor_numel(o) == 0)
		return;
	gp_iter_init(&it, nd, o->shape, nop);
	for (int k = 0; k < nop; k++) {
		h[k] = *t[k];	/* borrowed header: the leading dims */
		h[k].ndim = nd;
		c.s[k] = t[k]->strides[nd];
		gp_iter_add(&it, k, &h[k]);
	}
	gp_iter_run(&it, rows_inner, &c);
}

#define EL(T, p, s, i) (*(T *)((p) + (i) * (s)))

#define DEF_ROWS(SFX, T)                                                      \
static void                                                                   \
softmaxgrad_##SFX(char *const *p, const int64_t *s, int64_t k)                \
{                                                                             \
	double dot = 0;                                                       \
	T d;                                                                  \
	for (int64_t i = 0; i < k; i++)                                       \
		dot += (double)EL(const T, p[1], s[1], i) *                   \
		    (double)EL(const T, p[2], s[2], i);                       \
	d = (T)dot;                                                           \
	for (int64_t i = 0; i < k; i++)                                       \
		EL(T, p[0], s[0], i) = (EL(const T, p[1], s[1], i) - d) *     \
		    EL(const T, p[2], s[2], i);                               \
}
DEF_ROWS(f32, float)
DEF_ROWS(f64, double)

static void
k_rows(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out, row_fn f32, row_fn f64)
{
	struct gp_tensor *o = out[0];
	const struct gp_tensor *t[3];
	struct conv c;

	conv_inputs(&c, in, n->n_in, o->dtype);
	t[0] = o;
	for (int k = 0; k < n->n_in; k++)
		t[k + 1] = c.use[k];
	walk_rows(t, n->n_in + 1, o->dtype == GP_FLOAT32 ? f32 : f64);
}

/*
 * softmax and log_softmax: contiguous rows of k elements, y = x * scale,
 * m = max(y), e = exp(y - m) through the Elemwise exp's evaluator (for
 * softmax one call per block of short rows, SM_BLOCK elements or one
 * row), the sum of each row in double; softmax writes e / sum (e times 1 / sum, in
 * the dtype), log_softmax (y - m) - log(sum).  A NaN in a row makes its
 * sum NaN, so the whole row NaN, as numpy's.
 */
struct sm_priv {
	double	scale;
	bool	lg;		/* log_softmax */
};

static const char *const p_softmax[] = {"scale", NULL};

/* Elements of a row's exponentials computed at once (log_softmax, which
 * keeps y - m in the output, puts them on the stack). */
#define SM_BLOCK	256

#if defined(GP_HAVE_OMP_SIMD)
#define SM_SIMD_SUM	_Pragma("omp simd reduction(+:sum)")
#else
#define SM_SIMD_SUM
#endif

/* The rows' maximum: 8 running maxima (GCC keeps them in a register; an
 * `omp simd reduction(max)` kept its lanes on the stack, a store and a
 * load each vector: 60% of a (12, 197, 197) softmax's time), y = x sc
 * on the way.  A NaN is never taken: it makes the row's sum NaN later. */
#define DEF_SM(SFX, T, EVAL, LOG)                                             \
static inline __attribute__((always_inline)) T                                \
sm_max_##SFX(const T *restrict xr, T *restrict yr, int64_t k, T sc)           \
{                                                                             \
	T m8[8], m = -INFINITY;                                               \
	int64_t i = 0;                                                        \
	for (int j = 0; j < 8; j++)                                           \
		m8[j] = -INFINITY;                                            \
	for (; i + 8 <= k; i += 8)                                            \
		for (int j = 0; j < 8; j++) {                                 \
			T v = xr[i + j] * sc;                                 \
			yr[i + j] = v;                                        \
			m8[j] = v > m8[j] ? v : m8[j];                        \
		}                                                             \
	for (; i < k; i++) {                                                  \
		yr[i] = xr[i] * sc;                                           \
		m = yr[i] > m ? yr[i] : m;                                    \
	}                                                                     \
	for (int j = 0; j < 8; j++)                                           \
		m = m8[j] > m ? m8[j] : m;                                    \
	return (m);                                                           \
}                                                                             \
/* Rows [r0, r1), one block (see sm_rows_); compiled for AVX2 too. */     \
GP_SIMD_CLONES static void                                                    \
sm_block_##SFX(const T *x, T *y, int64_t r0, int64_t r1, int64_t k, T sc,     \
    bool lg, void (*ex)(T *, const T *const *, size_t))                       \
{                                                                             \
	for (int64_t r = r0; r < r1; r++) {                                   \
		const T *restrict xr = x + r * k;                             \
		T *restrict yr = y + r * k;                                   \
		T m = sm_max_##SFX(xr, yr, k, sc);                            \
		GP_SIMD                                                       \
		for (int64_t i = 0; i < k; i++)                               \
			yr[i] = yr[i] - m;                                    \
	}                                                                     \
	if (!lg) {                                                            \
		const T *arg = y + r0 * k;                                    \
		ex(y + r0 * k, &arg, (size_t)((r1 - r0) * k));                \
		for (int64_t r = r0; r < r1; r++) {                           \
			T *restrict yr = y + r * k;                           \
			double sum = 0;                                       \
			T inv;                                                \
			SM_SIMD_SUM                                           \
			for (int64_t i = 0; i < k; i++)                       \
				sum += yr[i];                                 \
			inv = (T)(1.0 / sum);                                 \
			GP_SIMD                                               \
			for (int64_t i = 0; i < k; i++)                       \
				yr[i] *= inv;                                 \
		}                                                             \
		return;                                                       \
	}                                                                     \
	for (int64_t r = r0; r < r1; r++) {                                   \
		T *restrict yr = y + r * k, e[SM_BLOCK], l;                   \
		double sum = 0;                                               \
		for (int64_t j = 0; j < k; j += SM_BLOCK) {                   \
			int64_t nb = k - j < SM_BLOCK ? k - j : SM_BLOCK;     \
			const T *arg = yr + j;                                \
			ex(e, &arg, (size_t)nb);                              \
			SM_SIMD_SUM                                           \
			for (int64_t i = 0; i < nb; i++)                      \
				sum += e[i];                                  \
		}                                                             \
		l = (T)LOG(sum);                                              \
		GP_SIMD                                                       \
		for (int64_t i = 0; i < k; i++)                               \
			yr[i] = yr[i] - l;                                    \
	}                                                                     \
}                                                                             \
static void                                                                   \
sm_rows_##SFX(const T *x, T *y, int64_t rows, int64_t k, T sc, bool lg)       \
{                                                                             \
	void (*ex)(T *, const T *const *, size_t) =                           \
	    gp_elemwise_scalar_find("exp")->EVAL;                             \
	/* softmax: blocks of rows, one exp call per block */                 \
	int64_t rb = lg || k >= SM_BLOCK ? 1 : SM_BLOCK / k;                  \
	int64_t nblk = (rows + rb - 1) / rb;                                  \
                                                                              \
	GP_PAR_FOR(rows * k)                                                  \
	for (int64_t bk = 0; bk < nblk; bk++) {                               \
		int64_t r0 = bk * rb, r1 = r0 + rb < rows ? r0 + rb : rows;   \
		sm_block_##SFX(x, y, r0, r1, k, sc, lg, ex);                  \
	}                                                                     \
}
DEF_SM(f32, float, eval_f32, log)
DEF_SM(f64, double, eval_f64, log)

static void
k_softmax(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct sm_priv *p = n->priv;
	struct gp_tensor *o = out[0], *y;
	struct gp_scratch_tmp xc, yc;
	const struct gp_tensor *x;
	int64_t total = gp_tensor_numel(o), k;

	if (total == 0)
		return;
	k = o->shape[o->ndim - 1];
	/* contiguous rows of the output's dtype, in and out */
	x = gp_scratch_as(in[0], o->dtype, 0, &xc);
	y = gp_scratch_out(o, &yc);
	if (o->dtype == GP_FLOAT32)
		sm_rows_f32((const float *)gp_tensor_data(x),
		    (float *)gp_tensor_data(y), total / k, k, (float)p->scale,
		    p->lg);
	else
		sm_rows_f64((const double *)gp_tensor_data(x),
		    (double *)gp_tensor_data(y), total / k, k, p->scale, p->lg);
	gp_scratch_out_done(o, y);
}

static uint64_t
work_softmax(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	if (gp_shape_numel(g->vars[n->out[0]].type.ndim,
	    g->vars[n->out[0]].type.shape) == 0)
		return (0);
	return (gp_scratch_as_bytes(in[0], g->vars[n->out[0]].type.dtype) +
	    gp_scratch_out_bytes(n, in));
}

static void
k_softmaxgrad(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	k_rows(n, in, out, softmaxgrad_f32, softmaxgrad_f64);
}

static int
prep_softmax(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	struct sm_priv *p;

	if (t->ndim < 1)
		return (gp_err_set(err, "%s: the input must have at least 1 "
		    "dimension (the rows run along the last one), got a 0-d "
		    "tensor", n->op->name));
	if (t->dtype == GP_BOOL)
		return (gp_err_set(err, "%s: the input must be numbers, got "
		    "bool", n->op->name));
	p = gp_xcalloc(1, sizeof(*p));
	n->priv = p;
	p->lg = strcmp(n->op->name, "log_softmax") == 0;
	if (gp_op_param_double(n->params, "scale", 1, &p->scale, err) < 0)
		return (-1);
	if (!isfinite(p->scale) || p->scale == 0)
		return (gp_err_set(err, "%s: scale must be a finite number "
		    "other than 0, got %g", n->op->name, p->scale));
	gp_ops_set_out(g, n, 0, gp_dtype_to_float(t->dtype), t->ndim,
	    t->shape);
	n->kernel = k_softmax;
	return (0);
}

static int
prep_softmaxgrad(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *dy = gp_graph_in_type(g, n, 0);
	const struct gp_type *sm = gp_graph_in_type(g, n, 1);
	enum gp_dtype dt;

	if (dy->ndim < 1)
		return (gp_err_set(err, "softmax_grad: dy must have at least "
		    "1 dimension, got a 0-d tensor"));
	if (dy->ndim != sm->ndim || memcmp(dy->shape, sm->shape,
	    sizeof(int64_t) * (size_t)dy->ndim) != 0)
		return (err_shapes(err, "softmax_grad: dy of shape ", dy,
		    " and sm of shape ", sm, " differ"));
	if (dy->dtype == GP_BOOL || sm->dtype == GP_BOOL)
		return (gp_err_set(err, "softmax_grad: the inputs must be "
		    "numbers, got bool"));
	dt = gp_dtype_to_float(gp_dtype_promote(dy->dtype, sm->dtype));
	gp_ops_set_out(g, n, 0, dt, dy->ndim, dy->shape);
	n->kernel = k_softmaxgrad;
	return (0);
}

static double
flops_rows(const struct gp_graph *g, const struct gp_node *n)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	double e = (double)gp_shape_numel(t->ndim, t->shape);

	const struct sm_priv *p = n->op->prepare == prep_softmax ? n->priv :
	    NULL;
	double extra = p != NULL && p->scale != 1 ? e : 0;

	/* max, subtract, exp, sum and scale: counted as 4 per element, one
	 * more for a scale other than 1; log_softmax adds one log per row */
	if (strcmp(n->op->name, "log_softmax") == 0 && t->ndim > 0 &&
	    t->shape[t->ndim - 1] > 0)
		return (4 * e + extra + e / (double)t->shape[t->ndim - 1]);
	return (4 * e + extra);
}

static void
fmt_softmax(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	const struct sm_priv *p = n->priv;

	gp_buf_puts(b, n->op->cls);
	if (p != NULL && p->scale != 1)
		gp_buf_printf(b, "{scale=%g}", p->scale);
}

/*
 * crossentropy_categorical_1hot and its gradient
 */

/* Target i as an index, or -1 when outside [0, k). */
static int64_t
target(const struct gp_tensor *y, int64_t i, int64_t k)
{
	int64_t t;

	gp_dtype_convert(&t, GP_INT64, gp_tensor_data(y) + i * y->strides[0],
	    y->dtype, 0, 1);
	if (y->dtype == GP_UINT64 && t < 0)
		return (-1);
	return (t >= 0 && t < k ? t : -1);
}

/* One element of xent (-log p, NaN for a bad target) and of its gradient
 * (-g / p), for T: one definition, instantiated for float and double. */
#define DEF_XENT(SFX, T, LOG)                                                 \
static void                                                                   \
xent_##SFX(char *o, const char *pp, bool bad)                                 \
{                                                                             \
	*(T *)o = bad ? NAN : -LOG(*(const T *)pp);                           \
}                                                                             \
static void                                                                   \
xent_grad_##SFX(char *o, const char *gp, const char *pp)                      \
{                                                                             \
	*(T *)o = -*(const T *)gp / *(const T *)pp;                           \
}
DEF_XENT(f32, float, logf)
DEF_XENT(f64, double, log)

static void
k_xent(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	struct gp_tensor *o = out[0];
	const struct gp_tensor *p, *y = in[1];
	int64_t rows = o->shape[0], k;
	size_t isz = gp_dtype_size(o->dtype);
	void (*f)(char *, const char *, bool) = o->dtype == GP_FLOAT32 ?
	    xent_f32 : xent_f64;
	struct conv c;

	conv_inputs(&c, in, 1, o->dtype);
	p = c.use[0];
	k = p->shape[1];
	for (int64_t i = 0; i < rows; i++) {
		int64_t t = target(y, i, k);
		const char *pp = gp_tensor_data(p) + i * p->strides[0] +
		    (t < 0 ? 0 : t) * p->strides[1];

		f(gp_tensor_data(o) + (size_t)i * isz, pp, t < 0);
	}
}

static void
k_xent_grad(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	struct gp_tensor *o = out[0];
	const struct gp_tensor *gy, *p, *y = in[2];
	int64_t rows = o->shape[0], k = o->shape[1];
	size_t isz = gp_dtype_size(o->dtype);
	struct conv c;

	conv_inputs(&c, in, 2, o->dtype);
	gy = c.use[0];
	p = c.use[1];
	memset(gp_tensor_data(o), 0, gp_tensor_nbytes(o));
	for (int64_t i = 0; i < rows; i++) {
		int64_t t = target(y, i, k);
		char *row = gp_tensor_data(o) + (size_t)(i * k) * isz;
		const char *gp = gp_tensor_data(gy) + i * gy->strides[0];
		const char *pp = gp_tensor_data(p) + i * p->strides[0] +
		    (t < 0 ? 0 : t) * p->strides[1];

		if (t < 0) {
			double nan = NAN;

			gp_dtype_convert(row, o->dtype, &nan, GP_FLOAT64, 0,
			    (size_t)k);
		} else
			(o->dtype == GP_FLOAT32 ? xent_grad_f32 :
			    xent_grad_f64)(row + (size_t)t * isz, gp, pp);
	}
}

static int
check_targets(struct gp_err *err, const char *op, const struct gp_type *p,
    const struct gp_type *y)
{
	if (p->ndim != 2)
		return (gp_err_set(err, "%s: the coding distribution must be "
		    "a matrix (N, K), got %d dimensions", op, p->ndim));
	if (p->dtype == GP_BOOL)
		return (gp_err_set(err, "%s: the coding distribution must be "
		    "numbers, got bool", op));
	if (!gp_dtype_is_int(y->dtype))
		return (gp_err_set(err, "%s: the targets must be integers, "
		    "got %s", op, gp_dtype_name(y->dtype)));
	if (y->ndim != 1 || y->shape[0] != p->shape[0]) {
		char head[64];

		snprintf(head, sizeof(head), "%s: targets of shape ", op);
		return (err_shapes(err, head, y, " do not match the coding "
		    "distribution's rows: shape ", p, ""));
	}
	return (0);
}

static int
prep_xent(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *p = gp_graph_in_type(g, n, 0);
	const struct gp_type *y = gp_graph_in_type(g, n, 1);

	if (check_targets(err, "crossentropy_categorical_1hot", p, y) < 0)
		return (-1);
	gp_ops_set_out(g, n, 0, gp_dtype_to_float(p->dtype), 1, p->shape);
	n->kernel = k_xent;
	return (0);
}

static int
prep_xent_grad(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *gy = gp_graph_in_type(g, n, 0);
	const struct gp_type *p = gp_graph_in_type(g, n, 1);
	const struct gp_type *y = gp_graph_in_type(g, n, 2);
	const char *op = "crossentropy_categorical_1hot_grad";

	if (check_targets(err, op, p, y) < 0)
		return (-1);
	if (gy->ndim != 1 || gy->shape[0] != p->shape[0]) {
		char head[80];

		snprintf(head, sizeof(head), "%s: g_nll of shape ", op);
		return (err_shapes(err, head, gy, " does not match the coding "
		    "distribution's rows: shape ", p, ""));
	}
	if (gy->dtype == GP_BOOL)
		return (gp_err_set(err, "%s: g_nll must be numbers, got bool",
		    op));
	gp_ops_set_out(g, n, 0, gp_dtype_to_float(gp_dtype_promote(gy->dtype,
	    p->dtype)), 2, p->shape);
	n->kernel = k_xent_grad;
	return (0);
}

static double
flops_xent(const struct gp_graph *g, const struct gp_node *n)
{
	/* one log (forward) or one divide and negate (gradient) per row */
	const struct gp_type *t = gp_graph_in_type(g, n, 0);

	return (n->n_in == 2 ? (double)t->shape[0] : 2.0 * (double)t->shape[0]);
}

/*
 * The table.
 */

static const struct gp_op op_softmax = {
	.name = "softmax",
	.cls = "Softmax",
	.doc = "softmax(x; scale): exp(y - max) / sum over the last axis, y "
	    "= x * scale (default 1); float output (ints upgraded); never in "
	    "place",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.params = p_softmax,
	.prepare = prep_softmax,
	.flops = flops_rows,
	.workspace = work_softmax,
	.format = fmt_softmax,
	.free_priv = free,
};

static const struct gp_op op_log_softmax = {
	.name = "log_softmax",
	.cls = "LogSoftmax",
	.doc = "log_softmax(x; scale): y - max - log(sum(exp(y - max))) over "
	    "the last axis, y = x * scale (default 1); float output; never in "
	    "place",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.params = p_softmax,
	.prepare = prep_softmax,
	.flops = flops_rows,
	.workspace = work_softmax,
	.format = fmt_softmax,
	.free_priv = free,
};

static const struct gp_op op_softmax_grad = {
	.name = "softmax_grad",
	.cls = "SoftmaxGrad",
	.doc = "softmax_grad(dy, sm): (dy - sum(dy * sm, last axis)) * sm; "
	    "dy and sm of one shape; never in place",
	.min_in = 2, .max_in = 2, .n_out = 1,
	.prepare = prep_softmaxgrad,
	.flops = flops_rows,
	.workspace = work_rows,
	.format = fmt_cls,
};

static const struct gp_op op_xent = {
	.name = "crossentropy_categorical_1hot",
	.cls = "CrossentropyCategorical1Hot",
	.doc = "crossentropy_categorical_1hot(p, y): p (N, K), integer y (N) "
	    "-> (N) -log p[i, y[i]]; y outside [0, K) gives NaN",
	.min_in = 2, .max_in = 2, .n_out = 1,
	.prepare = prep_xent,
	.flops = flops_xent,
	.workspace = work_xent,
	.format = fmt_cls,
};

static const struct gp_op op_xent_grad = {
	.name = "crossentropy_categorical_1hot_grad",
	.cls = "CrossentropyCategorical1HotGrad",
	.doc = "crossentropy_categorical_1hot_grad(g_nll, p, y): (N, K) zeros "
	    "but [i, y[i]] = -g_nll[i] / p[i, y[i]]; y outside [0, K) gives a "
	    "row of NaN",
	.min_in = 3, .max_in = 3, .n_out = 1,
	.prepare = prep_xent_grad,
	.flops = flops_xent,
	.workspace = work_xent_grad,
	.format = fmt_cls,
};

const struct gp_op *const gp_ops_nn[] = {
	&op_xent,
	&op_xent_grad,
	&op_log_softmax,
	&op_softmax,
	&op_softmax_grad,
	NULL,
};
