/*
 * rewrite/cnn.c: the CNN rewrites of the specialize phase: what exported
 * convolutional and transformer models spell out in several applies
 * becomes one.
 *
 *   bn_fold          batch_norm(conv(X, W[, B]), scale, beta, mean, var)
 *                    -> conv(X, W', B'), the folded weights computed now
 *   conv_bias        conv(X, W) + b (b per output channel) -> conv(X, W, b)
 *   conv_act         maximum(conv(...), lo), minimum(conv(...), hi) or
 *                    clip(conv(...), lo, hi) -> conv(...; act_min, act_max)
 *                    (a clamp of a clamped conv: the intersection)
 *   bn_act           the same of a batch_norm that bn_fold left (one not
 *                    after a conv: DenseNet's pre-activations) ->
 *                    batch_norm(...; act_min, act_max)
 *   layer_norm_fuse  the LayerNorm torch exports below opset 17 (mean,
 *                    sub, pow 2, mean, add eps, sqrt, div, mul, add)
 *                    -> layer_norm
 *   conv_winograd    a float32 3x3 conv of strides and dilations 1 with
 *                    enough channels and output pixels (ops/conv-wino.h)
 *                    -> the same conv computed as Winograd's F(2x2, 3x3)
 *   gemm_pack        a float32 gemm of fixed Y (an MLP's or a Linear's
 *                    weights), alpha 1, beta 0 or 1, 4M multiply-adds or
 *                    more or 16 columns at most -> the same gemm with Y
 *                    packed once (input P: ops/conv-gemm.h), the sums in
 *                    another order; a float32 matmul (or dot22) of fixed
 *                    2-d y of those sizes -> the same matmul with param
 *                    packed and y packed once (input P, last), run after
 *                    the matmul rewrites (gp_rewriters_pack); and a
 *                    float32 pointwise conv with a
 *                    bias and fixed W, of few pixels and as many output
 *                    channels or more (MobileNet's 7x7 and 14x14 expand
 *                    convs) -> the same conv with W's transpose packed
 *                    once (param packed, input P), the sums in another
 *                    order
 *   pad_pool         average_pool(pad(x)) of zeros on the spatial
 *                    dimensions -> average_pool(x) with those pads,
 *                    counted (Inception's explicit Pads): the same sums
 *   join_into        join(conv_1, ..., conv_k) on the channels of a batch
 *                    of 1 -> the convs writing their channels of one
 *                    alloc_empty in turn, in place (conv's param into):
 *                    no copy (SqueezeNet's fire modules); the inplace
 *                    phase's, as it overwrites its inputs
 *
 * Each fires only when the applies it swallows are read by nothing else
 * (no other reader, no function output or update), and the replacement
 * has exactly the type of what it replaces.  bn_fold computes the new
 * weights when it runs, so the weights and the four batch_norm inputs
 * must be fixed: constants, or shared variables that no function updates.
 * The folded weights differ from the unfolded arithmetic by rounding
 * (W * a rounded once instead of the conv's output times a); the others
 * keep the arithmetic's order (conv_bias, conv_act, bn_act: identical
 * results) or
 * compute the statistics in double (layer_norm_fuse).  conv_winograd
 * changes the arithmetic: its sums differ from the direct conv's by
 * rounding (a few ulps of the sum of the products' magnitudes); an input
 * or a weight that is not finite sends that call to the direct conv.
 * join_into computes what the join copied, element for element.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/op.h"
#include "ops/conv-gemm.h"
#include "ops/conv-wino.h"
#include "ops/window.h"
#include "rewrite/rewriters.h"
#include "rewrite/rw.h"

struct cnn {
	struct gp_rw	 w;
	int		*uses;	/* readers, +1 when it escapes */
	size_t		 n_uses;
	bool		*updated;	/* an update's destination */
};

static void
cnn_begin(struct cnn *s, struct gp_rewrite_ctx *c)
{
	struct gp_graph *g = c->g;

	memset(s, 0, sizeof(*s));
	gp_rw_begin(&s->w, c);
	s->n_uses = g->n_vars;
	s->uses = gp_xcalloc(g->n_vars + 1, sizeof(int));
	s->updated = gp_xcalloc(g->n_vars + 1, sizeof(bool));
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gp_node *n = &g->nodes[i];

		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++)
			s->uses[n->in[k]]++;
	}
	for (size_t f = 0; f < g->n_fns; f++) {
		for (int k = 0; k < g->fns[f].n_out; k++)
			s->uses[g->fns[f].out[k]]++;
		for (int k = 0; k < g->fns[f].n_upd; k++) {
			s->uses[g->fns[f].upd[k].src]++;
			s->updated[g->fns[f].upd[k].dst] = true;
		}
	}
}

static int
cnn_end(struct cnn *s)
{
	free(s->uses);
	free(s->updated);
	return (gp_rw_end(&s->w));
}

/* Read by exactly one apply and by no function (variables made during
 * the walk count as read once). */
static bool
used_once(const struct cnn *s, int v)
{
	return ((size_t)v >= s->n_uses || s->uses[v] == 1);
}

/* A value known now that no call changes: a constant, or a shared
 * variable no function updates. */
static bool
fixed(const struct cnn *s, int v)
{
	const struct gp_var *var = &s->w.g->vars[v];

	if (var->value.storage == NULL)
		return (false);
	return (var->kind == GP_VAR_CONSTANT || (var->kind == GP_VAR_SHARED &&
	    ((size_t)v >= s->n_uses || !s->updated[v])));
}

static bool
is_float(const struct gp_graph *g, int v)
{
	enum gp_dtype dt = g->vars[v].type.dtype;

	return (dt == GP_FLOAT32 || dt == GP_FLOAT64);
}

/* The conv producing v, read only there, with no clamp yet; or NULL. */
static const struct gp_node *
plain_conv(const struct cnn *s, int v)
{
	const struct gp_node *c = gp_rw_producer_is(s->w.g, v, "conv");

	if (c == NULL || !used_once(s, v) ||
	    json_object_get(c->params, "act_min") != NULL ||
	    json_object_get(c->params, "act_max") != NULL)
		return (NULL);
	return (c);
}

/* Does the item before end (after a ',' past body) read tag? */
static bool
last_item_is(const char *body, const char *end, const char *tag)
{
	size_t n = strlen(tag);

	return ((size_t)(end - body) >= n && memcmp(end - n, tag, n) == 0 &&
	    (end - n == body || end[-(ptrdiff_t)n - 1] == ','));
}

/* The label of a conv like c clamped to [lo, hi]: c's front-end label
 * (an ONNX model's "Conv{3x3,p1}") with ",relu" or ",clip[lo,hi]" in its
 * braces, in place of the clamp c had; the tags later rewrites put after
 * the clamp (",wino", ",packed") stay after it, but ",packed" when unpack
 * (the new conv has no P); NULL when c has no label. */
static char *
act_label(const struct gp_node *c, double lo, double hi, bool unpack)
{
	struct gp_buf b = {0};
	const char *l = c->label, *open, *body, *end;
	char *r;
	bool had = json_object_get(c->params, "act_min") != NULL ||
	    json_object_get(c->params, "act_max") != NULL;
	bool wino = false, packed = false;

	if (l == NULL)
		return (NULL);
	/* head{body}, or head alone */
	open = strchr(l, '{');
	end = l + strlen(l);
	if (open != NULL && end[-1] == '}') {
		body = open + 1;
		end--;
	} else {
		open = body = end;
	}
	/* the tags after the clamp, in the order the rewrites add them */
	if (last_item_is(body, end, "packed")) {
		packed = true;
		end -= strlen("packed") + (end - strlen("packed") > body);
	}
	if (last_item_is(body, end, "wino")) {
		wino = true;
		end -= strlen("wino") + (end - strlen("wino") > body);
	}
	if (had) {	/* drop the last item: the clamp conv_act put there */
		const char *k = end;

		while (k > body && k[-1] != ',')
			k--;
		end = k > body ? k - 1 : body;
	}
	gp_buf_printf(&b, "%.*s{%.*s", (int)(open - l), l, (int)(end - body),
	    body);
	if (end > body && (lo > -INFINITY || hi < INFINITY))
		gp_buf_puts(&b, ",");
	if (lo == 0 && hi == INFINITY)
		gp_buf_puts(&b, "relu");
	else if (lo > -INFINITY || hi < INFINITY)
		gp_buf_printf(&b, "clip[%g,%g]", lo, hi);
	if (wino)
		gp_buf_puts(&b, b.len > (size_t)(open - l) + 1 ? ",wino" :
		    "wino");
	if (packed && !unpack)
		gp_buf_puts(&b, b.len > (size_t)(open - l) + 1 ? ",packed" :
		    "packed");
	if (b.len == (size_t)(open - l) + 1)
		b.len--;	/* nothing in the braces: head alone */
	else
		gp_buf_puts(&b, "}");
	r = gp_xstrdup(gp_buf_str(&b));
	gp_buf_free(&b);
	return (r);
}

/* A new apply of c's op on the nin inputs in, with c's params but
 * act_min/act_max when finite, and without param packed when unpack (in
 * has no P: gemm_pack packs the new weights again).  It keeps c's name
 * and front-end family, and its label (with the clamp). */
static int
clamped_like(struct gp_graph *g, const struct gp_node *c, const int *in,
    int nin, double lo, double hi, bool unpack)
{
	json_t *p = json_deep_copy(c->params);
	int v;
	char *name = c->name ? gp_xstrdup(c->name) : NULL;
	char *family = c->family ? gp_xstrdup(c->family) : NULL;
	char *label = act_label(c, lo, hi, unpack);
	struct gp_node *n;

	json_object_del(p, "act_min");
	json_object_del(p, "act_max");
	if (unpack)
		json_object_del(p, "packed");
	if (lo > -INFINITY)
		json_object_set_new(p, "act_min", json_real(lo));
	if (hi < INFINITY)
		json_object_set_new(p, "act_max", json_real(hi));
	v = gp_rw_apply(g, c->op->name, p, nin, in);
	if (v < 0) {
		free(name);
		free(family);
		free(label);
		return (-1);
	}
	n = &g->nodes[g->vars[v].producer];
	n->name = name;
	n->family = family;
	n->label = label;
	return (v);
}

/* A new conv like c on (X, W, B), clamped to [lo, hi]. */
static int
conv_like(struct gp_graph *g, const struct gp_node *c, int x, int wt, int b,
    double lo, double hi)
{
	int in[3] = {x, wt, b};

	return (clamped_like(g, c, in, b >= 0 ? 3 : 2, lo, hi, true));
}

/* A new constant of type t named after variable `like` and a suffix. */
static int
const_like(struct gp_graph *g, const struct gp_type *t, int like,
    const char *suffix)
{
	int v = gp_graph_add_var(g, NULL, GP_VAR_CONSTANT, t);
	char *name = gp_xasprintf("%s%s", g->vars[like].name, suffix);

	gp_graph_rename_var(g, v, name);
	free(name);
	gp_tensor_alloc(&g->vars[v].value, t->dtype, t->ndim, t->shape);
	return (v);
}

/* Node n (a rewrite's replacement) takes c's name and family, and label
 * (owned) or, when NULL, a copy of c's. */
static void
name_like(struct gp_node *n, const struct gp_node *c, char *label)
{
	n->name = c->name ? gp_xstrdup(c->name) : NULL;
	n->family = c->family ? gp_xstrdup(c->family) : NULL;
	n->label = label != NULL ? label : c->label ? gp_xstrdup(c->label) :
	    NULL;
}

/*
 * bn_fold
 */

static bool
bn_fold(struct cnn *s, int x)
{
	struct gp_graph *g = s->w.g;
	const struct gp_node *n = &g->nodes[x], *c;
	const struct gp_tensor *wt, *cb = NULL, *sc, *be, *mu, *va;
	struct gp_tensor wc = {0};
	const char *src;
	struct gp_type wtype, btype;
	int64_t cout, per;
	double eps, lo, hi;
	struct gp_err err;
	int nw, nb, in0, v;
	char *wd, *bd;
	enum gp_dtype dt;

	if (!gp_rw_is(n, "batch_norm"))
		return (false);
	s->w.ctx->tried++;
	if ((c = plain_conv(s, n->in[0])) == NULL || !is_float(g, n->out[0]) ||
	    !gp_rw_same_type(g, n->in[0], n->out[0]))
		return (false);
	for (int k = 1; k < 5; k++)
		if (!fixed(s, n->in[k]))
			return (false);
	for (int k = 1; k < c->n_in; k++)
		if (!fixed(s, c->in[k]))
			return (false);
	/* a batch_norm that clamps (act_min/act_max the graph gives, or
	 * bn_act's from an earlier pass): the folded conv clamps the same */
	if (gp_op_param_double(n->params, "epsilon", 1e-5, &eps, &err) < 0 ||
	    gp_op_param_double(n->params, "act_min", -INFINITY, &lo,
	    &err) < 0 || gp_op_param_double(n->params, "act_max", INFINITY,
	    &hi, &err) < 0)
		return (false);
	wtype = g->vars[c->in[1]].type;
	dt = wtype.dtype;
	cout = wtype.shape[0];
	per = gp_shape_numel(wtype.ndim - 1, wtype.shape + 1);
	btype = (struct gp_type){.dtype = dt, .ndim = 1, .shape = {cout}};
	in0 = c->in[0];
	nw = const_like(g, &wtype, c->in[1], ".bn_folded");
	nb = const_like(g, &btype, n->in[2], ".bn_folded");
	n = &g->nodes[x];
	c = gp_rw_producer(g, n->in[0]);
	wt = &g->vars[c->in[1]].value;
	if (c->n_in > 2)
		cb = &g->vars[c->in[2]].value;
	sc = &g->vars[n->in[1]].value;
	be = &g->vars[n->in[2]].value;
	mu = &g->vars[n->in[3]].value;
	va = &g->vars[n->in[4]].value;
	wd = gp_tensor_data(&g->vars[nw].value);
	bd = gp_tensor_data(&g->vars[nb].value);
	/* W in one contiguous run (W and W' have the conv's float dtype) */
	if (gp_tensor_is_contiguous(wt))
		gp_tensor_view(&wc, wt);
	else
		gp_tensor_copy(&wc, wt);
	src = gp_tensor_data(&wc);
	/* batch_norm's own a = scale / sqrt(var + eps), in double */
	for (int64_t o = 0; o < cout; o++) {
		double a = gp_tensor_get(sc, o) / sqrt(gp_tensor_get(va, o) +
		    eps);
		double b0 = cb != NULL ? gp_tensor_get(cb, o) : 0;
		int64_t k = o * per;

		if (dt == GP_FLOAT32)
			for (int64_t i = 0; i < per; i++)
				((float *)wd)[k + i] = (float)(((const float *)
				    src)[k + i] * a);
		else
			for (int64_t i = 0; i < per; i++)
				((double *)wd)[k + i] = ((const double *)src)[k +
				    i] * a;
		gp_dtype_store(bd + gp_dtype_size(dt) * (size_t)o, dt,
		    gp_tensor_get(be, o) + (b0 - gp_tensor_get(mu, o)) * a);
	}
	gp_tensor_release(&wc);
	v = conv_like(g, c, in0, nw, nb, lo, hi);
	return (gp_rw_replace_out(&s->w, x, v));
}

/*
 * conv_bias
 */

/* Is b a per-channel bias for y (N, C, ...): C at y's axis 1 once both
 * are right-aligned, every other dimension 1? */
static bool
per_channel(const struct gp_graph *g, int b, int y)
{
	const struct gp_type *bt = &g->vars[b].type, *yt = &g->vars[y].type;
	int lead = yt->ndim - bt->ndim;

	if (lead < 0 || lead > 1 || bt->dtype != yt->dtype)
		return (false);
	for (int d = 0; d < bt->ndim; d++)
		if (bt->shape[d] != (d + lead == 1 ? yt->shape[1] : 1))
			return (false);
	return (true);
}

static bool
conv_bias(struct cnn *s, int x)
{
	struct gp_graph *g = s->w.g;
	const struct gp_node *n = &g->nodes[x], *c = NULL;
	int b = -1, ci = -1, v;
	int64_t cout;

	if (!gp_rw_is(n, "add") || n->n_in != 2)
		return (false);
	s->w.ctx->tried++;
	for (int k = 0; k < 2 && ci < 0; k++)
		if ((c = plain_conv(s, n->in[k])) != NULL && c->n_in == 2 &&
		    per_channel(g, n->in[1 - k], n->in[k]) &&
		    gp_rw_same_type(g, n->in[k], n->out[0])) {
			ci = g->vars[n->in[k]].producer;
			b = n->in[1 - k];
		}
	if (ci < 0)
		return (false);
	cout = g->vars[n->out[0]].type.shape[1];
	v = gp_rw_apply1(g, "reshape", json_pack("{s:[I]}", "shape",
	    (json_int_t)cout), b);
	if (v < 0)
		return (false);
	c = &g->nodes[ci];
	v = conv_like(g, c, c->in[0], c->in[1], v, -INFINITY, INFINITY);
	return (gp_rw_replace_out(&s->w, x, v));
}

/*
 * conv_act, bn_act
 */

/* The apply of op (conv or batch_norm) producing v, read only there,
 * clamped or not: its clamp in *lo, *hi (infinite when none); or NULL. */
static const struct gp_node *
act_producer(const struct cnn *s, int v, const char *op, double *lo,
    double *hi)
{
	const struct gp_node *c = gp_rw_producer_is(s->w.g, v, op);
	struct gp_err err;

	if (c == NULL || !used_once(s, v) ||
	    gp_op_param_double(c->params, "act_min", -INFINITY, lo,
	    &err) < 0 || gp_op_param_double(c->params, "act_max", INFINITY,
	    hi, &err) < 0)
		return (NULL);
	return (c);
}

/* maximum(c, lo), minimum(c, hi) or clip(c, lo, hi) of an apply c of op
 * -> c with act_min, act_max. */
static bool
act_into(struct cnn *s, int x, const char *op)
{
	struct gp_graph *g = s->w.g;
	const struct gp_node *n = &g->nodes[x], *c = NULL;
	double lo = -INFINITY, hi = INFINITY, clo, chi, a;
	bool is_max = gp_rw_is(n, "maximum"), is_min = gp_rw_is(n, "minimum");
	int ci = 0, v;

	if (!is_max && !is_min && !gp_rw_is(n, "clip"))
		return (false);
	if (!is_float(g, n->out[0]))
		return (false);
	s->w.ctx->tried++;
	if (is_max || is_min) {
		if (n->n_in != 2)
			return (false);
		ci = (c = act_producer(s, n->in[0], op, &clo, &chi)) != NULL ?
		    0 : 1;
		if (c == NULL && (c = act_producer(s, n->in[1], op, &clo,
		    &chi)) == NULL)
			return (false);
		if (!gp_rw_const_value(g, n->in[1 - ci], &a) || isnan(a))
			return (false);
		if (is_max)
			lo = a;
		else
			hi = a;
	} else {
		if (n->n_in != 3 || (c = act_producer(s, n->in[0], op, &clo,
		    &chi)) == NULL || !gp_rw_const_value(g, n->in[1], &lo) ||
		    !gp_rw_const_value(g, n->in[2], &hi) || isnan(lo) ||
		    isnan(hi) || lo > hi)
			return (false);
	}
	/* a clamp of a clamp is one clamp to the intersection (Relu then
	 * Clip(0, 6): torch's ReLU6); disjoint ranges stay two applies */
	lo = fmax(lo, clo);
	hi = fmin(hi, chi);
	if (lo > hi || !gp_rw_same_type(g, c->out[0], n->out[0]))
		return (false);
	v = clamped_like(g, c, c->in, c->n_in, lo, hi, false);
	return (gp_rw_replace_out(&s->w, x, v));
}

static bool
conv_act(struct cnn *s, int x)
{
	return (act_into(s, x, "conv"));
}

static bool
bn_act(struct cnn *s, int x)
{
	return (act_into(s, x, "batch_norm"));
}

/*
 * layer_norm_fuse
 */

/* The producer of one of binary node n's inputs when it applies op and
 * is read only there; *other gets the other input. */
static const struct gp_node *
either(const struct cnn *s, const struct gp_node *n, const char *op,
    int *other)
{
	for (int k = 0; k < 2; k++) {
		const struct gp_node *p = gp_rw_producer_is(s->w.g, n->in[k],
		    op);

		if (p != NULL && used_once(s, n->in[k])) {
			*other = n->in[1 - k];
			return (p);
		}
	}
	return (NULL);
}

/* A mean with keepdims over the trailing axes of its input: the first
 * one, or -1. */
static int
trailing_mean(const struct gp_graph *g, const struct gp_node *m)
{
	int nd = gp_graph_in_type(g, m, 0)->ndim, axes[GP_MAX_DIMS], na;
	bool keep;
	struct gp_err err;

	if (gp_op_param_axes(m->params, "axis", nd, true, axes, &na,
	    &err) < 0 || na < 1 || gp_op_param_bool(m->params, "keepdims",
	    false, &keep, &err) < 0 || !keep)
		return (-1);
	for (int k = 0; k < na; k++)
		if (axes[k] != nd - na + k)
			return (-1);
	return (nd - na);
}

/* Is p (Scale or B) of x's shape from axis on, leading 1s aside? */
static bool
ln_param(const struct gp_graph *g, int p, int x, int axis)
{
	const struct gp_type *pt = &g->vars[p].type, *xt = &g->vars[x].type;
	int len = xt->ndim - axis, lead = pt->ndim - len;

	if (pt->dtype != xt->dtype || lead < 0)
		return (false);
	for (int d = 0; d < lead; d++)
		if (pt->shape[d] != 1)
			return (false);
	return (memcmp(pt->shape + lead, xt->shape + axis, sizeof(int64_t) *
	    (size_t)len) == 0);
}

static bool
layer_norm_fuse(struct cnn *s, int x)
{
	struct gp_graph *g = s->w.g;
	const struct gp_node *y = &g->nodes[x], *mul, *dv, *sq, *ad, *var;
	const struct gp_node *pw, *sub, *mean;
	int beta, gamma, epsv, d, xin, axis, v, in[3];
	double eps, two;

	if (!gp_rw_is(y, "add") || y->n_in != 2 || !is_float(g, y->out[0]))
		return (false);
	s->w.ctx->tried++;
	/* y = (d / sqrt(mean(d^2) + eps)) * gamma + beta */
	if ((mul = either(s, y, "mul", &beta)) == NULL || mul->n_in != 2 ||
	    (dv = either(s, mul, "true_div", &gamma)) == NULL)
		return (false);
	d = dv->in[0];
	if ((sq = gp_rw_producer_is(g, dv->in[1], "sqrt")) == NULL ||
	    !used_once(s, dv->in[1]) ||
	    (ad = gp_rw_producer_is(g, sq->in[0], "add")) == NULL ||
	    !used_once(s, sq->in[0]) || ad->n_in != 2 ||
	    (var = either(s, ad, "mean", &epsv)) == NULL ||
	    !gp_rw_const_value(g, epsv, &eps) || !(eps >= 0) ||
	    !gp_rw_same_type(g, ad->out[0], var->out[0]))
		return (false);
	/* the square of d, read only by the mean */
	if ((pw = gp_rw_producer(g, var->in[0])) == NULL ||
	    !used_once(s, var->in[0]) || pw->in[0] != d)
		return (false);
	if (!gp_rw_is(pw, "sqr") && !(gp_rw_is(pw, "pow") &&
	    gp_rw_const_value(g, pw->in[1], &two) && two == 2 &&
	    gp_rw_same_type(g, pw->out[0], d)))
		return (false);
	/* d = x - mean(x), read by the square and the division alone */
	if ((sub = gp_rw_producer_is(g, d, "sub")) == NULL ||
	    (size_t)d >= s->n_uses || s->uses[d] != 2)
		return (false);
	xin = sub->in[0];
	if ((mean = gp_rw_producer_is(g, sub->in[1], "mean")) == NULL ||
	    !used_once(s, sub->in[1]) || mean->in[0] != xin)
		return (false);
	axis = trailing_mean(g, mean);
	if (axis < 0 || trailing_mean(g, var) != axis ||
	    !is_float(g, xin) || !gp_rw_same_type(g, d, xin) ||
	    !gp_rw_same_type(g, dv->out[0], xin) ||
	    !gp_rw_same_type(g, mul->out[0], xin) ||
	    !gp_rw_same_type(g, y->out[0], xin) ||
	    !ln_param(g, gamma, xin, axis) || !ln_param(g, beta, xin, axis))
		return (false);
	in[0] = xin;
	in[1] = gamma;
	in[2] = beta;
	v = gp_rw_apply(g, "layer_norm", json_pack("{s:i,s:f}", "axis", axis,
	    "epsilon", eps), 3, in);
	return (gp_rw_replace_out(&s->w, x, v));
}

/*
 * conv_winograd
 */

/* c's label with ",tag" in its braces (Conv{3x3,p1,wino},
 * Conv{1x1,relu,packed}). */
static char *
tag_label(const struct gp_node *c, const char *tag)
{
	struct gp_buf b = {0};
	size_t n;
	char *r;

	if (c->label == NULL)
		return (NULL);
	n = strlen(c->label);
	if (n > 0 && c->label[n - 1] == '}')
		gp_buf_printf(&b, "%.*s,%s}", (int)(n - 1), c->label, tag);
	else
		gp_buf_printf(&b, "%s{%s}", c->label, tag);
	r = gp_xstrdup(gp_buf_str(&b));
	gp_buf_free(&b);
	return (r);
}

/* Are the n values of float32 t all finite (t contiguous)? */
static bool
all_finite(const struct gp_tensor *t, int64_t n)
{
	const float *d = (const float *)(const void *)gp_tensor_data(t);

	for (int64_t i = 0; i < n; i++)
		if (!isfinite(d[i]))
			return (false);
	return (true);
}

/* W's Winograd transform, for conv c (group groups of og x cg filters),
 * as a new constant (group, 16, og, cg); -1 when W is not contiguous
 * or holds a value that is not finite (conv-wino.c's per-call path then
 * sends such a call to the direct conv). */
static int
wino_weights(struct gp_graph *g, const struct gp_node *c, int64_t group,
    int64_t og, int64_t cg)
{
	const struct gp_tensor *wt = &g->vars[c->in[1]].value;
	int64_t len = gp_conv_wino_weights_len(cg, og);
	struct gp_type ut = {.dtype = GP_FLOAT32, .ndim = 4,
	    .shape = {group, 16, og, cg}};
	int wv = c->in[1], v;
	float *ud;

	if (!gp_tensor_is_contiguous(wt) || !all_finite(wt, group * og * cg *
	    9))
		return (-1);
	v = const_like(g, &ut, wv, ".winograd");
	wt = &g->vars[wv].value;	/* the vars may have moved */
	ud = (float *)(void *)gp_tensor_data(&g->vars[v].value);
	for (int64_t i = 0; i < group; i++)
		(void)gp_conv_wino_weights((const float *)(const void *)
		    gp_tensor_data(wt) +
		    i * og * cg * 9, cg, og, ud + i * len);
	return (v);
}

static bool
conv_winograd(struct cnn *s, int x)
{
	struct gp_graph *g = s->w.g;
	const struct gp_node *c = &g->nodes[x];
	const struct gp_type *xt, *wt;
	struct gp_win win;
	struct gp_err err;
	int64_t group, cg, og;
	bool on, fix;
	int in[4], v, nin;
	json_t *p;

	if (!gp_rw_is(c, "conv") || g->vars[c->out[0]].type.dtype !=
	    GP_FLOAT32 || gp_op_param_bool(c->params, "winograd", false, &on,
	    &err) < 0 || on)
		return (false);
	xt = gp_graph_in_type(g, c, 0);
	wt = gp_graph_in_type(g, c, 1);
	if (xt->ndim != 4 || wt->ndim != 4)
		return (false);
	s->w.ctx->tried++;
	/* the geometry conv's prepare computes, and its choice */
	if (gp_op_param_int(c->params, "group", 1, &group, &err) < 0 ||
	    group < 1 || xt->shape[1] % group != 0 || wt->shape[0] % group !=
	    0 || gp_win_parse(c->params, "conv", 2, wt->shape + 2, false, &win,
	    &err) < 0 || gp_win_output(&win, "conv", xt->shape + 2, &err) < 0 ||
	    !gp_conv_gemm_ok())
		return (false);
	cg = xt->shape[1] / group;
	og = wt->shape[0] / group;
	/* fixed weights (and a bias, so that U is input 3): transformed
	 * now, once, rather than every call; then fewer tiles pay */
	fix = c->n_in == 3 && fixed(s, c->in[1]) && gp_conv_wino_ok(&win, cg,
	    og, true);
	nin = c->n_in;
	for (int i = 0; i < c->n_in; i++)
		in[i] = c->in[i];
	if (fix && (in[3] = wino_weights(g, c, group, og, cg)) >= 0)
		nin = 4;
	else if (!gp_conv_wino_ok(&win, cg, og, false))
		return (false);
	c = &g->nodes[x];
	p = json_deep_copy(c->params);
	json_object_set_new(p, "winograd", json_true());
	v = gp_rw_apply(g, "conv", p, nin, in);
	if (v < 0)
		return (false);
	c = &g->nodes[x];	/* gp_rw_apply may move the nodes */
	name_like(&g->nodes[g->vars[v].producer], c, tag_label(c, "wino"));
	return (gp_rw_replace_out(&s->w, x, v));
}

/*
 * gemm_pack
 */

/* The fixed 2-D float32 matrix Y reads (Y itself, or a transpose of one:
 * ONNX Gemm's transB), as a base var and the strides, in elements, of
 * Y's rows and columns in it; -1 when Y is not such a matrix. */
static int
fixed_matrix(const struct cnn *s, int y, int64_t *rs, int64_t *cs)
{
	const struct gp_graph *g = s->w.g;
	const struct gp_node *t = gp_rw_producer_is(g, y, "transpose");
	int v = t != NULL ? t->in[0] : y;
	const struct gp_tensor *tv = &g->vars[v].value;
	json_t *axes = t != NULL ? json_object_get(t->params, "axes") : NULL;
	int64_t a0, a1;

	if (!fixed(s, v) || tv->dtype != GP_FLOAT32 || tv->ndim != 2)
		return (-1);
	if (axes != NULL && !json_is_null(axes)) {
		/* a 2-d transpose's axes: (1, 0) swaps, (0, 1) does not (or
		 * the same counted from the end) */
		if (json_array_size(axes) != 2)
			return (-1);
		a0 = json_integer_value(json_array_get(axes, 0));
		a1 = json_integer_value(json_array_get(axes, 1));
		a0 += a0 < 0 ? 2 : 0;
		a1 += a1 < 0 ? 2 : 0;
		if (a0 != 1 || a1 != 0)
			return (-1);
	}
	/* the value's strides are in bytes */
	*rs = tv->strides[t != NULL ? 1 : 0] / (int64_t)sizeof(float);
	*cs = tv->strides[t != NULL ? 0 : 1] / (int64_t)sizeof(float);
	return (v);
}

/* A float32 pointwise conv (1x1, strides 1, no pads) of one group, a
 * bias and fixed weights, of few pixels and at least as many output
 * channels (gp_conv_gemm_pwt_pays): W's transpose packed once into input
 * P, param packed (the transposed kernel of ops/conv-gemm.h). */
static bool
conv_pack(struct cnn *s, int x)
{
	struct gp_graph *g = s->w.g;
	const struct gp_node *c = &g->nodes[x];
	const struct gp_type *xt, *wt;
	struct gp_type pt = {.dtype = GP_FLOAT32, .ndim = 1};
	struct gp_win win;
	struct gp_err err;
	int64_t group, cin, cout, k1 = 1;
	bool on, wino;
	int in[4], p;
	json_t *prm;

	if (c->n_in != 3 || g->vars[c->out[0]].type.dtype != GP_FLOAT32 ||
	    gp_op_param_bool(c->params, "packed", false, &on, &err) < 0 || on ||
	    gp_op_param_bool(c->params, "winograd", false, &wino, &err) < 0 ||
	    wino || json_object_get(c->params, "into") != NULL)
		return (false);
	xt = gp_graph_in_type(g, c, 0);
	wt = gp_graph_in_type(g, c, 1);
	if (xt->dtype != GP_FLOAT32 || xt->ndim < 3 || wt->ndim != xt->ndim)
		return (false);
	s->w.ctx->tried++;
	if (gp_op_param_int(c->params, "group", 1, &group, &err) < 0 ||
	    group != 1 || gp_win_parse(c->params, "conv", xt->ndim - 2,
	    wt->shape + 2, false, &win, &err) < 0 || gp_win_output(&win,
	    "conv", xt->shape + 2, &err) < 0)
		return (false);
	for (int d = 0; d < GP_WIN_DIMS; d++)
		if (win.k[d] != 1 || win.s[d] != 1 || win.pb[d] != 0 ||
		    win.pe[d] != 0)
			k1 = 0;
	cin = xt->shape[1];
	cout = wt->shape[0];
	if (!k1 || wt->shape[1] != cin || !gp_conv_gemm_pwt_pays(&win, cin,
	    cout) || !fixed(s, c->in[1]) ||
	    !gp_tensor_is_contiguous(&g->vars[c->in[1]].value))
		return (false);
	pt.shape[0] = gp_conv_gemm_pack_len(cin, cout);
	p = const_like(g, &pt, c->in[1], ".packed");	/* the vars may move */
	c = &g->nodes[x];
	/* W (cout, cin, 1...): element (ci, co) of its transpose at co cin +
	 * ci */
	gp_conv_gemm_pack((const float *)(const void *)gp_tensor_data(
	    &g->vars[c->in[1]].value), 1, cin, cin, cout, (float *)(void *)
	    gp_tensor_data(&g->vars[p].value));
	memcpy(in, c->in, sizeof(int) * 3);
	in[3] = p;
	prm = json_deep_copy(c->params);
	json_object_set_new(prm, "packed", json_true());
	p = gp_rw_apply(g, "conv", prm, 4, in);
	if (p < 0)
		return (false);
	c = &g->nodes[x];	/* gp_rw_apply may move the nodes */
	name_like(&g->nodes[g->vars[p].producer], c, tag_label(c, "packed"));
	return (gp_rw_replace_out(&s->w, x, p));
}

/* The fixed K x N matrix of base var v (strides rs, cs, in elements)
 * packed into a new constant <v>.packed: its var. */
static int
pack_fixed(struct gp_graph *g, int v, int64_t rs, int64_t cs, int64_t k,
    int64_t nc)
{
	struct gp_type pt = {.dtype = GP_FLOAT32, .ndim = 1};
	int p;

	pt.shape[0] = gp_conv_gemm_pack_len(k, nc);
	p = const_like(g, &pt, v, ".packed");	/* the vars may move */
	gp_conv_gemm_pack((const float *)(const void *)gp_tensor_data(
	    &g->vars[v].value), rs, cs, k, nc, (float *)(void *)gp_tensor_data(
	    &g->vars[p].value));
	return (p);
}

/* A float32 matmul (or a dot22: the same product of 2-d operands) of
 * fixed 2-d y, large enough, not packed yet: the same matmul with y
 * packed once (param packed, input P after the bias, if any). */
static bool
matmul_pack(struct cnn *s, int x)
{
	struct gp_graph *g = s->w.g;
	const struct gp_node *n = &g->nodes[x];
	const struct gp_type *xt, *yt;
	struct gp_err err;
	int64_t rs, cs, k, nc, rows;
	bool dot = gp_rw_is(n, "dot22"), on;
	int in[4], v, p;
	json_t *prm;

	if (n->n_in > (dot ? 2 : 3) || g->vars[n->out[0]].type.dtype !=
	    GP_FLOAT32 || (!dot && (gp_op_param_bool(n->params, "packed",
	    false, &on, &err) < 0 || on)))
		return (false);
	xt = gp_graph_in_type(g, n, 0);
	yt = gp_graph_in_type(g, n, 1);
	if (xt->dtype != GP_FLOAT32 || yt->dtype != GP_FLOAT32 ||
	    xt->ndim < 2 || yt->ndim != 2)
		return (false);
	s->w.ctx->tried++;
	k = yt->shape[0];
	nc = yt->shape[1];
	rows = k > 0 ? gp_shape_numel(xt->ndim, xt->shape) / k : 0;
	if (!gp_conv_gemm_ok() || k == 0 || !gp_conv_gemm_mm_pays(rows, nc,
	    k) || (v = fixed_matrix(s, n->in[1], &rs, &cs)) < 0)
		return (false);
	p = pack_fixed(g, v, rs, cs, k, nc);
	n = &g->nodes[x];	/* the vars may have moved */
	memcpy(in, n->in, sizeof(int) * (size_t)n->n_in);
	in[n->n_in] = p;
	prm = dot ? json_object() : json_deep_copy(n->params);
	json_object_set_new(prm, "packed", json_true());
	v = gp_rw_apply(g, "matmul", prm, n->n_in + 1, in);
	if (v < 0)
		return (false);
	/* the node again: gp_rw_apply may move the nodes */
	n = &g->nodes[x];
	name_like(&g->nodes[g->vars[v].producer], n, tag_label(n, "packed"));
	return (gp_rw_replace_out(&s->w, x, v));
}

static bool
gemm_pack(struct cnn *s, int x)
{
	struct gp_graph *g = s->w.g;
	const struct gp_node *n = &g->nodes[x];
	const struct gp_type *xt, *yt;
	int64_t rs, cs, k, nc;
	int in[6], v, p;

	if (gp_rw_is(n, "conv"))
		return (conv_pack(s, x));
	if (gp_rw_is(n, "matmul") || gp_rw_is(n, "dot22"))
		return (matmul_pack(s, x));
	if (!gp_rw_is(n, "gemm") || n->n_in != 5 || g->vars[n->out[0]].type.
	    dtype != GP_FLOAT32)
		return (false);
	xt = gp_graph_in_type(g, n, 2);
	yt = gp_graph_in_type(g, n, 3);
	if (xt->dtype != GP_FLOAT32 || yt->dtype != GP_FLOAT32 ||
	    xt->ndim != 2 || yt->ndim != 2)
		return (false);
	s->w.ctx->tried++;
	/* alpha 1, beta 0 or 1, fixed weights, large enough */
	if (!gp_conv_gemm_ok() || !gp_rw_const_is(g, n->in[1], 1) ||
	    !(gp_rw_const_is(g, n->in[4], 0) || gp_rw_const_is(g, n->in[4],
	    1)) || !gp_conv_gemm_mm_pays(xt->shape[0], yt->shape[1],
	    yt->shape[0]) || (v = fixed_matrix(s, n->in[3], &rs, &cs)) < 0)
		return (false);
	k = yt->shape[0];
	nc = yt->shape[1];
	p = pack_fixed(g, v, rs, cs, k, nc);
	n = &g->nodes[x];	/* the vars may have moved */
	memcpy(in, n->in, sizeof(int) * 5);
	in[5] = p;
	v = gp_rw_apply(g, "gemm", json_deep_copy(n->params), 6, in);
	if (v < 0)
		return (false);
	/* the node again: gp_rw_apply may move the nodes */
	name_like(&g->nodes[g->vars[v].producer], &g->nodes[x], NULL);
	return (gp_rw_replace_out(&s->w, x, v));
}

/*
 * pad_pool
 */

/* Is the pad node p constant zeros on the spatial dimensions alone (the
 * first two, batch and channels, unpadded; no crop)?  *sp gets its
 * spatial pads, the begins then the ends (2 * nsp of them). */
static bool
zero_spatial_pad(const struct gp_graph *g, const struct gp_node *p, int nsp,
    int64_t *sp)
{
	const json_t *pads = json_object_get(p->params, "pads");
	const json_t *mode = json_object_get(p->params, "mode");
	const json_t *val = json_object_get(p->params, "value");
	int nd = nsp + 2;

	if ((mode != NULL && !(json_is_string(mode) && strcmp(
	    json_string_value(mode), "constant") == 0)) ||
	    (val != NULL && !(json_is_number(val) && json_number_value(val) ==
	    0)) || (p->n_in > 1 && !gp_rw_const_is(g, p->in[1], 0)) ||
	    !json_is_array(pads) || json_array_size(pads) != (size_t)(2 * nd))
		return (false);
	for (int i = 0; i < 2 * nd; i++) {
		const json_t *e = json_array_get(pads, (size_t)i);
		int d = i % nd;
		json_int_t v;

		if (!json_is_integer(e))
			return (false);
		v = json_integer_value(e);
		if (v < 0 || (d < 2 && v != 0))
			return (false);
		if (d >= 2)
			sp[(i / nd) * nsp + d - 2] = v;
	}
	return (true);
}

/* average_pool(pad(x) of zeros on the spatial dims): the pool of x with
 * those pads added to its own, counting them (count_include_pad), which
 * is what it computed over the padded copy. */
static bool
pad_pool(struct cnn *s, int x)
{
	struct gp_graph *g = s->w.g;
	const struct gp_node *n = &g->nodes[x], *p;
	const struct gp_type *t;
	int64_t sp[2 * GP_WIN_DIMS], own[2 * GP_WIN_DIMS];
	const json_t *ap = json_object_get(n->params, "auto_pad");
	const json_t *own_pads = json_object_get(n->params, "pads");
	struct gp_err err;
	bool cip, own_zero = true;
	int nsp, v;
	json_t *prm, *pads;

	p = gp_rw_producer_is(g, n->in[0], "pad");
	if (p == NULL || !used_once(s, n->in[0]))
		return (false);
	t = gp_graph_in_type(g, p, 0);
	nsp = t->ndim - 2;
	if (nsp < 1 || nsp > GP_WIN_DIMS)
		return (false);
	s->w.ctx->tried++;
	if (!zero_spatial_pad(g, p, nsp, sp) || (ap != NULL &&
	    !json_is_null(ap) && !(json_is_string(ap) && strcmp(
	    json_string_value(ap), "NOTSET") == 0)) || gp_win_param_flag(
	    n->params, "count_include_pad", false, &cip, &err) < 0)
		return (false);
	for (int i = 0; i < 2 * nsp; i++) {
		const json_t *e = json_is_array(own_pads) ? json_array_get(
		    own_pads, (size_t)i) : NULL;

		own[i] = json_is_integer(e) ? json_integer_value(e) : 0;
		own_zero &= own[i] == 0;
	}
	/* the pool's own pads counted or not, as before: all of them must
	 * count once merged */
	if (!own_zero && !cip)
		return (false);
	pads = json_array();
	for (int i = 0; i < 2 * nsp; i++)
		json_array_append_new(pads, json_integer(own[i] + sp[i]));
	prm = json_deep_copy(n->params);
	json_object_set_new(prm, "pads", pads);
	json_object_set_new(prm, "count_include_pad", json_integer(1));
	v = gp_rw_apply1(g, "average_pool", prm, p->in[0]);
	if (v < 0)
		return (false);
	n = &g->nodes[x];	/* gp_rw_apply1 may move the nodes */
	name_like(&g->nodes[g->vars[v].producer], n, NULL);
	return (gp_rw_replace_out(&s->w, x, v));
}

/*
 * join_into
 */

/* The conv producing v for join_into: read by nothing but the join, not
 * already writing into a tensor; or NULL. */
static const struct gp_node *
join_conv(const struct cnn *s, int v)
{
	const struct gp_node *c = gp_rw_producer_is(s->w.g, v, "conv");

	if (c == NULL || !used_once(s, v) || c->destroy[0] >= 0 ||
	    json_object_get(c->params, "into") != NULL)
		return (NULL);
	return (c);
}

static bool
join_into(struct cnn *s, int x)
{
	struct gp_graph *g = s->w.g;
	const struct gp_node *j = &g->nodes[x];
	const struct gp_type *z = &g->vars[j->out[0]].type;
	int64_t axis, off = 0;
	int in[5], nj = j->n_in, cur;
	int *src;
	struct gp_err err;
	json_t *p;

	if (!gp_rw_is(j, "join") || nj < 2 || z->ndim < 3 || z->shape[0] != 1 ||
	    !is_float(g, j->out[0]) || gp_op_param_int(j->params, "axis", 0,
	    &axis, &err) < 0 || (axis != 1 && axis != 1 - z->ndim))
		return (false);
	for (int k = 0; k < nj; k++)
		if (join_conv(s, j->in[k]) == NULL ||
		    g->vars[j->in[k]].type.dtype != z->dtype)
			return (false);
	s->w.ctx->tried++;
	src = gp_xmalloc(sizeof(int) * (size_t)nj);
	memcpy(src, j->in, sizeof(int) * (size_t)nj);
	p = json_pack("{s:o, s:s}", "shape", gp_rw_shape_json(z), "dtype",
	    gp_dtype_name(z->dtype));
	cur = gp_rw_apply(g, "alloc_empty", p, 0, NULL);
	for (int k = 0; k < nj && cur >= 0; k++) {
		const struct gp_node *c = &g->nodes[g->vars[src[k]].producer];
		struct gp_node *n;
		int m = c->n_in;

		memcpy(in, c->in, sizeof(int) * (size_t)m);
		in[m] = cur;
		p = json_deep_copy(c->params);
		json_object_set_new(p, "into", json_integer(off));
		off += g->vars[src[k]].type.shape[1];
		cur = gp_rw_apply(g, "conv", p, m + 1, in);
		if (cur < 0)
			break;
		/* the producer again: gp_rw_apply may move the nodes */
		c = &g->nodes[g->vars[src[k]].producer];
		n = &g->nodes[g->vars[cur].producer];
		name_like(n, c, NULL);
		/* D is the alloc_empty or the conv before, read only here */
		n->destroy[0] = (int8_t)m;
	}
	free(src);
	return (cur >= 0 && gp_rw_replace_out(&s->w, x, cur));
}

#define CNN(fn, ops_, phase_, tags_, doc_)				\
	static int							\
	run_##fn(struct gp_rewrite_ctx *c, struct gp_err *err)		\
	{								\
		static const char *const ops[] = {ops_, NULL};		\
		struct cnn s;						\
									\
		(void)err;						\
		if (!gp_rw_any(c->g, ops))				\
			return (0);					\
		cnn_begin(&s, c);					\
		for (int i = 0; i < s.w.n_order; i++) {			\
			int x = gp_rw_visit(&s.w, i);			\
									\
			if (x >= 0)					\
				(void)fn(&s, x);			\
		}							\
		return (cnn_end(&s));					\
	}								\
	static const struct gp_rewriter rw_##fn = {			\
		.name = #fn,						\
		.tags = tags_,						\
		.phase = phase_,					\
		.doc = doc_,						\
		.run = run_##fn,					\
	};

/* Four op names for a rewriter's ops_ (one macro argument). */
#define OPS4(a, b, c, d)	a, b, c, d

#define SPEC	GP_PHASE_SPECIALIZE
#define SPEC_TAGS	"fast_run:specialize:cnn"

CNN(bn_fold, "batch_norm", SPEC, SPEC_TAGS, "batch_norm(conv(X, W, B), "
    "...) -> conv(X, W', B') with the folded weights computed once (fixed "
    "weights and statistics)")
CNN(conv_bias, "conv", SPEC, SPEC_TAGS, "conv(X, W) + b, b per output "
    "channel -> conv(X, W, b)")
CNN(conv_act, "conv", SPEC, SPEC_TAGS, "maximum(conv, lo), minimum(conv, "
    "hi), clip(conv, lo, hi) (Relu, Relu6) -> conv with act_min, act_max")
CNN(bn_act, "batch_norm", SPEC, SPEC_TAGS, "maximum(batch_norm, lo), "
    "minimum(batch_norm, hi), clip(batch_norm, lo, hi) (a pre-activation's "
    "Relu) -> batch_norm with act_min, act_max")
CNN(layer_norm_fuse, "mean", SPEC, SPEC_TAGS, "(x - mean(x)) / sqrt(mean("
    "(x - mean(x))^2) + eps) * gamma + beta over trailing axes -> "
    "layer_norm")
CNN(conv_winograd, "conv", SPEC, SPEC_TAGS, "float32 conv 3x3, strides "
    "and dilations 1, enough channels and pixels -> Winograd F(2x2, 3x3): "
    "2.25x fewer multiplies, sums rounded differently")
CNN(gemm_pack, OPS4("gemm", "matmul", "dot22", "conv"), SPEC,
    "fast_run:specialize:gemm", "float32 gemm of fixed Y (weights), alpha "
    "1, beta 0 or 1, large or narrow, matmul or dot22 of fixed 2-d y, or "
    "pointwise conv of few pixels and fixed W -> the same op (a dot22: "
    "matmul) reading the weights packed once (input P) through the conv "
    "kernel's micro-kernel")
CNN(pad_pool, "average_pool", SPEC, SPEC_TAGS, "average_pool(pad(x)) "
    "of zeros on the spatial dimensions -> average_pool(x) with those "
    "pads, counted (count_include_pad): no padded copy")
CNN(join_into, "join", GP_PHASE_INPLACE, "fast_run:inplace:cnn",
    "join(conv, ..., conv) on the channels of one image -> the convs "
    "writing their channels of one alloc_empty in place: no copy")

const struct gp_rewriter *const gp_rewriters_cnn[] = {
	&rw_bn_fold,
	&rw_conv_bias,
	&rw_conv_act,
	&rw_bn_act,
	&rw_layer_norm_fuse,
	&rw_conv_winograd,
	&rw_pad_pool,
	&rw_join_into,
	NULL,
};

/* gemm_pack runs after the matmul rewrites (gp_rewriters_matmul), which
 * take only unpacked matmuls: their bias and alpha are in it by then. */
const struct gp_rewriter *const gp_rewriters_pack[] = {
	&rw_gemm_pack,
	NULL,
};
