/*
 * npy.c: the .npy reader and writer (see npy.h).  The header dict is read
 * by a small strict parser for exactly the form numpy writes:
 *   {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
 * then padding spaces and a newline.  It is a Python literal, not JSON.
 */
#include "config.h"

#include "load/npy.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/graph.h"	/* gp_graph_default_limit */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.c reads and writes little-endian data on little-endian hosts only"
#endif

#define MAGIC		"\x93NUMPY"
#define MAGIC_LEN	6
#define HEADER_MAX	(1 << 20)
#define DESCR_LIST \
	"<f8, <f4, <i8, <i4, <i2, |i1, <u8, <u4, <u2, |u1, |b1"

bool
gp_npy_nbytes(int ndim, const int64_t *shape, enum gp_dtype dt,
    uint64_t *out)
{
	uint64_t n = gp_dtype_size(dt);
	bool zero = false;

	for (int i = 0; i < ndim; i++) {
		if (shape[i] < 0)
			return (false);
		if (shape[i] == 0) {
			zero = true;
			continue;
		}
		if (__builtin_mul_overflow(n, (uint64_t)shape[i], &n) ||
		    n > (uint64_t)INT64_MAX)
			return (false);
	}
	*out = zero ? 0 : n;
	return (true);
}

/* The strict header parser. */
struct hparse {
	const char	*p, *end;
	const char	*path;
	struct gp_err	*err;
};

static void
hp_ws(struct hparse *h)
{
	while (h->p < h->end && (*h->p == ' ' || *h->p == '\t'))
		h->p++;
}

static int
hp_fail(struct hparse *h, const char *what)
{
	return (gp_err_set(h->err, "%s: malformed header: %s", h->path, what));
}

/* A quoted string of printable ASCII (no escapes), into buf. */
static int
hp_string(struct hparse *h, char *buf, size_t cap)
{
	char q;
	size_t n = 0;

	if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
		return (hp_fail(h, "expected a quoted string"));
	q = *h->p++;
	while (h->p < h->end && *h->p != q) {
		unsigned char c = (unsigned char)*h->p;

		if (c < 0x20 || c > 0x7e || c == '\\')
			return (hp_fail(h, "unexpected character in a string"));
		if (n + 1 >= cap)
			return (hp_fail(h, "string too long"));
		buf[n++] = (char)c;
		h->p++;
	}
	if (h->p >= h->end)
		return (hp_fail(h, "unterminated string"));
	h->p++;
	buf[n] = '\0';
	return (0);
}

static bool
hp_word(struct hparse *h, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(h->end - h->p) < n || memcmp(h->p, w, n) != 0)
		return (false);
	h->p += n;
	return (true);
}

static int
hp_shape(struct hparse *h, struct gp_npy_info *info)
{
	int n = 0;
	bool comma = false;

	if (h->p >= h->end || *h->p != '(')
		return (hp_fail(h, "'shape' must be a tuple like (3, 4)"));
	h->p++;
	for (;;) {
		int64_t v = 0;

		hp_ws(h);
		if (h->p < h->end && *h->p == ')')
			break;
		if (h->p >= h->end || *h->p < '0' || *h->p > '9')
			return (hp_fail(h, "'shape' must hold non-negative "
			    "integers"));
		if (*h->p == '0' && h->p + 1 < h->end && h->p[1] >= '0' &&
		    h->p[1] <= '9')
			return (hp_fail(h, "a dimension has a leading zero"));
		while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
			if (__builtin_mul_overflow(v, 10, &v) ||
			    __builtin_add_overflow(v, *h->p - '0', &v))
				return (gp_err_set(h->err, "%s: shape "
				    "overflow: a dimension does not fit in 64 "
				    "bits", h->path));
			h->p++;
		}
		if (h->p < h->end && *h->p == 'L')	/* Python 2 long */
			h->p++;
		if (n >= GP_MAX_DIMS)
			return (gp_err_set(h->err, "%s: the array has more "
			    "than %d dimensions, at most %d are supported",
			    h->path, GP_MAX_DIMS, GP_MAX_DIMS));
		info->shape[n++] = v;
		hp_ws(h);
		comma = false;
		if (h->p < h->end && *h->p == ',') {
			h->p++;
			comma = true;
			continue;
		}
		if (h->p < h->end && *h->p == ')')
			break;
		return (hp_fail(h, "expected ',' or ')' in 'shape'"));
	}
	if (n == 1 && !comma)
		return (hp_fail(h, "a 1-tuple shape needs its comma: (3,)"));
	h->p++;
	info->ndim = n;
	return (0);
}

static int
parse_descr(const char *path, const char *d, enum gp_dtype *out,
    struct gp_err *err)
{
	char order = d[0];

	if (order == '<' || order == '|' || order == '=' || order == '>') {
		for (int t = 0; t < GP_DTYPE__COUNT; t++) {
			if (strcmp(d + 1, gp_dtype_table[t].npy) != 0)
				continue;
			if (gp_dtype_table[t].size > 1 && order == '>')
				return (gp_err_set(err, "%s: big-endian descr "
				    "'%s' is not supported (expected "
				    "little-endian '<%s'; in numpy: "
				    "a.astype(a.dtype.newbyteorder('<')))",
				    path, d, d + 1));
			if (gp_dtype_table[t].size > 1 && order == '|')
				break;
			*out = (enum gp_dtype)t;
			return (0);
		}
	}
	return (gp_err_set(err, "%s: unknown descr '%s' (expected one of "
	    DESCR_LIST ")", path, d));
}

static int
parse_header(const char *path, const char *hdr, size_t len,
    struct gp_npy_info *info, struct gp_err *err)
{
	struct hparse h = {hdr, hdr + len, path, err};
	bool have_descr = false, have_fo = false, have_shape = false;
	char descr[40];

	if (len == 0 || hdr[len - 1] != '\n')
		return (hp_fail(&h, "it does not end with a newline"));
	h.end--;
	hp_ws(&h);
	if (h.p >= h.end || *h.p != '{')
		return (hp_fail(&h, "expected a dict starting with '{'"));
	h.p++;
	for (;;) {
		char key[40];

		hp_ws(&h);
		if (h.p < h.end && *h.p == '}')
			break;
		if (hp_string(&h, key, sizeof(key)) < 0)
			return (-1);
		hp_ws(&h);
		if (h.p >= h.end || *h.p != ':')
			return (hp_fail(&h, "expected ':' after a key"));
		h.p++;
		hp_ws(&h);
		if (strcmp(key, "descr") == 0) {
			if (have_descr)
				return (hp_fail(&h, "'descr' given twice"));
			if (h.p < h.end && *h.p == '[')
				return (gp_err_set(err, "%s: structured "
				    "dtypes are not supported (expected a "
				    "descr like '<f8')", path));
			if (hp_string(&h, descr, sizeof(descr)) < 0)
				return (-1);
			have_descr = true;
		} else if (strcmp(key, "fortran_order") == 0) {
			if (have_fo)
				return (hp_fail(&h, "'fortran_order' given "
				    "twice"));
			if (hp_word(&h, "True"))
				info->fortran_order = true;
			else if (hp_word(&h, "False"))
				info->fortran_order = false;
			else
				return (hp_fail(&h, "'fortran_order' must be "
				    "True or False"));
			have_fo = true;
		} else if (strcmp(key, "shape") == 0) {
			if (have_shape)
				return (hp_fail(&h, "'shape' given twice"));
			if (hp_shape(&h, info) < 0)
				return (-1);
			have_shape = true;
		} else {
			return (gp_err_set(err, "%s: malformed header: unknown "
			    "key '%s' (expected 'descr', 'fortran_order' and "
			    "'shape')", path, key));
		}
		hp_ws(&h);
		if (h.p < h.end && *h.p == ',') {
			h.p++;
			continue;
		}
		if (h.p < h.end && *h.p == '}')
			break;
		return (hp_fail(&h, "expected ',' or '}' in the dict"));
	}
	h.p++;
	hp_ws(&h);
	if (h.p != h.end)
		return (hp_fail(&h, "unexpected text after the dict"));
	if (!have_descr || !have_fo || !have_shape)
		return (gp_err_set(err, "%s: malformed header: missing '%s'",
		    path, !have_descr ? "descr" : !have_fo ? "fortran_order" :
		    "shape"));
	return (parse_descr(path, descr, &info->dtype, err));
}

static int
read_full(int fd, void *buf, size_t n, uint64_t off)
{
	char *p = buf;

	while (n > 0) {
		ssize_t r = pread(fd, p, n > (1u << 30) ? (1u << 30) : n,
		    (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return (r < 0 ? -1 : 0);
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return (1);
}

/* Open path and read its header into info; returns the fd or -1. */
static int
open_header(const char *path, uint64_t limit, struct gp_npy_info *info,
    struct gp_err *err)
{
	unsigned char pre[12];
	struct stat st;
	uint64_t hlen, prefix, size, avail;
	char *hdr;
	int fd, r;

	memset(info, 0, sizeof(*info));
	/* a FIFO or a device is refused before a read could block */
	if ((fd = gp_open_regular(path, "a .npy file", &st, err)) < 0)
		return (-1);
	size = (uint64_t)st.st_size;
	if (size < MAGIC_LEN || (r = read_full(fd, pre, MAGIC_LEN, 0)) <= 0 ||
	    memcmp(pre, MAGIC, MAGIC_LEN) != 0) {
		gp_err_set(err, "%s: bad magic: not a .npy file (expected "
		    "the bytes \\x93NUMPY at the start)", path);
		goto fail;
	}
	if (size < 10 || read_full(fd, pre, 12 <= size ? 12 : 10, 0) <= 0) {
		gp_err_set(err, "%s: truncated header: the file ends after "
		    "%" PRIu64 " bytes", path, size);
		goto fail;
	}
	info->major = pre[6];
	info->minor = pre[7];
	if (info->minor != 0 || info->major < 1 || info->major > 3) {
		gp_err_set(err, "%s: unsupported .npy version %d.%d (expected "
		    "1.0, 2.0 or 3.0)", path, info->major, info->minor);
		goto fail;
	}
	if (info->major == 1) {
		hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8;
		prefix = 10;
	} else {
		if (size < 12) {
			gp_err_set(err, "%s: truncated header: the file ends "
			    "after %" PRIu64 " bytes", path, size);
			goto fail;
		}
		hlen = (uint64_t)pre[8] | (uint64_t)pre[9] << 8 |
		    (uint64_t)pre[10] << 16 | (uint64_t)pre[11] << 24;
		prefix = 12;
	}
	if (hlen > HEADER_MAX) {
		gp_err_set(err, "%s: the header claims %" PRIu64 " bytes, "
		    "more than the %d allowed", path, hlen, HEADER_MAX);
		goto fail;
	}
	if (prefix + hlen > size) {
		gp_err_set(err, "%s: truncated header: it claims %" PRIu64
		    " bytes, the file holds only %" PRIu64 " after the "
		    "prefix", path, hlen, size - prefix);
		goto fail;
	}
	hdr = gp_xmalloc((size_t)hlen + 1);
	if (read_full(fd, hdr, (size_t)hlen, prefix) <= 0) {
		free(hdr);
		gp_err_set(err, "%s: cannot read the header: %s", path,
		    strerror(errno ? errno : EIO));
		goto fail;
	}
	hdr[hlen] = '\0';
	if (parse_header(path, hdr, (size_t)hlen, info, err) < 0) {
		free(hdr);
		goto fail;
	}
	free(hdr);
	info->data_offset = prefix + hlen;
	if (!gp_npy_nbytes(info->ndim, info->shape, info->dtype,
	    &info->nbytes)) {
		struct gp_buf b = {0};

		gp_shape_format(&b, info->ndim, info->shape);
		gp_err_set(err, "%s: shape overflow: %s %s does not fit in "
		    "64 bits of bytes", path, gp_dtype_name(info->dtype),
		    gp_buf_str(&b));
		gp_buf_free(&b);
		goto fail;
	}
	if (limit != 0 && info->nbytes > limit) {
		struct gp_buf b = {0};

		gp_shape_format(&b, info->ndim, info->shape);
		gp_err_set(err, "%s: %s %s needs %" PRIu64 " bytes, over the "
		    "memory limit of %" PRIu64 " bytes", path,
		    gp_dtype_name(info->dtype), gp_buf_str(&b), info->nbytes,
		    limit);
		gp_buf_free(&b);
		goto fail;
	}
	avail = size - info->data_offset;
	if (avail != info->nbytes) {
		struct gp_buf b = {0};

		gp_shape_format(&b, info->ndim, info->shape);
		if (avail < info->nbytes)
			gp_err_set(err, "%s: data is truncated: the header "
			    "says %s %s, %" PRIu64 " bytes, the file holds "
			    "%" PRIu64, path, gp_dtype_name(info->dtype),
			    gp_buf_str(&b), info->nbytes, avail);
		else
			gp_err_set(err, "%s: %" PRIu64 " bytes after the data "
			    "the header describes (%s %s, %" PRIu64 " bytes)",
			    path, avail - info->nbytes,
			    gp_dtype_name(info->dtype), gp_buf_str(&b),
			    info->nbytes);
		gp_buf_free(&b);
		goto fail;
	}
	return (fd);
fail:
	close(fd);
	return (-1);
}

int
gp_npy_read_info(const char *path, struct gp_npy_info *info,
    struct gp_err *err)
{
	int fd = open_header(path, 0, info, err);

	if (fd < 0)
		return (-1);
	close(fd);
	return (0);
}

int
gp_npy_read_limit(const char *path, uint64_t limit, struct gp_tensor *out,
    struct gp_err *err)
{
	struct gp_npy_info info;
	struct gp_tensor t = {0};
	int fd;

	if (limit == 0)
		limit = gp_graph_default_limit();
	fd = open_header(path, limit, &info, err);
	if (fd < 0)
		return (-1);
	if (info.fortran_order) {
		/* the data is C order for the reversed shape */
		int64_t rev[GP_MAX_DIMS];

		for (int i = 0; i < info.ndim; i++)
			rev[i] = info.shape[info.ndim - 1 - i];
		gp_tensor_alloc(&t, info.dtype, info.ndim, rev);
	} else
		gp_tensor_alloc(&t, info.dtype, info.ndim, info.shape);
	if (info.nbytes > 0 && read_full(fd, gp_tensor_data(&t),
	    (size_t)info.nbytes, info.data_offset) <= 0) {
		gp_err_set(err, "%s: cannot read the data: %s", path,
		    strerror(errno ? errno : EIO));
		gp_tensor_release(&t);
		close(fd);
		return (-1);
	}
	close(fd);
	if (info.dtype == GP_BOOL) {
		unsigned char *p = (unsigned char *)gp_tensor_data(&t);

		for (uint64_t i = 0; i < info.nbytes; i++)
			p[i] = p[i] != 0;
	}
	if (info.fortran_order && info.ndim > 1) {
		struct gp_tensor f = t, c = {0};
		int64_t s = (int64_t)gp_dtype_size(info.dtype);

		/* view the reversed C array as the F-ordered original */
		for (int i = 0; i < info.ndim; i++) {
			f.shape[i] = info.shape[i];
			f.strides[i] = s;
			s *= info.shape[i];
		}
		gp_tensor_copy(&c, &f);
		gp_tensor_release(&t);
		t = c;
	}
	*out = t;
	return (0);
}

int
gp_npy_read(const char *path, struct gp_tensor *out, struct gp_err *err)
{
	return (gp_npy_read_limit(path, 0, out, err));
}

static int
write_full(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t w = write(fd, p, n > (1u << 30) ? (1u << 30) : n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return (-1);
		p += w;
		n -= (size_t)w;
	}
	return (0);
}

int
gp_npy_write(const char *path, const struct gp_tensor *t,
    struct gp_err *err)
{
	const struct gp_dtype_info *di = &gp_dtype_table[t->dtype];
	struct gp_buf h = {0}, tmp = {0};
	struct gp_tensor c = {0};
	const struct gp_tensor *src = t;
	unsigned char pre[10];
	size_t prefix, total, nbytes;
	const char *slash;
	char *dir;
	int fd = -1, saved;
	unsigned seq = 0;
	bool created = false;

	gp_buf_printf(&h, "{'descr': '%c%s', 'fortran_order': False, "
	    "'shape': (", di->size == 1 ? '|' : '<', di->npy);
	for (int i = 0; i < t->ndim; i++)
		gp_buf_printf(&h, "%s%lld", i ? ", " : "",
		    (long long)t->shape[i]);
	gp_buf_puts(&h, t->ndim == 1 ? ",), }" : "), }");
	/* version 1.0 (at most GP_MAX_DIMS dimensions always fit its 16-bit
	 * header length); pad with spaces so the data starts on a 64-byte
	 * boundary, as numpy does */
	prefix = 10;
	total = prefix + h.len + 1;
	while (total % 64 != 0) {
		gp_buf_puts(&h, " ");
		total++;
	}
	gp_buf_puts(&h, "\n");
	memcpy(pre, MAGIC, MAGIC_LEN);
	pre[6] = 1;
	pre[7] = 0;
	pre[8] = (unsigned char)(h.len & 0xff);
	pre[9] = (unsigned char)((h.len >> 8) & 0xff);

	nbytes = gp_tensor_numel(t) > 0 ? gp_tensor_nbytes(t) : 0;
	if (nbytes > 0 && !gp_tensor_is_contiguous(t)) {
		gp_tensor_copy(&c, t);
		src = &c;
	}
	do {
		gp_buf_clear(&tmp);
		gp_buf_printf(&tmp, "%s.tmp.%ld.%u", path, (long)getpid(),
		    seq++);
		fd = open(gp_buf_str(&tmp), O_WRONLY | O_CREAT | O_EXCL |
		    O_CLOEXEC, 0666);
	} while (fd < 0 && errno == EEXIST && seq < 1000);
	if (fd < 0) {
		gp_err_set(err, "%s: cannot create %s: %s", path,
		    gp_buf_str(&tmp), strerror(errno));
		goto fail;
	}
	created = true;
	if (write_full(fd, pre, prefix) < 0 ||
	    write_full(fd, h.s, h.len) < 0 ||
	    (nbytes > 0 && write_full(fd, gp_tensor_data(src), nbytes) < 0) ||
	    fsync(fd) < 0) {
		gp_err_set(err, "%s: cannot write: %s", path, strerror(errno));
		goto fail;
	}
	if (close(fd) < 0) {
		fd = -1;
		gp_err_set(err, "%s: cannot write: %s", path, strerror(errno));
		goto fail;
	}
	fd = -1;
	if (rename(gp_buf_str(&tmp), path) < 0) {
		gp_err_set(err, "%s: cannot rename %s into place: %s", path,
		    gp_buf_str(&tmp), strerror(errno));
		goto fail;
	}
	/* make the rename itself durable */
	slash = strrchr(path, '/');
	dir = slash == NULL ? gp_xstrdup(".") :
	    gp_xasprintf("%.*s", (int)(slash - path + (slash == path)), path);
	if ((fd = open(dir, O_RDONLY | O_CLOEXEC)) >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
	gp_buf_free(&h);
	gp_buf_free(&tmp);
	gp_tensor_release(&c);
	return (0);
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (created)
		(void)unlink(gp_buf_str(&tmp));
	gp_buf_free(&h);
	gp_buf_free(&tmp);
	gp_tensor_release(&c);
	errno = saved;
	return (-1);
}
