/*
 * tui.h: the interactive frontend (ncursesw): live, sortable Class / Ops /
 * Apply tables, details, Memory, Rewrites and Diff views over a session
 * whose worker thread runs the graph.
 *
 * Timing mode for benchmarks: with GPTOP_TUI_BENCH=FILE in the
 * environment, once the first calls are in, the interface times its own
 * work (snapshot, rebuild, sort by every column, draw of every view), then
 * stays idle for GPTOP_TUI_BENCH_IDLE seconds (default 30) measuring its
 * own thread's CPU use and the runtime's rounds/s, appends the figures to
 * FILE as "name value" lines, and quits.
 */
#ifndef GPTOP_UI_TUI_H
#define GPTOP_UI_TUI_H

#include <stdbool.h>
#include <stdint.h>

#include "session/session.h"

struct ui_tui_opts {
	uint64_t	 limit;		/* rounds to run, 0: until quit */
	/* with no session: the profile shown (a loaded capture; nothing
	 * runs, pause, reset and recompile say so) */
	const struct gp_profile *capture;
	/* the Diff view's baseline A, opened first (a recompile replaces
	 * it), or NULL */
	const struct gp_profile *baseline;
	int		 delay_tenths;	/* refresh interval */
	bool		 by_signature;	/* Ops rows by input signature */
	bool		 no_mouse;	/* leave the mouse to the terminal */
};

/* Run the interface over session s (NULL: over o->capture, borrowed)
 * until the user quits; returns the exit status (128 + the signal when a
 * signal ended it). */
int	ui_tui_run(struct gp_session *s, const struct ui_tui_opts *o);

#endif
