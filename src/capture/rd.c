/*
 * rd.c: the capture reader's walk over a parsed capture (see rd.h): the
 * JSON path it is at and the FILE:LINE:COL: PATH: message of a fault,
 * typed members, counters and their histograms, the "ops" and "types"
 * tables, and the applies that index them.
 */
#include "config.h"

#include "capture/rd.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *
nz(const char *s)
{
	return (s != NULL ? s : "");
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

/* The current path, "functions[0].applies[3].calls", appended to b. */
void
gp_rd_path(const struct gp_rd *r, struct gp_buf *b)
{
	int n = r->depth < GP_RD_DEPTH ? r->depth : GP_RD_DEPTH;

	for (int i = 0; i < n; i++) {
		if (r->path[i].key != NULL)
			gp_buf_printf(b, "%s%s", i ? "." : "",
			    r->path[i].key);
		else
			gp_buf_printf(b, "[%zu]", r->path[i].index);
	}
}

/* "FILE:LINE:COL: PATH: message", the position of the current path. */
int
gp_rd_fail(struct gp_rd *r, const char *fmt, ...)
{
	struct gp_buf b = {0};
	int n = r->depth < GP_RD_DEPTH ? r->depth : GP_RD_DEPTH;
	int line = 1, col = 1;
	va_list ap;

	if (r->text != NULL)
		gp_jsonpos_find(r->text, r->len, r->path, n, false, &line,
		    &col);
	gp_buf_printf(&b, "%s:%d:%d: ", r->name, line, col);
	gp_rd_path(r, &b);
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
rd_member(struct gp_rd *r, const json_t *o, const char *key)
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
rd_get(struct gp_rd *r, const json_t *o, const char *key, const char *what,
    bool optional)
{
	json_t *v = rd_member(r, o, key);

	if (v == NULL && !optional)
		gp_rd_fail(r, "missing \"%s\" (%s)", key, what);
	return (v);
}

int
gp_rd_u64(struct gp_rd *r, const json_t *o, const char *key,
    uint64_t *out)
{
	json_t *v = rd_get(r, o, key, "a non-negative integer", false);
	int rc = 0;

	if (v == NULL)
		return (-1);
	gp_rd_key(r, key);
	if (!json_is_integer(v))
		rc = gp_rd_fail(r, "expected a non-negative integer, got %s",
		    gp_jsonpos_kind(v));
	else if (json_integer_value(v) < 0)
		rc = gp_rd_fail(r, "expected a non-negative integer, got %lld",
		    (long long)json_integer_value(v));
	else
		*out = (uint64_t)json_integer_value(v);
	gp_rd_pop(r);
	return (rc);
}

int
gp_rd_int(struct gp_rd *r, const json_t *o, const char *key, int64_t lo,
    int64_t hi, int *out)
{
	json_t *v = rd_get(r, o, key, "an integer", false);
	int rc = 0;

	if (v == NULL)
		return (-1);
	gp_rd_key(r, key);
	if (!json_is_integer(v))
		rc = gp_rd_fail(r, "expected an integer, got %s",
		    gp_jsonpos_kind(v));
	else if (json_integer_value(v) < lo || json_integer_value(v) > hi)
		rc = gp_rd_fail(r, "%lld is out of range (%lld to %lld)",
		    (long long)json_integer_value(v), (long long)lo,
		    (long long)hi);
	else
		*out = (int)json_integer_value(v);
	gp_rd_pop(r);
	return (rc);
}

int
gp_rd_real(struct gp_rd *r, const json_t *o, const char *key, double *out)
{
	json_t *v = rd_get(r, o, key, "a number", false);
	int rc = 0;

	if (v == NULL)
		return (-1);
	gp_rd_key(r, key);
	if (!json_is_number(v))
		rc = gp_rd_fail(r, "expected a number, got %s",
		    gp_jsonpos_kind(v));
	else if (json_number_value(v) < 0)
		rc = gp_rd_fail(r, "expected a non-negative number, got %g",
		    json_number_value(v));
	else
		*out = json_number_value(v);
	gp_rd_pop(r);
	return (rc);
}

int
gp_rd_bool(struct gp_rd *r, const json_t *o, const char *key, bool *out)
{
	json_t *v = rd_get(r, o, key, "true or false", false);
	int rc = 0;

	if (v == NULL)
		return (-1);
	gp_rd_key(r, key);
	if (!json_is_boolean(v))
		rc = gp_rd_fail(r, "expected true or false, got %s",
		    gp_jsonpos_kind(v));
	else
		*out = json_is_true(v);
	gp_rd_pop(r);
	return (rc);
}

/* A string member, copied; optional ones missing give NULL. */
int
gp_rd_str(struct gp_rd *r, const json_t *o, const char *key, bool optional,
    char **out)
{
	json_t *v = rd_get(r, o, key, "a string", optional);
	int rc = 0;

	*out = NULL;
	if (v == NULL)
		return (optional ? 0 : -1);
	gp_rd_key(r, key);
	if (!json_is_string(v))
		rc = gp_rd_fail(r, "expected a string, got %s",
		    gp_jsonpos_kind(v));
	else
		*out = gp_text_dup(json_string_value(v));
	gp_rd_pop(r);
	return (rc);
}

json_t *
gp_rd_container(struct gp_rd *r, const json_t *o, const char *key,
    bool array, bool optional)
{
	json_t *v = rd_get(r, o, key, array ? "an array" : "an object",
	    optional);

	if (v == NULL)
		return (NULL);
	if ((array && !json_is_array(v)) || (!array && !json_is_object(v))) {
		gp_rd_key(r, key);
		gp_rd_fail(r, "expected %s, got %s", array ? "an array" :
		    "an object", gp_jsonpos_kind(v));
		gp_rd_pop(r);
		return (NULL);
	}
	return (v);
}

/* The current value (at r's path) must be an object. */
int
gp_rd_object_here(struct gp_rd *r, const json_t *v)
{
	if (json_is_object(v))
		return (0);
	return (gp_rd_fail(r, "expected an object, got %s",
	    gp_jsonpos_kind(v)));
}

/* The invariants of counters that were read: a complaint names the field
 * (PATH.total, PATH.min). */
static int
rd_stat_check(struct gp_rd *r, const struct gp_prof_stat *s)
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
	gp_rd_key(r, key);
	if (s->total >= (uint64_t)INT64_MAX)
		rc = gp_rd_fail(r, "%llu is the largest integer a capture "
		    "holds: the sum overflowed (a merge of captures past 2^63 "
		    "ns)",
		    (unsigned long long)s->total);
	else if (s->n == 0)
		rc = gp_rd_fail(r, "%llu, but calls is 0",
		    (unsigned long long)(key[0] == 't' ? s->total :
		    key[1] == 'i' ? s->min : s->max));
	else if (key[0] == 'm')
		rc = gp_rd_fail(r, "min %llu is larger than max %llu",
		    (unsigned long long)s->min, (unsigned long long)s->max);
	else
		rc = gp_rd_fail(r, "total %llu is below max %llu (the total "
		    "sums every call's time)", (unsigned long long)s->total,
		    (unsigned long long)s->max);
	gp_rd_pop(r);
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
rd_hist_coarse(struct gp_rd *r, const json_t *h, struct gp_prof_stat *s,
    uint64_t *sum)
{
	long long prev = -1;
	size_t i;
	json_t *e;

	if (!json_is_array(h))
		return (gp_rd_fail(r, "expected an array, got %s",
		    gp_jsonpos_kind(h)));
	json_array_foreach(h, i, e) {
		json_t *b, *c;
		json_int_t bv, cv;

		gp_rd_index(r, i);
		if (!json_is_array(e) || json_array_size(e) != 2 ||
		    !json_is_integer(b = json_array_get(e, 0)) ||
		    !json_is_integer(c = json_array_get(e, 1)))
			return (gp_rd_fail(r, "expected a [bin, count] pair of "
			    "integers"));
		bv = json_integer_value(b);
		cv = json_integer_value(c);
		if (bv < 0 || bv >= GP_PROF_COARSE)
			return (gp_rd_fail(r, "bin %lld is out of range (0 to "
			    "%d)", (long long)bv, GP_PROF_COARSE - 1));
		if (cv <= 0 || cv > UINT32_MAX)
			return (gp_rd_fail(r, "count %lld is out of range "
			    "(1 to %u)", (long long)cv, UINT32_MAX));
		/* each bin once, in increasing order (as written) */
		if (bv <= prev)
			return (gp_rd_fail(r, "bin %lld after bin %lld: the "
			    "bins must increase, each listed once",
			    (long long)bv, prev));
		prev = bv;
		gp_prof_stat_put_coarse(s, (int)bv, (uint64_t)cv);
		*sum += (uint64_t)cv;
		gp_rd_pop(r);
	}
	return (0);
}

/* The histogram of stat s (its other members read), "FIRST: c c 0*k c"
 * (hist_to_json() in save.c). */
static int
rd_hist(struct gp_rd *r, const json_t *h, struct gp_prof_stat *s,
    uint64_t *sum)
{
	int b0 = gp_prof_bin(s->min), b1 = gp_prof_bin(s->max);
	const char *p;
	uint64_t b, c, k;

	if (!json_is_string(h))
		return (gp_rd_fail(r, "expected a string, got %s",
		    gp_jsonpos_kind(h)));
	p = json_string_value(h);
	if (*p == '\0')
		return (0);
	if (!rd_num(&p, GP_PROF_NBINS - 1, &b) || *p++ != ':')
		return (gp_rd_fail(r, "expected \"BIN: COUNT ...\" with a bin "
		    "from 0 to %d", GP_PROF_NBINS - 1));
	while (*p != '\0') {
		if (*p++ != ' ' || !rd_num(&p, UINT32_MAX, &c))
			return (gp_rd_fail(r, "at bin %llu: expected "
			    "\" COUNT\" (0 to %u) or \" 0*RUN\"",
			    (unsigned long long)b, UINT32_MAX));
		k = 1;
		if (*p == '*' && (p++, c != 0 || !rd_num(&p, GP_PROF_NBINS,
		    &k) || k == 0))
			return (gp_rd_fail(r, "at bin %llu: expected a run of "
			    "empty bins, 0*RUN", (unsigned long long)b));
		if (b + k > GP_PROF_NBINS)
			return (gp_rd_fail(r, "bins past the last (%d)",
			    GP_PROF_NBINS - 1));
		/* a sample is between min and max */
		if (c != 0 && ((int)b < b0 || (int)b > b1))
			return (gp_rd_fail(r, "bin %llu holds times outside "
			    "min and max (bins %d to %d)",
			    (unsigned long long)b, b0, b1));
		gp_prof_stat_put(s, (int)b, c);
		*sum += c;
		b += k;
	}
	return (0);
}

int
gp_rd_stat(struct gp_rd *r, const json_t *o, struct gp_prof_stat *s)
{
	json_t *h;
	uint64_t sum = 0;

	gp_prof_stat_free(s);
	if (gp_rd_u64(r, o, "calls", &s->n) < 0 ||
	    gp_rd_u64(r, o, "total", &s->total) < 0 ||
	    gp_rd_u64(r, o, "min", &s->min) < 0 ||
	    gp_rd_u64(r, o, "max", &s->max) < 0)
		return (-1);
	if ((h = rd_get(r, o, "histogram", r->version == 1 ? "an array" :
	    "a string", false)) == NULL)
		return (-1);
	/* the bins are read against min and max */
	if (s->n > 0 && s->min > s->max)
		return (rd_stat_check(r, s));
	gp_rd_key(r, "histogram");
	if ((r->version == 1 ? rd_hist_coarse(r, h, s, &sum) :
	    rd_hist(r, h, s, &sum)) < 0)
		return (-1);
	gp_rd_pop(r);
	if (sum != s->n && s->n <= UINT32_MAX)
		return (gp_rd_fail(r, "the histogram holds %llu samples but "
		    "calls is %llu", (unsigned long long)sum,
		    (unsigned long long)s->n));
	return (rd_stat_check(r, s));
}

static int
rd_dims(struct gp_rd *r, const json_t *o, const char *key, int *ndim,
    int64_t *d, bool nonneg, bool nullable, bool *known)
{
	json_t *v = rd_get(r, o, key, "an array of integers", false);
	size_t i;
	json_t *e;

	if (v == NULL)
		return (-1);
	gp_rd_key(r, key);
	if (nullable && json_is_null(v)) {
		*known = false;
		gp_rd_pop(r);
		return (0);
	}
	if (!json_is_array(v))
		return (gp_rd_fail(r, "expected an array of integers%s, got %s",
		    nullable ? " or null" : "", gp_jsonpos_kind(v)));
	if (*ndim >= 0 && json_array_size(v) != (size_t)*ndim)
		return (gp_rd_fail(r, "%zu dimensions, but the shape has %d",
		    json_array_size(v), *ndim));
	if (json_array_size(v) > GP_MAX_DIMS)
		return (gp_rd_fail(r, "%zu dimensions (at most %d)",
		    json_array_size(v), GP_MAX_DIMS));
	json_array_foreach(v, i, e) {
		if (!json_is_integer(e) || (nonneg &&
		    json_integer_value(e) < 0)) {
			gp_rd_index(r, i);
			return (gp_rd_fail(r, "expected a%s integer, got %s",
			    nonneg ? " non-negative" : "n",
			    gp_jsonpos_kind(e)));
		}
		d[i] = json_integer_value(e);
	}
	*ndim = (int)json_array_size(v);
	if (known != NULL)
		*known = true;
	gp_rd_pop(r);
	return (0);
}

/* An optional string member, copied; "" when missing. */
static int
rd_str_def(struct gp_rd *r, const json_t *o, const char *key, char **out)
{
	if (gp_rd_str(r, o, key, true, out) < 0)
		return (-1);
	if (*out == NULL)
		*out = gp_xstrdup("");
	return (0);
}

static int
rd_impl(struct gp_rd *r, const json_t *o, enum gp_impl *out)
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
	gp_rd_key(r, "impl");
	gp_rd_fail(r, "expected an implementation (%s)", gp_buf_str(&b));
	gp_buf_free(&b);
	return (-1);
}

/* The "ops" and "types" tables applies refer to. */
int
gp_rd_tables(struct gp_rd *r, const json_t *top)
{
	json_t *t, *e;
	size_t i;

	if ((t = gp_rd_container(r, top, "ops", true, false)) == NULL)
		return (-1);
	gp_rd_key(r, "ops");
	if (json_array_size(t) > GP_RD_MAX_APPLIES)
		return (gp_rd_fail(r, "too many ops"));
	r->ops = gp_xcalloc(json_array_size(t) + 1, sizeof(*r->ops));
	json_array_foreach(t, i, e) {
		struct gp_rd_op *op = &r->ops[i];
		const char **dst[3] = {&op->op, &op->cls, &op->opname};
		static const char *const keys[3] = {"op", "class", "opname"};

		gp_rd_index(r, i);
		if (gp_rd_object_here(r, e) < 0)
			return (-1);
		for (int k = 0; k < 3; k++) {
			json_t *v = rd_get(r, e, keys[k], "a string", false);

			if (v == NULL)
				return (-1);
			if (!json_is_string(v)) {
				gp_rd_key(r, keys[k]);
				return (gp_rd_fail(r, "expected a string, "
				    "got %s", gp_jsonpos_kind(v)));
			}
			*dst[k] = json_string_value(v);
		}
		if (rd_impl(r, e, &op->impl) < 0)
			return (-1);
		gp_rd_pop(r);
	}
	r->n_ops = (int)json_array_size(t);
	gp_rd_pop(r);

	if ((t = gp_rd_container(r, top, "types", true, false)) == NULL)
		return (-1);
	gp_rd_key(r, "types");
	if (json_array_size(t) > GP_RD_MAX_APPLIES)
		return (gp_rd_fail(r, "too many types"));
	r->types = gp_xcalloc(json_array_size(t) + 1, sizeof(*r->types));
	json_array_foreach(t, i, e) {
		struct gp_prof_io *io = &r->types[i];
		json_t *v;

		gp_rd_index(r, i);
		if (gp_rd_object_here(r, e) < 0)
			return (-1);
		if ((v = rd_get(r, e, "dtype", "a dtype name", false)) == NULL)
			return (-1);
		gp_rd_key(r, "dtype");
		if (!json_is_string(v) || !gp_dtype_parse(json_string_value(v),
		    &io->dtype))
			return (gp_rd_fail(r, "expected a dtype (%s)",
			    gp_dtype_names()));
		gp_rd_pop(r);
		io->ndim = -1;
		if (rd_dims(r, e, "shape", &io->ndim, io->shape, true, false,
		    NULL) < 0 || rd_dims(r, e, "strides", &io->ndim,
		    io->strides, false, true, &io->strides_known) < 0 ||
		    gp_rd_u64(r, e, "nbytes", &io->nbytes) < 0)
			return (-1);
		gp_rd_pop(r);
	}
	r->n_types = (int)json_array_size(t);
	gp_rd_pop(r);
	return (0);
}

/* An input [var, type, producer] or an output [var, type, alias]. */
static int
rd_io(struct gp_rd *r, const json_t *t, struct gp_prof_io *io, bool out,
    int *producer, int id)
{
	static const char *const what_in = "an input [var, type, producer]";
	static const char *const what_out = "an output [var, type] or "
	    "[var, type, alias]";
	json_t *var, *type, *third;
	const char *s;

	if (!json_is_array(t) || (json_array_size(t) != 3 &&
	    !(out && json_array_size(t) == 2)))
		return (gp_rd_fail(r, "expected %s, got %s", out ? what_out :
		    what_in, json_is_array(t) ? "another length" :
		    gp_jsonpos_kind(t)));
	var = json_array_get(t, 0);
	type = json_array_get(t, 1);
	third = json_array_get(t, 2);
	if (!json_is_string(var)) {
		gp_rd_index(r, 0);
		return (gp_rd_fail(r, "the variable: expected a string, got %s",
		    gp_jsonpos_kind(var)));
	}
	if (!json_is_integer(type) || json_integer_value(type) < 0 ||
	    json_integer_value(type) >= r->n_types) {
		gp_rd_index(r, 1);
		return (gp_rd_fail(r, "the type: expected an index into types "
		    "(0 to %d)", r->n_types - 1));
	}
	*io = r->types[json_integer_value(type)];
	io->var = gp_text_dup(json_string_value(var));
	if (!out) {
		if (!json_is_integer(third) || json_integer_value(third) < -1 ||
		    json_integer_value(third) >= id) {
			gp_rd_index(r, 2);
			return (gp_rd_fail(r, "the producer: expected an "
			    "earlier apply (-1 to %d)", id - 1));
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
		gp_rd_index(r, 2);
		return (gp_rd_fail(r, "the alias: expected \"created\", "
		    "\"view\" or \"inplace\""));
	}
	return (0);
}

static int
rd_ios(struct gp_rd *r, const json_t *o, const char *key, bool out,
    struct gp_prof_apply *a, int idx)
{
	json_t *v = gp_rd_container(r, o, key, true, false), *e;
	int max = out ? GP_MAX_OUT : GP_RD_MAX_IO;
	struct gp_prof_io *io;
	size_t i, n;

	if (v == NULL)
		return (-1);
	gp_rd_key(r, key);
	n = json_array_size(v);
	if (n > (size_t)max)
		return (gp_rd_fail(r, "%zu %s (at most %d)", n, key, max));
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
		gp_rd_index(r, i);
		if (rd_io(r, e, &io[i], out, out ? NULL : &a->in_producer[i],
		    idx) < 0)
			return (-1);
		gp_rd_pop(r);
	}
	gp_rd_pop(r);
	return (0);
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return ((x > y) - (x < y));
}

/* The most source nodes an apply may carry (a capture's runs could
 * otherwise ask for any number). */
#define MAX_SRC (1 << 24)

/* Element i of an apply's "src": one index, or (gptop-capture/4) a run
 * [first, last]; *lo and *hi its first and last index. */
static int
rd_src_elem(struct gp_rd *r, const json_t *e, size_t i, json_int_t *lo,
    json_int_t *hi)
{
	if (json_is_array(e)) {
		const json_t *x = json_array_get(e, 0), *y = json_array_get(e, 1);

		*lo = json_is_integer(x) ? json_integer_value(x) : -1;
		*hi = json_is_integer(y) ? json_integer_value(y) : -1;
		if (json_array_size(e) != 2 || *lo < 0 || *lo >= INT32_MAX ||
		    *hi < 0 || *hi >= INT32_MAX) {
			gp_rd_index(r, i);
			return (gp_rd_fail(r, "expected a run of source nodes "
			    "[first, last] (two non-negative integers)"));
		}
		if (*hi < *lo) {
			gp_rd_index(r, i);
			return (gp_rd_fail(r, "a run of source nodes [%lld, "
			    "%lld] that ends before it starts", (long long)*lo,
			    (long long)*hi));
		}
		return (0);
	}
	*lo = *hi = json_is_integer(e) ? json_integer_value(e) : -1;
	if (*lo < 0 || *lo >= INT32_MAX) {
		gp_rd_index(r, i);
		return (gp_rd_fail(r, "expected a source node index "
		    "(a non-negative integer), got %s", json_is_integer(e) ?
		    "a negative integer" : gp_jsonpos_kind(e)));
	}
	return (0);
}

/* An apply's source nodes (gptop-capture/3, optional): indices into the
 * top level's "sources" (since gptop-capture/4 with runs [first, last]
 * among them), kept sorted. */
static int
rd_src(struct gp_rd *r, const json_t *o, struct gp_prof_apply *a)
{
	json_t *v = rd_member(r, o, "src"), *e;
	json_int_t lo, hi;
	size_t i, n = 0;

	if (v == NULL)
		return (0);
	gp_rd_key(r, "src");
	if (!json_is_array(v))
		return (gp_rd_fail(r, "expected an array of source node "
		    "indices, got %s", gp_jsonpos_kind(v)));
	json_array_foreach(v, i, e) {
		if (rd_src_elem(r, e, i, &lo, &hi) < 0)
			return (-1);
		n += (size_t)(hi - lo + 1);
		if (n > MAX_SRC) {
			gp_rd_index(r, i);
			return (gp_rd_fail(r, "more than %d source nodes",
			    MAX_SRC));
		}
	}
	a->src = gp_xmalloc(sizeof(int) * (n + 1));
	json_array_foreach(v, i, e) {
		(void)rd_src_elem(r, e, i, &lo, &hi);
		for (json_int_t x = lo; x <= hi; x++)
			a->src[a->n_src++] = (int)x;
	}
	qsort(a->src, n, sizeof(int), cmp_int);
	gp_rd_pop(r);
	return (0);
}

int
gp_rd_apply(struct gp_rd *r, const json_t *o, struct gp_prof_apply *a,
    int idx)
{
	const struct gp_rd_op *op;
	json_t *v;
	int k;

	if (gp_rd_object_here(r, o) < 0 ||
	    gp_rd_int(r, o, "id", 0, INT32_MAX, &a->id) < 0)
		return (-1);
	if (a->id != idx) {
		gp_rd_key(r, "id");
		return (gp_rd_fail(r, "apply %d is at position %d: applies "
		    "must be in schedule order", a->id, idx));
	}
	if (gp_rd_str(r, o, "name", true, &a->name) < 0)
		return (-1);
	if (r->n_ops == 0) {
		gp_rd_key(r, "op");
		return (gp_rd_fail(r, "the ops table is empty"));
	}
	if (gp_rd_int(r, o, "op", 0, r->n_ops - 1, &k) < 0)
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
	    rd_src(r, o, a) < 0 ||
	    gp_rd_real(r, o, "flops", &a->flops) < 0)
		return (-1);
	v = rd_member(r, o, "link_ns");
	if (v != NULL && gp_rd_real(r, o, "link_ns", &a->link_ns) < 0)
		return (-1);
	v = rd_member(r, o, "jit_ns");
	if (v != NULL && gp_rd_real(r, o, "jit_ns", &a->jit_ns) < 0)
		return (-1);
	if (rd_ios(r, o, "inputs", false, a, idx) < 0 ||
	    rd_ios(r, o, "outputs", true, a, idx) < 0)
		return (-1);
	if (gp_rd_stat(r, o, &a->st) < 0 ||
	    gp_rd_u64(r, o, "first_ns", &a->first_ns) < 0)
		return (-1);
	if (a->name == NULL)
		a->name = default_name(a->op, a->in, a->n_in);
	return (0);
}
