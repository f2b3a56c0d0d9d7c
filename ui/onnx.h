/*
 * onnx.h: what the command line does with a model.onnx: --check reads,
 * validates and summarizes it; running it is not supported yet (the ONNX
 * front-end that builds a gptop graph is the next step), which is said
 * clearly instead of misreading the file as JSON.
 */
#ifndef GPTOP_UI_ONNX_H
#define GPTOP_UI_ONNX_H

#include <stdbool.h>

#include "base/flags.h"

/* The exit status: 0 for a valid model with check, 2 otherwise. */
int	ui_onnx_main(const char *path, const struct gp_flags *flags,
	    bool check);

#endif
