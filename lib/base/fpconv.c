/*
 * Floats as text and back.
 *
 * Writing.  The text of a double has always been the shortest precision
 * P for which printf's "%.*g" (v correctly rounded to P significant
 * digits, ties to even) reads back as v.  It is found here without printf
 * by the method of Ryu (Ulf Adams, "Ryu: fast float-to-string
 * conversion", PLDI 2018, https://doi.org/10.1145/3192366.3192369): v and
 * the two ends of the interval of reals that read back as v are scaled to
 * about 17 decimal digits, each with one 128-bit multiplication by a power
 * of 5 (tables made on first use), and digits are removed while the
 * interval still holds a shorter number.  Ryu answers the number of the
 * interval closest to v at the shortest length, which is v rounded where
 * the interval is symmetric about v.  At a power of two the interval below
 * v is half the one above, and v rounded can fall out of it at a length
 * where a number above v is in: so v rounded is checked at every length,
 * and the shortest that is in the interval is printed, as %g's search did.
 *
 * Reading.  Clinger's fast path (W. D. Clinger, "How to read floating
 * point numbers accurately", PLDI 1990): a mantissa of at most 53 bits
 * times or over an exact power of ten (10^0..10^22) is one correctly
 * rounded operation.  Mantissas of up to 19 digits (the 17 digits of a
 * float32 printed as a double) with powers up to 10^27 are done in x87
 * extended precision (64 bits), one rounding, and rounded again to a
 * double unless the extended result lies within one unit of a double's
 * rounding boundary, the only place where two roundings can differ from
 * one.  Everything else goes to strtod.
 */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "base/fpconv.h"

#ifndef __SIZEOF_INT128__
#error "fpconv.c needs a 128-bit integer type (gcc, clang)"
#endif
typedef unsigned __int128 u128;

/* ------------------------------------------------------------ tables */

#define POW5_BITS 125	/* bits kept of each power of 5 (Ryu's bound) */
#define INV_N 292	/* 5^-q for q = 0..291 (doubles need q <= 290) */
#define POW_N 326	/* 5^i for i = 0..325 (doubles need i <= 325) */
#define BIG_LIMBS 14	/* 896 bits: 2^832 and 5^325 (755 bits) */

static u128 pow5_inv[INV_N];	/* floor(2^(pow5bits(q)-1+125) / 5^q) + 1 */
static u128 pow5[POW_N];	/* 5^i to 125 significant bits, truncated */
static int tables_made;

/* Bits of 5^e: ceil(e log2 5) for 0 < e < 3529, 1 for e = 0. */
static inline int
pow5bits(int e)
{
	return (int)(((uint32_t)e * 1217359) >> 19) + 1;
}

/* floor(e log10 2) for 0 <= e < 1651. */
static inline int
log10pow2(int e)
{
	return (int)(((uint32_t)e * 78913) >> 18);
}

/* floor(e log10 5) for 0 <= e < 2621. */
static inline int
log10pow5(int e)
{
	return (int)(((uint32_t)e * 732923) >> 20);
}

/* Bits [s, s + 128) of the big number a. */
static u128
big_bits(const uint64_t *a, int s)
{
	int k = s / 64, b = s % 64;
	uint64_t w[3];

	for (int i = 0; i < 3; i++)
		w[i] = k + i < BIG_LIMBS ? a[k + i] : 0;
	if (b == 0)
		return (u128)w[1] << 64 | w[0];
	return (u128)(w[1] >> b | w[2] << (64 - b)) << 64 |
	    (w[0] >> b | w[1] << (64 - b));
}

static void
make_tables(void)
{
	uint64_t p[BIG_LIMBS] = { 1 }, x[BIG_LIMBS] = { 0 };
	const int K = 832;	/* x = floor(2^K / 5^q) */

	x[K / 64] = UINT64_C(1) << K % 64;
	for (int i = 0; i < POW_N; i++) {
		int bits = pow5bits(i), carry;
		u128 c = 0;
		if (bits >= POW5_BITS)
			pow5[i] = big_bits(p, bits - POW5_BITS);
		else
			pow5[i] = big_bits(p, 0) << (POW5_BITS - bits);
		if (i < INV_N)
			pow5_inv[i] = big_bits(x, K - (bits - 1 + POW5_BITS)) + 1;
		for (int j = 0; j < BIG_LIMBS; j++) {	/* p *= 5 */
			c += (u128)p[j] * 5;
			p[j] = (uint64_t)c;
			c >>= 64;
		}
		carry = 0;
		for (int j = BIG_LIMBS - 1; j >= 0; j--) {	/* x /= 5 */
			u128 t = (u128)carry << 64 | x[j];
			x[j] = (uint64_t)(t / 5);
			carry = (int)(t % 5);
		}
	}
	tables_made = 1;
}

/* ------------------------------------------------------------ writing */

/* Is m a multiple of 5^q? */
static inline int
multiple_of_pow5(uint64_t m, int q)
{
	int n = 0;

	while (n < q && m % 5 == 0) {
		m /= 5;
		n++;
	}
	return n >= q;
}

/*
 * The digits d and exponent *e of v's text (v = bits, finite, nonzero,
 * sign ignored): the shortest d * 10^*e that is v rounded to the digits
 * of d and reads back as v.
 */
static uint64_t
shortest(uint64_t bits, int *e)
{
	unsigned be = (unsigned)(bits >> 52) & 0x7ff;
	uint64_t fm = bits & ((UINT64_C(1) << 52) - 1);
	uint64_t m2 = be ? fm | UINT64_C(1) << 52 : fm;
	/* v = mv * 2^e2; the interval is [mm, mp] * 2^e2 */
	int e2 = (be ? (int)be : 1) - 1075 - 2;
	int asym = fm == 0 && be > 1;	/* a power of two: half below */
	int even = (m2 & 1) == 0;	/* the interval's ends read back */
	uint64_t mv = 4 * m2, mp = mv + 2, mm = mv - 2 + (uint64_t)asym;
	uint64_t vr, vp, vm, best = 0;
	int q, e10, shift, vr_tz, vm_tz, vp_exact, removed = 0, best_removed = 0;
	unsigned last = 0;
	u128 mul;

	if (!tables_made)
		make_tables();
	if (e2 >= 0) {
		/* vX = floor(mX * 2^e2 / 10^q) */
		q = log10pow2(e2) - (e2 > 3);
		e10 = q;
		mul = pow5_inv[q];
		shift = -e2 + q + pow5bits(q) - 1 + POW5_BITS;
		vr_tz = multiple_of_pow5(mv, q);
		vm_tz = multiple_of_pow5(mm, q);
		vp_exact = multiple_of_pow5(mp, q);
	} else {
		/* vX = floor(mX * 5^i / 2^q) = floor(mX * 2^e2 / 10^(q+e2)) */
		int i;
		q = log10pow5(-e2) - (-e2 > 1);
		e10 = q + e2;
		i = -e2 - q;
		mul = pow5[i];
		shift = q - pow5bits(i) + POW5_BITS;
		vr_tz = q < 64 && __builtin_ctzll(mv) >= q;
		vm_tz = q < 64 && __builtin_ctzll(mm) >= q;
		vp_exact = q < 64 && __builtin_ctzll(mp) >= q;
	}
	/* (m * mul) >> shift, 64 <= shift, m < 2^55: Ryu's mulShift */
#define MULSHIFT(m) ((uint64_t)(((u128)(m) * (uint64_t)(mul >> 64) + \
	    (((u128)(m) * (uint64_t)mul) >> 64)) >> (shift - 64)))
	vr = MULSHIFT(mv);
	vp = MULSHIFT(mp);
	vm = MULSHIFT(mm);
#undef MULSHIFT
	if (!even && vp_exact)
		vp--;	/* the upper end itself does not read back */
	/*
	 * vr_tz: the digits of v below vr are all zero; vm_tz: likewise of
	 * the lower end (then vm is it exactly); last: the digit of v just
	 * below vr.
	 */
	for (;;) {
		uint64_t c = vr + (last > 5 ||
		    (last == 5 && !(vr_tz && (vr & 1) == 0)));
		if ((c > vm || (c == vm && even && vm_tz)) && c <= vp) {
			best = c;
			best_removed = removed;
		}
		if (vp / 10 <= vm / 10 && !(even && vm_tz && vm % 10 == 0))
			break;	/* no shorter number in the interval */
		vm_tz &= vm % 10 == 0;
		vr_tz &= last == 0;
		last = (unsigned)(vr % 10);
		vr /= 10;
		vp /= 10;
		vm /= 10;
		removed++;
	}
	while (best % 10 == 0) {
		best /= 10;
		best_removed++;
	}
	*e = e10 + best_removed;
	return best;
}

char *
tp_fmt_f64(char *p, double v)
{
	uint64_t bits = tp_f64_bits(v), d;
	char dig[24];
	int n, x, e;

	if ((bits & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000)) {
		if ((bits & UINT64_C(0xfffffffffffff)) == 0) {
			memcpy(p, bits >> 63 ? "-inf" : "inf", 4);
			return p + 3 + (bits >> 63);
		}
		if (bits == UINT64_C(0x7ff8000000000000)) {
			memcpy(p, "nan", 3);
			return p + 3;
		}
		memcpy(p, "nan:", 4);
		return tp_fmt_hex(p + 4, bits);
	}
	if (bits >> 63)
		*p++ = '-';
	if ((bits << 1) == 0) {
		memcpy(p, "0.0", 3);
		return p + 3;
	}
	d = shortest(bits, &e);
	n = (int)(tp_fmt_u64(dig, d) - dig);
	x = n - 1 + e;	/* the exponent of the first digit */
	if (x < -4 || x >= n) {
		/* %e: d[.ddd]e[+-]XX */
		*p++ = dig[0];
		if (n > 1) {
			*p++ = '.';
			memcpy(p, dig + 1, (size_t)n - 1);
			p += n - 1;
		}
		*p++ = 'e';
		*p++ = x < 0 ? '-' : '+';
		if (x < 0)
			x = -x;
		if (x < 10)
			*p++ = '0';
		return tp_fmt_u64(p, (uint64_t)x);
	}
	if (x >= 0) {
		memcpy(p, dig, (size_t)x + 1);
		p += x + 1;
		*p++ = '.';
		if (n == x + 1) {
			*p++ = '0';	/* never like an integer */
			return p;
		}
		memcpy(p, dig + x + 1, (size_t)(n - x - 1));
		return p + n - x - 1;
	}
	memcpy(p, "0.0000", (size_t)(1 - x));
	p += 1 - x;
	memcpy(p, dig, (size_t)n);
	return p + n;
}

/* ------------------------------------------------------------ reading */

static const double exact10[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

#if LDBL_MANT_DIG == 64 && (defined(__x86_64__) || defined(__i386__))
#define HAVE_X87 1
/* 10^k = 5^k 2^k is exact in 64 bits while 5^k < 2^64: k <= 27. */
static const long double exact10l[28] = {
	1e0L, 1e1L, 1e2L, 1e3L, 1e4L, 1e5L, 1e6L, 1e7L, 1e8L, 1e9L, 1e10L,
	1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
	1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L,
};
static int x87_ok = -1;	/* arithmetic really has 64 bits (not valgrind) */

/* m * 10^k as a double (m < 2^64, |k| <= 27); -1 when it cannot tell. */
static int
x87_scale(uint64_t m, int k, double *v)
{
	long double y;
	unsigned char rep[sizeof(long double)];
	uint64_t sig;

	if (x87_ok < 0) {
		volatile long double one = 1, tiny = 0x1p-63L;
		x87_ok = one + tiny != one;
	}
	if (!x87_ok)
		return -1;
	y = (long double)m;	/* exact */
	y = k < 0 ? y / exact10l[-k] : y * exact10l[k];
	memcpy(rep, &y, sizeof rep);
	memcpy(&sig, rep, 8);	/* the 64-bit significand, little-endian */
	/*
	 * The 11 bits a double drops: 0x400 is a boundary between two
	 * doubles; one unit from it, the exact value may lie on its other
	 * side.  The result is a normal double: 1e-27 <= |y| < 2e46.
	 */
	if ((sig & 0x7ff) - 0x3ff <= 2)
		return -1;
	*v = (double)y;
	return 0;
}
#endif

/* The strtod path, for what the fast paths leave. */
static int
parse_slow(const char *s, size_t n, double *v)
{
	char buf[64];
	char *e;

	if (memchr(s, 'n', n) != NULL || memchr(s, 'x', n) != NULL)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtod(buf, &e);
	return *e == '\0' ? 0 : -1;
}

int
tp_parse_f64(const char *s, size_t n, double *v)
{
	const char *p = s, *end = s + n;
	uint64_t m = 0;
	int neg = 0, digits = 0, sig = 0, exp = 0, any = 0;

	if (n == 0 || n >= 64 || !(*p == '-' || *p == '.' || (*p >= '0' && *p <= '9') ||
	    *p == 'i'))
		return -1;
	if ((n == 3 && memcmp(s, "inf", 3) == 0) ||
	    (n == 4 && memcmp(s, "-inf", 4) == 0)) {
		*v = tp_f64_from_bits(UINT64_C(0x7ff0000000000000) |
		    (uint64_t)(n == 4) << 63);
		return 0;
	}
	if (*p == '-') {
		neg = 1;
		p++;
	}
	for (; p < end && *p >= '0' && *p <= '9'; p++, any = 1) {
		if (m == 0 && *p == '0')
			continue;
		if (sig++ < 19)
			m = m * 10 + (unsigned)(*p - '0');
		else
			exp++;
		if (*p != '0')
			digits = sig;
	}
	if (p < end && *p == '.') {
		for (p++; p < end && *p >= '0' && *p <= '9'; p++, any = 1) {
			if (m == 0 && *p == '0') {
				exp--;
				continue;
			}
			if (sig++ < 19) {
				m = m * 10 + (unsigned)(*p - '0');
				exp--;
			}
			if (*p != '0')
				digits = sig;
		}
	}
	if (!any)
		return parse_slow(s, n, v);
	if (p < end && (*p == 'e' || *p == 'E')) {
		int eneg = 0, ev = 0, ed = 0;
		if (++p < end && (*p == '-' || *p == '+'))
			eneg = *p++ == '-';
		for (; p < end && *p >= '0' && *p <= '9'; p++, ed++)
			if (ev < 10000)
				ev = ev * 10 + (*p - '0');
		if (ed == 0)
			return parse_slow(s, n, v);
		exp += eneg ? -ev : ev;
	}
	if (p != end || digits > 19)
		return parse_slow(s, n, v);
	if (m == 0) {
		*v = neg ? -0.0 : 0.0;
		return 0;
	}
#if FLT_EVAL_METHOD == 0
	if (m <= UINT64_C(1) << 53 && exp >= -22 && exp <= 22) {
		double d = (double)m;
		d = exp < 0 ? d / exact10[-exp] : d * exact10[exp];
		*v = neg ? -d : d;
		return 0;
	}
#endif
#ifdef HAVE_X87
	if (exp >= -27 && exp <= 27 && x87_scale(m, exp, v) == 0) {
		if (neg)
			*v = -*v;
		return 0;
	}
#endif
	return parse_slow(s, n, v);
}

size_t
tp_f64_prefix(const char *s, size_t n)
{
	size_t i = 0, k, digits = 0;

	if (i < n && s[i] == '-')
		i++;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (digits == 0)
		return 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		k = i + 1;
		if (k < n && (s[k] == '+' || s[k] == '-'))
			k++;
		if (k < n && s[k] >= '0' && s[k] <= '9') {
			while (k < n && s[k] >= '0' && s[k] <= '9')
				k++;
			i = k;	/* an exponent without digits is not read */
		}
	}
	return i;
}
