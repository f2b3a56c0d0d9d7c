/*
 * radix.c: a stable LSD radix sort of row indices by 64-bit keys (see
 * radix.h): by the keys' high halves in three scatters of 11 bits, then
 * each run of equal high halves by the low ones (an insertion sort for
 * short runs, a merge sort for middling ones).  The profile's rollups and the interface's tables order
 * their rows with it.
 */
#include "config.h"

#include "base/radix.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define DIGIT_BITS 11
#define BUCKETS (1u << DIGIT_BITS)
#define SMALL 32
/* Runs shorter than this merge-sort: a radix pass clears and sums 2048
 * counters, which costs more than sorting a few hundred halves. */
#define MERGE_MAX 2048

/* A 32-bit key and its row. */
struct half {
	uint32_t	k;
	uint32_t	i;
};

/* Sort a[0..n) by k ascending, equal keys kept in place order, in three
 * scatters of 11 bits at most (the digits every key shares are skipped).
 * tmp holds n; the result ends in a. */
static void
radix_halves(struct half *a, struct half *tmp, size_t n)
{
	static const int shifts[3] = {0, 11, 22};
	uint32_t (*count)[BUCKETS];
	struct half *src = a, *dst = tmp, *t;

	if (n < 2)
		return;
	count = gp_xcalloc(3, sizeof(*count));
	for (size_t j = 0; j < n; j++) {
		uint32_t k = a[j].k;

		count[0][k & (BUCKETS - 1)]++;
		count[1][(k >> 11) & (BUCKETS - 1)]++;
		count[2][k >> 22]++;
	}
	for (int d = 0; d < 3; d++) {
		int shift = shifts[d];
		uint32_t *c = count[d], sum = 0;

		if (c[(a[0].k >> shift) & (BUCKETS - 1)] == n)
			continue;	/* every key has this digit */
		for (uint32_t b = 0; b < BUCKETS; b++) {
			uint32_t x = c[b];

			c[b] = sum;
			sum += x;
		}
		for (size_t j = 0; j < n; j++)
			dst[c[(src[j].k >> shift) & (BUCKETS - 1)]++] = src[j];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, sizeof(*a) * n);
	free(count);
}

/* Sort a[0..n) by k ascending, stable: a bottom-up merge sort through
 * tmp (n halves); the result ends in a. */
static void
merge_halves(struct half *a, struct half *tmp, size_t n)
{
	struct half *src = a, *dst = tmp, *t;

	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = lo + w < n ? lo + w : n;
			size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			size_t i = lo, j = mid, o = lo;

			while (i < mid && j < hi)
				dst[o++] = src[j].k < src[i].k ? src[j++] :
				    src[i++];
			while (i < mid)
				dst[o++] = src[i++];
			while (j < hi)
				dst[o++] = src[j++];
		}
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, sizeof(*a) * n);
}

/* idx[0..n) sorted by the 64-bit keys k[], ties in idx order: by the high
 * halves first (doubles rarely share them), then each run of equal high
 * halves by the low ones. */
static void
sort_wide(const uint64_t *k, uint32_t *idx, size_t n, struct half *a,
    struct half *tmp)
{
	for (size_t j = 0; j < n; j++) {
		a[j].k = (uint32_t)(k[idx[j]] >> 32);
		a[j].i = idx[j];
	}
	radix_halves(a, tmp, n);
	for (size_t j = 0; j < n;) {
		size_t e = j + 1;

		while (e < n && a[e].k == a[j].k)
			e++;
		if (e - j > SMALL) {
			for (size_t m = j; m < e; m++)
				a[m].k = (uint32_t)k[a[m].i];
			if (e - j < MERGE_MAX)
				merge_halves(a + j, tmp, e - j);
			else
				radix_halves(a + j, tmp, e - j);
		} else {
			/* insertion sort by the low halves, stable */
			for (size_t m = j + 1; m < e; m++) {
				struct half x = a[m];
				uint32_t lo = (uint32_t)k[x.i];
				size_t q = m;

				while (q > j && (uint32_t)k[a[q - 1].i] > lo) {
					a[q] = a[q - 1];
					q--;
				}
				a[q] = x;
			}
		}
		for (size_t m = j; m < e; m++)
			idx[m] = a[m].i;
		j = e;
	}
}

void
gp_radix_sort(const uint64_t *k, uint32_t *idx, size_t n, uint64_t *scratch)
{
	_Static_assert(sizeof(struct half) == sizeof(uint64_t),
	    "a scratch word holds a (key half, row) pair");
	struct half *a = scratch != NULL ? (struct half *)(void *)scratch :
	    gp_xmalloc(sizeof(*a) * (2 * n + 1));

	sort_wide(k, idx, n, a, a + n);
	if (scratch == NULL)
		free(a);
}
