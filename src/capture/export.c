/*
 * export.c: Chrome Trace Event JSON and CSV (see export.h).
 *
 * The trace recorder keeps, per function, a ring of the last K timed calls:
 * each slot holds the call's raw tick stamps (the VM's n_apply + 1: apply i
 * runs from stamp i to stamp i+1) and the live bytes after each apply.  The observer runs inside the VM's profiled loop, so it
 * only stores one number; everything else happens in the tracer, after the
 * call's timed region.  Events are encoded one at a time by jansson and
 * streamed, so even a large trace never sits in memory as a JSON tree.
 */
#include "config.h"

#include "capture/export.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/jsonout.h"
#include "base/outfile.h"
#include "run/vm.h"

#define PID 1

struct slot {
	uint64_t	 seq;	/* 1-based timed call number; 0: empty */
	uint64_t	 call;	/* 1-based number among the calls run */
	uint64_t	 call_ns;
	uint64_t	*ticks;	/* n_apply + 1 */
	uint64_t	*live;	/* 1 per apply */
	uint64_t	 end_tick;	/* functions without applies */
};

struct trace_fn {
	int		 n_apply;
	uint64_t	 seen;	/* timed calls recorded */
	/* the profile's calls_seen when recording started and stopped: the
	 * calls run meanwhile, timed or not */
	uint64_t	 calls0, calls1;
	uint64_t	*cur_live;	/* the call in progress */
	struct slot	*ring;
};

struct gp_trace {
	struct gp_profile	*p;
	struct gp_vm		*vm;
	bool			 hooked;
	int			 k;
	int			 n_fn;
	struct trace_fn		*fn;
	bool			 have_base;
	uint64_t		 base;	/* ticks: the first call's start */
};

static void
observe(void *ctx, int fn, int step)
{
	struct gp_trace *t = ctx;
	struct gp_alloc_stats st;

	if (fn < 0 || fn >= t->n_fn || step < 0 ||
	    step >= t->fn[fn].n_apply || t->fn[fn].cur_live == NULL)
		return;
	gp_alloc_get_stats(&st);
	t->fn[fn].cur_live[step] = st.live;
}

static void
trace(void *ctx, const struct gp_profile *p, int fn, const uint64_t *ticks,
    uint64_t call_ns)
{
	struct gp_trace *t = ctx;
	struct trace_fn *tf;
	struct slot *s;
	int n;

	if (fn < 0 || fn >= t->n_fn)
		return;
	tf = &t->fn[fn];
	n = p->fn[fn].n_apply;
	if (tf->ring == NULL || n != tf->n_apply)
		return;
	if (!t->have_base) {
		t->base = n > 0 ? ticks[0] : gp_clock_ticks();
		t->have_base = true;
	}
	tf->seen++;
	s = &tf->ring[(tf->seen - 1) % (uint64_t)t->k];
	s->seq = tf->seen;
	s->call = p->fn[fn].calls_seen - tf->calls0 + 1;
	s->call_ns = call_ns;
	s->end_tick = gp_clock_ticks();
	if (n > 0) {
		if (s->ticks == NULL) {
			s->ticks = gp_xmalloc(sizeof(uint64_t) *
			    ((size_t)n + 1));
			s->live = gp_xmalloc(sizeof(uint64_t) * (size_t)n);
		}
		memcpy(s->ticks, ticks, sizeof(uint64_t) * ((size_t)n + 1));
		memcpy(s->live, tf->cur_live, sizeof(uint64_t) * (size_t)n);
	}
}

struct gp_trace *
gp_export_trace_new(struct gp_profile *p, struct gp_vm *vm, int max_calls)
{
	struct gp_trace *t = gp_xcalloc(1, sizeof(*t));

	t->p = p;
	t->vm = vm;
	t->k = max_calls > 0 ? max_calls : 1;
	t->n_fn = p->n_fn;
	t->fn = gp_xcalloc((size_t)p->n_fn + 1, sizeof(*t->fn));
	for (int f = 0; f < p->n_fn; f++) {
		struct trace_fn *tf = &t->fn[f];

		tf->n_apply = p->fn[f].n_apply;
		tf->calls0 = p->fn[f].calls_seen;
		tf->cur_live = gp_xcalloc((size_t)tf->n_apply + 1,
		    sizeof(uint64_t));
		tf->ring = gp_xcalloc((size_t)t->k, sizeof(*tf->ring));
	}
	p->tracer = trace;
	p->tracer_ctx = t;
	p->tracer_sampled = false;
	if (vm != NULL)
		gp_vm_set_observer(vm, observe, t);
	t->hooked = true;
	return (t);
}

void
gp_export_trace_stop(struct gp_trace *t)
{
	if (!t->hooked)
		return;
	for (int f = 0; f < t->n_fn; f++)
		t->fn[f].calls1 = t->p->fn[f].calls_seen;
	if (t->p->tracer_ctx == t) {
		t->p->tracer = NULL;
		t->p->tracer_ctx = NULL;
	}
	if (t->vm != NULL)
		gp_vm_set_observer(t->vm, NULL, NULL);
	t->hooked = false;
}

void
gp_export_trace_free(struct gp_trace *t)
{
	if (t == NULL)
		return;
	gp_export_trace_stop(t);
	for (int f = 0; f < t->n_fn; f++) {
		for (int i = 0; i < t->k; i++) {
			free(t->fn[f].ring[i].ticks);
			free(t->fn[f].ring[i].live);
		}
		free(t->fn[f].ring);
		free(t->fn[f].cur_live);
	}
	free(t->fn);
	free(t);
}

int
gp_export_trace_call(const struct gp_trace *t, int fn, bool median,
    struct gp_prof_call *out)
{
	const struct trace_fn *tf;
	const struct slot *s = NULL;
	const struct slot *kept[64];
	int m = 0, n;

	out->seq = 0;
	if (fn < 0 || fn >= t->n_fn || t->fn[fn].seen == 0)
		return (-1);
	tf = &t->fn[fn];
	n = tf->n_apply;
	if (!median)
		s = &tf->ring[(tf->seen - 1) % (uint64_t)t->k];
	else {
		for (int i = 0; i < t->k && m < 64; i++)
			if (tf->ring[i].seq != 0)
				kept[m++] = &tf->ring[i];
		/* insertion sort by time, then by call number */
		for (int i = 1; i < m; i++)
			for (int j = i; j > 0 && (kept[j]->call_ns <
			    kept[j - 1]->call_ns || (kept[j]->call_ns ==
			    kept[j - 1]->call_ns && kept[j]->seq <
			    kept[j - 1]->seq)); j--) {
				const struct slot *x = kept[j];

				kept[j] = kept[j - 1];
				kept[j - 1] = x;
			}
		s = kept[(m - 1) / 2];
	}
	gp_prof_call_fit(out, n);
	out->seq = s->seq;
	out->call_ns = s->call_ns;
	out->span_ns = 0;
	if (n > 0 && s->ticks != NULL) {
		out->span_ns = gp_clock_ticks_to_ns(s->ticks[n] - s->ticks[0]);
		for (int i = 0; i < n; i++) {
			out->start[i] = gp_clock_ticks_to_ns(s->ticks[i] -
			    s->ticks[0]);
			out->ns[i] = gp_prof_apply_ns(t->p, s->ticks, i);
		}
	}
	return (0);
}

void
gp_export_trace_keep(const struct gp_trace *t, struct gp_profile *dst)
{
	for (int f = 0; f < dst->n_fn; f++) {
		struct gp_prof_fn *d = &dst->fn[f];

		if (f >= t->n_fn || t->fn[f].n_apply != d->n_apply ||
		    gp_export_trace_call(t, f, false,
		    &d->drawn[GP_PROF_LAST]) < 0) {
			for (int k = 0; k < GP_PROF_DRAWN__COUNT; k++)
				gp_prof_call_free(&d->drawn[k]);
			continue;
		}
		(void)gp_export_trace_call(t, f, true,
		    &d->drawn[GP_PROF_MEDIAN]);
	}
}

/* ns since the base, from a raw tick stamp. */
static uint64_t
rel_ns(const struct gp_trace *t, uint64_t tick)
{
	return (tick > t->base ? gp_clock_ticks_to_ns(tick - t->base) : 0);
}

static json_t *
us(uint64_t ns)
{
	return (json_real((double)ns / 1000.0));
}

static void
set(json_t *o, const char *k, json_t *v)
{
	json_object_set_new_nocheck(o, k, v);
}

struct out {
	FILE	*fp;
	bool	 first;
	size_t	 n;
	int	 rc;
};

static void
emit(struct out *o, json_t *ev)
{
	if (!o->first)
		fputs(",\n", o->fp);
	o->first = false;
	if (json_dumpf(ev, o->fp, JSON_COMPACT | JSON_PRESERVE_ORDER |
	    JSON_REAL_PRECISION(15)) != 0)
		o->rc = -1;
	json_decref(ev);
	o->n++;
}

static json_t *
event(const char *ph, const char *name, int tid)
{
	json_t *e = json_object();

	set(e, "name", gp_jsonout_str(name));
	set(e, "ph", json_string(ph));
	set(e, "pid", json_integer(PID));
	if (tid > 0)
		set(e, "tid", json_integer(tid));
	return (e);
}

/* The static args of every apply of function f, built once. */
static json_t **
apply_args(const struct gp_profile *p, const struct gp_prof_fn *f)
{
	struct gp_buf b = {0};

	json_t **v = gp_xcalloc((size_t)f->n_apply + 1, sizeof(*v));

	for (int i = 0; i < f->n_apply; i++) {
		const struct gp_prof_apply *a = &f->ap[i];
		json_t *o = json_object(), *shapes = json_array();
		json_t *dtypes = json_array();

		set(o, "op", gp_jsonout_str(a->op));
		set(o, "apply", json_integer(a->id));
		for (int k = 0; k < a->n_in; k++) {
			json_t *s = json_array();

			for (int d = 0; d < a->in[k].ndim; d++)
				json_array_append_new(s,
				    json_integer(a->in[k].shape[d]));
			json_array_append_new(shapes, s);
			json_array_append_new(dtypes,
			    json_string(gp_dtype_name(a->in[k].dtype)));
		}
		set(o, "shapes", shapes);
		set(o, "dtypes", dtypes);
		set(o, "flops", gp_jsonout_real(a->flops));
		set(o, "impl", json_string((unsigned)a->impl < GP_IMPL__COUNT ?
		    gp_impl_names[a->impl] : "?"));
		if (a->n_src > 0) {
			json_t *src = json_array();

			for (int k = 0; k < a->n_src; k++) {
				gp_buf_clear(&b);
				gp_prof_src_name(p, a->src[k], &b);
				json_array_append_new(src,
				    gp_jsonout_str(gp_buf_str(&b)));
			}
			set(o, "sources", src);
		}
		v[i] = o;
	}
	gp_buf_free(&b);
	return (v);
}

/*
 * One call: its slice from its first stamp for call_ns, and in it one
 * slice per apply in schedule order, starting at the apply's stamp and
 * lasting what the profile counts for it (gp_prof_apply_ns: the probe cost
 * is left as a gap before the next stamp).  Every time is a whole number of
 * ns from the call's start, each converted from a difference of stamps;
 * as the conversion rounds down, an apply ends no later than the next one
 * starts and the last no later than the call ends.
 */
static void
emit_call(struct out *o, const struct gp_trace *t, const struct gp_profile *p,
    int f, const struct slot *s, json_t **args)
{
	const struct gp_prof_fn *pf = &p->fn[f];
	int n = pf->n_apply, tid = f + 1;
	uint64_t start, thunk = 0;
	json_t *e, *a;

	if (n > 0)
		start = rel_ns(t, s->ticks[0]);
	else {
		start = rel_ns(t, s->end_tick);
		start = start > s->call_ns ? start - s->call_ns : 0;
	}
	for (int i = 0; i < n; i++)
		thunk += gp_prof_apply_ns(p, s->ticks, i);
	e = event("X", pf->name, tid);
	set(e, "cat", json_string("call"));
	set(e, "ts", us(start));
	set(e, "dur", us(s->call_ns));
	a = json_object();
	set(a, "call", json_integer((json_int_t)s->call));
	set(a, "call_ns", json_integer((json_int_t)s->call_ns));
	set(a, "thunk_ns", json_integer((json_int_t)thunk));
	set(e, "args", a);
	emit(o, e);
	for (int i = 0; i < n; i++) {
		const struct gp_prof_apply *ap = &pf->ap[i];
		uint64_t t0 = start + gp_clock_ticks_to_ns(s->ticks[i] -
		    s->ticks[0]);
		uint64_t t1 = start + gp_clock_ticks_to_ns(s->ticks[i + 1] -
		    s->ticks[0]);
		uint64_t ns = gp_prof_apply_ns(p, s->ticks, i);

		e = event("X", ap->name, tid);
		set(e, "cat", gp_jsonout_str(ap->cls));
		set(e, "ts", us(t0));
		set(e, "dur", us(ns));
		a = json_copy(args[i]);
		set(a, "ns", json_integer((json_int_t)ns));
		set(e, "args", a);
		emit(o, e);
		e = event("C", "live bytes", 0);
		set(e, "ts", us(t1));
		a = json_object();
		set(a, "live", json_integer((json_int_t)s->live[i]));
		set(e, "args", a);
		emit(o, e);
	}
}

int
gp_export_trace_fp(const struct gp_trace *t, FILE *fp)
{
	const struct gp_profile *p = t->p;
	struct out o = {.fp = fp, .first = true};
	json_t *e, *a, *calls;
	char hash[24];

	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", fp);
	e = event("M", "process_name", 0);
	a = json_object();
	set(a, "name", gp_jsonout_str(p->graph));
	set(e, "args", a);
	emit(&o, e);
	for (int f = 0; f < p->n_fn; f++) {
		e = event("M", "thread_name", f + 1);
		a = json_object();
		set(a, "name", gp_jsonout_str(p->fn[f].name));
		set(e, "args", a);
		emit(&o, e);
		e = event("M", "thread_sort_index", f + 1);
		a = json_object();
		set(a, "sort_index", json_integer(f));
		set(e, "args", a);
		emit(&o, e);
	}
	calls = json_object();
	for (int f = 0; f < p->n_fn && f < t->n_fn; f++) {
		const struct trace_fn *tf = &t->fn[f];
		json_t **args = apply_args(p, &p->fn[f]);
		uint64_t first = tf->seen > (uint64_t)t->k ?
		    tf->seen - (uint64_t)t->k : 0;
		json_t *c = json_object();
		uint64_t run;

		/* oldest first */
		for (uint64_t seq = first + 1; seq <= tf->seen; seq++)
			emit_call(&o, t, p, f, &tf->ring[(seq - 1) %
			    (uint64_t)t->k], args);
		for (int i = 0; i < p->fn[f].n_apply; i++)
			json_decref(args[i]);
		free(args);
		run = (t->hooked ? p->fn[f].calls_seen : tf->calls1) -
		    tf->calls0;
		if (run < tf->seen)
			run = tf->seen;
		set(c, "seen", json_integer((json_int_t)run));
		set(c, "timed", json_integer((json_int_t)tf->seen));
		set(c, "untimed", json_integer((json_int_t)(run - tf->seen)));
		set(c, "traced", json_integer((json_int_t)(tf->seen - first)));
		json_object_set_new(calls, p->fn[f].name, c);
	}
	fputs("\n],\n\"otherData\":", fp);
	a = json_object();
	snprintf(hash, sizeof(hash), "%016llx",
	    (unsigned long long)p->graph_hash);
	set(a, "tool", json_string("gptop " PACKAGE_VERSION));
	set(a, "graph", gp_jsonout_str(p->graph));
	set(a, "path", gp_jsonout_str(p->path));
	set(a, "graph_hash", json_string(hash));
	set(a, "flags", gp_jsonout_str(p->flags));
	set(a, "rewrites", gp_jsonout_str(p->rewrites));
	set(a, "clock", gp_jsonout_str(p->clock.source));
	set(a, "probe_ns", json_real(p->clock.probe_ns));
	set(a, "trace_calls", json_integer(t->k));
	set(a, "calls", calls);
	set(a, "note", json_string("the last trace_calls timed calls of "
	    "each function (untimed calls are left out); an apply slice "
	    "starts at the apply's stamp and lasts the time the profile "
	    "counts for it (args.ns: the stamp interval less the probe "
	    "cost); live bytes are sampled after each apply"));
	if (json_dumpf(a, fp, JSON_COMPACT | JSON_PRESERVE_ORDER) != 0)
		o.rc = -1;
	json_decref(a);
	fputs("}\n", fp);
	return (o.rc);
}

int
gp_export_trace_write(const struct gp_trace *t, const char *path,
    struct gp_err *err)
{
	struct gp_outfile af;
	uint64_t seen = 0;
	FILE *fp;

	for (int f = 0; f < t->n_fn; f++)
		seen += t->fn[f].seen;
	if (seen == 0)
		return (gp_err_set(err, "%s: no call was traced (profiling "
		    "is off, or no call ran)", path));
	if ((fp = gp_outfile_open(&af, path, err)) == NULL)
		return (-1);
	if (gp_export_trace_fp(t, fp) < 0) {
		/* a failed write (a full disk, EFBIG): its reason */
		int e = ferror(fp) ? errno : 0;

		gp_outfile_abort(&af);
		if (e != 0)
			return (gp_err_set(err, "%s: cannot write: %s", path,
			    strerror(e)));
		return (gp_err_set(err, "%s: cannot encode the trace", path));
	}
	return (gp_outfile_commit(&af, err));
}

/*
 * CSV.
 */

void
gp_export_csv_field(FILE *fp, const char *s)
{
	if (s == NULL)
		s = "";
	if (strpbrk(s, ",\"\r\n") == NULL) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s != '\0'; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static void
csv_header(FILE *fp, const char *const *cols)
{
	for (int i = 0; cols[i] != NULL; i++)
		fprintf(fp, "%s%s", i ? "," : "", cols[i]);
	fputs("\r\n", fp);
}

static void
csv_num(FILE *fp, const char *fmt, double v)
{
	fputc(',', fp);
	fprintf(fp, fmt, isfinite(v) ? v : 0);
}

static void
csv_u64(FILE *fp, uint64_t v)
{
	fprintf(fp, ",%llu", (unsigned long long)v);
}

static const char *const apply_cols[] = {
	"function", "id", "name", "op", "class", "impl", "pct", "cum_pct",
	"time_ns", "per_call_ns", "median_ns", "p95_ns", "min_ns", "max_ns",
	"calls", "mflops", "gflops_per_s", "flops", "signature", "sources",
	NULL
};

void
gp_export_csv_applies_fp(const struct gp_profile *p, FILE *fp)
{
	struct gp_prof_table t;
	struct gp_buf sig = {0};
	double cum = 0;

	gp_prof_rollup(p, -1, GP_GROUP_APPLY, &t);
	csv_header(fp, apply_cols);
	for (size_t i = 0; i < t.n; i++) {
		const struct gp_prof_row *r = &t.rows[i];
		const struct gp_prof_apply *a = &p->fn[r->fn].ap[r->id];

		cum += r->pct;
		gp_export_csv_field(fp, p->fn[r->fn].name);
		fprintf(fp, ",%d,", a->id);
		gp_export_csv_field(fp, a->name);
		fputc(',', fp);
		gp_export_csv_field(fp, a->op);
		fputc(',', fp);
		gp_export_csv_field(fp, a->cls);
		fputc(',', fp);
		gp_export_csv_field(fp, r->type);
		csv_num(fp, "%.4f", r->pct);
		csv_num(fp, "%.4f", cum);
		csv_u64(fp, a->st.total);
		csv_num(fp, "%.3f", r->per_call_ns);
		csv_num(fp, "%.3f", r->median_ns);
		csv_num(fp, "%.3f", r->p95_ns);
		csv_u64(fp, a->st.min);
		csv_u64(fp, a->st.max);
		csv_u64(fp, a->st.n);
		csv_num(fp, "%.6f", a->flops / 1e6);
		csv_num(fp, "%.6f", r->gflops);
		csv_num(fp, "%.0f", a->flops);
		gp_buf_clear(&sig);
		gp_prof_signature(a, &sig);
		fputc(',', fp);
		gp_export_csv_field(fp, gp_buf_str(&sig));
		gp_buf_clear(&sig);
		gp_prof_src_list(p, a, 0, &sig);
		fputc(',', fp);
		gp_export_csv_field(fp, sig.len ? gp_buf_str(&sig) : "");
		fputs("\r\n", fp);
	}
	gp_buf_free(&sig);
	gp_prof_table_free(&t);
}

static const char *const op_cols[] = {
	"op", "class", "type", "pct", "cum_pct", "time_ns", "per_call_ns",
	"median_ns", "p95_ns", "min_ns", "max_ns", "calls", "n_apply",
	"flops", "gflops_per_s", NULL
};

/* The class of each op row: the class of an apply running that op. */
static const char **
op_classes(const struct gp_profile *p, const struct gp_prof_table *t)
{
	const char **cls = gp_xcalloc(t->n + 1, sizeof(*cls));
	size_t cap = 16;
	int *idx;

	while (cap < 2 * t->n + 2)
		cap *= 2;
	idx = gp_xmalloc(sizeof(int) * cap);
	memset(idx, -1, sizeof(int) * cap);
	for (size_t i = 0; i < t->n; i++) {
		const char *s = t->rows[i].name;
		size_t h = gp_hash_bytes(GP_HASH_INIT, s, strlen(s)) &
		    (cap - 1);

		while (idx[h] >= 0)
			h = (h + 1) & (cap - 1);
		idx[h] = (int)i;
	}
	for (int f = 0; f < p->n_fn; f++)
		for (int i = 0; i < p->fn[f].n_apply; i++) {
			const struct gp_prof_apply *a = &p->fn[f].ap[i];
			size_t h = gp_hash_bytes(GP_HASH_INIT, a->op,
			    strlen(a->op)) & (cap - 1);

			while (idx[h] >= 0 &&
			    strcmp(t->rows[idx[h]].name, a->op) != 0)
				h = (h + 1) & (cap - 1);
			if (idx[h] >= 0 && cls[idx[h]] == NULL)
				cls[idx[h]] = a->cls;
		}
	free(idx);
	return (cls);
}

void
gp_export_csv_ops_fp(const struct gp_profile *p, FILE *fp)
{
	struct gp_prof_table t;
	const char **cls;
	double cum = 0;

	gp_prof_rollup(p, -1, GP_GROUP_OP, &t);
	cls = op_classes(p, &t);
	csv_header(fp, op_cols);
	for (size_t i = 0; i < t.n; i++) {
		const struct gp_prof_row *r = &t.rows[i];

		cum += r->pct;
		gp_export_csv_field(fp, r->name);
		fputc(',', fp);
		gp_export_csv_field(fp, cls[i]);
		fputc(',', fp);
		gp_export_csv_field(fp, r->type);
		csv_num(fp, "%.4f", r->pct);
		csv_num(fp, "%.4f", cum);
		csv_num(fp, "%.0f", r->time_ns);
		csv_num(fp, "%.3f", r->per_call_ns);
		csv_num(fp, "%.3f", r->median_ns);
		csv_num(fp, "%.3f", r->p95_ns);
		csv_u64(fp, r->st.min);
		csv_u64(fp, r->st.max);
		csv_u64(fp, r->calls);
		fprintf(fp, ",%d", r->n_apply);
		csv_num(fp, "%.0f", r->flops);
		csv_num(fp, "%.6f", r->gflops);
		fputs("\r\n", fp);
	}
	free(cls);
	gp_prof_table_free(&t);
}

static int
write_csv(const struct gp_profile *p, const char *path,
    void (*fn)(const struct gp_profile *, FILE *), struct gp_err *err)
{
	struct gp_outfile af;
	FILE *fp = gp_outfile_open(&af, path, err);

	if (fp == NULL)
		return (-1);
	fn(p, fp);
	return (gp_outfile_commit(&af, err));
}

int
gp_export_csv_applies(const struct gp_profile *p, const char *path,
    struct gp_err *err)
{
	return (write_csv(p, path, gp_export_csv_applies_fp, err));
}

int
gp_export_csv_ops(const struct gp_profile *p, const char *path,
    struct gp_err *err)
{
	return (write_csv(p, path, gp_export_csv_ops_fp, err));
}
