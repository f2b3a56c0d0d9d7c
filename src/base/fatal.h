/*
 * fatal.h: how gptop ends when it cannot go on (out of memory, a fault, a
 * quit signal that cannot wait, exit() called by native code): the
 * temporary files being written are removed, the frontend gives the
 * terminal back (a hook it sets), one line says why, and the process ends
 * at once without running exit handlers or flushing stdio.  Everything
 * here but gp_fatal_exit's formatting is async-signal-safe, for the
 * frontend's signal handlers.
 */
#ifndef GPTOP_SRC_FATAL_H
#define GPTOP_SRC_FATAL_H

#include <stdbool.h>
#include <stddef.h>

/* The frontend's restore hook: gives the terminal back if it holds it,
 * async-signal-safe, called at most once by gp_fatal_cleanup (and again
 * only if the first call has not returned). */
void	gp_fatal_set_hook(void (*restore)(void));

/* A temporary file being written (atomic saves): recorded, so an ending
 * removes it.  Returns the slot to pass to gp_fatal_tmp_drop, or -1 if
 * every slot is in use or path is too long (then nothing removes it). */
int	gp_fatal_tmp_add(const char *path);
void	gp_fatal_tmp_drop(int slot);

/* The restore hook, then every recorded temporary removed. */
void	gp_fatal_cleanup(void);
/* Write all of s (n bytes) to fd, as far as it goes (write(2), retried on
 * EINTR; async-signal-safe). */
void	gp_fatal_write(int fd, const char *s, size_t n);
/* The same for a string. */
void	gp_fatal_put(int fd, const char *s);

/* gp_fatal_cleanup, "gptop: MESSAGE\n" on stderr, _exit(1). */
_Noreturn void gp_fatal_exit(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* The same with status 2, gptop's status for an error in what the user
 * gave: for an error a kernel meets while running (an index out of range
 * in an input's values), which no caller can take back; stdout is
 * flushed first (a batch's lines so far stay). */
_Noreturn void gp_fatal_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* Around a call into native code (an extern function): which symbol runs
 * (for the messages) and whether the calling thread is in one (an exit()
 * from native code is then not gptop's own). */
void	 gp_fatal_native_begin(const char *symbol);
void	 gp_fatal_native_end(void);
bool	 gp_fatal_in_native(void);	/* the calling thread */
const char *gp_fatal_native_symbol(void);	/* any thread, or NULL */

#endif
