/*
 * test-timeline.c: the Timeline view's arithmetic (ui/timeline.c) against
 * values computed by hand: the column of a time (floor(t x w / span),
 * the last column for the end), a bar's first cell and length (from the
 * cell of its start to ceil(end x w / span), at least one cell, clipped
 * to the axis), products past 64 bits, the offenders (longest first,
 * ties by schedule position), and the packed layout's lanes (drawn by
 * hand on squared paper below each case).
 */
#include "config.h"

#include <stdint.h>

#include "../tap.h"
#include "timeline.h"

struct bar_case {
	uint64_t	 start, ns, span;
	int		 w;
	int		 x, len;	/* by hand */
	const char	*why;
};

static const struct bar_case bars[] = {
	/* 250 x 100 / 1000 = 25; ceil(750 x 100 / 1000) = 75: 50 cells */
	{.start = 250, .ns = 500, .span = 1000, .w = 100, .x = 25, .len = 50,
	    .why = "a bar in the middle"},
	/* the whole call: 0 to ceil(1000 x 88 / 1000) = 88 */
	{.start = 0, .ns = 1000, .span = 1000, .w = 88, .x = 0, .len = 88,
	    .why = "the whole axis"},
	/* floor(1.23) = 1, ceil(1.24) = 2 */
	{.start = 123, .ns = 1, .span = 1000, .w = 10, .x = 1, .len = 1,
	    .why = "a sliver is one cell"},
	/* floor(1.0) = 1, ceil(1.0) = 1: 0 cells, shown as 1 */
	{.start = 100, .ns = 0, .span = 1000, .w = 10, .x = 1, .len = 1,
	    .why = "no time is still one cell"},
	/* floor(0.95) = 0, ceil(1.05) = 2: a bar across a cell edge */
	{.start = 95, .ns = 10, .span = 1000, .w = 10, .x = 0, .len = 2,
	    .why = "across a cell edge: both cells"},
	/* floor(9.9) = 9, ceil(10.1) = 11 clipped to 10 */
	{.start = 990, .ns = 20, .span = 1000, .w = 10, .x = 9, .len = 1,
	    .why = "past the end: clipped"},
	/* the chain's tanh, 120 columns (bw 88): start 2.01ms, 4.26ms of
	 * 12.18ms: floor(2010000 x 88 / 12180000) = floor(14.52) = 14,
	 * ceil(6270000 x 88 / 12180000) = ceil(45.30) = 46 */
	{.start = 2010000, .ns = 4260000, .span = 12180000, .w = 88, .x = 14,
	    .len = 32, .why = "a millisecond apply on 88 cells"},
	/* 2^62 x 200 overflows 64 bits: 2^62 / 2^63 x 200 = 100, and
	 * (2^62 + 2^61) / 2^63 x 200 = 150 */
	{.start = 1ull << 62, .ns = 1ull << 61, .span = 1ull << 63, .w = 200,
	    .x = 100, .len = 50, .why = "products past 64 bits"},
	/* span 0 (a call of no time): all at the start, one cell */
	{.start = 0, .ns = 0, .span = 0, .w = 50, .x = 0, .len = 1,
	    .why = "a span of 0"},
};

int
main(void)
{
	uint64_t ns[] = {5, 9, 1, 9, 7};
	int top[8];

	/* columns: floor(t x w / span), at most w - 1 */
	is_int(ui_tl_col(0, 1000, 100), 0, "col: 0 is column 0");
	is_int(ui_tl_col(999, 1000, 100), 99, "col: 99.9 is column 99");
	is_int(ui_tl_col(505, 1000, 100), 50, "col: 50.5 is column 50");
	is_int(ui_tl_col(1000, 1000, 100), 99, "col: the end is the last");
	is_int(ui_tl_col(3000, 1000, 100), 99, "col: past the end: the last");
	is_int(ui_tl_col(7, 0, 100), 0, "col: span 0: column 0");
	for (size_t i = 0; i < sizeof(bars) / sizeof(bars[0]); i++) {
		const struct bar_case *c = &bars[i];
		struct ui_tl_bar b = ui_tl_bar(c->start, c->ns, c->span, c->w);

		is_int(b.x, c->x, "bar x: %s", c->why);
		is_int(b.len, c->len, "bar length: %s", c->why);
		ok(b.x + b.len <= c->w, "bar within the axis: %s", c->why);
	}
	/* offenders: 9 (1), 9 (3, later), 7 (4), 5 (0), 1 (2) */
	is_int(ui_tl_offenders(ns, 5, top, 3), 3, "offenders: 3 of 5");
	is_int(top[0], 1, "offender 1: the first 9");
	is_int(top[1], 3, "offender 2: the second 9 (tie: later)");
	is_int(top[2], 4, "offender 3: the 7");
	is_int(ui_tl_offenders(ns, 5, top, 8), 5, "offenders: all 5");
	is_int(top[3], 0, "offender 4: the 5");
	is_int(top[4], 2, "offender 5: the 1");
	is_int(ui_tl_offenders(ns, 0, top, 3), 0, "offenders: none of 0");
	is_int(ui_tl_offenders(ns, 5, top, 0), 0, "offenders: 0 asked");

	/*
	 * Packing, gap 1 (a blank cell between items of a lane).  Five
	 * applies one after another, cells:
	 *   0 [0,10)  1 [10,12)  2 [12,13)  3 [14,30)  4 [31,40)
	 * 0 -> lane 0 (ends 10); 1 starts at 10 < 10 + 1: lane 1 (ends 12);
	 * 2 at 12: lane 0 (10 + 1 <= 12, ends 13); 3 at 14: lane 0 (ends
	 * 30); 4 at 31: lane 0.  Two lanes: 1 alone in lane 1.
	 */
	{
		int x[] = {0, 10, 12, 14, 31}, ext[] = {10, 2, 1, 16, 9};
		int lane[5], want[] = {0, 1, 0, 0, 0};

		is_int(ui_tl_pack(x, ext, 5, 1, lane), 2,
		    "pack: a sequence in 2 lanes");
		for (int i = 0; i < 5; i++)
			is_int(lane[i], want[i], "pack: item %d's lane", i);
	}
	/*
	 * Three items overlapping at cell 5 need three lanes, however
	 * ordered: given as [4,8) [0,6) [5,7) and [9,12):
	 * by x: 1 (x 0) -> lane 0, ends 6; 0 (x 4) -> lane 1, ends 8;
	 * 2 (x 5) -> lane 2, ends 7; 3 (x 9): lane 0 (6 + 1 <= 9).
	 */
	{
		int x[] = {4, 0, 5, 9}, ext[] = {4, 6, 2, 3};
		int lane[4], want[] = {1, 0, 2, 0};

		is_int(ui_tl_pack(x, ext, 4, 1, lane), 3,
		    "pack: 3 overlapping need 3 lanes");
		for (int i = 0; i < 4; i++)
			is_int(lane[i], want[i], "pack: overlap, item %d", i);
	}
	/* gap 0: touching items share a lane; an extent of 0 counts 1 */
	{
		int x[] = {0, 3, 4}, ext[] = {3, 0, 2}, lane[3];

		is_int(ui_tl_pack(x, ext, 3, 0, lane), 1,
		    "pack: gap 0, touching items in one lane");
		is_int(ui_tl_pack(x, ext, 0, 0, lane), 0, "pack: none");
	}
	return (done_testing());
}
