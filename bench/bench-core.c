/*
 * bench-core.c: the runtime's benchmarks, one row each, printed as a table
 * by `make bench` (see bench/README.md; the numbers are issue #11's rows):
 *
 *   load      load and validate a synthetic graph of 100,000 nodes
 *             (time and peak RSS)
 *   dispatch  (1) VM cost per apply, profiling off and on, over 10,000
 *             elementwise ops on 1-element tensors
 *   overhead  (2) profiling on vs off on the example graphs and the
 *             10,000-op graph
 *   add       (3) add of two 10,000,000-element float64 vectors, as a
 *             ratio of a plain C triad loop over the same bytes in this run
 *   fusion    (3) chain.json's 10-op elementwise chain on its 1,000,000
 *             float64 (issue 21's figure) and on 10,000,000, fused against
 *             unfused
 *   sum       sum over 10,000,000 float64, against a plain C loop
 *   dot       (4) dot of two 1024x1024 float64 matrices against a direct
 *             cblas_dgemm on the same buffers
 *   sgemm     the machine's peak float32 GFLOP/s (a long cblas_sgemm)
 *   numpy     (5) time per call of the example graphs against numpy
 *             (bench/numpy/bench.py, run as a child and interleaved), on
 *             the same .npy inputs, and both sides' output checksums
 *   tui       (6) the interface on a 100,000-apply graph, from the file
 *             its GPTOP_TUI_BENCH mode wrote (run.sh runs it in tmux),
 *             against batch mode's calls/s
 *   capture   (6) capture save, load and diff on the 100,000-apply graph
 *
 * `bench-core tui-batch SECONDS` prints batch mode's rounds/s on the
 * 100,000-apply graph (run.sh calls it just before and after the UI run).
 *
 * Every ratio is measured within one run, A and B interleaved, best of
 * several repetitions, because the machines are shared and noisy.
 */
#include "config.h"

#include <cblas.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/capture.h"
#include "base/clock.h"
#include "capture/diff.h"
#include "base/flags.h"
#include "load/graph-json.h"
#include "ops/par.h"
#include "session/session.h"
#include "graph/tensor.h"
#include "run/vm.h"

static const char *srcdir = ".";
static const char *builddir = ".";
static int failures;

static void
row(const char *name, const char *what, double fig, const char *unit,
    double peer, const char *peer_name, const char *target, int met)
{
	char ratio[32] = "", f[32], p[32] = "";

	if (peer > 0)
		snprintf(ratio, sizeof(ratio), "%.3f", fig / peer);
	snprintf(
	    f, sizeof(f), fig != 0 && fabs(fig) < 0.01 ? "%.2e" : "%.3f", fig);
	if (peer > 0)
		snprintf(p, sizeof(p), "%.3f", peer);
	printf("%-9s %-48s %10s %-6s %10s %-8s %7s  %-16s %s\n", name, what, f,
	    unit, p, peer_name, ratio, target,
	    met < 0   ? "-"
		: met ? "met"
		      : "MISSED");
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

/* The graph at path opened twice, profiling off and on (flags: others
 * before those, or ""); false, nothing left open, when either fails. */
static bool
open_pair(const char *path, const char *flags, struct gp_session **off,
    struct gp_session **on)
{
	char f[256];

	snprintf(f, sizeof(f), "%s%sprofile=False", flags, *flags ? "," : "");
	*off = open_graph(path, f);
	snprintf(f, sizeof(f), "%s%sprofile=True", flags, *flags ? "," : "");
	*on = open_graph(path, f);
	if (*off != NULL && *on != NULL)
		return (true);
	gp_session_free(*off);
	gp_session_free(*on);
	return (false);
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
	row("load", "  peak RSS (whole process)", (double)rss1 / 1024, "MB", 0,
	    "", "< 200 MB", rss1 / 1024 < 200);
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
	if (!open_pair(path, "optimizer=None", &off, &on))
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
	row("dispatch", "per apply, profiling off (1-elem tensors)", t_off / n,
	    "ns", 0, "", "< 20 ns", t_off / n < 20);
	row("dispatch", "per apply, profiling on", t_on / n, "ns", 0, "",
	    "< 40 ns", t_on / n < 40);
	row("overhead", "10,000-op graph: profiled / unprofiled", t_on / t_off,
	    "x", 0, "", "<= 1.15", t_on / t_off <= 1.15);
	gp_session_free(off);
	gp_session_free(on);
}

/* target: the largest profiled / unprofiled ratio allowed, 0: report only;
 * best of reps interleaved batches of `rounds` calls each side */
static void
bench_overhead(const char *name, int rounds, int reps, double target)
{
	char path[4096], label[128];
	struct gp_session *off, *on;
	double t_off = 1e30, t_on = 1e30;

	snprintf(path, sizeof(path), "%s/data/graphs/%s.json", srcdir, name);
	if (!open_pair(path, "", &off, &on))
		return;
	time_rounds(off, 2);
	time_rounds(on, 2);
	for (int r = 0; r < reps; r++) {
		double a = time_rounds(off, rounds),
		       b = time_rounds(on, rounds);

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
	snprintf(
	    label, sizeof(label), "%s.json: time per call (profiled)", name);
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

/* Row 3's fused chain: chain.json's 10 elementwise ops on its 1,000,000
 * float64 (the figure) and on 10,000,000 (chain-10m.json), with
 * the default rewrites (fused, JIT-compiled) against the same without the
 * fusion rewriter, interleaved, best of 7 batches of `rounds` calls. */
static void
bench_fusion(const char *path, const char *label, int rounds)
{
	struct gp_session *fused, *plain;
	double t_f = 1e30, t_p = 1e30;

	fused = open_graph(path, "profile=False");
	plain = open_graph(path, "profile=False,optimizer_excluding=fusion");
	if (fused == NULL || plain == NULL) {
		gp_session_free(fused);
		gp_session_free(plain);
		return;
	}
	time_rounds(fused, 2);
	time_rounds(plain, 2);
	for (int r = 0; r < 7; r++) {
		bool f_first = r % 2 == 0;
		double a = time_rounds(f_first ? fused : plain, rounds);
		double b = time_rounds(f_first ? plain : fused, rounds);

		t_f = fmin(t_f, f_first ? a : b);
		t_p = fmin(t_p, f_first ? b : a);
	}
	row("fusion", label, t_f / 1e6, "ms", t_p / 1e6, "unfused",
	    "<= 0.50 (2x)", t_p / t_f >= 2);
	gp_session_free(fused);
	gp_session_free(plain);
}

static void
bench_fusion_rows(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/data/graphs/chain.json", srcdir);
	bench_fusion(path, "10-op chain, 1M float64 (chain.json): fused "
	    "(peer: unfused)", 10);
	snprintf(path, sizeof(path), "%s/bench/out/chain-10m.json", builddir);
	bench_fusion(path, "10-op chain, 10M float64: fused (peer: unfused)",
	    1);
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

/*
 * The machine's peak: single-precision matrix products through the BLAS
 * gptop links (OpenBLAS here) with its default threads, long enough to
 * reach the steady clock: 2048x2048 by 2048x2048 (17.2 GFLOP a call), one
 * call to warm up, then calls for about 4 s (at least 5): the best call's
 * GFLOP/s, and the median's.  Issue 21 reports each model's GFLOP/s
 * against this figure.
 */
static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

static void
bench_sgemm(void)
{
	enum { n = 2048, max_calls = 200 };
	float *A = aligned_alloc(64, (size_t)n * n * 4);
	float *B = aligned_alloc(64, (size_t)n * n * 4);
	float *C = aligned_alloc(64, (size_t)n * n * 4);
	double t[max_calls], flop = 2.0 * n * n * n;
	const char *thr = getenv("OPENBLAS_NUM_THREADS");
	char what[96];
	uint64_t start;
	int calls = 0;

	if (A == NULL || B == NULL || C == NULL) {
		fprintf(stderr, "bench: sgemm: out of memory\n");
		failures++;
		free(A), free(B), free(C);
		return;
	}
	for (size_t i = 0; i < (size_t)n * n; i++) {
		A[i] = (float)((i * 7 + 3) % 1000) / 1000.0f;
		B[i] = (float)((i * 13 + 5) % 1000) / 1000.0f - 0.5f;
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A,
	    n, B, n, 0.0f, C, n);
	start = gp_clock_ns();
	while (calls < max_calls &&
	    (calls < 5 || gp_clock_ns() - start < 4000000000ull)) {
		uint64_t t0 = gp_clock_ns();

		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n,
		    1.0f, A, n, B, n, 0.0f, C, n);
		t[calls++] = (double)(gp_clock_ns() - t0) / 1e9;
	}
	qsort(t, (size_t)calls, sizeof(t[0]), cmp_double);
	snprintf(what, sizeof(what),
	    "peak: sgemm 2048^3, best of %d, threads %s", calls,
	    thr != NULL ? thr : "default");
	row("sgemm", what, flop / t[0] / 1e9, "GF/s", 0, "", "", -1);
	snprintf(what, sizeof(what), "  the median call");
	row("sgemm", what, flop / t[calls / 2] / 1e9, "GF/s", 0, "", "", -1);
	free(A), free(B), free(C);
}

/*
 * Row 5, end to end against numpy: bench/numpy/bench.py runs as a child
 * (--serve) reading the .npy files bench/dump-inputs wrote into
 * bench/out/npy/GRAPH/, and gptop runs the dumped copy of the graph that
 * reads the same files.  The two sides are interleaved batch by batch.
 */
struct peer {
	FILE *to, *from;
	pid_t pid;
};

static int
peer_start(
    struct peer *p, const char *python, const char *script, const char *data)
{
	int in[2], out[2];

	if (pipe(in) < 0 || pipe(out) < 0)
		return (-1);
	fflush(stdout);
	if ((p->pid = fork()) < 0)
		return (-1);
	if (p->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execl(python, python, script, "--data", data, "--serve",
		    (char *)NULL);
		fprintf(stderr, "bench: cannot run %s: %s\n", python,
		    strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->to = fdopen(in[1], "w");
	p->from = fdopen(out[0], "r");
	return (p->to != NULL && p->from != NULL ? 0 : -1);
}

static void
peer_stop(struct peer *p)
{
	int st;

	fprintf(p->to, "quit\n");
	fclose(p->to);
	fclose(p->from);
	waitpid(p->pid, &st, 0);
}

/* ns per call of one batch of `calls` numpy calls, -1 on failure */
static double
peer_time(
    struct peer *p, const char *name, int calls, char *version, size_t vlen)
{
	char line[256], v[64] = "";
	double ns;

	fprintf(p->to, "time %s %d\n", name, calls);
	fflush(p->to);
	if (fgets(line, sizeof(line), p->from) == NULL ||
	    sscanf(line, "%lf %63s", &ns, v) < 1) {
		fprintf(stderr, "bench: numpy: no answer for %s\n", name);
		return (-1);
	}
	snprintf(version, vlen, "%s", v);
	return (ns);
}

struct cksum {
	char item[160], dtype[16];
	long long n;
	double sum, asum;
};

static void
cksum_add(struct cksum **l, size_t *n, const char *fn, const char *var,
    const struct gp_tensor *t)
{
	struct cksum *c;
	long double s = 0, as = 0;
	int64_t numel = gp_tensor_numel(t);

	*l = realloc(*l, (*n + 1) * sizeof(**l));
	c = &(*l)[(*n)++];
	snprintf(c->item, sizeof(c->item), "%s:%s", fn, var);
	snprintf(c->dtype, sizeof(c->dtype), "%s", gp_dtype_name(t->dtype));
	for (int64_t i = 0; i < numel; i++) {
		double x = gp_tensor_get(t, i);

		s += x;
		as += fabs(x);
	}
	c->n = (long long)numel;
	c->sum = (double)s;
	c->asum = (double)as;
}

/* gptop's checksums after `calls` rounds from the initial values: the last
 * round one function at a time, each output read right after its call */
static struct cksum *
gptop_cksum(const char *path, int calls, size_t *n)
{
	struct gp_session *s = open_graph(path, "profile=False");
	struct gp_graph *g;
	struct cksum *l = NULL;

	*n = 0;
	if (s == NULL)
		return (NULL);
	g = gp_session_graph(s);
	gp_session_run(s, -1, (uint64_t)calls - 1);
	for (size_t f = 0; f < g->n_fns; f++) {
		gp_session_run(s, (int)f, 1);
		for (int k = 0; k < g->fns[f].n_out; k++)
			cksum_add(&l, n, g->fns[f].name,
			    g->vars[g->fns[f].out[k]].name,
			    gp_vm_output(gp_session_vm(s), (int)f, k));
	}
	for (size_t v = 0; v < g->n_vars; v++)
		if (g->vars[v].kind == GP_VAR_SHARED)
			cksum_add(&l, n, "shared", g->vars[v].name,
			    &g->vars[v].value);
	gp_session_free(s);
	return (l);
}

#define E2E_RTOL 1e-9

/* Compare gptop's checksums with numpy's; returns the worst
 * |difference| / (E2E_RTOL * scale), > 1 when they disagree, or 1e30
 * when an item is missing or has another dtype or size. */
static double
cksum_compare(struct peer *p, const char *name, int calls,
    const struct cksum *l, size_t n)
{
	char line[512];
	size_t seen = 0;
	double worst = 0;

	fprintf(p->to, "check %s %d\n", name, calls);
	fflush(p->to);
	while (fgets(line, sizeof(line), p->from) != NULL) {
		struct cksum c;
		size_t i;

		if (strncmp(line, "end", 3) == 0)
			break;
		if (sscanf(line, "%159s %15s %lld %lf %lf", c.item, c.dtype,
			&c.n, &c.sum, &c.asum) != 5) {
			fprintf(stderr, "bench: numpy: bad line: %s", line);
			worst = 1e30;
			continue;
		}
		seen++;
		for (i = 0; i < n && strcmp(l[i].item, c.item) != 0; i++)
			;
		if (i == n || strcmp(l[i].dtype, c.dtype) != 0 ||
		    l[i].n != c.n) {
			fprintf(stderr,
			    "bench: %s: %s %s(%lld) from numpy, "
			    "%s in gptop\n",
			    name, c.item, c.dtype, c.n,
			    i == n ? "missing" : l[i].dtype);
			worst = 1e30;
			continue;
		}
		{
			double scale = fmax(fmax(c.asum, l[i].asum), 1e-300);
			double d = fmax(fabs(l[i].sum - c.sum),
				       fabs(l[i].asum - c.asum)) /
			    (E2E_RTOL * scale);

			if (d > 1)
				fprintf(stderr,
				    "bench: %s: CHECKSUM "
				    "DISAGREES: %s sum %.17g (numpy %.17g), "
				    "asum %.17g (numpy %.17g)\n",
				    name, c.item, l[i].sum, c.sum, l[i].asum,
				    c.asum);
			if (d > worst)
				worst = d;
		}
	}
	if (seen != n) {
		fprintf(stderr,
		    "bench: %s: numpy gave %zu checksums, gptop "
		    "%zu\n",
		    name, seen, n);
		worst = 1e30;
	}
	return (worst);
}

/* speedup: the target, numpy time / gptop time at least this */
static void
bench_e2e(struct peer *p, const char *name, int calls, int reps, double speedup)
{
	char path[4096], label[128], tg[32], ver[64] = "", best_ver[64] = "";
	struct gp_session *off, *on;
	double t_off = 1e30, t_on = 1e30, t_np = 1e30, worst;
	struct cksum *l;
	size_t n;

	snprintf(path, sizeof(path), "%s/bench/out/npy/%s/%s.json", builddir,
	    name, name);
	if (!open_pair(path, "", &off, &on))
		return;
	time_rounds(off, 1);
	time_rounds(on, 1);
	for (int r = 0; r < reps; r++) {
		double a = time_rounds(off, calls);
		double b = peer_time(p, name, calls, ver, sizeof(ver));
		double c = time_rounds(on, calls);

		if (b < 0) {
			failures++;
			break;
		}
		t_off = fmin(t_off, a);
		t_on = fmin(t_on, c);
		if (b < t_np) {
			t_np = b;
			snprintf(best_ver, sizeof(best_ver), "%s", ver);
		}
	}
	gp_session_free(off);
	gp_session_free(on);
	/* the checksums first: a time per call only counts if both sides
	 * computed the same thing */
	l = gptop_cksum(path, calls, &n);
	worst = l != NULL ? cksum_compare(p, name, calls, l, n) : 1e30;
	if (!(worst <= 1)) {
		fprintf(stderr,
		    "bench: %s: gptop and numpy DISAGREE after %d "
		    "calls: the time rows are MISSED\n",
		    name, calls);
		failures++;
	}
	snprintf(label, sizeof(label), "%s.json: us per call (peer: numpy %s)",
	    name, best_ver);
	snprintf(tg, sizeof(tg), "<= %.3f (%gx)", 1 / speedup, speedup);
	row("e2e", label, t_off / 1e3, "us", t_np / 1e3, "numpy", tg,
	    worst <= 1 && t_np / t_off >= speedup);
	row("e2e", "  profiling on", t_on / 1e3, "us", t_np / 1e3, "numpy",
	    "report", -1);
	snprintf(label, sizeof(label),
	    "  checksums of %zu items, %d calls (x tol)", n, calls);
	row("e2e", label, worst, "", 0, "", "<= 1 (1e-9 rel)", worst <= 1);
	free(l);
}

static void
bench_numpy(void)
{
	const char *python = getenv("BENCH_PYTHON");
	char script[4096], data[4096];
	struct peer p;

	if (python == NULL || *python == '\0') {
		printf("%-9s %s\n", "e2e",
		    "skipped: no numpy (see "
		    "bench/README.md)");
		return;
	}
	snprintf(script, sizeof(script), "%s/bench/numpy/bench.py", srcdir);
	snprintf(data, sizeof(data), "%s/bench/out/npy", builddir);
	if (peer_start(&p, python, script, data) < 0) {
		fprintf(stderr, "bench: cannot start %s\n", script);
		failures++;
		return;
	}
	bench_e2e(&p, "add3", 20000, 7, 10);
	bench_e2e(&p, "logreg", 20, 7, 1.3);
	bench_e2e(&p, "mlp", 4, 5, 1.3);
	bench_e2e(&p, "chain", 6, 7, 1.5);
	peer_stop(&p);
}

/*
 * Row 6: the interface on the 100,000-apply graph, from the file its
 * GPTOP_TUI_BENCH mode wrote (run.sh runs it under tmux and names the file
 * in BENCH_TUI), and captures of that graph through the library.
 */
struct tui_fig {
	double worst_draw_wall, worst_draw_cpu, worst_sort, filter;
	double apply_sort, snap_wall, snap_cpu, idle_pct, rounds_s, idle_s;
	double batch_sum; /* batch rounds/s before + after the UI ran */
	int batch_n;
	char draw_view[32], sort_view[112];
	long applies;
};

static int
tui_read(const char *path, struct tui_fig *t)
{
	FILE *fp = fopen(path, "r");
	char line[512], view[32], col[64], how[64];
	double a, b;
	int n = 0;

	memset(t, 0, sizeof(*t));
	t->idle_pct = t->rounds_s = t->apply_sort = -1;
	if (fp == NULL)
		return (-1);
	while (fgets(line, sizeof(line), fp) != NULL) {
		n++;
		if (sscanf(line, "view %31s draw+output wall_ms %lf cpu_ms %lf",
			view, &a, &b) == 3) {
			if (a > t->worst_draw_wall) {
				t->worst_draw_wall = a;
				snprintf(t->draw_view, sizeof(t->draw_view),
				    "%s", view);
			}
			t->worst_draw_cpu = fmax(t->worst_draw_cpu, b);
		} else if (sscanf(line,
			       "view %31s sort \"%63[^\"]\"%63[^c]"
			       "cpu_ms %lf",
			       view, col, how, &a) == 4 ||
		    sscanf(line, "view %31s sort \"%63[^\"]\" cpu_ms %lf", view,
			col, &a) == 3) {
			if (a > t->worst_sort) {
				t->worst_sort = a;
				snprintf(t->sort_view, sizeof(t->sort_view),
				    "%s \"%s\"", view, col);
			}
			if (strcmp(view, "Apply") == 0 &&
			    strcmp(col, "%time") == 0 &&
			    strstr(line, "inverted") == NULL &&
			    strstr(line, "refresh") == NULL)
				t->apply_sort = a;
		} else if (sscanf(line, "view Apply filter cpu_ms %lf", &a) ==
		    1)
			t->filter = a;
		else if (sscanf(line, "snapshot wall_ms %lf cpu_ms %lf", &a,
			     &b) == 2) {
			t->snap_wall = a;
			t->snap_cpu = b;
		} else if (sscanf(line, "applies %ld", &t->applies) == 1)
			;
		else if (sscanf(line, "idle_ui_cpu_pct %lf", &a) == 1)
			t->idle_pct = a;
		else if (sscanf(line, "rounds_per_s %lf", &a) == 1)
			t->rounds_s = a;
		else if (sscanf(line, "idle_s %lf", &a) == 1)
			t->idle_s = a;
		else if (sscanf(line, "batch_rounds_per_s %lf", &a) == 1) {
			t->batch_sum += a;
			t->batch_n++;
		}
	}
	fclose(fp);
	return (n > 0 && t->rounds_s >= 0 ? 0 : -1);
}

/* Rounds per second of batch mode (gp_session_run, as gptop --batch) on
 * the 100,000-apply graph with the interface's flags, over secs seconds. */
static double
batch_rate(double secs)
{
	char path[4096];
	struct gp_session *s;
	uint64_t t0, rounds = 0;
	double rate;

	snprintf(path, sizeof(path), "%s/bench/out/dag-100000.json", builddir);
	if ((s = open_graph(path, "optimizer=None")) == NULL)
		return (-1);
	/* one round to size the run, then one run of that many rounds, as
	 * gptop --batch -n N does (each gp_session_run publishes the profile
	 * when it ends, which a run per round would count many times) */
	t0 = gp_clock_ns();
	gp_session_run(s, -1, 1);
	rounds = (uint64_t)(secs * 1e9 / (double)(gp_clock_ns() - t0));
	if (rounds < 2)
		rounds = 2;
	t0 = gp_clock_ns();
	gp_session_run(s, -1, rounds);
	rate = (double)rounds * 1e9 / (double)(gp_clock_ns() - t0);
	gp_session_free(s);
	return (rate);
}

static void
bench_tui(void)
{
	const char *file = getenv("BENCH_TUI");
	char label[256];
	struct tui_fig t;
	double rate;

	if (file == NULL || *file == '\0') {
		printf("%-9s %s\n", "tui",
		    "skipped: no terminal run (needs "
		    "tmux; see bench/README.md)");
		return;
	}
	if (tui_read(file, &t) < 0) {
		fprintf(stderr,
		    "bench: %s: no complete GPTOP_TUI_BENCH "
		    "output\n",
		    file);
		failures++;
		return;
	}
	snprintf(label, sizeof(label),
	    "%ld applies: draw, worst view (%s), "
	    "wall",
	    t.applies, t.draw_view);
	row("tui", label, t.worst_draw_wall, "ms", 0, "", "< 5 ms",
	    t.worst_draw_wall < 5);
	row("tui", "  draw, worst view, CPU", t.worst_draw_cpu, "ms", 0, "",
	    "< 5 ms", t.worst_draw_cpu < 5);
	snprintf(
	    label, sizeof(label), "  re-sort, worst: %s (CPU)", t.sort_view);
	row("tui", label, t.worst_sort, "ms", 0, "", "< 20 ms",
	    t.worst_sort < 20);
	row("tui", "  re-sort Apply by %time (CPU)", t.apply_sort, "ms", 0, "",
	    "< 20 ms", t.apply_sort >= 0 && t.apply_sort < 20);
	row("tui", "  Apply filter (CPU)", t.filter, "ms", 0, "", "report", -1);
	row("tui", "  snapshot of the profile, wall", t.snap_wall, "ms", 0, "",
	    "report", -1);
	row("tui", "  UI thread CPU while idle, % of a core", t.idle_pct, "%",
	    0, "", "< 2 %", t.idle_pct < 2);
	/* batch mode, same graph and flags, for as long as the UI idled,
	 * just before and just after the interface ran (run.sh) */
	rate = t.batch_n > 0 ? t.batch_sum / t.batch_n : batch_rate(5);
	row("tui", "  calls/s with the UI open (peer: batch)", t.rounds_s, "/s",
	    rate, "batch", ">= 0.95", t.rounds_s / rate >= 0.95);
}

static double
best_of(double a, double b)
{
	return (a < b ? a : b);
}

static void
bench_capture(void)
{
	char path[4096], ca[4096], cb[4096];
	struct gp_session *s;
	struct gp_profile *pa = NULL, *pb = NULL;
	struct gp_err err;
	double t_save = 1e30, t_load = 1e30, t_diff = 1e30;
	size_t bytes = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/bench/out/dag-100000.json", builddir);
	snprintf(ca, sizeof(ca), "%s/bench/out/cap-a.json", builddir);
	snprintf(cb, sizeof(cb), "%s/bench/out/cap-b.json", builddir);
	if ((s = open_graph(path, "optimizer=None")) == NULL)
		return;
	gp_session_run(s, -1, 3);
	for (int r = 0; r < 2; r++) {
		uint64_t t0 = gp_clock_ns();

		if (gp_capture_save(gp_session_profile(s), ca, &err) < 0) {
			fprintf(stderr, "bench: %s\n", err.msg);
			failures++;
			gp_session_free(s);
			return;
		}
		t_save = best_of(t_save, (double)(gp_clock_ns() - t0));
	}
	gp_session_run(s, -1, 2);
	if (gp_capture_save(gp_session_profile(s), cb, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.msg);
		failures++;
	}
	gp_session_free(s);
	if ((fp = fopen(ca, "r")) != NULL) {
		fseek(fp, 0, SEEK_END);
		bytes = (size_t)ftell(fp);
		fclose(fp);
	}
	for (int r = 0; r < 2; r++) {
		uint64_t t0 = gp_clock_ns();
		struct gp_profile *p = gp_capture_load(ca, NULL, &err);

		t_load = best_of(t_load, (double)(gp_clock_ns() - t0));
		if (p == NULL) {
			fprintf(stderr, "bench: %s\n", err.msg);
			failures++;
			return;
		}
		gp_profile_free(pa);
		pa = p;
	}
	if ((pb = gp_capture_load(cb, NULL, &err)) == NULL) {
		fprintf(stderr, "bench: %s\n", err.msg);
		failures++;
		gp_profile_free(pa);
		return;
	}
	for (int r = 0; r < 2; r++) {
		uint64_t t0 = gp_clock_ns();
		struct gp_diff *d = gp_diff_compute(pa, pb, NULL);

		t_diff = best_of(t_diff, (double)(gp_clock_ns() - t0));
		gp_diff_free(d);
	}
	gp_profile_free(pa);
	gp_profile_free(pb);
	row("capture", "100,000 applies: save (wall)", t_save / 1e6, "ms", 0,
	    "", "< 1000 ms", t_save < 1e9);
	row("capture", "  size on disk", (double)bytes / 1048576.0, "MB", 0, "",
	    "report", -1);
	row("capture", "  load (wall)", t_load / 1e6, "ms", 0, "", "< 1000 ms",
	    t_load < 1e9);
	row("capture", "  diff of two captures (wall)", t_diff / 1e6, "ms", 0,
	    "", "< 200 ms", t_diff < 2e8);
}

int
main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;

	gp_par_init(argv);
	if (getenv("top_srcdir") != NULL)
		srcdir = getenv("top_srcdir");
	if (getenv("top_builddir") != NULL)
		builddir = getenv("top_builddir");
	gp_clock_init();
	if (only != NULL && strcmp(only, "tui-batch") == 0) {
		/* run.sh, around the interface's run */
		printf("batch_rounds_per_s %.2f\n",
		    batch_rate(argc > 2 ? atof(argv[2]) : 5));
		return (failures ? 1 : 0);
	}
	printf("%-9s %-48s %10s %-6s %10s %-8s %7s  %-16s %s\n", "bench",
	    "what", "figure", "unit", "peer", "peer is", "ratio", "target",
	    "status");
#define RUN(name, call)                                                        \
	do {                                                                   \
		if (only == NULL || strcmp(only, name) == 0)                   \
			call;                                                  \
	} while (0)
	RUN("load", bench_load());
	RUN("dispatch", bench_dispatch());
	RUN("overhead", bench_overhead("add3", 20000, 9, 0));
	RUN("overhead", bench_overhead("logreg", 20, 15, 1.03));
	RUN("overhead", bench_overhead("mlp", 4, 9, 1.03));
	RUN("overhead", bench_overhead("chain", 10, 9, 0));
	RUN("add", bench_add());
	RUN("fusion", bench_fusion_rows());
	RUN("sum", bench_sum());
	RUN("dot", bench_dot());
	RUN("sgemm", bench_sgemm());
	RUN("numpy", bench_numpy());
	RUN("tui", bench_tui());
	RUN("capture", bench_capture());
	return (failures ? 1 : 0);
}
