/*
 * timeline.c: the Timeline view's arithmetic (see timeline.h).
 */
#include "config.h"

#include "timeline.h"

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
