/*
 * Table-driven decimal and hex formatting: two digits per step, no printf.
 */
#include <string.h>

#include "base/digits.h"

#define D10(x) #x "0" #x "1" #x "2" #x "3" #x "4" #x "5" #x "6" #x "7" #x "8" #x "9"
const char tp_digits2[200] = D10(0) D10(1) D10(2) D10(3) D10(4) D10(5) D10(6)
    D10(7) D10(8) D10(9);

#define DG4(a, b, c, d) (UINT32_C(0x30303030) | (a) | (b) << 8 | (c) << 16 | \
    (uint32_t)(d) << 24)
#define DG3(a, b, c) DG4(a, b, c, 0), DG4(a, b, c, 1), DG4(a, b, c, 2), \
    DG4(a, b, c, 3), DG4(a, b, c, 4), DG4(a, b, c, 5), DG4(a, b, c, 6), \
    DG4(a, b, c, 7), DG4(a, b, c, 8), DG4(a, b, c, 9)
#define DG2(a, b) DG3(a, b, 0), DG3(a, b, 1), DG3(a, b, 2), DG3(a, b, 3), \
    DG3(a, b, 4), DG3(a, b, 5), DG3(a, b, 6), DG3(a, b, 7), DG3(a, b, 8), \
    DG3(a, b, 9)
#define DG1(a) DG2(a, 0), DG2(a, 1), DG2(a, 2), DG2(a, 3), DG2(a, 4), \
    DG2(a, 5), DG2(a, 6), DG2(a, 7), DG2(a, 8), DG2(a, 9)
const uint32_t tp_digits4[10000] = {
	DG1(0), DG1(1), DG1(2), DG1(3), DG1(4), DG1(5), DG1(6), DG1(7), DG1(8),
	DG1(9)
};

#define H16(x) #x "0" #x "1" #x "2" #x "3" #x "4" #x "5" #x "6" #x "7" \
    #x "8" #x "9" #x "a" #x "b" #x "c" #x "d" #x "e" #x "f"
const char tp_hex2[512] = H16(0) H16(1) H16(2) H16(3) H16(4) H16(5) H16(6)
    H16(7) H16(8) H16(9) H16(a) H16(b) H16(c) H16(d) H16(e) H16(f);

/* Exactly 8 digits of v (< 10^8), two at a time, in 32-bit arithmetic. */
static inline char *
fmt8(char *p, uint32_t v)
{
	tp_put_le64(p, tp_digits8(v));
	return p + 8;
}

/*
 * The digits of v < 10^8, without leading zeros: their count first, then
 * two at a time from the end, straight into p.
 */
static inline char *
fmt_small(char *p, uint32_t v)
{
	size_t n = v < 100 ? (v < 10 ? 1 : 2) : v < 10000 ? (v < 1000 ? 3 : 4) :
	    v < 1000000 ? (v < 100000 ? 5 : 6) : v < 10000000 ? 7 : 8;
	char *e = p + n;

	while (v >= 100) {
		e -= 2;
		memcpy(e, tp_digits2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(e - 2, tp_digits2 + 2 * v, 2);
	else
		e[-1] = (char)('0' + v);
	return p + n;
}

/*
 * In pieces of 8 digits, so that the divisions by constants are 32-bit
 * multiplications (a 19-digit timestamp takes three steps, not ten).
 */
char *
tp_fmt_u64(char *p, uint64_t v)
{
	uint64_t top;

	if (v < 100000000)
		return fmt_small(p, (uint32_t)v);
	if (v < UINT64_C(10000000000000000)) {
		p = fmt_small(p, (uint32_t)(v / 100000000));
		return fmt8(p, (uint32_t)(v % 100000000));
	}
	top = v / UINT64_C(10000000000000000);
	v %= UINT64_C(10000000000000000);
	p = fmt_small(p, (uint32_t)top);
	p = fmt8(p, (uint32_t)(v / 100000000));
	return fmt8(p, (uint32_t)(v % 100000000));
}

char *
tp_fmt_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return tp_fmt_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return tp_fmt_u64(p, (uint64_t)v);
}

char *
tp_fmt_hex(char *p, uint64_t v)
{
	/* Count the digits first, then fill two at a time from the end. */
	unsigned n = (unsigned)(64 - __builtin_clzll(v | 1) + 3) / 4;
	char *e = p + 2 + n, *d = e;

	p[0] = '0';
	p[1] = 'x';
	while (d - p > 3) {
		d -= 2;
		memcpy(d, tp_hex2 + (v & 0xff) * 2, 2);
		v >>= 8;
	}
	if (d - p == 3)
		d[-1] = tp_hex2[(v & 0xf) * 2 + 1];
	return e;
}

char *
tp_fmt_hexbytes(char *p, const unsigned char *b, size_t n)
{
	size_t i = 0;

#ifdef __SSE2__
	for (; i + 8 <= n; i += 8, p += 16)
		tp_hex16(p, _mm_loadl_epi64((const __m128i *)(const void *)(b + i)));
#endif
	for (; i < n; i++) {
		memcpy(p, tp_hex2 + b[i] * 2, 2);
		p += 2;
	}
	return p;
}

int
tp_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
