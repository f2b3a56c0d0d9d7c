/*
 * jsonpos.h: the error-position locator.  jansson reports line and column
 * only for syntax errors; a semantic error (a bad dtype, an unknown name)
 * is found in the parsed tree, and this scanner walks the document text to
 * the same value to say where it is.
 *
 * A path is a sequence of steps from the top-level value: an object key or
 * an array index.  Lines and columns are 1-based and count characters
 * (UTF-8 sequences), as jansson's do, so both kinds of error read the same.
 * The scanner expects text jansson has accepted (with duplicate keys
 * rejected, so a key names one member) but stays within len on any input.
 * Each lookup is one pass over the text: it is meant for error paths.
 */
#ifndef GPTOP_SRC_JSONPOS_H
#define GPTOP_SRC_JSONPOS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct gp_jsonpos_step {
	const char	*key;	/* object member, or NULL: array element */
	size_t		 index;	/* the element when key is NULL */
};

/* Where the value at path starts (its first character), or, when
 * at_key and the last step is an object key, where that key's string
 * starts.  Returns 0; or -1 when the path is not in the text, with
 * *line and *col at the deepest value found on the way. */
int	gp_jsonpos_find(const char *text, size_t len,
	    const struct gp_jsonpos_step *path, int n, bool at_key,
	    int *line, int *col);

/* One element of an array (or member of an object) found by
 * gp_jsonpos_each: where it starts (the member's key for an object) and
 * the byte range of its text, [start, end). */
struct gp_jsonpos_elem {
	int	line, col;
	size_t	start, end;
};

/* Call fn once per element of the array at path, or per member of the
 * object at path, in text order, in one pass over the text.  Returns the
 * count, or -1 when path is not there or is not a container. */
long	gp_jsonpos_each(const char *text, size_t len,
	    const struct gp_jsonpos_step *path, int n,
	    void (*fn)(void *ctx, size_t i, const struct gp_jsonpos_elem *e),
	    void *ctx);

/* The byte range [*start, *end) of the value at path.  Returns 0, or -1
 * when the path is not there. */
int	gp_jsonpos_span(const char *text, size_t len,
	    const struct gp_jsonpos_step *path, int n, size_t *start,
	    size_t *end);

/* The byte offset where the string token ending at byte offset end (just
 * past its closing quote) starts; end itself when no string ends there.
 * For jansson's duplicate-key error, which points past the key. */
size_t	gp_jsonpos_string_start(const char *text, size_t len, size_t end);

/* Line and column of byte offset off (clamped to len). */
void	gp_jsonpos_of_offset(const char *text, size_t len, size_t off,
	    int *line, int *col);

/* What v is, for messages: "an object", "an integer", "null" ... */
const char	*gp_jsonpos_kind(const json_t *v);

#endif
