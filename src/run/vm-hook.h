/*
 * vm-hook.h: how a profiler observes the VM (vm.h) without either knowing
 * the other's structures: the VM declares these callbacks and calls
 * them with their context; a profiler implements them (profile-hook.h for
 * struct gp_profile) and passes them to gp_vm_new and gp_vm_call.
 * Without a hook, a call runs untimed.
 *
 * A timed call writes one tick stamp (gp_clock_ticks) before its first
 * step and one after every step into the array begin() gives: step i runs
 * from stamp i to stamp i+1, its output allocation, its kernel and the
 * freeing of the inputs it read last.  Nothing else is done per step,
 * unless begin() asks to see the steps (the profile's first call, to
 * record the strides its kernels made).
 */
#ifndef GPTOP_SRC_VM_HOOK_H
#define GPTOP_SRC_VM_HOOK_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"

struct gp_vm;

struct gp_vm_hook {
	void		*ctx;	/* every callback's first argument */
	/* gp_vm_new, once every function of g is compiled: read the
	 * schedule (gp_vm_n_steps, gp_vm_step_node). */
	void		 (*link)(void *ctx, const struct gp_vm *vm,
			    const struct gp_graph *g);
	/* Before a call of function fn: where to write its n_steps + 1
	 * stamps, or NULL to time the call as a whole only (sampling);
	 * *see_steps (false on entry) true to have step() called after
	 * every step of this call. */
	uint64_t	*(*begin)(void *ctx, int fn, bool *see_steps);
	/* After step i of a call begin() asked to see: its inputs and
	 * outputs as the kernel left them. */
	void		 (*step)(void *ctx, int fn, int i,
			    struct gp_tensor *const *in,
			    struct gp_tensor *const *out);
	/* After the call, updates applied: whether its steps were stamped,
	 * its time from the first stamp (or its start) to the end, and
	 * the time of its steps alone. */
	void		 (*end)(void *ctx, int fn, bool stamped, uint64_t call_ns,
			    uint64_t vm_ns);
};

#endif
