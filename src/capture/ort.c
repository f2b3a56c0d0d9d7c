/*
 * ort.c: ONNX Runtime's JSON profile read as a capture (ort.h): node
 * events into per-apply counters, runs into per-call counters.
 */
#include "config.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "base/util.h"
#include "capture/ort.h"
#include "capture/rd.h"
#include "load/onnx-map.h"

#define KERNEL_SUFFIX	"_kernel_time"
#define FUSED_PREFIX	"fused "
#define ORT_CLOCK	"onnxruntime"	/* its profile's clock.source */

/* ONNX Runtime's type names in input_type_shape / output_type_shape. */
static const struct {
	const char	*ort;
	enum gp_dtype	 dt;
} ort_types[] = {
	{.ort = "float", .dt = GP_FLOAT32},
	{.ort = "double", .dt = GP_FLOAT64},
	{.ort = "bool", .dt = GP_BOOL},
	{.ort = "int8_t", .dt = GP_INT8},
	{.ort = "int16_t", .dt = GP_INT16},
	{.ort = "int32_t", .dt = GP_INT32},
	{.ort = "int64_t", .dt = GP_INT64},
	{.ort = "uint8_t", .dt = GP_UINT8},
	{.ort = "uint16_t", .dt = GP_UINT16},
	{.ort = "uint32_t", .dt = GP_UINT32},
	{.ort = "uint64_t", .dt = GP_UINT64},
};

/* One ONNX Runtime node: its first event and the times of all. */
struct node {
	const char	*ort;	/* the event's name less the suffix */
	size_t		 ort_len;
	const json_t	*first;	/* its first event */
	size_t		 first_i;
	struct gp_prof_stat st;
	uint64_t	 first_ns;
};

struct acc {
	struct node	*nd;
	size_t		 n, cap;
	size_t		*slot;	/* open addressing: node index + 1 */
	size_t		 nslot;
	uint64_t	*run_ns;	/* per run k: the k-th events' sum */
	size_t		 n_run, cap_run;
	uint64_t	*model_run;	/* the model_run events' times */
	size_t		 n_mr, cap_mr;
	uint64_t	 exec_ns;	/* SequentialExecutor::Execute's */
	bool		 have_exec;
};

/* Append v to the array *p of *n (capacity *cap). */
static void
push_u64(uint64_t **p, size_t *n, size_t *cap, uint64_t v)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*p = gp_xrealloc(*p, *cap * sizeof(**p));
	}
	(*p)[(*n)++] = v;
}

bool
gp_ort_looks(const char *text, size_t len)
{
	size_t i = 0;

	/* a UTF-8 byte-order mark, then JSON blanks */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && (text[i] == ' ' || text[i] == '\t' ||
	    text[i] == '\n' || text[i] == '\r'))
		i++;
	return (i < len && text[i] == '[');
}

bool
gp_ort_is(const struct gp_profile *p)
{
	return (p->clock.source != NULL &&
	    strcmp(p->clock.source, ORT_CLOCK) == 0);
}

static uint64_t
hash_mem(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return (h);
}

/* The node named s[0..n), added when new. */
static struct node *
acc_node(struct acc *a, const char *s, size_t n, const json_t *ev, size_t i)
{
	size_t h;

	if (2 * (a->n + 1) > a->nslot) {
		size_t ns = a->nslot ? 2 * a->nslot : 64;

		free(a->slot);
		a->slot = gp_xcalloc(ns, sizeof(*a->slot));
		a->nslot = ns;
		for (size_t k = 0; k < a->n; k++) {
			h = hash_mem(a->nd[k].ort, a->nd[k].ort_len) &
			    (ns - 1);
			while (a->slot[h] != 0)
				h = (h + 1) & (ns - 1);
			a->slot[h] = k + 1;
		}
	}
	h = hash_mem(s, n) & (a->nslot - 1);
	while (a->slot[h] != 0) {
		struct node *x = &a->nd[a->slot[h] - 1];

		if (x->ort_len == n && memcmp(x->ort, s, n) == 0)
			return (x);
		h = (h + 1) & (a->nslot - 1);
	}
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 16;
		a->nd = gp_xrealloc(a->nd, a->cap * sizeof(*a->nd));
	}
	a->nd[a->n] = (struct node){.ort = s, .ort_len = n, .first = ev,
	    .first_i = i};
	a->slot[h] = ++a->n;
	return (&a->nd[a->n - 1]);
}

static void
acc_free(struct acc *a)
{
	for (size_t k = 0; k < a->n; k++)
		gp_prof_stat_free(&a->nd[k].st);
	free(a->nd);
	free(a->slot);
	free(a->run_ns);
	free(a->model_run);
}

/* Member key of event i: a string (NULL when missing or not one). */
static const char *
ev_str(const json_t *ev, const char *key)
{
	return (json_string_value(json_object_get(ev, key)));
}

/* Event i's "dur" in ns: a non-negative integer of microseconds. */
static int
ev_dur(struct gp_rd *r, const json_t *ev, size_t i, uint64_t *ns)
{
	const json_t *v = json_object_get(ev, "dur");

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > (json_int_t)(UINT64_MAX / 1000)) {
		gp_rd_index(r, i);
		if (v != NULL)
			gp_rd_key(r, "dur");
		return (gp_rd_fail(r, v == NULL ? "missing \"dur\" (the "
		    "event's duration in microseconds)" : "expected a "
		    "non-negative integer (microseconds)"));
	}
	*ns = (uint64_t)json_integer_value(v) * 1000;
	return (0);
}

/* The type shapes of a node event's args[key] into *io, *n. */
static int
rd_shapes(struct gp_rd *r, const json_t *args, const char *key,
    struct gp_prof_io **io, int *n)
{
	const json_t *a = json_object_get(args, key), *e;
	size_t k;

	*io = NULL;
	*n = 0;
	if (a == NULL)
		return (0);
	gp_rd_key(r, key);
	if (!json_is_array(a))
		return (gp_rd_fail(r, "expected an array of {TYPE: SHAPE}"));
	*io = gp_xcalloc(json_array_size(a) + 1, sizeof(**io));
	json_array_foreach(a, k, e) {
		struct gp_prof_io *p = &(*io)[*n];
		const char *t;
		const json_t *sh, *d;
		size_t j, m;

		gp_rd_index(r, k);
		if (!json_is_object(e) || json_object_size(e) != 1)
			return (gp_rd_fail(r, "expected {TYPE: SHAPE}"));
		t = json_object_iter_key(json_object_iter((json_t *)e));
		sh = json_object_iter_value(json_object_iter((json_t *)e));
		gp_rd_key(r, t);
		if (!json_is_array(sh) || json_array_size(sh) > GP_MAX_DIMS)
			return (gp_rd_fail(r, "expected a shape (an array of "
			    "at most %d sizes)", GP_MAX_DIMS));
		m = sizeof(ort_types) / sizeof(ort_types[0]);
		for (j = 0; j < m; j++)
			if (strcmp(ort_types[j].ort, t) == 0)
				break;
		/* a type gptop has not (float16, string): left out */
		if (j < m) {
			p->dtype = ort_types[j].dt;
			p->ndim = (int)json_array_size(sh);
			p->nbytes = gp_dtype_table[p->dtype].size;
			json_array_foreach(sh, j, d) {
				if (!json_is_integer(d) ||
				    json_integer_value(d) < 0) {
					gp_rd_index(r, j);
					return (gp_rd_fail(r, "expected a "
					    "non-negative size"));
				}
				p->shape[j] = json_integer_value(d);
				p->nbytes *= (uint64_t)p->shape[j];
			}
			p->alias = 'c';
			/* the profile does not name values: "" (a diff
			 * compares names) */
			p->var = gp_xstrdup("");
			(*n)++;
		}
		gp_rd_pop(r);
		gp_rd_pop(r);
	}
	gp_rd_pop(r);
	return (0);
}

/* The Class of an ONNX Runtime op: the ONNX front-end's family for that
 * op type (FusedX: X's), else the op type itself. */
static const char *
op_family(const char *op)
{
	const struct gp_onnx_map *e, *any = NULL;

	e = gp_onnx_map_find(op, 1000, &any);
	if (e == NULL)
		e = any;
	if (e == NULL && strncmp(op, "Fused", 5) == 0 && op[5] != '\0') {
		e = gp_onnx_map_find(op + 5, 1000, &any);
		if (e == NULL)
			e = any;
	}
	return (e != NULL ? e->family : op);
}

/* Apply k of the profile from node nd. */
static int
make_apply(struct gp_rd *r, const struct node *nd, struct gp_prof_apply *ap,
    int k)
{
	const json_t *args = json_object_get(nd->first, "args");
	const char *op, *prov;
	struct gp_buf b = {0};
	size_t skip = 0;

	gp_rd_index(r, nd->first_i);
	if (!json_is_object(args)) {
		if (args != NULL)
			gp_rd_key(r, "args");
		return (gp_rd_fail(r, args == NULL ? "a node event without "
		    "\"args\" (ONNX Runtime writes op_name there)" :
		    "expected an object"));
	}
	gp_rd_key(r, "args");
	op = json_string_value(json_object_get(args, "op_name"));
	if (op == NULL || *op == '\0') {
		if (json_object_get(args, "op_name") != NULL)
			gp_rd_key(r, "op_name");
		return (gp_rd_fail(r, "%s", json_object_get(args, "op_name") ?
		    "expected the op type, a string" : "missing \"op_name\" "
		    "(the node's op type)"));
	}
	prov = json_string_value(json_object_get(args, "provider"));
	if (nd->ort_len > strlen(FUSED_PREFIX) &&
	    memcmp(nd->ort, FUSED_PREFIX, strlen(FUSED_PREFIX)) == 0)
		skip = strlen(FUSED_PREFIX);
	ap->id = k;
	gp_buf_printf(&b, "%.*s", (int)(nd->ort_len - skip), nd->ort + skip);
	ap->name = gp_text_dup(gp_buf_str(&b));
	gp_buf_clear(&b);
	gp_buf_printf(&b, "%.*s", (int)nd->ort_len, nd->ort);
	ap->node = gp_text_dup(gp_buf_str(&b));
	ap->op = gp_text_dup(op);
	ap->opname = gp_text_dup(op);
	ap->cls = gp_text_dup(op_family(op));
	gp_buf_clear(&b);
	gp_buf_printf(&b, "ONNX Runtime node \"%.*s\"%s%s", (int)nd->ort_len,
	    nd->ort, prov ? " on " : "", prov ? prov : "");
	ap->extra = gp_text_dup(gp_buf_str(&b));
	gp_buf_free(&b);
	ap->impl = GP_IMPL_C;
	if (rd_shapes(r, args, "input_type_shape", &ap->in, &ap->n_in) < 0 ||
	    rd_shapes(r, args, "output_type_shape", &ap->out, &ap->n_out) < 0)
		return (-1);
	ap->in_producer = gp_xmalloc(sizeof(int) * ((size_t)ap->n_in + 1));
	for (int i = 0; i < ap->n_in; i++)
		ap->in_producer[i] = -1;
	gp_prof_stat_copy(&ap->st, &nd->st);
	ap->first_ns = nd->first_ns;
	gp_rd_pop(r);
	gp_rd_pop(r);
	return (0);
}

/* The op_name of event ev (NULL: none). */
static const char *
ev_op(const json_t *ev)
{
	return (json_string_value(json_object_get(json_object_get(ev,
	    "args"), "op_name")));
}

/* A node's event i names the op type of its first event: a profile whose
 * node changes op type between runs is not one session's. */
static int
same_op(struct gp_rd *r, const struct node *nd, const json_t *ev, size_t i)
{
	const char *x = ev_op(nd->first), *y = ev_op(ev);

	if (x == NULL || y == NULL || strcmp(x, y) == 0)
		return (0);
	gp_rd_index(r, i);
	gp_rd_key(r, "args");
	gp_rd_key(r, "op_name");
	return (gp_rd_fail(r, "node \"%.*s\" is a %s here but a %s in "
	    "event %zu: not the events of one session", (int)nd->ort_len,
	    nd->ort, y, x, nd->first_i));
}

/* Read the events of top into a; the model_run times into runs. */
static int
rd_events(struct gp_rd *r, const json_t *top, struct acc *a, bool *is_ort)
{
	size_t i, sl = strlen(KERNEL_SUFFIX);
	const json_t *ev;

	json_array_foreach(top, i, ev) {
		const char *cat, *name;
		struct node *nd;
		uint64_t ns;
		size_t n;

		if (!json_is_object(ev) ||
		    (cat = ev_str(ev, "cat")) == NULL ||
		    (name = ev_str(ev, "name")) == NULL) {
			gp_rd_index(r, i);
			return (gp_rd_fail(r, "not an ONNX Runtime profile: "
			    "expected an event with \"cat\" and \"name\" "
			    "strings"));
		}
		if (strcmp(cat, "Session") == 0) {
			*is_ort = true;
			if (strcmp(name, "model_run") == 0) {
				if (ev_dur(r, ev, i, &ns) < 0)
					return (-1);
				push_u64(&a->model_run, &a->n_mr,
				    &a->cap_mr, ns);
			} else if (strstr(name, "Executor::Execute") != NULL) {
				/* the executor's time: gptop's VM time */
				if (ev_dur(r, ev, i, &ns) < 0)
					return (-1);
				a->exec_ns += ns;
				a->have_exec = true;
			}
			continue;
		}
		if (strcmp(cat, "Node") != 0)
			continue;
		*is_ort = true;
		n = strlen(name);
		/* the fences around a kernel are not its time */
		if (n <= sl || strcmp(name + n - sl, KERNEL_SUFFIX) != 0)
			continue;
		if (ev_dur(r, ev, i, &ns) < 0)
			return (-1);
		nd = acc_node(a, name, n - sl, ev, i);
		if (nd->st.n == 0)
			nd->first_ns = ns;
		else if (same_op(r, nd, ev, i) < 0)
			return (-1);
		/* run k sums the k-th event of every node */
		if (nd->st.n >= a->n_run)
			push_u64(&a->run_ns, &a->n_run, &a->cap_run, 0);
		a->run_ns[nd->st.n] += ns;
		gp_prof_stat_add(&nd->st, ns);
	}
	return (0);
}

struct gp_profile *
gp_ort_load_buf(const char *text, size_t len, const char *name,
    struct gp_capture_info *ci, struct gp_err *err)
{
	struct gp_rd r = {.name = name, .text = text, .len = len, .err = err};
	struct gp_profile *p = NULL;
	struct gp_prof_fn *f;
	struct acc a = {0};
	bool is_ort = false;
	json_error_t je;
	json_t *top;

	if (ci != NULL)
		memset(ci, 0, sizeof(*ci));
	top = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (top == NULL) {
		size_t at = (size_t)je.position;

		while (at < len && (text[at] == ' ' || text[at] == '\n' ||
		    text[at] == '\t' || text[at] == '\r'))
			at++;
		gp_err_set(err, "%s:%d:%d: %s%s", name,
		    je.line > 0 ? je.line : 1, je.column > 0 ? je.column : 1,
		    je.text, at >= len ? " (the file ends early: a truncated "
		    "ONNX Runtime profile?)" : "");
		return (NULL);
	}
	if (!json_is_array(top)) {
		gp_rd_fail(&r, "not an ONNX Runtime profile (a JSON array "
		    "of events expected)");
		goto out;
	}
	if (rd_events(&r, top, &a, &is_ort) < 0)
		goto out;
	if (!is_ort) {
		gp_rd_fail(&r, "a JSON array that is not an ONNX Runtime "
		    "profile (no event of cat \"Session\" or \"Node\"), nor "
		    "a gptop capture or graph");
		goto out;
	}
	if (a.n == 0) {
		gp_rd_fail(&r, "an ONNX Runtime profile without node "
		    "events (no cat \"Node\" event named \"..._kernel_time\": "
		    "was the session run before endProfiling?)");
		goto out;
	}
	p = gp_xcalloc(1, sizeof(*p));
	p->graph = gp_xstrdup("onnxruntime");
	p->path = gp_text_dup(name);
	p->flags = gp_xstrdup("");
	p->rewrites = gp_xstrdup("ONNX Runtime's own (not in its profile)");
	p->clock.source = ORT_CLOCK;
	p->clock.resolution_ns = 1000;	/* the profile's microseconds */
	p->n_nodes = (int)a.n;
	p->n_fn = 1;
	p->fn = f = gp_xcalloc(1, sizeof(*f));
	f->name = gp_xstrdup("run");
	f->n_apply = (int)a.n;
	f->ap = gp_xcalloc(a.n + 1, sizeof(*f->ap));
	f->ticks = gp_xcalloc(2 * a.n + 2, sizeof(uint64_t));
	f->every = 1;
	for (size_t k = 0; k < a.n; k++)
		if (make_apply(&r, &a.nd[k], &f->ap[k], (int)k) < 0) {
			gp_profile_free(p);
			p = NULL;
			goto out;
		}
	/* the runs' times when the profile has them, else the sums of
	 * the node times of each run */
	{
		const uint64_t *rt = a.n_mr > 0 ? a.model_run : a.run_ns;
		size_t n = a.n_mr > 0 ? a.n_mr : a.n_run;
		size_t m = n < GP_PROF_RECENT ? n : GP_PROF_RECENT;

		for (size_t k = 0; k < n; k++)
			gp_prof_stat_add(&f->call, rt[k]);
		f->first_call_ns = rt[0];
		gp_prof_recent_set(f, rt + (n - m), (int)m);
	}
	f->calls_seen = f->call.n;
	f->timed = f->call.n;
	for (int k = 0; k < f->n_apply; k++)
		f->thunk_ns += f->ap[k].st.total;
	f->vm_ns = a.have_exec ? a.exec_ns : f->thunk_ns;
out:
	acc_free(&a);
	json_decref(top);
	return (p);
}
