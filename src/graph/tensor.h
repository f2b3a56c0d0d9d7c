/*
 * tensor.h: n-dimensional arrays.  A tensor is a small value (dtype, shape,
 * byte strides, offset) over reference-counted storage from alloc.c; views
 * (transpose, dimshuffle, reshape of contiguous data, slicing) share the
 * storage and differ only in the header.  Strides are in bytes and may be
 * zero (broadcast) or negative.
 *
 * Also here: numpy broadcasting of shapes, and the strided n-d iterator that
 * every elementwise-style kernel runs on (dimensions coalesced first, the
 * innermost one handed to a 1-d loop, as numpy's ufunc machinery does).
 */
#ifndef GPTOP_SRC_TENSOR_H
#define GPTOP_SRC_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/alloc.h"
#include "base/dtype.h"
#include "base/util.h"

#define GP_MAX_DIMS 8

/* The fields the VM reads on every apply come first, in one cache line
 * with the leading dimensions. */
struct gp_tensor {
	struct gp_storage	*storage;	/* NULL: no data */
	size_t			 offset;	/* bytes into storage->data */
	enum gp_dtype		 dtype;
	int			 ndim;
	int64_t			 shape[GP_MAX_DIMS];
	int64_t			 strides[GP_MAX_DIMS];	/* bytes */
};

static inline char *
gp_tensor_data(const struct gp_tensor *t)
{
	return (t->storage->data + t->offset);
}

int64_t	gp_shape_numel(int ndim, const int64_t *shape);
/* numel * itemsize, or SIZE_MAX (and false) when it overflows: when the
 * non-zero dimensions times itemsize pass INT64_MAX (even if another
 * dimension is 0) or SIZE_MAX / 2. */
bool	gp_shape_nbytes(int ndim, const int64_t *shape, enum gp_dtype dt,
	    size_t *out);
void	gp_shape_format(struct gp_buf *b, int ndim, const int64_t *shape);
/* numpy broadcasting of two shapes into out (ndim in *ondim). */
int	gp_shape_broadcast(int na, const int64_t *a, int nb, const int64_t *b,
	    int *ondim, int64_t *out, struct gp_err *err);
/* C-contiguous byte strides of a shape. */
void	gp_shape_strides(int ndim, const int64_t *shape, size_t itemsize,
	    int64_t *strides);

static inline int64_t
gp_tensor_numel(const struct gp_tensor *t)
{
	return (gp_shape_numel(t->ndim, t->shape));
}

static inline size_t
gp_tensor_nbytes(const struct gp_tensor *t)
{
	return ((size_t)gp_tensor_numel(t) * gp_dtype_size(t->dtype));
}

bool	gp_tensor_is_contiguous(const struct gp_tensor *t);
/* A new C-contiguous tensor (contents unspecified, or zeroed). */
void	gp_tensor_alloc(struct gp_tensor *t, enum gp_dtype dt, int ndim,
	    const int64_t *shape);
void	gp_tensor_alloc_zero(struct gp_tensor *t, enum gp_dtype dt, int ndim,
	    const int64_t *shape);
/* dst becomes a view of src (same header, one more storage reference);
 * dst's previous storage, if any, is released. */
void	gp_tensor_view(struct gp_tensor *dst, const struct gp_tensor *src);
static inline void
gp_tensor_release(struct gp_tensor *t)
{
	if (t->storage != NULL) {
		gp_alloc_unref(t->storage);
		t->storage = NULL;
	}
}
/* Copy src's elements into dst of the same shape (any strides), converting
 * the dtype.  src may also broadcast into dst (numpy rules). */
void	gp_tensor_copy_into(struct gp_tensor *dst, const struct gp_tensor *src);
/* A new contiguous copy of src. */
void	gp_tensor_copy(struct gp_tensor *dst, const struct gp_tensor *src);
/* Element i (in C order) as a double. */
double	gp_tensor_get(const struct gp_tensor *t, int64_t i);

/* The strided iterator. */
#define GP_ITER_MAX_OPS 16

typedef void (*gp_inner_fn)(char **ptrs, const int64_t *steps, int64_t n,
    void *ctx);

struct gp_iter {
	int	 ndim, nop;
	int64_t	 shape[GP_MAX_DIMS];
	int64_t	 strides[GP_ITER_MAX_OPS][GP_MAX_DIMS];
	char	*base[GP_ITER_MAX_OPS];
};

/* Start an iteration over shape (the output's shape) with nop operands. */
void	gp_iter_init(struct gp_iter *it, int ndim, const int64_t *shape,
	    int nop);
/* Operand k is tensor t, broadcast to the iteration shape (right aligned;
 * its dims of size 1 get stride 0). */
void	gp_iter_add(struct gp_iter *it, int k, const struct gp_tensor *t);
/* Reorder the dimensions so that operand k's strides descend (stable;
 * numpy's K order): an operand laid out channels-last, a transposed view,
 * is then walked along its memory rather than across it.  Only for loops
 * whose result does not depend on the order (elementwise). */
void	gp_iter_order_by(struct gp_iter *it, int k);
/* The same over nd dims of shape with nop operands' strides st (the
 * Composite kernel's own iterator uses it too). */
void	gp_dims_order_by(int nd, int64_t *shape, int nop,
	    int64_t (*st)[GP_MAX_DIMS], int k);
/* Merge dimensions that are contiguous for every operand, then call fn
 * once per innermost row. */
void	gp_iter_run(struct gp_iter *it, gp_inner_fn fn, void *ctx);

#endif
