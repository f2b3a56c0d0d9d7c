/*
 * hash.c: a graph's structural hash (see hash.h): what a capture records
 * of the graph it ran, and what tells two captures of one graph.
 */
#include "config.h"

#include "graph/hash.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "graph/op.h"

static uint64_t
hash_u64(uint64_t h, uint64_t v)
{
	return (gp_hash_bytes(h, &v, sizeof(v)));
}

static uint64_t
hash_type(uint64_t h, const struct gp_type *t)
{
	h = hash_u64(h, (uint64_t)t->dtype);
	h = hash_u64(h, (uint64_t)t->ndim);
	for (int d = 0; d < t->ndim; d++)
		h = hash_u64(h, (uint64_t)t->shape[d]);
	return (h);
}

uint64_t
gp_graph_hash(const struct gp_graph *g)
{
	uint64_t h = GP_HASH_INIT;
	int64_t *canon = gp_xmalloc(sizeof(*canon) * (g->n_vars + 1));
	int64_t next = 0;

	/* Canonical variable numbers: graph variables in order, then each
	 * live node's outputs in node order. */
	for (size_t v = 0; v < g->n_vars; v++) {
		canon[v] = -1;
		if (g->vars[v].kind == GP_VAR_TEMP)
			continue;
		canon[v] = next++;
		h = hash_u64(h, (uint64_t)g->vars[v].kind);
		h = hash_type(h, &g->vars[v].type);
	}
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gp_node *n = &g->nodes[i];

		if (n->dead)
			continue;
		for (int k = 0; k < n->n_out; k++)
			if (n->out[k] >= 0 && (size_t)n->out[k] < g->n_vars &&
			    canon[n->out[k]] < 0)
				canon[n->out[k]] = next++;
	}
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gp_node *n = &g->nodes[i];
		char *params;

		if (n->dead)
			continue;
		h = gp_hash_str(h, n->op != NULL ? n->op->name : "?");
		params = n->params != NULL ? json_dumps(n->params,
		    JSON_SORT_KEYS | JSON_COMPACT) : NULL;
		h = gp_hash_str(h, params != NULL ? params : "{}");
		free(params);
		h = hash_u64(h, (uint64_t)n->n_in);
		for (int k = 0; k < n->n_in; k++)
			h = hash_u64(h, (uint64_t)canon[n->in[k]]);
		h = hash_u64(h, (uint64_t)n->n_out);
		for (int k = 0; k < n->n_out; k++) {
			h = hash_u64(h, (uint64_t)canon[n->out[k]]);
			h = hash_type(h, &g->vars[n->out[k]].type);
		}
	}
	h = hash_u64(h, (uint64_t)g->n_fns);
	for (size_t f = 0; f < g->n_fns; f++) {
		const struct gp_function *fn = &g->fns[f];

		h = hash_u64(h, (uint64_t)fn->n_out);
		for (int k = 0; k < fn->n_out; k++)
			h = hash_u64(h, (uint64_t)canon[fn->out[k]]);
		h = hash_u64(h, (uint64_t)fn->n_upd);
		for (int k = 0; k < fn->n_upd; k++) {
			h = hash_u64(h, (uint64_t)canon[fn->upd[k].dst]);
			h = hash_u64(h, (uint64_t)canon[fn->upd[k].src]);
		}
	}
	free(canon);
	return (h);
}
