/*
 * graph/prov.h: provenance.  Every apply carries the set of source nodes
 * whose work it does: the nodes of the graph file (a JSON node, by index
 * and name; an ONNX node, by name).  A graph holds the table of its source
 * nodes (gp_graph.srcs: an id is an index into it) and the sources whose
 * work was done, or made unnecessary, at compile time (gp_graph.folded:
 * constant folding, a value a rewrite found to be a constant or an input).
 * A node's set (gp_node.src, n_src) is sorted and without repeats; its
 * capacity is n_src rounded up to a power of two (graph.c's clone keeps
 * that).
 *
 * Front-ends give each node its source (gp_prov_node_own); a node no
 * front-end gave one gets its own when the rewrites start
 * (gp_prov_init).  The rewrites keep the sets true in one place, the end
 * of a walk (rewrite/rw.c, gp_rw_end): the rule is in doc/architecture.md
 * ("Provenance").
 */
#ifndef GPTOP_SRC_GRAPH_PROV_H
#define GPTOP_SRC_GRAPH_PROV_H

#include <stdbool.h>

#include "base/util.h"
#include "graph/graph.h"

/* The source id named name (NULL: none) at index in the graph file, added
 * when the graph has none of that name and index yet. */
int	gp_prov_source(struct gp_graph *g, const char *name, int index);
/* Node x does the work of source id (added to its set). */
void	gp_prov_node_add(struct gp_node *n, int id);
/* Node n does the work of the n_src sources src too. */
void	gp_prov_node_union(struct gp_node *n, const int *src, int n_src);
/* Node x's own source: the graph file's node index, named by the node's
 * name (NULL: none). */
void	gp_prov_node_own(struct gp_graph *g, int x, int index);
/* The sources src were computed (or made unnecessary) at compile time. */
void	gp_prov_fold(struct gp_graph *g, const int *src, int n_src);
/* Is source id among the folded ones? */
bool	gp_prov_is_folded(const struct gp_graph *g, int id);
/* Every live node without a source gets its own (index: its node index). */
void	gp_prov_init(struct gp_graph *g);
/* A source as text: its name, or "#INDEX" when it has none. */
void	gp_prov_format(const struct gp_graph *g, int id, struct gp_buf *b);
/* Sources of node n as text: "a, b, #4" (at most max, then "+N more";
 * max <= 0: all). */
void	gp_prov_format_node(const struct gp_graph *g, const struct gp_node *n,
	    int max, struct gp_buf *b);

#endif
