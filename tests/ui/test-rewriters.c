/*
 * test-rewriters.c: switching rewriters in the flags (ui/rewriters.c):
 * the ':'-separated lists, the flag copy, and with the rewrite engine:
 * a rewriter switched off and on again, also when a tag excludes it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "rewrite/rewrite.h"
#include "rewriters.h"

static bool
str_is(const char *got, const char *want)
{
	return (strcmp(got != NULL ? got : "", want) == 0);
}

int
main(void)
{
	struct gp_flags f, g;
	struct gp_err err;
	size_t n;

	gp_flags_init(&f);
	ok(ui_rewriters_listed("fusion:inplace", "inplace") &&
	    !ui_rewriters_listed("fusion:inplace", "in") &&
	    !ui_rewriters_listed("", "fusion"), "listed: whole names only");
	ok(!ui_rewriters_toggle(&f, "fusion") &&
	    str_is(f.optimizer_excluding, "fusion"), "toggle adds a name");
	ok(!ui_rewriters_toggle(&f, "inplace") &&
	    str_is(f.optimizer_excluding, "fusion:inplace"),
	    "toggle adds another");
	ok(ui_rewriters_toggle(&f, "fusion") &&
	    str_is(f.optimizer_excluding, "inplace"),
	    "toggle removes one, keeping the others");
	ui_rewriters_copy_flags(&g, &f);
	ui_rewriters_toggle(&g, "gemm");
	ok(str_is(f.optimizer_excluding, "inplace") &&
	    str_is(g.optimizer_excluding, "inplace:gemm"),
	    "a copy of the flags is independent");
	gp_flags_done(&g);
	ok(ui_rewriters_by_action(UI_A_RW_FUSION) != NULL &&
	    strcmp(ui_rewriters_by_action(UI_A_RW_FUSION)->name, "fusion") ==
	    0 && ui_rewriters_by_action(UI_A_QUIT) == NULL,
	    "the f key stands for fusion");

	gp_rewrite_all(&n);
	if (n == 0) {
		diag("no rewrite engine: skipping its tests");
		gp_flags_done(&f);
		return (done_testing());
	}
	gp_flags_done(&f);
	gp_flags_init(&f);
	ok(ui_rewriters_selected(&f, "fusion", &err) == 1,
	    "fusion runs by default");
	ok(!ui_rewriters_set(&f, "fusion", false, &err) &&
	    ui_rewriters_selected(&f, "fusion", &err) == 0 &&
	    str_is(f.optimizer_excluding, "fusion"), "switched off: excluded");
	ok(ui_rewriters_set(&f, "fusion", true, &err) &&
	    str_is(f.optimizer_excluding, ""), "switched on again");
	ui_rewriters_toggle(&f, "inplace");
	ok(ui_rewriters_selected(&f, "inplace_elemwise", &err) == 0,
	    "the inplace tag leaves inplace_elemwise out");
	ok(ui_rewriters_set(&f, "inplace_elemwise", true, &err) &&
	    str_is(f.optimizer_including, "inplace_elemwise") &&
	    ui_rewriters_selected(&f, "inplace_blas", &err) == 0,
	    "switching it on includes it by name; the tag still excludes "
	    "the others");
	ok(ui_rewriters_selected(&f, "no_such_rewriter", &err) == -1,
	    "an unknown name is neither on nor off");
	gp_flags_done(&f);
	return (done_testing());
}
