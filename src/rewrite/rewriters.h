/*
 * rewrite/rewriters.h: the rewriter families, one table per file in
 * src/rewrite/, gathered by rewrite.c through GP_REWRITER_FAMILIES.
 */
#ifndef GPTOP_SRC_REWRITE_REWRITERS_H
#define GPTOP_SRC_REWRITE_REWRITERS_H

#include "rewrite.h"

/* Each family: a NULL-terminated table. */
static const struct gp_rewriter *const gp_rewriters_none[] = {NULL};

#define GP_REWRITER_FAMILIES gp_rewriters_none

#endif
