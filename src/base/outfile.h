/*
 * outfile.h: writing output files (captures, exports) safely: whole or not
 * at all, and never over an input.
 *
 * Atomic writing: write to the FILE gp_outfile_open returns (a temporary
 * file in the target's folder), then commit (flush, fsync, rename over the
 * target, fsync the folder) or abort (remove the temporary file), so a
 * reader never sees half a file and a failed write leaves the target as
 * it was.  The temporary is recorded meanwhile (gp_fatal_tmp_add), so a
 * fatal ending removes it.  A target that is a device or a pipe, or any
 * path under /dev or /proc (/dev/stdout, /dev/null, also when the
 * standard output is redirected to a file), is written in place.
 *
 * Before a run: gp_outfile_check tries the target as gp_outfile_open
 * will (a temporary file made in its folder, then removed), so a path
 * that cannot be written fails before the run whose result it would
 * hold, not after it.
 *
 * Clashes: before anything is written, gp_outfile_clash finds an output
 * that names the same file as an input (a capture written over the graph
 * it ran) or as another output (one write lost to the other), by device
 * and inode, and for a file not made yet by its folder and name.
 */
#ifndef GPTOP_SRC_BASE_OUTFILE_H
#define GPTOP_SRC_BASE_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "base/util.h"

struct gp_outfile {
	char	*path;
	char	*tmp;
	FILE	*fp;
	int	 slot;	/* gp_fatal_tmp_add's, or -1 */
};

/* Start writing path: the FILE to write to, or NULL with err set. */
FILE	*gp_outfile_open(struct gp_outfile *af, const char *path,
	    struct gp_err *err);
/* Flush, sync and rename over the target; 0, or -1 with err set (the
 * target untouched, the temporary removed). */
int	 gp_outfile_commit(struct gp_outfile *af, struct gp_err *err);
/* Give up: remove the temporary (the target untouched). */
void	 gp_outfile_abort(struct gp_outfile *af);

/* Whether path can be written: 0, or -1 with err set (not a file name,
 * a directory, or a folder where no file can be made).  A device or a
 * pipe is not opened (a FIFO would wait for its reader): 0. */
int	 gp_outfile_check(const char *path, struct gp_err *err);

/* Of n paths, the inputs [0, n_in) then the outputs (a NULL path: not
 * given), the first output that is the same file as an input or as an
 * earlier output: true with *out its index and *with the other's; false
 * when all differ.  Only regular files and files to be made count. */
bool	 gp_outfile_clash(const char *const *paths, int n_in, int n,
	    int *out, int *with);

#endif
