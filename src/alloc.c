/*
 * alloc.c: size-class caching allocator for tensor storage (see alloc.h).
 *
 * A block is one aligned_alloc'ed region: the struct gp_storage header in the
 * first GP_ALIGN bytes, the data after it.  Sizes round up to classes of four
 * steps per power of two (at most 25% slack), and freed blocks wait on a
 * per-thread list for their class.  The cache is bounded: past
 * GP_CACHE_MAX bytes a freed block goes back to the system.
 */
#include "config.h"

#include "alloc.h"
#include "util.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GP_NCLASS 256
#define GP_CACHE_MAX ((uint64_t)1 << 31)

static _Atomic uint64_t st_live, st_peak, st_nalloc, st_nfree, st_nsys,
    st_cached;

struct freeblk {
	struct freeblk *next;
};

static _Thread_local struct freeblk *cache[GP_NCLASS];

/* Class of n bytes (header included) and the class's size. */
static uint32_t
class_of(size_t n, size_t *csize)
{
	size_t sz = GP_ALIGN;
	uint32_t c = 0;

	if (n <= GP_ALIGN) {
		*csize = GP_ALIGN;
		return (0);
	}
	/* the classes: 64, then for each power p >= 64: p*5/4, p*6/4, p*7/4, 2p */
	{
		int lg = 63 - __builtin_clzll((unsigned long long)n);
		size_t p = (size_t)1 << lg;
		size_t step = p / 4;
		size_t k;

		if (n == p) {
			k = 0;
			sz = p;
		} else {
			k = (n - p + step - 1) / step;	/* 1..4 */
			sz = p + k * step;
		}
		c = (uint32_t)((lg - 6) * 4 + k);
		if (k == 4) {
			c = (uint32_t)((lg + 1 - 6) * 4);
			sz = p * 2;
		}
	}
	*csize = sz;
	return (c);
}

static void
stat_add_live(size_t n)
{
	uint64_t live = atomic_fetch_add_explicit(&st_live, n,
	    memory_order_relaxed) + n;
	uint64_t peak = atomic_load_explicit(&st_peak, memory_order_relaxed);

	while (live > peak && !atomic_compare_exchange_weak_explicit(&st_peak,
	    &peak, live, memory_order_relaxed, memory_order_relaxed))
		;
}

struct gp_storage *
gp_alloc_storage(size_t n)
{
	size_t csize, total;
	uint32_t c;
	struct gp_storage *s;

	if (n > SIZE_MAX - 2 * GP_ALIGN) {
		fprintf(stderr, "gptop: allocation of %zu bytes is too large\n",
		    n);
		abort();
	}
	total = n + GP_ALIGN;
	c = class_of(total, &csize);
	if (c < GP_NCLASS && cache[c] != NULL) {
		struct freeblk *b = cache[c];

		cache[c] = b->next;
		atomic_fetch_sub_explicit(&st_cached, csize,
		    memory_order_relaxed);
		s = (struct gp_storage *)b;
	} else {
		/* aligned_alloc wants a multiple of the alignment */
		s = aligned_alloc(GP_ALIGN, (csize + GP_ALIGN - 1) / GP_ALIGN *
		    GP_ALIGN);
		if (s == NULL) {
			fprintf(stderr, "gptop: out of memory (%zu bytes)\n",
			    csize);
			abort();
		}
		atomic_fetch_add_explicit(&st_nsys, 1, memory_order_relaxed);
	}
	s->refcount = 1;
	s->nbytes = n;
	s->cls = c;
	s->flags = 0;
	s->data = (char *)s + GP_ALIGN;
	atomic_fetch_add_explicit(&st_nalloc, 1, memory_order_relaxed);
	stat_add_live(n);
	return (s);
}

struct gp_storage *
gp_alloc_storage_zero(size_t n)
{
	struct gp_storage *s = gp_alloc_storage(n);

	memset(s->data, 0, n);
	return (s);
}

void
gp_alloc_unref(struct gp_storage *s)
{
	size_t csize;

	if (--s->refcount > 0)
		return;
	atomic_fetch_sub_explicit(&st_live, s->nbytes, memory_order_relaxed);
	atomic_fetch_add_explicit(&st_nfree, 1, memory_order_relaxed);
	(void)class_of(s->nbytes + GP_ALIGN, &csize);
	if (s->cls < GP_NCLASS &&
	    atomic_load_explicit(&st_cached, memory_order_relaxed) + csize <=
	    GP_CACHE_MAX) {
		struct freeblk *b = (struct freeblk *)s;

		b->next = cache[s->cls];
		cache[s->cls] = b;
		atomic_fetch_add_explicit(&st_cached, csize,
		    memory_order_relaxed);
		return;
	}
	free(s);
}

void
gp_alloc_get_stats(struct gp_alloc_stats *st)
{
	st->live = atomic_load_explicit(&st_live, memory_order_relaxed);
	st->peak = atomic_load_explicit(&st_peak, memory_order_relaxed);
	st->n_alloc = atomic_load_explicit(&st_nalloc, memory_order_relaxed);
	st->n_free = atomic_load_explicit(&st_nfree, memory_order_relaxed);
	st->n_sys = atomic_load_explicit(&st_nsys, memory_order_relaxed);
	st->cached = atomic_load_explicit(&st_cached, memory_order_relaxed);
}

void
gp_alloc_reset_peak(void)
{
	atomic_store_explicit(&st_peak,
	    atomic_load_explicit(&st_live, memory_order_relaxed),
	    memory_order_relaxed);
}

void
gp_alloc_trim(void)
{
	for (int c = 0; c < GP_NCLASS; c++) {
		while (cache[c] != NULL) {
			struct freeblk *b = cache[c];
			size_t csize;

			cache[c] = b->next;
			(void)class_of(((struct gp_storage *)b)->nbytes +
			    GP_ALIGN, &csize);
			atomic_fetch_sub_explicit(&st_cached, csize,
			    memory_order_relaxed);
			free(b);
		}
	}
}
