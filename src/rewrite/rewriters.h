/*
 * rewrite/rewriters.h: the rewriter families, one table per file in
 * src/rewrite/, gathered into the registry by table.c through
 * GP_REWRITER_FAMILIES.  Within a phase, rewriters run in family order,
 * then table order.
 */
#ifndef GPTOP_SRC_REWRITE_REWRITERS_H
#define GPTOP_SRC_REWRITE_REWRITERS_H

#include "rewrite/rw.h"

/* Each family: a NULL-terminated table. */
extern const struct gp_rewriter *const gp_rewriters_merge[];
extern const struct gp_rewriter *const gp_rewriters_canonicalize[];
extern const struct gp_rewriter *const gp_rewriters_stabilize[];
extern const struct gp_rewriter *const gp_rewriters_specialize[];
extern const struct gp_rewriter *const gp_rewriters_cnn[];
extern const struct gp_rewriter *const gp_rewriters_matmul[];
extern const struct gp_rewriter *const gp_rewriters_pack[];
extern const struct gp_rewriter *const gp_rewriters_fusion[];
extern const struct gp_rewriter *const gp_rewriters_inplace[];

#define GP_REWRITER_FAMILIES						\
	gp_rewriters_merge, gp_rewriters_canonicalize,			\
	gp_rewriters_stabilize, gp_rewriters_specialize,		\
	gp_rewriters_cnn, gp_rewriters_matmul, gp_rewriters_pack,	\
	gp_rewriters_fusion, gp_rewriters_inplace

#endif
