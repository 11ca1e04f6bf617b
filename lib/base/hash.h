/*
 * The library's hashes, for its tables and distinct-count estimates (not
 * for anything an adversary chooses to collide: tables that meet input
 * keys bound their chains or their probes).
 */
#ifndef TP_HASH_H
#define TP_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A 64-bit mix of two words (splitmix64's finaliser). */
static inline uint64_t
tp_hash64(uint64_t a, uint64_t b)
{
	uint64_t h = a * UINT64_C(0x9e3779b97f4a7c15) ^
	    (b + UINT64_C(0x632be59bd9b4e019));

	h ^= h >> 31;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 29;
	h *= UINT64_C(0x94d049bb133111eb);
	h ^= h >> 32;
	return h;
}

/* A 32-bit id spread over the top bits (Fibonacci hashing): >> what is not used. */
static inline uint64_t
tp_hash_u32(uint32_t id)
{
	return (uint64_t)id * UINT64_C(0x9e3779b97f4a7c15);
}

/*
 * A hash of bytes, a word at a time: names and pooled strings.  The last
 * 1 to 8 bytes are read as two overlapping 4-byte words (or three single
 * bytes), not copied by length, which would cost a loop or a call.
 */
static inline uint64_t
tp_hash_mem(const void *s, size_t n)
{
	const unsigned char *p = s;
	uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ n, w;

	for (; n > 8; p += 8, n -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 32;
	}
	if (n >= 4) {
		uint32_t a, b;
		memcpy(&a, p, 4);
		memcpy(&b, p + n - 4, 4);
		w = (uint64_t)a << 32 | b;
	} else {
		w = n == 0 ? 0 : (uint64_t)p[0] << 16 | (uint64_t)p[n / 2] << 8 |
		    p[n - 1];
	}
	h = (h ^ w) * UINT64_C(0xc4ceb9fe1a85ec53);
	return h ^ (h >> 29);
}

/* Two independent 64-bit hashes of bytes (h1, h2), for keys counted by value. */
void tp_hash_bytes(const void *p, size_t n, uint64_t *h1, uint64_t *h2);

#endif
