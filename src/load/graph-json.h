/*
 * graph-json.h: the graph loader.  Reads a gptop-graph/1 JSON file (see
 * doc/graph-format.md) into a struct gp_graph: variables with their initial
 * values, nodes in file order, functions; every node prepared (in a
 * topological order, so each op sees its inputs' types) and the graph
 * checked to be acyclic.
 *
 * Every error is one line, "FILE:LINE:COL: what was wrong, and what was
 * expected": jansson places syntax errors, jsonpos.c places the others.
 *
 * For speed, a big graph's nodes are parsed on two threads and jansson
 * allocates each document from an arena dropped in one piece: the loader
 * installs jansson allocator hooks (json_set_alloc_funcs) once per
 * process.  Outside a load they pass straight through to malloc() and
 * free(), so other jansson users are unaffected, but nothing else in the
 * program may install its own.
 */
#ifndef GPTOP_SRC_GRAPH_JSON_H
#define GPTOP_SRC_GRAPH_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "base/util.h"

/* The most nodes a graph file may hold. */
#define GP_LOAD_MAX_NODES 10000000
/* The longest variable, node or function name, in bytes. */
#define GP_LOAD_MAX_NAME 256

struct gp_load_opts {
	uint64_t	limit_bytes;	/* largest tensor; 0: the default */
	bool		allow_extern;	/* copied to graph->allow_extern */
};

/* Load the graph file at path (o may be NULL for the defaults; the memory
 * limit's default is gp_graph_default_limit(), graph.h).  Returns
 * the graph, fully prepared, or NULL with err set. */
struct gp_graph	*gp_graph_load(const char *path,
		    const struct gp_load_opts *o, struct gp_err *err);
/* The same from text in memory: path_for_messages names it in errors and
 * gives the default graph name (NULL: "<graph>"), dir resolves relative
 * .npy paths (NULL: "."). */
struct gp_graph	*gp_graph_load_buf(const char *text, size_t len,
		    const char *path_for_messages, const char *dir,
		    const struct gp_load_opts *o, struct gp_err *err);

/* Tests only: a NULL-terminated table of ops the loader also knows, looked
 * up when the registry has no op of that name (NULL: none).  Set it before
 * loading; not thread-safe. */
void		 gp_graph_load_set_test_ops(const struct gp_op *const *ops);

#endif
