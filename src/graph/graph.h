/*
 * graph.h: the graph IR.  A graph holds named variables (inputs fed each
 * call, shared state, constants, and the temporaries nodes compute), nodes
 * (an op applied to variables), and functions (the outputs and shared
 * updates one call computes).  Every variable's dtype and shape are known
 * statically: the loader infers them node by node through each op's
 * prepare().
 *
 * Variables and nodes are referenced by index.  Rewrites edit a graph in
 * place (marking nodes dead, appending new ones, redirecting uses);
 * gp_graph_compact() then drops what is dead.  gp_graph_clone() gives an
 * independent copy (the pristine graph a rewrite toggle recompiles from).
 *
 * Front-ends (the JSON loader, ONNX) build a graph through graph/build.h:
 * variables, nodes and functions added, then one gp_graph_prepare().
 */
#ifndef GPTOP_SRC_GRAPH_H
#define GPTOP_SRC_GRAPH_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "graph/tensor.h"
#include "base/util.h"

#define GP_MAX_OUT 8

struct gp_op;
struct gp_node;

enum gp_var_kind {
	GP_VAR_INPUT,		/* fed each call (read-only) */
	GP_VAR_SHARED,		/* state kept across calls, changed by updates */
	GP_VAR_CONSTANT,	/* fixed value */
	GP_VAR_TEMP		/* computed by a node */
};

enum gp_impl {
	GP_IMPL_C,		/* built-in kernel */
	GP_IMPL_BLAS,		/* through OpenBLAS */
	GP_IMPL_JIT,		/* generated and compiled C */
	GP_IMPL_INTERP,		/* interpreted composite */
	GP_IMPL_EXTERN,		/* a C function through libffi */
	GP_IMPL_VIEW,		/* no computation: a view of an input */
	GP_IMPL__COUNT
};

extern const char *const gp_impl_names[GP_IMPL__COUNT];

struct gp_type {
	enum gp_dtype	dtype;
	int		ndim;
	int64_t		shape[GP_MAX_DIMS];
};

struct gp_var {
	char			*name;
	enum gp_var_kind	 kind;
	struct gp_type		 type;
	int			 producer;	/* node index, or -1 */
	int			 producer_out;
	struct gp_tensor	 value;	/* input, shared, constant: the data */
	int			 line, col;	/* where it was defined, 0: unknown */
};

/* A kernel computes node's outputs from its inputs.  Output tensors arrive
 * allocated (contiguous, of the inferred type) unless the output is a view
 * (the kernel makes it one with gp_tensor_view) or destroys an input (it
 * arrives as that input: the kernel overwrites it in place). */
typedef void (*gp_kernel_fn)(const struct gp_node *node,
    struct gp_tensor *const *in, struct gp_tensor *const *out);

struct gp_node {
	char			*name;	/* user's name, or NULL */
	const struct gp_op	*op;
	/* What a front-end shows for this node instead of the op's own
	 * Op and Class (an ONNX node: "Gemm{tA}", "BLAS"), or NULL.  A node
	 * with a family is named by its name in the profile (the ONNX
	 * node's), not by its op and inputs */
	char			*label, *family;
	json_t			*params;	/* object, never NULL; nodes may
						 * share one: replace, never
						 * modify */
	void			*priv;	/* the op's parsed params */
	int			 n_in, n_out;
	int			*in, *out;	/* variable indices */
	int8_t			 destroy[GP_MAX_OUT];	/* input overwritten, -1 */
	int8_t			 view[GP_MAX_OUT];	/* input aliased, -1 */
	gp_kernel_fn		 kernel;	/* chosen by prepare */
	enum gp_impl		 impl;
	/* preparation: the last prepare's time, JIT compiles aside; and
	 * the time spent compiling its JIT code, in its prepares or its
	 * share of a batch (gp_composite_jit), summed; ns */
	double			 prep_ns, jit_ns;
	/* provenance: the source nodes whose work it does, sorted ids into
	 * the graph's srcs (graph/prov.h) */
	int			*src;
	int			 n_src;
	bool			 dead;
	int			 line, col;
};

struct gp_update {
	int	dst;	/* a shared variable */
	int	src;	/* its new value */
};

/* A scalar literal as a file wrote it (a node input like 2, 0.5 or true),
 * see gp_graph_set_literal. */
struct gp_literal {
	enum gp_dtype	 as;	/* GP_BOOL, GP_INT64 or GP_FLOAT64 */
	int64_t		 i;	/* the value of a bool or an integer */
	double		 d;	/* the value of a real */
	const char	*name;	/* its variable's name ("2"); NULL: none */
	const char	*text;	/* how messages show it */
};

/* A literal input waiting for its type (graph/build.c). */
struct gp_graph_lit {
	int			 node, k, var;	/* input k of node, var */
	struct gp_literal	 lit;	/* its strings are owned */
	bool			 typed;	/* by gp_graph_prepare_at */
};

/* A source node: a node of the graph file (graph/prov.h). */
struct gp_src {
	char	*name;	/* its name in the file, or NULL */
	int	 index;	/* its index among the file's nodes */
};

struct gp_function {
	char			*name;
	int			 n_out, n_upd;
	int			*out;
	/* the outputs' names as declared: a rewrite may point out[k] at
	 * another variable (an output that copies x becomes x) */
	char			**out_name;
	struct gp_update	*upd;
};

struct gp_graph {
	char			*name;
	char			*path;	/* the file it was loaded from, or "" */
	char			*dir;	/* its folder, for relative paths */
	struct gp_var		*vars;
	size_t			 n_vars, cap_vars;
	struct gp_node		*nodes;
	size_t			 n_nodes, cap_nodes;
	struct gp_function	*fns;
	size_t			 n_fns;
	struct gp_varmap	*map;	/* name -> var index */
	uint64_t		 limit_bytes;	/* largest tensor allowed */
	bool			 allow_extern;	/* extern ops may load code */
	/* provenance (graph/prov.h): the source nodes, and the sorted ids of
	 * those computed at compile time */
	struct gp_src		*srcs;
	size_t			 n_srcs, cap_srcs;
	int			*folded;
	size_t			 n_folded, cap_folded;
	/* while a front-end builds it: the literal inputs gp_graph_prepare
	 * types (graph/build.c); none after */
	struct gp_graph_lit	*lits;
	size_t			 n_lits, cap_lits;
};

struct gp_graph	*gp_graph_new(const char *name);
void		 gp_graph_free(struct gp_graph *g);
struct gp_graph	*gp_graph_clone(const struct gp_graph *g);
/* The default memory limit (the largest tensor a front-end accepts): half
 * of the physical memory, 1 GiB when sysconf cannot tell. */
uint64_t	 gp_graph_default_limit(void);

/* Add a variable; its name must be new (NULL: a fresh "_tN" name).
 * Returns its index. */
int	gp_graph_add_var(struct gp_graph *g, const char *name,
	    enum gp_var_kind kind, const struct gp_type *type);
int	gp_graph_find_var(const struct gp_graph *g, const char *name);
/* Make room for `more` variables at once (a loader that knows how many). */
void	gp_graph_reserve_vars(struct gp_graph *g, size_t more);
/* Give variable v a new name, made unique by a suffix if taken. */
void	gp_graph_rename_var(struct gp_graph *g, int v, const char *name);
/* Variables a and b exchange names. */
void	gp_graph_swap_names(struct gp_graph *g, int a, int b);
/* Add a node applying op to inputs, with fresh temporaries as outputs,
 * then prepare it (params parsed, output types inferred).  params is
 * consumed (a reference is stolen; NULL means {}).  Returns the node index,
 * or -1 with err set (the node is then left dead). */
int	gp_graph_add_node(struct gp_graph *g, const struct gp_op *op,
	    json_t *params, int n_in, const int *in, int n_out,
	    struct gp_err *err);
/* Prepare node i: the op checks arity and params and sets its outputs'
 * types, kernel, impl, view and priv. */
int	gp_graph_prepare_node(struct gp_graph *g, int i, struct gp_err *err);

/* Every use of variable `from` (node inputs, function outputs, update
 * sources) now reads `to`. */
void	gp_graph_replace_var(struct gp_graph *g, int from, int to);
/* Mark dead every node that no function output or update needs; then
 * renumber nodes and variables densely.  Keeps graph variables. */
void	gp_graph_compact(struct gp_graph *g);

/* Nodes a function runs, in a valid execution order (topological, stable
 * in file order).  Returns the count; *order is malloc'ed. */
int	gp_graph_schedule(const struct gp_graph *g, int fn, int **order);
/* A cycle check over all live nodes; on a cycle err names a node on it. */
int	gp_graph_check_acyclic(const struct gp_graph *g, struct gp_err *err);

/* Names, for reports: the op's name with params and inplace marks
 * ("Elemwise{mul}[(0, 0)]"), and the apply ("Elemwise{add}(x, y)"). */
void	gp_node_format_op(const struct gp_graph *g, const struct gp_node *n,
	    struct gp_buf *b);
void	gp_node_format_apply(const struct gp_graph *g, const struct gp_node *n,
	    struct gp_buf *b);
double	gp_node_flops(const struct gp_graph *g, const struct gp_node *n);

static inline const struct gp_type *
gp_graph_in_type(const struct gp_graph *g, const struct gp_node *n, int k)
{
	return (&g->vars[n->in[k]].type);
}

static inline struct gp_type *
gp_graph_out_type(struct gp_graph *g, const struct gp_node *n, int k)
{
	return (&g->vars[n->out[k]].type);
}

bool	gp_type_equal(const struct gp_type *a, const struct gp_type *b);
void	gp_type_format(struct gp_buf *b, const struct gp_type *t);
size_t	gp_type_nbytes(const struct gp_type *t);

#endif
