/*
 * clock.h: the profiler's clock.  On x86-64 with an invariant TSC it reads
 * the time-stamp counter, calibrated against CLOCK_MONOTONIC at start-up;
 * elsewhere it reads CLOCK_MONOTONIC itself.  gp_clock_init() also measures
 * the timer's resolution and the cost of one probe (an empty timed region),
 * which the profiler subtracts from every sample.
 */
#ifndef GPTOP_SRC_CLOCK_H
#define GPTOP_SRC_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

struct gp_clock_info {
	const char	*source;	/* "tsc" or "clock_gettime" */
	double		 tsc_ghz;	/* ticks per ns, when tsc */
	double		 resolution_ns;	/* smallest step seen */
	double		 probe_ns;	/* cost of an empty timed region */
};

extern bool	gp_clock_use_tsc;
extern uint64_t	gp_clock_mult;	/* ns = ticks * mult >> 32 */

/* Calibrate (once; later calls return the same figures). */
const struct gp_clock_info *gp_clock_init(void);

/* Raw ticks: cheap, for timed regions. */
static inline uint64_t
gp_clock_ticks(void)
{
#if defined(__x86_64__)
	if (gp_clock_use_tsc)
		return (__rdtsc());
#endif
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
	}
}

static inline uint64_t
gp_clock_ticks_to_ns(uint64_t t)
{
	return ((uint64_t)(((unsigned __int128)t * gp_clock_mult) >> 32));
}

/* Monotonic nanoseconds (clock_gettime), for coarse times. */
uint64_t	gp_clock_ns(void);

#endif
