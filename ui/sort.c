/*
 * sort.c: radix sort of numbers, multikey quicksort of strings (see
 * sort.h).
 */
#include "config.h"

#include "sort.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#define DIGIT_BITS 11
#define BUCKETS (1u << DIGIT_BITS)
#define SMALL 16

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
	uint64_t *k2 = gp_xmalloc(sizeof(*k2) * (n + 1));
	uint32_t *i2 = gp_xmalloc(sizeof(*i2) * (n + 1));
	uint32_t *count = gp_xmalloc(sizeof(*count) * BUCKETS);

	for (size_t i = 0; i < n; i++) {
		k[i] = image(keys[i]);
		if (desc && k[i] != UINT64_MAX)
			k[i] = ~k[i] - 1;	/* NaN stays last */
		idx[i] = (uint32_t)i;
	}
	for (int shift = 0; shift < 64; shift += DIGIT_BITS) {
		uint32_t sum = 0;
		bool one = false;

		memset(count, 0, sizeof(*count) * BUCKETS);
		for (size_t i = 0; i < n; i++)
			count[(k[i] >> shift) & (BUCKETS - 1)]++;
		for (uint32_t b = 0; b < BUCKETS; b++) {
			uint32_t c = count[b];

			if (c == n)
				one = true;
			count[b] = sum;
			sum += c;
		}
		if (one)	/* every key has this digit: nothing moves */
			continue;
		for (size_t i = 0; i < n; i++) {
			uint32_t p = count[(k[i] >> shift) & (BUCKETS - 1)]++;

			k2[p] = k[i];
			i2[p] = idx[i];
		}
		memcpy(k, k2, sizeof(*k) * n);
		memcpy(idx, i2, sizeof(*idx) * n);
	}
	free(k);
	free(k2);
	free(i2);
	free(count);
}

/* A string being sorted, with the 8 bytes of the block holding the depth
 * being compared (so each pass reads the key, not the string: one cache
 * miss per string every 8 levels instead of every level). */
struct skey {
	uint64_t		 chunk;
	const unsigned char	*s;
	uint32_t		 i;
};

static int
char_at(const struct skey *x, size_t d)
{
	return ((int)(x->chunk >> (8 * (d & 7))) & 0xff);
}

/* Load the block of byte d of every string (each is at least d long). */
static void
load_chunks(struct skey *a, size_t n, size_t d)
{
	size_t base = d & ~(size_t)7;

	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = a[i].s + base;
		uint64_t c = 0;

		for (int k = 0; k < 8 && p[k] != 0; k++)
			c |= (uint64_t)p[k] << (8 * k);
		a[i].chunk = c;
	}
}

static void
swap(struct skey *a, struct skey *b)
{
	struct skey t = *a;

	*a = *b;
	*b = t;
}

static int
cmp_tail(const struct skey *x, const struct skey *y, size_t d)
{
	int c = strcmp((const char *)x->s + d, (const char *)y->s + d);

	if (c != 0)
		return (c);
	return (x->i < y->i ? -1 : x->i > y->i);
}

/* Insertion sort of a[0..n) whose first d bytes are equal. */
static void
insertion(struct skey *a, size_t n, size_t d)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_tail(&a[j - 1], &a[j], d) > 0;
		    j--)
			swap(&a[j - 1], &a[j]);
}

/* Bentley and Sedgewick's multikey quicksort on byte d onwards. */
static void
mkqsort(struct skey *a, size_t n, size_t d)
{
	while (n > SMALL) {
		size_t lt = 0, gt = n - 1, i = 1;
		int v;

		swap(&a[0], &a[n / 2]);
		v = char_at(&a[0], d);
		while (i <= gt) {
			int c = char_at(&a[i], d);

			if (c < v)
				swap(&a[lt++], &a[i++]);
			else if (c > v)
				swap(&a[i], &a[gt--]);
			else
				i++;
		}
		/* a[0..lt) < v, a[lt..gt] == v, a(gt..n) > v */
		mkqsort(a, lt, d);
		if (v != 0) {	/* else: equal strings, in any order */
			if (((d + 1) & 7) == 0)
				load_chunks(a + lt, gt - lt + 1, d + 1);
			mkqsort(a + lt, gt - lt + 1, d + 1);
		}
		a += gt + 1;
		n -= gt + 1;
	}
	insertion(a, n, d);
}

/* The length of the prefix every string shares (names often start alike:
 * "Elemwise{"), where the radix passes can start. */
static size_t
common_prefix(const struct skey *a, size_t n)
{
	size_t d = n > 0 ? strlen((const char *)a[0].s) : 0;

	for (size_t i = 1; i < n && d > 0; i++) {
		size_t j = 0;

		while (j < d && a[i].s[j] == a[0].s[j])
			j++;
		d = j;
	}
	return (d);
}

void
ui_sort_rank_strings(const char *const *keys, size_t n, double *rank)
{
	struct skey *a = gp_xmalloc(sizeof(*a) * (n + 1));
	double r = 0;
	size_t d;

	for (size_t i = 0; i < n; i++) {
		a[i].s = (const unsigned char *)(keys[i] != NULL ? keys[i] :
		    "");
		a[i].i = (uint32_t)i;
	}
	d = common_prefix(a, n);
	load_chunks(a, n, d);
	mkqsort(a, n, d);
	for (size_t p = 0; p < n; p++) {
		if (p > 0 && strcmp((const char *)a[p].s,
		    (const char *)a[p - 1].s) != 0)
			r++;
		rank[a[p].i] = r;
	}
	free(a);
}
