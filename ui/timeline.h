/*
 * timeline.h: the arithmetic of the Timeline view (view-timeline.c),
 * apart from curses so a unit test checks it: where a bar starts and how
 * long it is for an apply's start and time on an axis of w cells
 * covering span ns, which column a time falls in, and which applies are
 * the call's offenders (its longest, labelled).
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

#endif
