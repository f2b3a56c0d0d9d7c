/*
 * ops/reduce.c: the reductions: sum, prod, max, min, mean, any and all
 * over any set of axes (Theano's CAReduce), and argmax and argmin over one
 * axis or the flattened input.  Output dtypes follow numpy: sum and prod of
 * bool and signed integers give int64, of unsigned integers uint64; mean of
 * integers gives float64; any and all give bool; argmax and argmin int64.
 *
 * One strided walk serves every CAReduce: the output (or an accumulator
 * buffer) gets stride 0 along the reduced axes, the dimensions are ordered
 * by the input's strides and merged, and a typed 1-d loop runs per
 * innermost row.  When that row runs along a reduced axis (a full
 * reduction, the last axis of a matrix) the loop reduces it into one
 * accumulator (pairwise summation for floats, as numpy); when it runs along
 * a kept axis (the first axis of a matrix) the loop adds a whole input row
 * into the output row.  Either way the input streams through memory once.
 *
 * Floating sums, products and means accumulate in double (float32 results
 * are rounded once at the end); integer sums and products wrap around
 * modulo 2^64 as numpy's do.  max, min, argmax and argmin propagate NaN
 * (argmax gives the first NaN's index).  Reductions without an identity
 * (max, min, argmax, argmin) over an empty axis are refused by prepare.
 */
#include "config.h"

#include "ops/ops.h"
#include "ops/scratch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum red_kind {
	R_SUM,
	R_PROD,
	R_MAX,
	R_MIN,
	R_MEAN,
	R_ANY,
	R_ALL,
	R_ARGMAX,
	R_ARGMIN,
	R__COUNT
};

static const char *const red_names[R__COUNT] = {
	[R_SUM] = "Sum",
	[R_PROD] = "Prod",
	[R_MAX] = "Max",
	[R_MIN] = "Min",
	[R_MEAN] = "Mean",
	[R_ANY] = "Any",
	[R_ALL] = "All",
	[R_ARGMAX] = "Argmax",
	[R_ARGMIN] = "Argmin",
};

struct red_priv {
	enum red_kind	kind;
	int		naxes;	/* reduced axes (argmax: 1, or 0 when flat) */
	int		axes[GP_MAX_DIMS];
	bool		reduced[GP_MAX_DIMS];
	bool		keepdims;
	bool		flat;	/* argmax/argmin over the flattened input */
	bool		all;	/* every axis reduced */
	enum gp_dtype	acc;	/* accumulator dtype (== output unless a
				 * float32 result accumulates in double) */
	int64_t		count;	/* elements reduced into each output */
};

/*
 * Typed 1-d loops.  p[0]/st[0]: the accumulator, p[1]/st[1]: the input.
 */

#define INT_TYPES(X)                                                          \
	X(GP_BOOL, _Bool, b, 0)                                               \
	X(GP_INT8, int8_t, i8, 0)                                             \
	X(GP_INT16, int16_t, i16, 0)                                          \
	X(GP_INT32, int32_t, i32, 0)                                          \
	X(GP_INT64, int64_t, i64, 0)                                          \
	X(GP_UINT8, uint8_t, u8, 0)                                           \
	X(GP_UINT16, uint16_t, u16, 0)                                        \
	X(GP_UINT32, uint32_t, u32, 0)                                        \
	X(GP_UINT64, uint64_t, u64, 0)
#define FLOAT_TYPES(X)                                                        \
	X(GP_FLOAT32, float, f32, 1)                                          \
	X(GP_FLOAT64, double, f64, 1)
#define ALL_TYPES(X) INT_TYPES(X) FLOAT_TYPES(X)

#define ISNAN(FL, v) ((FL) && isnan((double)(v)))

/* Pairwise summation into double (numpy's scheme: blocks of up to 128
 * summed with 8 accumulators, halves combined recursively).  Two copies:
 * contiguous and strided. */
#define PW_BLOCK 128
#define DEF_PAIRWISE(DT, T, SFX, FL)                                          \
static double                                                                 \
pw_c_##SFX(const T *x, int64_t n)                                             \
{                                                                             \
	if (n < 8) {                                                          \
		double r = 0;                                                 \
		for (int64_t i = 0; i < n; i++)                               \
			r += (double)x[i];                                    \
		return (r);                                                   \
	}                                                                     \
	if (n <= PW_BLOCK) {                                                  \
		double r[8], s;                                               \
		int64_t i;                                                    \
		for (int k = 0; k < 8; k++)                                   \
			r[k] = (double)x[k];                                  \
		for (i = 8; i < n - n % 8; i += 8)                            \
			for (int k = 0; k < 8; k++)                           \
				r[k] += (double)x[i + k];                     \
		s = ((r[0] + r[1]) + (r[2] + r[3])) +                         \
		    ((r[4] + r[5]) + (r[6] + r[7]));                          \
		for (; i < n; i++)                                            \
			s += (double)x[i];                                    \
		return (s);                                                   \
	}                                                                     \
	{                                                                     \
		int64_t n2 = n / 2;                                           \
		n2 -= n2 % 8;                                                 \
		return (pw_c_##SFX(x, n2) + pw_c_##SFX(x + n2, n - n2));      \
	}                                                                     \
}                                                                             \
static double                                                                 \
pw_s_##SFX(const char *p, int64_t s, int64_t n)                               \
{                                                                             \
	if (n < 8) {                                                          \
		double r = 0;                                                 \
		for (int64_t i = 0; i < n; i++)                               \
			r += (double)*(const T *)(p + i * s);                 \
		return (r);                                                   \
	}                                                                     \
	if (n <= PW_BLOCK) {                                                  \
		double r[8], t;                                               \
		int64_t i;                                                    \
		for (int k = 0; k < 8; k++)                                   \
			r[k] = (double)*(const T *)(p + k * s);               \
		for (i = 8; i < n - n % 8; i += 8)                            \
			for (int k = 0; k < 8; k++)                           \
				r[k] += (double)*(const T *)(p +              \
				    (i + k) * s);                             \
		t = ((r[0] + r[1]) + (r[2] + r[3])) +                         \
		    ((r[4] + r[5]) + (r[6] + r[7]));                          \
		for (; i < n; i++)                                            \
			t += (double)*(const T *)(p + i * s);                 \
		return (t);                                                   \
	}                                                                     \
	{                                                                     \
		int64_t n2 = n / 2;                                           \
		n2 -= n2 % 8;                                                 \
		return (pw_s_##SFX(p, s, n2) +                                \
		    pw_s_##SFX(p + n2 * s, s, n - n2));                       \
	}                                                                     \
}                                                                             \
static double                                                                 \
pw_##SFX(const char *p, int64_t s, int64_t n)                                 \
{                                                                             \
	if (s == (int64_t)sizeof(T))                                          \
		return (pw_c_##SFX((const T *)p, n));                         \
	return (pw_s_##SFX(p, s, n));                                         \
}
ALL_TYPES(DEF_PAIRWISE)

/* Sum and mean into a double accumulator (floats; every type for mean). */
#define DEF_SUMD(DT, T, SFX, FL)                                              \
static void                                                                   \
sumd_##SFX(char **p, const int64_t *st, int64_t n, void *ctx)                 \
{                                                                             \
	if (st[0] == 0) {                                                     \
		*(double *)p[0] += pw_##SFX(p[1], st[1], n);                  \
		return;                                                       \
	}                                                                     \
	if (st[0] == (int64_t)sizeof(double) &&                               \
	    st[1] == (int64_t)sizeof(T)) {                                    \
		double *restrict a = (double *)p[0];                          \
		const T *restrict x = (const T *)p[1];                        \
		for (int64_t i = 0; i < n; i++)                               \
			a[i] += (double)x[i];                                 \
		return;                                                       \
	}                                                                     \
	for (int64_t i = 0; i < n; i++)                                       \
		*(double *)(p[0] + i * st[0]) +=                              \
		    (double)*(const T *)(p[1] + i * st[1]);                   \
}
ALL_TYPES(DEF_SUMD)

/* Integer sum into a 64-bit accumulator, wrapping. */
#define DEF_SUMI(DT, T, SFX, FL)                                              \
static void                                                                   \
sumi_##SFX(char **p, const int64_t *st, int64_t n, void *ctx)                 \
{                                                                             \
	if (st[0] == 0) {                                                     \
		uint64_t r = 0;                                               \
		if (st[1] == (int64_t)sizeof(T)) {                            \
			const T *x = (const T *)p[1];                         \
			for (int64_t i = 0; i < n; i++)                       \
				r += (uint64_t)x[i];                          \
		} else                                                        \
			for (int64_t i = 0; i < n; i++)                       \
				r += (uint64_t)*(const T *)(p[1] +            \
				    i * st[1]);                               \
		*(uint64_t *)p[0] += r;                                       \
		return;                                                       \
	}                                                                     \
	for (int64_t i = 0; i < n; i++)                                       \
		*(uint64_t *)(p[0] + i * st[0]) +=                            \
		    (uint64_t)*(const T *)(p[1] + i * st[1]);                 \
}
INT_TYPES(DEF_SUMI)

/* Products: double for floats, wrapping 64-bit for integers. */
#define DEF_PROD(DT, T, SFX, FL)                                              \
static void                                                                   \
prod_##SFX(char **p, const int64_t *st, int64_t n, void *ctx)                 \
{                                                                             \
	for (int64_t i = 0; i < n; i++) {                                     \
		T v = *(const T *)(p[1] + i * st[1]);                         \
		if (FL) {                                                     \
			double *a = (double *)(p[0] + i * st[0]);             \
			*a *= (double)v;                                      \
		} else {                                                      \
			uint64_t *a = (uint64_t *)(p[0] + i * st[0]);         \
			*a *= (uint64_t)v;                                    \
		}                                                             \
	}                                                                     \
}
ALL_TYPES(DEF_PROD)

/* max and min in the input's type; NaN wins.  One definition, NAME and
 * its comparison CMP (> for max, < for min). */
#define DEF_EXTREME(NAME, CMP, T, SFX, FL)                                    \
static void                                                                   \
NAME##_##SFX(char **p, const int64_t *st, int64_t n, void *ctx)               \
{                                                                             \
	if (st[0] == 0) {                                                     \
		T m = *(T *)p[0];                                             \
		for (int64_t i = 0; i < n; i++) {                             \
			T v = *(const T *)(p[1] + i * st[1]);                 \
			if (v CMP m || ISNAN(FL, v))                          \
				m = v;                                        \
			if (ISNAN(FL, m))                                     \
				break;                                        \
		}                                                             \
		*(T *)p[0] = m;                                               \
		return;                                                       \
	}                                                                     \
	for (int64_t i = 0; i < n; i++) {                                     \
		T *a = (T *)(p[0] + i * st[0]);                               \
		T v = *(const T *)(p[1] + i * st[1]);                         \
		if (v CMP *a || ISNAN(FL, v))                                 \
			*a = v;                                               \
	}                                                                     \
}
#define DEF_MAXMIN(DT, T, SFX, FL)                                            \
	DEF_EXTREME(max, >, T, SFX, FL)                                       \
	DEF_EXTREME(min, <, T, SFX, FL)
ALL_TYPES(DEF_MAXMIN)

/* any and all into bool. */
#define DEF_ANYALL(DT, T, SFX, FL)                                            \
static void                                                                   \
any_##SFX(char **p, const int64_t *st, int64_t n, void *ctx)                  \
{                                                                             \
	if (st[0] == 0) {                                                     \
		if (*(_Bool *)p[0])                                           \
			return;                                               \
		for (int64_t i = 0; i < n; i++)                               \
			if (*(const T *)(p[1] + i * st[1]) != 0) {            \
				*(_Bool *)p[0] = 1;                           \
				return;                                       \
			}                                                     \
		return;                                                       \
	}                                                                     \
	for (int64_t i = 0; i < n; i++)                                       \
		if (*(const T *)(p[1] + i * st[1]) != 0)                      \
			*(_Bool *)(p[0] + i * st[0]) = 1;                     \
}                                                                             \
static void                                                                   \
all_##SFX(char **p, const int64_t *st, int64_t n, void *ctx)                  \
{                                                                             \
	if (st[0] == 0) {                                                     \
		if (!*(_Bool *)p[0])                                          \
			return;                                               \
		for (int64_t i = 0; i < n; i++)                               \
			if (*(const T *)(p[1] + i * st[1]) == 0) {            \
				*(_Bool *)p[0] = 0;                           \
				return;                                       \
			}                                                     \
		return;                                                       \
	}                                                                     \
	for (int64_t i = 0; i < n; i++)                                       \
		if (*(const T *)(p[1] + i * st[1]) == 0)                      \
			*(_Bool *)(p[0] + i * st[0]) = 0;                     \
}
ALL_TYPES(DEF_ANYALL)

static const gp_inner_fn fn_sumd[GP_DTYPE__COUNT] = {
#define E(DT, T, SFX, FL) [DT] = sumd_##SFX,
	ALL_TYPES(E)
#undef E
};
static const gp_inner_fn fn_sumi[GP_DTYPE__COUNT] = {
#define E(DT, T, SFX, FL) [DT] = sumi_##SFX,
	INT_TYPES(E)
#undef E
};
static const gp_inner_fn fn_prod[GP_DTYPE__COUNT] = {
#define E(DT, T, SFX, FL) [DT] = prod_##SFX,
	ALL_TYPES(E)
#undef E
};
static const gp_inner_fn fn_max[GP_DTYPE__COUNT] = {
#define E(DT, T, SFX, FL) [DT] = max_##SFX,
	ALL_TYPES(E)
#undef E
};
static const gp_inner_fn fn_min[GP_DTYPE__COUNT] = {
#define E(DT, T, SFX, FL) [DT] = min_##SFX,
	ALL_TYPES(E)
#undef E
};
static const gp_inner_fn fn_any[GP_DTYPE__COUNT] = {
#define E(DT, T, SFX, FL) [DT] = any_##SFX,
	ALL_TYPES(E)
#undef E
};
static const gp_inner_fn fn_all[GP_DTYPE__COUNT] = {
#define E(DT, T, SFX, FL) [DT] = all_##SFX,
	ALL_TYPES(E)
#undef E
};

/* A header over raw memory, for the iterator. */
static void
hdr(struct gp_tensor *h, struct gp_storage *fs, enum gp_dtype dt, char *p,
    int ndim, const int64_t *shape, const int64_t *strides)
{
	memset(h, 0, sizeof(*h));
	memset(fs, 0, sizeof(*fs));
	fs->refcount = 1;
	fs->data = p;
	h->dtype = dt;
	h->ndim = ndim;
	memcpy(h->shape, shape, sizeof(int64_t) * (size_t)ndim);
	memcpy(h->strides, strides, sizeof(int64_t) * (size_t)ndim);
	h->storage = fs;
}

static int64_t
iabs64(int64_t v)
{
	return (v < 0 ? -v : v);
}

/*
 * Walk x with acc (contiguous over the kept axes, element size asz):
 * fn(ptrs = {acc, x}) per innermost row.  Dimensions go outermost-first
 * by decreasing input stride, so the input streams in memory order.
 */
static void
reduce_walk(const struct gp_tensor *x, char *acc, size_t asz,
    const bool *reduced, gp_inner_fn fn)
{
	int nd = x->ndim, order[GP_MAX_DIMS];
	int64_t ast[GP_MAX_DIMS], shape[GP_MAX_DIMS], xs[GP_MAX_DIMS],
	    as[GP_MAX_DIMS], s = (int64_t)asz;
	struct gp_tensor tx, ta;
	struct gp_storage fx, fa;
	struct gp_iter it;

	if (gp_tensor_numel(x) == 0)
		return;
	for (int d = nd - 1; d >= 0; d--) {
		if (reduced[d])
			ast[d] = 0;
		else {
			ast[d] = s;
			s *= x->shape[d];
		}
	}
	/* stable insertion sort of the dims by decreasing |input stride| */
	for (int d = 0; d < nd; d++) {
		int j = d;

		while (j > 0 && iabs64(x->strides[order[j - 1]]) <
		    iabs64(x->strides[d])) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = d;
	}
	for (int k = 0; k < nd; k++) {
		shape[k] = x->shape[order[k]];
		xs[k] = x->strides[order[k]];
		as[k] = ast[order[k]];
	}
	hdr(&tx, &fx, x->dtype, gp_tensor_data(x), nd, shape, xs);
	hdr(&ta, &fa, GP_UINT8, acc, nd, shape, as);
	gp_iter_init(&it, nd, shape, 2);
	gp_iter_add(&it, 0, &ta);
	gp_iter_add(&it, 1, &tx);
	gp_iter_run(&it, fn, NULL);
}

/* Fill n accumulators of dtype dt with v. */
static void
fill(char *p, enum gp_dtype dt, int64_t n, double v)
{
	gp_dtype_convert(p, dt, &v, GP_FLOAT64, 0, (size_t)n);
}

static void
fill_extreme(char *p, enum gp_dtype dt, int64_t n, bool lowest)
{
	size_t isz = gp_dtype_size(dt);
	char one[8];

	if (gp_dtype_is_float(dt)) {
		fill(p, dt, n, lowest ? -INFINITY : INFINITY);
		return;
	}
	/* the extremes of integer types: through the clamping conversion */
	gp_dtype_store(one, dt, lowest ? -1e300 : 1e300);
	if (dt == GP_BOOL)
		one[0] = lowest ? 0 : 1;
	for (int64_t i = 0; i < n; i++)
		memcpy(p + (size_t)i * isz, one, isz);
}

static void
k_careduce(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct red_priv *rp = n->priv;
	const struct gp_tensor *x = in[0];
	struct gp_tensor *o = out[0];
	enum gp_dtype dt = x->dtype;
	int64_t no = gp_tensor_numel(o);
	char *acc = gp_tensor_data(o);
	size_t asz = gp_dtype_size(rp->acc);
	bool sep = rp->acc != o->dtype;
	gp_inner_fn fn;

	if (sep)
		acc = gp_xmalloc((size_t)(no > 0 ? no : 1) * asz);
	switch (rp->kind) {
	case R_SUM:
		fill(acc, rp->acc, no, 0);
		fn = gp_dtype_is_float(dt) ? fn_sumd[dt] : fn_sumi[dt];
		break;
	case R_MEAN:
		fill(acc, rp->acc, no, 0);
		fn = fn_sumd[dt];
		break;
	case R_PROD:
		fill(acc, rp->acc, no, 1);
		fn = fn_prod[dt];
		break;
	case R_MAX:
		fill_extreme(acc, rp->acc, no, true);
		fn = fn_max[dt];
		break;
	case R_MIN:
		fill_extreme(acc, rp->acc, no, false);
		fn = fn_min[dt];
		break;
	case R_ANY:
		fill(acc, rp->acc, no, 0);
		fn = fn_any[dt];
		break;
	default:
		fill(acc, rp->acc, no, 1);
		fn = fn_all[dt];
		break;
	}
	reduce_walk(x, acc, asz, rp->reduced, fn);
	if (rp->kind == R_MEAN) {
		double *a = (double *)acc, c = (double)rp->count;

		for (int64_t i = 0; i < no; i++)
			a[i] /= c;
	}
	if (sep) {
		gp_dtype_convert(gp_tensor_data(o), o->dtype, acc, rp->acc,
		    (ptrdiff_t)asz, (size_t)no);
		free(acc);
	}
}

/*
 * argmax and argmin.  Row mode: each output scans its row along the axis.
 * Column mode (the axis is not the innermost in memory): the whole slice
 * at axis position i is compared against the best so far, so the input is
 * read in memory order.
 */

struct arg_ctx {
	int64_t	len;	/* along the axis */
	int64_t	stride;	/* bytes along the axis */
	int64_t	pos;	/* column mode: the axis position */
};

/* argNAME in row and column mode; CMP is > for argmax, < for argmin. */
#define DEF_ARG_ONE(NAME, CMP, T, SFX, FL)                                    \
static void                                                                   \
NAME##_row_##SFX(char **p, const int64_t *st, int64_t n, void *vctx)          \
{                                                                             \
	const struct arg_ctx *c = vctx;                                       \
	for (int64_t j = 0; j < n; j++) {                                     \
		const char *r = p[1] + j * st[1];                             \
		T best = *(const T *)r;                                       \
		int64_t bi = 0;                                               \
		for (int64_t i = 1; i < c->len && !ISNAN(FL, best); i++) {    \
			T v = *(const T *)(r + i * c->stride);                \
			if (v CMP best || ISNAN(FL, v)) {                     \
				best = v;                                     \
				bi = i;                                       \
			}                                                     \
		}                                                             \
		*(int64_t *)(p[0] + j * st[0]) = bi;                          \
	}                                                                     \
}                                                                             \
static void                                                                   \
NAME##_col_##SFX(char **p, const int64_t *st, int64_t n, void *vctx)          \
{                                                                             \
	const struct arg_ctx *c = vctx;                                       \
	for (int64_t j = 0; j < n; j++) {                                     \
		T *best = (T *)(p[0] + j * st[0]);                            \
		T v = *(const T *)(p[2] + j * st[2]);                         \
		if ((v CMP *best || ISNAN(FL, v)) && !ISNAN(FL, *best)) {     \
			*best = v;                                            \
			*(int64_t *)(p[1] + j * st[1]) = c->pos;              \
		}                                                             \
	}                                                                     \
}
#define DEF_ARG(DT, T, SFX, FL)                                               \
	DEF_ARG_ONE(argmax, >, T, SFX, FL)                                    \
	DEF_ARG_ONE(argmin, <, T, SFX, FL)
ALL_TYPES(DEF_ARG)

static const gp_inner_fn fn_arg[2][2][GP_DTYPE__COUNT] = {
	{	/* argmax: row, column */
		{
#define E(DT, T, SFX, FL) [DT] = argmax_row_##SFX,
			ALL_TYPES(E)
#undef E
		}, {
#define E(DT, T, SFX, FL) [DT] = argmax_col_##SFX,
			ALL_TYPES(E)
#undef E
		},
	}, {	/* argmin */
		{
#define E(DT, T, SFX, FL) [DT] = argmin_row_##SFX,
			ALL_TYPES(E)
#undef E
		}, {
#define E(DT, T, SFX, FL) [DT] = argmin_col_##SFX,
			ALL_TYPES(E)
#undef E
		},
	},
};

static void
k_arg(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct red_priv *rp = n->priv;
	const struct gp_tensor *x = in[0];
	struct gp_tensor *o = out[0], tx, to, tb;
	struct gp_storage fx, fo, fb;
	struct gp_scratch_tmp flat;
	int64_t shape[GP_MAX_DIMS], xs[GP_MAX_DIMS], os[GP_MAX_DIMS];
	int64_t inner = INT64_MAX, no;
	int nd = 0, which = rp->kind == R_ARGMIN;
	struct arg_ctx c;
	struct gp_iter it;

	if (rp->flat) {
		int64_t len = gp_tensor_numel(x);

		/* one run of elements: a strided x copied (work_arg) */
		x = gp_scratch_as(x, x->dtype, 0, &flat);
		c.len = len;
		c.stride = (int64_t)gp_dtype_size(x->dtype);
		c.pos = 0;
		hdr(&tx, &fx, x->dtype, gp_tensor_data(x), 0, shape, xs);
		hdr(&to, &fo, GP_INT64, gp_tensor_data(o), 0, shape, os);
		gp_iter_init(&it, 0, shape, 2);
		gp_iter_add(&it, 0, &to);
		gp_iter_add(&it, 1, &tx);
		gp_iter_run(&it, fn_arg[which][0][x->dtype], &c);
		return;
	}
	/* the kept axes, in order; output contiguous over them */
	for (int d = 0; d < x->ndim; d++) {
		if (d == rp->axes[0])
			continue;
		shape[nd] = x->shape[d];
		xs[nd] = x->strides[d];
		if (x->shape[d] > 1 && iabs64(x->strides[d]) < inner)
			inner = iabs64(x->strides[d]);
		nd++;
	}
	gp_shape_strides(nd, shape, sizeof(int64_t), os);
	c.len = x->shape[rp->axes[0]];
	c.stride = x->strides[rp->axes[0]];
	no = gp_shape_numel(nd, shape);
	if (no <= 1 || iabs64(c.stride) <= inner) {
		hdr(&tx, &fx, x->dtype, gp_tensor_data(x), nd, shape, xs);
		hdr(&to, &fo, GP_INT64, gp_tensor_data(o), nd, shape, os);
		gp_iter_init(&it, nd, shape, 2);
		gp_iter_add(&it, 0, &to);
		gp_iter_add(&it, 1, &tx);
		gp_iter_run(&it, fn_arg[which][0][x->dtype], &c);
		return;
	}
	{
		/* column mode: best values in a buffer, indices in o */
		size_t isz = gp_dtype_size(x->dtype);
		int64_t bs[GP_MAX_DIMS];
		char *best = gp_xmalloc((size_t)no * isz);

		gp_shape_strides(nd, shape, isz, bs);
		hdr(&tx, &fx, x->dtype, gp_tensor_data(x), nd, shape, xs);
		hdr(&tb, &fb, x->dtype, best, nd, shape, bs);
		gp_tensor_copy_into(&tb, &tx);
		memset(gp_tensor_data(o), 0, (size_t)no * sizeof(int64_t));
		hdr(&to, &fo, GP_INT64, gp_tensor_data(o), nd, shape, os);
		for (c.pos = 1; c.pos < c.len; c.pos++) {
			fx.data = gp_tensor_data(x) + c.pos * c.stride;
			gp_iter_init(&it, nd, shape, 3);
			gp_iter_add(&it, 0, &tb);
			gp_iter_add(&it, 1, &to);
			gp_iter_add(&it, 2, &tx);
			gp_iter_run(&it, fn_arg[which][1][x->dtype], &c);
		}
		free(best);
	}
}

/*
 * prepare, flops, format
 */

static enum gp_dtype
sum_dtype(enum gp_dtype t)
{
	switch (gp_dtype_table[t].kind) {
	case GP_KIND_BOOL:
	case GP_KIND_INT:
		return (GP_INT64);
	case GP_KIND_UINT:
		return (GP_UINT64);
	default:
		return (t);
	}
}

static int
parse_arg_axis(const json_t *params, int ndim, struct red_priv *rp,
    struct gp_err *err)
{
	json_t *v = json_object_get(params, "axis");
	json_int_t a;

	if (v == NULL || json_is_null(v)) {
		rp->flat = true;
		rp->naxes = 0;
		return (0);
	}
	if (!json_is_integer(v))
		return (gp_err_set(err, "param 'axis' must be one axis (an "
		    "integer) or null for the flattened input"));
	a = json_integer_value(v);
	if (a < -ndim || a >= ndim)
		return (gp_err_set(err, "param 'axis': axis %lld is out of "
		    "range for %d dimensions", (long long)a, ndim));
	rp->naxes = 1;
	rp->axes[0] = (int)(a < 0 ? a + ndim : a);
	return (0);
}

static int
prep_reduce(struct gp_graph *g, struct gp_node *n, enum red_kind kind,
    struct gp_err *err)
{
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	struct red_priv *rp = gp_xcalloc(1, sizeof(*rp));
	int64_t shape[GP_MAX_DIMS];
	enum gp_dtype odt;
	int nd = 0;

	n->priv = rp;
	rp->kind = kind;
	if (kind == R_ARGMAX || kind == R_ARGMIN) {
		if (parse_arg_axis(n->params, t->ndim, rp, err) < 0)
			return (-1);
	} else if (gp_op_param_axes(n->params, "axis", t->ndim, true,
	    rp->axes, &rp->naxes, err) < 0)
		return (-1);
	if (gp_op_param_bool(n->params, "keepdims", false, &rp->keepdims,
	    err) < 0)
		return (-1);
	if (rp->flat) {
		for (int d = 0; d < t->ndim; d++)
			rp->reduced[d] = true;
	}
	for (int k = 0; k < rp->naxes; k++)
		rp->reduced[rp->axes[k]] = true;
	rp->all = true;
	rp->count = 1;
	for (int d = 0; d < t->ndim; d++) {
		if (rp->reduced[d]) {
			rp->count *= t->shape[d];
			if (rp->keepdims)
				shape[nd++] = 1;
		} else {
			rp->all = false;
			shape[nd++] = t->shape[d];
		}
	}
	if (rp->count == 0 && (kind == R_MAX || kind == R_MIN ||
	    kind == R_ARGMAX || kind == R_ARGMIN)) {
		struct gp_buf b = {0};

		gp_shape_format(&b, t->ndim, t->shape);
		gp_err_set(err, "%s of an empty axis (input shape %s): the "
		    "reduction has no identity", red_names[kind],
		    gp_buf_str(&b));
		gp_buf_free(&b);
		return (-1);
	}
	switch (kind) {
	case R_SUM:
	case R_PROD:
		odt = sum_dtype(t->dtype);
		/* integer accumulators are updated as uint64 (same bits,
		 * wrapping) */
		rp->acc = odt == GP_FLOAT32 ? GP_FLOAT64 : odt;
		break;
	case R_MEAN:
		odt = t->dtype == GP_FLOAT32 ? GP_FLOAT32 : GP_FLOAT64;
		rp->acc = GP_FLOAT64;
		break;
	case R_MAX:
	case R_MIN:
		odt = rp->acc = t->dtype;
		break;
	case R_ANY:
	case R_ALL:
		odt = rp->acc = GP_BOOL;
		break;
	default:
		odt = rp->acc = GP_INT64;
		break;
	}
	gp_ops_set_out(g, n, 0, odt, nd, shape);
	n->kernel = kind >= R_ARGMAX ? k_arg : k_careduce;
	n->impl = GP_IMPL_C;
	return (0);
}

#define DEF_PREP(NAME, KIND)                                                  \
static int                                                                    \
prep_##NAME(struct gp_graph *g, struct gp_node *n, struct gp_err *err)        \
{                                                                             \
	return (prep_reduce(g, n, KIND, err));                            \
}
DEF_PREP(sum, R_SUM)
DEF_PREP(prod, R_PROD)
DEF_PREP(max, R_MAX)
DEF_PREP(min, R_MIN)
DEF_PREP(mean, R_MEAN)
DEF_PREP(any, R_ANY)
DEF_PREP(all, R_ALL)
DEF_PREP(argmax, R_ARGMAX)
DEF_PREP(argmin, R_ARGMIN)

static double
flops_reduce(const struct gp_graph *g, const struct gp_node *n)
{
	const struct red_priv *rp = n->priv;
	const struct gp_type *t = gp_graph_in_type(g, n, 0);
	double ni = (double)gp_shape_numel(t->ndim, t->shape);

	if (rp == NULL || !gp_dtype_is_float(t->dtype) ||
	    rp->kind == R_ANY || rp->kind == R_ALL)
		return (0);
	if (rp->kind == R_MEAN) {
		const struct gp_type *o = &g->vars[n->out[0]].type;

		return (ni + (double)gp_shape_numel(o->ndim, o->shape));
	}
	return (ni);
}

static void
fmt_reduce(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	const struct red_priv *rp = n->priv;
	bool arg = rp->kind == R_ARGMAX || rp->kind == R_ARGMIN;
	bool axis = arg ? !rp->flat : !rp->all;

	gp_buf_puts(b, red_names[rp->kind]);
	if (!axis && !rp->keepdims)
		return;
	gp_buf_puts(b, "{");
	if (axis) {
		gp_buf_puts(b, "axis=[");
		for (int k = 0; k < rp->naxes; k++)
			gp_buf_printf(b, "%s%d", k ? ", " : "", rp->axes[k]);
		gp_buf_puts(b, "]");
	}
	if (rp->keepdims)
		gp_buf_printf(b, "%skeepdims", axis ? ", " : "");
	gp_buf_puts(b, "}");
}

static const char *const p_axes[] = {"axis", "keepdims", NULL};

/* The work space (ops/scratch.h) of one execution: argmax and argmin of
 * the flattened input copy a strided one (k_arg). */
static uint64_t
work_reduce(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	const struct red_priv *rp = n->priv;

	(void)g;
	if (rp == NULL || !rp->flat || (rp->kind != R_ARGMAX &&
	    rp->kind != R_ARGMIN))
		return (0);
	return (gp_scratch_as_bytes(in[0], in[0]->dtype));
}

#define DEF_OP(NAME, CLS, DOC, FLAGS)                                         \
static const struct gp_op op_##NAME = {                                       \
	.name = #NAME,                                                        \
	.cls = CLS,                                                           \
	.doc = DOC,                                                           \
	.min_in = 1, .max_in = 1, .n_out = 1,                                 \
	.flags = GP_OPF_REDUCE | (FLAGS),                                     \
	.params = p_axes,                                                     \
	.prepare = prep_##NAME,                                               \
	.flops = flops_reduce,                                                \
	.workspace = work_reduce,                                             \
	.format = fmt_reduce,                                                 \
	.free_priv = free,                                                    \
};

DEF_OP(sum, "CAReduce", "sum(x; axis, keepdims): sum over axes (default "
    "all); bool and ints give int64 (uint64 for unsigned); never in place",
    0)
DEF_OP(prod, "CAReduce", "prod(x; axis, keepdims): product over axes "
    "(default all); dtype as sum; never in place", 0)
DEF_OP(max, "CAReduce", "max(x; axis, keepdims): maximum over axes "
    "(default all), NaN propagates; input's dtype; empty axis refused", 0)
DEF_OP(min, "CAReduce", "min(x; axis, keepdims): minimum over axes "
    "(default all), NaN propagates; input's dtype; empty axis refused", 0)
DEF_OP(mean, "CAReduce", "mean(x; axis, keepdims): mean over axes "
    "(default all); float32 stays float32, others give float64", 0)
DEF_OP(any, "CAReduce", "any(x; axis, keepdims): is any element nonzero, "
    "over axes (default all); bool", 0)
DEF_OP(all, "CAReduce", "all(x; axis, keepdims): are all elements "
    "nonzero, over axes (default all); bool", 0)
DEF_OP(argmax, "Argmax", "argmax(x; axis, keepdims): index of the first "
    "maximum along one axis, or in the flattened input (axis null, the "
    "default); int64; NaN counts as the maximum", 0)
DEF_OP(argmin, "Argmin", "argmin(x; axis, keepdims): index of the first "
    "minimum along one axis, or in the flattened input (axis null, the "
    "default); int64; NaN counts as the minimum", 0)

const struct gp_op *const gp_ops_reduce[] = {
	&op_all,
	&op_any,
	&op_argmax,
	&op_argmin,
	&op_max,
	&op_mean,
	&op_min,
	&op_prod,
	&op_sum,
	NULL,
};
