/*
 * ops/blas.h: what the BLAS family (ops/blas.c) exports besides its op
 * table: the count of operand copies its kernels made because BLAS could
 * not address an operand in place (broadcast or irregular strides, a dtype
 * to convert).  A transposed matrix or a strided vector is not copied: it
 * goes to BLAS as CblasTrans, a leading dimension or an increment.
 */
#ifndef GPTOP_SRC_OPS_BLAS_H
#define GPTOP_SRC_OPS_BLAS_H

#include <stdint.h>

/* Copies to a contiguous temporary made by BLAS kernels since the start
 * of the process (all threads; relaxed atomic reads). */
uint64_t	gp_blas_copies(void);

#endif
