/*
 * sort.c: the tables' sorts (see sort.h): numbers by their order-keeping
 * 64-bit images, strings ranked by 8-byte blocks, both through the
 * runtime's radix sort (src/base/radix.h).
 */
#include "config.h"

#include "sort.h"

#include <stdlib.h>
#include <string.h>

#include "base/radix.h"
#include "base/util.h"

#define SMALL 32	/* runs this short: a direct sort */

/* An unsigned image of d that sorts like d (NaN last). */
static uint64_t
image(double d)
{
	uint64_t u;

	if (d != d)
		return (UINT64_MAX);
	if (d == 0)
		d = 0;		/* -0 sorts with +0 */
	memcpy(&u, &d, sizeof(u));
	return (u >> 63 ? ~u : u | (1ull << 63));
}

void
ui_sort_numbers(const double *keys, uint32_t *idx, size_t n, bool desc)
{
	uint64_t *k = gp_xmalloc(sizeof(*k) * (n + 1));

	for (size_t i = 0; i < n; i++) {
		k[i] = image(keys[i]);
		if (desc && k[i] != UINT64_MAX)
			k[i] = ~k[i] - 1;	/* NaN stays last */
		idx[i] = (uint32_t)i;
	}
	gp_radix_sort(k, idx, n, NULL);
	free(k);
}

/* The 8 bytes of s from byte d, big-endian (so they sort like the
 * bytes), zeros after the end; s is at least d long. */
static uint64_t
block(const unsigned char *s, size_t d)
{
	uint64_t c = 0;
	int k = 0;

	s += d;
	for (; k < 8 && s[k] != 0; k++)
		c = c << 8 | s[k];
	return (k == 0 ? 0 : c << (8 * (8 - k)));
}

/* A run of positions whose strings are equal so far. */
struct run {
	size_t	at, n;
};

static int
cmp_tail(const unsigned char *x, const unsigned char *y, size_t d)
{
	return (strcmp((const char *)x + d, (const char *)y + d));
}

/* Sort a few strings equal in their first d bytes (insertion sort) and
 * mark where they differ. */
static void
sort_small(const unsigned char *const *s, uint32_t *idx, uint8_t *diff,
    size_t n, size_t d)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t x = idx[i];
		size_t q = i;

		while (q > 0 && cmp_tail(s[idx[q - 1]], s[x], d) > 0) {
			idx[q] = idx[q - 1];
			q--;
		}
		idx[q] = x;
	}
	for (size_t j = 1; j < n; j++)
		diff[j] = cmp_tail(s[idx[j - 1]], s[idx[j]], d) != 0;
}

#define AHEAD 16	/* strings fetched ahead of the one read */

/* The length of the prefix every string shares (names often start alike:
 * "Elemwise{"), where the blocks can start.  The first read of strings
 * that may lie anywhere: fetch ahead, so the misses overlap. */
static size_t
common_prefix(const unsigned char *const *s, size_t n)
{
	size_t d = n > 0 ? strlen((const char *)s[0]) : 0;

	for (size_t i = 1; i < n && d > 0; i++) {
		size_t j = 0;

		if (i + AHEAD < n)
			__builtin_prefetch(s[i + AHEAD]);
		while (j < d && s[i][j] == s[0][j])
			j++;
		d = j;
	}
	return (d);
}

/*
 * Level by level: every run of strings equal in their first d bytes is
 * sorted by the next 8 (a run of equal blocks that do not end the strings
 * is a run of the next level).  Each level reads the blocks in row order,
 * fetching ahead, so the strings' cache misses overlap, rather than in
 * the order they are sorted.  diff[p] marks the sorted strings p - 1 and p
 * differ; the ranks count the marks.
 */
void
ui_sort_rank_strings(const char *const *keys, size_t n, double *rank)
{
	const unsigned char **s = gp_xmalloc(sizeof(*s) * (n + 1));
	uint32_t *idx = gp_xmalloc(sizeof(*idx) * (n + 1));
	uint64_t *k = gp_xmalloc(sizeof(*k) * (n + 1));
	uint64_t *a = gp_xmalloc(sizeof(*a) * (2 * n + 1));
	uint8_t *diff = gp_xcalloc(n + 1, 1);
	uint8_t *active = gp_xcalloc(n + 1, 1);
	struct run *runs = NULL, *next = NULL;
	size_t nruns = 0, cap = 0, nnext = 0, ncap = 0, na, d;
	double r = 0;

	uint32_t *act = gp_xmalloc(sizeof(*act) * (n + 1));

	for (size_t i = 0; i < n; i++) {
		s[i] = (const unsigned char *)(keys[i] != NULL ? keys[i] : "");
		idx[i] = (uint32_t)i;
	}
	d = common_prefix(s, n);
	if (n > 0) {
		gp_grow(&runs, &cap, 1, sizeof(*runs));
		runs[nruns++] = (struct run){.at = 0, .n = n};
	}
	while (nruns > 0) {
		nnext = 0;
		for (size_t q = 0; q < nruns; q++)
			if (runs[q].n > SMALL)
				for (size_t m = 0; m < runs[q].n; m++)
					active[idx[runs[q].at + m]] = 1;
		/* the rows to read, in row order, fetched ahead */
		na = 0;
		for (size_t i = 0; i < n; i++)
			if (active[i]) {
				act[na++] = (uint32_t)i;
				active[i] = 0;
			}
		for (size_t j = 0; j < na; j++) {
			if (j + AHEAD < na)
				__builtin_prefetch(s[act[j + AHEAD]] + d);
			k[act[j]] = block(s[act[j]], d);
		}
		for (size_t q = 0; q < nruns; q++) {
			uint32_t *ix = idx + runs[q].at;
			size_t rn = runs[q].n;

			if (rn <= SMALL) {
				sort_small(s, ix, diff + runs[q].at, rn, d);
				continue;
			}
			gp_radix_sort(k, ix, rn, a);
			for (size_t j = 0; j < rn;) {
				uint64_t kj = k[ix[j]];
				size_t e = j + 1;

				while (e < rn && k[ix[e]] == kj)
					e++;
				if (j > 0)
					diff[runs[q].at + j] = 1;
				/* equal blocks that end the strings: equal */
				if (e - j > 1 && (kj & 0xff) != 0) {
					gp_grow(&next, &ncap, nnext + 1,
					    sizeof(*next));
					next[nnext++] = (struct run){
					    .at = runs[q].at + j, .n = e - j};
				}
				j = e;
			}
		}
		{
			struct run *t = runs;
			size_t tc = cap;

			runs = next;
			cap = ncap;
			next = t;
			ncap = tc;
			nruns = nnext;
		}
		d += 8;
	}
	for (size_t p = 0; p < n; p++) {
		if (p > 0 && diff[p])
			r++;
		rank[idx[p]] = r;
	}
	free(act);
	free(s);
	free(idx);
	free(k);
	free(a);
	free(diff);
	free(active);
	free(runs);
	free(next);
}
