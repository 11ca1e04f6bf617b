/*
 * A spool: records of any length written once, then read back from the
 * start as many times as needed, for encoders that need totals (counts,
 * distinct ids) before they can write their first byte.  The records are
 * kept in memory up to a cap, then in an unlinked temporary file in
 * $TMPDIR (default /tmp), so memory does not grow with their number.
 *
 * Each record is stored behind its length (LEB128).  The spool never
 * prints and never exits: errors go into the error value given to
 * tp_spool_init (status 2, "cannot write spool file in DIR: ...").
 */
#ifndef TP_SPOOL_H
#define TP_SPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/err.h"

#define TP_SPOOL_CAP (1u << 20)	/* default memory part */
#define TP_SPOOL_FIRST (4u << 10)	/* buf's size at first: it grows */

struct tp_spool {
	unsigned char *buf;
	size_t cap;		/* size of buf */
	size_t mem;		/* the memory part: buf grows up to it */
	size_t len, pos;	/* bytes held in buf; next record to read */
	int fd;			/* temporary file, -1 while all in memory */
	int reading;		/* rewound once: records are only read now */
	uint64_t file_bytes;	/* bytes in the file */
	uint64_t file_read;	/* bytes of the file read since the rewind */
	uint64_t records;	/* records put */
	struct tp_err *err;
};

/* $TMPDIR, or /tmp when unset or empty. */
const char *tp_tmpdir(void);
/*
 * A new temporary file in tp_tmpdir() that has no name (O_TMPFILE, or
 * PREFIX.XXXXXX unlinked at once, the fatal signals held back in
 * between): nothing is left behind however the process ends.  Its
 * descriptor, or -1 with errno set.
 */
int tp_tmpfile(const char *prefix);

/* A spool keeping up to mem bytes in memory (0: TP_SPOOL_CAP).  0 or -1. */
int tp_spool_init(struct tp_spool *s, size_t mem, struct tp_err *err);
void tp_spool_free(struct tp_spool *s);

/* Append a record of n bytes.  0, or -1 (also after a rewind). */
int tp_spool_put_slow(struct tp_spool *s, const void *p, size_t n);

static inline int
tp_spool_put(struct tp_spool *s, const void *p, size_t n)
{
	/* The common case: a short record with room for it in memory. */
	if (n < 0x80 && s->len + 1 + n <= s->cap && !s->reading) {
		s->buf[s->len] = (unsigned char)n;
		memcpy(s->buf + s->len + 1, p, n);
		s->len += 1 + n;
		s->records++;
		return 0;
	}
	return tp_spool_put_slow(s, p, n);
}

/* Go back to the first record; may be called any number of times. */
int tp_spool_rewind(struct tp_spool *s);

/*
 * The next record since the rewind: 1 with *p and *n set (valid until the
 * next call), 0 after the last one, -1 on error.
 */
int tp_spool_get(struct tp_spool *s, const unsigned char **p, size_t *n);

#endif
