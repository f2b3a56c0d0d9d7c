/*
 * rewrite/interp.c: the Composite interpreter, for when there is no C
 * compiler (or jit=False).
 *
 * gp_interp_new() turns a Composite's program into a flat list of block
 * operations over slots of GP_INTERP_BLOCK elements: load an input
 * (converted to the dtype an instruction reads it in, whatever its
 * stride), fill a constant, convert a slot, evaluate one scalar op with
 * its eval_f64 / eval_f32 block evaluator (ops/elemwise.h), and store the
 * last result to the output.  Every operand conversion is made once and
 * shared by the instructions that read it.  A value of dtype bool (a
 * comparison) is held as 0 or 1 in its instruction's float type.
 *
 * A row runs block by block, every step in turn; inputs of one element and
 * the constants are loaded once per row.  The output is written after the
 * block's inputs are read, so it may overwrite an input in place.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rewrite/composite.h"

#define GP_INTERP_BLOCK 256

enum istep_kind {
	IS_LOAD,	/* input src -> slot dst as `to` */
	IS_FILL,	/* constant value -> slot dst */
	IS_CONV,	/* slot src (from) -> slot dst (to) */
	IS_EVAL,	/* op s in ct over slots args -> slot dst */
};

struct istep {
	enum istep_kind			 kind;
	int				 dst, src;
	enum gp_dtype			 from, to;
	const struct gp_scalar_op	*s;
	int				 args[3];
	double				 val[1];	/* IS_FILL */
};

struct gp_interp {
	int		 n_slots;
	int		 n_pre, n_steps;
	struct istep	*pre;	/* once per row */
	struct istep	*steps;	/* per block */
	int		 n_in;
	enum gp_dtype	 in_dt[GP_COMPOSITE_MAX_IN];
	int		 out_slot;
	enum gp_dtype	 out_from, out_dt;
	int		 tmp_slot;	/* the store's staging area */
};

/* The builder: slots of fetched operands, keyed by what they hold. */
struct fetched {
	struct gp_cref	ref;
	enum gp_dtype	as, to;
	int		slot;
};

struct builder {
	const struct gp_composite	*c;
	struct gp_interp		*ip;
	size_t				 cap_pre, cap_steps;
	struct fetched			*f;
	size_t				 n_f, cap_f;
	int				*reg;	/* op -> slot */
};

static struct istep *
add_step(struct builder *b, bool pre)
{
	struct gp_interp *ip = b->ip;
	struct istep *s;

	if (pre) {
		gp_grow(&ip->pre, &b->cap_pre, (size_t)ip->n_pre + 1,
		    sizeof(*ip->pre));
		s = &ip->pre[ip->n_pre++];
	} else {
		gp_grow(&ip->steps, &b->cap_steps, (size_t)ip->n_steps + 1,
		    sizeof(*ip->steps));
		s = &ip->steps[ip->n_steps++];
	}
	memset(s, 0, sizeof(*s));
	return (s);
}

static int
new_slot(struct builder *b)
{
	return (b->ip->n_slots++);
}

/* A slot holding operand r converted for an operand of dtype `as` (bool:
 * 0 or 1) in an instruction computing in ct. */
static int
fetch(struct builder *b, struct gp_cref r, enum gp_dtype as,
    enum gp_dtype ct)
{
	const struct gp_composite *c = b->c;
	enum gp_dtype to = as == GP_BOOL ? ct : as;
	struct istep *s;
	int slot;

	for (size_t i = 0; i < b->n_f; i++)
		if (b->f[i].ref.kind == r.kind && b->f[i].ref.idx == r.idx &&
		    b->f[i].as == as && b->f[i].to == to)
			return (b->f[i].slot);
	switch (r.kind) {
	case GP_CREF_REG: {
		const struct gp_cinstr *in = &c->ops[r.idx];
		int src = b->reg[r.idx];

		if (as == GP_BOOL && in->out != GP_BOOL) {
			/* x != 0, through a bool block */
			int t = new_slot(b);

			s = add_step(b, false);
			s->kind = IS_CONV;
			s->src = src;
			s->from = in->ct;
			s->to = GP_BOOL;
			s->dst = t;
			src = t;
			slot = new_slot(b);
			s = add_step(b, false);
			s->kind = IS_CONV;
			s->src = src;
			s->from = GP_BOOL;
			s->to = to;
			s->dst = slot;
			break;
		}
		if (in->ct == to)
			return (src);
		slot = new_slot(b);
		s = add_step(b, false);
		s->kind = IS_CONV;
		s->src = src;
		s->from = in->ct;
		s->to = to;
		s->dst = slot;
		break;
	}
	case GP_CREF_IN: {
		bool pre = c->in_scalar[r.idx];
		enum gp_dtype dt = c->in_dt[r.idx];

		slot = new_slot(b);
		s = add_step(b, pre);
		s->kind = IS_LOAD;
		s->src = r.idx;
		s->from = dt;
		s->to = as == GP_BOOL && dt != GP_BOOL ? GP_BOOL : to;
		s->dst = slot;
		if (s->to != to) {
			int t = slot;

			slot = new_slot(b);
			s = add_step(b, pre);
			s->kind = IS_CONV;
			s->src = t;
			s->from = GP_BOOL;
			s->to = to;
			s->dst = slot;
		}
		break;
	}
	default: {
		const struct gp_cconst *k = &c->consts[r.idx];
		char raw[8], bl[8];

		gp_dtype_store(raw, k->dt, k->x);
		slot = new_slot(b);
		s = add_step(b, true);
		s->kind = IS_FILL;
		s->to = to;
		s->dst = slot;
		if (as == GP_BOOL) {
			gp_dtype_convert(bl, GP_BOOL, raw, k->dt, 0, 1);
			gp_dtype_convert(s->val, to, bl, GP_BOOL, 0, 1);
		} else
			gp_dtype_convert(s->val, to, raw, k->dt, 0, 1);
		break;
	}
	}
	gp_grow(&b->f, &b->cap_f, b->n_f + 1, sizeof(*b->f));
	b->f[b->n_f++] = (struct fetched){r, as, to, slot};
	return (slot);
}

struct gp_interp *
gp_interp_new(const struct gp_composite *c)
{
	struct gp_interp *ip = gp_xcalloc(1, sizeof(*ip));
	struct builder b = {.c = c, .ip = ip};

	ip->n_in = c->n_in;
	memcpy(ip->in_dt, c->in_dt, sizeof(ip->in_dt));
	b.reg = gp_xcalloc((size_t)c->n_ops + 1, sizeof(int));
	for (int i = 0; i < c->n_ops; i++) {
		const struct gp_cinstr *in = &c->ops[i];
		int args[3] = {-1, -1, -1}, first = -1;
		struct istep *s;

		for (int k = 0; k < in->n_args; k++) {
			if (in->as[k] == GP_DTYPE__COUNT)
				continue;
			args[k] = fetch(&b, in->arg[k], in->as[k], in->ct);
			if (first < 0)
				first = args[k];
		}
		s = add_step(&b, false);
		s->kind = IS_EVAL;
		s->s = in->s;
		s->to = in->ct;
		for (int k = 0; k < 3; k++)
			s->args[k] = args[k] >= 0 ? args[k] : first;
		s->dst = b.reg[i] = new_slot(&b);
	}
	ip->out_slot = b.reg[c->n_ops - 1];
	ip->out_from = c->ops[c->n_ops - 1].ct;
	ip->out_dt = c->out_dt;
	ip->tmp_slot = new_slot(&b);
	free(b.reg);
	free(b.f);
	return (ip);
}

void
gp_interp_free(struct gp_interp *ip)
{
	if (ip == NULL)
		return;
	free(ip->pre);
	free(ip->steps);
	free(ip);
}

size_t
gp_interp_scratch(const struct gp_interp *ip)
{
	return ((size_t)ip->n_slots * GP_INTERP_BLOCK * sizeof(double));
}

static void
exec(const struct istep *s, char *sc, char *const *ptrs,
    const int64_t *steps, int64_t i0, size_t len)
{
	char *dst = sc + (size_t)s->dst * GP_INTERP_BLOCK * sizeof(double);

	switch (s->kind) {
	case IS_LOAD:
		gp_dtype_convert(dst, s->to, ptrs[s->src + 1] + i0 *
		    steps[s->src + 1], s->from, (ptrdiff_t)steps[s->src + 1],
		    len);
		break;
	case IS_FILL: {
		size_t sz = gp_dtype_size(s->to);

		for (size_t i = 0; i < len; i++)
			memcpy(dst + i * sz, s->val, sz);
		break;
	}
	case IS_CONV:
		gp_dtype_convert(dst, s->to, sc + (size_t)s->src *
		    GP_INTERP_BLOCK * sizeof(double), s->from,
		    (ptrdiff_t)gp_dtype_size(s->from), len);
		break;
	case IS_EVAL: {
		const void *a[3];

		for (int k = 0; k < 3; k++)
			a[k] = s->args[k] < 0 ? NULL : sc +
			    (size_t)s->args[k] * GP_INTERP_BLOCK *
			    sizeof(double);
		if (s->to == GP_FLOAT64)
			s->s->eval_f64((double *)dst,
			    (const double *const *)a, len);
		else
			s->s->eval_f32((float *)dst,
			    (const float *const *)a, len);
		break;
	}
	}
}

void
gp_interp_run(const struct gp_interp *ip, char *const *ptrs,
    const int64_t *steps, int64_t n, void *scratch)
{
	char *sc = scratch;
	char *res = sc + (size_t)ip->out_slot * GP_INTERP_BLOCK *
	    sizeof(double);
	char *tmp = sc + (size_t)ip->tmp_slot * GP_INTERP_BLOCK *
	    sizeof(double);
	size_t osz = gp_dtype_size(ip->out_dt);

	for (int k = 0; k < ip->n_pre; k++)
		exec(&ip->pre[k], sc, ptrs, steps, 0, GP_INTERP_BLOCK);
	for (int64_t i0 = 0; i0 < n; i0 += GP_INTERP_BLOCK) {
		size_t len = (size_t)(n - i0 < GP_INTERP_BLOCK ? n - i0 :
		    GP_INTERP_BLOCK);
		char *o = ptrs[0] + i0 * steps[0];

		for (int k = 0; k < ip->n_steps; k++)
			exec(&ip->steps[k], sc, ptrs, steps, i0, len);
		if (steps[0] == (int64_t)osz) {
			gp_dtype_convert(o, ip->out_dt, res, ip->out_from,
			    (ptrdiff_t)gp_dtype_size(ip->out_from), len);
			continue;
		}
		gp_dtype_convert(tmp, ip->out_dt, res, ip->out_from,
		    (ptrdiff_t)gp_dtype_size(ip->out_from), len);
		for (size_t i = 0; i < len; i++)
			memcpy(o + (int64_t)i * steps[0], tmp + i * osz, osz);
	}
}
