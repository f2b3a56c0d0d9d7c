/*
 * draw.c: column-exact text, bars and sparklines (see draw.h).
 */
#include "config.h"

#include "draw.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "crt.h"

#define LINE_MAX_CELLS 1024

static const char *const spark_utf8[8] = {"\u2581", "\u2582", "\u2583",
	"\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};
static const char *const spark_ascii[8] = {"_", ".", "-", ":", "=", "+",
	"*", "#"};
/* 1/8 .. 7/8 left blocks */
static const char *const eighths[8] = {"", "\u258f", "\u258e", "\u258d",
	"\u258c", "\u258b", "\u258a", "\u2589"};

/* Decode up to w columns of s into out; returns the columns, *nw the
 * wide characters. */
static int
decode(const char *s, int w, wchar_t *out, int cap, int *nw)
{
	mbstate_t st;
	bool u = ui_crt_utf8();
	int cols = 0, k = 0;

	memset(&st, 0, sizeof(st));
	while (*s != '\0' && k < cap) {
		unsigned char c = (unsigned char)*s;
		wchar_t wc;
		int cw;

		if (c < 0x80) {
			wc = c >= 0x20 && c != 0x7f ? (wchar_t)c : L'?';
			s++;
			cw = 1;
		} else if (!u) {
			wc = L'?';
			s++;
			cw = 1;
		} else {
			size_t r = mbrtowc(&wc, s, MB_CUR_MAX, &st);

			if (r == (size_t)-1 || r == (size_t)-2 || r == 0) {
				memset(&st, 0, sizeof(st));
				wc = L'?';
				r = 1;
			}
			s += r;
			cw = wcwidth(wc);
			if (cw < 0) {
				wc = L'?';
				cw = 1;
			}
		}
		if (cols + cw > w)
			break;
		out[k++] = wc;
		cols += cw;
	}
	*nw = k;
	return (cols);
}

int
ui_draw_text(int y, int x, int w, const char *s, attr_t a)
{
	wchar_t buf[LINE_MAX_CELLS];
	int nw, cols;

	if (w <= 0 || s == NULL)
		return (0);
	if (w > LINE_MAX_CELLS)
		w = LINE_MAX_CELLS;
	cols = decode(s, w, buf, LINE_MAX_CELLS, &nw);
	attrset(a);
	mvaddnwstr(y, x, buf, nw);
	attrset(A_NORMAL);
	return (cols);
}

int
ui_text_width(const char *s)
{
	wchar_t buf[LINE_MAX_CELLS];
	int nw;

	return (decode(s, LINE_MAX_CELLS, buf, LINE_MAX_CELLS, &nw));
}

const char *
ui_text_wrap(const char *s, int w)
{
	const char *p = s, *brk = NULL;
	mbstate_t st;
	int cols = 0;

	memset(&st, 0, sizeof(st));
	while (*p != '\0') {
		wchar_t wc;
		size_t r = mbrtowc(&wc, p, strlen(p), &st);
		int cw;

		if (r == (size_t)-1 || r == (size_t)-2 || r == 0) {
			memset(&st, 0, sizeof(st));
			r = 1;
			cw = 1;
		} else if ((cw = wcwidth(wc)) < 0)
			cw = 1;
		if (cols + cw > w && p > s)
			break;
		cols += cw;
		p += r;
		if ((p[-1] == ' ' || p[-1] == ',') && cols * 2 >= w)
			brk = p;
	}
	return (*p == '\0' || brk == NULL ? p : brk);
}

void
ui_draw_blank(int y, int x, int w, attr_t a)
{
	if (w <= 0)
		return;
	attrset(a);
	mvhline(y, x, ' ', w);
	attrset(A_NORMAL);
}

void
ui_draw_rtext(int y, int x, int w, const char *s, attr_t a)
{
	int tw = ui_text_width(s);

	if (tw > w)
		tw = w;
	ui_draw_blank(y, x, w - tw, a);
	ui_draw_text(y, x + w - tw, tw, s, a);
}

void
ui_draw_ltext(int y, int x, int w, const char *s, attr_t a)
{
	int n = ui_draw_text(y, x, w, s, a);

	ui_draw_blank(y, x + n, w - n, a);
}

int
ui_draw_printf(int y, int x, int w, attr_t a, const char *fmt, ...)
{
	char buf[LINE_MAX_CELLS * 4];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return (ui_draw_text(y, x, w, buf, a));
}

void
ui_bar_string(char *buf, size_t n, int w, double frac)
{
	size_t len = 0;

	buf[0] = '\0';
	if (frac < 0 || frac != frac)
		frac = 0;
	if (frac > 1)
		frac = 1;
	if (ui_crt_utf8()) {
		int e = (int)(frac * w * 8 + 0.5), full = e / 8, part = e % 8;
		int cells = 0;

		if (e == 0 && frac > 0)
			part = 1;
		for (int i = 0; i < full && len + 4 < n; i++, cells++) {
			memcpy(buf + len, "\u2588", 3);
			len += 3;
		}
		if (part > 0 && cells < w && len + 4 < n) {
			size_t pl = strlen(eighths[part]);

			memcpy(buf + len, eighths[part], pl);
			len += pl;
			cells++;
		}
		for (; cells < w && len + 1 < n; cells++)
			buf[len++] = ' ';
	} else {
		int f = (int)(frac * w + 0.5);

		if (f == 0 && frac > 0)
			f = 1;
		for (int i = 0; i < w && len + 1 < n; i++)
			buf[len++] = i < f ? '|' : ' ';
	}
	buf[len] = '\0';
}

void
ui_draw_bar(int y, int x, int w, double frac, attr_t a)
{
	char buf[LINE_MAX_CELLS];

	if (w <= 0)
		return;
	if (w > LINE_MAX_CELLS / 4)
		w = LINE_MAX_CELLS / 4;
	ui_bar_string(buf, sizeof(buf), w, frac);
	ui_draw_text(y, x, w, buf, a);
}

const char *
ui_spark_glyph(int level)
{
	if (level < 0)
		level = 0;
	if (level > 7)
		level = 7;
	return (ui_crt_utf8() ? spark_utf8[level] : spark_ascii[level]);
}

const char *
ui_arrow(bool down)
{
	if (ui_crt_utf8())
		return (down ? "\u25bc" : "\u25b2");
	return (down ? "v" : "^");
}

int
ui_draw_spark(int y, int x, int w, const double *v, int n, attr_t a)
{
	char buf[LINE_MAX_CELLS * 4];
	size_t len = 0;
	double lo, hi;
	int first, k;

	if (w <= 0 || n <= 0)
		return (0);
	first = n > w ? n - w : 0;
	lo = hi = v[first];
	for (int i = first; i < n; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	for (k = first; k < n; k++) {
		int lvl = hi > lo ? (int)((v[k] - lo) / (hi - lo) * 7 + 0.5) :
		    0;
		const char *g = ui_spark_glyph(lvl);
		size_t gl = strlen(g);

		if (len + gl + 1 > sizeof(buf))
			break;
		memcpy(buf + len, g, gl);
		len += gl;
	}
	buf[len] = '\0';
	return (ui_draw_text(y, x, w, buf, a));
}
