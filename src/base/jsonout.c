/*
 * jsonout.c: JSON values that jansson always takes (see jsonout.h).
 */
#include "config.h"

#include "base/jsonout.h"

#include <math.h>
#include <stdlib.h>

#include "base/util.h"

json_t *
gp_jsonout_str(const char *s)
{
	json_t *j;
	char *c;

	if (s == NULL)
		s = "";
	j = json_string(s);
	if (j != NULL)
		return (j);
	c = gp_xstrdup(s);
	for (unsigned char *p = (unsigned char *)c; *p != '\0'; p++)
		if (*p >= 0x80)
			*p = '?';
	j = json_string(c);
	free(c);
	return (j != NULL ? j : json_string(""));
}

json_t *
gp_jsonout_u64(uint64_t v)
{
	return (json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX :
	    (json_int_t)v));
}

json_t *
gp_jsonout_real(double v)
{
	return (json_real(isfinite(v) ? v : 0));
}
