/*
 * calljson.c: the "timeline" member of a capture's function (see
 * calljson.h and doc/capture-format.md, "Timeline"): the last and the
 * median timed call, each with its number, time and span and two
 * columns, the applies' starts and times.
 *
 * Columns are written as the memory profile's are (column.h): a string
 * of space-separated integers, the first value then each difference from
 * the one before, "D*N" for a run of N differences D.  Starts grow by
 * about each apply's time, so a 100,000-apply call costs some 6 bytes an
 * apply per column.
 */
#include "config.h"

#include "capture/calljson.h"

#include <stdlib.h>
#include <string.h>

#include "base/jsonout.h"
#include "capture/column.h"

static const char *const drawn_key[GP_PROF_DRAWN__COUNT] = {
	[GP_PROF_LAST] = "last",
	[GP_PROF_MEDIAN] = "median",
};

/*
 * Writing.
 */

static json_t *
col_json(const uint64_t *v, int n)
{
	struct gp_col c = {0};

	for (int i = 0; i < n; i++)
		gp_col_put_u(&c, v[i]);
	return (gp_col_json(&c));
}

static json_t *
call_json(const struct gp_prof_call *c)
{
	json_t *o = json_object();

	json_object_set_new_nocheck(o, "seq", gp_jsonout_u64(c->seq));
	json_object_set_new_nocheck(o, "call_ns", gp_jsonout_u64(c->call_ns));
	json_object_set_new_nocheck(o, "span_ns", gp_jsonout_u64(c->span_ns));
	json_object_set_new_nocheck(o, "start", col_json(c->start,
	    c->n_apply));
	json_object_set_new_nocheck(o, "ns", col_json(c->ns, c->n_apply));
	return (o);
}

json_t *
gp_calljson_to_json(const struct gp_prof_fn *f)
{
	json_t *o = NULL;

	for (int k = 0; k < GP_PROF_DRAWN__COUNT; k++) {
		const struct gp_prof_call *c = &f->drawn[k];

		if (c->seq == 0 || c->n_apply != f->n_apply)
			continue;
		if (o == NULL)
			o = json_object();
		json_object_set_new_nocheck(o, drawn_key[k], call_json(c));
	}
	return (o);
}

/*
 * Reading.
 */

/* Column key of o: exactly n values, each from 0 to hi, into v. */
static int
read_col(struct gp_rd *r, const json_t *o, const char *key, int n,
    uint64_t hi, const char *hi_what, uint64_t *v)
{
	const json_t *j = json_object_get(o, key);
	struct gp_col_error e;
	char msg[160];

	if (j == NULL)
		return (gp_rd_fail(r, "missing \"%s\" (a column: a string of "
		    "numbers)", key));
	gp_rd_key(r, key);
	if (!json_is_string(j))
		return (gp_rd_fail(r, "expected a column (a string of "
		    "numbers), got %s", gp_jsonpos_kind(j)));
	/* int64_t and uint64_t may alias: the values are from 0 up */
	if (gp_col_decode(json_string_value(j), json_string_length(j),
	    (size_t)n, 0, (int64_t)hi, (int64_t *)v, &e) < 0) {
		if (gp_col_fault_at(&e))
			gp_rd_index(r, e.at);
		gp_col_fault_text(&e, (size_t)n, "one per apply", hi_what, msg,
		    sizeof(msg));
		return (gp_rd_fail(r, "%s", msg));
	}
	gp_rd_pop(r);
	return (0);
}

static int
read_call(struct gp_rd *r, const json_t *o, const char *key, int n,
    struct gp_prof_call *c)
{
	const json_t *j = json_object_get(o, key);

	if (j == NULL || json_is_null(j))
		return (0);
	gp_rd_key(r, key);
	if (gp_rd_object_here(r, j) < 0)
		return (-1);
	gp_prof_call_fit(c, n);
	if (gp_rd_u64(r, j, "seq", &c->seq) < 0 ||
	    gp_rd_u64(r, j, "call_ns", &c->call_ns) < 0 ||
	    gp_rd_u64(r, j, "span_ns", &c->span_ns) < 0)
		return (-1);
	if (c->seq == 0) {
		gp_rd_key(r, "seq");
		return (gp_rd_fail(r, "expected a timed call's number (from "
		    "1), got 0"));
	}
	if (c->span_ns > (uint64_t)GP_COL_MAX) {
		gp_rd_key(r, "span_ns");
		return (gp_rd_fail(r, "%llu ns is out of range",
		    (unsigned long long)c->span_ns));
	}
	if (read_col(r, j, "start", n, c->span_ns, "the call's span",
	    c->start) < 0 || read_col(r, j, "ns", n, c->span_ns,
	    "the call's span", c->ns) < 0)
		return (-1);
	gp_rd_pop(r);
	return (0);
}

int
gp_calljson_read(struct gp_rd *r, const json_t *o, struct gp_prof_fn *f)
{
	const json_t *t = json_object_get(o, "timeline");

	if (t == NULL || json_is_null(t))
		return (0);
	gp_rd_key(r, "timeline");
	if (gp_rd_object_here(r, t) < 0)
		return (-1);
	for (int k = 0; k < GP_PROF_DRAWN__COUNT; k++)
		if (read_call(r, t, drawn_key[k], f->n_apply,
		    &f->drawn[k]) < 0) {
			/* none half read */
			for (int q = 0; q < GP_PROF_DRAWN__COUNT; q++)
				gp_prof_call_free(&f->drawn[q]);
			return (-1);
		}
	gp_rd_pop(r);
	return (0);
}
