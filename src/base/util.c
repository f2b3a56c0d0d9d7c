/*
 * util.c: checked allocation, the string buffer, error records and hashing
 * (see util.h).
 */
#include "config.h"

#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fatal.h"

/* Messages are one printable line: what a name or a value from a file
 * brings in that a terminal would act on is escaped (gp_text_escape). */
int
gp_err_set(struct gp_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return (-1);
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	gp_text_escape(err->msg, sizeof(err->msg));
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
	/* a message past GP_ERR_MAX is cut, which is fine (the return is
	 * read so that gcc knows the cut is meant) */
	if (snprintf(err->msg, sizeof(err->msg), "%s: %s", pre, old) < 0)
		err->msg[0] = '\0';
	gp_text_escape(err->msg, sizeof(err->msg));
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

int
gp_open_regular(const char *path, const char *what, struct stat *stp,
    struct gp_err *err)
{
	struct stat st;
	const char *kind;
	int fd, fl;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return (gp_err_set(err, "%s: cannot open: %s", path,
		    strerror(errno)));
	if (fstat(fd, &st) < 0) {
		gp_err_set(err, "%s: cannot stat: %s", path, strerror(errno));
		close(fd);
		return (-1);
	}
	if (!S_ISREG(st.st_mode)) {
		kind = S_ISDIR(st.st_mode) ? "a directory" :
		    S_ISFIFO(st.st_mode) ? "a FIFO" :
		    S_ISCHR(st.st_mode) ? "a character device" :
		    S_ISBLK(st.st_mode) ? "a block device" :
		    S_ISSOCK(st.st_mode) ? "a socket" : "a special file";
		gp_err_set(err, "%s: is %s, not a regular file (expected %s)",
		    path, kind, what);
		close(fd);
		return (-1);
	}
	if ((fl = fcntl(fd, F_GETFL)) < 0 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		gp_err_set(err, "%s: cannot open: %s", path, strerror(errno));
		close(fd);
		return (-1);
	}
	if (stp != NULL)
		*stp = st;
	return (fd);
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

uint64_t
gp_hash_str(uint64_t h, const char *s)
{
	if (s == NULL)
		s = "";
	/* with its terminator, so "ab","c" differs from "a","bc" */
	return (gp_hash_bytes(h, s, strlen(s) + 1));
}

/* The length of the well-formed UTF-8 character at s (n bytes left) that
 * a terminal shows as it is, or 0. */
static size_t
text_char(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c >= 0x20 && c < 0x7f)
		return (1);
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return (0);	/* C0, DEL, continuation, or never UTF-8 */
	if (c == 0xc2)
		lo = 0xa0;	/* 0xc2 0x80-0x9f: the C1 controls */
	else if (c == 0xe0)
		lo = 0xa0;	/* overlong */
	else if (c == 0xed)
		hi = 0x9f;	/* surrogates */
	else if (c == 0xf0)
		lo = 0x90;	/* overlong */
	else if (c == 0xf4)
		hi = 0x8f;	/* past U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return (0);
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return (0);
	return (len);
}

size_t
gp_text_safe_prefix(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k;

	while (i < n && (k = text_char(u + i, n - i)) > 0)
		i += k;
	return (i);
}

void
gp_buf_put_text(struct gp_buf *b, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	gp_grow(&b->s, &b->cap, b->len + n + 1, 1);
	while (i < n) {
		size_t k = gp_text_safe_prefix(s + i, n - i);

		gp_grow(&b->s, &b->cap, b->len + k + 5, 1);
		memcpy(b->s + b->len, s + i, k);
		b->len += k;
		b->s[b->len] = '\0';
		if ((i += k) < n)
			gp_buf_printf(b, "\\x%02x", u[i++]);
	}
	b->s[b->len] = '\0';
}

char *
gp_text_dup(const char *s)
{
	struct gp_buf b = {0};
	size_t n = strlen(s);
	char *p;

	if (gp_text_safe_prefix(s, n) == n) {
		p = gp_xmalloc(n + 1);
		memcpy(p, s, n + 1);
		return (p);
	}
	gp_buf_put_text(&b, s);
	return (b.s);
}

void
gp_text_escape(char *s, size_t cap)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, o = 0;
	char *out;

	if (cap == 0 || gp_text_safe_prefix(s, n) == n)
		return;
	out = gp_xmalloc(cap);
	/* whole characters and whole escapes, as many as fit */
	while (i < n) {
		size_t k = text_char(u + i, n - i);

		if (o + (k > 0 ? k : 4) >= cap)
			break;
		if (k > 0) {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		} else {
			snprintf(out + o, 5, "\\x%02x", u[i++]);
			o += 4;
		}
	}
	out[o] = '\0';
	memcpy(s, out, o + 1);
	free(out);
}
