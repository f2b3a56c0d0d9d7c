/*
 * crt.h: the terminal under the interface: curses start-up and teardown,
 * the color roles every drawing call names instead of raw colors, the
 * signals that end the program (turned into a flag the main loop polls),
 * and the restore paths (normal exit, atexit, a crash) that all leave the
 * terminal as it was found.
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

/* The signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) that asked the program to
 * end, or 0. */
int	ui_crt_quit_signal(void);
/* Block those signals (and SIGWINCH, SIGTSTP) in the calling thread, so a
 * thread started now never receives them; ui_crt_unblock undoes it. */
void	ui_crt_block(void);
void	ui_crt_unblock(void);

/* Catch the crash signals (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) for
 * the rest of the run, in every mode: on one, give the terminal back if
 * the interface holds it, write "gptop: crashed: SIGNAL [in the runtime
 * thread], WHAT" to stderr, and die of the same signal through the handler
 * that was there before (the default, or a sanitizer's).  what (copied)
 * says what was going on, e.g. "running FILE"; NULL for nothing.  Called
 * again, it only changes what.  ui_crt_init calls it too. */
void	ui_crt_crash_init(const char *what);

/* Milliseconds on the monotonic clock. */
uint64_t ui_crt_now_ms(void);

#endif
