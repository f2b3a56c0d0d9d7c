/*
 * ops/conv-pw.c: the pointwise convolution kernel (1x1, stride 1, no pads,
 * one group: MobileNet's expand and project convs, SqueezeNet's squeeze),
 * float32 and float64 from one definition instantiated by a macro.  In
 * float32 on an AVX2 CPU, conv.c sends here only the convs of few pixels
 * (the 7x7 and 14x14 layers): the others run faster through
 * ops/conv-gemm.c (mostly its direct path, the micro-kernel reading x
 * where it lies), and, with W packed once by the gemm_pack rewrite (param
 * packed), those of as many output channels as pixels go to
 * conv-gemm.c's transposed kernel (gp_conv_gemm_pwt_f32).
 *
 * Per image, Y (Cout x pixels) = W (Cout x Cin) . X (Cin x pixels): X in
 * NCHW is already that matrix, so the conv is one gemm on the input where
 * it lies (no im2col, no copy).  MobileNet's gemms are small (7x7 pixels,
 * or Cin 16 to 32): a gemm of OpenBLAS's threads costs its threads'
 * wake-up and leaves the bias and the clamp to another pass over Y.  So
 * the gemm is cut into blocks, one OpenMP parallel loop (ops/par.h) over
 * them, each block a single-threaded BLAS gemm (OpenBLAS's threads set to
 * 1 around the loop, then restored) that adds to the block filled with
 * the bias, followed by the clamp (act_min/act_max: a fused Relu or Clip)
 * on the block while it is in cache.  The blocks are column blocks of Y (pixels) of at most
 * PW_COLS columns, a multiple of the thread count of them; when Y has fewer
 * pixels than channels (the 7x7 and 14x14 layers), row blocks (output
 * channels), so that no thread packs all of the larger operand.  A gemm
 * too small for a parallel loop (GP_PAR_MIN) runs as one block, its BLAS
 * call on one thread too: OpenBLAS threads a gemv of 10,000 elements, and
 * its threads, asleep since the last BLAS call, took 20 us to wake for a
 * squeeze-and-excitation's 208 -> 52 (2.5 us on one; regnet_y_400mf 0.97
 * of the time, mobilenet_v3_small 0.96, efficientnet_b0 0.97).
 */
#include "config.h"

#include "ops/blas.h"
#include "ops/conv-kern.h"
#include "ops/ops.h"
#include "ops/par.h"

#include <cblas.h>
#include <math.h>

/* The widest column block: Cout x PW_COLS of Y stays in L2. */
#define PW_COLS	256

/* The blocks of a gemm (m x n x k, nimg images) over nt threads: *nb
 * blocks per image, each *bm rows by *bn columns (the last ones smaller). */
static void
pw_blocks(int64_t m, int64_t n, int64_t k, int64_t nimg, int nt,
    int64_t *bm, int64_t *bn, int64_t *nb)
{
	*bm = m;
	*bn = n;
	*nb = 1;
	if (nt <= 1 || nimg * m * n * k < GP_PAR_MIN * 16)
		return;
	if (n >= m || n >= 2 * PW_COLS) {
		/* column blocks: a multiple of nt per image, <= PW_COLS
		 * (rounded up to 16) */
		int64_t r = (n + (int64_t)nt * PW_COLS - 1) /
		    ((int64_t)nt * PW_COLS), cnt = r * nt;

		*bn = ((n + cnt - 1) / cnt + 15) / 16 * 16;
		*nb = (n + *bn - 1) / *bn;
	} else {
		/* row blocks, one per thread, rounded up to 8 rows */
		*bm = ((m + nt - 1) / nt + 7) / 8 * 8;
		*nb = (m + *bm - 1) / *bm;
	}
}

#define DEF_PW(SFX, T, GEMM, GEMV)                                            \
/* Block j of image i: rows [r0, r1), columns [c0, c1) of Y.  With a     \
 * bias the block is filled with it and the gemm adds to it (beta 1: so   \
 * OpenBLAS skips its pass that zeroes the block for beta 0). */           \
static void                                                                   \
pw_block_##SFX(const T *x, const T *wt, const T *b, T *y, int64_t n,          \
    int64_t k, int64_t r0, int64_t r1, int64_t c0, int64_t c1, T lo, T hi,    \
    bool clamp)                                                               \
{                                                                             \
	if (b != NULL)                                                        \
		for (int64_t r = r0; r < r1; r++) {                           \
			T bv = b[r], *restrict yr = y + r * n;                \
			GP_SIMD                                               \
			for (int64_t c = c0; c < c1; c++)                     \
				yr[c] = bv;                                   \
		}                                                             \
	if (c1 - c0 == 1)	/* one pixel (a squeeze-and-excitation's) */  \
		GEMV(CblasRowMajor, CblasNoTrans, (int)(r1 - r0), (int)k, 1,  \
		    wt + r0 * k, (int)k, x + c0, (int)n, b != NULL ? 1 : 0,   \
		    y + r0 * n + c0, (int)n);                                 \
	else                                                                  \
		GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans,               \
		    (int)(r1 - r0), (int)(c1 - c0), (int)k, 1, wt + r0 * k,   \
		    (int)k, x + c0, (int)n, b != NULL ? 1 : 0, y + r0 * n +   \
		    c0, (int)n);                                              \
	if (!clamp)                                                           \
		return;                                                       \
	for (int64_t r = r0; r < r1; r++) {                                   \
		T *restrict yr = y + r * n;                                   \
		GP_SIMD                                                       \
		for (int64_t c = c0; c < c1; c++) {                           \
			T v = yr[c];                                          \
			v = v < lo ? lo : v;                                  \
			yr[c] = v > hi ? hi : v;                              \
		}                                                             \
	}                                                                     \
}                                                                             \
void                                                                          \
gp_conv_pw_##SFX(const T *x, const T *wt, const T *b, T *y,                   \
    const struct gp_conv_geom *g)                                             \
{                                                                             \
	int64_t m = g->cout, k = g->cin, n = g->w->out[0] * g->w->out[1] *    \
	    g->w->out[2], bm, bn, nb, nimg = g->n;                            \
	int nt = gp_par_max_threads(), blas_nt = 0;                           \
	bool clamp = g->lo > -INFINITY || g->hi < INFINITY;                   \
	T lo = (T)g->lo, hi = (T)g->hi;                                       \
	pw_blocks(m, n, k, nimg, nt, &bm, &bn, &nb);                          \
	/* (one thread of ours: OpenBLAS threads as it will) */                \
	blas_nt = gp_blas_threads_set(nt > 1 ? 1 : 0);                        \
	if (nb == 1) {                                                        \
		for (int64_t i = 0; i < nimg; i++)                            \
			pw_block_##SFX(x + i * k * n, wt, b, y + i * m * n,   \
			    n, k, 0, m, 0, n, lo, hi, clamp);                 \
		(void)gp_blas_threads_set(blas_nt);                           \
		return;                                                       \
	}                                                                     \
	GP_PAR_FOR(GP_PAR_MIN)                                                \
	for (int64_t j = 0; j < nimg * nb; j++) {                             \
		int64_t i = j / nb, q = j % nb, r0 = 0, r1 = m, c0 = 0,       \
		    c1 = n;                                                   \
		if (bn < n) {                                                 \
			c0 = q * bn;                                          \
			c1 = c0 + bn < n ? c0 + bn : n;                       \
		} else {                                                      \
			r0 = q * bm;                                          \
			r1 = r0 + bm < m ? r0 + bm : m;                       \
		}                                                             \
		pw_block_##SFX(x + i * k * n, wt, b, y + i * m * n, n, k, r0, \
		    r1, c0, c1, lo, hi, clamp);                               \
	}                                                                     \
	(void)gp_blas_threads_set(blas_nt);                                   \
}

DEF_PW(f32, float, cblas_sgemm, cblas_sgemv)
DEF_PW(f64, double, cblas_dgemm, cblas_dgemv)
