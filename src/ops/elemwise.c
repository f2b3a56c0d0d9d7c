/*
 * ops/elemwise.c: the elementwise family (add, exp, gt, switch, cast, ...):
 * numpy broadcasting and promotion, one buffered kernel for every op, and
 * the scalar op descriptions fusion and the JIT build on (see elemwise.h).
 *
 * Each op's scalar operation is written once per dtype kind (bool, signed,
 * unsigned, float) as the body of a static inline helper gp_ew_<op>_<sfx>;
 * X-macros instantiate the helpers for every dtype the op supports, and a
 * typed loop over contiguous arrays for each.  The same helper text,
 * stringified, is gp_elemwise_c_prelude, so generated code computes exactly
 * what the built-in kernels compute (but for the vector loops below).
 *
 * A kernel works like a numpy ufunc.  When every input is contiguous, of
 * the output's size and already of the compute dtype, it is one call of the
 * typed loop (no iterator, no allocation: this is the per-apply cost over
 * small tensors).  Otherwise gp_iter walks the broadcast, and each innermost
 * row is processed in blocks of EW_BLOCK elements: an operand of the compute
 * dtype with unit stride is read in place, any other is converted into a
 * stack block by gp_dtype_convert (a stride-0 operand once per row), and an
 * output with a non-unit stride is written back from a block.  Outputs may
 * alias an input element for element (in place): every block is read before
 * its elements are written.
 *
 * On x86_64 with glibc's libmvec (HAVE_LIBMVEC), the transcendental float
 * loops call its AVX2 variants when the CPU has AVX2: 4 ulp at most instead
 * of libm's 1, so their results may differ from the scalar helpers' in the
 * last bits.  float32 tanh and exp take ops/vmath.c's loops (AVX2 and FMA,
 * within 3 and 1.1 ulp) on any x86-64 CPU that has them.
 */
#include "config.h"

#include "ops/elemwise.h"
#include "ops/par.h"
#include "ops/vmath.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(HAVE_LIBMVEC) && defined(__x86_64__) && defined(__GNUC__) && \
    !defined(__clang__)
#define EW_MVEC 1
#include <immintrin.h>
#endif

#define EW_STR(...)	#__VA_ARGS__
#define EW_XSTR(...)	EW_STR(__VA_ARGS__)
#define EW_CAT_(a, b)	a##b
#define EW_CAT(a, b)	EW_CAT_(a, b)

/*
 * The dtypes: X(op, body, sfx, C type, kind, M) where M(fn) names the libm
 * function of that float type (expf for float).  Type sets are the dtypes
 * an op is instantiated for.
 */
#define EW_MF(fn)	fn##f
#define EW_MD(fn)	fn
#define EW_MI(fn)	fn

#define EW_T_BOOL(X, op, bd)	X(op, bd, b, _Bool, BOOL, EW_MI)
#define EW_T_SINT(X, op, bd)						\
	X(op, bd, i8, int8_t, SINT, EW_MI)				\
	X(op, bd, i16, int16_t, SINT, EW_MI)				\
	X(op, bd, i32, int32_t, SINT, EW_MI)				\
	X(op, bd, i64, int64_t, SINT, EW_MI)
#define EW_T_UINT(X, op, bd)						\
	X(op, bd, u8, uint8_t, UINT, EW_MI)				\
	X(op, bd, u16, uint16_t, UINT, EW_MI)				\
	X(op, bd, u32, uint32_t, UINT, EW_MI)				\
	X(op, bd, u64, uint64_t, UINT, EW_MI)
#define EW_T_FLT(X, op, bd)						\
	X(op, bd, f32, float, FLT, EW_MF)				\
	X(op, bd, f64, double, FLT, EW_MD)

#define EW_SET_ALL(X, op, bd)						\
	EW_T_BOOL(X, op, bd) EW_T_SINT(X, op, bd) EW_T_UINT(X, op, bd)	\
	EW_T_FLT(X, op, bd)
#define EW_SET_NUM(X, op, bd)						\
	EW_T_SINT(X, op, bd) EW_T_UINT(X, op, bd) EW_T_FLT(X, op, bd)
#define EW_SET_LOGIC(X, op, bd)						\
	EW_T_BOOL(X, op, bd) EW_T_SINT(X, op, bd) EW_T_UINT(X, op, bd)
#define EW_SET_FLT(X, op, bd)	EW_T_FLT(X, op, bd)
#define EW_SET_INT(X, op, bd)	EW_T_SINT(X, op, bd) EW_T_UINT(X, op, bd)

#define EW_KINDS_ALL	GP_SCALAR_KINDS_ALL
#define EW_KINDS_NUM	(GP_SCALAR_KIND(GP_KIND_INT) |			\
	GP_SCALAR_KIND(GP_KIND_UINT) | GP_SCALAR_KIND(GP_KIND_FLOAT))
#define EW_KINDS_LOGIC	(GP_SCALAR_KIND(GP_KIND_BOOL) |			\
	GP_SCALAR_KIND(GP_KIND_INT) | GP_SCALAR_KIND(GP_KIND_UINT))
#define EW_KINDS_FLT	GP_SCALAR_KIND(GP_KIND_FLOAT)
#define EW_KINDS_INT	(GP_SCALAR_KIND(GP_KIND_INT) |			\
	GP_SCALAR_KIND(GP_KIND_UINT))

/* _Generic selection of helper f for the type of x, per type set. */
#define EW_GEN_INTS(f)							\
	int8_t: f##_i8, int16_t: f##_i16, int32_t: f##_i32,		\
	int64_t: f##_i64, uint8_t: f##_u8, uint16_t: f##_u16,		\
	uint32_t: f##_u32, uint64_t: f##_u64
#define EW_GEN_ALL(f, x)						\
	_Generic((x), _Bool: f##_b, EW_GEN_INTS(f), float: f##_f32,	\
	    double: f##_f64)
#define EW_GEN_NUM(f, x)						\
	_Generic((x), EW_GEN_INTS(f), float: f##_f32, double: f##_f64)
#define EW_GEN_LOGIC(f, x)	_Generic((x), _Bool: f##_b, EW_GEN_INTS(f))
#define EW_GEN_FLT(f, x)	_Generic((x), float: f##_f32, double: f##_f64)
#define EW_GEN_INT(f, x)	_Generic((x), EW_GEN_INTS(f))

/*
 * Helper bodies: EW_B_<op>_<kind>(T, M), or EW_B_<op>(T, M) for ops with
 * one body for every kind.  The operands are a, b, c (of type T, but
 * switch's a is _Bool).  Integer arithmetic wraps (it runs in uint64_t:
 * signed overflow is undefined in C), as numpy's does.
 */
#define EW_B_add_BOOL(T, M)	return (a || b);
#define EW_B_add_SINT(T, M)	return ((T)((uint64_t)a + (uint64_t)b));
#define EW_B_add_UINT		EW_B_add_SINT
#define EW_B_add_FLT(T, M)	return (a + b);

#define EW_B_sub_SINT(T, M)	return ((T)((uint64_t)a - (uint64_t)b));
#define EW_B_sub_UINT		EW_B_sub_SINT
#define EW_B_sub_FLT(T, M)	return (a - b);

#define EW_B_mul_BOOL(T, M)	return (a && b);
#define EW_B_mul_SINT(T, M)	return ((T)((uint64_t)a * (uint64_t)b));
#define EW_B_mul_UINT		EW_B_mul_SINT
#define EW_B_mul_FLT(T, M)	return (a * b);

#define EW_B_true_div_FLT(T, M)	return (a / b);

/* Floor division and Python's modulo (the sign of the divisor); an integer
 * divisor of 0 gives 0, and x // -1 wraps instead of trapping. */
#define EW_B_int_div_SINT(T, M)						\
	if (b == 0)							\
		return (0);						\
	if (b == -1)							\
		return ((T)(0 - (uint64_t)a));				\
	return ((T)(a / b - (a % b != 0 && (a < 0) != (b < 0))));
#define EW_B_int_div_UINT(T, M)	return ((T)(b == 0 ? 0 : a / b));
#define EW_B_int_div_FLT(T, M)						\
	T m;								\
	return (M(gp_ew_fdivmod)(a, b, &m));

#define EW_B_mod_SINT(T, M)						\
	T r;								\
	if (b == 0 || b == -1)						\
		return (0);						\
	r = (T)(a % b);							\
	return ((T)(r != 0 && (r < 0) != (b < 0) ? r + b : r));
#define EW_B_mod_UINT(T, M)	return ((T)(b == 0 ? 0 : a % b));
#define EW_B_mod_FLT(T, M)						\
	T m;								\
	(void)M(gp_ew_fdivmod)(a, b, &m);				\
	return (m);

/* C's fmod: the sign of the dividend (ONNX's Mod with fmod=1); an integer
 * divisor of 0 gives 0, as mod's. */
#define EW_B_fmod_SINT(T, M)						\
	return ((T)(b == 0 || b == -1 ? 0 : a % b));
#define EW_B_fmod_UINT(T, M)	return ((T)(b == 0 ? 0 : a % b));
#define EW_B_fmod_FLT(T, M)	return (M(fmod)(a, b));

/* Shifts by b bits (numpy's left_shift and right_shift): the bits shifted
 * out are lost; a shift by a negative count or by the width or more gives
 * 0 (-1 for a negative signed right shift); a signed right shift is
 * arithmetic. */
#define EW_B_lshift_SINT(T, M)						\
	return ((T)(b < 0 || (uint64_t)b >= 8 * sizeof(T) ? 0 :		\
	    (uint64_t)a << b));
#define EW_B_lshift_UINT(T, M)						\
	return ((T)(b >= 8 * sizeof(T) ? 0 : (uint64_t)a << b));
#define EW_B_rshift_SINT(T, M)						\
	if (b < 0 || (uint64_t)b >= 8 * sizeof(T))			\
		return ((T)(a < 0 ? -1 : 0));				\
	return ((T)(a < 0 ? ~(~(int64_t)a >> b) : (int64_t)a >> b));
#define EW_B_rshift_UINT(T, M)						\
	return ((T)(b >= 8 * sizeof(T) ? 0 : a >> b));

/* Integer powers wrap; a negative exponent gives the truncated exact
 * result (0, but 1 and -1 for bases 1 and -1). */
#define EW_B_pow_SINT(T, M)						\
	if (b < 0)							\
		return ((T)(a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0)); \
	return ((T)gp_ew_ipow((uint64_t)a, (uint64_t)b));
#define EW_B_pow_UINT(T, M)	return ((T)gp_ew_ipow(a, b));
#define EW_B_pow_FLT(T, M)	return (M(pow)(a, b));

#define EW_B_neg_SINT(T, M)	return ((T)(0 - (uint64_t)a));
#define EW_B_neg_UINT		EW_B_neg_SINT
#define EW_B_neg_FLT(T, M)	return (-a);

#define EW_B_abs_BOOL(T, M)	return (a);
#define EW_B_abs_SINT(T, M)						\
	return ((T)(a < 0 ? 0 - (uint64_t)a : (uint64_t)a));
#define EW_B_abs_UINT(T, M)	return (a);
#define EW_B_abs_FLT(T, M)	return (M(fabs)(a));

#define EW_B_sqr_BOOL(T, M)	return (a);
#define EW_B_sqr_SINT(T, M)	return ((T)((uint64_t)a * (uint64_t)a));
#define EW_B_sqr_UINT		EW_B_sqr_SINT
#define EW_B_sqr_FLT(T, M)	return (a * a);

#define EW_B_sqrt_FLT(T, M)	return (M(sqrt)(a));
#define EW_B_exp_FLT(T, M)	return (M(exp)(a));
#define EW_B_log_FLT(T, M)	return (M(log)(a));
#define EW_B_log1p_FLT(T, M)	return (M(log1p)(a));
#define EW_B_expm1_FLT(T, M)	return (M(expm1)(a));
/* Stable at both ends: exp overflows to inf, never to NaN. */
#define EW_B_sigmoid_FLT(T, M)	return (1 / (1 + M(exp)(-a)));
#define EW_B_softplus_FLT(T, M)						\
	return (a > 0 ? a + M(log1p)(M(exp)(-a)) : M(log1p)(M(exp)(a)));
/* From expm1, which keeps its relative precision near 0: with e =
 * expm1(-2|x|) in [-1, 0], tanh |x| = -e / (2 + e), and the sign copied
 * back (NaN stays NaN, +-inf gives +-1, -0 gives -0); within a few ulp of
 * libm's tanh (test-elemwise), and in vector loops (libmvec's expm1:
 * the built-in loop below and the JIT's fused loops) 2-3x faster than
 * libmvec's tanh, whose cost depends on the range (3.3-10 ns per float64
 * against 2.2 on this project's machine; bench/README.md, "fusion"). */
#define EW_B_tanh_FLT(T, M)						\
	T e = M(expm1)(-2 * M(fabs)(a));				\
	return (M(copysign)(-e / (2 + e), a));
#define EW_B_sin_FLT(T, M)	return (M(sin)(a));
#define EW_B_cos_FLT(T, M)	return (M(cos)(a));
#define EW_B_tan_FLT(T, M)	return (M(tan)(a));
#define EW_B_asin_FLT(T, M)	return (M(asin)(a));
#define EW_B_acos_FLT(T, M)	return (M(acos)(a));
#define EW_B_atan_FLT(T, M)	return (M(atan)(a));
#define EW_B_sinh_FLT(T, M)	return (M(sinh)(a));
#define EW_B_cosh_FLT(T, M)	return (M(cosh)(a));
#define EW_B_asinh_FLT(T, M)	return (M(asinh)(a));
#define EW_B_acosh_FLT(T, M)	return (M(acosh)(a));
#define EW_B_atanh_FLT(T, M)	return (M(atanh)(a));
#define EW_B_erf_FLT(T, M)	return (M(erf)(a));
#define EW_B_floor_FLT(T, M)	return (M(floor)(a));
#define EW_B_ceil_FLT(T, M)	return (M(ceil)(a));
/* Halves to even (in the default rounding mode, the only one gptop runs
 * in), as numpy's round and ONNX's Round. */
#define EW_B_round_FLT(T, M)	return (M(rint)(a));
/* x * Phi(x), Phi the standard normal CDF: 0.5 * (1 + erf(x / sqrt(2))),
 * as torch's gelu and ONNX's Gelu (approximate="none"). */
#define EW_B_gelu_FLT(T, M)						\
	return (a * (T)0.5 * (1 + M(erf)(a * (T)0.70710678118654752440)));
/* The tanh form: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as
 * torch's gelu(approximate="tanh") and ONNX's Gelu (approximate="tanh"). */
#define EW_B_gelu_tanh_FLT(T, M)					\
	return ((T)0.5 * a * (1 + M(tanh)((T)0.79788456080286535588 *	\
	    (a + (T)0.044715 * a * a * a))));
/* x tanh(softplus(x)), softplus in its stable form. */
#define EW_B_mish_FLT(T, M)						\
	T sp = a > 0 ? a + M(log1p)(M(exp)(-a)) : M(log1p)(M(exp)(a));	\
	return (a * M(tanh)(sp));
/* celu(x, alpha): max(0, x) + min(0, alpha (e ** (x / alpha) - 1)), for
 * alpha > 0 (ONNX's Celu). */
#define EW_B_celu_FLT(T, M)						\
	return (a > 0 ? a : b * M(expm1)(a / b));
/* shrink(x, lambd, bias): x + bias below -lambd, x - bias above lambd,
 * else 0 (ONNX's Shrink). */
#define EW_B_shrink_FLT(T, M)						\
	return (a < -b ? a + c : a > b ? a - c : 0);
/* Predicates (to bool); integers and bools are never NaN or infinite. */
#define EW_B_isnan_BOOL(T, M)						\
	(void)a;							\
	return (0);
#define EW_B_isnan_SINT		EW_B_isnan_BOOL
#define EW_B_isnan_UINT		EW_B_isnan_BOOL
#define EW_B_isnan_FLT(T, M)	return (a != a);
#define EW_B_isinf_BOOL		EW_B_isnan_BOOL
#define EW_B_isinf_SINT		EW_B_isnan_BOOL
#define EW_B_isinf_UINT		EW_B_isnan_BOOL
#define EW_B_isinf_FLT(T, M)	return (M(fabs)(a) == (T)INFINITY);

/* numpy: a NaN operand gives NaN; of equal operands (0 and -0), y.  The
 * float forms are selects one after the other, not one condition with ||:
 * with a constant operand (Clip(x, 0, 1) in a fused loop) GCC made the ||
 * a branch and left the loop scalar (0.7 ns an element). */
#define EW_B_maximum_BOOL(T, M)	return (a || b);
#define EW_B_maximum_SINT(T, M)	return (a >= b ? a : b);
#define EW_B_maximum_UINT	EW_B_maximum_SINT
#define EW_B_maximum_FLT(T, M)						\
	T t = a > b ? a : b;						\
	return (a != a ? a : t);
#define EW_B_minimum_BOOL(T, M)	return (a && b);
#define EW_B_minimum_SINT(T, M)	return (a <= b ? a : b);
#define EW_B_minimum_UINT	EW_B_minimum_SINT
#define EW_B_minimum_FLT(T, M)						\
	T t = a < b ? a : b;						\
	return (a != a ? a : t);

/* numpy's clip: minimum(maximum(x, lo), hi). */
#define EW_B_clip_BOOL(T, M)	return ((a || b) && c);
#define EW_B_clip_SINT(T, M)						\
	T t = a >= b ? a : b;						\
	return (t <= c ? t : c);
#define EW_B_clip_UINT		EW_B_clip_SINT
/* A NaN operand is the result (x first), else min(max(x, lo), hi) with
 * numpy's ties (the second of equal values); written so that, with the
 * bounds constants (a fused loop's), the NaN tests of lo and hi fold
 * away and what is left is maxps, minps and one test of x (twice the
 * speed of testing the intermediate values). */
#define EW_B_clip_FLT(T, M)						\
	T t = a > b ? a : b, u = t < c ? t : c;				\
	return (a != a ? a : b != b ? b : c != c ? c : u);

#define EW_B_gt(T, M)		return (a > b);
#define EW_B_ge(T, M)		return (a >= b);
#define EW_B_lt(T, M)		return (a < b);
#define EW_B_le(T, M)		return (a <= b);
#define EW_B_eq(T, M)		return (a == b);
#define EW_B_neq(T, M)		return (a != b);

/* Logical on bool, bitwise on integers. */
#define EW_B_and_BOOL(T, M)	return (a && b);
#define EW_B_and_SINT(T, M)	return ((T)(a & b));
#define EW_B_and_UINT		EW_B_and_SINT
#define EW_B_or_BOOL(T, M)	return (a || b);
#define EW_B_or_SINT(T, M)	return ((T)(a | b));
#define EW_B_or_UINT		EW_B_or_SINT
#define EW_B_not_BOOL(T, M)	return (!a);
#define EW_B_not_SINT(T, M)	return ((T)~a);
#define EW_B_not_UINT		EW_B_not_SINT

#define EW_B_switch(T, M)	return (a ? b : c);
/* The conversion to the compute dtype is the cast. */
#define EW_B_cast(T, M)		return (a);
#define EW_B_identity(T, M)	return (a);
#define EW_B_second(T, M)						\
	(void)a;							\
	return (b);

#define EW_BODY_K(op, K)	EW_B_##op##_##K
#define EW_BODY_U(op, K)	EW_B_##op

/*
 * The scalar ops: X(op, shape, set, body, rule, bool_as, nary, flops).
 * shape: U unary, B binary, C comparison (binary to _Bool), P predicate
 * (unary to _Bool), CL clip (ternary), SW switch (_Bool, T, T).  body: K one body per kind, U one for
 * all.  Elemwise ops of the same name use them (fill uses second).
 */
#define EW_OPS(X)							\
	X(add, B, ALL, K, PROMOTE, BOOL, 1, 1)				\
	X(sub, B, NUM, K, PROMOTE, BOOL, 0, 1)				\
	X(mul, B, ALL, K, PROMOTE, BOOL, 1, 1)				\
	X(true_div, B, FLT, K, FLOAT, BOOL, 0, 1)			\
	X(int_div, B, NUM, K, PROMOTE, INT8, 0, 1)			\
	X(mod, B, NUM, K, PROMOTE, INT8, 0, 1)				\
	X(pow, B, NUM, K, PROMOTE, INT8, 0, 1)				\
	X(fmod, B, NUM, K, PROMOTE, INT8, 0, 1)				\
	X(lshift, B, INT, K, PROMOTE, BOOL, 0, 1)			\
	X(rshift, B, INT, K, PROMOTE, BOOL, 0, 1)			\
	X(neg, U, NUM, K, PROMOTE, BOOL, 0, 1)				\
	X(abs, U, ALL, K, PROMOTE, BOOL, 0, 1)				\
	X(sqr, U, ALL, K, PROMOTE, BOOL, 0, 1)				\
	X(sqrt, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(exp, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(log, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(log1p, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(expm1, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(sigmoid, U, FLT, K, FLOAT, BOOL, 0, 1)			\
	X(softplus, U, FLT, K, FLOAT, BOOL, 0, 1)			\
	X(tanh, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(sin, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(cos, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(tan, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(asin, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(acos, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(atan, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(sinh, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(cosh, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(asinh, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(acosh, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(atanh, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(erf, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(floor, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(ceil, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(round, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(gelu, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(gelu_tanh, U, FLT, K, FLOAT, BOOL, 0, 1)			\
	X(mish, U, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(celu, B, FLT, K, FLOAT, BOOL, 0, 1)				\
	X(shrink, CL, FLT, K, FLOAT, BOOL, 0, 1)			\
	X(isnan, P, ALL, K, COMPARE, BOOL, 0, 1)			\
	X(isinf, P, ALL, K, COMPARE, BOOL, 0, 1)			\
	X(maximum, B, ALL, K, PROMOTE, BOOL, 0, 1)			\
	X(minimum, B, ALL, K, PROMOTE, BOOL, 0, 1)			\
	X(clip, CL, ALL, K, PROMOTE, BOOL, 0, 1)			\
	X(gt, C, ALL, U, COMPARE, BOOL, 0, 1)				\
	X(ge, C, ALL, U, COMPARE, BOOL, 0, 1)				\
	X(lt, C, ALL, U, COMPARE, BOOL, 0, 1)				\
	X(le, C, ALL, U, COMPARE, BOOL, 0, 1)				\
	X(eq, C, ALL, U, COMPARE, BOOL, 0, 1)				\
	X(neq, C, ALL, U, COMPARE, BOOL, 0, 1)				\
	X(and, B, LOGIC, K, PROMOTE, BOOL, 0, 1)			\
	X(or, B, LOGIC, K, PROMOTE, BOOL, 0, 1)				\
	X(not, U, LOGIC, K, PROMOTE, BOOL, 0, 1)			\
	X(switch, SW, ALL, U, SWITCH, BOOL, 0, 1)			\
	X(cast, U, ALL, U, CAST, BOOL, 0, 1)				\
	X(identity, U, ALL, U, PROMOTE, BOOL, 0, 0)			\
	X(second, B, ALL, U, SECOND, BOOL, 0, 0)

#define EW_ENUM(op, sh, set, bd, ru, ba, na, fl)	EW_##op,
enum {
	EW_OPS(EW_ENUM)
	EW__COUNT
};

/* Per shape: arity, helper parameters, the operand _Generic looks at. */
#define EW_ARITY_U	1
#define EW_ARITY_B	2
#define EW_ARITY_C	2
#define EW_ARITY_CL	3
#define EW_ARITY_SW	3
#define EW_ARITY_P	1
#define EW_ARGS_U	(a)
#define EW_ARGS_B	(a, b)
#define EW_ARGS_C	(a, b)
#define EW_ARGS_CL	(a, b, c)
#define EW_ARGS_SW	(a, b, c)
#define EW_ARGS_P	(a)
#define EW_CTRL_U	a
#define EW_CTRL_B	a
#define EW_CTRL_C	a
#define EW_CTRL_CL	a
#define EW_CTRL_SW	b
#define EW_CTRL_P	a
#define EW_TMPL_U	"($0)"
#define EW_TMPL_B	"($0, $1)"
#define EW_TMPL_C	"($0, $1)"
#define EW_TMPL_CL	"($0, $1, $2)"
#define EW_TMPL_SW	"($0, $1, $2)"
#define EW_TMPL_P	"($0)"

/*
 * Support functions of the helpers (also in the prelude): integer powers,
 * numpy's float divmod, and float to integer conversions as
 * gp_dtype_convert does them.
 */
#define EW_FDIVMOD(S, T, M)						\
	static inline T							\
	M(gp_ew_fdivmod)(T a, T b, T *mp)				\
	{								\
		T mod = M(fmod)(a, b), div, fl;				\
		if (b == 0) {						\
			*mp = mod;					\
			return (a / b);					\
		}							\
		div = (a - mod) / b;					\
		if (mod != 0) {						\
			if ((b < 0) != (mod < 0)) {			\
				mod += b;				\
				div -= 1;				\
			}						\
		} else {						\
			mod = M(copysign)(0, b);			\
		}							\
		if (div != 0) {						\
			fl = M(floor)(div);				\
			if (div - fl > (T)0.5)				\
				fl += 1;				\
		} else {						\
			fl = M(copysign)(0, a / b);			\
		}							\
		*mp = mod;						\
		return (fl);						\
	}
#define EW_F2I(S, T, LO, HI)						\
	static inline T							\
	gp_ew_f2##S(double v)						\
	{								\
		if (v != v)						\
			return (0);					\
		if (v <= (double)(LO))					\
			return (LO);					\
		if (v >= (double)(HI))					\
			return (HI);					\
		return ((T)v);						\
	}
#define EW_IPOW								\
	static inline uint64_t						\
	gp_ew_ipow(uint64_t x, uint64_t e)				\
	{								\
		uint64_t r = 1;						\
		while (e != 0) {					\
			if (e & 1)					\
				r *= x;					\
			x *= x;						\
			e >>= 1;					\
		}							\
		return (r);						\
	}
#define EW_SUPPORT_LIST(X)						\
	X(EW_IPOW)							\
	X(EW_FDIVMOD(f32, float, EW_MF))				\
	X(EW_FDIVMOD(f64, double, EW_MD))				\
	X(EW_F2I(i8, int8_t, INT8_MIN, INT8_MAX))			\
	X(EW_F2I(i16, int16_t, INT16_MIN, INT16_MAX))			\
	X(EW_F2I(i32, int32_t, INT32_MIN, INT32_MAX))			\
	X(EW_F2I(i64, int64_t, INT64_MIN, INT64_MAX))			\
	X(EW_F2I(u8, uint8_t, 0, UINT8_MAX))				\
	X(EW_F2I(u16, uint16_t, 0, UINT16_MAX))				\
	X(EW_F2I(u32, uint32_t, 0, UINT32_MAX))				\
	X(EW_F2I(u64, uint64_t, 0, UINT64_MAX))
#define EW_CODE(...)	__VA_ARGS__
#define EW_LINE(...)	EW_XSTR(__VA_ARGS__) "\n"
#define EW_SUPPORT	EW_SUPPORT_LIST(EW_CODE)
#define EW_SUPPORT_STRS	EW_SUPPORT_LIST(EW_LINE)

/* Helper definitions, one per (op, dtype). */
#define EW_HELP_U(op, bd, S, T, K, M)					\
	static inline T gp_ew_##op##_##S(T a)				\
	{ EW_BODY_##bd(op, K)(T, M) }
#define EW_HELP_B(op, bd, S, T, K, M)					\
	static inline T gp_ew_##op##_##S(T a, T b)			\
	{ EW_BODY_##bd(op, K)(T, M) }
#define EW_HELP_C(op, bd, S, T, K, M)					\
	static inline _Bool gp_ew_##op##_##S(T a, T b)			\
	{ EW_BODY_##bd(op, K)(T, M) }
#define EW_HELP_CL(op, bd, S, T, K, M)					\
	static inline T gp_ew_##op##_##S(T a, T b, T c)			\
	{ EW_BODY_##bd(op, K)(T, M) }
#define EW_HELP_SW(op, bd, S, T, K, M)					\
	static inline T gp_ew_##op##_##S(_Bool a, T b, T c)		\
	{ EW_BODY_##bd(op, K)(T, M) }
#define EW_HELP_P(op, bd, S, T, K, M)					\
	static inline _Bool gp_ew_##op##_##S(T a)			\
	{ EW_BODY_##bd(op, K)(T, M) }
#define EW_HELPERS(op, sh, set, bd, ru, ba, na, fl)			\
	EW_SET_##set(EW_HELP_##sh, op, bd)

/* The same as text, one helper a line. */
#define EW_HSTR_U(op, bd, S, T, K, M)					\
	EW_XSTR(EW_HELP_U(op, bd, S, T, K, M)) "\n"
#define EW_HSTR_B(op, bd, S, T, K, M)					\
	EW_XSTR(EW_HELP_B(op, bd, S, T, K, M)) "\n"
#define EW_HSTR_C(op, bd, S, T, K, M)					\
	EW_XSTR(EW_HELP_C(op, bd, S, T, K, M)) "\n"
#define EW_HSTR_CL(op, bd, S, T, K, M)					\
	EW_XSTR(EW_HELP_CL(op, bd, S, T, K, M)) "\n"
#define EW_HSTR_SW(op, bd, S, T, K, M)					\
	EW_XSTR(EW_HELP_SW(op, bd, S, T, K, M)) "\n"
#define EW_HSTR_P(op, bd, S, T, K, M)					\
	EW_XSTR(EW_HELP_P(op, bd, S, T, K, M)) "\n"
#define EW_HELPER_STRS(op, sh, set, bd, ru, ba, na, fl)			\
	EW_SET_##set(EW_HSTR_##sh, op, bd)

/* The prelude's dispatch macro of one op: gp_ew_add(a, b). */
#define EW_PRELUDE_DEFINE(op, sh, set, bd, ru, ba, na, fl)		\
	"#define gp_ew_" #op EW_XSTR(EW_ARGS_##sh) " "			\
	EW_XSTR(EW_GEN_##set(gp_ew_##op, EW_CTRL_##sh) EW_ARGS_##sh) "\n"

const char gp_elemwise_c_prelude[] =
    "#include <math.h>\n"
    "#include <stdint.h>\n"
    EW_SUPPORT_STRS
    EW_OPS(EW_HELPER_STRS)
    EW_OPS(EW_PRELUDE_DEFINE);

/* A typed loop over n contiguous elements; out may be any in[k]. */
typedef void (*ew_loop_fn)(void *out, const void *const *in, size_t n);

static ew_loop_fn vec_loop(int op, enum gp_dtype dt);

/* The compiled helpers, loops and evaluators: let gcc vectorize them at
 * -O2 too (its default cost model there vectorizes almost nothing). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("tree-vectorize")
#endif

/* (the float to integer helpers are for generated code only) */
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wunused-function"
#endif
EW_SUPPORT
#ifdef __clang__
#pragma clang diagnostic pop
#endif
EW_OPS(EW_HELPERS)

#define EW_LOOP_U(op, bd, S, T, K, M)					\
	static void							\
	loop_##op##_##S(void *out, const void *const *in, size_t n)	\
	{								\
		T *o = out;						\
		const T *a = in[0];					\
									\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_##S(a[i]);			\
	}
#define EW_LOOP_B(op, bd, S, T, K, M)					\
	static void							\
	loop_##op##_##S(void *out, const void *const *in, size_t n)	\
	{								\
		T *o = out;						\
		const T *a = in[0], *b = in[1];				\
									\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_##S(a[i], b[i]);		\
	}
#define EW_LOOP_C(op, bd, S, T, K, M)					\
	static void							\
	loop_##op##_##S(void *out, const void *const *in, size_t n)	\
	{								\
		_Bool *o = out;						\
		const T *a = in[0], *b = in[1];				\
									\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_##S(a[i], b[i]);		\
	}
#define EW_LOOP_CL(op, bd, S, T, K, M)					\
	static void							\
	loop_##op##_##S(void *out, const void *const *in, size_t n)	\
	{								\
		T *o = out;						\
		const T *a = in[0], *b = in[1], *c = in[2];		\
									\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_##S(a[i], b[i], c[i]);	\
	}
/* switch reads its condition as bytes: GCC vectorizes no load of _Bool,
 * and the scalar loop's branch on random conditions cost 5 ns an element
 * (a LeakyRelu); the bytes load as vectors, the select has no branch. */
#define EW_LOOP_SW(op, bd, S, T, K, M)					\
	static void							\
	loop_##op##_##S(void *out, const void *const *in, size_t n)	\
	{								\
		T *o = out;						\
		const unsigned char *a = in[0];	/* _Bool's bytes */	\
		const T *b = in[1], *c = in[2];				\
									\
		GP_SIMD							\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_##S(a[i], b[i], c[i]);	\
	}
#define EW_LOOP_P(op, bd, S, T, K, M)					\
	static void							\
	loop_##op##_##S(void *out, const void *const *in, size_t n)	\
	{								\
		_Bool *o = out;						\
		const T *a = in[0];					\
									\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_##S(a[i]);			\
	}
#define EW_LOOPS(op, sh, set, bd, ru, ba, na, fl)			\
	EW_SET_##set(EW_LOOP_##sh, op, bd)

EW_OPS(EW_LOOPS)

/*
 * The float64 and float32 evaluators.  Ops defined on floats use their
 * float helpers (and the vector loops where the kernels do, so both agree);
 * the logic ops, defined on bool and integers only, are logical.
 */
#define EW_EV_ALL	F
#define EW_EV_NUM	F
#define EW_EV_FLT	F
#define EW_EV_LOGIC	L
#define EW_EV_INT	I

#define EW_EVAL1_U_F(op, S, T, DT)					\
	static void							\
	eval_##op##_##S(T *o, const T *const *in, size_t n)		\
	{								\
		ew_loop_fn v = vec_loop(EW_##op, DT);			\
		const T *a = in[0];					\
									\
		if (v != NULL) {					\
			const void *arg[1] = {a};			\
									\
			v(o, arg, n);					\
			return;						\
		}							\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_##S(a[i]);			\
	}
#define EW_EVAL1_B_F(op, S, T, DT)					\
	static void							\
	eval_##op##_##S(T *o, const T *const *in, size_t n)		\
	{								\
		const T *a = in[0], *b = in[1];				\
									\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_##S(a[i], b[i]);		\
	}
#define EW_EVAL1_C_F		EW_EVAL1_B_F
#define EW_EVAL1_P_F(op, S, T, DT)					\
	static void							\
	eval_##op##_##S(T *o, const T *const *in, size_t n)		\
	{								\
		const T *a = in[0];					\
									\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_##S(a[i]);			\
	}
#define EW_EVAL1_CL_F(op, S, T, DT)					\
	static void							\
	eval_##op##_##S(T *o, const T *const *in, size_t n)		\
	{								\
		const T *a = in[0], *b = in[1], *c = in[2];		\
									\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_##S(a[i], b[i], c[i]);	\
	}
#define EW_EVAL1_SW_F(op, S, T, DT)					\
	static void							\
	eval_##op##_##S(T *o, const T *const *in, size_t n)		\
	{								\
		const T *a = in[0], *b = in[1], *c = in[2];		\
									\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_##S(a[i] != 0, b[i], c[i]);	\
	}
#define EW_EVAL1_U_L(op, S, T, DT)					\
	static void							\
	eval_##op##_##S(T *o, const T *const *in, size_t n)		\
	{								\
		const T *a = in[0];					\
									\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_b(a[i] != 0);		\
	}
#define EW_EVAL1_B_L(op, S, T, DT)					\
	static void							\
	eval_##op##_##S(T *o, const T *const *in, size_t n)		\
	{								\
		const T *a = in[0], *b = in[1];				\
									\
		for (size_t i = 0; i < n; i++)				\
			o[i] = gp_ew_##op##_b(a[i] != 0, b[i] != 0);	\
	}
/* Integer-only ops (shifts) have no float semantics: no evaluators (they
 * are never fused). */
#define EW_EVAL1_B_I(op, S, T, DT)
#define EW_EVALS(op, sh, set, bd, ru, ba, na, fl)			\
	EW_CAT(EW_EVAL1_##sh##_, EW_EV_##set)(op, f64, double, GP_FLOAT64) \
	EW_CAT(EW_EVAL1_##sh##_, EW_EV_##set)(op, f32, float, GP_FLOAT32)

EW_OPS(EW_EVALS)

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

#define EW_DT_b		GP_BOOL
#define EW_DT_i8	GP_INT8
#define EW_DT_i16	GP_INT16
#define EW_DT_i32	GP_INT32
#define EW_DT_i64	GP_INT64
#define EW_DT_u8	GP_UINT8
#define EW_DT_u16	GP_UINT16
#define EW_DT_u32	GP_UINT32
#define EW_DT_u64	GP_UINT64
#define EW_DT_f32	GP_FLOAT32
#define EW_DT_f64	GP_FLOAT64

#define EW_LOOP_ENTRY(op, bd, S, T, K, M)	[EW_DT_##S] = loop_##op##_##S,
#define EW_LOOP_ROW(op, sh, set, bd, ru, ba, na, fl)		\
	[EW_##op] = { EW_SET_##set(EW_LOOP_ENTRY, op, bd) },

static const ew_loop_fn loops[EW__COUNT][GP_DTYPE__COUNT] = {
	EW_OPS(EW_LOOP_ROW)
};

#define EW_EVP_ALL(op, S)	eval_##op##_##S
#define EW_EVP_NUM		EW_EVP_ALL
#define EW_EVP_FLT		EW_EVP_ALL
#define EW_EVP_LOGIC		EW_EVP_ALL
#define EW_EVP_INT(op, S)	NULL

#define EW_SCALAR(op, sh, set, bd, ru, ba, na, fl)			\
	[EW_##op] = {							\
		.name = #op,						\
		.arity = EW_ARITY_##sh,					\
		.nary = na,						\
		.rule = GP_SCALAR_##ru,				\
		.kinds = EW_KINDS_##set,				\
		.bool_as = GP_##ba,					\
		.flops = fl,						\
		.c_expr = "gp_ew_" #op EW_TMPL_##sh,			\
		.eval_f64 = EW_EVP_##set(op, f64),			\
		.eval_f32 = EW_EVP_##set(op, f32),			\
	},

static const struct gp_scalar_op scalars[EW__COUNT] = {
	EW_OPS(EW_SCALAR)
};

#ifdef EW_MVEC
/*
 * Vector loops for float32 and float64 (AVX2): glibc's libmvec for the
 * transcendental functions (x86_64 vector function ABI names), vsqrtpd
 * for sqrt, and sigmoid and softplus composed from them.  The last
 * partial vector goes through a zero-padded copy, so out may alias in;
 * calls shorter than one vector use the scalar helpers.
 */
#pragma GCC push_options
#pragma GCC target("avx2")

#define EW_MVEC_FNS(X)							\
	X(exp) X(log) X(log1p) X(expm1) X(sin) X(cos) EW_MVEC_235(X)
#ifdef HAVE_LIBMVEC_235
#define EW_MVEC_235(X)							\
	X(erf) X(tan) X(sinh) X(cosh) X(asin) X(acos) X(atan) X(asinh)	\
	X(acosh) X(atanh)
#define EW_VSPECIAL_235(X)	X(gelu)
#else
#define EW_MVEC_235(X)
#define EW_VSPECIAL_235(X)
#endif

#define EW_MVEC_DECL(fn)						\
	__m256d _ZGVdN4v_##fn(__m256d);					\
	__m256 _ZGVdN8v_##fn##f(__m256);				\
	static inline __m256d v4_##fn(__m256d x)			\
	{								\
		return (_ZGVdN4v_##fn(x));				\
	}								\
	static inline __m256 v8_##fn(__m256 x)				\
	{								\
		return (_ZGVdN8v_##fn##f(x));				\
	}
EW_MVEC_FNS(EW_MVEC_DECL)
/* libmvec's tanh: gelu_tanh's and mish's (tanh's own loop is from expm1) */
__m256d _ZGVdN4v_tanh(__m256d);
__m256 _ZGVdN8v_tanhf(__m256);

/*
 * sqrt; sigmoid, 1 / (1 + exp(-x)); tanh from expm1 (as its scalar
 * helper); softplus, max(x, 0) +
 * log1p(exp(-|x|)) (NaN stays NaN through the second term): for VT, the
 * vector of N lanes (intrinsics _mm256_*_PS, libmvec names ending in F).
 */
#define EW_VSPECIAL(V, VT, PS, N, F)					\
	static inline VT						\
	V##_sqrt(VT x)							\
	{								\
		return (_mm256_sqrt_##PS(x));				\
	}								\
	static inline VT						\
	V##_sigmoid(VT x)						\
	{								\
		VT one = _mm256_set1_##PS(1);				\
									\
		x = _mm256_xor_##PS(x, _mm256_set1_##PS(-0.0##F));	\
		return (_mm256_div_##PS(one,				\
		    _mm256_add_##PS(one, _ZGVdN##N##v_exp##F(x))));	\
	}								\
	static inline VT						\
	V##_tanh(VT x)							\
	{								\
		VT sgn = _mm256_set1_##PS(-0.0##F);			\
		VT e = _ZGVdN##N##v_expm1##F(_mm256_mul_##PS(		\
		    _mm256_set1_##PS(-2.0##F), _mm256_andnot_##PS(sgn, x))); \
		VT t = _mm256_div_##PS(_mm256_xor_##PS(e, sgn),		\
		    _mm256_add_##PS(_mm256_set1_##PS(2.0##F), e));	\
									\
		return (_mm256_or_##PS(t, _mm256_and_##PS(x, sgn)));	\
	}								\
	static inline VT						\
	V##_softplus(VT x)						\
	{								\
		VT ax = _mm256_andnot_##PS(_mm256_set1_##PS(-0.0##F), x); \
		VT t = _ZGVdN##N##v_exp##F(_mm256_xor_##PS(ax,		\
		    _mm256_set1_##PS(-0.0##F)));			\
									\
		return (_mm256_add_##PS(_mm256_max_##PS(x,		\
		    _mm256_setzero_##PS()), _ZGVdN##N##v_log1p##F(t)));	\
	}
EW_VSPECIAL(v4, __m256d, pd, 4, )
EW_VSPECIAL(v8, __m256, ps, 8, f)

/*
 * gelu_tanh, 0.5 x (1 + tanh(c (x + 0.044715 x^3))); mish, x
 * tanh(softplus(x)); and with glibc 2.35's erf, gelu, x 0.5 (1 + erf(x /
 * sqrt(2))): the scalar helpers' operations in their order (no FMA: the
 * target is AVX2 alone).
 */
#define EW_VSPECIAL2(V, VT, PS, N, F)					\
	static inline VT						\
	V##_gelu_tanh(VT x)						\
	{								\
		VT h = _mm256_set1_##PS(0.5##F), one = _mm256_set1_##PS(1); \
		VT x3 = _mm256_mul_##PS(_mm256_mul_##PS(			\
		    _mm256_mul_##PS(_mm256_set1_##PS(0.044715##F), x), x), x); \
		VT t = _ZGVdN##N##v_tanh##F(_mm256_mul_##PS(		\
		    _mm256_set1_##PS(0.79788456080286535588##F),	\
		    _mm256_add_##PS(x, x3)));				\
									\
		return (_mm256_mul_##PS(_mm256_mul_##PS(h, x),		\
		    _mm256_add_##PS(one, t)));				\
	}								\
	static inline VT						\
	V##_mish(VT x)							\
	{								\
		return (_mm256_mul_##PS(x,				\
		    _ZGVdN##N##v_tanh##F(V##_softplus(x))));		\
	}
EW_VSPECIAL2(v4, __m256d, pd, 4, )
EW_VSPECIAL2(v8, __m256, ps, 8, f)

#ifdef HAVE_LIBMVEC_235
#define EW_VGELU(V, VT, PS, N, F)					\
	static inline VT						\
	V##_gelu(VT x)							\
	{								\
		VT e = _ZGVdN##N##v_erf##F(_mm256_mul_##PS(x,		\
		    _mm256_set1_##PS(0.70710678118654752440##F)));	\
									\
		return (_mm256_mul_##PS(_mm256_mul_##PS(x,		\
		    _mm256_set1_##PS(0.5##F)), _mm256_add_##PS(		\
		    _mm256_set1_##PS(1), e)));				\
	}
EW_VGELU(v4, __m256d, pd, 4, )
EW_VGELU(v8, __m256, ps, 8, f)
#endif

/* The vector loop of op over T (W lanes, intrinsics _mm256_*_PS, vector
 * function V##_op), the scalar function for the short and tail parts. */
#define EW_VLOOP_T(op, SFX, T, W, PS, V)					\
	static void							\
	vloop_##op##_##SFX(void *out, const void *const *in, size_t n)	\
	{								\
		T *o = out, t[W];					\
		const T *a = in[0];					\
		size_t i;						\
									\
		if (n < W) {						\
			for (i = 0; i < n; i++)				\
				o[i] = gp_ew_##op##_##SFX(a[i]);	\
			return;						\
		}							\
		for (i = 0; i + W <= n; i += W)				\
			_mm256_storeu_##PS(o + i,			\
			    V##_##op(_mm256_loadu_##PS(a + i)));	\
		if (i < n) {						\
			memset(t, 0, sizeof(t));			\
			memcpy(t, a + i, (n - i) * sizeof(*t));		\
			_mm256_storeu_##PS(t,				\
			    V##_##op(_mm256_loadu_##PS(t)));		\
			memcpy(o + i, t, (n - i) * sizeof(*t));		\
		}							\
	}
#define EW_VLOOP(op)							\
	EW_VLOOP_T(op, f64, double, 4, pd, v4)				\
	EW_VLOOP_T(op, f32, float, 8, ps, v8)

#define EW_VEC_OPS(X)							\
	EW_MVEC_FNS(X) X(sqrt) X(sigmoid) X(softplus) X(tanh) X(gelu_tanh) \
	X(mish)								\
	EW_VSPECIAL_235(X)

EW_VEC_OPS(EW_VLOOP)

#pragma GCC pop_options

#define EW_VEC_ENTRY(op)	[EW_##op] = {vloop_##op##_f32, vloop_##op##_f64},

static const ew_loop_fn vec_loops[EW__COUNT][2] = {
	EW_VEC_OPS(EW_VEC_ENTRY)
};
#endif

/* float32 tanh from ops/vmath.c (AVX2 and FMA, in float32 throughout):
 * 2.7x faster than the expm1f form through libmvec, within 3 ulp. */
static void
vloop_tanh_vm(void *out, const void *const *in, size_t n)
{
	gp_vmath_tanh_f32()(out, in[0], n);
}

/* float32 exp from ops/vmath.c (AVX2 and FMA, within 1.06 ulp over
 * every float32): one inlined polynomial where libmvec's call per vector
 * dominated a softmax of short rows. */
static void
vloop_exp_vm(void *out, const void *const *in, size_t n)
{
	gp_vmath_exp_f32()(out, in[0], n);
}

/* The vector loop of op over dt on this CPU, or NULL. */
static ew_loop_fn
vec_loop(int op, enum gp_dtype dt)
{
	if (op == EW_tanh && dt == GP_FLOAT32 && gp_vmath_tanh_f32() != NULL)
		return (vloop_tanh_vm);
	if (op == EW_exp && dt == GP_FLOAT32 && gp_vmath_exp_f32() != NULL)
		return (vloop_exp_vm);
#ifdef EW_MVEC
	if ((dt == GP_FLOAT32 || dt == GP_FLOAT64) &&
	    __builtin_cpu_supports("avx2"))
		return (vec_loops[op][dt == GP_FLOAT64]);
#endif
	return (NULL);
}

const struct gp_scalar_op *
gp_elemwise_scalar_find(const char *name)
{
	for (int i = 0; i < EW__COUNT; i++)
		if (strcmp(scalars[i].name, name) == 0)
			return (&scalars[i]);
	return (NULL);
}

const struct gp_scalar_op *
gp_elemwise_scalar_all(size_t *n)
{
	*n = EW__COUNT;
	return (scalars);
}

/* The ops whose float helpers above call libm's transcendental functions
 * (gp_elemwise_scalar_calls_libm). */
static const bool calls_libm[EW__COUNT] = {
	[EW_exp] = true, [EW_log] = true, [EW_log1p] = true,
	[EW_expm1] = true, [EW_sigmoid] = true, [EW_softplus] = true,
	[EW_tanh] = true, [EW_sin] = true, [EW_cos] = true, [EW_tan] = true,
	[EW_asin] = true, [EW_acos] = true, [EW_atan] = true,
	[EW_sinh] = true, [EW_cosh] = true, [EW_asinh] = true,
	[EW_acosh] = true, [EW_atanh] = true, [EW_erf] = true,
	[EW_gelu] = true, [EW_gelu_tanh] = true, [EW_mish] = true,
	[EW_celu] = true, [EW_pow] = true,
};

bool
gp_elemwise_scalar_calls_libm(const struct gp_scalar_op *s)
{
	return (calls_libm[s - scalars]);
}

static const char *
kinds_text(unsigned kinds)
{
	if (kinds == EW_KINDS_ALL)
		return ("any");
	if (kinds == EW_KINDS_NUM)
		return ("integer and float");
	if (kinds == EW_KINDS_LOGIC)
		return ("bool and integer");
	if (kinds == EW_KINDS_INT)
		return ("integer");
	return ("float");
}

int
gp_elemwise_dtypes(const struct gp_scalar_op *s, int n,
    const enum gp_dtype *in, enum gp_dtype cast_to, enum gp_dtype *as,
    enum gp_dtype *out, struct gp_err *err)
{
	enum gp_dtype p;
	enum gp_dtype_kind kind;
	int first = s->rule == GP_SCALAR_SWITCH ? 1 : 0;

	if (s->rule == GP_SCALAR_CAST) {
		as[0] = *out = cast_to;
		return (0);
	}
	if (s->rule == GP_SCALAR_SECOND) {
		as[0] = GP_DTYPE__COUNT;
		as[1] = *out = in[1];
		return (0);
	}
	p = in[first];
	for (int k = first + 1; k < n; k++)
		p = gp_dtype_promote(p, in[k]);
	if (s->rule == GP_SCALAR_FLOAT)
		p = gp_dtype_to_float(p);
	kind = gp_dtype_table[p].kind;
	if (!(s->kinds & GP_SCALAR_KIND(kind))) {
		if (kind != GP_KIND_BOOL || s->bool_as == GP_BOOL)
			return (gp_err_set(err, "op '%s' is not defined for %s "
			    "inputs (it takes %s inputs)", s->name,
			    gp_dtype_name(p), kinds_text(s->kinds)));
		p = s->bool_as;
	}
	for (int k = 0; k < n; k++)
		as[k] = p;
	if (s->rule == GP_SCALAR_SWITCH)
		as[0] = GP_BOOL;
	*out = s->rule == GP_SCALAR_COMPARE ? GP_BOOL : p;
	return (0);
}

/*
 * The kernel.
 */
#define EW_BLOCK	1024

/* What prepare decides for a node (n->priv). */
struct ew_plan {
	const struct gp_scalar_op *s;
	ew_loop_fn	 loop;	/* NULL: a copy (identity, cast, second) */
	enum gp_dtype	 ct;	/* compute dtype */
	enum gp_dtype	 out;
	enum gp_dtype	 as[3];	/* operand k's compute dtype (n-ary: ct) */
	int64_t		 numel;	/* of the output */
	int		 src;	/* copies: the input copied */
	bool		 same;	/* every input read has the output's size */
	bool		 direct;	/* ...and its compute dtype: over
					 * contiguous data, one loop call */
};

/* One iteration's view of the operands: 0 is the output. */
struct ew_ctx {
	const struct ew_plan	*p;
	int			 nin;
	enum gp_dtype		 dt[GP_ITER_MAX_OPS];
};

union ew_block {
	double	d[EW_BLOCK];
	int64_t	i[EW_BLOCK];
	char	c[EW_BLOCK * sizeof(double)];
};

enum ew_mode {
	EW_DIRECT,	/* read in place */
	EW_FILLED,	/* stride 0: converted once per row */
	EW_GATHER	/* converted block by block */
};

static void
scatter(char *dst, int64_t step, const char *src, size_t sz, size_t n)
{
	for (size_t i = 0; i < n; i++)
		memcpy(dst + (int64_t)i * step, src + i * sz, sz);
}

/* Ops of arity 1 to 3, and two-input add and mul. */
static void
inner_fixed(char **ptrs, const int64_t *steps, int64_t n, void *vctx)
{
	const struct ew_ctx *c = vctx;
	const struct ew_plan *p = c->p;
	union ew_block buf[4];
	const void *arg[3] = {NULL, NULL, NULL};
	enum ew_mode mode[3];
	int64_t osz = (int64_t)gp_dtype_size(p->out);
	bool odirect = steps[0] == osz;

	for (int k = 0; k < c->nin; k++) {
		enum gp_dtype dt = c->dt[k + 1];

		if (dt == p->as[k] &&
		    steps[k + 1] == (int64_t)gp_dtype_size(dt)) {
			mode[k] = EW_DIRECT;
		} else if (steps[k + 1] == 0) {
			mode[k] = EW_FILLED;
			gp_dtype_convert(buf[k].c, p->as[k], ptrs[k + 1], dt, 0,
			    (size_t)(n < EW_BLOCK ? n : EW_BLOCK));
			arg[k] = buf[k].c;
		} else {
			mode[k] = EW_GATHER;
		}
	}
	for (int64_t i = 0; i < n; i += EW_BLOCK) {
		size_t len = (size_t)(n - i < EW_BLOCK ? n - i : EW_BLOCK);
		char *dst = odirect ? ptrs[0] + i * osz : buf[3].c;

		for (int k = 0; k < c->nin; k++) {
			const char *src = ptrs[k + 1] + i * steps[k + 1];

			if (mode[k] == EW_DIRECT) {
				arg[k] = src;
			} else if (mode[k] == EW_GATHER) {
				gp_dtype_convert(buf[k].c, p->as[k], src,
				    c->dt[k + 1], steps[k + 1], len);
				arg[k] = buf[k].c;
			}
		}
		p->loop(dst, arg, len);
		if (!odirect)
			scatter(ptrs[0] + i * steps[0], steps[0], buf[3].c,
			    (size_t)osz, len);
	}
}

/* Operand k's elements [i, i + len) in the compute dtype. */
static const void *
operand(const struct ew_ctx *c, int k, char *const *ptrs,
    const int64_t *steps, int64_t i, size_t len, void *buf)
{
	enum gp_dtype dt = c->dt[k + 1];
	const char *src = ptrs[k + 1] + i * steps[k + 1];

	if (dt == c->p->ct && steps[k + 1] == (int64_t)gp_dtype_size(dt))
		return (src);
	gp_dtype_convert(buf, c->p->ct, src, dt, steps[k + 1], len);
	return (buf);
}

/* add and mul of three or more inputs: each block folds every input into
 * an accumulator, then is stored (so the output may alias any input). */
static void
inner_nary(char **ptrs, const int64_t *steps, int64_t n, void *vctx)
{
	const struct ew_ctx *c = vctx;
	const struct ew_plan *p = c->p;
	union ew_block acc, tmp[2];
	int64_t osz = (int64_t)gp_dtype_size(p->out);

	for (int64_t i = 0; i < n; i += EW_BLOCK) {
		size_t len = (size_t)(n - i < EW_BLOCK ? n - i : EW_BLOCK);
		const void *arg[2];

		arg[0] = operand(c, 0, ptrs, steps, i, len, tmp[0].c);
		arg[1] = operand(c, 1, ptrs, steps, i, len, tmp[1].c);
		p->loop(acc.c, arg, len);
		for (int k = 2; k < c->nin; k++) {
			arg[0] = acc.c;
			arg[1] = operand(c, k, ptrs, steps, i, len, tmp[1].c);
			p->loop(acc.c, arg, len);
		}
		if (steps[0] == osz)
			memcpy(ptrs[0] + i * osz, acc.c, len * (size_t)osz);
		else
			scatter(ptrs[0] + i * steps[0], steps[0], acc.c,
			    (size_t)osz, len);
	}
}

static void
run_general(const struct ew_plan *p, int nin, struct gp_tensor *const *in,
    struct gp_tensor *o, bool contig, int64_t numel)
{
	struct ew_ctx c;
	struct gp_iter it;
	gp_inner_fn fn;

	if (nin + 1 > GP_ITER_MAX_OPS) {
		/* more inputs than the iterator takes (add, mul): fold them
		 * into a temporary, GP_ITER_MAX_OPS - 2 at a time */
		struct gp_tensor acc = {0};
		struct gp_tensor *part[GP_ITER_MAX_OPS - 1];
		int k = GP_ITER_MAX_OPS - 1;

		gp_tensor_alloc(&acc, o->dtype, o->ndim, o->shape);
		run_general(p, k, in, &acc, false, numel);
		while (k < nin) {
			int m = nin - k < GP_ITER_MAX_OPS - 2 ? nin - k :
			    GP_ITER_MAX_OPS - 2;

			part[0] = &acc;
			for (int j = 0; j < m; j++)
				part[j + 1] = in[k + j];
			run_general(p, m + 1, part, &acc, false, numel);
			k += m;
		}
		gp_tensor_copy_into(o, &acc);
		gp_tensor_release(&acc);
		return;
	}
	c.p = p;
	c.nin = nin;
	c.dt[0] = o->dtype;
	for (int k = 0; k < nin; k++)
		c.dt[k + 1] = in[k]->dtype;
	fn = nin > 3 || (p->s->nary && nin > 2) ? inner_nary : inner_fixed;
	if (contig) {
		char *ptrs[GP_ITER_MAX_OPS];
		int64_t steps[GP_ITER_MAX_OPS];

		ptrs[0] = gp_tensor_data(o);
		steps[0] = (int64_t)gp_dtype_size(o->dtype);
		for (int k = 0; k < nin; k++) {
			ptrs[k + 1] = gp_tensor_data(in[k]);
			steps[k + 1] = (int64_t)gp_dtype_size(in[k]->dtype);
		}
		fn(ptrs, steps, numel, &c);
		return;
	}
	gp_iter_init(&it, o->ndim, o->shape, nin + 1);
	gp_iter_add(&it, 0, o);
	for (int k = 0; k < nin; k++)
		gp_iter_add(&it, k + 1, in[k]);
	/* in the output's memory order: ConvNeXt's layer scale and residual
	 * add, computed in place in a channels-last view, ran across the
	 * channels (one cache line an element) */
	gp_iter_order_by(&it, 0);
	gp_iter_run(&it, fn, &c);
}

/* gp_tensor_is_contiguous, inline: the per-apply cost over small tensors
 * is mostly these checks. */
static inline bool
contiguous(const struct gp_tensor *t)
{
	int64_t s = (int64_t)gp_dtype_size(t->dtype);

	for (int d = t->ndim - 1; d >= 0; d--) {
		if (t->shape[d] != 1 && t->strides[d] != s)
			return (false);
		s *= t->shape[d];
	}
	return (true);
}

/* identity, cast, fill: a converting copy (nothing to do in place). */
static void
copy_kernel(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct ew_plan *p = n->priv;
	const struct gp_tensor *s = in[p->src];
	struct gp_tensor *o = out[0];

	if (gp_tensor_data(s) == gp_tensor_data(o) && s->dtype == o->dtype)
		return;
	if (p->same && contiguous(s) && contiguous(o)) {
		gp_dtype_convert(gp_tensor_data(o), o->dtype, gp_tensor_data(s),
		    s->dtype, (ptrdiff_t)gp_dtype_size(s->dtype),
		    (size_t)p->numel);
		return;
	}
	if (p->numel > 0)
		gp_tensor_copy_into(o, s);
}

#ifdef GP_HAVE_OPENMP
/* run_general over a large output, one part per thread: the output's
 * dimension d (its outermost in memory) cut into ranges, each input's
 * view of it with the output's (a broadcast dimension, of one element,
 * stays whole).  A broadcast multiply (a squeeze-and-excitation's (C, 1,
 * 1) scale of (C, H, W)) ran on one thread at 2.2x the time of a
 * contiguous one on two. */
static void __attribute__((noinline))
ew_general_parallel(const struct ew_plan *p, int nin,
    struct gp_tensor *const *in, struct gp_tensor *o, bool contig, int d)
{
#pragma omp parallel
	{
		struct gp_tensor ov = *o, iv[GP_ITER_MAX_OPS];
		struct gp_tensor *ip[GP_ITER_MAX_OPS];
		int64_t lo, hi;

		gp_par_split(o->shape[d], 1, omp_get_thread_num(),
		    omp_get_num_threads(), &lo, &hi);
		ov.shape[d] = hi - lo;
		ov.offset = (size_t)((int64_t)o->offset + lo * o->strides[d]);
		for (int k = 0; k < nin; k++) {
			int dk = d - (o->ndim - in[k]->ndim);

			iv[k] = *in[k];
			ip[k] = &iv[k];
			if (dk < 0 || in[k]->shape[dk] == 1)
				continue;
			iv[k].shape[dk] = hi - lo;
			iv[k].offset = (size_t)((int64_t)in[k]->offset + lo *
			    in[k]->strides[dk]);
		}
		if (hi > lo)
			run_general(p, nin, ip, &ov, contig, p->numel /
			    o->shape[d] * (hi - lo));
	}
}
#endif

static void __attribute__((noinline))
ew_kernel_slow(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *o)
{
	const struct ew_plan *p = n->priv;
	bool contig;

	if (p->numel == 0)
		return;
	contig = p->same && contiguous(o);
	for (int k = 0; contig && k < n->n_in; k++)
		contig = contiguous(in[k]);
#ifdef GP_HAVE_OPENMP
	if (p->numel >= GP_PAR_MIN && gp_par_max_threads() > 1 &&
	    n->n_in + 1 <= GP_ITER_MAX_OPS) {
		int d = -1;

		/* the output's outermost dimension in memory */
		for (int e = 0; e < o->ndim; e++)
			if (o->shape[e] > 1 && (d < 0 || llabs(o->strides[e]) >
			    llabs(o->strides[d])))
				d = e;
		if (d >= 0) {
			ew_general_parallel(p, n->n_in, in, o, contig, d);
			return;
		}
	}
#endif
	run_general(p, n->n_in, in, o, contig, p->numel);
}

/*
 * ew_kernel's loop runs over the threads from ops/par.h's GP_PAR_MIN
 * elements, as the other kernels' loops.  It took 2^17 until the MLP's
 * gemms ran on OpenBLAS's threads, which a tanh after a gemm found
 * spinning on the other core (65536 elements: 54-77 us over the threads
 * against 30-37 us alone, load 3).  Since gemm_pack its gemms are the
 * OpenMP threads' own, still awake when the tanh starts: bench/onnx's
 * MLP 0.961-0.968 of the time with 2^15 against 2^17 (bench-ab, three
 * runs of 300 pairs, idle threads spinning), 0.996-0.998 with sleeping
 * ones (passive); resnet18, mobilenet_v2, squeezenet1_0 and the
 * transformer 0.992-0.999.
 */

#ifdef GP_HAVE_OPENMP
/* ew_kernel's loop over a large tensor: one part per thread (ops/par.h),
 * at multiples of 64 elements. */
static void __attribute__((noinline))
ew_parallel(const struct ew_plan *p, int nin, struct gp_tensor *const *in,
    struct gp_tensor *o, const void *const *arg)
{
#pragma omp parallel
	{
		const void *a[3];
		int64_t lo, hi;

		gp_par_split(p->numel, 64, omp_get_thread_num(),
		    omp_get_num_threads(), &lo, &hi);
		for (int k = 0; k < nin; k++)
			a[k] = (const char *)arg[k] + lo *
			    (int64_t)gp_dtype_size(in[k]->dtype);
		if (hi > lo)
			p->loop((char *)gp_tensor_data(o) + lo *
			    (int64_t)gp_dtype_size(o->dtype), a,
			    (size_t)(hi - lo));
	}
}
#endif

/* The common case, kept small: inputs already of the compute dtype and
 * output's size, all contiguous (or of one element, where strides do not
 * matter), take one call of the typed loop. */
static void
ew_kernel(const struct gp_node *n, struct gp_tensor *const *in,
    struct gp_tensor *const *out)
{
	const struct ew_plan *p = n->priv;
	struct gp_tensor *o = out[0];
	const void *arg[3];
	const int nin = n->n_in;	/* 1 to 3 when direct */
	bool contig = p->direct;

	if (contig && p->numel != 1) {
		contig = contiguous(o);
		for (int k = 0; contig && k < nin; k++)
			contig = contiguous(in[k]);
	}
	if (!contig) {
		ew_kernel_slow(n, in, o);
		return;
	}
	arg[0] = gp_tensor_data(in[0]);
	if (nin > 1)
		arg[1] = gp_tensor_data(in[1]);
	if (nin > 2)
		arg[2] = gp_tensor_data(in[2]);
#ifdef GP_HAVE_OPENMP
	if (p->numel >= GP_PAR_MIN && gp_par_max_threads() > 1) {
		ew_parallel(p, nin, in, o, arg);
		return;
	}
#endif
	p->loop(gp_tensor_data(o), arg, (size_t)p->numel);
}

static int
parse_cast(const struct gp_node *n, enum gp_dtype *dt, struct gp_err *err)
{
	json_t *v = json_object_get(n->params, "dtype");

	if (v == NULL)
		return (gp_err_set(err, "op 'cast' needs param 'dtype' (one "
		    "of %s)", gp_dtype_names()));
	if (!json_is_string(v) || !gp_dtype_parse(json_string_value(v), dt))
		return (gp_err_set(err, "param 'dtype' must be one of %s, got "
		    "%s%s%s", gp_dtype_names(), json_is_string(v) ? "'" : "",
		    json_is_string(v) ? json_string_value(v) : "a non-string",
		    json_is_string(v) ? "'" : ""));
	return (0);
}

static int
ew_prepare(struct gp_graph *g, struct gp_node *n, struct gp_err *err)
{
	const struct gp_scalar_op *s = n->op->scalar;
	int op = (int)(s - scalars), nd, rc = -1;
	int64_t shape[GP_MAX_DIMS], numel;
	enum gp_dtype cast_to = GP_FLOAT64, out;
	enum gp_dtype few[2 * 4], *dt = few, *as;
	struct ew_plan *p;

	if (s->rule == GP_SCALAR_CAST && parse_cast(n, &cast_to, err) < 0)
		return (-1);
	if (n->n_in > 4)
		dt = gp_xmalloc(sizeof(*dt) * (size_t)n->n_in * 2);
	as = dt + n->n_in;
	for (int k = 0; k < n->n_in; k++)
		dt[k] = gp_graph_in_type(g, n, k)->dtype;
	if (gp_elemwise_dtypes(s, n->n_in, dt, cast_to, as, &out, err) < 0)
		goto done;
	nd = gp_graph_in_type(g, n, 0)->ndim;
	memcpy(shape, gp_graph_in_type(g, n, 0)->shape,
	    sizeof(int64_t) * (size_t)nd);
	for (int k = 1; k < n->n_in; k++) {
		const struct gp_type *t = gp_graph_in_type(g, n, k);

		if (gp_shape_broadcast(nd, shape, t->ndim, t->shape, &nd,
		    shape, err) < 0) {
			gp_err_prefix(err, "input %d ('%s')", k,
			    g->vars[n->in[k]].name);
			goto done;
		}
	}
	numel = gp_shape_numel(nd, shape);

	p = gp_xcalloc(1, sizeof(*p));
	p->s = s;
	p->out = out;
	p->ct = s->rule == GP_SCALAR_SWITCH || s->rule == GP_SCALAR_SECOND ?
	    as[1] : as[0];
	for (int k = 0; k < 3; k++)
		p->as[k] = s->nary || k >= n->n_in ? p->ct : as[k];
	p->numel = numel;
	p->src = s->rule == GP_SCALAR_SECOND ? 1 : 0;
	p->same = p->direct = true;
	for (int k = 0; k < n->n_in; k++) {
		const struct gp_type *t = gp_graph_in_type(g, n, k);

		if (as[k] == GP_DTYPE__COUNT)
			continue;
		if (gp_shape_numel(t->ndim, t->shape) != numel)
			p->same = p->direct = false;
		if (t->dtype != as[k])
			p->direct = false;
	}
	if (s->nary && n->n_in > 2)
		p->direct = false;
	if (op == EW_identity || op == EW_cast || op == EW_second)
		p->direct = false;
	if (op != EW_identity && op != EW_cast && op != EW_second) {
		p->loop = vec_loop(op, p->ct);
		if (p->loop == NULL)
			p->loop = loops[op][p->ct];
	}
	n->priv = p;
	n->kernel = p->loop != NULL ? ew_kernel : copy_kernel;
	n->impl = GP_IMPL_C;
	gp_ops_set_out(g, n, 0, out, nd, shape);
	rc = 0;
done:
	if (dt != few)
		free(dt);
	return (rc);
}

enum gp_dtype
gp_elemwise_input_dtype(const struct gp_node *n, int k)
{
	const struct ew_plan *p = n->priv;

	if (p == NULL || k < 0 || k >= n->n_in)
		return (GP_DTYPE__COUNT);
	if (p->s->rule == GP_SCALAR_SECOND)
		return (k == 1 ? p->ct : GP_DTYPE__COUNT);
	return (k < 3 ? p->as[k] : p->ct);
}

enum gp_dtype
gp_elemwise_compute_dtype(const struct gp_node *n)
{
	const struct ew_plan *p = n->priv;

	return (p != NULL ? p->ct : GP_DTYPE__COUNT);
}

static double
ew_flops(const struct gp_graph *g, const struct gp_node *n)
{
	const struct gp_type *t = &g->vars[n->out[0]].type;
	const struct gp_scalar_op *s = n->op->scalar;
	int apps = s->nary ? n->n_in - 1 : 1;

	return ((double)gp_shape_numel(t->ndim, t->shape) * s->flops * apps);
}

static void
cast_format(const struct gp_graph *g, const struct gp_node *n,
    struct gp_buf *b)
{
	gp_buf_printf(b, "Elemwise{Cast{%s}}",
	    gp_dtype_name(g->vars[n->out[0]].type.dtype));
}

static const char *const sfx[GP_DTYPE__COUNT] = {
	[GP_BOOL] = "b",
	[GP_INT8] = "i8",
	[GP_INT16] = "i16",
	[GP_INT32] = "i32",
	[GP_INT64] = "i64",
	[GP_UINT8] = "u8",
	[GP_UINT16] = "u16",
	[GP_UINT32] = "u32",
	[GP_UINT64] = "u64",
	[GP_FLOAT32] = "f32",
	[GP_FLOAT64] = "f64",
};

void
gp_elemwise_c_expr(struct gp_buf *b, const struct gp_scalar_op *s,
    const char *const *args)
{
	const char *q = s->c_expr, *d;

	while ((d = strchr(q, '$')) != NULL) {
		gp_buf_printf(b, "%.*s%s", (int)(d - q), q, args[d[1] - '0']);
		q = d + 2;
	}
	gp_buf_puts(b, q);
}

void
gp_elemwise_c_convert(struct gp_buf *b, enum gp_dtype to, enum gp_dtype from,
    const char *expr)
{
	if (to == from)
		gp_buf_printf(b, "(%s)", expr);
	else if (to == GP_BOOL)
		gp_buf_printf(b, "((%s) != 0)", expr);
	else if (gp_dtype_is_int(to) && gp_dtype_is_float(from))
		gp_buf_printf(b, "gp_ew_f2%s((double)(%s))", sfx[to], expr);
	else
		gp_buf_printf(b, "((%s)(%s))", gp_dtype_table[to].ctype, expr);
}

/*
 * The ops.  Every one broadcasts its inputs (numpy rules) and may write its
 * output over an input of the output's type.
 */
#define EW_OP(id, nm, lo, hi, dc)					\
	{								\
		.name = nm,						\
		.cls = "Elemwise",					\
		.doc = dc "; broadcast; may overwrite an input of the "	\
		    "output's type",					\
		.min_in = lo,						\
		.max_in = hi,						\
		.n_out = 1,						\
		.flags = GP_OPF_ELEMWISE | GP_OPF_INPLACE_OK,		\
		.prepare = ew_prepare,					\
		.flops = ew_flops,					\
		.free_priv = free,					\
		.scalar = &scalars[EW_##id],				\
	}

static const struct gp_op op_add = EW_OP(add, "add", 2, -1,
    "add(x, y, ...): x + y + ..., left to right (bool: or); promoted");
static const struct gp_op op_sub = EW_OP(sub, "sub", 2, 2,
    "sub(x, y): x - y (not bool); promoted");
static const struct gp_op op_mul = EW_OP(mul, "mul", 2, -1,
    "mul(x, y, ...): x * y * ..., left to right (bool: and); promoted");
static const struct gp_op op_true_div = EW_OP(true_div, "true_div", 2, 2,
    "true_div(x, y): x / y; float (ints upgraded)");
static const struct gp_op op_int_div = EW_OP(int_div, "int_div", 2, 2,
    "int_div(x, y): floor(x / y), integer y = 0 gives 0; promoted");
static const struct gp_op op_mod = EW_OP(mod, "mod", 2, 2,
    "mod(x, y): x mod y with y's sign, integer y = 0 gives 0; promoted");
static const struct gp_op op_pow = EW_OP(pow, "pow", 2, 2,
    "pow(x, y): x ** y, integers wrap; promoted");
static const struct gp_op op_fmod = EW_OP(fmod, "fmod", 2, 2,
    "fmod(x, y): x - trunc(x / y) * y, x's sign (C's fmod), integer y = 0 "
    "gives 0; promoted");
static const struct gp_op op_lshift = EW_OP(lshift, "lshift", 2, 2,
    "lshift(x, y): x << y, integers only, 0 when y is out of range; "
    "promoted");
static const struct gp_op op_rshift = EW_OP(rshift, "rshift", 2, 2,
    "rshift(x, y): x >> y (arithmetic when signed), integers only; "
    "promoted");
static const struct gp_op op_neg = EW_OP(neg, "neg", 1, 1,
    "neg(x): -x (not bool); x's dtype");
static const struct gp_op op_abs = EW_OP(abs, "abs", 1, 1,
    "abs(x): |x|; x's dtype");
static const struct gp_op op_sqr = EW_OP(sqr, "sqr", 1, 1,
    "sqr(x): x * x; x's dtype");
static const struct gp_op op_sqrt = EW_OP(sqrt, "sqrt", 1, 1,
    "sqrt(x): square root; float (ints upgraded)");
static const struct gp_op op_exp = EW_OP(exp, "exp", 1, 1,
    "exp(x): e ** x; float (ints upgraded)");
static const struct gp_op op_log = EW_OP(log, "log", 1, 1,
    "log(x): natural logarithm; float (ints upgraded)");
static const struct gp_op op_log1p = EW_OP(log1p, "log1p", 1, 1,
    "log1p(x): log(1 + x); float (ints upgraded)");
static const struct gp_op op_expm1 = EW_OP(expm1, "expm1", 1, 1,
    "expm1(x): e ** x - 1; float (ints upgraded)");
static const struct gp_op op_sigmoid = EW_OP(sigmoid, "sigmoid", 1, 1,
    "sigmoid(x): 1 / (1 + e ** -x); float (ints upgraded)");
static const struct gp_op op_softplus = EW_OP(softplus, "softplus", 1, 1,
    "softplus(x): log(1 + e ** x), stable; float (ints upgraded)");
static const struct gp_op op_tanh = EW_OP(tanh, "tanh", 1, 1,
    "tanh(x): hyperbolic tangent; float (ints upgraded)");
static const struct gp_op op_sin = EW_OP(sin, "sin", 1, 1,
    "sin(x): sine; float (ints upgraded)");
static const struct gp_op op_cos = EW_OP(cos, "cos", 1, 1,
    "cos(x): cosine; float (ints upgraded)");
static const struct gp_op op_tan = EW_OP(tan, "tan", 1, 1,
    "tan(x): tangent; float (ints upgraded)");
static const struct gp_op op_asin = EW_OP(asin, "asin", 1, 1,
    "asin(x): arcsine, NaN outside [-1, 1]; float (ints upgraded)");
static const struct gp_op op_acos = EW_OP(acos, "acos", 1, 1,
    "acos(x): arccosine, NaN outside [-1, 1]; float (ints upgraded)");
static const struct gp_op op_atan = EW_OP(atan, "atan", 1, 1,
    "atan(x): arctangent; float (ints upgraded)");
static const struct gp_op op_sinh = EW_OP(sinh, "sinh", 1, 1,
    "sinh(x): hyperbolic sine; float (ints upgraded)");
static const struct gp_op op_cosh = EW_OP(cosh, "cosh", 1, 1,
    "cosh(x): hyperbolic cosine; float (ints upgraded)");
static const struct gp_op op_asinh = EW_OP(asinh, "asinh", 1, 1,
    "asinh(x): inverse hyperbolic sine; float (ints upgraded)");
static const struct gp_op op_acosh = EW_OP(acosh, "acosh", 1, 1,
    "acosh(x): inverse hyperbolic cosine, NaN below 1; float (ints "
    "upgraded)");
static const struct gp_op op_atanh = EW_OP(atanh, "atanh", 1, 1,
    "atanh(x): inverse hyperbolic tangent, NaN outside [-1, 1]; float "
    "(ints upgraded)");
static const struct gp_op op_erf = EW_OP(erf, "erf", 1, 1,
    "erf(x): the error function; float (ints upgraded)");
static const struct gp_op op_floor = EW_OP(floor, "floor", 1, 1,
    "floor(x): the largest integer <= x; float (ints upgraded)");
static const struct gp_op op_ceil = EW_OP(ceil, "ceil", 1, 1,
    "ceil(x): the smallest integer >= x; float (ints upgraded)");
static const struct gp_op op_round = EW_OP(round, "round", 1, 1,
    "round(x): the nearest integer, halves to even; float (ints "
    "upgraded)");
static const struct gp_op op_gelu = EW_OP(gelu, "gelu", 1, 1,
    "gelu(x): x * 0.5 * (1 + erf(x / sqrt(2))); float (ints upgraded)");
static const struct gp_op op_gelu_tanh = EW_OP(gelu_tanh, "gelu_tanh", 1, 1,
    "gelu_tanh(x): 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * "
    "x ** 3))); float (ints upgraded)");
static const struct gp_op op_mish = EW_OP(mish, "mish", 1, 1,
    "mish(x): x * tanh(softplus(x)); float (ints upgraded)");
static const struct gp_op op_celu = EW_OP(celu, "celu", 2, 2,
    "celu(x, alpha): x > 0 ? x : alpha * (e ** (x / alpha) - 1); float "
    "(ints upgraded)");
static const struct gp_op op_shrink = EW_OP(shrink, "shrink", 3, 3,
    "shrink(x, lambd, bias): x + bias where x < -lambd, x - bias where "
    "x > lambd, else 0; float (ints upgraded)");
static const struct gp_op op_isnan = EW_OP(isnan, "isnan", 1, 1,
    "isnan(x): x is NaN; bool");
static const struct gp_op op_isinf = EW_OP(isinf, "isinf", 1, 1,
    "isinf(x): x is +inf or -inf; bool");
static const struct gp_op op_maximum = EW_OP(maximum, "maximum", 2, 2,
    "maximum(x, y): the larger, NaN if either is; promoted");
static const struct gp_op op_minimum = EW_OP(minimum, "minimum", 2, 2,
    "minimum(x, y): the smaller, NaN if either is; promoted");
static const struct gp_op op_clip = EW_OP(clip, "clip", 3, 3,
    "clip(x, lo, hi): minimum(maximum(x, lo), hi); promoted");
static const struct gp_op op_gt = EW_OP(gt, "gt", 2, 2,
    "gt(x, y): x > y; bool");
static const struct gp_op op_ge = EW_OP(ge, "ge", 2, 2,
    "ge(x, y): x >= y; bool");
static const struct gp_op op_lt = EW_OP(lt, "lt", 2, 2,
    "lt(x, y): x < y; bool");
static const struct gp_op op_le = EW_OP(le, "le", 2, 2,
    "le(x, y): x <= y; bool");
static const struct gp_op op_eq = EW_OP(eq, "eq", 2, 2,
    "eq(x, y): x == y; bool");
static const struct gp_op op_neq = EW_OP(neq, "neq", 2, 2,
    "neq(x, y): x != y; bool");
static const struct gp_op op_and = EW_OP(and, "and", 2, 2,
    "and(x, y): logical on bool, bitwise on integers; promoted");
static const struct gp_op op_or = EW_OP(or, "or", 2, 2,
    "or(x, y): logical on bool, bitwise on integers; promoted");
static const struct gp_op op_not = EW_OP(not, "not", 1, 1,
    "not(x): logical on bool, bitwise on integers; x's dtype");
static const struct gp_op op_switch = EW_OP(switch, "switch", 3, 3,
    "switch(cond, a, b): a where cond != 0, else b; promoted a, b");
static const struct gp_op op_identity = EW_OP(identity, "identity", 1, 1,
    "identity(x): a copy of x");
static const struct gp_op op_fill = EW_OP(second, "fill", 2, 2,
    "fill(a, b): b in the shape of a and b; b's dtype");
static const struct gp_op op_second = EW_OP(second, "second", 2, 2,
    "second(a, b): fill under Theano's name; b's dtype");

static const char *const cast_params[] = {"dtype", NULL};

static const struct gp_op op_cast = {
	.name = "cast",
	.cls = "Elemwise",
	.doc = "cast(x; dtype): x converted (floats to integers clamp, NaN "
	    "gives 0); may overwrite x when of that dtype",
	.min_in = 1,
	.max_in = 1,
	.n_out = 1,
	.flags = GP_OPF_ELEMWISE | GP_OPF_INPLACE_OK,
	.params = cast_params,
	.prepare = ew_prepare,
	.flops = ew_flops,
	.format = cast_format,
	.free_priv = free,
	.scalar = &scalars[EW_cast],
};

const struct gp_op *const gp_ops_elemwise[] = {
	&op_add, &op_sub, &op_mul, &op_true_div, &op_int_div, &op_mod,
	&op_pow, &op_fmod, &op_lshift, &op_rshift, &op_neg, &op_abs, &op_sqr, &op_sqrt, &op_exp, &op_log,
	&op_log1p, &op_expm1, &op_sigmoid, &op_softplus, &op_tanh, &op_sin,
	&op_cos, &op_tan, &op_asin, &op_acos, &op_atan, &op_sinh, &op_cosh,
	&op_asinh, &op_acosh, &op_atanh, &op_erf, &op_floor, &op_ceil,
	&op_round, &op_gelu, &op_gelu_tanh, &op_mish, &op_celu, &op_shrink,
	&op_isnan, &op_isinf, &op_maximum, &op_minimum, &op_clip, &op_gt, &op_ge, &op_lt,
	&op_le, &op_eq, &op_neq, &op_and, &op_or, &op_not, &op_switch,
	&op_cast, &op_identity, &op_fill, &op_second,
	NULL,
};
