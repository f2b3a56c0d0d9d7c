/*
 * sig.h: how gptop ends on a signal or an unexpected exit, in every mode:
 * the crash signals, the quit signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT),
 * the grace a quit signal gives the call under way, and exit() called by
 * native code during a call.  Every ending gives the terminal back if the
 * interface holds it, removes the temporary files being written
 * (src/base/fatal.h) and says what happened on stderr.
 */
#ifndef GPTOP_UI_SIG_H
#define GPTOP_UI_SIG_H

#include <stdbool.h>

#include "session/session.h"

/* Seconds a quit signal lets the call under way take before gptop ends
 * without waiting for it. */
#define UI_SIG_GRACE_S 5

/* For the whole run, first thing in main: catch the crash signals
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT): on one, give the terminal
 * back, remove the temporaries, write "gptop: crashed: SIGNAL [in the
 * runtime thread], WHAT" and die of the same signal through the handler
 * that was there before (the default, or a sanitizer's); ignore SIGXFSZ
 * (a write over `ulimit -f` fails with EFBIG and is reported); and hook
 * exit(): one made by native code during a call ends gptop with status 1
 * and says so. */
void	ui_sig_init(void);
/* What the messages say was going on, e.g. "running FILE" (copied;
 * NULL: nothing). */
void	ui_sig_context(const char *what);

/* Catch the quit signals.  The first one is recorded (ui_sig_quit), asks
 * session s (when not NULL; or at once, when the signal came before) to
 * stop after its round and starts the grace: unless ui_sig_settled is
 * called within UI_SIG_GRACE_S seconds, gptop ends, saying the run did
 * not stop, and dies of that signal (128 + N).  A second quit signal ends
 * gptop at once: it dies of that second signal.
 * restart: whether system calls the signal interrupts restart (batch), or
 * fail with EINTR (the interface, whose wait for a key must return).
 * Called again, it only changes s and restart. */
void	ui_sig_catch_quit(struct gp_session *s, bool restart);
/* The quit signal received, or 0. */
int	ui_sig_quit(void);
/* What the first quit signal asked to stop has stopped (or there is no
 * more running to stop): no grace timer any more, the session is
 * forgotten; a second quit signal still ends gptop at once. */
void	ui_sig_settled(void);

#endif
