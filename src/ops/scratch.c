/*
 * ops/scratch.c: per-thread work space for kernels: one growing buffer per
 * slot, freed by a thread-specific-data destructor when the thread exits
 * (and at process exit for the main thread, so leak checkers stay quiet);
 * the bytes each slot holds for the running apply, counted as work space
 * (base/alloc.h).
 */
#include "config.h"

#include "ops/scratch.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/util.h"

struct scratch {
	void	*p[GP_SCRATCH__COUNT];
	size_t	 n[GP_SCRATCH__COUNT];
	/* bytes counted for the running apply: valid while the allocator
	 * counts work space (gp_alloc_work_end() zeroes it after each
	 * apply: then none is) */
	size_t	 held[GP_SCRATCH__COUNT];
};

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Thread_local struct scratch *mine;

static void
free_scratch(void *v)
{
	struct scratch *s = v;

	for (int i = 0; i < GP_SCRATCH__COUNT; i++)
		free(s->p[i]);
	free(s);
}

static void
free_main(void)
{
	if (mine != NULL) {
		(void)pthread_setspecific(key, NULL);
		free_scratch(mine);
		mine = NULL;
	}
}

static void
make_key(void)
{
	if (pthread_key_create(&key, free_scratch) != 0)
		abort();
	/* registered from the first thread that needs scratch: at exit it
	 * frees that thread's buffers if it is the one exiting the process */
	(void)atexit(free_main);
}

void *
gp_scratch_get(enum gp_scratch_slot slot, size_t n)
{
	if (mine == NULL) {
		pthread_once(&once, make_key);
		mine = gp_xcalloc(1, sizeof(*mine));
		if (pthread_setspecific(key, mine) != 0)
			abort();
	}
	if (gp_alloc_tls.work == 0)
		for (int i = 0; i < GP_SCRATCH__COUNT; i++)
			mine->held[i] = 0;
	if (n > mine->held[slot]) {
		gp_alloc_work_add(n - mine->held[slot]);
		mine->held[slot] = n;
	}
	if (mine->n[slot] < n || mine->p[slot] == NULL) {
		free(mine->p[slot]);
		mine->p[slot] = gp_xmalloc(n > 0 ? n : 1);
		mine->n[slot] = n;
	}
	return (mine->p[slot]);
}
