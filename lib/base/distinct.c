/*
 * HyperLogLog: the first 12 bits of a key's hash pick a register, which
 * keeps the longest run of leading zeros (plus one) seen in the rest.
 */
#include <math.h>
#include <string.h>

#include "base/distinct.h"
#include "base/hash.h"

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
