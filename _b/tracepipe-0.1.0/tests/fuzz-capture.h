/*
 * Captured output for the fuzz harnesses: struct tp_out writes to a file
 * descriptor, so output goes to a memfd (or an unlinked temporary file)
 * and is read back, with no memory output needed in common/.  Included by
 * each harness (static functions: every harness is one program).
 */
#ifndef TP_FUZZ_CAPTURE_H
#define TP_FUZZ_CAPTURE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/mman.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "output.h"

/* ------------------------------------------------------- captured output */

static int cap_fd = -1;
static int cap_dirty;		/* the file holds bytes of an earlier capture */

/*
 * An output whose buffer is read back by cap_take(); what it flushes
 * before that (outputs of more than TP_OUT_BUF bytes) goes to the file.
 */
static void
cap_open(struct tp_out *o)
{
	if (cap_fd < 0) {
#ifdef MFD_CLOEXEC
		cap_fd = memfd_create("fuzz", MFD_CLOEXEC);
#endif
		if (cap_fd < 0) {
			FILE *fp = tmpfile();
			if (fp == NULL || (cap_fd = dup(fileno(fp))) < 0)
				abort();
			fclose(fp);
		}
	}
	if (cap_dirty && (ftruncate(cap_fd, 0) < 0 ||
	    lseek(cap_fd, 0, SEEK_SET) < 0))
		abort();
	cap_dirty = 0;
	tp_out_open_discard(o);
	o->fd = cap_fd;
}

/* Everything written to o, in a malloc'd buffer; closes o. */
static unsigned char *
cap_take(struct tp_out *o, size_t *len)
{
	size_t flushed = (size_t)o->written, n = flushed + o->len, got = 0;
	unsigned char *b;

	if ((b = malloc(n + 1)) == NULL)
		abort();
	while (got < flushed) {
		ssize_t r = pread(cap_fd, b + got, flushed - got, (off_t)got);
		if (r <= 0)
			abort();
		got += (size_t)r;
	}
	memcpy(b + flushed, o->buf, o->len);
	cap_dirty = flushed > 0;
	o->fd = -1;		/* kept open for the next capture */
	tp_out_close(o, 0, NULL);
	*len = n;
	return b;
}

#endif
