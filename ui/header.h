/*
 * header.h: the header lines above every view (htop's meters): the graph,
 * the function shown and the runtime's state; calls and calls/s; the time
 * per call (last and median), VM and thunk shares; compile times, the
 * measured peak memory and a sparkline of recent calls; the flags and
 * rewrites in effect.  Every figure comes from the snapshot and the
 * session status.
 */
#ifndef GPTOP_UI_HEADER_H
#define GPTOP_UI_HEADER_H

#include "view.h"

#define UI_HEADER_LINES 4

/* Draw the header at lines y .. y+UI_HEADER_LINES-1; state is the
 * runtime's state word ("running"). */
void	ui_header_draw(const struct ui_ctx *c, int y, int w, const char *state);

#endif
