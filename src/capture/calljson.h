/*
 * calljson.h: the calls of a function a capture keeps for the Timeline,
 * its "timeline" member (doc/capture-format.md, "Timeline"): the last and
 * the median timed call, each apply's start and time, written and read
 * back (struct gp_prof_call, prof/profile.h).
 */
#ifndef GPTOP_SRC_CALLJSON_H
#define GPTOP_SRC_CALLJSON_H

#include <jansson.h>

#include "capture/rd.h"
#include "prof/profile.h"

/* f's drawn calls as the "timeline" object, or NULL when it has none
 * (the member is then left out). */
json_t	*gp_calljson_to_json(const struct gp_prof_fn *f);
/* The optional "timeline" member of function object o into f->drawn[]
 * (f's applies read): types, counts (one entry per apply) and ranges
 * checked, faults reported through r with their path.  Returns 0 or -1. */
int	gp_calljson_read(struct gp_rd *r, const json_t *o,
	    struct gp_prof_fn *f);

#endif
