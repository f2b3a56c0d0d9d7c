/*
 * batch.h: the batch frontend: run a session for N rounds and print the
 * outputs' checksums and the text report (no curses).
 */
#ifndef GPTOP_UI_BATCH_H
#define GPTOP_UI_BATCH_H

#include <stdio.h>

#include "base/outfile.h"
#include "prof/report.h"
#include "session/session.h"

/* Print each function's outputs and each shared variable: dtype, shape and
 * a checksum (sum, min, max, first elements). */
void	ui_batch_outputs(FILE *fp, struct gp_session *s);
/* The report's destination (profiling__destination): stdout, stderr, or
 * a file written atomically through *of (base/outfile.h: a temporary
 * beside it until the close), or NULL with err set. */
FILE	*ui_batch_open_destination(const char *dest, struct gp_outfile *of,
	    struct gp_err *err);
/* Finish a destination file: every write checked, then renamed over the
 * target; 0, or -1 with err set (the target as it was).  Nothing to do
 * for a standard stream. */
int	ui_batch_close_destination(FILE *fp, struct gp_outfile *of,
	    struct gp_err *err);
/* Run and report; returns the exit status. */
int	ui_batch_run(struct gp_session *s, uint64_t rounds,
	    const struct gp_report_opts *ro);
/* --check: validate and summarize. */
void	ui_batch_check(FILE *fp, const struct gp_graph *g);

#endif
