/*
 * diff-pair.c: the pairing of the applies of two profiles' functions,
 * for the diff (diff.h), and the key-to-indices map it indexes them with.
 *
 * Apply pairing works per pair of functions, in tiers.  Each B apply is
 * indexed up front under three keys: its structure (op with params, input
 * dtypes and shapes, and per input either the graph input's name or the
 * producing apply's position and output), its name, and its structure
 * with graph input names left out.  An A apply's structural key is made
 * the same way but with each producer replaced by the B apply that
 * producer was paired with, so it exists only once its producers are
 * paired; visiting A in schedule order makes that so in one pass.  The
 * three tiers run in that order until a round pairs nothing; then one
 * loose pass (op and signature, with producers unpaired on both sides
 * taken as alike: what follows a rewritten region) may unlock more strict
 * pairings downstream, and the rounds go on.  Among unpaired B applies
 * with the same key the first in schedule order wins, so a profile diffed
 * with itself pairs every apply with itself.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "capture/diff-impl.h"
#include "capture/diff.h"

#define MAX_ROUNDS 16

void
gp_diff_kmap_init(struct gp_diff_kmap *m, size_t n)
{
	m->cap = 16;
	while (m->cap < 2 * n + 2)
		m->cap *= 2;
	m->key = gp_xmalloc(m->cap * sizeof(*m->key));	/* read once used */
	m->head = gp_xmalloc(m->cap * sizeof(*m->head));
	memset(m->head, -1, m->cap * sizeof(*m->head));
}

void
gp_diff_kmap_free(struct gp_diff_kmap *m)
{
	free(m->key);
	free(m->head);
}

/* The slot of key (an empty one if absent). */
size_t
gp_diff_kmap_slot(const struct gp_diff_kmap *m, uint64_t key)
{
	size_t h = (size_t)(key ^ (key >> 29)) & (m->cap - 1);

	while (m->head[h] >= 0 && m->key[h] != key)
		h = (h + 1) & (m->cap - 1);
	return (h);
}

/* Insert in decreasing index order so chains come out increasing. */
void
gp_diff_kmap_push(struct gp_diff_kmap *m, int *next, uint64_t key, int i)
{
	size_t h = gp_diff_kmap_slot(m, key);

	m->key[h] = key;
	next[i] = m->head[h];
	m->head[h] = i;
}

enum tier {
	TIER_STRUCTURE,		/* leaf names, producers paired */
	TIER_NAME,		/* the apply's name */
	TIER_SHAPE,		/* leaf names aside, producers paired */
	TIER_LOOSE,		/* as SHAPE, but unpaired producers on both
				 * sides count as alike */
	TIER__COUNT
};

static const enum gp_diff_match tier_match[TIER__COUNT] = {
	[TIER_STRUCTURE] = GP_MATCH_STRUCTURE,
	[TIER_NAME] = GP_MATCH_APPLY_NAME,
	[TIER_SHAPE] = GP_MATCH_SHAPE,
	[TIER_LOOSE] = GP_MATCH_LOOSE,
};

/* What does not change while pairing, read once from the applies (heap
 * blocks each, which the passes would otherwise wait on again and
 * again): per apply, the hash of its op and input signature, of its
 * name, of its graph inputs' names, its signature interned (sig: equal
 * ids, equal op and input dtypes and shapes: a collision guard that
 * reads no apply), and per input its producer and which of the
 * producer's outputs it reads. */
struct side {
	const struct gp_prof_fn	*f;
	uint64_t		*base, *name, *leaves;
	int			*sig;	/* per apply: signature id */
	int			*rep;	/* per signature id: an apply of it */
	int			 n_sig;
	int			*prod;	/* per input, in input order */
	int			*slot;	/* per input, in input order */
	int			*first;	/* apply i's inputs: [first[i],
					 * first[i + 1]) */
};

struct pairing {
	struct side		 a, b;
	int			*pa, *pb;	/* partner, or -1 */
	enum gp_diff_match	*how;		/* per A apply */
	/* A's signature ids to B's (-1: no B apply has it) */
	int			*sig_ab;
	struct gp_diff_kmap		 map[TIER__COUNT];
	int			*next[TIER__COUNT];
	uint64_t		*sig_b;		/* gp_diff_pairs' */
};

/* Which output of apply p feeds input var v (0 when not found). */
static int
out_slot(const struct gp_prof_apply *p, const char *v)
{
	if (p->n_out == 1)
		return (0);
	for (int k = 0; k < p->n_out; k++)
		if (p->out[k].var != NULL && v != NULL &&
		    strcmp(p->out[k].var, v) == 0)
			return (k);
	return (0);
}

/* Do applies x and y have the same op and input dtypes and shapes? */
static bool
same_sig(const struct gp_prof_apply *x, const struct gp_prof_apply *y)
{
	if (x->n_in != y->n_in || strcmp(x->op, y->op) != 0)
		return (false);
	for (int k = 0; k < x->n_in; k++)
		if (!gp_prof_io_same_shape(&x->in[k], &y->in[k]))
			return (false);
	return (true);
}

/* How many applies ahead side_init asks for the heap blocks it reads of
 * one (its op, inputs and producers). */
#define SIDE_AHEAD 8

static void
side_init(struct side *sd, const struct gp_prof_fn *f, uint64_t *sig_out)
{
	size_t n = (size_t)f->n_apply, nin = 0;
	struct gp_diff_kmap sigs;
	int *sig_next;
	uint8_t *nout;

	sd->f = f;
	sd->base = gp_xmalloc(sizeof(uint64_t) * (n + 1));
	sd->name = NULL;	/* made when first needed (side_names) */
	sd->leaves = gp_xmalloc(sizeof(uint64_t) * (n + 1));
	sd->sig = gp_xmalloc(sizeof(int) * (n + 1));
	sd->rep = gp_xmalloc(sizeof(int) * (n + 1));
	sd->n_sig = 0;
	sd->first = gp_xmalloc(sizeof(int) * (n + 1));
	/* the applies in order, once: their inputs' count, and whether
	 * they have one output (what an input's slot needs of its
	 * producer, met in any order) */
	nout = gp_xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		nin += (size_t)f->ap[i].n_in;
		nout[i] = f->ap[i].n_out == 1;
	}
	sd->slot = gp_xmalloc(sizeof(int) * (nin + 1));
	sd->prod = gp_xmalloc(sizeof(int) * (nin + 1));
	/* the signatures: a map from their hash to a chain of their ids,
	 * sig_next[id] the id's next in the chain */
	gp_diff_kmap_init(&sigs, n);
	sig_next = gp_xmalloc(sizeof(int) * (n + 1));
	nin = 0;
	for (size_t i = 0; i < n; i++) {
		const struct gp_prof_apply *a = &f->ap[i];
		uint64_t h, l = GP_HASH_INIT, sh;
		size_t slot;
		int id;

		if (i + SIDE_AHEAD < n) {
			const struct gp_prof_apply *q = &f->ap[i + SIDE_AHEAD];

			__builtin_prefetch(q->op);
			__builtin_prefetch(q->in_producer);
			/* each input's type (struct gp_prof_io: lines
			 * apart) */
			for (int k = 0; k < q->n_in && k < 4; k++)
				__builtin_prefetch(&q->in[k]);
		}
		sh = gp_diff_sig_hash(a);
		if (sig_out != NULL)
			sig_out[i] = sh;
		/* its signature's id: the first apply of the same one */
		slot = gp_diff_kmap_slot(&sigs, sh);
		for (id = sigs.head[slot]; id >= 0; id = sig_next[id])
			if (same_sig(a, &f->ap[sd->rep[id]]))
				break;
		if (id < 0) {
			id = sd->n_sig++;
			sd->rep[id] = (int)i;
			sigs.key[slot] = sh;
			sig_next[id] = sigs.head[slot];
			sigs.head[slot] = id;
		}
		sd->sig[i] = id;
		h = sh;
		sd->first[i] = (int)nin;
		for (int k = 0; k < a->n_in; k++) {
			int pr = a->in_producer[k];

			h = gp_hash_mix(h, pr < 0 ? 1 : 2);
			if (pr < 0)
				l = gp_diff_hstr(gp_hash_mix(l, (uint64_t)k),
				    a->in[k].var);
			sd->prod[nin] = pr;
			sd->slot[nin++] = pr < 0 || nout[pr] ? 0 :
			    out_slot(&f->ap[pr], a->in[k].var);
		}
		sd->base[i] = h;
		sd->leaves[i] = l;
	}
	sd->first[n] = (int)nin;
	gp_diff_kmap_free(&sigs);
	free(sig_next);
	free(nout);
}
/* The hashes of the applies' names, made the first time a pass pairs by
 * name (most diffs pair every apply by structure first). */
static void
side_names(struct side *sd)
{
	size_t n = (size_t)sd->f->n_apply;

	if (sd->name != NULL)
		return;
	sd->name = gp_xmalloc(sizeof(uint64_t) * (n + 1));
	for (size_t i = 0; i < n; i++)
		sd->name[i] = gp_diff_hstr(GP_HASH_INIT, sd->f->ap[i].name);
}

/* B's side of a big function, on a second thread while A's is made. */
static void *
side_init_b(void *arg)
{
	struct pairing *pg = arg;

	side_init(&pg->b, pg->b.f, pg->sig_b);
	return (NULL);
}

static void
side_done(struct side *sd)
{
	free(sd->base);
	free(sd->name);
	free(sd->leaves);
	free(sd->sig);
	free(sd->rep);
	free(sd->prod);
	free(sd->slot);
	free(sd->first);
}

/* pg->sig_ab: each signature of A to B's same one (by the hash of a
 * representative, then compared), or -1. */
static void
map_sigs(struct pairing *pg)
{
	const struct side *a = &pg->a, *b = &pg->b;
	struct gp_diff_kmap m;
	int *next = gp_xmalloc(sizeof(int) * ((size_t)b->n_sig + 1));

	pg->sig_ab = gp_xmalloc(sizeof(int) * ((size_t)a->n_sig + 1));
	gp_diff_kmap_init(&m, (size_t)b->n_sig);
	for (int s = b->n_sig - 1; s >= 0; s--)
		gp_diff_kmap_push(&m, next,
		    gp_diff_sig_hash(&b->f->ap[b->rep[s]]), s);
	for (int s = 0; s < a->n_sig; s++) {
		const struct gp_prof_apply *x = &a->f->ap[a->rep[s]];
		int t = m.head[gp_diff_kmap_slot(&m, gp_diff_sig_hash(x))];

		while (t >= 0 && !same_sig(x, &b->f->ap[b->rep[t]]))
			t = next[t];
		pg->sig_ab[s] = t;
	}
	gp_diff_kmap_free(&m);
	free(next);
}

/* The key of apply i of side sd for tier t.  A side: map gives each
 * producer's partner (-1: none yet, and then no key but for TIER_LOOSE).
 * B side: map is NULL, producers keep their own position, and own (B's
 * partners) tells TIER_LOOSE which are paired. */
static bool
apply_key(const struct side *sd, int i, const int *map, const int *own,
    enum tier t, uint64_t *out)
{
	uint64_t h;

	if (t == TIER_NAME) {
		*out = sd->name[i];
		return (true);
	}
	h = sd->base[i];
	if (t == TIER_STRUCTURE)
		h = gp_hash_mix(h, sd->leaves[i]);
	for (int k = sd->first[i]; k < sd->first[i + 1]; k++) {
		int pr = sd->prod[k];

		if (pr < 0)
			continue;
		if (map != NULL)
			pr = map[pr];
		else if (t == TIER_LOOSE && own[pr] < 0)
			pr = -1;
		if (pr < 0 && t != TIER_LOOSE)
			return (false);
		h = gp_hash_mix(h, (uint64_t)sd->slot[k]);
		h = gp_hash_mix(h, (uint64_t)(int64_t)pr);
	}
	*out = h;
	return (true);
}

/* Does A apply i really pair with B apply j under tier t (guarding against
 * hash collisions)?  The same op and input types by their interned
 * signatures, the producers by the sides' arrays: only a graph input's
 * name is read from the applies. */
static bool
verify(const struct pairing *pg, int i, int j, enum tier t)
{
	const struct side *a = &pg->a, *b = &pg->b;
	int ka, kb;

	if (t == TIER_NAME)
		return (strcmp(a->f->ap[i].name, b->f->ap[j].name) == 0);
	if (pg->sig_ab[a->sig[i]] != b->sig[j])
		return (false);
	/* the same signature: as many inputs */
	for (ka = a->first[i], kb = b->first[j]; ka < a->first[i + 1];
	    ka++, kb++) {
		int px = a->prod[ka], py = b->prod[kb];

		if ((px < 0) != (py < 0))
			return (false);
		if (px < 0) {
			int k = ka - a->first[i];

			if (t == TIER_STRUCTURE &&
			    strcmp(a->f->ap[i].in[k].var,
			    b->f->ap[j].in[k].var) != 0)
				return (false);
		} else if (pg->pa[px] != py && !(t == TIER_LOOSE &&
		    pg->pa[px] < 0 && pg->pb[py] < 0))
			return (false);
	}
	return (true);
}

/* Index B's applies under tier t (the unpaired ones for TIER_LOOSE,
 * whose keys change as pairs are made). */
static void
index_b(struct pairing *pg, enum tier t)
{
	int n = pg->b.f->n_apply;

	if (pg->next[t] == NULL) {
		gp_diff_kmap_init(&pg->map[t], (size_t)n);
		pg->next[t] = gp_xmalloc(sizeof(int) * ((size_t)n + 1));
	} else
		memset(pg->map[t].head, -1, pg->map[t].cap * sizeof(int));
	for (int j = n - 1; j >= 0; j--) {
		uint64_t k;

		if (t == TIER_LOOSE && pg->pb[j] >= 0)
			continue;
		if (apply_key(&pg->b, j, NULL, pg->pb, t, &k))
			gp_diff_kmap_push(&pg->map[t], pg->next[t], k, j);
	}
}

/* Pair A apply i under tier t, if it can be. */
static bool
try_pair(struct pairing *pg, int i, enum tier t)
{
	struct gp_diff_kmap *m = &pg->map[t];
	uint64_t k;
	size_t h;

	/* a strict tier's index is made when first needed: most diffs
	 * pair every apply by structure and never look by name or shape
	 * (made later, it is the same: it holds every B apply) */
	if (t != TIER_LOOSE && pg->next[t] == NULL) {
		if (t == TIER_NAME) {
			side_names(&pg->a);
			side_names(&pg->b);
		}
		index_b(pg, t);
	}
	if (!apply_key(&pg->a, i, pg->pa, NULL, t, &k))
		return (false);
	h = gp_diff_kmap_slot(m, k);
	/* drop paired applies off the chain's head */
	while (m->head[h] >= 0 && pg->pb[m->head[h]] >= 0)
		m->head[h] = pg->next[t][m->head[h]];
	for (int j = m->head[h]; j >= 0; j = pg->next[t][j]) {
		if (pg->pb[j] >= 0 || !verify(pg, i, j, t))
			continue;
		pg->pa[i] = j;
		pg->pb[j] = i;
		pg->how[i] = tier_match[t];
		return (true);
	}
	return (false);
}

/* One pass over the unpaired A applies in schedule order, each tried
 * under the tiers up to t, strictest first (so what a looser tier pairs
 * lets the applies after it pair by structure in the same pass). */
static bool
pass(struct pairing *pg, enum tier t)
{
	bool changed = false;

	if (t == TIER_LOOSE)
		index_b(pg, t);
	for (int i = 0; i < pg->a.f->n_apply; i++)
		for (int u = 0; u <= (int)t && pg->pa[i] < 0; u++)
			changed |= try_pair(pg, i, (enum tier)u);
	return (changed);
}

void
gp_diff_pair_applies(struct gp_diff_pairs *p)
{
	struct pairing pair = {.a.f = p->fa, .b.f = p->fb, .pa = p->pa,
	    .pb = p->pb, .how = p->how, .sig_b = p->sig_b};
	struct pairing *pg = &pair;
	pthread_t th;
	bool threaded = pg->b.f->n_apply >= GP_DIFF_THREAD_MIN &&
	    pthread_create(&th, NULL, side_init_b, pg) == 0;

	side_init(&pg->a, pg->a.f, p->sig_a);
	if (threaded)
		pthread_join(th, NULL);
	else
		side_init(&pg->b, pg->b.f, p->sig_b);
	map_sigs(pg);
	/* the strict tiers until they settle, then a loose pass */
	for (int round = 0; round < MAX_ROUNDS; round++) {
		bool changed = false;

		for (int t = 0; t < TIER_LOOSE; t++)
			changed |= pass(pg, t);
		if (!changed && !pass(pg, TIER_LOOSE))
			break;
	}
	for (int t = 0; t < TIER__COUNT; t++) {
		if (pg->next[t] != NULL)
			gp_diff_kmap_free(&pg->map[t]);
		free(pg->next[t]);
	}
	side_done(&pg->a);
	side_done(&pg->b);
	free(pg->sig_ab);
}
