/*
 * onnx.c: `gptop --check model.onnx` (see onnx.h).
 */
#include "config.h"

#include "onnx.h"

#include <stdio.h>

#include "load/onnx-read.h"
#include "load/onnx-summary.h"

int
ui_onnx_check(const char *path, const struct gp_flags *flags)
{
	struct gp_onnx_opts o = {.limit_bytes = (uint64_t)flags->memory_limit};
	struct gp_err err;
	struct gp_onnx_model *m = gp_onnx_read(path, &o, &err);

	if (m == NULL) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		return (2);
	}
	gp_onnx_summary_print(stdout, m);
	gp_onnx_free(m);
	return (0);
}
