/*
 * test-load.c: the graph loader and what it stands on: the RNG (reference
 * vectors, ranges, determinism), the jsonpos locator, loading valid graphs
 * (every init method, literals, node order, functions and updates, limits)
 * and the corpus of invalid graphs in tests/invalid, each of which must
 * fail with the message in its .err file.
 *
 * The op families may not be registered yet: a few test ops (add, mul,
 * neg, identity and two test_ ones) are handed to the loader through
 * gp_graph_load_set_test_ops(); registered ops of the same names win.
 */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "load/graph-json.h"
#include "base/jsonpos.h"
#include "load/npy.h"
#include "graph/op.h"
#include "ops/ops.h"
#include "base/rng.h"

static const char *srcdir;
static char tmpdir[256];

/* Test ops. */

static int
prep_binary(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *a = gp_graph_in_type(g, n, 0);
	const struct gp_type *b = gp_graph_in_type(g, n, 1);
	int64_t shape[GP_MAX_DIMS];
	int nd;

	if (gp_shape_broadcast(a->ndim, a->shape, b->ndim, b->shape, &nd,
	    shape, err) < 0)
		return (-1);
	gp_ops_set_out(g, n, 0, gp_dtype_promote(a->dtype, b->dtype), nd,
	    shape);
	return (0);
}

static int
prep_unary(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *a = gp_graph_in_type(g, n, 0);

	gp_ops_set_out(g, n, 0, a->dtype, a->ndim, a->shape);
	return (0);
}

static int
prep_split(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *a = gp_graph_in_type(g, n, 0);

	gp_ops_set_out(g, n, 0, a->dtype, a->ndim, a->shape);
	gp_ops_set_out(g, n, 1, a->dtype, a->ndim, a->shape);
	return (0);
}

static int
prep_scale(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	double f;

	if (gp_op_param_double(n->params, "factor", 1.0, &f, err) < 0)
		return (-1);
	return (prep_unary(g, n, err));
}

static const char *const scale_params[] = {"factor", NULL};

static const struct gp_op t_add = {.name = "add", .cls = "Elemwise",
    .min_in = 2, .max_in = 2, .n_out = 1, .prepare = prep_binary};
static const struct gp_op t_mul = {.name = "mul", .cls = "Elemwise",
    .min_in = 2, .max_in = 2, .n_out = 1, .prepare = prep_binary};
static const struct gp_op t_neg = {.name = "neg", .cls = "Elemwise",
    .min_in = 1, .max_in = 1, .n_out = 1, .prepare = prep_unary};
static const struct gp_op t_identity = {.name = "identity",
    .cls = "Elemwise", .min_in = 1, .max_in = 1, .n_out = 1,
    .prepare = prep_unary};
static const struct gp_op t_split = {.name = "test_split", .cls = "Test",
    .min_in = 1, .max_in = 1, .n_out = 2, .prepare = prep_split};
static const struct gp_op t_scale = {.name = "test_scale", .cls = "Test",
    .min_in = 1, .max_in = 1, .n_out = 1, .params = scale_params,
    .prepare = prep_scale};
static const struct gp_op *const test_ops[] = {
	&t_add, &t_mul, &t_neg, &t_identity, &t_split, &t_scale, NULL
};

/* Helpers. */

static char *
write_file(const char *name, const char *text)
{
	char *path = gp_xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
	return (path);
}

static struct gp_graph *
load_text(const char *text, struct gp_err *err)
{
	return (gp_graph_load_buf(text, strlen(text), "t.json", tmpdir, NULL,
	    err));
}

static const struct gp_var *
var(const struct gp_graph *g, const char *name)
{
	int v = gp_graph_find_var(g, name);

	return (v >= 0 ? &g->vars[v] : NULL);
}

static bool
type_is(const struct gp_var *v, enum gp_dtype dt, int ndim,
    const int64_t *shape)
{
	struct gp_type t = {.dtype = dt, .ndim = ndim};

	for (int i = 0; i < ndim; i++)
		t.shape[i] = shape[i];
	return (v != NULL && gp_type_equal(&v->type, &t));
}

/* RNG. */

static void
test_rng(void)
{
	static const uint64_t sm[5] = {
		6457827717110365317ULL, 3203168211198807973ULL,
		9817491932198370423ULL, 4593380528125082431ULL,
		16408922859458223821ULL
	};
	static const uint64_t xo[6] = {
		11520, 0, 1509978240, 1215971899390074240ULL,
		1216172134540287360ULL, 607988272756665600ULL
	};
	struct gp_rng r, r2;
	uint64_t x = 1234567;
	bool good = true, in_range = true;
	double sum = 0, sum2 = 0, lo = 1, hi = 0;
	int counts[7] = {0};
	int n = 200000;

	for (int i = 0; i < 5; i++)
		good = good && gp_rng_splitmix64(&x) == sm[i];
	ok(good, "splitmix64 matches the reference outputs for seed "
	    "1234567");
	r.s[0] = 1, r.s[1] = 2, r.s[2] = 3, r.s[3] = 4;
	good = true;
	for (int i = 0; i < 6; i++)
		good = good && gp_rng_next(&r) == xo[i];
	ok(good, "xoshiro256** matches the reference outputs from state "
	    "{1, 2, 3, 4}");
	gp_rng_seed(&r, 42);
	ok(gp_rng_next(&r) == 1546998764402558742ULL &&
	    gp_rng_next(&r) == 6990951692964543102ULL,
	    "seed 42 gives the documented stream");

	gp_rng_seed(&r, 1);
	for (int i = 0; i < n; i++) {
		double u = gp_rng_uniform(&r, -2, 3);

		in_range = in_range && u >= -2 && u < 3;
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
		sum += u;
	}
	ok(in_range && lo < -1.99 && hi > 2.99, "uniform stays in [-2, 3) "
	    "and covers it");
	is_double(sum / n, 0.5, 0.02, "uniform mean");
	ok(gp_rng_uniform(&r, 1e300, 1e300 + 1e285) < 1e300 + 1e285,
	    "uniform never returns hi, even after rounding");

	gp_rng_seed(&r, 2);
	sum = 0;
	for (int i = 0; i < n; i++) {
		double z = gp_rng_normal(&r, 1.0, 2.0);

		sum += z;
		sum2 += (z - 1.0) * (z - 1.0);
	}
	is_double(sum / n, 1.0, 0.03, "normal mean");
	is_double(sqrt(sum2 / n), 2.0, 0.03, "normal std");

	gp_rng_seed(&r, 3);
	in_range = true;
	for (int i = 0; i < 70000; i++) {
		int64_t k = gp_rng_integers(&r, -3, 4);

		in_range = in_range && k >= -3 && k < 4;
		if (k >= -3 && k < 4)
			counts[k + 3]++;
	}
	good = true;
	for (int i = 0; i < 7; i++)
		good = good && counts[i] > 9500 && counts[i] < 10500;
	ok(in_range && good, "integers in [-3, 4) are uniform over 7 values");
	ok(gp_rng_integers(&r, INT64_MIN, INT64_MAX) < INT64_MAX &&
	    gp_rng_integers(&r, 5, 6) == 5, "integers: the widest and the "
	    "narrowest ranges");

	gp_rng_seed(&r, 99);
	gp_rng_seed(&r2, 99);
	good = true;
	for (int i = 0; i < 100; i++)
		good = good && gp_rng_normal(&r, 0, 1) ==
		    gp_rng_normal(&r2, 0, 1);
	ok(good, "the same seed gives the same stream");
}

/* jsonpos. */

static void
test_jsonpos(void)
{
	static const char text[] =
	    "{\"a\": [1, {\"b\\\"c\": 2}],\n"
	    "  \"caf\\u00e9\": \"\xc3\xa9t\xc3\xa9\", \"k\": [[], [3, 4]],\n"
	    "\t\"s\": \"x,]}\\\\\", \"t\": true}";
	struct gp_jsonpos_step p1[] = {{"a", 0}, {NULL, 1}, {"b\"c", 0}};
	struct gp_jsonpos_step p2[] = {{"caf\xc3\xa9", 0}};
	struct gp_jsonpos_step p3[] = {{"k", 0}, {NULL, 1}, {NULL, 1}};
	struct gp_jsonpos_step p4[] = {{"t", 0}};
	struct gp_jsonpos_step p5[] = {{"k", 0}, {NULL, 7}};
	int line, col, rc;
	size_t len = strlen(text);

	rc = gp_jsonpos_find(text, len, p1, 3, false, &line, &col);
	ok(rc == 0 && line == 1 && col == 20, "escaped key in a nested "
	    "object (%d:%d)", line, col);
	rc = gp_jsonpos_find(text, len, p1, 3, true, &line, &col);
	ok(rc == 0 && line == 1 && col == 12, "the key itself (%d:%d)", line,
	    col);
	rc = gp_jsonpos_find(text, len, p2, 1, false, &line, &col);
	ok(rc == 0 && line == 2 && col == 16, "a \\u escape matches UTF-8, "
	    "columns count characters (%d:%d)", line, col);
	rc = gp_jsonpos_find(text, len, p3, 3, false, &line, &col);
	ok(rc == 0 && line == 2 && col == 37, "an array in an array (%d:%d)",
	    line, col);
	rc = gp_jsonpos_find(text, len, p4, 1, false, &line, &col);
	ok(rc == 0 && line == 3 && col == 22, "after a string holding "
	    "brackets and an escaped backslash (%d:%d)", line, col);
	rc = gp_jsonpos_find(text, len, p5, 2, false, &line, &col);
	ok(rc < 0 && line == 2 && col == 28, "a missing index fails at its "
	    "array (%d:%d)", line, col);
	rc = gp_jsonpos_find(text, len, NULL, 0, false, &line, &col);
	ok(rc == 0 && line == 1 && col == 1, "the empty path is the top "
	    "value");
	ok(gp_jsonpos_string_start(text, len, 4) == 1 &&
	    gp_jsonpos_string_start(text, len, 5) == 5,
	    "string_start finds the key ending at an offset");
	ok(gp_jsonpos_find("[1,", 3, p5 + 1, 1, false, &line, &col) < 0,
	    "truncated text does not read past its end");
}

struct each_rec {
	int	n, line[8], col[8];
	size_t	start[8], end[8];
};

static void
each_cb(void *vctx, size_t i, const struct gp_jsonpos_elem *e)
{
	struct each_rec *r = vctx;

	if (i < 8) {
		r->line[i] = e->line;
		r->col[i] = e->col;
		r->start[i] = e->start;
		r->end[i] = e->end;
	}
	r->n++;
}

static void
test_jsonpos_each(void)
{
	static const char text[] =
	    "{\"nodes\": [\n  {\"op\": \"a\"},\n  {\"op\": [1, 2]}, 7\n],\n"
	    " \"o\": {\"x\": 1, \"y\": {}}}";
	struct gp_jsonpos_step pn[] = {{"nodes", 0}}, po[] = {{"o", 0}};
	struct each_rec r = {0};
	size_t a, b;

	ok(gp_jsonpos_each(text, strlen(text), pn, 1, each_cb, &r) == 3 &&
	    r.n == 3 && r.line[0] == 2 && r.col[0] == 3 && r.line[1] == 3 &&
	    r.col[1] == 3 && r.line[2] == 3 && r.col[2] == 19,
	    "each: array elements in one pass");
	ok(r.start[0] == 14 && r.end[0] == 25 && text[r.end[1] - 1] == '}' &&
	    r.end[2] == r.start[2] + 1, "each: the elements' byte ranges");
	memset(&r, 0, sizeof(r));
	ok(gp_jsonpos_each(text, strlen(text), po, 1, each_cb, &r) == 2 &&
	    r.line[0] == 5 && r.col[0] == 8 && r.col[1] == 16 &&
	    text[r.end[1] - 1] == '}', "each: object members at their keys");
	ok(gp_jsonpos_each("{\"a\": 1}", 8, pn, 1, each_cb, &r) == -1,
	    "each: a missing path");
	ok(gp_jsonpos_span(text, strlen(text), pn, 1, &a, &b) == 0 &&
	    text[a] == '[' && text[b - 1] == ']' && b == 48,
	    "span: the byte range of a value");
}

/* Valid graphs. */

static void
test_minimal(void)
{
	static const char text[] =
	    "{\"format\": \"gptop-graph/1\",\n"
	    " \"variables\": {\"x\": {\"kind\": \"input\", \"dtype\": "
	    "\"float32\", \"shape\": []}},\n"
	    " \"functions\": {\"f\": {\"outputs\": [\"x\"]}}}\n";
	struct gp_err err = {{0}};
	struct gp_graph *g = load_text(text, &err);

	if (!ok(g != NULL, "the minimal graph loads"))
		diag("%s", err.msg);
	if (g == NULL)
		return;
	ok(strcmp(g->name, "t") == 0 && strcmp(g->path, "t.json") == 0 &&
	    strcmp(g->dir, tmpdir) == 0, "name from the file, path, dir");
	ok(g->n_vars == 1 && g->n_nodes == 0 && g->n_fns == 1 &&
	    g->fns[0].n_out == 1 && g->fns[0].out[0] == 0 &&
	    g->fns[0].n_upd == 0, "one variable, no node, one function");
	ok(g->vars[0].kind == GP_VAR_INPUT && g->vars[0].type.ndim == 0 &&
	    g->vars[0].value.storage != NULL &&
	    gp_tensor_get(&g->vars[0].value, 0) == 0, "input 0-d float32, "
	    "default init 0");
	ok(g->vars[0].line == 2 && g->vars[0].col == 16,
	    "the variable's position is its key (%d:%d)", g->vars[0].line,
	    g->vars[0].col);
	ok(g->limit_bytes == gp_graph_default_limit() &&
	    gp_graph_default_limit() > ((uint64_t)1 << 20),
	    "the default memory limit is set (%llu bytes)",
	    (unsigned long long)g->limit_bytes);
	gp_graph_free(g);
}

static void
test_full(void)
{
	struct gp_tensor t = {0};
	struct gp_err err = {{0}};
	struct gp_graph *g;
	const struct gp_var *v;
	char *npy, *path;
	static const int64_t s23[2] = {2, 3}, s10[1] = {10}, s4[1] = {4};
	static const int64_t s0[1] = {0};
	bool good;
	struct gp_load_opts o = {.limit_bytes = 1 << 20};

	gp_tensor_alloc(&t, GP_INT32, 2, s23);
	for (int i = 0; i < 6; i++)
		((int32_t *)gp_tensor_data(&t))[i] = 10 * i;
	npy = gp_xasprintf("%s/w0.npy", tmpdir);
	if (gp_npy_write(npy, &t, &err) < 0)
		diag("%s", err.msg);
	gp_tensor_release(&t);
	free(npy);
	path = write_file("full.json",
	    "{\"format\": \"gptop-graph/1\", \"name\": \"full\",\n"
	    " \"doc\": \"every kind of field\",\n"
	    " \"variables\": {\n"
	    "  \"x\": {\"kind\": \"input\", \"dtype\": \"float64\", "
	    "\"shape\": [10],\n"
	    "        \"init\": {\"uniform\": [-1, 1], \"seed\": 1}},\n"
	    "  \"n\": {\"kind\": \"input\", \"dtype\": \"float32\", "
	    "\"shape\": [10], \"init\": {\"normal\": [5, 0.5], \"seed\": 2}},\n"
	    "  \"k\": {\"kind\": \"constant\", \"dtype\": \"int16\", "
	    "\"shape\": [4], \"init\": {\"integers\": [-2, 3], \"seed\": 3}},\n"
	    "  \"a\": {\"kind\": \"constant\", \"dtype\": \"int64\", "
	    "\"shape\": [2, 3], \"init\": {\"arange\": [5, -2]}},\n"
	    "  \"af\": {\"kind\": \"constant\", \"dtype\": \"float32\", "
	    "\"shape\": [4], \"init\": {\"arange\": [0.5, 0.25]}},\n"
	    "  \"v\": {\"kind\": \"constant\", \"dtype\": \"uint8\", "
	    "\"shape\": [2, 3], \"init\": {\"values\": [[1, 2, 3], [4, 5, "
	    "255]]}},\n"
	    "  \"b\": {\"kind\": \"constant\", \"dtype\": \"bool\", "
	    "\"shape\": [4], \"init\": {\"values\": [true, false, 1, 0]}},\n"
	    "  \"two\": {\"kind\": \"constant\", \"dtype\": \"float64\", "
	    "\"shape\": [], \"init\": {\"values\": 2.0}},\n"
	    "  \"f\": {\"kind\": \"constant\", \"dtype\": \"float32\", "
	    "\"shape\": [2, 3], \"init\": {\"fill\": 1.5}},\n"
	    "  \"t\": {\"kind\": \"constant\", \"dtype\": \"int8\", "
	    "\"shape\": [4], \"init\": {\"fill\": true}},\n"
	    "  \"w0\": {\"kind\": \"shared\", \"dtype\": \"int32\", "
	    "\"shape\": [2, 3], \"init\": {\"npy\": \"w0.npy\"},\n"
	    "         \"doc\": \"initial weights\"},\n"
	    "  \"w\": {\"kind\": \"shared\", \"dtype\": \"float64\", "
	    "\"shape\": [10]},\n"
	    "  \"e\": {\"kind\": \"input\", \"dtype\": \"float64\", "
	    "\"shape\": [0], \"init\": {\"values\": []}}\n"
	    " },\n"
	    " \"nodes\": [\n"
	    "  {\"op\": \"mul\", \"inputs\": [\"xw\", \"two\"], "
	    "\"outputs\": [\"out\"], \"name\": \"double\", \"params\": {}},\n"
	    "  {\"op\": \"add\", \"inputs\": [\"x\", \"w\"], "
	    "\"outputs\": [\"xw\"], \"doc\": \"defined after its use\"},\n"
	    "  {\"op\": \"test_split\", \"inputs\": [\"out\"], "
	    "\"outputs\": [\"p\", \"q\"]},\n"
	    "  {\"op\": \"test_scale\", \"inputs\": [\"q\"], "
	    "\"outputs\": [\"w_new\"], \"params\": {\"factor\": 0.5}},\n"
	    "  {\"op\": \"add\", \"inputs\": [\"w0\", \"v\"], "
	    "\"outputs\": [\"w0v\"]}\n"
	    " ],\n"
	    " \"functions\": {\n"
	    "  \"train\": {\"outputs\": [\"out\", \"p\"], \"updates\": "
	    "{\"w\": \"w_new\"}, \"doc\": \"one step\"},\n"
	    "  \"predict\": {\"outputs\": [\"xw\", \"w0v\", \"x\"]}\n"
	    " }}\n");
	g = gp_graph_load(path, &o, &err);
	if (!ok(g != NULL, "the full graph loads"))
		diag("%s", err.msg);
	free(path);
	if (g == NULL)
		return;
	ok(strcmp(g->name, "full") == 0 && g->limit_bytes == 1 << 20,
	    "the name from \"name\", the limit from the options");
	ok(g->n_nodes == 5 && strcmp(g->nodes[0].op->name, "mul") == 0 &&
	    strcmp(g->nodes[1].op->name, "add") == 0 &&
	    strcmp(g->nodes[0].name, "double") == 0 &&
	    g->nodes[1].name == NULL, "nodes kept in file order");
	ok(g->nodes[0].line == 21 && g->nodes[0].col == 3 &&
	    g->nodes[4].line == 25, "node positions recorded (%d:%d)",
	    g->nodes[0].line, g->nodes[0].col);
	ok(type_is(var(g, "xw"), GP_FLOAT64, 1, s10) &&
	    type_is(var(g, "out"), GP_FLOAT64, 1, s10) &&
	    type_is(var(g, "w_new"), GP_FLOAT64, 1, s10) &&
	    type_is(var(g, "w0v"), GP_INT32, 2, s23),
	    "every output typed by prepare");
	ok(var(g, "out")->producer == 0 && var(g, "xw")->producer == 1 &&
	    var(g, "q")->producer == 2 && var(g, "q")->producer_out == 1,
	    "producers");
	ok(json_real_value(json_object_get(g->nodes[3].params, "factor")) ==
	    0.5 && json_object_size(g->nodes[0].params) == 0 &&
	    json_is_object(g->nodes[1].params), "params passed to the op");
	ok(g->n_fns == 2 && strcmp(g->fns[0].name, "train") == 0 &&
	    g->fns[0].n_out == 2 && g->fns[0].n_upd == 1 &&
	    g->fns[0].upd[0].dst == gp_graph_find_var(g, "w") &&
	    g->fns[0].upd[0].src == gp_graph_find_var(g, "w_new") &&
	    strcmp(g->fns[1].name, "predict") == 0 && g->fns[1].n_out == 3,
	    "functions, outputs and updates");

	v = var(g, "x");
	good = v->kind == GP_VAR_INPUT;
	for (int i = 0; i < 10; i++) {
		double u = gp_tensor_get(&v->value, i);

		good = good && u >= -1 && u < 1;
	}
	{
		struct gp_rng r;

		gp_rng_seed(&r, 1);
		good = good && gp_tensor_get(&v->value, 0) ==
		    gp_rng_uniform(&r, -1, 1);
	}
	ok(good, "uniform init: in range, the seed's stream in C order");
	v = var(g, "n");
	good = true;
	for (int i = 0; i < 10; i++)
		good = good && fabs(gp_tensor_get(&v->value, i) - 5) < 3;
	ok(good && v->value.dtype == GP_FLOAT32, "normal init, float32");
	v = var(g, "k");
	good = true;
	for (int i = 0; i < 4; i++)
		good = good && gp_tensor_get(&v->value, i) >= -2 &&
		    gp_tensor_get(&v->value, i) < 3;
	ok(good && v->kind == GP_VAR_CONSTANT, "integers init in [lo, hi)");
	v = var(g, "a");
	good = true;
	for (int i = 0; i < 6; i++)
		good = good && gp_tensor_get(&v->value, i) == 5 - 2 * i;
	ok(good, "arange init, int64, negative step");
	v = var(g, "af");
	ok(gp_tensor_get(&v->value, 3) == 1.25, "arange init, float32");
	v = var(g, "v");
	ok(gp_tensor_get(&v->value, 0) == 1 &&
	    gp_tensor_get(&v->value, 5) == 255 &&
	    gp_tensor_get(&v->value, 3) == 4, "values init, nested, uint8");
	v = var(g, "b");
	ok(gp_tensor_get(&v->value, 0) == 1 &&
	    gp_tensor_get(&v->value, 1) == 0 &&
	    gp_tensor_get(&v->value, 2) == 1, "values init, bool");
	ok(gp_tensor_get(&var(g, "two")->value, 0) == 2.0 &&
	    var(g, "two")->type.ndim == 0, "values init, 0-d");
	v = var(g, "f");
	ok(gp_tensor_get(&v->value, 0) == 1.5 &&
	    gp_tensor_get(&v->value, 5) == 1.5, "fill init");
	ok(gp_tensor_get(&var(g, "t")->value, 3) == 1, "fill with true");
	v = var(g, "w0");
	ok(v->kind == GP_VAR_SHARED && v->value.dtype == GP_INT32 &&
	    gp_tensor_get(&v->value, 4) == 40, "npy init, relative to the "
	    "graph's folder");
	v = var(g, "w");
	ok(gp_tensor_numel(&v->value) == 10 &&
	    gp_tensor_get(&v->value, 9) == 0 &&
	    gp_tensor_is_contiguous(&v->value), "default init: zeros");
	ok(type_is(var(g, "e"), GP_FLOAT64, 1, s0) &&
	    var(g, "e")->value.storage != NULL, "zero-size variable");
	ok(type_is(var(g, "k"), GP_INT16, 1, s4), "declared type kept");
	ok(var(g, "x")->line == 4 && var(g, "x")->col == 3 &&
	    var(g, "w0")->line == 15 && var(g, "e")->line == 18 &&
	    var(g, "xw")->line == 22 && var(g, "xw")->col == 3,
	    "variables are placed at their keys, outputs at their node");
	ok(gp_graph_check_acyclic(g, &err) == 0, "the loaded graph is "
	    "acyclic");
	{
		int *order, n = gp_graph_schedule(g, 0, &order);

		ok(n == 4 && order[0] == 1 && order[1] == 0,
		    "schedulable: 'xw' runs before 'double'");
		free(order);
	}
	{
		struct gp_graph *c = gp_graph_clone(g);

		bool shared_ok = true, same_ok = true;
		int n_shared = 0, n_same = 0;

		ok(c != NULL && c->n_nodes == g->n_nodes &&
		    c->nodes[3].params != g->nodes[3].params,
		    "clonable (params copied)");
		/* inputs and constants are never written: one storage for
		 * both graphs; a shared variable's value is the clone's own
		 * (updates change it), with the same elements */
		for (size_t i = 0; c != NULL && i < g->n_vars; i++) {
			const struct gp_tensor *a = &g->vars[i].value;
			const struct gp_tensor *b = &c->vars[i].value;

			if (a->storage == NULL)
				continue;
			if (g->vars[i].kind == GP_VAR_SHARED) {
				n_shared++;
				shared_ok = shared_ok && b->storage != NULL &&
				    b->storage != a->storage &&
				    gp_tensor_nbytes(a) == gp_tensor_nbytes(b) &&
				    memcmp(gp_tensor_data(a), gp_tensor_data(b),
				    gp_tensor_nbytes(a)) == 0;
			} else {
				n_same++;
				same_ok = same_ok && b->storage == a->storage &&
				    a->storage->refcount == 2;
			}
		}
		ok(n_same > 0 && same_ok, "clone: its %d input and constant "
		    "values share the original's storage", n_same);
		ok(n_shared > 0 && shared_ok, "clone: its %d shared "
		    "variables' values are copies", n_shared);
		gp_graph_free(c);
		ok(n_same > 0 && g->vars[0].value.storage != NULL &&
		    g->vars[0].value.storage->refcount == 1, "the clone freed: "
		    "the original's storages held once");
	}
	gp_graph_free(g);

	/* the same seed gives the same data on every load */
	{
		static const char text[] =
		    "{\"format\": \"gptop-graph/1\", \"variables\": {"
		    "\"x\": {\"kind\": \"input\", \"dtype\": \"float64\", "
		    "\"shape\": [100], \"init\": {\"normal\": [0, 1], "
		    "\"seed\": 77}}, "
		    "\"y\": {\"kind\": \"input\", \"dtype\": \"float64\", "
		    "\"shape\": [100], \"init\": {\"normal\": [0, 1], "
		    "\"seed\": 78}}}, "
		    "\"functions\": {\"f\": {\"outputs\": [\"x\"]}}}";
		struct gp_graph *g1 = load_text(text, &err);
		struct gp_graph *g2 = load_text(text, &err);

		ok(g1 != NULL && g2 != NULL &&
		    memcmp(gp_tensor_data(&g1->vars[0].value),
		    gp_tensor_data(&g2->vars[0].value), 800) == 0 &&
		    memcmp(gp_tensor_data(&g1->vars[0].value),
		    gp_tensor_data(&g1->vars[1].value), 800) != 0,
		    "random init is deterministic per seed");
		gp_graph_free(g1);
		gp_graph_free(g2);
	}
}

/* Literal inputs take their dtype the way numpy types Python scalars. */
static void
test_literals(void)
{
	static const struct {
		const char	*dtype;		/* of x */
		const char	*lit;
		enum gp_dtype	 want;		/* the literal's */
	} cases[] = {
		{"float32", "2", GP_FLOAT32},
		{"float32", "2.5", GP_FLOAT32},
		{"int32", "2", GP_INT32},
		{"int32", "2.5", GP_FLOAT64},
		{"uint8", "255", GP_UINT8},
		{"int8", "-3", GP_INT8},
		{"bool", "2", GP_INT64},
		{"bool", "true", GP_BOOL},
		{"float64", "false", GP_BOOL},
		{"int16", "1e3", GP_FLOAT64},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *text = gp_xasprintf("{\"format\": \"gptop-graph/1\", "
		    "\"variables\": {\"x\": {\"kind\": \"input\", \"dtype\": "
		    "\"%s\", \"shape\": [3]}}, \"nodes\": [{\"op\": \"add\", "
		    "\"inputs\": [\"x\", %s], \"outputs\": [\"y\"]}], "
		    "\"functions\": {\"f\": {\"outputs\": [\"y\"]}}}",
		    cases[c].dtype, cases[c].lit);
		struct gp_err err = {{0}};
		struct gp_graph *g = load_text(text, &err);
		const struct gp_var *l;

		if (g == NULL) {
			ok(false, "literal %s with %s", cases[c].lit,
			    cases[c].dtype);
			diag("%s", err.msg);
			free(text);
			continue;
		}
		l = &g->vars[g->nodes[0].in[1]];
		ok(l->kind == GP_VAR_CONSTANT && l->type.ndim == 0 &&
		    l->type.dtype == cases[c].want &&
		    l->value.dtype == cases[c].want,
		    "literal %s with %s input is %s (got %s)", cases[c].lit,
		    cases[c].dtype, gp_dtype_name(cases[c].want),
		    gp_dtype_name(l->type.dtype));
		if (c == 1)
			ok(gp_tensor_get(&l->value, 0) == 2.5,
			    "its value is stored");
		free(text);
		gp_graph_free(g);
	}
	{
		/* no other input: int64 and float64; the name is fresh */
		static const char text[] =
		    "{\"format\": \"gptop-graph/1\", \"variables\": {"
		    "\"_t2\": {\"kind\": \"input\", \"dtype\": \"float64\", "
		    "\"shape\": []}}, \"nodes\": [{\"op\": \"add\", "
		    "\"inputs\": [1, 0.5], \"outputs\": [\"y\"]}], "
		    "\"functions\": {\"f\": {\"outputs\": [\"y\"]}}}";
		struct gp_err err = {{0}};
		struct gp_graph *g = load_text(text, &err);

		ok(g != NULL && g->vars[g->nodes[0].in[0]].type.dtype ==
		    GP_INT64 && g->vars[g->nodes[0].in[1]].type.dtype ==
		    GP_FLOAT64 && var(g, "y")->type.dtype == GP_FLOAT64 &&
		    g->nodes[0].in[0] != 0 && g->nodes[0].in[1] != 0,
		    "literals alone: int64 and float64, names not taken");
		gp_graph_free(g);
	}
}

static void
test_limits(void)
{
	static const char text[] =
	    "{\"format\": \"gptop-graph/1\", \"variables\": {"
	    "\"x\": {\"kind\": \"input\", \"dtype\": \"float64\", "
	    "\"shape\": [100, 1]},\n"
	    "\"y\": {\"kind\": \"input\", \"dtype\": \"float64\", "
	    "\"shape\": [1, 100]}},\n"
	    "\"nodes\": [{\"op\": \"add\", \"inputs\": [\"x\", \"y\"], "
	    "\"outputs\": [\"z\"]}],\n"
	    "\"functions\": {\"f\": {\"outputs\": [\"z\"]}}}";
	/* x and y take 1600 bytes together: within the limit */
	struct gp_load_opts o = {.limit_bytes = 1600};
	struct gp_err err = {{0}};
	struct gp_graph *g;

	g = gp_graph_load_buf(text, strlen(text), "lim.json", NULL, &o, &err);
	ok(g == NULL && strstr(err.msg, "lim.json:3:11: node 0 (op 'add'): "
	    "output 'z' (float64(100, 100)) is larger than the memory "
	    "limit of 1600 bytes") != NULL, "an intermediate over the limit "
	    "is refused by prepare");
	if (g == NULL)
		diag("  %s", err.msg);
	gp_graph_free(g);
	o.limit_bytes = 799;
	g = gp_graph_load_buf(text, strlen(text), "lim.json", NULL, &o, &err);
	ok(g == NULL && strstr(err.msg, "lim.json:1:95: variable 'x': "
	    "float64 (100, 1) needs 800 bytes, over the memory limit of 799 "
	    "bytes") != NULL, "a variable over the limit is refused");
	if (g == NULL)
		diag("  %s", err.msg);
	gp_graph_free(g);
	/* each is under the limit, the two together are not */
	o.limit_bytes = 1599;
	g = gp_graph_load_buf(text, strlen(text), "lim.json", NULL, &o, &err);
	ok(g == NULL && strstr(err.msg, "lim.json:2:53: variable 'y': the "
	    "variables' values need 1600 bytes with this one, over the memory "
	    "limit of 1599 bytes (flag memory_limit)") != NULL,
	    "the variables' total over the limit is refused");
	if (g == NULL)
		diag("  %s", err.msg);
	gp_graph_free(g);
	o.limit_bytes = 80000;
	g = gp_graph_load_buf(text, strlen(text), NULL, NULL, &o, &err);
	ok(g != NULL && strcmp(g->name, "graph") == 0 &&
	    strcmp(g->path, "") == 0 && strcmp(g->dir, ".") == 0,
	    "within the limit it loads; a buffer without a path");
	gp_graph_free(g);
}

/* A graph big enough for the loader to parse its nodes on two threads
 * (over 1 MiB of node text, one node per line): the result, and errors in
 * either piece, must be what one parse gives. */
static char *
big_graph(int n, int bad, const char *how)
{
	struct gp_buf b = {0};

	gp_buf_puts(&b, "{\"format\": \"gptop-graph/1\",\n"
	    " \"variables\": {\"x\": {\"kind\": \"input\", \"dtype\": "
	    "\"float64\", \"shape\": [4]}},\n \"nodes\": [\n");
	for (int i = 0; i < n; i++) {
		char in[32];

		if (i == 0)
			snprintf(in, sizeof(in), "x");
		else
			snprintf(in, sizeof(in), "t%d", i - 1);
		if (i != bad && !(i == 22000 && strcmp(how, "op+syntax") == 0))
			gp_buf_printf(&b, "  {\"op\": \"add\", \"inputs\": "
			    "[\"%s\", \"x\"], \"outputs\": [\"t%d\"]}", in, i);
		else if (strcmp(how, "syntax") == 0 || i == 22000)
			gp_buf_printf(&b, "  {\"op\": \"add\", \"inputs\" "
			    "[\"%s\", \"x\"], \"outputs\": [\"t%d\"]}", in, i);
		else if (strcmp(how, "dup") == 0)
			gp_buf_printf(&b, "  {\"op\": \"add\", \"op\": "
			    "\"add\", \"inputs\": [\"%s\", \"x\"], "
			    "\"outputs\": [\"t%d\"]}", in, i);
		else if (strcmp(how, "op") == 0 ||
		    strcmp(how, "op+syntax") == 0)
			gp_buf_printf(&b, "  {\"op\": \"nop\", \"inputs\": "
			    "[\"%s\", \"x\"], \"outputs\": [\"t%d\"]}", in, i);
		else if (strcmp(how, "comma") == 0)
			gp_buf_printf(&b, "  {\"op\": \"add\", \"inputs\": "
			    "[\"%s\", \"x\"], \"outputs\": [\"t%d\"]} ", in,
			    i);
		else
			gp_buf_printf(&b, "  {\"op\": \"add\", \"inputs\": "
			    "[\"nope\", \"x\"], \"outputs\": [\"t%d\"]}", i);
		if (i + 1 < n)
			gp_buf_puts(&b, bad == i && strcmp(how, "comma") == 0 ?
			    "\n" : ",\n");
	}
	gp_buf_printf(&b, "\n ],\n \"functions\": {\"f\": {\"outputs\": "
	    "[\"t%d\"]}}}\n", n - 1);
	return (b.s);
}

static void
test_big(void)
{
	static const int64_t s4[1] = {4};
	static const struct {
		const char	*how;
		int		 bad;
		const char	*want;
	} cases[] = {
		{"syntax", 22000, "big.json:22004:26: JSON syntax error: ':' "
		    "expected near '['"},
		{"syntax", 100, "big.json:104:26: JSON syntax error: ':' "
		    "expected near '['"},
		{"dup", 21000, "big.json:21004:17: duplicate key \"op\""},
		{"comma", 12345, "big.json:12350:3: JSON syntax error: ']' "
		    "expected near '{'"},
		{"name", 23000, "big.json:23004:28: node 23000 (op 'add'): "
		    "input 'nope' is not defined"},
		/* read while the second piece is still being parsed */
		{"op", 50, "big.json:54:10: node 50: unknown op 'nop'"},
		/* a syntax error is told first, wherever it is */
		{"op+syntax", 50, "big.json:22004:26: JSON syntax error: ':' "
		    "expected near '['"},
	};
	struct gp_err err = {{0}};
	struct gp_graph *g;
	char *text = big_graph(24000, -1, "");

	ok(strlen(text) > (1 << 20) + (1 << 18), "a big graph (%zu bytes)",
	    strlen(text));
	g = gp_graph_load_buf(text, strlen(text), "big.json", NULL, NULL,
	    &err);
	if (!ok(g != NULL, "the big graph loads"))
		diag("%s", err.msg);
	free(text);
	if (g != NULL) {
		ok(g->n_nodes == 24000 && g->nodes[20000].line == 20004 &&
		    g->nodes[20000].col == 3 && g->nodes[23999].line == 24003 &&
		    g->nodes[5].line == 9, "every node in order, placed "
		    "(%d:%d)", g->nodes[20000].line, g->nodes[20000].col);
		ok(type_is(var(g, "t23999"), GP_FLOAT64, 1, s4) &&
		    var(g, "t23999")->producer == 23999 &&
		    g->vars[g->nodes[20000].in[0]].producer == 19999,
		    "names resolve across the two pieces");
		gp_graph_free(g);
	}
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		text = big_graph(24000, cases[c].bad, cases[c].how);
		g = gp_graph_load_buf(text, strlen(text), "big.json", NULL,
		    NULL, &err);
		if (!ok(g == NULL && strstr(err.msg, cases[c].want) != NULL,
		    "big graph, %s at node %d: the message of one parse",
		    cases[c].how, cases[c].bad))
			diag("  got: %s", g != NULL ? "(loaded)" : err.msg);
		gp_graph_free(g);
		free(text);
	}
}

/* The name map: lookups of short and long names (past the prefix a slot
 * keeps), misses that share a prefix, renames and swaps, checked against
 * a linear search over the variables. */
static int
find_linear(const struct gp_graph *g, const char *name)
{
	for (size_t v = 0; v < g->n_vars; v++)
		if (g->vars[v].name != NULL && strcmp(g->vars[v].name, name) == 0)
			return ((int)v);
	return (-1);
}

static void
test_names(void)
{
	struct gp_type t = {.dtype = GP_FLOAT64, .ndim = 0};
	struct gp_graph *g = gp_graph_new("names");
	char name[64];
	bool all = true, miss = true;
	int a, b;

	gp_graph_reserve_vars(g, 10);	/* then grown past it */
	for (int i = 0; i < 3000; i++) {
		if (i % 3 == 0)
			snprintf(name, sizeof(name), "v%d", i);
		else if (i % 3 == 1)	/* one 16-byte prefix for all */
			snprintf(name, sizeof(name), "a_long_prefix_xx%d", i);
		else	/* exactly the prefix's length, and one past */
			snprintf(name, sizeof(name), "%015d%s", i,
			    i % 2 ? "" : "z");
		gp_graph_add_var(g, name, GP_VAR_INPUT, &t);
	}
	for (size_t v = 0; v < g->n_vars; v++)
		all = all && gp_graph_find_var(g, g->vars[v].name) == (int)v;
	ok(all && g->n_vars == 3000, "every one of 3000 names is found");
	for (int i = 3000; i < 3300; i++) {
		snprintf(name, sizeof(name), "a_long_prefix_xx%d", i);
		miss = miss && gp_graph_find_var(g, name) < 0;
		snprintf(name, sizeof(name), "%015d", i);
		miss = miss && gp_graph_find_var(g, name) < 0;
	}
	miss = miss && gp_graph_find_var(g, "a_long_prefix_xx") < 0 &&
	    gp_graph_find_var(g, "") < 0 && gp_graph_find_var(g, "v") < 0;
	ok(miss, "names that share a prefix with a variable's are not found");

	a = gp_graph_find_var(g, "a_long_prefix_xx4");
	gp_graph_rename_var(g, a, "renamed_to_something_long");
	ok(gp_graph_find_var(g, "a_long_prefix_xx4") < 0 &&
	    gp_graph_find_var(g, "renamed_to_something_long") == a,
	    "a renamed variable is found by its new name only");
	b = gp_graph_find_var(g, "v3");
	gp_graph_rename_var(g, b, "renamed_to_something_long");
	ok(strcmp(g->vars[b].name, "renamed_to_something_long#2") == 0 &&
	    gp_graph_find_var(g, g->vars[b].name) == b &&
	    gp_graph_find_var(g, "v3") < 0,
	    "a rename to a taken name gets a suffix (%s)", g->vars[b].name);
	a = gp_graph_find_var(g, "v6");
	b = gp_graph_find_var(g, "a_long_prefix_xx7");
	gp_graph_swap_names(g, a, b);
	ok(gp_graph_find_var(g, "v6") == b &&
	    gp_graph_find_var(g, "a_long_prefix_xx7") == a,
	    "swapped names are found at each other's variable");
	all = true;
	for (int i = 0; i < 3300; i++) {
		snprintf(name, sizeof(name), i % 2 ? "v%d" : "%015d", i);
		all = all && gp_graph_find_var(g, name) == find_linear(g, name);
	}
	for (size_t v = 0; v < g->n_vars; v++)
		all = all && gp_graph_find_var(g, g->vars[v].name) == (int)v;
	ok(all, "after them, every lookup agrees with a linear search");
	gp_graph_free(g);
}

/* The invalid corpus. */

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct gp_buf b = {0};
	char line[4096];

	if (f == NULL)
		return (NULL);
	while (fgets(line, sizeof(line), f) != NULL)
		gp_buf_puts(&b, line);
	fclose(f);
	return (b.s != NULL ? b.s : gp_xstrdup(""));
}

static int
cmp_str(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

static void
test_corpus(void)
{
	char *dir = gp_xasprintf("%s/tests/invalid", srcdir);
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (!ok(d != NULL, "open %s", dir)) {
		free(dir);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) {
			gp_grow(&names, &cap, n + 1, sizeof(*names));
			names[n++] = gp_xstrdup(e->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	ok(n >= 60, "the corpus has %zu invalid graphs", n);
	for (size_t i = 0; i < n; i++) {
		char *path = gp_xasprintf("%s/%s", dir, names[i]);
		char *errp = gp_xasprintf("%.*s.err", (int)(strlen(path) - 5),
		    path);
		char *want = slurp(errp);
		struct gp_err err = {{0}};
		struct gp_graph *g;
		bool good;

		g = gp_graph_load(path, NULL, &err);
		good = g == NULL && want != NULL && want[0] != '\0' &&
		    strchr(err.msg, '\n') == NULL &&
		    strncmp(err.msg, path, strlen(path)) == 0;
		/* every line of the .err must appear in the message */
		for (char *s = want, *nl; good && s != NULL && *s; s = nl) {
			nl = strchr(s, '\n');
			if (nl != NULL)
				*nl++ = '\0';
			if (*s != '\0' && strstr(err.msg, s) == NULL)
				good = false;
		}
		if (!ok(good, "invalid/%s", names[i])) {
			diag("  got:  %s", g != NULL ? "(loaded)" : err.msg);
			diag("  want: %s", want != NULL ? want : "(no .err)");
		}
		gp_graph_free(g);
		free(want);
		free(errp);
		free(path);
		free(names[i]);
	}
	free(names);
	free(dir);
}

int
main(void)
{
	const char *t = getenv("TMPDIR");
	char *p;

	srcdir = getenv("top_srcdir");
	if (srcdir == NULL)
		srcdir = ".";
	snprintf(tmpdir, sizeof(tmpdir), "%s/gptop-load-XXXXXX",
	    t != NULL ? t : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return (1);
	}
	gp_graph_load_set_test_ops(test_ops);
	test_rng();
	test_jsonpos();
	test_jsonpos_each();
	test_minimal();
	test_full();
	test_literals();
	test_limits();
	test_big();
	test_names();
	test_corpus();
	p = gp_xasprintf("%s/full.json", tmpdir);
	unlink(p);
	free(p);
	p = gp_xasprintf("%s/w0.npy", tmpdir);
	unlink(p);
	free(p);
	rmdir(tmpdir);
	return (done_testing());
}
