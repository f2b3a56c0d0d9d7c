/*
 * memreplay.c: the memory profile's engines (see memreplay.h): the string
 * pool, what the engines read from the graph, the program of each
 * function as the VM builds it, the VM's storage rules replayed call
 * after call (sim), and Theano's intermediates model.
 */
#include "config.h"

#include "prof/memreplay.h"

#include <stdlib.h>
#include <string.h>

#include "graph/op.h"
#include "run/vm.h"

/* inputs passed to a workspace() from the stack; more from the heap */
#define GP_MAX_IN_WORK 16

uint32_t
gp_memreplay_pool_add(struct mr_pool *p, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t off = (uint32_t)p->len;

	if (p->len + n > p->cap)
		gp_grow(&p->s, &p->cap, p->len + n, 1);
	memcpy(p->s + p->len, s, n);
	p->len += n;
	return (off);
}

static int
cmp_valref(const void *a, const void *b)
{
	const struct mr_valref *x = a, *y = b;

	if (x->st != y->st)
		return ((uintptr_t)x->st < (uintptr_t)y->st ? -1 : 1);
	return (x->var - y->var);
}

void
gp_memreplay_ctx_init(struct mr_ctx *c, const struct gp_graph *g)
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

void
gp_memreplay_ctx_done(struct mr_ctx *c)
{
	free(c->temp);
	free(c->vals);
	free(c->vvars);
}

/*
 * The program: what the VM runs for each function, in its terms.
 */

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
void
gp_memreplay_prog_build(struct mr_prog *pr, const struct mr_ctx *c,
    const struct gp_vm *vm, int fi, int *last, bool *surv,
    struct gp_memprof *mp, struct mr_pool *pool)
{
	const struct gp_graph *g = c->g;
	const struct gp_function *gf = &g->fns[fi];
	int n = gp_vm_n_steps(vm, fi);
	size_t no = 0, nfree = 0;
	struct gp_tensor *lay = NULL;

	memset(pr, 0, sizeof(*pr));
	pr->n = n;
	pr->node = gp_xmalloc(sizeof(int) * ((size_t)n + 1));
	pr->work = gp_xmalloc(sizeof(uint64_t) * ((size_t)n + 1));
	for (int i = 0; i < n; i++) {
		const struct gp_node *nd;
		const struct gp_tensor *in[GP_MAX_IN_WORK];

		pr->node[i] = gp_vm_step_node(vm, fi, i);
		nd = &g->nodes[pr->node[i]];
		no += (size_t)nd->n_out;
		pr->work[i] = 0;
		if (nd->op->workspace == NULL)
			continue;
		/* the kernel's work space, declared by its op for the
		 * layouts its inputs arrive in */
		if (lay == NULL) {
			lay = gp_xmalloc(sizeof(*lay) * (g->n_vars + 1));
			gp_vm_layout(vm, fi, lay);
		}
		if (nd->n_in <= GP_MAX_IN_WORK) {
			for (int k = 0; k < nd->n_in; k++)
				in[k] = &lay[nd->in[k]];
			pr->work[i] = nd->op->workspace(g, nd, in);
		} else {
			const struct gp_tensor **many = gp_xmalloc(
			    sizeof(*many) * (size_t)nd->n_in);

			for (int k = 0; k < nd->n_in; k++)
				many[k] = &lay[nd->in[k]];
			pr->work[i] = nd->op->workspace(g, nd, many);
			free(many);
		}
	}
	free(lay);
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
			struct mr_pout *o = &pr->outs[no++];
			const struct gp_var *gv = &g->vars[nd->out[k]];

			o->var = nd->out[k];
			o->bytes = gp_type_nbytes(&gv->type);
			if (mp != NULL) {
				struct gp_mem_out *mo = &mp->outs[no - 1];

				mo->ndim = (int8_t)gv->type.ndim;
				mo->dtype = (int8_t)gv->type.dtype;
				memcpy(mo->shape, gv->type.shape,
				    sizeof(mo->shape));
				mo->var = gp_memreplay_pool_add(pool, gv->name);
			}
			/* as the VM makes it: a view op's copy (a reshape
			 * of a transpose) is allocated */
			o->src = -1;
			switch (gp_vm_step_out(vm, fi, i, k)) {
			case GP_VM_OUT_INPLACE:
				o->mode = MR_DESTROY;
				o->src = nd->in[nd->destroy[k]];
				break;
			case GP_VM_OUT_VIEW:
				o->mode = MR_KERNEL;
				o->src = nd->in[nd->view[k]];
				break;
			default:
				o->mode = MR_ALLOC;
				break;
			}
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

void
gp_memreplay_prog_free(struct mr_prog *pr)
{
	free(pr->node);
	free(pr->work);
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
	const struct mr_ctx	*c;
	const struct mr_prog	*pr;
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
	uint64_t		 work;	/* work space held now */
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
	struct gp_mem_buf *b0;

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
	s->dump = gp_xcalloc((size_t)n + 2, sizeof(*s->dump));
	s->n_dump = 0;
	if (s->work > 0) {
		/* the running apply's work space: no variable's */
		b0 = &s->dump[s->n_dump++];
		b0->bytes = s->work;
		b0->var = UINT32_MAX;
		b0->kind = GP_MEM_WORK;
		b0->fn = s->cur_fn;
		b0->step = s->cur_step;
		b0->n_ref = 1;
	}
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

/* The kernel of the current step takes and gives back bytes of work
 * space (an event of its own: a replay can stop there). */
static void
sim_work(struct sim *s, uint64_t bytes)
{
	s->work = bytes;
	s->live += bytes;
	s->fresh += bytes;
	s->ev++;
	sim_peak_check(s);
	if (s->ev == s->stop_ev && !s->dumped)
		sim_dump(s);
	s->live -= bytes;
	s->fresh -= bytes;
	s->work = 0;
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
sim_init(struct sim *s, const struct mr_ctx *c, const struct mr_prog *pr,
    int n_fn, bool gc)
{
	const struct gp_graph *g = c->g;
	const struct mr_valref *vr = c->vals;
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
	const struct mr_prog *pr = &s->pr[fi];
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
		const struct mr_pout *o = &pr->outs[pr->out0[i]];
		int no = pr->out0[i + 1] - pr->out0[i];

		s->cur_step = i;
		s->hw = s->live;
		s->hw_fresh = s->fresh;
		/* prepare_outputs() */
		for (int k = 0; k < no; k++) {
			int *t = &slot[o[k].var];

			switch (o[k].mode) {
			case MR_ALLOC:
				if (*t >= 0) {
					if (s->ref[*t] == 1)
						break;
					sim_release(s, t);
				}
				*t = sim_alloc(s, o[k].bytes, o[k].var);
				break;
			case MR_KERNEL:
				sim_release(s, t);
				break;
			case MR_DESTROY:
				sim_view(s, t, slot[o[k].src]);
				break;
			}
		}
		/* the kernel makes its views, and holds its work space
		 * until it returns */
		for (int k = 0; k < no; k++)
			if (o[k].mode == MR_KERNEL)
				sim_view(s, &slot[o[k].var], slot[o[k].src]);
		if (pr->work[i] > 0)
			sim_work(s, pr->work[i]);
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
    const struct mr_pool *pool)
{
	int d = strcmp(pool->s + x->var, pool->s + y->var);

	if (d != 0)
		return (d);
	return (x->kind != y->kind ? (x->kind < y->kind ? -1 : 1) : 0);
}

static void
sort_by_name(struct gp_mem_buf *a, struct gp_mem_buf *t, size_t lo,
    size_t hi, const struct mr_pool *pool)
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
sort_bufs(struct gp_mem_buf *a, size_t n, const struct mr_pool *pool)
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
void
gp_memreplay_sim(struct gp_mem_sim *ms, const struct mr_ctx *c,
    const struct mr_prog *pr, int n_fn, int fi, bool gc, struct mr_pool *pool)
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
		ms->fresh_peak = mr_max64(ms->fresh_peak, rec[1][1][i].fresh);
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
		ms->bufs[i].var = gp_memreplay_pool_add(pool,
		    ms->bufs[i].kind == GP_MEM_WORK ? GP_MEM_WORK_NAME :
		    g->vars[ms->bufs[i].var].name);
	sort_bufs(ms->bufs, (size_t)ms->n_bufs, pool);
	sim_done(&s);
}

/*
 * model: Theano's intermediates, for one function called on its own.
 */
void
gp_memreplay_model_build(struct mr_model *m, const struct gp_graph *g,
    const struct mr_prog *pr, const bool *surv)
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
			const struct mr_pout *o = &pr->outs[j];

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

void
gp_memreplay_model_free(struct mr_model *m)
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
uint64_t
gp_memreplay_model_variant(struct mr_model *m, enum gp_mem_variant var)
{
	uint64_t total = 0;

	for (int i = 0; i < m->n; i++) {
		m->alloc[i] = 0;
		for (int j = m->out0[i]; j < m->out0[i + 1]; j++) {
			int mode = m->mode[j];

			if ((var == GP_MEM_NO_INPLACE && mode == MR_DESTROY) ||
			    (var == GP_MEM_NO_VIEW && mode == MR_KERNEL))
				mode = MR_ALLOC;
			m->bytes[j] = 0;
			if (mode == MR_ALLOC) {
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

void
gp_memreplay_model_reset(struct mr_model *m, bool gc)
{
	m->gc = gc;
	m->live = 0;
	for (int u = 0; u < m->nv; u++) {
		m->rem[u] = m->ncons[u];
		m->cnt[u] = 0;
	}
}

/* The peak of an order (NULL: the schedule); per step figures into
 * ap when not NULL. */
uint64_t
gp_memreplay_model_eval(struct mr_model *m, bool gc, const int *order,
    struct gp_mem_apply *ap)
{
	uint64_t peak = 0;

	gp_memreplay_model_reset(m, gc);
	for (int i = 0; i < m->n; i++) {
		int p = order != NULL ? order[i] : i;
		uint64_t d = mr_model_exec(m, p);

		peak = mr_max64(peak, d);
		if (ap != NULL) {
			ap[p].inter_during = d;
			ap[p].inter_after = m->live;
		}
	}
	return (peak);
}
