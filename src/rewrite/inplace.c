/*
 * rewrite/inplace.c: the inplace phase: an apply's output overwrites one
 * of its inputs instead of taking new memory (node->destroy[0] = j, shown
 * as Theano's "[(0, j)]" after the op name).
 *
 *   inplace_elemwise  an elementwise apply (Composites too) overwrites an
 *                     input of its output's dtype and shape
 *   inplace_blas      gemm, gemv and ger overwrite Z, y, A (input 0);
 *                     also a shared variable they compute the update of
 *                     (may_destroy_shared below)
 *
 * An input v may be overwritten only when nothing else can see it:
 *   - every read of v is by this apply (elementwise: at any slot, the
 *     element is read before it is written; BLAS: at slot 0 only);
 *   - v is no function output or update source, of any function;
 *   - the storage v lives in is a temporary: following v up through views
 *     (view_map) and earlier in-place outputs (destroy_map), each variable
 *     on the way is read once (by the next one's producer) and escapes no
 *     function, and the top one is computed by an apply: not a graph
 *     input, shared variable or constant.
 * So a second reader of the same memory, through any alias at any depth,
 * always shows as a variable on that chain with two readers.  The chain
 * checks are memoised, so a pass stays linear.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph/op.h"
#include "rewrite/rewriters.h"
#include "rewrite/rw.h"

struct inplace {
	struct gp_graph	*g;
	struct gp_rw_uses	 uses;
	bool		*escapes;
	int8_t		*up;	/* per var: 0 unknown, 1 ok, -1 not */
};

/* The variable v aliases (views or overwrites), or -1. */
static int
alias_parent(const struct gp_graph *g, int v)
{
	int p = g->vars[v].producer, k = g->vars[v].producer_out;
	const struct gp_node *n;

	if (p < 0 || g->nodes[p].dead)
		return (-1);
	n = &g->nodes[p];
	if (n->view[k] >= 0)
		return (n->in[n->view[k]]);
	if (n->destroy[k] >= 0)
		return (n->in[n->destroy[k]]);
	return (-1);
}

/* Is the memory above v (v excluded) private to v's chain? */
static bool
up_ok(struct inplace *ip, int v)
{
	const struct gp_graph *g = ip->g;
	int path[256], np = 0, a = v;
	bool ok;

	/* walk up to a known answer or the root, then fill the memo */
	for (;;) {
		int u;

		if (ip->up[a] != 0) {
			ok = ip->up[a] > 0;
			break;
		}
		if (np == 256) {
			ok = false;
			break;
		}
		path[np++] = a;
		u = alias_parent(g, a);
		if (u < 0) {
			ok = g->vars[a].kind == GP_VAR_TEMP;
			break;
		}
		if (gp_rw_uses_count(&ip->uses, u) != 1 || ip->escapes[u]) {
			ok = false;
			break;
		}
		a = u;
	}
	while (np > 0)
		ip->up[path[--np]] = ok ? 1 : -1;
	return (ok);
}

/* May node x overwrite its input at slot j? */
static bool
may_destroy(struct inplace *ip, int x, int j, bool any_slot)
{
	const struct gp_graph *g = ip->g;
	const struct gp_node *n = &g->nodes[x];
	int v = n->in[j];

	if (!gp_type_equal(&g->vars[v].type, &g->vars[n->out[0]].type) ||
	    ip->escapes[v])
		return (false);
	for (int u = ip->uses.start[v]; u < ip->uses.start[v + 1]; u++)
		if (ip->uses.node[u] != x || (!any_slot &&
		    ip->uses.slot[u] != j))
			return (false);
	return (up_ok(ip, v));
}

/* Mark in desc[] every live node that reads x's outputs, at any depth. */
static void
mark_descendants(const struct inplace *ip, int x, uint8_t *desc)
{
	const struct gp_graph *g = ip->g;
	int *stack = gp_xmalloc(sizeof(int) * (g->n_nodes + 1));
	int sp = 0;

	stack[sp++] = x;
	while (sp > 0) {
		const struct gp_node *n = &g->nodes[stack[--sp]];

		for (int k = 0; k < n->n_out; k++) {
			int v = n->out[k];

			for (int u = ip->uses.start[v]; u < ip->uses.start[v + 1];
			    u++) {
				int r = ip->uses.node[u];

				if (!desc[r]) {
					desc[r] = 1;
					stack[sp++] = r;
				}
			}
		}
	}
	free(stack);
}

/* Does function fi run node x? */
static bool
runs(const struct gp_graph *g, int fi, int x)
{
	int *order, n = gp_graph_schedule(g, fi, &order);
	bool found = false;

	for (int i = 0; i < n && !found; i++)
		found = order[i] == x;
	free(order);
	return (found);
}

/*
 * May BLAS node x overwrite shared variable v, its input j, as Theano's
 * Gemm{inplace} does for a weight's update W <- W - lr * dot(a, b)?  Only
 * when the overwrite is the update itself:
 *   - in every function that runs x, x's output is v's new value (and in
 *     none is it an output, or v, or a view of v, an output or update
 *     source: escapes);
 *   - no other apply that reads v's memory (v, or a view of v at any
 *     depth) depends on x, so the scheduler can run them all first (it
 *     does: gp_graph_schedule's order edges); x itself reads that memory
 *     only at slot j.
 * The old value then has no reader after x but the update, which takes
 * x's output.  Functions that do not run x see v between calls only.
 */
static bool
may_destroy_shared(struct inplace *ip, int x, int j)
{
	const struct gp_graph *g = ip->g;
	const struct gp_node *n = &g->nodes[x];
	int v = n->in[j], out = n->out[0];
	bool updated = false, ok = true;
	uint8_t *desc;

	if (g->vars[v].kind != GP_VAR_SHARED || ip->escapes[v] ||
	    !gp_type_equal(&g->vars[v].type, &g->vars[out].type))
		return (false);
	for (size_t fi = 0; fi < g->n_fns; fi++) {
		const struct gp_function *f = &g->fns[fi];
		bool upd = false;

		for (int k = 0; k < f->n_upd; k++)
			if (f->upd[k].dst == v && f->upd[k].src == out)
				upd = true;
		for (int k = 0; k < f->n_out; k++)
			if (f->out[k] == out)
				return (false);
		if (upd)
			updated = true;
		else if (runs(g, (int)fi, x))
			return (false);
	}
	if (!updated)
		return (false);
	desc = gp_xcalloc(g->n_nodes + 1, 1);
	mark_descendants(ip, x, desc);
	for (size_t u = 0; u < g->n_vars && ok; u++) {
		int a = (int)u;

		/* is u's memory v's? */
		while (a != v && (a = alias_parent(g, a)) >= 0)
			;
		if (a != v || (int)u == out)
			continue;
		if ((int)u != v && ip->escapes[u]) {
			ok = false;
			break;
		}
		for (int k = ip->uses.start[u]; k < ip->uses.start[u + 1]; k++) {
			int r = ip->uses.node[k];

			if (r == x ? (int)u != v || ip->uses.slot[k] != j :
			    desc[r] != 0) {
				ok = false;
				break;
			}
		}
	}
	free(desc);
	return (ok);
}

static bool
is_blas_inplace(const struct gp_node *n)
{
	return (gp_rw_is(n, "gemm") || gp_rw_is(n, "gemv") ||
	    gp_rw_is(n, "ger"));
}

static bool
is_elemwise_inplace(const struct gp_node *n)
{
	return ((n->op->flags & GP_OPF_ELEMWISE) &&
	    (n->op->flags & GP_OPF_INPLACE_OK));
}

static int
run_inplace(struct gp_rewrite_ctx *c, bool blas)
{
	struct gp_graph *g = c->g;
	struct inplace ip = {.g = g};
	static const char *const blas_ops[] = {"gemm", "gemv", "ger", NULL};
	int *order, n, changed = 0;

	if (blas && !gp_rw_any(g, blas_ops))
		return (0);
	n = gp_rw_topo(g, &order);
	gp_rw_uses_build(g, &ip.uses);
	ip.escapes = gp_rw_escapes(g);
	ip.up = gp_xcalloc(g->n_vars + 1, 1);
	for (int i = 0; i < n; i++) {
		struct gp_node *nd = &g->nodes[order[i]];

		if (nd->n_out != 1 || nd->destroy[0] >= 0 || nd->view[0] >= 0)
			continue;
		if (blas ? !is_blas_inplace(nd) : !is_elemwise_inplace(nd))
			continue;
		c->tried++;
		for (int j = 0; j < (blas ? 1 : nd->n_in); j++)
			if (may_destroy(&ip, order[i], j, !blas) ||
			    (blas && may_destroy_shared(&ip, order[i], j))) {
				nd->destroy[0] = (int8_t)j;
				changed++;
				break;
			}
	}
	gp_rw_uses_free(&ip.uses);
	free(ip.escapes);
	free(ip.up);
	free(order);
	return (changed);
}

static int
run_inplace_elemwise(struct gp_rewrite_ctx *c, struct gp_err *err)
{
	return (run_inplace(c, false));
}

static int
run_inplace_blas(struct gp_rewrite_ctx *c, struct gp_err *err)
{
	return (run_inplace(c, true));
}

static const struct gp_rewriter rw_inplace_elemwise = {
	.name = "inplace_elemwise",
	.tags = "fast_run:inplace",
	.phase = GP_PHASE_INPLACE,
	.doc = "an elementwise apply (Composites too) overwrites an input of "
	    "its output's type that nothing else reads",
	.run = run_inplace_elemwise,
};

static const struct gp_rewriter rw_inplace_blas = {
	.name = "inplace_blas",
	.tags = "fast_run:inplace",
	.phase = GP_PHASE_INPLACE,
	.doc = "gemm, gemv and ger overwrite their input 0 when nothing else "
	    "reads it, or when it is a shared variable they compute the "
	    "update of and every other reader runs first",
	.run = run_inplace_blas,
};

const struct gp_rewriter *const gp_rewriters_inplace[] = {
	&rw_inplace_blas,
	&rw_inplace_elemwise,
	NULL,
};
