/*
 * test-session-thread.c: the session's worker thread, driven the way the
 * interface drives it, for ThreadSanitizer as much as for the values.
 * add3.json without fusion (three applies) runs in the worker while this
 * thread takes snapshots: every snapshot is consistent (each apply counted
 * once per call, histograms summing to their counts) and the rounds never
 * go back; pause stops the rounds, reset zeroes them, a recompile with
 * fusion swaps in a one-apply program and keeps the three-apply one as
 * the baseline, run in turn with it (as many calls of each), and the run
 * stops exactly at its limit.  (Counts are the
 * counted calls, call.n: calls_seen survives a reset by design.)
 */
#include "config.h"

#include <time.h>

#include "../tap.h"
#include "base/flags.h"
#include "prof/profile.h"
#include "session/session.h"

#define LIMIT 20000
#define WAIT_MS 30000

static void
sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&ts, NULL);
}

/* The snapshot's function 0 is consistent: every apply counted once per
 * counted call, the histograms sum to the counts. */
static bool
consistent(const struct gp_profile *p)
{
	const struct gp_prof_fn *f = &p->fn[0];
	uint64_t h = 0;

	for (int b = 0; b < f->call.nb; b++)
		h += f->call.bin[b];
	if (h != f->call.n || f->calls_seen < f->call.n)
		return (false);
	for (int k = 0; k < f->n_apply; k++) {
		h = 0;
		for (int b = 0; b < f->ap[k].st.nb; b++)
			h += f->ap[k].st.bin[b];
		if (f->ap[k].st.n != f->call.n || h != f->ap[k].st.n)
			return (false);
	}
	return (true);
}

/* Wait until the worker's status satisfies what; false on time-out. */
enum want { W_PAUSED, W_RUNNING_SOME, W_RECOMPILED, W_DONE };

static bool
wait_for(struct gp_session *s, enum want w, uint64_t arg)
{
	struct gp_session_status st;

	for (int t = 0; t < WAIT_MS; t += 5) {
		gp_session_status(s, &st);
		switch (w) {
		case W_PAUSED:
			if (st.paused)
				return (true);
			break;
		case W_RUNNING_SOME:
			if (st.rounds >= arg)
				return (true);
			break;
		case W_RECOMPILED:
			if (st.recompile_done == st.recompile_seq)
				return (true);
			break;
		case W_DONE:
			if (st.done)
				return (true);
			break;
		}
		sleep_ms(5);
	}
	return (false);
}

int
main(void)
{
	const char *srcdir = getenv("top_srcdir");
	char path[4096];
	struct gp_flags flags, fused;
	struct gp_err err;
	struct gp_session *s;
	struct gp_profile *snap = NULL, *base;
	struct gp_session_status st;
	uint64_t r, last = 0, r1, r2;
	bool cons = true, mono = true;
	int n = 0;

	snprintf(path, sizeof(path), "%s/data/graphs/add3.json",
	    srcdir != NULL ? srcdir : ".");
	gp_flags_init(&flags);
	gp_flags_init(&fused);
	if (gp_flags_parse(&flags, "optimizer_excluding=fusion", "test", &err) <
	    0) {
		diag("%s", err.msg);
		return (1);
	}
	s = gp_session_open(path, &flags, &err);
	if (!ok(s != NULL, "open %s", path)) {
		diag("%s", err.msg);
		return (1);
	}
	ok(gp_session_start(s, 0, &err) == 0, "the worker starts");

	/* snapshots while it runs */
	while (n < 200) {
		r = gp_session_snapshot(s, &snap);
		if (!consistent(snap))
			cons = false;
		if (r < last || snap->fn[0].call.n > r)
			mono = false;
		last = r;
		n++;
		sleep_ms(1);
	}
	ok(snap->fn[0].n_apply == 3, "three applies without fusion (got %d)",
	    snap->fn[0].n_apply);
	ok(cons, "%d snapshots taken while running are consistent", n);
	ok(mono,
	    "their rounds never go back, and never trail the calls "
	    "published");
	ok(wait_for(s, W_RUNNING_SOME, 100), "the rounds advance (%llu)",
	    (unsigned long long)last);

	/* pause */
	gp_session_pause(s, true);
	ok(wait_for(s, W_PAUSED, 0) && gp_session_paused(s), "paused");
	sleep_ms(20);
	r1 = gp_session_snapshot(s, &snap);
	sleep_ms(100);
	r2 = gp_session_snapshot(s, &snap);
	ok(r1 == r2 && r1 > 0, "no round runs while paused (%llu, then %llu)",
	    (unsigned long long)r1, (unsigned long long)r2);
	ok(snap->fn[0].call.n == r2 && consistent(snap),
	    "paused, the snapshot has every round: %llu calls",
	    (unsigned long long)snap->fn[0].call.n);

	/* reset while paused: the worker zeroes the counters at once */
	gp_session_reset(s);
	for (int t = 0; t < WAIT_MS && gp_session_snapshot(s, &snap) != 0;
	     t += 5)
		sleep_ms(5);
	ok(snap->fn[0].call.n == 0 && snap->fn[0].call.total == 0 &&
		snap->fn[0].ap[0].st.n == 0 && consistent(snap),
	    "reset while paused: rounds and counters back to 0");
	sleep_ms(50);
	ok(gp_session_snapshot(s, &snap) == 0, "... and still paused");
	gp_session_pause(s, false);

	/* recompile with fusion, while running */
	ok(gp_session_recompile(s, &fused, &err) == 0, "recompile asked");
	ok(wait_for(s, W_RECOMPILED, 0), "the worker answers the recompile");
	gp_session_status(s, &st);
	ok(st.recompiles == 1 && st.error[0] == '\0',
	    "one recompile, no "
	    "error");
	wait_for(s, W_RUNNING_SOME, 10);
	gp_session_snapshot(s, &snap);
	ok(snap->fn[0].n_apply == 1 && consistent(snap),
	    "fused: one apply, "
	    "consistent");
	base = gp_session_baseline(s);
	ok(base != NULL && base->fn[0].n_apply == 3 && consistent(base),
	    "the three-apply profile is the baseline");
	gp_profile_free(base);
	ok(st.interleaved, "the status says both programs run in turn");
	/* both programs run, round after round, until paused: then the two
	 * published profiles count the same calls */
	wait_for(s, W_RUNNING_SOME, 200);
	gp_session_pause(s, true);
	wait_for(s, W_PAUSED, 0);
	sleep_ms(20);
	r = gp_session_snapshot(s, &snap);
	base = gp_session_baseline(s);
	ok(base != NULL && base->fn[0].call.n >= 200 && base->fn[0].call.n ==
	    snap->fn[0].call.n && snap->fn[0].call.n == r &&
	    consistent(base), "paused after %llu rounds: the baseline "
	    "program ran as many (%llu calls) since the recompile",
	    (unsigned long long)r, base ? (unsigned long long)
	    base->fn[0].call.n : 0ULL);
	gp_profile_free(base);
	gp_session_pause(s, false);
	gp_session_stop(s);

	/* a run with a limit stops exactly there */
	gp_session_reset(s);
	ok(gp_session_start(s, LIMIT, &err) == 0,
	    "restart with a limit of "
	    "%d rounds",
	    LIMIT);
	ok(wait_for(s, W_DONE, 0), "the worker reports done");
	r = gp_session_snapshot(s, &snap);
	is_int((long long)r, LIMIT, "rounds at the limit");
	is_int((long long)snap->fn[0].call.n, LIMIT, "calls published");
	ok(consistent(snap), "the final snapshot is consistent");
	gp_session_stop(s);
	gp_profile_free(snap);
	gp_session_free(s);
	gp_flags_done(&flags);
	gp_flags_done(&fused);
	return (done_testing());
}
