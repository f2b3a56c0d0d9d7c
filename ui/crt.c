/*
 * crt.c: curses start-up and teardown, color roles, and the signal and
 * exit paths that restore the terminal (see crt.h).
 *
 * The quit signals are caught before curses starts, so ncurses leaves them
 * to us: the handler only records the signal, and since it is installed
 * without SA_RESTART the blocked read in the main loop returns at once and
 * the loop ends normally (endwin, then the worker stopped: that waits for
 * the call under way, and once the terminal is back a second quit signal
 * kills, its default action).
 *
 * The crash signals (a fault in the runtime, an extern function calling
 * abort) are caught for the whole run by ui_crt_crash_init.  The handler
 * calls only async-signal-safe functions: it writes the terminal's exit
 * sequences prepared when curses started (leave the alternate screen,
 * attributes off, cursor on, keypad and mouse off) and restores the
 * terminal modes saved then with tcsetattr, writes a one-line message
 * with write(2), puts the previous handler back (the default, or a
 * sanitizer's) and lets the signal act again: a fault re-executes and
 * faults, a sent or raised signal is raised again, so the process dies of
 * the same signal (exit status 128 + N, core dump) as it would have.
 */
#include "config.h"

#include "crt.h"

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#if defined(HAVE_NCURSESW_CURSES_H)
#include <ncursesw/term.h>
#else
#include <term.h>
#endif

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

static const int quit_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* The crash signals and how the message names them. */
static const struct crash_signal {
	int		 sig;
	const char	*name;
} crash_signals[] = {
	{SIGSEGV, "SIGSEGV (segmentation fault)"},
	{SIGBUS, "SIGBUS (bus error)"},
	{SIGFPE, "SIGFPE (arithmetic exception)"},
	{SIGILL, "SIGILL (illegal instruction)"},
	{SIGABRT, "SIGABRT (aborted)"},
};
#define N_CRASH (sizeof(crash_signals) / sizeof(crash_signals[0]))

static attr_t			 role_attr[UI_ROLE__COUNT];
static bool			 active, utf8, color, hooked;
static SCREEN			*screen;
static volatile sig_atomic_t	 quit_sig;

/* for the crash handler, prepared beforehand; term_held is set (release)
 * after the rest is written and read (acquire) before the rest is read,
 * possibly in another thread: lock-free atomics are async-signal-safe */
static atomic_int		 term_held;	/* curses has the terminal */
static atomic_int		 crashing;
static bool			 crash_hooked;
static struct sigaction		 old_crash[N_CRASH];
static struct termios		 term_saved;	/* the modes found */
static int			 term_fd = -1;
static char			 term_exit[256];	/* exit sequences */
static size_t			 term_exit_len;
static char			 crash_what[512];	/* "running FILE" */

static void
on_quit(int sig)
{
	quit_sig = sig;
}

/* write(2) all of s, as far as it goes. */
static void
put_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void
put_str(int fd, const char *s)
{
	put_all(fd, s, strlen(s));
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
		bool restored = atomic_exchange_explicit(&term_held, 0,
		    memory_order_acquire) != 0;

		if (restored) {
			put_all(term_fd, term_exit, term_exit_len);
			tcsetattr(term_fd, TCSANOW, &term_saved);
		}
		put_str(STDERR_FILENO, "gptop: crashed: ");
		put_str(STDERR_FILENO, name);
		if ((pid_t)syscall(SYS_gettid) != getpid())
			put_str(STDERR_FILENO, " in the runtime thread");
		if (crash_what[0] != '\0') {
			put_str(STDERR_FILENO, ", ");
			put_str(STDERR_FILENO, crash_what);
		}
		put_str(STDERR_FILENO, restored ? "; the terminal was "
		    "restored\n" : "\n");
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
hook_crash(void)
{
	struct sigaction sa;

	if (crash_hooked)
		return;
	crash_hooked = true;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO;
	for (size_t i = 0; i < N_CRASH; i++)
		sigaction(crash_signals[i].sig, &sa, &old_crash[i]);
}

void
ui_crt_crash_init(const char *what)
{
	snprintf(crash_what, sizeof(crash_what), "%s", what != NULL ? what :
	    "");
	hook_crash();
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
install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_quit;
	sa.sa_flags = 0;	/* no SA_RESTART: the read must return */
	for (size_t i = 0; i < sizeof(quit_signals) /
	    sizeof(quit_signals[0]); i++)
		sigaction(quit_signals[i], &sa, NULL);
	hook_crash();
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
	install_signals();
	if (!hooked) {
		atexit(ui_crt_done);
		hooked = true;
	}
	term_fd = fileno(stdout);
	if (tcgetattr(term_fd, &term_saved) < 0)
		term_fd = -1;
	screen = newterm(NULL, stdout, stdin);
	if (screen == NULL)
		return (-1);
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
	atomic_store_explicit(&term_held, 0, memory_order_relaxed);
	mousemask(0, NULL);
	curs_set(1);
	endwin();
	if (screen != NULL) {
		delscreen(screen);
		screen = NULL;
	}
	/* the terminal is back: a quit signal from now on (while the
	 * worker finishes a long call) ends the program at once */
	for (size_t i = 0; i < sizeof(quit_signals) /
	    sizeof(quit_signals[0]); i++)
		signal(quit_signals[i], SIG_DFL);
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

int
ui_crt_quit_signal(void)
{
	return ((int)quit_sig);
}

static void
mask_set(int how)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(quit_signals) /
	    sizeof(quit_signals[0]); i++)
		sigaddset(&set, quit_signals[i]);
	sigaddset(&set, SIGWINCH);
	sigaddset(&set, SIGTSTP);
	sigaddset(&set, SIGCONT);
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
