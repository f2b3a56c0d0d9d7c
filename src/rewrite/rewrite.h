/*
 * rewrite.h: graph rewrites.  Every rewriter is one const table entry
 * (name, tags, phase, run function) in one of the files of src/rewrite/;
 * the driver runs the selected ones phase by phase before the VM links the
 * graph.  A phase marked `repeat` runs its rewriters again until a whole
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

#include "base/flags.h"
#include "graph/graph.h"
#include "prof/profile.h"

#define GP_REWRITE_MAX_PASSES 16

enum gp_phase {
	GP_PHASE_MERGE,
	GP_PHASE_CANONICALIZE,
	GP_PHASE_STABILIZE,
	GP_PHASE_SPECIALIZE,
	GP_PHASE_FUSION,
	GP_PHASE_INPLACE,
	GP_PHASE__COUNT
};

struct gp_rewrite_ctx {
	struct gp_graph		*g;
	const struct gp_flags	*flags;
	int			 tried;	/* the rewriter counts its attempts */
	/* time spent compiling (JIT), in ns, reported as link time */
	double			 jit_ns;
};

struct gp_rewriter {
	const char	*name;
	const char	*tags;	/* ':'-separated */
	enum gp_phase	 phase;
	const char	*doc;	/* one line */
	/* One pass over the graph: returns the number of changes made, or
	 * -1 with err set.  Must keep every result the same (to tolerance). */
	int		(*run)(struct gp_rewrite_ctx *c, struct gp_err *err);
};

/* Every rewriter in run order within its phase; *n gets the count. */
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

/* Helpers for rewriters. */
/* Consumers of every variable (CSR), recomputed on demand. */
struct gp_uses {
	int	*start;	/* n_vars + 1 */
	int	*node;	/* consumer node per use */
	int	*slot;	/* input position per use */
};
void	gp_uses_build(const struct gp_graph *g, struct gp_uses *u);
void	gp_uses_free(struct gp_uses *u);
static inline int
gp_uses_count(const struct gp_uses *u, int v)
{
	return (u->start[v + 1] - u->start[v]);
}
/* Is v needed after a call of some function (an output or update
 * source)? */
bool	gp_graph_var_escapes(const struct gp_graph *g, int v);

#endif
