/*
 * crt.c: curses start-up and teardown, color roles, and the signal and
 * exit paths that restore the terminal (see crt.h).
 *
 * The interface's signals are sig.c's (quit, crash, exit paths); this
 * file keeps what they need of the terminal: the modes found, and the
 * exit sequences (leave the alternate screen, attributes off, cursor on,
 * keypad and mouse off) prepared when curses starts, which
 * ui_crt_restore_raw writes from a signal handler.  The terminal counts
 * as held from before newterm (which may already switch screens) until
 * endwin is done.
 *
 * Suspending (Ctrl-Z): ncurses's own SIGTSTP handler runs curses from
 * the signal handler, which is not async-signal-safe; ours is installed
 * first (ncurses then leaves SIGTSTP alone) and only records the request:
 * the main loop calls ui_crt_suspend, which leaves curses, stops the
 * process with the default action and, once continued, redraws.
 */
#include "config.h"

#include "crt.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/term.h>
#else
#include <term.h>
#endif

#include "base/fatal.h"

struct role_style {
	short	fg, bg;		/* -1: the terminal's own */
	attr_t	attr;		/* with colors */
	attr_t	mono;		/* without colors */
};

static const struct role_style roles[UI_ROLE__COUNT] = {
	[UI_ROLE_NORMAL] = {.fg = -1, .bg = -1, .attr = A_NORMAL,
	    .mono = A_NORMAL},
	[UI_ROLE_TITLE] = {.fg = COLOR_CYAN, .bg = -1, .attr = A_BOLD,
	    .mono = A_BOLD},
	[UI_ROLE_LABEL] = {.fg = COLOR_CYAN, .bg = -1, .attr = A_NORMAL,
	    .mono = A_NORMAL},
	[UI_ROLE_VALUE] = {.fg = -1, .bg = -1, .attr = A_BOLD,
	    .mono = A_BOLD},
	[UI_ROLE_TAB] = {.fg = -1, .bg = -1, .attr = A_NORMAL,
	    .mono = A_NORMAL},
	[UI_ROLE_TAB_ACTIVE] = {.fg = COLOR_BLACK, .bg = COLOR_CYAN,
	    .attr = A_BOLD, .mono = A_REVERSE | A_BOLD},
	[UI_ROLE_COLHEAD] = {.fg = COLOR_BLACK, .bg = COLOR_GREEN,
	    .attr = A_NORMAL, .mono = A_REVERSE},
	[UI_ROLE_COLHEAD_SORT] = {.fg = COLOR_BLACK, .bg = COLOR_CYAN,
	    .attr = A_BOLD, .mono = A_REVERSE | A_BOLD | A_UNDERLINE},
	[UI_ROLE_SELECTED] = {.fg = COLOR_BLACK, .bg = COLOR_CYAN,
	    .attr = A_NORMAL, .mono = A_REVERSE},
	[UI_ROLE_BAR] = {.fg = COLOR_GREEN, .bg = -1, .attr = A_NORMAL,
	    .mono = A_BOLD},
	[UI_ROLE_DIM] = {.fg = COLOR_BLUE, .bg = -1, .attr = A_BOLD,
	    .mono = A_DIM},
	[UI_ROLE_FKEY] = {.fg = -1, .bg = -1, .attr = A_BOLD,
	    .mono = A_BOLD},
	[UI_ROLE_FLABEL] = {.fg = COLOR_BLACK, .bg = COLOR_CYAN,
	    .attr = A_NORMAL, .mono = A_REVERSE},
	[UI_ROLE_MSG] = {.fg = COLOR_YELLOW, .bg = -1, .attr = A_BOLD,
	    .mono = A_BOLD},
	[UI_ROLE_ERROR] = {.fg = COLOR_RED, .bg = -1, .attr = A_BOLD,
	    .mono = A_BOLD | A_UNDERLINE},
	[UI_ROLE_WORSE] = {.fg = COLOR_RED, .bg = -1, .attr = A_NORMAL,
	    .mono = A_BOLD},
	[UI_ROLE_BETTER] = {.fg = COLOR_GREEN, .bg = -1, .attr = A_NORMAL,
	    .mono = A_UNDERLINE},
	[UI_ROLE_SECTION] = {.fg = COLOR_CYAN, .bg = -1, .attr = A_BOLD,
	    .mono = A_BOLD | A_UNDERLINE},
};

/* the signals the worker thread must not take (ui_crt_block) */
static const int loop_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT,
	SIGWINCH, SIGTSTP, SIGCONT};

static attr_t			 role_attr[UI_ROLE__COUNT];
static bool			 active, utf8, color;
static SCREEN			*screen;
/* Ctrl-Z waits for the loop.  Atomic, not volatile sig_atomic_t: the
 * signal may run its handler on any thread (OpenBLAS's too). */
static atomic_int		 tstp;

/* for ui_crt_restore_raw, prepared beforehand; term_held is set (release)
 * after the rest is written and read (acquire) before the rest is read,
 * possibly in another thread: lock-free atomics are async-signal-safe */
static atomic_int		 term_held;	/* curses has the terminal */
static struct termios		 term_saved;	/* the modes found */
static int			 term_fd = -1;
static char			 term_exit[256];	/* exit sequences */
static size_t			 term_exit_len;

static void
on_tstp(int sig)
{
	(void)sig;
	atomic_store_explicit(&tstp, 1, memory_order_relaxed);
}

bool
ui_crt_restore_raw(void)
{
	int nul;

	if (atomic_exchange_explicit(&term_held, 0,
	    memory_order_acquire) == 0)
		return (false);
	gp_fatal_write(term_fd, term_exit, term_exit_len);
	tcsetattr(term_fd, TCSANOW, &term_saved);
	/* the interface's thread may still be drawing while the process
	 * ends: from now on that goes nowhere (the message is on stderr) */
	nul = open("/dev/null", O_WRONLY);
	if (nul >= 0 && nul != term_fd) {
		dup2(nul, term_fd);
		close(nul);
	}
	return (true);
}

/* Append terminfo string capability cap, without its padding, to the
 * exit sequences. */
static void
exit_cap(const char *cap)
{
	const char *v = tigetstr(cap);

	if (v == NULL || v == (const char *)-1)
		return;
	for (; *v != '\0'; v++) {
		if (v[0] == '$' && v[1] == '<') {
			const char *e = strchr(v, '>');

			if (e != NULL) {
				v = e;
				continue;
			}
		}
		if (term_exit_len + 1 < sizeof(term_exit))
			term_exit[term_exit_len++] = *v;
	}
}

/* What the crash handler writes to give the terminal back. */
static void
prepare_exit(bool mouse)
{
	term_exit_len = 0;
	if (mouse && tigetstr("kmous") != NULL &&
	    tigetstr("kmous") != (const char *)-1) {
		/* ncurses's xterm mouse reporting, off */
		static const char off[] = "\033[?1000l";

		memcpy(term_exit, off, sizeof(off) - 1);
		term_exit_len = sizeof(off) - 1;
	}
	exit_cap("sgr0");
	exit_cap("cnorm");
	exit_cap("rmkx");
	exit_cap("rmcup");
}

static void
catch_tstp(void)
{
	static int ignored = -1;	/* SIGTSTP ignored from the start */
	struct sigaction sa, old;

	if (ignored < 0)
		ignored = sigaction(SIGTSTP, NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN;
	if (ignored)
		return;		/* a shell without job control */
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_tstp;
	sa.sa_flags = 0;	/* no SA_RESTART: the wait for a key returns */
	sigaction(SIGTSTP, &sa, NULL);
}

static void
init_colors(void)
{
	const char *nc = getenv("NO_COLOR");
	bool defaults;

	color = (nc == NULL || nc[0] == '\0') && has_colors();
	if (color && start_color() == ERR)
		color = false;
	if (!color) {
		for (int r = 0; r < UI_ROLE__COUNT; r++)
			role_attr[r] = roles[r].mono;
		return;
	}
	defaults = use_default_colors() == OK;
	for (int r = 0; r < UI_ROLE__COUNT; r++) {
		short fg = roles[r].fg, bg = roles[r].bg;

		if (fg < 0 && bg < 0) {
			role_attr[r] = roles[r].attr;
			continue;
		}
		if (!defaults) {
			if (fg < 0)
				fg = COLOR_WHITE;
			if (bg < 0)
				bg = COLOR_BLACK;
		}
		init_pair((short)(r + 1), fg, bg);
		role_attr[r] = roles[r].attr | COLOR_PAIR(r + 1);
	}
}

int
ui_crt_init(bool mouse)
{
	const char *cs;

	cs = nl_langinfo(CODESET);
	utf8 = cs != NULL && (strcmp(cs, "UTF-8") == 0 ||
	    strcmp(cs, "utf8") == 0);
	catch_tstp();
	term_fd = fileno(stdout);
	if (tcgetattr(term_fd, &term_saved) < 0)
		term_fd = -1;
	/* newterm may switch to the alternate screen already: until the
	 * exit sequences are known, a crash restores the modes only */
	term_exit_len = 0;
	atomic_store_explicit(&term_held, term_fd >= 0, memory_order_release);
	screen = newterm(NULL, stdout, stdin);
	if (screen == NULL) {
		atomic_store(&term_held, 0);
		signal(SIGTSTP, SIG_DFL);
		return (-1);
	}
	set_term(screen);
	active = true;
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	init_colors();
	if (mouse) {
		mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED,
		    NULL);
		mouseinterval(0);
	}
	atomic_store(&term_held, 0);
	prepare_exit(mouse);
	atomic_store_explicit(&term_held, term_fd >= 0, memory_order_release);
	return (0);
}

void
ui_crt_done(void)
{
	if (!active)
		return;
	active = false;
	mousemask(0, NULL);
	curs_set(1);
	endwin();
	/* a crash from now on has no terminal to give back */
	atomic_store_explicit(&term_held, 0, memory_order_relaxed);
	if (screen != NULL) {
		delscreen(screen);
		screen = NULL;
	}
	signal(SIGTSTP, SIG_DFL);
	atomic_store_explicit(&tstp, 0, memory_order_relaxed);
}

bool
ui_crt_suspend_pending(void)
{
	return (atomic_load_explicit(&tstp, memory_order_relaxed) != 0);
}

void
ui_crt_suspend(void)
{
	sigset_t set;

	atomic_store_explicit(&tstp, 0, memory_order_relaxed);
	if (!active)
		return;
	/* the shell may have taken the terminal already (another process
	 * of the job, a wrapper script, stopped at once): SIGTTOU blocked,
	 * endwin's tcsetattr still goes through instead of stopping us
	 * before we stop ourselves */
	sigemptyset(&set);
	sigaddset(&set, SIGTTOU);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	endwin();
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	atomic_store_explicit(&term_held, 0, memory_order_relaxed);
	signal(SIGTSTP, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGTSTP);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(SIGTSTP);		/* stopped here until SIGCONT */
	catch_tstp();
	atomic_store_explicit(&term_held, term_fd >= 0, memory_order_release);
	refresh();
}

bool
ui_crt_utf8(void)
{
	return (utf8);
}

bool
ui_crt_color(void)
{
	return (color);
}

attr_t
ui_crt_attr(enum ui_role r)
{
	return (role_attr[r]);
}

static void
mask_set(int how)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(loop_signals) /
	    sizeof(loop_signals[0]); i++)
		sigaddset(&set, loop_signals[i]);
	pthread_sigmask(how, &set, NULL);
}

void
ui_crt_block(void)
{
	mask_set(SIG_BLOCK);
}

void
ui_crt_unblock(void)
{
	mask_set(SIG_UNBLOCK);
}

uint64_t
ui_crt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000);
}
