/*
 * memprof.c: the memory profile (see memprof.h).
 *
 * Three engines share the program extracted from the VM's schedule:
 *  - sim: the VM's storage rules replayed exactly (reference counts, slot
 *    reuse, GC lists, updates), call after call in the session's order, to
 *    predict what the allocator counts;
 *  - model: Theano's intermediates for one call on its own, with aliases
 *    collapsed to their origin storage and a storage freed only when every
 *    variable aliasing it is dead (never twice, never while read);
 *  - search: the smallest peak of the model over valid orders, by
 *    depth-first branch and bound with a memo of visited down-sets, a
 *    dominance rule and a time and state budget.
 * Then the profile as a capture's JSON, both ways, and the report.
 */
#include "config.h"

#include "prof/memprof.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/fmt.h"
#include "base/jsonpos.h"
#include "run/vm.h"

#define DEF_BUDGET_MS	1000
#define DEF_MAX_STATES	2000000
/* memo memory cap, bytes */
#define MEMO_MAX_BYTES	((size_t)256 << 20)
/* above this many applies the search keeps only the best few children of
 * every state: it can then prove optimality only by meeting the bound */
#define WIDE_LIMIT	512
#define WIDE_CHILDREN	4

static uint64_t
max64(uint64_t a, uint64_t b)
{
	return (a > b ? a : b);
}

/* The string pool. */
struct pool {
	char	*s;
	size_t	 len, cap;
};

static uint32_t
pool_add(struct pool *p, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t off = (uint32_t)p->len;

	if (p->len + n > p->cap)
		gp_grow(&p->s, &p->cap, p->len + n, 1);
	memcpy(p->s + p->len, s, n);
	p->len += n;
	return (off);
}

/* A graph value's storage and a variable holding it. */
struct valref {
	const struct gp_storage	*st;
	int			 var;
};

static int
cmp_valref(const void *a, const void *b)
{
	const struct valref *x = a, *y = b;

	if (x->st != y->st)
		return ((uintptr_t)x->st < (uintptr_t)y->st ? -1 : 1);
	return (x->var - y->var);
}

/* What every engine reads from the graph, gathered once (the variable
 * array is large and scanned slowly). */
struct ctx {
	const struct gp_graph	*g;
	bool			*temp;	/* per variable: temporary? */
	struct valref		*vals;	/* the values, by storage */
	size_t			 n_vals;
	/* variables that may hold a value: those, and update targets */
	int			*vvars;
	size_t			 n_vvars;
};

static void
ctx_init(struct ctx *c, const struct gp_graph *g)
{
	bool *mark = gp_xcalloc(g->n_vars + 1, sizeof(bool));

	memset(c, 0, sizeof(*c));
	c->g = g;
	c->temp = gp_xmalloc(sizeof(bool) * (g->n_vars + 1));
	c->vals = gp_xmalloc(sizeof(*c->vals) * (g->n_vars + 1));
	c->vvars = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	for (size_t v = 0; v < g->n_vars; v++) {
		const struct gp_var *gv = &g->vars[v];

		c->temp[v] = gv->kind == GP_VAR_TEMP;
		if (!c->temp[v] && gv->value.storage != NULL) {
			c->vals[c->n_vals].st = gv->value.storage;
			c->vals[c->n_vals++].var = (int)v;
			mark[v] = true;
			c->vvars[c->n_vvars++] = (int)v;
		}
	}
	for (size_t f = 0; f < g->n_fns; f++)
		for (int k = 0; k < g->fns[f].n_upd; k++) {
			int d = g->fns[f].upd[k].dst;

			if (!mark[d]) {
				mark[d] = true;
				c->vvars[c->n_vvars++] = d;
			}
		}
	qsort(c->vals, c->n_vals, sizeof(*c->vals), cmp_valref);
	free(mark);
}

static void
ctx_done(struct ctx *c)
{
	free(c->temp);
	free(c->vals);
	free(c->vvars);
}

/*
 * The program: what the VM runs for each function, in its terms.
 */
enum { M_ALLOC, M_KERNEL, M_DESTROY };

struct pout {
	int		var;
	int		src;	/* M_KERNEL, M_DESTROY: variable aliased */
	int		mode;
	uint64_t	bytes;
};

struct prog {
	int		 n;
	int		*node;
	int		*out0;	/* n + 1 offsets into outs */
	struct pout	*outs;
	int		*free0;	/* n + 1 offsets into frees (GC lists) */
	int		*frees;
	int		 n_end;	/* update sources released at the end */
	int		*end;
	int		 fo0;	/* its kept outputs: sim.fouts[fo0 ...] */
};

static bool
is_fn_output(const struct gp_function *gf, int v)
{
	for (int k = 0; k < gf->n_out; k++)
		if (gf->out[k] == v)
			return (true);
	return (false);
}

/* Build function fi's program as gp_vm_new() does; last and surv are
 * scratch arrays of g->n_vars entries (surv is left marking the variables
 * that survive the call).  With mp, also describe the outputs into
 * mp->outs (names into pool), reading each variable once. */
static void
prog_build(struct prog *pr, const struct ctx *c, const struct gp_vm *vm,
    int fi, int *last, bool *surv, struct gp_memprof *mp, struct pool *pool)
{
	const struct gp_graph *g = c->g;
	const struct gp_function *gf = &g->fns[fi];
	int n = gp_vm_n_steps(vm, fi);
	size_t no = 0, nfree = 0;

	memset(pr, 0, sizeof(*pr));
	pr->n = n;
	pr->node = gp_xmalloc(sizeof(int) * ((size_t)n + 1));
	for (int i = 0; i < n; i++) {
		pr->node[i] = gp_vm_step_node(vm, fi, i);
		no += (size_t)g->nodes[pr->node[i]].n_out;
	}
	memset(last, 0xff, sizeof(int) * g->n_vars);	/* -1 */
	memset(surv, 0, sizeof(bool) * g->n_vars);
	for (int i = 0; i < n; i++) {
		const struct gp_node *nd = &g->nodes[pr->node[i]];

		for (int k = 0; k < nd->n_in; k++)
			last[nd->in[k]] = i;
		for (int k = 0; k < nd->n_out; k++)
			if (last[nd->out[k]] < i)
				last[nd->out[k]] = i;
	}
	for (int k = 0; k < gf->n_out; k++)
		surv[gf->out[k]] = true;
	for (int k = 0; k < gf->n_upd; k++)
		surv[gf->upd[k].src] = true;

	pr->out0 = gp_xmalloc(sizeof(int) * ((size_t)n + 1));
	pr->outs = gp_xmalloc(sizeof(*pr->outs) * (no + 1));
	pr->free0 = gp_xmalloc(sizeof(int) * ((size_t)n + 1));
	if (mp != NULL) {
		mp->n_outs = (uint32_t)no;
		mp->outs = gp_xcalloc(no + 1, sizeof(*mp->outs));
	}
	no = 0;
	for (int i = 0; i < n; i++) {
		const struct gp_node *nd = &g->nodes[pr->node[i]];

		pr->out0[i] = (int)no;
		for (int k = 0; k < nd->n_out; k++) {
			struct pout *o = &pr->outs[no++];
			const struct gp_var *gv = &g->vars[nd->out[k]];

			o->var = nd->out[k];
			o->bytes = gp_type_nbytes(&gv->type);
			if (mp != NULL) {
				struct gp_mem_out *mo = &mp->outs[no - 1];

				mo->ndim = (int8_t)gv->type.ndim;
				mo->dtype = (int8_t)gv->type.dtype;
				memcpy(mo->shape, gv->type.shape,
				    sizeof(mo->shape));
				mo->var = pool_add(pool, gv->name);
			}
			o->src = -1;
			if (nd->destroy[k] >= 0) {
				o->mode = M_DESTROY;
				o->src = nd->in[nd->destroy[k]];
			} else if (nd->view[k] >= 0) {
				o->mode = M_KERNEL;
				o->src = nd->in[nd->view[k]];
			} else
				o->mode = M_ALLOC;
		}
		nfree += (size_t)(nd->n_in + nd->n_out);
	}
	pr->out0[n] = (int)no;
	/* the GC lists: temporaries whose last use is step i and that the
	 * call does not return, inputs first, each once */
	pr->frees = gp_xmalloc(sizeof(int) * (nfree + 1));
	nfree = 0;
	for (int i = 0; i < n; i++) {
		const struct gp_node *nd = &g->nodes[pr->node[i]];

		pr->free0[i] = (int)nfree;
		for (int pass = 0; pass < 2; pass++) {
			int m = pass ? nd->n_out : nd->n_in;
			const int *vs = pass ? nd->out : nd->in;

			for (int k = 0; k < m; k++) {
				int v = vs[k];
				bool dup = false;

				if (!c->temp[v] || last[v] != i || surv[v])
					continue;
				for (size_t j = (size_t)pr->free0[i]; j < nfree;
				    j++)
					if (pr->frees[j] == v)
						dup = true;
				if (!dup)
					pr->frees[nfree++] = v;
			}
		}
	}
	pr->free0[n] = (int)nfree;
	pr->end = gp_xmalloc(sizeof(int) * ((size_t)gf->n_upd + 1));
	for (int k = 0; k < gf->n_upd; k++) {
		int v = gf->upd[k].src;

		if (c->temp[v] && !is_fn_output(gf, v))
			pr->end[pr->n_end++] = v;
	}
}

static void
prog_free(struct prog *pr)
{
	free(pr->node);
	free(pr->out0);
	free(pr->outs);
	free(pr->free0);
	free(pr->frees);
	free(pr->end);
}

/*
 * sim: the VM's storage rules replayed.
 */
struct sim {
	const struct gp_graph	*g;
	const struct ctx	*c;
	const struct prog	*pr;
	int			 n_fn;
	bool			 gc;
	int			*slot;	/* per variable: slot's storage */
	int			*gval;	/* per variable: value's storage */
	int			*fouts;	/* outputs each function keeps */
	int			 n_fouts;
	/* storages */
	int64_t			*ref;
	uint64_t		*bytes, *born;
	int			*svar, *sfn, *sstep;
	size_t			 n_st, cap_st;
	int			*fl;	/* recycled ids */
	size_t			 n_fl, cap_fl;
	uint64_t		 live, fresh, call, ev;
	int			 cur_fn, cur_step;
	/* the watched call */
	bool			 watch;
	uint64_t		 hw, hw_fresh;	/* a step's high-water */
	uint64_t		 cpeak, cpeak_fresh, cpeak_ev;
	int			 cpeak_step;
	/* replay: at event stop_ev, dump the live storages */
	uint64_t		 stop_ev;
	bool			 dumped;
	struct gp_mem_buf	*dump;
	int			 n_dump;
	uint64_t		 dump_fresh;
};

static void
sim_peak_check(struct sim *s)
{
	if (s->live > s->hw) {
		s->hw = s->live;
		s->hw_fresh = s->fresh;
	}
	if (s->watch && s->live > s->cpeak) {
		s->cpeak = s->live;
		s->cpeak_fresh = s->fresh;
		s->cpeak_ev = s->ev;
		s->cpeak_step = s->cur_step;
	}
}

static void
sim_dump(struct sim *s)
{
	const struct gp_graph *g = s->g;
	int *valvar = gp_xmalloc(sizeof(int) * (s->n_st + 1));
	int n = 0;

	/* a storage holding a graph value is named after that variable */
	memset(valvar, 0xff, sizeof(int) * (s->n_st + 1));
	for (size_t j = s->c->n_vvars; j-- > 0;) {
		int v = s->c->vvars[j];

		if (s->gval[v] >= 0)
			valvar[s->gval[v]] = v;
	}
	for (size_t i = 0; i < s->n_st; i++)
		if (s->ref[i] > 0)
			n++;
	s->dump = gp_xcalloc((size_t)n + 1, sizeof(*s->dump));
	s->n_dump = 0;
	for (size_t i = 0; i < s->n_st; i++) {
		struct gp_mem_buf *b;

		if (s->ref[i] <= 0)
			continue;
		b = &s->dump[s->n_dump++];
		b->bytes = s->bytes[i];
		/* a variable index for now */
		b->var = (uint32_t)(valvar[i] >= 0 ? valvar[i] : s->svar[i]);
		b->fn = s->sfn[i];
		b->step = s->sstep[i];
		b->n_ref = (int)s->ref[i];
		if (valvar[i] >= 0 || s->sfn[i] < 0) {
			switch (g->vars[b->var].kind) {
			case GP_VAR_INPUT:
				b->kind = GP_MEM_INPUT;
				break;
			case GP_VAR_SHARED:
				b->kind = GP_MEM_SHARED;
				break;
			case GP_VAR_CONSTANT:
				b->kind = GP_MEM_CONSTANT;
				break;
			default:	/* a temporary now a shared value */
				b->kind = GP_MEM_SHARED;
				break;
			}
		} else
			b->kind = s->born[i] == s->call ? GP_MEM_NEW :
			    GP_MEM_HELD;
	}
	s->dump_fresh = s->fresh;
	s->dumped = true;
	free(valvar);
}

static int
sim_alloc(struct sim *s, uint64_t bytes, int var)
{
	size_t id;

	if (s->n_fl > 0)
		id = (size_t)s->fl[--s->n_fl];
	else {
		if (s->n_st == s->cap_st) {
			size_t c = s->cap_st;

			gp_grow(&s->ref, &c, s->n_st + 1, sizeof(*s->ref));
			c = s->cap_st;
			gp_grow(&s->bytes, &c, s->n_st + 1, sizeof(*s->bytes));
			c = s->cap_st;
			gp_grow(&s->born, &c, s->n_st + 1, sizeof(*s->born));
			c = s->cap_st;
			gp_grow(&s->svar, &c, s->n_st + 1, sizeof(*s->svar));
			c = s->cap_st;
			gp_grow(&s->sfn, &c, s->n_st + 1, sizeof(*s->sfn));
			c = s->cap_st;
			gp_grow(&s->sstep, &c, s->n_st + 1, sizeof(*s->sstep));
			s->cap_st = c;
			/* the free list never outgrows the storages */
			gp_grow(&s->fl, &s->cap_fl, c, sizeof(*s->fl));
		}
		id = s->n_st++;
	}
	s->ref[id] = 1;
	s->bytes[id] = bytes;
	s->born[id] = s->call;
	s->svar[id] = var;
	s->sfn[id] = s->cur_fn;
	s->sstep[id] = s->cur_step;
	s->live += bytes;
	s->fresh += bytes;
	s->ev++;
	sim_peak_check(s);
	if (s->ev == s->stop_ev && !s->dumped)
		sim_dump(s);
	return ((int)id);
}

static inline void
sim_ref(struct sim *s, int id)
{
	if (id >= 0)
		s->ref[id]++;
}

static void
sim_unref(struct sim *s, int id)
{
	if (id < 0 || --s->ref[id] > 0)
		return;
	s->live -= s->bytes[id];
	if (s->born[id] == s->call)
		s->fresh -= s->bytes[id];
	s->fl[s->n_fl++] = id;
}

/* gp_tensor_view(dst, src) on slots or values. */
static inline void
sim_view(struct sim *s, int *dst, int src)
{
	int old = *dst;

	sim_ref(s, src);
	*dst = src;
	sim_unref(s, old);
}

static inline void
sim_release(struct sim *s, int *t)
{
	int old = *t;

	*t = -1;
	sim_unref(s, old);
}

/* A fresh VM: every graph value bound to its slot, no temporary held. */
static void
sim_init(struct sim *s, const struct ctx *c, const struct prog *pr,
    int n_fn, bool gc)
{
	const struct gp_graph *g = c->g;
	const struct valref *vr = c->vals;
	size_t n = c->n_vals;

	memset(s, 0, sizeof(*s));
	s->g = g;
	s->c = c;
	s->pr = pr;
	s->n_fn = n_fn;
	s->gc = gc;
	s->slot = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	s->gval = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	s->stop_ev = UINT64_MAX;
	s->cur_fn = -1;
	s->cur_step = -1;
	memset(s->slot, 0xff, sizeof(int) * g->n_vars);	/* -1 */
	memset(s->gval, 0xff, sizeof(int) * g->n_vars);
	s->n_fouts = n_fn > 0 ? pr[n_fn - 1].fo0 +
	    g->fns[n_fn - 1].n_out : 0;
	s->fouts = gp_xmalloc(sizeof(int) * ((size_t)s->n_fouts + 1));
	memset(s->fouts, 0xff, sizeof(int) * ((size_t)s->n_fouts + 1));
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int id;
		int64_t refs;

		while (j < n && vr[j].st == vr[i].st)
			j++;
		id = sim_alloc(s, vr[i].st->nbytes, vr[i].var);
		/* the graph's value and the VM's slot of each variable, plus
		 * any reference held outside (never dropped) */
		refs = 2 * (int64_t)(j - i);
		s->ref[id] = vr[i].st->refcount > refs ? vr[i].st->refcount :
		    refs;
		for (size_t k = i; k < j; k++)
			s->gval[vr[k].var] = s->slot[vr[k].var] = id;
		i = j;
	}
	s->fresh = 0;
	s->ev = 0;
	s->hw = s->hw_fresh = 0;
}

static void *
dup_arr(const void *p, size_t n, size_t sz)
{
	void *q = gp_xmalloc(n * sz + 1);

	if (n > 0)
		memcpy(q, p, n * sz);
	return (q);
}

/* A copy of s to replay from (the storage arrays sized to what is used). */
static void
sim_copy(struct sim *d, const struct sim *s)
{
	size_t nv = s->g->n_vars;

	*d = *s;
	d->slot = dup_arr(s->slot, nv, sizeof(int));
	d->gval = dup_arr(s->gval, nv, sizeof(int));
	d->fouts = dup_arr(s->fouts, (size_t)s->n_fouts, sizeof(int));
	d->ref = dup_arr(s->ref, s->n_st, sizeof(*s->ref));
	d->bytes = dup_arr(s->bytes, s->n_st, sizeof(*s->bytes));
	d->born = dup_arr(s->born, s->n_st, sizeof(*s->born));
	d->svar = dup_arr(s->svar, s->n_st, sizeof(*s->svar));
	d->sfn = dup_arr(s->sfn, s->n_st, sizeof(*s->sfn));
	d->sstep = dup_arr(s->sstep, s->n_st, sizeof(*s->sstep));
	d->cap_st = s->n_st;
	d->fl = gp_xmalloc(sizeof(*s->fl) * (s->n_st + 1));
	if (s->n_fl > 0)
		memcpy(d->fl, s->fl, sizeof(*s->fl) * s->n_fl);
	d->cap_fl = s->n_st + 1;
	d->dump = NULL;
}

static void
sim_done(struct sim *s)
{
	free(s->slot);
	free(s->gval);
	free(s->fouts);
	free(s->ref);
	free(s->bytes);
	free(s->born);
	free(s->svar);
	free(s->sfn);
	free(s->sstep);
	free(s->fl);
	free(s->dump);
}

/* One gp_vm_call() of function fi; after[i] and during[i] get the live
 * bytes after and the high-water during step i when not NULL. */
static void
sim_call(struct sim *s, int fi, struct gp_mem_point *after,
    struct gp_mem_point *during)
{
	const struct gp_graph *g = s->g;
	const struct gp_function *gf = &g->fns[fi];
	const struct prog *pr = &s->pr[fi];
	int *slot = s->slot;

	s->call++;
	s->fresh = 0;
	s->cur_fn = fi;
	s->cur_step = -1;
	s->ev++;
	s->hw = s->live;
	s->hw_fresh = 0;
	if (s->watch) {
		s->cpeak = s->live;
		s->cpeak_fresh = 0;
		s->cpeak_ev = s->ev;
		s->cpeak_step = -1;
	}
	if (s->ev == s->stop_ev && !s->dumped)
		sim_dump(s);
	/* drop_outputs(): the outputs kept from this function's last call */
	for (int k = 0; k < gf->n_out; k++)
		sim_release(s, &s->fouts[pr->fo0 + k]);
	for (int i = 0; i < pr->n; i++) {
		const struct pout *o = &pr->outs[pr->out0[i]];
		int no = pr->out0[i + 1] - pr->out0[i];

		s->cur_step = i;
		s->hw = s->live;
		s->hw_fresh = s->fresh;
		/* prepare_outputs() */
		for (int k = 0; k < no; k++) {
			int *t = &slot[o[k].var];

			switch (o[k].mode) {
			case M_ALLOC:
				if (*t >= 0) {
					if (s->ref[*t] == 1)
						break;
					sim_release(s, t);
				}
				*t = sim_alloc(s, o[k].bytes, o[k].var);
				break;
			case M_KERNEL:
				sim_release(s, t);
				break;
			case M_DESTROY:
				sim_view(s, t, slot[o[k].src]);
				break;
			}
		}
		/* the kernel makes its views */
		for (int k = 0; k < no; k++)
			if (o[k].mode == M_KERNEL)
				sim_view(s, &slot[o[k].var], slot[o[k].src]);
		/* collect() */
		if (s->gc)
			for (int j = pr->free0[i]; j < pr->free0[i + 1]; j++)
				sim_release(s, &slot[pr->frees[j]]);
		if (after != NULL) {
			after[i].live = s->live;
			after[i].fresh = s->fresh;
			during[i].live = s->hw;
			during[i].fresh = s->hw_fresh;
		}
		if (s->dumped && s->stop_ev != UINT64_MAX)
			return;		/* a replay stops here */
	}
	/* keep_outputs() */
	for (int k = 0; k < gf->n_out; k++)
		sim_view(s, &s->fouts[pr->fo0 + k], slot[gf->out[k]]);
	/* apply_updates() */
	if (gf->n_upd > 0) {
		int *nv = gp_xmalloc(sizeof(int) * (size_t)gf->n_upd);

		for (int k = 0; k < gf->n_upd; k++) {
			nv[k] = -1;
			sim_view(s, &nv[k], slot[gf->upd[k].src]);
		}
		for (int k = 0; k < gf->n_upd; k++) {
			int d = gf->upd[k].dst;

			sim_view(s, &s->gval[d], nv[k]);
			sim_view(s, &slot[d], nv[k]);
			sim_release(s, &nv[k]);
		}
		free(nv);
		if (s->gc)
			for (int k = 0; k < pr->n_end; k++)
				sim_release(s, &slot[pr->end[k]]);
	}
}

/* Bytes of the live storages that hold a graph value. */
static uint64_t
sim_value_bytes(const struct sim *s)
{
	bool *isval = gp_xcalloc(s->n_st + 1, sizeof(bool));
	uint64_t b = 0;

	for (size_t j = 0; j < s->c->n_vvars; j++) {
		int id = s->gval[s->c->vvars[j]];

		if (id >= 0 && !isval[id]) {
			isval[id] = true;
			b += s->bytes[id];
		}
	}
	free(isval);
	return (b);
}

/* Buffers of one size by name, then kind (a merge sort of a[lo, hi) using
 * t as scratch): the order the replay met them in depends on the build
 * (an ASan build lists mlp's 8-byte constants in another order). */
static int
buf_name_cmp(const struct gp_mem_buf *x, const struct gp_mem_buf *y,
    const struct pool *pool)
{
	int d = strcmp(pool->s + x->var, pool->s + y->var);

	if (d != 0)
		return (d);
	return (x->kind != y->kind ? (x->kind < y->kind ? -1 : 1) : 0);
}

static void
sort_by_name(struct gp_mem_buf *a, struct gp_mem_buf *t, size_t lo,
    size_t hi, const struct pool *pool)
{
	size_t mid = lo + (hi - lo) / 2, i = lo, j = mid, o = lo;

	if (hi - lo < 2)
		return;
	sort_by_name(a, t, lo, mid, pool);
	sort_by_name(a, t, mid, hi, pool);
	while (i < mid && j < hi)
		t[o++] = buf_name_cmp(&a[j], &a[i], pool) < 0 ? a[j++] :
		    a[i++];
	while (i < mid)
		t[o++] = a[i++];
	while (j < hi)
		t[o++] = a[j++];
	memcpy(a + lo, t + lo, sizeof(*a) * (hi - lo));
}

/* Largest first, ties by name: a stable LSD radix sort of (bytes,
 * position) pairs on the bytes' complement, skipping the byte positions
 * every key shares (most of them: sizes are few and small), then each run
 * of one size sorted by name. */
struct bkey {
	uint64_t	key;
	uint32_t	i;
};

static void
sort_bufs(struct gp_mem_buf *a, size_t n, const struct pool *pool)
{
	struct bkey *k = gp_xmalloc(sizeof(*k) * (n + 1));
	struct bkey *t = gp_xmalloc(sizeof(*t) * (n + 1));
	struct gp_mem_buf *c;

	for (size_t i = 0; i < n; i++) {
		k[i].key = ~a[i].bytes;
		k[i].i = (uint32_t)i;
	}
	for (int shift = 0; shift < 64; shift += 8) {
		size_t cnt[257] = {0};

		for (size_t i = 0; i < n; i++)
			cnt[((k[i].key >> shift) & 0xff) + 1]++;
		if (n == 0 || cnt[((k[0].key >> shift) & 0xff) + 1] == n)
			continue;
		for (int b = 0; b < 256; b++)
			cnt[b + 1] += cnt[b];
		for (size_t i = 0; i < n; i++)
			t[cnt[(k[i].key >> shift) & 0xff]++] = k[i];
		{
			struct bkey *x = k;

			k = t;
			t = x;
		}
	}
	c = gp_xmalloc(sizeof(*c) * (n + 1));
	for (size_t i = 0; i < n; i++)
		c[i] = a[k[i].i];
	if (n > 0)
		memcpy(a, c, sizeof(*a) * n);
	for (size_t lo = 0, hi; lo < n; lo = hi) {
		for (hi = lo + 1; hi < n && a[hi].bytes == a[lo].bytes; hi++)
			;
		sort_by_name(a, c, lo, hi, pool);
	}
	free(c);
	free(k);
	free(t);
}

/*
 * Replay the session's rounds (every function in turn) for one GC setting
 * and fill ms for function fi: its first call (round one) and a later one
 * (round two; every later round repeats it, as the state at a round's
 * start is the same from round two on).  A second replay stops at the peak
 * to list the storages alive then.
 */
static void
sim_function(struct gp_mem_sim *ms, const struct ctx *c,
    const struct prog *pr, int n_fn, int fi, bool gc, struct pool *pool)
{
	const struct gp_graph *g = c->g;
	int n = pr[fi].n, pc;
	struct gp_mem_point *rec[2][2];
	uint64_t peak[2], fresh[2], ev[2];
	int step[2];
	struct sim s, snap[2];

	for (int r = 0; r < 2; r++)
		for (int k = 0; k < 2; k++)
			rec[r][k] = gp_xmalloc(sizeof(struct gp_mem_point) *
			    ((size_t)n + 1));
	sim_init(&s, c, pr, n_fn, gc);
	for (int r = 0; r < 2; r++) {
		for (int f = 0; f < n_fn; f++) {
			if (f != fi) {
				sim_call(&s, f, NULL, NULL);
				continue;
			}
			if (r == 0)
				ms->base_first = s.live;
			else {
				ms->base_steady = s.live;
				ms->values = sim_value_bytes(&s);
				ms->held = s.live - ms->values;
			}
			sim_copy(&snap[r], &s);
			s.watch = true;
			sim_call(&s, f, rec[r][0], rec[r][1]);
			s.watch = false;
			peak[r] = s.cpeak;
			fresh[r] = s.cpeak_fresh;
			ev[r] = s.cpeak_ev;
			step[r] = s.cpeak_step;
		}
	}
	sim_done(&s);
	ms->peak_first = peak[0];
	ms->peak_steady = peak[1];
	pc = peak[1] >= peak[0];
	ms->peak_call = pc;
	ms->peak = peak[pc];
	ms->peak_step = step[pc];
	ms->peak_fresh = fresh[pc];
	ms->fresh_peak = 0;
	for (int i = 0; i < n; i++)
		ms->fresh_peak = max64(ms->fresh_peak, rec[1][1][i].fresh);
	ms->after = rec[pc][0];
	ms->during = rec[pc][1];
	free(rec[!pc][0]);
	free(rec[!pc][1]);

	/* replay the peak's call from its start, to list what is alive at
	 * the peak */
	sim_done(&snap[!pc]);
	s = snap[pc];
	s.stop_ev = ev[pc];
	sim_call(&s, fi, NULL, NULL);
	ms->bufs = s.dump;
	ms->n_bufs = s.n_dump;
	s.dump = NULL;
	for (int i = 0; i < ms->n_bufs; i++)
		ms->bufs[i].var = pool_add(pool,
		    g->vars[ms->bufs[i].var].name);
	sort_bufs(ms->bufs, (size_t)ms->n_bufs, pool);
	sim_done(&s);
}

/*
 * model: Theano's intermediates, for one function called on its own.
 */
struct model {
	int		 n, nv;
	int		*in0, *ins;	/* per step: distinct temp inputs */
	int		*out0;		/* per step: its first output */
	/* per output: the temporary a view or inplace output aliases (-1:
	 * a new output, or an alias of a graph value) */
	int		*alias_src;
	int		*mode;		/* per output slot */
	uint64_t	*obytes;	/* per output slot */
	int		*prod;		/* per temp: its step */
	int		*ncons;		/* per temp: consumer steps */
	bool		*surv;		/* per temp: the call returns it */
	/* per variant */
	uint64_t	*alloc;		/* per step */
	int		*org;		/* per temp: its storage; -1 */
	uint64_t	*bytes;		/* per temp as an origin */
	/* state */
	int		*rem, *cnt;
	uint64_t	 live;
	bool		 gc;
};

static void
model_build(struct model *m, const struct gp_graph *g, const struct prog *pr,
    const bool *surv)
{
	int *mid = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	int *seen;
	size_t nin = 0;
	int no = pr->out0[pr->n];

	memset(m, 0, sizeof(*m));
	m->n = pr->n;
	m->nv = no;
	memset(mid, 0xff, sizeof(int) * g->n_vars);	/* -1 */
	for (int j = 0; j < no; j++)
		mid[pr->outs[j].var] = j;
	m->out0 = pr->out0;
	m->mode = gp_xmalloc(sizeof(int) * ((size_t)no + 1));
	m->alias_src = gp_xmalloc(sizeof(int) * ((size_t)no + 1));
	m->obytes = gp_xmalloc(sizeof(uint64_t) * ((size_t)no + 1));
	m->prod = gp_xmalloc(sizeof(int) * ((size_t)no + 1));
	m->ncons = gp_xcalloc((size_t)no + 1, sizeof(int));
	m->surv = gp_xcalloc((size_t)no + 1, sizeof(bool));
	m->org = gp_xmalloc(sizeof(int) * ((size_t)no + 1));
	m->bytes = gp_xcalloc((size_t)no + 1, sizeof(uint64_t));
	m->rem = gp_xmalloc(sizeof(int) * ((size_t)no + 1));
	m->cnt = gp_xmalloc(sizeof(int) * ((size_t)no + 1));
	m->alloc = gp_xcalloc((size_t)pr->n + 1, sizeof(uint64_t));
	m->in0 = gp_xmalloc(sizeof(int) * ((size_t)pr->n + 1));
	for (int i = 0; i < pr->n; i++)
		nin += (size_t)g->nodes[pr->node[i]].n_in;
	m->ins = gp_xmalloc(sizeof(int) * (nin + 1));
	seen = gp_xcalloc((size_t)no + 1, sizeof(int));
	nin = 0;
	for (int i = 0; i < pr->n; i++) {
		const struct gp_node *nd = &g->nodes[pr->node[i]];

		m->in0[i] = (int)nin;
		for (int k = 0; k < nd->n_in; k++) {
			int u = mid[nd->in[k]];

			if (u < 0 || seen[u] == i + 1)
				continue;
			seen[u] = i + 1;
			m->ins[nin++] = u;
			m->ncons[u]++;
		}
		for (int j = pr->out0[i]; j < pr->out0[i + 1]; j++) {
			const struct pout *o = &pr->outs[j];

			m->prod[j] = i;
			m->mode[j] = o->mode;
			m->obytes[j] = o->bytes;
			m->alias_src[j] = o->src >= 0 ? mid[o->src] : -1;
			m->surv[j] = surv[o->var];
		}
	}
	m->in0[pr->n] = (int)nin;
	free(seen);
	free(mid);
}

static void
model_free(struct model *m)
{
	free(m->ins);
	free(m->in0);
	free(m->mode);
	free(m->alias_src);
	free(m->obytes);
	free(m->prod);
	free(m->ncons);
	free(m->surv);
	free(m->org);
	free(m->bytes);
	free(m->rem);
	free(m->cnt);
	free(m->alloc);
}

/* Origins and allocations for a variant; returns the bytes allocated
 * (the peak when nothing is freed). */
static uint64_t
model_variant(struct model *m, enum gp_mem_variant var)
{
	uint64_t total = 0;

	for (int i = 0; i < m->n; i++) {
		m->alloc[i] = 0;
		for (int j = m->out0[i]; j < m->out0[i + 1]; j++) {
			int mode = m->mode[j];

			if ((var == GP_MEM_NO_INPLACE && mode == M_DESTROY) ||
			    (var == GP_MEM_NO_VIEW && mode == M_KERNEL))
				mode = M_ALLOC;
			m->bytes[j] = 0;
			if (mode == M_ALLOC) {
				m->org[j] = j;
				m->bytes[j] = m->obytes[j];
				m->alloc[i] += m->obytes[j];
			} else
				m->org[j] = m->alias_src[j] >= 0 ?
				    m->org[m->alias_src[j]] : -1;
		}
		total += m->alloc[i];
	}
	return (total);
}

static void
model_reset(struct model *m, bool gc)
{
	m->gc = gc;
	m->live = 0;
	for (int u = 0; u < m->nv; u++) {
		m->rem[u] = m->ncons[u];
		m->cnt[u] = 0;
	}
}

static inline void
model_hold(struct model *m, int u)
{
	int o = m->org[u];

	if (o >= 0 && m->cnt[o]++ == 0)
		m->live += m->bytes[o];
}

static inline void
model_drop(struct model *m, int u)
{
	int o = m->org[u];

	if (o >= 0 && --m->cnt[o] == 0)
		m->live -= m->bytes[o];
}

/* Run step p; returns the bytes live during it. */
static uint64_t
model_exec(struct model *m, int p)
{
	uint64_t during;

	for (int j = m->out0[p]; j < m->out0[p + 1]; j++)
		model_hold(m, j);
	during = m->live;
	if (m->gc) {
		for (int j = m->in0[p]; j < m->in0[p + 1]; j++) {
			int w = m->ins[j];

			if (--m->rem[w] == 0 && !m->surv[w])
				model_drop(m, w);
		}
		for (int j = m->out0[p]; j < m->out0[p + 1]; j++)
			if (m->ncons[j] == 0 && !m->surv[j])
				model_drop(m, j);
	}
	return (during);
}

static void
model_undo(struct model *m, int p)
{
	if (m->gc) {
		for (int j = m->out0[p + 1] - 1; j >= m->out0[p]; j--)
			if (m->ncons[j] == 0 && !m->surv[j])
				model_hold(m, j);
		for (int j = m->in0[p + 1] - 1; j >= m->in0[p]; j--) {
			int w = m->ins[j];

			if (m->rem[w]++ == 0 && !m->surv[w])
				model_hold(m, w);
		}
	}
	for (int j = m->out0[p + 1] - 1; j >= m->out0[p]; j--)
		model_drop(m, j);
}

/* The peak of an order (NULL: the schedule); per step figures into
 * ap when not NULL. */
static uint64_t
model_eval(struct model *m, bool gc, const int *order, struct gp_mem_apply *ap)
{
	uint64_t peak = 0;

	model_reset(m, gc);
	for (int i = 0; i < m->n; i++) {
		int p = order != NULL ? order[i] : i;
		uint64_t d = model_exec(m, p);

		peak = max64(peak, d);
		if (ap != NULL) {
			ap[p].inter_during = d;
			ap[p].inter_after = m->live;
		}
	}
	return (peak);
}

/*
 * search: the smallest peak over valid orders.
 */
struct frame {
	int	mv;		/* the move into this state, -1: root */
	int	n_forced;	/* moves forced after it */
	size_t	c0, c1, next;	/* its children in cand[] */
	int	lbp;		/* lb_order[lbp...]: steps maybe to run */
};

struct cand {
	uint64_t	k1, k2;
	int		p;
};

struct search {
	struct model	*m;
	int		 n, W;
	int		*succ0, *succ;	/* dependency edges, CSR */
	int		*npred;
	uint64_t	*ready, *done;	/* bitsets */
	uint64_t	*zob, hash;
	uint64_t	*lbs;		/* per step: a bound all orders meet */
	int		*lb_order;	/* steps by lbs, descending */
	uint64_t	 lb;
	int		*path;
	uint64_t	*pk;		/* per depth: peak so far */
	int		 depth;
	uint64_t	 best;
	int		*best_order;
	/* memo: down-set -> the smallest peak it was reached with */
	uint64_t	*mkey, *mval, *mhash;
	size_t		 mcap, mn, mmax;
	/* budget */
	uint64_t	 deadline, states, max_states;
	bool		 stop, truncated;
	struct cand	*cand;
	size_t		 n_cand, cap_cand;
	struct frame	*fr;
	int		 n_fr;
	/* the dynamic bound (small graphs): ancestors of every step, the
	 * consumers of every temporary, scratch per storage */
	bool		 dyn;
	uint64_t	*anc;		/* n x W */
	int		*cons0, *cons;
	uint64_t	*pin;		/* nv x W: steps a storage outlives */
	int		*touched, *olist;
	int		 stamp;
};

/* Steps up to this many get the dynamic bound. */
#define DYN_LIMIT 256

static uint64_t
splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

static inline bool
bit_get(const uint64_t *b, int i)
{
	return ((b[i >> 6] >> (i & 63)) & 1);
}

static inline void
bit_set(uint64_t *b, int i)
{
	b[i >> 6] |= (uint64_t)1 << (i & 63);
}

static inline void
bit_clr(uint64_t *b, int i)
{
	b[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

static void
move_exec(struct search *s, int p)
{
	uint64_t d = model_exec(s->m, p);

	s->pk[s->depth + 1] = max64(s->pk[s->depth], d);
	s->path[s->depth++] = p;
	bit_set(s->done, p);
	bit_clr(s->ready, p);
	s->hash ^= s->zob[p];
	for (int j = s->succ0[p]; j < s->succ0[p + 1]; j++)
		if (--s->npred[s->succ[j]] == 0)
			bit_set(s->ready, s->succ[j]);
}

static void
move_undo(struct search *s)
{
	int p = s->path[--s->depth];

	for (int j = s->succ0[p + 1] - 1; j >= s->succ0[p]; j--)
		if (s->npred[s->succ[j]]++ == 0)
			bit_clr(s->ready, s->succ[j]);
	bit_set(s->ready, p);
	bit_clr(s->done, p);
	s->hash ^= s->zob[p];
	model_undo(s->m, p);
}

/* Is the down-set known with a peak <= pk?  Else remember it. */
static bool
memo_seen(struct search *s, uint64_t pk)
{
	size_t W = (size_t)s->W, i;

	if (s->mcap == 0)
		return (false);
	i = (size_t)s->hash & (s->mcap - 1);
	for (;;) {
		if (s->mval[i] == UINT64_MAX)
			break;
		if (s->mhash[i] == s->hash &&
		    memcmp(&s->mkey[i * W], s->done, W * 8) == 0) {
			if (s->mval[i] <= pk)
				return (true);
			s->mval[i] = pk;
			return (false);
		}
		i = (i + 1) & (s->mcap - 1);
	}
	if (s->mn + 1 > s->mcap / 2) {
		/* grow, or stop remembering */
		size_t ncap = s->mcap * 2;
		uint64_t *nk, *nv, *nh;

		if (ncap / 2 > s->mmax)
			return (false);
		nk = gp_xmalloc(ncap * W * 8);
		nv = gp_xmalloc(ncap * 8);
		nh = gp_xmalloc(ncap * 8);
		for (size_t j = 0; j < ncap; j++)
			nv[j] = UINT64_MAX;
		for (size_t j = 0; j < s->mcap; j++) {
			size_t t;

			if (s->mval[j] == UINT64_MAX)
				continue;
			t = (size_t)s->mhash[j] & (ncap - 1);
			while (nv[t] != UINT64_MAX)
				t = (t + 1) & (ncap - 1);
			nv[t] = s->mval[j];
			nh[t] = s->mhash[j];
			memcpy(&nk[t * W], &s->mkey[j * W], W * 8);
		}
		free(s->mkey);
		free(s->mval);
		free(s->mhash);
		s->mkey = nk;
		s->mval = nv;
		s->mhash = nh;
		s->mcap = ncap;
		i = (size_t)s->hash & (ncap - 1);
		while (s->mval[i] != UINT64_MAX)
			i = (i + 1) & (ncap - 1);
	}
	s->mval[i] = pk;
	s->mhash[i] = s->hash;
	memcpy(&s->mkey[i * W], s->done, W * 8);
	s->mn++;
	return (false);
}

static int
cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->k1 != y->k1)
		return (x->k1 < y->k1 ? -1 : 1);
	if (x->k2 != y->k2)
		return (x->k2 < y->k2 ? -1 : 1);
	return (x->p - y->p);
}

static void
budget_check(struct search *s)
{
	s->states++;
	/* a state of a large graph costs enough to read the clock each
	 * time */
	if (s->states >= s->max_states)
		s->stop = true;
	else if ((s->n > 4096 || (s->states & 63) == 0) &&
	    gp_clock_ns() >= s->deadline)
		s->stop = true;
}

/*
 * A bound on every completion of the state: when a step still to run
 * runs, its inputs, its new outputs and every storage alive now that a
 * later step (a descendant of it) or the caller still needs are alive.
 */
static uint64_t
dyn_bound(struct search *s)
{
	struct model *m = s->m;
	size_t W = (size_t)s->W;
	int no = 0;
	uint64_t bound = 0;

	s->stamp++;
	for (int u = 0; u < m->nv; u++) {
		int o = m->org[u];
		uint64_t *pin;

		if (o < 0 || !bit_get(s->done, m->prod[u]) ||
		    (!m->surv[u] && m->rem[u] == 0))
			continue;
		pin = &s->pin[(size_t)o * W];
		if (s->touched[o] != s->stamp) {
			s->touched[o] = s->stamp;
			s->olist[no++] = o;
			memset(pin, 0, W * 8);
		}
		if (m->surv[u]) {
			memset(pin, 0xff, W * 8);
			continue;
		}
		for (int j = s->cons0[u]; j < s->cons0[u + 1]; j++) {
			int c = s->cons[j];

			if (bit_get(s->done, c))
				continue;
			for (size_t w = 0; w < W; w++)
				pin[w] |= s->anc[(size_t)c * W + w];
		}
	}
	for (int p = 0; p < s->n; p++) {
		uint64_t b;

		if (bit_get(s->done, p))
			continue;
		b = s->lbs[p];
		for (int k = 0; k < no; k++) {
			int o = s->olist[k];
			bool input = false;

			if (!bit_get(&s->pin[(size_t)o * W], p))
				continue;
			for (int j = m->in0[p]; j < m->in0[p + 1] && !input;
			    j++)
				input = m->org[m->ins[j]] == o;
			if (!input)
				b += m->bytes[o];
		}
		bound = max64(bound, b);
	}
	return (bound);
}

static void
dyn_init(struct search *s)
{
	struct model *m = s->m;
	size_t W = (size_t)s->W;
	int n = s->n;

	s->dyn = n <= DYN_LIMIT;
	if (!s->dyn)
		return;
	s->anc = gp_xcalloc((size_t)n * W + 1, 8);
	/* edges go forward in the schedule: ancestors in schedule order */
	for (int p = 0; p < n; p++)
		for (int j = s->succ0[p]; j < s->succ0[p + 1]; j++) {
			uint64_t *a = &s->anc[(size_t)s->succ[j] * W];

			for (size_t w = 0; w < W; w++)
				a[w] |= s->anc[(size_t)p * W + w];
			bit_set(a, p);
		}
	s->cons0 = gp_xcalloc((size_t)m->nv + 2, sizeof(int));
	s->cons = gp_xmalloc(sizeof(int) * ((size_t)m->in0[n] + 1));
	for (int j = 0; j < m->in0[n]; j++)
		s->cons0[m->ins[j] + 1]++;
	for (int u = 0; u < m->nv; u++)
		s->cons0[u + 1] += s->cons0[u];
	{
		int *fill = gp_xmalloc(sizeof(int) * ((size_t)m->nv + 1));

		memcpy(fill, s->cons0, sizeof(int) * (size_t)m->nv);
		for (int p = 0; p < n; p++)
			for (int j = m->in0[p]; j < m->in0[p + 1]; j++)
				s->cons[fill[m->ins[j]]++] = p;
		free(fill);
	}
	s->pin = gp_xmalloc(((size_t)m->nv + 1) * W * 8);
	s->touched = gp_xcalloc((size_t)m->nv + 1, sizeof(int));
	s->olist = gp_xmalloc(sizeof(int) * ((size_t)m->nv + 1));
}

/*
 * Arrive at a state: make the forced moves (a ready step that raises
 * neither the peak so far, nor the bound every order meets, nor the live
 * bytes can go first: moving it to the front of any completion lowers or
 * keeps every later figure), then test the state.  Returns true when it
 * has children to explore (fr filled), false when it is a leaf or pruned;
 * either way fr->n_forced moves are to undo.
 */
static bool
enter(struct search *s, struct frame *fr)
{
	struct model *m = s->m;
	int d;
	uint64_t rest;

	fr->n_forced = 0;
	for (bool again = true; again;) {
		uint64_t thr = max64(s->pk[s->depth], s->lb);

		again = false;
		for (int w = 0; w < s->W && !again; w++) {
			uint64_t bits = s->ready[w];

			while (bits != 0) {
				int p = w * 64 + __builtin_ctzll(bits);
				uint64_t before = m->live;

				bits &= bits - 1;
				if (before + m->alloc[p] > thr)
					continue;
				move_exec(s, p);
				if (m->live <= before) {
					fr->n_forced++;
					again = true;
					if ((fr->n_forced & 1023) == 0 &&
					    gp_clock_ns() >= s->deadline) {
						s->stop = true;
						return (false);
					}
					break;
				}
				move_undo(s);
			}
		}
	}
	d = s->depth;
	if (d == s->n) {
		if (s->pk[d] < s->best) {
			s->best = s->pk[d];
			memcpy(s->best_order, s->path, sizeof(int) *
			    (size_t)s->n);
			if (s->best <= s->lb)
				s->stop = true;
		}
		return (false);
	}
	budget_check(s);
	if (s->stop)
		return (false);
	/* the largest bound of a step still to run */
	{
		int k = fr->lbp;

		while (k < s->n && bit_get(s->done, s->lb_order[k]))
			k++;
		fr->lbp = k;
		rest = k < s->n ? s->lbs[s->lb_order[k]] : 0;
	}
	if (max64(s->pk[d], rest) >= s->best)
		return (false);
	if (memo_seen(s, s->pk[d]))
		return (false);
	if (s->dyn && dyn_bound(s) >= s->best)
		return (false);
	/* children, most promising first */
	fr->c0 = s->n_cand;
	for (int w = 0; w < s->W; w++) {
		uint64_t bits = s->ready[w];

		while (bits != 0) {
			int p = w * 64 + __builtin_ctzll(bits);
			uint64_t k1 = max64(s->pk[d], m->live + m->alloc[p]);
			struct cand *c;

			bits &= bits - 1;
			if (k1 >= s->best)
				continue;
			gp_grow(&s->cand, &s->cap_cand, s->n_cand + 1,
			    sizeof(*s->cand));
			c = &s->cand[s->n_cand++];
			c->k1 = k1;
			c->p = p;
			(void)model_exec(m, p);
			c->k2 = m->live;
			model_undo(m, p);
		}
	}
	fr->c1 = s->n_cand;
	qsort(&s->cand[fr->c0], fr->c1 - fr->c0, sizeof(*s->cand), cmp_cand);
	if (s->n > WIDE_LIMIT && fr->c1 - fr->c0 > WIDE_CHILDREN) {
		fr->c1 = fr->c0 + WIDE_CHILDREN;
		s->n_cand = fr->c1;
		s->truncated = true;
	}
	fr->next = fr->c0;
	return (fr->c1 > fr->c0);
}

static void
frame_undo(struct search *s, const struct frame *fr)
{
	for (int k = 0; k < fr->n_forced; k++)
		move_undo(s);
	if (fr->mv >= 0)
		move_undo(s);
}

static void
edge_add(int **ea, int **eb, size_t *n, size_t *ca, size_t *cb, int a, int b)
{
	gp_grow(ea, ca, *n + 1, sizeof(int));
	gp_grow(eb, cb, *n + 1, sizeof(int));
	(*ea)[*n] = a;
	(*eb)[(*n)++] = b;
}

/* The edges every valid order keeps: data, and for an output that
 * overwrites its input, every earlier reader of that storage first. */
static void
search_edges(struct search *s, const struct gp_graph *g, const struct prog *pr)
{
	struct model *m = s->m;
	int n = s->n;
	int *root = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	bool *hasd = gp_xcalloc(g->n_vars + 1, sizeof(bool));
	int *head = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	int *ev_step = NULL, *ev_next = NULL;
	size_t n_ev = 0, cap1 = 0, cap2 = 0;
	int *ea = NULL, *eb = NULL;
	size_t n_e = 0, cea = 0, ceb = 0;

	for (size_t v = 0; v < g->n_vars; v++) {
		root[v] = (int)v;
		head[v] = -1;
	}
	for (int i = 0; i < n; i++)
		for (int j = pr->out0[i]; j < pr->out0[i + 1]; j++) {
			const struct pout *o = &pr->outs[j];

			if (o->mode != M_ALLOC)
				root[o->var] = root[o->src];
			if (o->mode == M_DESTROY)
				hasd[root[o->src]] = true;
		}
	/* data edges */
	for (int i = 0; i < n; i++)
		for (int j = m->in0[i]; j < m->in0[i + 1]; j++) {
			edge_add(&ea, &eb, &n_e, &cea, &ceb,
			    m->prod[m->ins[j]], i);
		}
	/* destroy edges: readers since the last overwrite go first */
	for (int i = 0; i < n; i++) {
		const struct gp_node *nd = &g->nodes[pr->node[i]];

		for (int j = pr->out0[i]; j < pr->out0[i + 1]; j++) {
			int c;

			if (pr->outs[j].mode != M_DESTROY)
				continue;
			c = root[pr->outs[j].src];
			for (int e = head[c]; e >= 0; e = ev_next[e])
				if (ev_step[e] != i) {
					edge_add(&ea, &eb, &n_e, &cea, &ceb,
					    ev_step[e], i);
				}
			head[c] = -1;
		}
		for (int k = 0; k < nd->n_in; k++) {
			int c = root[nd->in[k]];

			if (!hasd[c] || (head[c] >= 0 && ev_step[head[c]] == i))
				continue;
			gp_grow(&ev_step, &cap1, n_ev + 1, sizeof(int));
			gp_grow(&ev_next, &cap2, n_ev + 1, sizeof(int));
			ev_step[n_ev] = i;
			ev_next[n_ev] = head[c];
			head[c] = (int)n_ev++;
		}
	}
	s->succ0 = gp_xcalloc((size_t)n + 2, sizeof(int));
	s->succ = gp_xmalloc(sizeof(int) * (n_e + 1));
	s->npred = gp_xcalloc((size_t)n + 1, sizeof(int));
	for (size_t e = 0; e < n_e; e++) {
		s->succ0[ea[e] + 1]++;
		s->npred[eb[e]]++;
	}
	for (int i = 0; i < n; i++)
		s->succ0[i + 1] += s->succ0[i];
	{
		int *fill = gp_xmalloc(sizeof(int) * ((size_t)n + 1));

		memcpy(fill, s->succ0, sizeof(int) * (size_t)n);
		for (size_t e = 0; e < n_e; e++)
			s->succ[fill[ea[e]]++] = eb[e];
		free(fill);
	}
	free(ea);
	free(eb);
	free(ev_step);
	free(ev_next);
	free(root);
	free(hasd);
	free(head);
}

struct lbkey {
	uint64_t	lb;
	int		p;
};

static int
cmp_lb(const void *a, const void *b)
{
	const struct lbkey *x = a, *y = b;

	if (x->lb != y->lb)
		return (x->lb > y->lb ? -1 : 1);
	return (x->p - y->p);
}

/* Static bounds: every step holds its inputs' storages and its new
 * outputs at once; after the last step, everything the call returns is
 * alive. */
static void
search_bounds(struct search *s)
{
	struct model *m = s->m;
	int *seen = gp_xcalloc((size_t)m->nv + 1, sizeof(int));
	uint64_t surv = 0;

	s->lbs = gp_xcalloc((size_t)s->n + 1, sizeof(uint64_t));
	s->lb_order = gp_xmalloc(sizeof(int) * ((size_t)s->n + 1));
	for (int i = 0; i < s->n; i++) {
		uint64_t b = m->alloc[i];

		for (int j = m->in0[i]; j < m->in0[i + 1]; j++) {
			int o = m->org[m->ins[j]];

			if (o >= 0 && seen[o] != i + 1) {
				seen[o] = i + 1;
				b += m->bytes[o];
			}
		}
		s->lbs[i] = b;
		s->lb = max64(s->lb, b);
	}
	for (int u = 0; u < m->nv; u++) {
		int o = m->org[u];

		if (m->surv[u] && o >= 0 && seen[o] != -1) {
			seen[o] = -1;
			surv += m->bytes[o];
		}
	}
	s->lb = max64(s->lb, surv);
	{
		struct lbkey *k = gp_xmalloc(sizeof(*k) * ((size_t)s->n + 1));

		for (int i = 0; i < s->n; i++) {
			k[i].lb = s->lbs[i];
			k[i].p = i;
		}
		qsort(k, (size_t)s->n, sizeof(*k), cmp_lb);
		for (int i = 0; i < s->n; i++)
			s->lb_order[i] = k[i].p;
		free(k);
	}
	free(seen);
}

static void
search_run(struct gp_memprof *mp, struct model *m, const struct gp_graph *g,
    const struct prog *pr, const struct gp_memprof_opts *o)
{
	struct search s;
	uint64_t t0 = gp_clock_ns(), seed = 0x6770746f70ULL;
	int64_t budget = o->budget_ms > 0 ? o->budget_ms : DEF_BUDGET_MS;
	int n = m->n;

	memset(&s, 0, sizeof(s));
	s.m = m;
	s.n = n;
	s.W = (n + 63) / 64;
	if (s.W == 0)
		s.W = 1;
	s.deadline = t0 + (uint64_t)budget * 1000000u;
	s.max_states = o->max_states > 0 ? (uint64_t)o->max_states :
	    DEF_MAX_STATES;
	model_variant(m, GP_MEM_AS_RUN);
	model_reset(m, true);
	search_edges(&s, g, pr);
	search_bounds(&s);
	dyn_init(&s);
	s.ready = gp_xcalloc((size_t)s.W, 8);
	s.done = gp_xcalloc((size_t)s.W, 8);
	s.zob = gp_xmalloc(sizeof(uint64_t) * ((size_t)n + 1));
	for (int i = 0; i < n; i++) {
		s.zob[i] = splitmix(&seed);
		if (s.npred[i] == 0)
			bit_set(s.ready, i);
	}
	s.path = gp_xmalloc(sizeof(int) * ((size_t)n + 1));
	s.pk = gp_xcalloc((size_t)n + 2, sizeof(uint64_t));
	s.fr = gp_xmalloc(sizeof(*s.fr) * ((size_t)n + 2));
	/* the executed order is the first incumbent */
	s.best_order = gp_xmalloc(sizeof(int) * ((size_t)n + 1));
	for (int i = 0; i < n; i++)
		s.best_order[i] = i;
	s.best = model_eval(m, true, NULL, NULL);
	model_reset(m, true);
	s.mmax = MEMO_MAX_BYTES / ((size_t)s.W * 8 + 16);
	s.mcap = 1024;
	s.mkey = gp_xmalloc(s.mcap * (size_t)s.W * 8);
	s.mval = gp_xmalloc(s.mcap * 8);
	s.mhash = gp_xmalloc(s.mcap * 8);
	for (size_t i = 0; i < s.mcap; i++)
		s.mval[i] = UINT64_MAX;
	if (s.best <= s.lb)
		s.stop = true;
	if (!s.stop) {
		struct frame root = {.mv = -1, .lbp = 0};

		if (enter(&s, &root))
			s.fr[s.n_fr++] = root;
		else
			frame_undo(&s, &root);
	}
	while (s.n_fr > 0) {
		struct frame *f = &s.fr[s.n_fr - 1];
		struct frame nf;
		int p;

		if (s.stop || f->next == f->c1) {
			frame_undo(&s, f);
			s.n_cand = f->c0;
			s.n_fr--;
			continue;
		}
		p = s.cand[f->next++].p;
		if (max64(s.pk[s.depth], m->live + m->alloc[p]) >= s.best)
			continue;
		move_exec(&s, p);
		nf.mv = p;
		nf.lbp = f->lbp;
		if (enter(&s, &nf))
			s.fr[s.n_fr++] = nf;
		else
			frame_undo(&s, &nf);
	}
	mp->min_done = true;
	mp->min_peak = s.best;
	mp->min_lower = s.lb;
	mp->min_optimal = s.best <= s.lb || (!s.stop && !s.truncated);
	mp->min_states = s.states;
	mp->min_order = s.best_order;
	mp->min_ms = (double)(gp_clock_ns() - t0) / 1e6;
	free(s.succ0);
	free(s.succ);
	free(s.npred);
	free(s.ready);
	free(s.done);
	free(s.zob);
	free(s.lbs);
	free(s.lb_order);
	free(s.path);
	free(s.pk);
	free(s.mkey);
	free(s.mval);
	free(s.mhash);
	free(s.cand);
	free(s.fr);
	free(s.anc);
	free(s.cons0);
	free(s.cons);
	free(s.pin);
	free(s.touched);
	free(s.olist);
}

/*
 * compute, clone, free
 */
uint64_t
gp_memprof_graph_values(const struct gp_graph *g)
{
	return (gp_memprof_graph_values_apart(g, NULL));
}

uint64_t
gp_memprof_graph_values_apart(const struct gp_graph *g,
    const struct gp_graph *beside)
{
	struct ctx c, o;
	uint64_t b = 0;
	size_t j = 0;

	ctx_init(&c, g);
	if (beside != NULL)
		ctx_init(&o, beside);
	else
		o.n_vals = 0;
	/* both sorted by storage: a merge */
	for (size_t i = 0; i < c.n_vals; i++) {
		if (i > 0 && c.vals[i].st == c.vals[i - 1].st)
			continue;
		while (j < o.n_vals &&
		    (uintptr_t)o.vals[j].st < (uintptr_t)c.vals[i].st)
			j++;
		if (j < o.n_vals && o.vals[j].st == c.vals[i].st)
			continue;
		b += c.vals[i].st->nbytes;
	}
	if (beside != NULL)
		ctx_done(&o);
	ctx_done(&c);
	return (b);
}

enum gp_mem_span
gp_memprof_span(const struct gp_profile *p, int fn)
{
	const struct gp_prof_fn *f = &p->fn[fn];
	uint64_t ignored = p->ignore_first && f->calls_seen > 0 ? 1 : 0;

	if (f->calls_seen == 0 || f->mem_peak_measured == 0)
		return (GP_MEM_SPAN_NONE);
	/* a reset zeroes the counted calls, not the calls seen */
	if (f->call.n + ignored < f->calls_seen)
		return (GP_MEM_SPAN_LATER);
	return (f->calls_seen == 1 ? GP_MEM_SPAN_FIRST : GP_MEM_SPAN_ALL);
}

static uint64_t
span_peak(const struct gp_mem_sim *s, enum gp_mem_span span)
{
	switch (span) {
	case GP_MEM_SPAN_FIRST:
		return (s->peak_first);
	case GP_MEM_SPAN_LATER:
		return (s->peak_steady);
	default:
		return (s->peak);
	}
}

uint64_t
gp_memprof_program_peak(const struct gp_memprof *m, enum gp_mem_span span)
{
	return (span_peak(gp_memprof_sim(m), span));
}

uint64_t
gp_memprof_predicted_peak(const struct gp_profile *p, int fn)
{
	const struct gp_memprof *m = p->fn[fn].mem;

	if (m == NULL)
		return (0);
	return (gp_memprof_program_peak(m, gp_memprof_span(p, fn)) +
	    m->external);
}

/* Graph values by kind, and those function fi reads or updates. */
static void
count_values(struct gp_memprof *mp, const struct ctx *c,
    const struct prog *pr, int fi)
{
	const struct gp_graph *g = c->g;
	const struct gp_function *gf = &g->fns[fi];
	const struct valref *vr = c->vals;
	bool *used = gp_xcalloc(g->n_vars + 1, sizeof(bool));
	size_t n = c->n_vals;

	for (int i = 0; i < pr->n; i++) {
		const struct gp_node *nd = &g->nodes[pr->node[i]];

		for (int k = 0; k < nd->n_in; k++)
			used[nd->in[k]] = true;
	}
	for (int k = 0; k < gf->n_out; k++)
		used[gf->out[k]] = true;
	for (int k = 0; k < gf->n_upd; k++)
		used[gf->upd[k].dst] = used[gf->upd[k].src] = true;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		bool u = false;
		uint64_t b = vr[i].st->nbytes;

		for (; j < n && vr[j].st == vr[i].st; j++)
			u = u || used[vr[j].var];
		switch (g->vars[vr[i].var].kind) {
		case GP_VAR_INPUT:
			mp->val_input += b;
			break;
		case GP_VAR_SHARED:
			mp->val_shared += b;
			break;
		default:
			mp->val_const += b;
			break;
		}
		if (u)
			mp->val_used += b;
		i = j;
	}
	free(used);
}

/* The applies' sums and alias marks (prog_build described the
 * outputs). */
static void
describe_applies(struct gp_memprof *mp, const struct gp_graph *g,
    const struct prog *pr)
{
	mp->ap = gp_xcalloc((size_t)pr->n + 1, sizeof(*mp->ap));
	for (int i = 0; i < pr->n; i++) {
		const struct gp_node *nd = &g->nodes[pr->node[i]];
		struct gp_mem_apply *a = &mp->ap[i];

		a->first_out = (uint32_t)pr->out0[i];
		a->n_out = nd->n_out;
		for (int k = 0; k < nd->n_out; k++) {
			const struct pout *po = &pr->outs[pr->out0[i] + k];
			struct gp_mem_out *mo = &mp->outs[pr->out0[i] + k];

			mo->bytes = po->bytes;
			mo->alias = po->mode == M_DESTROY ? 'i' :
			    po->mode == M_KERNEL ? 'v' : 'c';
			mo->src = (int8_t)(po->mode == M_DESTROY ?
			    nd->destroy[k] : po->mode == M_KERNEL ?
			    nd->view[k] : -1);
			a->out_bytes += po->bytes;
			mp->sum_out += po->bytes;
			if (po->mode == M_ALLOC)
				a->alloc_bytes += po->bytes;
			else if (po->mode == M_KERNEL)
				mp->sum_view += po->bytes;
			else
				mp->sum_inplace += po->bytes;
		}
	}
}

struct gp_memprof *
gp_memprof_compute(const struct gp_graph *g, const struct gp_vm *vm, int fn,
    const struct gp_memprof_opts *o)
{
	struct gp_memprof *mp;
	struct prog *pr;
	struct model m;
	struct pool pool = {0};
	int n_fn = (int)g->n_fns;
	int *last;
	bool *surv, *surv_fn;
	struct gp_memprof_opts dflt = {0};
	struct ctx c;

	if (fn < 0 || fn >= n_fn)
		return (NULL);
	if (o == NULL)
		o = &dflt;
	mp = gp_xcalloc(1, sizeof(*mp));
	mp->fn = fn;
	mp->n_fn = n_fn;
	mp->allow_gc = gp_vm_allow_gc(vm);
	(void)pool_add(&pool, "");
	mp->fn_name = pool_add(&pool, g->fns[fn].name != NULL ?
	    g->fns[fn].name : "");
	ctx_init(&c, g);
	last = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	surv = gp_xmalloc(sizeof(bool) * (g->n_vars + 1));
	surv_fn = gp_xmalloc(sizeof(bool) * (g->n_vars + 1));
	pr = gp_xcalloc((size_t)n_fn + 1, sizeof(*pr));
	for (int f = 0; f < n_fn; f++) {
		prog_build(&pr[f], &c, vm, f, last, surv, f == fn ? mp : NULL,
		    &pool);
		pr[f].fo0 = f > 0 ? pr[f - 1].fo0 + g->fns[f - 1].n_out : 0;
		if (f == fn)
			memcpy(surv_fn, surv, sizeof(bool) * g->n_vars);
	}
	mp->n_apply = pr[fn].n;
	describe_applies(mp, g, &pr[fn]);
	count_values(mp, &c, &pr[fn], fn);

	/* Theano's figures */
	model_build(&m, g, &pr[fn], surv_fn);
	for (int v = GP_MEM__VARIANTS - 1; v >= 0; v--) {
		if ((v == GP_MEM_NO_INPLACE && mp->sum_inplace == 0) ||
		    (v == GP_MEM_NO_VIEW && mp->sum_view == 0))
			continue;	/* the same as run */
		mp->inter[1][v] = model_variant(&m, (enum gp_mem_variant)v);
		mp->inter[0][v] = model_eval(&m, true, NULL, v ==
		    GP_MEM_AS_RUN && mp->allow_gc ? mp->ap : NULL);
	}
	for (int v = 1; v < GP_MEM__VARIANTS; v++)
		if ((v == GP_MEM_NO_INPLACE && mp->sum_inplace == 0) ||
		    (v == GP_MEM_NO_VIEW && mp->sum_view == 0)) {
			mp->inter[0][v] = mp->inter[0][GP_MEM_AS_RUN];
			mp->inter[1][v] = mp->inter[1][GP_MEM_AS_RUN];
		}
	/* the model is left at GP_MEM_AS_RUN */
	if (!mp->allow_gc)
		(void)model_eval(&m, false, NULL, mp->ap);

	/* the allocator's */
	sim_function(&mp->sim[0], &c, pr, n_fn, fn, true, &pool);
	sim_function(&mp->sim[1], &c, pr, n_fn, fn, false, &pool);

	if (o->min_peak)
		search_run(mp, &m, g, &pr[fn], o);

	model_free(&m);
	for (int f = 0; f < n_fn; f++)
		prog_free(&pr[f]);
	free(pr);
	free(last);
	free(surv);
	free(surv_fn);
	ctx_done(&c);
	mp->strs = pool.s;
	mp->strs_len = (uint32_t)pool.len;
	return (mp);
}

static void *
dup_mem(const void *p, size_t n)
{
	void *q;

	if (p == NULL)
		return (NULL);
	q = gp_xmalloc(n ? n : 1);
	memcpy(q, p, n);
	return (q);
}

struct gp_memprof *
gp_memprof_clone(const struct gp_memprof *m)
{
	struct gp_memprof *c;

	if (m == NULL)
		return (NULL);
	c = gp_xmalloc(sizeof(*c));
	*c = *m;
	c->ap = dup_mem(m->ap, sizeof(*m->ap) * (size_t)m->n_apply);
	c->outs = dup_mem(m->outs, sizeof(*m->outs) * m->n_outs);
	c->min_order = dup_mem(m->min_order, sizeof(int) * (size_t)m->n_apply);
	c->strs = dup_mem(m->strs, m->strs_len);
	for (int k = 0; k < 2; k++) {
		const struct gp_mem_sim *s = &m->sim[k];
		struct gp_mem_sim *d = &c->sim[k];

		d->after = dup_mem(s->after, sizeof(*s->after) *
		    (size_t)m->n_apply);
		d->during = dup_mem(s->during, sizeof(*s->during) *
		    (size_t)m->n_apply);
		d->bufs = dup_mem(s->bufs, sizeof(*s->bufs) *
		    (size_t)s->n_bufs);
	}
	return (c);
}

void
gp_memprof_free(struct gp_memprof *m)
{
	if (m == NULL)
		return;
	for (int k = 0; k < 2; k++) {
		free(m->sim[k].after);
		free(m->sim[k].during);
		free(m->sim[k].bufs);
	}
	free(m->ap);
	free(m->outs);
	free(m->min_order);
	free(m->strs);
	free(m);
}

/*
 * The memory profile in a capture (doc/capture-format.md, "memory").
 *
 * Only what the function's applies do not already say is written: the
 * outputs' variables, types and alias marks are the applies' (the reader
 * takes them from there, with the sums and offsets they give).  The
 * per-apply, per-output and per-storage figures are columns: strings of
 * space-separated integers, the first the first value and each next one
 * the difference from the value before, "D*N" standing for N differences
 * D.  A 100,000-apply function has a million such figures; as JSON arrays
 * of absolute values they would double the capture and the time to read
 * it, as columns they add a few percent (most differences are small and
 * runs of one difference are common: sizes sorted, buffers reused).
 */

/* Column values are clamped to this on writing, so differences fit. */
#define COL_MAX		(INT64_MAX / 2)

static const char kind_chars[] = "ischn";	/* enum gp_mem_kind */

/* A column being written: the runs of equal differences, one pending. */
struct col {
	char		*s;
	size_t		 len, cap;
	int64_t		 prev;
	int64_t		 run_d;
	uint64_t	 run_n;
};

static void
col_num(struct col *c, int64_t v)
{
	char t[24];
	int n = 0;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do {
		t[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (c->len + (size_t)n + 2 > c->cap)
		gp_grow(&c->s, &c->cap, c->len + (size_t)n + 2, 1);
	if (v < 0)
		c->s[c->len++] = '-';
	while (n > 0)
		c->s[c->len++] = t[--n];
}

static void
col_sep(struct col *c)
{
	if (c->len > 0) {
		if (c->len + 1 > c->cap)
			gp_grow(&c->s, &c->cap, c->len + 1, 1);
		c->s[c->len++] = ' ';
	}
}

static void
col_flush(struct col *c)
{
	if (c->run_n >= 3) {
		col_sep(c);
		col_num(c, c->run_d);
		if (c->len + 1 > c->cap)
			gp_grow(&c->s, &c->cap, c->len + 1, 1);
		c->s[c->len++] = '*';
		col_num(c, (int64_t)c->run_n);
	} else
		for (uint64_t i = 0; i < c->run_n; i++) {
			col_sep(c);
			col_num(c, c->run_d);
		}
	c->run_n = 0;
}

static void
col_put(struct col *c, int64_t v)
{
	int64_t d;

	if (v > COL_MAX)
		v = COL_MAX;
	else if (v < -COL_MAX)
		v = -COL_MAX;
	d = v - c->prev;
	c->prev = v;
	if (c->run_n > 0 && d == c->run_d) {
		c->run_n++;
		return;
	}
	col_flush(c);
	c->run_d = d;
	c->run_n = 1;
}

static void
col_put_u(struct col *c, uint64_t v)
{
	col_put(c, v > (uint64_t)COL_MAX ? COL_MAX : (int64_t)v);
}

/* The column as a JSON string; c is emptied. */
static json_t *
col_json(struct col *c)
{
	json_t *j;

	col_flush(c);
	j = json_stringn_nocheck(c->s != NULL ? c->s : "", c->len);
	free(c->s);
	memset(c, 0, sizeof(*c));
	return (j);
}

static json_t *
jnum(uint64_t v)
{
	return (json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX :
	    (json_int_t)v));
}

/* A JSON string for s; bytes that are not UTF-8 become '?'. */
static json_t *
jname(const char *s)
{
	json_t *j = json_string(s);
	char *c;

	if (j != NULL)
		return (j);
	c = gp_xstrdup(s);
	for (unsigned char *p = (unsigned char *)c; *p != '\0'; p++)
		if (*p >= 0x80)
			*p = '?';
	j = json_string(c);
	free(c);
	return (j != NULL ? j : json_string(""));
}

static void
put(json_t *o, const char *k, json_t *v)
{
	json_object_set_new_nocheck(o, k, v);
}

/* Does m describe f's applies (their outputs, in order)? */
static bool
describes(const struct gp_memprof *m, const struct gp_prof_fn *f)
{
	uint32_t o = 0;
	uint64_t sum[3] = {0};

	if (m->n_apply != f->n_apply || m->ap == NULL ||
	    (m->n_outs > 0 && m->outs == NULL) || m->strs == NULL)
		return (false);
	for (int i = 0; i < m->n_apply; i++) {
		const struct gp_mem_apply *a = &m->ap[i];
		const struct gp_prof_apply *pa = &f->ap[i];
		uint64_t ob = 0, ab = 0;

		if (a->n_out != pa->n_out || a->first_out != o ||
		    (uint64_t)o + (uint64_t)a->n_out > m->n_outs)
			return (false);
		for (int k = 0; k < a->n_out; k++, o++) {
			const struct gp_mem_out *mo = &m->outs[o];
			const struct gp_prof_io *io = &pa->out[k];

			if (mo->bytes != io->nbytes || mo->ndim != io->ndim ||
			    mo->dtype != (int8_t)io->dtype ||
			    mo->alias != (io->alias == 'v' || io->alias ==
			    'i' ? io->alias : 'c') || mo->var >= m->strs_len ||
			    strcmp(gp_memprof_str(m, mo->var), io->var !=
			    NULL ? io->var : "") != 0)
				return (false);
			for (int d = 0; d < mo->ndim; d++)
				if (mo->shape[d] != io->shape[d])
					return (false);
			ob += mo->bytes;
			if (mo->alias == 'c')
				ab += mo->bytes;
			sum[mo->alias == 'c' ? 0 : mo->alias == 'v' ? 1 : 2] +=
			    mo->bytes;
		}
		if (a->out_bytes != ob || a->alloc_bytes != ab)
			return (false);
	}
	return (o == m->n_outs && m->sum_out == sum[0] + sum[1] + sum[2] &&
	    m->sum_view == sum[1] && m->sum_inplace == sum[2]);
}

static json_t *
bufs_to_json(const struct gp_memprof *m, const struct gp_mem_sim *s)
{
	json_t *o = json_object(), *names = json_array();
	struct col bytes = {0}, fn = {0}, step = {0}, ref = {0}, out = {0};
	char *kinds = gp_xmalloc((size_t)s->n_bufs + 1);

	for (int i = 0; i < s->n_bufs; i++) {
		const struct gp_mem_buf *b = &s->bufs[i];
		const char *name = b->var < m->strs_len ?
		    gp_memprof_str(m, b->var) : "";
		int k = -1;

		col_put_u(&bytes, b->bytes);
		kinds[i] = b->kind >= 0 && b->kind < (int)sizeof(kind_chars) -
		    1 ? kind_chars[b->kind] : 'n';
		col_put(&fn, b->fn);
		col_put(&step, b->step);
		col_put(&ref, b->n_ref);
		/* named after an output of this function's apply: say which */
		if (b->fn == m->fn && b->step >= 0 && b->step < m->n_apply) {
			const struct gp_mem_apply *a = &m->ap[b->step];

			for (int j = 0; j < a->n_out && k < 0; j++)
				if (strcmp(gp_memprof_str(m,
				    m->outs[a->first_out + (uint32_t)j].var),
				    name) == 0)
					k = j;
		}
		col_put(&out, k);
		if (k < 0)
			json_array_append_new(names, jname(name));
	}
	put(o, "bytes", col_json(&bytes));
	put(o, "kind", json_stringn_nocheck(kinds, (size_t)s->n_bufs));
	put(o, "fn", col_json(&fn));
	put(o, "step", col_json(&step));
	put(o, "n_ref", col_json(&ref));
	put(o, "out", col_json(&out));
	put(o, "names", names);
	free(kinds);
	return (o);
}

static json_t *
points_to_json(const struct gp_mem_point *p, int n)
{
	json_t *o = json_object();
	struct col live = {0}, fresh = {0};

	for (int i = 0; i < n; i++) {
		col_put_u(&live, p[i].live);
		col_put_u(&fresh, p[i].fresh);
	}
	put(o, "live", col_json(&live));
	put(o, "fresh", col_json(&fresh));
	return (o);
}

static json_t *
sim_to_json(const struct gp_memprof *m, const struct gp_mem_sim *s)
{
	json_t *o = json_object();

	put(o, "peak", jnum(s->peak));
	put(o, "peak_first", jnum(s->peak_first));
	put(o, "peak_steady", jnum(s->peak_steady));
	put(o, "base_first", jnum(s->base_first));
	put(o, "base_steady", jnum(s->base_steady));
	put(o, "values", jnum(s->values));
	put(o, "held", jnum(s->held));
	put(o, "fresh_peak", jnum(s->fresh_peak));
	put(o, "peak_call", json_integer(s->peak_call));
	put(o, "peak_step", json_integer(s->peak_step));
	put(o, "peak_fresh", jnum(s->peak_fresh));
	put(o, "after", points_to_json(s->after, m->n_apply));
	put(o, "during", points_to_json(s->during, m->n_apply));
	put(o, "n_bufs", json_integer(s->n_bufs));
	put(o, "bufs", bufs_to_json(m, s));
	return (o);
}

json_t *
gp_memprof_to_json(const struct gp_memprof *m, const struct gp_prof_fn *f)
{
	json_t *o, *a;
	struct col c1 = {0}, c2 = {0};

	if (m == NULL || f == NULL || !describes(m, f) ||
	    (m->n_apply > 0 && (m->sim[0].after == NULL ||
	    m->sim[0].during == NULL || m->sim[1].after == NULL ||
	    m->sim[1].during == NULL)) || (m->sim[0].n_bufs > 0 &&
	    m->sim[0].bufs == NULL) || (m->sim[1].n_bufs > 0 &&
	    m->sim[1].bufs == NULL))
		return (NULL);
	o = json_object();
	put(o, "allow_gc", json_boolean(m->allow_gc));
	put(o, "external", jnum(m->external));
	put(o, "val_input", jnum(m->val_input));
	put(o, "val_shared", jnum(m->val_shared));
	put(o, "val_const", jnum(m->val_const));
	put(o, "val_used", jnum(m->val_used));
	a = json_array();
	for (int g = 0; g < 2; g++) {
		json_t *v = json_array();

		for (int k = 0; k < GP_MEM__VARIANTS; k++)
			json_array_append_new(v, jnum(m->inter[g][k]));
		json_array_append_new(a, v);
	}
	put(o, "inter", a);
	for (int i = 0; i < m->n_apply; i++) {
		col_put_u(&c1, m->ap[i].inter_after);
		col_put_u(&c2, m->ap[i].inter_during);
	}
	put(o, "inter_after", col_json(&c1));
	put(o, "inter_during", col_json(&c2));
	for (uint32_t i = 0; i < m->n_outs; i++)
		col_put(&c1, m->outs[i].alias == 'c' ? -1 : m->outs[i].src);
	put(o, "alias_of", col_json(&c1));
	a = json_array();
	json_array_append_new(a, sim_to_json(m, &m->sim[0]));
	json_array_append_new(a, sim_to_json(m, &m->sim[1]));
	put(o, "sim", a);
	if (m->min_done && m->min_order != NULL) {
		json_t *mo = json_object();

		put(mo, "optimal", json_boolean(m->min_optimal));
		put(mo, "peak", jnum(m->min_peak));
		put(mo, "lower", jnum(m->min_lower));
		put(mo, "states", jnum(m->min_states));
		put(mo, "ms", json_real(isfinite(m->min_ms) && m->min_ms >= 0 ?
		    m->min_ms : 0));
		for (int i = 0; i < m->n_apply; i++)
			col_put(&c1, m->min_order[i]);
		put(mo, "order", col_json(&c1));
		put(o, "min", mo);
	}
	return (o);
}

/*
 * Reading: every member checked; the path of the value looked at is kept
 * for the messages.
 */
#define JR_DEPTH	8

struct jr {
	const char	*prefix;
	struct gp_err	*err;
	const char	*key[JR_DEPTH];	/* NULL: an index */
	size_t		 index[JR_DEPTH];
	int		 depth;
	int64_t		*tmp;		/* a decoded column */
	size_t		 tmp_cap;
};

static void
jr_key(struct jr *r, const char *key)
{
	if (r->depth < JR_DEPTH)
		r->key[r->depth] = key;
	r->depth++;
}

static void
jr_index(struct jr *r, size_t i)
{
	if (r->depth < JR_DEPTH) {
		r->key[r->depth] = NULL;
		r->index[r->depth] = i;
	}
	r->depth++;
}

static void
jr_pop(struct jr *r)
{
	r->depth--;
}

/* "PATH: message"; returns -1. */
static int __attribute__((format(printf, 2, 3)))
jr_fail(struct jr *r, const char *fmt, ...)
{
	struct gp_buf b = {0};
	int n = r->depth < JR_DEPTH ? r->depth : JR_DEPTH;
	va_list ap;

	gp_buf_puts(&b, r->prefix != NULL ? r->prefix : "");
	for (int i = 0; i < n; i++) {
		if (r->key[i] != NULL)
			gp_buf_printf(&b, "%s%s", b.len > 0 ? "." : "",
			    r->key[i]);
		else
			gp_buf_printf(&b, "[%zu]", r->index[i]);
	}
	if (b.len > 0)
		gp_buf_puts(&b, ": ");
	va_start(ap, fmt);
	gp_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	gp_err_set(r->err, "%s", gp_buf_str(&b));
	gp_buf_free(&b);
	return (-1);
}

static const json_t *
jr_get(struct jr *r, const json_t *o, const char *key, const char *what)
{
	const json_t *v = json_object_get(o, key);

	if (v == NULL)
		jr_fail(r, "missing \"%s\" (%s)", key, what);
	return (v);
}

/* The integer v (at the current path) in [lo, hi]. */
static int
jr_int_here(struct jr *r, const json_t *v, int64_t lo, int64_t hi,
    int64_t *out)
{
	bool nonneg = lo == 0;
	json_int_t x;

	if (!json_is_integer(v))
		return (jr_fail(r, "expected %s, got %s", nonneg ?
		    "a non-negative integer" : "an integer", gp_jsonpos_kind(v)));
	x = json_integer_value(v);
	if (nonneg && x < 0)
		return (jr_fail(r, "expected a non-negative integer, got %lld",
		    (long long)x));
	if (x < lo || x > hi)
		return (jr_fail(r, "%lld is out of range (%lld to %lld)",
		    (long long)x, (long long)lo, (long long)hi));
	*out = (int64_t)x;
	return (0);
}

static int
jr_int(struct jr *r, const json_t *o, const char *key, int64_t lo,
    int64_t hi, int64_t *out)
{
	const json_t *v = jr_get(r, o, key, lo == 0 ?
	    "a non-negative integer" : "an integer");
	int rc;

	if (v == NULL)
		return (-1);
	jr_key(r, key);
	rc = jr_int_here(r, v, lo, hi, out);
	jr_pop(r);
	return (rc);
}

static int
jr_u64(struct jr *r, const json_t *o, const char *key, uint64_t *out)
{
	int64_t v;

	if (jr_int(r, o, key, 0, INT64_MAX, &v) < 0)
		return (-1);
	*out = (uint64_t)v;
	return (0);
}

static int
jr_int32(struct jr *r, const json_t *o, const char *key, int64_t lo,
    int64_t hi, int *out)
{
	int64_t v;

	if (jr_int(r, o, key, lo, hi, &v) < 0)
		return (-1);
	*out = (int)v;
	return (0);
}

static int
jr_bool(struct jr *r, const json_t *o, const char *key, bool *out)
{
	const json_t *v = jr_get(r, o, key, "true or false");

	if (v == NULL)
		return (-1);
	if (!json_is_boolean(v)) {
		jr_key(r, key);
		return (jr_fail(r, "expected true or false, got %s",
		    gp_jsonpos_kind(v)));
	}
	*out = json_is_true(v);
	return (0);
}

static int
jr_real(struct jr *r, const json_t *o, const char *key, double *out)
{
	const json_t *v = jr_get(r, o, key, "a number");

	if (v == NULL)
		return (-1);
	if (!json_is_number(v) || !(json_number_value(v) >= 0)) {
		jr_key(r, key);
		if (!json_is_number(v))
			return (jr_fail(r, "expected a number, got %s",
			    gp_jsonpos_kind(v)));
		return (jr_fail(r, "expected a non-negative number, got %g",
		    json_number_value(v)));
	}
	*out = json_number_value(v);
	return (0);
}

/* Member key of o, an object (array: an array); NULL with the error. */
static const json_t *
jr_container(struct jr *r, const json_t *o, const char *key, bool array)
{
	const char *what = array ? "an array" : "an object";
	const json_t *v = jr_get(r, o, key, what);

	if (v == NULL)
		return (NULL);
	if (array ? !json_is_array(v) : !json_is_object(v)) {
		jr_key(r, key);
		jr_fail(r, "expected %s, got %s", what, gp_jsonpos_kind(v));
		jr_pop(r);
		return (NULL);
	}
	return (v);
}

/* An integer at *p (a sign only when sign): up to INT64_MAX in
 * magnitude. */
static int
parse_num(const char **p, const char *end, bool sign, int64_t *out)
{
	const char *s = *p;
	bool neg = false;
	uint64_t v = 0;

	if (sign && s < end && *s == '-') {
		neg = true;
		s++;
	}
	if (s == end || *s < '0' || *s > '9')
		return (-1);
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > (uint64_t)INT64_MAX)
			return (-1);
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	*p = s;
	return (0);
}

/* Column key of o into r->tmp: exactly n values, each in [lo, hi]; per
 * says what an entry is, for the messages ("one per apply").  (On an
 * error the path is left as it was: the caller gives up.) */
static int
jr_col(struct jr *r, const json_t *o, const char *key, size_t n,
    int64_t lo, int64_t hi, const char *per)
{
	static const char what[] = "a column (a string of numbers)";
	const json_t *v = jr_get(r, o, key, what);
	const char *s, *end;
	int64_t cur = 0;
	size_t i = 0;

	if (v == NULL)
		return (-1);
	jr_key(r, key);
	if (!json_is_string(v))
		return (jr_fail(r, "expected %s, got %s", what, gp_jsonpos_kind(v)));
	/* n is bounded by what was read (applies, outputs, kinds) */
	gp_grow(&r->tmp, &r->tmp_cap, n + 1, sizeof(*r->tmp));
	s = json_string_value(v);
	end = s + json_string_length(v);
	for (;;) {
		int64_t d, cnt = 1;

		while (s < end && *s == ' ')
			s++;
		if (s == end)
			break;
		if (i == n)
			return (jr_fail(r, "more than %zu entries (%s)", n,
			    per));
		jr_index(r, i);
		if (parse_num(&s, end, true, &d) < 0 || (s < end &&
		    *s == '*' && (++s, parse_num(&s, end, false, &cnt) < 0 ||
		    cnt < 1)) || (s < end && *s != ' '))
			return (jr_fail(r, "expected a difference D or a run "
			    "of N differences D*N (integers)"));
		if ((uint64_t)cnt > n - i)
			return (jr_fail(r, "a run of %lld entries goes past "
			    "the end (%zu entries, %s)", (long long)cnt, n,
			    per));
		jr_pop(r);
		while (cnt-- > 0) {
			if (__builtin_add_overflow(cur, d, &cur)) {
				jr_index(r, i);
				return (jr_fail(r, "the value overflows"));
			}
			if (cur < lo || cur > hi) {
				jr_index(r, i);
				if (lo == 0 && cur < 0)
					return (jr_fail(r, "expected a "
					    "non-negative integer, got %lld",
					    (long long)cur));
				return (jr_fail(r, "%lld is out of range (%lld "
				    "to %lld)", (long long)cur, (long long)lo,
				    (long long)hi));
			}
			r->tmp[i++] = cur;
		}
	}
	if (i != n)
		return (jr_fail(r, "%zu entries, expected %zu (%s)", i, n,
		    per));
	jr_pop(r);
	return (0);
}

static int
jr_points(struct jr *r, const json_t *o, const char *key,
    struct gp_mem_point *p, int n)
{
	const json_t *v = jr_container(r, o, key, false);

	if (v == NULL)
		return (-1);
	jr_key(r, key);
	if (jr_col(r, v, "live", (size_t)n, 0, INT64_MAX, "one per apply") < 0)
		return (-1);
	for (int i = 0; i < n; i++)
		p[i].live = (uint64_t)r->tmp[i];
	if (jr_col(r, v, "fresh", (size_t)n, 0, INT64_MAX,
	    "one per apply") < 0)
		return (-1);
	for (int i = 0; i < n; i++)
		p[i].fresh = (uint64_t)r->tmp[i];
	jr_pop(r);
	return (0);
}

/* Add s to the pool; -1 when the pool would pass 4 GiB. */
static int
pool_add_checked(struct pool *p, const char *s, size_t len, uint32_t *off)
{
	if (p->len + len + 1 > UINT32_MAX)
		return (-1);
	if (p->len + len + 1 > p->cap)
		gp_grow(&p->s, &p->cap, p->len + len + 1, 1);
	*off = (uint32_t)p->len;
	memcpy(p->s + p->len, s, len);
	p->s[p->len + len] = '\0';
	p->len += len + 1;
	return (0);
}

static int
jr_bufs(struct jr *r, const json_t *o, struct gp_memprof *m,
    struct gp_mem_sim *s, struct pool *pool)
{
	const json_t *b, *kinds, *names;
	const char *kc;
	int64_t *col[3] = {NULL, NULL, NULL};	/* fn, step, out */
	static const char *const keys[3] = {"fn", "step", "out"};
	int64_t lo[3] = {-1, -1, -1};
	int64_t hi[3] = {m->n_fn - 1, INT32_MAX - 1, GP_MAX_OUT - 1};
	size_t n, n_named = 0, next = 0;
	int rc = -1;

	if (jr_int32(r, o, "n_bufs", 0, INT32_MAX - 1, &s->n_bufs) < 0)
		return (-1);
	n = (size_t)s->n_bufs;
	if ((b = jr_container(r, o, "bufs", false)) == NULL)
		return (-1);
	jr_key(r, "bufs");
	/* the kinds, a character each, bound what is allocated */
	if ((kinds = jr_get(r, b, "kind", "a string")) == NULL)
		return (-1);
	if (!json_is_string(kinds) || json_string_length(kinds) != n) {
		jr_key(r, "kind");
		if (!json_is_string(kinds))
			return (jr_fail(r, "expected a string, got %s",
			    gp_jsonpos_kind(kinds)));
		return (jr_fail(r, "%zu kinds, but n_bufs says %zu",
		    json_string_length(kinds), n));
	}
	s->bufs = gp_xcalloc(n + 1, sizeof(*s->bufs));
	kc = json_string_value(kinds);
	for (size_t i = 0; i < n; i++) {
		const char *c = memchr(kind_chars, kc[i],
		    sizeof(kind_chars) - 1);

		if (c == NULL) {
			jr_key(r, "kind");
			jr_index(r, i);
			return (jr_fail(r, "expected a kind: i (input), s "
			    "(shared), c (constant), h (held) or n (new)"));
		}
		s->bufs[i].kind = (int8_t)(c - kind_chars);
	}
	if (jr_col(r, b, "bytes", n, 0, INT64_MAX, "one per storage") < 0)
		return (-1);
	for (size_t i = 0; i < n; i++)
		s->bufs[i].bytes = (uint64_t)r->tmp[i];
	if (jr_col(r, b, "n_ref", n, 0, INT32_MAX, "one per storage") < 0)
		return (-1);
	for (size_t i = 0; i < n; i++)
		s->bufs[i].n_ref = (int)r->tmp[i];
	for (int c = 0; c < 3; c++) {
		if (jr_col(r, b, keys[c], n, lo[c], hi[c],
		    "one per storage") < 0)
			goto out;
		col[c] = gp_xmalloc(sizeof(int64_t) * (n + 1));
		memcpy(col[c], r->tmp, sizeof(int64_t) * n);
	}
	for (size_t i = 0; i < n; i++) {
		struct gp_mem_buf *d = &s->bufs[i];
		int64_t k = col[2][i];

		d->fn = (int)col[0][i];
		d->step = (int)col[1][i];
		if (k < 0) {
			n_named++;
			continue;
		}
		if (d->fn != m->fn || d->step < 0 || d->step >= m->n_apply ||
		    k >= m->ap[d->step].n_out) {
			jr_key(r, "out");
			jr_index(r, i);
			jr_fail(r, "output %lld of apply %d of function %d: "
			    "not an output of this function's applies (-1: "
			    "the storage is named in \"names\")",
			    (long long)k, d->step, d->fn);
			goto out;
		}
		d->var = m->outs[m->ap[d->step].first_out + (uint32_t)k].var;
	}
	if ((names = jr_container(r, b, "names", true)) == NULL)
		goto out;
	jr_key(r, "names");
	if (json_array_size(names) != n_named) {
		jr_fail(r, "%zu names, but %zu storages are named here (their "
		    "out is -1)", json_array_size(names), n_named);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *v;

		if (col[2][i] >= 0)
			continue;
		v = json_array_get(names, next);
		jr_index(r, next++);
		if (!json_is_string(v)) {
			jr_fail(r, "expected a string, got %s", gp_jsonpos_kind(v));
			goto out;
		}
		{
			/* as the terminal may see it: ESC, BEL, C1 escaped */
			char *t = gp_text_dup(json_string_value(v));
			int bad = pool_add_checked(pool, t, strlen(t),
			    &s->bufs[i].var);

			free(t);
			if (bad < 0) {
				jr_fail(r, "too many names");
				goto out;
			}
		}
		jr_pop(r);
	}
	jr_pop(r);
	jr_pop(r);
	rc = 0;
out:
	for (int c = 0; c < 3; c++)
		free(col[c]);
	return (rc);
}

static int
jr_sim(struct jr *r, const json_t *o, struct gp_memprof *m,
    struct gp_mem_sim *s, struct pool *pool)
{
	if (!json_is_object(o))
		return (jr_fail(r, "expected an object, got %s", gp_jsonpos_kind(o)));
	if (jr_u64(r, o, "peak", &s->peak) < 0 ||
	    jr_u64(r, o, "peak_first", &s->peak_first) < 0 ||
	    jr_u64(r, o, "peak_steady", &s->peak_steady) < 0 ||
	    jr_u64(r, o, "base_first", &s->base_first) < 0 ||
	    jr_u64(r, o, "base_steady", &s->base_steady) < 0 ||
	    jr_u64(r, o, "values", &s->values) < 0 ||
	    jr_u64(r, o, "held", &s->held) < 0 ||
	    jr_u64(r, o, "fresh_peak", &s->fresh_peak) < 0 ||
	    jr_int32(r, o, "peak_call", 0, 1, &s->peak_call) < 0 ||
	    jr_int32(r, o, "peak_step", -1, m->n_apply - 1,
	    &s->peak_step) < 0 ||
	    jr_u64(r, o, "peak_fresh", &s->peak_fresh) < 0)
		return (-1);
	s->after = gp_xcalloc((size_t)m->n_apply + 1, sizeof(*s->after));
	s->during = gp_xcalloc((size_t)m->n_apply + 1, sizeof(*s->during));
	if (jr_points(r, o, "after", s->after, m->n_apply) < 0 ||
	    jr_points(r, o, "during", s->during, m->n_apply) < 0)
		return (-1);
	return (jr_bufs(r, o, m, s, pool));
}

/* The outputs, sums and names the applies of f give. */
static int
from_applies(struct jr *r, struct gp_memprof *m, const struct gp_prof_fn *f,
    struct pool *pool)
{
	size_t no = 0;
	uint32_t o = 0, none;

	for (int i = 0; i < f->n_apply; i++)
		no += (size_t)(f->ap[i].n_out > 0 ? f->ap[i].n_out : 0);
	if (no >= UINT32_MAX)
		return (jr_fail(r, "too many outputs"));
	m->n_apply = f->n_apply;
	m->ap = gp_xcalloc((size_t)m->n_apply + 1, sizeof(*m->ap));
	m->outs = gp_xcalloc(no + 1, sizeof(*m->outs));
	m->n_outs = (uint32_t)no;
	if (pool_add_checked(pool, "", 0, &none) < 0 ||
	    pool_add_checked(pool, f->name != NULL ? f->name : "",
	    f->name != NULL ? strlen(f->name) : 0, &m->fn_name) < 0)
		return (jr_fail(r, "too many names"));
	for (int i = 0; i < m->n_apply; i++) {
		const struct gp_prof_apply *pa = &f->ap[i];
		struct gp_mem_apply *a = &m->ap[i];

		a->first_out = o;
		a->n_out = pa->n_out > 0 ? pa->n_out : 0;
		for (int k = 0; k < a->n_out; k++, o++) {
			const struct gp_prof_io *io = &pa->out[k];
			struct gp_mem_out *mo = &m->outs[o];
			const char *v = io->var != NULL ? io->var : "";

			mo->bytes = io->nbytes;
			mo->ndim = (int8_t)(io->ndim >= 0 && io->ndim <=
			    GP_MAX_DIMS ? io->ndim : 0);
			memcpy(mo->shape, io->shape, sizeof(mo->shape));
			mo->dtype = (int8_t)io->dtype;
			mo->alias = io->alias == 'v' || io->alias == 'i' ?
			    io->alias : 'c';
			mo->src = -1;
			if (pool_add_checked(pool, v, strlen(v), &mo->var) < 0)
				return (jr_fail(r, "too many names"));
			a->out_bytes += mo->bytes;
			m->sum_out += mo->bytes;
			if (mo->alias == 'c')
				a->alloc_bytes += mo->bytes;
			else if (mo->alias == 'v')
				m->sum_view += mo->bytes;
			else
				m->sum_inplace += mo->bytes;
		}
	}
	return (0);
}

static int
jr_memprof(struct jr *r, const json_t *j, struct gp_memprof *m,
    const struct gp_prof_fn *f, struct pool *pool)
{
	const json_t *v, *e;
	size_t n;

	if (!json_is_object(j))
		return (jr_fail(r, "expected an object, got %s", gp_jsonpos_kind(j)));
	if (from_applies(r, m, f, pool) < 0)
		return (-1);
	n = (size_t)m->n_apply;
	if (jr_bool(r, j, "allow_gc", &m->allow_gc) < 0 ||
	    jr_u64(r, j, "external", &m->external) < 0 ||
	    jr_u64(r, j, "val_input", &m->val_input) < 0 ||
	    jr_u64(r, j, "val_shared", &m->val_shared) < 0 ||
	    jr_u64(r, j, "val_const", &m->val_const) < 0 ||
	    jr_u64(r, j, "val_used", &m->val_used) < 0)
		return (-1);
	if ((v = jr_container(r, j, "inter", true)) == NULL)
		return (-1);
	jr_key(r, "inter");
	if (json_array_size(v) != 2)
		return (jr_fail(r, "expected 2 arrays (GC on, GC off), got "
		    "%zu", json_array_size(v)));
	for (size_t g = 0; g < 2; g++) {
		e = json_array_get(v, g);
		jr_index(r, g);
		if (!json_is_array(e) || json_array_size(e) !=
		    GP_MEM__VARIANTS)
			return (jr_fail(r, "expected an array of %d "
			    "non-negative integers (as run, no inplace, no "
			    "view)", GP_MEM__VARIANTS));
		for (size_t k = 0; k < GP_MEM__VARIANTS; k++) {
			int64_t x;

			jr_index(r, k);
			if (jr_int_here(r, json_array_get(e, k), 0, INT64_MAX,
			    &x) < 0)
				return (-1);
			m->inter[g][k] = (uint64_t)x;
			jr_pop(r);
		}
		jr_pop(r);
	}
	jr_pop(r);

	if (jr_col(r, j, "inter_after", n, 0, INT64_MAX, "one per apply") < 0)
		return (-1);
	for (size_t i = 0; i < n; i++)
		m->ap[i].inter_after = (uint64_t)r->tmp[i];
	if (jr_col(r, j, "inter_during", n, 0, INT64_MAX,
	    "one per apply") < 0)
		return (-1);
	for (size_t i = 0; i < n; i++)
		m->ap[i].inter_during = (uint64_t)r->tmp[i];
	if (jr_col(r, j, "alias_of", m->n_outs, -1, INT8_MAX,
	    "one per output") < 0)
		return (-1);
	for (int i = 0; i < m->n_apply; i++)
		for (int k = 0; k < m->ap[i].n_out; k++) {
			uint32_t o = m->ap[i].first_out + (uint32_t)k;
			struct gp_mem_out *mo = &m->outs[o];
			int64_t src = r->tmp[o];

			if (mo->alias == 'c' ? src != -1 : (src < 0 ||
			    src >= f->ap[i].n_in)) {
				jr_key(r, "alias_of");
				jr_index(r, o);
				if (mo->alias == 'c')
					return (jr_fail(r, "output %d of apply "
					    "%d is created: expected -1, got "
					    "%lld", k, i, (long long)src));
				return (jr_fail(r, "output %d of apply %d is "
				    "%s: expected one of its %d inputs (0 to "
				    "%d), got %lld", k, i, mo->alias == 'v' ?
				    "a view" : "in place", f->ap[i].n_in,
				    f->ap[i].n_in - 1, (long long)src));
			}
			mo->src = (int8_t)src;
		}

	if ((v = jr_container(r, j, "sim", true)) == NULL)
		return (-1);
	jr_key(r, "sim");
	if (json_array_size(v) != 2)
		return (jr_fail(r, "expected 2 objects (GC on, GC off), got "
		    "%zu", json_array_size(v)));
	for (size_t g = 0; g < 2; g++) {
		jr_index(r, g);
		if (jr_sim(r, json_array_get(v, g), m, &m->sim[g], pool) < 0)
			return (-1);
		jr_pop(r);
	}
	jr_pop(r);

	if ((v = json_object_get(j, "min")) != NULL) {
		bool *seen;

		jr_key(r, "min");
		if (!json_is_object(v))
			return (jr_fail(r, "expected an object, got %s",
			    gp_jsonpos_kind(v)));
		if (jr_bool(r, v, "optimal", &m->min_optimal) < 0 ||
		    jr_u64(r, v, "peak", &m->min_peak) < 0 ||
		    jr_u64(r, v, "lower", &m->min_lower) < 0 ||
		    jr_u64(r, v, "states", &m->min_states) < 0 ||
		    jr_real(r, v, "ms", &m->min_ms) < 0)
			return (-1);
		if (jr_col(r, v, "order", n, 0, m->n_apply - 1,
		    "one per apply") < 0)
			return (-1);
		m->min_order = gp_xcalloc(n + 1, sizeof(int));
		seen = gp_xcalloc(n + 1, sizeof(bool));
		for (size_t i = 0; i < n; i++) {
			if (seen[r->tmp[i]]) {
				jr_key(r, "order");
				jr_index(r, i);
				free(seen);
				return (jr_fail(r, "apply %lld comes twice: "
				    "expected an order of the applies",
				    (long long)r->tmp[i]));
			}
			seen[r->tmp[i]] = true;
			m->min_order[i] = (int)r->tmp[i];
		}
		free(seen);
		m->min_done = true;
		jr_pop(r);
	}
	return (0);
}

struct gp_memprof *
gp_memprof_from_json(const json_t *j, const struct gp_prof_fn *f, int fn,
    int n_fn, const char *path, struct gp_err *err)
{
	struct jr r = {.prefix = path, .err = err};
	struct pool pool = {0};
	struct gp_memprof *m = gp_xcalloc(1, sizeof(*m));
	int rc;

	m->fn = fn;
	m->n_fn = n_fn;
	rc = jr_memprof(&r, j, m, f, &pool);
	free(r.tmp);
	m->strs = pool.s != NULL ? pool.s : gp_xcalloc(1, 1);
	m->strs_len = (uint32_t)pool.len;
	if (rc < 0) {
		gp_memprof_free(m);
		return (NULL);
	}
	return (m);
}

/*
 * The report section.
 */

/* "7.6MiB (8000000 B)", or "80 B". */
static const char *
fmt_b(char *buf, size_t n, uint64_t b)
{
	char h[32];

	if (b < 1024) {
		snprintf(buf, n, "%llu B", (unsigned long long)b);
		return (buf);
	}
	gp_fmt_bytes(h, sizeof(h), (double)b);
	snprintf(buf, n, "%s (%llu B)", h, (unsigned long long)b);
	return (buf);
}

static void
put_cut(FILE *fp, const char *s, int room)
{
	int len = (int)strlen(s);

	if (room < 8)
		room = 8;
	if (len <= room)
		fprintf(fp, "%s\n", s);
	else
		fprintf(fp, "%.*s...\n", room - 3, s);
}

static void
fmt_shapes(struct gp_buf *b, const struct gp_memprof *m,
    const struct gp_mem_apply *a)
{
	gp_buf_puts(b, "[");
	for (int k = 0; k < a->n_out; k++) {
		const struct gp_mem_out *o = &m->outs[a->first_out + k];

		gp_buf_puts(b, k ? ", (" : "(");
		for (int d = 0; d < o->ndim; d++)
			gp_buf_printf(b, "%s%lld", d ? ", " : "",
			    (long long)o->shape[d]);
		gp_buf_puts(b, o->ndim == 1 ? ",)" : ")");
	}
	gp_buf_puts(b, "]");
}

static bool
c_contiguous(const struct gp_prof_io *io)
{
	int64_t want = (int64_t)gp_dtype_size(io->dtype);

	for (int d = io->ndim - 1; d >= 0; d--) {
		if (io->shape[d] != 1 && io->strides[d] != want)
			return (false);
		want *= io->shape[d];
	}
	return (true);
}

/* Is b's shape a permutation of a's (size-1 dimensions left out)? */
static bool
same_dims(const struct gp_prof_io *a, const struct gp_prof_io *b)
{
	int64_t x[GP_MAX_DIMS], y[GP_MAX_DIMS];
	int nx = 0, ny = 0;

	for (int d = 0; d < a->ndim; d++)
		if (a->shape[d] != 1)
			x[nx++] = a->shape[d];
	for (int d = 0; d < b->ndim; d++)
		if (b->shape[d] != 1)
			y[ny++] = b->shape[d];
	if (nx != ny)
		return (false);
	for (int i = 0; i < nx; i++) {
		bool found = false;

		for (int j = 0; j < ny && !found; j++)
			if (y[j] == x[i]) {
				y[j] = -1;
				found = true;
			}
		if (!found)
			return (false);
	}
	return (true);
}

/* Can BLAS take this operand where it lies (ops/blas.c)?  A scalar; a
 * vector with a non-zero increment; a row- or column-major matrix; of
 * the output's dtype. */
static bool
blas_operand(const struct gp_prof_io *io, enum gp_dtype out)
{
	int64_t isz = (int64_t)gp_dtype_size(io->dtype);
	const int64_t *sh = io->shape, *st = io->strides;

	if (io->ndim == 0)
		return (true);
	if (io->dtype != out)
		return (false);
	if (io->ndim == 1)
		return (st[0] != 0 || sh[0] <= 1);
	if (io->ndim != 2)
		return (c_contiguous(io));
	if ((sh[1] <= 1 || st[1] == isz) && (sh[0] <= 1 ||
	    st[0] >= sh[1] * isz))
		return (true);		/* row-major, leading dimension st[0] */
	if ((sh[0] <= 1 || st[0] == isz) && (sh[1] <= 1 ||
	    st[1] >= sh[0] * isz))
		return (true);		/* column-major (a transpose) */
	return (false);
}

/* Applies whose kernels may allocate beyond the prediction; returns the
 * bytes they could add (an upper bound).  A declared view whose source
 * is not contiguous, whose output is, and whose shape is not a
 * permutation of the source's was a copy (reshape, flatten). */
static uint64_t
list_suspects(FILE *fp, const struct gp_profile *p, int f, bool print)
{
	const struct gp_prof_fn *pf = &p->fn[f];
	const struct gp_memprof *m = pf->mem;
	uint64_t extra = 0;

	for (int i = 0; i < m->n_apply && i < pf->n_apply; i++) {
		const struct gp_prof_apply *a = &pf->ap[i];
		const struct gp_mem_apply *ma = &m->ap[i];

		for (int k = 0; k < ma->n_out && k < a->n_out; k++) {
			const struct gp_mem_out *o =
			    &m->outs[ma->first_out + k];

			if (o->alias != 'v' || o->src < 0 ||
			    o->src >= a->n_in || !a->in[o->src].strides_known ||
			    !a->out[k].strides_known ||
			    c_contiguous(&a->in[o->src]) ||
			    !c_contiguous(&a->out[k]) ||
			    same_dims(&a->in[o->src], &a->out[k]))
				continue;
			extra += o->bytes;
			if (print)
				fprintf(fp, "        apply %d declares output "
				    "%d a view of a non-contiguous input but "
				    "copied it, as reshape does (%llu B): "
				    "%s\n", i, k, (unsigned long long)o->bytes,
				    a->name);
		}
		if (a->impl == GP_IMPL_BLAS) {
			uint64_t b = 0;

			for (int k = 0; k < a->n_in; k++)
				if (a->in[k].strides_known && !blas_operand(
				    &a->in[k], a->n_out > 0 ? a->out[0].dtype :
				    a->in[k].dtype))
					b += a->in[k].nbytes;
			if (b == 0)
				continue;
			extra += b;
			if (print)
				fprintf(fp, "        apply %d (BLAS) has "
				    "operands BLAS cannot address, copied to "
				    "temporaries (%llu B): %s\n", i,
				    (unsigned long long)b, a->name);
		}
	}
	return (extra);
}

/* The span's calls, in words ("a later call"). */
static const char *
span_call(enum gp_mem_span span, int peak_call)
{
	switch (span) {
	case GP_MEM_SPAN_FIRST:
		return ("the first call (the only one run)");
	case GP_MEM_SPAN_LATER:
		return ("a later call (the first was not counted)");
	default:
		return (peak_call ? "a later call" : "the first call");
	}
}

static void
measured_lines(FILE *fp, const struct gp_profile *p, int f)
{
	const struct gp_prof_fn *pf = &p->fn[f];
	const struct gp_memprof *m = pf->mem;
	const struct gp_mem_sim *s = gp_memprof_sim(m);
	enum gp_mem_span span = gp_memprof_span(p, f);
	uint64_t pred = gp_memprof_predicted_peak(p, f);
	uint64_t meas = pf->mem_peak_measured;
	int call = span == GP_MEM_SPAN_FIRST ? 0 : span == GP_MEM_SPAN_LATER ?
	    1 : s->peak_call;
	char b1[64], b2[64];

	fprintf(fp, "    Predicted peak (the program's peak over the calls "
	    "run, plus storage outside it): %s, in %s", fmt_b(b1, sizeof(b1),
	    pred), span_call(span, s->peak_call));
	if (call == s->peak_call) {
		if (s->peak_step >= 0)
			fprintf(fp, ", during apply %d", s->peak_step);
		else
			fprintf(fp, ", at its start");
		fprintf(fp, "; of it %s allocated during the call",
		    fmt_b(b1, sizeof(b1), s->peak_fresh));
	}
	fprintf(fp, "\n");
	if (meas == 0) {
		fprintf(fp, "    Measured peak: none (no call was run)\n");
		return;
	}
	fprintf(fp, "    Measured peak (the allocator's high-water mark over "
	    "the calls run): %s: ", fmt_b(b1, sizeof(b1), meas));
	if (meas == pred) {
		fprintf(fp, "equal to the predicted peak\n");
		return;
	}
	if (span == GP_MEM_SPAN_ALL && meas == s->peak_steady + m->external) {
		fprintf(fp, "equal to the predicted peak of a later call (the "
		    "first call, %s, was not counted)\n",
		    fmt_b(b2, sizeof(b2), s->peak_first + m->external));
		return;
	}
	if (meas > pred)
		fprintf(fp, "%s above the predicted peak\n",
		    fmt_b(b2, sizeof(b2), meas - pred));
	else
		fprintf(fp, "%s below the predicted peak\n",
		    fmt_b(b2, sizeof(b2), pred - meas));
	fprintf(fp, "      Why it can differ:\n");
	(void)list_suspects(fp, p, f, true);
	fprintf(fp, "        kernels may allocate temporaries (workspace) "
	    "that no declaration shows; storage outside the program that "
	    "the session did not declare counts too\n");
}

static const char *const kind_names[] = {
	[GP_MEM_INPUT] = "input",
	[GP_MEM_SHARED] = "shared",
	[GP_MEM_CONSTANT] = "constant",
	[GP_MEM_HELD] = "held",
	[GP_MEM_NEW] = "new",
};

static void
peak_buffers(FILE *fp, const struct gp_profile *p, int f,
    const struct gp_report_opts *o)
{
	const struct gp_memprof *m = p->fn[f].mem;
	const struct gp_mem_sim *s = gp_memprof_sim(m);
	int shown = 0;
	uint64_t rest = 0;
	char b1[64];

	fprintf(fp, "Storage alive at the program's peak (%s, ",
	    s->peak_call ? "a later call" : "the first call");
	if (s->peak_step < 0)
		fprintf(fp, "at the call's start):\n");
	else
		fprintf(fp, "during apply %d: %s):\n", s->peak_step,
		    s->peak_step < p->fn[f].n_apply ?
		    p->fn[f].ap[s->peak_step].name : "?");
	fprintf(fp, "    <bytes> <kind> <refs> <variable> <made by>\n");
	for (int i = 0; i < s->n_bufs; i++) {
		const struct gp_mem_buf *b = &s->bufs[i];

		if (shown >= o->n_apply ||
		    (int64_t)b->bytes < o->min_memory_size) {
			rest += b->bytes;
			continue;
		}
		shown++;
		fprintf(fp, "    %12lluB  %-8s %4d  %s", (unsigned long long)
		    b->bytes, kind_names[b->kind], b->n_ref,
		    gp_memprof_str(m, b->var));
		if (b->fn >= 0 && b->fn < p->n_fn)
			fprintf(fp, "  (made by apply %d of %s%s)", b->step,
			    p->fn[b->fn].name, b->kind == GP_MEM_NEW ? "" :
			    " in an earlier call");
		fprintf(fp, "\n");
	}
	if (shown < s->n_bufs)
		fprintf(fp, "    ... (remaining %d storages: %s)\n",
		    s->n_bufs - shown, fmt_b(b1, sizeof(b1), rest));
}

struct row {
	int		fn, id;
	uint64_t	bytes;
};

static int
cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->bytes != y->bytes)
		return (x->bytes > y->bytes ? -1 : 1);
	if (x->fn != y->fn)
		return (x->fn - y->fn);
	return (x->id - y->id);
}

/* The per-apply table over function fn (fn < 0: all). */
static void
apply_table(FILE *fp, const struct gp_profile *p, int fn,
    const struct gp_report_opts *o)
{
	struct row *rows = NULL;
	size_t n = 0, cap = 0, shown = 0;
	uint64_t total = 0, rest = 0;
	struct gp_buf b = {0};
	int multi = 0;

	for (int f = 0; f < p->n_fn; f++) {
		const struct gp_memprof *m = p->fn[f].mem;

		if ((fn >= 0 && f != fn) || m == NULL)
			continue;
		multi++;
		for (int i = 0; i < m->n_apply; i++) {
			gp_grow(&rows, &cap, n + 1, sizeof(*rows));
			rows[n].fn = f;
			rows[n].id = i;
			rows[n++].bytes = m->ap[i].out_bytes;
			total += m->ap[i].out_bytes;
		}
	}
	if (n > 0)
		qsort(rows, n, sizeof(*rows), cmp_row);
	fprintf(fp, "    <Sum apply outputs (bytes)> <Apply outputs shape> "
	    "<created/inplace/view> <Apply node>\n");
	if (multi > 1)
		fprintf(fp, "    (this list is based on all functions in the "
		    "profile; \"f:N\" is apply N of function f)\n");
	for (size_t r = 0; r < n; r++) {
		const struct gp_memprof *m = p->fn[rows[r].fn].mem;
		const struct gp_mem_apply *a = &m->ap[rows[r].id];
		const struct gp_prof_fn *pf = &p->fn[rows[r].fn];
		int used;

		if ((int)shown >= o->n_apply ||
		    (int64_t)rows[r].bytes < o->min_memory_size) {
			rest += rows[r].bytes;
			continue;
		}
		shown++;
		gp_buf_clear(&b);
		gp_buf_printf(&b, "     %9lluB  ", (unsigned long long)
		    rows[r].bytes);
		fmt_shapes(&b, m, a);
		gp_buf_puts(&b, " ");
		for (int k = 0; k < a->n_out; k++)
			gp_buf_printf(&b, "%s%c", k ? " " : "",
			    m->outs[a->first_out + k].alias);
		gp_buf_puts(&b, " ");
		if (multi > 1)
			gp_buf_printf(&b, "%s:%d ", pf->name, rows[r].id);
		used = (int)b.len;
		fputs(gp_buf_str(&b), fp);
		put_cut(fp, rows[r].id < pf->n_apply ?
		    pf->ap[rows[r].id].name : "?", o->width - used);
	}
	fprintf(fp, "   ... (remaining %zu Apply account for %lluB/%lluB "
	    "(%.2f%%) of the Apply with dense outputs sizes)\n", n - shown,
	    (unsigned long long)rest, (unsigned long long)total,
	    total ? 100.0 * (double)rest / (double)total : 0.0);
	if (shown == 0)
		fprintf(fp, "    All Apply nodes have output sizes that take "
		    "less than %lldB.\n", (long long)o->min_memory_size);
	fprintf(fp, "    c: allocated by the VM; v: a view of an input; "
	    "i: an input overwritten in place.  Views and in-place outputs "
	    "allocate nothing, as the VM runs them.\n");
	gp_buf_free(&b);
	free(rows);
}

/* Theano's lines for one profile (or the max over functions), named
 * after the figure they give: the intermediates peak.  Theano's "Memory
 * saved" figures are sums over outputs, never alive at once: the saving
 * printed is the change in the peak, the sum beside it, explained. */
static void
theano_lines(FILE *fp, uint64_t cur, uint64_t noinpl, uint64_t nogc,
    bool min_done, uint64_t min_peak, double min_ms, const char *min_note,
    uint64_t sum_view, uint64_t view_peak, uint64_t sum_inpl,
    uint64_t inpl_peak, uint64_t gc_saved)
{
	char b1[64], b2[64];

	fprintf(fp, "    Intermediates peak with current setting: %s\n",
	    fmt_b(b1, sizeof(b1), cur));
	fprintf(fp, "    Intermediates peak with current setting and flag "
	    "optimizer_excluding=inplace: %s\n", fmt_b(b1, sizeof(b1),
	    noinpl));
	fprintf(fp, "    Intermediates peak if allow_gc=False: %s\n",
	    fmt_b(b1, sizeof(b1), nogc));
	if (min_done) {
		gp_fmt_time(b2, sizeof(b2), min_ms * 1e6);
		fprintf(fp, "    Minimum intermediates peak from all valid "
		    "apply node orders is %s (took %s to compute; %s)\n",
		    fmt_b(b1, sizeof(b1), min_peak), b2, min_note);
	}
	fprintf(fp, "    Memory saved if views are used: %s off the "
	    "intermediates peak", fmt_b(b1, sizeof(b1), view_peak));
	if (sum_view > 0)
		fprintf(fp, " (Theano's figure, the sum of the outputs declared "
		    "views, is %s%s)", fmt_b(b2, sizeof(b2), sum_view),
		    sum_view > view_peak ? ": they are not alive at once" : "");
	fprintf(fp, "\n");
	fprintf(fp, "    Memory saved if inplace ops are used: %s off the "
	    "intermediates peak", fmt_b(b1, sizeof(b1), inpl_peak));
	if (sum_inpl > 0)
		fprintf(fp, " (Theano's figure, the sum of the outputs declared "
		    "inplace, is %s%s)", fmt_b(b2, sizeof(b2), sum_inpl),
		    sum_inpl > inpl_peak ? ": they are not alive at once" : "");
	fprintf(fp, "\n");
	fprintf(fp, "    Memory saved if gc is enabled: %s off the "
	    "intermediates peak\n", fmt_b(b1, sizeof(b1), gc_saved));
}

static uint64_t
sub0(uint64_t a, uint64_t b)
{
	return (a > b ? a - b : 0);
}

static void
function_section(FILE *fp, const struct gp_profile *p, int f,
    const struct gp_report_opts *o)
{
	const struct gp_memprof *m = p->fn[f].mem;
	const struct gp_mem_sim *s = gp_memprof_sim(m);
	const struct gp_mem_sim *os = &m->sim[m->allow_gc ? 1 : 0];
	enum gp_mem_span span = gp_memprof_span(p, f);
	int g = m->allow_gc ? 0 : 1;
	char b1[64], b2[64], b3[64], note[256];
	uint64_t cur = gp_memprof_inter_peak(m);

	fprintf(fp, "Function %s: %d applies, allow_gc=%s (as the VM runs); "
	    "sizes from the static shapes\n", p->fn[f].name, m->n_apply,
	    m->allow_gc ? "True" : "False");
	fprintf(fp, "  Intermediates (Theano's \"Max peak memory\"): the "
	    "storage the applies allocate in one call on its own\n");
	if (m->min_done) {
		if (m->min_optimal)
			snprintf(note, sizeof(note), "proven optimal, %llu "
			    "states", (unsigned long long)m->min_states);
		else
			snprintf(note, sizeof(note), "the best order found "
			    "within the budget, %llu states; no order needs "
			    "less than %s", (unsigned long long)m->min_states,
			    fmt_b(b3, sizeof(b3), m->min_lower));
	}
	theano_lines(fp, cur, m->inter[g][GP_MEM_NO_INPLACE],
	    m->inter[1][GP_MEM_AS_RUN], m->min_done, m->min_peak, m->min_ms,
	    note, m->sum_view, sub0(m->inter[g][GP_MEM_NO_VIEW], cur),
	    m->sum_inplace, sub0(m->inter[g][GP_MEM_NO_INPLACE], cur),
	    sub0(m->inter[1][GP_MEM_AS_RUN], m->inter[0][GP_MEM_AS_RUN]));
	if (m->min_done && m->min_peak < m->inter[0][GP_MEM_AS_RUN]) {
		struct gp_buf b = {0};

		gp_buf_printf(&b, "      that order (apply ids):");
		for (int i = 0; i < m->n_apply; i++)
			gp_buf_printf(&b, " %d", m->min_order[i]);
		put_cut(fp, gp_buf_str(&b), o->width);
		gp_buf_free(&b);
	}
	fprintf(fp, "  All storage (what the allocator counts), call after "
	    "call as the session runs them:\n");
	fprintf(fp, "    Persistent at the start of a later call: %s\n",
	    fmt_b(b1, sizeof(b1), s->base_steady));
	fprintf(fp, "      graph values: %s (inputs %s, shared %s, ",
	    fmt_b(b1, sizeof(b1), s->values),
	    fmt_b(b2, sizeof(b2), m->val_input),
	    fmt_b(b3, sizeof(b3), m->val_shared));
	fprintf(fp, "constants %s; ", fmt_b(b1, sizeof(b1), m->val_const));
	fprintf(fp, "this function reads %s)\n", fmt_b(b1, sizeof(b1),
	    m->val_used));
	fprintf(fp, "      buffers held from earlier calls: %s\n",
	    fmt_b(b1, sizeof(b1), s->held));
	fprintf(fp, "    Program peak: first call %s%s, later calls %s%s; "
	    "with allow_gc=%s: %s\n", fmt_b(b1, sizeof(b1), s->peak_first),
	    span == GP_MEM_SPAN_LATER ? " (not counted)" : "",
	    fmt_b(b2, sizeof(b2), s->peak_steady),
	    span == GP_MEM_SPAN_FIRST ? " (none was run)" : "",
	    m->allow_gc ? "False" : "True", fmt_b(b3, sizeof(b3),
	    span_peak(os, span)));
	fprintf(fp, "    Outside the program: %s%s\n", fmt_b(b1, sizeof(b1),
	    m->external), m->external > 0 ? " (the session's pristine copy "
	    "of the shared variables, kept for recompiles)" : "");
	measured_lines(fp, p, f);
	fprintf(fp, "  ---\n");
}

void
gp_memprof_report(FILE *fp, const struct gp_profile *p, int fn,
    const struct gp_report_opts *o)
{
	int n = 0, first = -1;

	for (int f = 0; f < p->n_fn; f++)
		if ((fn < 0 || f == fn) && p->fn[f].mem != NULL) {
			n++;
			if (first < 0)
				first = f;
		}
	if (fn >= 0 || p->n_fn == 1) {
		fprintf(fp, "Memory Profile\n--------------\n");
		if (n == 0) {
			fprintf(fp, "    (no memory profile was computed)\n\n");
			return;
		}
		function_section(fp, p, first, o);
		apply_table(fp, p, first, o);
		fprintf(fp, "  ---\n");
		peak_buffers(fp, p, first, o);
		fprintf(fp, "\n");
		return;
	}
	fprintf(fp, "Memory Profile (the max between all functions in that "
	    "profile, then each function)\n"
	    "-------------------------------------------------------------"
	    "-------------------\n");
	if (n == 0) {
		fprintf(fp, "    (no memory profile was computed)\n\n");
		return;
	}
	{
		uint64_t cur = 0, noinpl = 0, nogc = 0, minp = 0, sv = 0,
		    vp = 0, si = 0, ip = 0, gs = 0;
		double ms = 0;
		bool md = false, opt = true;
		char note[64];

		for (int f = 0; f < p->n_fn; f++) {
			const struct gp_memprof *m = p->fn[f].mem;
			int g;
			uint64_t c;

			if (m == NULL)
				continue;
			g = m->allow_gc ? 0 : 1;
			c = m->inter[g][GP_MEM_AS_RUN];
			cur = max64(cur, c);
			noinpl = max64(noinpl, m->inter[g][GP_MEM_NO_INPLACE]);
			nogc = max64(nogc, m->inter[1][GP_MEM_AS_RUN]);
			if (m->min_done) {
				md = true;
				minp = max64(minp, m->min_peak);
				ms += m->min_ms;
				opt = opt && m->min_optimal;
			}
			sv = max64(sv, m->sum_view);
			vp = max64(vp, sub0(m->inter[g][GP_MEM_NO_VIEW], c));
			si = max64(si, m->sum_inplace);
			ip = max64(ip, sub0(m->inter[g][GP_MEM_NO_INPLACE], c));
			gs = max64(gs, sub0(m->inter[1][GP_MEM_AS_RUN],
			    m->inter[0][GP_MEM_AS_RUN]));
		}
		snprintf(note, sizeof(note), "%s", opt ? "proven optimal" :
		    "the best found within the budget");
		fprintf(fp, "  Intermediates (Theano's \"Max peak memory\"), each figure "
		    "maxed over the functions separately:\n");
		theano_lines(fp, cur, noinpl, nogc, md, minp, ms, note, sv, vp,
		    si, ip, gs);
	}
	fprintf(fp, "  ---\n");
	fprintf(fp, "    %-14s %14s %14s %14s %14s %14s %14s\n", "<function>",
	    "<intermediates>", "<no inplace>", "<no gc>", "<min peak>",
	    "<predicted>", "<measured>");
	for (int f = 0; f < p->n_fn; f++) {
		const struct gp_memprof *m = p->fn[f].mem;
		int g;
		char mp[32] = "-", meas[32] = "-", c1[32], c2[32], c3[32],
		    c4[32];

		if (m == NULL)
			continue;
		g = m->allow_gc ? 0 : 1;
		if (m->min_done)
			snprintf(mp, sizeof(mp), "%lluB%s",
			    (unsigned long long)m->min_peak,
			    m->min_optimal ? "" : "?");
		if (p->fn[f].mem_peak_measured > 0)
			snprintf(meas, sizeof(meas), "%lluB", (unsigned long
			    long)p->fn[f].mem_peak_measured);
		snprintf(c1, sizeof(c1), "%lluB",
		    (unsigned long long)m->inter[g][GP_MEM_AS_RUN]);
		snprintf(c2, sizeof(c2), "%lluB",
		    (unsigned long long)m->inter[g][GP_MEM_NO_INPLACE]);
		snprintf(c3, sizeof(c3), "%lluB",
		    (unsigned long long)m->inter[1][GP_MEM_AS_RUN]);
		snprintf(c4, sizeof(c4), "%lluB",
		    (unsigned long long)gp_memprof_predicted_peak(p, f));
		fprintf(fp, "    %-14s %14s %14s %14s %14s %14s %14s\n",
		    p->fn[f].name, c1, c2, c3, mp, c4, meas);
	}
	fprintf(fp, "  ---\n");
	apply_table(fp, p, -1, o);
	fprintf(fp, "    (each function's section above has its storage "
	    "totals and the storage alive at its peak)\n\n");
}
