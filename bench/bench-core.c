/*
 * bench-core.c: the runtime's benchmarks, one row each, printed as a table
 * by `make bench` (see bench/README.md):
 *
 *   load      load and validate a synthetic graph of 100,000 nodes
 *             (time and peak RSS)
 *   dispatch  VM cost per apply, profiling off and on, over 10,000
 *             elementwise ops on 1-element tensors
 *   overhead  profiling on vs off on the example graphs and the
 *             10,000-op graph
 *   add       add of two 10,000,000-element float64 vectors, as a ratio
 *             of a plain C triad loop over the same bytes in this run
 *   sum       sum over 10,000,000 float64, against a plain C loop
 *   dot       dot of two 1024x1024 float64 matrices against a direct
 *             cblas_dgemm on the same buffers
 *
 * Every ratio is measured within one run, A and B interleaved, best of
 * several repetitions, because the machines are shared and noisy.
 */
#include "config.h"

#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "clock.h"
#include "flags.h"
#include "graph-json.h"
#include "session.h"
#include "tensor.h"
#include "vm.h"

static const char *srcdir = ".";
static const char *builddir = ".";
static int failures;

static void
row(const char *name, const char *what, double fig, const char *unit,
    double peer, const char *peer_name, const char *target, int met)
{
	char ratio[32] = "";

	if (peer > 0)
		snprintf(ratio, sizeof(ratio), "%.3f", fig / peer);
	printf("%-9s %-44s %10.3f %-6s %10.3f %-12s %8s  %-16s %s\n", name,
	    what, fig, unit, peer, peer_name, ratio, target,
	    met < 0 ? "-" : met ? "met" : "MISSED");
}

static struct gp_session *
open_graph(const char *path, const char *flagstr)
{
	struct gp_flags f;
	struct gp_err err;
	struct gp_session *s;

	gp_flags_init(&f);
	if (flagstr != NULL && gp_flags_parse(&f, flagstr, "bench", &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.msg);
		exit(1);
	}
	s = gp_session_open(path, &f, &err);
	gp_flags_done(&f);
	if (s == NULL) {
		fprintf(stderr, "bench: %s\n", err.msg);
		failures++;
	}
	return (s);
}

/* ns per round of s, best of reps x rounds */
static double
time_rounds(struct gp_session *s, int rounds)
{
	uint64_t t0 = gp_clock_ns();

	gp_session_run(s, -1, (uint64_t)rounds);
	return ((double)(gp_clock_ns() - t0) / rounds);
}

static long
peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_maxrss);
}

static void
bench_load(void)
{
	char path[4096];
	struct gp_load_opts lo = {0};
	struct gp_err err;
	double best = 1e30;
	long rss0 = peak_rss_kb(), rss1;

	snprintf(path, sizeof(path), "%s/bench/out/dag-100000.json", builddir);
	for (int r = 0; r < 3; r++) {
		uint64_t t0 = gp_clock_ns();
		struct gp_graph *g = gp_graph_load(path, &lo, &err);
		double ms = (double)(gp_clock_ns() - t0) / 1e6;

		if (g == NULL) {
			fprintf(stderr, "bench: %s\n", err.msg);
			failures++;
			return;
		}
		gp_graph_free(g);
		if (ms < best)
			best = ms;
	}
	rss1 = peak_rss_kb();
	row("load", "100,000-node graph: load+validate", best, "ms", 0, "",
	    "< 300 ms", best < 300);
	row("load", "  peak RSS (whole process)", (double)rss1 / 1024, "MB",
	    0, "", "< 200 MB", rss1 / 1024 < 200);
	(void)rss0;
}

static void
bench_dispatch(void)
{
	char path[4096];
	struct gp_session *off, *on;
	double t_off = 1e30, t_on = 1e30;
	int n = 10000;

	snprintf(path, sizeof(path), "%s/bench/out/chain-10000.json", builddir);
	off = open_graph(path, "optimizer=None,profile=False");
	on = open_graph(path, "optimizer=None,profile=True");
	if (off == NULL || on == NULL)
		return;
	time_rounds(off, 20);
	time_rounds(on, 20);
	for (int r = 0; r < 15; r++) {
		double a = time_rounds(off, 20), b = time_rounds(on, 20);

		if (a < t_off)
			t_off = a;
		if (b < t_on)
			t_on = b;
	}
	row("dispatch", "per apply, profiling off (1-elem tensors)",
	    t_off / n, "ns", 0, "", "< 20 ns", t_off / n < 20);
	row("dispatch", "per apply, profiling on", t_on / n, "ns", 0, "",
	    "< 40 ns", t_on / n < 40);
	row("overhead", "10,000-op graph: profiled / unprofiled", t_on / t_off,
	    "x", 0, "", "<= 1.15", t_on / t_off <= 1.15);
	gp_session_free(off);
	gp_session_free(on);
}

/* target: the largest profiled / unprofiled ratio allowed, 0: report only */
static void
bench_overhead(const char *name, int rounds, double target)
{
	char path[4096], label[128];
	struct gp_session *off, *on;
	double t_off = 1e30, t_on = 1e30;

	snprintf(path, sizeof(path), "%s/data/graphs/%s.json", srcdir, name);
	off = open_graph(path, "profile=False");
	on = open_graph(path, "profile=True");
	if (off == NULL || on == NULL) {
		gp_session_free(off);
		gp_session_free(on);
		return;
	}
	time_rounds(off, 2);
	time_rounds(on, 2);
	for (int r = 0; r < 7; r++) {
		double a = time_rounds(off, rounds), b = time_rounds(on, rounds);

		if (a < t_off)
			t_off = a;
		if (b < t_on)
			t_on = b;
	}
	snprintf(label, sizeof(label), "%s.json: profiled / unprofiled", name);
	if (target > 0) {
		char tg[32];

		snprintf(tg, sizeof(tg), "<= %.2f", target);
		row("overhead", label, t_on / t_off, "x", 0, "", tg,
		    t_on / t_off <= target);
	} else
		row("overhead", label, t_on / t_off, "x", 0, "", "report", -1);
	snprintf(label, sizeof(label), "%s.json: time per call (profiled)",
	    name);
	row("call", label, t_on / 1e3, "us", 0, "", "", -1);
	gp_session_free(off);
	gp_session_free(on);
}

static double
triad(double *a, const double *b, const double *c, size_t n)
{
	uint64_t t0 = gp_clock_ns();

	for (size_t i = 0; i < n; i++)
		a[i] = b[i] + c[i];
	return ((double)(gp_clock_ns() - t0));
}

static void
bench_add(void)
{
	char path[4096];
	struct gp_session *s;
	size_t n = 10000000;
	double *a, *b, *c, best_c = 1e30, best_g = 1e30;

	snprintf(path, sizeof(path), "%s/bench/out/add-10m.json", builddir);
	s = open_graph(path, "profile=False,optimizer=None");
	if (s == NULL)
		return;
	a = aligned_alloc(64, n * 8);
	b = aligned_alloc(64, n * 8);
	c = aligned_alloc(64, n * 8);
	for (size_t i = 0; i < n; i++) {
		a[i] = 0;
		b[i] = (double)i;
		c[i] = 1.0 / (double)(i + 1);
	}
	triad(a, b, c, n);
	time_rounds(s, 1);
	for (int r = 0; r < 10; r++) {
		double x = triad(a, b, c, n), y = time_rounds(s, 1);

		if (x < best_c)
			best_c = x;
		if (y < best_g)
			best_g = y;
	}
	/* bandwidth = 3 x 8 bytes per element */
	row("add", "10M float64 add: bandwidth GB/s (peer: C loop)",
	    24.0 * (double)n / best_g, "GB/s", 24.0 * (double)n / best_c,
	    "C triad", ">= 0.80", best_c / best_g >= 0.8);
	free(a);
	free(b);
	free(c);
	gp_session_free(s);
}

static void
bench_sum(void)
{
	char path[4096];
	struct gp_session *s;
	size_t n = 10000000;
	double *a, best_c = 1e30, best_g = 1e30;
	volatile double sink = 0;

	snprintf(path, sizeof(path), "%s/bench/out/sum-10m.json", builddir);
	s = open_graph(path, "profile=False,optimizer=None");
	if (s == NULL)
		return;
	a = aligned_alloc(64, n * 8);
	for (size_t i = 0; i < n; i++)
		a[i] = 1.0 / (double)(i + 1);
	time_rounds(s, 1);
	for (int r = 0; r < 10; r++) {
		uint64_t t0 = gp_clock_ns();
		double acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0, x, y;

		for (size_t i = 0; i + 3 < n; i += 4) {
			acc0 += a[i];
			acc1 += a[i + 1];
			acc2 += a[i + 2];
			acc3 += a[i + 3];
		}
		sink = acc0 + acc1 + acc2 + acc3;
		x = (double)(gp_clock_ns() - t0);
		y = time_rounds(s, 1);
		if (x < best_c)
			best_c = x;
		if (y < best_g)
			best_g = y;
	}
	(void)sink;
	row("sum", "10M float64 sum: bandwidth GB/s (peer: C loop)",
	    8.0 * (double)n / best_g, "GB/s", 8.0 * (double)n / best_c,
	    "C loop", "report", -1);
	free(a);
	gp_session_free(s);
}

static void
bench_dot(void)
{
	char path[4096];
	struct gp_session *s;
	struct gp_graph *g;
	const struct gp_tensor *A, *B;
	double *C, best_c = 1e30, best_g = 1e30;
	int n = 1024, ia, ib;

	snprintf(path, sizeof(path), "%s/bench/out/dot-1024.json", builddir);
	s = open_graph(path, "profile=False,optimizer=None");
	if (s == NULL)
		return;
	g = gp_session_graph(s);
	ia = gp_graph_find_var(g, "a");
	ib = gp_graph_find_var(g, "b");
	A = &g->vars[ia].value;
	B = &g->vars[ib].value;
	C = aligned_alloc(64, (size_t)n * n * 8);
	time_rounds(s, 1);
	for (int r = 0; r < 7; r++) {
		uint64_t t0 = gp_clock_ns();
		double x, y;

		cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n,
		    1.0, (const double *)gp_tensor_data(A), n,
		    (const double *)gp_tensor_data(B), n, 0.0, C, n);
		x = (double)(gp_clock_ns() - t0);
		y = time_rounds(s, 1);
		if (x < best_c)
			best_c = x;
		if (y < best_g)
			best_g = y;
	}
	row("dot", "1024x1024 float64 dot (ms; peer: cblas_dgemm)",
	    best_g / 1e6, "ms", best_c / 1e6, "cblas", "<= 1.03",
	    best_g / best_c <= 1.03);
	free(C);
	gp_session_free(s);
}

int
main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;

	if (getenv("top_srcdir") != NULL)
		srcdir = getenv("top_srcdir");
	if (getenv("top_builddir") != NULL)
		builddir = getenv("top_builddir");
	gp_clock_init();
	printf("%-9s %-44s %10s %-6s %10s %-12s %8s  %-16s %s\n", "bench",
	    "what", "figure", "unit", "peer", "peer is", "ratio", "target",
	    "status");
#define RUN(name, call)                                                       \
	do {                                                                  \
		if (only == NULL || strcmp(only, name) == 0)                  \
			call;                                                 \
	} while (0)
	RUN("load", bench_load());
	RUN("dispatch", bench_dispatch());
	RUN("overhead", bench_overhead("add3", 20000, 0));
	RUN("overhead", bench_overhead("logreg", 20, 1.03));
	RUN("overhead", bench_overhead("mlp", 5, 1.03));
	RUN("overhead", bench_overhead("chain", 20, 0));
	RUN("add", bench_add());
	RUN("sum", bench_sum());
	RUN("dot", bench_dot());
	return (failures ? 1 : 0);
}
