/*
 * npy.h: numpy's .npy files, read and written.  Versions 1.0, 2.0 and 3.0;
 * every gp dtype in little-endian ('<f8', '<i4') or byte-order-free ('|b1',
 * '|u1') form; C or Fortran order (Fortran data is converted to C order on
 * reading).  The header, a Python dict literal, is parsed strictly.
 *
 * Errors name the file and the problem ("x.npy: big-endian descr '>f8' is
 * not supported ..."), one line, no position.  Writing goes to a temporary
 * file in the same folder, fsync()ed and renamed over the target, so a
 * reader never sees half a file.
 */
#ifndef GPTOP_SRC_NPY_H
#define GPTOP_SRC_NPY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/dtype.h"
#include "graph/tensor.h"
#include "base/util.h"

/* What a .npy header says. */
struct gp_npy_info {
	int		 major, minor;	/* format version */
	enum gp_dtype	 dtype;
	int		 ndim;
	int64_t		 shape[GP_MAX_DIMS];
	bool		 fortran_order;
	uint64_t	 data_offset;	/* where the data starts */
	uint64_t	 nbytes;	/* the data's size */
};

/* The byte count of a shape, false when it overflows: numpy's rule, which
 * also rejects shapes like (0, 2**62, 2**62) whose non-zero dimensions
 * overflow. */
bool	gp_npy_nbytes(int ndim, const int64_t *shape, enum gp_dtype dt,
	    uint64_t *out);

/* Read and check the header only (the file's size must match it). */
int	gp_npy_read_info(const char *path, struct gp_npy_info *info,
	    struct gp_err *err);
/* Read a whole file into *out, a new C-contiguous tensor the caller
 * releases; data larger than limit bytes is refused before it is read
 * (0: gp_graph_default_limit(), graph.h).  On error *out is left untouched. */
int	gp_npy_read_limit(const char *path, uint64_t limit,
	    struct gp_tensor *out, struct gp_err *err);
/* gp_npy_read_limit with the default limit. */
int	gp_npy_read(const char *path, struct gp_tensor *out,
	    struct gp_err *err);
/* Write t (any strides) as a version 1.0 file in C order, atomically:
 * to a temporary file beside path, fsync()ed, then renamed. */
int	gp_npy_write(const char *path, const struct gp_tensor *t,
	    struct gp_err *err);

#endif
