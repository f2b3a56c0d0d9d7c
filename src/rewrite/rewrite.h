/*
 * rewrite.h: graph rewrites.  Every rewriter is one const table entry
 * (name, tags, phase, run function: struct gp_rewriter, rw.h) in one of
 * the family files of src/rewrite/, which table.c gathers into the
 * registry; the driver (rewrite.c) runs the selected ones phase by phase
 * before the VM links the graph.  A phase marked `repeat` runs its rewriters again until a whole
 * pass changes nothing (Theano's equilibrium), bounded by GP_REWRITE_MAX_PASSES.
 *
 * Selection follows Theano's flags: `optimizer` picks a base set by tag
 * (fast_run, fast_compile, None), `optimizer_excluding` drops names or
 * tags, `optimizer_including` adds them back or adds untagged ones,
 * `optimizer_requiring` insists (an unknown or excluded name is an error).
 *
 * Each rewriter's time, tries, applications and node counts, and each
 * phase's, go into the driver's own tables (struct gp_rewrite_stats,
 * stats.h), which the profile takes (profile_optimizer); the rewrite layer
 * knows nothing of the profiler above it.
 */
#ifndef GPTOP_SRC_REWRITE_H
#define GPTOP_SRC_REWRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/flags.h"
#include "graph/graph.h"
#include "rewrite/rw.h"
#include "rewrite/stats.h"

#define GP_REWRITE_MAX_PASSES 16

/* The registry (table.c): every rewriter in run order within its phase;
 * *n gets the count. */
const struct gp_rewriter *const *gp_rewrite_all(size_t *n);
const char	*gp_rewrite_phase_name(enum gp_phase ph);

/* Which rewriters the flags select: sel[i] for gp_rewrite_all()[i].
 * Returns -1 with err set for an unknown or contradictory name/tag. */
int	gp_rewrite_select(const struct gp_flags *f, bool *sel,
	    struct gp_err *err);
/* Run the selected rewriters on g, then compact it.  st (may be NULL)
 * gets the rewriter and phase tables, the active set string and the JIT's
 * time, also when a rewriter fails (-1 with err set; a selection error
 * leaves it empty); its owner frees them
 * with gp_rewrite_stats_free or hands them on (gp_profile_take_rewrites). */
int	gp_rewrite_run(struct gp_graph *g, const struct gp_flags *f,
	    struct gp_rewrite_stats *st, struct gp_err *err);
/* Free what st holds and empty it. */
void	gp_rewrite_stats_free(struct gp_rewrite_stats *st);

#endif
