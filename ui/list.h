/*
 * list.h: the table widget every tabular view is built on: a scrollable,
 * selectable, sortable and filterable list of rows over an array the view
 * owns, described by a set of columns (columns.h).
 *
 * Rows are never copied: the list keeps an order (indices into the view's
 * array, after the filter) and each row's identity, so when the view hands
 * it a fresh array after a refresh the selection stays on the same row and,
 * in lazy mode, rows keep their places (new rows at the end) until the
 * user sorts again.  Sorting extracts one key per row and sorts the keys,
 * ties broken by the view's own order, so it is stable and cheap.  A view
 * whose rows only change their values (the same rows, counted again in
 * place) says so instead: the texts' sort keys, the filter's matches and
 * the identities are kept, and only the numbers are sorted again.
 */
#ifndef GPTOP_UI_LIST_H
#define GPTOP_UI_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keys.h"

struct ui_colset;
struct ui_rank;

#define UI_LIST_MAXCOLS 24
#define UI_FILTER_MAX 128
#define UI_LIST_HSTEP 8		/* cells a Left/Right scrolls names by */

struct ui_list {
	const struct ui_colset	*set;
	const char		*rows;
	size_t			 nrows, stride;
	uint64_t		*ids;		/* identity of each row */
	/* the view's order of the rows (ties fall in it), or NULL: the
	 * array's */
	const uint32_t		*base;
	/* every row, in display order */
	uint32_t		*all;
	uint32_t		*order;		/* the rows shown (filtered) */
	double			*cum;		/* running sums, by position */
	/* sort keys of the rows by column, made when first needed */
	double			*keys[UI_LIST_MAXCOLS];
	/* ranks of a text column by row identity, kept across refreshes
	 * until ui_list_texts_changed() */
	struct ui_rank		*ranks[UI_LIST_MAXCOLS];
	size_t			 n_ranks[UI_LIST_MAXCOLS];
	/* keys[k] ranked from the texts, not found in ranks[k] */
	bool			 rank_fresh[UI_LIST_MAXCOLS];
	/* rows passing the scope and filter match_filter, or NULL */
	uint8_t			*match;
	char			 match_filter[UI_FILTER_MAX];
	/* the names in lower case, row i's at folded + fold_at[i] */
	char			*folded;
	size_t			*fold_at;
	size_t			 n;		/* rows shown */
	size_t			 cap;
	int			 sort;		/* index in set->cols */
	bool			 invert;
	bool			 lazy;
	/* rank the names when new ones come (else at the first sort by
	 * name): for views whose rows keep their names across refreshes */
	bool			 rank_names;
	size_t			 sel, top;
	char			 filter[UI_FILTER_MAX];
	/* an extra filter the view sets (Apply rows of one class) */
	bool			(*scope)(const void *row, void *arg);
	void			*scope_arg;
	/* the layout of the last draw */
	int			 y, h, w;
	int			 nvis;
	int			 vis[UI_LIST_MAXCOLS];
	int			 vx[UI_LIST_MAXCOLS], vw[UI_LIST_MAXCOLS];
	int			 hidden;	/* columns dropped for width */
	/* cells of the name (flexible) column scrolled off at its left
	 * (Left/Right), and the most the rows on screen allow */
	int			 hscroll, hscroll_max;
	/* CPU time of the last sort and draw, ms */
	double			 sort_ms, draw_ms;
};

void	ui_list_init(struct ui_list *l, const struct ui_colset *set);
void	ui_list_done(struct ui_list *l);
/* Hand the list a new array of rows (the old one may be freed already).
 * The selection follows its row; the order is re-sorted, or in lazy mode
 * kept. */
void	ui_list_set_rows(struct ui_list *l, const void *rows, size_t n,
	    size_t stride);
/* The rows handed last changed their values in place (the same rows,
 * identities and texts): sort them again (in lazy mode keep the order),
 * the selection following its row. */
void	ui_list_values_changed(struct ui_list *l);
/* The view's order of its rows (base[k] is the k-th row; kept, not
 * copied, so an order updated in place is followed), NULL for the
 * array's order: equal keys of every sort fall in it.  Takes effect at
 * the next sort. */
void	ui_list_set_base(struct ui_list *l, const uint32_t *base);
/* The rows' texts may differ from the last rows' with the same identity
 * (another function, a recompile): forget the ranks kept for sorting by
 * text.  Views whose identities are hashes of the texts never need it. */
void	ui_list_texts_changed(struct ui_list *l);
/* Sort again by the current column (ends lazy order until the next
 * refresh), and apply the filter. */
void	ui_list_resort(struct ui_list *l);
void	ui_list_sort_by(struct ui_list *l, int col, bool invert);
/* Set the name filter (case-insensitive substring; "" for none). */
void	ui_list_set_filter(struct ui_list *l, const char *f);
void	ui_list_set_scope(struct ui_list *l,
	    bool (*scope)(const void *, void *), void *arg);

const void	*ui_list_row(const struct ui_list *l, size_t pos);
const void	*ui_list_selected(const struct ui_list *l);
const char	*ui_list_sort_title(const struct ui_list *l);

/* Draw the header line at y and rows below it, h lines in all. */
void	ui_list_draw(struct ui_list *l, int y, int h, int w);
/* A status line: "what - N rows - sorted by - filter - lazy". */
void	ui_list_draw_status(const struct ui_list *l, int y, int w,
	    const char *what);
/* Moving, scrolling the name column (Left/Right) and sorting actions;
 * returns true if the action was taken. */
bool	ui_list_action(struct ui_list *l, enum ui_action a);
/* Select the next row (dir 1) or previous (-1) whose name contains s,
 * starting at the selection (from_sel) or just past it.  Returns whether
 * one was found. */
bool	ui_list_search(struct ui_list *l, const char *s, int dir,
	    bool from_sel);
/* A click at screen (y, x): on the header it sorts by that column (again:
 * inverts), on a row it selects it.  Returns 1 for a row, 2 for the
 * header, 0 outside. */
int	ui_list_click(struct ui_list *l, int y, int x);
/* Scroll by dy rows (the wheel). */
void	ui_list_scroll(struct ui_list *l, int dy);

#endif
