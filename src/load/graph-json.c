/*
 * graph-json.c: the graph loader (see graph-json.h and
 * doc/graph-format.md): the whole document, read in passes.  The text is
 * checked and parsed (json-text.c); the top-level object's keys checked;
 * then the variables and their initial values (json-vars.c); the nodes,
 * whose outputs are named before any input is resolved, so a node may use
 * a later node's output (json-nodes.c); the functions
 * (json-functions.c).  The graph is made through the builder API
 * (graph/build.h), whose gp_graph_prepare then prepares every node in a
 * topological order, finds cycles and checks the updates' types.  The
 * first problem stops the load with one message placed by jsonpos.c
 * (json-errors.c, which also gives preparation's locator).
 */
#include "config.h"

#include "load/graph-json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "load/json-loader.h"

/* The whole document. */

static const char *const top_keys[] = {
	"format", "name", "doc", "variables", "nodes", "functions", NULL
};

static char *
default_name(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base != NULL ? base + 1 : path;
	n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".json") == 0)
		n -= 5;
	if (n == 0)
		return (gp_xstrdup("graph"));
	return (gp_xasprintf("%.*s", (int)n, base));
}

static int
load_root(struct loader *L)
{
	json_t *root = L->root, *e, *jvars, *jnodes, *jfns;
	char *name;

	if (!json_is_object(root))
		return (gp_load_fail(L, W_ROOT, false,
		    "the top-level value is %s: "
		    "expected a graph, an object {\"format\": \"" FORMAT
		    "\", ...}",
		    gp_jsonpos_kind(root)));
	if ((e = json_object_get(root, "format")) == NULL)
		return (gp_load_fail(L, W_ROOT, false,
		    "missing \"format\": expected \"format\": \"" FORMAT "\""));
	if (!json_is_string(e) || strcmp(json_string_value(e), FORMAT) != 0)
		return (gp_load_fail(L, w_key(W_ROOT, "format"), false,
		    "unsupported format %s: expected \"" FORMAT "\"",
		    gp_load_show(L, e)));
	if (gp_load_check_keys(L, root, top_keys, W_ROOT, "", 0) < 0)
		return (-1);
	if ((e = json_object_get(root, "name")) != NULL) {
		if (!json_is_string(e))
			return (gp_load_bad_type(L, w_key(W_ROOT, "name"), "",
			    "name", "a string", e));
		if (gp_load_check_name(L, json_string_value(e),
			w_key(W_ROOT, "name"), false, "graph name") < 0)
			return (-1);
		name = gp_xstrdup(json_string_value(e));
	} else
		name = default_name(L->g->path[0] != '\0' ? L->g->path :
		    "graph");
	gp_graph_set_name(L->g, name);
	free(name);
	if ((e = json_object_get(root, "doc")) != NULL && !json_is_string(e))
		return (gp_load_bad_type(L, w_key(W_ROOT, "doc"), "", "doc",
		    "a string", e));
	jvars = json_object_get(root, "variables");
	if (jvars != NULL && !json_is_object(jvars))
		return (gp_load_bad_type(L, w_key(W_ROOT, "variables"), "",
		    "variables", "an object {\"name\": {\"kind\": ..., "
		    "\"dtype\": ..., \"shape\": ...}}", jvars));
	jnodes = json_object_get(root, "nodes");
	if (jnodes != NULL && !json_is_array(jnodes))
		return (gp_load_bad_type(L, w_key(W_ROOT, "nodes"), "", "nodes",
		    "an array of {\"op\": ..., \"inputs\": ..., "
		    "\"outputs\": ...}", jnodes));
	jfns = json_object_get(root, "functions");
	if (jfns == NULL)
		return (gp_load_fail(L, W_ROOT, false, "missing \"functions\": "
		    "expected at least one, like \"functions\": {\"f\": "
		    "{\"outputs\": [\"y\"]}}"));
	if (!json_is_object(jfns))
		return (gp_load_bad_type(L, w_key(W_ROOT, "functions"), "",
		    "functions", "an object {\"name\": {\"outputs\": [...]}}",
		    jfns));
	if (json_object_size(jfns) == 0)
		return (gp_load_fail(L, w_key(W_ROOT, "functions"), false, "no "
		    "functions: expected at least one, like {\"f\": "
		    "{\"outputs\": [\"y\"]}}"));

	if (jvars != NULL && gp_load_variables(L, jvars) < 0)
		return (-1);
	if (gp_load_nodes(L) < 0)
		return (-1);
	if (gp_load_functions(L, jfns) < 0)
		return (-1);
	return (gp_graph_prepare(L->g, &(struct gp_graph_locator){
	    .where = gp_load_locate, .ctx = L}, L->err));
}

/* One load of L's text, split or not: the graph, or NULL with the error
 * set (and L->retry when it should be loaded again without splitting). */
static struct gp_graph *
load_text(struct loader *L, const struct gp_load_opts *o)
{
	struct gp_graph *g = NULL;

	if (!gp_load_parse(L)) {
		gp_load_release_doc(&L->doc);
		return (NULL);
	}
	L->g = gp_graph_new(NULL);
	gp_graph_set_source(L->g, &(struct gp_graph_source){.path = L->path,
	    .dir = L->dir, .limit_bytes = L->limit,
	    .allow_extern = o != NULL && o->allow_extern});
	L->node_names = json_object();
	L->no_params = json_object();
	if (load_root(L) == 0) {
		g = L->g;
		L->g = NULL;
	} else if (!L->retry) {
		/* a text that does not parse says so first, wherever in the
		 * text that is: the tail of a split parse is waited for */
		(void)gp_load_finish_parse(L);
	}
	gp_graph_free(L->g);
	gp_load_release_doc(&L->doc);
	json_decref(L->node_names);
	json_decref(L->no_params);
	gp_buf_free(&L->shown[0]);
	gp_buf_free(&L->shown[1]);
	gp_buf_free(&L->label);
	free(L->inputs);
	return (g);
}

struct gp_graph *
gp_graph_load_buf(const char *text, size_t len, const char *path_for_messages,
    const char *dir, const struct gp_load_opts *o, struct gp_err *err)
{
	struct loader L = {0};
	struct gp_graph *g;

	L.file = path_for_messages != NULL ? path_for_messages : "<graph>";
	L.path = path_for_messages != NULL ? path_for_messages : "";
	L.dir = dir != NULL ? dir : ".";
	L.text = text;
	L.len = len;
	L.err = err;
	L.limit = o != NULL && o->limit_bytes != 0 ? o->limit_bytes :
	    gp_graph_default_limit();
	if (gp_load_check_text(&L) < 0)
		return (NULL);
	g = load_text(&L, o);
	if (g == NULL && L.retry) {
		struct loader again = {.file = L.file, .path = L.path,
		    .dir = L.dir, .text = text, .len = len, .err = err,
		    .limit = L.limit, .no_split = true};

		g = load_text(&again, o);
	}
	return (g);
}

struct gp_graph *
gp_graph_load(const char *path, const struct gp_load_opts *o,
    struct gp_err *err)
{
	struct gp_graph *g;
	struct stat st;
	char *text = NULL, *dir;
	const char *slash;
	size_t len = 0, cap = 0;
	int fd;

	/* a FIFO or a device is refused before a read could block */
	if ((fd = gp_open_regular(path, "a graph file (JSON)", &st, err)) < 0)
		return (NULL);
	/* the whole file, plus a byte to see the end */
	gp_grow(&text, &cap, st.st_size > 0 ? (size_t)st.st_size + 1 : 65536,
	    1);
	for (;;) {
		ssize_t r;

		if (len == cap)
			gp_grow(&text, &cap, len + 65536, 1);
		r = read(fd, text + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			gp_err_set(err, "%s: cannot read: %s", path,
			    strerror(errno));
			free(text);
			close(fd);
			return (NULL);
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	slash = strrchr(path, '/');
	if (slash == NULL)
		dir = gp_xstrdup(".");
	else if (slash == path)
		dir = gp_xstrdup("/");
	else
		dir = gp_xasprintf("%.*s", (int)(slash - path), path);
	g = gp_graph_load_buf(text, len, path, dir, o, err);
	free(dir);
	free(text);
	return (g);
}
