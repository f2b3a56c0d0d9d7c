/*
 * view.c: creating, refreshing and opening views, and the context's small
 * helpers (see view.h).
 */
#include "config.h"

#include "view.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "crt.h"
#include "base/util.h"

#define MSG_MS 4000

struct ui_view *
ui_view_new(const struct ui_view_class *cls, struct ui_ctx *c,
    const struct ui_view_arg *arg)
{
	struct ui_view *v = gp_xcalloc(1, sizeof(*v));

	v->cls = cls;
	cls->init(v, c, arg);
	return (v);
}

void
ui_view_free(struct ui_view *v)
{
	if (v == NULL)
		return;
	v->cls->free(v);
	free(v);
}

void
ui_view_refresh(struct ui_view *v, struct ui_ctx *c, bool force)
{
	struct timespec t0, t1;

	if (!force && v->built && v->built_serial == c->serial &&
	    v->built_fn == c->fn && v->built_base == c->base_serial &&
	    v->built_cfg == c->cfg_serial)
		return;
	if (c->snap == NULL)
		return;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	v->cls->update(v, c);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	v->update_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	v->built = true;
	v->built_serial = c->serial;
	v->built_fn = c->fn;
	v->built_base = c->base_serial;
	v->built_cfg = c->cfg_serial;
}

void
ui_view_push(struct ui_ctx *c, const struct ui_view_class *cls,
    const struct ui_view_arg *arg)
{
	ui_view_free(c->push);
	c->push = ui_view_new(cls, c, arg);
}

void
ui_ctx_msg(struct ui_ctx *c, int role, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	c->msg_role = role;
	c->msg_until = ui_crt_now_ms() + MSG_MS;
}

uint64_t
ui_ctx_calls(const struct gp_profile *p, int fn)
{
	uint64_t most = 0;

	if (p == NULL)
		return (0);
	if (fn >= 0 && fn < p->n_fn)
		return (gp_prof_calls(&p->fn[fn]));
	for (int f = 0; f < p->n_fn; f++)
		if (gp_prof_calls(&p->fn[f]) > most)
			most = gp_prof_calls(&p->fn[f]);
	return (most);
}

const char *
ui_ctx_fn_name(const struct ui_ctx *c)
{
	if (c->snap != NULL && c->fn >= 0 && c->fn < c->snap->n_fn)
		return (c->snap->fn[c->fn].name);
	return ("all functions (sum)");
}
