/*
 * view-detail.c: one apply in full (opened by Enter on an Apply or Memory
 * row): what it is (op, class, implementation, flops, the op's extra such
 * as a C signature), its inputs and outputs (dtype, shape, strides, bytes,
 * created/view/inplace, producer), the first call's time, and the
 * distribution of its time per execution: min, median, p95, max and the
 * histogram of the profile (two bins per octave, gp_prof_stat_coarse).  Live: it follows
 * the snapshots like every view.
 *
 * Up and Down select an input made by another apply (the page scrolls
 * once past the first or the last); Enter opens that apply's details on
 * top, so Esc walks back down the chain.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crt.h"
#include "draw.h"
#include "base/fmt.h"
#include "graph/tensor.h"
#include "view.h"

#define HIST_W 40

struct detail {
	int		fn, id;
	struct ui_text	text;
	/* inputs an apply produced: their input index and text line */
	int		n_sel, *sel_in;
	long		*sel_line;
	int		sel;		/* in sel_in, or -1 */
};

static void
detail_init(struct ui_view *v, struct ui_ctx *c, const struct ui_view_arg *a)
{
	struct detail *d = gp_xcalloc(1, sizeof(*d));

	d->fn = a->fn;
	d->id = a->id;
	d->sel = -1;
	ui_text_init(&d->text);
	v->priv = d;
}

static void
detail_free(struct ui_view *v)
{
	struct detail *d = v->priv;

	ui_text_done(&d->text);
	free(d->sel_in);
	free(d->sel_line);
	free(d);
}

static void
io_line(struct ui_text *t, const char *what, int k,
    const struct gp_prof_io *io, const struct gp_prof_fn *pf, int producer,
    bool output)
{
	struct gp_buf sh = {0}, st = {0};
	char nb[32];
	const char *kind = "";

	gp_shape_format(&sh, io->ndim, io->shape);
	if (io->strides_known)
		gp_shape_format(&st, io->ndim, io->strides);
	else
		gp_buf_puts(&st, "unknown");
	gp_fmt_bytes(nb, sizeof(nb), (double)io->nbytes);
	if (output)
		kind = io->alias == 'v' ? "view" : io->alias == 'i' ?
		    "inplace" : "created";
	ui_text_add(t, UI_ROLE_NORMAL, "  %s %d %-12s %s%-12s strides %-10s "
	    "%8s %s", what, k, io->var ? io->var : "?",
	    gp_dtype_name(io->dtype), gp_buf_str(&sh), gp_buf_str(&st), nb,
	    kind);
	if (!output && producer >= 0 && producer < pf->n_apply)
		ui_text_add(t, UI_ROLE_DIM, "           from apply %d: %s",
		    producer, pf->ap[producer].name);
	gp_buf_free(&sh);
	gp_buf_free(&st);
}

static void
histogram(struct ui_text *t, const struct gp_prof_stat *st)
{
	int lo = -1, hi = -1;
	uint64_t most = 0, h[GP_PROF_COARSE];

	/* the profile's bins, two per octave: a shape that fits a screen */
	gp_prof_stat_coarse(st, h);
	for (int b = 0; b < GP_PROF_COARSE; b++)
		if (h[b] > 0) {
			if (lo < 0)
				lo = b;
			hi = b;
			if (h[b] > most)
				most = h[b];
		}
	if (lo < 0)
		return;
	ui_text_add(t, UI_ROLE_SECTION, "Histogram of the time per execution");
	for (int b = lo; b <= hi; b++) {
		char l[32], hs[32], bar[HIST_W * 4 + 1];

		gp_fmt_time(l, sizeof(l), gp_prof_coarse_lo(b));
		if (b + 1 < GP_PROF_COARSE)
			gp_fmt_time(hs, sizeof(hs), gp_prof_coarse_lo(b + 1));
		else
			snprintf(hs, sizeof(hs), "...");
		ui_bar_string(bar, sizeof(bar), HIST_W, (double)h[b] /
		    (double)most);
		ui_text_add(t, UI_ROLE_BAR, "  %9s - %-9s %s %llu", l, hs, bar,
		    (unsigned long long)h[b]);
	}
}

/* the source nodes listed on the details screen; then "+N" */
#define DETAIL_MAX_SOURCES 24

static void
detail_update(struct ui_view *v, struct ui_ctx *c)
{
	struct detail *d = v->priv;
	struct ui_text *t = &d->text;
	const struct gp_profile *p = c->snap;
	const struct gp_prof_apply *a;
	char x1[32], x2[64], x3[32], x4[32];
	bool made = true;

	ui_text_clear(t);
	if (d->fn < 0 || d->fn >= p->n_fn || d->id < 0 ||
	    d->id >= p->fn[d->fn].n_apply) {
		ui_text_add(t, UI_ROLE_ERROR, "This apply is not in the "
		    "program any more (it was recompiled).  Esc: back.");
		return;
	}
	a = &p->fn[d->fn].ap[d->id];
	free(d->sel_in);
	free(d->sel_line);
	d->sel_in = gp_xcalloc((size_t)a->n_in + 1, sizeof(int));
	d->sel_line = gp_xcalloc((size_t)a->n_in + 1, sizeof(long));
	d->n_sel = 0;
	ui_text_add(t, UI_ROLE_SECTION, "Apply %d of function %s: %s", a->id,
	    p->fn[d->fn].name, a->name);
	ui_text_add(t, UI_ROLE_NORMAL, "  class %s | op %s | graph op %s%s%s",
	    a->cls, a->op, a->opname, a->node && a->node[0] ? " | node " : "",
	    a->node ? a->node : "");
	/* preparation: measured at link time; a capture made before it
	 * was recorded has none, and then says nothing */
	if (a->link_ns > 0)
		ui_text_add(t, UI_ROLE_NORMAL, "  implementation %s | flops "
		    "per execution %.0f | prepared in %s%s",
		    gp_impl_names[a->impl], a->flops, (gp_fmt_time(x1,
		    sizeof(x1), a->link_ns), x1), a->jit_ns > 0 ?
		    (snprintf(x2, sizeof(x2), " (JIT compile %s)",
		    (gp_fmt_time(x3, sizeof(x3), a->jit_ns), x3)), x2) : "");
	else
		ui_text_add(t, UI_ROLE_NORMAL, "  implementation %s | flops "
		    "per execution %.0f", gp_impl_names[a->impl], a->flops);
	if (a->extra != NULL && a->extra[0] != '\0')
		ui_text_add(t, UI_ROLE_NORMAL, "  %s", a->extra);
	/* provenance: the graph file's nodes whose work it does (none in a
	 * capture older than gptop-capture/3) */
	if (a->n_src > 0) {
		struct gp_buf b = {0};

		gp_prof_src_list(p, a, DETAIL_MAX_SOURCES, &b);
		ui_text_add(t, UI_ROLE_NORMAL, "  source node%s (%d): %s",
		    a->n_src == 1 ? "" : "s", a->n_src, gp_buf_str(&b));
		gp_buf_free(&b);
	}
	ui_text_blank(t);
	for (int k = 0; k < a->n_in; k++)
		if (a->in_producer != NULL && a->in_producer[k] >= 0)
			break;
		else if (k + 1 == a->n_in)
			made = false;
	ui_text_add(t, UI_ROLE_SECTION, "Inputs%s", made && a->n_in > 0 ?
	    " (Up/Down: select one an apply made, Enter: that apply)" : "");
	for (int k = 0; k < a->n_in; k++) {
		int pr = a->in_producer ? a->in_producer[k] : -1;

		if (pr >= 0 && pr < p->fn[d->fn].n_apply) {
			d->sel_in[d->n_sel] = k;
			d->sel_line[d->n_sel++] = (long)t->n;
		}
		io_line(t, "in ", k, &a->in[k], &p->fn[d->fn], pr, false);
	}
	ui_text_add(t, UI_ROLE_SECTION, "Outputs");
	for (int k = 0; k < a->n_out; k++)
		io_line(t, "out", k, &a->out[k], &p->fn[d->fn], -1, true);
	if (d->sel >= d->n_sel)
		d->sel = d->n_sel - 1;
	t->mark = d->sel >= 0 ? d->sel_line[d->sel] : -1;
	ui_text_blank(t);
	ui_text_add(t, UI_ROLE_SECTION, "Time per execution");
	gp_fmt_time(x1, sizeof(x1), (double)a->first_ns);
	ui_text_add(t, UI_ROLE_NORMAL, "  first call %s (%s)", x1,
	    p->ignore_first ? "left out of the figures below" :
	    "included below");
	gp_fmt_time(x1, sizeof(x1), (double)a->st.total);
	gp_fmt_time(x2, sizeof(x2), a->st.n ? (double)a->st.total /
	    (double)a->st.n : 0);
	ui_text_add(t, UI_ROLE_NORMAL, "  executions %llu | total %s | mean %s",
	    (unsigned long long)a->st.n, x1, x2);
	gp_fmt_time(x1, sizeof(x1), (double)a->st.min);
	gp_fmt_time(x2, sizeof(x2), gp_prof_stat_quantile(&a->st, 0.5));
	gp_fmt_time(x3, sizeof(x3), gp_prof_stat_quantile(&a->st, 0.95));
	gp_fmt_time(x4, sizeof(x4), (double)a->st.max);
	ui_text_add(t, UI_ROLE_VALUE, "  min %s | median %s | p95 %s | max %s",
	    x1, x2, x3, x4);
	ui_text_blank(t);
	histogram(t, &a->st);
}

static void
detail_draw(struct ui_view *v, struct ui_ctx *c, int y, int h, int w)
{
	struct detail *d = v->priv;

	ui_draw_ltext(y, 0, w, "Apply details (Esc: back)",
	    ui_crt_attr(UI_ROLE_TITLE));
	ui_text_draw(&d->text, y + 1, h - 1, w);
}

static bool
detail_key(struct ui_view *v, struct ui_ctx *c, enum ui_action a)
{
	struct detail *d = v->priv;
	struct ui_view_arg arg = {0};
	const struct gp_prof_apply *ap;

	switch (a) {
	case UI_A_DOWN:
		if (d->sel + 1 >= d->n_sel)
			return (false);		/* scroll */
		d->sel++;
		break;
	case UI_A_UP:
		if (d->sel < 0)
			return (false);
		d->sel--;
		break;
	case UI_A_ENTER:
		if (d->sel < 0 || d->fn >= c->snap->n_fn ||
		    d->id >= c->snap->fn[d->fn].n_apply) {
			ui_ctx_msg(c, UI_ROLE_MSG, d->n_sel > 0 ? "select "
			    "an input first (Up/Down)" : "no input of this "
			    "apply is made by another apply");
			return (true);
		}
		ap = &c->snap->fn[d->fn].ap[d->id];
		arg.fn = d->fn;
		arg.id = ap->in_producer[d->sel_in[d->sel]];
		ui_view_push(c, &ui_view_detail, &arg);
		return (true);
	default:
		return (false);
	}
	d->text.mark = d->sel >= 0 ? d->sel_line[d->sel] : -1;
	if (d->text.mark >= 0 && (size_t)d->text.mark < d->text.top)
		d->text.top = (size_t)d->text.mark;
	if (d->text.mark >= 0 && d->text.h > 0 && (size_t)d->text.mark >=
	    d->text.top + (size_t)d->text.h)
		d->text.top = (size_t)d->text.mark - (size_t)d->text.h + 1;
	return (true);
}

static struct ui_text *
detail_text(struct ui_view *v)
{
	return (&((struct detail *)v->priv)->text);
}

const struct ui_view_class ui_view_detail = {
	.name = "Details",
	.keys = UI_K_TEXT,
	.init = detail_init,
	.free = detail_free,
	.update = detail_update,
	.draw = detail_draw,
	.key = detail_key,
	.text = detail_text,
};
