/*
 * ops/window.h: the sliding-window geometry that convolutions and pools
 * share: their params in every ONNX attribute form (kernel_shape, strides,
 * dilations, pads, auto_pad, ceil_mode), the output size they give, and
 * the Op name that shows them.
 *
 * Geometry is kept for 3 spatial dimensions: an op over 1 or 2 runs as
 * one over 3 whose leading dimensions have size 1, kernel 1, stride 1 and
 * no pads, so one loop nest serves 1-D, 2-D and 3-D.
 */
#ifndef GPTOP_SRC_OPS_WINDOW_H
#define GPTOP_SRC_OPS_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"

#define GP_WIN_DIMS 3

enum gp_win_pad {
	GP_WIN_NOTSET,		/* pads as given (default 0) */
	GP_WIN_SAME_UPPER,	/* output ceil(in / stride); odd pad at the end */
	GP_WIN_SAME_LOWER,	/* same; odd pad at the start */
	GP_WIN_VALID,		/* no pads */
};

struct gp_win {
	int		nsp;	/* spatial dimensions of the op (1..3) */
	enum gp_win_pad	auto_pad;
	bool		ceil;	/* ceil_mode: partial windows at the end */
	/* padded to GP_WIN_DIMS, leading dimensions first */
	int64_t		k[GP_WIN_DIMS], s[GP_WIN_DIMS], d[GP_WIN_DIMS];
	int64_t		pb[GP_WIN_DIMS], pe[GP_WIN_DIMS];	/* pads */
	int64_t		in[GP_WIN_DIMS], out[GP_WIN_DIMS];
};

/* Read kernel_shape (required when kdef is NULL, else it must equal
 * kdef), strides, dilations, pads, auto_pad and, when ceil_ok, ceil_mode
 * from params into w for an op over nsp spatial dimensions.  op names the
 * op in messages. */
int	gp_win_parse(const json_t *params, const char *op, int nsp,
	    const int64_t *kdef, bool ceil_ok, struct gp_win *w,
	    struct gp_err *err);
/* The output size for spatial input size in (nsp values): sets w->in,
 * the pads (for auto_pad) and w->out.  An empty output (the dilated
 * kernel larger than the padded input) is an error naming the sizes. */
int	gp_win_output(struct gp_win *w, const char *op, const int64_t *in,
	    struct gp_err *err);
/* A param that is a bool, or the integer 0 or 1 (ONNX's int flags). */
int	gp_win_param_flag(const json_t *params, const char *key, bool def,
	    bool *out, struct gp_err *err);
/* An int list param of exactly n entries, each >= min; missing: def
 * (all n entries) and *given false. */
int	gp_win_param_ints(const json_t *params, const char *key, int n,
	    int64_t def, int64_t min, int64_t *out, bool *given,
	    struct gp_err *err);
/* "3x3, strides=2x2, pads=[1, 1, 1, 1]" and so on (only what differs from
 * the defaults), for Op names. */
void	gp_win_format(const struct gp_win *w, struct gp_buf *b);

#endif
