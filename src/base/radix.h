/*
 * radix.h: stable radix sorting of row indices by 64-bit keys, for tables
 * of 100,000 rows (the profile's rollups, the interface's sorts).
 */
#ifndef GPTOP_SRC_RADIX_H
#define GPTOP_SRC_RADIX_H

#include <stddef.h>
#include <stdint.h>

/* Reorder idx[0..n) by k[idx[j]] ascending, keeping the order idx had for
 * equal keys (so sorting by a second key, then a first, orders by both).
 * scratch: 2n words of work space, or NULL to allocate it. */
void	gp_radix_sort(const uint64_t *k, uint32_t *idx, size_t n,
	    uint64_t *scratch);

#endif
