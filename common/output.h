/*
 * Buffered output to stdout or a file.  One large buffer written with one
 * call when full.  A named output file is written as a temporary file in
 * the same directory and renamed only by tp_out_close(o, 1).  A closed
 * pipe ends the program quietly; any other write error is fatal (exit 2).
 */
#ifndef TP_OUTPUT_H
#define TP_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define TP_OUT_BUF (512 * 1024)
#define TP_OUT_SLACK (64 * 1024)	/* tp_out_reserve() guarantees up to this */

struct tp_out {
	const char *name;	/* for diagnostics */
	char *path;		/* final path, NULL for stdout */
	char *tmppath;		/* temporary file being written, or NULL */
	int fd;
	char *buf;
	size_t len;
	uint64_t written;	/* bytes handed to write(2) so far */
};

/*
 * path NULL or "-" means stdout.  binary: refuse to write to a terminal.
 * Returns 0, or dies with status 2.
 */
int tp_out_open(struct tp_out *o, const char *path, int binary);
/* Output that is counted and thrown away (fuzzers, benchmarks). */
void tp_out_open_discard(struct tp_out *o);
/* Flush; on success rename the temporary file into place. */
int tp_out_close(struct tp_out *o, int success);
void tp_out_flush(struct tp_out *o);
void tp_out_write(struct tp_out *o, const void *p, size_t n);

/* Total bytes produced so far (written and buffered). */
static inline uint64_t
tp_out_tell(const struct tp_out *o)
{
	return o->written + o->len;
}

/* Room for n bytes (n <= TP_OUT_SLACK) at the returned pointer. */
static inline char *
tp_out_reserve(struct tp_out *o, size_t n)
{
	if (o->len + n > TP_OUT_BUF + TP_OUT_SLACK)
		tp_out_flush(o);
	return o->buf + o->len;
}

/* Everything up to end was written into the reserved room. */
static inline void
tp_out_commit(struct tp_out *o, char *end)
{
	o->len = (size_t)(end - o->buf);
	if (o->len >= TP_OUT_BUF)
		tp_out_flush(o);
}

static inline void
tp_out_putc(struct tp_out *o, char c)
{
	char *p = tp_out_reserve(o, 1);
	*p++ = c;
	tp_out_commit(o, p);
}

static inline void
tp_out_puts(struct tp_out *o, const char *s)
{
	tp_out_write(o, s, strlen(s));
}

/* Is the output a regular file that can be written at any offset? */
int tp_out_seekable(const struct tp_out *o);
/* Write n bytes at absolute output offset off (flushes first). */
void tp_out_pwrite(struct tp_out *o, const void *p, size_t n, uint64_t off);

#endif
