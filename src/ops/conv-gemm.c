/*
 * ops/conv-gemm.c: the float32 convolution as a blocked gemm (see
 * ops/conv-gemm.h).  y (m x n) = w (m x k) . col (k x n), where col is
 * the im2col matrix of the input (k = input channels x kernel taps, n =
 * output pixels), never built whole: each thread packs a block of at most
 * KC rows of col for a chunk of its output columns straight from the
 * input into its scratch, in slivers of NR columns (k-major: the NR
 * values of one row of col side by side), a block that stays in the L2
 * cache.  A 6 x 16 AVX2/FMA micro-kernel then multiplies rows of w, read
 * where they lie (one broadcast per row and k), by each sliver, with its
 * 12 accumulators in registers; on the last block of k it adds the bias
 * and clamps (a fused Relu or Clip) before it stores the tile.  The
 * threads share the output columns (or, for the few columns of a late
 * CNN layer, the rows of w) in one OpenMP loop (ops/par.h).
 *
 * Against im2col + cblas_sgemm: no k x n matrix written to memory and
 * read back (7 MB for a 3x3 conv of 64 channels at 56x56), no packing of
 * the weights, the bias pass done in registers, and the threads' shares
 * fixed by this file rather than by OpenBLAS's split of a skinny gemm
 * (it ran a 512 x 4608 x 49 product, resnet18's last convs, at 30 GFLOP/s
 * with 2 threads here).
 */
#include "config.h"

#include "ops/conv-gemm.h"
#include "ops/ops.h"
#include "ops/par.h"
#include "ops/scratch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define GP_CONV_GEMM_X86 1
#include <immintrin.h>
#endif

enum {
	MR = 6,			/* rows of w per micro-kernel call */
	NR = 16,		/* output columns per sliver */
	KC = 256,		/* most rows of col per block of k */
	CS = 8,			/* slivers per chunk of columns */
	RG = 4,			/* row tiles per group (rows mode) */
	PR = 32,		/* rows of col per packing job (rows mode) */
	ALIGN = 64,
};

/* Slivers in rows mode, at most (the line pack() builds). */
#define MAX_SLIVERS	16
/* The most bytes of col packed at once in rows mode. */
#define ROWS_MAX	((int64_t)8 << 20)

/* Blocks of k: as few as KC allows, of equal depth. */
static int64_t
depth(int64_t k, int64_t *nkb)
{
	*nkb = (k + KC - 1) / KC;
	return ((k + *nkb - 1) / *nkb);
}

/* Share the rows of w between the threads (all of col packed at once)
 * rather than the columns: when the columns are few (the 7x7 and 14x14
 * layers of a CNN: the slivers would not spread over the threads, the
 * last one mostly padding) and all of col is not too large. */
static bool
rows_mode(int64_t k, int64_t n, int64_t m)
{
	int64_t sl = (n + NR - 1) / NR;

	return (sl < MAX_SLIVERS && m >= 4 * MR && k * sl * NR * (int64_t)sizeof(float)
	    <= ROWS_MAX);
}

/* Bytes of one thread's packed chunk (a multiple of ALIGN). */
static size_t
chunk_bytes(int64_t k, int64_t n)
{
	int64_t nkb, kc = depth(k, &nkb), sl = (n + NR - 1) / NR;

	return ((size_t)(kc * (sl < CS ? sl : CS) * NR) * sizeof(float));
}

size_t
gp_conv_gemm_scratch(int64_t k, int64_t n, int64_t m)
{
	int64_t sl = (n + NR - 1) / NR;

	if (rows_mode(k, n, m))
		return ((size_t)(k * sl * NR) * sizeof(float) + ALIGN);
	return (chunk_bytes(k, n) * (size_t)gp_par_max_threads() + ALIGN);
}

#ifdef GP_CONV_GEMM_X86

bool
gp_conv_gemm_ok(void)
{
	__builtin_cpu_init();
	return (__builtin_cpu_supports("avx2") &&
	    __builtin_cpu_supports("fma"));
}

static int64_t
vol3(const int64_t *v)
{
	return (v[0] * v[1] * v[2]);
}

/* The outputs o in [*lo, *hi) whose tap o*s + off lies in [0, in). */
static void
taps(int64_t off, int64_t s, int64_t in, int64_t out, int64_t *lo,
    int64_t *hi)
{
	int64_t l = off >= 0 ? 0 : (-off + s - 1) / s;
	int64_t h = in - 1 - off < 0 ? 0 : (in - 1 - off) / s + 1;

	if (h > out)
		h = out;
	if (l > h)
		l = h;
	*lo = l;
	*hi = h;
}

/*
 * Rows [k0, k0 + kc) of col, columns [n0, n0 + nn), into ns slivers of
 * NR columns: row k0 + r of sliver j at buf + j * sst + r * NR (its NR
 * values side by side, so that a sliver is kc lines of 64 bytes one after
 * the other, which the L1 cache keeps while the kernel runs down the rows
 * of w); the columns past nn (past the end of the output) are zeros.  One
 * row is one tap of one input channel: a run of input rows, each copied
 * (stride 1) or gathered between the pads' zeros into line, then cut into
 * the slivers.
 */
__attribute__((target("avx2,fma"))) static void
pack(const float *x, const struct gp_win *w, int64_t k0, int64_t kc,
    int64_t n0, int64_t nn, int64_t ns, int64_t sst, float *buf)
{
	int64_t kvol = vol3(w->k), ivol = vol3(w->in);
	int64_t ohw = w->out[1] * w->out[2], s2 = w->s[2];
	float line[MAX_SLIVERS * NR] __attribute__((aligned(ALIGN)));

	memset(line + nn, 0, sizeof(float) * (size_t)(ns * NR - nn));
	for (int64_t r = 0; r < kc; r++) {
		int64_t k = k0 + r, c = k / kvol, t = k % kvol;
		int64_t kw = t % w->k[2], kh = t / w->k[2] % w->k[1];
		int64_t kd = t / w->k[2] / w->k[1];
		int64_t offw = kw * w->d[2] - w->pb[2], lo, hi;
		int64_t od = n0 / ohw, oh = n0 % ohw / w->out[2];
		int64_t ow = n0 % w->out[2], p = 0;
		const float *xc = x + c * ivol;

		taps(offw, s2, w->in[2], w->out[2], &lo, &hi);
		while (p < nn) {
			int64_t seg = w->out[2] - ow < nn - p ? w->out[2] - ow :
			    nn - p, e = ow + seg;
			int64_t id = od * w->s[0] - w->pb[0] + kd * w->d[0];
			int64_t ih = oh * w->s[1] - w->pb[1] + kh * w->d[1];
			int64_t a = lo > ow ? lo : ow, z = hi < e ? hi : e;
			float *d = line + p;

			if (id < 0 || id >= w->in[0] || ih < 0 ||
			    ih >= w->in[1] || a >= z) {
				memset(d, 0, sizeof(float) * (size_t)seg);
			} else {
				const float *xr = xc + (id * w->in[1] + ih) *
				    w->in[2];

				for (int64_t o = ow; o < a; o++)
					d[o - ow] = 0;
				if (s2 == 1)
					memcpy(d + (a - ow), xr + a + offw,
					    sizeof(float) * (size_t)(z - a));
				else if (s2 == 2) {
					/* a constant stride: vectorized */
					GP_SIMD
					for (int64_t o = a; o < z; o++)
						d[o - ow] = xr[2 * o + offw];
				} else
					for (int64_t o = a; o < z; o++)
						d[o - ow] = xr[o * s2 + offw];
				for (int64_t o = z; o < e; o++)
					d[o - ow] = 0;
			}
			p += seg;
			ow = 0;
			if (++oh == w->out[1]) {
				oh = 0;
				od++;
			}
		}
		for (int64_t j = 0; j < ns; j++) {
			float *dst = buf + j * sst + r * NR;

			_mm256_store_ps(dst, _mm256_load_ps(line + j * NR));
			_mm256_store_ps(dst + 8, _mm256_load_ps(line + j * NR +
			    8));
		}
	}
}

struct tile {
	const float	*a[MR];		/* rows of w at the block's k0 */
	const float	*b;		/* one sliver: kc lines of NR */
	float		*c;		/* the output tile, row stride ldc */
	int64_t		 kc, ldc;
	int		 mr, nr;	/* valid rows and columns */
	bool		 first, last;	/* block of k */
	const float	*bias;		/* the tile's rows' biases, or NULL */
	bool		 act;
	float		 lo, hi;
};

/* c (mr x nr) (+)= a (mr x kc) . b (kc x NR); on the last block of k,
 * + bias then the clamp.  Rows past mr compute a copy of row 0, unused. */
__attribute__((target("avx2,fma"))) static void
kernel(const struct tile *t)
{
	const float *a0 = t->a[0], *a1 = t->a[1], *a2 = t->a[2];
	const float *a3 = t->a[3], *a4 = t->a[4], *a5 = t->a[5], *b = t->b;
	__m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
	__m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
	__m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
	__m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
	__m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
	__m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
	__m256 acc[MR][2];
	float tmp[MR][NR];

	int64_t kc = t->kc;

	if (t->nr <= 8) {
		/* a last sliver of at most 8 columns: half the work */
		for (int64_t k = 0; k < kc; k++, b += NR) {
			__m256 b0 = _mm256_load_ps(b), av;

#define ROW(i)								\
			av = _mm256_broadcast_ss(a##i + k);		\
			c##i##0 = _mm256_fmadd_ps(av, b0, c##i##0);
			ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5)
#undef ROW
		}
	} else
	for (int64_t k = 0; k < kc; k++, b += NR) {
		__m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8), av;

#define ROW(i)								\
		av = _mm256_broadcast_ss(a##i + k);			\
		c##i##0 = _mm256_fmadd_ps(av, b0, c##i##0);		\
		c##i##1 = _mm256_fmadd_ps(av, b1, c##i##1);
		ROW(0) ROW(1) ROW(2) ROW(3) ROW(4) ROW(5)
#undef ROW
	}
	acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11;
	acc[2][0] = c20; acc[2][1] = c21; acc[3][0] = c30; acc[3][1] = c31;
	acc[4][0] = c40; acc[4][1] = c41; acc[5][0] = c50; acc[5][1] = c51;
	if (t->mr == MR && t->nr == NR) {
		for (int i = 0; i < MR; i++) {
			float *cr = t->c + i * t->ldc;
			__m256 v0 = acc[i][0], v1 = acc[i][1];

			if (!t->first) {
				v0 = _mm256_add_ps(v0, _mm256_loadu_ps(cr));
				v1 = _mm256_add_ps(v1, _mm256_loadu_ps(cr + 8));
			}
			if (t->last && t->bias != NULL) {
				__m256 bv = _mm256_set1_ps(t->bias[i]);

				v0 = _mm256_add_ps(v0, bv);
				v1 = _mm256_add_ps(v1, bv);
			}
			if (t->last && t->act) {
				/* max(lo, v) and min(hi, v) return v when it
				 * is NaN (the second operand): NaN stays */
				__m256 l = _mm256_set1_ps(t->lo);
				__m256 h = _mm256_set1_ps(t->hi);

				v0 = _mm256_min_ps(h, _mm256_max_ps(l, v0));
				v1 = _mm256_min_ps(h, _mm256_max_ps(l, v1));
			}
			_mm256_storeu_ps(cr, v0);
			_mm256_storeu_ps(cr + 8, v1);
		}
		return;
	}
	for (int i = 0; i < t->mr; i++) {
		float *cr = t->c + i * t->ldc;

		_mm256_storeu_ps(tmp[i], acc[i][0]);
		_mm256_storeu_ps(tmp[i] + 8, acc[i][1]);
		for (int j = 0; j < t->nr; j++) {
			float v = tmp[i][j];

			if (!t->first)
				v += cr[j];
			if (t->last && t->bias != NULL)
				v += t->bias[i];
			if (t->last && t->act)
				v = v < t->lo ? t->lo : v > t->hi ? t->hi : v;
			cr[j] = v;
		}
	}
}

/* Row tiles [r0, r1) of w (columns [k0, k0 + kl)) times the ns packed
 * slivers at blk (sliver stride sst) into y's columns [n0, n0 + nn). */
static void
tiles(const float *w, const float *blk, float *y, int64_t r0, int64_t r1,
    int64_t m, int64_t k, int64_t n, int64_t k0, int64_t kl, int64_t sst,
    int64_t n0, int64_t nn, int64_t ns, struct tile *t)
{
	t->kc = kl;
	t->ldc = n;
	for (int64_t r = r0; r < r1; r++) {
		int64_t i0 = r * MR;
		const float *bias = t->bias;

		t->mr = m - i0 < MR ? (int)(m - i0) : MR;
		for (int i = 0; i < MR; i++)
			t->a[i] = w + (i0 + (i < t->mr ? i : 0)) * k + k0;
		if (bias != NULL)
			t->bias = bias + i0;
		for (int64_t j = 0; j < ns; j++) {
			int64_t p = j * NR;

			t->nr = nn - p < NR ? (int)(nn - p) : NR;
			t->b = blk + j * sst;
			t->c = y + i0 * n + n0 + p;
			kernel(t);
		}
		t->bias = bias;
	}
}

/* The packing buffer, from the calling thread's scratch (all threads'
 * parts in one request: ops/scratch.h), aligned for the kernel. */
static float *
scratch(size_t bytes)
{
	char *raw = gp_scratch_get(GP_SCRATCH_COL, bytes);

	return ((float *)(void *)(raw + (ALIGN - (uintptr_t)raw % ALIGN) %
	    ALIGN));
}

/* The calling thread's number in the parallel region (0 outside). */
static int
thread_num(void)
{
#ifdef GP_HAVE_OPENMP
	return (omp_get_thread_num());
#else
	return (0);
#endif
}

void
gp_conv_gemm_f32(const float *x, const float *w, const float *b, float *y,
    const struct gp_win *win, int64_t cg, int64_t m, bool act, float lo,
    float hi)
{
	int64_t k = cg * vol3(win->k), n = vol3(win->out), nkb;
	int64_t kc = depth(k, &nkb), sl = (n + NR - 1) / NR;
	int64_t st = (m + MR - 1) / MR;
	struct tile t0 = {.bias = b, .act = act, .lo = lo, .hi = hi};
	float *all = scratch(gp_conv_gemm_scratch(k, n, m));
	size_t part = chunk_bytes(k, n) / sizeof(float);

	if (rows_mode(k, n, m)) {
		/* few columns: pack all of col once (the threads share the
		 * rows of k), then the threads take groups of RG row tiles */
		int64_t ng = (st + RG - 1) / RG;
		float *buf = all;

		GP_PAR_FOR(k * n)
		for (int64_t r0 = 0; r0 < k; r0 += PR)
			pack(x, win, r0, k - r0 < PR ? k - r0 : PR, 0, n, sl,
			    k * NR, buf + r0 * NR);
		GP_PAR_FOR_DYNAMIC(m * n * k)
		for (int64_t gi = 0; gi < ng; gi++) {
			int64_t r1 = (gi + 1) * RG < st ? (gi + 1) * RG : st;
			struct tile t = t0;

			for (int64_t kb = 0; kb < nkb; kb++) {
				int64_t k0 = kb * kc;

				t.first = kb == 0;
				t.last = kb == nkb - 1;
				tiles(w, buf + k0 * NR, y, gi * RG, r1, m, k,
				    n, k0, k - k0 < kc ? k - k0 : kc, k * NR, 0,
				    n, sl, &t);
			}
		}
		return;
	}
	/* the threads take chunks of CS slivers of columns: each packs its
	 * chunk block by block of k and multiplies all rows by it */
	GP_PAR_FOR_DYNAMIC(m * n * k)
	for (int64_t c0 = 0; c0 < sl; c0 += CS) {
		int64_t ns = sl - c0 < CS ? sl - c0 : CS, n0 = c0 * NR;
		int64_t nn = (c0 + ns) * NR > n ? n - n0 : ns * NR;
		float *buf = all + part * (size_t)thread_num();
		struct tile t = t0;

		for (int64_t kb = 0; kb < nkb; kb++) {
			int64_t k0 = kb * kc, kl = k - k0 < kc ? k - k0 : kc;

			t.first = kb == 0;
			t.last = kb == nkb - 1;
			pack(x, win, k0, kl, n0, nn, ns, kl * NR, buf);
			tiles(w, buf, y, 0, st, m, k, n, k0, kl, kl * NR, n0,
			    nn, ns, &t);
		}
	}
}

#else

bool
gp_conv_gemm_ok(void)
{
	return (false);
}

void
gp_conv_gemm_f32(const float *x, const float *w, const float *b, float *y,
    const struct gp_win *win, int64_t cg, int64_t m, bool act, float lo,
    float hi)
{
	(void)x, (void)w, (void)b, (void)y, (void)win, (void)cg, (void)m;
	(void)act, (void)lo, (void)hi;
	abort();
}

#endif
