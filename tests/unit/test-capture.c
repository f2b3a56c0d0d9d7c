/*
 * test-capture.c: captures (save, load, every field back equal, the same
 * report; the recent-call ring; each kind of bad capture refused with its
 * file:line:col and JSON path; every truncation refused), capture
 * detection, atomic writing, merging and its refusals, the graph hash, and
 * the exports (CSV quoting and tables; a Chrome trace of a real run parsed
 * back and checked for nesting and counts).
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
#include "capture.h"
#include "export.h"
#include "graph-json.h"
#include "report.h"
#include "session.h"

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
	f = fx_function(p, "g\tnext", 4);
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
	is_int(ci.version, 1, "format version 1");
	ok(ci.created != NULL && strlen(ci.created) == 24 &&
	    ci.created[10] == 'T' && ci.created[23] == 'Z',
	    "created is UTC ISO-8601 (%s)", ci.created ? ci.created : "");
	ok(ci.cpu != NULL && ci.cc != NULL && ci.blas != NULL &&
	    ci.cores > 0 && strcmp(ci.gptop, PACKAGE_VERSION) == 0,
	    "machine, compiler, BLAS and gptop version recorded");
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

/* The good capture with one edit at a JSON path, pretty-printed. */
static char *
edit(const char *good, void (*fn)(json_t *))
{
	json_t *j = json_loads(good, 0, NULL);
	char *s;

	fn(j);
	s = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(j);
	return (s);
}

static json_t *
apply_at(json_t *j, int f, int i)
{
	return (json_array_get(json_object_get(json_array_get(
	    json_object_get(j, "functions"), (size_t)f), "applies"),
	    (size_t)i));
}

static void
e_deep_type(json_t *j)
{
	json_object_set_new(apply_at(j, 0, 2), "calls", json_string("7"));
}

static void
e_missing(json_t *j)
{
	json_object_del(apply_at(j, 0, 1), "total");
}

static void
e_negative(json_t *j)
{
	json_object_set_new(apply_at(j, 1, 0), "min", json_integer(-3));
}

static void
e_count(json_t *j)
{
	json_object_set_new(json_array_get(json_object_get(j, "functions"),
	    0), "n_applies", json_integer(5));
}

static void
e_newer(json_t *j)
{
	json_object_set_new(j, "format", json_string("gptop-capture/2"));
}

static void
e_format(json_t *j)
{
	json_object_set_new(j, "format", json_string("gptop-graph/1"));
}

static void
e_noformat(json_t *j)
{
	json_object_del(j, "format");
}

static void
e_producer(json_t *j)
{
	json_array_set_new(json_array_get(json_object_get(apply_at(j, 0, 1),
	    "inputs"), 0), 2, json_integer(5));
}

static void
e_hist(json_t *j)
{
	json_t *h = json_object_get(apply_at(j, 0, 0), "histogram");

	json_array_append_new(h, json_pack("[ii]", 3, 1));
}

static void
e_bin(json_t *j)
{
	json_t *h = json_object_get(apply_at(j, 0, 0), "histogram");

	json_array_set_new(json_array_get(h, 0), 0, json_integer(64));
}

static void
e_dtype(json_t *j)
{
	json_object_set_new(json_array_get(json_object_get(j, "types"), 1),
	    "dtype", json_string("float128"));
}

static void
e_impl(json_t *j)
{
	json_object_set_new(json_array_get(json_object_get(j, "ops"), 2),
	    "impl", json_string("GPU"));
}

static void
e_op(json_t *j)
{
	json_object_set_new(apply_at(j, 0, 3), "op", json_integer(99));
}

static void
e_type(json_t *j)
{
	json_array_set_new(json_array_get(json_object_get(apply_at(j, 1, 1),
	    "outputs"), 0), 1, json_integer(-1));
}

static void
e_alias(json_t *j)
{
	json_array_append_new(json_array_get(json_object_get(apply_at(j, 0, 0),
	    "outputs"), 0), json_string("borrowed"));
}

static void
e_tuple(json_t *j)
{
	json_array_set_new(json_object_get(apply_at(j, 0, 1), "inputs"), 0,
	    json_pack("{s:s}", "var", "t0"));
}

static void
e_hash(json_t *j)
{
	json_object_set_new(json_object_get(j, "graph"), "hash",
	    json_string("xyz"));
}

static void
e_id(json_t *j)
{
	json_object_set_new(apply_at(j, 0, 2), "id", json_integer(3));
}

static void
e_strides(json_t *j)
{
	json_object_set_new(json_array_get(json_object_get(j, "types"), 0),
	    "strides", json_pack("[iii]", 8, 8, 8));
}

static void
e_minmax(json_t *j)
{
	json_object_set_new(apply_at(j, 0, 0), "min", json_integer(1LL << 40));
}

static void
e_seen(json_t *j)
{
	json_object_set_new(json_array_get(json_object_get(j, "functions"),
	    0), "calls_seen", json_integer(1));
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
	static const struct {
		void		(*fn)(json_t *);
		const char	*want;
		const char	*what;
	} cases[] = {
		{e_deep_type, "functions[0].applies[2].calls: expected a "
		    "non-negative integer, got a string", "wrong type deep"},
		{e_missing, "functions[0].applies[1]: missing \"total\"",
		    "missing field"},
		{e_negative, "functions[1].applies[0].min: expected a "
		    "non-negative integer, got -3", "negative count"},
		{e_count, "functions[0].applies: 4 applies, but n_applies "
		    "says 5", "apply count mismatch"},
		{e_newer, "format: written by a newer gptop (format "
		    "\"gptop-capture/2\"", "newer version"},
		{e_format, "format: \"gptop-graph/1\" is not a gptop capture",
		    "wrong format key"},
		{e_noformat, "not a gptop capture: no \"format\" member",
		    "no format key"},
		{e_producer, "functions[0].applies[1].inputs[0][2]: the "
		    "producer: expected an earlier apply (-1 to 0)",
		    "producer after its consumer"},
		{e_hist, "functions[0].applies[0]: the histogram holds 8 "
		    "samples but calls is 7", "histogram and calls disagree"},
		{e_bin, "functions[0].applies[0].histogram[0]: bin 64 is out "
		    "of range", "histogram bin out of range"},
		{e_dtype, "types[1].dtype: expected a dtype", "unknown dtype"},
		{e_impl, "ops[2].impl: expected an implementation (C, BLAS",
		    "unknown implementation"},
		{e_op, "functions[0].applies[3].op: 99 is out of range (0 to",
		    "op index out of the table"},
		{e_type, "functions[1].applies[1].outputs[0][1]: the type: "
		    "expected an index into types", "type index out of the "
		    "table"},
		{e_alias, "functions[0].applies[0].outputs[0][2]: the alias: "
		    "expected \"created\", \"view\" or \"inplace\"",
		    "unknown alias"},
		{e_tuple, "functions[0].applies[1].inputs[0]: expected an "
		    "input [var, type, producer], got an object",
		    "input not a tuple"},
		{e_hash, "graph.hash: expected 16 hexadecimal digits",
		    "bad graph hash"},
		{e_id, "functions[0].applies[2].id: apply 3 is at position 2",
		    "apply out of order"},
		{e_strides, "types[0].strides: 3 dimensions, but the shape has",
		    "strides of another rank"},
		{e_minmax, "functions[0].applies[0]: min 1099511627776 is "
		    "larger than max", "min above max"},
		{e_seen, "functions[0].calls_seen: 1 calls seen, fewer than "
		    "the 7 counted", "calls seen below calls counted"},
	};

	ok(gp_capture_save(p, path, &err) == 0, "save the good capture");
	good = slurp(path, &len);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = edit(good, cases[i].fn);
		bad(s, cases[i].want, cases[i].what);
		free(s);
	}
	/* the line and column point at the bad value */
	s = edit(good, e_deep_type);
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
	s = edit(good, e_unknown_key);
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
	bad("[1, 2]", "expected a JSON object", "not an object");
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
		for (int k = 0; k < GP_PROF_BINS; k++)
			sums &= z->st.hist[k] == x->st.hist[k] + y->st.hist[k];
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
	test_recent_ring();
	test_bad();
	test_detect();
	test_atomic();
	test_merge();
	test_graph_hash();
	test_csv();
	test_trace();
	{
		char *cmd = gp_xasprintf("rm -rf '%s'", tmpdir);

		if (system(cmd) != 0)
			diag("could not remove %s", tmpdir);
		free(cmd);
	}
	return (done_testing());
}
