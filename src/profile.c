/*
 * profile.c: counters, folding the VM's tick stamps, histograms and
 * quantiles, and the Class / Ops / Apply rollups (see profile.h).
 */
#include "config.h"

#include "profile.h"
#include "memprof.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double
gp_prof_bin_lo(int b)
{
	if (b <= 0)
		return (0);
	return (ldexp(b & 1 ? 1.5 : 1.0, b / 2 + 3));
}

/* Add w to bin b.  The bins hold a distribution's shape, not its count
 * (n does): a bin about to wrap halves them all, which keeps the shape and
 * the quantiles. */
static void
hist_add(struct gp_prof_stat *s, int b, uint64_t w)
{
	while (w > (uint64_t)(UINT32_MAX - s->hist[b])) {
		for (int i = 0; i < GP_PROF_BINS; i++)
			s->hist[i] = (s->hist[i] + 1) / 2;
		w = (w + 1) / 2;
	}
	s->hist[b] += (uint32_t)w;
}

void
gp_prof_stat_add(struct gp_prof_stat *s, uint64_t ns)
{
	if (s->n == 0 || ns < s->min)
		s->min = ns;
	if (ns > s->max)
		s->max = ns;
	s->n++;
	s->total += ns;
	if (__builtin_expect(s->hist[gp_prof_bin(ns)] == UINT32_MAX, 0))
		hist_add(s, gp_prof_bin(ns), 1);
	else
		s->hist[gp_prof_bin(ns)]++;
}

void
gp_prof_stat_add_n(struct gp_prof_stat *s, uint64_t ns, uint64_t w)
{
	if (w == 0)
		return;
	if (s->n == 0 || ns < s->min)
		s->min = ns;
	if (ns > s->max)
		s->max = ns;
	s->n += w;
	s->total += ns * w;
	hist_add(s, gp_prof_bin(ns), w);
}

void
gp_prof_stat_merge(struct gp_prof_stat *d, const struct gp_prof_stat *s)
{
	if (s->n == 0)
		return;
	if (d->n == 0 || s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	d->n += s->n;
	d->total += s->total;
	for (int b = 0; b < GP_PROF_BINS; b++)
		hist_add(d, b, s->hist[b]);
}

double
gp_prof_stat_quantile(const struct gp_prof_stat *s, double q)
{
	uint64_t tot = 0, acc = 0;
	double target;

	for (int b = 0; b < GP_PROF_BINS; b++)
		tot += s->hist[b];
	if (tot == 0)
		return (0);
	target = q * (double)tot;
	for (int b = 0; b < GP_PROF_BINS; b++) {
		double lo, hi, v;

		if (s->hist[b] == 0)
			continue;
		if ((double)(acc + s->hist[b]) < target) {
			acc += s->hist[b];
			continue;
		}
		lo = gp_prof_bin_lo(b);
		hi = b + 1 < GP_PROF_BINS ? gp_prof_bin_lo(b + 1) : lo * 1.5;
		if (lo < (double)s->min)
			lo = (double)s->min;
		if (hi > (double)s->max)
			hi = (double)s->max;
		if (hi < lo)
			hi = lo;
		v = lo + (hi - lo) * ((target - (double)acc) /
		    (double)s->hist[b]);
		return (v);
	}
	return ((double)s->max);
}

struct gp_profile *
gp_profile_new(const struct gp_graph *g)
{
	struct gp_profile *p = gp_xcalloc(1, sizeof(*p));

	p->graph = gp_xstrdup(g->name);
	p->path = gp_xstrdup(g->path);
	p->flags = gp_xstrdup("");
	p->rewrites = gp_xstrdup("");
	p->n_fn = (int)g->n_fns;
	p->fn = gp_xcalloc(g->n_fns + 1, sizeof(*p->fn));
	for (size_t i = 0; i < g->n_fns; i++)
		p->fn[i].name = gp_xstrdup(g->fns[i].name);
	p->clock = *gp_clock_init();
	return (p);
}

static void
free_apply(struct gp_prof_apply *a)
{
	for (int k = 0; k < a->n_in; k++)
		free(a->in[k].var);
	for (int k = 0; k < a->n_out; k++)
		free(a->out[k].var);
	free(a->in);
	free(a->out);
	free(a->in_producer);
	free(a->name);
	free(a->op);
	free(a->cls);
	free(a->opname);
	free(a->node);
	free(a->extra);
}

void
gp_profile_free(struct gp_profile *p)
{
	if (p == NULL)
		return;
	for (int f = 0; f < p->n_fn; f++) {
		for (int i = 0; i < p->fn[f].n_apply; i++)
			free_apply(&p->fn[f].ap[i]);
		free(p->fn[f].ap);
		free(p->fn[f].ticks);
		gp_memprof_free(p->fn[f].mem);
		free(p->fn[f].name);
	}
	free(p->fn);
	for (int i = 0; i < p->n_rw; i++) {
		free(p->rw[i].name);
		free(p->rw[i].tags);
		free(p->rw[i].phase);
	}
	free(p->rw);
	for (int i = 0; i < p->n_phase; i++)
		free(p->phase[i].name);
	free(p->phase);
	free(p->graph);
	free(p->path);
	free(p->flags);
	free(p->rewrites);
	free(p);
}

static char *
dup_or_null(const char *s)
{
	return (s != NULL ? gp_xstrdup(s) : NULL);
}

struct gp_profile *
gp_profile_clone(const struct gp_profile *p)
{
	struct gp_profile *c = gp_xcalloc(1, sizeof(*c));

	*c = *p;
	c->graph = dup_or_null(p->graph);
	c->path = dup_or_null(p->path);
	c->flags = dup_or_null(p->flags);
	c->rewrites = dup_or_null(p->rewrites);
	c->rw = gp_xcalloc((size_t)p->n_rw + 1, sizeof(*c->rw));
	for (int i = 0; i < p->n_rw; i++) {
		c->rw[i] = p->rw[i];
		c->rw[i].name = dup_or_null(p->rw[i].name);
		c->rw[i].tags = dup_or_null(p->rw[i].tags);
		c->rw[i].phase = dup_or_null(p->rw[i].phase);
	}
	c->phase = gp_xcalloc((size_t)p->n_phase + 1, sizeof(*c->phase));
	for (int i = 0; i < p->n_phase; i++) {
		c->phase[i] = p->phase[i];
		c->phase[i].name = dup_or_null(p->phase[i].name);
	}
	c->tracer = NULL;
	c->tracer_ctx = NULL;
	c->fn = gp_xcalloc((size_t)p->n_fn + 1, sizeof(*c->fn));
	for (int f = 0; f < p->n_fn; f++) {
		const struct gp_prof_fn *s = &p->fn[f];
		struct gp_prof_fn *d = &c->fn[f];

		*d = *s;
		d->name = dup_or_null(s->name);
		d->ticks = NULL;
		d->mem = s->mem != NULL ? gp_memprof_clone(s->mem) : NULL;
		d->ap = gp_xcalloc((size_t)s->n_apply + 1, sizeof(*d->ap));
		for (int i = 0; i < s->n_apply; i++) {
			const struct gp_prof_apply *sa = &s->ap[i];
			struct gp_prof_apply *da = &d->ap[i];

			*da = *sa;
			da->name = dup_or_null(sa->name);
			da->op = dup_or_null(sa->op);
			da->cls = dup_or_null(sa->cls);
			da->opname = dup_or_null(sa->opname);
			da->node = dup_or_null(sa->node);
			da->extra = dup_or_null(sa->extra);
			da->in = gp_xcalloc((size_t)sa->n_in + 1,
			    sizeof(*da->in));
			da->out = gp_xcalloc((size_t)sa->n_out + 1,
			    sizeof(*da->out));
			da->in_producer = gp_xcalloc((size_t)sa->n_in + 1,
			    sizeof(int));
			memcpy(da->in, sa->in, sizeof(*da->in) *
			    (size_t)sa->n_in);
			memcpy(da->out, sa->out, sizeof(*da->out) *
			    (size_t)sa->n_out);
			memcpy(da->in_producer, sa->in_producer,
			    sizeof(int) * (size_t)sa->n_in);
			for (int k = 0; k < sa->n_in; k++)
				da->in[k].var = dup_or_null(sa->in[k].var);
			for (int k = 0; k < sa->n_out; k++)
				da->out[k].var = dup_or_null(sa->out[k].var);
		}
	}
	return (c);
}

void
gp_profile_copy_counters(struct gp_profile *dst, const struct gp_profile *src)
{
	for (int f = 0; f < src->n_fn && f < dst->n_fn; f++) {
		const struct gp_prof_fn *s = &src->fn[f];
		struct gp_prof_fn *d = &dst->fn[f];

		d->call = s->call;
		d->vm_ns = s->vm_ns;
		d->thunk_ns = s->thunk_ns;
		d->first_call_ns = s->first_call_ns;
		d->calls_seen = s->calls_seen;
		d->every = s->every;
		d->timed = s->timed;
		d->mem_peak_measured = s->mem_peak_measured;
		memcpy(d->recent, s->recent, sizeof(d->recent));
		for (int i = 0; i < s->n_apply && i < d->n_apply; i++) {
			d->ap[i].st = s->ap[i].st;
			d->ap[i].first_ns = s->ap[i].first_ns;
			/* strides are learnt on the first call */
			for (int k = 0; k < s->ap[i].n_in; k++) {
				memcpy(d->ap[i].in[k].strides,
				    s->ap[i].in[k].strides,
				    sizeof(s->ap[i].in[k].strides));
				d->ap[i].in[k].strides_known =
				    s->ap[i].in[k].strides_known;
			}
			for (int k = 0; k < s->ap[i].n_out; k++) {
				memcpy(d->ap[i].out[k].strides,
				    s->ap[i].out[k].strides,
				    sizeof(s->ap[i].out[k].strides));
				d->ap[i].out[k].strides_known =
				    s->ap[i].out[k].strides_known;
			}
		}
	}
}

void
gp_profile_reset(struct gp_profile *p)
{
	for (int f = 0; f < p->n_fn; f++) {
		struct gp_prof_fn *d = &p->fn[f];

		memset(&d->call, 0, sizeof(d->call));
		d->vm_ns = d->thunk_ns = 0;
		d->pending = d->timed = 0;
		d->mem_peak_measured = 0;
		memset(d->recent, 0, sizeof(d->recent));
		for (int i = 0; i < d->n_apply; i++)
			memset(&d->ap[i].st, 0, sizeof(d->ap[i].st));
		/* what was the first call stays known; calls_seen keeps
		 * counting so no later call is mistaken for a first one */
	}
}

uint64_t
gp_prof_calls(const struct gp_prof_fn *f)
{
	return (f->call.n);
}

/* Give every apply w more samples of its time in the last timed call;
 * returns the sum of those times (one call's thunk time). */
static uint64_t
fold_applies(struct gp_profile *p, struct gp_prof_fn *f, uint64_t w,
    bool first)
{
	uint64_t probe = (uint64_t)p->clock.probe_ns;
	uint64_t thunk = 0;

	for (int i = 0; i < f->n_apply; i++) {
		uint64_t ns = gp_clock_ticks_to_ns(f->ticks[i + 1] -
		    f->ticks[i]);

		ns = ns > probe ? ns - probe : 0;
		thunk += ns;
		if (first)
			f->ap[i].first_ns = ns;
		if (w == 1)
			gp_prof_stat_add(&f->ap[i].st, ns);
		else
			gp_prof_stat_add_n(&f->ap[i].st, ns, w);
	}
	return (thunk);
}

/* The sampling period after a timed call that took call_ns: every call
 * while the probes cost at most 2% of a call, else as few as keep them
 * there (at most 1 call in 1024). */
static uint32_t
period(const struct gp_profile *p, const struct gp_prof_fn *f,
    uint64_t call_ns)
{
	double probes = p->clock.probe_ns * (double)(f->n_apply + 1);
	double base = (double)call_ns - probes;
	double k;

	if (p->tracer != NULL)
		return (1);
	if (p->sample > 0)
		return (p->sample < 1 << 20 ? (uint32_t)p->sample : 1 << 20);
	if (base < 1)
		base = 1;
	k = ceil(probes / (0.02 * base));
	return (k < 1 ? 1 : k > 1024 ? 1024 : (uint32_t)k);
}

static void
count_call(struct gp_prof_fn *f, uint64_t call_ns, uint64_t vm_ns)
{
	gp_prof_stat_add(&f->call, call_ns);
	f->vm_ns += vm_ns;
	f->recent[f->call.n % GP_PROF_RECENT] = call_ns;
}

void
gp_prof_fold(struct gp_profile *p, int fi, uint64_t call_ns, uint64_t vm_ns)
{
	struct gp_prof_fn *f = &p->fn[fi];
	bool first = f->calls_seen == 0;
	bool count = !(first && p->ignore_first);
	uint64_t w = (count ? 1 : 0) + f->pending;
	uint64_t thunk;

	if (p->tracer != NULL)
		p->tracer(p->tracer_ctx, p, fi, f->ticks, call_ns);
	thunk = fold_applies(p, f, w, first);
	f->thunk_ns += thunk * w;
	f->pending = 0;
	if (first)
		f->first_call_ns = call_ns;
	if (count) {
		count_call(f, call_ns, vm_ns);
		f->timed++;
	}
	f->calls_seen++;
	f->every = period(p, f, call_ns);
	f->skip = f->every;
}

void
gp_prof_fold_untimed(struct gp_profile *p, int fi, uint64_t call_ns,
    uint64_t vm_ns)
{
	struct gp_prof_fn *f = &p->fn[fi];

	count_call(f, call_ns, vm_ns);
	f->pending++;
	f->calls_seen++;
}

void
gp_prof_flush(struct gp_profile *p)
{
	for (int fi = 0; fi < p->n_fn; fi++) {
		struct gp_prof_fn *f = &p->fn[fi];

		if (f->pending == 0 || f->ticks == NULL)
			continue;
		f->thunk_ns += fold_applies(p, f, f->pending, false) *
		    f->pending;
		f->pending = 0;
	}
}

void
gp_prof_signature(const struct gp_prof_apply *a, struct gp_buf *b)
{
	for (int k = 0; k < a->n_in; k++) {
		gp_buf_printf(b, "%s%s", k ? ", " : "",
		    gp_dtype_name(a->in[k].dtype));
		gp_shape_format(b, a->in[k].ndim, a->in[k].shape);
	}
}

/* Rollup: group rows by a key string. */
struct group {
	char		*key;
	struct gp_prof_row row;
	unsigned	 impls;	/* bit per gp_impl */
};

static void
type_string(unsigned impls, char *out, size_t n)
{
	out[0] = '\0';
	for (int i = 0; i < GP_IMPL__COUNT; i++) {
		if (!(impls & (1u << i)))
			continue;
		if (out[0] != '\0')
			strncat(out, " ", n - strlen(out) - 1);
		strncat(out, gp_impl_names[i], n - strlen(out) - 1);
	}
}

static int
cmp_rows(const void *a, const void *b)
{
	const struct gp_prof_row *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return (x->time_ns > y->time_ns ? -1 : 1);
	if (x->calls != y->calls)
		return (x->calls > y->calls ? -1 : 1);
	if (x->n_apply != y->n_apply)
		return (x->n_apply > y->n_apply ? -1 : 1);
	if (x->fn != y->fn)
		return (x->fn - y->fn);
	if (x->id != y->id)
		return (x->id - y->id);
	return (strcmp(x->name, y->name));
}

void
gp_prof_rollup(const struct gp_profile *p, int fn, enum gp_prof_group grp,
    struct gp_prof_table *out)
{
	struct group *gs = NULL;
	size_t ng = 0, cap = 0;
	struct gp_buf key = {0};
	/* an index from key to group: open addressing */
	size_t hcap = 64;
	int *hidx;
	size_t napply = 0;

	for (int f = 0; f < p->n_fn; f++)
		if (fn < 0 || f == fn)
			napply += (size_t)p->fn[f].n_apply;
	while (hcap < napply * 2 + 2)
		hcap *= 2;
	hidx = gp_xmalloc(sizeof(int) * hcap);
	memset(hidx, -1, sizeof(int) * hcap);
	memset(out, 0, sizeof(*out));
	for (int f = 0; f < p->n_fn; f++) {
		const struct gp_prof_fn *pf = &p->fn[f];

		if (fn >= 0 && f != fn)
			continue;
		for (int i = 0; i < pf->n_apply; i++) {
			const struct gp_prof_apply *a = &pf->ap[i];
			struct group *gr;
			size_t h;

			gp_buf_clear(&key);
			switch (grp) {
			case GP_GROUP_CLASS:
				gp_buf_puts(&key, a->cls);
				break;
			case GP_GROUP_OP:
				gp_buf_puts(&key, a->op);
				break;
			case GP_GROUP_OP_SIG:
				gp_buf_printf(&key, "%s <", a->op);
				gp_prof_signature(a, &key);
				gp_buf_puts(&key, ">");
				break;
			case GP_GROUP_APPLY:
				if (fn < 0 && p->n_fn > 1)
					gp_buf_printf(&key, "%s: ", pf->name);
				gp_buf_puts(&key, a->name);
				gp_buf_printf(&key, "\x1f%d.%d", f, i);
				break;
			}
			h = gp_hash_bytes(GP_HASH_INIT, key.s, key.len) &
			    (hcap - 1);
			while (hidx[h] >= 0 &&
			    strcmp(gs[hidx[h]].key, gp_buf_str(&key)) != 0)
				h = (h + 1) & (hcap - 1);
			if (hidx[h] < 0) {
				gp_grow(&gs, &cap, ng + 1, sizeof(*gs));
				gr = &gs[ng];
				memset(gr, 0, sizeof(*gr));
				gr->key = gp_xstrdup(gp_buf_str(&key));
				gr->row.fn = f;
				gr->row.id = i;
				hidx[h] = (int)ng++;
			} else
				gr = &gs[hidx[h]];
			gr->impls |= 1u << a->impl;
			gr->row.n_apply++;
			gr->row.calls += a->st.n;
			gr->row.time_ns += (double)a->st.total;
			gr->row.flops += a->flops * (double)a->st.n;
			gp_prof_stat_merge(&gr->row.st, &a->st);
			if (grp != GP_GROUP_APPLY && fn < 0 &&
			    gr->row.fn != f)
				gr->row.fn = -1;
		}
	}
	out->rows = gp_xcalloc(ng + 1, sizeof(*out->rows));
	out->n = ng;
	for (size_t i = 0; i < ng; i++)
		out->total_ns += gs[i].row.time_ns;
	for (size_t i = 0; i < ng; i++) {
		struct gp_prof_row *r = &out->rows[i];
		char *sep;

		*r = gs[i].row;
		sep = strchr(gs[i].key, '\x1f');
		if (sep != NULL)
			*sep = '\0';
		r->name = gs[i].key;
		type_string(gs[i].impls, r->type, sizeof(r->type));
		r->pct = out->total_ns > 0 ? 100.0 * r->time_ns /
		    out->total_ns : 0;
		r->per_call_ns = r->calls ? r->time_ns / (double)r->calls : 0;
		r->median_ns = gp_prof_stat_quantile(&r->st, 0.5);
		r->p95_ns = gp_prof_stat_quantile(&r->st, 0.95);
		/* flops/s = flops per execution x executions / time */
		r->gflops = r->time_ns > 0 ? r->flops / r->time_ns : 0;
		if (grp == GP_GROUP_APPLY)
			r->flops = p->fn[r->fn].ap[r->id].flops;
		else
			r->flops = r->calls ? r->flops / (double)r->calls : 0;
	}
	qsort(out->rows, out->n, sizeof(*out->rows), cmp_rows);
	free(gs);
	free(hidx);
	gp_buf_free(&key);
}

void
gp_prof_table_free(struct gp_prof_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->rows[i].name);
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}
