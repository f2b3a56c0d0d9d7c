/*
 * graph/build.h: the builder API through which a front-end (the JSON
 * loader, the ONNX reader) makes a graph: variables with their values,
 * nodes (which may read outputs of later nodes), functions, then one
 * gp_graph_prepare() that does all the preparation a graph needs before it
 * runs: every node prepared in a topological order (arity, params keys,
 * the op's own param checks, dtype and shape inference, the memory limit on
 * every inferred shape), literal inputs typed, a cycle reported, every
 * update's type checked against its shared variable.  A front-end touches
 * no field of the graph directly and copies none of this logic.
 *
 * Preparation's errors name the place in the source through the
 * front-end's locator: a callback that writes the "where" of a message
 * (a node, one of its inputs, or a function's update) into a buffer; the
 * message is then "WHERE: WHAT".  The JSON loader writes
 * "g.json:12:5: node 'h' (op 'dot')", ONNX "m.onnx: node fc1 (#3, Gemm)".
 *
 * Usage (errors checked at each step; graph-json.c is the full example):
 *
 *	struct gp_graph *g = gp_graph_new("mlp");
 *	struct gp_type t = {.dtype = GP_FLOAT32, .ndim = 2, .shape = {128, 784}};
 *	int x, w, h, out_h[1], f;
 *
 *	gp_graph_set_source(g, &(struct gp_graph_source){.path = "m.onnx",
 *	    .dir = ".", .limit_bytes = 0});
 *	x = gp_graph_add_var(g, "x", GP_VAR_INPUT, &t);
 *	t.shape[0] = 784, t.shape[1] = 512;
 *	w = gp_graph_add_var(g, "w", GP_VAR_SHARED, &t);
 *	fill(gp_graph_alloc_value(g, w, false));	(or gp_graph_set_value)
 *	h = gp_graph_declare_node(g, &(struct gp_node_decl){
 *	    .op = gp_op_find("dot"), .name = "fc1", .n_in = 2,
 *	    .in = (int[]){x, w}, .n_out = 1,
 *	    .out_names = (const char *[]){"h"}}, err);
 *	out_h[0] = g->nodes[h].out[0];
 *	f = gp_graph_add_function(g, "main", 1, out_h, 0, NULL, err);
 *	if (gp_graph_prepare(g, &(struct gp_graph_locator){where_fn, ctx},
 *	    err) < 0)
 *		... err->msg: "m.onnx: node fc1 (#0, MatMul): ..."
 *
 * A node's output types are unknown until it is prepared: by
 * gp_graph_prepare, or earlier by gp_graph_prepare_at for a front-end that
 * needs them while it builds (ONNX's shape arithmetic), which may then
 * fold a node whose inputs are all constants (gp_graph_fold_node).  A
 * front-end that prepared every node that way, in a topological order,
 * with no function updates, has a prepared graph without gp_graph_prepare.
 * The rewrites' gp_graph_add_node (graph.h) is for prepared graphs.
 */
#ifndef GPTOP_SRC_GRAPH_BUILD_H
#define GPTOP_SRC_GRAPH_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"

/* Where a graph comes from, and what it may do. */
struct gp_graph_source {
	const char	*path;	/* the file, for messages ("" or NULL: none) */
	const char	*dir;	/* resolves relative data paths (NULL: ".") */
	uint64_t	 limit_bytes;	/* largest tensor; 0: the default */
	bool		 allow_extern;	/* extern ops may load code */
};

void	gp_graph_set_source(struct gp_graph *g,
	    const struct gp_graph_source *src);
void	gp_graph_set_name(struct gp_graph *g, const char *name);

/* Variable v's place in the source file (line, col from 1; 0: unknown). */
void	gp_graph_place_var(struct gp_graph *g, int v, int line, int col);
/* Variable v's value, allocated to its type (zeroed when zero) for the
 * front-end to fill; a value it had is released. */
struct gp_tensor *gp_graph_alloc_value(struct gp_graph *g, int v, bool zero);
/* Variable v's value becomes *t (taken over: *t is left empty); its dtype
 * and shape must be v's, else -1 with err set and *t untouched. */
int	gp_graph_set_value(struct gp_graph *g, int v, struct gp_tensor *t,
	    struct gp_err *err);

/* Make room for `more` nodes at once (a front-end that knows how many). */
void	gp_graph_reserve_nodes(struct gp_graph *g, size_t more);

/* A node to add, not yet prepared. */
struct gp_node_decl {
	const struct gp_op	*op;
	json_t			*params;	/* consumed (a reference is
						 * stolen); NULL: {} */
	const char		*name;	/* the node's own name, or NULL */
	int			 n_in;
	const int		*in;	/* variables; NULL, or an entry < 0:
					 * set later (gp_graph_set_input,
					 * gp_graph_set_literal) */
	int			 n_out;	/* 0..GP_MAX_OUT */
	const char *const	*out_names;	/* new variable names for the
						 * outputs; NULL, or a NULL
						 * entry: a fresh "_tN" */
	int			 line, col;	/* its place; 0: unknown */
	/* what the profile shows instead of the op's own Op and Class
	 * (an ONNX node: label "Gemm{tB}", family "BLAS"; see struct
	 * gp_node), or NULL */
	const char		*label, *family;
};

/* Add a node; its outputs are new temporaries it produces, placed where
 * the node is.  Returns the node index, or -1 with err set (too many
 * outputs, an output name taken; params is released). */
int	gp_graph_declare_node(struct gp_graph *g, const struct gp_node_decl *d,
	    struct gp_err *err);
/* Node's name and label become name and label (copied; NULL: none):
 * for a front-end that learns which of the nodes it made shows as its
 * source's node only after it made them all. */
void	gp_graph_label_node(struct gp_graph *g, int node, const char *name,
	    const char *label);
/* Input k of node reads variable var. */
void	gp_graph_set_input(struct gp_graph *g, int node, int k, int var);
/* Input k of node is the literal lit: a new 0-d constant, placed at the
 * node, whose dtype gp_graph_prepare chooses from the node's other inputs
 * (numpy's rule for Python scalars: a bool is bool; an integer takes the
 * other inputs' common dtype unless that is bool, else int64; a real takes
 * it if it is a float, else float64), renamed lit->name when typed.  The
 * strings are copied.  Returns the variable. */
int	gp_graph_set_literal(struct gp_graph *g, int node, int k,
	    const struct gp_literal *lit);
/* Store lit as one element of dtype dt at p, checked: a value dt cannot
 * hold is -1 with what was expected in why ("a value in -128..127 for
 * int8"), p untouched. */
int	gp_literal_store(const struct gp_literal *lit, enum gp_dtype dt, void *p,
	    char *why, size_t cap);

/* May a function's update set variable dst to src (src < 0: may dst be
 * updated at all)?  -1 with err set when not: "cannot update 'x', an
 * input variable: expected a shared variable (only those keep state)",
 * "update of 'w' to itself: expected a new value computed by a node".
 * Types are checked by gp_graph_prepare. */
int	gp_graph_check_update(const struct gp_graph *g, int dst, int src,
	    struct gp_err *err);
/* Add a function computing outputs out and the updates upd (each checked
 * by gp_graph_check_update; the name must be new).  Returns its index, or
 * -1 with err set. */
int	gp_graph_add_function(struct gp_graph *g, const char *name, int n_out,
	    const int *out, int n_upd, const struct gp_update *upd,
	    struct gp_err *err);

/* What a preparation message is about. */
enum gp_graph_site_kind {
	GP_SITE_NODE,		/* node `node` */
	GP_SITE_INPUT,		/* input k of node `node` */
	GP_SITE_UPDATE		/* update k of function fn */
};

struct gp_graph_site {
	enum gp_graph_site_kind	kind;
	int			node, fn, k;
};

/* The front-end's locator: where() writes the place and subject of a
 * message about site into b, without a trailing ": ". */
struct gp_graph_locator {
	void	(*where)(void *ctx, const struct gp_graph *g,
		    const struct gp_graph_site *site, struct gp_buf *b);
	void	*ctx;
};

/* The default subject of a site, also what a locator may build on:
 * "node 'h' (op 'dot')", "node 3 (op 'add')", "function 'f'". */
void	gp_graph_site_label(const struct gp_graph *g,
	    const struct gp_graph_site *site, struct gp_buf *b);

/*
 * Prepare the whole graph: each node, in a topological order (file order
 * where the dependencies allow), gets its literal inputs typed and is
 * prepared (gp_graph_prepare_node); then each update's source must have
 * its shared variable's dtype and shape.  The first problem stops it:
 * -1 with err "WHERE: WHAT" (loc NULL: the default labels).  Messages:
 *   WHERE(node): the op's message ("op 'add' takes 2 inputs, got 3")
 *   WHERE(node): the graph has a cycle ('a' -> 'b' -> 'a', each computed
 *     from the one before): expected no node to depend on its own output
 *   WHERE(input): literal 300 does not fit the node's int8 inputs: ...
 *   WHERE(update): update of 'w' (float64[3]) from 'w2' (float64[4]):
 *     expected the same dtype and shape
 */
int	gp_graph_prepare(struct gp_graph *g, const struct gp_graph_locator *loc,
	    struct gp_err *err);
/* Prepare node now, its inputs' producers prepared already: for a
 * front-end that meets nodes in a topological order and needs their output
 * types (or folds their values) while it builds.  Its literals are typed;
 * errors as gp_graph_prepare's, through loc.  gp_graph_prepare prepares it
 * again with the rest (preparing is idempotent). */
int	gp_graph_prepare_at(struct gp_graph *g, int node,
	    const struct gp_graph_locator *loc, struct gp_err *err);

/* Compute prepared node now if every input has a value and is a constant
 * (or known(g, v, ctx) says variable v may be read as one; known NULL:
 * constants only), and its op is deterministic and loads no code: its
 * outputs become constants holding the results, the node is dead (gone
 * after gp_graph_compact).  For a front-end that folds while it builds
 * (ONNX's shape arithmetic).  Returns whether it folded. */
bool	gp_graph_fold_node(struct gp_graph *g, int node,
	    bool (*known)(const struct gp_graph *g, int v, void *ctx),
	    void *ctx);

#endif
