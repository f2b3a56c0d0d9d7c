/*
 * json-errors.c: the graph loader's messages (see json-loader.h): one line
 * "FILE:LINE:COL: what was wrong, and what was expected", placed by
 * jsonpos.c; JSON values and names shown in them; the checks every part
 * of the document shares (unknown keys, names, field types); and the
 * locator through which gp_graph_prepare's messages are placed.
 */
#include "config.h"

#include "load/json-loader.h"
#include "load/graph-json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/op.h"

/* Messages. */

int
gp_load_fail(struct loader *L, struct where w, bool at_key, const char *fmt,
    ...)
{
	char msg[GP_ERR_MAX];
	int line, col;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(void)gp_jsonpos_find(L->text, L->len, w.s, w.n, at_key, &line, &col);
	/* one line: gp_err_set escapes control characters */
	return (gp_err_set(L->err, "%s:%d:%d: %s", L->file, line, col, msg));
}

/* A JSON value as compact text for a message (at most ~60 bytes). */
const char *
gp_load_show(struct loader *L, const json_t *v)
{
	struct gp_buf *b = &L->shown[L->nshown++ & 1];
	char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	size_t n;

	gp_buf_clear(b);
	if (s == NULL) {
		gp_buf_puts(b, "?");
		return (gp_buf_str(b));
	}
	n = strlen(s);
	if (n > 60) {
		n = 56;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		gp_buf_printf(b, "%.*s...", (int)n, s);
	} else
		gp_buf_puts(b, s);
	free(s);
	return (gp_buf_str(b));
}

/* A string value in single quotes (JSON text for anything else, or for
 * strings that need escapes). */
const char *
gp_load_show_name(struct loader *L, const json_t *v)
{
	struct gp_buf *b;
	const char *s;

	if (!json_is_string(v))
		return (gp_load_show(L, v));
	s = json_string_value(v);
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == '\'' || *p == 0x7f)
			return (gp_load_show(L, v));
	if (strlen(s) > 60)
		return (gp_load_show(L, v));
	b = &L->shown[L->nshown++ & 1];
	gp_buf_clear(b);
	gp_buf_printf(b, "'%s'", s);
	return (gp_buf_str(b));
}

/* "node 3 (op 'add')" or "node 'double' (op 'mul')": a node of the
 * graph, or the one being read. */
const char *
gp_load_node_label(struct loader *L, size_t i)
{
	const char *name = NULL;
	const struct gp_op *op = NULL;

	if (i < L->g->n_nodes) {
		name = L->g->nodes[i].name;
		op = L->g->nodes[i].op;
	} else if (i == L->cur) {
		name = L->cur_name;
		op = L->cur_op;
	}
	gp_buf_clear(&L->label);
	if (name != NULL)
		gp_buf_printf(&L->label, "node '%s'", name);
	else
		gp_buf_printf(&L->label, "node %zu", i);
	if (op != NULL)
		gp_buf_printf(&L->label, " (op '%s')", op->name);
	return (gp_buf_str(&L->label));
}

/* Checks shared by every part. */

const char *
gp_load_list_str(struct gp_buf *b, const char *const *items)
{
	gp_buf_clear(b);
	for (size_t i = 0; items[i] != NULL; i++)
		gp_buf_printf(b, "%s%s", i ? ", " : "", items[i]);
	return (gp_buf_str(b));
}

/* Every key of obj must be in allowed.  ctx names the object in the
 * message ("" at the top level); NULL: node number node. */
int
gp_load_check_keys(struct loader *L, const json_t *obj,
    const char *const *allowed, struct where w, const char *ctx, size_t node)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)obj, key, v) {
		struct gp_buf b = {0};
		bool ok = false;

		for (size_t i = 0; allowed[i] != NULL; i++)
			if (strcmp(allowed[i], key) == 0)
				ok = true;
		if (ok)
			continue;
		if (ctx == NULL)
			ctx = gp_load_node_label(L, node);
		if (*ctx == '\0')
			gp_load_fail(L, w_key(w, key), true,
			    "unknown top-level key \"%s\" (expected %s)",
			    key, gp_load_list_str(&b, allowed));
		else
			gp_load_fail(L, w_key(w, key), true,
			    "%s: unknown key \"%s\" (expected %s)",
			    ctx, key, gp_load_list_str(&b, allowed));
		gp_buf_free(&b);
		return (-1);
	}
	return (0);
}

/* Names: non-empty, at most GP_LOAD_MAX_NAME bytes, no control
 * characters (C0, DEL, C1). */
bool
gp_load_name_ok(const char *s)
{
	size_t n;

	for (n = 0; s[n] != '\0'; n++) {
		unsigned char c = (unsigned char)s[n];

		if (c < 0x20 || c == 0x7f || (c == 0xc2 &&
		    (unsigned char)s[n + 1] >= 0x80 &&
		    (unsigned char)s[n + 1] <= 0x9f))
			return (false);
	}
	return (n > 0 && n <= GP_LOAD_MAX_NAME);
}

/* Check a name; the message says what is wrong with it. */
int
gp_load_check_name(struct loader *L, const char *s, struct where w, bool at_key,
    const char *what)
{
	size_t n = strlen(s);
	json_t *js;

	if (n == 0)
		return (gp_load_fail(L, w, at_key,
		    "%s is empty: expected a non-empty name",
		    what));
	if (n > GP_LOAD_MAX_NAME) {
		js = json_string(s);
		gp_load_fail(L, w, at_key,
		    "%s %s is %zu bytes long: expected at most %d",
		    what, gp_load_show(L, js), n, GP_LOAD_MAX_NAME);
		json_decref(js);
		return (-1);
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f || (c == 0xc2 && i + 1 < n &&
		    (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f)) {
			js = json_string(s);
			gp_load_fail(L, w, at_key, "%s %s contains a control "
			    "character: expected printable text", what,
			    gp_load_show(L, js));
			json_decref(js);
			return (-1);
		}
	}
	return (0);
}

/* A field of the wrong JSON type. */
int
gp_load_bad_type(struct loader *L, struct where w, const char *ctx,
    const char *field, const char *expected, const json_t *got)
{
	return (gp_load_fail(L, w, false, "%s%s\"%s\" must be %s, got %s (%s)",
	    ctx, *ctx ? ": " : "", field, expected, gp_load_show(L, got),
	    gp_jsonpos_kind(got)));
}

/* Preparation (graph/build.c), its messages placed in the document. */

/* "FILE:LINE:COL: node 'h' (op 'dot')", "FILE:LINE:COL: function 'f'". */
void
gp_load_locate(void *vl, const struct gp_graph *g,
    const struct gp_graph_site *site, struct gp_buf *b)
{
	struct loader *L = vl;
	struct where w;
	bool at_key = false;
	int line, col;

	if (site->kind == GP_SITE_UPDATE) {
		const struct gp_function *fn = &g->fns[site->fn];

		w = w_key(w_key(w_key(w_key(W_ROOT, "functions"), fn->name),
		    "updates"), g->vars[fn->upd[site->k].dst].name);
	} else if (site->kind == GP_SITE_INPUT)
		w = ELEM_W((size_t)site->node, "inputs", (size_t)site->k);
	else
		w = NODE_W((size_t)site->node);
	(void)gp_jsonpos_find(L->text, L->len, w.s, w.n, at_key, &line, &col);
	gp_buf_printf(b, "%s:%d:%d: ", L->file, line, col);
	if (site->kind == GP_SITE_UPDATE)
		gp_graph_site_label(g, site, b);
	else
		gp_buf_puts(b, gp_load_node_label(L, (size_t)site->node));
}
