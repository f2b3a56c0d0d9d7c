/*
 * test-list.c: the table widget (ui/list.c) without a screen: sorting by
 * a column and inverting, the running sum, the name filter and a scope,
 * search, the selection following its row across refreshes, lazy order
 * (rows keep their places, new rows at the end, until a sort), and text
 * ranks kept across refreshes until the texts change.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "columns.h"
#include "list.h"

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
	ui_list_done(&l);
	return (done_testing());
}
