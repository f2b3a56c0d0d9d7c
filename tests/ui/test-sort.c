/*
 * test-sort.c: the table sorts (ui/sort.c) against a plain reference:
 * numbers in both directions with ties kept in row order and NaN last,
 * and string ranks with shared prefixes and duplicates.
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
	check_strings(1);
	check_strings(50);
	check_strings(5000);
	return (done_testing());
}
