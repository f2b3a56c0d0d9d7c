/*
 * view-diff.c: the Diff view: the baseline profile (the one live before
 * the last recompile) against the current one, per class, op or apply
 * (d cycles the level).  Rows are matched by name (the n-th apply of a
 * name to the n-th of the same name); rows on one side only are marked
 * added or removed.  Times are per call of the function, so runs of
 * different lengths compare; the table sorts by the size of the change.
 * Structural matching and noise marks come with the runtime's diff API.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "crt.h"
#include "draw.h"
#include "report.h"
#include "view.h"

static const char *const level_names[] = {"classes", "ops", "applies"};

struct diff {
	int			 level;
	struct ui_diff_row	*rows;
	size_t			 n;
	struct ui_list		 list;
	struct gp_prof_table	 ta, tb;
	uint64_t		 ta_key;	/* base serial of ta */
	int			 ta_fn, ta_grp;
	uint64_t		 calls_a, calls_b;
};

static void
diff_init(struct ui_view *v, struct ui_ctx *c, const struct ui_view_arg *a)
{
	struct diff *d = gp_xcalloc(1, sizeof(*d));

	d->level = 1;
	d->ta_grp = -1;
	ui_list_init(&d->list, &ui_colset_diff);
	v->priv = d;
}

static void
diff_free(struct ui_view *v)
{
	struct diff *d = v->priv;

	ui_list_done(&d->list);
	free(d->rows);
	gp_prof_table_free(&d->ta);
	gp_prof_table_free(&d->tb);
	free(d);
}

static double
per_call(double ns, uint64_t calls)
{
	return (calls > 0 ? ns / (double)calls : 0);
}

static void
match(struct diff *d)
{
	size_t na = d->ta.n, nb = d->tb.n, hcap = 16, k = 0;
	int32_t *head, *next;
	uint8_t *used;
	struct ui_diff_row *rows = gp_xcalloc(na + nb + 1, sizeof(*rows));

	while (hcap < na * 2 + 2)
		hcap *= 2;
	head = gp_xmalloc(sizeof(*head) * hcap);
	memset(head, -1, sizeof(*head) * hcap);
	next = gp_xmalloc(sizeof(*next) * (na + 1));
	used = gp_xcalloc(na + 1, 1);
	/* chains of equal names, in table order */
	for (size_t i = na; i-- > 0;) {
		const char *s = d->ta.rows[i].name;
		size_t h = gp_hash_bytes(GP_HASH_INIT, s, strlen(s)) &
		    (hcap - 1);

		while (head[h] >= 0 && strcmp(d->ta.rows[head[h]].name,
		    s) != 0)
			h = (h + 1) & (hcap - 1);
		next[i] = head[h];
		head[h] = (int32_t)i;
	}
	for (size_t j = 0; j < nb; j++) {
		const struct gp_prof_row *b = &d->tb.rows[j];
		size_t h = gp_hash_bytes(GP_HASH_INIT, b->name,
		    strlen(b->name)) & (hcap - 1);
		struct ui_diff_row *r = &rows[k++];
		int32_t i;

		while (head[h] >= 0 && strcmp(d->ta.rows[head[h]].name,
		    b->name) != 0)
			h = (h + 1) & (hcap - 1);
		for (i = head[h]; i >= 0 && used[i]; i = next[i])
			;
		r->name = b->name;
		r->b_ns = per_call(b->time_ns, d->calls_b);
		r->calls_b = b->calls;
		if (i >= 0) {
			used[i] = 1;
			r->status = UI_DIFF_BOTH;
			r->a_ns = per_call(d->ta.rows[i].time_ns, d->calls_a);
			r->calls_a = d->ta.rows[i].calls;
		} else
			r->status = UI_DIFF_ADDED;
	}
	for (size_t i = 0; i < na; i++) {
		struct ui_diff_row *r;

		if (used[i])
			continue;
		r = &rows[k++];
		r->name = d->ta.rows[i].name;
		r->status = UI_DIFF_REMOVED;
		r->a_ns = per_call(d->ta.rows[i].time_ns, d->calls_a);
		r->calls_a = d->ta.rows[i].calls;
	}
	for (size_t i = 0; i < k; i++) {
		rows[i].delta_ns = rows[i].b_ns - rows[i].a_ns;
		rows[i].ratio = rows[i].a_ns > 0 && rows[i].status ==
		    UI_DIFF_BOTH ? rows[i].b_ns / rows[i].a_ns : 0;
	}
	ui_list_texts_changed(&d->list);	/* statuses come and go */
	ui_list_set_rows(&d->list, rows, k, sizeof(*rows));
	free(d->rows);
	d->rows = rows;
	d->n = k;
	free(head);
	free(next);
	free(used);
}

static void
diff_update(struct ui_view *v, struct ui_ctx *c)
{
	struct diff *d = v->priv;
	enum gp_prof_group grps[] = {GP_GROUP_CLASS, c->by_sig ?
	    GP_GROUP_OP_SIG : GP_GROUP_OP, GP_GROUP_APPLY};
	enum gp_prof_group grp = grps[d->level];
	int fa;

	if (c->base == NULL) {
		ui_list_set_rows(&d->list, NULL, 0, sizeof(*d->rows));
		free(d->rows);
		d->rows = NULL;
		d->n = 0;
		return;
	}
	fa = c->fn >= 0 && c->fn < c->base->n_fn ? c->fn : -1;
	if (d->ta_key != c->base_serial || d->ta_fn != fa ||
	    d->ta_grp != (int)grp) {
		gp_prof_table_free(&d->ta);
		gp_prof_rollup(c->base, fa, grp, &d->ta);
		d->ta_key = c->base_serial;
		d->ta_fn = fa;
		d->ta_grp = (int)grp;
	}
	gp_prof_table_free(&d->tb);
	gp_prof_rollup(c->snap, c->fn, grp, &d->tb);
	d->calls_a = ui_ctx_calls(c->base, fa);
	d->calls_b = ui_ctx_calls(c->snap, c->fn);
	match(d);
}

static void
draw_no_baseline(int y, int h, int w)
{
	static const char *const lines[] = {
		"No baseline yet.",
		"",
		"To make one: switch a rewrite -- f fusion, i inplace, g",
		"gemm, c constant folding, m merge, or Space on a row of the",
		"Rewrites view (5) -- then press r.  The program is",
		"recompiled and run again; the profile that was live becomes",
		"the baseline, and this view compares baseline -> new for",
		"every class, op and apply.",
		"",
		"(Comparing two saved captures comes with capture files.)",
	};

	for (int i = 0; i < h; i++) {
		const char *s = i < (int)(sizeof(lines) / sizeof(lines[0])) ?
		    lines[i] : "";

		ui_draw_ltext(y + i, 0, w, s, i == 0 ?
		    ui_crt_attr(UI_ROLE_SECTION) : ui_crt_attr(UI_ROLE_NORMAL));
	}
}

static void
diff_draw(struct ui_view *v, struct ui_ctx *c, int y, int h, int w)
{
	struct diff *d = v->priv;
	char ta[32], tb[32], what[128];
	double pa, pb;

	if (c->base == NULL) {
		draw_no_baseline(y, h, w);
		return;
	}
	pa = per_call(d->ta.total_ns, d->calls_a);
	pb = per_call(d->tb.total_ns, d->calls_b);
	ui_draw_printf(y, 0, w, ui_crt_attr(UI_ROLE_NORMAL),
	    "A baseline: %s, %llu calls  ->  B current: %s, %llu calls",
	    c->base->flags && c->base->flags[0] ? c->base->flags :
	    "(default flags)", (unsigned long long)d->calls_a,
	    c->snap->flags && c->snap->flags[0] ? c->snap->flags :
	    "(default flags)", (unsigned long long)d->calls_b);
	gp_fmt_time(ta, sizeof(ta), pa);
	gp_fmt_time(tb, sizeof(tb), pb);
	if (pa > 0 && pb > 0)
		ui_draw_printf(y + 1, 0, w, ui_crt_attr(UI_ROLE_VALUE),
		    "thunk time per call of %s: A %s -> B %s (x%.2f)",
		    ui_ctx_fn_name(c), ta, tb, pb / pa);
	else
		ui_draw_printf(y + 1, 0, w, ui_crt_attr(UI_ROLE_VALUE),
		    "thunk time per call of %s: A %s -> B %s",
		    ui_ctx_fn_name(c), ta, tb);
	snprintf(what, sizeof(what), "Diff of %s (d: classes/ops/applies), "
	    "per call, matched by name |", level_names[d->level]);
	ui_list_draw(&d->list, y + 3, h - 3, w);
	ui_list_draw_status(&d->list, y + 2, w, what);
}

static bool
diff_key(struct ui_view *v, struct ui_ctx *c, enum ui_action a)
{
	struct diff *d = v->priv;

	if (a != UI_A_DIFF_LEVEL)
		return (a == UI_A_ENTER);
	d->level = (d->level + 1) % 3;
	ui_view_refresh(v, c, true);
	return (true);
}

static struct ui_list *
diff_list(struct ui_view *v)
{
	return (&((struct diff *)v->priv)->list);
}

const struct ui_view_class ui_view_diff = {
	.name = "Diff",
	.keys = UI_K_TABLE | UI_K_DIFF,
	.init = diff_init,
	.free = diff_free,
	.update = diff_update,
	.draw = diff_draw,
	.key = diff_key,
	.list = diff_list,
};
