/*
 * load.c: reading a capture (see capture.h and doc/capture-format.md),
 * and telling a capture from a graph by its content.
 *
 * Reading parses the text with jansson (a large capture in pieces, on two
 * threads: see split.h), then walks the tree with a reader that keeps the
 * JSON path of the value it is looking at, so every complaint can name
 * the field (rd.h), and jsonpos.c turns that path into a line and column.
 * jansson runs on arenas (jsonarena.h): a 100,000-apply capture is read
 * in about 0.45 s.
 *
 * Each function's memory profile (struct gp_memprof) is its "memory"
 * member, read by memjson.c (gp_memprof_from_json(), at the spot marked
 * MEMPROF-JSON) against the function's applies, which give the outputs it
 * refers to.
 */
#include "config.h"

#include "capture/capture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/jsonarena.h"
#include "base/jsonpos.h"
#include "capture/calljson.h"
#include "capture/memjson.h"
#include "capture/ort.h"
#include "capture/rd.h"
#include "capture/split.h"

/*
 * The optional "memory" member of function fn (of n_fn), for f whose
 * applies are read.  memjson.c checks it and says "PATH: what" with the
 * path below this member's; its steps are pushed here so that the message
 * gets the line and column of the bad value like every other.
 */
static int
rd_memory(struct gp_rd *r, const json_t *v, struct gp_prof_fn *f, int fn,
    int n_fn)
{
	struct gp_buf pre = {0};
	struct gp_err e;
	char keys[GP_RD_DEPTH][32];
	const char *s;
	int depth = r->depth, nk = 0, rc = 0;

	gp_rd_key(r, "memory");
	gp_rd_path(r, &pre);
	f->mem = gp_memprof_from_json(v, f, fn, n_fn, gp_buf_str(&pre), &e);
	if (f->mem == NULL) {
		s = strncmp(e.msg, gp_buf_str(&pre), pre.len) == 0 ?
		    e.msg + pre.len : "";
		while ((*s == '.' || *s == '[') && nk < GP_RD_DEPTH) {
			size_t n;

			if (*s == '[') {
				char *end;
				unsigned long long i = strtoull(s + 1, &end,
				    10);

				if (end == s + 1 || *end != ']')
					break;
				gp_rd_index(r, (size_t)i);
				s = end + 1;
				continue;
			}
			n = strspn(s + 1, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			if (n == 0 || n >= sizeof(keys[0]))
				break;
			memcpy(keys[nk], s + 1, n);
			keys[nk][n] = '\0';
			gp_rd_key(r, keys[nk++]);
			s += 1 + n;
		}
		if (s[0] == ':' && s[1] == ' ')
			rc = gp_rd_fail(r, "%s", s + 2);
		else {
			/* not the form expected: the message as it is */
			r->depth = depth + 1;
			rc = gp_rd_fail(r, "%s", e.msg);
		}
	}
	r->depth = depth;
	gp_buf_free(&pre);
	return (rc);
}
static int
rd_function(struct gp_rd *r, const json_t *o, struct gp_prof_fn *f, int fn,
    int n_fn)
{
	json_t *v, *e;
	int every;
	uint64_t rec[GP_PROF_RECENT];
	size_t i;
	int n;

	if (gp_rd_object_here(r, o) < 0 || gp_rd_str(r, o, "name", false,
	    &f->name) < 0)
		return (-1);
	if ((v = gp_rd_container(r, o, "call", false, false)) == NULL)
		return (-1);
	gp_rd_key(r, "call");
	if (gp_rd_stat(r, v, &f->call) < 0)
		return (-1);
	gp_rd_pop(r);
	if (gp_rd_u64(r, o, "vm_ns", &f->vm_ns) < 0 ||
	    gp_rd_u64(r, o, "thunk_ns", &f->thunk_ns) < 0 ||
	    gp_rd_u64(r, o, "first_call_ns", &f->first_call_ns) < 0 ||
	    gp_rd_u64(r, o, "calls_seen", &f->calls_seen) < 0 ||
	    gp_rd_u64(r, o, "mem_peak_measured", &f->mem_peak_measured) < 0)
		return (-1);
	/* derived from "memory" (doc/capture-format.md): checked, then
	 * recomputed */
	if (json_object_get(o, "mem_peak_predicted") != NULL) {
		uint64_t pred;

		if (gp_rd_u64(r, o, "mem_peak_predicted", &pred) < 0)
			return (-1);
	}
	/* sampling came later: a capture without it timed every call */
	f->timed = f->call.n;
	f->every = 1;
	if ((json_object_get(o, "timed_calls") != NULL &&
	    gp_rd_u64(r, o, "timed_calls", &f->timed) < 0) ||
	    (json_object_get(o, "sample_every") != NULL &&
	    gp_rd_int(r, o, "sample_every", 1, 1 << 20, &every) < 0))
		return (-1);
	if (json_object_get(o, "sample_every") != NULL)
		f->every = (uint32_t)every;
	if (f->timed > f->call.n) {
		gp_rd_key(r, "timed_calls");
		return (gp_rd_fail(r, "%llu calls timed, more than the %llu "
		    "counted", (unsigned long long)f->timed,
		    (unsigned long long)f->call.n));
	}
	if (f->calls_seen < f->call.n) {
		gp_rd_key(r, "calls_seen");
		return (gp_rd_fail(r, "%llu calls seen, fewer than the %llu "
		    "counted", (unsigned long long)f->calls_seen,
		    (unsigned long long)f->call.n));
	}
	if ((v = gp_rd_container(r, o, "recent", true, false)) == NULL)
		return (-1);
	gp_rd_key(r, "recent");
	if (json_array_size(v) > GP_PROF_RECENT ||
	    json_array_size(v) > f->call.n)
		return (gp_rd_fail(r, "%zu entries (at most the number of "
		    "calls, %llu, and at most %d)", json_array_size(v),
		    (unsigned long long)f->call.n, GP_PROF_RECENT));
	json_array_foreach(v, i, e) {
		if (!json_is_integer(e) || json_integer_value(e) < 0) {
			gp_rd_index(r, i);
			return (gp_rd_fail(r, "expected a non-negative "
			    "integer, got %s", gp_jsonpos_kind(e)));
		}
		rec[i] = (uint64_t)json_integer_value(e);
	}
	gp_prof_recent_set(f, rec, (int)json_array_size(v));
	gp_rd_pop(r);
	if (gp_rd_int(r, o, "n_applies", 0, GP_RD_MAX_APPLIES, &n) < 0)
		return (-1);
	if ((v = gp_rd_container(r, o, "applies", true, false)) == NULL)
		return (-1);
	gp_rd_key(r, "applies");
	if (r->sp != NULL && fn == 0) {
		if (gp_split_applies(r, v, f, n) < 0)
			return (-1);
		gp_rd_pop(r);
		goto memory;
	}
	if (json_array_size(v) != (size_t)n)
		return (gp_rd_fail(r, "%zu applies, but n_applies says %d",
		    json_array_size(v), n));
	/* n_apply only with the array, so a failed load frees cleanly */
	f->ap = gp_xcalloc((size_t)n + 1, sizeof(*f->ap));
	f->n_apply = n;
	json_array_foreach(v, i, e) {
		gp_rd_index(r, i);
		if (gp_rd_apply(r, e, &f->ap[i], (int)i) < 0)
			return (-1);
		gp_rd_pop(r);
	}
	gp_rd_pop(r);
memory:
	/* MEMPROF-JSON: the memory profile, which refers to the applies */
	v = json_object_get(o, "memory");
	if (v != NULL && !json_is_null(v) && rd_memory(r, v, f, fn, n_fn) < 0)
		return (-1);
	/* the calls drawn along time, which refer to the applies too */
	return (gp_calljson_read(r, o, f));
}

static const char *
clock_source(const char *s)
{
	/* the profile keeps a static string */
	if (s != NULL && strcmp(s, "tsc") == 0)
		return ("tsc");
	if (s != NULL && strcmp(s, "clock_gettime") == 0)
		return ("clock_gettime");
	return ("unknown");
}

static int
rd_info(struct gp_rd *r, const json_t *top, struct gp_capture_info *ci)
{
	json_t *m, *a, *e;
	size_t i;

	if (gp_rd_str(r, top, "created", true, &ci->created) < 0 ||
	    gp_rd_str(r, top, "gptop", true, &ci->gptop) < 0)
		return (-1);
	m = json_object_get(top, "machine");
	if (m != NULL) {
		gp_rd_key(r, "machine");
		if (gp_rd_object_here(r, m) < 0 ||
		    gp_rd_str(r, m, "cpu", true, &ci->cpu) < 0 ||
		    gp_rd_str(r, m, "os", true, &ci->os) < 0 ||
		    gp_rd_str(r, m, "compiler", true, &ci->cc) < 0 ||
		    gp_rd_str(r, m, "compiler_version", true,
		    &ci->cc_version) < 0 ||
		    gp_rd_str(r, m, "blas", true, &ci->blas) < 0 ||
		    gp_rd_str(r, m, "idle", true, &ci->idle) < 0)
			return (-1);
		if (json_object_get(m, "cores") != NULL &&
		    gp_rd_int(r, m, "cores", 0, INT32_MAX, &ci->cores) < 0)
			return (-1);
		if (json_object_get(m, "threads") != NULL &&
		    gp_rd_int(r, m, "threads", 1, 4096, &ci->threads) < 0)
			return (-1);
		gp_rd_pop(r);
	}
	a = gp_rd_container(r, top, "merged_from", true, true);
	if (a == NULL)
		return (json_object_get(top, "merged_from") != NULL ? -1 : 0);
	ci->src = gp_xcalloc(json_array_size(a) + 1, sizeof(*ci->src));
	gp_rd_key(r, "merged_from");
	json_array_foreach(a, i, e) {
		gp_rd_index(r, i);
		ci->n_src++;
		if (gp_rd_object_here(r, e) < 0 ||
		    gp_rd_str(r, e, "path", false, &ci->src[i].path) < 0 ||
		    gp_rd_str(r, e, "created", true, &ci->src[i].created) < 0)
			return (-1);
		gp_rd_pop(r);
	}
	gp_rd_pop(r);
	return (0);
}

static int
rd_format(struct gp_rd *r, const json_t *top, int *version)
{
	json_t *v = json_object_get(top, "format");
	const char *s, *v0;
	char *end = NULL;
	long n;

	if (v == NULL)
		return (gp_rd_fail(r, "not a gptop capture: no \"format\" "
		    "member (expected \"%s\")", GP_CAPTURE_FORMAT));
	gp_rd_key(r, "format");
	if (!json_is_string(v))
		return (gp_rd_fail(r, "expected the string \"%s\", got %s",
		    GP_CAPTURE_FORMAT, gp_jsonpos_kind(v)));
	s = json_string_value(v);
	if (strncmp(s, GP_CAPTURE_PREFIX, strlen(GP_CAPTURE_PREFIX) - 1) != 0)
		return (gp_rd_fail(r, "\"%s\" is not a gptop capture (expected "
		    "\"%s\")", s, GP_CAPTURE_FORMAT));
	v0 = s + strlen(GP_CAPTURE_PREFIX);
	errno = 0;
	n = s[strlen(GP_CAPTURE_PREFIX) - 1] == '/' ? strtol(v0, &end, 10) :
	    0;
	if (n < 1 || *v0 < '0' || *v0 > '9' || *end != '\0' || errno != 0)
		return (gp_rd_fail(r, "unknown capture format \"%s\" (expected "
		    "\"%s\")", s, GP_CAPTURE_FORMAT));
	if (n > GP_CAPTURE_VERSION)
		return (gp_rd_fail(r, "written by a newer gptop (format "
		    "\"%s%ld\"; this gptop %s reads \"%s\")", GP_CAPTURE_PREFIX,
		    n, PACKAGE_VERSION, GP_CAPTURE_FORMAT));
	gp_rd_pop(r);
	*version = (int)n;
	return (0);
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return ((x > y) - (x < y));
}

/* One name of "sources": a string, or (gptop-capture/5) [n, "rest"], the
 * first n bytes of the previous name then rest, n where a character of
 * it starts; *prev (that name, as the file has it) becomes this one. */
static int
rd_source_name(struct gp_rd *r, const json_t *e, char **prev, char **out)
{
	const char *rest;
	json_int_t n;
	size_t lp = *prev != NULL ? strlen(*prev) : 0, lr;
	char *t;

	if (json_is_string(e)) {
		t = gp_xstrdup(json_string_value(e));
	} else if (json_is_array(e) && json_array_size(e) == 2 &&
	    json_is_integer(json_array_get(e, 0)) &&
	    json_is_string(json_array_get(e, 1))) {
		n = json_integer_value(json_array_get(e, 0));
		if (n < 0 || (size_t)n > lp || (n < (json_int_t)lp &&
		    ((unsigned char)(*prev)[n] & 0xC0) == 0x80))
			return (gp_rd_fail(r, "the previous name's first %lld "
			    "bytes: expected 0 to %zu, at a character's start",
			    (long long)n, lp));
		rest = json_string_value(json_array_get(e, 1));
		lr = strlen(rest);
		t = gp_xmalloc((size_t)n + lr + 1);
		if (n > 0)	/* *prev may be NULL when n is 0 */
			memcpy(t, *prev, (size_t)n);
		memcpy(t + n, rest, lr + 1);
	} else
		return (gp_rd_fail(r, "expected a source node's name (a "
		    "string, [bytes of the previous name, \"the rest\"], or "
		    "null), got %s", gp_jsonpos_kind(e)));
	*out = gp_text_dup(t);
	free(*prev);
	*prev = t;
	return (0);
}

/* Provenance (gptop-capture/3, optional): the source nodes' names by
 * index ("sources": a string or null each, or from version 5 a name
 * front-coded on the previous one) and the folded ones ("folded":
 * indices into it). */
static int
rd_sources(struct gp_rd *r, const json_t *top, struct gp_profile *p)
{
	json_t *v = json_object_get(top, "sources"), *e;
	const json_t *v_src = v;
	char *prev = NULL;
	size_t i;

	if (v != NULL) {
		gp_rd_key(r, "sources");
		if (!json_is_array(v))
			return (gp_rd_fail(r, "expected an array of source "
			    "node names, got %s", gp_jsonpos_kind(v)));
		if (json_array_size(v) > INT32_MAX / 2)
			return (gp_rd_fail(r, "too many source nodes"));
		p->n_src_names = (int)json_array_size(v);
		p->src_names = gp_xcalloc((size_t)p->n_src_names + 1,
		    sizeof(char *));
		json_array_foreach(v, i, e) {
			if (json_is_null(e))
				continue;
			gp_rd_index(r, i);
			if (rd_source_name(r, e, &prev, &p->src_names[i]) < 0) {
				free(prev);
				return (-1);
			}
			gp_rd_pop(r);
		}
		free(prev);
		gp_rd_pop(r);
	}
	v = json_object_get(top, "folded");
	if (v == NULL)
		return (0);
	gp_rd_key(r, "folded");
	if (!json_is_array(v))
		return (gp_rd_fail(r, "expected an array of source node "
		    "indices, got %s", gp_jsonpos_kind(v)));
	p->folded = gp_xmalloc(sizeof(int) * (json_array_size(v) + 1));
	json_array_foreach(v, i, e) {
		json_int_t x = json_is_integer(e) ? json_integer_value(e) : -1;

		if (x < 0 || x >= INT32_MAX || (v_src != NULL &&
		    x >= p->n_src_names)) {
			gp_rd_index(r, i);
			if (v_src == NULL)
				return (gp_rd_fail(r, "expected a source node "
				    "index (a non-negative integer)"));
			return (gp_rd_fail(r, "expected an index into "
			    "\"sources\" (0 to %d)", p->n_src_names - 1));
		}
		p->folded[p->n_folded++] = (int)x;
	}
	qsort(p->folded, (size_t)p->n_folded, sizeof(int), cmp_int);
	gp_rd_pop(r);
	return (0);
}

static int
rd_profile(struct gp_rd *r, const json_t *top, struct gp_profile *p)
{
	json_t *o, *v, *e;
	char *s = NULL, *end;
	size_t i;

	if ((o = gp_rd_container(r, top, "graph", false, false)) == NULL)
		return (-1);
	gp_rd_key(r, "graph");
	if (gp_rd_str(r, o, "name", false, &p->graph) < 0 ||
	    gp_rd_str(r, o, "path", false, &p->path) < 0 ||
	    gp_rd_str(r, o, "hash", false, &s) < 0)
		return (-1);
	errno = 0;
	p->graph_hash = strtoull(s, &end, 16);
	if (strlen(s) != 16 || *end != '\0' || errno != 0) {
		free(s);
		gp_rd_key(r, "hash");
		return (gp_rd_fail(r, "expected 16 hexadecimal digits"));
	}
	free(s);
	if (gp_rd_int(r, o, "nodes", -1, INT32_MAX, &p->n_nodes) < 0)
		return (-1);
	gp_rd_pop(r);
	if (rd_sources(r, top, p) < 0)
		return (-1);
	if (gp_rd_str(r, top, "flags", false, &p->flags) < 0 ||
	    gp_rd_str(r, top, "rewrites", false, &p->rewrites) < 0 ||
	    gp_rd_bool(r, top, "ignore_first_call", &p->ignore_first) < 0)
		return (-1);
	if ((o = gp_rd_container(r, top, "clock", false, false)) == NULL)
		return (-1);
	gp_rd_key(r, "clock");
	if (gp_rd_str(r, o, "source", false, &s) < 0)
		return (-1);
	p->clock.source = clock_source(s);
	free(s);
	if (gp_rd_real(r, o, "tsc_ghz", &p->clock.tsc_ghz) < 0 ||
	    gp_rd_real(r, o, "resolution_ns", &p->clock.resolution_ns) < 0 ||
	    gp_rd_real(r, o, "probe_ns", &p->clock.probe_ns) < 0)
		return (-1);
	gp_rd_pop(r);
	if ((o = gp_rd_container(r, top, "compile", false, false)) == NULL)
		return (-1);
	gp_rd_key(r, "compile");
	if (gp_rd_real(r, o, "load_ns", &p->load_ns) < 0 ||
	    gp_rd_real(r, o, "rewrite_ns", &p->rewrite_ns) < 0 ||
	    gp_rd_real(r, o, "link_ns", &p->link_ns) < 0)
		return (-1);
	gp_rd_pop(r);

	if ((o = gp_rd_container(r, top, "phases", true, false)) == NULL)
		return (-1);
	gp_rd_key(r, "phases");
	if (json_array_size(o) > GP_RD_MAX_RW)
		return (gp_rd_fail(r, "too many phases"));
	p->phase = gp_xcalloc(json_array_size(o) + 1, sizeof(*p->phase));
	json_array_foreach(o, i, e) {
		struct gp_rewrite_phase_stat *ph = &p->phase[i];

		gp_rd_index(r, i);
		p->n_phase++;
		if (gp_rd_object_here(r, e) < 0 ||
		    gp_rd_str(r, e, "name", false, &ph->name) < 0 ||
		    gp_rd_real(r, e, "time_ns", &ph->time_ns) < 0 ||
		    gp_rd_int(r, e, "passes", 0, INT32_MAX, &ph->passes) < 0 ||
		    gp_rd_int(r, e, "nodes_before", -1, INT32_MAX,
		    &ph->nodes_before) < 0 ||
		    gp_rd_int(r, e, "nodes_after", -1, INT32_MAX,
		    &ph->nodes_after) < 0)
			return (-1);
		gp_rd_pop(r);
	}
	gp_rd_pop(r);

	if ((o = gp_rd_container(r, top, "rewriters", true, false)) == NULL)
		return (-1);
	gp_rd_key(r, "rewriters");
	if (json_array_size(o) > GP_RD_MAX_RW)
		return (gp_rd_fail(r, "too many rewriters"));
	p->rw = gp_xcalloc(json_array_size(o) + 1, sizeof(*p->rw));
	json_array_foreach(o, i, e) {
		struct gp_rewrite_stat *rw = &p->rw[i];

		gp_rd_index(r, i);
		p->n_rw++;
		if (gp_rd_object_here(r, e) < 0 ||
		    gp_rd_str(r, e, "name", false, &rw->name) < 0 ||
		    gp_rd_str(r, e, "tags", false, &rw->tags) < 0 ||
		    gp_rd_str(r, e, "phase", false, &rw->phase) < 0 ||
		    gp_rd_bool(r, e, "enabled", &rw->enabled) < 0 ||
		    gp_rd_real(r, e, "time_ns", &rw->time_ns) < 0 ||
		    gp_rd_int(r, e, "applied", 0, INT32_MAX,
		    &rw->applied) < 0 ||
		    gp_rd_int(r, e, "tried", 0, INT32_MAX, &rw->tried) < 0 ||
		    gp_rd_int(r, e, "nodes_before", -1, INT32_MAX,
		    &rw->nodes_before) < 0 ||
		    gp_rd_int(r, e, "nodes_after", -1, INT32_MAX,
		    &rw->nodes_after) < 0)
			return (-1);
		gp_rd_pop(r);
	}
	gp_rd_pop(r);

	if (gp_rd_tables(r, top) < 0)
		return (-1);
	if ((v = gp_rd_container(r, top, "functions", true, false)) == NULL)
		return (-1);
	gp_rd_key(r, "functions");
	if (json_array_size(v) > GP_RD_MAX_FUNCTIONS)
		return (gp_rd_fail(r, "too many functions"));
	p->fn = gp_xcalloc(json_array_size(v) + 1, sizeof(*p->fn));
	json_array_foreach(v, i, e) {
		gp_rd_index(r, i);
		p->n_fn++;
		if (rd_function(r, e, &p->fn[i], (int)i,
		    (int)json_array_size(v)) < 0)
			return (-1);
		gp_rd_pop(r);
	}
	gp_rd_pop(r);
	return (0);
}

/* Does text end inside a UTF-8 sequence (a lead byte without all the
 * continuation bytes it announces)? */
static bool
utf8_cut(const char *text, size_t len)
{
	for (size_t back = 1; back <= 4 && back <= len; back++) {
		unsigned char c = (unsigned char)text[len - back];
		size_t need;

		if ((c & 0xc0) == 0x80)
			continue;	/* a continuation byte */
		need = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
		    (c & 0xf8) == 0xf0 ? 4 : 1;
		return (need > back);
	}
	return (false);
}

/* The capture in the tree top (an object): a profile, and *ci when not
 * NULL; NULL with the fault in r->err. */
static struct gp_profile *
rd_capture(struct gp_rd *r, const json_t *top, struct gp_capture_info *ci)
{
	struct gp_capture_info local = {0};
	struct gp_profile *p;

	if (rd_format(r, top, &local.version) < 0)
		return (NULL);
	r->version = local.version;
	p = gp_xcalloc(1, sizeof(*p));
	if (rd_info(r, top, &local) < 0 || rd_profile(r, top, p) < 0) {
		gp_capture_info_done(&local);
		gp_profile_free(p);
		return (NULL);
	}
	if (ci != NULL)
		*ci = local;
	else
		gp_capture_info_done(&local);
	return (p);
}

/* A large capture read in pieces (split.h), or NULL when it is
 * not laid out for that or any piece does not parse or read: the caller
 * reads it whole then, for the message. */
static struct gp_profile *
load_split(const char *text, size_t len, const char *name,
    struct gp_capture_info *ci)
{
	struct gp_err scratch;
	/* no positions for faults nobody is told of */
	struct gp_rd r = {.name = name, .len = len, .err = &scratch};
	struct gp_profile *p = NULL;
	struct gp_split *sp;

	if ((sp = gp_split_begin(text, len)) == NULL)
		return (NULL);
	r.sp = sp;
	if (json_is_object(gp_split_rest(sp)))
		p = rd_capture(&r, gp_split_rest(sp), ci);
	gp_split_end(sp);
	free(r.ops);
	free(r.types);
	return (p);
}

struct gp_profile *
gp_capture_load_buf(const char *text, size_t len, const char *name,
    struct gp_capture_info *ci, struct gp_err *err)
{
	struct gp_rd r = {.name = name, .text = text, .len = len, .err = err};
	struct gp_profile *p = NULL;
	struct gp_json_arena arena;
	json_error_t je;
	json_t *top;

	if (len == 0) {
		gp_err_set(err, "%s: empty file (not a gptop capture)", name);
		return (NULL);
	}
	/* a JSON array: ONNX Runtime's profile, as a capture (ort.h) */
	if (gp_ort_looks(text, len))
		return (gp_ort_load_buf(text, len, name, ci, err));
	if ((p = load_split(text, len, name, ci)) != NULL)
		return (p);
	/* the tree is never freed value by value: the arena goes whole */
	(void)gp_json_arena_begin(&arena, GP_RD_ARENA(len));
	gp_json_arena_huge(&arena);
	top = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	gp_json_arena_leave(&arena);
	if (top == NULL) {
		size_t at = (size_t)je.position;

		/* jansson points past the end of a cut-off document */
		while (at < len && (text[at] == ' ' || text[at] == '\n' ||
		    text[at] == '\t' || text[at] == '\r'))
			at++;
		/* or at a UTF-8 character the cut split */
		if (at < len && at + 4 >= len && utf8_cut(text, len))
			at = len;
		/* jansson quotes the text near the fault as it is
		 * (gp_err_set escapes what a terminal would act on); the
		 * position at least 1:1 (it says column 0 after a
		 * newline) */
		gp_err_set(err, "%s:%d:%d: %s%s", name,
		    je.line > 0 ? je.line : 1, je.column > 0 ? je.column : 1,
		    je.text, at >= len ? " (the file ends early: a truncated "
		    "capture?)" : "");
		goto out;
	}
	if (!json_is_object(top)) {
		gp_err_set(err, "%s:1:1: expected a JSON object (a gptop "
		    "capture), got %s", name, gp_jsonpos_kind(top));
		goto out;
	}
	p = rd_capture(&r, top, ci);
out:
	free(r.ops);
	free(r.types);
	gp_json_arena_end(&arena, top);
	return (p);
}

static char *
read_file(const char *path, const char *what, size_t *len,
    struct gp_err *err)
{
	FILE *fp;
	struct stat st;
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int fd;

	/* a FIFO or a device is refused before a read could block */
	if ((fd = gp_open_regular(path, what, &st, err)) < 0)
		return (NULL);
	if ((fp = fdopen(fd, "rb")) == NULL) {
		gp_err_set(err, "%s: %s", path, strerror(errno));
		close(fd);
		return (NULL);
	}
	/* one read of the size the file says, more if it grew */
	cap = st.st_size > 0 ? (size_t)st.st_size + 2 : 65536;
	buf = gp_xmalloc(cap);
	for (;;) {
		size_t got;

		if (n + 1 >= cap)
			gp_grow(&buf, &cap, cap * 2, 1);
		got = fread(buf + n, 1, cap - n - 1, fp);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(fp)) {
		gp_err_set(err, "%s: %s", path, strerror(errno));
		fclose(fp);
		free(buf);
		return (NULL);
	}
	fclose(fp);
	buf[n] = '\0';
	*len = n;
	return (buf);
}

struct gp_profile *
gp_capture_load(const char *path, struct gp_capture_info *ci,
    struct gp_err *err)
{
	struct gp_profile *p;
	size_t len;
	char *text = read_file(path, "a gptop capture", &len, err);

	if (text == NULL)
		return (NULL);
	p = gp_capture_load_buf(text, len, path, ci, err);
	free(text);
	return (p);
}

/* Skip JSON whitespace. */
static const char *
ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'))
		p++;
	return (p);
}

/* Past the string at p (at its quote). */
static const char *
skip_str(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return (p + 1);
	}
	return (end);
}

/* Past the value at p. */
static const char *
skip_val(const char *p, const char *end)
{
	int depth = 0;

	if (p < end && *p == '"')
		return (skip_str(p, end));
	while (p < end) {
		if (*p == '"') {
			p = skip_str(p, end);
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']') {
			if (depth == 0)
				return (p);
			depth--;
			if (depth == 0)
				return (p + 1);
		} else if (depth == 0 && (*p == ',' || *p == ' ' ||
		    *p == '\n' || *p == '\t' || *p == '\r'))
			return (p);
		p++;
	}
	return (end);
}

int
gp_capture_detect(const char *path, struct gp_err *err)
{
	static const char key[] = "\"format\"", gkey[] = "\"graph\"";
	static const char graph[] = "\"gptop-graph";
	const char *p, *end, *fmt = NULL;
	size_t len;
	char *text = read_file(path, "a graph or a capture",
	    &len, err);
	bool has_graph = false;
	int found = 0;

	if (text == NULL)
		return (-1);
	/* walk the top-level members only, so "format" inside a graph's
	 * doc string or params never counts */
	end = text + len;
	p = ws(text, end);
	/* captures and graphs are objects; an array whose first element
	 * has a "cat" member (a trace event) is read as ONNX Runtime's
	 * profile, whose reader says what is wrong with it; any other
	 * array goes to the graph loader, which says it is no graph */
	if (gp_ort_looks(text, len)) {
		static const char cat[] = "\"cat\"";
		const char *q = ws(ws(text + (p < end && *p == '[' ? 0 : 3),
		    end), end);

		q = q < end && *q == '[' ? ws(q + 1, end) : end;
		if (q < end && *q == '{') {
			q = ws(q + 1, end);
			while (q < end && *q == '"') {
				const char *k = q;

				q = ws(skip_str(q, end), end);
				if (q >= end || *q != ':')
					break;
				if ((size_t)(q - k) >= sizeof(cat) - 1 &&
				    memcmp(k, cat, sizeof(cat) - 1) == 0) {
					found = 1;
					break;
				}
				q = ws(skip_val(ws(q + 1, end), end), end);
				if (q >= end || *q != ',')
					break;
				q = ws(q + 1, end);
			}
		}
	} else if (p < end && *p == '{') {
		p = ws(p + 1, end);
		while (p < end && *p == '"') {
			const char *k = p, *v;

			p = ws(skip_str(p, end), end);
			if (p >= end || *p != ':')
				break;
			v = ws(p + 1, end);
			if ((size_t)(p - k) >= sizeof(key) - 1 &&
			    memcmp(k, key, sizeof(key) - 1) == 0 &&
			    ws(k + sizeof(key) - 1, end) == p)
				fmt = v;
			if ((size_t)(p - k) >= sizeof(gkey) - 1 &&
			    memcmp(k, gkey, sizeof(gkey) - 1) == 0 &&
			    ws(k + sizeof(gkey) - 1, end) == p)
				has_graph = true;
			/* known once the format says which, or once a
			 * capture's "graph" member came with another format
			 * (the rest of a large file is not walked) */
			if (fmt != NULL && (has_graph || (*fmt == '"' &&
			    (size_t)(end - fmt) > sizeof(graph) &&
			    (memcmp(fmt, graph, sizeof(graph) - 1) == 0 ||
			    memcmp(fmt + 1, GP_CAPTURE_PREFIX,
			    strlen(GP_CAPTURE_PREFIX) - 1) == 0))))
				break;
			p = ws(skip_val(v, end), end);
			if (p >= end || *p != ',')
				break;
			p = ws(p + 1, end);
		}
	}
	if (fmt != NULL) {
		/* "gptop-capture" with or without a good version: the
		 * loader says what is wrong */
		size_t n = strlen(GP_CAPTURE_PREFIX) - 1;

		found = (size_t)(end - fmt) > n && *fmt == '"' &&
		    memcmp(fmt + 1, GP_CAPTURE_PREFIX, n) == 0;
		/* any other format but a graph's, in a document with a
		 * capture's "graph" member (graphs have none): a capture
		 * whose format is wrong, and the capture loader says so */
		if (!found && has_graph && !((size_t)(end - fmt) >
		    sizeof(graph) - 1 && memcmp(fmt, graph,
		    sizeof(graph) - 1) == 0))
			found = 1;
	}
	free(text);
	return (found);
}
