/*
 * crt.c: curses start-up and teardown, color roles, and the signal and
 * exit paths that restore the terminal (see crt.h).
 *
 * The quit signals are caught before curses starts, so ncurses leaves them
 * to us: the handler only records the signal, and since it is installed
 * without SA_RESTART the blocked read in the main loop returns at once and
 * the loop ends normally (endwin, worker stopped).  Crash signals restore
 * the terminal and then let the previous handler (the default, or a
 * sanitizer's) deal with the fault.
 */
#include "config.h"

#include "crt.h"

#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL,
	SIGABRT};

static attr_t			 role_attr[UI_ROLE__COUNT];
static bool			 active, utf8, color, hooked;
static SCREEN			*screen;
static volatile sig_atomic_t	 quit_sig;
static struct sigaction		 old_crash[sizeof(crash_signals) /
				    sizeof(crash_signals[0])];

static void
on_quit(int sig)
{
	quit_sig = sig;
}

static void
on_crash(int sig)
{
	size_t n = sizeof(crash_signals) / sizeof(crash_signals[0]);

	if (active) {
		active = false;
		endwin();
	}
	for (size_t i = 0; i < n; i++)
		if (crash_signals[i] == sig) {
			sigaction(sig, &old_crash[i], NULL);
			break;
		}
	/* a fault re-executes and reaches the old handler; a raised
	 * signal (abort) is raised again */
	if (sig == SIGABRT || sig == SIGFPE)
		raise(sig);
}

static void
install_signals(void)
{
	struct sigaction sa;
	size_t n = sizeof(crash_signals) / sizeof(crash_signals[0]);

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_quit;
	sa.sa_flags = 0;	/* no SA_RESTART: the read must return */
	for (size_t i = 0; i < sizeof(quit_signals) /
	    sizeof(quit_signals[0]); i++)
		sigaction(quit_signals[i], &sa, NULL);
	sa.sa_handler = on_crash;
	sa.sa_flags = 0;
	for (size_t i = 0; i < n; i++)
		sigaction(crash_signals[i], &sa, &old_crash[i]);
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
	if (screen != NULL) {
		delscreen(screen);
		screen = NULL;
	}
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
