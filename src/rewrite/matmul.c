/*
 * rewrite/matmul.c: the matmul rewrites of the specialize phase: what an
 * exported transformer (or MLP) spells around its matrix products becomes
 * part of the one BLAS apply (ops/matmul.c's bias input and alpha param).
 *
 *   matmul_bias   matmul(x, y) + b, b + matmul(x, y), and the same with
 *                 dot22(x, y) (a 2-d MatMul, after dot_to_blas), b
 *                 broadcast to the product -> matmul(x, y, b): ONNX
 *                 MatMul + Add as one Gemm-like apply; not when the sum
 *                 is read only by elementwise applies of its type (a
 *                 Relu, a residual add): fusion puts the add in their
 *                 loop for free, the matmul would make one more pass
 *   matmul_scale  matmul(x * c, y), matmul(x / c, y), matmul(x, y * c),
 *                 matmul(x, y / c), matmul(x, y) * c, matmul(x, y) / c
 *                 -> matmul(x, y; alpha = c or 1/c): the attention's
 *                 scale of Q (or of the scores) goes into BLAS's alpha
 *
 *   softmax_scale softmax(x * c), softmax(c * x), softmax(x / c) ->
 *                 softmax(x; scale = c or 1/c), and the attention's
 *                 softmax(matmul(q / c, k)) (or q * c, or the scale on
 *                 k) -> softmax(matmul(q, k); scale = 1/c or c); the
 *                 same for log_softmax: the scale no power of two
 *                 matmul_scale would take (torch's 1/sqrt(32) of a head
 *                 size 32) becomes part of the softmax's row pass
 *
 * matmul_bias and matmul_scale keep every result bit for bit.  The bias is added after the
 * product, in the dtype, as the add did.  A scale moves into alpha only
 * when it is a power of two (c = 2^k, |k| < 64): scaling by 2^k commutes
 * with every rounding of the product and of its sums (barring overflow
 * and subnormal results), so x/8 . y and (x . y)/8 are the same numbers;
 * any other scale stays an apply (its rounding before the product would
 * change the last bits).  Each fires only when the applies it swallows
 * are read by nothing else (no other reader, no function output or
 * update), the operands have the product's dtype, and the replacement has
 * exactly the type of what it replaces.  Tags: matmul_bias `gemm`,
 * matmul_scale `scale`, both `fast_run:specialize`.
 *
 * softmax_scale is exact for a multiplication of the scores (the softmax
 * kernel computes y = x * c in the dtype, as the mul did, then the rest
 * from y) and for a division by a power of two; a division by another c
 * (x * (1/c) instead of x / c: at most 1 ulp of y apart) and a scale
 * moved from a matmul's operand onto its product ((q / c) . k and (q . k)
 * / c round differently) are within float tolerance: each score y at most
 * a few ulp of y apart, so each output by about |y| ulp relative (for
 * float32 scores below 100, under 1e-5).  It fires only on a softmax of
 * scale 1 whose input (and the matmul's scaled operand) is read by
 * nothing else, float32 or float64, the constant of that dtype, finite
 * and not 0.  Tags `fast_run:specialize:scale`; it runs after
 * matmul_scale, which takes the powers of two into the matmul exactly.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/op.h"
#include "rewrite/rewriters.h"
#include "rewrite/rw.h"

struct mm {
	struct gp_rw		w;
	struct gp_rw_uses	u;
	bool			*esc;
	size_t			n_vars0;
};

static void
mm_begin(struct mm *s, struct gp_rewrite_ctx *c)
{
	memset(s, 0, sizeof(*s));
	gp_rw_uses_build(c->g, &s->u);
	s->esc = gp_rw_escapes(c->g);
	s->n_vars0 = c->g->n_vars;
	gp_rw_begin(&s->w, c);
}

static int
mm_end(struct mm *s)
{
	gp_rw_uses_free(&s->u);
	free(s->esc);
	return (gp_rw_end(&s->w));
}

/* Read by one apply only, and no function output or update. */
static bool
used_once(const struct mm *s, int v)
{
	if ((size_t)v >= s->n_vars0)
		return (true);
	return (!s->esc[v] && gp_rw_uses_count(&s->u, v) == 1);
}

static enum gp_dtype
dtype_of(const struct gp_graph *g, int v)
{
	return (g->vars[v].type.dtype);
}

/* The alpha of a matmul apply (1 when it has none). */
static double
alpha_of(const struct gp_node *n)
{
	double a = 1;
	struct gp_err err;

	(void)gp_op_param_double(n->params, "alpha", 1, &a, &err);
	return (a);
}

static json_t *
alpha_params(double alpha)
{
	return (alpha == 1 ? NULL : json_pack("{s:f}", "alpha", alpha));
}

/*
 * matmul_bias
 */

/* v is matmul(x, y) without a bias, or dot22(x, y), read only here:
 * its operands and alpha. */
static bool
product_of(const struct mm *s, int v, int *x, int *y, double *alpha)
{
	const struct gp_node *p = gp_rw_producer(s->w.g, v);

	if (p == NULL || !used_once(s, v))
		return (false);
	if (gp_rw_is(p, "matmul") && p->n_in == 2) {
		*alpha = alpha_of(p);
	} else if (gp_rw_is(p, "dot22"))
		*alpha = 1;
	else
		return (false);
	*x = p->in[0];
	*y = p->in[1];
	return (true);
}

/* Is v read only by elementwise applies of v's own type (and nothing
 * else)?  Fusion then takes the add into their loop at no cost, where the
 * bias inside the matmul would be one more pass over the product. */
static bool
feeds_elemwise(const struct mm *s, int v)
{
	const struct gp_graph *g = s->w.g;
	int n;

	if ((size_t)v >= s->n_vars0 || s->esc[v])
		return (false);
	n = gp_rw_uses_count(&s->u, v);
	for (int i = 0; i < n; i++) {
		const struct gp_node *c = &g->nodes[s->u.node[s->u.start[v] +
		    i]];

		if (!(c->op->flags & GP_OPF_ELEMWISE) || c->op->scalar ==
		    NULL || c->n_out != 1 || !gp_rw_same_type(g, c->out[0], v))
			return (false);
	}
	return (n > 0);
}

static bool
m_bias(struct gp_rw *w, int xn)
{
	struct mm *s = (struct mm *)w;
	struct gp_graph *g = w->g;
	const struct gp_node *n = &g->nodes[xn];
	int in[3], out = n->out[0], b, k;
	double alpha;

	if (!gp_rw_is(n, "add") || n->n_in != 2)
		return (false);
	w->ctx->tried++;
	for (k = 0; k < 2; k++)
		if (product_of(s, n->in[k], &in[0], &in[1], &alpha))
			break;
	if (k == 2)
		return (false);
	b = n->in[1 - k];
	/* no promotion, no broadcast beyond the product */
	if (!gp_rw_same_type(g, n->in[k], out) || dtype_of(g, b) !=
	    dtype_of(g, out))
		return (false);
	if (feeds_elemwise(s, out))
		return (false);
	in[2] = b;
	return (gp_rw_replace_out(w, xn, gp_rw_apply(g, "matmul",
	    alpha_params(alpha), 3, in)));
}

/*
 * matmul_scale
 */

/* Is c a 0-d-like constant 2^k (|k| < 64, either sign), of v's dtype?
 * *x gets it. */
static bool
pow2_const(const struct gp_graph *g, int c, int v, double *x)
{
	int e;

	if (!gp_rw_const_value(g, c, x) || dtype_of(g, c) != dtype_of(g, v) ||
	    *x == 0 || !isfinite(*x))
		return (false);
	if (fabs(frexp(*x, &e)) != 0.5)
		return (false);
	return (e > -63 && e < 65);
}

/* Is c a 0-d-like constant of v's dtype, finite and not 0?  *x gets
 * it. */
static bool
any_const(const struct gp_graph *g, int c, int v, double *x)
{
	return (gp_rw_const_value(g, c, x) && dtype_of(g, c) == dtype_of(g,
	    v) && *x != 0 && isfinite(*x));
}

/* v = t * c, c * t or t / c, read only here, of t's type, with c a power
 * of two (pow2) or any constant: t, the factor (c or 1/c), and whether it
 * was a division. */
static bool
scaled_by(const struct mm *s, int v, bool pow2, int *t, double *f,
    bool *div)
{
	const struct gp_graph *g = s->w.g;
	const struct gp_node *p = gp_rw_producer(g, v);
	double c;

	if (p == NULL || p->n_in != 2 || !used_once(s, v))
		return (false);
	*div = gp_rw_is(p, "true_div");
	if (!*div && !gp_rw_is(p, "mul"))
		return (false);
	for (int k = *div ? 1 : 0; k < 2; k++) {
		int o = p->in[1 - k];

		if ((pow2 ? pow2_const(g, p->in[k], v, &c) : any_const(g,
		    p->in[k], v, &c)) && gp_rw_same_type(g, o, v)) {
			*t = o;
			*f = *div ? 1 / c : c;
			return (true);
		}
	}
	return (false);
}

/* v = t * c, c * t or t / c with c a power of two, read only here, of
 * t's type: t and the factor (c or 1/c). */
static bool
scaled(const struct mm *s, int v, int *t, double *f)
{
	bool div;

	return (scaled_by(s, v, true, t, f, &div));
}

static bool
m_scale(struct gp_rw *w, int xn)
{
	struct mm *s = (struct mm *)w;
	struct gp_graph *g = w->g;
	const struct gp_node *n = &g->nodes[xn];
	int in[3], t;
	double f, alpha;

	if (gp_rw_is(n, "matmul")) {
		/* a scaled operand (not of a packed matmul: gemm_pack packs
		 * y when this phase's passes are done, and a later pass finds
		 * the packed one, its P after the bias) */
		if (json_is_true(json_object_get(n->params, "packed")) ||
		    n->n_in > 3)
			return (false);
		w->ctx->tried++;
		alpha = alpha_of(n);
		memcpy(in, n->in, sizeof(int) * (size_t)n->n_in);
		for (int k = 0; k < 2; k++)
			if (scaled(s, n->in[k], &t, &f)) {
				in[k] = t;
				return (gp_rw_replace_out(w, xn, gp_rw_apply(g,
				    "matmul", alpha_params(alpha * f), n->n_in,
				    in)));
			}
		return (false);
	}
	if (!gp_rw_is(n, "mul") && !gp_rw_is(n, "true_div"))
		return (false);
	/* a scaled product: matmul(x, y) * c, matmul(x, y) / c */
	w->ctx->tried++;
	{
		bool div = !gp_rw_is(n, "mul");
		double c;

		for (int k = div ? 1 : 0; k < 2; k++) {
			int o = n->in[1 - k];
			const struct gp_node *p = gp_rw_producer_is(g, o,
			    "matmul");

			if (p == NULL || p->n_in != 2 || !used_once(s, o) ||
			    !pow2_const(g, n->in[k], o, &c) ||
			    !gp_rw_same_type(g, o, n->out[0]))
				continue;
			memcpy(in, p->in, sizeof(int) * 2);
			return (gp_rw_replace_out(w, xn, gp_rw_apply(g,
			    "matmul", alpha_params(alpha_of(p) * (div ? 1 / c :
			    c)), 2, in)));
		}
	}
	return (false);
}

/*
 * softmax_scale
 */

static json_t *
scale_params(double scale)
{
	return (json_pack("{s:f}", "scale", scale));
}

/* v's producer takes the name and front-end family of the node at old
 * (an ONNX model's "/layers.0/self_attn/Softmax" stays so named in the
 * profile), and its label when keep_label (else the op's own format
 * names it: the scale shows).  Returns v. */
static int
named_like(struct gp_graph *g, int v, int old, bool keep_label)
{
	const struct gp_node *o = &g->nodes[old];
	struct gp_node *n;

	if (v < 0)
		return (v);
	n = &g->nodes[g->vars[v].producer];
	n->name = o->name ? gp_xstrdup(o->name) : NULL;
	n->family = o->family ? gp_xstrdup(o->family) : NULL;
	n->label = keep_label && o->label ? gp_xstrdup(o->label) : NULL;
	return (v);
}

static bool
m_softmax(struct gp_rw *w, int xn)
{
	struct mm *s = (struct mm *)w;
	struct gp_graph *g = w->g;
	const struct gp_node *n = &g->nodes[xn], *p;
	const char *op;
	double f, sc = 1;
	int t, v, in[3];
	bool div;
	enum gp_dtype dt;

	if (gp_rw_is(n, "softmax"))
		op = "softmax";
	else if (gp_rw_is(n, "log_softmax"))
		op = "log_softmax";
	else
		return (false);
	w->ctx->tried++;
	v = n->in[0];
	dt = dtype_of(g, v);
	(void)gp_op_param_double(n->params, "scale", 1, &sc, &(struct gp_err){0});
	if (sc != 1 || (dt != GP_FLOAT32 && dt != GP_FLOAT64))
		return (false);
	/* the scores scaled: softmax(x * c), softmax(x / c) */
	if (scaled_by(s, v, false, &t, &f, &div))
		return (gp_rw_replace_out(w, xn, named_like(g, gp_rw_apply1(g,
		    op, scale_params(f), t), xn, false)));
	/* the scale on an operand of the product: softmax(matmul(q / c, k)) */
	p = gp_rw_producer_is(g, v, "matmul");
	if (p == NULL || p->n_in != 2 || !used_once(s, v))
		return (false);
	for (int k = 0; k < 2; k++)
		if (scaled_by(s, p->in[k], false, &t, &f, &div)) {
			int pn = (int)(p - g->nodes), mm;

			memcpy(in, p->in, sizeof(int) * 2);
			in[k] = t;
			mm = named_like(g, gp_rw_apply(g, "matmul",
			    alpha_params(alpha_of(p)), 2, in), pn, true);
			if (mm < 0)
				return (false);
			return (gp_rw_replace_out(w, xn, named_like(g,
			    gp_rw_apply1(g, op, scale_params(f), mm), xn,
			    false)));
		}
	return (false);
}

static int
run_softmax(struct gp_rewrite_ctx *c, struct gp_err *err)
{
	static const char *const ops[] = {"softmax", "log_softmax", NULL};
	struct mm s;

	if (!gp_rw_any(c->g, ops))
		return (0);
	mm_begin(&s, c);
	for (int i = 0; i < s.w.n_order; i++) {
		int x = gp_rw_visit(&s.w, i);

		if (x >= 0)
			(void)m_softmax(&s.w, x);
	}
	return (mm_end(&s));
}

static int
run_bias(struct gp_rewrite_ctx *c, struct gp_err *err)
{
	static const char *const ops[] = {"matmul", "dot22", NULL};
	struct mm s;

	if (!gp_rw_any(c->g, ops))
		return (0);
	mm_begin(&s, c);
	for (int i = 0; i < s.w.n_order; i++) {
		int x = gp_rw_visit(&s.w, i);

		if (x >= 0)
			(void)m_bias(&s.w, x);
	}
	return (mm_end(&s));
}

static int
run_scale(struct gp_rewrite_ctx *c, struct gp_err *err)
{
	static const char *const ops[] = {"matmul", NULL};
	struct mm s;

	if (!gp_rw_any(c->g, ops))
		return (0);
	mm_begin(&s, c);
	for (int i = 0; i < s.w.n_order; i++) {
		int x = gp_rw_visit(&s.w, i);

		if (x >= 0)
			(void)m_scale(&s.w, x);
	}
	return (mm_end(&s));
}

static const struct gp_rewriter rw_matmul_scale = {
	.name = "matmul_scale",
	.tags = "fast_run:specialize:scale",
	.phase = GP_PHASE_SPECIALIZE,
	.doc = "matmul(x / c, y), matmul(x, y) * c, ... -> matmul(x, y; "
	    "alpha) for c a power of two (exact)",
	.run = run_scale,
};

static const struct gp_rewriter rw_softmax_scale = {
	.name = "softmax_scale",
	.tags = "fast_run:specialize:scale",
	.phase = GP_PHASE_SPECIALIZE,
	.doc = "softmax(x * c), softmax(matmul(q / c, k)), ... -> "
	    "softmax(...; scale) (exact for x * c)",
	.run = run_softmax,
};

static const struct gp_rewriter rw_matmul_bias = {
	.name = "matmul_bias",
	.tags = "fast_run:specialize:gemm",
	.phase = GP_PHASE_SPECIALIZE,
	.doc = "matmul(x, y) + b or dot22(x, y) + b, b broadcast -> "
	    "matmul(x, y, b)",
	.run = run_bias,
};

const struct gp_rewriter *const gp_rewriters_matmul[] = {
	&rw_matmul_scale,
	&rw_softmax_scale,
	&rw_matmul_bias,
	NULL,
};
