/*
 * column.c: the columns of a capture, written and decoded (column.h).
 */
#include "config.h"

#include "capture/column.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* " V" (no space first) at the end of the column. */
static void
col_num(struct gp_col *c, int64_t v, char sep)
{
	char t[24];
	int n = 0;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do
		t[n++] = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (c->b.len + (size_t)n + 3 > c->b.cap)
		gp_grow(&c->b.s, &c->b.cap, c->b.len + (size_t)n + 3, 1);
	if (sep != ' ' || c->b.len > 0)
		c->b.s[c->b.len++] = sep;
	if (v < 0)
		c->b.s[c->b.len++] = '-';
	while (n > 0)
		c->b.s[c->b.len++] = t[--n];
}

static void
col_flush(struct gp_col *c)
{
	if (c->run_n >= 3) {
		col_num(c, c->run_d, ' ');
		col_num(c, (int64_t)c->run_n, '*');
	} else
		for (uint64_t i = 0; i < c->run_n; i++)
			col_num(c, c->run_d, ' ');
	c->run_n = 0;
}

void
gp_col_put(struct gp_col *c, int64_t v)
{
	int64_t d;

	if (v > GP_COL_MAX)
		v = GP_COL_MAX;
	else if (v < -GP_COL_MAX)
		v = -GP_COL_MAX;
	d = v - c->prev;
	c->prev = v;
	if (c->run_n > 0 && d == c->run_d) {
		c->run_n++;
		return;
	}
	col_flush(c);
	c->run_d = d;
	c->run_n = 1;
}

void
gp_col_put_u(struct gp_col *c, uint64_t v)
{
	gp_col_put(c, v > (uint64_t)GP_COL_MAX ? GP_COL_MAX : (int64_t)v);
}

json_t *
gp_col_json(struct gp_col *c)
{
	json_t *j;

	col_flush(c);
	j = json_stringn_nocheck(c->b.len > 0 ? c->b.s : "", c->b.len);
	gp_buf_free(&c->b);
	memset(c, 0, sizeof(*c));
	return (j);
}

/* An integer at *p (a sign only when sign): up to INT64_MAX in
 * magnitude; -1 when there is none or it does not fit. */
static int
parse_num(const char **p, const char *end, bool sign, int64_t *out)
{
	const char *s = *p;
	bool neg = false;
	uint64_t v = 0;

	if (sign && s < end && *s == '-') {
		neg = true;
		s++;
	}
	if (s == end || *s < '0' || *s > '9')
		return (-1);
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		uint64_t d = (uint64_t)(*s - '0');

		/* before it wraps: 2^64 + 1 is not 1 */
		if (v > ((uint64_t)INT64_MAX - d) / 10)
			return (-1);
		v = v * 10 + d;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	*p = s;
	return (0);
}

static int
fault(struct gp_col_error *e, enum gp_col_fault f, size_t at, int64_t value)
{
	e->fault = f;
	e->at = at;
	e->value = value;
	return (-1);
}

int
gp_col_decode(const char *s, size_t len, size_t n, int64_t lo, int64_t hi,
    int64_t *out, struct gp_col_error *e)
{
	const char *end = s + len;
	int64_t cur = 0;
	size_t i = 0;

	e->lo = lo;
	e->hi = hi;
	for (;;) {
		int64_t d, cnt = 1;

		while (s < end && *s == ' ')
			s++;
		if (s == end)
			break;
		if (i == n)
			return (fault(e, GP_COL_MORE, i, 0));
		if (parse_num(&s, end, true, &d) < 0 || (s < end &&
		    *s == '*' && (++s, parse_num(&s, end, false, &cnt) < 0 ||
		    cnt < 1)) || (s < end && *s != ' '))
			return (fault(e, GP_COL_SYNTAX, i, 0));
		if ((uint64_t)cnt > n - i)
			return (fault(e, GP_COL_PAST, i, cnt));
		while (cnt-- > 0) {
			if (__builtin_add_overflow(cur, d, &cur))
				return (fault(e, GP_COL_OVERFLOW, i, 0));
			if (cur < lo || cur > hi)
				return (fault(e, GP_COL_RANGE, i, cur));
			out[i++] = cur;
		}
	}
	if (i != n)
		return (fault(e, GP_COL_FEWER, i, 0));
	return (0);
}

bool
gp_col_fault_at(const struct gp_col_error *e)
{
	return (e->fault != GP_COL_MORE && e->fault != GP_COL_FEWER);
}

void
gp_col_fault_text(const struct gp_col_error *e, size_t n, const char *per,
    const char *hi_what, char *buf, size_t cap)
{
	switch (e->fault) {
	case GP_COL_SYNTAX:
		snprintf(buf, cap, "expected a difference D or a run of N "
		    "differences D*N (integers)");
		break;
	case GP_COL_MORE:
		snprintf(buf, cap, "more than %zu entries (%s)", n, per);
		break;
	case GP_COL_PAST:
		snprintf(buf, cap, "a run of %lld entries goes past the end "
		    "(%zu entries, %s)", (long long)e->value, n, per);
		break;
	case GP_COL_FEWER:
		snprintf(buf, cap, "%zu entries, expected %zu (%s)", e->at, n,
		    per);
		break;
	case GP_COL_OVERFLOW:
		snprintf(buf, cap, "the value overflows");
		break;
	case GP_COL_RANGE:
		if (e->value < 0 && e->lo == 0)
			snprintf(buf, cap, "expected a non-negative integer, "
			    "got %lld", (long long)e->value);
		else if (e->value > e->hi && hi_what != NULL)
			snprintf(buf, cap, "beyond %s (%lld ns)", hi_what,
			    (long long)e->hi);
		else
			snprintf(buf, cap, "%lld is out of range (%lld to "
			    "%lld)", (long long)e->value, (long long)e->lo,
			    (long long)e->hi);
		break;
	}
}
