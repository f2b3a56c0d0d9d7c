/*
 * tests/tap.h: a minimal TAP producer for the unit tests: ok(), is_int(),
 * is_double() with a tolerance, diag(), and done_testing() which prints the
 * plan and returns the exit status.
 */
#ifndef GPTOP_TESTS_TAP_H
#define GPTOP_TESTS_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_n, tap_failed;

static inline bool
tap_vok(bool cond, const char *fmt, va_list ap)
{
	tap_n++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
	vprintf(fmt, ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	fflush(stdout);
	return (cond);
}

static inline bool __attribute__((format(printf, 2, 3)))
ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok(cond, fmt, ap);
	va_end(ap);
	return (r);
}

static inline void __attribute__((format(printf, 1, 2)))
diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline bool __attribute__((format(printf, 3, 4)))
is_int(long long got, long long want, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = tap_vok(got == want, fmt, ap);
	va_end(ap);
	if (!r)
		diag("  got %lld, want %lld", got, want);
	return (r);
}

/* |got - want| <= tol * max(1, |want|); NaN equals NaN. */
static inline bool __attribute__((format(printf, 4, 5)))
is_double(double got, double want, double tol, const char *fmt, ...)
{
	va_list ap;
	bool r;
	double scale = fabs(want) > 1 ? fabs(want) : 1;

	if (isnan(want))
		r = isnan(got);
	else if (isinf(want))
		r = got == want;
	else
		r = fabs(got - want) <= tol * scale;
	va_start(ap, fmt);
	r = tap_vok(r, fmt, ap);
	va_end(ap);
	if (!r)
		diag("  got %.17g, want %.17g (tol %g)", got, want, tol);
	return (r);
}

static inline int
done_testing(void)
{
	printf("1..%d\n", tap_n);
	return (tap_failed ? 1 : 0);
}

#endif
