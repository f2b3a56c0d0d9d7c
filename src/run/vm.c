/*
 * vm.c: compile a graph's functions into step programs and run them (see
 * vm.h).
 */
#include "config.h"

#include "run/vm.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "graph/op.h"

enum out_mode {
	OUT_ALLOC,	/* the VM allocates a contiguous tensor */
	OUT_KERNEL,	/* the kernel makes it (a view, or its own copy) */
	OUT_DESTROY	/* the output is input `src`, overwritten in place */
};

/* What a call reads of each step, kept small: the steps are an array in
 * schedule order, and their slot lists are runs of one array of the
 * function (vm_fn.ptrs), laid out in the same order, so a call reads both
 * front to back instead of chasing a separate allocation per list. */
struct step {
	gp_kernel_fn		 kernel;
	const struct gp_node	*node;
	struct gp_tensor	**in, **out;
	struct gp_tensor	**free;	/* slots released after the step */
	int			 n_free;
	int			 fast;	/* the pool buffer planned for the step's
					 * one output (the common case), or -1 */
	size_t			 fast_bytes;	/* that output's size */
};

/* How each output of a step is made: read at link time and on the slow
 * path only. */
struct step_outs {
	int			 n_out;
	uint8_t			 mode[GP_MAX_OUT];
	int8_t			 src[GP_MAX_OUT];
	/* OUT_ALLOC outputs: their size in bytes, and the pool buffer
	 * planned for them (-1: none; it may be larger than they are).
	 * Their slots keep the header of a fresh contiguous tensor, written
	 * at link time. */
	int			 buf[GP_MAX_OUT];
	size_t			 nbytes[GP_MAX_OUT];
};

struct vm_fn {
	int		 n_steps;
	struct step	*steps;
	struct step_outs *so;		/* one per step */
	struct gp_tensor **ptrs;	/* the steps' slot lists */
	int		*order;	/* node of each step */
	int		 n_end_free;
	struct gp_tensor **end_free;	/* update sources released at the end */
	int		 n_out;
	struct gp_tensor *outs;	/* this function's outputs of its last call
				 * (views: another function may recompute the
				 * same variables) */
	int		 n_buf;
	struct gp_storage **bufs;	/* the pool (NULL until first used) */
	size_t		*buf_bytes;	/* their sizes: the largest output
					 * planned in each */
};

struct gp_vm {
	struct gp_graph		*g;
	struct gp_tensor	*slots;	/* one per variable */
	int			 n_fn;
	struct vm_fn		*fn;
	bool			 allow_gc;
	gp_vm_observer		 observer;
	void			*observer_ctx;
};

static void
bind_graph_vars(struct gp_vm *vm)
{
	for (size_t v = 0; v < vm->g->n_vars; v++)
		if (vm->g->vars[v].kind != GP_VAR_TEMP)
			gp_tensor_view(&vm->slots[v], &vm->g->vars[v].value);
}

/* Is variable v needed after the call (an output or update source)? */
static bool
survives_call(const struct gp_function *f, int v)
{
	for (int k = 0; k < f->n_out; k++)
		if (f->out[k] == v)
			return (true);
	for (int k = 0; k < f->n_upd; k++)
		if (f->upd[k].src == v)
			return (true);
	return (false);
}

/* The header of a fresh contiguous tensor of type ty (no storage yet):
 * written once, at link time, into the slot of an output the VM
 * allocates, so a call only sets its storage. */
static void
fresh_header(struct gp_tensor *t, const struct gp_type *ty)
{
	t->dtype = ty->dtype;
	t->ndim = ty->ndim;
	memcpy(t->shape, ty->shape, sizeof(t->shape));
	gp_shape_strides(ty->ndim, ty->shape, gp_dtype_size(ty->dtype),
	    t->strides);
	t->offset = 0;
}

/*
 * The layout (dtype, shape, strides; no storage) of every variable as the
 * steps of function fi see it: a graph value's as bound, an output the VM
 * allocates contiguous, an output overwriting an input that input's, a
 * view what its op's view_layout makes of the input's.  With fix (link
 * time), a view its op cannot make of that layout becomes an output the
 * VM allocates, and its kernel copies into (a reshape of a transpose).
 * A shared variable is taken with the layout of its value at link time
 * (an update to a strided value would change it after the first call).
 */
static void
layout_fn(struct gp_vm *vm, int fi, struct gp_tensor *lay, bool fix)
{
	const struct gp_graph *g = vm->g;
	struct vm_fn *f = &vm->fn[fi];

	for (size_t v = 0; v < g->n_vars; v++) {
		const struct gp_var *gv = &g->vars[v];

		if (gv->kind != GP_VAR_TEMP && gv->value.storage != NULL)
			lay[v] = gv->value;
		else
			fresh_header(&lay[v], &gv->type);
		lay[v].storage = NULL;
	}
	for (int i = 0; i < f->n_steps; i++) {
		const struct gp_node *nd = &g->nodes[f->order[i]];
		struct step_outs *so = &f->so[i];

		for (int k = 0; k < nd->n_out; k++) {
			int v = nd->out[k];
			const struct gp_type *ty = &g->vars[v].type;
			const struct gp_tensor *x;

			switch (so->mode[k]) {
			case OUT_ALLOC:
				fresh_header(&lay[v], ty);
				break;
			case OUT_DESTROY:
				lay[v] = lay[nd->in[so->src[k]]];
				break;
			case OUT_KERNEL:
				x = &lay[nd->in[nd->view[k]]];
				fresh_header(&lay[v], ty);
				if (nd->op->view_layout == NULL ||
				    nd->op->view_layout(g, nd, k, x, &lay[v]))
					break;
				fresh_header(&lay[v], ty);
				if (fix) {
					so->mode[k] = OUT_ALLOC;
					fresh_header(f->steps[i].out[k], ty);
				}
				break;
			}
			lay[v].storage = NULL;
		}
	}
}

/*
 * The buffer plan of function fi: every output the VM allocates that dies
 * within the call (freed by the GC lists, and so is everything that views
 * it or overwrites it in place) gets a buffer of the function's pool, which
 * later steps reuse once it is dead, as a register allocator reuses
 * registers.  Calls then allocate nothing.  The plan is an optimisation
 * only: at run time a buffer somebody still holds is never handed out
 * (prepare_outputs checks its reference count).
 *
 * An output takes, of the last 64 buffers freed, the smallest that holds
 * it (of equal ones, the most recently freed), else the largest, grown to
 * fit, else a new one; a buffer's size is the largest output planned in
 * it.
 * So the pool holds few buffers, and an output is mostly written where an
 * output of the same call was just read, still in the caches: with exact
 * sizes only, mobilenet_v2's pool took 28 buffers, 17.8 MB, whose lines
 * came back from memory at every call (with 32 MB of L3 cache and 14 MB
 * of weights), against 3 buffers, 8.4 MB, now; its call 0.96 of the time,
 * densenet121 (171 buffers, 78.9 MB, now 26, 30.6 MB) 0.97 (bench-ab,
 * interleaved).  The allocator counts a pooled buffer's use as the bytes
 * of the output it holds (gp_alloc_pool_take), so the measured peak is
 * still the outputs' and the memory profile's prediction holds.
 */
static int
take_free(int *avail, int *n_avail, size_t *bytes, size_t need)
{
	int fit = -1, big = -1, b;

	/* the last 64 freed, the most recent first */
	for (int j = *n_avail - 1; j >= 0 && j >= *n_avail - 64; j--) {
		size_t have = bytes[avail[j]];

		if (have >= need) {
			if (fit < 0 || have < bytes[avail[fit]])
				fit = j;
		} else if (big < 0 || have > bytes[avail[big]])
			big = j;
	}
	if (fit < 0 && big < 0)
		return (-1);
	if (fit < 0) {
		fit = big;
		bytes[avail[fit]] = need;
	}
	b = avail[fit];
	/* keep the others in the order they were freed */
	memmove(&avail[fit], &avail[fit + 1], sizeof(*avail) *
	    (size_t)(*n_avail - fit - 1));
	(*n_avail)--;
	return (b);
}

static void
plan_buffers(struct gp_vm *vm, int fi, const int *last)
{
	const struct gp_graph *g = vm->g;
	const struct gp_function *gf = &g->fns[fi];
	struct vm_fn *f = &vm->fn[fi];
	const int n = f->n_steps, never = n;
	int *root = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	int *end = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	int *expire = gp_xmalloc(sizeof(int) * (size_t)(n + 1));
	int *next = NULL, *avail = NULL;
	int n_avail = 0, cap = 0;

	/* the variable whose allocation each variable's data lives in, and
	 * the last step at which any of them is alive */
	for (size_t v = 0; v < g->n_vars; v++)
		root[v] = -1;
	for (int i = 0; i < n; i++) {
		const struct gp_node *nd = &g->nodes[f->order[i]];
		const struct step_outs *s = &f->so[i];

		for (int k = 0; k < nd->n_out; k++) {
			int v = nd->out[k], r = -1;

			switch (s->mode[k]) {
			case OUT_ALLOC:
				r = v;
				end[v] = -1;
				break;
			case OUT_DESTROY:
				r = root[nd->in[s->src[k]]];
				break;
			case OUT_KERNEL:
				r = root[nd->in[nd->view[k]]];
				break;
			}
			root[v] = r;
			if (r < 0)
				continue;
			if (g->vars[v].kind != GP_VAR_TEMP ||
			    survives_call(gf, v))
				end[r] = never;
			else if (last[v] > end[r])
				end[r] = last[v];
		}
	}
	/* greedy assignment in schedule order; a buffer whose data dies at
	 * step j is free again for the outputs of step j + 1 */
	for (int i = 0; i <= n; i++)
		expire[i] = -1;
	for (int i = 0; i < n; i++) {
		const struct gp_node *nd = &g->nodes[f->order[i]];
		struct step_outs *s = &f->so[i];

		if (i > 0)
			for (int b = expire[i - 1]; b >= 0; b = next[b])
				avail[n_avail++] = b;
		for (int k = 0; k < nd->n_out; k++) {
			int v = nd->out[k], b = -1;

			if (s->mode[k] != OUT_ALLOC || root[v] != v ||
			    end[v] >= never || s->nbytes[k] == 0)
				continue;
			b = take_free(avail, &n_avail, f->buf_bytes,
			    s->nbytes[k]);
			if (b < 0) {
				if (f->n_buf == cap) {
					cap = cap ? cap * 2 : 16;
					f->buf_bytes = gp_xrealloc(f->buf_bytes,
					    sizeof(*f->buf_bytes) *
					    (size_t)cap);
					next = gp_xrealloc(next,
					    sizeof(*next) * (size_t)cap);
					avail = gp_xrealloc(avail,
					    sizeof(*avail) * (size_t)cap);
				}
				b = f->n_buf++;
				f->buf_bytes[b] = s->nbytes[k];
			}
			s->buf[k] = b;
			next[b] = expire[end[v]];
			expire[end[v]] = b;
		}
		f->steps[i].fast = nd->n_out == 1 ? s->buf[0] : -1;
		f->steps[i].fast_bytes = s->nbytes[0];
	}
	f->bufs = gp_xcalloc((size_t)f->n_buf + 1, sizeof(*f->bufs));
	free(root);
	free(end);
	free(expire);
	free(next);
	free(avail);
}

struct gp_vm *
gp_vm_new(struct gp_graph *g, const struct gp_vm_opts *o,
    const struct gp_vm_hook *hook, struct gp_err *err)
{
	struct gp_vm *vm = gp_xcalloc(1, sizeof(*vm));
	int *last = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	struct gp_tensor *lay = gp_xmalloc(sizeof(*lay) * (g->n_vars + 1));
	size_t np;

	vm->g = g;
	vm->allow_gc = o == NULL || o->allow_gc;
	vm->slots = gp_xcalloc(g->n_vars + 1, sizeof(*vm->slots));
	vm->n_fn = (int)g->n_fns;
	vm->fn = gp_xcalloc(g->n_fns + 1, sizeof(*vm->fn));
	for (size_t fi = 0; fi < g->n_fns; fi++) {
		const struct gp_function *gf = &g->fns[fi];
		struct vm_fn *f = &vm->fn[fi];

		f->n_steps = gp_graph_schedule(g, (int)fi, &f->order);
		f->n_out = gf->n_out;
		f->outs = gp_xcalloc((size_t)gf->n_out + 1, sizeof(*f->outs));
		f->steps = gp_xcalloc((size_t)f->n_steps + 1, sizeof(*f->steps));
		f->so = gp_xcalloc((size_t)f->n_steps + 1, sizeof(*f->so));
		/* last step that reads each temp */
		for (size_t v = 0; v < g->n_vars; v++)
			last[v] = -1;
		np = 0;
		for (int i = 0; i < f->n_steps; i++) {
			const struct gp_node *n = &g->nodes[f->order[i]];

			for (int k = 0; k < n->n_in; k++)
				last[n->in[k]] = i;
			for (int k = 0; k < n->n_out; k++)
				if (last[n->out[k]] < i)
					last[n->out[k]] = i;	/* unread */
			/* inputs, outputs, and a GC list of at most both */
			np += 2 * (size_t)(n->n_in + n->n_out);
		}
		f->ptrs = gp_xmalloc(sizeof(*f->ptrs) * (np + 1));
		np = 0;
		for (int i = 0; i < f->n_steps; i++) {
			const struct gp_node *n = &g->nodes[f->order[i]];
			struct step *s = &f->steps[i];
			struct step_outs *so = &f->so[i];

			if (n->kernel == NULL) {
				gp_err_set(err, "%s: node %s (op '%s') has no "
				    "kernel", g->path, n->name ? n->name :
				    g->vars[n->out[0]].name, n->op->name);
				free(last);
				free(lay);
				gp_vm_free(vm);
				return (NULL);
			}
			s->node = n;
			s->kernel = n->kernel;
			s->fast = -1;
			s->in = f->ptrs + np;
			np += (size_t)n->n_in;
			s->out = f->ptrs + np;
			np += (size_t)n->n_out;
			s->free = f->ptrs + np;
			so->n_out = n->n_out;
			for (int k = 0; k < n->n_in; k++)
				s->in[k] = &vm->slots[n->in[k]];
			for (int k = 0; k < n->n_out; k++) {
				const struct gp_type *ty =
				    &g->vars[n->out[k]].type;

				s->out[k] = &vm->slots[n->out[k]];
				so->nbytes[k] = gp_type_nbytes(ty);
				so->buf[k] = -1;
				so->src[k] = -1;
				if (n->destroy[k] >= 0) {
					so->mode[k] = OUT_DESTROY;
					so->src[k] = n->destroy[k];
				} else if (n->view[k] >= 0)
					so->mode[k] = OUT_KERNEL;
				else {
					so->mode[k] = OUT_ALLOC;
					fresh_header(s->out[k], ty);
				}
			}
			/* the GC list: temps whose last use is this step and
			 * that are not needed after the call */
			for (int pass = 0; vm->allow_gc && pass < 2; pass++) {
				int m = pass ? n->n_out : n->n_in;
				const int *vs = pass ? n->out : n->in;

				for (int k = 0; k < m; k++) {
					int v = vs[k];
					bool dup = false;

					if (g->vars[v].kind != GP_VAR_TEMP ||
					    last[v] != i || survives_call(gf, v))
						continue;
					for (int j = 0; j < s->n_free; j++)
						if (s->free[j] == &vm->slots[v])
							dup = true;
					if (!dup)
						s->free[s->n_free++] = &vm->slots[v];
				}
			}
			np += (size_t)s->n_free;
		}
		/* views their ops cannot make of the inputs' layouts are
		 * allocated */
		layout_fn(vm, (int)fi, lay, true);
		if (vm->allow_gc) {
			f->end_free = gp_xmalloc(sizeof(*f->end_free) *
			    (size_t)(gf->n_upd + 1));
			for (int k = 0; k < gf->n_upd; k++) {
				int v = gf->upd[k].src;
				bool is_out = false;

				for (int j = 0; j < gf->n_out; j++)
					if (gf->out[j] == v)
						is_out = true;
				if (g->vars[v].kind == GP_VAR_TEMP && !is_out)
					f->end_free[f->n_end_free++] =
					    &vm->slots[v];
			}
		}
		if (vm->allow_gc)
			plan_buffers(vm, (int)fi, last);
	}
	free(last);
	free(lay);
	bind_graph_vars(vm);
	if (hook != NULL)
		hook->link(hook->ctx, vm, g);
	return (vm);
}

void
gp_vm_free(struct gp_vm *vm)
{
	if (vm == NULL)
		return;
	for (int fi = 0; fi < vm->n_fn; fi++) {
		struct vm_fn *f = &vm->fn[fi];

		for (int b = 0; b < f->n_buf; b++)
			if (f->bufs[b] != NULL)
				gp_alloc_pool_drop(f->bufs[b]);
		free(f->bufs);
		free(f->buf_bytes);
		free(f->steps);
		free(f->so);
		free(f->ptrs);
		free(f->order);
		free(f->end_free);
		for (int k = 0; k < f->n_out; k++)
			gp_tensor_release(&f->outs[k]);
		free(f->outs);
	}
	free(vm->fn);
	for (size_t v = 0; v < vm->g->n_vars; v++)
		gp_tensor_release(&vm->slots[v]);
	free(vm->slots);
	free(vm);
}

static void __attribute__((noinline))
prepare_slow(const struct step *s, const struct step_outs *so,
    struct gp_storage **bufs, const size_t *buf_bytes)
{
	for (int k = 0; k < so->n_out; k++) {
		struct gp_tensor *t = s->out[k];

		switch (so->mode[k]) {
		case OUT_ALLOC:
			/* a buffer kept from the last call is reused when
			 * nobody else holds it */
			if (t->storage != NULL) {
				if (t->storage->refcount == 1)
					break;
				gp_tensor_release(t);
			}
			/* so is the planned pool buffer (a view may still
			 * hold it: then a fresh one) */
			if (so->buf[k] >= 0) {
				struct gp_storage **pb = &bufs[so->buf[k]];

				if (*pb == NULL)
					*pb = gp_alloc_pool_new(
					    buf_bytes[so->buf[k]]);
				if ((*pb)->refcount == 1) {
					gp_alloc_pool_take(*pb, so->nbytes[k]);
					t->storage = *pb;
					break;
				}
			}
			t->storage = gp_alloc_storage(so->nbytes[k]);
			break;
		case OUT_KERNEL:
			gp_tensor_release(t);
			break;
		case OUT_DESTROY:
			gp_tensor_view(t, s->in[so->src[k]]);
			break;
		}
	}
}

/* Make step s's outputs ready.  The common case inline: one output, a
 * fresh tensor the plan gave a pool buffer, which is free. */
static inline __attribute__((always_inline)) void
prepare_outputs(const struct vm_fn *f, int i)
{
	const struct step *s = &f->steps[i];

	if (__builtin_expect(s->fast >= 0, 1)) {
		struct gp_tensor *t = s->out[0];
		struct gp_storage *b = f->bufs[s->fast];

		if (__builtin_expect(t->storage == NULL && b != NULL &&
		    b->refcount == 1, 1)) {
			gp_alloc_pool_take(b, s->fast_bytes);
			t->storage = b;
			return;
		}
	}
	prepare_slow(s, &f->so[i], f->bufs, f->buf_bytes);
}

static inline __attribute__((always_inline)) void
collect(const struct step *s)
{
	struct gp_tensor *const *fr = s->free;
	const int nf = s->n_free;

	for (int j = 0; j < nf; j++)
		gp_tensor_release(fr[j]);
}

/* Keep this call's outputs for gp_vm_output (before the updates: outputs
 * are the values computed, not the new state). */
static void
keep_outputs(struct gp_vm *vm, int fi)
{
	const struct gp_function *gf = &vm->g->fns[fi];
	struct vm_fn *f = &vm->fn[fi];

	for (int k = 0; k < f->n_out; k++)
		gp_tensor_view(&f->outs[k], &vm->slots[gf->out[k]]);
}

/* Drop the last call's outputs so their buffers can be reused. */
static inline void
drop_outputs(struct vm_fn *f)
{
	for (int k = 0; k < f->n_out; k++)
		gp_tensor_release(&f->outs[k]);
}

static void
apply_updates(struct gp_vm *vm, int fi)
{
	const struct gp_function *gf = &vm->g->fns[fi];
	struct gp_tensor stackv[8], *nv = stackv;

	if (gf->n_upd == 0)
		return;
	if (gf->n_upd > 8)
		nv = gp_xcalloc((size_t)gf->n_upd, sizeof(*nv));
	else
		memset(stackv, 0, sizeof(stackv));
	/* take every new value before changing any shared variable */
	for (int k = 0; k < gf->n_upd; k++)
		gp_tensor_view(&nv[k], &vm->slots[gf->upd[k].src]);
	for (int k = 0; k < gf->n_upd; k++) {
		int d = gf->upd[k].dst;

		gp_tensor_view(&vm->g->vars[d].value, &nv[k]);
		gp_tensor_view(&vm->slots[d], &nv[k]);
		gp_tensor_release(&nv[k]);
	}
	if (nv != stackv)
		free(nv);
	for (int k = 0; k < vm->fn[fi].n_end_free; k++)
		gp_tensor_release(vm->fn[fi].end_free[k]);
}

/* Run function f's steps without timing them; observe is a constant at
 * each call site, so the loop without an observer has no test for one. */
static inline __attribute__((always_inline)) void
run_steps(struct gp_vm *vm, struct vm_fn *f, int fi, bool observe)
{
	const struct step *steps = f->steps;
	const int n = f->n_steps;

	for (int i = 0; i < n; i++) {
		const struct step *s = &steps[i];
		const struct step *ahead = &steps[i + 8 < n ? i + 8 : i];


		/* the step 8 ahead: its node and output slot */
		__builtin_prefetch(ahead->node);
		__builtin_prefetch(ahead->out[0]);
		prepare_outputs(f, i);
		s->kernel(s->node, s->in, s->out);
		gp_alloc_work_end();
		collect(s);
		if (observe)
			vm->observer(vm->observer_ctx, fi, i);
	}
}

/* Run f with one stamp per step: step i runs from stamp i to stamp i+1
 * and so owns its output allocation, its kernel and the freeing of the
 * inputs it was the last to read (half the probe cost of two stamps per
 * step). */
static void
run_timed(struct gp_vm *vm, struct vm_fn *f, int fi, uint64_t *tk,
    const struct gp_vm_hook *see)
{
	const struct step *steps = f->steps;
	const int n = f->n_steps;

	tk[0] = gp_clock_ticks();
	for (int i = 0; i < n; i++) {
		const struct step *s = &steps[i];

		prepare_outputs(f, i);
		s->kernel(s->node, s->in, s->out);
		gp_alloc_work_end();
		if (__builtin_expect(see != NULL, 0))
			see->step(see->ctx, fi, i, s->in, s->out);
		collect(s);
		if (vm->observer != NULL)
			vm->observer(vm->observer_ctx, fi, i);
		tk[i + 1] = gp_clock_ticks();
	}
}

void
gp_vm_call(struct gp_vm *vm, int fi, const struct gp_vm_hook *hook)
{
	struct vm_fn *f = &vm->fn[fi];
	uint64_t c0 = 0, v1 = 0, *tk;
	bool see = false;

	drop_outputs(f);
	if (hook == NULL) {
		if (vm->observer == NULL)
			run_steps(vm, f, fi, false);
		else
			run_steps(vm, f, fi, true);
		keep_outputs(vm, fi);
		apply_updates(vm, fi);
		return;
	}
	/* sampling: an untimed call is timed as a whole, its applies not */
	tk = hook->begin(hook->ctx, fi, &see);
	if (tk != NULL) {
		run_timed(vm, f, fi, tk, see ? hook : NULL);
		c0 = tk[0];
		v1 = tk[f->n_steps];
	} else {
		c0 = gp_clock_ticks();
		if (vm->observer == NULL)
			run_steps(vm, f, fi, false);
		else
			run_steps(vm, f, fi, true);
		v1 = gp_clock_ticks();
	}
	keep_outputs(vm, fi);
	apply_updates(vm, fi);
	{
		uint64_t c1 = gp_clock_ticks();

		hook->end(hook->ctx, fi, tk != NULL,
		    gp_clock_ticks_to_ns(c1 - c0),
		    gp_clock_ticks_to_ns(v1 - c0));
	}
}

int
gp_vm_n_steps(const struct gp_vm *vm, int fn)
{
	return (vm->fn[fn].n_steps);
}

void
gp_vm_pool(const struct gp_vm *vm, int fn, int *n_buf, size_t *bytes)
{
	const struct vm_fn *f = &vm->fn[fn];

	*n_buf = f->n_buf;
	*bytes = 0;
	for (int b = 0; b < f->n_buf; b++)
		*bytes += f->buf_bytes[b];
}

bool
gp_vm_allow_gc(const struct gp_vm *vm)
{
	return (vm->allow_gc);
}

int
gp_vm_step_node(const struct gp_vm *vm, int fn, int i)
{
	return (vm->fn[fn].order[i]);
}

void
gp_vm_layout(const struct gp_vm *vm, int fn, struct gp_tensor *lay)
{
	layout_fn((struct gp_vm *)vm, fn, lay, false);
}

enum gp_vm_out
gp_vm_step_out(const struct gp_vm *vm, int fn, int i, int k)
{
	switch (vm->fn[fn].so[i].mode[k]) {
	case OUT_KERNEL:
		return (GP_VM_OUT_VIEW);
	case OUT_DESTROY:
		return (GP_VM_OUT_INPLACE);
	default:
		return (GP_VM_OUT_ALLOC);
	}
}

const struct gp_tensor *
gp_vm_output(const struct gp_vm *vm, int fn, int k)
{
	return (&vm->fn[fn].outs[k]);
}

void
gp_vm_set_observer(struct gp_vm *vm, gp_vm_observer f, void *ctx)
{
	vm->observer = f;
	vm->observer_ctx = ctx;
}
