/*
 * onnx-summary.h: the summary `gptop --check model.onnx` prints of a model
 * read by onnx-read.c: producer, opsets, inputs and outputs with their
 * dtypes and shapes (symbolic dims by name), initializers, op types with
 * counts, and what gptop cannot run.
 */
#ifndef GPTOP_SRC_ONNX_SUMMARY_H
#define GPTOP_SRC_ONNX_SUMMARY_H

#include <stdio.h>

#include "load/onnx-read.h"

void	gp_onnx_summary_print(FILE *fp, const struct gp_onnx_model *m);

#endif
