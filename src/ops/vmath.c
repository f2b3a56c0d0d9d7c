/*
 * ops/vmath.c: float32 tanh and exp over arrays with AVX2 and FMA (see
 * vmath.h), chosen at run time (__builtin_cpu_supports), 8 lanes at a
 * time.  tanh first, exp below it.
 *
 * tanh |x| = e / (e + 2) with e = expm1(2 |x|), the sign copied back, as
 * the scalar helper computes it (ops/elemwise.c), but expm1 is computed
 * here in float32: y = 2 |x| clamped to 20 (tanh is 1 in float32 from
 * |x| = 9.01), y = n ln2 + r with n = round(y / ln2) and |r| <= ln2 / 2
 * (one FMA with ln2 rounded to float32: r is exact for n = 0, and the
 * error of n ln2 for n >= 1 is damped by the division, whose result is
 * then above 0.3), expm1(r) by its Taylor polynomial to degree 7
 * (Horner, FMA), 2^n built in the exponent bits, e = 2^n expm1(r) + (2^n
 * - 1).  Measured against long double's tanhl over all 2^32 float32
 * inputs: within 2.42 ulp (worst near |x| = 0.0078, where n is 0 and the
 * polynomial's rounding errors add to the division's); +-0, +-inf (+-1)
 * and NaN exact.  0.44-0.6 ns an element on one core of this project's
 * machine, against 1.2 ns for libmvec's tanhf and 1.3-1.5 ns for the
 * expm1f form it replaces (bench/README.md, "mlp").
 *
 * The last partial vector goes through a zero-padded copy, so every
 * length takes the same arithmetic (a call of 3 elements gives what a
 * call of 3000 gives for them) and out may alias in.
 */
#include "config.h"

#include "ops/vmath.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define VM_X86 1
#include <immintrin.h>
#endif

#ifdef VM_X86
#define VM_TARGET	__attribute__((target("avx2,fma")))

/* expm1(r) for |r| <= ln2 / 2: its Taylor polynomial to degree 7
 * (Horner, FMA). */
static inline VM_TARGET __m256
vm_expm1_poly8(__m256 r)
{
	__m256 p = _mm256_set1_ps(1.0f / 5040);

	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
	p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
	return (_mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r));
}

/* 2^n from t = n + 1.5 * 2^23 (n in t's low mantissa bits): the bias
 * added, shifted into the exponent. */
static inline VM_TARGET __m256
vm_pow2n8(__m256 t)
{
	return (_mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(
	    _mm256_castps_si256(t), _mm256_set1_epi32(127)), 23)));
}

static inline VM_TARGET __m256
vm_tanh8(__m256 x)
{
	const __m256 sgn = _mm256_set1_ps(-0.0f);
	const __m256 shift = _mm256_set1_ps(0x1.8p23f);
	__m256 ax = _mm256_andnot_ps(sgn, x), y, t, n, r, s, p, e;

	/* vminps returns its second operand when one is NaN: NaN stays */
	y = _mm256_min_ps(_mm256_set1_ps(20.0f), _mm256_add_ps(ax, ax));
	t = _mm256_fmadd_ps(y, _mm256_set1_ps(0x1.715476p0f), shift);
	n = _mm256_sub_ps(t, shift);
	r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0x1.62e43p-1f), y);
	s = vm_pow2n8(t);
	p = vm_expm1_poly8(r);
	e = _mm256_fmadd_ps(s, p, _mm256_sub_ps(s, _mm256_set1_ps(1)));
	t = _mm256_div_ps(e, _mm256_add_ps(e, _mm256_set1_ps(2)));
	return (_mm256_or_ps(t, _mm256_and_ps(x, sgn)));
}

/* o[i] = f(a[i]), 8 at a time, the last partial vector through a
 * zero-padded copy (f inlined into each caller below). */
static inline __attribute__((always_inline)) VM_TARGET void
vm_loop(float *o, const float *a, size_t n, __m256 (*f)(__m256))
{
	float t[8];
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		_mm256_storeu_ps(o + i, f(_mm256_loadu_ps(a + i)));
	if (i < n) {
		memset(t, 0, sizeof(t));
		memcpy(t, a + i, (n - i) * sizeof(*t));
		_mm256_storeu_ps(t, f(_mm256_loadu_ps(t)));
		memcpy(o + i, t, (n - i) * sizeof(*t));
	}
}

static VM_TARGET void
vm_tanh_f32(float *o, const float *a, size_t n)
{
	vm_loop(o, a, n, vm_tanh8);
}

/*
 * exp: x = n ln2 + r with n = round(x / ln2) (|r| <= ln2 / 2, r from two
 * FMAs with ln2 split in a high part of 14 bits, exact times n, and the
 * rest), e^r = 1 + expm1(r) by its Taylor polynomial to degree 7
 * (Horner, FMA), times 2^n built in the exponent bits.  That covers the
 * normal results, |x| <= 87; a vector with a lane beyond, or a NaN,
 * takes libm's expf for those lanes (overflow to inf, the subnormals,
 * 0).  Measured against long double's expl over all 2^32 float32 inputs:
 * within 1.059 ulp (548 inputs above 1 ulp), 0, +-inf and NaN exact
 * (test-elemwise checks 65536 bit patterns and a sweep); 0.8-0.85 of
 * the time of libmvec's loop in a softmax.
 */
static inline VM_TARGET __m256
vm_exp8(__m256 x)
{
	const __m256 shift = _mm256_set1_ps(0x1.8p23f);
	__m256 t, n, r, p, s, y, bad;

	t = _mm256_fmadd_ps(x, _mm256_set1_ps(0x1.715476p0f), shift);
	n = _mm256_sub_ps(t, shift);
	r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0x1.62e4p-1f), x);
	r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0x1.7f7d1cp-20f), r);
	s = vm_pow2n8(t);
	p = vm_expm1_poly8(r);
	y = _mm256_fmadd_ps(s, p, s);
	/* |x| > 87 or NaN (unordered: true) */
	bad = _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x),
	    _mm256_set1_ps(87.0f), _CMP_NLE_UQ);
	if (__builtin_expect(_mm256_movemask_ps(bad) != 0, 0)) {
		float xv[8], yv[8];
		int m = _mm256_movemask_ps(bad);

		_mm256_storeu_ps(xv, x);
		_mm256_storeu_ps(yv, y);
		for (int i = 0; i < 8; i++)
			if (m >> i & 1)
				yv[i] = expf(xv[i]);
		y = _mm256_loadu_ps(yv);
	}
	return (y);
}

static VM_TARGET void
vm_exp_f32(float *o, const float *a, size_t n)
{
	vm_loop(o, a, n, vm_exp8);
}

gp_vmath_fn
gp_vmath_exp_f32(void)
{
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return (vm_exp_f32);
	return (NULL);
}
#else
gp_vmath_fn
gp_vmath_exp_f32(void)
{
	return (NULL);
}
#endif

gp_vmath_fn
gp_vmath_tanh_f32(void)
{
#ifdef VM_X86
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return (vm_tanh_f32);
#endif
	return (NULL);
}
