/*
 * session.h: one profiled program, as the frontends see it.  A session
 * loads a graph, keeps the pristine copy, rewrites a working copy with the
 * active rewriter set, links it into a VM with a profile, and runs it:
 * either synchronously (batch) or in a worker thread that calls the
 * functions round after round while the UI reads published snapshots.
 *
 * Threading: the worker owns the graph, the VM and the live profile.  At
 * most every 100 ms, and whenever it stops, it copies the profile's
 * counters into a published copy under the session lock; the UI only ever
 * copies that published profile out (gp_session_snapshot) and never waits
 * for a call to finish.  Requests (pause, reset, recompile, quit) are flags
 * the worker acts on between rounds.
 *
 * After a recompile the old program stays compiled as the baseline (A)
 * and runs in turn with the new one (B): round after round A B, B A, A B,
 * ..., both profiles counting from the recompile on, so a diff of the two
 * compares runs taken under the same load (a shared machine's drift
 * falls on both alike).  The next recompile makes B the baseline and
 * frees A.
 */
#ifndef GPTOP_SRC_SESSION_H
#define GPTOP_SRC_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "base/flags.h"
#include "graph/graph.h"
#include "prof/profile.h"

struct gp_session;

/* Load path with flags (copied), rewrite and link.  Returns NULL with err
 * set on a bad graph. */
struct gp_session	*gp_session_open(const char *path,
			    const struct gp_flags *flags, struct gp_err *err);
void			 gp_session_free(struct gp_session *s);

/* Run `rounds` rounds synchronously (each function once per round, in
 * order); fn >= 0 runs only that function.  Stops early after
 * gp_session_interrupt(). */
void	gp_session_run(struct gp_session *s, int fn, uint64_t rounds);

/* Ask a synchronous run to stop after the current round (async-signal
 * safe: for SIGINT/SIGTERM handlers). */
void	gp_session_interrupt(struct gp_session *s);
/* Rounds done by synchronous runs (fewer than asked when interrupted). */
uint64_t gp_session_rounds(struct gp_session *s);

/* The worker thread: runs rounds until paused, stopped or `limit` rounds
 * (0: no limit). */
int	gp_session_start(struct gp_session *s, uint64_t limit,
	    struct gp_err *err);
void	gp_session_pause(struct gp_session *s, bool paused);
bool	gp_session_paused(struct gp_session *s);
/* Zero the statistics at the next round boundary. */
void	gp_session_reset(struct gp_session *s);
/* Stop and join the worker. */
void	gp_session_stop(struct gp_session *s);
/* Recompile with new flags (the rewrite set) from the pristine graph:
 * shared state restarts from its initial values; the program that was
 * running is kept as the baseline program, its counters zeroed, and from
 * then on each round runs both, interleaved (see above).  Returns -1 with
 * err set if the rewrite or link failed (the old program then keeps
 * running, and the baseline program, if any, with it). */
int	gp_session_recompile(struct gp_session *s, const struct gp_flags *f,
	    struct gp_err *err);

/* Copy the latest published profile into *dst (allocated or replaced when
 * its shape changed).  Returns the number of rounds done.  Its functions'
 * drawn[] calls are the current program's last timed call and the one of
 * median time among its last 15, as recorded by the worker (the trace
 * recorder of capture/export.h, hooked on the live profile with sampling
 * left on): none when no worker ran, profiling is off, or no call ran
 * since the last recompile. */
uint64_t gp_session_snapshot(struct gp_session *s, struct gp_profile **dst);
/* A copy of the baseline program's profile (the program that ran before
 * the last recompile, since run in turn with the current one), as last
 * published with the current one, or NULL before any recompile. */
struct gp_profile *gp_session_baseline(struct gp_session *s);
/* Worker state for the header line. */
struct gp_session_status {
	uint64_t	rounds;
	double		rounds_per_s;	/* over the last second or so */
	bool		paused, done, running;
	uint64_t	recompiles;	/* successful ones */
	bool		interleaved;	/* a baseline program runs in turn */
	uint64_t	recompile_seq;	/* requests made */
	uint64_t	recompile_done;	/* requests answered (ok or not) */
	char		error[GP_ERR_MAX];	/* last failed recompile */
};
void	gp_session_status(struct gp_session *s, struct gp_session_status *st);

/* Synchronous use only (no worker running).  gp_session_profile returns
 * the live profile made complete (the calls whose applies were sampled
 * out attributed, gp_prof_flush): ask for it again after each
 * gp_session_run rather than keeping the pointer. */
struct gp_profile	*gp_session_profile(struct gp_session *s);
/* The same for the baseline program (NULL before any recompile). */
struct gp_profile	*gp_session_base_profile(struct gp_session *s);
struct gp_graph		*gp_session_graph(struct gp_session *s);
struct gp_vm		*gp_session_vm(struct gp_session *s);
const struct gp_flags	*gp_session_flags(struct gp_session *s);

#endif
