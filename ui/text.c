/*
 * text.c: the scrolling text page (see text.h).
 */
#include "config.h"

#include "text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "crt.h"
#include "draw.h"
#include "base/util.h"

void
ui_text_init(struct ui_text *t)
{
	memset(t, 0, sizeof(*t));
	t->mark = -1;
}

void
ui_text_clear(struct ui_text *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->l[i].s);
	t->n = 0;
}

void
ui_text_done(struct ui_text *t)
{
	ui_text_clear(t);
	free(t->l);
	memset(t, 0, sizeof(*t));
}

void
ui_text_add(struct ui_text *t, int role, const char *fmt, ...)
{
	struct gp_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	gp_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	gp_grow(&t->l, &t->cap, t->n + 1, sizeof(*t->l));
	t->l[t->n].s = b.s != NULL ? b.s : gp_xstrdup("");
	t->l[t->n].role = role;
	t->n++;
}

void
ui_text_blank(struct ui_text *t)
{
	gp_grow(&t->l, &t->cap, t->n + 1, sizeof(*t->l));
	t->l[t->n].s = gp_xstrdup("");
	t->l[t->n].role = UI_ROLE_NORMAL;
	t->n++;
}

static size_t
max_top(const struct ui_text *t)
{
	size_t h = t->h > 0 ? (size_t)t->h : 1;

	return (t->n > h ? t->n - h : 0);
}

void
ui_text_draw(struct ui_text *t, int y, int h, int w)
{
	t->h = h;
	if (t->top > max_top(t))
		t->top = max_top(t);
	for (int i = 0; i < h; i++) {
		size_t k = t->top + (size_t)i;

		if (k >= t->n) {
			ui_draw_blank(y + i, 0, w, A_NORMAL);
			continue;
		}
		ui_draw_ltext(y + i, 0, w, t->l[k].s, (long)k == t->mark ?
		    ui_crt_attr(UI_ROLE_SELECTED) :
		    ui_crt_attr((enum ui_role)t->l[k].role));
	}
}

void
ui_text_scroll(struct ui_text *t, int dy)
{
	if (dy < 0)
		t->top = t->top > (size_t)-dy ? t->top - (size_t)-dy : 0;
	else
		t->top += (size_t)dy;
	if (t->top > max_top(t))
		t->top = max_top(t);
}

bool
ui_text_action(struct ui_text *t, enum ui_action a)
{
	int page = t->h > 1 ? t->h - 1 : 1;

	switch (a) {
	case UI_A_UP:
		ui_text_scroll(t, -1);
		break;
	case UI_A_DOWN:
		ui_text_scroll(t, 1);
		break;
	case UI_A_PGUP:
		ui_text_scroll(t, -page);
		break;
	case UI_A_PGDN:
		ui_text_scroll(t, page);
		break;
	case UI_A_HOME:
		t->top = 0;
		break;
	case UI_A_END:
		t->top = max_top(t);
		break;
	default:
		return (false);
	}
	return (true);
}

bool
ui_text_search(struct ui_text *t, const char *s, int dir, bool from_mark)
{
	size_t n = t->n, at;

	if (n == 0 || s[0] == '\0')
		return (false);
	at = t->mark >= 0 ? (size_t)t->mark : t->top;
	for (size_t i = from_mark ? 0 : 1; i <= n; i++) {
		size_t k = dir > 0 ? (at + i) % n : (at + n - i % n) % n;

		if (strcasestr(t->l[k].s, s) != NULL) {
			t->mark = (long)k;
			if (k < t->top || k >= t->top + (size_t)(t->h > 0 ?
			    t->h : 1))
				t->top = k > 2 ? k - 2 : 0;
			if (t->top > max_top(t))
				t->top = max_top(t);
			return (true);
		}
	}
	return (false);
}
