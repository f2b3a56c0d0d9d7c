/*
 * test-profile.c: the profiler's arithmetic on profiles built by hand:
 * histogram bins, quantiles against the exact quantiles of the samples,
 * merges and copies, format-1 bins, folding tick stamps (probe cost, the first
 * call kept apart), rollups by class / op / apply (percentages, Gflops/s,
 * sort order), and the flag parser.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "base/flags.h"
#include "prof/profile.h"
#include "base/radix.h"

/* splitmix64: the tests' own generator, so the samples are fixed */
static uint64_t
mix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (z ^ (z >> 31));
}

static double
unif(uint64_t *x)	/* (0, 1) */
{
	return (((double)(mix(x) >> 11) + 0.5) / 9007199254740992.0);
}

static void
test_bins(void)
{
	bool inside = true, tiled = true, narrow = true;

	/* the layout: every time in its bin, the bins tiling 0..2^64-1,
	 * each at most 1/32 of its lower edge wide from 32 ns up */
	for (uint64_t ns = 1; ns < ((uint64_t)1 << 60); ns += ns / 8 + 1)
		for (uint64_t v = ns - 1; v <= ns + 1; v++) {
			int b = gp_prof_bin(v);

			if (!(gp_prof_bin_lo(b) <= v && v - gp_prof_bin_lo(b) <
			    gp_prof_bin_width(b)))
				inside = false;
		}
	for (int b = 0; b + 1 < GP_PROF_NBINS; b++) {
		if (gp_prof_bin_lo(b + 1) != gp_prof_bin_lo(b) +
		    gp_prof_bin_width(b) || gp_prof_bin(gp_prof_bin_lo(b)) != b)
			tiled = false;
		if (b >= 32 && gp_prof_bin_width(b) * 32 > gp_prof_bin_lo(b))
			narrow = false;
	}
	ok(inside, "every time falls inside its bin");
	ok(tiled, "the bins tile the times, each starting where the last "
	    "ended");
	ok(narrow, "from 32 ns up a bin is at most 1/32 of its lower edge "
	    "wide");
	is_int(gp_prof_bin(0), 0, "0 ns: bin 0");
	is_int(gp_prof_bin(63), 63, "63 ns: bin 63 (a bin per ns below 64)");
	is_int(gp_prof_bin(64), 64, "64 ns: bin 64");
	is_int(gp_prof_bin(65), 64, "65 ns: bin 64 (2 ns wide)");
	/* 512..1023 ns: bins 16 ns wide, from bin (9 - 5) x 32 + 512 / 16 */
	is_int(gp_prof_bin(1000), 4 * 32 + 1000 / 16, "1000 ns: bin 190");
	is_int((long long)gp_prof_bin_lo(190), 992, "bin 190 from 992 ns");
	is_int(gp_prof_bin(UINT64_MAX), GP_PROF_NBINS - 1,
	    "2^64 - 1 ns: the last bin");
	ok(gp_prof_bin_lo(GP_PROF_NBINS - 1) + (gp_prof_bin_width(
	    GP_PROF_NBINS - 1) - 1) == UINT64_MAX, "the last bin ends at "
	    "2^64 - 1");
	/* the coarse layout (format 1, the detail view) */
	is_int(gp_prof_coarse_bin(7), 0, "coarse: below 8 ns: bin 0");
	is_int(gp_prof_coarse_bin(11), 0, "coarse: 11 ns: bin 0");
	is_int(gp_prof_coarse_bin(12), 1, "coarse: 12 ns: bin 1");
	is_int(gp_prof_coarse_bin(16), 2, "coarse: 16 ns: bin 2");
	is_double(gp_prof_coarse_lo(15), 1536, 0, "coarse: bin 15 from "
	    "1536 ns");
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

enum dist { D_LOGNORMAL, D_UNIFORM, D_CONST, D_OCTAVES, D_SMALL, D_TWO,
	D__N };
static const char *const dist_name[D__N] = {"lognormal", "uniform",
	"constant", "log-uniform over 40 octaves", "0 to 63 ns", "bimodal"};

static uint64_t
draw(enum dist d, uint64_t *x)
{
	double u = unif(x), v;

	switch (d) {
	case D_LOGNORMAL:	/* median 5 us, sigma 1 (Box-Muller) */
		v = sqrt(-2 * log(u)) * cos(2 * M_PI * unif(x));
		return ((uint64_t)(5000 * exp(v)));
	case D_UNIFORM:
		return (1000 + (uint64_t)(u * 1000));
	case D_CONST:
		return (777777);
	case D_OCTAVES:
		return ((uint64_t)exp2(u * 40));
	case D_SMALL:
		return ((uint64_t)(u * 64));
	case D_TWO:
		return (unif(x) < 0.9 ? 300 + (uint64_t)(u * 20) :
		    90000 + (uint64_t)(u * 5000));
	default:
		return (0);
	}
}

/* Quantiles against the exact quantile of the samples (sorted, the
 * sample of rank ceil(q n), at least 1): within the documented bound,
 * 1/64 of it, exact where the bins are 1 ns wide and at q = 0 and 1. */
static void
test_quantiles(void)
{
	/* q in thousandths, so ranks are computed in integers */
	static const int qm[] = {0, 1, 10, 250, 500, 900, 950, 990, 999,
		1000};
	static const int sizes[] = {1, 2, 3, 7, 20, 100, 1001, 20000};
	enum { NQ = sizeof(qm) / sizeof(qm[0]) };
	double qs[NQ], worst = 0, worst50 = 0, worst95 = 0, worst99 = 0;
	bool bound = true, exact = true, ends = true, one = true;

	for (int k = 0; k < NQ; k++)
		qs[k] = qm[k] / 1000.0;
	for (int d = 0; d < D__N; d++)
		for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			int n = sizes[z];
			uint64_t *v = malloc(sizeof(*v) * (size_t)n);
			uint64_t seed = 1000 * (uint64_t)d + (uint64_t)z;
			struct gp_prof_stat s = {0};
			double got[NQ];

			for (int i = 0; i < n; i++) {
				v[i] = draw((enum dist)d, &seed);
				gp_prof_stat_add(&s, v[i]);
			}
			qsort(v, (size_t)n, sizeof(*v), cmp_u64);
			gp_prof_stat_quantiles(&s, qs, got, NQ);
			for (int k = 0; k < NQ; k++) {
				long long r = ((long long)qm[k] * n + 999) /
				    1000;
				double want = (double)v[r < 1 ? 0 : r - 1];
				double err = fabs(got[k] - want);

				if (got[k] != gp_prof_stat_quantile(&s, qs[k]))
					one = false;
				if (err > want / 64) {
					bound = false;
					diag("%s, n %d, q %.3f: %.1f for %.0f",
					    dist_name[d], n, qs[k], got[k],
					    want);
				}
				if (want < 64 && err != 0)
					exact = false;
				if ((qm[k] == 0 || qm[k] == 1000) && err != 0)
					ends = false;
				if (want > 0 && err / want > worst)
					worst = err / want;
				if (qm[k] == 500 && want > 0 &&
				    err / want > worst50)
					worst50 = err / want;
				if (qm[k] == 950 && want > 0 &&
				    err / want > worst95)
					worst95 = err / want;
				if (qm[k] == 990 && want > 0 &&
				    err / want > worst99)
					worst99 = err / want;
			}
			free(v);
			gp_prof_stat_free(&s);
		}
	ok(bound, "p0..p100 of %d sample sets within 1/64 (1.5625%%) of "
	    "the exact quantile (worst %.3f%%; p50 %.3f%%, p95 %.3f%%, "
	    "p99 %.3f%%)", D__N * 8, 100 * worst, 100 * worst50,
	    100 * worst95, 100 * worst99);
	ok(exact, "exact below 64 ns");
	ok(ends, "q = 0 and q = 1 are min and max");
	ok(one, "one quantile at a time gives the same figures as a pass");
	{
		struct gp_prof_stat s = {0};

		ok(gp_prof_stat_quantile(&s, 0.5) == 0, "empty: 0");
		gp_prof_stat_add_n(&s, 123456789, 1000);
		ok(gp_prof_stat_quantile(&s, 0.95) == 123456789, "a constant, "
		    "added 1000 at once: exact");
		gp_prof_stat_free(&s);
	}
}

/* The stat of samples split in parts and merged is the stat of them all,
 * bin for bin, in any order; a copy is equal; clear empties. */
static void
test_merge(void)
{
	bool same = true, copies = true;

	for (int d = 0; d < D__N; d++) {
		uint64_t seed = 77 + (uint64_t)d, pick = 5 + (uint64_t)d;
		struct gp_prof_stat all = {0}, part[3] = {{0}}, m = {0},
		    m2 = {0}, c = {0};

		for (int i = 0; i < 5000; i++) {
			uint64_t v = draw((enum dist)d, &seed);

			gp_prof_stat_add(&all, v);
			gp_prof_stat_add(&part[mix(&pick) % 3], v);
		}
		for (int k = 0; k < 3; k++)
			gp_prof_stat_merge(&m, &part[k]);
		for (int k = 2; k >= 0; k--)
			gp_prof_stat_merge(&m2, &part[k]);
		if (!gp_prof_stat_equal(&m, &all) ||
		    !gp_prof_stat_equal(&m2, &all))
			same = false;
		/* into a stat holding another window, and from it */
		gp_prof_stat_add(&c, 3);
		gp_prof_stat_add(&c, (uint64_t)1 << 50);
		gp_prof_stat_copy(&c, &all);
		if (!gp_prof_stat_equal(&c, &all))
			copies = false;
		gp_prof_stat_copy(&c, &part[0]);
		if (!gp_prof_stat_equal(&c, &part[0]))
			copies = false;
		gp_prof_stat_clear(&c);
		if (c.n != 0 || gp_prof_stat_quantile(&c, 0.5) != 0)
			copies = false;
		for (int k = 0; k < 3; k++)
			gp_prof_stat_free(&part[k]);
		gp_prof_stat_free(&all);
		gp_prof_stat_free(&m);
		gp_prof_stat_free(&m2);
		gp_prof_stat_free(&c);
	}
	/* many stats of a few samples, a slow first one hundreds of bins
	 * above the rest (an apply's executions in a short capture):
	 * merge reads the bins up to the last's count, then the last */
	for (int d = 0; d < D__N; d++) {
		uint64_t seed = 991 + (uint64_t)d, pick = 3 + (uint64_t)d;
		struct gp_prof_stat all = {0}, m = {0};

		for (int k = 0; k < 300; k++) {
			struct gp_prof_stat one = {0};
			int n = 1 + (int)(mix(&pick) % 6);

			for (int i = 0; i < n; i++) {
				uint64_t v = draw((enum dist)d, &seed);

				if (i == 0 && k % 2 == 0)
					v = v * 50 + 7;
				gp_prof_stat_add(&all, v);
				gp_prof_stat_add(&one, v);
			}
			gp_prof_stat_merge(&m, &one);
			gp_prof_stat_free(&one);
		}
		if (!gp_prof_stat_equal(&m, &all))
			same = false;
		gp_prof_stat_free(&all);
		gp_prof_stat_free(&m);
	}
	ok(same, "merged parts equal the stat of all the samples, bin for "
	    "bin, in either order, and 300 stats of 1 to 6 samples each");
	ok(copies, "copies are equal, over any window; clear empties");
}

/* Format-1 captures' coarse bins, spread over the bins they cover: the
 * counts kept, inside the coarse bin and [min, max], the quantiles what
 * interpolating in the coarse bin gave. */
static void
test_coarse(void)
{
	struct gp_prof_stat s = {0};
	uint64_t h[GP_PROF_COARSE];
	bool in = true;
	int b0 = -1, b1 = -1;

	/* 1000 samples 1000..1999 ns: coarse bins 13 (24), 14 (512), 15
	 * (464) */
	s.n = 1000;
	s.min = 1000;
	s.max = 1999;
	s.total = 1499500;
	gp_prof_stat_put_coarse(&s, 13, 24);
	gp_prof_stat_put_coarse(&s, 14, 512);
	gp_prof_stat_put_coarse(&s, 15, 464);
	is_int((long long)s.hn, 1000, "coarse: every count kept");
	gp_prof_stat_coarse(&s, h);
	ok(h[13] == 24 && h[14] == 512 && h[15] == 464, "coarse: read back "
	    "as they were");
	for (int b = 0; b < GP_PROF_NBINS; b++)
		if (gp_prof_stat_count(&s, b) != 0) {
			if (b0 < 0)
				b0 = b;
			b1 = b;
		}
	ok(b0 == gp_prof_bin(1000) && b1 == gp_prof_bin(1999),
	    "coarse: spread within [min, max] (bins %d to %d)", b0, b1);
	for (int b = gp_prof_bin(1536); b <= gp_prof_bin(1999); b++)
		if (gp_prof_stat_count(&s, b) < 30 ||
		    gp_prof_stat_count(&s, b) > 31)
			in = false;
	ok(in, "coarse: 464 spread evenly over 15 bins (30 or 31 each)");
	/* interpolation in the coarse bins gave 1500 and 1949 */
	is_double(gp_prof_stat_quantile(&s, 0.5), 1500, 1500 / 32.0,
	    "coarse: median as interpolated, within a bin");
	is_double(gp_prof_stat_quantile(&s, 0.95), 1949, 1949 / 32.0,
	    "coarse: p95 as interpolated, within a bin");
	gp_prof_stat_free(&s);
}

/* A profile of one function with n applies, built by hand. */
static struct gp_profile *
make_profile(int n, const char *const *cls, const char *const *op)
{
	struct gp_profile *p = calloc(1, sizeof(*p));

	p->graph = strdup("g");
	p->path = strdup("g.json");
	p->flags = strdup("");
	p->rewrites = strdup("");
	p->n_fn = 1;
	p->fn = calloc(1, sizeof(*p->fn));
	p->fn[0].name = strdup("f");
	p->fn[0].n_apply = n;
	p->fn[0].ap = calloc((size_t)n, sizeof(*p->fn[0].ap));
	p->fn[0].ticks = calloc(2 * (size_t)n, sizeof(uint64_t));
	for (int i = 0; i < n; i++) {
		struct gp_prof_apply *a = &p->fn[0].ap[i];
		char name[64];

		snprintf(name, sizeof(name), "%s(x%d)", op[i], i);
		a->id = i;
		a->name = strdup(name);
		a->op = strdup(op[i]);
		a->cls = strdup(cls[i]);
		a->opname = strdup(op[i]);
		a->node = strdup("");
		a->extra = strdup("");
		a->in = calloc(1, sizeof(*a->in));
		a->out = calloc(1, sizeof(*a->out));
		a->in_producer = calloc(1, sizeof(int));
	}
	return (p);
}

static void
test_fold_and_rollup(void)
{
	static const char *const cls[] = {"Elemwise", "Elemwise", "Dot"};
	static const char *const op[] = {"Elemwise{add}", "Elemwise{mul}",
		"Dot"};
	struct gp_profile *p = make_profile(3, cls, op);
	struct gp_prof_table t;
	double sum = 0;
	uint64_t *tk = p->fn[0].ticks;

	p->clock.probe_ns = 10;
	p->ignore_first = true;
	p->fn[0].ap[2].flops = 2e6;
	gp_clock_init();
	/* without a TSC, ticks are ns; with one, use the conversion */
	for (int call = 0; call < 4; call++) {
		uint64_t t0 = 1000 + (uint64_t)call * 100000;
		uint64_t dur[3] = {110, 210, 1010};	/* ns incl. probe */

		if (call == 0) {
			dur[0] = 5010;	/* a slow first call */
		}
		tk[0] = t0;
		for (int i = 0; i < 3; i++) {
			/* ns -> ticks: invert the conversion closely enough */
			uint64_t d = (uint64_t)((double)dur[i] *
			    4294967296.0 / (double)gp_clock_mult + 0.5);

			tk[i + 1] = tk[i] + d;
		}
		gp_prof_fold(p, 0, 2000, 1500);
	}
	is_int((long long)p->fn[0].calls_seen, 4, "four calls seen");
	is_int((long long)gp_prof_calls(&p->fn[0]), 3,
	    "the first call is left out with ignore_first");
	ok(llabs((long long)p->fn[0].ap[0].first_ns - 5000) <= 2,
	    "the first call's time is kept apart (%llu ns)",
	    (unsigned long long)p->fn[0].ap[0].first_ns);
	ok(llabs((long long)p->fn[0].ap[0].st.total - 300) <= 6,
	    "totals exclude the first call and the probe cost (%llu)",
	    (unsigned long long)p->fn[0].ap[0].st.total);
	is_int((long long)p->fn[0].ap[2].st.n, 3, "dot counted 3 times");

	gp_prof_rollup(p, 0, GP_GROUP_CLASS, &t);
	is_int((long long)t.n, 2, "two classes");
	ok(strcmp(t.rows[0].name, "Dot") == 0, "Dot first (most time)");
	is_int(t.rows[1].n_apply, 2, "Elemwise groups two applies");
	for (size_t i = 0; i < t.n; i++)
		sum += t.rows[i].pct;
	is_double(sum, 100, 1e-9, "class percentages sum to 100");
	gp_prof_table_free(&t);

	gp_prof_rollup(p, 0, GP_GROUP_APPLY, &t);
	is_int((long long)t.n, 3, "three apply rows");
	ok(strcmp(t.rows[0].name, "Dot(x2)") == 0, "apply rows sorted by "
	    "time");
	/* Gflops/s = flops per call x calls / time: 2e6 x 3 / ~3000 ns */
	is_double(t.rows[0].gflops, 2e6 * 3 / t.rows[0].time_ns, 1e-9,
	    "Gflops/s = flops x calls / time");
	is_double(t.rows[0].flops, 2e6, 1e-12, "apply row flops are per "
	    "execution");
	is_double(t.rows[0].per_call_ns, t.rows[0].time_ns / 3, 1e-12,
	    "time per call = time / executions");
	gp_prof_table_free(&t);

	{
		struct gp_profile *c = gp_profile_clone(p);

		gp_profile_reset(p);
		is_int((long long)gp_prof_calls(&p->fn[0]), 0, "reset zeroes "
		    "the calls");
		is_int((long long)gp_prof_calls(&c->fn[0]), 3, "a clone keeps "
		    "its own counters");
		gp_profile_copy_counters(p, c);
		is_int((long long)p->fn[0].ap[2].st.n, 3, "copy_counters "
		    "restores them");
		gp_profile_free(c);
	}
	gp_profile_free(p);
}

static void
test_flags(void)
{
	struct gp_flags f;
	struct gp_err err;
	char *s;

	gp_flags_init(&f);
	ok(f.profile && f.allow_gc && !f.profile_memory && f.n_apply == 20,
	    "defaults");
	ok(gp_flags_parse(&f, "profile_memory=True,profiling__n_apply=5,"
	    "allow_gc=0", "GPTOP_FLAGS", &err) == 0 && f.profile_memory &&
	    f.n_apply == 5 && !f.allow_gc, "parse name=value pairs");
	s = gp_flags_string(&f);
	ok(strstr(s, "profile_memory=True") && strstr(s, "allow_gc=False") &&
	    !strstr(s, "profile=True"), "flag string lists what differs: %s",
	    s);
	free(s);
	ok(gp_flags_parse(&f, "nosuch=1", "GPTOP_FLAGS", &err) < 0 &&
	    strstr(err.msg, "unknown flag 'nosuch'") &&
	    strstr(err.msg, "profile_memory"), "unknown flag lists the valid "
	    "names");
	ok(gp_flags_parse(&f, "allow_gc=maybe", "--flags", &err) < 0 &&
	    strstr(err.msg, "not a boolean"), "bad boolean: %s", err.msg);
	ok(gp_flags_parse(&f, "profiling__n_apply=-3", "--flags", &err) < 0 &&
	    strstr(err.msg, "too small"), "negative count: %s", err.msg);
	ok(gp_flags_parse(&f, "optimizer=fast", "--flags", &err) < 0 &&
	    strstr(err.msg, "fast_run"), "bad choice lists the valid ones");
	ok(gp_flags_parse(&f, "profile", "--flags", &err) < 0 &&
	    strstr(err.msg, "name=value"), "missing '='");
	gp_flags_done(&f);
}

/* The radix sort against a stable reference: keys with many shared high
 * halves (runs sorted by the low halves: short, middling, long) and
 * repeated keys, which must keep their order. */
struct ref {
	uint64_t	k;
	uint32_t	i;
};

static int
cmp_ref(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->k != y->k)
		return (x->k < y->k ? -1 : 1);
	return (x->i < y->i ? -1 : x->i > y->i);
}

static void
test_radix(void)
{
	static const size_t sizes[] = {0, 1, 2, 31, 33, 500, 3000, 70000};
	bool good = true;
	uint64_t x = 99;

	for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
		size_t n = sizes[t];
		uint64_t *k = malloc(sizeof(*k) * (3 * n + 1));
		uint32_t *idx = malloc(sizeof(*idx) * (n + 1));
		struct ref *r = malloc(sizeof(*r) * (n + 1));

		for (size_t i = 0; i < n; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			/* a few high halves, low halves over a small range */
			k[i] = (x >> 61) << 32 | (x >> 20) % (n / 4 + 1);
			idx[i] = (uint32_t)(n - 1 - i);	/* a given order */
		}
		for (size_t i = 0; i < n; i++)
			r[i] = (struct ref){k[idx[i]], (uint32_t)i};
		qsort(r, n, sizeof(*r), cmp_ref);
		gp_radix_sort(k, idx, n, t % 2 ? k + n : NULL);
		for (size_t i = 0; i < n; i++)
			good = good && idx[i] == n - 1 - r[i].i;
		free(k);
		free(idx);
		free(r);
	}
	ok(good, "radix sort: keys in order, equal keys in their given order "
	    "(0 to 70,000 rows, runs of shared high halves)");
}

int
main(void)
{
	test_bins();
	test_quantiles();
	test_merge();
	test_coarse();
	test_radix();
	test_fold_and_rollup();
	test_flags();
	return (done_testing());
}
