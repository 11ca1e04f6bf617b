/*
 * Hashes of bytes (the inline ones are in base/hash.h).
 */
#include "base/hash.h"

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
