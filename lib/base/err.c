/*
 * The error value: the first error is kept, with where it was.
 */
#include <stdio.h>

#include "base/err.h"

void
tp_err_clear(struct tp_err *e)
{
	e->status = 0;
	e->offset = TP_NONE;
	e->line = 0;
	e->col = 0;
	e->index = TP_NONE;
	e->unit = NULL;
	e->name = NULL;
	e->msg[0] = '\0';
}

int
tp_failv(struct tp_err *e, int status, const char *fmt, va_list ap)
{
	/* The first error is the one to report; later ones are consequences. */
	if (e->status != 0)
		return -1;
	e->status = status;
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	return -1;
}

int
tp_fail(struct tp_err *e, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tp_failv(e, status, fmt, ap);
	va_end(ap);
	return -1;
}

int
tp_fail_nomem(struct tp_err *e)
{
	e->offset = TP_NONE;
	return tp_fail(e, TP_EXIT_FAIL, "out of memory");
}

int
tp_fail_at(struct tp_err *e, uint64_t offset, uint64_t index,
    const char *unit, const char *fmt, ...)
{
	va_list ap;

	if (e->status != 0)
		return -1;
	va_start(ap, fmt);
	tp_failv(e, TP_EXIT_DATA, fmt, ap);
	va_end(ap);
	e->offset = offset;
	e->index = index;
	e->unit = unit;
	return -1;
}

void
tp_say(const struct tp_say *s, enum tp_say_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (s == NULL || (int)level > s->level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	s->line(level, msg);
}
