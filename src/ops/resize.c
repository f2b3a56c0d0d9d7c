/*
 * ops/resize.c: resize (ONNX Resize and Upsample): a tensor resampled
 * along any of its axes to new sizes (given, or the input's times scales),
 * by nearest neighbour (any dtype), linear or cubic interpolation (float32
 * and float64), with ONNX's coordinate transformations (half_pixel,
 * half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric,
 * tf_half_pixel_for_nn, tf_crop_and_resize) and nearest rounding modes,
 * following the ONNX reference implementation.
 *
 * The geometry is static, so prepare computes, per resampled axis, each
 * output position's taps (input indices, edge-clamped) and weights.
 * Interpolation is separable: the kernel makes one pass per resampled
 * axis, the tensor seen as (outer, axis, inner); a pass adds its taps'
 * rows of `inner` contiguous elements (a vectorized loop) into each output
 * row, or, along the last axis, sums the taps of each element.  The
 * order of the passes is the cheapest (an element made along the last
 * axis counted 3 times); intermediate results live in two per-thread
 * scratch buffers.  Nearest is a gather: one source offset per output row,
 * a row equal to the previous one copied, the last axis through its index
 * map.
 */
#include "config.h"

#include "ops/ops.h"
#include "ops/scratch.h"
#include "ops/window.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum rs_mode { RS_NEAREST, RS_LINEAR, RS_CUBIC };
enum rs_coord {
	RS_HALF_PIXEL,
	RS_HALF_PIXEL_SYMMETRIC,
	RS_PYTORCH_HALF_PIXEL,
	RS_ALIGN_CORNERS,
	RS_ASYMMETRIC,
	RS_TF_HALF_PIXEL_FOR_NN,
	RS_TF_CROP_AND_RESIZE,
};
enum rs_round { RS_PREFER_FLOOR, RS_PREFER_CEIL, RS_FLOOR, RS_CEIL };

static const char *const mode_names[] = {
	[RS_NEAREST] = "nearest", [RS_LINEAR] = "linear",
	[RS_CUBIC] = "cubic", NULL,
};
static const char *const coord_names[] = {
	[RS_HALF_PIXEL] = "half_pixel",
	[RS_HALF_PIXEL_SYMMETRIC] = "half_pixel_symmetric",
	[RS_PYTORCH_HALF_PIXEL] = "pytorch_half_pixel",
	[RS_ALIGN_CORNERS] = "align_corners",
	[RS_ASYMMETRIC] = "asymmetric",
	[RS_TF_HALF_PIXEL_FOR_NN] = "tf_half_pixel_for_nn",
	[RS_TF_CROP_AND_RESIZE] = "tf_crop_and_resize",
	NULL,
};
static const char *const round_names[] = {
	[RS_PREFER_FLOOR] = "round_prefer_floor",
	[RS_PREFER_CEIL] = "round_prefer_ceil",
	[RS_FLOOR] = "floor", [RS_CEIL] = "ceil", NULL,
};

/* One resampled axis: for output position o, taps idx[o*k ..] with
 * weights w (double) and wf (float); idx[o*k] < 0: the extrapolation
 * value. */
struct rs_axis {
	int	 axis;
	int64_t	 in, out;
	int64_t	*idx;
	double	*w;
	float	*wf;
};

struct rs_priv {
	enum rs_mode	mode;
	enum rs_coord	coord;
	enum rs_round	round;
	double		a, extrap;
	bool		exclude, sizes_given, scales_given;
	int		nd, k;	/* taps per output: 1, 2 or 4 */
	double		scale[GP_MAX_DIMS], roi[2 * GP_MAX_DIMS];
	int64_t		out[GP_MAX_DIMS];
	int		nax;	/* resampled axes, in pass order */
	struct rs_axis	ax[GP_MAX_DIMS];
	double		flops;
};

static const char *const p_resize[] = {"mode",
	"coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
	"exclude_outside", "extrapolation_value", "scales", "sizes", "roi",
	NULL};

static void
free_resize(void *p)
{
	struct rs_priv *rp = p;

	if (rp == NULL)
		return;
	for (int i = 0; i < rp->nax; i++) {
		free(rp->ax[i].idx);
		free(rp->ax[i].w);
		free(rp->ax[i].wf);
	}
	free(rp);
}

/*
 * The geometry (prepare).
 */

/* Output position x's coordinate in the input along an axis of in
 * elements resized to out (scale s; roi r0..r1), or NAN outside the
 * crop of tf_crop_and_resize. */
static double
coord(const struct rs_priv *rp, int d, int64_t x, int64_t in, int64_t out)
{
	double s = rp->scale[d], of = s * (double)in, xo;
	double r0 = rp->roi[d], r1 = rp->roi[rp->nd + d];

	switch (rp->coord) {
	case RS_ALIGN_CORNERS:
		return (of == 1 ? 0 : (double)x * (double)(in - 1) / (of - 1));
	case RS_ASYMMETRIC:
		return ((double)x / s);
	case RS_TF_HALF_PIXEL_FOR_NN:
		return (((double)x + 0.5) / s);
	case RS_PYTORCH_HALF_PIXEL:
		return (of == 1 ? -0.5 : ((double)x + 0.5) / s - 0.5);
	case RS_HALF_PIXEL_SYMMETRIC: {
		double adj = (double)out / of, c = (double)in / 2;

		return (c * (1 - adj) + ((double)x + 0.5) / s - 0.5);
	}
	case RS_TF_CROP_AND_RESIZE:
		xo = of == 1 ? (r1 - r0) * (double)(in - 1) / 2 : (double)x *
		    (r1 - r0) * (double)(in - 1) / (of - 1);
		xo += r0 * (double)(in - 1);
		return (xo < 0 || xo > (double)(in - 1) ? NAN : xo);
	default:
		return (((double)x + 0.5) / s - 0.5);
	}
}

static int64_t
clampi(int64_t i, int64_t n)
{
	return (i < 0 ? 0 : i >= n ? n - 1 : i);
}

/* The cubic kernel (Keys, coefficient a) at distance t (0 <= t < 2) */
static double
cubic(double a, double t)
{
	if (t <= 1)
		return (((a + 2) * t - (a + 3)) * t * t + 1);
	return (((a * t - 5 * a) * t + 8 * a) * t - 4 * a);
}

/* The taps of output position o along one axis. */
static void
taps(const struct rs_priv *rp, int d, int64_t o, int64_t in, int64_t out,
    int64_t *idx, double *w)
{
	double x = coord(rp, d, o, in, out), f, t, sum = 0;
	int64_t i0;
	int k = rp->k;

	if (isnan(x)) {
		for (int j = 0; j < k; j++) {
			idx[j] = -1;
			w[j] = 0;
		}
		return;
	}
	f = floor(x);
	t = x - f;
	i0 = (int64_t)f;
	switch (rp->mode) {
	case RS_NEAREST:
		if (t != 0)
			switch (rp->round) {
			case RS_PREFER_FLOOR:
				i0 += t > 0.5;
				break;
			case RS_PREFER_CEIL:
				i0 += t >= 0.5;
				break;
			case RS_CEIL:
				i0 += 1;
				break;
			default:
				break;
			}
		idx[0] = clampi(i0, in);
		w[0] = 1;
		return;
	case RS_LINEAR:
		idx[0] = i0;
		idx[1] = i0 + 1;
		w[0] = 1 - t;
		w[1] = t;
		break;
	default:
		for (int j = 0; j < 4; j++) {
			idx[j] = i0 - 1 + j;
			w[j] = cubic(rp->a, fabs(t + 1 - j));
		}
	}
	for (int j = 0; j < k; j++) {
		if (rp->exclude && (idx[j] < 0 || idx[j] >= in))
			w[j] = 0;
		sum += w[j];
		idx[j] = clampi(idx[j], in);
	}
	if (rp->exclude && sum != 0)
		for (int j = 0; j < k; j++)
			w[j] /= sum;
}

/* The taps of every output position along axis d; false when the axis
 * is the identity (same size, every coordinate its own position). */
static bool
axis_taps(const struct rs_priv *rp, int d, int64_t in, struct rs_axis *a)
{
	int64_t out = rp->out[d];
	int k = rp->k;
	bool same = out == in;

	a->axis = d;
	a->in = in;
	a->out = out;
	a->idx = gp_xmalloc(sizeof(int64_t) * (size_t)(out * k + 1));
	a->w = gp_xmalloc(sizeof(double) * (size_t)(out * k + 1));
	a->wf = gp_xmalloc(sizeof(float) * (size_t)(out * k + 1));
	for (int64_t o = 0; o < out; o++) {
		taps(rp, d, o, in, out, a->idx + o * k, a->w + o * k);
		for (int j = 0; j < k; j++) {
			double wj = a->w[o * k + j];

			a->wf[o * k + j] = (float)wj;
			same = same && (wj == 0 || (wj == 1 && a->idx[o * k +
			    j] == o));
		}
		same = same && a->idx[o * k] >= 0;
	}
	if (same) {
		free(a->idx);
		free(a->w);
		free(a->wf);
		memset(a, 0, sizeof(*a));
	}
	return (!same);
}

/*
 * The kernels.
 */

/* Nearest: a gather by the index maps of every axis (NULL: identity). */
static void
nearest(const struct rs_priv *rp, const struct gp_tensor *x,
    struct gp_tensor *y, const char *ev)
{
	const int64_t *map[GP_MAX_DIMS] = {0};
	int nd = y->ndim;
	size_t es = gp_dtype_size(y->dtype);
	int64_t ctr[GP_MAX_DIMS] = {0}, rows = 1, w, prev = -2;
	const char *xd = gp_tensor_data(x);
	char *yd = gp_tensor_data(y), *last = NULL;
	const int64_t *lm;

	for (int i = 0; i < rp->nax; i++)
		map[rp->ax[i].axis] = rp->ax[i].idx;
	if (nd == 0) {
		memcpy(yd, xd, es);
		return;
	}
	w = y->shape[nd - 1];
	lm = map[nd - 1];
	for (int d = 0; d < nd - 1; d++)
		rows *= y->shape[d];
	for (int64_t r = 0; r < rows; r++) {
		char *yr = yd + (size_t)(r * w) * es;
		int64_t off = 0;

		for (int d = 0; d < nd - 1; d++) {
			int64_t i = map[d] != NULL ? map[d][ctr[d]] : ctr[d];

			off = off < 0 || i < 0 ? -1 : off + i * x->strides[d];
		}
		if (off == prev && last != NULL)
			memcpy(yr, last, (size_t)w * es);
		else if (off < 0) {
			for (int64_t j = 0; j < w; j++)
				memcpy(yr + (size_t)j * es, ev, es);
		} else if (lm == NULL)
			memcpy(yr, xd + off, (size_t)w * es);
		else {
			const char *xr = xd + off;

#define GATHER(T)                                                             \
	{                                                                     \
		const T *xs = (const T *)(const void *)xr;                    \
		T *ys = (T *)(void *)yr, e;                                   \
		memcpy(&e, ev, sizeof(e));                                    \
		for (int64_t j = 0; j < w; j++)                               \
			ys[j] = lm[j] >= 0 ? xs[lm[j]] : e;                   \
		break;                                                        \
	}
			switch (es) {
			case 1:
				GATHER(uint8_t)
			case 2:
				GATHER(uint16_t)
			case 4:
				GATHER(uint32_t)
			case 8:
				GATHER(uint64_t)
			default:
				for (int64_t j = 0; j < w; j++)
					memcpy(yr + (size_t)j * es, lm[j] >= 0 ?
					    xr + (size_t)lm[j] * es : ev, es);
			}
#undef GATHER
		}
		prev = off;
		last = yr;
		for (int d = nd - 2; d >= 0; d--) {
			if (++ctr[d] < y->shape[d])
				break;
			ctr[d] = 0;
		}
	}
}

/* A pass along the last axis: each element the sum of its K taps (K a
 * constant where it can be, so the tap loop unrolls). */
#define LAST_AXIS(T, K)                                                       \
	for (int64_t o = 0; o < nout; o++) {                                  \
		const int64_t *ix = idx + o * (K);                            \
		const T *wo = w + o * (K);                                    \
		T s;                                                          \
		if (ix[0] < 0) {                                              \
			yo[o] = ev;                                           \
			continue;                                             \
		}                                                             \
		s = wo[0] * xo[ix[0]];                                        \
		for (int j = 1; j < (K); j++)                                 \
			s += wo[j] * xo[ix[j]];                               \
		yo[o] = s;                                                    \
	}

/* One interpolation pass: x (outer, a->in, inner) into y (outer, a->out,
 * inner). */
#define DEF_PASS(SFX, T, WF)                                                  \
static void                                                                   \
pass_##SFX(const T *x, T *y, int64_t outer, int64_t inner,                    \
    const struct rs_axis *a, int k, T ev)                                     \
{                                                                             \
	int64_t nin = a->in, nout = a->out;                                   \
	const int64_t *idx = a->idx;                                          \
	const T *w = a->WF;                                                   \
	for (int64_t ou = 0; ou < outer; ou++) {                              \
		const T *xo = x + ou * nin * inner;                           \
		T *yo = y + ou * nout * inner;                                \
		if (inner == 1) {                                             \
			if (k == 2)                                           \
				LAST_AXIS(T, 2)                               \
			else if (k == 4)                                      \
				LAST_AXIS(T, 4)                               \
			else                                                  \
				LAST_AXIS(T, k)                               \
			continue;                                             \
		}                                                             \
		for (int64_t o = 0; o < nout; o++) {                          \
			const int64_t *ix = idx + o * k;                      \
			T *restrict yr = yo + o * inner;                      \
			const T *restrict x0;                                 \
			T w0 = w[o * k];                                      \
			if (ix[0] < 0) {                                      \
				for (int64_t i = 0; i < inner; i++)           \
					yr[i] = ev;                           \
				continue;                                     \
			}                                                     \
			x0 = xo + ix[0] * inner;                              \
			GP_SIMD                                               \
			for (int64_t i = 0; i < inner; i++)                   \
				yr[i] = w0 * x0[i];                           \
			for (int j = 1; j < k; j++) {                         \
				const T *restrict xj = xo + ix[j] * inner;    \
				T wj = w[o * k + j];                          \
				if (wj == 0)                                  \
					continue;                             \
				GP_SIMD                                       \
				for (int64_t i = 0; i < inner; i++)           \
					yr[i] += wj * xj[i];                  \
			}                                                     \
		}                                                             \
	}                                                                     \
}
DEF_PASS(f32, float, wf)
DEF_PASS(f64, double, w)

static void
interpolate(const struct rs_priv *rp, const struct gp_tensor *x,
    struct gp_tensor *y)
{
	int64_t shape[GP_MAX_DIMS];
	const char *src = gp_tensor_data(x);
	bool f32 = y->dtype == GP_FLOAT32;
	size_t es = gp_dtype_size(y->dtype);
	int nd = y->ndim;

	memcpy(shape, x->shape, sizeof(int64_t) * (size_t)nd);
	for (int p = 0; p < rp->nax; p++) {
		const struct rs_axis *a = &rp->ax[p];
		int64_t outer = 1, inner = 1;
		char *dst;

		for (int d = 0; d < a->axis; d++)
			outer *= shape[d];
		for (int d = a->axis + 1; d < nd; d++)
			inner *= shape[d];
		if (p == rp->nax - 1)
			dst = gp_tensor_data(y);
		else
			dst = gp_scratch_get(p % 2 ? GP_SCRATCH_COPY :
			    GP_SCRATCH_COL, es * (size_t)(outer * a->out *
			    inner));
		if (f32)
			pass_f32((const float *)(const void *)src,
			    (float *)(void *)dst, outer, inner, a, rp->k,
			    (float)rp->extrap);
		else
			pass_f64((const double *)(const void *)src,
			    (double *)(void *)dst, outer, inner, a, rp->k,
			    rp->extrap);
		shape[a->axis] = a->out;
		src = dst;
	}
}

static void
k_resize(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct rs_priv *rp = n->priv;
	struct gp_tensor *o = out[0];
	const struct gp_tensor *t;
	struct gp_scratch_tmp tc;
	char ev[16] = {0};

	if (gp_tensor_numel(o) == 0)
		return;
	/* X contiguous: a strided one copied into work space */
	t = gp_scratch_as(in[0], in[0]->dtype, 0, &tc);
	if (rp->nax == 0)
		memcpy(gp_tensor_data(o), gp_tensor_data(t),
		    gp_tensor_nbytes(o));
	else if (rp->mode == RS_NEAREST) {
		gp_dtype_store(ev, o->dtype, rp->extrap);
		nearest(rp, t, o, ev);
	} else
		interpolate(rp, t, o);
}

/*
 * Prepare.
 */

static int
param_enum(const json_t *params, const char *key, const char *const *names,
    int def, int *out, struct gp_err *err)
{
	json_t *v = json_object_get(params, key);
	struct gp_buf b = {0};

	*out = def;
	if (v == NULL)
		return (0);
	for (int i = 0; names[i] != NULL; i++)
		if (json_is_string(v) && strcmp(json_string_value(v),
		    names[i]) == 0) {
			*out = i;
			return (0);
		}
	for (int i = 0; names[i] != NULL; i++)
		gp_buf_printf(&b, "%s\"%s\"", i == 0 ? "" : names[i + 1] ==
		    NULL ? " or " : ", ", names[i]);
	gp_err_set(err, "resize: param '%s' must be %s", key, gp_buf_str(&b));
	gp_buf_free(&b);
	return (-1);
}

/* A list param of n numbers; *given false when absent. */
static int
param_reals(const json_t *params, const char *key, int n, double *out,
    bool *given, struct gp_err *err)
{
	json_t *v = json_object_get(params, key), *e;
	size_t i;

	*given = false;
	if (v == NULL || json_is_null(v))
		return (0);
	if (!json_is_array(v) || json_array_size(v) != (size_t)n)
		return (gp_err_set(err, "resize: param '%s' must be a list of %d "
		    "numbers (one per dimension%s)", key, n, strcmp(key,
		    "roi") == 0 ? ", starts then ends" : ""));
	json_array_foreach(v, i, e) {
		if (!json_is_number(e) || !isfinite(json_number_value(e)))
			return (gp_err_set(err, "resize: param '%s': entry %zu "
			    "is not a finite number", key, i));
		out[i] = json_number_value(e);
	}
	*given = true;
	return (0);
}

/* The cost of the passes in the order perm[0..n) from shape sh: the
 * elements each makes, 3 times as many along the last axis (a gather, not
 * a vectorized loop). */
static double
order_cost(const struct rs_priv *rp, const int64_t *shape, const int *perm)
{
	int64_t sh[GP_MAX_DIMS];
	double c = 0;

	memcpy(sh, shape, sizeof(sh));
	for (int p = 0; p < rp->nax; p++) {
		const struct rs_axis *a = &rp->ax[perm[p]];
		double el = 1, inner = 1;

		sh[a->axis] = a->out;
		for (int d = 0; d < rp->nd; d++) {
			el *= (double)sh[d];
			if (d > a->axis)
				inner *= (double)sh[d];
		}
		c += el * (inner == 1 ? 3 : 1);
	}
	return (c);
}

/* The permutations of perm[at..nax): the cheapest into best. */
static void
search_order(const struct rs_priv *rp, const int64_t *shape, int *perm,
    int at, int *best, double *best_cost)
{
	if (at == rp->nax) {
		double c = order_cost(rp, shape, perm);

		if (c < *best_cost) {
			*best_cost = c;
			memcpy(best, perm, sizeof(int) * (size_t)rp->nax);
		}
		return;
	}
	for (int i = at; i < rp->nax; i++) {
		int t = perm[at];

		perm[at] = perm[i];
		perm[i] = t;
		search_order(rp, shape, perm, at + 1, best, best_cost);
		perm[i] = perm[at];
		perm[at] = t;
	}
}

/* Resampled axes in pass order: the cheapest by order_cost (up to 6
 * axes; more: the ones that shrink most first). */
static void
order_axes(struct rs_priv *rp, const int64_t *shape)
{
	if (rp->nax <= 6) {
		int perm[GP_MAX_DIMS], best[GP_MAX_DIMS];
		double cost = INFINITY;
		struct rs_axis ax[GP_MAX_DIMS];

		for (int i = 0; i < rp->nax; i++)
			perm[i] = best[i] = i;
		search_order(rp, shape, perm, 0, best, &cost);
		memcpy(ax, rp->ax, sizeof(ax));
		for (int i = 0; i < rp->nax; i++)
			rp->ax[i] = ax[best[i]];
		return;
	}
	for (int i = 1; i < rp->nax; i++)
		for (int j = i; j > 0; j--) {
			struct rs_axis *p = &rp->ax[j - 1], *q = &rp->ax[j], t;

			if ((double)q->out * (double)p->in >= (double)p->out *
			    (double)q->in)
				break;
			t = *p;
			*p = *q;
			*q = t;
		}
}

static int
prep_resize(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	struct rs_priv *rp = gp_xcalloc(1, sizeof(*rp));
	int nd = x->ndim, m, c, r;
	double sizes[GP_MAX_DIMS], sh = 1, tb = 0;
	size_t nb;
	bool have_scales, have_sizes, have_roi;

	n->priv = rp;
	rp->nd = nd;
	if (param_enum(n->params, "mode", mode_names, RS_NEAREST, &m,
	    err) < 0 || param_enum(n->params,
	    "coordinate_transformation_mode", coord_names, RS_HALF_PIXEL, &c,
	    err) < 0 || param_enum(n->params, "nearest_mode", round_names,
	    RS_PREFER_FLOOR, &r, err) < 0)
		return (-1);
	rp->mode = (enum rs_mode)m;
	rp->coord = (enum rs_coord)c;
	rp->round = (enum rs_round)r;
	rp->k = rp->mode == RS_NEAREST ? 1 : rp->mode == RS_LINEAR ? 2 : 4;
	if (gp_op_param_double(n->params, "cubic_coeff_a", -0.75, &rp->a,
	    err) < 0 || gp_op_param_double(n->params, "extrapolation_value", 0,
	    &rp->extrap, err) < 0 || gp_win_param_flag(n->params,
	    "exclude_outside", false, &rp->exclude, err) < 0)
		return (-1);
	if (param_reals(n->params, "scales", nd, rp->scale, &have_scales,
	    err) < 0 || param_reals(n->params, "sizes", nd, sizes, &have_sizes,
	    err) < 0 || param_reals(n->params, "roi", 2 * nd, rp->roi,
	    &have_roi, err) < 0)
		return (-1);
	if (!have_scales && !have_sizes)
		return (gp_err_set(err, "resize: give the param 'scales' or "
		    "'sizes' (or both: the sizes, and the scales for the "
		    "coordinates)"));
	if (rp->mode != RS_NEAREST && !gp_dtype_is_float(x->dtype))
		return (gp_err_set(err, "resize: mode \"%s\" needs float32 or "
		    "float64 X, got %s (mode \"nearest\" takes any dtype)",
		    mode_names[rp->mode], gp_dtype_name(x->dtype)));
	if (!have_roi)
		for (int d = 0; d < nd; d++) {
			rp->roi[d] = 0;
			rp->roi[nd + d] = 1;
		}
	rp->sizes_given = have_sizes;
	rp->scales_given = have_scales;
	for (int d = 0; d < nd; d++) {
		int64_t in = x->shape[d];

		if (have_sizes) {
			if (sizes[d] != floor(sizes[d]) || sizes[d] < 1 ||
			    sizes[d] > 1e12)
				return (gp_err_set(err, "resize: sizes[%d] is %g: "
				    "expected a whole number, 1 or more", d,
				    sizes[d]));
			rp->out[d] = (int64_t)sizes[d];
			if (!have_scales)
				rp->scale[d] = in > 0 ? sizes[d] / (double)in :
				    1;
			else if (rp->scale[d] <= 0)
				return (gp_err_set(err, "resize: scales[%d] is %g: "
				    "expected more than 0", d, rp->scale[d]));
		} else {
			double f = (double)in * rp->scale[d];

			if (rp->scale[d] <= 0)
				return (gp_err_set(err, "resize: scales[%d] is %g: "
				    "expected more than 0", d, rp->scale[d]));
			if (rp->coord == RS_TF_CROP_AND_RESIZE)
				f *= rp->roi[nd + d] - rp->roi[d];
			if (f > 1e12)
				return (gp_err_set(err, "resize: scales[%d] is %g: "
				    "the output would be too large", d,
				    rp->scale[d]));
			rp->out[d] = f > 0 ? (int64_t)f : 0;
		}
		if (in == 0 && rp->out[d] != 0)
			return (gp_err_set(err, "resize: dimension %d is empty: "
			    "nothing to resample", d));
	}
	/* an output past the memory limit: the caller says so, before
	 * tables as large are built */
	if (!gp_shape_nbytes(nd, rp->out, x->dtype, &nb) || nb >
	    g->limit_bytes) {
		gp_ops_set_out(g, n, 0, x->dtype, nd, rp->out);
		return (0);
	}
	for (int d = 0; d < nd; d++)
		tb += (double)rp->out[d] * rp->k * (sizeof(int64_t) +
		    sizeof(double) + sizeof(float));
	if (tb > (double)g->limit_bytes)
		return (gp_err_set(err, "resize: the tables of taps need %.0f "
		    "bytes, over the memory limit of %llu bytes (flag "
		    "memory_limit)", tb, (unsigned long long)g->limit_bytes));
	for (int d = 0; d < nd; d++)
		if (x->shape[d] > 0 && rp->out[d] > 0 && axis_taps(rp, d,
		    x->shape[d], &rp->ax[rp->nax]))
			rp->nax++;
	if (rp->mode != RS_NEAREST)
		order_axes(rp, x->shape);
	/* flops: per pass, k multiplies and k - 1 adds per element made */
	for (int d = 0; d < nd; d++)
		sh *= (double)x->shape[d];
	for (int p = 0; p < rp->nax && rp->mode != RS_NEAREST; p++) {
		sh = sh / (double)rp->ax[p].in * (double)rp->ax[p].out;
		rp->flops += sh * (2 * rp->k - 1);
	}
	gp_ops_set_out(g, n, 0, x->dtype, nd, rp->out);
	n->kernel = k_resize;
	return (0);
}

static double
flops_resize(const struct gp_graph *g, const struct gp_node *n)
{
	const struct rs_priv *rp = n->priv;

	return (rp != NULL ? rp->flops : 0);
}

/* The work space (ops/scratch.h) of one execution: linear and cubic
 * resample one axis per pass, each pass but the last into a scratch slot,
 * the two slots in turn (interpolate()): each slot's largest pass; and
 * a contiguous copy of a strided X. */
static uint64_t
work_resize(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	const struct rs_priv *rp = n->priv;
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	const struct gp_type *y = &g->vars[n->out[0]].type;
	int64_t shape[GP_MAX_DIMS];
	uint64_t slot[2] = {0, 0}, copy;

	if (rp == NULL || gp_type_nbytes(y) == 0)
		return (0);
	/* a contiguous copy of a strided X */
	copy = gp_scratch_as_bytes(in[0], in[0]->dtype);
	if (rp->mode == RS_NEAREST || rp->nax == 0)
		return (copy);
	memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
	for (int p = 0; p < rp->nax - 1; p++) {
		uint64_t b;

		shape[rp->ax[p].axis] = rp->ax[p].out;
		b = gp_dtype_size(y->dtype) * (uint64_t)gp_shape_numel(x->ndim,
		    shape);
		if (b > slot[p % 2])
			slot[p % 2] = b;
	}
	return (copy + slot[0] + slot[1]);
}

/* "Resize{linear, align_corners, scales=[1, 1, 2, 2]}" */
static void
fmt_resize(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	const struct rs_priv *rp = n->priv;

	gp_buf_puts(b, n->op->cls);
	if (rp == NULL)
		return;
	gp_buf_printf(b, "{%s, %s", mode_names[rp->mode],
	    coord_names[rp->coord]);
	if (rp->mode == RS_NEAREST && rp->round != RS_PREFER_FLOOR)
		gp_buf_printf(b, ", %s", round_names[rp->round]);
	if (rp->mode == RS_CUBIC && rp->a != -0.75)
		gp_buf_printf(b, ", a=%g", rp->a);
	if (rp->exclude)
		gp_buf_puts(b, ", exclude_outside");
	if (rp->sizes_given) {
		gp_buf_puts(b, ", sizes=[");
		for (int d = 0; d < rp->nd; d++)
			gp_buf_printf(b, "%s%" PRId64, d ? ", " : "",
			    rp->out[d]);
		gp_buf_puts(b, "]");
	}
	if (rp->scales_given) {
		gp_buf_puts(b, ", scales=[");
		for (int d = 0; d < rp->nd; d++)
			gp_buf_printf(b, "%s%g", d ? ", " : "", rp->scale[d]);
		gp_buf_puts(b, "]");
	}
	gp_buf_puts(b, "}");
}

static const struct gp_op op_resize = {
	.name = "resize",
	.cls = "Resize",
	.doc = "resize(X; scales and/or sizes, mode, "
	    "coordinate_transformation_mode, nearest_mode, cubic_coeff_a, "
	    "exclude_outside, extrapolation_value, roi): ONNX Resize; nearest "
	    "for any dtype, linear and cubic for float32 or float64",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.params = p_resize,
	.prepare = prep_resize,
	.flops = flops_resize,
	.workspace = work_resize,
	.format = fmt_resize,
	.free_priv = free_resize,
};

const struct gp_op *const gp_ops_resize[] = {
	&op_resize,
	NULL,
};
