/*
 * ops/lanes.h: the first n lanes of an AVX2 vector of floats, read or
 * written without touching the memory past them: the partial tiles and
 * row ends of the float32 kernels (ops/conv-gemm.c, ops/conv-wino.c,
 * ops/conv-dw.c, ops/pool.c).  A load masks the lanes past n (a masked
 * load does not fault there); a store is cut into pieces of 4, 2 and 1
 * lanes (masked stores are microcoded and slow on AMD's cores); and an
 * 8 x 8 block of floats transposed in registers.  x86-64
 * with GCC only; callers compiled for AVX2.
 */
#ifndef GPTOP_SRC_OPS_LANES_H
#define GPTOP_SRC_OPS_LANES_H

#include <immintrin.h>

/* p[0 .. n) (n 0 to 8), zeros in the lanes above. */
__attribute__((target("avx2"))) static inline __m256
gp_lanes_load(const float *p, int n)
{
	if (n == 8)
		return (_mm256_loadu_ps(p));
	return (_mm256_maskload_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32(n),
	    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))));
}

/* Lanes [0, n) of v to p (n 0 to 8); p[n ..] untouched. */
__attribute__((target("avx2"))) static inline void
gp_lanes_store(float *p, __m256 v, int n)
{
	__m128 x = _mm256_castps256_ps128(v);

	if (n == 8) {
		_mm256_storeu_ps(p, v);
		return;
	}
	if (n & 4) {
		_mm_storeu_ps(p, x);
		x = _mm256_extractf128_ps(v, 1);
		p += 4;
	}
	if (n & 2) {
		_mm_storel_pi((__m64 *)(void *)p, x);
		x = _mm_movehl_ps(x, x);
		p += 2;
	}
	if (n & 1)
		_mm_store_ss(p, x);
}

/* r[0 .. 8) (rows of an 8 x 8 block) transposed in place. */
__attribute__((target("avx2"), always_inline)) static inline void
gp_transpose8(__m256 r[8])
{
	__m256 t0 = _mm256_unpacklo_ps(r[0], r[1]);
	__m256 t1 = _mm256_unpackhi_ps(r[0], r[1]);
	__m256 t2 = _mm256_unpacklo_ps(r[2], r[3]);
	__m256 t3 = _mm256_unpackhi_ps(r[2], r[3]);
	__m256 t4 = _mm256_unpacklo_ps(r[4], r[5]);
	__m256 t5 = _mm256_unpackhi_ps(r[4], r[5]);
	__m256 t6 = _mm256_unpacklo_ps(r[6], r[7]);
	__m256 t7 = _mm256_unpackhi_ps(r[6], r[7]);
	__m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44);
	__m256 u1 = _mm256_shuffle_ps(t0, t2, 0xee);
	__m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44);
	__m256 u3 = _mm256_shuffle_ps(t1, t3, 0xee);
	__m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44);
	__m256 u5 = _mm256_shuffle_ps(t4, t6, 0xee);
	__m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44);
	__m256 u7 = _mm256_shuffle_ps(t5, t7, 0xee);

	r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
	r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
	r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
	r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
	r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
	r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
	r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
	r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

#endif
