/*
 * fuzz-flags.c: fuzz target for the flag parser (GPTOP_FLAGS, --flags)
 * and the rewriter selection the flags make.  Properties: a refused
 * string gives one line "--flags: ..."; the flags accepted print
 * (gp_flags_string) as a string that parses back to the same flags.
 */
#include "config.h"

#include "fuzz.h"
#include "base/flags.h"
#include "rewrite/rewrite.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_flags f, f2;
	struct gp_err err = {{0}};
	char *s, *s2;
	size_t nrw;
	bool *sel;

	if ((s = malloc(size + 1)) == NULL)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	gp_flags_init(&f);
	if (gp_flags_parse(&f, s, "--flags", &err) < 0) {
		fz_check_msg(err.msg, "--flags: ", 0);
		gp_flags_done(&f);
		free(s);
		return (0);
	}
	free(s);
	s = gp_flags_string(&f);
	gp_flags_init(&f2);
	if (gp_flags_parse(&f2, s, "--flags", &err) < 0)
		fz_fail("the flags' own string does not parse", err.msg);
	s2 = gp_flags_string(&f2);
	if (strcmp(s, s2) != 0)
		fz_fail("the flags' string does not round-trip", s2);
	gp_rewrite_all(&nrw);
	sel = calloc(nrw + 1, sizeof(*sel));
	if (gp_rewrite_select(&f, sel, &err) < 0)
		fz_check_msg(err.msg, NULL, 0);
	free(sel);
	free(s);
	free(s2);
	gp_flags_done(&f);
	gp_flags_done(&f2);
	return (0);
}
