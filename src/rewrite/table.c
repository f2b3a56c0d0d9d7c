/*
 * rewrite/table.c: the registry of rewriters: the families' tables
 * (rewriters.h) gathered in run order (see gp_rewrite_all in rewrite.h).
 */
#include "config.h"

#include "rewrite/rewrite.h"

#include "rewrite/rewriters.h"

static const struct gp_rewriter *const *const families[] = {
	GP_REWRITER_FAMILIES
};

static const struct gp_rewriter **all;
static size_t n_all;

const struct gp_rewriter *const *
gp_rewrite_all(size_t *n)
{
	if (all == NULL) {
		size_t cap = 0;

		/* stable by phase, then family order */
		for (int ph = 0; ph < GP_PHASE__COUNT; ph++)
			for (size_t f = 0; f < sizeof(families) /
			    sizeof(families[0]); f++)
				for (const struct gp_rewriter *const *r =
				    families[f]; *r; r++) {
					if ((int)(*r)->phase != ph)
						continue;
					gp_grow(&all, &cap, n_all + 1,
					    sizeof(*all));
					all[n_all++] = *r;
				}
	}
	*n = n_all;
	return (all);
}
