/*
 * test-memprof.c: the memory profile.  Small graphs built with test-local
 * ops (an allocating op, a view, a transposed view, a view that copies,
 * an op that may overwrite its input) whose peaks are computed by hand;
 * every prediction is then held against the allocator while the VM runs
 * the graph (per call and, through an observer, after every step).  Then
 * the minimum-peak search, its budget and its speed; the report; the
 * example graphs through a session; and a 100,000-apply graph for speed.
 */
#include "config.h"

#include <dirent.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tap.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/flags.h"
#include "ops/conv-gemm.h"
#include "ops/par.h"
#include "ops/scratch.h"
#include "load/graph-json.h"
#include "prof/memprof.h"
#include "prof/memreport.h"
#include "graph/op.h"
#include "prof/profile-hook.h"
#include "rewrite/rewrite.h"
#include "session/session.h"
#include "run/vm.h"

#if defined(__SANITIZE_ADDRESS__)
#define SLOW 4
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLOW 4
#endif
#endif
#ifndef SLOW
#define SLOW 1
#endif

#define F8 8	/* bytes of a float64 */

/* CPU time of the process, ns: steadier than the wall clock on a busy
 * machine. */
static uint64_t
cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

/*
 * Test-local ops.  "tnew" allocates its output: float64 of {"n": N}
 * elements, or input 0's type; "tview" is a view of input 0; "ttrans" a
 * transposed view of a matrix; "tcopyview" declares a view but copies a
 * non-contiguous input (as reshape does); "tinpl" may overwrite input 0
 * (the tests set destroy[0] = 0 by hand); "tsplit" has two outputs of
 * {"n"} elements each.
 */
static const char *const tparams[] = {"n", NULL};

static int
prep_common(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	struct gp_type *t = gp_graph_out_type(g, n, 0);
	int64_t e;

	if (gp_op_param_int(n->params, "n", -1, &e, err) < 0)
		return (-1);
	if (e >= 0 || n->n_in == 0) {
		t->dtype = GP_FLOAT64;
		t->ndim = 1;
		t->shape[0] = e >= 0 ? e : 1;
	} else
		*t = *gp_graph_in_type(g, n, 0);
	for (int k = 1; k < n->n_out; k++)
		*gp_graph_out_type(g, n, k) = *t;
	return (0);
}

static void
k_new(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	for (int k = 0; k < n->n_out; k++)
		memset(gp_tensor_data(out[k]), 0, gp_tensor_nbytes(out[k]));
}

static void
k_view(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	gp_tensor_view(out[0], in[0]);
}

static void
k_trans(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	int64_t t;

	gp_tensor_view(out[0], in[0]);
	t = out[0]->shape[0];
	out[0]->shape[0] = out[0]->shape[1];
	out[0]->shape[1] = t;
	t = out[0]->strides[0];
	out[0]->strides[0] = out[0]->strides[1];
	out[0]->strides[1] = t;
}

static void
k_copyview(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	if (gp_tensor_is_contiguous(in[0])) {
		gp_tensor_view(out[0], in[0]);
		out[0]->ndim = 1;
		out[0]->shape[0] = gp_tensor_numel(in[0]);
		out[0]->strides[0] = F8;
	} else {
		struct gp_tensor c = {0};

		gp_tensor_copy(&c, in[0]);
		gp_tensor_view(out[0], &c);
		gp_tensor_release(&c);
		out[0]->ndim = 1;
		out[0]->shape[0] = gp_tensor_numel(in[0]);
		out[0]->strides[0] = F8;
	}
}

static int
prep_new(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	if (prep_common(g, n, err) < 0)
		return (-1);
	n->kernel = k_new;
	return (0);
}

static int
prep_view(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	*gp_graph_out_type(g, n, 0) = *gp_graph_in_type(g, n, 0);
	n->view[0] = 0;
	n->impl = GP_IMPL_VIEW;
	n->kernel = k_view;
	return (0);
}

static int
prep_trans(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	struct gp_type *t = gp_graph_out_type(g, n, 0);

	*t = *gp_graph_in_type(g, n, 0);
	if (t->ndim != 2)
		return (gp_err_set(err, "ttrans takes a matrix"));
	t->shape[0] = gp_graph_in_type(g, n, 0)->shape[1];
	t->shape[1] = gp_graph_in_type(g, n, 0)->shape[0];
	n->view[0] = 0;
	n->impl = GP_IMPL_VIEW;
	n->kernel = k_trans;
	return (0);
}

static int
prep_copyview(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *i = gp_graph_in_type(g, n, 0);
	struct gp_type *t = gp_graph_out_type(g, n, 0);

	t->dtype = i->dtype;
	t->ndim = 1;
	t->shape[0] = gp_shape_numel(i->ndim, i->shape);
	n->view[0] = 0;
	n->impl = GP_IMPL_VIEW;
	n->kernel = k_copyview;
	return (0);
}

static const struct gp_op op_new = {
	.name = "tnew", .cls = "Test", .min_in = 0, .max_in = -1, .n_out = 1,
	.params = tparams, .prepare = prep_new,
};
static const struct gp_op op_view = {
	.name = "tview", .cls = "Test", .min_in = 1, .max_in = 1, .n_out = 1,
	.flags = GP_OPF_VIEW, .prepare = prep_view,
};
static const struct gp_op op_trans = {
	.name = "ttrans", .cls = "Test", .min_in = 1, .max_in = 1, .n_out = 1,
	.flags = GP_OPF_VIEW, .prepare = prep_trans,
};
static const struct gp_op op_copyview = {
	.name = "tcopyview", .cls = "Test", .min_in = 1, .max_in = 1,
	.n_out = 1, .flags = GP_OPF_VIEW, .prepare = prep_copyview,
};
static const struct gp_op op_inpl = {
	.name = "tinpl", .cls = "Test", .min_in = 1, .max_in = -1, .n_out = 1,
	.flags = GP_OPF_INPLACE_OK, .params = tparams, .prepare = prep_new,
};
static const struct gp_op op_split = {
	.name = "tsplit", .cls = "Test", .min_in = 1, .max_in = -1, .n_out = 2,
	.params = tparams, .prepare = prep_new,
};

/* "twork" allocates its output like tnew and its kernel takes work space
 * (ops/scratch.h): the col slot twice ({"w"} bytes, then 100), the params
 * slot {"p"} bytes; it declares w + p, the largest request of each slot.
 * "tworklie" runs the same kernel but declares only w. */
static const char *const wparams[] = {"w", "p", NULL};

static void
k_work(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	int64_t w = json_integer_value(json_object_get(n->params, "w"));
	int64_t p = json_integer_value(json_object_get(n->params, "p"));
	char *a = gp_scratch_get(GP_SCRATCH_COL, (size_t)w);

	memset(a, 1, (size_t)w);
	a = gp_scratch_get(GP_SCRATCH_COL, 100);
	memset(a, 2, 100);
	a = gp_scratch_get(GP_SCRATCH_PARAMS, (size_t)p);
	memset(a, 3, (size_t)p);
	memset(gp_tensor_data(out[0]), 0, gp_tensor_nbytes(out[0]));
}

static int
prep_work(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	*gp_graph_out_type(g, n, 0) = *gp_graph_in_type(g, n, 0);
	n->kernel = k_work;
	return (0);
}

static uint64_t
work_decl(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	(void)g;
	(void)in;
	return ((uint64_t)(json_integer_value(json_object_get(n->params,
	    "w")) + json_integer_value(json_object_get(n->params, "p"))));
}

static uint64_t
work_lie(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	(void)g;
	(void)in;
	return ((uint64_t)json_integer_value(json_object_get(n->params,
	    "w")));
}

static const struct gp_op op_work = {
	.name = "twork", .cls = "Test", .min_in = 1, .max_in = 1, .n_out = 1,
	.params = wparams, .prepare = prep_work, .workspace = work_decl,
};
static const struct gp_op op_worklie = {
	.name = "tworklie", .cls = "Test", .min_in = 1, .max_in = 1,
	.n_out = 1, .params = wparams, .prepare = prep_work,
	.workspace = work_lie,
};

/*
 * Graph building.
 */
static int
var(struct gp_graph *g, const char *name, enum gp_var_kind kind, int64_t n)
{
	struct gp_type t = {.dtype = GP_FLOAT64, .ndim = 1, .shape = {n}};
	int v = gp_graph_add_var(g, name, kind, &t);

	gp_tensor_alloc_zero(&g->vars[v].value, GP_FLOAT64, 1, t.shape);
	return (v);
}

static int
var2(struct gp_graph *g, const char *name, int64_t r, int64_t c)
{
	struct gp_type t = {.dtype = GP_FLOAT64, .ndim = 2, .shape = {r, c}};
	int v = gp_graph_add_var(g, name, GP_VAR_INPUT, &t);

	gp_tensor_alloc_zero(&g->vars[v].value, GP_FLOAT64, 2, t.shape);
	return (v);
}

/* Apply op to n_in inputs; elems >= 0: a {"n": elems} output.  Returns
 * output 0's variable. */
static int
apply(struct gp_graph *g, const struct gp_op *op, int64_t elems, int n_in,
    ...)
{
	int in[64], idx;
	va_list ap;
	struct gp_err err;
	json_t *params = elems >= 0 ? json_pack("{s:I}", "n",
	    (json_int_t)elems) : NULL;

	va_start(ap, n_in);
	for (int k = 0; k < n_in; k++)
		in[k] = va_arg(ap, int);
	va_end(ap);
	idx = gp_graph_add_node(g, op, params, n_in, in, op->n_out, &err);
	if (idx < 0) {
		diag("add_node: %s", err.msg);
		abort();
	}
	return (g->nodes[idx].out[0]);
}

static int
apply_n(struct gp_graph *g, const struct gp_op *op, int64_t elems, int n_in,
    const int *in)
{
	struct gp_err err;
	json_t *params = elems >= 0 ? json_pack("{s:I}", "n",
	    (json_int_t)elems) : NULL;
	int idx = gp_graph_add_node(g, op, params, n_in, in, op->n_out, &err);

	if (idx < 0) {
		diag("add_node: %s", err.msg);
		abort();
	}
	return (g->nodes[idx].out[0]);
}

/* Make var v's producer overwrite its input k in place. */
static void
set_inplace(struct gp_graph *g, int v, int k)
{
	g->nodes[g->vars[v].producer].destroy[0] = (int8_t)k;
}

static void
add_fn(struct gp_graph *g, const char *name, int n_out, const int *out,
    int n_upd, const struct gp_update *upd)
{
	struct gp_function *f;

	g->fns = gp_xrealloc(g->fns, sizeof(*g->fns) * (g->n_fns + 1));
	f = &g->fns[g->n_fns++];
	memset(f, 0, sizeof(*f));
	f->name = gp_xstrdup(name);
	f->n_out = n_out;
	f->n_upd = n_upd;
	f->out = gp_xmalloc(sizeof(int) * (size_t)(n_out + 1));
	memcpy(f->out, out, sizeof(int) * (size_t)n_out);
	f->out_name = gp_xmalloc(sizeof(char *) * (size_t)(n_out + 1));
	for (int k = 0; k < n_out; k++)
		f->out_name[k] = gp_xstrdup(g->vars[out[k]].name);
	f->upd = gp_xmalloc(sizeof(*upd) * (size_t)(n_upd + 1));
	if (n_upd > 0)
		memcpy(f->upd, upd, sizeof(*upd) * (size_t)n_upd);
}

static struct gp_vm *
vm_link(struct gp_graph *g, bool gc, struct gp_profile *prof)
{
	struct gp_vm_opts o = {.allow_gc = gc};
	struct gp_vm_hook hook = gp_profile_hook(prof);
	struct gp_err err;
	struct gp_vm *vm = gp_vm_new(g, &o, prof != NULL ? &hook : NULL, &err);

	if (vm == NULL) {
		diag("gp_vm_new: %s", err.msg);
		abort();
	}
	return (vm);
}

/*
 * Measured against predicted: run the session's rounds (every function in
 * turn) and compare the allocator with the prediction, per call (the
 * live bytes at its start and its peak) and after every step.
 */
struct obs {
	const struct gp_mem_sim	*sim;	/* the watched function's */
	int			 fn;
	bool			 on;
	int			 bad;
	uint64_t		 hw;
};

static void
observe(void *ctx, int fn, int step)
{
	struct obs *o = ctx;
	struct gp_alloc_stats st;

	if (!o->on || fn != o->fn)
		return;
	gp_alloc_get_stats(&st);
	if (st.live != o->sim->after[step].live) {
		if (o->bad++ == 0)
			diag("  step %d: live %llu, predicted %llu", step,
			    (unsigned long long)st.live,
			    (unsigned long long)o->sim->after[step].live);
	}
	if (o->sim->during[step].live > o->hw)
		o->hw = o->sim->during[step].live;
	if (st.peak != o->hw) {
		if (o->bad++ == 0)
			diag("  step %d: high-water %llu, predicted %llu",
			    step, (unsigned long long)st.peak,
			    (unsigned long long)o->hw);
	}
}

/* mp[f] for every function of g, computed on vm; vm built with gc. */
static void
check_measured(const char *what, struct gp_vm *vm, int n_fn,
    struct gp_memprof **mp, bool gc)
{
	int bad = 0, badstep = 0;
	uint64_t base0;
	struct gp_alloc_stats st;
	struct obs ob = {0};

	gp_alloc_get_stats(&st);
	base0 = st.live;
	gp_vm_set_observer(vm, observe, &ob);
	for (int r = 0; r < 3; r++)
		for (int f = 0; f < n_fn; f++) {
			const struct gp_mem_sim *s = &mp[f]->sim[gc ? 0 : 1];
			uint64_t want_base = r == 0 ? s->base_first :
			    s->base_steady;
			uint64_t want_peak = r == 0 ? s->peak_first :
			    s->peak_steady;

			gp_alloc_get_stats(&st);
			if (st.live != want_base) {
				if (bad++ == 0)
					diag("  round %d fn %d: live at start "
					    "%llu, predicted %llu", r, f,
					    (unsigned long long)st.live,
					    (unsigned long long)want_base);
			}
			ob.sim = s;
			ob.fn = f;
			ob.on = r == s->peak_call || (r > 1 &&
			    s->peak_call == 1);
			ob.hw = st.live;
			gp_alloc_reset_peak();
			gp_vm_call(vm, f, NULL);
			gp_alloc_get_stats(&st);
			if (st.peak != want_peak) {
				if (bad++ == 0)
					diag("  round %d fn %d: peak %llu, "
					    "predicted %llu", r, f,
					    (unsigned long long)st.peak,
					    (unsigned long long)want_peak);
			}
		}
	badstep = ob.bad;
	gp_vm_set_observer(vm, NULL, NULL);
	(void)base0;
	ok(bad == 0, "%s: measured = predicted at every call's start and "
	    "peak (GC %s)", what, gc ? "on" : "off");
	ok(badstep == 0, "%s: measured = predicted after every step (GC %s)",
	    what, gc ? "on" : "off");
}

/* Compute every function's profile, check them against the VM with GC
 * gc, and free.  Profiles go to out[] if not NULL (caller frees). */
static void
run_checks(const char *what, struct gp_graph *g, bool gc,
    struct gp_memprof **out, const struct gp_memprof_opts *o)
{
	struct gp_vm *vm = vm_link(g, gc, NULL);
	struct gp_memprof *mp[8];
	int n = (int)g->n_fns;

	for (int f = 0; f < n; f++)
		mp[f] = gp_memprof_compute(g, vm, f, o);
	check_measured(what, vm, n, mp, gc);
	gp_vm_free(vm);
	for (int f = 0; f < n; f++) {
		if (out != NULL)
			out[f] = mp[f];
		else
			gp_memprof_free(mp[f]);
	}
}

/*
 * The graphs.
 */
#define N 1000
#define NB (N * F8)

static void
test_chain(void)
{
	struct gp_graph *g = gp_graph_new("chain");
	struct gp_memprof *mp[1], *m;
	int x = var(g, "x", GP_VAR_INPUT, N);
	int a = apply(g, &op_new, -1, 1, x);
	int b = apply(g, &op_new, -1, 1, a);
	int c = apply(g, &op_new, -1, 1, b);

	add_fn(g, "f", 1, &c, 0, NULL);
	run_checks("chain", g, true, mp, NULL);
	m = mp[0];
	is_int(m->n_apply, 3, "chain: 3 applies");
	is_int((long long)m->inter[0][GP_MEM_AS_RUN], 2 * NB,
	    "chain: intermediates peak 2N (input and output of a step)");
	is_int((long long)m->inter[1][GP_MEM_AS_RUN], 3 * NB,
	    "chain: GC off keeps all three");
	is_int((long long)m->ap[1].inter_during, 2 * NB,
	    "chain: during apply 1, a and b");
	is_int((long long)m->ap[1].inter_after, NB, "chain: after it, b");
	is_int((long long)m->val_input, NB, "chain: the input's value");
	is_int((long long)m->sim[0].peak_first, 3 * NB,
	    "chain: first call: x + a + b");
	is_int((long long)m->sim[0].base_steady, 2 * NB,
	    "chain: later calls start with x and the held output c");
	is_int((long long)m->sim[0].held, NB, "chain: c is held");
	is_int((long long)m->sim[0].peak_steady, 4 * NB,
	    "chain: later calls: x + c + a + b during apply 1");
	is_int(m->sim[0].peak_step, 1, "chain: the peak is apply 1");
	is_int(m->sim[0].peak_call, 1, "chain: in a later call");
	is_int((long long)m->sim[0].peak_fresh, 2 * NB,
	    "chain: of it, 2N allocated by the call");
	is_int(m->sim[0].n_bufs, 4, "chain: four storages alive then");
	ok(m->sim[0].bufs[0].kind == GP_MEM_INPUT ||
	    m->sim[0].bufs[0].bytes == NB, "chain: largest first");
	{
		int kinds[5] = {0};

		for (int i = 0; i < m->sim[0].n_bufs; i++)
			kinds[m->sim[0].bufs[i].kind]++;
		ok(kinds[GP_MEM_INPUT] == 1 && kinds[GP_MEM_HELD] == 1 &&
		    kinds[GP_MEM_NEW] == 2, "chain: x, the held c, and new a "
		    "and b");
	}
	is_int((long long)m->sim[1].peak_first, 4 * NB,
	    "chain: GC off, first call: x + a + b + c");
	is_int((long long)m->sim[1].peak_steady, 4 * NB,
	    "chain: GC off, later calls reuse every buffer");
	is_int((long long)m->sim[1].held, 3 * NB,
	    "chain: GC off holds a, b and c between calls");
	ok(strcmp(gp_memprof_str(m, m->outs[0].var),
	    g->vars[a].name) == 0 && m->outs[0].alias == 'c',
	    "chain: apply 0 creates a");
	gp_memprof_free(m);
	run_checks("chain", g, false, NULL, NULL);
	gp_graph_free(g);
}

/*
 * The buffer plan (run/vm.c): an output takes the smallest free buffer
 * that holds it, else the largest free one grown to fit, else a new one.
 * x -> a (1000) -> b (250) -> c (500) -> d (2000) -> e (10, the output):
 * a new 8000 B; b new 2000 B (a is read); c in a's 8000 (b is read); d in
 * b's, grown to 16000; e survives the call, outside the pool: 2 buffers,
 * 24000 B (with exact sizes only: 4, 30000 B).  Then p (1000) and q (300)
 * of x, r (200) of both, s (250) of r, t (900) of s, u (10) of t: p 8000,
 * q 2400, r new 1600; s takes q's 2400, the smaller of the two free; t
 * p's 8000: 3 buffers, 12000 B (s in p's would grow q's to 7200: 16800).
 */
/* g's function 0 (output out) planned: want_n buffers, want_b bytes; and
 * measured = predicted with GC on and off.  Frees g. */
static void
check_pool(const char *what, struct gp_graph *g, int out, int want_n,
    long long want_b)
{
	struct gp_vm *vm;
	size_t bytes;
	int nb;

	add_fn(g, "f", 1, &out, 0, NULL);
	vm = vm_link(g, true, NULL);
	gp_vm_pool(vm, 0, &nb, &bytes);
	is_int(nb, want_n, "%s: %d buffers", what, want_n);
	is_int((long long)bytes, want_b, "%s: %lld B", what, want_b);
	gp_vm_free(vm);
	run_checks(what, g, true, NULL, NULL);
	run_checks(what, g, false, NULL, NULL);
	gp_graph_free(g);
}

static void
test_pool(void)
{
	struct gp_graph *g = gp_graph_new("pool");
	int x = var(g, "x", GP_VAR_INPUT, N);
	int a = apply(g, &op_new, 1000, 1, x);
	int b = apply(g, &op_new, 250, 1, a);
	int c = apply(g, &op_new, 500, 1, b);
	int d = apply(g, &op_new, 2000, 1, c);

	check_pool("pool, chain", g, apply(g, &op_new, 10, 1, d), 2, 24000);
	g = gp_graph_new("pool2");
	x = var(g, "x", GP_VAR_INPUT, N);
	a = apply(g, &op_new, 1000, 1, x);
	b = apply(g, &op_new, 300, 1, x);
	c = apply(g, &op_new, 200, 2, a, b);
	d = apply(g, &op_new, 250, 1, c);
	d = apply(g, &op_new, 900, 1, d);
	check_pool("pool, best fit", g, apply(g, &op_new, 10, 1, d), 3, 12000);
}

/* x -> a -> b = twork(a) -> c: the work space is alive during b's apply
 * only, on top of its inputs and outputs. */
#define W_COL 24000
#define W_PAR 800
static struct gp_graph *
work_graph(const struct gp_op *op)
{
	struct gp_graph *g = gp_graph_new("work");
	int x = var(g, "x", GP_VAR_INPUT, N);
	int a = apply(g, &op_new, -1, 1, x);
	int in[1] = {a}, b, c, idx;
	struct gp_err err;

	idx = gp_graph_add_node(g, op, json_pack("{s:i, s:i}", "w", W_COL,
	    "p", W_PAR), 1, in, 1, &err);
	if (idx < 0) {
		diag("add_node: %s", err.msg);
		abort();
	}
	b = g->nodes[idx].out[0];
	c = apply(g, &op_new, -1, 1, b);
	add_fn(g, "f", 1, &c, 0, NULL);
	return (g);
}

static void
test_workspace(void)
{
	struct gp_graph *g = work_graph(&op_work);
	struct gp_memprof *mp[1], *m;
	const struct gp_mem_buf *wb = NULL;
	struct gp_alloc_stats st;

	run_checks("work space", g, true, mp, NULL);
	m = mp[0];
	is_int((long long)m->ap[1].work_bytes, W_COL + W_PAR,
	    "work space: the apply declares the largest col request plus "
	    "the params'");
	is_int((long long)m->ap[0].work_bytes + (long long)m->ap[2].work_bytes,
	    0, "work space: the others none");
	is_int(m->n_work, 1, "work space: one apply takes some");
	is_int((long long)m->work_max, W_COL + W_PAR, "work space: largest");
	is_int(m->work_max_step, 1, "work space: in apply 1");
	/* a later call: x, the held c, a and b, and the work space */
	is_int((long long)m->sim[0].peak_steady, 4 * NB + W_COL + W_PAR,
	    "work space: later calls peak at x + c + a + b + work");
	is_int((long long)m->sim[0].during[1].live, 4 * NB + W_COL + W_PAR,
	    "work space: in apply 1's high-water");
	is_int((long long)m->sim[0].after[1].live, 3 * NB,
	    "work space: gone after it (and a freed)");
	is_int((long long)m->sim[0].peak_fresh, 2 * NB + W_COL + W_PAR,
	    "work space: allocated during the call");
	is_int((long long)m->inter[0][GP_MEM_AS_RUN], 2 * NB,
	    "work space: not in Theano's intermediates");
	for (int i = 0; i < m->sim[0].n_bufs; i++)
		if (m->sim[0].bufs[i].kind == GP_MEM_WORK)
			wb = &m->sim[0].bufs[i];
	ok(wb != NULL && wb->bytes == W_COL + W_PAR && wb->step == 1 &&
	    strcmp(gp_memprof_str(m, wb->var), GP_MEM_WORK_NAME) == 0,
	    "work space: listed among the storages alive at the peak");
	ok(m->sim[0].n_bufs == 5 && m->sim[0].bufs[0].kind == GP_MEM_WORK,
	    "work space: largest first");
	gp_memprof_free(m);
	run_checks("work space", g, false, mp, NULL);
	is_int((long long)mp[0]->sim[1].peak_steady, 4 * NB + W_COL + W_PAR,
	    "work space: GC off, x + a + b + c + work");
	gp_memprof_free(mp[0]);
	gp_alloc_get_stats(&st);
	is_int((long long)st.work, 0, "work space: none held between calls");
	gp_graph_free(g);

	/* a declaration short of the kernel's requests: measured above */
	g = work_graph(&op_worklie);
	{
		struct gp_vm *vm = vm_link(g, true, NULL);
		struct gp_memprof *lm = gp_memprof_compute(g, vm, 0, NULL);

		gp_alloc_reset_peak();
		gp_alloc_get_stats(&st);
		gp_vm_call(vm, 0, NULL);
		{
			struct gp_alloc_stats s2;

			gp_alloc_get_stats(&s2);
			is_int((long long)(s2.peak - st.live), (long long)
			    (lm->sim[0].peak_first - lm->sim[0].base_first) +
			    W_PAR, "work space: an op declaring less than its "
			    "kernel takes is measured above its prediction");
		}
		gp_memprof_free(lm);
		gp_vm_free(vm);
	}
	gp_graph_free(g);
}

static void
test_diamond(void)
{
	struct gp_graph *g = gp_graph_new("diamond");
	struct gp_memprof *mp[1], *m;
	struct gp_memprof_opts o = {.min_peak = true};
	int x = var(g, "x", GP_VAR_INPUT, N);
	int a = apply(g, &op_new, N, 1, x);
	int b = apply(g, &op_new, 2 * N, 1, a);
	int c = apply(g, &op_new, N / 2, 1, a);
	int d = apply(g, &op_new, N, 2, b, c);

	add_fn(g, "f", 1, &d, 0, NULL);
	run_checks("diamond", g, true, mp, &o);
	m = mp[0];
	/* a 8000; +b 24000; +c 28000, a dies: 20000; +d 28000 */
	is_int((long long)m->inter[0][GP_MEM_AS_RUN], 28000,
	    "diamond: intermediates peak (b + c + d, or a + b + c)");
	is_int((long long)m->ap[2].inter_after, 20000,
	    "diamond: a freed after its last reader c");
	ok(m->min_done && m->min_optimal && m->min_peak == 28000,
	    "diamond: the minimum is the same, proven");
	is_int((long long)m->min_lower, 28000,
	    "diamond: the bound is apply d's inputs and output");
	gp_memprof_free(m);
	run_checks("diamond", g, false, NULL, NULL);
	gp_graph_free(g);
}

static void
test_view_of_view(void)
{
	struct gp_graph *g = gp_graph_new("views");
	struct gp_memprof *mp[1], *m;
	int x = var(g, "x", GP_VAR_INPUT, N);
	int a = apply(g, &op_new, -1, 1, x);
	int v1 = apply(g, &op_view, -1, 1, a);
	int v2 = apply(g, &op_view, -1, 1, v1);
	int b = apply(g, &op_new, -1, 2, v2, a);

	add_fn(g, "f", 1, &b, 0, NULL);
	run_checks("view of a view", g, true, mp, NULL);
	m = mp[0];
	is_int((long long)m->inter[0][GP_MEM_AS_RUN], 2 * NB,
	    "view of a view: one buffer for a, v1, v2, plus b");
	is_int((long long)m->sum_view, 2 * NB,
	    "view of a view: two outputs declared views");
	is_int((long long)m->inter[0][GP_MEM_NO_VIEW], 3 * NB,
	    "view of a view: with copies the peak is a + v2 + b");
	is_int((long long)m->ap[2].inter_after, NB,
	    "view of a view: v1 dead, the storage kept by v2 and a");
	ok(m->outs[1].alias == 'v' && m->outs[2].alias == 'v' &&
	    m->outs[1].src == 0, "view of a view: marked 'v'");
	is_int((long long)m->sim[0].peak_steady, 3 * NB,
	    "view of a view: x + held b + a");
	gp_memprof_free(m);
	gp_graph_free(g);
}

static void
test_inplace(void)
{
	struct gp_graph *g = gp_graph_new("inplace");
	struct gp_memprof *mp[1], *m;
	int x = var(g, "x", GP_VAR_INPUT, N);
	int a = apply(g, &op_new, -1, 1, x);
	int b = apply(g, &op_inpl, -1, 1, a);
	int c = apply(g, &op_new, N / 10, 1, b);

	set_inplace(g, b, 0);
	add_fn(g, "f", 1, &c, 0, NULL);
	run_checks("inplace", g, true, mp, NULL);
	m = mp[0];
	ok(m->outs[1].alias == 'i' && m->outs[1].src == 0,
	    "inplace: b is marked 'i' over input 0");
	is_int((long long)m->sum_inplace, NB, "inplace: N bytes not allocated");
	is_int((long long)m->inter[0][GP_MEM_AS_RUN], NB + 800,
	    "inplace: a's storage, reused by b, plus c");
	is_int((long long)m->inter[0][GP_MEM_NO_INPLACE], 2 * NB,
	    "inplace: excluding inplace, a and b coexist");
	is_int((long long)m->ap[1].inter_after, NB,
	    "inplace: a is dead after b, its storage is not");
	is_int((long long)m->sim[0].peak_first, 2 * NB + 800,
	    "inplace: first call, x + a/b + c");
	gp_memprof_free(m);
	run_checks("inplace", g, false, NULL, NULL);
	gp_graph_free(g);
}

/* Theano frees a storage when its last alias dies even if the origin is
 * still read (and later subtracts it a second time). */
static void
test_origin_outlives_view(void)
{
	struct gp_graph *g = gp_graph_new("origin");
	struct gp_memprof *mp[1], *m;
	int x = var(g, "x", GP_VAR_INPUT, N);
	int a = apply(g, &op_new, -1, 1, x);
	int v = apply(g, &op_view, -1, 1, a);
	int w = apply(g, &op_new, -1, 1, v);
	int z = apply(g, &op_new, -1, 2, a, w);

	add_fn(g, "f", 1, &z, 0, NULL);
	run_checks("origin read after its view dies", g, true, mp, NULL);
	m = mp[0];
	is_int((long long)m->ap[2].inter_after, 2 * NB,
	    "origin: after v's last reader, a (still read) and w remain");
	is_int((long long)m->ap[3].inter_during, 3 * NB,
	    "origin: during z: a, w and z");
	is_int((long long)m->ap[3].inter_after, NB,
	    "origin: after z: only z; a counted once");
	is_int((long long)m->inter[0][GP_MEM_AS_RUN], 3 * NB,
	    "origin: peak 3N");
	is_int((long long)m->sim[0].peak, 4 * NB, "origin: total with x");
	gp_memprof_free(m);
	gp_graph_free(g);
}

static void
test_functions(void)
{
	struct gp_graph *g = gp_graph_new("functions");
	struct gp_memprof *mp[2];
	int x = var(g, "x", GP_VAR_INPUT, N);
	int w = var(g, "W", GP_VAR_SHARED, N);
	int y = apply(g, &op_new, -1, 1, x);
	int z = apply(g, &op_new, -1, 1, y);
	int u = apply(g, &op_new, -1, 2, w, y);
	struct gp_update up = {.dst = w, .src = u};

	add_fn(g, "f0", 1, &y, 0, NULL);
	add_fn(g, "f1", 1, &z, 1, &up);
	run_checks("two functions", g, true, mp, NULL);
	is_int((long long)mp[0]->sim[0].peak_first, 3 * NB,
	    "functions: f0 first call: x, W, y");
	is_int((long long)mp[0]->sim[0].peak_steady, 4 * NB,
	    "functions: f0 later: f1's output z held too");
	is_int((long long)mp[1]->sim[0].base_first, 3 * NB,
	    "functions: f1 starts with f0's y held");
	/* f0 keeps its output y, so f1 cannot reuse y's buffer: it
	 * allocates another while f0's stays alive */
	is_int((long long)mp[1]->sim[0].peak_first, 6 * NB,
	    "functions: f1 peak: x, W, f0's y, its own y, z, u");
	is_int((long long)mp[1]->sim[0].peak_steady, 6 * NB,
	    "functions: f1 later: z reused, y not");
	is_int((long long)mp[1]->inter[0][GP_MEM_AS_RUN], 3 * NB,
	    "functions: f1 intermediates y, z, u");
	is_int((long long)mp[1]->val_used, 2 * NB,
	    "functions: f1 reads x and W");
	is_int((long long)mp[0]->val_used, NB, "functions: f0 reads x");
	is_int(mp[1]->n_fn, 2, "functions: two functions");
	for (int f = 0; f < 2; f++)
		gp_memprof_free(mp[f]);
	run_checks("two functions", g, false, NULL, NULL);
	gp_graph_free(g);
}

static void
test_update_inplace(void)
{
	struct gp_graph *g = gp_graph_new("update");
	struct gp_memprof *mp[1];
	int w = var(g, "W", GP_VAR_SHARED, N);
	int u = apply(g, &op_inpl, -1, 1, w);
	int c = apply(g, &op_new, 100, 1, u);
	int t = apply(g, &op_view, -1, 1, u);
	int outs[2] = {c, t};
	struct gp_update up = {.dst = w, .src = u};

	set_inplace(g, u, 0);
	add_fn(g, "f", 2, outs, 1, &up);
	run_checks("update in place", g, true, mp, NULL);
	is_int((long long)mp[0]->sim[0].peak, NB + 800,
	    "update in place: W's storage, updated in place, plus c");
	is_int((long long)mp[0]->sim[0].held, 800,
	    "update in place: c held (t is a view of W)");
	gp_memprof_free(mp[0]);
	run_checks("update in place", g, false, NULL, NULL);
	gp_graph_free(g);
}

static void
test_multi_output(void)
{
	struct gp_graph *g = gp_graph_new("split");
	struct gp_memprof *mp[1];
	int x = var(g, "x", GP_VAR_INPUT, N);
	int s0 = apply(g, &op_split, N, 1, x);
	int s1 = g->nodes[g->vars[s0].producer].out[1];
	int v = apply(g, &op_view, -1, 1, s1);
	int r = apply(g, &op_new, 10, 1, v);
	int outs[2] = {r, s0};

	add_fn(g, "f", 2, outs, 0, NULL);
	run_checks("two outputs", g, true, mp, NULL);
	is_int((long long)mp[0]->ap[0].out_bytes, 2 * NB,
	    "two outputs: both counted in the apply's sum");
	is_int((long long)mp[0]->inter[0][GP_MEM_AS_RUN], 2 * NB + 80,
	    "two outputs: s0 (returned), s1 (via v), r");
	is_int((long long)mp[0]->ap[2].inter_after, NB + 80,
	    "two outputs: s1's storage freed with its view");
	gp_memprof_free(mp[0]);
	run_checks("two outputs", g, false, NULL, NULL);
	gp_graph_free(g);
}

/* Is order a permutation of the steps that runs producers first? */
static bool
valid_order(const struct gp_graph *g, const struct gp_vm *vm, int fn,
    const int *order)
{
	int n = gp_vm_n_steps(vm, fn);
	int *when = calloc((size_t)g->n_nodes + 1, sizeof(int));
	bool okay = true;

	for (size_t i = 0; i < g->n_nodes; i++)
		when[i] = -1;
	for (int i = 0; i < n; i++) {
		int nd;

		if (order[i] < 0 || order[i] >= n) {
			okay = false;
			break;
		}
		nd = gp_vm_step_node(vm, fn, order[i]);
		if (when[nd] >= 0)
			okay = false;
		when[nd] = i;
	}
	for (int i = 0; okay && i < n; i++) {
		const struct gp_node *nd = &g->nodes[gp_vm_step_node(vm, fn,
		    order[i])];

		for (int k = 0; k < nd->n_in; k++) {
			int p = g->vars[nd->in[k]].producer;

			if (p >= 0 && (when[p] < 0 || when[p] >= i))
				okay = false;
		}
	}
	free(when);
	return (okay);
}

static void
test_min_peak(void)
{
	struct gp_graph *g = gp_graph_new("branches");
	struct gp_memprof_opts o = {.min_peak = true};
	struct gp_memprof *m;
	struct gp_vm *vm;
	int x = var(g, "x", GP_VAR_INPUT, 10);
	int a1 = apply(g, &op_new, 10000, 1, x);
	int b1 = apply(g, &op_new, 10000, 1, x);
	int a2 = apply(g, &op_new, 100, 1, a1);
	int b2 = apply(g, &op_new, 100, 1, b1);
	int out = apply(g, &op_new, 100, 2, a2, b2);

	add_fn(g, "f", 1, &out, 0, NULL);
	vm = vm_link(g, true, NULL);
	m = gp_memprof_compute(g, vm, 0, &o);
	is_int((long long)m->inter[0][GP_MEM_AS_RUN], 160800,
	    "min peak: the schedule holds a1 and b1 together");
	ok(m->min_done, "min peak: searched");
	is_int((long long)m->min_peak, 81600,
	    "min peak: one branch at a time");
	ok(m->min_optimal, "min peak: proven optimal");
	is_int((long long)m->min_lower, 80800, "min peak: the static bound");
	ok(valid_order(g, vm, 0, m->min_order), "min peak: a valid order");
	is_int(m->min_order[1], 2, "min peak: a2 right after a1");
	gp_memprof_free(m);
	gp_vm_free(vm);
	gp_graph_free(g);
}

/* k branches of big -> medium -> small, joined at the end, in the worst
 * file order (every big first). */
static struct gp_graph *
branches(int k)
{
	struct gp_graph *g = gp_graph_new("branches");
	int x = var(g, "x", GP_VAR_INPUT, 10);
	int p[64], q[64], r[64], out;

	for (int i = 0; i < k; i++)
		p[i] = apply(g, &op_new, 1000 + 37 * i, 1, x);
	for (int i = 0; i < k; i++)
		q[i] = apply(g, &op_new, 300 + 11 * ((i * 7) % k), 1, p[i]);
	for (int i = 0; i < k; i++)
		r[i] = apply(g, &op_new, 10 + i, 1, q[i]);
	out = apply_n(g, &op_new, 5, k, r);
	add_fn(g, "f", 1, &out, 0, NULL);
	return (g);
}

static void
test_min_peak_40(void)
{
	struct gp_graph *g = branches(13);
	struct gp_memprof_opts o = {.min_peak = true, .budget_ms = 5000};
	struct gp_memprof_opts tight = {.min_peak = true, .max_states = 3};
	struct gp_memprof *m, *t;
	struct gp_vm *vm = vm_link(g, true, NULL);
	uint64_t t0 = cpu_ns();
	double ms;

	m = gp_memprof_compute(g, vm, 0, &o);
	ms = (double)(cpu_ns() - t0) / 1e6;
	is_int(m->n_apply, 40, "40 applies");
	ok(m->min_done && m->min_optimal, "40 applies: proven optimal");
	ok(m->min_peak < m->inter[0][GP_MEM_AS_RUN],
	    "40 applies: better than the schedule (%llu < %llu)",
	    (unsigned long long)m->min_peak,
	    (unsigned long long)m->inter[0][GP_MEM_AS_RUN]);
	ok(m->min_lower <= m->min_peak, "40 applies: bound <= peak");
	ok(valid_order(g, vm, 0, m->min_order), "40 applies: a valid order");
	ok(ms < 1000.0 * SLOW, "40 applies: profile with exact search in "
	    "%.1f ms of CPU time (search %.1f ms wall, %llu states)", ms,
	    m->min_ms,
	    (unsigned long long)m->min_states);
	t = gp_memprof_compute(g, vm, 0, &tight);
	ok(t->min_done && !t->min_optimal, "40 applies: 3 states are not "
	    "enough to prove anything");
	ok(t->min_peak <= t->inter[0][GP_MEM_AS_RUN] &&
	    t->min_lower <= m->min_peak && t->min_peak >= m->min_peak,
	    "40 applies: within the budget, a valid best and bound");
	ok(valid_order(g, vm, 0, t->min_order),
	    "40 applies: the budgeted order is valid");
	gp_memprof_free(m);
	gp_memprof_free(t);
	gp_vm_free(vm);
	gp_graph_free(g);
}

/* Inplace constrains orders: readers of the storage before the writer. */
static void
test_min_peak_inplace(void)
{
	struct gp_graph *g = gp_graph_new("inplace order");
	struct gp_memprof_opts o = {.min_peak = true};
	struct gp_memprof *m;
	struct gp_vm *vm;
	int x = var(g, "x", GP_VAR_INPUT, 10);
	int a = apply(g, &op_new, 1000, 1, x);
	int r = apply(g, &op_new, 5000, 1, a);	/* reads a, big */
	int s = apply(g, &op_new, 10, 1, r);
	int w = apply(g, &op_inpl, -1, 1, a);	/* overwrites a */
	int out = apply(g, &op_new, 10, 2, s, w);

	set_inplace(g, w, 0);
	add_fn(g, "f", 1, &out, 0, NULL);
	vm = vm_link(g, true, NULL);
	m = gp_memprof_compute(g, vm, 0, &o);
	ok(m->min_done && valid_order(g, vm, 0, m->min_order),
	    "inplace order: searched, valid");
	{
		int pr = -1, pw = -1;

		for (int i = 0; i < m->n_apply; i++) {
			int nd = gp_vm_step_node(vm, 0, m->min_order[i]);

			if (nd == g->vars[r].producer)
				pr = i;
			if (nd == g->vars[w].producer)
				pw = i;
		}
		ok(pr >= 0 && pr < pw, "inplace order: the reader of a runs "
		    "before the apply that overwrites it");
	}
	gp_memprof_free(m);
	gp_vm_free(vm);
	gp_graph_free(g);
}

/*
 * The search against brute force: random small graphs (allocating ops,
 * views, two-output ops), every topological order built as its own graph
 * (the VM runs nodes in file order where it can) and profiled; the least
 * of their peaks must be what the search finds from any one of them.
 */
struct rnode {
	int	op;	/* 0 tnew, 1 tview, 2 tsplit */
	int	in[2], n_in;
	int64_t	elems;
};

/* Build the random graph with its nodes in order perm; var ids: 0 is x,
 * node i's outputs are 1 + 2i and 2 + 2i. */
static struct gp_graph *
rgraph(const struct rnode *nd, int n, const int *perm, const int *outs,
    int n_outs)
{
	struct gp_graph *g = gp_graph_new("random");
	int vid[64], fo[4];

	vid[0] = var(g, "x", GP_VAR_INPUT, 100);
	for (int k = 0; k < n; k++) {
		const struct rnode *r = &nd[perm[k]];
		static const struct gp_op *const ops[] = {&op_new, &op_view,
		    &op_split};
		int in[2], v;

		for (int j = 0; j < r->n_in; j++)
			in[j] = vid[r->in[j]];
		v = apply_n(g, ops[r->op], r->op == 1 ? -1 : r->elems,
		    r->n_in, in);
		vid[1 + 2 * perm[k]] = v;
		vid[2 + 2 * perm[k]] = r->op == 2 ?
		    g->nodes[g->vars[v].producer].out[1] : v;
	}
	for (int k = 0; k < n_outs; k++)
		fo[k] = vid[outs[k]];
	add_fn(g, "f", n_outs, fo, 0, NULL);
	return (g);
}

static bool
next_perm(int *a, int n)
{
	int i = n - 2, j = n - 1;

	while (i >= 0 && a[i] >= a[i + 1])
		i--;
	if (i < 0)
		return (false);
	while (a[j] <= a[i])
		j--;
	{
		int t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
	for (int l = i + 1, r = n - 1; l < r; l++, r--) {
		int t = a[l];

		a[l] = a[r];
		a[r] = t;
	}
	return (true);
}

static void
test_min_peak_brute(void)
{
	uint64_t rng = 12345;
	int agree = 0, graphs = 24, n = 6;

	for (int gi = 0; gi < graphs; gi++) {
		struct rnode nd[8];
		int perm[8], outs[2], n_outs, pos[8];
		uint64_t best = UINT64_MAX, found;
		bool proven;
		struct gp_memprof_opts o = {.min_peak = true};

		for (int i = 0; i < n; i++) {
			rng = rng * 6364136223846793005ULL + 1;
			nd[i].op = (int)((rng >> 40) % 5);
			nd[i].op = nd[i].op >= 3 ? 0 : nd[i].op;
			nd[i].elems = 100 * (1 + (int64_t)((rng >> 20) % 9));
			nd[i].n_in = nd[i].op == 1 ? 1 : 1 + (int)((rng >> 50) &
			    1);
			for (int j = 0; j < nd[i].n_in; j++) {
				int pick = (int)((rng >> (8 + 9 * j)) %
				    (uint64_t)(2 * i + 1));

				/* x, or output 0 or 1 of an earlier node */
				nd[i].in[j] = pick;
			}
		}
		outs[0] = 1 + 2 * (n - 1);
		n_outs = 1;
		if ((rng >> 7) & 1)
			outs[n_outs++] = 1 + 2 * (int)((rng >> 11) %
			    (uint64_t)(n - 1));
		for (int i = 0; i < n; i++)
			perm[i] = i;
		do {
			struct gp_graph *g;
			struct gp_vm *vm;
			struct gp_memprof *m;
			bool topo = true;

			for (int k = 0; k < n; k++)
				pos[perm[k]] = k;
			for (int k = 0; k < n && topo; k++)
				for (int j = 0; j < nd[k].n_in; j++) {
					int v = nd[k].in[j];

					if (v > 0 && pos[(v - 1) / 2] > pos[k])
						topo = false;
				}
			if (!topo)
				continue;
			g = rgraph(nd, n, perm, outs, n_outs);
			vm = vm_link(g, true, NULL);
			m = gp_memprof_compute(g, vm, 0, NULL);
			/* nodes nothing needs are not scheduled: compare
			 * only complete schedules */
			if (m->inter[0][GP_MEM_AS_RUN] < best)
				best = m->inter[0][GP_MEM_AS_RUN];
			gp_memprof_free(m);
			gp_vm_free(vm);
			gp_graph_free(g);
		} while (next_perm(perm, n));
		{
			struct gp_graph *g;
			struct gp_vm *vm;
			struct gp_memprof *m;

			for (int i = 0; i < n; i++)
				perm[i] = i;
			g = rgraph(nd, n, perm, outs, n_outs);
			vm = vm_link(g, true, NULL);
			m = gp_memprof_compute(g, vm, 0, &o);
			found = m->min_peak;
			proven = m->min_optimal;
			if (found != best || !proven)
				diag("  graph %d: search %llu%s, brute force "
				    "%llu", gi, (unsigned long long)found,
				    proven ? "" : " (not proven)",
				    (unsigned long long)best);
			else
				agree++;
			gp_memprof_free(m);
			gp_vm_free(vm);
			gp_graph_free(g);
		}
	}
	is_int(agree, graphs, "min peak: the search agrees with brute force "
	    "on %d random graphs", graphs);
}

/* The report, and a kernel that copies where it declared a view. */
static void
test_report(void)
{
	struct gp_graph *g = gp_graph_new("report");
	struct gp_profile *prof;
	struct gp_vm_hook hook;
	struct gp_vm *vm;
	struct gp_report_opts ro = {.n_apply = 20, .width = 200,
	    .memory = true, .min_memory_size = 1024};
	struct gp_alloc_stats st;
	int m2 = var2(g, "M", 100, 50);
	int t = apply(g, &op_trans, -1, 1, m2);
	int f = apply(g, &op_copyview, -1, 1, t);
	int y = apply(g, &op_new, -1, 1, f);
	int small = apply(g, &op_new, 3, 1, y);
	int outs[2] = {y, small};
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	add_fn(g, "f", 2, outs, 0, NULL);
	prof = gp_profile_new(g);
	hook = gp_profile_hook(prof);
	vm = vm_link(g, true, prof);
	prof->fn[0].mem = gp_memprof_compute(g, vm, 0, NULL);
	for (int r = 0; r < 2; r++) {
		gp_alloc_reset_peak();
		gp_vm_call(vm, 0, &hook);
		gp_alloc_get_stats(&st);
		if (st.peak > prof->fn[0].mem_peak_measured)
			prof->fn[0].mem_peak_measured = st.peak;
	}
	is_int((long long)(prof->fn[0].mem_peak_measured -
	    prof->fn[0].mem->sim[0].peak), 40000,
	    "copying view: measured is the copy above the prediction");
	fp = open_memstream(&text, &len);
	gp_memprof_report(fp, prof, 0, &ro);
	fclose(fp);
	ok(strstr(text, "Intermediates peak with current setting: 39.1KiB "
	    "(40024 B)") != NULL, "report: current setting in bytes");
	ok(strstr(text, "Intermediates peak if allow_gc=False: 39.1KiB "
	    "(40024 B)") != NULL, "report: allow_gc=False");
	ok(strstr(text, "40000 B) above the predicted peak") != NULL,
	    "report: the difference");
	ok(strstr(text, "a view of a non-contiguous input but copied it") !=
	    NULL, "report: explained by the copying view");
	ok(strstr(text, "(remaining 1 Apply account for 24B/120024B (0.02%) "
	    "of the Apply with dense outputs sizes)") != NULL,
	    "report: the remainder line, parentheses fixed");
	ok(strstr(text, "<Sum apply outputs (bytes)> <Apply outputs shape> "
	    "<created/inplace/view> <Apply node>") != NULL,
	    "report: the table header");
	ok(strstr(text, "     40000B  [(5000,)] c Test{tnew}(") != NULL,
	    "report: a table row");
	ok(strstr(text, "Storage alive at the program's peak") != NULL,
	    "report: the storages at the peak");
	if (tap_failed)
		diag("%s", text);
	free(text);

	/* every function: max lines, and a row per function */
	text = NULL;
	fp = open_memstream(&text, &len);
	gp_memprof_report(fp, prof, -1, &ro);
	fclose(fp);
	ok(strstr(text, "Intermediates peak with current setting") != NULL,
	    "report, all functions: printed");
	free(text);
	gp_profile_free(prof);
	gp_vm_free(vm);
	gp_graph_free(g);
}

/* A function with no apply: it returns its input. */
static void
test_empty(void)
{
	struct gp_graph *g = gp_graph_new("empty");
	struct gp_memprof_opts o = {.min_peak = true};
	struct gp_memprof *mp[1];
	int x = var(g, "x", GP_VAR_INPUT, N);

	add_fn(g, "f", 1, &x, 0, NULL);
	run_checks("no apply", g, true, mp, &o);
	ok(mp[0]->n_apply == 0 && mp[0]->sim[0].peak == NB &&
	    mp[0]->inter[0][GP_MEM_AS_RUN] == 0 && mp[0]->min_done &&
	    mp[0]->min_optimal && mp[0]->sim[0].n_bufs == 1,
	    "no apply: the input alone, nothing to search");
	gp_memprof_free(mp[0]);
	gp_graph_free(g);
}

static void
test_clone(void)
{
	struct gp_graph *g = branches(4);
	struct gp_memprof_opts o = {.min_peak = true};
	struct gp_vm *vm = vm_link(g, true, NULL);
	struct gp_memprof *m = gp_memprof_compute(g, vm, 0, &o), *c;

	c = gp_memprof_clone(m);
	ok(c != m && c->ap != m->ap && c->strs != m->strs &&
	    c->sim[0].after != m->sim[0].after, "clone: a deep copy");
	ok(c->sim[0].peak == m->sim[0].peak && c->n_apply == m->n_apply &&
	    memcmp(c->min_order, m->min_order, sizeof(int) *
	    (size_t)m->n_apply) == 0 && memcmp(c->sim[0].bufs,
	    m->sim[0].bufs, sizeof(*m->sim[0].bufs) *
	    (size_t)m->sim[0].n_bufs) == 0, "clone: equal contents");
	gp_memprof_free(m);
	gp_memprof_free(c);
	gp_memprof_free(NULL);
	ok(gp_memprof_compute(g, vm, 5, NULL) == NULL,
	    "compute: NULL for a function out of range");
	gp_vm_free(vm);
	gp_graph_free(g);
}

/* A wide DAG as bench/gen-graph -k dag makes: each apply reads two earlier
 * results. */
static void
test_speed(void)
{
	int n = 100000;
	struct gp_graph *g = gp_graph_new("dag");
	int *v = malloc(sizeof(int) * ((size_t)n + 1));
	uint64_t rng = 0x9e3779b97f4a7c15ULL, t0;
	struct gp_vm *vm;
	struct gp_memprof *m;
	struct gp_memprof_opts o = {.min_peak = true, .budget_ms = 200};
	double ms;
	int out;

	v[0] = var(g, "x", GP_VAR_INPUT, 1);
	for (int i = 1; i < n; i++) {
		int a, b;

		rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
		a = (int)((rng >> 33) % (uint64_t)i);
		b = i - 1 - (int)((rng >> 17) % (uint64_t)(i < 64 ? i : 64));
		v[i] = apply(g, &op_new, -1, 2, v[a], v[b < 0 ? 0 : b]);
	}
	out = v[n - 1];
	add_fn(g, "f", 1, &out, 0, NULL);
	vm = vm_link(g, true, NULL);
	t0 = cpu_ns();
	m = gp_memprof_compute(g, vm, 0, NULL);
	ms = (double)(cpu_ns() - t0) / 1e6;
	/* the goal is 100 ms; the bound leaves room for a loaded machine */
	ok(ms < 100.0 * SLOW * 3, "100,000 applies: memory profile in %.1f ms "
	    "of CPU time", ms);
	{
		const struct gp_mem_sim *sm = &m->sim[0];
		uint64_t sum = 0;
		bool sorted = true;

		for (int i = 0; i < sm->n_bufs; i++) {
			sum += sm->bufs[i].bytes;
			if (i > 0 && sm->bufs[i].bytes > sm->bufs[i - 1].bytes)
				sorted = false;
		}
		ok(sorted && sum == sm->peak, "100,000 applies: the %d "
		    "storages alive at the peak, largest first, add up to it",
		    sm->n_bufs);
	}
	gp_memprof_free(m);
	t0 = gp_clock_ns();
	m = gp_memprof_compute(g, vm, 0, &o);
	ms = (double)(gp_clock_ns() - t0) / 1e6;
	ok(m->min_done && m->min_peak <= m->inter[0][GP_MEM_AS_RUN] &&
	    m->min_lower <= m->min_peak, "100,000 applies: the search stops "
	    "within its budget (%.1f ms in all; search %.1f ms, %llu states, "
	    "%s; best %llu, schedule %llu, bound %llu)", ms, m->min_ms,
	    (unsigned long long)m->min_states, m->min_optimal ? "optimal" :
	    "not proven", (unsigned long long)m->min_peak,
	    (unsigned long long)m->inter[0][GP_MEM_AS_RUN],
	    (unsigned long long)m->min_lower);
	ok(m->min_ms < 200.0 + 300.0 * SLOW, "100,000 applies: budget kept");
	gp_memprof_free(m);
	gp_vm_free(vm);
	gp_graph_free(g);
	free(v);
}

/* chain.json without fusion, run by a session: one created buffer of
 * 1,000,000 float64 (8,000,000 B) and nine applies overwriting it in
 * place; five scalar float64 constants (40 B).  A later call, during
 * apply 0: x, the output held from the previous call and the new a1,
 * 3 * 8,000,000 + 40 B; the first call x and a1, 2 * 8,000,000 + 40 B.
 * The session's pristine copy shares x and the constants, so nothing is
 * held outside the program, and the allocator measures the same on the
 * thread that opened the session as on the worker (whose counters never
 * saw those values allocated). */
static void
test_session_chain(void)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	const uint64_t later = 3 * 8000000ull + 40, first = 2 * 8000000ull + 40;

	snprintf(path, sizeof(path), "%s/data/graphs/chain.json",
	    top ? top : "..");
	for (int worker = 0; worker < 2; worker++) {
		for (int rounds = 1; rounds <= 2; rounds++) {
			struct gp_flags fl;
			struct gp_err err;
			struct gp_session *s;
			struct gp_profile *p = NULL;
			const char *how = worker ? "worker" : "opening thread";

			gp_flags_init(&fl);
			if (gp_flags_parse(&fl, "optimizer_excluding=fusion",
			    "test", &err) < 0) {
				ok(0, "flags: %s", err.msg);
				return;
			}
			s = gp_session_open(path, &fl, &err);
			if (s == NULL) {
				ok(0, "chain.json: %s", err.msg);
				gp_flags_done(&fl);
				return;
			}
			if (worker) {
				struct gp_session_status st;

				gp_session_start(s, (uint64_t)rounds, &err);
				do {
					struct timespec ts = {0, 1000000};

					nanosleep(&ts, NULL);
					gp_session_status(s, &st);
				} while (!st.done);
				gp_session_stop(s);
			} else
				gp_session_run(s, -1, (uint64_t)rounds);
			gp_session_snapshot(s, &p);
			is_int((long long)p->fn[0].mem->external, 0,
			    "session chain (%s): nothing held apart", how);
			is_int((long long)gp_memprof_sim(p->fn[0].mem)->peak,
			    (long long)later, "session chain: the program's "
			    "peak 3 x 8e6 + 40 B");
			is_int((long long)p->fn[0].mem_peak_measured,
			    (long long)(rounds == 1 ? first : later),
			    "session chain (%s, %d call%s): measured peak",
			    how, rounds, rounds > 1 ? "s" : "");
			is_int((long long)gp_memprof_predicted_peak(p, 0),
			    (long long)(rounds == 1 ? first : later),
			    "session chain (%s, %d call%s): predicted peak",
			    how, rounds, rounds > 1 ? "s" : "");
			if (!worker && rounds == 1) {
				/* after a reset only later calls are
				 * measured, and predicted */
				gp_session_reset(s);
				gp_session_run(s, -1, 1);
				gp_session_snapshot(s, &p);
				ok(gp_memprof_span(p, 0) == GP_MEM_SPAN_LATER,
				    "session chain: after a reset, later "
				    "calls only");
				is_int((long long)p->fn[0].mem_peak_measured,
				    (long long)later, "... measured: a later "
				    "call's peak");
				is_int((long long)gp_memprof_predicted_peak(p,
				    0), (long long)later, "... predicted: the "
				    "same");
			}
			gp_profile_free(p);
			gp_session_free(s);
			gp_flags_done(&fl);
		}
	}
}

/* Every example graph through a session: measured = predicted, plus the
 * session's pristine copy of the graph values when the session has not
 * said so itself. */
/* Bytes of g's shared variables that g rewritten with f reads (a live
 * apply's input), outputs or updates, found by name. */
static uint64_t
shared_in_use(const struct gp_graph *g, const struct gp_flags *f)
{
	struct gp_graph *r = gp_graph_clone(g);
	struct gp_err err;
	bool *use;
	uint64_t b = 0;

	if (gp_rewrite_run(r, f, NULL, &err) < 0) {
		diag("rewrite: %s", err.msg);
		gp_graph_free(r);
		return (0);
	}
	use = gp_xcalloc(r->n_vars + 1, sizeof(bool));
	for (size_t i = 0; i < r->n_nodes; i++)
		for (int k = 0; !r->nodes[i].dead && k < r->nodes[i].n_in; k++)
			use[r->nodes[i].in[k]] = true;
	for (size_t fn = 0; fn < r->n_fns; fn++) {
		for (int k = 0; k < r->fns[fn].n_out; k++)
			use[r->fns[fn].out[k]] = true;
		for (int k = 0; k < r->fns[fn].n_upd; k++)
			use[r->fns[fn].upd[k].dst] = true;
	}
	for (size_t v = 0; v < g->n_vars; v++) {
		int w;

		if (g->vars[v].kind != GP_VAR_SHARED ||
		    g->vars[v].value.storage == NULL)
			continue;
		w = gp_graph_find_var(r, g->vars[v].name);
		if (w >= 0 && use[w])
			b += gp_tensor_nbytes(&g->vars[v].value);
	}
	free(use);
	gp_graph_free(r);
	return (b);
}

static void
test_examples(void)
{
	const char *top = getenv("top_srcdir");
	char dir[4096];
	DIR *d;
	struct dirent *e;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/data/graphs", top ? top : "..");
	if ((d = opendir(dir)) == NULL) {
		ok(1, "# SKIP no %s", dir);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char path[8192];
		struct gp_flags fl;
		struct gp_err err;
		struct gp_session *s;
		struct gp_graph *pristine;
		struct gp_load_opts lo = {.allow_extern = true};
		const struct gp_profile *p;
		size_t len = strlen(e->d_name);

		if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		for (int gc = 1; gc >= 0; gc--) {
			uint64_t vals;


			gp_flags_init(&fl);
			fl.jit = false;
			fl.allow_gc = gc;
			fl.allow_extern = true;
			s = gp_session_open(path, &fl, &err);
			if (s == NULL) {
				diag("%s: %s", e->d_name, err.msg);
				gp_flags_done(&fl);
				continue;
			}
			/* the session's pristine copy shares its inputs and
			 * constants with the running graph: only the values
			 * of the shared variables the rewritten program reads
			 * or updates are held apart (the others, like a
			 * weight bn_fold replaced, share the pristine one) */
			pristine = gp_graph_load(path, &lo, &err);
			vals = pristine != NULL ? shared_in_use(pristine,
			    &fl) : 0;
			gp_graph_free(pristine);
			gp_session_run(s, -1, 3);
			p = gp_session_profile(s);
			for (int f = 0; f < p->n_fn; f++) {
				const struct gp_memprof *m = p->fn[f].mem;
				const struct gp_mem_sim *sm;
				uint64_t want;

				if (m == NULL)
					continue;
				sm = &m->sim[gc ? 0 : 1];
				want = sm->peak + m->external;
				is_int((long long)p->fn[f].mem_peak_measured,
				    (long long)want, "%s, %s, GC %s: measured "
				    "= predicted", e->d_name, p->fn[f].name,
				    gc ? "on" : "off");
				/* constants the rewrites replaced stay in
				 * the pristine copy too */
				ok(m->external >= vals && m->external <=
				    vals + m->val_const + 65536, "%s, %s: held "
				    "apart: %llu B, shared values %llu B",
				    e->d_name, p->fn[f].name, (unsigned long
				    long)m->external, (unsigned long long)vals);
				n++;
			}
			gp_session_free(s);
			gp_flags_done(&fl);
		}
	}
	closedir(d);
	ok(n > 0, "example graphs: %d functions checked", n);
}

/*
 * Strided operands: each op below is given x (2, 3, 8, 8) float32
 * transposed to (2, 3, 8, 8) with its last two axes swapped (a view, not
 * contiguous), or a matrix sliced with steps BLAS cannot address, so
 * that its kernel takes the paths that copy an operand; the session's
 * measured peak must equal the prediction, GC on and off.  Before the
 * copies were declared (ops/ops.h's gp_ops_contiguous, the ops'
 * workspace()) each of these measured more than predicted.
 */
struct strided_case {
	const char *name;
	const char *vars;	/* extra variables (JSON members), or "" */
	const char *nodes;	/* reading "xt"; the output is "y" */
};

static const struct strided_case strided_cases[] = {
	{"reshape of a transpose", "", "{\"op\": \"reshape\", \"inputs\": "
	    "[\"xt\"], \"params\": {\"shape\": [6, 64]}, \"outputs\": [\"y\"]}"},
	{"flatten of a transpose", "", "{\"op\": \"flatten\", \"inputs\": "
	    "[\"xt\"], \"params\": {\"ndim\": 2}, \"outputs\": [\"y\"]}"},
	{"sum over the last axis", "", "{\"op\": \"sum\", \"inputs\": "
	    "[\"xt\"], \"params\": {\"axis\": [3]}, \"outputs\": [\"y\"]}"},
	{"sum over all", "", "{\"op\": \"sum\", \"inputs\": [\"xt\"], "
	    "\"outputs\": [\"y\"]}"},
	{"softmax", "", "{\"op\": \"softmax\", \"inputs\": [\"xt\"], "
	    "\"outputs\": [\"y\"]}"},
	{"log_softmax", "", "{\"op\": \"log_softmax\", \"inputs\": [\"xt\"], "
	    "\"outputs\": [\"y\"]}"},
	{"max_pool", "", "{\"op\": \"max_pool\", \"inputs\": [\"xt\"], "
	    "\"params\": {\"kernel_shape\": [2, 2]}, \"outputs\": [\"y\"]}"},
	{"average_pool", "", "{\"op\": \"average_pool\", \"inputs\": [\"xt\"], "
	    "\"params\": {\"kernel_shape\": [3, 3]}, \"outputs\": [\"y\"]}"},
	{"global_average_pool", "", "{\"op\": \"global_average_pool\", "
	    "\"inputs\": [\"xt\"], \"outputs\": [\"y\"]}"},
	{"pad", "", "{\"op\": \"pad\", \"inputs\": [\"xt\"], \"params\": "
	    "{\"pads\": [0, 0, 1, 1, 0, 0, 1, 1]}, \"outputs\": [\"y\"]}"},
	{"resize", "", "{\"op\": \"resize\", \"inputs\": [\"xt\"], "
	    "\"params\": {\"scales\": [1, 1, 2, 2]}, \"outputs\": [\"y\"]}"},
	{"conv", ", \"w\": {\"kind\": \"shared\", \"dtype\": \"float32\", "
	    "\"shape\": [4, 3, 3, 3], \"init\": {\"fill\": 0.5}}",
	    "{\"op\": \"conv\", \"inputs\": [\"xt\", \"w\"], \"params\": "
	    "{\"kernel_shape\": [3, 3]}, \"outputs\": [\"y\"]}"},
	/* three groups of 2 channels: the groups over the threads, each
	 * thread's buffers one part of one request (ops/conv.c) */
	{"grouped conv", ", \"w1\": {\"kind\": \"shared\", \"dtype\": "
	    "\"float32\", \"shape\": [6, 3, 1, 1], \"init\": {\"fill\": "
	    "0.5}}, \"w2\": {\"kind\": \"shared\", \"dtype\": \"float32\", "
	    "\"shape\": [6, 2, 3, 3], \"init\": {\"fill\": 0.25}}",
	    "{\"op\": \"conv\", \"inputs\": [\"xt\", \"w1\"], \"params\": "
	    "{\"kernel_shape\": [1, 1]}, \"outputs\": [\"h\"]}, {\"op\": "
	    "\"conv\", \"inputs\": [\"h\", \"w2\"], \"params\": "
	    "{\"kernel_shape\": [3, 3], \"group\": 3, \"pads\": [1, 1, 1, "
	    "1]}, \"outputs\": [\"y\"]}"},
	{"conv, a strided weight", ", \"w\": {\"kind\": \"shared\", "
	    "\"dtype\": \"float32\", \"shape\": [4, 3, 3, 3], \"init\": "
	    "{\"fill\": 0.5}}", "{\"op\": \"transpose\", \"inputs\": [\"w\"], "
	    "\"params\": {\"axes\": [0, 1, 3, 2]}, \"outputs\": [\"wt\"]}, "
	    "{\"op\": \"conv\", \"inputs\": [\"xt\", \"wt\"], \"params\": "
	    "{\"kernel_shape\": [3, 3]}, \"outputs\": [\"y\"]}"},
	{"layer_norm", ", \"s\": {\"kind\": \"shared\", \"dtype\": "
	    "\"float32\", \"shape\": [8], \"init\": {\"fill\": 1}}",
	    "{\"op\": \"layer_norm\", \"inputs\": [\"xt\", \"s\"], \"params\": "
	    "{\"axis\": -1}, \"outputs\": [\"y\"]}"},
	{"instance_norm", ", \"s\": {\"kind\": \"shared\", \"dtype\": "
	    "\"float32\", \"shape\": [3], \"init\": {\"fill\": 1}}",
	    "{\"op\": \"instance_norm\", \"inputs\": [\"xt\", \"s\", \"s\"], "
	    "\"outputs\": [\"y\"]}"},
	{"take", ", \"i\": {\"kind\": \"shared\", \"dtype\": \"int64\", "
	    "\"shape\": [5], \"init\": {\"values\": [0, 2, 4, 6, 7]}}",
	    "{\"op\": \"take\", \"inputs\": [\"xt\", \"i\"], \"params\": "
	    "{\"axis\": 3}, \"outputs\": [\"y\"]}"},
	{"take, int32 indices", ", \"i\": {\"kind\": \"shared\", \"dtype\": "
	    "\"int32\", \"shape\": [5], \"init\": {\"values\": [0, 2, 4, 6, "
	    "7]}}", "{\"op\": \"take\", \"inputs\": [\"xt\", \"i\"], "
	    "\"params\": {\"axis\": 2}, \"outputs\": [\"y\"]}"},
	{"cumsum", "", "{\"op\": \"cumsum\", \"inputs\": [\"xt\"], \"params\": "
	    "{\"axis\": 3}, \"outputs\": [\"y\"]}"},
	{"top_k", "", "{\"op\": \"top_k\", \"inputs\": [\"xt\"], \"params\": "
	    "{\"k\": 3}, \"outputs\": [\"y\", \"yi\"]}"},
	{"argmax", "", "{\"op\": \"argmax\", \"inputs\": [\"xt\"], \"params\": "
	    "{\"axis\": 3}, \"outputs\": [\"y\"]}"},
	{"depth_to_space", "", "{\"op\": \"depth_to_space\", \"inputs\": "
	    "[\"xt\"], \"params\": {\"blocksize\": 1}, \"outputs\": [\"y\"]}"},
	{"matmul of transposes", "", "{\"op\": \"matmul\", \"inputs\": "
	    "[\"xt\", \"xt\"], \"outputs\": [\"y\"]}"},
	{"dot of a matrix sliced by steps of 2", "", "{\"op\": \"reshape\", "
	    "\"inputs\": [\"x\"], \"params\": {\"shape\": [48, 8]}, "
	    "\"outputs\": [\"x2\"]}, {\"op\": \"subtensor\", \"inputs\": "
	    "[\"x2\"], \"params\": {\"idx\": [{\"step\": 2}, {\"step\": 2}]}, "
	    "\"outputs\": [\"xs\"]}, {\"op\": \"transpose\", \"inputs\": "
	    "[\"xs\"], \"outputs\": [\"xst\"]}, {\"op\": \"dot\", \"inputs\": "
	    "[\"xs\", \"xst\"], \"outputs\": [\"y\"]}"},
	{"matmul of a matrix sliced by steps of 2", "", "{\"op\": "
	    "\"subtensor\", \"inputs\": [\"x\"], \"params\": {\"idx\": [0, 0, "
	    "{\"step\": 2}, {\"step\": 2}]}, \"outputs\": [\"xs\"]}, {\"op\": "
	    "\"matmul\", \"inputs\": [\"xs\", \"xs\"], \"outputs\": [\"y\"]}"},
	{"argmax of the flattened input", "", "{\"op\": \"argmax\", "
	    "\"inputs\": [\"xt\"], \"outputs\": [\"y\"]}"},
	{"gather_elements", ", \"i\": {\"kind\": \"shared\", \"dtype\": "
	    "\"int32\", \"shape\": [2, 3, 8, 2], \"init\": {\"fill\": 1}}",
	    "{\"op\": \"gather_elements\", \"inputs\": [\"xt\", \"i\"], "
	    "\"params\": {\"axis\": 3}, \"outputs\": [\"y\"]}"},
	{"one_hot", ", \"i\": {\"kind\": \"shared\", \"dtype\": \"int32\", "
	    "\"shape\": [6], \"init\": {\"fill\": 1}}, \"v\": {\"kind\": "
	    "\"shared\", \"dtype\": \"float32\", \"shape\": [2], \"init\": "
	    "{\"values\": [0, 1]}}", "{\"op\": \"one_hot\", \"inputs\": "
	    "[\"i\", \"v\"], \"params\": {\"depth\": 5}, \"outputs\": "
	    "[\"y0\"]}, {\"op\": \"sum\", \"inputs\": [\"xt\"], \"params\": "
	    "{\"axis\": [0, 1, 2, 3]}, \"outputs\": [\"y1\"]}, {\"op\": \"add\", "
	    "\"inputs\": [\"y0\", \"y1\"], \"outputs\": [\"y\"]}"},
	{"softmax of integers", "", "{\"op\": \"cast\", \"inputs\": "
	    "[\"xt\"], \"params\": {\"dtype\": \"int32\"}, \"outputs\": "
	    "[\"xi\"]}, {\"op\": \"softmax\", \"inputs\": [\"xi\"], "
	    "\"outputs\": [\"y\"]}"},
};

static void
test_strided(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/gptop-strided-XXXXXX.json", tmp);
	fd = mkstemps(path, 5);
	if (!ok(fd >= 0, "strided: a temporary graph file"))
		return;
	close(fd);
	for (size_t c = 0; c < sizeof(strided_cases) /
	    sizeof(strided_cases[0]); c++) {
		const struct strided_case *sc = &strided_cases[c];
		FILE *fp = fopen(path, "w");

		if (fp == NULL) {
			ok(0, "%s: written", path);
			return;
		}
		fprintf(fp, "{\"format\": \"gptop-graph/1\", \"variables\": "
		    "{\"x\": {\"kind\": \"input\", \"dtype\": \"float32\", "
		    "\"shape\": [2, 3, 8, 8], \"init\": {\"normal\": [0, 1], "
		    "\"seed\": 3}}%s}, \"nodes\": [{\"op\": \"transpose\", "
		    "\"inputs\": [\"x\"], \"params\": {\"axes\": [0, 1, 3, 2]}, "
		    "\"outputs\": [\"xt\"]}, %s], \"functions\": {\"f\": "
		    "{\"outputs\": [\"y\"]}}}\n", sc->vars, sc->nodes);
		fclose(fp);
		for (int gc = 1; gc >= 0; gc--) {
			struct gp_flags fl;
			struct gp_err err;
			struct gp_session *s;
			const struct gp_profile *p;

			gp_flags_init(&fl);
			fl.allow_gc = gc;
			s = gp_session_open(path, &fl, &err);
			gp_flags_done(&fl);
			if (!ok(s != NULL, "strided, %s: loads", sc->name)) {
				diag("%s", err.msg);
				break;
			}
			gp_session_run(s, -1, 3);
			p = gp_session_profile(s);
			is_int((long long)p->fn[0].mem_peak_measured,
			    (long long)gp_memprof_predicted_peak(p, 0),
			    "strided, %s, GC %s: measured peak = predicted "
			    "(work space: %llu B, largest)", sc->name, gc ?
			    "on" : "off", p->fn[0].mem != NULL ?
			    (unsigned long long)p->fn[0].mem->work_max : 0ULL);
			gp_session_free(s);
		}
	}
	remove(path);
}

/*
 * Real models (ONNX): the session's measured peak against the prediction,
 * GC on and off, and the allocator against the prediction after every
 * step of every call; the work space of the convolutions counted on both
 * sides.  Returns the predicted peak with GC on (0: not loaded).
 */
static uint64_t
check_model(const char *path, const char *name, uint64_t *work_max)
{
	uint64_t pred_on = 0;

	for (int gc = 1; gc >= 0; gc--) {
		struct gp_flags fl;
		struct gp_err err;
		struct gp_session *s;
		const struct gp_profile *p;

		gp_flags_init(&fl);
		fl.allow_gc = gc;
		s = gp_session_open(path, &fl, &err);
		if (s == NULL) {
			diag("%s: %s", name, err.msg);
			ok(0, "%s: opened", name);
			gp_flags_done(&fl);
			return (0);
		}
		gp_session_run(s, -1, 3);
		p = gp_session_profile(s);
		for (int f = 0; f < p->n_fn; f++) {
			const struct gp_memprof *m = p->fn[f].mem;
			uint64_t want;

			if (m == NULL)
				continue;
			want = gp_memprof_predicted_peak(p, f);
			is_int((long long)p->fn[f].mem_peak_measured,
			    (long long)want, "%s, GC %s: measured peak = "
			    "predicted peak (%llu B; work space: %d applies, "
			    "largest %llu B)", name, gc ? "on" : "off",
			    (unsigned long long)want, m->n_work,
			    (unsigned long long)m->work_max);
			if (gc) {
				pred_on = want;
				*work_max = m->work_max;
			}
		}
		gp_session_free(s);
		gp_flags_done(&fl);
	}
	return (pred_on);
}

static bool
readable(const char *path)
{
	FILE *fp = fopen(path, "rb");

	if (fp != NULL)
		fclose(fp);
	return (fp != NULL);
}

static void
test_models(void)
{
	const char *top = getenv("top_srcdir");
	static const char *const names[] = {"mlp", "cnn", "transformer"};
	const char *rn = getenv("GPTOP_RESNET18");
	char path[4096];
	uint64_t wmax = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/data/models/%s/model.onnx",
		    top ? top : "..", names[i]);
		if (!readable(path)) {
			ok(1, "# SKIP no %s", path);
			continue;
		}
		/* the transformer's reshapes of strided slices (its heads
		 * split) copy: outputs the VM allocates, as predicted */
		(void)check_model(path, names[i], &wmax);
		if (strcmp(names[i], "cnn") == 0 && gp_conv_gemm_ok())
			/* the blocked gemm's direct path (ops/conv-gemm.c:
			 * strides 1): conv2's table of the offsets of its
			 * (8 x 3 x 3) rows of col, int64, to a multiple of
			 * 64 B, then its input zero-padded, 8 planes of
			 * (14 + 2) x (14 + 2) float32 and 16 more (the last
			 * loads' reach), in one request plus 64 B to align
			 * it (conv1's: 1 plane of 30 x 30) */
			is_int((long long)wmax, (8 * 9 * 8 + 63) / 64 * 64 +
			    (8 * 16 * 16 + 16) * 4 + 64, "cnn: the largest work "
			    "space is conv2's row offsets and padded input, "
			    "(8 x 3 x 3) x 8 B + (8 x 16 x 16 + 16) x 4 B + "
			    "64");
		else if (strcmp(names[i], "cnn") == 0)
			/* conv1's im2col is (1 x 3 x 3) x (28 x 28), conv2's
			 * (8 x 3 x 3) x (14 x 14): one image at a time */
			is_int((long long)wmax, 8 * 9 * 14 * 14 * 4, "cnn: the "
			    "largest work space is conv2's im2col matrix, "
			    "(8 x 3 x 3) x (14 x 14) float32");
	}
	/* the resnet18-shaped model (tests/onnx/make-resnet18 writes it) */
	if (rn == NULL || !readable(rn)) {
		ok(1, "# SKIP GPTOP_RESNET18 names no model");
		return;
	}
	(void)check_model(rn, "resnet18", &wmax);
	if (gp_conv_gemm_ok() && gp_par_max_threads() <= 16)
		/* the blocked gemm packs all of col when the output has
		 * fewer than 16 slivers of 16 pixels: layer3's 3x3 convs of
		 * 256 channels at 14 x 14 (13 slivers), (256 x 3 x 3) x (13
		 * x 16) float32 + 64 B of alignment, over layer4's (512 x 3
		 * x 3) x (4 x 16) and conv1's per-thread chunks of (3 x 7 x
		 * 7) x (8 x 16) (the larger with more than 16 threads) */
		is_int((long long)wmax, 256 * 9 * 13 * 16 * 4 + 64,
		    "resnet18: the largest work space is layer3's packed "
		    "col, (256 x 3 x 3) x (13 x 16) float32 + 64");
	else if (!gp_conv_gemm_ok())
		is_int((long long)wmax, 3 * 7 * 7 * 112 * 112 * 4, "resnet18: "
		    "the largest work space is conv1's im2col matrix, (3 x 7 "
		    "x 7) x (112 x 112) float32");
	else
		ok(1, "# SKIP more than 16 threads: conv1's chunks may be "
		    "the largest work space");
}

int
main(void)
{
	gp_clock_init();
	test_chain();
	test_pool();
	test_workspace();
	test_diamond();
	test_view_of_view();
	test_inplace();
	test_origin_outlives_view();
	test_functions();
	test_update_inplace();
	test_multi_output();
	test_min_peak();
	test_min_peak_40();
	test_min_peak_inplace();
	test_min_peak_brute();
	test_report();
	test_empty();
	test_clone();
	test_speed();
	test_session_chain();
	test_examples();
	test_strided();
	test_models();
	return (done_testing());
}
