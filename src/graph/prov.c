/*
 * graph/prov.c: provenance, the source nodes of every apply (see prov.h).
 */
#include "config.h"

#include "graph/prov.h"

#include <stdlib.h>
#include <string.h>

int
gp_prov_source(struct gp_graph *g, const char *name, int index)
{
	struct gp_src *s;

	/* a front-end adds the pieces of one node together: the last
	 * source is the one to share */
	if (g->n_srcs > 0) {
		s = &g->srcs[g->n_srcs - 1];
		if (s->index == index && ((s->name == NULL && name == NULL) ||
		    (s->name != NULL && name != NULL &&
		    strcmp(s->name, name) == 0)))
			return ((int)g->n_srcs - 1);
	}
	gp_grow(&g->srcs, &g->cap_srcs, g->n_srcs + 1, sizeof(*g->srcs));
	s = &g->srcs[g->n_srcs];
	s->name = name != NULL ? gp_xstrdup(name) : NULL;
	s->index = index;
	return ((int)g->n_srcs++);
}

/* Insert id into the sorted set (*set, *n); its capacity is *n rounded up
 * to a power of two (0, 1, 2, 4, ...). */
static void
set_add(int **set, int *n, int id)
{
	int lo = 0, hi = *n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if ((*set)[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < *n && (*set)[lo] == id)
		return;
	if ((*n & (*n - 1)) == 0)
		*set = gp_xrealloc(*set, sizeof(int) * (size_t)(*n ? 2 * *n :
		    1));
	memmove(*set + lo + 1, *set + lo, sizeof(int) * (size_t)(*n - lo));
	(*set)[lo] = id;
	(*n)++;
}

void
gp_prov_node_add(struct gp_node *n, int id)
{
	set_add(&n->src, &n->n_src, id);
}

void
gp_prov_node_union(struct gp_node *n, const int *src, int n_src)
{
	for (int i = 0; i < n_src; i++)
		set_add(&n->src, &n->n_src, src[i]);
}

void
gp_prov_node_own(struct gp_graph *g, int x, int index)
{
	int id = gp_prov_source(g, g->nodes[x].name, index);

	gp_prov_node_add(&g->nodes[x], id);
}

void
gp_prov_fold(struct gp_graph *g, const int *src, int n_src)
{
	for (int i = 0; i < n_src; i++) {
		size_t lo = 0, hi = g->n_folded;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (g->folded[mid] < src[i])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < g->n_folded && g->folded[lo] == src[i])
			continue;
		gp_grow(&g->folded, &g->cap_folded, g->n_folded + 1,
		    sizeof(int));
		memmove(g->folded + lo + 1, g->folded + lo,
		    sizeof(int) * (g->n_folded - lo));
		g->folded[lo] = src[i];
		g->n_folded++;
	}
}

bool
gp_prov_is_folded(const struct gp_graph *g, int id)
{
	size_t lo = 0, hi = g->n_folded;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->folded[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo < g->n_folded && g->folded[lo] == id);
}

void
gp_prov_init(struct gp_graph *g)
{
	for (size_t i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i].dead && g->nodes[i].n_src == 0)
			gp_prov_node_own(g, (int)i, (int)i);
}

void
gp_prov_format(const struct gp_graph *g, int id, struct gp_buf *b)
{
	const struct gp_src *s;

	if (id < 0 || (size_t)id >= g->n_srcs) {
		gp_buf_printf(b, "?");
		return;
	}
	s = &g->srcs[id];
	if (s->name != NULL)
		gp_buf_printf(b, "%s", s->name);
	else
		gp_buf_printf(b, "#%d", s->index);
}

void
gp_prov_format_node(const struct gp_graph *g, const struct gp_node *n,
    int max, struct gp_buf *b)
{
	int shown = max > 0 && n->n_src > max ? max : n->n_src;

	for (int i = 0; i < shown; i++) {
		if (i > 0)
			gp_buf_printf(b, ", ");
		gp_prov_format(g, n->src[i], b);
	}
	if (shown < n->n_src)
		gp_buf_printf(b, " +%d more", n->n_src - shown);
}
