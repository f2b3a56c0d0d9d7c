/*
 * rd.h: the capture reader, shared by load.c (the document) and split.c
 * (the first function's applies, read on two threads).  A struct gp_rd
 * walks a parsed capture keeping the JSON path of the value it looks at,
 * so that every complaint names the field and its place in the text:
 * "FILE:LINE:COL: functions[0].applies[12].calls: expected a non-negative
 * integer" (jsonpos.h finds the line and column from the path).
 *
 * The typed readers take member key of object o: a missing member, or one
 * of another type or out of range, is a fault.  Each returns 0, or -1 with
 * the message in r->err.
 */
#ifndef GPTOP_SRC_CAPTURE_RD_H
#define GPTOP_SRC_CAPTURE_RD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/jsonpos.h"
#include "base/util.h"
#include "graph/op.h"
#include "prof/profile.h"

/* Sanity bounds for what a capture may declare. */
#define GP_RD_MAX_FUNCTIONS	100000
#define GP_RD_MAX_APPLIES	50000000
#define GP_RD_MAX_IO		4096
#define GP_RD_MAX_RW		100000

/*
 * jansson's memory while a capture is read: a 100,000-apply capture parses
 * into millions of values that all die together, so malloc and free would
 * take a third of the time: instead they come from bump arenas
 * (jsonarena.h, which owns jansson's allocator hooks) of this size for
 * len bytes of text, one per parsing thread, dropped whole after a load.
 * They ask for huge pages (gp_json_arena_huge): the tree is hundreds of
 * MiB.  Nothing allocated in an arena outlives it.
 */
#define GP_RD_ARENA(len)	((size_t)64 * (len) + ((size_t)1 << 20))

/* The deepest path kept (deeper steps are counted, not named). */
#define GP_RD_DEPTH 16

struct gp_split;	/* split.h */

/* An entry of the "ops" table; the strings live in the parsed tree. */
struct gp_rd_op {
	const char	*op, *cls, *opname;
	enum gp_impl	 impl;
};

struct gp_rd {
	const char		*name;	/* the file, for messages */
	const char		*text;
	size_t			 len;
	struct gp_jsonpos_step	 path[GP_RD_DEPTH];
	int			 depth;
	struct gp_err		*err;
	struct gp_rd_op		*ops;
	int			 n_ops;
	struct gp_prof_io	*types;	/* var unused */
	int			 n_types;
	struct gp_split		*sp;	/* a split parse, or NULL */
	int			 version;	/* of the format */
	const json_t		*cur_o;	/* the object last looked in */
	void			*cur_it;	/* and its next member */
};

/* Step into member key, or element i; step out again. */
static inline void
gp_rd_key(struct gp_rd *r, const char *key)
{
	if (r->depth < GP_RD_DEPTH)
		r->path[r->depth] = (struct gp_jsonpos_step){.key = key};
	r->depth++;
}

static inline void
gp_rd_index(struct gp_rd *r, size_t i)
{
	if (r->depth < GP_RD_DEPTH)
		r->path[r->depth] = (struct gp_jsonpos_step){.index = i};
	r->depth++;
}

static inline void
gp_rd_pop(struct gp_rd *r)
{
	r->depth--;
}

/* The current path, "functions[0].applies[3].calls", appended to b. */
void	gp_rd_path(const struct gp_rd *r, struct gp_buf *b);
/* Set r->err to "FILE:LINE:COL: PATH: message", the position of the
 * current path; returns -1. */
int	gp_rd_fail(struct gp_rd *r, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

int	gp_rd_u64(struct gp_rd *r, const json_t *o, const char *key,
	    uint64_t *out);
/* An integer from lo to hi. */
int	gp_rd_int(struct gp_rd *r, const json_t *o, const char *key,
	    int64_t lo, int64_t hi, int *out);
/* A non-negative number. */
int	gp_rd_real(struct gp_rd *r, const json_t *o, const char *key,
	    double *out);
int	gp_rd_bool(struct gp_rd *r, const json_t *o, const char *key,
	    bool *out);
/* A string, copied (escaped for the terminal); an optional one missing
 * gives NULL. */
int	gp_rd_str(struct gp_rd *r, const json_t *o, const char *key,
	    bool optional, char **out);
/* An array (or an object); NULL on a fault, or when an optional one is
 * missing (no fault then). */
json_t	*gp_rd_container(struct gp_rd *r, const json_t *o, const char *key,
	    bool array, bool optional);
/* The current value (at r's path) must be an object. */
int	gp_rd_object_here(struct gp_rd *r, const json_t *v);
/* Counters in o (calls, total, min, max, histogram) into s, checked
 * against each other. */
int	gp_rd_stat(struct gp_rd *r, const json_t *o, struct gp_prof_stat *s);
/* The "ops" and "types" tables of the document top, which applies index
 * (into r->ops, r->types). */
int	gp_rd_tables(struct gp_rd *r, const json_t *top);
/* Apply number idx of a function, from o, into a. */
int	gp_rd_apply(struct gp_rd *r, const json_t *o, struct gp_prof_apply *a,
	    int idx);

#endif
