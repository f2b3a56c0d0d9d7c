/*
 * rewrite/fusion.c: the fusion phase (Theano's elemwise fusion).
 *
 * Elementwise applies computing in float32 or float64 whose outputs have
 * one shape are gathered into maximal groups, each with a single output:
 * starting from the last apply (in topological order) not yet grouped, a
 * group takes in the producer of one of its inputs when that producer is
 * elementwise with the group's output shape, its output is read by group
 * members only and is no function output, and the group stays within 32
 * inputs and 256 scalar operations.  Candidates are tried latest first,
 * so a value read twice inside the group (x * x) is taken once every
 * reader is in.  A group of two or more applies becomes one Composite
 * apply (composite.h), named like Theano's Elemwise{Composite{...}}; 0-d
 * constants become literals of its program.
 *
 * Then the Composites are compiled by the JIT in one batch (flag jit,
 * default True), at most 64 per graph, the most work first (elements times
 * operations); the rest, or all when there is no compiler, run in the
 * interpreter.  gptop says once on stderr when fused loops are
 * interpreted.  Compile and cache time goes to the link time.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/op.h"
#include "rewrite/composite.h"
#include "rewrite/rewriters.h"
#include "rewrite/rw.h"

#define FUSION_MAX_JIT 64

struct fuse {
	struct gp_graph	*g;
	struct gp_rw_uses	 uses;
	bool		*escapes;
	int		*pos;	/* node -> topological position, -1 */
	int		*group;	/* node -> group id, -1 */
	int		*seen;	/* var -> group id that examined it */
	/* the group being built */
	int		*members;
	size_t		 n_members, cap_members;
	int		*heap;	/* candidate producers, max-heap */
	size_t		 n_heap, cap_heap;
	int		 ins[2 * GP_COMPOSITE_MAX_IN + 2]; /* its inputs */
	size_t		 n_ins;
};

static bool
fusible(const struct gp_graph *g, const struct gp_node *n)
{
	enum gp_dtype ct;

	if (n->dead || !(n->op->flags & GP_OPF_ELEMWISE) ||
	    n->op->scalar == NULL || n->n_out != 1 || n->destroy[0] >= 0)
		return (false);
	if (!(n->op->scalar->kinds & GP_SCALAR_KIND(GP_KIND_FLOAT)) ||
	    n->op->scalar->eval_f64 == NULL || n->op->scalar->eval_f32 == NULL)
		return (false);
	ct = gp_elemwise_compute_dtype(n);
	if (ct != GP_FLOAT32 && ct != GP_FLOAT64)
		return (false);
	/* one instruction per input beyond the first of an n-ary op */
	return (n->n_in <= GP_COMPOSITE_MAX_IN);
}

static bool
same_shape(const struct gp_type *a, const struct gp_type *b)
{
	if (a->ndim != b->ndim)
		return (false);
	for (int d = 0; d < a->ndim; d++)
		if (a->shape[d] != b->shape[d])
			return (false);
	return (true);
}

static void
heap_push(struct fuse *f, int node)
{
	size_t j;

	gp_grow(&f->heap, &f->cap_heap, f->n_heap + 1, sizeof(int));
	j = f->n_heap++;
	f->heap[j] = node;
	while (j > 0 && f->pos[f->heap[(j - 1) / 2]] < f->pos[f->heap[j]]) {
		int t = f->heap[j];

		f->heap[j] = f->heap[(j - 1) / 2];
		f->heap[(j - 1) / 2] = t;
		j = (j - 1) / 2;
	}
}

static int
heap_pop(struct fuse *f)
{
	int top = f->heap[0];
	size_t j = 0;

	f->heap[0] = f->heap[--f->n_heap];
	for (;;) {
		size_t l = 2 * j + 1, r = l + 1, m = j;
		int t;

		if (l < f->n_heap && f->pos[f->heap[l]] > f->pos[f->heap[m]])
			m = l;
		if (r < f->n_heap && f->pos[f->heap[r]] > f->pos[f->heap[m]])
			m = r;
		if (m == j)
			break;
		t = f->heap[j];
		f->heap[j] = f->heap[m];
		f->heap[m] = t;
		j = m;
	}
	return (top);
}

static bool
inlined_const(const struct gp_graph *g, int v)
{
	const struct gp_var *var = &g->vars[v];

	return (var->kind == GP_VAR_CONSTANT && var->type.ndim == 0 &&
	    var->value.storage != NULL);
}

/* Instructions node n becomes. */
static int
n_instr(const struct gp_node *n)
{
	return (n->op->scalar->nary && n->n_in > 2 ? n->n_in - 1 : 1);
}

/* Would the group still have at most GP_COMPOSITE_MAX_IN inputs with
 * node x in it?  Then take x's inputs in.  (Every member comes after x in
 * the topological order, so none of x's inputs is a member's output.) */
static bool
take_inputs(struct fuse *f, int x)
{
	const struct gp_graph *g = f->g;
	const struct gp_node *n = &g->nodes[x];
	int add[GP_COMPOSITE_MAX_IN + 1], na = 0, count = (int)f->n_ins;

	for (size_t j = 0; j < f->n_ins; j++)
		if (f->ins[j] == n->out[0])
			count--;
	for (int k = 0; k < n->n_in; k++) {
		int v = n->in[k];
		bool dup = inlined_const(g, v);

		for (size_t j = 0; j < f->n_ins && !dup; j++)
			dup = f->ins[j] == v;
		for (int j = 0; j < na && !dup; j++)
			dup = add[j] == v;
		if (dup)
			continue;
		if (count + na + 1 > GP_COMPOSITE_MAX_IN)
			return (false);
		add[na++] = v;
	}
	for (size_t j = 0; j < f->n_ins; j++)
		if (f->ins[j] == n->out[0]) {
			f->ins[j] = f->ins[--f->n_ins];
			break;
		}
	for (int j = 0; j < na; j++)
		f->ins[f->n_ins++] = add[j];
	return (true);
}

/* Grow a group from root; its members end up in f->members. */
static void
grow(struct fuse *f, int gid, int root)
{
	const struct gp_graph *g = f->g;
	const struct gp_type *rt = &g->vars[g->nodes[root].out[0]].type;
	int ops = n_instr(&g->nodes[root]);

	f->n_members = 0;
	f->n_heap = 0;
	f->n_ins = 0;
	gp_grow(&f->members, &f->cap_members, 1, sizeof(int));
	f->members[f->n_members++] = root;
	f->group[root] = gid;
	(void)take_inputs(f, root);
	for (int k = 0; k < g->nodes[root].n_in; k++) {
		int p = g->vars[g->nodes[root].in[k]].producer;

		if (p >= 0 && f->pos[p] >= 0 && f->group[p] < 0)
			heap_push(f, p);
	}
	while (f->n_heap > 0) {
		int x = heap_pop(f), v;
		const struct gp_node *n = &g->nodes[x];
		bool ok;

		if (f->group[x] >= 0)
			continue;
		v = n->out[0];
		if (f->seen[v] == gid)
			continue;
		f->seen[v] = gid;
		ok = fusible(g, n) && !f->escapes[v] &&
		    same_shape(&g->vars[v].type, rt) &&
		    ops + n_instr(n) <= GP_COMPOSITE_MAX_OPS;
		for (int u = f->uses.start[v]; ok && u < f->uses.start[v + 1];
		    u++)
			ok = f->group[f->uses.node[u]] == gid;
		if (ok)
			ok = take_inputs(f, x);
		if (!ok)
			continue;
		f->group[x] = gid;
		ops += n_instr(n);
		gp_grow(&f->members, &f->cap_members, f->n_members + 1,
		    sizeof(int));
		f->members[f->n_members++] = x;
		for (int k = 0; k < n->n_in; k++) {
			int p = g->vars[n->in[k]].producer;

			if (p >= 0 && f->pos[p] >= 0 && f->group[p] < 0)
				heap_push(f, p);
		}
	}
}

/* Members in topological order: an insertion sort (groups are small,
 * and mostly in reverse order already). */
static void
sort_members(int *m, size_t n, const int *pos)
{
	for (size_t i = 1; i < n; i++) {
		int x = m[i];
		size_t j = i;

		while (j > 0 && pos[m[j - 1]] > pos[x]) {
			m[j] = m[j - 1];
			j--;
		}
		m[j] = x;
	}
}

/* Build the Composite of the current group; returns its node or -1. */
static int
make_composite(struct fuse *f, int gid, int *in_vars, int *n_in)
{
	struct gp_graph *g = f->g;
	json_t *consts = json_array(), *code = json_array();
	int *reg = gp_xmalloc(sizeof(int) * (f->n_members + 1));
	int *cvars = NULL, nc = 0, nr = 0, x, root;
	size_t capc = 0;
	struct gp_err err;
	char name[32];

	*n_in = 0;
	sort_members(f->members, f->n_members, f->pos);
	for (size_t m = 0; m < f->n_members; m++) {
		const struct gp_node *n = &g->nodes[f->members[m]];
		const char *ct = gp_dtype_name(gp_elemwise_compute_dtype(n));
		const struct gp_scalar_op *s = n->op->scalar;
		json_t *refs[GP_COMPOSITE_MAX_IN];

		for (int k = 0; k < n->n_in; k++) {
			int v = n->in[k], p = g->vars[v].producer, j;

			if (p >= 0 && f->group[p] == gid) {
				for (j = 0; f->members[j] != p; j++)
					continue;
				snprintf(name, sizeof(name), "r%d", reg[j]);
			} else if (inlined_const(g, v)) {
				for (j = 0; j < nc && cvars[j] != v; j++)
					continue;
				if (j == nc) {
					const struct gp_tensor *t =
					    &g->vars[v].value;
					enum gp_dtype dt = t->dtype;
					json_t *val;

					if (gp_dtype_is_float(dt))
						val = json_real(gp_tensor_get(t,
						    0));
					else if (dt == GP_BOOL)
						val = json_boolean(
						    gp_tensor_get(t, 0) != 0);
					else if (dt == GP_INT64)
						val = json_integer(*(const
						    int64_t *)
						    gp_tensor_data(t));
					else if (fabs(gp_tensor_get(t, 0)) <
					    9.2e18)
						val = json_integer((json_int_t)
						    gp_tensor_get(t, 0));
					else
						val = json_real(gp_tensor_get(t,
						    0));
					json_array_append_new(consts,
					    json_pack("[so]", gp_dtype_name(dt),
					    val));
					gp_grow(&cvars, &capc, (size_t)nc + 1,
					    sizeof(int));
					cvars[nc++] = v;
				}
				snprintf(name, sizeof(name), "c%d", j);
			} else {
				for (j = 0; j < *n_in && in_vars[j] != v; j++)
					continue;
				if (j == *n_in)
					in_vars[(*n_in)++] = v;
				snprintf(name, sizeof(name), "i%d", j);
			}
			refs[k] = json_string(name);
		}
		if (s->nary && n->n_in > 2) {
			/* ((x0 op x1) op x2) ... */
			json_array_append_new(code, json_pack("[ssOO]", s->name,
			    ct, refs[0], refs[1]));
			for (int k = 2; k < n->n_in; k++) {
				snprintf(name, sizeof(name), "r%d", nr++);
				json_array_append_new(code, json_pack("[sssO]",
				    s->name, ct, name, refs[k]));
			}
		} else {
			json_t *ins = json_pack("[ss]", s->name, ct);

			for (int k = 0; k < n->n_in; k++)
				json_array_append(ins, refs[k]);
			json_array_append_new(code, ins);
		}
		for (int k = 0; k < n->n_in; k++)
			json_decref(refs[k]);
		reg[m] = nr++;
	}
	free(cvars);
	free(reg);
	root = f->members[f->n_members - 1];
	x = gp_graph_add_node(g, &gp_op_composite, json_pack("{s:o,s:o}",
	    "consts", consts, "code", code), *n_in, in_vars, 1, &err);
	if (x < 0)
		return (-1);
	if (!gp_rw_same_type(g, g->nodes[x].out[0], g->nodes[root].out[0])) {
		g->nodes[x].dead = true;
		return (-1);
	}
	return (x);
}

struct jit_pick {
	int	node;
	double	work;
};

static int
cmp_work(const void *a, const void *b)
{
	const struct jit_pick *x = a, *y = b;

	if (x->work != y->work)
		return (x->work < y->work ? 1 : -1);
	return (x->node - y->node);
}

static void
compile_all(struct gp_rewrite_ctx *c, const int *made, int n_made)
{
	struct gp_graph *g = c->g;
	struct jit_pick *pick;
	int *nodes, n = 0;
	uint64_t t0;
	const char *why;

	if (n_made == 0)
		return;
	if (!c->flags->jit) {
		gp_jit_note("jit-off", "jit=False: fused elementwise loops "
		    "run in the interpreter");
		return;
	}
	if (!gp_jit_available(&why)) {
		char msg[600];

		snprintf(msg, sizeof(msg), "%s: fused elementwise loops run "
		    "in the interpreter", why);
		gp_jit_note("jit-none", msg);
		return;
	}
	pick = gp_xcalloc((size_t)n_made, sizeof(*pick));
	for (int i = 0; i < n_made; i++) {
		const struct gp_node *nd = &g->nodes[made[i]];
		const struct gp_composite *cp = nd->priv;
		const struct gp_type *t = &g->vars[nd->out[0]].type;

		pick[i].node = made[i];
		pick[i].work = (double)gp_shape_numel(t->ndim, t->shape) *
		    cp->n_ops;
	}
	qsort(pick, (size_t)n_made, sizeof(*pick), cmp_work);
	nodes = gp_xcalloc((size_t)n_made, sizeof(int));
	for (int i = 0; i < n_made && n < FUSION_MAX_JIT; i++)
		nodes[n++] = pick[i].node;
	t0 = gp_jit_thread_ns();
	(void)gp_composite_jit(g, nodes, n);
	c->jit_ns += (double)(gp_jit_thread_ns() - t0);
	free(pick);
	free(nodes);
}

static int
run_fusion(struct gp_rewrite_ctx *c, struct gp_err *err)
{
	struct gp_graph *g = c->g;
	struct gp_rw w;
	struct fuse f = {.g = g};
	int *made = NULL, n_made = 0, gid = 0;
	size_t cap_made = 0, nn = g->n_nodes;
	int in_vars[GP_COMPOSITE_MAX_IN];

	gp_rw_begin(&w, c);
	gp_rw_uses_build(g, &f.uses);
	f.escapes = gp_rw_escapes(g);
	f.pos = gp_xmalloc(sizeof(int) * (nn + 1));
	f.group = gp_xmalloc(sizeof(int) * (nn + 1));
	f.seen = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	for (size_t i = 0; i < nn; i++)
		f.pos[i] = f.group[i] = -1;
	for (size_t v = 0; v < g->n_vars; v++)
		f.seen[v] = -1;
	for (int i = 0; i < w.n_order; i++)
		f.pos[w.order[i]] = i;
	for (int i = w.n_order - 1; i >= 0; i--) {
		int root = w.order[i], x, n_in;

		if (f.group[root] >= 0 || !fusible(g, &g->nodes[root]))
			continue;
		c->tried++;
		grow(&f, gid, root);
		if (f.n_members < 2) {
			f.group[root] = -2;	/* alone: left as it is */
			gid++;
			continue;
		}
		x = make_composite(&f, gid, in_vars, &n_in);
		gid++;
		if (x < 0) {
			for (size_t m = 0; m < f.n_members; m++)
				f.group[f.members[m]] = -2;
			continue;
		}
		gp_rw_replace(&w, g->nodes[root].out[0], g->nodes[x].out[0]);
		gp_grow(&made, &cap_made, (size_t)n_made + 1, sizeof(int));
		made[n_made++] = x;
	}
	gp_rw_uses_free(&f.uses);
	free(f.escapes);
	free(f.pos);
	free(f.group);
	free(f.seen);
	free(f.members);
	free(f.heap);
	compile_all(c, made, n_made);
	free(made);
	return (gp_rw_end(&w));
}

static const struct gp_rewriter rw_fusion = {
	.name = "fusion",
	.tags = "fast_run:fusion",
	.phase = GP_PHASE_FUSION,
	.doc = "trees of elementwise applies of one output shape -> one "
	    "Elemwise{Composite{...}} apply, compiled by the JIT",
	.run = run_fusion,
};

const struct gp_rewriter *const gp_rewriters_fusion[] = {
	&rw_fusion,
	NULL,
};
