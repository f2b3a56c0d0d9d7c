/*
 * ops/conv-wino.h: the float32 3x3 convolution of strides 1 and
 * dilations 1 as Winograd's F(2x2, 3x3) (ops/conv-wino.c): 2.25 times
 * fewer multiplies than the direct conv, for the convs of many output
 * pixels and channels (ResNet's and SqueezeNet's 3x3 layers).
 * ops/conv-gemm.c sends it the convs it accepts, on AVX2 and FMA.
 */
#ifndef GPTOP_SRC_OPS_CONV_WINO_H
#define GPTOP_SRC_OPS_CONV_WINO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops/window.h"

/* Does F(2x2, 3x3) take the conv of geometry win, cg input and m output
 * channels per group: 2-D, 3x3, strides and dilations 1, pads >= 0, and
 * enough channels and output tiles to be faster than the direct path;
 * fewer tiles (a 14x14 output) when the transformed weights are fixed
 * (computed once: gp_conv_wino_weights), not transformed every call. */
bool	gp_conv_wino_ok(const struct gp_win *win, int64_t cg, int64_t m,
	    bool fixed);

/* The bytes of scratch gp_conv_wino_f32 needs: the padded input, the
 * transformed weights (unless fixed), and each thread's blocks of
 * transformed input and of gemm output, plus alignment. */
size_t	gp_conv_wino_scratch(const struct gp_win *win, int64_t cg, int64_t m,
	    bool fixed);

/* The number of floats of one group's transformed weights: 16 m cg. */
int64_t	gp_conv_wino_weights_len(int64_t cg, int64_t m);

/* One group's weights w (m x cg x 3 x 3) transformed into u
 * (gp_conv_wino_weights_len floats: U[e][o][c] = (G w[o][c] G^T)[e], e the
 * 16 elements of the 4x4 result); false when w holds an infinity or a
 * NaN (u is then not to be used). */
bool	gp_conv_wino_weights(const float *w, int64_t cg, int64_t m, float *u);

/*
 * One image and one group, as gp_conv_gemm_f32 (ops/conv-gemm.h): y (m x
 * vol(win->out)) = conv(x, w) + b, clamped to [lo, hi] when act, over the
 * OpenMP threads, in scratch (gp_conv_wino_scratch() bytes, any
 * alignment).  u: w's transform (gp_conv_wino_weights), or NULL to
 * transform w in this call.  False, with y unwritten, when x or w holds
 * an infinity or a NaN: the caller then runs the direct conv, whose
 * result keeps them to the outputs whose windows hold them.
 */
bool	gp_conv_wino_f32(const float *x, const float *w, const float *u,
	    const float *b, float *y, const struct gp_win *win, int64_t cg,
	    int64_t m, bool act, float lo, float hi, void *scratch);

#endif
