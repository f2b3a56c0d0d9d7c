/*
 * memjson.c: the memory profile in a capture, both ways (see memjson.h).
 */
#include "config.h"

#include "capture/memjson.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonpos.h"
#include "capture/column.h"

/* The string pool of a profile being read. */
struct pool {
	char	*s;
	size_t	 len, cap;
};

/*
 * The memory profile in a capture (doc/capture-format.md, "memory").
 *
 * Only what the function's applies do not already say is written: the
 * outputs' variables, types and alias marks are the applies' (the reader
 * takes them from there, with the sums and offsets they give).  The
 * per-apply, per-output and per-storage figures are columns: strings of
 * space-separated integers, the first the first value and each next one
 * the difference from the value before, "D*N" standing for N differences
 * D.  A 100,000-apply function has a million such figures; as JSON arrays
 * of absolute values they would double the capture and the time to read
 * it, as columns they add a few percent (most differences are small and
 * runs of one difference are common: sizes sorted, buffers reused).
 */

/* enum gp_mem_kind, but GP_MEM_WORK: the work space at the peak is the
 * sim's "work" member (readers of the same version know only these) */
static const char kind_chars[] = "ischn";

static json_t *
jnum(uint64_t v)
{
	return (json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX :
	    (json_int_t)v));
}

/* A JSON string for s; bytes that are not UTF-8 become '?'. */
static json_t *
jname(const char *s)
{
	json_t *j = json_string(s);
	char *c;

	if (j != NULL)
		return (j);
	c = gp_xstrdup(s);
	for (unsigned char *p = (unsigned char *)c; *p != '\0'; p++)
		if (*p >= 0x80)
			*p = '?';
	j = json_string(c);
	free(c);
	return (j != NULL ? j : json_string(""));
}

static void
put(json_t *o, const char *k, json_t *v)
{
	json_object_set_new_nocheck(o, k, v);
}

/* Does m describe f's applies (their outputs, in order)? */
static bool
describes(const struct gp_memprof *m, const struct gp_prof_fn *f)
{
	uint32_t o = 0;
	uint64_t sum[3] = {0};

	if (m->n_apply != f->n_apply || m->ap == NULL ||
	    (m->n_outs > 0 && m->outs == NULL) || m->strs == NULL)
		return (false);
	for (int i = 0; i < m->n_apply; i++) {
		const struct gp_mem_apply *a = &m->ap[i];
		const struct gp_prof_apply *pa = &f->ap[i];
		uint64_t ob = 0, ab = 0;

		if (a->n_out != pa->n_out || a->first_out != o ||
		    (uint64_t)o + (uint64_t)a->n_out > m->n_outs)
			return (false);
		for (int k = 0; k < a->n_out; k++, o++) {
			const struct gp_mem_out *mo = &m->outs[o];
			const struct gp_prof_io *io = &pa->out[k];

			if (mo->bytes != io->nbytes || mo->ndim != io->ndim ||
			    mo->dtype != (int8_t)io->dtype ||
			    mo->alias != (io->alias == 'v' || io->alias ==
			    'i' ? io->alias : 'c') || mo->var >= m->strs_len ||
			    strcmp(gp_memprof_str(m, mo->var), io->var !=
			    NULL ? io->var : "") != 0)
				return (false);
			for (int d = 0; d < mo->ndim; d++)
				if (mo->shape[d] != io->shape[d])
					return (false);
			ob += mo->bytes;
			if (mo->alias == 'c')
				ab += mo->bytes;
			sum[mo->alias == 'c' ? 0 : mo->alias == 'v' ? 1 : 2] +=
			    mo->bytes;
		}
		if (a->out_bytes != ob || a->alloc_bytes != ab)
			return (false);
	}
	return (o == m->n_outs && m->sum_out == sum[0] + sum[1] + sum[2] &&
	    m->sum_view == sum[1] && m->sum_inplace == sum[2]);
}

static json_t *
bufs_to_json(const struct gp_memprof *m, const struct gp_mem_sim *s)
{
	json_t *o = json_object(), *names = json_array();
	struct gp_col bytes = {0}, fn = {0}, step = {0}, ref = {0}, out = {0};
	char *kinds = gp_xmalloc((size_t)s->n_bufs + 1);

	int nk = 0;

	for (int i = 0; i < s->n_bufs; i++) {
		const struct gp_mem_buf *b = &s->bufs[i];
		const char *name = b->var < m->strs_len ?
		    gp_memprof_str(m, b->var) : "";
		int k = -1;

		if (b->kind == GP_MEM_WORK)
			continue;	/* the sim's "work" */
		gp_col_put_u(&bytes, b->bytes);
		kinds[nk++] = b->kind >= 0 && b->kind <
		    (int)sizeof(kind_chars) - 1 ? kind_chars[b->kind] : 'n';
		gp_col_put(&fn, b->fn);
		gp_col_put(&step, b->step);
		gp_col_put(&ref, b->n_ref);
		/* named after an output of this function's apply: say which */
		if (b->fn == m->fn && b->step >= 0 && b->step < m->n_apply) {
			const struct gp_mem_apply *a = &m->ap[b->step];

			for (int j = 0; j < a->n_out && k < 0; j++)
				if (strcmp(gp_memprof_str(m,
				    m->outs[a->first_out + (uint32_t)j].var),
				    name) == 0)
					k = j;
		}
		gp_col_put(&out, k);
		if (k < 0)
			json_array_append_new(names, jname(name));
	}
	put(o, "bytes", gp_col_json(&bytes));
	put(o, "kind", json_stringn_nocheck(kinds, (size_t)nk));
	put(o, "fn", gp_col_json(&fn));
	put(o, "step", gp_col_json(&step));
	put(o, "n_ref", gp_col_json(&ref));
	put(o, "out", gp_col_json(&out));
	put(o, "names", names);
	free(kinds);
	return (o);
}

static json_t *
points_to_json(const struct gp_mem_point *p, int n)
{
	json_t *o = json_object();
	struct gp_col live = {0}, fresh = {0};

	for (int i = 0; i < n; i++) {
		gp_col_put_u(&live, p[i].live);
		gp_col_put_u(&fresh, p[i].fresh);
	}
	put(o, "live", gp_col_json(&live));
	put(o, "fresh", gp_col_json(&fresh));
	return (o);
}

static json_t *
sim_to_json(const struct gp_memprof *m, const struct gp_mem_sim *s)
{
	json_t *o = json_object();

	put(o, "peak", jnum(s->peak));
	put(o, "peak_first", jnum(s->peak_first));
	put(o, "peak_steady", jnum(s->peak_steady));
	put(o, "base_first", jnum(s->base_first));
	put(o, "base_steady", jnum(s->base_steady));
	put(o, "values", jnum(s->values));
	put(o, "held", jnum(s->held));
	put(o, "fresh_peak", jnum(s->fresh_peak));
	put(o, "peak_call", json_integer(s->peak_call));
	put(o, "peak_step", json_integer(s->peak_step));
	put(o, "peak_fresh", jnum(s->peak_fresh));
	put(o, "after", points_to_json(s->after, m->n_apply));
	put(o, "during", points_to_json(s->during, m->n_apply));
	{
		int nb = s->n_bufs;

		for (int i = 0; i < s->n_bufs; i++)
			if (s->bufs[i].kind == GP_MEM_WORK) {
				/* the work space alive at the peak, kept
				 * out of bufs (see kind_chars) */
				put(o, "work", jnum(s->bufs[i].bytes));
				nb--;
			}
		put(o, "n_bufs", json_integer(nb));
	}
	put(o, "bufs", bufs_to_json(m, s));
	return (o);
}

json_t *
gp_memprof_to_json(const struct gp_memprof *m, const struct gp_prof_fn *f)
{
	json_t *o, *a;
	struct gp_col c1 = {0}, c2 = {0};

	if (m == NULL || f == NULL || !describes(m, f) ||
	    (m->n_apply > 0 && (m->sim[0].after == NULL ||
	    m->sim[0].during == NULL || m->sim[1].after == NULL ||
	    m->sim[1].during == NULL)) || (m->sim[0].n_bufs > 0 &&
	    m->sim[0].bufs == NULL) || (m->sim[1].n_bufs > 0 &&
	    m->sim[1].bufs == NULL))
		return (NULL);
	o = json_object();
	put(o, "allow_gc", json_boolean(m->allow_gc));
	put(o, "external", jnum(m->external));
	put(o, "val_input", jnum(m->val_input));
	put(o, "val_shared", jnum(m->val_shared));
	put(o, "val_const", jnum(m->val_const));
	put(o, "val_used", jnum(m->val_used));
	a = json_array();
	for (int g = 0; g < 2; g++) {
		json_t *v = json_array();

		for (int k = 0; k < GP_MEM__VARIANTS; k++)
			json_array_append_new(v, jnum(m->inter[g][k]));
		json_array_append_new(a, v);
	}
	put(o, "inter", a);
	for (int i = 0; i < m->n_apply; i++) {
		gp_col_put_u(&c1, m->ap[i].inter_after);
		gp_col_put_u(&c2, m->ap[i].inter_during);
	}
	put(o, "inter_after", gp_col_json(&c1));
	put(o, "inter_during", gp_col_json(&c2));
	for (int i = 0; i < m->n_apply; i++)
		gp_col_put_u(&c1, m->ap[i].work_bytes);
	put(o, "work", gp_col_json(&c1));
	for (uint32_t i = 0; i < m->n_outs; i++)
		gp_col_put(&c1, m->outs[i].alias == 'c' ? -1 : m->outs[i].src);
	put(o, "alias_of", gp_col_json(&c1));
	a = json_array();
	json_array_append_new(a, sim_to_json(m, &m->sim[0]));
	json_array_append_new(a, sim_to_json(m, &m->sim[1]));
	put(o, "sim", a);
	if (m->min_done && m->min_order != NULL) {
		json_t *mo = json_object();

		put(mo, "optimal", json_boolean(m->min_optimal));
		put(mo, "peak", jnum(m->min_peak));
		put(mo, "lower", jnum(m->min_lower));
		put(mo, "states", jnum(m->min_states));
		put(mo, "ms", json_real(isfinite(m->min_ms) && m->min_ms >= 0 ?
		    m->min_ms : 0));
		for (int i = 0; i < m->n_apply; i++)
			gp_col_put(&c1, m->min_order[i]);
		put(mo, "order", gp_col_json(&c1));
		put(o, "min", mo);
	}
	return (o);
}

/*
 * Reading: every member checked; the path of the value looked at is kept
 * for the messages.
 */
#define JR_DEPTH	8

struct jr {
	const char	*prefix;
	struct gp_err	*err;
	const char	*key[JR_DEPTH];	/* NULL: an index */
	size_t		 index[JR_DEPTH];
	int		 depth;
	int64_t		*tmp;		/* a decoded column */
	size_t		 tmp_cap;
};

static void
jr_key(struct jr *r, const char *key)
{
	if (r->depth < JR_DEPTH)
		r->key[r->depth] = key;
	r->depth++;
}

static void
jr_index(struct jr *r, size_t i)
{
	if (r->depth < JR_DEPTH) {
		r->key[r->depth] = NULL;
		r->index[r->depth] = i;
	}
	r->depth++;
}

static void
jr_pop(struct jr *r)
{
	r->depth--;
}

/* "PATH: message"; returns -1. */
static int __attribute__((format(printf, 2, 3)))
jr_fail(struct jr *r, const char *fmt, ...)
{
	struct gp_buf b = {0};
	int n = r->depth < JR_DEPTH ? r->depth : JR_DEPTH;
	va_list ap;

	gp_buf_puts(&b, r->prefix != NULL ? r->prefix : "");
	for (int i = 0; i < n; i++) {
		if (r->key[i] != NULL)
			gp_buf_printf(&b, "%s%s", b.len > 0 ? "." : "",
			    r->key[i]);
		else
			gp_buf_printf(&b, "[%zu]", r->index[i]);
	}
	if (b.len > 0)
		gp_buf_puts(&b, ": ");
	va_start(ap, fmt);
	gp_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	gp_err_set(r->err, "%s", gp_buf_str(&b));
	gp_buf_free(&b);
	return (-1);
}

static const json_t *
jr_get(struct jr *r, const json_t *o, const char *key, const char *what)
{
	const json_t *v = json_object_get(o, key);

	if (v == NULL)
		jr_fail(r, "missing \"%s\" (%s)", key, what);
	return (v);
}

/* The integer v (at the current path) in [lo, hi]. */
static int
jr_int_here(struct jr *r, const json_t *v, int64_t lo, int64_t hi,
    int64_t *out)
{
	bool nonneg = lo == 0;
	json_int_t x;

	if (!json_is_integer(v))
		return (jr_fail(r, "expected %s, got %s", nonneg ?
		    "a non-negative integer" : "an integer", gp_jsonpos_kind(v)));
	x = json_integer_value(v);
	if (nonneg && x < 0)
		return (jr_fail(r, "expected a non-negative integer, got %lld",
		    (long long)x));
	if (x < lo || x > hi)
		return (jr_fail(r, "%lld is out of range (%lld to %lld)",
		    (long long)x, (long long)lo, (long long)hi));
	*out = (int64_t)x;
	return (0);
}

static int
jr_int(struct jr *r, const json_t *o, const char *key, int64_t lo,
    int64_t hi, int64_t *out)
{
	const json_t *v = jr_get(r, o, key, lo == 0 ?
	    "a non-negative integer" : "an integer");
	int rc;

	if (v == NULL)
		return (-1);
	jr_key(r, key);
	rc = jr_int_here(r, v, lo, hi, out);
	jr_pop(r);
	return (rc);
}

static int
jr_u64(struct jr *r, const json_t *o, const char *key, uint64_t *out)
{
	int64_t v;

	if (jr_int(r, o, key, 0, INT64_MAX, &v) < 0)
		return (-1);
	*out = (uint64_t)v;
	return (0);
}

static int
jr_int32(struct jr *r, const json_t *o, const char *key, int64_t lo,
    int64_t hi, int *out)
{
	int64_t v;

	if (jr_int(r, o, key, lo, hi, &v) < 0)
		return (-1);
	*out = (int)v;
	return (0);
}

static int
jr_bool(struct jr *r, const json_t *o, const char *key, bool *out)
{
	const json_t *v = jr_get(r, o, key, "true or false");

	if (v == NULL)
		return (-1);
	if (!json_is_boolean(v)) {
		jr_key(r, key);
		return (jr_fail(r, "expected true or false, got %s",
		    gp_jsonpos_kind(v)));
	}
	*out = json_is_true(v);
	return (0);
}

static int
jr_real(struct jr *r, const json_t *o, const char *key, double *out)
{
	const json_t *v = jr_get(r, o, key, "a number");

	if (v == NULL)
		return (-1);
	if (!json_is_number(v) || !(json_number_value(v) >= 0)) {
		jr_key(r, key);
		if (!json_is_number(v))
			return (jr_fail(r, "expected a number, got %s",
			    gp_jsonpos_kind(v)));
		return (jr_fail(r, "expected a non-negative number, got %g",
		    json_number_value(v)));
	}
	*out = json_number_value(v);
	return (0);
}

/* Member key of o, an object (array: an array); NULL with the error. */
static const json_t *
jr_container(struct jr *r, const json_t *o, const char *key, bool array)
{
	const char *what = array ? "an array" : "an object";
	const json_t *v = jr_get(r, o, key, what);

	if (v == NULL)
		return (NULL);
	if (array ? !json_is_array(v) : !json_is_object(v)) {
		jr_key(r, key);
		jr_fail(r, "expected %s, got %s", what, gp_jsonpos_kind(v));
		jr_pop(r);
		return (NULL);
	}
	return (v);
}

/* Column key of o into r->tmp: exactly n values, each in [lo, hi]; per
 * says what an entry is, for the messages ("one per apply").  (On an
 * error the path is left as it was: the caller gives up.) */
static int
jr_col(struct jr *r, const json_t *o, const char *key, size_t n,
    int64_t lo, int64_t hi, const char *per)
{
	static const char what[] = "a column (a string of numbers)";
	const json_t *v = jr_get(r, o, key, what);
	struct gp_col_error e;
	char msg[160];

	if (v == NULL)
		return (-1);
	jr_key(r, key);
	if (!json_is_string(v))
		return (jr_fail(r, "expected %s, got %s", what, gp_jsonpos_kind(v)));
	/* n is bounded by what was read (applies, outputs, kinds) */
	gp_grow(&r->tmp, &r->tmp_cap, n + 1, sizeof(*r->tmp));
	if (gp_col_decode(json_string_value(v), json_string_length(v), n, lo,
	    hi, r->tmp, &e) < 0) {
		if (gp_col_fault_at(&e))
			jr_index(r, e.at);
		gp_col_fault_text(&e, n, per, NULL, msg, sizeof(msg));
		return (jr_fail(r, "%s", msg));
	}
	jr_pop(r);
	return (0);
}

static int
jr_points(struct jr *r, const json_t *o, const char *key,
    struct gp_mem_point *p, int n)
{
	const json_t *v = jr_container(r, o, key, false);

	if (v == NULL)
		return (-1);
	jr_key(r, key);
	if (jr_col(r, v, "live", (size_t)n, 0, INT64_MAX, "one per apply") < 0)
		return (-1);
	for (int i = 0; i < n; i++)
		p[i].live = (uint64_t)r->tmp[i];
	if (jr_col(r, v, "fresh", (size_t)n, 0, INT64_MAX,
	    "one per apply") < 0)
		return (-1);
	for (int i = 0; i < n; i++)
		p[i].fresh = (uint64_t)r->tmp[i];
	jr_pop(r);
	return (0);
}

/* Add s to the pool; -1 when the pool would pass 4 GiB. */
static int
pool_add_checked(struct pool *p, const char *s, size_t len, uint32_t *off)
{
	if (p->len + len + 1 > UINT32_MAX)
		return (-1);
	if (p->len + len + 1 > p->cap)
		gp_grow(&p->s, &p->cap, p->len + len + 1, 1);
	*off = (uint32_t)p->len;
	memcpy(p->s + p->len, s, len);
	p->s[p->len + len] = '\0';
	p->len += len + 1;
	return (0);
}

static int
jr_bufs(struct jr *r, const json_t *o, struct gp_memprof *m,
    struct gp_mem_sim *s, struct pool *pool)
{
	const json_t *b, *kinds, *names;
	const char *kc;
	int64_t *col[3] = {NULL, NULL, NULL};	/* fn, step, out */
	static const char *const keys[3] = {"fn", "step", "out"};
	int64_t lo[3] = {-1, -1, -1};
	int64_t hi[3] = {m->n_fn - 1, INT32_MAX - 1, GP_MAX_OUT - 1};
	size_t n, n_named = 0, next = 0;
	int rc = -1;

	if (jr_int32(r, o, "n_bufs", 0, INT32_MAX - 1, &s->n_bufs) < 0)
		return (-1);
	n = (size_t)s->n_bufs;
	if ((b = jr_container(r, o, "bufs", false)) == NULL)
		return (-1);
	jr_key(r, "bufs");
	/* the kinds, a character each, bound what is allocated */
	if ((kinds = jr_get(r, b, "kind", "a string")) == NULL)
		return (-1);
	if (!json_is_string(kinds) || json_string_length(kinds) != n) {
		jr_key(r, "kind");
		if (!json_is_string(kinds))
			return (jr_fail(r, "expected a string, got %s",
			    gp_jsonpos_kind(kinds)));
		return (jr_fail(r, "%zu kinds, but n_bufs says %zu",
		    json_string_length(kinds), n));
	}
	s->bufs = gp_xcalloc(n + 1, sizeof(*s->bufs));
	kc = json_string_value(kinds);
	for (size_t i = 0; i < n; i++) {
		const char *c = memchr(kind_chars, kc[i],
		    sizeof(kind_chars) - 1);

		if (c == NULL) {
			jr_key(r, "kind");
			jr_index(r, i);
			return (jr_fail(r, "expected a kind: i (input), s "
			    "(shared), c (constant), h (held) or n (new)"));
		}
		s->bufs[i].kind = (int8_t)(c - kind_chars);
	}
	if (jr_col(r, b, "bytes", n, 0, INT64_MAX, "one per storage") < 0)
		return (-1);
	for (size_t i = 0; i < n; i++)
		s->bufs[i].bytes = (uint64_t)r->tmp[i];
	if (jr_col(r, b, "n_ref", n, 0, INT32_MAX, "one per storage") < 0)
		return (-1);
	for (size_t i = 0; i < n; i++)
		s->bufs[i].n_ref = (int)r->tmp[i];
	for (int c = 0; c < 3; c++) {
		if (jr_col(r, b, keys[c], n, lo[c], hi[c],
		    "one per storage") < 0)
			goto out;
		col[c] = gp_xmalloc(sizeof(int64_t) * (n + 1));
		memcpy(col[c], r->tmp, sizeof(int64_t) * n);
	}
	for (size_t i = 0; i < n; i++) {
		struct gp_mem_buf *d = &s->bufs[i];
		int64_t k = col[2][i];

		d->fn = (int)col[0][i];
		d->step = (int)col[1][i];
		if (k < 0) {
			n_named++;
			continue;
		}
		if (d->fn != m->fn || d->step < 0 || d->step >= m->n_apply ||
		    k >= m->ap[d->step].n_out) {
			jr_key(r, "out");
			jr_index(r, i);
			jr_fail(r, "output %lld of apply %d of function %d: "
			    "not an output of this function's applies (-1: "
			    "the storage is named in \"names\")",
			    (long long)k, d->step, d->fn);
			goto out;
		}
		d->var = m->outs[m->ap[d->step].first_out + (uint32_t)k].var;
	}
	if ((names = jr_container(r, b, "names", true)) == NULL)
		goto out;
	jr_key(r, "names");
	if (json_array_size(names) != n_named) {
		jr_fail(r, "%zu names, but %zu storages are named here (their "
		    "out is -1)", json_array_size(names), n_named);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *v;

		if (col[2][i] >= 0)
			continue;
		v = json_array_get(names, next);
		jr_index(r, next++);
		if (!json_is_string(v)) {
			jr_fail(r, "expected a string, got %s", gp_jsonpos_kind(v));
			goto out;
		}
		{
			/* as the terminal may see it: ESC, BEL, C1 escaped */
			char *t = gp_text_dup(json_string_value(v));
			int bad = pool_add_checked(pool, t, strlen(t),
			    &s->bufs[i].var);

			free(t);
			if (bad < 0) {
				jr_fail(r, "too many names");
				goto out;
			}
		}
		jr_pop(r);
	}
	jr_pop(r);
	jr_pop(r);
	rc = 0;
out:
	for (int c = 0; c < 3; c++)
		free(col[c]);
	return (rc);
}

/* The work space alive at the peak (the sim's "work"): into bufs (which
 * has room for one more) where the replay sorted it, largest first, ties
 * by name. */
static int
add_work_buf(struct jr *r, struct gp_memprof *m, struct gp_mem_sim *s,
    uint64_t work, struct pool *pool)
{
	struct gp_mem_buf w = {.bytes = work, .kind = GP_MEM_WORK,
	    .fn = m->fn, .step = s->peak_step, .n_ref = 1};
	int at = 0;

	if (pool_add_checked(pool, GP_MEM_WORK_NAME, strlen(GP_MEM_WORK_NAME),
	    &w.var) < 0)
		return (jr_fail(r, "too many names"));
	while (at < s->n_bufs && (s->bufs[at].bytes > work ||
	    (s->bufs[at].bytes == work && strcmp(pool->s + s->bufs[at].var,
	    GP_MEM_WORK_NAME) < 0)))
		at++;
	memmove(&s->bufs[at + 1], &s->bufs[at], sizeof(*s->bufs) *
	    (size_t)(s->n_bufs - at));
	s->bufs[at] = w;
	s->n_bufs++;
	return (0);
}

static int
jr_sim(struct jr *r, const json_t *o, struct gp_memprof *m,
    struct gp_mem_sim *s, struct pool *pool)
{
	uint64_t work = 0;

	if (!json_is_object(o))
		return (jr_fail(r, "expected an object, got %s", gp_jsonpos_kind(o)));
	if (jr_u64(r, o, "peak", &s->peak) < 0 ||
	    jr_u64(r, o, "peak_first", &s->peak_first) < 0 ||
	    jr_u64(r, o, "peak_steady", &s->peak_steady) < 0 ||
	    jr_u64(r, o, "base_first", &s->base_first) < 0 ||
	    jr_u64(r, o, "base_steady", &s->base_steady) < 0 ||
	    jr_u64(r, o, "values", &s->values) < 0 ||
	    jr_u64(r, o, "held", &s->held) < 0 ||
	    jr_u64(r, o, "fresh_peak", &s->fresh_peak) < 0 ||
	    jr_int32(r, o, "peak_call", 0, 1, &s->peak_call) < 0 ||
	    jr_int32(r, o, "peak_step", -1, m->n_apply - 1,
	    &s->peak_step) < 0 ||
	    jr_u64(r, o, "peak_fresh", &s->peak_fresh) < 0)
		return (-1);
	s->after = gp_xcalloc((size_t)m->n_apply + 1, sizeof(*s->after));
	s->during = gp_xcalloc((size_t)m->n_apply + 1, sizeof(*s->during));
	if (jr_points(r, o, "after", s->after, m->n_apply) < 0 ||
	    jr_points(r, o, "during", s->during, m->n_apply) < 0)
		return (-1);
	if (json_object_get(o, "work") != NULL) {
		if (jr_u64(r, o, "work", &work) < 0)
			return (-1);
		if (work > 0 && s->peak_step < 0) {
			jr_key(r, "work");
			return (jr_fail(r, "work space at a peak that falls at "
			    "the call's start: expected 0"));
		}
	}
	if (jr_bufs(r, o, m, s, pool) < 0)
		return (-1);
	if (work > 0)
		return (add_work_buf(r, m, s, work, pool));
	return (0);
}

/* The outputs, sums and names the applies of f give. */
static int
from_applies(struct jr *r, struct gp_memprof *m, const struct gp_prof_fn *f,
    struct pool *pool)
{
	size_t no = 0;
	uint32_t o = 0, none;

	for (int i = 0; i < f->n_apply; i++)
		no += (size_t)(f->ap[i].n_out > 0 ? f->ap[i].n_out : 0);
	if (no >= UINT32_MAX)
		return (jr_fail(r, "too many outputs"));
	m->n_apply = f->n_apply;
	m->ap = gp_xcalloc((size_t)m->n_apply + 1, sizeof(*m->ap));
	m->outs = gp_xcalloc(no + 1, sizeof(*m->outs));
	m->n_outs = (uint32_t)no;
	if (pool_add_checked(pool, "", 0, &none) < 0 ||
	    pool_add_checked(pool, f->name != NULL ? f->name : "",
	    f->name != NULL ? strlen(f->name) : 0, &m->fn_name) < 0)
		return (jr_fail(r, "too many names"));
	for (int i = 0; i < m->n_apply; i++) {
		const struct gp_prof_apply *pa = &f->ap[i];
		struct gp_mem_apply *a = &m->ap[i];

		a->first_out = o;
		a->n_out = pa->n_out > 0 ? pa->n_out : 0;
		for (int k = 0; k < a->n_out; k++, o++) {
			const struct gp_prof_io *io = &pa->out[k];
			struct gp_mem_out *mo = &m->outs[o];
			const char *v = io->var != NULL ? io->var : "";

			mo->bytes = io->nbytes;
			mo->ndim = (int8_t)(io->ndim >= 0 && io->ndim <=
			    GP_MAX_DIMS ? io->ndim : 0);
			memcpy(mo->shape, io->shape, sizeof(mo->shape));
			mo->dtype = (int8_t)io->dtype;
			mo->alias = io->alias == 'v' || io->alias == 'i' ?
			    io->alias : 'c';
			mo->src = -1;
			if (pool_add_checked(pool, v, strlen(v), &mo->var) < 0)
				return (jr_fail(r, "too many names"));
			a->out_bytes += mo->bytes;
			m->sum_out += mo->bytes;
			if (mo->alias == 'c')
				a->alloc_bytes += mo->bytes;
			else if (mo->alias == 'v')
				m->sum_view += mo->bytes;
			else
				m->sum_inplace += mo->bytes;
		}
	}
	return (0);
}

static int
jr_memprof(struct jr *r, const json_t *j, struct gp_memprof *m,
    const struct gp_prof_fn *f, struct pool *pool)
{
	const json_t *v, *e;
	size_t n;

	if (!json_is_object(j))
		return (jr_fail(r, "expected an object, got %s", gp_jsonpos_kind(j)));
	if (from_applies(r, m, f, pool) < 0)
		return (-1);
	n = (size_t)m->n_apply;
	if (jr_bool(r, j, "allow_gc", &m->allow_gc) < 0 ||
	    jr_u64(r, j, "external", &m->external) < 0 ||
	    jr_u64(r, j, "val_input", &m->val_input) < 0 ||
	    jr_u64(r, j, "val_shared", &m->val_shared) < 0 ||
	    jr_u64(r, j, "val_const", &m->val_const) < 0 ||
	    jr_u64(r, j, "val_used", &m->val_used) < 0)
		return (-1);
	if ((v = jr_container(r, j, "inter", true)) == NULL)
		return (-1);
	jr_key(r, "inter");
	if (json_array_size(v) != 2)
		return (jr_fail(r, "expected 2 arrays (GC on, GC off), got "
		    "%zu", json_array_size(v)));
	for (size_t g = 0; g < 2; g++) {
		e = json_array_get(v, g);
		jr_index(r, g);
		if (!json_is_array(e) || json_array_size(e) !=
		    GP_MEM__VARIANTS)
			return (jr_fail(r, "expected an array of %d "
			    "non-negative integers (as run, no inplace, no "
			    "view)", GP_MEM__VARIANTS));
		for (size_t k = 0; k < GP_MEM__VARIANTS; k++) {
			int64_t x;

			jr_index(r, k);
			if (jr_int_here(r, json_array_get(e, k), 0, INT64_MAX,
			    &x) < 0)
				return (-1);
			m->inter[g][k] = (uint64_t)x;
			jr_pop(r);
		}
		jr_pop(r);
	}
	jr_pop(r);

	if (jr_col(r, j, "inter_after", n, 0, INT64_MAX, "one per apply") < 0)
		return (-1);
	for (size_t i = 0; i < n; i++)
		m->ap[i].inter_after = (uint64_t)r->tmp[i];
	if (jr_col(r, j, "inter_during", n, 0, INT64_MAX,
	    "one per apply") < 0)
		return (-1);
	for (size_t i = 0; i < n; i++)
		m->ap[i].inter_during = (uint64_t)r->tmp[i];
	/* the kernels' work space: absent from older captures (none then) */
	m->work_max_step = -1;
	if (json_object_get(j, "work") != NULL) {
		if (jr_col(r, j, "work", n, 0, INT64_MAX, "one per apply") < 0)
			return (-1);
		for (size_t i = 0; i < n; i++) {
			m->ap[i].work_bytes = (uint64_t)r->tmp[i];
			if (r->tmp[i] == 0)
				continue;
			m->n_work++;
			if (m->ap[i].work_bytes > m->work_max) {
				m->work_max = m->ap[i].work_bytes;
				m->work_max_step = (int)i;
			}
		}
	}
	if (jr_col(r, j, "alias_of", m->n_outs, -1, INT8_MAX,
	    "one per output") < 0)
		return (-1);
	for (int i = 0; i < m->n_apply; i++)
		for (int k = 0; k < m->ap[i].n_out; k++) {
			uint32_t o = m->ap[i].first_out + (uint32_t)k;
			struct gp_mem_out *mo = &m->outs[o];
			int64_t src = r->tmp[o];

			if (mo->alias == 'c' ? src != -1 : (src < 0 ||
			    src >= f->ap[i].n_in)) {
				jr_key(r, "alias_of");
				jr_index(r, o);
				if (mo->alias == 'c')
					return (jr_fail(r, "output %d of apply "
					    "%d is created: expected -1, got "
					    "%lld", k, i, (long long)src));
				return (jr_fail(r, "output %d of apply %d is "
				    "%s: expected one of its %d inputs (0 to "
				    "%d), got %lld", k, i, mo->alias == 'v' ?
				    "a view" : "in place", f->ap[i].n_in,
				    f->ap[i].n_in - 1, (long long)src));
			}
			mo->src = (int8_t)src;
		}

	if ((v = jr_container(r, j, "sim", true)) == NULL)
		return (-1);
	jr_key(r, "sim");
	if (json_array_size(v) != 2)
		return (jr_fail(r, "expected 2 objects (GC on, GC off), got "
		    "%zu", json_array_size(v)));
	for (size_t g = 0; g < 2; g++) {
		jr_index(r, g);
		if (jr_sim(r, json_array_get(v, g), m, &m->sim[g], pool) < 0)
			return (-1);
		jr_pop(r);
	}
	jr_pop(r);

	if ((v = json_object_get(j, "min")) != NULL) {
		bool *seen;

		jr_key(r, "min");
		if (!json_is_object(v))
			return (jr_fail(r, "expected an object, got %s",
			    gp_jsonpos_kind(v)));
		if (jr_bool(r, v, "optimal", &m->min_optimal) < 0 ||
		    jr_u64(r, v, "peak", &m->min_peak) < 0 ||
		    jr_u64(r, v, "lower", &m->min_lower) < 0 ||
		    jr_u64(r, v, "states", &m->min_states) < 0 ||
		    jr_real(r, v, "ms", &m->min_ms) < 0)
			return (-1);
		if (jr_col(r, v, "order", n, 0, m->n_apply - 1,
		    "one per apply") < 0)
			return (-1);
		m->min_order = gp_xcalloc(n + 1, sizeof(int));
		seen = gp_xcalloc(n + 1, sizeof(bool));
		for (size_t i = 0; i < n; i++) {
			if (seen[r->tmp[i]]) {
				jr_key(r, "order");
				jr_index(r, i);
				free(seen);
				return (jr_fail(r, "apply %lld comes twice: "
				    "expected an order of the applies",
				    (long long)r->tmp[i]));
			}
			seen[r->tmp[i]] = true;
			m->min_order[i] = (int)r->tmp[i];
		}
		free(seen);
		m->min_done = true;
		jr_pop(r);
	}
	return (0);
}

struct gp_memprof *
gp_memprof_from_json(const json_t *j, const struct gp_prof_fn *f, int fn,
    int n_fn, const char *path, struct gp_err *err)
{
	struct jr r = {.prefix = path, .err = err};
	struct pool pool = {0};
	struct gp_memprof *m = gp_xcalloc(1, sizeof(*m));
	int rc;

	m->fn = fn;
	m->n_fn = n_fn;
	rc = jr_memprof(&r, j, m, f, &pool);
	free(r.tmp);
	m->strs = pool.s != NULL ? pool.s : gp_xcalloc(1, 1);
	m->strs_len = (uint32_t)pool.len;
	if (rc < 0) {
		gp_memprof_free(m);
		return (NULL);
	}
	return (m);
}
