/*
 * ops/conv-kern.h: the conv kernels that do not go through im2col: the
 * depthwise conv (ops/conv-dw.c: one input channel per group, any channel
 * multiplier, kernel, stride, pads and dilation) as a direct loop over
 * output rows, and the pointwise conv (ops/conv-pw.c: 1x1, stride 1, no
 * pads, one group) as gemms on the NCHW input where it lies.  Both clamp
 * their output (a fused Relu or Clip) in the pass that writes it.  The
 * conv op (ops/conv.c) chooses them in its prepare and calls them from
 * its kernel.
 */
#ifndef GPTOP_SRC_OPS_CONV_KERN_H
#define GPTOP_SRC_OPS_CONV_KERN_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/window.h"

/* One conv's geometry, as conv.c's prepare computed it. */
struct gp_conv_geom {
	const struct gp_win *w;	/* spatial geometry, 3 dims (ops/window.h) */
	int64_t	n;		/* images */
	int64_t	cin, cout;	/* channels of X and of Y */
	double	lo, hi;		/* the output clamped to [lo, hi]
				 * (-inf, inf: no clamp) */
};

/* Depthwise: output channel co reads input channel co / (cout / cin)
 * alone, with the kernel volume of weights wt[co * kvol ...] and bias
 * b[co] (b may be NULL).  x, wt, b, y contiguous. */
void	gp_conv_dw_f32(const float *x, const float *wt, const float *b,
	    float *y, const struct gp_conv_geom *g);
void	gp_conv_dw_f64(const double *x, const double *wt, const double *b,
	    double *y, const struct gp_conv_geom *g);
/* The depthwise kernel's scratch per thread, in values (0: none): one
 * GP_SCRATCH_COL request of this times gp_par_max_threads() values, made
 * before its parallel loop. */
int64_t	gp_conv_dw_work(const struct gp_win *w);

/* Pointwise (1x1, stride 1, no pads, one group): y[n] = wt . x[n] + b,
 * wt (cout, cin), x[n] (cin, pixels), clamped. */
void	gp_conv_pw_f32(const float *x, const float *wt, const float *b,
	    float *y, const struct gp_conv_geom *g);
void	gp_conv_pw_f64(const double *x, const double *wt, const double *b,
	    double *y, const struct gp_conv_geom *g);

#endif
