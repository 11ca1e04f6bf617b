/*
 * HyperLogLog: the first 12 bits of a key's hash pick a register, which
 * keeps the longest run of leading zeros (plus one) seen in the rest.
 */
#include <math.h>
#include <string.h>

#include "base/distinct.h"

void
tp_distinct_init(struct tp_distinct *d)
{
	memset(d->reg, 0, sizeof d->reg);
}

void
tp_distinct_add(struct tp_distinct *d, uint64_t h)
{
	unsigned i = (unsigned)(h >> (64 - TP_DISTINCT_BITS));
	uint64_t rest = h << TP_DISTINCT_BITS | (1u << (TP_DISTINCT_BITS - 1));
	unsigned char rank = (unsigned char)(__builtin_clzll(rest) + 1);

	if (rank > d->reg[i])
		d->reg[i] = rank;
}

uint64_t
tp_distinct_estimate(const struct tp_distinct *d)
{
	const double m = 1u << TP_DISTINCT_BITS;
	double sum = 0, e;
	unsigned i, zeros = 0;

	for (i = 0; i < (1u << TP_DISTINCT_BITS); i++) {
		sum += ldexp(1.0, -d->reg[i]);
		zeros += d->reg[i] == 0;
	}
	e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
	if (e <= 2.5 * m && zeros > 0)
		e = m * log(m / zeros);	/* linear counting for small sets */
	return (uint64_t)(e + 0.5);
}

uint64_t
tp_hash64(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15u ^ (b + 0x632be59bd9b4e019u);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9u;
	h ^= h >> 29;
	h *= 0x94d049bb133111ebu;
	h ^= h >> 32;
	return h;
}

void
tp_hash_bytes(const void *p, size_t n, uint64_t *h1, uint64_t *h2)
{
	const unsigned char *s = p;
	uint64_t a = 0xcbf29ce484222325u, b = 0x84222325cbf29ce4u ^ n;
	size_t i;

	for (i = 0; i < n; i++) {
		a = (a ^ s[i]) * 0x100000001b3u;
		b = (b + s[i]) * 0x9e3779b97f4a7c15u;
		b ^= b >> 29;
	}
	*h1 = tp_hash64(a, n);
	*h2 = tp_hash64(b, a);
}
