/*
 * advice.h: "Here are tips to potentially make your code run faster", as
 * Theano's report ends, but computed from the profile rather than canned:
 * each rule of a const table looks at the applies' times, dtypes, strides
 * and producers and the rewrites that ran, and speaks only when it finds
 * something, naming the applies and the share of the thunk time at stake.
 * The batch report (gp_advice_report, after gp_report_all) and the TUI's
 * Summary view (gp_advice) show the same tips.
 *
 * Rules (doc/guide.md says more):
 *   float64       half or more of the thunk time in float64 applies
 *   unfused       elementwise applies feeding one another while the fusion
 *                 rewrite did not run
 *   strided_blas  a BLAS apply fed an operand BLAS cannot address in place
 *                 (irregular strides, broadcast, another dtype), which its
 *                 kernel copies on every execution
 *   reduction     reductions taking a quarter or more of the thunk time
 */
#ifndef GPTOP_SRC_ADVICE_H
#define GPTOP_SRC_ADVICE_H

#include <stdio.h>

#include "prof/profile.h"

#define GP_ADVICE_MAX 8

struct gp_tip {
	const char	*rule;		/* the rule's stable name */
	double		 share;		/* of the thunk time at stake, 0..1 */
	char		 text[768];	/* one paragraph */
};

/* The tips for function fn of p (fn < 0: every function), at most max,
 * the most time at stake first.  Returns how many. */
int	gp_advice(const struct gp_profile *p, int fn, struct gp_tip *tips,
	    int max);
/* The rule names, blank-separated ("float64 unfused ..."). */
const char *gp_advice_rules(void);
/* The report's section, lines wrapped at width (at most 100). */
void	gp_advice_report(FILE *fp, const struct gp_profile *p, int fn,
	    int width);

#endif
