/*
 * save.c: writing a capture (see capture.h and doc/capture-format.md).
 *
 * Writing streams the document: the top-level members and each apply are
 * encoded by jansson one at a time (an apply per line), so the file stays
 * readable and memory stays flat for large graphs (but for the second half
 * of a big function's applies, encoded on a second thread meanwhile: see
 * write_applies); op kinds and input/output types go once into two tables
 * that applies index.  jansson runs on an arena (jsonarena.h), started
 * again at the bottom after each apply written: a 100,000-apply capture is
 * written in about 0.45 s.  The file is written atomically (outfile.h).
 *
 * Each function's memory profile (struct gp_memprof) is its "memory"
 * member, written by memjson.c (gp_memprof_to_json(), at the spot marked
 * MEMPROF-JSON) against the function's applies, which give the outputs it
 * refers to.
 */
#include "config.h"

#include "capture/capture.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonarena.h"
#include "base/jsonout.h"
#include "base/outfile.h"
#include "base/util.h"
#include "capture/calljson.h"
#include "capture/memjson.h"
#include "prof/memprof.h"
#include "graph/op.h"

/* A function of this many applies is encoded on two threads. */
#define SAVE_SPLIT_MIN	8192
/* jansson's memory while a capture is written: a bump arena per encoding
 * thread (see the top), started again after each apply. */
#define WRITE_ARENA	((size_t)1 << 30)

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
 * Writing.
 */

static void
set(json_t *o, const char *k, json_t *v)
{
	json_object_set_new_nocheck(o, k, v);
}

static const char *
nz(const char *s)
{
	return (s != NULL ? s : "");
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
op_hash(const struct gp_prof_apply *a)
{
	uint64_t h = gp_hash_str(gp_hash_str(GP_HASH_INIT, a->op), a->cls);

	return (gp_hash_mix(gp_hash_str(h, a->opname), (uint64_t)a->impl));
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
	uint64_t h = gp_hash_mix(gp_hash_mix(GP_HASH_INIT,
	    (uint64_t)io->dtype), (uint64_t)io->ndim);

	for (int d = 0; d < io->ndim; d++)
		h = gp_hash_mix(h, (uint64_t)io->shape[d]);
	h = gp_hash_mix(h, io->strides_known);
	for (int d = 0; io->strides_known && d < io->ndim; d++)
		h = gp_hash_mix(h, (uint64_t)io->strides[d]);
	return (gp_hash_mix(h, io->nbytes));
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
	set(o, "calls", gp_jsonout_u64(s->n));
	set(o, "total", gp_jsonout_u64(s->total));
	set(o, "min", gp_jsonout_u64(s->min));
	set(o, "max", gp_jsonout_u64(s->max));
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

/* The source nodes' names (gptop-capture/5): null for an unnamed one;
 * a name that shares PREFIX_MIN or more leading bytes with the previous
 * name written is [bytes shared, "the rest"] (front coding: an ONNX
 * export's names repeat their scopes, "/enc/layers.0/self_attn/..."),
 * cut where a character starts; any other as it is. */
enum { PREFIX_MIN = 4 };

static json_t *
sources_json(const struct gp_profile *p)
{
	json_t *a = json_array(), *prev = NULL;

	for (int i = 0; i < p->n_src_names; i++) {
		json_t *v;
		const char *t, *u;
		size_t k = 0;

		if (p->src_names[i] == NULL) {
			json_array_append_new(a, json_null());
			continue;
		}
		v = gp_jsonout_str(p->src_names[i]);
		t = json_string_value(v);
		u = prev != NULL ? json_string_value(prev) : "";
		while (t[k] != '\0' && t[k] == u[k])
			k++;
		while (k > 0 && ((unsigned char)t[k] & 0xC0) == 0x80)
			k--;	/* not inside a character */
		if (k >= PREFIX_MIN)
			json_array_append_new(a, json_pack("[I,s]",
			    (json_int_t)k, t + k));
		else
			json_array_append(a, v);
		json_decref(prev);
		prev = v;
	}
	json_decref(prev);
	return (a);
}

static json_t *
ops_json(const struct wr *w)
{
	json_t *t = json_array();

	for (int e = 0; e < w->ops.n; e++) {
		const struct gp_prof_apply *a = w->ops.key[e];
		json_t *o = json_object();

		set(o, "op", gp_jsonout_str(a->op));
		set(o, "class", gp_jsonout_str(a->cls));
		set(o, "opname", gp_jsonout_str(a->opname));
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
		set(o, "nbytes", gp_jsonout_u64(io->nbytes));
		json_array_append_new(t, o);
	}
	return (t);
}

/* Is name what an apply of op with inputs in is called unless a capture
 * says otherwise, "OP(IN0, IN1, ...)" (as gp_node_format_apply() makes
 * it, and default_name() in rd.c)? */
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

/* An apply's source nodes (sorted): runs of three or more consecutive
 * indices as [first, last] (since gptop-capture/4: a fused chain's
 * hundreds of sources are one pair), the others as they are. */
static json_t *
src_to_json(const int *src, int n)
{
	json_t *a = json_array();

	for (int k = 0, j; k < n; k = j + 1) {
		for (j = k; j + 1 < n && src[j + 1] == src[j] + 1; j++)
			;
		if (j - k >= 2) {
			json_t *run = json_array();

			json_array_append_new(run, json_integer(src[k]));
			json_array_append_new(run, json_integer(src[j]));
			json_array_append_new(a, run);
		} else
			for (int i = k; i <= j; i++)
				json_array_append_new(a,
				    json_integer(src[i]));
	}
	return (a);
}

/* An apply: its op and its inputs' and outputs' types by table index
 * (*io walks the type indices). */
static json_t *
apply_to_json(const struct gp_prof_apply *a, int op, const int **io)
{
	json_t *o = json_object(), *in = json_array(), *out = json_array();

	set(o, "id", json_integer(a->id));
	if (!is_default_name(a->name, a->op, a->in, a->n_in))
		set(o, "name", gp_jsonout_str(a->name));
	set(o, "op", json_integer(op));
	if (a->node != NULL && a->node[0] != '\0')
		set(o, "node", gp_jsonout_str(a->node));
	if (a->extra != NULL && a->extra[0] != '\0')
		set(o, "extra", gp_jsonout_str(a->extra));
	if (a->n_src > 0)
		set(o, "src", src_to_json(a->src, a->n_src));
	set(o, "flops", gp_jsonout_real(a->flops));
	if (a->link_ns != 0)
		set(o, "link_ns", gp_jsonout_real(a->link_ns));
	if (a->jit_ns != 0)
		set(o, "jit_ns", gp_jsonout_real(a->jit_ns));
	for (int k = 0; k < a->n_in; k++) {
		json_t *t = json_array();

		json_array_append_new(t, gp_jsonout_str(a->in[k].var));
		json_array_append_new(t, json_integer(*(*io)++));
		json_array_append_new(t, json_integer(a->in_producer != NULL ?
		    a->in_producer[k] : -1));
		json_array_append_new(in, t);
	}
	for (int k = 0; k < a->n_out; k++) {
		json_t *t = json_array();

		json_array_append_new(t, gp_jsonout_str(a->out[k].var));
		json_array_append_new(t, json_integer(*(*io)++));
		if (a->out[k].alias == 'v' || a->out[k].alias == 'i')
			json_array_append_new(t, json_string(alias_name(
			    a->out[k].alias)));
		json_array_append_new(out, t);
	}
	set(o, "inputs", in);
	set(o, "outputs", out);
	stat_to_json(o, &a->st);
	set(o, "first_ns", gp_jsonout_u64(a->first_ns));
	return (o);
}


static json_t *
info_machine(const struct gp_capture_info *ci)
{
	json_t *m = json_object();

	set(m, "cpu", gp_jsonout_str(ci->cpu));
	set(m, "cores", json_integer(ci->cores));
	set(m, "os", gp_jsonout_str(ci->os));
	set(m, "compiler", gp_jsonout_str(ci->cc));
	set(m, "compiler_version", gp_jsonout_str(ci->cc_version));
	set(m, "blas", gp_jsonout_str(ci->blas));
	if (ci->threads > 0)
		set(m, "threads", json_integer(ci->threads));
	if (ci->idle != NULL)
		set(m, "idle", gp_jsonout_str(ci->idle));
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

	(void)gp_json_arena_begin(&r->w->arena, WRITE_ARENA);
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
	json_t *mem = NULL, *tl;
	uint64_t v[GP_PROF_RECENT];
	int m = gp_prof_recent(f, v);

	set(o, "name", gp_jsonout_str(f->name));
	stat_to_json(call, &f->call);
	set(o, "call", call);
	set(o, "vm_ns", gp_jsonout_u64(f->vm_ns));
	set(o, "thunk_ns", gp_jsonout_u64(f->thunk_ns));
	set(o, "first_call_ns", gp_jsonout_u64(f->first_call_ns));
	set(o, "calls_seen", gp_jsonout_u64(f->calls_seen));
	set(o, "timed_calls", gp_jsonout_u64(f->timed));
	set(o, "sample_every", gp_jsonout_u64(f->every > 0 ? f->every : 1));
	for (int i = 0; i < m; i++)
		json_array_append_new(rec, gp_jsonout_u64(v[i]));
	set(o, "recent", rec);
	/*
	 * MEMPROF-JSON: the predicted memory profile, when there is one that
	 * describes these applies (gp_memprof_to_json() says NULL for one
	 * that does not, which a profile never holds): left out otherwise,
	 * which readers take as no prediction.
	 */
	if (f->mem != NULL)
		mem = gp_memprof_to_json(f->mem, f);
	set(o, "mem_peak_measured", gp_jsonout_u64(f->mem_peak_measured));
	/* derived, for scripts: the report's "Predicted peak" (readers
	 * recompute it from "memory") */
	if (mem != NULL)
		set(o, "mem_peak_predicted",
		    gp_jsonout_u64(gp_memprof_predicted_peak(p, fn)));
	if (mem != NULL)
		set(o, "memory", mem);
	/* the calls drawn along time (the Timeline), when it has them */
	if ((tl = gp_calljson_to_json(f)) != NULL)
		set(o, "timeline", tl);
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
	bool named = false;

	w.buf = gp_xmalloc(w.cap);
	(void)gp_json_arena_begin(&w.arena, WRITE_ARENA);
	wr_tables(&w, p);
	fputs("{\n", fp);
	member(&w, "format", json_string(GP_CAPTURE_FORMAT), false);
	member(&w, "created", gp_jsonout_str(ci->created), false);
	member(&w, "gptop", gp_jsonout_str(ci->gptop), false);
	member(&w, "machine", info_machine(ci), false);
	if (ci->n_src > 0) {
		json_t *a = json_array();

		for (int i = 0; i < ci->n_src; i++) {
			json_t *s = json_object();

			set(s, "path", gp_jsonout_str(ci->src[i].path));
			set(s, "created", gp_jsonout_str(ci->src[i].created));
			json_array_append_new(a, s);
		}
		member(&w, "merged_from", a, false);
	}
	o = json_object();
	snprintf(hash, sizeof(hash), "%016llx",
	    (unsigned long long)p->graph_hash);
	set(o, "name", gp_jsonout_str(p->graph));
	set(o, "path", gp_jsonout_str(p->path));
	set(o, "hash", json_string(hash));
	set(o, "nodes", json_integer(p->n_nodes));
	member(&w, "graph", o, false);
	/* the names of the source nodes, when one has a name (an unnamed
	 * one shows as "#INDEX" without them) */
	for (int i = 0; i < p->n_src_names && !named; i++)
		named = p->src_names[i] != NULL;
	if (named)
		member(&w, "sources", sources_json(p), false);
	if (p->n_folded > 0) {
		json_t *a = json_array();

		for (int i = 0; i < p->n_folded; i++)
			json_array_append_new(a, json_integer(p->folded[i]));
		member(&w, "folded", a, false);
	}
	member(&w, "flags", gp_jsonout_str(p->flags), false);
	member(&w, "rewrites", gp_jsonout_str(p->rewrites), false);
	member(&w, "ignore_first_call", json_boolean(p->ignore_first), false);
	o = json_object();
	set(o, "source", gp_jsonout_str(p->clock.source));
	set(o, "tsc_ghz", gp_jsonout_real(p->clock.tsc_ghz));
	set(o, "resolution_ns", gp_jsonout_real(p->clock.resolution_ns));
	set(o, "probe_ns", gp_jsonout_real(p->clock.probe_ns));
	member(&w, "clock", o, false);
	o = json_object();
	set(o, "load_ns", gp_jsonout_real(p->load_ns));
	set(o, "rewrite_ns", gp_jsonout_real(p->rewrite_ns));
	set(o, "link_ns", gp_jsonout_real(p->link_ns));
	member(&w, "compile", o, false);
	o = json_array();
	for (int i = 0; i < p->n_phase; i++) {
		const struct gp_rewrite_phase_stat *ph = &p->phase[i];
		json_t *e = json_object();

		set(e, "name", gp_jsonout_str(ph->name));
		set(e, "time_ns", gp_jsonout_real(ph->time_ns));
		set(e, "passes", json_integer(ph->passes));
		set(e, "nodes_before", json_integer(ph->nodes_before));
		set(e, "nodes_after", json_integer(ph->nodes_after));
		json_array_append_new(o, e);
	}
	member(&w, "phases", o, false);
	o = json_array();
	for (int i = 0; i < p->n_rw; i++) {
		const struct gp_rewrite_stat *rw = &p->rw[i];
		json_t *e = json_object();

		set(e, "name", gp_jsonout_str(rw->name));
		set(e, "tags", gp_jsonout_str(rw->tags));
		set(e, "phase", gp_jsonout_str(rw->phase));
		set(e, "enabled", json_boolean(rw->enabled));
		set(e, "time_ns", gp_jsonout_real(rw->time_ns));
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
	struct gp_outfile af;
	FILE *fp;
	int rc;

	fp = gp_outfile_open(&af, path, err);
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

		gp_outfile_abort(&af);
		return (gp_err_set(err, "%s: cannot write: %s", path,
		    strerror(e)));
	}
	if (rc < 0) {
		gp_outfile_abort(&af);
		return (gp_err_set(err, "%s: cannot encode the capture",
		    path));
	}
	return (gp_outfile_commit(&af, err));
}

int
gp_capture_save(const struct gp_profile *p, const char *path,
    struct gp_err *err)
{
	return (gp_capture_save_info(p, NULL, path, err));
}
