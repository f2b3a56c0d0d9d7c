/*
 * bench-ab.c: two rewrite settings of one graph or ONNX model timed call
 * against call in one process: program A (rewritten with FLAGS_A) and
 * program B (FLAGS_B) run in turn, A B then B A, so that a busy machine
 * slows both alike, and each pair gives one difference and one ratio.
 * Prints each program's applies, median and fastest call, the median
 * (with the quartiles) of the paired differences A - B and of the paired
 * ratios A / B.  `make bench/bench-ab` builds it (`make bench` too; not
 * part of `make check`).
 *
 *   bench/bench-ab MODEL [PAIRS [FLAGS_A [FLAGS_B | profile]]]
 *
 * Defaults: 50 pairs, A "optimizer=fast_run", B
 * "optimizer_excluding=cnn" (the CNN rewrites' effect).  With B
 * "profile", one program (FLAGS_A) runs: A its calls profiled (the
 * profile's hook on the VM, every apply stamped, as gptop's profile=True
 * runs it), B the same VM's calls unprofiled: the profiler's overhead,
 * measured on the same buffers, one call after the other (bench/onnx's
 * "profiled / unprofiled, paired calls" row).  MODEL is a graph file
 * (.json) or an ONNX model (.onnx, inputs seeded random); function 0
 * runs.  Like gptop, the process first sets libgomp's idle threads'
 * policy from the machine's load (gp_par_init).
 *
 *   bench/bench-ab MODEL serve [FLAGS [INPUTS]]
 *
 * A timing server for a driver (bench/onnx/bench.py), as ort-bench.js's
 * --serve: one program (FLAGS, default "optimizer=fast_run"; INPUTS an
 * ONNX model's inputs as the flag onnx__inputs takes them,
 * "NAME=FILE:NAME=FILE"), warmed up by 3 calls; it prints "ready", then
 * for each line "N" on stdin runs N unprofiled calls and prints their wall
 * seconds, for "pN" N calls profiled (the profile's hook, as above); "0"
 * or the end of input ends it.  Loading and rewriting are not timed, and
 * the calls are gptop's own (gp_vm_call), so a driver times gptop's
 * inference as it times ORT's: batches interleaved in one process each.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/flags.h"
#include "graph/graph.h"
#include "load/graph-json.h"
#include "load/onnx-build.h"
#include "ops/par.h"
#include "prof/profile-hook.h"
#include "rewrite/rewrite.h"
#include "run/vm.h"

static struct gp_vm *
program(const struct gp_graph *g0, const char *flags, struct gp_graph **g,
    int *applies, const struct gp_vm_hook *hook)
{
	struct gp_flags f;
	struct gp_err err;
	struct gp_vm_opts o = {.allow_gc = true};
	struct gp_vm *vm;

	*g = gp_graph_clone(g0);
	gp_flags_init(&f);
	if (gp_flags_parse(&f, flags, "bench-ab", &err) < 0 ||
	    gp_rewrite_run(*g, &f, NULL, &err) < 0 ||
	    (vm = gp_vm_new(*g, &o, hook, &err)) == NULL) {
		fprintf(stderr, "bench-ab: %s: %s\n", flags, err.msg);
		exit(2);
	}
	gp_flags_done(&f);
	*applies = 0;
	for (size_t i = 0; i < (*g)->n_nodes; i++)
		*applies += !(*g)->nodes[i].dead;
	return (vm);
}

/* The serve mode: batches of calls timed on request (see the top). */
static int
serve(struct gp_vm *vm, const struct gp_vm_hook *hook)
{
	char line[64];

	for (int w = 0; w < 3; w++)
		gp_vm_call(vm, 0, NULL);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		bool prof = line[0] == 'p';
		long n = strtol(line + prof, NULL, 10);
		uint64_t t0;

		if (n <= 0)
			break;
		t0 = gp_clock_ns();
		for (long i = 0; i < n; i++)
			gp_vm_call(vm, 0, prof ? hook : NULL);
		printf("%.9f\n", (double)(gp_clock_ns() - t0) / 1e9);
		fflush(stdout);
	}
	return (0);
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

int
main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : NULL;
	bool serving = argc > 2 && strcmp(argv[2], "serve") == 0;
	int n = serving ? 1 : argc > 2 ? atoi(argv[2]) : 50, na, nb;
	const char *fa = argc > 3 ? argv[3] : "optimizer=fast_run";
	const char *fb = argc > 4 ? argv[4] : "optimizer_excluding=cnn";
	/* B "profile": one program, A its profiled calls, B its unprofiled */
	bool prof = strcmp(fb, "profile") == 0;
	struct gp_err err;
	struct gp_graph *g0, *ga, *gb = NULL;
	struct gp_vm *a, *b;
	struct gp_profile *p = NULL;
	struct gp_vm_hook hook;
	const struct gp_vm_hook *ha = NULL;
	double *ta, *tb, *d, *q;
	size_t len;

	gp_par_init(argv);
	gp_clock_init();
	if (path == NULL || n < 1) {
		fprintf(stderr, "usage: bench-ab MODEL [PAIRS [FLAGS_A "
		    "[FLAGS_B|profile]]]\n       bench-ab MODEL serve "
		    "[FLAGS [INPUTS]]\n");
		return (2);
	}
	len = strlen(path);
	if (len > 5 && strcmp(path + len - 5, ".onnx") == 0) {
		struct gp_onnx_load_opts lo = {.limit_bytes =
		    gp_graph_default_limit(), .inputs = serving && argc > 4 ?
		    argv[4] : NULL};

		g0 = gp_onnx_load(path, &lo, &err);
	} else
		g0 = gp_graph_load(path, NULL, &err);
	if (g0 == NULL) {
		fprintf(stderr, "bench-ab: %s\n", err.msg);
		return (2);
	}
	if (serving) {
		int rc;

		p = gp_profile_new(g0);
		hook = gp_profile_hook(p);
		a = program(g0, fa, &ga, &na, &hook);
		rc = serve(a, &hook);
		gp_vm_free(a);
		gp_graph_free(ga);
		gp_graph_free(g0);
		gp_profile_free(p);
		return (rc);
	}
	if (prof) {
		p = gp_profile_new(g0);
		hook = gp_profile_hook(p);
		ha = &hook;
		a = program(g0, fa, &ga, &na, ha);
		b = a;
		nb = na;
		fb = "(the same, unprofiled)";
	} else {
		a = program(g0, fa, &ga, &na, NULL);
		b = program(g0, fb, &gb, &nb, NULL);
	}
	ta = calloc((size_t)n, sizeof(double));
	tb = calloc((size_t)n, sizeof(double));
	d = calloc((size_t)n, sizeof(double));
	q = calloc((size_t)n, sizeof(double));
	for (int w = 0; w < 3; w++) {	/* warm up: buffers, caches */
		gp_vm_call(a, 0, ha);
		gp_vm_call(b, 0, NULL);
	}
	for (int i = 0; i < n; i++) {
		bool a_first = i % 2 == 0;
		uint64_t t0 = gp_clock_ns(), t1, t2;
		double x, y;

		gp_vm_call(a_first ? a : b, 0, a_first ? ha : NULL);
		t1 = gp_clock_ns();
		gp_vm_call(a_first ? b : a, 0, a_first ? NULL : ha);
		t2 = gp_clock_ns();
		x = (double)(t1 - t0) / 1e6;
		y = (double)(t2 - t1) / 1e6;
		ta[i] = a_first ? x : y;
		tb[i] = a_first ? y : x;
		d[i] = ta[i] - tb[i];
		q[i] = ta[i] / tb[i];
	}
	qsort(ta, (size_t)n, sizeof(double), cmp);
	qsort(tb, (size_t)n, sizeof(double), cmp);
	qsort(d, (size_t)n, sizeof(double), cmp);
	qsort(q, (size_t)n, sizeof(double), cmp);
	printf("%s, %d pairs\n", path, n);
	printf("  A %-28s %4d applies  median %8.3f ms  fastest %8.3f ms\n",
	    prof ? "(profiled)" : fa, na, ta[n / 2], ta[0]);
	printf("  B %-28s %4d applies  median %8.3f ms  fastest %8.3f ms\n",
	    fb, nb, tb[n / 2], tb[0]);
	printf("  A - B per pair: median %+.3f ms (quartiles %+.3f, %+.3f)\n",
	    d[n / 2], d[n / 4], d[3 * n / 4]);
	printf("  A / B per pair: median %.4f (quartiles %.4f, %.4f)\n",
	    q[n / 2], q[n / 4], q[3 * n / 4]);
	gp_vm_free(a);
	if (b != a)
		gp_vm_free(b);
	gp_graph_free(ga);
	gp_graph_free(gb);
	gp_graph_free(g0);
	gp_profile_free(p);
	free(ta);
	free(tb);
	free(d);
	free(q);
	return (0);
}
