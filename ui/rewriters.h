/*
 * rewriters.h: the rewriters the interface can switch, and how switching
 * is written into the flags.  Until the rewrite engine reports its own
 * registry, a rewriter is off exactly when its name is in the flags'
 * optimizer_excluding list (':'-separated names or tags), as in Theano's
 * optimizer_excluding=fusion:inplace.
 */
#ifndef GPTOP_UI_REWRITERS_H
#define GPTOP_UI_REWRITERS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/flags.h"
#include "keys.h"

struct ui_rewriter {
	const char	*name;		/* as in optimizer_excluding */
	enum ui_action	 action;	/* its toggle key */
	const char	*help;
};

extern const struct ui_rewriter	ui_rewriters[];
extern const size_t		ui_rewriters_count;

/* The rewriter an action toggles, or NULL. */
const struct ui_rewriter *ui_rewriters_by_action(enum ui_action a);
/* Whether name is in the ':'-separated list. */
bool	ui_rewriters_listed(const char *list, const char *name);
/* Add name to f->optimizer_excluding, or remove it; returns whether the
 * rewriter is now on (not excluded). */
bool	ui_rewriters_toggle(struct gp_flags *f, const char *name);
/* Switch one rewriter of the engine on or off in f: off lists it in
 * optimizer_excluding (and drops it from including and requiring); on
 * drops it from excluding and, if a tag or the base set still leaves it
 * out, lists it in optimizer_including.  Returns whether the engine now
 * selects it (false also when the flags do not select at all, with err
 * set). */
bool	ui_rewriters_set(struct gp_flags *f, const char *name, bool on,
	    struct gp_err *err);
/* Whether the engine selects the rewriter named name under f: 1 yes, 0
 * no, -1 unknown name or flags it refuses (err set). */
int	ui_rewriters_selected(const struct gp_flags *f, const char *name,
	    struct gp_err *err);
/* Whether name is one of the ':'-separated tags. */
bool	ui_rewriters_has_tag(const char *tags, const char *name);
/* A deep copy of flags (strings duplicated); free with gp_flags_done. */
void	ui_rewriters_copy_flags(struct gp_flags *dst,
	    const struct gp_flags *src);

#endif
