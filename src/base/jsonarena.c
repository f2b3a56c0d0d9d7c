/*
 * jsonarena.c: bump arenas for jansson behind its allocator hooks (see
 * jsonarena.h).  Live arenas are registered in a small table of address
 * ranges so that a free() from any thread can tell an arena pointer (a
 * no-op) from a malloc'ed one.
 */
#include "config.h"

#include "base/jsonarena.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ARENA_SLOTS	16

static _Thread_local struct gp_json_arena *cur_arena;
static _Atomic uintptr_t arena_lo[ARENA_SLOTS], arena_hi[ARENA_SLOTS];
static atomic_int n_arenas;
static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static void *
jansson_malloc(size_t n)
{
	struct gp_json_arena *a = cur_arena;

	if (a != NULL) {
		n = (n + 15) & ~(size_t)15;
		if ((size_t)(a->end - a->top) >= n) {
			void *p = a->top;

			a->top += n;
			return (p);
		}
		a->spilled = true;
	}
	return (malloc(n));
}

static void
jansson_free(void *p)
{
	uintptr_t u = (uintptr_t)p;

	if (atomic_load_explicit(&n_arenas, memory_order_relaxed) > 0) {
		for (int i = 0; i < ARENA_SLOTS; i++) {
			uintptr_t lo = atomic_load_explicit(&arena_lo[i],
			    memory_order_acquire);

			if (lo > 1 && u >= lo && u < atomic_load_explicit(
			    &arena_hi[i], memory_order_relaxed))
				return;
		}
	}
	free(p);
}

static void
install_hooks(void)
{
	json_set_alloc_funcs(jansson_malloc, jansson_free);
}

bool
gp_json_arena_begin(struct gp_json_arena *a, size_t size)
{

	memset(a, 0, sizeof(*a));
	a->slot = -1;
	pthread_once(&hooks_once, install_hooks);
	/* the reservation costs address space only; a full arena spills
	 * to malloc */
	if (size == 0 || size > ((size_t)1 << 46))
		return (false);
	for (int i = 0; i < ARENA_SLOTS && a->slot < 0; i++) {
		uintptr_t zero = 0;

		if (atomic_compare_exchange_strong(&arena_lo[i], &zero, 1))
			a->slot = i;
	}
	if (a->slot < 0)
		return (false);
	a->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a->base == MAP_FAILED) {
		atomic_store(&arena_lo[a->slot], 0);
		a->slot = -1;
		a->base = NULL;
		return (false);
	}
	a->top = a->base;
	a->end = a->base + size;
	atomic_store_explicit(&arena_hi[a->slot], (uintptr_t)a->end,
	    memory_order_relaxed);
	atomic_store_explicit(&arena_lo[a->slot], (uintptr_t)a->base,
	    memory_order_release);
	atomic_fetch_add(&n_arenas, 1);
	cur_arena = a;
	return (true);
}

void
gp_json_arena_huge(struct gp_json_arena *a)
{
#ifdef MADV_HUGEPAGE
	if (a->base != NULL)
		(void)madvise(a->base, (size_t)(a->end - a->base),
		    MADV_HUGEPAGE);
#else
	(void)a;
#endif
}

void
gp_json_arena_leave(struct gp_json_arena *a)
{
	if (cur_arena == a)
		cur_arena = NULL;
}

void
gp_json_arena_enter(struct gp_json_arena *a)
{
	if (a->base != NULL)
		cur_arena = a;
}

void
gp_json_arena_reset(struct gp_json_arena *a)
{
	a->top = a->base;
}

void
gp_json_arena_end(struct gp_json_arena *a, json_t *root)
{
	cur_arena = NULL;
	if (a->base == NULL || a->spilled)
		json_decref(root);
	if (a->base == NULL)
		return;
	atomic_store_explicit(&arena_lo[a->slot], 0, memory_order_release);
	atomic_fetch_sub(&n_arenas, 1);
	munmap(a->base, (size_t)(a->end - a->base));
	a->base = NULL;
}

