/*
 * view-summary.c: the Global summary view: the "Function profiling"
 * section of the batch report, live: calls and time in calls, the VM's
 * and the thunks' shares, time per call (mean, median, p95, min, max),
 * the first call, compile times, the five slowest apply preparations,
 * the tips of the batch report (advice.h), the timer, and the flags and
 * rewrites in effect; with several functions, one line per function.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/advice.h"
#include "crt.h"
#include "draw.h"
#include "prof/memprof.h"
#include "base/fmt.h"
#include "rewrite/jit.h"
#include "view.h"

struct summary {
	struct ui_text	text;
};

static void
summary_init(struct ui_view *v, struct ui_ctx *c, const struct ui_view_arg *a)
{
	struct summary *s = gp_xcalloc(1, sizeof(*s));

	ui_text_init(&s->text);
	v->priv = s;
}

static void
summary_free(struct ui_view *v)
{
	struct summary *s = v->priv;

	ui_text_done(&s->text);
	free(s);
}

#define T(buf, ns) (gp_fmt_time((buf), sizeof(buf), (double)(ns)), (buf))

static void
function_lines(struct ui_text *t, const struct gp_profile *p, int fn)
{
	struct gp_prof_stat cs = {0};
	uint64_t call_ns = 0, vm_ns = 0, thunk_ns = 0;
	int n_apply = 0;
	char a[32], b[32], c[32], d[32], e[32];

	for (int f = 0; f < p->n_fn; f++) {
		if (fn >= 0 && f != fn)
			continue;
		gp_prof_stat_merge(&cs, &p->fn[f].call);
		call_ns += p->fn[f].call.total;
		vm_ns += p->fn[f].vm_ns;
		thunk_ns += p->fn[f].thunk_ns;
		n_apply += p->fn[f].n_apply;
	}
	ui_text_add(t, UI_ROLE_NORMAL, "  Time in %llu calls: %s",
	    (unsigned long long)cs.n, T(a, call_ns));
	if (call_ns > 0) {
		ui_text_add(t, UI_ROLE_NORMAL, "  Time in the VM: %s (%.1f%%)",
		    T(a, vm_ns), 100.0 * (double)vm_ns / (double)call_ns);
		ui_text_add(t, UI_ROLE_NORMAL, "  Time in thunks: %s (%.1f%%)",
		    T(a, thunk_ns), 100.0 * (double)thunk_ns /
		    (double)call_ns);
		ui_text_add(t, UI_ROLE_NORMAL, "  Time per call: mean %s, "
		    "median %s, p95 %s, min %s, max %s",
		    T(a, (double)call_ns / (double)cs.n),
		    T(b, gp_prof_stat_quantile(&cs, 0.5)),
		    T(c, gp_prof_stat_quantile(&cs, 0.95)), T(d, cs.min),
		    T(e, cs.max));
	}
	gp_prof_stat_free(&cs);
	if (fn >= 0 && p->fn[fn].calls_seen > 0)
		ui_text_add(t, UI_ROLE_NORMAL, "  First call: %s (%s)",
		    T(a, p->fn[fn].first_call_ns), p->ignore_first ?
		    "left out of the totals: profiling__ignore_first_call" :
		    "included in the totals");
	ui_text_add(t, UI_ROLE_NORMAL, "  Apply nodes: %d", n_apply);
	if (fn >= 0) {
		char mb[32];

		gp_fmt_bytes(mb, sizeof(mb),
		    (double)p->fn[fn].mem_peak_measured);
		ui_text_add(t, UI_ROLE_NORMAL, "  Measured peak: %s",
		    mb);
		if (p->fn[fn].mem != NULL) {
			gp_fmt_bytes(mb, sizeof(mb), (double)
			    gp_memprof_predicted_peak(p, fn));
			ui_text_add(t, UI_ROLE_NORMAL, "  Predicted peak: %s",
			    mb);
		}
	}
}

/* The batch report's tips (advice.c), for the function shown. */
static void
tips(struct ui_text *t, const struct gp_profile *p, int fn)
{
	struct gp_tip tip[GP_ADVICE_MAX];
	int n = gp_advice(p, fn, tip, GP_ADVICE_MAX);

	ui_text_blank(t);
	ui_text_add(t, UI_ROLE_SECTION, "Tips to potentially make it run "
	    "faster");
	if (n == 0)
		ui_text_add(t, UI_ROLE_NORMAL, "  none: no rule (%s) found "
		    "anything", gp_advice_rules());
	for (int i = 0; i < n; i++) {
		const char *s = tip[i].text;
		char line[200];
		bool first = true;

		while (*s != '\0') {
			const char *e = ui_text_wrap(s, 74);
			size_t len = (size_t)(e - s) < sizeof(line) - 1 ?
			    (size_t)(e - s) : sizeof(line) - 1;

			memcpy(line, s, len);
			line[len] = '\0';
			if (first)
				ui_text_add(t, UI_ROLE_NORMAL, "  [%s]",
				    tip[i].rule);
			ui_text_add(t, UI_ROLE_NORMAL, "    %s", line);
			first = false;
			s = e;
			while (*s == ' ')
				s++;
		}
	}
}

static void
summary_update(struct ui_view *v, struct ui_ctx *c)
{
	struct summary *s = v->priv;
	struct ui_text *t = &s->text;
	const struct gp_profile *p = c->snap;
	char a[32], b[64], d[32], e[32];

	ui_text_clear(t);
	ui_text_add(t, UI_ROLE_SECTION, "Function profiling: %s",
	    ui_ctx_fn_name(c));
	ui_text_add(t, UI_ROLE_NORMAL, "  Graph %s (%s), %d function%s",
	    p->graph, p->path, p->n_fn, p->n_fn == 1 ? "" : "s");
	function_lines(t, p, c->fn);
	ui_text_blank(t);
	ui_text_add(t, UI_ROLE_SECTION, "Compilation");
	ui_text_add(t, UI_ROLE_NORMAL, "  Total %s: load %s, rewrite %s, "
	    "link %s", T(a, p->load_ns + p->rewrite_ns + p->link_ns),
	    T(b, p->load_ns), T(d, p->rewrite_ns), T(e, p->link_ns));
	ui_text_add(t, UI_ROLE_NORMAL, "  Apply nodes after rewriting: %d",
	    p->n_nodes);
	if (gp_jit_cache_refused()[0] != '\0')
		ui_text_add(t, UI_ROLE_ERROR, "  %s", gp_jit_cache_refused());
	{
		const struct gp_prof_apply *top[GP_PROF_SLOWEST];
		int n = gp_prof_slowest_prep(p, c->fn, top, GP_PROF_SLOWEST);

		if (n > 0)
			ui_text_add(t, UI_ROLE_NORMAL, "  Slowest apply "
			    "preparations (prepare and JIT compile):");
		for (int k = 0; k < n; k++)
			ui_text_add(t, UI_ROLE_NORMAL, "    %9s%s  %s",
			    T(a, top[k]->link_ns), top[k]->jit_ns > 0 ?
			    (snprintf(b, sizeof(b), " (JIT %s)", T(d,
			    top[k]->jit_ns)), b) : "", top[k]->name);
	}
	tips(t, p, c->fn);
	ui_text_blank(t);
	ui_text_add(t, UI_ROLE_SECTION, "Settings");
	ui_text_add(t, UI_ROLE_NORMAL, "  Flags: %s", p->flags && p->flags[0] ?
	    p->flags : "(defaults)");
	ui_text_add(t, UI_ROLE_NORMAL, "  Rewrites: %s", p->rewrites &&
	    p->rewrites[0] ? p->rewrites : "(none reported)");
	ui_text_add(t, UI_ROLE_NORMAL, "  Timer: %s%s, resolution %.1fns, "
	    "probe cost %.1fns (subtracted)",
	    p->clock.source ? p->clock.source : "?",
	    p->clock.tsc_ghz > 0 ? " (calibrated)" : "",
	    p->clock.resolution_ns, p->clock.probe_ns);
	ui_text_add(t, UI_ROLE_NORMAL, "  Runtime: %llu rounds, %.1f rounds/s, "
	    "%llu recompile%s%s", (unsigned long long)c->st.rounds,
	    c->st.rounds_per_s, (unsigned long long)c->st.recompiles,
	    c->st.recompiles == 1 ? "" : "s", c->st.paused ? ", paused" :
	    c->st.done ? ", done" : "");
	if (p->n_fn > 1) {
		ui_text_blank(t);
		ui_text_add(t, UI_ROLE_SECTION, "Functions");
		for (int f = 0; f < p->n_fn; f++) {
			const struct gp_prof_fn *pf = &p->fn[f];

			ui_text_add(t, UI_ROLE_NORMAL, "  %-20s %8llu calls, "
			    "median %s, thunks %s, %d applies", pf->name,
			    (unsigned long long)pf->call.n,
			    T(a, gp_prof_stat_quantile(&pf->call, 0.5)),
			    T(b, pf->thunk_ns), pf->n_apply);
		}
	}
	if (c->base != NULL) {
		ui_text_blank(t);
		ui_text_add(t, UI_ROLE_SECTION, "Baseline (before the last "
		    "recompile; see the Diff view)");
		ui_text_add(t, UI_ROLE_NORMAL, "  Flags: %s", c->base->flags &&
		    c->base->flags[0] ? c->base->flags : "(defaults)");
		function_lines(t, c->base, c->fn < c->base->n_fn ? c->fn :
		    -1);
	}
}

static void
summary_draw(struct ui_view *v, struct ui_ctx *c, int y, int h, int w)
{
	struct summary *s = v->priv;

	ui_text_draw(&s->text, y, h, w);
}

static bool
summary_key(struct ui_view *v, struct ui_ctx *c, enum ui_action a)
{
	return (false);
}

static struct ui_text *
summary_text(struct ui_view *v)
{
	return (&((struct summary *)v->priv)->text);
}

const struct ui_view_class ui_view_summary = {
	.name = "Summary",
	.keys = UI_K_TEXT,
	.init = summary_init,
	.free = summary_free,
	.update = summary_update,
	.draw = summary_draw,
	.key = summary_key,
	.text = summary_text,
};
