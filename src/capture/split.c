/*
 * split.c: reading a large capture on two threads (see split.h): the
 * cutting of the text, the two threads' shared work, and the applies of
 * the chunks read to their places.
 */
#include "config.h"

#include "capture/split.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/jsonarena.h"
#include "base/jsonpos.h"
#include "capture/rd.h"

/*
 * jansson parses at one speed, and nearly all of a large
 * capture is the first function's "applies" array, so the array is cut at
 * element boundaries into chunks, and two threads share the work: this
 * one parses the rest of the document (the array emptied) and reads it,
 * and both parse chunks and read the applies of parsed chunks (once the
 * chunks before are parsed, which places their applies), taking whatever
 * is there to do next.  Each chunk is wrapped in as many brackets as
 * enclose the array, so that jansson's depth limit falls where it does in
 * the whole text.  When the rest parses with the array empty where the
 * scanner found it, and each chunk parses to a list of at least one
 * element inside exactly its wrapping, the whole text parses to the same
 * tree; anything else (a piece that does not parse, a value that does not
 * read) and the text is read again in one piece, which gives the messages
 * of a reading in one piece.
 */

/* Splitting pays off from this much array text on. */
#define SPLIT_MIN	((size_t)1 << 20)
/* About this much array text to a chunk, and at most this many chunks. */
#define SPLIT_CHUNK	((size_t)1 << 20)
#define SPLIT_MAX	64
/* The array's depth: the document, "functions", a function, "applies". */
#define SPLIT_DEPTH	4

struct chunk {
	size_t		 from, to;	/* text[from, to) */
	json_t		*root;
	json_t		*elems;		/* the array in the wrapping */
	/* the rest under split.lock */
	bool		 done;		/* parsed */
	bool		 mine;		/* parsed on split.arena[0] */
	int		 read;		/* 0 not yet, 1 being read, 2 read */
	/* its first apply's index, once known */
	size_t		 base;
};

struct gp_split {
	const char		*text;
	json_t			*rest;	/* the document, the array emptied */
	struct chunk		 ck[SPLIT_MAX];
	int			 n_ck;
	pthread_mutex_t		 lock;
	pthread_cond_t		 cond;	/* something changed */
	/* under lock: */
	int			 next;	/* the next chunk to parse */
	int			 known;	/* chunks [0, known) are placed */
	int			 n_read;	/* chunks read */
	bool			 stop;	/* do no more */
	/* a chunk did not parse or read */
	bool			 failed;
	/* how to read, once applies can be */
	const struct gp_rd	*rd;
	struct gp_prof_apply	*ap;	/* where they go */
	size_t			 n_ap;
	pthread_t		 th;
	bool			 running;	/* th is working */
	/* this thread's jansson memory, and the other's */
	struct gp_json_arena	 arena[2];
};

/* Parse text[from, to) (when wrap, in SPLIT_DEPTH brackets). */
static json_t *
parse_text(const char *text, size_t from, size_t to, bool wrap)
{
	size_t n = to - from, w = wrap ? SPLIT_DEPTH : 0;
	json_t *root;
	char *b = gp_xmalloc(n + 2 * w + 1);

	memset(b, '[', w);
	memcpy(b + w, text + from, n);
	memset(b + w + n, ']', w);
	root = json_loadb(b, n + 2 * w, JSON_REJECT_DUPLICATES, NULL);
	free(b);
	return (root);
}

/*
 * Do one thing there is to do, as thread `me` (0 this one, 1 the other),
 * reading with r (the other thread's r is a copy of split.rd, taken when
 * that is set): read a parsed and placed chunk's applies, or else parse
 * the next chunk.  1 when something was done, 0 after waiting for
 * something to do, -1 when there will be nothing more.
 */
static int
split_step(struct gp_split *sp, struct gp_rd *r, int me)
{
	struct chunk *c = NULL;
	bool parse = false, good = true;
	size_t m;
	int k;

	pthread_mutex_lock(&sp->lock);
	if (sp->stop || sp->failed) {
		pthread_mutex_unlock(&sp->lock);
		return (-1);
	}
	if (r->name == NULL && sp->rd != NULL) {
		struct gp_err *e = r->err;

		*r = *sp->rd;
		r->err = e;
	}
	for (k = 0; r->name != NULL && k < sp->known && c == NULL; k++)
		if (sp->ck[k].read == 0)
			c = &sp->ck[k];
	if (c != NULL)
		c->read = 1;
	else if (sp->next < sp->n_ck) {
		c = &sp->ck[sp->next++];
		parse = true;
	} else {
		for (k = 0; k < sp->n_ck && sp->ck[k].read != 0; k++)
			continue;
		if (k == sp->n_ck) {
			pthread_mutex_unlock(&sp->lock);
			return (-1);
		}
		/* a chunk is being parsed, or cannot be read yet */
		pthread_cond_wait(&sp->cond, &sp->lock);
		pthread_mutex_unlock(&sp->lock);
		return (0);
	}
	pthread_mutex_unlock(&sp->lock);

	if (parse) {
		json_t *e;

		gp_json_arena_enter(&sp->arena[me]);
		c->root = parse_text(sp->text, c->from, c->to, true);
		gp_json_arena_leave(&sp->arena[me]);
		/* one element at each level of the wrapping, then the
		 * array */
		e = c->root;
		for (int d = 1; d < SPLIT_DEPTH && e != NULL; d++)
			e = json_array_size(e) == 1 ? json_array_get(e, 0) :
			    NULL;
		pthread_mutex_lock(&sp->lock);
		/* at least one element: ",," does not parse */
		c->elems = json_array_size(e) > 0 ? e : NULL;
		c->mine = me == 0;
		c->done = true;
		if (c->elems == NULL)
			sp->failed = true;
		/* place the chunks parsed so far */
		for (; sp->known < sp->n_ck && sp->ck[sp->known].done &&
		    !sp->failed; sp->known++) {
			k = sp->known;
			sp->ck[k].base = k == 0 ? 0 : sp->ck[k - 1].base +
			    json_array_size(sp->ck[k - 1].elems);
		}
		pthread_cond_broadcast(&sp->cond);
		pthread_mutex_unlock(&sp->lock);
		return (1);
	}

	/* read: the applies go to their places, each chunk's its own */
	m = json_array_size(c->elems);
	if (c->base > sp->n_ap || m > sp->n_ap - c->base)
		good = false;
	for (size_t j = 0; good && j < m; j++) {
		size_t i = c->base + j;

		gp_rd_index(r, i);
		good = gp_rd_apply(r, json_array_get(c->elems, j), &sp->ap[i],
		    (int)i) == 0;
		gp_rd_pop(r);
	}
	pthread_mutex_lock(&sp->lock);
	c->read = 2;
	sp->n_read++;
	if (!good)
		sp->failed = true;
	pthread_cond_broadcast(&sp->cond);
	pthread_mutex_unlock(&sp->lock);
	return (1);
}

/* The other thread: whatever there is to do, till there is no more. */
static void *
split_worker(void *vp)
{
	struct gp_split *sp = vp;
	struct gp_err scratch;
	struct gp_rd r = {.err = &scratch};

	(void)gp_json_arena_begin(&sp->arena[1], GP_RD_ARENA(sp->ck[sp->n_ck -
	    1].to - sp->ck[0].from));
	gp_json_arena_huge(&sp->arena[1]);
	gp_json_arena_leave(&sp->arena[1]);
	while (split_step(sp, &r, 1) >= 0)
		continue;
	return (NULL);
}

/* Tell the other thread to stop, and wait till it has. */
static void
split_stop(struct gp_split *sp)
{
	pthread_mutex_lock(&sp->lock);
	sp->stop = true;
	pthread_cond_broadcast(&sp->cond);
	pthread_mutex_unlock(&sp->lock);
	if (sp->running)
		pthread_join(sp->th, NULL);
	sp->running = false;
}

static void
split_end(struct gp_split *sp)
{
	split_stop(sp);
	/* what went to malloc, when an arena filled up (or there was none) */
	for (int k = 0; k < sp->n_ck; k++) {
		struct gp_json_arena *a = &sp->arena[sp->ck[k].mine ? 0 : 1];

		if (a->base == NULL || a->spilled)
			json_decref(sp->ck[k].root);
	}
	gp_json_arena_end(&sp->arena[1], NULL);
	gp_json_arena_end(&sp->arena[0], sp->rest);
	pthread_cond_destroy(&sp->cond);
	pthread_mutex_destroy(&sp->lock);
}

/*
 * Find the first function's applies in text, cut them into chunks and
 * start parsing: the chunks on a thread of its own, the rest here (this
 * thread parses chunks too, as it reads them).  false (sp unused) when the
 * text is small or not laid out as gptop writes it.
 */
static bool
split_begin(struct gp_split *sp, const char *text, size_t len)
{
	static const struct gp_jsonpos_step first[] = {
		{.key = "functions"}, {.index = 0}, {.key = "applies"},
		{.index = 0}
	};
	size_t open, close, from, e0, e1, step;
	const char *end, *nl = NULL;
	int n;

	memset(sp, 0, sizeof(*sp));
	if (len < SPLIT_MIN || gp_jsonpos_span(text, len, first, 4, &e0,
	    &e1) < 0)
		return (false);
	/* the array's bracket: only white space before its first element */
	for (open = e0; open > 0 && (text[open - 1] == ' ' ||
	    text[open - 1] == '\n' || text[open - 1] == '\t' ||
	    text[open - 1] == '\r'); open--)
		continue;
	if (open == 0 || text[--open] != '[')
		return (false);
	/* its end: an apply per line, then "  ]" on a line of its own (a
	 * newline is never inside a string) */
	for (end = text + e1; (end = memchr(end, '\n', (size_t)(text + len -
	    end))) != NULL; end++)
		if (text + len - end >= 4 && memcmp(end, "\n  ]", 4) == 0)
			break;
	if (end == NULL)
		return (false);
	close = (size_t)(end - text) + 3;
	if (close - open < SPLIT_MIN)
		return (false);
	/* the cuts: commas that end a line, about a chunk apart */
	n = (int)((close - open) / SPLIT_CHUNK);
	n = n < 2 ? 2 : n > SPLIT_MAX ? SPLIT_MAX : n;
	step = (close - open) / (size_t)n;
	from = open + 1;
	for (int k = 0; k < n - 1; k++) {
		size_t at = open + step * (size_t)(k + 1);

		/* past the last cut's newline: no chunk is empty */
		if (at <= from)
			at = from + 1;
		while (at < close && (nl = memchr(text + at, '\n', close -
		    at)) != NULL && nl[-1] != ',')
			at = (size_t)(nl - text) + 1;
		if (at >= close || nl == NULL)
			break;
		at = (size_t)(nl - text) - 1;
		sp->ck[sp->n_ck++] = (struct chunk){.from = from, .to = at};
		from = at + 1;
	}
	sp->ck[sp->n_ck++] = (struct chunk){.from = from, .to = close};
	sp->text = text;
	pthread_mutex_init(&sp->lock, NULL);
	pthread_cond_init(&sp->cond, NULL);
	/* this thread's arena first: it installs jansson's hooks */
	(void)gp_json_arena_begin(&sp->arena[0], GP_RD_ARENA(len));
	gp_json_arena_huge(&sp->arena[0]);
	gp_json_arena_leave(&sp->arena[0]);
	sp->running = pthread_create(&sp->th, NULL, split_worker, sp) == 0;
	gp_json_arena_enter(&sp->arena[0]);
	{
		/* the rest: the document up to and from the brackets */
		char *b = gp_xmalloc(open + 1 + len - close + 1);

		memcpy(b, text, open + 1);
		memcpy(b + open + 1, text + close, len - close);
		sp->rest = json_loadb(b, open + 1 + len - close,
		    JSON_REJECT_DUPLICATES, NULL);
		free(b);
	}
	gp_json_arena_leave(&sp->arena[0]);
	return (true);
}

/* The first function's applies, n of them, from the chunks of a split
 * parse (v is the emptied array); -1 on any fault, which the reading in
 * one piece tells. */
int
gp_split_applies(struct gp_rd *r, const json_t *v, struct gp_prof_fn *f,
    int n)
{
	struct gp_split *sp = r->sp;
	struct chunk *last = &sp->ck[sp->n_ck - 1];
	struct gp_rd tmpl;
	bool good;

	if (json_array_size(v) != 0)
		return (-1);
	/* n_apply only with the array, so a failed load frees cleanly */
	f->ap = gp_xcalloc((size_t)n + 1, sizeof(*f->ap));
	f->n_apply = n;
	/* how the other thread reads: with these tables */
	tmpl = *r;
	tmpl.depth = 0;
	tmpl.sp = NULL;
	tmpl.cur_o = NULL;
	tmpl.cur_it = NULL;
	pthread_mutex_lock(&sp->lock);
	sp->ap = f->ap;
	sp->n_ap = (size_t)n;
	sp->rd = &tmpl;
	pthread_cond_broadcast(&sp->cond);
	pthread_mutex_unlock(&sp->lock);
	while (split_step(sp, r, 0) >= 0)
		continue;
	/* the other thread's last chunk */
	pthread_mutex_lock(&sp->lock);
	while (!sp->failed && sp->n_read < sp->n_ck)
		pthread_cond_wait(&sp->cond, &sp->lock);
	good = !sp->failed && last->base + json_array_size(last->elems) ==
	    (size_t)n;
	pthread_mutex_unlock(&sp->lock);
	/* nothing may write to f->ap once this returns */
	split_stop(sp);
	return (good ? 0 : -1);
}

struct gp_split *
gp_split_begin(const char *text, size_t len)
{
	struct gp_split *sp = gp_xmalloc(sizeof(*sp));

	if (split_begin(sp, text, len))
		return (sp);
	free(sp);
	return (NULL);
}

json_t *
gp_split_rest(const struct gp_split *sp)
{
	return (sp->rest);
}

void
gp_split_end(struct gp_split *sp)
{
	split_end(sp);
	free(sp);
}
