/*
 * op.h: the op interface and the registry's lookup.  Every op, built-in or
 * extern, is a const struct gp_op in a family table (one file per family
 * in src/ops/); the registry (ops/table.c) looks ops up by name.  An op owns: its name and class (Theano's Op and Class
 * columns), its arity and params, dtype and shape inference (prepare), its
 * kernel(s), its flop count, the work space its kernel takes, and which
 * outputs view or may overwrite which inputs (view_map / destroy_map).
 */
#ifndef GPTOP_SRC_OP_H
#define GPTOP_SRC_OP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/* An op works on graphs (graph/graph.h), which know ops only by pointer:
 * this header does not include graph.h, so graph.c may include it. */
struct gp_graph;
struct gp_node;
struct gp_scalar_op;
struct gp_tensor;

enum gp_op_flags {
	GP_OPF_ELEMWISE = 1 << 0,	/* fusable elementwise op */
	GP_OPF_INPLACE_OK = 1 << 1,	/* output 0 may overwrite an input of
					 * its own type: input 0 for every op
					 * but elementwise ones, which may
					 * overwrite any input */
	GP_OPF_VIEW = 1 << 2,		/* output 0 is a view of input 0 */
	GP_OPF_REDUCE = 1 << 3,
	GP_OPF_BLAS = 1 << 4,
	GP_OPF_NONDET = 1 << 5,		/* never constant-folded or merged */
	GP_OPF_EXTERN = 1 << 6,
};

struct gp_op {
	const char	*name;	/* in graph files: "add" */
	const char	*cls;	/* class: "Elemwise" */
	const char	*doc;	/* one line: inputs, output, in-place rule */
	int		 min_in, max_in;	/* max_in < 0: any number */
	int		 n_out;	/* outputs (1 for most ops) */
	unsigned	 flags;
	/* The params keys allowed, NULL-terminated (NULL: none). */
	const char *const *params;
	/* Check params and inputs, parse params into n->priv, set the output
	 * types, n->kernel, n->impl and n->view.  Error text names no node:
	 * the caller prefixes it. */
	int		(*prepare)(struct gp_graph *g, struct gp_node *n,
			    struct gp_err *err);
	/* Floating-point operations of one execution (NULL: none counted). */
	double		(*flops)(const struct gp_graph *g,
			    const struct gp_node *n);
	/* Bytes of work space (ops/scratch.h) one execution takes for the
	 * node's types, params and the layout its inputs arrive in (in[k]:
	 * dtype, shape and strides as the VM will pass them, no storage;
	 * run/vm.h's gp_vm_layout): the sum over the scratch slots of the
	 * largest request the kernel makes of each, contiguous copies of
	 * strided operands included (NULL: none).  The memory profile holds
	 * them alive during the apply; the allocator counts the kernel's
	 * requests, and the tests hold the two equal. */
	uint64_t	(*workspace)(const struct gp_graph *g,
			    const struct gp_node *n,
			    const struct gp_tensor *const *in);
	/* View ops (an output with view[k] >= 0): the header output k takes
	 * over x, the layout of the input it views (shape, strides; no
	 * storage): set o's ndim, shape and strides and return true; or
	 * return false when no strides address the output in x's elements
	 * (a transposed matrix flattened).  The VM asks at link time, from
	 * the layouts its program gives each input: a false makes the output
	 * one the VM allocates (contiguous, counted as any other), and the
	 * kernel then copies into the output it is given.  Required of view
	 * ops. */
	bool		(*view_layout)(const struct gp_graph *g,
			    const struct gp_node *n, int k,
			    const struct gp_tensor *x, struct gp_tensor *o);
	/* The Op name with params ("Sum{axis=[0]}"); NULL: "Class{name}". */
	void		(*format)(const struct gp_graph *g,
			    const struct gp_node *n, struct gp_buf *b);
	void		(*free_priv)(void *priv);
	/* Detail for the profile (gp_prof_apply.extra), e.g. an extern
	 * op's C signature with its inputs' dtypes and shapes; NULL: none. */
	void		(*describe)(const struct gp_graph *g,
			    const struct gp_node *n, struct gp_buf *b);
	/* Elementwise ops: the scalar operation (fusion, JIT, interpreter). */
	const struct gp_scalar_op *scalar;
};

/* The op called name, or NULL (ops/table.c). */
const struct gp_op	*gp_op_find(const char *name);
/* Every op, for listings: *n gets the count. */
const struct gp_op *const *gp_op_all(size_t *n);

/* Helpers for prepare() implementations. */
int	gp_op_param_int(const json_t *params, const char *key, int64_t def,
	    int64_t *out, struct gp_err *err);
int	gp_op_param_double(const json_t *params, const char *key, double def,
	    double *out, struct gp_err *err);
int	gp_op_param_bool(const json_t *params, const char *key, bool def,
	    bool *out, struct gp_err *err);
/* An axis list param: an int or an array of ints, negative counts from the
 * end; sorted, checked against ndim, no duplicates.  Missing: all axes
 * when all_default, else none.  Returns the count in *n. */
int	gp_op_param_axes(const json_t *params, const char *key, int ndim,
	    bool all_default, int *axes, int *n, struct gp_err *err);

#endif
