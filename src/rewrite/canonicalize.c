/*
 * rewrite/canonicalize.c: the canonicalize phase: applies that compute
 * nothing are removed, and pairs that undo or repeat each other become one.
 *
 *   mul_one             x * 1 -> x (n-ary mul: the ones are dropped)
 *   add_zero            x + 0 -> x (n-ary add: the zeros are dropped)
 *   sub_zero            x - 0 -> x
 *   div_one             x / 1 -> x
 *   neg_neg             -(-x) -> x
 *   useless_dimshuffle  an identity dimshuffle or transpose -> x; two in a
 *                       row -> one (or x, when they cancel)
 *   useless_reshape     reshape or flatten to x's own shape -> x; two in a
 *                       row -> one reshape
 *   useless_cast        cast to x's own dtype -> x
 *   useless_identity    identity(x) -> x; fill(a, b) of b's own type -> b
 *   useless_pad         a pad of 0 on every side -> x (torch exports one
 *                       before each of DenseNet's AveragePools)
 *
 * A replacement is made only when it has exactly the type (dtype and shape)
 * of what it replaces: x * 1.0 of an int32 x is float64 and stays.  The
 * constants recognised are constants whose every element is the value
 * (numpy broadcasting of a 0-d 1, or of ones(...) when x already has the
 * result's shape).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph/op.h"
#include "rewrite/rewriters.h"
#include "rewrite/rw.h"

/*
 * An n-ary add or mul without its neutral elements.
 */
static bool
drop_neutral(struct gp_rw *w, int x, const char *op, double neutral)
{
	struct gp_graph *g = w->g;
	const struct gp_node *n = &g->nodes[x];
	int keep[64], nk = 0, nin = n->n_in, v;

	if (!gp_rw_is(n, op) || nin > 64)
		return (false);
	w->ctx->tried++;
	for (int k = 0; k < nin; k++)
		if (!gp_rw_const_is(g, n->in[k], neutral))
			keep[nk++] = n->in[k];
	if (nk == nin || nk == 0)
		return (false);
	if (nk == 1)
		return (gp_rw_replace_out(w, x, keep[0]));
	v = gp_rw_apply(g, op, NULL, nk, keep);
	return (gp_rw_replace_out(w, x, v));
}

static bool
mul_one(struct gp_rw *w, int x)
{
	return (drop_neutral(w, x, "mul", 1));
}

static bool
add_zero(struct gp_rw *w, int x)
{
	return (drop_neutral(w, x, "add", 0));
}

/* op(x, c) -> x for a constant c of the given value. */
static bool
right_neutral(struct gp_rw *w, int x, const char *op, double c)
{
	const struct gp_node *n = &w->g->nodes[x];

	if (!gp_rw_is(n, op) || n->n_in != 2)
		return (false);
	w->ctx->tried++;
	if (!gp_rw_const_is(w->g, n->in[1], c))
		return (false);
	return (gp_rw_replace_out(w, x, n->in[0]));
}

static bool
sub_zero(struct gp_rw *w, int x)
{
	return (right_neutral(w, x, "sub", 0));
}

static bool
div_one(struct gp_rw *w, int x)
{
	return (right_neutral(w, x, "true_div", 1));
}

static bool
neg_neg(struct gp_rw *w, int x)
{
	const struct gp_node *n = &w->g->nodes[x], *p;

	if (!gp_rw_is(n, "neg"))
		return (false);
	w->ctx->tried++;
	if ((p = gp_rw_producer_is(w->g, n->in[0], "neg")) == NULL)
		return (false);
	return (gp_rw_replace_out(w, x, p->in[0]));
}

/*
 * dimshuffle and transpose
 */

/* The pattern of a dimshuffle or transpose node: output dimension k is
 * input dimension pat[k], or a new broadcastable one (-1). */
static bool
ds_pattern(const struct gp_graph *g, const struct gp_node *n, int *pat,
    int *np, bool *is_transpose)
{
	int nd = gp_graph_in_type(g, n, 0)->ndim;
	json_t *v, *e;
	size_t i;

	*is_transpose = gp_rw_is(n, "transpose");
	if (*is_transpose) {
		v = json_object_get(n->params, "axes");
		*np = nd;
		if (v == NULL || json_is_null(v)) {
			for (int d = 0; d < nd; d++)
				pat[d] = nd - 1 - d;
			return (true);
		}
		if (!json_is_array(v) || json_array_size(v) != (size_t)nd)
			return (false);
		json_array_foreach(v, i, e) {
			json_int_t d = json_integer_value(e);

			pat[i] = (int)(d < 0 ? d + nd : d);
		}
		return (true);
	}
	if (!gp_rw_is(n, "dimshuffle"))
		return (false);
	v = json_object_get(n->params, "pattern");
	if (!json_is_array(v) || json_array_size(v) > GP_MAX_DIMS)
		return (false);
	*np = 0;
	json_array_foreach(v, i, e)
		pat[(*np)++] = json_is_integer(e) ? (int)json_integer_value(e) :
		    -1;
	return (true);
}

static bool
is_identity(const int *pat, int np, int nd)
{
	if (np != nd)
		return (false);
	for (int k = 0; k < np; k++)
		if (pat[k] != k)
			return (false);
	return (true);
}

static bool
useless_dimshuffle(struct gp_rw *w, int x)
{
	struct gp_graph *g = w->g;
	const struct gp_node *n = &g->nodes[x], *p;
	int pat[GP_MAX_DIMS], ppat[GP_MAX_DIMS], q[GP_MAX_DIMS], np, npp;
	int src, v;
	bool tr, ptr;
	json_t *arr;

	if (!ds_pattern(g, n, pat, &np, &tr))
		return (false);
	w->ctx->tried++;
	if (is_identity(pat, np, gp_graph_in_type(g, n, 0)->ndim))
		return (gp_rw_replace_out(w, x, n->in[0]));
	p = gp_rw_producer(g, n->in[0]);
	if (p == NULL || !ds_pattern(g, p, ppat, &npp, &ptr))
		return (false);
	src = p->in[0];
	for (int k = 0; k < np; k++)
		q[k] = pat[k] < 0 ? -1 : ppat[pat[k]];
	if (is_identity(q, np, g->vars[src].type.ndim))
		return (gp_rw_replace_out(w, x, src));
	arr = json_array();
	for (int k = 0; k < np; k++)
		json_array_append_new(arr, q[k] < 0 ? json_string("x") :
		    json_integer(q[k]));
	if (tr && ptr)
		v = gp_rw_apply1(g, "transpose", json_pack("{s:o}", "axes",
		    arr), src);
	else
		v = gp_rw_apply1(g, "dimshuffle", json_pack("{s:o}",
		    "pattern", arr), src);
	return (gp_rw_replace_out(w, x, v));
}

static bool
is_reshape(const struct gp_node *n)
{
	return (gp_rw_is(n, "reshape") || gp_rw_is(n, "flatten"));
}

static bool
useless_reshape(struct gp_rw *w, int x)
{
	struct gp_graph *g = w->g;
	const struct gp_node *n = &g->nodes[x], *p;
	const struct gp_type *t;
	json_t *shape;
	int v;

	if (!is_reshape(n))
		return (false);
	w->ctx->tried++;
	if (gp_rw_same_type(g, n->out[0], n->in[0]))
		return (gp_rw_replace_out(w, x, n->in[0]));
	p = gp_rw_producer(g, n->in[0]);
	if (p == NULL || !is_reshape(p))
		return (false);
	t = &g->vars[n->out[0]].type;
	shape = gp_rw_shape_json(t);
	if (gp_rw_same_type(g, n->out[0], p->in[0])) {
		json_decref(shape);
		return (gp_rw_replace_out(w, x, p->in[0]));
	}
	v = gp_rw_apply1(g, "reshape", json_pack("{s:o}", "shape", shape),
	    p->in[0]);
	return (gp_rw_replace_out(w, x, v));
}

static bool
useless_cast(struct gp_rw *w, int x)
{
	const struct gp_node *n = &w->g->nodes[x];

	if (!gp_rw_is(n, "cast"))
		return (false);
	w->ctx->tried++;
	return (gp_rw_replace_out(w, x, n->in[0]));
}

static bool
useless_identity(struct gp_rw *w, int x)
{
	const struct gp_node *n = &w->g->nodes[x];

	if (gp_rw_is(n, "identity")) {
		w->ctx->tried++;
		return (gp_rw_replace_out(w, x, n->in[0]));
	}
	if ((gp_rw_is(n, "fill") || gp_rw_is(n, "second")) && n->n_in == 2) {
		w->ctx->tried++;
		return (gp_rw_replace_out(w, x, n->in[1]));
	}
	return (false);
}

static bool
useless_pad(struct gp_rw *w, int x)
{
	const struct gp_node *n = &w->g->nodes[x];
	const json_t *pads, *e;
	size_t i;

	if (!gp_rw_is(n, "pad"))
		return (false);
	w->ctx->tried++;
	pads = json_object_get(n->params, "pads");
	if (!json_is_array(pads))
		return (false);
	json_array_foreach(pads, i, e)
		if (!json_is_integer(e) || json_integer_value(e) != 0)
			return (false);
	return (gp_rw_replace_out(w, x, n->in[0]));
}

#define CANON(fn, doc_, ...)						\
	static int							\
	run_##fn(struct gp_rewrite_ctx *c, struct gp_err *err)		\
	{								\
		static const char *const ops[] = {__VA_ARGS__, NULL};	\
									\
		return (gp_rw_each_node(c, fn, ops));				\
	}								\
	static const struct gp_rewriter rw_##fn = {			\
		.name = #fn,						\
		.tags = "fast_run:canonicalize",			\
		.phase = GP_PHASE_CANONICALIZE,				\
		.doc = doc_,						\
		.run = run_##fn,					\
	};

CANON(mul_one, "x * 1 -> x; the ones of an n-ary mul are dropped", "mul")
CANON(add_zero, "x + 0 -> x; the zeros of an n-ary add are dropped", "add")
CANON(sub_zero, "x - 0 -> x", "sub")
CANON(div_one, "x / 1 -> x", "true_div")
CANON(neg_neg, "-(-x) -> x", "neg")
CANON(useless_dimshuffle, "an identity dimshuffle or transpose -> x; "
    "two in a row -> one, or x when they cancel", "dimshuffle", "transpose")
CANON(useless_reshape, "reshape or flatten to x's own shape -> x; two in "
    "a row -> one reshape", "reshape", "flatten")
CANON(useless_cast, "cast to x's own dtype -> x", "cast")
CANON(useless_identity, "identity(x) -> x; fill(a, b) of b's own type -> b",
    "identity", "fill", "second")
CANON(useless_pad, "pad of 0 on every side -> x", "pad")

const struct gp_rewriter *const gp_rewriters_canonicalize[] = {
	&rw_mul_one,
	&rw_add_zero,
	&rw_sub_zero,
	&rw_div_one,
	&rw_neg_neg,
	&rw_useless_dimshuffle,
	&rw_useless_reshape,
	&rw_useless_cast,
	&rw_useless_identity,
	&rw_useless_pad,
	NULL,
};
