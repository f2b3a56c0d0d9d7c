/*
 * rewrite/composite.c: the Composite op (see composite.h): its params (the
 * scalar program), prepare, Theano-style name, the C the JIT compiles for
 * it, and its kernel.
 *
 * The kernel walks the broadcast of its inputs to the output's shape with
 * its own iterator (a Composite has up to 32 inputs, more than gp_iter
 * takes): dimensions of size 1 are dropped, dimensions contiguous for
 * every operand are merged, and each innermost row goes to the compiled
 * loop or to the interpreter.
 *
 * The generated loop: inputs of one element are loaded once; when every
 * other operand has unit stride the row is one `#pragma omp simd` loop
 * over typed pointers; otherwise it runs in blocks of GP_JB elements, the
 * strided inputs gathered into local arrays and a strided output scattered
 * from one, each block again one simd loop, or one per stage when the
 * body calls libm's transcendental functions twice or more (c_stages).
 * Every element's inputs are read before its output is written, so the
 * output may overwrite an input of its own layout (in place).
 */
#include "config.h"

#include "rewrite/composite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "ops/par.h"

/*
 * Params
 */

static void
composite_free(void *priv)
{
	struct gp_composite *c = priv;

	if (c == NULL)
		return;
	gp_interp_free(c->interp);
	free(c->consts);
	free(c->ops);
	free(c->name);
	free(c);
}

static int
parse_ref(const json_t *j, const struct gp_composite *c, int self,
    struct gp_cref *r, struct gp_err *err)
{
	const char *s = json_string_value(j);
	char *end;
	long k;

	if (s == NULL || (s[0] != 'i' && s[0] != 'c' && s[0] != 'r') ||
	    s[1] < '0' || s[1] > '9')
		return (gp_err_set(err, "composite: operand must be iK, cK or "
		    "rK"));
	k = strtol(s + 1, &end, 10);
	if (*end != '\0')
		return (gp_err_set(err, "composite: bad operand '%s'", s));
	r->idx = (int)k;
	switch (s[0]) {
	case 'i':
		r->kind = GP_CREF_IN;
		if (k >= c->n_in)
			return (gp_err_set(err, "composite: input %ld of %d",
			    k, c->n_in));
		break;
	case 'c':
		r->kind = GP_CREF_CONST;
		if (k >= c->n_const)
			return (gp_err_set(err, "composite: constant %ld of "
			    "%d", k, c->n_const));
		break;
	default:
		r->kind = GP_CREF_REG;
		if (k >= self)
			return (gp_err_set(err, "composite: r%ld used before "
			    "it is computed", k));
		break;
	}
	return (0);
}

/* The dtype rule of s applied to compute dtype ct. */
static void
instr_types(struct gp_cinstr *in)
{
	for (int k = 0; k < 3; k++)
		in->as[k] = k < in->n_args ? in->ct : GP_DTYPE__COUNT;
	if (in->s->rule == GP_SCALAR_SWITCH)
		in->as[0] = GP_BOOL;
	if (in->s->rule == GP_SCALAR_SECOND)
		in->as[0] = GP_DTYPE__COUNT;
	in->out = in->s->rule == GP_SCALAR_COMPARE ? GP_BOOL : in->ct;
}

static int
parse_program(const json_t *params, struct gp_composite *c,
    struct gp_err *err)
{
	json_t *consts = json_object_get(params, "consts");
	json_t *code = json_object_get(params, "code"), *e;
	size_t i;

	if (consts != NULL && !json_is_array(consts))
		return (gp_err_set(err, "composite: 'consts' must be a list"));
	if (!json_is_array(code) || json_array_size(code) == 0 ||
	    json_array_size(code) > GP_COMPOSITE_MAX_OPS)
		return (gp_err_set(err, "composite: 'code' must be a list of 1 "
		    "to %d instructions", GP_COMPOSITE_MAX_OPS));
	c->n_const = (int)json_array_size(consts);
	c->consts = gp_xcalloc((size_t)c->n_const + 1, sizeof(*c->consts));
	json_array_foreach(consts, i, e) {
		struct gp_cconst *k = &c->consts[i];
		json_t *v = json_array_get(e, 1);

		if (!json_is_array(e) || json_array_size(e) != 2 ||
		    !gp_dtype_parse(json_string_value(json_array_get(e, 0)) ?
		    json_string_value(json_array_get(e, 0)) : "", &k->dt) ||
		    !(json_is_number(v) || json_is_boolean(v)))
			return (gp_err_set(err, "composite: constant %zu must "
			    "be [dtype, value]", i));
		if (json_is_boolean(v))
			k->x = k->i = json_is_true(v);
		else if (json_is_integer(v)) {
			k->i = json_integer_value(v);
			k->x = (double)k->i;
		} else {
			k->x = json_real_value(v);
			k->i = fabs(k->x) < 9.2e18 ? (int64_t)k->x : 0;
		}
	}
	c->n_ops = (int)json_array_size(code);
	c->ops = gp_xcalloc((size_t)c->n_ops, sizeof(*c->ops));
	json_array_foreach(code, i, e) {
		struct gp_cinstr *in = &c->ops[i];
		const char *op = json_string_value(json_array_get(e, 0));
		const char *ct = json_string_value(json_array_get(e, 1));
		size_t na = json_array_size(e);

		if (!json_is_array(e) || na < 3 || op == NULL || ct == NULL)
			return (gp_err_set(err, "composite: instruction %zu "
			    "must be [op, dtype, operands...]", i));
		in->s = gp_elemwise_scalar_find(op);
		if (in->s == NULL)
			return (gp_err_set(err, "composite: no scalar op '%s'",
			    op));
		if (!gp_dtype_parse(ct, &in->ct) || (in->ct != GP_FLOAT32 &&
		    in->ct != GP_FLOAT64) || !(in->s->kinds &
		    GP_SCALAR_KIND(GP_KIND_FLOAT)))
			return (gp_err_set(err, "composite: '%s' must compute "
			    "in float32 or float64", op));
		in->n_args = (int)na - 2;
		if (in->n_args != in->s->arity)
			return (gp_err_set(err, "composite: '%s' takes %d "
			    "operands", op, in->s->arity));
		for (int k = 0; k < in->n_args; k++)
			if (parse_ref(json_array_get(e, (size_t)k + 2), c,
			    (int)i, &in->arg[k], err) < 0)
				return (-1);
		instr_types(in);
	}
	c->out_dt = c->ops[c->n_ops - 1].out;
	return (0);
}

/*
 * The name: Composite{tanh(((i0 * 1.5) + i1))}
 */

static void
fmt_const(struct gp_buf *b, const struct gp_cconst *k)
{
	if (gp_dtype_is_float(k->dt)) {
		char s[40];

		/* the shortest text that reads back as the same value */
		for (int p = 1; p <= 17; p++) {
			snprintf(s, sizeof(s), "%.*g", p, k->x);
			if (k->dt == GP_FLOAT32 ?
			    strtof(s, NULL) == (float)k->x :
			    strtod(s, NULL) == k->x)
				break;
		}
		gp_buf_puts(b, s);
	} else if (k->dt == GP_BOOL)
		gp_buf_puts(b, k->i ? "True" : "False");
	else
		gp_buf_printf(b, "%lld", (long long)k->i);
}

static const struct {
	const char	*op;
	const char	*sym;	/* infix, or NULL */
	const char	*fn;	/* function name */
} names[] = {
	{"add", " + ", NULL}, {"sub", " - ", NULL}, {"mul", " * ", NULL},
	{"true_div", " / ", NULL}, {"int_div", " // ", NULL},
	{"mod", " % ", NULL}, {"pow", " ** ", NULL},
	{"gt", NULL, "GT"}, {"ge", NULL, "GE"}, {"lt", NULL, "LT"},
	{"le", NULL, "LE"}, {"eq", NULL, "EQ"}, {"neq", NULL, "NEQ"},
	{"switch", NULL, "Switch"}, {"abs", NULL, "Abs"},
	{"maximum", NULL, "Maximum"}, {"minimum", NULL, "Minimum"},
	{"clip", NULL, "Clip"}, {"sigmoid", NULL, "scalar_sigmoid"},
	{"softplus", NULL, "scalar_softplus"},
};

static void
fmt_ref(struct gp_buf *b, const struct gp_composite *c, struct gp_cref r,
    int depth);

static void
fmt_instr(struct gp_buf *b, const struct gp_composite *c, int i, int depth)
{
	const struct gp_cinstr *in = &c->ops[i];
	const char *nm = in->s->name, *sym = NULL, *fn = NULL;

	if (depth > 64 || b->len > 4096) {
		gp_buf_puts(b, "...");
		return;
	}
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (strcmp(names[k].op, nm) == 0) {
			sym = names[k].sym;
			fn = names[k].fn;
		}
	if (strcmp(nm, "neg") == 0) {
		gp_buf_puts(b, "(-");
		fmt_ref(b, c, in->arg[0], depth + 1);
		gp_buf_puts(b, ")");
		return;
	}
	if (in->s->rule == GP_SCALAR_SECOND) {
		fmt_ref(b, c, in->arg[1], depth + 1);
		return;
	}
	if (sym != NULL && in->n_args == 2) {
		gp_buf_puts(b, "(");
		fmt_ref(b, c, in->arg[0], depth + 1);
		gp_buf_puts(b, sym);
		fmt_ref(b, c, in->arg[1], depth + 1);
		gp_buf_puts(b, ")");
		return;
	}
	if (in->s->rule == GP_SCALAR_CAST)
		gp_buf_printf(b, "Cast{%s}", gp_dtype_name(in->ct));
	else
		gp_buf_puts(b, fn != NULL ? fn : nm);
	gp_buf_puts(b, "(");
	for (int k = 0; k < in->n_args; k++) {
		if (k > 0)
			gp_buf_puts(b, ", ");
		fmt_ref(b, c, in->arg[k], depth + 1);
	}
	gp_buf_puts(b, ")");
}

static void
fmt_ref(struct gp_buf *b, const struct gp_composite *c, struct gp_cref r,
    int depth)
{
	switch (r.kind) {
	case GP_CREF_IN:
		gp_buf_printf(b, "i%d", r.idx);
		break;
	case GP_CREF_CONST:
		fmt_const(b, &c->consts[r.idx]);
		break;
	case GP_CREF_REG:
		fmt_instr(b, c, r.idx, depth);
		break;
	}
}

static char *
make_name(const struct gp_composite *c)
{
	struct gp_buf b = {0};
	char *s;

	gp_buf_puts(&b, "Composite{");
	fmt_instr(&b, c, c->n_ops - 1, 0);
	gp_buf_puts(&b, "}");
	s = gp_xstrdup(gp_buf_str(&b));
	gp_buf_free(&b);
	return (s);
}

/*
 * C generation
 */

static const char *
ctype(enum gp_dtype dt)
{
	return (gp_dtype_table[dt].ctype);
}

/* The C type of dt in memory (pointers, block arrays): a bool's bytes as
 * unsigned char, since GCC vectorizes no load or store of _Bool (a loop
 * reading or writing one stayed scalar); values stay _Bool. */
static const char *
mtype(enum gp_dtype dt)
{
	return (dt == GP_BOOL ? "unsigned char" : ctype(dt));
}

static void
c_literal(struct gp_buf *b, const struct gp_cconst *k)
{
	switch (k->dt) {
	case GP_FLOAT32:
	case GP_FLOAT64: {
		const char *cast = k->dt == GP_FLOAT32 ? "(float)" : "(double)";

		if (isnan(k->x))
			gp_buf_printf(b, "%sNAN", cast);
		else if (isinf(k->x))
			gp_buf_printf(b, "%s%sINFINITY", cast,
			    k->x < 0 ? "-" : "");
		else if (k->dt == GP_FLOAT32)
			gp_buf_printf(b, "%af", (double)(float)k->x);
		else
			gp_buf_printf(b, "%a", k->x);
		break;
	}
	case GP_BOOL:
		gp_buf_puts(b, k->i ? "1" : "0");
		break;
	case GP_UINT64:
		gp_buf_printf(b, "UINT64_C(%llu)", (unsigned long long)k->i);
		break;
	default:
		if (k->i == INT64_MIN)
			gp_buf_puts(b, "INT64_MIN");
		else
			gp_buf_printf(b, "(%s)INT64_C(%lld)", ctype(k->dt),
			    (long long)k->i);
		break;
	}
}

static enum gp_dtype
ref_dtype(const struct gp_composite *c, struct gp_cref r)
{
	switch (r.kind) {
	case GP_CREF_IN:
		return (c->in_dt[r.idx]);
	case GP_CREF_CONST:
		return (c->consts[r.idx].dt);
	default:
		return (c->ops[r.idx].out);
	}
}

/* Instructions [lo, hi) of the loop body: registers rK from the scalars
 * i0.., c0.. and the earlier registers. */
static void
c_instrs(struct gp_buf *b, const struct gp_composite *c, int lo, int hi,
    const char *ind)
{
	struct gp_buf e = {0}, x = {0};

	for (int i = lo; i < hi; i++) {
		const struct gp_cinstr *in = &c->ops[i];
		char *args[3] = {NULL, NULL, NULL};
		int first = -1;

		for (int k = 0; k < in->n_args; k++) {
			char nm[24];

			if (in->as[k] == GP_DTYPE__COUNT)
				continue;
			snprintf(nm, sizeof(nm), "%c%d",
			    in->arg[k].kind == GP_CREF_IN ? 'i' :
			    in->arg[k].kind == GP_CREF_CONST ? 'c' : 'r',
			    in->arg[k].idx);
			gp_buf_clear(&x);
			gp_elemwise_c_convert(&x, in->as[k],
			    ref_dtype(c, in->arg[k]), nm);
			args[k] = gp_xstrdup(gp_buf_str(&x));
			if (first < 0)
				first = k;
		}
		for (int k = 0; k < in->n_args; k++)
			if (args[k] == NULL)
				args[k] = gp_xstrdup(args[first]);
		gp_buf_clear(&e);
		gp_elemwise_c_expr(&e, in->s, (const char *const *)args);
		gp_buf_printf(b, "%sconst %s r%d = (%s)(%s);\n", ind,
		    ctype(in->out), i, ctype(in->out), gp_buf_str(&e));
		for (int k = 0; k < in->n_args; k++)
			free(args[k]);
	}
	gp_buf_free(&e);
	gp_buf_free(&x);
}

/*
 * Stages.  A loop body that chains several calls of libm's transcendental
 * functions (tanh, then exp, ...) is one long dependency chain per vector
 * of elements, and the CPU overlaps few vectors of it: measured on this
 * project's machine (Zen 3, AVX2), chain.json's body took 5.0 ns per
 * float64 in one loop against 3.9 ns cut into loops over blocks of 256
 * elements, each ending after a call.  So the body is cut after each call
 * that another call follows (the cheap instructions after the last call
 * stay in the last stage: 0.99 of the time on chain.json's body, against
 * a stage of their own); the registers a later stage reads go through a
 * block-sized array (at most C_MAX_SPILL of them, 2 KiB each on the
 * stack, else one stage).  *n_stage gets the count, end[s] the index past
 * stage s's last instruction.
 */
#define C_MAX_SPILL	32

static bool	c_reads_any(const struct gp_composite *c, int lo, int hi,
		    enum gp_cref_kind kind, int idx);

static void
c_stages(const struct gp_composite *c, int *end, int *n_stage)
{
	int calls = 0, n = 0, spill = 0;

	for (int i = 0; i < c->n_ops; i++)
		calls += gp_elemwise_scalar_calls_libm(c->ops[i].s);
	for (int i = 0, seen = 0; i < c->n_ops; i++) {
		bool call = gp_elemwise_scalar_calls_libm(c->ops[i].s);

		seen += call;
		if (i == c->n_ops - 1 || (call && seen < calls))
			end[n++] = i + 1;
	}
	for (int s = 0; s + 1 < n; s++)
		for (int i = s == 0 ? 0 : end[s - 1]; i < end[s]; i++)
			spill += c_reads_any(c, end[s], c->n_ops, GP_CREF_REG,
			    i);
	if (spill > C_MAX_SPILL) {
		end[0] = c->n_ops;
		n = 1;
	}
	*n_stage = n;
}

/* Whether instruction i reads operand kind/idx. */
static bool
c_reads(const struct gp_composite *c, int i, enum gp_cref_kind kind,
    int idx)
{
	for (int k = 0; k < c->ops[i].n_args; k++)
		if (c->ops[i].as[k] != GP_DTYPE__COUNT &&
		    c->ops[i].arg[k].kind == kind && c->ops[i].arg[k].idx == idx)
			return (true);
	return (false);
}

static bool
c_reads_any(const struct gp_composite *c, int lo, int hi,
    enum gp_cref_kind kind, int idx)
{
	for (int i = lo; i < hi; i++)
		if (c_reads(c, i, kind, idx))
			return (true);
	return (false);
}

/* The blocked loop's body over m elements at j: stage by stage, each one
 * simd loop that reads its inputs (from aK), the registers of earlier
 * stages (from sK) and keeps the registers later stages read (in sK); the
 * last one writes o[j]. */
static void
c_block_body(struct gp_buf *b, const struct gp_composite *c, const int *end,
    int n_stage)
{
	const char *ind = "\t\t\t\t";

	for (int s = 0, lo = 0; s < n_stage; lo = end[s++]) {
		gp_buf_puts(b, "#pragma omp simd\n\t\t\tfor (int64_t j = 0; "
		    "j < m; j++) {\n");
		for (int k = 0; k < c->n_in; k++)
			if (!c->in_scalar[k] && c_reads_any(c, lo, end[s],
			    GP_CREF_IN, k))
				gp_buf_printf(b, "%sconst %s i%d = a%d[j];\n", ind,
				    ctype(c->in_dt[k]), k, k);
		for (int i = 0; i < lo; i++)
			if (c_reads_any(c, lo, end[s], GP_CREF_REG, i))
				gp_buf_printf(b, "%sconst %s r%d = s%d[j];\n",
				    ind, ctype(c->ops[i].out), i, i);
		c_instrs(b, c, lo, end[s], ind);
		for (int i = lo; i < end[s]; i++)
			if (c_reads_any(c, end[s], c->n_ops, GP_CREF_REG, i))
				gp_buf_printf(b, "%ss%d[j] = r%d;\n", ind, i, i);
		if (s == n_stage - 1)
			gp_buf_printf(b, "%so[j] = r%d;\n", ind, c->n_ops - 1);
		gp_buf_puts(b, "\t\t\t}\n");
	}
}

void
gp_composite_c_source(const struct gp_composite *c, struct gp_buf *b)
{
	bool used[GP_COMPOSITE_MAX_IN] = {false};
	const char *ot = mtype(c->out_dt);
	size_t osz = gp_dtype_size(c->out_dt);
	int end[GP_COMPOSITE_MAX_OPS], n_stage;

	c_stages(c, end, &n_stage);
	for (int k = 0; k < c->n_in; k++)
		used[k] = c_reads_any(c, 0, c->n_ops, GP_CREF_IN, k);
	gp_buf_puts(b, "void\nGP_KERNEL(char *const *p, const int64_t *s, "
	    "int64_t n)\n{\n");
	for (int k = 0; k < c->n_const; k++) {
		gp_buf_printf(b, "\tconst %s c%d = ", ctype(c->consts[k].dt),
		    k);
		c_literal(b, &c->consts[k]);
		gp_buf_puts(b, ";\n");
	}
	for (int k = 0; k < c->n_in; k++)
		if (used[k] && c->in_scalar[k])
			gp_buf_printf(b, "\tconst %s i%d = *(const %s *)"
			    "p[%d];\n", ctype(c->in_dt[k]), k,
			    ctype(c->in_dt[k]), k + 1);
	/* one stage, every operand of unit stride: one loop */
	if (n_stage == 1) {
		gp_buf_printf(b, "\tif (s[0] == %zu", osz);
		for (int k = 0; k < c->n_in; k++)
			if (used[k] && !c->in_scalar[k])
				gp_buf_printf(b, " && s[%d] == %zu", k + 1,
				    gp_dtype_size(c->in_dt[k]));
		gp_buf_printf(b, ") {\n\t\t%s *o = (%s *)p[0];\n", ot, ot);
		for (int k = 0; k < c->n_in; k++)
			if (used[k] && !c->in_scalar[k])
				gp_buf_printf(b, "\t\tconst %s *a%d = (const %s "
				    "*)p[%d];\n", mtype(c->in_dt[k]), k,
				    mtype(c->in_dt[k]), k + 1);
		gp_buf_puts(b, "#pragma omp simd\n\t\tfor (int64_t j = 0; "
		    "j < n; j++) {\n");
		for (int k = 0; k < c->n_in; k++)
			if (used[k] && !c->in_scalar[k])
				gp_buf_printf(b, "\t\t\tconst %s i%d = a%d[j];"
				    "\n", ctype(c->in_dt[k]), k, k);
		c_instrs(b, c, 0, c->n_ops, "\t\t\t");
		gp_buf_printf(b, "\t\t\to[j] = r%d;\n\t\t}\n\t\treturn;"
		    "\n\t}\n", c->n_ops - 1);
	}
	/* otherwise in blocks: strided operands gathered and scattered,
	 * the registers that cross stages kept in arrays */
	gp_buf_printf(b, "\t{\n\t\t%s bo[GP_JB];\n", ot);
	for (int k = 0; k < c->n_in; k++)
		if (used[k] && !c->in_scalar[k])
			gp_buf_printf(b, "\t\t%s b%d[GP_JB];\n",
			    mtype(c->in_dt[k]), k);
	for (int s = 0; s + 1 < n_stage; s++)
		for (int i = s == 0 ? 0 : end[s - 1]; i < end[s]; i++)
			if (c_reads_any(c, end[s], c->n_ops, GP_CREF_REG, i))
				gp_buf_printf(b, "\t\t%s s%d[GP_JB];\n",
				    mtype(c->ops[i].out), i);
	gp_buf_puts(b, "\t\tfor (int64_t j0 = 0; j0 < n; j0 += GP_JB) {\n"
	    "\t\t\tconst int64_t m = n - j0 < GP_JB ? n - j0 : GP_JB;\n");
	gp_buf_printf(b, "\t\t\t%s *o = s[0] == %zu ? (%s *)(p[0] + j0 * "
	    "%zu) : bo;\n", ot, osz, ot, osz);
	for (int k = 0; k < c->n_in; k++) {
		const char *t = mtype(c->in_dt[k]);
		size_t sz = gp_dtype_size(c->in_dt[k]);

		if (!used[k] || c->in_scalar[k])
			continue;
		gp_buf_printf(b, "\t\t\tconst %s *a%d = b%d;\n", t, k, k);
		gp_buf_printf(b, "\t\t\tif (s[%d] == %zu)\n\t\t\t\ta%d = "
		    "(const %s *)(p[%d] + j0 * %zu);\n", k + 1, sz, k, t,
		    k + 1, sz);
		gp_buf_printf(b, "\t\t\telse\n\t\t\t\tfor (int64_t j = 0; "
		    "j < m; j++)\n\t\t\t\t\tb%d[j] = *(const %s *)(p[%d] + "
		    "(j0 + j) * s[%d]);\n", k, t, k + 1, k + 1);
	}
	c_block_body(b, c, end, n_stage);
	gp_buf_printf(b, "\t\t\tif (o == bo)\n\t\t\t\tfor (int64_t "
	    "j = 0; j < m; j++)\n\t\t\t\t\t*(%s *)(p[0] + (j0 + j) * s[0]) = "
	    "bo[j];\n\t\t}\n\t}\n}\n", ot);
}

/*
 * The kernel
 */

#define NOP (GP_COMPOSITE_MAX_IN + 1)

struct citer {
	int	 nd, nop;
	int64_t	 shape[GP_MAX_DIMS];
	int64_t	 st[NOP][GP_MAX_DIMS];
	char	*base[NOP];
};

static void
citer_init(struct citer *it, struct gp_tensor *const *ops, int nop)
{
	const struct gp_tensor *o = ops[0];
	int nd = 0;

	it->nop = nop;
	for (int k = 0; k < nop; k++)
		it->base[k] = gp_tensor_data(ops[k]);
	/* drop dimensions of size 1 */
	for (int d = 0; d < o->ndim; d++) {
		if (o->shape[d] == 1)
			continue;
		it->shape[nd] = o->shape[d];
		for (int k = 0; k < nop; k++) {
			const struct gp_tensor *t = ops[k];
			int td = d - (o->ndim - t->ndim);

			it->st[k][nd] = td < 0 || t->shape[td] == 1 ? 0 :
			    t->strides[td];
		}
		nd++;
	}
	/* in the output's memory order (its strides descending; stable), so
	 * that an output laid out channels-last is walked along its memory:
	 * ConvNeXt's layer scale and residual add, in place in a transposed
	 * view, ran across the channels, one cache line an element */
	gp_dims_order_by(nd, it->shape, nop, it->st, 0);
	/* merge d into d + 1 when contiguous for every operand */
	for (int d = nd - 2; d >= 0; d--) {
		bool ok = true;

		for (int k = 0; k < nop && ok; k++)
			ok = it->st[k][d] == it->st[k][d + 1] *
			    it->shape[d + 1];
		if (!ok)
			continue;
		it->shape[d + 1] *= it->shape[d];
		for (int e = d; e < nd - 1; e++) {
			it->shape[e] = it->shape[e + 1];
			for (int k = 0; k < nop; k++)
				it->st[k][e] = it->st[k][e + 1];
		}
		nd--;
	}
	it->nd = nd;
}

static void
run_row(const struct gp_composite *c, char *const *p, const int64_t *s,
    int64_t n, void *scratch)
{
	if (c->jit != NULL)
		c->jit(p, s, n);
	else
		gp_interp_run(c->interp, p, s, n, scratch);
}

/* The flat elements [lo, hi) of it's iteration space (it.nd >= 1), row
 * by row: a row cut by lo or hi runs its part. */
static void
run_range(const struct gp_composite *c, const struct citer *it, int64_t lo,
    int64_t hi, void *scratch)
{
	int64_t len = it->shape[it->nd - 1], idx[GP_MAX_DIMS] = {0};
	int64_t steps[NOP], rest = lo / len, j = lo % len, pos = lo;
	char *p[NOP];

	for (int k = 0; k < it->nop; k++)
		steps[k] = it->st[k][it->nd - 1];
	for (int d = it->nd - 2; d >= 0; d--) {
		idx[d] = rest % it->shape[d];
		rest /= it->shape[d];
	}
	while (pos < hi) {
		int64_t m = len - j < hi - pos ? len - j : hi - pos;
		int d;

		for (int k = 0; k < it->nop; k++) {
			int64_t off = j * steps[k];

			for (d = 0; d < it->nd - 1; d++)
				off += idx[d] * it->st[k][d];
			p[k] = it->base[k] + off;
		}
		run_row(c, p, steps, m, scratch);
		pos += m;
		j = 0;
		for (d = it->nd - 2; d >= 0; d--) {
			if (++idx[d] < it->shape[d])
				break;
			idx[d] = 0;
		}
	}
}

/* run_range over [lo, hi) with the interpreter's scratch, if it needs
 * one, on this thread's stack or heap. */
static void
run_part(const struct gp_composite *c, const struct citer *it, int64_t lo,
    int64_t hi)
{
	void *scratch = NULL;
	char stackbuf[16384];

	if (c->jit == NULL) {
		size_t need = gp_interp_scratch(c->interp);

		scratch = need <= sizeof(stackbuf) ? stackbuf :
		    gp_xmalloc(need);
	}
	run_range(c, it, lo, hi, scratch);
	if (scratch != NULL && scratch != stackbuf)
		free(scratch);
}

/* The apply: a large one is cut into one part per thread (ops/par.h),
 * at multiples of 64 elements. */
static void
composite_kernel(const struct gp_node *node, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct gp_composite *c = node->priv;
	struct gp_tensor *ops[NOP];
	struct citer it;
	int64_t total = 1;

	if (gp_tensor_numel(out[0]) == 0)
		return;
	ops[0] = out[0];
	for (int k = 0; k < c->n_in; k++)
		ops[k + 1] = in[k];
	citer_init(&it, ops, c->n_in + 1);
	if (it.nd == 0) {
		/* one element: a row of 1 */
		it.nd = 1;
		it.shape[0] = 1;
		for (int k = 0; k < it.nop; k++)
			it.st[k][0] = 0;
	}
	for (int d = 0; d < it.nd; d++)
		total *= it.shape[d];
#ifdef GP_HAVE_OPENMP
	if (total >= GP_PAR_MIN && gp_par_max_threads() > 1) {
#pragma omp parallel
		{
			int64_t lo, hi;

			gp_par_split(total, 64, omp_get_thread_num(),
			    omp_get_num_threads(), &lo, &hi);
			run_part(c, &it, lo, hi);
		}
		return;
	}
#endif
	run_part(c, &it, 0, total);
}

/*
 * The op
 */

static int
composite_prepare(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	struct gp_composite *c = gp_xcalloc(1, sizeof(*c));
	int nd = 0;
	int64_t shape[GP_MAX_DIMS];
	bool jit = false;

	n->priv = c;
	c->n_in = n->n_in;
	for (int k = 0; k < n->n_in; k++) {
		const struct gp_type *t = gp_graph_in_type(g, n, k);

		c->in_dt[k] = t->dtype;
		c->in_scalar[k] = gp_shape_numel(t->ndim, t->shape) == 1;
		if (gp_shape_broadcast(nd, shape, t->ndim, t->shape, &nd,
		    shape, err) < 0)
			return (gp_err_prefix(err, "composite: input %d", k));
	}
	if (parse_program(n->params, c, err) < 0)
		return (-1);
	if (gp_op_param_bool(n->params, "jit", false, &jit, err) < 0)
		return (-1);
	c->name = make_name(c);
	c->interp = gp_interp_new(c);
	gp_ops_set_out(g, n, 0, c->out_dt, nd, shape);
	n->kernel = composite_kernel;
	n->impl = GP_IMPL_INTERP;
	if (jit) {
		struct gp_buf src = {0};
		const char *s;
		gp_jit_fn fn;
		uint64_t t0;
		int built;

		gp_composite_c_source(c, &src);
		s = gp_buf_str(&src);
		t0 = gp_jit_thread_ns();
		built = gp_jit_build(&s, &fn, 1, NULL);
		n->jit_ns += (double)(gp_jit_thread_ns() - t0);
		if (built == 1) {
			c->jit = fn;
			n->impl = GP_IMPL_JIT;
		}
		gp_buf_free(&src);
	}
	return (0);
}

static double
composite_flops(const struct gp_graph *g, const struct gp_node *n)
{
	const struct gp_composite *c = n->priv;
	const struct gp_type *t = &g->vars[n->out[0]].type;
	double f = 0;

	for (int i = 0; i < c->n_ops; i++)
		f += c->ops[i].s->flops;
	return (f * (double)gp_shape_numel(t->ndim, t->shape));
}

static void
composite_format(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	const struct gp_composite *c = n->priv;

	gp_buf_printf(b, "Elemwise{%s}", c != NULL ? c->name : "Composite");
}

static const char *const composite_params[] = {"consts", "code", "jit",
	NULL};

const struct gp_op gp_op_composite = {
	.name = "composite",
	.cls = "Elemwise",
	.doc = "composite(x0, ..., x31; code, consts, jit): a fused program of "
	    "elementwise scalar ops over the broadcast inputs (made by the "
	    "fusion rewrite only); may overwrite an input of its output's type",
	.min_in = 0,
	.max_in = GP_COMPOSITE_MAX_IN,
	.n_out = 1,
	.flags = GP_OPF_ELEMWISE | GP_OPF_INPLACE_OK,
	.params = composite_params,
	.prepare = composite_prepare,
	.flops = composite_flops,
	.format = composite_format,
	.free_priv = composite_free,
};

int
gp_composite_jit(struct gp_graph *g, const int *nodes, int n)
{
	struct gp_buf *src = gp_xcalloc((size_t)n + 1, sizeof(*src));
	const char **s = gp_xcalloc((size_t)n + 1, sizeof(*s));
	gp_jit_fn *fns = gp_xcalloc((size_t)n + 1, sizeof(*fns));
	struct gp_err err;
	int built = 0, got = 0;
	uint64_t t0;
	double share;

	for (int i = 0; i < n; i++) {
		gp_composite_c_source(g->nodes[nodes[i]].priv, &src[i]);
		s[i] = gp_buf_str(&src[i]);
	}
	t0 = gp_jit_thread_ns();
	if (n > 0)
		got = gp_jit_build(s, fns, n, &err);
	/* one compiler run builds the batch: each loop built is charged an
	 * equal share of it */
	share = got > 0 ? (double)(gp_jit_thread_ns() - t0) / got : 0;
	if (n > 0 && got < n) {
		char msg[GP_ERR_MAX + 64];

		snprintf(msg, sizeof(msg), "%s; fused loops run in the "
		    "interpreter", err.msg);
		gp_jit_note("jit-build", msg);
	}
	for (int i = 0; i < n; i++) {
		struct gp_node *nd = &g->nodes[nodes[i]];
		struct gp_composite *c = nd->priv;
		json_t *p;

		if (fns[i] == NULL)
			continue;
		nd->jit_ns += share;
		p = json_copy(nd->params);
		c->jit = fns[i];
		nd->impl = GP_IMPL_JIT;
		json_object_set_new(p, "jit", json_true());
		json_decref(nd->params);
		nd->params = p;
		built++;
	}
	for (int i = 0; i < n; i++)
		gp_buf_free(&src[i]);
	free(src);
	free(s);
	free(fns);
	return (built);
}

void
gp_composite_use_interp(struct gp_node *n)
{
	struct gp_composite *c = n->priv;

	c->jit = NULL;
	n->impl = GP_IMPL_INTERP;
}
