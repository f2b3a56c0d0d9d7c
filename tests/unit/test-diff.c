/*
 * test-diff.c: the noise test (identical, 3x slower, equal with noise, too
 * few executions), a profile diffed with itself (every delta zero, every
 * row "~", every apply paired by structure), structural pairing across a
 * rewrite (two ops fused into one: the unchanged applies paired, the new
 * one added, the two old ones removed, with signed deltas), runs of
 * different lengths compared per call, functions on one side only,
 * sorting by every column, the text report, the speed of a 100,000-apply
 * diff; and for captures taken apart: the common factor, the BLAS rows'
 * own factor (BLAS rows slower together are not changes, one slower on top
 * is), and the capture-level test (a move within the spread of a row's
 * executions is not a change, the same move with tight executions is);
 * the pairing by which output of a producer an apply reads and by input
 * shapes, and rows of too few executions to test.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tap.h"
#include "../capture/fixture.h"
#include "capture/capture.h"
#include "capture/diff-impl.h"
#include "capture/diff.h"

static void
stat_of(struct gp_prof_stat *s, double ns, int n, double jitter,
    uint64_t seed)
{
	gp_prof_stat_free(s);
	for (int i = 0; i < n; i++) {
		double v = ns * (1 + jitter * (2 * fx_uniform(&seed) - 1));

		gp_prof_stat_add(s, (uint64_t)v);
	}
}

static void
test_utest(void)
{
	struct gp_prof_stat a = {0}, b = {0}, c = {0};

	stat_of(&a, 1000, 30, 0.1, 1);
	ok(gp_diff_utest(&a, &a) == 1, "identical histograms: p = 1");
	stat_of(&b, 3000, 30, 0.1, 2);
	ok(gp_diff_utest(&a, &b) < 1e-6, "3x slower: p = %.3g",
	    gp_diff_utest(&a, &b));
	ok(fabs(gp_diff_utest(&a, &b) - gp_diff_utest(&b, &a)) < 1e-12,
	    "two-sided: symmetric");
	stat_of(&c, 1000, 30, 0.1, 3);
	ok(gp_diff_utest(&a, &c) > 0.05, "equal with noise: p = %.3g",
	    gp_diff_utest(&a, &c));
	gp_prof_stat_free(&c);
	ok(gp_diff_utest(&a, &c) == 1, "an empty side: p = 1");
	/* every sample in one bin on both sides: no variance */
	stat_of(&b, 1000, 10, 0, 4);
	stat_of(&c, 1000, 10, 0, 5);
	ok(gp_diff_utest(&b, &c) == 1, "all tied: p = 1");
	gp_prof_stat_free(&a);
	gp_prof_stat_free(&b);
	gp_prof_stat_free(&c);
}

static const char *const chain_ops[] = {"mul", "add", "tanh", "mul", "sub",
	"sqr"};
static const double chain_ns[] = {1000, 1200, 5000, 900, 1100, 800};

static struct gp_profile *
chain(uint64_t seed, double slow3, int calls)
{
	struct gp_profile *p = fx_profile("chain", 77, "fusion");
	double ns[6];

	memcpy(ns, chain_ns, sizeof(ns));
	ns[2] *= slow3;
	fx_chain(p, "f", 6, chain_ops, ns, calls, 0.1, &seed);
	return (p);
}

static bool
all_zero_noise(const struct gp_diff_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->rows[i].delta != 0 || strcmp(gp_diff_mark(&t->rows[i]),
		    "~") != 0 || t->rows[i].kind != GP_DIFF_PAIRED)
			return (false);
	return (true);
}

static void
test_self(void)
{
	struct gp_profile *p = chain(1, 1, 10);
	struct gp_diff *d = gp_diff_compute(p, p, NULL);
	bool ok_fn = true;

	ok(all_zero_noise(&d->cls) && d->cls.n == 1, "self diff: the Class "
	    "row has delta 0 and ~");
	ok(all_zero_noise(&d->ops) && d->ops.n == 5, "self diff: every Ops "
	    "row has delta 0 and ~");
	ok(all_zero_noise(&d->applies) && d->applies.n == 6, "self diff: "
	    "every Apply row has delta 0 and ~");
	is_int((long long)d->n_match[GP_MATCH_STRUCTURE], 6, "self diff: "
	    "every apply paired by structure");
	for (size_t i = 0; i < d->applies.n; i++)
		ok_fn &= d->applies.rows[i].id_a == d->applies.rows[i].id_b;
	ok(ok_fn, "self diff: each apply with itself");
	ok(d->n_fn == 1 && d->fn[0].call.delta == 0 &&
	    d->fn[0].call.verdict == GP_VERDICT_NOISE, "self diff: the "
	    "function's calls too");
	ok(d->same_graph && d->same_rewrites, "same graph and rewrites");
	gp_diff_free(d);
	gp_profile_free(p);
}

static const struct gp_diff_row *
find(const struct gp_diff_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->rows[i].name, name) == 0)
			return (&t->rows[i]);
	return (NULL);
}

static void
test_significance(void)
{
	struct gp_profile *a = chain(1, 1, 20), *b = chain(2, 3, 20);
	struct gp_profile *c = chain(3, 3, 2), *e = chain(4, 3, 2);
	struct gp_diff *d = gp_diff_compute(a, b, NULL);
	const struct gp_diff_row *r;
	bool rest = true;

	r = find(&d->applies, "Elemwise{tanh}(t1)");
	ok(r != NULL && r->verdict == GP_VERDICT_SLOWER &&
	    strcmp(gp_diff_mark(r), "+") == 0 && r->p < 0.05,
	    "3x slower: significant (p = %.3g)", r ? r->p : NAN);
	ok(r != NULL && fabs(r->ratio - 3) < 0.3 && r->delta > 0,
	    "its ratio is about 3 and its delta positive");
	ok(d->applies.rows[0].verdict == GP_VERDICT_SLOWER,
	    "sorted by |delta|, it comes first");
	for (size_t i = 0; i < d->applies.n; i++)
		if (&d->applies.rows[i] != r)
			rest &= strcmp(gp_diff_mark(&d->applies.rows[i]),
			    "~") == 0;
	ok(rest, "the five unchanged applies (equal, with noise): ~");
	r = find(&d->ops, "Elemwise{tanh}");
	ok(r != NULL && r->verdict == GP_VERDICT_SLOWER, "and its Ops row");
	gp_diff_free(d);

	d = gp_diff_compute(b, a, NULL);
	r = find(&d->applies, "Elemwise{tanh}(t1)");
	ok(r != NULL && r->verdict == GP_VERDICT_FASTER && r->delta < 0 &&
	    strcmp(gp_diff_mark(r), "-") == 0, "the other way: faster, "
	    "negative delta");
	gp_diff_free(d);

	d = gp_diff_compute(a, c, NULL);
	r = find(&d->applies, "Elemwise{tanh}(t1)");
	ok(r != NULL && r->verdict == GP_VERDICT_FEW &&
	    strcmp(gp_diff_mark(r), "?") == 0, "2 executions: too few to "
	    "tell (?)");
	gp_diff_free(d);
	d = gp_diff_compute(c, e, NULL);
	ok(d->fn[0].call.verdict == GP_VERDICT_NOISE, "equal calls with "
	    "few samples: ~");
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
	gp_profile_free(c);
	gp_profile_free(e);
}

/* B: ops 2 and 3 of the chain (tanh, mul) fused into one apply; the
 * outputs downstream named out_name. */
static struct gp_profile *
fused(uint64_t seed, const char *out_name)
{
	struct gp_profile *p = fx_profile("chain", 78, "fusion,more");
	struct gp_prof_fn *f = fx_function(p, "f", 8);
	const char *in;

	fx_time(fx_apply(f, "Elemwise", "mul", 1, (const char *const[]){"x"},
	    (const int[]){-1}, "t0", 1000), 1000, 10, 0.1, &seed);
	fx_time(fx_apply(f, "Elemwise", "add", 1, (const char *const[]){"t0"},
	    (const int[]){0}, "t1", 1000), 1200, 10, 0.1, &seed);
	fx_time(fx_apply(f, "Composite", "tanh,mul", 1,
	    (const char *const[]){"t1"}, (const int[]){1}, out_name, 1000),
	    5200, 10, 0.1, &seed);
	in = out_name;
	fx_time(fx_apply(f, "Elemwise", "sub", 1, &in, (const int[]){2}, "t4",
	    1000), 1100, 10, 0.1, &seed);
	fx_time(fx_apply(f, "Elemwise", "sqr", 1, (const char *const[]){"t4"},
	    (const int[]){3}, "t5", 1000), 800, 10, 0.1, &seed);
	fx_calls(f, 10, &seed);
	return (p);
}

static void
check_fusion(const char *out_name, enum gp_diff_match sub_how,
    enum gp_diff_match sqr_how)
{
	struct gp_profile *a = chain(1, 1, 10), *b = fused(2, out_name);
	struct gp_diff *d = gp_diff_compute(a, b, NULL);
	const struct gp_diff_table *t = &d->applies;
	const struct gp_diff_row *r;
	char sub[64];
	bool signs = true;

	is_int((long long)t->n_paired, 4, "fusion (%s): 4 applies paired",
	    out_name);
	is_int((long long)t->n_added, 1, "fusion (%s): the fused apply added",
	    out_name);
	is_int((long long)t->n_removed, 2, "fusion (%s): the two it replaced "
	    "removed", out_name);
	r = find(t, "Composite{tanh,mul}(t1)");
	ok(r != NULL && r->kind == GP_DIFF_ADDED && r->id_b == 2 &&
	    r->id_a == -1, "the added row is B's apply 2");
	r = find(t, "Elemwise{tanh}(t1)");
	ok(r != NULL && r->kind == GP_DIFF_REMOVED && r->id_a == 2,
	    "tanh is removed");
	r = find(t, "Elemwise{mul}(t2)");
	ok(r != NULL && r->kind == GP_DIFF_REMOVED && r->id_a == 3,
	    "the second mul is removed");
	for (size_t i = 0; i < t->n; i++) {
		r = &t->rows[i];
		if (r->kind == GP_DIFF_ADDED)
			signs &= r->delta > 0 && r->delta == r->time_b;
		if (r->kind == GP_DIFF_REMOVED)
			signs &= r->delta < 0 && r->delta == -r->time_a;
	}
	ok(signs, "added rows count positive, removed rows negative");
	snprintf(sub, sizeof(sub), "Elemwise{sub}(%s)", out_name);
	r = find(t, sub);
	ok(r != NULL && r->kind == GP_DIFF_PAIRED && r->id_a == 4 &&
	    r->id_b == 3 && r->match == sub_how, "sub, downstream of the "
	    "fused region, paired (how: %d)", r ? (int)r->match : -1);
	r = find(t, "Elemwise{sqr}(t4)");
	ok(r != NULL && r->kind == GP_DIFF_PAIRED && r->id_a == 5 &&
	    r->id_b == 4 && r->match == sqr_how, "sqr after it paired "
	    "(how: %d)", r ? (int)r->match : -1);
	r = find(t, "Elemwise{add}(t0)");
	ok(r != NULL && r->kind == GP_DIFF_PAIRED && r->match ==
	    GP_MATCH_STRUCTURE, "add before it paired by structure");
	r = find(&d->ops, "Composite{tanh,mul}");
	ok(r != NULL && r->kind == GP_DIFF_ADDED, "Ops: Composite added");
	r = find(&d->ops, "Elemwise{tanh}");
	ok(r != NULL && r->kind == GP_DIFF_REMOVED, "Ops: tanh removed");
	r = find(&d->ops, "Elemwise{mul}");
	ok(r != NULL && r->kind == GP_DIFF_PAIRED && r->n_apply_a == 2 &&
	    r->n_apply_b == 1, "Ops: mul paired by name, 2 applies then 1");
	ok(!d->same_graph && !d->same_rewrites, "different graph and "
	    "rewrites noted");
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
}

/* Runs of 10 and 20 calls: totals double, times per call do not. */
static void
test_per_call(void)
{
	struct gp_profile *a = chain(1, 1, 10), *b = chain(2, 1, 20);
	struct gp_diff_opts o;
	struct gp_diff *d;
	bool twice = true, same = true;

	ok(gp_diff_calls_differ(a, b) && !gp_diff_calls_differ(a, a),
	    "the call counts differ");
	d = gp_diff_compute(a, b, NULL);
	for (size_t i = 0; i < d->applies.n; i++)
		twice &= fabs(d->applies.rows[i].ratio - 2) < 0.25;
	ok(twice, "totals: every apply's ratio is about 2");
	gp_diff_free(d);
	gp_diff_opts_init(&o);
	o.per_call = true;
	d = gp_diff_compute(a, b, &o);
	for (size_t i = 0; i < d->applies.n; i++)
		same &= fabs(d->applies.rows[i].ratio - 1) < 0.12 &&
		    strcmp(gp_diff_mark(&d->applies.rows[i]), "~") == 0;
	for (size_t i = 0; i < d->ops.n; i++)
		same &= fabs(d->ops.rows[i].ratio - 1) < 0.12;
	ok(same, "per call: every ratio about 1, every apply ~");
	ok(fabs(d->applies.total_a - (double)a->fn[0].thunk_ns / 10) < 1,
	    "per call: the table's total is the thunk time per call");
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
}

static void
test_functions(void)
{
	struct gp_profile *a = chain(1, 1, 5), *b = chain(1, 1, 5);
	static const char *const ops[] = {"exp", "neg"};
	static const double ns[] = {100, 200};
	uint64_t seed = 9;
	struct gp_diff *d;
	size_t added = 0;

	fx_chain(b, "g", 2, ops, ns, 5, 0.1, &seed);
	d = gp_diff_compute(a, b, NULL);
	ok(d->n_fn == 2 && d->fn[1].fn_a == -1 && d->fn[1].fn_b == 1 &&
	    d->fn[1].call.kind == GP_DIFF_ADDED, "a function only in B");
	for (size_t i = 0; i < d->applies.n; i++)
		if (d->applies.rows[i].kind == GP_DIFF_ADDED)
			added++;
	is_int((long long)added, 2, "its applies are added");
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
}

/* The sort on a table of many ties: values drawn from a few, with NAN,
 * -0, 0 and infinities, names from a few; every column, both ways, must
 * come out in gp_diff_row_cmp's order. */
static void
test_sort_ties(void)
{
	static const double vals[] = {0.0, -0.0, 1.0, -1.0, 2.5, 1e-300,
	    INFINITY, -INFINITY, NAN};
	static const char *const names[] = {"a", "b", "add", "mul"};
	const size_t nv = sizeof(vals) / sizeof(vals[0]), n = 5000;
	struct gp_diff_table t = {0};
	uint64_t x = 12345;
	bool sorted = true;

	t.rows = calloc(n, sizeof(*t.rows));
	t.n = n;
	for (size_t i = 0; i < n; i++) {
		struct gp_diff_row *r = &t.rows[i];
		double *f[] = {&r->time_a, &r->time_b, &r->delta, &r->ratio,
		    &r->per_call_a, &r->per_call_b, &r->change, &r->p};

		for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			*f[k] = vals[(x >> 33) % nv];
		}
		r->calls_a = (x >> 40) % 3;
		r->calls_b = (x >> 45) % 3;
		r->kind = (enum gp_diff_kind)((x >> 50) % 3);
		r->name = names[(x >> 55) % 4];
		/* positions tie too: rows of the Class and Ops tables */
		r->fn_a = r->id_a = r->fn_b = r->id_b = -1;
		if (i % 2)
			r->id_a = (int)(i % 97);
	}
	for (int c = 0; c < GP_DIFF_COL__COUNT; c++)
		for (int desc = 0; desc < 2; desc++) {
			gp_diff_sort(&t, (enum gp_diff_col)c, desc);
			for (size_t i = 1; i < n; i++)
				if (gp_diff_row_cmp(&t.rows[i - 1],
				    &t.rows[i], (enum gp_diff_col)c, desc) > 0) {
					if (sorted)
						diag("column %d%s: rows %zu, %zu "
						    "out of order", c,
						    desc ? " descending" : "",
						    i - 1, i);
					sorted = false;
				}
		}
	ok(sorted, "5000 rows of many ties (NAN, -0, infinities, equal "
	    "names): every column, both ways, in gp_diff_row_cmp's order");
	free(t.rows);
}

static void
test_sort(void)
{
	struct gp_profile *a = chain(1, 1, 10), *b = fused(2, "t3");
	struct gp_diff *d = gp_diff_compute(a, b, NULL);
	bool sorted = true, nan_last = true, first = true;

	/* as made: by |delta|, from rows made in the order of positions */
	for (size_t i = 1; i < d->applies.n; i++)
		first &= gp_diff_row_cmp(&d->applies.rows[i - 1],
		    &d->applies.rows[i], GP_DIFF_COL_ABS_DELTA, true) <= 0;
	ok(first && d->applies.n >= 5, "the applies come sorted by |delta| "
	    "(%zu rows)", d->applies.n);
	for (int c = 0; c < GP_DIFF_COL__COUNT; c++)
		for (int desc = 0; desc < 2; desc++) {
			gp_diff_sort(&d->applies, (enum gp_diff_col)c, desc);
			for (size_t i = 1; i < d->applies.n; i++)
				sorted &= gp_diff_row_cmp(&d->applies.rows[i -
				    1], &d->applies.rows[i],
				    (enum gp_diff_col)c, desc) <= 0;
			if (c == GP_DIFF_COL_SIGNIFICANCE) {
				bool seen_nan = false;

				for (size_t i = 0; i < d->applies.n; i++) {
					bool n = isnan(d->applies.rows[i].p);

					nan_last &= !seen_nan || n;
					seen_nan |= n;
				}
			}
		}
	ok(sorted, "sorting by each of the %d columns, both ways, orders the "
	    "rows", GP_DIFF_COL__COUNT);
	ok(nan_last, "untested rows (added, removed) sort last by p, both "
	    "ways");
	gp_diff_sort(&d->applies, GP_DIFF_COL_DELTA, true);
	ok(d->applies.rows[0].kind == GP_DIFF_ADDED &&
	    d->applies.rows[d->applies.n - 1].kind == GP_DIFF_REMOVED,
	    "by signed delta: added first, removed last");
	ok(strcmp(gp_diff_cols[GP_DIFF_COL_TIME_A].name, "time_a") == 0 &&
	    gp_diff_cols[GP_DIFF_COL_SIGNIFICANCE].title != NULL,
	    "column names and titles for a table widget");
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
}

/* Does the report line ending in name (after two spaces) contain what? */
static bool
line_has(const char *buf, const char *name, const char *what)
{
	char *key = gp_xasprintf("  %s\n", name);
	const char *at = strstr(buf, key), *bol;
	bool r = false;

	if (at != NULL) {
		for (bol = at; bol > buf && bol[-1] != '\n'; bol--)
			;
		r = strstr(bol, what) != NULL && strstr(bol, what) < at + 1;
	}
	free(key);
	return (r);
}

/* The diff report of d as a string (the caller frees it). */
static char *
report_of(const struct gp_diff *d, const struct gp_diff_report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	gp_diff_report(fp, d, o);
	fclose(fp);
	return (buf);
}

static void
test_report(void)
{
	struct gp_profile *a = chain(1, 1, 10), *b = fused(2, "t3");
	struct gp_diff *d = gp_diff_compute(a, b, NULL);
	struct gp_diff_report_opts o = {.n_ops = 20, .n_apply = 20,
	    .width = 200, .label_a = "a.json", .label_b = "b.json"};
	char *buf = report_of(d, &o);

	ok(strstr(buf, "\nGlobal\n") && strstr(buf, "\nClass\n") &&
	    strstr(buf, "\nOps\n") && strstr(buf, "\nApply\n"),
	    "the report has the Global, Class, Ops and Apply sections");
	ok(strstr(buf, "A: a.json: graph chain") != NULL &&
	    strstr(buf, "different graphs") != NULL, "it names both sides "
	    "and says they differ");
	ok(line_has(buf, "Composite{tanh,mul}(t1)", "  added ") &&
	    line_has(buf, "Elemwise{tanh}(t1)", "  removed "),
	    "added and removed rows are marked");
	ok(line_has(buf, "Elemwise{sub}(t3)", "  ~ "), "unchanged rows: ~");
	ok(strstr(buf, "4 paired") != NULL, "the pairing is summed up");
	ok(strstr(buf, "threads") == NULL, "no threads line or note without "
	    "the captures' machine records");
	free(buf);
	/* the captures' thread settings: shown, and a note when they differ
	 * (a capture before 2026-11-26 has none: nothing said) */
	{
		struct gp_capture_info ia = {.cpu = "X", .threads = 2,
		    .idle = "spin 300000"}, ib = ia, in = {.cpu = "X"};

		ib.idle = "passive";
		o.info_a = &ia;
		o.info_b = &ib;
		buf = report_of(d, &o);
		ok(strstr(buf, "kernels' threads: 2, idle ones spin 300000") &&
		    strstr(buf, "kernels' threads: 2, idle ones passive") &&
		    strstr(buf, "Note: the kernels' threads differ (A: 2, idle "
		    "spin 300000; B: 2, idle passive)"), "each side's threads "
		    "and idle policy, and a note that they differ");
		free(buf);
		ib.idle = "spin 300000";
		ib.threads = 1;
		buf = report_of(d, &o);
		ok(strstr(buf, "threads differ (A: 2, idle spin 300000; B: 1, "
		    "idle spin 300000)") != NULL, "a different thread count "
		    "too");
		free(buf);
		ib.threads = 2;
		buf = report_of(d, &o);
		ok(strstr(buf, "threads differ") == NULL, "no note when they "
		    "agree");
		free(buf);
		o.info_b = &in;
		buf = report_of(d, &o);
		ok(strstr(buf, "threads differ") == NULL, "no note when one "
		    "side did not record them");
		free(buf);
	}
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
}

/* A dag of n applies, each reading two earlier results. */
static struct gp_profile *
dag(int n, uint64_t seed)
{
	struct gp_profile *p = fx_profile("dag", 5, "");
	struct gp_prof_fn *f = fx_function(p, "f", n);
	static const char *const ops[] = {"add", "mul", "sub", "maximum"};
	uint64_t r = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < n; i++) {
		char a[32], b[32], o[32];
		const char *in[2] = {a, b};
		int prod[2];

		for (int k = 0; k < 2; k++) {
			int j = i > 0 ? (int)(fx_uniform(&r) * i) : -1;

			prod[k] = j;
			snprintf(k ? b : a, 32, j >= 0 ? "v%d" : "x", j);
		}
		snprintf(o, sizeof(o), "v%d", i);
		fx_time(fx_apply(f, "Elemwise", ops[i % 4], 2, in, prod, o, 1),
		    100, 5, 0.2, &seed);
	}
	fx_calls(f, 5, &seed);
	return (p);
}

/* How much slower a sanitizer build runs this code: ThreadSanitizer
 * instruments every load and store (about 8x here), ASan less. */
#if defined(__SANITIZE_THREAD__)
#define SLOW 3
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SLOW 3
#endif
#endif
#ifndef SLOW
#define SLOW 1
#endif

/* CPU time: the machine may be busy with other work. */
static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (ts.tv_sec * 1e3 + ts.tv_nsec / 1e6);
}

static void
test_speed(void)
{
	struct gp_profile *a = dag(100000, 1), *b = dag(100000, 2);
	struct gp_diff *d;
	double t0, ms;

	t0 = now_ms();
	d = gp_diff_compute(a, b, NULL);
	ms = now_ms() - t0;
	diag("diff of two 100,000-apply profiles: %.0f ms of CPU", ms);
	is_int((long long)d->applies.n_paired, 100000, "100,000 applies "
	    "paired");
	ok(ms < 5000 * SLOW, "in reasonable time (%.0f ms; the target, "
	    "200 ms, is for optimized builds: make bench)", ms);
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
}

/* Benjamini-Hochberg against values worked by hand (R's
 * p.adjust(c(.01, .04, .03, .005), "BH") gives the same: .02 .04 .04
 * .02), NAN entries left out. */
static void
test_adjust(void)
{
	double p[] = {0.01, 0.04, NAN, 0.03, 0.005}, q[5];
	const double want[] = {0.02, 0.04, NAN, 0.04, 0.02};
	bool same = true;

	gp_diff_adjust(p, q, 5);
	for (int i = 0; i < 5; i++)
		same &= isnan(want[i]) ? isnan(q[i]) : fabs(q[i] - want[i]) <
		    1e-12;
	ok(same, "BH: %.3g %.3g %.3g %.3g %.3g", q[0], q[1], q[2], q[3], q[4]);
	gp_diff_adjust(p, p, 5);
	ok(p[0] == q[0] && p[4] == q[4] && isnan(p[2]), "in place too");
	p[0] = 0.9;
	gp_diff_adjust(p, q, 1);
	ok(q[0] == 0.9, "one p: itself");
}

/* The naive adjustment: q_i = min over p_j >= p_i of p_j m / rank_j. */
static double
naive_bh(const double *p, size_t n, size_t i)
{
	size_t m = 0;
	double best = 1;

	for (size_t j = 0; j < n; j++)
		m += !isnan(p[j]);
	for (size_t j = 0; j < n; j++) {
		size_t rank = 0;

		if (isnan(p[j]) || p[j] < p[i])
			continue;
		for (size_t k = 0; k < n; k++)
			rank += !isnan(p[k]) && (p[k] < p[j] || (p[k] == p[j] &&
			    k <= j));
		if (p[j] * (double)m / (double)rank < best)
			best = p[j] * (double)m / (double)rank;
	}
	return (best);
}

/* A chain of n applies, apply i of ns[i] ns; calls executions each. */
static struct gp_profile *
chain_of(int n, const double *ns, int calls, double jitter, uint64_t seed)
{
	static const char *const ops[] = {"add", "mul", "sub", "exp", "neg",
	    "sqr", "abs", "tanh", "log", "sin", "cos", "sqrt"};
	const char *names[12];
	struct gp_profile *p = fx_profile("chain", 77, "fusion");

	for (int i = 0; i < n; i++)
		names[i] = ops[i % 12];
	fx_chain(p, "f", n, names, ns, calls, jitter, &seed);
	return (p);
}

/* Each table's p is the BH adjustment of its raw p, and no change
 * counts whose adjusted p is not below alpha. */
static void
test_table_adjusted(void)
{
	double ns[12];
	struct gp_profile *a, *b;
	struct gp_diff *d;
	bool adj = true, gate = true;
	double *p;

	for (int i = 0; i < 12; i++)
		ns[i] = 10000 + 3000 * i;
	a = chain_of(12, ns, 30, 0.3, 11);
	ns[3] *= 1.25;	/* a mild change */
	b = chain_of(12, ns, 30, 0.3, 12);
	d = gp_diff_compute(a, b, NULL);
	p = calloc(d->applies.n, sizeof(*p));
	for (size_t i = 0; i < d->applies.n; i++)
		p[i] = d->applies.rows[i].p_raw;
	for (size_t i = 0; i < d->applies.n; i++) {
		const struct gp_diff_row *r = &d->applies.rows[i];

		adj &= fabs(r->p - naive_bh(p, d->applies.n, i)) < 1e-12 &&
		    r->p >= r->p_raw;
		if (r->verdict == GP_VERDICT_SLOWER || r->verdict ==
		    GP_VERDICT_FASTER)
			gate &= r->p < 0.05;
	}
	ok(adj, "every apply row's p is the BH adjustment of the raw p over "
	    "the table's %zu rows", d->applies.n);
	ok(gate, "and only rows below alpha after it count as changes");
	free(p);
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
}

/* A change of 40% on a 100 ns op over 5000 executions, run under the
 * same load (no common factor): the test finds it (the distributions
 * differ), but 40 ns is under the floor of three probe costs (the
 * fixture's clock: 15 ns a probe): within noise. */
static void
test_floor(void)
{
	double ns[6] = {100, 2000, 2500, 3000, 3500, 4000};
	struct gp_profile *a = chain_of(6, ns, 5000, 0.2, 21), *b;
	struct gp_diff_opts o;
	struct gp_diff *d;
	const struct gp_diff_row *r;

	ns[0] = 140;
	b = chain_of(6, ns, 5000, 0.2, 22);
	gp_diff_opts_init(&o);
	o.same_load = true;
	d = gp_diff_compute(a, b, &o);
	r = find(&d->applies, "Elemwise{add}(x)");
	ok(r != NULL && r->p_raw < 1e-3 && fabs(r->change - 0.4) < 0.02,
	    "+40%% on a 100 ns op: the tests tell (p = %.3g)",
	    r ? r->p_raw : NAN);
	ok(fabs(d->floor_ns - 45) < 1e-9, "the floor: 3 x 15 ns");
	ok(r != NULL && r->verdict == GP_VERDICT_NOISE, "... but 40 ns is "
	    "under the floor: ~");
	is_int((long long)d->applies.n_significant, 0, "nothing changed "
	    "beyond noise");
	gp_diff_free(d);
	o.floor_probes = 0;
	d = gp_diff_compute(a, b, &o);
	r = find(&d->applies, "Elemwise{add}(x)");
	ok(r != NULL && r->verdict == GP_VERDICT_SLOWER, "with no floor, "
	    "the same row is slower");
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
}

/* A 30 ns op whose mean two preempted executions lift to 120 ns, then
 * 19 ns: the mean moved by 100 ns, beyond the floor, but the median by
 * 11 ns, under it: within noise (an A/A pair of add3.json, run in turn,
 * looked like this). */
static void
test_floor_median(void)
{
	double ns[4] = {30, 2000, 2500, 3000};
	struct gp_profile *a = chain_of(4, ns, 40, 0.1, 51), *b;
	struct gp_diff_opts o;
	struct gp_diff *d;
	const struct gp_diff_row *r;

	gp_prof_stat_add(&a->fn[0].ap[0].st, 2000);
	gp_prof_stat_add(&a->fn[0].ap[0].st, 2000);
	ns[0] = 19;
	b = chain_of(4, ns, 40, 0.1, 52);
	gp_diff_opts_init(&o);
	o.same_load = true;
	d = gp_diff_compute(a, b, &o);
	r = find(&d->applies, "Elemwise{add}(x)");
	ok(r != NULL && fabs(r->per_call_b - r->per_call_a) > 45 &&
	    fabs(r->median_b - r->median_a) < 45 && r->p < 0.05,
	    "the mean moved %.0f ns, the median %.0f ns (p = %.3g)",
	    r ? r->per_call_b - r->per_call_a : NAN, r ? r->median_b -
	    r->median_a : NAN, r ? r->p : NAN);
	ok(r != NULL && r->verdict == GP_VERDICT_NOISE, "the median under "
	    "the floor: ~");
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
}

/* B ran on a machine 1.4x slower throughout: captures taken at
 * different times.  Every row is ~ (the common factor absorbs it); one
 * row 3x slower on top of it stands out, by 3 / 1.4 - 1. */
static void
test_common_factor(void)
{
	double ns[10], nb[10];
	struct gp_profile *a, *b, *c;
	struct gp_diff_opts o;
	struct gp_diff *d;
	const struct gp_diff_row *r;
	bool all_noise = true;

	for (int i = 0; i < 10; i++) {
		ns[i] = 10000 + 5000 * i;
		nb[i] = ns[i] * 1.4;
	}
	a = chain_of(10, ns, 40, 0.1, 31);
	b = chain_of(10, nb, 40, 0.1, 32);
	d = gp_diff_compute(a, b, NULL);
	ok(fabs(d->factor - 1.4) < 0.08 && d->n_factor == 10, "the common "
	    "factor: %.3f over %zu applies", d->factor, d->n_factor);
	for (size_t i = 0; i < d->applies.n; i++)
		all_noise &= d->applies.rows[i].verdict == GP_VERDICT_NOISE;
	ok(all_noise && d->cls.n_significant == 0 && d->ops.n_significant ==
	    0 && d->fn[0].call.verdict == GP_VERDICT_NOISE, "a machine 1.4x "
	    "slower: no row, class, op or call beyond noise");
	gp_diff_free(d);
	gp_diff_opts_init(&o);
	o.same_load = true;
	d = gp_diff_compute(a, b, &o);
	ok(d->factor == 1 && d->applies.n_significant == 10, "run under the "
	    "same load (interleaved): all 10 are slower");
	gp_diff_free(d);
	nb[4] *= 3;
	c = chain_of(10, nb, 40, 0.1, 33);
	d = gp_diff_compute(a, c, NULL);
	r = find(&d->applies, "Elemwise{neg}(t3)");
	is_int((long long)d->applies.n_significant, 1, "one apply 3x slower "
	    "on the slower machine: it alone is beyond noise");
	ok(r != NULL && r->verdict == GP_VERDICT_SLOWER &&
	    fabs(r->rel_change - (3 - 1)) < 0.25 && fabs(r->change -
	    (3 * 1.4 - 1)) < 0.35, "its change: %+.0f%% left of %+.0f%%",
	    r ? 100 * r->rel_change : NAN, r ? 100 * r->change : NAN);
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
	gp_profile_free(c);
}

/* Four Dot22 applies, the same on both sides, then y3 -> ... */
static struct gp_prof_fn *
dots(struct gp_profile *p, int n, uint64_t *seed)
{
	static const double ns[] = {20000, 15000, 12000, 18000};
	struct gp_prof_fn *f = fx_function(p, "f", n + 4);

	for (int i = 0; i < 4; i++) {
		char iv[8], ov[8];
		const char *in[1] = {iv};

		snprintf(iv, sizeof(iv), i ? "y%d" : "x", i - 1);
		snprintf(ov, sizeof(ov), "y%d", i);
		fx_time(fx_apply(f, "Dot22", "dot", 1, in,
		    (const int[]){i - 1}, ov, 1000), ns[i], 30, 0.1, seed);
	}
	return (f);
}

/* The chain fused (A: one Elemwise apply of 5000 ns) and not (B: six of
 * 8100 ns in all): the Elemwise class row's executions went from 5000 ns
 * to 1350 ns (-73%), but a round costs 62% more: it is judged per round,
 * slower, and its per-call columns are per round too.  The Dot22 applies, the same on both sides, stay ~. */
static void
test_mixed_rows(void)
{
	static const char *const ops[] = {"mul", "add", "tanh", "mul", "sub",
	    "sqr"};
	static const double ns[] = {1000, 1200, 2000, 900, 1100, 1900};
	struct gp_profile *a = fx_profile("chain", 77, "fusion");
	struct gp_profile *b = fx_profile("chain", 77, "");
	struct gp_prof_fn *f;
	uint64_t seed = 41;
	struct gp_diff *d;
	const struct gp_diff_row *r;
	const char *in[1];
	double tb, want;

	f = dots(a, 1, &seed);
	in[0] = "y3";
	fx_time(fx_apply(f, "Elemwise", "Composite{mul,add,tanh,mul,sub,sqr}",
	    1, in, (const int[]){3}, "t5", 1000), 5000, 30, 0.1, &seed);
	fx_calls(f, 30, &seed);
	f = dots(b, 6, &seed);
	for (int i = 0; i < 6; i++) {
		char iv[8], ov[8];

		snprintf(iv, sizeof(iv), i ? "t%d" : "y3", i - 1);
		snprintf(ov, sizeof(ov), "t%d", i);
		in[0] = iv;
		fx_time(fx_apply(f, "Elemwise", ops[i], 1, in,
		    (const int[]){i + 3}, ov, 1000), ns[i], 30, 0.1, &seed);
	}
	fx_calls(f, 30, &seed);
	d = gp_diff_compute(a, b, NULL);
	r = find(&d->cls, "Elemwise");
	ok(r != NULL && r->n_apply_a == 1 && r->n_apply_b == 6 &&
	    r->calls_a == 30 && r->calls_b == 30 &&
	    fabs(r->per_call_b / r->per_call_a - 8100.0 / 5000) < 0.05,
	    "the Elemwise class row: 1 apply, then 6; its per-call columns "
	    "per round, as it is judged (30 rounds each): %+.0f%%, not the "
	    "-73%% of its executions", r ? 100 * (r->per_call_b /
	    r->per_call_a - 1) : NAN);
	tb = 0;
	for (int i = 4; i < 10; i++)
		tb += (double)b->fn[0].ap[i].st.total;
	want = tb / (double)a->fn[0].ap[4].st.total - 1;
	ok(r != NULL && r->by_round && fabs(r->change - want) < 1e-9 &&
	    fabs(want - 0.62) < 0.05, "judged per round: %+.1f%% (the six "
	    "applies' total over the fused one's: %+.1f%%; nominally 8100 / "
	    "5000 - 1)", r ? 100 * r->change : NAN, 100 * want);
	ok(r != NULL && r->verdict == GP_VERDICT_SLOWER && r->p < 0.05 &&
	    strcmp(gp_diff_mark(r), "+") == 0, "... slower, beyond noise "
	    "(p = %.3g), not faster", r ? r->p : NAN);
	r = find(&d->cls, "Dot22");
	ok(r != NULL && !r->by_round && r->verdict == GP_VERDICT_NOISE,
	    "the Dot22 row (the same applies): per execution, ~");
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
}

/* Captures taken apart, the BLAS rows slower together (OpenBLAS's
 * threads waiting for a core in B's run): 6 other applies the same on
 * both sides, 4 BLAS applies 2.5x slower each.  The BLAS rows get a
 * factor of their own (2.5) and no row is beyond noise; one BLAS apply 3x
 * slower on top of that stands out, by 3 - 1; with 2 BLAS applies only,
 * they share the common factor (1) and are slower. */
static void
test_blas_drift(void)
{
	double ns[10], nb[10];
	struct gp_profile *a, *b, *c;
	struct gp_diff *d;
	const struct gp_diff_row *r;
	bool all_noise = true;

	for (int i = 0; i < 10; i++) {
		ns[i] = 20000 + 7000 * i;
		nb[i] = ns[i] * (i >= 6 ? 2.5 : 1);
	}
	a = chain_of(10, ns, 40, 0.1, 61);
	b = chain_of(10, nb, 40, 0.1, 62);
	for (int i = 6; i < 10; i++)
		a->fn[0].ap[i].impl = b->fn[0].ap[i].impl = GP_IMPL_BLAS;
	d = gp_diff_compute(a, b, NULL);
	ok(d->n_factor_blas == 4 && fabs(d->factor_blas - 2.5) < 0.15 &&
	    d->n_factor == 6 && fabs(d->factor - 1) < 0.06, "BLAS factor "
	    "%.3f over %zu applies, the others' %.3f over %zu",
	    d->factor_blas, d->n_factor_blas, d->factor, d->n_factor);
	for (size_t i = 0; i < d->applies.n; i++)
		all_noise &= d->applies.rows[i].verdict == GP_VERDICT_NOISE;
	ok(all_noise, "the BLAS rows 2.5x slower together: no apply beyond "
	    "noise");
	ok(d->fn[0].call.verdict == GP_VERDICT_NOISE &&
	    d->fn[0].call.factor > 1.5 && d->fn[0].call.factor < 2.2,
	    "nor the call, judged against the two factors in the proportion "
	    "of A's time (%.3f)", d->fn[0].call.factor);
	gp_diff_free(d);
	nb[8] *= 3;
	c = chain_of(10, nb, 40, 0.1, 63);
	for (int i = 6; i < 10; i++)
		c->fn[0].ap[i].impl = GP_IMPL_BLAS;
	d = gp_diff_compute(a, c, NULL);
	r = find(&d->applies, "Elemwise{log}(t7)");
	is_int((long long)d->applies.n_significant, 1, "one BLAS apply 3x "
	    "slower on top: it alone is beyond noise");
	ok(r != NULL && r->verdict == GP_VERDICT_SLOWER && r->blas &&
	    fabs(r->rel_change - 2) < 0.3, "its change: %+.0f%% beyond the "
	    "BLAS rows' drift", r ? 100 * r->rel_change : NAN);
	gp_diff_free(d);
	for (int i = 6; i < 8; i++)
		a->fn[0].ap[i].impl = b->fn[0].ap[i].impl = GP_IMPL_C;
	d = gp_diff_compute(a, b, NULL);
	ok(d->n_factor_blas == 0 && d->factor_blas == d->factor &&
	    d->applies.n_significant == 4, "2 BLAS applies: no factor of "
	    "their own, the 4 rows 2.5x slower are (%zu)",
	    d->applies.n_significant);
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
	gp_profile_free(c);
}

/* Captures taken apart, one apply of 130 us doing 4.3x the work beside six
 * brief ones (0.2-2 us) whose times moved between the captures by
 * 0.57-3.2x, as the probes' and caches' share of them does under load
 * (the ratios and times of a pair of captures of test-diff-real.sh at
 * load 6-14; their executions spread within +-50%, as a loaded
 * machine's do).  The brief rows are judged among themselves and make no
 * common factor: the long one's change stands (its p had been 0.14 with
 * a factor of 2.97 and a spread of 0.29 taken over all seven), and no
 * brief row is a change.  With 2 brief rows only, they are noise. */
static void
test_brief_drift(void)
{
	static const double ra[7] = {2.25, 0.57, 1.79, 4.3, 3.23, 2.75, 2.74};
	double ns[7] = {800, 2200, 600, 130000, 190, 90, 80}, nb[7];
	struct gp_profile *a, *b;
	struct gp_diff *d;
	const struct gp_diff_row *r;

	for (int i = 0; i < 7; i++)
		nb[i] = ns[i] * ra[i];
	a = chain_of(7, ns, 40, 0.5, 71);
	b = chain_of(7, nb, 40, 0.5, 72);
	d = gp_diff_compute(a, b, NULL);
	ok(d->n_factor == 1 && d->factor == 1 && d->n_factor_brief == 6 &&
	    d->factor_brief > 2 && d->factor_brief < 2.8, "six brief applies "
	    "(under %g floors) judged apart (factor %.2f), no common factor "
	    "from one long one (n %zu, %.2f)", (double)GP_DIFF_FACTOR_MIN_FLOORS,
	    d->factor_brief, d->n_factor, d->factor);
	r = find(&d->applies, "Elemwise{exp}(t2)");
	ok(r != NULL && !r->brief && r->verdict == GP_VERDICT_SLOWER &&
	    fabs(r->rel_change - 3.3) < 0.5, "the long apply 4.3x slower is "
	    "beyond noise (p = %.3g), by %+.0f%%", r ? r->p : NAN,
	    r ? 100 * r->rel_change : NAN);
	gp_diff_free(d);
	gp_profile_free(b);
	/* the long apply unchanged: not "faster" against the brief ones' 2.7x */
	nb[3] = ns[3];
	b = chain_of(7, nb, 40, 0.5, 73);
	d = gp_diff_compute(a, b, NULL);
	r = find(&d->applies, "Elemwise{exp}(t2)");
	ok(r != NULL && r->verdict == GP_VERDICT_NOISE && r->factor == 1,
	    "the long apply unchanged beside them: within noise (%s)",
	    r ? gp_diff_mark(r) : "missing");
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
}

/* Captures taken apart, one row 1.35x slower whose executions spread
 * widely (uniform within +-60% of its time, 2000 a side): the U test and
 * the spread of the rows' ratios call it a change (under the same load,
 * it is one), but a capture's executions share that capture's state, and
 * a row's median moves between two captures by about as much as its
 * executions spread within one: with a spread of 0.46 (the log of the
 * quartiles' ratio, 1.3 / 0.7, over 1.349: uniform samples' quartiles
 * lie at 0.7 and 1.3 of the time) a side, a move of log 1.35 = 0.30 is
 * within noise.  The same move with executions within +-5% is not. */
static void
test_capture_scale(void)
{
	double ns[10], want = log(1.3 / 0.7) / 1.349;
	struct gp_profile *a, *b, *c, *e;
	struct gp_diff_opts o;
	struct gp_diff *d;
	const struct gp_diff_row *r;

	for (int i = 0; i < 10; i++)
		ns[i] = 3000 + 400 * i;
	a = chain_of(10, ns, 2000, 0.6, 71);
	c = chain_of(10, ns, 2000, 0.05, 73);
	ns[2] *= 1.35;
	b = chain_of(10, ns, 2000, 0.6, 72);
	e = chain_of(10, ns, 2000, 0.05, 74);
	d = gp_diff_compute(a, b, NULL);
	r = find(&d->applies, "Elemwise{sub}(t1)");
	ok(r != NULL && fabs(r->spread_a - want) < 0.06 &&
	    fabs(r->spread_b - want) < 0.06, "the spreads within: %.3f, "
	    "%.3f (uniform +-60%%: %.3f)", r ? r->spread_a : NAN,
	    r ? r->spread_b : NAN, want);
	ok(d->capture_scale >= 1 && d->capture_scale < 1.5,
	    "capture_scale %.3f", d->capture_scale);
	ok(r != NULL && gp_diff_utest(r->st_a, r->st_b) < 1e-6 &&
	    r->verdict == GP_VERDICT_NOISE, "1.35x with executions within "
	    "+-60%%: the U test tells (p = %.2g), the capture-level test "
	    "does not: ~", r ? gp_diff_utest(r->st_a, r->st_b) : NAN);
	gp_diff_free(d);
	gp_diff_opts_init(&o);
	o.same_load = true;
	d = gp_diff_compute(a, b, &o);
	r = find(&d->applies, "Elemwise{sub}(t1)");
	ok(r != NULL && r->verdict == GP_VERDICT_SLOWER && d->capture_scale ==
	    0, "under the same load (interleaved rounds): slower");
	gp_diff_free(d);
	d = gp_diff_compute(c, e, NULL);
	r = find(&d->applies, "Elemwise{sub}(t1)");
	ok(r != NULL && r->verdict == GP_VERDICT_SLOWER && fabs(r->rel_change -
	    0.35) < 0.05, "1.35x with executions within +-5%%: slower "
	    "(%+.0f%%)", r ? 100 * r->rel_change : NAN);
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
	gp_profile_free(c);
	gp_profile_free(e);
}

/* A side with an apply of two outputs (o0, o1) read by two alike
 * applies, listed in the order given (first: the reader of o0 first); the
 * readers' inputs of length len. */
static struct gp_profile *
two_outputs(bool o0_first, int64_t len, int calls, uint64_t seed)
{
	struct gp_profile *p = fx_profile("split", 91, "fusion");
	struct gp_prof_fn *f = fx_function(p, "f", 4);
	const char *x[1] = {"x"}, *o[2] = {"o0", "o1"};
	int none[1] = {-1}, from[1] = {0};
	struct gp_prof_apply *s;

	s = fx_apply(f, "Elemwise", "split", 1, x, none, "o0", 1000);
	s->n_out = 2;
	s->out[1] = s->out[0];
	s->out[1].var = gp_xstrdup("o1");
	fx_time(s, 1000, calls, 0.1, &seed);
	for (int k = 0; k < 2; k++) {
		const char *in[1] = {o[o0_first ? k : 1 - k]};

		fx_time(fx_apply(f, "Elemwise", "neg", 1, in, from, "y", len),
		    2000, calls, 0.1, &seed);
	}
	fx_calls(f, calls, &seed);
	return (p);
}

/* The pairing's structure reads which output of its producer an apply
 * reads (the same op and types, the other output: not alike), and its
 * input types (another shape: not alike by structure). */
static void
test_pair_outputs(void)
{
	struct gp_profile *a = two_outputs(true, 1000, 10, 1);
	struct gp_profile *b = two_outputs(false, 1000, 10, 2);
	struct gp_profile *c = two_outputs(true, 2000, 10, 3);
	struct gp_diff *d = gp_diff_compute(a, b, NULL);
	bool alike = d->applies.n == 3;

	for (size_t i = 0; i < d->applies.n; i++) {
		const struct gp_diff_row *r = &d->applies.rows[i];

		/* A's readers are 1 (o0) and 2 (o1), B's 2 (o0) and 1 */
		alike &= r->match == GP_MATCH_STRUCTURE && r->name_a == NULL &&
		    r->id_b == (r->id_a == 0 ? 0 : 3 - r->id_a);
	}
	ok(alike, "a reader of an apply's first output pairs with the reader "
	    "of the same output, by structure, whatever their order (%zu "
	    "rows)", d->applies.n);
	gp_diff_free(d);
	d = gp_diff_compute(a, c, NULL);
	alike = d->applies.n == 3;
	for (size_t i = 0; i < d->applies.n; i++) {
		const struct gp_diff_row *r = &d->applies.rows[i];

		alike &= r->id_a == r->id_b && r->match == (r->id_a == 0 ?
		    GP_MATCH_STRUCTURE : GP_MATCH_APPLY_NAME);
	}
	ok(alike, "readers of other input shapes: not alike by structure, "
	    "paired by name");
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
	gp_profile_free(c);
}

/* Under 4 executions a side the spreads are unknown, so captures taken
 * apart give a paired row p = 1 whatever the U test says (the test is
 * not run: capture_p is 1); under the same load the row's p is the
 * test's. */
static void
test_few_executions(void)
{
	struct gp_profile *a = chain(1, 1, 3), *b = chain(2, 3, 3);
	struct gp_diff_opts o;
	struct gp_diff *d = gp_diff_compute(a, b, NULL);
	const struct gp_diff_row *r = find(&d->applies, "Elemwise{tanh}(t1)");
	bool all = d->applies.n == 6;
	double u;

	for (size_t i = 0; i < d->applies.n; i++)
		all &= d->applies.rows[i].p_raw == 1 &&
		    d->applies.rows[i].p == 1 &&
		    isnan(d->applies.rows[i].spread_a);
	u = r != NULL ? gp_diff_utest(r->st_a, r->st_b) : NAN;
	ok(all && u < 0.1, "3 executions a side, captures apart: every "
	    "apply row's p is 1 (tanh 3x slower: the U test's %.3g has no "
	    "say)", u);
	gp_diff_free(d);
	gp_diff_opts_init(&o);
	o.same_load = true;
	d = gp_diff_compute(a, b, &o);
	r = find(&d->applies, "Elemwise{tanh}(t1)");
	ok(r != NULL && r->p_raw == u, "under the same load: tanh's p is the "
	    "U test's (%.3g, %.3g)", r ? r->p_raw : NAN, u);
	gp_diff_free(d);
	gp_profile_free(a);
	gp_profile_free(b);
}

/* Two rollups of the Class rows agree row for row (flops aside). */
static bool
same_classes(const struct gp_prof_table *x, const struct gp_prof_table *y)
{
	if (x->n != y->n || x->n_member != y->n_member ||
	    x->total_ns != y->total_ns)
		return (false);
	for (size_t i = 0; i < x->n; i++) {
		const struct gp_prof_row *a = &x->rows[i], *b = &y->rows[i];

		if (strcmp(a->name, b->name) != 0 || strcmp(a->type,
		    b->type) != 0 || a->fn != b->fn || a->id != b->id ||
		    a->n_apply != b->n_apply || a->calls != b->calls ||
		    a->time_ns != b->time_ns || a->pct != b->pct ||
		    a->median_ns != b->median_ns || a->p95_ns != b->p95_ns ||
		    a->st.n != b->st.n || a->st.min != b->st.min ||
		    a->st.max != b->st.max)
			return (false);
	}
	for (size_t m = 0; m < x->n_member; m++)
		if (x->member[m] != y->member[m])
			return (false);
	return (true);
}

/* gp_prof_rollup_classes (the diff's Class rows, from its Ops rows) gives
 * the rows gp_prof_rollup makes from the applies: on two functions of
 * several classes, and when an op's applies have two classes (then it
 * makes them from the applies). */
static void
test_classes_from_ops(void)
{
	struct gp_profile *p = fused(41, "t3"), *q = chain(42, 1, 12);
	struct gp_prof_fn *g;
	struct gp_prof_table ops, want, got;

	/* a second function with the fused one's applies and more calls */
	g = fx_function(p, "g", 8);
	for (int i = 0; i < q->fn[0].n_apply; i++) {
		const struct gp_prof_apply *a = &q->fn[0].ap[i];
		const char *in = a->in[0].var;

		gp_prof_stat_copy(&fx_apply(g, a->cls, a->opname, 1, &in,
		    (const int[]){i - 1}, a->out[0].var, 1000)->st, &a->st);
	}
	for (int round = 0; round < 2; round++) {
		gp_prof_rollup(p, -1, GP_GROUP_OP, &ops);
		gp_prof_rollup(p, -1, GP_GROUP_CLASS, &want);
		gp_prof_rollup_classes(p, &ops, &got);
		ok(want.n >= 2 && same_classes(&want, &got), "classes from "
		    "the op rows: the rows of the applies' rollup (%zu)%s",
		    want.n, round ? ", an op of two classes" : "");
		gp_prof_table_free(&ops);
		gp_prof_table_free(&want);
		gp_prof_table_free(&got);
		/* an op whose applies are of two classes */
		free(g->ap[1].cls);
		g->ap[1].cls = gp_xstrdup("Other");
	}
	gp_profile_free(p);
	gp_profile_free(q);
}

int
main(void)
{
	test_adjust();
	test_table_adjusted();
	test_floor();
	test_floor_median();
	test_common_factor();
	test_blas_drift();
	test_brief_drift();
	test_capture_scale();
	test_mixed_rows();
	test_utest();
	test_self();
	test_significance();
	/* the fused apply keeps the name of the output it replaced: sub
	 * reads "t3" on both sides and pairs by name */
	check_fusion("t3", GP_MATCH_APPLY_NAME, GP_MATCH_STRUCTURE);
	/* a fresh name: sub pairs by position after the fused region (sqr,
	 * whose name did not change, already by name) */
	check_fusion("_t9", GP_MATCH_LOOSE, GP_MATCH_APPLY_NAME);
	test_per_call();
	test_functions();
	test_sort();
	test_sort_ties();
	test_report();
	test_classes_from_ops();
	test_pair_outputs();
	test_few_executions();
	test_speed();
	return (done_testing());
}
