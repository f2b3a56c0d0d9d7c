/*
 * export.h: profiles in formats other tools read.
 *
 * Chrome Trace Event JSON (Perfetto, chrome://tracing): a recorder hooks a
 * session's profile (p->tracer, which sees every call's raw tick stamps)
 * and VM (the step observer, which samples the allocator's live bytes), and
 * keeps the last K timed calls of each function (while it is installed the
 * profile times every call; a call whose applies were not timed is left
 * out and counted as untimed).  The trace then holds, per kept call, a
 * complete event ("ph":"X") for the call enclosing one complete event per
 * apply execution in schedule order, each starting at the apply's stamp
 * and lasting the time the profile counts for it (gp_prof_apply_ns), a
 * counter event ("ph":"C") of live bytes after each apply, and metadata
 * events naming the process (the graph) and one thread per function.
 * Times are microseconds (fractional, so nanoseconds survive) since the
 * start of the first call traced.
 *
 * CSV (RFC 4180: CRLF line ends, fields quoted when they hold a comma, a
 * quote or a line break): the Apply table and the Ops table, with one
 * header row of stable snake_case names.  They work on a live profile and
 * on a loaded capture alike.
 *
 * Every file is written atomically (base/outfile.h).
 */
#ifndef GPTOP_SRC_EXPORT_H
#define GPTOP_SRC_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "prof/profile.h"
#include "base/util.h"

struct gp_vm;
struct gp_trace;

#define GP_TRACE_CALLS_DEFAULT 20
/* The calls kept to draw a function's median call from (the TUI's worker,
 * and --save). */
#define GP_TRACE_CALLS_DRAWN 15

/* Start recording: installs p->tracer and vm's observer (replacing any).
 * max_calls: calls kept per function (the last ones), at least 1. */
struct gp_trace	*gp_export_trace_new(struct gp_profile *p, struct gp_vm *vm,
		    int max_calls);
/* Remove the hooks (recorded calls are kept; the profile must still
 * be alive when the trace is written). */
void		 gp_export_trace_stop(struct gp_trace *t);
/* Write the recorded calls as Chrome Trace Event JSON.  Returns 0, or -1
 * with err set (nothing recorded: profiling was off or no call ran). */
int		 gp_export_trace_write(const struct gp_trace *t,
		    const char *path, struct gp_err *err);
/* The same to an open stream (tests). */
int		 gp_export_trace_fp(const struct gp_trace *t, FILE *fp);
/* Stops, then frees. */
void		 gp_export_trace_free(struct gp_trace *t);

/* Copy function fn's last recorded call (median: the call of median
 * time, the lower one of an even count, among the calls kept) into *out
 * (prof/profile.h; the TUI's Timeline draws it), whose arrays are
 * reallocated to fit.  Returns 0, or -1 (out->seq 0) when none was
 * recorded. */
int	gp_export_trace_call(const struct gp_trace *t, int fn, bool median,
	    struct gp_prof_call *out);
/* Each function's last and median recorded calls into dst's drawn[]
 * (dst: t's profile or a copy of it; a function whose applies differ
 * from those recorded gets none): what a capture of dst stores. */
void	gp_export_trace_keep(const struct gp_trace *t, struct gp_profile *dst);

/* The Apply table: function, id, name, op, class, impl, pct, cum_pct,
 * time_ns, per_call_ns, median_ns, p95_ns, min_ns, max_ns, calls, mflops,
 * gflops_per_s, flops, signature; sorted like the report (time,
 * descending), percentages of the thunk time of all functions. */
int	gp_export_csv_applies(const struct gp_profile *p, const char *path,
	    struct gp_err *err);
void	gp_export_csv_applies_fp(const struct gp_profile *p, FILE *fp);
/* The Ops table: op, class, type, pct, cum_pct, time_ns, per_call_ns,
 * median_ns, p95_ns, min_ns, max_ns, calls, n_apply, flops, gflops_per_s,
 * summed over all functions. */
int	gp_export_csv_ops(const struct gp_profile *p, const char *path,
	    struct gp_err *err);
void	gp_export_csv_ops_fp(const struct gp_profile *p, FILE *fp);

/* One CSV field, quoted per RFC 4180 when needed. */
void	gp_export_csv_field(FILE *fp, const char *s);

#endif
