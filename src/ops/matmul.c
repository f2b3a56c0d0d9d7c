/*
 * ops/matmul.c: matmul, numpy's matmul (and ONNX MatMul) for operands of
 * any rank: the last two dimensions are matrices, the dimensions before
 * them a batch, broadcast between the operands; a 1-d x is a row (its
 * dimension removed from the result), a 1-d y a column.  Optional input 2,
 * a bias broadcast to the result, and param alpha make it alpha x@y + bias
 * in one apply (the rewrites matmul_bias and matmul_scale build those
 * forms from add and mul/div applies).  float32 or float64, one dtype.
 *
 * Every matrix of the batch goes to cblas_?gemm where it lies (through
 * gp_blas_gemm: row-major, or column-major as CblasTrans, so transposed
 * views are not copied).  When y is the same matrix for the whole batch
 * and x's batch and row dimensions fold into one row dimension of one
 * stride (x contiguous, [B, M, K] x [K, N]), the batch is one gemm of B*M
 * rows; otherwise one gemm per matrix of the batch (small ones shared by
 * the OpenMP threads: batch_par).  A bias is added (broadcast) to the
 * product afterwards, one add per element in the dtype, so matmul(x, y,
 * b) gives the bits of matmul(x, y) + b (BLAS's beta 1 would add it to
 * the first partial sums of a long K instead); a bias of one value per
 * column (a Linear layer's), or of a block of trailing dimensions
 * repeated (an attention's position bias), is a vectorized loop over the
 * rows, over the OpenMP threads when large.
 *
 * Param packed (the gemm_pack rewrite's, for a float32 y of fixed
 * weights): the last input is P, y packed once in the slivers of
 * ops/conv-gemm.h, and the product runs through that micro-kernel with
 * x's rows read where they lie (one call of all the batch's rows: x's
 * batch and rows must fold into rows of one stride, each row contiguous,
 * as the output's), then alpha (one multiply per element, as BLAS
 * applies it to each finished sum) and the bias.  Where that cannot run
 * (another layout of x, a P off its alignment, no AVX2 and FMA), the call
 * goes to BLAS on y as above.  The sums run in another order than
 * OpenBLAS's: the results differ from the unpacked matmul's by rounding.
 */
#include "config.h"

#include "ops/blas.h"
#include "ops/conv-gemm.h"
#include "ops/ops.h"
#include "ops/par.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mm_priv {
	int	nb;			/* batch dimensions of the result */
	int64_t	batch[GP_MAX_DIMS];	/* their sizes */
	int64_t	m, n, k;
	bool	x1, y1;			/* x (y) is 1-d */
	bool	packed;			/* the last input is P (y packed) */
	bool	bias;			/* input 2 is a bias */
	double	alpha;
};

static const char *const p_matmul[] = {"alpha", "packed", NULL};

/* An operand's matrix at batch element 0 and its byte strides along the
 * result's batch dimensions (0 where it is broadcast). */
struct operand {
	struct gp_blas_mat	m;
	int64_t			bs[GP_MAX_DIMS];
};

/*
 * t's matrix dims: rows (rdim) and columns (cdim), -1 when absent (a 1-d
 * operand: one row or one column).  Its dimensions before the matrix are
 * aligned to the right of the result's nb batch dimensions.
 */
static void
operand_of(struct operand *o, const struct gp_tensor *t, int rdim, int cdim,
    int nmat, const struct mm_priv *p)
{
	int lead = t->ndim - nmat;

	o->m.p = t->storage != NULL ? gp_tensor_data(t) : NULL;
	o->m.rows = rdim >= 0 ? t->shape[rdim] : 1;
	o->m.cols = cdim >= 0 ? t->shape[cdim] : 1;
	o->m.rs = rdim >= 0 ? t->strides[rdim] : 0;
	o->m.cs = cdim >= 0 ? t->strides[cdim] : 0;
	for (int d = 0; d < p->nb; d++) {
		int td = d - (p->nb - lead);

		o->bs[d] = td >= 0 && t->shape[td] != 1 ? t->strides[td] : 0;
	}
}

/* Do the batch dimensions fold into o's rows: batch element b's matrix
 * starts b * rows row strides on (size-1 dimensions aside)?  *rs gets the
 * row stride (a single row's own stride means nothing: the batch's is
 * taken). */
static bool
folds(const struct operand *o, const struct mm_priv *p, int64_t *rs)
{
	int64_t want;
	int d = p->nb - 1;

	*rs = o->m.rs;
	if (o->m.rows == 1) {
		while (d >= 0 && p->batch[d] == 1)
			d--;
		if (d < 0)
			return (false);
		*rs = o->bs[d];
	}
	want = *rs * o->m.rows;
	for (; d >= 0; d--) {
		if (p->batch[d] == 1)
			continue;
		if (o->bs[d] != want)
			return (false);
		want *= p->batch[d];
	}
	return (true);
}

static bool
broadcast_all(const struct operand *o, const struct mm_priv *p)
{
	for (int d = 0; d < p->nb; d++)
		if (p->batch[d] != 1 && o->bs[d] != 0)
			return (false);
	return (true);
}

/* The batch's matrices over the kernels' OpenMP threads, each gemm a
 * one-thread BLAS call (OpenBLAS's count set to 1 around the region, as
 * ops/conv-pw.c does), when the matrices are small: OpenBLAS runs a gemm
 * of at most 2^18 multiply-adds on one thread, so a batch of them (a
 * windowed attention's 192 products of 49 x 32 . 32 x 49) kept one core
 * busy.  Only gemms of 2 rows and 2 columns or more (no gemv: its own
 * parallel path sets OpenBLAS's count) whose operands BLAS reads where
 * they lie (no copy into the calling thread's scratch).  False when not
 * taken. */
#define BATCH_PAR_MAX	((int64_t)1 << 18)
/* The multiply-adds of the whole batch from which it goes over the
 * threads: the transformer of bench/onnx (4 heads of 32 x 32 . 32 x 32,
 * 131,072) took 1.18-1.21 of the time with the region. */
#define BATCH_PAR_MIN	((int64_t)1 << 21)

static bool
batch_par(const struct mm_priv *p, enum gp_dtype dt, const struct operand *a,
    const struct operand *b, double beta, const struct operand *c,
    int64_t nbatch)
{
	int64_t mnk = p->m * p->n * p->k;
	int blas_nt;

	if (nbatch < 2 || gp_par_max_threads() < 2 || p->m < 2 || p->n < 2 ||
	    mnk > BATCH_PAR_MAX || mnk * nbatch < BATCH_PAR_MIN ||
	    gp_blas_gemm_work(dt, &a->m, &b->m, beta, &c->m) != 0)
		return (false);
	blas_nt = gp_blas_threads_set(1);
	GP_PAR_FOR(GP_PAR_MIN)
	for (int64_t i = 0; i < nbatch; i++) {
		struct gp_blas_mat ma = a->m, mb = b->m, mc = c->m;
		int64_t r = i;

		/* i's index along each batch dimension, the last fastest */
		for (int d = p->nb - 1; d >= 0; d--) {
			int64_t id = r % p->batch[d];

			r /= p->batch[d];
			ma.p += id * a->bs[d];
			mb.p += id * b->bs[d];
			mc.p += id * c->bs[d];
		}
		gp_blas_gemm(dt, p->alpha, &ma, &mb, beta, &mc);
	}
	(void)gp_blas_threads_set(blas_nt);
	return (true);
}

/* out = alpha x@y (+ beta out).  With work, a dry run on layouts (no
 * data): *work gets the work space the BLAS calls take (operands they
 * cannot address copied, ops/blas.h), the same for every matrix of the
 * batch. */
static void
run(const struct mm_priv *p, enum gp_dtype dt, const struct gp_tensor *x,
    const struct gp_tensor *y, double beta, const struct gp_tensor *out,
    uint64_t *work)
{
	struct operand a, b, c;
	int64_t nbatch = gp_shape_numel(p->nb, p->batch), idx[GP_MAX_DIMS];
	int64_t ars, crs;
	int on = out->ndim;

	operand_of(&a, x, p->x1 ? -1 : x->ndim - 2, x->ndim - 1,
	    p->x1 ? 1 : 2, p);
	operand_of(&b, y, p->y1 ? 0 : y->ndim - 2, p->y1 ? -1 : y->ndim - 1,
	    p->y1 ? 1 : 2, p);
	operand_of(&c, out, p->x1 ? -1 : (p->y1 ? on - 1 : on - 2),
	    p->y1 ? -1 : on - 1, (p->x1 ? 0 : 1) + (p->y1 ? 0 : 1), p);
	if (work != NULL)
		*work = 0;
	if (nbatch == 0)
		return;
	if (nbatch > 1 && !p->x1 && broadcast_all(&b, p) &&
	    folds(&a, p, &ars) && folds(&c, p, &crs) &&
	    p->m * nbatch <= INT_MAX) {
		/* [B, M, K] x [K, N]: one gemm of B*M rows */
		a.m.rows *= nbatch;
		a.m.rs = ars;
		c.m.rows *= nbatch;
		c.m.rs = crs;
		if (work != NULL)
			*work = gp_blas_gemm_work(dt, &a.m, &b.m, beta, &c.m);
		else
			gp_blas_gemm(dt, p->alpha, &a.m, &b.m, beta, &c.m);
		return;
	}
	if (work != NULL) {
		*work = gp_blas_gemm_work(dt, &a.m, &b.m, beta, &c.m);
		return;
	}
	if (batch_par(p, dt, &a, &b, beta, &c, nbatch))
		return;
	memset(idx, 0, sizeof(idx));
	for (int64_t i = 0; i < nbatch; i++) {
		struct gp_blas_mat ma = a.m, mb = b.m, mc = c.m;

		for (int d = 0; d < p->nb; d++) {
			ma.p += idx[d] * a.bs[d];
			mb.p += idx[d] * b.bs[d];
			mc.p += idx[d] * c.bs[d];
		}
		gp_blas_gemm(dt, p->alpha, &ma, &mb, beta, &mc);
		for (int d = p->nb - 1; d >= 0; d--) {
			if (++idx[d] < p->batch[d])
				break;
			idx[d] = 0;
		}
	}
}

static bool
same_storage(const struct gp_tensor *a, const struct gp_tensor *b)
{
	return (a->storage != NULL && a->storage == b->storage);
}

/* out += bias, broadcast: the add the rewrite matmul_bias swallowed,
 * rounded as it did (one add in the dtype). */
struct bias_ctx {
	enum gp_dtype	dt;
};

static void
bias_inner(char **ptrs, const int64_t *steps, int64_t n, void *ctx)
{
	const struct bias_ctx *c = ctx;
	char *o = ptrs[0];
	const char *b = ptrs[1];

	if (c->dt == GP_FLOAT32)
		for (int64_t i = 0; i < n; i++)
			*(float *)(o + i * steps[0]) += *(const float *)(b +
			    i * steps[1]);
	else
		for (int64_t i = 0; i < n; i++)
			*(double *)(o + i * steps[0]) += *(const double *)(b +
			    i * steps[1]);
}

/* The common bias, one value per column of a contiguous output (a
 * Linear layer's), or a block of its trailing dimensions repeated over
 * the leading ones (a windowed attention's position bias, (1, 3, 49, 49)
 * over (64, 3, 49, 49) scores): each row of the block's size += b,
 * vectorized, rows over the threads when many.  The same one add per
 * element. */
#define DEF_ROWS_BIAS(SFX, T)                                                 \
static void                                                                   \
rows_bias_##SFX(T *o, const T *b, int64_t rows, int64_t n)                    \
{                                                                             \
	GP_PAR_FOR(rows * n)                                                  \
	for (int64_t r = 0; r < rows; r++) {                                  \
		T *restrict orow = o + r * n;                                 \
		const T *restrict brow = b;                                   \
		GP_SIMD                                                       \
		for (int64_t i = 0; i < n; i++)                               \
			orow[i] += brow[i];                                   \
	}                                                                     \
}
DEF_ROWS_BIAS(f32, float)
DEF_ROWS_BIAS(f64, double)

static void
add_bias(struct gp_tensor *o, const struct gp_tensor *b)
{
	struct gp_iter it;
	struct bias_ctx c = {.dt = o->dtype};
	int64_t total = gp_tensor_numel(o), n;

	if (total == 0)
		return;
	/* n: the product of o's trailing dimensions b has in full (b's
	 * dimensions before them 1 or missing); b repeats every n values */
	n = 1;
	for (int d = 1; d <= o->ndim && d <= b->ndim &&
	    b->shape[b->ndim - d] == o->shape[o->ndim - d]; d++)
		n *= o->shape[o->ndim - d];
	if (n > 1 && gp_tensor_numel(b) == n && gp_tensor_is_contiguous(b) &&
	    gp_tensor_is_contiguous(o) && b->dtype == o->dtype) {
		if (o->dtype == GP_FLOAT32)
			rows_bias_f32((float *)gp_tensor_data(o),
			    (const float *)gp_tensor_data(b), total / n, n);
		else
			rows_bias_f64((double *)gp_tensor_data(o),
			    (const double *)gp_tensor_data(b), total / n, n);
		return;
	}
	gp_iter_init(&it, o->ndim, o->shape, 2);
	gp_iter_add(&it, 0, o);
	gp_iter_add(&it, 1, b);
	gp_iter_run(&it, bias_inner, &c);
}

/* out = alpha x@y through the packed y (P) when the layouts allow it
 * (see the top); false (nothing written) otherwise. */
static bool
run_packed(const struct mm_priv *p, const struct gp_tensor *x,
    const struct gp_tensor *pk, const struct gp_tensor *out)
{
	struct operand a, c;
	int64_t nbatch = gp_shape_numel(p->nb, p->batch), ars, crs, rows;
	float *cp;

	if (!gp_conv_gemm_ok() || x->dtype != GP_FLOAT32 || p->x1 || p->y1 ||
	    p->k == 0 || !gp_conv_gemm_packed_ok(pk))
		return (false);
	operand_of(&a, x, x->ndim - 2, x->ndim - 1, 2, p);
	operand_of(&c, out, out->ndim - 2, out->ndim - 1, 2, p);
	if (a.m.cs != sizeof(float) || c.m.cs != sizeof(float))
		return (false);
	if (nbatch == 1) {
		/* one row: its stride means nothing */
		ars = p->m > 1 ? a.m.rs : p->k * (int64_t)sizeof(float);
		crs = p->m > 1 ? c.m.rs : p->n * (int64_t)sizeof(float);
	} else if (!folds(&a, p, &ars) || !folds(&c, p, &crs))
		return (false);
	if (ars < p->k * (int64_t)sizeof(float) || ars % sizeof(float) ||
	    crs < p->n * (int64_t)sizeof(float) || crs % sizeof(float))
		return (false);
	rows = p->m * nbatch;
	if (rows == 0 || p->n == 0)
		return (true);
	cp = (float *)(void *)c.m.p;
	gp_conv_gemm_mm_f32((const float *)(const void *)a.m.p,
	    ars / (int64_t)sizeof(float), (const float *)(const void *)
	    gp_tensor_data(pk), cp, crs / (int64_t)sizeof(float), rows, p->k,
	    p->n, false);
	if (p->alpha != 1) {
		float al = (float)p->alpha;
		int64_t ldc = crs / (int64_t)sizeof(float), nc = p->n;

		GP_PAR_FOR(rows * nc)
		for (int64_t r = 0; r < rows; r++) {
			float *restrict cr = cp + r * ldc;

			GP_SIMD
			for (int64_t i = 0; i < nc; i++)
				cr[i] *= al;
		}
	}
	return (true);
}

static void
k_matmul(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct mm_priv *p = n->priv;
	struct gp_tensor *o = out[0], t = {0}, *dst = o;

	if (same_storage(o, in[0]) || same_storage(o, in[1]) ||
	    (p->bias && same_storage(o, in[2]))) {
		/* the output overlaps an operand: compute aside */
		gp_tensor_alloc(&t, o->dtype, o->ndim, o->shape);
		dst = &t;
	}
	if (!p->packed || !run_packed(p, in[0], in[n->n_in - 1], dst))
		run(p, o->dtype, in[0], in[1], 0, dst, NULL);
	if (p->bias)
		add_bias(dst, in[2]);
	if (dst != o) {
		gp_tensor_copy_into(o, &t);
		gp_tensor_release(&t);
	}
}

/* The work space of one execution: a dry run() on the inputs' layouts
 * (the output contiguous: matmul is never in place). */
static uint64_t
work_matmul(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	const struct gp_type *t = &g->vars[n->out[0]].type;
	struct gp_tensor o = {0};
	uint64_t w = 0;

	if (n->priv == NULL)
		return (0);
	o.dtype = t->dtype;
	o.ndim = t->ndim;
	memcpy(o.shape, t->shape, sizeof(t->shape));
	gp_shape_strides(t->ndim, t->shape, gp_dtype_size(t->dtype),
	    o.strides);
	run(n->priv, t->dtype, in[0], in[1], 0, &o, &w);
	return (w);
}

static int
err_shapes(struct gp_err *err, const struct gp_type *a,
    const struct gp_type *b, const char *tail)
{
	struct gp_buf sa = {0}, sb = {0};

	gp_shape_format(&sa, a->ndim, a->shape);
	gp_shape_format(&sb, b->ndim, b->shape);
	gp_err_set(err, "matmul: shapes %s and %s %s", gp_buf_str(&sa),
	    gp_buf_str(&sb), tail);
	gp_buf_free(&sa);
	gp_buf_free(&sb);
	return (-1);
}

static int
check_dtype(struct gp_err *err, const char *arg, const struct gp_type *t,
    enum gp_dtype want)
{
	if (t->dtype != GP_FLOAT32 && t->dtype != GP_FLOAT64)
		return (gp_err_set(err, "matmul: %s must be float32 or "
		    "float64, got %s", arg, gp_dtype_name(t->dtype)));
	if (t->dtype != want)
		return (gp_err_set(err, "matmul: %s is %s but x is %s", arg,
		    gp_dtype_name(t->dtype), gp_dtype_name(want)));
	return (0);
}

static int
prep_matmul(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	const struct gp_type *y = gp_graph_in_type(g, n, 1);
	struct mm_priv *p = gp_xcalloc(1, sizeof(*p));
	int64_t shape[GP_MAX_DIMS], kx, ky;
	int xb, yb, ndim;

	n->priv = p;
	if (check_dtype(err, "x", x, x->dtype) < 0 ||
	    check_dtype(err, "y", y, x->dtype) < 0)
		return (-1);
	if (x->ndim == 0 || y->ndim == 0)
		return (err_shapes(err, x, y, "include a 0-d operand (matmul "
		    "takes 1-d and more; a scalar product is mul)"));
	if (gp_op_param_double(n->params, "alpha", 1, &p->alpha, err) < 0 ||
	    gp_op_param_bool(n->params, "packed", false, &p->packed, err) < 0)
		return (-1);
	if (!p->packed && n->n_in > 3)
		return (gp_err_set(err, "matmul: a fourth input (P, y packed) "
		    "needs param packed"));
	p->bias = n->n_in > (p->packed ? 3 : 2);
	p->x1 = x->ndim == 1;
	p->y1 = y->ndim == 1;
	xb = p->x1 ? 0 : x->ndim - 2;
	yb = p->y1 ? 0 : y->ndim - 2;
	kx = x->shape[x->ndim - 1];
	ky = y->shape[p->y1 ? 0 : y->ndim - 2];
	if (kx != ky) {
		char tail[128];

		snprintf(tail, sizeof(tail), "are not aligned: %lld (x's last "
		    "dimension) != %lld (y's %s)", (long long)kx,
		    (long long)ky, p->y1 ? "only dimension" :
		    "second to last");
		return (err_shapes(err, x, y, tail));
	}
	if (gp_shape_broadcast(xb, x->shape, yb, y->shape, &p->nb, p->batch,
	    err) < 0)
		return (err_shapes(err, x, y, "have batch dimensions that do "
		    "not broadcast"));
	p->m = p->x1 ? 1 : x->shape[x->ndim - 2];
	p->k = kx;
	p->n = p->y1 ? 1 : y->shape[y->ndim - 1];
	memcpy(shape, p->batch, sizeof(int64_t) * (size_t)p->nb);
	ndim = p->nb;
	if (!p->x1)
		shape[ndim++] = p->m;
	if (!p->y1)
		shape[ndim++] = p->n;
	if (p->m > INT_MAX || p->n > INT_MAX || p->k > INT_MAX)
		return (gp_err_set(err, "matmul: a dimension is larger than "
		    "BLAS can index (%d)", INT_MAX));
	if (p->packed) {
		const struct gp_type *pt = gp_graph_in_type(g, n, n->n_in - 1);
		int64_t len = gp_conv_gemm_pack_len(p->k, p->n);

		if (n->n_in < 3)
			return (gp_err_set(err, "matmul: packed needs input P "
			    "(y packed) after x, y and the bias"));
		if (x->dtype != GP_FLOAT32 || p->x1 || y->ndim != 2)
			return (gp_err_set(err, "matmul: packed takes float32 "
			    "x of 2 or more dimensions and a 2-d y, got %s x "
			    "of %d and y of %d", gp_dtype_name(x->dtype),
			    x->ndim, y->ndim));
		if (pt->dtype != GP_FLOAT32 || pt->ndim != 1 ||
		    pt->shape[0] != len) {
			struct gp_type want = {.dtype = GP_FLOAT32, .ndim = 1,
			    .shape = {len}};
			struct gp_buf b = {0}, w = {0};

			gp_type_format(&b, pt);
			gp_type_format(&w, &want);
			gp_err_set(err, "matmul: P (y packed) is %s: expected "
			    "%s (ceil(N / 16) * 16 * K values)", gp_buf_str(&b),
			    gp_buf_str(&w));
			gp_buf_free(&b);
			gp_buf_free(&w);
			return (-1);
		}
	}
	if (p->bias) {
		const struct gp_type *c = gp_graph_in_type(g, n, 2);
		int64_t bs[GP_MAX_DIMS];
		int bn;
		struct gp_type r = {.dtype = x->dtype, .ndim = ndim};

		memcpy(r.shape, shape, sizeof(int64_t) * (size_t)ndim);
		if (check_dtype(err, "bias", c, x->dtype) < 0)
			return (-1);
		if (gp_shape_broadcast(c->ndim, c->shape, ndim, shape, &bn, bs,
		    err) < 0 || bn != ndim || memcmp(bs, shape,
		    sizeof(int64_t) * (size_t)ndim) != 0) {
			struct gp_buf sc = {0}, sr = {0};

			gp_shape_format(&sc, c->ndim, c->shape);
			gp_shape_format(&sr, ndim, shape);
			gp_err_set(err, "matmul: bias of shape %s does not "
			    "broadcast to the product's shape %s",
			    gp_buf_str(&sc), gp_buf_str(&sr));
			gp_buf_free(&sc);
			gp_buf_free(&sr);
			return (-1);
		}
	}
	gp_ops_set_out(g, n, 0, x->dtype, ndim, shape);
	n->kernel = k_matmul;
	n->impl = GP_IMPL_BLAS;
	return (0);
}

/* 2 M N K per matrix of the batch, plus M N for alpha (when not 1) and M
 * N for the bias. */
static double
flops_matmul(const struct gp_graph *g, const struct gp_node *n)
{
	const struct mm_priv *p = n->priv;
	double b, mn;

	if (p == NULL)
		return (0);
	b = (double)gp_shape_numel(p->nb, p->batch);
	mn = (double)p->m * (double)p->n;
	return (b * (2 * mn * (double)p->k + (p->alpha != 1 ? mn : 0) +
	    (p->bias ? mn : 0)));
}

static void
fmt_matmul(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	const struct mm_priv *p = n->priv;
	bool alpha = p != NULL && p->alpha != 1;
	bool bias = p != NULL && p->bias, packed = p != NULL && p->packed;
	const char *sep = "{";

	gp_buf_puts(b, "MatMul");
	if (bias) {
		gp_buf_printf(b, "%sbias", sep);
		sep = ", ";
	}
	if (alpha) {
		gp_buf_printf(b, "%salpha=%g", sep, p->alpha);
		sep = ", ";
	}
	if (packed) {
		gp_buf_printf(b, "%spacked", sep);
		sep = ", ";
	}
	if (sep[0] == ',')
		gp_buf_puts(b, "}");
}

static const struct gp_op op_matmul = {
	.name = "matmul",
	.cls = "MatMul",
	.doc = "matmul(x, y[, bias][, P]; alpha, packed): numpy's matmul, "
	    "alpha x@y + bias: matrices in the last two dimensions, the batch "
	    "dimensions before them broadcast, a 1-d x a row and a 1-d y a "
	    "column (their dimension removed), bias broadcast to the result; "
	    "float32 or float64, one dtype; through BLAS, or with packed a "
	    "float32 2-d y read from P, packed once (gemm_pack); never in "
	    "place",
	.min_in = 2, .max_in = 4, .n_out = 1,
	.flags = GP_OPF_BLAS,
	.params = p_matmul,
	.prepare = prep_matmul,
	.flops = flops_matmul,
	.workspace = work_matmul,
	.format = fmt_matmul,
	.free_priv = free,
};

const struct gp_op *const gp_ops_matmul[] = {
	&op_matmul,
	NULL,
};
