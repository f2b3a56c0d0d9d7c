/*
 * memsearch.c: the smallest peak over valid orders (see memsearch.h).
 */
#include "config.h"

#include "prof/memsearch.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"

#define DEF_BUDGET_MS	1000
#define DEF_MAX_STATES	2000000
/* memo memory cap, bytes */
#define MEMO_MAX_BYTES	((size_t)256 << 20)
/* above this many applies the search keeps only the best few children of
 * every state: it can then prove optimality only by meeting the bound */
#define WIDE_LIMIT	512
#define WIDE_CHILDREN	4

/*
 * search: the smallest peak over valid orders.
 */
struct frame {
	int	mv;		/* the move into this state, -1: root */
	int	n_forced;	/* moves forced after it */
	size_t	c0, c1, next;	/* its children in cand[] */
	int	lbp;		/* lb_order[lbp...]: steps maybe to run */
};

struct cand {
	uint64_t	k1, k2;
	int		p;
};

struct search {
	struct mr_model	*m;
	int		 n, W;
	int		*succ0, *succ;	/* dependency edges, CSR */
	int		*npred;
	uint64_t	*ready, *done;	/* bitsets */
	uint64_t	*zob, hash;
	uint64_t	*lbs;		/* per step: a bound all orders meet */
	int		*lb_order;	/* steps by lbs, descending */
	uint64_t	 lb;
	int		*path;
	uint64_t	*pk;		/* per depth: peak so far */
	int		 depth;
	uint64_t	 best;
	int		*best_order;
	/* memo: down-set -> the smallest peak it was reached with */
	uint64_t	*mkey, *mval, *mhash;
	size_t		 mcap, mn, mmax;
	/* budget */
	uint64_t	 deadline, states, max_states;
	bool		 stop, truncated;
	struct cand	*cand;
	size_t		 n_cand, cap_cand;
	struct frame	*fr;
	int		 n_fr;
	/* the dynamic bound (small graphs): ancestors of every step, the
	 * consumers of every temporary, scratch per storage */
	bool		 dyn;
	uint64_t	*anc;		/* n x W */
	int		*cons0, *cons;
	uint64_t	*pin;		/* nv x W: steps a storage outlives */
	int		*touched, *olist;
	int		 stamp;
};

/* Steps up to this many get the dynamic bound. */
#define DYN_LIMIT 256

static uint64_t
splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

static inline bool
bit_get(const uint64_t *b, int i)
{
	return ((b[i >> 6] >> (i & 63)) & 1);
}

static inline void
bit_set(uint64_t *b, int i)
{
	b[i >> 6] |= (uint64_t)1 << (i & 63);
}

static inline void
bit_clr(uint64_t *b, int i)
{
	b[i >> 6] &= ~((uint64_t)1 << (i & 63));
}

static void
move_exec(struct search *s, int p)
{
	uint64_t d = mr_model_exec(s->m, p);

	s->pk[s->depth + 1] = mr_max64(s->pk[s->depth], d);
	s->path[s->depth++] = p;
	bit_set(s->done, p);
	bit_clr(s->ready, p);
	s->hash ^= s->zob[p];
	for (int j = s->succ0[p]; j < s->succ0[p + 1]; j++)
		if (--s->npred[s->succ[j]] == 0)
			bit_set(s->ready, s->succ[j]);
}

static void
move_undo(struct search *s)
{
	int p = s->path[--s->depth];

	for (int j = s->succ0[p + 1] - 1; j >= s->succ0[p]; j--)
		if (s->npred[s->succ[j]]++ == 0)
			bit_clr(s->ready, s->succ[j]);
	bit_set(s->ready, p);
	bit_clr(s->done, p);
	s->hash ^= s->zob[p];
	mr_model_undo(s->m, p);
}

/* Is the down-set known with a peak <= pk?  Else remember it. */
static bool
memo_seen(struct search *s, uint64_t pk)
{
	size_t W = (size_t)s->W, i;

	if (s->mcap == 0)
		return (false);
	i = (size_t)s->hash & (s->mcap - 1);
	for (;;) {
		if (s->mval[i] == UINT64_MAX)
			break;
		if (s->mhash[i] == s->hash &&
		    memcmp(&s->mkey[i * W], s->done, W * 8) == 0) {
			if (s->mval[i] <= pk)
				return (true);
			s->mval[i] = pk;
			return (false);
		}
		i = (i + 1) & (s->mcap - 1);
	}
	if (s->mn + 1 > s->mcap / 2) {
		/* grow, or stop remembering */
		size_t ncap = s->mcap * 2;
		uint64_t *nk, *nv, *nh;

		if (ncap / 2 > s->mmax)
			return (false);
		nk = gp_xmalloc(ncap * W * 8);
		nv = gp_xmalloc(ncap * 8);
		nh = gp_xmalloc(ncap * 8);
		for (size_t j = 0; j < ncap; j++)
			nv[j] = UINT64_MAX;
		for (size_t j = 0; j < s->mcap; j++) {
			size_t t;

			if (s->mval[j] == UINT64_MAX)
				continue;
			t = (size_t)s->mhash[j] & (ncap - 1);
			while (nv[t] != UINT64_MAX)
				t = (t + 1) & (ncap - 1);
			nv[t] = s->mval[j];
			nh[t] = s->mhash[j];
			memcpy(&nk[t * W], &s->mkey[j * W], W * 8);
		}
		free(s->mkey);
		free(s->mval);
		free(s->mhash);
		s->mkey = nk;
		s->mval = nv;
		s->mhash = nh;
		s->mcap = ncap;
		i = (size_t)s->hash & (ncap - 1);
		while (s->mval[i] != UINT64_MAX)
			i = (i + 1) & (ncap - 1);
	}
	s->mval[i] = pk;
	s->mhash[i] = s->hash;
	memcpy(&s->mkey[i * W], s->done, W * 8);
	s->mn++;
	return (false);
}

static int
cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->k1 != y->k1)
		return (x->k1 < y->k1 ? -1 : 1);
	if (x->k2 != y->k2)
		return (x->k2 < y->k2 ? -1 : 1);
	return (x->p - y->p);
}

static void
budget_check(struct search *s)
{
	s->states++;
	/* a state of a large graph costs enough to read the clock each
	 * time */
	if (s->states >= s->max_states)
		s->stop = true;
	else if ((s->n > 4096 || (s->states & 63) == 0) &&
	    gp_clock_ns() >= s->deadline)
		s->stop = true;
}

/*
 * A bound on every completion of the state: when a step still to run
 * runs, its inputs, its new outputs and every storage alive now that a
 * later step (a descendant of it) or the caller still needs are alive.
 */
static uint64_t
dyn_bound(struct search *s)
{
	struct mr_model *m = s->m;
	size_t W = (size_t)s->W;
	int no = 0;
	uint64_t bound = 0;

	s->stamp++;
	for (int u = 0; u < m->nv; u++) {
		int o = m->org[u];
		uint64_t *pin;

		if (o < 0 || !bit_get(s->done, m->prod[u]) ||
		    (!m->surv[u] && m->rem[u] == 0))
			continue;
		pin = &s->pin[(size_t)o * W];
		if (s->touched[o] != s->stamp) {
			s->touched[o] = s->stamp;
			s->olist[no++] = o;
			memset(pin, 0, W * 8);
		}
		if (m->surv[u]) {
			memset(pin, 0xff, W * 8);
			continue;
		}
		for (int j = s->cons0[u]; j < s->cons0[u + 1]; j++) {
			int c = s->cons[j];

			if (bit_get(s->done, c))
				continue;
			for (size_t w = 0; w < W; w++)
				pin[w] |= s->anc[(size_t)c * W + w];
		}
	}
	for (int p = 0; p < s->n; p++) {
		uint64_t b;

		if (bit_get(s->done, p))
			continue;
		b = s->lbs[p];
		for (int k = 0; k < no; k++) {
			int o = s->olist[k];
			bool input = false;

			if (!bit_get(&s->pin[(size_t)o * W], p))
				continue;
			for (int j = m->in0[p]; j < m->in0[p + 1] && !input;
			    j++)
				input = m->org[m->ins[j]] == o;
			if (!input)
				b += m->bytes[o];
		}
		bound = mr_max64(bound, b);
	}
	return (bound);
}

static void
dyn_init(struct search *s)
{
	struct mr_model *m = s->m;
	size_t W = (size_t)s->W;
	int n = s->n;

	s->dyn = n <= DYN_LIMIT;
	if (!s->dyn)
		return;
	s->anc = gp_xcalloc((size_t)n * W + 1, 8);
	/* edges go forward in the schedule: ancestors in schedule order */
	for (int p = 0; p < n; p++)
		for (int j = s->succ0[p]; j < s->succ0[p + 1]; j++) {
			uint64_t *a = &s->anc[(size_t)s->succ[j] * W];

			for (size_t w = 0; w < W; w++)
				a[w] |= s->anc[(size_t)p * W + w];
			bit_set(a, p);
		}
	s->cons0 = gp_xcalloc((size_t)m->nv + 2, sizeof(int));
	s->cons = gp_xmalloc(sizeof(int) * ((size_t)m->in0[n] + 1));
	for (int j = 0; j < m->in0[n]; j++)
		s->cons0[m->ins[j] + 1]++;
	for (int u = 0; u < m->nv; u++)
		s->cons0[u + 1] += s->cons0[u];
	{
		int *fill = gp_xmalloc(sizeof(int) * ((size_t)m->nv + 1));

		memcpy(fill, s->cons0, sizeof(int) * (size_t)m->nv);
		for (int p = 0; p < n; p++)
			for (int j = m->in0[p]; j < m->in0[p + 1]; j++)
				s->cons[fill[m->ins[j]]++] = p;
		free(fill);
	}
	s->pin = gp_xmalloc(((size_t)m->nv + 1) * W * 8);
	s->touched = gp_xcalloc((size_t)m->nv + 1, sizeof(int));
	s->olist = gp_xmalloc(sizeof(int) * ((size_t)m->nv + 1));
}

/*
 * Arrive at a state: make the forced moves (a ready step that raises
 * neither the peak so far, nor the bound every order meets, nor the live
 * bytes can go first: moving it to the front of any completion lowers or
 * keeps every later figure), then test the state.  Returns true when it
 * has children to explore (fr filled), false when it is a leaf or pruned;
 * either way fr->n_forced moves are to undo.
 */
static bool
enter(struct search *s, struct frame *fr)
{
	struct mr_model *m = s->m;
	int d;
	uint64_t rest;

	fr->n_forced = 0;
	for (bool again = true; again;) {
		uint64_t thr = mr_max64(s->pk[s->depth], s->lb);

		again = false;
		for (int w = 0; w < s->W && !again; w++) {
			uint64_t bits = s->ready[w];

			while (bits != 0) {
				int p = w * 64 + __builtin_ctzll(bits);
				uint64_t before = m->live;

				bits &= bits - 1;
				if (before + m->alloc[p] > thr)
					continue;
				move_exec(s, p);
				if (m->live <= before) {
					fr->n_forced++;
					again = true;
					if ((fr->n_forced & 1023) == 0 &&
					    gp_clock_ns() >= s->deadline) {
						s->stop = true;
						return (false);
					}
					break;
				}
				move_undo(s);
			}
		}
	}
	d = s->depth;
	if (d == s->n) {
		if (s->pk[d] < s->best) {
			s->best = s->pk[d];
			memcpy(s->best_order, s->path, sizeof(int) *
			    (size_t)s->n);
			if (s->best <= s->lb)
				s->stop = true;
		}
		return (false);
	}
	budget_check(s);
	if (s->stop)
		return (false);
	/* the largest bound of a step still to run */
	{
		int k = fr->lbp;

		while (k < s->n && bit_get(s->done, s->lb_order[k]))
			k++;
		fr->lbp = k;
		rest = k < s->n ? s->lbs[s->lb_order[k]] : 0;
	}
	if (mr_max64(s->pk[d], rest) >= s->best)
		return (false);
	if (memo_seen(s, s->pk[d]))
		return (false);
	if (s->dyn && dyn_bound(s) >= s->best)
		return (false);
	/* children, most promising first */
	fr->c0 = s->n_cand;
	for (int w = 0; w < s->W; w++) {
		uint64_t bits = s->ready[w];

		while (bits != 0) {
			int p = w * 64 + __builtin_ctzll(bits);
			uint64_t k1 = mr_max64(s->pk[d], m->live + m->alloc[p]);
			struct cand *c;

			bits &= bits - 1;
			if (k1 >= s->best)
				continue;
			gp_grow(&s->cand, &s->cap_cand, s->n_cand + 1,
			    sizeof(*s->cand));
			c = &s->cand[s->n_cand++];
			c->k1 = k1;
			c->p = p;
			(void)mr_model_exec(m, p);
			c->k2 = m->live;
			mr_model_undo(m, p);
		}
	}
	fr->c1 = s->n_cand;
	qsort(&s->cand[fr->c0], fr->c1 - fr->c0, sizeof(*s->cand), cmp_cand);
	if (s->n > WIDE_LIMIT && fr->c1 - fr->c0 > WIDE_CHILDREN) {
		fr->c1 = fr->c0 + WIDE_CHILDREN;
		s->n_cand = fr->c1;
		s->truncated = true;
	}
	fr->next = fr->c0;
	return (fr->c1 > fr->c0);
}

static void
frame_undo(struct search *s, const struct frame *fr)
{
	for (int k = 0; k < fr->n_forced; k++)
		move_undo(s);
	if (fr->mv >= 0)
		move_undo(s);
}

static void
edge_add(int **ea, int **eb, size_t *n, size_t *ca, size_t *cb, int a, int b)
{
	gp_grow(ea, ca, *n + 1, sizeof(int));
	gp_grow(eb, cb, *n + 1, sizeof(int));
	(*ea)[*n] = a;
	(*eb)[(*n)++] = b;
}

/* The edges every valid order keeps: data, and for an output that
 * overwrites its input, every earlier reader of that storage first. */
static void
search_edges(struct search *s, const struct gp_graph *g,
    const struct mr_prog *pr)
{
	struct mr_model *m = s->m;
	int n = s->n;
	int *root = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	bool *hasd = gp_xcalloc(g->n_vars + 1, sizeof(bool));
	int *head = gp_xmalloc(sizeof(int) * (g->n_vars + 1));
	int *ev_step = NULL, *ev_next = NULL;
	size_t n_ev = 0, cap1 = 0, cap2 = 0;
	int *ea = NULL, *eb = NULL;
	size_t n_e = 0, cea = 0, ceb = 0;

	for (size_t v = 0; v < g->n_vars; v++) {
		root[v] = (int)v;
		head[v] = -1;
	}
	for (int i = 0; i < n; i++)
		for (int j = pr->out0[i]; j < pr->out0[i + 1]; j++) {
			const struct mr_pout *o = &pr->outs[j];

			if (o->mode != MR_ALLOC)
				root[o->var] = root[o->src];
			if (o->mode == MR_DESTROY)
				hasd[root[o->src]] = true;
		}
	/* data edges */
	for (int i = 0; i < n; i++)
		for (int j = m->in0[i]; j < m->in0[i + 1]; j++) {
			edge_add(&ea, &eb, &n_e, &cea, &ceb,
			    m->prod[m->ins[j]], i);
		}
	/* destroy edges: readers since the last overwrite go first */
	for (int i = 0; i < n; i++) {
		const struct gp_node *nd = &g->nodes[pr->node[i]];

		for (int j = pr->out0[i]; j < pr->out0[i + 1]; j++) {
			int c;

			if (pr->outs[j].mode != MR_DESTROY)
				continue;
			c = root[pr->outs[j].src];
			for (int e = head[c]; e >= 0; e = ev_next[e])
				if (ev_step[e] != i) {
					edge_add(&ea, &eb, &n_e, &cea, &ceb,
					    ev_step[e], i);
				}
			head[c] = -1;
		}
		for (int k = 0; k < nd->n_in; k++) {
			int c = root[nd->in[k]];

			if (!hasd[c] || (head[c] >= 0 && ev_step[head[c]] == i))
				continue;
			gp_grow(&ev_step, &cap1, n_ev + 1, sizeof(int));
			gp_grow(&ev_next, &cap2, n_ev + 1, sizeof(int));
			ev_step[n_ev] = i;
			ev_next[n_ev] = head[c];
			head[c] = (int)n_ev++;
		}
	}
	s->succ0 = gp_xcalloc((size_t)n + 2, sizeof(int));
	s->succ = gp_xmalloc(sizeof(int) * (n_e + 1));
	s->npred = gp_xcalloc((size_t)n + 1, sizeof(int));
	for (size_t e = 0; e < n_e; e++) {
		s->succ0[ea[e] + 1]++;
		s->npred[eb[e]]++;
	}
	for (int i = 0; i < n; i++)
		s->succ0[i + 1] += s->succ0[i];
	{
		int *fill = gp_xmalloc(sizeof(int) * ((size_t)n + 1));

		memcpy(fill, s->succ0, sizeof(int) * (size_t)n);
		for (size_t e = 0; e < n_e; e++)
			s->succ[fill[ea[e]]++] = eb[e];
		free(fill);
	}
	free(ea);
	free(eb);
	free(ev_step);
	free(ev_next);
	free(root);
	free(hasd);
	free(head);
}

struct lbkey {
	uint64_t	lb;
	int		p;
};

static int
cmp_lb(const void *a, const void *b)
{
	const struct lbkey *x = a, *y = b;

	if (x->lb != y->lb)
		return (x->lb > y->lb ? -1 : 1);
	return (x->p - y->p);
}

/* Static bounds: every step holds its inputs' storages and its new
 * outputs at once; after the last step, everything the call returns is
 * alive. */
static void
search_bounds(struct search *s)
{
	struct mr_model *m = s->m;
	int *seen = gp_xcalloc((size_t)m->nv + 1, sizeof(int));
	uint64_t surv = 0;

	s->lbs = gp_xcalloc((size_t)s->n + 1, sizeof(uint64_t));
	s->lb_order = gp_xmalloc(sizeof(int) * ((size_t)s->n + 1));
	for (int i = 0; i < s->n; i++) {
		uint64_t b = m->alloc[i];

		for (int j = m->in0[i]; j < m->in0[i + 1]; j++) {
			int o = m->org[m->ins[j]];

			if (o >= 0 && seen[o] != i + 1) {
				seen[o] = i + 1;
				b += m->bytes[o];
			}
		}
		s->lbs[i] = b;
		s->lb = mr_max64(s->lb, b);
	}
	for (int u = 0; u < m->nv; u++) {
		int o = m->org[u];

		if (m->surv[u] && o >= 0 && seen[o] != -1) {
			seen[o] = -1;
			surv += m->bytes[o];
		}
	}
	s->lb = mr_max64(s->lb, surv);
	{
		struct lbkey *k = gp_xmalloc(sizeof(*k) * ((size_t)s->n + 1));

		for (int i = 0; i < s->n; i++) {
			k[i].lb = s->lbs[i];
			k[i].p = i;
		}
		qsort(k, (size_t)s->n, sizeof(*k), cmp_lb);
		for (int i = 0; i < s->n; i++)
			s->lb_order[i] = k[i].p;
		free(k);
	}
	free(seen);
}

void
gp_memsearch_run(struct gp_memprof *mp, struct mr_model *m,
    const struct gp_graph *g, const struct mr_prog *pr, int64_t budget_ms,
    int64_t max_states)
{
	struct search s;
	uint64_t t0 = gp_clock_ns(), seed = 0x6770746f70ULL;
	int64_t budget = budget_ms > 0 ? budget_ms : DEF_BUDGET_MS;
	int n = m->n;

	memset(&s, 0, sizeof(s));
	s.m = m;
	s.n = n;
	s.W = (n + 63) / 64;
	if (s.W == 0)
		s.W = 1;
	s.deadline = t0 + (uint64_t)budget * 1000000u;
	s.max_states = max_states > 0 ? (uint64_t)max_states :
	    DEF_MAX_STATES;
	gp_memreplay_model_variant(m, GP_MEM_AS_RUN);
	gp_memreplay_model_reset(m, true);
	search_edges(&s, g, pr);
	search_bounds(&s);
	dyn_init(&s);
	s.ready = gp_xcalloc((size_t)s.W, 8);
	s.done = gp_xcalloc((size_t)s.W, 8);
	s.zob = gp_xmalloc(sizeof(uint64_t) * ((size_t)n + 1));
	for (int i = 0; i < n; i++) {
		s.zob[i] = splitmix(&seed);
		if (s.npred[i] == 0)
			bit_set(s.ready, i);
	}
	s.path = gp_xmalloc(sizeof(int) * ((size_t)n + 1));
	s.pk = gp_xcalloc((size_t)n + 2, sizeof(uint64_t));
	s.fr = gp_xmalloc(sizeof(*s.fr) * ((size_t)n + 2));
	/* the executed order is the first incumbent */
	s.best_order = gp_xmalloc(sizeof(int) * ((size_t)n + 1));
	for (int i = 0; i < n; i++)
		s.best_order[i] = i;
	s.best = gp_memreplay_model_eval(m, true, NULL, NULL);
	gp_memreplay_model_reset(m, true);
	s.mmax = MEMO_MAX_BYTES / ((size_t)s.W * 8 + 16);
	s.mcap = 1024;
	s.mkey = gp_xmalloc(s.mcap * (size_t)s.W * 8);
	s.mval = gp_xmalloc(s.mcap * 8);
	s.mhash = gp_xmalloc(s.mcap * 8);
	for (size_t i = 0; i < s.mcap; i++)
		s.mval[i] = UINT64_MAX;
	if (s.best <= s.lb)
		s.stop = true;
	if (!s.stop) {
		struct frame root = {.mv = -1, .lbp = 0};

		if (enter(&s, &root))
			s.fr[s.n_fr++] = root;
		else
			frame_undo(&s, &root);
	}
	while (s.n_fr > 0) {
		struct frame *f = &s.fr[s.n_fr - 1];
		struct frame nf;
		int p;

		if (s.stop || f->next == f->c1) {
			frame_undo(&s, f);
			s.n_cand = f->c0;
			s.n_fr--;
			continue;
		}
		p = s.cand[f->next++].p;
		if (mr_max64(s.pk[s.depth], m->live + m->alloc[p]) >= s.best)
			continue;
		move_exec(&s, p);
		nf.mv = p;
		nf.lbp = f->lbp;
		if (enter(&s, &nf))
			s.fr[s.n_fr++] = nf;
		else
			frame_undo(&s, &nf);
	}
	mp->min_done = true;
	mp->min_peak = s.best;
	mp->min_lower = s.lb;
	mp->min_optimal = s.best <= s.lb || (!s.stop && !s.truncated);
	mp->min_states = s.states;
	mp->min_order = s.best_order;
	mp->min_ms = (double)(gp_clock_ns() - t0) / 1e6;
	free(s.succ0);
	free(s.succ);
	free(s.npred);
	free(s.ready);
	free(s.done);
	free(s.zob);
	free(s.lbs);
	free(s.lb_order);
	free(s.path);
	free(s.pk);
	free(s.mkey);
	free(s.mval);
	free(s.mhash);
	free(s.cand);
	free(s.fr);
	free(s.anc);
	free(s.cons0);
	free(s.cons);
	free(s.pin);
	free(s.touched);
	free(s.olist);
}
