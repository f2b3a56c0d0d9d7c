/*
 * test-rewrite.c: the rewriters.  Each one on small graphs where its
 * result is known (node counts and op names after rewriting), then every
 * example graph of data/graphs/ run with no rewrites, with all of them,
 * with each rewriter left out in turn and with jit=False: outputs and
 * updated shared variables must agree, after a few calls, to tolerance.
 * Finally the interpreter and the JIT must agree on every Composite.
 */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "base/flags.h"
#include "load/graph-json.h"
#include "graph/graph.h"
#include "graph/op.h"
#include "load/onnx-build.h"
#include "rewrite/rewrite.h"
#include "rewrite/composite.h"
#include "rewrite/jit.h"
#include "run/vm.h"

static const char *top_srcdir = ".";

/*
 * Helpers
 */

/* JSON with ' for " (readable test graphs). */
static char *
q(const char *s)
{
	char *r = gp_xstrdup(s);

	for (char *p = r; *p != '\0'; p++)
		if (*p == '\'')
			*p = '"';
	return (r);
}

static struct gp_graph *
graph_of(const char *vars, const char *nodes, const char *outs,
    const char *updates)
{
	char *text = gp_xasprintf("{'format': 'gptop-graph/1', 'name': 't', "
	    "'variables': {%s}, 'nodes': [%s], 'functions': {'f': "
	    "{'outputs': [%s]%s%s%s}}}", vars, nodes, outs,
	    updates ? ", 'updates': {" : "", updates ? updates : "",
	    updates ? "}" : "");
	char *json = q(text);
	struct gp_err err;
	struct gp_graph *g;

	g = gp_graph_load_buf(json, strlen(json), "<test>", NULL, NULL, &err);
	if (g == NULL)
		diag("load failed: %s\n%s", err.msg, json);
	free(text);
	free(json);
	return (g);
}

/* A rewritten copy of g, or NULL. */
static struct gp_graph *
rewritten(const struct gp_graph *g, const char *flags)
{
	struct gp_graph *c = gp_graph_clone(g);
	struct gp_flags f;
	struct gp_err err;

	gp_flags_init(&f);
	if (gp_flags_parse(&f, flags, "test", &err) < 0 ||
	    gp_rewrite_run(c, &f, NULL, &err) < 0) {
		diag("rewrite (%s) failed: %s", flags, err.msg);
		gp_flags_done(&f);
		gp_graph_free(c);
		return (NULL);
	}
	gp_flags_done(&f);
	return (c);
}

static int
n_nodes(const struct gp_graph *g)
{
	int n = 0;

	for (size_t i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i].dead)
			n++;
	return (n);
}

static int
n_op(const struct gp_graph *g, const char *op)
{
	int n = 0;

	for (size_t i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i].dead && strcmp(g->nodes[i].op->name, op) == 0)
			n++;
	return (n);
}

/* The live nodes' formatted op names, space-separated, in node order. */
static char *
ops_of(const struct gp_graph *g)
{
	struct gp_buf b = {0};
	char *s;

	for (size_t i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i].dead)
			continue;
		if (b.len > 0)
			gp_buf_puts(&b, " ");
		gp_node_format_op(g, &g->nodes[i], &b);
	}
	s = gp_xstrdup(gp_buf_str(&b));
	gp_buf_free(&b);
	return (s);
}

static bool
is_ops(const struct gp_graph *g, const char *want, const char *what)
{
	char *got;
	bool r;

	if (g == NULL)
		return (ok(false, "%s: no graph", what));
	got = ops_of(g);
	r = ok(strcmp(got, want) == 0, "%s: %s", what, want);
	if (!r)
		diag("  got: %s", got);
	free(got);
	return (r);
}

/* Results of `calls` rounds: every function output after every call,
 * then every shared variable (by name, in the reference's order). */
struct res {
	double	*v;
	size_t	 n, cap;
	bool	 f32;
};

static void
push(struct res *r, double x)
{
	gp_grow(&r->v, &r->cap, r->n + 1, sizeof(double));
	r->v[r->n++] = x;
}

static void
push_tensor(struct res *r, const struct gp_tensor *t)
{
	int64_t n = gp_tensor_numel(t);

	push(r, (double)n);
	push(r, (double)t->dtype);
	if (t->dtype == GP_FLOAT32)
		r->f32 = true;
	for (int64_t i = 0; i < n; i++)
		push(r, gp_tensor_get(t, i));
}

static bool
run(struct gp_graph *g, const struct gp_graph *ref, int calls, struct res *r)
{
	struct gp_vm_opts o = {.allow_gc = true};
	struct gp_err err;
	struct gp_vm *vm = gp_vm_new(g, &o, NULL, &err);

	memset(r, 0, sizeof(*r));
	if (vm == NULL) {
		diag("link failed: %s", err.msg);
		return (false);
	}
	for (int c = 0; c < calls; c++)
		for (size_t f = 0; f < g->n_fns; f++) {
			gp_vm_call(vm, (int)f, NULL);
			for (int k = 0; k < g->fns[f].n_out; k++)
				push_tensor(r, gp_vm_output(vm, (int)f, k));
		}
	for (size_t v = 0; v < ref->n_vars; v++) {
		int w;

		if (ref->vars[v].kind != GP_VAR_SHARED)
			continue;
		w = gp_graph_find_var(g, ref->vars[v].name);
		if (w < 0) {
			diag("shared variable %s is gone", ref->vars[v].name);
			gp_vm_free(vm);
			return (false);
		}
		push_tensor(r, &g->vars[w].value);
	}
	gp_vm_free(vm);
	return (true);
}

/* Do a and b agree: |x - y| <= tol max(1, |y|), NaN equal to NaN? */
static bool
agree(const struct res *a, const struct res *b, double tol, char *why,
    size_t whylen)
{
	if (a->n != b->n) {
		snprintf(why, whylen, "%zu values against %zu", a->n, b->n);
		return (false);
	}
	for (size_t i = 0; i < a->n; i++) {
		double x = a->v[i], y = b->v[i];
		double s = fabs(y) > 1 ? fabs(y) : 1;

		if (isnan(x) && isnan(y))
			continue;
		if (x == y || fabs(x - y) <= tol * s)
			continue;
		snprintf(why, whylen, "value %zu: %.17g against %.17g", i, x,
		    y);
		return (false);
	}
	return (true);
}

/* Rewrite a copy of base with flags, run it and compare with ref. */
static void
check_same(const struct gp_graph *base, const struct res *ref,
    const char *flags, const char *what)
{
	struct gp_graph *g = rewritten(base, flags);
	struct res r;
	char why[256] = "";
	double tol = ref->f32 ? 2e-4 : 1e-7;

	if (g == NULL || !run(g, base, 3, &r)) {
		ok(false, "%s with %s", what, flags);
		gp_graph_free(g);
		return;
	}
	if (!ok(agree(&r, ref, tol, why, sizeof(why)), "%s: %s agrees with "
	    "optimizer=None", what, flags))
		diag("  %s", why);
	free(r.v);
	gp_graph_free(g);
}

/*
 * The rewriters, one by one
 */

#define X(name)		"'" name "': {'kind': 'input', "		\
			"'dtype': 'float64', 'shape': [4], 'init': "	\
			"{'uniform': [0.5, 1.5], 'seed': 1}}"
#define XS(name, shape, dt, seed) "'" name "': {'kind': 'input', "    \
			"'dtype': '" dt "', 'shape': " shape ", 'init': "   \
			"{'uniform': [-1, 1], 'seed': " #seed "}}"

static void
expect(const char *vars, const char *nodes, const char *outs,
    const char *flags, const char *want, const char *what)
{
	struct gp_graph *g = graph_of(vars, nodes, outs, NULL);
	struct gp_graph *r = g ? rewritten(g, flags) : NULL;
	struct gp_graph *none = g ? rewritten(g, "optimizer=None") : NULL;

	if (is_ops(r, want, what) && none != NULL) {
		struct res a, b;
		char why[256];

		if (run(r, g, 2, &a) && run(none, g, 2, &b))
			if (!ok(agree(&a, &b, a.f32 ? 1e-5 : 1e-12, why,
			    sizeof(why)), "%s: same results", what))
				diag("  %s", why);
		free(a.v);
		free(b.v);
	}
	gp_graph_free(r);
	gp_graph_free(none);
	gp_graph_free(g);
}

static void
test_merge(void)
{
	const char *only = "optimizer=None,optimizer_including=merge";

	expect(X("x") ", " X("y"),
	    "{'op': 'add', 'inputs': ['x', 'y'], 'outputs': ['a']},"
	    "{'op': 'add', 'inputs': ['x', 'y'], 'outputs': ['b']},"
	    "{'op': 'mul', 'inputs': ['a', 'b'], 'outputs': ['c']}",
	    "'c'", only, "Elemwise{add} Elemwise{mul}",
	    "merge: two identical adds");
	expect(X("x"),
	    "{'op': 'mul', 'inputs': ['x', 2], 'outputs': ['a']},"
	    "{'op': 'mul', 'inputs': ['x', 2], 'outputs': ['b']},"
	    "{'op': 'sub', 'inputs': ['a', 'b'], 'outputs': ['c']}",
	    "'c'", only, "Elemwise{mul} Elemwise{sub}",
	    "merge: equal constants, then the applies on them");
	expect(X("x"),
	    "{'op': 'sum', 'inputs': ['x'], 'outputs': ['a'], "
	    "'params': {'axis': 0}},"
	    "{'op': 'sum', 'inputs': ['x'], 'outputs': ['b']},"
	    "{'op': 'add', 'inputs': ['a', 'b'], 'outputs': ['c']}",
	    "'c'", only, "Sum Sum Elemwise{add}",
	    "merge: applies with different params stay apart");
}

static void
test_constant_folding(void)
{
	const char *only = "optimizer=None,"
	    "optimizer_including=constant_folding";
	size_t nr;
	const struct gp_rewriter *const *rs = gp_rewrite_all(&nr);
	bool *sel = gp_xcalloc(nr + 1, 1);
	struct gp_flags f;
	struct gp_err err;

	/* the tag merge names merge alone */
	gp_flags_init(&f);
	gp_flags_parse(&f, "optimizer_excluding=merge", "test", &err);
	gp_rewrite_select(&f, sel, &err);
	for (size_t i = 0; i < nr; i++)
		if (strcmp(rs[i]->name, "constant_folding") == 0)
			ok(sel[i], "optimizer_excluding=merge keeps "
			    "constant_folding");
	gp_flags_done(&f);
	free(sel);
	struct gp_graph *g, *r;

	expect(X("x"),
	    "{'op': 'add', 'inputs': [2, 3], 'outputs': ['k']},"
	    "{'op': 'exp', 'inputs': ['k'], 'outputs': ['e']},"
	    "{'op': 'mul', 'inputs': ['x', 'e'], 'outputs': ['c']}",
	    "'c'", only, "Elemwise{mul}",
	    "constant_folding: a constant subgraph becomes one constant");
	g = graph_of(X("x"),
	    "{'op': 'add', 'inputs': [2, 3], 'outputs': ['k']},"
	    "{'op': 'mul', 'inputs': ['x', 'k'], 'outputs': ['c']}",
	    "'c'", NULL);
	r = g ? rewritten(g, only) : NULL;
	if (r != NULL) {
		const struct gp_node *n = &r->nodes[0];
		const struct gp_var *k = &r->vars[n->in[1]];

		ok(k->kind == GP_VAR_CONSTANT &&
		    gp_tensor_get(&k->value, 0) == 5,
		    "constant_folding: 2 + 3 is the constant 5");
	} else
		ok(false, "constant_folding: graph");
	gp_graph_free(r);
	gp_graph_free(g);
	expect(X("x"),
	    "{'op': 'alloc', 'inputs': [1.5], 'outputs': ['big'], "
	    "'params': {'shape': [100, 100]}},"
	    "{'op': 'sum', 'inputs': ['big'], 'outputs': ['s']},"
	    "{'op': 'mul', 'inputs': ['x', 's'], 'outputs': ['c']}",
	    "'c'", only, "Alloc Sum Elemwise{mul}",
	    "constant_folding: no 80 KB constant from a 1-element one");
}

static void
test_canonicalize(void)
{
	const char *c = "optimizer=None,optimizer_including=canonicalize";

	expect(X("x"), "{'op': 'mul', 'inputs': ['x', 1], "
	    "'outputs': ['c']}", "'c'", c, "", "mul_one: x * 1 -> x");
	expect(X("x") ", " X("y"),
	    "{'op': 'mul', 'inputs': [1, 'x', 1, 'y'], 'outputs': ['c']}",
	    "'c'", c, "Elemwise{mul}", "mul_one: n-ary mul drops its ones");
	expect("'x': {'kind': 'input', 'dtype': 'float32', 'shape': [4], "
	    "'init': {'fill': 1}}, 'one': {'kind': 'constant', 'dtype': "
	    "'float64', 'shape': [], 'init': {'fill': 1}}",
	    "{'op': 'mul', 'inputs': ['x', 'one'], 'outputs': ['c']}",
	    "'c'", c, "Elemwise{mul}",
	    "mul_one: float32 x * float64 1 is float64, stays");
	expect(X("x"), "{'op': 'add', 'inputs': [0, 'x'], "
	    "'outputs': ['c']}", "'c'", c, "", "add_zero: 0 + x -> x");
	expect(X("x"), "{'op': 'sub', 'inputs': ['x', 0], "
	    "'outputs': ['c']}", "'c'", c, "", "sub_zero: x - 0 -> x");
	expect(X("x"), "{'op': 'sub', 'inputs': [0, 'x'], "
	    "'outputs': ['c']}", "'c'", c, "Elemwise{sub}",
	    "sub_zero: 0 - x stays");
	expect(X("x"), "{'op': 'true_div', 'inputs': ['x', 1], "
	    "'outputs': ['c']}", "'c'", c, "", "div_one: x / 1 -> x");
	expect(X("x"), "{'op': 'neg', 'inputs': ['x'], 'outputs': ['a']},"
	    "{'op': 'neg', 'inputs': ['a'], 'outputs': ['c']}", "'c'", c, "",
	    "neg_neg: -(-x) -> x");
	expect(XS("m", "[3, 4]", "float64", 1),
	    "{'op': 'transpose', 'inputs': ['m'], 'outputs': ['a']},"
	    "{'op': 'transpose', 'inputs': ['a'], 'outputs': ['b']},"
	    "{'op': 'exp', 'inputs': ['b'], 'outputs': ['c']}", "'c'", c,
	    "Elemwise{exp}", "useless_dimshuffle: transpose of a transpose");
	expect(XS("m", "[3, 4]", "float64", 1),
	    "{'op': 'dimshuffle', 'inputs': ['m'], 'outputs': ['a'], "
	    "'params': {'pattern': [0, 1]}},"
	    "{'op': 'exp', 'inputs': ['a'], 'outputs': ['c']}", "'c'", c,
	    "Elemwise{exp}", "useless_dimshuffle: identity pattern");
	expect(XS("m", "[3, 4]", "float64", 1),
	    "{'op': 'dimshuffle', 'inputs': ['m'], 'outputs': ['a'], "
	    "'params': {'pattern': [1, 'x', 0]}},"
	    "{'op': 'dimshuffle', 'inputs': ['a'], 'outputs': ['b'], "
	    "'params': {'pattern': [0, 2]}},"
	    "{'op': 'exp', 'inputs': ['b'], 'outputs': ['c']}", "'c'", c,
	    "Elemwise{exp} DimShuffle{1,0}",
	    "useless_dimshuffle: two dimshuffles become one");
	expect(XS("m", "[3, 4]", "float64", 1),
	    "{'op': 'reshape', 'inputs': ['m'], 'outputs': ['a'], "
	    "'params': {'shape': [3, -1]}},"
	    "{'op': 'exp', 'inputs': ['a'], 'outputs': ['c']}", "'c'", c,
	    "Elemwise{exp}", "useless_reshape: to its own shape");
	expect(XS("m", "[3, 4]", "float64", 1),
	    "{'op': 'reshape', 'inputs': ['m'], 'outputs': ['a'], "
	    "'params': {'shape': [12]}},"
	    "{'op': 'reshape', 'inputs': ['a'], 'outputs': ['b'], "
	    "'params': {'shape': [2, 6]}},"
	    "{'op': 'exp', 'inputs': ['b'], 'outputs': ['c']}", "'c'", c,
	    "Elemwise{exp} Reshape{2}",
	    "useless_reshape: two reshapes become one");
	expect(X("x"), "{'op': 'cast', 'inputs': ['x'], 'outputs': ['c'], "
	    "'params': {'dtype': 'float64'}}", "'c'", c, "",
	    "useless_cast: to its own dtype");
	expect(X("x"), "{'op': 'cast', 'inputs': ['x'], 'outputs': ['c'], "
	    "'params': {'dtype': 'float32'}}", "'c'", c,
	    "Elemwise{Cast{float32}}", "useless_cast: to another dtype stays");
	expect(X("x"), "{'op': 'identity', 'inputs': ['x'], "
	    "'outputs': ['c']}", "'c'", c, "",
	    "useless_identity: identity(x) -> x");
	expect(XS("m", "[3, 4]", "float64", 1),
	    "{'op': 'pad', 'inputs': ['m'], 'outputs': ['a'], "
	    "'params': {'pads': [0, 0, 0, 0], 'value': 5}},"
	    "{'op': 'exp', 'inputs': ['a'], 'outputs': ['c']}", "'c'", c,
	    "Elemwise{exp}", "useless_pad: pads of 0");
	/* the same shape, shifted: a pad and a crop stay */
	expect(XS("m", "[3, 4]", "float64", 1),
	    "{'op': 'pad', 'inputs': ['m'], 'outputs': ['a'], "
	    "'params': {'pads': [0, 1, 0, -1]}},"
	    "{'op': 'exp', 'inputs': ['a'], 'outputs': ['c']}", "'c'", c,
	    "Pad{constant=0, pads=[0, 1, 0, -1]} Elemwise{exp}",
	    "useless_pad: a pad and a crop of one column stay");
	expect(XS("m", "[3, 4]", "float64", 1),
	    "{'op': 'pad', 'inputs': ['m'], 'outputs': ['a'], "
	    "'params': {'pads': [0, 0, 0, 0], 'mode': 'reflect'}},"
	    "{'op': 'exp', 'inputs': ['a'], 'outputs': ['c']}", "'c'", c,
	    "Elemwise{exp}", "useless_pad: reflect by 0");
}

static void
test_stabilize(void)
{
	const char *s = "optimizer=None,optimizer_including=stabilize";

	expect(X("x"), "{'op': 'sigmoid', 'inputs': ['x'], 'outputs': ['a']},"
	    "{'op': 'log', 'inputs': ['a'], 'outputs': ['c']}", "'c'", s,
	    "Elemwise{neg} Elemwise{softplus} Elemwise{neg}",
	    "log_sigmoid: log(sigmoid(x)) -> -softplus(-x)");
	expect(X("x"), "{'op': 'sigmoid', 'inputs': ['x'], 'outputs': ['a']},"
	    "{'op': 'sub', 'inputs': [1, 'a'], 'outputs': ['b']},"
	    "{'op': 'log', 'inputs': ['b'], 'outputs': ['c']}", "'c'", s,
	    "Elemwise{softplus} Elemwise{neg}",
	    "log1m_sigmoid: log(1 - sigmoid(x)) -> -softplus(x)");
	expect(XS("m", "[3, 5]", "float64", 2),
	    "{'op': 'softmax', 'inputs': ['m'], 'outputs': ['a']},"
	    "{'op': 'log', 'inputs': ['a'], 'outputs': ['c']}", "'c'", s,
	    "LogSoftmax", "log_softmax: log(softmax(x)) -> log_softmax(x)");
	expect(X("x"), "{'op': 'add', 'inputs': [1, 'x'], 'outputs': ['a']},"
	    "{'op': 'log', 'inputs': ['a'], 'outputs': ['c']}", "'c'", s,
	    "Elemwise{log1p}", "log1p: log(1 + x) -> log1p(x)");
	expect("'i': {'kind': 'input', 'dtype': 'int8', 'shape': [4], "
	    "'init': {'fill': 127}}",
	    "{'op': 'add', 'inputs': ['i', 1], 'outputs': ['a']},"
	    "{'op': 'log', 'inputs': ['a'], 'outputs': ['c']}", "'c'", s,
	    "Elemwise{add} Elemwise{log}",
	    "log1p: not for integers (int8 127 + 1 wraps)");
}

static void
test_specialize(void)
{
	const char *s = "optimizer=None,optimizer_including=specialize";
	const char *si = "optimizer=None,"
	    "optimizer_including=specialize:inplace";

	expect(X("x"), "{'op': 'pow', 'inputs': ['x', 2], 'outputs': ['c']}",
	    "'c'", s, "Elemwise{sqr}", "pow_specialize: x ** 2 -> sqr(x)");
	expect(X("x"), "{'op': 'pow', 'inputs': ['x', 0.5], "
	    "'outputs': ['c']}", "'c'", s, "Elemwise{sqrt}",
	    "pow_specialize: x ** 0.5 -> sqrt(x)");
	expect(X("x"), "{'op': 'pow', 'inputs': ['x', 3], 'outputs': ['c']}",
	    "'c'", s, "Elemwise{pow}", "pow_specialize: x ** 3 stays");
	expect(XS("a", "[5, 3]", "float64", 1) ", "
	    XS("b", "[3, 4]", "float64", 2),
	    "{'op': 'dot', 'inputs': ['a', 'b'], 'outputs': ['c']}", "'c'",
	    s, "Dot22", "dot_to_blas: matrix . matrix -> dot22");
	expect(XS("a", "[5, 3]", "float64", 1) ", "
	    XS("v", "[3]", "float64", 2),
	    "{'op': 'dot', 'inputs': ['a', 'v'], 'outputs': ['c']}", "'c'",
	    s, "Alloc Gemv{no_inplace}",
	    "dot_to_blas: matrix . vector -> gemv");
	expect(XS("a", "[5, 3]", "float64", 1) ", "
	    XS("v", "[5]", "float64", 2),
	    "{'op': 'dot', 'inputs': ['v', 'a'], 'outputs': ['c']}", "'c'",
	    si, "DimShuffle{1,0} Alloc Gemv{inplace}[(0, 0)]",
	    "dot_to_blas: vector . matrix -> gemv of the transpose, in place");
	expect(XS("a", "[5, 1]", "float64", 1) ", "
	    XS("b", "[1, 4]", "float64", 2),
	    "{'op': 'dot', 'inputs': ['a', 'b'], 'outputs': ['c']}", "'c'",
	    s, "Alloc DimShuffle{0} DimShuffle{1} Ger{non-destructive}",
	    "dot_to_blas: column . row -> ger");
	expect(XS("a", "[5, 3]", "float32", 1) ", "
	    XS("b", "[3, 4]", "float64", 2),
	    "{'op': 'dot', 'inputs': ['a', 'b'], 'outputs': ['c']}", "'c'",
	    s, "dot", "dot_to_blas: mixed dtypes stay a dot");
	expect(XS("a", "[5, 3]", "float64", 1) ", "
	    XS("b", "[3, 4]", "float64", 2) ", "
	    XS("z", "[5, 4]", "float64", 3),
	    "{'op': 'dot', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'add', 'inputs': ['z', 'd'], 'outputs': ['c']}", "'c'",
	    s, "Gemm{no_inplace}", "gemm: z + dot(a, b)");
	expect(XS("a", "[5, 3]", "float64", 1) ", "
	    XS("b", "[3, 4]", "float64", 2) ", "
	    XS("z", "[5, 4]", "float64", 3),
	    "{'op': 'dot', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'mul', 'inputs': [0.1, 'd'], 'outputs': ['s']},"
	    "{'op': 'sub', 'inputs': ['z', 's'], 'outputs': ['c']}", "'c'",
	    s, "Gemm{no_inplace}", "gemm: z - 0.1 dot(a, b)");
	expect(XS("a", "[5, 3]", "float64", 1) ", "
	    XS("b", "[3, 4]", "float64", 2) ", "
	    XS("z", "[5, 4]", "float64", 3),
	    "{'op': 'exp', 'inputs': ['z'], 'outputs': ['e']},"
	    "{'op': 'dot', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'mul', 'inputs': [2, 'e'], 'outputs': ['s']},"
	    "{'op': 'sub', 'inputs': ['d', 's'], 'outputs': ['c']}", "'c'",
	    si, "Elemwise{exp} Gemm{inplace}[(0, 0)]",
	    "gemm: dot(a, b) - 2 exp(z), overwriting exp(z)");
	expect(XS("a", "[5, 3]", "float64", 1) ", "
	    XS("b", "[3, 4]", "float64", 2) ", "
	    XS("z", "[4]", "float64", 3),
	    "{'op': 'dot', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'add', 'inputs': ['d', 'z'], 'outputs': ['c']}", "'c'",
	    s, "MatMul{bias}",
	    "gemm: a broadcast bias stays an add, which matmul_bias takes");
	expect(XS("a", "[5, 3]", "float64", 1) ", "
	    XS("v", "[3]", "float64", 2) ", "
	    XS("y", "[5]", "float64", 3),
	    "{'op': 'dot', 'inputs': ['a', 'v'], 'outputs': ['d']},"
	    "{'op': 'add', 'inputs': ['d', 'y'], 'outputs': ['c']}", "'c'",
	    s, "Gemv{no_inplace}", "gemm: dot(a, v) + y -> gemv with beta 1");
}

/* Rewrite with flags, then the ops must be want and every value within
 * tol of optimizer=None's (0: the same bits). */
static void
expect_tol(const char *vars, const char *nodes, const char *outs,
    const char *flags, const char *want, double tol, const char *what)
{
	struct gp_graph *g = graph_of(vars, nodes, outs, NULL);
	struct gp_graph *r = g ? rewritten(g, flags) : NULL;
	struct gp_graph *none = g ? rewritten(g, "optimizer=None") : NULL;

	if (is_ops(r, want, what) && none != NULL) {
		struct res a, b;
		char why[256];

		if (run(r, g, 1, &a) && run(none, g, 1, &b))
			if (!ok(agree(&a, &b, tol, why, sizeof(why)), tol == 0 ?
			    "%s: the same bits" : "%s: the same values within "
			    "%g", what, tol))
				diag("  %s", why);
		free(a.v);
		free(b.v);
	}
	gp_graph_free(r);
	gp_graph_free(none);
	gp_graph_free(g);
}

/* The same with the same bits (the matmul rewrites are exact). */
static void
expect_exact(const char *vars, const char *nodes, const char *outs,
    const char *flags, const char *want, const char *what)
{
	expect_tol(vars, nodes, outs, flags, want, 0, what);
}

static void
test_matmul(void)
{
	const char *s = "optimizer=None,optimizer_including=specialize";
	/* (excluding comes before including: the others, by name) */
	const char *nb = "optimizer=None,optimizer_including=matmul_scale";
	const char *ns = "optimizer=None,optimizer_including=matmul_bias";
#define MM_AB XS("a", "[3, 5, 40]", "float32", 1) ", "			\
	    XS("b", "[40, 6]", "float32", 2)

	expect_exact(MM_AB ", " XS("z", "[6]", "float32", 3),
	    "{'op': 'matmul', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'add', 'inputs': ['d', 'z'], 'outputs': ['c']}", "'c'",
	    s, "MatMul{bias}", "matmul_bias: matmul(a, b) + z");
	expect_exact(MM_AB ", " XS("z", "[3, 1, 6]", "float32", 3),
	    "{'op': 'matmul', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'add', 'inputs': ['z', 'd'], 'outputs': ['c']}", "'c'",
	    s, "MatMul{bias}", "matmul_bias: z (3, 1, 6) + matmul(a, b)");
	expect_exact(MM_AB ", " XS("z", "[6]", "float32", 3),
	    "{'op': 'matmul', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'add', 'inputs': ['d', 'z'], 'outputs': ['c']}", "'c'",
	    nb, "MatMul Elemwise{add}", "matmul_bias not selected: the "
	    "add stays");
	expect_exact(MM_AB ", " XS("z", "[2, 3, 5, 6]", "float32", 3),
	    "{'op': 'matmul', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'add', 'inputs': ['d', 'z'], 'outputs': ['c']}", "'c'",
	    s, "MatMul Elemwise{add}", "matmul_bias: a bias that broadcasts "
	    "the product stays an add");
	expect_exact(MM_AB ", " XS("z", "[6]", "float64", 3),
	    "{'op': 'matmul', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'add', 'inputs': ['d', 'z'], 'outputs': ['c']}", "'c'",
	    s, "MatMul Elemwise{add}", "matmul_bias: a float64 bias on a "
	    "float32 product stays an add");
	expect_exact(MM_AB ", " XS("z", "[6]", "float32", 3),
	    "{'op': 'matmul', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'add', 'inputs': ['d', 'z'], 'outputs': ['e']},"
	    "{'op': 'tanh', 'inputs': ['e'], 'outputs': ['c']}", "'c'",
	    s, "MatMul Elemwise{add} Elemwise{tanh}", "matmul_bias: a sum "
	    "read only by an elementwise apply stays an add (fusion takes "
	    "it)");
	expect_exact(MM_AB ", " XS("z", "[6]", "float32", 3),
	    "{'op': 'matmul', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'add', 'inputs': ['d', 'z'], 'outputs': ['e']},"
	    "{'op': 'tanh', 'inputs': ['e'], 'outputs': ['c']}", "'c', 'e'",
	    s, "Elemwise{tanh} MatMul{bias}", "matmul_bias: a sum that is "
	    "also an output fuses");
	expect_exact(MM_AB ", " XS("z", "[6]", "float32", 3),
	    "{'op': 'matmul', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'add', 'inputs': ['d', 'z'], 'outputs': ['c']}",
	    "'c', 'd'", s, "MatMul Elemwise{add}", "matmul_bias: a product "
	    "that is also an output stays");
	expect_exact(MM_AB,
	    "{'op': 'true_div', 'inputs': ['a', 8], 'outputs': ['q']},"
	    "{'op': 'matmul', 'inputs': ['q', 'b'], 'outputs': ['c']}", "'c'",
	    s, "MatMul{alpha=0.125}", "matmul_scale: matmul(a / 8, b)");
	expect_exact(MM_AB,
	    "{'op': 'matmul', 'inputs': ['a', 'b'], 'outputs': ['d']},"
	    "{'op': 'mul', 'inputs': [0.25, 'd'], 'outputs': ['c']}", "'c'",
	    s, "MatMul{alpha=0.25}", "matmul_scale: 0.25 matmul(a, b)");
	expect_exact(MM_AB ", " XS("z", "[6]", "float32", 3),
	    "{'op': 'mul', 'inputs': ['b', 2], 'outputs': ['q']},"
	    "{'op': 'matmul', 'inputs': ['a', 'q'], 'outputs': ['d']},"
	    "{'op': 'add', 'inputs': ['d', 'z'], 'outputs': ['c']}", "'c'",
	    s, "MatMul{bias, alpha=2}", "matmul_scale and matmul_bias: "
	    "matmul(a, b * 2) + z");
	expect_exact(MM_AB,
	    "{'op': 'true_div', 'inputs': ['a', 8], 'outputs': ['q']},"
	    "{'op': 'matmul', 'inputs': ['q', 'b'], 'outputs': ['c']}", "'c'",
	    ns, "Elemwise{true_div} MatMul", "matmul_scale not selected: "
	    "the division stays");
	expect_exact(MM_AB,
	    "{'op': 'true_div', 'inputs': ['a', 3], 'outputs': ['q']},"
	    "{'op': 'matmul', 'inputs': ['q', 'b'], 'outputs': ['c']}", "'c'",
	    s, "Elemwise{true_div} MatMul", "matmul_scale: a scale that is "
	    "not a power of two stays");
	expect_exact(MM_AB,
	    "{'op': 'true_div', 'inputs': [8, 'a'], 'outputs': ['q']},"
	    "{'op': 'matmul', 'inputs': ['q', 'b'], 'outputs': ['c']}", "'c'",
	    s, "Elemwise{true_div} MatMul", "matmul_scale: 8 / a stays");
#undef MM_AB
}

/*
 * softmax_scale: the attention's scale goes into the softmax.  The mul
 * form is exact (the kernel scales in the dtype as the mul did); a
 * division by 3 and a scale moved off a matmul's operand are within
 * float32 tolerance (1e-6 on values of at most 1: scores of a few units,
 * each a few ulp apart).
 */
static void
test_softmax_scale(void)
{
	const char *s = "optimizer=None,optimizer_including=specialize";
	/* (excluding comes before including: the others, by name) */
	const char *ns = "optimizer=None,optimizer_including=matmul_scale:"
	    "matmul_bias";
#define SM_AB XS("a", "[3, 5, 40]", "float32", 1) ", "			\
	    XS("b", "[3, 40, 6]", "float32", 2)

	expect_exact(SM_AB,
	    "{'op': 'mul', 'inputs': ['a', 3], 'outputs': ['q']},"
	    "{'op': 'softmax', 'inputs': ['q'], 'outputs': ['c']}", "'c'",
	    s, "Softmax{scale=3}", "softmax_scale: softmax(a * 3)");
	expect_exact(SM_AB,
	    "{'op': 'mul', 'inputs': [0.3, 'a'], 'outputs': ['q']},"
	    "{'op': 'log_softmax', 'inputs': ['q'], 'outputs': ['c']}", "'c'",
	    s, "LogSoftmax{scale=0.3}", "softmax_scale: log_softmax(0.3 * a)");
	expect_exact(SM_AB,
	    "{'op': 'true_div', 'inputs': ['a', 4], 'outputs': ['q']},"
	    "{'op': 'softmax', 'inputs': ['q'], 'outputs': ['c']}", "'c'",
	    s, "Softmax{scale=0.25}", "softmax_scale: softmax(a / 4)");
	expect_tol(SM_AB,
	    "{'op': 'true_div', 'inputs': ['a', 3], 'outputs': ['q']},"
	    "{'op': 'softmax', 'inputs': ['q'], 'outputs': ['c']}", "'c'",
	    s, "Softmax{scale=0.333333}", 1e-6,
	    "softmax_scale: softmax(a / 3)");
	expect_tol(SM_AB,
	    "{'op': 'true_div', 'inputs': ['a', 5.656854249492381], "
	    "'outputs': ['q']},"
	    "{'op': 'matmul', 'inputs': ['q', 'b'], 'outputs': ['d']},"
	    "{'op': 'softmax', 'inputs': ['d'], 'outputs': ['c']}", "'c'",
	    s, "MatMul Softmax{scale=0.176777}", 1e-6,
	    "softmax_scale: softmax(matmul(a / sqrt(32), b)), torch 1.13's "
	    "attention");
	expect_tol(SM_AB,
	    "{'op': 'mul', 'inputs': ['b', 0.3], 'outputs': ['q']},"
	    "{'op': 'matmul', 'inputs': ['a', 'q'], 'outputs': ['d']},"
	    "{'op': 'softmax', 'inputs': ['d'], 'outputs': ['c']}", "'c'",
	    s, "MatMul Softmax{scale=0.3}", 1e-6,
	    "softmax_scale: softmax(matmul(a, b * 0.3))");
	expect_exact(SM_AB,
	    "{'op': 'true_div', 'inputs': ['a', 8], 'outputs': ['q']},"
	    "{'op': 'matmul', 'inputs': ['q', 'b'], 'outputs': ['d']},"
	    "{'op': 'softmax', 'inputs': ['d'], 'outputs': ['c']}", "'c'",
	    s, "Softmax MatMul{alpha=0.125}", "softmax_scale: a power of two "
	    "goes to the matmul's alpha first (matmul_scale, exact)");
	expect_exact(SM_AB,
	    "{'op': 'true_div', 'inputs': ['a', 3], 'outputs': ['q']},"
	    "{'op': 'softmax', 'inputs': ['q'], 'outputs': ['c']}", "'c'",
	    ns, "Elemwise{true_div} Softmax", "softmax_scale not selected: "
	    "the division stays");
	expect_exact(SM_AB,
	    "{'op': 'mul', 'inputs': ['a', 3], 'outputs': ['q']},"
	    "{'op': 'softmax', 'inputs': ['q'], 'outputs': ['c']}",
	    "'c', 'q'", s, "Elemwise{mul} Softmax", "softmax_scale: scores "
	    "that are also an output stay");
	expect_exact(SM_AB,
	    "{'op': 'true_div', 'inputs': ['a', 3], 'outputs': ['q']},"
	    "{'op': 'matmul', 'inputs': ['q', 'b'], 'outputs': ['d']},"
	    "{'op': 'softmax', 'inputs': ['d'], 'outputs': ['c']}",
	    "'c', 'd'", s, "Elemwise{true_div} MatMul Softmax",
	    "softmax_scale: a product that is also an output stays");
	expect_exact(SM_AB,
	    "{'op': 'mul', 'inputs': ['a', 'a'], 'outputs': ['q']},"
	    "{'op': 'softmax', 'inputs': ['q'], 'outputs': ['c']}", "'c'",
	    s, "Elemwise{mul} Softmax", "softmax_scale: a scale that is not "
	    "a constant stays");
	expect_exact(SM_AB,
	    "{'op': 'mul', 'inputs': ['a', 0], 'outputs': ['q']},"
	    "{'op': 'softmax', 'inputs': ['q'], 'outputs': ['c']}", "'c'",
	    s, "Elemwise{mul} Softmax", "softmax_scale: a scale of 0 stays");
#undef SM_AB
}

/*
 * The committed transformer (data/models/transformer, torch's export):
 * matmul_bias and matmul_scale fire on it (in_proj's bias, read by the
 * head slices; the feed forward's biases, read by a Relu and the residual
 * add, are left to fusion; the scale 1/sqrt(16) = 0.25 of Q; without
 * matmul_scale, softmax_scale takes it into the softmax), and its output
 * has the same bits with each of them on and off, the other rewrites on.
 */
static void
test_transformer_model(void)
{
	char *path = gp_xasprintf("%s/data/models/transformer/model.onnx",
	    top_srcdir);
	char *in = gp_xasprintf("x=%s/data/models/transformer/test_data_set_0/"
	    "input_0.pb", top_srcdir);
	struct gp_onnx_load_opts lo = {.limit_bytes = UINT64_C(1) << 32,
	    .inputs = in};
	struct gp_err err;
	struct gp_graph *g = gp_onnx_load(path, &lo, &err), *r;
	static const char *const off[] = {"optimizer_excluding=matmul_bias",
		"optimizer_excluding=matmul_scale",
		"optimizer_excluding=matmul_bias:matmul_scale"};
	struct res ref;

	if (!ok(g != NULL, "transformer: load %s", path)) {
		diag("  %s", err.msg);
		goto out;
	}
	r = rewritten(g, "");
	if (r != NULL) {
		char *ops = ops_of(r);
		int bias = 0;

		for (const char *p = ops; (p = strstr(p, "MatMul{bias}"));
		    p++)
			bias++;
		ok(bias == 1 && strstr(ops, "MatMul{alpha=0.25}") != NULL,
		    "transformer: one MatMul{bias} and one "
		    "MatMul{alpha=0.25} (%d)", bias);
		free(ops);
	}
	if (r == NULL || !run(r, g, 1, &ref)) {
		ok(false, "transformer: runs with the default rewrites");
		gp_graph_free(r);
		gp_graph_free(g);
		goto out;
	}
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		struct gp_graph *o = rewritten(g, off[i]);
		struct res b;
		char why[256] = "";

		if (o != NULL && i == 1) {
			char *ops = ops_of(o);

			ok(strstr(ops, "Softmax{scale=0.25}") != NULL,
			    "transformer: without matmul_scale, softmax_scale "
			    "takes the scale 0.25 of Q (exact: a power of "
			    "two)");
			free(ops);
		}
		if (o != NULL && run(o, g, 1, &b)) {
			if (!ok(agree(&b, &ref, 0, why, sizeof(why)),
			    "transformer: %s gives the same bits", off[i]))
				diag("  %s", why);
			free(b.v);
		} else
			ok(false, "transformer: runs with %s", off[i]);
		gp_graph_free(o);
	}
	free(ref.v);
	gp_graph_free(r);
	gp_graph_free(g);
out:
	free(path);
	free(in);
}

static void
test_fusion(void)
{
	struct gp_graph *g;
	char path[4096];
	struct gp_err err;

	snprintf(path, sizeof(path), "%s/data/graphs/chain.json", top_srcdir);
	g = gp_graph_load(path, NULL, &err);
	if (g != NULL) {
		struct gp_graph *a = rewritten(g, "optimizer_excluding=fusion");
		struct gp_graph *b = rewritten(g, "jit=False");

		ok(a != NULL && n_nodes(a) == 10, "chain.json: 10 applies "
		    "without fusion");
		ok(b != NULL && n_nodes(b) == 1 && n_op(b, "composite") == 1,
		    "chain.json: 1 Composite with fusion");
		ok(b != NULL && b->nodes[0].impl == GP_IMPL_INTERP,
		    "chain.json: jit=False interprets it");
		/* a clone of a rewritten graph re-prepares its Composite
		 * from the params, JIT included */
		{
			struct gp_graph *r = rewritten(g, "");
			struct gp_graph *c = r ? gp_graph_clone(r) : NULL;
			struct res x, y;
			char why[256];

			ok(c != NULL && n_op(c, "composite") == 1 &&
			    c->nodes[0].impl == r->nodes[0].impl,
			    "chain.json: a clone keeps the Composite (%s)",
			    c ? gp_impl_names[c->nodes[0].impl] : "-");
			if (c != NULL && run(r, g, 1, &x) && run(c, g, 1, &y)) {
				ok(agree(&x, &y, 0, why, sizeof(why)),
				    "chain.json: the clone computes the same");
				free(x.v);
				free(y.v);
			}
			gp_graph_free(c);
			gp_graph_free(r);
		}
		gp_graph_free(a);
		gp_graph_free(b);
		gp_graph_free(g);
	} else
		ok(false, "load %s: %s", path, err.msg);

	expect(X("x") ", " X("y") ", " X("z"),
	    "{'op': 'add', 'inputs': ['x', 'y'], 'outputs': ['xy']},"
	    "{'op': 'add', 'inputs': ['xy', 'z'], 'outputs': ['xyz']},"
	    "{'op': 'mul', 'inputs': ['xyz', 2], 'outputs': ['out']}",
	    "'out'", "optimizer_excluding=inplace",
	    "Elemwise{Composite{(((i0 + i1) + i2) * 2)}}",
	    "fusion: add3 is one Composite");
	expect(X("x"),
	    "{'op': 'exp', 'inputs': ['x'], 'outputs': ['e']},"
	    "{'op': 'mul', 'inputs': ['e', 'e'], 'outputs': ['c']}",
	    "'c'", "optimizer_excluding=inplace",
	    "Elemwise{Composite{(exp(i0) * exp(i0))}}",
	    "fusion: a value read twice inside the group");
	expect(X("x"),
	    "{'op': 'exp', 'inputs': ['x'], 'outputs': ['e']},"
	    "{'op': 'mul', 'inputs': ['e', 'e'], 'outputs': ['c']}",
	    "'c', 'e'", "optimizer_excluding=inplace",
	    "Elemwise{exp} Elemwise{mul}",
	    "fusion: a function output is not fused away");
	expect(X("x") ", " XS("m", "[3, 4]", "float64", 2),
	    "{'op': 'exp', 'inputs': ['x'], 'outputs': ['e']},"
	    "{'op': 'neg', 'inputs': ['e'], 'outputs': ['n']},"
	    "{'op': 'sum', 'inputs': ['m'], 'outputs': ['s'], "
	    "'params': {'axis': 0}},"
	    "{'op': 'add', 'inputs': ['n', 's'], 'outputs': ['a']},"
	    "{'op': 'add', 'inputs': ['a', 'm'], 'outputs': ['c']}",
	    "'c'", "optimizer_excluding=inplace",
	    "Sum{axis=[0]} Elemwise{add} "
	    "Elemwise{Composite{((-exp(i0)) + i1)}}",
	    "fusion: groups end where the output shape changes");
	expect("'m': {'kind': 'input', 'dtype': 'int32', 'shape': [3], "
	    "'init': {'integers': [-3, 4], 'seed': 1}}, 'y': {'kind': "
	    "'input', 'dtype': 'int32', 'shape': [3], 'init': {'integers': "
	    "[-3, 4], 'seed': 2}}",
	    "{'op': 'add', 'inputs': ['m', 'y'], 'outputs': ['a']},"
	    "{'op': 'mul', 'inputs': ['a', 'y'], 'outputs': ['c']}",
	    "'c'", "optimizer_excluding=inplace",
	    "Elemwise{add} Elemwise{mul}",
	    "fusion: integer arithmetic is not fused");
	/* 40 inputs: at most 32 per Composite */
	{
		struct gp_buf vars = {0}, nodes = {0};
		struct gp_graph *h, *r;

		for (int i = 0; i < 40; i++)
			gp_buf_printf(&vars, "%s'x%d': {'kind': 'input', "
			    "'dtype': 'float64', 'shape': [4], 'init': "
			    "{'fill': %d}}", i ? ", " : "", i, i);
		gp_buf_printf(&nodes, "{'op': 'add', 'inputs': ['x0', 'x1'], "
		    "'outputs': ['s1']}");
		for (int i = 2; i < 40; i++)
			gp_buf_printf(&nodes, ", {'op': 'add', 'inputs': "
			    "['s%d', 'x%d'], 'outputs': ['s%d']}", i - 1, i, i);
		h = graph_of(gp_buf_str(&vars), gp_buf_str(&nodes), "'s39'",
		    NULL);
		r = h ? rewritten(h, "jit=False") : NULL;
		ok(r != NULL && n_op(r, "composite") == 2 && n_nodes(r) == 2,
		    "fusion: 40 inputs make two Composites");
		for (size_t i = 0; r != NULL && i < r->n_nodes; i++)
			ok(r->nodes[i].n_in <= GP_COMPOSITE_MAX_IN,
			    "fusion: Composite %zu has %d inputs", i,
			    r->nodes[i].n_in);
		gp_graph_free(r);
		gp_graph_free(h);
		gp_buf_free(&vars);
		gp_buf_free(&nodes);
	}
}

static void	check_loaded(struct gp_graph *g, const char *name);

/* The activations and math ops fuse like the others: torch's Erf-based
 * Gelu (x * 0.5 * (1 + erf(x / sqrt(2))), as its ONNX export writes it)
 * becomes one Composite; every fusible new op in one chain, in float64
 * and float32, gives optimizer=None's results under every rewrite
 * configuration, and the JIT agrees with the interpreter. */
static void
test_fusion_math(void)
{
	static const char *const chain =
	    "{'op': 'erf', 'inputs': ['x'], 'outputs': ['a1']},"
	    "{'op': 'gelu', 'inputs': ['a1'], 'outputs': ['a2']},"
	    "{'op': 'gelu_tanh', 'inputs': ['a2'], 'outputs': ['a3']},"
	    "{'op': 'mish', 'inputs': ['a3'], 'outputs': ['a4']},"
	    "{'op': 'tan', 'inputs': ['a4'], 'outputs': ['a5']},"
	    "{'op': 'atan', 'inputs': ['a5'], 'outputs': ['a6']},"
	    "{'op': 'asin', 'inputs': ['a6'], 'outputs': ['a7']},"
	    "{'op': 'sinh', 'inputs': ['a7'], 'outputs': ['a8']},"
	    "{'op': 'asinh', 'inputs': ['a8'], 'outputs': ['a9']},"
	    "{'op': 'cosh', 'inputs': ['a9'], 'outputs': ['b1']},"
	    "{'op': 'acosh', 'inputs': ['b1'], 'outputs': ['b2']},"
	    "{'op': 'mul', 'inputs': ['b2', 0.5], 'outputs': ['b3']},"
	    "{'op': 'atanh', 'inputs': ['b3'], 'outputs': ['b4']},"
	    "{'op': 'acos', 'inputs': ['b3'], 'outputs': ['b5']},"
	    "{'op': 'add', 'inputs': ['b4', 'b5'], 'outputs': ['b6']},"
	    "{'op': 'mul', 'inputs': ['b6', 3.3], 'outputs': ['b7']},"
	    "{'op': 'floor', 'inputs': ['b7'], 'outputs': ['c1']},"
	    "{'op': 'ceil', 'inputs': ['b7'], 'outputs': ['c2']},"
	    "{'op': 'round', 'inputs': ['b7'], 'outputs': ['c3']},"
	    "{'op': 'add', 'inputs': ['c1', 'c2', 'c3'], 'outputs': ['c4']},"
	    "{'op': 'celu', 'inputs': ['x', 0.7], 'outputs': ['d1']},"
	    "{'op': 'shrink', 'inputs': ['d1', 0.25, 0.125], "
	    "'outputs': ['d2']},"
	    "{'op': 'fmod', 'inputs': ['d2', 0.375], 'outputs': ['d3']},"
	    "{'op': 'add', 'inputs': ['c4', 'd3'], 'outputs': ['d4']},"
	    "{'op': 'isnan', 'inputs': ['d4'], 'outputs': ['e1']},"
	    "{'op': 'isinf', 'inputs': ['d4'], 'outputs': ['e2']},"
	    "{'op': 'switch', 'inputs': ['e1', 0, 'd4'], 'outputs': ['e3']},"
	    "{'op': 'switch', 'inputs': ['e2', 1, 'e3'], 'outputs': ['out']}";
	struct gp_graph *g, *r;

	expect(XS("x", "[64]", "float32", 3),
	    "{'op': 'true_div', 'inputs': ['x', 1.4142135623730951], "
	    "'outputs': ['a']},"
	    "{'op': 'erf', 'inputs': ['a'], 'outputs': ['b']},"
	    "{'op': 'add', 'inputs': ['b', 1], 'outputs': ['c']},"
	    "{'op': 'mul', 'inputs': ['x', 0.5], 'outputs': ['h']},"
	    "{'op': 'mul', 'inputs': ['h', 'c'], 'outputs': ['out']}",
	    "'out'", "optimizer_excluding=inplace",
	    "Elemwise{Composite{((i0 * 0.5) * (erf((i0 / 1.4142135)) + 1))}}",
	    "fusion: torch's Erf-based gelu is one Composite");
	for (int f = 0; f < 2; f++) {
		const char *dt = f ? "float32" : "float64";
		char *vars = gp_xasprintf("'x': {'kind': 'input', 'dtype': "
		    "'%s', 'shape': [5, 7], 'init': {'uniform': [-2, 2], "
		    "'seed': 5}}", dt);
		char *name = gp_xasprintf("math ops %s", dt);

		g = graph_of(vars, chain, "'out'", NULL);
		r = g != NULL ? rewritten(g, "optimizer_excluding=inplace") :
		    NULL;
		ok(r != NULL && n_op(r, "composite") == 1 && n_nodes(r) == 1,
		    "fusion: %s: the chain of %d ops is one Composite", name,
		    28);
		gp_graph_free(r);
		if (g != NULL)
			check_loaded(g, name);
		free(vars);
		free(name);
	}
	/* bool operands in memory (a switch's condition read from an input,
	 * a compare's result written out), which the JIT's loops read and
	 * write as bytes: 1517 elements, whole vectors and a tail; then the
	 * condition a transposed view, gathered block by block */
	for (int t = 0; t < 2; t++) {
		const char *vars = "'x': {'kind': 'input', 'dtype': 'float32', "
		    "'shape': [37, 41], 'init': {'uniform': [-2, 2], 'seed': "
		    "6}}, 'c0': {'kind': 'input', 'dtype': 'bool', 'shape': "
		    "[41, 37], 'init': {'integers': [0, 2], 'seed': 7}}";

		g = graph_of(vars, t ? "{'op': 'transpose', 'inputs': ['c0'], "
		    "'outputs': ['c'], 'params': {'axes': [1, 0]}},"
		    "{'op': 'mul', 'inputs': ['x', 0.01], 'outputs': ['m']},"
		    "{'op': 'switch', 'inputs': ['c', 'm', 'x'], "
		    "'outputs': ['y']},"
		    "{'op': 'gt', 'inputs': ['x', 0.5], 'outputs': ['g']},"
		    "{'op': 'and', 'inputs': ['g', 'c'], 'outputs': ['z']}" :
		    "{'op': 'reshape', 'inputs': ['c0'], 'outputs': ['c'], "
		    "'params': {'shape': [37, 41]}},"
		    "{'op': 'mul', 'inputs': ['x', 0.01], 'outputs': ['m']},"
		    "{'op': 'switch', 'inputs': ['c', 'm', 'x'], "
		    "'outputs': ['y']},"
		    "{'op': 'gt', 'inputs': ['x', 0.5], 'outputs': ['g']},"
		    "{'op': 'and', 'inputs': ['g', 'c'], 'outputs': ['z']}",
		    "'y', 'z'", NULL);
		if (g != NULL)
			check_loaded(g, t ? "bool operands, the condition "
			    "transposed" : "bool operands");
		else
			ok(false, "bool operands: the graph loads");
	}
}

static void
test_inplace(void)
{
	const char *ni = "optimizer_excluding=fusion";

	expect(X("x") ", " X("y") ", " X("z"),
	    "{'op': 'add', 'inputs': ['x', 'y'], 'outputs': ['xy']},"
	    "{'op': 'add', 'inputs': ['xy', 'z'], 'outputs': ['xyz']},"
	    "{'op': 'mul', 'inputs': ['xyz', 2], 'outputs': ['out']}",
	    "'out'", ni,
	    "Elemwise{add} Elemwise{add}[(0, 0)] Elemwise{mul}[(0, 0)]",
	    "inplace: never an input; temporaries read once");
	expect(X("x"),
	    "{'op': 'exp', 'inputs': ['x'], 'outputs': ['e']},"
	    "{'op': 'neg', 'inputs': ['e'], 'outputs': ['n']},"
	    "{'op': 'add', 'inputs': ['e', 'n'], 'outputs': ['c']}",
	    "'c'", ni, "Elemwise{exp} Elemwise{neg} Elemwise{add}[(0, 1)]",
	    "inplace: a temporary read twice is kept (add takes n)");
	expect(X("x"),
	    "{'op': 'exp', 'inputs': ['x'], 'outputs': ['e']},"
	    "{'op': 'neg', 'inputs': ['e'], 'outputs': ['c']}",
	    "'c', 'e'", ni, "Elemwise{exp} Elemwise{neg}",
	    "inplace: never a function output");
	expect(XS("m", "[3, 4]", "float64", 1),
	    "{'op': 'exp', 'inputs': ['m'], 'outputs': ['e']},"
	    "{'op': 'transpose', 'inputs': ['e'], 'outputs': ['t']},"
	    "{'op': 'neg', 'inputs': ['t'], 'outputs': ['c']}",
	    "'c'", ni, "Elemwise{exp} DimShuffle{1,0} Elemwise{neg}[(0, 0)]",
	    "inplace: through a view of a temporary read once");
	expect(XS("m", "[3, 4]", "float64", 1),
	    "{'op': 'exp', 'inputs': ['m'], 'outputs': ['e']},"
	    "{'op': 'transpose', 'inputs': ['e'], 'outputs': ['t']},"
	    "{'op': 'neg', 'inputs': ['t'], 'outputs': ['n']},"
	    "{'op': 'sum', 'inputs': ['e'], 'outputs': ['s']},"
	    "{'op': 'add', 'inputs': ['n', 's'], 'outputs': ['c']}",
	    "'c'", ni, "Elemwise{exp} DimShuffle{1,0} Elemwise{neg} "
	    "Sum Elemwise{add}[(0, 0)]",
	    "inplace: not through a view when the viewed value is read "
	    "elsewhere");
	expect(XS("m", "[3, 4]", "float64", 1),
	    "{'op': 'transpose', 'inputs': ['m'], 'outputs': ['t']},"
	    "{'op': 'neg', 'inputs': ['t'], 'outputs': ['c']}",
	    "'c'", ni, "DimShuffle{1,0} Elemwise{neg}",
	    "inplace: not through a view of an input");
	{
		struct gp_graph *g = graph_of("'w': {'kind': 'shared', "
		    "'dtype': 'float64', 'shape': [4], 'init': {'fill': 1}}",
		    "{'op': 'mul', 'inputs': ['w', 0.5], 'outputs': ['s']},"
		    "{'op': 'sub', 'inputs': ['w', 's'], 'outputs': ['w2']}",
		    "'s'", "'w': 'w2'");
		struct gp_graph *r = g ? rewritten(g, ni) : NULL;

		is_ops(r, "Elemwise{mul} Elemwise{sub}",
		    "inplace: never a shared variable or an update source");
		gp_graph_free(r);
		gp_graph_free(g);
	}
}

/* As expect(), with updates: the ops after rewriting, then three calls'
 * outputs and the shared variables' final values against optimizer=None. */
static void
expect_upd(const char *vars, const char *nodes, const char *outs,
    const char *upd, const char *flags, const char *want, const char *what)
{
	struct gp_graph *g = graph_of(vars, nodes, outs, upd);
	struct gp_graph *r = g ? rewritten(g, flags) : NULL;
	struct gp_graph *none = g ? rewritten(g, "optimizer=None") : NULL;

	if (is_ops(r, want, what) && none != NULL) {
		struct res a, b;
		char why[256];

		if (run(r, g, 3, &a) && run(none, g, 3, &b))
			if (!ok(agree(&a, &b, 1e-12, why, sizeof(why)),
			    "%s: same results", what))
				diag("  %s", why);
		free(a.v);
		free(b.v);
	}
	gp_graph_free(r);
	gp_graph_free(none);
	gp_graph_free(g);
}

#define W_SHARED "'w': {'kind': 'shared', 'dtype': 'float64', "	\
		"'shape': [4, 3], 'init': {'uniform': [-1, 1], 'seed': 7}}, " \
		XS("a", "[4, 2]", "float64", 1) ", "			\
		XS("b", "[2, 3]", "float64", 2)
#define W_STEP	"{'op': 'dot', 'inputs': ['a', 'b'], 'outputs': ['d']},"	\
		"{'op': 'mul', 'inputs': [0.1, 'd'], 'outputs': ['s']},"	\
		"{'op': 'sub', 'inputs': ['w', 's'], 'outputs': ['w2']}"
#define Q	"{'op': 'sum', 'inputs': ['a'], 'outputs': ['q']}"

/* A weight's update w <- w - 0.1 dot(a, b) overwrites w in place, as
 * Theano's Gemm{inplace} does, when every other reader of w can run
 * first. */
static void
test_inplace_update(void)
{
	const char *on = "optimizer_excluding=fusion";

	expect_upd(W_SHARED, W_STEP ", " Q, "'q'", "'w': 'w2'", on,
	    "Sum Gemm{inplace}[(0, 0)]",
	    "inplace update: w <- gemm(w, ...) overwrites w");
	/* readers of w, directly and through a view, placed after the gemm
	 * in the file: the scheduler runs them first, they see the old w */
	expect_upd(W_SHARED,
	    "{'op': 'gemm', 'inputs': ['w', -0.1, 'a', 'b', 1], "
	    "'outputs': ['w2']},"
	    "{'op': 'sum', 'inputs': ['w'], 'outputs': ['c']},"
	    "{'op': 'transpose', 'inputs': ['w'], 'outputs': ['wt']},"
	    "{'op': 'dot22', 'inputs': ['wt', 'w'], 'outputs': ['e']}",
	    "'c', 'e'", "'w': 'w2'", on,
	    "Gemm{inplace}[(0, 0)] Sum DimShuffle{1,0} Dot22",
	    "inplace update: other readers run first and see the old w");
	expect_upd(W_SHARED, W_STEP ","
	    "{'op': 'add', 'inputs': ['w2', 'w'], 'outputs': ['c']}",
	    "'c'", "'w': 'w2'", on,
	    "Elemwise{add} Gemm{no_inplace}",
	    "inplace update: not when a reader of w needs the new value too");
	expect_upd(W_SHARED, W_STEP, "'w'", "'w': 'w2'", on,
	    "Gemm{no_inplace}",
	    "inplace update: not when w is a function output");
	expect_upd(W_SHARED, W_STEP, "'w2'", "'w': 'w2'", on,
	    "Gemm{no_inplace}",
	    "inplace update: not when the new value is an output too");
	expect_upd(W_SHARED ", 'v': {'kind': 'shared', 'dtype': 'float64', "
	    "'shape': [4, 3], 'init': {'fill': 0}}", W_STEP ", " Q, "'q'",
	    "'w': 'w2', 'v': 'w'", on, "Sum Gemm{no_inplace}",
	    "inplace update: not when w's old value is another update's");
}

static void
test_selection(void)
{
	struct gp_flags f;
	struct gp_err err;
	size_t n;
	const struct gp_rewriter *const *rs = gp_rewrite_all(&n);
	bool *sel = gp_xcalloc(n + 1, 1);
	int fast_compile = 0, fast_run = 0;

	ok(n >= 20, "%zu rewriters", n);
	for (size_t i = 0; i < n; i++) {
		const char *t = rs[i]->tags;

		ok(strstr(t, "fast_run") != NULL && strstr(t,
		    gp_rewrite_phase_name(rs[i]->phase)) != NULL,
		    "%s: tags %s carry fast_run and its phase", rs[i]->name, t);
	}
	gp_flags_init(&f);
	gp_flags_parse(&f, "optimizer=fast_compile", "test", &err);
	gp_rewrite_select(&f, sel, &err);
	for (size_t i = 0; i < n; i++)
		fast_compile += sel[i];
	gp_flags_done(&f);
	gp_flags_init(&f);
	gp_rewrite_select(&f, sel, &err);
	for (size_t i = 0; i < n; i++)
		fast_run += sel[i];
	gp_flags_done(&f);
	is_int(fast_compile, 2, "fast_compile: merge and constant_folding");
	is_int(fast_run, (long long)n, "fast_run: every rewriter");
	gp_flags_init(&f);
	gp_flags_parse(&f, "optimizer_excluding=gemm", "test", &err);
	gp_rewrite_select(&f, sel, &err);
	for (size_t i = 0; i < n; i++)
		if (strcmp(rs[i]->name, "gemm") == 0)
			ok(!sel[i], "optimizer_excluding=gemm drops gemm");
		else if (strcmp(rs[i]->name, "dot_to_blas") == 0)
			ok(!sel[i], "optimizer_excluding=gemm drops "
			    "dot_to_blas");
		else if (strcmp(rs[i]->name, "pow_specialize") == 0)
			ok(sel[i], "optimizer_excluding=gemm keeps "
			    "pow_specialize");
	gp_flags_done(&f);
	free(sel);
}

/*
 * Every example graph
 */

/* g (freed here) under every rewrite configuration against
 * optimizer=None, and the JIT against the interpreter. */
static void
check_loaded(struct gp_graph *g, const char *name)
{
	struct gp_graph *none;
	struct res ref;
	size_t n;
	const struct gp_rewriter *const *rs = gp_rewrite_all(&n);

	none = rewritten(g, "optimizer=None");
	if (none == NULL || !run(none, g, 3, &ref)) {
		ok(false, "%s: runs without rewrites", name);
		gp_graph_free(none);
		gp_graph_free(g);
		return;
	}
	check_same(g, &ref, "optimizer=fast_run", name);
	check_same(g, &ref, "jit=False", name);
	check_same(g, &ref, "optimizer=fast_compile", name);
	for (size_t i = 0; i < n; i++) {
		char *fl = gp_xasprintf("optimizer_excluding=%s", rs[i]->name);

		check_same(g, &ref, fl, name);
		free(fl);
	}
	/* the JIT and the interpreter on every Composite */
	{
		struct gp_graph *a = rewritten(g, "");
		struct gp_graph *b = rewritten(g, "");
		struct res ra, rb;
		char why[256] = "";
		int jit = 0, comp = 0;

		for (size_t i = 0; b != NULL && i < b->n_nodes; i++)
			if (b->nodes[i].op == &gp_op_composite) {
				comp++;
				jit += b->nodes[i].impl == GP_IMPL_JIT;
				gp_composite_use_interp(&b->nodes[i]);
			}
		if (gp_jit_available(NULL))
			ok(jit == comp, "%s: %d of %d Composites JIT-compiled",
			    name, jit, comp);
		if (a != NULL && b != NULL && run(a, g, 3, &ra) &&
		    run(b, g, 3, &rb)) {
			if (!ok(agree(&ra, &rb, ra.f32 ? 1e-5 : 1e-10, why,
			    sizeof(why)), "%s: the JIT and the interpreter "
			    "agree on %d Composites", name, comp))
				diag("  %s", why);
			free(ra.v);
			free(rb.v);
		} else
			ok(false, "%s: JIT against interpreter", name);
		gp_graph_free(a);
		gp_graph_free(b);
	}
	free(ref.v);
	gp_graph_free(none);
	gp_graph_free(g);
}

static void
check_graph(const char *path)
{
	struct gp_load_opts lo = {.allow_extern = true};
	struct gp_graph *g;
	struct gp_err err;
	const char *name = strrchr(path, '/') + 1;

	g = gp_graph_load(path, &lo, &err);
	if (g == NULL) {
		ok(false, "load %s: %s", name, err.msg);
		return;
	}
	check_loaded(g, name);
}

static int
cmp_str(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

static void
test_examples(void)
{
	char *dir = gp_xasprintf("%s/data/graphs", top_srcdir);
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (d == NULL) {
		ok(false, "open %s", dir);
		free(dir);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0) {
			gp_grow(&names, &cap, n + 1, sizeof(*names));
			names[n++] = gp_xasprintf("%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	ok(n >= 2, "%zu example graphs", n);
	for (size_t i = 0; i < n; i++) {
		check_graph(names[i]);
		free(names[i]);
	}
	free(names);
	free(dir);
}

/* g rewritten with the defaults twice, the second's Composites on the
 * interpreter, and with optimizer=None; 2 calls of each: the JIT's
 * outputs against no rewrites', and the interpreter's against no
 * rewrites' or (vs_jit) against the JIT's, within tol, the checks named
 * "WHAT: ...".  *inplace (may be NULL): whether an interpreted Composite
 * overwrites one of its inputs. */
static void
jit_interp_none(const struct gp_graph *g, const char *what, double tol,
    bool vs_jit, bool *inplace)
{
	struct gp_graph *a = rewritten(g, ""), *b = rewritten(g, "");
	struct gp_graph *none = rewritten(g, "optimizer=None");
	struct res ra, rb, rn;
	char why[256];

	if (inplace != NULL)
		*inplace = false;
	for (size_t i = 0; b != NULL && i < b->n_nodes; i++)
		if (b->nodes[i].op == &gp_op_composite) {
			gp_composite_use_interp(&b->nodes[i]);
			if (inplace != NULL && b->nodes[i].destroy[0] >= 0)
				*inplace = true;
		}
	if (a && b && none && run(a, g, 2, &ra) && run(b, g, 2, &rb) &&
	    run(none, g, 2, &rn)) {
		if (!ok(agree(&ra, &rn, tol, why, sizeof(why)),
		    "%s: JIT agrees with no rewrites", what))
			diag("  %s", why);
		if (!ok(agree(&rb, vs_jit ? &ra : &rn, tol, why, sizeof(why)),
		    "%s: %s", what, vs_jit ? "JIT agrees with the interpreter" :
		    "interpreter agrees with no rewrites"))
			diag("  %s", why);
		free(ra.v);
		free(rb.v);
		free(rn.v);
	} else
		ok(false, "%s: run", what);
	gp_graph_free(a);
	gp_graph_free(b);
	gp_graph_free(none);
}

/* The C of g's Composites, appended to b. */
static void
composite_source(const struct gp_graph *g, struct gp_buf *b)
{
	for (size_t k = 0; g != NULL && k < g->n_nodes; k++)
		if (g->nodes[k].op == &gp_op_composite)
			gp_composite_c_source(g->nodes[k].priv, b);
}

/* Strided, broadcast, 0-d, float32 and bool operands through the JIT's
 * gather paths, and a Composite overwriting a transposed temporary. */
static void
test_layouts(void)
{
	struct gp_graph *g = graph_of(
	    XS("z", "[48, 64]", "float64", 1) ", "
	    XS("b", "[48]", "float64", 2) ", "
	    XS("c", "[64, 1]", "float64", 3) ", "
	    XS("s", "[]", "float64", 4) ", "
	    XS("h", "[64, 48]", "float32", 5),
	    "{'op': 'transpose', 'inputs': ['z'], 'outputs': ['t']},"
	    "{'op': 'add', 'inputs': ['t', 'b'], 'outputs': ['a']},"
	    "{'op': 'mul', 'inputs': ['a', 'c'], 'outputs': ['m']},"
	    "{'op': 'exp', 'inputs': ['m'], 'outputs': ['e']},"
	    "{'op': 'sub', 'inputs': ['e', 's'], 'outputs': ['r']},"
	    "{'op': 'gt', 'inputs': ['r', 1.0], 'outputs': ['big']},"
	    "{'op': 'neg', 'inputs': ['r'], 'outputs': ['nr']},"
	    "{'op': 'switch', 'inputs': ['big', 'r', 'nr'], 'outputs': ['w']},"
	    "{'op': 'tanh', 'inputs': ['h'], 'outputs': ['th']},"
	    "{'op': 'mul', 'inputs': ['th', 2], 'outputs': ['t2']},"
	    "{'op': 'lt', 'inputs': ['t2', 's'], 'outputs': ['lo']},"
	    "{'op': 'exp', 'inputs': ['z'], 'outputs': ['ez']},"
	    "{'op': 'transpose', 'inputs': ['ez'], 'outputs': ['et']},"
	    "{'op': 'add', 'inputs': ['et', 'b'], 'outputs': ['eb']},"
	    "{'op': 'mul', 'inputs': ['eb', 3], 'outputs': ['e3']}",
	    "'w', 't2', 'lo', 'e3'", NULL);
	bool inpl = false;

	if (g == NULL) {
		ok(false, "layouts graph");
		return;
	}
	jit_interp_none(g, "layouts", 1e-6, false, &inpl);
	ok(inpl, "layouts: a Composite overwrites a transposed temporary");
	gp_graph_free(g);
}

/* Count of occurrences of needle in hay. */
static int
count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p != NULL;
	    p = strstr(p + 1, needle))
		n++;
	return (n);
}

/* A body with several libm calls runs in stages (composite.c): cut after
 * each call that another call follows; a body with one call is one loop.
 * Values that cross stages (a float register read two stages later, a
 * bool, an input read again in the last stage) over blocks of 256 with a
 * tail, a transposed (gathered) input, a broadcast row and a 0-d input:
 * the JIT agrees with the interpreter and with no rewrites. */
static void
test_stages(void)
{
	struct gp_graph *g = graph_of(
	    XS("z", "[37, 29]", "float64", 1) ", "
	    XS("b", "[37]", "float64", 2) ", "
	    XS("s", "[]", "float64", 4),
	    "{'op': 'transpose', 'inputs': ['z'], 'outputs': ['t']},"
	    "{'op': 'mul', 'inputs': ['t', 1.5], 'outputs': ['a']},"
	    "{'op': 'add', 'inputs': ['a', 'b'], 'outputs': ['a2']},"
	    "{'op': 'tanh', 'inputs': ['a2'], 'outputs': ['th']},"
	    "{'op': 'gt', 'inputs': ['a2', 's'], 'outputs': ['pos']},"
	    "{'op': 'mul', 'inputs': ['th', 2], 'outputs': ['t2']},"
	    "{'op': 'exp', 'inputs': ['t2'], 'outputs': ['e']},"
	    "{'op': 'sub', 'inputs': ['e', 'b'], 'outputs': ['eb']},"
	    "{'op': 'log1p', 'inputs': ['th'], 'outputs': ['l']},"
	    "{'op': 'add', 'inputs': ['l', 'eb'], 'outputs': ['le']},"
	    "{'op': 'add', 'inputs': ['le', 't'], 'outputs': ['lt']},"
	    "{'op': 'switch', 'inputs': ['pos', 'lt', 'th'], "
	    "'outputs': ['out']}",
	    "'out'", NULL);
	struct gp_graph *a;
	struct gp_buf src = {0};

	if (!ok(g != NULL, "stages: graph")) {
		gp_graph_free(g);
		return;
	}
	a = rewritten(g, "");
	if (a != NULL && n_op(a, "composite") == 1) {
		composite_source(a, &src);
		/* cut after tanh and exp, not after log1p, the last call:
		 * no single-loop path, three block loops, four registers
		 * kept */
		if (!ok(count_of(gp_buf_str(&src), "#pragma omp simd") == 3 &&
		    count_of(gp_buf_str(&src), "[GP_JB];") == 3 + 4,
		    "stages: three libm calls, three loops"))
			diag("%s", gp_buf_str(&src));
	} else
		ok(false, "stages: one Composite");
	jit_interp_none(g, "stages", 1e-12, true, NULL);
	/* tanh and exp: two stages (the neg after exp in the second), no
	 * unit-stride path; tanh alone: the unit-stride loop, which
	 * returns, and the blocked one */
	for (int one = 0; one < 2; one++) {
		struct gp_graph *ch, *r;
		struct gp_buf cs = {0};
		int want = 2;

		ch = graph_of(XS("x", "[1000]", "float64", 7),
		    "{'op': 'mul', 'inputs': ['x', 1.5], 'outputs': ['a1']},"
		    "{'op': 'tanh', 'inputs': ['a1'], 'outputs': ['a2']},"
		    "{'op': 'sqr', 'inputs': ['a2'], 'outputs': ['a3']},"
		    "{'op': 'sqrt', 'inputs': ['a3'], 'outputs': ['a4']},"
		    "{'op': 'exp', 'inputs': ['a4'], 'outputs': ['a5']},"
		    "{'op': 'neg', 'inputs': ['a5'], 'outputs': ['out']}",
		    one ? "'a4'" : "'out'", NULL);
		r = ch != NULL ? rewritten(ch, "") : NULL;
		composite_source(r, &cs);
		if (!ok(cs.len > 0 && count_of(gp_buf_str(&cs),
		    "#pragma omp simd") == want && count_of(gp_buf_str(&cs),
		    "return;") == one, "stages: %s: %d loops%s",
		    one ? "tanh alone" : "tanh then exp", want, one ?
		    " (one the unit-stride path's)" : " (both stages)"))
			diag("%s", cs.len > 0 ? gp_buf_str(&cs) : "none");
		gp_buf_free(&cs);
		gp_graph_free(r);
		gp_graph_free(ch);
	}
	gp_buf_free(&src);
	gp_graph_free(a);
	gp_graph_free(g);
}

int
main(void)
{
	const char *s = getenv("top_srcdir");

	if (s != NULL && s[0] != '\0')
		top_srcdir = s;
	test_selection();
	test_merge();
	test_constant_folding();
	test_canonicalize();
	test_stabilize();
	test_specialize();
	test_matmul();
	test_softmax_scale();
	test_transformer_model();
	test_fusion();
	test_fusion_math();
	test_inplace();
	test_inplace_update();
	test_layouts();
	test_stages();
	test_examples();
	return (done_testing());
}
