/*
 * calljson.c: the "timeline" member of a capture's function (see
 * calljson.h and doc/capture-format.md, "Timeline"): the last and the
 * median timed call, each with its number, time and span and two
 * columns, the applies' starts and times.
 *
 * Columns are written as the memory profile's are (memjson.c): a string
 * of space-separated integers, the first value then each difference from
 * the one before, "D*N" for a run of N differences D.  Starts grow by
 * about each apply's time, so a 100,000-apply call costs some 6 bytes an
 * apply per column.
 */
#include "config.h"

#include "capture/calljson.h"

#include <stdlib.h>
#include <string.h>

#include "base/jsonout.h"

/* Column values are at most this (so every difference fits). */
#define COL_MAX	((uint64_t)INT64_MAX / 2)

static const char *const drawn_key[GP_PROF_DRAWN__COUNT] = {
	[GP_PROF_LAST] = "last",
	[GP_PROF_MEDIAN] = "median",
};

/*
 * Writing.
 */

struct col {
	struct gp_buf	 b;
	int64_t		 prev, run_d;
	uint64_t	 run_n;
};

/* " D" (no space first) at the end of the column */
static void
col_num(struct col *c, int64_t v)
{
	char t[24];
	int n = 0;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do
		t[n++] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (c->b.len + (size_t)n + 3 > c->b.cap)
		gp_grow(&c->b.s, &c->b.cap, c->b.len + (size_t)n + 3, 1);
	if (c->b.len > 0)
		c->b.s[c->b.len++] = ' ';
	if (v < 0)
		c->b.s[c->b.len++] = '-';
	while (n > 0)
		c->b.s[c->b.len++] = t[--n];
}

static void
col_flush(struct col *c)
{
	if (c->run_n >= 3) {
		col_num(c, c->run_d);
		gp_buf_printf(&c->b, "*%llu", (unsigned long long)c->run_n);
	} else
		for (uint64_t i = 0; i < c->run_n; i++)
			col_num(c, c->run_d);
	c->run_n = 0;
}

static void
col_put(struct col *c, uint64_t u)
{
	int64_t v = (int64_t)(u > COL_MAX ? COL_MAX : u), d = v - c->prev;

	c->prev = v;
	if (c->run_n > 0 && d == c->run_d) {
		c->run_n++;
		return;
	}
	col_flush(c);
	c->run_d = d;
	c->run_n = 1;
}

static json_t *
col_json(const uint64_t *v, int n)
{
	struct col c = {0};
	json_t *j;

	for (int i = 0; i < n; i++)
		col_put(&c, v[i]);
	col_flush(&c);
	j = json_stringn_nocheck(c.b.len > 0 ? c.b.s : "", c.b.len);
	gp_buf_free(&c.b);
	return (j);
}

static json_t *
call_json(const struct gp_prof_call *c)
{
	json_t *o = json_object();

	json_object_set_new_nocheck(o, "seq", gp_jsonout_u64(c->seq));
	json_object_set_new_nocheck(o, "call_ns", gp_jsonout_u64(c->call_ns));
	json_object_set_new_nocheck(o, "span_ns", gp_jsonout_u64(c->span_ns));
	json_object_set_new_nocheck(o, "start", col_json(c->start,
	    c->n_apply));
	json_object_set_new_nocheck(o, "ns", col_json(c->ns, c->n_apply));
	return (o);
}

json_t *
gp_calljson_to_json(const struct gp_prof_fn *f)
{
	json_t *o = NULL;

	for (int k = 0; k < GP_PROF_DRAWN__COUNT; k++) {
		const struct gp_prof_call *c = &f->drawn[k];

		if (c->seq == 0 || c->n_apply != f->n_apply)
			continue;
		if (o == NULL)
			o = json_object();
		json_object_set_new_nocheck(o, drawn_key[k], call_json(c));
	}
	return (o);
}

/*
 * Reading.
 */

/* An integer of s at *p (a sign when neg); -1 when there is none or it
 * does not fit. */
static int
parse_int(const char **p, const char *end, bool neg, int64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	bool minus = false;

	if (neg && s < end && *s == '-') {
		minus = true;
		s++;
	}
	if (s == end || *s < '0' || *s > '9')
		return (-1);
	while (s < end && *s >= '0' && *s <= '9') {
		uint64_t d = (uint64_t)(*s++ - '0');

		if (v > ((uint64_t)INT64_MAX - d) / 10)
			return (-1);
		v = v * 10 + d;
	}
	*out = minus ? -(int64_t)v : (int64_t)v;
	*p = s;
	return (0);
}

/* Column key of o: exactly n values, each from 0 to hi, into v. */
static int
read_col(struct gp_rd *r, const json_t *o, const char *key, int n,
    uint64_t hi, const char *hi_what, uint64_t *v)
{
	const json_t *j = json_object_get(o, key);
	const char *s, *end;
	int64_t cur = 0;
	int i = 0;

	if (j == NULL)
		return (gp_rd_fail(r, "missing \"%s\" (a column: a string of "
		    "numbers)", key));
	gp_rd_key(r, key);
	if (!json_is_string(j))
		return (gp_rd_fail(r, "expected a column (a string of "
		    "numbers), got %s", gp_jsonpos_kind(j)));
	s = json_string_value(j);
	end = s + json_string_length(j);
	for (;;) {
		int64_t d, cnt = 1;

		while (s < end && *s == ' ')
			s++;
		if (s == end)
			break;
		if (i == n)
			return (gp_rd_fail(r, "more than %d entries (one per "
			    "apply)", n));
		gp_rd_index(r, (size_t)i);
		if (parse_int(&s, end, true, &d) < 0 || (s < end &&
		    *s == '*' && (++s, parse_int(&s, end, false, &cnt) < 0 ||
		    cnt < 1)) || (s < end && *s != ' '))
			return (gp_rd_fail(r, "expected a difference D or a "
			    "run of N differences D*N (integers)"));
		if (cnt > n - i)
			return (gp_rd_fail(r, "a run of %lld entries goes past "
			    "the end (%d entries, one per apply)",
			    (long long)cnt, n));
		gp_rd_pop(r);
		while (cnt-- > 0) {
			if (__builtin_add_overflow(cur, d, &cur) || cur < 0 ||
			    (uint64_t)cur > hi) {
				gp_rd_index(r, (size_t)i);
				if (cur < 0)
					return (gp_rd_fail(r, "expected a "
					    "non-negative integer"));
				return (gp_rd_fail(r, "beyond %s (%llu ns)",
				    hi_what, (unsigned long long)hi));
			}
			v[i++] = (uint64_t)cur;
		}
	}
	if (i != n)
		return (gp_rd_fail(r, "%d entries, expected %d (one per "
		    "apply)", i, n));
	gp_rd_pop(r);
	return (0);
}

static int
read_call(struct gp_rd *r, const json_t *o, const char *key, int n,
    struct gp_prof_call *c)
{
	const json_t *j = json_object_get(o, key);

	if (j == NULL || json_is_null(j))
		return (0);
	gp_rd_key(r, key);
	if (gp_rd_object_here(r, j) < 0)
		return (-1);
	gp_prof_call_fit(c, n);
	if (gp_rd_u64(r, j, "seq", &c->seq) < 0 ||
	    gp_rd_u64(r, j, "call_ns", &c->call_ns) < 0 ||
	    gp_rd_u64(r, j, "span_ns", &c->span_ns) < 0)
		return (-1);
	if (c->seq == 0) {
		gp_rd_key(r, "seq");
		return (gp_rd_fail(r, "expected a timed call's number (from "
		    "1), got 0"));
	}
	if (c->span_ns > COL_MAX) {
		gp_rd_key(r, "span_ns");
		return (gp_rd_fail(r, "%llu ns is out of range",
		    (unsigned long long)c->span_ns));
	}
	if (read_col(r, j, "start", n, c->span_ns, "the call's span",
	    c->start) < 0 || read_col(r, j, "ns", n, c->span_ns,
	    "the call's span", c->ns) < 0)
		return (-1);
	gp_rd_pop(r);
	return (0);
}

int
gp_calljson_read(struct gp_rd *r, const json_t *o, struct gp_prof_fn *f)
{
	const json_t *t = json_object_get(o, "timeline");

	if (t == NULL || json_is_null(t))
		return (0);
	gp_rd_key(r, "timeline");
	if (gp_rd_object_here(r, t) < 0)
		return (-1);
	for (int k = 0; k < GP_PROF_DRAWN__COUNT; k++)
		if (read_call(r, t, drawn_key[k], f->n_apply,
		    &f->drawn[k]) < 0) {
			/* none half read */
			for (int q = 0; q < GP_PROF_DRAWN__COUNT; q++)
				gp_prof_call_free(&f->drawn[q]);
			return (-1);
		}
	gp_rd_pop(r);
	return (0);
}
