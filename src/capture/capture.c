/*
 * capture.c: saving, loading and merging captures (see capture.h and
 * doc/capture-format.md), the graph hash, and atomic file writing.
 *
 * Writing streams the document: the top-level members and each apply are
 * encoded by jansson one at a time (an apply per line), so the file stays
 * readable and memory stays flat for large graphs (but for the second half
 * of a big function's applies, encoded on a second thread meanwhile: see
 * write_applies); op kinds and input/output types go once into two tables
 * that applies index.  Reading parses the text with jansson (a large
 * capture in pieces, on two threads: see split_begin), then walks the tree
 * with a reader that keeps the JSON path of the value it is looking at, so
 * every complaint can name the field, and jsonpos.c turns that path into a
 * line and column.  Both run jansson on arenas (below): a 100,000-apply
 * capture is written in about 0.45 s and read in about 0.45 s.
 *
 * Each function's memory profile (struct gp_memprof) is its "memory"
 * member, written and read by memprof.c (gp_memprof_to_json(),
 * gp_memprof_from_json(), at the two spots marked MEMPROF-JSON) against
 * the function's applies, which give the outputs it refers to.
 */
#include "config.h"

#include "capture/capture.h"

#include <cblas.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/fatal.h"
#include "base/jsonarena.h"
#include "base/jsonpos.h"
#include "prof/memprof.h"
#include "graph/op.h"

/* Sanity bounds for what a capture may declare. */
#define MAX_FUNCTIONS	100000
#define MAX_APPLIES	50000000
#define MAX_IO		4096
#define MAX_RW		100000

/*
 * jansson's memory while a capture is read or written.  A 100,000-apply
 * capture parses into millions of values that all die together, so
 * malloc and free would take a third of the time: instead they come from
 * bump arenas (jsonarena.h, which owns jansson's allocator hooks), one per
 * parsing thread, dropped whole after a load; a save's is started again
 * at the bottom after each apply it writes.  The load's arenas ask for huge pages: the tree is hundreds of MiB, and
 * faulting it in 4 KiB pages costs a quarter of the load.  Nothing
 * allocated in an arena outlives it.
 */
#define READ_ARENA(len)	((size_t)64 * (len) + ((size_t)1 << 20))
/* A function of this many applies is encoded on two threads. */
#define SAVE_SPLIT_MIN	8192
#define WRITE_ARENA	((size_t)1 << 30)

/* Route this thread's jansson allocations to a fresh arena of size bytes
 * (when there is none, they go to malloc: slower, as correct). */
static void
arena_begin(struct gp_json_arena *a, size_t size, bool huge)
{
	if (!gp_json_arena_begin(a, size))
		return;
#ifdef MADV_HUGEPAGE
	if (huge)
		(void)madvise(a->base, (size_t)(a->end - a->base),
		    MADV_HUGEPAGE);
#else
	(void)huge;
#endif
}

/* An output's alias mark ('c', 'v', 'i') as written in captures. */
static const char *
alias_name(char a)
{
	switch (a) {
	case 'v':
		return ("view");
	case 'i':
		return ("inplace");
	default:
		return ("created");
	}
}

/*
 * Machine and build.
 */

static char *
cpu_model(void)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[512];
	char *model = NULL;

	if (fp == NULL)
		return (gp_xstrdup("unknown"));
	while (model == NULL && fgets(line, sizeof(line), fp) != NULL) {
		char *colon;
		size_t n;

		if (strncmp(line, "model name", 10) != 0 &&
		    strncmp(line, "Processor", 9) != 0)
			continue;
		colon = strchr(line, ':');
		if (colon == NULL)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		n = strcspn(colon, "\n");
		colon[n] = '\0';
		model = gp_xstrdup(colon);
	}
	fclose(fp);
	return (model != NULL ? model : gp_xstrdup("unknown"));
}

/* UTC, ISO-8601 with milliseconds: "2024-05-01T12:00:00.123Z". */
static char *
utc_now(void)
{
	struct timespec ts;
	struct tm tm;
	char buf[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	return (gp_xasprintf("%s.%03dZ", buf, (int)(ts.tv_nsec / 1000000)));
}

void
gp_capture_info_this(struct gp_capture_info *ci)
{
	struct utsname u;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	const char *blas = openblas_get_config();

	memset(ci, 0, sizeof(*ci));
	ci->version = GP_CAPTURE_VERSION;
	ci->created = utc_now();
	ci->gptop = gp_xstrdup(PACKAGE_VERSION);
	ci->cpu = cpu_model();
	ci->cores = n > 0 ? (int)n : 0;
	if (uname(&u) == 0)
		ci->os = gp_xasprintf("%s %s %s", u.sysname, u.release,
		    u.machine);
	else
		ci->os = gp_xstrdup("unknown");
	ci->cc = gp_xstrdup(GP_BUILD_CC);
#ifdef __VERSION__
	ci->cc_version = gp_xstrdup(__VERSION__);
#else
	ci->cc_version = gp_xstrdup("unknown");
#endif
	ci->blas = gp_xstrdup(blas != NULL ? blas : "unknown");
}

void
gp_capture_info_done(struct gp_capture_info *ci)
{
	if (ci == NULL)
		return;
	free(ci->created);
	free(ci->gptop);
	free(ci->cpu);
	free(ci->os);
	free(ci->cc);
	free(ci->cc_version);
	free(ci->blas);
	for (int i = 0; i < ci->n_src; i++) {
		free(ci->src[i].path);
		free(ci->src[i].created);
	}
	free(ci->src);
	memset(ci, 0, sizeof(*ci));
}

/*
 * The graph hash.
 */

static uint64_t
hash_u64(uint64_t h, uint64_t v)
{
	return (gp_hash_bytes(h, &v, sizeof(v)));
}

static uint64_t
hash_str(uint64_t h, const char *s)
{
	if (s == NULL)
		s = "";
	/* with its terminator, so "ab","c" differs from "a","bc" */
	return (gp_hash_bytes(h, s, strlen(s) + 1));
}

static const char *
nz(const char *s)
{
	return (s != NULL ? s : "");
}

static uint64_t
hash_type(uint64_t h, const struct gp_type *t)
{
	h = hash_u64(h, (uint64_t)t->dtype);
	h = hash_u64(h, (uint64_t)t->ndim);
	for (int d = 0; d < t->ndim; d++)
		h = hash_u64(h, (uint64_t)t->shape[d]);
	return (h);
}

uint64_t
gp_graph_hash(const struct gp_graph *g)
{
	uint64_t h = GP_HASH_INIT;
	int64_t *canon = gp_xmalloc(sizeof(*canon) * (g->n_vars + 1));
	int64_t next = 0;

	/* Canonical variable numbers: graph variables in order, then each
	 * live node's outputs in node order. */
	for (size_t v = 0; v < g->n_vars; v++) {
		canon[v] = -1;
		if (g->vars[v].kind == GP_VAR_TEMP)
			continue;
		canon[v] = next++;
		h = hash_u64(h, (uint64_t)g->vars[v].kind);
		h = hash_type(h, &g->vars[v].type);
	}
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gp_node *n = &g->nodes[i];

		if (n->dead)
			continue;
		for (int k = 0; k < n->n_out; k++)
			if (n->out[k] >= 0 && (size_t)n->out[k] < g->n_vars &&
			    canon[n->out[k]] < 0)
				canon[n->out[k]] = next++;
	}
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct gp_node *n = &g->nodes[i];
		char *params;

		if (n->dead)
			continue;
		h = hash_str(h, n->op != NULL ? n->op->name : "?");
		params = n->params != NULL ? json_dumps(n->params,
		    JSON_SORT_KEYS | JSON_COMPACT) : NULL;
		h = hash_str(h, params != NULL ? params : "{}");
		free(params);
		h = hash_u64(h, (uint64_t)n->n_in);
		for (int k = 0; k < n->n_in; k++)
			h = hash_u64(h, (uint64_t)canon[n->in[k]]);
		h = hash_u64(h, (uint64_t)n->n_out);
		for (int k = 0; k < n->n_out; k++) {
			h = hash_u64(h, (uint64_t)canon[n->out[k]]);
			h = hash_type(h, &g->vars[n->out[k]].type);
		}
	}
	h = hash_u64(h, (uint64_t)g->n_fns);
	for (size_t f = 0; f < g->n_fns; f++) {
		const struct gp_function *fn = &g->fns[f];

		h = hash_u64(h, (uint64_t)fn->n_out);
		for (int k = 0; k < fn->n_out; k++)
			h = hash_u64(h, (uint64_t)canon[fn->out[k]]);
		h = hash_u64(h, (uint64_t)fn->n_upd);
		for (int k = 0; k < fn->n_upd; k++) {
			h = hash_u64(h, (uint64_t)canon[fn->upd[k].dst]);
			h = hash_u64(h, (uint64_t)canon[fn->upd[k].src]);
		}
	}
	free(canon);
	return (h);
}

/*
 * Atomic files.
 */

FILE *
gp_capture_atomic_open(struct gp_atomic *af, const char *path,
    struct gp_err *err)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	mode_t mask;
	int fd;

	memset(af, 0, sizeof(*af));
	af->slot = -1;
	if (path[0] == '\0' || (slash != NULL && slash[1] == '\0')) {
		gp_err_set(err, "%s: not a file name", path);
		return (NULL);
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISDIR(st.st_mode)) {
		/* a device, a pipe (/dev/stdout, /dev/null): written in
		 * place, never replaced by a rename */
		af->fp = fopen(path, "w");
		if (af->fp == NULL) {
			gp_err_set(err, "%s: cannot open: %s", path,
			    strerror(errno));
			return (NULL);
		}
		af->path = gp_xstrdup(path);
		return (af->fp);
	}
	if (slash != NULL)
		af->tmp = gp_xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path),
		    path, slash + 1);
	else
		af->tmp = gp_xasprintf(".%s.XXXXXX", path);
	fd = mkstemp(af->tmp);
	if (fd < 0) {
		gp_err_set(err, "%s: cannot create: %s", path,
		    strerror(errno));
		free(af->tmp);
		af->tmp = NULL;
		return (NULL);
	}
	af->slot = gp_fatal_tmp_add(af->tmp);
	/* mkstemp makes 0600; a capture is an ordinary file */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	af->fp = fdopen(fd, "w");
	if (af->fp == NULL) {
		gp_err_set(err, "%s: %s", path, strerror(errno));
		close(fd);
		unlink(af->tmp);
		gp_fatal_tmp_drop(af->slot);
		af->slot = -1;
		free(af->tmp);
		af->tmp = NULL;
		return (NULL);
	}
	af->path = gp_xstrdup(path);
	return (af->fp);
}

void
gp_capture_atomic_abort(struct gp_atomic *af)
{
	if (af->fp != NULL)
		fclose(af->fp);
	if (af->tmp != NULL)
		unlink(af->tmp);
	gp_fatal_tmp_drop(af->slot);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
	af->slot = -1;
}

int
gp_capture_atomic_commit(struct gp_atomic *af, struct gp_err *err)
{
	const char *slash;
	char *dir;
	int fd, e = 0;

	if (fflush(af->fp) != 0 || ferror(af->fp))
		e = errno != 0 ? errno : EIO;
	else if (fsync(fileno(af->fp)) != 0 && errno != EINVAL)
		e = errno;
	if (fclose(af->fp) != 0 && e == 0)
		e = errno;
	af->fp = NULL;
	if (e == 0 && af->tmp != NULL && rename(af->tmp, af->path) != 0)
		e = errno;
	if (e == 0) {
		gp_fatal_tmp_drop(af->slot);
		af->slot = -1;
	}
	if (e != 0) {
		gp_err_set(err, "%s: cannot write: %s", af->path,
		    strerror(e));
		gp_capture_atomic_abort(af);
		return (-1);
	}
	if (af->tmp == NULL) {	/* written in place */
		free(af->path);
		memset(af, 0, sizeof(*af));
		af->slot = -1;
		return (0);
	}
	/* make the rename itself durable */
	slash = strrchr(af->path, '/');
	dir = slash != NULL ? gp_xasprintf("%.*s", (int)(slash - af->path) +
	    (slash == af->path), af->path) : gp_xstrdup(".");
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
	af->slot = -1;
	return (0);
}

/*
 * Writing.
 */

/* A JSON string for s; bytes that are not UTF-8 become '?'. */
static json_t *
jstr(const char *s)
{
	json_t *j;
	char *c;

	if (s == NULL)
		s = "";
	j = json_string(s);
	if (j != NULL)
		return (j);
	c = gp_xstrdup(s);
	for (unsigned char *p = (unsigned char *)c; *p != '\0'; p++)
		if (*p >= 0x80)
			*p = '?';
	j = json_string(c);
	free(c);
	return (j != NULL ? j : json_string(""));
}

static json_t *
jint(uint64_t v)
{
	return (json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX :
	    (json_int_t)v));
}

static json_t *
jreal(double v)
{
	return (json_real(isfinite(v) ? v : 0));
}

static void
set(json_t *o, const char *k, json_t *v)
{
	json_object_set_new_nocheck(o, k, v);
}

/*
 * The op and type tables.  Applies refer to their op kind (op, class,
 * opname, implementation) and inputs and outputs to their type (dtype,
 * shape, strides, nbytes) by index, so a large graph's capture repeats
 * neither; it halves the file and the time to read it.
 */

struct table {
	size_t		 cap;	/* a power of two */
	int		*slot;	/* entry index, or -1 */
	uint64_t	*hash;	/* per entry */
	const void	**key;	/* per entry: an apply or an io */
	int		 n;
	size_t		 ncap;
};

static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return (h ^ (h >> 32));
}

static uint64_t
op_hash(const struct gp_prof_apply *a)
{
	return (mix(hash_str(hash_str(hash_str(GP_HASH_INIT, a->op), a->cls),
	    a->opname), (uint64_t)a->impl));
}

static bool
op_same(const struct gp_prof_apply *x, const struct gp_prof_apply *y)
{
	return (strcmp(nz(x->op), nz(y->op)) == 0 &&
	    strcmp(nz(x->cls), nz(y->cls)) == 0 &&
	    strcmp(nz(x->opname), nz(y->opname)) == 0 && x->impl == y->impl);
}

static uint64_t
type_hash(const struct gp_prof_io *io)
{
	uint64_t h = mix(mix(GP_HASH_INIT, (uint64_t)io->dtype),
	    (uint64_t)io->ndim);

	for (int d = 0; d < io->ndim; d++)
		h = mix(h, (uint64_t)io->shape[d]);
	h = mix(h, io->strides_known);
	for (int d = 0; io->strides_known && d < io->ndim; d++)
		h = mix(h, (uint64_t)io->strides[d]);
	return (mix(h, io->nbytes));
}

static bool
type_same(const struct gp_prof_io *x, const struct gp_prof_io *y)
{
	if (x->dtype != y->dtype || x->ndim != y->ndim || x->nbytes !=
	    y->nbytes || x->strides_known != y->strides_known)
		return (false);
	for (int d = 0; d < x->ndim; d++)
		if (x->shape[d] != y->shape[d] || (x->strides_known &&
		    x->strides[d] != y->strides[d]))
			return (false);
	return (true);
}

static void
table_init(struct table *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = 64;
	t->slot = gp_xmalloc(sizeof(int) * t->cap);
	memset(t->slot, -1, sizeof(int) * t->cap);
}

static void
table_free(struct table *t)
{
	free(t->slot);
	free(t->hash);
	free(t->key);
}

/* The index of key in t, added when new. */
static int
table_index(struct table *t, const void *key, bool is_op)
{
	uint64_t h = is_op ? op_hash(key) : type_hash(key);
	size_t i;

	if ((size_t)t->n * 2 >= t->cap) {
		free(t->slot);
		t->cap *= 2;
		t->slot = gp_xmalloc(sizeof(int) * t->cap);
		memset(t->slot, -1, sizeof(int) * t->cap);
		for (int e = 0; e < t->n; e++) {
			i = (size_t)t->hash[e] & (t->cap - 1);
			while (t->slot[i] >= 0)
				i = (i + 1) & (t->cap - 1);
			t->slot[i] = e;
		}
	}
	for (i = (size_t)h & (t->cap - 1); t->slot[i] >= 0;
	    i = (i + 1) & (t->cap - 1)) {
		int e = t->slot[i];

		if (t->hash[e] == h && (is_op ? op_same(t->key[e], key) :
		    type_same(t->key[e], key)))
			return (e);
	}
	gp_grow(&t->hash, &t->ncap, (size_t)t->n + 1, sizeof(*t->hash));
	t->key = gp_xrealloc(t->key, sizeof(*t->key) * t->ncap);
	t->hash[t->n] = h;
	t->key[t->n] = key;
	t->slot[i] = t->n;
	return (t->n++);
}

struct wr {
	FILE		*fp;
	char		*buf;	/* jansson encodes into it; one fwrite */
	size_t		 cap;
	int		 rc;
	struct gp_json_arena arena;
	struct table	 ops, types;
	int		*op_of;		/* per apply, in function order */
	int		*type_of;	/* per input then output */
};

static const size_t dump_flags = JSON_COMPACT | JSON_PRESERVE_ORDER;

/* Encode v (stolen) with jansson and write it, but for its last `trim`
 * bytes. */
static void
wr_json_trim(struct wr *w, json_t *v, size_t trim)
{
	size_t n;

	if (v == NULL) {
		w->rc = -1;
		return;
	}
	n = json_dumpb(v, w->buf, w->cap, dump_flags | JSON_ENCODE_ANY);
	if (n > w->cap) {
		while (w->cap < n)
			w->cap *= 2;
		w->buf = gp_xrealloc(w->buf, w->cap);
		n = json_dumpb(v, w->buf, w->cap, dump_flags |
		    JSON_ENCODE_ANY);
	}
	json_decref(v);
	if (n <= trim) {
		w->rc = -1;
		return;
	}
	fwrite(w->buf, 1, n - trim, w->fp);
}

static void
wr_json(struct wr *w, json_t *v)
{
	wr_json_trim(w, v, 0);
}

/* v in decimal at p; the end */
static char *
put_u64(char *p, uint64_t v)
{
	char t[24];
	int n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		*p++ = t[--n];
	return (p);
}

/* A stat's histogram: "FIRST: c c 0*k c", the counts of the bins from
 * the first non-empty one to the last, a run of three or more empty bins
 * as 0*k (doc/capture-format.md). */
static json_t *
hist_to_json(const struct gp_prof_stat *s)
{
	int i0 = 0, i1 = s->nb - 1;
	char *buf, *p;
	json_t *j;

	while (i0 <= i1 && s->bin[i0] == 0)
		i0++;
	while (i1 >= i0 && s->bin[i1] == 0)
		i1--;
	if (i0 > i1)
		return (json_string(""));
	/* at most 11 bytes a bin, and the first bin's "NNNN:" */
	p = buf = gp_xmalloc((size_t)(i1 - i0 + 1) * 11 + 16);
	p = put_u64(p, (uint64_t)(s->lo + i0));
	*p++ = ':';
	for (int i = i0; i <= i1; i++) {
		int k = 0;

		while (i + k <= i1 && s->bin[i + k] == 0)
			k++;
		*p++ = ' ';
		if (k >= 3) {
			*p++ = '0';
			*p++ = '*';
			p = put_u64(p, (uint64_t)k);
			i += k - 1;
		} else
			p = put_u64(p, s->bin[i]);
	}
	j = json_stringn_nocheck(buf, (size_t)(p - buf));
	free(buf);
	return (j);
}

static void
stat_to_json(json_t *o, const struct gp_prof_stat *s)
{
	set(o, "calls", jint(s->n));
	set(o, "total", jint(s->total));
	set(o, "min", jint(s->min));
	set(o, "max", jint(s->max));
	set(o, "histogram", hist_to_json(s));
}

static json_t *
dims_to_json(int ndim, const int64_t *d)
{
	json_t *a = json_array();

	for (int k = 0; k < ndim; k++)
		json_array_append_new(a, json_integer(d[k]));
	return (a);
}

/* Fill the tables from every apply of p. */
static void
wr_tables(struct wr *w, const struct gp_profile *p)
{
	size_t na = 0, nio = 0, i = 0, k = 0;

	for (int f = 0; f < p->n_fn; f++)
		for (int j = 0; j < p->fn[f].n_apply; j++) {
			na++;
			nio += (size_t)(p->fn[f].ap[j].n_in +
			    p->fn[f].ap[j].n_out);
		}
	table_init(&w->ops);
	table_init(&w->types);
	w->op_of = gp_xmalloc(sizeof(int) * (na + 1));
	w->type_of = gp_xmalloc(sizeof(int) * (nio + 1));
	for (int f = 0; f < p->n_fn; f++)
		for (int j = 0; j < p->fn[f].n_apply; j++) {
			const struct gp_prof_apply *a = &p->fn[f].ap[j];

			w->op_of[i++] = table_index(&w->ops, a, true);
			for (int q = 0; q < a->n_in; q++)
				w->type_of[k++] = table_index(&w->types,
				    &a->in[q], false);
			for (int q = 0; q < a->n_out; q++)
				w->type_of[k++] = table_index(&w->types,
				    &a->out[q], false);
		}
}

static json_t *
ops_json(const struct wr *w)
{
	json_t *t = json_array();

	for (int e = 0; e < w->ops.n; e++) {
		const struct gp_prof_apply *a = w->ops.key[e];
		json_t *o = json_object();

		set(o, "op", jstr(a->op));
		set(o, "class", jstr(a->cls));
		set(o, "opname", jstr(a->opname));
		set(o, "impl", json_string((unsigned)a->impl < GP_IMPL__COUNT ?
		    gp_impl_names[a->impl] : "C"));
		json_array_append_new(t, o);
	}
	return (t);
}

static json_t *
types_json(const struct wr *w)
{
	json_t *t = json_array();

	for (int e = 0; e < w->types.n; e++) {
		const struct gp_prof_io *io = w->types.key[e];
		json_t *o = json_object();

		set(o, "dtype", json_string(gp_dtype_name(io->dtype)));
		set(o, "shape", dims_to_json(io->ndim, io->shape));
		set(o, "strides", io->strides_known ? dims_to_json(io->ndim,
		    io->strides) : json_null());
		set(o, "nbytes", jint(io->nbytes));
		json_array_append_new(t, o);
	}
	return (t);
}

/* The name an apply has unless a capture says otherwise:
 * "OP(IN0, IN1, ...)", as gp_node_format_apply() makes it (malloc'ed). */
static char *
default_name(const char *op, const struct gp_prof_io *in, int n_in)
{
	size_t n = strlen(nz(op)) + 2, k;
	char *s, *d;

	for (int i = 0; i < n_in; i++)
		n += strlen(nz(in[i].var)) + (i > 0 ? 2 : 0);
	d = s = gp_xmalloc(n + 1);
	k = strlen(nz(op));
	memcpy(d, nz(op), k);
	d += k;
	*d++ = '(';
	for (int i = 0; i < n_in; i++) {
		if (i > 0) {
			*d++ = ',';
			*d++ = ' ';
		}
		k = strlen(nz(in[i].var));
		memcpy(d, nz(in[i].var), k);
		d += k;
	}
	*d++ = ')';
	*d = '\0';
	return (s);
}

/* Is name what an apply of op with inputs in is called unless a capture
 * says otherwise, "OP(IN0, IN1, ...)" (as gp_node_format_apply() makes
 * it, and default_name() above)? */
static bool
is_default_name(const char *name, const char *op, const struct gp_prof_io *in,
    int n_in)
{
	const char *s = name != NULL ? name : "";
	size_t n;

	n = strlen(nz(op));
	if (strncmp(s, nz(op), n) != 0 || s[n] != '(')
		return (false);
	s += n + 1;
	for (int k = 0; k < n_in; k++) {
		const char *v = nz(in[k].var);

		if (k > 0) {
			if (s[0] != ',' || s[1] != ' ')
				return (false);
			s += 2;
		}
		n = strlen(v);
		if (strncmp(s, v, n) != 0)
			return (false);
		s += n;
	}
	return (s[0] == ')' && s[1] == '\0');
}

/* An apply: its op and its inputs' and outputs' types by table index
 * (*io walks the type indices). */
static json_t *
apply_to_json(const struct gp_prof_apply *a, int op, const int **io)
{
	json_t *o = json_object(), *in = json_array(), *out = json_array();

	set(o, "id", json_integer(a->id));
	if (!is_default_name(a->name, a->op, a->in, a->n_in))
		set(o, "name", jstr(a->name));
	set(o, "op", json_integer(op));
	if (a->node != NULL && a->node[0] != '\0')
		set(o, "node", jstr(a->node));
	if (a->extra != NULL && a->extra[0] != '\0')
		set(o, "extra", jstr(a->extra));
	set(o, "flops", jreal(a->flops));
	if (a->link_ns != 0)
		set(o, "link_ns", jreal(a->link_ns));
	if (a->jit_ns != 0)
		set(o, "jit_ns", jreal(a->jit_ns));
	for (int k = 0; k < a->n_in; k++) {
		json_t *t = json_array();

		json_array_append_new(t, jstr(a->in[k].var));
		json_array_append_new(t, json_integer(*(*io)++));
		json_array_append_new(t, json_integer(a->in_producer != NULL ?
		    a->in_producer[k] : -1));
		json_array_append_new(in, t);
	}
	for (int k = 0; k < a->n_out; k++) {
		json_t *t = json_array();

		json_array_append_new(t, jstr(a->out[k].var));
		json_array_append_new(t, json_integer(*(*io)++));
		if (a->out[k].alias == 'v' || a->out[k].alias == 'i')
			json_array_append_new(t, json_string(alias_name(
			    a->out[k].alias)));
		json_array_append_new(out, t);
	}
	set(o, "inputs", in);
	set(o, "outputs", out);
	stat_to_json(o, &a->st);
	set(o, "first_ns", jint(a->first_ns));
	return (o);
}

/* The last min(calls, GP_PROF_RECENT) call times, oldest first. */
static int
recent_list(const struct gp_prof_fn *f, uint64_t *v)
{
	uint64_t n = f->call.n;
	int m = n < GP_PROF_RECENT ? (int)n : GP_PROF_RECENT;

	for (int i = 0; i < m; i++)
		v[i] = f->recent[(n - (uint64_t)m + 1 + (uint64_t)i) %
		    GP_PROF_RECENT];
	return (m);
}

/* The inverse, for f->call.n already set. */
static void
recent_set(struct gp_prof_fn *f, const uint64_t *v, int m)
{
	uint64_t n = f->call.n;

	memset(f->recent, 0, sizeof(f->recent));
	for (int i = 0; i < m; i++)
		f->recent[(n - (uint64_t)m + 1 + (uint64_t)i) %
		    GP_PROF_RECENT] = v[i];
}

static json_t *
info_machine(const struct gp_capture_info *ci)
{
	json_t *m = json_object();

	set(m, "cpu", jstr(ci->cpu));
	set(m, "cores", json_integer(ci->cores));
	set(m, "os", jstr(ci->os));
	set(m, "compiler", jstr(ci->cc));
	set(m, "compiler_version", jstr(ci->cc_version));
	set(m, "blas", jstr(ci->blas));
	return (m);
}

/* One top-level member: "key": value (stolen). */
static void
member(struct wr *w, const char *key, json_t *v, bool last)
{
	fprintf(w->fp, " \"%s\": ", key);
	wr_json(w, v);
	fputs(last ? "\n" : ",\n", w->fp);
}

/* Applies [lo, hi) of f, one per line (op, io: the table indices of
 * apply lo on). */
struct apply_run {
	struct wr		*w;
	const struct gp_prof_fn	*f;
	int			 lo, hi;
	const int		*op, *io;
};

static void *
write_run(void *arg)
{
	struct apply_run *r = arg;
	struct wr *w = r->w;
	const int *op = r->op, *io = r->io;

	for (int i = r->lo; i < r->hi; i++) {
		fputs("   ", w->fp);
		wr_json(w, apply_to_json(&r->f->ap[i], *op++, &io));
		fputs(i + 1 < r->f->n_apply ? ",\n" : "\n", w->fp);
		/* every value of that apply is dead: reuse the memory */
		gp_json_arena_reset(&w->arena);
	}
	return (NULL);
}

/* The second half of a big function's applies, encoded by jansson on a
 * second thread into memory while this one writes the first half. */
static void *
write_run_apart(void *arg)
{
	struct apply_run *r = arg;

	arena_begin(&r->w->arena, WRITE_ARENA, false);
	write_run(r);
	gp_json_arena_end(&r->w->arena, NULL);
	return (NULL);
}

/* Function f's applies (op, io: the table indices of its first). */
static void
write_applies(struct wr *w, const struct gp_prof_fn *f, const int *op,
    const int *io)
{
	struct apply_run a = {w, f, 0, f->n_apply, op, io}, b;
	struct wr w2 = {.cap = 65536};
	char *text = NULL;
	size_t len = 0;
	pthread_t th;

	if (f->n_apply < SAVE_SPLIT_MIN ||
	    (w2.fp = open_memstream(&text, &len)) == NULL) {
		write_run(&a);
		return;
	}
	w2.buf = gp_xmalloc(w2.cap);
	a.hi = f->n_apply / 2;
	b = (struct apply_run){&w2, f, a.hi, f->n_apply, op + a.hi, io};
	for (int i = 0; i < a.hi; i++)
		b.io += f->ap[i].n_in + f->ap[i].n_out;
	if (pthread_create(&th, NULL, write_run_apart, &b) != 0) {
		fclose(w2.fp);
		free(text);
		free(w2.buf);
		write_run(&a);
		return;
	}
	write_run(&a);
	pthread_join(th, NULL);
	if (fclose(w2.fp) != 0 || w2.rc != 0)
		w->rc = -1;
	else
		fwrite(text, 1, len, w->fp);
	free(text);
	free(w2.buf);
}

static void
write_function(struct wr *w, const struct gp_profile *p, int fn, bool last,
    const int **op, const int **io)
{
	const struct gp_prof_fn *f = &p->fn[fn];
	json_t *o = json_object(), *call = json_object(), *rec = json_array();
	json_t *mem = NULL;
	uint64_t v[GP_PROF_RECENT];
	int m = recent_list(f, v);

	set(o, "name", jstr(f->name));
	stat_to_json(call, &f->call);
	set(o, "call", call);
	set(o, "vm_ns", jint(f->vm_ns));
	set(o, "thunk_ns", jint(f->thunk_ns));
	set(o, "first_call_ns", jint(f->first_call_ns));
	set(o, "calls_seen", jint(f->calls_seen));
	set(o, "timed_calls", jint(f->timed));
	set(o, "sample_every", jint(f->every > 0 ? f->every : 1));
	for (int i = 0; i < m; i++)
		json_array_append_new(rec, jint(v[i]));
	set(o, "recent", rec);
	/*
	 * MEMPROF-JSON: the predicted memory profile, when there is one that
	 * describes these applies (gp_memprof_to_json() says NULL for one
	 * that does not, which a profile never holds): left out otherwise,
	 * which readers take as no prediction.
	 */
	if (f->mem != NULL)
		mem = gp_memprof_to_json(f->mem, f);
	set(o, "mem_peak_measured", jint(f->mem_peak_measured));
	/* derived, for scripts: the report's "Predicted peak" (readers
	 * recompute it from "memory") */
	if (mem != NULL)
		set(o, "mem_peak_predicted",
		    jint(gp_memprof_predicted_peak(p, fn)));
	if (mem != NULL)
		set(o, "memory", mem);
	set(o, "n_applies", json_integer(f->n_apply));
	/* the object without its closing brace, then the applies */
	fputs("  ", w->fp);
	wr_json_trim(w, o, 1);
	fputs(",\"applies\":[\n", w->fp);
	write_applies(w, f, *op, *io);
	for (int i = 0; i < f->n_apply; i++) {
		(*op)++;
		*io += f->ap[i].n_in + f->ap[i].n_out;
	}
	fprintf(w->fp, "  ]}%s\n", last ? "" : ",");
}

static int
write_capture(FILE *fp, const struct gp_profile *p,
    const struct gp_capture_info *ci)
{
	struct wr w = {.fp = fp, .cap = 65536};
	const int *op, *io;
	json_t *o;
	char hash[24];

	w.buf = gp_xmalloc(w.cap);
	arena_begin(&w.arena, WRITE_ARENA, false);
	wr_tables(&w, p);
	fputs("{\n", fp);
	member(&w, "format", json_string(GP_CAPTURE_FORMAT), false);
	member(&w, "created", jstr(ci->created), false);
	member(&w, "gptop", jstr(ci->gptop), false);
	member(&w, "machine", info_machine(ci), false);
	if (ci->n_src > 0) {
		json_t *a = json_array();

		for (int i = 0; i < ci->n_src; i++) {
			json_t *s = json_object();

			set(s, "path", jstr(ci->src[i].path));
			set(s, "created", jstr(ci->src[i].created));
			json_array_append_new(a, s);
		}
		member(&w, "merged_from", a, false);
	}
	o = json_object();
	snprintf(hash, sizeof(hash), "%016llx",
	    (unsigned long long)p->graph_hash);
	set(o, "name", jstr(p->graph));
	set(o, "path", jstr(p->path));
	set(o, "hash", json_string(hash));
	set(o, "nodes", json_integer(p->n_nodes));
	member(&w, "graph", o, false);
	member(&w, "flags", jstr(p->flags), false);
	member(&w, "rewrites", jstr(p->rewrites), false);
	member(&w, "ignore_first_call", json_boolean(p->ignore_first), false);
	o = json_object();
	set(o, "source", jstr(p->clock.source));
	set(o, "tsc_ghz", jreal(p->clock.tsc_ghz));
	set(o, "resolution_ns", jreal(p->clock.resolution_ns));
	set(o, "probe_ns", jreal(p->clock.probe_ns));
	member(&w, "clock", o, false);
	o = json_object();
	set(o, "load_ns", jreal(p->load_ns));
	set(o, "rewrite_ns", jreal(p->rewrite_ns));
	set(o, "link_ns", jreal(p->link_ns));
	member(&w, "compile", o, false);
	o = json_array();
	for (int i = 0; i < p->n_phase; i++) {
		const struct gp_prof_phase *ph = &p->phase[i];
		json_t *e = json_object();

		set(e, "name", jstr(ph->name));
		set(e, "time_ns", jreal(ph->time_ns));
		set(e, "passes", json_integer(ph->passes));
		set(e, "nodes_before", json_integer(ph->nodes_before));
		set(e, "nodes_after", json_integer(ph->nodes_after));
		json_array_append_new(o, e);
	}
	member(&w, "phases", o, false);
	o = json_array();
	for (int i = 0; i < p->n_rw; i++) {
		const struct gp_prof_rewriter *rw = &p->rw[i];
		json_t *e = json_object();

		set(e, "name", jstr(rw->name));
		set(e, "tags", jstr(rw->tags));
		set(e, "phase", jstr(rw->phase));
		set(e, "enabled", json_boolean(rw->enabled));
		set(e, "time_ns", jreal(rw->time_ns));
		set(e, "applied", json_integer(rw->applied));
		set(e, "tried", json_integer(rw->tried));
		set(e, "nodes_before", json_integer(rw->nodes_before));
		set(e, "nodes_after", json_integer(rw->nodes_after));
		json_array_append_new(o, e);
	}
	member(&w, "rewriters", o, false);
	member(&w, "ops", ops_json(&w), false);
	member(&w, "types", types_json(&w), false);
	fputs(" \"functions\": [\n", fp);
	op = w.op_of;
	io = w.type_of;
	for (int f = 0; f < p->n_fn; f++)
		write_function(&w, p, f, f + 1 == p->n_fn, &op, &io);
	fputs(" ]\n}\n", fp);
	gp_json_arena_end(&w.arena, NULL);
	table_free(&w.ops);
	table_free(&w.types);
	free(w.op_of);
	free(w.type_of);
	free(w.buf);
	return (w.rc);
}

int
gp_capture_save_info(const struct gp_profile *p,
    const struct gp_capture_info *ci, const char *path, struct gp_err *err)
{
	struct gp_capture_info here;
	struct gp_atomic af;
	FILE *fp;
	int rc;

	fp = gp_capture_atomic_open(&af, path, err);
	if (fp == NULL)
		return (-1);
	if (ci == NULL) {
		gp_capture_info_this(&here);
		rc = write_capture(fp, p, &here);
		gp_capture_info_done(&here);
	} else
		rc = write_capture(fp, p, ci);
	if (rc < 0 && ferror(fp)) {
		int e = errno;

		gp_capture_atomic_abort(&af);
		return (gp_err_set(err, "%s: cannot write: %s", path,
		    strerror(e)));
	}
	if (rc < 0) {
		gp_capture_atomic_abort(&af);
		return (gp_err_set(err, "%s: cannot encode the capture",
		    path));
	}
	return (gp_capture_atomic_commit(&af, err));
}

int
gp_capture_save(const struct gp_profile *p, const char *path,
    struct gp_err *err)
{
	return (gp_capture_save_info(p, NULL, path, err));
}

/*
 * Reading.
 */

#define RD_DEPTH 16

/* An entry of the "ops" table; the strings live in the parsed tree. */
struct rd_op {
	const char	*op, *cls, *opname;
	enum gp_impl	 impl;
};

struct rd {
	const char		*name;	/* the file, for messages */
	const char		*text;
	size_t			 len;
	struct gp_jsonpos_step	 path[RD_DEPTH];
	int			 depth;
	struct gp_err		*err;
	struct rd_op		*ops;
	int			 n_ops;
	struct gp_prof_io	*types;	/* var unused */
	int			 n_types;
	struct split		*sp;	/* a split parse (below), or NULL */
	int			 version;	/* of the format */
	const json_t		*cur_o;	/* the object last looked in */
	void			*cur_it;	/* and its next member */
};

static void
rd_key(struct rd *r, const char *key)
{
	if (r->depth < RD_DEPTH)
		r->path[r->depth] = (struct gp_jsonpos_step){.key = key};
	r->depth++;
}

static void
rd_index(struct rd *r, size_t i)
{
	if (r->depth < RD_DEPTH)
		r->path[r->depth] = (struct gp_jsonpos_step){.index = i};
	r->depth++;
}

static void
rd_pop(struct rd *r)
{
	r->depth--;
}

/* The current path, "functions[0].applies[3].calls", appended to b. */
static void
rd_path(const struct rd *r, struct gp_buf *b)
{
	int n = r->depth < RD_DEPTH ? r->depth : RD_DEPTH;

	for (int i = 0; i < n; i++) {
		if (r->path[i].key != NULL)
			gp_buf_printf(b, "%s%s", i ? "." : "",
			    r->path[i].key);
		else
			gp_buf_printf(b, "[%zu]", r->path[i].index);
	}
}

/* "FILE:LINE:COL: PATH: message", the position of the current path. */
static int __attribute__((format(printf, 2, 3)))
rd_fail(struct rd *r, const char *fmt, ...)
{
	struct gp_buf b = {0};
	int n = r->depth < RD_DEPTH ? r->depth : RD_DEPTH;
	int line = 1, col = 1;
	va_list ap;

	if (r->text != NULL)
		gp_jsonpos_find(r->text, r->len, r->path, n, false, &line,
		    &col);
	gp_buf_printf(&b, "%s:%d:%d: ", r->name, line, col);
	rd_path(r, &b);
	if (n > 0)
		gp_buf_puts(&b, ": ");
	va_start(ap, fmt);
	gp_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	gp_err_set(r->err, "%s", gp_buf_str(&b));
	gp_buf_free(&b);
	return (-1);
}

/*
 * Member key of o.  Members are mostly asked for in the order they are
 * written, so the member after the last one found is tried first, then
 * the hash table (keys are unique: duplicates do not parse).
 */
static json_t *
rd_member(struct rd *r, const json_t *o, const char *key)
{
	void *it = NULL;

	if (o != r->cur_o) {
		r->cur_o = o;
		r->cur_it = json_object_iter((json_t *)o);
	}
	if (r->cur_it != NULL && strcmp(json_object_iter_key(r->cur_it),
	    key) == 0)
		it = r->cur_it;
	else if ((it = json_object_iter_at((json_t *)o, key)) == NULL)
		return (NULL);
	r->cur_it = json_object_iter_next((json_t *)o, it);
	return (json_object_iter_value(it));
}

/* Member key of o; missing: an error naming what was expected, or NULL
 * without one when optional. */
static json_t *
rd_get(struct rd *r, const json_t *o, const char *key, const char *what,
    bool optional)
{
	json_t *v = rd_member(r, o, key);

	if (v == NULL && !optional)
		rd_fail(r, "missing \"%s\" (%s)", key, what);
	return (v);
}

static int
rd_u64(struct rd *r, const json_t *o, const char *key, uint64_t *out)
{
	json_t *v = rd_get(r, o, key, "a non-negative integer", false);
	int rc = 0;

	if (v == NULL)
		return (-1);
	rd_key(r, key);
	if (!json_is_integer(v))
		rc = rd_fail(r, "expected a non-negative integer, got %s",
		    gp_jsonpos_kind(v));
	else if (json_integer_value(v) < 0)
		rc = rd_fail(r, "expected a non-negative integer, got %lld",
		    (long long)json_integer_value(v));
	else
		*out = (uint64_t)json_integer_value(v);
	rd_pop(r);
	return (rc);
}

static int
rd_int(struct rd *r, const json_t *o, const char *key, int64_t lo,
    int64_t hi, int *out)
{
	json_t *v = rd_get(r, o, key, "an integer", false);
	int rc = 0;

	if (v == NULL)
		return (-1);
	rd_key(r, key);
	if (!json_is_integer(v))
		rc = rd_fail(r, "expected an integer, got %s", gp_jsonpos_kind(v));
	else if (json_integer_value(v) < lo || json_integer_value(v) > hi)
		rc = rd_fail(r, "%lld is out of range (%lld to %lld)",
		    (long long)json_integer_value(v), (long long)lo,
		    (long long)hi);
	else
		*out = (int)json_integer_value(v);
	rd_pop(r);
	return (rc);
}

static int
rd_real(struct rd *r, const json_t *o, const char *key, double *out)
{
	json_t *v = rd_get(r, o, key, "a number", false);
	int rc = 0;

	if (v == NULL)
		return (-1);
	rd_key(r, key);
	if (!json_is_number(v))
		rc = rd_fail(r, "expected a number, got %s", gp_jsonpos_kind(v));
	else if (json_number_value(v) < 0)
		rc = rd_fail(r, "expected a non-negative number, got %g",
		    json_number_value(v));
	else
		*out = json_number_value(v);
	rd_pop(r);
	return (rc);
}

static int
rd_bool(struct rd *r, const json_t *o, const char *key, bool *out)
{
	json_t *v = rd_get(r, o, key, "true or false", false);
	int rc = 0;

	if (v == NULL)
		return (-1);
	rd_key(r, key);
	if (!json_is_boolean(v))
		rc = rd_fail(r, "expected true or false, got %s",
		    gp_jsonpos_kind(v));
	else
		*out = json_is_true(v);
	rd_pop(r);
	return (rc);
}

/* A string member, copied; optional ones missing give NULL. */
static int
rd_str(struct rd *r, const json_t *o, const char *key, bool optional,
    char **out)
{
	json_t *v = rd_get(r, o, key, "a string", optional);
	int rc = 0;

	*out = NULL;
	if (v == NULL)
		return (optional ? 0 : -1);
	rd_key(r, key);
	if (!json_is_string(v))
		rc = rd_fail(r, "expected a string, got %s", gp_jsonpos_kind(v));
	else
		*out = gp_text_dup(json_string_value(v));
	rd_pop(r);
	return (rc);
}

static json_t *
rd_container(struct rd *r, const json_t *o, const char *key, bool array,
    bool optional)
{
	json_t *v = rd_get(r, o, key, array ? "an array" : "an object",
	    optional);

	if (v == NULL)
		return (NULL);
	if ((array && !json_is_array(v)) || (!array && !json_is_object(v))) {
		rd_key(r, key);
		rd_fail(r, "expected %s, got %s", array ? "an array" :
		    "an object", gp_jsonpos_kind(v));
		rd_pop(r);
		return (NULL);
	}
	return (v);
}

/* The current value (at r's path) must be an object. */
static int
rd_object_here(struct rd *r, const json_t *v)
{
	if (json_is_object(v))
		return (0);
	return (rd_fail(r, "expected an object, got %s", gp_jsonpos_kind(v)));
}

/* The invariants of counters that were read: a complaint names the field
 * (PATH.total, PATH.min). */
static int
rd_stat_check(struct rd *r, const struct gp_prof_stat *s)
{
	const char *key = NULL;
	int rc;

	/* the writer caps at INT64_MAX: a total there overflowed (captures
	 * merged past 292 years of time) and is no sum of anything */
	if (s->total >= (uint64_t)INT64_MAX)
		key = "total";
	else if (s->n > 0 && s->min > s->max)
		key = "min";
	else if (s->n > 0 && s->total < s->max)
		key = "total";
	else if (s->n == 0 && (s->total | s->min | s->max) != 0)
		key = s->total != 0 ? "total" : s->min != 0 ? "min" : "max";
	if (key == NULL)
		return (0);
	rd_key(r, key);
	if (s->total >= (uint64_t)INT64_MAX)
		rc = rd_fail(r, "%llu is the largest integer a capture holds: "
		    "the sum overflowed (a merge of captures past 2^63 ns)",
		    (unsigned long long)s->total);
	else if (s->n == 0)
		rc = rd_fail(r, "%llu, but calls is 0",
		    (unsigned long long)(key[0] == 't' ? s->total :
		    key[1] == 'i' ? s->min : s->max));
	else if (key[0] == 'm')
		rc = rd_fail(r, "min %llu is larger than max %llu",
		    (unsigned long long)s->min, (unsigned long long)s->max);
	else
		rc = rd_fail(r, "total %llu is below max %llu (the total "
		    "sums every call's time)", (unsigned long long)s->total,
		    (unsigned long long)s->max);
	rd_pop(r);
	return (rc);
}


/* A decimal number at *p (no sign), at most max; its end in *p. */
static bool
rd_num(const char **p, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *q = *p;

	if (*q < '0' || *q > '9')
		return (false);
	for (; *q >= '0' && *q <= '9'; q++) {
		if (v > (max - (uint64_t)(*q - '0')) / 10)
			return (false);
		v = v * 10 + (uint64_t)(*q - '0');
	}
	*p = q;
	*out = v;
	return (true);
}

/* Format 1's histogram of stat s (its other members read): [bin, count]
 * pairs of two bins per octave, each spread over the bins it covers. */
static int
rd_hist_coarse(struct rd *r, const json_t *h, struct gp_prof_stat *s,
    uint64_t *sum)
{
	long long prev = -1;
	size_t i;
	json_t *e;

	if (!json_is_array(h))
		return (rd_fail(r, "expected an array, got %s",
		    gp_jsonpos_kind(h)));
	json_array_foreach(h, i, e) {
		json_t *b, *c;
		json_int_t bv, cv;

		rd_index(r, i);
		if (!json_is_array(e) || json_array_size(e) != 2 ||
		    !json_is_integer(b = json_array_get(e, 0)) ||
		    !json_is_integer(c = json_array_get(e, 1)))
			return (rd_fail(r, "expected a [bin, count] pair of "
			    "integers"));
		bv = json_integer_value(b);
		cv = json_integer_value(c);
		if (bv < 0 || bv >= GP_PROF_COARSE)
			return (rd_fail(r, "bin %lld is out of range (0 to "
			    "%d)", (long long)bv, GP_PROF_COARSE - 1));
		if (cv <= 0 || cv > UINT32_MAX)
			return (rd_fail(r, "count %lld is out of range (1 to "
			    "%u)", (long long)cv, UINT32_MAX));
		/* each bin once, in increasing order (as written) */
		if (bv <= prev)
			return (rd_fail(r, "bin %lld after bin %lld: the bins "
			    "must increase, each listed once", (long long)bv,
			    prev));
		prev = bv;
		gp_prof_stat_put_coarse(s, (int)bv, (uint64_t)cv);
		*sum += (uint64_t)cv;
		rd_pop(r);
	}
	return (0);
}

/* The histogram of stat s (its other members read), "FIRST: c c 0*k c"
 * (hist_to_json). */
static int
rd_hist(struct rd *r, const json_t *h, struct gp_prof_stat *s,
    uint64_t *sum)
{
	int b0 = gp_prof_bin(s->min), b1 = gp_prof_bin(s->max);
	const char *p;
	uint64_t b, c, k;

	if (!json_is_string(h))
		return (rd_fail(r, "expected a string, got %s",
		    gp_jsonpos_kind(h)));
	p = json_string_value(h);
	if (*p == '\0')
		return (0);
	if (!rd_num(&p, GP_PROF_NBINS - 1, &b) || *p++ != ':')
		return (rd_fail(r, "expected \"BIN: COUNT ...\" with a bin "
		    "from 0 to %d", GP_PROF_NBINS - 1));
	while (*p != '\0') {
		if (*p++ != ' ' || !rd_num(&p, UINT32_MAX, &c))
			return (rd_fail(r, "at bin %llu: expected \" COUNT\" "
			    "(0 to %u) or \" 0*RUN\"",
			    (unsigned long long)b, UINT32_MAX));
		k = 1;
		if (*p == '*' && (p++, c != 0 || !rd_num(&p, GP_PROF_NBINS,
		    &k) || k == 0))
			return (rd_fail(r, "at bin %llu: expected a run of "
			    "empty bins, 0*RUN", (unsigned long long)b));
		if (b + k > GP_PROF_NBINS)
			return (rd_fail(r, "bins past the last (%d)",
			    GP_PROF_NBINS - 1));
		/* a sample is between min and max */
		if (c != 0 && ((int)b < b0 || (int)b > b1))
			return (rd_fail(r, "bin %llu holds times outside min "
			    "and max (bins %d to %d)", (unsigned long long)b,
			    b0, b1));
		gp_prof_stat_put(s, (int)b, c);
		*sum += c;
		b += k;
	}
	return (0);
}

static int
rd_stat(struct rd *r, const json_t *o, struct gp_prof_stat *s)
{
	json_t *h;
	uint64_t sum = 0;

	gp_prof_stat_free(s);
	if (rd_u64(r, o, "calls", &s->n) < 0 ||
	    rd_u64(r, o, "total", &s->total) < 0 ||
	    rd_u64(r, o, "min", &s->min) < 0 ||
	    rd_u64(r, o, "max", &s->max) < 0)
		return (-1);
	if ((h = rd_get(r, o, "histogram", r->version == 1 ? "an array" :
	    "a string", false)) == NULL)
		return (-1);
	/* the bins are read against min and max */
	if (s->n > 0 && s->min > s->max)
		return (rd_stat_check(r, s));
	rd_key(r, "histogram");
	if ((r->version == 1 ? rd_hist_coarse(r, h, s, &sum) :
	    rd_hist(r, h, s, &sum)) < 0)
		return (-1);
	rd_pop(r);
	if (sum != s->n && s->n <= UINT32_MAX)
		return (rd_fail(r, "the histogram holds %llu samples but "
		    "calls is %llu", (unsigned long long)sum,
		    (unsigned long long)s->n));
	return (rd_stat_check(r, s));
}

static int
rd_dims(struct rd *r, const json_t *o, const char *key, int *ndim,
    int64_t *d, bool nonneg, bool nullable, bool *known)
{
	json_t *v = rd_get(r, o, key, "an array of integers", false);
	size_t i;
	json_t *e;

	if (v == NULL)
		return (-1);
	rd_key(r, key);
	if (nullable && json_is_null(v)) {
		*known = false;
		rd_pop(r);
		return (0);
	}
	if (!json_is_array(v))
		return (rd_fail(r, "expected an array of integers%s, got %s",
		    nullable ? " or null" : "", gp_jsonpos_kind(v)));
	if (*ndim >= 0 && json_array_size(v) != (size_t)*ndim)
		return (rd_fail(r, "%zu dimensions, but the shape has %d",
		    json_array_size(v), *ndim));
	if (json_array_size(v) > GP_MAX_DIMS)
		return (rd_fail(r, "%zu dimensions (at most %d)",
		    json_array_size(v), GP_MAX_DIMS));
	json_array_foreach(v, i, e) {
		if (!json_is_integer(e) || (nonneg &&
		    json_integer_value(e) < 0)) {
			rd_index(r, i);
			return (rd_fail(r, "expected a%s integer, got %s",
			    nonneg ? " non-negative" : "n", gp_jsonpos_kind(e)));
		}
		d[i] = json_integer_value(e);
	}
	*ndim = (int)json_array_size(v);
	if (known != NULL)
		*known = true;
	rd_pop(r);
	return (0);
}

/* An optional string member, copied; "" when missing. */
static int
rd_str_def(struct rd *r, const json_t *o, const char *key, char **out)
{
	if (rd_str(r, o, key, true, out) < 0)
		return (-1);
	if (*out == NULL)
		*out = gp_xstrdup("");
	return (0);
}

static int
rd_impl(struct rd *r, const json_t *o, enum gp_impl *out)
{
	json_t *v = rd_get(r, o, "impl", "an implementation name", false);
	struct gp_buf b = {0};
	int i;

	if (v == NULL)
		return (-1);
	for (i = 0; i < GP_IMPL__COUNT; i++)
		if (json_is_string(v) && strcmp(json_string_value(v),
		    gp_impl_names[i]) == 0) {
			*out = (enum gp_impl)i;
			return (0);
		}
	for (int k = 0; k < GP_IMPL__COUNT; k++)
		gp_buf_printf(&b, "%s%s", k ? ", " : "", gp_impl_names[k]);
	rd_key(r, "impl");
	rd_fail(r, "expected an implementation (%s)", gp_buf_str(&b));
	gp_buf_free(&b);
	return (-1);
}

/* The "ops" and "types" tables applies refer to. */
static int
rd_tables(struct rd *r, const json_t *top)
{
	json_t *t, *e;
	size_t i;

	if ((t = rd_container(r, top, "ops", true, false)) == NULL)
		return (-1);
	rd_key(r, "ops");
	if (json_array_size(t) > MAX_APPLIES)
		return (rd_fail(r, "too many ops"));
	r->ops = gp_xcalloc(json_array_size(t) + 1, sizeof(*r->ops));
	json_array_foreach(t, i, e) {
		struct rd_op *op = &r->ops[i];
		const char **dst[3] = {&op->op, &op->cls, &op->opname};
		static const char *const keys[3] = {"op", "class", "opname"};

		rd_index(r, i);
		if (rd_object_here(r, e) < 0)
			return (-1);
		for (int k = 0; k < 3; k++) {
			json_t *v = rd_get(r, e, keys[k], "a string", false);

			if (v == NULL)
				return (-1);
			if (!json_is_string(v)) {
				rd_key(r, keys[k]);
				return (rd_fail(r, "expected a string, got %s",
				    gp_jsonpos_kind(v)));
			}
			*dst[k] = json_string_value(v);
		}
		if (rd_impl(r, e, &op->impl) < 0)
			return (-1);
		rd_pop(r);
	}
	r->n_ops = (int)json_array_size(t);
	rd_pop(r);

	if ((t = rd_container(r, top, "types", true, false)) == NULL)
		return (-1);
	rd_key(r, "types");
	if (json_array_size(t) > MAX_APPLIES)
		return (rd_fail(r, "too many types"));
	r->types = gp_xcalloc(json_array_size(t) + 1, sizeof(*r->types));
	json_array_foreach(t, i, e) {
		struct gp_prof_io *io = &r->types[i];
		json_t *v;

		rd_index(r, i);
		if (rd_object_here(r, e) < 0)
			return (-1);
		if ((v = rd_get(r, e, "dtype", "a dtype name", false)) == NULL)
			return (-1);
		rd_key(r, "dtype");
		if (!json_is_string(v) || !gp_dtype_parse(json_string_value(v),
		    &io->dtype))
			return (rd_fail(r, "expected a dtype (%s)",
			    gp_dtype_names()));
		rd_pop(r);
		io->ndim = -1;
		if (rd_dims(r, e, "shape", &io->ndim, io->shape, true, false,
		    NULL) < 0 || rd_dims(r, e, "strides", &io->ndim,
		    io->strides, false, true, &io->strides_known) < 0 ||
		    rd_u64(r, e, "nbytes", &io->nbytes) < 0)
			return (-1);
		rd_pop(r);
	}
	r->n_types = (int)json_array_size(t);
	rd_pop(r);
	return (0);
}

/* An input [var, type, producer] or an output [var, type, alias]. */
static int
rd_io(struct rd *r, const json_t *t, struct gp_prof_io *io, bool out,
    int *producer, int id)
{
	static const char *const what_in = "an input [var, type, producer]";
	static const char *const what_out = "an output [var, type] or "
	    "[var, type, alias]";
	json_t *var, *type, *third;
	const char *s;

	if (!json_is_array(t) || (json_array_size(t) != 3 &&
	    !(out && json_array_size(t) == 2)))
		return (rd_fail(r, "expected %s, got %s", out ? what_out :
		    what_in, json_is_array(t) ? "another length" :
		    gp_jsonpos_kind(t)));
	var = json_array_get(t, 0);
	type = json_array_get(t, 1);
	third = json_array_get(t, 2);
	if (!json_is_string(var)) {
		rd_index(r, 0);
		return (rd_fail(r, "the variable: expected a string, got %s",
		    gp_jsonpos_kind(var)));
	}
	if (!json_is_integer(type) || json_integer_value(type) < 0 ||
	    json_integer_value(type) >= r->n_types) {
		rd_index(r, 1);
		return (rd_fail(r, "the type: expected an index into types "
		    "(0 to %d)", r->n_types - 1));
	}
	*io = r->types[json_integer_value(type)];
	io->var = gp_text_dup(json_string_value(var));
	if (!out) {
		if (!json_is_integer(third) || json_integer_value(third) < -1 ||
		    json_integer_value(third) >= id) {
			rd_index(r, 2);
			return (rd_fail(r, "the producer: expected an earlier "
			    "apply (-1 to %d)", id - 1));
		}
		*producer = (int)json_integer_value(third);
		return (0);
	}
	s = third == NULL ? "created" : json_is_string(third) ?
	    json_string_value(third) : "";
	if (strcmp(s, "created") == 0)
		io->alias = 'c';
	else if (strcmp(s, "view") == 0)
		io->alias = 'v';
	else if (strcmp(s, "inplace") == 0)
		io->alias = 'i';
	else {
		rd_index(r, 2);
		return (rd_fail(r, "the alias: expected \"created\", \"view\" "
		    "or \"inplace\""));
	}
	return (0);
}

static int
rd_ios(struct rd *r, const json_t *o, const char *key, bool out,
    struct gp_prof_apply *a, int idx)
{
	json_t *v = rd_container(r, o, key, true, false), *e;
	int max = out ? GP_MAX_OUT : MAX_IO;
	struct gp_prof_io *io;
	size_t i, n;

	if (v == NULL)
		return (-1);
	rd_key(r, key);
	n = json_array_size(v);
	if (n > (size_t)max)
		return (rd_fail(r, "%zu %s (at most %d)", n, key, max));
	/* counts only with the arrays, so a failed load frees cleanly */
	io = gp_xcalloc(n + 1, sizeof(*io));
	if (out) {
		a->out = io;
		a->n_out = (int)n;
	} else {
		a->in = io;
		a->in_producer = gp_xcalloc(n + 1, sizeof(int));
		a->n_in = (int)n;
	}
	json_array_foreach(v, i, e) {
		rd_index(r, i);
		if (rd_io(r, e, &io[i], out, out ? NULL : &a->in_producer[i],
		    idx) < 0)
			return (-1);
		rd_pop(r);
	}
	rd_pop(r);
	return (0);
}

static int
rd_apply(struct rd *r, const json_t *o, struct gp_prof_apply *a, int idx)
{
	const struct rd_op *op;
	json_t *v;
	int k;

	if (rd_object_here(r, o) < 0 ||
	    rd_int(r, o, "id", 0, INT32_MAX, &a->id) < 0)
		return (-1);
	if (a->id != idx) {
		rd_key(r, "id");
		return (rd_fail(r, "apply %d is at position %d: applies "
		    "must be in schedule order", a->id, idx));
	}
	if (rd_str(r, o, "name", true, &a->name) < 0)
		return (-1);
	if (r->n_ops == 0) {
		rd_key(r, "op");
		return (rd_fail(r, "the ops table is empty"));
	}
	if (rd_int(r, o, "op", 0, r->n_ops - 1, &k) < 0)
		return (-1);
	op = &r->ops[k];
	/* strings from a capture, as the terminal may see them: what it
	 * would act on (ESC, BEL, C1) escaped (also in rd_str, rd_io) */
	a->op = gp_text_dup(op->op);
	a->cls = gp_text_dup(op->cls);
	a->opname = gp_text_dup(op->opname);
	a->impl = op->impl;
	if (rd_str_def(r, o, "node", &a->node) < 0 ||
	    rd_str_def(r, o, "extra", &a->extra) < 0 ||
	    rd_real(r, o, "flops", &a->flops) < 0)
		return (-1);
	v = rd_member(r, o, "link_ns");
	if (v != NULL && rd_real(r, o, "link_ns", &a->link_ns) < 0)
		return (-1);
	v = rd_member(r, o, "jit_ns");
	if (v != NULL && rd_real(r, o, "jit_ns", &a->jit_ns) < 0)
		return (-1);
	if (rd_ios(r, o, "inputs", false, a, idx) < 0 ||
	    rd_ios(r, o, "outputs", true, a, idx) < 0)
		return (-1);
	if (rd_stat(r, o, &a->st) < 0 ||
	    rd_u64(r, o, "first_ns", &a->first_ns) < 0)
		return (-1);
	if (a->name == NULL)
		a->name = default_name(a->op, a->in, a->n_in);
	return (0);
}

/*
 * The optional "memory" member of function fn (of n_fn), for f whose
 * applies are read.  memprof.c checks it and says "PATH: what" with the
 * path below this member's; its steps are pushed here so that the message
 * gets the line and column of the bad value like every other.
 */
static int
rd_memory(struct rd *r, const json_t *v, struct gp_prof_fn *f, int fn,
    int n_fn)
{
	struct gp_buf pre = {0};
	struct gp_err e;
	char keys[RD_DEPTH][32];
	const char *s;
	int depth = r->depth, nk = 0, rc = 0;

	rd_key(r, "memory");
	rd_path(r, &pre);
	f->mem = gp_memprof_from_json(v, f, fn, n_fn, gp_buf_str(&pre), &e);
	if (f->mem == NULL) {
		s = strncmp(e.msg, gp_buf_str(&pre), pre.len) == 0 ?
		    e.msg + pre.len : "";
		while ((*s == '.' || *s == '[') && nk < RD_DEPTH) {
			size_t n;

			if (*s == '[') {
				char *end;
				unsigned long long i = strtoull(s + 1, &end,
				    10);

				if (end == s + 1 || *end != ']')
					break;
				rd_index(r, (size_t)i);
				s = end + 1;
				continue;
			}
			n = strspn(s + 1, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			if (n == 0 || n >= sizeof(keys[0]))
				break;
			memcpy(keys[nk], s + 1, n);
			keys[nk][n] = '\0';
			rd_key(r, keys[nk++]);
			s += 1 + n;
		}
		if (s[0] == ':' && s[1] == ' ')
			rc = rd_fail(r, "%s", s + 2);
		else {
			/* not the form expected: the message as it is */
			r->depth = depth + 1;
			rc = rd_fail(r, "%s", e.msg);
		}
	}
	r->depth = depth;
	gp_buf_free(&pre);
	return (rc);
}

/*
 * Split reading.  jansson parses at one speed, and nearly all of a large
 * capture is the first function's "applies" array, so the array is cut at
 * element boundaries into chunks, and two threads share the work: this
 * one parses the rest of the document (the array emptied) and reads it,
 * and both parse chunks and read the applies of parsed chunks (once the
 * chunks before are parsed, which places their applies), taking whatever
 * is there to do next.  Each chunk is wrapped in as many brackets as
 * enclose the array, so that jansson's depth limit falls where it does in
 * the whole text.  When the rest parses with the array empty where the
 * scanner found it, and each chunk parses to a list of at least one
 * element inside exactly its wrapping, the whole text parses to the same
 * tree; anything else (a piece that does not parse, a value that does not
 * read) and the text is read again in one piece, which gives the messages
 * of a reading in one piece.
 */

/* Splitting pays off from this much array text on. */
#define SPLIT_MIN	((size_t)1 << 20)
/* About this much array text to a chunk, and at most this many chunks. */
#define SPLIT_CHUNK	((size_t)1 << 20)
#define SPLIT_MAX	64
/* The array's depth: the document, "functions", a function, "applies". */
#define SPLIT_DEPTH	4

struct chunk {
	size_t		 from, to;	/* text[from, to) */
	json_t		*root;
	json_t		*elems;		/* the array in the wrapping */
	/* the rest under split.lock */
	bool		 done;		/* parsed */
	bool		 mine;		/* parsed on split.arena[0] */
	int		 read;		/* 0 not yet, 1 being read, 2 read */
	size_t		 base;		/* its first apply's index, once known */
};

struct split {
	const char		*text;
	json_t			*rest;	/* the document, the array emptied */
	struct chunk		 ck[SPLIT_MAX];
	int			 n_ck;
	pthread_mutex_t		 lock;
	pthread_cond_t		 cond;	/* something changed */
	/* under lock: */
	int			 next;	/* the next chunk to parse */
	int			 known;	/* chunks [0, known) are placed */
	int			 n_read;	/* chunks read */
	bool			 stop;	/* do no more */
	bool			 failed;	/* a chunk did not parse or read */
	const struct rd		*rd;	/* how to read, once applies can be */
	struct gp_prof_apply	*ap;	/* where they go */
	size_t			 n_ap;
	pthread_t		 th;
	bool			 running;	/* th is working */
	/* this thread's jansson memory, and the other's */
	struct gp_json_arena	 arena[2];
};

/* Parse text[from, to) (when wrap, in SPLIT_DEPTH brackets). */
static json_t *
parse_text(const char *text, size_t from, size_t to, bool wrap)
{
	size_t n = to - from, w = wrap ? SPLIT_DEPTH : 0;
	json_t *root;
	char *b = gp_xmalloc(n + 2 * w + 1);

	memset(b, '[', w);
	memcpy(b + w, text + from, n);
	memset(b + w + n, ']', w);
	root = json_loadb(b, n + 2 * w, JSON_REJECT_DUPLICATES, NULL);
	free(b);
	return (root);
}

/*
 * Do one thing there is to do, as thread `me` (0 this one, 1 the other),
 * reading with r (the other thread's r is a copy of split.rd, taken when
 * that is set): read a parsed and placed chunk's applies, or else parse
 * the next chunk.  1 when something was done, 0 after waiting for
 * something to do, -1 when there will be nothing more.
 */
static int
split_step(struct split *sp, struct rd *r, int me)
{
	struct chunk *c = NULL;
	bool parse = false, good = true;
	size_t m;
	int k;

	pthread_mutex_lock(&sp->lock);
	if (sp->stop || sp->failed) {
		pthread_mutex_unlock(&sp->lock);
		return (-1);
	}
	if (r->name == NULL && sp->rd != NULL) {
		struct gp_err *e = r->err;

		*r = *sp->rd;
		r->err = e;
	}
	for (k = 0; r->name != NULL && k < sp->known && c == NULL; k++)
		if (sp->ck[k].read == 0)
			c = &sp->ck[k];
	if (c != NULL)
		c->read = 1;
	else if (sp->next < sp->n_ck) {
		c = &sp->ck[sp->next++];
		parse = true;
	} else {
		for (k = 0; k < sp->n_ck && sp->ck[k].read != 0; k++)
			continue;
		if (k == sp->n_ck) {
			pthread_mutex_unlock(&sp->lock);
			return (-1);
		}
		/* a chunk is being parsed, or cannot be read yet */
		pthread_cond_wait(&sp->cond, &sp->lock);
		pthread_mutex_unlock(&sp->lock);
		return (0);
	}
	pthread_mutex_unlock(&sp->lock);

	if (parse) {
		json_t *e;

		gp_json_arena_enter(&sp->arena[me]);
		c->root = parse_text(sp->text, c->from, c->to, true);
		gp_json_arena_leave(&sp->arena[me]);
		/* one element at each level of the wrapping, then the
		 * array */
		e = c->root;
		for (int d = 1; d < SPLIT_DEPTH && e != NULL; d++)
			e = json_array_size(e) == 1 ? json_array_get(e, 0) :
			    NULL;
		pthread_mutex_lock(&sp->lock);
		/* at least one element: ",," does not parse */
		c->elems = json_array_size(e) > 0 ? e : NULL;
		c->mine = me == 0;
		c->done = true;
		if (c->elems == NULL)
			sp->failed = true;
		/* place the chunks parsed so far */
		for (; sp->known < sp->n_ck && sp->ck[sp->known].done &&
		    !sp->failed; sp->known++) {
			k = sp->known;
			sp->ck[k].base = k == 0 ? 0 : sp->ck[k - 1].base +
			    json_array_size(sp->ck[k - 1].elems);
		}
		pthread_cond_broadcast(&sp->cond);
		pthread_mutex_unlock(&sp->lock);
		return (1);
	}

	/* read: the applies go to their places, each chunk's its own */
	m = json_array_size(c->elems);
	if (c->base > sp->n_ap || m > sp->n_ap - c->base)
		good = false;
	for (size_t j = 0; good && j < m; j++) {
		size_t i = c->base + j;

		rd_index(r, i);
		good = rd_apply(r, json_array_get(c->elems, j), &sp->ap[i],
		    (int)i) == 0;
		rd_pop(r);
	}
	pthread_mutex_lock(&sp->lock);
	c->read = 2;
	sp->n_read++;
	if (!good)
		sp->failed = true;
	pthread_cond_broadcast(&sp->cond);
	pthread_mutex_unlock(&sp->lock);
	return (1);
}

/* The other thread: whatever there is to do, till there is no more. */
static void *
split_worker(void *vp)
{
	struct split *sp = vp;
	struct gp_err scratch;
	struct rd r = {.err = &scratch};

	(void)arena_begin(&sp->arena[1], READ_ARENA(sp->ck[sp->n_ck - 1].to -
	    sp->ck[0].from), true);
	gp_json_arena_leave(&sp->arena[1]);
	while (split_step(sp, &r, 1) >= 0)
		continue;
	return (NULL);
}

/* Tell the other thread to stop, and wait till it has. */
static void
split_stop(struct split *sp)
{
	pthread_mutex_lock(&sp->lock);
	sp->stop = true;
	pthread_cond_broadcast(&sp->cond);
	pthread_mutex_unlock(&sp->lock);
	if (sp->running)
		pthread_join(sp->th, NULL);
	sp->running = false;
}

static void
split_end(struct split *sp)
{
	split_stop(sp);
	/* what went to malloc, when an arena filled up (or there was none) */
	for (int k = 0; k < sp->n_ck; k++) {
		struct gp_json_arena *a = &sp->arena[sp->ck[k].mine ? 0 : 1];

		if (a->base == NULL || a->spilled)
			json_decref(sp->ck[k].root);
	}
	gp_json_arena_end(&sp->arena[1], NULL);
	gp_json_arena_end(&sp->arena[0], sp->rest);
	pthread_cond_destroy(&sp->cond);
	pthread_mutex_destroy(&sp->lock);
}

/*
 * Find the first function's applies in text, cut them into chunks and
 * start parsing: the chunks on a thread of its own, the rest here (this
 * thread parses chunks too, as it reads them).  false (sp unused) when the
 * text is small or not laid out as gptop writes it.
 */
static bool
split_begin(struct split *sp, const char *text, size_t len)
{
	static const struct gp_jsonpos_step first[] = {
		{.key = "functions"}, {.index = 0}, {.key = "applies"},
		{.index = 0}
	};
	size_t open, close, from, e0, e1, step;
	const char *end, *nl = NULL;
	int n;

	memset(sp, 0, sizeof(*sp));
	if (len < SPLIT_MIN || gp_jsonpos_span(text, len, first, 4, &e0,
	    &e1) < 0)
		return (false);
	/* the array's bracket: only white space before its first element */
	for (open = e0; open > 0 && (text[open - 1] == ' ' ||
	    text[open - 1] == '\n' || text[open - 1] == '\t' ||
	    text[open - 1] == '\r'); open--)
		continue;
	if (open == 0 || text[--open] != '[')
		return (false);
	/* its end: an apply per line, then "  ]" on a line of its own (a
	 * newline is never inside a string) */
	for (end = text + e1; (end = memchr(end, '\n', (size_t)(text + len -
	    end))) != NULL; end++)
		if (text + len - end >= 4 && memcmp(end, "\n  ]", 4) == 0)
			break;
	if (end == NULL)
		return (false);
	close = (size_t)(end - text) + 3;
	if (close - open < SPLIT_MIN)
		return (false);
	/* the cuts: commas that end a line, about a chunk apart */
	n = (int)((close - open) / SPLIT_CHUNK);
	n = n < 2 ? 2 : n > SPLIT_MAX ? SPLIT_MAX : n;
	step = (close - open) / (size_t)n;
	from = open + 1;
	for (int k = 0; k < n - 1; k++) {
		size_t at = open + step * (size_t)(k + 1);

		/* past the last cut's newline: no chunk is empty */
		if (at <= from)
			at = from + 1;
		while (at < close && (nl = memchr(text + at, '\n', close -
		    at)) != NULL && nl[-1] != ',')
			at = (size_t)(nl - text) + 1;
		if (at >= close || nl == NULL)
			break;
		at = (size_t)(nl - text) - 1;
		sp->ck[sp->n_ck++] = (struct chunk){.from = from, .to = at};
		from = at + 1;
	}
	sp->ck[sp->n_ck++] = (struct chunk){.from = from, .to = close};
	sp->text = text;
	pthread_mutex_init(&sp->lock, NULL);
	pthread_cond_init(&sp->cond, NULL);
	/* this thread's arena first: it installs jansson's hooks */
	arena_begin(&sp->arena[0], READ_ARENA(len), true);
	gp_json_arena_leave(&sp->arena[0]);
	sp->running = pthread_create(&sp->th, NULL, split_worker, sp) == 0;
	gp_json_arena_enter(&sp->arena[0]);
	{
		/* the rest: the document up to and from the brackets */
		char *b = gp_xmalloc(open + 1 + len - close + 1);

		memcpy(b, text, open + 1);
		memcpy(b + open + 1, text + close, len - close);
		sp->rest = json_loadb(b, open + 1 + len - close,
		    JSON_REJECT_DUPLICATES, NULL);
		free(b);
	}
	gp_json_arena_leave(&sp->arena[0]);
	return (true);
}

/* The first function's applies, n of them, from the chunks of a split
 * parse (v is the emptied array); -1 on any fault, which the reading in
 * one piece tells. */
static int
rd_applies_split(struct rd *r, const json_t *v, struct gp_prof_fn *f, int n)
{
	struct split *sp = r->sp;
	struct chunk *last = &sp->ck[sp->n_ck - 1];
	struct rd tmpl;
	bool good;

	if (json_array_size(v) != 0)
		return (-1);
	/* n_apply only with the array, so a failed load frees cleanly */
	f->ap = gp_xcalloc((size_t)n + 1, sizeof(*f->ap));
	f->n_apply = n;
	/* how the other thread reads: with these tables */
	tmpl = *r;
	tmpl.depth = 0;
	tmpl.sp = NULL;
	tmpl.cur_o = NULL;
	tmpl.cur_it = NULL;
	pthread_mutex_lock(&sp->lock);
	sp->ap = f->ap;
	sp->n_ap = (size_t)n;
	sp->rd = &tmpl;
	pthread_cond_broadcast(&sp->cond);
	pthread_mutex_unlock(&sp->lock);
	while (split_step(sp, r, 0) >= 0)
		continue;
	/* the other thread's last chunk */
	pthread_mutex_lock(&sp->lock);
	while (!sp->failed && sp->n_read < sp->n_ck)
		pthread_cond_wait(&sp->cond, &sp->lock);
	good = !sp->failed && last->base + json_array_size(last->elems) ==
	    (size_t)n;
	pthread_mutex_unlock(&sp->lock);
	/* nothing may write to f->ap once this returns */
	split_stop(sp);
	return (good ? 0 : -1);
}

static int
rd_function(struct rd *r, const json_t *o, struct gp_prof_fn *f, int fn,
    int n_fn)
{
	json_t *v, *e;
	int every;
	uint64_t rec[GP_PROF_RECENT];
	size_t i;
	int n;

	if (rd_object_here(r, o) < 0 || rd_str(r, o, "name", false,
	    &f->name) < 0)
		return (-1);
	if ((v = rd_container(r, o, "call", false, false)) == NULL)
		return (-1);
	rd_key(r, "call");
	if (rd_stat(r, v, &f->call) < 0)
		return (-1);
	rd_pop(r);
	if (rd_u64(r, o, "vm_ns", &f->vm_ns) < 0 ||
	    rd_u64(r, o, "thunk_ns", &f->thunk_ns) < 0 ||
	    rd_u64(r, o, "first_call_ns", &f->first_call_ns) < 0 ||
	    rd_u64(r, o, "calls_seen", &f->calls_seen) < 0 ||
	    rd_u64(r, o, "mem_peak_measured", &f->mem_peak_measured) < 0)
		return (-1);
	/* derived from "memory" (doc/capture-format.md): checked, then
	 * recomputed */
	if (json_object_get(o, "mem_peak_predicted") != NULL) {
		uint64_t pred;

		if (rd_u64(r, o, "mem_peak_predicted", &pred) < 0)
			return (-1);
	}
	/* sampling came later: a capture without it timed every call */
	f->timed = f->call.n;
	f->every = 1;
	if ((json_object_get(o, "timed_calls") != NULL &&
	    rd_u64(r, o, "timed_calls", &f->timed) < 0) ||
	    (json_object_get(o, "sample_every") != NULL &&
	    rd_int(r, o, "sample_every", 1, 1 << 20, &every) < 0))
		return (-1);
	if (json_object_get(o, "sample_every") != NULL)
		f->every = (uint32_t)every;
	if (f->timed > f->call.n) {
		rd_key(r, "timed_calls");
		return (rd_fail(r, "%llu calls timed, more than the %llu "
		    "counted", (unsigned long long)f->timed,
		    (unsigned long long)f->call.n));
	}
	if (f->calls_seen < f->call.n) {
		rd_key(r, "calls_seen");
		return (rd_fail(r, "%llu calls seen, fewer than the %llu "
		    "counted", (unsigned long long)f->calls_seen,
		    (unsigned long long)f->call.n));
	}
	if ((v = rd_container(r, o, "recent", true, false)) == NULL)
		return (-1);
	rd_key(r, "recent");
	if (json_array_size(v) > GP_PROF_RECENT ||
	    json_array_size(v) > f->call.n)
		return (rd_fail(r, "%zu entries (at most the number of calls,"
		    " %llu, and at most %d)", json_array_size(v),
		    (unsigned long long)f->call.n, GP_PROF_RECENT));
	json_array_foreach(v, i, e) {
		if (!json_is_integer(e) || json_integer_value(e) < 0) {
			rd_index(r, i);
			return (rd_fail(r, "expected a non-negative integer, "
			    "got %s", gp_jsonpos_kind(e)));
		}
		rec[i] = (uint64_t)json_integer_value(e);
	}
	recent_set(f, rec, (int)json_array_size(v));
	rd_pop(r);
	if (rd_int(r, o, "n_applies", 0, MAX_APPLIES, &n) < 0)
		return (-1);
	if ((v = rd_container(r, o, "applies", true, false)) == NULL)
		return (-1);
	rd_key(r, "applies");
	if (r->sp != NULL && fn == 0) {
		if (rd_applies_split(r, v, f, n) < 0)
			return (-1);
		rd_pop(r);
		goto memory;
	}
	if (json_array_size(v) != (size_t)n)
		return (rd_fail(r, "%zu applies, but n_applies says %d",
		    json_array_size(v), n));
	/* n_apply only with the array, so a failed load frees cleanly */
	f->ap = gp_xcalloc((size_t)n + 1, sizeof(*f->ap));
	f->n_apply = n;
	json_array_foreach(v, i, e) {
		rd_index(r, i);
		if (rd_apply(r, e, &f->ap[i], (int)i) < 0)
			return (-1);
		rd_pop(r);
	}
	rd_pop(r);
memory:
	/* MEMPROF-JSON: the memory profile, which refers to the applies */
	v = json_object_get(o, "memory");
	if (v != NULL && !json_is_null(v) && rd_memory(r, v, f, fn, n_fn) < 0)
		return (-1);
	return (0);
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
rd_info(struct rd *r, const json_t *top, struct gp_capture_info *ci)
{
	json_t *m, *a, *e;
	size_t i;

	if (rd_str(r, top, "created", true, &ci->created) < 0 ||
	    rd_str(r, top, "gptop", true, &ci->gptop) < 0)
		return (-1);
	m = json_object_get(top, "machine");
	if (m != NULL) {
		rd_key(r, "machine");
		if (rd_object_here(r, m) < 0 ||
		    rd_str(r, m, "cpu", true, &ci->cpu) < 0 ||
		    rd_str(r, m, "os", true, &ci->os) < 0 ||
		    rd_str(r, m, "compiler", true, &ci->cc) < 0 ||
		    rd_str(r, m, "compiler_version", true,
		    &ci->cc_version) < 0 ||
		    rd_str(r, m, "blas", true, &ci->blas) < 0)
			return (-1);
		if (json_object_get(m, "cores") != NULL &&
		    rd_int(r, m, "cores", 0, INT32_MAX, &ci->cores) < 0)
			return (-1);
		rd_pop(r);
	}
	a = rd_container(r, top, "merged_from", true, true);
	if (a == NULL)
		return (json_object_get(top, "merged_from") != NULL ? -1 : 0);
	ci->src = gp_xcalloc(json_array_size(a) + 1, sizeof(*ci->src));
	rd_key(r, "merged_from");
	json_array_foreach(a, i, e) {
		rd_index(r, i);
		ci->n_src++;
		if (rd_object_here(r, e) < 0 ||
		    rd_str(r, e, "path", false, &ci->src[i].path) < 0 ||
		    rd_str(r, e, "created", true, &ci->src[i].created) < 0)
			return (-1);
		rd_pop(r);
	}
	rd_pop(r);
	return (0);
}

static int
rd_format(struct rd *r, const json_t *top, int *version)
{
	json_t *v = json_object_get(top, "format");
	const char *s, *v0;
	char *end = NULL;
	long n;

	if (v == NULL)
		return (rd_fail(r, "not a gptop capture: no \"format\" member "
		    "(expected \"%s\")", GP_CAPTURE_FORMAT));
	rd_key(r, "format");
	if (!json_is_string(v))
		return (rd_fail(r, "expected the string \"%s\", got %s",
		    GP_CAPTURE_FORMAT, gp_jsonpos_kind(v)));
	s = json_string_value(v);
	if (strncmp(s, GP_CAPTURE_PREFIX, strlen(GP_CAPTURE_PREFIX) - 1) != 0)
		return (rd_fail(r, "\"%s\" is not a gptop capture (expected "
		    "\"%s\")", s, GP_CAPTURE_FORMAT));
	v0 = s + strlen(GP_CAPTURE_PREFIX);
	errno = 0;
	n = s[strlen(GP_CAPTURE_PREFIX) - 1] == '/' ? strtol(v0, &end, 10) :
	    0;
	if (n < 1 || *v0 < '0' || *v0 > '9' || *end != '\0' || errno != 0)
		return (rd_fail(r, "unknown capture format \"%s\" (expected "
		    "\"%s\")", s, GP_CAPTURE_FORMAT));
	if (n > GP_CAPTURE_VERSION)
		return (rd_fail(r, "written by a newer gptop (format \"%s%ld\";"
		    " this gptop %s reads \"%s\")", GP_CAPTURE_PREFIX, n,
		    PACKAGE_VERSION, GP_CAPTURE_FORMAT));
	rd_pop(r);
	*version = (int)n;
	return (0);
}

static int
rd_profile(struct rd *r, const json_t *top, struct gp_profile *p)
{
	json_t *o, *v, *e;
	char *s = NULL, *end;
	size_t i;

	if ((o = rd_container(r, top, "graph", false, false)) == NULL)
		return (-1);
	rd_key(r, "graph");
	if (rd_str(r, o, "name", false, &p->graph) < 0 ||
	    rd_str(r, o, "path", false, &p->path) < 0 ||
	    rd_str(r, o, "hash", false, &s) < 0)
		return (-1);
	errno = 0;
	p->graph_hash = strtoull(s, &end, 16);
	if (strlen(s) != 16 || *end != '\0' || errno != 0) {
		free(s);
		rd_key(r, "hash");
		return (rd_fail(r, "expected 16 hexadecimal digits"));
	}
	free(s);
	if (rd_int(r, o, "nodes", -1, INT32_MAX, &p->n_nodes) < 0)
		return (-1);
	rd_pop(r);
	if (rd_str(r, top, "flags", false, &p->flags) < 0 ||
	    rd_str(r, top, "rewrites", false, &p->rewrites) < 0 ||
	    rd_bool(r, top, "ignore_first_call", &p->ignore_first) < 0)
		return (-1);
	if ((o = rd_container(r, top, "clock", false, false)) == NULL)
		return (-1);
	rd_key(r, "clock");
	if (rd_str(r, o, "source", false, &s) < 0)
		return (-1);
	p->clock.source = clock_source(s);
	free(s);
	if (rd_real(r, o, "tsc_ghz", &p->clock.tsc_ghz) < 0 ||
	    rd_real(r, o, "resolution_ns", &p->clock.resolution_ns) < 0 ||
	    rd_real(r, o, "probe_ns", &p->clock.probe_ns) < 0)
		return (-1);
	rd_pop(r);
	if ((o = rd_container(r, top, "compile", false, false)) == NULL)
		return (-1);
	rd_key(r, "compile");
	if (rd_real(r, o, "load_ns", &p->load_ns) < 0 ||
	    rd_real(r, o, "rewrite_ns", &p->rewrite_ns) < 0 ||
	    rd_real(r, o, "link_ns", &p->link_ns) < 0)
		return (-1);
	rd_pop(r);

	if ((o = rd_container(r, top, "phases", true, false)) == NULL)
		return (-1);
	rd_key(r, "phases");
	if (json_array_size(o) > MAX_RW)
		return (rd_fail(r, "too many phases"));
	p->phase = gp_xcalloc(json_array_size(o) + 1, sizeof(*p->phase));
	json_array_foreach(o, i, e) {
		struct gp_prof_phase *ph = &p->phase[i];

		rd_index(r, i);
		p->n_phase++;
		if (rd_object_here(r, e) < 0 ||
		    rd_str(r, e, "name", false, &ph->name) < 0 ||
		    rd_real(r, e, "time_ns", &ph->time_ns) < 0 ||
		    rd_int(r, e, "passes", 0, INT32_MAX, &ph->passes) < 0 ||
		    rd_int(r, e, "nodes_before", -1, INT32_MAX,
		    &ph->nodes_before) < 0 ||
		    rd_int(r, e, "nodes_after", -1, INT32_MAX,
		    &ph->nodes_after) < 0)
			return (-1);
		rd_pop(r);
	}
	rd_pop(r);

	if ((o = rd_container(r, top, "rewriters", true, false)) == NULL)
		return (-1);
	rd_key(r, "rewriters");
	if (json_array_size(o) > MAX_RW)
		return (rd_fail(r, "too many rewriters"));
	p->rw = gp_xcalloc(json_array_size(o) + 1, sizeof(*p->rw));
	json_array_foreach(o, i, e) {
		struct gp_prof_rewriter *rw = &p->rw[i];

		rd_index(r, i);
		p->n_rw++;
		if (rd_object_here(r, e) < 0 ||
		    rd_str(r, e, "name", false, &rw->name) < 0 ||
		    rd_str(r, e, "tags", false, &rw->tags) < 0 ||
		    rd_str(r, e, "phase", false, &rw->phase) < 0 ||
		    rd_bool(r, e, "enabled", &rw->enabled) < 0 ||
		    rd_real(r, e, "time_ns", &rw->time_ns) < 0 ||
		    rd_int(r, e, "applied", 0, INT32_MAX, &rw->applied) < 0 ||
		    rd_int(r, e, "tried", 0, INT32_MAX, &rw->tried) < 0 ||
		    rd_int(r, e, "nodes_before", -1, INT32_MAX,
		    &rw->nodes_before) < 0 ||
		    rd_int(r, e, "nodes_after", -1, INT32_MAX,
		    &rw->nodes_after) < 0)
			return (-1);
		rd_pop(r);
	}
	rd_pop(r);

	if (rd_tables(r, top) < 0)
		return (-1);
	if ((v = rd_container(r, top, "functions", true, false)) == NULL)
		return (-1);
	rd_key(r, "functions");
	if (json_array_size(v) > MAX_FUNCTIONS)
		return (rd_fail(r, "too many functions"));
	p->fn = gp_xcalloc(json_array_size(v) + 1, sizeof(*p->fn));
	json_array_foreach(v, i, e) {
		rd_index(r, i);
		p->n_fn++;
		if (rd_function(r, e, &p->fn[i], (int)i,
		    (int)json_array_size(v)) < 0)
			return (-1);
		rd_pop(r);
	}
	rd_pop(r);
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
rd_capture(struct rd *r, const json_t *top, struct gp_capture_info *ci)
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

/* A large capture read in pieces (see split_begin), or NULL when it is
 * not laid out for that or any piece does not parse or read: the caller
 * reads it whole then, for the message. */
static struct gp_profile *
load_split(const char *text, size_t len, const char *name,
    struct gp_capture_info *ci)
{
	struct gp_err scratch;
	/* no positions for faults nobody is told of */
	struct rd r = {.name = name, .len = len, .err = &scratch};
	struct gp_profile *p = NULL;
	struct split sp;

	if (!split_begin(&sp, text, len))
		return (NULL);
	r.sp = &sp;
	if (json_is_object(sp.rest))
		p = rd_capture(&r, sp.rest, ci);
	split_end(&sp);
	free(r.ops);
	free(r.types);
	return (p);
}

struct gp_profile *
gp_capture_load_buf(const char *text, size_t len, const char *name,
    struct gp_capture_info *ci, struct gp_err *err)
{
	struct rd r = {.name = name, .text = text, .len = len, .err = err};
	struct gp_profile *p = NULL;
	struct gp_json_arena arena;
	json_error_t je;
	json_t *top;

	if (len == 0) {
		gp_err_set(err, "%s: empty file (not a gptop capture)", name);
		return (NULL);
	}
	if ((p = load_split(text, len, name, ci)) != NULL)
		return (p);
	/* the tree is never freed value by value: the arena goes whole */
	arena_begin(&arena, READ_ARENA(len), true);
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
	if (p < end && *p == '{') {
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

/*
 * Merging.
 */

static bool
io_same(const struct gp_prof_io *a, const struct gp_prof_io *b)
{
	if (a->dtype != b->dtype || a->ndim != b->ndim)
		return (false);
	for (int d = 0; d < a->ndim; d++)
		if (a->shape[d] != b->shape[d])
			return (false);
	return (true);
}

int
gp_capture_compatible(const struct gp_profile *a, const struct gp_profile *b,
    struct gp_err *err)
{
	if (a->graph_hash != b->graph_hash)
		return (gp_err_set(err, "different graphs (hash %016llx, "
		    "%016llx)", (unsigned long long)a->graph_hash,
		    (unsigned long long)b->graph_hash));
	if (strcmp(a->rewrites ? a->rewrites : "", b->rewrites ?
	    b->rewrites : "") != 0)
		return (gp_err_set(err, "different rewrite sets (\"%s\", "
		    "\"%s\")", a->rewrites, b->rewrites));
	if (a->n_fn != b->n_fn)
		return (gp_err_set(err, "different apply structure: %d "
		    "functions, %d functions", a->n_fn, b->n_fn));
	for (int f = 0; f < a->n_fn; f++) {
		const struct gp_prof_fn *fa = &a->fn[f], *fb = &b->fn[f];

		if (strcmp(fa->name, fb->name) != 0)
			return (gp_err_set(err, "different apply structure: "
			    "function %d is %s, %s", f, fa->name, fb->name));
		if (fa->n_apply != fb->n_apply)
			return (gp_err_set(err, "different apply structure: "
			    "function %s has %d applies, %d applies",
			    fa->name, fa->n_apply, fb->n_apply));
		for (int i = 0; i < fa->n_apply; i++) {
			const struct gp_prof_apply *x = &fa->ap[i];
			const struct gp_prof_apply *y = &fb->ap[i];
			bool same = strcmp(x->op, y->op) == 0 &&
			    x->n_in == y->n_in && x->n_out == y->n_out;

			for (int k = 0; same && k < x->n_in; k++)
				same = io_same(&x->in[k], &y->in[k]) &&
				    x->in_producer[k] == y->in_producer[k];
			for (int k = 0; same && k < x->n_out; k++)
				same = io_same(&x->out[k], &y->out[k]);
			if (!same)
				return (gp_err_set(err, "different apply "
				    "structure: function %s, apply %d is %s, "
				    "%s", fa->name, i, x->name, y->name));
		}
	}
	return (0);
}

struct gp_profile *
gp_capture_merge(struct gp_profile *const *p,
    const struct gp_capture_info *info, const char *const *paths, int n,
    struct gp_capture_info *out_ci, struct gp_err *err)
{
	struct gp_profile *m;
	int *ord = gp_xmalloc(sizeof(int) * (size_t)(n + 1));
	char *over = NULL;	/* the first total too large, as a path */

	if (n < 1) {
		free(ord);
		gp_err_set(err, "nothing to merge");
		return (NULL);
	}
	for (int i = 1; i < n; i++) {
		struct gp_err e;

		if (gp_capture_compatible(p[0], p[i], &e) < 0) {
			gp_err_set(err, "%s and %s do not belong together: %s",
			    paths != NULL ? paths[0] : "capture 1",
			    paths != NULL ? paths[i] : "a later capture",
			    e.msg);
			free(ord);
			return (NULL);
		}
	}
	/* earliest first; stable insertion sort on the creation time */
	for (int i = 0; i < n; i++) {
		int j = i;

		while (j > 0 && info != NULL && info[ord[j - 1]].created !=
		    NULL && info[i].created != NULL &&
		    strcmp(info[ord[j - 1]].created, info[i].created) > 0) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = i;
	}
	m = gp_profile_clone(p[ord[0]]);
	for (int f = 0; f < m->n_fn; f++) {
		struct gp_prof_fn *d = &m->fn[f];
		uint64_t *rec = gp_xmalloc(sizeof(uint64_t) * GP_PROF_RECENT *
		    (size_t)n);
		int nrec = recent_list(d, rec);

		/* the memory prediction is the graph's, the same in every
		 * capture: the earliest's, or the first that has one (the
		 * measured peak, below, is the largest) */
		for (int j = 1; j < n && d->mem == NULL; j++)
			if (p[ord[j]]->fn[f].mem != NULL)
				d->mem = gp_memprof_clone(p[ord[j]]->fn[f].mem);

		for (int j = 1; j < n; j++) {
			const struct gp_prof_fn *s = &p[ord[j]]->fn[f];

			gp_prof_stat_merge(&d->call, &s->call);
			if (over == NULL && d->call.total >=
			    (uint64_t)INT64_MAX)
				over = gp_xasprintf("functions[%d].call.total",
				    f);
			d->vm_ns += s->vm_ns;
			d->thunk_ns += s->thunk_ns;
			d->calls_seen += s->calls_seen;
			d->timed += s->timed;
			if (s->every > d->every)
				d->every = s->every;
			if (s->mem_peak_measured > d->mem_peak_measured)
				d->mem_peak_measured = s->mem_peak_measured;
			nrec += recent_list(s, rec + nrec);
			for (int i = 0; i < d->n_apply; i++) {
				struct gp_prof_apply *da = &d->ap[i];
				const struct gp_prof_apply *sa = &s->ap[i];

				gp_prof_stat_merge(&da->st, &sa->st);
				if (over == NULL && da->st.total >=
				    (uint64_t)INT64_MAX)
					over = gp_xasprintf("functions[%d]."
					    "applies[%d].total", f, i);
				for (int k = 0; k < da->n_in; k++)
					if (!da->in[k].strides_known &&
					    sa->in[k].strides_known) {
						memcpy(da->in[k].strides,
						    sa->in[k].strides,
						    sizeof(sa->in[k].strides));
						da->in[k].strides_known = true;
					}
				for (int k = 0; k < da->n_out; k++)
					if (!da->out[k].strides_known &&
					    sa->out[k].strides_known) {
						memcpy(da->out[k].strides,
						    sa->out[k].strides,
						    sizeof(sa->out[k].strides));
						da->out[k].strides_known = true;
					}
			}
		}
		{
			int keep = nrec;

			if ((uint64_t)keep > d->call.n)
				keep = (int)d->call.n;
			if (keep > GP_PROF_RECENT)
				keep = GP_PROF_RECENT;
			recent_set(d, rec + nrec - keep, keep);
		}
		free(rec);
		if (over != NULL) {
			/* both sides were below 2^63: the sum did not wrap,
			 * but a capture cannot hold it */
			gp_err_set(err, "the merged %s would be 2^63 ns or "
			    "more (over 292 years): too much to merge", over);
			free(over);
			free(ord);
			gp_profile_free(m);
			return (NULL);
		}
	}
	if (out_ci != NULL) {
		gp_capture_info_this(out_ci);
		if (info != NULL) {
			const struct gp_capture_info *e = &info[ord[0]];

			/* the machine the counters were taken on */
			free(out_ci->cpu);
			free(out_ci->os);
			free(out_ci->cc);
			free(out_ci->cc_version);
			free(out_ci->blas);
			out_ci->cpu = e->cpu ? gp_xstrdup(e->cpu) : NULL;
			out_ci->os = e->os ? gp_xstrdup(e->os) : NULL;
			out_ci->cc = e->cc ? gp_xstrdup(e->cc) : NULL;
			out_ci->cc_version = e->cc_version ?
			    gp_xstrdup(e->cc_version) : NULL;
			out_ci->blas = e->blas ? gp_xstrdup(e->blas) : NULL;
			out_ci->cores = e->cores;
		}
		out_ci->src = gp_xcalloc((size_t)n + 1, sizeof(*out_ci->src));
		out_ci->n_src = n;
		for (int j = 0; j < n; j++) {
			const struct gp_capture_info *e = info != NULL ?
			    &info[ord[j]] : NULL;

			out_ci->src[j].path = gp_xstrdup(paths != NULL ?
			    paths[ord[j]] : "");
			out_ci->src[j].created = gp_xstrdup(e != NULL &&
			    e->created != NULL ? e->created : "");
		}
	}
	free(ord);
	return (m);
}
