/*
 * tests/robust/crashlib.c: extern functions that fault, for the crash
 * tests (built by `make check` as tests/robust/libgpcrash.so).  Each is a
 * double(double) for mode elemwise that returns its argument until the
 * file named by the environment variable GPC_TRIGGER exists (always, when
 * GPC_TRIGGER is unset), then faults: gpc_segv writes through a null
 * pointer, gpc_abort calls abort(), gpc_hang sleeps 100 s (a call that
 * does not end soon), gpc_exit calls exit(0) (a library that ends the
 * program it is in) and gpc_deep recurses until the stack overflows.  The trigger lets a test wait for the
 * interface to be up before the crash.
 */
#include <stdlib.h>
#include <unistd.h>

double gpc_segv(double x);
double gpc_abort(double x);
double gpc_hang(double x);
double gpc_exit(double x);
double gpc_deep(double x);

static int
triggered(void)
{
	const char *f = getenv("GPC_TRIGGER");

	return (f == NULL || access(f, F_OK) == 0);
}

double
gpc_segv(double x)
{
	if (triggered()) {
		volatile double *volatile p = NULL;

		*p = x;
	}
	return (x);
}

double
gpc_abort(double x)
{
	if (triggered())
		abort();
	return (x);
}

double
gpc_hang(double x)
{
	if (triggered())
		sleep(100);
	return (x);
}

double
gpc_exit(double x)
{
	if (triggered())
		exit(0);
	return (x);
}

/* Each frame keeps a page the compiler cannot drop. */
static double
deep(volatile double x, int depth)
{
	volatile char page[4096];

	page[depth % 4096] = (char)x;
	return (deep(x + page[0], depth + 1) + page[depth % 4096]);
}

double
gpc_deep(double x)
{
	if (triggered())
		return (deep(x, 0));
	return (x);
}
