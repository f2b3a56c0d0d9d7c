/*
 * conformance.h: `gptop --conformance DIR...`: runs ONNX backend test
 * cases (a folder with model.onnx and test_data_set_N/{input,output}_K.pb,
 * as Debian's libonnx-testdata installs them) through the ONNX front-end
 * and the VM, and compares every output with the expected one.
 */
#ifndef GPTOP_UI_CONFORMANCE_H
#define GPTOP_UI_CONFORMANCE_H

#include "base/flags.h"

/* Prints one line per case and a summary by op type.  Returns 0 when no
 * case failed, 1 when one did, 2 when a folder holds no case. */
int	ui_conformance_main(int n, char **dirs, const struct gp_flags *flags);

#endif
