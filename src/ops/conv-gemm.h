/*
 * ops/conv-gemm.h: the float32 convolution as a blocked gemm whose B
 * operand is packed straight from the input (implicit im2col), with the
 * bias and a clamp applied while the output tile is in registers
 * (ops/conv-gemm.c); with strides 1 the input is read where it lies
 * (zero-padded once; strides 2 with a large kernel: split into even and
 * odd columns) rather than packed.  conv.c uses it for the float32
 * convs that go through a gemm (not depthwise; pointwise where the direct
 * path takes them) when the CPU has AVX2 and FMA; ops/blas.c's gemm for
 * weights packed once (gp_conv_gemm_mm_f32).
 */
#ifndef GPTOP_SRC_OPS_CONV_GEMM_H
#define GPTOP_SRC_OPS_CONV_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/window.h"

/* Can this machine run gp_conv_gemm_f32 (x86-64 with AVX2 and FMA)? */
bool	gp_conv_gemm_ok(void);

/*
 * One image and one group: y (m x vol(win->out)) = w (m x cg * kvol) .
 * im2col(x) + b, clamped to [lo, hi] when act.  x holds the group's cg
 * input channels (planes of vol(win->in)), w its m filters row-major, b
 * its m biases or NULL.  The work runs over the OpenMP threads
 * (ops/par.h); their packing buffers are one request of
 * gp_conv_gemm_scratch() bytes of the calling thread's scratch slot
 * GP_SCRATCH_COL.
 */
void	gp_conv_gemm_f32(const float *x, const float *w, const float *b,
	    float *y, const struct gp_win *win, int64_t cg, int64_t m,
	    bool act, float lo, float hi);
/* The same with its buffers in work (gp_conv_gemm_scratch() bytes, any
 * alignment), asking no scratch: for a caller that runs groups on the
 * threads, each with its own part of one request made before its
 * parallel region (ops/scratch.h); the gemm's own regions then run on
 * the calling thread alone. */
void	gp_conv_gemm_f32_in(const float *x, const float *w, const float *b,
	    float *y, const struct gp_win *win, int64_t cg, int64_t m,
	    bool act, float lo, float hi, void *work);

/*
 * One thread: c (m x nn, rows ldc apart) = a (m x k, rows lda apart) . b,
 * b packed as ceil(nn / 16) slivers of 16 columns, sliver j at b + j * k
 * * 16 holding k rows of 16 values side by side (64-byte aligned); the
 * columns of the last sliver past nn are read, not written.  The
 * micro-kernel of gp_conv_gemm_f32, for the gemms of ops/conv-wino.c.
 */
void	gp_conv_gemm_packed_f32(const float *a, int64_t lda, const float *b,
	    float *c, int64_t ldc, int64_t m, int64_t k, int64_t nn);

/* Does an m x n x k gemm of fixed B gain from being packed once and run
 * by gp_conv_gemm_mm_f32 rather than by OpenBLAS (the gemm_pack
 * rewrite's test)? */
bool	gp_conv_gemm_mm_pays(int64_t m, int64_t n, int64_t k);

/* The floats of B (k x n) packed for gp_conv_gemm_mm_f32: ceil(n / 16)
 * slivers of k rows of 16 values. */
int64_t	gp_conv_gemm_pack_len(int64_t k, int64_t n);

struct gp_tensor;
/* Can the micro-kernel read packed operand p where it lies (the gemm's
 * or the packed conv's P): contiguous and on 32 bytes, its aligned
 * loads?  A dry run's tensors have no storage: their offset says
 * (storage starts on GP_ALIGN).  Else the op runs unpacked. */
bool	gp_conv_gemm_packed_ok(const struct gp_tensor *p);

/* B (k x n, element (r, c) at b[r * rs + c * cs]) packed into p
 * (gp_conv_gemm_pack_len floats): sliver j holds columns 16 j .. 16 j +
 * 15, row r at p + (j * k + r) * 16, the columns past n zeros.  Any
 * machine. */
void	gp_conv_gemm_pack(const float *b, int64_t rs, int64_t cs, int64_t k,
	    int64_t n, float *p);

/*
 * c (m x n, rows ldc apart) = a (m x k, rows lda apart, each row's values
 * contiguous) . B, or (acc) c += a . B, B packed by gp_conv_gemm_pack:
 * the micro-kernel of gp_conv_gemm_f32 with a's rows read where they lie,
 * the slivers shared by the OpenMP threads (ops/par.h).  The gemm op's
 * path for fixed weights packed once (ops/blas.c, the gemm_pack
 * rewrite).  Only where gp_conv_gemm_ok().
 */
void	gp_conv_gemm_mm_f32(const float *a, int64_t lda, const float *p,
	    float *c, int64_t ldc, int64_t m, int64_t k, int64_t n, bool acc);

/* Does gp_conv_gemm_f32 take the pointwise conv of geometry win, cg
 * input and m output channels per group (not a conv of few output
 * pixels: its direct path, the input read where it lies, or packed
 * chunks of columns)?  conv.c sends a pointwise conv to gp_conv_gemm_f32
 * only then (otherwise to ops/conv-pw.c, faster on few pixels). */
bool	gp_conv_gemm_pointwise(const struct gp_win *win, int64_t cg,
	    int64_t m);

/* The bytes of scratch (slot GP_SCRATCH_COL) gp_conv_gemm_f32 asks for
 * the conv of geometry win, cg input and m output channels per group:
 * every thread's packed chunk of columns, or (fewer than 256 pixels) the
 * whole packed matrix, or (the direct path: strides 1) a table of k
 * offsets and the zero-padded copy of the group's input (none for a
 * pointwise conv), plus alignment. */
size_t	gp_conv_gemm_scratch(const struct gp_win *win, int64_t cg,
	    int64_t m);

/*
 * A pointwise conv of one image and few pixels, transposed: y (m planes
 * of n pixels) = W . x (k planes of n) + b, clamped to [lo, hi] when act,
 * as y^T = x^T . W^T with W^T (k x m) packed by gp_conv_gemm_pack at p:
 * x copied transposed into the work space (gp_conv_gemm_pwt_scratch()
 * bytes of the calling thread's scratch slot GP_SCRATCH_COL), the threads
 * taking slivers of 16 output channels.  Only where gp_conv_gemm_ok().
 */
int64_t	gp_conv_gemm_pwt_scratch(int64_t k, int64_t n);
/* Does a pointwise conv (win, k input and m output channels) run faster
 * so, W packed once (the gemm_pack rewrite's test)? */
bool	gp_conv_gemm_pwt_pays(const struct gp_win *win, int64_t k,
	    int64_t m);
void	gp_conv_gemm_pwt_f32(const float *x, const float *p, const float *b,
	    float *y, int64_t k, int64_t m, int64_t n, bool act, float lo,
	    float hi);

#endif
