/*
 * ops/scratch.c: per-thread work space for kernels: one growing buffer per
 * slot, freed by a thread-specific-data destructor when the thread exits
 * (and at process exit for the main thread, so leak checkers stay quiet);
 * the bytes each slot holds for the running apply, counted as work space
 * (base/alloc.h); contiguous copies of operands and outputs over slots.
 */
#include "config.h"

#include "ops/scratch.h"
#include "ops/trcopy.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

/* A contiguous header of x's shape and dtype dt over slot's bytes. */
static struct gp_tensor *
scratch_tensor(enum gp_scratch_slot slot, const struct gp_tensor *x,
    enum gp_dtype dt, struct gp_scratch_tmp *tmp)
{
	size_t n = (size_t)gp_tensor_numel(x) * gp_dtype_size(dt);

	memset(tmp, 0, sizeof(*tmp));
	tmp->st.refcount = 1;
	tmp->st.nbytes = n;
	tmp->st.data = gp_scratch_get(slot, n);
	tmp->t.storage = &tmp->st;
	tmp->t.dtype = dt;
	tmp->t.ndim = x->ndim;
	memcpy(tmp->t.shape, x->shape, sizeof(x->shape));
	gp_shape_strides(x->ndim, x->shape, gp_dtype_size(dt),
	    tmp->t.strides);
	return (&tmp->t);
}

const struct gp_tensor *
gp_scratch_as(const struct gp_tensor *x, enum gp_dtype dt, int k,
    struct gp_scratch_tmp *tmp)
{
	struct gp_tensor *t;

	if (x->dtype == dt && gp_tensor_is_contiguous(x))
		return (x);
	t = scratch_tensor((enum gp_scratch_slot)(GP_SCRATCH_IN0 + k), x, dt,
	    tmp);
	if (!gp_trcopy(t, x))
		gp_tensor_copy_into(t, x);
	return (t);
}

struct gp_tensor *
gp_scratch_out(struct gp_tensor *o, struct gp_scratch_tmp *tmp)
{
	if (gp_tensor_is_contiguous(o))
		return (o);
	return (scratch_tensor(GP_SCRATCH_OUT, o, o->dtype, tmp));
}

void
gp_scratch_out_done(struct gp_tensor *o, const struct gp_tensor *y)
{
	if (y != o)
		gp_tensor_copy_into(o, y);
}
