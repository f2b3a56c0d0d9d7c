/*
 * diff.c: pairing two profiles' rows, the noise test, sorting, and the
 * text report of `gptop --batch --diff` (see diff.h).
 *
 * Apply pairing works per pair of functions, in tiers.  Each B apply is
 * indexed up front under three keys: its structure (op with params, input
 * dtypes and shapes, and per input either the graph input's name or the
 * producing apply's position and output), its name, and its structure
 * with graph input names left out.  An A apply's structural key is made
 * the same way but with each producer replaced by the B apply that
 * producer was paired with, so it exists only once its producers are
 * paired; visiting A in schedule order makes that so in one pass.  The
 * three tiers run in that order until a round pairs nothing; then one
 * loose pass (op and signature, with producers unpaired on both sides
 * taken as alike: what follows a rewritten region) may unlock more strict
 * pairings downstream, and the rounds go on.  Among unpaired B applies
 * with the same key the first in schedule order wins, so a profile diffed
 * with itself pairs every apply with itself.
 */
#include "config.h"

#include "capture/diff.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "capture/capture.h"
#include "prof/memprof.h"
#include "base/radix.h"
#include "prof/report.h"

#define MAX_ROUNDS 16
/* The least spread of the applies' log ratios around the common factor
 * (about 10%): what was seen between two runs of the example graphs, and
 * between two compiled copies of one program run in turn (their rows
 * differ by where their buffers lie) */
#define SPREAD_MIN 0.1
/* Captures taken apart: the least capture_scale (see diff.h).  Measured
 * on 12 captures each of mlp, mlp32 and logreg taken one after the
 * other (load 13 on 2 cores): a row's median moved between two captures,
 * beyond the common factor, by 0.2-0.35 (median), 0.6-1.3 (90th
 * percentile), 1-3 (99th) times sqrt(spread_a^2 + spread_b^2): the
 * executions of one capture are not independent draws of what another
 * capture of the same program will see (its threads', its buffers'
 * placement), and a capture's median is about as uncertain as one
 * execution */
#define CAPTURE_SCALE_MIN 1.0
/* A normal distribution's interquartile range in standard deviations. */
#define IQR_SD 1.349
/* The least BLAS applies that get a factor of their own. */
#define BLAS_MIN 3
/* Functions of this many applies pair their two sides on two threads. */
#define THREAD_MIN 4096

void
gp_diff_opts_init(struct gp_diff_opts *o)
{
	o->alpha = 0.05;
	o->min_change = 0.05;
	o->min_samples = 4;
	o->floor_probes = 3;
	o->same_load = false;
	o->per_call = false;
}

bool
gp_diff_calls_differ(const struct gp_profile *a, const struct gp_profile *b)
{
	for (int f = 0; f < a->n_fn; f++)
		for (int g = 0; g < b->n_fn; g++)
			if (strcmp(a->fn[f].name, b->fn[g].name) == 0 &&
			    a->fn[f].call.n != b->fn[g].call.n)
				return (true);
	return (false);
}

/*
 * The noise test.
 */

double
gp_diff_utest(const struct gp_prof_stat *a, const struct gp_prof_stat *b)
{
	double na = 0, nb = 0, n, u = 0, below = 0, ties = 0, mean, var, z;
	int lo, hi;

	if (a->n == 0 || b->n == 0)
		return (1);
	/* only the bins between the smallest and the largest sample */
	lo = gp_prof_bin(a->min < b->min ? a->min : b->min);
	hi = gp_prof_bin(a->max > b->max ? a->max : b->max);
	for (int i = lo; i <= hi; i++) {
		double ca = gp_prof_stat_count(a, i);
		double cb = gp_prof_stat_count(b, i);
		double t = ca + cb;

		if (t == 0)
			continue;
		/* pairs where A's sample is larger, ties count half */
		u += ca * (below + 0.5 * cb);
		below += cb;
		na += ca;
		nb += cb;
		ties += t * t * t - t;
	}
	if (na == 0 || nb == 0)
		return (1);
	n = na + nb;
	mean = na * nb / 2;
	var = na * nb / 12 * ((n + 1) - ties / (n * (n - 1)));
	if (var <= 0)
		return (1);
	z = fabs(u - mean) - 0.5;
	if (z <= 0)
		return (1);
	z /= sqrt(var);
	return (erfc(z / M_SQRT2));
}

struct padj {
	double	p;
	size_t	i;
};

static int
cmp_padj(const void *x, const void *y)
{
	const struct padj *a = x, *b = y;

	if (a->p != b->p)
		return (a->p < b->p ? -1 : 1);
	return (a->i < b->i ? -1 : a->i > b->i);
}

void
gp_diff_adjust(const double *p, double *q, size_t n)
{
	struct padj *v = gp_xmalloc(sizeof(*v) * (n + 1));
	size_t m = 0;
	double run = 1;

	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			v[m++] = (struct padj){p[i], i};
	qsort(v, m, sizeof(*v), cmp_padj);
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			q[i] = NAN;
	/* from the largest p down: the running minimum of p * m / rank */
	for (size_t k = m; k-- > 0;) {
		double a = v[k].p * (double)m / (double)(k + 1);

		if (a < run)
			run = a;
		q[v[k].i] = run;
	}
	free(v);
}

/* A table's p adjusted over its rows; a change whose adjusted p is not
 * below alpha is within noise after all. */
static void
adjust_rows(struct gp_diff_row *rows, size_t n, size_t stride,
    const struct gp_diff_opts *o)
{
	double *p = gp_xmalloc(sizeof(*p) * (n + 1));

	for (size_t i = 0; i < n; i++)
		p[i] = ((struct gp_diff_row *)((char *)rows + i *
		    stride))->p_raw;
	gp_diff_adjust(p, p, n);
	for (size_t i = 0; i < n; i++) {
		struct gp_diff_row *r = (struct gp_diff_row *)((char *)rows +
		    i * stride);

		r->p = p[i];
		if ((r->verdict == GP_VERDICT_SLOWER ||
		    r->verdict == GP_VERDICT_FASTER) && !(r->p < o->alpha))
			r->verdict = GP_VERDICT_NOISE;
	}
	free(p);
}

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a < b ? -1 : a > b);
}

/* The median of v[0..k), sorted, k > 0. */
static double
median_of(const double *v, size_t k)
{
	return (k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2);
}

static double
ratio_of(double a, double b)
{
	if (a > 0)
		return (b / a);
	return (b > 0 ? INFINITY : NAN);
}

/* The gates a change must pass besides the test: a change of the mean of
 * at least min_change (relative to the common factor) and of at least
 * floor_ns in absolute terms (abs_change), the median's the same way and
 * as large (mchange, abs_mchange; NAN: not looked at), and enough
 * samples; then the test's raw p below alpha (the adjustment over the
 * table comes after, adjust_rows). */
static enum gp_diff_verdict
verdict_of(const struct gp_diff_opts *o, double change, double mchange,
    double abs_change, double abs_mchange, double floor_ns, uint64_t few,
    double p)
{
	if (isnan(change) || fabs(change) < o->min_change ||
	    abs_change < floor_ns)
		return (GP_VERDICT_NOISE);
	if (!isnan(mchange) && (fabs(mchange) < o->min_change ||
	    (mchange > 0) != (change > 0) || abs_mchange < floor_ns))
		return (GP_VERDICT_NOISE);
	if (few < (uint64_t)o->min_samples)
		return (GP_VERDICT_FEW);
	if (p < o->alpha)
		return (change > 0 ? GP_VERDICT_SLOWER : GP_VERDICT_FASTER);
	return (GP_VERDICT_NOISE);
}

static double	drift_p(const struct gp_diff *d, const struct gp_diff_row *r,
		    double a, double b);
static double	capture_p(const struct gp_diff *d, const struct gp_diff_row *r);

/* The mean and variance of a distribution, from its quantiles (a grid of
 * 64, each standing for 1/64 of the samples), so no histogram layout is
 * assumed; the mean is the exact one. */
static void
stat_moments(const struct gp_prof_stat *s, double *mean, double *var)
{
	enum { K = 64 };
	double qs[K], v[K], acc = 0;

	*mean = s->n > 0 ? (double)s->total / (double)s->n : 0;
	*var = 0;
	if (s->n < 2)
		return;
	for (int k = 0; k < K; k++)
		qs[k] = (k + 0.5) / K;
	gp_prof_stat_quantiles(s, qs, v, K);
	for (int k = 0; k < K; k++)
		acc += (v[k] - *mean) * (v[k] - *mean);
	*var = acc / K;
}

/* The median of a distribution and the spread of its log times (see
 * struct gp_diff_row), from one pass over its histogram. */
static void
stat_figures(const struct gp_prof_stat *s, double *median, double *spread)
{
	static const double qs[3] = {0.25, 0.5, 0.75};
	double v[3];

	gp_prof_stat_quantiles(s, qs, v, 3);
	*median = v[1];
	*spread = s->n >= 4 && v[0] > 0 ? fmax(log(v[2] / v[0]) / IQR_SD,
	    1.0 / GP_PROF_SUB) : NAN;
}

/* A row's medians and spreads. */
static void
row_figures(struct gp_diff_row *r)
{
	static const struct gp_prof_stat none;

	stat_figures(r->st_a ? r->st_a : &none, &r->median_a, &r->spread_a);
	stat_figures(r->st_b ? r->st_b : &none, &r->median_b, &r->spread_b);
}

/*
 * Judge a Class or Ops row whose applies differ between A and B by its
 * time per round (the executions of all its applies in one call summed):
 * its executions are not alike, so their times do not compare, but what a
 * round costs does.  The floor counts once per execution of a round.  The
 * test is Welch's on the two means per round, the variance of a round's
 * total being the executions per round times the variance of one
 * execution (the pooled distribution of the row, which counts the
 * differences between its applies as noise too: the safe side).  B's
 * times are divided by the row's factor first.
 */
static void
judge_by_round(const struct gp_diff *d, struct gp_diff_row *r,
    const struct gp_prof_stat *sa, const struct gp_prof_stat *sb)
{
	double ma, va, mb, vb, ta, tb, se, z, ea, eb, m = r->factor;
	uint64_t ra = d->rounds_a, rb = d->rounds_b;

	if (ra == 0 || rb == 0) {
		r->by_round = false;
		return;
	}
	stat_moments(sa, &ma, &va);
	stat_moments(sb, &mb, &vb);
	ea = (double)sa->n / (double)ra;	/* executions per round */
	eb = (double)sb->n / (double)rb;
	ta = (double)sa->total / (double)ra;
	tb = (double)sb->total / (double)rb;
	r->change = ta > 0 ? (tb - ta) / ta : NAN;
	r->rel_change = ta > 0 ? (tb / m - ta) / ta : NAN;
	se = sqrt(ea * va / (double)ra + eb * vb / (m * m * (double)rb));
	z = fabs(tb / m - ta);
	r->p_raw = se > 0 ? erfc(z / se / M_SQRT2) : z > 0 ? 0 : 1;
	r->p_raw = fmax(r->p_raw, drift_p(d, r, ta, tb));
	r->p = r->p_raw;
	r->verdict = verdict_of(&d->opts, r->rel_change, NAN, z, NAN,
	    d->floor_ns * (ea > eb ? ea : eb), ra < rb ? ra : rb, r->p_raw);
}

/* Fill the derived figures of r from its two distributions (r->st_a,
 * r->st_b; its medians and spreads too unless have_figures: row_figures
 * ran); then scale its times (per call of the function, with
 * opts.per_call).  The floor is floor_mult times d->floor_ns. */
static void
judge(const struct gp_diff *d, struct gp_diff_row *r, double scale_a,
    double scale_b, double floor_mult, bool have_figures)
{
	static const struct gp_prof_stat none;
	const struct gp_prof_stat *sa = r->st_a ? r->st_a : &none;
	const struct gp_prof_stat *sb = r->st_b ? r->st_b : &none;
	double m = r->factor, mrel;
	uint64_t few;

	r->per_call_a = r->calls_a ? r->time_a / (double)r->calls_a : 0;
	r->per_call_b = r->calls_b ? r->time_b / (double)r->calls_b : 0;
	r->time_a *= scale_a;
	r->time_b *= scale_b;
	if (!have_figures)
		row_figures(r);
	r->delta = r->time_b - r->time_a;
	r->ratio = ratio_of(r->time_a, r->time_b);
	r->change = r->per_call_a > 0 ? (r->per_call_b - r->per_call_a) /
	    r->per_call_a : NAN;
	r->rel_change = r->per_call_a > 0 ? (r->per_call_b / m -
	    r->per_call_a) / r->per_call_a : NAN;
	r->p = r->p_raw = NAN;
	if (r->kind != GP_DIFF_PAIRED) {
		r->by_round = false;
		r->verdict = GP_VERDICT_ONLY;
		return;
	}
	if (r->by_round) {
		judge_by_round(d, r, sa, sb);
		if (r->by_round)
			return;
	}
	r->p = r->p_raw = fmax(fmax(gp_diff_utest(sa, sb), drift_p(d, r,
	    r->median_a, r->median_b)), capture_p(d, r));
	few = sa->n < sb->n ? sa->n : sb->n;
	mrel = r->median_a > 0 ? (r->median_b / m - r->median_a) /
	    r->median_a : NAN;
	if (sa->n == 0 && sb->n == 0)
		r->verdict = GP_VERDICT_NOISE;
	else
		r->verdict = verdict_of(&d->opts, r->rel_change, mrel,
		    fabs(r->per_call_b / m - r->per_call_a),
		    fabs(r->median_b / m - r->median_a), d->floor_ns *
		    floor_mult, few, r->p_raw);
}

/* The median and the spread (1.4826 MADs, at least SPREAD_MIN; INFINITY
 * under 3) of v[0..k), k > 0; v is reordered. */
static void
drift_of(double *v, size_t k, double *median, double *spread)
{
	double f;

	qsort(v, k, sizeof(*v), cmp_double);
	f = median_of(v, k);
	for (size_t i = 0; i < k; i++)
		v[i] = fabs(v[i] - f);
	qsort(v, k, sizeof(*v), cmp_double);
	*median = f;
	*spread = k >= 3 ? fmax(1.4826 * median_of(v, k), SPREAD_MIN) :
	    INFINITY;
}

/* The factors of B's times over A's (captures taken apart): the median,
 * over the paired applies with enough executions a side, of the ratio of
 * their median times per execution (row_figures ran), the BLAS applies
 * apart when there are BLAS_MIN of them (struct gp_diff); 1 with
 * opts.same_load or no such apply.  Then the spread of those ratios
 * around them, each apply row's factor, and capture_scale. */
static void
common_factor(struct gp_diff *d, struct gp_diff_row *rows, size_t n)
{
	double *v, *w, *c, lf[2] = {0, 0}, sp[2] = {INFINITY, INFINITY};
	bool *blas;
	size_t k = 0, kg[2] = {0, 0}, m = 0;
	bool apart;

	v = gp_xmalloc(sizeof(*v) * (n + 1));
	w = gp_xmalloc(sizeof(*w) * (n + 1));
	c = gp_xmalloc(sizeof(*c) * (n + 1));
	blas = gp_xmalloc(sizeof(*blas) * (n + 1));
	for (size_t i = 0; i < n; i++) {
		const struct gp_diff_row *r = &rows[i];
		double ma = r->median_a, mb = r->median_b;

		if (r->kind != GP_DIFF_PAIRED || r->st_a->n <
		    (uint64_t)d->opts.min_samples || r->st_b->n <
		    (uint64_t)d->opts.min_samples || !(ma > 0 && mb > 0))
			continue;
		/* the spread within, for capture_scale */
		w[k] = hypot(r->spread_a, r->spread_b);
		blas[k] = r->blas;
		kg[r->blas]++;
		v[k++] = log(mb / ma);
	}
	/* the BLAS applies apart only when enough of them are, and not
	 * every apply */
	apart = !d->opts.same_load && kg[1] >= BLAS_MIN && kg[0] > 0;
	for (int g = 0; g < 2; g++) {
		size_t j = 0;

		for (size_t i = 0; i < k; i++)
			if (!apart || blas[i] == (g == 1))
				c[j++] = v[i];
		if (j > 0)
			drift_of(c, j, &lf[g], &sp[g]);
	}
	d->n_factor = apart ? kg[0] : k;
	d->n_factor_blas = apart ? kg[1] : 0;
	if (d->opts.same_load) {
		/* under the same load, what little of it there is still
		 * shows row to row (two compiled copies of the same program
		 * differ: where their buffers lie), so the spread is
		 * assumed to be at least SPREAD_MIN */
		lf[0] = lf[1] = 0;
		sp[0] = sp[1] = SPREAD_MIN;
	}
	d->factor = exp(lf[0]);
	d->spread = sp[0];
	d->factor_blas = exp(lf[apart]);
	d->spread_blas = sp[apart];
	for (size_t i = 0; i < n; i++)
		rows[i].factor = rows[i].blas ? d->factor_blas : d->factor;
	/* how far each moved from its factor, in its spreads within (NAN
	 * spreads are left out) */
	for (size_t i = 0; i < k; i++)
		if (!isnan(w[i]))
			w[m++] = fabs(v[i] - lf[apart && blas[i]]) / w[i];
	d->capture_scale = d->opts.same_load ? 0 : CAPTURE_SCALE_MIN;
	if (m >= 3 && !d->opts.same_load) {
		qsort(w, m, sizeof(*w), cmp_double);
		d->capture_scale = fmax(1.4826 * median_of(w, m),
		    CAPTURE_SCALE_MIN);
	}
	free(v);
	free(w);
	free(c);
	free(blas);
}

/* The p of a row's ratio (B over A) as one more draw from the ratios of
 * the paired applies (the BLAS applies' for a BLAS row) around its
 * factor: how the runs differ beyond it, row to row.  1 when that spread
 * is unknown. */
static double
drift_p(const struct gp_diff *d, const struct gp_diff_row *r, double a,
    double b)
{
	double spread = r->blas ? d->spread_blas : d->spread;

	if (!(a > 0 && b > 0) || isinf(spread))
		return (1);
	return (erfc(fabs(log(b / a) - log(r->factor)) / spread / M_SQRT2));
}

/* Captures taken apart: the p of a row's median ratio beyond its
 * factor, as a normal draw of standard deviation capture_scale x its
 * executions' spread (sqrt(spread_a^2 + spread_b^2)): the capture as the
 * unit, whose own effect a capture's executions share.  0 (no say) under
 * the same load; 1 when a median is 0 or a spread unknown. */
static double
capture_p(const struct gp_diff *d, const struct gp_diff_row *r)
{
	double a = r->median_a, b = r->median_b;
	double w = hypot(r->spread_a, r->spread_b) * d->capture_scale;

	if (d->opts.same_load)
		return (0);
	if (!(a > 0 && b > 0) || !(w > 0))
		return (1);
	return (erfc(fabs(log(b / a) - log(r->factor)) / w / M_SQRT2));
}

const char *
gp_diff_mark(const struct gp_diff_row *r)
{
	switch (r->verdict) {
	case GP_VERDICT_NOISE:
		return ("~");
	case GP_VERDICT_SLOWER:
		return ("+");
	case GP_VERDICT_FASTER:
		return ("-");
	case GP_VERDICT_FEW:
		return ("?");
	default:
		return (r->kind == GP_DIFF_ADDED ? "added" : "removed");
	}
}

/*
 * Maps from a 64-bit key to a chain of indices (first in index order).
 */

struct kmap {
	size_t		 cap;	/* a power of two */
	uint64_t	*key;
	int		*head;	/* -1: empty slot */
};

static void
kmap_init(struct kmap *m, size_t n)
{
	m->cap = 16;
	while (m->cap < 2 * n + 2)
		m->cap *= 2;
	m->key = gp_xmalloc(m->cap * sizeof(*m->key));	/* read once used */
	m->head = gp_xmalloc(m->cap * sizeof(*m->head));
	memset(m->head, -1, m->cap * sizeof(*m->head));
}

static void
kmap_free(struct kmap *m)
{
	free(m->key);
	free(m->head);
}

/* The slot of key (an empty one if absent). */
static size_t
kmap_slot(const struct kmap *m, uint64_t key)
{
	size_t h = (size_t)(key ^ (key >> 29)) & (m->cap - 1);

	while (m->head[h] >= 0 && m->key[h] != key)
		h = (h + 1) & (m->cap - 1);
	return (h);
}

/* Insert in decreasing index order so chains come out increasing. */
static void
kmap_push(struct kmap *m, int *next, uint64_t key, int i)
{
	size_t h = kmap_slot(m, key);

	m->key[h] = key;
	next[i] = m->head[h];
	m->head[h] = i;
}

/* Fold a 64-bit value into a hash (a multiply-xorshift mix). */
static uint64_t
hu64(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return (h ^ (h >> 32));
}

/* A string, eight bytes at a time, then its length. */
static uint64_t
hstr(uint64_t h, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0, i;
	uint64_t w;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = hu64(h, w);
	}
	w = 0;
	memcpy(&w, s + i, n - i);
	return (hu64(hu64(h, w), n));
}

/*
 * Apply pairing.
 */

enum tier {
	TIER_STRUCTURE,		/* leaf names, producers paired */
	TIER_NAME,		/* the apply's name */
	TIER_SHAPE,		/* leaf names aside, producers paired */
	TIER_LOOSE,		/* as SHAPE, but unpaired producers on both
				 * sides count as alike */
	TIER__COUNT
};

static const enum gp_diff_match tier_match[TIER__COUNT] = {
	[TIER_STRUCTURE] = GP_MATCH_STRUCTURE,
	[TIER_NAME] = GP_MATCH_APPLY_NAME,
	[TIER_SHAPE] = GP_MATCH_SHAPE,
	[TIER_LOOSE] = GP_MATCH_LOOSE,
};

/* What does not change while pairing: per apply, the hash of its op and
 * input signature, of its name, of its graph inputs' names, and which
 * output of each producer it reads. */
struct side {
	const struct gp_prof_fn	*f;
	uint64_t		*base, *name, *leaves;
	int			*slot;	/* per input, in input order */
	int			*first;	/* apply i's inputs: slot[first[i]] */
};

struct pairing {
	struct side		 a, b;
	int			*pa, *pb;	/* partner, or -1 */
	enum gp_diff_match	*how;		/* per A apply */
	struct kmap		 map[TIER__COUNT];
	int			*next[TIER__COUNT];
};

/* Which output of apply p feeds input var v (0 when not found). */
static int
out_slot(const struct gp_prof_apply *p, const char *v)
{
	if (p->n_out == 1)
		return (0);
	for (int k = 0; k < p->n_out; k++)
		if (p->out[k].var != NULL && v != NULL &&
		    strcmp(p->out[k].var, v) == 0)
			return (k);
	return (0);
}

static void
side_init(struct side *sd, const struct gp_prof_fn *f)
{
	size_t n = (size_t)f->n_apply, nin = 0;

	sd->f = f;
	sd->base = gp_xmalloc(sizeof(uint64_t) * (n + 1));
	sd->name = gp_xmalloc(sizeof(uint64_t) * (n + 1));
	sd->leaves = gp_xmalloc(sizeof(uint64_t) * (n + 1));
	sd->first = gp_xmalloc(sizeof(int) * (n + 1));
	for (size_t i = 0; i < n; i++)
		nin += (size_t)f->ap[i].n_in;
	sd->slot = gp_xmalloc(sizeof(int) * (nin + 1));
	nin = 0;
	for (size_t i = 0; i < n; i++) {
		const struct gp_prof_apply *a = &f->ap[i];
		uint64_t h = hstr(GP_HASH_INIT, a->op), l = GP_HASH_INIT;

		h = hu64(h, (uint64_t)a->n_in);
		sd->first[i] = (int)nin;
		for (int k = 0; k < a->n_in; k++) {
			const struct gp_prof_io *io = &a->in[k];
			int pr = a->in_producer[k];

			h = hu64(h, (uint64_t)io->dtype);
			h = hu64(h, (uint64_t)io->ndim);
			for (int d = 0; d < io->ndim; d++)
				h = hu64(h, (uint64_t)io->shape[d]);
			h = hu64(h, pr < 0 ? 1 : 2);
			if (pr < 0)
				l = hstr(hu64(l, (uint64_t)k), io->var);
			sd->slot[nin++] = pr < 0 ? 0 : out_slot(&f->ap[pr],
			    io->var);
		}
		sd->base[i] = h;
		sd->leaves[i] = l;
		sd->name[i] = hstr(GP_HASH_INIT, a->name);
	}
}

/* B's side of a big function, on a second thread while A's is made. */
static void *
side_init_b(void *arg)
{
	struct pairing *pg = arg;

	side_init(&pg->b, pg->b.f);
	return (NULL);
}

static void
side_done(struct side *sd)
{
	free(sd->base);
	free(sd->name);
	free(sd->leaves);
	free(sd->slot);
	free(sd->first);
}

/* The key of apply i of side sd for tier t.  A side: map gives each
 * producer's partner (-1: none yet, and then no key but for TIER_LOOSE).
 * B side: map is NULL, producers keep their own position, and own (B's
 * partners) tells TIER_LOOSE which are paired. */
static bool
apply_key(const struct side *sd, int i, const int *map, const int *own,
    enum tier t, uint64_t *out)
{
	const struct gp_prof_apply *a = &sd->f->ap[i];
	uint64_t h;

	if (t == TIER_NAME) {
		*out = sd->name[i];
		return (true);
	}
	h = sd->base[i];
	if (t == TIER_STRUCTURE)
		h = hu64(h, sd->leaves[i]);
	for (int k = 0; k < a->n_in; k++) {
		int pr = a->in_producer[k];

		if (pr < 0)
			continue;
		if (map != NULL)
			pr = map[pr];
		else if (t == TIER_LOOSE && own[pr] < 0)
			pr = -1;
		if (pr < 0 && t != TIER_LOOSE)
			return (false);
		h = hu64(h, (uint64_t)sd->slot[sd->first[i] + k]);
		h = hu64(h, (uint64_t)(int64_t)pr);
	}
	*out = h;
	return (true);
}

static bool
io_same(const struct gp_prof_io *a, const struct gp_prof_io *b)
{
	if (a->dtype != b->dtype || a->ndim != b->ndim)
		return (false);
	for (int d = 0; d < a->ndim; d++)
		if (a->shape[d] != b->shape[d])
			return (false);
	return (true);
}

/* Does A apply i really pair with B apply j under tier t (guarding against
 * hash collisions)? */
static bool
verify(const struct pairing *pg, int i, int j, enum tier t)
{
	const struct gp_prof_apply *x = &pg->a.f->ap[i], *y = &pg->b.f->ap[j];

	if (t == TIER_NAME)
		return (strcmp(x->name, y->name) == 0);
	if (strcmp(x->op, y->op) != 0 || x->n_in != y->n_in)
		return (false);
	for (int k = 0; k < x->n_in; k++) {
		int px = x->in_producer[k], py = y->in_producer[k];

		if (!io_same(&x->in[k], &y->in[k]))
			return (false);
		if ((px < 0) != (py < 0))
			return (false);
		if (px < 0) {
			if (t == TIER_STRUCTURE &&
			    strcmp(x->in[k].var, y->in[k].var) != 0)
				return (false);
		} else if (pg->pa[px] != py && !(t == TIER_LOOSE &&
		    pg->pa[px] < 0 && pg->pb[py] < 0))
			return (false);
	}
	return (true);
}

/* Index B's applies under tier t (the unpaired ones for TIER_LOOSE,
 * whose keys change as pairs are made). */
static void
index_b(struct pairing *pg, enum tier t)
{
	int n = pg->b.f->n_apply;

	if (pg->next[t] == NULL) {
		kmap_init(&pg->map[t], (size_t)n);
		pg->next[t] = gp_xmalloc(sizeof(int) * ((size_t)n + 1));
	} else
		memset(pg->map[t].head, -1, pg->map[t].cap * sizeof(int));
	for (int j = n - 1; j >= 0; j--) {
		uint64_t k;

		if (t == TIER_LOOSE && pg->pb[j] >= 0)
			continue;
		if (apply_key(&pg->b, j, NULL, pg->pb, t, &k))
			kmap_push(&pg->map[t], pg->next[t], k, j);
	}
}

/* Pair A apply i under tier t, if it can be. */
static bool
try_pair(struct pairing *pg, int i, enum tier t)
{
	struct kmap *m = &pg->map[t];
	uint64_t k;
	size_t h;

	if (!apply_key(&pg->a, i, pg->pa, NULL, t, &k))
		return (false);
	h = kmap_slot(m, k);
	/* drop paired applies off the chain's head */
	while (m->head[h] >= 0 && pg->pb[m->head[h]] >= 0)
		m->head[h] = pg->next[t][m->head[h]];
	for (int j = m->head[h]; j >= 0; j = pg->next[t][j]) {
		if (pg->pb[j] >= 0 || !verify(pg, i, j, t))
			continue;
		pg->pa[i] = j;
		pg->pb[j] = i;
		pg->how[i] = tier_match[t];
		return (true);
	}
	return (false);
}

/* One pass over the unpaired A applies in schedule order, each tried
 * under the tiers up to t, strictest first (so what a looser tier pairs
 * lets the applies after it pair by structure in the same pass). */
static bool
pass(struct pairing *pg, enum tier t)
{
	bool changed = false;

	if (t == TIER_LOOSE)
		index_b(pg, t);
	for (int i = 0; i < pg->a.f->n_apply; i++)
		for (int u = 0; u <= (int)t && pg->pa[i] < 0; u++)
			changed |= try_pair(pg, i, (enum tier)u);
	return (changed);
}

static void
pair_applies(struct pairing *pg)
{
	pthread_t th;
	bool threaded = pg->b.f->n_apply >= THREAD_MIN &&
	    pthread_create(&th, NULL, side_init_b, pg) == 0;

	side_init(&pg->a, pg->a.f);
	if (threaded)
		pthread_join(th, NULL);
	else
		side_init(&pg->b, pg->b.f);
	for (int t = 0; t < TIER__COUNT; t++)
		if (t != TIER_LOOSE)
			index_b(pg, t);
	/* the strict tiers until they settle, then a loose pass */
	for (int round = 0; round < MAX_ROUNDS; round++) {
		bool changed = false;

		for (int t = 0; t < TIER_LOOSE; t++)
			changed |= pass(pg, t);
		if (!changed && !pass(pg, TIER_LOOSE))
			break;
	}
	for (int t = 0; t < TIER__COUNT; t++) {
		if (pg->next[t] != NULL)
			kmap_free(&pg->map[t]);
		free(pg->next[t]);
	}
	side_done(&pg->a);
	side_done(&pg->b);
}

/*
 * Tables.
 */

struct rows {
	struct gp_diff_row	*v;
	size_t			 n, cap;
};

static struct gp_diff_row *
add_row(struct rows *rs)
{
	struct gp_diff_row *r;

	gp_grow(&rs->v, &rs->cap, rs->n + 1, sizeof(*rs->v));
	r = &rs->v[rs->n++];
	memset(r, 0, sizeof(*r));
	r->fn_a = r->id_a = r->fn_b = r->id_b = -1;
	return (r);
}

static void
finish_table(struct gp_diff_table *t, struct rows *rs, double total_a,
    double total_b, const struct gp_diff_opts *o)
{
	t->rows = rs->v;
	t->n = rs->n;
	t->total_a = total_a;
	t->total_b = total_b;
	adjust_rows(t->rows, t->n, sizeof(*t->rows), o);
	for (size_t i = 0; i < t->n; i++) {
		struct gp_diff_row *r = &t->rows[i];

		r->pct_a = total_a > 0 ? 100 * r->time_a / total_a : 0;
		r->pct_b = total_b > 0 ? 100 * r->time_b / total_b : 0;
		if (r->kind == GP_DIFF_ADDED)
			t->n_added++;
		else if (r->kind == GP_DIFF_REMOVED)
			t->n_removed++;
		else
			t->n_paired++;
		if (r->verdict == GP_VERDICT_SLOWER ||
		    r->verdict == GP_VERDICT_FASTER)
			t->n_significant++;
	}
	gp_diff_sort(t, GP_DIFF_COL_ABS_DELTA, true);
}

/* An apply's identity in the mix of a Class or Ops row: its op (with its
 * params) and input signature. */
static uint64_t
apply_ident(const struct gp_prof_apply *a)
{
	uint64_t h = hstr(GP_HASH_INIT, a->op);

	for (int k = 0; k < a->n_in; k++) {
		h = hu64(h, (uint64_t)a->in[k].dtype);
		h = hu64(h, (uint64_t)a->in[k].ndim);
		for (int d = 0; d < a->in[k].ndim; d++)
			h = hu64(h, (uint64_t)a->in[k].shape[d]);
	}
	return (h);
}

/* Per row of t (p's rollup): the sum of its applies' identities, which is
 * the same on both sides when the rows hold alike applies. */
static uint64_t *
mix_sums(const struct gp_profile *p, const struct gp_prof_table *t)
{
	uint64_t *sum = gp_xcalloc(t->n + 1, sizeof(*sum));
	size_t k = 0;

	for (int f = 0; f < p->n_fn; f++)
		for (int i = 0; i < p->fn[f].n_apply && k < t->n_member; i++)
			sum[t->member[k++]] += apply_ident(&p->fn[f].ap[i]);
	return (sum);
}

/* The rounds of a profile: the most calls of any function. */
static uint64_t
rounds_of(const struct gp_profile *p)
{
	uint64_t n = 0;

	for (int f = 0; f < p->n_fn; f++)
		if (p->fn[f].call.n > n)
			n = p->fn[f].call.n;
	return (n);
}

/* Class or Ops rows: rollups of both sides paired by name; a row whose
 * applies differ is judged by round (judge_by_round). */
static void
group_table(struct gp_diff *d, enum gp_prof_group grp,
    struct gp_diff_table *out, struct gp_prof_table *keep)
{
	struct gp_prof_table ta, tb;
	struct rows rs = {0};
	struct kmap m;
	int *next;
	bool *used;

	uint64_t *mix_a, *mix_b;

	gp_prof_rollup(d->a, -1, grp, &ta);
	gp_prof_rollup(d->b, -1, grp, &tb);
	mix_a = mix_sums(d->a, &ta);
	mix_b = mix_sums(d->b, &tb);
	kmap_init(&m, tb.n);
	next = gp_xmalloc(sizeof(int) * (tb.n + 1));
	used = gp_xcalloc(tb.n + 1, sizeof(bool));
	for (size_t j = tb.n; j-- > 0;)
		kmap_push(&m, next, hstr(GP_HASH_INIT, tb.rows[j].name),
		    (int)j);
	for (size_t i = 0; i < ta.n; i++) {
		const struct gp_prof_row *x = &ta.rows[i], *y = NULL;
		struct gp_diff_row *r = add_row(&rs);
		size_t h = kmap_slot(&m, hstr(GP_HASH_INIT, x->name));
		bool mixed = false;

		for (int j = m.head[h]; j >= 0; j = next[j])
			if (!used[j] && strcmp(tb.rows[j].name, x->name) == 0) {
				used[j] = true;
				y = &tb.rows[j];
				mixed = x->n_apply != y->n_apply ||
				    mix_a[i] != mix_b[j];
				break;
			}
		r->name = x->name;
		r->kind = y != NULL ? GP_DIFF_PAIRED : GP_DIFF_REMOVED;
		r->match = y != NULL ? GP_MATCH_NAME : GP_MATCH_NONE;
		r->n_apply_a = x->n_apply;
		r->calls_a = x->calls;
		r->time_a = x->time_ns;
		if (y != NULL) {
			r->n_apply_b = y->n_apply;
			r->calls_b = y->calls;
			r->time_b = y->time_ns;
		}
		r->st_a = &x->st;
		r->st_b = y != NULL ? &y->st : NULL;
		r->by_round = mixed;
		r->blas = y != NULL && strcmp(x->type, "BLAS") == 0 &&
		    strcmp(y->type, "BLAS") == 0;
	}
	for (size_t j = 0; j < tb.n; j++) {
		const struct gp_prof_row *y = &tb.rows[j];
		struct gp_diff_row *r;

		if (used[j])
			continue;
		r = add_row(&rs);
		r->name = y->name;
		r->kind = GP_DIFF_ADDED;
		r->n_apply_b = y->n_apply;
		r->calls_b = y->calls;
		r->time_b = y->time_ns;
		r->st_b = &y->st;
	}
	/* judged and finished once the applies are paired (judge_groups) */
	out->rows = rs.v;
	out->n = rs.n;
	out->total_a = ta.total_ns * d->scale_a;
	out->total_b = tb.total_ns * d->scale_b;
	free(mix_a);
	free(mix_b);
	kmap_free(&m);
	free(next);
	free(used);
	/* the rows' names live in the rollups */
	keep[0] = ta;
	keep[1] = tb;
}

/* Times per call of function f, or totals. */
static double
fn_scale(const struct gp_diff_opts *o, const struct gp_prof_fn *f)
{
	if (!o->per_call || f == NULL || f->call.n == 0)
		return (1);
	return (1.0 / (double)f->call.n);
}

/* For rows over every function: per round (the most calls of any). */
static double
profile_scale(const struct gp_diff_opts *o, const struct gp_profile *p)
{
	uint64_t n = 0;

	for (int f = 0; f < p->n_fn; f++)
		if (p->fn[f].call.n > n)
			n = p->fn[f].call.n;
	return (o->per_call && n > 0 ? 1.0 / (double)n : 1);
}

/* An apply row's figures; its verdict comes later (judge_applies). */
static void
apply_row(struct rows *rs, const struct gp_diff_fn *df,
    const struct gp_profile *a, int ia, const struct gp_profile *b, int ib,
    enum gp_diff_match how)
{
	const struct gp_prof_apply *x = ia >= 0 ? &a->fn[df->fn_a].ap[ia] :
	    NULL;
	const struct gp_prof_apply *y = ib >= 0 ? &b->fn[df->fn_b].ap[ib] :
	    NULL;
	struct gp_diff_row *r = add_row(rs);

	r->fn_name = df->name;
	r->name = y != NULL ? y->name : x->name;
	if (x != NULL && y != NULL && strcmp(x->name, y->name) != 0)
		r->name_a = x->name;
	r->kind = x == NULL ? GP_DIFF_ADDED : y == NULL ? GP_DIFF_REMOVED :
	    GP_DIFF_PAIRED;
	r->match = how;
	r->blas = x != NULL && y != NULL && x->impl == GP_IMPL_BLAS &&
	    y->impl == GP_IMPL_BLAS;
	if (x != NULL) {
		r->fn_a = df->fn_a;
		r->id_a = ia;
		r->n_apply_a = 1;
		r->calls_a = x->st.n;
		r->time_a = (double)x->st.total;
		r->st_a = &x->st;
	}
	if (y != NULL) {
		r->fn_b = df->fn_b;
		r->id_b = ib;
		r->n_apply_b = 1;
		r->calls_b = y->st.n;
		r->time_b = (double)y->st.total;
		r->st_b = &y->st;
	}
}

/* Apply rows [lo, hi): their medians and spreads (figures), or their
 * verdicts (a side's scale matters only to the side that has the
 * apply). */
struct judging {
	struct gp_diff			*d;
	const struct gp_diff_opts	*o;
	struct gp_diff_row		*rows;
	size_t				 lo, hi;
	bool				 figures;
};

static void *
judge_applies(void *arg)
{
	const struct judging *j = arg;
	const struct gp_profile *a = j->d->a, *b = j->d->b;

	for (size_t i = j->lo; i < j->hi; i++) {
		struct gp_diff_row *r = &j->rows[i];
		const struct gp_prof_fn *fa = r->fn_a >= 0 ? &a->fn[r->fn_a] :
		    NULL;
		const struct gp_prof_fn *fb = r->fn_b >= 0 ? &b->fn[r->fn_b] :
		    NULL;

		if (j->figures)
			row_figures(r);
		else
			judge(j->d, r, fn_scale(j->o, fa), fn_scale(j->o, fb), 1,
			    true);
	}
	return (NULL);
}

/* Run a job over the apply rows, the second half on a second thread. */
static void
judge_halves(struct gp_diff *d, struct rows *rs, const struct gp_diff_opts *o,
    bool figures)
{
	struct judging lo = {d, o, rs->v, 0, rs->n / 2, figures};
	struct judging hi = {d, o, rs->v, rs->n / 2, rs->n, figures};
	pthread_t th;
	bool threaded = rs->n >= THREAD_MIN &&
	    pthread_create(&th, NULL, judge_applies, &hi) == 0;

	if (!threaded)
		lo.hi = rs->n;
	judge_applies(&lo);
	if (threaded)
		pthread_join(th, NULL);
}

/* The apply rows' figures, the common factor over them, their verdicts. */
static void
judge_all(struct gp_diff *d, struct rows *rs, const struct gp_diff_opts *o)
{
	judge_halves(d, rs, o, true);
	common_factor(d, rs->v, rs->n);
	judge_halves(d, rs, o, false);
}

/* The apply rows, in the order of their positions (gp_diff_row_cmp's
 * last keys, so the sort by them has nothing to do): the applies only in
 * B (no position in A) first, then A's, function by function. */
static void
fn_rows(struct gp_diff *d, struct rows *rs, const struct gp_diff_opts *o)
{
	struct pairing *pgs = gp_xcalloc((size_t)d->n_fn + 1, sizeof(*pgs));

	for (int f = 0; f < d->n_fn; f++) {
		struct gp_diff_fn *df = &d->fn[f];
		const struct gp_prof_fn *fa = df->fn_a >= 0 ?
		    &d->a->fn[df->fn_a] : NULL;
		const struct gp_prof_fn *fb = df->fn_b >= 0 ?
		    &d->b->fn[df->fn_b] : NULL;
		struct pairing *pg = &pgs[f];

		pg->a.f = fa;
		pg->b.f = fb;
		if (fa == NULL || fb == NULL)
			continue;
		pg->pa = gp_xmalloc(sizeof(int) * ((size_t)fa->n_apply + 1));
		pg->pb = gp_xmalloc(sizeof(int) * ((size_t)fb->n_apply + 1));
		pg->how = gp_xcalloc((size_t)fa->n_apply + 1, sizeof(*pg->how));
		memset(pg->pa, -1, sizeof(int) * (size_t)fa->n_apply);
		memset(pg->pb, -1, sizeof(int) * (size_t)fb->n_apply);
		pair_applies(pg);
	}
	for (int f = 0; f < d->n_fn; f++) {
		const struct pairing *pg = &pgs[f];

		if (pg->b.f == NULL)
			continue;
		for (int j = 0; j < pg->b.f->n_apply; j++)
			if (pg->a.f == NULL || pg->pb[j] < 0)
				apply_row(rs, &d->fn[f], d->a, -1, d->b, j,
				    GP_MATCH_NONE);
	}
	for (int f = 0; f < d->n_fn; f++) {
		struct pairing *pg = &pgs[f];

		if (pg->a.f == NULL)
			continue;
		for (int i = 0; i < pg->a.f->n_apply; i++) {
			enum gp_diff_match how = pg->b.f != NULL ? pg->how[i] :
			    GP_MATCH_NONE;

			apply_row(rs, &d->fn[f], d->a, i, d->b,
			    pg->b.f != NULL ? pg->pa[i] : -1, how);
			if (pg->b.f != NULL)
				d->n_match[how]++;
		}
		free(pg->pa);
		free(pg->pb);
		free(pg->how);
	}
	free(pgs);
}

/* Function fn's predicted peak and intermediates peak, as the report
 * and the Memory view give them (memprof.h; 0 without a memory
 * profile, or fn < 0). */
static void
mem_figures(const struct gp_profile *p, int fn, uint64_t *peak,
    uint64_t *inter)
{
	const struct gp_memprof *m = fn >= 0 ? p->fn[fn].mem : NULL;

	*peak = *inter = 0;
	if (m == NULL)
		return;
	*peak = gp_memprof_predicted_peak(p, fn);
	*inter = gp_memprof_inter_peak(m);
}

/* Global rows: functions paired by name, A's order first. */
static void
pair_functions(struct gp_diff *d, const struct gp_diff_opts *o)
{
	const struct gp_profile *a = d->a, *b = d->b;
	bool *used = gp_xcalloc((size_t)b->n_fn + 1, sizeof(bool));

	d->fn = gp_xcalloc((size_t)a->n_fn + (size_t)b->n_fn + 1,
	    sizeof(*d->fn));
	for (int pass = 0; pass < 2; pass++) {
		int n = pass == 0 ? a->n_fn : b->n_fn;

		for (int i = 0; i < n; i++) {
			struct gp_diff_fn *df;
			const struct gp_prof_fn *fa = NULL, *fb = NULL;

			if (pass == 1 && used[i])
				continue;
			df = &d->fn[d->n_fn++];
			df->fn_a = df->fn_b = -1;
			if (pass == 0) {
				df->fn_a = i;
				for (int j = 0; j < b->n_fn; j++)
					if (!used[j] && strcmp(b->fn[j].name,
					    a->fn[i].name) == 0) {
						used[j] = true;
						df->fn_b = j;
						break;
					}
			} else
				df->fn_b = i;
			if (df->fn_a >= 0)
				fa = &a->fn[df->fn_a];
			if (df->fn_b >= 0)
				fb = &b->fn[df->fn_b];
			df->name = gp_xstrdup(fa != NULL ? fa->name :
			    fb->name);
			memset(&df->call, 0, sizeof(df->call));
			df->call.fn_a = df->call.id_a = -1;
			df->call.fn_b = df->call.id_b = -1;
			df->call.name = df->name;
			df->call.kind = fa == NULL ? GP_DIFF_ADDED :
			    fb == NULL ? GP_DIFF_REMOVED : GP_DIFF_PAIRED;
			df->call.match = fa != NULL && fb != NULL ?
			    GP_MATCH_NAME : GP_MATCH_NONE;
			mem_figures(a, df->fn_a, &df->mem_pred_a,
			    &df->mem_inter_a);
			mem_figures(b, df->fn_b, &df->mem_pred_b,
			    &df->mem_inter_b);
			if (fa != NULL) {
				df->call.fn_a = df->fn_a;
				df->call.calls_a = fa->call.n;
				df->call.time_a = (double)fa->call.total;
				df->vm_a = fa->vm_ns;
				df->thunk_a = fa->thunk_ns;
				df->first_a = fa->first_call_ns;
				df->mem_peak_a = fa->mem_peak_measured;
				df->n_apply_a = fa->n_apply;
			}
			if (fb != NULL) {
				df->call.fn_b = df->fn_b;
				df->call.calls_b = fb->call.n;
				df->call.time_b = (double)fb->call.total;
				df->vm_b = fb->vm_ns;
				df->thunk_b = fb->thunk_ns;
				df->first_b = fb->first_call_ns;
				df->mem_peak_b = fb->mem_peak_measured;
				df->n_apply_b = fb->n_apply;
			}
			df->call.st_a = fa != NULL ? &fa->call : NULL;
			df->call.st_b = fb != NULL ? &fb->call : NULL;
		}
	}
	free(used);
}

/* Judge and finish a Class or Ops table made by group_table. */
static void
judge_groups(struct gp_diff *d, struct gp_diff_table *t)
{
	struct rows rs = {.v = t->rows, .n = t->n, .cap = t->n};

	for (size_t i = 0; i < t->n; i++) {
		struct gp_diff_row *r = &t->rows[i];

		r->factor = r->blas ? d->factor_blas : d->factor;
		judge(d, r, d->scale_a, d->scale_b, 1, false);
	}
	finish_table(t, &rs, t->total_a, t->total_b, &d->opts);
}

/* The Class and Ops tables: made on a second thread while the applies are
 * paired (they read the two profiles only, and write their own tables). */
struct groups_job {
	struct gp_diff			*d;
	const struct gp_diff_opts	*o;
};

static void *
group_tables(void *arg)
{
	struct groups_job *j = arg;

	group_table(j->d, GP_GROUP_CLASS, &j->d->cls, j->d->rollup[0]);
	group_table(j->d, GP_GROUP_OP, &j->d->ops, j->d->rollup[1]);
	return (NULL);
}

/* A call row's factor: the BLAS and the other applies' factors in the
 * proportion of A's time in them (d->factor when A lacks the function
 * or spent no time in its applies). */
static double
call_factor(const struct gp_diff *d, const struct gp_diff_fn *df)
{
	const struct gp_prof_fn *f;
	double all = 0, blas = 0;

	if (df->fn_a < 0)
		return (d->factor);
	f = &d->a->fn[df->fn_a];
	for (int i = 0; i < f->n_apply; i++) {
		all += (double)f->ap[i].st.total;
		if (f->ap[i].impl == GP_IMPL_BLAS)
			blas += (double)f->ap[i].st.total;
	}
	if (!(all > 0))
		return (d->factor);
	return ((all - blas) / all * d->factor + blas / all *
	    d->factor_blas);
}

/* The larger of the probe costs and timer resolutions of two clocks. */
static double
clock_step(const struct gp_clock_info *a, const struct gp_clock_info *b)
{
	double v[] = {a->probe_ns, a->resolution_ns, b->probe_ns,
	    b->resolution_ns}, m = 0;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] > m)
			m = v[i];
	return (m);
}

struct gp_diff *
gp_diff_compute(const struct gp_profile *a, const struct gp_profile *b,
    const struct gp_diff_opts *o)
{
	struct gp_diff *d = gp_xcalloc(1, sizeof(*d));
	struct gp_diff_opts def;
	struct rows rs = {0};
	double ta = 0, tb = 0;
	struct groups_job job;
	pthread_t th;
	bool threaded;

	if (o == NULL) {
		gp_diff_opts_init(&def);
		o = &def;
	}
	d->a = a;
	d->b = b;
	d->opts = *o;
	d->same_graph = a->graph_hash == b->graph_hash;
	d->same_rewrites = strcmp(a->rewrites != NULL ? a->rewrites : "",
	    b->rewrites != NULL ? b->rewrites : "") == 0;
	d->same_clock = strcmp(a->clock.source, b->clock.source) == 0;
	d->scale_a = profile_scale(o, a);
	d->scale_b = profile_scale(o, b);
	d->floor_ns = o->floor_probes * clock_step(&a->clock, &b->clock);
	d->rounds_a = rounds_of(a);
	d->rounds_b = rounds_of(b);
	pair_functions(d, o);
	job = (struct groups_job){d, o};
	threaded = pthread_create(&th, NULL, group_tables, &job) == 0;
	if (!threaded)
		group_tables(&job);
	fn_rows(d, &rs, o);
	judge_all(d, &rs, o);
	for (int f = 0; f < a->n_fn; f++)
		for (int i = 0; i < a->fn[f].n_apply; i++)
			ta += (double)a->fn[f].ap[i].st.total *
			    fn_scale(o, &a->fn[f]);
	for (int f = 0; f < b->n_fn; f++)
		for (int i = 0; i < b->fn[f].n_apply; i++)
			tb += (double)b->fn[f].ap[i].st.total *
			    fn_scale(o, &b->fn[f]);
	finish_table(&d->applies, &rs, ta, tb, o);
	if (threaded)
		pthread_join(th, NULL);
	judge_groups(d, &d->cls);
	judge_groups(d, &d->ops);
	for (int f = 0; f < d->n_fn; f++) {
		struct gp_diff_fn *df = &d->fn[f];

		df->call.factor = call_factor(d, df);
		/* a call is timed by a probe per apply, and one around it */
		judge(d, &df->call, 1, 1, 1 + (df->n_apply_a > df->n_apply_b ?
		    df->n_apply_a : df->n_apply_b), false);
	}
	adjust_rows(&d->fn[0].call, (size_t)d->n_fn, sizeof(*d->fn), o);
	return (d);
}

void
gp_diff_free(struct gp_diff *d)
{
	if (d == NULL)
		return;
	for (int f = 0; f < d->n_fn; f++)
		free(d->fn[f].name);
	free(d->fn);
	free(d->cls.rows);
	free(d->ops.rows);
	free(d->applies.rows);
	for (int i = 0; i < 2; i++) {
		gp_prof_table_free(&d->rollup[i][0]);
		gp_prof_table_free(&d->rollup[i][1]);
	}
	free(d);
}

/*
 * Sorting.
 */

const struct gp_diff_col_info gp_diff_cols[GP_DIFF_COL__COUNT] = {
	[GP_DIFF_COL_NAME] = {.name = "name", .title = "<name>",
	    .descending = false},
	[GP_DIFF_COL_TIME_A] = {.name = "time_a", .title = "<time A>",
	    .descending = true},
	[GP_DIFF_COL_TIME_B] = {.name = "time_b", .title = "<time B>",
	    .descending = true},
	[GP_DIFF_COL_DELTA] = {.name = "delta", .title = "<delta>",
	    .descending = true},
	[GP_DIFF_COL_ABS_DELTA] = {.name = "abs_delta", .title = "<|delta|>",
	    .descending = true},
	[GP_DIFF_COL_RATIO] = {.name = "ratio", .title = "<ratio>",
	    .descending = true},
	[GP_DIFF_COL_CALLS_A] = {.name = "calls_a", .title = "<#call A>",
	    .descending = true},
	[GP_DIFF_COL_CALLS_B] = {.name = "calls_b", .title = "<#call B>",
	    .descending = true},
	[GP_DIFF_COL_PER_CALL_A] = {.name = "per_call_a",
	    .title = "<per call A>", .descending = true},
	[GP_DIFF_COL_PER_CALL_B] = {.name = "per_call_b",
	    .title = "<per call B>", .descending = true},
	[GP_DIFF_COL_CHANGE] = {.name = "change", .title = "<change>",
	    .descending = true},
	[GP_DIFF_COL_SIGNIFICANCE] = {.name = "p", .title = "<p>",
	    .descending = false},
	[GP_DIFF_COL_KIND] = {.name = "kind", .title = "<kind>",
	    .descending = false},
};

_Static_assert(sizeof(gp_diff_cols) / sizeof(gp_diff_cols[0]) ==
    GP_DIFF_COL__COUNT, "a title for every column");

static int
cmp_num(double x, double y)
{
	if (x < y)
		return (-1);
	return (x > y ? 1 : 0);
}

static double
col_value(const struct gp_diff_row *r, enum gp_diff_col c)
{
	switch (c) {
	case GP_DIFF_COL_TIME_A:
		return (r->time_a);
	case GP_DIFF_COL_TIME_B:
		return (r->time_b);
	case GP_DIFF_COL_DELTA:
		return (r->delta);
	case GP_DIFF_COL_ABS_DELTA:
		return (fabs(r->delta));
	case GP_DIFF_COL_RATIO:
		return (r->ratio);
	case GP_DIFF_COL_CALLS_A:
		return ((double)r->calls_a);
	case GP_DIFF_COL_CALLS_B:
		return ((double)r->calls_b);
	case GP_DIFF_COL_PER_CALL_A:
		return (r->per_call_a);
	case GP_DIFF_COL_PER_CALL_B:
		return (r->per_call_b);
	case GP_DIFF_COL_CHANGE:
		return (r->change);
	case GP_DIFF_COL_SIGNIFICANCE:
		return (r->p);
	case GP_DIFF_COL_KIND:
		return ((double)r->kind);
	default:
		return (0);
	}
}

/* a against b, NAN last in either direction. */
static int
cmp_val(double a, double b, bool descending)
{
	if (isnan(a) || isnan(b))
		return (isnan(a) - isnan(b));
	return (descending ? cmp_num(b, a) : cmp_num(a, b));
}

int
gp_diff_row_cmp(const struct gp_diff_row *x, const struct gp_diff_row *y,
    enum gp_diff_col c, bool descending)
{
	int v;

	if (c == GP_DIFF_COL_NAME) {
		v = strcmp(x->name, y->name);
		if (descending)
			v = -v;
	} else
		v = cmp_val(col_value(x, c), col_value(y, c), descending);
	if (v != 0)
		return (v);
	if (c != GP_DIFF_COL_ABS_DELTA &&
	    (v = cmp_val(fabs(x->delta), fabs(y->delta), true)) != 0)
		return (v);
	/* apply rows: schedule positions (unique); others: names */
	if ((v = (x->fn_a - y->fn_a)) != 0 || (v = (x->id_a - y->id_a)) != 0)
		return (v);
	if ((v = (x->fn_b - y->fn_b)) != 0 || (v = (x->id_b - y->id_b)) != 0)
		return (v);
	return (c != GP_DIFF_COL_NAME ? strcmp(x->name, y->name) : 0);
}

/* A key that orders doubles as cmp_val does (equal keys: equal values). */
static uint64_t
val_key(double v, bool descending)
{
	uint64_t u;

	if (isnan(v))
		return (UINT64_MAX);
	if (v == 0)
		v = 0;	/* -0 ties with 0 */
	memcpy(&u, &v, sizeof(u));
	u = u >> 63 ? ~u : u | (uint64_t)1 << 63;
	return (descending ? ~u : u);
}

/* A key that orders (fn, id) positions as gp_diff_row_cmp does. */
static uint64_t
pos_key(int fn, int id)
{
	return ((uint64_t)(uint32_t)(fn + 1) << 32 | (uint32_t)(id + 1));
}

/* qsort has no context argument: a thread's sort in progress */
static _Thread_local const struct gp_diff_row *sort_rows;
static _Thread_local enum gp_diff_col sort_col;
static _Thread_local bool sort_desc;

static int
cmp_sort(const void *a, const void *b)
{
	return (gp_diff_row_cmp(&sort_rows[*(const uint32_t *)a],
	    &sort_rows[*(const uint32_t *)b], sort_col, sort_desc));
}

/* Are rows r[0..n) in the order of their positions, A's then B's? */
static bool
by_position(const struct gp_diff_row *r, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		uint64_t a0 = pos_key(r[i - 1].fn_a, r[i - 1].id_a);
		uint64_t a1 = pos_key(r[i].fn_a, r[i].id_a);

		if (a0 > a1 || (a0 == a1 && pos_key(r[i - 1].fn_b,
		    r[i - 1].id_b) > pos_key(r[i].fn_b, r[i].id_b)))
			return (false);
	}
	return (true);
}

/* Do x and y tie on everything gp_diff_row_cmp compares but the name? */
static bool
tied(const struct gp_diff_row *x, const struct gp_diff_row *y,
    enum gp_diff_col c)
{
	return (val_key(col_value(x, c), false) ==
	    val_key(col_value(y, c), false) &&
	    val_key(fabs(x->delta), false) == val_key(fabs(y->delta), false) &&
	    x->fn_a == y->fn_a && x->id_a == y->id_a && x->fn_b == y->fn_b &&
	    x->id_b == y->id_b);
}

/* Stable radix sorts by gp_diff_row_cmp's keys, least significant first;
 * only rows still tied after them (rows of the Class and Ops tables with
 * equal figures) are compared by name: the order of a qsort with
 * gp_diff_row_cmp, at a fraction of its cost on 100,000 rows. */
void
gp_diff_sort(struct gp_diff_table *t, enum gp_diff_col c, bool descending)
{
	const struct gp_diff_row *r = t->rows;
	size_t n = t->n;
	uint32_t *idx = gp_xmalloc(sizeof(*idx) * (n + 1));
	uint64_t *k;
	struct gp_diff_row *v;

	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	sort_rows = t->rows;
	sort_col = c;
	sort_desc = descending;
	if (c == GP_DIFF_COL_NAME)
		qsort(idx, n, sizeof(*idx), cmp_sort);
	else {
		k = gp_xmalloc(sizeof(*k) * (3 * n + 1));
		/* by position (the order gp_diff_compute makes them in) */
		if (!by_position(r, n)) {
			for (size_t i = 0; i < n; i++)
				k[i] = pos_key(r[i].fn_b, r[i].id_b);
			gp_radix_sort(k, idx, n, k + n);
			for (size_t i = 0; i < n; i++)
				k[i] = pos_key(r[i].fn_a, r[i].id_a);
			gp_radix_sort(k, idx, n, k + n);
		}
		if (c != GP_DIFF_COL_ABS_DELTA) {
			for (size_t i = 0; i < n; i++)
				k[i] = val_key(fabs(r[i].delta), true);
			gp_radix_sort(k, idx, n, k + n);
		}
		for (size_t i = 0; i < n; i++)
			k[i] = val_key(col_value(&r[i], c), descending);
		gp_radix_sort(k, idx, n, k + n);
		free(k);
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && tied(&r[idx[i]], &r[idx[j]], c);
			    j++)
				;
			if (j - i > 1)
				qsort(idx + i, j - i, sizeof(*idx), cmp_sort);
		}
	}
	v = gp_xmalloc(sizeof(*v) * (n + 1));
	for (size_t i = 0; i < n; i++)
		v[i] = t->rows[idx[i]];
	memcpy(t->rows, v, sizeof(*v) * n);
	free(v);
	free(idx);
}

/*
 * The report.
 */

static double
sec(double ns)
{
	return (ns / 1e9);
}

static void
fmt_sec(char *buf, size_t n, bool have, double ns)
{
	if (have)
		snprintf(buf, n, "%.3es", sec(ns));
	else
		snprintf(buf, n, "-");
}

static void
fmt_ratio(char *buf, size_t n, const struct gp_diff_row *r)
{
	if (r->kind == GP_DIFF_ADDED)
		snprintf(buf, n, "new");
	else if (r->kind == GP_DIFF_REMOVED)
		snprintf(buf, n, "gone");
	else if (isnan(r->ratio))
		snprintf(buf, n, "-");
	else if (isinf(r->ratio))
		snprintf(buf, n, "inf");
	else
		snprintf(buf, n, "%.2fx", r->ratio);
}

/* "~", "?", "added", "removed", or the change per execution with its p:
 * "+212% p=0.000" (benchstat's style). */
static void
fmt_sig(char *buf, size_t n, const struct gp_diff_row *r)
{
	if (r->verdict == GP_VERDICT_SLOWER || r->verdict ==
	    GP_VERDICT_FASTER)
		snprintf(buf, n, "%+.0f%%%s p=%.3f", 100 * r->rel_change,
		    r->by_round ? "*" : "", r->p);
	else
		snprintf(buf, n, "%s", gp_diff_mark(r));
}

static void
print_name(FILE *fp, const char *name, int room)
{
	int len = (int)strlen(name);

	if (room < 8)
		room = 8;
	if (len <= room)
		fprintf(fp, "%s\n", name);
	else
		fprintf(fp, "%.*s...\n", room - 3, name);
}

static void
describe(FILE *fp, const char *side, const char *label,
    const struct gp_profile *p, const struct gp_capture_info *ci)
{
	fprintf(fp, "  %s: %s: graph %s (%s, hash %016llx)\n", side,
	    label != NULL ? label : "-", p->graph, p->path,
	    (unsigned long long)p->graph_hash);
	if (p->rewrites != NULL && p->rewrites[0] != '\0')
		fprintf(fp, "     rewrites: %s\n", p->rewrites);
	if (p->flags != NULL && p->flags[0] != '\0')
		fprintf(fp, "     flags: %s\n", p->flags);
	if (ci != NULL)
		fprintf(fp, "     captured %s by gptop %s on %s (%d cores), "
		    "%s\n", ci->created ? ci->created : "?", ci->gptop ?
		    ci->gptop : "?", ci->cpu ? ci->cpu : "?", ci->cores,
		    ci->blas ? ci->blas : "?");
}

static void
global_line(FILE *fp, const char *what, bool ha, double a, bool hb, double b,
    bool bytes)
{
	char sa[32], sb[32], sd[32], sr[16];

	if (bytes) {
		if (ha)
			gp_fmt_bytes(sa, sizeof(sa), a);
		else
			snprintf(sa, sizeof(sa), "-");
		if (hb)
			gp_fmt_bytes(sb, sizeof(sb), b);
		else
			snprintf(sb, sizeof(sb), "-");
		if (ha && hb) {
			gp_fmt_bytes(sd + 1, sizeof(sd) - 1, fabs(b - a));
			sd[0] = b < a ? '-' : '+';
		} else
			snprintf(sd, sizeof(sd), "-");
	} else {
		fmt_sec(sa, sizeof(sa), ha, a);
		fmt_sec(sb, sizeof(sb), hb, b);
		if (ha && hb)
			snprintf(sd, sizeof(sd), "%+.3es", sec(b - a));
		else
			snprintf(sd, sizeof(sd), "-");
	}
	if (ha && hb && a > 0)
		snprintf(sr, sizeof(sr), "%.2fx", b / a);
	else
		snprintf(sr, sizeof(sr), "-");
	fprintf(fp, "    %-26s %12s  %12s  %13s  %7s\n", what, sa, sb, sd, sr);
}

static void
count_line(FILE *fp, const char *what, bool ha, uint64_t a, bool hb,
    uint64_t b)
{
	char sa[32], sb[32], sd[32];

	snprintf(sa, sizeof(sa), ha ? "%llu" : "-", (unsigned long long)a);
	snprintf(sb, sizeof(sb), hb ? "%llu" : "-", (unsigned long long)b);
	if (ha && hb)
		snprintf(sd, sizeof(sd), "%+lld", (long long)b - (long long)a);
	else
		snprintf(sd, sizeof(sd), "-");
	fprintf(fp, "    %-26s %12s  %12s  %13s\n", what, sa, sb, sd);
}

static void
global_section(FILE *fp, const struct gp_diff *d)
{
	const struct gp_profile *a = d->a, *b = d->b;
	const struct gp_diff_table *t = &d->applies;

	fprintf(fp, "Global\n------\n");
	fprintf(fp, "    %-26s %12s  %12s  %13s  %7s\n", "", "A", "B",
	    "delta", "ratio");
	for (int f = 0; f < d->n_fn; f++) {
		const struct gp_diff_fn *df = &d->fn[f];
		const struct gp_diff_row *c = &df->call;
		bool ha = df->fn_a >= 0, hb = df->fn_b >= 0;
		char sig[40];

		fprintf(fp, "  Function %s%s\n", df->name, !ha ?
		    " (only in B)" : !hb ? " (only in A)" : "");
		count_line(fp, "Calls", ha, c->calls_a, hb, c->calls_b);
		global_line(fp, "Time in calls", ha, c->time_a, hb, c->time_b,
		    false);
		global_line(fp, "Time per call (mean)", ha && c->calls_a,
		    c->per_call_a, hb && c->calls_b, c->per_call_b, false);
		fmt_sig(sig, sizeof(sig), c);
		fprintf(fp, "    %-26s %12s  %12s  %13s  %s\n",
		    "  noise test", "", "", "", sig);
		global_line(fp, "Time per call (median)", ha && c->calls_a,
		    c->median_a, hb && c->calls_b, c->median_b, false);
		global_line(fp, "Time in Function.vm", ha, (double)df->vm_a,
		    hb, (double)df->vm_b, false);
		global_line(fp, "Time in thunks", ha, (double)df->thunk_a, hb,
		    (double)df->thunk_b, false);
		global_line(fp, "First call", ha, (double)df->first_a, hb,
		    (double)df->first_b, false);
		count_line(fp, "Number of Apply nodes", ha,
		    (uint64_t)df->n_apply_a, hb, (uint64_t)df->n_apply_b);
		global_line(fp, "Measured peak", ha,
		    (double)df->mem_peak_a, hb, (double)df->mem_peak_b, true);
		if (df->mem_pred_a != 0 || df->mem_pred_b != 0) {
			global_line(fp, "Predicted peak",
			    df->mem_pred_a != 0, (double)df->mem_pred_a,
			    df->mem_pred_b != 0, (double)df->mem_pred_b, true);
			global_line(fp, "Intermediates peak",
			    df->mem_pred_a != 0, (double)df->mem_inter_a,
			    df->mem_pred_b != 0, (double)df->mem_inter_b, true);
		}
		if (ha && hb && c->calls_a != c->calls_b &&
		    !d->opts.per_call)
			fprintf(fp, "    Note: the call counts differ: "
			    "compare the per-call columns, not the totals\n");
	}
	fprintf(fp, "  Compilation\n");
	global_line(fp, "Load time", true, a->load_ns, true, b->load_ns,
	    false);
	global_line(fp, "Rewrite time", true, a->rewrite_ns, true,
	    b->rewrite_ns, false);
	global_line(fp, "Linker time", true, a->link_ns, true, b->link_ns,
	    false);
	global_line(fp, "Total compilation time", true, a->load_ns +
	    a->rewrite_ns + a->link_ns, true, b->load_ns + b->rewrite_ns +
	    b->link_ns, false);
	fprintf(fp, "  Applies: %zu paired (%zu by structure, %zu by apply "
	    "name, %zu by shape, %zu by position), %zu added, %zu removed; "
	    "%zu changed beyond noise\n\n", t->n_paired,
	    d->n_match[GP_MATCH_STRUCTURE], d->n_match[GP_MATCH_APPLY_NAME],
	    d->n_match[GP_MATCH_SHAPE], d->n_match[GP_MATCH_LOOSE],
	    t->n_added, t->n_removed, t->n_significant);
}

static void
table_section(FILE *fp, const struct gp_diff *d, const char *title,
    const char *what, const struct gp_diff_table *t, int limit, bool apply,
    int width)
{
	double rest = 0;
	size_t shown = 0;
	char ta[32], tb[32];

	gp_fmt_time(ta, sizeof(ta), t->total_a);
	gp_fmt_time(tb, sizeof(tb), t->total_b);
	fprintf(fp, "%s\n%.*s\n", title, (int)strlen(title),
	    "------------------------");
	fprintf(fp, "Times are %s (thunks: A %s, B %s); delta = B - A; ~ "
	    "marks a change within noise.\n", d->opts.per_call ?
	    "per call of the function" : "totals over all calls", ta, tb);
	fprintf(fp, "<time A> <time B> <delta> <ratio> <per call A> "
	    "<per call B> <#call A> <#call B> <noise> <%s name>\n", what);
	for (size_t i = 0; i < t->n; i++) {
		const struct gp_diff_row *r = &t->rows[i];
		bool ha = r->kind != GP_DIFF_ADDED;
		bool hb = r->kind != GP_DIFF_REMOVED;
		char sa[24], sb[24], pa[24], pb[24], ca[24], cb[24];
		char sr[16], sg[40];
		struct gp_buf name = {0};

		if ((int)shown >= limit) {
			rest += fabs(r->delta);
			continue;
		}
		shown++;
		fmt_sec(sa, sizeof(sa), ha, r->time_a);
		fmt_sec(sb, sizeof(sb), hb, r->time_b);
		fmt_sec(pa, sizeof(pa), ha, r->per_call_a);
		fmt_sec(pb, sizeof(pb), hb, r->per_call_b);
		snprintf(ca, sizeof(ca), ha ? "%llu" : "-",
		    (unsigned long long)r->calls_a);
		snprintf(cb, sizeof(cb), hb ? "%llu" : "-",
		    (unsigned long long)r->calls_b);
		fmt_ratio(sr, sizeof(sr), r);
		fmt_sig(sg, sizeof(sg), r);
		fprintf(fp, "  %11s  %11s  %+11.3es  %6s  %10s  %10s  %6s  "
		    "%6s  %-14s  ", sa, sb, sec(r->delta), sr, pa, pb, ca, cb,
		    sg);
		if (apply && d->n_fn > 1)
			gp_buf_printf(&name, "%s: ", r->fn_name);
		gp_buf_puts(&name, r->name);
		if (r->name_a != NULL)
			gp_buf_printf(&name, "  [A: %s]", r->name_a);
		print_name(fp, gp_buf_str(&name), width - 119);
		gp_buf_free(&name);
	}
	fprintf(fp, "   ... (remaining %zu %s rows account for %.3es of "
	    "|delta|)\n\n", t->n - shown, what, sec(rest));
}

void
gp_diff_report(FILE *fp, const struct gp_diff *d,
    const struct gp_diff_report_opts *o)
{
	fprintf(fp, "Profile diff\n============\n");
	describe(fp, "A", o->label_a, d->a, o->info_a);
	describe(fp, "B", o->label_b, d->b, o->info_b);
	if (!d->same_graph)
		fprintf(fp, "  Note: A and B are different graphs (the hashes "
		    "differ): applies are paired by structure and name\n");
	else if (!d->same_rewrites)
		fprintf(fp, "  Note: different rewrite sets: applies are "
		    "paired by structure; the rest are added or removed\n");
	if (!d->same_clock)
		fprintf(fp, "  Note: different clocks (%s, %s)\n",
		    d->a->clock.source, d->b->clock.source);
	if (o->info_a != NULL && o->info_b != NULL && o->info_a->cpu !=
	    NULL && o->info_b->cpu != NULL && strcmp(o->info_a->cpu,
	    o->info_b->cpu) != 0)
		fprintf(fp, "  Note: captured on different CPUs\n");
	fprintf(fp, "  Noise: Mann-Whitney U on the per-execution "
	    "histograms; a change needs p < %g (adjusted for the rows of "
	    "the table, Benjamini-Hochberg), a change of at least %g%% and "
	    "%.3gns per execution, and %d executions a side.  Class and "
	    "Ops rows whose applies differ are judged by the time per round "
	    "(Welch; marked *).\n", d->opts.alpha,
	    100 * d->opts.min_change, d->floor_ns, d->opts.min_samples);
	if (d->opts.same_load)
		fprintf(fp, "  A and B ran interleaved, under the same load: "
		    "changes are judged as they are.\n\n");
	else {
		fprintf(fp, "  Common factor: B's applies took %.3gx A's time "
		    "(the median ratio over %zu paired applies).  Captures run "
		    "at different times see the machine's drift on every row, "
		    "and a change alike to every row cannot be told from it: "
		    "each row is judged on B's times divided by %.3g, and the "
		    "change shown is the one left.", d->factor,
		    d->n_factor, d->factor);
		if (d->n_factor_blas > 0)
			fprintf(fp, "  BLAS rows drift on their own (OpenBLAS's "
			    "threads wait for a core): B's BLAS applies took "
			    "%.3gx A's time (over %zu), what BLAS rows are "
			    "judged against.", d->factor_blas,
			    d->n_factor_blas);
		fprintf(fp, "  A row's executions share its capture's state: "
		    "its change must also stand out from their spread (capture "
		    "scale %.3g).\n\n", d->capture_scale);
	}
	global_section(fp, d);
	table_section(fp, d, "Class", "Class", &d->cls, o->n_ops, false,
	    o->width);
	table_section(fp, d, "Ops", "Op", &d->ops, o->n_ops, false, o->width);
	table_section(fp, d, "Apply", "Apply", &d->applies, o->n_apply, true,
	    o->width);
}
