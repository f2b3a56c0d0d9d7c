/*
 * test-jit.c: the JIT's compiler driver and cache, in a fresh cache folder:
 * one compiler run per batch, nothing compiled on a second build (from the
 * process or from the disk), a corrupt or stale cache entry rebuilt, a
 * failing unit reported without harming the others, the folder's mode and
 * no temporary files left behind.  Skipped when there is no C compiler.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tap.h"
#include "rewrite/jit.h"

static char *
unit(int k)
{
	return (gp_xasprintf("void\nGP_KERNEL(char *const *p, const int64_t "
	    "*s, int64_t n)\n{\n\tfor (int64_t j = 0; j < n; j++)\n\t\t"
	    "*(double *)(p[0] + j * s[0]) = exp(*(const double *)(p[1] + "
	    "j * s[1])) + %d;\n}\n", k));
}

static bool
works(gp_jit_fn fn, int k)
{
	double in[5] = {0, 1, 2, 3, 4}, out[5];
	char *p[2] = {(char *)out, (char *)in};
	int64_t s[2] = {8, 8};

	if (fn == NULL)
		return (false);
	fn(p, s, 5);
	for (int i = 0; i < 5; i++)
		if (out[i] != exp(in[i]) + k)
			return (false);
	return (true);
}

/* The cache entries (*.so) and leftovers (tmp-*) in dir. */
static void
scan(const char *dir, int *n_so, int *n_tmp, char *last, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	*n_so = *n_tmp = 0;
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (strncmp(e->d_name, "tmp-", 4) == 0)
			(*n_tmp)++;
		else if (l > 3 && strcmp(e->d_name + l - 3, ".so") == 0) {
			(*n_so)++;
			snprintf(last, len, "%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
}

/* Replace path with bytes (a new file renamed over it, so this process's
 * mapping of the old one stays valid). */
static void
replace_file(const char *path, const void *bytes, size_t n)
{
	char *tmp = gp_xasprintf("%s.new", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, bytes, n) != (ssize_t)n)
			diag("short write");
		close(fd);
		rename(tmp, path);
	}
	free(tmp);
}

/* A fresh process (this program again) builds units k and k + 1 (the
 * first batch when k is 1): 0 when it rebuilt the cache entry (one
 * compile, one rebuild) and the functions work, 2 when it loaded the entry
 * as it was, 1 otherwise. */
static int
child_build(int k)
{
	struct gp_jit_stats st;
	struct gp_err err;
	char *src[2] = {unit(k), unit(k + 1)};
	gp_jit_fn fn[2];
	bool w;

	gp_jit_build((const char *const *)src, fn, 2, &err);
	gp_jit_get_stats(&st);
	w = works(fn[0], k) && works(fn[1], k + 1);
	free(src[0]);
	free(src[1]);
	if (w && st.compiles == 1 && st.rebuilds == 1)
		return (0);
	if (w && st.compiles == 0 && st.disk_hits == 1)
		return (2);
	return (1);
}

static int
in_child(int k)
{
	char arg[16];
	pid_t pid;
	int st;

	snprintf(arg, sizeof(arg), "%d", k);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "test-jit", "child", arg, (char *)NULL);
		_exit(3);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return (-1);
	return (WEXITSTATUS(st));
}

int
main(int argc, char **argv)
{
	const char *base = getenv("XDG_CACHE_HOME");
	char *root, *dir, last[4096] = "", first[4096];
	const char *src[3];
	gp_jit_fn fns[3];
	struct gp_jit_stats st0, st;
	struct gp_err err;
	struct stat sb;
	int n_so, n_tmp, built;

	if (argc == 3 && strcmp(argv[1], "child") == 0)
		return (child_build(atoi(argv[2])));
	root = gp_xasprintf("%s/test-jit-XXXXXX", base != NULL && base[0] ==
	    '/' ? base : "/tmp");
	{
		char *parent = gp_xstrdup(root);

		*strrchr(parent, '/') = '\0';
		mkdir(parent, 0700);
		free(parent);
	}
	if (mkdtemp(root) == NULL) {
		printf("1..0 # SKIP cannot make %s\n", root);
		return (0);
	}
	setenv("XDG_CACHE_HOME", root, 1);
	if (!gp_jit_available(NULL)) {
		printf("1..0 # SKIP no C compiler\n");
		return (0);
	}
	dir = gp_xasprintf("%s/gptop", root);
	ok(strcmp(gp_jit_cache_dir(), dir) == 0, "cache folder %s",
	    gp_jit_cache_dir());
	ok(stat(dir, &sb) == 0 && (sb.st_mode & 0777) == 0700,
	    "cache folder mode 0700");
	diag("%s", gp_jit_describe());

	src[0] = unit(1);
	src[1] = unit(2);
	src[2] = unit(1);	/* the same as 0 */
	gp_jit_get_stats(&st0);
	built = gp_jit_build(src, fns, 3, &err);
	gp_jit_get_stats(&st);
	is_int(built, 3, "a batch of three units (two distinct)");
	is_int((long long)(st.compiles - st0.compiles), 1,
	    "one compiler run for the batch");
	ok(works(fns[0], 1) && works(fns[1], 2) && works(fns[2], 1),
	    "the functions compute");
	ok(fns[0] == fns[2], "equal units share one function");
	scan(dir, &n_so, &n_tmp, last, sizeof(last));
	is_int(n_so, 1, "one cache entry");
	is_int(n_tmp, 0, "no temporary files left");
	snprintf(first, sizeof(first), "%s", last);

	st0 = st;
	gp_jit_build(src, fns, 2, &err);
	gp_jit_get_stats(&st);
	ok(st.compiles == st0.compiles && st.mem_hits == st0.mem_hits + 2,
	    "built again: nothing compiled, both from the process");

	gp_jit_forget();
	st0 = st;
	built = gp_jit_build(src, fns, 2, &err);
	gp_jit_get_stats(&st);
	ok(built == 2 && st.compiles == st0.compiles &&
	    st.disk_hits == st0.disk_hits + 1, "after forgetting: nothing "
	    "compiled, one batch loaded from the cache");
	ok(works(fns[0], 1) && works(fns[1], 2), "cached functions compute");
	ok(gp_jit_thread_ns() > 0, "JIT time is counted (%.3f ms)",
	    (double)gp_jit_thread_ns() / 1e6);

	/* a corrupt entry */
	replace_file(first, "garbage\n", 8);
	is_int(in_child(1), 0, "a corrupt entry is rebuilt by another "
	    "process");
	is_int(in_child(1), 2, "and then loaded as it is");
	{
		FILE *fp = fopen(first, "rb");
		char magic[4] = {0};

		if (fp != NULL) {
			if (fread(magic, 1, 4, fp) != 4)
				magic[0] = 0;
			fclose(fp);
		}
		ok(memcmp(magic, "\177ELF", 4) == 0, "the entry is an object "
		    "again");
	}
	/* a stale entry: another batch's object under this name */
	{
		const char *other = unit(7);
		char *stale = NULL;
		FILE *fp;
		long len;

		gp_jit_build(&other, fns, 1, &err);
		scan(dir, &n_so, &n_tmp, last, sizeof(last));
		/* copy an entry that is not `first` over `first` */
		{
			DIR *d = opendir(dir);
			struct dirent *e;

			while (d != NULL && (e = readdir(d)) != NULL) {
				char *p = gp_xasprintf("%s/%s", dir, e->d_name);
				size_t l = strlen(e->d_name);

				if (l > 3 && strcmp(e->d_name + l - 3, ".so") ==
				    0 && strcmp(p, first) != 0 && stale == NULL)
					stale = p;
				else
					free(p);
			}
			if (d != NULL)
				closedir(d);
		}
		if (stale != NULL && (fp = fopen(stale, "rb")) != NULL) {
			char *bytes;

			fseek(fp, 0, SEEK_END);
			len = ftell(fp);
			rewind(fp);
			bytes = gp_xmalloc((size_t)len + 1);
			if (fread(bytes, 1, (size_t)len, fp) == (size_t)len)
				replace_file(first, bytes, (size_t)len);
			fclose(fp);
			free(bytes);
		}
		ok(stale != NULL && in_child(1) == 0,
		    "an entry with another version stamp is rebuilt");
		free(stale);
		free((char *)other);
	}
	/* a unit that does not compile */
	{
		const char *bad[2];

		bad[0] = "void\nGP_KERNEL(char *const *p, const int64_t *s, "
		    "int64_t n)\n{\n\tthis is not C;\n}\n";
		bad[1] = src[1];
		st0 = st;
		gp_jit_get_stats(&st0);
		built = gp_jit_build(bad, fns, 1, &err);
		gp_jit_get_stats(&st);
		ok(built == 0 && fns[0] == NULL && strstr(err.msg, "failed") !=
		    NULL, "a unit that does not compile: no function, the "
		    "compiler's message");
		diag("  %s", err.msg);
		built = gp_jit_build(&bad[1], fns, 1, &err);
		ok(built == 1 && works(fns[0], 2), "the JIT still works after "
		    "a failure");
		scan(dir, &n_so, &n_tmp, last, sizeof(last));
		is_int(n_tmp, 0, "no temporary files left after a failure");
	}
	{
		struct gp_jit_stats a;
		const char *fresh = unit(9);

		gp_jit_get_stats(&a);
		gp_jit_build(&fresh, fns, 1, &err);
		gp_jit_get_stats(&st);
		ok(st.compiles == a.compiles + 1 && strstr(gp_jit_describe(),
		    "-fopenmp-simd") != NULL, "after a failing unit the JIT "
		    "keeps its vector flags");
		free((char *)fresh);
	}
	/* clean up the cache folder */
	{
		DIR *d = opendir(dir);
		struct dirent *e;

		while (d != NULL && (e = readdir(d)) != NULL) {
			char *p = gp_xasprintf("%s/%s", dir, e->d_name);

			if (e->d_name[0] != '.')
				unlink(p);
			free(p);
		}
		if (d != NULL)
			closedir(d);
		rmdir(dir);
		rmdir(root);
	}
	free((char *)src[0]);
	free((char *)src[1]);
	free((char *)src[2]);
	free(dir);
	free(root);
	return (done_testing());
}
