/*
 * sort.h: the sorts behind every table: rows are ordered by one key per
 * row, ties kept in row order, so sorting is stable and needs no global
 * state.  Numbers go through an LSD radix sort on order-preserving 64-bit
 * images of the doubles, names are ranked by a multikey (three-way radix)
 * quicksort first; both are linear-ish, so 100,000 rows sort in a few ms.
 */
#ifndef GPTOP_UI_SORT_H
#define GPTOP_UI_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* idx[0..n) gets 0..n-1 ordered by keys[i] (descending if desc), equal
 * keys in increasing i. */
void	ui_sort_numbers(const double *keys, uint32_t *idx, size_t n,
	    bool desc);
/* rank[i] gets the rank of keys[i] in byte order, from 0; equal strings
 * share a rank (sorting the ranks then orders the rows). */
void	ui_sort_rank_strings(const char *const *keys, size_t n, double *rank);

#endif
