/*
 * onnx.c: `gptop --check model.onnx` and `gptop model.onnx` (see onnx.h).
 */
#include "config.h"

#include "onnx.h"

#include <stdio.h>

#include "load/onnx-read.h"
#include "load/onnx-summary.h"

int
ui_onnx_main(const char *path, const struct gp_flags *flags, bool check)
{
	struct gp_onnx_opts o = {.limit_bytes = (uint64_t)flags->memory_limit};
	struct gp_err err;
	struct gp_onnx_model *m = gp_onnx_read(path, &o, &err);
	int rc = 0;

	if (m == NULL) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		return (2);
	}
	if (check) {
		gp_onnx_summary_print(stdout, m);
	} else if (gp_onnx_check_dtypes(m, &err) < 0) {
		fprintf(stderr, "gptop: %s\n", err.msg);
		rc = 2;
	} else {
		fprintf(stderr, "gptop: %s: running ONNX models is not "
		    "supported yet: this gptop reads and checks them (gptop "
		    "--check %s; see doc/onnx.md)\n", path, path);
		rc = 2;
	}
	gp_onnx_free(m);
	return (rc);
}
