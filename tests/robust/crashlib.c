/*
 * tests/robust/crashlib.c: extern functions that fault, for the crash
 * tests (built by `make check` as tests/robust/libgpcrash.so).  Each is a
 * double(double) for mode elemwise that returns its argument until the
 * file named by the environment variable GPC_TRIGGER exists (always, when
 * GPC_TRIGGER is unset), then faults: gpc_segv writes through a null
 * pointer, gpc_abort calls abort(), and gpc_hang sleeps 100 s (a call
 * that does not end soon).  The trigger lets a test wait for the
 * interface to be up before the crash.
 */
#include <stdlib.h>
#include <unistd.h>

double gpc_segv(double x);
double gpc_abort(double x);
double gpc_hang(double x);

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
