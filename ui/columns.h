/*
 * columns.h: every column a table can show, in one table indexed by
 * enum ui_col (title, width, priority on narrow screens, sort key, format),
 * and the column sets of the views: which columns, in which order, the
 * default sort, and how a row is named and identified.  The row types of
 * the tables that are not plain rollup rows are declared here too.
 *
 * Rollup tables (Class, Ops, Apply) show struct gp_prof_row as
 * gp_prof_rollup() computes it, with the columns of the batch report.
 */
#ifndef GPTOP_UI_COLUMNS_H
#define GPTOP_UI_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/diff.h"
#include "prof/profile.h"

#define UI_COLF_LEFT	(1u << 0)	/* left-aligned text */
#define UI_COLF_ASC	(1u << 1)	/* sorts ascending first (names) */
#define UI_COLF_CUM	(1u << 2)	/* running sum of num() in row order */
#define UI_COLF_BAR	(1u << 3)	/* a bar filled to num() / 100 */
#define UI_COLF_FLEX	(1u << 4)	/* takes the width left (names) */
#define UI_COLF_NOSORT	(1u << 5)	/* not a sort key */

/* A column: its title, width and place on narrow screens, and how a row
 * gives its sort key, its text and its role (list.h draws and sorts by it). */
struct ui_column {
	const char	*title;
	const char	*help;		/* one line, for the help screen */
	int		 width;		/* cells; FLEX: the least width */
	int		 prio;		/* narrow screens drop low prio first */
	unsigned	 flags;		/* UI_COLF_* */
	double		(*num)(const void *row);	/* numeric sort key */
	const char	*(*str)(const void *row);	/* text sort key */
	void		(*fmt)(const void *row, char *buf, size_t n);
	int		(*role)(const void *row);	/* a role, or -1 */
};

enum ui_col {
	/* rollup rows: struct gp_prof_row */
	UI_COL_PCT,
	UI_COL_SUM,
	UI_COL_SHARE,
	UI_COL_TIME,
	UI_COL_PER_CALL,
	UI_COL_MEDIAN,
	UI_COL_P95,
	UI_COL_TYPE,
	UI_COL_CALLS,
	UI_COL_NAPPLY,
	UI_COL_ID,
	UI_COL_MFLOPS,
	UI_COL_GFLOPS,
	UI_COL_CLASS,
	UI_COL_OP,
	UI_COL_APPLY,
	UI_COL_FROM,
	/* memory rows: struct ui_mem_row */
	UI_COL_MEM_BYTES,
	UI_COL_MEM_KIND,
	UI_COL_MEM_NOUT,
	UI_COL_MEM_ALLOC,
	UI_COL_MEM_WORK,
	UI_COL_MEM_DURING,
	UI_COL_MEM_AFTER,
	UI_COL_MEM_OUTPUTS,
	UI_COL_MEM_ID,
	UI_COL_MEM_APPLY,
	/* diff rows: struct gp_diff_row (diff.h) */
	UI_COL_DIFF_STATUS,
	UI_COL_DIFF_A,
	UI_COL_DIFF_B,
	UI_COL_DIFF_DELTA,
	UI_COL_DIFF_RATIO,
	UI_COL_DIFF_CALLS_A,
	UI_COL_DIFF_CALLS_B,
	UI_COL_DIFF_NAME,
	/* rewriter rows: struct ui_rw_row */
	UI_COL_RW_STATE,
	UI_COL_RW_KEY,
	UI_COL_RW_NAME,
	UI_COL_RW_NEXT,
	UI_COL_RW_PHASE,
	UI_COL_RW_TIME,
	UI_COL_RW_APPLIED,
	UI_COL_RW_TRIED,
	UI_COL_RW_NODES,
	UI_COL_RW_TAGS,
	UI_COL_RW_HELP,
	UI_COL__COUNT
};

extern const struct ui_column ui_columns[UI_COL__COUNT];

struct ui_colset {
	const char		*name;		/* "Apply" */
	const enum ui_col	*cols;
	int			 n;
	enum ui_col		 sort;		/* the default sort column */
	const char		*(*name_of)(const void *row);
	uint64_t		(*ident)(const void *row);
};

extern const struct ui_colset ui_colset_class;
extern const struct ui_colset ui_colset_op;
extern const struct ui_colset ui_colset_apply;
extern const struct ui_colset ui_colset_memory;
extern const struct ui_colset ui_colset_diff;
extern const struct ui_colset ui_colset_rewrites;

/* A Memory row: one apply and the bytes of its outputs. */
struct ui_mem_row {
	const struct gp_prof_apply	*a;
	int				 fn;
	uint64_t			 bytes;	/* its outputs, summed */
	char				 kinds[12];	/* c/v/i per output */
	/* from the memory profile (memprof.h), when there is one */
	bool				 predicted;
	uint64_t			 alloc;	/* outputs the VM allocates */
	uint64_t			 work;	/* its kernel's work space */
	/* intermediates during */
	uint64_t			 during;
	uint64_t			 after;	/* and after it */
};

/*
 * A Diff row is a struct gp_diff_row (diff.h) of the table
 * gp_diff_compute() made; gp_diff_sort column of a Diff column (the order
 * the view hands the list, so ties fall as in the batch report).
 */
enum gp_diff_col ui_colset_diff_col(enum ui_col c);

/* A Rewrites row: one rewriter (or a name or tag of the flags). */
struct ui_rw_row {
	const char	*name;
	const char	*key;		/* its toggle key, or "" */
	const char	*help;
	const char	*phase;		/* "" when unknown */
	const char	*tags;
	bool		 on;		/* in the edited flags */
	bool		 running_on;	/* in the running program */
	/* the profile's rewriter table has it */
	bool		 has_stats;
	double		 time_ns;	/* in the last rewrite */
	int		 applied, tried;
	int		 nodes_before, nodes_after;
};

/* Find a column's index in a set by its title, or -1. */
int	ui_colset_find(const struct ui_colset *set, enum ui_col c);

#endif
