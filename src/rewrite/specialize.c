/*
 * rewrite/specialize.c: the specialize phase: general applies become the
 * faster special case their operands allow.
 *
 *   pow_specialize  x ** 2 -> sqr(x), x ** 0.5 -> sqrt(x), x ** 1 -> x
 *   dot_to_blas     dot by operand ranks (both operands of one float
 *                   dtype): matrix . matrix -> dot22 (an inner dimension
 *                   of 1: ger on zeros; a single row or column: gemv),
 *                   matrix . vector and vector . matrix -> gemv on zeros
 *                   with beta 0 (Theano's Dot22, Gemv and Ger)
 *   gemm            alpha dot22(X, Y) + beta Z -> gemm(Z, alpha, X, Y,
 *                   beta), and the same for a gemv with beta 0, in the
 *                   forms dot + Z, Z + dot, Z - dot, dot - Z, with either
 *                   term scaled by a 0-d factor (a * dot, b * Z); the dot
 *                   and its scaling must be used only there
 *
 * dot_to_blas and gemm also carry the tag `gemm` (Theano's BLAS
 * rewrites: excluding it leaves plain dots).  Types must match
 * exactly: Z must already have the result's shape (a broadcast bias stays
 * an add, fused later), and BLAS checks the dtypes when the new apply is
 * prepared (a mixed float32/float64 expression is left alone).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "graph/op.h"
#include "rewrite/rewriters.h"
#include "rewrite/rw.h"

struct spec {
	struct gp_rw	 w;
	int		*uses;	/* readers, +1 if it escapes */
	size_t		 n_uses;
	struct {
		enum gp_dtype	dt;
		double		x;
		int		v;
	} konst[16];
	int		 n_konst;
};

static void
spec_begin(struct spec *s, struct gp_rewrite_ctx *c, bool uses)
{
	struct gp_graph *g = c->g;

	memset(s, 0, sizeof(*s));
	gp_rw_begin(&s->w, c);
	if (!uses)
		return;
	s->n_uses = g->n_vars;
	s->uses = gp_xcalloc(g->n_vars + 1, sizeof(int));
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gp_node *n = &g->nodes[i];

		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++)
			s->uses[n->in[k]]++;
	}
	for (size_t f = 0; f < g->n_fns; f++) {
		for (int k = 0; k < g->fns[f].n_out; k++)
			s->uses[g->fns[f].out[k]]++;
		for (int k = 0; k < g->fns[f].n_upd; k++)
			s->uses[g->fns[f].upd[k].src]++;
	}
}

static int
spec_end(struct spec *s)
{
	free(s->uses);
	return (gp_rw_end(&s->w));
}

/* Used exactly once (variables made during the walk count as used once). */
static bool
used_once(const struct spec *s, int v)
{
	return ((size_t)v >= s->n_uses || s->uses[v] == 1);
}

/* A 0-d constant, shared within the walk. */
static int
konst(struct spec *s, enum gp_dtype dt, double x)
{
	for (int i = 0; i < s->n_konst; i++)
		if (s->konst[i].dt == dt && s->konst[i].x == x)
			return (s->konst[i].v);
	if (s->n_konst < 16) {
		s->konst[s->n_konst].dt = dt;
		s->konst[s->n_konst].x = x;
		s->konst[s->n_konst].v = gp_rw_const_new(s->w.g, dt, x);
		return (s->konst[s->n_konst++].v);
	}
	return (gp_rw_const_new(s->w.g, dt, x));
}

/*
 * pow_specialize
 */

static int
run_pow_specialize(struct gp_rewrite_ctx *c, struct gp_err *err)
{
	static const char *const ops[] = {"pow", NULL};
	struct gp_rw w;

	if (!gp_rw_any(c->g, ops))
		return (0);
	gp_rw_begin(&w, c);
	for (int i = 0; i < w.n_order; i++) {
		int x = gp_rw_visit(&w, i), v;
		const struct gp_node *n;
		double e;

		if (x < 0)
			continue;
		n = &c->g->nodes[x];
		if (!gp_rw_is(n, "pow"))
			continue;
		c->tried++;
		if (!gp_rw_const_value(c->g, n->in[1], &e))
			continue;
		if (e == 2)
			v = gp_rw_apply1(c->g, "sqr", NULL, n->in[0]);
		else if (e == 0.5)
			v = gp_rw_apply1(c->g, "sqrt", NULL, n->in[0]);
		else if (e == 1)
			v = n->in[0];
		else
			continue;
		(void)gp_rw_replace_out(&w, x, v);
	}
	return (gp_rw_end(&w));
}

/*
 * dot_to_blas
 */

static int
ds(struct gp_graph *g, int v, const char *pattern)
{
	return (gp_rw_apply1(g, "dimshuffle", json_pack("{s:o}", "pattern",
	    json_loads(pattern, 0, NULL)), v));
}

/* Zeros of shape (a) or (a, b): the output operand gemv and ger
 * overwrite (beta 0: never read). */
static int
zeros(struct spec *s, enum gp_dtype dt, int64_t a, int64_t b)
{
	json_t *shape = b < 0 ? json_pack("[I]", (json_int_t)a) :
	    json_pack("[I,I]", (json_int_t)a, (json_int_t)b);

	return (gp_rw_apply1(s->w.g, "alloc", json_pack("{s:o}", "shape",
	    shape), konst(s, dt, 0)));
}

static int
gemv(struct spec *s, enum gp_dtype dt, int64_t m, int a, int x)
{
	int in[5];

	in[0] = zeros(s, dt, m, -1);
	in[1] = konst(s, dt, 1);
	in[2] = a;
	in[3] = x;
	in[4] = konst(s, dt, 0);
	if (in[0] < 0 || a < 0 || x < 0)
		return (-1);
	return (gp_rw_apply(s->w.g, "gemv", NULL, 5, in));
}

static bool
dot_to_blas(struct spec *s, int x)
{
	struct gp_graph *g = s->w.g;
	const struct gp_node *n = &g->nodes[x];
	struct gp_type ta, tb;
	enum gp_dtype dt;
	int a, b, v;

	if (!gp_rw_is(n, "dot"))
		return (false);
	s->w.ctx->tried++;
	a = n->in[0];
	b = n->in[1];
	ta = g->vars[a].type;
	tb = g->vars[b].type;
	dt = ta.dtype;
	if (tb.dtype != dt || !gp_dtype_is_float(dt))
		return (false);
	if (ta.ndim == 2 && tb.ndim == 2) {
		int64_t m = ta.shape[0], k = ta.shape[1], nn = tb.shape[1];

		if (k == 1 && m > 1 && nn > 1) {
			int in[4];

			in[0] = zeros(s, dt, m, nn);
			in[1] = konst(s, dt, 1);
			in[2] = ds(g, a, "[0]");
			in[3] = ds(g, b, "[1]");
			v = in[0] < 0 || in[2] < 0 || in[3] < 0 ? -1 :
			    gp_rw_apply(g, "ger", NULL, 4, in);
		} else if (nn == 1 && m > 1) {
			v = gemv(s, dt, m, a, ds(g, b, "[0]"));
			if (v >= 0)
				v = ds(g, v, "[0, \"x\"]");
		} else if (m == 1 && nn > 1) {
			v = gemv(s, dt, nn, gp_rw_apply1(g, "transpose", NULL,
			    b), ds(g, a, "[1]"));
			if (v >= 0)
				v = ds(g, v, "[\"x\", 0]");
		} else
			v = gp_rw_apply2(g, "dot22", NULL, a, b);
	} else if (ta.ndim == 2 && tb.ndim == 1)
		v = gemv(s, dt, ta.shape[0], a, b);
	else if (ta.ndim == 1 && tb.ndim == 2)
		v = gemv(s, dt, tb.shape[1], gp_rw_apply1(g, "transpose", NULL,
		    b), a);
	else
		return (false);
	return (gp_rw_replace_out(&s->w, x, v));
}

static int
run_dot_to_blas(struct gp_rewrite_ctx *c, struct gp_err *err)
{
	static const char *const ops[] = {"dot", NULL};
	struct spec s;

	if (!gp_rw_any(c->g, ops))
		return (0);
	spec_begin(&s, c, false);
	for (int i = 0; i < s.w.n_order; i++) {
		int x = gp_rw_visit(&s.w, i);

		if (x >= 0)
			(void)dot_to_blas(&s, x);
	}
	return (spec_end(&s));
}

/*
 * gemm
 */

/* A scalar factor: a known value, or a 0-d variable. */
struct factor {
	bool	known;
	double	x;
	int	v;
};

static bool
is_scalar(const struct gp_graph *g, int v)
{
	return (g->vars[v].type.ndim == 0 &&
	    g->vars[v].type.dtype != GP_BOOL);
}

static struct factor
factor_of(const struct gp_graph *g, int v)
{
	struct factor f = {.known = false, .v = v};

	if (gp_rw_const_value(g, v, &f.x))
		f.known = true;
	return (f);
}

static struct factor
factor_mul(struct spec *s, struct factor a, struct factor b)
{
	struct factor r = {.known = true, .x = 1};

	if (a.known && b.known)
		r.x = a.x * b.x;
	else if (a.known && a.x == 1)
		r = b;
	else if (b.known && b.x == 1)
		r = a;
	else {
		enum gp_dtype dt = !a.known ? s->w.g->vars[a.v].type.dtype :
		    s->w.g->vars[b.v].type.dtype;
		int av = a.known ? konst(s, dt, a.x) : a.v;
		int bv = b.known ? konst(s, dt, b.x) : b.v;

		r.known = false;
		r.v = gp_rw_apply2(s->w.g, "mul", NULL, av, bv);
	}
	return (r);
}

static struct factor
factor_neg(struct spec *s, struct factor a)
{
	if (a.known)
		a.x = -a.x;
	else
		a.v = gp_rw_apply1(s->w.g, "neg", NULL, a.v);
	return (a);
}

static int
factor_var(struct spec *s, struct factor a, enum gp_dtype dt)
{
	return (a.known ? konst(s, dt, a.x) : a.v);
}

/* A dot22, or a gemv with a beta of 0: alpha X.Y. */
struct dotlike {
	const char	*op;	/* "gemm" or "gemv" to make */
	int		 x, y;
	struct factor	 alpha;
};

static bool
dotlike_of(struct spec *s, int v, struct dotlike *d)
{
	const struct gp_graph *g = s->w.g;
	const struct gp_node *p = gp_rw_producer(g, v);

	if (p == NULL || !used_once(s, v))
		return (false);
	if (gp_rw_is(p, "dot22")) {
		d->op = "gemm";
		d->x = p->in[0];
		d->y = p->in[1];
		d->alpha = (struct factor){.known = true, .x = 1};
		return (true);
	}
	if (gp_rw_is(p, "gemv") && gp_rw_const_is(g, p->in[4], 0)) {
		d->op = "gemv";
		d->x = p->in[2];
		d->y = p->in[3];
		d->alpha = factor_of(g, p->in[1]);
		return (true);
	}
	return (false);
}

/* v = dot, or v = a * dot with a 0-d a. */
static bool
dot_term(struct spec *s, int v, struct dotlike *d)
{
	const struct gp_graph *g = s->w.g;
	const struct gp_node *p;

	if (dotlike_of(s, v, d))
		return (true);
	p = gp_rw_producer_is(g, v, "mul");
	if (p == NULL || p->n_in != 2 || !used_once(s, v))
		return (false);
	for (int k = 0; k < 2; k++)
		if (is_scalar(g, p->in[k]) && dotlike_of(s, p->in[1 - k], d)) {
			d->alpha = factor_mul(s, d->alpha,
			    factor_of(g, p->in[k]));
			return (!(d->alpha.known == false && d->alpha.v < 0));
		}
	return (false);
}

/* v = Z, or v = b * Z with a 0-d b, Z of type out. */
static void
z_term(struct spec *s, int v, int out, int *z, struct factor *beta)
{
	const struct gp_graph *g = s->w.g;
	const struct gp_node *p = gp_rw_producer_is(g, v, "mul");

	*z = v;
	*beta = (struct factor){.known = true, .x = 1};
	if (p == NULL || p->n_in != 2)
		return;
	for (int k = 0; k < 2; k++)
		if (is_scalar(g, p->in[k]) &&
		    gp_rw_same_type(g, p->in[1 - k], out)) {
			*z = p->in[1 - k];
			*beta = factor_of(g, p->in[k]);
			return;
		}
}

static bool
gemm(struct spec *s, int x)
{
	struct gp_graph *g = s->w.g;
	const struct gp_node *n = &g->nodes[x];
	int a, b, out = n->out[0], z, in[5];
	bool sub = gp_rw_is(n, "sub");
	struct factor beta;
	struct dotlike d;
	enum gp_dtype dt;

	if ((!sub && !gp_rw_is(n, "add")) || n->n_in != 2)
		return (false);
	s->w.ctx->tried++;
	a = n->in[0];
	b = n->in[1];
	dt = g->vars[out].type.dtype;
	if (dot_term(s, a, &d)) {
		/* dot + Z, dot - Z */
		z_term(s, b, out, &z, &beta);
		if (sub)
			beta = factor_neg(s, beta);
	} else if (dot_term(s, b, &d)) {
		/* Z + dot, Z - dot */
		z_term(s, a, out, &z, &beta);
		if (sub)
			d.alpha = factor_neg(s, d.alpha);
	} else
		return (false);
	if (!gp_rw_same_type(g, z, out) ||
	    (!d.alpha.known && d.alpha.v < 0) || (!beta.known && beta.v < 0))
		return (false);
	in[0] = z;
	in[1] = factor_var(s, d.alpha, dt);
	in[2] = d.x;
	in[3] = d.y;
	in[4] = factor_var(s, beta, dt);
	return (gp_rw_replace_out(&s->w, x, gp_rw_apply(g, d.op, NULL, 5, in)));
}

static int
run_gemm(struct gp_rewrite_ctx *c, struct gp_err *err)
{
	static const char *const ops[] = {"dot22", "gemv", NULL};
	struct spec s;

	if (!gp_rw_any(c->g, ops))
		return (0);
	spec_begin(&s, c, true);
	for (int i = 0; i < s.w.n_order; i++) {
		int x = gp_rw_visit(&s.w, i);

		if (x >= 0)
			(void)gemm(&s, x);
	}
	return (spec_end(&s));
}

static const struct gp_rewriter rw_pow_specialize = {
	.name = "pow_specialize",
	.tags = "fast_run:specialize",
	.phase = GP_PHASE_SPECIALIZE,
	.doc = "x ** 2 -> sqr(x), x ** 0.5 -> sqrt(x), x ** 1 -> x",
	.run = run_pow_specialize,
};

static const struct gp_rewriter rw_dot_to_blas = {
	.name = "dot_to_blas",
	.tags = "fast_run:specialize:gemm",
	.phase = GP_PHASE_SPECIALIZE,
	.doc = "dot -> dot22, gemv or ger by operand ranks (one float "
	    "dtype)",
	.run = run_dot_to_blas,
};

static const struct gp_rewriter rw_gemm = {
	.name = "gemm",
	.tags = "fast_run:specialize:gemm",
	.phase = GP_PHASE_SPECIALIZE,
	.doc = "alpha dot(X, Y) + beta Z (also Z - dot, dot + Z, ...) -> gemm, "
	    "or gemv for a matrix . vector",
	.run = run_gemm,
};

const struct gp_rewriter *const gp_rewriters_specialize[] = {
	&rw_pow_specialize,
	&rw_dot_to_blas,
	&rw_gemm,
	NULL,
};
