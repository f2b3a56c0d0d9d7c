/*
 * header.c: the header lines (see header.h).  The figures of lines 2 and
 * 3 flow left to right and wrap, so they fit from 80 columns up; line 4
 * holds the flags with the sparkline of recent calls at its right.
 */
#include "config.h"

#include "header.h"

#include <stdio.h>
#include <string.h>

#include "crt.h"
#include "draw.h"
#include "base/fmt.h"

#define SPARK_MIN 24
#define FLOW_LINES 2

struct flow {
	int	y0, y, x, w;
};

/* Draw "label value" at the flow's position, on the next line if it does
 * not fit; dropped when the flow's lines are full. */
static void
flow_pair(struct flow *f, const char *label, const char *value)
{
	int n = ui_text_width(label) + ui_text_width(value);

	if (f->x > 0 && f->x + 2 + n > f->w) {
		f->y++;
		f->x = 0;
	}
	if (f->y >= f->y0 + FLOW_LINES)
		return;
	if (f->x > 0)
		f->x += 2;
	f->x += ui_draw_text(f->y, f->x, f->w - f->x, label,
	    ui_crt_attr(UI_ROLE_LABEL));
	f->x += ui_draw_text(f->y, f->x, f->w - f->x, value,
	    ui_crt_attr(UI_ROLE_VALUE));
}

static int
pair(int y, int x, int w, const char *label, const char *value)
{
	if (x >= w)
		return (x);
	x += ui_draw_text(y, x, w - x, label, ui_crt_attr(UI_ROLE_LABEL));
	if (x < w)
		x += ui_draw_text(y, x, w - x, value,
		    ui_crt_attr(UI_ROLE_VALUE));
	return (x);
}

/* The last call's time of function f, or 0. */
static double
last_call(const struct gp_prof_fn *f)
{
	uint64_t n = gp_prof_calls(f);

	return (n > 0 ? (double)f->recent[n % GP_PROF_RECENT] : 0);
}

/* The recent per-call times of the functions shown, oldest first; with
 * all functions, the sum of each function's calls of one round. */
static int
recent(const struct ui_ctx *c, double *v)
{
	const struct gp_profile *p = c->snap;
	int f0 = c->fn >= 0 ? c->fn : 0, f1 = c->fn >= 0 ? c->fn + 1 :
	    p->n_fn;
	uint64_t n;
	int m;

	if (f0 >= p->n_fn)
		return (0);
	n = gp_prof_calls(&p->fn[f0]);
	m = n < GP_PROF_RECENT ? (int)n : GP_PROF_RECENT;
	for (int f = f0; f < f1; f++)
		if (gp_prof_calls(&p->fn[f]) != n)
			f1 = f0 + 1;	/* rounds do not line up: one only */
	for (int k = 0; k < m; k++) {
		uint64_t idx = (n - (uint64_t)(m - 1 - k)) % GP_PROF_RECENT;

		v[k] = 0;
		for (int f = f0; f < f1; f++)
			v[k] += (double)p->fn[f].recent[idx];
	}
	return (m);
}

void
ui_header_draw(const struct ui_ctx *c, int y, int w, const char *state)
{
	const struct gp_profile *p = c->snap;
	struct gp_prof_stat cs = {0};
	uint64_t call_ns = 0, vm_ns = 0, thunk_ns = 0, calls = 0, peak = 0;
	double last = 0, v[GP_PROF_RECENT];
	char b1[64], b2[64], b3[64], b4[256];
	struct flow fl = {.y0 = y + 1, .y = y + 1, .x = 0, .w = w};
	int x, n, room;

	for (int f = 0; f < p->n_fn; f++) {
		if (c->fn >= 0 && f != c->fn)
			continue;
		gp_prof_stat_merge(&cs, &p->fn[f].call);
		call_ns += p->fn[f].call.total;
		vm_ns += p->fn[f].vm_ns;
		thunk_ns += p->fn[f].thunk_ns;
		calls += gp_prof_calls(&p->fn[f]);
		last += last_call(&p->fn[f]);
		if (p->fn[f].mem_peak_measured > peak)
			peak = p->fn[f].mem_peak_measured;
	}
	for (int i = 0; i < UI_HEADER_LINES; i++)
		ui_draw_blank(y + i, 0, w, A_NORMAL);

	/* 1: what runs, and the runtime's state at the right */
	n = ui_text_width(state);
	x = ui_draw_text(y, 0, w, "gptop  ", ui_crt_attr(UI_ROLE_TITLE));
	snprintf(b4, sizeof(b4), "%s (%s)", p->graph, p->path);
	x = pair(y, x, w - n - 2, "graph ", b4);
	if (c->fn >= 0 && c->fn < p->n_fn)
		snprintf(b1, sizeof(b1), "%s [%d/%d]", p->fn[c->fn].name,
		    c->fn + 1, p->n_fn);
	else
		snprintf(b1, sizeof(b1), "all %d summed", p->n_fn);
	pair(y, x + 2, w - n - 2, "function ", b1);
	ui_draw_text(y, w - n, n, state, strcmp(state, "running") == 0 ?
	    ui_crt_attr(UI_ROLE_BAR) : ui_crt_attr(UI_ROLE_MSG));

	/* 2-3: the figures */
	snprintf(b1, sizeof(b1), "%llu", (unsigned long long)calls);
	flow_pair(&fl, "calls ", b1);
	/* running, the rate is measured over the first second: until then
	 * (and while nothing is running) there is none to show */
	if (c->st.rounds_per_s > 0 || c->st.paused || c->st.done)
		snprintf(b1, sizeof(b1), "%.1f", c->st.rounds_per_s);
	else
		snprintf(b1, sizeof(b1), "-");
	flow_pair(&fl, p->n_fn > 1 ? "rounds/s " : "calls/s ", b1);
	gp_fmt_time(b1, sizeof(b1), last);
	gp_fmt_time(b2, sizeof(b2), gp_prof_stat_quantile(&cs, 0.5));
	if (calls == 0)		/* after a reset: none yet, same width */
		snprintf(b1, sizeof(b1), "-");
	if (cs.n == 0)
		snprintf(b2, sizeof(b2), "-");
	gp_prof_stat_free(&cs);
	snprintf(b4, sizeof(b4), "last %8s median %8s", b1, b2);
	flow_pair(&fl, c->fn >= 0 || p->n_fn == 1 ? "per call " :
	    "per round ", b4);
	/* always drawn ("-" with no calls yet, after a reset) so the
	 * figures after them keep their places */
	if (call_ns > 0)
		snprintf(b4, sizeof(b4), "%3.0f%%", 100.0 * (double)vm_ns /
		    (double)call_ns);
	else
		snprintf(b4, sizeof(b4), "%4s", "-");
	flow_pair(&fl, "VM ", b4);
	if (call_ns > 0)
		snprintf(b4, sizeof(b4), "%3.0f%%", 100.0 * (double)thunk_ns /
		    (double)call_ns);
	flow_pair(&fl, "thunks ", b4);
	/* no call measured yet (after R): no peak, rather than 0B */
	if (calls == 0)
		snprintf(b1, sizeof(b1), "%7s", "-");
	else
		gp_fmt_bytes(b1, sizeof(b1), (double)peak);
	flow_pair(&fl, "measured peak ", b1);
	gp_fmt_time(b1, sizeof(b1), p->load_ns);
	gp_fmt_time(b2, sizeof(b2), p->rewrite_ns);
	gp_fmt_time(b3, sizeof(b3), p->link_ns);
	snprintf(b4, sizeof(b4), "load %s rewrite %s link %s", b1, b2, b3);
	flow_pair(&fl, "compile: ", b4);

	/* 4: flags and rewrites; the sparkline at the right */
	n = recent(c, v);
	room = n > 0 ? w - SPARK_MIN - 9 : w;
	x = pair(y + 3, 0, room, "flags: ", p->flags && p->flags[0] ?
	    p->flags : "(defaults)");
	if (p->rewrites && p->rewrites[0])
		x = pair(y + 3, x + 2, room, "rewrites: ", p->rewrites);
	if (n > 0) {
		x = pair(y + 3, x + 2, w, "recent ", "");
		ui_draw_spark(y + 3, x, w - x, v, n, ui_crt_attr(UI_ROLE_BAR));
	}
}
