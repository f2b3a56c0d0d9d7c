/*
 * jsonpos.c: find the line and column of a value in JSON text by walking
 * its structure (see jsonpos.h).  Strings are skipped with their escapes;
 * object keys are compared after decoding them.  Only error paths and the
 * one pass that records node positions call this.
 */
#include "config.h"

#include "base/jsonpos.h"

#include <stdint.h>
#include <string.h>

struct cursor {
	const char	*pos;
	int		 line, col;
};

static const char *
skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'))
		p++;
	return (p);
}

/* p at the opening quote; returns just past the closing one (a quote
 * ends the string unless an odd number of backslashes precedes it). */
static const char *
skip_string(const char *p, const char *end)
{
	p++;
	while (p < end) {
		const char *q = memchr(p, '"', (size_t)(end - p)), *b;

		if (q == NULL)
			break;
		for (b = q; b > p && b[-1] == '\\'; b--)
			continue;
		if (((q - b) & 1) == 0)
			return (q + 1);
		p = q + 1;
	}
	return (end);
}

static const char *
skip_value(const char *p, const char *end)
{
	int depth = 0;

	if (p >= end)
		return (end);
	if (*p == '"')
		return (skip_string(p, end));
	if (*p != '{' && *p != '[') {
		while (p < end && *p != ',' && *p != ']' && *p != '}' &&
		    *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			p++;
		return (p);
	}
	while (p < end) {
		switch (*p) {
		case '"':
			p = skip_string(p, end);
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (--depth == 0)
				return (p + 1);
			break;
		}
		p++;
	}
	return (p);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

static bool
read_hex4(const char *p, const char *end, uint32_t *out)
{
	uint32_t v = 0;

	if (end - p < 4)
		return (false);
	for (int i = 0; i < 4; i++) {
		int h = hexval((unsigned char)p[i]);

		if (h < 0)
			return (false);
		v = v * 16 + (uint32_t)h;
	}
	*out = v;
	return (true);
}

static size_t
utf8_encode(uint32_t cp, char *b)
{
	if (cp < 0x80) {
		b[0] = (char)cp;
		return (1);
	}
	if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		return (2);
	}
	if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		return (3);
	}
	b[0] = (char)(0xf0 | (cp >> 18));
	b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	b[3] = (char)(0x80 | (cp & 0x3f));
	return (4);
}

/* Does the JSON string at p (at its quote) decode to key? */
static bool
key_equals(const char *p, const char *end, const char *key)
{
	size_t klen = strlen(key), k = 0;

	p++;
	while (p < end && *p != '"') {
		char buf[4];
		size_t n;

		if (*p != '\\') {
			if (k >= klen || key[k] != *p)
				return (false);
			k++;
			p++;
			continue;
		}
		if (end - p < 2)
			return (false);
		switch (p[1]) {
		case 'b':
			buf[0] = '\b';
			n = 1;
			break;
		case 'f':
			buf[0] = '\f';
			n = 1;
			break;
		case 'n':
			buf[0] = '\n';
			n = 1;
			break;
		case 'r':
			buf[0] = '\r';
			n = 1;
			break;
		case 't':
			buf[0] = '\t';
			n = 1;
			break;
		case 'u': {
			uint32_t cp, lo;

			if (!read_hex4(p + 2, end, &cp))
				return (false);
			p += 6;
			if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u' &&
			    read_hex4(p + 2, end, &lo) && lo >= 0xdc00 &&
			    lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				    (lo - 0xdc00);
				p += 6;
			}
			n = utf8_encode(cp, buf);
			if (k + n > klen || memcmp(key + k, buf, n) != 0)
				return (false);
			k += n;
			continue;
		}
		default:	/* \" \\ \/ */
			buf[0] = p[1];
			n = 1;
			break;
		}
		if (k + n > klen || memcmp(key + k, buf, n) != 0)
			return (false);
		k += n;
		p += 2;
	}
	return (k == klen);
}

static void
advance(const char *text, struct cursor *c, const char *to)
{
	const char *p = c->pos, *nl;

	if (p == NULL) {
		p = text;
		c->line = c->col = 1;
	}
	/* whole lines first, then the characters of the last one */
	while (p < to && (nl = memchr(p, '\n', (size_t)(to - p))) != NULL) {
		c->line++;
		c->col = 1;
		p = nl + 1;
	}
	for (; p < to; p++)
		if (((unsigned char)*p & 0xc0) != 0x80)
			c->col++;
	c->pos = to;
}

/* Walk path; *val gets the value's first byte (or the deepest found),
 * *key the last key's quote (or NULL). */
static int
walk(const char *text, size_t len, const struct gp_jsonpos_step *path, int n,
    const char **val, const char **key)
{
	const char *p = text, *end = text + len;

	*key = NULL;
	p = skip_ws(p, end);
	*val = p;
	for (int s = 0; s < n; s++) {
		const struct gp_jsonpos_step *st = &path[s];
		size_t i = 0;
		const char *q;

		q = p;
		if (st->key != NULL) {
			if (q >= end || *q != '{')
				return (-1);
			q++;
			for (;;) {
				const char *k;
				bool match;

				q = skip_ws(q, end);
				if (q >= end || *q != '"')
					return (-1);
				k = q;
				match = key_equals(q, end, st->key);
				q = skip_ws(skip_string(q, end), end);
				if (q >= end || *q != ':')
					return (-1);
				q = skip_ws(q + 1, end);
				if (match) {
					*key = k;
					break;
				}
				q = skip_ws(skip_value(q, end), end);
				if (q >= end || *q != ',')
					return (-1);
				q++;
			}
		} else {
			if (q >= end || *q != '[')
				return (-1);
			q++;
			for (;; i++) {
				q = skip_ws(q, end);
				if (q >= end || *q == ']')
					return (-1);
				if (i == st->index)
					break;
				q = skip_ws(skip_value(q, end), end);
				if (q >= end || *q != ',')
					return (-1);
				q++;
			}
			*key = NULL;
		}
		p = q;
		*val = p;
	}
	return (0);
}

size_t
gp_jsonpos_string_start(const char *text, size_t len, size_t end)
{
	const char *p = text, *stop = text + len;

	if (end > len)
		return (end);
	while (p < stop && (size_t)(p - text) < end) {
		if (*p == '"') {
			const char *q = skip_string(p, stop);

			if ((size_t)(q - text) == end)
				return ((size_t)(p - text));
			p = q;
		} else
			p++;
	}
	return (end);
}

void
gp_jsonpos_of_offset(const char *text, size_t len, size_t off, int *line,
    int *col)
{
	struct cursor c = {0};

	advance(text, &c, text + (off < len ? off : len));
	*line = c.line;
	*col = c.col;
}

int
gp_jsonpos_find(const char *text, size_t len,
    const struct gp_jsonpos_step *path, int n, bool at_key, int *line,
    int *col)
{
	const char *val, *key;
	struct cursor c = {0};
	int rc;

	rc = walk(text, len, path, n, &val, &key);
	if (rc == 0 && at_key && key != NULL)
		val = key;
	advance(text, &c, val);
	*line = c.line;
	*col = c.col;
	return (rc);
}

long
gp_jsonpos_each(const char *text, size_t len,
    const struct gp_jsonpos_step *path, int n,
    void (*fn)(void *ctx, size_t i, const struct gp_jsonpos_elem *e),
    void *ctx)
{
	const char *p, *key, *end = text + len;
	struct cursor c = {0};
	struct gp_jsonpos_elem e;
	bool obj;
	size_t i = 0;

	if (walk(text, len, path, n, &p, &key) < 0 || p >= end ||
	    (*p != '{' && *p != '['))
		return (-1);
	obj = *p == '{';
	p = skip_ws(p + 1, end);
	if (p < end && *p == (obj ? '}' : ']'))
		return (0);
	while (p < end) {
		advance(text, &c, p);
		e.line = c.line;
		e.col = c.col;
		e.start = (size_t)(p - text);
		if (obj) {
			p = skip_ws(skip_string(p, end), end);
			if (p >= end || *p != ':')
				return (-1);
			p = skip_ws(p + 1, end);
		}
		p = skip_value(p, end);
		e.end = (size_t)(p - text);
		fn(ctx, i++, &e);
		p = skip_ws(p, end);
		if (p >= end || *p != ',')
			break;
		p = skip_ws(p + 1, end);
	}
	return ((long)i);
}

int
gp_jsonpos_span(const char *text, size_t len,
    const struct gp_jsonpos_step *path, int n, size_t *start, size_t *end)
{
	const char *p, *key;

	if (walk(text, len, path, n, &p, &key) < 0 || p >= text + len)
		return (-1);
	*start = (size_t)(p - text);
	*end = (size_t)(skip_value(p, text + len) - text);
	return (0);
}

const char *
gp_jsonpos_kind(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return ("an object");
	case JSON_ARRAY:
		return ("an array");
	case JSON_STRING:
		return ("a string");
	case JSON_INTEGER:
		return ("an integer");
	case JSON_REAL:
		return ("a number");
	case JSON_TRUE:
	case JSON_FALSE:
		return ("a boolean");
	default:
		return ("null");
	}
}
