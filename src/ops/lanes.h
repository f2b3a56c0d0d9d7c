/*
 * ops/lanes.h: the first n lanes of an AVX2 vector of floats, read or
 * written without touching the memory past them: the partial tiles and
 * row ends of the float32 kernels (ops/conv-gemm.c, ops/conv-wino.c,
 * ops/conv-dw.c, ops/pool.c).  A load masks the lanes past n (a masked
 * load does not fault there); a store is cut into pieces of 4, 2 and 1
 * lanes (masked stores are microcoded and slow on AMD's cores).  x86-64
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

#endif
