/*
 * view-memory.c: the Memory view.  Above the table: the peak the
 * allocator measured for each function and, from the memory profile
 * (memprof.h) when the profile has one, the predicted peaks: Theano's
 * intermediates of one call (as run, without inplace, without GC, and the
 * best order when it was searched) and every storage alive as the
 * allocator counts it.  The table has one row per apply: the bytes of its
 * outputs with Theano's c/v/i codes (created, view, inplace), what the VM
 * allocates for them, and the intermediates alive during and after it;
 * sorted by bytes, or by id for the memory timeline in program order.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "crt.h"
#include "draw.h"
#include "memprof.h"
#include "report.h"
#include "view.h"

#define TOP_LINES 4

struct memory {
	struct ui_mem_row	*rows;
	size_t			 n;
	struct ui_list		 list;
	uint64_t		 texts_gen;	/* what the names depend on */
	int			 texts_fn;
};

static void
memory_init(struct ui_view *v, struct ui_ctx *c, const struct ui_view_arg *a)
{
	struct memory *m = gp_xcalloc(1, sizeof(*m));

	ui_list_init(&m->list, &ui_colset_memory);
	m->texts_fn = -2;
	v->priv = m;
}

static void
memory_free(struct ui_view *v)
{
	struct memory *m = v->priv;

	ui_list_done(&m->list);
	free(m->rows);
	free(m);
}

static void
memory_update(struct ui_view *v, struct ui_ctx *c)
{
	struct memory *m = v->priv;
	const struct gp_profile *p = c->snap;
	struct ui_mem_row *rows;
	size_t n = 0, k = 0;

	for (int f = 0; f < p->n_fn; f++)
		if (c->fn < 0 || f == c->fn)
			n += (size_t)p->fn[f].n_apply;
	rows = gp_xcalloc(n + 1, sizeof(*rows));
	for (int f = 0; f < p->n_fn; f++) {
		const struct gp_memprof *mp = p->fn[f].mem;

		if (c->fn >= 0 && f != c->fn)
			continue;
		for (int i = 0; i < p->fn[f].n_apply; i++) {
			const struct gp_prof_apply *a = &p->fn[f].ap[i];
			struct ui_mem_row *r = &rows[k++];

			r->a = a;
			r->fn = f;
			for (int o = 0; o < a->n_out; o++) {
				r->bytes += a->out[o].nbytes;
				if (o < (int)sizeof(r->kinds) - 1)
					r->kinds[o] = a->out[o].alias ?
					    a->out[o].alias : 'c';
			}
			if (mp != NULL && i < mp->n_apply) {
				r->predicted = true;
				r->alloc = mp->ap[i].alloc_bytes;
				r->during = mp->ap[i].inter_during;
				r->after = mp->ap[i].inter_after;
			}
		}
	}
	if (p->generation != m->texts_gen || c->fn != m->texts_fn) {
		ui_list_texts_changed(&m->list);
		m->texts_gen = p->generation;
		m->texts_fn = c->fn;
	}
	ui_list_set_rows(&m->list, rows, n, sizeof(*rows));
	free(m->rows);
	m->rows = rows;
	m->n = n;
}

static const char *
bytes(char *b, size_t n, uint64_t v)
{
	gp_fmt_bytes(b, n, (double)v);
	return (b);
}

/* The predicted peaks of one function, on lines y and y + 1. */
static void
predicted(int y, int w, const struct gp_memprof *m, const char *name,
    bool named)
{
	const struct gp_mem_sim *sim = gp_memprof_sim(m);
	int g = m->allow_gc ? 0 : 1;
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	struct gp_buf s = {0};

	gp_buf_printf(&s, "%s%sone call's intermediates: %s as run, %s "
	    "without inplace, %s without views, %s with GC off",
	    named ? name : "", named ? ": " : "",
	    bytes(b1, sizeof(b1), m->inter[g][GP_MEM_AS_RUN]),
	    bytes(b2, sizeof(b2), m->inter[g][GP_MEM_NO_INPLACE]),
	    bytes(b3, sizeof(b3), m->inter[g][GP_MEM_NO_VIEW]),
	    bytes(b4, sizeof(b4), m->inter[1][GP_MEM_AS_RUN]));
	if (m->min_done)
		gp_buf_printf(&s, ", %s in the best order%s",
		    bytes(b5, sizeof(b5), m->min_peak), m->min_optimal ? "" :
		    " found");
	ui_draw_ltext(y, 0, w, gp_buf_str(&s), ui_crt_attr(UI_ROLE_NORMAL));
	gp_buf_clear(&s);
	gp_buf_printf(&s, "%s%sall storage (the allocator's count): peak %s "
	    "(first call %s, later calls %s), graph values %s",
	    named ? name : "", named ? ": " : "",
	    bytes(b1, sizeof(b1), sim->peak),
	    bytes(b2, sizeof(b2), sim->peak_first),
	    bytes(b3, sizeof(b3), sim->peak_steady),
	    bytes(b4, sizeof(b4), sim->values));
	ui_draw_ltext(y + 1, 0, w, gp_buf_str(&s),
	    ui_crt_attr(UI_ROLE_NORMAL));
	gp_buf_free(&s);
}

static void
memory_draw(struct ui_view *v, struct ui_ctx *c, int y, int h, int w)
{
	struct memory *m = v->priv;
	const struct gp_profile *p = c->snap;
	const struct gp_memprof *mp = NULL;
	struct gp_buf b = {0};
	int x, nmem = 0;

	x = ui_draw_text(y, 0, w, "Peak memory measured: ",
	    ui_crt_attr(UI_ROLE_LABEL));
	for (int f = 0; f < p->n_fn; f++) {
		char mb[32];

		if (c->fn >= 0 && f != c->fn)
			continue;
		if (p->fn[f].mem != NULL && mp == NULL)
			mp = p->fn[f].mem;
		nmem += p->fn[f].mem != NULL;
		gp_fmt_bytes(mb, sizeof(mb),
		    (double)p->fn[f].mem_peak_measured);
		gp_buf_printf(&b, "%s%s %s", b.len ? " | " : "", p->fn[f].name,
		    mb);
	}
	ui_draw_ltext(y, x, w - x, gp_buf_str(&b), ui_crt_attr(UI_ROLE_VALUE));
	gp_buf_free(&b);
	ui_draw_ltext(y + 1, 0, w, "Predicted:", ui_crt_attr(UI_ROLE_LABEL));
	if (mp == NULL) {
		ui_draw_ltext(y + 1, 11, w - 11, "(no memory profile)",
		    ui_crt_attr(UI_ROLE_DIM));
		ui_draw_blank(y + 2, 0, w, A_NORMAL);
	} else
		/* with several functions, the first one's; F picks */
		predicted(y + 1, w, mp, gp_memprof_str(mp, mp->fn_name),
		    nmem > 1 || c->fn < 0);
	ui_list_draw(&m->list, y + TOP_LINES, h - TOP_LINES, w);
	ui_list_draw_status(&m->list, y + TOP_LINES - 1, w,
	    "Apply outputs (c created, v view, i inplace) |");
}

static struct ui_list *
memory_list(struct ui_view *v)
{
	return (&((struct memory *)v->priv)->list);
}

static bool
memory_key(struct ui_view *v, struct ui_ctx *c, enum ui_action a)
{
	struct memory *m = v->priv;
	const struct ui_mem_row *r;
	struct ui_view_arg arg = {0};

	if (a != UI_A_ENTER)
		return (false);
	r = ui_list_selected(&m->list);
	if (r != NULL) {
		arg.fn = r->fn;
		arg.id = r->a->id;
		ui_view_push(c, &ui_view_detail, &arg);
	}
	return (true);
}

const struct ui_view_class ui_view_memory = {
	.name = "Memory",
	.keys = UI_K_TABLE,
	.init = memory_init,
	.free = memory_free,
	.update = memory_update,
	.draw = memory_draw,
	.key = memory_key,
	.list = memory_list,
};
