/*
 * rewrite/merge.c: merging and constant folding.
 *
 * merge (the merge phase): common-subexpression elimination.  Constants of
 * equal dtype, shape and bytes become one; then two applies of the same op
 * with equal params on the same inputs become one (Theano's
 * MergeOptimizer).  Both go through hash tables, so a pass is linear in
 * the graph.  Ops marked GP_OPF_NONDET or GP_OPF_EXTERN are never merged.
 *
 * constant_folding (first in the canonicalize phase, as in Theano, so the
 * tag "merge" names merge alone): an apply whose inputs are all constants
 * is run once, now, by its own kernel, and its outputs become constants.
 * A whole constant subgraph is evaluated in one pass; only the values
 * something else still reads become constant variables.  Never for
 * GP_OPF_NONDET or GP_OPF_EXTERN ops, and never when the result would be
 * large (more than 64 KiB and more than the inputs together, or a view of
 * more than 64 KiB): an alloc of a big constant shape stays an apply.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph/op.h"
#include "rewrite/rewriters.h"
#include "rewrite/rw.h"

#define FOLD_SMALL	(64 * 1024)

/* Open-addressing table of ints keyed by a 64-bit hash. */
struct htab {
	size_t		 cap;
	uint64_t	*h;
	int		*v;	/* -1: empty */
};

static void
htab_init(struct htab *t, size_t n)
{
	t->cap = 16;
	while (t->cap < 2 * n + 2)
		t->cap *= 2;
	t->h = gp_xmalloc(sizeof(*t->h) * t->cap);
	t->v = gp_xmalloc(sizeof(*t->v) * t->cap);
	for (size_t i = 0; i < t->cap; i++)
		t->v[i] = -1;
}

static void
htab_free(struct htab *t)
{
	free(t->h);
	free(t->v);
}

/* Call eq on every stored value with hash h; returns the first that
 * matches, or inserts v and returns -1. */
static int
htab_find_or_add(struct htab *t, uint64_t h, int v,
    bool (*eq)(void *, int, int), void *ctx)
{
	size_t i = (size_t)(h ^ (h >> 29)) & (t->cap - 1);

	while (t->v[i] >= 0) {
		if (t->h[i] == h && eq(ctx, t->v[i], v))
			return (t->v[i]);
		i = (i + 1) & (t->cap - 1);
	}
	t->h[i] = h;
	t->v[i] = v;
	return (-1);
}

/*
 * merge
 */

static bool
const_bytes(const struct gp_var *var, const char **p, size_t *n)
{
	const struct gp_tensor *t = &var->value;

	if (t->storage == NULL || !gp_tensor_is_contiguous(t))
		return (false);
	*p = gp_tensor_data(t);
	*n = gp_tensor_nbytes(t);
	return (true);
}

static bool
const_eq(void *ctx, int a, int b)
{
	const struct gp_graph *g = ctx;
	const char *pa, *pb;
	size_t na, nb;

	if (!gp_rw_same_type(g, a, b))
		return (false);
	if (!const_bytes(&g->vars[a], &pa, &na) ||
	    !const_bytes(&g->vars[b], &pb, &nb) || na != nb)
		return (false);
	return (memcmp(pa, pb, na) == 0);
}

static int
merge_constants(struct gp_rw *w)
{
	struct gp_graph *g = w->g;
	bool *used = gp_xcalloc(g->n_vars + 1, 1);
	struct htab t;
	size_t n = 0;
	int merged = 0;

	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gp_node *nd = &g->nodes[i];

		if (nd->dead)
			continue;
		for (int k = 0; k < nd->n_in; k++)
			used[nd->in[k]] = true;
	}
	for (size_t f = 0; f < g->n_fns; f++) {
		for (int k = 0; k < g->fns[f].n_out; k++)
			used[g->fns[f].out[k]] = true;
		for (int k = 0; k < g->fns[f].n_upd; k++)
			used[g->fns[f].upd[k].src] = true;
	}
	for (size_t v = 0; v < g->n_vars; v++)
		if (used[v] && g->vars[v].kind == GP_VAR_CONSTANT)
			n++;
	htab_init(&t, n);
	for (size_t v = 0; v < g->n_vars; v++) {
		const struct gp_var *var = &g->vars[v];
		const char *p;
		size_t nb;
		uint64_t h;
		int prev;

		if (!used[v] || var->kind != GP_VAR_CONSTANT ||
		    !const_bytes(var, &p, &nb))
			continue;
		h = gp_hash_bytes(GP_HASH_INIT, &var->type.dtype,
		    sizeof(var->type.dtype));
		h = gp_hash_bytes(h, var->type.shape,
		    sizeof(int64_t) * (size_t)var->type.ndim);
		h = gp_hash_bytes(h, p, nb);
		w->ctx->tried++;
		prev = htab_find_or_add(&t, h, (int)v, const_eq, g);
		if (prev >= 0) {
			gp_rw_replace(w, (int)v, prev);
			merged++;
		}
	}
	htab_free(&t);
	free(used);
	return (merged);
}

static bool
node_eq(void *ctx, int a, int b)
{
	const struct gp_graph *g = ctx;
	const struct gp_node *x = &g->nodes[a], *y = &g->nodes[b];

	if (x->op != y->op || x->n_in != y->n_in || x->n_out != y->n_out)
		return (false);
	for (int k = 0; k < x->n_in; k++)
		if (x->in[k] != y->in[k])
			return (false);
	return (json_equal(x->params, y->params));
}

static uint64_t
node_hash(const struct gp_node *n)
{
	uint64_t h = gp_hash_bytes(GP_HASH_INIT, &n->op, sizeof(n->op));

	h = gp_hash_bytes(h, n->in, sizeof(int) * (size_t)n->n_in);
	h = gp_hash_bytes(h, &n->n_out, sizeof(n->n_out));
	if (json_object_size(n->params) > 0) {
		char *s = json_dumps(n->params, JSON_COMPACT | JSON_SORT_KEYS);

		if (s != NULL) {
			h = gp_hash_bytes(h, s, strlen(s));
			free(s);
		}
	}
	return (h);
}

static int
run_merge(struct gp_rewrite_ctx *c, struct gp_err *err)
{
	struct gp_rw w;
	struct htab t;

	gp_rw_begin(&w, c);
	merge_constants(&w);
	htab_init(&t, (size_t)w.n_order);
	for (int i = 0; i < w.n_order; i++) {
		int x = gp_rw_visit(&w, i), prev;
		struct gp_node *n;

		if (x < 0)
			continue;
		n = &c->g->nodes[x];
		if (n->op->flags & (GP_OPF_NONDET | GP_OPF_EXTERN))
			continue;
		c->tried++;
		prev = htab_find_or_add(&t, node_hash(n), x, node_eq, c->g);
		if (prev < 0)
			continue;
		for (int k = 0; k < n->n_out; k++)
			gp_rw_replace(&w, n->out[k], c->g->nodes[prev].out[k]);
		n->dead = true;
	}
	htab_free(&t);
	return (gp_rw_end(&w));
}

/*
 * constant_folding
 */

struct fold {
	struct gp_tensor	*val;	/* per variable at the start */
	bool			*has;
	size_t			 n;
};

static bool
fold_input(const struct gp_graph *g, const struct fold *f, int v,
    struct gp_tensor **t)
{
	if ((size_t)v < f->n && f->has[v]) {
		*t = &f->val[v];
		return (true);
	}
	if (g->vars[v].kind == GP_VAR_CONSTANT &&
	    g->vars[v].value.storage != NULL) {
		*t = &g->vars[v].value;
		return (true);
	}
	return (false);
}

/* Evaluate node x if every input is known; returns whether it was. */
static bool
fold_node(struct gp_graph *g, struct fold *f, int x)
{
	const struct gp_node *n = &g->nodes[x];
	struct gp_tensor *in[64], *out[GP_MAX_OUT], ot[GP_MAX_OUT];
	size_t in_bytes = 0;

	if ((n->op->flags & (GP_OPF_NONDET | GP_OPF_EXTERN)) ||
	    n->kernel == NULL || n->n_in > 64 || n->n_out > GP_MAX_OUT)
		return (false);
	for (int k = 0; k < n->n_out; k++)
		if (n->destroy[k] >= 0 || (size_t)n->out[k] >= f->n)
			return (false);
	for (int k = 0; k < n->n_in; k++) {
		if (!fold_input(g, f, n->in[k], &in[k]))
			return (false);
		in_bytes += gp_type_nbytes(&g->vars[n->in[k]].type);
	}
	for (int k = 0; k < n->n_out; k++) {
		size_t b = gp_type_nbytes(&g->vars[n->out[k]].type);

		if (b > FOLD_SMALL && (n->view[k] >= 0 || b > in_bytes))
			return (false);
	}
	memset(ot, 0, sizeof(ot));
	for (int k = 0; k < n->n_out; k++) {
		const struct gp_type *t = &g->vars[n->out[k]].type;

		if (n->view[k] < 0)
			gp_tensor_alloc(&ot[k], t->dtype, t->ndim, t->shape);
		out[k] = &ot[k];
	}
	n->kernel(n, in, out);
	gp_alloc_work_end();	/* its work space (ops/scratch.h) */
	for (int k = 0; k < n->n_out; k++) {
		int v = n->out[k];

		/* a constant owns its bytes, contiguously */
		gp_tensor_copy(&f->val[v], &ot[k]);
		gp_tensor_release(&ot[k]);
		f->has[v] = true;
	}
	return (true);
}

static void
materialize(struct gp_rw *w, struct fold *f, int *made, int v)
{
	struct gp_graph *g = w->g;
	struct gp_type t;
	int c;

	if ((size_t)v >= f->n || !f->has[v])
		return;
	if (made[v] < 0) {
		t = g->vars[v].type;
		c = gp_graph_add_var(g, NULL, GP_VAR_CONSTANT, &t);
		g->vars[c].value = f->val[v];
		memset(&f->val[v], 0, sizeof(f->val[v]));
		made[v] = c;
		gp_rw_replace(w, v, c);
	}
}

static int
run_constant_folding(struct gp_rewrite_ctx *c, struct gp_err *err)
{
	struct gp_graph *g = c->g;
	struct gp_rw w;
	struct fold f;
	bool *folded;
	int *made;
	size_t nn;

	/* anything to fold: a live node reading constants only */
	{
		bool any = false;

		for (size_t i = 0; i < g->n_nodes && !any; i++) {
			const struct gp_node *n = &g->nodes[i];

			if (n->dead)
				continue;
			any = true;
			for (int k = 0; k < n->n_in && any; k++)
				any = g->vars[n->in[k]].kind ==
				    GP_VAR_CONSTANT;
		}
		if (!any)
			return (0);
	}
	gp_rw_begin(&w, c);
	f.n = g->n_vars;
	f.val = gp_xcalloc(f.n + 1, sizeof(*f.val));
	f.has = gp_xcalloc(f.n + 1, 1);
	nn = g->n_nodes;
	folded = gp_xcalloc(nn + 1, 1);
	for (int i = 0; i < w.n_order; i++) {
		int x = gp_rw_visit(&w, i);

		if (x < 0)
			continue;
		c->tried++;
		folded[x] = fold_node(g, &f, x);
	}
	/* the values read by what stays, or by the functions, become
	 * constants */
	made = gp_xmalloc(sizeof(int) * (f.n + 1));
	for (size_t v = 0; v < f.n; v++)
		made[v] = -1;
	for (size_t i = 0; i < nn; i++) {
		const struct gp_node *n = &g->nodes[i];

		if (n->dead || folded[i])
			continue;
		for (int k = 0; k < g->nodes[i].n_in; k++)
			materialize(&w, &f, made, g->nodes[i].in[k]);
	}
	for (size_t fi = 0; fi < g->n_fns; fi++) {
		for (int k = 0; k < g->fns[fi].n_out; k++)
			materialize(&w, &f, made, g->fns[fi].out[k]);
		for (int k = 0; k < g->fns[fi].n_upd; k++)
			materialize(&w, &f, made, g->fns[fi].upd[k].src);
	}
	for (size_t v = 0; v < f.n; v++)
		gp_tensor_release(&f.val[v]);
	free(f.val);
	free(f.has);
	free(folded);
	free(made);
	return (gp_rw_end(&w));
}

static const struct gp_rewriter rw_merge = {
	.name = "merge",
	.tags = "fast_run:fast_compile:merge",
	.phase = GP_PHASE_MERGE,
	.doc = "one apply for identical applies (same op, params and "
	    "inputs) and one constant for equal constants",
	.run = run_merge,
};

static const struct gp_rewriter rw_constant_folding = {
	.name = "constant_folding",
	.tags = "fast_run:fast_compile:canonicalize:constant_folding",
	.phase = GP_PHASE_CANONICALIZE,
	.doc = "applies whose inputs are all constants are computed once, "
	    "at compile time, and become constants",
	.run = run_constant_folding,
};

const struct gp_rewriter *const gp_rewriters_merge[] = {
	&rw_merge,
	&rw_constant_folding,
	NULL,
};
