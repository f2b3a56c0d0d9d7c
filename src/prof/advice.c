/*
 * advice.c: tips computed from a profile (see advice.h): a const table of
 * rules, each a function that inspects the applies of the functions asked
 * for and writes at most one tip.
 */
#include "config.h"

#include "prof/advice.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ops/blas.h"
#include "base/fmt.h"
#include "graph/tensor.h"
#include "base/util.h"

#define FLOAT64_SHARE	0.5	/* float64: at least this share of time */
#define REDUCE_SHARE	0.25	/* reduction: likewise */

/* What every rule reads: the profile, the functions, the thunk time. */
struct look {
	const struct gp_profile	*p;
	int			 fn;	/* < 0: every function */
	double			 total;	/* thunk time of the applies, ns */
};

struct rule {
	const char	*name;
	bool		(*check)(const struct look *, struct gp_tip *);
};

static bool	rule_float64(const struct look *, struct gp_tip *);
static bool	rule_unfused(const struct look *, struct gp_tip *);
static bool	rule_strided_blas(const struct look *, struct gp_tip *);
static bool	rule_reduction(const struct look *, struct gp_tip *);

static const struct rule rules[] = {
	{.name = "float64", .check = rule_float64},
	{.name = "unfused", .check = rule_unfused},
	{.name = "strided_blas", .check = rule_strided_blas},
	{.name = "reduction", .check = rule_reduction},
};

#define NRULES (sizeof(rules) / sizeof(rules[0]))

static bool
counted(const struct look *lk, int f)
{
	return (lk->fn < 0 || f == lk->fn);
}

static double
ap_time(const struct gp_prof_apply *a)
{
	return ((double)a->st.total);
}

static void
say(struct gp_tip *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->text, sizeof(t->text), fmt, ap);
	va_end(ap);
}

/* Whether word is one of the blank-separated words of s. */
static bool
has_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = s; (p = strstr(p, word)) != NULL; p += n)
		if ((p == s || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return (true);
	return (false);
}

static bool
is_float64(const struct gp_prof_apply *a)
{
	for (int k = 0; k < a->n_out; k++)
		if (a->out[k].dtype == GP_FLOAT64)
			return (true);
	for (int k = 0; k < a->n_in; k++)
		if (a->in[k].dtype == GP_FLOAT64)
			return (true);
	return (false);
}

/* float64: a float32 graph moves half the bytes, and BLAS does about
 * twice the flops per second. */
static bool
rule_float64(const struct look *lk, struct gp_tip *t)
{
	const struct gp_prof_apply *top = NULL;
	double t64 = 0;
	char tt[32];

	for (int f = 0; f < lk->p->n_fn; f++) {
		if (!counted(lk, f))
			continue;
		for (int i = 0; i < lk->p->fn[f].n_apply; i++) {
			const struct gp_prof_apply *a = &lk->p->fn[f].ap[i];

			if (!is_float64(a))
				continue;
			t64 += ap_time(a);
			if (top == NULL || ap_time(a) > ap_time(top))
				top = a;
		}
	}
	if (top == NULL || t64 < FLOAT64_SHARE * lk->total)
		return (false);
	t->share = t64 / lk->total;
	gp_fmt_time(tt, sizeof(tt), t64);
	say(t, "%.0f%% of the thunk time (%s) is in applies on float64 data, "
	    "the slowest %s.  In float32 they would read and write half the "
	    "bytes and BLAS does about twice the flops per second: where "
	    "float32's precision is enough, a float32 graph can run up to "
	    "twice as fast (compare data/graphs/mlp32.json with mlp.json).",
	    100.0 * t->share, tt, top->name);
	return (true);
}

/* unfused: elementwise applies feeding elementwise applies while the
 * fusion rewrite was not run. */
static bool
rule_unfused(const struct look *lk, struct gp_tip *t)
{
	const struct gp_prof_apply *from = NULL, *to = NULL;
	double tc = 0;
	int links = 0, n_in_chain = 0;
	char tt[32];

	if (lk->p->rewrites == NULL || lk->p->rewrites[0] == '\0' ||
	    has_word(lk->p->rewrites, "fusion"))
		return (false);	/* fusion ran, or no record of it */
	for (int f = 0; f < lk->p->n_fn; f++) {
		const struct gp_prof_fn *pf = &lk->p->fn[f];
		bool *in_chain;

		if (!counted(lk, f))
			continue;
		in_chain = gp_xcalloc((size_t)pf->n_apply + 1, sizeof(bool));
		for (int i = 0; i < pf->n_apply; i++) {
			const struct gp_prof_apply *a = &pf->ap[i];

			if (strcmp(a->cls, "Elemwise") != 0 ||
			    a->in_producer == NULL)
				continue;
			for (int k = 0; k < a->n_in; k++) {
				int pr = a->in_producer[k];

				if (pr < 0 || pr >= pf->n_apply ||
				    strcmp(pf->ap[pr].cls, "Elemwise") != 0)
					continue;
				links++;
				in_chain[i] = in_chain[pr] = true;
				if (from == NULL || ap_time(a) +
				    ap_time(&pf->ap[pr]) > ap_time(from) +
				    ap_time(to)) {
					from = &pf->ap[pr];
					to = a;
				}
			}
		}
		for (int i = 0; i < pf->n_apply; i++)
			if (in_chain[i]) {
				tc += ap_time(&pf->ap[i]);
				n_in_chain++;
			}
		free(in_chain);
	}
	if (links == 0)
		return (false);
	t->share = lk->total > 0 ? tc / lk->total : 0;
	gp_fmt_time(tt, sizeof(tt), tc);
	say(t, "%d elementwise applies feed one another (%d link%s; the "
	    "costliest: %s feeds %s), %.1f%% of the thunk time (%s), and the "
	    "fusion rewrite did not run: each link writes a whole "
	    "intermediate to memory and reads it back.  Fusion makes one loop "
	    "of each chain: press f then r in the interface, or take fusion "
	    "out of optimizer_excluding.", n_in_chain, links, links == 1 ?
	    "" : "s", from->name, to->name, 100.0 * t->share, tt);
	return (true);
}

/* Why input k of a BLAS apply a is copied on every execution, or NULL. */
static const char *
blas_copy_reason(const struct gp_prof_apply *a, int k)
{
	const struct gp_prof_io *io = &a->in[k];

	if (a->n_out > 0 && io->dtype != a->out[0].dtype &&
	    (a->out[0].dtype == GP_FLOAT32 || a->out[0].dtype == GP_FLOAT64))
		return ("of another dtype than the output");
	if (!io->strides_known || io->ndim < 1 || io->ndim > 2)
		return (NULL);
	if (!gp_blas_addressable(io->ndim, io->shape, io->strides,
	    gp_dtype_size(io->dtype)))
		return ("in a layout BLAS cannot address");
	return (NULL);
}

/* strided_blas: an operand the BLAS kernel copies to a contiguous
 * temporary on every execution (ops/blas.c). */
static bool
rule_strided_blas(const struct look *lk, struct gp_tip *t)
{
	const struct gp_prof_apply *top = NULL;
	const char *why = NULL;
	int top_k = -1, n = 0;
	double tb = 0;

	for (int f = 0; f < lk->p->n_fn; f++) {
		if (!counted(lk, f))
			continue;
		for (int i = 0; i < lk->p->fn[f].n_apply; i++) {
			const struct gp_prof_apply *a = &lk->p->fn[f].ap[i];
			int kk = -1;
			const char *w = NULL;

			if (a->impl != GP_IMPL_BLAS)
				continue;
			for (int k = 0; k < a->n_in && w == NULL; k++)
				if ((w = blas_copy_reason(a, k)) != NULL)
					kk = k;
			if (w == NULL)
				continue;
			n++;
			tb += ap_time(a);
			if (top == NULL || ap_time(a) > ap_time(top)) {
				top = a;
				top_k = kk;
				why = w;
			}
		}
	}
	if (top == NULL)
		return (false);
	{
		const struct gp_prof_io *io = &top->in[top_k];
		struct gp_buf sh = {0}, st = {0};
		char nb[32];

		gp_shape_format(&sh, io->ndim, io->shape);
		if (io->strides_known)
			gp_shape_format(&st, io->ndim, io->strides);
		else
			gp_buf_puts(&st, "unknown");
		gp_fmt_bytes(nb, sizeof(nb), (double)io->nbytes);
		t->share = lk->total > 0 ? tb / lk->total : 0;
		say(t, "%s (%.1f%% of the thunk time) gets its input %d (%s, "
		    "%s%s, strides %s) %s, so every execution first copies "
		    "it (%s) to a contiguous temporary.  Give it a contiguous "
		    "or transposed operand (a step-1 slice, the dtype of the "
		    "output) or copy it once where it is made.%s",
		    top->name, 100.0 * ap_time(top) / (lk->total > 0 ?
		    lk->total : 1), top_k, io->var ? io->var : "?",
		    gp_dtype_name(io->dtype), gp_buf_str(&sh),
		    gp_buf_str(&st), why, nb, n > 1 ? "  Other BLAS applies "
		    "copy an operand too: see their details." : "");
		gp_buf_free(&sh);
		gp_buf_free(&st);
	}
	return (true);
}

static bool
is_reduction(const struct gp_prof_apply *a)
{
	return (strcmp(a->cls, "CAReduce") == 0 || strcmp(a->cls,
	    "Argmax") == 0 || strcmp(a->cls, "Argmin") == 0);
}

/* reduction: reductions dominate; they are bound by memory bandwidth. */
static bool
rule_reduction(const struct look *lk, struct gp_tip *t)
{
	const struct gp_prof_apply *top = NULL;
	double tr = 0, per, bytes = 0;
	char tt[32], tp[32], nb[32];

	for (int f = 0; f < lk->p->n_fn; f++) {
		if (!counted(lk, f))
			continue;
		for (int i = 0; i < lk->p->fn[f].n_apply; i++) {
			const struct gp_prof_apply *a = &lk->p->fn[f].ap[i];

			if (!is_reduction(a))
				continue;
			tr += ap_time(a);
			if (top == NULL || ap_time(a) > ap_time(top))
				top = a;
		}
	}
	if (top == NULL || lk->total <= 0 || tr < REDUCE_SHARE * lk->total ||
	    top->st.n == 0)
		return (false);
	for (int k = 0; k < top->n_in; k++)
		bytes += (double)top->in[k].nbytes;
	per = (double)top->st.total / (double)top->st.n;
	t->share = tr / lk->total;
	gp_fmt_time(tt, sizeof(tt), tr);
	gp_fmt_time(tp, sizeof(tp), per);
	gp_fmt_bytes(nb, sizeof(nb), bytes);
	say(t, "Reductions take %.0f%% of the thunk time (%s); the slowest, "
	    "%s, reads %s in %s per execution (%.2f GB/s).  A reduction reads "
	    "each element once, so memory bandwidth bounds it: reduce fewer "
	    "%selements, along the contiguous last axis, or fold the "
	    "reduction into the op that makes its input.", 100.0 * t->share,
	    tt, top->name, nb, tp, per > 0 ? bytes / per : 0,
	    top->n_in > 0 && top->in[0].dtype == GP_FLOAT64 ?
	    "or smaller (float32) " : "");
	return (true);
}

static int
cmp_tip(const void *x, const void *y)
{
	const struct gp_tip *a = x, *b = y;

	return (a->share > b->share ? -1 : a->share < b->share);
}

int
gp_advice(const struct gp_profile *p, int fn, struct gp_tip *tips, int max)
{
	struct look lk = {.p = p, .fn = fn};
	int n = 0;

	for (int f = 0; f < p->n_fn; f++)
		if (counted(&lk, f))
			for (int i = 0; i < p->fn[f].n_apply; i++)
				lk.total += ap_time(&p->fn[f].ap[i]);
	if (lk.total <= 0)
		return (0);	/* nothing timed: nothing to judge */
	for (size_t r = 0; r < NRULES && n < max; r++) {
		struct gp_tip *t = &tips[n];

		memset(t, 0, sizeof(*t));
		t->rule = rules[r].name;
		if (rules[r].check(&lk, t))
			n++;
	}
	qsort(tips, (size_t)n, sizeof(*tips), cmp_tip);
	return (n);
}

const char *
gp_advice_rules(void)
{
	static char names[128];

	if (names[0] == '\0')
		for (size_t r = 0; r < NRULES; r++)
			snprintf(names + strlen(names), sizeof(names) -
			    strlen(names), "%s%s", r ? " " : "",
			    rules[r].name);
	return (names);
}

/* s wrapped at width from column col, the next lines indented by ind. */
static void
wrap(FILE *fp, const char *s, int width, int ind, int col)
{
	bool first = true;

	while (*s != '\0') {
		const char *e = strchr(s, ' ');
		int n = e != NULL ? (int)(e - s) : (int)strlen(s);

		if (!first && col + 1 + n > width) {
			fprintf(fp, "\n%*s", ind, "");
			col = ind;
		} else if (!first) {
			fputc(' ', fp);
			col++;
		}
		first = false;
		fwrite(s, 1, (size_t)n, fp);
		col += n;
		s += n;
		while (*s == ' ')
			s++;
	}
	fputc('\n', fp);
}

void
gp_advice_report(FILE *fp, const struct gp_profile *p, int fn, int width)
{
	struct gp_tip tips[GP_ADVICE_MAX];
	int n = gp_advice(p, fn, tips, GP_ADVICE_MAX);

	if (width <= 0 || width > 100)
		width = 100;	/* prose reads best short */
	fprintf(fp, "Here are tips to potentially make your code run faster\n"
	    "------------------------------------------------------\n");
	if (n == 0) {
		fprintf(fp, "  No tip: none of the rules (%s) found anything "
		    "in this profile.\n\n", gp_advice_rules());
		return;
	}
	for (int i = 0; i < n; i++)
		wrap(fp, tips[i].text, width, 4, fprintf(fp, "  [%s] ",
		    tips[i].rule));
	fprintf(fp, "\n");
}
