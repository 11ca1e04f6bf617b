/*
 * The test generators' random numbers: splitmix64 (Steele, Lea and
 * Flood, "Fast splittable pseudorandom number generators", 2014), so
 * that a seed gives the same trace on every machine.
 */
#ifndef TP_RNG_H
#define TP_RNG_H

#include <stdint.h>

static uint64_t rng_state;

static inline uint64_t
rnd(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* 0 .. n-1 */
static inline unsigned
below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

#endif
