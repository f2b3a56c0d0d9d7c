/*
 * provide-curses.h: the one place that includes curses.  gptop needs the
 * wide-character API of ncursesw (cchar_t, wget_wch, add_wch), so it asks
 * for it before the header is read.  Only ui/ includes this file.
 */
#ifndef GPTOP_UI_PROVIDE_CURSES_H
#define GPTOP_UI_PROVIDE_CURSES_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif

#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

#endif
