/*
 * diff-impl.h: what the files of the diff (diff.h) share and nothing
 * else includes: the hash folds and the key-to-indices map of the
 * pairing (diff-pair.c; diff-compute.c's Class and Ops rows use them
 * too), the apply pairing of a pair of functions (diff-pair.c), and the
 * noise verdicts (diff-noise.c) that diff-compute.c applies to the rows
 * it builds.
 */
#ifndef GPTOP_SRC_CAPTURE_DIFF_IMPL_H
#define GPTOP_SRC_CAPTURE_DIFF_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/util.h"
#include "capture/diff.h"
#include "prof/profile.h"

/* Functions of this many applies pair their two sides on two threads, and
 * tables of this many apply rows are judged on two threads. */
#define GP_DIFF_THREAD_MIN 4096

/* Captures taken apart: the least median time per execution, in floors
 * (opts.floor_probes probe costs), of an apply whose ratio enters the
 * common factor.  Below it an execution's time is mostly the probes'
 * and the caches' (a few misses after another process ran on the core
 * add about as much as the op costs), not a speed that the load scales:
 * seen in test-diff-real.sh at load 6-14, the six applies of 0.1-2 us
 * beside a 4x slower 130 us one read 0.6-3.2x between captures, while
 * that one's median moved by under 3% when its work did not change; they
 * made the factor 3x and the spread 0.5, and hid the 4x change in 8 of
 * 26 pairs of captures. */
#define GP_DIFF_FACTOR_MIN_FLOORS 100

/* A string, eight bytes at a time, then its length. */
static inline uint64_t
gp_diff_hstr(uint64_t h, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0, i;
	uint64_t w;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = gp_hash_mix(h, w);
	}
	w = 0;
	if (n > i)	/* not memcpy(&w, NULL, 0): s may be NULL */
		memcpy(&w, s + i, n - i);
	return (gp_hash_mix(gp_hash_mix(h, w), n));
}

/* The hash of an apply's op and input signature (dtypes and shapes): the
 * pairing's first key, and an apply's identity in the mix of a Class or
 * Ops row (diff-compute.c). */
static inline uint64_t
gp_diff_sig_hash(const struct gp_prof_apply *a)
{
	uint64_t h = gp_diff_hstr(GP_HASH_INIT, a->op);

	h = gp_hash_mix(h, (uint64_t)a->n_in);
	for (int k = 0; k < a->n_in; k++) {
		const struct gp_prof_io *io = &a->in[k];

		h = gp_hash_mix(h, (uint64_t)io->dtype);
		h = gp_hash_mix(h, (uint64_t)io->ndim);
		for (int d = 0; d < io->ndim; d++)
			h = gp_hash_mix(h, (uint64_t)io->shape[d]);
	}
	return (h);
}

/* A key that orders doubles ascending as their values do (-0 with 0;
 * NAN last), for gp_radix_sort: equal keys, equal values. */
static inline uint64_t
gp_diff_dkey(double v)
{
	uint64_t u;

	if (v != v)
		return (UINT64_MAX);
	if (v == 0)
		v = 0;	/* -0 ties with 0 */
	memcpy(&u, &v, sizeof(u));
	return (u >> 63 ? ~u : u | (uint64_t)1 << 63);
}

/*
 * Maps from a 64-bit key to a chain of indices (first in index order).
 */
struct gp_diff_kmap {
	size_t		 cap;	/* a power of two */
	uint64_t	*key;
	int		*head;	/* -1: empty slot */
};

/* A map for about n keys. */
void	gp_diff_kmap_init(struct gp_diff_kmap *m, size_t n);
void	gp_diff_kmap_free(struct gp_diff_kmap *m);
/* The slot of key (an empty one if absent). */
size_t	gp_diff_kmap_slot(const struct gp_diff_kmap *m, uint64_t key);
/* Put index i under key, next[] chaining the indices of a key: insert in
 * decreasing index order so chains come out increasing. */
void	gp_diff_kmap_push(struct gp_diff_kmap *m, int *next, uint64_t key,
	    int i);

/* The applies of a pair of functions, and the pairing made: pa[i] is A
 * apply i's partner in B (or -1), pb[j] B apply j's, how[i] how A apply i
 * was paired.  The caller sizes pa, pb (set to -1) and how; sig_a and
 * sig_b, when not NULL, receive each apply's gp_diff_sig_hash (made on
 * the way). */
struct gp_diff_pairs {
	const struct gp_prof_fn	*fa, *fb;
	int			*pa, *pb;
	enum gp_diff_match	*how;
	uint64_t		*sig_a, *sig_b;
};

/* Pair the applies of p->fa and p->fb (diff-pair.c). */
void	gp_diff_pair_applies(struct gp_diff_pairs *p);
/* Group the applies p left unpaired by their source nodes (diff-prov.c):
 * new groups appended to d->groups (their fn is f), ga[i] / gb[j] the
 * group of A's apply i / B's apply j, or -1.  Returns how many. */
int	gp_diff_group_sources(struct gp_diff *d, int f,
	    const struct gp_diff_pairs *p, int *ga, int *gb);

/*
 * A diff against ONNX Runtime's profile (diff-peer.c): its nodes' source
 * sets in the gptop side's source table, found by name and data flow, and
 * views of both profiles whose applies' ops are ONNX op types, which the
 * Class and Ops tables roll up.
 */
struct gp_diff_peer {
	int			 ort;	/* ORT's side: 0 (A) or 1 (B) */
	int			 fn_ort, fn_gp;	/* the function mapped */
	/* ORT's function, its applies' src the gptop side's source ids */
	struct gp_prof_fn	 fn;
	/* a and b with their applies' op an ONNX op type (keys[]) */
	struct gp_profile	 view[2];
	char			**keys;
	size_t			 n_keys;
	int			 n_named;	/* ORT nodes matched by name */
	int			 n_covered;	/* gptop applies with a node */
	int			 n_gp;		/* gptop applies */
};

/* The peer mapping of a and b when exactly one is ONNX Runtime's profile
 * and the other names its source nodes (a gptop-capture/3 of the ONNX
 * model) with the ORT function's name; else NULL. */
struct gp_diff_peer *gp_diff_peer_new(const struct gp_profile *a,
	    const struct gp_profile *b);
void	gp_diff_peer_free(struct gp_diff_peer *pe);
/* Pair function f of d by d->peer's sources only (gp_diff_group_sources
 * with ORT's applies given their sources); false when the peer does not
 * map f (then nothing is done). */
bool	gp_diff_peer_group(struct gp_diff *d, int f, struct gp_diff_pairs *p,
	    int *ga, int *gb);

/*
 * The noise verdicts (diff-noise.c).
 */

/* A row's medians and spreads, from its distributions, and for a paired
 * row the U test's p in p_raw (gp_diff_judge takes it from there: the
 * test reads the bins while they are at hand), or 1 where the row's p
 * will be 1 whatever the test says (same_load: opts.same_load). */
void	gp_diff_row_figures(struct gp_diff_row *r, bool same_load);
/* The factors (and spreads) of B's times over A's over the apply rows,
 * whose figures are made, each row's factor, and capture_scale. */
void	gp_diff_factors(struct gp_diff *d, struct gp_diff_row *rows,
	    size_t n);
/* Fill the derived figures of r from its two distributions (its medians
 * and spreads too unless have_figures) and its verdict, r->factor set;
 * then scale its times (per call of the function, with opts.per_call).
 * The floor is floor_mult times d->floor_ns. */
void	gp_diff_judge(const struct gp_diff *d, struct gp_diff_row *r,
	    double scale_a, double scale_b, double floor_mult,
	    bool have_figures);
/* A table's p adjusted over its n rows (stride bytes apart); a change
 * whose adjusted p is not below o->alpha is within noise after all. */
void	gp_diff_adjust_rows(struct gp_diff_row *rows, size_t n,
	    size_t stride, const struct gp_diff_opts *o);

#endif
