/*
 * Fuzz harness for the trac module.  The input is decoded as a trace file
 * (plain, with --repair-tid, with --allow-truncated, with both) and
 * encoded as trace text.  Besides crashes, hangs and sanitizer reports it
 * checks the round trips the design promises:
 *
 * - a decode without error gives text that trac_encode turns back into
 *   the input, byte for byte, skipping nothing (a cut trace accepted by
 *   --allow-truncated: the bytes before the cut);
 * - a decode that fails prints whole records only, and those encode back
 *   into the input up to the offset the error names;
 * - text the encoder accepts gives a trace that decodes without error
 *   (unless the text asks for thread ids the reader cannot see) and
 *   encodes back into the same trace.
 *
 * Output is captured in a memfd (or an unlinked temporary file): struct
 * tp_out writes to a file descriptor, so no memory output is needed in
 * common/.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/mman.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "fuzz-capture.h"
#include "input.h"
#include "output.h"
#include "trac.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ------------------------------------------------------------ the module */

struct dec_result {
	int rc;
	struct tp_err err;
	struct trac_dec_stats st;
	unsigned char *text;
	size_t len;
};

static void
decode(const uint8_t *data, size_t size, int truncated, int repair,
    struct dec_result *d)
{
	struct trac_dec_opts opts = { truncated, repair };
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&d->err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &d->err) < 0)
		abort();
	cap_open(&out);
	d->rc = trac_decode(&in, &out, &opts, &d->st, &d->err);
	if (d->rc < 0 && d->err.status == 0)
		abort();	/* a failure must say why */
	if (d->rc == 0 && d->err.status != 0)
		abort();	/* success must leave no error behind */
	tp_in_close(&in);
	d->text = cap_take(&out, &d->len);
}

struct enc_result {
	int rc;
	struct tp_err err;
	struct trac_enc_stats st;
	unsigned char *bin;
	size_t len;
};

static void
encode(const void *text, size_t len, const struct trac_arch *arch, int strict,
    struct enc_result *e)
{
	struct trac_enc_opts opts = { arch, strict };
	struct tr_reader r;
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&e->err);
	if (tp_in_open_mem(&in, text, len, "<fuzz>", &e->err) < 0)
		abort();
	tr_init(&r, &in);
	cap_open(&out);
	e->rc = trac_encode(&r, &out, &opts, &e->st, &e->err);
	if (e->rc < 0 && e->err.status == 0)
		abort();
	tp_in_close(&in);
	e->bin = cap_take(&out, &e->len);
}

/*
 * A user block longer than the decoder holds at once is written in
 * records as it is read (trac-user size=, trac-user-data), so a cut one
 * leaves the records of its first part before the error.
 */
static int
ends_in_long_user_block(const unsigned char *text, size_t len)
{
	const unsigned char *last = text, *p;

	if (len == 0)
		return 0;
	for (p = text; p < text + len - 1; p++)
		if (*p == '\n')
			last = p + 1;
	len = (size_t)(text + len - last);
	return (len > 15 && memcmp(last, "trac-user-data ", 15) == 0) ||
	    (len > 10 && memcmp(last, "trac-user ", 10) == 0 &&
	    memmem(last, len, " size=", 6) != NULL);
}

static int
is_gzip(const uint8_t *data, size_t size)
{
	return size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

/*
 * The text of a decode encodes back into want[0..wantlen): strictly (no
 * record skipped) and byte for byte.
 */
static void
check_encodes_to(const struct dec_result *d, const uint8_t *want,
    size_t wantlen)
{
	struct enc_result e;

	if (d->len > 0 && d->text[d->len - 1] != '\n')
		abort();	/* only whole records */
	encode(d->text, d->len, &trac_x64, 1, &e);
	if (e.rc < 0)
		abort();	/* the decoder's text is not encodable */
	if (e.st.skipped != 0)
		abort();
	if (e.len != wantlen || memcmp(e.bin, want, wantlen) != 0)
		abort();	/* round trip is not byte-exact */
	free(e.bin);
}

/* Decode with these options and check; returns the decoder's status. */
static int
check_decode(const uint8_t *data, size_t size, int truncated, int repair)
{
	struct dec_result d;

	decode(data, size, truncated, repair, &d);
	if (is_gzip(data, size)) {
		/* The round trip is about the trace, not its compression. */
		free(d.text);
		return d.rc;
	}
	if (d.rc == 0) {
		/*
		 * A first instruction block that is no full dump is given one
		 * by the encoder (x64dbg always writes one); the decoder
		 * warns.  No round trip is promised for such a file.
		 */
		if (!d.st.first_not_full) {
			size_t n = size;
			if (d.st.truncated_at != TP_NONE) {
				if (!truncated || d.st.truncated_at > size)
					abort();
				n = (size_t)d.st.truncated_at;
			}
			check_encodes_to(&d, data, n);
		}
	} else if (d.err.status == TP_EXIT_DATA && d.len > 0 &&
	    !d.st.first_not_full && !ends_in_long_user_block(d.text, d.len)) {
		/* The valid prefix: every block before the one at fault. */
		if (d.err.offset == TP_NONE || d.err.offset > size)
			abort();
		check_encodes_to(&d, data, (size_t)d.err.offset);
	}
	free(d.text);
	return d.rc;
}

/* Has the text a tidstored=noflag field anywhere (a cheap over-estimate)? */
static int
asks_noflag(const uint8_t *data, size_t size)
{
	static const char pat[] = "noflag";

	return size >= sizeof pat - 1 &&
	    memmem(data, size, pat, sizeof pat - 1) != NULL;
}

static void
check_encode(const uint8_t *data, size_t size, const struct trac_arch *arch,
    int strict)
{
	struct enc_result e;
	struct dec_result d;

	encode(data, size, arch, strict, &e);
	if (e.rc == 0 && !asks_noflag(data, size)) {
		/* What the encoder writes, its decoder reads. */
		decode(e.bin, e.len, 0, 0, &d);
		if (d.rc < 0)
			abort();
		if (d.rc == 0 && !d.st.first_not_full)
			check_encodes_to(&d, e.bin, e.len);
		free(d.text);
	}
	free(e.bin);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tp_verbosity = 0;
	/* --allow-truncated changes nothing where the decode succeeds. */
	if (check_decode(data, size, 0, 0) < 0)
		check_decode(data, size, 1, 0);
	if (check_decode(data, size, 0, 1) < 0)
		check_decode(data, size, 1, 1);
	check_encode(data, size, &trac_x64, 0);
	check_encode(data, size, &trac_x86, 1);
	return 0;
}
