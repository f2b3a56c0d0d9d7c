/*
 * view-timeline.c: the Timeline view, a picture of one call: the last
 * timed call of the function shown (M: the call of median time among its
 * last 15 timed calls) drawn along time, each apply a bar from its start
 * to its end scaled to the terminal's width, the offenders (the call's
 * longest applies) drawn bold and labelled with their rank, time and
 * share of the call; under the lanes, on the same time axis, the memory
 * line: the live bytes through the call from the memory profile
 * (memprof.h), the most of the applies under each column.
 *
 * Two layouts (P): one lane per apply in schedule order (the name column
 * names each), or packed: bars that share no cell share a lane, as few
 * lanes as the overlaps need (a call runs one apply at a time, so on a
 * wide enough screen that is one lane; applies shorter than a cell, or
 * whose label does not fit in their bar and goes after it, take more),
 * each bar labelled with its apply's number, the selected apply named on
 * the line under the lanes.  In both the selection is an apply: Up and
 * Down go to the previous and next in schedule order, the lanes scroll
 * to show it, Enter (or a double click) opens its details, a click on a
 * lane (packed: on a bar) selects it.
 *
 * The calls are the profile's (struct gp_prof_fn's drawn[]): a live
 * session's snapshot carries those its worker recorded, a capture those
 * it stored (doc/capture-format.md, "Timeline"); a capture saved by an
 * earlier gptop has none, and the view says so.  The arithmetic (bars,
 * columns, offenders, packing) is timeline.c's.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmt.h"
#include "crt.h"
#include "draw.h"
#include "prof/memprof.h"
#include "timeline.h"
#include "view.h"

#define N_OFFENDERS 3	/* applies labelled */
#define HEAD_LINES 2	/* title, axis */
#define MEM_LINES 2	/* the memory line's label and its line */
#define SEL_LINES 1	/* packed: the selected apply's line */

struct timeline {
	struct gp_prof_call	 call;
	bool			 have;	/* call is of the snapshot's fn */
	bool			 median;
	int			 fn;
	const char		*why;	/* no call: why */
	int			 sel, top, lanes_h;
	bool			 sel_set;	/* put on the first offender */
	int			 off[N_OFFENDERS], n_off;
	bool			 packed;
	/* the last drawing, for clicks: the first lane's row, the bar
	 * area's first column and width, lanes shown; packed: each apply's
	 * lane and cells (bar and label) */
	int			 y0, x0, bw, n_lanes;
	int			*lane, *bx, *ext;
	int			 cap;
	/* what the packing was made for (a 100,000-apply call takes a
	 * while): the call, its offenders, the axis */
	uint64_t		 pk_seq, pk_span;
	int			 pk_n, pk_bw, pk_off, pk_lanes;
	bool			 pk_valid;
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

	gp_prof_call_free(&t->call);
	free(t->lane);
	free(t->bx);
	free(t->ext);
	free(t);
}

static void
timeline_update(struct ui_view *v, struct ui_ctx *c)
{
	struct timeline *t = v->priv;
	const struct gp_profile *p = c->snap;
	const struct gp_prof_call *dc;
	int fn = c->fn >= 0 ? c->fn : 0;

	if (fn != t->fn)
		t->sel_set = false;
	t->fn = fn;
	t->have = false;
	t->n_off = 0;
	if (p == NULL || fn >= p->n_fn) {
		t->why = "No function.";
		return;
	}
	dc = &p->fn[fn].drawn[t->median ? GP_PROF_MEDIAN : GP_PROF_LAST];
	if (dc->seq == 0 || dc->n_apply != p->fn[fn].n_apply) {
		t->why = c->s == NULL ? "This capture holds no timeline: "
		    "it has no calls of this function drawn along time (it "
		    "was saved by an earlier gptop, which kept counters "
		    "only, or before any timed call). Run the graph (gptop "
		    "GRAPH) to see its calls." :
		    "No timed call of this function yet (the runtime "
		    "records calls while it runs, with profiling on).";
		return;
	}
	gp_prof_call_copy(&t->call, dc);
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

/* An offender's label: "(K) TIME PCT%" of apply i. */
static void
offender_label(const struct timeline *t, int i, int k, char *buf, size_t n)
{
	char b1[32];

	gp_fmt_time(b1, sizeof(b1), (double)t->call.ns[i]);
	snprintf(buf, n, "(%d) %s %.0f%%", k, b1, t->call.span_ns > 0 ?
	    100.0 * (double)t->call.ns[i] / (double)t->call.span_ns : 0.0);
}

/* One lane per apply, in schedule order, from lane t->top on. */
static void
draw_lanes(struct timeline *t, const struct gp_prof_fn *f, int y, int lanes,
    int nw, int x0, int bw, const char *full)
{
	int n = t->call.n_apply;
	uint64_t span = t->call.span_ns;

	if (t->sel < t->top)
		t->top = t->sel;
	if (t->sel >= t->top + lanes)
		t->top = t->sel - lanes + 1;
	if (t->top > n - lanes)
		t->top = n - lanes > 0 ? n - lanes : 0;
	t->n_lanes = n;
	for (int r = 0; r < lanes && t->top + r < n; r++) {
		int i = t->top + r, ly = y + r, k = rank_of(t, i);
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
		offender_label(t, i, k, lab, sizeof(lab));
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
}

/* The packed layout's label of apply i: its number, an offender's rank
 * after it ("12 (1)"); long: an offender's time and share too. */
static void
packed_label(const struct timeline *t, int i, bool lng, char *buf,
    size_t n)
{
	int k = rank_of(t, i);
	char off[128];

	if (k == 0) {
		snprintf(buf, n, "%d", i);
		return;
	}
	if (lng)
		offender_label(t, i, k, off, sizeof(off));
	else
		snprintf(off, sizeof(off), "(%d)", k);
	snprintf(buf, n, "%d %s", i, off);
}

/* Where apply i's bar b and its short label of lw cells go on an axis of
 * bw cells: the label inside the bar when it fits, else after it, else
 * (at the axis' end) before it.  *x0, *x1: the cells taken [x0, x1);
 * returns the label's first cell. */
static int
packed_place(struct ui_tl_bar b, int lw, int bw, int *x0, int *x1)
{
	*x0 = b.x;
	*x1 = b.x + b.len;
	if (lw <= b.len)
		return (b.x);
	if (b.x + b.len + lw <= bw) {
		*x1 += lw;
		return (b.x + b.len);
	}
	*x0 = b.x - lw > 0 ? b.x - lw : 0;
	return (*x0);
}

/* Pack the applies' bars on an axis of bw cells: t->lane, and the cells
 * each takes (t->bx: the first, t->ext: how many). */
static void
pack(struct timeline *t, int bw)
{
	int n = t->call.n_apply;

	if (t->pk_valid && t->pk_seq == t->call.seq && t->pk_n == n &&
	    t->pk_bw == bw && t->pk_span == t->call.span_ns &&
	    t->pk_off == (n > 0 ? t->off[0] : -1)) {
		t->n_lanes = t->pk_lanes;
		return;
	}
	t->pk_valid = true;
	t->pk_seq = t->call.seq;
	t->pk_n = n;
	t->pk_bw = bw;
	t->pk_span = t->call.span_ns;
	t->pk_off = n > 0 ? t->off[0] : -1;
	if (n + 1 > t->cap) {
		t->cap = n + 1;
		t->lane = gp_xrealloc(t->lane, sizeof(int) * (size_t)t->cap);
		t->bx = gp_xrealloc(t->bx, sizeof(int) * (size_t)t->cap);
		t->ext = gp_xrealloc(t->ext, sizeof(int) * (size_t)t->cap);
	}
	for (int i = 0; i < n; i++) {
		struct ui_tl_bar b = ui_tl_bar(t->call.start[i],
		    t->call.ns[i], t->call.span_ns, bw);
		char lab[160];
		int x1;

		packed_label(t, i, false, lab, sizeof(lab));
		(void)packed_place(b, ui_text_width(lab), bw, &t->bx[i], &x1);
		t->ext[i] = x1 - t->bx[i];
	}
	t->n_lanes = t->pk_lanes = ui_tl_pack(t->bx, t->ext, n, 1, t->lane);
}

/* The packed layout, from lane t->top on, and the selected apply's line
 * under it. */
static void
draw_packed(struct timeline *t, const struct gp_prof_fn *f, int y, int lanes,
    int nw, int x0, int bw, const char *full)
{
	int n = t->call.n_apply, *count;
	uint64_t span = t->call.span_ns;
	char line[512], b1[32], b2[32];

	pack(t, bw);
	if (t->lane[t->sel] < t->top)
		t->top = t->lane[t->sel];
	if (t->lane[t->sel] >= t->top + lanes)
		t->top = t->lane[t->sel] - lanes + 1;
	if (t->top > t->n_lanes - lanes)
		t->top = t->n_lanes - lanes > 0 ? t->n_lanes - lanes : 0;
	count = gp_xcalloc((size_t)t->n_lanes + 1, sizeof(int));
	for (int i = 0; i < n; i++)
		count[t->lane[i]]++;
	for (int r = 0; r < lanes && t->top + r < t->n_lanes; r++) {
		int l = t->top + r;

		if (l == t->lane[t->sel]) {
			snprintf(line, sizeof(line), "%3d %s", t->sel,
			    f->ap[t->sel].name);
			ui_draw_ltext(y + r, 0, nw, line,
			    ui_crt_attr(UI_ROLE_SELECTED));
			ui_draw_text(y + r, nw, 1, ">",
			    ui_crt_attr(UI_ROLE_SELECTED));
		} else {
			snprintf(line, sizeof(line), "lane %d: %d appl%s", l,
			    count[l], count[l] == 1 ? "y" : "ies");
			ui_draw_rtext(y + r, 0, nw - 1, line,
			    ui_crt_attr(UI_ROLE_DIM));
		}
	}
	free(count);
	/* each bar of a lane shown, then its label */
	for (int i = 0; i < n; i++) {
		int r = t->lane[i] - t->top, k = rank_of(t, i), lx, c0, c1;
		struct ui_tl_bar b;
		attr_t ba;
		char lab[160];

		if (r < 0 || r >= lanes)
			continue;
		b = ui_tl_bar(t->call.start[i], t->call.ns[i], span, bw);
		ba = i == t->sel ? ui_crt_attr(UI_ROLE_SELECTED) | A_BOLD :
		    k > 0 ? ui_crt_attr(UI_ROLE_WORSE) | A_BOLD :
		    ui_crt_attr(UI_ROLE_BAR);
		for (int j = 0; j < b.len; j++)
			ui_draw_text(y + r, x0 + b.x + j, 1, full, ba);
		packed_label(t, i, false, lab, sizeof(lab));
		lx = packed_place(b, ui_text_width(lab), bw, &c0, &c1);
		if (lx == b.x && ui_text_width(lab) <= b.len) {
			char lng[160];

			/* inside the bar, over it; an offender's time and
			 * share too when they fit */
			packed_label(t, i, true, lng, sizeof(lng));
			ui_draw_text(y + r, x0 + b.x, b.len,
			    ui_text_width(lng) <= b.len ? lng : lab,
			    ba | A_REVERSE);
		} else
			ui_draw_text(y + r, x0 + lx, ui_text_width(lab), lab,
			    i == t->sel ? ui_crt_attr(UI_ROLE_SELECTED) :
			    ui_crt_attr(k > 0 ? UI_ROLE_WORSE :
			    UI_ROLE_DIM));
	}
	/* the selected apply, named */
	gp_fmt_time(b1, sizeof(b1), (double)t->call.ns[t->sel]);
	gp_fmt_time(b2, sizeof(b2), (double)t->call.start[t->sel]);
	snprintf(line, sizeof(line), "> %d (lane %d of %d%s) %s: %s, %.0f%% "
	    "of the call, from %s", t->sel, t->lane[t->sel], t->n_lanes,
	    t->n_lanes > lanes ? ", scrolled" : "", f->ap[t->sel].name, b1,
	    span > 0 ? 100.0 * (double)t->call.ns[t->sel] / (double)span :
	    0.0, b2);
	ui_draw_ltext(y + (t->n_lanes - t->top < lanes ? t->n_lanes - t->top :
	    lanes), 0, x0 + bw, line, ui_crt_attr(UI_ROLE_SELECTED));
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

	t->n_lanes = 0;
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
	    "applies %s, %d applies%s  (M: %s call, P: %s, Enter: details)",
	    t->median ? "Median" : "Last", f->name,
	    (unsigned long long)t->call.seq, b1, b2, n,
	    c->fn < 0 ? " (F: function)" : "", t->median ? "last" : "median",
	    t->packed ? "unpack" : "pack");
	ui_draw_ltext(y, 0, w, line, ui_crt_attr(UI_ROLE_TITLE));
	nw = w / 4;
	nw = nw < 12 ? 12 : nw > 32 ? 32 : nw;
	x0 = nw + 1;
	bw = w - x0 - 1;
	lanes = h - HEAD_LINES - MEM_LINES - (t->packed ? SEL_LINES : 0);
	if (bw < 8 || lanes < 1 || n == 0) {
		ui_draw_ltext(y + 1, 0, w, n == 0 ? "(a call of no applies)" :
		    "(too small a window)", ui_crt_attr(UI_ROLE_DIM));
		return;
	}
	/* the axis: 0, the middle, the end */
	gp_fmt_time(b3, sizeof(b3), (double)span / 2);
	ui_draw_rtext(y + 1, 0, nw, t->packed ? "lane \\ time" :
	    "apply \\ time", ui_crt_attr(UI_ROLE_DIM));
	ui_draw_rtext(y + 1, x0, bw + 1, b2, ui_crt_attr(UI_ROLE_DIM));
	ui_draw_text(y + 1, x0, bw / 2, "|0", ui_crt_attr(UI_ROLE_DIM));
	ui_draw_printf(y + 1, x0 + bw / 2, bw / 2 - ui_text_width(b2) - 1,
	    ui_crt_attr(UI_ROLE_DIM), "|%s", b3);
	t->lanes_h = lanes;
	t->y0 = y + HEAD_LINES;
	t->x0 = x0;
	t->bw = bw;
	if (t->packed)
		draw_packed(t, f, y + HEAD_LINES, lanes, nw, x0, bw, full);
	else
		draw_lanes(t, f, y + HEAD_LINES, lanes, nw, x0, bw, full);
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
	case UI_A_TL_PACKED:
		t->packed = !t->packed;
		t->top = 0;
		ui_ctx_msg(c, UI_ROLE_MSG, "Timeline: %s", t->packed ?
		    "packed (bars that do not overlap share a lane)" :
		    "a lane per apply, in schedule order");
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

/* A click at screen row y, column x: the lane's apply (packed: the bar
 * or label under it, else the lane's nearest bar) becomes the selected
 * one; returns it, or -1 when nothing is there. */
static int
timeline_click(struct ui_view *v, struct ui_ctx *c, int y, int x)
{
	struct timeline *t = v->priv;
	int r = y - t->y0, best = -1, bd = 0;

	(void)c;
	if (!t->have || t->n_lanes == 0 || r < 0 || r >= t->lanes_h ||
	    t->top + r >= t->n_lanes)
		return (-1);
	if (!t->packed) {
		t->sel = t->top + r;
		t->sel_set = true;
		return (t->sel);
	}
	x -= t->x0;
	for (int i = 0; i < t->call.n_apply; i++) {
		int d;

		if (t->lane[i] != t->top + r)
			continue;
		d = x < t->bx[i] ? t->bx[i] - x : x >= t->bx[i] + t->ext[i] ?
		    x - (t->bx[i] + t->ext[i] - 1) : 0;
		if (best < 0 || d < bd) {
			best = i;
			bd = d;
		}
	}
	if (best >= 0) {
		t->sel = best;
		t->sel_set = true;
	}
	return (best);
}

const struct ui_view_class ui_view_timeline = {
	.name = "Timeline",
	.keys = UI_K_TIMELINE,
	.init = timeline_init,
	.free = timeline_free,
	.update = timeline_update,
	.draw = timeline_draw,
	.key = timeline_key,
	.click = timeline_click,
};
