/*
 * memjson.h: the memory profile in a capture: the "memory" member of a
 * function (doc/capture-format.md), written and read back.
 */
#ifndef GPTOP_SRC_MEMJSON_H
#define GPTOP_SRC_MEMJSON_H

#include <jansson.h>

#include "prof/memdata.h"
#include "prof/profile.h"
#include "base/util.h"

/*
 * The object holds only what the function's applies do not say: the
 * outputs' variables, types and alias marks are f's, so m must describe
 * f's applies.  gp_memprof_to_json returns NULL when it does not (the
 * capture then leaves "memory" out).
 *
 * gp_memprof_from_json reads one back for f, function fn of n_fn (f's
 * applies already read and checked), validating every member as untrusted
 * input: types, ranges, counts against f's applies and outputs, run
 * lengths, cross-references.  Returns NULL with err set to
 * "PATH: what is wrong", PATH being path (the JSON path of j, such as
 * "functions[0].memory"; NULL or "": none) followed by the bad member's
 * ("functions[0].memory.sim[0].after.live[3]: expected a non-negative
 * integer, got -8"; an index into a column names its entry).
 */
json_t			*gp_memprof_to_json(const struct gp_memprof *m,
			    const struct gp_prof_fn *f);
struct gp_memprof	*gp_memprof_from_json(const json_t *j,
			    const struct gp_prof_fn *f, int fn, int n_fn,
			    const char *path, struct gp_err *err);


#endif
