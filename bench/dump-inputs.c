/*
 * dump-inputs.c: write a graph's data as .npy files, and a copy of the
 * graph that reads them, so other tools (numpy, the benchmarks) can be fed
 * exactly the numbers gptop computes on.
 *
 *   dump-inputs [-x | --allow-extern] GRAPH.json OUTDIR
 *
 * The graph is loaded as gptop loads it (every init method run: seeded
 * uniform, normal and integers data, fills, values, .npy files).  Then,
 * for each variable declared in the file's "variables" object (inputs,
 * shared variables and constants; literals in node inputs stay literal):
 *
 *   OUTDIR/NAME.npy     its initial value (version 1.0, C order, the
 *                       variable's dtype and shape)
 *
 * and OUTDIR/GRAPH.json (GRAPH.json's own file name): the graph file with
 * each of those variables' "init" replaced by {"npy": "NAME.npy"}, which
 * the loader resolves relative to the graph's folder.  Running the copy
 * computes the same numbers as running the original.
 *
 * A name that is not a plain file name (characters outside A-Z a-z 0-9
 * _ - . +, a leading dot, over 200 bytes) is written as var-N.npy, N its
 * position in "variables"; read the copy's "init" to map names to files.
 * OUTDIR is created if missing, with its parents.  The copy never
 * replaces GRAPH.json itself.  -x (--allow-extern) allows extern ops,
 * needed to load a graph that has them (loading the graph loads their
 * libraries, as gptop does; no kernel is called).  Relative extern
 * library paths are not rewritten: they resolve against the copy's folder.
 *
 * Exit status: 0 success, 1 failure (the message on stderr), 2 usage.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load/graph-json.h"
#include "load/npy.h"

static void
usage(void)
{
	fprintf(stderr, "usage: dump-inputs [-x | --allow-extern] GRAPH.json "
	    "OUTDIR\n");
	exit(2);
}

static bool
plain_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 200 || s[0] == '.')
		return (false);
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("_-.+", *p) != NULL))
			return (false);
	return (true);
}

/* Is file name f (without ".npy") taken by one of the n names so far or
 * by a plain variable name? */
static bool
taken(char *const *files, size_t n, const json_t *jvars, const char *f)
{
	const char *name;
	json_t *v;

	for (size_t i = 0; i < n; i++)
		if (files[i] != NULL && strcmp(files[i], f) == 0)
			return (true);
	json_object_foreach((json_t *)jvars, name, v)
		if (plain_name(name) && strcmp(name, f) == 0)
			return (true);
	return (false);
}

/* mkdir -p */
static int
make_dirs(const char *path)
{
	char *p = gp_xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; rc == 0; s++) {
		bool end = *s == '\0';

		if (*s != '/' && !end)
			continue;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST)
			rc = -1;
		if (end)
			break;
		*s = '/';
	}
	free(p);
	return (rc);
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return (s != NULL ? s + 1 : path);
}

int
main(int argc, char **argv)
{
	struct gp_load_opts lo = {0};
	struct gp_err err = {{0}};
	struct gp_graph *g;
	const char *gpath, *outdir, *name;
	json_error_t jerr;
	json_t *root, *jvars, *v;
	char **files, *copy;
	struct stat st_in, st_out;
	size_t nv, i;
	int c, rc = 0;

	static const struct option longopts[] = {
		{"allow-extern", no_argument, NULL, 'x'},
		{NULL, 0, NULL, 0}
	};

	while ((c = getopt_long(argc, argv, "x", longopts, NULL)) != -1) {
		if (c == 'x')
			lo.allow_extern = true;
		else
			usage();
	}
	if (argc - optind != 2)
		usage();
	gpath = argv[optind];
	outdir = argv[optind + 1];

	if ((g = gp_graph_load(gpath, &lo, &err)) == NULL) {
		fprintf(stderr, "dump-inputs: %s\n", err.msg);
		return (1);
	}
	/* the loader accepted the text: jansson reads it the same way */
	root = json_load_file(gpath, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL || (jvars = json_object_get(root, "variables")) ==
	    NULL) {
		fprintf(stderr, "dump-inputs: %s: cannot re-read the graph\n",
		    gpath);
		gp_graph_free(g);
		json_decref(root);
		return (1);
	}
	if (make_dirs(outdir) < 0) {
		fprintf(stderr, "dump-inputs: %s: %s\n", outdir,
		    strerror(errno));
		gp_graph_free(g);
		json_decref(root);
		return (1);
	}
	copy = gp_xasprintf("%s/%s", outdir, base_name(gpath));
	if (stat(gpath, &st_in) == 0 && stat(copy, &st_out) == 0 &&
	    st_in.st_dev == st_out.st_dev && st_in.st_ino == st_out.st_ino) {
		fprintf(stderr, "dump-inputs: %s is the graph itself: choose "
		    "another OUTDIR\n", copy);
		free(copy);
		gp_graph_free(g);
		json_decref(root);
		return (1);
	}

	nv = json_object_size(jvars);
	files = gp_xcalloc(nv + 1, sizeof(*files));
	i = 0;
	json_object_foreach(jvars, name, v) {
		int vi = gp_graph_find_var(g, name);
		char *path;

		if (plain_name(name)) {
			files[i] = gp_xstrdup(name);
		} else {
			files[i] = gp_xasprintf("var-%zu", i);
			for (int k = 2; taken(files, i, jvars, files[i]); k++) {
				free(files[i]);
				files[i] = gp_xasprintf("var-%zu-%d", i, k);
			}
		}
		if (vi < 0) {
			fprintf(stderr, "dump-inputs: %s: variable '%s' not "
			    "in the loaded graph\n", gpath, name);
			rc = 1;
			break;
		}
		path = gp_xasprintf("%s/%s.npy", outdir, files[i]);
		if (gp_npy_write(path, &g->vars[vi].value, &err) < 0) {
			fprintf(stderr, "dump-inputs: %s\n", err.msg);
			free(path);
			rc = 1;
			break;
		}
		free(path);
		path = gp_xasprintf("%s.npy", files[i]);
		json_object_set_new(v, "init",
		    json_pack("{s:s}", "npy", path));
		free(path);
		i++;
	}
	if (rc == 0 && json_dump_file(root, copy, JSON_INDENT(1) |
	    JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) != 0) {
		fprintf(stderr, "dump-inputs: %s: cannot write\n", copy);
		rc = 1;
	}
	for (i = 0; i < nv; i++)
		free(files[i]);
	free(files);
	free(copy);
	json_decref(root);
	gp_graph_free(g);
	return (rc);
}
