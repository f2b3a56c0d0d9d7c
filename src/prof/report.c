/*
 * report.c: the batch text report (see report.h).
 */
#include "config.h"

#include "prof/report.h"
#include "base/fmt.h"
#include "prof/memreport.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
gp_report_opts_from_flags(struct gp_report_opts *o, const struct gp_flags *f)
{
	o->n_ops = (int)f->n_ops;
	o->n_apply = (int)f->n_apply;
	o->width = (int)f->output_line_width;
	o->by_signature = false;
	o->memory = f->profile_memory;
	o->rewriters = f->profile_optimizer;
	o->min_memory_size = f->min_memory_size;
}

/* Seconds in %e like Theano's report. */
static double
sec(double ns)
{
	return (ns / 1e9);
}

static void
print_name(FILE *fp, const char *name, int room)
{
	int len = (int)strlen(name);

	if (room < 8)
		room = 8;
	if (len <= room)
		fprintf(fp, "%s\n", name);
	else
		fprintf(fp, "%.*s...\n", room - 3, name);
}

static void
global_section(FILE *fp, const struct gp_profile *p, int fn)
{
	uint64_t calls = 0, call_ns = 0, vm_ns = 0, thunk_ns = 0, timed = 0;
	uint32_t every = 1;
	struct gp_prof_stat cs = {0};
	int n_apply = 0;
	const char *name;

	for (int f = 0; f < p->n_fn; f++) {
		const struct gp_prof_fn *pf = &p->fn[f];

		if (fn >= 0 && f != fn)
			continue;
		calls += pf->call.n;
		call_ns += pf->call.total;
		vm_ns += pf->vm_ns;
		thunk_ns += pf->thunk_ns;
		timed += pf->timed;
		if (pf->every > every)
			every = pf->every;
		n_apply += pf->n_apply;
		gp_prof_stat_merge(&cs, &pf->call);
	}
	name = fn >= 0 ? p->fn[fn].name : NULL;
	fprintf(fp, "Function profiling\n==================\n");
	if (name != NULL)
		fprintf(fp, "  Message: %s (graph %s, %s)\n", name, p->graph,
		    p->path);
	else
		fprintf(fp, "  Message: sum of all %d functions (graph %s, %s)\n",
		    p->n_fn, p->graph, p->path);
	fprintf(fp, "  Time in %llu calls to Function.__call__: %es\n",
	    (unsigned long long)calls, sec((double)call_ns));
	if (call_ns > 0) {
		fprintf(fp, "  Time in Function.vm.__call__: %es (%.3f%%)\n",
		    sec((double)vm_ns), 100.0 * (double)vm_ns /
		    (double)call_ns);
		fprintf(fp, "  Time in thunks: %es (%.3f%%)\n",
		    sec((double)thunk_ns), 100.0 * (double)thunk_ns /
		    (double)call_ns);
		if (timed < calls)
			fprintf(fp, "  Applies timed in %llu of %llu calls (1 in "
			    "%u: a probe costs %.1fns; the others are counted "
			    "with the nearest timed call's times; "
			    "profiling__sample=1 times every call)\n",
			    (unsigned long long)timed,
			    (unsigned long long)calls, every,
			    p->clock.probe_ns);
		fprintf(fp, "  Time per call: mean %es, median %es, p95 %es, "
		    "min %es, max %es\n", sec((double)call_ns / (double)calls),
		    sec(gp_prof_stat_quantile(&cs, 0.5)),
		    sec(gp_prof_stat_quantile(&cs, 0.95)),
		    sec((double)cs.min), sec((double)cs.max));
	}
	gp_prof_stat_free(&cs);
	if (fn >= 0 && p->fn[fn].calls_seen > 0)
		fprintf(fp, "  First call: %es (%s)\n",
		    sec((double)p->fn[fn].first_call_ns), p->ignore_first ?
		    "left out of the totals: profiling__ignore_first_call" :
		    "included in the totals");
	fprintf(fp, "  Total compilation time: %es\n",
	    sec(p->load_ns + p->rewrite_ns + p->link_ns));
	fprintf(fp, "    Number of Apply nodes: %d\n", n_apply);
	fprintf(fp, "    Load time: %es\n", sec(p->load_ns));
	fprintf(fp, "    Rewrite time: %es\n", sec(p->rewrite_ns));
	fprintf(fp, "    Linker time: %es\n", sec(p->link_ns));
	{
		/* the slowest preparations at link time (Theano: the
		 * nodes' make_thunk times) */
		const struct gp_prof_apply *top[GP_PROF_SLOWEST];
		double prep = 0, jit = 0;
		int n = gp_prof_slowest_prep(p, fn, top, GP_PROF_SLOWEST);

		for (int f = 0; f < p->n_fn; f++)
			for (int i = 0; (fn < 0 || f == fn) &&
			    i < p->fn[f].n_apply; i++) {
				prep += p->fn[f].ap[i].link_ns;
				jit += p->fn[f].ap[i].jit_ns;
			}
		if (n > 0)
			fprintf(fp, "       Apply preparation time: %es (JIT "
			    "compiles %es)\n", sec(prep), sec(jit));
		for (int k = 0; k < n; k++) {
			fprintf(fp, "           Node %s time %es",
			    top[k]->name, sec(top[k]->link_ns));
			if (top[k]->jit_ns > 0)
				fprintf(fp, " (JIT compile %es)",
				    sec(top[k]->jit_ns));
			fprintf(fp, "\n");
		}
	}
	fprintf(fp, "  Timer: %s", p->clock.source);
	if (p->clock.tsc_ghz > 0)
		fprintf(fp, " (%.3f GHz, calibrated against CLOCK_MONOTONIC)",
		    p->clock.tsc_ghz);
	fprintf(fp, ", resolution %.1fns, probe cost %.1fns (subtracted "
	    "from every apply)\n", p->clock.resolution_ns, p->clock.probe_ns);
	if (p->flags != NULL && p->flags[0] != '\0')
		fprintf(fp, "  Flags: %s\n", p->flags);
	if (p->rewrites != NULL && p->rewrites[0] != '\0')
		fprintf(fp, "  Rewrites: %s\n", p->rewrites);
	fprintf(fp, "\n");
}

static void
rollup_section(FILE *fp, const struct gp_profile *p, int fn,
    enum gp_prof_group grp, const struct gp_report_opts *o)
{
	struct gp_prof_table t;
	const char *title, *what, *hdr;
	int limit = grp == GP_GROUP_APPLY ? o->n_apply : o->n_ops;
	double cum = 0, rest_ns = 0, rest_pct = 0;
	size_t shown = 0;
	char thunk[32];

	gp_prof_rollup(p, fn, grp, &t);
	switch (grp) {
	case GP_GROUP_CLASS:
		title = "Class";
		what = "Classes";
		hdr = "<% time> <sum %> <apply time> <time per call> <type> "
		    "<#call> <#apply> <Class name>";
		break;
	case GP_GROUP_OP:
	case GP_GROUP_OP_SIG:
		title = grp == GP_GROUP_OP ? "Ops" :
		    "Ops, by input signature";
		what = "Ops";
		hdr = "<% time> <sum %> <apply time> <time per call> <type> "
		    "<#call> <#apply> <Op name>";
		break;
	default:
		title = "Apply";
		what = "Apply instances";
		hdr = "<% time> <sum %> <apply time> <time per call> <median> "
		    "<p95> <#call> <id> <Mflops> <Gflops/s> <Apply name>";
		break;
	}
	gp_fmt_time(thunk, sizeof(thunk), t.total_ns);
	fprintf(fp, "%s\n", title);
	fprintf(fp, "%.*s\n", (int)strlen(title), "--------------------------"
	    "--------------");
	fprintf(fp, "Percentages are of the time in thunks (%s); times per "
	    "call are per execution of the apply.\n", thunk);
	fprintf(fp, "%s\n", hdr);
	for (size_t i = 0; i < t.n; i++) {
		const struct gp_prof_row *r = &t.rows[i];

		if ((int)shown >= limit) {
			rest_ns += r->time_ns;
			rest_pct += r->pct;
			continue;
		}
		shown++;
		cum += r->pct;
		if (grp == GP_GROUP_APPLY) {
			const struct gp_prof_apply *a =
			    &p->fn[r->fn].ap[r->id];
			char mf[16] = "", gf[16] = "";
			int used = 90;

			if (r->flops > 0) {
				snprintf(mf, sizeof(mf), "%8.3f",
				    r->flops / 1e6);
				snprintf(gf, sizeof(gf), "%9.3f", r->gflops);
			}
			fprintf(fp, "  %5.1f%%  %6.1f%%  %10.3es  %10.2es  "
			    "%9.2es  %9.2es  %6llu  %4d  %8s  %9s  ", r->pct,
			    cum, sec(r->time_ns), sec(r->per_call_ns),
			    sec(r->median_ns), sec(r->p95_ns),
			    (unsigned long long)r->calls, r->id, mf, gf);
			print_name(fp, r->name, o->width - used);
			for (int k = 0; k < a->n_in; k++) {
				struct gp_buf b = {0};

				gp_shape_format(&b, a->in[k].ndim,
				    a->in[k].shape);
				fprintf(fp, "    input %d: dtype=%s, shape=%s, "
				    "strides=", k, gp_dtype_name(a->in[k].dtype),
				    gp_buf_str(&b));
				gp_buf_clear(&b);
				if (!a->in[k].strides_known)
					gp_buf_puts(&b, "unknown");
				else
					gp_shape_format(&b, a->in[k].ndim,
					    a->in[k].strides);
				fprintf(fp, "%s\n", gp_buf_str(&b));
				gp_buf_free(&b);
			}
			for (int k = 0; k < a->n_out; k++) {
				struct gp_buf b = {0};

				gp_shape_format(&b, a->out[k].ndim,
				    a->out[k].shape);
				fprintf(fp, "    output %d: dtype=%s, shape=%s, "
				    "strides=", k,
				    gp_dtype_name(a->out[k].dtype),
				    gp_buf_str(&b));
				gp_buf_clear(&b);
				if (!a->out[k].strides_known)
					gp_buf_puts(&b, "unknown");
				else
					gp_shape_format(&b, a->out[k].ndim,
					    a->out[k].strides);
				fprintf(fp, "%s%s\n", gp_buf_str(&b),
				    a->out[k].alias == 'v' ? " (view)" :
				    a->out[k].alias == 'i' ? " (inplace)" : "");
				gp_buf_free(&b);
			}
		} else {
			fprintf(fp, "  %5.1f%%  %6.1f%%  %10.3es  %10.2es  "
			    "%-7s %6llu  %5d  ", r->pct, cum, sec(r->time_ns),
			    sec(r->per_call_ns), r->type,
			    (unsigned long long)r->calls, r->n_apply);
			print_name(fp, r->name, o->width - 68);
		}
	}
	fprintf(fp, "   ... (remaining %zu %s account for %.2f%%(%.2fs) of "
	    "the runtime)\n\n", t.n - shown, what, rest_pct, sec(rest_ns));
	gp_prof_table_free(&t);
}

void
gp_report_function(FILE *fp, const struct gp_profile *p, int fn,
    const struct gp_report_opts *o)
{
	uint64_t thunk = 0, calls = 0;

	global_section(fp, p, fn);
	for (int f = 0; f < p->n_fn; f++)
		if (fn < 0 || f == fn) {
			thunk += p->fn[f].thunk_ns;
			calls += p->fn[f].call.n;
		}
	if (thunk == 0) {
		if (calls > 0)
			fprintf(fp, "  No execution time accumulated: every "
			    "apply took less than the probe cost.\n\n");
		else
			fprintf(fp, "  No calls were timed (profile=False, or "
			    "no call was run).\n\n");
		return;
	}
	rollup_section(fp, p, fn, GP_GROUP_CLASS, o);
	rollup_section(fp, p, fn, o->by_signature ? GP_GROUP_OP_SIG :
	    GP_GROUP_OP, o);
	rollup_section(fp, p, fn, GP_GROUP_APPLY, o);
	if (o->memory)
		gp_memprof_report(fp, p, fn, o);
}

void
gp_report_all(FILE *fp, const struct gp_profile *p,
    const struct gp_report_opts *o)
{
	for (int f = 0; f < p->n_fn; f++)
		gp_report_function(fp, p, f, o);
	if (p->n_fn > 1)
		gp_report_function(fp, p, -1, o);
	if (o->rewriters)
		gp_report_rewriters(fp, p);
}

static int
cmp_rw_time(const void *a, const void *b)
{
	const struct gp_rewrite_stat *x = *(const struct gp_rewrite_stat
	    *const *)a;
	const struct gp_rewrite_stat *y = *(const struct gp_rewrite_stat
	    *const *)b;

	if (x->time_ns != y->time_ns)
		return (x->time_ns > y->time_ns ? -1 : 1);
	return (strcmp(x->name, y->name));
}

void
gp_report_rewriters(FILE *fp, const struct gp_profile *p)
{
	double total = 0;

	for (int i = 0; i < p->n_phase; i++)
		total += p->phase[i].time_ns;
	fprintf(fp, "Rewriter Profile\n----------------\n");
	fprintf(fp, "  Active: %s\n", p->rewrites ? p->rewrites : "");
	fprintf(fp, "  Rewrite time %es for %d phases; link time %es "
	    "(includes JIT compilation)\n", sec(total), p->n_phase,
	    sec(p->link_ns));
	fprintf(fp, "  <phase> <time> <passes> <nodes before> <nodes after>"
	    "\n");
	for (int i = 0; i < p->n_phase; i++) {
		const struct gp_rewrite_phase_stat *ph = &p->phase[i];

		fprintf(fp, "    %-14s %10.3es  %3d  %6d  %6d\n", ph->name,
		    sec(ph->time_ns), ph->passes, ph->nodes_before,
		    ph->nodes_after);
		{
			const struct gp_rewrite_stat **v = gp_xcalloc(
			    (size_t)p->n_rw + 1, sizeof(*v));
			int nv = 0;

			for (int k = 0; k < p->n_rw; k++)
				if (strcmp(p->rw[k].phase, ph->name) == 0)
					v[nv++] = &p->rw[k];
			qsort(v, (size_t)nv, sizeof(*v), cmp_rw_time);
			if (nv > 0)
				fprintf(fp, "      <time> <applied> <tried> "
				    "<nodes before> <nodes after> <name> "
				    "<tags>\n");
			for (int k = 0; k < nv; k++)
				fprintf(fp, "      %10.3es  %5d  %5d  %6d  "
				    "%6d  %s%s  (%s)\n", sec(v[k]->time_ns),
				    v[k]->applied, v[k]->tried,
				    v[k]->nodes_before, v[k]->nodes_after,
				    v[k]->name, v[k]->enabled ? "" :
				    " [off]", v[k]->tags);
			free(v);
		}
	}
	fprintf(fp, "\n");
}
