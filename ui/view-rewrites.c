/*
 * view-rewrites.c: the Rewrites view: every rewriter of the engine
 * (gp_rewrite_all) with its phase, tags and the key that switches it, on
 * or off in the edited flags (gp_rewrite_select) and in the running
 * program, and what it did in the last compile (the profile's rewriter
 * table: time, changes, places tried, nodes before and after); above the
 * table, the running program's flags and rewrite set, the edited flags r
 * will compile with, and the last recompile error.  Space switches the
 * selected rewriter.  Names and tags of the flags that match no rewriter
 * are rows too, so they can be switched back.  Without an engine (no
 * rewriter registered) the rows are the well-known names of rewriters.h,
 * switched through optimizer_excluding.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "crt.h"
#include "draw.h"
#include "rewrite/rewrite.h"
#include "rewriters.h"
#include "view.h"

struct rewrites {
	struct ui_rw_row	*rows;
	size_t			 n;
	char			**extra;	/* names not in the table */
	size_t			 n_extra;
	bool			 engine;	/* rows are the engine's */
	char			 edit_err[GP_ERR_MAX];	/* flags refused */
	struct ui_list		 list;
};

static void
rw_init(struct ui_view *v, struct ui_ctx *c, const struct ui_view_arg *a)
{
	struct rewrites *w = gp_xcalloc(1, sizeof(*w));

	ui_list_init(&w->list, &ui_colset_rewrites);
	v->priv = w;
}

static void
free_extra(char **extra, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(extra[i]);
	free(extra);
}

static void
rw_free(struct ui_view *v)
{
	struct rewrites *w = v->priv;

	ui_list_done(&w->list);
	free(w->rows);
	free_extra(w->extra, w->n_extra);
	free(w);
}

/* Whether name is a rewriter or a tag of one, or already an extra. */
static bool
known(const char *name, char **extra, size_t n_extra)
{
	size_t n;
	const struct gp_rewriter *const *rs = gp_rewrite_all(&n);

	if (n == 0) {
		for (size_t i = 0; i < ui_rewriters_count; i++)
			if (strcmp(ui_rewriters[i].name, name) == 0)
				return (true);
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(rs[i]->name, name) == 0 ||
		    ui_rewriters_has_tag(rs[i]->tags, name))
			return (true);
	for (size_t i = 0; i < n_extra; i++)
		if (strcmp(extra[i], name) == 0)
			return (true);
	return (false);
}

/* Names in list that are no rewriter or tag. */
static void
add_extra(char ***extra, size_t *n, size_t *cap, const char *list)
{
	const char *p = list != NULL ? list : "";

	while (*p != '\0') {
		const char *e = strchr(p, ':');
		size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
		char *name = gp_xmalloc(len + 1);

		memcpy(name, p, len);
		name[len] = '\0';
		if (len > 0 && !known(name, *extra, *n)) {
			gp_grow(extra, cap, *n + 1, sizeof(**extra));
			(*extra)[(*n)++] = name;
		} else
			free(name);
		if (e == NULL)
			break;
		p = e + 1;
	}
}

/* The key that switches a rewriter: by its name, else by one of its
 * tags ("i" switches every rewriter tagged inplace). */
static const char *
key_of(const char *name, const char *tags)
{
	for (size_t i = 0; i < ui_rewriters_count; i++)
		if (strcmp(ui_rewriters[i].name, name) == 0)
			return (ui_keys_label(ui_rewriters[i].action));
	for (size_t i = 0; i < ui_rewriters_count; i++)
		if (ui_rewriters_has_tag(tags, ui_rewriters[i].name))
			return (ui_keys_label(ui_rewriters[i].action));
	return ("");
}

static void
engine_rows(struct rewrites *w, struct ui_ctx *c, struct ui_rw_row *rows,
    const struct gp_rewriter *const *rs, size_t n)
{
	const struct gp_profile *p = c->snap;
	bool *sel = gp_xcalloc(n + 1, sizeof(*sel));
	struct gp_err err;
	bool ok;

	ok = gp_rewrite_select(&c->flags, sel, &err) == 0;
	w->edit_err[0] = '\0';
	if (!ok)
		snprintf(w->edit_err, sizeof(w->edit_err), "%s", err.msg);
	for (size_t i = 0; i < n; i++) {
		struct ui_rw_row *r = &rows[i];

		r->name = rs[i]->name;
		r->tags = rs[i]->tags != NULL ? rs[i]->tags : "";
		r->phase = gp_rewrite_phase_name(rs[i]->phase);
		r->help = rs[i]->doc != NULL ? rs[i]->doc : "";
		r->key = key_of(r->name, r->tags);
		r->running_on = !ui_rewriters_listed(c->running_excl, r->name);
		for (int k = 0; k < p->n_rw; k++) {
			const struct gp_rewrite_stat *pr = &p->rw[k];

			if (strcmp(pr->name, r->name) != 0)
				continue;
			r->running_on = pr->enabled;
			r->has_stats = true;
			r->time_ns = pr->time_ns;
			r->applied = pr->applied;
			r->tried = pr->tried;
			r->nodes_before = pr->nodes_before;
			r->nodes_after = pr->nodes_after;
		}
		r->on = ok ? sel[i] : r->running_on;
	}
	free(sel);
}

static void
table_rows(struct ui_ctx *c, struct ui_rw_row *rows)
{
	for (size_t i = 0; i < ui_rewriters_count; i++) {
		struct ui_rw_row *r = &rows[i];

		r->name = ui_rewriters[i].name;
		r->key = ui_keys_label(ui_rewriters[i].action);
		r->help = ui_rewriters[i].help;
		r->phase = r->tags = "";
		r->on = !ui_rewriters_listed(c->flags.optimizer_excluding,
		    r->name);
		r->running_on = !ui_rewriters_listed(c->running_excl, r->name);
	}
}

static void
rw_update(struct ui_view *v, struct ui_ctx *c)
{
	struct rewrites *w = v->priv;
	char **extra = NULL;
	size_t n_extra = 0, cap = 0, n_rs, n_known;
	const struct gp_rewriter *const *rs = gp_rewrite_all(&n_rs);
	struct ui_rw_row *rows;

	add_extra(&extra, &n_extra, &cap, c->flags.optimizer_excluding);
	add_extra(&extra, &n_extra, &cap, c->flags.optimizer_including);
	add_extra(&extra, &n_extra, &cap, c->running_excl);
	w->engine = n_rs > 0;
	n_known = w->engine ? n_rs : ui_rewriters_count;
	rows = gp_xcalloc(n_known + n_extra + 1, sizeof(*rows));
	if (w->engine)
		engine_rows(w, c, rows, rs, n_rs);
	else
		table_rows(c, rows);
	for (size_t i = 0; i < n_extra; i++) {
		struct ui_rw_row *r = &rows[n_known + i];

		r->name = extra[i];
		r->key = r->phase = r->tags = "";
		r->help = "(in the flags; no rewriter or tag of that name)";
		r->on = !ui_rewriters_listed(c->flags.optimizer_excluding,
		    r->name);
		r->running_on = !ui_rewriters_listed(c->running_excl, r->name);
	}
	ui_list_texts_changed(&w->list);
	ui_list_set_rows(&w->list, rows, n_known + n_extra, sizeof(*rows));
	free(w->rows);
	free_extra(w->extra, w->n_extra);
	w->rows = rows;
	w->n = n_known + n_extra;
	w->extra = extra;
	w->n_extra = n_extra;
}

static bool
flags_edited(const struct ui_ctx *c)
{
	const char *ex = c->flags.optimizer_excluding ?
	    c->flags.optimizer_excluding : "";
	const char *in = c->flags.optimizer_including ?
	    c->flags.optimizer_including : "";

	return (strcmp(ex, c->running_excl) != 0 ||
	    strcmp(in, c->running_incl) != 0);
}

static void
rw_draw(struct ui_view *v, struct ui_ctx *c, int y, int h, int w)
{
	struct rewrites *rw = v->priv;
	const struct gp_profile *p = c->snap;
	int x, line = y;

	x = ui_draw_text(line, 0, w, "Running program flags: ",
	    ui_crt_attr(UI_ROLE_LABEL));
	ui_draw_ltext(line++, x, w - x, p->flags != NULL && p->flags[0] ?
	    p->flags : "(defaults)", ui_crt_attr(UI_ROLE_VALUE));
	x = ui_draw_text(line, 0, w, "Rewrites applied: ",
	    ui_crt_attr(UI_ROLE_LABEL));
	ui_draw_ltext(line++, x, w - x, p->rewrites != NULL &&
	    p->rewrites[0] ? p->rewrites : "(none reported)",
	    ui_crt_attr(UI_ROLE_VALUE));
	if (rw->edit_err[0] != '\0')
		ui_draw_printf(line++, 0, w, ui_crt_attr(UI_ROLE_ERROR),
		    "Edited flags refused: %s", rw->edit_err);
	else if (flags_edited(c))
		ui_draw_printf(line++, 0, w, ui_crt_attr(UI_ROLE_MSG),
		    "Edited: optimizer_excluding=%s%s%s -- %s recompiles and "
		    "re-runs; the current profile becomes the Diff baseline",
		    c->flags.optimizer_excluding &&
		    c->flags.optimizer_excluding[0] ?
		    c->flags.optimizer_excluding : "\"\"",
		    c->flags.optimizer_including &&
		    c->flags.optimizer_including[0] ?
		    " optimizer_including=" : "",
		    c->flags.optimizer_including ?
		    c->flags.optimizer_including : "",
		    ui_keys_label(UI_A_RECOMPILE));
	else
		ui_draw_ltext(line++, 0, w, "No pending change.  Space, f, i, "
		    "g, c, m: switch; r: recompile", ui_crt_attr(UI_ROLE_DIM));
	if (c->st.error[0] != '\0')
		ui_draw_printf(line, 0, w, ui_crt_attr(UI_ROLE_ERROR),
		    "Last recompile failed: %s", c->st.error);
	else
		ui_draw_blank(line, 0, w, A_NORMAL);
	line++;
	ui_list_draw(&rw->list, line + 1, h - (line + 1 - y), w);
	ui_list_draw_status(&rw->list, line, w, "Rewriters |");
}

static bool
rw_key(struct ui_view *v, struct ui_ctx *c, enum ui_action a)
{
	struct rewrites *w = v->priv;
	const struct ui_rw_row *r;
	struct gp_err err;
	bool now_on;
	char name[128];

	if (a != UI_A_RW_TOGGLE && a != UI_A_ENTER)
		return (false);
	if (c->s == NULL) {
		ui_ctx_msg(c, UI_ROLE_MSG, "a capture is not running");
		return (true);
	}
	r = ui_list_selected(&w->list);
	if (r == NULL)
		return (true);
	snprintf(name, sizeof(name), "%s", r->name);
	if (w->engine && r->phase[0] != '\0') {	/* one of the engine's */
		err.msg[0] = '\0';
		now_on = ui_rewriters_set(&c->flags, name, !r->on, &err);
		if (now_on != !r->on && err.msg[0] != '\0') {
			c->cfg_serial++;
			ui_ctx_msg(c, UI_ROLE_ERROR, "%s: %s", name, err.msg);
			return (true);
		}
	} else
		now_on = ui_rewriters_toggle(&c->flags, name);
	c->cfg_serial++;
	ui_ctx_msg(c, UI_ROLE_MSG, "%s: %s in the edited flags (press %s to "
	    "recompile and re-run)", name, now_on ? "on" : "off",
	    ui_keys_label(UI_A_RECOMPILE));
	return (true);
}

static struct ui_list *
rw_list(struct ui_view *v)
{
	return (&((struct rewrites *)v->priv)->list);
}

const struct ui_view_class ui_view_rewrites = {
	.name = "Rewrites",
	.keys = UI_K_TABLE | UI_K_REWRITES,
	.init = rw_init,
	.free = rw_free,
	.update = rw_update,
	.draw = rw_draw,
	.key = rw_key,
	.list = rw_list,
};
