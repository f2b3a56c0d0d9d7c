/*
 * test-profile.c: the profiler's arithmetic on profiles built by hand:
 * histogram bins and quantiles, folding tick stamps (probe cost, the first
 * call kept apart), rollups by class / op / apply (percentages, Gflops/s,
 * sort order), and the flag parser.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "flags.h"
#include "profile.h"
#include "radix.h"

static void
test_bins(void)
{
	struct gp_prof_stat s = {0};
	bool mono = true;

	for (uint64_t ns = 1; ns < ((uint64_t)1 << 36); ns = ns * 3 / 2 + 1) {
		int b = gp_prof_bin(ns);

		if (b + 1 < GP_PROF_BINS && !(gp_prof_bin_lo(b) <= (double)ns &&
		    (double)ns < gp_prof_bin_lo(b + 1)) && ns >= 8)
			mono = false;
	}
	ok(mono, "every ns value falls inside its bin's edges");
	is_int(gp_prof_bin(7), 0, "below 8 ns: bin 0");
	is_int(gp_prof_bin(8), 0, "8 ns: bin 0");
	is_int(gp_prof_bin(12), 1, "12 ns: bin 1");
	is_int(gp_prof_bin(16), 2, "16 ns: bin 2");
	/* 1000 samples uniformly 1000..1999 ns: median ~1500, p95 ~1950 */
	for (int i = 0; i < 1000; i++)
		gp_prof_stat_add(&s, 1000 + (uint64_t)i);
	is_int((long long)s.n, 1000, "count");
	is_int((long long)s.min, 1000, "min");
	is_int((long long)s.max, 1999, "max");
	is_int((long long)s.total, 1000 * 1000 + 999 * 1000 / 2, "total");
	ok(fabs(gp_prof_stat_quantile(&s, 0.5) - 1500) < 1500 * 0.2,
	    "median within the bin resolution (got %.0f)",
	    gp_prof_stat_quantile(&s, 0.5));
	ok(fabs(gp_prof_stat_quantile(&s, 0.95) - 1950) < 1950 * 0.2,
	    "p95 within the bin resolution (got %.0f)",
	    gp_prof_stat_quantile(&s, 0.95));
	ok(gp_prof_stat_quantile(&s, 1.0) <= 1999 &&
	    gp_prof_stat_quantile(&s, 0.0) >= 1000, "quantiles clamp to "
	    "[min, max]");
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
	test_radix();
	test_fold_and_rollup();
	test_flags();
	return (done_testing());
}
