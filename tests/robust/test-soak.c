/*
 * test-soak.c: the soak run: 1,000,000 calls of data/graphs/add3.json with
 * profiling on, through the session API, in 100 slices.  Fusion is left
 * out so the call runs three applies and frees two intermediates.  Between
 * slices it reads the resident set size from /proc/self/statm, the allocator's
 * counters and the profile, and checks: resident memory flat after the
 * warm-up (the first tenth), no storage taken from the system after it,
 * the call counter exactly 1,000,000, every apply's count equal to the
 * calls (so their sum is calls x applies), every histogram summing to its
 * count (nothing wrapped), every time total monotone and between count x
 * min and count x max, and the calls per CPU second of the last tenth
 * within a factor of the first tenth after the warm-up.  That rate is
 * judged on the process's CPU time (CLOCK_PROCESS_CPUTIME_ID: the worker
 * thread's and the caller's), not on the wall clock, and each tenth counts
 * its best slice: on a loaded machine the wall clock also runs while other
 * processes hold the cores, and interference (preemption, cache and
 * sibling-thread contention) only ever slows a slice, so the best slice of
 * a tenth is its cost without it, while a per-call cost that grows with
 * the calls made (a leak walked, a list searched) slows every slice of the
 * last tenth, the best one too.  The same 1,000,000 calls run
 * under the sanitizers (about 5 s under ASan); the RSS bound (1 MiB) holds
 * there too: ASan's own bookkeeping adds about 0.5 MiB once, early.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../tap.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/flags.h"
#include "prof/profile.h"
#include "session/session.h"

#define SLICES 100
#define RSS_SLACK (1024 * 1024) /* bytes of RSS growth allowed */
#define RATE_FACTOR 3.0		/* last tenth at least first / this */

/* CPU time of the whole process (all its threads), in ns. */
static uint64_t
cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return (0);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

static long
rss_bytes(void)
{
	FILE *fp = fopen("/proc/self/statm", "r");
	long size, res;

	if (fp == NULL)
		return (-1);
	if (fscanf(fp, "%ld %ld", &size, &res) != 2)
		res = -1;
	fclose(fp);
	return (res < 0 ? -1 : res * sysconf(_SC_PAGESIZE));
}

static uint64_t
hist_sum(const struct gp_prof_stat *st)
{
	uint64_t n = 0;

	for (int b = 0; b < st->nb; b++)
		n += st->bin[b];
	return (n);
}

/* n, total, min, max and the histogram agree. */
static bool
stat_sane(const struct gp_prof_stat *st)
{
	if (hist_sum(st) != st->n)
		return (false);
	if (st->n == 0)
		return (st->total == 0);
	return (st->min <= st->max && st->total >= st->n * st->min &&
	    st->total / st->n <= st->max);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

static double
best(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return (m);
}

int
main(void)
{
	const char *srcdir = getenv("top_srcdir");
	char path[4096];
	struct gp_flags flags;
	struct gp_err err;
	struct gp_session *s;
	struct gp_profile *p;
	struct gp_alloc_stats a;
	uint64_t calls = 1000000, slice, prev_total = 0, prev_call_total = 0;
	uint64_t prev_ap_total = 0, sys_after_warm = 0, live_after_warm = 0;
	long rss[SLICES], rss_warm, rss_max;
	double rate[SLICES], cpu_rate[SLICES];
	double first[SLICES / 10], last[SLICES / 10];
	double r_first, r_last, c_first, c_last;
	bool counts_ok = true, hist_ok = true, mono = true, sys_flat = true;
	int warm = SLICES / 10, n_apply;

	slice = calls / SLICES;
	snprintf(path, sizeof(path), "%s/data/graphs/add3.json",
	    srcdir != NULL ? srcdir : ".");
	gp_flags_init(&flags);
	if (!ok(flags.profile, "profiling is on by default"))
		return (1);
	if (gp_flags_parse(&flags, "optimizer_excluding=fusion", "test", &err) <
	    0) {
		diag("%s", err.msg);
		return (1);
	}
	s = gp_session_open(path, &flags, &err);
	if (!ok(s != NULL, "open %s", path)) {
		diag("%s", err.msg);
		return (1);
	}
	p = gp_session_profile(s);
	n_apply = p->fn[0].n_apply;
	ok(p->n_fn == 1 && n_apply == 3,
	    "one function with 3 applies (got "
	    "%d)",
	    n_apply);
	for (int i = 0; i < SLICES; i++) {
		const struct gp_prof_fn *f;
		uint64_t t0 = gp_clock_ns(), c0 = cpu_ns(), t1, c1;
		uint64_t sum = 0, ap_total = 0;

		gp_session_run(s, -1, slice);
		t1 = gp_clock_ns();
		c1 = cpu_ns();
		/* complete again: the sampled-out calls attributed */
		p = gp_session_profile(s);
		f = &p->fn[0];
		rss[i] = rss_bytes();
		rate[i] = (double)slice * 1e9 / (double)(t1 - t0);
		cpu_rate[i] = c1 > c0 ? (double)slice * 1e9 / (double)(c1 - c0)
				      : 0;
		gp_alloc_get_stats(&a);
		if (i == warm) {
			sys_after_warm = a.n_sys;
			live_after_warm = a.live;
		} else if (i > warm &&
		    (a.n_sys != sys_after_warm || a.live != live_after_warm)) {
			if (sys_flat)
				diag("slice %d: n_sys %llu live %llu, after "
				     "warm-up %llu %llu",
				    i, (unsigned long long)a.n_sys,
				    (unsigned long long)a.live,
				    (unsigned long long)sys_after_warm,
				    (unsigned long long)live_after_warm);
			sys_flat = false;
		}
		if (f->calls_seen != slice * (uint64_t)(i + 1) ||
		    gp_prof_calls(f) != f->call.n)
			counts_ok = false;
		if (!stat_sane(&f->call))
			hist_ok = false;
		for (int k = 0; k < f->n_apply; k++) {
			sum += f->ap[k].st.n;
			ap_total += f->ap[k].st.total;
			if (f->ap[k].st.n != f->call.n)
				counts_ok = false;
			if (!stat_sane(&f->ap[k].st))
				hist_ok = false;
		}
		if (sum != f->call.n * (uint64_t)f->n_apply)
			counts_ok = false;
		if (f->call.total < prev_call_total ||
		    f->vm_ns + f->thunk_ns < prev_total ||
		    ap_total < prev_ap_total)
			mono = false;
		prev_call_total = f->call.total;
		prev_total = f->vm_ns + f->thunk_ns;
		prev_ap_total = ap_total;
	}
	{
		const struct gp_prof_fn *f = &p->fn[0];
		uint64_t sum = 0;

		for (int k = 0; k < f->n_apply; k++)
			sum += f->ap[k].st.n;
		is_int((long long)gp_session_rounds(s), (long long)calls,
		    "rounds done");
		is_int((long long)f->calls_seen, (long long)calls,
		    "calls seen: exactly %llu", (unsigned long long)calls);
		is_int((long long)f->call.n,
		    (long long)(calls - (p->ignore_first ? 1 : 0)),
		    "calls counted");
		is_int((long long)sum,
		    (long long)(f->call.n * (uint64_t)n_apply),
		    "sum of the apply counts = calls x %d "
		    "applies",
		    n_apply);
		ok(f->call.total > 0 && f->call.total < (uint64_t)1 << 62,
		    "call time total %.3f s, far from wrapping",
		    (double)f->call.total / 1e9);
	}
	ok(counts_ok,
	    "after every slice: calls seen = slices x %llu, "
	    "every apply counted once per call",
	    (unsigned long long)slice);
	ok(hist_ok,
	    "after every slice: histograms sum to their counts, "
	    "count x min <= total <= count x max");
	ok(mono, "call, vm + thunk and apply time totals never decrease");
	ok(sys_flat,
	    "after warm-up the allocator takes nothing from the "
	    "system and live bytes stay at %llu",
	    (unsigned long long)live_after_warm);

	rss_warm = rss[warm];
	rss_max = rss_warm;
	for (int i = warm; i < SLICES; i++)
		if (rss[i] > rss_max)
			rss_max = rss[i];
	diag("RSS: %ld KiB after slice 1, %ld KiB after warm-up, max %ld "
	     "KiB, last %ld KiB",
	    rss[0] / 1024, rss_warm / 1024, rss_max / 1024,
	    rss[SLICES - 1] / 1024);
	ok(rss_warm > 0 && rss_max - rss_warm <= RSS_SLACK,
	    "RSS flat after warm-up: grew %ld KiB (at most %d KiB)",
	    (rss_max - rss_warm) / 1024, RSS_SLACK / 1024);

	memcpy(first, rate + warm, sizeof(first));
	memcpy(last, rate + SLICES - SLICES / 10, sizeof(last));
	r_first = median(first, SLICES / 10);
	r_last = median(last, SLICES / 10);
	c_first = best(cpu_rate + warm, SLICES / 10);
	c_last = best(cpu_rate + SLICES - SLICES / 10, SLICES / 10);
	diag("calls/s of wall time (median of each tenth's slices, for "
	     "information): %.0f after warm-up, %.0f in the last tenth",
	    r_first, r_last);
	diag("calls per CPU second (best slice of each tenth): %.0f after "
	     "warm-up, %.0f in the last tenth (ratio %.2f)",
	    c_first, c_last, c_first > 0 ? c_last / c_first : 0);
	ok(c_first > 0 && c_last * RATE_FACTOR >= c_first,
	    "calls/s steady: the last tenth "
	    "at least 1/%.0f of the first after warm-up (CPU time)",
	    RATE_FACTOR);
	gp_session_free(s);
	gp_flags_done(&flags);
	return (done_testing());
}
