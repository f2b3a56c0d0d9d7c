/*
 * rewrite.c: the selection of rewriters by flags, and the phase driver
 * with its measurements (see rewrite.h, stats.h).  The registry is table.c.
 */
#include "config.h"

#include "rewrite/rewrite.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "graph/prov.h"

static const char *const phase_names[GP_PHASE__COUNT] = {
	[GP_PHASE_MERGE] = "merge",
	[GP_PHASE_CANONICALIZE] = "canonicalize",
	[GP_PHASE_STABILIZE] = "stabilize",
	[GP_PHASE_SPECIALIZE] = "specialize",
	[GP_PHASE_FUSION] = "fusion",
	[GP_PHASE_INPLACE] = "inplace",
};

/* Phases that repeat until nothing changes. */
static const bool phase_repeat[GP_PHASE__COUNT] = {
	[GP_PHASE_MERGE] = true,
	[GP_PHASE_CANONICALIZE] = true,
	[GP_PHASE_STABILIZE] = true,
	[GP_PHASE_SPECIALIZE] = true,
	[GP_PHASE_FUSION] = false,
	[GP_PHASE_INPLACE] = false,
};

const char *
gp_rewrite_phase_name(enum gp_phase ph)
{
	return (phase_names[ph]);
}

/* Does rewriter r carry name-or-tag w (len bytes)? */
static bool
matches(const struct gp_rewriter *r, const char *w, size_t len)
{
	const char *t = r->tags;

	if (strlen(r->name) == len && strncmp(r->name, w, len) == 0)
		return (true);
	while (t != NULL && *t != '\0') {
		const char *e = strchr(t, ':');
		size_t tl = e ? (size_t)(e - t) : strlen(t);

		if (tl == len && strncmp(t, w, len) == 0)
			return (true);
		t = e ? e + 1 : NULL;
	}
	return (false);
}

/* Apply fn(sel, i, on) to every rewriter matching each word of list;
 * unknown words are errors. */
static int
each_word(const char *list, const char *flag, bool *sel, bool on,
    bool *seen_required, struct gp_err *err)
{
	size_t n;
	const struct gp_rewriter *const *rs = gp_rewrite_all(&n);
	const char *w = list;

	while (w != NULL && *w != '\0') {
		const char *e = strchr(w, ':');
		size_t len = e ? (size_t)(e - w) : strlen(w);
		bool any = false;

		for (size_t i = 0; len > 0 && i < n; i++)
			if (matches(rs[i], w, len)) {
				any = true;
				if (seen_required != NULL) {
					if (!sel[i])
						return (gp_err_set(err, "flag "
						    "%s: '%.*s' is required "
						    "but rewriter %s is not "
						    "selected", flag, (int)len,
						    w, rs[i]->name));
				} else
					sel[i] = on;
			}
		if (len > 0 && !any) {
			struct gp_buf b = {0};

			for (size_t i = 0; i < n; i++)
				gp_buf_printf(&b, "%s%s", i ? ", " : "",
				    rs[i]->name);
			gp_err_set(err, "flag %s: no rewriter or tag named "
			    "'%.*s' (rewriters: %s; tags: fast_run, "
			    "fast_compile and each phase name)", flag,
			    (int)len, w, b.len ? gp_buf_str(&b) : "none");
			gp_buf_free(&b);
			return (-1);
		}
		w = e ? e + 1 : NULL;
	}
	return (0);
}

int
gp_rewrite_select(const struct gp_flags *f, bool *sel, struct gp_err *err)
{
	size_t n;
	const struct gp_rewriter *const *rs = gp_rewrite_all(&n);
	const char *base = f->optimizer ? f->optimizer : "fast_run";
	bool dummy = true;

	for (size_t i = 0; i < n; i++)
		sel[i] = strcmp(base, "None") != 0 &&
		    matches(rs[i], base, strlen(base));
	if (each_word(f->optimizer_excluding, "optimizer_excluding", sel,
	    false, NULL, err) < 0)
		return (-1);
	if (each_word(f->optimizer_including, "optimizer_including", sel,
	    true, NULL, err) < 0)
		return (-1);
	if (each_word(f->optimizer_requiring, "optimizer_requiring", sel,
	    true, &dummy, err) < 0)
		return (-1);
	return (0);
}

static int
live_nodes(const struct gp_graph *g)
{
	int n = 0;

	for (size_t i = 0; i < g->n_nodes; i++)
		if (!g->nodes[i].dead)
			n++;
	return (n);
}

int
gp_rewrite_run(struct gp_graph *g, const struct gp_flags *f,
    struct gp_rewrite_stats *st, struct gp_err *err)
{
	size_t n;
	const struct gp_rewriter *const *rs = gp_rewrite_all(&n);
	bool *sel = gp_xcalloc(n + 1, sizeof(bool));
	struct gp_rewrite_stat *rw = gp_xcalloc(n + 1, sizeof(*rw));
	struct gp_rewrite_phase_stat *ph = gp_xcalloc(GP_PHASE__COUNT,
	    sizeof(*ph));
	struct gp_rewrite_ctx ctx = {.g = g, .flags = f};
	struct gp_buf active = {0};
	int rc = 0;

	if (st != NULL)
		*st = (struct gp_rewrite_stats){0};
	if (gp_rewrite_select(f, sel, err) < 0) {
		free(sel);
		free(rw);
		free(ph);
		return (-1);
	}
	/* every apply starts as the source of its own work, unless its
	 * front-end said which source it is (graph/prov.h) */
	gp_prov_init(g);
	for (size_t i = 0; i < n; i++) {
		rw[i].name = gp_xstrdup(rs[i]->name);
		rw[i].tags = gp_xstrdup(rs[i]->tags ? rs[i]->tags : "");
		rw[i].phase = gp_xstrdup(phase_names[rs[i]->phase]);
		rw[i].enabled = sel[i];
		if (sel[i])
			gp_buf_printf(&active, "%s%s", active.len ? " " : "",
			    rs[i]->name);
	}
	for (int p = 0; p < GP_PHASE__COUNT && rc == 0; p++) {
		uint64_t t0 = gp_clock_ns();
		bool any = false;

		ph[p].name = gp_xstrdup(phase_names[p]);
		ph[p].nodes_before = live_nodes(g);
		for (size_t i = 0; i < n; i++)
			if (sel[i] && (int)rs[i]->phase == p)
				any = true;
		for (int pass = 0; any && pass < GP_REWRITE_MAX_PASSES &&
		    rc == 0; pass++) {
			int changed = 0;

			ph[p].passes++;
			for (size_t i = 0; i < n && rc == 0; i++) {
				uint64_t r0;
				int k;

				if (!sel[i] || (int)rs[i]->phase != p)
					continue;
				if (rw[i].tried == 0 && rw[i].applied == 0)
					rw[i].nodes_before = live_nodes(g);
				ctx.tried = 0;
				r0 = gp_clock_ns();
				k = rs[i]->run(&ctx, err);
				rw[i].time_ns += (double)(gp_clock_ns() - r0);
				rw[i].tried += ctx.tried;
				if (k < 0) {
					gp_err_prefix(err, "rewriter %s",
					    rs[i]->name);
					rc = -1;
					break;
				}
				rw[i].applied += k;
				rw[i].nodes_after = live_nodes(g);
				changed += k;
			}
			if (changed == 0 || !phase_repeat[p])
				break;
		}
		ph[p].nodes_after = live_nodes(g);
		ph[p].time_ns = (double)(gp_clock_ns() - t0);
	}
	if (rc == 0)
		gp_graph_compact(g);
	{
		struct gp_rewrite_stats got = {
			.n_rw = (int)n,
			.n_phase = GP_PHASE__COUNT,
			.rw = rw,
			.phase = ph,
			.active = gp_xstrdup(active.len ? gp_buf_str(&active) :
			    "(none)"),
			.jit_ns = ctx.jit_ns,
		};

		if (st != NULL)
			*st = got;
		else
			gp_rewrite_stats_free(&got);
	}
	gp_buf_free(&active);
	free(sel);
	return (rc);
}

void
gp_rewrite_stats_free(struct gp_rewrite_stats *st)
{
	for (int i = 0; i < st->n_rw; i++) {
		free(st->rw[i].name);
		free(st->rw[i].tags);
		free(st->rw[i].phase);
	}
	free(st->rw);
	for (int p = 0; p < st->n_phase; p++)
		free(st->phase[p].name);
	free(st->phase);
	free(st->active);
	*st = (struct gp_rewrite_stats){0};
}
