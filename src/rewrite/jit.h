/*
 * rewrite/jit.h: the JIT: C source in, loaded functions out, through the
 * system C compiler and an on-disk cache.
 *
 * A unit is the text of one function definition whose name is written
 * GP_KERNEL; it is compiled after gp_elemwise_c_prelude (and, on x86_64
 * with glibc's libmvec, `declare simd` declarations of the vector math
 * functions, so loops over exp, tanh, ... vectorize).  Every unit missing
 * from the process is built in one compiler run: one shared object per
 * batch, named by a hash of the whole translation unit, the compiler's
 * identity ($CC, else cc, and the first line of its --version) and the
 * flags, in $XDG_CACHE_HOME/gptop (else ~/.cache/gptop, mode 0700).  The
 * object is written under a temporary name in that folder and renamed, so
 * concurrent gptop processes never see a partial file; an entry that does
 * not load, lacks a symbol or carries another version stamp is rebuilt.
 * Loaded objects stay mapped for the life of the process.
 */
#ifndef GPTOP_SRC_REWRITE_JIT_H
#define GPTOP_SRC_REWRITE_JIT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"

/* A compiled row loop: p[0]/s[0] the output, p[k + 1]/s[k + 1] input k;
 * n elements; byte steps. */
typedef void (*gp_jit_fn)(char *const *p, const int64_t *s, int64_t n);

struct gp_jit_stats {
	uint64_t	compiles;	/* compiler runs that succeeded */
	uint64_t	failures;	/* compiler runs that failed */
	uint64_t	disk_hits;	/* batches loaded from the cache */
	uint64_t	pruned;		/* old entries removed (size bound) */
	uint64_t	stale;		/* dead processes' temporaries removed */
	uint64_t	rebuilds;	/* bad cache entries rebuilt */
	uint64_t	mem_hits;	/* units loaded already */
	uint64_t	compile_ns;	/* time in the compiler */
};

/* Can the JIT run (a compiler answered --version)?  *why (may be NULL)
 * gets the reason when not. */
bool		 gp_jit_available(const char **why);
/* Build units src[0..n-1]: fns[i] gets unit i's function, or NULL when it
 * could not be built (err says why).  Returns how many were built. */
int		 gp_jit_build(const char *const *src, gp_jit_fn *fns, int n,
		    struct gp_err *err);
void		 gp_jit_get_stats(struct gp_jit_stats *st);
/* Nanoseconds the calling thread has spent in gp_jit_build. */
uint64_t	 gp_jit_thread_ns(void);
/* The cache folder in use ("" when there is none). */
const char	*gp_jit_cache_dir(void);
/* Why the cache folder was not used and where the objects go instead, as
 * said once on stderr ("" when it was used, or the JIT never looked). */
const char	*gp_jit_cache_refused(void);
/* The compiler command and flags in use (for docs and --version). */
const char	*gp_jit_describe(void);
/* Forget the units loaded in this process (tests: the next build goes to
 * the disk cache). */
void		 gp_jit_forget(void);

/* Say msg once per process for each distinct key: the default writes
 * "gptop: msg" to stderr; a UI may install its own sink. */
void		 gp_jit_note(const char *key, const char *msg);
void		 gp_jit_set_note_sink(void (*sink)(const char *msg));

#endif
