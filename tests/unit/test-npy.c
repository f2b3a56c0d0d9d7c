/*
 * test-npy.c: the .npy reader against files numpy wrote (tests/data/npy,
 * every dtype, Fortran order, versions 1.0 to 3.0, 0-d and zero-size),
 * its errors on malformed files, and write/read round trips.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tap.h"
#include "load/npy.h"
#include "base/rng.h"

static const char *srcdir;
static char tmpdir[256];

static char *
fixture(const char *name)
{
	return (gp_xasprintf("%s/tests/data/npy/%s", srcdir, name));
}

static bool
shape_is(const struct gp_tensor *t, int ndim, const int64_t *shape)
{
	if (t->ndim != ndim)
		return (false);
	for (int i = 0; i < ndim; i++)
		if (t->shape[i] != shape[i])
			return (false);
	return (true);
}

static void
test_dtypes(void)
{
	static const struct {
		const char	*file;
		enum gp_dtype	 dt;
		int		 kind;	/* 0: i/2-2, 1: i-5, 2: 3i, 3: i%3==0 */
	} cases[] = {
		{"float64.npy", GP_FLOAT64, 0}, {"float32.npy", GP_FLOAT32, 0},
		{"int64.npy", GP_INT64, 1}, {"int32.npy", GP_INT32, 1},
		{"int16.npy", GP_INT16, 1}, {"int8.npy", GP_INT8, 1},
		{"uint64.npy", GP_UINT64, 2}, {"uint32.npy", GP_UINT32, 2},
		{"uint16.npy", GP_UINT16, 2}, {"uint8.npy", GP_UINT8, 2},
		{"bool.npy", GP_BOOL, 3},
	};
	static const int64_t shape[2] = {3, 4};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *path = fixture(cases[c].file);
		struct gp_tensor t = {0};
		struct gp_err err = {{0}};
		bool good = true;

		if (!ok(gp_npy_read(path, &t, &err) == 0, "read %s",
		    cases[c].file)) {
			diag("%s", err.msg);
			free(path);
			continue;
		}
		ok(t.dtype == cases[c].dt && shape_is(&t, 2, shape) &&
		    gp_tensor_is_contiguous(&t), "%s: dtype %s, shape (3, 4)",
		    cases[c].file, gp_dtype_name(cases[c].dt));
		for (int i = 0; i < 12; i++) {
			double want = cases[c].kind == 0 ? i * 0.5 - 2 :
			    cases[c].kind == 1 ? i - 5 : cases[c].kind == 2 ?
			    3 * i : (i % 3 == 0);

			if (gp_tensor_get(&t, i) != want)
				good = false;
		}
		ok(good, "%s: the values numpy wrote", cases[c].file);
		gp_tensor_release(&t);
		free(path);
	}
}

static void
test_layouts(void)
{
	struct gp_tensor t = {0};
	struct gp_err err = {{0}};
	struct gp_npy_info info;
	char *path;
	bool good;

	path = fixture("fortran3d.npy");
	ok(gp_npy_read_info(path, &info, &err) == 0 && info.fortran_order &&
	    info.ndim == 3 && info.major == 1, "fortran3d.npy header says "
	    "fortran_order True");
	if (ok(gp_npy_read(path, &t, &err) == 0, "read fortran3d.npy")) {
		good = gp_tensor_is_contiguous(&t) && t.ndim == 3 &&
		    t.shape[0] == 2 && t.shape[1] == 3 && t.shape[2] == 4;
		for (int i = 0; i < 24; i++)
			good = good && gp_tensor_get(&t, i) == i;
		ok(good, "Fortran data comes back in C order");
		gp_tensor_release(&t);
	} else
		diag("%s", err.msg);
	free(path);

	path = fixture("fortran2d-int32.npy");
	if (ok(gp_npy_read(path, &t, &err) == 0, "read fortran2d-int32.npy")) {
		good = t.dtype == GP_INT32 && t.shape[0] == 3 &&
		    t.shape[1] == 4;
		for (int i = 0; i < 12; i++)
			good = good && gp_tensor_get(&t, i) == i - 5;
		ok(good, "Fortran int32 (3, 4) in C order");
		gp_tensor_release(&t);
	}
	free(path);

	for (int v = 2; v <= 3; v++) {
		char name[16];

		snprintf(name, sizeof(name), "v%d.npy", v);
		path = fixture(name);
		ok(gp_npy_read_info(path, &info, &err) == 0 &&
		    info.major == v, "%s is version %d.0", name, v);
		if (ok(gp_npy_read(path, &t, &err) == 0, "read %s", name)) {
			good = t.dtype == GP_FLOAT32 && t.ndim == 1 &&
			    t.shape[0] == 5;
			for (int i = 0; i < 5; i++)
				good = good && gp_tensor_get(&t, i) == i;
			ok(good, "%s: float32 arange(5)", name);
			gp_tensor_release(&t);
		} else
			diag("%s", err.msg);
		free(path);
	}

	path = fixture("scalar.npy");
	if (ok(gp_npy_read(path, &t, &err) == 0, "read scalar.npy")) {
		ok(t.ndim == 0 && t.dtype == GP_FLOAT64 &&
		    gp_tensor_get(&t, 0) == 3.25, "0-d float64 3.25");
		gp_tensor_release(&t);
	}
	free(path);
	path = fixture("empty.npy");
	if (ok(gp_npy_read(path, &t, &err) == 0, "read empty.npy")) {
		ok(t.ndim == 2 && t.shape[0] == 0 && t.shape[1] == 3,
		    "zero-size (0, 3)");
		gp_tensor_release(&t);
	}
	free(path);
}

static void
expect_error(const char *file, uint64_t limit, const char *want)
{
	char *path = file[0] == '/' ? gp_xstrdup(file) : fixture(file);
	struct gp_tensor t = {0};
	struct gp_err err = {{0}};
	int rc = gp_npy_read_limit(path, limit, &t, &err);

	ok(rc < 0 && strstr(err.msg, want) != NULL &&
	    strstr(err.msg, path) == err.msg && t.storage == NULL &&
	    strchr(err.msg, '\n') == NULL, "%s: error mentions \"%s\"",
	    file, want);
	if (rc == 0)
		gp_tensor_release(&t);
	else
		diag("  %s", err.msg);
	free(path);
}

static void
test_errors(void)
{
	expect_error("missing.npy", 0, "cannot open");
	expect_error("bad-magic.npy", 0, "bad magic");
	expect_error("big-endian.npy", 0, "big-endian descr '>f8'");
	expect_error("complex.npy", 0, "unknown descr '<c16'");
	expect_error("structured.npy", 0, "structured dtypes are not "
	    "supported");
	expect_error("truncated-data.npy", 0, "data is truncated");
	expect_error("extra-data.npy", 0, "8 bytes after the data");
	expect_error("truncated-header.npy", 0, "truncated header");
	expect_error("header-lies.npy", 0, "truncated header: it claims "
	    "4000 bytes");
	expect_error("bad-version.npy", 0, "unsupported .npy version 4.0");
	expect_error("unknown-key.npy", 0, "unknown key 'extra'");
	expect_error("overflow.npy", 0, "shape overflow");
	expect_error("huge.npy", 0, "over the memory limit");
	expect_error("float64.npy", 64, "needs 96 bytes, over the memory "
	    "limit of 64 bytes");
	expect_error(srcdir, 0, "is a directory");
}

/* Write raw bytes to a file in tmpdir; returns its path. */
static char *
write_raw(const char *name, const void *p, size_t n)
{
	char *path = gp_xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");

	fwrite(p, 1, n, f);
	fclose(f);
	return (path);
}

/* A .npy whose header dict is d (padded to 64 bytes, then data). */
static char *
write_header(const char *name, const char *d, size_t ndata)
{
	char buf[512] = "\x93NUMPY\x01\x00";
	size_t hl = strlen(d), total;
	char *path;

	memcpy(buf + 10, d, hl);
	total = 10 + hl + 1;
	while (total % 64 != 0)
		buf[10 + hl++] = ' ', total++;
	buf[10 + hl++] = '\n';
	buf[8] = (char)(hl & 0xff);
	buf[9] = (char)(hl >> 8);
	memset(buf + total, 0, ndata);
	path = write_raw(name, buf, total + ndata);
	return (path);
}

static void
test_header_parser(void)
{
	static const struct {
		const char	*dict;
		size_t		 ndata;
		const char	*want;	/* NULL: accepted */
	} cases[] = {
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
		    16, NULL},
		{"{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": "
		    "(2, 1)}", 8, NULL},
		{"{'shape': (2L,), 'fortran_order': False, 'descr': '|u1'}",
		    2, NULL},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (2), }",
		    16, "a 1-tuple shape needs its comma"},
		{"{'descr': '<f8', 'fortran_order': false, 'shape': (2,), }",
		    16, "'fortran_order' must be True or False"},
		{"{'descr': '<f8', 'shape': (2,), }", 16,
		    "missing 'fortran_order'"},
		{"{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, "
		    "'shape': (2,), }", 16, "'descr' given twice"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (-2,), }",
		    16, "non-negative integers"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (02,), }",
		    16, "leading zero"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (2,), } x",
		    16, "unexpected text after the dict"},
		{"{'descr': '|f8', 'fortran_order': False, 'shape': (2,), }",
		    16, "unknown descr '|f8'"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': "
		    "(1,1,1,1,1,1,1,1,1), }", 8, "more than 8 dimensions"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': "
		    "(99999999999999999999,), }", 8, "shape overflow"},
		{"['descr', '<f8']", 8, "expected a dict"},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char name[32];
		char *path;
		struct gp_tensor t = {0};
		struct gp_err err = {{0}};
		int rc;

		snprintf(name, sizeof(name), "hdr%zu.npy", c);
		path = write_header(name, cases[c].dict, cases[c].ndata);
		rc = gp_npy_read(path, &t, &err);
		if (cases[c].want == NULL)
			ok(rc == 0, "header accepted: %s", cases[c].dict);
		else if (!ok(rc < 0 && strstr(err.msg, cases[c].want) != NULL,
		    "header rejected (%s): %s", cases[c].want, cases[c].dict))
			diag("  %s", err.msg);
		if (rc == 0) {
			if (c == 2)
				ok(t.dtype == GP_UINT8 && t.shape[0] == 2,
				    "keys in any order, Python 2 longs");
			gp_tensor_release(&t);
		}
		unlink(path);
		free(path);
	}
	{
		char *path = write_raw("short.npy", "\x93NUMPY\x01", 7);

		expect_error(path, 0, "truncated header");
		unlink(path);
		free(path);
	}
}

static size_t
count_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' || (e->d_name[1] != '\0' &&
		    e->d_name[1] != '.'))
			n++;
	closedir(d);
	return (n);
}

static void
test_round_trips(void)
{
	struct gp_rng rng;
	static const int64_t shapes[][GP_MAX_DIMS] = {
		{0}, {7}, {3, 5}, {0, 4}, {2, 1, 3, 1, 2, 1, 2, 2},
	};
	static const int ndims[] = {0, 1, 2, 2, 8};
	bool all = true;
	char *path = gp_xasprintf("%s/rt.npy", tmpdir);

	gp_rng_seed(&rng, 7);
	for (int dt = 0; dt < GP_DTYPE__COUNT; dt++) {
		for (size_t s = 0; s < sizeof(ndims) / sizeof(ndims[0]); s++) {
			struct gp_tensor a = {0}, b = {0};
			struct gp_err err = {{0}};
			unsigned char *p;
			size_t nb;

			gp_tensor_alloc(&a, (enum gp_dtype)dt, ndims[s],
			    shapes[s]);
			nb = (size_t)gp_tensor_numel(&a) *
			    gp_dtype_size((enum gp_dtype)dt);
			p = (unsigned char *)gp_tensor_data(&a);
			for (size_t i = 0; i < nb; i++)
				p[i] = (unsigned char)gp_rng_next(&rng);
			if (dt == GP_BOOL)
				for (size_t i = 0; i < nb; i++)
					p[i] &= 1;
			if (gp_npy_write(path, &a, &err) < 0 ||
			    gp_npy_read(path, &b, &err) < 0) {
				diag("%s", err.msg);
				all = false;
			} else if (b.dtype != a.dtype ||
			    !shape_is(&b, a.ndim, a.shape) ||
			    memcmp(gp_tensor_data(&b), p, nb) != 0)
				all = false;
			gp_tensor_release(&a);
			gp_tensor_release(&b);
		}
	}
	ok(all, "write then read gives back every dtype and shape "
	    "(0-d, zero-size, 8-d) bit for bit");
	ok(count_files(tmpdir) == 1, "no temporary file is left behind");

	{
		/* a transposed view is written in C order of its shape */
		struct gp_tensor a = {0}, v = {0}, b = {0};
		struct gp_err err = {{0}};
		static const int64_t sh[2] = {2, 3};
		bool good = true;
		int fd;
		char hdr[10];

		gp_tensor_alloc(&a, GP_INT32, 2, sh);
		for (int i = 0; i < 6; i++)
			((int32_t *)gp_tensor_data(&a))[i] = i;
		gp_tensor_view(&v, &a);
		v.shape[0] = 3, v.shape[1] = 2;
		v.strides[0] = 4, v.strides[1] = 12;
		ok(gp_npy_write(path, &v, &err) == 0 &&
		    gp_npy_read(path, &b, &err) == 0, "write a strided view");
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 2; j++)
				good = good && gp_tensor_get(&b, i * 2 + j) ==
				    j * 3 + i;
		ok(good && b.shape[0] == 3 && b.shape[1] == 2,
		    "the view's elements in C order");
		fd = open(path, O_RDONLY);
		ok(fd >= 0 && read(fd, hdr, 10) == 10 &&
		    memcmp(hdr, "\x93NUMPY\x01\x00", 8) == 0 &&
		    (10 + ((unsigned char)hdr[8] | hdr[9] << 8)) % 64 == 0,
		    "version 1.0, data aligned to 64 bytes");
		if (fd >= 0)
			close(fd);
		gp_tensor_release(&a);
		gp_tensor_release(&v);
		gp_tensor_release(&b);
	}
	{
		struct gp_tensor a = {0};
		struct gp_err err = {{0}};
		char *bad = gp_xasprintf("%s/no/such/dir/x.npy", tmpdir);

		gp_tensor_alloc_zero(&a, GP_FLOAT64, 0, NULL);
		ok(gp_npy_write(bad, &a, &err) < 0 &&
		    strstr(err.msg, "cannot create") != NULL,
		    "writing into a missing folder fails cleanly");
		gp_tensor_release(&a);
		free(bad);
	}
	unlink(path);
	free(path);
}

int
main(void)
{
	const char *t = getenv("TMPDIR");

	srcdir = getenv("top_srcdir");
	if (srcdir == NULL)
		srcdir = ".";
	snprintf(tmpdir, sizeof(tmpdir), "%s/gptop-npy-XXXXXX",
	    t != NULL ? t : "/tmp");
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return (1);
	}
	test_dtypes();
	test_layouts();
	test_errors();
	test_header_parser();
	test_round_trips();
	rmdir(tmpdir);
	return (done_testing());
}
