/*
 * stats.h: what the rewrite driver measures (gp_rewrite_run, rewrite.h):
 * each rewriter's time, tries, applications and node counts, each phase's,
 * the active set and the JIT's compile time.  The rewrite layer owns these
 * tables; the profile, a layer above, takes them (gp_profile_take_rewrites,
 * prof/profile.h) for profile_optimizer, the report and captures.
 */
#ifndef GPTOP_SRC_REWRITE_STATS_H
#define GPTOP_SRC_REWRITE_STATS_H

#include <stdbool.h>

/* One rewriter's row (profile_optimizer). */
struct gp_rewrite_stat {
	char		*name;
	char		*tags;
	char		*phase;
	bool		 enabled;
	double		 time_ns;
	int		 applied, tried;
	int		 nodes_before, nodes_after;
};

/* One phase's row. */
struct gp_rewrite_phase_stat {
	char		*name;
	double		 time_ns;
	int		 passes;
	int		 nodes_before, nodes_after;
};

/* All that one gp_rewrite_run measured; the tables and the string are
 * heap-allocated, for whoever takes them. */
struct gp_rewrite_stats {
	int				 n_rw, n_phase;
	struct gp_rewrite_stat		*rw;
	struct gp_rewrite_phase_stat	*phase;
	char				*active;	/* the active set */
	double				 jit_ns;	/* compiling kernels */
};

#endif
