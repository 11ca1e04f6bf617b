/*
 * Floats as text and back, without printf or (mostly) strtod: what the
 * text writer and reader use for float values.
 */
#ifndef TP_FPCONV_H
#define TP_FPCONV_H

#include <stddef.h>

/*
 * v as the text stream writes it, at p (room for TP_F64_TEXT_MAX bytes):
 * the shortest "%.*g" that reads back as the same double (".0" added
 * where it would look like an integer), "nan", "inf", "-inf", or
 * "nan:0x<bits>" for a NaN with a payload or a sign.  Returns the end.
 */
char *tp_fmt_f64(char *p, double v);

/*
 * A float s[0..n) as strtod reads it (correctly rounded), "inf" or
 * "-inf"; the whole of s is the number.  -1 for anything else, and for
 * what strtod reads that the text stream never writes: 64 bytes or more,
 * a first byte other than '-', '.', a digit or 'i', an 'n' (nan,
 * infinity) or an 'x' (hex).
 */
int tp_parse_f64(const char *s, size_t n, double *v);

/*
 * The length of the longest prefix of s[0..n) that is a decimal number
 * as tp_parse_f64 reads one (an optional '-', digits with or without a
 * point, an optional exponent), 0 for none: for a number in other text
 * (JSON) that runs on after it.
 */
size_t tp_f64_prefix(const char *s, size_t n);

#endif
