/*
 * json-nodes.c: the graph file's "nodes": each node's fields, its op
 * (with a suggestion for an unknown one) and params, its outputs named
 * and declared (graph/build.h) before any input is resolved, so a node may
 * read a later node's output; then the inputs resolved by name, literal
 * numbers becoming literal inputs.
 */
#include "config.h"

#include "load/json-loader.h"
#include "load/graph-json.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph/op.h"

static const struct gp_op *const *test_ops;

void
gp_graph_load_set_test_ops(const struct gp_op *const *ops)
{
	test_ops = ops;
}

const struct gp_op *
gp_load_find_op(const char *name)
{
	const struct gp_op *op = gp_op_find(name);

	for (const struct gp_op *const *p = test_ops; op == NULL && p && *p;
	    p++)
		if (strcmp((*p)->name, name) == 0)
			op = *p;
	return (op);
}

/* Nodes. */

static const char *const node_keys[] = {
	"op", "inputs", "outputs", "name", "params", "doc", NULL
};

static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64], prev, cur;

	if (lb >= 64 || la >= 64)
		return (SIZE_MAX);
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t del = row[j] + 1, ins = row[j - 1] + 1;
			size_t sub = prev + (a[i - 1] != b[j - 1]);

			cur = del < ins ? del : ins;
			cur = cur < sub ? cur : sub;
			prev = row[j];
			row[j] = cur;
		}
	}
	return (row[lb]);
}

static int
unknown_op(struct loader *L, struct where w, size_t i, const char *name)
{
	const struct gp_op *const *all;
	const char *best = NULL;
	size_t n, bd = 3;

	all = gp_op_all(&n);
	for (size_t k = 0; k < n; k++) {
		size_t d = edit_distance(name, all[k]->name);

		if (d < bd) {
			bd = d;
			best = all[k]->name;
		}
	}
	for (const struct gp_op *const *p = test_ops; p && *p; p++) {
		size_t d = edit_distance(name, (*p)->name);

		if (d < bd) {
			bd = d;
			best = (*p)->name;
		}
	}
	if (best != NULL && bd < strlen(name))
		return (gp_load_fail(L, w, false,
		    "%s: unknown op '%s' (did you mean "
		    "'%s'? `gptop --list-ops` lists every op)",
		    gp_load_node_label(L, i), name, best));
	return (gp_load_fail(L, w, false,
	    "%s: unknown op '%s' (`gptop --list-ops` lists every op)",
	    gp_load_node_label(L, i), name));
}

/* A node object's fields, found in one pass over its keys. */
struct node_fields {
	json_t		*op, *inputs, *outputs, *name, *params, *doc;
	bool		 unknown;
};

static void
get_node_fields(const json_t *jn, struct node_fields *f)
{
	const char *key;
	json_t *v;

	memset(f, 0, sizeof(*f));
	json_object_foreach((json_t *)jn, key, v) {
		if (strcmp(key, "op") == 0)
			f->op = v;
		else if (strcmp(key, "inputs") == 0)
			f->inputs = v;
		else if (strcmp(key, "outputs") == 0)
			f->outputs = v;
		else if (strcmp(key, "name") == 0)
			f->name = v;
		else if (strcmp(key, "params") == 0)
			f->params = v;
		else if (strcmp(key, "doc") == 0)
			f->doc = v;
		else
			f->unknown = true;
	}
}

/* The op called name: nearby nodes often use the same few ops. */
static const struct gp_op *
seen_op(struct loader *L, const char *name)
{
	const unsigned n = sizeof(L->seen_ops) / sizeof(L->seen_ops[0]);
	const struct gp_op *op;

	for (unsigned i = 0; i < n && L->seen_ops[i] != NULL; i++)
		if (strcmp(name, L->seen_ops[i]->name) == 0)
			return (L->seen_ops[i]);
	if ((op = gp_load_find_op(name)) != NULL)
		L->seen_ops[L->n_seen++ % n] = op;
	return (op);
}

/* First pass over one node: its fields, op and named outputs; it joins
 * the graph with its inputs still to resolve. */
static int
load_node(struct loader *L, const json_t *jn, size_t i, const int *pos)
{
	struct gp_graph *g = L->g;
	struct node_fields f;
	const char *outs[GP_MAX_OUT];
	json_t *e, *prev;
	struct gp_err err;
	size_t k, n_out;

	L->cur = i;
	L->cur_name = NULL;
	L->cur_op = NULL;
	if (!json_is_object(jn))
		return (gp_load_fail(L, NODE_W(i), false,
		    "%s: expected an object like "
		    "{\"op\": \"add\", \"inputs\": [\"x\", \"y\"], "
		    "\"outputs\": [\"z\"]}, got %s",
		    gp_load_node_label(L, i), gp_load_show(L, jn)));
	get_node_fields(jn, &f);
	/* the op first, for the label of later messages */
	if (json_is_string(f.op))
		L->cur_op = seen_op(L, json_string_value(f.op));

	if ((e = f.name) != NULL) {
		if (!json_is_string(e))
			return (gp_load_bad_type(L, FIELD_W(i, "name"),
			    gp_load_node_label(L, i), "name", "a string", e));
		if (gp_load_check_name(L, json_string_value(e),
			FIELD_W(i, "name"), false, "node name") < 0)
			return (-1);
		prev = json_object_get(L->node_names, json_string_value(e));
		if (prev != NULL)
			return (gp_load_fail(L, FIELD_W(i, "name"), false,
			    "%s: duplicate node name '%s' (node %lld has it): "
			    "expected each node's name to be unique",
			    gp_load_node_label(L, i), json_string_value(e),
			    (long long)json_integer_value(prev)));
		json_object_set_new(L->node_names, json_string_value(e),
		    json_integer((json_int_t)i));
		L->cur_name = json_string_value(e);
	}
	if (f.unknown &&
	    gp_load_check_keys(L, jn, node_keys, NODE_W(i), NULL, i) < 0)
		return (-1);

	if ((e = f.op) == NULL)
		return (gp_load_fail(L, NODE_W(i), false, "%s: missing \"op\": "
		    "expected the name of an op, like \"add\"",
		    gp_load_node_label(L, i)));
	if (!json_is_string(e))
		return (gp_load_bad_type(L, FIELD_W(i, "op"),
		    gp_load_node_label(L, i), "op", "a string naming an op",
		    e));
	if (L->cur_op == NULL)
		return (unknown_op(L, FIELD_W(i, "op"), i,
		    json_string_value(e)));
	if ((e = f.doc) != NULL && !json_is_string(e))
		return (gp_load_bad_type(L, FIELD_W(i, "doc"),
		    gp_load_node_label(L, i), "doc", "a string", e));
	if ((e = f.params) != NULL && !json_is_object(e))
		return (gp_load_bad_type(L, FIELD_W(i, "params"),
		    gp_load_node_label(L, i), "params", "an object", e));

	if ((e = f.inputs) == NULL)
		return (gp_load_fail(L, NODE_W(i), false,
		    "%s: missing \"inputs\": "
		    "expected an array of variable names ([] for none)",
		    gp_load_node_label(L, i)));
	if (!json_is_array(e))
		return (gp_load_bad_type(L, FIELD_W(i, "inputs"),
		    gp_load_node_label(L, i), "inputs",
		    "an array of variable names and literal numbers", e));
	if (json_array_size(e) > INT_MAX / 2)
		return (gp_load_fail(L, FIELD_W(i, "inputs"), false,
		    "%s: too many inputs",
		    gp_load_node_label(L, i)));
	for (k = 0; k < json_array_size(e); k++) {
		json_t *in = json_array_get(e, k);

		if (!json_is_string(in) && !json_is_number(in) &&
		    !json_is_boolean(in))
			return (gp_load_fail(L, ELEM_W(i, "inputs", k), false,
			    "%s: input %zu is %s: expected a variable name or "
			    "a literal number or boolean",
			    gp_load_node_label(L, i), k, gp_load_show(L, in)));
	}
	L->inputs[i] = e;

	if ((e = f.outputs) == NULL)
		return (gp_load_fail(L, NODE_W(i), false,
		    "%s: missing \"outputs\": expected an array of new names",
		    gp_load_node_label(L, i)));
	if (!json_is_array(e) || json_array_size(e) == 0 ||
	    json_array_size(e) > GP_MAX_OUT)
		return (gp_load_bad_type(L, FIELD_W(i, "outputs"),
		    gp_load_node_label(L, i), "outputs",
		    "an array of 1 to 8 new names", e));
	n_out = json_array_size(e);
	for (k = 0; k < n_out; k++) {
		json_t *out = json_array_get(e, k);
		const char *name;
		int v, line = pos[0], col = pos[1];
		bool dup;

		if (!json_is_string(out))
			return (gp_load_fail(L, ELEM_W(i, "outputs", k), false,
			    "%s: output %zu is %s: expected a new name",
			    gp_load_node_label(L, i), k, gp_load_show(L, out)));
		name = json_string_value(out);
		if (!gp_load_name_ok(name) && gp_load_check_name(L, name,
		    ELEM_W(i, "outputs", k), false, "output name") < 0)
			return (-1);
		/* a variable's or an output's, of this node (placed here) or
		 * of another */
		dup = false;
		for (size_t j = 0; j < k && !dup; j++)
			dup = strcmp(outs[j], name) == 0;
		if (!dup && (v = gp_graph_find_var(g, name)) >= 0) {
			dup = true;
			line = g->vars[v].line;
			col = g->vars[v].col;
		}
		if (dup)
			return (gp_load_fail(L, ELEM_W(i, "outputs", k), false,
			    "%s: duplicate name '%s', already defined at "
			    "%d:%d: expected a new name (each variable and "
			    "output name is unique)",
			    gp_load_node_label(L, i), name, line, col));
		outs[k] = name;
	}
	/* params: a copy, as the document goes with its arena */
	e = f.params;
	if (gp_graph_declare_node(g, &(struct gp_node_decl){
	    .op = L->cur_op, .name = L->cur_name,
	    .params = e != NULL ? json_deep_copy(e) :
	    json_incref(L->no_params),
	    .n_in = (int)json_array_size(L->inputs[i]), .in = NULL,
	    .n_out = (int)n_out, .out_names = outs,
	    .line = pos[0], .col = pos[1]}, &err) < 0)
		return (gp_load_fail(L, NODE_W(i), false, "%s: %s",
		    gp_load_node_label(L, i), err.msg));
	return (0);
}

/* Second pass: resolve the inputs (every output is named by now). */
static int
resolve_inputs(struct loader *L, size_t i)
{
	struct gp_graph *g = L->g;
	json_t *jin = L->inputs[i], *e;
	size_t k;

	json_array_foreach(jin, k, e) {
		struct gp_literal lit;
		char *name;
		int v;

		if (json_is_string(e)) {
			v = gp_graph_find_var(g, json_string_value(e));
			if (v < 0)
				return (gp_load_fail(L, ELEM_W(i, "inputs", k),
				    false, "%s: input '%s' is not defined: "
				    "expected the name of a variable or of a "
				    "node's output", gp_load_node_label(L, i),
				    json_string_value(e)));
			gp_graph_set_input(g, (int)i, (int)k, v);
			continue;
		}
		/* a literal: named by its value, as Theano's
		 * TensorConstant{2} */
		(void)gp_load_json_literal(e, &lit);
		name = json_dumps(e, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
		lit.name = name;
		lit.text = gp_load_show(L, e);
		(void)gp_graph_set_literal(g, (int)i, (int)k, &lit);
		free(name);
	}
	return (0);
}

int
gp_load_nodes(struct loader *L)
{
	struct gp_graph *g = L->g;
	struct doc *d = &L->doc;
	size_t nn = d->n_nodes;
	int rc = 0;

	if (nn > GP_LOAD_MAX_NODES)
		return (gp_load_fail(L, w_key(W_ROOT, "nodes"), false,
		    "the graph has %zu nodes: expected at most %d",
		    nn, GP_LOAD_MAX_NODES));
	gp_graph_reserve_nodes(g, nn);
	/* room for one output per node at once: growing by doubling would
	 * copy the variables and rebuild the name map several times */
	gp_graph_reserve_vars(g, nn + nn / 8);
	L->inputs = gp_xcalloc(nn + 1, sizeof(*L->inputs));
	for (size_t i = 0; i < nn && rc == 0; i++) {
		int pos[2] = {0, 0};

		if (i == d->n_head && !gp_load_finish_parse(L))
			return (-1);
		if (d->n_elems == nn) {
			pos[0] = d->elems[i].line;
			pos[1] = d->elems[i].col;
		}
		rc = load_node(L, d->nodes[i], i, pos);
	}
	for (size_t i = 0; i < nn && rc == 0; i++)
		rc = resolve_inputs(L, i);
	return (rc);
}
