/*
 * util.h: the small pieces every module uses: checked allocation (out of
 * memory aborts), a growable string buffer, and the error record through
 * which every fallible runtime call reports one clear message.
 *
 * Error convention: a fallible function takes a `struct gp_err *` last and
 * returns 0 on success, -1 on failure after filling the record.  The
 * message is complete ("FILE:LINE:COL: what, expected ..."), ready to print.
 */
#ifndef GPTOP_SRC_UTIL_H
#define GPTOP_SRC_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define GP_ERR_MAX 1024

struct gp_err {
	char	msg[GP_ERR_MAX];
};

/* Fill err (if not NULL) with a formatted message; always returns -1. */
int	gp_err_set(struct gp_err *err, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* Prefix an existing message: "PREFIX: old message". */
int	gp_err_prefix(struct gp_err *err, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

void	*gp_xmalloc(size_t n);
void	*gp_xcalloc(size_t n, size_t size);
void	*gp_xrealloc(void *p, size_t n);
char	*gp_xstrdup(const char *s);
char	*gp_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow an array *p of *cap elements of size sz so it holds at least n. */
void	 gp_grow(void *pp, size_t *cap, size_t n, size_t sz);

/* A growable NUL-terminated string. */
struct gp_buf {
	char	*s;
	size_t	 len, cap;
};

void	 gp_buf_printf(struct gp_buf *b, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	 gp_buf_vprintf(struct gp_buf *b, const char *fmt, va_list ap);
void	 gp_buf_puts(struct gp_buf *b, const char *s);
void	 gp_buf_clear(struct gp_buf *b);
void	 gp_buf_free(struct gp_buf *b);
/* The contents ("" when empty); valid until the next change. */
const char *gp_buf_str(const struct gp_buf *b);

/*
 * Text for a terminal.  Bytes that a terminal would act on instead of
 * showing are written \xNN (each byte): the C0 controls and DEL, the C1
 * controls U+0080-U+009F (0xc2 0x80-0x9f in UTF-8; an 8-bit terminal reads
 * a CSI or an OSC in them), and any byte that is not part of well-formed
 * UTF-8.  Everything else, printable ASCII and UTF-8 characters from
 * U+00A0 up, stays as it is (backslashes too, so escaping twice changes
 * nothing).
 */
/* The length of the start of s (n bytes) that needs no escape. */
size_t	 gp_text_safe_prefix(const char *s, size_t n);
/* s, escaped, appended to b. */
void	 gp_buf_put_text(struct gp_buf *b, const char *s);
/* A copy of s, escaped. */
char	*gp_text_dup(const char *s);
/* s escaped in place, cut (at a character) to fit cap bytes. */
void	 gp_text_escape(char *s, size_t cap);

/*
 * Open a file gptop reads (a graph, a .npy, a capture) for reading, and
 * refuse anything but a regular file before it can block: opened with
 * O_NONBLOCK (a FIFO's open would wait for a writer, a read of it or of a
 * terminal for input), checked with fstat, then O_NONBLOCK cleared.  what
 * names the expected file ("a graph file (JSON)").  Returns the
 * descriptor (O_CLOEXEC), with *st filled when st is not NULL, or -1 with
 * "PATH: cannot open: REASON" or "PATH: is a FIFO, not a regular file
 * (expected WHAT)" in err.
 */
struct stat;
int	 gp_open_regular(const char *path, const char *what, struct stat *st,
	    struct gp_err *err);

/* FNV-1a 64-bit hash, chainable through h (start with GP_HASH_INIT). */
#define GP_HASH_INIT 0xcbf29ce484222325ULL
uint64_t gp_hash_bytes(uint64_t h, const void *p, size_t n);
/* The same over the string s with its terminator (NULL hashes as ""), so
 * "ab" then "c" hashes apart from "a" then "bc". */
uint64_t gp_hash_str(uint64_t h, const char *s);

/* Fold a 64-bit value into a hash (a multiply-xorshift mix): what the
 * capture's apply index and the diff's pairing keys are built with. */
static inline uint64_t
gp_hash_mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return (h ^ (h >> 32));
}

#endif
