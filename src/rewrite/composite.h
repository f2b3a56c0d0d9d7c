/*
 * rewrite/composite.h: the Composite op the fusion rewrite makes: one
 * elementwise apply running a small program of scalar operations (Theano's
 * Elemwise{Composite{...}}).
 *
 * The program is in the node's params, so merge, clone and captures see
 * it:
 *
 *   {"consts": [["float64", 1.5], ...],
 *    "code": [["mul", "float64", "i0", "c0"], ["tanh", "float64", "r0"]],
 *    "jit": true}
 *
 * Each instruction applies a scalar op (ops/elemwise.h) in a compute dtype
 * (float32 or float64) to operands named iK (input K), cK (constant K) or
 * rK (the result of instruction K < this one).  Operand conversions and
 * the result dtype follow the op's dtype rule for that compute dtype, as
 * the unfused apply did; the result of the last instruction is the
 * output, broadcast to the inputs' common shape.
 *
 * A Composite runs as JIT-compiled C (jit.h) when "jit" is true and the
 * JIT can build it, else through the interpreter (interp.c); n->impl says
 * which (GP_IMPL_JIT, GP_IMPL_INTERP).  The op is not in the graph-file op
 * table: only rewrites make it, with gp_graph_add_node(&gp_op_composite).
 */
#ifndef GPTOP_SRC_REWRITE_COMPOSITE_H
#define GPTOP_SRC_REWRITE_COMPOSITE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"
#include "graph/op.h"
#include "ops/elemwise.h"
#include "rewrite/jit.h"

#define GP_COMPOSITE_MAX_IN	32	/* inputs of one Composite */
#define GP_COMPOSITE_MAX_OPS	256	/* instructions of a Composite */

enum gp_cref_kind {
	GP_CREF_IN,
	GP_CREF_CONST,
	GP_CREF_REG
};

struct gp_cref {
	enum gp_cref_kind	kind;
	int			idx;
};

struct gp_cinstr {
	const struct gp_scalar_op	*s;
	int				 n_args;
	struct gp_cref			 arg[3];
	enum gp_dtype			 ct;	/* compute dtype */
	/* operand k converted to as[k] (GP_DTYPE__COUNT: not read) */
	enum gp_dtype			 as[3];
	enum gp_dtype			 out;	/* result dtype */
};

struct gp_cconst {
	enum gp_dtype	dt;
	double		x;	/* the value (float, bool) */
	int64_t		i;	/* the value, exactly (integers) */
};

struct gp_interp;

/* A parsed Composite (the node's priv). */
struct gp_composite {
	int			 n_in;
	enum gp_dtype		 in_dt[GP_COMPOSITE_MAX_IN];
	/* input k has one element */
	bool			 in_scalar[GP_COMPOSITE_MAX_IN];
	int			 n_const;
	struct gp_cconst	*consts;
	int			 n_ops;
	struct gp_cinstr	*ops;
	enum gp_dtype		 out_dt;
	char			*name;	/* "Composite{...}" */
	struct gp_interp	*interp;
	gp_jit_fn		 jit;	/* NULL: interpreted */
};

extern const struct gp_op gp_op_composite;

/* The C function computing c over one row, named GP_KERNEL (see jit.h):
 * appended to b. */
void	gp_composite_c_source(const struct gp_composite *c,
	    struct gp_buf *b);
/* Compile the Composite nodes nodes[0..n-1] of g with the JIT, all in one
 * batch; each one built switches to it (impl GP_IMPL_JIT, params "jit":
 * true).  Returns how many did; the others keep the interpreter. */
int	gp_composite_jit(struct gp_graph *g, const int *nodes, int n);
/* Run node n (a Composite) through the interpreter from now on (tests). */
void	gp_composite_use_interp(struct gp_node *n);

/* The interpreter (interp.c): a program of block operations. */
struct gp_interp	*gp_interp_new(const struct gp_composite *c);
void			 gp_interp_free(struct gp_interp *ip);
/* Bytes of scratch gp_interp_run needs. */
size_t			 gp_interp_scratch(const struct gp_interp *ip);
/* One row of n elements: ptrs[0] and steps[0] the output, ptrs[k + 1]
 * and steps[k + 1] input k (byte steps, 0 for broadcast). */
void			 gp_interp_run(const struct gp_interp *ip,
			    char *const *ptrs, const int64_t *steps, int64_t n,
			    void *scratch);

#endif
