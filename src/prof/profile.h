/*
 * profile.h: the profiler's side tables and what is read from them.
 *
 * A struct gp_profile holds, per function, one struct gp_prof_apply per
 * scheduled apply: what it is (names, class, implementation, flops, the
 * dtype/shape/strides of its inputs and outputs) and its counters (count,
 * total, min, max, a log-linear histogram of per-execution times, the first
 * call's time kept apart).  The VM only writes raw tick stamps into a
 * scratch array during a call; gp_prof_fold() turns them into counters
 * after the call.  Apply i's time runs from stamp i to stamp i+1: its output
 * allocation, its kernel, and freeing the inputs it read last (the cost of
 * one stamp, measured at start-up, is subtracted).  Counters never live in
 * tensors or graph nodes.
 *
 * The same structure is what a capture file stores and loads, so the report,
 * the TUI, diff and export work the same on a live run and on a capture.
 * Everything shown is computed here (rollups, medians, percentiles): the UI
 * never computes statistics itself.
 */
#ifndef GPTOP_SRC_PROFILE_H
#define GPTOP_SRC_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/clock.h"
#include "graph/graph.h"
#include "rewrite/stats.h"

struct gp_memprof;	/* memprof.h */

/*
 * The histogram of a stat is log-linear (HDR-style): values below
 * 2 x GP_PROF_SUB ns have a bin each; above, each octave [2^k, 2^(k+1))
 * is split into GP_PROF_SUB bins of equal width 2^k / GP_PROF_SUB.  A bin
 * is thus at most 1/GP_PROF_SUB (3.1%) of its lower edge wide, and a
 * quantile read as the middle of its bin (clamped to [min, max]) is within
 * half of that, 1/(2 GP_PROF_SUB) = 1.5625%, of the exact quantile of the
 * samples (see gp_prof_stat_quantiles).  Every uint64_t has a bin: there
 * are GP_PROF_NBINS in all, but a stat stores only the window of them
 * that its samples reached (on the heap), so merging two stats adds their
 * bins, and a capture stores the bins as they are: both exact.
 */
#define GP_PROF_SUB_BITS 5
#define GP_PROF_SUB	(1 << GP_PROF_SUB_BITS)
#define GP_PROF_NBINS	((64 - GP_PROF_SUB_BITS + 1) * GP_PROF_SUB)
/* The coarse layout of format-1 captures and of the detail view's
 * histogram: two bins per octave, bin 0 everything below 12 ns, bin b >= 1
 * from 2^(b/2+3) (b even) or 1.5 x 2^((b-1)/2+3) ns (b odd), bin 63
 * everything from there up.  Each coarse bin is a run of whole bins. */
#define GP_PROF_COARSE	64
#define GP_PROF_RECENT 128

/*
 * Counters of a time: count, total, min, max (exact 64-bit figures) and
 * the histogram.  Zero-initialised is empty; a stat that was added to owns
 * memory: gp_prof_stat_free() it, and copy it with gp_prof_stat_copy(),
 * never with `=`.
 */
struct gp_prof_stat {
	uint64_t	n;
	uint64_t	total;	/* ns */
	uint64_t	min, max;
	uint64_t	hn;	/* the bins' sum: n, unless they were halved */
	uint32_t	*bin;	/* counts of bins lo .. lo + nb - 1 */
	int32_t		 lo, nb;
};

/* The bin of a time in ns. */
static inline int
gp_prof_bin(uint64_t ns)
{
	int sh;

	if (ns < GP_PROF_SUB)
		return ((int)ns);
	sh = 63 - __builtin_clzll(ns) - GP_PROF_SUB_BITS;
	return ((sh << GP_PROF_SUB_BITS) + (int)(ns >> sh));
}

/* The smallest time in bin b, and its width (its times are lo to
 * lo + width - 1). */
static inline uint64_t
gp_prof_bin_lo(int b)
{
	if (b < 2 * GP_PROF_SUB)
		return ((uint64_t)b);
	return ((uint64_t)((b & (GP_PROF_SUB - 1)) | GP_PROF_SUB) <<
	    ((b >> GP_PROF_SUB_BITS) - 1));
}

static inline uint64_t
gp_prof_bin_width(int b)
{
	if (b < 2 * GP_PROF_SUB)
		return (1);
	return ((uint64_t)1 << ((b >> GP_PROF_SUB_BITS) - 1));
}

/* The count of bin b (0 outside the stored window). */
static inline uint32_t
gp_prof_stat_count(const struct gp_prof_stat *s, int b)
{
	uint32_t k = (uint32_t)(b - s->lo);

	return (k < (uint32_t)s->nb ? s->bin[k] : 0);
}

/* Ask the memory for the bins of s that hold samples, the first four
 * cache lines of them (a hint, nothing is read): a stat's bins are a heap
 * block of their own, and a loop over many stats waits on them. */
static inline void
gp_prof_stat_prefetch(const struct gp_prof_stat *s)
{
	if (s->nb > 0 && s->n > 0) {
		const uint32_t *b = s->bin + (gp_prof_bin(s->min) - s->lo);
		const uint32_t *e = s->bin + (gp_prof_bin(s->max) - s->lo);

		for (int k = 0; k < 4 && b <= e; k++, b += 16)
			__builtin_prefetch(b);
	}
}

/* The coarse bin of a time, and the lower edge of coarse bin b in ns. */
int	gp_prof_coarse_bin(uint64_t ns);
double	gp_prof_coarse_lo(int b);

void	gp_prof_stat_add(struct gp_prof_stat *s, uint64_t ns);
/* Add w samples of ns at once. */
void	gp_prof_stat_add_n(struct gp_prof_stat *s, uint64_t ns, uint64_t w);
void	gp_prof_stat_merge(struct gp_prof_stat *d, const struct gp_prof_stat *s);
/* d becomes a copy of s (d was a stat or zeros). */
void	gp_prof_stat_copy(struct gp_prof_stat *d, const struct gp_prof_stat *s);
/* Empty s, keeping its memory for reuse. */
void	gp_prof_stat_clear(struct gp_prof_stat *s);
/* Free what s holds; s is left empty. */
void	gp_prof_stat_free(struct gp_prof_stat *s);
/* Same counters and the same count in every bin? */
bool	gp_prof_stat_equal(const struct gp_prof_stat *a,
	    const struct gp_prof_stat *b);
/* Add w to bin b's count only (a capture's bins: n, total, min and max
 * are set apart).  Counts beyond 32 bits halve the bins, as adding does. */
void	gp_prof_stat_put(struct gp_prof_stat *s, int b, uint64_t w);
/* Add w to coarse bin b's counts only, spread evenly over the bins of
 * its times within [s->min, s->max] (s->min and s->max set): a format-1
 * capture's bin, whose samples' places in it are not known; w is at most
 * 2^32). */
void	gp_prof_stat_put_coarse(struct gp_prof_stat *s, int b, uint64_t w);
/* The counts of the coarse bins (out[GP_PROF_COARSE]). */
void	gp_prof_stat_coarse(const struct gp_prof_stat *s, uint64_t *out);
/* Quantile q in [0,1]: see gp_prof_stat_quantiles. */
double	gp_prof_stat_quantile(const struct gp_prof_stat *s, double q);
/*
 * Quantiles qs[0..n) (ascending) in one pass.  Quantile q is read in the
 * bin of the sample of rank ceil(q x count) (at least 1) in sorted order,
 * the nearest-rank quantile, as the middle of that bin's times clamped to
 * [min, max]: within (width - 1) / 2 of that sample, so within 1.5625% of
 * it (exact below 64 ns, for constants, and at q = 0 and 1).  All medians
 * and p95s shown come from here.
 */
void	gp_prof_stat_quantiles(const struct gp_prof_stat *s, const double *qs,
	    double *out, int n);

/* An input or output of an apply. */
struct gp_prof_io {
	char		*var;		/* variable name */
	enum gp_dtype	 dtype;
	int		 ndim;
	int64_t		 shape[GP_MAX_DIMS];
	int64_t		 strides[GP_MAX_DIMS];	/* bytes; valid if known */
	bool		 strides_known;
	uint64_t	 nbytes;
	char		 alias;	/* outputs: 'c' created, 'v' view, 'i' inplace */
};

/* Same dtype and shape (strides, size and alias aside): how a diff pairs
 * applies and a merge tells that two captures ran the same types. */
static inline bool
gp_prof_io_same_shape(const struct gp_prof_io *a, const struct gp_prof_io *b)
{
	if (a->dtype != b->dtype || a->ndim != b->ndim)
		return (false);
	for (int d = 0; d < a->ndim; d++)
		if (a->shape[d] != b->shape[d])
			return (false);
	return (true);
}

struct gp_prof_apply {
	int			 id;	/* position in the schedule */
	char			*name;	/* "Elemwise{add}(x, y)" */
	char			*op;	/* "Elemwise{add}" */
	char			*cls;	/* "Elemwise" */
	char			*opname;	/* graph-format op name: "add" */
	char			*node;	/* the node's name in the graph, or "" */
	char			*extra;	/* op-specific detail (C signature) */
	enum gp_impl		 impl;
	double			 flops;	/* per execution */
	/* preparation at link time (the op's prepare and JIT compiles),
	 * and the JIT compiles in it; 0: not recorded */
	double			 link_ns;
	double			 jit_ns;
	int			 n_in, n_out;
	struct gp_prof_io	*in, *out;
	int			*in_producer;	/* apply id producing input k,
						 * or -1 */
	/* provenance: the source nodes whose work it does (graph/prov.h),
	 * by their index in the graph file, sorted; none: unknown (a capture
	 * older than gptop-capture/3) */
	int			*src;
	int			 n_src;
	struct gp_prof_stat	 st;
	uint64_t		 first_ns;
};

/*
 * One call of a function drawn along time (the TUI's Timeline), in ns
 * since the call's first stamp: apply i starts at start[i] and lasts
 * ns[i] (the time the profile counts for it, gp_prof_apply_ns); span_ns
 * runs from the first stamp to the last.  Zeros: none (seq 0).
 */
struct gp_prof_call {
	int		 n_apply;
	uint64_t	 seq;		/* the timed call's number, from 1 */
	uint64_t	 call_ns;	/* the whole call, updates included */
	uint64_t	 span_ns;
	uint64_t	*start, *ns;	/* n_apply each */
};

/* The calls a profile keeps of each function for the Timeline. */
enum gp_prof_drawn {
	GP_PROF_LAST,		/* the last timed call recorded */
	GP_PROF_MEDIAN,		/* the one of median time among those kept */
	GP_PROF_DRAWN__COUNT
};

/* dst becomes a copy of src (dst was zeros or a call); n_apply applies. */
void	gp_prof_call_copy(struct gp_prof_call *dst,
	    const struct gp_prof_call *src);
/* Make room for n applies (zeros when the size changes). */
void	gp_prof_call_fit(struct gp_prof_call *c, int n);
void	gp_prof_call_free(struct gp_prof_call *c);

struct gp_prof_fn {
	char			*name;
	int			 n_apply;
	struct gp_prof_apply	*ap;
	struct gp_prof_stat	 call;	/* per-call wall time */
	uint64_t		 vm_ns, thunk_ns;	/* over counted calls */
	uint64_t		 first_call_ns;
	uint64_t		 calls_seen;	/* every call, even ignored */
	uint64_t		 recent[GP_PROF_RECENT];	/* ring of call ns */
	/* memory, measured by the allocator over the counted calls */
	uint64_t		 mem_peak_measured;
	/* memory, predicted from the schedule (memprof.h), or NULL */
	struct gp_memprof	*mem;
	/* calls drawn along time (seq 0: none): a live profile's are the
	 * session's recorder's (capture/export.h, gp_export_trace_keep), a
	 * capture's are what it stored */
	struct gp_prof_call	 drawn[GP_PROF_DRAWN__COUNT];
	/* scratch the VM writes during a call: ticks[i], ticks[i+1] are
	 * apply i's start and end */
	uint64_t		*ticks;
	/* sampling (profiling__sample): the applies are timed on one call
	 * in `every`; the untimed calls between are counted with the times
	 * of the timed call after them (or, when flushed, before them) */
	uint32_t		 every;		/* the period now, >= 1 */
	uint32_t		 skip;		/* calls left until a timed one */
	uint64_t		 pending;	/* untimed calls not attributed */
	uint64_t		 timed;		/* counted calls that were timed */
	/* bumped whenever an apply's counters change, so a copy can skip
	 * the applies (gp_profile_copy_counters) when they have not */
	uint64_t		 ap_gen;
};

struct gp_profile;

/* Sees every timed call's raw stamps before they are folded (trace
 * export; a call whose applies are not timed is not seen): n_apply + 1
 * stamps in clock ticks, ticks[i] and ticks[i+1] apply i's start and end
 * (gp_clock_ticks_to_ns converts differences); call_ns runs from ticks[0]
 * to the end of the call, updates included. */
typedef void (*gp_prof_tracer)(void *ctx, const struct gp_profile *p, int fn,
    const uint64_t *ticks, uint64_t call_ns);

struct gp_profile {
	char			*graph;	/* graph name */
	char			*path;	/* graph file */
	uint64_t		 graph_hash;
	char			*flags;	/* the flags in effect */
	char			*rewrites;	/* the active rewriter set */
	int			 n_fn;
	struct gp_prof_fn	*fn;
	double			 load_ns, rewrite_ns, link_ns;
	int			 n_rw, n_phase;
	struct gp_rewrite_stat	*rw;	/* taken from the rewrite driver */
	struct gp_rewrite_phase_stat *phase;
	int			 n_nodes;	/* apply nodes after rewriting */
	/* provenance: the graph file's source nodes' names by index (NULL:
	 * unnamed), and the indices of those computed at compile time */
	char			**src_names;
	int			 n_src_names;
	int			*folded;
	int			 n_folded;
	struct gp_clock_info	 clock;
	bool			 ignore_first;
	int64_t		 sample;	/* 0: auto, else time 1 call in N */
	uint64_t		 generation;	/* changes when the shape does */
	gp_prof_tracer		 tracer;	/* NULL: none */
	void			*tracer_ctx;
	/* the tracer sees the timed calls only, sampling left as it is
	 * (the TUI's Timeline); else every call is timed while a tracer
	 * is installed (a trace export) */
	bool			 tracer_sampled;
};

/* Apply i's time in a call whose stamps are ticks: stamp i to stamp i+1,
 * less the cost of one stamp.  What gp_prof_fold() counts for it, and what
 * a trace draws. */
static inline uint64_t
gp_prof_apply_ns(const struct gp_profile *p, const uint64_t *ticks, int i)
{
	uint64_t probe = (uint64_t)p->clock.probe_ns;
	uint64_t ns = gp_clock_ticks_to_ns(ticks[i + 1] - ticks[i]);

	return (ns > probe ? ns - probe : 0);
}

/* A profile for the functions of a compiled program; apply tables are
 * filled at link time through the profile's hook (profile-hook.h). */
struct gp_profile	*gp_profile_new(const struct gp_graph *g);
void			 gp_profile_free(struct gp_profile *p);
/* Deep copy. */
struct gp_profile	*gp_profile_clone(const struct gp_profile *p);
/* Copy only the counters of src into dst of the same shape. */
void			 gp_profile_copy_counters(struct gp_profile *dst,
			    const struct gp_profile *src);
/* Zero every counter. */
void			 gp_profile_reset(struct gp_profile *p);
/* Take what the rewrite driver measured (its tables, its active set and the
 * JIT's time, added to link_ns); *st is left empty. */
void			 gp_profile_take_rewrites(struct gp_profile *p,
			    struct gp_rewrite_stats *st);

/* After a call: fold the VM's tick stamps into the counters. */
void	gp_prof_fold(struct gp_profile *p, int fn, uint64_t call_ns,
	    uint64_t vm_ns);
/* After a call whose applies were not timed (sampling): count it. */
void	gp_prof_fold_untimed(struct gp_profile *p, int fn, uint64_t call_ns,
	    uint64_t vm_ns);
/* Is the next call of fn to be timed apply by apply? */
static inline bool
gp_prof_time_next(struct gp_prof_fn *f)
{
	if (f->skip <= 1)
		return (true);
	f->skip--;
	return (false);
}
/* Give the untimed calls not yet attributed the times of the last timed
 * call, so the counters are complete (before a report or a snapshot). */
void	gp_prof_flush(struct gp_profile *p);

/* Counted calls of function fn (the first is left out when ignore_first). */
uint64_t gp_prof_calls(const struct gp_prof_fn *f);
/* The last min(calls, GP_PROF_RECENT) call times of f's ring, oldest
 * first, into v (GP_PROF_RECENT of them at most); returns how many. */
int	gp_prof_recent(const struct gp_prof_fn *f, uint64_t *v);
/* The inverse: f's ring holds the m times v, oldest first, as the last
 * calls of the f->call.n counted (set before). */
void	gp_prof_recent_set(struct gp_prof_fn *f, const uint64_t *v, int m);

/* Rollups: the rows of the Class, Ops and Apply tables. */
enum gp_prof_group {
	GP_GROUP_CLASS,
	GP_GROUP_OP,
	GP_GROUP_APPLY,
	GP_GROUP_OP_SIG		/* ops split by input signature */
};

struct gp_prof_row {
	char			*name;	/* class, op, op + signature, or apply */
	char			 type[32];	/* "C", "BLAS", "C BLAS" */
	int			 fn;	/* apply rows: function index */
	int			 id;	/* apply rows: schedule position */
	int			 n_apply;
	uint64_t		 calls;	/* executions */
	double			 time_ns;
	double			 pct;	/* of the table's total */
	double			 per_call_ns;
	double			 median_ns, p95_ns;
	double			 flops;	/* per execution (apply rows) */
	double			 gflops;	/* flops x calls / time */
	/* apply rows: its source nodes, the first's name and how many more
	 * ("fc1", "#3 +9"; gp_prof_src_short), "" when unknown */
	char			 from[40];
	struct gp_prof_stat	 st;
};

struct gp_prof_table {
	struct gp_prof_row	*rows;
	size_t			 n;
	double			 total_ns;	/* thunk time: the denominator */
	/* rows[order[k]] is the k-th row by time (the identity after
	 * gp_prof_rollup, which sorts the rows themselves) */
	uint32_t		*order;
	/* what it was made from, for gp_prof_rollup_refresh: the row of
	 * each apply counted, in schedule order */
	int			 fn, n_fn;
	enum gp_prof_group	 grp;
	uint64_t		 generation;
	uint32_t		*member;
	size_t			 n_member;
	bool			 live;	/* gp_prof_rollup_live's */
};

/* Rows of function fn (fn < 0: all functions summed, apply rows kept per
 * function), sorted by time, descending, ties broken by id. */
void	gp_prof_rollup(const struct gp_profile *p, int fn,
	    enum gp_prof_group grp, struct gp_prof_table *out);
/* The Class rows, as gp_prof_rollup(p, ops->fn, GP_GROUP_CLASS) gives them
 * (the same names, order, counts, times and statistics; flops aside, per
 * execution from the op rows'), made from ops, p's Ops rollup
 * (gp_prof_rollup) of the same function: a class row merges its op rows'
 * executions, not every apply's (an op's applies share its class), so a
 * large profile's classes cost a pass over its applies without a merge
 * each.  When an op's applies have different classes, made from the
 * applies. */
void	gp_prof_rollup_classes(const struct gp_profile *p,
	    const struct gp_prof_table *ops, struct gp_prof_table *out);
/* The same rows, left in the order they are first met (schedule order
 * for apply rows), with order giving the order gp_prof_rollup sorts them
 * in: the table gp_prof_rollup_refresh counts again fastest.  Its apply
 * rows leave st zero (it would copy every histogram at each refresh): an
 * apply row's statistics are its apply's, p->fn[fn].ap[id].st. */
void	gp_prof_rollup_live(const struct gp_profile *p, int fn,
	    enum gp_prof_group grp, struct gp_prof_table *out);
/* Count a table's rows again from p's counters, in place: p has the
 * shape of the profile the table was made from (the same generation;
 * else -1 and nothing changes).  The rows keep their places (and names,
 * so pointers to them stay valid); order gets their new order, the one
 * gp_prof_rollup would give.  Far cheaper than a new rollup. */
int	gp_prof_rollup_refresh(const struct gp_profile *p,
	    struct gp_prof_table *t);
void	gp_prof_table_free(struct gp_prof_table *t);
/* Provenance as text: source index idx by its name, or "#idx" when it
 * has none; an apply's sources "fc1, fc2, #4" (at most max, then " +N";
 * max <= 0: all); its short form "fc1 +9" in buf (the Apply table's from
 * column). */
void	gp_prof_src_name(const struct gp_profile *p, int idx, struct gp_buf *b);
void	gp_prof_src_list(const struct gp_profile *p,
	    const struct gp_prof_apply *a, int max, struct gp_buf *b);
void	gp_prof_src_short(const struct gp_profile *p,
	    const struct gp_prof_apply *a, char *buf, size_t n);
/* The provenance of src (names, folded) copied to dst, replacing its. */
void	gp_prof_src_copy(struct gp_profile *dst, const struct gp_profile *src);

/* A signature "float64(400, 784), float64(784,)" of an apply's inputs. */
void	gp_prof_signature(const struct gp_prof_apply *a, struct gp_buf *b);

/* The applies of function fn (fn < 0: every function) with the longest
 * preparation at link time (link_ns > 0), slowest first, at most max;
 * returns how many. */
#define GP_PROF_SLOWEST 5
int	gp_prof_slowest_prep(const struct gp_profile *p, int fn,
	    const struct gp_prof_apply **top, int max);

#endif
