/*
 * diff-report.c: the text report of `gptop --batch --diff A B`
 * (gp_diff_report; diff.h): the sides, how the noise is judged, the
 * Global section per function, then the Class, Ops and Apply tables.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmt.h"
#include "base/util.h"
#include "capture/capture.h"
#include "capture/diff.h"
#include "capture/diff-impl.h"

static double
sec(double ns)
{
	return (ns / 1e9);
}

static void
fmt_sec(char *buf, size_t n, bool have, double ns)
{
	if (have)
		snprintf(buf, n, "%.3es", sec(ns));
	else
		snprintf(buf, n, "-");
}

static void
fmt_ratio(char *buf, size_t n, const struct gp_diff_row *r)
{
	if (r->kind == GP_DIFF_ADDED)
		snprintf(buf, n, "new");
	else if (r->kind == GP_DIFF_REMOVED)
		snprintf(buf, n, "gone");
	else if (isnan(r->ratio))
		snprintf(buf, n, "-");
	else if (isinf(r->ratio))
		snprintf(buf, n, "inf");
	else
		snprintf(buf, n, "%.2fx", r->ratio);
}

/* "~", "?", "added", "removed", or the change per execution with its p:
 * "+212% p=0.000" (benchstat's style). */
static void
fmt_sig(char *buf, size_t n, const struct gp_diff_row *r)
{
	if (r->verdict == GP_VERDICT_SLOWER || r->verdict ==
	    GP_VERDICT_FASTER)
		snprintf(buf, n, "%+.0f%%%s p=%.3f", 100 * r->rel_change,
		    r->by_round ? "*" : "", r->p);
	else
		snprintf(buf, n, "%s", gp_diff_mark(r));
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
describe(FILE *fp, const char *side, const char *label,
    const struct gp_profile *p, const struct gp_capture_info *ci)
{
	fprintf(fp, "  %s: %s: graph %s (%s, hash %016llx)\n", side,
	    label != NULL ? label : "-", p->graph, p->path,
	    (unsigned long long)p->graph_hash);
	if (p->rewrites != NULL && p->rewrites[0] != '\0')
		fprintf(fp, "     rewrites: %s\n", p->rewrites);
	if (p->flags != NULL && p->flags[0] != '\0')
		fprintf(fp, "     flags: %s\n", p->flags);
	if (ci != NULL)
		fprintf(fp, "     captured %s by gptop %s on %s (%d cores), "
		    "%s\n", ci->created ? ci->created : "?", ci->gptop ?
		    ci->gptop : "?", ci->cpu ? ci->cpu : "?", ci->cores,
		    ci->blas ? ci->blas : "?");
	if (ci != NULL && ci->threads > 0)
		fprintf(fp, "     kernels' threads: %d, idle ones %s\n",
		    ci->threads, ci->idle != NULL ? ci->idle : "?");
}

/* Did the two captures' kernels run on different thread settings (both
 * recorded)? */
static bool
threads_differ(const struct gp_capture_info *a,
    const struct gp_capture_info *b)
{
	if (a == NULL || b == NULL || a->threads <= 0 || b->threads <= 0)
		return (false);
	return (a->threads != b->threads || (a->idle != NULL && b->idle !=
	    NULL && strcmp(a->idle, b->idle) != 0));
}

static void
global_line(FILE *fp, const char *what, bool ha, double a, bool hb, double b,
    bool bytes)
{
	char sa[32], sb[32], sd[32], sr[16];

	if (bytes) {
		if (ha)
			gp_fmt_bytes(sa, sizeof(sa), a);
		else
			snprintf(sa, sizeof(sa), "-");
		if (hb)
			gp_fmt_bytes(sb, sizeof(sb), b);
		else
			snprintf(sb, sizeof(sb), "-");
		if (ha && hb) {
			gp_fmt_bytes(sd + 1, sizeof(sd) - 1, fabs(b - a));
			sd[0] = b < a ? '-' : '+';
		} else
			snprintf(sd, sizeof(sd), "-");
	} else {
		fmt_sec(sa, sizeof(sa), ha, a);
		fmt_sec(sb, sizeof(sb), hb, b);
		if (ha && hb)
			snprintf(sd, sizeof(sd), "%+.3es", sec(b - a));
		else
			snprintf(sd, sizeof(sd), "-");
	}
	if (ha && hb && a > 0)
		snprintf(sr, sizeof(sr), "%.2fx", b / a);
	else
		snprintf(sr, sizeof(sr), "-");
	fprintf(fp, "    %-26s %12s  %12s  %13s  %7s\n", what, sa, sb, sd, sr);
}

static void
count_line(FILE *fp, const char *what, bool ha, uint64_t a, bool hb,
    uint64_t b)
{
	char sa[32], sb[32], sd[32];

	snprintf(sa, sizeof(sa), ha ? "%llu" : "-", (unsigned long long)a);
	snprintf(sb, sizeof(sb), hb ? "%llu" : "-", (unsigned long long)b);
	if (ha && hb)
		snprintf(sd, sizeof(sd), "%+lld", (long long)b - (long long)a);
	else
		snprintf(sd, sizeof(sd), "-");
	fprintf(fp, "    %-26s %12s  %12s  %13s\n", what, sa, sb, sd);
}

static void
global_section(FILE *fp, const struct gp_diff *d)
{
	const struct gp_profile *a = d->a, *b = d->b;
	const struct gp_diff_table *t = &d->applies;

	fprintf(fp, "Global\n------\n");
	fprintf(fp, "    %-26s %12s  %12s  %13s  %7s\n", "", "A", "B",
	    "delta", "ratio");
	for (int f = 0; f < d->n_fn; f++) {
		const struct gp_diff_fn *df = &d->fn[f];
		const struct gp_diff_row *c = &df->call;
		bool ha = df->fn_a >= 0, hb = df->fn_b >= 0;
		char sig[40];

		fprintf(fp, "  Function %s%s\n", df->name, !ha ?
		    " (only in B)" : !hb ? " (only in A)" : "");
		count_line(fp, "Calls", ha, c->calls_a, hb, c->calls_b);
		global_line(fp, "Time in calls", ha, c->time_a, hb, c->time_b,
		    false);
		global_line(fp, "Time per call (mean)", ha && c->calls_a,
		    c->per_call_a, hb && c->calls_b, c->per_call_b, false);
		fmt_sig(sig, sizeof(sig), c);
		fprintf(fp, "    %-26s %12s  %12s  %13s  %s\n",
		    "  noise test", "", "", "", sig);
		global_line(fp, "Time per call (median)", ha && c->calls_a,
		    c->median_a, hb && c->calls_b, c->median_b, false);
		global_line(fp, "Time in Function.vm", ha, (double)df->vm_a,
		    hb, (double)df->vm_b, false);
		global_line(fp, "Time in thunks", ha, (double)df->thunk_a, hb,
		    (double)df->thunk_b, false);
		global_line(fp, "First call", ha, (double)df->first_a, hb,
		    (double)df->first_b, false);
		count_line(fp, "Number of Apply nodes", ha,
		    (uint64_t)df->n_apply_a, hb, (uint64_t)df->n_apply_b);
		global_line(fp, "Measured peak", ha,
		    (double)df->mem_peak_a, hb, (double)df->mem_peak_b, true);
		if (df->mem_pred_a != 0 || df->mem_pred_b != 0) {
			global_line(fp, "Predicted peak",
			    df->mem_pred_a != 0, (double)df->mem_pred_a,
			    df->mem_pred_b != 0, (double)df->mem_pred_b, true);
			global_line(fp, "Intermediates peak",
			    df->mem_pred_a != 0, (double)df->mem_inter_a,
			    df->mem_pred_b != 0, (double)df->mem_inter_b, true);
		}
		if (ha && hb && c->calls_a != c->calls_b &&
		    !d->opts.per_call)
			fprintf(fp, "    Note: the call counts differ: "
			    "compare the per-call columns, not the totals\n");
	}
	fprintf(fp, "  Compilation\n");
	global_line(fp, "Load time", true, a->load_ns, true, b->load_ns,
	    false);
	global_line(fp, "Rewrite time", true, a->rewrite_ns, true,
	    b->rewrite_ns, false);
	global_line(fp, "Linker time", true, a->link_ns, true, b->link_ns,
	    false);
	global_line(fp, "Total compilation time", true, a->load_ns +
	    a->rewrite_ns + a->link_ns, true, b->load_ns + b->rewrite_ns +
	    b->link_ns, false);
	if (d->peer != NULL)
		/* ONNX Runtime's nodes pair with gptop's applies through the
		 * source nodes they cover only: every pair is a group row,
		 * and the structural counts below would all read 0. */
		fprintf(fp, "  Applies: %zu paired by the source nodes they "
		    "cover (ONNX Runtime's nodes), %zu added, %zu removed; "
		    "%zu changed beyond noise\n", t->n_paired, t->n_added,
		    t->n_removed, t->n_significant);
	else
		fprintf(fp, "  Applies: %zu paired (%zu by structure, %zu by "
		    "apply name, %zu by shape, %zu by position), %zu added, "
		    "%zu removed; %zu changed beyond noise\n",
		    t->n_paired - d->n_groups,
		    d->n_match[GP_MATCH_STRUCTURE],
		    d->n_match[GP_MATCH_APPLY_NAME],
		    d->n_match[GP_MATCH_SHAPE], d->n_match[GP_MATCH_LOOSE],
		    t->n_added, t->n_removed, t->n_significant);
	if (d->n_groups > 0) {
		size_t na = 0, nb = 0;

		for (size_t k = 0; k < d->n_groups; k++) {
			na += (size_t)d->groups[k].n_a;
			nb += (size_t)d->groups[k].n_b;
		}
		fprintf(fp, "  Grouped by source nodes: %zu group%s (%zu "
		    "applies of A against %zu of B doing the work of the "
		    "same source nodes), judged by round (*)\n",
		    d->n_groups, d->n_groups == 1 ? "" : "s", na, nb);
	}
	fputc('\n', fp);
}

static void
table_section(FILE *fp, const struct gp_diff *d, const char *title,
    const char *what, const struct gp_diff_table *t, int limit, bool apply,
    int width)
{
	double rest = 0;
	size_t shown = 0;
	char ta[32], tb[32];

	gp_fmt_time(ta, sizeof(ta), t->total_a);
	gp_fmt_time(tb, sizeof(tb), t->total_b);
	fprintf(fp, "%s\n%.*s\n", title, (int)strlen(title),
	    "------------------------");
	fprintf(fp, "Times are %s (thunks: A %s, B %s); delta = B - A; ~ "
	    "marks a change within noise.\n", d->opts.per_call ?
	    "per call of the function" : "totals over all calls", ta, tb);
	fprintf(fp, "<time A> <time B> <delta> <ratio> <per call A> "
	    "<per call B> <#call A> <#call B> <noise> <%s name>\n", what);
	for (size_t i = 0; i < t->n; i++) {
		const struct gp_diff_row *r = &t->rows[i];
		bool ha = r->kind != GP_DIFF_ADDED;
		bool hb = r->kind != GP_DIFF_REMOVED;
		char sa[24], sb[24], pa[24], pb[24], ca[24], cb[24];
		char sr[16], sg[40];
		struct gp_buf name = {0};

		if ((int)shown >= limit) {
			rest += fabs(r->delta);
			continue;
		}
		shown++;
		fmt_sec(sa, sizeof(sa), ha, r->time_a);
		fmt_sec(sb, sizeof(sb), hb, r->time_b);
		fmt_sec(pa, sizeof(pa), ha, r->per_call_a);
		fmt_sec(pb, sizeof(pb), hb, r->per_call_b);
		snprintf(ca, sizeof(ca), ha ? "%llu" : "-",
		    (unsigned long long)r->calls_a);
		snprintf(cb, sizeof(cb), hb ? "%llu" : "-",
		    (unsigned long long)r->calls_b);
		fmt_ratio(sr, sizeof(sr), r);
		fmt_sig(sg, sizeof(sg), r);
		fprintf(fp, "  %11s  %11s  %+11.3es  %6s  %10s  %10s  %6s  "
		    "%6s  %-14s  ", sa, sb, sec(r->delta), sr, pa, pb, ca, cb,
		    sg);
		if (apply && d->n_fn > 1)
			gp_buf_printf(&name, "%s: ", r->fn_name);
		gp_buf_puts(&name, r->name);
		if (r->name_a != NULL)
			gp_buf_printf(&name, "  [A: %s]", r->name_a);
		print_name(fp, gp_buf_str(&name), width - 119);
		gp_buf_free(&name);
	}
	fprintf(fp, "   ... (remaining %zu %s rows account for %.3es of "
	    "|delta|)\n\n", t->n - shown, what, sec(rest));
}

void
gp_diff_report(FILE *fp, const struct gp_diff *d,
    const struct gp_diff_report_opts *o)
{
	fprintf(fp, "Profile diff\n============\n");
	describe(fp, "A", o->label_a, d->a, o->info_a);
	describe(fp, "B", o->label_b, d->b, o->info_b);
	if (d->peer != NULL) {
		const struct gp_diff_peer *pe = d->peer;

		fprintf(fp, "  Note: %s is ONNX Runtime's profile: its nodes "
		    "are paired with %s's applies by the source nodes they "
		    "cover (%d of %d nodes found by ONNX node or value name, "
		    "%d of %s's %d applies covered); Class and Ops rows are "
		    "ONNX op types\n", pe->ort == 0 ? "A" : "B",
		    pe->ort == 0 ? "B" : "A", pe->n_named, pe->fn.n_apply,
		    pe->n_covered, pe->ort == 0 ? "B" : "A", pe->n_gp);
	} else if (!d->same_graph)
		fprintf(fp, "  Note: A and B are different graphs (the hashes "
		    "differ): applies are paired by structure and name\n");
	else if (!d->same_rewrites)
		fprintf(fp, "  Note: different rewrite sets: applies are "
		    "paired by structure, the rest grouped by source nodes "
		    "where both captures carry them, else added or "
		    "removed\n");
	if (!d->same_clock)
		fprintf(fp, "  Note: different clocks (%s, %s)\n",
		    d->a->clock.source, d->b->clock.source);
	if (o->info_a != NULL && o->info_b != NULL && o->info_a->cpu !=
	    NULL && o->info_b->cpu != NULL && strcmp(o->info_a->cpu,
	    o->info_b->cpu) != 0)
		fprintf(fp, "  Note: captured on different CPUs\n");
	if (threads_differ(o->info_a, o->info_b))
		fprintf(fp, "  Note: the kernels' threads differ (A: %d, idle "
		    "%s; B: %d, idle %s): parallel loops take longer with "
		    "fewer threads or with idle threads that sleep (each wakes "
		    "them), whatever the graph does\n", o->info_a->threads,
		    o->info_a->idle ? o->info_a->idle : "?",
		    o->info_b->threads, o->info_b->idle ? o->info_b->idle :
		    "?");
	fprintf(fp, "  Noise: Mann-Whitney U on the per-execution "
	    "histograms; a change needs p < %g (adjusted for the rows of "
	    "the table, Benjamini-Hochberg), a change of at least %g%% and "
	    "%.3gns per execution, and %d executions a side.  Class and "
	    "Ops rows whose applies differ are judged by the time per round "
	    "(Welch; marked *).\n", d->opts.alpha,
	    100 * d->opts.min_change, d->floor_ns, d->opts.min_samples);
	if (d->opts.same_load)
		fprintf(fp, "  A and B ran interleaved, under the same load: "
		    "changes are judged as they are.\n\n");
	else {
		char least[32];

		gp_fmt_time(least, sizeof(least), GP_DIFF_FACTOR_MIN_FLOORS *
		    d->floor_ns);
		if (d->n_factor < 3)
			fprintf(fp, "  Common factor: none.  Under 3 paired "
			    "applies take %s or more per execution, too few "
			    "to tell the machine's drift between the captures "
			    "from a change: each such row is judged as it is, "
			    "and its change must stand out from what a loaded "
			    "machine gives one op (up to 2x).", least);
		else
			fprintf(fp, "  Common factor: B's applies took %.3gx A's "
			    "time (the median ratio over %zu paired applies of "
			    "%s or more per execution).  Captures run at "
			    "different times see the machine's drift on every "
			    "row, and a change alike to every row cannot be "
			    "told from it: each row is judged on B's times "
			    "divided by %.3g, and the change shown is the one "
			    "left.", d->factor, d->n_factor, least, d->factor);
		if (d->n_factor_blas > 0)
			fprintf(fp, "  BLAS rows drift on their own "
			    "(OpenBLAS's threads wait for a core): B's BLAS "
			    "applies took %.3gx A's time (over %zu), what "
			    "BLAS rows are judged against.", d->factor_blas,
			    d->n_factor_blas);
		if (d->n_factor_brief > 0)
			fprintf(fp, "  Briefer applies (%zu) are timed mostly "
			    "by the probes and the caches, which the load moves "
			    "otherwise: they are judged among themselves (B's "
			    "took %.3gx A's time)%s.", d->n_factor_brief,
			    d->factor_brief, d->n_factor_brief < 3 ? ", too "
			    "few to tell a change from drift" : "");
		fprintf(fp, "  A row's executions share its capture's state: "
		    "its change must also stand out from their spread (capture "
		    "scale %.3g).\n\n", d->capture_scale);
	}
	global_section(fp, d);
	table_section(fp, d, "Class", "Class", &d->cls, o->n_ops, false,
	    o->width);
	table_section(fp, d, "Ops", "Op", &d->ops, o->n_ops, false, o->width);
	table_section(fp, d, "Apply", "Apply", &d->applies, o->n_apply, true,
	    o->width);
}
