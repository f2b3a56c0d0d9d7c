/*
 * diff-sort.c: the columns of the diff's tables (gp_diff_cols) and the
 * order of their rows by any of them (gp_diff_row_cmp, gp_diff_sort; see
 * diff.h): NAN last both ways, ties by |delta|, then by the applies'
 * positions, then by name.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/radix.h"
#include "base/util.h"
#include "capture/diff-impl.h"
#include "capture/diff.h"

const struct gp_diff_col_info gp_diff_cols[GP_DIFF_COL__COUNT] = {
	[GP_DIFF_COL_NAME] = {.name = "name", .title = "<name>",
	    .descending = false},
	[GP_DIFF_COL_TIME_A] = {.name = "time_a", .title = "<time A>",
	    .descending = true},
	[GP_DIFF_COL_TIME_B] = {.name = "time_b", .title = "<time B>",
	    .descending = true},
	[GP_DIFF_COL_DELTA] = {.name = "delta", .title = "<delta>",
	    .descending = true},
	[GP_DIFF_COL_ABS_DELTA] = {.name = "abs_delta", .title = "<|delta|>",
	    .descending = true},
	[GP_DIFF_COL_RATIO] = {.name = "ratio", .title = "<ratio>",
	    .descending = true},
	[GP_DIFF_COL_CALLS_A] = {.name = "calls_a", .title = "<#call A>",
	    .descending = true},
	[GP_DIFF_COL_CALLS_B] = {.name = "calls_b", .title = "<#call B>",
	    .descending = true},
	[GP_DIFF_COL_PER_CALL_A] = {.name = "per_call_a",
	    .title = "<per call A>", .descending = true},
	[GP_DIFF_COL_PER_CALL_B] = {.name = "per_call_b",
	    .title = "<per call B>", .descending = true},
	[GP_DIFF_COL_CHANGE] = {.name = "change", .title = "<change>",
	    .descending = true},
	[GP_DIFF_COL_SIGNIFICANCE] = {.name = "p", .title = "<p>",
	    .descending = false},
	[GP_DIFF_COL_KIND] = {.name = "kind", .title = "<kind>",
	    .descending = false},
};

_Static_assert(sizeof(gp_diff_cols) / sizeof(gp_diff_cols[0]) ==
    GP_DIFF_COL__COUNT, "a title for every column");

static int
cmp_num(double x, double y)
{
	if (x < y)
		return (-1);
	return (x > y ? 1 : 0);
}

static double
col_value(const struct gp_diff_row *r, enum gp_diff_col c)
{
	switch (c) {
	case GP_DIFF_COL_TIME_A:
		return (r->time_a);
	case GP_DIFF_COL_TIME_B:
		return (r->time_b);
	case GP_DIFF_COL_DELTA:
		return (r->delta);
	case GP_DIFF_COL_ABS_DELTA:
		return (fabs(r->delta));
	case GP_DIFF_COL_RATIO:
		return (r->ratio);
	case GP_DIFF_COL_CALLS_A:
		return ((double)r->calls_a);
	case GP_DIFF_COL_CALLS_B:
		return ((double)r->calls_b);
	case GP_DIFF_COL_PER_CALL_A:
		return (r->per_call_a);
	case GP_DIFF_COL_PER_CALL_B:
		return (r->per_call_b);
	case GP_DIFF_COL_CHANGE:
		return (r->change);
	case GP_DIFF_COL_SIGNIFICANCE:
		return (r->p);
	case GP_DIFF_COL_KIND:
		return ((double)r->kind);
	default:
		return (0);
	}
}

/* a against b, NAN last in either direction. */
static int
cmp_val(double a, double b, bool descending)
{
	if (isnan(a) || isnan(b))
		return (isnan(a) - isnan(b));
	return (descending ? cmp_num(b, a) : cmp_num(a, b));
}

int
gp_diff_row_cmp(const struct gp_diff_row *x, const struct gp_diff_row *y,
    enum gp_diff_col c, bool descending)
{
	int v;

	if (c == GP_DIFF_COL_NAME) {
		v = strcmp(x->name, y->name);
		if (descending)
			v = -v;
	} else
		v = cmp_val(col_value(x, c), col_value(y, c), descending);
	if (v != 0)
		return (v);
	if (c != GP_DIFF_COL_ABS_DELTA &&
	    (v = cmp_val(fabs(x->delta), fabs(y->delta), true)) != 0)
		return (v);
	/* apply rows: schedule positions (unique); others: names */
	if ((v = (x->fn_a - y->fn_a)) != 0 || (v = (x->id_a - y->id_a)) != 0)
		return (v);
	if ((v = (x->fn_b - y->fn_b)) != 0 || (v = (x->id_b - y->id_b)) != 0)
		return (v);
	return (c != GP_DIFF_COL_NAME ? strcmp(x->name, y->name) : 0);
}

/* A key that orders doubles as cmp_val does (equal keys: equal values;
 * NAN last both ways). */
static uint64_t
val_key(double v, bool descending)
{
	uint64_t u = gp_diff_dkey(v);

	return (descending && u != UINT64_MAX ? ~u : u);
}

/* A key that orders (fn, id) positions as gp_diff_row_cmp does. */
static uint64_t
pos_key(int fn, int id)
{
	return ((uint64_t)(uint32_t)(fn + 1) << 32 | (uint32_t)(id + 1));
}

/* qsort has no context argument: a thread's sort in progress */
static _Thread_local const struct gp_diff_row *sort_rows;
static _Thread_local enum gp_diff_col sort_col;
static _Thread_local bool sort_desc;

static int
cmp_sort(const void *a, const void *b)
{
	return (gp_diff_row_cmp(&sort_rows[*(const uint32_t *)a],
	    &sort_rows[*(const uint32_t *)b], sort_col, sort_desc));
}

/* Are rows [0..n) in the order of their positions (pa, pb: their
 * keys), A's then B's? */
static bool
by_position(const uint64_t *pa, const uint64_t *pb, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (pa[i - 1] > pa[i] || (pa[i - 1] == pa[i] &&
		    pb[i - 1] > pb[i]))
			return (false);
	return (true);
}

/* Do rows x and y tie on everything gp_diff_row_cmp compares but the
 * name?  Read from their keys (kc: the column's, kd: |delta|'s, pa and
 * pb: the positions'): 8 bytes a row, where a row's own figures lie
 * hundreds of bytes apart (100,000 rows read in sorted order would miss
 * the caches at each). */
static bool
tied(const uint64_t *kc, const uint64_t *kd, const uint64_t *pa,
    const uint64_t *pb, uint32_t x, uint32_t y)
{
	return (kc[x] == kc[y] && kd[x] == kd[y] && pa[x] == pa[y] &&
	    pb[x] == pb[y]);
}

/* Stable radix sorts by gp_diff_row_cmp's keys, least significant first;
 * only rows still tied after them (rows of the Class and Ops tables with
 * equal figures) are compared by name: the order of a qsort with
 * gp_diff_row_cmp, at a fraction of its cost on 100,000 rows. */
void
gp_diff_sort(struct gp_diff_table *t, enum gp_diff_col c, bool descending)
{
	const struct gp_diff_row *r = t->rows;
	size_t n = t->n;
	uint32_t *idx = gp_xmalloc(sizeof(*idx) * (n + 1));
	uint64_t *k, *kc, *kd, *pa, *pb;
	struct gp_diff_row tmp;

	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	sort_rows = t->rows;
	sort_col = c;
	sort_desc = descending;
	if (c == GP_DIFF_COL_NAME)
		qsort(idx, n, sizeof(*idx), cmp_sort);
	else {
		/* keys: the column's, |delta|'s, A's and B's positions,
		 * and the sort's work space */
		k = gp_xmalloc(sizeof(*k) * (6 * n + 1));
		kc = k + 2 * n;
		kd = k + 3 * n;
		pa = k + 4 * n;
		pb = k + 5 * n;
		for (size_t i = 0; i < n; i++) {
			kc[i] = val_key(col_value(&r[i], c), descending);
			kd[i] = val_key(fabs(r[i].delta), true);
			pa[i] = pos_key(r[i].fn_a, r[i].id_a);
			pb[i] = pos_key(r[i].fn_b, r[i].id_b);
		}
		/* by position (the order gp_diff_compute makes them in) */
		if (!by_position(pa, pb, n)) {
			gp_radix_sort(pb, idx, n, k);
			gp_radix_sort(pa, idx, n, k);
		}
		if (c != GP_DIFF_COL_ABS_DELTA)
			gp_radix_sort(kd, idx, n, k);
		gp_radix_sort(kc, idx, n, k);
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && tied(kc, kd, pa, pb, idx[i],
			    idx[j]); j++)
				;
			if (j - i > 1)
				qsort(idx + i, j - i, sizeof(*idx), cmp_sort);
		}
		free(k);
	}
	/* rows[i] becomes rows[idx[i]], in place, cycle by cycle (a copy
	 * of 100,000 rows would be 26 MB of fresh pages); a row in place
	 * (idx[i] == i, as are all when the order holds) is not moved */
	for (size_t i = 0; i < n; i++) {
		size_t j = i, from;

		if (idx[i] == i)
			continue;
		tmp = t->rows[i];
		while ((from = idx[j]) != i) {
			t->rows[j] = t->rows[from];
			idx[j] = (uint32_t)j;
			j = from;
		}
		t->rows[j] = tmp;
		idx[j] = (uint32_t)j;
	}
	free(idx);
}
