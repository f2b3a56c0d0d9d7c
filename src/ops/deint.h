/*
 * ops/deint.h: the even and odd values of 16 consecutive floats, each in
 * order in one AVX2 vector: a shuffle within the 128-bit lanes, then a
 * permute of the 64-bit quarters ([l0 l2 h0 h2 | l4 l6 h4 h6] to [l0 l2
 * l4 l6 h0 h2 h4 h6]).  The stride-2 kernels read their taps so: the
 * Winograd input transform (ops/conv-wino.c), max_pool 3x3/2
 * (ops/pool.c), the conv gemm's packing and padded copy (ops/conv-gemm.c's
 * gather2).  (The depthwise conv of stride 2, ops/conv-dw.c, does
 * the shuffle alone and one permute of its sums.)  x86-64
 * with GCC only; callers compiled for AVX2.
 */
#ifndef GPTOP_SRC_OPS_DEINT_H
#define GPTOP_SRC_OPS_DEINT_H

#include <immintrin.h>

/* l[0], l[2], .., l[6], h[0], .., h[6] */
__attribute__((target("avx2"))) static inline __m256
gp_deint_even(__m256 l, __m256 h)
{
	return (_mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(
	    _mm256_shuffle_ps(l, h, 0x88)), 0xd8)));
}

/* l[1], l[3], .., l[7], h[1], .., h[7] */
__attribute__((target("avx2"))) static inline __m256
gp_deint_odd(__m256 l, __m256 h)
{
	return (_mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(
	    _mm256_shuffle_ps(l, h, 0xdd)), 0xd8)));
}

#endif
