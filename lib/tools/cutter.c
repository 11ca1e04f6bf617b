/*
 * tracesplit's cutter: the rule (-n, -l, -b) and the pieces' outputs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/cutter.h"

/*
 * Suffixes widen as split(1)'s do, so that names sort in piece order:
 * 4 digits up to 8999, then "9" and 5 digits up to 989999, ...
 */
static void
piece_name(char *buf, size_t n, const char *prefix, const char *ext,
    uint64_t i)
{
	uint64_t span = 9000, lim = 10000;
	char digits[64];
	size_t k = 0, width = 4, nines = 0, j;

	while (i >= span) {
		i -= span;
		nines++;
		width++;
		lim *= 10;
		span = lim / 10 * 9;
	}
	while (k < nines)
		digits[k++] = '9';
	for (j = width; j-- > 0; i /= 10)
		digits[k + j] = (char)('0' + i % 10);
	digits[k + width] = '\0';
	snprintf(buf, n, "%s-%s%s", prefix, digits, ext);
}

/* Last words of the finished piece, then close it (commit). */
static int
close_piece(struct tc_cutter *t, int commit, struct tp_err *err)
{
	int r = 0;

	if (!t->open)
		return 0;
	t->open = 0;
	if (t->c.out == t->o.out_only || t->c.out == t->o.out_seek) {
		/* The program closes it: it may copy it on. */
		tp_out_flush(t->c.out);
		if (tp_out_failed(t->c.out))
			return tp_fail(err, TP_EXIT_FAIL, "%s: %s", t->c.out->failed,
			    strerror(t->c.out->error));
		return 0;
	}
	if (tp_out_close(&t->piece, commit, err) < 0)
		r = -1;
	return r;
}

static int
open_piece(struct tc_cutter *t, struct tp_err *err)
{
	size_t need;

	if (t->o.only >= 0) {
		if (t->index == (uint64_t)t->o.only) {
			t->c.out = t->c.finish != NULL && t->o.out_seek != NULL ?
			    t->o.out_seek : t->o.out_only;
		} else {
			int fd = dup(t->nullfd);
			if (fd < 0 || tp_out_open_fd(&t->piece, fd, "/dev/null") < 0) {
				if (fd >= 0)
					close(fd);
				return tp_fail(err, TP_EXIT_FAIL, "/dev/null: %s",
				    strerror(errno ? errno : ENOMEM));
			}
			t->c.out = &t->piece;
		}
		t->open = 1;
		return 0;
	}
	/* Only pieces written as files have names (a range has no prefix). */
	need = strlen(t->o.prefix) + strlen(t->o.ext) + 64;
	if (need > t->namecap) {
		char *p = realloc(t->name, need);
		if (p == NULL)
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
		t->name = p;
		t->namecap = need;
	}
	piece_name(t->name, t->namecap, t->o.prefix, t->o.ext, t->index);
	if (tp_out_open(&t->piece, t->name, 1, err) < 0)
		return -1;
	t->c.out = &t->piece;
	t->open = 1;
	return 0;
}

/* TC_RANGE: the piece a restart point at offset belongs to. */
static uint64_t
range_piece(const struct tc_cutter *t, uint64_t offset)
{
	return offset < t->o.lo ? 0 : offset < t->o.hi ? 1 : 2;
}

/* Has the piece reached the rule's size at this restart point? */
int
tc_piece_full(const struct tc_cutter *t, uint64_t records, uint64_t offset)
{
	switch (t->o.rule) {
	case TC_RANGE:
		return range_piece(t, offset) != t->index;
	case TC_RECORDS:
		return records - t->first_records >= t->o.size;
	case TC_BYTES:
		return offset - t->first_offset >= t->o.size;
	case TC_CHUNKS:
		/* Piece i covers up to (i + 1) / N of the input's bytes. */
		if (t->index + 1 >= t->o.size)
			return 0;
		return offset >= (t->o.total / t->o.size) * (t->index + 1) +
		    (t->o.total % t->o.size) * (t->index + 1) / t->o.size;
	}
	return 0;
}

static int
restart(struct tp_cutter *c, uint64_t records, uint64_t offset,
    struct tp_err *err)
{
	struct tc_cutter *t = c->ctx;

	if (t->pieces > 0) {
		if (!tc_piece_full(t, records, offset))
			return 0;
		if (c->finish != NULL && c->finish(c, err) < 0)
			return -1;
		if (close_piece(t, 1, err) < 0)
			return -1;
		if (t->o.only >= 0 && t->index == (uint64_t)t->o.only) {
			/* The one piece wanted is whole: stop the module. */
			t->done = 1;
			return tp_fail(err, TP_EXIT_OK, "the piece is complete");
		}
		t->index++;
	}
	/* A range may begin past the first restart point, or be empty. */
	if (t->o.rule == TC_RANGE)
		t->index = range_piece(t, offset);
	if (t->o.only >= 0 && t->index > (uint64_t)t->o.only) {
		t->done = 1;
		return tp_fail(err, TP_EXIT_OK, "the piece is empty");
	}
	t->first_records = records;
	t->first_offset = offset;
	t->pieces++;
	if (open_piece(t, err) < 0)
		return -1;
	return 1;
}

int
tc_cutter_init(struct tc_cutter *t, const struct tc_opts *o, struct tp_err *err)
{
	memset(t, 0, sizeof *t);
	t->o = *o;
	t->c.restart = restart;
	t->c.ctx = t;
	t->nullfd = -1;
	if (o->size == 0)
		return tp_fail(err, TP_EXIT_FAIL, "a piece of size 0");
	if (o->only >= 0 &&
	    (t->nullfd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return tp_fail(err, TP_EXIT_FAIL, "/dev/null: %s",
		    strerror(errno));
	return 0;
}

int
tc_finish(struct tc_cutter *t, int ok, struct tp_err *err)
{
	struct tp_err scratch;
	int r = 0;

	/* A module that wrote nothing (an empty input) has no piece. */
	int only = t->open && (t->c.out == t->o.out_only ||
	    t->c.out == t->o.out_seek);

	if (ok && t->open && !only)
		r = close_piece(t, 1, err);
	else if (only)
		r = close_piece(t, 1, ok ? err : &scratch);
	else if (t->open) {
		tp_err_clear(&scratch);
		close_piece(t, 0, &scratch);
	}
	if (t->nullfd >= 0)
		close(t->nullfd);
	free(t->name);
	t->name = NULL;
	return r;
}
