/*
 * column.h: the columns of a capture (doc/capture-format.md: the memory
 * profile's per-apply figures, the Timeline's starts and times): a run of
 * integers written as one JSON string of space-separated numbers, the
 * first value then each difference from the one before, "D*N" standing
 * for a run of N differences D.  One writer and one decoder for both
 * (memjson.c, calljson.c); each reader reports a fault through its own
 * path (gp_col_fault_at, gp_col_fault_text).
 *
 *	struct gp_col c = {0};
 *
 *	for (i = 0; i < n; i++)
 *		gp_col_put(&c, v[i]);
 *	json_object_set_new(o, "live", gp_col_json(&c));
 *
 *	if (gp_col_decode(s, len, n, 0, hi, out, &e) < 0) {
 *		if (gp_col_fault_at(&e))
 *			path_index(e.at);
 *		gp_col_fault_text(&e, n, "one per apply", NULL, msg, sizeof(msg));
 *	}
 */
#ifndef GPTOP_SRC_CAPTURE_COLUMN_H
#define GPTOP_SRC_CAPTURE_COLUMN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* Values are clamped to [-GP_COL_MAX, GP_COL_MAX] on writing, so every
 * difference fits. */
#define GP_COL_MAX	(INT64_MAX / 2)

/* A column being written: its text, the runs of equal differences, one
 * pending. */
struct gp_col {
	struct gp_buf	 b;
	int64_t		 prev, run_d;
	uint64_t	 run_n;
};

void	 gp_col_put(struct gp_col *c, int64_t v);
/* An unsigned value (clamped to GP_COL_MAX). */
void	 gp_col_put_u(struct gp_col *c, uint64_t v);
/* The column as a JSON string; c is emptied. */
json_t	*gp_col_json(struct gp_col *c);

/* What is wrong with a column. */
enum gp_col_fault {
	GP_COL_SYNTAX,		/* entry at: not D or D*N */
	GP_COL_MORE,		/* more than n entries */
	GP_COL_PAST,		/* entry at: a run of value entries past n */
	GP_COL_FEWER,		/* at entries, fewer than n */
	GP_COL_OVERFLOW,	/* entry at: the sum leaves 64 bits */
	GP_COL_RANGE		/* entry at: value outside [lo, hi] */
};

struct gp_col_error {
	enum gp_col_fault	 fault;
	size_t			 at;	/* the entry (GP_COL_FEWER: the count) */
	int64_t			 value;	/* GP_COL_PAST: the run's length;
					 * GP_COL_RANGE: the value */
	int64_t			 lo, hi;	/* GP_COL_RANGE: the bounds */
};

/* Decode the column s[0..len) into out[0..n): exactly n values, each in
 * [lo, hi].  Returns 0, or -1 with *e. */
int	gp_col_decode(const char *s, size_t len, size_t n, int64_t lo,
	    int64_t hi, int64_t *out, struct gp_col_error *e);
/* Does the fault lie at an entry (e->at: the reader's path shows it)? */
bool	gp_col_fault_at(const struct gp_col_error *e);
/* The message of a fault of a column of n entries, per saying what an
 * entry is ("one per apply"); hi_what names the upper bound for a value
 * above it ("the call's span": "beyond the call's span (40 ns)"), NULL
 * for "7 is out of range (0 to 5)". */
void	gp_col_fault_text(const struct gp_col_error *e, size_t n,
	    const char *per, const char *hi_what, char *buf, size_t cap);

#endif
