/*
 * jsonout.h: values for the JSON gptop writes (captures, traces, the
 * memory profile), made so that jansson always takes them: a string whose
 * bytes that are not UTF-8 become '?' (names come from graph files and may
 * hold any bytes), a count capped at INT64_MAX (JSON integers are signed
 * 64-bit in jansson), and a real that is finite (0 for NaN and the
 * infinities, which JSON cannot hold).
 */
#ifndef GPTOP_SRC_BASE_JSONOUT_H
#define GPTOP_SRC_BASE_JSONOUT_H

#include <jansson.h>
#include <stdint.h>

/* s as a JSON string (NULL: ""). */
json_t	*gp_jsonout_str(const char *s);
json_t	*gp_jsonout_u64(uint64_t v);
json_t	*gp_jsonout_real(double v);

#endif
