/*
 * profile-hook.c: the profile as the VM's timing hook (see
 * profile-hook.h).
 */
#include "config.h"

#include "prof/profile-hook.h"

#include <stdlib.h>
#include <string.h>

#include "graph/op.h"
#include "run/vm.h"

static void
describe_io(struct gp_prof_io *io, const struct gp_var *v)
{
	io->var = gp_xstrdup(v->name);
	io->dtype = v->type.dtype;
	io->ndim = v->type.ndim;
	memcpy(io->shape, v->type.shape, sizeof(io->shape));
	io->nbytes = gp_type_nbytes(&v->type);
	io->strides_known = false;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return ((x > y) - (x < y));
}

/* The graph's source nodes (graph/prov.h) by their index in the file,
 * and the folded ones. */
static void
describe_sources(const struct gp_graph *g, struct gp_profile *p)
{
	int n = 0;

	for (int i = 0; i < p->n_src_names; i++)
		free(p->src_names[i]);
	free(p->src_names);
	free(p->folded);
	for (size_t i = 0; i < g->n_srcs; i++)
		if (g->srcs[i].index + 1 > n)
			n = g->srcs[i].index + 1;
	p->n_src_names = n;
	p->src_names = gp_xcalloc((size_t)n + 1, sizeof(char *));
	for (size_t i = 0; i < g->n_srcs; i++)
		if (g->srcs[i].name != NULL &&
		    p->src_names[g->srcs[i].index] == NULL)
			p->src_names[g->srcs[i].index] =
			    gp_xstrdup(g->srcs[i].name);
	p->n_folded = (int)g->n_folded;
	p->folded = gp_xmalloc(sizeof(int) * (g->n_folded + 1));
	for (size_t i = 0; i < g->n_folded; i++)
		p->folded[i] = g->srcs[g->folded[i]].index;
	qsort(p->folded, g->n_folded, sizeof(int), cmp_int);
}

/* Fill the profile's tables for function fi from its schedule. */
static void
describe(const struct gp_vm *vm, const struct gp_graph *g, int fi,
    struct gp_prof_fn *pf)
{
	int n_steps = gp_vm_n_steps(vm, fi);
	int *step_of_node = gp_xmalloc(sizeof(int) * (g->n_nodes + 1));
	struct gp_buf b = {0};

	for (size_t i = 0; i < g->n_nodes; i++)
		step_of_node[i] = -1;
	for (int i = 0; i < n_steps; i++)
		step_of_node[gp_vm_step_node(vm, fi, i)] = i;
	pf->n_apply = n_steps;
	pf->ap = gp_xcalloc((size_t)n_steps + 1, sizeof(*pf->ap));
	pf->ticks = gp_xcalloc(2 * (size_t)n_steps + 2, sizeof(uint64_t));
	for (int i = 0; i < n_steps; i++) {
		const struct gp_node *n = &g->nodes[gp_vm_step_node(vm, fi, i)];
		struct gp_prof_apply *a = &pf->ap[i];

		a->id = i;
		gp_buf_clear(&b);
		/* a front-end's node (an ONNX node) is named by its name */
		if (n->family != NULL && n->name != NULL)
			gp_buf_puts(&b, n->name);
		else
			gp_node_format_apply(g, n, &b);
		a->name = gp_xstrdup(gp_buf_str(&b));
		gp_buf_clear(&b);
		gp_node_format_op(g, n, &b);
		a->op = gp_xstrdup(gp_buf_str(&b));
		a->cls = gp_xstrdup(n->family ? n->family : n->op->cls);
		a->opname = gp_xstrdup(n->op->name);
		a->node = gp_xstrdup(n->name ? n->name : "");
		gp_buf_clear(&b);
		if (n->op->describe != NULL)
			n->op->describe(g, n, &b);
		a->extra = gp_xstrdup(gp_buf_str(&b));
		a->impl = n->impl;
		a->flops = gp_node_flops(g, n);
		a->link_ns = n->prep_ns + n->jit_ns;
		a->jit_ns = n->jit_ns;
		a->n_in = n->n_in;
		a->n_out = n->n_out;
		a->in = gp_xcalloc((size_t)n->n_in + 1, sizeof(*a->in));
		a->out = gp_xcalloc((size_t)n->n_out + 1, sizeof(*a->out));
		a->in_producer = gp_xcalloc((size_t)n->n_in + 1, sizeof(int));
		for (int k = 0; k < n->n_in; k++) {
			const struct gp_var *v = &g->vars[n->in[k]];

			describe_io(&a->in[k], v);
			a->in_producer[k] = v->producer >= 0 ?
			    step_of_node[v->producer] : -1;
		}
		a->n_src = n->n_src;
		a->src = gp_xmalloc(sizeof(int) * ((size_t)n->n_src + 1));
		for (int k = 0; k < n->n_src; k++)
			a->src[k] = g->srcs[n->src[k]].index;
		qsort(a->src, (size_t)a->n_src, sizeof(int), cmp_int);
		for (int k = 0; k < n->n_out; k++) {
			describe_io(&a->out[k], &g->vars[n->out[k]]);
			a->out[k].alias = n->destroy[k] >= 0 ? 'i' :
			    n->view[k] >= 0 ? 'v' : 'c';
		}
	}
	gp_buf_free(&b);
	free(step_of_node);
}

/* At link time: every function's tables, and the count of applies. */
static void
hook_link(void *ctx, const struct gp_vm *vm, const struct gp_graph *g)
{
	struct gp_profile *p = ctx;

	describe_sources(g, p);
	for (size_t fi = 0; fi < g->n_fns && fi < (size_t)p->n_fn; fi++)
		describe(vm, g, (int)fi, &p->fn[fi]);
	p->n_nodes = 0;
	for (size_t i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i].dead)
			p->n_nodes++;
	p->generation++;
}

/* Before a call: the function's stamps, unless sampling leaves this call
 * untimed; its steps seen on its first call. */
static uint64_t *
hook_begin(void *ctx, int fn, bool *see_steps)
{
	struct gp_profile *p = ctx;
	struct gp_prof_fn *f = &p->fn[fn];

	if (!gp_prof_time_next(f))
		return (NULL);
	*see_steps = f->calls_seen == 0;
	return (f->ticks);
}

/* After each step of a function's first call: the strides its kernel
 * made (views), known only then. */
static void
hook_step(void *ctx, int fn, int i, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	struct gp_profile *p = ctx;
	struct gp_prof_apply *a = &p->fn[fn].ap[i];

	for (int k = 0; k < a->n_in; k++) {
		memcpy(a->in[k].strides, in[k]->strides,
		    sizeof(a->in[k].strides));
		a->in[k].strides_known = in[k]->storage != NULL;
	}
	for (int k = 0; k < a->n_out; k++) {
		memcpy(a->out[k].strides, out[k]->strides,
		    sizeof(a->out[k].strides));
		a->out[k].strides_known = out[k]->storage != NULL;
	}
}


/* After a call: its stamps folded into the counters. */
static void
hook_end(void *ctx, int fn, bool stamped, uint64_t call_ns, uint64_t vm_ns)
{
	struct gp_profile *p = ctx;

	(stamped ? gp_prof_fold : gp_prof_fold_untimed)(p, fn, call_ns,
	    vm_ns);
}

struct gp_vm_hook
gp_profile_hook(struct gp_profile *p)
{
	return ((struct gp_vm_hook){
		.ctx = p,
		.link = hook_link,
		.begin = hook_begin,
		.step = hook_step,
		.end = hook_end,
	});
}
