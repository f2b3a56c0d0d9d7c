/*
 * hash.h: a hash of a graph's canonical form: variables' kinds and types,
 * every live node's op, params (sorted keys, compact) and edges, every
 * function's outputs and updates.  Names and data are left out: renaming a
 * variable or reseeding an input keeps the hash; any change of structure
 * does not.  Sessions store the pristine graph's hash in p->graph_hash;
 * captures record it, and merge only captures of one hash.
 */
#ifndef GPTOP_SRC_GRAPH_HASH_H
#define GPTOP_SRC_GRAPH_HASH_H

#include <stdint.h>

#include "graph/graph.h"

uint64_t gp_graph_hash(const struct gp_graph *g);

#endif
