/*
 * sig.c: the signal and exit paths of every mode (see sig.h).
 *
 * The handlers call only async-signal-safe functions: lock-free atomics,
 * write(2), unlink(2) (gp_fatal_cleanup), tcsetattr and the terminal's
 * exit sequences prepared when curses started (ui_crt_restore_raw),
 * alarm, sigaction, sigprocmask and raise.
 *
 * A crash: the terminal back, the temporaries removed, one line, then the
 * handler that was there before is put back and the signal acts again: a
 * fault re-executes and faults, a sent or raised signal is raised again,
 * so the process dies of the same signal (128 + N, core dump) as it would
 * have.  The handler runs on an alternate stack in the main thread, so a
 * stack overflow there is reported too.
 *
 * A quit signal: the first is recorded for the frontend to end its work
 * (the batch run stops after the current round, the interface's loop
 * ends) and arms alarm(UI_SIG_GRACE_S); SIGALRM before ui_sig_settled
 * means the call under way did not return (a hung extern function): gptop
 * then ends at once.  A second quit signal ends it at once too.  Ending
 * at once: the terminal back, the temporaries removed, one line, and the
 * process dies of the quit signal with its default action.
 *
 * exit() made by native code in a call (gp_fatal_in_native: the thread
 * that calls exit runs the exit handlers) ends with status 1 and a
 * message instead of passing for success; the terminal is given back by
 * the raw path, since the interface's thread may be drawing.
 */
#include "config.h"

#include "sig.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "crt.h"
#include "base/fatal.h"

#define STR_(x) #x
#define STR(x) STR_(x)

struct named_signal {
	int		 sig;
	const char	*name;
};

static const struct named_signal crash_signals[] = {
	{SIGSEGV, "SIGSEGV (segmentation fault)"},
	{SIGBUS, "SIGBUS (bus error)"},
	{SIGFPE, "SIGFPE (arithmetic exception)"},
	{SIGILL, "SIGILL (illegal instruction)"},
	{SIGABRT, "SIGABRT (aborted)"},
};
#define N_CRASH (sizeof(crash_signals) / sizeof(crash_signals[0]))

static const struct named_signal quit_signals[] = {
	{SIGINT, "SIGINT"},
	{SIGTERM, "SIGTERM"},
	{SIGHUP, "SIGHUP"},
	{SIGQUIT, "SIGQUIT"},
};
#define N_QUIT (sizeof(quit_signals) / sizeof(quit_signals[0]))

static struct sigaction		 old_crash[N_CRASH];
static atomic_int		 crashing;
static atomic_int		 quit_sig;	/* the first quit signal */
static atomic_int		 settled;
static struct gp_session *_Atomic quit_session;
static volatile sig_atomic_t	 restored;	/* by gp_fatal_cleanup */
static char			 context[512];	/* "running FILE" */
static bool			 inited;
static char			 alt_stack[65536];

static void
put(const char *s)
{
	gp_fatal_put(STDERR_FILENO, s);
}

/* ", WHAT", then tail, "; the terminal was restored" and the newline. */
static void
put_end(const char *tail)
{
	if (context[0] != '\0') {
		put(", ");
		put(context);
	}
	put(tail);
	put(restored ? "; the terminal was restored\n" : "\n");
}

static const char *
quit_name(int sig)
{
	for (size_t i = 0; i < N_QUIT; i++)
		if (quit_signals[i].sig == sig)
			return (quit_signals[i].name);
	return ("a signal");
}

static void
restore_hook(void)
{
	restored = ui_crt_restore_raw();
}

/* Die of sig with its default action. */
static _Noreturn void
die_of(int sig)
{
	sigset_t set;

	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	raise(sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);	/* delivered here */
	_exit(128 + sig);
}

static void
on_crash(int sig, siginfo_t *si, void *uc)
{
	const char *name = "a fatal signal";
	size_t i;

	(void)uc;
	for (i = 0; i < N_CRASH; i++)
		if (crash_signals[i].sig == sig) {
			name = crash_signals[i].name;
			break;
		}
	if (atomic_exchange(&crashing, 1) == 0) {
		gp_fatal_cleanup();
		put("gptop: crashed: ");
		put(name);
		if ((pid_t)syscall(SYS_gettid) != getpid())
			put(" in the runtime thread");
		put_end("");
	}
	if (i < N_CRASH)
		sigaction(sig, &old_crash[i], NULL);
	else
		signal(sig, SIG_DFL);
	/* a fault the kernel sent (si_code > 0) happens again when the
	 * handler returns; a signal sent or raised is raised again */
	if (si == NULL || si->si_code <= 0 || sig == SIGABRT)
		raise(sig);
}

static void
on_quit(int sig)
{
	int first = 0;

	if (atomic_compare_exchange_strong(&quit_sig, &first, sig)) {
		struct gp_session *s = atomic_load(&quit_session);

		if (s != NULL)
			gp_session_interrupt(s);
		if (!atomic_load(&settled))
			alarm(UI_SIG_GRACE_S);
		return;
	}
	if (atomic_exchange(&crashing, 1) == 0) {
		gp_fatal_cleanup();
		put("gptop: ");
		put(quit_name(sig));
		put(" again");
		put_end(": ended at once");
	}
	die_of(sig);
}

static void
on_alarm(int sig)
{
	int q = atomic_load(&quit_sig);
	const char *sym = gp_fatal_native_symbol();

	(void)sig;
	if (q == 0 || atomic_load(&settled))
		return;
	if (atomic_exchange(&crashing, 1) == 0) {
		gp_fatal_cleanup();
		put("gptop: ");
		put(quit_name(q));
		put(": the run did not stop within " STR(UI_SIG_GRACE_S)
		    " s");
		if (sym != NULL) {
			put(" (extern function ");
			put(sym);
			put(")");
		}
		put_end("; ended without waiting for the call under way");
	}
	die_of(q);
}

static void
on_exit_hook(void)
{
	if (gp_fatal_in_native()) {
		const char *sym = gp_fatal_native_symbol();

		if (atomic_exchange(&crashing, 1) == 0) {
			gp_fatal_cleanup();
			put("gptop: extern function ");
			put(sym != NULL ? sym : "?");
			put(" called exit() during a call");
			put_end("; gptop ends with status 1");
		}
		_exit(1);
	}
	if ((pid_t)syscall(SYS_gettid) == getpid())
		ui_crt_done();
	else
		gp_fatal_cleanup();
}

void
ui_sig_init(void)
{
	struct sigaction sa;
	stack_t ss;

	if (inited)
		return;
	inited = true;
	gp_fatal_set_hook(restore_hook);
	/* an alternate stack, unless there is one (a sanitizer's) */
	if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_DISABLE)) {
		memset(&ss, 0, sizeof(ss));
		ss.ss_sp = alt_stack;
		ss.ss_size = sizeof(alt_stack);
		(void)sigaltstack(&ss, NULL);
	}
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	for (size_t i = 0; i < N_CRASH; i++)
		sigaction(crash_signals[i].sig, &sa, &old_crash[i]);
	signal(SIGXFSZ, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	atexit(on_exit_hook);
}

void
ui_sig_context(const char *what)
{
	snprintf(context, sizeof(context), "%s", what != NULL ? what : "");
}

void
ui_sig_catch_quit(struct gp_session *s, bool restart)
{
	struct sigaction sa;

	atomic_store(&quit_session, s);
	if (atomic_load(&quit_sig) == 0)
		atomic_store(&settled, 0);
	else if (s != NULL)
		gp_session_interrupt(s);	/* it came before s */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < N_QUIT; i++)
		sigaddset(&sa.sa_mask, quit_signals[i].sig);
	sa.sa_handler = on_quit;
	sa.sa_flags = restart ? SA_RESTART : 0;
	for (size_t i = 0; i < N_QUIT; i++)
		sigaction(quit_signals[i].sig, &sa, NULL);
}

int
ui_sig_quit(void)
{
	return (atomic_load(&quit_sig));
}

void
ui_sig_settled(void)
{
	atomic_store(&quit_session, NULL);
	atomic_store(&settled, 1);
	alarm(0);
}
