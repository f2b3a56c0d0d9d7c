/*
 * fuzz-rewrite.c: fuzz target for the rewrite pipeline on loaded graphs,
 * as a session builds a program: load, clone, run every fast_run rewriter
 * (the JIT off: no compiler is started), link into a VM and compute each
 * function's memory profile.  Every other input also runs with the GC
 * off and fast_compile, so both rewrite sets are covered.  Property: a
 * refused rewrite or link gives one non-empty line.
 */
#include "config.h"

#include "fuzz.h"
#include "base/flags.h"
#include "load/graph-json.h"
#include "graph/graph.h"
#include "prof/memprof.h"
#include "prof/profile-hook.h"
#include "prof/profile.h"
#include "rewrite/rewrite.h"
#include "run/vm.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_load_opts lo = {.limit_bytes = FZ_LIMIT_BYTES};
	struct gp_memprof_opts mo = {
	    .min_peak = true, .budget_ms = 20, .max_states = 2000};
	struct gp_flags f;
	struct gp_vm_opts vo;
	struct gp_graph *g, *c;
	struct gp_profile *prof;
	struct gp_vm_hook hook;
	struct gp_rewrite_stats rws;
	struct gp_vm *vm;
	struct gp_err err = {{0}};
	bool alt = size % 2 == 1;
	int rc;

	g = gp_graph_load_buf((const char *)data, size, "fuzz.json",
	    "/nonexistent-gptop-fuzz", &lo, &err);
	if (g == NULL)
		return (0);
	gp_flags_init(&f);
	f.jit = false;
	f.allow_gc = !alt;
	if (alt) {
		free(f.optimizer);
		f.optimizer = gp_xstrdup("fast_compile");
	}
	vo.allow_gc = f.allow_gc;
	c = gp_graph_clone(g);
	prof = gp_profile_new(c);
	hook = gp_profile_hook(prof);
	rc = gp_rewrite_run(c, &f, &rws, &err);
	gp_profile_take_rewrites(prof, &rws);
	if (rc < 0) {
		fz_check_msg(err.msg, NULL, 0);
	} else if ((vm = gp_vm_new(c, &vo, &hook, &err)) == NULL) {
		fz_check_msg(err.msg, NULL, 0);
	} else {
		for (int fi = 0; fi < prof->n_fn; fi++) {
			struct gp_memprof *m =
			    gp_memprof_compute(c, vm, fi, &mo);

			if (m == NULL)
				fz_fail("no memory profile", "");
			gp_memprof_free(m);
		}
		gp_vm_free(vm);
	}
	gp_profile_free(prof);
	gp_graph_free(c);
	gp_graph_free(g);
	gp_flags_done(&f);
	return (0);
}
