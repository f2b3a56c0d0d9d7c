/*
 * test-list.c: the table widget (ui/list.c) without a screen: sorting by
 * a column and inverting, the running sum, the name filter and a scope,
 * search, the selection following its row across refreshes, lazy order
 * (rows keep their places, new rows at the end, until a sort), text
 * ranks kept across refreshes until the texts change, the view's base
 * order for ties, values changed in place, a filter narrowed as it is
 * typed, and the live rollup (gp_prof_rollup_live, counted again by
 * gp_prof_rollup_refresh) against a new gp_prof_rollup.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "columns.h"
#include "list.h"
#include "base/util.h"

#define N 6

static struct gp_prof_row rows[N];
static char *names[N] = {"Elemwise{add}(x, y)", "Elemwise{mul}(a, 2)",
	"Dot22(a, b)", "Elemwise{add}(p, q)", "Elemwise{tanh}(z)",
	"Sum{axis=0}(t)"};

static void
fill(const double *pct)
{
	for (int i = 0; i < N; i++) {
		rows[i].name = names[i];
		rows[i].fn = 0;
		rows[i].id = i;
		rows[i].pct = pct[i];
		rows[i].time_ns = pct[i] * 1000;
		rows[i].calls = 10;
		rows[i].n_apply = 1;
		snprintf(rows[i].type, sizeof(rows[i].type), "%s",
		    i == 2 ? "BLAS" : "C");
	}
}

static int
id_at(const struct ui_list *l, size_t p)
{
	const struct gp_prof_row *r = ui_list_row(l, p);

	return (r != NULL ? r->id : -1);
}

static bool
order_is(const struct ui_list *l, const int *want, size_t n)
{
	if (l->n != n)
		return (false);
	for (size_t p = 0; p < n; p++)
		if (id_at(l, p) != want[p])
			return (false);
	return (true);
}

static bool
only_odd(const void *row, void *arg)
{
	return (((const struct gp_prof_row *)row)->id % 2 == 1);
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (rng);
}

/* A profile of nf functions of n applies each, in four classes, with
 * counts from stat_add. */
static struct gp_profile *
make_profile(int nf, int n)
{
	static const char *const cls[] = {"Elemwise", "Dot", "Sum", "Gemv"};
	struct gp_profile *p = gp_xcalloc(1, sizeof(*p));

	p->graph = gp_xstrdup("g");
	p->path = gp_xstrdup("g.json");
	p->flags = gp_xstrdup("");
	p->rewrites = gp_xstrdup("");
	p->n_fn = nf;
	p->fn = gp_xcalloc((size_t)nf, sizeof(*p->fn));
	for (int f = 0; f < nf; f++) {
		struct gp_prof_fn *pf = &p->fn[f];

		pf->name = gp_xstrdup(f ? "g" : "f");
		pf->n_apply = n;
		pf->ap = gp_xcalloc((size_t)n, sizeof(*pf->ap));
		for (int i = 0; i < n; i++) {
			struct gp_prof_apply *a = &pf->ap[i];
			char name[64];

			snprintf(name, sizeof(name), "%s{k%d}(t%d, t%d)",
			    cls[i % 4], i % 7, i, (i * 7919) % n);
			a->id = i;
			a->name = gp_xstrdup(name);
			snprintf(name, sizeof(name), "%s{k%d}", cls[i % 4],
			    i % 7);
			a->op = gp_xstrdup(name);
			a->cls = gp_xstrdup(cls[i % 4]);
			a->opname = gp_xstrdup("x");
			a->node = gp_xstrdup("");
			a->extra = gp_xstrdup("");
			a->impl = (enum gp_impl)(i % 3);
			a->flops = (double)(i % 5) * 1e3;
		}
	}
	return (p);
}

/* More executions: most applies run, some twice, some not at all. */
static void
run_profile(struct gp_profile *p)
{
	for (int f = 0; f < p->n_fn; f++)
		for (int i = 0; i < p->fn[f].n_apply; i++) {
			int times = (int)(next() % 4);

			for (int k = 0; k < times; k++)
				gp_prof_stat_add(&p->fn[f].ap[i].st,
				    next() % 5 == 0 ? 1000 : 10 +
				    next() % 100000);
		}
}

/* The rows of a refreshed live table, in its order, are those of a new
 * gp_prof_rollup, to the bit. */
static bool
same_tables(const struct gp_profile *p, const struct gp_prof_table *live,
    const struct gp_prof_table *t)
{
	if (live->n != t->n || live->total_ns != t->total_ns)
		return (false);
	for (size_t k = 0; k < t->n; k++) {
		const struct gp_prof_row *x = &live->rows[live->order[k]];
		const struct gp_prof_row *y = &t->rows[k];
		const struct gp_prof_stat *st = &y->st;

		if (strcmp(x->name, y->name) != 0 ||
		    strcmp(x->type, y->type) != 0 || x->fn != y->fn ||
		    x->id != y->id || x->n_apply != y->n_apply ||
		    x->calls != y->calls || x->time_ns != y->time_ns ||
		    x->pct != y->pct || x->per_call_ns != y->per_call_ns ||
		    x->median_ns != y->median_ns || x->p95_ns != y->p95_ns ||
		    x->flops != y->flops || x->gflops != y->gflops)
			return (false);
		/* the one-pass quantiles are gp_prof_stat_quantile's */
		if (y->median_ns != gp_prof_stat_quantile(st, 0.5) ||
		    y->p95_ns != gp_prof_stat_quantile(st, 0.95))
			return (false);
	}
	return (true);
}

static void
test_live_rollup(void)
{
	static const char *const gname[] = {"Class", "Ops", "Apply",
		"Ops by signature"};
	struct gp_profile *p = make_profile(2, 3000);

	run_profile(p);
	for (int g = 0; g < 4; g++)
		for (int fn = -1; fn < 2; fn++) {
			struct gp_prof_table live, t;
			bool good = true;

			gp_prof_rollup_live(p, fn, (enum gp_prof_group)g,
			    &live);
			for (int round = 0; round < 3 && good; round++) {
				gp_prof_rollup(p, fn, (enum gp_prof_group)g,
				    &t);
				good = same_tables(p, &live, &t);
				gp_prof_table_free(&t);
				run_profile(p);
				good = good && gp_prof_rollup_refresh(p,
				    &live) == 0;
			}
			ok(good, "%s rows of function %d, counted again in "
			    "place three times: a new rollup's, in order",
			    gname[g], fn);
			gp_prof_table_free(&live);
		}
	{
		struct gp_prof_table live;
		struct gp_prof_row saved;

		gp_prof_rollup_live(p, 0, GP_GROUP_APPLY, &live);
		saved = live.rows[0];
		p->generation++;
		run_profile(p);
		ok(gp_prof_rollup_refresh(p, &live) == -1 &&
		    live.rows[0].calls == saved.calls,
		    "another generation: no refresh, the rows untouched");
		gp_prof_table_free(&live);
	}
	gp_profile_free(p);
}

/* The Apply list over a live table: refreshed in place, it shows what a
 * list over a new rollup shows, in every sort, filtered or not. */
static void
test_live_list(void)
{
	struct gp_profile *p = make_profile(1, 5000);
	struct gp_prof_table live, t;
	struct ui_list a, b;
	bool good = true;
	const char *sel_name;

	run_profile(p);
	gp_prof_rollup_live(p, 0, GP_GROUP_APPLY, &live);
	ui_list_init(&a, &ui_colset_apply);
	ui_list_init(&b, &ui_colset_apply);
	ui_list_set_base(&a, live.order);
	a.rank_names = true;
	ui_list_set_rows(&a, live.rows, live.n, sizeof(*live.rows));
	ok(a.keys[ui_colset_find(a.set, UI_COL_APPLY)] != NULL &&
	    a.keys[ui_colset_find(a.set, UI_COL_TYPE)] == NULL,
	    "rank_names: new names are ranked with the rows, other texts "
	    "when sorted by");
	a.sel = 17;
	sel_name = ((const struct gp_prof_row *)ui_list_selected(&a))->name;
	run_profile(p);
	gp_prof_rollup_refresh(p, &live);
	ui_list_values_changed(&a);
	ok(strcmp(((const struct gp_prof_row *)ui_list_selected(&a))->name,
	    sel_name) == 0, "values changed: the selection follows its row");
	gp_prof_rollup(p, 0, GP_GROUP_APPLY, &t);
	ui_list_set_rows(&b, t.rows, t.n, sizeof(*t.rows));
	for (int k = 0; k < a.set->n && good; k++)
		for (int inv = 0; inv < 2 && good; inv++) {
			if (ui_columns[a.set->cols[k]].flags & UI_COLF_NOSORT)
				continue;
			ui_list_sort_by(&a, k, inv);
			ui_list_sort_by(&b, k, inv);
			for (size_t q = 0; q < a.n && good; q++)
				good = a.n == b.n && strcmp(((const struct
				    gp_prof_row *)ui_list_row(&a, q))->name,
				    ((const struct gp_prof_row *)ui_list_row(&b,
				    q))->name) == 0 && a.cum[q] == b.cum[q];
		}
	ok(good, "every sort, both ways, of rows refreshed in place: the "
	    "order (ties too) and sum%% of a new rollup's");
	/* typing a filter narrows the last matches */
	ui_list_sort_by(&a, ui_colset_find(a.set, UI_COL_PCT), false);
	ui_list_sort_by(&b, ui_colset_find(b.set, UI_COL_PCT), false);
	ui_list_set_filter(&a, "e");
	ui_list_set_filter(&a, "eL");
	ui_list_set_filter(&a, "ELEMWISE{K3");
	ui_list_set_filter(&b, "elemwise{k3");
	good = a.n == b.n && a.n > 0 && a.n < a.nrows;
	for (size_t q = 0; q < a.n && good; q++)
		good = ui_list_row(&a, q) != NULL && strcmp(((const struct
		    gp_prof_row *)ui_list_row(&a, q))->name, ((const struct
		    gp_prof_row *)ui_list_row(&b, q))->name) == 0;
	ok(good, "a filter typed letter by letter keeps the rows a filter "
	    "set at once keeps (%zu of %zu)", a.n, a.nrows);
	ui_list_set_filter(&a, "ELEMWISE{K");
	ui_list_set_filter(&b, "Elemwise{k");
	ok(a.n == b.n && a.n > 0, "a shorter filter finds the rows again "
	    "(%zu)", a.n);
	ui_list_done(&a);
	ui_list_done(&b);
	gp_prof_table_free(&live);
	gp_prof_table_free(&t);
	gp_profile_free(p);
}

int
main(void)
{
	static const double pct1[N] = {10, 30, 25, 5, 20, 10};
	static const double pct2[N] = {40, 1, 2, 30, 20, 7};
	struct ui_list l;
	int name_col = ui_colset_find(&ui_colset_apply, UI_COL_APPLY);
	int pct_col = ui_colset_find(&ui_colset_apply, UI_COL_PCT);

	ui_list_init(&l, &ui_colset_apply);
	fill(pct1);
	ui_list_set_rows(&l, rows, N, sizeof(rows[0]));
	ok(order_is(&l, (const int[]){1, 2, 4, 0, 5, 3}, N),
	    "sorted by %%time, descending; ties in row order");
	ok(l.cum[N - 1] > 99.9 && l.cum[N - 1] < 100.1 && l.cum[0] == 30,
	    "sum%% runs down the rows");
	ui_list_action(&l, UI_A_SORT_INVERT);
	ok(order_is(&l, (const int[]){3, 0, 5, 4, 2, 1}, N),
	    "I inverts (ties still in row order)");
	ui_list_sort_by(&l, name_col, false);
	ok(order_is(&l, (const int[]){2, 3, 0, 1, 4, 5}, N),
	    "by name: ascending text order");
	ui_list_sort_by(&l, pct_col, false);

	ui_list_set_filter(&l, "ELEMWISE{ADD");
	ok(order_is(&l, (const int[]){0, 3}, 2),
	    "the filter keeps the names containing it, any case");
	ui_list_set_filter(&l, "");
	ui_list_set_scope(&l, only_odd, NULL);
	ok(order_is(&l, (const int[]){1, 5, 3}, 3), "a scope filters too");
	ui_list_set_scope(&l, NULL, NULL);
	ui_list_set_filter(&l, "");

	ok(ui_list_search(&l, "tanh", 1, true) && id_at(&l, l.sel) == 4,
	    "search selects the first match");
	ok(!ui_list_search(&l, "nothing", 1, false) && id_at(&l, l.sel) == 4,
	    "a failed search keeps the selection");

	/* a refresh: new numbers, the selection follows its row */
	fill(pct2);
	ui_list_set_rows(&l, rows, N, sizeof(rows[0]));
	ok(order_is(&l, (const int[]){0, 3, 4, 5, 2, 1}, N) &&
	    id_at(&l, l.sel) == 4, "a refresh re-sorts; the selection "
	    "follows its row");

	/* lazy order */
	ui_list_action(&l, UI_A_LAZY);
	fill(pct1);
	ui_list_set_rows(&l, rows, N - 1, sizeof(rows[0]));
	ok(order_is(&l, (const int[]){0, 3, 4, 2, 1}, N - 1),
	    "lazy: rows keep their places; a vanished row goes");
	ui_list_set_rows(&l, rows, N, sizeof(rows[0]));
	ok(order_is(&l, (const int[]){0, 3, 4, 2, 1, 5}, N),
	    "lazy: a new row comes at the end");
	ui_list_resort(&l);
	ok(order_is(&l, (const int[]){1, 2, 4, 0, 5, 3}, N),
	    "sorting again puts them in order");
	ui_list_action(&l, UI_A_LAZY);

	/* text ranks survive a refresh, and are dropped when told */
	ui_list_sort_by(&l, name_col, false);
	ui_list_set_rows(&l, rows, N, sizeof(rows[0]));
	ok(order_is(&l, (const int[]){2, 3, 0, 1, 4, 5}, N),
	    "by name after a refresh (ranks kept by identity)");
	names[5] = "Add(r)";
	ui_list_texts_changed(&l);
	fill(pct1);
	ui_list_set_rows(&l, rows, N, sizeof(rows[0]));
	ok(order_is(&l, (const int[]){5, 2, 3, 0, 1, 4}, N),
	    "changed texts are ranked again");

	/* the view's order: ties fall in it */
	{
		static const uint32_t base[N] = {5, 4, 3, 2, 1, 0};
		int type_col = ui_colset_find(&ui_colset_apply,
		    UI_COL_TYPE);

		ui_list_set_base(&l, base);
		ui_list_sort_by(&l, type_col, false);
		ok(order_is(&l, (const int[]){2, 5, 4, 3, 1, 0}, N),
		    "ties fall in the view's order");
		ui_list_set_filter(&l, "elemwise");
		l.sel = 1;
		ok(order_is(&l, (const int[]){4, 3, 1, 0}, 4) &&
		    id_at(&l, l.sel) == 3, "filtered, row 3 selected");
		/* new values in place: the same rows sorted again */
		fill(pct2);
		ui_list_sort_by(&l, pct_col, false);
		fill(pct1);
		ui_list_values_changed(&l);
		ok(order_is(&l, (const int[]){1, 4, 0, 3}, 4) &&
		    id_at(&l, l.sel) == 3 && l.cum[3] > 64.9 &&
		    l.cum[3] < 65.1, "values changed in place: sorted "
		    "again, filtered, sum%% anew, the selection kept");
		ui_list_set_filter(&l, "");
		ui_list_set_base(&l, NULL);
	}
	ui_list_done(&l);
	test_live_rollup();
	test_live_list();
	return (done_testing());
}
