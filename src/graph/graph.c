/*
 * graph.c: the graph IR: variables, nodes, functions, scheduling and the
 * edits rewrites make (see graph.h).
 */
#include "config.h"

#include "graph/graph.h"
#include "base/clock.h"
#include "graph/op.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const gp_impl_names[GP_IMPL__COUNT] = {
	[GP_IMPL_C] = "C",
	[GP_IMPL_BLAS] = "BLAS",
	[GP_IMPL_JIT] = "JIT",
	[GP_IMPL_INTERP] = "Interp",
	[GP_IMPL_EXTERN] = "Extern",
	[GP_IMPL_VIEW] = "View",
};

/* name -> index map: open addressing, power-of-two size.  A slot keeps
 * the name's hash and its first bytes, so a lookup reads one slot per probe
 * and the name itself (the variable's own string) only when it is longer
 * than the prefix. */
#define PREFIX 16

struct gp_varslot {
	const char	*name;	/* NULL: the old entry of a renamed variable */
	uint32_t	 hash;
	int32_t		 var;	/* var index + 1, 0 = empty */
	char		 pre[PREFIX];	/* the name's start, NUL-padded */
};

struct gp_varmap {
	size_t			 cap, n;
	struct gp_varslot	*slot;
};

static uint32_t
hash_str(const char *s, size_t len)
{
	return ((uint32_t)gp_hash_bytes(GP_HASH_INIT, s, len));
}

static void
map_put(struct gp_varmap *m, const struct gp_graph *g, int v)
{
	const char *name = g->vars[v].name;
	size_t len = strlen(name);
	uint32_t h = hash_str(name, len);
	size_t i = h & (m->cap - 1);
	struct gp_varslot *s;

	while (m->slot[i].var != 0)
		i = (i + 1) & (m->cap - 1);
	s = &m->slot[i];
	*s = (struct gp_varslot){.name = name, .hash = h, .var = v + 1};
	memcpy(s->pre, name, len < PREFIX ? len : PREFIX);
	m->n++;
}

/* The slot of variable v's name, or NULL. */
static struct gp_varslot *
map_slot(struct gp_graph *g, int v)
{
	struct gp_varmap *m = g->map;
	const char *name = g->vars[v].name;
	size_t i;

	if (m->cap == 0 || name == NULL)
		return (NULL);
	for (i = hash_str(name, strlen(name)) & (m->cap - 1);
	    m->slot[i].var != 0;
	    i = (i + 1) & (m->cap - 1))
		if (m->slot[i].name == name && m->slot[i].var == v + 1)
			return (&m->slot[i]);
	return (NULL);
}

/* Rebuild the map over every named variable, sized to hold them. */
static void
map_rebuild(struct gp_graph *g, size_t cap)
{
	struct gp_varmap *m = g->map;

	while (cap < 2 * (g->n_vars + 1))
		cap *= 2;
	free(m->slot);
	m->cap = cap;
	m->n = 0;
	m->slot = gp_xcalloc(cap, sizeof(*m->slot));
	for (size_t i = 0; i < g->n_vars; i++)
		if (g->vars[i].name != NULL)
			map_put(m, g, (int)i);
}

/* Add variable v (the last one added) to the map. */
static void
map_insert(struct gp_graph *g, int v)
{
	struct gp_varmap *m = g->map;

	if ((m->n + 1) * 2 > m->cap) {
		map_rebuild(g, m->cap ? m->cap * 2 : 64);
		return;		/* the rebuild put v in already */
	}
	map_put(m, g, v);
}

void
gp_graph_reserve_vars(struct gp_graph *g, size_t more)
{
	struct gp_varmap *m = g->map;

	gp_grow(&g->vars, &g->cap_vars, g->n_vars + more, sizeof(*g->vars));
	if ((m->n + more + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap : 64;

		while ((m->n + more + 1) * 2 > cap)
			cap *= 2;
		map_rebuild(g, cap);
	}
}

int
gp_graph_find_var(const struct gp_graph *g, const char *name)
{
	const struct gp_varmap *m = g->map;
	size_t len, i;
	uint32_t h;

	if (m->cap == 0)
		return (-1);
	len = strlen(name);
	h = hash_str(name, len);
	for (i = h & (m->cap - 1); m->slot[i].var != 0;
	    i = (i + 1) & (m->cap - 1)) {
		const struct gp_varslot *s = &m->slot[i];

		if (s->hash != h || s->name == NULL)
			continue;
		/* a short name is all in the prefix, with its NUL */
		if (len < PREFIX ? memcmp(s->pre, name, len + 1) == 0 :
		    memcmp(s->pre, name, PREFIX) == 0 &&
		    strcmp(s->name + PREFIX, name + PREFIX) == 0)
			return (s->var - 1);
	}
	return (-1);
}

void
gp_graph_rename_var(struct gp_graph *g, int v, const char *name)
{
	char *nm = gp_xstrdup(name);
	struct gp_varslot *s;

	for (int k = 2; gp_graph_find_var(g, nm) >= 0; k++) {
		free(nm);
		nm = gp_xasprintf("%s#%d", name, k);
	}
	/* the old name's entry stays, emptied, so probes pass over it */
	if ((s = map_slot(g, v)) != NULL)
		s->name = NULL;
	free(g->vars[v].name);
	g->vars[v].name = nm;
	map_insert(g, v);
}

void
gp_graph_swap_names(struct gp_graph *g, int a, int b)
{
	struct gp_varslot *sa = map_slot(g, a), *sb = map_slot(g, b);
	char *t = g->vars[a].name;

	g->vars[a].name = g->vars[b].name;
	g->vars[b].name = t;
	if (sa != NULL)
		sa->var = b + 1;
	if (sb != NULL)
		sb->var = a + 1;
}

struct gp_graph *
gp_graph_new(const char *name)
{
	struct gp_graph *g = gp_xcalloc(1, sizeof(*g));

	g->name = gp_xstrdup(name ? name : "graph");
	g->path = gp_xstrdup("");
	g->dir = gp_xstrdup(".");
	g->map = gp_xcalloc(1, sizeof(*g->map));
	g->limit_bytes = UINT64_MAX;
	return (g);
}

uint64_t
gp_graph_default_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || psz <= 0)
		return ((uint64_t)1 << 30);
	return ((uint64_t)pages * (uint64_t)psz / 2);
}

static void
node_free(struct gp_node *n)
{
	if (n->priv != NULL && n->op != NULL && n->op->free_priv != NULL)
		n->op->free_priv(n->priv);
	n->priv = NULL;
	free(n->name);
	free(n->label);
	free(n->family);
	free(n->src);
	free(n->in);
	free(n->out);
	if (n->params != NULL)
		json_decref(n->params);
}

void
gp_graph_free(struct gp_graph *g)
{
	if (g == NULL)
		return;
	for (size_t i = 0; i < g->n_vars; i++) {
		free(g->vars[i].name);
		gp_tensor_release(&g->vars[i].value);
	}
	free(g->vars);
	for (size_t i = 0; i < g->n_nodes; i++)
		node_free(&g->nodes[i]);
	free(g->nodes);
	for (size_t i = 0; i < g->n_fns; i++) {
		free(g->fns[i].name);
		free(g->fns[i].out);
		for (int k = 0; k < g->fns[i].n_out; k++)
			free(g->fns[i].out_name[k]);
		free(g->fns[i].out_name);
		free(g->fns[i].upd);
	}
	free(g->fns);
	for (size_t i = 0; i < g->n_lits; i++) {
		free((char *)g->lits[i].lit.name);
		free((char *)g->lits[i].lit.text);
	}
	free(g->lits);
	for (size_t i = 0; i < g->n_srcs; i++)
		free(g->srcs[i].name);
	free(g->srcs);
	free(g->folded);
	free(g->map->slot);
	free(g->map);
	free(g->name);
	free(g->path);
	free(g->dir);
	free(g);
}

int
gp_graph_add_var(struct gp_graph *g, const char *name, enum gp_var_kind kind,
    const struct gp_type *type)
{
	struct gp_var *v;
	int idx = (int)g->n_vars;

	gp_grow(&g->vars, &g->cap_vars, g->n_vars + 1, sizeof(*g->vars));
	v = &g->vars[g->n_vars++];
	memset(v, 0, sizeof(*v));
	if (name != NULL)
		v->name = gp_xstrdup(name);
	else {
		int k = idx;

		do {
			free(v->name);
			v->name = gp_xasprintf("_t%d", k++);
		} while (gp_graph_find_var(g, v->name) >= 0);
	}
	v->kind = kind;
	if (type != NULL)
		v->type = *type;
	v->producer = -1;
	map_insert(g, idx);
	return (idx);
}

int
gp_graph_prepare_node(struct gp_graph *g, int i, struct gp_err *err)
{
	struct gp_node *n = &g->nodes[i];
	const struct gp_op *op = n->op;
	uint64_t t0;
	double jit0;

	if (n->n_in < op->min_in || (op->max_in >= 0 && n->n_in > op->max_in)) {
		if (op->min_in == op->max_in)
			return (gp_err_set(err, "op '%s' takes %d input%s, "
			    "got %d", op->name, op->min_in,
			    op->min_in == 1 ? "" : "s", n->n_in));
		if (op->max_in < 0)
			return (gp_err_set(err, "op '%s' takes at least %d "
			    "inputs, got %d", op->name, op->min_in, n->n_in));
		return (gp_err_set(err, "op '%s' takes %d to %d inputs, "
		    "got %d", op->name, op->min_in, op->max_in, n->n_in));
	}
	if (op->n_out > 0 && n->n_out != op->n_out)
		return (gp_err_set(err, "op '%s' has %d output%s, got %d "
		    "names", op->name, op->n_out, op->n_out == 1 ? "" : "s",
		    n->n_out));
	/* params keys must be known */
	{
		const char *key;
		json_t *val;

		json_object_foreach(n->params, key, val) {
			bool ok = false;

			for (const char *const *p = op->params; p && *p; p++)
				if (strcmp(*p, key) == 0)
					ok = true;
			if (!ok) {
				struct gp_buf b = {0};

				for (const char *const *p = op->params; p && *p;
				    p++)
					gp_buf_printf(&b, "%s%s",
					    b.len ? ", " : "", *p);
				gp_err_set(err, "unknown param '%s' for op "
				    "'%s' (expected %s)", key, op->name,
				    b.len ? gp_buf_str(&b) : "no params");
				gp_buf_free(&b);
				return (-1);
			}
		}
	}
	if (n->priv != NULL && op->free_priv != NULL)
		op->free_priv(n->priv);
	n->priv = NULL;
	for (int k = 0; k < GP_MAX_OUT; k++)
		n->view[k] = -1;
	n->impl = GP_IMPL_C;
	n->kernel = NULL;
	jit0 = n->jit_ns;
	t0 = gp_clock_ns();
	if (op->prepare(g, n, err) < 0)
		return (-1);
	n->prep_ns = (double)(gp_clock_ns() - t0) - (n->jit_ns - jit0);
	if (n->prep_ns < 0)
		n->prep_ns = 0;
	for (int k = 0; k < n->n_out; k++) {
		struct gp_type *t = gp_graph_out_type(g, n, k);
		size_t nb;
		bool fits = gp_shape_nbytes(t->ndim, t->shape, t->dtype, &nb);

		/* every inferred shape, like every variable's */
		if (!fits || nb > g->limit_bytes) {
			struct gp_buf b = {0};

			gp_type_format(&b, t);
			if (!fits)
				gp_err_set(err, "output '%s' (%s) overflows: "
				    "its byte count does not fit in 64 bits",
				    g->vars[n->out[k]].name, gp_buf_str(&b));
			else
				gp_err_set(err, "output '%s' (%s) is larger "
				    "than the memory limit of %llu bytes (flag "
				    "memory_limit)", g->vars[n->out[k]].name,
				    gp_buf_str(&b),
				    (unsigned long long)g->limit_bytes);
			gp_buf_free(&b);
			return (-1);
		}
	}
	return (0);
}

int
gp_graph_add_node(struct gp_graph *g, const struct gp_op *op, json_t *params,
    int n_in, const int *in, int n_out, struct gp_err *err)
{
	struct gp_node *n;
	int idx = (int)g->n_nodes;

	gp_grow(&g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof(*g->nodes));
	n = &g->nodes[g->n_nodes++];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->params = params != NULL ? params : json_object();
	n->n_in = n_in;
	n->n_out = n_out;
	n->in = gp_xmalloc(sizeof(int) * (size_t)(n_in ? n_in : 1));
	if (n_in > 0)
		memcpy(n->in, in, sizeof(int) * (size_t)n_in);
	n->out = gp_xmalloc(sizeof(int) * (size_t)(n_out ? n_out : 1));
	for (int k = 0; k < GP_MAX_OUT; k++)
		n->destroy[k] = n->view[k] = -1;
	for (int k = 0; k < n_out; k++) {
		int v = gp_graph_add_var(g, NULL, GP_VAR_TEMP, NULL);

		n = &g->nodes[idx];
		n->out[k] = v;
		g->vars[v].producer = idx;
		g->vars[v].producer_out = k;
	}
	if (gp_graph_prepare_node(g, idx, err) < 0) {
		g->nodes[idx].dead = true;
		return (-1);
	}
	return (idx);
}

/* The source table and the folded set (graph/prov.h), copied. */
static void
prov_copy(struct gp_graph *dst, const struct gp_graph *src)
{
	dst->n_srcs = dst->cap_srcs = src->n_srcs;
	dst->srcs = gp_xcalloc(src->n_srcs + 1, sizeof(*dst->srcs));
	for (size_t i = 0; i < src->n_srcs; i++) {
		dst->srcs[i].index = src->srcs[i].index;
		dst->srcs[i].name = src->srcs[i].name != NULL ?
		    gp_xstrdup(src->srcs[i].name) : NULL;
	}
	dst->n_folded = dst->cap_folded = src->n_folded;
	dst->folded = gp_xmalloc(sizeof(int) * (src->n_folded + 1));
	if (src->n_folded > 0)
		memcpy(dst->folded, src->folded,
		    sizeof(int) * src->n_folded);
}

struct gp_graph *
gp_graph_clone(const struct gp_graph *g)
{
	struct gp_graph *c = gp_graph_new(g->name);

	free(c->path);
	free(c->dir);
	c->path = gp_xstrdup(g->path);
	c->dir = gp_xstrdup(g->dir);
	c->limit_bytes = g->limit_bytes;
	c->allow_extern = g->allow_extern;
	c->n_vars = c->cap_vars = g->n_vars;
	c->vars = gp_xcalloc(g->n_vars, sizeof(*c->vars));
	for (size_t i = 0; i < g->n_vars; i++) {
		c->vars[i] = g->vars[i];
		c->vars[i].name = gp_xstrdup(g->vars[i].name);
		c->vars[i].value.storage = NULL;
		/* a shared variable's value is copied: updates (and the
		 * applies inplace_blas lets overwrite it) must not show in
		 * the other graph.  Inputs and constants are never written
		 * (no rewrite lets an apply overwrite one, rewrite/inplace.c),
		 * so their storage is shared, not held twice */
		if (g->vars[i].value.storage == NULL)
			continue;
		if (g->vars[i].kind == GP_VAR_SHARED)
			gp_tensor_copy(&c->vars[i].value, &g->vars[i].value);
		else
			gp_tensor_view(&c->vars[i].value, &g->vars[i].value);
	}
	map_rebuild(c, 64);
	prov_copy(c, g);
	c->n_nodes = c->cap_nodes = g->n_nodes;
	c->nodes = gp_xcalloc(g->n_nodes ? g->n_nodes : 1, sizeof(*c->nodes));
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gp_node *s = &g->nodes[i];
		struct gp_node *d = &c->nodes[i];

		*d = *s;
		d->name = s->name ? gp_xstrdup(s->name) : NULL;
		d->label = s->label ? gp_xstrdup(s->label) : NULL;
		d->family = s->family ? gp_xstrdup(s->family) : NULL;
		d->src = NULL;
		if (s->n_src > 0) {
			/* its capacity: n_src rounded up to a power of two
			 * (graph/prov.c) */
			size_t cap = 1;

			while (cap < (size_t)s->n_src)
				cap *= 2;
			d->src = gp_xmalloc(sizeof(int) * cap);
			memcpy(d->src, s->src, sizeof(int) * (size_t)s->n_src);
		}
		d->params = json_deep_copy(s->params);
		d->in = gp_xmalloc(sizeof(int) * (size_t)(s->n_in ? s->n_in : 1));
		memcpy(d->in, s->in, sizeof(int) * (size_t)s->n_in);
		d->out = gp_xmalloc(sizeof(int) *
		    (size_t)(s->n_out ? s->n_out : 1));
		memcpy(d->out, s->out, sizeof(int) * (size_t)s->n_out);
		d->priv = NULL;
	}
	/* re-prepare so each node owns its priv (types are unchanged) */
	for (size_t i = 0; i < c->n_nodes; i++) {
		struct gp_err err;
		int8_t destroy[GP_MAX_OUT];

		if (c->nodes[i].dead)
			continue;
		memcpy(destroy, c->nodes[i].destroy, sizeof(destroy));
		if (gp_graph_prepare_node(c, (int)i, &err) < 0)
			c->nodes[i].dead = true;	/* cannot happen */
		memcpy(c->nodes[i].destroy, destroy, sizeof(destroy));
	}
	c->n_fns = g->n_fns;
	c->fns = gp_xcalloc(g->n_fns ? g->n_fns : 1, sizeof(*c->fns));
	for (size_t i = 0; i < g->n_fns; i++) {
		const struct gp_function *s = &g->fns[i];
		struct gp_function *d = &c->fns[i];

		d->name = gp_xstrdup(s->name);
		d->n_out = s->n_out;
		d->n_upd = s->n_upd;
		d->out = gp_xmalloc(sizeof(int) * (size_t)(s->n_out + 1));
		memcpy(d->out, s->out, sizeof(int) * (size_t)s->n_out);
		d->out_name = gp_xmalloc(sizeof(char *) * (size_t)(s->n_out +
		    1));
		for (int k = 0; k < s->n_out; k++)
			d->out_name[k] = gp_xstrdup(s->out_name[k]);
		d->upd = gp_xmalloc(sizeof(*d->upd) * (size_t)(s->n_upd + 1));
		memcpy(d->upd, s->upd, sizeof(*d->upd) * (size_t)s->n_upd);
	}
	return (c);
}

void
gp_graph_replace_var(struct gp_graph *g, int from, int to)
{
	for (size_t i = 0; i < g->n_nodes; i++) {
		struct gp_node *n = &g->nodes[i];

		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++)
			if (n->in[k] == from)
				n->in[k] = to;
	}
	for (size_t f = 0; f < g->n_fns; f++) {
		struct gp_function *fn = &g->fns[f];

		for (int k = 0; k < fn->n_out; k++)
			if (fn->out[k] == from)
				fn->out[k] = to;
		for (int k = 0; k < fn->n_upd; k++)
			if (fn->upd[k].src == from)
				fn->upd[k].src = to;
	}
}

/* Mark the nodes needed by function outputs and updates. */
static void
mark_needed(const struct gp_graph *g, bool *need_node)
{
	int *stack = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	bool *seen = gp_xcalloc(g->n_vars + 1, 1);
	size_t sp = 0;

	for (size_t f = 0; f < g->n_fns; f++) {
		const struct gp_function *fn = &g->fns[f];

		for (int k = 0; k < fn->n_out; k++)
			if (!seen[fn->out[k]]) {
				seen[fn->out[k]] = true;
				stack[sp++] = fn->out[k];
			}
		for (int k = 0; k < fn->n_upd; k++)
			if (!seen[fn->upd[k].src]) {
				seen[fn->upd[k].src] = true;
				stack[sp++] = fn->upd[k].src;
			}
	}
	while (sp > 0) {
		int v = stack[--sp], p = g->vars[v].producer;

		if (p < 0 || need_node[p])
			continue;
		need_node[p] = true;
		for (int k = 0; k < g->nodes[p].n_in; k++) {
			int u = g->nodes[p].in[k];

			if (!seen[u]) {
				seen[u] = true;
				stack[sp++] = u;
			}
		}
	}
	free(stack);
	free(seen);
}

void
gp_graph_compact(struct gp_graph *g)
{
	bool *need = gp_xcalloc(g->n_nodes + 1, 1);
	int *nmap = gp_xmalloc(sizeof(int) * (g->n_nodes + 1));
	int *vmap = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	size_t nn = 0, nv = 0;

	mark_needed(g, need);
	for (size_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].dead)
			need[i] = false;
	/* variables: keep graph variables and outputs of kept nodes */
	for (size_t v = 0; v < g->n_vars; v++) {
		struct gp_var *var = &g->vars[v];
		bool keep = var->kind != GP_VAR_TEMP ||
		    (var->producer >= 0 && need[var->producer]);

		if (keep) {
			vmap[v] = (int)nv;
			g->vars[nv++] = *var;
		} else {
			vmap[v] = -1;
			free(var->name);
			gp_tensor_release(&var->value);
		}
	}
	g->n_vars = nv;
	for (size_t i = 0; i < g->n_nodes; i++) {
		if (need[i]) {
			nmap[i] = (int)nn;
			g->nodes[nn++] = g->nodes[i];
		} else {
			nmap[i] = -1;
			node_free(&g->nodes[i]);
		}
	}
	g->n_nodes = nn;
	for (size_t i = 0; i < g->n_nodes; i++) {
		struct gp_node *n = &g->nodes[i];

		for (int k = 0; k < n->n_in; k++)
			n->in[k] = vmap[n->in[k]];
		for (int k = 0; k < n->n_out; k++)
			n->out[k] = vmap[n->out[k]];
	}
	for (size_t v = 0; v < g->n_vars; v++)
		if (g->vars[v].producer >= 0)
			g->vars[v].producer = nmap[g->vars[v].producer];
	for (size_t f = 0; f < g->n_fns; f++) {
		struct gp_function *fn = &g->fns[f];

		for (int k = 0; k < fn->n_out; k++)
			fn->out[k] = vmap[fn->out[k]];
		for (int k = 0; k < fn->n_upd; k++) {
			fn->upd[k].src = vmap[fn->upd[k].src];
			fn->upd[k].dst = vmap[fn->upd[k].dst];
		}
	}
	map_rebuild(g, 64);
	free(need);
	free(nmap);
	free(vmap);
}

/* Push node x on the min-heap of ready nodes. */
static void
heap_push(int *heap, size_t *hn, int x)
{
	size_t q = (*hn)++;

	heap[q] = x;
	while (q > 0 && heap[(q - 1) / 2] > heap[q]) {
		int t = heap[q];

		heap[q] = heap[(q - 1) / 2];
		heap[(q - 1) / 2] = t;
		q = (q - 1) / 2;
	}
}

/* The variable whose memory v is, following views (an in-place output is a
 * new value, even in the same memory). */
static int
view_root(const struct gp_graph *g, int v)
{
	for (int depth = 0; depth < 4096; depth++) {
		int p = g->vars[v].producer;
		const struct gp_node *n;
		int k;

		if (p < 0 || g->nodes[p].dead)
			break;
		n = &g->nodes[p];
		k = g->vars[v].producer_out;
		if (n->view[k] < 0)
			break;
		v = n->in[n->view[k]];
	}
	return (v);
}

/*
 * Order edges beyond the data flow: a node that overwrites a shared
 * variable (a weight's update done in place, rewrite/inplace.c) runs after
 * every other node of the schedule that reads the variable's old value,
 * directly or through a view.  Returns the edges as CSR over the first
 * node (*start, *succ, malloc'ed) and counts them in pending.
 */
static void
order_edges(const struct gp_graph *g, const bool *need, int *pending,
    int **start, int **succ)
{
	int *from = NULL, *to = NULL, ne = 0, cap = 0;

	*start = gp_xcalloc(g->n_nodes + 2, sizeof(int));
	for (size_t x = 0; x < g->n_nodes; x++) {
		const struct gp_node *nx = &g->nodes[x];

		if (!need[x] || nx->dead)
			continue;
		for (int k = 0; k < nx->n_out; k++) {
			int v;

			if (nx->destroy[k] < 0)
				continue;
			v = nx->in[nx->destroy[k]];
			if (g->vars[v].kind != GP_VAR_SHARED)
				continue;
			for (size_t r = 0; r < g->n_nodes; r++) {
				const struct gp_node *nr = &g->nodes[r];
				bool reads = false;

				if (r == x || !need[r] || nr->dead)
					continue;
				for (int j = 0; j < nr->n_in && !reads; j++)
					reads = view_root(g, nr->in[j]) == v;
				if (!reads)
					continue;
				if (ne == cap) {
					cap = cap ? cap * 2 : 16;
					from = gp_xrealloc(from,
					    sizeof(int) * (size_t)cap);
					to = gp_xrealloc(to,
					    sizeof(int) * (size_t)cap);
				}
				from[ne] = (int)r;
				to[ne++] = (int)x;
				pending[x]++;
				(*start)[r + 1]++;
			}
		}
	}
	for (size_t i = 0; i < g->n_nodes; i++)
		(*start)[i + 1] += (*start)[i];
	*succ = gp_xmalloc(sizeof(int) * ((size_t)ne + 1));
	{
		int *fill = gp_xmalloc(sizeof(int) * (g->n_nodes + 1));

		memcpy(fill, *start, sizeof(int) * g->n_nodes);
		for (int e = 0; e < ne; e++)
			(*succ)[fill[from[e]]++] = to[e];
		free(fill);
	}
	free(from);
	free(to);
}


int
gp_graph_schedule(const struct gp_graph *g, int fi, int **order)
{
	const struct gp_function *fn = &g->fns[fi];
	bool *need = gp_xcalloc(g->n_nodes + 1, 1);
	int *pending = gp_xcalloc(g->n_nodes + 1, sizeof(int));
	int *out = gp_xmalloc(sizeof(int) * (g->n_nodes + 1));
	int *heap = gp_xmalloc(sizeof(int) * (g->n_nodes + 1));
	int *cstart, *clist, *cfill, *estart, *esucc;
	size_t hn = 0;
	int n = 0;

	/* the nodes this function needs */
	{
		struct gp_graph tmp = *g;
		struct gp_function one = *fn;

		tmp.fns = &one;
		tmp.n_fns = 1;
		mark_needed(&tmp, need);
	}
	/* consumers lists (CSR) over needed nodes */
	cstart = gp_xcalloc(g->n_vars + 2, sizeof(int));
	for (size_t i = 0; i < g->n_nodes; i++)
		if (need[i] && !g->nodes[i].dead)
			for (int k = 0; k < g->nodes[i].n_in; k++)
				cstart[g->nodes[i].in[k] + 1]++;
	for (size_t v = 0; v < g->n_vars; v++)
		cstart[v + 1] += cstart[v];
	clist = gp_xmalloc(sizeof(int) * ((size_t)cstart[g->n_vars] + 1));
	cfill = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	memcpy(cfill, cstart, sizeof(int) * g->n_vars);
	for (size_t i = 0; i < g->n_nodes; i++) {
		if (!need[i] || g->nodes[i].dead)
			continue;
		for (int k = 0; k < g->nodes[i].n_in; k++) {
			int v = g->nodes[i].in[k];

			clist[cfill[v]++] = (int)i;
			if (g->vars[v].producer >= 0)
				pending[i]++;
		}
	}
	order_edges(g, need, pending, &estart, &esucc);
	/* Kahn's algorithm with a min-heap on node index: the order follows
	 * the file wherever the dependencies allow */
	for (size_t i = 0; i < g->n_nodes; i++)
		if (need[i] && !g->nodes[i].dead && pending[i] == 0)
			heap_push(heap, &hn, (int)i);
	while (hn > 0) {
		int x = heap[0];
		size_t j = 0;

		heap[0] = heap[--hn];
		for (;;) {
			size_t l = 2 * j + 1, r = l + 1, m = j;

			if (l < hn && heap[l] < heap[m])
				m = l;
			if (r < hn && heap[r] < heap[m])
				m = r;
			if (m == j)
				break;
			int t = heap[j];

			heap[j] = heap[m];
			heap[m] = t;
			j = m;
		}
		out[n++] = x;
		for (int k = 0; k < g->nodes[x].n_out; k++) {
			int v = g->nodes[x].out[k];

			for (int c = cstart[v]; c < cstart[v + 1]; c++)
				if (--pending[clist[c]] == 0)
					heap_push(heap, &hn, clist[c]);
		}
		for (int e = estart[x]; e < estart[x + 1]; e++)
			if (--pending[esucc[e]] == 0)
				heap_push(heap, &hn, esucc[e]);
	}
	free(need);
	free(pending);
	free(heap);
	free(cstart);
	free(clist);
	free(cfill);
	free(estart);
	free(esucc);
	*order = out;
	return (n);
}

int
gp_graph_check_acyclic(const struct gp_graph *g, struct gp_err *err)
{
	/* iterative DFS colouring over producers */
	unsigned char *color = gp_xcalloc(g->n_nodes + 1, 1);
	int *stack = gp_xmalloc(sizeof(int) * 2 * (g->n_nodes + 1));
	int rc = 0;

	for (size_t s = 0; s < g->n_nodes && rc == 0; s++) {
		size_t sp = 0;

		if (color[s] || g->nodes[s].dead)
			continue;
		stack[sp++] = (int)s;
		stack[sp++] = 0;
		color[s] = 1;
		while (sp > 0 && rc == 0) {
			int x = stack[sp - 2], k = stack[sp - 1];
			const struct gp_node *n = &g->nodes[x];

			if (k >= n->n_in) {
				color[x] = 2;
				sp -= 2;
				continue;
			}
			stack[sp - 1] = k + 1;
			{
				int p = g->vars[n->in[k]].producer;

				if (p < 0 || g->nodes[p].dead || color[p] == 2)
					continue;
				if (color[p] == 1) {
					const struct gp_node *q = &g->nodes[p];

					gp_err_set(err, "%s:%d:%d: the graph has "
					    "a cycle through node %s (output "
					    "'%s')", g->path, q->line, q->col,
					    q->name ? q->name : q->op->name,
					    g->vars[q->out[0]].name);
					rc = -1;
					break;
				}
				color[p] = 1;
				stack[sp++] = p;
				stack[sp++] = 0;
			}
		}
	}
	free(color);
	free(stack);
	return (rc);
}

void
gp_node_format_op(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	bool any = false;

	if (n->label != NULL)
		gp_buf_puts(b, n->label);
	else if (n->op->format != NULL)
		n->op->format(g, n, b);
	else
		gp_buf_printf(b, "%s{%s}", n->op->cls, n->op->name);
	for (int k = 0; k < n->n_out; k++) {
		if (n->destroy[k] < 0)
			continue;
		gp_buf_printf(b, "%s(%d, %d)", any ? ", " : "[", k,
		    n->destroy[k]);
		any = true;
	}
	if (any)
		gp_buf_puts(b, "]");
}

void
gp_node_format_apply(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	gp_node_format_op(g, n, b);
	gp_buf_puts(b, "(");
	for (int k = 0; k < n->n_in; k++)
		gp_buf_printf(b, "%s%s", k ? ", " : "", g->vars[n->in[k]].name);
	gp_buf_puts(b, ")");
}

double
gp_node_flops(const struct gp_graph *g, const struct gp_node *n)
{
	return (n->op->flops != NULL ? n->op->flops(g, n) : 0);
}

bool
gp_type_equal(const struct gp_type *a, const struct gp_type *b)
{
	if (a->dtype != b->dtype || a->ndim != b->ndim)
		return (false);
	for (int i = 0; i < a->ndim; i++)
		if (a->shape[i] != b->shape[i])
			return (false);
	return (true);
}

void
gp_type_format(struct gp_buf *b, const struct gp_type *t)
{
	gp_buf_printf(b, "%s", gp_dtype_name(t->dtype));
	gp_shape_format(b, t->ndim, t->shape);
}

size_t
gp_type_nbytes(const struct gp_type *t)
{
	size_t n;

	(void)gp_shape_nbytes(t->ndim, t->shape, t->dtype, &n);
	return (n);
}
