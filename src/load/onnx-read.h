/*
 * onnx-read.h: the ONNX reading layer.  Reads a model.onnx file (a
 * ModelProto, decoded by protobuf-c's code generated from ONNX's own
 * onnx.proto) and validates what a front-end needs to trust before it
 * builds anything: the file decodes, holds a graph, imports an opset gptop
 * knows, every node input names something defined before it, no name is
 * defined twice, every tensor's data agrees with its shape and fits under
 * the memory limit, external data stays in the model's folder.  It also
 * lists the graph's inputs (those that are not initializers) with their
 * symbolic dimensions, binds those from NAME=VALUE pairs, and copies a
 * tensor's values out of the model (raw, typed or external data).
 *
 * Nothing here maps ONNX ops onto gptop ops: that is the front-end's job.
 * Every error is one line naming the file (and the node or tensor where
 * there is one), ready to print; the command line exits with status 2.
 */
#ifndef GPTOP_SRC_ONNX_READ_H
#define GPTOP_SRC_ONNX_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/dtype.h"
#include "load/onnx.pb-c.h"
#include "base/util.h"

/* The newest opset of the default domain ("" or "ai.onnx") gptop reads:
 * the one Debian's ONNX 1.12 knows. */
#define GP_ONNX_OPSET_MAX 20
/* The most dimensions a tensor may have (gptop's own limit). */
#define GP_ONNX_MAX_DIMS 16

struct gp_onnx_opts {
	uint64_t	limit_bytes;	/* largest tensor; 0: the default */
};

/* One dimension of a graph input or output. */
struct gp_onnx_dim {
	int64_t		 value;		/* -1: not known from the file */
	const char	*param;		/* the symbolic name, or NULL */
};

/* A graph input (not an initializer) or output. */
struct gp_onnx_io {
	const char	*name;
	int		 elem_type;	/* ONNX TensorProto.DataType; 0 when
					 * not a tensor */
	const char	*kind;		/* "tensor", "sequence", "map",
					 * "optional", "sparse_tensor", "?" */
	int		 ndim;		/* -1: rank not given */
	struct gp_onnx_dim *dims;
	int64_t		*shape;		/* after gp_onnx_bind: the sizes */
};

struct gp_onnx_bigs;

struct gp_onnx_model {
	char			*path;
	char			*dir;		/* the model's folder */
	Onnx__ModelProto	*proto;
	const Onnx__GraphProto	*graph;
	int64_t			 opset;		/* the default domain's */
	uint64_t		 limit;		/* memory limit, bytes */
	int			 n_inputs, n_outputs;
	struct gp_onnx_io	*inputs;	/* initializers left out */
	struct gp_onnx_io	*outputs;
	int			 n_syms;	/* distinct symbolic dims of */
	const char		**syms;		/* the inputs, first seen first */
	uint64_t		 init_bytes;	/* all initializers' values */
	struct gp_onnx_bigs	*bigs;	/* the protobuf's large blocks,
					 * held as storages */
};

/* A NAME=VALUE binding of a symbolic dimension. */
struct gp_onnx_binding {
	const char	*name;
	int64_t		 value;
};

/* Read and validate path.  Returns the model or NULL with err set. */
struct gp_onnx_model *gp_onnx_read(const char *path,
		    const struct gp_onnx_opts *o, struct gp_err *err);
void		 gp_onnx_free(struct gp_onnx_model *m);

/* Whether path names an ONNX model (ends in ".onnx"). */
bool		 gp_onnx_is_model_path(const char *path);

/* Refuse what gptop cannot compute with yet: an input, output,
 * initializer or constant whose dtype is float16, bfloat16, complex or
 * string, or an input or output that is not a tensor. */
int		 gp_onnx_check_dtypes(const struct gp_onnx_model *m,
		    struct gp_err *err);

/* Parse "NAME=VALUE" (VALUE a positive integer); b->name points into
 * arg. */
int		 gp_onnx_binding_parse(const char *arg,
		    struct gp_onnx_binding *b, struct gp_err *err);
/* Give every input dimension its size: a fixed one from the file, a
 * symbolic one from the bindings.  Errors: a binding naming no symbolic
 * dim of the model, the unbound dims (all listed, with a suggestion), a
 * dimension with neither size nor name, an input over the memory
 * limit. */
int		 gp_onnx_bind(struct gp_onnx_model *m,
		    const struct gp_onnx_binding *b, int n, struct gp_err *err);

/* The ONNX dtype's name ("float32", "float16", "string", ...). */
const char	*gp_onnx_dtype_name(int elem_type);
/* The gptop dtype of an ONNX dtype; false when gptop has none. */
bool		 gp_onnx_dtype_to_gp(int elem_type, enum gp_dtype *out);
/* Bytes per element (0 for strings and unknown types). */
size_t		 gp_onnx_dtype_size(int elem_type);

/* The element count and byte count of a tensor (validated by the read). */
uint64_t	 gp_onnx_tensor_nbytes(const Onnx__TensorProto *t);
/* The storage that holds t's raw data, with one more reference, or NULL.
 * The reader decodes every bytes field of GP_ONNX_BIG_BYTES or more
 * straight into a gptop storage, so a front-end adopts an initializer's
 * values instead of copying them (the file's bytes are copied once). */
#define GP_ONNX_BIG_BYTES 65536
struct gp_storage *gp_onnx_tensor_storage(const struct gp_onnx_model *m,
		    const Onnx__TensorProto *t);

/* Copy the tensor's values into dst (gp_onnx_tensor_nbytes bytes), packed
 * in the host's order: from raw_data, the typed fields or the external
 * file.  Not for strings. */
int		 gp_onnx_tensor_read(const struct gp_onnx_model *m,
		    const Onnx__TensorProto *t, void *dst, struct gp_err *err);

#endif
