/*
 * test-build.c: the builder API front-ends make graphs with
 * (src/graph/build.h), used the way a second front-end would, with a
 * locator of its own ("m.onnx: node NAME (#INDEX, OP)"): a node reading a
 * later node's output, values set and allocated, literals typed by numpy's
 * rule, functions with updates, and every message gp_graph_prepare and the
 * checks give.  The expected messages are written out by hand from the
 * rules in build.h (the JSON loader's own messages are pinned by
 * tests/invalid through run-invalid.sh).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "../tap.h"
#include "graph/build.h"
#include "graph/op.h"

/* An ONNX-like locator: the file, the node's name, index and op. */
static void
where(void *ctx, const struct gp_graph *g, const struct gp_graph_site *s,
    struct gp_buf *b)
{
	const struct gp_node *n;

	if (s->kind == GP_SITE_UPDATE) {
		gp_buf_printf(b, "%s: function %s, update %d", (const char *)ctx,
		    g->fns[s->fn].name, s->k);
		return;
	}
	n = &g->nodes[s->node];
	gp_buf_printf(b, "%s: node %s (#%d, %s)", (const char *)ctx,
	    n->name ? n->name : "?", s->node, n->op->name);
	if (s->kind == GP_SITE_INPUT)
		gp_buf_printf(b, " input %d", s->k);
}

static const struct gp_graph_locator loc = {.where = where, .ctx = "m.onnx"};

static struct gp_type
vec(enum gp_dtype dt, int64_t n)
{
	return ((struct gp_type){.dtype = dt, .ndim = 1, .shape = {n}});
}

static int
node(struct gp_graph *g, const char *op, const char *name, int n_in,
    const int *in, const char *out)
{
	struct gp_err err;
	int i = gp_graph_declare_node(g, &(struct gp_node_decl){
	    .op = gp_op_find(op), .name = name, .n_in = n_in, .in = in,
	    .n_out = 1, .out_names = (const char *[]){out}}, &err);

	if (i < 0)
		diag("declare %s: %s", name, err.msg);
	return (i);
}

static struct gp_graph *
graph(void)
{
	struct gp_graph *g = gp_graph_new("t");

	gp_graph_set_source(g, &(struct gp_graph_source){.path = "m.onnx",
	    .dir = "/tmp", .limit_bytes = 1 << 20});
	return (g);
}

/* A graph built in the order a front-end meets things: a node reading a
 * later node's output, values, a function with an update. */
static void
test_build(void)
{
	struct gp_graph *g = graph();
	struct gp_type t = vec(GP_FLOAT64, 3);
	struct gp_tensor val = {0};
	struct gp_err err;
	int x, w, n0, n1, s, y, f, *order, n;
	double *p;

	x = gp_graph_add_var(g, "x", GP_VAR_INPUT, &t);
	w = gp_graph_add_var(g, "w", GP_VAR_SHARED, &t);
	gp_graph_place_var(g, w, 4, 7);
	/* y = neg(s), where s = add(x, w) comes later */
	n0 = node(g, "neg", "second", 1, NULL, "y");
	n1 = node(g, "add", "first", 2, (int[]){x, w}, "s");
	s = g->nodes[n1].out[0];
	y = g->nodes[n0].out[0];
	gp_graph_set_input(g, n0, 0, s);
	ok(n0 == 0 && n1 == 1 && strcmp(g->vars[s].name, "s") == 0 &&
	    g->vars[s].producer == n1 && g->vars[y].producer == n0,
	    "declared nodes own their named outputs");
	ok(g->vars[w].line == 4 && g->vars[w].col == 7, "a variable placed");

	p = (double *)gp_tensor_data(gp_graph_alloc_value(g, w, false));
	p[0] = 1, p[1] = 2, p[2] = 3;
	gp_tensor_alloc(&val, GP_FLOAT64, 1, (int64_t[]){4});
	ok(gp_graph_set_value(g, x, &val, &err) < 0 && val.storage != NULL &&
	    strcmp(err.msg, "a value of float64(4,) for 'x', declared "
	    "float64(3,): expected the same dtype and shape") == 0,
	    "a value of another shape refused, left to the caller: %s",
	    err.msg);
	gp_tensor_release(&val);

	ok(gp_graph_check_update(g, x, s, &err) < 0 && strcmp(err.msg,
	    "cannot update 'x', an input variable: expected a shared variable "
	    "(only those keep state)") == 0, "an input cannot be updated");
	ok(gp_graph_check_update(g, w, w, &err) < 0 && strcmp(err.msg,
	    "update of 'w' to itself: expected a new value computed by a "
	    "node") == 0, "nor a variable to itself");
	f = gp_graph_add_function(g, "f", 1, &y, 1,
	    &(struct gp_update){w, s}, &err);
	ok(f == 0 && g->n_fns == 1 && g->fns[0].upd[0].src == s,
	    "a function with an update");
	ok(gp_graph_add_function(g, "f", 1, &y, 0, NULL, &err) < 0 &&
	    strcmp(err.msg, "duplicate function name 'f': expected each "
	    "function's name to be unique") == 0, "function names unique");

	ok(gp_graph_prepare(g, &loc, &err) == 0, "prepared");
	ok(gp_type_equal(&g->vars[y].type, &t) &&
	    gp_type_equal(&g->vars[s].type, &t) && g->nodes[n0].kernel &&
	    g->nodes[n1].kernel, "types inferred, kernels chosen");
	n = gp_graph_schedule(g, 0, &order);
	ok(n == 2 && order[0] == n1 && order[1] == n0,
	    "scheduled in data order");
	free(order);
	ok(g->limit_bytes == 1 << 20 && strcmp(g->path, "m.onnx") == 0 &&
	    strcmp(g->dir, "/tmp") == 0, "the source set");
	gp_graph_free(g);
}

/* Literals: numpy's rule, their names, and the message when one does not
 * fit. */
static void
test_literals(void)
{
	struct gp_graph *g = graph();
	struct gp_type t8 = vec(GP_INT8, 2), tf = vec(GP_FLOAT32, 2);
	struct gp_err err;
	int a, b, n0, n1, n2, l0, l1, l2;

	a = gp_graph_add_var(g, "a", GP_VAR_INPUT, &t8);
	b = gp_graph_add_var(g, "b", GP_VAR_INPUT, &tf);
	n0 = node(g, "mul", "m0", 2, (int[]){a, -1}, "p");
	n1 = node(g, "mul", "m1", 2, (int[]){-1, b}, "q");
	n2 = node(g, "add", "m2", 2, (int[]){b, -1}, "r");
	l0 = gp_graph_set_literal(g, n0, 1, &(struct gp_literal){
	    .as = GP_INT64, .i = 2, .name = "2", .text = "2"});
	l1 = gp_graph_set_literal(g, n1, 0, &(struct gp_literal){
	    .as = GP_FLOAT64, .d = 0.5, .name = "0.5", .text = "0.5"});
	l2 = gp_graph_set_literal(g, n2, 1, &(struct gp_literal){
	    .as = GP_INT64, .i = 2, .name = "2", .text = "2"});
	ok(g->nodes[n0].in[1] == l0 && g->vars[l0].kind == GP_VAR_CONSTANT,
	    "a literal is a constant input");
	gp_graph_add_function(g, "f", 3, (int[]){g->nodes[n0].out[0],
	    g->nodes[n1].out[0], g->nodes[n2].out[0]}, 0, NULL, &err);
	ok(gp_graph_prepare(g, &loc, &err) == 0, "prepared with literals");
	/* an integer takes int8 from a, a real float32 from b */
	ok(g->vars[l0].type.dtype == GP_INT8 && g->vars[l0].type.ndim == 0 &&
	    *(int8_t *)gp_tensor_data(&g->vars[l0].value) == 2,
	    "2 beside int8 is int8 2");
	ok(g->vars[l1].type.dtype == GP_FLOAT32 &&
	    *(float *)gp_tensor_data(&g->vars[l1].value) == 0.5f,
	    "0.5 beside float32 is float32 0.5");
	ok(strcmp(g->vars[l0].name, "2") == 0 &&
	    strcmp(g->vars[l1].name, "0.5") == 0 &&
	    strcmp(g->vars[l2].name, "2#2") == 0,
	    "named by their values, unique (%s, %s, %s)", g->vars[l0].name,
	    g->vars[l1].name, g->vars[l2].name);
	ok(g->n_lits == 0 && g->lits == NULL, "nothing pending after");
	gp_graph_free(g);

	g = graph();
	a = gp_graph_add_var(g, "a", GP_VAR_INPUT, &t8);
	n0 = node(g, "add", "big", 2, (int[]){a, -1}, "p");
	gp_graph_set_literal(g, n0, 1, &(struct gp_literal){.as = GP_INT64,
	    .i = 300, .name = "300", .text = "300"});
	gp_graph_add_function(g, "f", 1, &g->nodes[n0].out[0], 0, NULL, &err);
	ok(gp_graph_prepare(g, &loc, &err) < 0 && strcmp(err.msg,
	    "m.onnx: node big (#0, add) input 1: literal 300 does not fit the "
	    "node's int8 inputs: expected a value in -128..127 for int8 (or "
	    "a variable of a wider type)") == 0, "a literal too big: %s",
	    err.msg);
	gp_graph_free(g);	/* with its literals still pending */
}

/* A front-end that needs output types while it builds prepares each node
 * as it meets it; the final gp_graph_prepare leaves names and types. */
static void
test_prepare_at(void)
{
	struct gp_graph *g = graph();
	struct gp_type t8 = vec(GP_INT8, 2);
	struct gp_err err;
	int a, n0, n1, l0, p, rc;

	a = gp_graph_add_var(g, "a", GP_VAR_INPUT, &t8);
	gp_graph_add_var(g, "2", GP_VAR_CONSTANT,
	    &(struct gp_type){.dtype = GP_INT64});
	n0 = node(g, "mul", "m0", 2, (int[]){a, -1}, "p");
	l0 = gp_graph_set_literal(g, n0, 1, &(struct gp_literal){
	    .as = GP_INT64, .i = 2, .name = "2", .text = "2"});
	p = g->nodes[n0].out[0];
	/* prepared first: the message's name is read after the rename (an
	 * argument list's order of evaluation is unspecified) */
	rc = gp_graph_prepare_at(g, n0, &loc, &err);
	ok(rc == 0 && gp_type_equal(&g->vars[p].type, &t8) &&
	    g->vars[l0].type.dtype == GP_INT8 &&
	    strcmp(g->vars[l0].name, "2#2") == 0,
	    "a node prepared as it is met: its type known at once, its "
	    "literal typed and named (%s)", g->vars[l0].name);
	n1 = node(g, "neg", "n1", 1, &p, "q");
	ok(gp_graph_prepare_at(g, n1, &loc, &err) == 0 &&
	    gp_type_equal(&g->vars[g->nodes[n1].out[0]].type, &t8),
	    "the next node sees it");
	gp_graph_add_function(g, "f", 1, &g->nodes[n1].out[0], 0, NULL, &err);
	rc = gp_graph_prepare(g, &loc, &err);
	ok(rc == 0 && strcmp(g->vars[l0].name, "2#2") == 0 &&
	    *(int8_t *)gp_tensor_data(&g->vars[l0].value) == 2,
	    "gp_graph_prepare after it changes nothing (%s)", g->vars[l0].name);
	gp_graph_free(g);

	g = graph();
	a = gp_graph_add_var(g, "a", GP_VAR_INPUT, &t8);
	n0 = node(g, "neg", "bad", 2, (int[]){a, a}, "p");
	ok(gp_graph_prepare_at(g, n0, &loc, &err) < 0 && strcmp(err.msg,
	    "m.onnx: node bad (#0, neg): op 'neg' takes 1 input, got 2") == 0,
	    "its error placed by the locator: %s", err.msg);
	gp_graph_free(g);
}

/* Variable v may be read as a constant: the front-end's own rule (here:
 * the shared variable named "k"). */
static bool
known_k(const struct gp_graph *g, int v, void *ctx)
{
	(void)ctx;
	return (strcmp(g->vars[v].name, "k") == 0);
}

/* A front-end's labels (the profile's Op and Class of its node) and the
 * folding of a node whose inputs are all known, as ONNX's shape arithmetic
 * uses them. */
static void
test_label_fold(void)
{
	struct gp_graph *g = graph();
	struct gp_type t = vec(GP_INT64, 2);
	struct gp_err err;
	int c, k, x, n0, n1, n2, n3, o0, o2, rc;
	int64_t *p;

	c = gp_graph_add_var(g, NULL, GP_VAR_CONSTANT, &t);
	p = (int64_t *)gp_tensor_data(gp_graph_alloc_value(g, c, false));
	p[0] = 3, p[1] = -4;
	k = gp_graph_add_var(g, "k", GP_VAR_SHARED, &t);
	p = (int64_t *)gp_tensor_data(gp_graph_alloc_value(g, k, false));
	p[0] = 10, p[1] = 20;
	x = gp_graph_add_var(g, "x", GP_VAR_INPUT, &t);
	gp_graph_alloc_value(g, x, true);

	n0 = gp_graph_declare_node(g, &(struct gp_node_decl){
	    .op = gp_op_find("neg"), .name = "Neg_0/neg", .n_in = 1,
	    .in = &c, .n_out = 1, .label = "Neg", .family = "Elemwise"},
	    &err);
	ok(n0 >= 0 && strcmp(g->nodes[n0].label, "Neg") == 0 &&
	    strcmp(g->nodes[n0].family, "Elemwise") == 0 &&
	    strcmp(g->nodes[n0].name, "Neg_0/neg") == 0,
	    "a declared node carries its label and family");
	gp_graph_label_node(g, n0, "Neg_0", "Neg{x}");
	ok(strcmp(g->nodes[n0].name, "Neg_0") == 0 &&
	    strcmp(g->nodes[n0].label, "Neg{x}") == 0 &&
	    strcmp(g->nodes[n0].family, "Elemwise") == 0,
	    "relabelled after: name and label, the family kept");
	gp_graph_label_node(g, n0, NULL, NULL);
	ok(g->nodes[n0].name == NULL && g->nodes[n0].label == NULL,
	    "and cleared");

	/* neg(constant): folded; its output a constant holding -c */
	o0 = g->nodes[n0].out[0];
	ok(!gp_graph_fold_node(g, n0, NULL, NULL) && !g->nodes[n0].dead,
	    "an unprepared node is not folded");
	gp_graph_prepare_at(g, n0, &loc, &err);
	ok(gp_graph_fold_node(g, n0, NULL, NULL) && g->nodes[n0].dead &&
	    g->vars[o0].kind == GP_VAR_CONSTANT &&
	    g->vars[o0].producer == -1 &&
	    ((int64_t *)gp_tensor_data(&g->vars[o0].value))[0] == -3 &&
	    ((int64_t *)gp_tensor_data(&g->vars[o0].value))[1] == 4,
	    "a node of constants folded: its output the constant -c");
	/* add(-c, k): k is known only through the callback */
	n1 = node(g, "add", "sum", 2, (int[]){o0, k}, "s");
	gp_graph_prepare_at(g, n1, &loc, &err);
	ok(!gp_graph_fold_node(g, n1, NULL, NULL) && !g->nodes[n1].dead,
	    "a shared input is no constant by default");
	rc = gp_graph_fold_node(g, n1, known_k, NULL);
	ok(rc &&
	    ((int64_t *)gp_tensor_data(&g->vars[g->nodes[n1].out[0]].value))[0]
	    == 7 && ((int64_t *)gp_tensor_data(
	    &g->vars[g->nodes[n1].out[0]].value))[1] == 24,
	    "with the front-end's rule it is: -c + k = (7, 24)");
	/* add(x, k): an input is never folded */
	n2 = node(g, "add", "live", 2, (int[]){x, k}, "u");
	gp_graph_prepare_at(g, n2, &loc, &err);
	o2 = g->nodes[n2].out[0];
	ok(!gp_graph_fold_node(g, n2, known_k, NULL) &&
	    g->vars[o2].kind == GP_VAR_TEMP && g->vars[o2].producer == n2,
	    "a node reading a graph input stays");
	/* a view: the folded constant owns its bytes */
	n3 = node(g, "transpose", "view", 1, &o0, "r");
	ok(gp_graph_prepare_at(g, n3, &loc, &err) == 0 &&
	    gp_graph_fold_node(g, n3, NULL, NULL) &&
	    g->vars[g->nodes[n3].out[0]].value.storage !=
	    g->vars[o0].value.storage &&
	    ((int64_t *)gp_tensor_data(
	    &g->vars[g->nodes[n3].out[0]].value))[1] == 4,
	    "a folded view is copied, not shared with its input (%s)",
	    err.msg);
	gp_graph_free(g);
}

/* The other messages of gp_graph_prepare, through the locator. */
static void
test_errors(void)
{
	struct gp_type t = vec(GP_FLOAT64, 3), t4 = vec(GP_FLOAT64, 4);
	struct gp_graph *g = graph();
	struct gp_err err;
	int x, w, v, n0, n1;

	x = gp_graph_add_var(g, "x", GP_VAR_INPUT, &t);
	n0 = node(g, "neg", "two", 2, (int[]){x, x}, "y");
	gp_graph_add_function(g, "f", 1, &g->nodes[n0].out[0], 0, NULL, &err);
	ok(gp_graph_prepare(g, &loc, &err) < 0 && strcmp(err.msg,
	    "m.onnx: node two (#0, neg): op 'neg' takes 1 input, got 2") == 0,
	    "an op's own message, placed: %s", err.msg);
	ok(gp_graph_prepare(g, NULL, &err) < 0 && strcmp(err.msg,
	    "node 'two' (op 'neg'): op 'neg' takes 1 input, got 2") == 0,
	    "without a locator, the default label: %s", err.msg);
	gp_graph_free(g);

	/* a -> b -> a */
	g = graph();
	n0 = node(g, "neg", "na", 1, NULL, "a");
	n1 = node(g, "neg", "nb", 1, NULL, "b");
	gp_graph_set_input(g, n0, 0, g->nodes[n1].out[0]);
	gp_graph_set_input(g, n1, 0, g->nodes[n0].out[0]);
	gp_graph_add_function(g, "f", 1, &g->nodes[n0].out[0], 0, NULL, &err);
	ok(gp_graph_prepare(g, &loc, &err) < 0 && strcmp(err.msg,
	    "m.onnx: node na (#0, neg): the graph has a cycle ('a' -> 'b' -> "
	    "'a', each computed from the one before): expected no node to "
	    "depend on its own output") == 0, "a cycle: %s", err.msg);
	gp_graph_free(g);

	g = graph();
	x = gp_graph_add_var(g, "x", GP_VAR_INPUT, &t);
	n0 = node(g, "add", "half", 2, (int[]){x, -1}, "y");
	gp_graph_add_function(g, "f", 1, &g->nodes[n0].out[0], 0, NULL, &err);
	ok(gp_graph_prepare(g, &loc, &err) < 0 && strcmp(err.msg,
	    "m.onnx: node half (#0, add) input 1: input 1 was never set") == 0,
	    "an input never set: %s", err.msg);
	gp_graph_free(g);

	g = graph();
	w = gp_graph_add_var(g, "w", GP_VAR_SHARED, &t);
	v = gp_graph_add_var(g, "v", GP_VAR_INPUT, &t4);
	n0 = node(g, "neg", "n", 1, &v, "w2");
	gp_graph_add_function(g, "step", 0, NULL, 1,
	    &(struct gp_update){w, g->nodes[n0].out[0]}, &err);
	ok(gp_graph_prepare(g, &loc, &err) < 0 && strcmp(err.msg,
	    "m.onnx: function step, update 0: update of 'w' (float64(3,)) "
	    "from 'w2' (float64(4,)): expected the same dtype and shape") == 0,
	    "an update of another shape: %s", err.msg);
	ok(gp_graph_declare_node(g, &(struct gp_node_decl){
	    .op = gp_op_find("neg"), .n_in = 1, .in = &v, .n_out = 1,
	    .out_names = (const char *[]){"w2"}}, &err) < 0 &&
	    strcmp(err.msg, "output name 'w2' is already taken: expected a "
	    "new name") == 0 && g->n_nodes == 1, "output names are new");
	n1 = gp_graph_declare_node(g, &(struct gp_node_decl){
	    .op = gp_op_find("neg"), .n_in = 1, .in = &v, .n_out = 1}, &err);
	ok(n1 == 1 && strcmp(g->vars[g->nodes[1].out[0]].name, "_t3") == 0,
	    "an output without a name gets a fresh one (%s)",
	    n1 == 1 ? g->vars[g->nodes[1].out[0]].name : err.msg);
	gp_graph_free(g);
}

int
main(void)
{
	test_build();
	test_literals();
	test_prepare_at();
	test_label_fold();
	test_errors();
	return (done_testing());
}
