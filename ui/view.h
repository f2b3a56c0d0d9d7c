/*
 * view.h: what every view sees and provides.  A view is a vtable (struct
 * ui_view_class, one per view-*.c file) plus private state; the context
 * (struct ui_ctx) is the interface's whole shared state: the session, the
 * latest snapshot of the profile and the baseline, the function shown,
 * the edited flags, and the transient message.
 *
 * Views rebuild their rows in update(), which the screen calls only when
 * the view is about to be drawn and something it depends on changed (a
 * new snapshot, another function, the baseline, the edited flags): views
 * that are not shown cost nothing, and keys never trigger a rollup.
 */
#ifndef GPTOP_UI_VIEW_H
#define GPTOP_UI_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "base/flags.h"
#include "keys.h"
#include "list.h"
#include "prof/profile.h"
#include "session/session.h"
#include "text.h"

struct ui_tui_opts;	/* tui.h */

struct ui_view;

/* What opens a view on top of another. */
enum ui_scope {
	UI_SCOPE_NONE,
	UI_SCOPE_CLASS,		/* applies of one class */
	UI_SCOPE_OP,		/* applies of one op */
	UI_SCOPE_OP_SIG		/* applies of one op and input signature */
};

struct ui_view_arg {
	enum ui_scope	 scope;
	const char	*name;		/* the class or op */
	int		 fn, id;	/* an apply */
};

struct ui_ctx {
	struct gp_session		*s;
	const struct ui_tui_opts	*opts;
	struct gp_profile		*snap;	/* the latest snapshot */
	uint64_t			 serial;	/* new snapshot: +1 */
	struct gp_profile		*base;	/* the baseline, or NULL */
	uint64_t			 base_serial;
	/* the baseline is the session's baseline program, run in turn
	 * with the current one (so under the same load): refreshed with
	 * each snapshot */
	bool				 base_live;
	struct gp_session_status	 st;
	int				 fn;	/* shown; -1: all summed */
	bool				 by_sig;	/* Ops by signature */
	struct gp_flags			 flags;	/* edited, sent with r */
	char				*running_excl;	/* the program's */
	char				*running_incl;
	uint64_t			 cfg_serial;	/* flags, by_sig */
	char				 msg[512];
	int				 msg_role;
	uint64_t			 msg_until;	/* ms */
	struct ui_view			*push;	/* open this view next */
};

struct ui_view_class {
	const char	*name;		/* the tab's label */
	unsigned	 keys;		/* UI_K_* contexts it offers */
	void		(*init)(struct ui_view *, struct ui_ctx *,
			    const struct ui_view_arg *);
	void		(*free)(struct ui_view *);
	/* rebuild from the context (snapshot, function, baseline, flags) */
	void		(*update)(struct ui_view *, struct ui_ctx *);
	void		(*draw)(struct ui_view *, struct ui_ctx *, int y, int h,
			    int w);
	/* actions the view handles itself; false: not handled */
	bool		(*key)(struct ui_view *, struct ui_ctx *,
			    enum ui_action);
	/* a click of the first button at screen row y, column x on a view
	 * with no table: the item it selects (a double click on the same
	 * one is Enter), or -1 */
	int		(*click)(struct ui_view *, struct ui_ctx *, int y,
			    int x);
	struct ui_list	*(*list)(struct ui_view *);	/* its table */
	struct ui_text	*(*text)(struct ui_view *);	/* its text page */
};

struct ui_view {
	const struct ui_view_class	*cls;
	void				*priv;
	/* what the rows were last built from */
	uint64_t			 built_serial, built_base, built_cfg;
	int				 built_fn;
	bool				 built;
	double				 update_ms;	/* last rebuild, CPU */
};

/* The views, by file. */
extern const struct ui_view_class ui_view_class;	/* view-rollup.c */
extern const struct ui_view_class ui_view_ops;
extern const struct ui_view_class ui_view_apply;
extern const struct ui_view_class ui_view_memory;	/* view-memory.c */
extern const struct ui_view_class ui_view_rewrites;	/* view-rewrites.c */
extern const struct ui_view_class ui_view_diff;		/* view-diff.c */
extern const struct ui_view_class ui_view_summary;	/* view-summary.c */
extern const struct ui_view_class ui_view_timeline;	/* view-timeline.c */
extern const struct ui_view_class ui_view_detail;	/* view-detail.c */
extern const struct ui_view_class ui_view_help;		/* view-help.c */

struct ui_view	*ui_view_new(const struct ui_view_class *cls,
		    struct ui_ctx *c, const struct ui_view_arg *arg);
void		 ui_view_free(struct ui_view *v);
/* Rebuild if anything it depends on changed (or always, with force). */
void		 ui_view_refresh(struct ui_view *v, struct ui_ctx *c,
		    bool force);
/* Ask the screen to open a view on top of the current one. */
void		 ui_view_push(struct ui_ctx *c, const struct ui_view_class *cls,
		    const struct ui_view_arg *arg);

/* Show a message on the bottom line for a few seconds. */
void	ui_ctx_msg(struct ui_ctx *c, int role, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* Calls counted for function fn of p (fn < 0: the most of any function,
 * i.e. rounds), the divisor of "per call of the function" figures. */
uint64_t ui_ctx_calls(const struct gp_profile *p, int fn);
/* "f" or "all functions". */
const char *ui_ctx_fn_name(const struct ui_ctx *c);

#endif
