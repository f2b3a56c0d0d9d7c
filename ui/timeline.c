/*
 * timeline.c: the Timeline view's arithmetic (see timeline.h).
 */
#include "config.h"

#include "timeline.h"

#include <stdbool.h>
#include <stdlib.h>

#include "base/util.h"

int
ui_tl_col(uint64_t t, uint64_t span, int w)
{
	unsigned __int128 q;

	if (span == 0 || w <= 0)
		return (0);
	q = (unsigned __int128)t * (unsigned)w / span;
	return (q >= (unsigned)w ? w - 1 : (int)q);
}

struct ui_tl_bar
ui_tl_bar(uint64_t start, uint64_t ns, uint64_t span, int w)
{
	struct ui_tl_bar b = {0, 1};
	unsigned __int128 end;
	int x1;

	if (w <= 0)
		return (b);
	b.x = ui_tl_col(start, span, w);
	if (span == 0)
		return (b);
	/* ceil((start + ns) x w / span) */
	end = ((unsigned __int128)(start + ns) * (unsigned)w + span - 1) /
	    span;
	x1 = end > (unsigned)w ? w : (int)end;
	b.len = x1 - b.x < 1 ? 1 : x1 - b.x;
	return (b);
}

int
ui_tl_offenders(const uint64_t *ns, int n, int *top, int k)
{
	int m = 0;

	if (k > n)
		k = n;
	for (int i = 0; i < n; i++) {
		int j;

		/* insert i among the m kept, longest first, ties by index */
		if (m == k && (k == 0 || ns[i] <= ns[top[m - 1]]))
			continue;
		j = m < k ? m++ : m - 1;
		while (j > 0 && ns[top[j - 1]] < ns[i]) {
			top[j] = top[j - 1];
			j--;
		}
		top[j] = i;
	}
	return (m);
}

/* Min-heaps of ints ordered by key[v] then v. */
struct heap {
	int		*v;
	int		 n;
	const int	*key;	/* NULL: by v alone */
};

static bool
heap_less(const struct heap *h, int a, int b)
{
	if (h->key != NULL && h->key[a] != h->key[b])
		return (h->key[a] < h->key[b]);
	return (a < b);
}

static void
heap_push(struct heap *h, int v)
{
	int i = h->n++;

	while (i > 0 && heap_less(h, v, h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = v;
}

static int
heap_pop(struct heap *h)
{
	int top = h->v[0], last = h->v[--h->n], i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && heap_less(h, h->v[c + 1], h->v[c]))
			c++;
		if (!heap_less(h, h->v[c], last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n > 0)
		h->v[i] = last;
	return (top);
}

static const int *sort_x;

static int
by_x(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;

	if (sort_x[i] != sort_x[j])
		return (sort_x[i] < sort_x[j] ? -1 : 1);
	return (i < j ? -1 : i > j);
}

int
ui_tl_pack(const int *x, const int *ext, int n, int gap, int *lane)
{
	int *ord, *end, n_lanes = 0;
	struct heap busy, free_l;

	if (n <= 0)
		return (0);
	ord = gp_xmalloc(sizeof(int) * (size_t)n);
	end = gp_xmalloc(sizeof(int) * (size_t)n);
	busy = (struct heap){gp_xmalloc(sizeof(int) * (size_t)n), 0, end};
	free_l = (struct heap){gp_xmalloc(sizeof(int) * (size_t)n), 0, NULL};
	for (int i = 0; i < n; i++)
		ord[i] = i;
	sort_x = x;
	qsort(ord, (size_t)n, sizeof(int), by_x);
	/* first fit: the lowest lane free at x (a lane is free from its
	 * last item's end + gap on, and x only grows) */
	for (int k = 0; k < n; k++) {
		int i = ord[k], l;

		while (busy.n > 0 && end[busy.v[0]] + gap <= x[i])
			heap_push(&free_l, heap_pop(&busy));
		l = free_l.n > 0 ? heap_pop(&free_l) : n_lanes++;
		end[l] = x[i] + (ext[i] > 0 ? ext[i] : 1);
		lane[i] = l;
		heap_push(&busy, l);
	}
	free(ord);
	free(end);
	free(busy.v);
	free(free_l.v);
	return (n_lanes);
}
