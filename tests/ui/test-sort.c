/*
 * test-sort.c: the table sorts (ui/sort.c) against a plain reference:
 * numbers in both directions with ties kept in row order and NaN last
 * (also numbers that differ only in their low bits, which the sort tells
 * apart last), and string ranks with shared prefixes, duplicates, long
 * common stretches and lengths on the 8-byte blocks the ranker reads.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "sort.h"

static const double *ref_keys;
static bool ref_desc;

static int
ref_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	double ka = ref_keys[a], kb = ref_keys[b];
	bool na = ka != ka, nb = kb != kb;

	if (na != nb)
		return (na ? 1 : -1);
	if (!na && ka != kb)
		return ((ka < kb) != ref_desc ? -1 : 1);
	return (a < b ? -1 : 1);
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (rng);
}

static void
check_numbers(size_t n, int distinct, bool desc)
{
	double *k = malloc(sizeof(*k) * (n + 1));
	uint32_t *got = malloc(sizeof(*got) * (n + 1));
	uint32_t *want = malloc(sizeof(*want) * (n + 1));

	for (size_t i = 0; i < n; i++) {
		int64_t v = (int64_t)(next() % (uint64_t)distinct) -
		    distinct / 2;

		k[i] = (double)v * 1.5e-3;
		if (next() % 97 == 0)
			k[i] = NAN;
		if (next() % 89 == 0)
			k[i] = -0.0;
		want[i] = (uint32_t)i;
	}
	ref_keys = k;
	ref_desc = desc;
	qsort(want, n, sizeof(*want), ref_cmp);
	ui_sort_numbers(k, got, n, desc);
	ok(n == 0 || memcmp(got, want, sizeof(*got) * n) == 0,
	    "%zu numbers, %d distinct, %s: reference order, ties by row, NaN "
	    "last", n, distinct, desc ? "descending" : "ascending");
	free(k);
	free(got);
	free(want);
}

/* Numbers alike in their high 32 bits, in runs long and short. */
static void
check_low_bits(size_t n, bool desc, int groups)
{
	double *k = malloc(sizeof(*k) * (n + 1));
	uint32_t *got = malloc(sizeof(*got) * (n + 1));
	uint32_t *want = malloc(sizeof(*want) * (n + 1));

	for (size_t i = 0; i < n; i++) {
		/* 1 + j * 2^-40: the same high half for j < 2^8 */
		k[i] = 1.0 + (double)(next() % (i % 2 ? 600 : 20)) *
		    0x1p-40 + (double)(next() % (uint64_t)groups);
		want[i] = (uint32_t)i;
	}
	ref_keys = k;
	ref_desc = desc;
	qsort(want, n, sizeof(*want), ref_cmp);
	ui_sort_numbers(k, got, n, desc);
	ok(memcmp(got, want, sizeof(*got) * n) == 0, "%zu numbers in %d "
	    "groups alike but for their low bits, %s: reference order", n,
	    groups, desc ? "descending" : "ascending");
	free(k);
	free(got);
	free(want);
}

/* Ranks of s[0..n) against strcmp, checked on every pair of a sample. */
static bool
ranks_follow(char **s, size_t n)
{
	double *rank = malloc(sizeof(*rank) * (n + 1));
	bool good = true;

	ui_sort_rank_strings((const char *const *)s, n, rank);
	for (size_t i = 0; i < n && good; i += 1 + n / 2000)
		for (size_t j = 0; j < n && good; j += 1 + n / 300) {
			int c = strcmp(s[i], s[j]);

			if ((c < 0) != (rank[i] < rank[j]) ||
			    (c == 0) != (rank[i] == rank[j]))
				good = false;
		}
	/* ranks are dense: 0 .. distinct - 1 */
	for (size_t i = 0; i < n && good; i++)
		if (rank[i] < 0 || rank[i] >= (double)n)
			good = false;
	free(rank);
	return (good);
}

/* Apply-like names, long stretches in common, lengths around multiples
 * of 8, many duplicates. */
static void
check_long_strings(size_t n)
{
	char **s = malloc(sizeof(*s) * (n + 1));
	static const char *const mid[] = {"", "Elemwise{add,no_inplace}(",
		"Elemwise{Composite{(i0 + (i1 * i2))}}[(0, 0)](",
		"1234567", "12345678", "123456789"};

	for (size_t i = 0; i < n; i++) {
		char buf[160];

		snprintf(buf, sizeof(buf), "Elemwise{%s}%s%s%u",
		    i % 3 ? "add" : "maximum", mid[next() % 6],
		    next() % 2 ? "t" : "", (unsigned)(next() % (n / 4 + 1)));
		s[i] = strdup(buf);
	}
	ok(ranks_follow(s, n), "%zu long strings alike for dozens of bytes: "
	    "ranks follow strcmp", n);
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
}

static void
check_strings(size_t n)
{
	static const char *const stems[] = {"Elemwise{add}(", "Elemwise{mul}(",
		"Elemwise{", "Dot22(", "", "Elemwise{add}(t1, t2)"};
	char **s = malloc(sizeof(*s) * (n + 1));
	double *rank = malloc(sizeof(*rank) * (n + 1));
	bool good = true;

	for (size_t i = 0; i < n; i++) {
		char buf[64];

		snprintf(buf, sizeof(buf), "%s%s%u",
		    stems[next() % (sizeof(stems) / sizeof(stems[0]))],
		    next() % 3 ? "t" : "", (unsigned)(next() % 50));
		s[i] = strdup(buf);
	}
	ui_sort_rank_strings((const char *const *)s, n, rank);
	for (size_t i = 0; i < n && good; i++)
		for (size_t j = 0; j < n && good; j += 1 + n / 200) {
			int c = strcmp(s[i], s[j]);

			if ((c < 0) != (rank[i] < rank[j]) ||
			    (c == 0) != (rank[i] == rank[j]))
				good = false;
		}
	ok(good, "%zu strings: ranks follow strcmp, equal strings share one",
	    n);
	for (size_t i = 0; i < n; i++)
		free(s[i]);
	free(s);
	free(rank);
}

int
main(void)
{
	static const size_t sizes[] = {0, 1, 2, 17, 1000, 100000};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		check_numbers(sizes[i], 7, false);
		check_numbers(sizes[i], 7, true);
		check_numbers(sizes[i], 1000000, true);
	}
	check_low_bits(1000, false, 3);
	check_low_bits(100000, true, 3);
	check_low_bits(100000, false, 5000);
	check_strings(1);
	check_strings(50);
	check_strings(5000);
	check_long_strings(40);
	check_long_strings(3000);
	check_long_strings(100000);
	return (done_testing());
}
