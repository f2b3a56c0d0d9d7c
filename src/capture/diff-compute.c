/*
 * diff-compute.c: the comparison of two profiles (diff.h): functions paired by
 * name, their applies paired (diff-pair.c) and the Apply, Class and Ops
 * tables built from the pairs and the two sides' rollups, each row judged
 * (diff-noise.c) and the tables sorted (diff-sort.c); the Class and Ops
 * tables on a second thread meanwhile.  The text report is
 * diff-report.c's.
 */
#include "config.h"

#include "capture/diff.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "capture/diff-impl.h"
#include "prof/memprof.h"

/* How many rows (or applies) ahead a loop over them asks for the memory
 * it will read of one (its bins, its name: a heap block each). */
#define PREFETCH_AHEAD 16

void
gp_diff_opts_init(struct gp_diff_opts *o)
{
	o->alpha = 0.05;
	o->min_change = 0.05;
	o->min_samples = 4;
	o->floor_probes = 3;
	o->same_load = false;
	o->per_call = false;
}

bool
gp_diff_calls_differ(const struct gp_profile *a, const struct gp_profile *b)
{
	for (int f = 0; f < a->n_fn; f++)
		for (int g = 0; g < b->n_fn; g++)
			if (strcmp(a->fn[f].name, b->fn[g].name) == 0 &&
			    a->fn[f].call.n != b->fn[g].call.n)
				return (true);
	return (false);
}

struct rows {
	struct gp_diff_row	*v;
	size_t			 n, cap;
};

static struct gp_diff_row *
add_row(struct rows *rs)
{
	struct gp_diff_row *r;

	gp_grow(&rs->v, &rs->cap, rs->n + 1, sizeof(*rs->v));
	r = &rs->v[rs->n++];
	memset(r, 0, sizeof(*r));
	r->fn_a = r->id_a = r->fn_b = r->id_b = -1;
	r->group = -1;
	return (r);
}

static void
finish_table(struct gp_diff_table *t, struct rows *rs, double total_a,
    double total_b, const struct gp_diff_opts *o)
{
	t->rows = rs->v;
	t->n = rs->n;
	t->total_a = total_a;
	t->total_b = total_b;
	gp_diff_adjust_rows(t->rows, t->n, sizeof(*t->rows), o);
	for (size_t i = 0; i < t->n; i++) {
		struct gp_diff_row *r = &t->rows[i];

		r->pct_a = total_a > 0 ? 100 * r->time_a / total_a : 0;
		r->pct_b = total_b > 0 ? 100 * r->time_b / total_b : 0;
		if (r->kind == GP_DIFF_ADDED)
			t->n_added++;
		else if (r->kind == GP_DIFF_REMOVED)
			t->n_removed++;
		else
			t->n_paired++;
		if (r->verdict == GP_VERDICT_SLOWER ||
		    r->verdict == GP_VERDICT_FASTER)
			t->n_significant++;
	}
	gp_diff_sort(t, GP_DIFF_COL_ABS_DELTA, true);
}

/* Per apply of p, in schedule order function by function, its identity
 * in the mix of a Class or Ops row: its op (with its params) and input
 * signature (gp_diff_sig_hash).  Against ONNX Runtime's profile, of the
 * views the tables roll up; else the pairing makes them on the way
 * (fn_rows, idents_rest). */
static uint64_t *
apply_idents(const struct gp_profile *p)
{
	size_t n = 0, k = 0;
	uint64_t *id;

	for (int f = 0; f < p->n_fn; f++)
		n += (size_t)p->fn[f].n_apply;
	id = gp_xmalloc(sizeof(*id) * (n + 1));
	for (int f = 0; f < p->n_fn; f++)
		for (int i = 0; i < p->fn[f].n_apply; i++)
			id[k++] = gp_diff_sig_hash(&p->fn[f].ap[i]);
	return (id);
}

/* Per row of t (a rollup of every function), the sum of its applies'
 * identities id[], which is the same on both sides when the rows hold
 * alike applies. */
static uint64_t *
mix_sums(const struct gp_prof_table *t, const uint64_t *id)
{
	uint64_t *sum = gp_xcalloc(t->n + 1, sizeof(*sum));

	for (size_t k = 0; k < t->n_member; k++)
		sum[t->member[k]] += id[k];
	return (sum);
}

/* The rounds of a profile: the most calls of any function. */
static uint64_t
rounds_of(const struct gp_profile *p)
{
	uint64_t n = 0;

	for (int f = 0; f < p->n_fn; f++)
		if (p->fn[f].call.n > n)
			n = p->fn[f].call.n;
	return (n);
}

/* The profile of side s (0: A, 1: B) the Class and Ops tables roll up:
 * against ONNX Runtime's profile, its view whose ops are ONNX op types
 * (diff-impl.h, struct gp_diff_peer). */
static const struct gp_profile *
rolled(const struct gp_diff *d, int s)
{
	if (d->peer != NULL)
		return (&d->peer->view[s]);
	return (s == 0 ? d->a : d->b);
}

/* Class or Ops rows: the rollups of both sides (keep[0], keep[1], which
 * the diff keeps: they hold the rows' names) paired by name; a row whose
 * applies differ is judged by round (judge_by_round). */
static void
group_table(struct gp_diff *d, struct gp_diff_table *out,
    const struct gp_prof_table *keep, const uint64_t *id_a,
    const uint64_t *id_b)
{
	const struct gp_prof_table ta = keep[0], tb = keep[1];
	struct rows rs = {0};
	struct gp_diff_kmap m;
	int *next;
	bool *used;
	uint64_t *mix_a = mix_sums(&ta, id_a), *mix_b = mix_sums(&tb, id_b);

	gp_diff_kmap_init(&m, tb.n);
	next = gp_xmalloc(sizeof(int) * (tb.n + 1));
	used = gp_xcalloc(tb.n + 1, sizeof(bool));
	for (size_t j = tb.n; j-- > 0;)
		gp_diff_kmap_push(&m, next, gp_diff_hstr(GP_HASH_INIT,
		    tb.rows[j].name),
		    (int)j);
	for (size_t i = 0; i < ta.n; i++) {
		const struct gp_prof_row *x = &ta.rows[i], *y = NULL;
		struct gp_diff_row *r = add_row(&rs);
		size_t h = gp_diff_kmap_slot(&m, gp_diff_hstr(GP_HASH_INIT,
		    x->name));
		bool mixed = false;

		for (int j = m.head[h]; j >= 0; j = next[j])
			if (!used[j] && strcmp(tb.rows[j].name, x->name) == 0) {
				used[j] = true;
				y = &tb.rows[j];
				mixed = x->n_apply != y->n_apply ||
				    mix_a[i] != mix_b[j];
				break;
			}
		r->name = x->name;
		r->kind = y != NULL ? GP_DIFF_PAIRED : GP_DIFF_REMOVED;
		r->match = y != NULL ? GP_MATCH_NAME : GP_MATCH_NONE;
		r->n_apply_a = x->n_apply;
		r->calls_a = x->calls;
		r->time_a = x->time_ns;
		if (y != NULL) {
			r->n_apply_b = y->n_apply;
			r->calls_b = y->calls;
			r->time_b = y->time_ns;
		}
		r->st_a = &x->st;
		r->st_b = y != NULL ? &y->st : NULL;
		r->by_round = mixed;
		r->blas = y != NULL && strcmp(x->type, "BLAS") == 0 &&
		    strcmp(y->type, "BLAS") == 0;
	}
	for (size_t j = 0; j < tb.n; j++) {
		const struct gp_prof_row *y = &tb.rows[j];
		struct gp_diff_row *r;

		if (used[j])
			continue;
		r = add_row(&rs);
		r->name = y->name;
		r->kind = GP_DIFF_ADDED;
		r->n_apply_b = y->n_apply;
		r->calls_b = y->calls;
		r->time_b = y->time_ns;
		r->st_b = &y->st;
	}
	/* judged and finished once the applies are paired (judge_groups) */
	out->rows = rs.v;
	out->n = rs.n;
	out->total_a = ta.total_ns * d->scale_a;
	out->total_b = tb.total_ns * d->scale_b;
	free(mix_a);
	free(mix_b);
	gp_diff_kmap_free(&m);
	free(next);
	free(used);
}

/* Times per call of function f, or totals. */
static double
fn_scale(const struct gp_diff_opts *o, const struct gp_prof_fn *f)
{
	if (!o->per_call || f == NULL || f->call.n == 0)
		return (1);
	return (1.0 / (double)f->call.n);
}

/* For rows over every function: per round (the most calls of any). */
static double
profile_scale(const struct gp_diff_opts *o, const struct gp_profile *p)
{
	uint64_t n = 0;

	for (int f = 0; f < p->n_fn; f++)
		if (p->fn[f].call.n > n)
			n = p->fn[f].call.n;
	return (o->per_call && n > 0 ? 1.0 / (double)n : 1);
}

/* An apply row's figures; its verdict comes later (judge_applies). */
static void
apply_row(struct rows *rs, const struct gp_diff_fn *df,
    const struct gp_profile *a, int ia, const struct gp_profile *b, int ib,
    enum gp_diff_match how)
{
	const struct gp_prof_apply *x = ia >= 0 ? &a->fn[df->fn_a].ap[ia] :
	    NULL;
	const struct gp_prof_apply *y = ib >= 0 ? &b->fn[df->fn_b].ap[ib] :
	    NULL;
	struct gp_diff_row *r = add_row(rs);

	r->fn_name = df->name;
	r->name = y != NULL ? y->name : x->name;
	if (x != NULL && y != NULL && strcmp(x->name, y->name) != 0)
		r->name_a = x->name;
	r->kind = x == NULL ? GP_DIFF_ADDED : y == NULL ? GP_DIFF_REMOVED :
	    GP_DIFF_PAIRED;
	r->match = how;
	r->blas = x != NULL && y != NULL && x->impl == GP_IMPL_BLAS &&
	    y->impl == GP_IMPL_BLAS;
	if (x != NULL) {
		r->fn_a = df->fn_a;
		r->id_a = ia;
		r->n_apply_a = 1;
		r->calls_a = x->st.n;
		r->time_a = (double)x->st.total;
		r->st_a = &x->st;
	}
	if (y != NULL) {
		r->fn_b = df->fn_b;
		r->id_b = ib;
		r->n_apply_b = 1;
		r->calls_b = y->st.n;
		r->time_b = (double)y->st.total;
		r->st_b = &y->st;
	}
}

/* Group k's row (struct gp_diff_group): its members' times summed, judged
 * by round on their merged executions. */
static void
group_row(struct rows *rs, const struct gp_diff *d, size_t k)
{
	const struct gp_diff_group *g = &d->groups[k];
	const struct gp_diff_fn *df = &d->fn[g->fn];
	struct gp_diff_row *r = add_row(rs);

	r->fn_name = df->name;
	r->name = g->name;
	r->name_a = g->name_a;
	r->kind = GP_DIFF_PAIRED;
	r->match = GP_MATCH_SOURCES;
	r->group = (int)k;
	r->fn_a = df->fn_a;
	r->id_a = g->id_a[0];
	r->fn_b = df->fn_b;
	r->id_b = g->id_b[0];
	r->n_apply_a = g->n_a;
	r->n_apply_b = g->n_b;
	r->calls_a = g->st_a.n;
	r->calls_b = g->st_b.n;
	r->time_a = (double)g->st_a.total;
	r->time_b = (double)g->st_b.total;
	r->st_a = &g->st_a;
	r->st_b = &g->st_b;
	r->by_round = true;
	r->blas = true;
	for (int i = 0; i < g->n_a; i++)
		r->blas &= d->a->fn[df->fn_a].ap[g->id_a[i]].impl ==
		    GP_IMPL_BLAS;
	for (int j = 0; j < g->n_b; j++)
		r->blas &= d->b->fn[df->fn_b].ap[g->id_b[j]].impl ==
		    GP_IMPL_BLAS;
}

/* Apply rows [lo, hi): their medians and spreads (figures), or their
 * verdicts (a side's scale matters only to the side that has the
 * apply). */
struct judging {
	struct gp_diff			*d;
	const struct gp_diff_opts	*o;
	struct gp_diff_row		*rows;
	size_t				 lo, hi;
	bool				 figures;
};

static void *
judge_applies(void *arg)
{
	const struct judging *j = arg;
	const struct gp_profile *a = j->d->a, *b = j->d->b;

	for (size_t i = j->lo; i < j->hi; i++) {
		struct gp_diff_row *r = &j->rows[i];
		const struct gp_prof_fn *fa = r->fn_a >= 0 ? &a->fn[r->fn_a] :
		    NULL;
		const struct gp_prof_fn *fb = r->fn_b >= 0 ? &b->fn[r->fn_b] :
		    NULL;

		if (j->figures) {
			/* the bins of a row ahead (a heap block each) */
			if (i + PREFETCH_AHEAD < j->hi) {
				const struct gp_diff_row *q = r +
				    PREFETCH_AHEAD;

				if (q->st_a != NULL)
					gp_prof_stat_prefetch(q->st_a);
				if (q->st_b != NULL)
					gp_prof_stat_prefetch(q->st_b);
			}
			gp_diff_row_figures(r, j->o->same_load);
		}
		else
			gp_diff_judge(j->d, r, fn_scale(j->o, fa),
			    fn_scale(j->o, fb), 1, true);
	}
	return (NULL);
}

/* Run a job over the apply rows, the second half on a second thread. */
static void
judge_halves(struct gp_diff *d, struct rows *rs, const struct gp_diff_opts *o,
    bool figures)
{
	struct judging lo = {d, o, rs->v, 0, rs->n / 2, figures};
	struct judging hi = {d, o, rs->v, rs->n / 2, rs->n, figures};
	pthread_t th;
	bool threaded = rs->n >= GP_DIFF_THREAD_MIN &&
	    pthread_create(&th, NULL, judge_applies, &hi) == 0;

	if (!threaded)
		lo.hi = rs->n;
	judge_applies(&lo);
	if (threaded)
		pthread_join(th, NULL);
}

/* The apply rows' figures, the common factor over them, their verdicts. */
static void
judge_all(struct gp_diff *d, struct rows *rs, const struct gp_diff_opts *o)
{
	judge_halves(d, rs, o, true);
	gp_diff_factors(d, rs->v, rs->n);
	judge_halves(d, rs, o, false);
}

/* The Class and Ops tables: made on a second thread while the applies are
 * paired (they read the two profiles only, and write their own tables).
 * The rows' mixes need each apply's identity, which the pairing makes on
 * the way (fn_rows): the thread rolls the Ops up meanwhile, then waits
 * for them (ready). */
struct groups_job {
	struct gp_diff			*d;
	/* per apply of A and of B (apply_idents); made by the thread
	 * against ONNX Runtime's profile (the views' ops) */
	uint64_t			*id_a, *id_b;
	pthread_mutex_t			 mu;
	pthread_cond_t			 cv;
	bool				 ready;
};

/* The identities are made (fn_rows). */
static void
idents_ready(struct groups_job *j)
{
	pthread_mutex_lock(&j->mu);
	j->ready = true;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

/* The identities of a profile's applies (apply_idents), made by the
 * pairing function by function (idents_of) and the rest after it
 * (idents_rest). */
struct idents {
	uint64_t	*id;
	size_t		*off;	/* per function: its first apply's */
	bool		*made;	/* per function */
};

static void
idents_init(struct idents *x, const struct gp_profile *p)
{
	size_t n = 0;

	x->off = gp_xmalloc(sizeof(*x->off) * ((size_t)p->n_fn + 1));
	x->made = gp_xcalloc((size_t)p->n_fn + 1, sizeof(*x->made));
	for (int f = 0; f < p->n_fn; f++) {
		x->off[f] = n;
		n += (size_t)p->fn[f].n_apply;
	}
	x->id = gp_xmalloc(sizeof(*x->id) * (n + 1));
}

/* Function f's identities, to be made by the pairing. */
static uint64_t *
idents_of(struct idents *x, int f)
{
	x->made[f] = true;
	return (x->id + x->off[f]);
}

/* The identities of the functions the pairing did not see. */
static void
idents_rest(struct idents *x, const struct gp_profile *p)
{
	for (int f = 0; f < p->n_fn; f++)
		for (int i = 0; !x->made[f] && i < p->fn[f].n_apply; i++)
			x->id[x->off[f] + (size_t)i] =
			    gp_diff_sig_hash(&p->fn[f].ap[i]);
	free(x->off);
	free(x->made);
}

/* The apply rows, in the order of their positions (gp_diff_row_cmp's
 * last keys, so the sort by them has nothing to do): the applies only in
 * B (no position in A) first, then A's, function by function. */
static void
fn_rows(struct gp_diff *d, struct rows *rs, struct groups_job *job)
{
	struct gp_diff_pairs *pgs = gp_xcalloc((size_t)d->n_fn + 1,
	    sizeof(*pgs));
	int **ga = gp_xcalloc((size_t)d->n_fn + 1, sizeof(*ga));
	int **gb = gp_xcalloc((size_t)d->n_fn + 1, sizeof(*gb));
	size_t n_rows;
	struct idents ia, ib;

	if (d->peer == NULL) {
		idents_init(&ia, d->a);
		idents_init(&ib, d->b);
		job->id_a = ia.id;
		job->id_b = ib.id;
	}

	for (int f = 0; f < d->n_fn; f++) {
		struct gp_diff_fn *df = &d->fn[f];
		const struct gp_prof_fn *fa = df->fn_a >= 0 ?
		    &d->a->fn[df->fn_a] : NULL;
		const struct gp_prof_fn *fb = df->fn_b >= 0 ?
		    &d->b->fn[df->fn_b] : NULL;
		struct gp_diff_pairs *pg = &pgs[f];

		pg->fa = fa;
		pg->fb = fb;
		if (fa == NULL || fb == NULL)
			continue;
		pg->pa = gp_xmalloc(sizeof(int) * ((size_t)fa->n_apply + 1));
		pg->pb = gp_xmalloc(sizeof(int) * ((size_t)fb->n_apply + 1));
		pg->how = gp_xcalloc((size_t)fa->n_apply + 1, sizeof(*pg->how));
		memset(pg->pa, -1, sizeof(int) * (size_t)fa->n_apply);
		memset(pg->pb, -1, sizeof(int) * (size_t)fb->n_apply);
		if (d->peer == NULL) {
			pg->sig_a = idents_of(&ia, df->fn_a);
			pg->sig_b = idents_of(&ib, df->fn_b);
		}
		/* against ONNX Runtime's profile: by provenance only */
		if (d->peer != NULL) {
			ga[f] = gp_xmalloc(sizeof(int) *
			    ((size_t)fa->n_apply + 1));
			gb[f] = gp_xmalloc(sizeof(int) *
			    ((size_t)fb->n_apply + 1));
			if (gp_diff_peer_group(d, f, pg, ga[f], gb[f]))
				continue;
			free(ga[f]);
			free(gb[f]);
			ga[f] = gb[f] = NULL;
		}
		gp_diff_pair_applies(pg);
		/* what is left, grouped by provenance (same graph only:
		 * source nodes are indices into its file) */
		if (d->same_graph) {
			ga[f] = gp_xmalloc(sizeof(int) *
			    ((size_t)fa->n_apply + 1));
			gb[f] = gp_xmalloc(sizeof(int) *
			    ((size_t)fb->n_apply + 1));
			gp_diff_group_sources(d, f, pg, ga[f], gb[f]);
		}
	}
	/* the other functions' identities, and the Class and Ops tables
	 * may take them */
	if (d->peer == NULL) {
		idents_rest(&ia, d->a);
		idents_rest(&ib, d->b);
		idents_ready(job);
	}
	/* the rows' room, made once (100,000 rows are 26 MB: grown by
	 * doubling, they would be copied and their pages cleared again) */
	n_rows = d->n_groups;
	for (int f = 0; f < d->n_fn; f++) {
		const struct gp_diff_pairs *pg = &pgs[f];

		if (pg->fa != NULL)
			for (int i = 0; i < pg->fa->n_apply; i++)
				n_rows += ga[f] == NULL || ga[f][i] < 0;
		if (pg->fb != NULL)
			for (int j = 0; j < pg->fb->n_apply; j++)
				n_rows += (pg->fa == NULL || pg->pb[j] < 0) &&
				    (gb[f] == NULL || gb[f][j] < 0);
	}
	gp_grow(&rs->v, &rs->cap, n_rows, sizeof(*rs->v));
	for (int f = 0; f < d->n_fn; f++) {
		const struct gp_diff_pairs *pg = &pgs[f];

		if (pg->fb == NULL)
			continue;
		for (int j = 0; j < pg->fb->n_apply; j++)
			if ((pg->fa == NULL || pg->pb[j] < 0) &&
			    (gb[f] == NULL || gb[f][j] < 0))
				apply_row(rs, &d->fn[f], d->a, -1, d->b, j,
				    GP_MATCH_NONE);
	}
	for (int f = 0; f < d->n_fn; f++) {
		struct gp_diff_pairs *pg = &pgs[f];

		if (pg->fa == NULL)
			continue;
		for (int i = 0; i < pg->fa->n_apply; i++) {
			enum gp_diff_match how = pg->fb != NULL ? pg->how[i] :
			    GP_MATCH_NONE;
			int ahead = i + PREFETCH_AHEAD;

			/* the names of a pair ahead, which apply_row
			 * compares (a heap block each) */
			if (ahead < pg->fa->n_apply) {
				__builtin_prefetch(pg->fa->ap[ahead].name);
				if (pg->fb != NULL && pg->pa[ahead] >= 0)
					__builtin_prefetch(
					    pg->fb->ap[pg->pa[ahead]].name);
			}
			if (ga[f] != NULL && ga[f][i] >= 0)
				continue;	/* in a group row */
			apply_row(rs, &d->fn[f], d->a, i, d->b,
			    pg->fb != NULL ? pg->pa[i] : -1, how);
			if (pg->fb != NULL)
				d->n_match[how]++;
		}
		free(pg->pa);
		free(pg->pb);
		free(pg->how);
	}
	for (size_t k = 0; k < d->n_groups; k++)
		group_row(rs, d, k);
	d->n_match[GP_MATCH_SOURCES] = d->n_groups;
	for (int f = 0; f < d->n_fn; f++) {
		free(ga[f]);
		free(gb[f]);
	}
	free(ga);
	free(gb);
	free(pgs);
}

/* Function fn's predicted peak and intermediates peak, as the report
 * and the Memory view give them (memprof.h; 0 without a memory
 * profile, or fn < 0). */
static void
mem_figures(const struct gp_profile *p, int fn, uint64_t *peak,
    uint64_t *inter)
{
	const struct gp_memprof *m = fn >= 0 ? p->fn[fn].mem : NULL;

	*peak = *inter = 0;
	if (m == NULL)
		return;
	*peak = gp_memprof_predicted_peak(p, fn);
	*inter = gp_memprof_inter_peak(m);
}

/* Global rows: functions paired by name, A's order first. */
static void
pair_functions(struct gp_diff *d, const struct gp_diff_opts *o)
{
	const struct gp_profile *a = d->a, *b = d->b;
	bool *used = gp_xcalloc((size_t)b->n_fn + 1, sizeof(bool));

	d->fn = gp_xcalloc((size_t)a->n_fn + (size_t)b->n_fn + 1,
	    sizeof(*d->fn));
	for (int pass = 0; pass < 2; pass++) {
		int n = pass == 0 ? a->n_fn : b->n_fn;

		for (int i = 0; i < n; i++) {
			struct gp_diff_fn *df;
			const struct gp_prof_fn *fa = NULL, *fb = NULL;

			if (pass == 1 && used[i])
				continue;
			df = &d->fn[d->n_fn++];
			df->fn_a = df->fn_b = -1;
			if (pass == 0) {
				df->fn_a = i;
				for (int j = 0; j < b->n_fn; j++)
					if (!used[j] && strcmp(b->fn[j].name,
					    a->fn[i].name) == 0) {
						used[j] = true;
						df->fn_b = j;
						break;
					}
			} else
				df->fn_b = i;
			if (df->fn_a >= 0)
				fa = &a->fn[df->fn_a];
			if (df->fn_b >= 0)
				fb = &b->fn[df->fn_b];
			df->name = gp_xstrdup(fa != NULL ? fa->name :
			    fb->name);
			memset(&df->call, 0, sizeof(df->call));
			df->call.fn_a = df->call.id_a = -1;
			df->call.fn_b = df->call.id_b = -1;
			df->call.name = df->name;
			df->call.kind = fa == NULL ? GP_DIFF_ADDED :
			    fb == NULL ? GP_DIFF_REMOVED : GP_DIFF_PAIRED;
			df->call.match = fa != NULL && fb != NULL ?
			    GP_MATCH_NAME : GP_MATCH_NONE;
			mem_figures(a, df->fn_a, &df->mem_pred_a,
			    &df->mem_inter_a);
			mem_figures(b, df->fn_b, &df->mem_pred_b,
			    &df->mem_inter_b);
			if (fa != NULL) {
				df->call.fn_a = df->fn_a;
				df->call.calls_a = fa->call.n;
				df->call.time_a = (double)fa->call.total;
				df->vm_a = fa->vm_ns;
				df->thunk_a = fa->thunk_ns;
				df->first_a = fa->first_call_ns;
				df->mem_peak_a = fa->mem_peak_measured;
				df->n_apply_a = fa->n_apply;
			}
			if (fb != NULL) {
				df->call.fn_b = df->fn_b;
				df->call.calls_b = fb->call.n;
				df->call.time_b = (double)fb->call.total;
				df->vm_b = fb->vm_ns;
				df->thunk_b = fb->thunk_ns;
				df->first_b = fb->first_call_ns;
				df->mem_peak_b = fb->mem_peak_measured;
				df->n_apply_b = fb->n_apply;
			}
			df->call.st_a = fa != NULL ? &fa->call : NULL;
			df->call.st_b = fb != NULL ? &fb->call : NULL;
		}
	}
	free(used);
}

/* Judge and finish a Class or Ops table made by group_table. */
static void
judge_groups(struct gp_diff *d, struct gp_diff_table *t)
{
	struct rows rs = {.v = t->rows, .n = t->n, .cap = t->n};

	double least = GP_DIFF_FACTOR_MIN_FLOORS * d->floor_ns;

	for (size_t i = 0; i < t->n; i++) {
		struct gp_diff_row *r = &t->rows[i];

		/* a row of brief executions is judged as its brief applies
		 * are (gp_diff_factors) */
		gp_diff_row_figures(r, d->opts.same_load);
		r->brief = !d->opts.same_load && !r->by_round &&
		    d->n_factor_brief > 0 && r->median_a > 0 &&
		    r->median_b > 0 && r->median_a < least &&
		    r->median_b < least;
		r->factor = r->brief ? d->factor_brief : r->blas ?
		    d->factor_blas : d->factor;
		gp_diff_judge(d, r, d->scale_a, d->scale_b, 1, true);
	}
	finish_table(t, &rs, t->total_a, t->total_b, &d->opts);
}

static void *
group_tables(void *arg)
{
	struct groups_job *j = arg;
	struct gp_diff *d = j->d;
	const struct gp_profile *pa = rolled(d, 0), *pb = rolled(d, 1);
	struct gp_prof_table *ops = d->rollup[1], *cls = d->rollup[0];

	gp_prof_rollup(pa, -1, GP_GROUP_OP, &ops[0]);
	gp_prof_rollup(pb, -1, GP_GROUP_OP, &ops[1]);
	if (d->peer != NULL) {
		j->id_a = apply_idents(pa);
		j->id_b = apply_idents(pb);
	} else {
		pthread_mutex_lock(&j->mu);
		while (!j->ready)
			pthread_cond_wait(&j->cv, &j->mu);
		pthread_mutex_unlock(&j->mu);
	}
	group_table(d, &d->ops, ops, j->id_a, j->id_b);
	/* classes from the ops' rows, which merge far fewer histograms
	 * than every apply's */
	gp_prof_rollup_classes(pa, &ops[0], &cls[0]);
	gp_prof_rollup_classes(pb, &ops[1], &cls[1]);
	group_table(d, &d->cls, cls, j->id_a, j->id_b);
	return (NULL);
}

/* A call row's factor: the BLAS and the other applies' factors in the
 * proportion of A's time in them (d->factor when A lacks the function
 * or spent no time in its applies). */
static double
call_factor(const struct gp_diff *d, const struct gp_diff_fn *df)
{
	const struct gp_prof_fn *f;
	double all = 0, blas = 0;

	if (df->fn_a < 0)
		return (d->factor);
	f = &d->a->fn[df->fn_a];
	for (int i = 0; i < f->n_apply; i++) {
		all += (double)f->ap[i].st.total;
		if (f->ap[i].impl == GP_IMPL_BLAS)
			blas += (double)f->ap[i].st.total;
	}
	if (!(all > 0))
		return (d->factor);
	return ((all - blas) / all * d->factor + blas / all *
	    d->factor_blas);
}

/* The larger of the probe costs and timer resolutions of two clocks. */
static double
clock_step(const struct gp_clock_info *a, const struct gp_clock_info *b)
{
	double v[] = {a->probe_ns, a->resolution_ns, b->probe_ns,
	    b->resolution_ns}, m = 0;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] > m)
			m = v[i];
	return (m);
}

struct gp_diff *
gp_diff_compute(const struct gp_profile *a, const struct gp_profile *b,
    const struct gp_diff_opts *o)
{
	struct gp_diff *d = gp_xcalloc(1, sizeof(*d));
	struct gp_diff_opts def;
	struct rows rs = {0};
	double ta = 0, tb = 0;
	struct groups_job job;
	pthread_t th;
	bool threaded;

	if (o == NULL) {
		gp_diff_opts_init(&def);
		o = &def;
	}
	d->a = a;
	d->b = b;
	d->opts = *o;
	d->same_graph = a->graph_hash == b->graph_hash;
	d->same_rewrites = strcmp(a->rewrites != NULL ? a->rewrites : "",
	    b->rewrites != NULL ? b->rewrites : "") == 0;
	d->same_clock = strcmp(a->clock.source, b->clock.source) == 0;
	d->scale_a = profile_scale(o, a);
	d->scale_b = profile_scale(o, b);
	d->floor_ns = o->floor_probes * clock_step(&a->clock, &b->clock);
	d->rounds_a = rounds_of(a);
	d->rounds_b = rounds_of(b);
	pair_functions(d, o);
	d->peer = gp_diff_peer_new(a, b);
	job = (struct groups_job){.d = d};
	pthread_mutex_init(&job.mu, NULL);
	pthread_cond_init(&job.cv, NULL);
	threaded = pthread_create(&th, NULL, group_tables, &job) == 0;
	fn_rows(d, &rs, &job);
	if (!threaded)
		group_tables(&job);
	judge_all(d, &rs, o);
	for (int f = 0; f < a->n_fn; f++)
		for (int i = 0; i < a->fn[f].n_apply; i++)
			ta += (double)a->fn[f].ap[i].st.total *
			    fn_scale(o, &a->fn[f]);
	for (int f = 0; f < b->n_fn; f++)
		for (int i = 0; i < b->fn[f].n_apply; i++)
			tb += (double)b->fn[f].ap[i].st.total *
			    fn_scale(o, &b->fn[f]);
	finish_table(&d->applies, &rs, ta, tb, o);
	if (threaded)
		pthread_join(th, NULL);
	pthread_mutex_destroy(&job.mu);
	pthread_cond_destroy(&job.cv);
	free(job.id_a);
	free(job.id_b);
	judge_groups(d, &d->cls);
	judge_groups(d, &d->ops);
	for (int f = 0; f < d->n_fn; f++) {
		struct gp_diff_fn *df = &d->fn[f];

		df->call.factor = call_factor(d, df);
		/* a call is timed by a probe per apply, and one around it */
		gp_diff_judge(d, &df->call, 1, 1, 1 + (df->n_apply_a >
		    df->n_apply_b ? df->n_apply_a : df->n_apply_b), false);
	}
	gp_diff_adjust_rows(&d->fn[0].call, (size_t)d->n_fn, sizeof(*d->fn), o);
	return (d);
}

void
gp_diff_free(struct gp_diff *d)
{
	if (d == NULL)
		return;
	for (int f = 0; f < d->n_fn; f++)
		free(d->fn[f].name);
	free(d->fn);
	free(d->cls.rows);
	free(d->ops.rows);
	free(d->applies.rows);
	for (size_t k = 0; k < d->n_groups; k++) {
		free(d->groups[k].id_a);
		free(d->groups[k].id_b);
		free(d->groups[k].name);
		free(d->groups[k].name_a);
		gp_prof_stat_free(&d->groups[k].st_a);
		gp_prof_stat_free(&d->groups[k].st_b);
	}
	free(d->groups);
	gp_diff_peer_free(d->peer);
	for (int i = 0; i < 2; i++) {
		gp_prof_table_free(&d->rollup[i][0]);
		gp_prof_table_free(&d->rollup[i][1]);
	}
	free(d);
}
