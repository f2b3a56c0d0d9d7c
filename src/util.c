/*
 * util.c: checked allocation, the string buffer, error records and hashing
 * (see util.h).
 */
#include "config.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatal.h"

int
gp_err_set(struct gp_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return (-1);
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return (-1);
}

int
gp_err_prefix(struct gp_err *err, const char *fmt, ...)
{
	char pre[GP_ERR_MAX], old[GP_ERR_MAX];
	va_list ap;

	if (err == NULL)
		return (-1);
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", pre, old);
	return (-1);
}

static void
oom(size_t n)
{
	gp_fatal_exit("out of memory (%zu bytes)", n);
}

void *
gp_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		oom(n);
	return (p);
}

void *
gp_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		oom(n * size);
	return (p);
}

void *
gp_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		oom(n);
	return (q);
}

char *
gp_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = gp_xmalloc(n);

	memcpy(p, s, n);
	return (p);
}

char *
gp_xasprintf(const char *fmt, ...)
{
	struct gp_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	gp_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (b.s == NULL)
		return (gp_xstrdup(""));
	return (b.s);
}

void
gp_grow(void *pp, size_t *cap, size_t n, size_t sz)
{
	void **p = pp;
	size_t c = *cap;

	if (n <= c)
		return;
	if (c < 8)
		c = 8;
	while (c < n)
		c *= 2;
	*p = gp_xrealloc(*p, c * sz);
	*cap = c;
}

void
gp_buf_vprintf(struct gp_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	gp_grow(&b->s, &b->cap, b->len + (size_t)n + 1, 1);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
gp_buf_printf(struct gp_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gp_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void
gp_buf_puts(struct gp_buf *b, const char *s)
{
	size_t n = strlen(s);

	gp_grow(&b->s, &b->cap, b->len + n + 1, 1);
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void
gp_buf_clear(struct gp_buf *b)
{
	b->len = 0;
	if (b->s != NULL)
		b->s[0] = '\0';
}

void
gp_buf_free(struct gp_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

const char *
gp_buf_str(const struct gp_buf *b)
{
	return (b->s != NULL ? b->s : "");
}

uint64_t
gp_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return (h);
}
