/*
 * tests/capture/trace-check.c: checks a Chrome trace written by
 * `gptop --export-trace` against the Apply table of the same run
 * (`--export-csv`), reading both files as text (jansson and a small RFC 4180
 * reader; nothing of gptop's own code):
 *
 *   trace-check [--first-ignored] TRACE.json APPLIES.csv
 *
 * On each function's thread: every call slice lasts its args.call_ns, the
 * calls follow each other without overlap, and a call's slice is followed
 * by one slice per apply of the function, in schedule order (args.apply
 * 0, 1, ...), each inside the call, none overlapping the next; each
 * apply's dur is its args.ns; the applies of a call add up to at most the
 * call's duration and to within 5% of its thunk time (args.thunk_ns).
 * otherData's counts agree: seen = timed + untimed, traced = the call
 * slices drawn.  When every timed call was traced and counted by the
 * profile, the traced executions of each apply are what the profile
 * recorded: as many as the CSV's calls, adding up to its time_ns, with its
 * min_ns and max_ns (with --first-ignored, the first call, which
 * profiling__ignore_first_call leaves out of the profile, is left out of
 * that comparison).  Times are compared in whole ns.
 *
 * Exit 0 when all holds; else 1, each broken rule on stderr.  Prints
 * "calls N applies M" (slices checked) on stdout.
 */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int problems;

#define BAD(...) do {							\
	if (problems++ < 20) {						\
		fprintf(stderr, "trace-check: " __VA_ARGS__);		\
		fputc('\n', stderr);					\
	}								\
} while (0)

/* A time in us as printed by the trace, in whole ns. */
static long long
ns_of(json_t *v)
{
	return (llround(json_number_value(v) * 1000.0));
}

static long long
arg_int(json_t *ev, const char *k)
{
	json_t *a = json_object_get(json_object_get(ev, "args"), k);

	return (json_is_integer(a) ? (long long)json_integer_value(a) : -1);
}

/* What the trace holds for one apply, summed over its traced calls. */
struct exec {
	char		*fn;
	long long	 id;
	long long	 n, total, min, max;
	bool		 seen_csv;
};

static struct exec *execs;
static size_t n_exec, cap_exec;

static struct exec *
exec_get(const char *fn, long long id, bool add)
{
	for (size_t i = 0; i < n_exec; i++)
		if (execs[i].id == id && strcmp(execs[i].fn, fn) == 0)
			return (&execs[i]);
	if (!add)
		return (NULL);
	if (n_exec == cap_exec) {
		cap_exec = cap_exec ? 2 * cap_exec : 64;
		execs = realloc(execs, cap_exec * sizeof(*execs));
		if (execs == NULL)
			abort();
	}
	execs[n_exec] = (struct exec){.fn = strdup(fn), .id = id};
	return (&execs[n_exec++]);
}

static void
exec_add(struct exec *e, long long ns)
{
	if (e->n == 0 || ns < e->min)
		e->min = ns;
	if (ns > e->max)
		e->max = ns;
	e->n++;
	e->total += ns;
}

/* One thread (function) as the events are walked. */
struct thread {
	long long	 tid;
	char		*name;
	int		 calls;
	long long	 last_call;	/* args.call of the last call slice */
	long long	 call_ts, call_end, call_no, thunk, sum;
	long long	 next_id;	/* the apply expected next */
	long long	 prev_end;	/* end of the last slice inside the call */
	bool		 in_call;
	long long	 n_apply;	/* applies per call (the first call) */
	bool		 n_known;
};

static struct thread threads[64];
static int n_threads;

static struct thread *
thread_get(long long tid)
{
	for (int i = 0; i < n_threads; i++)
		if (threads[i].tid == tid)
			return (&threads[i]);
	if (n_threads == 64)
		abort();
	threads[n_threads].tid = tid;
	return (&threads[n_threads++]);
}

/* The call in progress on th ends: its applies are complete. */
static void
close_call(struct thread *th)
{
	if (!th->in_call)
		return;
	th->in_call = false;
	if (!th->n_known) {
		th->n_apply = th->next_id;
		th->n_known = true;
	} else if (th->next_id != th->n_apply)
		BAD("%s call %lld: %lld apply slices, the first call had %lld",
		    th->name, th->call_no, th->next_id, th->n_apply);
	if (th->sum > th->call_end - th->call_ts)
		BAD("%s call %lld: applies add up to %lld ns, more than the "
		    "call's %lld", th->name, th->call_no, th->sum,
		    th->call_end - th->call_ts);
	if (fabs((double)(th->sum - th->thunk)) > 0.05 * (double)th->thunk)
		BAD("%s call %lld: applies add up to %lld ns, thunk time %lld",
		    th->name, th->call_no, th->sum, th->thunk);
}

static void
call_slice(struct thread *th, json_t *ev)
{
	long long ts = ns_of(json_object_get(ev, "ts"));
	long long dur = ns_of(json_object_get(ev, "dur"));
	long long no = arg_int(ev, "call");

	close_call(th);
	if (dur != arg_int(ev, "call_ns"))
		BAD("%s call %lld: dur %lld ns, call_ns %lld", th->name, no,
		    dur, arg_int(ev, "call_ns"));
	if (th->calls > 0 && ts < th->call_end)
		BAD("%s call %lld starts at %lld ns, before the last call "
		    "ends (%lld)", th->name, no, ts, th->call_end);
	if (th->calls > 0 && no <= th->last_call)
		BAD("%s: call %lld after call %lld", th->name, no,
		    th->last_call);
	th->calls++;
	th->last_call = no;
	th->call_no = no;
	th->call_ts = ts;
	th->call_end = ts + dur;
	th->thunk = arg_int(ev, "thunk_ns");
	th->sum = 0;
	th->next_id = 0;
	th->prev_end = ts;
	th->in_call = true;
}

static void
apply_slice(struct thread *th, json_t *ev, bool first_ignored)
{
	long long ts = ns_of(json_object_get(ev, "ts"));
	long long dur = ns_of(json_object_get(ev, "dur"));
	long long id = arg_int(ev, "apply");
	const char *name = json_string_value(json_object_get(ev, "name"));

	if (!th->in_call) {
		BAD("%s: apply slice %s outside any call", th->name, name);
		return;
	}
	if (id != th->next_id)
		BAD("%s call %lld: apply %lld where apply %lld was due",
		    th->name, th->call_no, id, th->next_id);
	th->next_id = id + 1;
	if (dur != arg_int(ev, "ns"))
		BAD("%s call %lld apply %lld (%s): dur %lld ns, args.ns %lld",
		    th->name, th->call_no, id, name, dur, arg_int(ev, "ns"));
	if (ts < th->prev_end)
		BAD("%s call %lld apply %lld (%s) starts at %lld ns, before "
		    "the last slice ends (%lld)", th->name, th->call_no, id,
		    name, ts, th->prev_end);
	if (ts + dur > th->call_end)
		BAD("%s call %lld apply %lld (%s) ends at %lld ns, after its "
		    "call (%lld)", th->name, th->call_no, id, name, ts + dur,
		    th->call_end);
	th->prev_end = ts + dur;
	th->sum += dur;
	if (!(first_ignored && th->call_no == 1))
		exec_add(exec_get(th->name, id, true), dur);
}

/* The next RFC 4180 field of the line at *p into out; false at the end of
 * the record. */
static bool
csv_field(char **p, char *out, size_t cap)
{
	char *s = *p;
	size_t n = 0;

	if (*s == '\r' || *s == '\n' || *s == '\0')
		return (false);
	if (*s == '"') {
		for (s++; *s != '\0'; s++) {
			if (*s == '"' && s[1] == '"')
				s++;
			else if (*s == '"') {
				s++;
				break;
			}
			if (n + 1 < cap)
				out[n++] = *s;
		}
	} else
		for (; *s != ',' && *s != '\r' && *s != '\n' && *s != '\0';
		    s++)
			if (n + 1 < cap)
				out[n++] = *s;
	out[n] = '\0';
	if (*s == ',')
		s++;
	*p = s;
	return (true);
}

static char *
slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *b;
	long n;

	if (fp == NULL || fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0)
		return (NULL);
	rewind(fp);
	b = malloc((size_t)n + 1);
	if (b == NULL || fread(b, 1, (size_t)n, fp) != (size_t)n)
		abort();
	b[n] = '\0';
	fclose(fp);
	return (b);
}

/* Compare the traced executions with the CSV's rows. */
static void
check_csv(const char *path)
{
	enum { FN, ID, TIME, MIN, MAX, CALLS, NCOL };
	static const char *const names[NCOL] = {"function", "id", "time_ns",
	    "min_ns", "max_ns", "calls"};
	int col[NCOL], k;
	char *text = slurp(path), *p = text, f[4096], v[NCOL][4096];
	int rows = 0;

	if (text == NULL) {
		BAD("cannot read %s", path);
		return;
	}
	for (int c = 0; c < NCOL; c++)
		col[c] = -1;
	for (k = 0; csv_field(&p, f, sizeof(f)); k++)
		for (int c = 0; c < NCOL; c++)
			if (strcmp(f, names[c]) == 0)
				col[c] = k;
	for (int c = 0; c < NCOL; c++)
		if (col[c] < 0)
			BAD("%s: no column %s", path, names[c]);
	while (*p == '\r' || *p == '\n')
		p++;
	while (*p != '\0') {
		struct exec *e;
		long long n, total, mn, mx;

		for (k = 0; csv_field(&p, f, sizeof(f)); k++)
			for (int c = 0; c < NCOL; c++)
				if (col[c] == k)
					snprintf(v[c], sizeof(v[c]), "%s", f);
		while (*p == '\r' || *p == '\n')
			p++;
		rows++;
		n = atoll(v[CALLS]);
		total = atoll(v[TIME]);
		mn = atoll(v[MIN]);
		mx = atoll(v[MAX]);
		e = exec_get(v[FN], atoll(v[ID]), false);
		if (e == NULL) {
			if (n != 0)
				BAD("%s apply %s: %lld executions in the "
				    "profile, none traced", v[FN], v[ID], n);
			continue;
		}
		e->seen_csv = true;
		if (e->n != n || e->total != total || (n > 0 &&
		    (e->min != mn || e->max != mx)))
			BAD("%s apply %s: traced %lld executions, %lld ns "
			    "(min %lld, max %lld); the profile recorded %lld, "
			    "%lld ns (min %lld, max %lld)", v[FN], v[ID], e->n,
			    e->total, e->min, e->max, n, total, mn, mx);
	}
	for (size_t i = 0; i < n_exec; i++)
		if (!execs[i].seen_csv)
			BAD("%s apply %lld traced, not in %s", execs[i].fn,
			    execs[i].id, path);
	if (rows == 0)
		BAD("%s: no rows", path);
	free(text);
}

int
main(int argc, char **argv)
{
	bool first_ignored = false, all = true;
	json_error_t je;
	json_t *j, *ev, *e, *calls;
	size_t i;
	long long n_calls = 0, n_applies = 0;
	const char *key;

	if (argc > 1 && strcmp(argv[1], "--first-ignored") == 0) {
		first_ignored = true;
		argc--;
		argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: trace-check [--first-ignored] "
		    "TRACE.json APPLIES.csv\n");
		return (2);
	}
	if ((j = json_load_file(argv[1], JSON_REJECT_DUPLICATES, &je)) ==
	    NULL) {
		fprintf(stderr, "trace-check: %s:%d: %s\n", argv[1], je.line,
		    je.text);
		return (1);
	}
	ev = json_object_get(j, "traceEvents");
	json_array_foreach(ev, i, e) {
		const char *ph = json_string_value(json_object_get(e, "ph"));
		const char *cat = json_string_value(json_object_get(e, "cat"));
		struct thread *th;

		if (ph == NULL || !json_is_integer(json_object_get(e, "tid")))
			continue;
		th = thread_get(json_integer_value(json_object_get(e, "tid")));
		if (strcmp(ph, "M") == 0 && strcmp(json_string_value(
		    json_object_get(e, "name")), "thread_name") == 0)
			th->name = strdup(json_string_value(json_object_get(
			    json_object_get(e, "args"), "name")));
		if (strcmp(ph, "X") != 0)
			continue;
		if (th->name == NULL) {
			BAD("tid %lld: a slice before the thread's name",
			    th->tid);
			continue;
		}
		if (cat != NULL && strcmp(cat, "call") == 0) {
			call_slice(th, e);
			n_calls++;
		} else {
			apply_slice(th, e, first_ignored);
			n_applies++;
		}
	}
	for (int t = 0; t < n_threads; t++)
		close_call(&threads[t]);
	calls = json_object_get(json_object_get(j, "otherData"), "calls");
	json_object_foreach(calls, key, e) {
		long long seen = json_integer_value(json_object_get(e, "seen"));
		long long timed = json_integer_value(json_object_get(e,
		    "timed"));
		long long untimed = json_integer_value(json_object_get(e,
		    "untimed"));
		long long traced = json_integer_value(json_object_get(e,
		    "traced"));
		long long drawn = 0;

		for (int t = 0; t < n_threads; t++)
			if (threads[t].name != NULL &&
			    strcmp(threads[t].name, key) == 0)
				drawn = threads[t].calls;
		if (seen != timed + untimed)
			BAD("%s: seen %lld, timed %lld + untimed %lld", key,
			    seen, timed, untimed);
		if (traced != drawn)
			BAD("%s: otherData says %lld calls traced, %lld drawn",
			    key, traced, drawn);
		if (traced != timed || untimed != 0)
			all = false;
	}
	if (all)
		check_csv(argv[2]);
	else
		fprintf(stderr, "trace-check: not every call traced: the "
		    "profile's totals not compared\n");
	printf("calls %lld applies %lld\n", n_calls, n_applies);
	json_decref(j);
	for (size_t k = 0; k < n_exec; k++)
		free(execs[k].fn);
	free(execs);
	for (int t = 0; t < n_threads; t++)
		free(threads[t].name);
	return (problems > 0 || n_calls == 0 ? 1 : 0);
}
