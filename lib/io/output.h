/*
 * Buffered output to stdout, a file or a device.  One large buffer written
 * with one call when full.
 *
 * Where a path goes (the same for -o, --meta and any output option):
 * a regular file or a new path is written as a temporary file in the same
 * directory, renamed over the path only by tp_out_close(o, 1, err); a
 * symlink is followed and its target written the same way; a device or a
 * FIFO is written directly; a directory is refused by tp_out_open.  The
 * replacement keeps the replaced file's mode, owner and group, or is
 * refused when the owner cannot be kept; so is a file with several hard
 * links, which the rename would break (sort -o keeps them by writing in
 * place, which loses the file on bad input).
 *
 * The module never prints, exits or raises.  A write error is kept in the
 * object (sticky: later writes are dropped) and returned by tp_out_close
 * with the error filled in.  Temporary files belong to their object and go
 * with it: tp_out_close without commit removes them, and so does
 * tp_out_unlink_temps, which the program's handler for every signal of
 * tp_out_fatal_signals calls (tp_setprog installs it) before the program
 * dies by the same signal (a closed pipe, | head, ends a program quietly).
 */
#ifndef TP_OUTPUT_H
#define TP_OUTPUT_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/err.h"

/* Written when this full; fuzz builds (-DTP_FUZZ) write small pieces. */
#ifdef TP_FUZZ
#define TP_OUT_BUF 4096
#else
#define TP_OUT_BUF (128 * 1024)
#endif
#define TP_OUT_SLACK (64 * 1024)	/* tp_out_reserve() guarantees up to this */

struct tp_out {
	const char *name;	/* for diagnostics */
	char *path;		/* where the temporary file goes, or NULL */
	char *tmppath;		/* temporary file being written, or NULL */
	int fd;
	mode_t mode;		/* permissions the renamed file gets */
	char *buf;
	size_t len;
	uint64_t written;	/* bytes handed to write(2) so far */
	int error;		/* errno of the first failure, 0 while none */
	const char *failed;	/* what failed: "write error", ... */
	struct tp_out *next;	/* outputs with a temporary file */
	int lines;		/* text: a line over TP_LINE_MAX fails it */
	uint64_t line_len;	/* lines: the unfinished line's bytes out */
};

/* What a text output fails with when a line outgrows TP_LINE_MAX. */
#define TP_OUT_TOO_LONG "a record's text is longer than 64 MiB, the " \
	"line limit of trace text, which no encoder reads"

/*
 * path NULL or "-" means stdout.  binary: refuse to write to a terminal.
 * Returns 0, or -1 with err filled (status 2, err->name the output's)
 * and nothing left behind.
 */
int tp_out_open(struct tp_out *o, const char *path, int binary,
    struct tp_err *err);
/* An open descriptor (above 1), closed by tp_out_close.  0 or -1. */
int tp_out_open_fd(struct tp_out *o, int fd, const char *name);
/* Output that is counted and thrown away (fuzzers, benchmarks).  0 or -1. */
int tp_out_open_discard(struct tp_out *o);
/*
 * Flush and release.  commit: the output is wanted (a temporary file is
 * renamed into place); otherwise a temporary file is removed and what is
 * buffered dropped.  Returns 0, or -1 with err filled when a write, the
 * close or the rename failed (then no temporary file is left either).
 */
int tp_out_close(struct tp_out *o, int commit, struct tp_err *err);
void tp_out_flush(struct tp_out *o);
void tp_out_write(struct tp_out *o, const void *p, size_t n);

/* Has a write failed (the reader went away, the disk is full)? */
static inline int
tp_out_failed(const struct tp_out *o)
{
	return o->error != 0;
}

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

/* Remove every live temporary file: async-signal-safe, for a handler. */
void tp_out_unlink_temps(void);
/*
 * The signals on which the program side calls tp_out_unlink_temps before
 * it dies (those whose default ends the process, as GNU sort handles
 * them), ending with 0.  The list of temporary files changes with them
 * held back.
 */
extern const int tp_out_fatal_signals[];

#endif
