/*
 * ops/index.c: the index family, ops that read or write elements at
 * positions given by an index tensor, or that order or accumulate along an
 * axis: gather_elements and scatter_elements (ONNX's GatherElements and
 * ScatterElements, numpy's take_along_axis / put_along_axis), gather_nd
 * and scatter_nd (ONNX's GatherND and ScatterND), top_k (values and
 * indices of the k largest or smallest along an axis), cumsum (inclusive or
 * exclusive, forward or reversed) and one_hot.
 *
 * One kernel per op for every dtype: index arithmetic over contiguous
 * copies, elements moved as bytes, and where an op computes on elements
 * (the scatters' reductions, cumsum's sums, top_k's comparisons) a small
 * per-dtype function picked from a table made by one macro.
 *
 * Indices may have any integer dtype (one_hot's any numeric dtype), a
 * negative index counts from the end; an index still out of range when the
 * kernel meets it ends the run with status 2 and a message naming the apply,
 * the index's position and the valid range (gp_fatal_error): the value is
 * data, so prepare cannot see it.
 */
#include "config.h"

#include "ops/ops.h"
#include "ops/scratch.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fatal.h"

enum ix_red { IX_NONE, IX_ADD, IX_MUL, IX_MAX, IX_MIN, IX_RED__COUNT };

static const char *const red_names[IX_RED__COUNT] = {
	[IX_NONE] = "none", [IX_ADD] = "add", [IX_MUL] = "mul",
	[IX_MAX] = "max", [IX_MIN] = "min",
};

struct ix_priv {
	int		 axis;		/* normalized */
	enum ix_red	 red;
	int64_t		 k, depth;
	int		 batch_dims;
	bool		 largest, sorted, exclusive, reverse;
	char		*apply;		/* "FILE:L:C: apply Op(x, i)", for the
					 * run-time errors */
};

static void
free_priv(void *v)
{
	struct ix_priv *p = v;

	if (p != NULL)
		free(p->apply);
	free(p);
}

/* The apply as run-time errors name it: its file, with the node's line and
 * column when known (a graph.json; an ONNX model's node is named after). */
static void
set_apply(struct gp_graph *g, struct gp_node *n, struct ix_priv *p)
{
	struct gp_buf b = {0};

	if (g->path != NULL && g->path[0] != '\0' && n->line > 0)
		gp_buf_printf(&b, "%s:%d:%d: ", g->path, n->line, n->col);
	else if (g->path != NULL && g->path[0] != '\0')
		gp_buf_printf(&b, "%s: ", g->path);	/* an ONNX model */
	gp_buf_puts(&b, "apply ");
	gp_node_format_apply(g, n, &b);
	free(p->apply);
	p->apply = gp_xstrdup(gp_buf_str(&b));
	gp_buf_free(&b);
}

/* An index out of range: the run ends (status 2), naming the apply (and
 * the node's name when a front-end gave one), which index holds the value
 * (its position in the indices, C order flat -> [i, j, ...]) and the valid
 * range. */
static _Noreturn void
fail_index(const struct gp_node *n, const struct gp_tensor *idx, int64_t flat,
    int64_t v, int axis, int64_t dim)
{
	const struct ix_priv *p = n->priv;
	char pos[160];
	int64_t c[GP_MAX_DIMS];
	size_t len = 0;

	for (int d = idx->ndim - 1; d >= 0; d--) {
		c[d] = idx->shape[d] > 0 ? flat % idx->shape[d] : 0;
		flat = idx->shape[d] > 0 ? flat / idx->shape[d] : 0;
	}
	pos[0] = '\0';
	for (int d = 0; d < idx->ndim && len + 24 < sizeof(pos); d++)
		len += (size_t)snprintf(pos + len, sizeof(pos) - len, "%s%"
		    PRId64, d ? ", " : "", c[d]);
	gp_fatal_error("%s%s%s%s: index %" PRId64 " at indices[%s] is out of "
	    "range for axis %d of size %" PRId64 " (valid: %" PRId64 " to %"
	    PRId64 ")", p->apply, n->name != NULL ? " (node '" : "",
	    n->name != NULL ? n->name : "", n->name != NULL ? "')" : "", v,
	    pos, axis, dim, -dim, dim - 1);
}

/* k against an axis of size dim: negative counts from the end; out of
 * range ends the run (entry flat of the indices idx). */
static inline int64_t
norm_index(const struct gp_node *n, const struct gp_tensor *idx, int64_t flat,
    int64_t k, int axis, int64_t dim)
{
	int64_t r = k < 0 ? k + dim : k;

	if (__builtin_expect(r < 0 || r >= dim, 0))
		fail_index(n, idx, flat, k, axis, dim);
	return (r);
}

/* Input k as contiguous int64 indices (any integer dtype, any strides):
 * itself, or a copy in work space (ops/scratch.h). */
static const struct gp_tensor *
indices_i64(struct gp_scratch_tmp *tmp, const struct gp_tensor *src, int k)
{
	return (gp_scratch_as(src, GP_INT64, k, tmp));
}

/* Input k itself when contiguous, else a contiguous copy in work space. */
static const struct gp_tensor *
contiguous(struct gp_scratch_tmp *tmp, const struct gp_tensor *x, int k)
{
	return (gp_scratch_as(x, x->dtype, k, tmp));
}

/* The work space of those copies, for the layouts of the inputs: input
 * k's in its dtype when data[k], as int64 indices when ix[k]. */
static uint64_t
copies_bytes(const struct gp_tensor *const *in, int nin, const bool *data,
    const bool *ix)
{
	uint64_t b = 0;

	for (int k = 0; k < nin; k++)
		if (data[k])
			b += gp_scratch_as_bytes(in[k], in[k]->dtype);
		else if (ix[k])
			b += gp_scratch_as_bytes(in[k], GP_INT64);
	return (b);
}

/* gather's x and indices; scatter's indices and updates (its x is copied
 * into the output). */
static uint64_t
work_gather_scatter(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	static const bool gdata[] = {true, false}, gix[] = {false, true};
	static const bool sdata[] = {false, false, true};
	static const bool six[] = {false, true, false};

	(void)g;
	return (n->n_in == 3 ? copies_bytes(in, 3, sdata, six) :
	    copies_bytes(in, 2, gdata, gix));
}

/* top_k's and cumsum's x. */
static uint64_t
work_x(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	static const bool data[] = {true}, ix[] = {false};

	(void)g;
	(void)n;
	return (copies_bytes(in, 1, data, ix));
}

/* one_hot's indices and values. */
static uint64_t
work_one_hot(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	static const bool data[] = {false, true}, ix[] = {true, false};

	(void)g;
	(void)n;
	return (copies_bytes(in, 2, data, ix));
}

static inline void
copy_elem(char *d, const char *s, size_t esz)
{
	switch (esz) {
	case 1:
		*d = *s;
		break;
	case 2:
		memcpy(d, s, 2);
		break;
	case 4:
		memcpy(d, s, 4);
		break;
	default:
		memcpy(d, s, 8);
		break;
	}
}

/*
 * The per-dtype pieces: one macro writes them for every dtype.
 */
#define IX_TYPES(X)							\
	X(GP_BOOL, _Bool, b, _Bool)					\
	X(GP_INT8, int8_t, i8, unsigned)				\
	X(GP_INT16, int16_t, i16, unsigned)				\
	X(GP_INT32, int32_t, i32, unsigned)				\
	X(GP_INT64, int64_t, i64, uint64_t)				\
	X(GP_UINT8, uint8_t, u8, unsigned)				\
	X(GP_UINT16, uint16_t, u16, unsigned)				\
	X(GP_UINT32, uint32_t, u32, unsigned)				\
	X(GP_UINT64, uint64_t, u64, uint64_t)				\
	X(GP_FLOAT32, float, f32, float)				\
	X(GP_FLOAT64, double, f64, double)

/* T's sums and products are computed in U (an unsigned type for the
 * integers: they wrap like numpy's instead of overflowing, which C leaves
 * undefined for signed types) and converted back. */
/* a product, bools' a logical and */
#define IX_PRODUCT(a, b) _Generic((a), _Bool: (a) && (b), default: (a) * (b))

/* *d = *d (reduction) *s, one element */
typedef void (*comb_fn)(char *d, const char *s);
/* whether a orders before b, largest first (NaN is the largest) */
typedef bool (*gt_fn)(const char *a, const char *b);
/* cumsum over outer x dim x inner contiguous elements along dim */
typedef void (*cum_fn)(char *dst, const char *src, int64_t outer,
    int64_t dim, int64_t inner, bool excl, bool rev);

#define IX_DEF(E, T, N, U)							\
	static void							\
	add_##N(char *d, const char *s)					\
	{								\
		*(T *)d = (T)((U)(*(T *)d) + (U)(*(const T *)s));	\
	}								\
	static void							\
	mul_##N(char *d, const char *s)					\
	{								\
		*(T *)d = (T)IX_PRODUCT((U)(*(T *)d), (U)(*(const T *)s));	\
	}								\
	static void							\
	max_##N(char *d, const char *s)					\
	{								\
		if (*(const T *)s > *(T *)d)				\
			*(T *)d = *(const T *)s;			\
	}								\
	static void							\
	min_##N(char *d, const char *s)					\
	{								\
		if (*(const T *)s < *(T *)d)				\
			*(T *)d = *(const T *)s;			\
	}								\
	static bool							\
	gt_##N(const char *pa, const char *pb)				\
	{								\
		T a = *(const T *)pa, b = *(const T *)pb;		\
									\
		return (a > b || (isnan((double)a) &&			\
		    !isnan((double)b)));				\
	}								\
	static void							\
	cum_##N(char *dst, const char *src, int64_t outer, int64_t dim,	\
	    int64_t inner, bool excl, bool rev)				\
	{								\
		T *o = (T *)dst;					\
		const T *x = (const T *)src;				\
									\
		for (int64_t b = 0; b < outer; b++)			\
			for (int64_t s = 0; s < dim; s++) {		\
				int64_t a = rev ? dim - 1 - s : s;	\
				int64_t pv = rev ? a + 1 : a - 1;	\
				T *oa = o + (b * dim + a) * inner;	\
				const T *op = o + (b * dim + pv) * inner;	\
				const T *xa = x + (b * dim + a) * inner;	\
				const T *xp = x + (b * dim + pv) * inner;	\
									\
				if (s == 0 && excl) {			\
					GP_SIMD for (int64_t j = 0; j < inner; j++)	\
						oa[j] = (T)0;		\
				} else if (s == 0) {			\
					GP_SIMD for (int64_t j = 0; j < inner; j++)	\
						oa[j] = xa[j];		\
				} else if (excl) {			\
					GP_SIMD for (int64_t j = 0; j < inner; j++)	\
						oa[j] = (T)((U)op[j] + (U)xp[j]);	\
				} else {				\
					GP_SIMD for (int64_t j = 0; j < inner; j++)	\
						oa[j] = (T)((U)op[j] + (U)xa[j]);	\
				}					\
			}						\
	}
IX_TYPES(IX_DEF)

#define IX_ADD_E(E, T, N, U) [E] = add_##N,
#define IX_MUL_E(E, T, N, U) [E] = mul_##N,
#define IX_MAX_E(E, T, N, U) [E] = max_##N,
#define IX_MIN_E(E, T, N, U) [E] = min_##N,
#define IX_GT_E(E, T, N, U) [E] = gt_##N,
#define IX_CUM_E(E, T, N, U) [E] = cum_##N,

static const comb_fn comb[IX_RED__COUNT][GP_DTYPE__COUNT] = {
	[IX_ADD] = {IX_TYPES(IX_ADD_E)},
	[IX_MUL] = {IX_TYPES(IX_MUL_E)},
	[IX_MAX] = {IX_TYPES(IX_MAX_E)},
	[IX_MIN] = {IX_TYPES(IX_MIN_E)},
};
static const gt_fn gt_of[GP_DTYPE__COUNT] = {IX_TYPES(IX_GT_E)};
static const cum_fn cum_of[GP_DTYPE__COUNT] = {IX_TYPES(IX_CUM_E)};

/*
 * Shared checks and params.
 */

static int
parse_axis(const json_t *params, int64_t def, int ndim, int *axis,
    struct gp_err *err)
{
	int64_t a;

	if (gp_op_param_int(params, "axis", def, &a, err) < 0)
		return (-1);
	if (a < -ndim || a >= ndim)
		return (gp_err_set(err, "param 'axis': axis %" PRId64 " is out "
		    "of range for %d dimensions", a, ndim));
	*axis = (int)(a < 0 ? a + ndim : a);
	return (0);
}

static int
parse_red(const json_t *params, enum ix_red *red, struct gp_err *err)
{
	json_t *v = json_object_get(params, "reduction");

	*red = IX_NONE;
	if (v == NULL)
		return (0);
	for (int r = 0; r < IX_RED__COUNT && json_is_string(v); r++)
		if (strcmp(json_string_value(v), red_names[r]) == 0) {
			*red = (enum ix_red)r;
			return (0);
		}
	return (gp_err_set(err, "param 'reduction' must be \"none\", \"add\", "
	    "\"mul\", \"max\" or \"min\""));
}

static int
need_int(const struct gp_type *t, const char *what, struct gp_err *err)
{
	if (!gp_dtype_is_int(t->dtype))
		return (gp_err_set(err, "%s must be integers, not %s", what,
		    gp_dtype_name(t->dtype)));
	return (0);
}

static int
err_shapes(struct gp_err *err, const char *a, const struct gp_type *ta,
    const char *b, const struct gp_type *tb, const char *why)
{
	struct gp_buf x = {0}, y = {0};

	gp_shape_format(&x, ta->ndim, ta->shape);
	gp_shape_format(&y, tb->ndim, tb->shape);
	gp_err_set(err, "%s %s and %s %s: %s", a, gp_buf_str(&x), b,
	    gp_buf_str(&y), why);
	gp_buf_free(&x);
	gp_buf_free(&y);
	return (-1);
}

/* Element strides (C order) of a shape. */
static void
elem_strides(int nd, const int64_t *shape, int64_t *st)
{
	int64_t s = 1;

	for (int d = nd - 1; d >= 0; d--) {
		st[d] = s;
		s *= shape[d];
	}
}

/*
 * gather_elements and scatter_elements
 */

/* Both walk the indices in C order; element p of the indices names
 * element (its coordinates, axis's one replaced by the index) of x (the
 * gather's source, the scatter's output). */
static void
k_elements(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct ix_priv *p = n->priv;
	bool scatter = n->n_in == 3;
	struct gp_scratch_tmp xc, ic_t, uc;
	const struct gp_tensor *x = scatter ? out[0] : contiguous(&xc, in[0],
	    0);
	const struct gp_tensor *u = scatter ? contiguous(&uc, in[2], 2) : NULL;
	const struct gp_tensor *ic = indices_i64(&ic_t, in[1], 1);
	const int64_t *idx = (const int64_t *)gp_tensor_data(ic);
	size_t esz = gp_dtype_size(x->dtype);
	int nd = ic->ndim, ax = p->axis;
	int64_t ni = gp_tensor_numel(ic), xs[GP_MAX_DIMS], c[GP_MAX_DIMS];
	int64_t off = 0, dim = x->shape[ax];
	comb_fn f = scatter ? comb[p->red][x->dtype] : NULL;
	char *xd;
	const char *ud = scatter ? gp_tensor_data(u) : NULL;
	char *od = gp_tensor_data(out[0]);

	if (scatter)
		gp_tensor_copy_into(out[0], in[0]);
	xd = gp_tensor_data(x);
	elem_strides(x->ndim, x->shape, xs);
	memset(c, 0, sizeof(c));
	for (int64_t i = 0; i < ni; i++) {
		int64_t k = norm_index(n, ic, i, idx[i], ax, dim);
		char *e = xd + (size_t)(off + k * xs[ax]) * esz;

		if (!scatter)
			copy_elem(od + (size_t)i * esz, e, esz);
		else if (f == NULL)
			copy_elem(e, ud + (size_t)i * esz, esz);
		else
			f(e, ud + (size_t)i * esz);
		for (int d = nd - 1; d >= 0; d--) {
			if (d != ax)
				off += xs[d];
			if (++c[d] < ic->shape[d])
				break;
			if (d != ax)
				off -= xs[d] * ic->shape[d];
			c[d] = 0;
		}
	}
}

static int
prep_elements(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	const struct gp_type *ti = gp_graph_in_type(g, n, 1);
	bool scatter = n->n_in == 3;
	struct ix_priv *p = gp_xcalloc(1, sizeof(*p));

	n->priv = p;
	if (t->ndim == 0)
		return (gp_err_set(err, "x is 0-d (it needs an axis)"));
	if (parse_axis(n->params, 0, t->ndim, &p->axis, err) < 0 ||
	    (scatter && parse_red(n->params, &p->red, err) < 0) ||
	    need_int(ti, "the indices", err) < 0)
		return (-1);
	if (ti->ndim != t->ndim)
		return (err_shapes(err, "x", t, "indices", ti, "they must have "
		    "the same number of dimensions"));
	for (int d = 0; d < t->ndim; d++)
		if (d != p->axis && ti->shape[d] > t->shape[d])
			return (err_shapes(err, "x", t, "indices", ti, "the "
			    "indices are larger than x outside the axis"));
	if (scatter) {
		const struct gp_type *tu = gp_graph_in_type(g, n, 2);

		if (tu->ndim != ti->ndim || memcmp(tu->shape, ti->shape,
		    sizeof(int64_t) * (size_t)ti->ndim) != 0)
			return (err_shapes(err, "indices", ti, "updates", tu,
			    "they must have the same shape"));
		if (tu->dtype != t->dtype)
			return (gp_err_set(err, "updates are %s, x is %s: they "
			    "must have the same dtype", gp_dtype_name(
			    tu->dtype), gp_dtype_name(t->dtype)));
		gp_ops_set_out(g, n, 0, t->dtype, t->ndim, t->shape);
	} else
		gp_ops_set_out(g, n, 0, t->dtype, ti->ndim, ti->shape);
	n->kernel = k_elements;
	set_apply(g, n, p);
	return (0);
}

/* The reductions' flops: one per update, for float dtypes. */
static double
flops_scatter(const struct gp_graph *g, const struct gp_node *n)
{
	const struct ix_priv *p = n->priv;
	const struct gp_type *tu = gp_graph_in_type(g, n, 2);

	if (p == NULL || p->red == IX_NONE || !gp_dtype_is_float(tu->dtype))
		return (0);
	return ((double)gp_shape_numel(tu->ndim, tu->shape));
}

/*
 * gather_nd and scatter_nd
 */

/* The indices' last dimension (m) holds coordinates into x's dimensions
 * batch_dims .. batch_dims+m-1; each names a slice of x's remaining
 * dimensions.  Per batch (x's first batch_dims dimensions, which the
 * indices share), tuple t of the indices reads (gather) or writes
 * (scatter) slice t. */
static void
k_nd(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct ix_priv *p = n->priv;
	bool scatter = n->n_in == 3;
	struct gp_scratch_tmp xc, ic_t, uc;
	const struct gp_tensor *x = scatter ? out[0] : contiguous(&xc, in[0],
	    0);
	const struct gp_tensor *u = scatter ? contiguous(&uc, in[2], 2) : NULL;
	const struct gp_tensor *ic = indices_i64(&ic_t, in[1], 1);
	const int64_t *idx = (const int64_t *)gp_tensor_data(ic);
	size_t esz = gp_dtype_size(x->dtype);
	int b = p->batch_dims, m = (int)ic->shape[ic->ndim - 1];
	int64_t xs[GP_MAX_DIMS], nb = 1, slice = 1, nt, xblock;
	comb_fn f = scatter ? comb[p->red][x->dtype] : NULL;
	const char *ud = scatter ? gp_tensor_data(u) : NULL;
	char *xd, *od = gp_tensor_data(out[0]);

	if (scatter)
		gp_tensor_copy_into(out[0], in[0]);
	xd = gp_tensor_data(x);
	elem_strides(x->ndim, x->shape, xs);
	for (int d = 0; d < b; d++)
		nb *= x->shape[d];
	for (int d = b + m; d < x->ndim; d++)
		slice *= x->shape[d];
	xblock = b > 0 ? xs[b - 1] : gp_tensor_numel(x);
	nt = nb > 0 ? gp_tensor_numel(ic) / m / nb : 0;
	for (int64_t bi = 0; bi < nb; bi++)
		for (int64_t t = 0; t < nt; t++) {
			int64_t q = bi * nt + t, off = bi * xblock;
			const char *us;
			char *xe;

			for (int j = 0; j < m; j++)
				off += norm_index(n, ic, q * m + j,
				    idx[q * m + j], b + j, x->shape[b + j]) *
				    xs[b + j];
			xe = xd + (size_t)off * esz;
			if (!scatter) {
				memcpy(od + (size_t)(q * slice) * esz, xe,
				    (size_t)slice * esz);
				continue;
			}
			us = ud + (size_t)(q * slice) * esz;
			if (f == NULL)
				memcpy(xe, us, (size_t)slice * esz);
			else
				for (int64_t e = 0; e < slice; e++)
					f(xe + (size_t)e * esz, us + (size_t)e *
					    esz);
		}
}

static int
prep_nd(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	const struct gp_type *ti = gp_graph_in_type(g, n, 1);
	bool scatter = n->n_in == 3;
	struct ix_priv *p = gp_xcalloc(1, sizeof(*p));
	int64_t bd, m, shape[2 * GP_MAX_DIMS];
	int nd = 0;

	n->priv = p;
	if ((scatter && parse_red(n->params, &p->red, err) < 0) ||
	    (!scatter && gp_op_param_int(n->params, "batch_dims", 0, &bd,
	    err) < 0) || need_int(ti, "the indices", err) < 0)
		return (-1);
	if (scatter)
		bd = 0;
	if (t->ndim == 0 || ti->ndim == 0)
		return (err_shapes(err, "x", t, "indices", ti, "neither may be "
		    "0-d"));
	if (bd < 0 || bd >= ti->ndim || bd >= t->ndim)
		return (gp_err_set(err, "param 'batch_dims': %" PRId64 " is out "
		    "of range: at least 0, below both ranks (%d and %d)", bd,
		    t->ndim, ti->ndim));
	p->batch_dims = (int)bd;
	m = ti->shape[ti->ndim - 1];
	if (m < 1 || m > t->ndim - bd)
		return (err_shapes(err, "x", t, "indices", ti, "the indices' "
		    "last dimension must be from 1 to x's dimensions after "
		    "the batch ones"));
	for (int d = 0; d < bd; d++)
		if (ti->shape[d] != t->shape[d])
			return (err_shapes(err, "x", t, "indices", ti, "their "
			    "batch dimensions differ"));
	for (int d = 0; d < ti->ndim - 1; d++)
		shape[nd++] = ti->shape[d];
	for (int d = (int)(bd + m); d < t->ndim; d++)
		shape[nd++] = t->shape[d];
	if (nd > GP_MAX_DIMS)
		return (gp_err_set(err, "the %s would have %d dimensions, at "
		    "most %d", scatter ? "updates" : "output", nd,
		    GP_MAX_DIMS));
	if (scatter) {
		const struct gp_type *tu = gp_graph_in_type(g, n, 2);
		struct gp_type want = {.dtype = tu->dtype, .ndim = nd};

		memcpy(want.shape, shape, sizeof(int64_t) * (size_t)nd);
		if (!gp_type_equal(&want, tu))
			return (err_shapes(err, "updates", tu, "expected",
			    &want, "the updates must have the indices' "
			    "dimensions but the last, then x's after the "
			    "indexed ones"));
		if (tu->dtype != t->dtype)
			return (gp_err_set(err, "updates are %s, x is %s: they "
			    "must have the same dtype", gp_dtype_name(
			    tu->dtype), gp_dtype_name(t->dtype)));
		gp_ops_set_out(g, n, 0, t->dtype, t->ndim, t->shape);
	} else
		gp_ops_set_out(g, n, 0, t->dtype, nd, shape);
	n->kernel = k_nd;
	set_apply(g, n, p);
	return (0);
}

/*
 * top_k
 */

/* Stable merge sort of ix[0..n) by gt on the elements at base + ix * step
 * (largest first, or smallest first): ties keep the lower index first. */
static void
sort_ix(int64_t *ix, int64_t *tmp, int64_t n, const char *base,
    int64_t step, gt_fn gt, bool largest)
{
	for (int64_t w = 1; w < n; w *= 2) {
		for (int64_t lo = 0; lo < n; lo += 2 * w) {
			int64_t mid = lo + w < n ? lo + w : n;
			int64_t hi = lo + 2 * w < n ? lo + 2 * w : n;
			int64_t a = lo, b = mid, o = lo;

			while (a < mid && b < hi) {
				const char *ea = base + ix[a] * step;
				const char *eb = base + ix[b] * step;
				bool take_b = largest ? gt(eb, ea) : gt(ea, eb);

				tmp[o++] = take_b ? ix[b++] : ix[a++];
			}
			while (a < mid)
				tmp[o++] = ix[a++];
			while (b < hi)
				tmp[o++] = ix[b++];
		}
		memcpy(ix, tmp, sizeof(int64_t) * (size_t)n);
	}
}

static void
k_top_k(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct ix_priv *p = n->priv;
	struct gp_scratch_tmp xc;
	const struct gp_tensor *x = contiguous(&xc, in[0], 0);
	size_t esz = gp_dtype_size(x->dtype);
	int64_t outer = 1, inner = 1, dim = x->shape[p->axis], k = p->k;
	int64_t *ix = gp_xmalloc(sizeof(int64_t) * (size_t)(2 * dim + 1));
	const char *xd = gp_tensor_data(x);
	char *vd = gp_tensor_data(out[0]);
	int64_t *id = (int64_t *)gp_tensor_data(out[1]);
	gt_fn gt = gt_of[x->dtype];

	for (int d = 0; d < p->axis; d++)
		outer *= x->shape[d];
	for (int d = p->axis + 1; d < x->ndim; d++)
		inner *= x->shape[d];
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < inner; j++) {
			const char *base = xd + (size_t)(o * dim * inner + j) *
			    esz;

			for (int64_t i = 0; i < dim; i++)
				ix[i] = i;
			sort_ix(ix, ix + dim, dim, base, inner * (int64_t)esz,
			    gt, p->largest);
			for (int64_t i = 0; i < k; i++) {
				int64_t q = (o * k + i) * inner + j;

				copy_elem(vd + (size_t)q * esz, base +
				    (size_t)(ix[i] * inner) * esz, esz);
				id[q] = ix[i];
			}
		}
	free(ix);
}

static int
prep_top_k(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	struct ix_priv *p = gp_xcalloc(1, sizeof(*p));
	int64_t shape[GP_MAX_DIMS];

	n->priv = p;
	if (t->ndim == 0)
		return (gp_err_set(err, "x is 0-d (it needs an axis)"));
	if (json_object_get(n->params, "k") == NULL)
		return (gp_err_set(err, "param 'k' is required (how many "
		    "elements to keep)"));
	if (parse_axis(n->params, -1, t->ndim, &p->axis, err) < 0 ||
	    gp_op_param_int(n->params, "k", 0, &p->k, err) < 0 ||
	    gp_op_param_bool(n->params, "largest", true, &p->largest,
	    err) < 0 || gp_op_param_bool(n->params, "sorted", true,
	    &p->sorted, err) < 0)
		return (-1);
	if (p->k < 0 || p->k > t->shape[p->axis])
		return (gp_err_set(err, "param 'k': %" PRId64 " is out of range "
		    "for axis %d of size %" PRId64, p->k, p->axis,
		    t->shape[p->axis]));
	memcpy(shape, t->shape, sizeof(int64_t) * (size_t)t->ndim);
	shape[p->axis] = p->k;
	gp_ops_set_out(g, n, 0, t->dtype, t->ndim, shape);
	gp_ops_set_out(g, n, 1, GP_INT64, t->ndim, shape);
	n->kernel = k_top_k;
	set_apply(g, n, p);
	return (0);
}

/* Comparisons of the sort, for float dtypes: dim * ceil(log2 dim) per
 * line of the axis. */
static double
flops_top_k(const struct gp_graph *g, const struct gp_node *n)
{
	const struct ix_priv *p = n->priv;
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	double dim;

	if (p == NULL || !gp_dtype_is_float(t->dtype))
		return (0);
	dim = (double)t->shape[p->axis];
	return (dim > 1 ? (double)gp_shape_numel(t->ndim, t->shape) *
	    ceil(log2(dim)) : 0);
}

/*
 * cumsum
 */

static void
k_cumsum(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct ix_priv *p = n->priv;
	struct gp_scratch_tmp xc;
	const struct gp_tensor *x = contiguous(&xc, in[0], 0);
	int64_t outer = 1, inner = 1;

	for (int d = 0; d < p->axis; d++)
		outer *= x->shape[d];
	for (int d = p->axis + 1; d < x->ndim; d++)
		inner *= x->shape[d];
	cum_of[x->dtype](gp_tensor_data(out[0]), gp_tensor_data(x), outer,
	    x->shape[p->axis], inner, p->exclusive, p->reverse);
}

static int
prep_cumsum(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	struct ix_priv *p = gp_xcalloc(1, sizeof(*p));

	n->priv = p;
	if (t->ndim == 0)
		return (gp_err_set(err, "x is 0-d (it needs an axis)"));
	if (parse_axis(n->params, 0, t->ndim, &p->axis, err) < 0 ||
	    gp_op_param_bool(n->params, "exclusive", false, &p->exclusive,
	    err) < 0 || gp_op_param_bool(n->params, "reverse", false,
	    &p->reverse, err) < 0)
		return (-1);
	if (t->dtype == GP_BOOL)
		return (gp_err_set(err, "x is bool: cumsum needs numbers"));
	gp_ops_set_out(g, n, 0, t->dtype, t->ndim, t->shape);
	n->kernel = k_cumsum;
	set_apply(g, n, p);
	return (0);
}

static double
flops_cumsum(const struct gp_graph *g, const struct gp_node *n)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);

	if (!gp_dtype_is_float(t->dtype))
		return (0);
	return ((double)gp_shape_numel(t->ndim, t->shape));
}

/*
 * one_hot
 */

static void
k_one_hot(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct ix_priv *p = n->priv;
	struct gp_scratch_tmp ic_t, vc;
	const struct gp_tensor *ic = indices_i64(&ic_t, in[0], 0);
	const int64_t *idx = (const int64_t *)gp_tensor_data(ic);
	const struct gp_tensor *v = contiguous(&vc, in[1], 1);
	size_t esz = gp_dtype_size(v->dtype);
	const char *off = gp_tensor_data(v), *on = off + esz;
	char *od = gp_tensor_data(out[0]);
	int64_t outer = 1, inner = 1, depth = p->depth;
	int64_t no = gp_tensor_numel(out[0]);

	for (int d = 0; d < p->axis; d++)
		outer *= ic->shape[d];
	for (int d = p->axis; d < ic->ndim; d++)
		inner *= ic->shape[d];
	for (int64_t i = 0; i < no; i++)
		copy_elem(od + (size_t)i * esz, off, esz);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t j = 0; j < inner; j++) {
			int64_t k = idx[o * inner + j];

			if (k < 0)
				k += depth;
			if (k >= 0 && k < depth)
				copy_elem(od + (size_t)((o * depth + k) *
				    inner + j) * esz, on, esz);
		}
}

static int
prep_one_hot(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *ti = gp_graph_in_type(g, n, 0);
	const struct gp_type *tv = gp_graph_in_type(g, n, 1);
	struct ix_priv *p = gp_xcalloc(1, sizeof(*p));
	int64_t shape[GP_MAX_DIMS];

	n->priv = p;
	if (json_object_get(n->params, "depth") == NULL)
		return (gp_err_set(err, "param 'depth' is required (the size "
		    "of the new axis)"));
	if (gp_op_param_int(n->params, "depth", 0, &p->depth, err) < 0 ||
	    parse_axis(n->params, -1, ti->ndim + 1, &p->axis, err) < 0)
		return (-1);
	if (p->depth < 1)
		return (gp_err_set(err, "param 'depth': %" PRId64 ", at least 1",
		    p->depth));
	if (ti->dtype == GP_BOOL)
		return (gp_err_set(err, "the indices must be numbers, not "
		    "bool"));
	if (gp_shape_numel(tv->ndim, tv->shape) != 2)
		return (gp_err_set(err, "values must hold 2 elements (off, "
		    "on), not %" PRId64, gp_shape_numel(tv->ndim, tv->shape)));
	if (ti->ndim + 1 > GP_MAX_DIMS)
		return (gp_err_set(err, "the output would have %d dimensions, "
		    "at most %d", ti->ndim + 1, GP_MAX_DIMS));
	for (int d = 0, s = 0; d <= ti->ndim; d++)
		shape[d] = d == p->axis ? p->depth : ti->shape[s++];
	gp_ops_set_out(g, n, 0, tv->dtype, ti->ndim + 1, shape);
	n->kernel = k_one_hot;
	set_apply(g, n, p);
	return (0);
}

/*
 * Names and the table.
 */

static void
fmt_ix(const struct gp_graph *g, const struct gp_node *n, struct gp_buf *b)
{
	const struct ix_priv *p = n->priv;
	const char *o = n->op->name;
	char t[160] = "";
	size_t len = 0;

	gp_buf_puts(b, n->op->cls);
	if (p == NULL)
		return;
	if (strcmp(o, "gather_elements") == 0 ||
	    strcmp(o, "scatter_elements") == 0 || strcmp(o, "cumsum") == 0)
		len = (size_t)snprintf(t, sizeof(t), ",axis=%d", p->axis);
	else if (strcmp(o, "top_k") == 0)
		len = (size_t)snprintf(t, sizeof(t), ",k=%" PRId64 ",axis=%d%s",
		    p->k, p->axis, p->largest ? "" : ",smallest");
	else if (strcmp(o, "one_hot") == 0)
		len = (size_t)snprintf(t, sizeof(t), ",depth=%" PRId64
		    ",axis=%d", p->depth, p->axis);
	else if (strcmp(o, "gather_nd") == 0 && p->batch_dims != 0)
		len = (size_t)snprintf(t, sizeof(t), ",batch_dims=%d",
		    p->batch_dims);
	snprintf(t + len, sizeof(t) - len, "%s%s%s%s", p->red != IX_NONE ?
	    "," : "", p->red != IX_NONE ? red_names[p->red] : "",
	    p->exclusive ? ",exclusive" : "", p->reverse ? ",reverse" : "");
	if (t[0] != '\0')
		gp_buf_printf(b, "{%s}", t + 1);
}

static const char *const p_axis[] = {"axis", NULL};
static const char *const p_scatter[] = {"axis", "reduction", NULL};
static const char *const p_top_k[] = {"k", "axis", "largest", "sorted",
	NULL};
static const char *const p_cumsum[] = {"axis", "exclusive", "reverse",
	NULL};
static const char *const p_one_hot[] = {"depth", "axis", NULL};
static const char *const p_gather_nd[] = {"batch_dims", NULL};
static const char *const p_scatter_nd[] = {"reduction", NULL};

static const struct gp_op op_gather_elements = {
	.name = "gather_elements",
	.cls = "GatherElements",
	.doc = "gather_elements(x, indices; axis=0): numpy's "
	    "take_along_axis (ONNX's GatherElements): the indices' shape, x's "
	    "dtype; an index out of range ends the run (status 2)",
	.min_in = 2, .max_in = 2, .n_out = 1,
	.params = p_axis,
	.prepare = prep_elements,
	.workspace = work_gather_scatter,
	.format = fmt_ix,
	.free_priv = free_priv,
};

static const struct gp_op op_scatter_elements = {
	.name = "scatter_elements",
	.cls = "ScatterElements",
	.doc = "scatter_elements(x, indices, updates; axis=0, "
	    "reduction=none): x with the updates written (or added, "
	    "multiplied, maxed, mined) at the indices along axis (ONNX's "
	    "ScatterElements); an index out of range ends the run (status 2)",
	.min_in = 3, .max_in = 3, .n_out = 1,
	.params = p_scatter,
	.prepare = prep_elements,
	.workspace = work_gather_scatter,
	.flops = flops_scatter,
	.format = fmt_ix,
	.free_priv = free_priv,
};

static const struct gp_op op_gather_nd = {
	.name = "gather_nd",
	.cls = "GatherND",
	.doc = "gather_nd(x, indices; batch_dims=0): the slices of x at the "
	    "coordinates in the indices' last dimension (ONNX's GatherND); "
	    "an index out of range ends the run (status 2)",
	.min_in = 2, .max_in = 2, .n_out = 1,
	.params = p_gather_nd,
	.prepare = prep_nd,
	.workspace = work_gather_scatter,
	.format = fmt_ix,
	.free_priv = free_priv,
};

static const struct gp_op op_scatter_nd = {
	.name = "scatter_nd",
	.cls = "ScatterND",
	.doc = "scatter_nd(x, indices, updates; reduction=none): x with "
	    "slices of updates written (or added, ...) at the coordinates in "
	    "the indices' last dimension (ONNX's ScatterND); an index out of "
	    "range ends the run (status 2)",
	.min_in = 3, .max_in = 3, .n_out = 1,
	.params = p_scatter_nd,
	.prepare = prep_nd,
	.workspace = work_gather_scatter,
	.flops = flops_scatter,
	.format = fmt_ix,
	.free_priv = free_priv,
};

static const struct gp_op op_top_k = {
	.name = "top_k",
	.cls = "TopK",
	.doc = "top_k(x; k, axis=-1, largest=true, sorted=true): two "
	    "outputs, the k largest (or smallest) values along axis in order "
	    "and their int64 indices; ties: the lower index first",
	.min_in = 1, .max_in = 1, .n_out = 2,
	.params = p_top_k,
	.prepare = prep_top_k,
	.workspace = work_x,
	.flops = flops_top_k,
	.format = fmt_ix,
	.free_priv = free_priv,
};

static const struct gp_op op_cumsum = {
	.name = "cumsum",
	.cls = "CumSum",
	.doc = "cumsum(x; axis=0, exclusive=false, reverse=false): running "
	    "sums along axis (exclusive: without the element itself; "
	    "reverse: from the end); x's dtype and shape",
	.min_in = 1, .max_in = 1, .n_out = 1,
	.params = p_cumsum,
	.prepare = prep_cumsum,
	.workspace = work_x,
	.flops = flops_cumsum,
	.format = fmt_ix,
	.free_priv = free_priv,
};

static const struct gp_op op_one_hot = {
	.name = "one_hot",
	.cls = "OneHot",
	.doc = "one_hot(indices, values; depth, axis=-1): a new axis of size "
	    "depth holding values[1] at each index and values[0] elsewhere "
	    "(an index out of range gives a row of values[0]); values' dtype",
	.min_in = 2, .max_in = 2, .n_out = 1,
	.params = p_one_hot,
	.prepare = prep_one_hot,
	.workspace = work_one_hot,
	.format = fmt_ix,
	.free_priv = free_priv,
};

const struct gp_op *const gp_ops_index[] = {
	&op_cumsum,
	&op_gather_elements,
	&op_gather_nd,
	&op_one_hot,
	&op_scatter_elements,
	&op_scatter_nd,
	&op_top_k,
	NULL,
};
