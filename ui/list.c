/*
 * list.c: the table widget (see list.h).
 */
#include "config.h"

#include "list.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <wchar.h>

#include "columns.h"
#include "crt.h"
#include "draw.h"
#include "sort.h"
#include "base/util.h"

#define NO_ID UINT64_MAX

/* The interface thread's CPU time: what sorting and drawing cost it,
 * whatever else the machine is doing. */
static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
}

static const struct ui_column *
col_at(const struct ui_list *l, int k)
{
	return (&ui_columns[l->set->cols[k]]);
}

static const void *
row_at(const struct ui_list *l, size_t i)
{
	return (l->rows + i * l->stride);
}

/* A text column: its keys are ranks of its strings. */
static bool
is_text(const struct ui_list *l, int k)
{
	return (col_at(l, k)->num == NULL && col_at(l, k)->str != NULL);
}

/* Forget the sort keys (all, or only the numbers). */
static void
drop_keys(struct ui_list *l, bool texts)
{
	for (int k = 0; k < UI_LIST_MAXCOLS; k++) {
		if (!texts && k < l->set->n && is_text(l, k))
			continue;
		free(l->keys[k]);
		l->keys[k] = NULL;
	}
}

/* Forget which rows match (and the folded names: the texts changed). */
static void
drop_matches(struct ui_list *l, bool texts)
{
	free(l->match);
	l->match = NULL;
	if (!texts)
		return;
	free(l->folded);
	free(l->fold_at);
	l->folded = NULL;
	l->fold_at = NULL;
}

void
ui_list_init(struct ui_list *l, const struct ui_colset *set)
{
	memset(l, 0, sizeof(*l));
	l->set = set;
	l->sort = ui_colset_find(set, set->sort);
	if (l->sort < 0)
		l->sort = 0;
}

void
ui_list_done(struct ui_list *l)
{
	free(l->ids);
	free(l->all);
	free(l->order);
	free(l->cum);
	drop_keys(l, true);
	drop_matches(l, true);
	for (int k = 0; k < UI_LIST_MAXCOLS; k++)
		free(l->ranks[k]);
	memset(l, 0, sizeof(*l));
}

struct ui_rank {
	uint64_t	id;	/* the row's identity */
	double		rank;	/* < 0: an empty slot */
};

static size_t
slot_of(uint64_t id, size_t cap)
{
	return ((size_t)((id * 0x9e3779b97f4a7c15ULL) >> 17) & (cap - 1));
}

/* The ranks of column k's texts into kv, from the last ones computed if
 * every row is among them (the view says when texts change). */
static bool
cached_ranks(struct ui_list *l, int k, double *kv)
{
	const struct ui_rank *tab = l->ranks[k];
	size_t cap = l->n_ranks[k];

	if (tab == NULL || cap < l->nrows)
		return (false);
	for (size_t i = 0; i < l->nrows; i++) {
		size_t p = slot_of(l->ids[i], cap);

		while (tab[p].rank >= 0 && tab[p].id != l->ids[i])
			p = (p + 1) & (cap - 1);
		if (tab[p].rank < 0)
			return (false);
		kv[i] = tab[p].rank;
	}
	return (true);
}

/* Rank column k's texts (equal texts share a rank) into kv. */
static void
text_ranks(struct ui_list *l, int k, double *kv)
{
	const struct ui_column *c = col_at(l, k);
	size_t n = l->nrows;
	const char **sv = gp_xmalloc(sizeof(*sv) * (n + 1));

	for (size_t i = 0; i < n; i++)
		sv[i] = c->str(row_at(l, i));
	ui_sort_rank_strings(sv, n, kv);
	free(sv);
}

/* Keep the ranks of column k by row identity (before the rows change),
 * so the next rows' ranks are found without sorting their texts again. */
static void
keep_ranks(struct ui_list *l, int k)
{
	const double *kv = l->keys[k];
	size_t n = l->nrows, cap = 16;
	struct ui_rank *tab;

	while (cap < n * 2 + 2)
		cap *= 2;
	tab = gp_xmalloc(sizeof(*tab) * cap);
	for (size_t p = 0; p < cap; p++)
		tab[p].rank = -1;
	for (size_t i = 0; i < n; i++) {
		size_t p = slot_of(l->ids[i], cap);

		while (tab[p].rank >= 0 && tab[p].id != l->ids[i])
			p = (p + 1) & (cap - 1);
		tab[p].id = l->ids[i];
		tab[p].rank = kv[i];
	}
	free(l->ranks[k]);
	l->ranks[k] = tab;
	l->n_ranks[k] = cap;
}

/* Column k's sort key of every row (made once per set of rows): the
 * number, or for text the rank of the string, equal strings sharing it. */
static const double *
keys_of(struct ui_list *l, int k)
{
	const struct ui_column *c = col_at(l, k);
	size_t n = l->nrows;
	double *kv;

	if (l->keys[k] != NULL)
		return (l->keys[k]);
	kv = gp_xmalloc(sizeof(*kv) * (n + 1));
	if (c->num != NULL) {
		for (size_t i = 0; i < n; i++)
			kv[i] = c->num(row_at(l, i));
	} else if (c->str != NULL) {
		l->rank_fresh[k] = !cached_ranks(l, k, kv);
		if (l->rank_fresh[k])
			text_ranks(l, k, kv);
	} else if (l->base != NULL) {
		for (size_t j = 0; j < n; j++)
			kv[l->base[j]] = (double)j;	/* the view's order */
	} else {
		for (size_t i = 0; i < n; i++)
			kv[i] = (double)i;
	}
	l->keys[k] = kv;
	return (kv);
}

/* Are the keys kb[0..n) already in order (equal keys anywhere)? */
static bool
in_order(const double *kb, size_t n, bool desc)
{
	for (size_t j = 0; j + 1 < n; j++)
		if (desc ? !(kb[j] >= kb[j + 1]) : !(kb[j] <= kb[j + 1]))
			return (false);	/* also for NaN */
	return (true);
}

/* Every row in sorted order into l->all.  Ties fall in the view's order:
 * the keys are sorted in that order; when they already are in order (a
 * table sorted by time, shown by time) the order is the view's. */
static void
sort_all(struct ui_list *l)
{
	const struct ui_column *c = col_at(l, l->sort);
	bool desc = !(c->flags & UI_COLF_ASC);
	const double *kv;
	double *kb;
	size_t n = l->nrows;

	if (l->invert)
		desc = !desc;
	if (c->num == NULL && c->str == NULL)
		desc = l->invert;
	kv = keys_of(l, l->sort);
	if (l->base == NULL) {
		if (!in_order(kv, n, desc))
			ui_sort_numbers(kv, l->all, n, desc);
		else
			for (size_t i = 0; i < n; i++)
				l->all[i] = (uint32_t)i;
		return;
	}
	kb = gp_xmalloc(sizeof(*kb) * (n + 1));
	for (size_t j = 0; j < n; j++)
		kb[j] = kv[l->base[j]];
	if (!in_order(kb, n, desc)) {
		ui_sort_numbers(kb, l->all, n, desc);
		for (size_t p = 0; p < n; p++)
			l->all[p] = l->base[l->all[p]];
	} else
		memcpy(l->all, l->base, sizeof(*l->all) * n);
	free(kb);
}

/* Keep the order of old_all (by identity), new rows at the end. */
static void
keep_order(struct ui_list *l, const uint64_t *old_ids, const uint32_t *old_all,
    size_t old_n)
{
	size_t n = l->nrows, hcap = 16, k = 0;
	int32_t *h;
	uint8_t *used;

	while (hcap < n * 2 + 2)
		hcap *= 2;
	h = gp_xmalloc(sizeof(*h) * hcap);
	memset(h, -1, sizeof(*h) * hcap);
	used = gp_xcalloc(n + 1, 1);
	for (size_t i = 0; i < n; i++) {
		size_t p = (size_t)(l->ids[i] * 0x9e3779b97f4a7c15ULL >> 20) &
		    (hcap - 1);

		while (h[p] >= 0)
			p = (p + 1) & (hcap - 1);
		h[p] = (int32_t)i;
	}
	for (size_t j = 0; j < old_n; j++) {
		uint64_t id = old_ids[old_all[j]];
		size_t p = (size_t)(id * 0x9e3779b97f4a7c15ULL >> 20) &
		    (hcap - 1);

		for (; h[p] >= 0; p = (p + 1) & (hcap - 1)) {
			if (l->ids[h[p]] == id && !used[h[p]]) {
				used[h[p]] = 1;
				l->all[k++] = (uint32_t)h[p];
				break;
			}
		}
	}
	for (size_t j = 0; j < n; j++) {
		uint32_t i = l->base != NULL ? l->base[j] : (uint32_t)j;

		if (!used[i])
			l->all[k++] = i;
	}
	free(h);
	free(used);
}

/* Every row's name folded to lower case as strcasestr folds it, once
 * per set of rows. */
static void
fold_names(struct ui_list *l)
{
	size_t len = 0, at = 0;
	char low[256];

	for (int c = 0; c < 256; c++)
		low[c] = (char)tolower(c);
	l->fold_at = gp_xmalloc(sizeof(*l->fold_at) * (l->nrows + 1));
	for (size_t i = 0; i < l->nrows; i++)
		len += strlen(l->set->name_of(row_at(l, i))) + 1;
	l->folded = gp_xmalloc(len + 1);
	for (size_t i = 0; i < l->nrows; i++) {
		const unsigned char *s = (const unsigned char *)
		    l->set->name_of(row_at(l, i));

		l->fold_at[i] = at;
		while (*s != '\0')
			l->folded[at++] = low[*s++];
		l->folded[at++] = '\0';
	}
}

/* Which rows pass the scope and the filter (a case-insensitive
 * substring of the name), into l->match; when the filter only grew
 * since the last time, only the rows that matched then can match. */
static void
find_matches(struct ui_list *l)
{
	char ff[UI_FILTER_MAX];
	bool narrow = l->match != NULL && strstr(l->filter,
	    l->match_filter) != NULL;
	bool named = l->filter[0] != '\0' && l->set->name_of != NULL;
	size_t j = 0;

	for (; l->filter[j] != '\0'; j++)
		ff[j] = (char)tolower((unsigned char)l->filter[j]);
	ff[j] = '\0';
	if (named && l->folded == NULL)
		fold_names(l);
	if (l->match == NULL)
		l->match = gp_xmalloc(l->nrows + 1);
	for (size_t i = 0; i < l->nrows; i++) {
		if (narrow && !l->match[i])
			continue;
		l->match[i] = (l->scope == NULL ||
		    l->scope(row_at(l, i), l->scope_arg)) && (!named ||
		    strstr(l->folded + l->fold_at[i], ff) != NULL);
	}
	snprintf(l->match_filter, sizeof(l->match_filter), "%s", l->filter);
}

/* l->all through the filter into l->order, with the running sums. */
static void
apply_filter(struct ui_list *l)
{
	int cumcol = -1;
	double acc = 0;
	const double *kv;

	for (int k = 0; k < l->set->n; k++)
		if (col_at(l, k)->flags & UI_COLF_CUM) {
			cumcol = k;
			break;
		}
	kv = cumcol >= 0 ? keys_of(l, cumcol) : NULL;
	l->n = 0;
	if (l->scope == NULL && l->filter[0] == '\0') {
		memcpy(l->order, l->all, sizeof(*l->order) * l->nrows);
		l->n = l->nrows;
		for (size_t p = 0; kv != NULL && p < l->n; p++) {
			acc += kv[l->order[p]];
			l->cum[p] = acc;
		}
		return;
	}
	if (l->match == NULL || strcmp(l->match_filter, l->filter) != 0)
		find_matches(l);
	for (size_t j = 0; j < l->nrows; j++) {
		uint32_t i = l->all[j];

		if (!l->match[i])
			continue;
		if (kv != NULL) {
			acc += kv[i];
			l->cum[l->n] = acc;
		}
		l->order[l->n++] = i;
	}
}

static void
rows_visible(struct ui_list *l)
{
	size_t page = l->h > 1 ? (size_t)(l->h - 1) : 20;

	if (l->n == 0) {
		l->sel = l->top = 0;
		return;
	}
	if (l->sel >= l->n)
		l->sel = l->n - 1;
	if (l->sel < l->top)
		l->top = l->sel;
	if (l->sel >= l->top + page)
		l->top = l->sel - page + 1;
	if (l->top + page > l->n)
		l->top = l->n > page ? l->n - page : 0;
}

/* Re-derive the order; the selection follows its row. */
static void
reorder(struct ui_list *l, bool sort, uint64_t sel_id, size_t sel_off)
{
	double t0 = now_ms();

	if (sort)
		sort_all(l);
	apply_filter(l);
	if (sel_id != NO_ID) {
		size_t r = 0;

		/* two sequential scans: the row, then its position */
		while (r < l->nrows && l->ids[r] != sel_id)
			r++;
		for (size_t p = 0; r < l->nrows && p < l->n; p++)
			if (l->order[p] == r) {
				l->sel = p;
				l->top = p >= sel_off ? p - sel_off : 0;
				break;
			}
	}
	rows_visible(l);
	l->sort_ms = now_ms() - t0;
}

static uint64_t
selected_id(const struct ui_list *l, size_t *off)
{
	*off = l->sel >= l->top ? l->sel - l->top : 0;
	if (l->n == 0 || l->sel >= l->n || l->ids == NULL)
		return (NO_ID);
	return (l->ids[l->order[l->sel]]);
}

void
ui_list_set_rows(struct ui_list *l, const void *rows, size_t n, size_t stride)
{
	uint64_t *old_ids = l->ids;
	uint32_t *old_all = l->all;
	size_t old_n = l->nrows, off;
	uint64_t sel = selected_id(l, &off);
	double t0 = now_ms();

	/* texts ranked afresh: keep their ranks by identity for these rows */
	for (int k = 0; k < l->set->n; k++)
		if (l->keys[k] != NULL && is_text(l, k) && l->rank_fresh[k]) {
			keep_ranks(l, k);
			l->rank_fresh[k] = false;
		}
	drop_keys(l, true);
	drop_matches(l, true);
	l->rows = rows;
	l->nrows = n;
	l->stride = stride;
	l->ids = gp_xmalloc(sizeof(*l->ids) * (n + 1));
	l->all = gp_xmalloc(sizeof(*l->all) * (n + 1));
	if (n + 1 > l->cap) {
		free(l->order);
		free(l->cum);
		l->cap = n + 1;
		l->order = gp_xmalloc(sizeof(*l->order) * l->cap);
		l->cum = gp_xmalloc(sizeof(*l->cum) * l->cap);
	}
	for (size_t i = 0; i < n; i++)
		l->ids[i] = l->set->ident(row_at(l, i));
	/* new names: rank them now (once per set of texts), so a sort by
	 * name costs what a sort by a number does */
	for (int k = 0; l->rank_names && k < l->set->n; k++)
		if (is_text(l, k) && col_at(l, k)->str == l->set->name_of &&
		    l->ranks[k] == NULL)
			(void)keys_of(l, k);
	if (l->lazy && old_all != NULL) {
		keep_order(l, old_ids, old_all, old_n);
		reorder(l, false, sel, off);
	} else
		reorder(l, true, sel, off);
	free(old_ids);
	free(old_all);
	l->sort_ms = now_ms() - t0;
}

void
ui_list_texts_changed(struct ui_list *l)
{
	for (int k = 0; k < UI_LIST_MAXCOLS; k++) {
		free(l->ranks[k]);
		l->ranks[k] = NULL;
		l->n_ranks[k] = 0;
		l->rank_fresh[k] = false;
	}
	drop_keys(l, true);
	drop_matches(l, true);
}

void
ui_list_values_changed(struct ui_list *l)
{
	size_t off;
	uint64_t sel = selected_id(l, &off);
	double t0 = now_ms();

	if (l->all == NULL)
		return;
	drop_keys(l, false);
	reorder(l, !l->lazy, sel, off);
	l->sort_ms = now_ms() - t0;
}

void
ui_list_set_base(struct ui_list *l, const uint32_t *base)
{
	l->base = base;
	for (int k = 0; k < l->set->n; k++)
		if (col_at(l, k)->num == NULL && col_at(l, k)->str == NULL) {
			free(l->keys[k]);
			l->keys[k] = NULL;
		}
}

void
ui_list_resort(struct ui_list *l)
{
	size_t off;
	uint64_t sel = selected_id(l, &off);

	if (l->all == NULL)
		return;
	reorder(l, true, sel, off);
}

void
ui_list_sort_by(struct ui_list *l, int col, bool invert)
{
	if (col < 0 || col >= l->set->n)
		return;
	l->sort = col;
	l->invert = invert;
	ui_list_resort(l);
}

void
ui_list_set_filter(struct ui_list *l, const char *f)
{
	size_t off;
	uint64_t sel = selected_id(l, &off);

	snprintf(l->filter, sizeof(l->filter), "%s", f);
	if (l->all == NULL)
		return;
	reorder(l, false, sel, off);
}

void
ui_list_set_scope(struct ui_list *l, bool (*scope)(const void *, void *),
    void *arg)
{
	size_t off;
	uint64_t sel = selected_id(l, &off);

	l->scope = scope;
	l->scope_arg = arg;
	drop_matches(l, false);
	if (l->all != NULL)
		reorder(l, false, sel, off);
}

const void *
ui_list_row(const struct ui_list *l, size_t pos)
{
	if (pos >= l->n)
		return (NULL);
	return (row_at(l, l->order[pos]));
}

const void *
ui_list_selected(const struct ui_list *l)
{
	return (ui_list_row(l, l->sel));
}

const char *
ui_list_sort_title(const struct ui_list *l)
{
	return (col_at(l, l->sort)->title);
}

/* Choose the columns that fit in w: drop the lowest priority first, never
 * the sort column or the flexible one. */
static void
layout(struct ui_list *l, int w)
{
	bool drop[UI_LIST_MAXCOLS] = {false};
	int need, flex = -1, x = 0;

	l->hidden = 0;
	for (;;) {
		int worst = -1;

		need = 0;
		for (int k = 0; k < l->set->n; k++) {
			if (drop[k])
				continue;
			need += col_at(l, k)->width + 1;
		}
		if (need <= w)
			break;
		for (int k = 0; k < l->set->n; k++) {
			const struct ui_column *c = col_at(l, k);

			if (drop[k] || k == l->sort ||
			    (c->flags & UI_COLF_FLEX))
				continue;
			if (worst < 0 || c->prio < col_at(l, worst)->prio)
				worst = k;
		}
		if (worst < 0)
			break;
		drop[worst] = true;
		l->hidden++;
	}
	l->nvis = 0;
	for (int k = 0; k < l->set->n && l->nvis < UI_LIST_MAXCOLS; k++) {
		const struct ui_column *c = col_at(l, k);

		if (drop[k])
			continue;
		if (c->flags & UI_COLF_FLEX)
			flex = l->nvis;
		l->vis[l->nvis] = k;
		l->vw[l->nvis] = c->width;
		l->nvis++;
	}
	if (flex >= 0 && need < w)
		l->vw[flex] += w - need;
	for (int v = 0; v < l->nvis; v++) {
		l->vx[v] = x;
		x += l->vw[v] + 1;
	}
}

static void
draw_header(struct ui_list *l, int y, int w)
{
	attr_t ha = ui_crt_attr(UI_ROLE_COLHEAD);

	ui_draw_blank(y, 0, w, ha);
	for (int v = 0; v < l->nvis; v++) {
		int k = l->vis[v];
		const struct ui_column *c = col_at(l, k);
		bool sorted = k == l->sort;
		attr_t a = sorted ? ui_crt_attr(UI_ROLE_COLHEAD_SORT) : ha;
		char t[64];
		int vw = l->vw[v];

		if (l->vx[v] >= w)
			break;
		if (vw > w - l->vx[v])
			vw = w - l->vx[v];
		if (sorted) {
			bool down = !(c->flags & UI_COLF_ASC);

			if (l->invert)
				down = !down;
			snprintf(t, sizeof(t), "%s%s", c->title,
			    ui_arrow(down));
		} else
			snprintf(t, sizeof(t), "%s", c->title);
		if (l->hscroll > 0 && (c->flags & UI_COLF_FLEX) &&
		    (c->flags & UI_COLF_LEFT))
			snprintf(t + strlen(t), sizeof(t) - strlen(t),
			    " [+%d]", l->hscroll);
		if (c->flags & (UI_COLF_LEFT | UI_COLF_BAR))
			ui_draw_ltext(y, l->vx[v], vw, t, a);
		else
			ui_draw_rtext(y, l->vx[v], vw, t, a);
	}
}

/* s past its first n cells (whole characters). */
static const char *
skip_cells(const char *s, int n)
{
	mbstate_t st;

	memset(&st, 0, sizeof(st));
	while (n > 0 && *s != '\0') {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, strlen(s), &st);
		int cw;

		if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
			k = 1;
			cw = 1;
			memset(&st, 0, sizeof(st));
		} else if ((cw = wcwidth(wc)) < 0)
			cw = 1;
		s += k;
		n -= cw;
	}
	return (s);
}

static void
draw_row(struct ui_list *l, int y, int w, size_t p)
{
	const void *r = ui_list_row(l, p);
	bool sel = p == l->sel;
	attr_t base = sel ? ui_crt_attr(UI_ROLE_SELECTED) :
	    ui_crt_attr(UI_ROLE_NORMAL);
	char buf[512];

	ui_draw_blank(y, 0, w, base);
	for (int v = 0; v < l->nvis; v++) {
		const struct ui_column *c = col_at(l, l->vis[v]);
		int vw = l->vw[v], x = l->vx[v];
		attr_t a = base;

		if (x >= w)
			break;
		if (vw > w - x)
			vw = w - x;
		if (!sel && c->role != NULL) {
			int role = c->role(r);

			if (role >= 0)
				a = ui_crt_attr((enum ui_role)role);
		}
		if (c->flags & UI_COLF_BAR) {
			ui_draw_bar(y, x, vw, c->num(r) / 100.0, sel ? base :
			    ui_crt_attr(UI_ROLE_BAR));
			continue;
		}
		if (c->flags & UI_COLF_CUM)
			snprintf(buf, sizeof(buf), "%.1f%%", l->cum[p]);
		else
			c->fmt(r, buf, sizeof(buf));
		if ((c->flags & (UI_COLF_FLEX | UI_COLF_LEFT)) ==
		    (UI_COLF_FLEX | UI_COLF_LEFT)) {
			int over = ui_text_width(buf) - l->vw[v];

			if (over > l->hscroll_max)
				l->hscroll_max = over;
			ui_draw_ltext(y, x, vw, skip_cells(buf, l->hscroll),
			    a);
		} else if (c->flags & UI_COLF_LEFT)
			ui_draw_ltext(y, x, vw, buf, a);
		else
			ui_draw_rtext(y, x, vw, buf, a);
	}
}

void
ui_list_draw(struct ui_list *l, int y, int h, int w)
{
	double t0 = now_ms();
	int rows = h - 1;

	l->y = y;
	l->h = h;
	l->w = w;
	if (h <= 0)
		return;
	layout(l, w);
	rows_visible(l);
	/* the scroll stops where the longest name on screen ends */
	for (int pass = 0; pass < 2; pass++) {
		l->hscroll_max = 0;
		draw_header(l, y, w);
		for (int i = 0; i < rows; i++) {
			size_t p = l->top + (size_t)i;

			if (p < l->n)
				draw_row(l, y + 1 + i, w, p);
			else
				ui_draw_blank(y + 1 + i, 0, w, A_NORMAL);
		}
		if (l->hscroll <= l->hscroll_max)
			break;
		l->hscroll = l->hscroll_max;
	}
	if (l->n == 0 && rows > 0) {
		const char *why = l->nrows == 0 ? "(no rows yet)" :
		    "(no rows match the filter)";

		ui_draw_text(y + 1, 2, w - 2, why, ui_crt_attr(UI_ROLE_DIM));
	}
	l->draw_ms = now_ms() - t0;
}

void
ui_list_draw_status(const struct ui_list *l, int y, int w, const char *what)
{
	const struct ui_column *c = col_at(l, l->sort);
	bool down = !(c->flags & UI_COLF_ASC);
	struct gp_buf b = {0};
	char hint[48] = "", title[512];
	int x, hw;

	if (l->invert)
		down = !down;
	gp_buf_printf(&b, " %zu row%s", l->n, l->n == 1 ? "" : "s");
	if (l->n != l->nrows)
		gp_buf_printf(&b, " of %zu", l->nrows);
	gp_buf_printf(&b, " | sorted by %s%s", c->title, ui_arrow(down));
	if (l->lazy)
		gp_buf_puts(&b, " | lazy order (L)");
	if (l->filter[0] != '\0')
		gp_buf_printf(&b, " | filter \"%s\"", l->filter);
	/* the hint keeps its place at the right, whatever is cut */
	if (l->hidden > 0)
		snprintf(hint, sizeof(hint), " +%d col%s if wider",
		    l->hidden, l->hidden == 1 ? "" : "s");
	hw = ui_text_width(hint);
	if (hw > w)
		hw = 0;
	/* too long: the title's middle fields go first ("a | b | c |"
	 * loses " b |", then ...), the rows and the sort stay */
	snprintf(title, sizeof(title), "%s", what);
	while (ui_text_width(title) + ui_text_width(gp_buf_str(&b)) + hw > w) {
		size_t len = strlen(title);
		char *cut = NULL;

		for (char *q = strstr(title, " | "); q != NULL && (size_t)(q -
		    title) + 3 < len; q = strstr(q + 1, " | "))
			cut = q;
		if (cut == NULL)
			break;
		snprintf(cut, sizeof(title) - (size_t)(cut - title), " |");
	}
	x = ui_draw_text(y, 0, w - hw, title, ui_crt_attr(UI_ROLE_TITLE));
	ui_draw_ltext(y, x, w - hw - x, gp_buf_str(&b),
	    ui_crt_attr(UI_ROLE_DIM));
	if (hw > 0)
		ui_draw_text(y, w - hw, hw, hint, ui_crt_attr(UI_ROLE_DIM));
	gp_buf_free(&b);
}

static int
next_sortable(const struct ui_list *l, int from, int dir)
{
	int k = from;

	for (int i = 0; i < l->set->n; i++) {
		k = (k + dir + l->set->n) % l->set->n;
		if (!(col_at(l, k)->flags & UI_COLF_NOSORT))
			return (k);
	}
	return (from);
}

bool
ui_list_action(struct ui_list *l, enum ui_action a)
{
	size_t page = l->h > 2 ? (size_t)(l->h - 1) : 20;

	switch (a) {
	case UI_A_UP:
		if (l->sel > 0)
			l->sel--;
		break;
	case UI_A_DOWN:
		if (l->sel + 1 < l->n)
			l->sel++;
		break;
	case UI_A_PGUP:
		l->sel = l->sel > page ? l->sel - page : 0;
		l->top = l->top > page ? l->top - page : 0;
		break;
	case UI_A_PGDN:
		l->sel += page;
		if (l->sel >= l->n)
			l->sel = l->n ? l->n - 1 : 0;
		l->top += page;
		break;
	case UI_A_HOME:
		l->sel = 0;
		break;
	case UI_A_END:
		l->sel = l->n ? l->n - 1 : 0;
		break;
	case UI_A_LEFT:
		l->hscroll = l->hscroll > UI_LIST_HSTEP ? l->hscroll -
		    UI_LIST_HSTEP : 0;
		return (true);
	case UI_A_RIGHT:
		if (l->hscroll < l->hscroll_max)
			l->hscroll += UI_LIST_HSTEP;
		return (true);
	case UI_A_SORT_NEXT:
		ui_list_sort_by(l, next_sortable(l, l->sort, 1), false);
		break;
	case UI_A_SORT_PREV:
		ui_list_sort_by(l, next_sortable(l, l->sort, -1), false);
		break;
	case UI_A_SORT_INVERT:
		ui_list_sort_by(l, l->sort, !l->invert);
		break;
	case UI_A_LAZY:
		l->lazy = !l->lazy;
		if (!l->lazy)
			ui_list_resort(l);
		break;
	default:
		return (false);
	}
	rows_visible(l);
	return (true);
}

bool
ui_list_search(struct ui_list *l, const char *s, int dir, bool from_sel)
{
	size_t n = l->n;

	if (n == 0 || s[0] == '\0' || l->set->name_of == NULL)
		return (false);
	for (size_t i = from_sel ? 0 : 1; i <= n; i++) {
		size_t p = dir > 0 ? (l->sel + i) % n :
		    (l->sel + n - i % n) % n;

		if (strcasestr(l->set->name_of(ui_list_row(l, p)), s) !=
		    NULL) {
			l->sel = p;
			rows_visible(l);
			return (true);
		}
	}
	return (false);
}

int
ui_list_click(struct ui_list *l, int y, int x)
{
	if (l->h <= 0 || y < l->y || y >= l->y + l->h)
		return (0);
	if (y == l->y) {
		for (int v = 0; v < l->nvis; v++) {
			int k = l->vis[v];

			if (x < l->vx[v] || x > l->vx[v] + l->vw[v])
				continue;
			if (col_at(l, k)->flags & UI_COLF_NOSORT)
				return (2);
			if (k == l->sort)
				ui_list_sort_by(l, k, !l->invert);
			else
				ui_list_sort_by(l, k, false);
			return (2);
		}
		return (2);
	}
	if (l->top + (size_t)(y - l->y - 1) < l->n) {
		l->sel = l->top + (size_t)(y - l->y - 1);
		return (1);
	}
	return (0);
}

void
ui_list_scroll(struct ui_list *l, int dy)
{
	size_t page = l->h > 2 ? (size_t)(l->h - 1) : 20;

	if (dy < 0)
		l->top = l->top > (size_t)-dy ? l->top - (size_t)-dy : 0;
	else
		l->top += (size_t)dy;
	if (l->top + page > l->n)
		l->top = l->n > page ? l->n - page : 0;
	if (l->sel < l->top)
		l->sel = l->top;
	if (l->sel >= l->top + page)
		l->sel = l->top + page - 1;
	if (l->sel >= l->n)
		l->sel = l->n ? l->n - 1 : 0;
}
