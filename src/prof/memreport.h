/*
 * memreport.h: the "Memory Profile" section of the batch report (the
 * report's others are report.h's): per function, Theano's figures done
 * right, the allocator's (predicted against measured), the storages alive
 * at the peak, the largest applies and the suspects.
 */
#ifndef GPTOP_SRC_MEMREPORT_H
#define GPTOP_SRC_MEMREPORT_H

#include <stdio.h>

#include "prof/profile.h"
#include "prof/report-opts.h"

/* The section for function fn (fn < 0: every function, maxed like
 * Theano, and each one). */
void	gp_memprof_report(FILE *fp, const struct gp_profile *p, int fn,
	    const struct gp_report_opts *o);

#endif
