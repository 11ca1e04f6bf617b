/*
 * Times as the text tools show and take them.  A record's ts is absolute
 * nanoseconds in every format (trace-text(5)); a person reads it as
 * seconds, as seconds since an earlier record, or as a UTC date, the
 * way babeltrace2 and perf script show time:
 *
 *   ns       1773850000000000012		as the text writes it
 *   seconds  1773850000.000000012
 *   rel      0.250000000			since the first record
 *   delta    0.000001000			since the previous record
 *   date     2026-03-18T16:06:40.000000012Z	UTC, ISO 8601
 *
 * Shown with all nine digits of the fraction, whatever the format's own
 * resolution (a WTF time is whole microseconds after a timebase that
 * need not be, so its last three digits are not zeros), and computed in
 * integers: no value is rounded.  The same spellings are read back as
 * times and lengths (tp_time_range), for the tools'
 * options that take times.
 */
#ifndef TP_TIMEFMT_H
#define TP_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

enum tp_time_mode {
	TP_TIME_NS,		/* as written: nanoseconds */
	TP_TIME_SECONDS,
	TP_TIME_REL,
	TP_TIME_DELTA,
	TP_TIME_DATE
};

/* The names above ("ns", "seconds", "rel", "delta", "date"), joined. */
#define TP_TIME_MODES "ns, seconds, rel, delta, date"

/* The mode a name spells, or -1. */
int tp_time_mode(const char *name);

/* Room for any of the texts below, with a NUL. */
#define TP_TIME_TEXT_MAX 40

/* "S.FFFFFFFFF": ns as seconds; returns the end (no NUL). */
char *tp_fmt_seconds(char *p, uint64_t ns);
/*
 * The same for b - a ("-0.000001000"), exact for any two times (an
 * int64_t would not hold every difference).
 */
char *tp_fmt_seconds_diff(char *p, uint64_t b, uint64_t a);
/* "YYYY-MM-DDTHH:MM:SS.FFFFFFFFFZ": ns since 1970 in UTC. */
char *tp_fmt_date(char *p, uint64_t ns);

/*
 * One element of a list of times, inclusive at both ends as txtfilter's
 * ranges are: T, A-B, A-, -B, A+LEN.  A time is an integer of
 * nanoseconds ("1773850000000000012", or 0x hex), a number with a
 * fraction of seconds ("1773850000.25"), a number with a unit
 * ("1773850000s", "1500ms", "20us", "7ns"), or a date
 * YYYY-MM-DDTHH:MM:SS[.F...] in UTC, with or without its Z; LEN a number
 * of nanoseconds or with a unit ("1.5s"; A+LEN holds A up to A+LEN-1
 * ns).  0, or -1 with err naming what (opt names the option).
 */
int tp_time_range(const char *opt, const char *s, size_t n, uint64_t *lo,
    uint64_t *hi, struct tp_err *err);

#endif
