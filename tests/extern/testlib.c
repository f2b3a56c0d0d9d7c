/*
 * tests/extern/testlib.c: the shared library the extern op's tests load
 * (built by `make check` as tests/extern/libgptest.so).  Scalar functions
 * of several signatures for mode elemwise, whole-buffer kernels for mode
 * kernel, and counters the tests read to see how often each was called.
 * Every function is plain C with no state but the counters (and
 * gpt_spin's cost, read once from the environment).
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int64_t	gpt_kernel_calls;	/* calls of the kernel-mode functions */
int64_t	gpt_scalar_calls;	/* calls of gpt_madd */
static int gen;

/* Three arguments: the ffi_call route. */
double
gpt_madd(double a, double x, double y)
{
	gpt_scalar_calls++;
	return (a * x + y);
}

/* A user's double(double) and float(float, float): the direct routes. */
double
gpt_sq(double x)
{
	return (x * x);
}

float
gpt_addf(float x, float y)
{
	return (x + y);
}

/* Narrow integer returns, widened by libffi: sign and zero extension. */
int8_t
gpt_neg_i8(int8_t x)
{
	return ((int8_t)-x);
}

uint16_t
gpt_twice_u16(uint16_t x)
{
	return ((uint16_t)(x * 2));
}

int32_t
gpt_clamp(int32_t x, int32_t lo, int32_t hi)
{
	return (x < lo ? lo : x > hi ? hi : x);
}

bool
gpt_is_pos(double x)
{
	return (x > 0);
}

int64_t
gpt_mix(int8_t a, uint32_t b, int64_t c, float d)
{
	return ((int64_t)a * 1000000 + (int64_t)b * 1000 + c + (int64_t)d);
}

/* No arguments: 1, 2, 3, ... in call order. */
int
gpt_next(void)
{
	return (++gen);
}

/* Kernels: inputs as const T *, outputs as T *, each followed by its
 * element count. */
void
gpt_prefix_sum(const double *x, int64_t n, double *y, int64_t m)
{
	double s = 0;

	gpt_kernel_calls++;
	for (int64_t i = 0; i < n && i < m; i++) {
		s += x[i];
		y[i] = s;
	}
}

void
gpt_saxpy(float a, const float *x, int64_t nx, const float *y, int32_t ny,
    float *out, size_t nout)
{
	gpt_kernel_calls++;
	for (size_t i = 0; i < nout; i++)
		out[i] = a * x[(int64_t)i % nx] + y[(int64_t)i % ny];
}

void
gpt_minmax(const double *x, int64_t n, double *mn, int64_t one,
    double *mx, int64_t one2)
{
	gpt_kernel_calls++;
	*mn = INFINITY;
	*mx = -INFINITY;
	for (int64_t i = 0; i < n; i++) {
		if (x[i] < *mn)
			*mn = x[i];
		if (x[i] > *mx)
			*mx = x[i];
	}
}

/* x, after GPT_SPIN (an environment variable; 0 when unset) steps of a
 * dependent multiply-add: an op whose cost a test sets without changing
 * the graph (tests/extern/test-diff-real.sh: a real 2x slowdown). */
double
gpt_spin(double x)
{
	static long n = -1;
	volatile double v = x;

	if (n < 0) {
		const char *e = getenv("GPT_SPIN");

		n = e != NULL ? atol(e) : 0;
	}
	for (long i = 0; i < n; i++)
		v = v * 0.999999 + 1e-9;
	return (v);
}
