/*
 * json-text.c: the graph file's text into JSON: checked first (not empty,
 * UTF-8, no byte order mark, looks like JSON), then parsed by jansson with
 * duplicate keys rejected and its syntax errors reworded.  A big graph's
 * "nodes" array is parsed in two pieces on two threads while the rest is
 * parsed too, each piece keeping its lines and columns; anything odd and
 * the text is parsed whole again, for jansson's own message.
 */
#include "config.h"

#include "load/json-loader.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The text, before jansson. */

/* Offset of the first byte that is not valid UTF-8, or n. */
static size_t
utf8_invalid(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = s[i];
		size_t len;
		uint32_t cp, min;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			len = 2, cp = c & 0x1f, min = 0x80;
		else if (c >= 0xe0 && c <= 0xef)
			len = 3, cp = c & 0x0f, min = 0x800;
		else if (c >= 0xf0 && c <= 0xf4)
			len = 4, cp = c & 0x07, min = 0x10000;
		else
			return (i);
		if (n - i < len)
			return (i);
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return (i);
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return (i);
		i += len;
	}
	return (n);
}

/* Does the text start with a JSON literal (true, false, null)? */
static bool
literal_at(const char *p, size_t n)
{
	static const char *const lits[] = {"true", "false", "null"};

	for (size_t i = 0; i < 3; i++) {
		size_t l = strlen(lits[i]);

		if (n >= l && memcmp(p, lits[i], l) == 0 && (n == l ||
		    strchr(" \t\r\n,]}", p[l]) != NULL))
			return (true);
	}
	return (false);
}

int
gp_load_check_text(struct loader *L)
{
	const unsigned char *s = (const unsigned char *)L->text;
	size_t i = 0, bad;
	int line, col;

	while (i < L->len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
	    s[i] == '\r'))
		i++;
	if (i == L->len)
		return (gp_err_set(L->err, "%s:1:1: the file is empty%s: "
		    "expected a graph, a JSON object {\"format\": \""
		    FORMAT "\", ...}", L->file, L->len ? " (only white space)" :
		    ""));
	if ((bad = utf8_invalid(s, L->len)) < L->len) {
		gp_jsonpos_of_offset(L->text, L->len, bad, &line, &col);
		return (gp_err_set(L->err, "%s:%d:%d: invalid UTF-8 (byte "
		    "0x%02x): expected UTF-8 text", L->file, line, col,
		    s[bad]));
	}
	gp_jsonpos_of_offset(L->text, L->len, i, &line, &col);
	if (L->len - i >= 3 && memcmp(s + i, "\xef\xbb\xbf", 3) == 0)
		return (gp_err_set(L->err, "%s:%d:%d: not JSON: the file "
		    "starts with a byte order mark (U+FEFF), which JSON does "
		    "not allow: expected '{'", L->file, line, col));
	if (strchr("{[\"-0123456789tfn", s[i]) == NULL ||
	    (strchr("tfn", s[i]) != NULL && !literal_at(L->text + i,
	    L->len - i))) {
		if (s[i] >= 0x20 && s[i] < 0x7f)
			return (gp_err_set(L->err, "%s:%d:%d: not JSON (the "
			    "text starts with '%c'): expected a graph, a JSON "
			    "object {\"format\": \"" FORMAT "\", ...}", L->file,
			    line, col, s[i]));
		return (gp_err_set(L->err, "%s:%d:%d: not JSON (the text "
		    "starts with byte 0x%02x): expected a graph, a JSON object "
		    "{\"format\": \"" FORMAT "\", ...}", L->file, line, col,
		    s[i]));
	}
	return (0);
}

static int
syntax_error_msg(struct loader *L, const json_error_t *je)
{
	enum json_error_code code = json_error_code(je);
	int line = je->line > 0 ? je->line : 1;
	int col = je->column > 0 ? je->column : 1;

	if (code == json_error_duplicate_key && je->position > 0) {
		size_t end = (size_t)je->position;
		size_t start = gp_jsonpos_string_start(L->text, L->len, end);

		if (start < end) {
			gp_jsonpos_of_offset(L->text, L->len, start, &line,
			    &col);
			return (gp_err_set(L->err, "%s:%d:%d: duplicate key "
			    "%.*s: expected each key once in an object (each "
			    "name once)", L->file, line, col,
			    (int)(end - start > 200 ? 200 : end - start),
			    L->text + start));
		}
	}
	if (code == json_error_stack_overflow)
		return (gp_err_set(L->err, "%s:%d:%d: JSON syntax error: %s "
		    "(jansson reads at most %d levels of nesting)", L->file,
		    line, col, je->text, JSON_PARSER_MAX_DEPTH));
	if (strncmp(je->text, "real number overflow", 20) == 0)
		return (gp_err_set(L->err, "%s:%d:%d: JSON syntax error: %s: "
		    "expected a finite number (at most 1.8e308 in "
		    "magnitude)", L->file, line, col, je->text));
	if (strstr(je->text, "near 'NaN'") != NULL ||
	    strstr(je->text, "near 'Infinity'") != NULL ||
	    strstr(je->text, "near '-Infinity'") != NULL)
		return (gp_err_set(L->err, "%s:%d:%d: JSON syntax error: %s: "
		    "JSON has no NaN or Infinity, expected a finite number",
		    L->file, line, col, je->text));
	return (gp_err_set(L->err, "%s:%d:%d: JSON syntax error: %s",
	    L->file, line, col, je->text));
}

static int
syntax_error(struct loader *L, const json_error_t *je)
{
	/* jansson quotes the text as it is: gp_err_set escapes it */
	return (syntax_error_msg(L, je));
}

/* Parsing. */

/* Split parsing pays off from this much node text on. */
#define SPLIT_MIN	(1 << 20)
/* The tail's share of the nodes' text, in percent (see parse_split). */
#define TAIL_PCT	55
/* The most padding a piece may need to keep its line and column. */
#define PAD_MAX		4096

static void *
parse_part(void *vp)
{
	struct part *p = vp;

	(void)gp_json_arena_begin(&p->arena, 64 * p->len + (1 << 20));
	p->root = json_loadb(p->buf, p->len, JSON_REJECT_DUPLICATES |
	    JSON_DECODE_ANY, &p->je);
	gp_json_arena_leave(&p->arena);
	return (NULL);
}

/* The text of a parsed piece is not needed any more: jansson keeps
 * copies of what it needs. */
static void
drop_text(struct part *p)
{
	if (p->owned)
		free((char *)p->buf);
	p->buf = NULL;
	p->owned = false;
}

static void
join_tail(struct doc *d)
{
	if (d->pending)
		pthread_join(d->th, NULL);
	d->pending = false;
}

static void
release_part(struct part *p)
{
	gp_json_arena_end(&p->arena, p->root);
	p->root = NULL;
	if (p->owned)
		free((char *)p->buf);
	p->buf = NULL;
	p->owned = false;
}

static void
collect_elem(void *vd, size_t i, const struct gp_jsonpos_elem *e)
{
	struct doc *d = vd;

	gp_grow(&d->elems, &d->cap_elems, i + 1, sizeof(*d->elems));
	d->elems[i] = *e;
	d->n_elems = i + 1;
}

static bool
is_space(char c)
{
	return (c == ' ' || c == '\t' || c == '\n' || c == '\r');
}

static bool
all_space(const char *p, const char *end)
{
	for (; p < end; p++)
		if (!is_space(*p))
			return (false);
	return (true);
}

static size_t
count_chars(const char *p, const char *end)
{
	size_t n = 0;

	for (; p < end; p++)
		if (((unsigned char)*p & 0xc0) != 0x80)
			n++;
	return (n);
}

/* text[start, end) in a buffer of its own at the same line and column,
 * wrapped in "[[ ]]" so it nests as deep as in the document (jansson's
 * depth limit then falls at the same place). */
static bool
wrap_piece(struct part *p, const char *text, size_t start, size_t end,
    int line, int col)
{
	size_t nl, sp, n = end - start;
	char *b, *q;

	if (col > PAD_MAX || line < 1)
		return (false);
	if (col >= 3) {
		nl = (size_t)line - 1;
		sp = (size_t)col - 3;
	} else if (line >= 2) {
		nl = (size_t)line - 2;
		sp = (size_t)col - 1;
	} else
		return (false);
	q = b = gp_xmalloc(nl + sp + n + 8);
	memset(q, '\n', nl);
	q += nl;
	if (col >= 3) {
		memset(q, ' ', sp);
		q += sp;
		*q++ = '[';
		*q++ = '[';
	} else {
		*q++ = '[';
		*q++ = '[';
		*q++ = '\n';
		memset(q, ' ', sp);
		q += sp;
	}
	memcpy(q, text + start, n);
	q += n;
	*q++ = ']';
	*q++ = ']';
	p->buf = b;
	p->len = (size_t)(q - b);
	p->owned = true;
	return (true);
}

/* The tail's nodes, once parsed; false if they are not all there. */
static bool
take_tail(struct doc *d)
{
	json_t *tail = json_array_get(d->part[2].root, 0);

	drop_text(&d->part[2]);
	if (json_array_size(tail) != d->n_nodes - d->n_head)
		return (false);
	for (size_t i = d->n_head; i < d->n_nodes; i++)
		d->nodes[i] = json_array_get(tail, i - d->n_head);
	return (true);
}

/*
 * A big graph is mostly its "nodes" array, and jansson parses at one
 * speed, so the array is parsed in two pieces on two threads while the
 * rest of the document (with the array emptied) is parsed as well.  Each
 * piece keeps its text at the same line and column, so anything the
 * pieces hold is where it is in the file.  The gaps between the pieces
 * are checked here; if anything fails, the caller parses the whole text
 * again for jansson's own message.
 */
static bool
parse_split(struct loader *L)
{
	struct doc *d = &L->doc;
	const char *t = L->text;
	const struct gp_jsonpos_elem *e = d->elems;
	size_t n = d->n_elems, open, close, k, nl = 0, pad;
	const char *lastnl;
	json_t *head, *jn;
	char *b;

	if (n < 2 || e[n - 1].end - e[0].start < SPLIT_MIN)
		return (false);
	/* the array's brackets: only white space between them and the
	 * first and last elements */
	for (open = e[0].start; open > 0 && is_space(t[open - 1]); open--)
		;
	for (close = e[n - 1].end; close < L->len && is_space(t[close]);
	    close++)
		;
	if (open == 0 || t[--open] != '[' || close == L->len ||
	    t[close++] != ']')
		return (false);
	/* the text between the elements: white space and one comma */
	for (size_t i = 0; i + 1 < n; i++) {
		const char *p = t + e[i].end, *q = t + e[i + 1].start;
		const char *c = memchr(p, ',', (size_t)(q - p));

		if (c == NULL || !all_space(p, c) || !all_space(c + 1, q))
			return (false);
	}
	/* the tail, parsed by the second thread while this one parses the
	 * rest and the head and then reads the head's nodes: TAIL_PCT of the
	 * nodes' text keeps both threads about equally busy */
	for (k = 1; k < n - 1; k++)
		if ((e[n - 1].end - e[k].start) * 100 <=
		    (e[n - 1].end - e[0].start) * TAIL_PCT)
			break;
	/* the rest: the array emptied, keeping later lines and columns */
	for (const char *p = t + open + 1;
	    (p = memchr(p, '\n', (size_t)(t + close - 1 - p))) != NULL; p++)
		nl++;
	lastnl = NULL;
	for (const char *p = t + close - 1; p > t + open; p--)
		if (p[-1] == '\n') {
			lastnl = p;
			break;
		}
	pad = count_chars(lastnl != NULL ? lastnl : t + open + 1,
	    t + close - 1);
	if (pad > PAD_MAX)
		return (false);
	b = gp_xmalloc(L->len - (close - 1 - open - 1) + nl + pad + 1);
	memcpy(b, t, open + 1);
	memset(b + open + 1, '\n', nl);
	memset(b + open + 1 + nl, ' ', pad);
	memcpy(b + open + 1 + nl + pad, t + close - 1, L->len - (close - 1));
	d->part[0] = (struct part){.buf = b, .owned = true,
	    .len = open + 1 + nl + pad + L->len - (close - 1)};
	if (!wrap_piece(&d->part[1], t, e[0].start, e[k - 1].end, e[0].line,
	    e[0].col) || !wrap_piece(&d->part[2], t, e[k].start,
	    e[n - 1].end, e[k].line, e[k].col))
		goto fail;

	/* the tail goes on in the background while the head's nodes are
	 * read (load_nodes calls finish_parse when it reaches the tail) */
	d->pending = pthread_create(&d->th, NULL, parse_part,
	    &d->part[2]) == 0;
	parse_part(&d->part[0]);
	parse_part(&d->part[1]);
	if (!d->pending)
		parse_part(&d->part[2]);
	/* jansson keeps copies of what it needs: drop the pieces now */
	for (int i = 0; i < 2; i++)
		drop_text(&d->part[i]);

	head = json_array_get(d->part[1].root, 0);
	jn = json_object_get(d->part[0].root, "nodes");
	if (!json_is_object(d->part[0].root) || !json_is_array(jn) ||
	    json_array_size(jn) != 0 || json_array_size(head) != k)
		goto fail;
	d->nodes = gp_xcalloc(n + 1, sizeof(*d->nodes));
	for (size_t i = 0; i < k; i++)
		d->nodes[i] = json_array_get(head, i);
	d->n_nodes = n;
	d->n_head = k;
	L->root = d->part[0].root;
	if (!d->pending && !take_tail(d))
		goto fail;
	return (true);
fail:
	join_tail(d);
	for (int i = 0; i < 3; i++)
		release_part(&d->part[i]);
	free(d->nodes);
	d->nodes = NULL;
	d->n_nodes = d->n_head = 0;
	return (false);
}

/* Wait for the tail of a split parse; false with the error set.  A tail
 * that does not parse means the text does not: it is parsed again whole,
 * for jansson's own message (and should that succeed, the load starts
 * over without splitting). */
bool
gp_load_finish_parse(struct loader *L)
{
	struct doc *d = &L->doc;
	struct part whole = {.buf = L->text, .len = L->len};

	if (!d->pending)
		return (true);
	join_tail(d);
	if (take_tail(d))
		return (true);
	parse_part(&whole);
	if (whole.root == NULL)
		syntax_error(L, &whole.je);
	else {
		L->retry = true;
		gp_err_set(L->err, "%s: the nodes could not be read in pieces",
		    L->file);
	}
	release_part(&whole);
	return (false);
}

/* Parse the text into L->root and L->doc; false with the error set. */
bool
gp_load_parse(struct loader *L)
{
	struct doc *d = &L->doc;
	struct gp_jsonpos_step at = {.key = "nodes"};
	struct part *p = &d->part[0];
	json_t *jn;

	/* where the nodes are: their positions, and the pieces to split */
	d->have_elems = gp_jsonpos_each(L->text, L->len, &at, 1,
	    collect_elem, d) >= 0;
	if (d->have_elems && !L->no_split && parse_split(L))
		return (true);
	*p = (struct part){.buf = L->text, .len = L->len};
	parse_part(p);
	if (p->root == NULL) {
		syntax_error(L, &p->je);
		release_part(p);
		return (false);
	}
	L->root = p->root;
	jn = json_object_get(p->root, "nodes");
	if (json_is_object(p->root) && json_is_array(jn)) {
		d->n_nodes = json_array_size(jn);
		d->nodes = gp_xmalloc(sizeof(*d->nodes) * (d->n_nodes + 1));
		for (size_t i = 0; i < d->n_nodes; i++)
			d->nodes[i] = json_array_get(jn, i);
	}
	return (true);
}

void
gp_load_release_doc(struct doc *d)
{
	join_tail(d);
	for (int i = 0; i < 3; i++)
		release_part(&d->part[i]);
	free(d->nodes);
	free(d->elems);
}
