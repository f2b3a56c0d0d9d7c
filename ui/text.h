/*
 * text.h: a scrolling page of attributed lines, for the views that show
 * text rather than a table (apply details, the global summary, help).
 */
#ifndef GPTOP_UI_TEXT_H
#define GPTOP_UI_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "keys.h"

struct ui_text_line {
	char	*s;
	int	 role;		/* enum ui_role */
};

struct ui_text {
	struct ui_text_line	*l;
	size_t			 n, cap;
	size_t			 top;
	int			 h;		/* lines of the last draw */
	long			 mark;		/* a highlighted line, or -1 */
};

void	ui_text_init(struct ui_text *t);
void	ui_text_done(struct ui_text *t);
/* Drop the lines; the scroll position stays (the page is refilled). */
void	ui_text_clear(struct ui_text *t);
void	ui_text_add(struct ui_text *t, int role, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* An empty line. */
void	ui_text_blank(struct ui_text *t);
void	ui_text_draw(struct ui_text *t, int y, int h, int w);
bool	ui_text_action(struct ui_text *t, enum ui_action a);
/* Scroll to the next (dir 1) or previous line containing s, starting at
 * the marked line (from_mark) or just past it. */
bool	ui_text_search(struct ui_text *t, const char *s, int dir,
	    bool from_mark);
void	ui_text_scroll(struct ui_text *t, int dy);

#endif
