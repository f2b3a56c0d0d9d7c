/*
 * diff-noise.c: the noise verdicts of the diff (diff.h): the U test, the
 * Benjamini-Hochberg adjustment over a table's rows, the gates a change
 * must pass (least change, absolute floor, the median's move, enough
 * executions), the factors of B's times over A's for captures taken
 * apart (the common one, the BLAS rows' own) with the spread of the rows
 * around them, the capture-level test, the judging of rows by round, and
 * the marks.  doc/capture-format.md ("Diff") says why each is there.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/radix.h"
#include "base/util.h"
#include "capture/diff-impl.h"
#include "capture/diff.h"

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
/* Captures taken apart, fewer than 3 applies long enough for a factor:
 * the drift is not known from the rows, so it is taken as 1 with this
 * spread of the log ratio: a CPU-bound op's time moves by up to 2x (two
 * standard deviations) from one capture to the next on a loaded 2-core
 * machine, when another process shares its core (tests/extern's
 * test-diff-real.sh, bench/noise-aa.sh). */
#define SPREAD_APART 0.35

/* Are bins i to i + 7 of s empty? */
static inline bool
empty8(const struct gp_prof_stat *s, int i)
{
	uint32_t any = 0;

	if (i >= s->lo + s->nb || i + 8 <= s->lo)
		return (true);
	if (i >= s->lo && i + 8 <= s->lo + s->nb) {
		const uint32_t *c = s->bin + (i - s->lo);

		for (int j = 0; j < 8; j++)
			any |= c[j];
		return (any == 0);
	}
	for (int j = 0; j < 8; j++)
		any |= gp_prof_stat_count(s, i + j);
	return (any == 0);
}

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
		/* eight bins at a time while both sides' are empty (most
		 * are: a few samples spread over many bins) */
		while (i + 8 <= hi + 1 && empty8(a, i) && empty8(b, i))
			i += 8;
		if (i > hi)
			break;
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

void
gp_diff_adjust(const double *p, double *q, size_t n)
{
	uint64_t *k = gp_xmalloc(sizeof(*k) * (3 * n + 1));
	uint32_t *idx = gp_xmalloc(sizeof(*idx) * (n + 1));
	size_t m = 0;
	double run = 1;

	/* the hypotheses by p ascending, ties in index order (a stable
	 * radix sort: 100,000 rows' p in a few passes) */
	for (size_t i = 0; i < n; i++) {
		k[i] = gp_diff_dkey(p[i]);
		if (!isnan(p[i]))
			idx[m++] = (uint32_t)i;
	}
	gp_radix_sort(k, idx, m, k + n);
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			q[i] = NAN;
	/* from the largest p down: the running minimum of p * m / rank,
	 * never below p itself (it is not, but for rounding: p * m / m
	 * can come out an ulp under p) */
	for (size_t r = m; r-- > 0;) {
		double a = p[idx[r]] * (double)m / (double)(r + 1);

		if (a < run)
			run = a;
		q[idx[r]] = fmax(run, p[idx[r]]);
	}
	free(k);
	free(idx);
}

/* A table's p adjusted over its rows; a change whose adjusted p is not
 * below alpha is within noise after all. */
void
gp_diff_adjust_rows(struct gp_diff_row *rows, size_t n, size_t stride,
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

/* Sort v[0..k) ascending (no NAN among them): by a radix sort of their
 * keys, which orders 100,000 values in a few passes. */
static void
sort_doubles(double *v, size_t k)
{
	uint64_t *key = gp_xmalloc(sizeof(*key) * (3 * k + 1));
	uint32_t *idx = gp_xmalloc(sizeof(*idx) * (k + 1));
	double *out = (double *)(void *)(key + k);	/* after the sort */

	for (size_t i = 0; i < k; i++) {
		key[i] = gp_diff_dkey(v[i]);
		idx[i] = (uint32_t)i;
	}
	gp_radix_sort(key, idx, k, key + k);
	for (size_t i = 0; i < k; i++)
		out[i] = v[idx[i]];
	memcpy(v, out, sizeof(*v) * k);
	free(key);
	free(idx);
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
 * table comes after, gp_diff_adjust_rows). */
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

static double	drift_p(const struct gp_diff *d,
		    const struct gp_diff_row *r, double a, double b);
static double	capture_p(const struct gp_diff *d,
		    const struct gp_diff_row *r);

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
void
gp_diff_row_figures(struct gp_diff_row *r, bool same_load)
{
	static const struct gp_prof_stat none;

	stat_figures(r->st_a ? r->st_a : &none, &r->median_a, &r->spread_a);
	stat_figures(r->st_b ? r->st_b : &none, &r->median_b, &r->spread_b);
	/* the U test while the bins are at hand (gp_diff_judge takes it),
	 * unless capture_p will be 1 whatever capture_scale (captures
	 * taken apart, a median 0 or a spread unknown: under 4 executions
	 * a side), and with it the row's p: the test has no say (a group
	 * row's p is its own, but one may fall back on the test) */
	if (r->kind != GP_DIFF_PAIRED)
		r->p_raw = NAN;
	else if (!same_load && r->match != GP_MATCH_SOURCES &&
	    (!(r->median_a > 0 && r->median_b > 0) || isnan(r->spread_a) ||
	    isnan(r->spread_b)))
		r->p_raw = 1;
	else
		r->p_raw = gp_diff_utest(r->st_a ? r->st_a : &none, r->st_b ?
		    r->st_b : &none);
}

/* A row judged by round shows what it is judged on: its time per round
 * (call of the function) and the rounds, not the time per execution of
 * applies that are not alike (a fused apply against the ten it fused:
 * per execution, the fused one would read 8x slower). */
static void
per_round(struct gp_diff_row *r, double ta, double tb, uint64_t ra,
    uint64_t rb)
{
	if (r->calls_a > 0) {
		r->per_call_a = ta;
		r->calls_a = ra;
	}
	if (r->calls_b > 0) {
		r->per_call_b = tb;
		r->calls_b = rb;
	}
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
	per_round(r, ta, tb, ra, rb);
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

/* The mean and the variance of one side's time per round in a group: its
 * members' executions per round times their means, summed, and the same
 * with their variances (members vary apart: the variance of a sum of
 * independent times, not of the members' executions pooled, whose spread
 * is mostly how the members differ). */
static void
group_round(const struct gp_prof_fn *f, const int *ids, int n,
    uint64_t rounds, double *mean, double *var)
{
	*mean = *var = 0;
	for (int i = 0; i < n; i++) {
		const struct gp_prof_stat *s = &f->ap[ids[i]].st;
		double m, v, e = (double)s->n / (double)rounds;

		if (s->n == 0)
			continue;
		stat_moments(s, &m, &v);
		*mean += (double)s->total / (double)rounds;
		*var += e * v;
	}
}

/* A group row (diff-prov.c): its members' time per round, A against B
 * (Welch, as judge_by_round), the drift of the runs as for any row. */
static void
judge_group(const struct gp_diff *d, struct gp_diff_row *r)
{
	const struct gp_diff_group *g = &d->groups[r->group];
	double ta, va, tb, vb, se, z, m = r->factor;
	uint64_t ra = d->rounds_a, rb = d->rounds_b;

	if (ra == 0 || rb == 0 || r->fn_a < 0 || r->fn_b < 0) {
		r->by_round = false;
		return;
	}
	group_round(&d->a->fn[r->fn_a], g->id_a, g->n_a, ra, &ta, &va);
	group_round(&d->b->fn[r->fn_b], g->id_b, g->n_b, rb, &tb, &vb);
	r->by_round = true;
	per_round(r, ta, tb, ra, rb);
	r->change = ta > 0 ? (tb - ta) / ta : NAN;
	r->rel_change = ta > 0 ? (tb / m - ta) / ta : NAN;
	se = sqrt(va / (double)ra + vb / (m * m * (double)rb));
	z = fabs(tb / m - ta);
	r->p_raw = se > 0 ? erfc(z / se / M_SQRT2) : z > 0 ? 0 : 1;
	r->p_raw = fmax(r->p_raw, drift_p(d, r, ta, tb));
	r->p = r->p_raw;
	r->verdict = verdict_of(&d->opts, r->rel_change, NAN, z, NAN,
	    d->floor_ns * (double)(g->n_a > g->n_b ? g->n_a : g->n_b),
	    ra < rb ? ra : rb, r->p_raw);
}

/* Fill the derived figures of r from its two distributions (r->st_a,
 * r->st_b; its medians and spreads too unless have_figures: gp_diff_row_figures
 * ran); then scale its times (per call of the function, with
 * opts.per_call).  The floor is floor_mult times d->floor_ns. */
void
gp_diff_judge(const struct gp_diff *d, struct gp_diff_row *r, double scale_a,
    double scale_b, double floor_mult, bool have_figures)
{
	static const struct gp_prof_stat none;
	const struct gp_prof_stat *sa = r->st_a ? r->st_a : &none;
	const struct gp_prof_stat *sb = r->st_b ? r->st_b : &none;
	double m = r->factor, mrel, u;
	uint64_t few;

	r->per_call_a = r->calls_a ? r->time_a / (double)r->calls_a : 0;
	r->per_call_b = r->calls_b ? r->time_b / (double)r->calls_b : 0;
	r->time_a *= scale_a;
	r->time_b *= scale_b;
	if (!have_figures)
		gp_diff_row_figures(r, d->opts.same_load);
	u = r->p_raw;
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
	if (r->match == GP_MATCH_SOURCES) {
		judge_group(d, r);
		if (r->by_round)
			return;
	}
	if (r->by_round) {
		judge_by_round(d, r, sa, sb);
		if (r->by_round)
			return;
	}
	r->p = r->p_raw = fmax(fmax(u, drift_p(d, r,
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

	sort_doubles(v, k);
	f = median_of(v, k);
	for (size_t i = 0; i < k; i++)
		v[i] = fabs(v[i] - f);
	sort_doubles(v, k);
	*median = f;
	*spread = k >= 3 ? fmax(1.4826 * median_of(v, k), SPREAD_MIN) :
	    INFINITY;
}

/* The factors of B's times over A's (captures taken apart): the median,
 * over the paired applies with enough executions a side, of the ratio of
 * their median times per execution (gp_diff_row_figures ran), the BLAS applies
 * apart when there are BLAS_MIN of them (struct gp_diff); 1 with
 * opts.same_load or no such apply.  Then the spread of those ratios
 * around them, each apply row's factor, and capture_scale. */
void
gp_diff_factors(struct gp_diff *d, struct gp_diff_row *rows, size_t n)
{
	double *v, *w, *c, *vs, lf[2] = {0, 0}, sp[2] = {INFINITY, INFINITY};
	double lfs = 0, sps = INFINITY;
	double least = GP_DIFF_FACTOR_MIN_FLOORS * d->floor_ns;
	bool *blas;
	size_t k = 0, kg[2] = {0, 0}, m = 0, ks = 0;
	bool apart;

	v = gp_xmalloc(sizeof(*v) * (n + 1));
	w = gp_xmalloc(sizeof(*w) * (n + 1));
	c = gp_xmalloc(sizeof(*c) * (n + 1));
	vs = gp_xmalloc(sizeof(*vs) * (n + 1));
	blas = gp_xmalloc(sizeof(*blas) * (n + 1));
	for (size_t i = 0; i < n; i++) {
		struct gp_diff_row *r = &rows[i];
		double ma = r->median_a, mb = r->median_b;

		/* a group row's executions are not alike (and it is
		 * judged by round) */
		r->brief = false;
		if (r->kind != GP_DIFF_PAIRED || r->match == GP_MATCH_SOURCES ||
		    r->st_a->n <
		    (uint64_t)d->opts.min_samples || r->st_b->n <
		    (uint64_t)d->opts.min_samples || !(ma > 0 && mb > 0))
			continue;
		if (!d->opts.same_load && ma < least && mb < least) {
			r->brief = true;
			vs[ks++] = log(mb / ma);
			continue;
		}
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
	if (ks > 0) {
		/* brief rows move more between captures than a slower
		 * machine explains: at least what the load gives one row */
		drift_of(vs, ks, &lfs, &sps);
		sps = fmax(sps, SPREAD_APART);
	}
	d->n_factor = apart ? kg[0] : k;
	d->n_factor_blas = apart ? kg[1] : 0;
	d->n_factor_brief = ks;
	if (!d->opts.same_load && d->n_factor < 3) {
		/* the rows do not tell the drift: none assumed, and the
		 * spread a loaded machine gives one row */
		lf[0] = 0;
		sp[0] = SPREAD_APART;
	}
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
	d->factor_brief = exp(lfs);
	d->spread_brief = sps;
	for (size_t i = 0; i < n; i++)
		rows[i].factor = rows[i].brief ? d->factor_brief :
		    rows[i].blas ? d->factor_blas : d->factor;
	/* how far each moved from its factor, in its spreads within (NAN
	 * spreads are left out) */
	for (size_t i = 0; i < k; i++)
		if (!isnan(w[i]))
			w[m++] = fabs(v[i] - lf[apart && blas[i]]) / w[i];
	d->capture_scale = d->opts.same_load ? 0 : CAPTURE_SCALE_MIN;
	if (m >= 3 && !d->opts.same_load) {
		sort_doubles(w, m);
		d->capture_scale = fmax(1.4826 * median_of(w, m),
		    CAPTURE_SCALE_MIN);
	}
	free(v);
	free(w);
	free(c);
	free(vs);
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
	double spread = r->brief ? d->spread_brief : r->blas ?
	    d->spread_blas : d->spread;

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
	if (r->parent != NULL)	/* a member of an expanded group */
		return (r->kind == GP_DIFF_ADDED ? "in B" : "in A");
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
