/*
 * Buffered input from stdin, a file or memory; gzip is decoded
 * transparently.  The byte offset (in the decompressed stream) of the
 * next unread byte is always known.
 */
#ifndef TP_INPUT_H
#define TP_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "base/err.h"

#define TP_IN_BLOCK (256 * 1024)
/*
 * The buffer's first size; it grows for a longer line or fill.  Fuzz
 * builds (-DTP_FUZZ, scripts/fuzz) start small, so that a run costs what
 * its input does and every boundary is met with small inputs.
 */
#ifdef TP_FUZZ
#define TP_IN_BUF 4096
#else
#define TP_IN_BUF (2 * TP_IN_BLOCK)
#endif
/*
 * The longest text line accepted, without its end of line: the same limit
 * from a file, a pipe or gzip, enforced before the line buffer grows past
 * it (the buffer never holds more than TP_LINE_MAX + TP_IN_BLOCK bytes).
 */
#define TP_LINE_MAX (64 * 1024 * 1024)

struct tp_in {
	const char *name;	/* for diagnostics: the path or "<stdin>" */
	struct tp_err *err;	/* where errors go */
	int fd;			/* -1 for memory input */
	int gz;			/* 1 while decoding gzip */
	z_stream zs;
	unsigned char *raw;	/* compressed bytes (gzip only) */
	size_t rawlen;
	const unsigned char *mem;	/* memory input */
	size_t memlen;
	unsigned char *buf;
	size_t cap, pos, len;	/* unread bytes are buf[pos..len) */
	uint64_t base;		/* stream offset of buf[0] */
	int eof;		/* no more bytes will arrive */
	int failed;
	/*
	 * Set by the caller before the first read, for a format without a
	 * magic number whose own bytes may begin like gzip: when what
	 * follows a gzip header does not inflate, the input is read as it is.
	 */
	int gz_fallback;
	int sniffed;		/* the first bytes were checked for gzip */
	size_t gz_first;	/* bytes of the first compressed read, while
				   the input may still turn out not gzip */
	struct tp_gz_thread *gzt;	/* inflating beside the reader, or NULL */
};

/*
 * A pipe at fd grows to TP_PIPE_SIZE (or /proc/sys/fs/pipe-max-size when
 * that is less); anything else, or a refusal (the user's pipe quota),
 * leaves it as it is.  Linux's 64 KiB pipes make the reader and writer
 * of a pipeline take turns at every 64 KiB: with 1 MiB, `trac2txt | cat`
 * went from 0.3x to 1.2-1.4x of `cat | cat` (doc/performance.md).
 */
#define TP_PIPE_SIZE (1024 * 1024)
void tp_pipe_grow(int fd);

/* path NULL or "-" means stdin.  Returns 0, or -1 with err filled. */
int tp_in_open(struct tp_in *in, const char *path, struct tp_err *err);
/* Input from a memory buffer (tests and fuzzers); gzip is decoded too. */
/* An open descriptor, read from where it is; tp_in_close closes it. */
int tp_in_open_fd(struct tp_in *in, int fd, const char *name,
    struct tp_err *err);
int tp_in_open_mem(struct tp_in *in, const void *p, size_t n, const char *name,
    struct tp_err *err);
/* Checks that a gzip stream ended properly.  0 or -1. */
int tp_in_close(struct tp_in *in);

static inline uint64_t
tp_in_offset(const struct tp_in *in)
{
	return in->base + in->pos;
}

/*
 * Make at least n bytes available at in->buf + in->pos (n <= TP_IN_BLOCK).
 * Returns the number available (less than n only at end of input), or -1.
 */
long tp_in_fill(struct tp_in *in, size_t n);

/*
 * Read exactly n bytes.  Returns 1 on success, 0 at a clean end of input
 * (no byte available), -1 on error or truncation: "truncated: needed N
 * bytes at offset X, only M left" with err->offset set.
 */
int tp_in_exact(struct tp_in *in, void *dst, size_t n, const char *what);

/* Read up to n bytes; returns the count (0 at end) or -1. */
long tp_in_read(struct tp_in *in, void *dst, size_t n);

/*
 * Next line, without its '\n' (and without a '\r' before it).  Returns 1
 * with *line and *len set, 0 at end of input, -1 on error.  A last line
 * without '\n' is returned too.  The pointer is valid until the next call.
 */
int tp_in_line(struct tp_in *in, char **line, size_t *len);

#endif
