/*
 * report-opts.h: what the batch report prints (rows, width, which
 * sections): the options of report.h's sections and memreport.h's, set
 * from the flags by gp_report_opts_from_flags (report.h).
 */
#ifndef GPTOP_SRC_REPORT_OPTS_H
#define GPTOP_SRC_REPORT_OPTS_H

#include <stdbool.h>
#include <stdint.h>

struct gp_report_opts {
	int	n_ops;		/* rows of Class and Ops */
	int	n_apply;	/* rows of Apply */
	int	width;		/* line width */
	bool	by_signature;	/* split Ops rows by input signature */
	bool	memory;		/* the Memory Profile section */
	int64_t	min_memory_size;	/* bytes: memory rows below are cut */
	bool	rewriters;	/* the Rewriter Profile section */
};

#endif
