/*
 * ops/elemwise.h: the scalar operations behind the elementwise family, as
 * the fusion rewrite, the JIT and the Composite interpreter see them.
 *
 * Every Elemwise op (add, exp, gt, switch, cast, ...) applies one scalar
 * operation to its inputs after numpy broadcasting.  Its dtypes follow one
 * of a few rules: each input is first converted to the op's compute dtype
 * (with gp_dtype_convert's semantics), the scalar operation runs in that
 * type, and the result has the output dtype (the compute dtype, or bool for
 * comparisons).  gp_elemwise_dtypes() applies the rule; a generated kernel
 * must convert its operands the same way (gp_elemwise_c_convert()) to give
 * the built-in kernels' results.
 *
 * In C, a scalar operation is an expression over the helpers defined by
 * gp_elemwise_c_prelude: "gp_ew_add($0, $1)", where $0, $1, $2 stand for the
 * operands.  The helpers dispatch on the operand type with C11 _Generic, so
 * operands must have exactly the compute C type (a variable or a cast such
 * as "(int8_t)(x)"; not an expression the integer promotions widen).  The
 * prelude is the very code the built-in kernels are compiled from, so
 * generated code gives their results bit for bit, except where the kernels
 * use libmvec's vector transcendentals (exp, log, tanh, ...: a few ulp
 * apart; see elemwise.c).
 */
#ifndef GPTOP_SRC_OPS_ELEMWISE_H
#define GPTOP_SRC_OPS_ELEMWISE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/dtype.h"
#include "ops/ops.h"
#include "base/util.h"

/* How an op's compute and output dtypes follow from its inputs. */
enum gp_scalar_rule {
	GP_SCALAR_PROMOTE,	/* compute = out = numpy promotion of inputs */
	GP_SCALAR_FLOAT,	/* compute = out = gp_dtype_to_float(promotion) */
	GP_SCALAR_COMPARE,	/* compute = promotion, out = bool */
	GP_SCALAR_SWITCH,	/* input 0 as bool; compute = out = promotion of
				 * inputs 1 and 2 */
	GP_SCALAR_SECOND,	/* compute = out = input 1's dtype; input 0 only
				 * gives its shape to the broadcast */
	GP_SCALAR_CAST		/* compute = out = the node's "dtype" param */
};

/* Bits of gp_scalar_op.kinds: the compute dtype kinds an op is defined on. */
#define GP_SCALAR_KIND(k)	(1u << (k))
#define GP_SCALAR_KINDS_ALL	0xfu

struct gp_scalar_op {
	const char		*name;	/* as in graph files: "add" */
	int			 arity;	/* operands of one application */
	/* add, mul: the Elemwise op takes 2 or more inputs and folds them
	 * left to right, ((x0 op x1) op x2) ..., in the compute dtype */
	bool			 nary;
	enum gp_scalar_rule	 rule;
	unsigned		 kinds;	/* GP_SCALAR_KIND(GP_KIND_*) bits */
	/* When the promotion is bool and bool is not in kinds: the compute
	 * dtype used instead (int8 for int_div, mod and pow, as numpy), or
	 * GP_BOOL when bool inputs are an error (sub, neg). */
	enum gp_dtype		 bool_as;
	double			 flops;	/* per output element and application */
	/* The C expression, operands spelled $0, $1, $2 (see above). */
	const char		*c_expr;
	/* Evaluate over n contiguous elements in float64 or float32: in[k]
	 * points at operand k.  out may be any in[k] (element for element).
	 * These give the op's floating-point semantics (comparisons and the
	 * logic ops give 1 or 0, and/or/not are logical); integer wrapping,
	 * truncation and the int_div/mod-by-zero rule are not modelled.
	 * NULL for the integer-only ops (lshift, rshift). */
	void	(*eval_f64)(double *out, const double *const *in, size_t n);
	void	(*eval_f32)(float *out, const float *const *in, size_t n);
};

/* Helpers every generated elementwise kernel compiles against: it
 * includes <math.h> and <stdint.h> and defines the static inline gp_ew_*
 * functions and macros used by c_expr and gp_elemwise_c_convert().  Link
 * with -lm. */
extern const char gp_elemwise_c_prelude[];

/* The scalar op called name ("add", "second", ...), or NULL. */
const struct gp_scalar_op *gp_elemwise_scalar_find(const char *name);
/* Every scalar op, for listings: *n gets the count. */
const struct gp_scalar_op *gp_elemwise_scalar_all(size_t *n);
/* Whether s's float evaluation calls a transcendental function of libm
 * (libmvec in vector loops): exp, log, tanh, erf, pow and the ops made
 * of them.  These cost several times an arithmetic op per element. */
bool	gp_elemwise_scalar_calls_libm(const struct gp_scalar_op *s);

/* Apply s's dtype rule to n inputs of dtypes in[]: as[k] gets the dtype
 * input k is converted to before the operation (GP_DTYPE__COUNT: input k
 * is not read), *out the output dtype.  cast_to is the target of a
 * GP_SCALAR_CAST op (ignored otherwise).  Fails (message naming the op and
 * the offending dtype) when the op is not defined for the inputs, e.g.
 * "and" on floats or "sub" on bools. */
int	gp_elemwise_dtypes(const struct gp_scalar_op *s, int n,
	    const enum gp_dtype *in, enum gp_dtype cast_to, enum gp_dtype *as,
	    enum gp_dtype *out, struct gp_err *err);
/* For a prepared elementwise node: the dtype its input k is converted to
 * (GP_DTYPE__COUNT: not read), and the compute dtype its scalar op runs
 * in. */
enum gp_dtype	gp_elemwise_input_dtype(const struct gp_node *n, int k);
enum gp_dtype	gp_elemwise_compute_dtype(const struct gp_node *n);

/* Append s's C expression over the operand expressions args[0..arity-1]
 * (each of the compute C type, see above). */
void	gp_elemwise_c_expr(struct gp_buf *b, const struct gp_scalar_op *s,
	    const char *const *args);
/* Append a C expression converting expr, of dtype from, to dtype to, with
 * gp_dtype_convert's semantics (float to integer clamps, NaN gives 0;
 * integer to integer wraps; anything to bool tests != 0). */
void	gp_elemwise_c_convert(struct gp_buf *b, enum gp_dtype to,
	    enum gp_dtype from, const char *expr);

#endif
