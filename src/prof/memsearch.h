/*
 * memsearch.h: the smallest peak of the memory profile's intermediates
 * over every valid order of a function's applies (Theano's "minimum peak
 * memory"), by depth-first branch and bound with a memo of visited
 * down-sets, a dominance rule and a time and state budget.  A part of
 * gp_memprof_compute (memprof.h), which asks for it with min_peak.
 */
#ifndef GPTOP_SRC_MEMSEARCH_H
#define GPTOP_SRC_MEMSEARCH_H

#include <stdint.h>

#include "graph/graph.h"
#include "prof/memdata.h"
#include "prof/memreplay.h"

/* Search the orders of program pr (model m, built from it) within
 * budget_ms (<= 0: 1000) and max_states (<= 0: 2e6), and fill mp's min_*
 * figures.  The model is left at GP_MEM_AS_RUN. */
void	gp_memsearch_run(struct gp_memprof *mp, struct mr_model *m,
	    const struct gp_graph *g, const struct mr_prog *pr,
	    int64_t budget_ms, int64_t max_states);

#endif
