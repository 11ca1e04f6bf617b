/*
 * UTF-8: checking it (what the text writer quotes as it is, what JSON may
 * hold) and encoding one code point (what the JSON reader's \u escapes
 * and WTF's UTF-16 strings turn into).
 */
#ifndef TP_UTF8_H
#define TP_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * Code point c (up to 0x10ffff) as UTF-8 at dst, which has room for 4
 * bytes; the byte count.  A surrogate (0xd800-0xdfff) is written as its
 * 3 bytes like any other: callers that must not write one replace it
 * first.
 */
static inline size_t
tp_utf8_put(void *dst, uint32_t c)
{
	unsigned char *d = dst;

	if (c < 0x80) {
		d[0] = (unsigned char)c;
		return 1;
	}
	if (c < 0x800) {
		d[0] = (unsigned char)(0xc0 | c >> 6);
		d[1] = (unsigned char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		d[0] = (unsigned char)(0xe0 | c >> 12);
		d[1] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
		d[2] = (unsigned char)(0x80 | (c & 0x3f));
		return 3;
	}
	d[0] = (unsigned char)(0xf0 | c >> 18);
	d[1] = (unsigned char)(0x80 | (c >> 12 & 0x3f));
	d[2] = (unsigned char)(0x80 | (c >> 6 & 0x3f));
	d[3] = (unsigned char)(0x80 | (c & 0x3f));
	return 4;
}

/*
 * Length of the valid UTF-8 sequence of 2 to 4 bytes at p (of n), or 0
 * when the bytes there are not one (ASCII included).
 */
static inline size_t
tp_utf8_seq(const unsigned char *p, size_t n)
{
	unsigned c = p[0];

	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (n < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && p[1] < 0xa0)
			return 0;	/* overlong */
		if (c == 0xed && p[1] >= 0xa0)
			return 0;	/* surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (n < 4 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
		    (p[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && p[1] < 0x90)
			return 0;
		if (c == 0xf4 && p[1] >= 0x90)
			return 0;
		return 4;
	}
	return 0;
}

/* The length of the longest valid UTF-8 prefix of s (n when all is). */
static inline size_t
tp_utf8_valid(const void *s, size_t n)
{
	const unsigned char *p = s;
	size_t i = 0, k;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if ((k = tp_utf8_seq(p + i, n - i)) == 0)
			break;
		i += k;
	}
	return i;
}

#endif
