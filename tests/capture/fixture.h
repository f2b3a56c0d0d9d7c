/*
 * tests/capture/fixture.h: profiles built by hand for the capture and diff
 * tests: functions of applies over float64 vectors, with synthetic
 * per-execution times (a base time and a uniform jitter from a fixed seed),
 * and a deep comparison of two profiles, field by field.
 */
#ifndef GPTOP_TESTS_CAPTURE_FIXTURE_H
#define GPTOP_TESTS_CAPTURE_FIXTURE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/profile.h"
#include "base/util.h"

#define FX_MAX_FN	8

static inline struct gp_profile *
fx_profile(const char *graph, uint64_t hash, const char *rewrites)
{
	struct gp_profile *p = gp_xcalloc(1, sizeof(*p));

	p->graph = gp_xstrdup(graph);
	p->path = gp_xasprintf("hand/%s.json", graph);
	p->graph_hash = hash;
	p->flags = gp_xstrdup("profiling__n_apply=50");
	p->rewrites = gp_xstrdup(rewrites);
	p->fn = gp_xcalloc(FX_MAX_FN + 1, sizeof(*p->fn));
	p->load_ns = 1.5e6;
	p->rewrite_ns = 2.25e5;
	p->link_ns = 3.125e4;
	p->clock.source = "tsc";
	p->clock.tsc_ghz = 2.0001132046792396;
	p->clock.resolution_ns = 13.999207612096333;
	p->clock.probe_ns = 15;
	p->n_phase = 1;
	p->phase = gp_xcalloc(2, sizeof(*p->phase));
	p->phase[0] = (struct gp_rewrite_phase_stat){
	    .name = gp_xstrdup("fusion"), .time_ns = 1234.5, .passes = 2,
	    .nodes_before = 5, .nodes_after = 4};
	p->n_rw = 1;
	p->rw = gp_xcalloc(2, sizeof(*p->rw));
	p->rw[0] = (struct gp_rewrite_stat){.name = gp_xstrdup("fuse"),
	    .tags = gp_xstrdup("fusion:fast_run"),
	    .phase = gp_xstrdup("fusion"), .enabled = true, .time_ns = 999.25,
	    .applied = 1, .tried = 5, .nodes_before = 5, .nodes_after = 4};
	return (p);
}

static inline struct gp_prof_fn *
fx_function(struct gp_profile *p, const char *name, int max_applies)
{
	struct gp_prof_fn *f = &p->fn[p->n_fn++];

	f->name = gp_xstrdup(name);
	f->ap = gp_xcalloc((size_t)max_applies + 1, sizeof(*f->ap));
	return (f);
}

/* An apply cls{opname}(in...) -> out over float64 vectors of len. */
static inline struct gp_prof_apply *
fx_apply(struct gp_prof_fn *f, const char *cls, const char *opname,
    int n_in, const char *const *in, const int *producer, const char *out,
    int64_t len)
{
	struct gp_prof_apply *a = &f->ap[f->n_apply];
	struct gp_buf b = {0};

	a->id = f->n_apply++;
	a->op = gp_xasprintf("%s{%s}", cls, opname);
	gp_buf_printf(&b, "%s(", a->op);
	for (int k = 0; k < n_in; k++)
		gp_buf_printf(&b, "%s%s", k ? ", " : "", in[k]);
	gp_buf_puts(&b, ")");
	a->name = gp_xstrdup(gp_buf_str(&b));
	gp_buf_free(&b);
	a->cls = gp_xstrdup(cls);
	a->opname = gp_xstrdup(opname);
	a->node = gp_xstrdup("");
	a->extra = gp_xstrdup("");
	a->impl = GP_IMPL_C;
	a->flops = (double)len;
	a->link_ns = 0.5;
	a->jit_ns = 0.25;
	a->n_in = n_in;
	a->n_out = 1;
	a->in = gp_xcalloc((size_t)n_in + 1, sizeof(*a->in));
	a->out = gp_xcalloc(2, sizeof(*a->out));
	a->in_producer = gp_xcalloc((size_t)n_in + 1, sizeof(int));
	for (int k = 0; k <= n_in; k++) {
		struct gp_prof_io *io = k < n_in ? &a->in[k] : &a->out[0];

		io->var = gp_xstrdup(k < n_in ? in[k] : out);
		io->dtype = GP_FLOAT64;
		io->ndim = 1;
		io->shape[0] = len;
		io->strides[0] = 8;
		io->strides_known = true;
		io->nbytes = (uint64_t)len * 8;
		if (k < n_in)
			a->in_producer[k] = producer[k];
		else
			io->alias = 'c';
	}
	return (a);
}

/* xorshift: a fixed sequence whatever the libc. */
static inline double
fx_uniform(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return ((double)(*s >> 11) / 9007199254740992.0);
}

/* n executions of about ns each, within +-jitter (relative). */
static inline void
fx_time(struct gp_prof_apply *a, double ns, int n, double jitter,
    uint64_t *seed)
{
	for (int i = 0; i < n; i++) {
		double v = ns * (1 + jitter * (2 * fx_uniform(seed) - 1));

		if (a->st.n == 0 && a->first_ns == 0)
			a->first_ns = (uint64_t)v;
		gp_prof_stat_add(&a->st, (uint64_t)v);
	}
}

/* n calls of f, each the sum of its applies' mean times plus overhead. */
static inline void
fx_calls(struct gp_prof_fn *f, int n, uint64_t *seed)
{
	uint64_t thunk = 0;
	double per = 0;

	for (int i = 0; i < f->n_apply; i++) {
		thunk += f->ap[i].st.total;
		per += f->ap[i].st.n ? (double)f->ap[i].st.total /
		    (double)f->ap[i].st.n : 0;
	}
	for (int c = 0; c < n; c++) {
		uint64_t ns = (uint64_t)(per * (1.02 + 0.02 *
		    fx_uniform(seed)) + 100);

		if (f->calls_seen == 0)
			f->first_call_ns = ns;
		gp_prof_stat_add(&f->call, ns);
		f->recent[f->call.n % GP_PROF_RECENT] = ns;
		f->calls_seen++;
		f->vm_ns += ns - 50;
	}
	f->thunk_ns += thunk;
	f->mem_peak_measured = 123456;
}

/* A chain x -> op0 -> t0 -> op1 -> t1 ... of the given ops (opnames),
 * each timed ns[i] per execution over `calls` calls. */
static inline struct gp_prof_fn *
fx_chain(struct gp_profile *p, const char *fname, int n,
    const char *const *ops, const double *ns, int calls, double jitter,
    uint64_t *seed)
{
	struct gp_prof_fn *f = fx_function(p, fname, n + 4);

	for (int i = 0; i < n; i++) {
		char in[32], out[32];
		const char *ins[1] = {in};
		int prod[1] = {i - 1};

		if (i == 0)
			snprintf(in, sizeof(in), "x");
		else
			snprintf(in, sizeof(in), "t%d", i - 1);
		snprintf(out, sizeof(out), "t%d", i);
		fx_time(fx_apply(f, "Elemwise", ops[i], 1, ins, prod, out,
		    1000), ns[i], calls, jitter, seed);
	}
	fx_calls(f, calls, seed);
	return (f);
}

/*
 * Deep comparison: false with the first difference in why.
 */

static inline bool
fx_fail(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return (false);
}

static inline bool
fx_streq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a == b);
	return (strcmp(a, b) == 0);
}

static inline bool
fx_stat_equal(const struct gp_prof_stat *a, const struct gp_prof_stat *b)
{
	return (gp_prof_stat_equal(a, b));
}

static inline bool
fx_io_equal(const struct gp_prof_io *a, const struct gp_prof_io *b)
{
	if (!fx_streq(a->var, b->var) || a->dtype != b->dtype ||
	    a->ndim != b->ndim || a->nbytes != b->nbytes ||
	    a->strides_known != b->strides_known || a->alias != b->alias)
		return (false);
	for (int d = 0; d < a->ndim; d++)
		if (a->shape[d] != b->shape[d] || (a->strides_known &&
		    a->strides[d] != b->strides[d]))
			return (false);
	return (true);
}

static inline bool
fx_profile_equal(const struct gp_profile *a, const struct gp_profile *b,
    char *why, size_t n)
{
	if (!fx_streq(a->graph, b->graph) || !fx_streq(a->path, b->path) ||
	    a->graph_hash != b->graph_hash)
		return (fx_fail(why, n, "graph identity"));
	if (!fx_streq(a->flags, b->flags) || !fx_streq(a->rewrites,
	    b->rewrites) || a->ignore_first != b->ignore_first)
		return (fx_fail(why, n, "flags or rewrites"));
	if (a->load_ns != b->load_ns || a->rewrite_ns != b->rewrite_ns ||
	    a->link_ns != b->link_ns || a->n_nodes != b->n_nodes)
		return (fx_fail(why, n, "compile times"));
	if (!fx_streq(a->clock.source, b->clock.source) ||
	    a->clock.tsc_ghz != b->clock.tsc_ghz ||
	    a->clock.resolution_ns != b->clock.resolution_ns ||
	    a->clock.probe_ns != b->clock.probe_ns)
		return (fx_fail(why, n, "clock"));
	if (a->n_phase != b->n_phase || a->n_rw != b->n_rw)
		return (fx_fail(why, n, "rewriter tables"));
	for (int i = 0; i < a->n_phase; i++) {
		const struct gp_rewrite_phase_stat *x = &a->phase[i];
		const struct gp_rewrite_phase_stat *y = &b->phase[i];

		if (!fx_streq(x->name, y->name) || x->time_ns != y->time_ns ||
		    x->passes != y->passes || x->nodes_before !=
		    y->nodes_before || x->nodes_after != y->nodes_after)
			return (fx_fail(why, n, "phase %d", i));
	}
	for (int i = 0; i < a->n_rw; i++) {
		const struct gp_rewrite_stat *x = &a->rw[i], *y = &b->rw[i];

		if (!fx_streq(x->name, y->name) || !fx_streq(x->tags,
		    y->tags) || !fx_streq(x->phase, y->phase) ||
		    x->enabled != y->enabled || x->time_ns != y->time_ns ||
		    x->applied != y->applied || x->tried != y->tried ||
		    x->nodes_before != y->nodes_before ||
		    x->nodes_after != y->nodes_after)
			return (fx_fail(why, n, "rewriter %d", i));
	}
	if (a->n_fn != b->n_fn)
		return (fx_fail(why, n, "function count"));
	for (int f = 0; f < a->n_fn; f++) {
		const struct gp_prof_fn *x = &a->fn[f], *y = &b->fn[f];

		if (!fx_streq(x->name, y->name) || x->n_apply != y->n_apply)
			return (fx_fail(why, n, "function %d", f));
		if (!fx_stat_equal(&x->call, &y->call) || x->vm_ns !=
		    y->vm_ns || x->thunk_ns != y->thunk_ns ||
		    x->first_call_ns != y->first_call_ns || x->calls_seen !=
		    y->calls_seen || x->mem_peak_measured !=
		    y->mem_peak_measured)
			return (fx_fail(why, n, "function %d counters", f));
		if (memcmp(x->recent, y->recent, sizeof(x->recent)) != 0)
			return (fx_fail(why, n, "function %d recent", f));
		for (int i = 0; i < x->n_apply; i++) {
			const struct gp_prof_apply *s = &x->ap[i];
			const struct gp_prof_apply *t = &y->ap[i];

			if (s->id != t->id || !fx_streq(s->name, t->name) ||
			    !fx_streq(s->op, t->op) || !fx_streq(s->cls,
			    t->cls) || !fx_streq(s->opname, t->opname) ||
			    !fx_streq(s->node, t->node) || !fx_streq(s->extra,
			    t->extra) || s->impl != t->impl ||
			    s->flops != t->flops || s->link_ns != t->link_ns ||
			    s->jit_ns != t->jit_ns)
				return (fx_fail(why, n, "apply %d.%d identity",
				    f, i));
			if (!fx_stat_equal(&s->st, &t->st) ||
			    s->first_ns != t->first_ns)
				return (fx_fail(why, n, "apply %d.%d counters",
				    f, i));
			if (s->n_in != t->n_in || s->n_out != t->n_out)
				return (fx_fail(why, n, "apply %d.%d arity",
				    f, i));
			for (int k = 0; k < s->n_in; k++)
				if (!fx_io_equal(&s->in[k], &t->in[k]) ||
				    s->in_producer[k] != t->in_producer[k])
					return (fx_fail(why, n, "apply %d.%d "
					    "input %d", f, i, k));
			for (int k = 0; k < s->n_out; k++)
				if (!fx_io_equal(&s->out[k], &t->out[k]))
					return (fx_fail(why, n, "apply %d.%d "
					    "output %d", f, i, k));
		}
	}
	return (true);
}

#endif
