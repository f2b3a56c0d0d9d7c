/*
 * onnx-read.c: reads an ONNX model file and validates it (see
 * onnx-read.h).  The bytes are decoded by protobuf-c with the code
 * generated from ONNX's onnx.proto at build time; this file only checks
 * what was decoded: the graph's names resolve in order (subgraphs see
 * their outer scopes), tensors agree with their shapes and the memory
 * limit, external data stays in the model's folder.
 */
#include "config.h"

#include "load/onnx-read.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "load/graph-json.h"

#define T(x) ONNX__TENSOR_PROTO__DATA_TYPE__##x

/* ONNX's dtypes: name, bytes per element, gptop's dtype (-1: none). */
static const struct {
	const char	*name;
	size_t		 size;
	int		 gp;
} DTYPES[] = {
    [T(UNDEFINED)] = {.name = "undefined", .size = 0, .gp = -1},
    [T(FLOAT)] = {.name = "float32", .size = 4, .gp = GP_FLOAT32},
    [T(UINT8)] = {.name = "uint8", .size = 1, .gp = GP_UINT8},
    [T(INT8)] = {.name = "int8", .size = 1, .gp = GP_INT8},
    [T(UINT16)] = {.name = "uint16", .size = 2, .gp = GP_UINT16},
    [T(INT16)] = {.name = "int16", .size = 2, .gp = GP_INT16},
    [T(INT32)] = {.name = "int32", .size = 4, .gp = GP_INT32},
    [T(INT64)] = {.name = "int64", .size = 8, .gp = GP_INT64},
    [T(STRING)] = {.name = "string", .size = 0, .gp = -1},
    [T(BOOL)] = {.name = "bool", .size = 1, .gp = GP_BOOL},
    [T(FLOAT16)] = {.name = "float16", .size = 2, .gp = -1},
    [T(DOUBLE)] = {.name = "float64", .size = 8, .gp = GP_FLOAT64},
    [T(UINT32)] = {.name = "uint32", .size = 4, .gp = GP_UINT32},
    [T(UINT64)] = {.name = "uint64", .size = 8, .gp = GP_UINT64},
    [T(COMPLEX64)] = {.name = "complex64", .size = 8, .gp = -1},
    [T(COMPLEX128)] = {.name = "complex128", .size = 16, .gp = -1},
    [T(BFLOAT16)] = {.name = "bfloat16", .size = 2, .gp = -1},
};
#define N_DTYPES ((int)(sizeof(DTYPES) / sizeof(DTYPES[0])))

const char *
gp_onnx_dtype_name(int t)
{
	return (t > 0 && t < N_DTYPES ? DTYPES[t].name : "unknown");
}

size_t
gp_onnx_dtype_size(int t)
{
	return (t > 0 && t < N_DTYPES ? DTYPES[t].size : 0);
}

bool
gp_onnx_dtype_to_gp(int t, enum gp_dtype *out)
{
	if (t <= 0 || t >= N_DTYPES || DTYPES[t].gp < 0)
		return (false);
	*out = (enum gp_dtype)DTYPES[t].gp;
	return (true);
}

bool
gp_onnx_is_model_path(const char *path)
{
	size_t n = strlen(path);

	return (n > 5 && strcmp(path + n - 5, ".onnx") == 0);
}

static const char *
str(const char *s)
{
	return (s != NULL ? s : "");
}

/* Open path (a WHAT) through the regular-file check (a FIFO, a device or
 * a folder would block or mislead); its size in *size. */
static int
open_regular(const char *path, const char *what, uint64_t *size,
    struct gp_err *err)
{
	struct stat st;
	int fd = gp_open_regular(path, what, &st, err);

	if (fd >= 0)
		*size = (uint64_t)st.st_size;
	return (fd);
}

/* Read n bytes at off of fd (named path in errors) into dst. */
static int
read_at(int fd, const char *path, void *dst, uint64_t n, uint64_t off,
    struct gp_err *err)
{
	char *p = dst;

	while (n > 0) {
		ssize_t r = pread(fd, p, n > (1u << 30) ? (1u << 30) : n,
		    (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return (gp_err_set(err, "%s: cannot read: %s", path,
			    strerror(errno)));
		if (r == 0)
			return (gp_err_set(err, "%s: the file ended early",
			    path));
		p += r;
		off += (uint64_t)r;
		n -= (uint64_t)r;
	}
	return (0);
}

/*
 * The names defined so far in one graph, in an open-addressing hash set;
 * a subgraph's scope points to its outer one.
 */
struct scope {
	const char	**slot;
	size_t		  cap, n;
	const struct scope *outer;
};

static uint64_t
hash_name(const char *s)
{
	return (gp_hash_bytes(GP_HASH_INIT, s, strlen(s)));
}

static bool
scope_has_here(const struct scope *s, const char *name)
{
	size_t i;

	if (s->cap == 0)
		return (false);
	for (i = hash_name(name) & (s->cap - 1); s->slot[i] != NULL;
	    i = (i + 1) & (s->cap - 1))
		if (strcmp(s->slot[i], name) == 0)
			return (true);
	return (false);
}

static bool
scope_has(const struct scope *s, const char *name)
{
	for (; s != NULL; s = s->outer)
		if (scope_has_here(s, name))
			return (true);
	return (false);
}

/* Add name; false when it was there already. */
static bool
scope_add(struct scope *s, const char *name)
{
	size_t i;

	if (scope_has_here(s, name))
		return (false);
	if (2 * (s->n + 1) > s->cap) {
		struct scope big = {.cap = s->cap ? 2 * s->cap : 64};

		big.slot = gp_xcalloc(big.cap, sizeof(*big.slot));
		for (i = 0; i < s->cap; i++)
			if (s->slot[i] != NULL)
				scope_add(&big, s->slot[i]);
		free(s->slot);
		s->slot = big.slot;
		s->cap = big.cap;
	}
	for (i = hash_name(name) & (s->cap - 1); s->slot[i] != NULL;
	    i = (i + 1) & (s->cap - 1))
		;
	s->slot[i] = name;
	s->n++;
	return (true);
}

/* The reading in progress. */
struct reader {
	struct gp_onnx_model	*m;
	const char		*path;
	uint64_t		 limit;
};

uint64_t
gp_onnx_tensor_nbytes(const Onnx__TensorProto *t)
{
	uint64_t n = 1;

	for (size_t d = 0; d < t->n_dims; d++)
		n *= (uint64_t)t->dims[d];
	return (n * gp_onnx_dtype_size(t->data_type));
}

/* "float32 [2,3]" of a tensor into b. */
static const char *
tensor_type_str(struct gp_buf *b, const Onnx__TensorProto *t)
{
	gp_buf_printf(b, "%s [", gp_onnx_dtype_name(t->data_type));
	for (size_t d = 0; d < t->n_dims; d++)
		gp_buf_printf(b, "%s%" PRId64, d ? "," : "", t->dims[d]);
	gp_buf_puts(b, "]");
	return (gp_buf_str(b));
}

/* The external-data entry key of t, or NULL. */
static const char *
ext_entry(const Onnx__TensorProto *t, const char *key)
{
	for (size_t i = 0; i < t->n_external_data; i++)
		if (t->external_data[i]->key != NULL &&
		    strcmp(t->external_data[i]->key, key) == 0)
			return (str(t->external_data[i]->value));
	return (NULL);
}

/* Parse an external-data offset or length (a non-negative decimal). */
static bool
parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return (false);
	errno = 0;
	*v = strtoull(s, &end, 10);
	return (errno == 0 && *end == '\0');
}

/*
 * Resolve the external file of t inside the model's folder: a relative
 * location with no ".." that does not leave the folder through a symbolic
 * link either.  Returns the open descriptor and the file's path in *full.
 */
static int
ext_open(const struct gp_onnx_model *m, const char *what,
    const Onnx__TensorProto *t, char **full, uint64_t *size,
    struct gp_err *err)
{
	const char *loc = ext_entry(t, "location");
	char *real = NULL, *realdir = NULL;
	size_t n;
	int fd;

	*full = NULL;
	if (loc == NULL || loc[0] == '\0')
		return (gp_err_set(err, "%s: %s: external data without a "
		    "location", m->path, what));
	if (loc[0] == '/')
		return (gp_err_set(err, "%s: %s: external data location '%s' "
		    "is an absolute path: expected a file in the model's "
		    "folder", m->path, what, loc));
	for (const char *p = loc; *p != '\0';) {
		size_t k = strcspn(p, "/");

		if (k == 2 && p[0] == '.' && p[1] == '.')
			return (gp_err_set(err, "%s: %s: external data "
			    "location '%s' leaves the model's folder (..)",
			    m->path, what, loc));
		p += k;
		p += *p == '/';
	}
	*full = gp_xasprintf("%s/%s", m->dir, loc);
	if ((fd = open_regular(*full, "external tensor data", size,
	    err)) < 0) {
		gp_err_prefix(err, "%s: %s: external data", m->path, what);
		return (-1);
	}
	real = realpath(*full, NULL);
	realdir = realpath(m->dir, NULL);
	n = realdir != NULL ? strlen(realdir) : 0;
	if (real == NULL || realdir == NULL || strncmp(real, realdir, n) != 0 ||
	    (real[n] != '/' && !(n == 1 && realdir[0] == '/'))) {
		gp_err_set(err, "%s: %s: external data location '%s' leaves "
		    "the model's folder (%s)", m->path, what, loc,
		    real != NULL ? real : "unresolvable");
		close(fd);
		fd = -1;
	}
	free(real);
	free(realdir);
	return (fd);
}

/* The offset and length of t's external data, checked against the file. */
static int
ext_range(const struct gp_onnx_model *m, const char *what,
    const Onnx__TensorProto *t, uint64_t fsize, uint64_t *off, uint64_t *len,
    struct gp_err *err)
{
	const char *so = ext_entry(t, "offset"), *sl = ext_entry(t, "length");

	*off = 0;
	if (so != NULL && !parse_u64(so, off))
		return (gp_err_set(err, "%s: %s: external data offset '%s' "
		    "is not a non-negative integer", m->path, what, so));
	if (sl != NULL && !parse_u64(sl, len))
		return (gp_err_set(err, "%s: %s: external data length '%s' "
		    "is not a non-negative integer", m->path, what, sl));
	if (*off > fsize)
		return (gp_err_set(err, "%s: %s: external data offset %" PRIu64
		    " is past the end of its file (%" PRIu64 " bytes)",
		    m->path, what, *off, fsize));
	if (sl == NULL)
		*len = fsize - *off;
	if (*len > fsize - *off)
		return (gp_err_set(err, "%s: %s: external data needs %" PRIu64
		    " bytes from offset %" PRIu64 ", but its file has %" PRIu64,
		    m->path, what, *len, *off, fsize));
	return (0);
}

/* Check one tensor (an initializer or a tensor attribute): its dtype is
 * known, its shape fits the memory limit, its data matches its shape. */
static int
check_tensor(struct reader *R, const Onnx__TensorProto *t, const char *what,
    struct gp_err *err)
{
	struct gp_buf b = {0};
	uint64_t count = 1, nbytes, have, want;
	int dt = t->data_type;
	size_t per = 1;

	if (dt <= 0 || dt >= N_DTYPES)
		return (gp_err_set(err, "%s: %s: unknown data type %d",
		    R->path, what, dt));
	if (t->n_dims > GP_ONNX_MAX_DIMS)
		return (gp_err_set(err, "%s: %s: %zu dimensions: expected at "
		    "most %d", R->path, what, t->n_dims, GP_ONNX_MAX_DIMS));
	for (size_t d = 0; d < t->n_dims; d++) {
		if (t->dims[d] < 0) {
			gp_err_set(err, "%s: %s: %s has a negative dimension",
			    R->path, what, tensor_type_str(&b, t));
			gp_buf_free(&b);
			return (-1);
		}
		if (t->dims[d] != 0 &&
		    count > UINT64_MAX / 16 / (uint64_t)t->dims[d]) {
			gp_err_set(err, "%s: %s: %s overflows: its byte count "
			    "does not fit in 64 bits", R->path, what,
			    tensor_type_str(&b, t));
			gp_buf_free(&b);
			return (-1);
		}
		count *= (uint64_t)t->dims[d];
	}
	nbytes = count * (dt == T(STRING) ? 1 : DTYPES[dt].size);
	if (nbytes > R->limit) {
		gp_err_set(err, "%s: %s: %s needs %" PRIu64 " bytes, over the "
		    "memory limit of %" PRIu64 " bytes (flag memory_limit)",
		    R->path, what, tensor_type_str(&b, t), nbytes, R->limit);
		gp_buf_free(&b);
		return (-1);
	}
	if (t->has_data_location &&
	    t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		uint64_t fsize, off, len;
		char *full;
		int fd = ext_open(R->m, what, t, &full, &fsize, err), rc = -1;

		if (fd >= 0) {
			close(fd);
			rc = ext_range(R->m, what, t, fsize, &off, &len, err);
			if (rc == 0 && dt != T(STRING) && len != nbytes)
				rc = gp_err_set(err, "%s: %s: external data "
				    "holds %" PRIu64 " bytes for %s (expected %"
				    PRIu64 ")", R->path, what, len,
				    tensor_type_str(&b, t), nbytes);
		}
		free(full);
		gp_buf_free(&b);
		return (rc);
	}
	if (t->has_raw_data) {
		have = t->raw_data.len;
		want = nbytes;
		if (dt != T(STRING) && have != want) {
			gp_err_set(err, "%s: %s: %" PRIu64 " bytes of raw data "
			    "for %s (expected %" PRIu64 ")", R->path, what,
			    have, tensor_type_str(&b, t), want);
			gp_buf_free(&b);
			return (-1);
		}
		return (0);
	}
	switch (dt) {
	case T(FLOAT):
		have = t->n_float_data;
		break;
	case T(COMPLEX64):
		have = t->n_float_data, per = 2;
		break;
	case T(DOUBLE):
		have = t->n_double_data;
		break;
	case T(COMPLEX128):
		have = t->n_double_data, per = 2;
		break;
	case T(INT64):
		have = t->n_int64_data;
		break;
	case T(UINT32):
	case T(UINT64):
		have = t->n_uint64_data;
		break;
	case T(STRING):
		have = t->n_string_data;
		break;
	default:	/* the small ints, bool, float16, bfloat16 */
		have = t->n_int32_data;
		break;
	}
	if (have != count * per) {
		gp_err_set(err, "%s: %s: %" PRIu64 " values for %s (expected %"
		    PRIu64 ")", R->path, what, have, tensor_type_str(&b, t),
		    count * per);
		gp_buf_free(&b);
		return (-1);
	}
	return (0);
}

static bool
is_graph_input(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_input; i++)
		if (strcmp(str(g->input[i]->name), name) == 0)
			return (true);
	return (false);
}

static int check_graph(struct reader *R, const Onnx__GraphProto *g,
    const struct scope *outer, const char *where, struct gp_err *err);

/* A node's tensor and graph attributes. */
static int
check_attrs(struct reader *R, const Onnx__NodeProto *n, const char *where,
    const struct scope *s, struct gp_err *err)
{
	char *what;
	int rc;

	for (size_t a = 0; a < n->n_attribute; a++) {
		const Onnx__AttributeProto *at = n->attribute[a];

		if (at->t != NULL) {
			what = gp_xasprintf("%s: attribute '%s'",
			    where, str(at->name));
			rc = check_tensor(R, at->t, what, err);
			free(what);
			if (rc < 0)
				return (-1);
		}
		for (size_t k = 0; k < at->n_tensors; k++) {
			what = gp_xasprintf("%s: attribute '%s' "
			    "tensor %zu", where, str(at->name), k);
			rc = check_tensor(R, at->tensors[k], what, err);
			free(what);
			if (rc < 0)
				return (-1);
		}
		if (at->g != NULL) {
			what = gp_xasprintf("%s: attribute '%s'",
			    where, str(at->name));
			rc = check_graph(R, at->g, s, what, err);
			free(what);
			if (rc < 0)
				return (-1);
		}
		for (size_t k = 0; k < at->n_graphs; k++) {
			what = gp_xasprintf("%s: attribute '%s' "
			    "graph %zu", where, str(at->name), k);
			rc = check_graph(R, at->graphs[k], s, what, err);
			free(what);
			if (rc < 0)
				return (-1);
		}
	}
	return (0);
}

/* Validate graph g (the main graph when outer is NULL): names resolve in
 * order, none is defined twice, tensors are sound. */
static int
check_graph(struct reader *R, const Onnx__GraphProto *g,
    const struct scope *outer, const char *where, struct gp_err *err)
{
	struct scope s = {.outer = outer};
	char *what = NULL, *pre;
	int rc = -1;

	pre = gp_xasprintf("%s%s", where, where[0] ? ": " : "");
	for (size_t i = 0; i < g->n_input; i++)
		if (!scope_add(&s, str(g->input[i]->name))) {
			gp_err_set(err, "%s: %sgraph input '%s' is declared "
			    "twice", R->path, pre, str(g->input[i]->name));
			goto out;
		}
	for (size_t i = 0; i < g->n_initializer; i++) {
		const Onnx__TensorProto *t = g->initializer[i];

		free(what);
		what = gp_xasprintf("%sinitializer '%s'", pre,
		    str(t->name));
		if (check_tensor(R, t, what, err) < 0)
			goto out;
		/* an initializer may give a graph input its default */
		if (!scope_add(&s, str(t->name)) &&
		    !is_graph_input(g, str(t->name))) {
			gp_err_set(err, "%s: %sinitializer '%s' is defined "
			    "twice", R->path, pre, str(t->name));
			goto out;
		}
		if (outer == NULL)
			R->m->init_bytes += gp_onnx_tensor_nbytes(t);
	}
	for (size_t i = 0; i < g->n_sparse_initializer; i++) {
		const Onnx__SparseTensorProto *sp = g->sparse_initializer[i];

		if (sp->values != NULL)
			scope_add(&s, str(sp->values->name));
	}
	if (outer == NULL && R->m->init_bytes > R->limit) {
		gp_err_set(err, "%s: the initializers' values need %" PRIu64
		    " bytes, over the memory limit of %" PRIu64 " bytes (flag "
		    "memory_limit)", R->path, R->m->init_bytes, R->limit);
		goto out;
	}
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];

		free(what);
		if (n->name != NULL && n->name[0] != '\0')
			what = gp_xasprintf("%snode %zu '%s' (%s)", pre, i,
			    n->name, str(n->op_type));
		else
			what = gp_xasprintf("%snode %zu (%s)", pre, i,
			    str(n->op_type));
		if (n->op_type == NULL || n->op_type[0] == '\0') {
			gp_err_set(err, "%s: %s: no op_type", R->path, what);
			goto out;
		}
		for (size_t k = 0; k < n->n_input; k++) {
			const char *in = str(n->input[k]);

			if (in[0] != '\0' && !scope_has(&s, in)) {
				gp_err_set(err, "%s: %s: input %zu '%s' is "
				    "neither a graph input, an initializer nor "
				    "an earlier node's output", R->path, what,
				    k, in);
				goto out;
			}
		}
		if (check_attrs(R, n, what, &s, err) < 0)
			goto out;
		for (size_t k = 0; k < n->n_output; k++) {
			const char *o = str(n->output[k]);

			if (o[0] != '\0' && !scope_add(&s, o)) {
				gp_err_set(err, "%s: %s: output %zu '%s' is "
				    "already defined (duplicate output name)",
				    R->path, what, k, o);
				goto out;
			}
		}
	}
	for (size_t i = 0; i < g->n_output; i++) {
		const char *o = str(g->output[i]->name);

		if (!scope_has(&s, o)) {
			gp_err_set(err, "%s: %sgraph output '%s' is neither a "
			    "graph input, an initializer nor a node's output",
			    R->path, pre, o);
			goto out;
		}
	}
	rc = 0;
out:
	free(what);
	free(pre);
	free(s.slot);
	return (rc);
}

/* Describe a graph input or output from its ValueInfoProto. */
static void
describe_io(struct gp_onnx_io *io, const Onnx__ValueInfoProto *v)
{
	const Onnx__TypeProto *tp = v->type;

	io->name = str(v->name);
	io->ndim = -1;
	io->kind = "?";
	if (tp == NULL)
		return;
	switch (tp->value_case) {
	case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
		io->kind = "tensor";
		break;
	case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
		io->kind = "sequence";
		return;
	case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
		io->kind = "map";
		return;
	case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
		io->kind = "optional";
		return;
	case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
		io->kind = "sparse_tensor";
		io->elem_type = tp->sparse_tensor_type->elem_type;
		return;
	default:
		return;
	}
	io->elem_type = tp->tensor_type->elem_type;
	if (tp->tensor_type->shape == NULL)
		return;
	io->ndim = (int)tp->tensor_type->shape->n_dim;
	io->dims = gp_xcalloc((size_t)io->ndim + 1, sizeof(*io->dims));
	io->shape = gp_xcalloc((size_t)io->ndim + 1, sizeof(*io->shape));
	for (int d = 0; d < io->ndim; d++) {
		const Onnx__TensorShapeProto__Dimension *dm =
		    tp->tensor_type->shape->dim[d];

		io->dims[d].value = -1;
		if (dm->value_case ==
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
		    dm->dim_value >= 0)
			io->dims[d].value = dm->dim_value;
		else if (dm->value_case ==
		    ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
		    dm->dim_param != NULL && dm->dim_param[0] != '\0')
			io->dims[d].param = dm->dim_param;
	}
}

static bool
is_initializer(const Onnx__GraphProto *g, const char *name)
{
	for (size_t i = 0; i < g->n_initializer; i++)
		if (strcmp(str(g->initializer[i]->name), name) == 0)
			return (true);
	return (false);
}

/* The graph's inputs (not initializers), outputs and symbolic dims. */
static int
list_io(struct reader *R, struct gp_err *err)
{
	struct gp_onnx_model *m = R->m;
	const Onnx__GraphProto *g = m->graph;

	m->inputs = gp_xcalloc(g->n_input + 1, sizeof(*m->inputs));
	m->outputs = gp_xcalloc(g->n_output + 1, sizeof(*m->outputs));
	m->syms = gp_xcalloc(1, sizeof(*m->syms));
	for (size_t i = 0; i < g->n_input; i++) {
		struct gp_onnx_io *io = &m->inputs[m->n_inputs];

		if (is_initializer(g, str(g->input[i]->name)))
			continue;
		describe_io(io, g->input[i]);
		m->n_inputs++;
		if (io->ndim > GP_ONNX_MAX_DIMS)
			return (gp_err_set(err, "%s: input '%s': %d "
			    "dimensions: expected at most %d", R->path,
			    io->name, io->ndim, GP_ONNX_MAX_DIMS));
		for (int d = 0; d < io->ndim; d++) {
			const char *p = io->dims[d].param;
			int k;

			if (p == NULL)
				continue;
			for (k = 0; k < m->n_syms; k++)
				if (strcmp(m->syms[k], p) == 0)
					break;
			if (k == m->n_syms) {
				m->syms = gp_xrealloc(m->syms,
				    ((size_t)m->n_syms + 1) *
				    sizeof(*m->syms));
				m->syms[m->n_syms++] = p;
			}
		}
	}
	for (size_t i = 0; i < g->n_output; i++)
		describe_io(&m->outputs[m->n_outputs++], g->output[i]);
	return (0);
}

/* protobuf-c's allocator for a model: blocks of GP_ONNX_BIG_BYTES and
 * more (tensors' raw data) are gptop storages, listed so the front-end
 * can find and adopt them; the rest is malloc's. */
struct gp_onnx_bigs {
	struct gp_storage	**st;
	size_t			  n, cap;
};

static void *
pb_alloc(void *ad, size_t size)
{
	struct gp_onnx_bigs *b = ad;
	struct gp_storage *s;

	if (size < GP_ONNX_BIG_BYTES)
		return (malloc(size));
	s = gp_alloc_storage(size);
	gp_grow(&b->st, &b->cap, b->n + 1, sizeof(*b->st));
	b->st[b->n++] = s;
	return (s->data);
}

static void
pb_free(void *ad, void *p)
{
	struct gp_onnx_bigs *b = ad;

	for (size_t i = b->n; p != NULL && i-- > 0;)
		if (b->st[i]->data == p) {
			gp_alloc_unref(b->st[i]);
			b->st[i] = b->st[--b->n];
			return;
		}
	free(p);
}

static ProtobufCAllocator
pb_allocator(struct gp_onnx_bigs *b)
{
	return ((ProtobufCAllocator){.alloc = pb_alloc, .free = pb_free,
	    .allocator_data = b});
}

struct gp_storage *
gp_onnx_tensor_storage(const struct gp_onnx_model *m,
    const Onnx__TensorProto *t)
{
	if (m->bigs == NULL || !t->has_raw_data ||
	    t->raw_data.len < GP_ONNX_BIG_BYTES)
		return (NULL);
	for (size_t i = 0; i < m->bigs->n; i++)
		if (m->bigs->st[i]->data == (char *)t->raw_data.data) {
			gp_alloc_ref(m->bigs->st[i]);
			return (m->bigs->st[i]);
		}
	return (NULL);
}

struct gp_onnx_model *
gp_onnx_read(const char *path, const struct gp_onnx_opts *o,
    struct gp_err *err)
{
	struct gp_onnx_model *m = gp_xcalloc(1, sizeof(*m));
	struct reader R = {.m = m, .path = path};
	const char *slash;
	uint64_t size;
	uint8_t *buf = NULL;
	int fd;
	bool has_default = false;

	err->msg[0] = '\0';
	m->path = gp_xstrdup(path);
	slash = strrchr(path, '/');
	m->dir = slash == NULL ? gp_xstrdup(".") : slash == path ?
	    gp_xstrdup("/") : gp_xasprintf("%.*s", (int)(slash - path), path);
	R.limit = m->limit = o != NULL && o->limit_bytes != 0 ?
	    o->limit_bytes : gp_graph_default_limit();
	if ((fd = open_regular(path, "an ONNX model", &size, err)) < 0)
		goto fail;
	if (size > SIZE_MAX / 2 || size > 2 * (uint64_t)INT32_MAX) {
		/* protobuf's own limit is 2 GiB: larger models keep their
		 * weights in external data */
		gp_err_set(err, "%s: %" PRIu64 " bytes: over protobuf's 2 GiB "
		    "limit (large models keep their weights in external data)",
		    path, size);
		close(fd);
		goto fail;
	}
	/* decoded straight from the page cache: the bytes fields are
	 * copied out by protobuf-c, so the mapping goes right after */
	buf = size > 0 ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) :
	    (uint8_t *)"";
	if (buf == MAP_FAILED) {
		gp_err_set(err, "%s: cannot read: %s", path, strerror(errno));
		close(fd);
		goto fail;
	}
	close(fd);
	m->bigs = gp_xcalloc(1, sizeof(*m->bigs));
	{
		ProtobufCAllocator pa = pb_allocator(m->bigs);

		m->proto = onnx__model_proto__unpack(&pa, size, buf);
	}
	if (size > 0)
		munmap(buf, size);
	if (m->proto == NULL) {
		gp_err_set(err, "%s: not an ONNX model: the protobuf does not "
		    "decode (a truncated file, or not a protobuf)", path);
		goto fail;
	}
	if ((m->graph = m->proto->graph) == NULL) {
		gp_err_set(err, "%s: an ONNX model with no graph (an empty or "
		    "foreign protobuf, or a model holding only functions)",
		    path);
		goto fail;
	}
	for (size_t i = 0; i < m->proto->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *op = m->proto->opset_import[i];
		const char *dom = str(op->domain);

		if (dom[0] != '\0' && strcmp(dom, "ai.onnx") != 0)
			continue;
		has_default = true;
		m->opset = op->version;
		if (op->version > GP_ONNX_OPSET_MAX) {
			gp_err_set(err, "%s: opset %" PRId64 " of the default "
			    "domain is newer than gptop supports (at most %d)",
			    path, op->version, GP_ONNX_OPSET_MAX);
			goto fail;
		}
	}
	if (!has_default && m->graph->n_node > 0) {
		/* ONNX requires one; without it no op's version is known */
		for (size_t i = 0; i < m->graph->n_node; i++) {
			const char *dom = str(m->graph->node[i]->domain);

			if (dom[0] == '\0' || strcmp(dom, "ai.onnx") == 0) {
				gp_err_set(err, "%s: the model imports no "
				    "opset of the default domain, so its ops' "
				    "versions are unknown", path);
				goto fail;
			}
		}
	}
	if (check_graph(&R, m->graph, NULL, "", err) < 0 ||
	    list_io(&R, err) < 0)
		goto fail;
	return (m);
fail:
	gp_onnx_free(m);
	return (NULL);
}

void
gp_onnx_free(struct gp_onnx_model *m)
{
	if (m == NULL)
		return;
	for (int i = 0; i < m->n_inputs; i++) {
		free(m->inputs[i].dims);
		free(m->inputs[i].shape);
	}
	for (int i = 0; i < m->n_outputs; i++) {
		free(m->outputs[i].dims);
		free(m->outputs[i].shape);
	}
	free(m->inputs);
	free(m->outputs);
	free(m->syms);
	if (m->proto != NULL) {
		ProtobufCAllocator pa = pb_allocator(m->bigs);

		onnx__model_proto__free_unpacked(m->proto, &pa);
	}
	if (m->bigs != NULL) {
		for (size_t i = 0; i < m->bigs->n; i++)	/* never: freed */
			gp_alloc_unref(m->bigs->st[i]);
		free(m->bigs->st);
		free(m->bigs);
	}
	free(m->path);
	free(m->dir);
	free(m);
}

/* Refuse dtype t of the tensor named what when gptop has no such dtype. */
static int
check_dtype(const struct gp_onnx_model *m, int t, const char *what,
    struct gp_err *err)
{
	enum gp_dtype d;

	if (gp_onnx_dtype_to_gp(t, &d))
		return (0);
	return (gp_err_set(err, "%s: %s: dtype %s is not supported (gptop "
	    "computes in float32, float64, int8..int64, uint8..uint64 and "
	    "bool)", m->path, what, gp_onnx_dtype_name(t)));
}

int
gp_onnx_check_dtypes(const struct gp_onnx_model *m, struct gp_err *err)
{
	const Onnx__GraphProto *g = m->graph;
	char what[512];

	for (int pass = 0; pass < 2; pass++) {
		const struct gp_onnx_io *io = pass ? m->outputs : m->inputs;
		int n = pass ? m->n_outputs : m->n_inputs;

		for (int i = 0; i < n; i++) {
			snprintf(what, sizeof(what), "%s '%s'",
			    pass ? "output" : "input", io[i].name);
			if (strcmp(io[i].kind, "?") == 0)
				return (gp_err_set(err, "%s: %s: its type is "
				    "not given in the model", m->path, what));
			if (strcmp(io[i].kind, "tensor") != 0)
				return (gp_err_set(err, "%s: %s: a %s value: "
				    "only tensors are supported", m->path,
				    what, io[i].kind));
			if (check_dtype(m, io[i].elem_type, what, err) < 0)
				return (-1);
		}
	}
	for (size_t i = 0; i < g->n_initializer; i++) {
		snprintf(what, sizeof(what), "initializer '%s'",
		    str(g->initializer[i]->name));
		if (check_dtype(m, g->initializer[i]->data_type, what,
		    err) < 0)
			return (-1);
	}
	if (g->n_sparse_initializer > 0)
		return (gp_err_set(err, "%s: sparse initializer '%s': sparse "
		    "tensors are not supported", m->path,
		    g->sparse_initializer[0]->values != NULL ?
		    str(g->sparse_initializer[0]->values->name) : ""));
	for (size_t i = 0; i < g->n_value_info; i++) {
		const Onnx__TypeProto *tp = g->value_info[i]->type;

		snprintf(what, sizeof(what), "value '%s'",
		    str(g->value_info[i]->name));
		if (tp != NULL &&
		    tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
		    check_dtype(m, tp->tensor_type->elem_type, what, err) < 0)
			return (-1);
	}
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];

		for (size_t a = 0; a < n->n_attribute; a++) {
			const Onnx__TensorProto *t = n->attribute[a]->t;

			if (t == NULL)
				continue;
			snprintf(what, sizeof(what), "node %zu '%s' (%s): "
			    "attribute '%s'", i, str(n->name),
			    str(n->op_type), str(n->attribute[a]->name));
			if (check_dtype(m, t->data_type, what, err) < 0)
				return (-1);
		}
	}
	return (0);
}

int
gp_onnx_binding_parse(const char *arg, struct gp_onnx_binding *b,
    struct gp_err *err)
{
	const char *eq = strchr(arg, '=');
	char *end;
	long long v;

	if (eq == NULL || eq == arg)
		return (gp_err_set(err, "--dim %s: expected NAME=VALUE, like "
		    "batch=8", arg));
	errno = 0;
	v = strtoll(eq + 1, &end, 10);
	if (eq[1] == '\0' || *end != '\0' || errno != 0 || v <= 0)
		return (gp_err_set(err, "--dim %s: the value '%s' is not a "
		    "positive integer", arg, eq + 1));
	b->name = arg;
	b->value = v;
	return (0);
}

/* Whether binding b names sym (b->name runs up to '=' or the end). */
static bool
binding_is(const struct gp_onnx_binding *b, const char *sym)
{
	size_t n = strcspn(b->name, "=");

	return (strlen(sym) == n && memcmp(b->name, sym, n) == 0);
}

int
gp_onnx_bind(struct gp_onnx_model *m, const struct gp_onnx_binding *b, int n,
    struct gp_err *err)
{
	struct gp_buf list = {0}, hint = {0};
	int unbound = 0;

	for (int i = 0; i < n; i++) {
		int k;

		for (k = 0; k < m->n_syms; k++)
			if (binding_is(&b[i], m->syms[k]))
				break;
		if (k < m->n_syms)
			continue;
		for (k = 0; k < m->n_syms; k++)
			gp_buf_printf(&list, "%s%s", k ? ", " : "",
			    m->syms[k]);
		gp_err_set(err, "%s: --dim %.*s: the model has no symbolic "
		    "dimension of that name (%s%s)", m->path,
		    (int)strcspn(b[i].name, "="), b[i].name,
		    m->n_syms ? "its symbolic dimensions: " : "it has none",
		    gp_buf_str(&list));
		gp_buf_free(&list);
		return (-1);
	}
	for (int k = 0; k < m->n_syms; k++) {
		bool found = false;

		for (int i = 0; i < n && !found; i++)
			found = binding_is(&b[i], m->syms[k]);
		if (found)
			continue;
		gp_buf_printf(&list, "%s%s", unbound ? ", " : "", m->syms[k]);
		gp_buf_printf(&hint, " --dim %s=1", m->syms[k]);
		unbound++;
	}
	if (unbound > 0) {
		gp_err_set(err, "%s: %d symbolic dimension%s not bound: %s "
		    "(bind each with --dim NAME=VALUE, e.g.%s)", m->path,
		    unbound, unbound > 1 ? "s" : "", gp_buf_str(&list),
		    gp_buf_str(&hint));
		gp_buf_free(&list);
		gp_buf_free(&hint);
		return (-1);
	}
	for (int i = 0; i < m->n_inputs; i++) {
		struct gp_onnx_io *io = &m->inputs[i];
		uint64_t count = 1;

		if (io->ndim < 0)
			return (gp_err_set(err, "%s: input '%s': its shape is "
			    "not given in the model", m->path, io->name));
		for (int d = 0; d < io->ndim; d++) {
			int64_t v = io->dims[d].value;

			for (int k = 0; k < n && io->dims[d].param != NULL;
			    k++)
				if (binding_is(&b[k], io->dims[d].param))
					v = b[k].value;
			if (v < 0)
				return (gp_err_set(err, "%s: input '%s': "
				    "dimension %d has neither a size nor a "
				    "name to bind", m->path, io->name, d));
			io->shape[d] = v;
			if (v != 0 && count > UINT64_MAX / 16 / (uint64_t)v)
				count = UINT64_MAX / 16;
			else
				count *= (uint64_t)v;
		}
		if (count * gp_onnx_dtype_size(io->elem_type) > m->limit)
			return (gp_err_set(err, "%s: input '%s': %s with these "
			    "dimensions needs %" PRIu64 " bytes, over the "
			    "memory limit of %" PRIu64 " bytes (flag "
			    "memory_limit)", m->path, io->name,
			    gp_onnx_dtype_name(io->elem_type),
			    count * gp_onnx_dtype_size(io->elem_type),
			    m->limit));
	}
	return (0);
}

/* memcpy for the value arrays: an empty one is a NULL pointer, which
 * memcpy may not be given even for 0 bytes */
static void
copy_bytes(void *dst, const void *src, uint64_t n)
{
	if (n > 0)
		memcpy(dst, src, n);
}

int
gp_onnx_tensor_read(const struct gp_onnx_model *m, const Onnx__TensorProto *t,
    void *dst, struct gp_err *err)
{
	uint64_t nbytes = gp_onnx_tensor_nbytes(t), count, fsize, off, len;
	size_t es = gp_onnx_dtype_size(t->data_type);
	char what[300], *full;
	int fd, rc;

	snprintf(what, sizeof(what), "tensor '%s'", str(t->name));
	if (es == 0)
		return (gp_err_set(err, "%s: %s: dtype %s has no fixed size",
		    m->path, what, gp_onnx_dtype_name(t->data_type)));
	count = nbytes / es;
	if (t->has_data_location &&
	    t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		if ((fd = ext_open(m, what, t, &full, &fsize, err)) < 0) {
			free(full);
			return (-1);
		}
		rc = ext_range(m, what, t, fsize, &off, &len, err);
		if (rc == 0 && len != nbytes)
			rc = gp_err_set(err, "%s: %s: external data holds %"
			    PRIu64 " bytes (expected %" PRIu64 ")", m->path,
			    what, len, nbytes);
		if (rc == 0)
			rc = read_at(fd, full, dst, nbytes, off, err);
		close(fd);
		free(full);
		return (rc);
	}
	if (t->has_raw_data) {
		if (t->raw_data.len != nbytes)
			return (gp_err_set(err, "%s: %s: %zu bytes of raw data "
			    "(expected %" PRIu64 ")", m->path, what,
			    t->raw_data.len, nbytes));
		if (nbytes > 0)
			memcpy(dst, t->raw_data.data, nbytes);
		return (0);
	}
	switch (t->data_type) {
	case T(FLOAT):
	case T(COMPLEX64):
		if (t->n_float_data * 4 != nbytes)
			break;
		copy_bytes(dst, t->float_data, nbytes);
		return (0);
	case T(DOUBLE):
	case T(COMPLEX128):
		if (t->n_double_data * 8 != nbytes)
			break;
		copy_bytes(dst, t->double_data, nbytes);
		return (0);
	case T(INT64):
		if (t->n_int64_data != count)
			break;
		copy_bytes(dst, t->int64_data, nbytes);
		return (0);
	case T(UINT64):
		if (t->n_uint64_data != count)
			break;
		copy_bytes(dst, t->uint64_data, nbytes);
		return (0);
	case T(UINT32):
		if (t->n_uint64_data != count)
			break;
		for (uint64_t i = 0; i < count; i++)
			((uint32_t *)dst)[i] = (uint32_t)t->uint64_data[i];
		return (0);
	case T(INT32):
		if (t->n_int32_data != count)
			break;
		copy_bytes(dst, t->int32_data, nbytes);
		return (0);
	default:	/* int32_data holds each value in the low bits */
		if (t->n_int32_data != count)
			break;
		for (uint64_t i = 0; i < count; i++) {
			uint32_t v = (uint32_t)t->int32_data[i];

			if (es == 1)
				((uint8_t *)dst)[i] = (uint8_t)v;
			else
				((uint16_t *)dst)[i] = (uint16_t)v;
		}
		return (0);
	}
	return (gp_err_set(err, "%s: %s: its values do not match its shape",
	    m->path, what));
}
