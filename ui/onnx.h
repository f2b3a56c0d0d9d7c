/*
 * onnx.h: `gptop --check model.onnx`: read, validate and summarize an ONNX
 * model (running one goes through the session like a graph.json: the
 * ONNX front-end, src/onnx-build.c, builds its graph).
 */
#ifndef GPTOP_UI_ONNX_H
#define GPTOP_UI_ONNX_H

#include <stdbool.h>

#include "base/flags.h"

/* The exit status: 0 for a valid model, 2 otherwise. */
int	ui_onnx_check(const char *path, const struct gp_flags *flags);

#endif
