/*
 * merge.c: summing captures of one graph and one rewrite set (see
 * gp_capture_merge() in capture.h), and telling when two can be summed.
 */
#include "config.h"

#include "capture/capture.h"

#include <stdlib.h>
#include <string.h>

#include "prof/memprof.h"

/* The strides of n inputs or outputs that d does not know and s does. */
static void
take_strides(struct gp_prof_io *d, const struct gp_prof_io *s, int n)
{
	for (int k = 0; k < n; k++)
		if (!d[k].strides_known && s[k].strides_known) {
			memcpy(d[k].strides, s[k].strides,
			    sizeof(s[k].strides));
			d[k].strides_known = true;
		}
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
				same = gp_prof_io_same_shape(&x->in[k],
				    &y->in[k]) &&
				    x->in_producer[k] == y->in_producer[k];
			for (int k = 0; same && k < x->n_out; k++)
				same = gp_prof_io_same_shape(&x->out[k],
				    &y->out[k]);
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
		int nrec = gp_prof_recent(d, rec);

		/* the memory prediction is the graph's, the same in every
		 * capture: the earliest's, or the first that has one (the
		 * measured peak, below, is the largest) */
		for (int j = 1; j < n && d->mem == NULL; j++)
			if (p[ord[j]]->fn[f].mem != NULL)
				d->mem = gp_memprof_clone(p[ord[j]]->fn[f].mem);
		/* the calls drawn along time: the latest capture's that has
		 * them (its last call is the last of all) */
		for (int j = n - 1; j > 0; j--)
			if (p[ord[j]]->fn[f].drawn[GP_PROF_LAST].seq != 0) {
				for (int k = 0; k < GP_PROF_DRAWN__COUNT; k++)
					gp_prof_call_copy(&d->drawn[k],
					    &p[ord[j]]->fn[f].drawn[k]);
				break;
			}

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
			nrec += gp_prof_recent(s, rec + nrec);
			for (int i = 0; i < d->n_apply; i++) {
				struct gp_prof_apply *da = &d->ap[i];
				const struct gp_prof_apply *sa = &s->ap[i];

				gp_prof_stat_merge(&da->st, &sa->st);
				if (over == NULL && da->st.total >=
				    (uint64_t)INT64_MAX)
					over = gp_xasprintf("functions[%d]."
					    "applies[%d].total", f, i);
				take_strides(da->in, sa->in, da->n_in);
				take_strides(da->out, sa->out, da->n_out);
			}
		}
		{
			int keep = nrec;

			if ((uint64_t)keep > d->call.n)
				keep = (int)d->call.n;
			if (keep > GP_PROF_RECENT)
				keep = GP_PROF_RECENT;
			gp_prof_recent_set(d, rec + nrec - keep, keep);
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
			free(out_ci->idle);
			out_ci->cpu = e->cpu ? gp_xstrdup(e->cpu) : NULL;
			out_ci->os = e->os ? gp_xstrdup(e->os) : NULL;
			out_ci->cc = e->cc ? gp_xstrdup(e->cc) : NULL;
			out_ci->cc_version = e->cc_version ?
			    gp_xstrdup(e->cc_version) : NULL;
			out_ci->blas = e->blas ? gp_xstrdup(e->blas) : NULL;
			out_ci->cores = e->cores;
			out_ci->threads = e->threads;
			out_ci->idle = e->idle ? gp_xstrdup(e->idle) : NULL;
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
