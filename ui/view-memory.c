/*
 * view-memory.c: the Memory view.  Above the table, under the names the
 * batch report gives them (doc/memory.md): the measured peak of each
 * function and, from the memory profile (memprof.h) when the profile has
 * one, the predicted peak (every storage alive as the allocator counts
 * it) and the intermediates peak (Theano's, one call: as run, without
 * inplace, without GC, and the best order when it was searched).  The table has one row per apply: the bytes of its
 * outputs with Theano's c/v/i codes (created, view, inplace), what the VM
 * allocates for them, and the intermediates alive during and after it;
 * sorted by bytes, or by id for the memory timeline in program order.
 *
 * Between the two, when there is room: the allocator's timeline as a bar
 * chart, every storage alive during each apply of the call that peaks,
 * one column per apply (or the most of a run of applies when they
 * outnumber the columns), the peak's column marked and labelled.  The
 * selection starts on the peak's row; Enter there opens the buffers live
 * at the peak (a text page of this file, Esc back), elsewhere the apply's
 * details.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "crt.h"
#include "draw.h"
#include "prof/memprof.h"
#include "base/fmt.h"
#include "view.h"

#define TOP_LINES 4
#define CHART_ROWS 4		/* rows of bars */
#define CHART_LINES (CHART_ROWS + 1)	/* and the label above them */
#define CHART_AXIS 9		/* the bytes scale on the left */
#define CHART_MIN_H 16		/* the view's height for a chart */

struct memory {
	struct ui_mem_row	*rows;
	size_t			 n;
	struct ui_list		 list;
	uint64_t		 texts_gen;	/* what the names depend on */
	int			 texts_fn;
	/* the peak of the profile charted: its function, its apply */
	int			 peak_fn;
	const struct gp_prof_apply *peak_ap;
	bool			 peak_selected;	/* the selection put on it */
};

static const struct ui_view_class ui_view_peak;

/* The memory profile shown: the function's, or with all functions the
 * first one having one (F picks); its function in *fn.  NULL: none. */
static const struct gp_memprof *
shown_memprof(const struct ui_ctx *c, int *fn)
{
	const struct gp_profile *p = c->snap;

	for (int f = 0; f < p->n_fn; f++) {
		if (c->fn >= 0 && f != c->fn)
			continue;
		if (p->fn[f].mem != NULL) {
			*fn = f;
			return (p->fn[f].mem);
		}
	}
	*fn = -1;
	return (NULL);
}

static void
memory_init(struct ui_view *v, struct ui_ctx *c, const struct ui_view_arg *a)
{
	struct memory *m = gp_xcalloc(1, sizeof(*m));

	ui_list_init(&m->list, &ui_colset_memory);
	/* 100,000 rows: names ranked once, so a name sort is a copy */
	m->list.rank_names = true;
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
				r->work = mp->ap[i].work_bytes;
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
	m->peak_ap = NULL;
	m->peak_fn = -1;
	{
		int pf;
		const struct gp_memprof *mp = shown_memprof(c, &pf);
		const struct gp_mem_sim *sim;

		if (mp == NULL)
			return;
		sim = gp_memprof_sim(mp);
		m->peak_fn = pf;
		if (sim->peak_step >= 0 && sim->peak_step < mp->n_apply &&
		    sim->peak_step < p->fn[pf].n_apply)
			m->peak_ap = &p->fn[pf].ap[sim->peak_step];
	}
	/* the first time there is a peak, select its row */
	if (m->peak_ap != NULL && !m->peak_selected) {
		for (size_t pos = 0; pos < m->list.n; pos++) {
			const struct ui_mem_row *r = ui_list_row(&m->list,
			    pos);

			if (r != NULL && r->a == m->peak_ap) {
				m->list.sel = pos;
				break;
			}
		}
		m->peak_selected = true;
	}
}

static const char *
bytes(char *b, size_t n, uint64_t v)
{
	gp_fmt_bytes(b, n, (double)v);
	return (b);
}

/* Function fn's predicted peak and intermediates peak (memprof.h: the
 * names and figures of the batch report), on lines y and y + 1. */
static void
predicted(int y, int w, const struct gp_profile *p, int fn, bool named)
{
	const struct gp_memprof *m = p->fn[fn].mem;
	const struct gp_mem_sim *sim = gp_memprof_sim(m);
	enum gp_mem_span span = gp_memprof_span(p, fn);
	int g = m->allow_gc ? 0 : 1, x;
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	struct gp_buf s = {0};

	x = ui_draw_text(y, 0, w, "Predicted peak: ",
	    ui_crt_attr(UI_ROLE_LABEL));
	gp_buf_printf(&s, "%s%s%s%s (program: first call %s, later calls %s; "
	    "outside it %s; graph values %s", named ? p->fn[fn].name : "",
	    named ? " " : "",
	    bytes(b1, sizeof(b1), gp_memprof_predicted_peak(p, fn)),
	    span == GP_MEM_SPAN_FIRST ? " in the first call, the only one run" :
	    span == GP_MEM_SPAN_LATER ? " in a later call" : "",
	    bytes(b2, sizeof(b2), sim->peak_first),
	    bytes(b3, sizeof(b3), sim->peak_steady),
	    bytes(b4, sizeof(b4), m->external),
	    bytes(b5, sizeof(b5), sim->values));
	if (sim->peak_step >= 0 && sim->peak_step < m->n_apply &&
	    m->ap[sim->peak_step].work_bytes > 0)
		gp_buf_printf(&s, "; kernel scratch at the peak %s",
		    bytes(b1, sizeof(b1), m->ap[sim->peak_step].work_bytes));
	gp_buf_puts(&s, ")");
	ui_draw_ltext(y, x, w - x, gp_buf_str(&s),
	    ui_crt_attr(UI_ROLE_NORMAL));
	gp_buf_clear(&s);
	x = ui_draw_text(y + 1, 0, w, "Intermediates peak: ",
	    ui_crt_attr(UI_ROLE_LABEL));
	gp_buf_printf(&s, "%s%s%s as run, %s without inplace, %s without "
	    "views, %s with GC off", named ? p->fn[fn].name : "",
	    named ? " " : "",
	    bytes(b1, sizeof(b1), gp_memprof_inter_peak(m)),
	    bytes(b2, sizeof(b2), m->inter[g][GP_MEM_NO_INPLACE]),
	    bytes(b3, sizeof(b3), m->inter[g][GP_MEM_NO_VIEW]),
	    bytes(b4, sizeof(b4), m->inter[1][GP_MEM_AS_RUN]));
	if (m->min_done)
		gp_buf_printf(&s, ", %s in the best order%s",
		    bytes(b5, sizeof(b5), m->min_peak), m->min_optimal ? "" :
		    " found");
	ui_draw_ltext(y + 1, x, w - x, gp_buf_str(&s),
	    ui_crt_attr(UI_ROLE_NORMAL));
	gp_buf_free(&s);
}

/*
 * The live-bytes timeline of mp's peaking call on lines y .. y +
 * CHART_LINES - 1: a label, then CHART_ROWS rows of bars over a bytes
 * scale, scaled from the least to the most live bytes.
 */
static void
chart(int y, int w, const struct gp_profile *p, int fn,
    const struct gp_memprof *mp, bool named)
{
	const struct gp_mem_sim *sim = gp_memprof_sim(mp);
	int n = mp->n_apply, cw = w - CHART_AXIS - 1, ncol, pcol = -1;
	uint64_t lo = UINT64_MAX, hi = 0, *col;
	char b1[32], b2[32], b3[32];
	struct gp_buf s = {0};
	attr_t bar = ui_crt_attr(UI_ROLE_BAR);
	attr_t peak = ui_crt_attr(UI_ROLE_WORSE) | A_BOLD;
	const char *sep = ui_crt_utf8() ? "\u2502" : "|";

	/* every storage the allocator counts: the program's and the
	 * session's outside it (constant over the call) */
	gp_buf_printf(&s, "Live bytes%s%s, %s call: highest %s ",
	    named ? " of " : "", named ? p->fn[fn].name : "",
	    sim->peak_call ? "a later" : "the first",
	    bytes(b1, sizeof(b1), sim->peak + mp->external));
	if (sim->peak_step >= 0 && sim->peak_step < p->fn[fn].n_apply)
		gp_buf_printf(&s, "at apply %d (Enter on its row: buffers) %s",
		    sim->peak_step, p->fn[fn].ap[sim->peak_step].name);
	else
		gp_buf_printf(&s, "at the call's start");
	ui_draw_ltext(y, 0, w, gp_buf_str(&s), ui_crt_attr(UI_ROLE_LABEL));
	gp_buf_free(&s);
	for (int r = 0; r < CHART_ROWS; r++)
		ui_draw_blank(y + 1 + r, 0, w, A_NORMAL);
	if (n <= 0 || sim->during == NULL || cw < 4) {
		ui_draw_ltext(y + 1, 0, w, "  (no applies)",
		    ui_crt_attr(UI_ROLE_DIM));
		return;
	}
	ncol = n < cw ? n : cw;
	col = gp_xcalloc((size_t)ncol, sizeof(*col));
	for (int j = 0; j < ncol; j++) {
		int a0 = (int)((int64_t)j * n / ncol);
		int a1 = (int)((int64_t)(j + 1) * n / ncol);

		for (int i = a0; i < a1; i++) {
			uint64_t v = sim->during[i].live;

			if (sim->after != NULL && sim->after[i].live > v)
				v = sim->after[i].live;
			v += mp->external;
			if (v > col[j])
				col[j] = v;
			if (i == sim->peak_step)
				pcol = j;
		}
		if (col[j] < lo)
			lo = col[j];
		if (col[j] > hi)
			hi = col[j];
	}
	/* the scale */
	ui_draw_rtext(y + 1, 0, CHART_AXIS - 1, bytes(b2, sizeof(b2), hi),
	    ui_crt_attr(UI_ROLE_DIM));
	ui_draw_rtext(y + CHART_ROWS, 0, CHART_AXIS - 1,
	    bytes(b3, sizeof(b3), lo), ui_crt_attr(UI_ROLE_DIM));
	for (int r = 0; r < CHART_ROWS; r++)
		ui_draw_text(y + 1 + r, CHART_AXIS, 1, sep,
		    ui_crt_attr(UI_ROLE_DIM));
	for (int j = 0; j < ncol; j++) {
		/* eighths of a cell: at least one, all rows at hi */
		int lvl = hi > lo ? 1 + (int)((double)(col[j] - lo) /
		    (double)(hi - lo) * (CHART_ROWS * 8 - 1) + 0.5) :
		    CHART_ROWS * 8;

		for (int r = 0; r < CHART_ROWS; r++) {
			int fill = lvl - (CHART_ROWS - 1 - r) * 8;
			const char *g;

			if (fill <= 0)
				continue;
			g = ui_spark_glyph(fill >= 8 ? 7 : fill - 1);
			ui_draw_text(y + 1 + r, CHART_AXIS + 1 + j, 1, g,
			    j == pcol ? peak : bar);
		}
	}
	free(col);
}

static void
memory_draw(struct ui_view *v, struct ui_ctx *c, int y, int h, int w)
{
	struct memory *m = v->priv;
	const struct gp_profile *p = c->snap;
	const struct gp_memprof *mp = NULL;
	struct gp_buf b = {0};
	int x, nmem = 0, top = TOP_LINES, mf = -1;

	x = ui_draw_text(y, 0, w, "Measured peak: ",
	    ui_crt_attr(UI_ROLE_LABEL));
	for (int f = 0; f < p->n_fn; f++) {
		char mb[32];

		if (c->fn >= 0 && f != c->fn)
			continue;
		if (p->fn[f].mem != NULL && mp == NULL) {
			mp = p->fn[f].mem;
			mf = f;
		}
		nmem += p->fn[f].mem != NULL;
		gp_fmt_bytes(mb, sizeof(mb),
		    (double)p->fn[f].mem_peak_measured);
		gp_buf_printf(&b, "%s%s %s", b.len ? " | " : "", p->fn[f].name,
		    mb);
	}
	ui_draw_ltext(y, x, w - x, gp_buf_str(&b), ui_crt_attr(UI_ROLE_VALUE));
	gp_buf_free(&b);
	if (mp == NULL) {
		x = ui_draw_text(y + 1, 0, w, "Predicted peak: ",
		    ui_crt_attr(UI_ROLE_LABEL));
		ui_draw_ltext(y + 1, x, w - x, "(no memory profile)",
		    ui_crt_attr(UI_ROLE_DIM));
		ui_draw_blank(y + 2, 0, w, A_NORMAL);
	} else
		/* with several functions, the first one's; F picks */
		predicted(y + 1, w, p, mf, nmem > 1 || c->fn < 0);
	if (mp != NULL && m->peak_fn >= 0 && h >= CHART_MIN_H) {
		chart(y + TOP_LINES - 1, w, p, m->peak_fn, mp,
		    nmem > 1 || c->fn < 0);
		top += CHART_LINES;
	}
	ui_list_draw(&m->list, y + top, h - top, w);
	ui_list_draw_status(&m->list, y + top - 1, w,
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
	if (r != NULL && m->peak_ap != NULL && r->a == m->peak_ap) {
		arg.fn = m->peak_fn;
		arg.id = r->a->id;
		ui_view_push(c, &ui_view_peak, &arg);
	} else if (r != NULL) {
		arg.fn = r->fn;
		arg.id = r->a->id;
		ui_view_push(c, &ui_view_detail, &arg);
	}
	return (true);
}

/*
 * The buffers live at the peak (Enter on the peak's row): every storage
 * the allocator counts then, largest first, with its kind, how its apply
 * made it (created, view, inplace) and its references.  Enter: the peak
 * apply's details.
 */
struct peak {
	int		fn;
	struct ui_text	text;
};

static const char *const kind_names[] = {
	[GP_MEM_INPUT] = "input",
	[GP_MEM_SHARED] = "shared",
	[GP_MEM_CONSTANT] = "constant",
	[GP_MEM_HELD] = "held",
	[GP_MEM_NEW] = "new",
	[GP_MEM_WORK] = "scratch",
};

static void
peak_init(struct ui_view *v, struct ui_ctx *c, const struct ui_view_arg *a)
{
	struct peak *k = gp_xcalloc(1, sizeof(*k));

	k->fn = a->fn;
	ui_text_init(&k->text);
	v->priv = k;
}

static void
peak_free(struct ui_view *v)
{
	struct peak *k = v->priv;

	ui_text_done(&k->text);
	free(k);
}

/* "created", "view" or "inplace": how apply step of function fn made the
 * output named var, or "" when the profile does not say. */
static const char *
buf_alias(const struct gp_profile *p, const struct gp_mem_buf *b)
{
	const struct gp_memprof *m;
	const struct gp_mem_apply *a;
	const char *name;

	if (b->fn < 0 || b->fn >= p->n_fn || (m = p->fn[b->fn].mem) == NULL ||
	    b->step < 0 || b->step >= m->n_apply)
		return ("");
	a = &m->ap[b->step];
	name = gp_memprof_str(m, b->var);
	for (int o = 0; o < a->n_out; o++) {
		const struct gp_mem_out *out;

		if (a->first_out + (uint32_t)o >= m->n_outs)
			break;
		out = &m->outs[a->first_out + (uint32_t)o];
		if (strcmp(gp_memprof_str(m, out->var), name) == 0)
			return (out->alias == 'v' ? "view" : out->alias == 'i' ?
			    "inplace" : "created");
	}
	return ("");
}

static void
peak_update(struct ui_view *v, struct ui_ctx *c)
{
	struct peak *k = v->priv;
	struct ui_text *t = &k->text;
	const struct gp_profile *p = c->snap;
	const struct gp_memprof *m;
	const struct gp_mem_sim *sim;
	char b1[32], b2[32], b3[32];
	uint64_t sum = 0;

	ui_text_clear(t);
	if (k->fn < 0 || k->fn >= p->n_fn || (m = p->fn[k->fn].mem) == NULL) {
		ui_text_add(t, UI_ROLE_ERROR, "This function has no memory "
		    "profile any more (it was recompiled).  Esc: back.");
		return;
	}
	sim = gp_memprof_sim(m);
	ui_text_add(t, UI_ROLE_SECTION, "Function %s: the program's peak %s "
	    "(and %s outside it), %s call, %s", p->fn[k->fn].name,
	    bytes(b1, sizeof(b1), sim->peak),
	    bytes(b2, sizeof(b2), m->external),
	    sim->peak_call ? "a later" : "the first",
	    sim->peak_step >= 0 ? "during apply" : "at the call's start");
	if (sim->peak_step >= 0 && sim->peak_step < p->fn[k->fn].n_apply)
		ui_text_add(t, UI_ROLE_NORMAL, "  apply %d: %s", sim->peak_step,
		    p->fn[k->fn].ap[sim->peak_step].name);
	ui_text_add(t, UI_ROLE_NORMAL, "  allocated by this call %s | graph "
	    "values %s | held from earlier calls %s",
	    bytes(b1, sizeof(b1), sim->peak_fresh),
	    bytes(b2, sizeof(b2), sim->values),
	    bytes(b3, sizeof(b3), sim->held));
	ui_text_blank(t);
	for (int i = 0; i < sim->n_bufs; i++)
		sum += sim->bufs[i].bytes;
	ui_text_add(t, UI_ROLE_SECTION, "%d buffers live at the peak, %s, "
	    "largest first", sim->n_bufs, bytes(b1, sizeof(b1), sum));
	ui_text_add(t, UI_ROLE_DIM, "  %-20s %10s  %-8s %-8s %4s  %s",
	    "buffer", "bytes", "kind", "made", "refs", "by apply");
	for (int i = 0; i < sim->n_bufs; i++) {
		const struct gp_mem_buf *b = &sim->bufs[i];
		char by[256] = "-";

		if (b->fn >= 0 && b->fn < p->n_fn && b->step >= 0 &&
		    b->step < p->fn[b->fn].n_apply)
			snprintf(by, sizeof(by), "%d %s%s%s", b->step,
			    p->fn[b->fn].ap[b->step].name, b->fn != k->fn ?
			    " of " : "", b->fn != k->fn ? p->fn[b->fn].name :
			    "");
		ui_text_add(t, UI_ROLE_NORMAL, "  %-20s %10s  %-8s %-8s %4d  %s",
		    gp_memprof_str(m, b->var), bytes(b1, sizeof(b1), b->bytes),
		    b->kind >= 0 && b->kind <= GP_MEM_WORK ?
		    kind_names[b->kind] : "?", buf_alias(p, b), b->n_ref, by);
	}
}

static void
peak_draw(struct ui_view *v, struct ui_ctx *c, int y, int h, int w)
{
	struct peak *k = v->priv;

	ui_draw_ltext(y, 0, w, "Buffers live at the memory peak (Enter: the "
	    "apply's details, Esc: back)", ui_crt_attr(UI_ROLE_TITLE));
	ui_text_draw(&k->text, y + 1, h - 1, w);
}

static bool
peak_key(struct ui_view *v, struct ui_ctx *c, enum ui_action a)
{
	struct peak *k = v->priv;
	const struct gp_profile *p = c->snap;
	const struct gp_mem_sim *sim;
	struct ui_view_arg arg = {0};

	if (a != UI_A_ENTER)
		return (false);
	if (k->fn >= 0 && k->fn < p->n_fn && p->fn[k->fn].mem != NULL) {
		sim = gp_memprof_sim(p->fn[k->fn].mem);
		if (sim->peak_step >= 0 &&
		    sim->peak_step < p->fn[k->fn].n_apply) {
			arg.fn = k->fn;
			arg.id = sim->peak_step;
			ui_view_push(c, &ui_view_detail, &arg);
		}
	}
	return (true);
}

static struct ui_text *
peak_text(struct ui_view *v)
{
	return (&((struct peak *)v->priv)->text);
}

static const struct ui_view_class ui_view_peak = {
	.name = "Peak",
	.keys = UI_K_TEXT,
	.init = peak_init,
	.free = peak_free,
	.update = peak_update,
	.draw = peak_draw,
	.key = peak_key,
	.text = peak_text,
};

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
