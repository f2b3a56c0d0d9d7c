/*
 * vm.h: the virtual machine.  gp_vm_new() compiles every function of a
 * graph: a topological schedule, the static type of every slot, what each
 * output is (allocated, a view the kernel makes, or an input overwritten in
 * place) and, with GC on, which slots die after each step.  gp_vm_call()
 * then runs one function: it allocates outputs, calls kernels, frees
 * intermediates after their last use, and applies the shared-variable
 * updates once every value is computed (so all updates read pre-update
 * values).
 *
 * The VM makes no graph decisions (fusion, inplace and merging are rewrites
 * done before it) and holds no statistics: given a timing hook (vm-hook.h,
 * which the profile implements) it writes one tick stamp per step where
 * the hook says and leaves the rest to it.
 */
#ifndef GPTOP_SRC_VM_H
#define GPTOP_SRC_VM_H

#include <stdbool.h>

#include "graph/graph.h"
#include "run/vm-hook.h"

struct gp_vm_opts {
	bool	allow_gc;	/* free intermediates after their last use */
};

struct gp_vm;

/* Compile g (which must outlive the VM; the VM reads and updates its
 * shared variables).  When hook is not NULL its link() sees the schedule
 * (a profile fills its function and apply tables to match it). */
struct gp_vm	*gp_vm_new(struct gp_graph *g, const struct gp_vm_opts *o,
		    const struct gp_vm_hook *hook, struct gp_err *err);
void		 gp_vm_free(struct gp_vm *vm);

/* Run function fn once, timed through hook (NULL: untimed). */
void		 gp_vm_call(struct gp_vm *vm, int fn,
		    const struct gp_vm_hook *hook);

int		 gp_vm_n_steps(const struct gp_vm *vm, int fn);
/* Function fn's buffer pool as planned (with allow_gc): how many buffers,
 * and their bytes in all, held from their first use to the VM's end. */
void		 gp_vm_pool(const struct gp_vm *vm, int fn, int *n_buf,
		    size_t *bytes);
/* Whether the VM frees intermediates after their last use. */
bool		 gp_vm_allow_gc(const struct gp_vm *vm);
/* The graph node run at step i of function fn. */
int		 gp_vm_step_node(const struct gp_vm *vm, int fn, int i);
/* How output k of step i of function fn is made: allocated by the VM
 * (contiguous), a view its kernel makes of an input (node->view), or an
 * input overwritten in place (node->destroy).  A view op's output is
 * allocated when its op cannot view the layout its input arrives in
 * (op.h's view_layout): the kernel copies into it. */
enum gp_vm_out { GP_VM_OUT_ALLOC, GP_VM_OUT_VIEW, GP_VM_OUT_INPLACE };
enum gp_vm_out	 gp_vm_step_out(const struct gp_vm *vm, int fn, int i, int k);
/* The layout (dtype, shape, strides; no storage) each variable arrives
 * in at function fn's steps, one entry per graph variable in lay: what
 * the ops' workspace() declarations read. */
void		 gp_vm_layout(const struct gp_vm *vm, int fn,
		    struct gp_tensor *lay);
/* Output k of function fn as its last call computed it (kept until fn's
 * next call, whatever other functions do meanwhile). */
const struct gp_tensor *gp_vm_output(const struct gp_vm *vm, int fn, int k);

/* Observe every step (memory tests, traces): called after step i of a call
 * with the allocator state then; NULL to stop. */
typedef void (*gp_vm_observer)(void *ctx, int fn, int step);
void		 gp_vm_set_observer(struct gp_vm *vm, gp_vm_observer f,
		    void *ctx);

#endif
