/*
 * tui.c: the interactive frontend's screen and main loop (see tui.h).
 *
 * The loop never waits on the runtime: it sleeps in wget_wch with a
 * timeout until the next key, the next status tick (every delay) or the
 * next data tick, when it copies the published profile out
 * (gp_session_snapshot) and marks the views stale.  Only the view on
 * screen rebuilds, and only when its inputs changed; when a rebuild costs
 * more than 2% of the refresh interval, data ticks are spaced out so the
 * interface stays under 2% of a core whatever the graph's size.  Keys map
 * to actions through the key table (keys.c); handlers change state and
 * the screen is redrawn once before the loop sleeps again.
 *
 * Views: seven top-level views (number keys, Tab) and a stack of views
 * opened on top of them (an Apply view scoped to a class or op, details,
 * help) that Esc, q and Backspace pop.
 */
#include "config.h"

#include "tui.h"

#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <wchar.h>

#include "capture/capture.h"
#include "columns.h"
#include "crt.h"
#include "draw.h"
#include "fbar.h"
#include "header.h"
#include "rewriters.h"
#include "sig.h"
#include "view.h"

#define MIN_COLS 80
#define MIN_LINES 24
#define TAB_LINE UI_HEADER_LINES
#define VIEW_TOP (UI_HEADER_LINES + 1)
#define MAX_DEPTH 8
#define PENDING_TICK_MS 100
#define RECOMPILE_WAIT_MS 15000
#define DOUBLE_CLICK_MS 400
#define CPU_SHARE 100	/* data ticks at least 100x their cost apart */

enum top_view {
	TOP_CLASS,
	TOP_OPS,
	TOP_APPLY,
	TOP_MEMORY,
	TOP_REWRITES,
	TOP_DIFF,
	TOP_SUMMARY,
	TOP_TIMELINE,
	TOP__COUNT
};

static const struct top_entry {
	const struct ui_view_class	*cls;
	enum ui_action			 action;
	const char			*key;
} top_views[TOP__COUNT] = {
	[TOP_CLASS] = {.cls = &ui_view_class, .action = UI_A_VIEW_CLASS,
	    .key = "1"},
	[TOP_OPS] = {.cls = &ui_view_ops, .action = UI_A_VIEW_OPS,
	    .key = "2"},
	[TOP_APPLY] = {.cls = &ui_view_apply, .action = UI_A_VIEW_APPLY,
	    .key = "3"},
	[TOP_MEMORY] = {.cls = &ui_view_memory, .action = UI_A_VIEW_MEMORY,
	    .key = "4"},
	[TOP_REWRITES] = {.cls = &ui_view_rewrites,
	    .action = UI_A_VIEW_REWRITES, .key = "5"},
	[TOP_DIFF] = {.cls = &ui_view_diff, .action = UI_A_VIEW_DIFF,
	    .key = "6"},
	[TOP_SUMMARY] = {.cls = &ui_view_summary,
	    .action = UI_A_VIEW_SUMMARY, .key = "7"},
	[TOP_TIMELINE] = {.cls = &ui_view_timeline,
	    .action = UI_A_VIEW_TIMELINE, .key = "8"},
};

enum prompt {
	PROMPT_NONE,
	PROMPT_SEARCH,
	PROMPT_FILTER,
	PROMPT_SAVE		/* the capture's file name */
};

struct tui {
	struct ui_ctx		 c;
	struct ui_view		*top[TOP__COUNT];
	int			 cur;
	struct ui_view		*stack[MAX_DEPTH];
	int			 depth;
	bool			 quit;
	bool			 dirty;

	enum prompt		 prompt;
	char			 pbuf[PATH_MAX];
	char			 search[UI_FILTER_MAX];

	/* ticks */
	uint64_t		 delay_ms;
	uint64_t		 next_status, next_data;
	uint64_t		 data_interval;
	uint64_t		 data_sig;
	uint64_t		 last_recompiles;
	uint64_t		 stopped_rounds;	/* snapshot taken
							 * while stopped */
	bool			 stopped_snap;
	double			 snap_ms;

	/* a recompile asked for */
	bool			 pending;
	uint64_t		 pending_from, pending_t0;
	char			 pending_err[GP_ERR_MAX];

	/* the selected row's full name (v), shown until the next key */
	char			*popup;

	/* mouse */
	int			 tab_x0[TOP__COUNT], tab_x1[TOP__COUNT];
	uint64_t		 click_ms;
	size_t			 click_row;
	struct ui_view		*click_view;
};

static double
ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	    (double)(t1.tv_nsec - t0->tv_nsec) / 1e6);
}

static double
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
}

static struct ui_view *
shown(const struct tui *t)
{
	return (t->depth > 0 ? t->stack[t->depth - 1] : t->top[t->cur]);
}

static struct ui_list *
shown_list(const struct tui *t)
{
	struct ui_view *v = shown(t);

	return (v->cls->list != NULL ? v->cls->list(v) : NULL);
}

static struct ui_text *
shown_text(const struct tui *t)
{
	struct ui_view *v = shown(t);

	return (v->cls->text != NULL ? v->cls->text(v) : NULL);
}

static void
pop_all(struct tui *t)
{
	while (t->depth > 0)
		ui_view_free(t->stack[--t->depth]);
	t->prompt = PROMPT_NONE;
}

static void
push(struct tui *t, struct ui_view *v)
{
	if (t->depth == MAX_DEPTH) {
		ui_view_free(t->stack[0]);
		memmove(&t->stack[0], &t->stack[1], sizeof(t->stack[0]) *
		    (MAX_DEPTH - 1));
		t->depth--;
	}
	t->stack[t->depth++] = v;
	t->prompt = PROMPT_NONE;
}

static void
pop(struct tui *t)
{
	if (t->depth > 0)
		ui_view_free(t->stack[--t->depth]);
	t->prompt = PROMPT_NONE;
}

static void
show_top(struct tui *t, int idx)
{
	pop_all(t);
	t->cur = (idx + TOP__COUNT) % TOP__COUNT;
}

/* A cheap fingerprint of the counters: a new snapshot only matters when
 * it changes. */
static uint64_t
data_signature(const struct gp_profile *p, uint64_t rounds)
{
	uint64_t h = GP_HASH_INIT;

	h = gp_hash_bytes(h, &rounds, sizeof(rounds));
	h = gp_hash_bytes(h, &p->generation, sizeof(p->generation));
	for (int f = 0; f < p->n_fn; f++) {
		const struct gp_prof_fn *pf = &p->fn[f];

		h = gp_hash_bytes(h, &pf->calls_seen, sizeof(pf->calls_seen));
		h = gp_hash_bytes(h, &pf->call.n, sizeof(pf->call.n));
		h = gp_hash_bytes(h, &pf->call.total, sizeof(pf->call.total));
		h = gp_hash_bytes(h, &pf->mem_peak_measured,
		    sizeof(pf->mem_peak_measured));
	}
	return (h);
}

static void
recompile_done(struct tui *t, bool ok)
{
	struct ui_ctx *c = &t->c;

	t->pending = false;
	if (ok) {
		free(c->running_excl);
		free(c->running_incl);
		c->running_excl = gp_xstrdup(c->flags.optimizer_excluding ?
		    c->flags.optimizer_excluding : "");
		c->running_incl = gp_xstrdup(c->flags.optimizer_including ?
		    c->flags.optimizer_including : "");
		c->cfg_serial++;
		show_top(t, TOP_DIFF);
		ui_ctx_msg(c, UI_ROLE_MSG, "recompiled: the old program (A) "
		    "and the new one (B) run in turn; the Diff view compares "
		    "them");
	} else
		ui_ctx_msg(c, UI_ROLE_ERROR, "recompile failed: %s",
		    c->st.error[0] ? c->st.error :
		    "no answer from the runtime");
}

/* Every delay: the session's status (cheap), the baseline after a
 * recompile, and the end of a pending recompile. */
static void
status_tick(struct tui *t, uint64_t now)
{
	struct ui_ctx *c = &t->c;
	struct gp_session_status old = c->st;

	if (c->s == NULL)
		return;
	gp_session_status(c->s, &c->st);
	if (c->st.rounds != old.rounds || c->st.paused != old.paused ||
	    c->st.done != old.done || c->st.rounds_per_s != old.rounds_per_s ||
	    strcmp(c->st.error, old.error) != 0)
		t->dirty = true;
	if (c->st.recompiles != t->last_recompiles) {
		t->last_recompiles = c->st.recompiles;
		gp_profile_free(c->base);
		c->base = gp_session_baseline(c->s);
		c->base_live = c->base != NULL && c->st.interleaved;
		c->base_serial++;
		t->next_data = now;	/* the new program's data */
		/* even when it ran to its limit before this tick, with as
		 * many rounds as the old one had: not the same snapshot */
		t->stopped_snap = false;
		if (t->pending && c->st.recompiles > t->pending_from)
			recompile_done(t, true);
	}
	if (t->pending) {
		if (c->st.error[0] != '\0' &&
		    strcmp(c->st.error, t->pending_err) != 0)
			recompile_done(t, false);
		else if (now - t->pending_t0 > RECOMPILE_WAIT_MS)
			recompile_done(t, false);
		t->dirty = true;
	}
}

/* Copy the published profile out, unless the runtime is stopped and the
 * copy we have is already its last word. */
static void
data_tick(struct tui *t)
{
	struct ui_ctx *c = &t->c;
	uint64_t rounds, sig;
	bool stopped = c->st.paused || c->st.done;
	double cost, c0;

	if (c->s == NULL || (stopped && t->stopped_snap &&
	    t->stopped_rounds == c->st.rounds && c->snap != NULL))
		return;
	c0 = cpu_ms();
	rounds = gp_session_snapshot(c->s, &c->snap);
	t->snap_ms = cpu_ms() - c0;
	t->stopped_snap = stopped;
	t->stopped_rounds = c->st.rounds;
	sig = data_signature(c->snap, rounds);
	if (sig != t->data_sig) {
		t->data_sig = sig;
		c->serial++;
		t->dirty = true;
		/* the baseline program runs too: its new counters */
		if (c->base_live) {
			struct gp_profile *b = gp_session_baseline(c->s);

			if (b != NULL) {
				gp_profile_free(c->base);
				c->base = b;
				c->base_serial++;
			}
		}
	}
	/* keep the interface's own work under 1/CPU_SHARE of a core */
	cost = t->snap_ms + shown(t)->update_ms;
	t->data_interval = t->delay_ms;
	if (cost * CPU_SHARE > (double)t->delay_ms)
		t->data_interval = (uint64_t)(cost * CPU_SHARE);
}

static const char *
state_word(const struct tui *t, char *buf, size_t n)
{
	const struct ui_ctx *c = &t->c;
	const char *w = c->s == NULL ? "capture" : t->pending ?
	    "recompiling" : c->st.paused ? "paused" : c->st.done ? "done" :
	    "running";

	if (t->data_interval > t->delay_ms && !c->st.paused && !c->st.done)
		snprintf(buf, n, "%s (refresh %.1fs)", w,
		    (double)t->data_interval / 1e3);
	else
		snprintf(buf, n, "%s", w);
	return (buf);
}

static void
draw_tabs(struct tui *t, int y, int w)
{
	int x = 0, need = 0;
	bool keys_only;

	/* when the tabs and the views opened on top do not fit, the tabs
	 * not shown keep only their keys */
	for (int i = 0; i < TOP__COUNT; i++)
		need += 3 + ui_text_width(top_views[i].key) +
		    ui_text_width(top_views[i].cls->name);
	for (int d = 0; d < t->depth; d++)
		need += 3 + ui_text_width(t->stack[d]->cls->name);
	keys_only = need > w;
	ui_draw_blank(y, 0, w, A_NORMAL);
	for (int i = 0; i < TOP__COUNT; i++) {
		char label[32];
		int n;

		if (keys_only && i != t->cur)
			snprintf(label, sizeof(label), " %s ",
			    top_views[i].key);
		else
			snprintf(label, sizeof(label), " %s %s ",
			    top_views[i].key, top_views[i].cls->name);
		t->tab_x0[i] = x;
		n = ui_draw_text(y, x, w - x, label, i == t->cur ?
		    ui_crt_attr(UI_ROLE_TAB_ACTIVE) :
		    ui_crt_attr(UI_ROLE_TAB));
		x += n;
		t->tab_x1[i] = x;
	}
	for (int d = 0; d < t->depth && x < w; d++) {
		x += ui_draw_text(y, x, w - x, " > ", ui_crt_attr(UI_ROLE_DIM));
		x += ui_draw_text(y, x, w - x, t->stack[d]->cls->name,
		    ui_crt_attr(UI_ROLE_TAB_ACTIVE));
	}
}

static void
draw_bottom(struct tui *t, int y, int w, uint64_t now)
{
	struct ui_ctx *c = &t->c;
	char line[PATH_MAX + 128];

	if (t->prompt == PROMPT_SAVE) {
		snprintf(line, sizeof(line), "Write capture to: %s_   Enter: "
		    "write  Esc: cancel  C-u: clear", t->pbuf);
		ui_fbar_draw_text(y, w, line, UI_ROLE_MSG);
	} else if (t->prompt != PROMPT_NONE) {
		snprintf(line, sizeof(line), "%s: %s_   Enter: keep  Esc: %s%s",
		    t->prompt == PROMPT_SEARCH ? "Search" : "Filter", t->pbuf,
		    t->prompt == PROMPT_SEARCH ? "cancel" : "clear",
		    t->prompt == PROMPT_SEARCH ? "  F3: next" : "");
		ui_fbar_draw_text(y, w, line, UI_ROLE_MSG);
	} else if (c->msg[0] != '\0' && now < c->msg_until)
		ui_fbar_draw_text(y, w, c->msg, c->msg_role);
	else
		ui_fbar_draw(y, w, c->st.paused);
}

/* The full name in a box over the bottom of the view, wrapped. */
static void
draw_popup(const struct tui *t, int y0, int h, int w)
{
	const char *s = t->popup;
	int inner = w - 4, nl = 0, y;
	attr_t a = ui_crt_attr(UI_ROLE_SELECTED);
	const char *p;

	for (p = s; *p != '\0'; nl++)
		p = ui_text_wrap(p, inner);
	if (nl == 0)
		nl = 1;
	if (nl > h - 2)
		nl = h - 2;
	y = y0 + h - nl - 2;
	ui_draw_ltext(y, 0, w, " Full name (any key closes):", ui_crt_attr(
	    UI_ROLE_TITLE));
	p = s;
	for (int i = 0; i < nl; i++) {
		const char *e = ui_text_wrap(p, inner);
		char line[1024];
		size_t n = (size_t)(e - p) < sizeof(line) - 1 ?
		    (size_t)(e - p) : sizeof(line) - 1;

		memcpy(line, p, n);
		line[n] = '\0';
		ui_draw_blank(y + 1 + i, 0, 2, a);
		ui_draw_ltext(y + 1 + i, 2, w - 2, line, a);
		p = e;
	}
	ui_draw_blank(y + nl + 1, 0, w, ui_crt_attr(UI_ROLE_TITLE));
}

static void
draw(struct tui *t)
{
	struct ui_ctx *c = &t->c;
	struct ui_view *v = shown(t);
	uint64_t now = ui_crt_now_ms();
	char state[64];

	erase();
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		char msg[64];

		snprintf(msg, sizeof(msg), "terminal too small (need %dx%d)",
		    MIN_COLS, MIN_LINES);
		ui_draw_text(LINES / 2, 0, COLS, msg,
		    ui_crt_attr(UI_ROLE_ERROR));
		ui_draw_printf(LINES / 2 + 1 < LINES ? LINES / 2 + 1 : 0, 0,
		    COLS, A_NORMAL, "now %dx%d; q quits", COLS, LINES);
		refresh();
		return;
	}
	ui_view_refresh(v, c, false);
	ui_header_draw(c, 0, COLS, state_word(t, state, sizeof(state)));
	draw_tabs(t, TAB_LINE, COLS);
	v->cls->draw(v, c, VIEW_TOP, LINES - VIEW_TOP - 1, COLS);
	if (t->popup != NULL)
		draw_popup(t, VIEW_TOP, LINES - VIEW_TOP - 1, COLS);
	draw_bottom(t, LINES - 1, COLS, now);
	refresh();
}

static void
message_not_found(struct tui *t, const char *s)
{
	ui_ctx_msg(&t->c, UI_ROLE_ERROR, "not found: %s", s);
}

static void
do_search(struct tui *t, const char *s, int dir, bool from_sel)
{
	struct ui_list *l = shown_list(t);
	struct ui_text *x = shown_text(t);
	bool found = false;

	if (s[0] == '\0')
		return;
	if (l != NULL)
		found = ui_list_search(l, s, dir, from_sel);
	else if (x != NULL)
		found = ui_text_search(x, s, dir, from_sel);
	if (!found)
		message_not_found(t, s);
}

/* A capture: nothing runs, nothing to pause, reset or recompile. */
static bool
not_running(struct ui_ctx *c)
{
	if (c->s != NULL)
		return (false);
	ui_ctx_msg(c, UI_ROLE_MSG, "a capture is not running");
	return (true);
}

static void
toggle_rewriter(struct tui *t, const char *name)
{
	struct ui_ctx *c = &t->c;
	bool on;

	if (not_running(c))
		return;
	on = ui_rewriters_toggle(&c->flags, name);
	c->cfg_serial++;
	ui_ctx_msg(c, UI_ROLE_MSG, "%s: %s in the edited flags (press %s to "
	    "recompile and re-run)", name, on ? "on" : "off",
	    ui_keys_label(UI_A_RECOMPILE));
}

static void
recompile(struct tui *t)
{
	struct ui_ctx *c = &t->c;
	struct gp_err err;

	if (not_running(c))
		return;
	if (t->pending) {
		ui_ctx_msg(c, UI_ROLE_MSG, "a recompile is already on its way");
		return;
	}
	gp_session_status(c->s, &c->st);
	if (gp_session_recompile(c->s, &c->flags, &err) < 0) {
		ui_ctx_msg(c, UI_ROLE_ERROR, "recompile failed: %s", err.msg);
		return;
	}
	t->pending = true;
	t->pending_from = c->st.recompiles;
	t->pending_t0 = ui_crt_now_ms();
	memcpy(t->pending_err, c->st.error, sizeof(t->pending_err));
	ui_ctx_msg(c, UI_ROLE_MSG, "recompiling with optimizer_excluding=%s",
	    c->flags.optimizer_excluding && c->flags.optimizer_excluding[0] ?
	    c->flags.optimizer_excluding : "\"\"");
}

/* "gptop-GRAPH-YYYYmmdd-HHMMSS.json" in the current folder. */
static void
default_capture_name(const struct tui *t, char *buf, size_t n)
{
	time_t now = time(NULL);
	struct tm tm;
	char stamp[32];
	const char *g = t->c.snap != NULL && t->c.snap->graph != NULL ?
	    t->c.snap->graph : "graph";

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, n, "gptop-%s-%s.json", g, stamp);
	for (char *p = buf; *p != '\0'; p++)
		if (*p == '/' || *p == ' ')
			*p = '_';
}

/* Write the snapshot on screen as a capture (gp_capture_save: atomic). */
static void
write_capture(struct tui *t, const char *path)
{
	struct ui_ctx *c = &t->c;
	struct gp_err err;

	if (path[0] == '\0' || c->snap == NULL)
		return;
	if (gp_capture_save(c->snap, path, &err) < 0)
		ui_ctx_msg(c, UI_ROLE_ERROR, "capture not written: %s",
		    err.msg);
	else
		ui_ctx_msg(c, UI_ROLE_MSG, "capture written to %s (open it: "
		    "gptop %s)", path, path);
}

static void
cycle_fn(struct tui *t, int dir)
{
	struct ui_ctx *c = &t->c;
	int n = c->snap != NULL ? c->snap->n_fn : 1;
	int pos = c->fn < 0 ? n : c->fn;	/* n stands for the sum */

	if (n <= 1) {
		ui_ctx_msg(c, UI_ROLE_MSG, "the graph has one function");
		return;
	}
	pos = (pos + dir + n + 1) % (n + 1);
	c->fn = pos == n ? -1 : pos;
	ui_ctx_msg(c, UI_ROLE_MSG, "function: %s", ui_ctx_fn_name(c));
}

static void
action(struct tui *t, enum ui_action a)
{
	struct ui_ctx *c = &t->c;
	struct ui_view *v = shown(t);
	struct ui_list *l = shown_list(t);
	struct ui_text *x = shown_text(t);
	const struct ui_rewriter *rw;

	if (v->cls->key != NULL && v->cls->key(v, c, a)) {
		if (c->push != NULL) {
			push(t, c->push);
			c->push = NULL;
		}
		return;
	}
	for (int i = 0; i < TOP__COUNT; i++)
		if (top_views[i].action == a) {
			show_top(t, i);
			return;
		}
	if ((rw = ui_rewriters_by_action(a)) != NULL) {
		toggle_rewriter(t, rw->name);
		return;
	}
	switch (a) {
	case UI_A_QUIT:
		t->quit = true;
		break;
	case UI_A_BACK_OR_QUIT:
		if (t->depth > 0)
			pop(t);
		else
			t->quit = true;
		break;
	case UI_A_BACK:
		if (t->depth > 0)
			pop(t);
		else if (l != NULL && l->filter[0] != '\0')
			ui_list_set_filter(l, "");
		break;
	case UI_A_HELP:
		push(t, ui_view_new(&ui_view_help, c, NULL));
		break;
	case UI_A_REDRAW:
		clearok(curscr, TRUE);
		break;
	case UI_A_VIEW_NEXT:
		show_top(t, t->cur + 1);
		break;
	case UI_A_VIEW_PREV:
		show_top(t, t->cur - 1);
		break;
	case UI_A_FN_NEXT:
		cycle_fn(t, 1);
		break;
	case UI_A_FN_PREV:
		cycle_fn(t, -1);
		break;
	case UI_A_UP:
	case UI_A_DOWN:
	case UI_A_PGUP:
	case UI_A_PGDN:
	case UI_A_HOME:
	case UI_A_END:
	case UI_A_LEFT:
	case UI_A_RIGHT:
	case UI_A_SORT_NEXT:
	case UI_A_SORT_PREV:
	case UI_A_SORT_INVERT:
	case UI_A_LAZY:
		if (l != NULL) {
			ui_list_action(l, a);
			if (a == UI_A_LAZY)
				ui_ctx_msg(c, UI_ROLE_MSG, "lazy order %s",
				    l->lazy ? "on: rows keep their places "
				    "until you sort again" : "off");
		} else if (x != NULL)
			ui_text_action(x, a);
		break;
	case UI_A_FULL_NAME: {
		const void *row = l != NULL ? ui_list_selected(l) : NULL;

		if (row == NULL || l->set->name_of == NULL)
			ui_ctx_msg(c, UI_ROLE_MSG, "no row selected");
		else {
			free(t->popup);
			t->popup = gp_xstrdup(l->set->name_of(row));
		}
		break;
	}
	case UI_A_SEARCH:
		if (l == NULL && x == NULL)
			break;
		t->prompt = PROMPT_SEARCH;
		t->pbuf[0] = '\0';
		break;
	case UI_A_SEARCH_NEXT:
	case UI_A_SEARCH_PREV:
		if (t->search[0] == '\0')
			ui_ctx_msg(c, UI_ROLE_MSG, "no search yet: press /");
		else
			do_search(t, t->search, a == UI_A_SEARCH_NEXT ? 1 : -1,
			    false);
		break;
	case UI_A_FILTER:
		if (l == NULL)
			break;
		t->prompt = PROMPT_FILTER;
		snprintf(t->pbuf, sizeof(t->pbuf), "%s", l->filter);
		break;
	case UI_A_SIGNATURE:
		c->by_sig = !c->by_sig;
		c->cfg_serial++;
		ui_ctx_msg(c, UI_ROLE_MSG, "Ops %s", c->by_sig ?
		    "split by input signature" : "not split by signature");
		break;
	case UI_A_PAUSE: {
		bool p;

		if (not_running(c))
			break;
		p = !gp_session_paused(c->s);
		gp_session_pause(c->s, p);
		gp_session_status(c->s, &c->st);
		ui_ctx_msg(c, UI_ROLE_MSG, "runtime %s", p ? "paused" :
		    "resumed");
		break;
	}
	case UI_A_RESET:
		if (not_running(c))
			break;
		gp_session_reset(c->s);
		t->next_data = 0;
		ui_ctx_msg(c, UI_ROLE_MSG, "statistics reset");
		break;
	case UI_A_WRITE:
		default_capture_name(t, t->pbuf, sizeof(t->pbuf));
		t->prompt = PROMPT_SAVE;
		break;
	case UI_A_RECOMPILE:
		recompile(t);
		break;
	default:
		break;
	}
}

/* Remove the last UTF-8 character of s. */
static void
chop(char *s)
{
	size_t n = strlen(s);

	while (n > 0) {
		n--;
		if (((unsigned char)s[n] & 0xc0) != 0x80)
			break;
	}
	s[n] = '\0';
}

static void
prompt_changed(struct tui *t)
{
	struct ui_list *l = shown_list(t);

	if (t->prompt == PROMPT_FILTER && l != NULL)
		ui_list_set_filter(l, t->pbuf);
	else if (t->prompt == PROMPT_SEARCH && t->pbuf[0] != '\0')
		do_search(t, t->pbuf, 1, true);
}

/* A key while the prompt is open; returns false when the key should go
 * on to the normal handling (the prompt is then closed). */
static bool
prompt_key(struct tui *t, wint_t key, bool code)
{
	struct ui_list *l = shown_list(t);

	if (!code && (key == '\r' || key == '\n')) {
		if (t->prompt == PROMPT_SAVE) {
			t->prompt = PROMPT_NONE;
			write_capture(t, t->pbuf);
			return (true);
		}
		if (t->prompt == PROMPT_SEARCH && t->pbuf[0] != '\0')
			snprintf(t->search, sizeof(t->search), "%.*s",
			    (int)sizeof(t->search) - 1, t->pbuf);
		t->prompt = PROMPT_NONE;
		return (true);
	}
	if (!code && key == 27) {
		if (t->prompt == PROMPT_FILTER && l != NULL)
			ui_list_set_filter(l, "");
		t->prompt = PROMPT_NONE;
		return (true);
	}
	if (!code && key == 21) {	/* C-u */
		t->pbuf[0] = '\0';
		prompt_changed(t);
		return (true);
	}
	if ((code && key == KEY_BACKSPACE) || (!code && (key == 127 ||
	    key == 8))) {
		chop(t->pbuf);
		prompt_changed(t);
		return (true);
	}
	if (code && key == KEY_F(3) && t->prompt == PROMPT_SEARCH) {
		snprintf(t->search, sizeof(t->search), "%.*s",
		    (int)sizeof(t->search) - 1, t->pbuf);
		do_search(t, t->pbuf, 1, false);
		return (true);
	}
	if (!code && key >= 0x20 && key != 0x7f) {
		char mb[MB_LEN_MAX + 1];
		mbstate_t st;
		size_t n;

		memset(&st, 0, sizeof(st));
		n = wcrtomb(mb, (wchar_t)key, &st);
		if (n == (size_t)-1 || strlen(t->pbuf) + n + 1 >
		    sizeof(t->pbuf))
			return (true);
		mb[n] = '\0';
		strcat(t->pbuf, mb);
		prompt_changed(t);
		return (true);
	}
	if (t->prompt == PROMPT_SAVE)	/* other keys wait for Enter/Esc */
		return (true);
	/* anything else closes the prompt, keeping what it did */
	if (t->prompt == PROMPT_SEARCH && t->pbuf[0] != '\0')
		snprintf(t->search, sizeof(t->search), "%.*s",
		    (int)sizeof(t->search) - 1, t->pbuf);
	t->prompt = PROMPT_NONE;
	return (false);
}

static void
mouse(struct tui *t)
{
	MEVENT ev;
	struct ui_list *l = shown_list(t);
	struct ui_text *x = shown_text(t);
	struct ui_view *v = shown(t);
	uint64_t now = ui_crt_now_ms();
	long item = -1;

	if (getmouse(&ev) != OK)
		return;
	if (ev.bstate & (BUTTON4_PRESSED | BUTTON5_PRESSED)) {
		int dy = ev.bstate & BUTTON4_PRESSED ? -3 : 3;

		if (l != NULL)
			ui_list_scroll(l, dy);
		else if (x != NULL)
			ui_text_scroll(x, dy);
		else if (v->cls->click != NULL)	/* a picture: move */
			for (int k = 0; k < 3; k++)
				action(t, dy < 0 ? UI_A_UP : UI_A_DOWN);
		return;
	}
	if (!(ev.bstate & BUTTON1_PRESSED))
		return;
	if (ev.y == LINES - 1) {
		int k = ui_fbar_click(ev.x);

		if (k != 0)
			action(t, ui_keys_lookup(k, true, shown(t)->cls->keys));
		return;
	}
	if (ev.y == TAB_LINE) {
		for (int i = 0; i < TOP__COUNT; i++)
			if (ev.x >= t->tab_x0[i] && ev.x < t->tab_x1[i])
				show_top(t, i);
		return;
	}
	if (l != NULL && ui_list_click(l, ev.y, ev.x) == 1)
		item = (long)l->sel;
	else if (l == NULL && v->cls->click != NULL)
		item = v->cls->click(v, &t->c, ev.y, ev.x);
	if (item >= 0) {
		if (t->click_view == v && t->click_row == (size_t)item &&
		    now - t->click_ms < DOUBLE_CLICK_MS) {
			t->click_view = NULL;
			action(t, UI_A_ENTER);
			return;
		}
		t->click_view = v;
		t->click_row = (size_t)item;
		t->click_ms = now;
	}
}

static void
key(struct tui *t, wint_t k, bool code)
{
	struct ui_ctx *c = &t->c;

	if (code && k == KEY_RESIZE)
		return;
	if (code && k == KEY_MOUSE) {
		mouse(t);
		return;
	}
	if (t->prompt != PROMPT_NONE && prompt_key(t, k, code))
		return;
	if (t->popup != NULL) {
		free(t->popup);	/* any key closes it, and does no more */
		t->popup = NULL;
		return;
	}
	if (COLS < MIN_COLS || LINES < MIN_LINES) {
		enum ui_action a = ui_keys_lookup((int)k, code, 0);

		if (a == UI_A_QUIT || a == UI_A_BACK_OR_QUIT)
			t->quit = true;
		return;
	}
	if (c->msg_until != 0 && !code)
		c->msg_until = 0;	/* a key clears the message */
	action(t, ui_keys_lookup((int)k, code, shown(t)->cls->keys));
}

/* Benchmarks (GPTOP_TUI_BENCH): time the interface's own work. */
struct bench {
	FILE		*fp;
	int		 phase;		/* 0 waiting, 1 idle, 2 done */
	uint64_t	 t0_ms, idle_ms;
	uint64_t	 rounds0;
	double		 cpu0;
};

static double
thread_cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ((double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3);
}

static void
bench_measure(struct tui *t, FILE *fp)
{
	struct ui_ctx *c = &t->c;
	const int reps = 10;
	struct timespec t0;
	double c0;
	size_t napply = 0;

	for (int f = 0; f < c->snap->n_fn; f++)
		napply += (size_t)c->snap->fn[f].n_apply;
	fprintf(fp, "applies %zu\n", napply);
	fprintf(fp, "screen %dx%d\n", COLS, LINES);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	c0 = cpu_ms();
	for (int i = 0; c->s != NULL && i < reps; i++)
		gp_session_snapshot(c->s, &c->snap);
	fprintf(fp, "snapshot wall_ms %.3f cpu_ms %.3f\n", ms_since(&t0) /
	    reps, (cpu_ms() - c0) / reps);
	for (int i = 0; i < TOP__COUNT; i++) {
		struct ui_view *v = t->top[i];
		struct ui_list *l = v->cls->list != NULL ? v->cls->list(v) :
		    NULL;
		const char *name = v->cls->name;
		double worst = 0;

		show_top(t, i);
		ui_view_refresh(v, c, true);
		fprintf(fp, "view %s rows %zu update_cpu_ms %.3f\n", name,
		    l != NULL ? l->nrows : 0, v->update_ms);
		/* what each refresh costs: the same program, new counts */
		if (c->s != NULL)
			gp_session_snapshot(c->s, &c->snap);
		ui_view_refresh(v, c, true);
		fprintf(fp, "view %s refresh update_cpu_ms %.3f\n", name,
		    v->update_ms);
		draw(t);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		c0 = cpu_ms();
		for (int r = 0; r < reps; r++) {
			struct ui_view *sv = shown(t);

			erase();
			ui_header_draw(c, 0, COLS, "bench");
			sv->cls->draw(sv, c, VIEW_TOP, LINES - VIEW_TOP - 1,
			    COLS);
		}
		fprintf(fp, "view %s draw wall_ms %.3f cpu_ms %.3f\n", name,
		    ms_since(&t0) / reps, (cpu_ms() - c0) / reps);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		c0 = cpu_ms();
		for (int r = 0; r < reps; r++) {
			draw(t);
			if (l != NULL)
				ui_list_action(l, r % 2 ? UI_A_UP : UI_A_PGDN);
		}
		fprintf(fp, "view %s draw+output wall_ms %.3f cpu_ms %.3f\n",
		    name, ms_since(&t0) / reps, (cpu_ms() - c0) / reps);
		if (l == NULL)
			continue;
		for (int k = 0; k < l->set->n; k++) {
			const struct ui_column *col =
			    &ui_columns[l->set->cols[k]];

			if (col->flags & UI_COLF_NOSORT)
				continue;
			for (int inv = 0; inv < 2; inv++) {
				ui_list_sort_by(l, k, inv);
				if (l->sort_ms > worst)
					worst = l->sort_ms;
				fprintf(fp, "view %s sort \"%s\"%s cpu_ms "
				    "%.3f\n", name, col->title,
				    inv ? " inverted" : "", l->sort_ms);
			}
			if (col->str != NULL) {
				/* a refresh brings new rows: the texts'
				 * ranks are found again by identity */
				ui_list_sort_by(l, ui_colset_find(l->set,
				    l->set->sort), false);
				ui_view_refresh(v, c, true);
				ui_list_sort_by(l, k, false);
				if (l->sort_ms > worst)
					worst = l->sort_ms;
				fprintf(fp, "view %s sort \"%s\" after a "
				    "refresh cpu_ms %.3f\n", name, col->title,
				    l->sort_ms);
			}
		}
		ui_list_sort_by(l, ui_colset_find(l->set, l->set->sort), false);
		fprintf(fp, "view %s sort worst cpu_ms %.3f\n", name, worst);
		if (i == TOP_APPLY) {
			ui_list_set_filter(l, "add");
			fprintf(fp, "view %s filter cpu_ms %.3f\n", name,
			    l->sort_ms);
			ui_list_set_filter(l, "");
		}
	}
	show_top(t, TOP_APPLY);
	fflush(fp);
}

static void
bench_step(struct tui *t, struct bench *b)
{
	struct ui_ctx *c = &t->c;
	uint64_t now = ui_crt_now_ms(), calls = 0;

	if (b->fp == NULL || b->phase == 2)
		return;
	if (b->phase == 0) {
		if (c->snap == NULL)
			return;
		for (int f = 0; f < c->snap->n_fn; f++)
			calls += c->snap->fn[f].call.n;
		if (calls == 0)
			return;
		bench_measure(t, b->fp);
		b->phase = 1;
		b->t0_ms = ui_crt_now_ms();
		b->cpu0 = thread_cpu_ms();
		if (c->s != NULL)
			gp_session_status(c->s, &c->st);
		b->rounds0 = c->st.rounds;
		return;
	}
	if (now - b->t0_ms >= b->idle_ms) {
		double wall = (double)(now - b->t0_ms);

		if (c->s != NULL)
			gp_session_status(c->s, &c->st);
		fprintf(b->fp, "idle_s %.1f\n", wall / 1e3);
		fprintf(b->fp, "idle_ui_cpu_pct %.2f\n", 100.0 *
		    (thread_cpu_ms() - b->cpu0) / wall);
		fprintf(b->fp, "rounds_per_s %.2f\n", (double)(c->st.rounds -
		    b->rounds0) * 1e3 / wall);
		fprintf(b->fp, "data_interval_ms %llu\n",
		    (unsigned long long)t->data_interval);
		fclose(b->fp);
		b->fp = NULL;
		b->phase = 2;
		t->quit = true;
	}
}

static void
ctx_init(struct tui *t, struct gp_session *s, const struct ui_tui_opts *o)
{
	struct ui_ctx *c = &t->c;
	struct gp_flags cf;
	const struct gp_flags *f;
	struct gp_err err;

	memset(t, 0, sizeof(*t));
	c->s = s;
	c->opts = o;
	c->by_sig = o->by_signature;
	if (s != NULL)
		f = gp_session_flags(s);
	else {
		/* a capture: its flags, shown in the Rewrites view */
		gp_flags_init(&cf);
		if (o->capture->flags != NULL)
			(void)gp_flags_parse(&cf, o->capture->flags,
			    "capture flags", &err);
		f = &cf;
		c->snap = gp_profile_clone(o->capture);
		c->serial++;
		c->st.done = true;
	}
	if (o->baseline != NULL) {
		c->base = gp_profile_clone(o->baseline);
		c->base_serial++;
	}
	/* the session's flags are read before its worker starts: a
	 * recompile replaces them under the worker */
	ui_rewriters_copy_flags(&c->flags, f);
	c->running_excl = gp_xstrdup(f->optimizer_excluding ?
	    f->optimizer_excluding : "");
	c->running_incl = gp_xstrdup(f->optimizer_including ?
	    f->optimizer_including : "");
	if (s == NULL)
		gp_flags_done(&cf);
	t->delay_ms = (uint64_t)(o->delay_tenths > 0 ? o->delay_tenths : 10) *
	    100;
	t->data_interval = t->delay_ms;
}

static void
ctx_done(struct tui *t)
{
	struct ui_ctx *c = &t->c;

	pop_all(t);
	free(t->popup);
	for (int i = 0; i < TOP__COUNT; i++)
		ui_view_free(t->top[i]);
	ui_view_free(c->push);
	gp_profile_free(c->snap);
	gp_profile_free(c->base);
	gp_flags_done(&c->flags);
	free(c->running_excl);
	free(c->running_incl);
}

int
ui_tui_run(struct gp_session *s, const struct ui_tui_opts *o)
{
	struct tui t;
	struct ui_ctx *c = &t.c;
	struct gp_err err;
	struct bench b = {0};
	const char *bench_file = getenv("GPTOP_TUI_BENCH");
	int sig, rc;

	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	ctx_init(&t, s, o);
	if (bench_file != NULL && bench_file[0] != '\0') {
		const char *idle = getenv("GPTOP_TUI_BENCH_IDLE");

		b.fp = fopen(bench_file, "a");
		if (b.fp == NULL) {
			perror(bench_file);
			ctx_done(&t);
			return (1);
		}
		b.idle_ms = (uint64_t)((idle != NULL ? atof(idle) : 30) * 1e3);
	}
	ui_sig_catch_quit(NULL, false);
	if (ui_crt_init(!o->no_mouse) < 0) {
		fprintf(stderr, "gptop: cannot start the terminal interface "
		    "(TERM=%s); use --batch\n", getenv("TERM") ?
		    getenv("TERM") : "");
		ctx_done(&t);
		return (1);
	}
	/* the worker starts once the terminal is set up (a crash in its
	 * first call finds the exit sequences ready), and must not take the
	 * signals the loop waits for */
	ui_crt_block();
	rc = s != NULL ? gp_session_start(s, o->limit, &err) : 0;
	ui_crt_unblock();
	if (rc < 0) {
		ui_crt_done();
		fprintf(stderr, "gptop: %s\n", err.msg);
		ctx_done(&t);
		return (1);
	}
	c->fn = 0;
	for (int i = 0; i < TOP__COUNT; i++)
		t.top[i] = ui_view_new(top_views[i].cls, c, NULL);
	status_tick(&t, ui_crt_now_ms());
	data_tick(&t);
	if (c->snap != NULL && c->snap->n_fn != 1)
		c->fn = -1;	/* several functions (or none): their sum */
	t.cur = c->base != NULL ? TOP_DIFF : TOP_CLASS;
	t.dirty = true;
	while (!t.quit && ui_sig_quit() == 0) {
		uint64_t now = ui_crt_now_ms(), wake;
		wint_t k;
		int r;

		if (ui_crt_suspend_pending()) {
			ui_crt_suspend();
			t.dirty = true;
			continue;
		}

		if (now >= t.next_status) {
			status_tick(&t, now);
			t.next_status = now + (t.pending ? PENDING_TICK_MS :
			    t.delay_ms);
		}
		if (now >= t.next_data) {
			data_tick(&t);
			t.next_data = now + t.data_interval;
		}
		if (c->msg_until != 0 && now >= c->msg_until) {
			c->msg_until = 0;
			t.dirty = true;
		}
		bench_step(&t, &b);
		if (t.quit)
			break;
		if (t.dirty) {
			draw(&t);
			t.dirty = false;
		}
		wake = t.next_status < t.next_data ? t.next_status :
		    t.next_data;
		if (c->msg_until != 0 && c->msg_until < wake)
			wake = c->msg_until;
		now = ui_crt_now_ms();
		timeout(wake > now ? (int)(wake - now) : 0);
		r = get_wch(&k);
		if (r == ERR)
			continue;
		key(&t, k, r == KEY_CODE_YES);
		t.dirty = true;
	}
	sig = ui_sig_quit();
	/* the terminal first: stopping waits for the call under way, which
	 * may be long (a second quit signal, or the grace after the first,
	 * then ends the program) */
	ui_crt_done();
	if (s != NULL)
		gp_session_stop(s);
	ui_sig_settled();
	if (b.fp != NULL)
		fclose(b.fp);
	ctx_done(&t);
	return (sig != 0 ? 128 + sig : 0);
}
