/*
 * ops/conv-wino.c: the float32 3x3 convolution of strides 1 as Winograd's
 * F(2x2, 3x3) (see ops/conv-wino.h): each 2x2 block of the output (a
 * tile) comes from the 4x4 patch of the input under it, through
 *
 *   Y = A^T [ (G g G^T) (.) (B^T d B) ] A
 *
 * summed over the input channels: the 16 elements (.) of the transformed
 * patches, for all tiles and channels, are 16 independent gemms
 * M_e (m x tiles) = U_e (m x cg) . V_e (cg x tiles), 16 x 1 multiplies a
 * tile where the direct conv does 4 x 9: 2.25 times fewer.  The
 * transforms use only additions (and halves, in G): the result agrees
 * with the direct conv's to a few ulps of the sum's magnitude.
 *
 * Per call: the weights' transform U (all threads, once; or none: U
 * given, made once by the rewrite conv_winograd from fixed weights), the
 * input
 * copied once inside the pads' zeros, each row split into its even and
 * odd columns (so that the transform of 8 neighbouring tiles reads
 * contiguous vectors); then the threads take blocks of TB tiles: each
 * transforms its block's patches into V (in L2, as the packed slivers of
 * ops/conv-gemm.c's micro-kernel), runs the 16 gemms for a group of MB
 * output channels into M, and transforms M back into the output with the
 * bias and the clamp (a fused Relu or Clip), group after group.
 */
#include "config.h"

#include "ops/conv-gemm.h"
#include "ops/conv-wino.h"
#include "ops/ops.h"
#include "ops/par.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define GP_CONV_WINO_X86 1
#include <immintrin.h>

#include "ops/deint.h"
#include "ops/lanes.h"
#endif

enum {
	NE = 16,		/* elements of a transformed patch (4 x 4) */
	NR = 16,		/* columns per sliver (the micro-kernel's) */
	GW = 8,			/* tiles a group: one vector */
	MB = 24,		/* output channels per group of gemms */
	ALIGN = 64,
	V_BYTES = 256 << 10,	/* the most bytes of a block's V */
	MIN_TILES = 96,		/* fewer tiles: the direct path is faster */
	MIN_TILES_FIXED = 40,	/* the same with U fixed and cg >= 128: a
				 * 14x14 output of 256 channels took 0.70
				 * of the direct path's time, 0.90 with U
				 * transformed every call; squeezenet's
				 * 13x13 of 64 channels 1.39 (bench-conv) */
	MIN_CG_FIXED = 128,
	MIN_CG = 64,		/* fewer channels: too short a gemm depth
				 * (squeezenet's 32 -> 128 at 27x27: 1.16
				 * times the direct conv's time) */
};

/*
 * The geometry of one call.  The tiles are numbered in slots, row after
 * row, each row of tiles padded to twp slots (a multiple of 4: the slots
 * past tw are computed and dropped); a row is cut into groups of GW slots
 * (the last one 4 or GW), a block is gb groups in a row of them, its
 * slots the gemms' columns.  A group starts at a multiple of 4 slots, so
 * that each half of its vector lies in one sliver of V.
 */
struct wgeo {
	int64_t	oh, ow;		/* output */
	int64_t	th, tw, twp;	/* rows of tiles, tiles a row, slots a row */
	int64_t	gpr, ng;	/* groups a row, in all */
	int64_t	gb, tb;		/* groups a block, slots a block (most) */
	int64_t	ldm;		/* row stride of M: tb and a vector */
	int64_t	vst;		/* stride of V's planes V_e: cg tb and a line,
				 * so that the 16 planes' rows do not share
				 * the L1 cache's sets (4 KiB apart, they
				 * did: the transform took 60% of the gemms'
				 * time, 10% without) */
	int64_t	hp, hw;		/* padded rows; values a half row holds */
};

static void
geo(const struct gp_win *w, int64_t cg, struct wgeo *g)
{
	int64_t tb = V_BYTES / (NE * cg * (int64_t)sizeof(float)) / NR * NR;

	g->oh = w->out[1];
	g->ow = w->out[2];
	g->th = (g->oh + 1) / 2;
	g->tw = (g->ow + 1) / 2;
	g->twp = (g->tw + 3) / 4 * 4;
	g->gpr = (g->twp + GW - 1) / GW;
	g->ng = g->th * g->gpr;
	g->tb = tb < NR ? NR : tb > 4 * NR ? 4 * NR : tb;
	g->gb = g->tb / GW;
	g->ldm = g->tb + GW;
	g->vst = cg * g->tb + NR;
	g->hp = 2 * g->th + 2;
	/* the even (or odd) columns of a padded row: 2 twp + 2 columns,
	 * a group's loads reach 8 past its start, a multiple of 8 */
	g->hw = (g->twp + 1 + GW + 7) / 8 * 8;
}

bool
gp_conv_wino_ok(const struct gp_win *w, int64_t cg, int64_t m, bool fixed)
{
	struct wgeo g;

	if (w->k[0] != 1 || w->in[0] != 1 || w->k[1] != 3 || w->k[2] != 3)
		return (false);
	for (int i = 1; i < GP_WIN_DIMS; i++)
		if (w->s[i] != 1 || w->d[i] != 1 || w->pb[i] < 0 ||
		    w->pe[i] < 0)
			return (false);
	if (cg < MIN_CG || m < 1)
		return (false);
	geo(w, cg, &g);
	return (g.th * g.tw >= MIN_TILES || (fixed && cg >= MIN_CG_FIXED &&
	    g.th * g.tw >= MIN_TILES_FIXED));
}

int64_t
gp_conv_wino_weights_len(int64_t cg, int64_t m)
{
	return (NE * m * cg);
}

/* Bytes of each part of the scratch, multiples of ALIGN. */
static size_t
up(size_t n)
{
	return ((n + ALIGN - 1) / ALIGN * ALIGN);
}

struct parts {
	size_t	xp, u;		/* the padded input, U */
	size_t	v, mm, line;	/* a thread's V, M and padded row */
};

static void
parts(const struct wgeo *g, int64_t cg, int64_t m, bool fixed,
    struct parts *p)
{
	p->xp = up((size_t)(cg * g->hp * 2 * g->hw) * sizeof(float));
	p->u = fixed ? 0 : up((size_t)(NE * m * cg) * sizeof(float));
	p->v = up((size_t)(NE * g->vst) * sizeof(float));
	p->mm = up((size_t)(NE * MB * g->ldm) * sizeof(float));
	p->line = up((size_t)(2 * g->hw) * sizeof(float));
}

size_t
gp_conv_wino_scratch(const struct gp_win *w, int64_t cg, int64_t m,
    bool fixed)
{
	struct wgeo g;
	struct parts p;

	geo(w, cg, &g);
	parts(&g, cg, m, fixed, &p);
	return (p.xp + p.u + (p.v + p.mm + p.line) *
	    (size_t)gp_par_max_threads() + ALIGN);
}

#ifdef GP_CONV_WINO_X86

/* Are all 8 lanes of acc (an OR of v - v over values v) zero, that is,
 * were all the values finite? */
__attribute__((target("avx2,fma"))) static inline bool
finite8(__m256 acc)
{
	return (_mm256_movemask_ps(_mm256_cmp_ps(acc, acc, _CMP_UNORD_Q)) ==
	    0);
}

/* The transform of 8 filters' taps g[0..8] (vectors over the filters):
 * U = G g G^T, G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1], element
 * (i, j) into u[i * 4 + j]. */
__attribute__((target("avx2,fma"))) static inline void
wtrans8(const __m256 *g, __m256 *u)
{
	__m256 h = _mm256_set1_ps(0.5f), t[4][3];

	for (int j = 0; j < 3; j++) {
		__m256 s = _mm256_add_ps(g[j], g[6 + j]);

		t[0][j] = g[j];
		t[1][j] = _mm256_mul_ps(h, _mm256_add_ps(s, g[3 + j]));
		t[2][j] = _mm256_mul_ps(h, _mm256_sub_ps(s, g[3 + j]));
		t[3][j] = g[6 + j];
	}
	for (int i = 0; i < 4; i++) {
		__m256 s = _mm256_add_ps(t[i][0], t[i][2]);

		u[i * 4 + 0] = t[i][0];
		u[i * 4 + 1] = _mm256_mul_ps(h, _mm256_add_ps(s, t[i][1]));
		u[i * 4 + 2] = _mm256_mul_ps(h, _mm256_sub_ps(s, t[i][1]));
		u[i * 4 + 3] = t[i][2];
	}
}

/* U[e][o][c] for filter o, 8 channels at a time (their taps 9 apart,
 * gathered); false when a tap is an infinity or a NaN. */
__attribute__((target("avx2,fma"))) static bool
wtrans(const float *wt, float *u, int64_t o, int64_t m, int64_t cg)
{
	__m256i idx = _mm256_setr_epi32(0, 9, 18, 27, 36, 45, 54, 63);
	__m256 acc = _mm256_setzero_ps(), g[9], r[NE];
	float tg[9][8], tu[NE][8];

	for (int64_t c = 0; c < cg; c += 8) {
		const float *src = wt + (o * cg + c) * 9;
		float *d = u + o * cg + c;
		int64_t n = cg - c < 8 ? cg - c : 8;

		if (n == 8) {
			for (int j = 0; j < 9; j++) {
				g[j] = _mm256_i32gather_ps(src + j, idx, 4);
				acc = _mm256_or_ps(acc, _mm256_sub_ps(g[j],
				    g[j]));
			}
			wtrans8(g, r);
			for (int e = 0; e < NE; e++)
				_mm256_storeu_ps(d + e * m * cg, r[e]);
			continue;
		}
		/* the last channels: through a buffer of 8 */
		memset(tg, 0, sizeof(tg));
		for (int64_t q = 0; q < n; q++)
			for (int j = 0; j < 9; j++)
				tg[j][q] = src[q * 9 + j];
		for (int j = 0; j < 9; j++) {
			g[j] = _mm256_loadu_ps(tg[j]);
			acc = _mm256_or_ps(acc, _mm256_sub_ps(g[j], g[j]));
		}
		wtrans8(g, r);
		for (int e = 0; e < NE; e++) {
			_mm256_storeu_ps(tu[e], r[e]);
			for (int64_t q = 0; q < n; q++)
				d[e * m * cg + q] = tu[e][q];
		}
	}
	return (finite8(acc));
}

/* Plane c of x into its padded copy: padded row r is x's row r - pb1 (or
 * zeros), its column q x's column q - pb2 (or zero), stored as its even
 * columns (hw values) then its odd ones; line is 2 hw values of the
 * thread's.  False when the plane holds an infinity or a NaN. */
__attribute__((target("avx2,fma"))) static bool
pad_plane(const float *x, float *xp, const struct gp_win *w,
    const struct wgeo *g, float *line)
{
	int64_t iw = w->in[2], n = 2 * g->hw - w->pb[2];
	__m256 acc = _mm256_setzero_ps();

	if (n > iw)
		n = iw;
	for (int64_t r = 0; r < g->hp; r++) {
		float *e = xp + r * 2 * g->hw, *o = e + g->hw;
		int64_t ih = r - w->pb[1];

		if (ih < 0 || ih >= w->in[1] || n <= 0) {
			memset(e, 0, sizeof(float) * (size_t)(2 * g->hw));
			continue;
		}
		memset(line, 0, sizeof(float) * (size_t)(2 * g->hw));
		memcpy(line + w->pb[2], x + ih * iw, sizeof(float) * (size_t)n);
		for (int64_t q = 0; q < 2 * g->hw; q += 16) {
			__m256 a = _mm256_loadu_ps(line + q);
			__m256 b = _mm256_loadu_ps(line + q + 8);
			__m256 ev = gp_deint_even(a, b);
			__m256 od = gp_deint_odd(a, b);

			acc = _mm256_or_ps(acc, _mm256_sub_ps(a, a));
			acc = _mm256_or_ps(acc, _mm256_sub_ps(b, b));
			_mm256_storeu_ps(e + q / 2, ev);
			_mm256_storeu_ps(o + q / 2, od);
		}
	}
	return (finite8(acc));
}

/* A group of a block: its row of tiles, first tile, slots, and first
 * column in the block. */
struct grp {
	int64_t	ty, tx, len, col;
};

/* The groups of block bi into gr; returns their count, *nn the block's
 * slots (its gemms' columns). */
static int64_t
block(const struct wgeo *g, int64_t bi, struct grp *gr, int64_t *nn)
{
	int64_t g0 = bi * g->gb, g1 = g0 + g->gb < g->ng ? g0 + g->gb : g->ng;
	int64_t ty = g0 / g->gpr, k = g0 % g->gpr, col = 0;

	for (int64_t i = 0; i < g1 - g0; i++) {
		int64_t tx = k * GW;

		gr[i] = (struct grp){ty, tx, g->twp - tx < GW ? g->twp - tx :
		    GW, col};
		col += gr[i].len;
		if (++k == g->gpr) {
			k = 0;
			ty++;
		}
	}
	*nn = col;
	return (g1 - g0);
}

/* V for a block's groups: V_e's sliver s at v + e * vst + s * cg * NR,
 * its row c the NR slots' values of channel c.  B^T = [1 0 -1 0; 0 1 1 0;
 * 0 -1 1 0; 0 1 0 -1] on a patch's 4 rows (vectors over 8 tiles: the
 * even and odd halves of the padded rows), then on its columns (even
 * column 2 tx, odd 2 tx + 1, the next tile's even and odd). */
__attribute__((target("avx2,fma"))) static void
itrans(const float *xp, float *v, const struct wgeo *g, int64_t cg,
    const struct grp *gr, int64_t ngr)
{
	int64_t plane = g->hp * 2 * g->hw, vst = g->vst, rs = 2 * g->hw;

	for (int64_t c = 0; c < cg; c++) {
		const float *xc = xp + c * plane;

		for (int64_t i = 0; i < ngr; i++) {
			const struct grp *p = &gr[i];
			const float *r0 = xc + 2 * p->ty * rs + p->tx;
			int64_t sl = p->col / NR, ln = p->col % NR;
			float *d = v + sl * cg * NR + c * NR + ln;

			bool one = p->len == GW && ln <= NR - GW;
			float *d2 = v + (p->col + 4) / NR * cg * NR + c * NR +
			    (p->col + 4) % NR;

			/* row combination i (rows ra - rb, or ra + rb) at
			 * even(tx), odd(tx), even(tx + 1), odd(tx + 1), then
			 * its 4 column combinations: elements 4 i .. 4 i + 3 */
			for (int ri = 0; ri < 4; ri++) {
				static const int ra[4] = {0, 1, 2, 1};
				static const int rb[4] = {2, 2, 1, 3};
				const float *pa = r0 + ra[ri] * rs;
				const float *pb = r0 + rb[ri] * rs;
				__m256 t[4], o[4];

				for (int h = 0; h < 4; h++) {
					int64_t off = (h & 1) * g->hw + (h >> 1);
					__m256 a = _mm256_loadu_ps(pa + off);
					__m256 b = _mm256_loadu_ps(pb + off);

					t[h] = ri == 1 ? _mm256_add_ps(a, b) :
					    _mm256_sub_ps(a, b);
				}
				o[0] = _mm256_sub_ps(t[0], t[2]);
				o[1] = _mm256_add_ps(t[1], t[2]);
				o[2] = _mm256_sub_ps(t[2], t[1]);
				o[3] = _mm256_sub_ps(t[1], t[3]);
				for (int j = 0; j < 4; j++) {
					int64_t e = ri * 4 + j;

					if (one) {
						_mm256_storeu_ps(d + e * vst,
						    o[j]);
						continue;
					}
					/* each half in its own sliver */
					_mm_storeu_ps(d + e * vst,
					    _mm256_castps256_ps128(o[j]));
					if (p->len == GW)
						_mm_storeu_ps(d2 + e * vst,
						    _mm256_extractf128_ps(o[j],
						    1));
				}
			}
		}
	}
}

/* The output of a block's groups for channels [o0, o0 + mb) from M (M_e
 * at mm + e * MB * ldm, row o - o0, column: the slot's in the block):
 * A^T = [1 1 1 0; 0 1 -1 -1] on both sides, + bias, clamped; each output
 * row of a group's 8 tiles is 16 values, two vectors. */
__attribute__((target("avx2,fma"))) static void
otrans(const float *mm, float *y, const float *bias, const struct wgeo *g,
    int64_t o0, int64_t mb, const struct grp *gr, int64_t ngr, bool act,
    float lo, float hi)
{
	int64_t est = MB * g->ldm, ohw = g->oh * g->ow;
	__m256 vl = _mm256_set1_ps(lo), vh = _mm256_set1_ps(hi);

	for (int64_t oo = 0; oo < mb; oo++) {
		__m256 bv = _mm256_set1_ps(bias != NULL ? bias[o0 + oo] : 0);
		float *yo = y + (o0 + oo) * ohw;

		for (int64_t i = 0; i < ngr; i++) {
			const struct grp *p = &gr[i];
			const float *q = mm + oo * g->ldm + p->col;
			__m256 r[4][2], out[4];
			int64_t nv = g->tw - p->tx < p->len ? g->tw - p->tx :
			    p->len, cols = 2 * nv;

			if (cols > g->ow - 2 * p->tx)
				cols = g->ow - 2 * p->tx;
			/* M_j, M_4+j, M_8+j, M_12+j loaded as each column
			 * combination needs them (16 at once would spill) */
			for (int j = 0; j < 4; j++) {
				__m256 m4 = _mm256_loadu_ps(q + (4 + j) * est);
				__m256 m8 = _mm256_loadu_ps(q + (8 + j) * est);
				__m256 s12 = _mm256_add_ps(m4, m8);
				__m256 d12 = _mm256_sub_ps(m4, m8);

				r[j][0] = _mm256_add_ps(_mm256_loadu_ps(q + j *
				    est), s12);
				r[j][1] = _mm256_sub_ps(d12, _mm256_loadu_ps(q +
				    (12 + j) * est));
			}
			for (int k = 0; k < 2; k++) {
				__m256 s12 = _mm256_add_ps(r[1][k], r[2][k]);
				__m256 d12 = _mm256_sub_ps(r[1][k], r[2][k]);

				out[k * 2] = _mm256_add_ps(_mm256_add_ps(r[0][k],
				    s12), bv);
				out[k * 2 + 1] = _mm256_add_ps(_mm256_sub_ps(d12,
				    r[3][k]), bv);
			}
			for (int k = 0; k < 2; k++) {
				float *d = yo + (2 * p->ty + k) * g->ow + 2 * p->tx;
				__m256 a = out[k * 2], b = out[k * 2 + 1], lo8, hi8;

				if (2 * p->ty + k >= g->oh)
					break;
				if (act) {
					/* max(lo, v), min(hi, v): v when NaN */
					a = _mm256_min_ps(vh, _mm256_max_ps(vl, a));
					b = _mm256_min_ps(vh, _mm256_max_ps(vl, b));
				}
				lo8 = _mm256_unpacklo_ps(a, b);
				hi8 = _mm256_unpackhi_ps(a, b);
				a = _mm256_permute2f128_ps(lo8, hi8, 0x20);
				b = _mm256_permute2f128_ps(lo8, hi8, 0x31);
				gp_lanes_store(d, a, cols < 8 ? (int)cols : 8);
				if (cols > 8)
					gp_lanes_store(d + 8, b, (int)cols - 8);
			}
		}
	}
}

bool
gp_conv_wino_weights(const float *w, int64_t cg, int64_t m, float *u)
{
	bool fin = true;

	for (int64_t o = 0; o < m; o++)
		fin &= wtrans(w, u, o, m, cg);
	return (fin);
}

bool
gp_conv_wino_f32(const float *x, const float *wt, const float *ufix,
    const float *b, float *y, const struct gp_win *w, int64_t cg, int64_t m,
    bool act, float lo, float hi, void *scratch)
{
	struct wgeo g;
	struct parts pt;
	char *raw = scratch;
	float *xp, *uw;
	const float *u;
	int64_t nblk, mt = ufix != NULL ? 0 : m;
	bool fin = true;

	geo(w, cg, &g);
	parts(&g, cg, m, ufix != NULL, &pt);
	raw += (ALIGN - (uintptr_t)raw % ALIGN) % ALIGN;
	xp = (float *)(void *)raw;
	/* U given (the constant the rewrite made), or made here */
	uw = (float *)(void *)(raw + pt.xp);
	u = ufix != NULL ? ufix : uw;
	nblk = (g.ng + g.gb - 1) / g.gb;
#ifdef GP_HAVE_OPENMP
#pragma omp parallel if (m * cg * g.th * g.tw >= GP_PAR_MIN)
#endif
	{
		char *mine = raw + pt.xp + pt.u + (pt.v + pt.mm + pt.line) *
		    (size_t)gp_par_thread();
		float *v = (float *)(void *)mine;
		float *mm = (float *)(void *)(mine + pt.v);
		float *line = (float *)(void *)(mine + pt.v + pt.mm);
		bool mine_fin = true, go;

#ifdef GP_HAVE_OPENMP
#pragma omp for schedule(static) nowait
#endif
		for (int64_t c = 0; c < cg; c++)
			mine_fin &= pad_plane(x + c * w->in[1] * w->in[2], xp +
			    c * g.hp * 2 * g.hw, w, &g, line);
#ifdef GP_HAVE_OPENMP
#pragma omp for schedule(static) nowait
#endif
		for (int64_t o = 0; o < mt; o++)
			mine_fin &= wtrans(wt, uw, o, m, cg);
		if (!mine_fin) {
#ifdef GP_HAVE_OPENMP
#pragma omp atomic write
#endif
			fin = false;
		}
#ifdef GP_HAVE_OPENMP
#pragma omp barrier
#pragma omp atomic read
#endif
		go = fin;
		/* a non-finite value: the caller's direct path (NaN and
		 * infinities would spread to the whole 2x2 tile here) */
		if (go) {
#ifdef GP_HAVE_OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
			for (int64_t bi = 0; bi < nblk; bi++) {
				struct grp gr[4 * NR / GW];
				int64_t nn, ngr = block(&g, bi, gr, &nn);

				itrans(xp, v, &g, cg, gr, ngr);
				for (int64_t o0 = 0; o0 < m; o0 += MB) {
					int64_t mb = m - o0 < MB ? m - o0 : MB;

					for (int e = 0; e < NE; e++)
						gp_conv_gemm_packed_f32(u + (e *
						    m + o0) * cg, cg, v + e *
						    g.vst, mm + e * MB *
						    g.ldm, g.ldm, mb, cg, nn);
					otrans(mm, y, b, &g, o0, mb, gr, ngr,
					    act, lo, hi);
				}
			}
		}
	}
	return (fin);
}

#else

bool
gp_conv_wino_weights(const float *w, int64_t cg, int64_t m, float *u)
{
	(void)w, (void)cg, (void)m, (void)u;
	return (false);
}

bool
gp_conv_wino_f32(const float *x, const float *wt, const float *ufix,
    const float *b, float *y, const struct gp_win *w, int64_t cg, int64_t m,
    bool act, float lo, float hi, void *scratch)
{
	(void)scratch, (void)x, (void)wt, (void)ufix, (void)b, (void)y;
	(void)w, (void)cg, (void)m, (void)act, (void)lo, (void)hi;
	return (false);
}

#endif
