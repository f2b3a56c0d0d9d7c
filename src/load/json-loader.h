/*
 * json-loader.h: what the graph loader's files share (graph-json.c drives
 * them; see graph-json.h for the loader itself): the loader's state, places
 * in the document, and each part's entry point.  It does not include
 * graph-json.h (which graph-json.c implements): the parts that need its
 * limits include it themselves.
 *
 *   json-text.c       the text checked and parsed (split on two threads)
 *   json-vars.c       "variables": types, limits, initial values
 *   json-nodes.c      "nodes": fields, ops, params, outputs, inputs
 *   json-functions.c  "functions": outputs and updates
 *   json-errors.c     messages placed by jsonpos.c, shared checks, and the
 *                     locator for gp_graph_prepare's messages
 *
 * Every error is one line, "FILE:LINE:COL: what was wrong, and what was
 * expected"; the first stops the load.
 */
#ifndef GPTOP_SRC_LOAD_JSON_LOADER_H
#define GPTOP_SRC_LOAD_JSON_LOADER_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph/build.h"
#include "base/jsonarena.h"
#include "base/jsonpos.h"

#define FORMAT		"gptop-graph/1"
#define MAX_STEPS	16

/* A place in the document: the steps from the top-level object. */
struct where {
	struct gp_jsonpos_step	s[MAX_STEPS];
	int			n;
};

/* One parse: the whole text, or a piece of it (see parse_split). */
struct part {
	const char		*buf;
	size_t			 len;
	bool			 owned;	/* buf is ours to free */
	json_t			*root;
	json_error_t		 je;
	struct gp_json_arena	 arena;
};

/* The parsed document and where its nodes are. */
struct doc {
	struct part		 part[3];	/* whole; or rest, head, tail */
	json_t			**nodes;	/* the node objects, in order */
	size_t			 n_nodes;
	/* a split parse: the tail is still being parsed by thread th while
	 * the first n_head nodes are read (gp_load_finish_parse waits) */
	size_t			 n_head;
	pthread_t		 th;
	bool			 pending;
	struct gp_jsonpos_elem	*elems;	/* their text (from jsonpos) */
	size_t			 n_elems, cap_elems;
	bool			 have_elems;	/* "nodes" is an array */
};

struct loader {
	const char		*file;	/* for messages */
	const char		*path;	/* the graph's path ("" for none) */
	const char		*dir;	/* for relative .npy paths */
	const char		*text;
	size_t			 len;
	struct gp_err		*err;
	uint64_t		 limit;
	uint64_t		 total;	/* the variables' values so far */
	json_t			*root;
	struct doc		 doc;
	struct gp_graph		*g;
	struct gp_buf		 shown[2];
	unsigned		 nshown;
	struct gp_buf		 label;
	/* the node being read (not yet in the graph), for its label */
	size_t			 cur;
	const char		*cur_name;
	const struct gp_op	*cur_op;
	json_t			**inputs;	/* per node: "inputs" */
	json_t			*node_names;	/* a set */
	json_t			*no_params;	/* {}, shared by the nodes
						 * without params */
	const struct gp_op	*seen_ops[4];	/* the ops found last */
	unsigned		 n_seen;
	bool no_split; /* parse the text in one piece */
	bool			 retry;		/* ...and load it again */
};

/* Places. */

static inline struct where
w_key(struct where w, const char *key)
{
	if (w.n < MAX_STEPS)
		w.s[w.n++] = (struct gp_jsonpos_step){.key = key};
	return (w);
}

static inline struct where
w_idx(struct where w, size_t i)
{
	if (w.n < MAX_STEPS)
		w.s[w.n++] = (struct gp_jsonpos_step){.key = NULL, .index = i};
	return (w);
}

/* The top-level object. */
#define W_ROOT		((struct where){.n = 0})
/* Places in a node, built only for messages. */
#define NODE_W(i)	w_idx(w_key(W_ROOT, "nodes"), (i))
#define FIELD_W(i, f)	w_key(NODE_W(i), (f))
#define ELEM_W(i, f, k)	w_idx(FIELD_W(i, f), (k))

/* Messages and shared checks (json-errors.c). */

/* Set L->err to "FILE:LINE:COL: " and the message, placed at w (at its
 * key when at_key); returns -1. */
int	gp_load_fail(struct loader *L, struct where w, bool at_key,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A JSON value as compact text for a message (at most ~60 bytes); valid
 * until the second next call. */
const char *gp_load_show(struct loader *L, const json_t *v);
/* A string value in single quotes (JSON text for anything else, or for
 * strings that need escapes). */
const char *gp_load_show_name(struct loader *L, const json_t *v);
/* "node 3 (op 'add')" or "node 'double' (op 'mul')": a node of the
 * graph, or the one being read. */
const char *gp_load_node_label(struct loader *L, size_t i);
/* items, NULL-terminated, as "a, b, c" in b. */
const char *gp_load_list_str(struct gp_buf *b, const char *const *items);
/* Every key of obj must be in allowed.  ctx names the object in the
 * message ("" at the top level); NULL: node number node. */
int	gp_load_check_keys(struct loader *L, const json_t *obj,
	    const char *const *allowed, struct where w, const char *ctx,
	    size_t node);
/* Names: non-empty, at most GP_LOAD_MAX_NAME bytes, no control
 * characters (C0, DEL, C1). */
bool	gp_load_name_ok(const char *s);
/* Check a name; the message says what is wrong with it. */
int	gp_load_check_name(struct loader *L, const char *s, struct where w,
	    bool at_key, const char *what);
/* A field of the wrong JSON type. */
int	gp_load_bad_type(struct loader *L, struct where w, const char *ctx,
	    const char *field, const char *expected, const json_t *got);
/* gp_graph_prepare's locator (ctx: the loader): "FILE:LINE:COL: node 'h'
 * (op 'dot')", "FILE:LINE:COL: function 'f'". */
void	gp_load_locate(void *ctx, const struct gp_graph *g,
	    const struct gp_graph_site *site, struct gp_buf *b);

/* The text (json-text.c). */

/* The text is not empty, is UTF-8 and starts like JSON; -1 with the
 * error set if not. */
int	gp_load_check_text(struct loader *L);
/* Parse the text into L->root and L->doc; false with the error set. */
bool	gp_load_parse(struct loader *L);
/* Wait for the tail of a split parse; false with the error set (and
 * L->retry when the text should be loaded again without splitting). */
bool	gp_load_finish_parse(struct loader *L);
void	gp_load_release_doc(struct doc *d);

/* The parts of the document. */

/* A JSON scalar (number or boolean) as a literal, false if it is none
 * (json-vars.c). */
bool	gp_load_json_literal(const json_t *v, struct gp_literal *lit);

/* "variables" (an object): each added with its value and place. */
int	gp_load_variables(struct loader *L, const json_t *jvars);
/* The op called name: the registry's, else a test op. */
const struct gp_op *gp_load_find_op(const char *name);
/* The nodes of L->doc: declared, then their inputs resolved. */
int	gp_load_nodes(struct loader *L);
/* "functions" (a non-empty object): each added. */
int	gp_load_functions(struct loader *L, const json_t *jfns);

#endif
