/*
 * ops/blas.h: what the BLAS family (ops/blas.c) exports besides its op
 * table: the count of operand copies its kernels made because BLAS could
 * not address an operand in place (broadcast or irregular strides, a dtype
 * to convert).  A transposed matrix or a strided vector is not copied: it
 * goes to BLAS as CblasTrans, a leading dimension or an increment.
 */
#ifndef GPTOP_SRC_OPS_BLAS_H
#define GPTOP_SRC_OPS_BLAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Copies to a contiguous temporary made by BLAS kernels since the start
 * of the process (all threads; relaxed atomic reads). */
uint64_t	gp_blas_copies(void);
/* Can the kernels hand a 1-d or 2-d operand with this shape and these
 * byte strides (items of isz bytes) to BLAS where it lies?  False: they
 * copy it to a contiguous temporary on every execution. */
bool		gp_blas_addressable(int ndim, const int64_t *shape,
		    const int64_t *strides, size_t isz);

#endif
