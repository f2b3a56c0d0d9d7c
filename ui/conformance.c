/*
 * conformance.c: the ONNX conformance runner (see conformance.h).  Each
 * case's model is built with its inputs (input_K.pb feeds the K-th graph
 * input that is not an initializer), rewritten as the flags say, run once
 * by the VM, and each output compared with output_K.pb by ONNX's backend
 * test tolerances: floats within atol 1e-7 + rtol 1e-3 * |expected|
 * (NaN equals NaN, infinities equal themselves), integers and bools
 * exactly, dtypes and shapes equal.  A float output that fails is told
 * by its worst element, the count outside and the largest difference
 * against the largest expected value.
 */
#include "config.h"

#include "conformance.h"

#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "graph/graph.h"
#include "load/onnx-build.h"
#include "load/onnx-read.h"
#include "rewrite/rewrite.h"
#include "graph/tensor.h"
#include "run/vm.h"

#define RTOL 1e-3
#define ATOL 1e-7

enum verdict { V_PASS, V_FAIL, V_UNSUP, V__COUNT };

static const char *const verdict_name[V__COUNT] = {"pass", "FAIL",
	"unsupported"};

struct optype {
	char	*name;
	int	 n[V__COUNT];
};

struct runner {
	const struct gp_flags	*flags;
	struct optype		*ops;
	size_t			 n_ops, cap_ops;
	int			 n[V__COUNT];
};

static bool
is_dir(const char *p)
{
	struct stat st;

	return (stat(p, &st) == 0 && S_ISDIR(st.st_mode));
}

static bool
is_file(const char *p)
{
	struct stat st;

	return (stat(p, &st) == 0 && S_ISREG(st.st_mode));
}

static int
by_name(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* The entries of dir whose names start with prefix, sorted. */
static char **
list_dir(const char *dir, const char *prefix, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	if (d == NULL)
		return (NULL);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' ||
		    strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		gp_grow(&v, &cap, *n + 1, sizeof(*v));
		v[(*n)++] = gp_xstrdup(de->d_name);
	}
	closedir(d);
	if (*n > 0)
		qsort(v, *n, sizeof(*v), by_name);
	return (v);
}

static void
free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void
count_ops(struct runner *r, const struct gp_onnx_model *m, enum verdict v)
{
	const Onnx__GraphProto *g = m != NULL ? m->graph : NULL;
	char **seen = NULL;
	size_t n_seen = 0, cap = 0;

	for (size_t i = 0; g != NULL && i < g->n_node; i++) {
		const char *t = g->node[i]->op_type != NULL ?
		    g->node[i]->op_type : "?";
		size_t k;

		for (k = 0; k < n_seen && strcmp(seen[k], t) != 0; k++)
			;
		if (k < n_seen)
			continue;
		gp_grow(&seen, &cap, n_seen + 1, sizeof(*seen));
		seen[n_seen++] = (char *)t;
		for (k = 0; k < r->n_ops && strcmp(r->ops[k].name, t) != 0;
		    k++)
			;
		if (k == r->n_ops) {
			gp_grow(&r->ops, &r->cap_ops, r->n_ops + 1,
			    sizeof(*r->ops));
			memset(&r->ops[k], 0, sizeof(r->ops[k]));
			r->ops[k].name = gp_xstrdup(t);
			r->n_ops++;
		}
		r->ops[k].n[v]++;
	}
	free(seen);
}

static void
fmt_index(char *buf, size_t cap, const struct gp_tensor *t, int64_t i)
{
	size_t k = 0;

	k += (size_t)snprintf(buf + k, cap - k, "[");
	{
		int64_t idx[GP_MAX_DIMS], r = i;

		for (int d = t->ndim - 1; d >= 0; d--) {
			idx[d] = t->shape[d] > 0 ? r % t->shape[d] : 0;
			r = t->shape[d] > 0 ? r / t->shape[d] : 0;
		}
		for (int d = 0; d < t->ndim && k < cap; d++)
			k += (size_t)snprintf(buf + k, cap - k, "%s%lld",
			    d ? "," : "", (long long)idx[d]);
	}
	if (k < cap)
		snprintf(buf + k, cap - k, "]");
}

/* Compare got with want; on a difference err says where and how. */
static int
compare(const struct gp_tensor *got, const struct gp_tensor *want,
    struct gp_err *err)
{
	struct gp_tensor g = {0};
	int64_t n, worst = -1, n_bad = 0;
	double worst_excess = 0, max_diff = 0, max_want = 0;
	size_t es;
	int rc = 0;

	if (got->dtype != want->dtype)
		return (gp_err_set(err, "dtype %s, expected %s",
		    gp_dtype_name(got->dtype), gp_dtype_name(want->dtype)));
	if (got->ndim != want->ndim ||
	    memcmp(got->shape, want->shape, sizeof(int64_t) *
	    (size_t)got->ndim) != 0) {
		struct gp_buf a = {0}, b = {0};

		gp_shape_format(&a, got->ndim, got->shape);
		gp_shape_format(&b, want->ndim, want->shape);
		gp_err_set(err, "shape %s, expected %s", gp_buf_str(&a),
		    gp_buf_str(&b));
		gp_buf_free(&a);
		gp_buf_free(&b);
		return (-1);
	}
	gp_tensor_copy(&g, got);
	n = gp_tensor_numel(&g);
	es = gp_dtype_size(g.dtype);
	for (int64_t i = 0; i < n; i++) {
		const char *pa = gp_tensor_data(&g) + (size_t)i * es;
		const char *pb = gp_tensor_data(want) + (size_t)i * es;

		if (gp_dtype_is_float(g.dtype)) {
			double a = gp_dtype_load(pa, g.dtype);
			double b = gp_dtype_load(pb, g.dtype);
			double excess;

			if (isfinite(b) && fabs(b) > max_want)
				max_want = fabs(b);
			if ((isnan(a) && isnan(b)) || a == b)
				continue;
			excess = isnan(a) || isnan(b) || isinf(a) ||
			    isinf(b) ? INFINITY : fabs(a - b) -
			    (ATOL + RTOL * fabs(b));
			if (!(fabs(a - b) <= max_diff))
				max_diff = fabs(a - b);
			if (excess > 0)
				n_bad++;
			if (excess > 0 && (worst < 0 ||
			    excess > worst_excess)) {
				worst = i;
				worst_excess = excess;
			}
		} else if (memcmp(pa, pb, es) != 0 && worst < 0)
			worst = i;
	}
	if (worst >= 0) {
		char idx[128];
		const char *pa = gp_tensor_data(&g) + (size_t)worst * es;
		const char *pb = gp_tensor_data(want) + (size_t)worst * es;

		fmt_index(idx, sizeof(idx), &g, worst);
		/* how many, and how far against the output's scale: a deep
		 * model's float32 rounding differs from the expected run's
		 * (ONNX Runtime's from torch's too) on its smallest values */
		if (gp_dtype_is_float(g.dtype)) {
			char scale[80] = "";

			if (max_want > 0 && isfinite(max_diff))
				snprintf(scale, sizeof(scale), " (%.3g of max "
				    "|expected| %.3g)", max_diff / max_want,
				    max_want);
			gp_err_set(err, "element %s: got %.9g, expected %.9g "
			    "(rtol %g, atol %g); %" PRId64 " of %" PRId64
			    " elements outside, max |diff| %.3g%s", idx,
			    gp_dtype_load(pa, g.dtype),
			    gp_dtype_load(pb, g.dtype), RTOL, ATOL, n_bad, n,
			    max_diff, scale);
		}
		else
			gp_err_set(err, "element %s: got %.17g, expected "
			    "%.17g (exact)", idx, gp_dtype_load(pa, g.dtype),
			    gp_dtype_load(pb, g.dtype));
		rc = -1;
	}
	gp_tensor_release(&g);
	return (rc);
}

/* One test_data_set: build with its inputs, run, compare. */
static enum verdict
run_set(struct runner *r, struct gp_onnx_model *m, const char *set,
    struct gp_err *err)
{
	struct gp_onnx_feed feeds[64];
	struct gp_onnx_build_opts bo = {.allow_extern = false};
	struct gp_onnx_why why;
	struct gp_vm_opts vo = {.allow_gc = r->flags->allow_gc};
	struct gp_graph *g = NULL;
	struct gp_vm *vm = NULL;
	enum verdict v = V_FAIL;
	char path[4200];
	int nf = 0;

	/* a sequence or optional input's file is no TensorProto */
	if (gp_onnx_check_dtypes(m, err) < 0)
		return (V_UNSUP);
	for (int k = 0; k < 64; k++) {
		snprintf(path, sizeof(path), "%s/input_%d.pb", set, k);
		if (!is_file(path))
			break;
		if (k >= m->n_inputs) {
			gp_err_set(err, "%s: the model has %d inputs", path,
			    m->n_inputs);
			goto out;
		}
		if (gp_onnx_tensor_file(path, m->limit, &feeds[nf].value,
		    err) < 0) {
			if (strstr(err->msg, "not supported") != NULL)
				v = V_UNSUP;
			goto out;
		}
		feeds[nf].name = m->inputs[k].name;
		feeds[nf].from = "input file";
		nf++;
	}
	bo.feeds = feeds;
	bo.n_feeds = nf;
	if ((g = gp_onnx_build(m, &bo, &why, err)) == NULL) {
		if (why.unsupported[0] != '\0')
			v = V_UNSUP;
		goto out;
	}
	if (gp_rewrite_run(g, r->flags, NULL, err) < 0 ||
	    (vm = gp_vm_new(g, &vo, NULL, err)) == NULL)
		goto out;
	gp_vm_call(vm, 0, NULL);
	for (int k = 0; k < g->fns[0].n_out; k++) {
		struct gp_tensor want = {0};
		struct gp_err e;

		snprintf(path, sizeof(path), "%s/output_%d.pb", set, k);
		if (!is_file(path))
			break;
		if (gp_onnx_tensor_file(path, m->limit, &want, err) < 0) {
			if (strstr(err->msg, "not supported") != NULL)
				v = V_UNSUP;
			goto out;
		}
		if (compare(gp_vm_output(vm, 0, k), &want, &e) < 0) {
			gp_err_set(err, "%s: output %d '%s': %s",
			    strrchr(set, '/') != NULL ? strrchr(set, '/') + 1 :
			    set, k, m->outputs[k].name, e.msg);
			gp_tensor_release(&want);
			goto out;
		}
		gp_tensor_release(&want);
	}
	v = V_PASS;
out:
	for (int k = 0; k < nf; k++)
		gp_tensor_release(&feeds[k].value);
	gp_vm_free(vm);
	gp_graph_free(g);
	return (v);
}

static void
run_case(struct runner *r, const char *dir)
{
	struct gp_onnx_opts ro = {.limit_bytes =
	    (uint64_t)r->flags->memory_limit};
	struct gp_onnx_model *m;
	struct gp_err err = {{0}};
	enum verdict v = V_PASS;
	char path[4096];
	char **sets;
	size_t n_sets;

	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	m = gp_onnx_read(path, &ro, &err);
	if (m == NULL)
		v = strstr(err.msg, "newer than gptop supports") != NULL ?
		    V_UNSUP : V_FAIL;
	sets = list_dir(dir, "test_data_set_", &n_sets);
	for (size_t i = 0; m != NULL && i < n_sets && v == V_PASS; i++) {
		char set[4096];

		snprintf(set, sizeof(set), "%s/%s", dir, sets[i]);
		v = run_set(r, m, set, &err);
	}
	if (m != NULL && n_sets == 0) {
		v = V_FAIL;
		gp_err_set(&err, "no test_data_set_N folder");
	}
	free_list(sets, n_sets);
	r->n[v]++;
	count_ops(r, m, v);
	if (v == V_PASS)
		printf("pass         %s\n", dir);
	else
		printf("%-12s %s: %s\n", verdict_name[v], dir, err.msg);
	fflush(stdout);
	gp_onnx_free(m);
}

/* A case folder, or a folder of them (searched 3 levels deep). */
static int
walk(struct runner *r, const char *dir, int depth)
{
	char path[4096];
	char **sub;
	size_t n;
	int found = 0;

	snprintf(path, sizeof(path), "%s/model.onnx", dir);
	if (is_file(path)) {
		run_case(r, dir);
		return (1);
	}
	if (depth == 0)
		return (0);
	sub = list_dir(dir, "", &n);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, sub[i]);
		if (is_dir(path))
			found += walk(r, path, depth - 1);
	}
	free_list(sub, n);
	return (found);
}

static void
runner_free(struct runner *r)
{
	for (size_t i = 0; i < r->n_ops; i++)
		free(r->ops[i].name);
	free(r->ops);
}

static int
by_op(const void *a, const void *b)
{
	return (strcmp(((const struct optype *)a)->name,
	    ((const struct optype *)b)->name));
}

int
ui_conformance_main(int n, char **dirs, const struct gp_flags *flags)
{
	struct runner r = {.flags = flags};
	int total;

	if (n == 0) {
		fprintf(stderr, "gptop: --conformance needs at least one "
		    "folder (e.g. /usr/share/libonnx-testdata/data/node)\n");
		return (2);
	}
	for (int i = 0; i < n; i++) {
		if (!is_dir(dirs[i])) {
			fprintf(stderr, "gptop: --conformance: %s: not a "
			    "folder\n", dirs[i]);
			runner_free(&r);
			return (2);
		}
		if (walk(&r, dirs[i], 3) == 0) {
			fprintf(stderr, "gptop: --conformance: %s: no test "
			    "case (a folder with model.onnx and "
			    "test_data_set_N/) found\n", dirs[i]);
			runner_free(&r);
			return (2);
		}
	}
	if (r.n_ops > 0)
		qsort(r.ops, r.n_ops, sizeof(*r.ops), by_op);
	printf("\nby op type (a case counts under each op type it uses):\n");
	printf("  %-28s %6s %6s %12s\n", "op type", "pass", "FAIL",
	    "unsupported");
	for (size_t i = 0; i < r.n_ops; i++) {
		printf("  %-28s %6d %6d %12d\n", r.ops[i].name,
		    r.ops[i].n[V_PASS], r.ops[i].n[V_FAIL],
		    r.ops[i].n[V_UNSUP]);
	}
	runner_free(&r);
	total = r.n[V_PASS] + r.n[V_FAIL] + r.n[V_UNSUP];
	printf("conformance: %d case%s: %d pass, %d FAIL, %d unsupported\n",
	    total, total == 1 ? "" : "s", r.n[V_PASS], r.n[V_FAIL],
	    r.n[V_UNSUP]);
	return (r.n[V_FAIL] > 0 ? 1 : 0);
}
