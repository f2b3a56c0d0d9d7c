/*
 * rng.h: the seeded random number generator behind the random "init"
 * methods of graph files: xoshiro256** (Blackman and Vigna) with its state
 * seeded from a 64-bit seed through splitmix64.
 *
 * Deterministic per seed: the same seed gives the same stream on every
 * platform for gp_rng_next, gp_rng_uniform and gp_rng_integers;
 * gp_rng_normal also goes through the C library's log() and sqrt().  It is
 * not numpy's stream: data that must match numpy exactly belongs in a .npy
 * file.
 */
#ifndef GPTOP_SRC_RNG_H
#define GPTOP_SRC_RNG_H

#include <stdbool.h>
#include <stdint.h>

struct gp_rng {
	uint64_t	s[4];
	bool		has_spare;	/* polar method: normals come in twos */
	double		spare;
};

/* One splitmix64 step: advances *x and returns the next output. */
uint64_t	gp_rng_splitmix64(uint64_t *x);
/* Seed the state: four splitmix64 outputs from seed. */
void		gp_rng_seed(struct gp_rng *r, uint64_t seed);
/* The next 64 raw bits. */
uint64_t	gp_rng_next(struct gp_rng *r);
/* A double in [lo, hi) from 53 random bits (lo < hi, both finite). */
double		gp_rng_uniform(struct gp_rng *r, double lo, double hi);
/* A normal deviate (Marsaglia's polar method). */
double		gp_rng_normal(struct gp_rng *r, double mean, double std);
/* An integer in [lo, hi), unbiased (bitmask rejection); lo < hi. */
int64_t		gp_rng_integers(struct gp_rng *r, int64_t lo,
		    int64_t hi);

#endif
