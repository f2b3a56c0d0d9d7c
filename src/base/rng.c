/*
 * rng.c: xoshiro256** seeded through splitmix64, and the uniform, normal
 * and integer draws built on it (see rng.h).
 */
#include "config.h"

#include "base/rng.h"

#include <math.h>

static inline uint64_t
rotl(uint64_t x, int k)
{
	return ((x << k) | (x >> (64 - k)));
}

uint64_t
gp_rng_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

void
gp_rng_seed(struct gp_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = gp_rng_splitmix64(&x);
	r->has_spare = false;
	r->spare = 0;
}

uint64_t
gp_rng_next(struct gp_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return (result);
}

double
gp_rng_uniform(struct gp_rng *r, double lo, double hi)
{
	double u = (double)(gp_rng_next(r) >> 11) * 0x1.0p-53;
	double v = lo + (hi - lo) * u;

	/* rounding can reach hi when hi - lo is large relative to lo */
	if (v >= hi)
		v = nextafter(hi, lo);
	return (v);
}

double
gp_rng_normal(struct gp_rng *r, double mean, double std)
{
	double u, v, s, m;

	if (r->has_spare) {
		r->has_spare = false;
		return (mean + std * r->spare);
	}
	do {
		u = gp_rng_uniform(r, -1.0, 1.0);
		v = gp_rng_uniform(r, -1.0, 1.0);
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	m = sqrt(-2.0 * log(s) / s);
	r->spare = v * m;
	r->has_spare = true;
	return (mean + std * u * m);
}

int64_t
gp_rng_integers(struct gp_rng *r, int64_t lo, int64_t hi)
{
	uint64_t range = (uint64_t)hi - (uint64_t)lo;	/* >= 1 */
	uint64_t mask = range - 1, x;

	mask |= mask >> 1;
	mask |= mask >> 2;
	mask |= mask >> 4;
	mask |= mask >> 8;
	mask |= mask >> 16;
	mask |= mask >> 32;
	do {
		x = gp_rng_next(r) & mask;
	} while (x >= range);
	return ((int64_t)((uint64_t)lo + x));
}
