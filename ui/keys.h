/*
 * keys.h: the one key-binding table.  Every key the interface answers to
 * is a row here: the key, where it applies, the action it triggers, and
 * the help text the help screen (view-help.c) and doc/tui.md are made
 * from.  Handlers never look at raw keys, only at actions.
 */
#ifndef GPTOP_UI_KEYS_H
#define GPTOP_UI_KEYS_H

#include <stdbool.h>
#include <stddef.h>

enum ui_action {
	UI_A_NONE,
	/* views */
	UI_A_VIEW_CLASS,
	UI_A_VIEW_OPS,
	UI_A_VIEW_APPLY,
	UI_A_VIEW_MEMORY,
	UI_A_VIEW_REWRITES,
	UI_A_VIEW_DIFF,
	UI_A_VIEW_SUMMARY,
	UI_A_VIEW_TIMELINE,
	UI_A_VIEW_NEXT,
	UI_A_VIEW_PREV,
	UI_A_FN_NEXT,
	UI_A_FN_PREV,
	UI_A_ENTER,
	UI_A_BACK,
	UI_A_BACK_OR_QUIT,
	UI_A_HELP,
	UI_A_REDRAW,
	UI_A_QUIT,
	/* moving */
	UI_A_UP,
	UI_A_DOWN,
	UI_A_PGUP,
	UI_A_PGDN,
	UI_A_HOME,
	UI_A_END,
	UI_A_LEFT,		/* scroll the name column */
	UI_A_RIGHT,
	UI_A_FULL_NAME,		/* the selected row's whole name */
	/* tables */
	UI_A_SORT_NEXT,
	UI_A_SORT_PREV,
	UI_A_SORT_INVERT,
	UI_A_LAZY,
	UI_A_SEARCH,
	UI_A_SEARCH_NEXT,
	UI_A_SEARCH_PREV,
	UI_A_FILTER,
	UI_A_SIGNATURE,
	UI_A_DIFF_LEVEL,
	UI_A_TL_MEDIAN,		/* Timeline: last or median call */
	UI_A_TL_PACKED,		/* Timeline: a lane per apply or packed */
	/* the runtime */
	UI_A_PAUSE,
	UI_A_RESET,
	UI_A_WRITE,
	/* rewrites */
	UI_A_RW_FUSION,
	UI_A_RW_INPLACE,
	UI_A_RW_GEMM,
	UI_A_RW_CONSTFOLD,
	UI_A_RW_MERGE,
	UI_A_RW_CNN,
	UI_A_RW_TOGGLE,
	UI_A_RECOMPILE,
	UI_A__COUNT
};

/* Where a binding applies (a view declares the contexts it offers). */
#define UI_K_ANY	0u		/* everywhere */
#define UI_K_TABLE	(1u << 0)	/* views showing a table */
#define UI_K_TEXT	(1u << 1)	/* scrolling text (details, help) */
#define UI_K_REWRITES	(1u << 2)	/* the Rewrites view */
#define UI_K_DIFF	(1u << 3)	/* the Diff view */
#define UI_K_OPS	(1u << 4)	/* the Ops view */
#define UI_K_TIMELINE	(1u << 5)	/* the Timeline view */

enum ui_key_section {
	UI_KS_VIEWS,
	UI_KS_MOVE,
	UI_KS_TABLE,
	UI_KS_RUN,
	UI_KS_REWRITE,
	UI_KS__COUNT
};

struct ui_key {
	int			 ch;	/* a character, or 0 */
	int			 code;	/* a curses KEY_ code, or 0 */
	const char		*label;	/* as the help screen shows it */
	unsigned		 where;	/* UI_K_*; UI_K_ANY: everywhere */
	enum ui_action		 action;
	enum ui_key_section	 section;
	const char		*help;
};

extern const struct ui_key	ui_keys[];
extern const size_t		ui_keys_count;
extern const char *const	ui_key_sections[UI_KS__COUNT];

/* The action of a key (code: it is a KEY_ code, not a character) in a
 * view offering the contexts ctx; the first matching row wins. */
enum ui_action	ui_keys_lookup(int key, bool code, unsigned ctx);
/* The first label bound to an action ("r"), for messages. */
const char	*ui_keys_label(enum ui_action a);

#endif
