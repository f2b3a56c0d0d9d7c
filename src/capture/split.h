/*
 * split.h: reading a large capture on two threads.  Nearly all of a large
 * capture is its first function's "applies" array: the text is cut into
 * the document with that array emptied and chunks of the array, which
 * this thread and a second one parse and read (each apply straight to its
 * place) while this thread reads the rest of the document.  The result is
 * the tree a parse in one piece gives; on any fault (a piece that does
 * not parse, a value that does not read) the caller reads the text again
 * in one piece, for the messages of that reading.
 */
#ifndef GPTOP_SRC_CAPTURE_SPLIT_H
#define GPTOP_SRC_CAPTURE_SPLIT_H

#include <jansson.h>
#include <stddef.h>

#include "capture/rd.h"
#include "prof/profile.h"

struct gp_split;

/* Cut text and start parsing it, the chunks on a thread of their own;
 * NULL when the text is small or not laid out as gptop writes it. */
struct gp_split	*gp_split_begin(const char *text, size_t len);
/* The document with the first function's applies emptied (NULL when it
 * does not parse).  It lives until gp_split_end. */
json_t		*gp_split_rest(const struct gp_split *sp);
/* The first function's applies, n of them, into f from the chunks (v is
 * the emptied array), read with r's tables; r->sp is the split.  -1 on
 * any fault, with no message: the reading in one piece tells it. */
int		 gp_split_applies(struct gp_rd *r, const json_t *v,
		    struct gp_prof_fn *f, int n);
/* Stop the other thread and free the trees and sp. */
void		 gp_split_end(struct gp_split *sp);

#endif
