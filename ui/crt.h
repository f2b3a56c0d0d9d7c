/*
 * crt.h: the terminal under the interface: curses start-up and teardown,
 * the color roles every drawing call names instead of raw colors,
 * suspending on Ctrl-Z, and the restore paths (normal exit, and a raw one
 * for sig.c's signal handlers) that leave the terminal as it was found.
 */
#ifndef GPTOP_UI_CRT_H
#define GPTOP_UI_CRT_H

#include <stdbool.h>
#include <stdint.h>

#include "provide-curses.h"

/* What a piece of text is; crt.c maps each role to colors and attributes
 * (attributes only under NO_COLOR or on a monochrome terminal). */
enum ui_role {
	UI_ROLE_NORMAL,
	UI_ROLE_TITLE,		/* program and graph name */
	UI_ROLE_LABEL,		/* header labels ("calls") */
	UI_ROLE_VALUE,		/* header figures */
	UI_ROLE_TAB,		/* a view's tab */
	UI_ROLE_TAB_ACTIVE,	/* the tab of the view shown */
	UI_ROLE_COLHEAD,	/* table header */
	UI_ROLE_COLHEAD_SORT,	/* the column the table is sorted by */
	UI_ROLE_SELECTED,	/* the selected row */
	UI_ROLE_BAR,		/* share bars, sparkline, histogram */
	UI_ROLE_DIM,		/* secondary text */
	UI_ROLE_FKEY,		/* "F1" in the function bar */
	UI_ROLE_FLABEL,		/* "Help" in the function bar */
	UI_ROLE_MSG,		/* a transient message */
	UI_ROLE_ERROR,		/* errors */
	UI_ROLE_WORSE,		/* diff: slower, added */
	UI_ROLE_BETTER,		/* diff: faster, removed */
	UI_ROLE_SECTION,	/* headings inside text views */
	UI_ROLE__COUNT
};

/* Start curses on the terminal (stdin/stdout); returns -1 if it cannot.
 * mouse: report clicks and the wheel. */
int	ui_crt_init(bool mouse);
/* Leave curses and restore the terminal; safe to call more than once. */
void	ui_crt_done(void);
/* Whether the locale's character set is UTF-8 (block and braille glyphs
 * are drawn only then).  Valid after ui_crt_init. */
bool	ui_crt_utf8(void);
bool	ui_crt_color(void);
/* The attributes (and color pair) of a role. */
attr_t	ui_crt_attr(enum ui_role r);

/* Block the signals the interface's loop takes (the quit signals,
 * SIGWINCH, SIGTSTP, SIGCONT) in the calling thread, so a thread started
 * now never receives them; ui_crt_unblock undoes it. */
void	ui_crt_block(void);
void	ui_crt_unblock(void);

/* Give the terminal back from a signal handler or another thread
 * (async-signal-safe: write(2) of the exit sequences prepared by
 * ui_crt_init, tcsetattr of the modes it found), if curses holds it;
 * returns whether it did.  Curses is left as it is, and what it writes
 * from then on goes to /dev/null: for endings only. */
bool	ui_crt_restore_raw(void);

/* Ctrl-Z (SIGTSTP) asked to suspend; ui_crt_suspend then leaves curses,
 * stops the process and, once it is continued, takes the terminal again
 * (the caller redraws).  Main loop only. */
bool	ui_crt_suspend_pending(void);
void	ui_crt_suspend(void);

/* Milliseconds on the monotonic clock. */
uint64_t ui_crt_now_ms(void);

#endif
