/*
 * fuzz-load.c: fuzz target for the graph loader: parse, resolve, infer
 * every type, check for cycles (gp_graph_load_buf), then what a session
 * does before rewriting: clone the graph and link the clone into a VM.
 * Properties: a refused graph gives one line "fuzz.json:LINE:COL: ..." or
 * "fuzz.json: ..."; a clone hashes like its original.  Relative .npy paths
 * resolve in $GPTOP_FUZZ_DIR (default: a folder that does not exist).
 */
#include "config.h"

#include "fuzz.h"
#include "graph/graph.h"
#include "graph/hash.h"
#include "load/graph-json.h"
#include "run/vm.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = getenv("GPTOP_FUZZ_DIR");
	struct gp_load_opts lo = {.limit_bytes = FZ_LIMIT_BYTES};
	struct gp_vm_opts vo = {.allow_gc = true};
	struct gp_graph *g, *c;
	struct gp_vm *vm;
	struct gp_err err = {{0}};

	g = gp_graph_load_buf((const char *)data, size, "fuzz.json",
	    dir != NULL ? dir : "/nonexistent-gptop-fuzz", &lo, &err);
	if (g == NULL) {
		fz_check_msg(err.msg, "fuzz.json:", 1);
		return (0);
	}
	c = gp_graph_clone(g);
	if (gp_graph_hash(c) != gp_graph_hash(g))
		fz_fail("a clone hashes differently", "");
	vm = gp_vm_new(c, &vo, NULL, &err);
	if (vm == NULL)
		fz_check_msg(err.msg, NULL, 0);
	gp_vm_free(vm);
	gp_graph_free(c);
	gp_graph_free(g);
	return (0);
}
