/*
 * memprof.c: the memory profile of a function computed from the VM's
 * schedule, and read against a profile's measured figures (see
 * memprof.h).  The engines are memreplay.c's and memsearch.c's.
 */
#include "config.h"

#include "prof/memprof.h"

#include <stdlib.h>
#include <string.h>

#include "prof/memreplay.h"
#include "prof/memsearch.h"
#include "run/vm.h"

/*
 * graph values; the figures against a profile; compute
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
	struct mr_ctx c, o;
	uint64_t b = 0;
	size_t j = 0;

	gp_memreplay_ctx_init(&c, g);
	if (beside != NULL)
		gp_memreplay_ctx_init(&o, beside);
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
		gp_memreplay_ctx_done(&o);
	gp_memreplay_ctx_done(&c);
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
count_values(struct gp_memprof *mp, const struct mr_ctx *c,
    const struct mr_prog *pr, int fi)
{
	const struct gp_graph *g = c->g;
	const struct gp_function *gf = &g->fns[fi];
	const struct mr_valref *vr = c->vals;
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

/* The applies' sums and alias marks (gp_memreplay_prog_build described the
 * outputs). */
static void
describe_applies(struct gp_memprof *mp, const struct gp_graph *g,
    const struct mr_prog *pr)
{
	mp->ap = gp_xcalloc((size_t)pr->n + 1, sizeof(*mp->ap));
	mp->work_max_step = -1;
	for (int i = 0; i < pr->n; i++) {
		const struct gp_node *nd = &g->nodes[pr->node[i]];
		struct gp_mem_apply *a = &mp->ap[i];

		a->work_bytes = pr->work[i];
		if (pr->work[i] > 0) {
			mp->n_work++;
			if (pr->work[i] > mp->work_max) {
				mp->work_max = pr->work[i];
				mp->work_max_step = i;
			}
		}

		a->first_out = (uint32_t)pr->out0[i];
		a->n_out = nd->n_out;
		for (int k = 0; k < nd->n_out; k++) {
			const struct mr_pout *po = &pr->outs[pr->out0[i] + k];
			struct gp_mem_out *mo = &mp->outs[pr->out0[i] + k];

			mo->bytes = po->bytes;
			mo->alias = po->mode == MR_DESTROY ? 'i' :
			    po->mode == MR_KERNEL ? 'v' : 'c';
			mo->src = (int8_t)(po->mode == MR_DESTROY ?
			    nd->destroy[k] : po->mode == MR_KERNEL ?
			    nd->view[k] : -1);
			a->out_bytes += po->bytes;
			mp->sum_out += po->bytes;
			if (po->mode == MR_ALLOC)
				a->alloc_bytes += po->bytes;
			else if (po->mode == MR_KERNEL)
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
	struct mr_prog *pr;
	struct mr_model m;
	struct mr_pool pool = {0};
	int n_fn = (int)g->n_fns;
	int *last;
	bool *surv, *surv_fn;
	struct gp_memprof_opts dflt = {0};
	struct mr_ctx c;

	if (fn < 0 || fn >= n_fn)
		return (NULL);
	if (o == NULL)
		o = &dflt;
	mp = gp_xcalloc(1, sizeof(*mp));
	mp->fn = fn;
	mp->n_fn = n_fn;
	mp->allow_gc = gp_vm_allow_gc(vm);
	(void)gp_memreplay_pool_add(&pool, "");
	mp->fn_name = gp_memreplay_pool_add(&pool, g->fns[fn].name != NULL ?
	    g->fns[fn].name : "");
	gp_memreplay_ctx_init(&c, g);
	last = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	surv = gp_xmalloc(sizeof(bool) * (g->n_vars + 1));
	surv_fn = gp_xmalloc(sizeof(bool) * (g->n_vars + 1));
	pr = gp_xcalloc((size_t)n_fn + 1, sizeof(*pr));
	for (int f = 0; f < n_fn; f++) {
		gp_memreplay_prog_build(&pr[f], &c, vm, f, last, surv,
		    f == fn ? mp : NULL, &pool);
		pr[f].fo0 = f > 0 ? pr[f - 1].fo0 + g->fns[f - 1].n_out : 0;
		if (f == fn)
			memcpy(surv_fn, surv, sizeof(bool) * g->n_vars);
	}
	mp->n_apply = pr[fn].n;
	describe_applies(mp, g, &pr[fn]);
	count_values(mp, &c, &pr[fn], fn);

	/* Theano's figures */
	gp_memreplay_model_build(&m, g, &pr[fn], surv_fn);
	for (int v = GP_MEM__VARIANTS - 1; v >= 0; v--) {
		if ((v == GP_MEM_NO_INPLACE && mp->sum_inplace == 0) ||
		    (v == GP_MEM_NO_VIEW && mp->sum_view == 0))
			continue;	/* the same as run */
		mp->inter[1][v] = gp_memreplay_model_variant(&m,
		    (enum gp_mem_variant)v);
		mp->inter[0][v] = gp_memreplay_model_eval(&m, true, NULL, v ==
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
		(void)gp_memreplay_model_eval(&m, false, NULL, mp->ap);

	/* the allocator's */
	gp_memreplay_sim(&mp->sim[0], &c, pr, n_fn, fn, true, &pool);
	gp_memreplay_sim(&mp->sim[1], &c, pr, n_fn, fn, false, &pool);

	if (o->min_peak)
		gp_memsearch_run(mp, &m, g, &pr[fn], o->budget_ms,
		    o->max_states);

	gp_memreplay_model_free(&m);
	for (int f = 0; f < n_fn; f++)
		gp_memreplay_prog_free(&pr[f]);
	free(pr);
	free(last);
	free(surv);
	free(surv_fn);
	gp_memreplay_ctx_done(&c);
	mp->strs = pool.s;
	mp->strs_len = (uint32_t)pool.len;
	return (mp);
}
