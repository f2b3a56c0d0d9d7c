/*
 * onnx-build.c: the ONNX front-end (see onnx-build.h): inputs, initializers
 * and constants into variables, nodes through the mapping table into gptop
 * nodes, constant folding while building, the one function "run"; and
 * the files that give inputs their values.
 */
#include "config.h"

#include "load/onnx-build.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load/graph-json.h"
#include "load/npy.h"
#include "load/onnx-map.h"
#include "graph/build.h"
#include "graph/prov.h"
#include "graph/op.h"
#include "base/rng.h"

/* ONNX names to variables: open addressing over the names. */
struct namemap {
	const char	**key;
	int		 *val;
	size_t		  cap, n;
};

struct gp_onnxb {
	struct gp_onnx_model		*m;
	const struct gp_onnx_build_opts	*o;
	struct gp_graph			*g;
	struct gp_err			*err;
	struct gp_onnx_why		*why;
	struct namemap			 names;
	bool				*fed;	/* per variable: a file's value */
	size_t				 cap_fed;
	/* the node being built */
	const Onnx__NodeProto		*np;
	size_t				 ni;
	const struct gp_onnx_map	*e;
	char				*base;	/* its name in the profile */
	size_t				 first_node;
	int				 res[GP_MAX_OUT];
	int				 n_made;
};

static uint64_t
name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (h);
}

static void
names_put(struct namemap *nm, const char *k, int v)
{
	size_t i;

	if (2 * (nm->n + 1) > nm->cap) {
		struct namemap big = {0};

		big.cap = nm->cap ? 2 * nm->cap : 64;
		big.key = gp_xcalloc(big.cap, sizeof(*big.key));
		big.val = gp_xcalloc(big.cap, sizeof(*big.val));
		for (i = 0; i < nm->cap; i++)
			if (nm->key[i] != NULL)
				names_put(&big, nm->key[i], nm->val[i]);
		free(nm->key);
		free(nm->val);
		*nm = big;
	}
	for (i = name_hash(k) & (nm->cap - 1); nm->key[i] != NULL;
	    i = (i + 1) & (nm->cap - 1))
		if (strcmp(nm->key[i], k) == 0) {
			nm->val[i] = v;
			return;
		}
	nm->key[i] = k;
	nm->val[i] = v;
	nm->n++;
}

static int
names_get(const struct namemap *nm, const char *k)
{
	if (nm->cap == 0)
		return (-1);
	for (size_t i = name_hash(k) & (nm->cap - 1); nm->key[i] != NULL;
	    i = (i + 1) & (nm->cap - 1))
		if (strcmp(nm->key[i], k) == 0)
			return (nm->val[i]);
	return (-1);
}

static const char *
str(const char *s)
{
	return (s != NULL ? s : "");
}

/* The builder's calls, for the table's translations */

const Onnx__NodeProto *
gp_onnxb_node(const struct gp_onnxb *b)
{
	return (b->np);
}

int64_t
gp_onnxb_opset(const struct gp_onnxb *b)
{
	return (b->m->opset);
}

struct gp_graph *
gp_onnxb_graph(struct gp_onnxb *b)
{
	return (b->g);
}

int
gp_onnxb_n_in(const struct gp_onnxb *b)
{
	return ((int)b->np->n_input);
}

int
gp_onnxb_n_out(const struct gp_onnxb *b)
{
	return ((int)b->np->n_output);
}

int
gp_onnxb_in(const struct gp_onnxb *b, int k)
{
	if (k < 0 || (size_t)k >= b->np->n_input ||
	    str(b->np->input[k])[0] == '\0')
		return (-1);
	return (names_get(&b->names, b->np->input[k]));
}

const struct gp_type *
gp_onnxb_type(const struct gp_onnxb *b, int v)
{
	return (&b->g->vars[v].type);
}

static void
node_where(const struct gp_onnxb *b, struct gp_buf *w)
{
	gp_buf_printf(w, "%s: node %zu '", b->m->path, b->ni);
	gp_buf_put_text(w, str(b->np->name));
	gp_buf_printf(w, "' (%s, opset %" PRId64 ")", str(b->np->op_type),
	    b->m->opset);
}

int
gp_onnxb_fail(struct gp_onnxb *b, const char *fmt, ...)
{
	struct gp_buf w = {0};
	char msg[GP_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	node_where(b, &w);
	gp_err_set(b->err, "%s: %s", gp_buf_str(&w), msg);
	gp_buf_free(&w);
	return (-1);
}

int
gp_onnxb_unsupported(struct gp_onnxb *b, const char *fmt, ...)
{
	struct gp_buf w = {0};
	char msg[GP_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	node_where(b, &w);
	gp_err_set(b->err, "%s: not supported: %s", gp_buf_str(&w), msg);
	gp_buf_free(&w);
	if (b->why != NULL)
		snprintf(b->why->unsupported, sizeof(b->why->unsupported),
		    "%.40s: %.80s", str(b->np->op_type), msg);
	return (-1);
}

static void
mark_fed(struct gp_onnxb *b, int v, bool fed)
{
	if ((size_t)v >= b->cap_fed) {
		size_t old = b->cap_fed;

		b->cap_fed = 2 * (size_t)v + 64;
		b->fed = gp_xrealloc(b->fed, b->cap_fed * sizeof(bool));
		memset(b->fed + old, 0, (b->cap_fed - old) * sizeof(bool));
	}
	b->fed[v] = fed;
}

/* An initializer that is a shape, axes or indices (integers, at most 64
 * of them): read once when the model is built, like a constant. */
static bool
shape_like(const struct gp_var *v)
{
	return (v->kind == GP_VAR_SHARED && (gp_dtype_is_int(v->type.dtype) ||
	    v->type.dtype == GP_BOOL) &&
	    gp_shape_numel(v->type.ndim, v->type.shape) <= 64);
}

/* An initializer that is a shape, axes or indices (integers, at most 64
 * of them) is read once when the model is built, like a constant: a node
 * whose inputs are all constants or such is computed then
 * (gp_graph_fold_node), its outputs constants. */
static bool
known_value(const struct gp_graph *g, int v, void *ctx)
{
	(void)ctx;
	return (shape_like(&g->vars[v]));
}

/* The locator of a gptop node the table makes: its op's name (the
 * message is then "OP: WHAT", under the ONNX node's place). */
static void
apply_where(void *ctx, const struct gp_graph *g,
    const struct gp_graph_site *site, struct gp_buf *w)
{
	(void)g;
	(void)site;
	gp_buf_puts(w, (const char *)ctx);
}

int
gp_onnxb_apply_n(struct gp_onnxb *b, const char *opname, json_t *params,
    int n, const int *in, int n_out, int *outs)
{
	const struct gp_op *op = gp_op_find(opname);
	const struct gp_graph_locator loc = {apply_where, (void *)opname};
	struct gp_err e;
	char *name;
	int i;

	if (op == NULL) {
		json_decref(params);
		return (gp_onnxb_fail(b, "gptop has no op '%s'", opname));
	}
	name = gp_xasprintf("%s/%s", b->base, opname);
	i = gp_graph_declare_node(b->g, &(struct gp_node_decl){.op = op,
	    .params = params, .name = name, .n_in = n, .in = in,
	    .n_out = n_out, .family = b->e->family}, &e);
	free(name);
	if (i < 0)
		return (gp_onnxb_fail(b, "%s: %s", opname, e.msg));
	if (gp_graph_prepare_at(b->g, i, &loc, &e) < 0)
		return (gp_onnxb_fail(b, "%s", e.msg));
	b->n_made++;
	gp_graph_fold_node(b->g, i, known_value, NULL);
	for (int k = 0; k < n_out; k++)
		outs[k] = b->g->nodes[i].out[k];
	return (0);
}

int
gp_onnxb_apply(struct gp_onnxb *b, const char *opname, json_t *params,
    int n, const int *in)
{
	int v;

	if (gp_onnxb_apply_n(b, opname, params, n, in, 1, &v) < 0)
		return (-1);
	return (v);
}

int
gp_onnxb_const(struct gp_onnxb *b, enum gp_dtype dt, int ndim,
    const int64_t *shape, const void *data)
{
	struct gp_type t = {.dtype = dt, .ndim = ndim};
	struct gp_tensor *x;
	int v;

	for (int d = 0; d < ndim; d++)
		t.shape[d] = shape[d];
	if (gp_type_nbytes(&t) > b->m->limit)
		return (gp_onnxb_fail(b, "a constant of %zu bytes is over the "
		    "memory limit of %" PRIu64 " bytes (flag memory_limit)",
		    gp_type_nbytes(&t), b->m->limit));
	v = gp_graph_add_var(b->g, NULL, GP_VAR_CONSTANT, &t);
	x = gp_graph_alloc_value(b->g, v, false);
	if (gp_type_nbytes(&t) > 0)
		memcpy(gp_tensor_data(x), data, gp_type_nbytes(&t));
	return (v);
}

int
gp_onnxb_scalar(struct gp_onnxb *b, enum gp_dtype dt, double x)
{
	char buf[16];

	gp_dtype_store(buf, dt, x);
	return (gp_onnxb_const(b, dt, 0, NULL, buf));
}

int
gp_onnxb_cast(struct gp_onnxb *b, int v, enum gp_dtype dt)
{
	if (v < 0 || b->g->vars[v].type.dtype == dt)
		return (v);
	return (gp_onnxb_apply(b, "cast", json_pack("{s:s}", "dtype",
	    gp_dtype_name(dt)), 1, &v));
}

const struct gp_tensor *
gp_onnxb_value(struct gp_onnxb *b, int v, const char *what)
{
	const struct gp_var *var;

	if (v < 0) {
		gp_onnxb_fail(b, "%s is missing", what);
		return (NULL);
	}
	var = &b->g->vars[v];
	if (var->value.storage != NULL && (var->kind == GP_VAR_CONSTANT ||
	    var->kind == GP_VAR_SHARED ||
	    ((size_t)v < b->cap_fed && b->fed[v])))
		return (&var->value);
	/* a shape computed from an input's values: gptop's shapes are
	 * static */
	gp_onnxb_unsupported(b, "%s ('%s') must be known when the model is "
	    "built: a constant, an initializer, a value computed from those "
	    "and the bound dims, or a graph input given with --input", what,
	    var->name);
	return (NULL);
}

int
gp_onnxb_ints(struct gp_onnxb *b, int v, const char *what, int64_t *out,
    int max)
{
	const struct gp_tensor *t = gp_onnxb_value(b, v, what);
	int64_t n;

	if (t == NULL)
		return (-1);
	if (!gp_dtype_is_int(t->dtype))
		return (gp_onnxb_fail(b, "%s must be integers, not %s", what,
		    gp_dtype_name(t->dtype)));
	n = gp_tensor_numel(t);
	if (t->ndim > 1 || n > max)
		return (gp_onnxb_fail(b, "%s: expected a list of at most %d "
		    "integers", what, max));
	for (int64_t i = 0; i < n; i++) {
		const char *p = t->storage->data + t->offset +
		    i * (t->ndim ? t->strides[0] : 0);

		switch (t->dtype) {
		case GP_INT64:
			memcpy(&out[i], p, 8);
			break;
		case GP_UINT64: {
			uint64_t u;

			memcpy(&u, p, 8);
			out[i] = u > INT64_MAX ? INT64_MAX : (int64_t)u;
			break;
		}
		default:
			out[i] = (int64_t)gp_dtype_load(p, t->dtype);
		}
	}
	return ((int)n);
}

void
gp_onnxb_set_out(struct gp_onnxb *b, int k, int v)
{
	if (k < GP_MAX_OUT)
		b->res[k] = v;
}

/* Building */

static int
add_named(struct gp_onnxb *b, const char *name, enum gp_var_kind kind,
    const struct gp_type *t)
{
	int v;

	if (gp_graph_find_var(b->g, name) >= 0) {
		v = gp_graph_add_var(b->g, NULL, kind, t);
		gp_graph_rename_var(b->g, v, name);
	} else
		v = gp_graph_add_var(b->g, name, kind, t);
	names_put(&b->names, b->g->vars[v].name, v);
	if (strcmp(b->g->vars[v].name, name) != 0)
		names_put(&b->names, name, v);
	return (v);
}

/* a TensorProto's type */
static int
tensor_type(struct gp_onnxb *b, const Onnx__TensorProto *t, const char *what,
    struct gp_type *ty)
{
	if (!gp_onnx_dtype_to_gp(t->data_type, &ty->dtype)) {
		if (b->why != NULL)
			snprintf(b->why->unsupported,
			    sizeof(b->why->unsupported), "dtype %s",
			    gp_onnx_dtype_name(t->data_type));
		return (gp_err_set(b->err, "%s: %s '%s': not supported: "
		    "dtype %s (gptop computes in float32, float64, "
		    "int8..int64, uint8..uint64 and bool)", b->m->path, what,
		    str(t->name), gp_onnx_dtype_name(t->data_type)));
	}
	if (t->n_dims > GP_MAX_DIMS)
		return (gp_err_set(b->err, "%s: %s '%s': %zu dimensions, gptop "
		    "handles at most %d", b->m->path, what, str(t->name),
		    t->n_dims, GP_MAX_DIMS));
	ty->ndim = (int)t->n_dims;
	for (size_t d = 0; d < t->n_dims; d++)
		ty->shape[d] = t->dims[d];
	if (!gp_shape_nbytes(ty->ndim, ty->shape, ty->dtype, &(size_t){0}))
		return (gp_err_set(b->err, "%s: %s '%s': its dimensions "
		    "overflow (numpy's rule: the non-zero ones multiply past "
		    "2^63 bytes)", b->m->path, what, str(t->name)));
	return (0);
}

/* A tensor's values into a new variable of the given kind. */
static int
tensor_var(struct gp_onnxb *b, const Onnx__TensorProto *t, const char *name,
    enum gp_var_kind kind, const char *what)
{
	struct gp_storage *st;
	struct gp_tensor *x;
	struct gp_type ty;
	int v;

	if (tensor_type(b, t, what, &ty) < 0)
		return (-1);
	v = name != NULL ? add_named(b, name, kind, &ty) :
	    gp_graph_add_var(b->g, NULL, kind, &ty);
	if (t->raw_data.len == gp_type_nbytes(&ty) &&
	    (st = gp_onnx_tensor_storage(b->m, t)) != NULL) {
		/* the reader decoded the bytes into a storage: adopt it */
		struct gp_tensor a = {.storage = st, .dtype = ty.dtype,
		    .ndim = ty.ndim};

		memcpy(a.shape, ty.shape, sizeof(int64_t) * (size_t)ty.ndim);
		gp_shape_strides(ty.ndim, ty.shape, gp_dtype_size(ty.dtype),
		    a.strides);
		if (gp_graph_set_value(b->g, v, &a, b->err) < 0) {
			gp_tensor_release(&a);
			return (-1);
		}
		return (v);
	}
	x = gp_graph_alloc_value(b->g, v, false);
	if (gp_type_nbytes(&ty) > 0 && gp_onnx_tensor_read(b->m, t,
	    gp_tensor_data(x), b->err) < 0)
		return (-1);
	return (v);
}

/* A Constant node: its value attribute becomes a constant. */
static int
build_constant(struct gp_onnxb *b)
{
	const Onnx__NodeProto *np = b->np;
	const Onnx__AttributeProto *a;
	int v = -1;

	for (size_t i = 0; i < np->n_attribute; i++) {
		a = np->attribute[i];
		if (strcmp(str(a->name), "value") == 0 && a->t != NULL) {
			v = tensor_var(b, a->t, NULL, GP_VAR_CONSTANT,
			    "constant");
			if (v < 0) {
				gp_err_prefix(b->err, "node %zu '%s' "
				    "(Constant)", b->ni, str(np->name));
				return (-1);
			}
		} else if (strcmp(str(a->name), "value_float") == 0) {
			v = gp_onnxb_scalar(b, GP_FLOAT32, a->f);
		} else if (strcmp(str(a->name), "value_int") == 0) {
			v = gp_onnxb_const(b, GP_INT64, 0, NULL, &a->i);
		} else if (strcmp(str(a->name), "value_floats") == 0) {
			int64_t n = (int64_t)a->n_floats;

			v = gp_onnxb_const(b, GP_FLOAT32, 1, &n, a->floats);
		} else if (strcmp(str(a->name), "value_ints") == 0) {
			int64_t n = (int64_t)a->n_ints;

			v = gp_onnxb_const(b, GP_INT64, 1, &n, a->ints);
		} else
			return (gp_onnxb_unsupported(b, "Constant with "
			    "attribute '%s'", str(a->name)));
		if (v < 0)
			return (-1);
	}
	if (v < 0)
		return (gp_onnxb_fail(b, "a Constant with no value"));
	b->res[0] = v;
	return (0);
}

static int
build_node(struct gp_onnxb *b)
{
	const Onnx__NodeProto *np = b->np;
	const struct gp_onnx_map *any = NULL;
	const char *dom = str(np->domain);
	struct gp_buf lb = {0};
	int rc, main_node;

	if (dom[0] != '\0' && strcmp(dom, "ai.onnx") != 0)
		return (gp_onnxb_unsupported(b, "ops of domain '%s' are not "
		    "supported", dom));
	for (size_t k = 0; k < np->n_input; k++)
		if (str(np->input[k])[0] != '\0' &&
		    names_get(&b->names, np->input[k]) < 0)
			return (gp_onnxb_fail(b, "input %zu '%s' is not "
			    "defined", k, np->input[k]));
	for (int k = 0; k < GP_MAX_OUT; k++)
		b->res[k] = -1;
	b->first_node = b->g->n_nodes;
	b->n_made = 0;
	free(b->base);
	b->base = str(np->name)[0] != '\0' ? gp_xstrdup(np->name) :
	    gp_xasprintf("%s_%zu", str(np->op_type), b->ni);
	if (strcmp(str(np->op_type), "Constant") == 0) {
		static const struct gp_onnx_map cst = {.op_type = "Constant",
		    .family = "Shape"};

		b->e = &cst;
		rc = build_constant(b);
	} else {
		b->e = gp_onnx_map_find(str(np->op_type), b->m->opset, &any);
		if (b->e == NULL && any != NULL) {
			b->e = any;
			return (gp_onnxb_unsupported(b, "%s is supported from "
			    "opset %d to %d only", np->op_type, any->since,
			    any->until));
		}
		if (b->e == NULL) {
			static const struct gp_onnx_map none = {.family = ""};

			b->e = &none;
			return (gp_onnxb_unsupported(b, "op type %s is not "
			    "supported (doc/onnx.md lists the supported ops)",
			    str(np->op_type)));
		}
		rc = b->e->build(b, b->e);
		if (rc == 0 && b->e->rule == GP_ONNX_OUT_SAME &&
		    b->res[0] >= 0 && gp_onnxb_in(b, 0) >= 0)
			b->res[0] = gp_onnxb_cast(b, b->res[0],
			    b->g->vars[gp_onnxb_in(b, 0)].type.dtype);
	}
	if (rc < 0)
		return (-1);
	for (size_t k = 0; k < np->n_output; k++) {
		int v = k < GP_MAX_OUT ? b->res[k] : -1;

		if (str(np->output[k])[0] == '\0')
			continue;
		if (v < 0)
			return (gp_onnxb_unsupported(b, "output %zu ('%s') is "
			    "not computed by gptop", k, np->output[k]));
		if (b->g->vars[v].kind == GP_VAR_TEMP ||
		    (b->g->vars[v].kind == GP_VAR_CONSTANT &&
		    b->g->vars[v].name[0] == '_'))
			gp_graph_rename_var(b->g, v, np->output[k]);
		names_put(&b->names, np->output[k], v);
	}
	/* the node of the entry's first gptop op (else the one computing
	 * output 0) shows as the ONNX node */
	main_node = -1;
	for (size_t i = b->first_node; i < b->g->n_nodes && main_node < 0 &&
	    b->e->gp != NULL; i++) {
		const char *op = b->g->nodes[i].op->name;
		size_t len = strlen(op);

		if (!b->g->nodes[i].dead && strncmp(b->e->gp, op, len) == 0 &&
		    (b->e->gp[len] == '\0' || b->e->gp[len] == ','))
			main_node = (int)i;
	}
	if (main_node < 0 && b->res[0] >= 0)
		main_node = b->g->vars[b->res[0]].producer;
	if (main_node >= 0 && (size_t)main_node >= b->first_node) {
		gp_onnx_map_label(b->e, np, &lb);
		gp_graph_label_node(b->g, main_node, b->base, gp_buf_str(&lb));
		gp_buf_free(&lb);
	}
	/* provenance: every gptop node made for it does the ONNX node's
	 * work; folded ones did it at load time (graph/prov.h) */
	for (size_t i = b->first_node; i < b->g->n_nodes; i++) {
		int id = gp_prov_source(b->g, b->base, (int)b->ni);

		if (b->g->nodes[i].dead)
			gp_prov_fold(b->g, &id, 1);
		else
			gp_prov_node_add(&b->g->nodes[i], id);
	}
	return (0);
}

static int
find_feed(const struct gp_onnx_build_opts *o, const char *name)
{
	for (int i = 0; i < o->n_feeds; i++)
		if (strcmp(o->feeds[i].name, name) == 0)
			return (i);
	return (-1);
}

/* Bind the dims: the caller's, then those the feeds' shapes give. */
static int
bind_dims(struct gp_onnx_model *m, const struct gp_onnx_build_opts *o,
    struct gp_err *err)
{
	struct gp_onnx_binding *bd = gp_xcalloc((size_t)o->n_dims +
	    (size_t)m->n_syms + 1, sizeof(*bd));
	int n = o->n_dims, rc;

	if (o->n_dims > 0)
		memcpy(bd, o->dims, sizeof(*bd) * (size_t)o->n_dims);
	for (int i = 0; i < m->n_inputs; i++) {
		const struct gp_onnx_io *io = &m->inputs[i];
		int f = find_feed(o, io->name);

		if (f < 0 || io->ndim != o->feeds[f].value.ndim)
			continue;
		for (int d = 0; d < io->ndim; d++) {
			const char *p = io->dims[d].param;
			bool have = false;

			if (p == NULL)
				continue;
			for (int k = 0; k < n && !have; k++)
				have = strncmp(bd[k].name, p, strlen(p)) == 0 &&
				    (bd[k].name[strlen(p)] == '\0' ||
				    bd[k].name[strlen(p)] == '=');
			if (!have) {
				bd[n].name = p;
				bd[n++].value = o->feeds[f].value.shape[d];
			}
		}
	}
	rc = gp_onnx_bind(m, bd, n, err);
	free(bd);
	return (rc);
}

static void
type_str(struct gp_buf *b, enum gp_dtype dt, int ndim, const int64_t *shape)
{
	gp_buf_printf(b, "%s ", gp_dtype_name(dt));
	gp_shape_format(b, ndim, shape);
}

static int
add_inputs(struct gp_onnxb *b)
{
	struct gp_onnx_model *m = b->m;
	const struct gp_onnx_build_opts *o = b->o;

	for (int i = 0; i < o->n_feeds; i++) {
		int k;

		for (k = 0; k < m->n_inputs; k++)
			if (strcmp(m->inputs[k].name, o->feeds[i].name) == 0)
				break;
		if (k == m->n_inputs)
			return (gp_err_set(b->err, "%s: --input %s: the model "
			    "has no input of that name", m->path,
			    o->feeds[i].name));
	}
	for (int i = 0; i < m->n_inputs; i++) {
		const struct gp_onnx_io *io = &m->inputs[i];
		struct gp_type t = {.ndim = io->ndim};
		struct gp_tensor x = {0};
		int f = find_feed(o, io->name), v;

		if (!gp_onnx_dtype_to_gp(io->elem_type, &t.dtype))
			return (gp_err_set(b->err, "%s: input '%s': not "
			    "supported: dtype %s", m->path, io->name,
			    gp_onnx_dtype_name(io->elem_type)));
		if (io->ndim > GP_MAX_DIMS)
			return (gp_err_set(b->err, "%s: input '%s': %d "
			    "dimensions, gptop handles at most %d", m->path,
			    io->name, io->ndim, GP_MAX_DIMS));
		for (int d = 0; d < io->ndim; d++)
			t.shape[d] = io->shape[d];
		if (!gp_shape_nbytes(t.ndim, t.shape, t.dtype, &(size_t){0}))
			return (gp_err_set(b->err, "%s: input '%s': its "
			    "dimensions overflow (numpy's rule: the non-zero "
			    "ones multiply past 2^63 bytes)", m->path,
			    io->name));
		v = add_named(b, io->name, GP_VAR_INPUT, &t);
		if (f >= 0) {
			const struct gp_tensor *fv = &o->feeds[f].value;
			bool same = fv->ndim == t.ndim && fv->dtype == t.dtype;

			for (int d = 0; same && d < t.ndim; d++)
				same = fv->shape[d] == t.shape[d];
			if (!same) {
				struct gp_buf hb = {0}, wb = {0};

				type_str(&hb, fv->dtype, fv->ndim, fv->shape);
				type_str(&wb, t.dtype, t.ndim, t.shape);
				gp_err_set(b->err, "%s: input '%s': %s holds "
				    "%s, but the model's input is %s",
				    m->path, io->name, o->feeds[f].from,
				    gp_buf_str(&hb), gp_buf_str(&wb));
				gp_buf_free(&hb);
				gp_buf_free(&wb);
				return (-1);
			}
			gp_tensor_copy(&x, fv);
			mark_fed(b, v, true);
		} else
			gp_onnx_random_input(&x, t.dtype, t.ndim, t.shape,
			    (uint64_t)i + 1);
		if (gp_graph_set_value(b->g, v, &x, b->err) < 0) {
			gp_tensor_release(&x);
			return (-1);
		}
	}
	return (0);
}

struct gp_graph *
gp_onnx_build(struct gp_onnx_model *m, const struct gp_onnx_build_opts *o,
    struct gp_onnx_why *why, struct gp_err *err)
{
	const Onnx__GraphProto *gr = m->graph;
	struct gp_onnxb b = {.m = m, .o = o, .err = err, .why = why};
	int rc = 0, *outs = NULL;

	if (why != NULL)
		why->unsupported[0] = '\0';
	for (int i = 0; i < m->n_outputs && why != NULL; i++)
		if (m->outputs[i].elem_type != 0 &&
		    !gp_onnx_dtype_to_gp(m->outputs[i].elem_type,
		    &(enum gp_dtype){0}))
			snprintf(why->unsupported, sizeof(why->unsupported),
			    "dtype %s", gp_onnx_dtype_name(
			    m->outputs[i].elem_type));
	if (gp_onnx_check_dtypes(m, err) < 0) {
		if (why != NULL && why->unsupported[0] == '\0')
			snprintf(why->unsupported, sizeof(why->unsupported),
			    "%s", strstr(err->msg, "dtype") != NULL ?
			    strstr(err->msg, "dtype") : "a non-tensor value");
		return (NULL);
	}
	if (bind_dims(m, o, err) < 0)
		return (NULL);
	b.g = gp_graph_new(str(gr->name)[0] != '\0' ? gr->name : "onnx");
	gp_graph_set_source(b.g, &(struct gp_graph_source){.path = m->path,
	    .dir = m->dir, .limit_bytes = m->limit,
	    .allow_extern = o->allow_extern});
	gp_graph_reserve_vars(b.g, gr->n_initializer + gr->n_node * 2 +
	    (size_t)m->n_inputs + 8);
	if (add_inputs(&b) < 0)
		goto fail;
	for (size_t i = 0; i < gr->n_initializer; i++) {
		if (names_get(&b.names, str(gr->initializer[i]->name)) >= 0)
			continue;	/* an input of the same name wins */
		if (tensor_var(&b, gr->initializer[i],
		    str(gr->initializer[i]->name), GP_VAR_SHARED,
		    "initializer") < 0)
			goto fail;
	}
	if (gr->n_sparse_initializer > 0) {
		if (why != NULL)
			snprintf(why->unsupported, sizeof(why->unsupported),
			    "sparse initializers");
		gp_err_set(err, "%s: not supported: sparse initializers",
		    m->path);
		goto fail;
	}
	for (size_t i = 0; i < gr->n_node && rc == 0; i++) {
		b.np = gr->node[i];
		b.ni = i;
		rc = build_node(&b);
	}
	if (rc < 0)
		goto fail;
	outs = gp_xcalloc((size_t)m->n_outputs + 1, sizeof(int));
	for (int i = 0; i < m->n_outputs; i++) {
		int v = names_get(&b.names, m->outputs[i].name);

		if (v < 0) {
			gp_err_set(err, "%s: graph output '%s' is not "
			    "computed", m->path, m->outputs[i].name);
			goto fail;
		}
		outs[i] = v;
	}
	if (gp_graph_add_function(b.g, "run", m->n_outputs, outs, 0, NULL,
	    err) < 0)
		goto fail;
	free(outs);
	gp_graph_compact(b.g);
	free(b.base);
	free(b.names.key);
	free(b.names.val);
	free(b.fed);
	return (b.g);
fail:
	free(outs);
	gp_graph_free(b.g);
	free(b.base);
	free(b.names.key);
	free(b.names.val);
	free(b.fed);
	return (NULL);
}

/* Inputs' values */

void
gp_onnx_random_input(struct gp_tensor *t, enum gp_dtype dt, int ndim,
    const int64_t *shape, uint64_t seed)
{
	struct gp_rng r;
	int64_t n;
	size_t es = gp_dtype_size(dt);
	char *p;

	gp_tensor_alloc(t, dt, ndim, shape);
	gp_rng_seed(&r, seed);
	n = gp_tensor_numel(t);
	p = gp_tensor_data(t);
	for (int64_t i = 0; i < n; i++, p += es) {
		if (gp_dtype_is_float(dt))
			gp_dtype_store(p, dt, gp_rng_uniform(&r, -1, 1));
		else if (dt == GP_BOOL)
			gp_dtype_store(p, dt, (double)(gp_rng_next(&r) & 1));
		else
			gp_dtype_store(p, dt,
			    (double)gp_rng_integers(&r, 0, 10));
	}
}

static bool
ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return (a >= b && strcmp(s + a - b, suf) == 0);
}

int
gp_onnx_tensor_file(const char *path, uint64_t limit, struct gp_tensor *out,
    struct gp_err *err)
{
	Onnx__TensorProto *tp;
	struct gp_onnx_model fake = {0};
	struct stat st;
	enum gp_dtype dt;
	uint8_t *buf;
	size_t got;
	int fd, rc = 0;
	char *slash;

	if (limit == 0)
		limit = gp_graph_default_limit();
	if (ends_with(path, ".npy"))
		return (gp_npy_read_limit(path, limit, out, err));
	if ((fd = gp_open_regular(path, "a .npy or TensorProto .pb file", &st,
	    err)) < 0)
		return (-1);
	if ((uint64_t)st.st_size > limit + 4096) {
		close(fd);
		return (gp_err_set(err, "%s: %lld bytes, over the memory limit "
		    "of %" PRIu64 " bytes (flag memory_limit)", path,
		    (long long)st.st_size, limit));
	}
	buf = gp_xmalloc((size_t)st.st_size + 1);
	got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	tp = onnx__tensor_proto__unpack(NULL, got, buf);
	free(buf);
	if (tp == NULL)
		return (gp_err_set(err, "%s: not a .npy file nor an ONNX "
		    "TensorProto (the protobuf does not decode)", path));
	if (!gp_onnx_dtype_to_gp(tp->data_type, &dt)) {
		rc = gp_err_set(err, "%s: not supported: dtype %s", path,
		    gp_onnx_dtype_name(tp->data_type));
		goto out;
	}
	if (tp->n_dims > GP_MAX_DIMS) {
		rc = gp_err_set(err, "%s: %zu dimensions, gptop handles at "
		    "most %d", path, tp->n_dims, GP_MAX_DIMS);
		goto out;
	}
	for (size_t d = 0; d < tp->n_dims; d++)
		if (tp->dims[d] < 0) {
			rc = gp_err_set(err, "%s: dimension %zu is negative",
			    path, d);
			goto out;
		}
	if (gp_onnx_tensor_nbytes(tp) > limit) {
		rc = gp_err_set(err, "%s: %" PRIu64 " bytes of values, over "
		    "the memory limit of %" PRIu64 " bytes (flag "
		    "memory_limit)", path, gp_onnx_tensor_nbytes(tp), limit);
		goto out;
	}
	fake.path = (char *)path;
	fake.dir = gp_xstrdup(path);
	if ((slash = strrchr(fake.dir, '/')) != NULL)
		*slash = '\0';
	else
		strcpy(fake.dir, ".");
	fake.limit = limit;
	{
		int64_t shape[GP_MAX_DIMS];
		struct gp_tensor t = {0};

		for (size_t d = 0; d < tp->n_dims; d++)
			shape[d] = tp->dims[d];
		gp_tensor_alloc(&t, dt, (int)tp->n_dims, shape);
		if (gp_tensor_nbytes(&t) > 0 && gp_onnx_tensor_read(&fake, tp,
		    gp_tensor_data(&t), err) < 0) {
			gp_tensor_release(&t);
			rc = -1;
		} else
			*out = t;
	}
	free(fake.dir);
out:
	onnx__tensor_proto__free_unpacked(tp, NULL);
	return (rc);
}

/* "A=B:C=D" into pairs (the strings point into a copy, *owned). */
static int
split_pairs(const char *s, const char *what, char **owned, char ***names,
    char ***vals, int *n, struct gp_err *err)
{
	char *p, *tok, *save = NULL;
	int cap = 1;

	*owned = gp_xstrdup(s != NULL ? s : "");
	for (p = *owned; *p != '\0'; p++)
		cap += *p == ':';
	*names = gp_xcalloc((size_t)cap, sizeof(char *));
	*vals = gp_xcalloc((size_t)cap, sizeof(char *));
	*n = 0;
	for (tok = strtok_r(*owned, ":", &save); tok != NULL;
	    tok = strtok_r(NULL, ":", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL || eq == tok || eq[1] == '\0')
			return (gp_err_set(err, "%s: '%s': expected NAME=%s",
			    what, tok, strcmp(what, "--dim") == 0 ? "VALUE" :
			    "FILE"));
		(*names)[*n] = tok;
		(*vals)[(*n)++] = eq + 1;
		*eq = '\0';
	}
	return (0);
}

struct gp_graph *
gp_onnx_load(const char *path, const struct gp_onnx_load_opts *o,
    struct gp_err *err)
{
	struct gp_onnx_opts ro = {.limit_bytes = o->limit_bytes};
	struct gp_onnx_model *m;
	struct gp_onnx_binding *bd = NULL;
	struct gp_onnx_feed *feeds = NULL;
	struct gp_onnx_build_opts bo = {.allow_extern = o->allow_extern};
	char *own_d = NULL, *own_i = NULL, **dn = NULL, **dv = NULL;
	char **in_n = NULL, **in_v = NULL, **paths = NULL;
	struct gp_graph *g = NULL;
	int nd = 0, ni = 0, nf = 0;

	if ((m = gp_onnx_read(path, &ro, err)) == NULL)
		return (NULL);
	if (split_pairs(o->dims, "--dim", &own_d, &dn, &dv, &nd, err) < 0 ||
	    split_pairs(o->inputs, "--input", &own_i, &in_n, &in_v, &ni,
	    err) < 0)
		goto out;
	bd = gp_xcalloc((size_t)nd + 1, sizeof(*bd));
	for (int i = 0; i < nd; i++) {
		char *arg = gp_xasprintf("%s=%s", dn[i], dv[i]);
		struct gp_onnx_binding one;

		if (gp_onnx_binding_parse(arg, &one, err) < 0) {
			free(arg);
			gp_err_prefix(err, "%s", path);
			goto out;
		}
		free(arg);
		bd[i].name = dn[i];
		bd[i].value = one.value;
	}
	feeds = gp_xcalloc((size_t)ni + 1, sizeof(*feeds));
	paths = gp_xcalloc((size_t)ni + 1, sizeof(*paths));
	for (int i = 0; i < ni; i++) {
		/* relative to the working folder, as a shell user means */
		paths[i] = gp_xstrdup(in_v[i]);
		if (gp_onnx_tensor_file(paths[i], m->limit, &feeds[i].value,
		    err) < 0) {
			gp_err_prefix(err, "%s: --input %s", path, in_n[i]);
			goto out;
		}
		feeds[i].name = in_n[i];
		feeds[i].from = paths[i];
		nf++;
	}
	bo.dims = bd;
	bo.n_dims = nd;
	bo.feeds = feeds;
	bo.n_feeds = nf;
	g = gp_onnx_build(m, &bo, NULL, err);
out:
	for (int i = 0; i < nf; i++)
		gp_tensor_release(&feeds[i].value);
	for (int i = 0; i < ni && paths != NULL; i++)
		free(paths[i]);
	free(paths);
	free(feeds);
	free(bd);
	free(dn);
	free(dv);
	free(in_n);
	free(in_v);
	free(own_d);
	free(own_i);
	gp_onnx_free(m);
	return (g);
}
