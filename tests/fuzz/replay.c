/*
 * replay.c: the main() that replays a fuzz target's corpus without
 * libFuzzer, for make check.  Linked with one fuzz-NAME.c as replay-NAME,
 * it feeds LLVMFuzzerTestOneInput every regular file of the folders (or
 * the files) given as arguments; without arguments, those named for NAME
 * in FZ_DIRS below, under $top_srcdir.  Prints TAP, one test per folder;
 * a crash or a broken property aborts (the TAP driver reports it).  With
 * FUZZ_REPLAY_VERBOSE set, each file is named on stderr before it is fed
 * (to find the one that crashed).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* The seed folders of each target, relative to $top_srcdir. */
static const struct {
	const char *name;
	const char *dirs[6];
} FZ_DIRS[] = {
    {.name = "load",
	.dirs = {"tests/fuzz/corpus/load", "data/graphs", "tests/invalid"}},
    {.name = "rewrite", .dirs = {"tests/fuzz/corpus/rewrite", "data/graphs"}},
    {.name = "npy",
	.dirs = {"tests/fuzz/corpus/npy", "tests/data/npy", "tests/invalid"}},
    {.name = "capture",
	.dirs = {"tests/fuzz/corpus/capture", "tests/capture",
	    "tests/capture/bad"}},
    {.name = "flags", .dirs = {"tests/fuzz/corpus/flags"}},
    {.name = "onnx", .dirs = {"tests/fuzz/corpus/onnx"}},
};

static int
feed_file(const char *path, long *n)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, r;

	if (fp == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return (-1);
	}
	if (getenv("FUZZ_REPLAY_VERBOSE") != NULL)
		fprintf(stderr, "replay: %s\n", path);
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			if ((buf = realloc(buf, cap)) == NULL)
				abort();
		}
		r = fread(buf + len, 1, cap - len, fp);
		len += r;
	} while (r > 0);
	fclose(fp);
	/* an exact-size copy, so ASan sees any read past the end */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (exact == NULL)
			abort();
		memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	(*n)++;
	return (0);
}

static int
cmp_str(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* Feed every regular file of dir (or dir itself when a file), in name
 * order.  Returns the number fed, or -1. */
static long
feed(const char *dir)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t nn = 0, cap = 0;
	long n = 0;
	DIR *d;

	if (stat(dir, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return (-1);
	}
	if (!S_ISDIR(st.st_mode))
		return (feed_file(dir, &n) < 0 ? -1 : n);
	if ((d = opendir(dir)) == NULL)
		return (-1);
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(dir) + strlen(de->d_name) + 2;
		char *p;

		if (de->d_name[0] == '.')
			continue;
		if ((p = malloc(l)) == NULL)
			abort();
		snprintf(p, l, "%s/%s", dir, de->d_name);
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		if (nn == cap) {
			cap = cap ? 2 * cap : 64;
			if ((names = realloc(names, cap * sizeof(*names))) ==
			    NULL)
				abort();
		}
		names[nn++] = p;
	}
	closedir(d);
	if (nn > 0)
		qsort(names, nn, sizeof(*names), cmp_str);
	for (size_t i = 0; i < nn; i++) {
		if (n >= 0 && feed_file(names[i], &n) < 0)
			n = -1;
		free(names[i]);
	}
	free(names);
	return (n);
}

int
main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	const char *top = getenv("top_srcdir");
	const char *name;
	int fail = 0, t = 0;

	base = base != NULL ? base + 1 : argv[0];
	name = strncmp(base, "replay-", 7) == 0 ? base + 7 : base;
	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			long n = feed(argv[i]);

			printf("%s %d - %s: %ld inputs\n",
			    n < 0 ? "not ok" : "ok", ++t, argv[i], n);
			fail |= n < 0;
		}
		printf("1..%d\n", t);
		return (fail);
	}
	if (top == NULL)
		top = ".";
	for (size_t k = 0; k < sizeof(FZ_DIRS) / sizeof(FZ_DIRS[0]); k++) {
		if (strcmp(FZ_DIRS[k].name, name) != 0)
			continue;
		for (int i = 0; i < 6 && FZ_DIRS[k].dirs[i] != NULL; i++) {
			char path[4096];
			long n;

			snprintf(path, sizeof(path), "%s/%s", top,
			    FZ_DIRS[k].dirs[i]);
			n = feed(path);
			/* a folder that feeds nothing tests nothing */
			printf("%s %d - %s %s: %ld inputs\n",
			    n <= 0 ? "not ok" : "ok", ++t, name,
			    FZ_DIRS[k].dirs[i], n);
			fail |= n <= 0;
		}
	}
	if (t == 0) {
		printf("not ok 1 - no corpus for target '%s'\n", name);
		t = 1;
		fail = 1;
	}
	printf("1..%d\n", t);
	return (fail);
}
