/*
 * timeline.h: the arithmetic of the Timeline view (view-timeline.c),
 * apart from curses so a unit test checks it: where a bar starts and how
 * long it is for an apply's start and time on an axis of w cells
 * covering span ns, which column a time falls in, which applies are
 * the call's offenders (its longest, labelled), and the packed layout's
 * lanes.
 */
#ifndef GPTOP_UI_TIMELINE_H
#define GPTOP_UI_TIMELINE_H

#include <stdint.h>

/* A bar on an axis of w cells for [0, span) ns. */
struct ui_tl_bar {
	int	x;	/* first cell, 0 .. w - 1 */
	int	len;	/* cells, at least 1, x + len <= w */
};

/* The cell of time t: floor(t x w / span), at most w - 1 (span 0: 0). */
int	ui_tl_col(uint64_t t, uint64_t span, int w);
/*
 * The bar of an apply starting at start and lasting ns: from the cell of
 * its start to the cell its end falls in, end excluded when the end is
 * on a cell's left edge (ceil(end x w / span) - x cells), and at least one
 * cell (a bar that short is still seen), clipped to the axis.
 */
struct ui_tl_bar ui_tl_bar(uint64_t start, uint64_t ns, uint64_t span,
	    int w);
/* The k longest of ns[0..n) (ties: the earlier first) into top[0..k),
 * longest first; returns how many (min(k, n)). */
int	ui_tl_offenders(const uint64_t *ns, int n, int *top, int k);

/*
 * The packed layout: item i takes the cells [x[i], x[i] + ext[i]) of a
 * lane (its bar and, when the bar is too short to hold it, its label
 * after it); items go, in order of x (ties: the earlier first), to the
 * first lane where they start at least gap cells after the last item put
 * there ends.  So items that share no cell (applies that do not overlap
 * in time, nor on the screen) share lanes, and as few lanes are used as
 * the most items overlapping at one cell need (first fit in order of
 * start is optimal for intervals).  lane[i] gets item i's lane; returns
 * the number of lanes (0 for n 0).
 */
int	ui_tl_pack(const int *x, const int *ext, int n, int gap, int *lane);

#endif
