/*
 * ops/depth.c: depth_to_space and space_to_depth (ONNX DepthToSpace and
 * SpaceToDepth, PyTorch's pixel_shuffle and pixel_unshuffle): blocks of
 * b x b pixels moved between the channels and the spatial plane of an
 * NCHW tensor, for any dtype.
 *
 * depth_to_space: Y[n, c, h*b + i, w*b + j] = X[n, ch, h, w] with
 * ch = (i*b + j)*C' + c (mode DCR, depth-column-row) or c*b*b + i*b + j
 * (CRD, pixel_shuffle's order).  space_to_depth is the inverse of DCR.
 * Both copy one output row at a time from the input's rows, read through
 * its strides (a transposed or sliced X needs no copy first).
 */
#include "config.h"

#include "ops/ops.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct depth_priv {
	int64_t	b;
	bool	crd;	/* depth_to_space's mode CRD */
	bool	to_space;
};

static const char *const p_d2s[] = {"blocksize", "mode", NULL};
static const char *const p_s2d[] = {"blocksize", NULL};

/* n elements of es bytes: dst[i*ds] = src[i*ss] (strides in elements of
 * dst, bytes of src) */
static void
move(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n,
    size_t es)
{
#define MOVE(T)                                                               \
	{                                                                     \
		T *d = (T *)(void *)dst;                                      \
		for (int64_t i = 0; i < n; i++)                               \
			memcpy(&d[i * ds], src + i * ss, sizeof(T));          \
		break;                                                        \
	}
	switch (es) {
	case 1:
		MOVE(uint8_t)
	case 2:
		MOVE(uint16_t)
	case 4:
		MOVE(uint32_t)
	case 8:
		MOVE(uint64_t)
	default:
		for (int64_t i = 0; i < n; i++)
			memcpy(dst + (size_t)(i * ds) * es, src + i * ss, es);
	}
#undef MOVE
}

static void
k_depth(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct depth_priv *dp = n->priv;
	const struct gp_tensor *x = in[0];
	struct gp_tensor *o = out[0];
	size_t es = gp_dtype_size(o->dtype);
	const int64_t *s = x->strides, b = dp->b;
	const char *xd = gp_tensor_data(x);
	char *y = gp_tensor_data(o);

	if (gp_tensor_numel(o) == 0)
		return;
	if (!dp->to_space) {
		/* x (N, C, H, W) -> y (N, C b², H/b, W/b): each output row
		 * (n, ch, h) from every b-th element of row (h*b + i) of
		 * channel c, from j on */
		int64_t C = x->shape[1], Ho = o->shape[2], Wo = o->shape[3];

		for (int64_t nn = 0; nn < o->shape[0]; nn++)
			for (int64_t c = 0; c < C; c++)
				for (int64_t i = 0; i < b; i++)
					for (int64_t j = 0; j < b; j++) {
						int64_t ch = (i * b + j) * C + c;

						for (int64_t h = 0; h < Ho; h++)
							move(y + (size_t)(((nn *
							    o->shape[1] + ch) *
							    Ho + h) * Wo) * es,
							    1, xd + nn * s[0] +
							    c * s[1] + (h * b +
							    i) * s[2] + j * s[3],
							    b * s[3], Wo, es);
					}
		return;
	}
	/* x (N, C'b², H, W) -> y (N, C', Hb, Wb): output row (n, c, h*b + i)
	 * gets, at j, j + b, ..., the row h of channel ch */
	{
		int64_t C = o->shape[1], H = x->shape[2], W = x->shape[3];
		int64_t Wo = o->shape[3];

		for (int64_t nn = 0; nn < o->shape[0]; nn++)
			for (int64_t c = 0; c < C; c++)
				for (int64_t h = 0; h < H; h++)
					for (int64_t i = 0; i < b; i++) {
						char *yr = y + (size_t)(((nn * C +
						    c) * o->shape[2] + h * b +
						    i) * Wo) * es;

						for (int64_t j = 0; j < b; j++) {
							int64_t ch = dp->crd ?
							    c * b * b + i * b +
							    j : (i * b + j) *
							    C + c;

							move(yr + (size_t)j * es,
							    b, xd + nn * s[0] +
							    ch * s[1] + h * s[2],
							    s[3], W, es);
						}
					}
	}
}

static int
prep_depth(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	struct depth_priv *dp = gp_xcalloc(1, sizeof(*dp));
	const char *op = n->op->name;
	json_t *m = json_object_get(n->params, "mode");
	int64_t shape[4], b, bb;

	n->priv = dp;
	dp->to_space = strcmp(op, "depth_to_space") == 0;
	if (gp_op_param_int(n->params, "blocksize", 0, &dp->b, err) < 0)
		return (-1);
	b = dp->b;
	if (json_object_get(n->params, "blocksize") == NULL)
		return (gp_err_set(err, "%s: param 'blocksize' is required", op));
	if (b < 1 || b > 1 << 20)
		return (gp_err_set(err, "%s: blocksize is %" PRId64 ": expected "
		    "1 or more", op, b));
	if (m != NULL) {
		const char *ms = json_is_string(m) ? json_string_value(m) : "";

		if (strcmp(ms, "CRD") != 0 && strcmp(ms, "DCR") != 0)
			return (gp_err_set(err, "%s: param 'mode' must be "
			    "\"DCR\" or \"CRD\"", op));
		dp->crd = strcmp(ms, "CRD") == 0;
	}
	if (x->ndim != 4)
		return (gp_err_set(err, "%s: X must have 4 dimensions (N, C, H, "
		    "W), got %d", op, x->ndim));
	bb = b * b;
	shape[0] = x->shape[0];
	if (dp->to_space) {
		if (x->shape[1] % bb != 0)
			return (gp_err_set(err, "%s: X's %" PRId64 " channels do "
			    "not divide by blocksize² %" PRId64, op, x->shape[1],
			    bb));
		shape[1] = x->shape[1] / bb;
		shape[2] = x->shape[2] * b;
		shape[3] = x->shape[3] * b;
	} else {
		for (int d = 2; d < 4; d++)
			if (x->shape[d] % b != 0)
				return (gp_err_set(err, "%s: X's dimension %d "
				    "(%" PRId64 ") does not divide by blocksize "
				    "%" PRId64, op, d, x->shape[d], b));
		shape[1] = x->shape[1] * bb;
		shape[2] = x->shape[2] / b;
		shape[3] = x->shape[3] / b;
	}
	gp_ops_set_out(g, n, 0, x->dtype, 4, shape);
	n->kernel = k_depth;
	return (0);
}

/* "DepthToSpace{blocksize=2, CRD}", "SpaceToDepth{blocksize=2}" */
static void
fmt_depth(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	const struct depth_priv *dp = n->priv;

	gp_buf_puts(b, n->op->cls);
	if (dp == NULL)
		return;
	gp_buf_printf(b, "{blocksize=%" PRId64 "%s}", dp->b, !dp->to_space ?
	    "" : dp->crd ? ", CRD" : ", DCR");
}

static const struct gp_op op_depth_to_space = {
	.name = "depth_to_space",
	.cls = "DepthToSpace",
	.doc = "depth_to_space(X; blocksize, mode): ONNX DepthToSpace, (N, C, "
	    "H, W) to (N, C/b², H b, W b), mode DCR (default) or CRD "
	    "(pixel_shuffle); any dtype",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.params = p_d2s,
	.prepare = prep_depth,
	.format = fmt_depth,
	.free_priv = free,
};

static const struct gp_op op_space_to_depth = {
	.name = "space_to_depth",
	.cls = "SpaceToDepth",
	.doc = "space_to_depth(X; blocksize): ONNX SpaceToDepth, (N, C, H, W) "
	    "to (N, C b², H/b, W/b), the inverse of DCR depth_to_space; any "
	    "dtype",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.params = p_s2d,
	.prepare = prep_depth,
	.format = fmt_depth,
	.free_priv = free,
};

const struct gp_op *const gp_ops_depth[] = {
	&op_depth_to_space,
	&op_space_to_depth,
	NULL,
};
