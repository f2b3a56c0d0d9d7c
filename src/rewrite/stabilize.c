/*
 * rewrite/stabilize.c: the stabilize phase: expressions that lose
 * precision or overflow in floating point become equivalent stable ones
 * (Theano's stabilize rewrites).
 *
 *   log_sigmoid      log(sigmoid(x))     -> -softplus(-x)
 *   log1m_sigmoid    log(1 - sigmoid(x)) -> -softplus(x)
 *   log_softmax      log(softmax(x))     -> log_softmax(x)
 *   log1p            log(1 + x)          -> log1p(x)   (x float)
 *
 * As in canonicalize, a replacement must have exactly the type of the
 * expression it replaces; otherwise the graph is left as it was.
 */
#include "config.h"

#include <stdlib.h>

#include "graph/op.h"
#include "rewrite/rewriters.h"
#include "rewrite/rw.h"

/* Every stabilizer starts from a log. */
static const char *const logs[] = {"log", NULL};

/* The input of a log node, or -1 when x is not one. */
static int
log_arg(struct gp_rw *w, int x)
{
	const struct gp_node *n = &w->g->nodes[x];

	if (!gp_rw_is(n, "log"))
		return (-1);
	w->ctx->tried++;
	return (n->in[0]);
}

static bool
s_log_sigmoid(struct gp_rw *w, int x)
{
	struct gp_graph *g = w->g;
	const struct gp_node *s;
	int a = log_arg(w, x), v;

	if (a < 0 || (s = gp_rw_producer_is(g, a, "sigmoid")) == NULL)
		return (false);
	v = gp_rw_apply1(g, "neg", NULL, s->in[0]);
	if (v >= 0)
		v = gp_rw_apply1(g, "softplus", NULL, v);
	if (v >= 0)
		v = gp_rw_apply1(g, "neg", NULL, v);
	return (gp_rw_replace_out(w, x, v));
}

static bool
s_log1m_sigmoid(struct gp_rw *w, int x)
{
	struct gp_graph *g = w->g;
	const struct gp_node *d, *s;
	int a = log_arg(w, x), v;

	if (a < 0 || (d = gp_rw_producer_is(g, a, "sub")) == NULL ||
	    !gp_rw_const_is(g, d->in[0], 1) ||
	    (s = gp_rw_producer_is(g, d->in[1], "sigmoid")) == NULL)
		return (false);
	/* 1 - sigmoid(x) must not broadcast beyond sigmoid(x) */
	if (!gp_rw_same_type(g, d->out[0], s->out[0]))
		return (false);
	v = gp_rw_apply1(g, "softplus", NULL, s->in[0]);
	if (v >= 0)
		v = gp_rw_apply1(g, "neg", NULL, v);
	return (gp_rw_replace_out(w, x, v));
}

static bool
s_log_softmax(struct gp_rw *w, int x)
{
	struct gp_graph *g = w->g;
	const struct gp_node *s;
	int a = log_arg(w, x), v;

	if (a < 0 || (s = gp_rw_producer_is(g, a, "softmax")) == NULL)
		return (false);
	v = gp_rw_apply1(g, "log_softmax", json_deep_copy(s->params),
	    s->in[0]);
	return (gp_rw_replace_out(w, x, v));
}

static bool
s_log1p(struct gp_rw *w, int x)
{
	struct gp_graph *g = w->g;
	const struct gp_node *d;
	int a = log_arg(w, x), y;

	if (a < 0 || (d = gp_rw_producer_is(g, a, "add")) == NULL ||
	    d->n_in != 2)
		return (false);
	if (gp_rw_const_is(g, d->in[0], 1))
		y = d->in[1];
	else if (gp_rw_const_is(g, d->in[1], 1))
		y = d->in[0];
	else
		return (false);
	/* a float x of the sum's own type: no promotion, no wrapping */
	if (!gp_dtype_is_float(g->vars[y].type.dtype) ||
	    !gp_rw_same_type(g, y, d->out[0]))
		return (false);
	return (gp_rw_replace_out(w, x, gp_rw_apply1(g, "log1p", NULL, y)));
}

#define STAB(fn, doc_)							\
	static int							\
	run_##fn(struct gp_rewrite_ctx *c, struct gp_err *err)		\
	{								\
		return (gp_rw_each_node(c, s_##fn, logs));				\
	}								\
	static const struct gp_rewriter rw_##fn = {			\
		.name = #fn,						\
		.tags = "fast_run:stabilize",				\
		.phase = GP_PHASE_STABILIZE,				\
		.doc = doc_,						\
		.run = run_##fn,					\
	};

STAB(log_sigmoid, "log(sigmoid(x)) -> -softplus(-x)")
STAB(log1m_sigmoid, "log(1 - sigmoid(x)) -> -softplus(x)")
STAB(log_softmax, "log(softmax(x)) -> log_softmax(x)")
STAB(log1p, "log(1 + x) -> log1p(x) for a float x")

const struct gp_rewriter *const gp_rewriters_stabilize[] = {
	&rw_log_sigmoid,
	&rw_log1m_sigmoid,
	&rw_log_softmax,
	&rw_log1p,
	NULL,
};
