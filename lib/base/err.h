/*
 * The error value every module of the library reports into.
 *
 * A module never prints: it fills a struct tp_err and returns -1.  The
 * program side prints it (prog/diag.h, tp_err_print) as one line:
 *
 *   prog: input: offset 0x1f3a, block 812: what was wrong
 *   prog: input:1234:7: what was wrong
 */
#ifndef TP_ERR_H
#define TP_ERR_H

#include <stdarg.h>
#include <stdint.h>

enum {
	TP_EXIT_OK = 0,
	TP_EXIT_DATA = 1,	/* malformed or truncated input */
	TP_EXIT_FAIL = 2	/* usage or system error */
};

#define TP_NONE UINT64_MAX

struct tp_err {
	int status;		/* 0 none, TP_EXIT_DATA or TP_EXIT_FAIL */
	uint64_t offset;	/* byte offset in the input, or TP_NONE */
	uint64_t line;		/* text line number (1-based), or 0 */
	uint64_t col;		/* text column (1-based), or 0 */
	uint64_t index;		/* record index, or TP_NONE */
	const char *unit;	/* what index counts: "block", "event" ... */
	const char *name;	/* the file it is about when not the input
				   ("" for none), or NULL */
	char msg[256];
};

/* Reset an error value to "no error". */
void tp_err_clear(struct tp_err *e);

/*
 * Record an error.  Where fields (offset, line, index) are left as they
 * were; set them before or after.  Always returns -1 so that callers can
 * write "return tp_fail(e, ...);".
 */
int tp_fail(struct tp_err *e, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tp_failv(struct tp_err *e, int status, const char *fmt, va_list ap);
/* "out of memory", of no place in the input (offset TP_NONE).  Returns -1. */
int tp_fail_nomem(struct tp_err *e);
/*
 * A data error (TP_EXIT_DATA) at a byte offset of the input, in the
 * index-th unit ("frame", "chunk"), or TP_NONE and NULL for none: a
 * decoder's failure in one call.  Returns -1.
 */
int tp_fail_at(struct tp_err *e, uint64_t offset, uint64_t index,
    const char *unit, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/*
 * What a module has to say after its work (a decoder's report: counts,
 * oddities of the input), as lines the program side prints or not.
 * A warning is shown unless the program is quiet (-q), a note only when
 * it is verbose (-v); level is the highest the program shows, so that
 * lines nobody reads are not even formatted.
 */
enum tp_say_level { TP_SAY_WARN = 1, TP_SAY_NOTE = 2 };

struct tp_say {
	int level;		/* 0 nothing, TP_SAY_WARN, TP_SAY_NOTE */
	void (*line)(enum tp_say_level level, const char *msg);
};

/* One line, formatted, to s->line when s shows its level. */
void tp_say(const struct tp_say *s, enum tp_say_level level,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "s" after a count other than 1, for messages: "%llu record%s". */
static inline const char *
tp_s(unsigned long long n)
{
	return n == 1 ? "" : "s";
}
#endif
