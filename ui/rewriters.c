/*
 * rewriters.c: the switchable rewriters and the optimizer_excluding
 * editing (see rewriters.h).
 */
#include "config.h"

#include "rewriters.h"

#include <stdlib.h>
#include <string.h>

#include "rewrite/rewrite.h"
#include "base/util.h"

const struct ui_rewriter ui_rewriters[] = {
	{.name = "fusion", .action = UI_A_RW_FUSION,
	    .help = "fuse chains of elementwise ops into one loop"},
	{.name = "inplace", .action = UI_A_RW_INPLACE,
	    .help = "let ops overwrite an input that is not used later"},
	{.name = "gemm", .action = UI_A_RW_GEMM,
	    .help = "turn dot, outer and scaled-add patterns into BLAS "
	    "gemm/gemv/ger"},
	{.name = "constant_folding", .action = UI_A_RW_CONSTFOLD,
	    .help = "compute what depends only on constants once, at "
	    "compile time"},
	{.name = "merge", .action = UI_A_RW_MERGE,
	    .help = "merge identical applies and constants"},
	{.name = "cnn", .action = UI_A_RW_CNN,
	    .help = "fold batch norms into convs, fuse a conv's bias and "
	    "Relu/Clip, fuse decomposed LayerNorms"},
};

const size_t ui_rewriters_count = sizeof(ui_rewriters) /
    sizeof(ui_rewriters[0]);

const struct ui_rewriter *
ui_rewriters_by_action(enum ui_action a)
{
	for (size_t i = 0; i < ui_rewriters_count; i++)
		if (ui_rewriters[i].action == a)
			return (&ui_rewriters[i]);
	return (NULL);
}

bool
ui_rewriters_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	if (list == NULL)
		return (false);
	while (*p != '\0') {
		const char *e = strchr(p, ':');
		size_t len = e != NULL ? (size_t)(e - p) : strlen(p);

		if (len == n && strncmp(p, name, n) == 0)
			return (true);
		if (e == NULL)
			break;
		p = e + 1;
	}
	return (false);
}

/* *list without name (and without empty items); with name at the end
 * if add. */
static void
list_edit(char **list, const char *name, bool add)
{
	const char *p = *list != NULL ? *list : "";
	size_t n = strlen(name);
	struct gp_buf b = {0};

	while (*p != '\0') {
		const char *e = strchr(p, ':');
		size_t len = e != NULL ? (size_t)(e - p) : strlen(p);

		if (len > 0 && !(len == n && strncmp(p, name, n) == 0))
			gp_buf_printf(&b, "%s%.*s", b.len ? ":" : "", (int)len,
			    p);
		if (e == NULL)
			break;
		p = e + 1;
	}
	if (add)
		gp_buf_printf(&b, "%s%s", b.len ? ":" : "", name);
	free(*list);
	*list = gp_xstrdup(gp_buf_str(&b));
	gp_buf_free(&b);
}

bool
ui_rewriters_toggle(struct gp_flags *f, const char *name)
{
	bool was = ui_rewriters_listed(f->optimizer_excluding, name);

	list_edit(&f->optimizer_excluding, name, !was);
	return (was);
}

bool
ui_rewriters_has_tag(const char *tags, const char *name)
{
	return (ui_rewriters_listed(tags, name));
}

int
ui_rewriters_selected(const struct gp_flags *f, const char *name,
    struct gp_err *err)
{
	size_t n;
	const struct gp_rewriter *const *rs = gp_rewrite_all(&n);
	bool *sel = gp_xcalloc(n + 1, sizeof(*sel));
	int r = -1;

	if (gp_rewrite_select(f, sel, err) == 0) {
		for (size_t i = 0; i < n; i++)
			if (strcmp(rs[i]->name, name) == 0)
				r = sel[i];
		if (r < 0)
			gp_err_set(err, "no rewriter named %s", name);
	}
	free(sel);
	return (r);
}

bool
ui_rewriters_set(struct gp_flags *f, const char *name, bool on,
    struct gp_err *err)
{
	if (!on) {
		list_edit(&f->optimizer_including, name, false);
		list_edit(&f->optimizer_requiring, name, false);
		list_edit(&f->optimizer_excluding, name, true);
		return (ui_rewriters_selected(f, name, err) == 1);
	}
	list_edit(&f->optimizer_excluding, name, false);
	if (ui_rewriters_selected(f, name, err) == 0)
		list_edit(&f->optimizer_including, name, true);
	return (ui_rewriters_selected(f, name, err) == 1);
}

void
ui_rewriters_copy_flags(struct gp_flags *dst, const struct gp_flags *src)
{
	*dst = *src;
	for (size_t i = 0; i < gp_flag_count; i++)
		if (gp_flag_table[i].type == GP_FLAG_STRING) {
			char **p = (char **)((char *)dst +
			    gp_flag_table[i].offset);

			if (*p != NULL)
				*p = gp_xstrdup(*p);
		}
}
