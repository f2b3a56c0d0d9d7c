/*
 * test-prov.c: provenance through the rewrites (graph/prov.h, the rule in
 * doc/architecture.md).  Small graphs where each rewriter's result is known
 * by hand (which source nodes each apply does the work of, which were
 * folded), then every rewriter alone and all of them together on every
 * example graph (data/graphs/NAME.json, data/models/NAME/model.onnx): for every
 * function, the sources of its applies plus the folded ones must be the
 * source nodes it needs in the graph as loaded (computed here on the
 * pristine graph from its schedule), no apply may carry a source the
 * function does not need, and a source carried by several applies must be
 * carried by applies linked by their data (one value computed in several
 * applies), never by two unrelated ones.  The same on the torch exports of
 * tests/data/rewrite (the CNN rewrites' cases) and on the models named in
 * GPTOP_PROV_MODELS.
 */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tap.h"
#include "base/flags.h"
#include "graph/graph.h"
#include "graph/op.h"
#include "graph/prov.h"
#include "load/graph-json.h"
#include "load/onnx-build.h"
#include "rewrite/rewrite.h"

static const char *top_srcdir = ".";

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
graph_of(const char *vars, const char *nodes, const char *outs)
{
	char *text = gp_xasprintf("{'format': 'gptop-graph/1', 'name': 't', "
	    "'variables': {%s}, 'nodes': [%s], 'functions': {'f': "
	    "{'outputs': [%s]}}}", vars, nodes, outs);
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

/* "op: a b c | op: d" for the live applies in node order, then
 * " / folded: e f" when some are folded. */
static char *
prov_of(const struct gp_graph *g)
{
	struct gp_buf b = {0};
	char *s;

	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gp_node *n = &g->nodes[i];

		if (n->dead)
			continue;
		gp_buf_printf(&b, "%s%s:", b.len ? " | " : "", n->op->name);
		for (int k = 0; k < n->n_src; k++) {
			gp_buf_puts(&b, " ");
			gp_prov_format(g, n->src[k], &b);
		}
	}
	if (g->n_folded > 0) {
		gp_buf_puts(&b, " / folded:");
		for (size_t k = 0; k < g->n_folded; k++) {
			gp_buf_puts(&b, " ");
			gp_prov_format(g, g->folded[k], &b);
		}
	}
	s = gp_xstrdup(b.len ? gp_buf_str(&b) : "");
	gp_buf_free(&b);
	return (s);
}

#define X(name) "'" name "': {'kind': 'input', 'dtype': 'float64', " \
		"'shape': [4]}"
#define M(name, r, c) "'" name "': {'kind': 'input', 'dtype': " \
		"'float64', 'shape': [" #r ", " #c "]}"

static void
expect(const char *vars, const char *nodes, const char *outs,
    const char *flags, const char *want, const char *what)
{
	struct gp_graph *g = graph_of(vars, nodes, outs), *c;
	char *got;

	if (g == NULL) {
		ok(false, "%s: load", what);
		return;
	}
	c = rewritten(g, flags);
	got = c != NULL ? prov_of(c) : gp_xstrdup("(rewrite failed)");
	if (!ok(strcmp(got, want) == 0, "%s", what))
		diag("  got  '%s'\n  want '%s'", got, want);
	free(got);
	gp_graph_free(c);
	gp_graph_free(g);
}

/* Each family's rule, on graphs small enough to follow by hand. */
static void
test_rules(void)
{
	/* no rewrite: every apply is its own source */
	expect(X("x"), "{'name': 'a', 'op': 'exp', 'inputs': ['x'], "
	    "'outputs': ['e']}, {'op': 'neg', 'inputs': ['e'], 'outputs': "
	    "['o']}", "'o'", "optimizer=None", "exp: a | neg: #1",
	    "none: own sources, #INDEX when the node has no name");
	/* merge: the survivor unites both */
	expect(X("x"), "{'name': 'a', 'op': 'exp', 'inputs': ['x'], "
	    "'outputs': ['e1']}, {'name': 'b', 'op': 'exp', 'inputs': ['x'], "
	    "'outputs': ['e2']}, {'name': 'c', 'op': 'add', 'inputs': ['e1', "
	    "'e2'], 'outputs': ['o']}", "'o'",
	    "optimizer=None,optimizer_including=merge",
	    "exp: a b | add: c", "merge unites the sources");
	/* constant folding: computed at compile time */
	expect(X("x") ", 'k': {'kind': 'constant', 'dtype': 'float64', "
	    "'shape': [4], 'init': {'values': [1, 2, 3, 4]}}",
	    "{'name': 'e', 'op': 'exp', 'inputs': ['k'], 'outputs': ['ek']}, "
	    "{'name': 'm', 'op': 'mul', 'inputs': ['ek', 2], 'outputs': "
	    "['mk']}, {'name': 'o', 'op': 'add', 'inputs': ['x', 'mk'], "
	    "'outputs': ['out']}", "'out'",
	    "optimizer=None,optimizer_including=constant_folding",
	    "add: o / folded: e m", "constant folding: folded sources");
	/* canonicalize: x * 1 is x, its work not done any more */
	expect(X("x"), "{'name': 'm', 'op': 'mul', 'inputs': ['x', 1], "
	    "'outputs': ['a']}, {'name': 'e', 'op': 'exp', 'inputs': ['a'], "
	    "'outputs': ['o']}", "'o'", "optimizer=None,optimizer_including="
	    "canonicalize", "exp: e / folded: m",
	    "canonicalize: x * 1 on an input is folded");
	expect(X("x"), "{'name': 't', 'op': 'tanh', 'inputs': ['x'], "
	    "'outputs': ['t1']}, {'name': 'm', 'op': 'mul', 'inputs': ['t1', "
	    "1], 'outputs': ['a']}, {'name': 'e', 'op': 'exp', 'inputs': "
	    "['a'], 'outputs': ['o']}", "'o'",
	    "optimizer=None,optimizer_including=canonicalize",
	    "tanh: t m | exp: e",
	    "canonicalize: x * 1 goes to what computes x");
	/* stabilize: log(sigmoid(x)) in new applies sharing both */
	expect(X("x"), "{'name': 's', 'op': 'sigmoid', 'inputs': ['x'], "
	    "'outputs': ['y']}, {'name': 'l', 'op': 'log', 'inputs': ['y'], "
	    "'outputs': ['o']}", "'o'",
	    "optimizer=None,optimizer_including=stabilize",
	    "neg: s l | softplus: s l | neg: s l",
	    "stabilize: the new applies share the replaced sources");
	/* gemm: dot + add in one apply */
	expect(M("a", 3, 4) ", " M("b", 4, 5) ", " M("c", 3, 5),
	    "{'name': 'd', 'op': 'dot', 'inputs': ['a', 'b'], 'outputs': "
	    "['ab']}, {'name': 'p', 'op': 'add', 'inputs': ['ab', 'c'], "
	    "'outputs': ['o']}", "'o'",
	    "optimizer=None,optimizer_including=dot_to_blas:gemm",
	    "gemm: d p", "gemm: dot and add in one apply");
	/* fusion: the Composite unites its members */
	expect(X("x"), "{'name': 'a', 'op': 'exp', 'inputs': ['x'], "
	    "'outputs': ['e']}, {'op': 'mul', 'inputs': ['e', 2], "
	    "'outputs': ['m']}, {'name': 'c', 'op': 'tanh', 'inputs': ['m'], "
	    "'outputs': ['o']}", "'o'",
	    "optimizer=None,optimizer_including=fusion,jit=False",
	    "composite: a #1 c", "fusion: the union of the fused");
	/* inplace keeps */
	expect(X("x"), "{'name': 'a', 'op': 'exp', 'inputs': ['x'], "
	    "'outputs': ['e']}, {'name': 'b', 'op': 'tanh', 'inputs': ['e'], "
	    "'outputs': ['o']}", "'o'",
	    "optimizer=None,optimizer_including=inplace",
	    "exp: a | tanh: b", "inplace keeps the sources");
}

/*
 * The invariant on whole graphs
 */

/* Sorted-unique set of ints. */
struct set {
	int	*v;
	size_t	 n, cap;
};

static void
set_add(struct set *s, const int *v, int n)
{
	for (int i = 0; i < n; i++) {
		gp_grow(&s->v, &s->cap, s->n + 1, sizeof(int));
		s->v[s->n++] = v[i];
	}
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return ((x > y) - (x < y));
}

static void
set_done(struct set *s)
{
	size_t w = 0;

	if (s->n == 0)
		return;
	qsort(s->v, s->n, sizeof(int), cmp_int);
	for (size_t i = 0; i < s->n; i++)
		if (w == 0 || s->v[w - 1] != s->v[i])
			s->v[w++] = s->v[i];
	s->n = w;
}

static bool
set_has(const struct set *s, int x)
{
	return (bsearch(&x, s->v, s->n, sizeof(int), cmp_int) != NULL);
}

/* The union of the sources of the applies function f schedules. */
static void
scheduled(const struct gp_graph *g, int f, struct set *s, int **order,
    int *n)
{
	*n = gp_graph_schedule(g, f, order);
	for (int i = 0; i < *n; i++)
		set_add(s, g->nodes[(*order)[i]].src,
		    g->nodes[(*order)[i]].n_src);
	set_done(s);
}

/* Are the applies of list (count n) linked through their data, as one
 * undirected graph? */
static bool
linked(const struct gp_graph *g, const int *list, int n)
{
	bool *in = gp_xcalloc((size_t)n + 1, 1);
	bool grew = true;

	in[0] = true;
	while (grew) {
		grew = false;
		for (int a = 0; a < n; a++)
			for (int b = 0; b < n; b++) {
				const struct gp_node *na = &g->nodes[list[a]];

				if (!in[a] || in[b])
					continue;
				for (int k = 0; k < na->n_out && !in[b]; k++)
					for (int j = 0; j < g->nodes[list[b]].
					    n_in; j++)
						if (g->nodes[list[b]].in[j] ==
						    na->out[k])
							in[b] = true;
				for (int j = 0; j < na->n_in && !in[b]; j++)
					for (int k = 0; k < g->nodes[list[b]].
					    n_out; k++)
						if (na->in[j] ==
						    g->nodes[list[b]].out[k])
							in[b] = true;
				grew |= in[b];
			}
	}
	for (int a = 0; a < n; a++)
		if (!in[a]) {
			free(in);
			return (false);
		}
	free(in);
	return (true);
}

/* The invariant for rewritten graph c of pristine p (whose sources are
 * set); the first failure goes to why. */
static bool
invariant(const struct gp_graph *p, const struct gp_graph *c, char *why,
    size_t cap)
{
	bool good = true;

	if (c->n_srcs != p->n_srcs) {
		snprintf(why, cap, "%zu sources, the pristine graph has %zu",
		    c->n_srcs, p->n_srcs);
		return (false);
	}
	for (size_t f = 0; f < c->n_fns && good; f++) {
		struct set need = {0}, got = {0};
		int *po, *co, pn, cn;

		scheduled(p, (int)f, &need, &po, &pn);
		scheduled(c, (int)f, &got, &co, &cn);
		for (size_t k = 0; k < c->n_folded; k++)
			if (set_has(&need, c->folded[k]))
				set_add(&got, &c->folded[k], 1);
		set_done(&got);
		for (size_t k = 0; k < need.n && good; k++)
			if (!set_has(&got, need.v[k])) {
				snprintf(why, cap, "function %s: source %d "
				    "(#%d) is in no apply and not folded",
				    c->fns[f].name, need.v[k],
				    c->srcs[need.v[k]].index);
				good = false;
			}
		for (size_t k = 0; k < got.n && good; k++)
			if (!set_has(&need, got.v[k])) {
				snprintf(why, cap, "function %s: an apply "
				    "carries source #%d, which it does not need",
				    c->fns[f].name, c->srcs[got.v[k]].index);
				good = false;
			}
		/* a source in several applies: linked ones only */
		for (size_t k = 0; k < need.n && good; k++) {
			int *list = gp_xmalloc(sizeof(int) * ((size_t)cn + 1));
			int nl = 0;

			for (int i = 0; i < cn; i++) {
				const struct gp_node *n = &c->nodes[co[i]];

				if (bsearch(&need.v[k], n->src, (size_t)n->n_src,
				    sizeof(int), cmp_int) != NULL)
					list[nl++] = co[i];
			}
			if (nl > 1 && !linked(c, list, nl)) {
				snprintf(why, cap, "function %s: source #%d is "
				    "in %d applies not linked by their data",
				    c->fns[f].name, c->srcs[need.v[k]].index,
				    nl);
				good = false;
			}
			free(list);
		}
		free(po);
		free(co);
		free(need.v);
		free(got.v);
	}
	return (good);
}

static void
check_graph(const char *path, struct gp_graph *g)
{
	size_t n_rw;
	const struct gp_rewriter *const *rs = gp_rewrite_all(&n_rw);
	struct gp_graph *p = gp_graph_clone(g);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	int changed = 0;

	gp_prov_init(p);
	for (size_t i = 0; i <= n_rw + 1; i++) {
		char *flags = i < n_rw ? gp_xasprintf("optimizer=None,"
		    "optimizer_including=%s,jit=False", rs[i]->name) :
		    gp_xstrdup(i == n_rw ? "jit=False" : "optimizer=None");
		struct gp_graph *c = rewritten(g, flags);
		char why[512] = "";

		if (c == NULL) {
			ok(false, "%s [%s]: rewrite", base, flags);
			free(flags);
			continue;
		}
		if (c->n_nodes != p->n_nodes)
			changed++;
		if (!ok(invariant(p, c, why, sizeof(why)), "%s [%s]: sources "
		    "of the applies + folded = sources needed", base, flags))
			diag("  %s", why);
		gp_graph_free(c);
		free(flags);
	}
	diag("%s: %d of %zu rewrites changed the node count", base, changed,
	    n_rw + 2);
	gp_graph_free(p);
}

static int
cmp_str(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* Entries of dir ending in suffix (or, with sub, dir/NAME/sub). */
static char **
list(const char *dir, const char *suffix, const char *sub, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t cap = 0;

	*n = 0;
	while (d != NULL && (e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name), sl = strlen(suffix);
		char *path;

		if (e->d_name[0] == '.' || l < sl ||
		    strcmp(e->d_name + l - sl, suffix) != 0)
			continue;
		path = sub != NULL ? gp_xasprintf("%s/%s/%s", dir, e->d_name,
		    sub) : gp_xasprintf("%s/%s", dir, e->d_name);
		if (sub != NULL && access(path, R_OK) != 0) {
			free(path);
			continue;
		}
		gp_grow(&names, &cap, *n + 1, sizeof(*names));
		names[(*n)++] = path;
	}
	if (d != NULL)
		closedir(d);
	qsort(names, *n, sizeof(*names), cmp_str);
	return (names);
}

static void
test_examples(void)
{
	char *gd = gp_xasprintf("%s/data/graphs", top_srcdir);
	char *md = gp_xasprintf("%s/data/models", top_srcdir);
	size_t ng, nm;
	char **graphs = list(gd, ".json", NULL, &ng);
	char **models = list(md, "", "model.onnx", &nm);

	ok(ng >= 5, "%zu example graphs", ng);
	ok(nm >= 2, "%zu example models", nm);
	for (size_t i = 0; i < ng; i++) {
		struct gp_err err;
		struct gp_load_opts lo = {.allow_extern = true};
		struct gp_graph *g = gp_graph_load(graphs[i], &lo, &err);

		if (g == NULL)
			ok(false, "load %s: %s", graphs[i], err.msg);
		else
			check_graph(graphs[i], g);
		gp_graph_free(g);
		free(graphs[i]);
	}
	for (size_t i = 0; i < nm; i++) {
		struct gp_err err;
		struct gp_onnx_load_opts o = {.limit_bytes = 1 << 30};
		struct gp_graph *g = gp_onnx_load(models[i], &o, &err);

		if (g == NULL)
			ok(false, "load %s: %s", models[i], err.msg);
		else
			check_graph(models[i], g);
		gp_graph_free(g);
		free(models[i]);
	}
	free(graphs);
	free(models);
	free(gd);
	free(md);
}

/* torch's exports the CNN rewrites fire on (the .onnx files of tests/data/rewrite),
 * and the models named in GPTOP_PROV_MODELS (':'-separated .onnx paths,
 * e.g. bench/onnx/export.py's resnet18 and mobilenet_v2, too big to
 * commit). */
static void
test_rewrite_models(void)
{
	char *rd = gp_xasprintf("%s/tests/data/rewrite", top_srcdir);
	size_t nr;
	char **models = list(rd, ".onnx", NULL, &nr);
	const char *more = getenv("GPTOP_PROV_MODELS");
	struct gp_onnx_load_opts o = {.limit_bytes = 1 << 30};
	struct gp_err err;
	struct gp_graph *g;

	ok(nr >= 2, "%zu models in tests/data/rewrite", nr);
	for (size_t i = 0; i < nr; i++) {
		if ((g = gp_onnx_load(models[i], &o, &err)) == NULL)
			ok(false, "load %s: %s", models[i], err.msg);
		else
			check_graph(models[i], g);
		gp_graph_free(g);
		free(models[i]);
	}
	free(models);
	free(rd);
	while (more != NULL && *more != '\0') {
		const char *e = strchr(more, ':');
		char *p = gp_xasprintf("%.*s", (int)(e ? e - more :
		    (long)strlen(more)), more);

		if ((g = gp_onnx_load(p, &o, &err)) == NULL)
			ok(false, "load %s: %s", p, err.msg);
		else
			check_graph(p, g);
		gp_graph_free(g);
		free(p);
		more = e ? e + 1 : NULL;
	}
}

int
main(void)
{
	const char *s = getenv("top_srcdir");

	if (s != NULL && s[0] != '\0')
		top_srcdir = s;
	test_rules();
	test_examples();
	test_rewrite_models();
	return (done_testing());
}
