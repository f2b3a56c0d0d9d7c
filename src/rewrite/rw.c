/*
 * rewrite/rw.c: the walk, dead-node removal and the small helpers the
 * rewriter families share (see rw.h).
 */
#include "config.h"

#include "rewrite/rw.h"

#include <stdlib.h>
#include <string.h>

#include "graph/op.h"
#include "graph/prov.h"

/* When every live node's producers come before it, node order is a
 * topological order (the usual case: the loader's order, compacted). */
static int
topo_in_order(const struct gp_graph *g, int **order)
{
	int *out, n = 0;

	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gp_node *nd = &g->nodes[i];

		if (nd->dead)
			continue;
		for (int k = 0; k < nd->n_in; k++) {
			int p = g->vars[nd->in[k]].producer;

			if (p >= (int)i && !g->nodes[p].dead)
				return (-1);
		}
	}
	out = gp_xmalloc(sizeof(int) * (g->n_nodes + 1));
	for (size_t i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i].dead)
			out[n++] = (int)i;
	*order = out;
	return (n);
}

int
gp_rw_topo(const struct gp_graph *g, int **order)
{
	size_t nn = g->n_nodes, nv = g->n_vars;
	int *pending, *cstart, *clist, *fill, *out;
	int head = 0, tail = 0, in_order;

	if ((in_order = topo_in_order(g, order)) >= 0)
		return (in_order);
	pending = gp_xcalloc(nn + 1, sizeof(int));
	cstart = gp_xcalloc(nv + 2, sizeof(int));
	out = gp_xmalloc(sizeof(int) * (nn + 1));
	for (size_t i = 0; i < nn; i++) {
		const struct gp_node *n = &g->nodes[i];

		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++)
			cstart[n->in[k] + 1]++;
	}
	for (size_t v = 0; v < nv; v++)
		cstart[v + 1] += cstart[v];
	clist = gp_xmalloc(sizeof(int) * ((size_t)cstart[nv] + 1));
	fill = gp_xmalloc(sizeof(int) * (nv + 1));
	memcpy(fill, cstart, sizeof(int) * nv);
	for (size_t i = 0; i < nn; i++) {
		const struct gp_node *n = &g->nodes[i];

		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++) {
			int v = n->in[k], p = g->vars[v].producer;

			clist[fill[v]++] = (int)i;
			if (p >= 0 && !g->nodes[p].dead)
				pending[i]++;
		}
	}
	for (size_t i = 0; i < nn; i++)
		if (!g->nodes[i].dead && pending[i] == 0)
			out[tail++] = (int)i;
	while (head < tail) {
		const struct gp_node *n = &g->nodes[out[head++]];

		for (int k = 0; k < n->n_out; k++) {
			int v = n->out[k];

			for (int c = cstart[v]; c < cstart[v + 1]; c++)
				if (--pending[clist[c]] == 0)
					out[tail++] = clist[c];
		}
	}
	free(pending);
	free(cstart);
	free(clist);
	free(fill);
	*order = out;
	return (tail);
}

int
gp_rw_dce(struct gp_graph *g)
{
	bool *need = gp_xcalloc(g->n_nodes + 1, 1);
	bool *seen = gp_xcalloc(g->n_vars + 1, 1);
	int *stack = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	size_t sp = 0;
	int killed = 0;

	for (size_t f = 0; f < g->n_fns; f++) {
		const struct gp_function *fn = &g->fns[f];

		for (int k = 0; k < fn->n_out + fn->n_upd; k++) {
			int v = k < fn->n_out ? fn->out[k] :
			    fn->upd[k - fn->n_out].src;

			if (!seen[v]) {
				seen[v] = true;
				stack[sp++] = v;
			}
		}
	}
	while (sp > 0) {
		int v = stack[--sp], p = g->vars[v].producer;

		if (p < 0 || need[p] || g->nodes[p].dead)
			continue;
		need[p] = true;
		for (int k = 0; k < g->nodes[p].n_in; k++) {
			int u = g->nodes[p].in[k];

			if (!seen[u]) {
				seen[u] = true;
				stack[sp++] = u;
			}
		}
	}
	for (size_t i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i].dead && !need[i]) {
			g->nodes[i].dead = true;
			killed++;
		}
	free(need);
	free(seen);
	free(stack);
	return (killed);
}

void
gp_rw_begin(struct gp_rw *w, struct gp_rewrite_ctx *c)
{
	memset(w, 0, sizeof(*w));
	w->ctx = c;
	w->g = c->g;
	w->n_order = gp_rw_topo(w->g, &w->order);
	w->n_nodes0 = w->g->n_nodes;
	w->live0 = gp_xmalloc(w->n_nodes0 + 1);
	for (size_t i = 0; i < w->n_nodes0; i++)
		w->live0[i] = !w->g->nodes[i].dead;
	w->n_repl = w->g->n_vars;
	w->repl = gp_xmalloc(sizeof(int) * (w->n_repl + 1));
	for (size_t v = 0; v < w->n_repl; v++)
		w->repl[v] = -1;
}

int
gp_rw_resolve(struct gp_rw *w, int v)
{
	int r = v;

	while ((size_t)r < w->n_repl && w->repl[r] >= 0)
		r = w->repl[r];
	/* path compression */
	while ((size_t)v < w->n_repl && w->repl[v] >= 0 && w->repl[v] != r) {
		int next = w->repl[v];

		w->repl[v] = r;
		v = next;
	}
	return (r);
}

void
gp_rw_replace(struct gp_rw *w, int from, int to)
{
	to = gp_rw_resolve(w, to);
	if (from == to)
		return;
	if ((size_t)from >= w->n_repl) {
		size_t n = w->g->n_vars;

		w->repl = gp_xrealloc(w->repl, sizeof(int) * (n + 1));
		for (size_t v = w->n_repl; v < n; v++)
			w->repl[v] = -1;
		w->n_repl = n;
	}
	w->repl[from] = to;
	w->changes++;
}

int
gp_rw_visit(struct gp_rw *w, int i)
{
	int x = w->order[i];
	struct gp_node *n = &w->g->nodes[x];

	if (n->dead)
		return (-1);
	for (int k = 0; k < n->n_in; k++)
		n->in[k] = gp_rw_resolve(w, n->in[k]);
	return (x);
}

/* Did the walk kill node x, an apply carrying sources? */
static bool
killed(const struct gp_rw *w, int x)
{
	return (x >= 0 && (size_t)x < w->n_nodes0 && w->live0[x] &&
	    w->g->nodes[x].dead && w->g->nodes[x].n_src > 0);
}

/* Is x an apply the walk added that lives on? */
static bool
added(const struct gp_rw *w, int x)
{
	return (x >= 0 && (size_t)x >= w->n_nodes0 && !w->g->nodes[x].dead);
}

/*
 * Provenance, after the walk's dead applies are marked: for each replaced
 * variable `from` (reading now as `to`), the applies the walk killed that
 * computed `from` (its producer and, through their inputs, the killed
 * producers behind it, up to a variable that is itself replaced: another
 * replacement's own) give their sources to what computes `to`: the applies
 * the walk added behind `to` (its producer, and the added producers of
 * their inputs up to another replacement's `to`: a rewrite that computes
 * one value in several applies shares the work's sources among them), or the surviving apply producing
 * it (merge; a value found equal to another), or, when `to` has no
 * producer (a constant, an input), the graph's folded sources.  A killed
 * apply no replacement reaches gives its sources to the folded ones: its
 * work is not done any more.
 */
static void
provenance(struct gp_rw *w)
{
	struct gp_graph *g = w->g;
	bool *took = NULL, *target;
	int *stack, *recv;
	size_t any = 0, n_nodes = g->n_nodes;
	struct gp_node acc = {0};
	int *seen;

	for (size_t i = 0; i < w->n_nodes0; i++)
		if (killed(w, (int)i))
			any++;
	if (any == 0)
		return;
	took = gp_xcalloc(w->n_nodes0 + 1, 1);
	target = gp_xcalloc(g->n_vars + 1, 1);
	for (size_t v = 0; v < w->n_repl; v++)
		if (w->repl[v] >= 0)
			target[gp_rw_resolve(w, (int)v)] = true;
	seen = gp_xcalloc(n_nodes + 1, sizeof(int));
	stack = gp_xmalloc(sizeof(int) * (n_nodes + 1));
	recv = gp_xmalloc(sizeof(int) * (n_nodes + 1));
	for (size_t v = 0; v < w->n_repl; v++) {
		int from = (int)v, to, p, sp = 0, nr = 0;

		if (w->repl[v] < 0 || !killed(w, g->vars[from].producer) ||
		    took[g->vars[from].producer])
			continue;
		to = gp_rw_resolve(w, from);
		/* the killed cone behind from */
		acc.n_src = 0;
		p = g->vars[from].producer;
		took[p] = true;
		stack[sp++] = p;
		while (sp > 0) {
			const struct gp_node *n = &g->nodes[stack[--sp]];

			gp_prov_node_union(&acc, n->src, n->n_src);
			for (int k = 0; k < n->n_in; k++) {
				int u = n->in[k], q = g->vars[u].producer;

				if ((size_t)u < w->n_repl && w->repl[u] >= 0)
					continue;
				if (killed(w, q) && !took[q]) {
					took[q] = true;
					stack[sp++] = q;
				}
			}
		}
		/* who computes to */
		p = g->vars[to].producer;
		if (p < 0 || g->nodes[p].dead) {
			gp_prov_fold(g, acc.src, acc.n_src);
			continue;
		}
		if (!added(w, p)) {
			gp_prov_node_union(&g->nodes[p], acc.src, acc.n_src);
			continue;
		}
		seen[p] = from + 1;
		stack[sp++] = p;
		while (sp > 0) {
			const struct gp_node *n = &g->nodes[stack[--sp]];

			recv[nr++] = (int)(n - g->nodes);
			for (int k = 0; k < n->n_in; k++) {
				int q = g->vars[n->in[k]].producer;

				if (target[n->in[k]])
					continue;
				if (added(w, q) && seen[q] != from + 1) {
					seen[q] = from + 1;
					stack[sp++] = q;
				}
			}
		}
		for (int r = 0; r < nr; r++)
			gp_prov_node_union(&g->nodes[recv[r]], acc.src,
			    acc.n_src);
	}
	for (size_t i = 0; i < w->n_nodes0; i++)
		if (killed(w, (int)i) && !took[i])
			gp_prov_fold(g, g->nodes[i].src, g->nodes[i].n_src);
	free(acc.src);
	free(took);
	free(target);
	free(seen);
	free(stack);
	free(recv);
}

int
gp_rw_end(struct gp_rw *w)
{
	struct gp_graph *g = w->g;
	int changes = w->changes;

	if (changes > 0) {
		for (size_t i = 0; i < g->n_nodes; i++) {
			struct gp_node *n = &g->nodes[i];

			if (n->dead)
				continue;
			for (int k = 0; k < n->n_in; k++)
				n->in[k] = gp_rw_resolve(w, n->in[k]);
		}
		for (size_t f = 0; f < g->n_fns; f++) {
			struct gp_function *fn = &g->fns[f];

			for (int k = 0; k < fn->n_out; k++)
				fn->out[k] = gp_rw_resolve(w, fn->out[k]);
			for (int k = 0; k < fn->n_upd; k++)
				fn->upd[k].src = gp_rw_resolve(w,
				    fn->upd[k].src);
		}
	}
	if (changes > 0 || g->n_nodes != w->n_nodes0) {
		gp_rw_dce(g);
		provenance(w);
	}
	/* a user's name moves to the variable that replaced it, when that
	 * one only has a generated name: the function output of chain.json
	 * stays "out" after fusion */
	for (size_t v = 0; v < w->n_repl && changes > 0; v++) {
		int to, p;

		if (w->repl[v] < 0)
			continue;
		to = gp_rw_resolve(w, (int)v);
		p = g->vars[v].producer;
		if (g->vars[v].kind != GP_VAR_TEMP || p < 0 ||
		    !g->nodes[p].dead || g->vars[to].kind != GP_VAR_TEMP ||
		    strncmp(g->vars[to].name, "_t", 2) != 0 ||
		    strncmp(g->vars[v].name, "_t", 2) == 0)
			continue;
		gp_graph_swap_names(g, (int)v, to);
	}
	free(w->order);
	free(w->repl);
	free(w->live0);
	memset(w, 0, sizeof(*w));
	return (changes);
}

int
gp_rw_apply(struct gp_graph *g, const char *opname, json_t *params, int n_in,
    const int *in)
{
	const struct gp_op *op = gp_op_find(opname);
	struct gp_err err;
	int x;

	if (op == NULL) {
		if (params != NULL)
			json_decref(params);
		return (-1);
	}
	x = gp_graph_add_node(g, op, params, n_in, in, op->n_out > 0 ?
	    op->n_out : 1, &err);
	if (x < 0)
		return (-1);
	return (g->nodes[x].out[0]);
}

int
gp_rw_apply1(struct gp_graph *g, const char *opname, json_t *params, int a)
{
	return (gp_rw_apply(g, opname, params, 1, &a));
}

int
gp_rw_apply2(struct gp_graph *g, const char *opname, json_t *params, int a,
    int b)
{
	int in[2] = {a, b};

	return (gp_rw_apply(g, opname, params, 2, in));
}

bool
gp_rw_any(const struct gp_graph *g, const char *const *ops)
{
	const struct gp_op *want[16];
	int n = 0;

	for (; *ops != NULL && n < 16; ops++)
		if ((want[n] = gp_op_find(*ops)) != NULL)
			n++;
	for (size_t i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i].dead)
			continue;
		for (int k = 0; k < n; k++)
			if (g->nodes[i].op == want[k])
				return (true);
	}
	return (false);
}

struct gp_node *
gp_rw_producer(const struct gp_graph *g, int v)
{
	int p = g->vars[v].producer;

	if (p < 0 || g->nodes[p].dead)
		return (NULL);
	return (&g->nodes[p]);
}

bool
gp_rw_is(const struct gp_node *n, const char *name)
{
	return (n != NULL && strcmp(n->op->name, name) == 0);
}

struct gp_node *
gp_rw_producer_is(const struct gp_graph *g, int v, const char *name)
{
	struct gp_node *n = gp_rw_producer(g, v);

	return (gp_rw_is(n, name) ? n : NULL);
}

bool
gp_rw_same_type(const struct gp_graph *g, int a, int b)
{
	return (gp_type_equal(&g->vars[a].type, &g->vars[b].type));
}

json_t *
gp_rw_shape_json(const struct gp_type *t)
{
	json_t *a = json_array();

	for (int d = 0; d < t->ndim; d++)
		json_array_append_new(a, json_integer(t->shape[d]));
	return (a);
}

bool
gp_rw_const_value(const struct gp_graph *g, int v, double *x)
{
	const struct gp_var *var = &g->vars[v];
	const struct gp_tensor *t = &var->value;
	int64_t n;
	double first;

	if (var->kind != GP_VAR_CONSTANT || t->storage == NULL)
		return (false);
	n = gp_tensor_numel(t);
	if (n < 1 || n > 4096)
		return (false);
	first = gp_tensor_get(t, 0);
	for (int64_t i = 1; i < n; i++)
		if (gp_tensor_get(t, i) != first)
			return (false);
	*x = first;
	return (true);
}

bool
gp_rw_const_is(const struct gp_graph *g, int v, double x)
{
	double y;

	return (gp_rw_const_value(g, v, &y) && y == x);
}

int
gp_rw_const_new(struct gp_graph *g, enum gp_dtype dt, double x)
{
	struct gp_type t = {.dtype = dt, .ndim = 0};
	int v = gp_graph_add_var(g, NULL, GP_VAR_CONSTANT, &t);

	gp_tensor_alloc(&g->vars[v].value, dt, 0, NULL);
	gp_dtype_store(gp_tensor_data(&g->vars[v].value), dt, x);
	return (v);
}

bool *
gp_rw_escapes(const struct gp_graph *g)
{
	bool *e = gp_xcalloc(g->n_vars + 1, 1);

	for (size_t f = 0; f < g->n_fns; f++) {
		const struct gp_function *fn = &g->fns[f];

		for (int k = 0; k < fn->n_out; k++)
			e[fn->out[k]] = true;
		for (int k = 0; k < fn->n_upd; k++)
			e[fn->upd[k].src] = true;
	}
	return (e);
}

bool
gp_rw_replace_out(struct gp_rw *w, int x, int v)
{
	int o = w->g->nodes[x].out[0];

	if (v < 0 || !gp_rw_same_type(w->g, o, v))
		return (false);
	gp_rw_replace(w, o, v);
	return (true);
}

int
gp_rw_each_node(struct gp_rewrite_ctx *c, bool (*fn)(struct gp_rw *, int),
    const char *const *ops)
{
	struct gp_rw w;

	if (!gp_rw_any(c->g, ops))
		return (0);
	gp_rw_begin(&w, c);
	for (int i = 0; i < w.n_order; i++) {
		int x = gp_rw_visit(&w, i);

		if (x >= 0)
			(void)fn(&w, x);
	}
	return (gp_rw_end(&w));
}

void
gp_rw_uses_build(const struct gp_graph *g, struct gp_rw_uses *u)
{
	int *fill;

	u->start = gp_xcalloc(g->n_vars + 2, sizeof(int));
	for (size_t i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i].dead)
			continue;
		for (int k = 0; k < g->nodes[i].n_in; k++)
			u->start[g->nodes[i].in[k] + 1]++;
	}
	for (size_t v = 0; v < g->n_vars; v++)
		u->start[v + 1] += u->start[v];
	u->node = gp_xmalloc(sizeof(int) * ((size_t)u->start[g->n_vars] + 1));
	u->slot = gp_xmalloc(sizeof(int) * ((size_t)u->start[g->n_vars] + 1));
	fill = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	memcpy(fill, u->start, sizeof(int) * g->n_vars);
	for (size_t i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i].dead)
			continue;
		for (int k = 0; k < g->nodes[i].n_in; k++) {
			int v = g->nodes[i].in[k];

			u->node[fill[v]] = (int)i;
			u->slot[fill[v]++] = k;
		}
	}
	free(fill);
}

void
gp_rw_uses_free(struct gp_rw_uses *u)
{
	free(u->start);
	free(u->node);
	free(u->slot);
	memset(u, 0, sizeof(*u));
}
