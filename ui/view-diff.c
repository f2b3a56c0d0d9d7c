/*
 * view-diff.c: the Diff view: the baseline profile A (the one live before
 * the last recompile, or the first capture of `gptop A B`) against the
 * current one B, per class, op or apply (d cycles the level), as
 * gp_diff_compute() pairs them: applies by structure, so a rewrite shows
 * as the applies it added and removed; classes and ops by name.  Times
 * are per call of the function (opts.per_call), so runs of different
 * lengths compare; the mark column is the noise verdict (gp_diff_mark).
 *
 * After `r` the baseline program runs in turn with the current one
 * (gp_session_recompile), under the same load: A is refreshed with B and
 * the diff judges the two as they are (opts.same_load); captures ran at
 * different times, and the diff divides B by their common factor.
 *
 * The diff follows the function shown (F8): with one selected, every
 * level compares that function of B with A's function of the same name
 * (none: all of B's rows are added); with all functions, every function.
 * It is computed again when the snapshot, the baseline or the function
 * changed (at most once per refresh interval); the level and the sort
 * only pick and order its rows.  The view keeps its own copies of A and
 * B (the diff's rows point into them) and diffs views of them narrowed to
 * the function: shallow copies whose function table is that one entry.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "crt.h"
#include "capture/diff.h"
#include "draw.h"
#include "base/fmt.h"
#include "view.h"

static const char *const level_names[] = {"classes", "ops", "applies"};

struct diff {
	int			 level;
	struct gp_diff		*gd;
	struct gp_profile	*a, *b;		/* the diff's, owned */
	struct gp_profile	 va, vb;	/* a, b narrowed to the fn */
	uint64_t		 gd_serial, gd_base;	/* computed from */
	int			 gd_fn;
	struct gp_diff_row	*rows;		/* the level's, filtered */
	size_t			 n;
	/* the group rows Enter expanded (their identities), and the names
	 * of the member rows shown under them */
	uint64_t		*open;
	size_t			 n_open;
	char			**names;
	size_t			 n_names, cap_names;
	struct ui_list		 list;
};

static void
diff_init(struct ui_view *v, struct ui_ctx *c, const struct ui_view_arg *a)
{
	struct diff *d = gp_xcalloc(1, sizeof(*d));

	d->level = 1;
	d->gd_fn = -2;
	ui_list_init(&d->list, &ui_colset_diff);
	v->priv = d;
}

static void
drop_diff(struct diff *d)
{
	gp_diff_free(d->gd);
	gp_profile_free(d->a);
	gp_profile_free(d->b);
	d->gd = NULL;
	d->a = d->b = NULL;
}

static void
diff_free(struct ui_view *v)
{
	struct diff *d = v->priv;

	ui_list_done(&d->list);
	free(d->rows);
	free(d->open);
	for (size_t i = 0; i < d->n_names; i++)
		free(d->names[i]);
	free(d->names);
	drop_diff(d);
	free(d);
}

static struct gp_diff_table *
level_table(struct diff *d)
{
	if (d->level == 0)
		return (&d->gd->cls);
	if (d->level == 1)
		return (&d->gd->ops);
	return (&d->gd->applies);
}

/* Order the rows by the list's sort column through gp_diff_sort, so the
 * list's own (stable) sort keeps gp_diff_row_cmp's ties. */
static void
presort(struct diff *d)
{
	const struct ui_list *l = &d->list;
	enum ui_col col = l->set->cols[l->sort];
	bool desc = !(ui_columns[col].flags & UI_COLF_ASC);
	struct gp_diff_table t = {.rows = d->rows, .n = d->n};

	if (l->invert)
		desc = !desc;
	gp_diff_sort(&t, ui_colset_diff_col(col), desc);
}

static bool
is_open(const struct diff *d, uint64_t id)
{
	for (size_t i = 0; i < d->n_open; i++)
		if (d->open[i] == id)
			return (true);
	return (false);
}

/* A row for member id of an expanded group's side (A: b false), its time
 * scaled as the group row's (per call of the function). */
static void
member_row(struct diff *d, struct gp_diff_row *m, const struct gp_diff_row *g,
    bool b, int id)
{
	const struct gp_diff_group *gr = &d->gd->groups[g->group];
	const struct gp_profile *p = b ? d->gd->b : d->gd->a;
	const struct gp_prof_apply *ap = &p->fn[b ? g->fn_b : g->fn_a].ap[id];
	double total = (double)(b ? gr->st_b.total : gr->st_a.total);
	double scale = total > 0 ? (b ? g->time_b : g->time_a) / total : 1;
	struct gp_buf s = {0};

	memset(m, 0, sizeof(*m));
	m->group = -1;
	m->fn_name = g->fn_name;
	m->fn_a = m->id_a = m->fn_b = m->id_b = -1;
	m->kind = b ? GP_DIFF_ADDED : GP_DIFF_REMOVED;
	m->verdict = GP_VERDICT_NOISE;
	m->ratio = NAN;
	gp_buf_printf(&s, "  %s ", b ? "B:" : "A:");
	gp_buf_puts(&s, ap->name);
	if (ap->n_src > 0) {
		gp_buf_puts(&s, "  <- ");
		gp_prof_src_list(p, ap, 8, &s);
	}
	gp_grow(&d->names, &d->cap_names, d->n_names + 1, sizeof(*d->names));
	d->names[d->n_names] = gp_xstrdup(gp_buf_str(&s));
	m->name = d->names[d->n_names++];
	gp_buf_free(&s);
	if (b) {
		m->fn_b = g->fn_b;
		m->id_b = id;
		m->n_apply_b = 1;
		m->calls_b = ap->st.n;
		m->time_b = (double)ap->st.total * scale;
		m->delta = m->time_b;
	} else {
		m->fn_a = g->fn_a;
		m->id_a = id;
		m->n_apply_a = 1;
		m->calls_a = ap->st.n;
		m->time_a = (double)ap->st.total * scale;
		m->delta = -m->time_a;
	}
}

/* The level's rows to the list (the diff is of the function shown), the
 * members of each expanded group row under it. */
static void
pick_rows(struct diff *d, struct ui_ctx *c)
{
	const struct gp_diff_table *t;
	size_t k = 0, extra = 0;

	free(d->rows);
	d->rows = NULL;
	d->n = 0;
	for (size_t i = 0; i < d->n_names; i++)
		free(d->names[i]);
	d->n_names = 0;
	if (d->gd != NULL) {
		t = level_table(d);
		d->rows = gp_xcalloc(t->n + 1, sizeof(*d->rows));
		for (size_t i = 0; i < t->n; i++) {
			d->rows[k++] = t->rows[i];
		}
		d->n = k;
		presort(d);
		for (size_t i = 0; i < d->n; i++)
			if (d->rows[i].match == GP_MATCH_SOURCES &&
			    is_open(d, ui_colset_diff.ident(&d->rows[i])))
				extra += (size_t)(d->rows[i].n_apply_a +
				    d->rows[i].n_apply_b);
	}
	if (extra > 0) {
		struct gp_diff_row *all = gp_xcalloc(d->n + extra + 1,
		    sizeof(*all));
		size_t *par = gp_xmalloc(sizeof(*par) * (d->n + extra + 1));
		size_t n = 0;

		for (size_t i = 0; i < d->n; i++) {
			const struct gp_diff_group *gr;
			size_t g = n;

			par[n] = SIZE_MAX;
			all[n++] = d->rows[i];
			if (d->rows[i].match != GP_MATCH_SOURCES ||
			    !is_open(d, ui_colset_diff.ident(&d->rows[i])))
				continue;
			gr = &d->gd->groups[d->rows[i].group];
			for (int j = 0; j < gr->n_a + gr->n_b; j++) {
				par[n] = g;
				member_row(d, &all[n++], &all[g], j >= gr->n_a,
				    j < gr->n_a ? gr->id_a[j] :
				    gr->id_b[j - gr->n_a]);
			}
		}
		/* the parents, once the array is in place */
		for (size_t i = 0; i < n; i++)
			if (par[i] != SIZE_MAX)
				all[i].parent = &all[par[i]];
		free(par);
		free(d->rows);
		d->rows = all;
		d->n = n;
	}
	ui_list_texts_changed(&d->list);	/* marks come and go */
	ui_list_set_rows(&d->list, d->rows, d->n, sizeof(*d->rows));
}

/* va, vb: a and b as they are (fn < 0), or only b's function fn and a's
 * function of the same name (none: a has no function). */
static void
narrow(struct diff *d, int fn)
{
	d->va = *d->a;
	d->vb = *d->b;
	if (fn < 0 || fn >= d->b->n_fn)
		return;
	d->vb.fn = &d->b->fn[fn];
	d->vb.n_fn = 1;
	d->va.n_fn = 0;
	for (int f = 0; f < d->a->n_fn; f++)
		if (strcmp(d->a->fn[f].name, d->b->fn[fn].name) == 0) {
			d->va.fn = &d->a->fn[f];
			d->va.n_fn = 1;
			break;
		}
}

static void
diff_update(struct ui_view *v, struct ui_ctx *c)
{
	struct diff *d = v->priv;
	struct gp_diff_opts o;

	if (c->base == NULL || c->snap == NULL) {
		drop_diff(d);
		pick_rows(d, c);
		return;
	}
	if (d->gd == NULL || d->gd_serial != c->serial ||
	    d->gd_base != c->base_serial || d->gd_fn != c->fn) {
		/* rows point into the old diff: off the list first */
		ui_list_set_rows(&d->list, NULL, 0, sizeof(*d->rows));
		if (d->a == NULL || d->gd_base != c->base_serial) {
			gp_profile_free(d->a);
			d->a = gp_profile_clone(c->base);
		}
		gp_diff_free(d->gd);
		gp_profile_free(d->b);
		d->b = gp_profile_clone(c->snap);
		gp_diff_opts_init(&o);
		o.per_call = true;
		/* A and B in turn: the same load, no common factor */
		o.same_load = c->base_live;
		narrow(d, c->fn);
		d->gd = gp_diff_compute(&d->va, &d->vb, &o);
		d->gd_serial = c->serial;
		d->gd_base = c->base_serial;
		d->gd_fn = c->fn;
	}
	pick_rows(d, c);
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
		"To compare two captures: gptop A.json B.json (A is the",
		"baseline); gptop A.json GRAPH runs GRAPH against A.",
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
	const struct gp_diff_table *t;
	char ta[32], tb[32], what[160], how[96];

	if (d->gd == NULL) {
		draw_no_baseline(y, h, w);
		return;
	}
	t = level_table(d);
	ui_draw_printf(y, 0, w, ui_crt_attr(UI_ROLE_NORMAL),
	    "A baseline: %s  ->  B current: %s",
	    d->a->flags && d->a->flags[0] ? d->a->flags : "(default flags)",
	    d->b->flags && d->b->flags[0] ? d->b->flags : "(default flags)");
	gp_fmt_time(ta, sizeof(ta), t->total_a);
	gp_fmt_time(tb, sizeof(tb), t->total_b);
	if (d->gd->opts.same_load)
		snprintf(how, sizeof(how), "A and B run in turn, %llu rounds "
		    "each", (unsigned long long)d->gd->rounds_a);
	else if (d->gd->n_factor < 3 && d->gd->n_factor_blas == 0)
		snprintf(how, sizeof(how), "run apart: no common factor");
	else if (d->gd->n_factor_blas > 0)
		snprintf(how, sizeof(how), "run apart: B / %.2f (common "
		    "factor), BLAS rows / %.2f", d->gd->factor,
		    d->gd->factor_blas);
	else
		snprintf(how, sizeof(how), "run apart: B / %.2f (common "
		    "factor)", d->gd->factor);
	ui_draw_printf(y + 1, 0, w, ui_crt_attr(UI_ROLE_VALUE),
	    "per call: A %s -> B %s | %zu paired, %zu added, %zu removed, "
	    "%zu beyond noise | %s", ta, tb, t->n_paired, t->n_added,
	    t->n_removed, t->n_significant, how);
	snprintf(what, sizeof(what), "Diff of %s of %s (d: classes/ops/"
	    "applies), %s |", level_names[d->level], ui_ctx_fn_name(c),
	    d->level != 2 ? "paired by name" : d->gd->peer != NULL ?
	    "ONNX Runtime's nodes paired by the source nodes they cover "
	    "(Enter: a group's members)" : "paired by structure, grouped by "
	    "source nodes (Enter: a group's members)");
	ui_list_draw(&d->list, y + 3, h - 3, w);
	ui_list_draw_status(&d->list, y + 2, w, what);
}

static bool
diff_key(struct ui_view *v, struct ui_ctx *c, enum ui_action a)
{
	struct diff *d = v->priv;

	switch (a) {
	case UI_A_DIFF_LEVEL:
		d->level = (d->level + 1) % 3;
		pick_rows(d, c);	/* the diff has every level */
		return (true);
	case UI_A_SORT_NEXT:
	case UI_A_SORT_PREV:
	case UI_A_SORT_INVERT:
		ui_list_action(&d->list, a);
		presort(d);
		ui_list_set_rows(&d->list, d->rows, d->n, sizeof(*d->rows));
		return (true);
	case UI_A_ENTER: {
		/* a group row (paired by source nodes): show its members
		 * under it, or hide them */
		const struct gp_diff_row *r = ui_list_selected(&d->list);
		uint64_t id;

		if (r != NULL && r->parent != NULL)
			r = r->parent;
		if (r == NULL || r->match != GP_MATCH_SOURCES)
			return (true);
		id = ui_colset_diff.ident(r);
		if (is_open(d, id)) {
			for (size_t i = 0; i < d->n_open; i++)
				if (d->open[i] == id)
					d->open[i] = d->open[--d->n_open];
		} else {
			d->open = gp_xrealloc(d->open, sizeof(*d->open) *
			    (d->n_open + 1));
			d->open[d->n_open++] = id;
		}
		pick_rows(d, c);
		return (true);
	}
	default:
		return (false);
	}
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
