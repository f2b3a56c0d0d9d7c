/*
 * graph-json.c: the graph loader (see graph-json.h and
 * doc/graph-format.md).  The text is checked (not empty, UTF-8, looks like
 * JSON), parsed by jansson with duplicate keys rejected, then read in
 * passes: variables and their initial values; nodes, whose outputs are
 * named before any input is resolved (a node may use a later node's
 * output); functions.  The graph is made through the builder API
 * (graph/build.h), whose gp_graph_prepare then prepares every node in a
 * topological order, finds cycles and checks the updates' types.  The
 * first problem stops the load with one message placed by jsonpos.c (for
 * preparation's messages, through the locator this file gives).
 */
#include "config.h"

#include "load/graph-json.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/jsonarena.h"
#include "base/jsonpos.h"
#include "graph/build.h"
#include "graph/op.h"
#include "load/npy.h"
#include "base/rng.h"

#define FORMAT		"gptop-graph/1"
#define MAX_STEPS	16

/* A place in the document: the steps from the top-level object. */
struct where {
	struct gp_jsonpos_step	s[MAX_STEPS];
	int			n;
};

/* One parse: the whole text, or a piece of it (see parse_split). */
struct part {
	const char		*buf;
	size_t			 len;
	bool			 owned;	/* buf is ours to free */
	json_t			*root;
	json_error_t		 je;
	struct gp_json_arena	 arena;
};

/* The parsed document and where its nodes are. */
struct doc {
	struct part		 part[3];	/* whole; or rest, head, tail */
	json_t			**nodes;	/* the node objects, in order */
	size_t			 n_nodes;
	/* a split parse: the tail is still being parsed by thread th while
	 * the first n_head nodes are read (finish_parse waits for it) */
	size_t			 n_head;
	pthread_t		 th;
	bool			 pending;
	struct gp_jsonpos_elem	*elems;	/* their text (from jsonpos) */
	size_t			 n_elems, cap_elems;
	bool			 have_elems;	/* "nodes" is an array */
};

struct loader {
	const char		*file;	/* for messages */
	const char		*path;	/* the graph's path ("" for none) */
	const char		*dir;	/* for relative .npy paths */
	const char		*text;
	size_t			 len;
	struct gp_err		*err;
	uint64_t		 limit;
	uint64_t		 total;	/* the variables' values so far */
	json_t			*root;
	struct doc		 doc;
	struct gp_graph		*g;
	struct gp_buf		 shown[2];
	unsigned		 nshown;
	struct gp_buf		 label;
	/* the node being read (not yet in the graph), for its label */
	size_t			 cur;
	const char		*cur_name;
	const struct gp_op	*cur_op;
	json_t			**inputs;	/* per node: "inputs" */
	json_t			*node_names;	/* a set */
	json_t			*no_params;	/* {}, shared by the nodes
						 * without params */
	const struct gp_op	*seen_ops[4];	/* the ops found last */
	unsigned		 n_seen;
	bool			 no_split;	/* parse the text in one piece */
	bool			 retry;		/* ...and load it again */
};

static const struct gp_op *const *test_ops;

static bool finish_parse(struct loader *L);

void
gp_graph_load_set_test_ops(const struct gp_op *const *ops)
{
	test_ops = ops;
}

static const struct gp_op *
find_op(const char *name)
{
	const struct gp_op *op = gp_op_find(name);

	for (const struct gp_op *const *p = test_ops; op == NULL && p && *p;
	    p++)
		if (strcmp((*p)->name, name) == 0)
			op = *p;
	return (op);
}

/* Places. */

static struct where
w_key(struct where w, const char *key)
{
	if (w.n < MAX_STEPS)
		w.s[w.n++] = (struct gp_jsonpos_step){.key = key};
	return (w);
}

static struct where
w_idx(struct where w, size_t i)
{
	if (w.n < MAX_STEPS)
		w.s[w.n++] = (struct gp_jsonpos_step){.key = NULL, .index = i};
	return (w);
}

static const struct where w_root = {.n = 0};

static int __attribute__((format(printf, 4, 5)))
fail(struct loader *L, struct where w, bool at_key, const char *fmt, ...)
{
	char msg[GP_ERR_MAX];
	int line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(void)gp_jsonpos_find(L->text, L->len, w.s, w.n, at_key, &line, &col);
	/* one line: gp_err_set escapes control characters */
	return (gp_err_set(L->err, "%s:%d:%d: %s", L->file, line, col, msg));
}

/* A JSON value as compact text for a message (at most ~60 bytes). */
static const char *
show(struct loader *L, const json_t *v)
{
	struct gp_buf *b = &L->shown[L->nshown++ & 1];
	char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	size_t n;

	gp_buf_clear(b);
	if (s == NULL) {
		gp_buf_puts(b, "?");
		return (gp_buf_str(b));
	}
	n = strlen(s);
	if (n > 60) {
		n = 56;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		gp_buf_printf(b, "%.*s...", (int)n, s);
	} else
		gp_buf_puts(b, s);
	free(s);
	return (gp_buf_str(b));
}

/* A string value in single quotes (JSON text for anything else, or for
 * strings that need escapes). */
static const char *
show_name(struct loader *L, const json_t *v)
{
	struct gp_buf *b;
	const char *s;

	if (!json_is_string(v))
		return (show(L, v));
	s = json_string_value(v);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == '\'' || *p == 0x7f)
			return (show(L, v));
	if (strlen(s) > 60)
		return (show(L, v));
	b = &L->shown[L->nshown++ & 1];
	gp_buf_clear(b);
	gp_buf_printf(b, "'%s'", s);
	return (gp_buf_str(b));
}

static const char *
shape_str(struct gp_buf *b, int ndim, const int64_t *shape)
{
	gp_buf_clear(b);
	gp_shape_format(b, ndim, shape);
	return (gp_buf_str(b));
}

/* "node 3 (op 'add')" or "node 'double' (op 'mul')": a node of the
 * graph, or the one being read. */
static const char *
node_label(struct loader *L, size_t i)
{
	const char *name = NULL;
	const struct gp_op *op = NULL;

	if (i < L->g->n_nodes) {
		name = L->g->nodes[i].name;
		op = L->g->nodes[i].op;
	} else if (i == L->cur) {
		name = L->cur_name;
		op = L->cur_op;
	}
	gp_buf_clear(&L->label);
	if (name != NULL)
		gp_buf_printf(&L->label, "node '%s'", name);
	else
		gp_buf_printf(&L->label, "node %zu", i);
	if (op != NULL)
		gp_buf_printf(&L->label, " (op '%s')", op->name);
	return (gp_buf_str(&L->label));
}

/* Checks shared by every part. */

static const char *
list_str(struct gp_buf *b, const char *const *items)
{
	gp_buf_clear(b);
	for (size_t i = 0; items[i] != NULL; i++)
		gp_buf_printf(b, "%s%s", i ? ", " : "", items[i]);
	return (gp_buf_str(b));
}

/* Every key of obj must be in allowed.  ctx names the object in the
 * message ("" at the top level); NULL: node number node. */
static int
check_keys(struct loader *L, const json_t *obj, const char *const *allowed,
    struct where w, const char *ctx, size_t node)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)obj, key, v) {
		struct gp_buf b = {0};
		bool ok = false;

		for (size_t i = 0; allowed[i] != NULL; i++)
			if (strcmp(allowed[i], key) == 0)
				ok = true;
		if (ok)
			continue;
		if (ctx == NULL)
			ctx = node_label(L, node);
		if (*ctx == '\0')
			fail(L, w_key(w, key), true, "unknown top-level key "
			    "\"%s\" (expected %s)", key, list_str(&b, allowed));
		else
			fail(L, w_key(w, key), true, "%s: unknown key \"%s\" "
			    "(expected %s)", ctx, key, list_str(&b, allowed));
		gp_buf_free(&b);
		return (-1);
	}
	return (0);
}

/* Names: non-empty, at most GP_LOAD_MAX_NAME bytes, no control
 * characters (C0, DEL, C1). */
static bool
name_ok(const char *s)
{
	size_t n;

	for (n = 0; s[n] != '\0'; n++) {
		unsigned char c = (unsigned char)s[n];

		if (c < 0x20 || c == 0x7f || (c == 0xc2 &&
		    (unsigned char)s[n + 1] >= 0x80 &&
		    (unsigned char)s[n + 1] <= 0x9f))
			return (false);
	}
	return (n > 0 && n <= GP_LOAD_MAX_NAME);
}

/* Check a name; the message says what is wrong with it. */
static int
check_name(struct loader *L, const char *s, struct where w, bool at_key,
    const char *what)
{
	size_t n = strlen(s);
	json_t *js;

	if (n == 0)
		return (fail(L, w, at_key, "%s is empty: expected a non-empty "
		    "name", what));
	if (n > GP_LOAD_MAX_NAME) {
		js = json_string(s);
		fail(L, w, at_key, "%s %s is %zu bytes long: expected at most "
		    "%d", what, show(L, js), n, GP_LOAD_MAX_NAME);
		json_decref(js);
		return (-1);
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f || (c == 0xc2 && i + 1 < n &&
		    (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f)) {
			js = json_string(s);
			fail(L, w, at_key, "%s %s contains a control "
			    "character: expected printable text", what,
			    show(L, js));
			json_decref(js);
			return (-1);
		}
	}
	return (0);
}

/* A field of the wrong JSON type. */
static int
bad_type(struct loader *L, struct where w, const char *ctx, const char *field,
    const char *expected, const json_t *got)
{
	return (fail(L, w, false, "%s%s\"%s\" must be %s, got %s (%s)", ctx,
	    *ctx ? ": " : "", field, expected, show(L, got), gp_jsonpos_kind(got)));
}

/* Elements. */

static void
store_int(void *p, enum gp_dtype dt, int64_t v)
{
	gp_dtype_convert(p, dt, &v, GP_INT64, 0, 1);
}

/* A JSON scalar (number or boolean) as a literal, false if it is none. */
static bool
json_literal(const json_t *v, struct gp_literal *lit)
{
	*lit = (struct gp_literal){.as = GP_FLOAT64};
	if (json_is_boolean(v)) {
		lit->as = GP_BOOL;
		lit->i = json_is_true(v);
	} else if (json_is_integer(v)) {
		lit->as = GP_INT64;
		lit->i = json_integer_value(v);
	} else if (json_is_real(v))
		lit->d = json_real_value(v);
	else
		return (false);
	return (true);
}

/* Store the JSON scalar v as one element of dtype dt at p.  A problem is
 * described in why (for "expected ..." messages) and -1 returned. */
static int
store_scalar(void *p, enum gp_dtype dt, const json_t *v, char *why,
    size_t cap)
{
	struct gp_literal lit;

	if (!json_literal(v, &lit)) {
		snprintf(why, cap, "a number%s", dt == GP_BOOL ?
		    " or a boolean" : "");
		return (-1);
	}
	return (gp_literal_store(&lit, dt, p, why, cap));
}

/* Variables. */

static const char *const var_keys[] = {
	"kind", "dtype", "shape", "init", "doc", NULL
};
static const char *const init_methods[] = {
	"fill", "arange", "uniform", "normal", "integers", "values", "npy",
	NULL
};

/* Parse "shape" into type and check its byte count. */
static int
load_shape(struct loader *L, const json_t *js, struct where w, const char *ctx,
    struct gp_type *t)
{
	struct gp_buf b = {0};
	uint64_t nb;
	size_t i;
	json_t *e;

	if (!json_is_array(js))
		return (bad_type(L, w, ctx, "shape", "an array of non-negative "
		    "integers like [10, 3]", js));
	if (json_array_size(js) > GP_MAX_DIMS)
		return (fail(L, w, false, "%s: shape %s has %zu dimensions: "
		    "expected at most %d", ctx, show(L, js),
		    json_array_size(js), GP_MAX_DIMS));
	t->ndim = (int)json_array_size(js);
	json_array_foreach(js, i, e) {
		if (!json_is_integer(e) || json_integer_value(e) < 0)
			return (fail(L, w_idx(w, i), false, "%s: shape "
			    "dimension %zu is %s: expected a non-negative "
			    "integer", ctx, i, show(L, e)));
		t->shape[i] = json_integer_value(e);
	}
	if (!gp_npy_nbytes(t->ndim, t->shape, t->dtype, &nb)) {
		fail(L, w, false, "%s: shape %s of %s overflows: its byte "
		    "count does not fit in 64 bits", ctx,
		    shape_str(&b, t->ndim, t->shape), gp_dtype_name(t->dtype));
		gp_buf_free(&b);
		return (-1);
	}
	if (nb > L->limit) {
		fail(L, w, false, "%s: %s %s needs %" PRIu64 " bytes, over the "
		    "memory limit of %" PRIu64 " bytes (flag memory_limit)", ctx,
		    gp_dtype_name(t->dtype), shape_str(&b, t->ndim, t->shape),
		    nb, L->limit);
		gp_buf_free(&b);
		return (-1);
	}
	gp_buf_free(&b);
	return (0);
}

/* A [a, b] pair of numbers (integers when ints). */
static int
load_pair(struct loader *L, const json_t *v, struct where w, const char *ctx,
    const char *method, const char *names, bool ints, double *a, double *b,
    int64_t *ia, int64_t *ib)
{
	json_t *x, *y;

	if (!json_is_array(v) || json_array_size(v) != 2 ||
	    !json_is_number(x = json_array_get(v, 0)) ||
	    !json_is_number(y = json_array_get(v, 1)) ||
	    (ints && (!json_is_integer(x) || !json_is_integer(y))))
		return (fail(L, w, false, "%s: init \"%s\" must be [%s], two "
		    "%s, got %s", ctx, method, names, ints ? "integers" :
		    "numbers", show(L, v)));
	*a = json_number_value(x);
	*b = json_number_value(y);
	if (ia != NULL) {
		*ia = json_is_integer(x) ? json_integer_value(x) : 0;
		*ib = json_is_integer(y) ? json_integer_value(y) : 0;
	}
	return (0);
}

/* "values": nested arrays matching the shape exactly. */
static int
fill_values(struct loader *L, const struct gp_var *var, const json_t *v,
    int dim, struct where w, const char *ctx, char **p)
{
	const struct gp_type *t = &var->type;
	struct gp_buf b = {0};
	char why[128];
	size_t i;
	json_t *e;

	if (dim == t->ndim) {
		if (!json_is_number(v) && !json_is_boolean(v)) {
			fail(L, w, false, "%s: init \"values\" must match the "
			    "shape %s exactly: expected a number here, got %s",
			    ctx, shape_str(&b, t->ndim, t->shape), show(L, v));
			gp_buf_free(&b);
			return (-1);
		}
		if (store_scalar(*p, t->dtype, v, why, sizeof(why)) < 0)
			return (fail(L, w, false, "%s: init value %s does not "
			    "fit: expected %s", ctx, show(L, v), why));
		*p += gp_dtype_size(t->dtype);
		return (0);
	}
	if (!json_is_array(v) || json_array_size(v) != (size_t)t->shape[dim]) {
		char got[80];

		if (json_is_array(v))
			snprintf(got, sizeof(got), "an array of %zu",
			    json_array_size(v));
		else
			snprintf(got, sizeof(got), "%s", show(L, v));
		fail(L, w, false, "%s: init \"values\" must match the shape %s "
		    "exactly: expected an array of %lld (dimension %d), got %s",
		    ctx, shape_str(&b, t->ndim, t->shape),
		    (long long)t->shape[dim], dim, got);
		gp_buf_free(&b);
		return (-1);
	}
	json_array_foreach(v, i, e)
		if (fill_values(L, var, e, dim + 1, w_idx(w, i), ctx, p) < 0)
			return (-1);
	return (0);
}

static int
init_npy(struct loader *L, int vi, const json_t *v, struct where w,
    const char *ctx)
{
	const struct gp_var *var = &L->g->vars[vi];
	struct gp_npy_info info;
	struct gp_tensor t = {0};
	struct gp_type ft;
	struct gp_buf a = {0}, b = {0};
	char *path;
	int rc = 0;

	if (!json_is_string(v) || json_string_length(v) == 0)
		return (bad_type(L, w, ctx, "npy", "a file name like "
		    "\"w.npy\" (relative to the graph's folder)", v));
	if (json_string_value(v)[0] == '/')
		path = gp_xstrdup(json_string_value(v));
	else
		path = gp_xasprintf("%s/%s", L->dir, json_string_value(v));
	if (gp_npy_read_info(path, &info, L->err) < 0) {
		free(path);
		return (fail(L, w, false, "%s: init \"npy\": %s", ctx,
		    L->err->msg));
	}
	ft.dtype = info.dtype;
	ft.ndim = info.ndim;
	memcpy(ft.shape, info.shape, sizeof(ft.shape));
	if (!gp_type_equal(&ft, &var->type)) {
		gp_type_format(&a, &ft);
		gp_type_format(&b, &var->type);
		rc = fail(L, w, false, "%s: %s holds %s, the variable is "
		    "declared %s: expected the same dtype and shape", ctx,
		    path, gp_buf_str(&a), gp_buf_str(&b));
	} else if (gp_npy_read_limit(path, L->limit, &t, L->err) < 0) {
		rc = fail(L, w, false, "%s: init \"npy\": %s", ctx,
		    L->err->msg);
	} else if (gp_graph_set_value(L->g, vi, &t, L->err) < 0) {
		gp_tensor_release(&t);	/* cannot be: the types match */
		rc = fail(L, w, false, "%s: init \"npy\": %s", ctx,
		    L->err->msg);
	}
	free(path);
	gp_buf_free(&a);
	gp_buf_free(&b);
	return (rc);
}

static int
load_init(struct loader *L, int vi, const json_t *ji, struct where w,
    const char *ctx)
{
	const struct gp_var *var = &L->g->vars[vi];
	enum gp_dtype dt = var->type.dtype;
	const char *method = NULL, *key;
	json_t *v, *mv = NULL, *seed;
	int64_t n = gp_shape_numel(var->type.ndim, var->type.shape);
	size_t sz = gp_dtype_size(dt);
	struct gp_rng rng;
	bool random;
	char *p, why[128];
	double a, b;
	int64_t ia, ib;

	if (ji == NULL) {
		(void)gp_graph_alloc_value(L->g, vi, true);
		return (0);
	}
	if (!json_is_object(ji))
		return (bad_type(L, w, ctx, "init", "an object like "
		    "{\"fill\": 0}", ji));
	json_object_foreach((json_t *)ji, key, v) {
		bool known = strcmp(key, "seed") == 0;

		for (size_t i = 0; init_methods[i] != NULL; i++) {
			if (strcmp(key, init_methods[i]) != 0)
				continue;
			known = true;
			if (method != NULL)
				return (fail(L, w_key(w, key), true, "%s: init "
				    "has both \"%s\" and \"%s\": expected one "
				    "method", ctx, method, key));
			method = key;
			mv = v;
		}
		if (!known) {
			struct gp_buf lb = {0};

			fail(L, w_key(w, key), true, "%s: unknown init method "
			    "\"%s\" (expected one of %s; \"seed\" goes with "
			    "uniform, normal and integers)", ctx, key,
			    list_str(&lb, init_methods));
			gp_buf_free(&lb);
			return (-1);
		}
	}
	if (method == NULL) {
		struct gp_buf lb = {0};

		fail(L, w, false, "%s: init has no method: expected one of %s",
		    ctx, list_str(&lb, init_methods));
		gp_buf_free(&lb);
		return (-1);
	}
	random = strcmp(method, "uniform") == 0 ||
	    strcmp(method, "normal") == 0 || strcmp(method, "integers") == 0;
	seed = json_object_get(ji, "seed");
	if (random && seed == NULL)
		return (fail(L, w, false, "%s: init \"%s\" needs a \"seed\" (a "
		    "non-negative integer), so the data is reproducible", ctx,
		    method));
	if (!random && seed != NULL)
		return (fail(L, w_key(w, "seed"), true, "%s: \"seed\" goes "
		    "only with uniform, normal and integers, not \"%s\"", ctx,
		    method));
	if (seed != NULL && (!json_is_integer(seed) ||
	    json_integer_value(seed) < 0))
		return (bad_type(L, w_key(w, "seed"), ctx, "seed",
		    "a non-negative integer", seed));
	if (seed != NULL)
		gp_rng_seed(&rng, (uint64_t)json_integer_value(seed));

	w = w_key(w, method);
	if (strcmp(method, "npy") == 0)
		return (init_npy(L, vi, mv, w, ctx));
	p = gp_tensor_data(gp_graph_alloc_value(L->g, vi, false));

	if (strcmp(method, "fill") == 0) {
		char elem[16];

		if (!json_is_number(mv) && !json_is_boolean(mv))
			return (bad_type(L, w, ctx, "fill", "a number or "
			    "true/false", mv));
		if (store_scalar(elem, dt, mv, why, sizeof(why)) < 0)
			return (fail(L, w, false, "%s: fill value %s does not "
			    "fit: expected %s", ctx, show(L, mv), why));
		for (int64_t i = 0; i < n; i++)
			memcpy(p + (size_t)i * sz, elem, sz);
	} else if (strcmp(method, "values") == 0) {
		char *q = p;

		return (fill_values(L, var, mv, 0, w, ctx, &q));
	} else if (strcmp(method, "arange") == 0) {
		if (dt == GP_BOOL)
			return (fail(L, w, false, "%s: init \"arange\" needs "
			    "a numeric dtype, not bool", ctx));
		if (load_pair(L, mv, w, ctx, "arange", "start, step",
		    !gp_dtype_is_float(dt), &a, &b, &ia, &ib) < 0)
			return (-1);
		if (gp_dtype_is_float(dt)) {
			for (int64_t i = 0; i < n; i++)
				gp_dtype_store(p + (size_t)i * sz, dt,
				    a + (double)i * b);
			if (dt == GP_FLOAT32 && n > 0 && (fabs(a) > FLT_MAX ||
			    fabs(a + (double)(n - 1) * b) > FLT_MAX))
				return (fail(L, w, false, "%s: init \"arange\" "
				    "leaves float32's range", ctx));
		} else {
			int64_t lo, hi, last = ia;

			gp_dtype_int_range(dt, &lo, &hi);
			if (n > 0 && (__builtin_mul_overflow(ib, n - 1,
			    &last) || __builtin_add_overflow(last, ia, &last) ||
			    ia < lo || ia > hi || last < lo || last > hi))
				return (fail(L, w, false, "%s: init \"arange\" "
				    "runs out of %s's range %" PRId64 "..%"
				    PRId64, ctx, gp_dtype_name(dt), lo, hi));
			for (int64_t i = 0; i < n; i++)
				store_int(p + (size_t)i * sz, dt, ia + i * ib);
		}
	} else if (strcmp(method, "uniform") == 0 ||
	    strcmp(method, "normal") == 0) {
		bool uni = method[0] == 'u';

		if (!gp_dtype_is_float(dt))
			return (fail(L, w, false, "%s: init \"%s\" makes "
			    "floats, the dtype is %s: expected float32 or "
			    "float64 (for integers use \"integers\")", ctx,
			    method, gp_dtype_name(dt)));
		if (load_pair(L, mv, w, ctx, method, uni ? "lo, hi" :
		    "mean, std", false, &a, &b, NULL, NULL) < 0)
			return (-1);
		if (uni && !(a < b))
			return (fail(L, w, false, "%s: init \"uniform\" needs "
			    "lo < hi, got %s", ctx, show(L, mv)));
		if (!uni && !(b >= 0))
			return (fail(L, w, false, "%s: init \"normal\" needs "
			    "std >= 0, got %s", ctx, show(L, mv)));
		if (uni && !isfinite(b - a))
			return (fail(L, w, false, "%s: init \"uniform\": hi - "
			    "lo overflows", ctx));
		for (int64_t i = 0; i < n; i++)
			gp_dtype_store(p + (size_t)i * sz, dt, uni ?
			    gp_rng_uniform(&rng, a, b) :
			    gp_rng_normal(&rng, a, b));
	} else {		/* integers */
		int64_t lo, hi;

		if (load_pair(L, mv, w, ctx, "integers", "lo, hi", true, &a,
		    &b, &ia, &ib) < 0)
			return (-1);
		if (ia >= ib)
			return (fail(L, w, false, "%s: init \"integers\" needs "
			    "lo < hi (hi is excluded), got %s", ctx,
			    show(L, mv)));
		if (!gp_dtype_is_float(dt)) {
			gp_dtype_int_range(dt, &lo, &hi);
			if (ia < lo || ib - 1 > hi)
				return (fail(L, w, false, "%s: init "
				    "\"integers\" %s leaves %s's range %"
				    PRId64 "..%" PRId64, ctx, show(L, mv),
				    gp_dtype_name(dt), lo, hi));
		}
		for (int64_t i = 0; i < n; i++)
			store_int(p + (size_t)i * sz, dt,
			    gp_rng_integers(&rng, ia, ib));
	}
	return (0);
}

/* A variable's position: its key (variables come first in the graph). */
static void
var_pos(void *vg, size_t i, const struct gp_jsonpos_elem *e)
{
	struct gp_graph *g = vg;

	if (i < g->n_vars)
		gp_graph_place_var(g, (int)i, e->line, e->col);
}

static int
load_variables(struct loader *L, const json_t *jvars)
{
	struct where wv = w_key(w_root, "variables");
	const char *name;
	json_t *jv;

	json_object_foreach((json_t *)jvars, name, jv) {
		struct where w = w_key(wv, name);
		struct gp_type t = {0};
		enum gp_var_kind kind;
		json_t *e;
		char *ctx;
		int vi, rc = -1;
		const char *s;

		if (check_name(L, name, w, true, "variable name") < 0)
			return (-1);
		ctx = gp_xasprintf("variable '%s'", name);
		if (!json_is_object(jv)) {
			fail(L, w, false, "%s: expected an object like "
			    "{\"kind\": \"input\", \"dtype\": \"float64\", "
			    "\"shape\": [10]}, got %s", ctx, show(L, jv));
			goto out;
		}
		if (check_keys(L, jv, var_keys, w, ctx, 0) < 0)
			goto out;
		if ((e = json_object_get(jv, "kind")) == NULL) {
			fail(L, w, false, "%s: missing \"kind\": expected "
			    "input, shared or constant", ctx);
			goto out;
		}
		if (!json_is_string(e)) {
			bad_type(L, w_key(w, "kind"), ctx, "kind", "\"input\", "
			    "\"shared\" or \"constant\"", e);
			goto out;
		}
		s = json_string_value(e);
		if (strcmp(s, "input") == 0)
			kind = GP_VAR_INPUT;
		else if (strcmp(s, "shared") == 0)
			kind = GP_VAR_SHARED;
		else if (strcmp(s, "constant") == 0)
			kind = GP_VAR_CONSTANT;
		else {
			fail(L, w_key(w, "kind"), false, "%s: unknown kind %s "
			    "(expected input, shared or constant)", ctx,
			    show_name(L, e));
			goto out;
		}
		if ((e = json_object_get(jv, "dtype")) == NULL) {
			fail(L, w, false, "%s: missing \"dtype\": expected one "
			    "of %s", ctx, gp_dtype_names());
			goto out;
		}
		if (!json_is_string(e) ||
		    !gp_dtype_parse(json_string_value(e), &t.dtype)) {
			fail(L, w_key(w, "dtype"), false, "%s: unknown dtype "
			    "%s (expected one of %s)", ctx, show_name(L, e),
			    gp_dtype_names());
			goto out;
		}
		if ((e = json_object_get(jv, "shape")) == NULL) {
			fail(L, w, false, "%s: missing \"shape\": expected an "
			    "array of dimensions like [10, 3] ([] for a "
			    "scalar)", ctx);
			goto out;
		}
		if (load_shape(L, e, w_key(w, "shape"), ctx, &t) < 0)
			goto out;
		/* and all the values together (each is under the limit) */
		L->total += gp_type_nbytes(&t);
		if (L->total > L->limit) {
			fail(L, w_key(w, "shape"), false, "%s: the variables' "
			    "values need %" PRIu64 " bytes with this one, over "
			    "the memory limit of %" PRIu64 " bytes (flag "
			    "memory_limit)", ctx, L->total, L->limit);
			goto out;
		}
		if ((e = json_object_get(jv, "doc")) != NULL &&
		    !json_is_string(e)) {
			bad_type(L, w_key(w, "doc"), ctx, "doc", "a string", e);
			goto out;
		}
		vi = gp_graph_add_var(L->g, name, kind, &t);
		rc = load_init(L, vi, json_object_get(jv, "init"),
		    w_key(w, "init"), ctx);
out:
		free(ctx);
		if (rc < 0)
			return (-1);
	}
	return (0);
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
		return (fail(L, w, false, "%s: unknown op '%s' (did you mean "
		    "'%s'? `gptop --list-ops` lists every op)",
		    node_label(L, i), name, best));
	return (fail(L, w, false, "%s: unknown op '%s' (`gptop --list-ops` "
	    "lists every op)", node_label(L, i), name));
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
	if ((op = find_op(name)) != NULL)
		L->seen_ops[L->n_seen++ % n] = op;
	return (op);
}

/* Places in a node, built only for messages. */
#define NODE_W(i)	w_idx(w_key(w_root, "nodes"), (i))
#define FIELD_W(i, f)	w_key(NODE_W(i), (f))
#define ELEM_W(i, f, k)	w_idx(FIELD_W(i, f), (k))

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
		return (fail(L, NODE_W(i), false, "%s: expected an object like "
		    "{\"op\": \"add\", \"inputs\": [\"x\", \"y\"], "
		    "\"outputs\": [\"z\"]}, got %s", node_label(L, i),
		    show(L, jn)));
	get_node_fields(jn, &f);
	/* the op first, for the label of later messages */
	if (json_is_string(f.op))
		L->cur_op = seen_op(L, json_string_value(f.op));

	if ((e = f.name) != NULL) {
		if (!json_is_string(e))
			return (bad_type(L, FIELD_W(i, "name"),
			    node_label(L, i), "name", "a string", e));
		if (check_name(L, json_string_value(e), FIELD_W(i, "name"),
		    false, "node name") < 0)
			return (-1);
		prev = json_object_get(L->node_names, json_string_value(e));
		if (prev != NULL)
			return (fail(L, FIELD_W(i, "name"), false, "%s: "
			    "duplicate node name '%s' (node %lld has it): "
			    "expected each node's name to be unique",
			    node_label(L, i), json_string_value(e),
			    (long long)json_integer_value(prev)));
		json_object_set_new(L->node_names, json_string_value(e),
		    json_integer((json_int_t)i));
		L->cur_name = json_string_value(e);
	}
	if (f.unknown && check_keys(L, jn, node_keys, NODE_W(i), NULL, i) < 0)
		return (-1);

	if ((e = f.op) == NULL)
		return (fail(L, NODE_W(i), false, "%s: missing \"op\": "
		    "expected the name of an op, like \"add\"",
		    node_label(L, i)));
	if (!json_is_string(e))
		return (bad_type(L, FIELD_W(i, "op"), node_label(L, i), "op",
		    "a string naming an op", e));
	if (L->cur_op == NULL)
		return (unknown_op(L, FIELD_W(i, "op"), i,
		    json_string_value(e)));
	if ((e = f.doc) != NULL && !json_is_string(e))
		return (bad_type(L, FIELD_W(i, "doc"), node_label(L, i), "doc",
		    "a string", e));
	if ((e = f.params) != NULL && !json_is_object(e))
		return (bad_type(L, FIELD_W(i, "params"), node_label(L, i),
		    "params", "an object", e));

	if ((e = f.inputs) == NULL)
		return (fail(L, NODE_W(i), false, "%s: missing \"inputs\": "
		    "expected an array of variable names ([] for none)",
		    node_label(L, i)));
	if (!json_is_array(e))
		return (bad_type(L, FIELD_W(i, "inputs"), node_label(L, i),
		    "inputs", "an array of variable names and literal numbers",
		    e));
	if (json_array_size(e) > INT_MAX / 2)
		return (fail(L, FIELD_W(i, "inputs"), false, "%s: too many "
		    "inputs", node_label(L, i)));
	for (k = 0; k < json_array_size(e); k++) {
		json_t *in = json_array_get(e, k);

		if (!json_is_string(in) && !json_is_number(in) &&
		    !json_is_boolean(in))
			return (fail(L, ELEM_W(i, "inputs", k), false, "%s: "
			    "input %zu is %s: expected a variable name or a "
			    "literal number or boolean", node_label(L, i), k,
			    show(L, in)));
	}
	L->inputs[i] = e;

	if ((e = f.outputs) == NULL)
		return (fail(L, NODE_W(i), false, "%s: missing \"outputs\": "
		    "expected an array of new names", node_label(L, i)));
	if (!json_is_array(e) || json_array_size(e) == 0 ||
	    json_array_size(e) > GP_MAX_OUT)
		return (bad_type(L, FIELD_W(i, "outputs"), node_label(L, i),
		    "outputs", "an array of 1 to 8 new names", e));
	n_out = json_array_size(e);
	for (k = 0; k < n_out; k++) {
		json_t *out = json_array_get(e, k);
		const char *name;
		int v, line = pos[0], col = pos[1];
		bool dup;

		if (!json_is_string(out))
			return (fail(L, ELEM_W(i, "outputs", k), false, "%s: "
			    "output %zu is %s: expected a new name",
			    node_label(L, i), k, show(L, out)));
		name = json_string_value(out);
		if (!name_ok(name) && check_name(L, name,
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
			return (fail(L, ELEM_W(i, "outputs", k), false, "%s: "
			    "duplicate name '%s', already defined at %d:%d: "
			    "expected a new name (each variable and output "
			    "name is unique)", node_label(L, i), name, line,
			    col));
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
		return (fail(L, NODE_W(i), false, "%s: %s", node_label(L, i),
		    err.msg));
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
				return (fail(L, ELEM_W(i, "inputs", k), false,
				    "%s: input '%s' is not defined: expected "
				    "the name of a variable or of a node's "
				    "output", node_label(L, i),
				    json_string_value(e)));
			gp_graph_set_input(g, (int)i, (int)k, v);
			continue;
		}
		/* a literal: named by its value, as Theano's
		 * TensorConstant{2} */
		(void)json_literal(e, &lit);
		name = json_dumps(e, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
		lit.name = name;
		lit.text = show(L, e);
		(void)gp_graph_set_literal(g, (int)i, (int)k, &lit);
		free(name);
	}
	return (0);
}

static int
load_nodes(struct loader *L)
{
	struct gp_graph *g = L->g;
	struct doc *d = &L->doc;
	size_t nn = d->n_nodes;
	int rc = 0;

	if (nn > GP_LOAD_MAX_NODES)
		return (fail(L, w_key(w_root, "nodes"), false, "the graph has "
		    "%zu nodes: expected at most %d", nn, GP_LOAD_MAX_NODES));
	gp_graph_reserve_nodes(g, nn);
	/* room for one output per node at once: growing by doubling would
	 * copy the variables and rebuild the name map several times */
	gp_graph_reserve_vars(g, nn + nn / 8);
	L->inputs = gp_xcalloc(nn + 1, sizeof(*L->inputs));
	for (size_t i = 0; i < nn && rc == 0; i++) {
		int pos[2] = {0, 0};

		if (i == d->n_head && !finish_parse(L))
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

/* Functions. */

static const char *const fn_keys[] = {"outputs", "updates", "doc", NULL};

/* One function; out and upd are the caller's, to free. */
static int
load_function(struct loader *L, const char *fname, const json_t *jf,
    int *out, struct gp_update *upd)
{
	struct gp_graph *g = L->g;
	struct where w = w_key(w_key(w_root, "functions"), fname);
	json_t *jo, *ju, *e;
	const char *tname;
	char ctx[GP_LOAD_MAX_NAME + 16];
	struct gp_err err;
	int n_out = 0, n_upd = 0;
	size_t k;

	snprintf(ctx, sizeof(ctx), "function '%s'", fname);
	if (!json_is_object(jf))
		return (fail(L, w, false, "%s: expected an object like "
		    "{\"outputs\": [\"y\"], \"updates\": {\"w\": "
		    "\"w_new\"}}, got %s", ctx, show(L, jf)));
	if (check_keys(L, jf, fn_keys, w, ctx, 0) < 0)
		return (-1);
	if ((e = json_object_get(jf, "doc")) != NULL && !json_is_string(e))
		return (bad_type(L, w_key(w, "doc"), ctx, "doc", "a string",
		    e));
	jo = json_object_get(jf, "outputs");
	if (jo != NULL && !json_is_array(jo))
		return (bad_type(L, w_key(w, "outputs"), ctx, "outputs",
		    "an array of variable names", jo));
	json_array_foreach(jo, k, e) {
		struct where wo = w_idx(w_key(w, "outputs"), k);
		int v;

		if (!json_is_string(e))
			return (fail(L, wo, false, "%s: output %zu is %s: "
			    "expected a variable name", ctx, k, show(L, e)));
		if ((v = gp_graph_find_var(g, json_string_value(e))) < 0)
			return (fail(L, wo, false, "%s: output '%s' is not "
			    "defined: expected the name of a variable or of a "
			    "node's output", ctx, json_string_value(e)));
		out[n_out++] = v;
	}
	ju = json_object_get(jf, "updates");
	if (ju != NULL && !json_is_object(ju))
		return (bad_type(L, w_key(w, "updates"), ctx, "updates",
		    "an object {\"shared variable\": \"new value\"}", ju));
	json_object_foreach(ju, tname, e) {
		struct where wu = w_key(w_key(w, "updates"), tname);
		int dst, src;

		if ((dst = gp_graph_find_var(g, tname)) < 0)
			return (fail(L, wu, true, "%s: update target '%s' is "
			    "not defined: expected a shared variable", ctx,
			    tname));
		if (gp_graph_check_update(g, dst, -1, &err) < 0)
			return (fail(L, wu, true, "%s: %s", ctx, err.msg));
		if (!json_is_string(e))
			return (fail(L, wu, false, "%s: the update of '%s' is "
			    "%s: expected the name of its new value", ctx,
			    tname, show(L, e)));
		if ((src = gp_graph_find_var(g, json_string_value(e))) < 0)
			return (fail(L, wu, false, "%s: update source '%s' is "
			    "not defined: expected the name of a variable or of "
			    "a node's output", ctx, json_string_value(e)));
		if (gp_graph_check_update(g, dst, src, &err) < 0)
			return (fail(L, wu, false, "%s: %s", ctx, err.msg));
		upd[n_upd++] = (struct gp_update){dst, src};
	}
	if (gp_graph_add_function(g, fname, n_out, out, n_upd, upd, &err) < 0)
		return (fail(L, w, true, "%s: %s", ctx, err.msg));
	return (0);
}

static int
load_functions(struct loader *L, const json_t *jfns)
{
	const char *fname;
	json_t *jf;

	json_object_foreach((json_t *)jfns, fname, jf) {
		json_t *jo = json_object_get(jf, "outputs");
		json_t *ju = json_object_get(jf, "updates");
		int *out;
		struct gp_update *upd;
		int rc;

		if (check_name(L, fname, w_key(w_key(w_root, "functions"),
		    fname), true, "function name") < 0)
			return (-1);
		out = gp_xmalloc(sizeof(int) * (json_array_size(jo) + 1));
		upd = gp_xmalloc(sizeof(*upd) * (json_object_size(ju) + 1));
		rc = load_function(L, fname, jf, out, upd);
		free(out);
		free(upd);
		if (rc < 0)
			return (-1);
	}
	return (0);
}

/* Preparation (graph/build.c), its messages placed in the document. */

/* "FILE:LINE:COL: node 'h' (op 'dot')", "FILE:LINE:COL: function 'f'". */
static void
locate(void *vl, const struct gp_graph *g, const struct gp_graph_site *site,
    struct gp_buf *b)
{
	struct loader *L = vl;
	struct where w;
	bool at_key = false;
	int line, col;

	if (site->kind == GP_SITE_UPDATE) {
		const struct gp_function *fn = &g->fns[site->fn];

		w = w_key(w_key(w_key(w_key(w_root, "functions"), fn->name),
		    "updates"), g->vars[fn->upd[site->k].dst].name);
	} else if (site->kind == GP_SITE_INPUT)
		w = ELEM_W((size_t)site->node, "inputs", (size_t)site->k);
	else
		w = NODE_W((size_t)site->node);
	(void)gp_jsonpos_find(L->text, L->len, w.s, w.n, at_key, &line, &col);
	gp_buf_printf(b, "%s:%d:%d: ", L->file, line, col);
	if (site->kind == GP_SITE_UPDATE)
		gp_graph_site_label(g, site, b);
	else
		gp_buf_puts(b, node_label(L, (size_t)site->node));
}

/* The text, before jansson. */

/* Offset of the first byte that is not valid UTF-8, or n. */
static size_t
utf8_invalid(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i];
		size_t len;
		uint32_t cp, min;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2, cp = c & 0x1f, min = 0x80;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3, cp = c & 0x0f, min = 0x800;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4, cp = c & 0x07, min = 0x10000;
		else
			return (i);
		if (n - i < len)
			return (i);
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return (i);
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return (i);
		i += len;
	}
	return (n);
}

/* Does the text start with a JSON literal (true, false, null)? */
static bool
literal_at(const char *p, size_t n)
{
	static const char *const lits[] = {"true", "false", "null"};

	for (size_t i = 0; i < 3; i++) {
		size_t l = strlen(lits[i]);

		if (n >= l && memcmp(p, lits[i], l) == 0 && (n == l ||
		    strchr(" \t\r\n,]}", p[l]) != NULL))
			return (true);
	}
	return (false);
}

static int
check_text(struct loader *L)
{
	const unsigned char *s = (const unsigned char *)L->text;
	size_t i = 0, bad;
	int line, col;

	while (i < L->len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
	    s[i] == '\r'))
		i++;
	if (i == L->len)
		return (gp_err_set(L->err, "%s:1:1: the file is empty%s: "
		    "expected a graph, a JSON object {\"format\": \""
		    FORMAT "\", ...}", L->file, L->len ? " (only white space)" :
		    ""));
	if ((bad = utf8_invalid(s, L->len)) < L->len) {
		gp_jsonpos_of_offset(L->text, L->len, bad, &line, &col);
		return (gp_err_set(L->err, "%s:%d:%d: invalid UTF-8 (byte "
		    "0x%02x): expected UTF-8 text", L->file, line, col,
		    s[bad]));
	}
	gp_jsonpos_of_offset(L->text, L->len, i, &line, &col);
	if (L->len - i >= 3 && memcmp(s + i, "\xef\xbb\xbf", 3) == 0)
		return (gp_err_set(L->err, "%s:%d:%d: not JSON: the file "
		    "starts with a byte order mark (U+FEFF), which JSON does "
		    "not allow: expected '{'", L->file, line, col));
	if (strchr("{[\"-0123456789tfn", s[i]) == NULL ||
	    (strchr("tfn", s[i]) != NULL && !literal_at(L->text + i,
	    L->len - i))) {
		if (s[i] >= 0x20 && s[i] < 0x7f)
			return (gp_err_set(L->err, "%s:%d:%d: not JSON (the "
			    "text starts with '%c'): expected a graph, a JSON "
			    "object {\"format\": \"" FORMAT "\", ...}", L->file,
			    line, col, s[i]));
		return (gp_err_set(L->err, "%s:%d:%d: not JSON (the text "
		    "starts with byte 0x%02x): expected a graph, a JSON object "
		    "{\"format\": \"" FORMAT "\", ...}", L->file, line, col,
		    s[i]));
	}
	return (0);
}

static int
syntax_error_msg(struct loader *L, const json_error_t *je)
{
	enum json_error_code code = json_error_code(je);
	int line = je->line > 0 ? je->line : 1;
	int col = je->column > 0 ? je->column : 1;

	if (code == json_error_duplicate_key && je->position > 0) {
		size_t end = (size_t)je->position;
		size_t start = gp_jsonpos_string_start(L->text, L->len, end);

		if (start < end) {
			gp_jsonpos_of_offset(L->text, L->len, start, &line,
			    &col);
			return (gp_err_set(L->err, "%s:%d:%d: duplicate key "
			    "%.*s: expected each key once in an object (each "
			    "name once)", L->file, line, col,
			    (int)(end - start > 200 ? 200 : end - start),
			    L->text + start));
		}
	}
	if (code == json_error_stack_overflow)
		return (gp_err_set(L->err, "%s:%d:%d: JSON syntax error: %s "
		    "(jansson reads at most %d levels of nesting)", L->file,
		    line, col, je->text, JSON_PARSER_MAX_DEPTH));
	if (strncmp(je->text, "real number overflow", 20) == 0)
		return (gp_err_set(L->err, "%s:%d:%d: JSON syntax error: %s: "
		    "expected a finite number (at most 1.8e308 in "
		    "magnitude)", L->file, line, col, je->text));
	if (strstr(je->text, "near 'NaN'") != NULL ||
	    strstr(je->text, "near 'Infinity'") != NULL ||
	    strstr(je->text, "near '-Infinity'") != NULL)
		return (gp_err_set(L->err, "%s:%d:%d: JSON syntax error: %s: "
		    "JSON has no NaN or Infinity, expected a finite number",
		    L->file, line, col, je->text));
	return (gp_err_set(L->err, "%s:%d:%d: JSON syntax error: %s",
	    L->file, line, col, je->text));
}

static int
syntax_error(struct loader *L, const json_error_t *je)
{
	/* jansson quotes the text as it is: gp_err_set escapes it */
	return (syntax_error_msg(L, je));
}

/* Parsing. */

/* Split parsing pays off from this much node text on. */
#define SPLIT_MIN	(1 << 20)
/* The tail's share of the nodes' text, in percent (see parse_split). */
#define TAIL_PCT	55
/* The most padding a piece may need to keep its line and column. */
#define PAD_MAX		4096

static void *
parse_part(void *vp)
{
	struct part *p = vp;

	(void)gp_json_arena_begin(&p->arena, 64 * p->len + (1 << 20));
	p->root = json_loadb(p->buf, p->len, JSON_REJECT_DUPLICATES |
	    JSON_DECODE_ANY, &p->je);
	gp_json_arena_leave(&p->arena);
	return (NULL);
}

/* The text of a parsed piece is not needed any more: jansson keeps
 * copies of what it needs. */
static void
drop_text(struct part *p)
{
	if (p->owned)
		free((char *)p->buf);
	p->buf = NULL;
	p->owned = false;
}

static void
join_tail(struct doc *d)
{
	if (d->pending)
		pthread_join(d->th, NULL);
	d->pending = false;
}

static void
release_part(struct part *p)
{
	gp_json_arena_end(&p->arena, p->root);
	p->root = NULL;
	if (p->owned)
		free((char *)p->buf);
	p->buf = NULL;
	p->owned = false;
}

static void
collect_elem(void *vd, size_t i, const struct gp_jsonpos_elem *e)
{
	struct doc *d = vd;

	gp_grow(&d->elems, &d->cap_elems, i + 1, sizeof(*d->elems));
	d->elems[i] = *e;
	d->n_elems = i + 1;
}

static bool
is_space(char c)
{
	return (c == ' ' || c == '\t' || c == '\n' || c == '\r');
}

static bool
all_space(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!is_space(*p))
			return (false);
	return (true);
}

static size_t
count_chars(const char *p, const char *end)
{
	size_t n = 0;

	for (; p < end; p++)
		if (((unsigned char)*p & 0xc0) != 0x80)
			n++;
	return (n);
}

/* text[start, end) in a buffer of its own at the same line and column,
 * wrapped in "[[ ]]" so it nests as deep as in the document (jansson's
 * depth limit then falls at the same place). */
static bool
wrap_piece(struct part *p, const char *text, size_t start, size_t end,
    int line, int col)
{
	size_t nl, sp, n = end - start;
	char *b, *q;

	if (col > PAD_MAX || line < 1)
		return (false);
	if (col >= 3) {
		nl = (size_t)line - 1;
		sp = (size_t)col - 3;
	} else if (line >= 2) {
		nl = (size_t)line - 2;
		sp = (size_t)col - 1;
	} else
		return (false);
	q = b = gp_xmalloc(nl + sp + n + 8);
	memset(q, '\n', nl);
	q += nl;
	if (col >= 3) {
		memset(q, ' ', sp);
		q += sp;
		*q++ = '[';
		*q++ = '[';
	} else {
		*q++ = '[';
		*q++ = '[';
		*q++ = '\n';
		memset(q, ' ', sp);
		q += sp;
	}
	memcpy(q, text + start, n);
	q += n;
	*q++ = ']';
	*q++ = ']';
	p->buf = b;
	p->len = (size_t)(q - b);
	p->owned = true;
	return (true);
}

/* The tail's nodes, once parsed; false if they are not all there. */
static bool
take_tail(struct doc *d)
{
	json_t *tail = json_array_get(d->part[2].root, 0);

	drop_text(&d->part[2]);
	if (json_array_size(tail) != d->n_nodes - d->n_head)
		return (false);
	for (size_t i = d->n_head; i < d->n_nodes; i++)
		d->nodes[i] = json_array_get(tail, i - d->n_head);
	return (true);
}

/*
 * A big graph is mostly its "nodes" array, and jansson parses at one
 * speed, so the array is parsed in two pieces on two threads while the
 * rest of the document (with the array emptied) is parsed as well.  Each
 * piece keeps its text at the same line and column, so anything the
 * pieces hold is where it is in the file.  The gaps between the pieces
 * are checked here; if anything fails, the caller parses the whole text
 * again for jansson's own message.
 */
static bool
parse_split(struct loader *L)
{
	struct doc *d = &L->doc;
	const char *t = L->text;
	const struct gp_jsonpos_elem *e = d->elems;
	size_t n = d->n_elems, open, close, k, nl = 0, pad;
	const char *lastnl;
	json_t *head, *jn;
	char *b;

	if (n < 2 || e[n - 1].end - e[0].start < SPLIT_MIN)
		return (false);
	/* the array's brackets: only white space between them and the
	 * first and last elements */
	for (open = e[0].start; open > 0 && is_space(t[open - 1]); open--)
		;
	for (close = e[n - 1].end; close < L->len && is_space(t[close]);
	    close++)
		;
	if (open == 0 || t[--open] != '[' || close == L->len ||
	    t[close++] != ']')
		return (false);
	/* the text between the elements: white space and one comma */
	for (size_t i = 0; i + 1 < n; i++) {
		const char *p = t + e[i].end, *q = t + e[i + 1].start;
		const char *c = memchr(p, ',', (size_t)(q - p));

		if (c == NULL || !all_space(p, c) || !all_space(c + 1, q))
			return (false);
	}
	/* the tail, parsed by the second thread while this one parses the
	 * rest and the head and then reads the head's nodes: TAIL_PCT of the
	 * nodes' text keeps both threads about equally busy */
	for (k = 1; k < n - 1; k++)
		if ((e[n - 1].end - e[k].start) * 100 <=
		    (e[n - 1].end - e[0].start) * TAIL_PCT)
			break;
	/* the rest: the array emptied, keeping later lines and columns */
	for (const char *p = t + open + 1;
	    (p = memchr(p, '\n', (size_t)(t + close - 1 - p))) != NULL; p++)
		nl++;
	lastnl = NULL;
	for (const char *p = t + close - 1; p > t + open; p--)
		if (p[-1] == '\n') {
			lastnl = p;
			break;
		}
	pad = count_chars(lastnl != NULL ? lastnl : t + open + 1,
	    t + close - 1);
	if (pad > PAD_MAX)
		return (false);
	b = gp_xmalloc(L->len - (close - 1 - open - 1) + nl + pad + 1);
	memcpy(b, t, open + 1);
	memset(b + open + 1, '\n', nl);
	memset(b + open + 1 + nl, ' ', pad);
	memcpy(b + open + 1 + nl + pad, t + close - 1, L->len - (close - 1));
	d->part[0] = (struct part){.buf = b, .owned = true,
	    .len = open + 1 + nl + pad + L->len - (close - 1)};
	if (!wrap_piece(&d->part[1], t, e[0].start, e[k - 1].end, e[0].line,
	    e[0].col) || !wrap_piece(&d->part[2], t, e[k].start,
	    e[n - 1].end, e[k].line, e[k].col))
		goto fail;

	/* the tail goes on in the background while the head's nodes are
	 * read (load_nodes calls finish_parse when it reaches the tail) */
	d->pending = pthread_create(&d->th, NULL, parse_part,
	    &d->part[2]) == 0;
	parse_part(&d->part[0]);
	parse_part(&d->part[1]);
	if (!d->pending)
		parse_part(&d->part[2]);
	/* jansson keeps copies of what it needs: drop the pieces now */
	for (int i = 0; i < 2; i++)
		drop_text(&d->part[i]);

	head = json_array_get(d->part[1].root, 0);
	jn = json_object_get(d->part[0].root, "nodes");
	if (!json_is_object(d->part[0].root) || !json_is_array(jn) ||
	    json_array_size(jn) != 0 || json_array_size(head) != k)
		goto fail;
	d->nodes = gp_xcalloc(n + 1, sizeof(*d->nodes));
	for (size_t i = 0; i < k; i++)
		d->nodes[i] = json_array_get(head, i);
	d->n_nodes = n;
	d->n_head = k;
	L->root = d->part[0].root;
	if (!d->pending && !take_tail(d))
		goto fail;
	return (true);
fail:
	join_tail(d);
	for (int i = 0; i < 3; i++)
		release_part(&d->part[i]);
	free(d->nodes);
	d->nodes = NULL;
	d->n_nodes = d->n_head = 0;
	return (false);
}

/* Wait for the tail of a split parse; false with the error set.  A tail
 * that does not parse means the text does not: it is parsed again whole,
 * for jansson's own message (and should that succeed, the load starts
 * over without splitting). */
static bool
finish_parse(struct loader *L)
{
	struct doc *d = &L->doc;
	struct part whole = {.buf = L->text, .len = L->len};

	if (!d->pending)
		return (true);
	join_tail(d);
	if (take_tail(d))
		return (true);
	parse_part(&whole);
	if (whole.root == NULL)
		syntax_error(L, &whole.je);
	else {
		L->retry = true;
		gp_err_set(L->err, "%s: the nodes could not be read in pieces",
		    L->file);
	}
	release_part(&whole);
	return (false);
}

/* Parse the text into L->root and L->doc; false with the error set. */
static bool
parse(struct loader *L)
{
	struct doc *d = &L->doc;
	struct gp_jsonpos_step at = {.key = "nodes"};
	struct part *p = &d->part[0];
	json_t *jn;

	/* where the nodes are: their positions, and the pieces to split */
	d->have_elems = gp_jsonpos_each(L->text, L->len, &at, 1,
	    collect_elem, d) >= 0;
	if (d->have_elems && !L->no_split && parse_split(L))
		return (true);
	*p = (struct part){.buf = L->text, .len = L->len};
	parse_part(p);
	if (p->root == NULL) {
		syntax_error(L, &p->je);
		release_part(p);
		return (false);
	}
	L->root = p->root;
	jn = json_object_get(p->root, "nodes");
	if (json_is_object(p->root) && json_is_array(jn)) {
		d->n_nodes = json_array_size(jn);
		d->nodes = gp_xmalloc(sizeof(*d->nodes) * (d->n_nodes + 1));
		for (size_t i = 0; i < d->n_nodes; i++)
			d->nodes[i] = json_array_get(jn, i);
	}
	return (true);
}

static void
release_doc(struct doc *d)
{
	join_tail(d);
	for (int i = 0; i < 3; i++)
		release_part(&d->part[i]);
	free(d->nodes);
	free(d->elems);
}

/* The whole document. */

static const char *const top_keys[] = {
	"format", "name", "doc", "variables", "nodes", "functions", NULL
};

static char *
default_name(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base != NULL ? base + 1 : path;
	n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".json") == 0)
		n -= 5;
	if (n == 0)
		return (gp_xstrdup("graph"));
	return (gp_xasprintf("%.*s", (int)n, base));
}

static int
load_root(struct loader *L)
{
	json_t *root = L->root, *e, *jvars, *jnodes, *jfns;
	char *name;

	if (!json_is_object(root))
		return (fail(L, w_root, false, "the top-level value is %s: "
		    "expected a graph, an object {\"format\": \"" FORMAT
		    "\", ...}", gp_jsonpos_kind(root)));
	if ((e = json_object_get(root, "format")) == NULL)
		return (fail(L, w_root, false, "missing \"format\": expected "
		    "\"format\": \"" FORMAT "\""));
	if (!json_is_string(e) || strcmp(json_string_value(e), FORMAT) != 0)
		return (fail(L, w_key(w_root, "format"), false, "unsupported "
		    "format %s: expected \"" FORMAT "\"", show(L, e)));
	if (check_keys(L, root, top_keys, w_root, "", 0) < 0)
		return (-1);
	if ((e = json_object_get(root, "name")) != NULL) {
		if (!json_is_string(e))
			return (bad_type(L, w_key(w_root, "name"), "", "name",
			    "a string", e));
		if (check_name(L, json_string_value(e), w_key(w_root, "name"),
		    false, "graph name") < 0)
			return (-1);
		name = gp_xstrdup(json_string_value(e));
	} else
		name = default_name(L->g->path[0] != '\0' ? L->g->path :
		    "graph");
	gp_graph_set_name(L->g, name);
	free(name);
	if ((e = json_object_get(root, "doc")) != NULL && !json_is_string(e))
		return (bad_type(L, w_key(w_root, "doc"), "", "doc",
		    "a string", e));
	jvars = json_object_get(root, "variables");
	if (jvars != NULL && !json_is_object(jvars))
		return (bad_type(L, w_key(w_root, "variables"), "", "variables",
		    "an object {\"name\": {\"kind\": ..., \"dtype\": ..., "
		    "\"shape\": ...}}", jvars));
	jnodes = json_object_get(root, "nodes");
	if (jnodes != NULL && !json_is_array(jnodes))
		return (bad_type(L, w_key(w_root, "nodes"), "", "nodes",
		    "an array of {\"op\": ..., \"inputs\": ..., "
		    "\"outputs\": ...}", jnodes));
	jfns = json_object_get(root, "functions");
	if (jfns == NULL)
		return (fail(L, w_root, false, "missing \"functions\": "
		    "expected at least one, like \"functions\": {\"f\": "
		    "{\"outputs\": [\"y\"]}}"));
	if (!json_is_object(jfns))
		return (bad_type(L, w_key(w_root, "functions"), "", "functions",
		    "an object {\"name\": {\"outputs\": [...]}}", jfns));
	if (json_object_size(jfns) == 0)
		return (fail(L, w_key(w_root, "functions"), false, "no "
		    "functions: expected at least one, like {\"f\": "
		    "{\"outputs\": [\"y\"]}}"));

	if (jvars != NULL && load_variables(L, jvars) < 0)
		return (-1);
	if (jvars != NULL) {
		struct gp_jsonpos_step at = {.key = "variables"};

		(void)gp_jsonpos_each(L->text, L->len, &at, 1, var_pos, L->g);
	}
	if (load_nodes(L) < 0)
		return (-1);
	if (load_functions(L, jfns) < 0)
		return (-1);
	return (gp_graph_prepare(L->g, &(struct gp_graph_locator){
	    .where = locate, .ctx = L}, L->err));
}

/* One load of L's text, split or not: the graph, or NULL with the error
 * set (and L->retry when it should be loaded again without splitting). */
static struct gp_graph *
load_text(struct loader *L, const struct gp_load_opts *o)
{
	struct gp_graph *g = NULL;

	if (!parse(L)) {
		release_doc(&L->doc);
		return (NULL);
	}
	L->g = gp_graph_new(NULL);
	gp_graph_set_source(L->g, &(struct gp_graph_source){.path = L->path,
	    .dir = L->dir, .limit_bytes = L->limit,
	    .allow_extern = o != NULL && o->allow_extern});
	L->node_names = json_object();
	L->no_params = json_object();
	if (load_root(L) == 0) {
		g = L->g;
		L->g = NULL;
	} else if (!L->retry) {
		/* a text that does not parse says so first, wherever in the
		 * text that is: the tail of a split parse is waited for */
		(void)finish_parse(L);
	}
	gp_graph_free(L->g);
	release_doc(&L->doc);
	json_decref(L->node_names);
	json_decref(L->no_params);
	gp_buf_free(&L->shown[0]);
	gp_buf_free(&L->shown[1]);
	gp_buf_free(&L->label);
	free(L->inputs);
	return (g);
}

struct gp_graph *
gp_graph_load_buf(const char *text, size_t len, const char *path_for_messages,
    const char *dir, const struct gp_load_opts *o, struct gp_err *err)
{
	struct loader L = {0};
	struct gp_graph *g;

	L.file = path_for_messages != NULL ? path_for_messages : "<graph>";
	L.path = path_for_messages != NULL ? path_for_messages : "";
	L.dir = dir != NULL ? dir : ".";
	L.text = text;
	L.len = len;
	L.err = err;
	L.limit = o != NULL && o->limit_bytes != 0 ? o->limit_bytes :
	    gp_graph_default_limit();
	if (check_text(&L) < 0)
		return (NULL);
	g = load_text(&L, o);
	if (g == NULL && L.retry) {
		struct loader again = {.file = L.file, .path = L.path,
		    .dir = L.dir, .text = text, .len = len, .err = err,
		    .limit = L.limit, .no_split = true};

		g = load_text(&again, o);
	}
	return (g);
}

struct gp_graph *
gp_graph_load(const char *path, const struct gp_load_opts *o,
    struct gp_err *err)
{
	struct gp_graph *g;
	struct stat st;
	char *text = NULL, *dir;
	const char *slash;
	size_t len = 0, cap = 0;
	int fd;

	/* a FIFO or a device is refused before a read could block */
	if ((fd = gp_open_regular(path, "a graph file (JSON)", &st, err)) < 0)
		return (NULL);
	/* the whole file, plus a byte to see the end */
	gp_grow(&text, &cap, st.st_size > 0 ? (size_t)st.st_size + 1 : 65536,
	    1);
	for (;;) {
		ssize_t r;

		if (len == cap)
			gp_grow(&text, &cap, len + 65536, 1);
		r = read(fd, text + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			gp_err_set(err, "%s: cannot read: %s", path,
			    strerror(errno));
			free(text);
			close(fd);
			return (NULL);
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	slash = strrchr(path, '/');
	if (slash == NULL)
		dir = gp_xstrdup(".");
	else if (slash == path)
		dir = gp_xstrdup("/");
	else
		dir = gp_xasprintf("%.*s", (int)(slash - path), path);
	g = gp_graph_load_buf(text, len, path, dir, o, err);
	free(dir);
	free(text);
	return (g);
}
