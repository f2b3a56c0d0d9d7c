/*
 * diff.h: the comparison of two profiles, A (the baseline) and B, for
 * `gptop --batch --diff A B` and the TUI's Diff view.
 *
 * Rows are paired at three levels: Class and Op rows by name; Apply rows by
 * structure: the op with its params, the input signature (dtypes and
 * shapes) and the inputs' producers, themselves paired first (so an apply
 * pairs with the apply that computes the same thing from the same paired
 * inputs); failing that by apply name; then by structure without the
 * names of graph inputs; then by op and signature where the producers are
 * unpaired on both sides (the first candidate in schedule order: what
 * follows a rewritten region); last, what is left is grouped by
 * provenance: the applies of each side doing the work of the same source
 * nodes of the graph file become one group row (a fused apply against the
 * applies it fused: struct gp_diff_group).  Captures taken with different
 * rewrite sets therefore pair what both computed alike, group what a
 * rewrite replaced, and list the rest as added (only in B) or removed
 * (only in A): applies whose source nodes nothing on the other side
 * covers.  Functions are paired by name.
 *
 * Each pair carries the time of A and of B (totals, or per call of the
 * function with opts.per_call), delta = B - A (rows only in B count as
 * positive, only in A as negative), the ratio B / A, the calls of each,
 * the time per execution of each, and a verdict on noise: a Mann-Whitney U
 * test on the two per-execution histograms (ties within a bin corrected
 * for, normal approximation), its p adjusted for the many rows of the
 * table (Benjamini-Hochberg) and below alpha, together with a minimum
 * relative change of the mean time per execution and an absolute floor (a
 * few probe costs or timer resolutions per execution: smaller changes are
 * below what the clock can tell).  Class and Ops rows whose applies differ
 * between A and B (a rewrite fused, split or replaced some) are judged by
 * their totals per round instead (a Welch test), since their executions
 * are not alike (doc/capture-format.md says why).  Captures taken apart
 * (not opts.same_load) are judged on B's times divided by a factor
 * common to the paired applies (the BLAS applies' own when there are 3
 * of them), and a row's p is also the larger of two more: its ratio
 * among the other rows' around that factor, and its median's move
 * against the spread of its executions within each capture (a capture's
 * executions share its state: the capture is the unit).  Like benchstat,
 * a change within noise is marked "~".
 *
 * For a table widget: every table is a flat array of struct gp_diff_row;
 * gp_diff_sort() sorts it by any column of enum gp_diff_col, and
 * gp_diff_cols[] gives each column's title and natural direction.  Apply
 * rows point back at the applies (fn_a/id_a, fn_b/id_b) for detail views.
 *
 * Memory: the diff borrows a and b, and its rows' names point into them:
 * they must outlive it.  It copies nothing from a live session: diff
 * snapshots (gp_session_snapshot, gp_session_baseline) or captures.
 *
 *	struct gp_diff *d = gp_diff_compute(base, cur, NULL);
 *
 *	gp_diff_sort(&d->applies, GP_DIFF_COL_RATIO, true);
 *	for (size_t i = 0; i < d->applies.n; i++) {
 *		const struct gp_diff_row *r = &d->applies.rows[i];
 *
 *		draw(r->name, r->time_a, r->time_b, r->delta, r->ratio,
 *		    r->calls_a, r->calls_b, gp_diff_mark(r));
 *		if (r->id_a >= 0)	(A's apply, for a detail view)
 *			show(&base->fn[r->fn_a].ap[r->id_a]);
 *	}
 *	gp_diff_free(d);
 */
#ifndef GPTOP_SRC_DIFF_H
#define GPTOP_SRC_DIFF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "prof/profile.h"

struct gp_capture_info;
struct gp_diff_peer;

enum gp_diff_kind {
	GP_DIFF_PAIRED,		/* in A and in B */
	GP_DIFF_ADDED,		/* only in B */
	GP_DIFF_REMOVED		/* only in A */
};

/* How a row was paired. */
enum gp_diff_match {
	GP_MATCH_NONE,		/* added or removed */
	GP_MATCH_NAME,		/* class, op and function rows: by name */
	GP_MATCH_STRUCTURE,	/* op, params, signature, paired producers */
	GP_MATCH_APPLY_NAME,	/* the apply's name */
	GP_MATCH_SHAPE,		/* structure, graph input names aside */
	GP_MATCH_LOOSE,		/* op and signature after a rewritten
				 * region (producers unpaired on both sides):
				 * the first candidate in schedule order */
	GP_MATCH_SOURCES	/* a group row: the applies of each side,
				 * paired by nothing else, that do the work
				 * of the same source nodes (provenance) */
};

enum gp_diff_verdict {
	GP_VERDICT_NOISE,	/* "~": within noise */
	GP_VERDICT_SLOWER,	/* B slower per execution, beyond noise */
	GP_VERDICT_FASTER,	/* B faster per execution, beyond noise */
	GP_VERDICT_FEW,		/* "?": too few executions to tell */
	GP_VERDICT_ONLY		/* added or removed: nothing to test */
};

/*
 * A row of a table.  Times are ns over all calls; per_call_* and median_*
 * are per execution.  delta = time_b - time_a; ratio = time_b / time_a
 * (INFINITY when added, 0 when removed, NAN when both are 0); change =
 * (per_call_b - per_call_a) / per_call_a (NAN when undefined), or, when
 * by_round, the relative change of the time per round; p_raw is the noise
 * test's two-sided p and p the same adjusted for the rows of the table
 * (Benjamini-Hochberg), both NAN when not tested (added, removed).
 */
struct gp_diff_row {
	/* B's name (A's when removed); apply rows: A's too when it differs,
	 * else NULL.  They point into the profiles or the diff. */
	const char		*name;
	const char		*name_a;
	const char		*fn_name;	/* apply rows: the function */
	enum gp_diff_kind	 kind;
	enum gp_diff_match	 match;
	/* apply rows: A's and B's applies (function, position), or -1 */
	int			 fn_a, id_a;
	int			 fn_b, id_b;
	int			 n_apply_a, n_apply_b;
	uint64_t		 calls_a, calls_b;	/* executions */
	double			 time_a, time_b;
	double			 pct_a, pct_b;	/* of each side's total */
	double			 per_call_a, per_call_b;
	double			 median_a, median_b;
	/* the spread of each side's executions: a standard deviation of
	 * their log times, from the quartiles (IQR / 1.349), at least the
	 * histogram's resolution, 1/32; NAN under 4 executions or when the
	 * first quartile is 0 */
	double			 spread_a, spread_b;
	double			 delta;
	double			 ratio;
	double			 change;
	/* the change judged: change with B's times divided by the diff's
	 * common factor (the same when it is 1) */
	double			 rel_change;
	double			 p;
	double			 p_raw;
	/* the distributions judged (per execution; NULL on a missing
	 * side), in the profiles or the diff's rollups */
	const struct gp_prof_stat *st_a, *st_b;
	/* every apply of the row runs through BLAS: captures taken apart
	 * judge it against the BLAS rows' drift (struct gp_diff) */
	bool			 blas;
	/* what B's times are divided by before the row is judged: the
	 * diff's factor, or factor_blas for BLAS rows; a function's call
	 * row takes the two in the proportion of A's time in its applies;
	 * 1 with opts.same_load; factor_brief for a brief apply row */
	double			 factor;
	/* an apply row of captures taken apart whose medians both lie under
	 * GP_DIFF_FACTOR_MIN_FLOORS floors (diff-impl.h): judged against
	 * the other brief rows (factor_brief, spread_brief) */
	bool			 brief;
	/* Class and Ops rows whose applies differ between A and B: judged
	 * by the time per round (all executions of a call summed), not per
	 * execution */
	bool			 by_round;
	enum gp_diff_verdict	 verdict;
	/* a group row (match GP_MATCH_SOURCES): its index in the diff's
	 * groups, else -1 */
	int			 group;
	/* a view's row standing for one member of the group row parent
	 * (the TUI's expanded group): sorted as its parent, else NULL */
	const struct gp_diff_row *parent;
};

/*
 * A group (diff-prov.c): in one function, the applies of A and of B that
 * no other rule paired, gathered by their source nodes (provenance,
 * graph/prov.h): the smallest sets of them on both sides that do the work
 * of the same source nodes (those linked by a source node one of them
 * does, transitively).  A fused apply and the applies it fused, a Gemm
 * and its dot and add.  Its row's times are the members' summed; it is
 * judged on its time per round (by_round).  Only captures of the same
 * graph (hash) that both carry provenance (gptop-capture/3 on) are grouped.
 */
struct gp_diff_group {
	int			 fn;	/* index into the diff's fn */
	int			 n_a, n_b;
	int			*id_a, *id_b;	/* members, in schedule order */
	int			 n_src;	/* source nodes the group covers */
	/* the members' executions, merged (the row's st_a, st_b) */
	struct gp_prof_stat	 st_a, st_b;
	/* the row's names: "NAME (N sources)" for one apply, else "N
	 * applies"; one apply against one: their names (name_a NULL when
	 * the same) */
	char			*name, *name_a;
};

struct gp_diff_table {
	struct gp_diff_row	*rows;
	size_t			 n;
	double			 total_a, total_b;	/* thunk time, ns */
	size_t			 n_paired, n_added, n_removed;
	size_t			 n_significant;	/* slower or faster */
};

/* The Global section, per function (paired by name). */
struct gp_diff_fn {
	char			*name;
	int			 fn_a, fn_b;	/* -1: not on that side */
	/* per-call wall time: calls, time, per call, p, verdict */
	struct gp_diff_row	 call;
	uint64_t		 vm_a, vm_b;	/* ns */
	uint64_t		 thunk_a, thunk_b;
	uint64_t		 first_a, first_b;	/* the first call */
	int			 n_apply_a, n_apply_b;
	/* bytes: the allocator's measured peak; the predicted peak and
	 * Theano's intermediates peak (0: no memory profile) */
	uint64_t		 mem_peak_a, mem_peak_b;
	uint64_t		 mem_pred_a, mem_pred_b;
	uint64_t		 mem_inter_a, mem_inter_b;
};

struct gp_diff_opts {
	double	alpha;		/* significance level; default 0.05 */
	/* the smallest change of the mean time per execution called
	 * significant; default 0.05 */
	double	min_change;
	/* executions each side needs before a change is called (rounds,
	 * for rows judged by round); default 4 */
	int	min_samples;
	/* the absolute floor, in probe costs or timer resolutions (the
	 * larger, of either side's clock) per execution: a smaller change
	 * of the time per execution is never beyond noise; default 3 */
	double	floor_probes;
	/* A and B ran under the same load (interleaved rounds of one
	 * process): judge changes as they are.  Else (default) B's times are
	 * divided by the common factor first: captures taken at different
	 * times see the machine's drift on every row, and a change alike
	 * to every row cannot be told from it */
	bool	same_load;
	/* times (time_*, delta, ratio, table totals) per call of the row's
	 * function (class and op rows: per call of the most-called one, a
	 * round), so runs of different lengths compare; default: totals */
	bool	per_call;
};

struct gp_diff {
	const struct gp_profile	*a, *b;	/* borrowed */
	struct gp_diff_opts	 opts;
	int			 n_fn;
	struct gp_diff_fn	*fn;
	struct gp_diff_table	 cls, ops, applies;
	/* apply pairs by how they were paired (GP_MATCH_SOURCES: groups) */
	size_t			 n_match[GP_MATCH_SOURCES + 1];
	struct gp_diff_group	*groups;
	size_t			 n_groups;
	bool			 same_graph, same_rewrites, same_clock;
	double			 scale_a, scale_b;	/* opts.per_call */
	double			 floor_ns;	/* opts.floor_probes, in ns */
	/* B's times over A's, common to the paired applies (the median of
	 * their median ratios; 1 with opts.same_load): what drift between
	 * the runs looks like; rows are judged relative to it */
	double			 factor;
	size_t			 n_factor;	/* applies it was taken over */
	/* the spread of those applies' log ratios around it (1.4826 MADs,
	 * at least 0.02; INFINITY under 3 applies): how much runs taken at
	 * different times differ row to row beyond the common factor */
	double			 spread;
	/* BLAS applies drift apart from the rest: OpenBLAS's threads wait
	 * for a core, and a capture taken while other processes hold the
	 * cores sees every BLAS call slower (or, the cores held in one
	 * capture and not in the other, every one faster), by more than
	 * other rows.  With at least 3 BLAS applies paired (captures taken
	 * apart), factor and spread are taken over the other applies and
	 * factor_blas and spread_blas over the BLAS applies (n_factor_blas
	 * of them), which are judged against those: a change alike to every
	 * BLAS row cannot be told from that drift.  Else n_factor_blas is 0
	 * and factor_blas and spread_blas are factor and spread. */
	double			 factor_blas, spread_blas;
	size_t			 n_factor_blas;
	/* Captures taken apart: the brief applies (struct gp_diff_row) have a
	 * factor and spread of their own, taken over them alone (spread
	 * INFINITY under 3: such rows are then within noise), and factor and
	 * spread (and the BLAS ones) are taken over the longer applies only;
	 * with fewer than 3 of those, factor is 1 and spread 0.35, what a
	 * loaded machine gives one row (diff-noise.c, SPREAD_APART). */
	double			 factor_brief, spread_brief;
	size_t			 n_factor_brief;
	/* captures taken apart (not opts.same_load): how far a row's median
	 * moves between two captures, beyond its factor, in units
	 * of its executions' spread within them (sqrt(spread_a^2 +
	 * spread_b^2)): 1.4826 x the median of that over the paired applies
	 * with enough executions, at least 1 (the same with under 3 such
	 * applies); 0 with opts.same_load */
	double			 capture_scale;
	uint64_t		 rounds_a, rounds_b;	/* most calls of a
							 * function */
	/* the Class and Ops rollups of A and B, which hold those rows'
	 * names (apply rows' names are the profiles') */
	struct gp_prof_table	 rollup[2][2];
	/* a or b is ONNX Runtime's profile (capture/ort.h): its nodes are
	 * paired with b's or a's applies by the source nodes they cover,
	 * and the Ops rows are ONNX op types (diff-impl.h); else NULL */
	struct gp_diff_peer	*peer;
};

/* Defaults for o. */
void		 gp_diff_opts_init(struct gp_diff_opts *o);
/* Did a function of both run a different number of calls (then set
 * opts.per_call)? */
bool		 gp_diff_calls_differ(const struct gp_profile *a,
		    const struct gp_profile *b);
/* Compare a (baseline) with b; o NULL: the defaults.  Tables come sorted by
 * |delta|, descending.  The Class and Ops tables are made on a second
 * thread meanwhile (a and b are only read). */
struct gp_diff	*gp_diff_compute(const struct gp_profile *a,
		    const struct gp_profile *b, const struct gp_diff_opts *o);
void		 gp_diff_free(struct gp_diff *d);

/* Columns a table can be sorted by. */
enum gp_diff_col {
	GP_DIFF_COL_NAME,
	GP_DIFF_COL_TIME_A,
	GP_DIFF_COL_TIME_B,
	GP_DIFF_COL_DELTA,	/* signed */
	GP_DIFF_COL_ABS_DELTA,	/* |delta|: the default */
	GP_DIFF_COL_RATIO,
	GP_DIFF_COL_CALLS_A,
	GP_DIFF_COL_CALLS_B,
	GP_DIFF_COL_PER_CALL_A,
	GP_DIFF_COL_PER_CALL_B,
	GP_DIFF_COL_CHANGE,	/* relative change per execution */
	GP_DIFF_COL_SIGNIFICANCE,	/* p ascending: surest changes first */
	GP_DIFF_COL_KIND,	/* added, removed, paired */
	GP_DIFF_COL__COUNT
};

struct gp_diff_col_info {
	const char	*name;		/* stable, snake_case: "time_a" */
	const char	*title;		/* header: "<time A>" */
	bool		 descending;	/* the natural first direction */
};

extern const struct gp_diff_col_info gp_diff_cols[GP_DIFF_COL__COUNT];

/* Order of x and y by column c (ascending: <0, 0, >0, or the reverse when
 * descending); NAN sorts last in both directions; ties fall back to
 * |delta| (largest first, NAN last), then the applies' positions (A's, then
 * B's), then the name. */
int	gp_diff_row_cmp(const struct gp_diff_row *x,
	    const struct gp_diff_row *y, enum gp_diff_col c, bool descending);
/* Sort t's rows in gp_diff_row_cmp's order. */
void	gp_diff_sort(struct gp_diff_table *t, enum gp_diff_col c,
	    bool descending);

/* The significance mark of a row: "~", "+" (slower), "-" (faster), "?",
 * "added" or "removed". */
const char *gp_diff_mark(const struct gp_diff_row *r);

/* Benjamini-Hochberg: the adjusted p of each of p[0..n) (NAN entries are
 * not hypotheses: they stay NAN and do not count), in q[0..n) (q may be
 * p).  q_i = min over p_j >= p_i of p_j * m / rank(p_j), at most 1. */
void	gp_diff_adjust(const double *p, double *q, size_t n);

/* Mann-Whitney U test on two histograms over the same bins (ties within a
 * bin, tie-corrected variance, normal approximation with continuity
 * correction).  Returns the two-sided p, 1 when either side is empty or
 * every sample shares one bin. */
double	gp_diff_utest(const struct gp_prof_stat *a,
	    const struct gp_prof_stat *b);

struct gp_diff_report_opts {
	int				 n_ops;		/* Class, Ops rows */
	int				 n_apply;	/* Apply rows */
	int				 width;		/* line width */
	const char			*label_a;	/* file names */
	const char			*label_b;
	const struct gp_capture_info	*info_a;	/* or NULL */
	const struct gp_capture_info	*info_b;
};

/* The text report: Global, Class, Ops and Apply sections. */
void	gp_diff_report(FILE *fp, const struct gp_diff *d,
	    const struct gp_diff_report_opts *o);

#endif
