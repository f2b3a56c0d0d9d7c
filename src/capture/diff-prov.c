/*
 * diff-prov.c: the diff's pairing by provenance (diff.h, struct
 * gp_diff_group): in a pair of functions, the applies no other rule
 * paired are gathered by the source nodes of the graph file whose work
 * they do.  Two applies belong together when they share a source node,
 * on either side, transitively (a union-find over the source nodes): the
 * smallest sets of applies closed under that relation, one per connected
 * set of source nodes.  A set with applies on both sides is a group; a
 * set with applies on one side only stays added or removed: nothing on
 * the other side covers any of their source nodes.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/diff-impl.h"

static int
find(int *up, int x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return (x);
}

/* The biggest source index an apply left unpaired carries, or -1. */
static int
max_source(const struct gp_prof_fn *f, const int *partner)
{
	int m = -1;

	for (int i = 0; i < f->n_apply; i++)
		if (partner[i] < 0)
			for (int k = 0; k < f->ap[i].n_src; k++)
				if (f->ap[i].src[k] > m)
					m = f->ap[i].src[k];
	return (m);
}

static void
link_sources(const struct gp_prof_fn *f, const int *partner, int *up)
{
	for (int i = 0; i < f->n_apply; i++) {
		const struct gp_prof_apply *a = &f->ap[i];

		if (partner[i] >= 0 || a->n_src == 0)
			continue;
		for (int k = 1; k < a->n_src; k++) {
			int x = find(up, a->src[0]), y = find(up, a->src[k]);

			if (x != y)
				up[x] = y;
		}
	}
}

/* Where each new group's source nodes lie (groups first .. first + ng - 1
 * of comp[]): sc[i] the bytes of names[at[i]] that say it, the one node
 * the group covers ("/fc2/Gemm": one[i]), else the scope all its nodes'
 * names share up to a '/' ("/fire1/", from "/fire1/e1/Conv" ...
 * "/fire1/Concat"); 0 when they share none (the root "/" is none).  One
 * pass over the sources. */
static void
group_scopes(char *const *names, int n_names, int *up, const int *comp,
    int n_up, size_t first, size_t ng, int *at, size_t *sc, bool *one)
{
	int *cnt = gp_xcalloc(ng + 1, sizeof(int));

	for (size_t i = 0; i < ng; i++)
		at[i] = -1;
	for (int s = 0; s < n_up && s < n_names; s++) {
		const char *x = names[s];
		int r = comp[find(up, s)];
		size_t i, c = 0;

		if (r < 0 || (size_t)r < first || x == NULL)
			continue;
		i = (size_t)r - first;
		if (cnt[i]++ == 0) {
			at[i] = s;
			sc[i] = strlen(x);
			continue;
		}
		while (c < sc[i] && x[c] == names[at[i]][c])
			c++;
		sc[i] = c;
	}
	for (size_t i = 0; i < ng; i++) {
		one[i] = cnt[i] == 1;
		if (cnt[i] < 2)
			continue;
		while (sc[i] > 0 && names[at[i]][sc[i] - 1] != '/')
			sc[i]--;
		if (sc[i] <= 1)
			sc[i] = 0;
	}
	free(cnt);
}

/* "NAME (N sources)" for a group of one apply, else "N applies", with
 * where its source nodes lie when the names say (group_scope): "3
 * applies of /fc2/Gemm", "3 applies in /fire1/". */
static char *
side_name(const struct gp_prof_fn *f, const int *ids, int n, int n_src,
    const char *scope, size_t scope_len, bool one)
{
	if (n == 1)
		return (gp_xasprintf("%s (%d source%s)", f->ap[ids[0]].name,
		    n_src, n_src == 1 ? "" : "s"));
	if (scope_len > 0)
		return (gp_xasprintf("%d applies %s %.*s", n, one ? "of" :
		    "in", (int)scope_len, scope));
	return (gp_xasprintf("%d applies", n));
}

int
gp_diff_group_sources(struct gp_diff *d, int f,
    const struct gp_diff_pairs *p, int *ga, int *gb)
{
	const struct gp_prof_fn *fa = p->fa, *fb = p->fb;
	/* the source nodes' names: the gptop side's against ONNX Runtime's
	 * profile (whose applies carry its indices), else A's (the same
	 * graph) */
	const struct gp_profile *np = d->peer != NULL && d->peer->ort == 0 ?
	    d->b : d->a;
	char *const *names = np->src_names;
	int n_names = np->n_src_names, *at;
	size_t *sc;
	bool *one;
	int n_up, *up, *comp, *count, made = 0;
	size_t first = d->n_groups, cap = d->n_groups;

	for (int i = 0; i < fa->n_apply; i++)
		ga[i] = -1;
	for (int j = 0; j < fb->n_apply; j++)
		gb[j] = -1;
	n_up = 1 + (max_source(fa, p->pa) > max_source(fb, p->pb) ?
	    max_source(fa, p->pa) : max_source(fb, p->pb));
	if (n_up <= 0)
		return (0);
	up = gp_xmalloc(sizeof(int) * (size_t)n_up);
	comp = gp_xmalloc(sizeof(int) * (size_t)n_up);
	/* sources: count[2 s] applies of A, count[2 s + 1] of B */
	count = gp_xcalloc(2 * (size_t)n_up, sizeof(int));
	for (int s = 0; s < n_up; s++) {
		up[s] = s;
		comp[s] = -1;
	}
	link_sources(fa, p->pa, up);
	link_sources(fb, p->pb, up);
	for (int i = 0; i < fa->n_apply; i++)
		if (p->pa[i] < 0 && fa->ap[i].n_src > 0)
			count[2 * find(up, fa->ap[i].src[0])]++;
	for (int j = 0; j < fb->n_apply; j++)
		if (p->pb[j] < 0 && fb->ap[j].n_src > 0)
			count[2 * find(up, fb->ap[j].src[0]) + 1]++;
	/* a group for each set of sources with applies on both sides, in
	 * the order of A's first member */
	for (int pass = 0; pass < 2; pass++) {
		const struct gp_prof_fn *fs = pass == 0 ? fa : fb;
		const int *partner = pass == 0 ? p->pa : p->pb;
		int *gs = pass == 0 ? ga : gb;

		for (int i = 0; i < fs->n_apply; i++) {
			struct gp_diff_group *g;
			int r;

			if (partner[i] >= 0 || fs->ap[i].n_src == 0)
				continue;
			r = find(up, fs->ap[i].src[0]);
			if (count[2 * r] == 0 || count[2 * r + 1] == 0)
				continue;
			if (comp[r] < 0) {
				gp_grow(&d->groups, &cap, d->n_groups + 1,
				    sizeof(*d->groups));
				g = &d->groups[d->n_groups];
				memset(g, 0, sizeof(*g));
				g->fn = f;
				g->id_a = gp_xmalloc(sizeof(int) *
				    (size_t)count[2 * r]);
				g->id_b = gp_xmalloc(sizeof(int) *
				    (size_t)count[2 * r + 1]);
				comp[r] = (int)d->n_groups++;
				made++;
			}
			g = &d->groups[comp[r]];
			gs[i] = comp[r];
			if (pass == 0)
				g->id_a[g->n_a++] = i;
			else
				g->id_b[g->n_b++] = i;
		}
	}
	/* the sources each group covers, its members' executions */
	for (int s = 0; s < n_up; s++) {
		int r = find(up, s);

		/* a root is a source some apply carries */
		if (comp[r] >= 0)
			d->groups[comp[r]].n_src++;
	}
	/* where each group's nodes lie, named on B's side (the row's
	 * name; A's in brackets follows it) */
	at = gp_xmalloc(sizeof(int) * ((size_t)made + 1));
	sc = gp_xcalloc((size_t)made + 1, sizeof(size_t));
	one = gp_xcalloc((size_t)made + 1, sizeof(bool));
	if (names != NULL)
		group_scopes(names, n_names, up, comp, n_up, first,
		    (size_t)made, at, sc, one);
	for (size_t k = first; k < d->n_groups; k++) {
		struct gp_diff_group *g = &d->groups[k];
		size_t gi = k - first;

		for (int i = 0; i < g->n_a; i++)
			gp_prof_stat_merge(&g->st_a, &fa->ap[g->id_a[i]].st);
		for (int j = 0; j < g->n_b; j++)
			gp_prof_stat_merge(&g->st_b, &fb->ap[g->id_b[j]].st);
		/* one apply against one: named as a pair */
		if (g->n_a == 1 && g->n_b == 1) {
			const char *x = fa->ap[g->id_a[0]].name;

			g->name = gp_xstrdup(fb->ap[g->id_b[0]].name);
			g->name_a = strcmp(x, g->name) != 0 ? gp_xstrdup(x) :
			    NULL;
			continue;
		}
		g->name = side_name(fb, g->id_b, g->n_b, g->n_src, sc[gi] > 0 ?
		    names[at[gi]] : NULL, sc[gi], one[gi]);
		g->name_a = side_name(fa, g->id_a, g->n_a, g->n_src, NULL, 0,
		    false);
	}
	free(at);
	free(sc);
	free(one);
	free(up);
	free(comp);
	free(count);
	return (made);
}
