/*
 * ops/blas.c: the BLAS family.  dot (numpy's rules for 0-d, 1-d and 2-d
 * operands), dot22, gemv, ger and gemm, computed for float32 and float64
 * through OpenBLAS's cblas; dot of integers and bools runs a plain loop.
 *
 * Operands reach BLAS where they lie whenever BLAS can address them: a
 * row-major matrix as it is, a column-major one (a transposed view) as
 * CblasTrans with its leading dimension, a strided or reversed vector
 * through its increment.  A column-major output is handled by computing
 * the transposed product.  Anything else (broadcast or irregular strides,
 * an operand of another dtype) is copied to a contiguous matrix first;
 * gp_blas_copies() counts those copies.
 *
 * Those copies go to the kernels' work space (ops/scratch.h), and each op's
 * workspace() finds them by a dry run of its kernel on the layouts its
 * inputs will arrive in (struct cx).
 *
 * gemm, gemv and ger may overwrite their input 0 (Z, y, A): when a rewrite
 * sets destroy[0] = 0 the output arrives as that input and the kernel
 * updates it in place, whatever its strides.
 */
#include "config.h"

#include "ops/blas.h"
#include "ops/conv-gemm.h"
#include "ops/ops.h"
#include "ops/par.h"
#include "ops/scratch.h"

#include <cblas.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t n_copies;

uint64_t
gp_blas_copies(void)
{
	return (atomic_load_explicit(&n_copies, memory_order_relaxed));
}

static void
count_copy(void)
{
	atomic_fetch_add_explicit(&n_copies, 1, memory_order_relaxed);
}

/* A matrix or vector as BLAS sees it: element [0, 0] and byte strides. */
#define mat gp_blas_mat

struct vec {
	char	*p;
	int64_t	 n, s;
};

/*
 * How a kernel runs its BLAS calls: for real, or dry (the op's
 * workspace(), on the layouts the inputs will arrive in: no data): the
 * same decisions either way, a dry run recording the work space each
 * scratch slot would hold (the largest request, as gp_scratch_get counts)
 * instead of copying and computing.  Copies go to fixed slots: operand a
 * (or x) to GP_SCRATCH_IN0, b (or y) to GP_SCRATCH_IN1, an output BLAS
 * cannot write to GP_SCRATCH_OUT; dot's dtype conversions to
 * GP_SCRATCH_IN2 and GP_SCRATCH_COPY.
 */
struct cx {
	bool		dry;
	uint64_t	held[GP_SCRATCH__COUNT];
};

/* Where a dry run's matrices "lie": no data is read or written there. */
static char dry_base[64];

static uint64_t
cx_bytes(const struct cx *cx)
{
	uint64_t b = 0;

	for (int i = 0; i < GP_SCRATCH__COUNT; i++)
		b += cx->held[i];
	return (b);
}

/* Data of t, or the dry base for a layout (no storage). */
static char *
data_of(const struct gp_tensor *t)
{
	return (t->storage != NULL ? gp_tensor_data(t) : dry_base);
}

static struct mat
mat_of(const struct gp_tensor *t)
{
	struct mat m = {.p = data_of(t)};

	m.rows = t->shape[0];
	m.cols = t->shape[1];
	m.rs = t->strides[0];
	m.cs = t->strides[1];
	return (m);
}

static struct mat
mat_t(struct mat m)
{
	struct mat r = {.p = m.p, .rows = m.cols, .cols = m.rows,
	    .rs = m.cs, .cs = m.rs};

	return (r);
}

static struct vec
vec_of(const struct gp_tensor *t)
{
	struct vec v = {.p = data_of(t), .n = t->shape[0],
	    .s = t->strides[0]};

	return (v);
}

/* A header over a matrix (2-d) or vector (1-d) that BLAS cannot use, for
 * the tensor copy helpers. */
static void
hdr_mat(struct gp_tensor *h, struct gp_storage *fs, enum gp_dtype dt,
    const struct mat *m)
{
	memset(h, 0, sizeof(*h));
	memset(fs, 0, sizeof(*fs));
	fs->refcount = 1;
	fs->data = m->p;
	h->dtype = dt;
	h->ndim = 2;
	h->shape[0] = m->rows;
	h->shape[1] = m->cols;
	h->strides[0] = m->rs;
	h->strides[1] = m->cs;
	h->storage = fs;
}

/* Replace *m (of dtype sdt) by a contiguous matrix of dtype dt in scratch
 * slot sl: a copy of it when copy, else uninitialized (an output to
 * compute aside). */
static void
mat_aside(struct cx *cx, enum gp_scratch_slot sl, struct mat *m,
    enum gp_dtype sdt, enum gp_dtype dt, bool copy)
{
	size_t isz = gp_dtype_size(dt);
	size_t n = (size_t)(m->rows * m->cols) * isz;
	struct mat c = {.rows = m->rows, .cols = m->cols,
	    .rs = m->cols * (int64_t)isz, .cs = (int64_t)isz};

	if (cx->dry) {
		if (n > cx->held[sl])
			cx->held[sl] = n;
		c.p = dry_base;
	} else {
		struct gp_tensor h, t;
		struct gp_storage fs, ft;

		c.p = gp_scratch_get(sl, n);
		if (copy) {
			hdr_mat(&h, &fs, sdt, m);
			hdr_mat(&t, &ft, dt, &c);
			gp_tensor_copy_into(&t, &h);
		}
		count_copy();
	}
	*m = c;
}

static void
mat_copy(struct cx *cx, enum gp_scratch_slot sl, struct mat *m,
    enum gp_dtype sdt, enum gp_dtype dt)
{
	mat_aside(cx, sl, m, sdt, dt, true);
}

static void
vec_copy(struct cx *cx, enum gp_scratch_slot sl, struct vec *v,
    enum gp_dtype sdt, enum gp_dtype dt)
{
	struct mat m = {.p = v->p, .rows = v->n, .cols = 1, .rs = v->s,
	    .cs = (int64_t)gp_dtype_size(sdt)};

	mat_copy(cx, sl, &m, sdt, dt);
	v->p = m.p;
	v->s = m.rs;
}

/* dst (of dtype dt) = src, a matrix computed aside. */
static void
mat_back(const struct cx *cx, enum gp_dtype dt, const struct mat *dst,
    const struct mat *src)
{
	struct gp_tensor h, t;
	struct gp_storage fs, ft;

	if (cx->dry)
		return;
	hdr_mat(&h, &fs, dt, dst);
	hdr_mat(&t, &ft, dt, src);
	gp_tensor_copy_into(&h, &t);
}

/* Can BLAS read m as a row-major matrix (NoTrans) or as the transpose of a
 * row-major one (Trans)?  Sets the transpose flag and leading dimension. */
static bool
mat_layout(const struct mat *m, size_t isz, enum CBLAS_TRANSPOSE *tr,
    blasint *ld)
{
	int64_t s = (int64_t)isz, l;

	if ((m->cols <= 1 || m->cs == s) && (m->rows <= 1 ||
	    (m->rs % s == 0 && m->rs >= m->cols * s))) {
		l = m->rows <= 1 ? (m->cols > 1 ? m->cols : 1) : m->rs / s;
		*tr = CblasNoTrans;
	} else if ((m->rows <= 1 || m->rs == s) && (m->cols <= 1 ||
	    (m->cs % s == 0 && m->cs >= m->rows * s))) {
		l = m->cols <= 1 ? (m->rows > 1 ? m->rows : 1) : m->cs / s;
		*tr = CblasTrans;
	} else
		return (false);
	if (l > INT_MAX)
		return (false);
	*ld = (blasint)l;
	return (true);
}

/* Can BLAS step through v?  Sets the base pointer BLAS wants (the lowest
 * address when the increment is negative) and the increment. */
static bool
vec_layout(const struct vec *v, size_t isz, char **p, blasint *inc)
{
	int64_t s = (int64_t)isz, k;

	if (v->n <= 1) {
		*p = v->p;
		*inc = 1;
		return (true);
	}
	if (v->s == 0 || v->s % s != 0)
		return (false);
	k = v->s / s;
	if (k > INT_MAX || k < -INT_MAX)
		return (false);
	*inc = (blasint)k;
	*p = k < 0 ? v->p + (v->n - 1) * v->s : v->p;
	return (true);
}

bool
gp_blas_addressable(int ndim, const int64_t *shape, const int64_t *strides,
    size_t isz)
{
	enum CBLAS_TRANSPOSE tr;
	blasint ld;
	char *p;

	if (ndim == 2) {
		struct mat m = {.rows = shape[0], .cols = shape[1],
		    .rs = strides[0], .cs = strides[1]};

		return (mat_layout(&m, isz, &tr, &ld));
	}
	if (ndim == 1) {
		struct vec v = {.n = shape[0], .s = strides[0]};

		return (vec_layout(&v, isz, &p, &ld));
	}
	return (true);
}

/*
 * The typed half of the BLAS calls: one definition, instantiated for float
 * (cblas_s*) and double (cblas_d*), picked through blas_fns[dt].  The
 * cores above them work on bytes and strides and are shared.
 */
struct blas_fns {
	void	(*scale)(const struct mat *m, double beta);
	void	(*gemm)(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb,
		    blasint M, blasint N, blasint K, double alpha,
		    const char *a, blasint lda, const char *b, blasint ldb,
		    double beta, char *c, blasint ldc);
	void	(*gemv)(enum CBLAS_TRANSPOSE ta, blasint M, blasint N,
		    double alpha, const char *a, blasint lda, const char *x,
		    blasint incx, double beta, char *y, blasint incy);
	void	(*ger)(blasint M, blasint N, double alpha, const char *x,
		    blasint incx, const char *y, blasint incy, char *a,
		    blasint lda);
	double	(*dot)(blasint n, const char *x, blasint incx, const char *y,
		    blasint incy);
};

/* dst = beta * dst (beta 0 writes zeros, so NaN in dst does not survive,
 * as in BLAS); then T's cblas_?gemm, ?gemv, ?ger and ?dot. */
#define DEF_BLAS(SFX, T, P)                                                   \
static void                                                                   \
scale_##SFX(const struct mat *m, double beta)                                 \
{                                                                             \
	for (int64_t i = 0; i < m->rows; i++)                                 \
		for (int64_t j = 0; j < m->cols; j++) {                       \
			T *p = (T *)(m->p + i * m->rs + j * m->cs);           \
			*p = beta == 0 ? 0 : (T)beta * *p;                    \
		}                                                             \
}                                                                             \
static void                                                                   \
gemm_##SFX(enum CBLAS_TRANSPOSE ta, enum CBLAS_TRANSPOSE tb, blasint M,       \
    blasint N, blasint K, double alpha, const char *a, blasint lda,           \
    const char *b, blasint ldb, double beta, char *c, blasint ldc)            \
{                                                                             \
	cblas_##P##gemm(CblasRowMajor, ta, tb, M, N, K, (T)alpha,             \
	    (const T *)a, lda, (const T *)b, ldb, (T)beta, (T *)c, ldc);      \
}                                                                             \
static void                                                                   \
gemv_##SFX(enum CBLAS_TRANSPOSE ta, blasint M, blasint N, double alpha,       \
    const char *a, blasint lda, const char *x, blasint incx, double beta,     \
    char *y, blasint incy)                                                    \
{                                                                             \
	cblas_##P##gemv(CblasRowMajor, ta, M, N, (T)alpha, (const T *)a, lda, \
	    (const T *)x, incx, (T)beta, (T *)y, incy);                       \
}                                                                             \
static void                                                                   \
ger_##SFX(blasint M, blasint N, double alpha, const char *x, blasint incx,    \
    const char *y, blasint incy, char *a, blasint lda)                        \
{                                                                             \
	cblas_##P##ger(CblasRowMajor, M, N, (T)alpha, (const T *)x, incx,     \
	    (const T *)y, incy, (T *)a, lda);                                 \
}                                                                             \
static double                                                                 \
dot_##SFX(blasint n, const char *x, blasint incx, const char *y,              \
    blasint incy)                                                             \
{                                                                             \
	return (cblas_##P##dot(n, (const T *)x, incx, (const T *)y, incy));   \
}
DEF_BLAS(f32, float, s)
DEF_BLAS(f64, double, d)

static const struct blas_fns blas_fns[GP_DTYPE__COUNT] = {
#define E(SFX) {.scale = scale_##SFX, .gemm = gemm_##SFX,                     \
	    .gemv = gemv_##SFX, .ger = ger_##SFX, .dot = dot_##SFX}
	[GP_FLOAT32] = E(f32),
	[GP_FLOAT64] = E(f64),
#undef E
};

/* The matrix elements from which a gemv runs over the kernels' threads. */
#define GEMV_PAR_MIN	((int64_t)1 << 18)

int
gp_blas_threads_set(int n)
{
	int was = openblas_get_num_threads();

	if (n > 0 && n != was)
		openblas_set_num_threads(n);
	return (was);
}

/*
 * A gemv (BLAS's arguments, row-major) whose matrix is large (a CNN's
 * classifier, 1280 x 1000) over the kernels' OpenMP threads, each one
 * slice of y (rows of a, or its columns with Trans) through a one-thread
 * BLAS call, OpenBLAS's own threads set to 1 meanwhile (as ops/conv-pw.c
 * does): those threads slept since the previous BLAS call, the kernels'
 * spin from the conv before (ops/par.h), and the split is BLAS's own
 * (each y element the same dot product).  mobilenet_v2's classifier took
 * 0.66-0.81 of OpenBLAS's threaded call's time (medians of 100 calls,
 * four runs each, alternated).  A smaller gemv runs on one thread, for
 * the same reason: OpenBLAS threads one from 9,216 elements, and its
 * threads are asleep (ops/conv-pw.c).
 */
static void
gemv_par(enum gp_dtype dt, enum CBLAS_TRANSPOSE ta, blasint M, blasint N,
    double alpha, const char *a, blasint lda, const char *x, blasint incx,
    double beta, char *y, blasint incy)
{
	int64_t ny = ta == CblasNoTrans ? M : N;
	int64_t isz = (int64_t)gp_dtype_size(dt);
	int nt = gp_par_max_threads(), blas_nt;

	if (nt < 2 || ny < 16 * nt) {
		blas_fns[dt].gemv(ta, M, N, alpha, a, lda, x, incx, beta, y,
		    incy);
		return;
	}
	blas_nt = gp_blas_threads_set(1);
	if ((int64_t)M * N < GEMV_PAR_MIN) {
		blas_fns[dt].gemv(ta, M, N, alpha, a, lda, x, incx, beta, y,
		    incy);
		(void)gp_blas_threads_set(blas_nt);
		return;
	}
	GP_PAR_FOR(GP_PAR_MIN)
	for (int k = 0; k < nt; k++) {
		int64_t j0, j1;

		gp_par_split(ny, 16, k, nt, &j0, &j1);
		if (j0 >= j1)
			continue;
		if (ta == CblasNoTrans)
			blas_fns[dt].gemv(ta, (blasint)(j1 - j0), N, alpha, a +
			    j0 * lda * isz, lda, x, incx, beta, y + j0 * incy *
			    isz, incy);
		else
			blas_fns[dt].gemv(ta, M, (blasint)(j1 - j0), alpha, a +
			    j0 * isz, lda, x, incx, beta, y + j0 * incy * isz,
			    incy);
	}
	(void)gp_blas_threads_set(blas_nt);
}

/*
 * A gemm whose output has at most GEMM_NARROW columns (an MLP's last
 * layer: 128 x 512 . 512 x 10, 0.65 M multiply-adds, when its weights are
 * not fixed: fixed ones the gemm_pack rewrite packs) runs on OpenBLAS's
 * calling thread alone, its count set to 1 around the call.  Measured in
 * one process, the MLP of bench/onnx (784-512-512-10, batch 128) with and
 * without this, alternated call against call (bench-ab, 2 threads, nine
 * runs of 200 pairs): 0.978-1.007 of the time, median 0.981; the
 * transformer (no such gemm) 0.99-1.0.  The gemm's own median moves
 * less than the machine's noise (41-50 us either way): the call gains
 * around it, how is not settled.
 */
#define GEMM_NARROW	16

static void
gemm_narrow(enum gp_dtype dt, enum CBLAS_TRANSPOSE ta,
    enum CBLAS_TRANSPOSE tb, blasint M, blasint N, blasint K, double alpha,
    const char *a, blasint lda, const char *b, blasint ldb, double beta,
    char *c, blasint ldc)
{
	int blas_nt = gp_blas_threads_set(1);

	blas_fns[dt].gemm(ta, tb, M, N, K, alpha, a, lda, b, ldb, beta, c,
	    ldc);
	(void)gp_blas_threads_set(blas_nt);
}

static void
mat_scale(const struct cx *cx, enum gp_dtype dt, const struct mat *m,
    double beta)
{
	if (!cx->dry)
		blas_fns[dt].scale(m, beta);
}

/* c (M x N) = alpha * a (M x K) . b (K x N) + beta * c, all of dtype dt. */
static void
gemm_core(struct cx *cx, enum gp_dtype dt, double alpha, struct mat a,
    struct mat b, double beta, struct mat c)
{
	size_t isz = gp_dtype_size(dt);
	int64_t M = a.rows, N = b.cols, K = a.cols;
	enum CBLAS_TRANSPOSE ta, tb, tc;
	blasint lda, ldb, ldc;

	if (M == 0 || N == 0)
		return;
	if (K == 0) {
		mat_scale(cx, dt, &c, beta);
		return;
	}
	if (!mat_layout(&c, isz, &tc, &ldc)) {
		/* an output BLAS cannot write: compute into a temporary */
		struct mat t = c;

		mat_aside(cx, GP_SCRATCH_OUT, &t, dt, dt, beta != 0);
		gemm_core(cx, dt, alpha, a, b, beta, t);
		mat_back(cx, dt, &c, &t);
		return;
	}
	if (tc == CblasTrans) {
		/* c is column-major: c^T = b^T a^T is row-major */
		gemm_core(cx, dt, alpha, mat_t(b), mat_t(a), beta, mat_t(c));
		return;
	}
	if (!mat_layout(&a, isz, &ta, &lda)) {
		mat_copy(cx, GP_SCRATCH_IN0, &a, dt, dt);
		(void)mat_layout(&a, isz, &ta, &lda);
	}
	if (!mat_layout(&b, isz, &tb, &ldb)) {
		mat_copy(cx, GP_SCRATCH_IN1, &b, dt, dt);
		(void)mat_layout(&b, isz, &tb, &ldb);
	}
	if (cx->dry)
		return;
	/* one row or one column of c: a gemv, which streams the matrix
	 * once; OpenBLAS's gemm packs it first (a classifier's 1 x 1280 .
	 * 1280 x 1000: 481 us against 97 us) */
	if (M == 1)
		gemv_par(dt, tb == CblasNoTrans ? CblasTrans : CblasNoTrans,
		    (blasint)(tb == CblasNoTrans ? K : N),
		    (blasint)(tb == CblasNoTrans ? N : K), alpha, b.p, ldb, a.p,
		    ta == CblasNoTrans ? 1 : lda, beta, c.p, 1);
	else if (N == 1)
		gemv_par(dt, ta, (blasint)(ta == CblasNoTrans ? M : K),
		    (blasint)(ta == CblasNoTrans ? K : M), alpha, a.p, lda, b.p,
		    tb == CblasNoTrans ? ldb : 1, beta, c.p, ldc);
	else if (N <= GEMM_NARROW)
		gemm_narrow(dt, ta, tb, (blasint)M, (blasint)N, (blasint)K,
		    alpha, a.p, lda, b.p, ldb, beta, c.p, ldc);
	else
		blas_fns[dt].gemm(ta, tb, (blasint)M, (blasint)N, (blasint)K,
		    alpha, a.p, lda, b.p, ldb, beta, c.p, ldc);
}

void
gp_blas_gemm(enum gp_dtype dt, double alpha, const struct gp_blas_mat *a,
    const struct gp_blas_mat *b, double beta, const struct gp_blas_mat *c)
{
	struct cx cx = {.dry = false};

	gemm_core(&cx, dt, alpha, *a, *b, beta, *c);
}

uint64_t
gp_blas_gemm_work(enum gp_dtype dt, const struct gp_blas_mat *a,
    const struct gp_blas_mat *b, double beta, const struct gp_blas_mat *c)
{
	struct cx cx = {.dry = true};

	gemm_core(&cx, dt, 1, *a, *b, beta, *c);
	return (cx_bytes(&cx));
}

/* y (M) = alpha * a (M x N) . x (N) + beta * y. */
static void
gemv_core(struct cx *cx, enum gp_dtype dt, double alpha, struct mat a,
    struct vec x, double beta, struct vec y)
{
	size_t isz = gp_dtype_size(dt);
	int64_t M = a.rows, N = a.cols;
	enum CBLAS_TRANSPOSE ta;
	blasint lda, incx, incy;
	char *px, *py;

	if (M == 0)
		return;
	if (N == 0) {
		struct mat m = {.p = y.p, .rows = M, .cols = 1, .rs = y.s,
		    .cs = (int64_t)isz};

		mat_scale(cx, dt, &m, beta);
		return;
	}
	if (!vec_layout(&y, isz, &py, &incy)) {
		struct mat m = {.p = y.p, .rows = M, .cols = 1, .rs = y.s,
		    .cs = (int64_t)isz}, t = m;
		struct vec tv;

		mat_aside(cx, GP_SCRATCH_OUT, &t, dt, dt, true);
		tv.p = t.p;
		tv.n = M;
		tv.s = t.rs;
		gemv_core(cx, dt, alpha, a, x, beta, tv);
		mat_back(cx, dt, &m, &t);
		return;
	}
	if (beta == 0) {
		/* BLAS may scale y by 0 (keeping NaN): start from zeros */
		struct mat m = {.p = y.p, .rows = M, .cols = 1, .rs = y.s,
		    .cs = (int64_t)isz};

		mat_scale(cx, dt, &m, 0);
	}
	if (!vec_layout(&x, isz, &px, &incx)) {
		vec_copy(cx, GP_SCRATCH_IN1, &x, dt, dt);
		(void)vec_layout(&x, isz, &px, &incx);
	}
	if (!mat_layout(&a, isz, &ta, &lda)) {
		mat_copy(cx, GP_SCRATCH_IN0, &a, dt, dt);
		(void)mat_layout(&a, isz, &ta, &lda);
	}
	/* with Trans, BLAS's matrix is the stored N x M one */
	if (ta == CblasTrans) {
		int64_t t = M;

		M = N;
		N = t;
	}
	if (!cx->dry)
		gemv_par(dt, ta, (blasint)M, (blasint)N, alpha, a.p, lda, px,
		    incx, beta, py, incy);
}

/* a (M x N) += alpha * x (M) y (N)^T. */
static void
ger_core(struct cx *cx, enum gp_dtype dt, double alpha, struct vec x,
    struct vec y, struct mat a)
{
	size_t isz = gp_dtype_size(dt);
	int64_t M = a.rows, N = a.cols;
	enum CBLAS_TRANSPOSE ta;
	blasint lda, incx, incy;
	char *px, *py;

	if (M == 0 || N == 0)
		return;
	if (!mat_layout(&a, isz, &ta, &lda)) {
		struct mat t = a;

		mat_aside(cx, GP_SCRATCH_OUT, &t, dt, dt, true);
		ger_core(cx, dt, alpha, x, y, t);
		mat_back(cx, dt, &a, &t);
		return;
	}
	if (ta == CblasTrans) {
		/* a is column-major: a^T += alpha y x^T */
		ger_core(cx, dt, alpha, y, x, mat_t(a));
		return;
	}
	if (!vec_layout(&x, isz, &px, &incx)) {
		vec_copy(cx, GP_SCRATCH_IN0, &x, dt, dt);
		(void)vec_layout(&x, isz, &px, &incx);
	}
	if (!vec_layout(&y, isz, &py, &incy)) {
		vec_copy(cx, GP_SCRATCH_IN1, &y, dt, dt);
		(void)vec_layout(&y, isz, &py, &incy);
	}
	if (!cx->dry)
		blas_fns[dt].ger((blasint)M, (blasint)N, alpha, px, incx, py,
		    incy, a.p, lda);
}

static double
dot_core(struct cx *cx, enum gp_dtype dt, struct vec x, struct vec y)
{
	size_t isz = gp_dtype_size(dt);
	blasint incx, incy;
	char *px, *py;

	if (x.n == 0)
		return (0);
	if (!vec_layout(&x, isz, &px, &incx)) {
		vec_copy(cx, GP_SCRATCH_IN0, &x, dt, dt);
		(void)vec_layout(&x, isz, &px, &incx);
	}
	if (!vec_layout(&y, isz, &py, &incy)) {
		vec_copy(cx, GP_SCRATCH_IN1, &y, dt, dt);
		(void)vec_layout(&y, isz, &py, &incy);
	}
	if (cx->dry)
		return (0);
	return (blas_fns[dt].dot((blasint)x.n, px, incx, py, incy));
}

static double
load_scalar(const struct gp_tensor *t)
{
	return (gp_dtype_load(gp_tensor_data(t), t->dtype));
}

static bool
same_storage(const struct gp_tensor *a, const struct gp_tensor *b)
{
	return (a->storage != NULL && a->storage == b->storage);
}

/*
 * Params and shapes.
 */

enum dot_kind {
	DOT_SCALAR,	/* a 0-d operand: elementwise product */
	DOT_VV,
	DOT_MV,
	DOT_VM,
	DOT_MM
};

struct blas_priv {
	enum dot_kind	kind;
	int64_t		m, n, k;	/* the product's dimensions */
	bool		packed;		/* gemm: input 5, Y packed */
};

static void
fmt_shape(struct gp_buf *b, const struct gp_type *t)
{
	gp_shape_format(b, t->ndim, t->shape);
}

static int
err_shapes(struct gp_err *err, const char *what, const struct gp_type *a,
    const struct gp_type *b, const char *tail)
{
	struct gp_buf sa = {0}, sb = {0};

	fmt_shape(&sa, a);
	fmt_shape(&sb, b);
	gp_err_set(err, "%s: shapes %s and %s %s", what, gp_buf_str(&sa),
	    gp_buf_str(&sb), tail);
	gp_buf_free(&sa);
	gp_buf_free(&sb);
	return (-1);
}

static int
check_ndim(struct gp_err *err, const char *op, const char *arg,
    const struct gp_type *t, int ndim)
{
	static const char *const what[] = {"a 0-d tensor (a scalar)",
	    "a vector", "a matrix"};
	struct gp_buf b = {0};

	if (t->ndim == ndim)
		return (0);
	fmt_shape(&b, t);
	gp_err_set(err, "%s: %s must be %s, got shape %s", op, arg, what[ndim],
	    gp_buf_str(&b));
	gp_buf_free(&b);
	return (-1);
}

static int
check_float(struct gp_err *err, const char *op, const char *arg,
    const struct gp_type *t, enum gp_dtype want)
{
	if (want != GP_FLOAT32 && want != GP_FLOAT64)
		return (gp_err_set(err, "%s: %s must be float32 or float64, "
		    "got %s", op, arg, gp_dtype_name(t->dtype)));
	if (t->dtype != want)
		return (gp_err_set(err, "%s: %s is %s but the other operands "
		    "are %s", op, arg, gp_dtype_name(t->dtype),
		    gp_dtype_name(want)));
	return (0);
}

static int
check_blas_dims(struct gp_err *err, const char *op, int64_t m, int64_t n,
    int64_t k)
{
	if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
		return (gp_err_set(err, "%s: a dimension is larger than BLAS "
		    "can index (%d)", op, INT_MAX));
	return (0);
}

static struct blas_priv *
priv_new(struct gp_node *n, enum dot_kind kind, int64_t m, int64_t nn,
    int64_t k)
{
	struct blas_priv *p = gp_xcalloc(1, sizeof(*p));

	p->kind = kind;
	p->m = m;
	p->n = nn;
	p->k = k;
	n->priv = p;
	return (p);
}

/*
 * dot
 */

/* out *= s, out contiguous of dtype dt (s of dtype sdt, at sp). */
static void
scale_by(char *out, enum gp_dtype dt, int64_t n, const char *sp,
    enum gp_dtype sdt)
{
	switch (dt) {
#define SCALE_FLOAT(DT, T)                                                    \
	case DT: {                                                            \
		T s, *o = (T *)out;                                           \
                                                                              \
		gp_dtype_convert(&s, dt, sp, sdt, 0, 1);                      \
		for (int64_t i = 0; i < n; i++)                               \
			o[i] *= s;                                            \
		break;                                                        \
	}
	SCALE_FLOAT(GP_FLOAT32, float)
	SCALE_FLOAT(GP_FLOAT64, double)
#undef SCALE_FLOAT
	case GP_BOOL: {
		_Bool s, *o = (_Bool *)out;

		gp_dtype_convert(&s, dt, sp, sdt, 0, 1);
		for (int64_t i = 0; i < n; i++)
			o[i] = o[i] && s;
		break;
	}
	default: {
		/* integers: through int64 with wrap-around, as numpy */
		size_t isz = gp_dtype_size(dt);
		int64_t s, v;

		gp_dtype_convert(&s, GP_INT64, sp, sdt, 0, 1);
		for (int64_t i = 0; i < n; i++) {
			gp_dtype_convert(&v, GP_INT64, out + i * (int64_t)isz,
			    dt, 0, 1);
			v = (int64_t)((uint64_t)v * (uint64_t)s);
			gp_dtype_convert(out + i * (int64_t)isz, dt, &v,
			    GP_INT64, 0, 1);
		}
		break;
	}
	}
}

/* x converted to dtype dt, contiguous, in scratch slot sl (t, st: its
 * header); a dry run records the bytes and gives a layout. */
static const struct gp_tensor *
cast_to(struct cx *cx, const struct gp_tensor *x, enum gp_dtype dt,
    enum gp_scratch_slot sl, struct gp_tensor *t, struct gp_storage *st)
{
	size_t n = (size_t)gp_tensor_numel(x) * gp_dtype_size(dt);

	memset(t, 0, sizeof(*t));
	t->dtype = dt;
	t->ndim = x->ndim;
	memcpy(t->shape, x->shape, sizeof(x->shape));
	gp_shape_strides(x->ndim, x->shape, gp_dtype_size(dt), t->strides);
	if (cx->dry) {
		if (n > cx->held[sl])
			cx->held[sl] = n;
		return (t);
	}
	memset(st, 0, sizeof(*st));
	st->refcount = 1;
	st->nbytes = n;
	st->data = gp_scratch_get(sl, n);
	t->storage = st;
	gp_tensor_copy_into(t, x);
	count_copy();
	return (t);
}

/* Integer or bool dot: a (M x K) . b (K x N) into out (M x N, C order),
 * through int64 copies of both. */
static void
dot_int(struct cx *cx, const struct gp_tensor *a, const struct gp_tensor *b,
    struct gp_tensor *out, const struct blas_priv *p)
{
	struct gp_tensor ta, tb;
	struct gp_storage sa, sb;
	int64_t M = p->m, N = p->n, K = p->k;
	const int64_t *x, *y;
	uint64_t *acc;

	(void)cast_to(cx, a, GP_INT64, GP_SCRATCH_IN0, &ta, &sa);
	(void)cast_to(cx, b, GP_INT64, GP_SCRATCH_IN1, &tb, &sb);
	if (cx->dry)
		return;
	x = (const int64_t *)gp_tensor_data(&ta);
	y = (const int64_t *)gp_tensor_data(&tb);
	acc = gp_xcalloc((size_t)(M * N > 0 ? M * N : 1), sizeof(uint64_t));
	for (int64_t i = 0; i < M; i++)
		for (int64_t k = 0; k < K; k++) {
			uint64_t xv = (uint64_t)x[i * K + k];

			for (int64_t j = 0; j < N; j++)
				acc[i * N + j] += xv * (uint64_t)y[k * N + j];
		}
	gp_dtype_convert(gp_tensor_data(out), out->dtype, acc, GP_INT64,
	    sizeof(int64_t), (size_t)(M * N));
	free(acc);
}

/* dot, for real or dry (o a layout then).  The output never shares a
 * storage with an operand (dot is never in place). */
static void
run_dot(struct cx *cx, const struct gp_node *n,
    const struct gp_tensor *const *in, struct gp_tensor *o)
{
	const struct blas_priv *p = n->priv;
	const struct gp_tensor *a = in[0], *b = in[1];
	enum gp_dtype dt = o->dtype;
	struct gp_tensor ta, tb;
	struct gp_storage sa, sb;

	if (p->kind == DOT_SCALAR) {
		const struct gp_tensor *sc = a->ndim == 0 ? a : b;
		const struct gp_tensor *v = a->ndim == 0 ? b : a;

		if (cx->dry)
			return;
		gp_tensor_copy_into(o, v);
		scale_by(gp_tensor_data(o), dt, gp_tensor_numel(o),
		    gp_tensor_data(sc), sc->dtype);
		return;
	}
	if (!gp_dtype_is_float(dt)) {
		dot_int(cx, a, b, o, p);
		return;
	}
	/* operands of another dtype are converted (and counted) */
	if (a->dtype != dt)
		a = cast_to(cx, a, dt, GP_SCRATCH_IN2, &ta, &sa);
	if (b->dtype != dt)
		b = cast_to(cx, b, dt, GP_SCRATCH_COPY, &tb, &sb);
	switch (p->kind) {
	case DOT_VV: {
		double r = dot_core(cx, dt, vec_of(a), vec_of(b));

		if (!cx->dry)
			gp_dtype_store(gp_tensor_data(o), dt, r);
		break;
	}
	case DOT_MV:
		gemv_core(cx, dt, 1, mat_of(a), vec_of(b), 0, vec_of(o));
		break;
	case DOT_VM:
		gemv_core(cx, dt, 1, mat_t(mat_of(b)), vec_of(a), 0, vec_of(o));
		break;
	default:
		gemm_core(cx, dt, 1, mat_of(a), mat_of(b), 0, mat_of(o));
		break;
	}
}

static void
k_dot(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	struct cx cx = {.dry = false};

	run_dot(&cx, n, (const struct gp_tensor *const *)in, out[0]);
}

/* The layout output 0 of n arrives in: that of the input it overwrites,
 * else contiguous. */
static void
out_layout(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in, struct gp_tensor *o)
{
	const struct gp_type *t = &g->vars[n->out[0]].type;

	if (n->destroy[0] >= 0) {
		*o = *in[n->destroy[0]];
		return;
	}
	memset(o, 0, sizeof(*o));
	o->dtype = t->dtype;
	o->ndim = t->ndim;
	memcpy(o->shape, t->shape, sizeof(t->shape));
	gp_shape_strides(t->ndim, t->shape, gp_dtype_size(t->dtype),
	    o->strides);
}

/* The work space of the copies a kernel makes (ops/scratch.h): a dry run
 * of it on the inputs' layouts. */
static uint64_t
work_dry(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in,
    void (*run)(struct cx *, const struct gp_node *,
    const struct gp_tensor *const *, struct gp_tensor *))
{
	struct cx cx = {.dry = true};
	struct gp_tensor o;

	if (n->priv == NULL)
		return (0);
	out_layout(g, n, in, &o);
	run(&cx, n, in, &o);
	return (cx_bytes(&cx));
}

static uint64_t
work_dot(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	return (work_dry(g, n, in, run_dot));
}

static int
prep_dot(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *a = gp_graph_in_type(g, n, 0);
	const struct gp_type *b = gp_graph_in_type(g, n, 1);
	enum gp_dtype dt = gp_dtype_promote(a->dtype, b->dtype);
	int64_t shape[2];
	struct blas_priv *p;

	if (a->ndim > 2 || b->ndim > 2)
		return (err_shapes(err, "dot", a, b, "have more than 2 "
		    "dimensions (not supported: reshape to matrices)"));
	if (a->ndim == 0 || b->ndim == 0) {
		const struct gp_type *v = a->ndim == 0 ? b : a;

		p = priv_new(n, DOT_SCALAR, gp_shape_numel(v->ndim, v->shape),
		    1, 1);
		gp_ops_set_out(g, n, 0, dt, v->ndim, v->shape);
		n->kernel = k_dot;
		n->impl = GP_IMPL_C;
		return (0);
	}
	{
		int64_t ka = a->shape[a->ndim - 1];
		int64_t kb = b->shape[0];

		if (ka != kb) {
			char tail[128];

			snprintf(tail, sizeof(tail), "are not aligned: %lld "
			    "(dim %d) != %lld (dim 0)", (long long)ka,
			    a->ndim - 1, (long long)kb);
			return (err_shapes(err, "dot", a, b, tail));
		}
	}
	if (a->ndim == 1 && b->ndim == 1) {
		p = priv_new(n, DOT_VV, 1, 1, a->shape[0]);
		gp_ops_set_out(g, n, 0, dt, 0, shape);
	} else if (a->ndim == 2 && b->ndim == 1) {
		p = priv_new(n, DOT_MV, a->shape[0], 1, a->shape[1]);
		shape[0] = a->shape[0];
		gp_ops_set_out(g, n, 0, dt, 1, shape);
	} else if (a->ndim == 1) {
		p = priv_new(n, DOT_VM, 1, b->shape[1], a->shape[0]);
		shape[0] = b->shape[1];
		gp_ops_set_out(g, n, 0, dt, 1, shape);
	} else {
		p = priv_new(n, DOT_MM, a->shape[0], b->shape[1], a->shape[1]);
		shape[0] = a->shape[0];
		shape[1] = b->shape[1];
		gp_ops_set_out(g, n, 0, dt, 2, shape);
	}
	if (gp_dtype_is_float(dt)) {
		if (check_blas_dims(err, "dot", p->m, p->n, p->k) < 0)
			return (-1);
		n->impl = GP_IMPL_BLAS;
	} else
		n->impl = GP_IMPL_C;
	n->kernel = k_dot;
	return (0);
}

static double
flops_dot(const struct gp_graph *g, const struct gp_node *n)
{
	const struct blas_priv *p = n->priv;

	if (p == NULL)
		return (0);
	if (p->kind == DOT_SCALAR)
		return ((double)p->m);
	return (2.0 * (double)p->m * (double)p->n * (double)p->k);
}

static void
fmt_dot(const struct gp_graph *g, const struct gp_node *n, struct gp_buf *b)
{
	gp_buf_puts(b, "dot");
}

/*
 * dot22: matrix . matrix
 */

/* dot22 (never in place: the output shares no storage with X or Y). */
static void
run_dot22(struct cx *cx, const struct gp_node *n,
    const struct gp_tensor *const *in, struct gp_tensor *o)
{
	(void)n;
	gemm_core(cx, o->dtype, 1, mat_of(in[0]), mat_of(in[1]), 0, mat_of(o));
}

static void
k_dot22(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	struct cx cx = {.dry = false};

	run_dot22(&cx, n, (const struct gp_tensor *const *)in, out[0]);
}

static uint64_t
work_dot22(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	return (work_dry(g, n, in, run_dot22));
}

static int
prep_dot22(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *x = gp_graph_in_type(g, n, 0);
	const struct gp_type *y = gp_graph_in_type(g, n, 1);
	int64_t shape[2];

	if (check_ndim(err, "dot22", "x", x, 2) < 0 ||
	    check_ndim(err, "dot22", "y", y, 2) < 0 ||
	    check_float(err, "dot22", "x", x, x->dtype) < 0 ||
	    check_float(err, "dot22", "y", y, x->dtype) < 0)
		return (-1);
	if (x->shape[1] != y->shape[0])
		return (err_shapes(err, "dot22", x, y, "are not aligned"));
	if (check_blas_dims(err, "dot22", x->shape[0], y->shape[1],
	    x->shape[1]) < 0)
		return (-1);
	priv_new(n, DOT_MM, x->shape[0], y->shape[1], x->shape[1]);
	shape[0] = x->shape[0];
	shape[1] = y->shape[1];
	gp_ops_set_out(g, n, 0, x->dtype, 2, shape);
	n->kernel = k_dot22;
	n->impl = GP_IMPL_BLAS;
	return (0);
}

static void
fmt_dot22(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	gp_buf_puts(b, "Dot22");
}

/*
 * gemm: Z = alpha X.Y + beta Z  (inputs Z, alpha, X, Y, beta), and gemv:
 * y = alpha A.x + beta y  (inputs y, alpha, A, x, beta): one kernel, the
 * product (gemm_core or gemv_core) passed in.
 */

typedef void (*update_fn)(struct cx *cx, enum gp_dtype dt, double alpha,
    const struct gp_tensor *x, const struct gp_tensor *y, double beta,
    struct gp_tensor *z);

static void
update_gemm(struct cx *cx, enum gp_dtype dt, double alpha,
    const struct gp_tensor *x, const struct gp_tensor *y, double beta,
    struct gp_tensor *z)
{
	gemm_core(cx, dt, alpha, mat_of(x), mat_of(y), beta, mat_of(z));
}

static void
update_gemv(struct cx *cx, enum gp_dtype dt, double alpha,
    const struct gp_tensor *x, const struct gp_tensor *y, double beta,
    struct gp_tensor *z)
{
	gemv_core(cx, dt, alpha, mat_of(x), vec_of(y), beta, vec_of(z));
}

/* out = alpha f(in[2], in[3]) + beta in[0]; in place when out is in[0].
 * A dry run takes alpha = beta = 1 (the copies do not depend on them). */
static void
run_update(struct cx *cx, const struct gp_tensor *const *in,
    struct gp_tensor *o, update_fn f)
{
	struct gp_tensor t = {0};
	double alpha = cx->dry ? 1 : load_scalar(in[1]);
	double beta = cx->dry ? 1 : load_scalar(in[4]);
	bool inplace = same_storage(o, in[0]) &&
	    o->offset == in[0]->offset;

	if (cx->dry) {
		f(cx, o->dtype, alpha, in[2], in[3], beta, o);
		return;
	}
	if (!inplace && beta != 0)
		gp_tensor_copy_into(o, in[0]);
	if (same_storage(o, in[2]) || same_storage(o, in[3])) {
		/* the output overlaps X or Y (a view of Z, overwritten in
		 * place): compute aside, a temporary no workspace()
		 * declares (which inputs share a storage is not in the
		 * layouts it reads) */
		gp_tensor_alloc(&t, o->dtype, o->ndim, o->shape);
		if (beta != 0)
			gp_tensor_copy_into(&t, o);
		f(cx, o->dtype, alpha, in[2], in[3], beta, &t);
		gp_tensor_copy_into(o, &t);
		gp_tensor_release(&t);
		return;
	}
	f(cx, o->dtype, alpha, in[2], in[3], beta, o);
}

/*
 * gemm with Y packed (input 5, float32: the gemm_pack rewrite's, of fixed
 * weights): the product through ops/conv-gemm.c's micro-kernel, which
 * reads X's rows where they lie and Y's slivers packed once, rather than
 * OpenBLAS packing Y each call (bench/onnx's MLP: 0.85-0.89 of the
 * time of its two 512-column gemms, two threads).  It takes alpha 1, beta
 * 0 or 1, X with contiguous rows, an output with contiguous rows that X
 * does not overlap, P one the micro-kernel can read where it lies
 * (gp_conv_gemm_packed_ok: a view can lie off its alignment, or step);
 * otherwise (false) the call runs through BLAS, on Y.
 * A dry run makes the same choice of layouts, with alpha and beta as the
 * rewrite found them (constants).
 */
static bool
gemm_packed(struct cx *cx, const struct gp_tensor *const *in,
    struct gp_tensor *o)
{
	struct mat a = mat_of(in[2]), c = mat_of(o);
	double alpha = cx->dry ? 1 : load_scalar(in[1]);
	double beta = cx->dry ? 1 : load_scalar(in[4]);
	bool inplace = same_storage(o, in[0]) && o->offset == in[0]->offset;
	enum CBLAS_TRANSPOSE ta, tc;
	blasint lda, ldc;

	if (alpha != 1 || (beta != 0 && beta != 1) || o->dtype !=
	    GP_FLOAT32 || !mat_layout(&a, sizeof(float), &ta, &lda) ||
	    ta != CblasNoTrans || !mat_layout(&c, sizeof(float), &tc, &ldc) ||
	    tc != CblasNoTrans || same_storage(o, in[2]) ||
	    !gp_conv_gemm_packed_ok(in[5]))
		return (false);
	if (cx->dry)
		return (true);
	if (!inplace && beta != 0)
		gp_tensor_copy_into(o, in[0]);
	gp_conv_gemm_mm_f32((const float *)(const void *)a.p, lda,
	    (const float *)(const void *)gp_tensor_data(in[5]),
	    (float *)(void *)c.p, ldc, a.rows, a.cols, c.cols, beta != 0);
	return (true);
}

static void
run_gemm(struct cx *cx, const struct gp_node *n,
    const struct gp_tensor *const *in, struct gp_tensor *o)
{
	const struct blas_priv *p = n->priv;

	if (p->packed && gemm_packed(cx, in, o))
		return;
	run_update(cx, in, o, update_gemm);
}

static void
run_gemv(struct cx *cx, const struct gp_node *n,
    const struct gp_tensor *const *in, struct gp_tensor *o)
{
	(void)n;
	run_update(cx, in, o, update_gemv);
}

static void
k_gemm(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	struct cx cx = {.dry = false};

	run_gemm(&cx, n, (const struct gp_tensor *const *)in, out[0]);
}

static void
k_gemv(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	struct cx cx = {.dry = false};

	run_gemv(&cx, n, (const struct gp_tensor *const *)in, out[0]);
}

static uint64_t
work_gemm(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	return (work_dry(g, n, in, run_gemm));
}

static uint64_t
work_gemv(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	return (work_dry(g, n, in, run_gemv));
}

static int
check_scalar(struct gp_err *err, const char *op, const char *arg,
    const struct gp_type *t)
{
	if (check_ndim(err, op, arg, t, 0) < 0)
		return (-1);
	if (t->dtype == GP_BOOL)
		return (gp_err_set(err, "%s: %s must be a number, got bool",
		    op, arg));
	return (0);
}

static int
prep_gemm(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *z = gp_graph_in_type(g, n, 0);
	const struct gp_type *x = gp_graph_in_type(g, n, 2);
	const struct gp_type *y = gp_graph_in_type(g, n, 3);
	int64_t xy[2];

	if (check_ndim(err, "gemm", "Z", z, 2) < 0 ||
	    check_scalar(err, "gemm", "alpha", gp_graph_in_type(g, n, 1)) < 0 ||
	    check_ndim(err, "gemm", "X", x, 2) < 0 ||
	    check_ndim(err, "gemm", "Y", y, 2) < 0 ||
	    check_scalar(err, "gemm", "beta", gp_graph_in_type(g, n, 4)) < 0 ||
	    check_float(err, "gemm", "Z", z, z->dtype) < 0 ||
	    check_float(err, "gemm", "X", x, z->dtype) < 0 ||
	    check_float(err, "gemm", "Y", y, z->dtype) < 0)
		return (-1);
	if (x->shape[1] != y->shape[0])
		return (err_shapes(err, "gemm: X and Y", x, y,
		    "are not aligned"));
	xy[0] = x->shape[0];
	xy[1] = y->shape[1];
	if (z->shape[0] != xy[0] || z->shape[1] != xy[1]) {
		struct gp_type t = *z;

		t.shape[0] = xy[0];
		t.shape[1] = xy[1];
		return (err_shapes(err, "gemm: Z and X.Y", z, &t,
		    "differ"));
	}
	if (check_blas_dims(err, "gemm", xy[0], xy[1], x->shape[1]) < 0)
		return (-1);
	if (n->n_in == 6) {
		const struct gp_type *pt = gp_graph_in_type(g, n, 5);
		int64_t len = gp_conv_gemm_pack_len(x->shape[1], xy[1]);

		if (z->dtype != GP_FLOAT32 || pt->dtype != GP_FLOAT32 ||
		    pt->ndim != 1 || pt->shape[0] != len) {
			struct gp_type want = {.dtype = GP_FLOAT32, .ndim = 1,
			    .shape = {len}};
			struct gp_buf b = {0}, w = {0};

			gp_type_format(&b, pt);
			gp_type_format(&w, &want);
			gp_err_set(err, "gemm: P (Y packed) is %s: expected %s "
			    "(ceil(N / 16) * 16 * K values), with Z, X and Y "
			    "float32 (Z is %s)", gp_buf_str(&b), gp_buf_str(&w),
			    gp_dtype_name(z->dtype));
			gp_buf_free(&b);
			gp_buf_free(&w);
			return (-1);
		}
	}
	priv_new(n, DOT_MM, xy[0], xy[1], x->shape[1])->packed = n->n_in ==
	    6 && gp_conv_gemm_ok();
	gp_ops_set_out(g, n, 0, z->dtype, 2, z->shape);
	n->kernel = k_gemm;
	n->impl = GP_IMPL_BLAS;
	return (0);
}

static double
flops_gemm(const struct gp_graph *g, const struct gp_node *n)
{
	const struct blas_priv *p = n->priv;
	double mn = (double)p->m * (double)p->n;

	/* the product, then alpha*, beta* and + on each output element */
	return (2.0 * mn * (double)p->k + 3.0 * mn);
}

static void
fmt_gemm(const struct gp_graph *g, const struct gp_node *n, struct gp_buf *b)
{
	gp_buf_puts(b, n->destroy[0] >= 0 ? "Gemm{inplace}" :
	    "Gemm{no_inplace}");
}

/*
 * gemv (its kernel is k_gemv above)
 */

static int
prep_gemv(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *y = gp_graph_in_type(g, n, 0);
	const struct gp_type *a = gp_graph_in_type(g, n, 2);
	const struct gp_type *x = gp_graph_in_type(g, n, 3);

	if (check_ndim(err, "gemv", "y", y, 1) < 0 ||
	    check_scalar(err, "gemv", "alpha", gp_graph_in_type(g, n, 1)) < 0 ||
	    check_ndim(err, "gemv", "A", a, 2) < 0 ||
	    check_ndim(err, "gemv", "x", x, 1) < 0 ||
	    check_scalar(err, "gemv", "beta", gp_graph_in_type(g, n, 4)) < 0 ||
	    check_float(err, "gemv", "y", y, y->dtype) < 0 ||
	    check_float(err, "gemv", "A", a, y->dtype) < 0 ||
	    check_float(err, "gemv", "x", x, y->dtype) < 0)
		return (-1);
	if (a->shape[1] != x->shape[0])
		return (err_shapes(err, "gemv: A and x", a, x,
		    "are not aligned"));
	if (a->shape[0] != y->shape[0])
		return (err_shapes(err, "gemv: A and y", a, y,
		    "differ in rows"));
	if (check_blas_dims(err, "gemv", a->shape[0], 1, a->shape[1]) < 0)
		return (-1);
	priv_new(n, DOT_MV, a->shape[0], 1, a->shape[1]);
	gp_ops_set_out(g, n, 0, y->dtype, 1, y->shape);
	n->kernel = k_gemv;
	n->impl = GP_IMPL_BLAS;
	return (0);
}

static double
flops_gemv(const struct gp_graph *g, const struct gp_node *n)
{
	const struct blas_priv *p = n->priv;

	return (2.0 * (double)p->m * (double)p->k + 3.0 * (double)p->m);
}

static void
fmt_gemv(const struct gp_graph *g, const struct gp_node *n, struct gp_buf *b)
{
	gp_buf_puts(b, n->destroy[0] >= 0 ? "Gemv{inplace}" :
	    "Gemv{no_inplace}");
}

/*
 * ger: A + alpha outer(x, y)  (inputs A, alpha, x, y)
 */

static void
run_ger(struct cx *cx, const struct gp_node *n,
    const struct gp_tensor *const *in, struct gp_tensor *o)
{
	struct gp_tensor t = {0};
	double alpha = cx->dry ? 1 : load_scalar(in[1]);
	bool inplace = same_storage(o, in[0]) &&
	    o->offset == in[0]->offset;

	(void)n;
	if (cx->dry) {
		ger_core(cx, o->dtype, alpha, vec_of(in[2]), vec_of(in[3]),
		    mat_of(o));
		return;
	}
	if (same_storage(o, in[2]) || same_storage(o, in[3])) {
		/* x or y a view of A, overwritten in place: as in
		 * run_update, an undeclared temporary */
		gp_tensor_alloc(&t, o->dtype, 2, o->shape);
		gp_tensor_copy_into(&t, in[0]);
		ger_core(cx, o->dtype, alpha, vec_of(in[2]), vec_of(in[3]),
		    mat_of(&t));
		gp_tensor_copy_into(o, &t);
		gp_tensor_release(&t);
		return;
	}
	if (!inplace)
		gp_tensor_copy_into(o, in[0]);
	ger_core(cx, o->dtype, alpha, vec_of(in[2]), vec_of(in[3]),
	    mat_of(o));
}

static void
k_ger(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	struct cx cx = {.dry = false};

	run_ger(&cx, n, (const struct gp_tensor *const *)in, out[0]);
}

static uint64_t
work_ger(const struct gp_graph *g, const struct gp_node *n,
    const struct gp_tensor *const *in)
{
	return (work_dry(g, n, in, run_ger));
}

static int
prep_ger(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_type *a = gp_graph_in_type(g, n, 0);
	const struct gp_type *x = gp_graph_in_type(g, n, 2);
	const struct gp_type *y = gp_graph_in_type(g, n, 3);

	if (check_ndim(err, "ger", "A", a, 2) < 0 ||
	    check_scalar(err, "ger", "alpha", gp_graph_in_type(g, n, 1)) < 0 ||
	    check_ndim(err, "ger", "x", x, 1) < 0 ||
	    check_ndim(err, "ger", "y", y, 1) < 0 ||
	    check_float(err, "ger", "A", a, a->dtype) < 0 ||
	    check_float(err, "ger", "x", x, a->dtype) < 0 ||
	    check_float(err, "ger", "y", y, a->dtype) < 0)
		return (-1);
	if (a->shape[0] != x->shape[0] || a->shape[1] != y->shape[0]) {
		struct gp_type t = *a;

		t.shape[0] = x->shape[0];
		t.shape[1] = y->shape[0];
		return (err_shapes(err, "ger: A and outer(x, y)", a, &t,
		    "differ"));
	}
	if (check_blas_dims(err, "ger", a->shape[0], a->shape[1], 1) < 0)
		return (-1);
	priv_new(n, DOT_MM, a->shape[0], a->shape[1], 1);
	gp_ops_set_out(g, n, 0, a->dtype, 2, a->shape);
	n->kernel = k_ger;
	n->impl = GP_IMPL_BLAS;
	return (0);
}

static double
flops_ger(const struct gp_graph *g, const struct gp_node *n)
{
	const struct blas_priv *p = n->priv;

	/* alpha*x, then one multiply and one add per element */
	return (2.0 * (double)p->m * (double)p->n + (double)p->m);
}

static void
fmt_ger(const struct gp_graph *g, const struct gp_node *n, struct gp_buf *b)
{
	gp_buf_puts(b, n->destroy[0] >= 0 ? "Ger{destructive}" :
	    "Ger{non-destructive}");
}

/*
 * The table.
 */

static const struct gp_op op_dot = {
	.name = "dot",
	.cls = "Dot",
	.doc = "dot(x, y): numpy's dot of 0-d, 1-d and 2-d operands (0-d: "
	    "elementwise product); dtype promoted; floats through BLAS, "
	    "integers and bools by a loop; never in place",
	.min_in = 2, .max_in = 2, .n_out = 1,
	.flags = GP_OPF_BLAS,
	.prepare = prep_dot,
	.workspace = work_dot,
	.flops = flops_dot,
	.format = fmt_dot,
	.free_priv = free,
};

static const struct gp_op op_dot22 = {
	.name = "dot22",
	.cls = "Dot22",
	.doc = "dot22(x, y): matrix (M, K) . matrix (K, N) -> (M, N); "
	    "float32 or float64, same dtype; never in place",
	.min_in = 2, .max_in = 2, .n_out = 1,
	.flags = GP_OPF_BLAS,
	.prepare = prep_dot22,
	.workspace = work_dot22,
	.flops = flops_dot,
	.format = fmt_dot22,
	.free_priv = free,
};

static const struct gp_op op_gemm = {
	.name = "gemm",
	.cls = "Gemm",
	.doc = "gemm(Z, alpha, X, Y, beta[, P]): alpha X.Y + beta Z, Z (M, "
	    "N), X (M, K), Y (K, N), alpha and beta 0-d; beta 0 ignores Z; "
	    "may overwrite Z (input 0); P, float32: Y packed in slivers of "
	    "16 columns (the gemm_pack rewrite's)",
	.min_in = 5, .max_in = 6, .n_out = 1,
	.flags = GP_OPF_BLAS | GP_OPF_INPLACE_OK,
	.prepare = prep_gemm,
	.workspace = work_gemm,
	.flops = flops_gemm,
	.format = fmt_gemm,
	.free_priv = free,
};

static const struct gp_op op_gemv = {
	.name = "gemv",
	.cls = "Gemv",
	.doc = "gemv(y, alpha, A, x, beta): alpha A.x + beta y, y (M), "
	    "A (M, N), x (N); beta 0 ignores y; may overwrite y (input 0)",
	.min_in = 5, .max_in = 5, .n_out = 1,
	.flags = GP_OPF_BLAS | GP_OPF_INPLACE_OK,
	.prepare = prep_gemv,
	.workspace = work_gemv,
	.flops = flops_gemv,
	.format = fmt_gemv,
	.free_priv = free,
};

static const struct gp_op op_ger = {
	.name = "ger",
	.cls = "Ger",
	.doc = "ger(A, alpha, x, y): A + alpha outer(x, y), A (M, N), x (M), "
	    "y (N); may overwrite A (input 0)",
	.min_in = 4, .max_in = 4, .n_out = 1,
	.flags = GP_OPF_BLAS | GP_OPF_INPLACE_OK,
	.prepare = prep_ger,
	.workspace = work_ger,
	.flops = flops_ger,
	.format = fmt_ger,
	.free_priv = free,
};

const struct gp_op *const gp_ops_blas[] = {
	&op_dot,
	&op_dot22,
	&op_gemm,
	&op_gemv,
	&op_ger,
	NULL,
};
