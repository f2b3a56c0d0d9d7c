/*
 * ort.h: ONNX Runtime's JSON profile read as a capture (ort.c), so that
 * `gptop --diff ort_profile.json capture.json` and the TUI's Diff view
 * compare ONNX Runtime with gptop on the same model, op by op.
 *
 * ONNX Runtime's profiler (session option enable_profiling) writes a JSON
 * array of Chrome-trace events.  Its node events (cat "Node", a name
 * ending in "_kernel_time") become the applies of one function "run":
 * one apply per node name, in the order of their first event, named by
 * the ONNX node ("fused NAME", a node ONNX Runtime fused into NAME, is
 * named NAME), its Op and opname ONNX Runtime's op_name, its Class the
 * family gptop's ONNX front-end gives that op type (onnx-map.c; a
 * "FusedX" op is X's family), its inputs and outputs the events' type
 * shapes, one execution per event.  The function's calls are the runs
 * (events "model_run").  doc/capture-format.md says what is read.
 *
 * The file is told apart by content: a JSON document that is an array
 * (captures and graphs are objects).  Anything else in such a file is an
 * error naming the file, line:column and event.
 */
#ifndef GPTOP_SRC_CAPTURE_ORT_H
#define GPTOP_SRC_CAPTURE_ORT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"
#include "capture/capture.h"
#include "prof/profile.h"

/* Does text look like an ONNX Runtime profile: is its first non-blank
 * character '[' (a JSON array)? */
bool	gp_ort_looks(const char *text, size_t len);

/* Was p read from an ONNX Runtime profile (gp_ort_load_buf)? */
bool	gp_ort_is(const struct gp_profile *p);

/* Read an ONNX Runtime profile from text (name: the file, for messages).
 * Returns a new profile, ci (when not NULL) filled as far as the profile
 * tells; NULL with err set: syntax or a truncated file (FILE:LINE:COL),
 * an array that is not an ONNX Runtime profile, a profile without node
 * events, an ill-typed field of a node event (FILE:LINE:COL: [i].FIELD). */
struct gp_profile *gp_ort_load_buf(const char *text, size_t len,
		    const char *name, struct gp_capture_info *ci,
		    struct gp_err *err);

#endif
