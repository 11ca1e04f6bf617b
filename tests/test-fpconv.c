/*
 * The float printer and parser against printf and strtod.
 *
 * The text of a double is defined as the shortest "%.*g" that strtod reads
 * back as the same double, ".0" added where it looks like an integer:
 * ref_text() below is that definition, printf's search as the text writer
 * did it before lib/base/fpconv.c, and tp_fmt_f64 must print the same bytes
 * for every value.  tp_parse_f64 must give the bits strtod gives.
 *
 *   test-fpconv                 what make check runs (a few seconds)
 *   test-fpconv --float32-all   every float32 bit pattern against ref_text
 *                               (hours on one core: by hand)
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/fpconv.h"
#include "rng.h"
#include "tap.h"

#define MAX 64

static int
g_reads_back(char *buf, int prec, double v, int *n)
{
	*n = snprintf(buf, MAX, "%.*g", prec, v);
	return strtod(buf, NULL) == v;
}

/* The shortest %g that reads back: bisection (the interval of v is
 * symmetric unless v is a power of two), else digit by digit. */
static void
ref_text(char *buf, double v)
{
	uint64_t bits = tp_f64_bits(v);
	int prec, n = 0;

	if (isnan(v)) {
		if (bits == UINT64_C(0x7ff8000000000000))
			strcpy(buf, "nan");
		else
			sprintf(buf, "nan:0x%llx", (unsigned long long)bits);
		return;
	}
	if (isinf(v)) {
		strcpy(buf, v > 0 ? "inf" : "-inf");
		return;
	}
	if ((bits & UINT64_C(0xfffffffffffff)) == 0) {
		for (prec = 1; prec < 17 && !g_reads_back(buf, prec, v, &n);
		    prec++)
			;
		if (prec == 17)
			g_reads_back(buf, 17, v, &n);
	} else {
		int lo = 1, hi = 17, ok = 0;
		while (lo < hi) {
			prec = (lo + hi) / 2;
			if ((ok = g_reads_back(buf, prec, v, &n)))
				hi = prec;
			else
				lo = prec + 1;
		}
		if (!ok)
			g_reads_back(buf, hi, v, &n);
	}
	if (strpbrk(buf, ".e") == NULL)
		strcpy(buf + n, ".0");
}

static long checked;
static int shown;

/* Same text as the reference, and it parses back to the same bits. */
static int
same(double v)
{
	char want[MAX], got[MAX];
	char *e;
	double back;
	uint64_t bits = tp_f64_bits(v);

	checked++;
	ref_text(want, v);
	*tp_fmt_f64(got, v) = '\0';
	if (strcmp(got, want) != 0) {
		if (shown++ < 10)
			printf("# %016llx: got %s, want %s\n",
			    (unsigned long long)bits, got, want);
		return 0;
	}
	if (isnan(v))
		return 1;
	if (tp_parse_f64(got, strlen(got), &back) < 0 ||
	    tp_f64_bits(back) != bits ||
	    tp_f64_bits(strtod(got, &e)) != bits) {
		if (shown++ < 10)
			printf("# %016llx: %s does not read back\n",
			    (unsigned long long)bits, got);
		return 0;
	}
	return 1;
}

static double
f32(uint32_t b)
{
	return (double)tp_f32_from_bits(b);
}

static void
print_tests(void)
{
	long bad = 0, n0;
	int i, k;

	/* Every power of two, both signs, and the values beside each. */
	n0 = checked;
	for (i = 0; i < 2047; i++) {
		uint64_t b = (uint64_t)i << 52;
		for (int s = 0; s < 2; s++) {
			uint64_t sb = b | (uint64_t)s << 63;
			bad += !same(tp_f64_from_bits(sb));
			bad += !same(tp_f64_from_bits(sb + 1));
			if (i > 0)
				bad += !same(tp_f64_from_bits(sb - 1));
		}
	}
	ok(bad == 0, "every power of two and its neighbours (%ld values, %ld "
	    "differ)", checked - n0, bad);

	/* Powers of ten and their neighbours, 1e-323 .. 1e308. */
	bad = 0, n0 = checked;
	for (i = -323; i <= 308; i++) {
		char s[16];
		double v;
		uint64_t b;
		snprintf(s, sizeof s, "1e%d", i);
		v = strtod(s, NULL);
		b = tp_f64_bits(v);
		for (int64_t d = -2; d <= 2; d++)
			bad += !same(tp_f64_from_bits(b + (uint64_t)d));
	}
	ok(bad == 0, "powers of ten and their neighbours (%ld values, %ld "
	    "differ)", checked - n0, bad);

	/* Edges. */
	{
		static const uint64_t edge[] = {
			0, UINT64_C(0x8000000000000000), 1, 2, 3,
			UINT64_C(0x000fffffffffffff), UINT64_C(0x0010000000000000),
			UINT64_C(0x0010000000000001), UINT64_C(0x7fefffffffffffff),
			UINT64_C(0x7fe0000000000000), UINT64_C(0x7ff0000000000000),
			UINT64_C(0xfff0000000000000), UINT64_C(0x7ff8000000000000),
			UINT64_C(0xfff8000000000000), UINT64_C(0x7ff0000000000001),
			UINT64_C(0x7ff4000000000000), UINT64_C(0xfff02468a0000000),
			UINT64_C(0x3ff0000000000000), UINT64_C(0x3fb999999999999a),
			UINT64_C(0x4340000000000000), UINT64_C(0x4330000000000000),
			UINT64_C(0x4341c37937e08000), UINT64_C(0x44b52d02c7e14af6),
		};
		bad = 0;
		for (i = 0; i < (int)(sizeof edge / sizeof edge[0]); i++)
			bad += !same(tp_f64_from_bits(edge[i]));
		ok(bad == 0, "zeros, subnormal and normal limits, max, inf, "
		    "NaNs with payloads (%ld differ)", bad);
	}

	/* Short decimals and integers, as traces have them. */
	bad = 0, n0 = checked;
	for (i = -100000; i <= 100000; i += 7) {
		bad += !same(i / 1000.0);
		bad += !same((double)i * 1024);
		bad += !same(i * 1e-7);
	}
	for (k = 0; k < 64; k++)
		bad += !same((double)(UINT64_MAX >> k)) +
		    !same((double)(UINT64_C(1) << k) - 1);
	ok(bad == 0, "short decimals and integers (%ld values, %ld differ)",
	    checked - n0, bad);

	/* Subnormals: the smallest, and random ones. */
	bad = 0, n0 = checked;
	for (k = 1; k < 5000; k++)
		bad += !same(tp_f64_from_bits((uint64_t)k));
	for (k = 0; k < 20000; k++)
		bad += !same(tp_f64_from_bits(rnd() & UINT64_C(0x800fffffffffffff)));
	ok(bad == 0, "subnormal doubles (%ld values, %ld differ)",
	    checked - n0, bad);

	/* Random bit patterns. */
	bad = 0, n0 = checked;
	for (k = 0; k < 300000; k++)
		bad += !same(tp_f64_from_bits(rnd()));
	ok(bad == 0, "random doubles (%ld values, %ld differ)",
	    checked - n0, bad);

	/* float32 values as doubles (WTF and dial9 floats). */
	bad = 0, n0 = checked;
	for (i = 0; i < 256; i++)	/* powers of two, subnormal ones too */
		for (k = 0; k < 2; k++) {
			uint32_t b = (uint32_t)i << 23 | (uint32_t)k << 31;
			bad += !same(f32(b)) + !same(f32(b + 1));
			if (i > 0)
				bad += !same(f32(b - 1));
		}
	for (k = 1; k < 3000; k++)
		bad += !same(f32((uint32_t)k));
	for (k = 0; k < 300000; k++)
		bad += !same(f32((uint32_t)rnd()));
	ok(bad == 0, "float32 values (%ld values, %ld differ)",
	    checked - n0, bad);
}

/* tp_parse_f64 of s gives what strtod gives, or both refuse. */
static int
parses_like_strtod(const char *s)
{
	double a, b;
	char *e;
	int r = tp_parse_f64(s, strlen(s), &a);

	b = strtod(s, &e);
	if (r == 0 && *e == '\0' && tp_f64_bits(a) == tp_f64_bits(b))
		return 1;
	if (shown++ < 10)
		printf("# \"%s\": got %s %.17g, strtod %.17g\n", s,
		    r == 0 ? "ok" : "refused", r == 0 ? a : 0.0, b);
	return 0;
}

static void
parse_tests(void)
{
	static const char *good[] = {
		"0", "-0", "0.0", "-0.0", "1", "1.", ".5", "-.5", "1e5", "1E5",
		"1e+5", "1e-5", "1.5e300", "4.9406564584124654e-324",
		"2.2250738585072014e-308", "1.7976931348623157e+308",
		"1e400", "1e-400", "0.000000000000000000000000000001",
		"123456789012345678901234567890", "9007199254740993",
		"18446744073709551615", "0.3333333432674408",
		"-123.45600128173828", "1.401298464324817e-45",
		"00000000000000000000000000000000000000000000012.5e-1",
		"1e0000000000000000000000000000000000000000000000000000009",
		"-INF",
	};
	static const char *refused[] = {
		"", "-", ".", "e5", "1e", "1e+", "+1", " 1", "1 ", "nan",
		"-nan", "infinity", "0x10", "1.5x", "1..5", "1e5.5", "--1",
		"0123456789012345678901234567890123456789012345678901234567890123",
	};
	long bad = 0;
	int i, k;

	for (i = 0; i < (int)(sizeof good / sizeof good[0]); i++)
		bad += !parses_like_strtod(good[i]);
	ok(bad == 0, "numbers of every shape read as strtod reads them");
	bad = 0;
	for (i = 0; i < (int)(sizeof refused / sizeof refused[0]); i++) {
		double v;
		if (tp_parse_f64(refused[i], strlen(refused[i]), &v) == 0) {
			printf("# \"%s\" accepted\n", refused[i]);
			bad++;
		}
	}
	ok(bad == 0, "what is not one whole decimal number is refused");
	{
		double v;
		ok(tp_parse_f64("inf", 3, &v) == 0 && isinf(v) && v > 0 &&
		    tp_parse_f64("-inf", 4, &v) == 0 && isinf(v) && v < 0,
		    "inf and -inf");
	}

	/*
	 * Mantissas of 1 to 20 digits with exponents -30..30, which the fast
	 * paths take: random ones, and the exact midpoints between two
	 * doubles where a short decimal can hold one (integers above 2^53,
	 * doubles with few fraction bits), and their neighbours.
	 */
	bad = 0;
	for (k = 0; k < 400000; k++) {
		char s[64];
		int digits = 1 + (int)below(20), e = (int)below(61) - 30;
		uint64_t m = rnd() % UINT64_C(10000000000000000000);
		uint64_t p = 1;
		for (i = 0; i < digits && i < 19; i++)
			p *= 10;
		if (digits < 20)
			m %= p;
		snprintf(s, sizeof s, "%s%llue%d", k & 1 ? "-" : "",
		    (unsigned long long)m, e);
		bad += !parses_like_strtod(s);
	}
	for (k = 0; k < 200000; k++) {
		char s[64];
		int sh = 1 + (int)below(11);
		/* a double in [2^(52+sh), 2^(53+sh)) and the next: integers */
		uint64_t d = (UINT64_C(1) << 52 | (rnd() & ((UINT64_C(1) << 52) - 1))) << sh;
		uint64_t mid = d + (UINT64_C(1) << (sh - 1));
		for (int64_t dd = -1; dd <= 1; dd++) {
			snprintf(s, sizeof s, "%llu", (unsigned long long)(mid + (uint64_t)dd));
			bad += !parses_like_strtod(s);
		}
		/* a double in [2^k, 2^(k+1)), k = 49..52, the midpoint after
		   it (53 - k fraction bits) and its neighbours */
		{
			int kk = 49 + (int)below(4), fb = 53 - kk;
			uint64_t w = (rnd() & ((UINT64_C(1) << 52) - 1)) |
			    UINT64_C(1) << 52;
			double x = ldexp((double)w, kk - 52);
			for (int dd = -1; dd <= 1; dd++) {
				snprintf(s, sizeof s, "%.*f", fb,
				    x + ldexp(1, -fb) + dd * ldexp(1, -fb - 1));
				bad += !parses_like_strtod(s);
			}
		}
	}
	ok(bad == 0, "short mantissas, midpoints between doubles and their "
	    "neighbours read as strtod reads them (%ld differ)", bad);
}

int
main(int argc, char **argv)
{
	rng_state = 20261123;
	if (argc > 1 && strcmp(argv[1], "--float32-all") == 0) {
		long bad = 0;
		uint32_t b = 0;
		do {
			bad += !same(f32(b));
			if ((b & 0xfffffff) == 0)
				fprintf(stderr, "%08x\n", b);
		} while (++b != 0);
		ok(bad == 0, "every float32 (%ld differ)", bad);
		return done_testing();
	}
	print_tests();
	parse_tests();
	return done_testing();
}
