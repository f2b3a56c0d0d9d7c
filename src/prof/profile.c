/*
 * profile.c: counters, folding the VM's tick stamps, histograms and
 * quantiles, and the Class / Ops / Apply rollups (see profile.h).
 */
#include "config.h"

#include "prof/profile.h"
#include "prof/memdata.h"
#include "base/radix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
gp_prof_coarse_bin(uint64_t ns)
{
	int lg, b;

	if (ns < 8)
		return (0);
	lg = 63 - __builtin_clzll(ns);
	b = (lg - 3) * 2 + (int)((ns >> (lg - 1)) & 1);
	return (b < GP_PROF_COARSE ? b : GP_PROF_COARSE - 1);
}

double
gp_prof_coarse_lo(int b)
{
	/* (1 or 1.5) x 2^(b/2 + 3), in whole ns */
	if (b <= 0)
		return (0);
	return ((double)((b & 1 ? 3ull : 2ull) << (b / 2 + 2)));
}

/* Bins added beyond the one that made a window grow, so that times
 * creeping up or down do not move it at every sample. */
#define SLACK (GP_PROF_SUB / 2)

/* Make s's window hold bin b. */
static void
cover(struct gp_prof_stat *s, int b)
{
	int lo, hi;
	uint32_t *nb;

	if (s->nb == 0) {
		lo = b - SLACK / 2;
		hi = b + SLACK / 2 + 1;
	} else {
		lo = b < s->lo ? b - SLACK : s->lo;
		hi = b >= s->lo + s->nb ? b + SLACK + 1 : s->lo + s->nb;
	}
	if (lo < 0)
		lo = 0;
	if (hi > GP_PROF_NBINS)
		hi = GP_PROF_NBINS;
	nb = gp_xcalloc((size_t)(hi - lo), sizeof(*nb));
	if (s->nb > 0)
		memcpy(nb + (s->lo - lo), s->bin, sizeof(*nb) * (size_t)s->nb);
	free(s->bin);
	s->bin = nb;
	s->lo = lo;
	s->nb = hi - lo;
}

/* Add w to bin b.  The bins hold a distribution's shape, not its count
 * (n does): a bin about to wrap halves them all, which keeps the shape and
 * the quantiles. */
static void
hist_add(struct gp_prof_stat *s, int b, uint64_t w)
{
	uint32_t *c;

	if ((uint32_t)(b - s->lo) >= (uint32_t)s->nb)
		cover(s, b);
	c = &s->bin[b - s->lo];
	while (w > (uint64_t)(UINT32_MAX - *c)) {
		s->hn = 0;
		for (int i = 0; i < s->nb; i++) {
			s->bin[i] = (s->bin[i] + 1) / 2;
			s->hn += s->bin[i];
		}
		w = (w + 1) / 2;
	}
	*c += (uint32_t)w;
	s->hn += w;
}

void
gp_prof_stat_add(struct gp_prof_stat *s, uint64_t ns)
{
	int b = gp_prof_bin(ns);
	uint32_t k = (uint32_t)(b - s->lo);

	if (s->n == 0 || ns < s->min)
		s->min = ns;
	if (ns > s->max)
		s->max = ns;
	s->n++;
	s->total += ns;
	if (__builtin_expect(k < (uint32_t)s->nb && s->bin[k] != UINT32_MAX,
	    1)) {
		s->bin[k]++;
		s->hn++;
	} else
		hist_add(s, b, 1);
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
gp_prof_stat_put(struct gp_prof_stat *s, int b, uint64_t w)
{
	if (w > 0 && b >= 0 && b < GP_PROF_NBINS)
		hist_add(s, b, w);
}

void
gp_prof_stat_put_coarse(struct gp_prof_stat *s, int b, uint64_t w)
{
	uint64_t lo = (uint64_t)gp_prof_coarse_lo(b), hi = UINT64_MAX;
	int b0, b1;

	if (b + 1 < GP_PROF_COARSE)
		hi = (uint64_t)gp_prof_coarse_lo(b + 1) - 1;
	/* the bin's times that can have been samples (a bin no sample can
	 * be in, in a faulty file, is kept at the nearer end) */
	lo = lo < s->min ? s->min : lo > s->max ? s->max : lo;
	hi = hi > s->max ? s->max : hi < lo ? lo : hi;
	b0 = gp_prof_bin(lo);
	b1 = gp_prof_bin(hi);
	/* bin b0 + j gets its share, (j+1) w / k - j w / k, of w (w is at
	 * most 2^32, k at most GP_PROF_NBINS: no overflow) */
	for (int j = 0, k = b1 - b0 + 1; j < k; j++)
		gp_prof_stat_put(s, b0 + j, w * (uint64_t)(j + 1) /
		    (uint64_t)k - w * (uint64_t)j / (uint64_t)k);
}

void
gp_prof_stat_merge(struct gp_prof_stat *d, const struct gp_prof_stat *s)
{
	int b0, b1;

	if (s->n == 0)
		return;
	if (d->n == 0 || s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	d->n += s->n;
	d->total += s->total;
	/* s's samples are all in the bins of [min, max] */
	b0 = s->lo;
	b1 = s->lo + s->nb - 1;
	if (b0 < gp_prof_bin(s->min))
		b0 = gp_prof_bin(s->min);
	if (b1 > gp_prof_bin(s->max))
		b1 = gp_prof_bin(s->max);
	if (b0 > b1)
		return;
	if ((uint32_t)(b0 - d->lo) >= (uint32_t)d->nb)
		cover(d, b0);
	if ((uint32_t)(b1 - d->lo) >= (uint32_t)d->nb)
		cover(d, b1);
	/* no bin can wrap while the counts fit (bins sum to hn) */
	if (d->hn + s->hn <= UINT32_MAX) {
		uint32_t *o = d->bin + (b0 - d->lo);
		const uint32_t *in = s->bin + (b0 - s->lo);
		int last = b1 - b0;
		uint64_t below = s->hn - in[last], acc = 0;

		/* the bins from min up, until they hold all the samples
		 * but the last bin's: those between are empty (a few
		 * executions spread over hundreds of bins, the first call
		 * slow: most of them) */
		for (int b = 0; b < last && acc < below; b++) {
			o[b] += in[b];
			acc += in[b];
		}
		o[last] += in[last];
		d->hn += s->hn;
	} else
		for (int b = b0; b <= b1; b++)
			if (s->bin[b - s->lo] != 0)
				hist_add(d, b, s->bin[b - s->lo]);
}

void
gp_prof_stat_copy(struct gp_prof_stat *d, const struct gp_prof_stat *s)
{
	int b0 = 0, nb = 0;

	if (s->n > 0 && s->nb > 0) {
		int b1 = s->lo + s->nb - 1;

		/* the bins of [min, max] only: what a copy needs */
		b0 = s->lo;
		if (b0 < gp_prof_bin(s->min))
			b0 = gp_prof_bin(s->min);
		if (b1 > gp_prof_bin(s->max))
			b1 = gp_prof_bin(s->max);
		nb = b1 >= b0 ? b1 - b0 + 1 : 0;
	}
	if (nb != d->nb) {
		free(d->bin);
		d->bin = nb > 0 ? gp_xmalloc(sizeof(*d->bin) * (size_t)nb) :
		    NULL;
	}
	if (nb > 0)
		memcpy(d->bin, s->bin + (b0 - s->lo),
		    sizeof(*d->bin) * (size_t)nb);
	d->lo = b0;
	d->nb = nb;
	d->n = s->n;
	d->total = s->total;
	d->min = s->min;
	d->max = s->max;
	d->hn = s->hn;
}

void
gp_prof_stat_clear(struct gp_prof_stat *s)
{
	s->n = s->total = s->min = s->max = s->hn = 0;
	if (s->nb > 0)
		memset(s->bin, 0, sizeof(*s->bin) * (size_t)s->nb);
}

void
gp_prof_stat_free(struct gp_prof_stat *s)
{
	free(s->bin);
	memset(s, 0, sizeof(*s));
}

bool
gp_prof_stat_equal(const struct gp_prof_stat *a, const struct gp_prof_stat *b)
{
	int lo, hi;

	if (a->n != b->n || a->total != b->total || a->min != b->min ||
	    a->max != b->max || a->hn != b->hn)
		return (false);
	lo = a->lo < b->lo ? a->lo : b->lo;
	hi = a->lo + a->nb > b->lo + b->nb ? a->lo + a->nb : b->lo + b->nb;
	for (int i = lo; i < hi; i++)
		if (gp_prof_stat_count(a, i) != gp_prof_stat_count(b, i))
			return (false);
	return (true);
}

void
gp_prof_stat_coarse(const struct gp_prof_stat *s, uint64_t *out)
{
	memset(out, 0, sizeof(*out) * GP_PROF_COARSE);
	/* a bin lies in one coarse bin: its lower edge tells which */
	for (int i = 0; i < s->nb; i++)
		out[gp_prof_coarse_bin(gp_prof_bin_lo(s->lo + i))] +=
		    s->bin[i];
}

/* The rank, from 1, of the sample at quantile q of tot: ceil(q tot); a
 * product a rounding above a whole number counts as that number. */
static uint64_t
rank_of(double q, uint64_t tot)
{
	double t = q * (double)tot, r;

	r = ceil(t - t * 1e-12);
	if (!(r >= 1))
		return (1);
	return (r >= (double)tot ? tot : (uint64_t)r);
}

void
gp_prof_stat_quantiles(const struct gp_prof_stat *s, const double *qs,
    double *out, int n)
{
	uint64_t tot = s->hn, acc = 0, rk;
	int q = 0, b0, b1;

	if (s->n == 0 || tot == 0 || s->nb == 0) {
		for (q = 0; q < n; q++)
			out[q] = 0;
		return;
	}
	/* the samples are all in the bins of [min, max] */
	b0 = gp_prof_bin(s->min);
	b1 = gp_prof_bin(s->max);
	if (b0 < s->lo)
		b0 = s->lo;
	if (b1 > s->lo + s->nb - 1)
		b1 = s->lo + s->nb - 1;
	rk = n > 0 ? rank_of(qs[0], tot) : 0;
	/* the quantiles of the last sample are max: found without reading
	 * the bins up to it (q stops the loop) */
	for (int b = b0; b <= b1 && q < n && !(rk == tot && tot > 1); b++) {
		const uint32_t *in = s->bin + (b - s->lo);
		uint32_t c = *in;

		/* eight bins at a time while the next rank is not in them
		 * (most bins are empty: a sum the compiler vectorizes) */
		while (b + 8 <= b1 + 1) {
			uint64_t sum = 0;

			for (int j = 0; j < 8; j++)
				sum += in[j];
			if (acc + sum >= rk)
				break;
			acc += sum;
			b += 8;
			in += 8;
		}
		if (b > b1)
			break;
		if ((c = *in) == 0)
			continue;
		acc += c;
		/* every quantile whose sample is in bin b: the middle of the
		 * bin's times within [min, max]; the first and the last
		 * sample are min and max */
		while (q < n && rk <= acc) {
			double lo = (double)gp_prof_bin_lo(b), hi;

			hi = lo + (double)(gp_prof_bin_width(b) - 1);
			if (lo < (double)s->min)
				lo = (double)s->min;
			if (hi > (double)s->max)
				hi = (double)s->max;
			out[q] = rk == 1 ? (double)s->min : rk == tot ?
			    (double)s->max : hi < lo ? lo : (lo + hi) / 2;
			if (++q < n)
				rk = rank_of(qs[q], tot);
		}
	}
	while (q < n)
		out[q++] = (double)s->max;
}

double
gp_prof_stat_quantile(const struct gp_prof_stat *s, double q)
{
	double v;

	gp_prof_stat_quantiles(s, &q, &v, 1);
	return (v);
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
	free(a->src);
	free(a->name);
	free(a->op);
	free(a->cls);
	free(a->opname);
	free(a->node);
	free(a->extra);
	gp_prof_stat_free(&a->st);
}

static char *
dup_or_null(const char *s)
{
	return (s != NULL ? gp_xstrdup(s) : NULL);
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
		for (int k = 0; k < GP_PROF_DRAWN__COUNT; k++)
			gp_prof_call_free(&p->fn[f].drawn[k]);
		gp_prof_stat_free(&p->fn[f].call);
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
	for (int i = 0; i < p->n_src_names; i++)
		free(p->src_names[i]);
	free(p->src_names);
	free(p->folded);
	free(p->graph);
	free(p->path);
	free(p->flags);
	free(p->rewrites);
	free(p);
}

void
gp_prof_src_copy(struct gp_profile *dst, const struct gp_profile *src)
{
	for (int i = 0; i < dst->n_src_names; i++)
		free(dst->src_names[i]);
	free(dst->src_names);
	free(dst->folded);
	dst->n_src_names = src->n_src_names;
	dst->src_names = gp_xcalloc((size_t)src->n_src_names + 1,
	    sizeof(char *));
	for (int i = 0; i < src->n_src_names; i++)
		dst->src_names[i] = dup_or_null(src->src_names[i]);
	dst->n_folded = src->n_folded;
	dst->folded = gp_xmalloc(sizeof(int) * ((size_t)src->n_folded + 1));
	if (src->n_folded > 0)
		memcpy(dst->folded, src->folded,
		    sizeof(int) * (size_t)src->n_folded);
}

void
gp_prof_src_name(const struct gp_profile *p, int idx, struct gp_buf *b)
{
	if (idx >= 0 && idx < p->n_src_names && p->src_names[idx] != NULL)
		gp_buf_puts(b, p->src_names[idx]);
	else
		gp_buf_printf(b, "#%d", idx);
}

void
gp_prof_src_list(const struct gp_profile *p, const struct gp_prof_apply *a,
    int max, struct gp_buf *b)
{
	int shown = max > 0 && a->n_src > max ? max : a->n_src;

	for (int i = 0; i < shown; i++) {
		if (i > 0)
			gp_buf_puts(b, ", ");
		gp_prof_src_name(p, a->src[i], b);
	}
	if (shown < a->n_src)
		gp_buf_printf(b, " +%d", a->n_src - shown);
}

void
gp_prof_src_short(const struct gp_profile *p, const struct gp_prof_apply *a,
    char *buf, size_t n)
{
	struct gp_buf b = {0};

	if (n == 0)
		return;
	buf[0] = '\0';
	if (a->n_src == 0)
		return;
	gp_prof_src_list(p, a, 1, &b);
	snprintf(buf, n, "%s", gp_buf_str(&b));
	gp_buf_free(&b);
}

void
gp_profile_take_rewrites(struct gp_profile *p, struct gp_rewrite_stats *st)
{
	p->rw = st->rw;
	p->n_rw = st->n_rw;
	p->phase = st->phase;
	p->n_phase = st->n_phase;
	free(p->rewrites);
	p->rewrites = st->active;
	p->link_ns += st->jit_ns;
	*st = (struct gp_rewrite_stats){0};
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
	c->src_names = NULL;
	c->n_src_names = 0;
	c->folded = NULL;
	gp_prof_src_copy(c, p);
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
		for (int k = 0; k < GP_PROF_DRAWN__COUNT; k++) {
			memset(&d->drawn[k], 0, sizeof(d->drawn[k]));
			gp_prof_call_copy(&d->drawn[k], &s->drawn[k]);
		}
		memset(&d->call, 0, sizeof(d->call));
		gp_prof_stat_copy(&d->call, &s->call);
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
			memset(&da->st, 0, sizeof(da->st));
			gp_prof_stat_copy(&da->st, &sa->st);
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
			da->src = gp_xmalloc(sizeof(int) *
			    ((size_t)sa->n_src + 1));
			if (sa->n_src > 0)
				memcpy(da->src, sa->src,
				    sizeof(int) * (size_t)sa->n_src);
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

		gp_prof_stat_copy(&d->call, &s->call);
		d->vm_ns = s->vm_ns;
		d->thunk_ns = s->thunk_ns;
		d->first_call_ns = s->first_call_ns;
		d->calls_seen = s->calls_seen;
		d->every = s->every;
		d->timed = s->timed;
		d->mem_peak_measured = s->mem_peak_measured;
		memcpy(d->recent, s->recent, sizeof(d->recent));
		for (int k = 0; k < GP_PROF_DRAWN__COUNT; k++)
			if (d->drawn[k].seq != s->drawn[k].seq ||
			    d->drawn[k].n_apply != s->drawn[k].n_apply)
				gp_prof_call_copy(&d->drawn[k], &s->drawn[k]);
		if (d->ap_gen == s->ap_gen)
			continue;
		d->ap_gen = s->ap_gen;
		for (int i = 0; i < s->n_apply && i < d->n_apply; i++) {
			gp_prof_stat_copy(&d->ap[i].st, &s->ap[i].st);
			d->ap[i].first_ns = s->ap[i].first_ns;
			/* strides are learnt on the first call: copied once */
			if (d->ap[i].n_out > 0 && d->ap[i].out[0].strides_known)
				continue;
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
gp_prof_call_fit(struct gp_prof_call *c, int n)
{
	if (c->n_apply != n || c->start == NULL) {
		free(c->start);
		free(c->ns);
		c->start = gp_xcalloc((size_t)n + 1, sizeof(uint64_t));
		c->ns = gp_xcalloc((size_t)n + 1, sizeof(uint64_t));
		c->n_apply = n;
	}
}

void
gp_prof_call_copy(struct gp_prof_call *dst, const struct gp_prof_call *src)
{
	if (src->seq == 0) {
		gp_prof_call_free(dst);
		return;
	}
	gp_prof_call_fit(dst, src->n_apply);
	dst->seq = src->seq;
	dst->call_ns = src->call_ns;
	dst->span_ns = src->span_ns;
	if (src->n_apply > 0) {
		memcpy(dst->start, src->start, sizeof(uint64_t) *
		    (size_t)src->n_apply);
		memcpy(dst->ns, src->ns, sizeof(uint64_t) *
		    (size_t)src->n_apply);
	}
}

void
gp_prof_call_free(struct gp_prof_call *c)
{
	if (c == NULL)
		return;
	free(c->start);
	free(c->ns);
	memset(c, 0, sizeof(*c));
}

void
gp_profile_reset(struct gp_profile *p)
{
	for (int f = 0; f < p->n_fn; f++) {
		struct gp_prof_fn *d = &p->fn[f];

		gp_prof_stat_clear(&d->call);
		d->vm_ns = d->thunk_ns = 0;
		d->pending = d->timed = 0;
		d->mem_peak_measured = 0;
		memset(d->recent, 0, sizeof(d->recent));
		for (int i = 0; i < d->n_apply; i++)
			gp_prof_stat_free(&d->ap[i].st);
		d->ap_gen++;
		/* what was the first call stays known; calls_seen keeps
		 * counting so no later call is mistaken for a first one */
	}
}

uint64_t
gp_prof_calls(const struct gp_prof_fn *f)
{
	return (f->call.n);
}

int
gp_prof_recent(const struct gp_prof_fn *f, uint64_t *v)
{
	uint64_t n = f->call.n;
	int m = n < GP_PROF_RECENT ? (int)n : GP_PROF_RECENT;

	for (int i = 0; i < m; i++)
		v[i] = f->recent[(n - (uint64_t)m + 1 + (uint64_t)i) %
		    GP_PROF_RECENT];
	return (m);
}

void
gp_prof_recent_set(struct gp_prof_fn *f, const uint64_t *v, int m)
{
	uint64_t n = f->call.n;

	memset(f->recent, 0, sizeof(f->recent));
	for (int i = 0; i < m; i++)
		f->recent[(n - (uint64_t)m + 1 + (uint64_t)i) %
		    GP_PROF_RECENT] = v[i];
}

/* Give every apply w more samples of its time in the last timed call;
 * returns the sum of those times (one call's thunk time). */
static uint64_t
fold_applies(struct gp_profile *p, struct gp_prof_fn *f, uint64_t w,
    bool first)
{
	uint64_t thunk = 0;

	f->ap_gen++;
	for (int i = 0; i < f->n_apply; i++) {
		uint64_t ns = gp_prof_apply_ns(p, f->ticks, i);

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

	if (p->tracer != NULL && !p->tracer_sampled)
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

/* Rollup: rows grouped by a key string (the row's name; apply rows are
 * one per apply and need no key).  A table keeps which row each apply
 * went to, so gp_prof_rollup_refresh() can recount the rows in place. */

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

static int
cmp_row_ptrs(const void *a, const void *b)
{
	return (cmp_rows(*(const struct gp_prof_row *const *)a,
	    *(const struct gp_prof_row *const *)b));
}

/* The rows of t in cmp_rows order into perm.  For apply rows, ckey and
 * tkey hold each member's calls and time bits, in schedule order. */
static void
sort_rows(const struct gp_prof_table *t, uint32_t *perm,
    const uint64_t *ckey, const uint64_t *tkey)
{
	size_t n = t->n;

	if (n == 0)
		return;
	if (t->grp == GP_GROUP_APPLY) {
		/* one row per apply: (fn, id) tell every two rows apart, so
		 * the order is by time, then calls, both descending, from
		 * the schedule order; n_apply is 1 */
		uint64_t *k = gp_xmalloc(sizeof(*k) * (3 * n + 1));
		uint32_t *idx = gp_xmalloc(sizeof(*idx) * (n + 1));

		for (size_t m = 0; m < n; m++) {
			idx[m] = (uint32_t)m;
			k[m] = ~ckey[m];
		}
		gp_radix_sort(k, idx, n, k + n);
		for (size_t m = 0; m < n; m++)
			k[m] = ~tkey[m];
		gp_radix_sort(k, idx, n, k + n);
		for (size_t j = 0; j < n; j++)
			perm[j] = t->member[idx[j]];
		free(k);
		free(idx);
	} else {
		const struct gp_prof_row **pp = gp_xmalloc(sizeof(*pp) * n);

		for (size_t j = 0; j < n; j++)
			pp[j] = &t->rows[j];
		qsort(pp, n, sizeof(*pp), cmp_row_ptrs);
		for (size_t j = 0; j < n; j++)
			perm[j] = (uint32_t)(pp[j] - t->rows);
		free(pp);
	}
}

/* The figures of row r derived from its counts and st, its statistics
 * (flops: the sum of flops x executions; apply rows get their apply's
 * flops per execution). */
static void
finish_row(struct gp_prof_row *r, enum gp_prof_group grp, double ap_flops,
    const struct gp_prof_stat *st)
{
	r->per_call_ns = r->calls ? r->time_ns / (double)r->calls : 0;
	{
		static const double qs[2] = {0.5, 0.95};
		double v[2];

		gp_prof_stat_quantiles(st, qs, v, 2);
		r->median_ns = v[0];
		r->p95_ns = v[1];
	}
	/* flops/s = flops per execution x executions / time */
	r->gflops = r->time_ns > 0 ? r->flops / r->time_ns : 0;
	if (grp == GP_GROUP_APPLY)
		r->flops = ap_flops;
	else
		r->flops = r->calls ? r->flops / (double)r->calls : 0;
}

/* How many applies ahead a loop over a function's applies asks for the
 * memory it will read (their bins, their names). */
#define PREFETCH_AHEAD 16

/* Count every apply into its row (the rows' counters start at zero), the
 * figures derived from the counts, and the rows' order into perm.  An
 * apply row is finished as its apply is read (in schedule order: the
 * profile is read in place, the rows are written in any order). */
static void
count_rows(const struct gp_profile *p, struct gp_prof_table *t,
    uint32_t *perm)
{
	bool ap = t->grp == GP_GROUP_APPLY;
	uint64_t *ckey = NULL, *tkey = NULL;
	size_t k = 0;

	if (ap) {
		ckey = gp_xmalloc(sizeof(*ckey) * (t->n_member + 1));
		tkey = gp_xmalloc(sizeof(*tkey) * (t->n_member + 1));
	}
	t->total_ns = 0;
	for (int f = 0; f < p->n_fn; f++) {
		const struct gp_prof_fn *pf = &p->fn[f];

		if (t->fn >= 0 && f != t->fn)
			continue;
		for (int i = 0; i < pf->n_apply; i++) {
			const struct gp_prof_apply *a = &pf->ap[i];
			struct gp_prof_row *r = &t->rows[t->member[k]];

			/* each apply's bins are a heap block of their own:
			 * ask for those of an apply ahead (a rollup of many
			 * applies waits on memory, not on the adding) */
			if (i + PREFETCH_AHEAD < pf->n_apply)
				gp_prof_stat_prefetch(&pf->ap[i + PREFETCH_AHEAD].st);
			/* times are whole ns: their sum is exact in any
			 * order, the same as the rows' times summed */
			t->total_ns += (double)a->st.total;
			if (!ap) {
				r->calls += a->st.n;
				r->time_ns += (double)a->st.total;
				r->flops += a->flops * (double)a->st.n;
				gp_prof_stat_merge(&r->st, &a->st);
				k++;
				continue;
			}
			/* one apply: what adding it to zeros gives */
			r->calls = a->st.n;
			r->time_ns = (double)a->st.total;
			r->flops = a->flops * (double)a->st.n;
			if (!t->live)
				gp_prof_stat_copy(&r->st, &a->st);
			finish_row(r, t->grp, a->flops, &a->st);
			ckey[k] = r->calls;
			/* a time is >= 0: its bits sort like it */
			memcpy(&tkey[k], &r->time_ns, sizeof(tkey[k]));
			k++;
		}
	}
	for (size_t i = 0; i < t->n; i++) {
		struct gp_prof_row *r = &t->rows[i];

		r->pct = t->total_ns > 0 ? 100.0 * r->time_ns / t->total_ns :
		    0;
		if (!ap)
			finish_row(r, t->grp, 0, &r->st);
	}
	sort_rows(t, perm, ckey, tkey);
	free(ckey);
	free(tkey);
}

static size_t
applies_of(const struct gp_profile *p, int fn)
{
	size_t n = 0;

	for (int f = 0; f < p->n_fn; f++)
		if (fn < 0 || f == fn)
			n += (size_t)p->fn[f].n_apply;
	return (n);
}

/* The rows in the order they are first met, order their order by time. */
static void
build(const struct gp_profile *p, int fn, enum gp_prof_group grp,
    struct gp_prof_table *out)
{
	struct gp_prof_row *rows = NULL;
	unsigned *impls = NULL;
	size_t ng = 0, cap = 0, icap = 0, k = 0;
	struct gp_buf key = {0};
	/* an index from key to row: open addressing */
	size_t hcap = 64;
	int *hidx = NULL;
	size_t napply = applies_of(p, fn);
	bool live = out->live;

	memset(out, 0, sizeof(*out));
	out->live = live;
	out->fn = fn;
	out->grp = grp;
	out->generation = p->generation;
	out->n_fn = p->n_fn;
	out->n_member = napply;
	out->member = gp_xmalloc(sizeof(*out->member) * (napply + 1));
	if (grp != GP_GROUP_APPLY) {
		while (hcap < napply * 2 + 2)
			hcap *= 2;
		hidx = gp_xmalloc(sizeof(int) * hcap);
		memset(hidx, -1, sizeof(int) * hcap);
	}
	for (int f = 0; f < p->n_fn; f++) {
		const struct gp_prof_fn *pf = &p->fn[f];

		if (fn >= 0 && f != fn)
			continue;
		for (int i = 0; i < pf->n_apply; i++) {
			const struct gp_prof_apply *a = &pf->ap[i];
			const char *ks;
			size_t g = ng, h = 0;

			/* the name of an apply ahead (a heap block each) */
			if (i + PREFETCH_AHEAD < pf->n_apply)
				__builtin_prefetch(grp == GP_GROUP_CLASS ?
				    pf->ap[i + PREFETCH_AHEAD].cls :
				    pf->ap[i + PREFETCH_AHEAD].op);

			gp_buf_clear(&key);
			switch (grp) {
			case GP_GROUP_CLASS:	/* the apply's strings: no copy */
			case GP_GROUP_OP:
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
				break;
			}
			ks = grp == GP_GROUP_CLASS ? a->cls :
			    grp == GP_GROUP_OP ? a->op : gp_buf_str(&key);
			if (ks == NULL)
				ks = "";
			if (grp != GP_GROUP_APPLY) {
				h = gp_hash_bytes(GP_HASH_INIT, ks, strlen(ks)) &
				    (hcap - 1);
				while (hidx[h] >= 0 &&
				    strcmp(rows[hidx[h]].name, ks) != 0)
					h = (h + 1) & (hcap - 1);
				if (hidx[h] >= 0)
					g = (size_t)hidx[h];
			}
			if (g == ng) {
				gp_grow(&rows, &cap, ng + 1, sizeof(*rows));
				gp_grow(&impls, &icap, ng + 1,
				    sizeof(*impls));
				memset(&rows[g], 0, sizeof(rows[g]));
				impls[g] = 0;
				rows[g].name = gp_xstrdup(ks);
				rows[g].fn = f;
				rows[g].id = i;
				if (grp == GP_GROUP_APPLY)
					gp_prof_src_short(p, a, rows[g].from,
					    sizeof(rows[g].from));
				if (hidx != NULL)
					hidx[h] = (int)ng;
				ng++;
			}
			out->member[k++] = (uint32_t)g;
			impls[g] |= 1u << a->impl;
			rows[g].n_apply++;
			if (grp != GP_GROUP_APPLY && fn < 0 &&
			    rows[g].fn != f)
				rows[g].fn = -1;
		}
	}
	out->rows = rows != NULL ? rows : gp_xcalloc(1, sizeof(*rows));
	out->n = ng;
	for (size_t i = 0; i < ng; i++)
		type_string(impls[i], rows[i].type, sizeof(rows[i].type));
	out->order = gp_xmalloc(sizeof(*out->order) * (ng + 1));
	count_rows(p, out, out->order);
	free(impls);
	free(hidx);
	gp_buf_free(&key);
}

/* The rows of out put in out->order (by time), the members following. */
static void
put_in_order(struct gp_prof_table *out)
{
	struct gp_prof_row *sorted;
	uint32_t *inv;

	/* the rows in order, and the members following them */
	sorted = gp_xmalloc(sizeof(*sorted) * (out->n + 1));
	inv = gp_xmalloc(sizeof(*inv) * (out->n + 1));
	for (size_t j = 0; j < out->n; j++) {
		sorted[j] = out->rows[out->order[j]];
		inv[out->order[j]] = (uint32_t)j;
		out->order[j] = (uint32_t)j;
	}
	for (size_t m = 0; m < out->n_member; m++)
		out->member[m] = inv[out->member[m]];
	free(out->rows);
	out->rows = sorted;
	free(inv);
}

void
gp_prof_rollup(const struct gp_profile *p, int fn, enum gp_prof_group grp,
    struct gp_prof_table *out)
{
	out->live = false;
	build(p, fn, grp, out);
	put_in_order(out);
}

void
gp_prof_rollup_classes(const struct gp_profile *p,
    const struct gp_prof_table *ops, struct gp_prof_table *out)
{
	const char **ocls = gp_xcalloc(ops->n + 1, sizeof(*ocls));
	int *ocrow = gp_xmalloc(sizeof(int) * (ops->n + 1));
	struct gp_prof_row *rows = NULL;
	unsigned *impls = NULL;
	size_t ng = 0, cap = 0, icap = 0, k = 0;

	memset(out, 0, sizeof(*out));
	out->fn = ops->fn;
	out->grp = GP_GROUP_CLASS;
	out->generation = p->generation;
	out->n_fn = p->n_fn;
	out->n_member = ops->n_member;
	out->member = gp_xmalloc(sizeof(*out->member) * (ops->n_member + 1));
	for (size_t j = 0; j < ops->n; j++)
		ocrow[j] = -1;
	/* the class rows in the order their applies are first met, as
	 * build() makes them; each op row's class is its applies' */
	for (int f = 0; f < p->n_fn && k <= ops->n_member; f++) {
		const struct gp_prof_fn *pf = &p->fn[f];

		if (ops->fn >= 0 && f != ops->fn)
			continue;
		for (int i = 0; i < pf->n_apply && k < ops->n_member; i++) {
			const struct gp_prof_apply *a = &pf->ap[i];
			uint32_t j = ops->member[k];
			const char *cls = a->cls != NULL ? a->cls : "";
			size_t c;

			/* the class of an apply ahead (a heap block each) */
			if (i + PREFETCH_AHEAD < pf->n_apply)
				__builtin_prefetch(
				    pf->ap[i + PREFETCH_AHEAD].cls);

			if (ocls[j] == NULL) {
				for (c = 0; c < ng; c++)
					if (strcmp(rows[c].name, cls) == 0)
						break;
				if (c == ng) {
					gp_grow(&rows, &cap, ng + 1,
					    sizeof(*rows));
					gp_grow(&impls, &icap, ng + 1,
					    sizeof(*impls));
					memset(&rows[c], 0, sizeof(rows[c]));
					impls[c] = 0;
					rows[c].name = gp_xstrdup(cls);
					rows[c].fn = f;
					rows[c].id = i;
					ng++;
				}
				ocls[j] = cls;
				ocrow[j] = (int)c;
			} else if (ocls[j] != cls && strcmp(ocls[j], cls) != 0)
				break;	/* an op of two classes */
			c = (size_t)ocrow[j];
			out->member[k++] = (uint32_t)c;
			impls[c] |= 1u << a->impl;
			rows[c].n_apply++;
			if (ops->fn < 0 && rows[c].fn != f)
				rows[c].fn = -1;
		}
	}
	if (k != ops->n_member) {
		/* not every op's applies share a class: from the applies */
		for (size_t c = 0; c < ng; c++)
			free(rows[c].name);
		free(rows);
		free(impls);
		free(ocls);
		free(ocrow);
		gp_prof_table_free(out);
		gp_prof_rollup(p, ops->fn, GP_GROUP_CLASS, out);
		return;
	}
	/* each class row: its op rows' counters and executions merged
	 * (times are whole ns: their sums are exact in any order) */
	for (size_t j = 0; j < ops->n; j++) {
		const struct gp_prof_row *o = &ops->rows[j];
		struct gp_prof_row *r;

		if (ocrow[j] < 0)
			continue;
		r = &rows[ocrow[j]];
		r->calls += o->calls;
		r->time_ns += o->time_ns;
		r->flops += o->flops * (double)o->calls;
		gp_prof_stat_merge(&r->st, &o->st);
	}
	out->rows = rows != NULL ? rows : gp_xcalloc(1, sizeof(*rows));
	out->n = ng;
	out->total_ns = ops->total_ns;
	for (size_t c = 0; c < ng; c++) {
		struct gp_prof_row *r = &out->rows[c];

		type_string(impls[c], r->type, sizeof(r->type));
		r->pct = out->total_ns > 0 ? 100.0 * r->time_ns /
		    out->total_ns : 0;
		finish_row(r, GP_GROUP_CLASS, 0, &r->st);
	}
	out->order = gp_xmalloc(sizeof(*out->order) * (ng + 1));
	sort_rows(out, out->order, NULL, NULL);
	put_in_order(out);
	free(impls);
	free(ocls);
	free(ocrow);
}

void
gp_prof_rollup_live(const struct gp_profile *p, int fn,
    enum gp_prof_group grp, struct gp_prof_table *out)
{
	out->live = true;
	build(p, fn, grp, out);
}

int
gp_prof_rollup_refresh(const struct gp_profile *p, struct gp_prof_table *t)
{
	if (t->member == NULL || p->generation != t->generation ||
	    p->n_fn != t->n_fn || (t->fn >= 0 && t->fn >= p->n_fn) ||
	    applies_of(p, t->fn) != t->n_member)
		return (-1);
	for (size_t i = 0; t->grp != GP_GROUP_APPLY && i < t->n; i++) {
		struct gp_prof_row *r = &t->rows[i];

		r->calls = 0;
		r->time_ns = 0;
		r->flops = 0;
		gp_prof_stat_clear(&r->st);
	}
	count_rows(p, t, t->order);
	return (0);
}

void
gp_prof_table_free(struct gp_prof_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i].name);
		gp_prof_stat_free(&t->rows[i].st);
	}
	free(t->rows);
	free(t->member);
	free(t->order);
	t->rows = NULL;
	t->member = NULL;
	t->order = NULL;
	t->n = 0;
	t->n_member = 0;
}

int
gp_prof_slowest_prep(const struct gp_profile *p, int fn,
    const struct gp_prof_apply **top, int max)
{
	int n = 0;

	for (int f = 0; f < p->n_fn; f++) {
		if (fn >= 0 && f != fn)
			continue;
		for (int i = 0; i < p->fn[f].n_apply; i++) {
			const struct gp_prof_apply *a = &p->fn[f].ap[i];
			int k = n < max ? n : max;

			if (a->link_ns <= 0)
				continue;
			/* insertion: slowest first, ties in schedule order */
			while (k > 0 && a->link_ns > top[k - 1]->link_ns) {
				if (k < max)
					top[k] = top[k - 1];
				k--;
			}
			if (k < max) {
				top[k] = a;
				if (n < max)
					n++;
			}
		}
	}
	return (n);
}
