/*
 * memreplay.h: the engines of the memory profile (memprof.c computes it
 * with them, memsearch.c searches the model), inside the profiler only.
 *
 * Both replay the program extracted from the VM's schedule (gp_vm_n_steps,
 * gp_vm_step_node) and the graph's nodes, in the VM's terms:
 *  - sim: the VM's storage rules replayed exactly (reference counts, slot
 *    reuse, GC lists, updates), call after call in the session's order, to
 *    predict what the allocator counts;
 *  - model: Theano's intermediates for one call on its own, with aliases
 *    collapsed to their origin storage and a storage freed only when every
 *    variable aliasing it is dead (never twice, never while read).
 */
#ifndef GPTOP_SRC_MEMREPLAY_H
#define GPTOP_SRC_MEMREPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "prof/memdata.h"

struct gp_vm;

static inline uint64_t
mr_max64(uint64_t a, uint64_t b)
{
	return (a > b ? a : b);
}

/* The string pool. */
struct mr_pool {
	char	*s;
	size_t	 len, cap;
};
uint32_t	gp_memreplay_pool_add(struct mr_pool *p, const char *s);

/* A graph value's storage and a variable holding it. */
struct mr_valref {
	const struct gp_storage	*st;
	int			 var;
};

/* What every engine reads from the graph, gathered once (the variable
 * array is large and scanned slowly). */
struct mr_ctx {
	const struct gp_graph	*g;
	bool			*temp;	/* per variable: temporary? */
	struct mr_valref	*vals;	/* the values, by storage */
	size_t			 n_vals;
	/* variables that may hold a value: those, and update targets */
	int			*vvars;
	size_t			 n_vvars;
};
void	gp_memreplay_ctx_init(struct mr_ctx *c, const struct gp_graph *g);
void	gp_memreplay_ctx_done(struct mr_ctx *c);

/*
 * The program: what the VM runs for each function, in its terms.
 */
enum { MR_ALLOC, MR_KERNEL, MR_DESTROY };

struct mr_pout {
	int		var;
	int		src;	/* MR_KERNEL, MR_DESTROY: variable aliased */
	int		mode;
	uint64_t	bytes;
};

struct mr_prog {
	int		 n;
	int		*node;
	uint64_t	*work;	/* per step: its kernel's work space */
	int		*out0;	/* n + 1 offsets into outs */
	struct mr_pout	*outs;
	int		*free0;	/* n + 1 offsets into frees (GC lists) */
	int		*frees;
	int		 n_end;	/* update sources released at the end */
	int		*end;
	int		 fo0;	/* its kept outputs: sim.fouts[fo0 ...] */
};

/* Build function fi's program as gp_vm_new() does; last and surv are
 * scratch arrays of g->n_vars entries (surv is left marking the variables
 * that survive the call).  With mp, also describe the outputs into
 * mp->outs (names into pool), reading each variable once. */
void	gp_memreplay_prog_build(struct mr_prog *pr, const struct mr_ctx *c,
	    const struct gp_vm *vm, int fi, int *last, bool *surv,
	    struct gp_memprof *mp, struct mr_pool *pool);
void	gp_memreplay_prog_free(struct mr_prog *pr);

/*
 * Replay the session's rounds (every function in turn) for one GC setting
 * and fill ms for function fi of the n_fn programs pr: its first call
 * (round one) and a later one (round two).  Names into pool.
 */
void	gp_memreplay_sim(struct gp_mem_sim *ms, const struct mr_ctx *c,
	    const struct mr_prog *pr, int n_fn, int fi, bool gc,
	    struct mr_pool *pool);

/*
 * model: Theano's intermediates, for one function called on its own.
 */
struct mr_model {
	int		 n, nv;
	int		*in0, *ins;	/* per step: distinct temp inputs */
	int		*out0;		/* per step: its first output */
	/* per output: the temporary a view or inplace output aliases (-1:
	 * a new output, or an alias of a graph value) */
	int		*alias_src;
	int		*mode;		/* per output slot */
	uint64_t	*obytes;	/* per output slot */
	int		*prod;		/* per temp: its step */
	int		*ncons;		/* per temp: consumer steps */
	bool		*surv;		/* per temp: the call returns it */
	/* per variant */
	uint64_t	*alloc;		/* per step */
	int		*org;		/* per temp: its storage; -1 */
	uint64_t	*bytes;		/* per temp as an origin */
	/* state */
	int		*rem, *cnt;
	uint64_t	 live;
	bool		 gc;
};

/* The model of program pr, surv marking the variables the call returns. */
void	gp_memreplay_model_build(struct mr_model *m, const struct gp_graph *g,
	    const struct mr_prog *pr, const bool *surv);
void	gp_memreplay_model_free(struct mr_model *m);
/* Origins and allocations for a variant; returns the bytes allocated
 * (the peak when nothing is freed). */
uint64_t gp_memreplay_model_variant(struct mr_model *m,
	    enum gp_mem_variant var);
/* Empty: nothing run, GC on or off. */
void	gp_memreplay_model_reset(struct mr_model *m, bool gc);
/* The peak of an order (NULL: the schedule); per step figures into
 * ap when not NULL. */
uint64_t gp_memreplay_model_eval(struct mr_model *m, bool gc, const int *order,
	    struct gp_mem_apply *ap);

/* Running and undoing one step, the search's inner loop: inline. */
static inline void
mr_model_hold(struct mr_model *m, int u)
{
	int o = m->org[u];

	if (o >= 0 && m->cnt[o]++ == 0)
		m->live += m->bytes[o];
}

static inline void
mr_model_drop(struct mr_model *m, int u)
{
	int o = m->org[u];

	if (o >= 0 && --m->cnt[o] == 0)
		m->live -= m->bytes[o];
}

/* Run step p; returns the bytes live during it. */
static inline uint64_t
mr_model_exec(struct mr_model *m, int p)
{
	uint64_t during;

	for (int j = m->out0[p]; j < m->out0[p + 1]; j++)
		mr_model_hold(m, j);
	during = m->live;
	if (m->gc) {
		for (int j = m->in0[p]; j < m->in0[p + 1]; j++) {
			int w = m->ins[j];

			if (--m->rem[w] == 0 && !m->surv[w])
				mr_model_drop(m, w);
		}
		for (int j = m->out0[p]; j < m->out0[p + 1]; j++)
			if (m->ncons[j] == 0 && !m->surv[j])
				mr_model_drop(m, j);
	}
	return (during);
}

static inline void
mr_model_undo(struct mr_model *m, int p)
{
	if (m->gc) {
		for (int j = m->out0[p + 1] - 1; j >= m->out0[p]; j--)
			if (m->ncons[j] == 0 && !m->surv[j])
				mr_model_hold(m, j);
		for (int j = m->in0[p + 1] - 1; j >= m->in0[p]; j--) {
			int w = m->ins[j];

			if (m->rem[w]++ == 0 && !m->surv[w])
				mr_model_hold(m, w);
		}
	}
	for (int j = m->out0[p + 1] - 1; j >= m->out0[p]; j--)
		mr_model_drop(m, j);
}

#endif
