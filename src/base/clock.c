/*
 * clock.c: TSC calibration, timer resolution and probe cost (see clock.h).
 */
#include "config.h"

#include "base/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool gp_clock_use_tsc;
uint64_t gp_clock_mult = (uint64_t)1 << 32;

static struct gp_clock_info info;
static bool inited;

uint64_t
gp_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

/* An invariant TSC: constant rate, not stopped in deep C-states. */
static bool
tsc_usable(void)
{
#if defined(__x86_64__)
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool cst = false, nst = false;

	if (getenv("GPTOP_NO_TSC") != NULL || f == NULL) {
		if (f != NULL)
			fclose(f);
		return (false);
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		cst = strstr(line, " constant_tsc") != NULL;
		nst = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return (cst && nst);
#else
	return (false);
#endif
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

const struct gp_clock_info *
gp_clock_init(void)
{
	enum { N = 2001 };
	uint64_t *d;
	uint64_t minstep = UINT64_MAX;

	if (inited)
		return (&info);
	inited = true;
	info.source = "clock_gettime";
	if (tsc_usable()) {
		uint64_t n0, n1, t0, t1;

		/* calibrate over ~20 ms */
		n0 = gp_clock_ns();
		t0 = __rdtsc();
		do {
			n1 = gp_clock_ns();
		} while (n1 - n0 < 20000000);
		t1 = __rdtsc();
		if (t1 > t0 && n1 > n0) {
			double ticks_per_ns = (double)(t1 - t0) /
			    (double)(n1 - n0);

			gp_clock_mult = (uint64_t)(4294967296.0 / ticks_per_ns);
			gp_clock_use_tsc = true;
			info.source = "tsc";
			info.tsc_ghz = ticks_per_ns;
		}
	}
	/* resolution: the smallest nonzero step between two reads */
	for (int i = 0; i < N; i++) {
		uint64_t a = gp_clock_ticks(), b;

		do {
			b = gp_clock_ticks();
		} while (b == a);
		if (b - a < minstep)
			minstep = b - a;
	}
	info.resolution_ns = gp_clock_use_tsc ?
	    (double)minstep / info.tsc_ghz : (double)minstep;
	/* probe cost: the median time between two consecutive stamps, the
	 * same instruction sequence the VM runs between steps */
	d = malloc(sizeof(uint64_t) * (N + 1));
	if (d != NULL) {
		uint64_t *t = malloc(sizeof(uint64_t) * (N + 1));

		if (t == NULL) {
			free(d);
			return (&info);
		}
		t[0] = gp_clock_ticks();
		for (int i = 0; i < N; i++)
			t[i + 1] = gp_clock_ticks();
		for (int i = 0; i < N; i++)
			d[i] = t[i + 1] - t[i];
		free(t);
		qsort(d, N, sizeof(uint64_t), cmp_u64);
		info.probe_ns = (double)gp_clock_ticks_to_ns(d[N / 2]);
		free(d);
	}
	return (&info);
}
