/*
 * fuzz-capture.c: fuzz target for the capture reader
 * (gp_capture_load_buf), memory profiles included.  A capture that loads
 * must be compatible with itself and merge with its clone.  Property: a
 * refused capture gives one line "fuzz.capture.json:LINE:COL: ...".
 */
#include "config.h"

#include "fuzz.h"
#include "capture/capture.h"
#include "prof/profile.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gp_capture_info ci, mi;
	struct gp_profile *p, *c, *m;
	struct gp_err err = {{0}};

	p = gp_capture_load_buf(
	    (const char *)data, size, "fuzz.capture.json", &ci, &err);
	if (p == NULL) {
		/* placed, except for an empty file ("NAME: empty file") */
		fz_check_msg(err.msg, "fuzz.capture.json:", size > 0);
		return (0);
	}
	if (gp_capture_compatible(p, p, &err) < 0)
		fz_fail("a capture is not compatible with itself", err.msg);
	c = gp_profile_clone(p);
	{
		struct gp_profile *const ps[2] = {p, c};
		const struct gp_capture_info infos[2] = {ci, ci};
		const char *const paths[2] = {"a.json", "b.json"};

		m = gp_capture_merge(ps, infos, paths, 2, &mi, &err);
	}
	if (m == NULL)
		fz_fail("a capture does not merge with its clone", err.msg);
	gp_capture_info_done(&mi);
	gp_profile_free(m);
	gp_profile_free(c);
	gp_profile_free(p);
	gp_capture_info_done(&ci);
	return (0);
}
