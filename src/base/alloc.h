/*
 * alloc.h: the one allocator behind every tensor's storage.  Blocks are
 * 64-byte aligned, reference counted, and recycled through per-thread size
 * class caches so a call that frees and reallocates the same shapes costs no
 * system allocation and no page faults.
 *
 * The counters are what the memory profile holds its prediction against:
 * `live` is the sum of the requested sizes of the storages in use (not the
 * rounded class sizes), `peak` its high-water mark since the last
 * gp_alloc_reset_peak().  Counters are kept per thread, so the hot path
 * has no atomic operations: gp_alloc_get_stats() reports the calling
 * thread's allocations and frees (the runtime's worker reads its own).
 *
 * The kernels' work space (the per-thread scratch of ops/scratch.h: an
 * im2col matrix, per-channel factors) is not storage but counts as live
 * all the same, as what it is (`work`): from a kernel's request until the
 * caller of the kernel ends the apply with gp_alloc_work_end(), so the
 * peak holds it at the apply that uses it, as the memory profile predicts
 * (doc/memory.md, "Workspace").
 */
#ifndef GPTOP_SRC_ALLOC_H
#define GPTOP_SRC_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#define GP_ALIGN 64

struct gp_storage {
	int64_t		 refcount;
	size_t		 nbytes;	/* requested size (pooled: of its use) */
	size_t		 csize;		/* its size class's size */
	uint32_t	 cls;		/* size class */
	uint32_t	 flags;		/* GP_STORAGE_* */
	char		*data;		/* GP_ALIGN-aligned */
};

/* The storage belongs to a VM's buffer pool: the pool holds one reference
 * and the storage counts as live only while somebody else holds one. */
#define GP_STORAGE_POOLED 1u

struct gp_alloc_stats {
	uint64_t	live;		/* bytes of storages in use */
	uint64_t	peak;		/* high-water mark of live */
	uint64_t	n_alloc;	/* storages handed out */
	uint64_t	n_free;		/* storages given back */
	uint64_t	n_sys;		/* of which came from the system */
	uint64_t	cached;		/* bytes kept for reuse */
	uint64_t	work;		/* of live: kernel work space held by
					 * the apply running (ops/scratch.h) */
};

/* A new storage of n bytes, refcount 1, contents unspecified. */
struct gp_storage	*gp_alloc_storage(size_t n);
/* A new storage of n bytes set to zero. */
struct gp_storage	*gp_alloc_storage_zero(size_t n);
/* The calling thread's counters (gp_alloc_get_stats reads them); the
 * inline functions below keep them on the hot path. */
struct gp_alloc_counters {
	int64_t		live, peak;
	uint64_t	nalloc, nfree, nsys;
	int64_t		cached;
	int64_t		work;
};
extern _Thread_local struct gp_alloc_counters gp_alloc_tls;

static inline void
gp_alloc_ref(struct gp_storage *s)
{
	s->refcount++;
}
/* The last reference to s is gone: recycle the block. */
void	gp_alloc_release_block(struct gp_storage *s);
/* Drop one reference; the last one recycles the block. */
static inline void
gp_alloc_unref(struct gp_storage *s)
{
	if (--s->refcount > 0) {
		/* back in its pool, idle */
		if (s->refcount == 1 && (s->flags & GP_STORAGE_POOLED)) {
			gp_alloc_tls.live -= (int64_t)s->nbytes;
			gp_alloc_tls.nfree++;
		}
		return;
	}
	gp_alloc_release_block(s);
}

/*
 * Pooled storages, for buffers a VM reuses call after call at the same
 * point of its schedule.  The counters see the same allocations and frees
 * as with gp_alloc_storage()/gp_alloc_unref(): a take is an allocation, the
 * drop of the last reference other than the pool's is a free.
 */
/* A new pooled storage of n bytes held only by the pool (not live). */
struct gp_storage	*gp_alloc_pool_new(size_t n);
/* Hand out pooled storage s (refcount 1: nobody else holds it) for a
 * tensor of n bytes, at most its size: the use counts n bytes live, as an
 * allocation of n bytes would, whatever the buffer's size. */
static inline void
gp_alloc_pool_take(struct gp_storage *s, size_t n)
{
	s->refcount++;
	s->nbytes = n;
	gp_alloc_tls.nalloc++;
	gp_alloc_tls.live += (int64_t)n;
	if (gp_alloc_tls.live > gp_alloc_tls.peak)
		gp_alloc_tls.peak = gp_alloc_tls.live;
}
/* The pool lets go of s: freed now if idle, else when its last user
 * lets go. */
void	gp_alloc_pool_drop(struct gp_storage *s);

/* Kernel work space: n more bytes held by the running apply (ops/scratch.c
 * calls it; a kernel asks gp_scratch_get). */
static inline void
gp_alloc_work_add(uint64_t n)
{
	gp_alloc_tls.work += (int64_t)n;
	gp_alloc_tls.live += (int64_t)n;
	if (gp_alloc_tls.live > gp_alloc_tls.peak)
		gp_alloc_tls.peak = gp_alloc_tls.live;
}
/* After every kernel call (the VM's steps, constant folding): the work
 * space the kernel held is no longer counted. */
static inline void
gp_alloc_work_end(void)
{
	if (__builtin_expect(gp_alloc_tls.work != 0, 0)) {
		gp_alloc_tls.live -= gp_alloc_tls.work;
		gp_alloc_tls.work = 0;
	}
}

void	gp_alloc_get_stats(struct gp_alloc_stats *st);
/* Restart the peak at the current live bytes. */
void	gp_alloc_reset_peak(void);
/* Give every cached block of this thread back to the system. */
void	gp_alloc_trim(void);

#endif
