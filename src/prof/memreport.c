/*
 * memreport.c: the Memory Profile section of the batch report (see
 * memreport.h).
 */
#include "config.h"

#include "prof/memreport.h"

#include <stdlib.h>
#include <string.h>

#include "base/fmt.h"
#include "prof/memprof.h"

static uint64_t
max64(uint64_t a, uint64_t b)
{
	return (a > b ? a : b);
}

/* "7.6MiB (8000000 B)", or "80 B". */
static const char *
fmt_b(char *buf, size_t n, uint64_t b)
{
	char h[32];

	if (b < 1024) {
		snprintf(buf, n, "%llu B", (unsigned long long)b);
		return (buf);
	}
	gp_fmt_bytes(h, sizeof(h), (double)b);
	snprintf(buf, n, "%s (%llu B)", h, (unsigned long long)b);
	return (buf);
}

static void
put_cut(FILE *fp, const char *s, int room)
{
	int len = (int)strlen(s);

	if (room < 8)
		room = 8;
	if (len <= room)
		fprintf(fp, "%s\n", s);
	else
		fprintf(fp, "%.*s...\n", room - 3, s);
}

static void
fmt_shapes(struct gp_buf *b, const struct gp_memprof *m,
    const struct gp_mem_apply *a)
{
	gp_buf_puts(b, "[");
	for (int k = 0; k < a->n_out; k++) {
		const struct gp_mem_out *o = &m->outs[a->first_out + k];

		gp_buf_puts(b, k ? ", (" : "(");
		for (int d = 0; d < o->ndim; d++)
			gp_buf_printf(b, "%s%lld", d ? ", " : "",
			    (long long)o->shape[d]);
		gp_buf_puts(b, o->ndim == 1 ? ",)" : ")");
	}
	gp_buf_puts(b, "]");
}

static bool
c_contiguous(const struct gp_prof_io *io)
{
	int64_t want = (int64_t)gp_dtype_size(io->dtype);

	for (int d = io->ndim - 1; d >= 0; d--) {
		if (io->shape[d] != 1 && io->strides[d] != want)
			return (false);
		want *= io->shape[d];
	}
	return (true);
}

/* Is b's shape a permutation of a's (size-1 dimensions left out)? */
static bool
same_dims(const struct gp_prof_io *a, const struct gp_prof_io *b)
{
	int64_t x[GP_MAX_DIMS], y[GP_MAX_DIMS];
	int nx = 0, ny = 0;

	for (int d = 0; d < a->ndim; d++)
		if (a->shape[d] != 1)
			x[nx++] = a->shape[d];
	for (int d = 0; d < b->ndim; d++)
		if (b->shape[d] != 1)
			y[ny++] = b->shape[d];
	if (nx != ny)
		return (false);
	for (int i = 0; i < nx; i++) {
		bool found = false;

		for (int j = 0; j < ny && !found; j++)
			if (y[j] == x[i]) {
				y[j] = -1;
				found = true;
			}
		if (!found)
			return (false);
	}
	return (true);
}

/* Applies whose kernels may allocate beyond the prediction; returns the
 * bytes they could add (an upper bound).  A declared view whose source
 * is not contiguous, whose output is, and whose shape is not a
 * permutation of the source's was a copy its op did not say it would
 * make (its view_layout, graph/op.h: reshape and flatten say so, and
 * those copies are predicted).  Copies of strided operands into work
 * space (BLAS operands, a strided convolution input) are declared and
 * predicted. */
static uint64_t
list_suspects(FILE *fp, const struct gp_profile *p, int f, bool print)
{
	const struct gp_prof_fn *pf = &p->fn[f];
	const struct gp_memprof *m = pf->mem;
	uint64_t extra = 0;

	for (int i = 0; i < m->n_apply && i < pf->n_apply; i++) {
		const struct gp_prof_apply *a = &pf->ap[i];
		const struct gp_mem_apply *ma = &m->ap[i];

		for (int k = 0; k < ma->n_out && k < a->n_out; k++) {
			const struct gp_mem_out *o =
			    &m->outs[ma->first_out + k];

			if (o->alias != 'v' || o->src < 0 ||
			    o->src >= a->n_in || !a->in[o->src].strides_known ||
			    !a->out[k].strides_known ||
			    c_contiguous(&a->in[o->src]) ||
			    !c_contiguous(&a->out[k]) ||
			    same_dims(&a->in[o->src], &a->out[k]))
				continue;
			extra += o->bytes;
			if (print)
				fprintf(fp, "        apply %d declares output "
				    "%d a view of a non-contiguous input but "
				    "copied it, a copy its op did not announce "
				    "(%llu B): %s\n", i, k, (unsigned long long)
				    o->bytes, a->name);
		}
	}
	return (extra);
}

/* The span's calls, in words ("a later call"). */
static const char *
span_call(enum gp_mem_span span, int peak_call)
{
	switch (span) {
	case GP_MEM_SPAN_FIRST:
		return ("the first call (the only one run)");
	case GP_MEM_SPAN_LATER:
		return ("a later call (the first was not counted)");
	default:
		return (peak_call ? "a later call" : "the first call");
	}
}

static void
measured_lines(FILE *fp, const struct gp_profile *p, int f)
{
	const struct gp_prof_fn *pf = &p->fn[f];
	const struct gp_memprof *m = pf->mem;
	const struct gp_mem_sim *s = gp_memprof_sim(m);
	enum gp_mem_span span = gp_memprof_span(p, f);
	uint64_t pred = gp_memprof_predicted_peak(p, f);
	uint64_t meas = pf->mem_peak_measured;
	int call = span == GP_MEM_SPAN_FIRST ? 0 : span == GP_MEM_SPAN_LATER ?
	    1 : s->peak_call;
	char b1[64], b2[64];

	fprintf(fp, "    Predicted peak (the program's peak over the calls "
	    "run, plus storage outside it): %s, in %s", fmt_b(b1, sizeof(b1),
	    pred), span_call(span, s->peak_call));
	if (call == s->peak_call) {
		if (s->peak_step >= 0)
			fprintf(fp, ", during apply %d", s->peak_step);
		else
			fprintf(fp, ", at its start");
		fprintf(fp, "; of it %s allocated during the call",
		    fmt_b(b1, sizeof(b1), s->peak_fresh));
	}
	fprintf(fp, "\n");
	if (meas == 0) {
		fprintf(fp, "    Measured peak: none (no call was run)\n");
		return;
	}
	fprintf(fp, "    Measured peak (the allocator's high-water mark over "
	    "the calls run): %s: ", fmt_b(b1, sizeof(b1), meas));
	if (meas == pred) {
		fprintf(fp, "equal to the predicted peak\n");
		return;
	}
	if (span == GP_MEM_SPAN_ALL && meas == s->peak_steady + m->external) {
		fprintf(fp, "equal to the predicted peak of a later call (the "
		    "first call, %s, was not counted)\n",
		    fmt_b(b2, sizeof(b2), s->peak_first + m->external));
		return;
	}
	if (meas > pred)
		fprintf(fp, "%s above the predicted peak\n",
		    fmt_b(b2, sizeof(b2), meas - pred));
	else
		fprintf(fp, "%s below the predicted peak\n",
		    fmt_b(b2, sizeof(b2), pred - meas));
	fprintf(fp, "      Why it can differ:\n");
	(void)list_suspects(fp, p, f, true);
	fprintf(fp, "        kernels may allocate temporaries beyond the work "
	    "space their ops declare; storage outside the program that "
	    "the session did not declare counts too\n");
}

/* The kernels' work space (ops/scratch.h): in the program peak, alive
 * during the apply that takes it. */
static void
work_lines(FILE *fp, const struct gp_profile *p, int f)
{
	const struct gp_prof_fn *pf = &p->fn[f];
	const struct gp_memprof *m = pf->mem;
	const struct gp_mem_sim *s = gp_memprof_sim(m);
	uint64_t at_peak = s->peak_step >= 0 && s->peak_step < m->n_apply ?
	    m->ap[s->peak_step].work_bytes : 0;
	char b1[64], b2[64];

	fprintf(fp, "    Work space (kernels' scratch, alive during the apply "
	    "that takes it): ");
	if (m->n_work == 0) {
		fprintf(fp, "none\n");
		return;
	}
	fprintf(fp, "largest %s, apply %d", fmt_b(b1, sizeof(b1),
	    m->work_max), m->work_max_step);
	if (m->work_max_step < pf->n_apply)
		fprintf(fp, " (%s)", pf->ap[m->work_max_step].name);
	fprintf(fp, "; %d appl%s take some; at the program's peak %s\n",
	    m->n_work, m->n_work == 1 ? "y" : "ies", fmt_b(b2, sizeof(b2),
	    at_peak));
}

static const char *const kind_names[] = {
	[GP_MEM_INPUT] = "input",
	[GP_MEM_SHARED] = "shared",
	[GP_MEM_CONSTANT] = "constant",
	[GP_MEM_HELD] = "held",
	[GP_MEM_NEW] = "new",
	[GP_MEM_WORK] = "scratch",
};

static void
peak_buffers(FILE *fp, const struct gp_profile *p, int f,
    const struct gp_report_opts *o)
{
	const struct gp_memprof *m = p->fn[f].mem;
	const struct gp_mem_sim *s = gp_memprof_sim(m);
	int shown = 0;
	uint64_t rest = 0;
	char b1[64];

	fprintf(fp, "Storage alive at the program's peak (%s, ",
	    s->peak_call ? "a later call" : "the first call");
	if (s->peak_step < 0)
		fprintf(fp, "at the call's start):\n");
	else
		fprintf(fp, "during apply %d: %s):\n", s->peak_step,
		    s->peak_step < p->fn[f].n_apply ?
		    p->fn[f].ap[s->peak_step].name : "?");
	fprintf(fp, "    <bytes> <kind> <refs> <variable> <made by>\n");
	for (int i = 0; i < s->n_bufs; i++) {
		const struct gp_mem_buf *b = &s->bufs[i];

		if (shown >= o->n_apply ||
		    (int64_t)b->bytes < o->min_memory_size) {
			rest += b->bytes;
			continue;
		}
		shown++;
		fprintf(fp, "    %12lluB  %-8s %4d  %s", (unsigned long long)
		    b->bytes, b->kind >= 0 && b->kind <= GP_MEM_WORK ?
		    kind_names[b->kind] : "?", b->n_ref,
		    gp_memprof_str(m, b->var));
		if (b->kind == GP_MEM_WORK && b->fn >= 0 && b->fn < p->n_fn)
			fprintf(fp, "  (work space of apply %d of %s, while it "
			    "runs)", b->step, p->fn[b->fn].name);
		else if (b->fn >= 0 && b->fn < p->n_fn)
			fprintf(fp, "  (made by apply %d of %s%s)", b->step,
			    p->fn[b->fn].name, b->kind == GP_MEM_NEW ? "" :
			    " in an earlier call");
		fprintf(fp, "\n");
	}
	if (shown < s->n_bufs)
		fprintf(fp, "    ... (remaining %d storages: %s)\n",
		    s->n_bufs - shown, fmt_b(b1, sizeof(b1), rest));
}

struct row {
	int		fn, id;
	uint64_t	bytes;
};

static int
cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->bytes != y->bytes)
		return (x->bytes > y->bytes ? -1 : 1);
	if (x->fn != y->fn)
		return (x->fn - y->fn);
	return (x->id - y->id);
}

/* The per-apply table over function fn (fn < 0: all). */
static void
apply_table(FILE *fp, const struct gp_profile *p, int fn,
    const struct gp_report_opts *o)
{
	struct row *rows = NULL;
	size_t n = 0, cap = 0, shown = 0;
	uint64_t total = 0, rest = 0;
	struct gp_buf b = {0};
	int multi = 0;

	for (int f = 0; f < p->n_fn; f++) {
		const struct gp_memprof *m = p->fn[f].mem;

		if ((fn >= 0 && f != fn) || m == NULL)
			continue;
		multi++;
		for (int i = 0; i < m->n_apply; i++) {
			gp_grow(&rows, &cap, n + 1, sizeof(*rows));
			rows[n].fn = f;
			rows[n].id = i;
			rows[n++].bytes = m->ap[i].out_bytes;
			total += m->ap[i].out_bytes;
		}
	}
	if (n > 0)
		qsort(rows, n, sizeof(*rows), cmp_row);
	fprintf(fp, "    <Sum apply outputs (bytes)> <Apply outputs shape> "
	    "<created/inplace/view> <Apply node>\n");
	if (multi > 1)
		fprintf(fp, "    (this list is based on all functions in the "
		    "profile; \"f:N\" is apply N of function f)\n");
	for (size_t r = 0; r < n; r++) {
		const struct gp_memprof *m = p->fn[rows[r].fn].mem;
		const struct gp_mem_apply *a = &m->ap[rows[r].id];
		const struct gp_prof_fn *pf = &p->fn[rows[r].fn];
		int used;

		if ((int)shown >= o->n_apply ||
		    (int64_t)rows[r].bytes < o->min_memory_size) {
			rest += rows[r].bytes;
			continue;
		}
		shown++;
		gp_buf_clear(&b);
		gp_buf_printf(&b, "     %9lluB  ", (unsigned long long)
		    rows[r].bytes);
		fmt_shapes(&b, m, a);
		gp_buf_puts(&b, " ");
		for (int k = 0; k < a->n_out; k++)
			gp_buf_printf(&b, "%s%c", k ? " " : "",
			    m->outs[a->first_out + k].alias);
		gp_buf_puts(&b, " ");
		if (multi > 1)
			gp_buf_printf(&b, "%s:%d ", pf->name, rows[r].id);
		used = (int)b.len;
		fputs(gp_buf_str(&b), fp);
		put_cut(fp, rows[r].id < pf->n_apply ?
		    pf->ap[rows[r].id].name : "?", o->width - used);
	}
	fprintf(fp, "   ... (remaining %zu Apply account for %lluB/%lluB "
	    "(%.2f%%) of the Apply with dense outputs sizes)\n", n - shown,
	    (unsigned long long)rest, (unsigned long long)total,
	    total ? 100.0 * (double)rest / (double)total : 0.0);
	if (shown == 0)
		fprintf(fp, "    All Apply nodes have output sizes that take "
		    "less than %lldB.\n", (long long)o->min_memory_size);
	fprintf(fp, "    c: allocated by the VM; v: a view of an input; "
	    "i: an input overwritten in place.  Views and in-place outputs "
	    "allocate nothing, as the VM runs them.\n");
	gp_buf_free(&b);
	free(rows);
}

/* The applies that take work space (function fn, or all when fn < 0),
 * largest first; nothing when none does. */
static void
work_table(FILE *fp, const struct gp_profile *p, int fn,
    const struct gp_report_opts *o)
{
	struct row *rows = NULL;
	size_t n = 0, cap = 0, shown = 0;
	uint64_t rest = 0;
	int multi = 0;

	for (int f = 0; f < p->n_fn; f++) {
		const struct gp_memprof *m = p->fn[f].mem;

		if ((fn >= 0 && f != fn) || m == NULL)
			continue;
		multi++;
		for (int i = 0; i < m->n_apply; i++) {
			if (m->ap[i].work_bytes == 0)
				continue;
			gp_grow(&rows, &cap, n + 1, sizeof(*rows));
			rows[n].fn = f;
			rows[n].id = i;
			rows[n++].bytes = m->ap[i].work_bytes;
		}
	}
	if (n == 0)
		return;
	qsort(rows, n, sizeof(*rows), cmp_row);
	fprintf(fp, "  ---\n");
	fprintf(fp, "    <Apply work space (bytes)> <Apply node>\n");
	for (size_t r = 0; r < n; r++) {
		const struct gp_prof_fn *pf = &p->fn[rows[r].fn];
		char head[64];

		if ((int)shown >= o->n_apply ||
		    (int64_t)rows[r].bytes < o->min_memory_size) {
			rest += rows[r].bytes;
			continue;
		}
		shown++;
		if (multi > 1)
			snprintf(head, sizeof(head), "     %9lluB  %s:%d ",
			    (unsigned long long)rows[r].bytes, pf->name,
			    rows[r].id);
		else
			snprintf(head, sizeof(head), "     %9lluB  ",
			    (unsigned long long)rows[r].bytes);
		fputs(head, fp);
		put_cut(fp, rows[r].id < pf->n_apply ?
		    pf->ap[rows[r].id].name : "?", o->width - (int)strlen(head));
	}
	if (shown < n)
		fprintf(fp, "   ... (remaining %zu Apply take %lluB of work "
		    "space)\n", n - shown, (unsigned long long)rest);
	fprintf(fp, "    Work space: the kernel's scratch (im2col matrices, "
	    "per-channel factors), alive while the apply runs; in the "
	    "predicted and measured peaks, not in the intermediates.\n");
	free(rows);
}

/* Theano's lines for one profile (or the max over functions), named
 * after the figure they give: the intermediates peak.  Theano's "Memory
 * saved" figures are sums over outputs, never alive at once: the saving
 * printed is the change in the peak, the sum beside it, explained. */
static void
theano_lines(FILE *fp, uint64_t cur, uint64_t noinpl, uint64_t nogc,
    bool min_done, uint64_t min_peak, double min_ms, const char *min_note,
    uint64_t sum_view, uint64_t view_peak, uint64_t sum_inpl,
    uint64_t inpl_peak, uint64_t gc_saved)
{
	char b1[64], b2[64];

	fprintf(fp, "    Intermediates peak with current setting: %s\n",
	    fmt_b(b1, sizeof(b1), cur));
	fprintf(fp, "    Intermediates peak with current setting and flag "
	    "optimizer_excluding=inplace: %s\n", fmt_b(b1, sizeof(b1),
	    noinpl));
	fprintf(fp, "    Intermediates peak if allow_gc=False: %s\n",
	    fmt_b(b1, sizeof(b1), nogc));
	if (min_done) {
		gp_fmt_time(b2, sizeof(b2), min_ms * 1e6);
		fprintf(fp, "    Minimum intermediates peak from all valid "
		    "apply node orders is %s (took %s to compute; %s)\n",
		    fmt_b(b1, sizeof(b1), min_peak), b2, min_note);
	}
	fprintf(fp, "    Memory saved if views are used: %s off the "
	    "intermediates peak", fmt_b(b1, sizeof(b1), view_peak));
	if (sum_view > 0)
		fprintf(fp, " (Theano's figure, the sum of the outputs declared "
		    "views, is %s%s)", fmt_b(b2, sizeof(b2), sum_view),
		    sum_view > view_peak ? ": they are not alive at once" : "");
	fprintf(fp, "\n");
	fprintf(fp, "    Memory saved if inplace ops are used: %s off the "
	    "intermediates peak", fmt_b(b1, sizeof(b1), inpl_peak));
	if (sum_inpl > 0)
		fprintf(fp, " (Theano's figure, the sum of the outputs declared "
		    "inplace, is %s%s)", fmt_b(b2, sizeof(b2), sum_inpl),
		    sum_inpl > inpl_peak ? ": they are not alive at once" : "");
	fprintf(fp, "\n");
	fprintf(fp, "    Memory saved if gc is enabled: %s off the "
	    "intermediates peak\n", fmt_b(b1, sizeof(b1), gc_saved));
}

static uint64_t
sub0(uint64_t a, uint64_t b)
{
	return (a > b ? a - b : 0);
}

static void
function_section(FILE *fp, const struct gp_profile *p, int f,
    const struct gp_report_opts *o)
{
	const struct gp_memprof *m = p->fn[f].mem;
	const struct gp_mem_sim *s = gp_memprof_sim(m);
	const struct gp_mem_sim *os = &m->sim[m->allow_gc ? 1 : 0];
	enum gp_mem_span span = gp_memprof_span(p, f);
	int g = m->allow_gc ? 0 : 1;
	char b1[64], b2[64], b3[64], note[256];
	uint64_t cur = gp_memprof_inter_peak(m);

	fprintf(fp, "Function %s: %d applies, allow_gc=%s (as the VM runs); "
	    "sizes from the static shapes\n", p->fn[f].name, m->n_apply,
	    m->allow_gc ? "True" : "False");
	fprintf(fp, "  Intermediates (Theano's \"Max peak memory\"): the "
	    "storage the applies allocate in one call on its own\n");
	if (m->min_done) {
		if (m->min_optimal)
			snprintf(note, sizeof(note), "proven optimal, %llu "
			    "states", (unsigned long long)m->min_states);
		else
			snprintf(note, sizeof(note), "the best order found "
			    "within the budget, %llu states; no order needs "
			    "less than %s", (unsigned long long)m->min_states,
			    fmt_b(b3, sizeof(b3), m->min_lower));
	}
	theano_lines(fp, cur, m->inter[g][GP_MEM_NO_INPLACE],
	    m->inter[1][GP_MEM_AS_RUN], m->min_done, m->min_peak, m->min_ms,
	    note, m->sum_view, sub0(m->inter[g][GP_MEM_NO_VIEW], cur),
	    m->sum_inplace, sub0(m->inter[g][GP_MEM_NO_INPLACE], cur),
	    sub0(m->inter[1][GP_MEM_AS_RUN], m->inter[0][GP_MEM_AS_RUN]));
	if (m->min_done && m->min_peak < m->inter[0][GP_MEM_AS_RUN]) {
		struct gp_buf b = {0};

		gp_buf_printf(&b, "      that order (apply ids):");
		for (int i = 0; i < m->n_apply; i++)
			gp_buf_printf(&b, " %d", m->min_order[i]);
		put_cut(fp, gp_buf_str(&b), o->width);
		gp_buf_free(&b);
	}
	fprintf(fp, "  All storage (what the allocator counts), call after "
	    "call as the session runs them:\n");
	fprintf(fp, "    Persistent at the start of a later call: %s\n",
	    fmt_b(b1, sizeof(b1), s->base_steady));
	fprintf(fp, "      graph values: %s (inputs %s, shared %s, ",
	    fmt_b(b1, sizeof(b1), s->values),
	    fmt_b(b2, sizeof(b2), m->val_input),
	    fmt_b(b3, sizeof(b3), m->val_shared));
	fprintf(fp, "constants %s; ", fmt_b(b1, sizeof(b1), m->val_const));
	fprintf(fp, "this function reads %s)\n", fmt_b(b1, sizeof(b1),
	    m->val_used));
	fprintf(fp, "      buffers held from earlier calls: %s\n",
	    fmt_b(b1, sizeof(b1), s->held));
	fprintf(fp, "    Program peak: first call %s%s, later calls %s%s; "
	    "with allow_gc=%s: %s\n", fmt_b(b1, sizeof(b1), s->peak_first),
	    span == GP_MEM_SPAN_LATER ? " (not counted)" : "",
	    fmt_b(b2, sizeof(b2), s->peak_steady),
	    span == GP_MEM_SPAN_FIRST ? " (none was run)" : "",
	    m->allow_gc ? "False" : "True", fmt_b(b3, sizeof(b3),
	    gp_memprof_sim_peak(os, span)));
	fprintf(fp, "    Outside the program: %s%s\n", fmt_b(b1, sizeof(b1),
	    m->external), m->external > 0 ? " (the session's pristine copy "
	    "of the shared variables, kept for recompiles)" : "");
	work_lines(fp, p, f);
	measured_lines(fp, p, f);
	fprintf(fp, "  ---\n");
}

void
gp_memprof_report(FILE *fp, const struct gp_profile *p, int fn,
    const struct gp_report_opts *o)
{
	int n = 0, first = -1;

	for (int f = 0; f < p->n_fn; f++)
		if ((fn < 0 || f == fn) && p->fn[f].mem != NULL) {
			n++;
			if (first < 0)
				first = f;
		}
	if (fn >= 0 || p->n_fn == 1) {
		fprintf(fp, "Memory Profile\n--------------\n");
		if (n == 0) {
			fprintf(fp, "    (no memory profile was computed)\n\n");
			return;
		}
		function_section(fp, p, first, o);
		apply_table(fp, p, first, o);
		work_table(fp, p, first, o);
		fprintf(fp, "  ---\n");
		peak_buffers(fp, p, first, o);
		fprintf(fp, "\n");
		return;
	}
	fprintf(fp, "Memory Profile (the max between all functions in that "
	    "profile, then each function)\n"
	    "-------------------------------------------------------------"
	    "-------------------\n");
	if (n == 0) {
		fprintf(fp, "    (no memory profile was computed)\n\n");
		return;
	}
	{
		uint64_t cur = 0, noinpl = 0, nogc = 0, minp = 0, sv = 0,
		    vp = 0, si = 0, ip = 0, gs = 0;
		double ms = 0;
		bool md = false, opt = true;
		char note[64];

		for (int f = 0; f < p->n_fn; f++) {
			const struct gp_memprof *m = p->fn[f].mem;
			int g;
			uint64_t c;

			if (m == NULL)
				continue;
			g = m->allow_gc ? 0 : 1;
			c = m->inter[g][GP_MEM_AS_RUN];
			cur = max64(cur, c);
			noinpl = max64(noinpl, m->inter[g][GP_MEM_NO_INPLACE]);
			nogc = max64(nogc, m->inter[1][GP_MEM_AS_RUN]);
			if (m->min_done) {
				md = true;
				minp = max64(minp, m->min_peak);
				ms += m->min_ms;
				opt = opt && m->min_optimal;
			}
			sv = max64(sv, m->sum_view);
			vp = max64(vp, sub0(m->inter[g][GP_MEM_NO_VIEW], c));
			si = max64(si, m->sum_inplace);
			ip = max64(ip, sub0(m->inter[g][GP_MEM_NO_INPLACE], c));
			gs = max64(gs, sub0(m->inter[1][GP_MEM_AS_RUN],
			    m->inter[0][GP_MEM_AS_RUN]));
		}
		snprintf(note, sizeof(note), "%s", opt ? "proven optimal" :
		    "the best found within the budget");
		fprintf(fp, "  Intermediates (Theano's \"Max peak memory\"), each figure "
		    "maxed over the functions separately:\n");
		theano_lines(fp, cur, noinpl, nogc, md, minp, ms, note, sv, vp,
		    si, ip, gs);
	}
	fprintf(fp, "  ---\n");
	fprintf(fp, "    %-14s %14s %14s %14s %14s %14s %14s\n", "<function>",
	    "<intermediates>", "<no inplace>", "<no gc>", "<min peak>",
	    "<predicted>", "<measured>");
	for (int f = 0; f < p->n_fn; f++) {
		const struct gp_memprof *m = p->fn[f].mem;
		int g;
		char mp[32] = "-", meas[32] = "-", c1[32], c2[32], c3[32],
		    c4[32];

		if (m == NULL)
			continue;
		g = m->allow_gc ? 0 : 1;
		if (m->min_done)
			snprintf(mp, sizeof(mp), "%lluB%s",
			    (unsigned long long)m->min_peak,
			    m->min_optimal ? "" : "?");
		if (p->fn[f].mem_peak_measured > 0)
			snprintf(meas, sizeof(meas), "%lluB", (unsigned long
			    long)p->fn[f].mem_peak_measured);
		snprintf(c1, sizeof(c1), "%lluB",
		    (unsigned long long)m->inter[g][GP_MEM_AS_RUN]);
		snprintf(c2, sizeof(c2), "%lluB",
		    (unsigned long long)m->inter[g][GP_MEM_NO_INPLACE]);
		snprintf(c3, sizeof(c3), "%lluB",
		    (unsigned long long)m->inter[1][GP_MEM_AS_RUN]);
		snprintf(c4, sizeof(c4), "%lluB",
		    (unsigned long long)gp_memprof_predicted_peak(p, f));
		fprintf(fp, "    %-14s %14s %14s %14s %14s %14s %14s\n",
		    p->fn[f].name, c1, c2, c3, mp, c4, meas);
	}
	fprintf(fp, "  ---\n");
	apply_table(fp, p, -1, o);
	work_table(fp, p, -1, o);
	fprintf(fp, "    (each function's section above has its storage "
	    "totals and the storage alive at its peak)\n\n");
}
