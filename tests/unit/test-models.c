/*
 * test-models.c: the model graphs of data/graphs (see doc/models.md).
 *
 * 1. Gradients.  The backward nodes of logreg.json and mlp.json, written
 *    out by hand, must match central finite differences of the cost:
 *    for five elements of every parameter (the first, the last and three
 *    pseudo-random ones; b of logreg has one), the shared value is set to
 *    x +- eps (eps = 1e-5) and the cost evaluated, then restored.  The
 *    graphs are loaded as written, without rewrites, with two extra
 *    functions added to the loaded text (the files stay as profiled):
 *    "cost" (the cost, no updates) and "grads" (the cost and every
 *    gradient node, no updates), so the parameters never move between
 *    evaluations.  Tolerance: |fd - g| <= 1e-6 max(|g|, |fd|) + 1e-10,
 *    the absolute term covering the rounding of the two costs
 *    (~1e-16 / eps ~ 1e-11) for elements whose gradient is near 0.
 *    Also for mlp: softmax_grad(crossentropy_categorical_1hot_grad(...))
 *    equals the closed form (p_y - onehot(y)) / 128 (to 1e-13 / 128
 *    absolute), and mlp32's gradients equal mlp's (max difference <=
 *    1e-4 max |g| per parameter: float32 rounding of the data and the
 *    arithmetic).
 *
 * 2. Training.  Through a session with the default flags (the rewrites
 *    gptop runs), 100 calls of `train` of logreg, mlp and mlp32: the cost
 *    output must decrease at every call.
 *
 * 3. Checksums.  tests/models/expected.txt holds, for add3, chain,
 *    logreg, mlp and mlp32 run for a fixed number of rounds, each
 *    function output's and shared variable's dtype, size, sum, sum of
 *    absolute values, sum of squares, min, max and five elements, as
 *    computed by numpy from the same data (bench/numpy/models.py; how is
 *    said at the top of that file).  Each graph runs through a session
 *    with the default flags, and every value must agree: integers and
 *    bools exactly; floats to |got - want| <= rtol * scale, where scale
 *    is the sum of absolute values for sum and asum, the sum of squares
 *    for sumsq, and the largest magnitude for min, max and elements;
 *    rtol = 1e-11 for float64, 2e-5 for float32.  The last round runs
 *    one function at a time and each function's outputs are read right
 *    after its call (logreg's train and predict both output
 *    `prediction`, and the VM holds one value per variable).
 */
#include "config.h"

#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "base/flags.h"
#include "load/graph-json.h"
#include "session/session.h"
#include "run/vm.h"

#define EPS		1e-5
#define FD_RTOL		1e-6
#define FD_ATOL		1e-10
#define RTOL_F64	1e-11
#define RTOL_F32	2e-5

static const char *srcdir;

static char *
graph_path(const char *name)
{
	return (gp_xasprintf("%s/data/graphs/%s.json", srcdir, name));
}

/*
 * A graph loaded with extra functions (a JSON object merged into its
 * "functions"), linked into a VM without rewrites.
 */
struct model {
	struct gp_graph	*g;
	struct gp_vm	*vm;
};

static int
fn_index(const struct gp_graph *g, const char *name)
{
	for (size_t f = 0; f < g->n_fns; f++)
		if (strcmp(g->fns[f].name, name) == 0)
			return ((int)f);
	return (-1);
}

static bool
model_open(struct model *m, const char *name, const char *extra)
{
	char *path = graph_path(name), *dir = gp_xstrdup(path), *text;
	json_error_t jerr;
	json_t *root, *more;
	struct gp_err err = {{0}};
	struct gp_vm_opts vo = {.allow_gc = true};

	memset(m, 0, sizeof(*m));
	root = json_load_file(path, 0, &jerr);
	more = json_loads(extra, 0, &jerr);
	if (root == NULL || more == NULL) {
		diag("%s: %s", path, jerr.text);
		json_decref(root);
		json_decref(more);
		free(path);
		free(dir);
		return (false);
	}
	json_object_update(json_object_get(root, "functions"), more);
	json_decref(more);
	text = json_dumps(root, JSON_PRESERVE_ORDER);
	json_decref(root);
	m->g = gp_graph_load_buf(text, strlen(text), path, dirname(dir), NULL,
	    &err);
	free(text);
	free(path);
	free(dir);
	if (m->g == NULL) {
		diag("%s", err.msg);
		return (false);
	}
	if ((m->vm = gp_vm_new(m->g, &vo, NULL, &err)) == NULL) {
		diag("%s", err.msg);
		gp_graph_free(m->g);
		m->g = NULL;
		return (false);
	}
	return (true);
}

static void
model_close(struct model *m)
{
	gp_vm_free(m->vm);
	gp_graph_free(m->g);
}

/* Output k of function fn after a call, as a malloc'ed array of doubles. */
static double *
output_copy(struct model *m, int fn, int k, int64_t *n)
{
	const struct gp_tensor *t = gp_vm_output(m->vm, fn, k);
	double *a;

	*n = gp_tensor_numel(t);
	a = gp_xmalloc(sizeof(double) * (size_t)(*n > 0 ? *n : 1));
	for (int64_t i = 0; i < *n; i++)
		a[i] = gp_tensor_get(t, i);
	return (a);
}

static double
cost_now(struct model *m, int fn)
{
	gp_vm_call(m->vm, fn, NULL);
	return (gp_tensor_get(gp_vm_output(m->vm, fn, 0), 0));
}

/* A small LCG for the element choice (fixed, so failures reproduce). */
static uint64_t
lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (*s >> 33);
}

/*
 * Central differences for parameter `param` against gradient output k of
 * `grads` (`grads` output 0 and `cost` output 0 are the cost).
 */
static void
check_param(struct model *m, const char *model, const char *param,
    int fn_cost, int fn_grads, int k, double *worst)
{
	int v = gp_graph_find_var(m->g, param);
	struct gp_tensor *t = &m->g->vars[v].value;
	double *val = (double *)gp_tensor_data(t), *g, base;
	int64_t n, idx[5];
	int nidx = 0;
	uint64_t seed = 12345;
	bool good = true;
	double rel = 0, gmin = INFINITY;

	if (!ok(v >= 0 && t->dtype == GP_FLOAT64 && gp_tensor_is_contiguous(t),
	    "%s: parameter %s is a contiguous float64 shared variable", model,
	    param))
		return;
	gp_vm_call(m->vm, fn_grads, NULL);
	g = output_copy(m, fn_grads, k, &n);
	is_int(n, gp_tensor_numel(t), "%s: gradient of %s has %lld elements",
	    model, param, (long long)gp_tensor_numel(t));
	base = cost_now(m, fn_cost);
	idx[nidx++] = 0;
	if (n > 1)
		idx[nidx++] = n - 1;
	for (int j = 0; j < 3 && n > 2; j++)
		idx[nidx++] = 1 + (int64_t)(lcg(&seed) % (uint64_t)(n - 2));
	for (int j = 0; j < nidx; j++) {
		int64_t i = idx[j];
		double x0 = val[i], cp, cm, fd, err, tol;

		val[i] = x0 + EPS;
		cp = cost_now(m, fn_cost);
		val[i] = x0 - EPS;
		cm = cost_now(m, fn_cost);
		val[i] = x0;
		fd = (cp - cm) / (2 * EPS);
		err = fabs(fd - g[i]);
		tol = FD_RTOL * fmax(fabs(g[i]), fabs(fd)) + FD_ATOL;
		if (err > tol) {
			good = false;
			diag("  %s[%lld]: backward %.12g, finite difference "
			    "%.12g (|diff| %.3g > tol %.3g)", param,
			    (long long)i, g[i], fd, err, tol);
		}
		gmin = fmin(gmin, fabs(g[i]));
		if (fabs(g[i]) > 0)
			rel = fmax(rel, err / fabs(g[i]));
	}
	*worst = fmax(*worst, rel);
	ok(good, "%s: d cost / d %s matches central differences at %d "
	    "elements (relative difference <= %.2g, smallest |g| %.2g)", model,
	    param, nidx, rel, gmin);
	is_double(cost_now(m, fn_cost), base, 0, "%s: cost restored after "
	    "perturbing %s", model, param);
	free(g);
}

static void
test_logreg_grads(void)
{
	struct model m;
	static const char *const params[] = {"w", "b"};
	double worst = 0;
	int fc, fg;

	if (!ok(model_open(&m, "logreg", "{\"cost\": {\"outputs\": "
	    "[\"cost\"]}, \"grads\": {\"outputs\": [\"cost\", \"gw\", "
	    "\"gb\"]}}"), "logreg loads with cost and grads functions"))
		return;
	fc = fn_index(m.g, "cost");
	fg = fn_index(m.g, "grads");
	for (int p = 0; p < 2; p++)
		check_param(&m, "logreg", params[p], fc, fg, p + 1, &worst);
	diag("logreg: largest relative difference, backward vs central "
	    "differences: %.3g", worst);
	model_close(&m);
}

#define MLP_GRADS "{\"cost\": {\"outputs\": [\"cost\"]}, \"grads\": " \
	"{\"outputs\": [\"cost\", \"gW1\", \"gb1\", \"gW2\", \"gb2\", " \
	"\"gW3\", \"gb3\", \"p_y\", \"g_z3\", \"y\"]}}"

static const char *const mlp_params[] = {"W1", "b1", "W2", "b2", "W3", "b3"};

static void
test_mlp_grads(void)
{
	struct model m, m32;
	double worst = 0, maxd = 0;
	int fc, fg, fg32;
	int64_t np, nz, ny, n32;
	double *p, *gz, *y;
	bool good;

	if (!ok(model_open(&m, "mlp", MLP_GRADS), "mlp loads with cost and "
	    "grads functions"))
		return;
	fc = fn_index(m.g, "cost");
	fg = fn_index(m.g, "grads");
	for (int k = 0; k < 6; k++)
		check_param(&m, "mlp", mlp_params[k], fc, fg, k + 1, &worst);
	diag("mlp: largest relative difference, backward vs central "
	    "differences: %.3g", worst);

	/* the op-based output gradient against the closed form */
	gp_vm_call(m.vm, fg, NULL);
	p = output_copy(&m, fg, 7, &np);
	gz = output_copy(&m, fg, 8, &nz);
	y = output_copy(&m, fg, 9, &ny);
	good = np == 128 * 10 && nz == np && ny == 128;
	for (int64_t i = 0; good && i < np; i++) {
		double onehot = (double)(i % 10) == y[i / 10] ? 1 : 0;
		double want = (p[i] - onehot) / 128, d = fabs(gz[i] - want);

		if (d > maxd)
			maxd = d;
	}
	ok(good && maxd <= 1e-13 / 128, "mlp: softmax_grad(crossentropy_"
	    "categorical_1hot_grad(1/128, p, y), p) = (p - onehot(y)) / 128 "
	    "(max difference %.3g)", maxd);
	free(p);
	free(gz);
	free(y);

	/* float32 against float64, at the same (rounded) initial values */
	if (ok(model_open(&m32, "mlp32", MLP_GRADS), "mlp32 loads with cost "
	    "and grads functions")) {
		fg32 = fn_index(m32.g, "grads");
		gp_vm_call(m.vm, fg, NULL);
		gp_vm_call(m32.vm, fg32, NULL);
		is_int(gp_vm_output(m32.vm, fg32, 1)->dtype, GP_FLOAT32,
		    "mlp32: gradients are float32");
		for (int k = 0; k <= 6; k++) {
			double *a = output_copy(&m, fg, k, &np);
			double *b = output_copy(&m32, fg32, k, &n32);
			double mx = 0, d = 0;

			for (int64_t i = 0; i < np && np == n32; i++) {
				mx = fmax(mx, fabs(a[i]));
				d = fmax(d, fabs(a[i] - b[i]));
			}
			ok(np == n32 && d <= 1e-4 * mx, "mlp32: %s equals "
			    "mlp's to 1e-4 of its largest magnitude %.3g "
			    "(max difference %.3g)", k ? mlp_params[k - 1] :
			    "cost", mx, d);
			free(a);
			free(b);
		}
		model_close(&m32);
	}
	model_close(&m);
}

/*
 * Sessions: the graph as gptop runs it.
 */

static struct gp_session *
session_open(const char *name)
{
	struct gp_flags fl;
	struct gp_err err = {{0}};
	struct gp_session *s;
	char *path = graph_path(name);

	gp_flags_init(&fl);
	s = gp_session_open(path, &fl, &err);
	if (s == NULL)
		diag("%s", err.msg);
	gp_flags_done(&fl);
	free(path);
	return (s);
}

/* Position of output `out` in function `fn` of graph file `name`. */
static int
output_pos(const char *name, const char *fn, const char *out)
{
	char *path = graph_path(name);
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr), *outs, *e;
	size_t k;
	int pos = -1;

	free(path);
	outs = json_object_get(json_object_get(json_object_get(root,
	    "functions"), fn), "outputs");
	json_array_foreach(outs, k, e)
		if (json_is_string(e) && strcmp(json_string_value(e), out) == 0)
			pos = (int)k;
	json_decref(root);
	return (pos);
}

static void
test_training(const char *name)
{
	struct gp_session *s = session_open(name);
	double cost[100];
	int fn, k = output_pos(name, "train", "cost"), bad = -1;

	if (!ok(s != NULL && k >= 0, "%s: session opens, train has a cost "
	    "output", name)) {
		gp_session_free(s);
		return;
	}
	fn = fn_index(gp_session_graph(s), "train");
	for (int i = 0; i < 100; i++) {
		gp_session_run(s, fn, 1);
		cost[i] = gp_tensor_get(gp_vm_output(gp_session_vm(s), fn, k),
		    0);
		if (i > 0 && !(cost[i] < cost[i - 1]) && bad < 0)
			bad = i;
	}
	if (bad >= 0)
		diag("  call %d: cost %.17g, call %d: %.17g", bad, cost[bad],
		    bad - 1, cost[bad - 1]);
	ok(bad < 0, "%s: the cost decreases at each of 100 calls of train: "
	    "%.6g -> %.6g", name, cost[0], cost[99]);
	gp_session_free(s);
}

/*
 * Checksums against tests/models/expected.txt.
 */

struct stats {
	const char	*dtype;
	int64_t		 n;
	double		 sum, asum, sumsq, min, max;
};

/* Neumaier's compensated sum over t's elements of v (how 0), |v| (1) or
 * v*v (2). */
static double
csum(const struct gp_tensor *t, int how)
{
	double s = 0, c = 0;
	int64_t n = gp_tensor_numel(t);

	for (int64_t i = 0; i < n; i++) {
		double v = gp_tensor_get(t, i), x, u;

		x = how == 0 ? v : how == 1 ? fabs(v) : v * v;
		u = s + x;
		if (fabs(s) >= fabs(x))
			c += (s - u) + x;
		else
			c += (x - u) + s;
		s = u;
	}
	return (s + c);
}

static void
stats_of(const struct gp_tensor *t, struct stats *st)
{
	st->dtype = gp_dtype_name(t->dtype);
	st->n = gp_tensor_numel(t);
	st->sum = csum(t, 0);
	st->asum = csum(t, 1);
	st->sumsq = csum(t, 2);
	st->min = INFINITY;
	st->max = -INFINITY;
	for (int64_t i = 0; i < st->n; i++) {
		double v = gp_tensor_get(t, i);

		st->min = fmin(st->min, v);
		st->max = fmax(st->max, v);
	}
}

struct line {
	char	graph[64], item[160], stat[32], value[64];
	int	calls;
};

/* Check one item's lines [a, b) against tensor t. */
static void
check_item(const char *graph, const struct line *l, size_t a, size_t b,
    const struct gp_tensor *t, double *worst)
{
	struct stats st;
	bool flt, good = true;
	double rtol, big, want_asum = -1, want_sumsq = -1;

	if (t == NULL) {
		ok(false, "%s: %s exists", graph, l[a].item);
		return;
	}
	stats_of(t, &st);
	flt = gp_dtype_is_float(t->dtype);
	rtol = t->dtype == GP_FLOAT32 ? RTOL_F32 : RTOL_F64;
	big = fmax(fabs(st.min), fabs(st.max));
	for (size_t j = a; j < b; j++) {
		if (strcmp(l[j].stat, "asum") == 0)
			want_asum = strtod(l[j].value, NULL);
		if (strcmp(l[j].stat, "sumsq") == 0)
			want_sumsq = strtod(l[j].value, NULL);
	}
	for (size_t j = a; j < b; j++) {
		const char *s = l[j].stat;
		double want = strtod(l[j].value, NULL), got, scale;

		if (strcmp(s, "dtype") == 0) {
			if (strcmp(l[j].value, st.dtype) != 0) {
				good = false;
				diag("  %s: dtype %s, want %s", l[j].item,
				    st.dtype, l[j].value);
			}
			continue;
		}
		if (strcmp(s, "numel") == 0) {
			got = (double)st.n;
			scale = 0;
		} else if (strcmp(s, "sum") == 0) {
			got = st.sum;
			scale = want_asum;
		} else if (strcmp(s, "asum") == 0) {
			got = st.asum;
			scale = want_asum;
		} else if (strcmp(s, "sumsq") == 0) {
			got = st.sumsq;
			scale = want_sumsq;
		} else if (strcmp(s, "min") == 0) {
			got = st.min;
			scale = big;
		} else if (strcmp(s, "max") == 0) {
			got = st.max;
			scale = big;
		} else if (s[0] == '@') {
			int64_t i = strtoll(s + 1, NULL, 10);

			if (i < 0 || i >= st.n) {
				good = false;
				diag("  %s: no element %s", l[j].item, s);
				continue;
			}
			got = gp_tensor_get(t, i);
			scale = big;
		} else {
			good = false;
			diag("  %s: unknown statistic %s", l[j].item, s);
			continue;
		}
		if (!flt || strcmp(s, "numel") == 0)
			scale = 0;	/* exact */
		if (!(fabs(got - want) <= rtol * scale)) {
			good = false;
			diag("  %s %s: got %.17g, want %.17g (|diff| %.3g, tol "
			    "%.3g)", l[j].item, s, got, want, fabs(got - want),
			    rtol * scale);
		}
		if (flt && scale > 0 && fabs(got - want) / scale / rtol >
		    *worst)
			*worst = fabs(got - want) / scale / rtol;
	}
	ok(good, "%s: %s %s(%lld) matches numpy", graph, l[a].item, st.dtype,
	    (long long)st.n);
}

static const struct gp_tensor *
find_item(struct gp_session *s, const char *graph, const char *item)
{
	struct gp_graph *g = gp_session_graph(s);
	char buf[160], *colon;
	int fn, k, v;

	snprintf(buf, sizeof(buf), "%s", item);
	if ((colon = strchr(buf, ':')) == NULL)
		return (NULL);
	*colon = '\0';
	if (strcmp(buf, "shared") == 0) {
		v = gp_graph_find_var(g, colon + 1);
		return (v >= 0 && g->vars[v].kind == GP_VAR_SHARED ?
		    &g->vars[v].value : NULL);
	}
	if ((fn = fn_index(g, buf)) < 0 ||
	    (k = output_pos(graph, buf, colon + 1)) < 0)
		return (NULL);
	return (gp_vm_output(gp_session_vm(s), fn, k));
}

static void
test_checksums(void)
{
	char *path = gp_xasprintf("%s/tests/models/expected.txt", srcdir);
	FILE *fp = fopen(path, "r");
	struct line *l = NULL;
	size_t n = 0, cap = 0;
	char buf[512];

	if (!ok(fp != NULL, "%s opens", path)) {
		free(path);
		return;
	}
	while (fgets(buf, sizeof(buf), fp) != NULL) {
		struct line x;

		if (buf[0] == '#' || buf[0] == '\n')
			continue;
		if (sscanf(buf, "%63s %d %159s %31s %63s", x.graph, &x.calls,
		    x.item, x.stat, x.value) != 5 || x.calls < 1) {
			ok(false, "expected.txt: cannot parse: %s", buf);
			continue;
		}
		gp_grow(&l, &cap, n + 1, sizeof(*l));
		l[n++] = x;
	}
	fclose(fp);
	free(path);
	for (size_t a = 0; a < n;) {
		size_t b = a;
		struct gp_session *s;
		double worst = 0;
		size_t items = 0, checked = 0;

		while (b < n && strcmp(l[b].graph, l[a].graph) == 0)
			b++;
		s = session_open(l[a].graph);
		if (ok(s != NULL, "%s: session opens", l[a].graph)) {
			struct gp_graph *g = gp_session_graph(s);

			/* the last round one function at a time: an output
			 * is read right after its function's call (a
			 * variable two functions output holds the value of
			 * the last call of either) */
			gp_session_run(s, -1, (uint64_t)l[a].calls - 1);
			for (size_t f = 0; f <= g->n_fns; f++) {
				size_t plen = f < g->n_fns ?
				    strlen(g->fns[f].name) : 6;
				const char *pre = f < g->n_fns ?
				    g->fns[f].name : "shared";

				if (f < g->n_fns)
					gp_session_run(s, (int)f, 1);
				for (size_t i = a; i < b;) {
					size_t j = i;

					while (j < b && strcmp(l[j].item,
					    l[i].item) == 0)
						j++;
					if (f == 0)
						items++;
					if (strncmp(l[i].item, pre, plen) == 0 &&
					    l[i].item[plen] == ':') {
						check_item(l[a].graph, l, i, j,
						    find_item(s, l[a].graph,
						    l[i].item), &worst);
						checked++;
					}
					i = j;
				}
			}
			is_int((long long)checked, (long long)items, "%s: "
			    "every item of expected.txt names a function or "
			    "a shared variable", l[a].graph);
			diag("%s after %d rounds: largest difference from "
			    "numpy %.3g of the tolerance", l[a].graph,
			    l[a].calls, worst);
		}
		gp_session_free(s);
		a = b;
	}
	free(l);
}

int
main(void)
{
	if ((srcdir = getenv("top_srcdir")) == NULL)
		srcdir = "..";
	test_logreg_grads();
	test_mlp_grads();
	test_training("logreg");
	test_training("mlp");
	test_training("mlp32");
	test_checksums();
	return (done_testing());
}
