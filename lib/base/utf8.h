/*
 * UTF-8 encoding of one code point: what the JSON reader's \u escapes
 * and WTF's UTF-16 strings turn into.
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

#endif
