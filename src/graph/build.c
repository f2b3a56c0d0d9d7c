/*
 * graph/build.c: the builder API front-ends make graphs with (see
 * graph/build.h): sources and values of variables, nodes declared before
 * they are prepared, literal inputs, functions, and gp_graph_prepare, which
 * prepares every node in a topological order, types the literals, reports
 * a cycle and checks the updates' types, naming places through the
 * front-end's locator.
 */
#include "config.h"

#include "graph/build.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/op.h"

void
gp_graph_set_source(struct gp_graph *g, const struct gp_graph_source *src)
{
	free(g->path);
	free(g->dir);
	g->path = gp_xstrdup(src->path != NULL ? src->path : "");
	g->dir = gp_xstrdup(src->dir != NULL ? src->dir : ".");
	g->limit_bytes = src->limit_bytes != 0 ? src->limit_bytes :
	    gp_graph_default_limit();
	g->allow_extern = src->allow_extern;
}

void
gp_graph_set_name(struct gp_graph *g, const char *name)
{
	char *s = gp_xstrdup(name);

	free(g->name);
	g->name = s;
}

void
gp_graph_place_var(struct gp_graph *g, int v, int line, int col)
{
	g->vars[v].line = line;
	g->vars[v].col = col;
}

struct gp_tensor *
gp_graph_alloc_value(struct gp_graph *g, int v, bool zero)
{
	struct gp_var *var = &g->vars[v];

	gp_tensor_release(&var->value);
	if (zero)
		gp_tensor_alloc_zero(&var->value, var->type.dtype,
		    var->type.ndim, var->type.shape);
	else
		gp_tensor_alloc(&var->value, var->type.dtype, var->type.ndim,
		    var->type.shape);
	return (&var->value);
}

int
gp_graph_set_value(struct gp_graph *g, int v, struct gp_tensor *t,
    struct gp_err *err)
{
	struct gp_var *var = &g->vars[v];
	struct gp_type tt = {.dtype = t->dtype, .ndim = t->ndim};

	memcpy(tt.shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
	if (!gp_type_equal(&tt, &var->type)) {
		struct gp_buf a = {0}, b = {0};

		gp_type_format(&a, &tt);
		gp_type_format(&b, &var->type);
		gp_err_set(err, "a value of %s for '%s', declared %s: expected "
		    "the same dtype and shape", gp_buf_str(&a), var->name,
		    gp_buf_str(&b));
		gp_buf_free(&a);
		gp_buf_free(&b);
		return (-1);
	}
	gp_tensor_release(&var->value);
	var->value = *t;
	memset(t, 0, sizeof(*t));
	return (0);
}

void
gp_graph_reserve_nodes(struct gp_graph *g, size_t more)
{
	gp_grow(&g->nodes, &g->cap_nodes, g->n_nodes + more, sizeof(*g->nodes));
}

int
gp_graph_declare_node(struct gp_graph *g, const struct gp_node_decl *d,
    struct gp_err *err)
{
	struct gp_node *n;
	int idx = (int)g->n_nodes;

	if (d->n_in < 0 || d->n_out < 0 || d->n_out > GP_MAX_OUT) {
		if (d->params != NULL)
			json_decref(d->params);
		return (gp_err_set(err, "a node has %d inputs and %d outputs: "
		    "expected at most %d outputs", d->n_in, d->n_out,
		    GP_MAX_OUT));
	}
	for (int k = 0; d->out_names != NULL && k < d->n_out; k++) {
		const char *nm = d->out_names[k];
		bool dup = nm != NULL && gp_graph_find_var(g, nm) >= 0;

		for (int j = 0; nm != NULL && j < k && !dup; j++)
			dup = d->out_names[j] != NULL &&
			    strcmp(d->out_names[j], nm) == 0;
		if (dup) {
			if (d->params != NULL)
				json_decref(d->params);
			return (gp_err_set(err, "output name '%s' is already "
			    "taken: expected a new name", nm));
		}
	}
	gp_grow(&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(*g->nodes));
	n = &g->nodes[g->n_nodes++];
	memset(n, 0, sizeof(*n));
	n->op = d->op;
	n->params = d->params != NULL ? d->params : json_object();
	n->name = d->name != NULL ? gp_xstrdup(d->name) : NULL;
	n->label = d->label != NULL ? gp_xstrdup(d->label) : NULL;
	n->family = d->family != NULL ? gp_xstrdup(d->family) : NULL;
	n->line = d->line;
	n->col = d->col;
	n->n_in = d->n_in;
	n->n_out = d->n_out;
	n->in = gp_xmalloc(sizeof(int) * (size_t)(d->n_in ? d->n_in : 1));
	for (int k = 0; k < d->n_in; k++)
		n->in[k] = d->in != NULL ? d->in[k] : -1;
	n->out = gp_xmalloc(sizeof(int) * (size_t)(d->n_out ? d->n_out : 1));
	for (int k = 0; k < GP_MAX_OUT; k++)
		n->destroy[k] = n->view[k] = -1;
	for (int k = 0; k < d->n_out; k++) {
		int v = gp_graph_add_var(g, d->out_names != NULL ?
		    d->out_names[k] : NULL, GP_VAR_TEMP, NULL);

		g->nodes[idx].out[k] = v;
		g->vars[v].producer = idx;
		g->vars[v].producer_out = k;
		g->vars[v].line = d->line;
		g->vars[v].col = d->col;
	}
	return (idx);
}

void
gp_graph_label_node(struct gp_graph *g, int node, const char *name,
    const char *label)
{
	struct gp_node *n = &g->nodes[node];

	free(n->name);
	free(n->label);
	n->name = name != NULL ? gp_xstrdup(name) : NULL;
	n->label = label != NULL ? gp_xstrdup(label) : NULL;
}

void
gp_graph_set_input(struct gp_graph *g, int node, int k, int var)
{
	g->nodes[node].in[k] = var;
}

int
gp_graph_set_literal(struct gp_graph *g, int node, int k,
    const struct gp_literal *lit)
{
	struct gp_type t = {.dtype = GP_FLOAT64, .ndim = 0};
	struct gp_graph_lit *l;
	int v = gp_graph_add_var(g, NULL, GP_VAR_CONSTANT, &t);

	g->vars[v].line = g->nodes[node].line;
	g->vars[v].col = g->nodes[node].col;
	g->nodes[node].in[k] = v;
	gp_grow(&g->lits, &g->cap_lits, g->n_lits + 1, sizeof(*g->lits));
	l = &g->lits[g->n_lits++];
	*l = (struct gp_graph_lit){.node = node, .k = k, .var = v, .lit = *lit};
	l->lit.name = lit->name != NULL ? gp_xstrdup(lit->name) : NULL;
	l->lit.text = gp_xstrdup(lit->text != NULL ? lit->text : "?");
	return (v);
}

static void
store_int(void *p, enum gp_dtype dt, int64_t v)
{
	gp_dtype_convert(p, dt, &v, GP_INT64, 0, 1);
}

int
gp_literal_store(const struct gp_literal *lit, enum gp_dtype dt, void *p,
    char *why, size_t cap)
{
	int64_t lo, hi;

	if (lit->as == GP_BOOL) {
		store_int(p, dt, lit->i != 0);
		return (0);
	}
	if (lit->as == GP_INT64) {
		int64_t x = lit->i;

		if (gp_dtype_is_float(dt)) {
			store_int(p, dt, x);
			return (0);
		}
		gp_dtype_int_range(dt, &lo, &hi);
		if (x < lo || x > hi) {
			snprintf(why, cap, "a value in %" PRId64 "..%" PRId64
			    " for %s", lo, hi, gp_dtype_name(dt));
			return (-1);
		}
		store_int(p, dt, x);
		return (0);
	}
	{
		double x = lit->d;

		if (dt == GP_FLOAT64) {
			*(double *)p = x;
			return (0);
		}
		if (dt == GP_FLOAT32) {
			if (fabs(x) > FLT_MAX) {
				snprintf(why, cap, "a value within float32's "
				    "range (+-%g)", (double)FLT_MAX);
				return (-1);
			}
			*(float *)p = (float)x;
			return (0);
		}
		gp_dtype_int_range(dt, &lo, &hi);
		if (x != floor(x) || x < (double)lo ||
		    x >= -(double)INT64_MIN || x > (double)hi) {
			snprintf(why, cap, "%s for %s", dt == GP_BOOL ?
			    "true, false, 0 or 1" : "an integer",
			    gp_dtype_name(dt));
			return (-1);
		}
		store_int(p, dt, (int64_t)x);
		return (0);
	}
}

int
gp_graph_check_update(const struct gp_graph *g, int dst, int src,
    struct gp_err *err)
{
	static const char *const kinds[] = {
		[GP_VAR_INPUT] = "an input",
		[GP_VAR_SHARED] = "a shared",
		[GP_VAR_CONSTANT] = "a constant",
		[GP_VAR_TEMP] = "a computed",
	};

	if (g->vars[dst].kind != GP_VAR_SHARED)
		return (gp_err_set(err, "cannot update '%s', %s variable: "
		    "expected a shared variable (only those keep state)",
		    g->vars[dst].name, kinds[g->vars[dst].kind]));
	if (src == dst)
		return (gp_err_set(err, "update of '%s' to itself: expected a "
		    "new value computed by a node", g->vars[dst].name));
	return (0);
}

int
gp_graph_add_function(struct gp_graph *g, const char *name, int n_out,
    const int *out, int n_upd, const struct gp_update *upd,
    struct gp_err *err)
{
	struct gp_function *fn;
	size_t cap = g->n_fns;

	for (size_t f = 0; f < g->n_fns; f++)
		if (strcmp(g->fns[f].name, name) == 0)
			return (gp_err_set(err, "duplicate function name '%s': "
			    "expected each function's name to be unique",
			    name));
	for (int k = 0; k < n_upd; k++)
		if (gp_graph_check_update(g, upd[k].dst, upd[k].src, err) < 0)
			return (-1);
	/* the array is exactly as long as it needs to be: grow by one */
	gp_grow(&g->fns, &cap, g->n_fns + 1, sizeof(*g->fns));
	fn = &g->fns[g->n_fns];
	memset(fn, 0, sizeof(*fn));
	fn->name = gp_xstrdup(name);
	fn->n_out = n_out;
	fn->n_upd = n_upd;
	fn->out = gp_xmalloc(sizeof(int) * (size_t)(n_out + 1));
	fn->out_name = gp_xmalloc(sizeof(char *) * (size_t)(n_out + 1));
	for (int k = 0; k < n_out; k++) {
		fn->out[k] = out[k];
		fn->out_name[k] = gp_xstrdup(g->vars[out[k]].name);
	}
	fn->upd = gp_xmalloc(sizeof(*fn->upd) * (size_t)(n_upd + 1));
	if (n_upd > 0)
		memcpy(fn->upd, upd, sizeof(*fn->upd) * (size_t)n_upd);
	return ((int)g->n_fns++);
}

void
gp_graph_site_label(const struct gp_graph *g, const struct gp_graph_site *site,
    struct gp_buf *b)
{
	const struct gp_node *n;

	if (site->kind == GP_SITE_UPDATE) {
		gp_buf_printf(b, "function '%s'", g->fns[site->fn].name);
		return;
	}
	n = site->node >= 0 && (size_t)site->node < g->n_nodes ?
	    &g->nodes[site->node] : NULL;
	if (n != NULL && n->name != NULL)
		gp_buf_printf(b, "node '%s'", n->name);
	else
		gp_buf_printf(b, "node %d", site->node);
	if (n != NULL && n->op != NULL)
		gp_buf_printf(b, " (op '%s')", n->op->name);
}

/* Preparation. */

struct prep {
	struct gp_graph			*g;
	const struct gp_graph_locator	*loc;
	struct gp_err			*err;
	size_t				*lit_start;	/* per node, into lit */
	int				*lit;		/* g->lits, by node */
};

static int __attribute__((format(printf, 3, 4)))
fail(struct prep *P, struct gp_graph_site site, const char *fmt, ...)
{
	char msg[GP_ERR_MAX];
	struct gp_buf where = {0};
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (P->loc != NULL && P->loc->where != NULL)
		P->loc->where(P->loc->ctx, P->g, &site, &where);
	else
		gp_graph_site_label(P->g, &site, &where);
	gp_err_set(P->err, "%s: %s", gp_buf_str(&where), msg);
	gp_buf_free(&where);
	return (-1);
}

static struct gp_graph_site
at_node(int x)
{
	return ((struct gp_graph_site){.kind = GP_SITE_NODE, .node = x});
}

/* Index the pending literals by node (stable: in the order they were set). */
static void
index_literals(struct prep *P)
{
	struct gp_graph *g = P->g;
	size_t nn = g->n_nodes, *fill;

	P->lit_start = gp_xcalloc(nn + 2, sizeof(size_t));
	P->lit = gp_xmalloc(sizeof(int) * (g->n_lits + 1));
	for (size_t j = 0; j < g->n_lits; j++)
		P->lit_start[g->lits[j].node + 1]++;
	for (size_t i = 0; i < nn; i++)
		P->lit_start[i + 1] += P->lit_start[i];
	fill = gp_xmalloc(sizeof(size_t) * (nn + 1));
	memcpy(fill, P->lit_start, sizeof(size_t) * (nn + 1));
	for (size_t j = 0; j < g->n_lits; j++)
		P->lit[fill[g->lits[j].node]++] = (int)j;
	free(fill);
}

/* Type node x's literal inputs the way numpy treats Python scalars. */
static int
type_literals(struct prep *P, int x)
{
	struct gp_graph *g = P->g;
	struct gp_node *n = &g->nodes[x];
	size_t a = P->lit_start[x], b = P->lit_start[x + 1];
	enum gp_dtype common = GP_BOOL;
	bool any = false;

	if (a == b)
		return (0);
	for (int k = 0; k < n->n_in; k++) {
		bool lit = false;

		for (size_t j = a; j < b; j++)
			if (g->lits[P->lit[j]].k == k)
				lit = true;
		if (lit)
			continue;
		common = any ? gp_dtype_promote(common,
		    g->vars[n->in[k]].type.dtype) :
		    g->vars[n->in[k]].type.dtype;
		any = true;
	}
	for (size_t j = a; j < b; j++) {
		struct gp_graph_lit *l = &g->lits[P->lit[j]];
		struct gp_var *v = &g->vars[l->var];
		enum gp_dtype dt;
		char why[128];

		if (l->typed)
			continue;	/* once: its name is taken */

		if (l->lit.as == GP_BOOL)
			dt = GP_BOOL;
		else if (l->lit.as == GP_INT64)
			dt = !any || common == GP_BOOL ? GP_INT64 : common;
		else
			dt = any && gp_dtype_is_float(common) ? common :
			    GP_FLOAT64;
		v->type.dtype = dt;
		v->type.ndim = 0;
		gp_tensor_release(&v->value);
		gp_tensor_alloc(&v->value, dt, 0, NULL);
		/* named by its value, as Theano's TensorConstant{2} */
		if (l->lit.name != NULL) {
			gp_graph_rename_var(g, l->var, l->lit.name);
			v = &g->vars[l->var];
		}
		if (gp_literal_store(&l->lit, dt, gp_tensor_data(&v->value),
		    why, sizeof(why)) < 0)
			return (fail(P, (struct gp_graph_site){
			    .kind = GP_SITE_INPUT, .node = x, .k = l->k},
			    "literal %s does not fit the node's %s inputs: "
			    "expected %s (or a variable of a wider type)",
			    l->lit.text, gp_dtype_name(dt), why));
		l->typed = true;
	}
	return (0);
}

/* The nodes left with pending inputs hold a cycle: name it, from the node
 * that comes first, in the direction of the data flow. */
static int
report_cycle(struct prep *P, const int *pending)
{
	struct gp_graph *g = P->g;
	size_t nn = g->n_nodes, start = 0, m, first, c0;
	int *mark = gp_xmalloc(sizeof(int) * nn);
	int *seq = gp_xmalloc(sizeof(int) * nn), *cyc, x, steps = 0;
	struct gp_buf b = {0};
	int rc;

	for (size_t i = 0; i < nn; i++)
		mark[i] = -1;
	while (pending[start] == 0)
		start++;
	/* walk to unfinished producers (each unfinished node has one)
	 * until a node repeats */
	x = (int)start;
	while (mark[x] < 0) {
		const struct gp_node *n = &g->nodes[x];
		int next = -1;

		mark[x] = steps;
		seq[steps++] = x;
		for (int k = 0; k < n->n_in && next < 0; k++) {
			int p = g->vars[n->in[k]].producer;

			if (p >= 0 && pending[p] > 0)
				next = p;
		}
		x = next;
	}
	/* seq[mark[x]..steps) is the cycle against the data flow: reverse
	 * it, then start at the node that comes first in the file */
	c0 = (size_t)mark[x];
	cyc = seq + c0;
	m = (size_t)steps - c0;
	for (size_t j = 0; j < m / 2; j++) {
		int t = cyc[j];

		cyc[j] = cyc[m - 1 - j];
		cyc[m - 1 - j] = t;
	}
	first = 0;
	for (size_t j = 1; j < m; j++)
		if (cyc[j] < cyc[first])
			first = j;
	for (size_t j = 0; j <= m; j++) {
		int a = cyc[(first + j) % m], c = cyc[(first + j + 1) % m];
		const struct gp_node *na = &g->nodes[a], *nc = &g->nodes[c];
		int v = na->out[0];

		if (j == 8 && m > 8) {
			gp_buf_puts(&b, " -> ...");
			break;
		}
		/* the output of a that c reads */
		for (int k = 0; k < nc->n_in; k++)
			if (g->vars[nc->in[k]].producer == a)
				v = nc->in[k];
		gp_buf_printf(&b, "%s'%s'", j ? " -> " : "", g->vars[v].name);
	}
	x = cyc[first];
	rc = fail(P, at_node(x), "the graph has a cycle (%s, each computed "
	    "from the one before): expected no node to depend on its own "
	    "output", gp_buf_str(&b));
	gp_buf_free(&b);
	free(mark);
	free(seq);
	return (rc);
}

/* Every node, in a topological order (Kahn's, file order first). */
static int
prepare_nodes(struct prep *P)
{
	struct gp_graph *g = P->g;
	size_t nn = g->n_nodes, nv = g->n_vars, head = 0, tail = 0;
	int *pending, *cstart, *clist, *queue;
	struct gp_err e;
	int rc = -1;

	for (size_t i = 0; i < nn; i++)
		for (int k = 0; k < g->nodes[i].n_in; k++)
			if (g->nodes[i].in[k] < 0 ||
			    (size_t)g->nodes[i].in[k] >= nv)
				return (fail(P, (struct gp_graph_site){
				    .kind = GP_SITE_INPUT, .node = (int)i,
				    .k = k}, "input %d was never set", k));
	pending = gp_xcalloc(nn + 1, sizeof(int));
	cstart = gp_xcalloc(nv + 2, sizeof(int));
	queue = gp_xmalloc(sizeof(int) * (nn + 1));
	for (size_t i = 0; i < nn; i++) {
		const struct gp_node *n = &g->nodes[i];

		for (int k = 0; k < n->n_in; k++)
			if (g->vars[n->in[k]].producer >= 0) {
				pending[i]++;
				cstart[n->in[k] + 1]++;
			}
	}
	for (size_t v = 0; v < nv; v++)
		cstart[v + 1] += cstart[v];
	clist = gp_xmalloc(sizeof(int) * ((size_t)cstart[nv] + 1));
	{
		int *fill = gp_xmalloc(sizeof(int) * (nv + 1));

		memcpy(fill, cstart, sizeof(int) * nv);
		for (size_t i = 0; i < nn; i++) {
			const struct gp_node *n = &g->nodes[i];

			for (int k = 0; k < n->n_in; k++)
				if (g->vars[n->in[k]].producer >= 0)
					clist[fill[n->in[k]]++] = (int)i;
		}
		free(fill);
	}
	for (size_t i = 0; i < nn; i++)
		if (pending[i] == 0)
			queue[tail++] = (int)i;
	while (head < tail) {
		int x = queue[head++];
		const struct gp_node *n;

		if (type_literals(P, x) < 0)
			goto out;
		if (gp_graph_prepare_node(g, x, &e) < 0) {
			fail(P, at_node(x), "%s", e.msg);
			goto out;
		}
		n = &g->nodes[x];
		for (int k = 0; k < n->n_out; k++) {
			int v = n->out[k];

			for (int c = cstart[v]; c < cstart[v + 1]; c++)
				if (--pending[clist[c]] == 0)
					queue[tail++] = clist[c];
		}
	}
	if (tail < nn)
		report_cycle(P, pending);
	else
		rc = 0;
out:
	free(pending);
	free(cstart);
	free(clist);
	free(queue);
	return (rc);
}

/* Each update's source has its target's type. */
static int
check_update_types(struct prep *P)
{
	const struct gp_graph *g = P->g;

	for (size_t f = 0; f < g->n_fns; f++) {
		const struct gp_function *fn = &g->fns[f];

		for (int k = 0; k < fn->n_upd; k++) {
			const struct gp_update *u = &fn->upd[k];
			struct gp_buf a = {0}, b = {0};

			if (gp_type_equal(&g->vars[u->dst].type,
			    &g->vars[u->src].type))
				continue;
			gp_type_format(&a, &g->vars[u->dst].type);
			gp_type_format(&b, &g->vars[u->src].type);
			fail(P, (struct gp_graph_site){.kind = GP_SITE_UPDATE,
			    .fn = (int)f, .k = k}, "update of '%s' (%s) from "
			    "'%s' (%s): expected the same dtype and shape",
			    g->vars[u->dst].name, gp_buf_str(&a),
			    g->vars[u->src].name, gp_buf_str(&b));
			gp_buf_free(&a);
			gp_buf_free(&b);
			return (-1);
		}
	}
	return (0);
}

int
gp_graph_prepare_at(struct gp_graph *g, int node,
    const struct gp_graph_locator *loc, struct gp_err *err)
{
	struct prep P = {.g = g, .loc = loc, .err = err};
	struct gp_err e;
	size_t n = 0;
	int rc = 0;

	for (int k = 0; k < g->nodes[node].n_in; k++)
		if (g->nodes[node].in[k] < 0 ||
		    (size_t)g->nodes[node].in[k] >= g->n_vars)
			return (fail(&P, (struct gp_graph_site){
			    .kind = GP_SITE_INPUT, .node = node, .k = k},
			    "input %d was never set", k));
	/* node's literals only: a range of its own */
	P.lit_start = gp_xcalloc((size_t)node + 2, sizeof(size_t));
	P.lit = gp_xmalloc(sizeof(int) * (g->n_lits + 1));
	for (size_t j = 0; j < g->n_lits; j++)
		if (g->lits[j].node == node)
			P.lit[n++] = (int)j;
	P.lit_start[node + 1] = n;
	rc = type_literals(&P, node);
	if (rc == 0 && gp_graph_prepare_node(g, node, &e) < 0)
		rc = fail(&P, at_node(node), "%s", e.msg);
	free(P.lit_start);
	free(P.lit);
	return (rc);
}

int
gp_graph_prepare(struct gp_graph *g, const struct gp_graph_locator *loc,
    struct gp_err *err)
{
	struct prep P = {.g = g, .loc = loc, .err = err};
	int rc;

	index_literals(&P);
	rc = prepare_nodes(&P);
	if (rc == 0)
		rc = check_update_types(&P);
	free(P.lit_start);
	free(P.lit);
	if (rc == 0) {
		/* typed: the literals are constants like any other */
		for (size_t j = 0; j < g->n_lits; j++) {
			free((char *)g->lits[j].lit.name);
			free((char *)g->lits[j].lit.text);
		}
		free(g->lits);
		g->lits = NULL;
		g->n_lits = g->cap_lits = 0;
	}
	return (rc);
}

/* Folding while building. */

bool
gp_graph_fold_node(struct gp_graph *g, int node,
    bool (*known)(const struct gp_graph *g, int v, void *ctx), void *ctx)
{
	struct gp_node *n = &g->nodes[node];
	struct gp_tensor *in[64], *out[GP_MAX_OUT], ot[GP_MAX_OUT];

	if ((n->op->flags & (GP_OPF_NONDET | GP_OPF_EXTERN)) || n->dead ||
	    n->kernel == NULL || n->n_in > 64 || n->n_out > GP_MAX_OUT)
		return (false);
	for (int k = 0; k < n->n_in; k++) {
		const struct gp_var *v = &g->vars[n->in[k]];

		if (v->value.storage == NULL || (v->kind != GP_VAR_CONSTANT &&
		    (known == NULL || !known(g, n->in[k], ctx))))
			return (false);
		in[k] = (struct gp_tensor *)&v->value;
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
		struct gp_var *v = &g->vars[n->out[k]];

		v->kind = GP_VAR_CONSTANT;
		v->producer = -1;
		if (n->view[k] >= 0 || !gp_tensor_is_contiguous(&ot[k])) {
			gp_tensor_copy(&v->value, &ot[k]);
			gp_tensor_release(&ot[k]);
		} else
			v->value = ot[k];
	}
	n->dead = true;
	return (true);
}
