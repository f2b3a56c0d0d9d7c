/*
 * memdata.c: a memory profile's peaks, cloning and freeing (see
 * memdata.h).
 */
#include "config.h"

#include "prof/memdata.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

uint64_t
gp_memprof_sim_peak(const struct gp_mem_sim *s, enum gp_mem_span span)
{
	switch (span) {
	case GP_MEM_SPAN_FIRST:
		return (s->peak_first);
	case GP_MEM_SPAN_LATER:
		return (s->peak_steady);
	default:
		return (s->peak);
	}
}

uint64_t
gp_memprof_program_peak(const struct gp_memprof *m, enum gp_mem_span span)
{
	return (gp_memprof_sim_peak(gp_memprof_sim(m), span));
}

static void *
dup_mem(const void *p, size_t n)
{
	void *q;

	if (p == NULL)
		return (NULL);
	q = gp_xmalloc(n ? n : 1);
	memcpy(q, p, n);
	return (q);
}

struct gp_memprof *
gp_memprof_clone(const struct gp_memprof *m)
{
	struct gp_memprof *c;

	if (m == NULL)
		return (NULL);
	c = gp_xmalloc(sizeof(*c));
	*c = *m;
	c->ap = dup_mem(m->ap, sizeof(*m->ap) * (size_t)m->n_apply);
	c->outs = dup_mem(m->outs, sizeof(*m->outs) * m->n_outs);
	c->min_order = dup_mem(m->min_order, sizeof(int) * (size_t)m->n_apply);
	c->strs = dup_mem(m->strs, m->strs_len);
	for (int k = 0; k < 2; k++) {
		const struct gp_mem_sim *s = &m->sim[k];
		struct gp_mem_sim *d = &c->sim[k];

		d->after = dup_mem(s->after, sizeof(*s->after) *
		    (size_t)m->n_apply);
		d->during = dup_mem(s->during, sizeof(*s->during) *
		    (size_t)m->n_apply);
		d->bufs = dup_mem(s->bufs, sizeof(*s->bufs) *
		    (size_t)s->n_bufs);
	}
	return (c);
}

void
gp_memprof_free(struct gp_memprof *m)
{
	if (m == NULL)
		return;
	for (int k = 0; k < 2; k++) {
		free(m->sim[k].after);
		free(m->sim[k].during);
		free(m->sim[k].bufs);
	}
	free(m->ap);
	free(m->outs);
	free(m->min_order);
	free(m->strs);
	free(m);
}
