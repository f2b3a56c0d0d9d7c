/*
 * fatal.c: the ending when gptop cannot go on (see fatal.h): a table of
 * the temporary files being written, the frontend's terminal hook, and
 * the marker of a call into native code.
 *
 * The table is fixed (no allocation in a signal handler): a slot's state
 * goes free -> filling -> ready with atomics, and only ready slots are
 * unlinked, so a handler never reads a name being copied.  A slot is
 * dropped only after its file was renamed or removed, so a signal between
 * the two at worst unlinks a name that is gone.
 */
#include "config.h"

#include "base/fatal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N_TMP 16
#define TMP_MAX_PATH 4096

enum { SLOT_FREE, SLOT_FILLING, SLOT_READY };

static struct {
	atomic_int	state;
	char		path[TMP_MAX_PATH];
} tmp[N_TMP];

static void (*_Atomic hook)(void);
static atomic_int hook_ran;
static _Atomic(const char *) native_sym;
static atomic_int native_depth;		/* all threads */
static _Thread_local int native_mine;	/* the calling thread */

void
gp_fatal_set_hook(void (*restore)(void))
{
	atomic_store(&hook, restore);
}

int
gp_fatal_tmp_add(const char *path)
{
	size_t n = strlen(path);

	if (n >= TMP_MAX_PATH)
		return (-1);
	for (int i = 0; i < N_TMP; i++) {
		int want = SLOT_FREE;

		if (!atomic_compare_exchange_strong(&tmp[i].state, &want,
		    SLOT_FILLING))
			continue;
		memcpy(tmp[i].path, path, n + 1);
		atomic_store(&tmp[i].state, SLOT_READY);
		return (i);
	}
	return (-1);
}

void
gp_fatal_tmp_drop(int slot)
{
	if (slot >= 0 && slot < N_TMP)
		atomic_store(&tmp[slot].state, SLOT_FREE);
}

void
gp_fatal_cleanup(void)
{
	void (*h)(void) = atomic_load(&hook);

	if (h != NULL && atomic_exchange(&hook_ran, 1) == 0)
		h();
	for (int i = 0; i < N_TMP; i++)
		if (atomic_load(&tmp[i].state) == SLOT_READY)
			(void)unlink(tmp[i].path);
}

void
gp_fatal_write(int fd, const char *s, size_t n)
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

void
gp_fatal_put(int fd, const char *s)
{
	gp_fatal_write(fd, s, strlen(s));
}

void
gp_fatal_exit(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	gp_fatal_cleanup();
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gp_fatal_put(STDERR_FILENO, "gptop: ");
	gp_fatal_put(STDERR_FILENO, msg);
	gp_fatal_put(STDERR_FILENO, "\n");
	_exit(1);
}

void
gp_fatal_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	gp_fatal_cleanup();
	fflush(stdout);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gp_fatal_put(STDERR_FILENO, "gptop: ");
	gp_fatal_put(STDERR_FILENO, msg);
	gp_fatal_put(STDERR_FILENO, "\n");
	_exit(2);
}

void
gp_fatal_native_begin(const char *symbol)
{
	native_mine++;
	atomic_store_explicit(&native_sym, symbol, memory_order_relaxed);
	atomic_fetch_add_explicit(&native_depth, 1, memory_order_relaxed);
}

void
gp_fatal_native_end(void)
{
	native_mine--;
	if (atomic_fetch_sub_explicit(&native_depth, 1,
	    memory_order_relaxed) == 1)
		atomic_store_explicit(&native_sym, NULL,
		    memory_order_relaxed);
}

bool
gp_fatal_in_native(void)
{
	return (native_mine > 0);
}

const char *
gp_fatal_native_symbol(void)
{
	return (atomic_load_explicit(&native_sym, memory_order_relaxed));
}
