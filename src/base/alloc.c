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

#include "base/alloc.h"
#include "base/fatal.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GP_NCLASS 256
#define GP_CACHE_MAX ((uint64_t)1 << 31)

/* Counters are per thread (the runtime allocates from one worker), so the
 * hot path has no atomic operations. */
_Thread_local struct gp_alloc_counters gp_alloc_tls;

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
			/* (n - p) / step rounded up, by shifts: step is
			 * 2^(lg - 2) */
			k = (n - p + step - 1) >> (lg - 2);	/* 1..4 */
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

static inline void
stat_add_live(size_t n)
{
	gp_alloc_tls.live += (int64_t)n;
	if (gp_alloc_tls.live > gp_alloc_tls.peak)
		gp_alloc_tls.peak = gp_alloc_tls.live;
}

/* A block of n bytes, refcount 1, not counted live. */
static struct gp_storage *
block_new(size_t n)
{
	size_t csize, total;
	uint32_t c;
	struct gp_storage *s;

	if (n > SIZE_MAX - 2 * GP_ALIGN) {
		gp_fatal_exit("allocation of %zu bytes is too large", n);
	}
	total = n + GP_ALIGN;
	c = class_of(total, &csize);
	if (c < GP_NCLASS && cache[c] != NULL) {
		struct freeblk *b = cache[c];

		cache[c] = b->next;
		gp_alloc_tls.cached -= (int64_t)csize;
		s = (struct gp_storage *)b;
	} else {
		/* aligned_alloc wants a multiple of the alignment */
		s = aligned_alloc(GP_ALIGN, (csize + GP_ALIGN - 1) / GP_ALIGN *
		    GP_ALIGN);
		if (s == NULL) {
			gp_fatal_exit("out of memory (%zu bytes)", csize);
		}
		gp_alloc_tls.nsys++;
	}
	s->refcount = 1;
	s->nbytes = n;
	s->cls = c;
	s->csize = csize;
	s->flags = 0;
	s->data = (char *)s + GP_ALIGN;
	return (s);
}

struct gp_storage *
gp_alloc_storage(size_t n)
{
	struct gp_storage *s = block_new(n);

	gp_alloc_tls.nalloc++;
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

static void recycle(struct gp_storage *s);

void
gp_alloc_release_block(struct gp_storage *s)
{
	gp_alloc_tls.live -= (int64_t)s->nbytes;
	gp_alloc_tls.nfree++;
	recycle(s);
}

struct gp_storage *
gp_alloc_pool_new(size_t n)
{
	/* not a use: the pool's own reference does not count as live, nor
	 * raises the peak (the buffer may be larger than the use that
	 * takes it first) */
	struct gp_storage *s = block_new(n);

	s->flags |= GP_STORAGE_POOLED;
	return (s);
}

void
gp_alloc_pool_drop(struct gp_storage *s)
{
	s->flags &= ~GP_STORAGE_POOLED;
	/* in use elsewhere: counted live, freed by its last user */
	if (--s->refcount > 0)
		return;
	recycle(s);
}

/* Put an unreferenced block back in its class's cache, or give it back to
 * the system when the cache is full. */
static void
recycle(struct gp_storage *s)
{
	size_t csize;

	csize = s->csize;
	if (s->cls < GP_NCLASS && gp_alloc_tls.cached + (int64_t)csize <=
	    (int64_t)GP_CACHE_MAX) {
		struct freeblk *b = (struct freeblk *)s;

		b->next = cache[s->cls];
		cache[s->cls] = b;
		gp_alloc_tls.cached += (int64_t)csize;
		return;
	}
	free(s);
}

void
gp_alloc_get_stats(struct gp_alloc_stats *out)
{
	out->live = gp_alloc_tls.live > 0 ? (uint64_t)gp_alloc_tls.live : 0;
	out->peak = gp_alloc_tls.peak > 0 ? (uint64_t)gp_alloc_tls.peak : 0;
	out->n_alloc = gp_alloc_tls.nalloc;
	out->n_free = gp_alloc_tls.nfree;
	out->n_sys = gp_alloc_tls.nsys;
	out->cached = gp_alloc_tls.cached > 0 ? (uint64_t)gp_alloc_tls.cached : 0;
	out->work = gp_alloc_tls.work > 0 ? (uint64_t)gp_alloc_tls.work : 0;
}

void
gp_alloc_reset_peak(void)
{
	gp_alloc_tls.peak = gp_alloc_tls.live;
}

void
gp_alloc_trim(void)
{
	for (int c = 0; c < GP_NCLASS; c++) {
		while (cache[c] != NULL) {
			struct freeblk *b = cache[c];
			size_t csize;

			cache[c] = b->next;
			csize = ((struct gp_storage *)b)->csize;
			gp_alloc_tls.cached -= (int64_t)csize;
			free(b);
		}
	}
}
