/*
 * batch.h: the batch frontend: run a session for N rounds and print the
 * outputs' checksums and the text report (no curses).
 */
#ifndef GPTOP_UI_BATCH_H
#define GPTOP_UI_BATCH_H

#include <stdio.h>

#include "prof/report.h"
#include "session/session.h"

/* Print each function's outputs and each shared variable: dtype, shape and
 * a checksum (sum, min, max, first elements). */
void	ui_batch_outputs(FILE *fp, struct gp_session *s);
/* The report's destination (profiling__destination): stdout, stderr or a
 * file opened for writing (*close_it then says to fclose it). */
FILE	*ui_batch_open_destination(const char *dest, bool *close_it);
/* Close a destination file, checking every write went through: -1 with
 * errno set (EIO when the failed write's own reason is gone) if not. */
int	ui_batch_close_destination(FILE *fp);
/* Run and report; returns the exit status. */
int	ui_batch_run(struct gp_session *s, uint64_t rounds,
	    const struct gp_report_opts *ro);
/* --check: validate and summarize. */
void	ui_batch_check(FILE *fp, const struct gp_graph *g);

#endif
