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

#include "base/dtype.h"

/* Copies to a contiguous matrix (in work space) made by BLAS kernels since the start
 * of the process (all threads; relaxed atomic reads). */
uint64_t	gp_blas_copies(void);
/* Can the kernels hand a 1-d or 2-d operand with this shape and these
 * byte strides (items of isz bytes) to BLAS where it lies?  False: they
 * copy it to a contiguous temporary on every execution. */
bool		gp_blas_addressable(int ndim, const int64_t *shape,
		    const int64_t *strides, size_t isz);

/* A matrix where it lies: element [0, 0] and byte strides. */
struct gp_blas_mat {
	char	*p;
	int64_t	 rows, cols;
	int64_t	 rs, cs;
};

/* c (M x N) = alpha a (M x K) . b (K x N) + beta c, float32 or float64
 * (dt), through cblas_?gemm: operands BLAS can address (row-major, or
 * column-major as CblasTrans) are read where they lie, others copied (and
 * counted).  beta 0 ignores c's old contents.  Dimensions fit in an int. */
void		gp_blas_gemm(enum gp_dtype dt, double alpha,
		    const struct gp_blas_mat *a, const struct gp_blas_mat *b,
		    double beta, const struct gp_blas_mat *c);
/* The work space (ops/scratch.h) gp_blas_gemm takes for matrices with
 * these dimensions and strides (their p is not read): the copies of
 * operands BLAS cannot address. */
uint64_t	gp_blas_gemm_work(enum gp_dtype dt, const struct gp_blas_mat *a,
		    const struct gp_blas_mat *b, double beta,
		    const struct gp_blas_mat *c);

/* Set OpenBLAS's thread count to n (0 or less: leave it): the count
 * before.  For a kernel that makes one-thread BLAS calls from its own
 * OpenMP region: set 1 before the region, restore after it, on the
 * calling thread. */
int		gp_blas_threads_set(int n);

#endif
