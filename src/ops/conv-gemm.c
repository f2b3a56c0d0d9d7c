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
 * With strides 1 (and in a pointwise conv, but for flat_packs' few) the
 * kernel reads B where it lies instead (the direct path, conv_direct
 * below): row (c, kh, kw) of col is, along an output row, a run of the
 * input zero-padded once per call (a pointwise conv: of x itself), at an
 * offset from a table; no packing, which cost about a fifth of the time
 * at 64 output channels.
 * With strides 2 and a large kernel (7x7) too: the padded copy is then
 * split into its even and odd columns, so that the taps of consecutive
 * outputs are consecutive again.
 *
 * The same micro-kernel multiplies the gemm op's X by weights packed
 * once (gp_conv_gemm_mm_f32: the gemm_pack rewrite), the threads taking
 * slivers of 16 columns; and, transposed, a pointwise conv's pixels by
 * its weights packed once (gp_conv_gemm_pwt_f32).
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

#include "ops/deint.h"
#include "ops/lanes.h"
#endif

enum {
	MR = 6,			/* rows of w per micro-kernel call */
	NR = 16,		/* output columns per sliver */
	KC = 640,		/* most rows of col per block of k: one
				 * block up to 640, where the tiles' rows
				 * are stored once (squeezenet's 3x3 convs
				 * of 32 and 48 channels, k 288 and 432:
				 * 0.87-0.95 of the time with 256) */
	KC_FLAT = 256,		/* the same for a pointwise conv's direct
				 * path, whose rows of B (x's planes) do not
				 * share lines as a 3x3's taps do (squeezenet's
				 * 1x1 convs of 384 and 512 channels:
				 * 0.96-0.99 of the time with 640) */
	KC_ROWS = 576,		/* the same in rows mode, where all of col
				 * is packed: fewer passes over the output
				 * tiles (resnet18's 512 x 4608 x 49: 0.95
				 * of the time with 256, bench-conv) */
	CS = 8,			/* slivers per chunk of columns */
	TAIL = 4,		/* a last sliver of at most TAIL columns
				 * goes through kernel_tail */
	KC_MAX = 640,		/* the deepest block of k (KC, KC_FLAT and
				 * KC_ROWS) */
	RG = 4,			/* row tiles per group (rows mode) */
	PR = 32,		/* rows of col per packing job (rows mode) */
	ALIGN = 64,
};

_Static_assert(KC <= KC_MAX && KC_FLAT <= KC_MAX && KC_ROWS <= KC_MAX,
    "KC_MAX bounds every block of k");

/* One parallel region holding two loops (the input's copy or packing,
 * then the multiply, after the first's barrier): one wake-up of the
 * sleeping threads per call rather than two (ops/par.h). */
#ifdef GP_HAVE_OPENMP
#define REGION(work)						\
	GP_PAR_PRAGMA(omp parallel if ((work) >= GP_PAR_MIN))
#define IN_FOR		GP_PAR_PRAGMA(omp for schedule(static))
#define IN_FOR_DYNAMIC	GP_PAR_PRAGMA(omp for schedule(dynamic, 1))
#else
#define REGION(work)
#define IN_FOR
#define IN_FOR_DYNAMIC
#endif

/* Slivers in rows mode, at most (the line pack() builds). */
#define MAX_SLIVERS	16
/* The most bytes of col packed at once in rows mode. */
#define ROWS_MAX	((int64_t)8 << 20)

/* Blocks of k: as few as kmax allows, of equal depth. */
static int64_t
depth_of(int64_t k, int64_t kmax, int64_t *nkb)
{
	*nkb = (k + kmax - 1) / kmax;
	return ((k + *nkb - 1) / *nkb);
}

static int64_t
depth(int64_t k, int64_t *nkb)
{
	return (depth_of(k, KC, nkb));
}

/* Few enough columns (output pixels) that all of col, packed at once,
 * is not too large, and the slivers would not spread over the threads. */
static bool
few_columns(int64_t k, int64_t n)
{
	int64_t sl = (n + NR - 1) / NR;

	return (sl < MAX_SLIVERS && k * sl * NR * (int64_t)sizeof(float) <=
	    ROWS_MAX);
}


static int64_t
vol3(const int64_t *v)
{
	return (v[0] * v[1] * v[2]);
}

/* The direct path's padded rows, cut into their stride's phases (stride
 * 2: the even columns, then the odd): the values of a row of one phase. */
static int64_t
phase_len(const struct gp_win *w)
{
	return ((w->in[2] + w->pb[2] + w->pe[2] + w->s[2] - 1) / w->s[2]);
}

/* A pointwise conv (1x1, strides 1, no pads): row c of col is x's plane
 * c as it lies, the output's rows one run of columns. */
static bool
flat(const struct gp_win *w)
{
	for (int i = 0; i < GP_WIN_DIMS; i++)
		if (w->k[i] != 1 || w->s[i] != 1 || w->pb[i] != 0 ||
		    w->pe[i] != 0 || w->in[i] != w->out[i])
			return (false);
	return (true);
}

/* A pointwise conv packed all the same: when its planes are not a
 * multiple of 16 values, the direct path's rows of B (x's planes) start
 * at every offset in a cache line, and each of its 16-column loads
 * straddles two lines; with enough rows of w to share the packing (m >=
 * 32) and a deep enough k (k >= 128) the packed chunks win (bench-conv,
 * 2 threads: SqueezeNet's 384 -> 64 at 27x27 0.85-0.88 of the time, 128
 * -> 128 at 54x54 0.92-0.94; 384 -> 64 at 28x28, aligned, runs 0.83 of
 * the 27x27's time direct.  With the micro-kernel's epilogue and
 * inlining of 8c5a161: 256 -> 48 at 27x27 0.95, 128 -> 32 at 54x54 0.98,
 * 256 -> 32 and 384 -> 48 at 27x27 1.0; squeezenet1_0 0.993-0.995 with m
 * >= 32 against m >= 64, three runs of 200 pairs.  Packing lost with k
 * 64 or less, 64 -> 256 and 48 -> 192 at 27x27 1.13-1.2, and with m 16,
 * 128 -> 16 at 54x54 1.18). */
static bool
flat_packs(int64_t k, int64_t n, int64_t m)
{
	return (n % NR != 0 && m >= 32 && k >= 128);
}

/* Could B be read where it lies (the direct path) rather than packed: a
 * pointwise conv (unless flat_packs), or a 1-D or 2-D conv of strides 1
 * (any kernel, pads and dilation) or 2 (a kernel of 16 taps or more, or
 * at most 32 rows of w), when its tiles (which follow the output rows: 16
 * columns, then 8 or 16 for the rest of the row) waste less than packing
 * would cost: packing costs about as much as 8 rows of w's multiply per
 * packed value (measured: 20% of the time at m = 64), so the direct path
 * is taken when at most 8 / m of its columns are waste (56 or 55 columns:
 * 0 or 2%; 28 at m = 128: 12.5%, packed). */
static bool
direct_fits(const struct gp_win *w, int64_t k, int64_t m)
{
	int64_t n = vol3(w->out), ow = w->out[2], rem = ow % NR;
	int64_t span = ow - rem + (rem == 0 ? 0 : rem <= 8 ? 8 : NR);

	if (flat(w))
		return (!flat_packs(k, n, m));
	if (w->k[0] != 1 || w->in[0] != 1 || w->pb[0] != 0 || w->pe[0] != 0)
		return (false);
	/* stride 2 where each input value is read by 4 taps or more (7x7:
	 * 0.86-0.94 of the packed path's time; 3x3: 1.0-1.07), or with few
	 * rows of w to share the packing (bench-conv, one thread: MobileNet's
	 * 3x3/2 stem, 3 -> 32, 0.83 of the time; 55 groups of 8 channels at
	 * 14x14, 0.87) */
	if (w->s[1] != w->s[2] || w->s[1] > 2 || (w->s[1] == 2 &&
	    w->k[1] * w->k[2] < 16 && m > 32))
		return (false);
	for (int i = 1; i < GP_WIN_DIMS; i++)
		if (w->pb[i] < 0 || w->pe[i] < 0)
			return (false);
	return ((span - ow) * m <= 8 * span);
}

/* Share the rows of w between the threads (all of col packed at once)
 * rather than the columns: when the columns are few (the 7x7 and 14x14
 * layers of a CNN: the slivers would not spread over the threads, the
 * last one mostly padding), all of col is not too large, and enough rows
 * of w share its packing (24 or more); with fewer than 96 the direct path
 * wins where it fits (bench-conv, 2 threads: DenseNet's 3x3 128 -> 32 at
 * 14x14 0.207 -> 0.112 ms, at 7x7 0.077 -> 0.047; 96 -> 48 0.75, 128 ->
 * 64 0.71-0.90, 64 -> 24 0.5; but 256 -> 96 at 7x7 1.7-1.9 times rows
 * mode's). */
static bool
rows_mode(const struct gp_win *w, int64_t k, int64_t m)
{
	return (few_columns(k, vol3(w->out)) && m >= 4 * MR && (m >= 16 *
	    MR || !direct_fits(w, k, m)));
}

/* The direct path: where it fits, unless in rows mode (which, where the
 * direct path fits, is taken from 96 rows). */
static bool
direct(const struct gp_win *w, int64_t k, int64_t m)
{
	return (direct_fits(w, k, m) && !(few_columns(k, vol3(w->out)) &&
	    m >= 16 * MR));
}

/* A pointwise conv of few columns and 24 rows or more runs faster as
 * ops/conv-pw.c's blocks of OpenBLAS gemms (and a one-pixel conv as its
 * gemv). */
bool
gp_conv_gemm_pointwise(const struct gp_win *win, int64_t cg, int64_t m)
{
	return (!few_columns(cg * vol3(win->k), vol3(win->out)) || m < 4 *
	    MR);
}

/* The transposed kernel pays for a pointwise conv that would go to
 * conv-pw.c, of 2 pixels or more and at least as many output channels as
 * pixels (bench-conv, two threads: 320 -> 1280 and 192 -> 1152 at 7x7 0.9
 * and 0.92 of the time, 96 -> 576 at 14x14 0.94, 64 -> 256 at 13x13 0.8;
 * 384 -> 64 at 14x14 1.26; one pixel 2-3x; in models, where W comes cold
 * from memory, more: mnasnet 0.94, mobilenet_v2 0.96). */
bool
gp_conv_gemm_pwt_pays(const struct gp_win *win, int64_t k, int64_t m)
{
	int64_t n = vol3(win->out);

	return (gp_conv_gemm_ok() && !gp_conv_gemm_pointwise(win, k, m) &&
	    n >= 2 && m >= n);
}

/* Bytes of one thread's packed chunk (a multiple of ALIGN). */
static size_t
chunk_bytes(int64_t k, int64_t n)
{
	int64_t nkb, kc = depth(k, &nkb), sl = (n + NR - 1) / NR;

	return ((size_t)(kc * (sl < CS ? sl : CS) * NR) * sizeof(float));
}

size_t
gp_conv_gemm_scratch(const struct gp_win *win, int64_t cg, int64_t m)
{
	int64_t k = cg * vol3(win->k), n = vol3(win->out);
	int64_t sl = (n + NR - 1) / NR;

	if (direct(win, k, m)) {
		/* the offsets of B's rows, then (at the next multiple of
		 * ALIGN) the padded input and NR values past its end (the
		 * last runs' loads), plus the alignment of the start */
		size_t bytes = ((size_t)k * sizeof(int64_t) + ALIGN - 1) /
		    ALIGN * ALIGN + ALIGN;

		if (!flat(win))
			bytes += (size_t)(win->s[2] * cg * (win->in[1] +
			    win->pb[1] + win->pe[1]) * phase_len(win) + NR) *
			    sizeof(float);
		return (bytes);
	}
	if (rows_mode(win, k, m))
		return ((size_t)(k * sl * NR) * sizeof(float) + ALIGN);
	return (chunk_bytes(k, n) * (size_t)gp_par_max_threads() + ALIGN);
}

/*
 * From 4M multiply-adds (the MLP's 128 x 784 x 512 and 128 x 512 x 512:
 * 0.92-0.93 of the model's time, bench-ab), and for at most 16 columns
 * (one sliver, its rows over the threads: with the MLP's 128 x 512 x 10
 * packed too, rather than OpenBLAS's one-thread gemm_narrow, 0.90-0.915
 * of the model's time); otherwise the gemm stays OpenBLAS's: the
 * transformer's 32 x 128 x 128 out-projection took 1.02-1.03 of the time
 * packed (a short parallel region among OpenBLAS's gemms, or one thread).
 */
bool
gp_conv_gemm_mm_pays(int64_t m, int64_t n, int64_t k)
{
	return (m >= 2 && (m * n * k >= ((int64_t)4 << 20) || n <= NR));
}

int64_t
gp_conv_gemm_pack_len(int64_t k, int64_t n)
{
	return ((n + NR - 1) / NR * NR * k);
}

void
gp_conv_gemm_pack(const float *b, int64_t rs, int64_t cs, int64_t k,
    int64_t n, float *p)
{
	for (int64_t j = 0; j < (n + NR - 1) / NR; j++)
		for (int64_t r = 0; r < k; r++)
			for (int64_t q = 0; q < NR; q++) {
				int64_t c = j * NR + q;

				p[(j * k + r) * NR + q] = c < n ? b[r * rs +
				    c * cs] : 0;
			}
}

bool
gp_conv_gemm_packed_ok(const struct gp_tensor *p)
{
	if (!gp_tensor_is_contiguous(p))
		return (false);
	if (p->storage == NULL)
		return (p->offset % 32 == 0);
	return ((uintptr_t)gp_tensor_data(p) % 32 == 0);
}

#ifdef GP_CONV_GEMM_X86

bool
gp_conv_gemm_ok(void)
{
	__builtin_cpu_init();
	return (__builtin_cpu_supports("avx2") &&
	    __builtin_cpu_supports("fma"));
}

/* The outputs o in [*lo, *hi) whose tap o*s + off lies in [0, in). */
static void
taps(int64_t off, int64_t s, int64_t in, int64_t out, int64_t *lo,
    int64_t *hi)
{
	int64_t l, h;

	if (s == 1) {
		/* no division for the common stride */
		l = off >= 0 ? 0 : -off;
		h = in - off < 0 ? 0 : in - off;
	} else {
		l = off >= 0 ? 0 : (-off + s - 1) / s;
		h = in - 1 - off < 0 ? 0 : (in - 1 - off) / s + 1;
	}

	if (h > out)
		h = out;
	if (l > h)
		l = h;
	*lo = l;
	*hi = h;
}

/* d[o] = x[2 o] for o in [0, n): 8 at a time, the even values of 16
 * consecutive (ops/deint.h), reading no further than x[2 n - 2]: a
 * stride-2 conv's packing and padded copy (against GCC's vectorization
 * of the plain loop and a test per value: bench-conv, one thread,
 * MobileNet's 3x3/2 stem 0.97 of the time, resnet18's 7x7/2 stem and
 * 3x3/2 64 -> 128 0.98). */
__attribute__((target("avx2"), always_inline)) static inline void
gather2(float *restrict d, const float *restrict x, int64_t n)
{
	int64_t o = 0;

	for (; o + 9 <= n; o += 8)
		_mm256_storeu_ps(d + o, gp_deint_even(_mm256_loadu_ps(x + 2 *
		    o), _mm256_loadu_ps(x + 2 * o + 8)));
	for (; o < n; o++)
		d[o] = x[2 * o];
}

/* A run of the columns a pack covers: columns [p, p + len) of the
 * block are the outputs (od, oh, ow .. ow + len - 1), one output row. */
struct run {
	int64_t	p, od, oh, ow, len;
};

/* Cut columns [n0, n0 + nn) into runs along the output rows (at most
 * nn / out[2] + 2 of them); the only divisions of the packing. */
static int64_t
runs(const struct gp_win *w, int64_t n0, int64_t nn, struct run *r)
{
	int64_t ohw = w->out[1] * w->out[2], od = n0 / ohw;
	int64_t oh = n0 % ohw / w->out[2], ow = n0 % w->out[2], nr = 0;

	for (int64_t p = 0; p < nn; nr++) {
		int64_t seg = w->out[2] - ow < nn - p ? w->out[2] - ow : nn - p;

		r[nr] = (struct run){p, od, oh, ow, seg};
		p += seg;
		ow = 0;
		if (++oh == w->out[1]) {
			oh = 0;
			od++;
		}
	}
	return (nr);
}

/*
 * Rows [k0, k0 + kc) of col, the block's columns (nrun runs, nn columns)
 * into ns slivers of NR columns: row k0 + r of sliver j at buf + j * sst
 * + r * NR (its NR values side by side, so that a sliver is kc lines of
 * 64 bytes one after the other, which the L1 cache keeps while the kernel
 * runs down the rows of w); the columns past nn (past the end of the
 * output) are zeros.  One row is one tap (kd, kh, kw) of one input
 * channel c, counted up from k0's without a division: each run is a piece
 * of one input row, copied (stride 1) or gathered between the pads' zeros
 * into line (in L1), then cut into the slivers.  A pointwise conv's row
 * (contiguous in x) goes straight into the slivers.
 */
__attribute__((target("avx2,fma"))) static void
pack(const float *x, const struct gp_win *w, const struct run *rn,
    int64_t nrun, int64_t k0, int64_t kc, int64_t nn, int64_t ns,
    int64_t sst, float *buf)
{
	int64_t kvol = vol3(w->k), ivol = vol3(w->in), s2 = w->s[2];
	int64_t c = k0 / kvol, t = k0 % kvol, kw = t % w->k[2];
	int64_t kh = t / w->k[2] % w->k[1], kd = t / w->k[2] / w->k[1];
	bool flat = kvol == 1 && vol3(w->s) == 1 && w->pb[0] == 0 &&
	    w->pb[1] == 0 && w->pb[2] == 0 && w->in[1] == w->out[1] &&
	    w->in[2] == w->out[2] && w->in[0] == w->out[0];
	float line[MAX_SLIVERS * NR] __attribute__((aligned(ALIGN)));

	if (flat) {
		/* pointwise: row c of col is x's plane c, columns from n0 */
		int64_t full = nn / NR, n0 = rn[0].od * w->out[1] *
		    w->out[2] + rn[0].oh * w->out[2] + rn[0].ow;

		for (int64_t r = 0; r < kc; r++) {
			const float *src = x + (c + r) * ivol + n0;
			float *dst = buf + r * NR;

			for (int64_t j = 0; j < full; j++, dst += sst) {
				_mm256_store_ps(dst, _mm256_loadu_ps(src +
				    j * NR));
				_mm256_store_ps(dst + 8, _mm256_loadu_ps(src +
				    j * NR + 8));
			}
			if (full < ns) {
				for (int64_t q = 0; q < NR; q++)
					dst[q] = full * NR + q < nn ?
					    src[full * NR + q] : 0;
			}
		}
		return;
	}
	memset(line + nn, 0, sizeof(float) * (size_t)(ns * NR - nn));
	for (int64_t r = 0; r < kc; r++) {
		int64_t offw = kw * w->d[2] - w->pb[2], lo, hi;
		int64_t offh = kh * w->d[1] - w->pb[1];
		int64_t offd = kd * w->d[0] - w->pb[0];
		const float *xc = x + c * ivol;

		taps(offw, s2, w->in[2], w->out[2], &lo, &hi);
		for (int64_t i = 0; i < nrun; i++) {
			const struct run *u = &rn[i];
			int64_t ow = u->ow, e = ow + u->len;
			int64_t id = u->od * w->s[0] + offd;
			int64_t ih = u->oh * w->s[1] + offh;
			int64_t a = lo > ow ? lo : ow, z = hi < e ? hi : e;
			float *d = line + u->p - ow;

			if (id < 0 || id >= w->in[0] || ih < 0 ||
			    ih >= w->in[1] || a >= z) {
				for (int64_t o = ow; o < e; o++)
					d[o] = 0;
				continue;
			}
			const float *xr = xc + (id * w->in[1] + ih) *
			    w->in[2] + offw;

			for (int64_t o = ow; o < a; o++)
				d[o] = 0;
			if (s2 == 1) {
				GP_SIMD
				for (int64_t o = a; o < z; o++)
					d[o] = xr[o];
			} else if (s2 == 2)
				gather2(d + a, xr + 2 * a, z - a);
			else
				for (int64_t o = a; o < z; o++)
					d[o] = xr[o * s2];
			for (int64_t o = z; o < e; o++)
				d[o] = 0;
		}
		for (int64_t j = 0; j < ns; j++) {
			float *dst = buf + j * sst + r * NR;

			_mm256_store_ps(dst, _mm256_load_ps(line + j * NR));
			_mm256_store_ps(dst + 8, _mm256_load_ps(line + j * NR +
			    8));
		}
		/* the next tap */
		if (++kw == w->k[2]) {
			kw = 0;
			if (++kh == w->k[1]) {
				kh = 0;
				if (++kd == w->k[0]) {
					kd = 0;
					c++;
				}
			}
		}
	}
}

struct tile {
	const float	*a[MR];		/* rows of w at the block's k0 */
	const float	*b;		/* packed: one sliver, kc lines of NR;
					 * direct: the tile's first column */
	const int64_t	*off;		/* direct: row k of B at b + off[k];
					 * NULL: packed */
	float		*c;		/* the output tile, row stride ldc */
	int64_t		 kc, ldc;
	int		 mr, nr;	/* valid rows and columns */
	bool		 first, last;	/* block of k */
	bool		 masked;	/* direct: read only nr columns */
	const float	*bias;		/* the tile's rows' biases, or NULL */
	bool		 act;
	float		 lo, hi;
};

/* One k step of the first `rows` rows of the 6 x 16 tile (B's two
 * vectors b0, b1) and of its left half (b0); rows is a constant where
 * kernel_rows is inlined, so the rows past it compile to nothing. */
#define ROW2(i)								\
	if (rows > i) {							\
		av = _mm256_broadcast_ss(a##i + k);			\
		c##i##0 = _mm256_fmadd_ps(av, b0, c##i##0);		\
		c##i##1 = _mm256_fmadd_ps(av, b1, c##i##1);		\
	}
#define ROW1(i)								\
	if (rows > i) {							\
		av = _mm256_broadcast_ss(a##i + k);			\
		c##i##0 = _mm256_fmadd_ps(av, b0, c##i##0);		\
	}
#define STEP2	ROW2(0) ROW2(1) ROW2(2) ROW2(3) ROW2(4) ROW2(5)
#define STEP1	ROW1(0) ROW1(1) ROW1(2) ROW1(3) ROW1(4) ROW1(5)
/* Row i of a tile of NR columns to the output, from its registers (rows
 * a constant: no array of the accumulators, which GCC keeps on the
 * stack, as in the partial tiles' loop of kernel_rows; with it, bench-ab:
 * mobilenet_v2 0.96-0.98 of the time, squeezenet1_0, resnet18 and the MLP
 * 0.99): + the partial sums of the earlier blocks of k (add), + its bias,
 * the clamp (max(lo, v) and min(hi, v) return v when it is NaN, the
 * second operand: NaN stays). */
#define EPI(i)								\
	if (rows > i && i < t->mr) {					\
		float *cr = t->c + i * t->ldc;				\
		__m256 v0 = c##i##0, v1 = c##i##1;			\
									\
		if (add) {						\
			v0 = _mm256_add_ps(v0, _mm256_loadu_ps(cr));	\
			v1 = _mm256_add_ps(v1, _mm256_loadu_ps(cr + 8)); \
		}							\
		if (bias) {						\
			__m256 bv = _mm256_set1_ps(t->bias[i]);		\
									\
			v0 = _mm256_add_ps(v0, bv);			\
			v1 = _mm256_add_ps(v1, bv);			\
		}							\
		if (act) {						\
			v0 = _mm256_min_ps(h, _mm256_max_ps(l, v0));	\
			v1 = _mm256_min_ps(h, _mm256_max_ps(l, v1));	\
		}							\
		_mm256_storeu_ps(cr, v0);				\
		_mm256_storeu_ps(cr + 8, v1);				\
	}

/* c (mr x nr) (+)= a (mr x kc) . b (kc x NR) over the first rows rows
 * (mr <= rows); on the last block of k, + bias then the clamp.  Rows
 * past mr compute a copy of row 0, unused.  B is a packed sliver (row k
 * at b + k * NR, aligned), or (direct) read where it lies (row k at b +
 * off[k]: a run of the padded input), the columns past nr masked off
 * where they could lie past the input. */
__attribute__((target("avx2,fma"), always_inline)) static inline void
kernel_rows(const struct tile *t, const int rows)
{
	const float *a0 = t->a[0], *a1 = t->a[1], *a2 = t->a[2];
	const float *a3 = t->a[3], *a4 = t->a[4], *a5 = t->a[5], *b = t->b;
	const int64_t *off = t->off;
	__m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
	__m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
	__m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
	__m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
	__m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
	__m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
	__m256 acc[MR][2], av;
	__m256 l = _mm256_set1_ps(t->lo), h = _mm256_set1_ps(t->hi);
	int n0 = t->nr < 8 ? t->nr : 8, n1 = t->nr - n0;
	bool add = !t->first, bias = t->last && t->bias != NULL;
	bool act = t->last && t->act;
	int64_t kc = t->kc;

	if (off == NULL && t->nr <= 8) {
		/* a last sliver of at most 8 columns: half the work */
		for (int64_t k = 0; k < kc; k++, b += NR) {
			__m256 b0 = _mm256_load_ps(b);

			STEP1
		}
	} else if (off == NULL) {
		for (int64_t k = 0; k < kc; k++, b += NR) {
			__m256 b0 = _mm256_load_ps(b);
			__m256 b1 = _mm256_load_ps(b + 8);

			STEP2
		}
	} else if (t->masked) {
		__m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
		__m256i m0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(t->nr),
		    lane);
		__m256i m1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(t->nr - 8),
		    lane);

		for (int64_t k = 0; k < kc; k++) {
			__m256 b0 = _mm256_maskload_ps(b + off[k], m0);
			__m256 b1 = _mm256_maskload_ps(b + off[k] + 8, m1);

			STEP2
		}
	} else if (t->nr <= 8) {
		for (int64_t k = 0; k < kc; k++) {
			__m256 b0 = _mm256_loadu_ps(b + off[k]);

			STEP1
		}
	} else {
		for (int64_t k = 0; k < kc; k++) {
			__m256 b0 = _mm256_loadu_ps(b + off[k]);
			__m256 b1 = _mm256_loadu_ps(b + off[k] + 8);

			STEP2
		}
	}
	if (t->nr == NR) {
		EPI(0) EPI(1) EPI(2) EPI(3) EPI(4) EPI(5)
		return;
	}
	acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11;
	acc[2][0] = c20; acc[2][1] = c21; acc[3][0] = c30; acc[3][1] = c31;
	acc[4][0] = c40; acc[4][1] = c41; acc[5][0] = c50; acc[5][1] = c51;
	/* a partial tile's rows: the same, the columns past nr neither read
	 * nor written */
	for (int i = 0; i < t->mr; i++) {
		float *cr = t->c + i * t->ldc;
		__m256 v0 = acc[i][0], v1 = acc[i][1];

		if (add) {
			v0 = _mm256_add_ps(v0, gp_lanes_load(cr, n0));
			if (n1 > 0)
				v1 = _mm256_add_ps(v1, gp_lanes_load(cr + 8,
				    n1));
		}
		if (bias) {
			__m256 bv = _mm256_set1_ps(t->bias[i]);

			v0 = _mm256_add_ps(v0, bv);
			v1 = _mm256_add_ps(v1, bv);
		}
		if (act) {
			v0 = _mm256_min_ps(h, _mm256_max_ps(l, v0));
			v1 = _mm256_min_ps(h, _mm256_max_ps(l, v1));
		}
		gp_lanes_store(cr, v0, n0);
		if (n1 > 0)
			gp_lanes_store(cr + 8, v1, n1);
	}
}

/* The tile through kernel_rows with 6, 4 or 2 rows: a last row tile of
 * 2 or 4 rows (m = 32 or 16: MobileNet's stem and narrow pointwise convs)
 * skips the multiply-adds of the rows it does not have.  Inlined in its
 * three callers (tiles, packed, direct_item, compiled for AVX2 and FMA
 * too): a call per tile cost mobilenet_v2 2.6-3.1% of its time, resnet18
 * 2.4%, squeezenet1_0 2.1%, the MLP 1.4% (bench-ab, 200 pairs). */
__attribute__((target("avx2,fma"), always_inline)) static inline void
kernel(const struct tile *t)
{
	if (t->mr > 4)
		kernel_rows(t, 6);
	else if (t->mr > 2)
		kernel_rows(t, 4);
	else
		kernel_rows(t, 2);
}

/*
 * A last sliver of at most TAIL columns (resnet18's 512 -> 512 at 7x7:
 * 49 = 3 x 16 + 1; densenet121's 14x14: 196 = 12 x 16 + 4).  The
 * broadcast kernel would spend a vector's multiply-add per row and k on
 * 1 to 4 useful lanes: as much time as a full sliver.  Here each of the
 * sliver's columns is first copied contiguous in k (tail_cols, once for
 * all the row tiles), and each row of the tile is a dot product of its
 * row of w with it, 8 values of k to a vector, summed across the lanes at
 * the end.  Then as EPI: + the earlier blocks' partial sums, + the bias,
 * the clamp (max(lo, v), min(hi, v): v when it is NaN).  Not inlined:
 * in tiles() it took registers from the full slivers' kernel, which then
 * kept an accumulator on the stack (twice the time).
 */
static void
tail_cols(const float *b, int64_t kc, int nr, float *tb)
{
	for (int64_t k = 0; k < kc; k++)
		for (int q = 0; q < nr; q++)
			tb[q * kc + k] = b[k * NR + q];
}

__attribute__((target("avx2,fma"))) static inline float
hsum8(__m256 v)
{
	__m128 x = _mm_add_ps(_mm256_castps256_ps128(v),
	    _mm256_extractf128_ps(v, 1));

	x = _mm_add_ps(x, _mm_movehl_ps(x, x));
	x = _mm_add_ss(x, _mm_movehdup_ps(x));
	return (_mm_cvtss_f32(x));
}

__attribute__((target("avx2,fma"), noinline)) static void
kernel_tail(const struct tile *t, const float *tb)
{
	int64_t kc = t->kc, k8 = kc / 8 * 8;
	bool add = !t->first, bias = t->last && t->bias != NULL;
	bool act = t->last && t->act;
	__m128 l = _mm_set_ss(t->lo), h = _mm_set_ss(t->hi);

	for (int q = 0; q < t->nr; q++) {
		const float *bq = tb + q * kc;
		__m256 s[MR];
		int64_t k;

		for (int i = 0; i < MR; i++)
			s[i] = _mm256_setzero_ps();
		for (k = 0; k < k8; k += 8) {
			__m256 bv = _mm256_loadu_ps(bq + k);

			for (int i = 0; i < MR; i++)
				s[i] = _mm256_fmadd_ps(_mm256_loadu_ps(
				    t->a[i] + k), bv, s[i]);
		}
		if (k < kc) {
			__m256 bv = gp_lanes_load(bq + k, (int)(kc - k));

			for (int i = 0; i < MR; i++)
				s[i] = _mm256_fmadd_ps(gp_lanes_load(t->a[i] +
				    k, (int)(kc - k)), bv, s[i]);
		}
		for (int i = 0; i < t->mr; i++) {
			float *cr = t->c + i * t->ldc + q;
			__m128 v = _mm_set_ss(hsum8(s[i]));

			if (add)
				v = _mm_add_ss(v, _mm_load_ss(cr));
			if (bias)
				v = _mm_add_ss(v, _mm_set_ss(t->bias[i]));
			if (act)
				v = _mm_min_ss(h, _mm_max_ss(l, v));
			_mm_store_ss(cr, v);
		}
	}
}

/* Row tile r of m rows: its first row, and its rows in *mr.  Tiles of MR
 * rows, but when m leaves 2 rows over (8, 14, 32, 128, 440...) the last
 * two tiles have 4 each: a tile of 2 rows keeps only 4 accumulators, too
 * few for the FMA units' latency (RegNet's grouped convs of 8 channels,
 * bench-conv, one thread: 0.91-0.93 of the time at 14x14 to 56x56). */
static inline int64_t
row_tile(int64_t m, int64_t r, int *mr)
{
	int64_t st = (m + MR - 1) / MR, i0 = r * MR;

	if (m % MR == 2 && st >= 2 && r >= st - 2) {
		*mr = 4;
		return ((st - 2) * MR + (r - (st - 2)) * 4);
	}
	*mr = m - i0 < MR ? (int)(m - i0) : MR;
	return (i0);
}

/* Row tiles [r0, r1) of w (columns [k0, k0 + kl)) times the ns packed
 * slivers at blk (sliver stride sst) into y's columns [n0, n0 + nn). */
__attribute__((target("avx2,fma"))) static void
tiles(const float *w, const float *blk, float *y, int64_t r0, int64_t r1,
    int64_t m, int64_t k, int64_t n, int64_t k0, int64_t kl, int64_t sst,
    int64_t n0, int64_t nn, int64_t ns, struct tile *t)
{
	float tb[TAIL * KC_MAX];
	int64_t tn = nn - (ns - 1) * NR;

	t->kc = kl;
	t->ldc = n;
	if (tn <= TAIL)
		tail_cols(blk + (ns - 1) * sst, kl, (int)tn, tb);
	for (int64_t r = r0; r < r1; r++) {
		int64_t i0 = row_tile(m, r, &t->mr);
		const float *bias = t->bias;

		for (int i = 0; i < MR; i++)
			t->a[i] = w + (i0 + (i < t->mr ? i : 0)) * k + k0;
		if (bias != NULL)
			t->bias = bias + i0;
		for (int64_t j = 0; j < ns; j++) {
			int64_t p = j * NR;

			t->nr = nn - p < NR ? (int)(nn - p) : NR;
			t->b = blk + j * sst;
			t->c = y + i0 * n + n0 + p;
			if (t->nr <= TAIL)
				kernel_tail(t, tb);
			else
				kernel(t);
		}
		t->bias = bias;
	}
}

/* gp_conv_gemm_packed_f32, adding to c when acc. */
__attribute__((target("avx2,fma"))) static void
packed(const float *a, int64_t lda, const float *b, float *c, int64_t ldc,
    int64_t m, int64_t k, int64_t nn, bool acc)
{
	int64_t nkb, kc = depth(k, &nkb), ns = (nn + NR - 1) / NR;
	struct tile t = {.ldc = ldc};

	for (int64_t kb = 0; kb < nkb; kb++) {
		int64_t k0 = kb * kc;

		t.kc = k - k0 < kc ? k - k0 : kc;
		t.first = kb == 0 && !acc;
		t.last = kb == nkb - 1;
		for (int64_t r = 0; r < (m + MR - 1) / MR; r++) {
			int64_t i0 = row_tile(m, r, &t.mr);

			for (int i = 0; i < MR; i++)
				t.a[i] = a + (i0 + (i < t.mr ? i : 0)) * lda +
				    k0;
			for (int64_t j = 0; j < ns; j++) {
				t.nr = nn - j * NR < NR ? (int)(nn - j * NR) :
				    NR;
				t.b = b + j * k * NR + k0 * NR;
				t.c = c + i0 * ldc + j * NR;
				kernel(&t);
			}
		}
	}
}

void
gp_conv_gemm_packed_f32(const float *a, int64_t lda, const float *b,
    float *c, int64_t ldc, int64_t m, int64_t k, int64_t nn)
{
	packed(a, lda, b, c, ldc, m, k, nn, false);
}

void
gp_conv_gemm_mm_f32(const float *a, int64_t lda, const float *p, float *c,
    int64_t ldc, int64_t m, int64_t k, int64_t n, bool acc)
{
	int64_t ns = (n + NR - 1) / NR, nt = gp_par_max_threads();
	int64_t rt = (m + MR - 1) / MR, nr = 1;

	/* items of one sliver times a run of row tiles, at least two a
	 * thread: the rows are cut only when the slivers are fewer (an MLP's
	 * last layer) */
	while (ns * nr < 2 * nt && nr < rt)
		nr++;
	/* each item multiplies its rows of a by its sliver, block by block
	 * of k (in L1) */
	GP_PAR_FOR(m * n * k)
	for (int64_t it = 0; it < ns * nr; it++) {
		int64_t j = it / nr, i = it % nr;
		int64_t r0 = rt * i / nr * MR, r1 = rt * (i + 1) / nr * MR;

		r1 = r1 < m ? r1 : m;
		packed(a + r0 * lda, lda, p + j * k * NR, c + r0 * ldc + j *
		    NR, ldc, r1 - r0, k, n - j * NR < NR ? n - j * NR : NR, acc);
	}
}

/*
 * A pointwise conv of few pixels, transposed (gp_conv_gemm_pwt_f32).  X
 * (k x n) is copied once, transposed, into the work space (n x k, by 8 x 8
 * blocks), so that its rows, the pixels, are the micro-kernel's rows of
 * a read where they lie; each thread takes slivers of 16 output channels
 * of W^T packed once (gp_conv_gemm_pack), multiplies all the pixels by
 * one into a tile of n x 16 in its part of the work space (in L1), and
 * writes the tile transposed into the sliver's 16 output planes, adding
 * the bias and clamping on the way.  Against Y = W . X as blocks of
 * OpenBLAS gemms (ops/conv-pw.c): no packing of W each call (the larger
 * operand: 1152 x 192 floats against 192 x 49), and the pixels, 49 or
 * 196, are the rows of row tiles of 6 rather than the columns of slivers
 * of 16 (49 = 3 x 16 + 1).
 */
int64_t
gp_conv_gemm_pwt_scratch(int64_t k, int64_t n)
{
	return ((int64_t)sizeof(float) * ((n * k + NR - 1) / NR * NR + n *
	    NR * gp_par_max_threads()) + ALIGN);
}

/* The tile t (n x NR: pixel p's 16 channels at t + p NR) into y's first
 * cols planes (plane c at y + c n), + b[c], clamped when act. */
__attribute__((target("avx2,fma"))) static void
pwt_out(const float *t, int64_t n, const float *b, float *y, int cols,
    bool act, float lo, float hi)
{
	__m256 l = _mm256_set1_ps(lo), h = _mm256_set1_ps(hi), r[8];

	for (int half = 0; half * 8 < cols; half++) {
		int nc = cols - half * 8 < 8 ? cols - half * 8 : 8;
		__m256 bv = b != NULL ? gp_lanes_load(b + half * 8, nc) :
		    _mm256_setzero_ps();

		for (int64_t p0 = 0; p0 < n; p0 += 8) {
			int np = n - p0 < 8 ? (int)(n - p0) : 8;

			for (int i = 0; i < 8; i++) {
				__m256 v = i < np ? _mm256_load_ps(t + (p0 +
				    i) * NR + half * 8) : _mm256_setzero_ps();

				v = _mm256_add_ps(v, bv);
				if (act)
					v = _mm256_min_ps(h, _mm256_max_ps(l,
					    v));
				r[i] = v;
			}
			gp_transpose8(r);
			for (int c = 0; c < nc; c++)
				gp_lanes_store(y + (half * 8 + c) * n + p0,
				    r[c], np);
		}
	}
}

/* xt (n x k) = x (k x n) transposed, pixels [p0, p1) (p0 a multiple of
 * 8). */
__attribute__((target("avx2"))) static void
pwt_in(const float *x, float *xt, int64_t k, int64_t n, int64_t p0,
    int64_t p1)
{
	__m256 r[8];

	for (int64_t q = p0; q < p1; q += 8) {
		int np = p1 - q < 8 ? (int)(p1 - q) : 8;

		for (int64_t c0 = 0; c0 < k; c0 += 8) {
			int nc = k - c0 < 8 ? (int)(k - c0) : 8;

			for (int i = 0; i < 8; i++)
				r[i] = i < nc ? gp_lanes_load(x + (c0 + i) * n +
				    q, np) : _mm256_setzero_ps();
			gp_transpose8(r);
			for (int j = 0; j < np; j++)
				gp_lanes_store(xt + (q + j) * k + c0, r[j],
				    nc);
		}
	}
}

void
gp_conv_gemm_pwt_f32(const float *x, const float *p, const float *b,
    float *y, int64_t k, int64_t m, int64_t n, bool act, float lo, float hi)
{
	int64_t ns = (m + NR - 1) / NR, nblk = (n + 7) / 8;
	char *work = gp_scratch_get(GP_SCRATCH_COL, (size_t)
	    gp_conv_gemm_pwt_scratch(k, n));
	float *xt = (float *)(void *)(((uintptr_t)work + ALIGN - 1) /
	    ALIGN * ALIGN);
	float *tiles = xt + (n * k + NR - 1) / NR * NR;

	REGION(m * n * k)
	{
		IN_FOR
		for (int64_t q = 0; q < nblk; q++)
			pwt_in(x, xt, k, n, q * 8, q * 8 + 8 < n ? q * 8 + 8 :
			    n);
		IN_FOR
		for (int64_t j = 0; j < ns; j++) {
			float *t = tiles + n * NR * gp_par_thread();

			packed(xt, k, p + j * k * NR, t, NR, n, k, NR, false);
			pwt_out(t, n, b != NULL ? b + j * NR : NULL, y + j *
			    NR * n, m - j * NR < NR ? (int)(m - j * NR) : NR,
			    act, lo, hi);
		}
	}
}

/* The direct path's operands: w (m x k), B's rows at xp + off[k] (the
 * padded planes; output row l reads from xp + l wp: wp, the padded rows'
 * values times the stride; a pointwise conv: x, one row of n), y (m x n,
 * output rows of len values). */
struct dpath {
	const float	*w, *xp;
	float		*y;
	const int64_t	*off;
	int64_t		 k, m, n, wp, len;
	bool		 fl;
};

/* The next tile's rows of the output (mr rows ld apart) fetched while
 * this tile runs: its stores then find the lines in cache rather than
 * waiting for them (mobilenet_v2 0.989-0.998 of the time with it, eight
 * runs of 300 pairs; 2 or 4 tiles ahead: no gain). */
static inline void
prefetch_tile(const float *c, int64_t ld, int mr)
{
	for (int i = 0; i < mr; i++)
		_mm_prefetch((const char *)(c + i * ld), _MM_HINT_T0);
}

/* Row tiles [r0, r1) of w times output rows [l0, l1), columns [q0, q1)
 * of each, block by block of k: a row tile's block of w stays in L1 while
 * it runs over all the columns. */
__attribute__((target("avx2,fma"))) static void
direct_item(const struct dpath *d, int64_t r0, int64_t r1, int64_t l0,
    int64_t l1, int64_t q0, int64_t q1, const struct tile *t0)
{
	int64_t nkb, kc = depth_of(d->k, d->fl ? KC_FLAT : KC, &nkb);
	struct tile t = *t0;

	t.ldc = d->n;
	for (int64_t kb = 0; kb < nkb; kb++) {
		int64_t k0 = kb * kc;

		t.first = kb == 0;
		t.last = kb == nkb - 1;
		t.kc = d->k - k0 < kc ? d->k - k0 : kc;
		t.off = d->off + k0;
		for (int64_t r = r0; r < r1; r++) {
			int64_t i0 = row_tile(d->m, r, &t.mr);

			for (int i = 0; i < MR; i++)
				t.a[i] = d->w + (i0 + (i < t.mr ? i : 0)) *
				    d->k + k0;
			t.bias = t0->bias != NULL ? t0->bias + i0 : NULL;
			for (int64_t l = l0; l < l1; l++)
				for (int64_t q = q0; q < q1; q += NR) {
					t.nr = q1 - q < NR ? (int)(q1 - q) :
					    NR;
					t.masked = d->fl && t.nr < NR;
					t.b = d->xp + l * d->wp + q;
					t.c = d->y + i0 * d->n + l * d->len + q;
					if (t.first && q + NR < q1)
						prefetch_tile(t.c + NR, d->n,
						    t.mr);
					kernel(&t);
				}
		}
	}
}

/* Columns [c0, c0 + 8) of x's row xr (iw values), those outside [0, iw)
 * zeros (masked off, not read); a pad row's (xr NULL), zeros. */
__attribute__((target("avx2"), always_inline)) static inline __m256
row_lanes(const float *xr, int64_t c0, int64_t iw)
{
	__m256i i;

	if (xr == NULL)
		return (_mm256_setzero_ps());
	if (c0 >= 0 && c0 + 8 <= iw)
		return (_mm256_loadu_ps(xr + c0));
	i = _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
	    _mm256_set1_epi32((int)c0));
	return (_mm256_maskload_ps(xr + c0, _mm256_and_si256(
	    _mm256_cmpgt_epi32(i, _mm256_set1_epi32(-1)),
	    _mm256_cmpgt_epi32(_mm256_set1_epi32((int)iw), i))));
}

/* v to d, n values of it (the rest of a row), or all 8 when the room
 * left in the plane (the rows after this one, written after it by the
 * same thread) holds them. */
__attribute__((target("avx2"), always_inline)) static inline void
put_lanes(float *d, __m256 v, int64_t n, int64_t room)
{
	if (n >= 8 || room >= 8)
		_mm256_storeu_ps(d, v);
	else
		gp_lanes_store(d, v, (int)n);
}

/* Plane c of x (in[1] x in[2]) into xp inside the pads' zeros: hp padded
 * rows, each cut into the stride s's phases (s 1 or 2; column j of phase
 * f is padded column j s + f), a phase's rows of wq values, its planes
 * pst values apart (s 1: one phase, rows of wq = the padded width).  Row
 * by row, 8 values at a time, each vector written whole when the plane
 * has room for it (past the row's end it writes the next rows' start,
 * written after), its lanes only at the plane's end, where another
 * thread's plane may follow: the library calls a small plane's rows took
 * (zeros, copy, zeros) cost RegNet's grouped convs of 8 channels at 7x7
 * a tenth of their time, the even and odd values picked one by one at
 * 14x14, stride 2, a third.  Wide rows of stride 1 take the library's
 * memset and memcpy. */
__attribute__((target("avx2"))) static void
pad_plane(const float *x, float *xp, const struct gp_win *win, int64_t hp,
    int64_t wq, int64_t pst)
{
	int64_t s = win->s[2], iw = win->in[2], pl = win->pb[2];

	for (int64_t r = 0; r < hp; r++) {
		float *d = xp + r * wq;
		const float *xr = NULL;
		int64_t room = (hp - r) * wq;

		if (r >= win->pb[1] && r - win->pb[1] < win->in[1])
			xr = x + (r - win->pb[1]) * iw;
		if (s == 1 && wq > 64) {
			if (xr == NULL) {
				memset(d, 0, sizeof(float) * (size_t)wq);
				continue;
			}
			memset(d, 0, sizeof(float) * (size_t)pl);
			memcpy(d + pl, xr, sizeof(float) * (size_t)iw);
			memset(d + pl + iw, 0, sizeof(float) *
			    (size_t)(wq - pl - iw));
			continue;
		}
		for (int64_t j = 0; j < wq; j += 8) {
			__m256 a, b;

			if (s == 1) {
				put_lanes(d + j, row_lanes(xr, j - pl, iw),
				    wq - j, room - j);
				continue;
			}
			/* padded columns [2 j, 2 j + 16), split into the
			 * even and odd phases */
			a = row_lanes(xr, 2 * j - pl, iw);
			b = row_lanes(xr, 2 * j + 8 - pl, iw);
			put_lanes(d + j, gp_deint_even(a, b), wq - j, room - j);
			put_lanes(d + pst + j, gp_deint_odd(a, b), wq - j,
			    room - j);
		}
	}
}

/*
 * The direct path (strides 1, or 2): B is not packed.  Row (c, kh, kw) of
 * col, for the outputs (oh, ow .. ow + 15) of one output row, is a run of
 * 16 values of the zero-padded input xp: with stride 1 (planes of hp x
 * wp) at c hp wp + (oh + kh dh) wp + ow + kw dw; with stride 2 the padded
 * rows are cut into their even and odd columns (phases of wq = wp / 2
 * values, all the channels' planes of the even phase, then of the odd),
 * and the run is in phase (kw dw) % 2, row 2 oh + kh dh, from ow + kw dw
 * / 2.  The kernel reads it there, through a table of the rows' offsets
 * (the part not depending on the output).  The tiles follow the output
 * rows (16 columns, then what is left of the row: a narrower tile, its
 * columns masked); a pointwise conv reads x itself, its output rows one
 * run (the last tile masked, since its loads would pass the end of x).
 * The threads take items of a few output rows (or 128 columns) times a
 * group of row tiles of w, in the same parallel region as the padding; in
 * an item, each row tile of a block of k (in L1) runs over all of the
 * item's columns.
 */
static void
conv_direct(const float *x, const float *w, float *y,
    const struct gp_win *win, int64_t cg, int64_t m, float *all,
    const struct tile *t0)
{
	int64_t k = cg * vol3(win->k), n = vol3(win->out);
	int64_t st = (m + MR - 1) / MR;
	int64_t hp = win->in[1] + win->pb[1] + win->pe[1];
	int64_t wq = phase_len(win), s = win->s[2], plane;
	int64_t oh = win->out[1], ow = win->out[2];
	int64_t *off = (int64_t *)(void *)all;
	float *xp = (float *)(void *)((char *)all + (k * (int64_t)sizeof(
	    int64_t) + ALIGN - 1) / ALIGN * ALIGN);
	int64_t lines = oh, per, nck, ng = 1, items;
	struct dpath d = {.w = w, .y = y, .off = off, .k = k, .m = m, .n = n,
	    .len = ow, .fl = flat(win)};
	int nt = gp_par_max_threads();

	if (d.fl) {
		/* one run of n columns, in chunks of CS slivers */
		hp = 1;
		wq = n;
		lines = 1;
		d.len = n;
		per = 1;
		nck = (n + CS * NR - 1) / (CS * NR);
	} else {
		memset(xp + s * cg * hp * wq, 0, sizeof(float) * NR);
		/* about CS * NR columns per item */
		per = CS * NR / ow > 0 ? CS * NR / ow : 1;
		nck = (oh + per - 1) / per;
	}
	plane = hp * wq;
	d.xp = d.fl ? x : xp;
	/* output row l reads from padded row l s */
	d.wp = s * wq;
	for (int64_t r = 0, c = 0, kh = 0, kw = 0; r < k; r++) {
		int64_t col = kw * win->d[2];

		/* padded column ow s + col: phase col % s, ow + col / s */
		off[r] = (col % s * cg + c) * plane + kh * win->d[1] * wq +
		    col / s;
		if (++kw == win->k[2]) {
			kw = 0;
			if (++kh == win->k[1]) {
				kh = 0;
				c++;
			}
		}
	}
	/* enough items for the threads to share evenly */
	while (nck * ng < 4 * nt && ng < st)
		ng++;
	items = nck * ng;
	REGION(m * n * k)
	{
		if (!d.fl) {
			IN_FOR
			for (int64_t c = 0; c < cg; c++)
				pad_plane(x + c * win->in[1] * win->in[2],
				    xp + c * plane, win, hp, wq, cg * plane);
		}
		IN_FOR_DYNAMIC
		for (int64_t it = 0; it < items; it++) {
			int64_t ci = it / ng, gi = it % ng;
			int64_t l0 = d.fl ? 0 : ci * per;
			int64_t q0 = d.fl ? ci * CS * NR : 0;

			direct_item(&d, st * gi / ng, st * (gi + 1) / ng, l0,
			    d.fl ? 1 : l0 + per < lines ? l0 + per : lines, q0,
			    !d.fl ? ow : q0 + CS * NR < n ? q0 + CS * NR : n,
			    t0);
		}
	}
}

void
gp_conv_gemm_f32(const float *x, const float *w, const float *b, float *y,
    const struct gp_win *win, int64_t cg, int64_t m, bool act, float lo,
    float hi)
{
	gp_conv_gemm_f32_in(x, w, b, y, win, cg, m, act, lo, hi,
	    gp_scratch_get(GP_SCRATCH_COL, gp_conv_gemm_scratch(win, cg, m)));
}

void
gp_conv_gemm_f32_in(const float *x, const float *w, const float *b,
    float *y, const struct gp_win *win, int64_t cg, int64_t m, bool act,
    float lo, float hi, void *work)
{
	int64_t k = cg * vol3(win->k), n = vol3(win->out), nkb;
	int64_t kc = depth(k, &nkb), sl = (n + NR - 1) / NR;
	int64_t st = (m + MR - 1) / MR;
	struct tile t0 = {.bias = b, .act = act, .lo = lo, .hi = hi};
	/* the packing buffers (every thread's part), aligned for the
	 * kernel */
	float *all = (float *)(void *)((char *)work + (ALIGN - (uintptr_t)
	    work % ALIGN) % ALIGN);
	size_t part = chunk_bytes(k, n) / sizeof(float);

	if (direct(win, k, m)) {
		conv_direct(x, w, y, win, cg, m, all, &t0);
		return;
	}
	if (rows_mode(win, k, m)) {
		/* few columns: pack all of col once (the threads share the
		 * rows of k), then the threads take groups of at most RG row
		 * tiles, their number rounded up to a multiple of the threads
		 * (where there are as many tiles), their sizes within one of
		 * each other: resnet18's 43 row tiles of 256 channels went
		 * in 11 groups of 4 (the last of 3), 6 to one thread and 5
		 * to the other; now 12 of 3 or 4 */
		int64_t nt = gp_par_max_threads(), ng = (st + RG - 1) / RG;

		ng = (ng + nt - 1) / nt * nt;
		ng = ng < st ? ng : st;
		float *buf = all;

		kc = depth_of(k, KC_ROWS, &nkb);

		REGION(m * n * k)
		{
			IN_FOR
			for (int64_t r0 = 0; r0 < k; r0 += PR) {
				struct run rn[MAX_SLIVERS * NR + 2];
				int64_t nrun = runs(win, 0, n, rn);

				pack(x, win, rn, nrun, r0, k - r0 < PR ?
				    k - r0 : PR, n, sl, k * NR, buf + r0 * NR);
		}
		IN_FOR_DYNAMIC
		for (int64_t gi = 0; gi < ng; gi++) {
			int64_t r0 = st * gi / ng, r1 = st * (gi + 1) / ng;
			struct tile t = t0;

			for (int64_t kb = 0; kb < nkb; kb++) {
				int64_t k0 = kb * kc;

				t.first = kb == 0;
				t.last = kb == nkb - 1;
				tiles(w, buf + k0 * NR, y, r0, r1, m, k,
				    n, k0, k - k0 < kc ? k - k0 : kc, k * NR, 0,
				    n, sl, &t);
			}
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
		float *buf = all + part * (size_t)gp_par_thread();
		struct tile t = t0;
		struct run rn[CS * NR + 2];
		int64_t nrun = runs(win, n0, nn, rn);

		for (int64_t kb = 0; kb < nkb; kb++) {
			int64_t k0 = kb * kc, kl = k - k0 < kc ? k - k0 : kc;

			t.first = kb == 0;
			t.last = kb == nkb - 1;
			pack(x, win, rn, nrun, k0, kl, nn, ns, kl * NR, buf);
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
gp_conv_gemm_packed_f32(const float *a, int64_t lda, const float *b,
    float *c, int64_t ldc, int64_t m, int64_t k, int64_t nn)
{
	(void)a, (void)lda, (void)b, (void)c, (void)ldc, (void)m, (void)k;
	(void)nn;
	abort();
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

void
gp_conv_gemm_f32_in(const float *x, const float *w, const float *b,
    float *y, const struct gp_win *win, int64_t cg, int64_t m, bool act,
    float lo, float hi, void *work)
{
	(void)x, (void)w, (void)b, (void)y, (void)win, (void)cg, (void)m;
	(void)act, (void)lo, (void)hi, (void)work;
	abort();
}

void
gp_conv_gemm_mm_f32(const float *a, int64_t lda, const float *p, float *c,
    int64_t ldc, int64_t m, int64_t k, int64_t n, bool acc)
{
	(void)a, (void)lda, (void)p, (void)c, (void)ldc, (void)m, (void)k;
	(void)n, (void)acc;
	abort();
}

int64_t
gp_conv_gemm_pwt_scratch(int64_t k, int64_t n)
{
	(void)k, (void)n;
	return (0);
}

void
gp_conv_gemm_pwt_f32(const float *x, const float *p, const float *b,
    float *y, int64_t k, int64_t m, int64_t n, bool act, float lo, float hi)
{
	(void)x, (void)p, (void)b, (void)y, (void)k, (void)m, (void)n;
	(void)act, (void)lo, (void)hi;
	abort();
}

#endif
