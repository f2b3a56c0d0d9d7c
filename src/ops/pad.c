/*
 * ops/pad.c: pad (ONNX Pad; numpy.pad): a tensor grown (or, with negative
 * pads, cropped) along every axis, the new places filled by a constant
 * (mode constant), the mirror image without the edge (reflect), the edge
 * element repeated (edge) or the tensor repeated (wrap), for any dtype.
 *
 * The kernel works in output rows (the last axis): each axis gets a map
 * from output to input index (-1: the constant) built once per call, a
 * row whose outer indices all map inside copies its middle, the part that
 * comes from the input row in order, with one memcpy and its two ends
 * element by element; a row that maps outside is the constant.  Elements
 * move as bytes, so one definition serves every dtype.
 */
#include "config.h"

#include "ops/ops.h"
#include "ops/scratch.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum pad_mode { PAD_CONSTANT, PAD_REFLECT, PAD_EDGE, PAD_WRAP };

static const char *const mode_names[] = {
	[PAD_CONSTANT] = "constant",
	[PAD_REFLECT] = "reflect",
	[PAD_EDGE] = "edge",
	[PAD_WRAP] = "wrap",
};

struct pad_priv {
	enum pad_mode	mode;
	double		value;	/* the constant, when input 1 is absent */
	int		nd;
	int64_t		pb[GP_MAX_DIMS], pe[GP_MAX_DIMS];	/* pads */
};

static const char *const p_pad[] = {"pads", "mode", "value", NULL};

/* The input index of output index o along an axis of n elements padded
 * by pb at its start, or -1 for the constant. */
static int64_t
src_index(enum pad_mode m, int64_t o, int64_t pb, int64_t n)
{
	int64_t i = o - pb, p;

	if (i >= 0 && i < n)
		return (i);
	switch (m) {
	case PAD_EDGE:
		return (i < 0 ? 0 : n - 1);
	case PAD_WRAP:
		return (((i % n) + n) % n);
	case PAD_REFLECT:
		if (n == 1)
			return (0);
		p = 2 * (n - 1);
		i = ((i % p) + p) % p;
		return (i < n ? i : p - i);
	default:
		return (-1);
	}
}

/* n copies of the element at v (es bytes) from dst on. */
static void
fill(char *dst, const char *v, int64_t n, size_t es)
{
	switch (es) {
	case 1:
		memset(dst, *v, (size_t)n);
		break;
#define FILL(T)                                                               \
	{                                                                     \
		T x, *d = (T *)(void *)dst;                                   \
		memcpy(&x, v, sizeof(x));                                     \
		GP_SIMD                                                       \
		for (int64_t i = 0; i < n; i++)                               \
			d[i] = x;                                             \
		break;                                                        \
	}
	case 2:
		FILL(uint16_t)
	case 4:
		FILL(uint32_t)
	case 8:
		FILL(uint64_t)
#undef FILL
	default:
		for (int64_t i = 0; i < n; i++)
			memcpy(dst + (size_t)i * es, v, es);
	}
}

/* dst[j] = src[map[j]] for j in [lo, hi) (map[j] >= 0), es-byte
 * elements; map[j] < 0: the element at v. */
static void
gather(char *dst, const char *src, const int64_t *map, int64_t lo,
    int64_t hi, const char *v, size_t es)
{
	for (int64_t j = lo; j < hi; j++)
		memcpy(dst + (size_t)j * es, map[j] >= 0 ? src + (size_t)map[j] *
		    es : v, es);
}

static void
k_pad(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct pad_priv *pp = n->priv;
	struct gp_tensor *o = out[0];
	const struct gp_tensor *t;
	struct gp_scratch_tmp tc;
	enum gp_dtype dt = o->dtype;
	size_t es = gp_dtype_size(dt);
	int nd = o->ndim;
	int64_t *map[GP_MAX_DIMS], ctr[GP_MAX_DIMS] = {0}, tot = 0, rows = 1;
	int64_t win, wout, lo, hi, istr[GP_MAX_DIMS];
	char v[16] = {0}, *y = gp_tensor_data(o), *base;
	const char *x;

	if (gp_tensor_numel(o) == 0)
		return;
	/* the constant, in the output's dtype */
	if (n->n_in > 1 && in[1]->dtype == dt)
		memcpy(v, gp_tensor_data(in[1]), es);
	else
		gp_dtype_store(v, dt, n->n_in > 1 ? gp_tensor_get(in[1], 0) :
		    pp->value);
	if (nd == 0) {
		memcpy(y, gp_tensor_data(in[0]), es);
		return;
	}
	/* x contiguous: a strided one copied into work space */
	t = gp_scratch_as(in[0], in[0]->dtype, 0, &tc);
	x = gp_tensor_data(t);
	for (int d = 0; d < nd; d++)
		tot += o->shape[d];
	base = gp_scratch_get(GP_SCRATCH_PARAMS, sizeof(int64_t) *
	    (size_t)tot);
	tot = 0;
	for (int d = 0; d < nd; d++) {
		map[d] = (int64_t *)(void *)base + tot;
		tot += o->shape[d];
		for (int64_t j = 0; j < o->shape[d]; j++)
			map[d][j] = src_index(pp->mode, j, pp->pb[d],
			    t->shape[d]);
	}
	gp_shape_strides(nd, t->shape, es, istr);
	win = t->shape[nd - 1];
	wout = o->shape[nd - 1];
	/* the middle: the outputs whose input index is j - pb in order */
	lo = pp->pb[nd - 1] > 0 ? pp->pb[nd - 1] : 0;
	hi = pp->pb[nd - 1] + win < wout ? pp->pb[nd - 1] + win : wout;
	if (hi < lo)
		hi = lo;
	for (int d = 0; d < nd - 1; d++)
		rows *= o->shape[d];
	for (int64_t r = 0; r < rows; r++) {
		char *yr = y + (size_t)(r * wout) * es;
		int64_t off = 0;
		bool inside = true;

		for (int d = 0; d < nd - 1; d++) {
			int64_t i = map[d][ctr[d]];

			inside = inside && i >= 0;
			off += i * istr[d];
		}
		if (!inside)
			fill(yr, v, wout, es);
		else {
			const char *xr = x + off;

			gather(yr, xr, map[nd - 1], 0, lo, v, es);
			if (hi > lo)
				memcpy(yr + (size_t)lo * es, xr + (size_t)(lo -
				    pp->pb[nd - 1]) * es, (size_t)(hi - lo) *
				    es);
			gather(yr, xr, map[nd - 1], hi, wout, v, es);
		}
		for (int d = nd - 2; d >= 0; d--) {
			if (++ctr[d] < o->shape[d])
				break;
			ctr[d] = 0;
		}
	}
}

/* pads: 2 ndim integers, the begins then the ends */
static int
parse_pads(const json_t *params, int nd, struct pad_priv *pp,
    struct gp_err *err)
{
	json_t *v = json_object_get(params, "pads"), *e;
	size_t i;

	if (v == NULL || json_is_null(v)) {
		if (nd == 0)
			return (0);
		return (gp_err_set(err, "pad: param 'pads' is required (a list "
		    "of %d integers: the begins, then the ends)", 2 * nd));
	}
	if (!json_is_array(v) || json_array_size(v) != (size_t)(2 * nd))
		return (gp_err_set(err, "pad: param 'pads' must be a list of %d "
		    "integers (the begins, then the ends, for %d dimensions)",
		    2 * nd, nd));
	json_array_foreach(v, i, e) {
		json_int_t p;

		if (!json_is_integer(e))
			return (gp_err_set(err, "pad: param 'pads': entry %zu "
			    "is not an integer", i));
		p = json_integer_value(e);
		if (p <= -((json_int_t)1 << 40) || p >= (json_int_t)1 << 40)
			return (gp_err_set(err, "pad: param 'pads': entry %zu "
			    "is %lld: out of range", i, (long long)p));
		if ((int)i < nd)
			pp->pb[i] = p;
		else
			pp->pe[(int)i - nd] = p;
	}
	return (0);
}

static int
prep_pad(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	struct pad_priv *pp = gp_xcalloc(1, sizeof(*pp));
	json_t *m = json_object_get(n->params, "mode");
	int64_t shape[GP_MAX_DIMS];

	n->priv = pp;
	pp->nd = x->ndim;
	if (parse_pads(n->params, x->ndim, pp, err) < 0 ||
	    gp_op_param_double(n->params, "value", 0, &pp->value, err) < 0)
		return (-1);
	if (m != NULL) {
		const char *s = json_is_string(m) ? json_string_value(m) : "";
		int found = -1;

		for (int i = 0; i < 4; i++)
			if (strcmp(s, mode_names[i]) == 0)
				found = i;
		if (found < 0)
			return (gp_err_set(err, "pad: param 'mode' must be "
			    "\"constant\", \"reflect\", \"edge\" or \"wrap\""));
		pp->mode = (enum pad_mode)found;
	}
	if (n->n_in > 1) {
		const struct gp_type *v = gp_graph_in_type(g, n, 1);

		if (gp_shape_numel(v->ndim, v->shape) != 1) {
			struct gp_buf sb = {0};

			gp_shape_format(&sb, v->ndim, v->shape);
			gp_err_set(err, "pad: the constant (input 1) must hold "
			    "one element, it has shape %s", gp_buf_str(&sb));
			gp_buf_free(&sb);
			return (-1);
		}
		if (pp->mode != PAD_CONSTANT)
			return (gp_err_set(err, "pad: a constant (input 1) with "
			    "mode \"%s\"", mode_names[pp->mode]));
	}
	for (int d = 0; d < x->ndim; d++) {
		shape[d] = x->shape[d] + pp->pb[d] + pp->pe[d];
		if (shape[d] < 0)
			return (gp_err_set(err, "pad: dimension %d: size %" PRId64
			    " with pads %" PRId64 " and %" PRId64 " is negative",
			    d, x->shape[d], pp->pb[d], pp->pe[d]));
		if (pp->mode != PAD_CONSTANT && x->shape[d] == 0 &&
		    shape[d] > 0)
			return (gp_err_set(err, "pad: dimension %d is empty: "
			    "mode \"%s\" has nothing to repeat", d,
			    mode_names[pp->mode]));
	}
	gp_ops_set_out(g, n, 0, x->dtype, x->ndim, shape);
	n->kernel = k_pad;
	return (0);
}

/* The work space (ops/scratch.h) of one execution: the source index of
 * every output position along each dimension (int64), and a contiguous
 * copy of a strided x. */
static uint64_t
work_pad(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	const struct gp_type *y = &g->vars[n->out[0]].type;
	uint64_t tot = 0;

	if (y->ndim == 0 || gp_type_nbytes(y) == 0)
		return (0);
	for (int d = 0; d < y->ndim; d++)
		tot += (uint64_t)y->shape[d];
	return (sizeof(int64_t) * tot + gp_scratch_as_bytes(in[0],
	    in[0]->dtype));
}

/* "Pad{reflect, pads=[0, 0, 1, 1, 0, 0, 1, 1]}"; constant: its value */
static void
fmt_pad(const struct gp_graph *g, const struct gp_node *n, struct gp_buf *b)
{
	const struct pad_priv *pp = n->priv;

	gp_buf_puts(b, n->op->cls);
	if (pp == NULL)
		return;
	if (pp->mode == PAD_CONSTANT && n->n_in < 2)
		gp_buf_printf(b, "{constant=%g, pads=[", pp->value);
	else
		gp_buf_printf(b, "{%s, pads=[", mode_names[pp->mode]);
	for (int d = 0; d < 2 * pp->nd; d++)
		gp_buf_printf(b, "%s%" PRId64, d ? ", " : "", d < pp->nd ?
		    pp->pb[d] : pp->pe[d - pp->nd]);
	gp_buf_puts(b, "]}");
}

static const struct gp_op op_pad = {
	.name = "pad",
	.cls = "Pad",
	.doc = "pad(x[, value]; pads, mode, value): ONNX Pad (numpy.pad): "
	    "pads (begins then ends, negative crops) filled by the constant "
	    "(mode constant; input 1 or param value), reflect, edge or wrap; "
	    "any dtype",
	.min_in = 1, .max_in = 2, .n_out = 1,
	.params = p_pad,
	.prepare = prep_pad,
	.workspace = work_pad,
	.format = fmt_pad,
	.free_priv = free,
};

const struct gp_op *const gp_ops_pad[] = {
	&op_pad,
	NULL,
};
