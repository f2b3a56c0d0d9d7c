/*
 * capture.h: captures, the on-disk form of a profile (doc/capture-format.md).
 * A capture is one JSON document, "format": "gptop-capture/5", holding
 * everything a struct gp_profile holds (the graph's identity, flags and
 * rewriter tables, compile times, the clock, every function's and apply's
 * counters and histograms, the memory profile, the calls the Timeline
 * draws) plus where and when it was taken (machine, compiler, BLAS, UTC
 * time).
 *
 * Saving (save.c) is atomic: the document goes to a temporary file in the
 * target's folder, is flushed and fsync'ed, then renamed over the target,
 * so a reader never sees half a capture (base/outfile.h).  Loading
 * (load.c) validates every field and gives back a struct gp_profile that
 * the report, the TUI, diff and export use exactly as they use a live
 * one.  Errors name the file, the line:column and the JSON path of the bad
 * field ("functions[0].applies[12].calls: expected a non-negative
 * integer").
 *
 * Merging (merge.c) sums captures of one graph (same hash, graph/hash.h)
 * and one rewrite set whose functions hold the same applies; anything else
 * is refused with the reason.
 */
#ifndef GPTOP_SRC_CAPTURE_H
#define GPTOP_SRC_CAPTURE_H

#include <stddef.h>

#include "base/util.h"
#include "prof/profile.h"

#define GP_CAPTURE_FORMAT	"gptop-capture/5"
#define GP_CAPTURE_PREFIX	"gptop-capture/"
#define GP_CAPTURE_VERSION	5

/* Where a merged capture's counters came from. */
struct gp_capture_source {
	char	*path;
	char	*created;
};

/* What a capture says beyond the profile: who wrote it, where, when.
 * Every string is malloc'ed (or NULL when the capture left it out). */
struct gp_capture_info {
	int			 version;	/* of the format */
	char			*created;	/* UTC, ISO-8601 */
	char			*gptop;		/* gptop version */
	char			*cpu;		/* /proc/cpuinfo */
	int			 cores;		/* online CPUs */
	char			*os;		/* uname */
	char			*cc;		/* GP_BUILD_CC */
	char			*cc_version;	/* __VERSION__ */
	char			*blas;		/* openblas_get_config */
	int			 threads;	/* the kernels' OpenMP threads
						 * (0: not recorded) */
	char			*idle;		/* their idle policy
						 * (gp_par_idle), or NULL */
	int			 n_src;
	struct gp_capture_source *src;		/* merged from */
};

/* This machine and build, now (info.c). */
void	gp_capture_info_this(struct gp_capture_info *ci);
void	gp_capture_info_done(struct gp_capture_info *ci);

/* Write p to path as a capture, atomically (see above).  For --save and
 * the TUI's `w`.  Returns 0, or -1 with err set (the target untouched). */
int	gp_capture_save(const struct gp_profile *p, const char *path,
	    struct gp_err *err);
/* The same with the given info (NULL: this machine, now). */
int	gp_capture_save_info(const struct gp_profile *p,
	    const struct gp_capture_info *ci, const char *path,
	    struct gp_err *err);

/* Read a capture.  Returns a new profile (free with gp_profile_free), and
 * fills *ci when not NULL (free with gp_capture_info_done); NULL with err
 * set on any fault: I/O, syntax (FILE:LINE:COL), another or a newer format,
 * a missing or ill-typed field (FILE:LINE:COL: PATH: what was expected), or
 * figures that contradict each other. */
struct gp_profile *gp_capture_load(const char *path,
		    struct gp_capture_info *ci, struct gp_err *err);
/* The same from text in memory; name is used in messages. */
struct gp_profile *gp_capture_load_buf(const char *text, size_t len,
		    const char *name, struct gp_capture_info *ci,
		    struct gp_err *err);

/* Is the file at path a capture (its top-level "format" starts with
 * "gptop-capture"), rather than a graph?  Decided by content, not by the
 * file name.  Returns 1 or 0; -1 with err set when it cannot be read. */
int	gp_capture_detect(const char *path, struct gp_err *err);

/* Can a and b be merged?  Returns 0, or -1 with the reason in err
 * (different graph hash, rewrite set, functions or applies). */
int	gp_capture_compatible(const struct gp_profile *a,
	    const struct gp_profile *b, struct gp_err *err);
/* Sum n profiles (n >= 1) of the same graph and rewrite set: calls,
 * totals, min and max, histograms, time in the VM and in thunks; the first
 * call's times and the compile times come from the earliest (by
 * info[i].created; in argument order when NULL or equal), the recent calls
 * are concatenated in that order.  Returns a new profile, or NULL with the
 * reason in err.  When out_ci is not NULL it receives the info of the
 * merged capture (the earliest's machine, created now, the sources). */
struct gp_profile *gp_capture_merge(struct gp_profile *const *p,
		    const struct gp_capture_info *info,
		    const char *const *paths, int n,
		    struct gp_capture_info *out_ci, struct gp_err *err);

#endif
