/*
 * ops/vmath.h: float32 transcendental loops written for AVX2 and FMA,
 * where libmvec's are slow: tanh (the MLP's activation), within 3 ulp of
 * the exact value, and exp (a softmax's), within 1.1 (test-elemwise
 * checks both against long double over a sweep and the edges); used by
 * the elementwise kernel (ops/elemwise.c).
 */
#ifndef GPTOP_SRC_OPS_VMATH_H
#define GPTOP_SRC_OPS_VMATH_H

#include <stddef.h>

/* out[i] = f(in[i]) for i < n; out may be in. */
typedef void (*gp_vmath_fn)(float *out, const float *in, size_t n);

/* float32 tanh on this CPU, or NULL (not x86-64, or no AVX2 and FMA). */
gp_vmath_fn	gp_vmath_tanh_f32(void);
/* float32 exp, the same way. */
gp_vmath_fn	gp_vmath_exp_f32(void);

#endif
