/*
 * fbar.c: the function-key bar (see fbar.h).  Each item is its key (in
 * the key's attribute) and its label (in the label's), and items are
 * separated by a blank in the normal attribute, so they read apart in
 * colour, under NO_COLOR, and as plain text: "F1Help F3Search F4Filter".
 */
#include "config.h"

#include "fbar.h"

#include <string.h>

#include "crt.h"
#include "draw.h"

static const struct ui_fbar_item items[] = {
	{.key = "F1", .label = "Help", .code = KEY_F(1)},
	{.key = "F3", .label = "Search", .code = KEY_F(3)},
	{.key = "F4", .label = "Filter", .code = KEY_F(4)},
	{.key = "F5", .label = "Pause", .code = KEY_F(5)},
	{.key = "F6", .label = "SortBy", .code = KEY_F(6)},
	{.key = "F7", .label = "Invert", .code = KEY_F(7)},
	{.key = "F8", .label = "Func", .code = KEY_F(8)},
	{.key = "F9", .label = "Rerun", .code = KEY_F(9)},
	{.key = "F10", .label = "Quit", .code = KEY_F(10)},
};

#define NITEMS (sizeof(items) / sizeof(items[0]))

static int	item_x0[NITEMS], item_x1[NITEMS];
static bool	bar_shown;

void
ui_fbar_draw(int y, int w, bool paused)
{
	int x = 0;

	for (size_t i = 0; i < NITEMS; i++) {
		const char *label = items[i].label;
		int kw = (int)strlen(items[i].key), lw;

		if (items[i].code == KEY_F(5) && paused)
			label = "Resume";
		lw = (int)strlen(label);
		if (i > 0 && x < w) {
			ui_draw_blank(y, x, 1, A_NORMAL);
			x++;
		}
		item_x0[i] = x;
		if (x + kw >= w) {
			item_x1[i] = x;
			continue;
		}
		ui_draw_text(y, x, kw, items[i].key,
		    ui_crt_attr(UI_ROLE_FKEY));
		x += kw;
		if (lw > w - x)
			lw = w - x;
		ui_draw_ltext(y, x, lw, label, ui_crt_attr(UI_ROLE_FLABEL));
		x += lw;
		item_x1[i] = x;
	}
	if (x < w)
		ui_draw_blank(y, x, w - x, A_NORMAL);
	bar_shown = true;
}

void
ui_fbar_draw_text(int y, int w, const char *text, int role)
{
	ui_draw_ltext(y, 0, w, text, ui_crt_attr((enum ui_role)role));
	bar_shown = false;
}

int
ui_fbar_click(int x)
{
	if (!bar_shown)
		return (0);
	for (size_t i = 0; i < NITEMS; i++)
		if (x >= item_x0[i] && x < item_x1[i])
			return (items[i].code);
	return (0);
}
