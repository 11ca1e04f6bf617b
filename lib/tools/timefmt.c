/*
 * Times shown and read in the spellings of timefmt.h, in integers only:
 * a double holds 2^53 ns, some 104 days, and a ts is decades of them.
 */
#include <string.h>

#include "base/digits.h"
#include "text/text.h"
#include "tools/timefmt.h"

#define NS_PER_S UINT64_C(1000000000)
#define DAY_S UINT64_C(86400)

static const char *const mode_names[] = {
	"ns", "seconds", "rel", "delta", "date"
};

int
tp_time_mode(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
		if (strcmp(name, mode_names[i]) == 0)
			return (int)i;
	return -1;
}

/* Nine digits of a fraction of a second (leading zeros kept). */
static char *
fraction9(char *p, uint32_t frac)
{
	char buf[24], *e = tp_fmt_u64(buf, frac);
	size_t n = (size_t)(e - buf);

	memset(p, '0', 9 - n);
	memcpy(p + 9 - n, buf, n);
	return p + 9;
}

char *
tp_fmt_seconds(char *p, uint64_t ns)
{
	p = tp_fmt_u64(p, ns / NS_PER_S);
	*p++ = '.';
	return fraction9(p, (uint32_t)(ns % NS_PER_S));
}

char *
tp_fmt_seconds_diff(char *p, uint64_t b, uint64_t a)
{
	if (b >= a)
		return tp_fmt_seconds(p, b - a);
	*p++ = '-';
	return tp_fmt_seconds(p, a - b);
}

/*
 * Days since 1970-01-01 to the proleptic Gregorian calendar, by whole
 * 400-year eras (146097 days each) counted from 0000-03-01, so that the
 * leap day ends a year of the era.
 */
static void
civil(uint64_t days, uint64_t *y, unsigned *m, unsigned *d)
{
	uint64_t z = days + 719468, era = z / 146097, doe = z % 146097;
	uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (unsigned)((5 * doy + 2) / 153);

	*d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = era * 400 + yoe + (*m <= 2);
}

/* The inverse, for y >= 1970. */
static uint64_t
days_from_civil(uint64_t y, unsigned m, unsigned d)
{
	uint64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = y / 400;
	yoe = y % 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static char *
two(char *p, unsigned v)
{
	memcpy(p, &tp_digits2[2 * v], 2);
	return p + 2;
}

char *
tp_fmt_date(char *p, uint64_t ns)
{
	uint64_t s = ns / NS_PER_S, y;
	unsigned m, d, sec = (unsigned)(s % DAY_S);
	char buf[24], *e;

	civil(s / DAY_S, &y, &m, &d);
	e = tp_fmt_u64(buf, y);	/* 1970 .. 2554: four digits */
	memcpy(p, buf, (size_t)(e - buf));
	p += e - buf;
	*p++ = '-';
	p = two(p, m);
	*p++ = '-';
	p = two(p, d);
	*p++ = 'T';
	p = two(p, sec / 3600);
	*p++ = ':';
	p = two(p, sec / 60 % 60);
	*p++ = ':';
	p = two(p, sec % 60);
	*p++ = '.';
	p = fraction9(p, (uint32_t)(ns % NS_PER_S));
	*p++ = 'Z';
	return p;
}

/* ------------------------------------------------------------ reading */

static int
bad_time(const char *opt, const char *s, size_t n, const char *why,
    struct tp_err *err)
{
	char shown[TP_SHOW_MAX];

	return tp_fail(err, TP_EXIT_FAIL, "%s: \"%s\" %s", opt,
	    tp_show(shown, s, n), why);
}

#define NOT_A_TIME "is not a time (nanoseconds, seconds with a fraction " \
	"or a unit: 1.5s 20ms 3us, or a UTC date 2026-03-18T12:00:00Z)"

/* At most k digits at p (up to end) as a number; how many were read. */
static size_t
digits(const char *p, const char *end, size_t k, unsigned *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < k && p + i < end && p[i] >= '0' && p[i] <= '9'; i++)
		*v = *v * 10 + (unsigned)(p[i] - '0');
	return i;
}

/* Does s start as a date does, YYYY-MM-DDT? */
static int
is_date(const char *s, size_t n)
{
	static const char shape[] = "dddd-dd-ddT";
	size_t i;

	if (n < sizeof shape - 1)
		return 0;
	for (i = 0; i < sizeof shape - 1; i++)
		if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9') :
		    s[i] != shape[i])
			return 0;
	return 1;
}

/* Nine digits or fewer of a fraction as nanoseconds; -1 past nine. */
static int
fraction_ns(const char *p, const char *end, size_t *len, uint64_t *ns)
{
	size_t i;

	*ns = 0;
	for (i = 0; p + i < end && p[i] >= '0' && p[i] <= '9'; i++) {
		if (i == 9)
			return -1;
		*ns = *ns * 10 + (uint64_t)(p[i] - '0');
	}
	*len = i;
	for (; i < 9; i++)
		*ns *= 10;
	return 0;
}

static int
parse_date(const char *opt, const char *s, size_t n, uint64_t *ns,
    size_t *used, struct tp_err *err)
{
	static const unsigned char mdays[12] = {
		31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
	};
	const char *p = s + 11, *end = s + n;
	unsigned y, mo, d, h = 0, mi = 0, sec = 0, dim;
	uint64_t days, frac = 0, secs;
	size_t k;

	digits(s, end, 4, &y);
	digits(s + 5, end, 2, &mo);
	digits(s + 8, end, 2, &d);
	if (digits(p, end, 2, &h) != 2 || p + 2 >= end || p[2] != ':' ||
	    digits(p + 3, end, 2, &mi) != 2 || p + 5 >= end || p[5] != ':' ||
	    digits(p + 6, end, 2, &sec) != 2)
		return bad_time(opt, s, n, "is not a date (YYYY-MM-DDTHH:MM:SS, "
		    "a fraction of a second and Z optional)", err);
	p += 8;
	if (p < end && *p == '.') {
		if (fraction_ns(p + 1, end, &k, &frac) < 0)
			return bad_time(opt, s, n, "is finer than a nanosecond",
			    err);
		if (k == 0)
			return bad_time(opt, s, n, "has no digits after its "
			    "'.'", err);
		p += 1 + k;
	}
	if (p < end && *p == 'Z')
		p++;
	else if (p < end && (*p == '+' || (*p == '-' && p + 1 < end &&
	    p[1] >= '0' && p[1] <= '9' && p + 3 < end && p[3] == ':')))
		return bad_time(opt, s, n, "has a time zone offset: write the "
		    "time in UTC", err);
	dim = mo >= 1 && mo <= 12 ? mdays[mo - 1] + (mo == 2 && y % 4 == 0 &&
	    (y % 100 != 0 || y % 400 == 0)) : 0;
	if (mo < 1 || mo > 12 || d < 1 || d > dim || h > 23 || mi > 59 ||
	    sec > 59)
		return bad_time(opt, s, n, "is no date of the calendar", err);
	if (y < 1970)
		return bad_time(opt, s, n, "is before 1970, where time starts",
		    err);
	days = days_from_civil(y, mo, d);
	secs = days * DAY_S + h * 3600u + mi * 60u + sec;
	if (secs > (UINT64_MAX - frac) / NS_PER_S)
		return bad_time(opt, s, n, "is past the last time 64 bits of "
		    "nanoseconds hold (2554-07-21T23:34:33.709551615Z)", err);
	*ns = secs * NS_PER_S + frac;
	*used = (size_t)(p - s);
	return 0;
}

/*
 * A number of nanoseconds, or of seconds with a fraction, or with a
 * unit; a unit's fraction must come to whole nanoseconds.
 */
static int
parse_number(const char *opt, const char *s, size_t n, uint64_t *ns,
    size_t *used, struct tp_err *err)
{
	static const struct {
		char name[3];
		unsigned char len, shift;	/* shift: digits to ns */
	} units[] = { { "ns", 2, 0 }, { "us", 2, 3 }, { "ms", 2, 6 },
	    { "s", 1, 9 } };
	const char *p = s, *end = s + n, *dot = NULL, *frac_end;
	uint64_t whole = 0, frac = 0, scale = 1;
	unsigned shift = 0, i;
	size_t k;

	/* Nanoseconds in hex, as the tools' lists take every number. */
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (p = s + 2; p < end && tp_hexval(*p) >= 0; p++)
			;
		if (tp_parse_u64(s, (size_t)(p - s), ns) < 0)
			return bad_time(opt, s, n, p == s + 2 ? NOT_A_TIME :
			    "is too big a time (64 bits of nanoseconds)", err);
		*used = (size_t)(p - s);
		return 0;
	}
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return bad_time(opt, s, n, "is too big a time", err);
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return bad_time(opt, s, n, NOT_A_TIME, err);
	if (p < end && *p == '.') {
		dot = p++;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == dot + 1)
			return bad_time(opt, s, n, "has no digits after its "
			    "'.'", err);
	}
	frac_end = p;
	for (i = 0; i < sizeof units / sizeof units[0]; i++)
		if ((size_t)(end - p) >= units[i].len &&
		    memcmp(p, units[i].name, units[i].len) == 0)
			break;
	if (i < sizeof units / sizeof units[0]) {
		shift = units[i].shift;
		p += units[i].len;
	} else if (dot != NULL) {
		shift = 9;	/* a fraction with no unit: seconds */
	}
	if (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' &&
	    *p <= 'Z') || *p == '.'))
		return bad_time(opt, s, n, NOT_A_TIME, err);
	if (dot != NULL) {
		k = (size_t)(frac_end - dot - 1);
		if (k > shift)
			return bad_time(opt, s, n, "is finer than a nanosecond",
			    err);
		for (i = 0; i < k; i++)
			frac = frac * 10 + (uint64_t)(dot[1 + i] - '0');
		for (; i < shift; i++)
			frac *= 10;
	}
	for (i = 0; i < shift; i++)
		scale *= 10;
	if (whole > (UINT64_MAX - frac) / scale)
		return bad_time(opt, s, n, "is too big a time (64 bits of "
		    "nanoseconds)", err);
	*ns = whole * scale + frac;
	*used = (size_t)(p - s);
	return 0;
}

/* One time at the start of s[0..n); *used: the bytes it takes. */
static int
time_parse(const char *opt, const char *s, size_t n, uint64_t *ns,
    size_t *used, struct tp_err *err)
{
	if (is_date(s, n))
		return parse_date(opt, s, n, ns, used, err);
	return parse_number(opt, s, n, ns, used, err);
}

/* A time that must fill s[0..n). */
static int
whole_time(const char *opt, const char *s, size_t n, uint64_t *ns,
    int length, struct tp_err *err)
{
	size_t used;

	if (n == 0)
		return bad_time(opt, s, n, NOT_A_TIME, err);
	if ((length ? parse_number(opt, s, n, ns, &used, err) :
	    time_parse(opt, s, n, ns, &used, err)) < 0)
		return -1;
	if (used != n)
		return bad_time(opt, s, n, length ? "is not a length (a number "
		    "of nanoseconds, or with a unit: 1.5s 20ms 3us)" :
		    NOT_A_TIME, err);
	return 0;
}

int
tp_time_range(const char *opt, const char *s, size_t n, uint64_t *lo,
    uint64_t *hi, struct tp_err *err)
{
	uint64_t len;
	size_t used;

	*lo = 0;
	*hi = UINT64_MAX;
	if (n == 0)
		return tp_fail(err, TP_EXIT_FAIL, "%s: empty element", opt);
	if (s[0] == '+' && n > 1) {
		char shown[TP_SHOW_MAX], rest[TP_SHOW_MAX];

		tp_show(rest, s + 1, n - 1);
		return tp_fail(err, TP_EXIT_FAIL, "%s: \"%s\": a range A+N "
		    "needs its start A (write %s- for %s and after)", opt,
		    tp_show(shown, s, n), rest, rest);
	}
	if (s[0] == '-')
		return n == 1 ? bad_time(opt, s, n, "is not a range", err) :
		    whole_time(opt, s + 1, n - 1, hi, 0, err);
	if (time_parse(opt, s, n, lo, &used, err) < 0)
		return -1;
	if (used == n) {
		*hi = *lo;
		return 0;
	}
	if (s[used] == '+') {
		if (whole_time(opt, s + used + 1, n - used - 1, &len, 1,
		    err) < 0)
			return -1;
		if (len == 0)
			return bad_time(opt, s, n, "is an empty range", err);
		*hi = len - 1 > UINT64_MAX - *lo ? UINT64_MAX : *lo + (len - 1);
		return 0;
	}
	if (s[used] != '-')
		return bad_time(opt, s, n, NOT_A_TIME, err);
	if (used + 1 < n && whole_time(opt, s + used + 1, n - used - 1, hi, 0,
	    err) < 0)
		return -1;
	if (*lo > *hi)
		return bad_time(opt, s, n, "is an empty range (start after "
		    "end)", err);
	return 0;
}
