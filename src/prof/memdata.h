/*
 * memdata.h: what a memory profile holds (memprof.h computes it).  A
 * struct gp_memprof is plain data: no pointer into the graph or the VM
 * (names live in its own string pool), so it can be cloned into snapshots
 * and written to captures.  All figures are bytes, as requested from the
 * allocator (the rounding to size classes is not counted).  Besides the
 * structures: reading them (the string pool, the simulation of the VM's
 * setting, the peaks), cloning and freeing.
 */
#ifndef GPTOP_SRC_MEMDATA_H
#define GPTOP_SRC_MEMDATA_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/tensor.h"

/* An output of an apply. */
struct gp_mem_out {
	uint64_t	bytes;
	int64_t		shape[GP_MAX_DIMS];
	int8_t		ndim;
	int8_t		dtype;	/* enum gp_dtype */
	char		alias;	/* 'c' created, 'v' view, 'i' inplace */
	int8_t		src;	/* 'v', 'i': the input aliased; -1 */
	uint32_t	var;	/* its variable's name (string pool) */
};

/* One apply, at its schedule position. */
struct gp_mem_apply {
	uint64_t	out_bytes;	/* all outputs (dense sizes) */
	uint64_t	alloc_bytes;	/* the outputs the VM allocates */
	/* its kernel's work space (ops/scratch.h, the op's workspace()):
	 * alive during the apply only, counted in the allocator's figures
	 * (sim), not in Theano's intermediates */
	uint64_t	work_bytes;
	uint32_t	first_out;	/* its outputs: outs[first_out ...] */
	int		n_out;
	/* Theano's model (intermediates, one call on its own, current
	 * setting): bytes live after the apply, and during it (the inputs
	 * still alive plus the new outputs) */
	uint64_t	inter_after, inter_during;
};

/* A point of the allocator's timeline: after (or during) one apply. */
struct gp_mem_point {
	uint64_t	live;	/* every storage alive */
	uint64_t	fresh;	/* of which allocated during this call */
};

enum gp_mem_kind {
	GP_MEM_INPUT,		/* an input's value */
	GP_MEM_SHARED,		/* a shared variable's value */
	GP_MEM_CONSTANT,	/* a constant's value */
	GP_MEM_HELD,		/* held by the VM from an earlier call */
	GP_MEM_NEW,		/* allocated during this call */
	GP_MEM_WORK		/* the running apply's kernel work space
				 * (ops/scratch.h), named GP_MEM_WORK_NAME */
};
#define GP_MEM_WORK_NAME	"(kernel scratch)"

/* A storage alive at the peak, or the work space of the apply running
 * then (GP_MEM_WORK). */
struct gp_mem_buf {
	uint64_t	bytes;
	uint32_t	var;	/* its variable's name (string pool) */
	int8_t		kind;	/* enum gp_mem_kind */
	int		fn;	/* the function whose apply made it, or
				 * -1 (a value from the start) */
	int		step;	/* and that apply's schedule position */
	int		n_ref;	/* references to it then */
};

/* The allocator's view of one GC setting: the session's calls replayed. */
struct gp_mem_sim {
	uint64_t	peak;		/* max of the two below */
	uint64_t	peak_first;	/* the function's first call */
	uint64_t	peak_steady;	/* every later call */
	uint64_t	base_first;	/* live at those calls' start */
	uint64_t	base_steady;
	uint64_t	values;		/* of base_steady: graph values */
	uint64_t	held;		/* of base_steady: buffers held */
	uint64_t	fresh_peak;	/* max bytes allocated by a call and
					 * still alive (steady call) */
	int		peak_call;	/* peak's call: 0 first, 1 later */
	int		peak_step;	/* its apply; -1: the call's start */
	uint64_t	peak_fresh;	/* of peak: allocated by the call */
	/* per apply, for the call peak_call: after it, and its high-water */
	struct gp_mem_point *after, *during;
	/* the storages alive at the peak, largest first */
	struct gp_mem_buf *bufs;
	int		n_bufs;
};

enum gp_mem_variant {
	GP_MEM_AS_RUN,		/* aliases as declared */
	GP_MEM_NO_INPLACE,	/* in-place outputs allocated instead */
	GP_MEM_NO_VIEW,		/* view outputs allocated (copies) */
	GP_MEM__VARIANTS
};

struct gp_memprof {
	uint32_t	fn_name;	/* string pool */
	int		fn, n_fn;	/* this function, of how many */
	int		n_apply;
	bool		allow_gc;	/* the VM's: sim[0] or sim[1] */
	/* storage outside the program that the allocator also counts,
	 * declared by the caller (see gp_memprof_graph_values) */
	uint64_t	external;

	/* graph values (every input, shared and constant storage) */
	uint64_t	val_input, val_shared, val_const;
	uint64_t	val_used;	/* of which this function reads */

	/* Theano's figures: intermediates of one call on its own, in the
	 * executed order; [0] GC on, [1] GC off */
	uint64_t	inter[2][GP_MEM__VARIANTS];
	uint64_t	sum_out;	/* every apply's outputs */
	uint64_t	sum_view;	/* outputs declared views */
	uint64_t	sum_inplace;	/* outputs declared in place */
	/* kernel work space: the largest of an apply (-1: none), and how
	 * many applies take some */
	uint64_t	work_max;
	int		work_max_step;
	int		n_work;

	/* the allocator's: [0] GC on, [1] GC off */
	struct gp_mem_sim sim[2];

	struct gp_mem_apply *ap;	/* n_apply */
	struct gp_mem_out *outs;
	uint32_t	n_outs;

	/* the smallest peak of intermediates over valid orders (GC on) */
	bool		min_done;	/* searched */
	bool		min_optimal;	/* proven, else the best found */
	uint64_t	min_peak;	/* of the order below */
	uint64_t	min_lower;	/* no order can do better than this */
	uint64_t	min_states;	/* states expanded */
	double		min_ms;		/* time taken */
	int		*min_order;	/* n_apply schedule positions */

	char		*strs;		/* the string pool */
	uint32_t	 strs_len;
};

static inline const char *
gp_memprof_str(const struct gp_memprof *m, uint32_t off)
{
	return (m->strs + off);
}

/* The simulation of the setting the VM runs with. */
static inline const struct gp_mem_sim *
gp_memprof_sim(const struct gp_memprof *m)
{
	return (&m->sim[m->allow_gc ? 0 : 1]);
}


/* Which of its calls a function's measured peak covers (gp_memprof_span,
 * memprof.h). */
enum gp_mem_span {
	GP_MEM_SPAN_NONE,	/* no call was run */
	GP_MEM_SPAN_FIRST,	/* the first call only */
	GP_MEM_SPAN_ALL,	/* the first call and later ones */
	GP_MEM_SPAN_LATER	/* later calls only (counted after a reset) */
};
/* A simulation's peak over the calls of a span (the first call's, the
 * larger of the first and later calls', the later calls'); with no call
 * run, the larger of the two. */
uint64_t		 gp_memprof_sim_peak(const struct gp_mem_sim *s,
			    enum gp_mem_span span);
/* The program's peak over the calls the measured peak covers: the
 * simulation of the VM's setting's.  Without m->external. */
uint64_t		 gp_memprof_program_peak(const struct gp_memprof *m,
			    enum gp_mem_span span);
/* The intermediates peak with the setting the VM runs (GC on or off). */
static inline uint64_t
gp_memprof_inter_peak(const struct gp_memprof *m)
{
	return (m->inter[m->allow_gc ? 0 : 1][GP_MEM_AS_RUN]);
}

struct gp_memprof	*gp_memprof_clone(const struct gp_memprof *m);
void			 gp_memprof_free(struct gp_memprof *m);

#endif
