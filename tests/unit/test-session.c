/*
 * test-session.c: a recompile keeps the old program as the baseline and
 * runs it in turn with the new one (synchronous runs: the same rounds as
 * the worker's).  chain.json with fusion (one fused apply), then without
 * (the unfused ones): the baseline is the fused program, its counters
 * zeroed at the recompile; each round after runs both, in the order A B,
 * B A, A B, ... (seen by a tracer on each profile); both count the same
 * calls; a reset zeroes both; a second recompile makes the unfused program
 * the baseline; a failed one leaves both running.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "base/flags.h"
#include "prof/profile.h"
#include "session/session.h"

/* The order of calls, one letter per call of either program. */
static char order[256];
static size_t n_order;

static void
trace(void *ctx, const struct gp_profile *p, int fn, const uint64_t *ticks,
    uint64_t call_ns)
{
	(void)p;
	(void)fn;
	(void)ticks;
	(void)call_ns;
	if (n_order + 1 < sizeof(order))
		order[n_order++] = *(const char *)ctx;
}

static void
bail(const char *what, const char *msg)
{
	printf("Bail out! %s: %s\n", what, msg);
	exit(1);
}

/* got equals want, or say what it was. */
static void
is_order(const char *want, const char *what)
{
	if (!ok(strcmp(order, want) == 0, "%s", what))
		diag("got \"%s\", want \"%s\"", order, want);
}

static struct gp_flags *
flags_of(struct gp_flags *f, const char *s)
{
	struct gp_err err;

	gp_flags_init(f);
	if (gp_flags_parse(f, s, "test", &err) < 0)
		bail(s, err.msg);
	return (f);
}

static int
applies(const struct gp_profile *p)
{
	return (p != NULL && p->n_fn > 0 ? p->fn[0].n_apply : -1);
}

int
main(void)
{
	const char *srcdir = getenv("top_srcdir");
	char path[4096];
	struct gp_flags fused, unfused, bad;
	struct gp_session *s;
	struct gp_profile *a, *b = NULL, *base;
	struct gp_err err;
	int n_fused, n_unfused;

	snprintf(path, sizeof(path), "%s/data/graphs/chain.json",
	    srcdir != NULL ? srcdir : ".");
	flags_of(&fused, "profiling__sample=1");
	flags_of(&unfused, "profiling__sample=1,optimizer_excluding=fusion");
	flags_of(&bad, "profiling__sample=1,optimizer_requiring=fusion,"
	    "optimizer_excluding=fusion");
	s = gp_session_open(path, &fused, &err);
	if (s == NULL)
		bail(path, err.msg);
	gp_session_run(s, -1, 5);
	n_fused = applies(gp_session_profile(s));
	ok(gp_session_baseline(s) == NULL && gp_session_base_profile(s) ==
	    NULL, "no baseline before a recompile");

	ok(gp_session_recompile(s, &unfused, &err) == 0, "recompile without "
	    "fusion");
	n_unfused = applies(gp_session_profile(s));
	base = gp_session_base_profile(s);
	ok(n_fused > 0 && n_unfused > n_fused && applies(base) == n_fused,
	    "the baseline program is the fused one (%d applies; now %d)",
	    applies(base), n_unfused);
	ok(base != NULL && base->fn[0].call.n == 0 &&
	    base->fn[0].ap[0].st.n == 0 && strstr(base->flags, "fusion") ==
	    NULL, "its counters zeroed at the recompile, its flags its own");

	gp_session_base_profile(s)->tracer = trace;
	gp_session_base_profile(s)->tracer_ctx = "A";
	gp_session_profile(s)->tracer = trace;
	gp_session_profile(s)->tracer_ctx = "B";
	gp_session_run(s, -1, 6);
	is_order("ABBAABBAABBA", "six rounds run both programs, A B then B A "
	    "in turn");
	a = gp_session_baseline(s);
	gp_session_snapshot(s, &b);
	ok(a != NULL && a->fn[0].call.n == 6 && b->fn[0].call.n == 6,
	    "both counted the 6 calls since the recompile (A %llu, B %llu)",
	    a ? (unsigned long long)a->fn[0].call.n : 0ULL,
	    (unsigned long long)b->fn[0].call.n);
	ok(applies(a) == n_fused && applies(b) == n_unfused, "the baseline "
	    "copy is A's, the snapshot B's");
	gp_profile_free(a);

	gp_session_reset(s);
	a = gp_session_baseline(s);
	gp_session_snapshot(s, &b);
	ok(a->fn[0].call.n == 0 && b->fn[0].call.n == 0, "a reset zeroes "
	    "both");
	gp_profile_free(a);

	ok(gp_session_recompile(s, &bad, &err) < 0, "a recompile that fails "
	    "(%s)", err.msg);
	n_order = 0;
	memset(order, 0, sizeof(order));
	gp_session_run(s, -1, 2);
	is_order("ABBA", "... leaves both programs running in turn");

	ok(gp_session_recompile(s, &fused, &err) == 0, "recompile with "
	    "fusion again");
	ok(applies(gp_session_base_profile(s)) == n_unfused &&
	    applies(gp_session_profile(s)) == n_fused, "the unfused program "
	    "is now the baseline");
	gp_session_run(s, -1, 3);
	a = gp_session_baseline(s);
	gp_session_snapshot(s, &b);
	ok(a->fn[0].call.n == 3 && b->fn[0].call.n == 3, "both run: 3 calls "
	    "each");
	gp_profile_free(a);
	gp_profile_free(b);
	gp_session_free(s);
	gp_flags_done(&fused);
	gp_flags_done(&unfused);
	gp_flags_done(&bad);
	return (done_testing());
}
