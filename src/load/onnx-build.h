/*
 * onnx-build.h: the ONNX front-end.  Builds a gptop graph from a model read
 * by onnx-read.c: graph inputs become input variables (their values fed
 * from files or seeded random), initializers shared variables, Constant
 * nodes constants, and every node one or more gptop ops through the
 * mapping table (onnx-map.c).  A node whose inputs are all constants
 * (Shape once the dims are bound, and what computes from it) is computed
 * when the graph is built, so the profile shows only the real work.  The
 * graph has one function, "run", whose outputs are the model's outputs.
 */
#ifndef GPTOP_SRC_LOAD_ONNX_BUILD_H
#define GPTOP_SRC_LOAD_ONNX_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "graph/graph.h"
#include "load/onnx-read.h"
#include "graph/tensor.h"
#include "base/util.h"

/* The value of a graph input, given by the caller. */
struct gp_onnx_feed {
	const char		*name;
	const char		*from;	/* the file it came from, for messages */
	struct gp_tensor	 value;	/* borrowed: the graph takes a view */
};

struct gp_onnx_build_opts {
	const struct gp_onnx_binding	*dims;
	int				 n_dims;
	const struct gp_onnx_feed	*feeds;
	int				 n_feeds;
	bool				 allow_extern;
};

/* Why a build failed, for the conformance runner: "" when the model is
 * wrong (or gptop is), else what gptop does not support ("op Foo",
 * "dtype float16"). */
struct gp_onnx_why {
	char	unsupported[128];
};

/* Bind the dims (from o->dims, then from the feeds' shapes), check the
 * feeds against the model and build the graph.  why may be NULL. */
struct gp_graph	*gp_onnx_build(struct gp_onnx_model *m,
		    const struct gp_onnx_build_opts *o, struct gp_onnx_why *why,
		    struct gp_err *err);

/* What a session needs: read path, bind dims from `dims` ("N=V:N=V",
 * the flag onnx__dims), read the inputs named in `inputs`
 * ("NAME=FILE:NAME=FILE", the flag onnx__inputs; .npy or TensorProto
 * .pb) and build. */
struct gp_onnx_load_opts {
	uint64_t	 limit_bytes;
	bool		 allow_extern;
	const char	*dims;
	const char	*inputs;
};
struct gp_graph	*gp_onnx_load(const char *path,
		    const struct gp_onnx_load_opts *o, struct gp_err *err);

/* Read a tensor from a .npy file or an ONNX TensorProto (.pb, the format
 * of the backend tests' input_K.pb).  Returns -1 with err naming path. */
int		 gp_onnx_tensor_file(const char *path, uint64_t limit,
		    struct gp_tensor *out, struct gp_err *err);

/* The seeded random value an input gets when no file gives one:
 * floats uniform in [-1, 1), integers uniform in [0, 10), bools fair
 * coins; input i of the model uses seed i + 1. */
void		 gp_onnx_random_input(struct gp_tensor *t, enum gp_dtype dt,
		    int ndim, const int64_t *shape, uint64_t seed);

#endif
