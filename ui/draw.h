/*
 * draw.h: drawing text on the curses screen, column-exact: UTF-8 strings
 * clipped to a width (control and undecodable bytes shown as '?'), padded
 * fields, share bars with eighth-block resolution and sparklines, with an
 * ASCII fallback for every glyph when the locale is not UTF-8.
 */
#ifndef GPTOP_UI_DRAW_H
#define GPTOP_UI_DRAW_H

#include <stdbool.h>
#include <stddef.h>

#include "provide-curses.h"

/* Draw s at (y, x) in at most w columns; returns the columns used. */
int	ui_draw_text(int y, int x, int w, const char *s, attr_t a);
/* s right-aligned in a field of w columns (blank-padded on the left). */
void	ui_draw_rtext(int y, int x, int w, const char *s, attr_t a);
/* s left-aligned in a field of w columns (blank-padded on the right). */
void	ui_draw_ltext(int y, int x, int w, const char *s, attr_t a);
int	ui_draw_printf(int y, int x, int w, attr_t a, const char *fmt, ...)
	    __attribute__((format(printf, 5, 6)));
void	ui_draw_blank(int y, int x, int w, attr_t a);
/* Columns s takes on screen. */
int	ui_text_width(const char *s);
/* Where the first line of s wrapped at w cells ends: after a blank or a
 * comma in its second half if there is one, else at w cells. */
const char *ui_text_wrap(const char *s, int w);

/* A bar of w cells filled to frac (0..1) as a string (UTF-8 blocks or
 * ASCII '|'), padded with blanks to w cells. */
void	ui_bar_string(char *buf, size_t n, int w, double frac);
void	ui_draw_bar(int y, int x, int w, double frac, attr_t a);
/* A sparkline of the last values of v[0..n) (oldest first) in w cells,
 * scaled from their smallest to their largest.  Returns cells drawn. */
int	ui_draw_spark(int y, int x, int w, const double *v, int n, attr_t a);
/* The glyph for level 0..7 of a sparkline (UTF-8 or ASCII). */
const char *ui_spark_glyph(int level);
/* "v" or a down-pointing triangle, "^" or an up one. */
const char *ui_arrow(bool down);

#endif
