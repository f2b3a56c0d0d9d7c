/*
 * report.h: the plain-text report of --batch, in the layout of Theano's
 * ProfileStats.summary() (Global, Class, Ops, Apply; then Memory and
 * Rewriter sections when asked), with its known faults fixed: percentages
 * of a stated denominator, Gflops/s = flops per execution x executions /
 * time, median and p95 beside the mean, strides for every input and output,
 * and a summed profile that keeps each function's applies apart.  Writes
 * only to the FILE it is given.
 */
#ifndef GPTOP_SRC_REPORT_H
#define GPTOP_SRC_REPORT_H

#include <stdio.h>

#include "base/flags.h"
#include "prof/profile.h"
#include "prof/report-opts.h"

void	gp_report_opts_from_flags(struct gp_report_opts *o,
	    const struct gp_flags *f);
/* Function fn's profile (fn < 0: the sum of all functions). */
void	gp_report_function(FILE *fp, const struct gp_profile *p, int fn,
	    const struct gp_report_opts *o);
/* Every function, then (with several) their sum. */
void	gp_report_all(FILE *fp, const struct gp_profile *p,
	    const struct gp_report_opts *o);

/* The Rewriter Profile section (profile_optimizer). */
void	gp_report_rewriters(FILE *fp, const struct gp_profile *p);

#endif
