/*
 * What the fuzz harnesses share (static inline functions: each harness
 * is one program, and test-json uses the capture too).
 *
 * - A captured output: struct tp_out writes to a file descriptor, so what
 *   it flushes goes to one memfd (or unlinked temporary file) for the
 *   whole process and is read back; the output and its buffer are
 *   reused, so that a run allocates nothing large.
 * - fuzz_run(): a format module run through its row of the format table,
 *   one direction over a buffer, with the check every run has (a failure
 *   says why, a success leaves no error).
 * - fuzz_encodes_to(): decoded text encodes back into the input's bytes,
 *   the byte-exact round trip of formats that promise one.
 */
#ifndef TP_FUZZ_H
#define TP_FUZZ_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/mman.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/registry.h"
#include "io/input.h"
#include "io/output.h"
#include "text/text.h"
#include "diag.h"

/* ------------------------------------------------------- captured output */

static struct tp_out cap_out;
static int cap_busy;		/* between cap_begin() and cap_take() */
static off_t cap_base;		/* where this capture's flushed bytes start */

/* The capture output, empty.  One capture at a time. */
static inline struct tp_out *
cap_begin(void)
{
	if (cap_busy)
		abort();
	if (cap_out.buf == NULL) {
		if (tp_out_open_discard(&cap_out) < 0)
			abort();
#ifdef MFD_CLOEXEC
		cap_out.fd = memfd_create("fuzz", MFD_CLOEXEC);
#endif
		if (cap_out.fd < 0) {
			FILE *fp = tmpfile();
			if (fp == NULL || (cap_out.fd = dup(fileno(fp))) < 0)
				abort();
			fclose(fp);
		}
	}
	/* Captures follow each other in the file; it is emptied now and then. */
	if ((cap_base = lseek(cap_out.fd, 0, SEEK_CUR)) < 0)
		abort();
	if (cap_base > (64 << 20)) {
		if (ftruncate(cap_out.fd, 0) < 0 ||
		    lseek(cap_out.fd, 0, SEEK_SET) < 0)
			abort();
		cap_base = 0;
	}
	cap_out.len = 0;
	cap_out.written = 0;
	cap_out.error = 0;
	cap_out.failed = NULL;
	cap_busy = 1;
	return &cap_out;
}

/* Everything written since cap_begin(), in a malloc'd buffer (NUL after). */
static inline void *
cap_take(size_t *len)
{
	size_t flushed = (size_t)cap_out.written, n = flushed + cap_out.len;
	size_t got = 0;
	unsigned char *b;

	if ((b = malloc(n + 1)) == NULL)
		abort();
	while (got < flushed) {
		ssize_t r = pread(cap_out.fd, b + got, flushed - got,
		    cap_base + (off_t)got);
		if (r <= 0)
			abort();
		got += (size_t)r;
	}
	memcpy(b + flushed, cap_out.buf, cap_out.len);
	b[n] = '\0';
	cap_busy = 0;
	*len = n;
	return b;
}

/* --------------------------------------------------------- running a module */

struct fuzz_run {
	int rc;			/* the module's: 0 or -1 */
	struct tp_err err;
	unsigned char *out;	/* what it wrote, malloc'd */
	size_t len;
};

/* The row named name; aborts when there is none. */
static inline const struct tp_format *
fuzz_format(const char *name)
{
	const struct tp_format *f = name ? tp_format_find(name) : NULL;

	if (f == NULL)
		abort();
	tp_verbosity = 0;
	return f;
}

/*
 * Decode (encode 0) or encode (1) p[0..n) with f's module, its options
 * and stats (NULL: the defaults, a scratch).
 */
static inline void
fuzz_run(const struct tp_format *f, int encode, const void *opts, void *st,
    const void *p, size_t n, struct fuzz_run *res)
{
	struct tp_out *o;
	struct tr_reader r;
	struct tp_in in;

	tp_err_clear(&res->err);
	if (tp_in_open_mem(&in, p, n, "<fuzz>", &res->err) < 0)
		abort();
	o = cap_begin();
	if (encode) {
		tr_init(&r, &in);
		res->rc = f->encode(&r, o, opts, st, &res->err);
	} else {
		res->rc = f->decode(&in, o, opts, st, &res->err);
	}
	if (tp_in_close(&in) < 0 && res->rc == 0)
		res->rc = -1;
	if ((res->rc < 0) != (res->err.status != 0))
		abort();	/* a failure without a reason, or the reverse */
	res->out = cap_take(&res->len);
}

static inline int
fuzz_same(const void *a, size_t an, const void *b, size_t bn)
{
	return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

static inline int
fuzz_is_gzip(const void *p, size_t n)
{
	const unsigned char *b = p;

	return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

/*
 * Text a decoder wrote (whole records only) encodes with opts (strict
 * ones: nothing may be skipped) into want[0..wantlen) exactly, or with
 * prefix into a prefix of it.
 */
static inline void
fuzz_encodes_to(const struct tp_format *f, const void *opts,
    const struct fuzz_run *d, const void *want, size_t wantlen, int prefix)
{
	struct fuzz_run e;

	if (d->len > 0 && d->out[d->len - 1] != '\n')
		abort();	/* only whole records */
	fuzz_run(f, 1, opts, NULL, d->out, d->len, &e);
	if (e.rc < 0)
		abort();	/* the decoder's text does not encode */
	if (prefix ? e.len > wantlen : e.len != wantlen)
		abort();
	if (e.len > 0 && memcmp(e.out, want, e.len) != 0)
		abort();	/* the round trip is not byte-exact */
	free(e.out);
}

#endif
