/*
 * json-functions.c: the graph file's "functions": each function's outputs
 * and updates resolved by name and checked (graph/build.h), in the order
 * the file gives them.
 */
#include "config.h"

#include "load/json-loader.h"
#include "load/graph-json.h"

#include <stdio.h>
#include <stdlib.h>

/* Functions. */

static const char *const fn_keys[] = {"outputs", "updates", "doc", NULL};

/* One function; out and upd are the caller's, to free. */
static int
load_function(struct loader *L, const char *fname, const json_t *jf,
    int *out, struct gp_update *upd)
{
	struct gp_graph *g = L->g;
	struct where w = w_key(w_key(W_ROOT, "functions"), fname);
	json_t *jo, *ju, *e;
	const char *tname;
	char ctx[GP_LOAD_MAX_NAME + 16];
	struct gp_err err;
	int n_out = 0, n_upd = 0;
	size_t k;

	snprintf(ctx, sizeof(ctx), "function '%s'", fname);
	if (!json_is_object(jf))
		return (gp_load_fail(L, w, false, "%s: expected an object like "
		    "{\"outputs\": [\"y\"], \"updates\": {\"w\": "
		    "\"w_new\"}}, got %s", ctx, gp_load_show(L, jf)));
	if (gp_load_check_keys(L, jf, fn_keys, w, ctx, 0) < 0)
		return (-1);
	if ((e = json_object_get(jf, "doc")) != NULL && !json_is_string(e))
		return (gp_load_bad_type(L, w_key(w, "doc"), ctx, "doc",
		    "a string", e));
	jo = json_object_get(jf, "outputs");
	if (jo != NULL && !json_is_array(jo))
		return (gp_load_bad_type(L, w_key(w, "outputs"), ctx, "outputs",
		    "an array of variable names", jo));
	json_array_foreach(jo, k, e) {
		struct where wo = w_idx(w_key(w, "outputs"), k);
		int v;

		if (!json_is_string(e))
			return (gp_load_fail(L, wo, false,
			    "%s: output %zu is %s: expected a variable name",
			    ctx, k, gp_load_show(L, e)));
		if ((v = gp_graph_find_var(g, json_string_value(e))) < 0)
			return (gp_load_fail(L, wo, false,
			    "%s: output '%s' is not "
			    "defined: expected the name of a variable or of a "
			    "node's output",
			    ctx, json_string_value(e)));
		out[n_out++] = v;
	}
	ju = json_object_get(jf, "updates");
	if (ju != NULL && !json_is_object(ju))
		return (gp_load_bad_type(L, w_key(w, "updates"), ctx, "updates",
		    "an object {\"shared variable\": \"new value\"}", ju));
	json_object_foreach(ju, tname, e) {
		struct where wu = w_key(w_key(w, "updates"), tname);
		int dst, src;

		if ((dst = gp_graph_find_var(g, tname)) < 0)
			return (gp_load_fail(L, wu, true,
			    "%s: update target '%s' is "
			    "not defined: expected a shared variable",
			    ctx, tname));
		if (gp_graph_check_update(g, dst, -1, &err) < 0)
			return (gp_load_fail(L, wu, true, "%s: %s", ctx,
			    err.msg));
		if (!json_is_string(e))
			return (gp_load_fail(L, wu, false,
			    "%s: the update of '%s' is "
			    "%s: expected the name of its new value",
			    ctx, tname, gp_load_show(L, e)));
		if ((src = gp_graph_find_var(g, json_string_value(e))) < 0)
			return (gp_load_fail(L, wu, false,
			    "%s: update source '%s' is not defined: expected "
			    "the name of a variable or of a node's output",
			    ctx, json_string_value(e)));
		if (gp_graph_check_update(g, dst, src, &err) < 0)
			return (gp_load_fail(L, wu, false, "%s: %s", ctx,
			    err.msg));
		upd[n_upd++] = (struct gp_update){dst, src};
	}
	if (gp_graph_add_function(g, fname, n_out, out, n_upd, upd, &err) < 0)
		return (gp_load_fail(L, w, true, "%s: %s", ctx, err.msg));
	return (0);
}

int
gp_load_functions(struct loader *L, const json_t *jfns)
{
	const char *fname;
	json_t *jf;

	json_object_foreach((json_t *)jfns, fname, jf) {
		json_t *jo = json_object_get(jf, "outputs");
		json_t *ju = json_object_get(jf, "updates");
		int *out;
		struct gp_update *upd;
		int rc;

		if (gp_load_check_name(L, fname,
			w_key(w_key(W_ROOT, "functions"), fname), true,
			"function name") < 0)
			return (-1);
		out = gp_xmalloc(sizeof(int) * (json_array_size(jo) + 1));
		upd = gp_xmalloc(sizeof(*upd) * (json_object_size(ju) + 1));
		rc = load_function(L, fname, jf, out, upd);
		free(out);
		free(upd);
		if (rc < 0)
			return (-1);
	}
	return (0);
}
