/*
 * Table-driven number formatting into a caller's buffer (no printf).
 * Each function writes at p and returns the end.  Callers reserve room:
 * a u64 takes at most 20 bytes, an i64 21, a hex value 18 ("0x" + 16).
 */
#ifndef TP_FMT_H
#define TP_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/bytes.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

extern const char tp_digits2[200];	/* "00".."99" */
extern const char tp_hex2[512];	/* "00".."ff" */
/* "0000".."9999", the first digit in the lowest byte of each entry */
extern const uint32_t tp_digits4[10000];

char *tp_fmt_u64(char *p, uint64_t v);
char *tp_fmt_i64(char *p, int64_t v);
/* "0x" and the shortest lower-case hex digits ("0x0" for zero). */
char *tp_fmt_hex(char *p, uint64_t v);
/* Two lower-case hex digits per byte, no prefix. */
char *tp_fmt_hexbytes(char *p, const unsigned char *b, size_t n);

/*
 * The 8 decimal digits of v < 10^8 in ASCII, the first in the lowest
 * byte (stored with tp_put_le64): two entries of tp_digits4, one division
 * (fewer instructions than four pairs of tp_digits2 and their divisions).
 */
static inline uint64_t
tp_digits8(uint32_t v)
{
	return tp_digits4[v / 10000] | (uint64_t)tp_digits4[v % 10000] << 32;
}

/* The number of decimal digits of v. */
static inline unsigned
tp_ndigits(uint64_t v)
{
	static const uint64_t pow10[20] = {
		UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000),
		UINT64_C(10000), UINT64_C(100000), UINT64_C(1000000),
		UINT64_C(10000000), UINT64_C(100000000), UINT64_C(1000000000),
		UINT64_C(10000000000), UINT64_C(100000000000),
		UINT64_C(1000000000000), UINT64_C(10000000000000),
		UINT64_C(100000000000000), UINT64_C(1000000000000000),
		UINT64_C(10000000000000000), UINT64_C(100000000000000000),
		UINT64_C(1000000000000000000), UINT64_C(10000000000000000000)
	};
	/* log10(2^bits) rounded down is the count or one less */
	unsigned t = (unsigned)(64 - __builtin_clzll(v | 1)) * 1233 >> 12;

	return t + ((v | 1) >= pow10[t]);
}

/*
 * v in decimal, as tp_fmt_u64 writes it, for a caller with 20 bytes of
 * room at p: it may write past the digits (anything, up to p + 20).  The
 * end is known from the digit count alone, early, so that the next field
 * need not wait for the digits.  Returns the end of the digits.
 */
static inline __attribute__((always_inline)) char *
tp_fmt_u64_wide(char *p, uint64_t v)
{
	unsigned n;
	uint64_t d;

	if (v < 100) {
		memcpy(p, tp_digits2 + 2 * v + (v < 10), 2);
		return p + 2 - (v < 10);
	}
	n = tp_ndigits(v);
	if (n <= 8) {
		d = tp_digits8((uint32_t)v) >> (8 * (8 - n));
		tp_put_le64(p, d);
		return p + n;
	}
	if (n <= 16) {
		d = tp_digits8((uint32_t)(v / 100000000)) >> (8 * (16 - n));
		tp_put_le64(p, d);
	} else {
		uint32_t top = (uint32_t)(v / UINT64_C(10000000000000000));
		v %= UINT64_C(10000000000000000);
		d = tp_digits8(top) >> (8 * (24 - n));
		tp_put_le64(p, d);
		d = tp_digits8((uint32_t)(v / 100000000));
		tp_put_le64(p + n - 16, d);
	}
	d = tp_digits8((uint32_t)(v % 100000000));
	tp_put_le64(p + n - 8, d);
	return p + n;
}

#ifdef __SSE2__
/*
 * The 8 bytes in the low half of x as 16 hex digits at p, in their order:
 * each byte's two nibbles side by side, then '0' added, and 'a' - '0' -
 * 10 more where a nibble is above 9.
 */
static inline void
tp_hex16(char *p, __m128i x)
{
	__m128i f = _mm_set1_epi8(0x0f);
	__m128i d = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), f),
	    _mm_and_si128(x, f));
	__m128i a = _mm_and_si128(_mm_cmpgt_epi8(d, _mm_set1_epi8(9)),
	    _mm_set1_epi8(0x27));

	_mm_storeu_si128((__m128i *)(void *)p, _mm_add_epi8(d,
	    _mm_add_epi8(a, _mm_set1_epi8('0'))));
}
#endif

/*
 * The 8 hex digits of v in ASCII, the most significant in the lowest
 * byte: each nibble spread to a byte (three shifts and masks), then
 * '0' + d, and 'a' - '0' - 10 more where d + 6 carries into bit 4.
 */
static inline uint64_t
tp_hex8(uint32_t v)
{
	uint64_t x = v;

	x = (x | x << 16) & UINT64_C(0x0000ffff0000ffff);
	x = (x | x << 8) & UINT64_C(0x00ff00ff00ff00ff);
	x = (x | x << 4) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	x = __builtin_bswap64(x);
	return x + UINT64_C(0x3030303030303030) + ((x +
	    UINT64_C(0x0606060606060606)) >> 4 & UINT64_C(0x0101010101010101)) *
	    0x27;
}

/*
 * v as tp_fmt_hex writes it, for a caller with 18 bytes of room at p: it
 * may write past the digits (anything, up to p + 18).  No loop: the
 * digits shifted to the top, 8 at a time.  Returns the end of the digits.
 */
static inline __attribute__((always_inline)) char *
tp_fmt_hex_wide(char *p, uint64_t v)
{
	unsigned n = (unsigned)(64 - __builtin_clzll(v | 1) + 3) / 4;
	uint64_t s = v << (4 * (16 - n));

	p[0] = '0';
	p[1] = 'x';
#ifdef __SSE2__
	tp_hex16(p + 2, _mm_cvtsi64_si128((long long)__builtin_bswap64(s)));
#else
	tp_put_le64(p + 2, tp_hex8((uint32_t)(s >> 32)));
	if (n > 8)
		tp_put_le64(p + 10, tp_hex8((uint32_t)s));
#endif
	return p + 2 + n;
}

/* v in decimal, as tp_fmt_i64 writes it: tp_fmt_u64_wide with 21 bytes. */
static inline __attribute__((always_inline)) char *
tp_fmt_i64_wide(char *p, int64_t v)
{
	*p = '-';
	return tp_fmt_u64_wide(p + (v < 0), v < 0 ? 0 - (uint64_t)v :
	    (uint64_t)v);
}

/*
 * v in decimal, as tp_fmt_u64_wide writes it (20 bytes of room), faster
 * for 32 bits: from 10^8 on, the one or two leading digits straight from
 * the table and 8 digits.
 */
static inline __attribute__((always_inline)) char *
tp_fmt_u32_wide(char *p, uint32_t v)
{
	uint32_t hi = v / 100000000;

	if (hi == 0)
		return tp_fmt_u64_wide(p, v);
	memcpy(p, tp_digits2 + 2 * hi + (hi < 10), 2);
	p += 2 - (hi < 10);
	tp_put_le64(p, tp_digits8(v % 100000000));
	return p + 8;
}

/* Parse helpers used by the text reader; exposed for the format modules. */
int tp_hexval(int c);	/* 0..15, or -1 */

#endif
