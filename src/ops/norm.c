/*
 * ops/norm.c: the normalization family: batch_norm (ONNX
 * BatchNormalization, inference form: the given mean and variance),
 * layer_norm (ONNX LayerNormalization, opset 17: over the axes from
 * `axis` on) and instance_norm (ONNX InstanceNormalization: over each
 * (n, c) plane), in float32 or float64.
 *
 * batch_norm folds its four per-channel inputs into one scale and one
 * shift per channel (in double) and runs y = x * a + b over each plane,
 * clamped to [act_min, act_max] when the bn_act rewrite fused a Relu or
 * a Clip into it (DenseNet's pre-activations).
 * layer_norm and instance_norm compute each row's mean and then its
 * variance in double, in two vectorized passes over the row (no
 * cancellation as in E[x^2] - E[x]^2), then write (x - mean) / sqrt(var + epsilon) * scale +
 * bias; layer_norm may also give each row's mean and 1 / sqrt(var +
 * epsilon) (ONNX's Mean and InvStdDev outputs, float32 as stash_type 1
 * says).  The per-channel or per-column factors live in per-thread scratch.
 * The planes or rows are an OpenMP parallel loop (ops/par.h), in one run
 * per thread, each run's loops compiled for the baseline and for AVX2
 * (GP_SIMD_CLONES).
 * Both dtypes share one definition, instantiated by a macro.
 */
#include "config.h"

#include "ops/ops.h"
#include "ops/par.h"
#include "ops/scratch.h"
#include "ops/window.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum norm_kind { N_BATCH, N_LAYER, N_INSTANCE };

struct norm_priv {
	enum norm_kind	kind;
	double		eps;
	int		axis;	/* layer_norm: the first normalized axis */
	double		lo, hi;	/* batch_norm: the clamp (act_min, act_max) */
	bool		act;	/* ... when either is finite */
};

static const char *const p_batch[] = {"epsilon", "momentum",
	"training_mode", "spatial", "act_min", "act_max", NULL};
static const char *const p_layer[] = {"axis", "epsilon", "stash_type",
	NULL};
static const char *const p_inst[] = {"epsilon", NULL};

/* Before a row's sum into v: vectorized, in lanes added at the end (the
 * order of the additions is not the row's; in double, each lane's error
 * is far below float32's). */
#ifdef GP_HAVE_OMP_SIMD
#define NORM_SIMD_SUM(v)	NORM_PRAGMA(omp simd reduction(+:v))
#define NORM_PRAGMA(x)		_Pragma(#x)
#else
#define NORM_SIMD_SUM(v)
#endif

#define DEF_NORM(SFX, T)                                                      \
/* y = x * a[c] + b[c] over planes [p0, p1) of len elements, channel pl  \
 * % nc; with act, clamped to [lo, hi] as conv clamps (NaN stays NaN).     \
 * Compiled for AVX2 too (GP_SIMD_CLONES), called from the threads' loop.  \
 */                                                                           \
GP_SIMD_CLONES static void                                                    \
affine_part_##SFX(const T *x, T *y, int64_t p0, int64_t p1, int64_t nc,       \
    int64_t len, const T *a, const T *b, bool act, T lo, T hi)                \
{                                                                             \
	for (int64_t pl = p0; pl < p1; pl++) {                                \
		const T *restrict xr = x + pl * len;                          \
		T *restrict yr = y + pl * len, av = a[pl % nc],               \
		    bv = b[pl % nc];                                          \
		if (!act) {                                                   \
			GP_SIMD                                               \
			for (int64_t i = 0; i < len; i++)                     \
				yr[i] = xr[i] * av + bv;                      \
			continue;                                             \
		}                                                             \
		GP_SIMD                                                       \
		for (int64_t i = 0; i < len; i++) {                           \
			T v = xr[i] * av + bv;                                \
			v = v < lo ? lo : v;                                  \
			yr[i] = v > hi ? hi : v;                              \
		}                                                             \
	}                                                                     \
}                                                                             \
static void                                                                   \
affine_##SFX(const T *x, T *y, int64_t planes, int64_t nc, int64_t len,       \
    const T *a, const T *b, bool act, T lo, T hi)                             \
{                                                                             \
	int nt = gp_par_max_threads();                                        \
	GP_PAR_FOR(planes * len)                                              \
	for (int k = 0; k < nt; k++) {                                        \
		int64_t p0, p1;                                               \
		gp_par_split(planes, 1, k, nt, &p0, &p1);                     \
		affine_part_##SFX(x, y, p0, p1, nc, len, a, b, act, lo, hi);  \
	}                                                                     \
}                                                                             \
/* Each row of len normalized; scale and bias per column (percol) or per  \
 * row's channel (row % nc); each row's mean and 1 / standard deviation   \
 * into mean and istd (float32; NULL: not wanted). */                         \
GP_SIMD_CLONES static void                                                    \
rows_part_##SFX(const T *x, T *y, int64_t r0, int64_t r1, int64_t len,        \
    double eps, const T *sc, const T *bi, bool percol, int64_t nc,            \
    float *mean, float *istd)                                                 \
{                                                                             \
	for (int64_t r = r0; r < r1; r++) {                                   \
		const T *restrict xr = x + r * len;                           \
		T *restrict yr = y + r * len;                                 \
		double s = 0, v = 0, m;                                       \
		T mt, inv;                                                    \
		NORM_SIMD_SUM(s)                                              \
		for (int64_t i = 0; i < len; i++)                             \
			s += xr[i];                                           \
		m = s / (double)len;                                          \
		NORM_SIMD_SUM(v)                                              \
		for (int64_t i = 0; i < len; i++) {                           \
			double d = xr[i] - m;                                 \
			v += d * d;                                           \
		}                                                             \
		mt = (T)m;                                                    \
		inv = (T)(1 / sqrt(v / (double)len + eps));                   \
		if (mean != NULL)                                             \
			mean[r] = (float)m;                                   \
		if (istd != NULL)                                             \
			istd[r] = (float)(1 / sqrt(v / (double)len + eps));   \
		if (percol && bi != NULL) {                                   \
			GP_SIMD                                               \
			for (int64_t i = 0; i < len; i++)                     \
				yr[i] = (xr[i] - mt) * inv * sc[i] + bi[i];   \
		} else if (percol) {                                          \
			GP_SIMD                                               \
			for (int64_t i = 0; i < len; i++)                     \
				yr[i] = (xr[i] - mt) * inv * sc[i] + (T)0;    \
		} else {                                                      \
			T a = inv * sc[r % nc], b = bi != NULL ? bi[r % nc] : \
			    0;                                                \
			GP_SIMD                                               \
			for (int64_t i = 0; i < len; i++)                     \
				yr[i] = (xr[i] - mt) * a + b;                 \
		}                                                             \
	}                                                                     \
}                                                                             \
static void                                                                   \
rows_##SFX(const T *x, T *y, int64_t rows, int64_t len, double eps,           \
    const T *sc, const T *bi, bool percol, int64_t nc, float *mean,           \
    float *istd)                                                              \
{                                                                             \
	int nt = gp_par_max_threads();                                        \
	GP_PAR_FOR(rows * len)                                                \
	for (int k = 0; k < nt; k++) {                                        \
		int64_t r0, r1;                                               \
		gp_par_split(rows, 1, k, nt, &r0, &r1);                       \
		rows_part_##SFX(x, y, r0, r1, len, eps, sc, bi, percol, nc,   \
		    mean, istd);                                              \
	}                                                                     \
}
DEF_NORM(f32, float)
DEF_NORM(f64, double)

/* Input k (any dtype, any strides) as n values of dtype dt into dst. */
static void
params_into(void *dst, enum gp_dtype dt, const struct gp_tensor *t,
    int64_t n)
{
	if (t->dtype == dt && gp_tensor_is_contiguous(t) &&
	    gp_tensor_numel(t) == n) {
		memcpy(dst, gp_tensor_data(t), (size_t)n * gp_dtype_size(dt));
		return;
	}
	for (int64_t i = 0; i < n; i++) {
		double v = gp_tensor_get(t, i);

		if (dt == GP_FLOAT32)
			((float *)dst)[i] = (float)v;
		else
			((double *)dst)[i] = v;
	}
}

/* Value c of contiguous t, float32 (f32) or float64, as a double. */
static inline double
param_at(const struct gp_tensor *t, int64_t c, bool f32)
{
	const char *d = gp_tensor_data(t);

	return (f32 ? ((const float *)(const void *)d)[c] :
	    ((const double *)(const void *)d)[c]);
}

static void
k_norm(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct norm_priv *np = n->priv;
	struct gp_tensor *o = out[0];
	const struct gp_tensor *t;
	struct gp_scratch_tmp tc;
	int64_t total = gp_tensor_numel(o), nc, len, rows;
	size_t isz = gp_dtype_size(o->dtype);
	bool f32 = o->dtype == GP_FLOAT32;
	float *mean = NULL, *istd = NULL;
	char *a, *b;

	if (np->kind == N_LAYER && n->n_out > 1) {
		/* the statistics: float32, one per row */
		mean = (float *)gp_tensor_data(out[1]);
		if (n->n_out > 2)
			istd = (float *)gp_tensor_data(out[2]);
		if (total == 0) {
			/* rows of no element: numpy's mean of nothing */
			for (int64_t r = 0; r < gp_tensor_numel(out[1]); r++) {
				mean[r] = NAN;
				if (istd != NULL)
					istd[r] = NAN;
			}
		}
	}
	if (total == 0)
		return;
	/* X contiguous: a strided one copied into work space */
	t = gp_scratch_as(in[0], in[0]->dtype, 0, &tc);
	if (np->kind == N_LAYER) {
		len = gp_shape_numel(o->ndim - np->axis, o->shape + np->axis);
		rows = total / len;
		a = gp_scratch_get(GP_SCRATCH_PARAMS, 2 * isz * (size_t)len);
		b = a + isz * (size_t)len;
		params_into(a, o->dtype, in[1], len);
		if (n->n_in > 2)
			params_into(b, o->dtype, in[2], len);
		if (f32)
			rows_f32((const float *)gp_tensor_data(t),
			    (float *)gp_tensor_data(o), rows, len, np->eps,
			    (const float *)a, n->n_in > 2 ? (const float *)b :
			    NULL, true, 1, mean, istd);
		else
			rows_f64((const double *)gp_tensor_data(t),
			    (double *)gp_tensor_data(o), rows, len, np->eps,
			    (const double *)a, n->n_in > 2 ? (const double *)b :
			    NULL, true, 1, mean, istd);
		return;
	}
	nc = o->shape[1];
	rows = o->shape[0] * nc;
	len = total / rows;
	a = gp_scratch_get(GP_SCRATCH_PARAMS, 2 * isz * (size_t)nc);
	b = a + isz * (size_t)nc;
	if (np->kind == N_BATCH) {
		/* a = scale / sqrt(var + eps), b = B - mean * a, in double;
		 * the four inputs read where they lie when they are
		 * contiguous and of X's dtype (gp_tensor_get per value took
		 * 45 us of DenseNet's last 1024 channels of 7x7, 5 us) */
		bool direct = true;

		for (int k = 1; k <= 4; k++)
			direct = direct && in[k]->dtype == o->dtype &&
			    gp_tensor_is_contiguous(in[k]) &&
			    gp_tensor_numel(in[k]) == nc;
		for (int64_t c = 0; c < nc; c++) {
			double sc = direct ? param_at(in[1], c, f32) :
			    gp_tensor_get(in[1], c);
			double bi = direct ? param_at(in[2], c, f32) :
			    gp_tensor_get(in[2], c);
			double mu = direct ? param_at(in[3], c, f32) :
			    gp_tensor_get(in[3], c);
			double va = direct ? param_at(in[4], c, f32) :
			    gp_tensor_get(in[4], c);
			double av = sc / sqrt(va + np->eps);
			double bv = bi - mu * av;

			if (f32) {
				((float *)a)[c] = (float)av;
				((float *)b)[c] = (float)bv;
			} else {
				((double *)a)[c] = av;
				((double *)b)[c] = bv;
			}
		}
		if (f32)
			affine_f32((const float *)gp_tensor_data(t),
			    (float *)gp_tensor_data(o), rows, nc, len,
			    (const float *)a, (const float *)b, np->act,
			    (float)np->lo, (float)np->hi);
		else
			affine_f64((const double *)gp_tensor_data(t),
			    (double *)gp_tensor_data(o), rows, nc, len,
			    (const double *)a, (const double *)b, np->act,
			    np->lo, np->hi);
	} else {
		params_into(a, o->dtype, in[1], nc);
		params_into(b, o->dtype, in[2], nc);
		if (f32)
			rows_f32((const float *)gp_tensor_data(t),
			    (float *)gp_tensor_data(o), rows, len, np->eps,
			    (const float *)a, (const float *)b, false, nc, NULL,
			    NULL);
		else
			rows_f64((const double *)gp_tensor_data(t),
			    (double *)gp_tensor_data(o), rows, len, np->eps,
			    (const double *)a, (const double *)b, false, nc,
			    NULL, NULL);
	}
}

/*
 * Prepare.
 */

static int
err_param_shape(struct gp_err *err, const char *op, const char *what,
    const struct gp_type *t, int ndim, const int64_t *want)
{
	struct gp_buf a = {0}, b = {0};

	gp_shape_format(&a, t->ndim, t->shape);
	gp_shape_format(&b, ndim, want);
	gp_err_set(err, "%s: %s of shape %s: expected %s", op, what,
	    gp_buf_str(&a), gp_buf_str(&b));
	gp_buf_free(&a);
	gp_buf_free(&b);
	return (-1);
}

/* t has shape want, leading dimensions of size 1 aside. */
static bool
same_shape(const struct gp_type *t, int ndim, const int64_t *want)
{
	int lead = t->ndim - ndim;

	if (lead < 0)
		return (false);
	for (int i = 0; i < lead; i++)
		if (t->shape[i] != 1)
			return (false);
	return (memcmp(t->shape + lead, want, sizeof(int64_t) *
	    (size_t)ndim) == 0);
}

static int
check_params(struct gp_graph *g, struct gp_node *n, const char *op,
    const char *const *names, int ndim, const int64_t *want,
    struct gp_err *err)
{
	for (int k = 1; k < n->n_in; k++) {
		const struct gp_type *t = gp_graph_in_type(g, n, k);

		if (t->dtype != GP_FLOAT32 && t->dtype != GP_FLOAT64)
			return (gp_err_set(err, "%s: %s must be float32 or "
			    "float64, got %s", op, names[k - 1],
			    gp_dtype_name(t->dtype)));
		if (!same_shape(t, ndim, want))
			return (err_param_shape(err, op, names[k - 1], t, ndim,
			    want));
	}
	return (0);
}

static int
prep_norm(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	struct norm_priv *np = gp_xcalloc(1, sizeof(*np));
	const char *op = n->op->name;
	static const char *const bn[] = {"scale", "B", "input_mean",
		"input_var"};
	static const char *const ln[] = {"Scale", "B"};
	static const char *const in[] = {"scale", "B"};

	n->priv = np;
	np->kind = op[0] == 'b' ? N_BATCH : op[0] == 'l' ? N_LAYER :
	    N_INSTANCE;
	if (x->dtype != GP_FLOAT32 && x->dtype != GP_FLOAT64)
		return (gp_err_set(err, "%s: X must be float32 or float64, got "
		    "%s", op, gp_dtype_name(x->dtype)));
	if (gp_op_param_double(n->params, "epsilon", 1e-5, &np->eps, err) < 0)
		return (-1);
	if (np->eps < 0)
		return (gp_err_set(err, "%s: epsilon is %g: expected 0 or more",
		    op, np->eps));
	switch (np->kind) {
	case N_BATCH: {
		double mom;
		bool train, spatial;

		if (gp_op_param_double(n->params, "momentum", 0.9, &mom,
		    err) < 0 || gp_win_param_flag(n->params, "training_mode",
		    false, &train, err) < 0 || gp_win_param_flag(n->params,
		    "spatial", true, &spatial, err) < 0 ||
		    gp_op_param_double(n->params, "act_min", -INFINITY,
		    &np->lo, err) < 0 || gp_op_param_double(n->params,
		    "act_max", INFINITY, &np->hi, err) < 0)
			return (-1);
		if (isnan(np->lo) || isnan(np->hi) || np->lo > np->hi)
			return (gp_err_set(err, "%s: act_min %g and act_max %g: "
			    "expected act_min <= act_max", op, np->lo, np->hi));
		np->act = np->lo > -INFINITY || np->hi < INFINITY;
		if (train)
			return (gp_err_set(err, "%s: training_mode is set: "
			    "only the inference form is implemented (the given "
			    "mean and variance)", op));
		if (!spatial)
			return (gp_err_set(err, "%s: spatial 0 (per-pixel "
			    "statistics, opset 7 and before) is not "
			    "implemented: expected spatial 1", op));
		if (x->ndim < 2)
			return (gp_err_set(err, "%s: X must have at least 2 "
			    "dimensions (N, C, ...), got %d", op, x->ndim));
		if (check_params(g, n, op, bn, 1, x->shape + 1, err) < 0)
			return (-1);
		break;
	}
	case N_LAYER: {
		int64_t axis, stash;

		if (gp_op_param_int(n->params, "axis", -1, &axis, err) < 0 ||
		    gp_op_param_int(n->params, "stash_type", 1, &stash,
		    err) < 0)
			return (-1);
		if (axis < -x->ndim || axis >= x->ndim)
			return (gp_err_set(err, "%s: axis %lld is out of range "
			    "for X's %d dimensions", op, (long long)axis,
			    x->ndim));
		if (stash != 1)
			return (gp_err_set(err, "%s: stash_type %lld: expected "
			    "1 (the statistics are computed in double)", op,
			    (long long)stash));
		np->axis = (int)(axis < 0 ? axis + x->ndim : axis);
		if (check_params(g, n, op, ln, x->ndim - np->axis, x->shape +
		    np->axis, err) < 0)
			return (-1);
		if (n->n_out < 1 || n->n_out > 3)
			return (gp_err_set(err, "%s has 1 to 3 outputs (Y, Mean, "
			    "InvStdDev), got %d", op, n->n_out));
		/* Mean and InvStdDev: X's shape up to axis, then ones;
		 * float32 (stash_type 1) */
		for (int k = 1; k < n->n_out; k++) {
			int64_t st[GP_MAX_DIMS];

			for (int d = 0; d < x->ndim; d++)
				st[d] = d < np->axis ? x->shape[d] : 1;
			gp_ops_set_out(g, n, k, GP_FLOAT32, x->ndim, st);
		}
		break;
	}
	case N_INSTANCE:
		if (x->ndim < 3)
			return (gp_err_set(err, "%s: X must have at least 3 "
			    "dimensions (N, C, then the spatial ones), got %d",
			    op, x->ndim));
		if (check_params(g, n, op, in, 1, x->shape + 1, err) < 0)
			return (-1);
		break;
	}
	gp_ops_set_out(g, n, 0, x->dtype, x->ndim, x->shape);
	n->kernel = k_norm;
	return (0);
}

/* batch_norm: a multiply and an add per element; layer_norm and
 * instance_norm: the mean (1), the variance (3), then a subtract and two
 * multiplies per element, and an add with a bias. */
static double
flops_norm(const struct gp_graph *g, const struct gp_node *n)
{
	const struct norm_priv *np = n->priv;
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	double e = (double)gp_shape_numel(x->ndim, x->shape);

	if (np == NULL)
		return (0);
	if (np->kind == N_BATCH)
		return (2 * e);
	return ((np->kind == N_LAYER && n->n_in < 3 ? 7 : 8) * e);
}

/* The work space (ops/scratch.h) of one execution: two factors in X's
 * dtype per normalized position (layer_norm) or per channel, and a
 * contiguous copy of a strided X. */
static uint64_t
work_norm(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	const struct norm_priv *np = n->priv;
	const struct gp_type *y = &g->vars[n->out[0]].type;
	uint64_t each;

	if (np == NULL || gp_type_nbytes(y) == 0)
		return (0);
	each = np->kind == N_LAYER ? (uint64_t)gp_shape_numel(y->ndim -
	    np->axis, y->shape + np->axis) : (uint64_t)y->shape[1];
	return (2 * gp_dtype_size(y->dtype) * each + gp_scratch_as_bytes(in[0],
	    in[0]->dtype));
}

static void
fmt_norm(const struct gp_graph *g, const struct gp_node *n, struct gp_buf *b)
{
	const struct norm_priv *np = n->priv;

	gp_buf_puts(b, n->op->cls);
	if (np == NULL)
		return;
	gp_buf_printf(b, "{");
	if (np->kind == N_LAYER)
		gp_buf_printf(b, "axis=%d, ", np->axis);
	gp_buf_printf(b, "epsilon=%g", np->eps);
	if (np->act && np->lo == 0 && np->hi == INFINITY)
		gp_buf_puts(b, ", relu");
	else if (np->act)
		gp_buf_printf(b, ", clip=[%g, %g]", np->lo, np->hi);
	gp_buf_puts(b, "}");
}

static const struct gp_op op_batch_norm = {
	.name = "batch_norm",
	.cls = "BatchNormalization",
	.doc = "batch_norm(X, scale, B, input_mean, input_var; epsilon, "
	    "momentum, training_mode, act_min, act_max): ONNX "
	    "BatchNormalization, inference form, X (N, C, ...), the others "
	    "(C); float32 or float64; act_min, act_max clamp the output (a "
	    "fused Relu or Clip: the bn_act rewrite)",
	.min_in = 5, .max_in = 5, .n_out = 1,
	.params = p_batch,
	.prepare = prep_norm,
	.flops = flops_norm,
	.workspace = work_norm,
	.format = fmt_norm,
	.free_priv = free,
};

static const struct gp_op op_layer_norm = {
	.name = "layer_norm",
	.cls = "LayerNormalization",
	.doc = "layer_norm(X, Scale[, B]; axis, epsilon, stash_type) -> Y[, "
	    "Mean[, InvStdDev]]: ONNX LayerNormalization (opset 17) over the "
	    "axes from axis on, Scale and B of X's shape there; X float32 or "
	    "float64; Mean and InvStdDev float32, X's shape up to axis then "
	    "ones",
	.min_in = 2, .max_in = 3, .n_out = 0,	/* 1 to 3: prep_norm */
	.params = p_layer,
	.prepare = prep_norm,
	.flops = flops_norm,
	.workspace = work_norm,
	.format = fmt_norm,
	.free_priv = free,
};

static const struct gp_op op_instance_norm = {
	.name = "instance_norm",
	.cls = "InstanceNormalization",
	.doc = "instance_norm(X, scale, B; epsilon): ONNX "
	    "InstanceNormalization over each (n, c) plane, X (N, C, ...), "
	    "scale and B (C); float32 or float64",
	.min_in = 3, .max_in = 3, .n_out = 1,
	.params = p_inst,
	.prepare = prep_norm,
	.flops = flops_norm,
	.workspace = work_norm,
	.format = fmt_norm,
	.free_priv = free,
};

const struct gp_op *const gp_ops_norm[] = {
	&op_batch_norm,
	&op_instance_norm,
	&op_layer_norm,
	NULL,
};
