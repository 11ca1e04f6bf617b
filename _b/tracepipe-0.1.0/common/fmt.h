/*
 * Table-driven number formatting into a caller's buffer (no printf).
 * Each function writes at p and returns the end.  Callers reserve room:
 * a u64 takes at most 20 bytes, an i64 21, a hex value 18 ("0x" + 16).
 */
#ifndef TP_FMT_H
#define TP_FMT_H

#include <stddef.h>
#include <stdint.h>

extern const char tp_digits2[200];	/* "00".."99" */
extern const char tp_hex2[512];	/* "00".."ff" */

char *tp_fmt_u64(char *p, uint64_t v);
char *tp_fmt_i64(char *p, int64_t v);
/* "0x" and the shortest lower-case hex digits ("0x0" for zero). */
char *tp_fmt_hex(char *p, uint64_t v);
/* Two lower-case hex digits per byte, no prefix. */
char *tp_fmt_hexbytes(char *p, const unsigned char *b, size_t n);

/* Parse helpers used by the text reader; exposed for the format modules. */
int tp_hexval(int c);	/* 0..15, or -1 */

#endif
