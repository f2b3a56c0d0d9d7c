/*
 * graph-json.c: the graph loader (see graph-json.h and
 * doc/graph-format.md).  The text is checked (not empty, UTF-8, looks like
 * JSON), parsed by jansson with duplicate keys rejected, then read in
 * passes: variables and their initial values; nodes, whose outputs are
 * named before any input is resolved (a node may use a later node's
 * output); functions; then every node prepared in a topological order,
 * which also finds cycles; last, the updates' types.  The first problem
 * stops the load with one message placed by jsonpos.c.
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
#include "load/npy.h"
#include "graph/op.h"
#include "base/rng.h"

#define FORMAT		"gptop-graph/1"
#define MAX_STEPS	16

/* A place in the document: the steps from the top-level object. */
struct where {
	struct gp_jsonpos_step	s[MAX_STEPS];
	int			n;
};

/* A literal node input: an anonymous 0-d constant typed at prepare. */
struct lit {
	int		 var;
	int		 k;	/* input position */
	json_t		*val;	/* borrowed from the document */
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
	struct lit		*lits;
	size_t			 n_lits, cap_lits;
	size_t			*lit_start;	/* per node, into lits */
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

uint64_t
gp_graph_default_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || psz <= 0)
		return ((uint64_t)1 << 30);
	return ((uint64_t)pages * (uint64_t)psz / 2);
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

/* "node 3 (op 'add')" or "node 'double' (op 'mul')". */
static const char *
node_label(struct loader *L, size_t i)
{
	const struct gp_node *n = i < L->g->n_nodes ? &L->g->nodes[i] : NULL;

	gp_buf_clear(&L->label);
	if (n != NULL && n->name != NULL)
		gp_buf_printf(&L->label, "node '%s'", n->name);
	else
		gp_buf_printf(&L->label, "node %zu", i);
	if (n != NULL && n->op != NULL)
		gp_buf_printf(&L->label, " (op '%s')", n->op->name);
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
int_range(enum gp_dtype dt, int64_t *lo, int64_t *hi)
{
	switch (dt) {
	case GP_BOOL:
		*lo = 0, *hi = 1;
		break;
	case GP_INT8:
		*lo = INT8_MIN, *hi = INT8_MAX;
		break;
	case GP_INT16:
		*lo = INT16_MIN, *hi = INT16_MAX;
		break;
	case GP_INT32:
		*lo = INT32_MIN, *hi = INT32_MAX;
		break;
	case GP_UINT8:
		*lo = 0, *hi = UINT8_MAX;
		break;
	case GP_UINT16:
		*lo = 0, *hi = UINT16_MAX;
		break;
	case GP_UINT32:
		*lo = 0, *hi = UINT32_MAX;
		break;
	case GP_UINT64:
		*lo = 0, *hi = INT64_MAX;	/* all JSON can say */
		break;
	default:
		*lo = INT64_MIN, *hi = INT64_MAX;
		break;
	}
}

static void
store_int(void *p, enum gp_dtype dt, int64_t v)
{
	gp_dtype_convert(p, dt, &v, GP_INT64, 0, 1);
}

/* Store the JSON scalar v as one element of dtype dt at p.  A problem is
 * described in why (for "expected ..." messages) and -1 returned. */
static int
store_scalar(void *p, enum gp_dtype dt, const json_t *v, char *why,
    size_t cap)
{
	int64_t lo, hi;

	if (json_is_boolean(v)) {
		store_int(p, dt, json_is_true(v));
		return (0);
	}
	if (json_is_integer(v)) {
		int64_t x = json_integer_value(v);

		if (gp_dtype_is_float(dt)) {
			store_int(p, dt, x);
			return (0);
		}
		int_range(dt, &lo, &hi);
		if (x < lo || x > hi) {
			snprintf(why, cap, "a value in %" PRId64 "..%" PRId64
			    " for %s", lo, hi, gp_dtype_name(dt));
			return (-1);
		}
		store_int(p, dt, x);
		return (0);
	}
	if (json_is_real(v)) {
		double x = json_real_value(v);

		if (dt == GP_FLOAT64) {
			*(double *)p = x;
			return (0);
		}
		if (dt == GP_FLOAT32) {
			if (fabs(x) > FLT_MAX) {
				snprintf(why, cap, "a value within float32's "
				    "range (+-%g)", (double)FLT_MAX);
				return (-1);
			}
			*(float *)p = (float)x;
			return (0);
		}
		int_range(dt, &lo, &hi);
		if (x != floor(x) || x < (double)lo ||
		    x >= -(double)INT64_MIN || x > (double)hi) {
			snprintf(why, cap, "%s for %s", dt == GP_BOOL ?
			    "true, false, 0 or 1" : "an integer",
			    gp_dtype_name(dt));
			return (-1);
		}
		store_int(p, dt, (int64_t)x);
		return (0);
	}
	snprintf(why, cap, "a number%s", dt == GP_BOOL ? " or a boolean" : "");
	return (-1);
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
fill_values(struct loader *L, struct gp_var *var, const json_t *v, int dim,
    struct where w, const char *ctx, char **p)
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
init_npy(struct loader *L, struct gp_var *var, const json_t *v,
    struct where w, const char *ctx)
{
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
	} else {
		gp_tensor_release(&var->value);
		var->value = t;
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
	struct gp_var *var = &L->g->vars[vi];
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
		gp_tensor_alloc_zero(&var->value, dt, var->type.ndim,
		    var->type.shape);
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
		return (init_npy(L, var, mv, w, ctx));
	gp_tensor_alloc(&var->value, dt, var->type.ndim, var->type.shape);
	p = gp_tensor_data(&var->value);

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

			int_range(dt, &lo, &hi);
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
			int_range(dt, &lo, &hi);
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

	if (i < g->n_vars) {
		g->vars[i].line = e->line;
		g->vars[i].col = e->col;
	}
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

/* First pass over one node: its fields, op and named outputs. */
static int
load_node(struct loader *L, const json_t *jn, size_t i, const int *pos)
{
	struct gp_graph *g = L->g;
	struct node_fields f;
	struct gp_node *n;
	json_t *e, *prev;
	size_t k;

	n = &g->nodes[g->n_nodes++];
	memset(n, 0, sizeof(*n));
	for (int d = 0; d < GP_MAX_OUT; d++)
		n->destroy[d] = n->view[d] = -1;
	n->line = pos[0];
	n->col = pos[1];
	if (!json_is_object(jn))
		return (fail(L, NODE_W(i), false, "%s: expected an object like "
		    "{\"op\": \"add\", \"inputs\": [\"x\", \"y\"], "
		    "\"outputs\": [\"z\"]}, got %s", node_label(L, i),
		    show(L, jn)));
	get_node_fields(jn, &f);
	/* the op first, for the label of later messages */
	if (json_is_string(f.op))
		n->op = seen_op(L, json_string_value(f.op));

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
		n->name = gp_xstrdup(json_string_value(e));
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
	if (n->op == NULL)
		return (unknown_op(L, FIELD_W(i, "op"), i,
		    json_string_value(e)));
	if ((e = f.doc) != NULL && !json_is_string(e))
		return (bad_type(L, FIELD_W(i, "doc"), node_label(L, i), "doc",
		    "a string", e));
	if ((e = f.params) != NULL && !json_is_object(e))
		return (bad_type(L, FIELD_W(i, "params"), node_label(L, i),
		    "params", "an object", e));
	/* a copy: the document goes with its arena */
	n->params = e != NULL ? json_deep_copy(e) : json_incref(L->no_params);

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
	n->n_in = (int)json_array_size(e);
	n->in = gp_xmalloc(sizeof(int) * (size_t)(n->n_in ? n->n_in : 1));

	if ((e = f.outputs) == NULL)
		return (fail(L, NODE_W(i), false, "%s: missing \"outputs\": "
		    "expected an array of new names", node_label(L, i)));
	if (!json_is_array(e) || json_array_size(e) == 0 ||
	    json_array_size(e) > GP_MAX_OUT)
		return (bad_type(L, FIELD_W(i, "outputs"), node_label(L, i),
		    "outputs", "an array of 1 to 8 new names", e));
	n->out = gp_xmalloc(sizeof(int) * json_array_size(e));
	for (k = 0; k < json_array_size(e); k++) {
		json_t *out = json_array_get(e, k);
		const char *name;
		int v;

		if (!json_is_string(out))
			return (fail(L, ELEM_W(i, "outputs", k), false, "%s: "
			    "output %zu is %s: expected a new name",
			    node_label(L, i), k, show(L, out)));
		name = json_string_value(out);
		if (!name_ok(name) && check_name(L, name,
		    ELEM_W(i, "outputs", k), false, "output name") < 0)
			return (-1);
		if ((v = gp_graph_find_var(g, name)) >= 0)
			return (fail(L, ELEM_W(i, "outputs", k), false, "%s: "
			    "duplicate name '%s', already defined at %d:%d: "
			    "expected a new name (each variable and output "
			    "name is unique)", node_label(L, i), name,
			    g->vars[v].line, g->vars[v].col));
		v = gp_graph_add_var(g, name, GP_VAR_TEMP, NULL);
		n = &g->nodes[i];
		n->out[k] = v;
		n->n_out = (int)k + 1;
		g->vars[v].producer = (int)i;
		g->vars[v].producer_out = (int)k;
		g->vars[v].line = n->line;
		g->vars[v].col = n->col;
	}
	return (0);
}

/* Second pass: resolve the inputs (every output is named by now). */
static int
resolve_inputs(struct loader *L, size_t i)
{
	struct gp_graph *g = L->g;
	json_t *jin = L->inputs[i], *e;
	size_t k;

	L->lit_start[i] = L->n_lits;
	json_array_foreach(jin, k, e) {
		int v;

		if (json_is_string(e)) {
			v = gp_graph_find_var(g, json_string_value(e));
			if (v < 0)
				return (fail(L, ELEM_W(i, "inputs", k), false,
				    "%s: input '%s' is not defined: expected "
				    "the name of a variable or of a node's "
				    "output", node_label(L, i),
				    json_string_value(e)));
		} else {
			struct gp_type t = {.dtype = GP_FLOAT64, .ndim = 0};

			v = gp_graph_add_var(g, NULL, GP_VAR_CONSTANT, &t);
			g->vars[v].line = g->nodes[i].line;
			g->vars[v].col = g->nodes[i].col;
			gp_grow(&L->lits, &L->cap_lits, L->n_lits + 1,
			    sizeof(*L->lits));
			L->lits[L->n_lits++] = (struct lit){v, (int)k,
			    (json_t *)e};
		}
		g->nodes[i].in[k] = v;
	}
	L->lit_start[i + 1] = L->n_lits;
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
	gp_grow(&g->nodes, &g->cap_nodes, nn, sizeof(*g->nodes));
	/* room for one output per node at once: growing by doubling would
	 * copy the variables and rebuild the name map several times */
	gp_graph_reserve_vars(g, nn + nn / 8);
	L->inputs = gp_xcalloc(nn + 1, sizeof(*L->inputs));
	L->lit_start = gp_xcalloc(nn + 1, sizeof(*L->lit_start));
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

/* Prepare, in a topological order. */

/* Type node i's literal inputs the way numpy treats Python scalars. */
static int
type_literals(struct loader *L, size_t i)
{
	struct gp_graph *g = L->g;
	struct gp_node *n = &g->nodes[i];
	size_t a = L->lit_start[i], b = L->lit_start[i + 1];
	enum gp_dtype common = GP_BOOL;
	bool any = false;

	if (a == b)
		return (0);
	for (int k = 0; k < n->n_in; k++) {
		bool lit = false;

		for (size_t j = a; j < b; j++)
			if (L->lits[j].k == k)
				lit = true;
		if (lit)
			continue;
		common = any ? gp_dtype_promote(common,
		    g->vars[n->in[k]].type.dtype) :
		    g->vars[n->in[k]].type.dtype;
		any = true;
	}
	for (size_t j = a; j < b; j++) {
		struct gp_var *v = &g->vars[L->lits[j].var];
		const json_t *e = L->lits[j].val;
		enum gp_dtype dt;
		char why[128];

		if (json_is_boolean(e))
			dt = GP_BOOL;
		else if (json_is_integer(e))
			dt = !any || common == GP_BOOL ? GP_INT64 : common;
		else
			dt = any && gp_dtype_is_float(common) ? common :
			    GP_FLOAT64;
		v->type.dtype = dt;
		v->type.ndim = 0;
		gp_tensor_release(&v->value);
		gp_tensor_alloc(&v->value, dt, 0, NULL);
		{
			/* named by its value, as Theano's TensorConstant{2} */
			char *txt = json_dumps(e, JSON_ENCODE_ANY |
			    JSON_REAL_PRECISION(15));

			if (txt != NULL) {
				gp_graph_rename_var(g, L->lits[j].var, txt);
				free(txt);
			}
			v = &g->vars[L->lits[j].var];
		}
		if (store_scalar(gp_tensor_data(&v->value), dt, e, why,
		    sizeof(why)) < 0)
			return (fail(L, w_idx(w_key(w_idx(w_key(w_root,
			    "nodes"), i), "inputs"), (size_t)L->lits[j].k),
			    false, "%s: literal %s does not fit the node's "
			    "%s inputs: expected %s (or a variable of a wider "
			    "type)", node_label(L, i), show(L, e),
			    gp_dtype_name(dt), why));
	}
	return (0);
}

static int
report_cycle(struct loader *L, const int *pending)
{
	struct gp_graph *g = L->g;
	size_t nn = g->n_nodes, start = 0, m, first, c0;
	int *mark = gp_xmalloc(sizeof(int) * nn);
	int *seq = gp_xmalloc(sizeof(int) * nn), *cyc, x, steps = 0;
	struct gp_buf b = {0};
	int rc;

	for (size_t i = 0; i < nn; i++)
		mark[i] = -1;
	while (pending[start] == 0)
		start++;
	/* walk to unfinished producers (each unfinished node has one)
	 * until a node repeats */
	x = (int)start;
	while (mark[x] < 0) {
		const struct gp_node *n = &g->nodes[x];
		int next = -1;

		mark[x] = steps;
		seq[steps++] = x;
		for (int k = 0; k < n->n_in && next < 0; k++) {
			int p = g->vars[n->in[k]].producer;

			if (p >= 0 && pending[p] > 0)
				next = p;
		}
		x = next;
	}
	/* seq[mark[x]..steps) is the cycle against the data flow: reverse
	 * it, then start at the node that comes first in the file */
	c0 = (size_t)mark[x];
	cyc = seq + c0;
	m = (size_t)steps - c0;
	for (size_t j = 0; j < m / 2; j++) {
		int t = cyc[j];

		cyc[j] = cyc[m - 1 - j];
		cyc[m - 1 - j] = t;
	}
	first = 0;
	for (size_t j = 1; j < m; j++)
		if (cyc[j] < cyc[first])
			first = j;
	for (size_t j = 0; j <= m; j++) {
		int a = cyc[(first + j) % m], c = cyc[(first + j + 1) % m];
		const struct gp_node *na = &g->nodes[a], *nc = &g->nodes[c];
		int v = na->out[0];

		if (j == 8 && m > 8) {
			gp_buf_puts(&b, " -> ...");
			break;
		}
		/* the output of a that c reads */
		for (int k = 0; k < nc->n_in; k++)
			if (g->vars[nc->in[k]].producer == a)
				v = nc->in[k];
		gp_buf_printf(&b, "%s'%s'", j ? " -> " : "", g->vars[v].name);
	}
	x = cyc[first];
	rc = fail(L, w_idx(w_key(w_root, "nodes"), (size_t)x), false,
	    "%s: the graph has a cycle (%s, each computed from the one "
	    "before): expected no node to depend on its own output",
	    node_label(L, (size_t)x), gp_buf_str(&b));
	gp_buf_free(&b);
	free(mark);
	free(seq);
	return (rc);
}

static int
prepare_all(struct loader *L)
{
	struct gp_graph *g = L->g;
	size_t nn = g->n_nodes, nv = g->n_vars, head = 0, tail = 0;
	int *pending, *cstart, *clist, *queue;
	struct gp_err e;
	int rc = -1;

	pending = gp_xcalloc(nn + 1, sizeof(int));
	cstart = gp_xcalloc(nv + 2, sizeof(int));
	queue = gp_xmalloc(sizeof(int) * (nn + 1));
	for (size_t i = 0; i < nn; i++) {
		const struct gp_node *n = &g->nodes[i];

		for (int k = 0; k < n->n_in; k++)
			if (g->vars[n->in[k]].producer >= 0) {
				pending[i]++;
				cstart[n->in[k] + 1]++;
			}
	}
	for (size_t v = 0; v < nv; v++)
		cstart[v + 1] += cstart[v];
	clist = gp_xmalloc(sizeof(int) * ((size_t)cstart[nv] + 1));
	{
		int *fill = gp_xmalloc(sizeof(int) * (nv + 1));

		memcpy(fill, cstart, sizeof(int) * nv);
		for (size_t i = 0; i < nn; i++) {
			const struct gp_node *n = &g->nodes[i];

			for (int k = 0; k < n->n_in; k++)
				if (g->vars[n->in[k]].producer >= 0)
					clist[fill[n->in[k]]++] = (int)i;
		}
		free(fill);
	}
	for (size_t i = 0; i < nn; i++)
		if (pending[i] == 0)
			queue[tail++] = (int)i;
	while (head < tail) {
		int x = queue[head++];
		const struct gp_node *n;

		if (type_literals(L, (size_t)x) < 0)
			goto out;
		if (gp_graph_prepare_node(g, x, &e) < 0) {
			fail(L, w_idx(w_key(w_root, "nodes"), (size_t)x),
			    false, "%s: %s", node_label(L, (size_t)x), e.msg);
			goto out;
		}
		n = &g->nodes[x];
		for (int k = 0; k < n->n_out; k++) {
			int v = n->out[k];

			for (int c = cstart[v]; c < cstart[v + 1]; c++)
				if (--pending[clist[c]] == 0)
					queue[tail++] = clist[c];
		}
	}
	if (tail < nn)
		report_cycle(L, pending);
	else
		rc = 0;
out:
	free(pending);
	free(cstart);
	free(clist);
	free(queue);
	return (rc);
}

/* Functions. */

static const char *const fn_keys[] = {"outputs", "updates", "doc", NULL};

static int
load_functions(struct loader *L, const json_t *jfns)
{
	struct gp_graph *g = L->g;
	struct where wf = w_key(w_root, "functions");
	const char *fname;
	json_t *jf;
	size_t fi = 0;

	g->fns = gp_xcalloc(json_object_size(jfns) + 1, sizeof(*g->fns));
	json_object_foreach((json_t *)jfns, fname, jf) {
		struct where w = w_key(wf, fname);
		struct gp_function *fn = &g->fns[fi];
		json_t *jo, *ju, *e;
		const char *tname;
		char ctx[GP_LOAD_MAX_NAME + 16];
		size_t k;

		if (check_name(L, fname, w, true, "function name") < 0)
			return (-1);
		snprintf(ctx, sizeof(ctx), "function '%s'", fname);
		fn->name = gp_xstrdup(fname);
		g->n_fns = ++fi;
		if (!json_is_object(jf))
			return (fail(L, w, false, "%s: expected an object like "
			    "{\"outputs\": [\"y\"], \"updates\": {\"w\": "
			    "\"w_new\"}}, got %s", ctx, show(L, jf)));
		if (check_keys(L, jf, fn_keys, w, ctx, 0) < 0)
			return (-1);
		if ((e = json_object_get(jf, "doc")) != NULL &&
		    !json_is_string(e))
			return (bad_type(L, w_key(w, "doc"), ctx, "doc",
			    "a string", e));
		jo = json_object_get(jf, "outputs");
		if (jo != NULL && !json_is_array(jo))
			return (bad_type(L, w_key(w, "outputs"), ctx, "outputs",
			    "an array of variable names", jo));
		fn->out = gp_xmalloc(sizeof(int) * (json_array_size(jo) + 1));
		json_array_foreach(jo, k, e) {
			struct where wo = w_idx(w_key(w, "outputs"), k);
			int v;

			if (!json_is_string(e))
				return (fail(L, wo, false, "%s: output %zu is "
				    "%s: expected a variable name", ctx, k,
				    show(L, e)));
			if ((v = gp_graph_find_var(g, json_string_value(e))) <
			    0)
				return (fail(L, wo, false, "%s: output '%s' is "
				    "not defined: expected the name of a "
				    "variable or of a node's output", ctx,
				    json_string_value(e)));
			fn->out[fn->n_out++] = v;
		}
		ju = json_object_get(jf, "updates");
		if (ju != NULL && !json_is_object(ju))
			return (bad_type(L, w_key(w, "updates"), ctx, "updates",
			    "an object {\"shared variable\": \"new value\"}",
			    ju));
		fn->upd = gp_xmalloc(sizeof(*fn->upd) *
		    (json_object_size(ju) + 1));
		json_object_foreach(ju, tname, e) {
			struct where wu = w_key(w_key(w, "updates"), tname);
			static const char *const kinds[] = {
				"an input", "a shared", "a constant",
				"a computed"
			};
			int dst, src;

			if ((dst = gp_graph_find_var(g, tname)) < 0)
				return (fail(L, wu, true, "%s: update target "
				    "'%s' is not defined: expected a shared "
				    "variable", ctx, tname));
			if (g->vars[dst].kind != GP_VAR_SHARED)
				return (fail(L, wu, true, "%s: cannot update "
				    "'%s', %s variable: expected a shared "
				    "variable (only those keep state)", ctx,
				    tname, kinds[g->vars[dst].kind]));
			if (!json_is_string(e))
				return (fail(L, wu, false, "%s: the update of "
				    "'%s' is %s: expected the name of its new "
				    "value", ctx, tname, show(L, e)));
			if ((src = gp_graph_find_var(g, json_string_value(e)))
			    < 0)
				return (fail(L, wu, false, "%s: update source "
				    "'%s' is not defined: expected the name of "
				    "a variable or of a node's output", ctx,
				    json_string_value(e)));
			if (src == dst)
				return (fail(L, wu, false, "%s: update of '%s' "
				    "to itself: expected a new value computed "
				    "by a node", ctx, tname));
			fn->upd[fn->n_upd++] = (struct gp_update){dst, src};
		}
	}
	return (0);
}

/* After prepare: each update's source has its target's type. */
static int
check_updates(struct loader *L, const json_t *jfns)
{
	struct gp_graph *g = L->g;
	const char *fname, *tname;
	json_t *jf, *e;
	size_t fi = 0;

	json_object_foreach((json_t *)jfns, fname, jf) {
		const struct gp_function *fn = &g->fns[fi++];
		int k = 0;

		json_object_foreach(json_object_get(jf, "updates"), tname, e) {
			const struct gp_update *u = &fn->upd[k++];
			struct gp_buf a = {0}, b = {0};

			if (gp_type_equal(&g->vars[u->dst].type,
			    &g->vars[u->src].type))
				continue;
			gp_type_format(&a, &g->vars[u->dst].type);
			gp_type_format(&b, &g->vars[u->src].type);
			fail(L, w_key(w_key(w_key(w_key(w_root, "functions"),
			    fname), "updates"), tname), false, "function '%s': "
			    "update of '%s' (%s) from '%s' (%s): expected the "
			    "same dtype and shape", fname, tname,
			    gp_buf_str(&a), json_string_value(e),
			    gp_buf_str(&b));
			gp_buf_free(&a);
			gp_buf_free(&b);
			return (-1);
		}
	}
	return (0);
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
	free(L->g->name);
	L->g->name = name;
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
	if (prepare_all(L) < 0)
		return (-1);
	return (check_updates(L, jfns));
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
	free(L->g->path);
	free(L->g->dir);
	L->g->path = gp_xstrdup(L->path);
	L->g->dir = gp_xstrdup(L->dir);
	L->g->limit_bytes = L->limit;
	L->g->allow_extern = o != NULL && o->allow_extern;
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
	free(L->lits);
	free(L->lit_start);
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
