/*
 * test-capture.c: captures (save, load, every field back equal, the same
 * report; the recent-call ring; each kind of bad capture refused with its
 * file:line:col and JSON path; every truncation refused; a large capture
 * read in pieces, with every fault told as when read whole), capture
 * detection, atomic writing, merging and its refusals, the graph hash, the
 * memory profile in captures (real runs' back field by field with the same
 * Memory Profile section; each kind of bad memory object refused with its
 * path; random corruptions refused or harmless; kept by merge), and
 * the exports (CSV quoting and tables; a Chrome trace of a real run parsed
 * back and checked for nesting and counts), and the calls drawn along time
 * (the "timeline" member: written as hand-computed columns, read back
 * equal, absent from older captures, kept by merge from the latest
 * capture, each kind of bad one refused with its path).
 */
#include "config.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "../capture/fixture.h"
#include "capture/capture.h"
#include "ops/par.h"
#include "capture/export.h"
#include "graph/hash.h"
#include "load/graph-json.h"
#include "capture/memjson.h"
#include "prof/memprof.h"
#include "prof/memreport.h"
#include "prof/report.h"
#include "session/session.h"

static char tmpdir[256];

static char *
tmp_path(const char *name)
{
	return (gp_xasprintf("%s/%s", tmpdir, name));
}

/* A profile with two functions and every kind of field filled. */
static struct gp_profile *
rich_profile(uint64_t seed0)
{
	static const char *const ops[] = {"mul", "add", "tanh", "exp"};
	static const double ns[] = {1000, 2000, 5000, 3000};
	struct gp_profile *p = fx_profile("rich", 0xfedcba9876543210ULL,
	    "fusion,inplace");
	uint64_t seed = seed0;
	struct gp_prof_fn *f;
	struct gp_prof_apply *a;
	const char *in2[2] = {"t3", "y \"quoted\", caf\xc3\xa9"};

	f = fx_chain(p, "f", 4, ops, ns, 7, 0.1, &seed);
	/* a second function: a scalar input, a view, an in-place output */
	/* JSON escapes in a name (a control character would be read back
	 * escaped for the terminal: test_text) */
	f = fx_function(p, "g\\next \"2\"", 4);
	a = fx_apply(f, "Dot", "dot", 2, (const char *const[]){"a", "b"},
	    (const int[]){-1, -1}, "ab", 64);
	a->impl = GP_IMPL_BLAS;
	a->in[1].ndim = 0;
	a->in[1].nbytes = 8;
	a->in[0].strides_known = false;
	free(a->extra);
	a->extra = gp_xstrdup("cblas_dgemm(\"N\", ...)");
	free(a->node);
	a->node = gp_xstrdup("my dot");
	fx_time(a, 40000, 3, 0.3, &seed);
	a = fx_apply(f, "DimShuffle", "transpose", 1,
	    (const char *const[]){"ab"}, (const int[]){0}, "abT", 64);
	a->out[0].alias = 'v';
	a->impl = GP_IMPL_VIEW;
	fx_time(a, 20, 3, 0, &seed);
	a = fx_apply(f, "Elemwise", "add", 2, in2, (const int[]){1, -1},
	    "s", 64);
	a->in_producer[0] = 1;
	a->out[0].alias = 'i';
	a->flops = 1e300;
	fx_time(a, 150, 3, 0.5, &seed);
	fx_calls(f, 3, &seed);
	f->calls_seen = 4;	/* the first call left out */
	p->ignore_first = true;
	p->n_nodes = 7;
	return (p);
}

static char *
report_text(const struct gp_profile *p)
{
	struct gp_report_opts ro = {.n_ops = 20, .n_apply = 50, .width = 512,
	    .rewriters = true};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	gp_report_all(fp, p, &ro);
	fclose(fp);
	return (buf);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;

	if (fp == NULL)
		return (NULL);
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	buf = gp_xmalloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, fp);
	buf[*len] = '\0';
	fclose(fp);
	return (buf);
}

/* A format-1 stat as the file has it (an object with calls, min, max,
 * histogram) against the loaded stat s: the same counters, and its coarse
 * bins, spread over the bins they cover within [min, max], read back as
 * the file's. */
static bool
format1_stat(const json_t *o, const struct gp_prof_stat *s)
{
	uint64_t want[GP_PROF_COARSE] = {0}, got[GP_PROF_COARSE];
	const json_t *h = json_object_get(o, "histogram"), *e;
	size_t i;

	if ((uint64_t)json_integer_value(json_object_get(o, "calls")) !=
	    s->n || (uint64_t)json_integer_value(json_object_get(o, "min")) !=
	    s->min || (uint64_t)json_integer_value(json_object_get(o,
	    "max")) != s->max || s->hn != s->n)
		return (false);
	json_array_foreach(h, i, e)
		want[json_integer_value(json_array_get(e, 0))] +=
		    (uint64_t)json_integer_value(json_array_get(e, 1));
	gp_prof_stat_coarse(s, got);
	for (int b = 0; b < GP_PROF_NBINS; b++)
		if (gp_prof_stat_count(s, b) != 0 && (b < gp_prof_bin(s->min) ||
		    b > gp_prof_bin(s->max)))
			return (false);
	return (memcmp(want, got, sizeof(want)) == 0);
}

/* tests/capture/good.capture.json, format 1 (two bins per octave), still
 * loads: its bins kept, its quantiles what interpolating in its bins gave,
 * and saved again (format 2) it loads back the same. */
static void
test_format1(void)
{
	const char *top = getenv("top_srcdir");
	char *path = gp_xasprintf("%s/tests/capture/good.capture.json",
	    top != NULL ? top : "..");
	char *again = tmp_path("format1-again.capture.json");
	struct gp_capture_info ci;
	struct gp_profile *p, *q = NULL;
	struct gp_err err;
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je), *f;
	bool same;
	char why[256] = "";

	p = gp_capture_load(path, &ci, &err);
	if (!ok(p != NULL && j != NULL, "a format-1 capture loads")) {
		diag("%s", p == NULL ? err.msg : je.text);
		free(path);
		free(again);
		return;
	}
	is_int(ci.version, 1, "format-1: its version told");
	gp_capture_info_done(&ci);
	memset(&ci, 0, sizeof(ci));
	f = json_array_get(json_object_get(j, "functions"), 0);
	same = format1_stat(json_object_get(f, "call"), &p->fn[0].call);
	for (int i = 0; i < 3; i++)
		same &= format1_stat(json_array_get(json_object_get(f,
		    "applies"), (size_t)i), &p->fn[0].ap[i].st);
	ok(same, "format-1: every stat's bins as the file's, within [min, "
	    "max]");
	/* apply 1: 24 ns, then [32, 48), [96, 128), [256, 287]: old median
	 * (rank 2) was interpolated to the end of [32, 48), 48; now the
	 * count sits in the last 1 ns bin of it */
	is_double(gp_prof_stat_quantile(&p->fn[0].ap[1].st, 0.5), 47, 0,
	    "format-1: a median where interpolation put it");
	is_double(gp_prof_stat_quantile(&p->fn[0].ap[1].st, 0.95), 287, 0,
	    "format-1: p95 the max (rank 4 of 4)");
	if (gp_capture_save(p, again, &err) == 0)
		q = gp_capture_load(again, &ci, &err);
	if (!ok(q != NULL, "format-1: saved again and loaded"))
		diag("%s", err.msg);
	ok(q != NULL && ci.version == GP_CAPTURE_VERSION &&
	    fx_profile_equal(p, q, why, sizeof(why)), "format-1: saved as "
	    "format %d, every field and bin the same %s",
	    GP_CAPTURE_VERSION, why);
	gp_capture_info_done(&ci);
	gp_profile_free(p);
	gp_profile_free(q);
	json_decref(j);
	free(path);
	free(again);
}

static void
test_roundtrip(void)
{
	struct gp_profile *p = rich_profile(42), *q;
	struct gp_capture_info ci;
	struct gp_err err;
	char *path = tmp_path("rich.capture.json");
	char why[256] = "";
	char *r1, *r2;

	ok(gp_capture_save(p, path, &err) == 0, "save a capture (%s)",
	    err.msg);
	q = gp_capture_load(path, &ci, &err);
	if (!ok(q != NULL, "load it back")) {
		diag("%s", err.msg);
		gp_profile_free(p);
		free(path);
		return;
	}
	ok(fx_profile_equal(p, q, why, sizeof(why)), "every field and counter "
	    "equal after the round trip %s", why);
	r1 = report_text(p);
	r2 = report_text(q);
	ok(strcmp(r1, r2) == 0, "the report of the loaded capture is the "
	    "report of the saved profile, byte for byte");
	is_int(ci.version, 5, "format version 5");
	ok(ci.created != NULL && strlen(ci.created) == 24 &&
	    ci.created[10] == 'T' && ci.created[23] == 'Z',
	    "created is UTC ISO-8601 (%s)", ci.created ? ci.created : "");
	ok(ci.cpu != NULL && ci.cc != NULL && ci.blas != NULL &&
	    ci.cores > 0 && strcmp(ci.gptop, PACKAGE_VERSION) == 0,
	    "machine, compiler, BLAS and gptop version recorded");
	{
		char idle[64];

		gp_par_idle(idle, sizeof(idle));
		ok(ci.threads == gp_par_max_threads() && ci.idle != NULL &&
		    strcmp(ci.idle, idle) == 0, "the kernels' threads (%d) "
		    "and their idle policy (%s) recorded", ci.threads,
		    ci.idle ? ci.idle : "none");
	}
	ok(gp_capture_detect(path, &err) == 1, "a capture is detected as one");
	gp_capture_info_done(&ci);
	free(r1);
	free(r2);
	gp_profile_free(q);
	gp_profile_free(p);
	free(path);
}

/* More calls than the recent ring holds: the ring comes back in place. */
static void
test_recent_ring(void)
{
	static const char *const ops[] = {"add"};
	static const double ns[] = {100};
	struct gp_profile *p = fx_profile("ring", 1, ""), *q;
	uint64_t seed = 7;
	struct gp_err err;
	char *path = tmp_path("ring.json");
	char why[256] = "";
	struct gp_prof_fn *f = fx_chain(p, "f", 1, ops, ns, 300, 0.2, &seed);

	is_int((long long)f->call.n, 300, "300 calls");
	ok(gp_capture_save(p, path, &err) == 0, "save (%s)", err.msg);
	q = gp_capture_load(path, NULL, &err);
	ok(q != NULL && fx_profile_equal(p, q, why, sizeof(why)),
	    "the last 128 calls come back at their ring positions %s", why);
	gp_profile_free(q);
	gp_profile_free(p);
	free(path);
}

/* Load text; the error must be "bad.json:LINE:COL: ..." holding want
 * (for an empty file: "bad.json: ..."). */
static void
bad(const char *text, const char *want, const char *what)
{
	struct gp_err err = {{0}};
	struct gp_profile *p = gp_capture_load_buf(text, strlen(text),
	    "bad.json", NULL, &err);
	int line = 0, col = 0, at = 0;
	bool placed;

	placed = sscanf(err.msg, "bad.json:%d:%d: %n", &line, &col, &at) == 2 &&
	    at > 0 && line > 0 && col > 0;
	if (text[0] == '\0')
		placed = strncmp(err.msg, "bad.json: ", 10) == 0;
	if (!ok(p == NULL && placed && strstr(err.msg, want) != NULL,
	    "%s: refused", what))
		diag("  got: %s", p != NULL ? "(loaded)" : err.msg);
	gp_profile_free(p);
}

/*
 * A corruption of a good capture: the member at path at (".key" and "[i]"
 * steps from the top: "functions[0].applies[2].calls") set to the JSON
 * text json (NULL: removed; an index one past an array's end: appended),
 * or, where it must read the capture first, done by fn; want is (a part
 * of) the message the load must refuse it with, what the case.
 */
struct corrupt {
	const char	*at, *json;
	void		(*fn)(json_t *);
	const char	*want, *what;
};

/* Set (json NULL: remove) the member at path at of j. */
static void
set_at(json_t *j, const char *at, const char *json)
{
	json_t *v = json != NULL ? json_loads(json, JSON_DECODE_ANY, NULL) :
	    NULL;

	while (j != NULL && *at != '\0') {
		char key[64];
		size_t n = 0, i = 0;
		bool index = *at == '[';

		if (index) {
			char *e;

			i = strtoul(at + 1, &e, 10);
			at = e + 1;	/* past ']' */
		} else {
			at += *at == '.';
			while (*at != '\0' && *at != '.' && *at != '[' &&
			    n + 1 < sizeof(key))
				key[n++] = *at++;
			key[n] = '\0';
		}
		if (*at != '\0') {	/* a step on the way */
			j = index ? json_array_get(j, i) : json_object_get(j,
			    key);
			continue;
		}
		if (v == NULL && index)
			json_array_remove(j, i);
		else if (v == NULL)
			json_object_del(j, key);
		else if (index && i == json_array_size(j))
			json_array_append(j, v);
		else if (index)
			json_array_set(j, i, v);
		else
			json_object_set(j, key, v);
		break;
	}
	json_decref(v);
}

/* The good capture corrupted by c, pretty-printed. */
static char *
corrupted(const char *good, const struct corrupt *c)
{
	json_t *j = json_loads(good, 0, NULL);
	char *s;

	if (c->fn != NULL)
		c->fn(j);
	else
		set_at(j, c->at, c->json);
	s = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(j);
	return (s);
}

/* Each corruption of good in c[0..n) refused with its message. */
static void
refuse_all(const char *good, const struct corrupt *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *s = corrupted(good, &c[i]);

		bad(s, c[i].want, c[i].what);
		free(s);
	}
}

/*
 * The calls drawn along time.  Function f of rich_profile has 4 applies:
 * the last call starts them at 0, 1000, 3100 and 8000 ns for 990, 2000,
 * 4800 and 2990 ns, the median at 0, 10, 20, 30 for 5 ns each.
 */
static void
set_call(struct gp_prof_call *c, uint64_t seq, const uint64_t *start,
    const uint64_t *ns, uint64_t span)
{
	gp_prof_call_fit(c, 4);
	c->seq = seq;
	c->call_ns = span + 1000;
	c->span_ns = span;
	memcpy(c->start, start, sizeof(uint64_t) * 4);
	memcpy(c->ns, ns, sizeof(uint64_t) * 4);
}

static struct gp_profile *
drawn_profile(void)
{
	struct gp_profile *p = rich_profile(42);

	set_call(&p->fn[0].drawn[GP_PROF_LAST], 7,
	    (const uint64_t[]){0, 1000, 3100, 8000},
	    (const uint64_t[]){990, 2000, 4800, 2990}, 11000);
	set_call(&p->fn[0].drawn[GP_PROF_MEDIAN], 5,
	    (const uint64_t[]){0, 10, 20, 30}, (const uint64_t[]){5, 5, 5, 5},
	    40);
	return (p);
}

static bool
call_equal(const struct gp_prof_call *a, const struct gp_prof_call *b)
{
	if (a->seq != b->seq || a->call_ns != b->call_ns ||
	    a->span_ns != b->span_ns || a->n_apply != b->n_apply)
		return (false);
	for (int i = 0; i < a->n_apply; i++)
		if (a->start[i] != b->start[i] || a->ns[i] != b->ns[i])
			return (false);
	return (true);
}

static void
test_timeline(void)
{
	struct gp_profile *p = drawn_profile(), *q, *r, *m;
	struct gp_profile *two[2];
	struct gp_err err;
	char *path = tmp_path("timeline.json"), *text, *s;
	size_t len;
	json_t *j, *tl;

	ok(gp_capture_save(p, path, &err) == 0, "timeline: save (%s)",
	    err.msg);
	text = slurp(path, &len);
	j = json_loads(text, 0, NULL);
	tl = json_object_get(json_array_get(json_object_get(j, "functions"),
	    0), "timeline");
	/* the columns by hand: 0, +1000, +2100, +4900; 990, +1010, +2800,
	 * -1810; a run of three +10: 10*3; four 5s: 5 then 0*3 */
	ok(tl != NULL && strcmp(json_string_value(json_object_get(
	    json_object_get(tl, "last"), "start")), "0 1000 2100 4900") == 0 &&
	    strcmp(json_string_value(json_object_get(json_object_get(tl,
	    "last"), "ns")), "990 1010 2800 -1810") == 0 &&
	    strcmp(json_string_value(json_object_get(json_object_get(tl,
	    "median"), "start")), "0 10*3") == 0 &&
	    strcmp(json_string_value(json_object_get(json_object_get(tl,
	    "median"), "ns")), "5 0*3") == 0,
	    "timeline: the starts and times written as delta columns");
	ok(json_integer_value(json_object_get(json_object_get(tl, "last"),
	    "seq")) == 7 && json_integer_value(json_object_get(
	    json_object_get(tl, "last"), "span_ns")) == 11000 &&
	    json_integer_value(json_object_get(json_object_get(tl, "last"),
	    "call_ns")) == 12000, "timeline: seq, span_ns, call_ns written");
	ok(json_object_get(json_array_get(json_object_get(j, "functions"), 1),
	    "timeline") == NULL, "timeline: left out for a function without "
	    "calls drawn");
	q = gp_capture_load(path, NULL, &err);
	ok(q != NULL && call_equal(&q->fn[0].drawn[GP_PROF_LAST],
	    &p->fn[0].drawn[GP_PROF_LAST]) && call_equal(
	    &q->fn[0].drawn[GP_PROF_MEDIAN], &p->fn[0].drawn[GP_PROF_MEDIAN]),
	    "timeline: both calls read back equal (%s)", q ? "" : err.msg);
	ok(q != NULL && q->fn[1].drawn[GP_PROF_LAST].seq == 0 &&
	    q->fn[1].drawn[GP_PROF_MEDIAN].seq == 0,
	    "timeline: none read for a function without the member");

	/* an older capture has none */
	s = gp_xasprintf("%s/tests/capture/v2.capture.json",
	    getenv("top_srcdir") ? getenv("top_srcdir") : ".");
	r = gp_capture_load(s, NULL, &err);
	ok(r != NULL && r->n_fn > 0 && r->fn[0].drawn[GP_PROF_LAST].seq == 0,
	    "timeline: a gptop-capture/2 capture loads without one (%s)",
	    r ? "" : err.msg);
	gp_profile_free(r);
	free(s);

	/* merge: the latest capture's calls; one without keeps the
	 * earlier's */
	r = rich_profile(42);
	two[0] = p;
	two[1] = r;
	m = gp_capture_merge(two, NULL, NULL, 2, NULL, &err);
	ok(m != NULL && call_equal(&m->fn[0].drawn[GP_PROF_LAST],
	    &p->fn[0].drawn[GP_PROF_LAST]), "timeline: merge with a later "
	    "capture without calls keeps the earlier's");
	gp_profile_free(m);
	two[0] = r;
	two[1] = p;
	m = gp_capture_merge(two, NULL, NULL, 2, NULL, &err);
	ok(m != NULL && call_equal(&m->fn[0].drawn[GP_PROF_MEDIAN],
	    &p->fn[0].drawn[GP_PROF_MEDIAN]), "timeline: merge takes the "
	    "latest capture's calls");
	gp_profile_free(m);
	gp_profile_free(r);

	{
		/* the timeline of function 0 */
#define TL "functions[0].timeline"
		static const struct corrupt bads[] = {
			{TL ".last.start", "\"0 1000 2100\"", NULL,
			    TL ".last.start: 3 entries, expected 4 (one per "
			    "apply)", "timeline: a column too short"},
			{TL ".median.ns", "\"5 0 36 -36\"", NULL,
			    TL ".median.ns[2]: beyond the call's span (40 ns)",
			    "timeline: a time beyond the span"},
			{TL ".last.seq", "0", NULL, TL ".last.seq: expected a "
			    "timed call's number (from 1), got 0",
			    "timeline: call number 0"},
			{TL ".last.ns", "[1, 2, 3, 4]", NULL, TL ".last.ns: "
			    "expected a column (a string of numbers), got an "
			    "array", "timeline: an array for a column"},
			{TL ".median.start", "\"0 10*4\"", NULL,
			    TL ".median.start[1]: a run of 4 entries goes past "
			    "the end (4 entries",
			    "timeline: a run past the end"},
			{TL ".last.start", "\"0 1000 -2000 0\"", NULL,
			    TL ".last.start[2]: expected a non-negative "
			    "integer, got -1000", "timeline: a negative start"},
			/* 2^64 + 1: wraps to 1 in 64 bits unless the reader
			 * stops it */
			{TL ".last.ns", "\"18446744073709551617 1 1 1\"",
			    NULL, TL ".last.ns[0]: expected a difference D or "
			    "a run of N differences D*N (integers)",
			    "timeline: a number past 64 bits"},
			{TL ".last.ns", "\"1 2 x 3\"", NULL, TL ".last.ns[2]: "
			    "expected a difference D",
			    "timeline: a word in a column"},
			{TL, "1", NULL, TL ": expected an object",
			    "timeline: not an object"},
			{TL ".median.span_ns", NULL, NULL, TL ".median: "
			    "missing \"span_ns\"", "timeline: span_ns missing"},
		};
#undef TL

		refuse_all(text, bads, sizeof(bads) / sizeof(bads[0]));
	}
	json_decref(j);
	free(text);
	gp_profile_free(q);
	gp_profile_free(p);
	free(path);
}

static json_t *
apply_at(json_t *j, int f, int i)
{
	return (json_array_get(json_object_get(json_array_get(
	    json_object_get(j, "functions"), (size_t)f), "applies"),
	    (size_t)i));
}

static void
e_hist(json_t *j)
{
	json_t *a = apply_at(j, 0, 0);
	char *h = gp_xasprintf("%d: %lld", gp_prof_bin((uint64_t)
	    json_integer_value(json_object_get(a, "min"))),
	    (long long)json_integer_value(json_object_get(a, "calls")) + 1);

	json_object_set_new(a, "histogram", json_string(h));
	free(h);
}

static void
e_unknown_key(json_t *j)
{
	/* a later 1.x writer's extra member: ignored */
	json_object_set_new(j, "future", json_pack("{s:i}", "x", 1));
	json_object_set_new(apply_at(j, 0, 0), "future", json_true());
}

static void
test_bad(void)
{
	struct gp_profile *p = rich_profile(1);
	struct gp_err err;
	char *path = tmp_path("good.json");
	size_t len = 0;
	char *good, *s;
	/* function f's apply a */
#define AP(f, a) "functions[" #f "].applies[" #a "]"
	static const struct corrupt cases[] = {
		{AP(0, 2) ".calls", "\"7\"", NULL, AP(0, 2) ".calls: "
		    "expected a non-negative integer, got a string",
		    "wrong type deep"},
		{AP(0, 1) ".total", NULL, NULL, AP(0, 1) ": missing "
		    "\"total\"", "missing field"},
		{AP(1, 0) ".min", "-3", NULL, AP(1, 0) ".min: expected a "
		    "non-negative integer, got -3", "negative count"},
		{"functions[0].n_applies", "5", NULL, "functions[0].applies: 4 "
		    "applies, but n_applies says 5", "apply count mismatch"},
		{"format", "\"gptop-capture/6\"", NULL, "format: written by "
		    "a newer gptop (format \"gptop-capture/6\"",
		    "newer version"},
		{"format", "\"gptop-graph/1\"", NULL, "format: "
		    "\"gptop-graph/1\" is not a gptop capture",
		    "wrong format key"},
		{"format", NULL, NULL, "not a gptop capture: no \"format\" "
		    "member", "no format key"},
		{AP(0, 1) ".inputs[0][2]", "5", NULL, AP(0, 1) ".inputs[0][2]: "
		    "the producer: expected an earlier apply (-1 to 0)",
		    "producer after its consumer"},
		{NULL, NULL, e_hist, AP(0, 0) ": the histogram holds 8 samples "
		    "but calls is 7", "histogram and calls disagree"},
		{AP(0, 0) ".histogram", "\"1920: 7\"", NULL, AP(0, 0)
		    ".histogram: expected \"BIN: COUNT ...\" with a bin from "
		    "0 to 1919", "histogram bin out of range"},
		{AP(0, 0) ".histogram", "\"3: 7\"", NULL, AP(0, 0)
		    ".histogram: bin 3 holds times outside min and max",
		    "histogram bin outside [min, max]"},
		{AP(0, 0) ".histogram", "\"3: 0*2 x\"", NULL, AP(0, 0)
		    ".histogram: at bin 5: expected \" COUNT\" (0 to "
		    "4294967295) or \" 0*RUN\"", "histogram syntax"},
		{AP(0, 0) ".histogram", "\"1910: 0*20\"", NULL, AP(0, 0)
		    ".histogram: bins past the last (1919)",
		    "histogram past the last bin"},
		{AP(0, 0) ".histogram", "[[3, 7]]", NULL, AP(0, 0)
		    ".histogram: expected a string, got an array",
		    "histogram of format 1's form"},
		{"types[1].dtype", "\"float128\"", NULL, "types[1].dtype: "
		    "expected a dtype", "unknown dtype"},
		{"ops[2].impl", "\"GPU\"", NULL, "ops[2].impl: expected an "
		    "implementation (C, BLAS", "unknown implementation"},
		{AP(0, 3) ".op", "99", NULL, AP(0, 3) ".op: 99 is out of range "
		    "(0 to", "op index out of the table"},
		{AP(1, 1) ".outputs[0][1]", "-1", NULL, AP(1, 1)
		    ".outputs[0][1]: the type: expected an index into types",
		    "type index out of the table"},
		{AP(0, 0) ".outputs[0][2]", "\"borrowed\"", NULL, AP(0, 0)
		    ".outputs[0][2]: the alias: expected \"created\", "
		    "\"view\" or \"inplace\"", "unknown alias"},
		{AP(0, 1) ".inputs[0]", "{\"var\": \"t0\"}", NULL, AP(0, 1)
		    ".inputs[0]: expected an input [var, type, producer], got "
		    "an object", "input not a tuple"},
		{"graph.hash", "\"xyz\"", NULL, "graph.hash: expected 16 "
		    "hexadecimal digits", "bad graph hash"},
		{AP(0, 2) ".id", "3", NULL, AP(0, 2) ".id: apply 3 is at "
		    "position 2", "apply out of order"},
		{"types[0].strides", "[8, 8, 8]", NULL, "types[0].strides: 3 "
		    "dimensions, but the shape has", "strides of another rank"},
		{AP(0, 0) ".min", "1099511627776", NULL, AP(0, 0) ".min: min "
		    "1099511627776 is larger than max", "min above max"},
		{"functions[0].calls_seen", "1", NULL,
		    "functions[0].calls_seen: 1 calls seen, fewer than the 7 "
		    "counted",
		    "calls seen below calls counted"},
	};
#undef AP

	ok(gp_capture_save(p, path, &err) == 0, "save the good capture");
	good = slurp(path, &len);
	refuse_all(good, cases, sizeof(cases) / sizeof(cases[0]));
	/* the line and column point at the bad value (the first case's) */
	s = corrupted(good, &cases[0]);
	{
		struct gp_profile *q = gp_capture_load_buf(s, strlen(s),
		    "bad.json", NULL, &err);
		const char *at = strstr(s, "\"calls\": \"7\"");
		int line = 1, col = 1;

		for (const char *c = s; c < at; c++) {
			if (*c == '\n') {
				line++;
				col = 1;
			} else
				col++;
		}
		col += (int)strlen("\"calls\": ");
		{
			char want[64];

			snprintf(want, sizeof(want), "bad.json:%d:%d: ", line,
			    col);
			ok(q == NULL && strncmp(err.msg, want,
			    strlen(want)) == 0, "the message points at the "
			    "value: %s", want);
		}
		gp_profile_free(q);
	}
	free(s);
	s = corrupted(good, &(const struct corrupt){.fn = e_unknown_key});
	{
		struct gp_profile *q = gp_capture_load_buf(s, strlen(s),
		    "future.json", NULL, &err);

		ok(q != NULL, "unknown members (a later 1.x writer's) are "
		    "ignored");
		gp_profile_free(q);
	}
	free(s);
	bad("", "empty file", "empty file");
	bad("not json at all", "expected near 'not'", "not JSON");
	/* an array is read as ONNX Runtime's profile (ort.c), which says
	 * what it is not */
	bad("[1, 2]", "[0]: not an ONNX Runtime profile", "an array: not an "
	    "object, nor an ONNX Runtime profile");
	bad("{\"format\": \"gptop-capture/1\", \"format\": 1}",
	    "duplicate object key", "duplicate key");
	bad("{\"format\": \"gptop-capture/1\"}", "missing \"graph\"",
	    "nothing but the format");
	{
		/* every truncation of the capture is refused, none crashes */
		char *cut = gp_xmalloc(len + 1);
		size_t step = len / 400 + 1, n = 0, refused = 0, said = 0;

		for (size_t k = 0; k < len - 1; k += step) {
			struct gp_profile *q;

			memcpy(cut, good, k);
			cut[k] = '\0';
			q = gp_capture_load_buf(cut, k, "cut.json", NULL, &err);
			n++;
			if (q == NULL)
				refused++;
			if (q == NULL && k > 0 && strstr(err.msg,
			    "truncated") != NULL)
				said++;
			else if (k > 0)
				diag("cut at %zu: %s", k, q == NULL ? err.msg :
				    "loaded");
			gp_profile_free(q);
		}
		is_int((long long)refused, (long long)n, "all %zu truncations "
		    "refused", n);
		is_int((long long)said, (long long)n - 1, "and each says the "
		    "file ends early");
		free(cut);
	}
	free(good);
	free(path);
	gp_profile_free(p);
}

/*
 * The memory profile in captures.
 */

/* m and n field by field (names by their strings); false with the first
 * difference in why. */
static bool
memprof_equal(const struct gp_memprof *a, const struct gp_memprof *b,
    char *why, size_t n)
{
	if (a == NULL || b == NULL)
		return (a == b ? true : fx_fail(why, n, "one has no memory "
		    "profile"));
	if (a->fn != b->fn || a->n_fn != b->n_fn || a->n_apply != b->n_apply ||
	    a->allow_gc != b->allow_gc || a->external != b->external ||
	    strcmp(gp_memprof_str(a, a->fn_name), gp_memprof_str(b,
	    b->fn_name)) != 0)
		return (fx_fail(why, n, "identity"));
	if (a->val_input != b->val_input || a->val_shared != b->val_shared ||
	    a->val_const != b->val_const || a->val_used != b->val_used ||
	    memcmp(a->inter, b->inter, sizeof(a->inter)) != 0 ||
	    a->sum_out != b->sum_out || a->sum_view != b->sum_view ||
	    a->sum_inplace != b->sum_inplace)
		return (fx_fail(why, n, "totals"));
	for (int i = 0; i < a->n_apply; i++) {
		const struct gp_mem_apply *x = &a->ap[i], *y = &b->ap[i];

		if (x->out_bytes != y->out_bytes || x->alloc_bytes !=
		    y->alloc_bytes || x->first_out != y->first_out ||
		    x->n_out != y->n_out || x->inter_after != y->inter_after ||
		    x->inter_during != y->inter_during)
			return (fx_fail(why, n, "apply %d", i));
	}
	if (a->n_outs != b->n_outs)
		return (fx_fail(why, n, "output count"));
	for (uint32_t i = 0; i < a->n_outs; i++) {
		const struct gp_mem_out *x = &a->outs[i], *y = &b->outs[i];

		if (x->bytes != y->bytes || x->ndim != y->ndim ||
		    x->dtype != y->dtype || x->alias != y->alias ||
		    x->src != y->src || strcmp(gp_memprof_str(a, x->var),
		    gp_memprof_str(b, y->var)) != 0)
			return (fx_fail(why, n, "output %u", i));
		for (int d = 0; d < x->ndim; d++)
			if (x->shape[d] != y->shape[d])
				return (fx_fail(why, n, "output %u shape", i));
	}
	for (int k = 0; k < 2; k++) {
		const struct gp_mem_sim *x = &a->sim[k], *y = &b->sim[k];

		if (x->peak != y->peak || x->peak_first != y->peak_first ||
		    x->peak_steady != y->peak_steady || x->base_first !=
		    y->base_first || x->base_steady != y->base_steady ||
		    x->values != y->values || x->held != y->held ||
		    x->fresh_peak != y->fresh_peak || x->peak_call !=
		    y->peak_call || x->peak_step != y->peak_step ||
		    x->peak_fresh != y->peak_fresh || x->n_bufs != y->n_bufs)
			return (fx_fail(why, n, "sim %d figures", k));
		for (int i = 0; i < a->n_apply; i++)
			if (x->after[i].live != y->after[i].live ||
			    x->after[i].fresh != y->after[i].fresh ||
			    x->during[i].live != y->during[i].live ||
			    x->during[i].fresh != y->during[i].fresh)
				return (fx_fail(why, n, "sim %d timeline %d",
				    k, i));
		for (int i = 0; i < x->n_bufs; i++) {
			const struct gp_mem_buf *s = &x->bufs[i];
			const struct gp_mem_buf *t = &y->bufs[i];

			if (s->bytes != t->bytes || s->kind != t->kind ||
			    s->fn != t->fn || s->step != t->step ||
			    s->n_ref != t->n_ref || strcmp(gp_memprof_str(a,
			    s->var), gp_memprof_str(b, t->var)) != 0)
				return (fx_fail(why, n, "sim %d storage %d",
				    k, i));
		}
	}
	if (a->min_done != b->min_done || a->min_optimal != b->min_optimal ||
	    a->min_peak != b->min_peak || a->min_lower != b->min_lower ||
	    a->min_states != b->min_states || a->min_ms != b->min_ms)
		return (fx_fail(why, n, "minimum peak"));
	for (int i = 0; a->min_done && i < a->n_apply; i++)
		if (a->min_order[i] != b->min_order[i])
			return (fx_fail(why, n, "minimum peak order %d", i));
	return (true);
}

/* A run of graph (under data/graphs) with flags: 3 rounds, copied. */
static struct gp_profile *
run_profile(const char *graph, const char *flags)
{
	const char *top = getenv("top_srcdir");
	char *path = gp_xasprintf("%s/data/graphs/%s", top != NULL ? top :
	    "..", graph);
	struct gp_flags fl;
	struct gp_session *s;
	struct gp_profile *p = NULL;
	struct gp_err err;

	gp_flags_init(&fl);
	if (gp_flags_parse(&fl, flags, "test", &err) < 0 ||
	    (s = gp_session_open(path, &fl, &err)) == NULL) {
		diag("%s: %s", graph, err.msg);
		gp_flags_done(&fl);
		free(path);
		return (NULL);
	}
	gp_session_run(s, -1, 3);
	p = gp_profile_clone(gp_session_profile(s));
	gp_session_free(s);
	gp_flags_done(&fl);
	free(path);
	return (p);
}

/* The Memory Profile sections: every function's, then each one's. */
static char *
memory_text(const struct gp_profile *p)
{
	struct gp_report_opts ro = {.n_ops = 20, .n_apply = 1000,
	    .width = 512, .memory = true};
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	gp_memprof_report(fp, p, -1, &ro);
	for (int f = 0; f < p->n_fn; f++)
		gp_memprof_report(fp, p, f, &ro);
	fclose(fp);
	return (buf);
}

static const struct gp_capture_info fixed_info = {
	.version = 1, .created = "2025-01-01T00:00:00.000Z", .gptop = "0.1.0",
	.cpu = "Example CPU", .cores = 2, .os = "Linux", .cc = "cc",
	.cc_version = "1", .blas = "OpenBLAS"
};

static void
test_memory_roundtrip(void)
{
	static const struct {
		const char	*graph, *flags;
	} runs[] = {
		{"logreg.json", "profiling__min_peak_memory=True"},
		{"logreg.json", "allow_gc=False,optimizer_excluding=inplace"},
		{"mlp.json", "profiling__min_peak_memory=True,"
		    "optimizer_excluding=fusion"},
	};

	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		struct gp_profile *p = run_profile(runs[r].graph,
		    runs[r].flags), *q;
		char *path = tmp_path("mem.json"), *path2 = tmp_path(
		    "mem2.json");
		char *t1, *t2, *f1, *f2;
		char why[256] = "";
		struct gp_err err;
		bool same = true;
		size_t l1 = 0, l2 = 0;

		if (!ok(p != NULL && p->fn[0].mem != NULL, "%s (%s): a run "
		    "with a memory profile", runs[r].graph, runs[r].flags)) {
			gp_profile_free(p);
			free(path);
			free(path2);
			continue;
		}
		if (!ok(gp_capture_save_info(p, &fixed_info, path, &err) == 0,
		    "save it"))
			diag("%s", err.msg);
		q = gp_capture_load(path, NULL, &err);
		if (!ok(q != NULL, "load it back")) {
			diag("%s", err.msg);
			gp_profile_free(p);
			free(path);
			free(path2);
			continue;
		}
		for (int f = 0; f < p->n_fn && same; f++)
			same = memprof_equal(p->fn[f].mem, q->fn[f].mem, why,
			    sizeof(why));
		ok(same, "every field of the %d functions' memory profiles "
		    "comes back %s", p->n_fn, why);
		ok(fx_profile_equal(p, q, why, sizeof(why)), "and the rest of "
		    "the profile %s", why);
		t1 = memory_text(p);
		t2 = memory_text(q);
		ok(strstr(t1, "Memory Profile") != NULL && strstr(t1,
		    "(no memory profile") == NULL && strcmp(t1, t2) == 0,
		    "the Memory Profile sections of the capture are the run's, "
		    "byte for byte");
		if (!ok(gp_capture_save_info(q, &fixed_info, path2, &err) ==
		    0, "save the loaded capture"))
			diag("%s", err.msg);
		f1 = slurp(path, &l1);
		f2 = slurp(path2, &l2);
		ok(f1 != NULL && f2 != NULL && l1 == l2 && memcmp(f1, f2,
		    l1) == 0 && strstr(f1, "\"memory\":{") != NULL,
		    "and it is written back the same, to the byte");
		free(f1);
		free(f2);
		free(t1);
		free(t2);
		gp_profile_free(q);
		gp_profile_free(p);
		free(path);
		free(path2);
	}
}

/* The memory object of function f in a parsed capture. */
static json_t *
mem_at(json_t *j, int f)
{
	return (json_object_get(json_array_get(json_object_get(j,
	    "functions"), (size_t)f), "memory"));
}

static json_t *
sim_at(json_t *j, int k)
{
	return (json_array_get(json_object_get(mem_at(j, 0), "sim"),
	    (size_t)k));
}

static json_t *
bufs_at(json_t *j, int k)
{
	return (json_object_get(sim_at(j, k), "bufs"));
}

/* Column key of o decoded: its values (n of them), malloc'ed. */
static int64_t *
col_get(json_t *o, const char *key, size_t *n)
{
	const char *c = json_string_value(json_object_get(o, key));
	int64_t *v = gp_xmalloc(sizeof(*v) * 4096), cur = 0;
	char *end;

	*n = 0;
	while (c != NULL && *c != '\0') {
		long long d = strtoll(c, &end, 10), k = 1;

		if (*end == '*')
			k = strtoll(end + 1, &end, 10);
		while (k-- > 0 && *n < 4096)
			v[(*n)++] = cur += d;
		c = *end == ' ' ? end + 1 : end;
	}
	return (v);
}

/* Write column key of o: v, n values (no runs). */
static void
col_set(json_t *o, const char *key, const int64_t *v, size_t n)
{
	struct gp_buf b = {0};

	for (size_t i = 0; i < n; i++)
		gp_buf_printf(&b, "%s%lld", i ? " " : "", (long long)(v[i] -
		    (i ? v[i - 1] : 0)));
	json_object_set_new(o, key, json_string(gp_buf_str(&b)));
	gp_buf_free(&b);
}

/* Column key of o with entry i set to x (i == n: appended; x ==
 * INT64_MIN: the last entry dropped). */
static void
col_edit(json_t *o, const char *key, size_t i, int64_t x)
{
	size_t n;
	int64_t *v = col_get(o, key, &n);

	if (x == INT64_MIN)
		n--;
	else {
		v[i] = x;
		if (i == n)
			n++;
	}
	col_set(o, key, v, n);
	free(v);
}

static void
m_short(json_t *j)
{
	col_edit(mem_at(j, 0), "inter_after", 0, INT64_MIN);
}

static void
m_long(json_t *j)
{
	col_edit(mem_at(j, 0), "inter_after", 17, 5);
}

static void
m_negative(json_t *j)
{
	col_edit(json_object_get(sim_at(j, 0), "after"), "live", 3, -5);
}

static void
m_kind(json_t *j)
{
	char *s = gp_xstrdup(json_string_value(json_object_get(bufs_at(j, 1),
	    "kind")));

	s[2] = 'z';
	json_object_set_new(bufs_at(j, 1), "kind", json_string(s));
	free(s);
}

static void
m_out(json_t *j)
{
	/* storage 0 (x, a graph input) said to be an output */
	col_edit(bufs_at(j, 0), "out", 0, 0);
}

static void
m_names(json_t *j)
{
	json_array_append_new(json_object_get(bufs_at(j, 0), "names"),
	    json_string("extra"));
}

static void
m_fn(json_t *j)
{
	col_edit(bufs_at(j, 0), "fn", 0, 2);
}

static void
m_alias(json_t *j)
{
	col_edit(mem_at(j, 0), "alias_of", 0, 0);
}

static void
m_order(json_t *j)
{
	col_edit(json_object_get(mem_at(j, 0), "min"), "order", 1, 0);
}

static void
m_second(json_t *j)
{
	/* function 1's first storage named after an output said to be
	 * named after the apply's output 1, which it does not have */
	json_t *b = json_object_get(json_array_get(json_object_get(mem_at(j,
	    1), "sim"), 0), "bufs");
	size_t n, i = 0;
	int64_t *v = col_get(b, "out", &n);

	while (i < n && v[i] < 0)
		i++;
	col_edit(b, "out", i, 1);
	free(v);
}

static void
test_memory_bad(void)
{
	struct gp_profile *p = run_profile("logreg.json",
	    "profiling__min_peak_memory=True");
	struct gp_err err;
	char *path = tmp_path("mem-good.json");
	size_t len = 0;
	char *good, *s;
	/* function 0's memory profile, its simulations */
#define MEM "functions[0].memory"
#define SIM(k) MEM ".sim[" #k "]"
	static const struct corrupt cases[] = {
		{MEM, "\"yes\"", NULL, MEM ": expected an object, got a "
		    "string", "memory not an object"},
		{MEM ".external", "\"12\"", NULL, MEM ".external: expected a "
		    "non-negative integer, got a string", "a figure of "
		    "another type"},
		{"functions[0].mem_peak_predicted", "-3", NULL,
		    "functions[0].mem_peak_predicted: expected a non-negative "
		    "integer, got -3", "the predicted peak negative"},
		{NULL, NULL, m_short, MEM ".inter_after: 16 entries, expected "
		    "17 (one per apply)", "a column too short"},
		{NULL, NULL, m_long, MEM ".inter_after: more than 17 entries "
		    "(one per apply)", "a column too long"},
		{NULL, NULL, m_negative, SIM(0) ".after.live[3]: expected a "
		    "non-negative integer, got -5", "a timeline going below "
		    "zero"},
		{SIM(1) ".during.fresh", "\"0 1*17\"", NULL, SIM(1)
		    ".during.fresh[1]: a run of 17 entries goes past the end "
		    "(17 entries, one per apply)", "a run past the end"},
		{MEM ".inter_during", "\"1 2 x\"", NULL, MEM
		    ".inter_during[2]: expected a difference D or a run of N "
		    "differences D*N", "a bad token"},
		{MEM ".inter_during", "\"9223372036854775807 1 0*15\"", NULL,
		    MEM ".inter_during[1]: the value overflows", "an overflow"},
		/* 2^64 + 1: wraps to 1 in 64 bits unless the reader stops
		 * it */
		{MEM ".inter_during", "\"18446744073709551617 0*16\"", NULL,
		    MEM ".inter_during[0]: expected a difference D",
		    "a number past 64 bits"},
		{SIM(0) ".after.live", "[1, 2]", NULL, SIM(0) ".after.live: "
		    "expected a column (a string of numbers), got an array",
		    "a column of another type"},
		{SIM(0) ".bufs.kind", "\"ii\"", NULL, SIM(0) ".bufs.kind: 2 "
		    "kinds, but n_bufs says", "kinds and n_bufs disagree"},
		{NULL, NULL, m_kind, SIM(1) ".bufs.kind[2]: expected a kind",
		    "an unknown kind"},
		{NULL, NULL, m_out, SIM(0) ".bufs.out[0]: output 0 of apply -1 "
		    "of function -1: not an output of this function's applies",
		    "a storage named after no output"},
		{NULL, NULL, m_names, SIM(0) ".bufs.names: ",
		    "names and storages disagree"},
		{SIM(1) ".bufs.names[0]", "7", NULL, SIM(1) ".bufs.names[0]: "
		    "expected a string, got an integer", "a name of another "
		    "type"},
		{NULL, NULL, m_fn, SIM(0) ".bufs.fn[0]: 2 is out of range (-1 "
		    "to 1)", "a function out of range"},
		{NULL, NULL, m_alias, MEM ".alias_of[0]: output 0 of apply 0 "
		    "is created: expected -1, got 0", "an alias the apply "
		    "does not have"},
		{SIM(0) ".peak_step", "17", NULL, SIM(0) ".peak_step: 17 is "
		    "out of range (-1 to 16)", "the peak's apply out of range"},
		{MEM ".inter[1]", NULL, NULL, MEM ".inter: expected 2 arrays",
		    "intermediates short"},
		{NULL, NULL, m_order, MEM ".min.order[1]: apply 0 comes twice",
		    "an order that is no order"},
		{SIM(1) ".held", NULL, NULL, SIM(1) ": missing \"held\" (a "
		    "non-negative integer)", "a missing figure"},
		{SIM(0) ".n_bufs", "-1", NULL, SIM(0) ".n_bufs: expected a "
		    "non-negative integer, got -1", "a negative count"},
		{SIM(0), NULL, NULL, MEM ".sim: expected 2 objects (GC on, GC "
		    "off), got 1", "one simulation"},
		{NULL, NULL, m_second, "functions[1].memory.sim[0].bufs.out[",
		    "the second function's"},
	};
	static const struct corrupt null = {MEM, "null", NULL, NULL, NULL};
#undef SIM
#undef MEM

	if (!ok(p != NULL && p->n_fn == 2, "a two-function run to corrupt")) {
		gp_profile_free(p);
		free(path);
		return;
	}
	ok(gp_capture_save(p, path, &err) == 0, "save the good capture");
	good = slurp(path, &len);
	refuse_all(good, cases, sizeof(cases) / sizeof(cases[0]));
	/* the line and column of a bad figure in the memory object (the
	 * second case's) */
	s = corrupted(good, &cases[1]);
	{
		struct gp_profile *q = gp_capture_load_buf(s, strlen(s),
		    "bad.json", NULL, &err);
		const char *at = strstr(s, "\"external\": \"12\"");
		int line = 1, col = 1 + (int)strlen("\"external\": ");
		char want[64];

		for (const char *c = s; at != NULL && c < at; c++) {
			if (*c == '\n') {
				line++;
				col = 1 + (int)strlen("\"external\": ");
			} else
				col++;
		}
		snprintf(want, sizeof(want), "bad.json:%d:%d: ", line, col);
		ok(q == NULL && strncmp(err.msg, want, strlen(want)) == 0,
		    "a memory error points at the value: %s", want);
		gp_profile_free(q);
	}
	free(s);
	s = corrupted(good, &null);
	{
		struct gp_profile *q = gp_capture_load_buf(s, strlen(s),
		    "null.json", NULL, &err);

		ok(q != NULL && q->fn[0].mem == NULL && q->fn[1].mem != NULL,
		    "\"memory\": null is no memory profile");
		gp_profile_free(q);
	}
	free(s);
	free(good);
	free(path);
	gp_profile_free(p);
}

/* Random edits of the memory objects: each capture is refused with one
 * line naming a path under memory, or loads, reports and saves. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (*s);
}

struct node {
	json_t		*parent;
	const char	*key;
	size_t		 index;
	json_t		*v;
};

static void
collect(json_t *v, json_t *parent, const char *key, size_t index,
    struct node **nodes, size_t *n, size_t *cap)
{
	const char *k;
	json_t *e;
	size_t i;

	gp_grow(nodes, cap, *n + 1, sizeof(**nodes));
	(*nodes)[(*n)++] = (struct node){parent, key, index, v};
	if (json_is_object(v))
		json_object_foreach(v, k, e)
			collect(e, v, k, 0, nodes, n, cap);
	else if (json_is_array(v))
		json_array_foreach(v, i, e)
			collect(e, v, NULL, i, nodes, n, cap);
}

static json_t *
random_value(uint64_t *s, const char *old)
{
	static const char *const tokens[] = {"-1", "0", "1", "7", "8",
	    "100000", "9223372036854775807", "-9223372036854775807",
	    "0*5", "1*3", "-1*2", "1*1000000000", "x", "3*0", "--1", "1*",
	    "*3", "2147483647", "-2147483648", "16", "0*1"};
	const size_t nt = sizeof(tokens) / sizeof(tokens[0]);

	switch (rnd(s) % 8) {
	case 0:
		return (json_integer((json_int_t)(rnd(s) % 40) - 2));
	case 1:
		return (json_integer(rnd(s) % 2 ? INT64_MAX : INT64_MIN));
	case 2:
		return (json_real(1.5));
	case 3:
		return (rnd(s) % 2 ? json_null() : json_true());
	case 4:
		return (rnd(s) % 2 ? json_array() : json_object());
	default: {
		/* a column with one token changed, cut or lengthened */
		struct gp_buf b = {0};
		size_t n = 0, at;
		const char *c = old != NULL ? old : "";
		json_t *j;

		for (const char *p = c; *p != '\0'; p++)
			if (*p != ' ' && (p == c || p[-1] == ' '))
				n++;
		at = n > 0 ? rnd(s) % (n + 1) : 0;
		n = 0;
		for (const char *p = c; *p != '\0'; p++) {
			if (*p != ' ' && (p == c || p[-1] == ' ') && n++ ==
			    at) {
				gp_buf_puts(&b, tokens[rnd(s) % nt]);
				while (p[1] != '\0' && p[1] != ' ')
					p++;
				continue;
			}
			gp_buf_printf(&b, "%c", *p);
		}
		if (at >= n)
			gp_buf_printf(&b, " %s", tokens[rnd(s) % nt]);
		j = json_string(gp_buf_str(&b));
		gp_buf_free(&b);
		return (j);
	}
	}
}

static void
test_memory_fuzz(void)
{
	struct gp_profile *p = run_profile("logreg.json",
	    "profiling__min_peak_memory=True");
	struct gp_report_opts ro = {.n_ops = 5, .n_apply = 50, .width = 100,
	    .memory = true};
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int loaded = 0, refused = 0, badmsg = 0, iters = 1500;
	char *path = tmp_path("fuzz.json");
	struct gp_err err;
	size_t len = 0;
	char *good;
	json_t *top;

	if (!ok(p != NULL, "a run to fuzz")) {
		free(path);
		return;
	}
	ok(gp_capture_save(p, path, &err) == 0, "save it");
	good = slurp(path, &len);
	top = json_loads(good, 0, NULL);
	for (int it = 0; it < iters; it++) {
		json_t *j = json_deep_copy(top);
		struct node *nodes = NULL;
		size_t n = 0, cap = 0;
		struct gp_profile *q;
		char *s;

		for (int f = 0; f < 2; f++)
			collect(mem_at(j, f), NULL, NULL, 0, &nodes, &n, &cap);
		for (int e = 0; e < 1 + (int)(rnd(&seed) % 3); e++) {
			struct node *x = &nodes[1 + rnd(&seed) % (n - 1)];
			json_t *v;

			if (x->parent == NULL)
				continue;
			v = random_value(&seed, json_string_value(x->v));
			if (json_is_object(x->parent) && rnd(&seed) % 10 == 0)
				json_object_del(x->parent, x->key);
			else if (json_is_object(x->parent))
				json_object_set(x->parent, x->key, v);
			else
				json_array_set(x->parent, x->index, v);
			json_decref(v);
			/* the tree changed: find the nodes again */
			n = 0;
			for (int f = 0; f < 2; f++)
				collect(mem_at(j, f), NULL, NULL, 0, &nodes,
				    &n, &cap);
			if (n < 2)
				break;
		}
		s = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		q = gp_capture_load_buf(s, strlen(s), "fuzz.json", NULL, &err);
		if (q == NULL) {
			refused++;
			if (strncmp(err.msg, "fuzz.json:", 10) != 0 ||
			    strchr(err.msg, '\n') != NULL ||
			    strstr(err.msg, "functions[") == NULL ||
			    strstr(err.msg, "].memory") == NULL) {
				if (badmsg++ == 0)
					diag("message: %s", err.msg);
			}
		} else {
			FILE *fp = fopen("/dev/null", "w");

			loaded++;
			gp_report_all(fp, q, &ro);
			gp_memprof_report(fp, q, -1, &ro);
			fclose(fp);
			for (int f = 0; f < q->n_fn; f++)
				json_decref(gp_memprof_to_json(q->fn[f].mem,
				    &q->fn[f]));
		}
		gp_profile_free(q);
		free(s);
		free(nodes);
		json_decref(j);
	}
	ok(refused > iters / 2 && badmsg == 0, "%d random corruptions of the "
	    "memory objects: %d refused, each with one line naming its "
	    "path; %d still valid, reported and written", iters, refused,
	    loaded);
	json_decref(top);
	free(good);
	free(path);
	gp_profile_free(p);
}

static void
test_memory_merge(void)
{
	struct gp_profile *a = run_profile("logreg.json", ""), *b, *m;
	struct gp_profile *q = NULL;
	struct gp_profile *ps[2];
	struct gp_capture_info info[2] = {{0}};
	const char *paths[2] = {"a.json", "b.json"};
	char *path = tmp_path("merged.json");
	char why[256] = "";
	struct gp_err err;

	if (!ok(a != NULL, "a run to merge")) {
		free(path);
		return;
	}
	b = gp_profile_clone(a);
	/* the earliest, a, lost function 0's prediction (an older capture) */
	gp_memprof_free(a->fn[0].mem);
	a->fn[0].mem = NULL;
	b->fn[0].mem_peak_measured = a->fn[0].mem_peak_measured + 4096;
	info[0].created = gp_xstrdup("2024-05-01T00:00:00.000Z");
	info[1].created = gp_xstrdup("2024-05-02T00:00:00.000Z");
	ps[0] = a;
	ps[1] = b;
	m = gp_capture_merge(ps, info, paths, 2, NULL, &err);
	ok(m != NULL && memprof_equal(m->fn[0].mem, b->fn[0].mem, why,
	    sizeof(why)) && memprof_equal(m->fn[1].mem, a->fn[1].mem, why,
	    sizeof(why)), "merge keeps each function's memory profile: the "
	    "earliest capture's, else the first that has one %s", why);
	ok(m != NULL && m->fn[0].mem_peak_measured ==
	    b->fn[0].mem_peak_measured, "and the largest measured peak");
	ok(m != NULL && gp_capture_save(m, path, &err) == 0 &&
	    (q = gp_capture_load(path, NULL, &err)) != NULL,
	    "the merged capture saves and loads");
	if (m != NULL && q != NULL) {
		ok(memprof_equal(m->fn[0].mem, q->fn[0].mem, why,
		    sizeof(why)) && memprof_equal(m->fn[1].mem, q->fn[1].mem,
		    why, sizeof(why)), "with its memory profiles %s", why);
		gp_profile_free(q);
	}
	gp_profile_free(m);
	gp_capture_info_done(&info[0]);
	gp_capture_info_done(&info[1]);
	gp_profile_free(a);
	gp_profile_free(b);
	free(path);
}

/* A memory profile that does not describe its function's applies is left
 * out of the capture (the capture stays valid). */
static void
test_memory_mismatch(void)
{
	struct gp_profile *p = run_profile("logreg.json", ""), *q = NULL;
	char *path = tmp_path("mismatch.json");
	struct gp_err err;

	if (!ok(p != NULL, "a run")) {
		free(path);
		return;
	}
	free(p->fn[0].ap[1].out[0].var);
	p->fn[0].ap[1].out[0].var = gp_xstrdup("renamed");
	ok(gp_memprof_to_json(p->fn[0].mem, &p->fn[0]) == NULL,
	    "gp_memprof_to_json refuses a profile of other applies");
	ok(gp_capture_save(p, path, &err) == 0 && (q = gp_capture_load(path,
	    NULL, &err)) != NULL && q->fn[0].mem == NULL &&
	    q->fn[1].mem != NULL, "the capture leaves that one out and keeps "
	    "the other");
	gp_profile_free(q);
	gp_profile_free(p);
	free(path);
}

static void
test_detect(void)
{
	static const struct {
		const char	*text;
		int		 want;
	} cases[] = {
		{"{\"format\": \"gptop-capture/1\"}", 1},
		{"{\"format\": \"gptop-capture/9\", \"x\": 1}", 1},
		{"{\"format\": \"gptop-capture\"}", 1},
		{"{\"format\": \"gptop-graph/1\", \"doc\": \"\\\"format\\\": "
		    "\\\"gptop-capture/1\\\"\"}", 0},
		{"{\"doc\": {\"format\": \"gptop-capture/1\"}, \"format\": "
		    "\"gptop-graph/1\"}", 0},
		{"{\"name\": \"x\", \"nodes\": [1, {\"a\": \"]\"}], "
		    "\"format\" : \"gptop-capture/1\"}", 1},
		{"not json", 0},
		{"", 0},
	};
	char *path = tmp_path("detect.json");
	struct gp_err err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *fp = fopen(path, "w");

		fputs(cases[i].text, fp);
		fclose(fp);
		is_int(gp_capture_detect(path, &err), cases[i].want,
		    "detect: %s", cases[i].text);
	}
	unlink(path);
	is_int(gp_capture_detect(path, &err), -1, "detect: a missing file is "
	    "an error");
	free(path);
}

static int
count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return (-1);
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return (n);
}

static void
test_atomic(void)
{
	struct gp_profile *p = rich_profile(3), *q;
	char *dir = tmp_path("atomic"), *path, *bad_path;
	struct gp_err err;
	struct stat st;
	FILE *fp;

	mkdir(dir, 0700);
	path = gp_xasprintf("%s/out.json", dir);
	fp = fopen(path, "w");
	fputs("old contents", fp);
	fclose(fp);
	ok(gp_capture_save(p, path, &err) == 0, "save over an existing file");
	q = gp_capture_load(path, NULL, &err);
	ok(q != NULL, "the new capture replaced it");
	gp_profile_free(q);
	is_int(count_entries(dir), 1, "no temporary file left behind");
	ok(stat(path, &st) == 0 && (st.st_mode & 0444) != 0,
	    "the capture is readable (not mkstemp's 0600 only)");
	bad_path = gp_xasprintf("%s/no/such/dir/out.json", dir);
	ok(gp_capture_save(p, bad_path, &err) < 0 && strstr(err.msg,
	    bad_path) != NULL, "an unwritable path is an error naming it: %s",
	    err.msg);
	is_int(count_entries(dir), 1, "and leaves nothing");
	unlink(path);
	rmdir(dir);
	free(bad_path);
	free(path);
	free(dir);
	gp_profile_free(p);
}

static void
test_merge(void)
{
	static const char *const ops[] = {"mul", "add", "tanh"};
	static const double ns[] = {1000, 2000, 5000};
	struct gp_profile *a = fx_profile("m", 9, "fusion");
	struct gp_profile *b = fx_profile("m", 9, "fusion");
	struct gp_profile *ps[2], *m, *other;
	struct gp_capture_info info[2] = {{0}}, out;
	const char *paths[2] = {"late.json", "early.json"};
	uint64_t s1 = 11, s2 = 12;
	struct gp_err err;
	bool sums = true;

	fx_chain(a, "f", 3, ops, ns, 5, 0.3, &s1);
	fx_chain(b, "f", 3, ops, ns, 5, 0.3, &s2);
	info[0].created = gp_xstrdup("2024-05-02T00:00:00.000Z");
	info[1].created = gp_xstrdup("2024-05-01T00:00:00.000Z");
	info[1].cpu = gp_xstrdup("early cpu");
	/* strides: the earliest (b) does not know apply 0's input and
	 * output strides, the later (a) does (16, set here); apply 1's both
	 * know, a's say 24: the merge takes a's for apply 0 only */
	b->fn[0].ap[0].in[0].strides_known = false;
	b->fn[0].ap[0].out[0].strides_known = false;
	a->fn[0].ap[0].in[0].strides[0] = 16;
	a->fn[0].ap[0].out[0].strides[0] = 16;
	a->fn[0].ap[1].in[0].strides[0] = 24;
	ps[0] = a;
	ps[1] = b;
	m = gp_capture_merge(ps, info, paths, 2, &out, &err);
	if (!ok(m != NULL, "merge two halves"))
		diag("%s", err.msg);
	for (int i = 0; m != NULL && i < 3; i++) {
		const struct gp_prof_apply *x = &a->fn[0].ap[i];
		const struct gp_prof_apply *y = &b->fn[0].ap[i];
		const struct gp_prof_apply *z = &m->fn[0].ap[i];

		sums &= z->st.n == x->st.n + y->st.n;
		sums &= z->st.total == x->st.total + y->st.total;
		sums &= z->st.min == (x->st.min < y->st.min ? x->st.min :
		    y->st.min);
		sums &= z->st.max == (x->st.max > y->st.max ? x->st.max :
		    y->st.max);
		for (int k = 0; k < GP_PROF_NBINS; k++)
			sums &= gp_prof_stat_count(&z->st, k) ==
			    gp_prof_stat_count(&x->st, k) +
			    gp_prof_stat_count(&y->st, k);
		sums &= z->first_ns == y->first_ns;
	}
	ok(m != NULL && sums, "calls, totals, min, max and histograms sum; "
	    "first times from the earliest");
	ok(m != NULL && m->fn[0].call.n == 10 && m->fn[0].calls_seen == 10 &&
	    m->fn[0].thunk_ns == a->fn[0].thunk_ns + b->fn[0].thunk_ns &&
	    m->fn[0].first_call_ns == b->fn[0].first_call_ns,
	    "function counters sum; first call from the earliest");
	ok(m != NULL && m->fn[0].recent[10 % GP_PROF_RECENT] ==
	    a->fn[0].recent[5] && m->fn[0].recent[5] == b->fn[0].recent[5],
	    "recent calls: the earliest first, then the later");
	ok(m != NULL && m->fn[0].ap[0].in[0].strides_known &&
	    m->fn[0].ap[0].in[0].strides[0] == 16 &&
	    m->fn[0].ap[0].out[0].strides_known &&
	    m->fn[0].ap[0].out[0].strides[0] == 16 &&
	    m->fn[0].ap[1].in[0].strides_known &&
	    m->fn[0].ap[1].in[0].strides[0] == 8,
	    "strides the earliest did not know come from a later capture; "
	    "known ones stay the earliest's");
	ok(m != NULL && out.n_src == 2 && strcmp(out.src[0].path,
	    "early.json") == 0 && strcmp(out.cpu, "early cpu") == 0,
	    "the merged info lists the sources, earliest first");
	gp_capture_info_done(&out);
	gp_profile_free(m);

	other = fx_profile("m", 10, "fusion");
	fx_chain(other, "f", 3, ops, ns, 5, 0.3, &s1);
	ps[1] = other;
	m = gp_capture_merge(ps, NULL, paths, 2, NULL, &err);
	ok(m == NULL && strstr(err.msg, "late.json and early.json do not "
	    "belong together: different graphs") != NULL,
	    "different graph hashes refused: %s", err.msg);
	gp_profile_free(other);
	other = fx_profile("m", 9, "inplace");
	fx_chain(other, "f", 3, ops, ns, 5, 0.3, &s1);
	ps[1] = other;
	m = gp_capture_merge(ps, NULL, paths, 2, NULL, &err);
	ok(m == NULL && strstr(err.msg, "different rewrite sets") != NULL,
	    "different rewrite sets refused: %s", err.msg);
	gp_profile_free(other);
	other = fx_profile("m", 9, "fusion");
	{
		static const char *const ops2[] = {"mul", "sub", "tanh"};

		fx_chain(other, "f", 3, ops2, ns, 5, 0.3, &s1);
	}
	ps[1] = other;
	m = gp_capture_merge(ps, NULL, paths, 2, NULL, &err);
	ok(m == NULL && strstr(err.msg, "different apply structure: "
	    "function f, apply 1") != NULL,
	    "a different apply refused: %s", err.msg);
	gp_profile_free(other);
	gp_capture_info_done(&info[0]);
	gp_capture_info_done(&info[1]);
	gp_profile_free(a);
	gp_profile_free(b);
}

static uint64_t
hash_of(const char *text)
{
	struct gp_err err;
	struct gp_graph *g = gp_graph_load_buf(text, strlen(text), "h.json",
	    ".", NULL, &err);
	uint64_t h;

	if (g == NULL) {
		diag("%s", err.msg);
		return (0);
	}
	h = gp_graph_hash(g);
	gp_graph_free(g);
	return (h);
}

static void
test_graph_hash(void)
{
	const char *base = "{\"format\": \"gptop-graph/1\", \"name\": \"h\", "
	    "\"variables\": {\"x\": {\"kind\": \"input\", \"dtype\": "
	    "\"float64\", \"shape\": [4]}}, \"nodes\": [{\"op\": \"add\", "
	    "\"inputs\": [\"x\", \"x\"], \"outputs\": [\"y\"]}, {\"op\": "
	    "\"sum\", \"inputs\": [\"y\"], \"outputs\": [\"s\"], \"params\": "
	    "{\"axis\": 0}}], \"functions\": {\"f\": {\"outputs\": [\"s\"]}}}";
	const char *renamed = "{\"format\": \"gptop-graph/1\", \"name\": "
	    "\"other\", \"variables\": {\"v\": {\"kind\": \"input\", "
	    "\"dtype\": \"float64\", \"shape\": [4]}}, \"nodes\": [{\"op\": "
	    "\"add\", "
	    "\"inputs\": [\"v\", \"v\"], \"outputs\": [\"w\"]}, {\"op\": "
	    "\"sum\", \"inputs\": [\"w\"], \"outputs\": [\"t\"], \"params\": "
	    "{\"axis\": 0}}], \"functions\": {\"f\": {\"outputs\": [\"t\"]}}}";
	const char *op = "{\"format\": \"gptop-graph/1\", \"name\": \"h\", "
	    "\"variables\": {\"x\": {\"kind\": \"input\", \"dtype\": "
	    "\"float64\", \"shape\": [4]}}, \"nodes\": [{\"op\": \"mul\", "
	    "\"inputs\": [\"x\", \"x\"], \"outputs\": [\"y\"]}, {\"op\": "
	    "\"sum\", \"inputs\": [\"y\"], \"outputs\": [\"s\"], \"params\": "
	    "{\"axis\": 0}}], \"functions\": {\"f\": {\"outputs\": [\"s\"]}}}";
	const char *shape = "{\"format\": \"gptop-graph/1\", \"name\": \"h\", "
	    "\"variables\": {\"x\": {\"kind\": \"input\", \"dtype\": "
	    "\"float64\", \"shape\": [5]}}, \"nodes\": [{\"op\": \"add\", "
	    "\"inputs\": [\"x\", \"x\"], \"outputs\": [\"y\"]}, {\"op\": "
	    "\"sum\", \"inputs\": [\"y\"], \"outputs\": [\"s\"], \"params\": "
	    "{\"axis\": 0}}], \"functions\": {\"f\": {\"outputs\": [\"s\"]}}}";
	const char *param = "{\"format\": \"gptop-graph/1\", \"name\": \"h\", "
	    "\"variables\": {\"x\": {\"kind\": \"input\", \"dtype\": "
	    "\"float64\", \"shape\": [4]}}, \"nodes\": [{\"op\": \"add\", "
	    "\"inputs\": [\"x\", \"x\"], \"outputs\": [\"y\"]}, {\"op\": "
	    "\"sum\", \"inputs\": [\"y\"], \"outputs\": [\"s\"], \"params\": "
	    "{\"axis\": [0], \"keepdims\": true}}], \"functions\": {\"f\": "
	    "{\"outputs\": [\"s\"]}}}";
	uint64_t h = hash_of(base);

	ok(h != 0 && h == hash_of(base), "the graph hash is stable");
	ok(h == hash_of(renamed), "renaming the graph and its variables "
	    "keeps the hash");
	ok(h != hash_of(op), "another op changes it");
	ok(h != hash_of(shape), "another shape changes it");
	ok(h != hash_of(param), "other params change it");
}

static void
test_csv(void)
{
	struct gp_profile *p = rich_profile(5);
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);
	int lines = 0;

	gp_export_csv_field(fp, "plain");
	fputc('|', fp);
	gp_export_csv_field(fp, "a,b");
	fputc('|', fp);
	gp_export_csv_field(fp, "say \"hi\"");
	fputc('|', fp);
	gp_export_csv_field(fp, "two\nlines");
	fclose(fp);
	ok(strcmp(buf, "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"") == 0,
	    "RFC 4180 quoting of commas, quotes and line breaks");
	free(buf);

	buf = NULL;
	fp = open_memstream(&buf, &len);
	gp_export_csv_applies_fp(p, fp);
	fclose(fp);
	for (char *c = buf; (c = strstr(c, "\r\n")) != NULL; c += 2)
		lines++;
	is_int(lines, 1 + 7, "the Apply CSV: a header and one row per apply");
	ok(strncmp(buf, "function,id,name,op,class,impl,pct,cum_pct,time_ns,"
	    "per_call_ns,median_ns,p95_ns,min_ns,max_ns,calls,mflops,"
	    "gflops_per_s,flops,signature\r\n", 130) == 0, "its header");
	ok(strstr(buf, "\"Elemwise{add}(t3, y \"\"quoted\"\", caf\xc3\xa9)\"")
	    != NULL, "names with commas and quotes are quoted");
	free(buf);

	buf = NULL;
	fp = open_memstream(&buf, &len);
	gp_export_csv_ops_fp(p, fp);
	fclose(fp);
	lines = 0;
	for (char *c = buf; (c = strstr(c, "\r\n")) != NULL; c += 2)
		lines++;
	is_int(lines, 1 + 6, "the Ops CSV: a header and one row per op");
	ok(strstr(buf, "\r\nDot{dot},Dot,BLAS,") != NULL,
	    "an op row with its class and type");
	free(buf);
	gp_profile_free(p);
}

/* A real run of add3.json traced: nesting and counts. */
static void
test_trace(void)
{
	const char *top = getenv("top_srcdir");
	char *path;
	struct gp_flags flags;
	struct gp_session *s;
	struct gp_trace *t;
	struct gp_err err;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *fp;
	json_t *j, *ev, *e;
	int n_apply, calls = 0, applies = 0, counters = 0, nested = 0;
	int names = 0;
	json_error_t je;

	path = gp_xasprintf("%s/data/graphs/add3.json", top != NULL ? top :
	    "..");
	gp_flags_init(&flags);
	s = gp_session_open(path, &flags, &err);
	if (s == NULL) {
		ok(true, "# SKIP no graph to trace: %s", err.msg);
		free(path);
		gp_flags_done(&flags);
		return;
	}
	n_apply = gp_session_profile(s)->fn[0].n_apply;
	t = gp_export_trace_new(gp_session_profile(s), gp_session_vm(s), 3);
	gp_session_run(s, -1, 5);
	gp_export_trace_stop(t);
	fp = open_memstream(&buf, &len);
	ok(gp_export_trace_fp(t, fp) == 0, "write the trace");
	fclose(fp);
	j = json_loads(buf, JSON_REJECT_DUPLICATES, &je);
	ok(j != NULL, "the trace is valid JSON%s%s", j ? "" : ": ",
	    j ? "" : je.text);
	ev = json_object_get(j, "traceEvents");
	json_array_foreach(ev, i, e) {
		const char *ph = json_string_value(json_object_get(e, "ph"));
		const char *cat = json_string_value(json_object_get(e, "cat"));

		if (ph == NULL)
			continue;
		if (strcmp(ph, "M") == 0)
			names++;
		else if (strcmp(ph, "C") == 0)
			counters++;
		else if (strcmp(ph, "X") == 0 && cat != NULL &&
		    strcmp(cat, "call") == 0)
			calls++;
		else if (strcmp(ph, "X") == 0) {
			double ts = json_number_value(json_object_get(e, "ts"));
			double dur = json_number_value(json_object_get(e,
			    "dur"));
			json_int_t tid = json_integer_value(json_object_get(e,
			    "tid"));
			size_t k;
			json_t *c;

			applies++;
			json_array_foreach(ev, k, c) {
				double cts, cdur;

				if (json_string_value(json_object_get(c,
				    "cat")) == NULL || strcmp(json_string_value(
				    json_object_get(c, "cat")), "call") != 0 ||
				    json_integer_value(json_object_get(c,
				    "tid")) != tid)
					continue;
				cts = json_number_value(json_object_get(c,
				    "ts"));
				cdur = json_number_value(json_object_get(c,
				    "dur"));
				if (ts >= cts - 1e-9 && ts + dur <= cts + cdur +
				    1e-6) {
					nested++;
					break;
				}
			}
		}
	}
	is_int(calls, 3, "the last 3 calls traced (of 5)");
	is_int(applies, 3 * n_apply, "calls traced x applies complete events");
	is_int(nested, applies, "every apply event lies within its call's");
	is_int(counters, 3 * n_apply, "a live-bytes counter after each apply");
	is_int(names, 3, "process name, thread name and sort index");
	ok(json_integer_value(json_object_get(json_object_get(json_object_get(
	    json_object_get(j, "otherData"), "calls"), "f"), "seen")) == 5,
	    "otherData says how many calls were seen");
	json_decref(j);
	free(buf);
	{
		char *out = tmp_path("trace.json");

		ok(gp_export_trace_write(t, out, &err) == 0, "write the trace "
		    "to a file, atomically");
		unlink(out);
		free(out);
	}
	gp_export_trace_free(t);
	gp_session_free(s);
	gp_flags_done(&flags);
	free(path);
}

/*
 * A capture large enough to be read in pieces on two threads: the same
 * profile back, and each fault anywhere in its applies told as a reading
 * in one piece tells it (jansson's own position and text for syntax,
 * duplicate keys and nesting depth; the path for a bad value).
 */
#define SPLIT_N	12000

/* text with `ins` inserted at offset at (del bytes removed there). */
static char *
splice(const char *text, size_t at, size_t del, const char *ins)
{
	return (gp_xasprintf("%.*s%s%s", (int)at, text, ins, text + at + del));
}

/* Where apply i's line starts in a capture gptop wrote. */
static size_t
apply_line(const char *text, int i)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), "\n   {\"id\":%d,", i);
	p = strstr(text, key);
	return (p != NULL ? (size_t)(p - text) + 4 : 0);
}

/* Loading text must do what jansson says of it, whole: refuse it with
 * jansson's line, column and text, or (ok_msg NULL) load it. */
static void
split_like_whole(const char *text, const char *what, const char *want)
{
	struct gp_err err = {{0}};
	struct gp_profile *p;
	json_error_t je;
	json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	char *msg;

	p = gp_capture_load_buf(text, strlen(text), "big.json", NULL, &err);
	if (j != NULL) {
		json_decref(j);
		if (want == NULL)
			ok(p != NULL, "%s: loaded%s%s", what, p ? "" : ": ",
			    p ? "" : err.msg);
		else if (!ok(p == NULL && strstr(err.msg, want) != NULL,
		    "%s: refused", what))
			diag("  got: %s", p != NULL ? "(loaded)" : err.msg);
		gp_profile_free(p);
		return;
	}
	msg = gp_xasprintf("big.json:%d:%d: %s", je.line, je.column, je.text);
	if (!ok(p == NULL && strncmp(err.msg, msg, strlen(msg)) == 0,
	    "%s: refused as jansson says", what))
		diag("  got: %s\n  want: %s", p != NULL ? "(loaded)" : err.msg,
		    msg);
	free(msg);
	gp_profile_free(p);
}

static void
test_split(void)
{
	static const char *const kinds[] = {"mul", "add", "tanh", "exp"};
	const char **ops = gp_xmalloc(sizeof(*ops) * SPLIT_N);
	double *ns = gp_xmalloc(sizeof(*ns) * SPLIT_N);
	struct gp_profile *p = fx_profile("big", 0x0123456789abcdefULL, "");
	struct gp_profile *q;
	struct gp_err err;
	char *path = tmp_path("big.capture.json"), *text, *t, *want;
	char why[256] = "", *deep = gp_xmalloc(2 * 2100 + 64);
	uint64_t seed = 7;
	size_t len, at;
	int line = 1;

	for (int i = 0; i < SPLIT_N; i++) {
		ops[i] = kinds[i % 4];
		ns[i] = 100 + i % 50;
	}
	fx_chain(p, "f", SPLIT_N, ops, ns, 3, 0.2, &seed);
	fx_chain(p, "g", 3, ops, ns, 2, 0.2, &seed);
	ok(gp_capture_save(p, path, &err) == 0, "save a large capture (%s)",
	    err.msg);
	text = slurp(path, &len);
	ok(text != NULL && len > ((size_t)2 << 20), "it is over 2 MiB");
	q = gp_capture_load(path, NULL, &err);
	ok(q != NULL && fx_profile_equal(p, q, why, sizeof(why)),
	    "read in pieces, every field and counter equal %s", q ? why :
	    err.msg);
	gp_profile_free(q);

	/* a bad value late in the applies: its path, line and column */
	at = apply_line(text, 10000);
	for (size_t k = 0; k < at; k++)
		line += text[k] == '\n';
	t = strstr(text + at, "\"calls\":");
	want = gp_xasprintf("big.json:%d:%d: functions[0].applies[10000]."
	    "calls: expected a non-negative integer, got -1", line,
	    (int)((size_t)(t - text) + 8 - at) + 4);
	t = splice(text, (size_t)(t - text) + 8, 1, "-1");
	q = gp_capture_load_buf(t, strlen(t), "big.json", NULL, &err);
	if (!ok(q == NULL && strcmp(err.msg, want) == 0, "a bad value late "
	    "in the applies: its line, column and path"))
		diag("  got: %s\n  want: %s", q ? "(loaded)" : err.msg, want);
	gp_profile_free(q);
	free(want);
	free(t);
	/* the first apply of a piece, and the last apply */
	for (int i = 0; i < SPLIT_N; i += SPLIT_N / 4 - 1) {
		char key[64];

		snprintf(key, sizeof(key), "{\"id\":%d,", i);
		at = apply_line(text, i);
		t = splice(text, at, strlen(key), "{\"id\":0,");
		want = gp_xasprintf("functions[0].applies[%d].id: apply 0 is "
		    "at position %d", i, i);
		split_like_whole(t, "a misplaced apply", i > 0 ? want : NULL);
		free(want);
		free(t);
	}
	/* syntax anywhere: jansson's message for the whole text */
	for (int i = 1; i < SPLIT_N; i += SPLIT_N / 3) {
		at = apply_line(text, i);
		t = splice(text, at, 1, "");
		split_like_whole(t, "a lost brace", NULL);
		free(t);
		t = splice(text, at + 1, 0, "\"id\":1,");
		split_like_whole(t, "a duplicate key", NULL);
		free(t);
	}
	t = splice(text, strlen(text) - 6, 0, ",");
	split_like_whole(t, "a comma before the end", NULL);
	free(t);
	{
		/* a comma on a line of its own after each apply */
		struct gp_buf b = {0};

		for (const char *c = text, *d; *c != '\0'; c = d + 1) {
			d = strchr(c, '\n');
			if (d == NULL)
				d = c + strlen(c) - 1;
			gp_buf_printf(&b, "%.*s", (int)(d - c + 1), c);
			if (strncmp(c, "   {", 4) == 0 && d[-1] == ',')
				gp_buf_puts(&b, ",\n");
		}
		split_like_whole(b.s, "lone commas", NULL);
		gp_buf_free(&b);
	}
	{
		/* an apply line longer than the rest together */
		size_t n = 2 * len;
		char *pad = gp_xmalloc(n + 16);

		memcpy(pad, "\"pad\":\"", 7);
		memset(pad + 7, 'x', n);
		memcpy(pad + 7 + n, "\",", 3);
		at = apply_line(text, 100);
		t = splice(text, at + 1, 0, pad);
		split_like_whole(t, "a very long line", NULL);
		free(t);
		free(pad);
	}
	/* jansson's depth limit falls where it does in the whole text */
	for (int d = 2043; d <= 2044; d++) {
		char *msg;

		memset(deep, 0, 2 * 2100 + 64);
		strcpy(deep, "\"deep\":");
		memset(deep + 7, '[', (size_t)d);
		memset(deep + 7 + d, ']', (size_t)d);
		strcat(deep, ",");
		at = apply_line(text, 9000);
		t = splice(text, at + 1, 0, deep);
		msg = gp_xasprintf("an apply %d arrays deep", d);
		split_like_whole(t, msg, NULL);
		free(msg);
		free(t);
	}
	free(deep);
	free(text);
	free(ops);
	free(ns);
	gp_profile_free(p);
	free(path);
}

/*
 * Text for the terminal (gp_text_*), which the capture reader and every
 * message use: the expected strings are written by hand.
 */
static void
test_text(void)
{
	static const struct {
		const char	*in, *want, *what;
	} cases[] = {
		{"plain ascii ~", "plain ascii ~", "printable ASCII kept"},
		{"a\x1b]52;c;eA==\x07" "b", "a\\x1b]52;c;eA==\\x07b",
		    "OSC 52 (ESC, BEL)"},
		{"\x7f\t\n", "\\x7f\\x09\\x0a", "DEL, tab, newline"},
		{"x\xc2\x9b" "2J", "x\\xc2\\x9b2J", "C1 CSI U+009B"},
		{"\xc2\x80\xc2\x9f", "\\xc2\\x80\\xc2\\x9f",
		    "C1 first and last"},
		{"\xc2\xa0\xc3\xa9\xe2\x89\xa4\xf0\x9f\x98\x80",
		    "\xc2\xa0\xc3\xa9\xe2\x89\xa4\xf0\x9f\x98\x80",
		    "U+00A0, e acute, U+2264, an emoji kept"},
		{"\x9b" "1m", "\\x9b1m", "a lone 8-bit CSI byte"},
		{"\xe2\x89", "\\xe2\\x89", "a cut character"},
		{"\xc0\xaf", "\\xc0\\xaf", "an overlong slash"},
		{"\xed\xa0\x80", "\\xed\\xa0\\x80", "a surrogate"},
		{"a\\x1b", "a\\x1b", "an escape escaped again: unchanged"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *t = gp_text_dup(cases[i].in);
		char buf[64];

		ok(strcmp(t, cases[i].want) == 0, "gp_text_dup: %s",
		    cases[i].what);
		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		gp_text_escape(buf, sizeof(buf));
		ok(strcmp(buf, t) == 0, "gp_text_escape: %s", cases[i].what);
		free(t);
	}
	{
		/* cut to fit: whole escapes and characters only */
		char buf[8] = "ab\x1b\x1b";

		gp_text_escape(buf, sizeof(buf));
		ok(strcmp(buf, "ab\\x1b") == 0, "gp_text_escape cuts at an "
		    "escape: %s", buf);
	}
	{
		struct gp_err e;

		gp_err_set(&e, "name '%s'", "x\x1b[2J\xc2\x85");
		ok(strcmp(e.msg, "name 'x\\x1b[2J\\xc2\\x85'") == 0,
		    "gp_err_set escapes ESC and NEL: %s", e.msg);
	}
}

/* An apply's source nodes are written with runs of three or more
 * consecutive indices as [first, last] (gptop-capture/4) and read back
 * as the indices they stand for. */
static void
test_src_runs(void)
{
	static const int want[] = {0, 1, 2, 3, 7, 9, 10, 11, 20, 21};
	static const char line[] = "\"src\":[[0,3],7,[9,11],20,21],";
	struct gp_profile *p = rich_profile(7), *q;
	struct gp_prof_apply *a = &p->fn[0].ap[0];
	struct gp_err err;
	char *path = tmp_path("runs.capture.json"), *text;
	size_t len, n = sizeof(want) / sizeof(want[0]);
	bool same;

	free(a->src);
	a->src = gp_xmalloc(sizeof(want));
	memcpy(a->src, want, sizeof(want));
	a->n_src = (int)n;
	if (!ok(gp_capture_save(p, path, &err) == 0, "save sources 0-3 7 "
	    "9-11 20 21"))
		diag("%s", err.msg);
	text = slurp(path, &len);
	ok(text != NULL && strstr(text, line) != NULL, "written as %s", line);
	q = gp_capture_load(path, NULL, &err);
	same = q != NULL && q->fn[0].ap[0].n_src == (int)n &&
	    memcmp(q->fn[0].ap[0].src, want, sizeof(want)) == 0;
	ok(same, "read back as the 10 indices (%s)", q != NULL ? "loaded" :
	    err.msg);
	free(text);
	free(path);
	gp_profile_free(p);
	gp_profile_free(q);
}

/* The source nodes' names are written front-coded (gptop-capture/5):
 * a name sharing 4 or more leading bytes with the previous one as
 * [bytes shared, "the rest"], cut where a character starts (here inside
 * "/\u00e9t": \u00e9 and \u00e8 share their first byte, which is not
 * cut off), null for an unnamed one, and read back as the names; a bad
 * prefix is refused with its place. */
static void
test_src_names(void)
{
	static const char *const names[] = {"/enc/layers.0/attn/MatMul",
	    "/enc/layers.0/attn/MatMul_1", NULL, "/enc/layers.0/Add",
	    "/\xc3\xa9t\xc3\xa9/a", "/\xc3\xa9t\xc3\xa8/b", "x", "xyzw",
	    "xyzw"};
	static const char line[] = "\"sources\": [\"/enc/layers.0/attn/"
	    "MatMul\",[25,\"_1\"],null,[14,\"Add\"],\"/\xc3\xa9t\xc3\xa9/a\","
	    "[4,\"\xc3\xa8/b\"],\"x\",\"xyzw\",[4,\"\"]],";
	const int n = (int)(sizeof(names) / sizeof(names[0]));
	struct gp_profile *p = rich_profile(7), *q;
	struct gp_err err;
	char *path = tmp_path("names.capture.json"), *text;
	size_t len;
	bool same;

	for (int i = 0; i < p->n_src_names; i++)
		free(p->src_names[i]);
	free(p->src_names);
	p->src_names = gp_xcalloc((size_t)n, sizeof(char *));
	p->n_src_names = n;
	for (int i = 0; i < n; i++)
		p->src_names[i] = names[i] ? gp_xstrdup(names[i]) : NULL;
	if (!ok(gp_capture_save(p, path, &err) == 0, "save 9 source names"))
		diag("%s", err.msg);
	text = slurp(path, &len);
	if (!ok(text != NULL && strstr(text, line) != NULL, "written "
	    "front-coded: %s", line) && text != NULL && strstr(text,
	    "\"sources\"") != NULL)
		diag("  got: %.200s", strstr(text, "\"sources\""));
	q = gp_capture_load(path, NULL, &err);
	same = q != NULL && q->n_src_names == n;
	for (int i = 0; same && i < n; i++)
		same = names[i] == NULL ? q->src_names[i] == NULL :
		    q->src_names[i] != NULL && strcmp(q->src_names[i],
		    names[i]) == 0;
	ok(same, "read back as the 9 names (%s)", q != NULL ? "loaded" :
	    err.msg);
	if (text != NULL) {
		static const struct {
			const char *from, *to, *want;
		} cut[] = {
			{"[25,\"_1\"]", "[26,\"_1\"]", "sources[1]: the "
			    "previous name's first 26 bytes: expected 0 to 25"},
			{"[4,\"\xc3\xa8/b\"]", "[2,\"x\"]", "sources[5]: "
			    "the previous name's first 2 bytes: expected 0 to 8, "
			    "at a character's start"},
			{"[25,\"_1\"]", "[-1,\"_1\"]", "sources[1]: the "
			    "previous name's first -1 bytes"},
			{"[25,\"_1\"]", "[25]", "sources[1]: expected a source "
			    "node's name"},
			{"\"/enc/layers.0/attn/MatMul\",", "[1,\"/\"],",
			    "sources[0]: the previous name's first 1 bytes: "
			    "expected 0 to 0"},
		};

		for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
			const char *at = strstr(text, cut[i].from);
			size_t lf = strlen(cut[i].from), lt = strlen(cut[i].to);
			char *t = gp_xmalloc(len + lt + 1);

			if (!ok(at != NULL, "%s in the capture", cut[i].from))
				continue;
			memcpy(t, text, (size_t)(at - text));
			memcpy(t + (at - text), cut[i].to, lt);
			strcpy(t + (at - text) + lt, at + lf);
			bad(t, cut[i].want, cut[i].to);
			free(t);
		}
	}
	free(text);
	free(path);
	gp_profile_free(p);
	gp_profile_free(q);
}

int
main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/gptop-capture.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return (1);
	}
	test_roundtrip();
	test_src_runs();
	test_src_names();
	test_format1();
	test_split();
	test_recent_ring();
	test_timeline();
	test_bad();
	test_memory_roundtrip();
	test_memory_bad();
	test_memory_fuzz();
	test_memory_merge();
	test_memory_mismatch();
	test_detect();
	test_atomic();
	test_merge();
	test_graph_hash();
	test_csv();
	test_trace();
	test_text();
	{
		char *cmd = gp_xasprintf("rm -rf '%s'", tmpdir);

		if (system(cmd) != 0)
			diag("could not remove %s", tmpdir);
		free(cmd);
	}
	return (done_testing());
}
