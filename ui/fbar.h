/*
 * fbar.h: the function-key bar on the bottom line ("F1Help F3Search ..."),
 * as in htop.  Drawing records where each item landed, so a mouse click
 * on the bar becomes the item's key.
 */
#ifndef GPTOP_UI_FBAR_H
#define GPTOP_UI_FBAR_H

#include <stdbool.h>

struct ui_fbar_item {
	const char	*key;	/* "F1" */
	const char	*label;	/* "Help" */
	int		 code;	/* the curses KEY_ code it stands for */
};

/* The default bar; paused selects "Resume" for F5. */
void	ui_fbar_draw(int y, int w, bool paused);
/* A line in place of the bar: a prompt or a message (role: crt.h). */
void	ui_fbar_draw_text(int y, int w, const char *text, int role);
/* The key code at column x of the last bar drawn, or 0. */
int	ui_fbar_click(int x);

#endif
