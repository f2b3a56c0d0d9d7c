/*
 * memprof.h: the memory profile.  For one function of a compiled program
 * it predicts, from the VM's schedule and the static shapes, what every
 * apply allocates, aliases and frees, by replaying the VM's own storage
 * rules: outputs allocated (OUT_ALLOC, 'c'), made by the kernel as a view
 * of an input (OUT_KERNEL, 'v') or that input overwritten in place
 * (OUT_DESTROY, 'i'); reference-counted storage, so a buffer is freed only
 * when it and every view or in-place alias of it are dead; the GC lists
 * computed from last use; function outputs and update sources surviving
 * the call; an output's buffer reused by the next call when nobody else
 * holds it; each function's outputs kept until its next call; updates
 * applied after the call.
 *
 * Two kinds of figures come out of it:
 *  - Theano's, done right: "intermediates", the storage the applies
 *    allocate during one call on its own (inputs, shared variables and
 *    constants not counted), with the current setting, with inplace
 *    ignored, with views ignored, with GC off; and the smallest peak over
 *    all valid orders of the applies (a bounded exact search).
 *  - the allocator's: every storage alive (graph values, buffers held from
 *    earlier calls, intermediates), call after call as the session runs
 *    them (every function in turn, round after round), which is what
 *    gp_alloc_get_stats() measures and gp_prof_fn.mem_peak_measured keeps.
 *
 * The profile's data is memdata.h's (plain data, cloned into snapshots);
 * the replay is memreplay.c's, the search of the smallest peak
 * memsearch.c's; the Memory Profile section of the report is memreport.h's,
 * a capture's "memory" member capture/memjson.h's.  Here: computing the
 * profile, and reading it against a profile's measured figures.
 */
#ifndef GPTOP_SRC_MEMPROF_H
#define GPTOP_SRC_MEMPROF_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"
#include "prof/memdata.h"
#include "prof/profile.h"

struct gp_vm;

struct gp_memprof_opts {
	bool	min_peak;	/* search the order of least peak */
	int64_t	budget_ms;	/* its time budget (<= 0: 1000) */
	int64_t	max_states;	/* its state budget (<= 0: 2e6) */
};

/* The profile of function fn of a freshly linked vm (call it before the
 * first gp_vm_call): NULL when fn is out of range. */
struct gp_memprof	*gp_memprof_compute(const struct gp_graph *g,
			    const struct gp_vm *vm, int fn,
			    const struct gp_memprof_opts *o);

/*
 * The figures every frontend prints under one name each (doc/memory.md,
 * "The figures and their names"):
 *  - Measured peak: gp_prof_fn.mem_peak_measured;
 *  - Predicted peak: gp_memprof_predicted_peak(), what the measured peak
 *    should be;
 *  - Intermediates peak: gp_memprof_inter_peak(), Theano's "Max peak
 *    memory with current setting".
 */
/* Which of its calls function fn's measured peak covers. */
enum gp_mem_span	 gp_memprof_span(const struct gp_profile *p, int fn);
/* Function fn's predicted peak: its program peak for the calls run plus
 * the storage outside the program (m->external); 0 without a memory
 * profile. */
uint64_t		 gp_memprof_predicted_peak(const struct gp_profile *p,
			    int fn);

/* Bytes of the distinct storages holding g's values. */
uint64_t		 gp_memprof_graph_values(const struct gp_graph *g);
/* The same, without the storages `beside` holds too (NULL: none): what a
 * graph kept beside the running one, such as the session's pristine copy
 * (which shares its inputs and constants with the running graph,
 * gp_graph_clone), adds to the allocator's count: give it to
 * m->external. */
uint64_t		 gp_memprof_graph_values_apart(const struct gp_graph *g,
			    const struct gp_graph *beside);

#endif
