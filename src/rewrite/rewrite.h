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
 * phase's, go into the profile's rewriter tables (profile_optimizer).
 */
#ifndef GPTOP_SRC_REWRITE_H
#define GPTOP_SRC_REWRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/flags.h"
#include "graph/graph.h"
#include "prof/profile.h"
#include "rewrite/rw.h"

#define GP_REWRITE_MAX_PASSES 16

/* The registry (table.c): every rewriter in run order within its phase;
 * *n gets the count. */
const struct gp_rewriter *const *gp_rewrite_all(size_t *n);
const char	*gp_rewrite_phase_name(enum gp_phase ph);

/* Which rewriters the flags select: sel[i] for gp_rewrite_all()[i].
 * Returns -1 with err set for an unknown or contradictory name/tag. */
int	gp_rewrite_select(const struct gp_flags *f, bool *sel,
	    struct gp_err *err);
/* Run the selected rewriters on g, then compact it.  prof (may be NULL)
 * gets the rewriter and phase tables and the active set string. */
int	gp_rewrite_run(struct gp_graph *g, const struct gp_flags *f,
	    struct gp_profile *prof, struct gp_err *err);

#endif
