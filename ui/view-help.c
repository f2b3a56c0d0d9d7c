/*
 * view-help.c: the help screen, generated from the key table (keys.c) and
 * the column table (columns.c), so it cannot drift from what the keys do.
 * Its first page (it fits 80x24) is the essential keys, two to a line;
 * every key and every column follow.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "crt.h"
#include "keys.h"
#include "view.h"

struct help {
	struct ui_text	text;
};

static bool	has_label_of(const char *labels, const char *label);

/* The first page: actions (one or two), their keys from the key table. */
static const struct essential {
	enum ui_action	 a, a2;
	const char	*what;
} essentials[] = {
	{.a = UI_A_VIEW_NEXT, .what = "next view (1-8: a view)"},
	{.a = UI_A_FN_NEXT, .what = "next function, then all"},
	{.a = UI_A_ENTER, .what = "drill down, details"},
	{.a = UI_A_BACK, .a2 = UI_A_BACK_OR_QUIT, .what = "back (q: quits at top)"},
	{.a = UI_A_SEARCH, .what = "search names"},
	{.a = UI_A_FILTER, .what = "filter rows by name"},
	{.a = UI_A_SORT_NEXT, .a2 = UI_A_SORT_PREV, .what = "sort by another column"},
	{.a = UI_A_SORT_INVERT, .what = "invert the order"},
	{.a = UI_A_LEFT, .a2 = UI_A_RIGHT, .what = "scroll the names"},
	{.a = UI_A_FULL_NAME, .what = "the row's full name"},
	{.a = UI_A_PAUSE, .what = "pause, resume"},
	{.a = UI_A_RESET, .what = "reset the statistics"},
	{.a = UI_A_RW_FUSION, .a2 = UI_A_RW_INPLACE, .what = "fusion, inplace (g c m)"},
	{.a = UI_A_RECOMPILE, .what = "recompile, re-run, Diff"},
	{.a = UI_A_WRITE, .what = "write a capture"},
	{.a = UI_A_HELP, .what = "this help (PgDn: more)"},
};

#define ESS_KEYS 11	/* cells for the keys of an essential */

/* The labels of a's keys, as many as fit in ESS_KEYS cells. */
static void
add_labels(char *buf, size_t n, enum ui_action a)
{
	for (size_t i = 0; i < ui_keys_count; i++) {
		const char *lb = ui_keys[i].label;
		size_t len = strlen(buf);

		if (ui_keys[i].action != a || has_label_of(buf, lb))
			continue;
		if (len + (len > 0) + strlen(lb) > ESS_KEYS || len + strlen(lb) +
		    2 > n)
			continue;
		if (len > 0)
			strcat(buf, " ");
		strcat(buf, lb);
	}
}

static void
essentials_page(struct ui_text *t)
{
	size_t n = sizeof(essentials) / sizeof(essentials[0]);

	ui_text_add(t, UI_ROLE_SECTION, "Essential keys");
	for (size_t i = 0; i < n; i += 2) {
		char k[2][ESS_KEYS + 8] = {"", ""};

		for (size_t j = 0; j < 2 && i + j < n; j++) {
			add_labels(k[j], sizeof(k[j]), essentials[i + j].a);
			if (essentials[i + j].a2 != UI_A_NONE)
				add_labels(k[j], sizeof(k[j]),
				    essentials[i + j].a2);
		}
		ui_text_add(t, UI_ROLE_NORMAL, "  %-*s %-26s %-*s %s", ESS_KEYS,
		    k[0], essentials[i].what, ESS_KEYS, k[1], i + 1 < n ?
		    essentials[i + 1].what : "");
	}
	ui_text_blank(t);
}

/* Whether label is one of the blank-separated words of labels. */
static bool
has_label_of(const char *labels, const char *label)
{
	size_t n = strlen(label);
	const char *p = labels;

	while (*p != '\0') {
		const char *e = strchr(p, ' ');
		size_t len = e != NULL ? (size_t)(e - p) : strlen(p);

		if (len == n && strncmp(p, label, n) == 0)
			return (true);
		if (e == NULL)
			break;
		p = e + 1;
	}
	return (false);
}

static void
keys_section(struct ui_text *t, enum ui_key_section sec)
{
	bool done[UI_A__COUNT * 2] = {false};

	ui_text_add(t, UI_ROLE_SECTION, "%s", ui_key_sections[sec]);
	for (size_t i = 0; i < ui_keys_count; i++) {
		const struct ui_key *k = &ui_keys[i];
		char labels[64] = "";
		size_t slot = (size_t)k->action * 2 + (k->where != UI_K_ANY);

		if (k->section != sec || done[slot])
			continue;
		done[slot] = true;
		for (size_t j = i; j < ui_keys_count; j++) {
			const struct ui_key *o = &ui_keys[j];

			if (o->action != k->action || o->where != k->where ||
			    o->section != sec)
				continue;
			if (has_label_of(labels, o->label))
				continue;
			if (labels[0] != '\0')
				strncat(labels, " ", sizeof(labels) -
				    strlen(labels) - 1);
			strncat(labels, o->label, sizeof(labels) -
			    strlen(labels) - 1);
		}
		ui_text_add(t, UI_ROLE_NORMAL, "  %-18s %s", labels, k->help);
	}
	ui_text_blank(t);
}

static void
columns_section(struct ui_text *t, const struct ui_colset *set)
{
	ui_text_add(t, UI_ROLE_SECTION, "Columns of the %s table", set->name);
	for (int k = 0; k < set->n; k++) {
		const struct ui_column *c = &ui_columns[set->cols[k]];

		ui_text_add(t, UI_ROLE_NORMAL, "  %-18s %s", c->title, c->help);
	}
	ui_text_blank(t);
}

static void
help_init(struct ui_view *v, struct ui_ctx *c, const struct ui_view_arg *a)
{
	struct help *h = gp_xcalloc(1, sizeof(*h));
	struct ui_text *t = &h->text;
	const struct ui_colset *sets[] = {&ui_colset_class, &ui_colset_op,
		&ui_colset_apply, &ui_colset_memory, &ui_colset_diff,
		&ui_colset_rewrites};

	ui_text_init(t);
	ui_text_add(t, UI_ROLE_TITLE, "gptop: where a graph's time and memory "
	    "go, live.  Esc, q or Backspace: back.");
	ui_text_blank(t);
	essentials_page(t);
	for (int s = 0; s < UI_KS__COUNT; s++)
		keys_section(t, (enum ui_key_section)s);
	ui_text_add(t, UI_ROLE_SECTION, "Mouse");
	ui_text_add(t, UI_ROLE_NORMAL, "  %-18s %s", "click header",
	    "sort by that column; click again to invert");
	ui_text_add(t, UI_ROLE_NORMAL, "  %-18s %s", "click row",
	    "select it; a double click: Enter");
	ui_text_add(t, UI_ROLE_NORMAL, "  %-18s %s", "click lane / bar",
	    "Timeline: select its apply; a double click: Enter");
	ui_text_add(t, UI_ROLE_NORMAL, "  %-18s %s", "click tab / F-key",
	    "switch view / press that key");
	ui_text_add(t, UI_ROLE_NORMAL, "  %-18s %s", "wheel", "scroll");
	ui_text_blank(t);
	ui_text_add(t, UI_ROLE_SECTION, "Header");
	ui_text_add(t, UI_ROLE_NORMAL, "  graph and file, the function shown, "
	    "runtime state; calls and calls/s;");
	ui_text_add(t, UI_ROLE_NORMAL, "  time per call: the last and the "
	    "median; VM and thunk shares of the call time;");
	ui_text_add(t, UI_ROLE_NORMAL, "  compile times (load, rewrite, link), "
	    "measured peak memory, the flags in effect;");
	ui_text_add(t, UI_ROLE_NORMAL, "  a sparkline of the most recent call "
	    "times (oldest left).");
	ui_text_blank(t);
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		columns_section(t, sets[i]);
	v->priv = h;
}

static void
help_free(struct ui_view *v)
{
	struct help *h = v->priv;

	ui_text_done(&h->text);
	free(h);
}

static void
help_update(struct ui_view *v, struct ui_ctx *c)
{
}

static void
help_draw(struct ui_view *v, struct ui_ctx *c, int y, int h, int w)
{
	ui_text_draw(&((struct help *)v->priv)->text, y, h, w);
}

static bool
help_key(struct ui_view *v, struct ui_ctx *c, enum ui_action a)
{
	/* Help keys on the help screen do nothing more. */
	return (a == UI_A_HELP || a == UI_A_ENTER);
}

static struct ui_text *
help_text(struct ui_view *v)
{
	return (&((struct help *)v->priv)->text);
}

const struct ui_view_class ui_view_help = {
	.name = "Help",
	.keys = UI_K_TEXT,
	.init = help_init,
	.free = help_free,
	.update = help_update,
	.draw = help_draw,
	.key = help_key,
	.text = help_text,
};
