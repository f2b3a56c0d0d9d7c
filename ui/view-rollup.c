/*
 * view-rollup.c: the Class, Ops and Apply views: the rows of
 * gp_prof_rollup() for the function shown, in a table with every column of
 * the batch report and a bar of each row's share.  Enter drills down: on a
 * Class row it opens the Ops view scoped to that class, on an Op row the
 * Apply view scoped to that op, on an Apply row its details.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "crt.h"
#include "draw.h"
#include "base/fmt.h"
#include "view.h"

struct rollup {
	enum gp_prof_group	 grp;		/* of the view */
	enum gp_prof_group	 built_grp;	/* of the rows */
	struct gp_prof_table	 t;
	struct ui_list		 list;
	enum ui_scope		 scope;
	char			*scope_name;
	const struct gp_profile	*p;		/* the rows' snapshot */
	/* an Ops view scoped to a class: the class's ops, from p */
	char			**cls_ops;
	size_t			 n_cls_ops;
	uint64_t		 cls_ops_gen;
	const struct gp_profile	*cls_ops_p;
	uint64_t		 texts_gen;	/* what the names depend on */
	int			 texts_fn;
	int			 texts_grp;
	struct gp_buf		 sig;		/* scratch */
};

static bool
in_scope(const void *row, void *arg)
{
	const struct gp_prof_row *r = row;
	struct rollup *ru = arg;
	const struct gp_prof_apply *a;

	if (ru->grp != GP_GROUP_APPLY) {
		/* an op row ("op" or "op <signature>") of the class */
		for (size_t i = 0; i < ru->n_cls_ops; i++) {
			size_t n = strlen(ru->cls_ops[i]);

			if (strncmp(r->name, ru->cls_ops[i], n) == 0 &&
			    (r->name[n] == '\0' || strncmp(r->name + n, " <",
			    2) == 0))
				return (true);
		}
		return (false);
	}
	if (ru->p == NULL || r->fn < 0 || r->fn >= ru->p->n_fn ||
	    r->id < 0 || r->id >= ru->p->fn[r->fn].n_apply)
		return (false);
	a = &ru->p->fn[r->fn].ap[r->id];
	switch (ru->scope) {
	case UI_SCOPE_CLASS:
		return (strcmp(a->cls, ru->scope_name) == 0);
	case UI_SCOPE_OP:
		return (strcmp(a->op, ru->scope_name) == 0);
	case UI_SCOPE_OP_SIG:
		gp_buf_clear(&ru->sig);
		gp_buf_printf(&ru->sig, "%s <", a->op);
		gp_prof_signature(a, &ru->sig);
		gp_buf_puts(&ru->sig, ">");
		return (strcmp(gp_buf_str(&ru->sig), ru->scope_name) == 0);
	default:
		return (true);
	}
}

static void
drop_cls_ops(struct rollup *ru)
{
	for (size_t i = 0; i < ru->n_cls_ops; i++)
		free(ru->cls_ops[i]);
	free(ru->cls_ops);
	ru->cls_ops = NULL;
	ru->n_cls_ops = 0;
}

/* The ops of the scope's class in p (every function: the names only). */
static void
find_cls_ops(struct rollup *ru, const struct gp_profile *p)
{
	size_t cap = 0;

	if (ru->grp == GP_GROUP_APPLY || ru->scope != UI_SCOPE_CLASS ||
	    (ru->cls_ops_p == p && ru->cls_ops_gen == p->generation))
		return;
	drop_cls_ops(ru);
	for (int f = 0; f < p->n_fn; f++)
		for (int i = 0; i < p->fn[f].n_apply; i++) {
			const struct gp_prof_apply *a = &p->fn[f].ap[i];
			bool seen = false;

			if (strcmp(a->cls, ru->scope_name) != 0)
				continue;
			for (size_t k = 0; k < ru->n_cls_ops && !seen; k++)
				seen = strcmp(ru->cls_ops[k], a->op) == 0;
			if (seen)
				continue;
			gp_grow(&ru->cls_ops, &cap, ru->n_cls_ops + 1,
			    sizeof(*ru->cls_ops));
			ru->cls_ops[ru->n_cls_ops++] = gp_xstrdup(a->op);
		}
	ru->cls_ops_p = p;
	ru->cls_ops_gen = p->generation;
}

static void
init_group(struct ui_view *v, const struct ui_view_arg *arg,
    enum gp_prof_group grp, const struct ui_colset *set)
{
	struct rollup *ru = gp_xcalloc(1, sizeof(*ru));

	ru->grp = grp;
	ru->texts_grp = -1;
	ui_list_init(&ru->list, set);
	/* apply rows keep their names while the program runs: sorting by
	 * name then costs no more than by a number */
	ru->list.rank_names = grp == GP_GROUP_APPLY;
	if (arg != NULL && arg->scope != UI_SCOPE_NONE) {
		ru->scope = arg->scope;
		ru->scope_name = gp_xstrdup(arg->name);
		ui_list_set_scope(&ru->list, in_scope, ru);
	}
	v->priv = ru;
}

static void
init_class(struct ui_view *v, struct ui_ctx *c, const struct ui_view_arg *a)
{
	init_group(v, a, GP_GROUP_CLASS, &ui_colset_class);
}

static void
init_ops(struct ui_view *v, struct ui_ctx *c, const struct ui_view_arg *a)
{
	init_group(v, a, GP_GROUP_OP, &ui_colset_op);
}

static void
init_apply(struct ui_view *v, struct ui_ctx *c, const struct ui_view_arg *a)
{
	init_group(v, a, GP_GROUP_APPLY, &ui_colset_apply);
}

static void
rollup_free(struct ui_view *v)
{
	struct rollup *ru = v->priv;

	ui_list_done(&ru->list);
	gp_prof_table_free(&ru->t);
	gp_buf_free(&ru->sig);
	drop_cls_ops(ru);
	free(ru->scope_name);
	free(ru);
}

/*
 * A new snapshot of the same program (same generation), function and
 * grouping only brings new counts: the table is counted again in place
 * and the list sorts its rows again, keeping what depends on the texts.
 * Anything else makes a new table.
 */
static void
rollup_update(struct ui_view *v, struct ui_ctx *c)
{
	struct rollup *ru = v->priv;
	struct gp_prof_table t;
	enum gp_prof_group grp = ru->grp;

	if (grp == GP_GROUP_OP && c->by_sig)
		grp = GP_GROUP_OP_SIG;
	find_cls_ops(ru, c->snap);
	if (ru->t.rows != NULL && ru->t.fn == c->fn && ru->t.grp == grp &&
	    c->snap->generation == ru->texts_gen &&
	    gp_prof_rollup_refresh(c->snap, &ru->t) == 0) {
		ru->p = c->snap;
		ui_list_values_changed(&ru->list);
		return;
	}
	gp_prof_rollup_live(c->snap, c->fn, grp, &t);
	if (c->snap->generation != ru->texts_gen || c->fn != ru->texts_fn ||
	    (int)grp != ru->texts_grp) {
		ui_list_texts_changed(&ru->list);
		ru->texts_gen = c->snap->generation;
		ru->texts_fn = c->fn;
		ru->texts_grp = (int)grp;
	}
	ru->p = c->snap;
	ru->built_grp = grp;
	ui_list_set_base(&ru->list, t.order);
	ui_list_set_rows(&ru->list, t.rows, t.n, sizeof(*t.rows));
	gp_prof_table_free(&ru->t);
	ru->t = t;
}

static void
rollup_draw(struct ui_view *v, struct ui_ctx *c, int y, int h, int w)
{
	struct rollup *ru = v->priv;
	char what[256], tot[32];
	static const char *const kinds[] = {
		[GP_GROUP_CLASS] = "classes",
		[GP_GROUP_OP] = "ops",
		[GP_GROUP_APPLY] = "applies",
		[GP_GROUP_OP_SIG] = "ops by input signature",
	};

	gp_fmt_time(tot, sizeof(tot), ru->t.total_ns);
	if (ru->scope != UI_SCOPE_NONE)
		snprintf(what, sizeof(what), "%s of %s %s (Esc: back) | "
		    "thunk time %s |", ru->grp == GP_GROUP_APPLY ? "Applies" :
		    "Ops", ru->scope == UI_SCOPE_CLASS ? "class" : "op",
		    ru->scope_name, tot);
	else
		snprintf(what, sizeof(what), "%s of %s | thunk time %s |",
		    kinds[ru->built_grp], ui_ctx_fn_name(c), tot);
	ui_list_draw(&ru->list, y + 1, h - 1, w);
	ui_list_draw_status(&ru->list, y, w, what);
}

static bool
rollup_key(struct ui_view *v, struct ui_ctx *c, enum ui_action a)
{
	struct rollup *ru = v->priv;
	const struct gp_prof_row *r = ui_list_selected(&ru->list);
	struct ui_view_arg arg = {0};

	if (a != UI_A_ENTER)
		return (false);
	if (r == NULL)
		return (true);
	switch (ru->built_grp) {
	case GP_GROUP_CLASS:
		arg.scope = UI_SCOPE_CLASS;
		arg.name = r->name;
		ui_view_push(c, &ui_view_ops, &arg);
		break;
	case GP_GROUP_OP:
		arg.scope = UI_SCOPE_OP;
		arg.name = r->name;
		ui_view_push(c, &ui_view_apply, &arg);
		break;
	case GP_GROUP_OP_SIG:
		arg.scope = UI_SCOPE_OP_SIG;
		arg.name = r->name;
		ui_view_push(c, &ui_view_apply, &arg);
		break;
	case GP_GROUP_APPLY:
		arg.fn = r->fn;
		arg.id = r->id;
		ui_view_push(c, &ui_view_detail, &arg);
		break;
	}
	return (true);
}

static struct ui_list *
rollup_list(struct ui_view *v)
{
	return (&((struct rollup *)v->priv)->list);
}

const struct ui_view_class ui_view_class = {
	.name = "Class",
	.keys = UI_K_TABLE,
	.init = init_class,
	.free = rollup_free,
	.update = rollup_update,
	.draw = rollup_draw,
	.key = rollup_key,
	.list = rollup_list,
};

const struct ui_view_class ui_view_ops = {
	.name = "Ops",
	.keys = UI_K_TABLE | UI_K_OPS,
	.init = init_ops,
	.free = rollup_free,
	.update = rollup_update,
	.draw = rollup_draw,
	.key = rollup_key,
	.list = rollup_list,
};

const struct ui_view_class ui_view_apply = {
	.name = "Apply",
	.keys = UI_K_TABLE,
	.init = init_apply,
	.free = rollup_free,
	.update = rollup_update,
	.draw = rollup_draw,
	.key = rollup_key,
	.list = rollup_list,
};
