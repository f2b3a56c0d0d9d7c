/*
 * rewrite/rw.h: what the rewriter families share: what a rewriter is (its
 * phase, its table entry, the context it runs in), a walk over the live
 * nodes in topological order with deferred replacement, dead-node removal,
 * the consumers of every variable, constant helpers and node construction
 * by op name.  The families include this (and rewriters.h), never
 * rewrite.h: the driver that runs them is above them.
 *
 * A walk never edits consumers in place while it runs.  gp_rw_replace()
 * records "from now on, variable from reads as to"; each node's inputs are
 * resolved through those records when the walk reaches it (every consumer
 * comes after its producer in the order), and gp_rw_end() applies them to
 * every remaining node, function output and update, then marks dead every
 * node that no function needs.  One pass is O(nodes + uses): there is no
 * search over all consumers per replacement.
 *
 * gp_rw_end also keeps provenance true (graph/prov.h) for every rewriter,
 * from the replacements alone: the applies the walk killed give their
 * source nodes to what now computes their values (the rule is in
 * doc/architecture.md, "Provenance").  A rewriter that replaces values
 * through gp_rw_replace (or gp_rw_replace_out) has nothing else to do.
 */
#ifndef GPTOP_SRC_REWRITE_RW_H
#define GPTOP_SRC_REWRITE_RW_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/flags.h"
#include "base/util.h"
#include "graph/graph.h"

enum gp_phase {
	GP_PHASE_MERGE,
	GP_PHASE_CANONICALIZE,
	GP_PHASE_STABILIZE,
	GP_PHASE_SPECIALIZE,
	GP_PHASE_FUSION,
	GP_PHASE_INPLACE,
	GP_PHASE__COUNT
};

struct gp_rewrite_ctx {
	struct gp_graph		*g;
	const struct gp_flags	*flags;
	int			 tried;	/* the rewriter counts its attempts */
	/* time spent compiling (JIT), in ns, reported as link time */
	double			 jit_ns;
};

struct gp_rewriter {
	const char	*name;
	const char	*tags;	/* ':'-separated */
	enum gp_phase	 phase;
	const char	*doc;	/* one line */
	/* One pass over the graph: returns the number of changes made, or
	 * -1 with err set.  Must keep every result the same (to tolerance). */
	int		(*run)(struct gp_rewrite_ctx *c, struct gp_err *err);
};

struct gp_rw {
	struct gp_rewrite_ctx	*ctx;
	struct gp_graph		*g;
	int			*order;	/* live nodes, in order */
	int			 n_order;
	int			*repl;	/* var -> replacement, or -1 */
	size_t			 n_repl;
	size_t			 n_nodes0;	/* at the start */
	bool			*live0;	/* node -> live at the start */
	int			 changes;
};

/* Start a walk: the live nodes in topological order. */
void	gp_rw_begin(struct gp_rw *w, struct gp_rewrite_ctx *c);
/* Node order[i] with its inputs resolved, or -1 when it is dead. */
int	gp_rw_visit(struct gp_rw *w, int i);
/* What variable v reads as now. */
int	gp_rw_resolve(struct gp_rw *w, int v);
/* From now on every use of from (node inputs, function outputs, update
 * sources) reads to; counts one change. */
void	gp_rw_replace(struct gp_rw *w, int from, int to);
/* Apply the replacements, drop unneeded nodes, free the walk.  Returns
 * the number of changes. */
int	gp_rw_end(struct gp_rw *w);

/* Replace node x's output 0 by v (v >= 0) when their types agree; did it? */
bool	gp_rw_replace_out(struct gp_rw *w, int x, int v);
/* One walk applying fn to every live node in order; none when no live node
 * applies one of ops (NULL-terminated names).  Returns the changes. */
int	gp_rw_each_node(struct gp_rewrite_ctx *c,
	    bool (*fn)(struct gp_rw *, int), const char *const *ops);

/* Mark dead every live node no function output or update needs; returns
 * how many. */
int	gp_rw_dce(struct gp_graph *g);
/* Live nodes in a topological order (stable in node index where free);
 * *order is malloc'ed, the count returned. */
int	gp_rw_topo(const struct gp_graph *g, int **order);

/* Add a node applying the op called opname (params stolen, NULL: {}) and
 * return its output 0, or -1 (the node is then dead, nothing else is
 * changed).  The caller re-reads node pointers afterwards: the node array
 * may move. */
int	gp_rw_apply(struct gp_graph *g, const char *opname, json_t *params,
	    int n_in, const int *in);
/* The same with 1, 2 or 5 inputs. */
int	gp_rw_apply1(struct gp_graph *g, const char *opname, json_t *params,
	    int a);
int	gp_rw_apply2(struct gp_graph *g, const char *opname, json_t *params,
	    int a, int b);

/* Does any live node apply one of the ops named in the NULL-terminated
 * list?  (A rewriter with nothing to look at skips its walk.) */
bool	gp_rw_any(const struct gp_graph *g, const char *const *ops);

/* The live node producing v, or NULL. */
struct gp_node	*gp_rw_producer(const struct gp_graph *g, int v);
/* Is n an apply of the op called name? */
bool	gp_rw_is(const struct gp_node *n, const char *name);
/* The node producing v when it is an apply of op name, else NULL. */
struct gp_node	*gp_rw_producer_is(const struct gp_graph *g, int v,
		    const char *name);
bool	gp_rw_same_type(const struct gp_graph *g, int a, int b);
/* Type t's shape as a param value: a new JSON list of its sizes. */
json_t	*gp_rw_shape_json(const struct gp_type *t);

/* Is v a constant whose every element (1 to 4096 of them) equals one
 * value?  *x gets it. */
bool	gp_rw_const_value(const struct gp_graph *g, int v, double *x);
bool	gp_rw_const_is(const struct gp_graph *g, int v, double x);
/* A new 0-d constant of dtype dt holding x. */
int	gp_rw_const_new(struct gp_graph *g, enum gp_dtype dt, double x);

/* A growable bitmap/array helper: one flag per variable, for rewriters
 * that need "does v escape" (a function output or update source of any
 * function): malloc'ed, n_vars entries. */
bool	*gp_rw_escapes(const struct gp_graph *g);

/* Consumers of every variable (CSR), recomputed on demand. */
struct gp_rw_uses {
	int	*start;	/* n_vars + 1 */
	int	*node;	/* consumer node per use */
	int	*slot;	/* input position per use */
};
void	gp_rw_uses_build(const struct gp_graph *g, struct gp_rw_uses *u);
void	gp_rw_uses_free(struct gp_rw_uses *u);
static inline int
gp_rw_uses_count(const struct gp_rw_uses *u, int v)
{
	return (u->start[v + 1] - u->start[v]);
}

#endif
