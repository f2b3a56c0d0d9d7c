/*
 * keys.c: the key-binding table and its lookup (see keys.h).  Rows that
 * apply only in some views come before the general rows for the same key
 * (space toggles a rewriter in the Rewrites view and pauses elsewhere).
 */
#include "config.h"

#include "keys.h"

#include "provide-curses.h"

#define K(c, lbl, w, a, s, h) \
	{.ch = (c), .label = (lbl), .where = (w), .action = (a), \
	    .section = (s), .help = (h)}
#define ENTER_HELP "drill down: Class -> its ops -> their applies -> " \
	"details; details: an input -> the apply producing it; Diff: a " \
	"group row's members, shown or folded"

#define KC(c, lbl, w, a, s, h) \
	{.code = (c), .label = (lbl), .where = (w), .action = (a), \
	    .section = (s), .help = (h)}

const char *const ui_key_sections[UI_KS__COUNT] = {
	[UI_KS_VIEWS] = "Views",
	[UI_KS_MOVE] = "Moving",
	[UI_KS_TABLE] = "Tables: sorting, searching, filtering",
	[UI_KS_RUN] = "The runtime",
	[UI_KS_REWRITE] = "Rewrites",
};

const struct ui_key ui_keys[] = {
	K('1', "1", UI_K_ANY, UI_A_VIEW_CLASS, UI_KS_VIEWS,
	    "Class view: time per op class"),
	K('2', "2", UI_K_ANY, UI_A_VIEW_OPS, UI_KS_VIEWS,
	    "Ops view: time per op (with its parameters)"),
	K('3', "3", UI_K_ANY, UI_A_VIEW_APPLY, UI_KS_VIEWS,
	    "Apply view: time per apply node"),
	K('4', "4", UI_K_ANY, UI_A_VIEW_MEMORY, UI_KS_VIEWS,
	    "Memory view: peak memory, output bytes per apply"),
	K('5', "5", UI_K_ANY, UI_A_VIEW_REWRITES, UI_KS_VIEWS,
	    "Rewrites view: the rewriters and the flags in effect"),
	K('6', "6", UI_K_ANY, UI_A_VIEW_DIFF, UI_KS_VIEWS,
	    "Diff view: baseline -> current, per class, op or apply"),
	K('7', "7", UI_K_ANY, UI_A_VIEW_SUMMARY, UI_KS_VIEWS,
	    "Global summary: calls, VM and thunk time, compile times"),
	K('8', "8", UI_K_ANY, UI_A_VIEW_TIMELINE, UI_KS_VIEWS,
	    "Timeline view: one call drawn along time, a lane per apply, "
	    "and the live bytes under it"),
	K('M', "M", UI_K_TIMELINE, UI_A_TL_MEDIAN, UI_KS_VIEWS,
	    "Timeline: the median call (of the last 15 timed) or the last"),
	K('P', "P", UI_K_TIMELINE, UI_A_TL_PACKED, UI_KS_VIEWS,
	    "Timeline: packed (bars that do not overlap share a lane) or "
	    "a lane per apply"),
	K('\t', "Tab", UI_K_ANY, UI_A_VIEW_NEXT, UI_KS_VIEWS,
	    "next view"),
	KC(KEY_BTAB, "S-Tab", UI_K_ANY, UI_A_VIEW_PREV, UI_KS_VIEWS,
	    "previous view"),
	K('F', "F", UI_K_ANY, UI_A_FN_NEXT, UI_KS_VIEWS,
	    "next function (then all functions summed)"),
	K(']', "]", UI_K_ANY, UI_A_FN_NEXT, UI_KS_VIEWS,
	    "next function (then all functions summed)"),
	KC(KEY_F(8), "F8", UI_K_ANY, UI_A_FN_NEXT, UI_KS_VIEWS,
	    "next function (then all functions summed)"),
	K('[', "[", UI_K_ANY, UI_A_FN_PREV, UI_KS_VIEWS,
	    "previous function"),
	K('\r', "Enter", UI_K_ANY, UI_A_ENTER, UI_KS_VIEWS, ENTER_HELP),
	K('\n', "Enter", UI_K_ANY, UI_A_ENTER, UI_KS_VIEWS, ENTER_HELP),
	KC(KEY_ENTER, "Enter", UI_K_ANY, UI_A_ENTER, UI_KS_VIEWS, ENTER_HELP),
	K(27, "Esc", UI_K_ANY, UI_A_BACK, UI_KS_VIEWS,
	    "go back (or clear the filter)"),
	KC(KEY_BACKSPACE, "Backspace", UI_K_ANY, UI_A_BACK, UI_KS_VIEWS,
	    "go back (or clear the filter)"),
	K(127, "Backspace", UI_K_ANY, UI_A_BACK, UI_KS_VIEWS,
	    "go back (or clear the filter)"),
	K(8, "Backspace", UI_K_ANY, UI_A_BACK, UI_KS_VIEWS,
	    "go back (or clear the filter)"),
	K('?', "?", UI_K_ANY, UI_A_HELP, UI_KS_VIEWS, "this help"),
	K('h', "h", UI_K_ANY, UI_A_HELP, UI_KS_VIEWS, "this help"),
	KC(KEY_F(1), "F1", UI_K_ANY, UI_A_HELP, UI_KS_VIEWS, "this help"),
	K(12, "C-l", UI_K_ANY, UI_A_REDRAW, UI_KS_VIEWS,
	    "redraw the screen"),
	K('q', "q", UI_K_ANY, UI_A_BACK_OR_QUIT, UI_KS_VIEWS,
	    "quit (from details or help: go back)"),
	KC(KEY_F(10), "F10", UI_K_ANY, UI_A_QUIT, UI_KS_VIEWS, "quit"),

	KC(KEY_UP, "Up", UI_K_ANY, UI_A_UP, UI_KS_MOVE, "previous row"),
	K('k', "k", UI_K_ANY, UI_A_UP, UI_KS_MOVE, "previous row"),
	KC(KEY_DOWN, "Down", UI_K_ANY, UI_A_DOWN, UI_KS_MOVE, "next row"),
	K('j', "j", UI_K_ANY, UI_A_DOWN, UI_KS_MOVE, "next row"),
	KC(KEY_PPAGE, "PgUp", UI_K_ANY, UI_A_PGUP, UI_KS_MOVE,
	    "previous page"),
	K(2, "C-b", UI_K_ANY, UI_A_PGUP, UI_KS_MOVE, "previous page"),
	KC(KEY_NPAGE, "PgDn", UI_K_ANY, UI_A_PGDN, UI_KS_MOVE, "next page"),
	K(6, "C-f", UI_K_ANY, UI_A_PGDN, UI_KS_MOVE, "next page"),
	KC(KEY_HOME, "Home", UI_K_ANY, UI_A_HOME, UI_KS_MOVE, "first row"),
	KC(KEY_END, "End", UI_K_ANY, UI_A_END, UI_KS_MOVE, "last row"),
	KC(KEY_LEFT, "Left", UI_K_TABLE, UI_A_LEFT, UI_KS_MOVE,
	    "scroll the name column left"),
	KC(KEY_RIGHT, "Right", UI_K_TABLE, UI_A_RIGHT, UI_KS_MOVE,
	    "scroll the name column right (long names)"),
	K('v', "v", UI_K_TABLE, UI_A_FULL_NAME, UI_KS_MOVE,
	    "show the selected row's full name"),

	KC(KEY_F(6), "F6", UI_K_TABLE, UI_A_SORT_NEXT, UI_KS_TABLE,
	    "sort by the next column"),
	K('>', ">", UI_K_TABLE, UI_A_SORT_NEXT, UI_KS_TABLE,
	    "sort by the next column"),
	K('.', ".", UI_K_TABLE, UI_A_SORT_NEXT, UI_KS_TABLE,
	    "sort by the next column"),
	K('<', "<", UI_K_TABLE, UI_A_SORT_PREV, UI_KS_TABLE,
	    "sort by the previous column"),
	K(',', ",", UI_K_TABLE, UI_A_SORT_PREV, UI_KS_TABLE,
	    "sort by the previous column"),
	K('I', "I", UI_K_TABLE, UI_A_SORT_INVERT, UI_KS_TABLE,
	    "invert the sort order"),
	KC(KEY_F(7), "F7", UI_K_TABLE, UI_A_SORT_INVERT, UI_KS_TABLE,
	    "invert the sort order"),
	K('L', "L", UI_K_TABLE, UI_A_LAZY, UI_KS_TABLE,
	    "lazy order: keep rows in place between refreshes (new rows "
	    "at the end) until you sort again"),
	K('/', "/", UI_K_TABLE | UI_K_TEXT, UI_A_SEARCH, UI_KS_TABLE,
	    "search names (incremental; Enter keeps, Esc cancels)"),
	KC(KEY_F(3), "F3", UI_K_TABLE | UI_K_TEXT, UI_A_SEARCH, UI_KS_TABLE,
	    "search names (incremental; Enter keeps, Esc cancels)"),
	K('n', "n", UI_K_TABLE | UI_K_TEXT, UI_A_SEARCH_NEXT, UI_KS_TABLE,
	    "next match"),
	K('N', "N", UI_K_TABLE | UI_K_TEXT, UI_A_SEARCH_PREV, UI_KS_TABLE,
	    "previous match"),
	K('\\', "\\", UI_K_TABLE, UI_A_FILTER, UI_KS_TABLE,
	    "filter rows by a name substring (Esc clears)"),
	KC(KEY_F(4), "F4", UI_K_TABLE, UI_A_FILTER, UI_KS_TABLE,
	    "filter rows by a name substring (Esc clears)"),
	K('s', "s", UI_K_OPS, UI_A_SIGNATURE, UI_KS_TABLE,
	    "Ops view: split ops by input signature (dtypes, shapes)"),
	K('d', "d", UI_K_DIFF, UI_A_DIFF_LEVEL, UI_KS_TABLE,
	    "Diff view: compare classes, ops or applies"),

	K('t', "t", UI_K_REWRITES, UI_A_RW_TOGGLE, UI_KS_REWRITE,
	    "Rewrites view: switch the selected rewriter on or off (or "
	    "Enter)"),
	K('f', "f", UI_K_ANY, UI_A_RW_FUSION, UI_KS_REWRITE,
	    "switch elementwise fusion on or off"),
	K('i', "i", UI_K_ANY, UI_A_RW_INPLACE, UI_KS_REWRITE,
	    "switch inplace rewrites on or off"),
	K('g', "g", UI_K_ANY, UI_A_RW_GEMM, UI_KS_REWRITE,
	    "switch the gemm rewrites on or off"),
	K('c', "c", UI_K_ANY, UI_A_RW_CONSTFOLD, UI_KS_REWRITE,
	    "switch constant folding on or off"),
	K('m', "m", UI_K_ANY, UI_A_RW_MERGE, UI_KS_REWRITE,
	    "switch the merge rewrite on or off"),
	K('b', "b", UI_K_ANY, UI_A_RW_CNN, UI_KS_REWRITE,
	    "switch the CNN rewrites (batch norm folding, conv + bias + "
	    "Relu/Clip, LayerNorm) on or off"),
	K('r', "r", UI_K_ANY, UI_A_RECOMPILE, UI_KS_REWRITE,
	    "recompile with the edited rewrites and re-run; the old profile "
	    "becomes the Diff baseline"),
	KC(KEY_F(9), "F9", UI_K_ANY, UI_A_RECOMPILE, UI_KS_REWRITE,
	    "recompile with the edited rewrites and re-run; the old profile "
	    "becomes the Diff baseline"),

	K('p', "p", UI_K_ANY, UI_A_PAUSE, UI_KS_RUN,
	    "pause or resume the runtime"),
	K(' ', "Space", UI_K_ANY, UI_A_PAUSE, UI_KS_RUN,
	    "pause or resume the runtime"),
	K('Z', "Z", UI_K_ANY, UI_A_PAUSE, UI_KS_RUN,
	    "pause or resume the runtime"),
	KC(KEY_F(5), "F5", UI_K_ANY, UI_A_PAUSE, UI_KS_RUN,
	    "pause or resume the runtime"),
	K('R', "R", UI_K_ANY, UI_A_RESET, UI_KS_RUN,
	    "reset the statistics"),
	K('w', "w", UI_K_ANY, UI_A_WRITE, UI_KS_RUN,
	    "write a capture of the profile shown (asks for the file)"),
};

const size_t ui_keys_count = sizeof(ui_keys) / sizeof(ui_keys[0]);

enum ui_action
ui_keys_lookup(int key, bool code, unsigned ctx)
{
	for (size_t i = 0; i < ui_keys_count; i++) {
		const struct ui_key *k = &ui_keys[i];

		if (code ? k->code != key || k->code == 0 :
		    k->ch != key || k->ch == 0)
			continue;
		if (k->where != UI_K_ANY && (k->where & ctx) == 0)
			continue;
		return (k->action);
	}
	return (UI_A_NONE);
}

const char *
ui_keys_label(enum ui_action a)
{
	for (size_t i = 0; i < ui_keys_count; i++)
		if (ui_keys[i].action == a)
			return (ui_keys[i].label);
	return ("?");
}
