/*
 * onnx-map.c: the ONNX op -> gptop op table (see onnx-map.h) and each
 * entry's translation: which gptop ops a node becomes, its attributes
 * turned into their params, the inputs that must be known when the model
 * is built (shapes, axes, slice bounds) read as values, and the opset
 * rules (an attribute that became an input, a default that changed).
 */
#include "config.h"

#include "load/onnx-map.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/onnx-read.h"
#include "graph/tensor.h"

#define OPSET_MAX GP_ONNX_OPSET_MAX

static const char *
str(const char *s)
{
	return (s != NULL ? s : "");
}

const Onnx__AttributeProto *
gp_onnx_attr(const Onnx__NodeProto *np, const char *name)
{
	for (size_t i = 0; i < np->n_attribute; i++)
		if (strcmp(str(np->attribute[i]->name), name) == 0)
			return (np->attribute[i]);
	return (NULL);
}

static int64_t
attr_i(struct gp_onnxb *b, const char *name, int64_t def)
{
	const Onnx__AttributeProto *a = gp_onnx_attr(gp_onnxb_node(b), name);

	return (a != NULL ? a->i : def);
}

static double
attr_f(struct gp_onnxb *b, const char *name, double def)
{
	const Onnx__AttributeProto *a = gp_onnx_attr(gp_onnxb_node(b), name);

	return (a != NULL ? (double)a->f : def);
}

/* An INTS attribute: the count, or -1 when absent. */
static int
attr_ints(struct gp_onnxb *b, const char *name, int64_t *out, int max)
{
	const Onnx__AttributeProto *a = gp_onnx_attr(gp_onnxb_node(b), name);

	if (a == NULL)
		return (-1);
	if (a->n_ints > (size_t)max)
		return (gp_onnxb_fail(b, "attribute '%s': %zu values, at most "
		    "%d", name, a->n_ints, max) * 0 - 2);
	for (size_t i = 0; i < a->n_ints; i++)
		out[i] = a->ints[i];
	return ((int)a->n_ints);
}

static json_t *
jints(const int64_t *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return (a);
}

static int
in0(struct gp_onnxb *b)
{
	int v = gp_onnxb_in(b, 0);

	if (v < 0)
		return (gp_onnxb_fail(b, "input 0 is missing"));
	return (v);
}

static int
ndim_of(struct gp_onnxb *b, int v)
{
	return (gp_onnxb_type(b, v)->ndim);
}

static enum gp_dtype
dtype_of(struct gp_onnxb *b, int v)
{
	return (gp_onnxb_type(b, v)->dtype);
}

/* An axis against ndim: negative counts from the end. */
static int
norm_axis(struct gp_onnxb *b, int64_t a, int ndim, const char *what)
{
	if (a < -ndim || a >= ndim || (ndim == 0 && a != 0))
		return (gp_onnxb_fail(b, "%s %" PRId64 " is out of range for "
		    "%d dimensions", what, a, ndim));
	return ((int)(a < 0 ? a + ndim : a));
}

static int
set1(struct gp_onnxb *b, int v)
{
	if (v < 0)
		return (-1);
	gp_onnxb_set_out(b, 0, v);
	return (0);
}

static int
apply1(struct gp_onnxb *b, const char *op, json_t *p, int x)
{
	if (x < 0) {
		json_decref(p);
		return (-1);
	}
	return (gp_onnxb_apply(b, op, p, 1, &x));
}

static int
apply2(struct gp_onnxb *b, const char *op, int x, int y)
{
	int in[2] = {x, y};

	if (x < 0 || y < 0)
		return (-1);
	return (gp_onnxb_apply(b, op, NULL, 2, in));
}

static int
apply3(struct gp_onnxb *b, const char *op, int x, int y, int z)
{
	int in[3] = {x, y, z};

	if (x < 0 || y < 0 || z < 0)
		return (-1);
	return (gp_onnxb_apply(b, op, NULL, 3, in));
}

/* a scalar of x's dtype */
static int
like(struct gp_onnxb *b, int x, double v)
{
	return (gp_onnxb_scalar(b, dtype_of(b, x), v));
}

/* The old binary ops (opset < 7, attribute broadcast=1) broadcast B
 * into A from an axis (default: aligned on the right, numpy's rule):
 * B gets trailing dims of size 1.  Returns B's variable (reshaped). */
static int
legacy_broadcast(struct gp_onnxb *b, int x, int y)
{
	const Onnx__AttributeProto *ax = gp_onnx_attr(gp_onnxb_node(b),
	    "axis");
	int64_t s[GP_MAX_DIMS];
	int nx, ny, a, n = 0;

	if (gp_onnxb_opset(b) >= 7 || attr_i(b, "broadcast", 0) == 0 ||
	    ax == NULL || x < 0 || y < 0)
		return (y);
	nx = ndim_of(b, x);
	ny = ndim_of(b, y);
	if ((a = norm_axis(b, ax->i, nx, "axis")) < 0)
		return (-1);
	if (a + ny > nx)
		return (gp_onnxb_fail(b, "B (%d-d) does not fit in A (%d-d) "
		    "from axis %d", ny, nx, a));
	for (int d = 0; d < ny; d++)
		s[n++] = gp_onnxb_type(b, y)->shape[d];
	while (n < nx - a)
		s[n++] = 1;
	return (apply1(b, "reshape", json_pack("{s:o}", "shape", jints(s, n)),
	    y));
}

/* Elementwise ops: e->gp over the inputs (folded pairwise for
 * maximum/minimum, one add for Sum). */
static int
b_ew(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int in[64], n = 0, v;

	for (int k = 0; k < gp_onnxb_n_in(b) && n < 64; k++)
		if (gp_onnxb_in(b, k) >= 0)
			in[n++] = gp_onnxb_in(b, k);
	if (n == 0)
		return (gp_onnxb_fail(b, "no inputs"));
	if (n == 2 && (in[1] = legacy_broadcast(b, in[0], in[1])) < 0)
		return (-1);
	if (n == 1 && (strcmp(e->gp, "add") == 0 || strcmp(e->gp,
	    "maximum") == 0 || strcmp(e->gp, "minimum") == 0))
		return (set1(b, apply1(b, "identity", NULL, in[0])));
	if (strcmp(e->gp, "maximum") == 0 || strcmp(e->gp, "minimum") == 0) {
		v = in[0];
		for (int k = 1; k < n && v >= 0; k++)
			v = apply2(b, e->gp, v, in[k]);
		return (set1(b, v));
	}
	return (set1(b, gp_onnxb_apply(b, e->gp, NULL, n, in)));
}

static int
b_mean(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int in[64], n = 0, v;

	for (int k = 0; k < gp_onnxb_n_in(b) && n < 64; k++)
		if (gp_onnxb_in(b, k) >= 0)
			in[n++] = gp_onnxb_in(b, k);
	if (n == 0)
		return (gp_onnxb_fail(b, "no inputs"));
	if (n == 1)
		return (set1(b, apply1(b, "identity", NULL, in[0])));
	v = gp_onnxb_apply(b, "add", NULL, n, in);
	if (v < 0)
		return (-1);
	return (set1(b, apply2(b, "true_div", v, like(b, in[0], n))));
}

static int
b_relu(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b);

	if (x < 0)
		return (-1);
	return (set1(b, apply2(b, "maximum", x, like(b, x, 0))));
}

static int
b_reciprocal(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b);

	if (x < 0)
		return (-1);
	return (set1(b, apply2(b, "true_div", like(b, x, 1), x)));
}

static int
b_mod(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	if (attr_i(b, "fmod", 0) != 0)
		return (set1(b, apply2(b, "fmod", in0(b), gp_onnxb_in(b, 1))));
	return (b_ew(b, e));
}

/* x < 0 ? f(x) : x, the shape of LeakyRelu, PRelu, Elu */
static int
neg_branch(struct gp_onnxb *b, int x, int fx)
{
	int c = apply2(b, "lt", x, like(b, x, 0));

	return (apply3(b, "switch", c, fx, x));
}

static int
b_leaky_relu(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b);

	if (x < 0)
		return (-1);
	return (set1(b, neg_branch(b, x, apply2(b, "mul", x, like(b, x,
	    attr_f(b, "alpha", 0.01))))));
}

static int
b_prelu(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), s = gp_onnxb_in(b, 1);

	if (x < 0 || s < 0)
		return (gp_onnxb_fail(b, "PRelu needs x and slope"));
	/* before opset 7 a slope of C values is per channel (axis 1) */
	if (gp_onnxb_opset(b) < 7 && ndim_of(b, s) == 1 && ndim_of(b, x) > 2 &&
	    gp_onnxb_type(b, s)->shape[0] == gp_onnxb_type(b, x)->shape[1] &&
	    gp_onnxb_type(b, s)->shape[0] != 1) {
		int64_t sh[GP_MAX_DIMS];

		sh[0] = gp_onnxb_type(b, s)->shape[0];
		for (int d = 1; d < ndim_of(b, x) - 1; d++)
			sh[d] = 1;
		s = apply1(b, "reshape", json_pack("{s:o}", "shape",
		    jints(sh, ndim_of(b, x) - 1)), s);
	}
	return (set1(b, neg_branch(b, x, apply2(b, "mul", x, s))));
}

static int
b_elu(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b);

	if (x < 0)
		return (-1);
	return (set1(b, neg_branch(b, x, apply2(b, "mul", apply1(b, "expm1",
	    NULL, x), like(b, x, attr_f(b, "alpha", 1.0))))));
}

static int
b_selu(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), c, v;

	if (x < 0)
		return (-1);
	c = apply2(b, "le", x, like(b, x, 0));
	v = apply3(b, "switch", c, apply2(b, "mul", apply1(b, "expm1", NULL,
	    x), like(b, x, attr_f(b, "alpha", 1.67326319217681884765625))),
	    x);
	return (set1(b, apply2(b, "mul", v, like(b, x, attr_f(b, "gamma",
	    1.05070102214813232421875)))));
}

static int
b_thresholded_relu(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b);

	if (x < 0)
		return (-1);
	return (set1(b, apply3(b, "switch", apply2(b, "gt", x, like(b, x,
	    attr_f(b, "alpha", 1.0))), x, like(b, x, 0))));
}

static int
b_hard_sigmoid(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), v;

	if (x < 0)
		return (-1);
	v = apply2(b, "add", apply2(b, "mul", x, like(b, x, attr_f(b,
	    "alpha", 0.2))), like(b, x, attr_f(b, "beta", 0.5)));
	return (set1(b, apply3(b, "clip", v, like(b, x, 0), like(b, x, 1))));
}

static int
b_hard_swish(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), v;

	if (x < 0)
		return (-1);
	v = apply2(b, "add", apply2(b, "mul", x, like(b, x, 1.0 / 6)),
	    like(b, x, 0.5));
	v = apply3(b, "clip", v, like(b, x, 0), like(b, x, 1));
	return (set1(b, apply2(b, "mul", x, v)));
}

/* A STRING attribute's value, or def (copied into buf of size n). */
static const char *
attr_s(struct gp_onnxb *b, const char *name, const char *def, char *buf,
    size_t n)
{
	const Onnx__AttributeProto *a = gp_onnx_attr(gp_onnxb_node(b), name);

	if (a == NULL || a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING)
		return (def);
	snprintf(buf, n, "%.*s", (int)a->s.len, (const char *)a->s.data);
	return (buf);
}

/* Celu: the op celu(x, alpha) */
static int
b_celu(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b);

	if (x < 0)
		return (-1);
	return (set1(b, apply2(b, "celu", x, like(b, x, attr_f(b, "alpha",
	    1.0)))));
}

/* Shrink: shrink(x, lambd, bias), the constants in x's float type (an
 * integer x computes in float and is cast back) */
static int
b_shrink(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b);
	enum gp_dtype ft;

	if (x < 0)
		return (-1);
	ft = gp_dtype_to_float(dtype_of(b, x));
	return (set1(b, apply3(b, "shrink", x, gp_onnxb_scalar(b, ft,
	    attr_f(b, "lambd", 0.5)), gp_onnxb_scalar(b, ft, attr_f(b, "bias",
	    0.0)))));
}

/* IsInf: isinf(x) for both signs; one sign is eq(x, +-inf); neither is
 * all false (and(isinf(x), false)) */
static int
b_isinf(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b);
	bool pos = attr_i(b, "detect_positive", 1) != 0;
	bool neg = attr_i(b, "detect_negative", 1) != 0;

	if (x < 0)
		return (-1);
	if (pos && neg)
		return (set1(b, apply1(b, "isinf", NULL, x)));
	if (pos || neg)
		return (set1(b, apply2(b, "eq", x, like(b, x, pos ? INFINITY :
		    -INFINITY))));
	return (set1(b, apply2(b, "and", apply1(b, "isinf", NULL, x),
	    gp_onnxb_scalar(b, GP_BOOL, 0))));
}

/* Gelu (opset 20): approximate "none" (erf) or "tanh" */
static int
b_gelu(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	char buf[32];
	const char *ap = attr_s(b, "approximate", "none", buf, sizeof(buf));
	int x = in0(b);

	if (x < 0)
		return (-1);
	if (strcmp(ap, "none") == 0)
		return (set1(b, apply1(b, "gelu", NULL, x)));
	if (strcmp(ap, "tanh") == 0)
		return (set1(b, apply1(b, "gelu_tanh", NULL, x)));
	return (gp_onnxb_fail(b, "approximate must be \"none\" or \"tanh\", "
	    "got \"%s\"", ap));
}

/* BitShift: lshift or rshift by direction */
static int
b_bitshift(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	char buf[16];
	const char *d = attr_s(b, "direction", "", buf, sizeof(buf));
	int x = in0(b), y = gp_onnxb_in(b, 1);

	if (x < 0 || y < 0)
		return (gp_onnxb_fail(b, "BitShift needs X and Y"));
	if (strcmp(d, "LEFT") != 0 && strcmp(d, "RIGHT") != 0)
		return (gp_onnxb_fail(b, "direction must be \"LEFT\" or "
		    "\"RIGHT\", got \"%s\"", d));
	return (set1(b, apply2(b, d[0] == 'L' ? "lshift" : "rshift", x, y)));
}

static int
b_softsign(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b);

	if (x < 0)
		return (-1);
	return (set1(b, apply2(b, "true_div", x, apply2(b, "add", like(b, x,
	    1), apply1(b, "abs", NULL, x)))));
}

static int
b_sign(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), p, n;

	if (x < 0)
		return (-1);
	p = gp_onnxb_cast(b, apply2(b, "gt", x, like(b, x, 0)),
	    dtype_of(b, x));
	n = gp_onnxb_cast(b, apply2(b, "lt", x, like(b, x, 0)),
	    dtype_of(b, x));
	if (dtype_of(b, x) == GP_BOOL || gp_dtype_table[dtype_of(b, x)].kind ==
	    GP_KIND_UINT)
		return (set1(b, p));
	return (set1(b, apply2(b, "sub", p, n)));
}

static int
b_where(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	return (set1(b, apply3(b, "switch", gp_onnxb_in(b, 0),
	    gp_onnxb_in(b, 1), gp_onnxb_in(b, 2))));
}

static int
b_clip(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), lo, hi;

	if (x < 0)
		return (-1);
	if (gp_onnxb_opset(b) < 11) {
		const Onnx__NodeProto *np = gp_onnxb_node(b);

		lo = gp_onnx_attr(np, "min") != NULL ? like(b, x, attr_f(b,
		    "min", 0)) : -1;
		hi = gp_onnx_attr(np, "max") != NULL ? like(b, x, attr_f(b,
		    "max", 0)) : -1;
	} else {
		lo = gp_onnxb_in(b, 1);
		hi = gp_onnxb_in(b, 2);
	}
	if (lo >= 0 && hi >= 0)
		return (set1(b, apply3(b, "clip", x, lo, hi)));
	if (lo >= 0)
		return (set1(b, apply2(b, "maximum", x, lo)));
	if (hi >= 0)
		return (set1(b, apply2(b, "minimum", x, hi)));
	return (set1(b, apply1(b, "identity", NULL, x)));
}

/* ONNX's TensorProto.DataType names for opset 1's Cast (a string). */
static int
cast_to(struct gp_onnxb *b, enum gp_dtype *dt)
{
	const Onnx__AttributeProto *a = gp_onnx_attr(gp_onnxb_node(b), "to");
	int64_t t;

	if (a == NULL)
		return (gp_onnxb_fail(b, "no attribute 'to'"));
	t = a->i;
	if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING) {
		static const char *const names[] = {"UNDEFINED", "FLOAT",
		    "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64",
		    "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64"};

		for (t = 0; t < 14; t++)
			if (a->s.len == strlen(names[t]) && memcmp(a->s.data,
			    names[t], a->s.len) == 0)
				break;
	}
	if (!gp_onnx_dtype_to_gp((int)t, dt))
		return (gp_onnxb_unsupported(b, "Cast to dtype %s",
		    gp_onnx_dtype_name((int)t)));
	return (0);
}

static int
b_cast(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	enum gp_dtype dt;
	int x = in0(b);

	if (x < 0 || cast_to(b, &dt) < 0)
		return (-1);
	return (set1(b, apply1(b, "cast", json_pack("{s:s}", "dtype",
	    gp_dtype_name(dt)), x)));
}

static int
b_cast_like(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), y = gp_onnxb_in(b, 1);

	if (x < 0 || y < 0)
		return (gp_onnxb_fail(b, "CastLike needs two inputs"));
	return (set1(b, apply1(b, "cast", json_pack("{s:s}", "dtype",
	    gp_dtype_name(dtype_of(b, y))), x)));
}

static int
b_identity(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	return (set1(b, apply1(b, "identity", NULL, in0(b))));
}

/* Dropout's ratio (input 1, default 0.5) as 0 or 1 (other than 0), or
 * -1 when it is not known when the model is built. */
static int
dropout_ratio(struct gp_onnxb *b)
{
	const struct gp_tensor *rv;
	int r = gp_onnxb_in(b, 1);

	if (r < 0)
		return (1);
	if ((rv = gp_onnxb_value(b, r, "the ratio")) == NULL)
		return (-1);
	if (gp_tensor_numel(rv) != 1)
		return (gp_onnxb_fail(b, "ratio: expected one value"));
	return (gp_tensor_get(rv, 0) != 0);
}

/* Dropout: the identity in inference mode, and in training mode at
 * ratio 0; its mask (output 1) all true. */
static int
b_dropout(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), t = gp_onnxb_in(b, 2), v, r;

	if (x < 0)
		return (-1);
	if (gp_onnxb_opset(b) < 7 && attr_i(b, "is_test", 0) == 0)
		return (gp_onnxb_unsupported(b, "Dropout in training mode "
		    "(is_test=0)"));
	if (t >= 0) {
		int64_t on;

		if (gp_onnxb_ints(b, t, "training_mode", &on, 1) < 0) {
			const struct gp_tensor *tv =
			    gp_onnxb_value(b, t, "training_mode");

			if (tv == NULL || gp_tensor_numel(tv) != 1)
				return (-1);
			on = gp_tensor_get(tv, 0) != 0;
		}
		/* training mode drops nothing at ratio 0 (torch exports
		 * such nodes: swin_t's attention) */
		if (on && (r = dropout_ratio(b)) < 0)
			return (-1);
		if (on && r != 0)
			return (gp_onnxb_unsupported(b, "Dropout in training "
			    "mode (training_mode=true) with a ratio other "
			    "than 0: its random mask"));
	}
	if ((v = apply1(b, "identity", NULL, x)) < 0)
		return (-1);
	gp_onnxb_set_out(b, 0, v);
	if (gp_onnxb_n_out(b) > 1) {
		const struct gp_type *tx = gp_onnxb_type(b, x);
		int64_t shape[GP_MAX_DIMS];
		int one = gp_onnxb_scalar(b, GP_BOOL, 1);

		for (int d = 0; d < tx->ndim; d++)
			shape[d] = tx->shape[d];
		gp_onnxb_set_out(b, 1, apply1(b, "alloc", json_pack("{s:o}",
		    "shape", jints(shape, tx->ndim)), one));
	}
	return (0);
}

/* BLAS */

static int
b_matmul(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), y = gp_onnxb_in(b, 1);

	if (x < 0 || y < 0)
		return (gp_onnxb_fail(b, "MatMul needs two inputs"));
	if (ndim_of(b, x) <= 2 && ndim_of(b, y) <= 2)
		return (set1(b, apply2(b, "dot", x, y)));
	if (!gp_dtype_is_float(dtype_of(b, x)))
		return (gp_onnxb_unsupported(b, "MatMul of %d-d and %d-d %s "
		    "operands (batched MatMul is float32 and float64 only)",
		    ndim_of(b, x), ndim_of(b, y),
		    gp_dtype_name(dtype_of(b, x))));
	return (set1(b, apply2(b, "matmul", x, y)));
}

static int
b_gemm(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), y = gp_onnxb_in(b, 1), c = gp_onnxb_in(b, 2), v;
	double alpha = attr_f(b, "alpha", 1), beta = attr_f(b, "beta", 1);
	enum gp_dtype dt;
	int64_t mn[2];

	if (x < 0 || y < 0)
		return (gp_onnxb_fail(b, "Gemm needs A and B"));
	if (ndim_of(b, x) != 2 || ndim_of(b, y) != 2)
		return (gp_onnxb_fail(b, "A and B must be matrices (got %d-d "
		    "and %d-d)", ndim_of(b, x), ndim_of(b, y)));
	dt = dtype_of(b, x);
	if (attr_i(b, "transA", 0))
		x = apply1(b, "transpose", NULL, x);
	if (attr_i(b, "transB", 0))
		y = apply1(b, "transpose", NULL, y);
	if (x < 0 || y < 0)
		return (-1);
	mn[0] = gp_onnxb_type(b, x)->shape[0];
	mn[1] = gp_onnxb_type(b, y)->shape[1];
	if (c >= 0 && beta != 0 && gp_dtype_is_float(dt)) {
		const struct gp_type *tc = gp_onnxb_type(b, c);

		if (tc->ndim != 2 || tc->shape[0] != mn[0] ||
		    tc->shape[1] != mn[1])
			c = apply1(b, "alloc", json_pack("{s:o}", "shape",
			    jints(mn, 2)), c);
		if (c < 0)
			return (-1);
		{
			int in[5] = {c, gp_onnxb_scalar(b, dt, alpha), x, y,
			    gp_onnxb_scalar(b, dt, beta)};

			return (set1(b, gp_onnxb_apply(b, "gemm", NULL, 5,
			    in)));
		}
	}
	v = apply2(b, gp_dtype_is_float(dt) ? "dot22" : "dot", x, y);
	if (v >= 0 && alpha != 1)
		v = apply2(b, "mul", v, gp_onnxb_scalar(b, dtype_of(b, v),
		    alpha));
	if (v >= 0 && c >= 0 && beta != 0)
		v = apply2(b, "add", v, beta == 1 ? c : apply2(b, "mul", c,
		    gp_onnxb_scalar(b, dtype_of(b, c), beta)));
	return (set1(b, v));
}

/* Reductions */

static int
reduce_axes(struct gp_onnxb *b, int x, bool input_form, int64_t *axes)
{
	int nd = ndim_of(b, x), n;

	if (input_form) {
		int a = gp_onnxb_in(b, 1);

		n = a >= 0 ? gp_onnxb_ints(b, a, "the axes", axes,
		    GP_MAX_DIMS) : 0;
	} else
		n = attr_ints(b, "axes", axes, GP_MAX_DIMS);
	if (n < -1)
		return (-1);
	if (n < 0)
		n = 0;
	for (int i = 0; i < n; i++) {
		int a = norm_axis(b, axes[i], nd, "axis");

		if (a < 0)
			return (-1);
		axes[i] = a;
	}
	return (n);
}

static int
b_reduce(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	const char *t = str(gp_onnxb_node(b)->op_type);
	int x = in0(b), n, nd;
	int64_t axes[GP_MAX_DIMS];
	bool input_form = gp_onnxb_opset(b) >= 18 ||
	    (strcmp(t, "ReduceSum") == 0 && gp_onnxb_opset(b) >= 13);
	const char *op = "sum";

	if (x < 0 || (n = reduce_axes(b, x, input_form, axes)) < 0)
		return (-1);
	nd = ndim_of(b, x);
	if (n == 0) {
		if (attr_i(b, "noop_with_empty_axes", 0))
			return (set1(b, apply1(b, "identity", NULL, x)));
		for (int d = 0; d < nd; d++)
			axes[n++] = d;
	}
	if (strcmp(t, "ReduceL1") == 0)
		x = apply1(b, "abs", NULL, x);
	else if (strcmp(t, "ReduceL2") == 0 ||
	    strcmp(t, "ReduceSumSquare") == 0)
		x = apply1(b, "sqr", NULL, x);
	else if (strcmp(t, "ReduceLogSumExp") == 0)
		x = apply1(b, "exp", NULL, x);
	else if (strcmp(t, "ReduceMean") == 0)
		op = "mean";
	else if (strcmp(t, "ReduceMax") == 0)
		op = "max";
	else if (strcmp(t, "ReduceMin") == 0)
		op = "min";
	else if (strcmp(t, "ReduceProd") == 0)
		op = "prod";
	x = apply1(b, op, json_pack("{s:o,s:b}", "axis", jints(axes, n),
	    "keepdims", attr_i(b, "keepdims", 1) != 0), x);
	if (strcmp(t, "ReduceL2") == 0)
		x = apply1(b, "sqrt", NULL, x);
	else if (strcmp(t, "ReduceLogSum") == 0 ||
	    strcmp(t, "ReduceLogSumExp") == 0)
		x = apply1(b, "log", NULL, x);
	return (set1(b, x));
}

static int
b_argmax(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	bool is_max = strcmp(str(gp_onnxb_node(b)->op_type), "ArgMax") == 0;
	int x = in0(b), a, v;
	bool keep = attr_i(b, "keepdims", 1) != 0;

	if (x < 0 || (a = norm_axis(b, attr_i(b, "axis", 0), ndim_of(b, x),
	    "axis")) < 0)
		return (-1);
	if (attr_i(b, "select_last_index", 0)) {
		/* the first extreme of the reversed axis, counted back */
		json_t *idx = json_array();
		int64_t n = gp_onnxb_type(b, x)->shape[a];

		for (int d = 0; d < a; d++)
			json_array_append_new(idx, json_object());
		json_array_append_new(idx, json_pack("{s:i}", "step", -1));
		x = apply1(b, "subtensor", json_pack("{s:o}", "idx", idx), x);
		v = apply1(b, is_max ? "argmax" : "argmin", json_pack(
		    "{s:i,s:b}", "axis", a, "keepdims", keep), x);
		return (set1(b, apply2(b, "sub", gp_onnxb_scalar(b, GP_INT64,
		    (double)(n - 1)), v)));
	}
	return (set1(b, apply1(b, is_max ? "argmax" : "argmin", json_pack(
	    "{s:i,s:b}", "axis", a, "keepdims", keep), x)));
}

/* Softmax, LogSoftmax: opset 13's axis (default -1), or the older rule
 * (the input flattened to 2-d at axis, default 1). */
static int
b_softmax(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	const char *op = e->gp;
	int x = in0(b), nd, a;
	const struct gp_type *t;

	if (x < 0)
		return (-1);
	t = gp_onnxb_type(b, x);
	nd = t->ndim;
	if (nd == 0)
		return (gp_onnxb_fail(b, "a 0-d input"));
	if (gp_onnxb_opset(b) >= 13) {
		int64_t perm[GP_MAX_DIMS];

		if ((a = norm_axis(b, attr_i(b, "axis", -1), nd, "axis")) < 0)
			return (-1);
		if (a == nd - 1)
			return (set1(b, apply1(b, op, NULL, x)));
		for (int d = 0; d < nd; d++)
			perm[d] = d;
		perm[a] = nd - 1;
		perm[nd - 1] = a;
		x = apply1(b, "transpose", json_pack("{s:o}", "axes",
		    jints(perm, nd)), x);
		x = apply1(b, op, NULL, x);
		return (set1(b, apply1(b, "transpose", json_pack("{s:o}",
		    "axes", jints(perm, nd)), x)));
	} else {
		int64_t two[2] = {1, 1}, back[GP_MAX_DIMS];

		a = (int)attr_i(b, "axis", 1);
		if (a < 0)
			a += nd;
		if (a < 0 || a > nd)
			return (gp_onnxb_fail(b, "axis %d is out of range for "
			    "%d dimensions", (int)attr_i(b, "axis", 1), nd));
		for (int d = 0; d < nd; d++) {
			two[d < a ? 0 : 1] *= t->shape[d];
			back[d] = t->shape[d];
		}
		if (a == nd - 1 || (a == 1 && nd == 2))
			return (set1(b, apply1(b, op, NULL, x)));
		x = apply1(b, "reshape", json_pack("{s:o}", "shape",
		    jints(two, 2)), x);
		x = apply1(b, op, NULL, x);
		return (set1(b, apply1(b, "reshape", json_pack("{s:o}",
		    "shape", jints(back, nd)), x)));
	}
}

/* Shapes */

static int
reshape_to(struct gp_onnxb *b, int x, const int64_t *shape, int n)
{
	return (apply1(b, "reshape", json_pack("{s:o}", "shape",
	    jints(shape, n)), x));
}

static int
b_transpose(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), n;
	int64_t perm[GP_MAX_DIMS];

	if (x < 0)
		return (-1);
	if ((n = attr_ints(b, "perm", perm, GP_MAX_DIMS)) < -1)
		return (-1);
	if (n < 0)
		return (set1(b, apply1(b, "transpose", NULL, x)));
	return (set1(b, apply1(b, "transpose", json_pack("{s:o}", "axes",
	    jints(perm, n)), x)));
}

static int
b_reshape(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), n;
	int64_t s[GP_MAX_DIMS];
	const struct gp_type *t;

	if (x < 0)
		return (-1);
	t = gp_onnxb_type(b, x);
	if (gp_onnxb_opset(b) >= 5)
		n = gp_onnxb_ints(b, gp_onnxb_in(b, 1), "the shape", s,
		    GP_MAX_DIMS);
	else if ((n = attr_ints(b, "shape", s, GP_MAX_DIMS)) == -1)
		return (gp_onnxb_fail(b, "no attribute 'shape'"));
	if (n < 0)
		return (-1);
	for (int i = 0; i < n; i++)
		if (s[i] == 0 && !attr_i(b, "allowzero", 0)) {
			if (i >= t->ndim)
				return (gp_onnxb_fail(b, "shape entry %d is 0 "
				    "(copy the input's size) but the input "
				    "has %d dimensions", i, t->ndim));
			s[i] = t->shape[i];
		}
	return (set1(b, reshape_to(b, x, s, n)));
}

static int
b_flatten(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), a;
	int64_t two[2] = {1, 1};
	const struct gp_type *t;

	if (x < 0)
		return (-1);
	t = gp_onnxb_type(b, x);
	if ((a = norm_axis(b, attr_i(b, "axis", 1), t->ndim + 1, "axis")) < 0)
		return (-1);
	if (attr_i(b, "axis", 1) < 0)
		a = (int)attr_i(b, "axis", 1) + t->ndim;
	for (int d = 0; d < t->ndim; d++)
		two[d < a ? 0 : 1] *= t->shape[d];
	return (set1(b, reshape_to(b, x, two, 2)));
}

/* axes from the attribute (opset < 13) or input 1 */
static int
axes_arg(struct gp_onnxb *b, int64_t *axes)
{
	if (gp_onnxb_opset(b) >= 13) {
		int a = gp_onnxb_in(b, 1);

		return (a >= 0 ? gp_onnxb_ints(b, a, "the axes", axes,
		    GP_MAX_DIMS) : -1);
	}
	return (attr_ints(b, "axes", axes, GP_MAX_DIMS));
}

static int
b_squeeze(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), n, k = 0;
	int64_t axes[GP_MAX_DIMS], s[GP_MAX_DIMS];
	bool drop[GP_MAX_DIMS] = {false};
	const struct gp_type *t;

	if (x < 0 || (n = axes_arg(b, axes)) < -1)
		return (-1);
	t = gp_onnxb_type(b, x);
	for (int i = 0; i < n; i++) {
		int a = norm_axis(b, axes[i], t->ndim, "axis");

		if (a < 0)
			return (-1);
		if (t->shape[a] != 1)
			return (gp_onnxb_fail(b, "axis %d has size %" PRId64
			    ", not 1", a, t->shape[a]));
		drop[a] = true;
	}
	for (int d = 0; d < t->ndim; d++)
		if (n < 0 ? t->shape[d] != 1 : !drop[d])
			s[k++] = t->shape[d];
	return (set1(b, reshape_to(b, x, s, k)));
}

static int
b_unsqueeze(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), n, nd, k = 0;
	int64_t axes[GP_MAX_DIMS], s[GP_MAX_DIMS];
	bool ins[GP_MAX_DIMS] = {false};
	const struct gp_type *t;

	if (x < 0 || (n = axes_arg(b, axes)) < -1)
		return (-1);
	if (n < 0)
		return (gp_onnxb_fail(b, "no axes"));
	t = gp_onnxb_type(b, x);
	nd = t->ndim + n;
	if (nd > GP_MAX_DIMS)
		return (gp_onnxb_fail(b, "%d dimensions, at most %d", nd,
		    GP_MAX_DIMS));
	for (int i = 0; i < n; i++) {
		int a = norm_axis(b, axes[i], nd, "axis");

		if (a < 0)
			return (-1);
		if (ins[a])
			return (gp_onnxb_fail(b, "axis %d repeated", a));
		ins[a] = true;
	}
	for (int d = 0; d < nd; d++)
		s[d] = ins[d] ? 1 : t->shape[k++];
	return (set1(b, reshape_to(b, x, s, nd)));
}

static int
b_concat(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int in[256], n = 0, a;

	for (int k = 0; k < gp_onnxb_n_in(b) && n < 256; k++)
		if (gp_onnxb_in(b, k) >= 0)
			in[n++] = gp_onnxb_in(b, k);
	if (n == 0)
		return (gp_onnxb_fail(b, "no inputs"));
	if ((a = norm_axis(b, attr_i(b, "axis", gp_onnxb_opset(b) < 4 ? 1 :
	    0), ndim_of(b, in[0]), "axis")) < 0)
		return (-1);
	if (gp_onnxb_opset(b) >= 4 &&
	    gp_onnx_attr(gp_onnxb_node(b), "axis") == NULL)
		return (gp_onnxb_fail(b, "no attribute 'axis'"));
	return (set1(b, gp_onnxb_apply(b, "join", json_pack("{s:i}", "axis",
	    a), n, in)));
}

static int
b_slice(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), n, na = -1, ns = -1, top = 0;
	int64_t st[GP_MAX_DIMS], en[GP_MAX_DIMS], ax[GP_MAX_DIMS],
	    sp[GP_MAX_DIMS];
	json_t *sl[GP_MAX_DIMS] = {NULL}, *idx;
	const struct gp_type *t;

	if (x < 0)
		return (-1);
	t = gp_onnxb_type(b, x);
	if (gp_onnxb_opset(b) >= 10) {
		if ((n = gp_onnxb_ints(b, gp_onnxb_in(b, 1), "the starts", st,
		    GP_MAX_DIMS)) < 0 || gp_onnxb_ints(b, gp_onnxb_in(b, 2),
		    "the ends", en, GP_MAX_DIMS) != n)
			return (n < 0 ? -1 : gp_onnxb_fail(b, "starts and ends "
			    "differ in length"));
		if (gp_onnxb_in(b, 3) >= 0 && (na = gp_onnxb_ints(b,
		    gp_onnxb_in(b, 3), "the axes", ax, GP_MAX_DIMS)) < 0)
			return (-1);
		if (gp_onnxb_in(b, 4) >= 0 && (ns = gp_onnxb_ints(b,
		    gp_onnxb_in(b, 4), "the steps", sp, GP_MAX_DIMS)) < 0)
			return (-1);
	} else {
		if ((n = attr_ints(b, "starts", st, GP_MAX_DIMS)) < 0 ||
		    attr_ints(b, "ends", en, GP_MAX_DIMS) != n)
			return (gp_onnxb_fail(b, "attributes starts and ends "
			    "are missing or differ in length"));
		na = attr_ints(b, "axes", ax, GP_MAX_DIMS);
	}
	if ((na >= 0 && na != n) || (ns >= 0 && ns != n))
		return (gp_onnxb_fail(b, "starts, ends, axes and steps differ "
		    "in length"));
	for (int i = 0; i < n; i++) {
		int a = norm_axis(b, na >= 0 ? ax[i] : i, t->ndim, "axis");
		int64_t dim, s, f, step = ns >= 0 ? sp[i] : 1;
		json_t *o;

		if (a < 0 || step == 0 || sl[a] != NULL) {
			for (int d = 0; d < GP_MAX_DIMS; d++)
				json_decref(sl[d]);
			if (a < 0)
				return (-1);
			return (gp_onnxb_fail(b, step == 0 ? "step 0 on axis "
			    "%d" : "axis %d repeated", a));
		}
		dim = t->shape[a];
		s = st[i] < 0 ? (st[i] < -dim ? 0 : st[i] + dim) : st[i];
		f = en[i] < 0 ? (en[i] < -dim ? -1 : en[i] + dim) : en[i];
		if (step > 0) {
			s = s > dim ? dim : s;
			f = f < 0 ? 0 : f > dim ? dim : f;
		} else {
			s = s > dim - 1 ? dim - 1 : s;
			f = f > dim - 1 ? dim - 1 : f;
		}
		/* f == -1 with a negative step: through element 0 */
		o = json_pack("{s:I,s:I}", "start", (json_int_t)s, "step",
		    (json_int_t)step);
		if (f >= 0)
			json_object_set_new(o, "stop", json_integer(f));
		sl[a] = o;
		if (a + 1 > top)
			top = a + 1;
	}
	idx = json_array();
	for (int d = 0; d < top; d++)
		json_array_append_new(idx, sl[d] != NULL ? sl[d] :
		    json_object());
	return (set1(b, apply1(b, "subtensor", json_pack("{s:o}", "idx",
	    idx), x)));
}

static int
b_shape(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), nd;
	int64_t s[GP_MAX_DIMS], lo = 0, hi, n;

	if (x < 0)
		return (-1);
	nd = ndim_of(b, x);
	hi = nd;
	if (gp_onnxb_opset(b) >= 15) {
		lo = attr_i(b, "start", 0);
		hi = attr_i(b, "end", nd);
		lo = lo < 0 ? lo + nd : lo;
		hi = hi < 0 ? hi + nd : hi;
		lo = lo < 0 ? 0 : lo > nd ? nd : lo;
		hi = hi < 0 ? 0 : hi > nd ? nd : hi;
	}
	n = hi > lo ? hi - lo : 0;
	for (int64_t d = 0; d < n; d++)
		s[d] = gp_onnxb_type(b, x)->shape[lo + d];
	return (set1(b, gp_onnxb_const(b, GP_INT64, 1, &n, s)));
}

static int
b_size(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b);
	int64_t n;

	if (x < 0)
		return (-1);
	n = gp_shape_numel(ndim_of(b, x), gp_onnxb_type(b, x)->shape);
	return (set1(b, gp_onnxb_const(b, GP_INT64, 0, NULL, &n)));
}

static int
b_constant_of_shape(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	const Onnx__AttributeProto *a = gp_onnx_attr(gp_onnxb_node(b),
	    "value");
	int64_t s[GP_MAX_DIMS];
	int n = gp_onnxb_ints(b, gp_onnxb_in(b, 0), "the shape", s,
	    GP_MAX_DIMS), v;
	enum gp_dtype dt = GP_FLOAT32;
	char val[16] = {0};

	if (n < 0)
		return (-1);
	if (a != NULL && a->t != NULL) {
		const Onnx__TensorProto *t = a->t;

		if (!gp_onnx_dtype_to_gp(t->data_type, &dt))
			return (gp_onnxb_unsupported(b, "a value of dtype %s",
			    gp_onnx_dtype_name(t->data_type)));
		if (gp_onnx_tensor_nbytes(t) != gp_dtype_size(dt))
			return (gp_onnxb_fail(b, "the value must have one "
			    "element"));
		if (t->has_raw_data)
			memcpy(val, t->raw_data.data, gp_dtype_size(dt));
		else if (dt == GP_FLOAT32 && t->n_float_data == 1)
			memcpy(val, t->float_data, 4);
		else if (dt == GP_FLOAT64 && t->n_double_data == 1)
			memcpy(val, t->double_data, 8);
		else if (dt == GP_INT64 && t->n_int64_data == 1)
			memcpy(val, t->int64_data, 8);
		else if (dt == GP_UINT64 && t->n_uint64_data == 1)
			memcpy(val, t->uint64_data, 8);
		else if (dt == GP_UINT32 && t->n_uint64_data == 1)
			gp_dtype_store(val, dt, (double)t->uint64_data[0]);
		else if (t->n_int32_data == 1)
			gp_dtype_store(val, dt, (double)t->int32_data[0]);
		else
			return (gp_onnxb_fail(b, "the value has no data"));
	}
	for (int i = 0; i < n; i++)
		if (s[i] < 0)
			return (gp_onnxb_fail(b, "shape entry %d is negative",
			    i));
	v = gp_onnxb_const(b, dt, 0, NULL, val);
	return (set1(b, apply1(b, "alloc", json_pack("{s:o}", "shape",
	    jints(s, n)), v)));
}

static int
b_expand(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), n, nd;
	int64_t s[GP_MAX_DIMS], out[GP_MAX_DIMS];
	const struct gp_type *t;
	struct gp_err err;

	if (x < 0 || (n = gp_onnxb_ints(b, gp_onnxb_in(b, 1), "the shape", s,
	    GP_MAX_DIMS)) < 0)
		return (-1);
	t = gp_onnxb_type(b, x);
	if (gp_shape_broadcast(t->ndim, t->shape, n, s, &nd, out, &err) < 0)
		return (gp_onnxb_fail(b, "%s", err.msg));
	return (set1(b, apply1(b, "alloc", json_pack("{s:o}", "shape",
	    jints(out, nd)), x)));
}

static int
b_gather(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), i = gp_onnxb_in(b, 1), a;
	int in[2];

	if (x < 0 || i < 0)
		return (gp_onnxb_fail(b, "Gather needs data and indices"));
	if ((a = norm_axis(b, attr_i(b, "axis", 0), ndim_of(b, x), "axis")) <
	    0)
		return (-1);
	if (!gp_dtype_is_int(dtype_of(b, i)))
		return (gp_onnxb_fail(b, "the indices must be integers, not "
		    "%s", gp_dtype_name(dtype_of(b, i))));
	in[0] = x;
	in[1] = i;
	return (set1(b, gp_onnxb_apply(b, "take", json_pack("{s:i}", "axis",
	    a), 2, in)));
}

/* Range: its three scalars known when the model is built: a constant */
static int
b_range(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	const struct gp_tensor *ts = gp_onnxb_value(b, gp_onnxb_in(b, 0),
	    "start");
	const struct gp_tensor *tl = ts == NULL ? NULL : gp_onnxb_value(b,
	    gp_onnxb_in(b, 1), "limit");
	const struct gp_tensor *td = tl == NULL ? NULL : gp_onnxb_value(b,
	    gp_onnxb_in(b, 2), "delta");
	double st, li, de, nf;
	int64_t n;
	char *buf;
	int v;

	if (td == NULL)
		return (-1);
	if (gp_tensor_numel(ts) != 1 || gp_tensor_numel(tl) != 1 ||
	    gp_tensor_numel(td) != 1)
		return (gp_onnxb_fail(b, "start, limit and delta must be "
		    "scalars"));
	st = gp_tensor_get(ts, 0);
	li = gp_tensor_get(tl, 0);
	de = gp_tensor_get(td, 0);
	if (de == 0 || !isfinite(st) || !isfinite(li) || !isfinite(de))
		return (gp_onnxb_fail(b, "delta is 0, or a bound is not "
		    "finite"));
	nf = ceil((li - st) / de);
	if (nf > 1e9)
		return (gp_onnxb_fail(b, "%.0f elements", nf));
	n = nf > 0 ? (int64_t)nf : 0;
	buf = gp_xmalloc((size_t)(n + 1) * gp_dtype_size(ts->dtype));
	for (int64_t i = 0; i < n; i++)
		gp_dtype_store(buf + (size_t)i * gp_dtype_size(ts->dtype),
		    ts->dtype, st + (double)i * de);
	v = gp_onnxb_const(b, ts->dtype, 1, &n, buf);
	free(buf);
	return (set1(b, v));
}

/* Split: one subtensor (a view) per output along axis; the sizes from
 * the attribute (before opset 13) or input 1, else equal parts */
static int
b_split(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), a, n_out = gp_onnxb_n_out(b), n;
	int64_t sizes[GP_MAX_OUT], dim, at = 0;

	if (x < 0)
		return (-1);
	if ((a = norm_axis(b, attr_i(b, "axis", 0), ndim_of(b, x), "axis")) < 0)
		return (-1);
	if (n_out < 1 || n_out > GP_MAX_OUT)
		return (gp_onnxb_unsupported(b, "Split into %d outputs (at most "
		    "%d)", n_out, GP_MAX_OUT));
	dim = gp_onnxb_type(b, x)->shape[a];
	if (gp_onnxb_opset(b) >= 13 && gp_onnxb_in(b, 1) >= 0)
		n = gp_onnxb_ints(b, gp_onnxb_in(b, 1), "the split", sizes,
		    GP_MAX_OUT);
	else if (gp_onnxb_opset(b) >= 13 || gp_onnxb_in(b, 1) < 0)
		n = attr_ints(b, "split", sizes, GP_MAX_OUT);
	else
		n = gp_onnxb_ints(b, gp_onnxb_in(b, 1), "the split", sizes,
		    GP_MAX_OUT);
	if (n < -1)
		return (-1);
	if (n < 0) {
		if (dim % n_out != 0)
			return (gp_onnxb_fail(b, "axis %d of size %" PRId64
			    " does not split into %d equal parts", a, dim,
			    n_out));
		for (int k = 0; k < n_out; k++)
			sizes[k] = dim / n_out;
		n = n_out;
	}
	if (n != n_out)
		return (gp_onnxb_fail(b, "%d sizes for %d outputs", n, n_out));
	for (int k = 0; k < n; k++)
		at += sizes[k] >= 0 ? sizes[k] : INT64_MIN / 2;
	if (at != dim)
		return (gp_onnxb_fail(b, "the sizes do not add up to axis %d's "
		    "%" PRId64, a, dim));
	at = 0;
	for (int k = 0; k < n; k++) {
		json_t *idx = json_array();
		int v;

		for (int d = 0; d < a; d++)
			json_array_append_new(idx, json_object());
		json_array_append_new(idx, json_pack("{s:I,s:I}", "start",
		    (json_int_t)at, "stop", (json_int_t)(at + sizes[k])));
		if ((v = apply1(b, "subtensor", json_pack("{s:o}", "idx", idx),
		    x)) < 0)
			return (-1);
		gp_onnxb_set_out(b, k, v);
		at += sizes[k];
	}
	return (0);
}

/* Trilu: x where the (constant) mask of the last two axes holds, else 0 */
static int
b_trilu(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), nd, m;
	int64_t k = 0, sh[2];
	bool upper = attr_i(b, "upper", 1) != 0;
	uint8_t *mask;

	if (x < 0)
		return (-1);
	nd = ndim_of(b, x);
	if (nd < 2)
		return (gp_onnxb_fail(b, "the input must have 2 dimensions or "
		    "more"));
	if (gp_onnxb_in(b, 1) >= 0 && gp_onnxb_ints(b, gp_onnxb_in(b, 1),
	    "k", &k, 1) != 1)
		return (-1);
	sh[0] = gp_onnxb_type(b, x)->shape[nd - 2];
	sh[1] = gp_onnxb_type(b, x)->shape[nd - 1];
	mask = gp_xmalloc((size_t)(sh[0] * sh[1] + 1));
	for (int64_t i = 0; i < sh[0]; i++)
		for (int64_t j = 0; j < sh[1]; j++)
			mask[i * sh[1] + j] = upper ? j - i >= k : j - i <= k;
	m = gp_onnxb_const(b, GP_BOOL, 2, sh, mask);
	free(mask);
	if (m < 0)
		return (-1);
	return (set1(b, apply3(b, "switch", m, x, like(b, x, 0))));
}

/* Tile: x reshaped to (1, d0, 1, d1, ...), broadcast by alloc to
 * (r0, d0, r1, d1, ...), reshaped to (r0 d0, r1 d1, ...) */
static int
b_tile(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), nd, n;
	int64_t r[GP_MAX_DIMS], s1[GP_MAX_DIMS], s2[GP_MAX_DIMS],
	    s3[GP_MAX_DIMS];
	const struct gp_type *t;

	if (x < 0 || (n = gp_onnxb_ints(b, gp_onnxb_in(b, 1), "the repeats",
	    r, GP_MAX_DIMS)) < 0)
		return (-1);
	t = gp_onnxb_type(b, x);
	nd = t->ndim;
	if (n != nd)
		return (gp_onnxb_fail(b, "%d repeats for %d dimensions", n,
		    nd));
	if (2 * nd > GP_MAX_DIMS)
		return (gp_onnxb_unsupported(b, "Tile of a %d-d input (gptop "
		    "tiles up to %d-d)", nd, GP_MAX_DIMS / 2));
	for (int d = 0; d < nd; d++) {
		if (r[d] < 0)
			return (gp_onnxb_fail(b, "repeat %d is negative", d));
		s1[2 * d] = 1;
		s1[2 * d + 1] = t->shape[d];
		s2[2 * d] = r[d];
		s2[2 * d + 1] = t->shape[d];
		s3[d] = r[d] * t->shape[d];
	}
	x = reshape_to(b, x, s1, 2 * nd);
	x = apply1(b, "alloc", json_pack("{s:o}", "shape", jints(s2, 2 * nd)),
	    x);
	return (set1(b, x < 0 ? -1 : reshape_to(b, x, s3, nd)));
}

/* Hardmax: 1 at the first maximum along the axis (opset 13's axis, or the
 * older flatten rule, as Softmax), 0 elsewhere: eq(argmax(x, keepdims),
 * a constant 0 .. n-1 along the axis), cast to x's dtype */
static int
hardmax_axis(struct gp_onnxb *b, int x, int a)
{
	const struct gp_type *t = gp_onnxb_type(b, x);
	int64_t n = t->shape[a], sh[GP_MAX_DIMS], *iota;
	int nd = t->ndim, am, io, v;

	am = apply1(b, "argmax", json_pack("{s:i,s:b}", "axis", a,
	    "keepdims", 1), x);
	iota = gp_xmalloc(sizeof(int64_t) * (size_t)(n + 1));
	for (int64_t i = 0; i < n; i++)
		iota[i] = i;
	sh[0] = n;
	for (int d = a + 1; d < nd; d++)
		sh[d - a] = 1;
	io = gp_onnxb_const(b, GP_INT64, nd - a, sh, iota);
	free(iota);
	v = apply2(b, "eq", am, io);
	return (v < 0 ? -1 : gp_onnxb_cast(b, v, t->dtype));
}

static int
b_hardmax(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), nd, a;
	const struct gp_type *t;

	if (x < 0)
		return (-1);
	t = gp_onnxb_type(b, x);
	nd = t->ndim;
	if (nd == 0)
		return (gp_onnxb_fail(b, "a 0-d input"));
	if (gp_onnxb_opset(b) >= 13) {
		if ((a = norm_axis(b, attr_i(b, "axis", -1), nd, "axis")) < 0)
			return (-1);
		return (set1(b, hardmax_axis(b, x, a)));
	} else {
		int64_t two[2] = {1, 1}, back[GP_MAX_DIMS];

		a = (int)attr_i(b, "axis", 1);
		if (a < 0)
			a += nd;
		if (a < 0 || a > nd)
			return (gp_onnxb_fail(b, "axis %d is out of range for "
			    "%d dimensions", (int)attr_i(b, "axis", 1), nd));
		for (int d = 0; d < nd; d++) {
			two[d < a ? 0 : 1] *= t->shape[d];
			back[d] = t->shape[d];
		}
		x = reshape_to(b, x, two, 2);
		x = x < 0 ? -1 : hardmax_axis(b, x, 1);
		return (set1(b, x < 0 ? -1 : reshape_to(b, x, back, nd)));
	}
}

/*
 * The CNN ops (ops/conv.c, pool.c, norm.c) take ONNX's attributes as
 * params under the same names, so their entries copy the attributes
 * listed (INT, INTS, FLOAT or STRING) and check only what the gptop ops
 * cannot: the dtypes and ranks they do not compute are 'unsupported'.
 */
static json_t *
attrs_json(struct gp_onnxb *b, const char *const *names)
{
	json_t *p = json_object();

	for (int i = 0; names[i] != NULL; i++) {
		const Onnx__AttributeProto *a = gp_onnx_attr(gp_onnxb_node(b),
		    names[i]);

		if (a == NULL)
			continue;
		switch (a->type) {
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
			json_object_set_new(p, names[i], json_integer(a->i));
			break;
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
			json_object_set_new(p, names[i], jints(a->ints,
			    (int)a->n_ints));
			break;
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
			json_object_set_new(p, names[i],
			    json_real((double)a->f));
			break;
		case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
			json_object_set_new(p, names[i], json_stringn(
			    (const char *)a->s.data, a->s.len));
			break;
		default:
			break;
		}
	}
	return (p);
}

/* X float32 or float64 with at least min_nd and (max_sp >= 0) at most
 * 2 + max_sp dimensions; only output 0 (extra outputs named: refused;
 * outs NULL: the translation handles them) */
static int
cnn_check(struct gp_onnxb *b, const struct gp_onnx_map *e, int x, int min_nd, int max_sp,
    const char *outs)
{
	const struct gp_type *t;
	const Onnx__NodeProto *np = gp_onnxb_node(b);

	if (x < 0)
		return (-1);
	t = gp_onnxb_type(b, x);
	if (strcmp(e->gp, "max_pool") == 0 && (t->dtype == GP_INT8 ||
	    t->dtype == GP_UINT8))
		;	/* max_pool compares integers too */
	else if (t->dtype != GP_FLOAT32 && t->dtype != GP_FLOAT64)
		return (gp_onnxb_unsupported(b, "%s of %s (gptop's %s computes "
		    "in float32 and float64)", str(np->op_type),
		    gp_dtype_name(t->dtype), e->gp));
	if (t->ndim < min_nd)
		return (gp_onnxb_fail(b, "X has %d dimensions: expected at "
		    "least %d", t->ndim, min_nd));
	if (max_sp >= 0 && t->ndim - 2 > max_sp)
		return (gp_onnxb_unsupported(b, "%s over %d spatial dimensions "
		    "(gptop's %s handles 1 to %d)", str(np->op_type),
		    t->ndim - 2, e->gp, max_sp));
	for (size_t k = 1; k < np->n_output && outs != NULL; k++)
		if (str(np->output[k])[0] != '\0')
			return (gp_onnxb_unsupported(b, "output %zu ('%s'): "
			    "gptop computes only %s's output 0 (%s)", k,
			    np->output[k], str(np->op_type), outs));
	return (0);
}

static const char *const a_conv[] = {"kernel_shape", "strides",
	"dilations", "pads", "auto_pad", "group", NULL};
static const char *const a_convt[] = {"kernel_shape", "strides",
	"dilations", "pads", "auto_pad", "group", "output_padding",
	"output_shape", NULL};
static const char *const a_maxpool[] = {"kernel_shape", "strides",
	"dilations", "pads", "auto_pad", "ceil_mode", "storage_order", NULL};
static const char *const a_avgpool[] = {"kernel_shape", "strides",
	"dilations", "pads", "auto_pad", "ceil_mode", "count_include_pad",
	NULL};
static const char *const a_none[] = {NULL};
static const char *const a_bn[] = {"epsilon", "momentum",
	"training_mode", "spatial", NULL};
static const char *const a_ln[] = {"axis", "epsilon", "stash_type", NULL};
static const char *const a_in[] = {"epsilon", NULL};

/* Conv, ConvTranspose: X, W, B (optional) */
static int
b_conv(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int in[3], n = 0, x = in0(b);
	bool tr = strcmp(e->gp, "conv_transpose") == 0;

	if (cnn_check(b, e, x, 3, 3, "") < 0)
		return (-1);
	in[n++] = x;
	if ((in[n++] = gp_onnxb_in(b, 1)) < 0)
		return (gp_onnxb_fail(b, "input 1 (W) is missing"));
	if (gp_onnxb_in(b, 2) >= 0)
		in[n++] = gp_onnxb_in(b, 2);
	return (set1(b, gp_onnxb_apply(b, e->gp, attrs_json(b, tr ? a_convt :
	    a_conv), n, in)));
}

static int
b_pool(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b);
	const char *const *names = a_none;
	bool global = strncmp(e->gp, "global", 6) == 0;

	if (strcmp(e->gp, "max_pool") == 0)
		names = a_maxpool;
	else if (strcmp(e->gp, "average_pool") == 0)
		names = a_avgpool;
	if (cnn_check(b, e, x, 3, global ? -1 : 3, names == a_maxpool ? NULL :
	    "Y") < 0)
		return (-1);
	if (names == a_maxpool) {
		/* Y, and Indices when asked for */
		const Onnx__NodeProto *np = gp_onnxb_node(b);
		int outs[2], n_out = np->n_output > 1 &&
		    str(np->output[1])[0] != '\0' ? 2 : 1;

		if (gp_onnxb_apply_n(b, e->gp, attrs_json(b, names), 1, &x,
		    n_out, outs) < 0)
			return (-1);
		for (int k = 0; k < n_out; k++)
			gp_onnxb_set_out(b, k, outs[k]);
		return (0);
	}
	return (set1(b, apply1(b, e->gp, attrs_json(b, names), x)));
}

/* BatchNormalization (inference), LayerNormalization,
 * InstanceNormalization: X and their parameter inputs as they are */
static int
b_norm(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int in[5], n = 0, x = in0(b), want;
	const char *const *names;

	if (strcmp(e->gp, "batch_norm") == 0) {
		names = a_bn;
		want = 5;
	} else if (strcmp(e->gp, "layer_norm") == 0) {
		names = a_ln;
		want = 3;
	} else {
		names = a_in;
		want = 3;
	}
	if (cnn_check(b, e, x, want == 5 || names == a_in ? 2 : 1, -1, names ==
	    a_bn ? "Y; the training outputs are not supported" : names ==
	    a_ln ? NULL : "Y") < 0)
		return (-1);
	for (int k = 0; k < gp_onnxb_n_in(b) && k < want; k++) {
		if (gp_onnxb_in(b, k) < 0) {
			if (names == a_ln && k == 2)
				continue;
			return (gp_onnxb_fail(b, "input %d is missing", k));
		}
		in[n++] = gp_onnxb_in(b, k);
	}
	if (n < want - (names == a_ln))
		return (gp_onnxb_fail(b, "%d inputs: expected %d", n, want));
	if (names == a_ln) {
		/* Y, and Mean and InvStdDev when asked for */
		const Onnx__NodeProto *np = gp_onnxb_node(b);
		int outs[3], n_out = 1;

		for (size_t k = 1; k < np->n_output && k < 3; k++)
			if (str(np->output[k])[0] != '\0')
				n_out = (int)k + 1;
		if (gp_onnxb_apply_n(b, e->gp, attrs_json(b, names), n, in,
		    n_out, outs) < 0)
			return (-1);
		for (int k = 0; k < n_out; k++)
			gp_onnxb_set_out(b, k, outs[k]);
		return (0);
	}
	return (set1(b, gp_onnxb_apply(b, e->gp, attrs_json(b, names), n,
	    in)));
}

/* Pad: pads (begins then ends) from the attribute (before opset 11:
 * 'paddings' in opset 1, then 'pads'; the constant in 'value') or input
 * 1, the constant from input 2 (a scalar fed to pad at run time); from
 * opset 18 the pads may be for the axes of input 3 only */
static int
b_pad(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), nd, n, in[2];
	int64_t pads[2 * GP_MAX_DIMS];
	char mb[32];
	const char *mode = attr_s(b, "mode", "constant", mb, sizeof(mb));

	if (x < 0)
		return (-1);
	nd = ndim_of(b, x);
	if (strcmp(mode, "constant") != 0 && strcmp(mode, "reflect") != 0 &&
	    strcmp(mode, "edge") != 0 && strcmp(mode, "wrap") != 0)
		return (gp_onnxb_unsupported(b, "Pad mode '%s' (gptop pads in "
		    "modes constant, reflect, edge and wrap)", mode));
	if (gp_onnxb_opset(b) < 11) {
		n = attr_ints(b, gp_onnxb_opset(b) < 2 ? "paddings" : "pads",
		    pads, 2 * GP_MAX_DIMS);
		if (n == -1)
			return (gp_onnxb_fail(b, "attribute '%s' is missing",
			    gp_onnxb_opset(b) < 2 ? "paddings" : "pads"));
		in[1] = strcmp(mode, "constant") == 0 ? like(b, x, attr_f(b,
		    "value", 0)) : -1;
	} else {
		n = gp_onnxb_ints(b, gp_onnxb_in(b, 1), "the pads", pads,
		    2 * GP_MAX_DIMS);
		in[1] = gp_onnxb_in(b, 2);
		if (in[1] >= 0 && dtype_of(b, in[1]) != dtype_of(b, x))
			return (gp_onnxb_fail(b, "constant_value is %s but the "
			    "data is %s", gp_dtype_name(dtype_of(b, in[1])),
			    gp_dtype_name(dtype_of(b, x))));
	}
	if (n < 0)
		return (-1);
	if (gp_onnxb_opset(b) >= 18 && gp_onnxb_in(b, 3) >= 0) {
		/* pads for the axes listed (input 3), 0 for the others */
		int64_t ax[GP_MAX_DIMS], full[2 * GP_MAX_DIMS] = {0};
		bool seen[GP_MAX_DIMS] = {false};
		int na = gp_onnxb_ints(b, gp_onnxb_in(b, 3), "the axes", ax,
		    GP_MAX_DIMS);

		if (na < 0)
			return (-1);
		if (n != 2 * na)
			return (gp_onnxb_fail(b, "%d pads for %d axes: expected "
			    "%d", n, na, 2 * na));
		for (int i = 0; i < na; i++) {
			int a = norm_axis(b, ax[i], nd, "axis");

			if (a < 0)
				return (-1);
			if (seen[a])
				return (gp_onnxb_fail(b, "axis %d is listed "
				    "twice", a));
			seen[a] = true;
			full[a] = pads[i];
			full[nd + a] = pads[na + i];
		}
		memcpy(pads, full, sizeof(int64_t) * (size_t)(2 * nd));
		n = 2 * nd;
	}
	if (n != 2 * nd)
		return (gp_onnxb_fail(b, "%d pads for %d dimensions: expected "
		    "%d", n, nd, 2 * nd));
	in[0] = x;
	if (strcmp(mode, "constant") != 0)
		in[1] = -1;
	return (set1(b, gp_onnxb_apply(b, "pad", json_pack("{s:o,s:s}", "pads",
	    jints(pads, n), "mode", mode), in[1] >= 0 ? 2 : 1, in)));
}

/* A float list operand known when the model is built (scales, roi);
 * returns the count, or -1.  An empty tensor counts as absent (0). */
static int
reals_of(struct gp_onnxb *b, int v, const char *what, double *out, int max)
{
	const struct gp_tensor *t = gp_onnxb_value(b, v, what);
	int64_t n;

	if (t == NULL)
		return (-1);
	n = gp_tensor_numel(t);
	if (t->ndim > 1 || n > max)
		return (gp_onnxb_fail(b, "%s: expected a list of at most %d "
		    "numbers", what, max));
	for (int64_t i = 0; i < n; i++)
		out[i] = gp_tensor_get(t, i);
	return ((int)n);
}

static json_t *
jreals(const double *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return (a);
}

static const char *const a_resize[] = {"mode",
	"coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside",
	"extrapolation_value", "nearest_mode", NULL};

/* Resize from opset 18: the scales, sizes and roi given for the axes of
 * the attribute 'axes' (na of them; -1: every axis) spread over every
 * axis (1, the input's size, 0..1 elsewhere), and the sizes under
 * keep_aspect_ratio_policy not_larger/not_smaller: one scale for the
 * axes, the smallest/largest of size/input, whose rounded products
 * (numpy's round: half to even) are the sizes; both go to resize. */
static int
resize_axes(struct gp_onnxb *b, int x, int na, const int64_t *ax, int *ns,
    double *sc, int *nz, int64_t *sz, int *nr, double *roi)
{
	const struct gp_type *t = gp_onnxb_type(b, x);
	int nd = t->ndim, axes[GP_MAX_DIMS], n = na >= 0 ? na : nd;
	double fsc[GP_MAX_DIMS], froi[2 * GP_MAX_DIMS], s;
	int64_t fsz[GP_MAX_DIMS];
	bool seen[GP_MAX_DIMS] = {false}, larger;
	char kb[32];
	const char *kp = attr_s(b, "keep_aspect_ratio_policy", "stretch", kb,
	    sizeof(kb));

	for (int i = 0; i < n; i++) {
		if ((axes[i] = na >= 0 ? norm_axis(b, ax[i], nd, "axis") : i) <
		    0)
			return (-1);
		if (seen[axes[i]])
			return (gp_onnxb_fail(b, "axis %d is listed twice",
			    axes[i]));
		seen[axes[i]] = true;
	}
	for (int d = 0; d < nd; d++) {
		fsc[d] = 1;
		fsz[d] = t->shape[d];
		froi[d] = 0;
		froi[nd + d] = 1;
	}
	for (int i = 0; i < n; i++) {
		fsc[axes[i]] = *ns > 0 ? sc[i] : 1;
		fsz[axes[i]] = *nz > 0 ? sz[i] : t->shape[axes[i]];
		froi[axes[i]] = *nr > 0 ? roi[i] : 0;
		froi[nd + axes[i]] = *nr > 0 ? roi[n + i] : 1;
	}
	*ns = *ns > 0 ? nd : 0;
	*nz = *nz > 0 ? nd : 0;
	*nr = *nr > 0 ? 2 * nd : 0;
	memcpy(sc, fsc, sizeof(double) * (size_t)nd);
	memcpy(sz, fsz, sizeof(int64_t) * (size_t)nd);
	memcpy(roi, froi, sizeof(double) * (size_t)(2 * nd));
	if (strcmp(kp, "stretch") == 0 || *nz == 0)
		return (0);
	if (strcmp(kp, "not_larger") != 0 && strcmp(kp, "not_smaller") != 0)
		return (gp_onnxb_fail(b, "keep_aspect_ratio_policy '%s': "
		    "expected stretch, not_larger or not_smaller", kp));
	larger = strcmp(kp, "not_smaller") == 0;
	s = larger ? 0 : INFINITY;
	for (int i = 0; i < n; i++) {
		double r = t->shape[axes[i]] > 0 ? (double)sz[axes[i]] /
		    (double)t->shape[axes[i]] : 1;

		s = larger ? fmax(s, r) : fmin(s, r);
	}
	for (int i = 0; i < n; i++) {
		sz[axes[i]] = (int64_t)nearbyint(s * (double)t->shape[axes[i]]);
		sc[axes[i]] = s;
	}
	*ns = nd;
	return (0);
}

/* Resize (opset 10: X, scales; from 11: X, roi, scales, sizes) and
 * Upsample (opset 7: the scales attribute; from 9: input 1).  Before
 * opset 11 the coordinates are asymmetric and nearest rounds down. */
static int
b_resize(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b), nd, ns = 0, nz = 0, nr = 0, na = -1, want;
	int64_t ax[GP_MAX_DIMS];
	bool up = strcmp(str(gp_onnxb_node(b)->op_type), "Upsample") == 0;
	bool old = up || gp_onnxb_opset(b) < 11;
	double sc[GP_MAX_DIMS], roi[2 * GP_MAX_DIMS];
	int64_t sz[GP_MAX_DIMS];
	char mb[32], cb[32];
	const char *mode = attr_s(b, "mode", "nearest", mb, sizeof(mb));
	const char *ctm = attr_s(b, "coordinate_transformation_mode",
	    "half_pixel", cb, sizeof(cb));
	json_t *p;

	if (x < 0)
		return (-1);
	nd = ndim_of(b, x);
	if (strcmp(mode, "bilinear") == 0 || strcmp(mode, "trilinear") == 0)
		mode = "linear";
	if (strcmp(mode, "nearest") != 0 && strcmp(mode, "linear") != 0 &&
	    strcmp(mode, "cubic") != 0)
		return (gp_onnxb_fail(b, "mode '%s': expected nearest, linear "
		    "or cubic", mode));
	if (strcmp(mode, "nearest") != 0 && !gp_dtype_is_float(dtype_of(b,
	    x)))
		return (gp_onnxb_unsupported(b, "%s mode %s of %s (gptop "
		    "interpolates float32 and float64)",
		    str(gp_onnxb_node(b)->op_type), mode,
		    gp_dtype_name(dtype_of(b, x))));
	if (gp_onnx_attr(gp_onnxb_node(b), "antialias") != NULL &&
	    attr_i(b, "antialias", 0) != 0)
		return (gp_onnxb_unsupported(b, "Resize with antialias"));
	if (old && up && gp_onnxb_opset(b) < 9) {
		const Onnx__AttributeProto *a = gp_onnx_attr(gp_onnxb_node(b),
		    "scales");

		if (a == NULL)
			return (gp_onnxb_fail(b, "attribute 'scales' is "
			    "missing"));
		for (size_t i = 0; i < a->n_floats && i < GP_MAX_DIMS; i++)
			sc[i] = a->floats[i];
		ns = (int)a->n_floats;
	} else if (old)
		ns = reals_of(b, gp_onnxb_in(b, 1), "the scales", sc,
		    GP_MAX_DIMS);
	else {
		if (gp_onnxb_in(b, 2) >= 0)
			ns = reals_of(b, gp_onnxb_in(b, 2), "the scales", sc,
			    GP_MAX_DIMS);
		if (ns >= 0 && gp_onnxb_in(b, 3) >= 0)
			nz = gp_onnxb_ints(b, gp_onnxb_in(b, 3), "the sizes",
			    sz, GP_MAX_DIMS);
		if (ns >= 0 && nz >= 0 && strcmp(ctm,
		    "tf_crop_and_resize") == 0 && gp_onnxb_in(b, 1) >= 0)
			nr = reals_of(b, gp_onnxb_in(b, 1), "the roi", roi,
			    2 * GP_MAX_DIMS);
	}
	if (ns < 0 || nz < 0 || nr < 0)
		return (-1);
	if ((ns > 0) == (nz > 0))
		return (gp_onnxb_fail(b, "%s", ns > 0 ? "both scales and sizes "
		    "are given: expected one" : "neither scales nor sizes is "
		    "given"));
	if (!old && gp_onnxb_opset(b) >= 18 && (na = attr_ints(b, "axes", ax,
	    GP_MAX_DIMS)) < -1)
		return (-1);
	want = na >= 0 ? na : nd;
	if ((ns > 0 && ns != want) || (nz > 0 && nz != want) || (nr > 0 &&
	    nr != 2 * want))
		return (gp_onnxb_fail(b, "%d %s for %d %s",
		    ns > 0 && ns != want ? ns : nz > 0 && nz != want ? nz : nr,
		    ns > 0 && ns != want ? "scales" : nz > 0 && nz != want ?
		    "sizes" : "roi values", want, na >= 0 ? "axes" :
		    "dimensions"));
	if (!old && gp_onnxb_opset(b) >= 18 && resize_axes(b, x, na, ax, &ns,
	    sc, &nz, sz, &nr, roi) < 0)
		return (-1);
	if (old)
		p = json_pack("{s:s,s:s,s:s}", "mode", mode,
		    "coordinate_transformation_mode", "asymmetric",
		    "nearest_mode", "floor");
	else {
		p = attrs_json(b, a_resize);
		json_object_set_new(p, "mode", json_string(mode));
	}
	if (ns > 0)
		json_object_set_new(p, "scales", jreals(sc, ns));
	if (nz > 0)
		json_object_set_new(p, "sizes", jints(sz, nz));
	if (nr > 0)
		json_object_set_new(p, "roi", jreals(roi, nr));
	return (set1(b, apply1(b, "resize", p, x)));
}

static const char *const a_depth[] = {"blocksize", "mode", NULL};

/* DepthToSpace (mode from opset 11; DCR before), SpaceToDepth */
static int
b_depth(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	int x = in0(b);
	json_t *p;

	if (x < 0)
		return (-1);
	if (ndim_of(b, x) != 4)
		return (gp_onnxb_fail(b, "the input has %d dimensions: expected "
		    "4 (N, C, H, W)", ndim_of(b, x)));
	p = attrs_json(b, a_depth);
	if (strcmp(e->gp, "space_to_depth") == 0 || gp_onnxb_opset(b) < 11)
		json_object_del(p, "mode");
	return (set1(b, apply1(b, e->gp, p, x)));
}

/*
 * The index ops (ops/index.c) take ONNX's attributes under the same names;
 * the inputs that fix an output's shape (TopK's K, OneHot's depth) and
 * CumSum's axis are read when the model is built.
 */

/* Inputs 0 .. n-1, all present. */
static int
ins(struct gp_onnxb *b, int n, int *in)
{
	for (int k = 0; k < n; k++)
		if ((in[k] = gp_onnxb_in(b, k)) < 0)
			return (gp_onnxb_fail(b, "input %d is missing", k));
	return (0);
}

/* ONNX's 0/1 INT attributes named in keys as the params' booleans. */
static json_t *
bools(json_t *p, const char *const *keys)
{
	for (int i = 0; keys[i] != NULL; i++) {
		json_t *v = json_object_get(p, keys[i]);

		if (json_is_integer(v))
			json_object_set_new(p, keys[i],
			    json_boolean(json_integer_value(v) != 0));
	}
	return (p);
}

/* GatherElements, ScatterElements, Scatter (opsets 9-10), GatherND,
 * ScatterND: their attributes are the gptop op's params */
static int
b_index(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	static const char *const a_axis[] = {"axis", "reduction", NULL};
	static const char *const a_nd[] = {"batch_dims", "reduction", NULL};
	bool scatter = strncmp(e->gp, "scatter", 7) == 0;
	int in[3];

	if (ins(b, scatter ? 3 : 2, in) < 0)
		return (-1);
	if (!gp_dtype_is_int(dtype_of(b, in[1])))
		return (gp_onnxb_fail(b, "the indices must be integers, not "
		    "%s", gp_dtype_name(dtype_of(b, in[1]))));
	return (set1(b, gp_onnxb_apply(b, e->gp, attrs_json(b,
	    strstr(e->gp, "_nd") != NULL ? a_nd : a_axis), scatter ? 3 : 2,
	    in)));
}

/* TopK: k an attribute (opset 1) or input 1 (from opset 10); two
 * outputs */
static int
b_top_k(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	static const char *const a_topk[] = {"axis", "largest", "sorted",
	    NULL};
	int x = in0(b), out[2];
	int64_t k;
	json_t *p;

	if (x < 0)
		return (-1);
	if (gp_onnxb_opset(b) < 10) {
		const Onnx__AttributeProto *a = gp_onnx_attr(gp_onnxb_node(b),
		    "k");

		if (a == NULL)
			return (gp_onnxb_fail(b, "no attribute 'k'"));
		k = a->i;
	} else if (gp_onnxb_ints(b, gp_onnxb_in(b, 1), "K", &k, 1) != 1)
		return (gp_onnxb_fail(b, "K must hold one value"));
	p = bools(attrs_json(b, a_topk), a_topk + 1);
	json_object_set_new(p, "k", json_integer(k));
	if (gp_onnxb_apply_n(b, "top_k", p, 1, &x, 2, out) < 0)
		return (-1);
	gp_onnxb_set_out(b, 0, out[0]);
	if (gp_onnxb_n_out(b) > 1)
		gp_onnxb_set_out(b, 1, out[1]);
	return (0);
}

/* CumSum: the axis is input 1 (a 0-d or one-element tensor) */
static int
b_cumsum(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	static const char *const a_cum[] = {"exclusive", "reverse", NULL};
	int x = in0(b);
	int64_t axis;
	json_t *p;

	if (x < 0)
		return (-1);
	if (gp_onnxb_ints(b, gp_onnxb_in(b, 1), "the axis", &axis, 1) != 1)
		return (gp_onnxb_fail(b, "the axis must hold one value"));
	p = bools(attrs_json(b, a_cum), a_cum);
	json_object_set_new(p, "axis", json_integer(axis));
	return (set1(b, apply1(b, "cumsum", p, x)));
}

/* OneHot: indices, depth (a scalar of any numeric dtype, read when the
 * model is built), values (off, on) */
static int
b_one_hot(struct gp_onnxb *b, const struct gp_onnx_map *e)
{
	static const char *const a_oh[] = {"axis", NULL};
	int in[3], two[2];
	const struct gp_tensor *d;
	json_t *p;

	if (ins(b, 3, in) < 0)
		return (-1);
	if ((d = gp_onnxb_value(b, in[1], "the depth")) == NULL)
		return (-1);
	if (gp_tensor_numel(d) != 1 || !isfinite(gp_tensor_get(d, 0)))
		return (gp_onnxb_fail(b, "the depth must be one finite "
		    "number"));
	p = attrs_json(b, a_oh);
	json_object_set_new(p, "depth", json_integer((json_int_t)
	    gp_tensor_get(d, 0)));
	two[0] = in[0];
	two[1] = in[2];
	return (set1(b, gp_onnxb_apply(b, "one_hot", p, 2, two)));
}

/* The table.  Opsets: from the op's first version to the newest gptop
 * reads (OPSET_MAX); each translation handles the versions in between.
 * An op whose meaning changed after the last version its translation
 * knows ends there (OPU: ReduceMean's axes became an input in opset 18;
 * Pad's axes input and Resize's axes and keep_aspect_ratio_policy of 18
 * are read, Resize's antialias refused):
 * a model of a newer opset is refused as unsupported at that opset, not
 * read the old way. */
#define EW(t, s, op, r)							\
	{.op_type = t, .since = s, .until = OPSET_MAX,			\
	    .family = "Elemwise", .gp = op, .build = b_ew, .rule = r}
#define OP(t, s, fam, op, fn, sh, r)					\
	{.op_type = t, .since = s, .until = OPSET_MAX, .family = fam,	\
	    .gp = op, .build = fn, .show = sh, .rule = r}

#define OPU(t, s, u, fam, op, fn, sh, r)				\
	{.op_type = t, .since = s, .until = u, .family = fam,		\
	    .gp = op, .build = fn, .show = sh, .rule = r}

enum { S = GP_ONNX_OUT_SAME, A = GP_ONNX_OUT_ANY };

static const char *const sh_axis[] = {"axis", NULL};
static const char *const sh_axes[] = {"axes", "keepdims", NULL};
static const char *const sh_arg[] = {"axis", "keepdims",
	"select_last_index", NULL};
static const char *const sh_perm[] = {"perm", NULL};
static const char *const sh_alpha[] = {"alpha", NULL};
static const char *const sh_alphabeta[] = {"alpha", "beta", NULL};
static const char *const sh_alphagamma[] = {"alpha", "gamma", NULL};
static const char *const sh_clip[] = {"min", "max", NULL};
static const char *const sh_sqz[] = {"axes", NULL};
static const char *const sh_fmod[] = {"fmod", NULL};
static const char *const sh_eps[] = {"epsilon", NULL};
static const char *const sh_lnorm[] = {"axis", "epsilon", NULL};
static const char *const sh_scatter[] = {"axis", "reduction", NULL};
static const char *const sh_topk[] = {"axis", "largest", "sorted", NULL};
static const char *const sh_cumsum[] = {"exclusive", "reverse", NULL};
static const char *const sh_gnd[] = {"batch_dims", NULL};
static const char *const sh_red[] = {"reduction", NULL};
static const char *const sh_mode[] = {"mode", NULL};
static const char *const sh_block[] = {"blocksize", "mode", NULL};
static const char *const sh_resize[] = {"mode",
	"coordinate_transformation_mode", "nearest_mode", NULL};
static const char *const sh_shrink[] = {"lambd", "bias", NULL};
static const char *const sh_isinf[] = {"detect_positive",
	"detect_negative", NULL};
static const char *const sh_dir[] = {"direction", NULL};
static const char *const sh_gelu[] = {"approximate", NULL};

const struct gp_onnx_map gp_onnx_map_table[] = {
	EW("Abs", 1, "abs", S),
	EW("Acos", 7, "acos", S),
	EW("Acosh", 9, "acosh", S),
	EW("Add", 1, "add", S),
	EW("And", 1, "and", A),
	OP("ArgMax", 1, "Reduce", "argmax", b_argmax, sh_arg, A),
	OP("ArgMin", 1, "Reduce", "argmin", b_argmax, sh_arg, A),
	EW("Asin", 7, "asin", S),
	EW("Asinh", 9, "asinh", S),
	EW("Atan", 7, "atan", S),
	EW("Atanh", 9, "atanh", S),
	OP("AveragePool", 1, "Pool", "average_pool", b_pool, NULL, A),
	OP("BatchNormalization", 1, "Norm", "batch_norm", b_norm, sh_eps, A),
	OP("BitShift", 11, "Elemwise", "lshift, rshift", b_bitshift, sh_dir,
	    A),
	OP("Cast", 1, "Elemwise", "cast", b_cast, NULL, A),
	OP("CastLike", 15, "Elemwise", "cast", b_cast_like, NULL, A),
	EW("Ceil", 1, "ceil", S),
	OP("Celu", 12, "Elemwise", "celu", b_celu, sh_alpha, S),
	OP("Clip", 1, "Elemwise", "clip, maximum, minimum", b_clip, sh_clip,
	    S),
	OP("Concat", 1, "Shape", "join", b_concat, sh_axis, A),
	OP("ConstantOfShape", 9, "Shape", "alloc (folded)",
	    b_constant_of_shape, NULL, A),
	OP("Conv", 1, "Conv", "conv", b_conv, NULL, A),
	OP("ConvTranspose", 1, "Conv", "conv_transpose", b_conv, NULL, A),
	EW("Cos", 7, "cos", S),
	OP("CumSum", 11, "Index", "cumsum", b_cumsum, sh_cumsum, A),
	EW("Cosh", 9, "cosh", S),
	OP("DepthToSpace", 1, "Shape", "depth_to_space", b_depth, sh_block,
	    A),
	EW("Div", 1, "true_div", S),
	OP("Dropout", 1, "Elemwise", "identity", b_dropout, NULL, A),
	OP("Elu", 1, "Elemwise", "lt, expm1, mul, switch", b_elu, sh_alpha,
	    S),
	EW("Equal", 1, "eq", A),
	EW("Erf", 9, "erf", S),
	EW("Exp", 1, "exp", S),
	OP("Expand", 8, "Shape", "alloc", b_expand, NULL, A),
	OP("Flatten", 1, "Shape", "reshape", b_flatten, sh_axis, A),
	EW("Floor", 1, "floor", S),
	OP("Gather", 1, "Shape", "take", b_gather, sh_axis, A),
	OP("Gelu", 20, "Elemwise", "gelu, gelu_tanh", b_gelu, sh_gelu, S),
	OP("GatherElements", 11, "Index", "gather_elements", b_index, sh_axis,
	    A),
	OP("GatherND", 11, "Index", "gather_nd", b_index, sh_gnd, A),
	OP("Gemm", 1, "BLAS", "gemm, dot22, transpose, alloc", b_gemm, NULL,
	    S),
	OP("GlobalAveragePool", 1, "Pool", "global_average_pool", b_pool,
	    NULL, A),
	OP("GlobalMaxPool", 1, "Pool", "global_max_pool", b_pool, NULL, A),
	EW("Greater", 1, "gt", A),
	EW("GreaterOrEqual", 12, "ge", A),
	OP("Hardmax", 1, "Softmax", "argmax, eq, cast", b_hardmax, sh_axis, A),
	OP("HardSigmoid", 1, "Elemwise", "mul, add, clip", b_hard_sigmoid,
	    sh_alphabeta, S),
	OP("HardSwish", 14, "Elemwise", "mul, add, clip", b_hard_swish, NULL,
	    S),
	OP("Identity", 1, "Elemwise", "identity", b_identity, NULL, A),
	OP("InstanceNormalization", 1, "Norm", "instance_norm", b_norm,
	    sh_eps, A),
	OP("IsInf", 10, "Elemwise", "isinf, eq", b_isinf, sh_isinf, A),
	EW("IsNaN", 9, "isnan", A),
	OP("LayerNormalization", 17, "Norm", "layer_norm", b_norm, sh_lnorm,
	    A),
	OP("LeakyRelu", 1, "Elemwise", "lt, mul, switch", b_leaky_relu,
	    sh_alpha, S),
	EW("Less", 1, "lt", A),
	EW("LessOrEqual", 12, "le", A),
	EW("Log", 1, "log", S),
	OP("LogSoftmax", 1, "Softmax", "log_softmax", b_softmax, sh_axis, A),
	OP("MatMul", 1, "BLAS", "dot, matmul", b_matmul, NULL, S),
	EW("Max", 1, "maximum", S),
	OP("MaxPool", 1, "Pool", "max_pool", b_pool, NULL, A),
	OP("Mean", 1, "Elemwise", "add, true_div", b_mean, NULL, S),
	EW("Min", 1, "minimum", S),
	EW("Mish", 18, "mish", S),
	OP("Mod", 10, "Elemwise", "mod", b_mod, sh_fmod, S),
	EW("Mul", 1, "mul", S),
	EW("Neg", 1, "neg", S),
	EW("Not", 1, "not", A),
	OP("OneHot", 9, "Index", "one_hot", b_one_hot, sh_axis, A),
	EW("Or", 1, "or", A),
	OP("PRelu", 1, "Elemwise", "lt, mul, switch", b_prelu, NULL, S),
	OP("Pad", 1, "Shape", "pad", b_pad, sh_mode, A),
	EW("Pow", 1, "pow", S),
	OP("Range", 11, "Shape", "(folded)", b_range, NULL, A),
	OP("Reciprocal", 1, "Elemwise", "true_div", b_reciprocal, NULL, S),
	OPU("ReduceL1", 1, 17, "Reduce", "abs, sum", b_reduce, sh_axes, S),
	OPU("ReduceL2", 1, 17, "Reduce", "sqr, sum, sqrt", b_reduce, sh_axes,
	    S),
	OPU("ReduceLogSum", 1, 17, "Reduce", "sum, log", b_reduce, sh_axes, S),
	OPU("ReduceLogSumExp", 1, 17, "Reduce", "exp, sum, log", b_reduce,
	    sh_axes, S),
	OPU("ReduceMax", 1, 17, "Reduce", "max", b_reduce, sh_axes, S),
	OPU("ReduceMean", 1, 17, "Reduce", "mean", b_reduce, sh_axes, S),
	OPU("ReduceMin", 1, 17, "Reduce", "min", b_reduce, sh_axes, S),
	OPU("ReduceProd", 1, 17, "Reduce", "prod", b_reduce, sh_axes, S),
	OP("ReduceSum", 1, "Reduce", "sum", b_reduce, sh_axes, S),
	OPU("ReduceSumSquare", 1, 17, "Reduce", "sqr, sum", b_reduce, sh_axes,
	    S),
	OP("Relu", 1, "Elemwise", "maximum", b_relu, NULL, S),
	OP("Reshape", 1, "Shape", "reshape", b_reshape, NULL, A),
	OP("Resize", 10, "Resize", "resize", b_resize, sh_resize, A),
	EW("Round", 11, "round", S),
	{.op_type = "Scatter", .since = 9, .until = 10, .family = "Index",
	    .gp = "scatter_elements", .build = b_index, .show = sh_axis,
	    .rule = A},
	OP("ScatterElements", 11, "Index", "scatter_elements", b_index,
	    sh_scatter, A),
	OP("ScatterND", 11, "Index", "scatter_nd", b_index, sh_red, A),
	OP("Selu", 1, "Elemwise", "le, expm1, mul, switch", b_selu,
	    sh_alphagamma, S),
	OP("Shape", 1, "Shape", "(folded)", b_shape, NULL, A),
	OP("Shrink", 9, "Elemwise", "shrink", b_shrink, sh_shrink, S),
	EW("Sigmoid", 1, "sigmoid", S),
	OP("Sign", 9, "Elemwise", "gt, lt, cast, sub", b_sign, NULL, S),
	EW("Sin", 7, "sin", S),
	EW("Sinh", 9, "sinh", S),
	OP("Size", 1, "Shape", "(folded)", b_size, NULL, A),
	OP("Slice", 1, "Shape", "subtensor", b_slice, NULL, A),
	OP("Softmax", 1, "Softmax", "softmax", b_softmax, sh_axis, A),
	EW("Softplus", 1, "softplus", S),
	OP("Softsign", 1, "Elemwise", "abs, add, true_div", b_softsign, NULL,
	    S),
	OP("SpaceToDepth", 1, "Shape", "space_to_depth", b_depth, sh_block,
	    A),
	EW("Sqrt", 1, "sqrt", S),
	OPU("Split", 1, 17, "Shape", "subtensor", b_split, sh_axis, A),
	OP("Squeeze", 1, "Shape", "reshape", b_squeeze, sh_sqz, A),
	EW("Sub", 1, "sub", S),
	EW("Sum", 1, "add", S),
	EW("Tan", 7, "tan", S),
	EW("Tanh", 1, "tanh", S),
	OP("ThresholdedRelu", 10, "Elemwise", "gt, switch", b_thresholded_relu,
	    sh_alpha, S),
	OP("Tile", 6, "Shape", "reshape, alloc", b_tile, NULL, A),
	OP("TopK", 1, "Index", "top_k", b_top_k, sh_topk, A),
	OP("Transpose", 1, "Shape", "transpose", b_transpose, sh_perm, A),
	OP("Trilu", 14, "Elemwise", "switch", b_trilu, NULL, A),
	OP("Unsqueeze", 1, "Shape", "reshape", b_unsqueeze, sh_sqz, A),
	OP("Upsample", 7, "Resize", "resize", b_resize, sh_mode, A),
	OP("Where", 9, "Elemwise", "switch", b_where, NULL, A),
	EW("Xor", 1, "neq", A),
};

const size_t gp_onnx_map_count = sizeof(gp_onnx_map_table) /
    sizeof(gp_onnx_map_table[0]);

const struct gp_onnx_map *
gp_onnx_map_find(const char *op_type, int64_t opset,
    const struct gp_onnx_map **any)
{
	if (any != NULL)
		*any = NULL;
	for (size_t i = 0; i < gp_onnx_map_count; i++) {
		const struct gp_onnx_map *e = &gp_onnx_map_table[i];

		if (strcmp(e->op_type, op_type) != 0)
			continue;
		if (opset >= e->since && opset <= e->until)
			return (e);
		if (any != NULL)
			*any = e;
	}
	return (NULL);
}

static void
attr_value(struct gp_buf *b, const Onnx__AttributeProto *a)
{
	switch (a->type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
		gp_buf_printf(b, "%" PRId64, a->i);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
		gp_buf_printf(b, "%g", (double)a->f);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
		gp_buf_printf(b, "%.*s", (int)a->s.len, (const char *)a->s.data);
		break;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
		gp_buf_puts(b, "[");
		for (size_t i = 0; i < a->n_ints; i++)
			gp_buf_printf(b, "%s%" PRId64, i ? "," : "",
			    a->ints[i]);
		gp_buf_puts(b, "]");
		break;
	default:
		gp_buf_puts(b, "?");
	}
}

/* ints joined by 'x' ("3x3"), or one value when all are equal and
 * `one` ("s2") */
static void
label_ints(struct gp_buf *b, const Onnx__AttributeProto *a, bool one)
{
	bool same = true;

	for (size_t i = 1; i < a->n_ints; i++)
		same = same && a->ints[i] == a->ints[0];
	for (size_t i = 0; i < (one && same ? 1 : a->n_ints); i++)
		gp_buf_printf(b, "%s%" PRId64, i ? "x" : "", a->ints[i]);
}

/* The windowed CNN ops: "Conv{3x3,s2,g32}": the kernel, then what is not
 * the default: s(trides), d(ilations), p(ads: one value when all equal,
 * else begins then ends), the auto_pad mode, g(roup), ceil(_mode),
 * cip (count_include_pad) */
static bool
label_window(const Onnx__NodeProto *np, struct gp_buf *b)
{
	static const struct {
		const char *attr, *tag;
	} f[] = {
		{.attr = "kernel_shape", .tag = ""},
		{.attr = "strides", .tag = "s"},
		{.attr = "dilations", .tag = "d"},
		{.attr = "pads", .tag = "p"},
	};
	const Onnx__AttributeProto *a;
	bool any = false;

	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		bool dflt = true;

		if ((a = gp_onnx_attr(np, f[k].attr)) == NULL ||
		    a->n_ints == 0)
			continue;
		for (size_t i = 0; i < a->n_ints; i++)
			dflt = dflt && a->ints[i] == (k == 3 ? 0 : 1);
		if (dflt && k > 0)
			continue;
		gp_buf_printf(b, "%s%s", any ? "," : "{", f[k].tag);
		label_ints(b, a, k > 0);
		any = true;
	}
	if ((a = gp_onnx_attr(np, "auto_pad")) != NULL && a->s.len > 0 &&
	    !(a->s.len == 6 && memcmp(a->s.data, "NOTSET", 6) == 0)) {
		gp_buf_printf(b, "%s%.*s", any ? "," : "{", (int)a->s.len,
		    (const char *)a->s.data);
		any = true;
	}
	if ((a = gp_onnx_attr(np, "group")) != NULL && a->i != 1) {
		gp_buf_printf(b, "%sg%" PRId64, any ? "," : "{", a->i);
		any = true;
	}
	if ((a = gp_onnx_attr(np, "ceil_mode")) != NULL && a->i != 0) {
		gp_buf_puts(b, any ? ",ceil" : "{ceil");
		any = true;
	}
	if ((a = gp_onnx_attr(np, "count_include_pad")) != NULL && a->i != 0) {
		gp_buf_puts(b, any ? ",cip" : "{cip");
		any = true;
	}
	return (any);
}

void
gp_onnx_map_label(const struct gp_onnx_map *e, const Onnx__NodeProto *np,
    struct gp_buf *b)
{
	const char *t = str(np->op_type);
	bool any = false;

	gp_buf_put_text(b, t);
	if (strcmp(t, "Gemm") == 0) {
		const Onnx__AttributeProto *a;

		if ((a = gp_onnx_attr(np, "transA")) != NULL && a->i != 0) {
			gp_buf_puts(b, "{tA");
			any = true;
		}
		if ((a = gp_onnx_attr(np, "transB")) != NULL && a->i != 0) {
			gp_buf_puts(b, any ? ",tB" : "{tB");
			any = true;
		}
		if ((a = gp_onnx_attr(np, "alpha")) != NULL && a->f != 1) {
			gp_buf_printf(b, "%salpha=%g", any ? "," : "{",
			    (double)a->f);
			any = true;
		}
		if ((a = gp_onnx_attr(np, "beta")) != NULL && a->f != 1) {
			gp_buf_printf(b, "%sbeta=%g", any ? "," : "{",
			    (double)a->f);
			any = true;
		}
	} else if (e->build == b_conv || (e->build == b_pool &&
	    strncmp(t, "Global", 6) != 0)) {
		any = label_window(np, b);
	} else if (strcmp(t, "Cast") == 0) {
		const Onnx__AttributeProto *a = gp_onnx_attr(np, "to");
		enum gp_dtype dt;

		if (a != NULL && gp_onnx_dtype_to_gp((int)a->i, &dt)) {
			gp_buf_printf(b, "{%s", gp_dtype_name(dt));
			any = true;
		}
	}
	for (int i = 0; e->show != NULL && e->show[i] != NULL; i++) {
		const Onnx__AttributeProto *a = gp_onnx_attr(np, e->show[i]);

		if (a == NULL)
			continue;
		gp_buf_printf(b, "%s%s=", any ? "," : "{", e->show[i]);
		attr_value(b, a);
		any = true;
	}
	if (any)
		gp_buf_puts(b, "}");
}
