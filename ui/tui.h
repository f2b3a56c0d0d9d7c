/*
 * tui.h: the interactive frontend (ncursesw): live, sortable Class / Ops /
 * Apply tables, details, Memory, Rewrites and Diff views over a session
 * whose worker thread runs the graph.
 */
#ifndef GPTOP_UI_TUI_H
#define GPTOP_UI_TUI_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"

struct ui_tui_opts {
	uint64_t	 limit;		/* rounds to run, 0: until quit */
	int		 delay_tenths;	/* refresh interval */
	bool		 by_signature;
};

/* Run the interface until the user quits; returns the exit status. */
int	ui_tui_run(struct gp_session *s, const struct ui_tui_opts *o);

#endif
