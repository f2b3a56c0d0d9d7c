/*
 * test-trace.c: the Chrome trace against the profile of the same run, call
 * by call.  logreg.json runs with sampling (profiling__sample=4) before and
 * while it is traced, one round at a time, and after each round the growth
 * of every apply's counters (total and count: the time the profile
 * recorded for that execution, times the calls it stands for) is kept.
 * Then each apply slice of the trace must last exactly that time (in whole
 * ns), each call slice its call_ns, and the calls whose applies were not
 * timed must be missing from the trace, counted as untimed in otherData.
 */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "capture/export.h"
#include "session/session.h"

#define ROUNDS 7
#define BEFORE 2	/* rounds run before the trace starts */

/* What the profile recorded in round r for apply i of function f. */
struct rec {
	uint64_t	 total, n;
};

static long long
ns_of(json_t *v)
{
	return (llround(json_number_value(v) * 1000.0));
}

static long long
arg(json_t *ev, const char *k)
{
	return ((long long)json_integer_value(json_object_get(json_object_get(
	    ev, "args"), k)));
}

int
main(void)
{
	const char *top = getenv("top_srcdir");
	char *path, *buf = NULL;
	size_t len = 0, i;
	struct gp_flags flags;
	struct gp_session *s;
	struct gp_profile *p;
	struct gp_trace *t;
	struct gp_err err;
	struct rec *rec[ROUNDS + 1][2] = {{NULL}};
	uint64_t calls_before[2];
	FILE *fp;
	json_t *j, *e;
	json_error_t je;
	int call_of[2] = {0, 0}, n_call[2] = {0, 0}, drawn[2] = {0, 0};
	int wrong_ns = 0, wrong_dur = 0, wrong_call = 0, checked = 0;
	int untimed_drawn = 0;
	bool timed[ROUNDS + 1][2] = {{false}};

	path = gp_xasprintf("%s/data/graphs/logreg.json", top != NULL ? top :
	    "..");
	gp_flags_init(&flags);
	flags.sample = 4;
	s = gp_session_open(path, &flags, &err);
	if (!ok(s != NULL, "open logreg.json%s%s", s ? "" : ": ",
	    s ? "" : err.msg))
		return (done_testing());
	p = gp_session_profile(s);
	is_int(p->n_fn, 2, "two functions");
	gp_session_run(s, -1, BEFORE);
	t = gp_export_trace_new(p, gp_session_vm(s), 20);
	for (int f = 0; f < 2; f++)
		calls_before[f] = p->fn[f].calls_seen;
	for (int r = 1; r <= ROUNDS; r++) {
		struct rec *before[2];

		for (int f = 0; f < 2; f++) {
			before[f] = calloc((size_t)p->fn[f].n_apply + 1,
			    sizeof(struct rec));
			for (int a = 0; a < p->fn[f].n_apply; a++)
				before[f][a] = (struct rec){
				    p->fn[f].ap[a].st.total,
				    p->fn[f].ap[a].st.n};
		}
		gp_session_run(s, -1, 1);
		for (int f = 0; f < 2; f++) {
			rec[r][f] = before[f];
			for (int a = 0; a < p->fn[f].n_apply; a++) {
				rec[r][f][a].total = p->fn[f].ap[a].st.total -
				    rec[r][f][a].total;
				rec[r][f][a].n = p->fn[f].ap[a].st.n -
				    rec[r][f][a].n;
				if (rec[r][f][a].n > 0)
					timed[r][f] = true;
			}
		}
	}
	gp_export_trace_stop(t);
	/* sample=4: call 1 timed, 2-4 not, 5 timed, then every call (the
	 * trace times every call from the next timed one on) */
	for (int f = 0; f < 2; f++) {
		ok(!timed[1][f] && !timed[2][f] && timed[3][f] &&
		    timed[4][f] && timed[ROUNDS][f], "%s: calls 3 and 4 (the "
		    "trace's 1 and 2) not timed, 5 on timed", p->fn[f].name);
		is_int((long long)(p->fn[f].calls_seen - calls_before[f]),
		    ROUNDS, "%s: %d calls while tracing", p->fn[f].name,
		    ROUNDS);
	}

	fp = open_memstream(&buf, &len);
	ok(gp_export_trace_fp(t, fp) == 0, "write the trace");
	fclose(fp);
	j = json_loads(buf, JSON_REJECT_DUPLICATES, &je);
	if (!ok(j != NULL, "the trace is JSON"))
		diag("%s", je.text);
	json_array_foreach(json_object_get(j, "traceEvents"), i, e) {
		const char *ph = json_string_value(json_object_get(e, "ph"));
		const char *cat = json_string_value(json_object_get(e, "cat"));
		int f = (int)json_integer_value(json_object_get(e, "tid")) - 1;
		long long c;
		const struct rec *rc;

		if (strcmp(ph, "X") != 0 || f < 0 || f > 1)
			continue;
		if (strcmp(cat, "call") == 0) {
			c = arg(e, "call");
			if (c < 1 || c > ROUNDS || !timed[c][f]) {
				untimed_drawn++;
				call_of[f] = 0;
				continue;
			}
			call_of[f] = (int)c;
			n_call[f] = 0;
			drawn[f]++;
			if (ns_of(json_object_get(e, "dur")) !=
			    arg(e, "call_ns"))
				wrong_dur++;
			continue;
		}
		if (call_of[f] == 0)
			continue;
		if (arg(e, "apply") != n_call[f]++) {
			wrong_call++;
			continue;
		}
		/* the profile's time for this execution: its growth over the
		 * calls it counts this one for (the untimed before it) */
		rc = &rec[call_of[f]][f][arg(e, "apply")];
		checked++;
		if (rc->n == 0 || rc->total % rc->n != 0 ||
		    (long long)(rc->total / rc->n) != arg(e, "ns")) {
			if (wrong_ns++ < 5)
				diag("%s call %d apply %lld: ns %lld, the "
				    "profile recorded %llu over %llu",
				    p->fn[f].name, call_of[f], arg(e, "apply"),
				    arg(e, "ns"), (unsigned long long)rc->total,
				    (unsigned long long)rc->n);
		}
		if (ns_of(json_object_get(e, "dur")) != arg(e, "ns"))
			wrong_dur++;
	}
	is_int(untimed_drawn, 0, "no call without timed applies is drawn");
	for (int f = 0; f < 2; f++) {
		json_t *c = json_object_get(json_object_get(json_object_get(j,
		    "otherData"), "calls"), p->fn[f].name);

		is_int(drawn[f], ROUNDS - 2, "%s: the %d timed calls drawn",
		    p->fn[f].name, ROUNDS - 2);
		is_int(json_integer_value(json_object_get(c, "seen")), ROUNDS,
		    "%s: otherData: %d calls seen", p->fn[f].name, ROUNDS);
		is_int(json_integer_value(json_object_get(c, "untimed")), 2,
		    "%s: otherData: 2 untimed", p->fn[f].name);
		is_int(json_integer_value(json_object_get(c, "traced")),
		    ROUNDS - 2, "%s: otherData: %d traced", p->fn[f].name,
		    ROUNDS - 2);
	}
	is_int(checked, (ROUNDS - 2) * (p->fn[0].n_apply + p->fn[1].n_apply),
	    "every apply of every timed call checked");
	is_int(wrong_call, 0, "apply slices in schedule order after their call");
	is_int(wrong_ns, 0, "each apply slice's ns is the time the profile "
	    "recorded for that execution");
	is_int(wrong_dur, 0, "each slice's dur is its ns (calls: call_ns)");

	json_decref(j);
	free(buf);
	for (int r = 1; r <= ROUNDS; r++)
		for (int f = 0; f < 2; f++)
			free(rec[r][f]);
	gp_export_trace_free(t);
	gp_session_free(s);
	gp_flags_done(&flags);
	free(path);
	return (done_testing());
}
