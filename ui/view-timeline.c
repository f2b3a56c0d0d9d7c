/*
 * view-timeline.c: the Timeline view, a picture of one call: the last
 * timed call of the function shown (M: the call of median time among its
 * last 15 timed calls) drawn along time, one lane per apply in schedule
 * order, each apply a bar from its start to its end scaled to the
 * terminal's width, the offenders (the call's longest applies) drawn
 * bold and labelled with their rank, time and share of the call (the
 * name column names them); under
 * the lanes, on the same time axis, the memory line: the live bytes
 * through the call from the memory profile (memprof.h), the most of the
 * applies under each column.  Enter on a lane opens its apply's details.
 *
 * The calls come from the session (gp_session_call: the trace recorder
 * of capture/export.h on the worker, copied out under the session lock);
 * a capture keeps counters, not calls, so on a loaded capture the view
 * says so.  The arithmetic (bars, columns, offenders) is timeline.c's.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmt.h"
#include "capture/export.h"
#include "crt.h"
#include "draw.h"
#include "prof/memprof.h"
#include "timeline.h"
#include "view.h"

#define N_OFFENDERS 3	/* applies labelled */
#define HEAD_LINES 2	/* title, axis */
#define MEM_LINES 2	/* the memory line's label and its line */

struct timeline {
	struct gp_trace_call	 call;
	bool			 have;	/* call is of the snapshot's fn */
	bool			 median;
	int			 fn;
	const char		*why;	/* no call: why */
	int			 sel, top, lanes_h;
	bool			 sel_set;	/* put on the first offender */
	int			 off[N_OFFENDERS], n_off;
};

static void
timeline_init(struct ui_view *v, struct ui_ctx *c,
    const struct ui_view_arg *a)
{
	v->priv = gp_xcalloc(1, sizeof(struct timeline));
}

static void
timeline_free(struct ui_view *v)
{
	struct timeline *t = v->priv;

	gp_export_trace_call_free(&t->call);
	free(t);
}

static void
timeline_update(struct ui_view *v, struct ui_ctx *c)
{
	struct timeline *t = v->priv;
	const struct gp_profile *p = c->snap;
	uint64_t gen = 0;
	int fn = c->fn >= 0 ? c->fn : 0;

	if (fn != t->fn)
		t->sel_set = false;
	t->fn = fn;
	t->have = false;
	t->n_off = 0;
	if (c->s == NULL) {
		t->why = "A capture keeps counters, not calls: it holds no "
		    "timeline. Run the graph itself (gptop GRAPH) to see "
		    "its calls drawn along time.";
		return;
	}
	if (p == NULL || fn >= p->n_fn) {
		t->why = "No function.";
		return;
	}
	if (gp_session_call(c->s, fn, t->median, &t->call, &gen) < 0 ||
	    gen != p->generation || t->call.n_apply != p->fn[fn].n_apply) {
		t->why = "No timed call of this function yet (the runtime "
		    "records calls while it runs, with profiling on).";
		return;
	}
	t->have = true;
	t->n_off = ui_tl_offenders(t->call.ns, t->call.n_apply, t->off,
	    N_OFFENDERS);
	if (!t->sel_set && t->n_off > 0) {
		t->sel = t->off[0];
		t->sel_set = true;
	}
	if (t->sel >= t->call.n_apply)
		t->sel = t->call.n_apply > 0 ? t->call.n_apply - 1 : 0;
}

static int
rank_of(const struct timeline *t, int i)
{
	for (int k = 0; k < t->n_off; k++)
		if (t->off[k] == i)
			return (k + 1);
	return (0);
}

/* The memory line on row y over the bar area [x0, x0 + bw): per column,
 * the most live bytes of the applies whose bars cover it (a column no
 * bar covers keeps the one before). */
static void
memory_line(struct ui_ctx *c, const struct timeline *t, int y, int nw,
    int x0, int bw)
{
	const struct gp_profile *p = c->snap;
	const struct gp_memprof *mp = p->fn[t->fn].mem;
	const struct gp_mem_sim *sim;
	uint64_t *col, lo = UINT64_MAX, hi = 0, span = t->call.span_ns;
	char b1[32], b2[32], lab[160];
	int n = t->call.n_apply, peak = -1;

	ui_draw_blank(y, 0, x0 + bw, A_NORMAL);
	ui_draw_blank(y + 1, 0, x0 + bw, A_NORMAL);
	if (mp == NULL || (sim = gp_memprof_sim(mp)) == NULL ||
	    sim->during == NULL || mp->n_apply != n || n == 0) {
		ui_draw_ltext(y, 0, x0 + bw, "Live bytes: no memory profile "
		    "for this function.", ui_crt_attr(UI_ROLE_DIM));
		return;
	}
	col = gp_xcalloc((size_t)bw + 1, sizeof(*col));
	for (int i = 0; i < n; i++) {
		struct ui_tl_bar b = ui_tl_bar(t->call.start[i],
		    t->call.ns[i], span, bw);
		uint64_t live = sim->during[i].live;

		if (sim->after != NULL && sim->after[i].live > live)
			live = sim->after[i].live;
		live += mp->external;
		if (peak < 0 || live > hi)
			peak = i;
		if (live > hi)
			hi = live;
		if (live < lo)
			lo = live;
		for (int j = b.x; j < b.x + b.len; j++)
			if (live > col[j])
				col[j] = live;
	}
	for (int j = 1; j < bw; j++)
		if (col[j] == 0)
			col[j] = col[j - 1];
	gp_fmt_bytes(b1, sizeof(b1), (double)lo);
	gp_fmt_bytes(b2, sizeof(b2), (double)hi);
	snprintf(lab, sizeof(lab), "Live bytes through the call (memory "
	    "profile): %s to %s, highest at apply %d", b1, b2, peak);
	ui_draw_ltext(y, 0, x0 + bw, lab, ui_crt_attr(UI_ROLE_LABEL));
	ui_draw_rtext(y + 1, 0, nw, b2, ui_crt_attr(UI_ROLE_DIM));
	for (int j = 0; j < bw; j++) {
		int lvl;

		if (col[j] == 0)
			continue;
		lvl = hi > lo ? (int)((double)(col[j] - lo) /
		    (double)(hi - lo) * 7 + 0.5) : 7;
		ui_draw_text(y + 1, x0 + j, 1, ui_spark_glyph(lvl),
		    ui_crt_attr(UI_ROLE_BAR));
	}
	free(col);
}

static void
timeline_draw(struct ui_view *v, struct ui_ctx *c, int y, int h, int w)
{
	struct timeline *t = v->priv;
	const struct gp_profile *p = c->snap;
	const struct gp_prof_fn *f;
	const char *full = ui_crt_utf8() ? "\u2588" : "#";
	char b1[32], b2[32], b3[32], line[512];
	int n, nw, x0, bw, lanes;
	uint64_t span;

	for (int r = 0; r < h; r++)
		ui_draw_blank(y + r, 0, w, A_NORMAL);
	if (!t->have) {
		const char *s = t->why;

		ui_draw_ltext(y, 0, w, "Timeline", ui_crt_attr(UI_ROLE_TITLE));
		for (int r = 2; s != NULL && *s != '\0' && r < h; r++) {
			const char *e = ui_text_wrap(s, w);
			char buf[512];
			int len = (int)(e - s) < 511 ? (int)(e - s) : 511;

			memcpy(buf, s, (size_t)len);
			buf[len] = '\0';
			ui_draw_ltext(y + r, 0, w, buf,
			    ui_crt_attr(UI_ROLE_MSG));
			s = e;
			while (*s == ' ')
				s++;
		}
		return;
	}
	f = &p->fn[t->fn];
	n = t->call.n_apply;
	span = t->call.span_ns;
	gp_fmt_time(b1, sizeof(b1), (double)t->call.call_ns);
	gp_fmt_time(b2, sizeof(b2), (double)span);
	snprintf(line, sizeof(line), "%s call of %s (timed call %llu): %s, "
	    "applies %s, %d applies%s  (M: %s call, Enter: details)",
	    t->median ? "Median" : "Last", f->name,
	    (unsigned long long)t->call.seq, b1, b2, n,
	    c->fn < 0 ? " (F: function)" : "", t->median ? "last" : "median");
	ui_draw_ltext(y, 0, w, line, ui_crt_attr(UI_ROLE_TITLE));
	nw = w / 4;
	nw = nw < 12 ? 12 : nw > 32 ? 32 : nw;
	x0 = nw + 1;
	bw = w - x0 - 1;
	if (bw < 8 || h < HEAD_LINES + MEM_LINES + 1) {
		ui_draw_ltext(y + 1, 0, w, "(too small a window)",
		    ui_crt_attr(UI_ROLE_DIM));
		return;
	}
	/* the axis: 0, the middle, the end */
	gp_fmt_time(b3, sizeof(b3), (double)span / 2);
	ui_draw_rtext(y + 1, 0, nw, "apply \\ time", ui_crt_attr(UI_ROLE_DIM));
	ui_draw_rtext(y + 1, x0, bw + 1, b2, ui_crt_attr(UI_ROLE_DIM));
	ui_draw_text(y + 1, x0, bw / 2, "|0", ui_crt_attr(UI_ROLE_DIM));
	ui_draw_printf(y + 1, x0 + bw / 2, bw / 2 - ui_text_width(b2) - 1,
	    ui_crt_attr(UI_ROLE_DIM), "|%s", b3);
	lanes = h - HEAD_LINES - MEM_LINES;
	t->lanes_h = lanes;
	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + lanes)
		t->top = t->sel - lanes + 1;
	if (t->top > n - lanes)
		t->top = n - lanes > 0 ? n - lanes : 0;
	for (int r = 0; r < lanes && t->top + r < n; r++) {
		int i = t->top + r, ly = y + HEAD_LINES + r, k = rank_of(t, i);
		struct ui_tl_bar b = ui_tl_bar(t->call.start[i],
		    t->call.ns[i], span, bw);
		attr_t ba = k > 0 ? ui_crt_attr(UI_ROLE_WORSE) | A_BOLD :
		    ui_crt_attr(UI_ROLE_BAR);
		char name[256], lab[256];
		int lw, after, before;

		snprintf(name, sizeof(name), "%3d %s", i, f->ap[i].name);
		ui_draw_ltext(ly, 0, nw, name, ui_crt_attr(i == t->sel ?
		    UI_ROLE_SELECTED : UI_ROLE_NORMAL));
		ui_draw_text(ly, nw, 1, i == t->sel ? ">" : " ",
		    ui_crt_attr(UI_ROLE_SELECTED));
		for (int j = 0; j < b.len; j++)
			ui_draw_text(ly, x0 + b.x + j, 1, full, ba);
		if (k == 0)
			continue;
		gp_fmt_time(b1, sizeof(b1), (double)t->call.ns[i]);
		snprintf(lab, sizeof(lab), "(%d) %s %.0f%%", k, b1,
		    span > 0 ? 100.0 * (double)t->call.ns[i] /
		    (double)span : 0.0);
		after = bw - (b.x + b.len + 1);
		before = b.x - 1;
		/* after the bar, else before it, else cut to the side
		 * with more room, else over the bar (it fills the axis) */
		lw = ui_text_width(lab);
		if (lw <= after || (lw > before && after >= before &&
		    after >= 3))
			ui_draw_ltext(ly, x0 + b.x + b.len + 1, after, lab,
			    ui_crt_attr(UI_ROLE_WORSE));
		else if (lw <= before)
			ui_draw_text(ly, x0 + b.x - 1 - lw, lw, lab,
			    ui_crt_attr(UI_ROLE_WORSE));
		else if (before >= 3)
			ui_draw_ltext(ly, x0, before, lab,
			    ui_crt_attr(UI_ROLE_WORSE));
		else
			ui_draw_text(ly, x0 + b.x + 1, lw < b.len - 2 ? lw :
			    b.len - 2, lab, ui_crt_attr(UI_ROLE_WORSE) |
			    A_REVERSE);
	}
	memory_line(c, t, y + h - MEM_LINES, nw, x0, bw);
}

static bool
timeline_key(struct ui_view *v, struct ui_ctx *c, enum ui_action a)
{
	struct timeline *t = v->priv;
	int n = t->have ? t->call.n_apply : 0;
	int page = t->lanes_h > 1 ? t->lanes_h - 1 : 1;
	struct ui_view_arg arg = {0};

	switch (a) {
	case UI_A_TL_MEDIAN:
		t->median = !t->median;
		v->built = false;	/* another call: rebuild now */
		ui_ctx_msg(c, UI_ROLE_MSG, "Timeline: the %s call",
		    t->median ? "median (of the last 15 timed)" : "last");
		return (true);
	case UI_A_UP:
		t->sel = t->sel > 0 ? t->sel - 1 : 0;
		break;
	case UI_A_DOWN:
		t->sel = t->sel + 1 < n ? t->sel + 1 : t->sel;
		break;
	case UI_A_PGUP:
		t->sel = t->sel > page ? t->sel - page : 0;
		break;
	case UI_A_PGDN:
		t->sel = t->sel + page < n ? t->sel + page :
		    (n > 0 ? n - 1 : 0);
		break;
	case UI_A_HOME:
		t->sel = 0;
		break;
	case UI_A_END:
		t->sel = n > 0 ? n - 1 : 0;
		break;
	case UI_A_ENTER:
		if (!t->have || n == 0 || t->fn >= c->snap->n_fn ||
		    t->sel >= c->snap->fn[t->fn].n_apply) {
			ui_ctx_msg(c, UI_ROLE_MSG, "no call drawn");
			return (true);
		}
		arg.fn = t->fn;
		arg.id = t->sel;
		ui_view_push(c, &ui_view_detail, &arg);
		return (true);
	default:
		return (false);
	}
	t->sel_set = true;
	return (true);
}

const struct ui_view_class ui_view_timeline = {
	.name = "Timeline",
	.keys = UI_K_TIMELINE,
	.init = timeline_init,
	.free = timeline_free,
	.update = timeline_update,
	.draw = timeline_draw,
	.key = timeline_key,
};
