/*
 * Bounded LEB128 and zigzag.  A reader is given the bytes it may look at
 * and never reads past them.  It tells apart: a complete value, a value
 * cut by the end of the bytes (TRUNC: more may arrive), more than 10
 * bytes (TOOLONG) and bits beyond 64 (OVERFLOW, also in a tenth byte that
 * would go on).  An over-long encoding
 * (a value written in more bytes than it needs, as some writers do) is a
 * valid value; *len tells its length so that an encoder can write it
 * again the same way (tp_uleb_put_n).
 */
#ifndef TP_LEB128_H
#define TP_LEB128_H

#include <stddef.h>
#include <stdint.h>

#define TP_LEB_MAX 10		/* bytes of the longest 64-bit value */

enum tp_leb {
	TP_LEB_OK = 0,
	TP_LEB_TRUNC = -1,	/* the bytes end inside the value */
	TP_LEB_TOOLONG = -2,	/* no end within TP_LEB_MAX bytes */
	TP_LEB_OVERFLOW = -3	/* the value has bits beyond 64 */
};

/* Read an unsigned LEB128 from p[0..n).  *len is the bytes it took. */
static inline int
tp_uleb_get(const unsigned char *p, size_t n, uint64_t *v, size_t *len)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < n && i < TP_LEB_MAX; i++) {
		unsigned b = p[i];
		if (i == 9 && (b & 0x7e) != 0)
			return TP_LEB_OVERFLOW;
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if ((b & 0x80) == 0) {
			*v = x;
			*len = i + 1;
			return TP_LEB_OK;
		}
	}
	return i == TP_LEB_MAX ? TP_LEB_TOOLONG : TP_LEB_TRUNC;
}

/* Signed LEB128 (two's complement, sign from bit 6 of the last byte). */
static inline int
tp_sleb_get(const unsigned char *p, size_t n, int64_t *v, size_t *len)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < n && i < TP_LEB_MAX; i++) {
		unsigned b = p[i];
		if (i == 9) {
			/* Bit 63 and the sign bits above it must agree. */
			unsigned hi = b & 0x7f;
			if (hi != 0 && hi != 0x7f)
				return TP_LEB_OVERFLOW;
		}
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if ((b & 0x80) == 0) {
			unsigned shift = 7 * (unsigned)(i + 1);
			if (shift < 64 && (b & 0x40))
				x |= ~(uint64_t)0 << shift;
			*v = (int64_t)x;
			*len = i + 1;
			return TP_LEB_OK;
		}
	}
	return i == TP_LEB_MAX ? TP_LEB_TOOLONG : TP_LEB_TRUNC;
}

/* Bytes the shortest encoding of v takes. */
static inline size_t
tp_uleb_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Write the shortest encoding; returns the end. */
static inline unsigned char *
tp_uleb_put(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/*
 * Write v in exactly n bytes (n >= tp_uleb_size(v), n <= TP_LEB_MAX):
 * the over-long form a reader met comes back byte for byte.
 */
static inline unsigned char *
tp_uleb_put_n(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		*p++ = (unsigned char)((v & 0x7f) | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)(v & 0x7f);
	return p;
}

static inline size_t
tp_sleb_size(int64_t v)
{
	size_t n = 1;
	for (;;) {
		unsigned b = (unsigned)(v & 0x7f);
		v >>= 7;	/* arithmetic shift: gcc and clang guarantee it */
		if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40)))
			return n;
		n++;
	}
}

static inline unsigned char *
tp_sleb_put(unsigned char *p, int64_t v)
{
	for (;;) {
		unsigned b = (unsigned)(v & 0x7f);
		v >>= 7;
		if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) {
			*p++ = (unsigned char)b;
			return p;
		}
		*p++ = (unsigned char)(b | 0x80);
	}
}

static inline uint64_t
tp_zigzag_enc(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t
tp_zigzag_dec(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

#endif
