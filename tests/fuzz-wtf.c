/*
 * Fuzz harness for the wtf module.  The input is decoded as a trace and
 * encoded as trace text.  Besides crashes, hangs and sanitizer reports it
 * checks the round trips the design promises:
 *
 * - a decode without error gives text that wtf_encode turns back into the
 *   input, byte for byte, skipping nothing;
 * - a decode that fails prints whole records only, and they encode: for a
 *   legacy trace into the input up to the offset the error names; for a
 *   chunked trace, the records before the last wtf-chunk (the chunks
 *   before the fault) into a prefix of the input that ends at or before
 *   that offset;
 * - text the encoder accepts gives a trace that decodes without error and
 *   encodes back into the same trace.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fuzz-capture.h"
#include "input.h"
#include "output.h"
#include "wtf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct result {
	int rc;
	struct tp_err err;
	unsigned char *out;
	size_t len;
	uint64_t skipped;
};

static void
decode(const uint8_t *data, size_t size, struct result *d)
{
	struct wtf_dec_stats st;
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&d->err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &d->err) < 0)
		abort();
	cap_open(&out);
	d->rc = wtf_decode(&in, &out, NULL, &st, &d->err);
	if (d->rc < 0 && d->err.status == 0)
		abort();	/* a failure must say why */
	if (d->rc == 0 && d->err.status != 0)
		abort();
	tp_in_close(&in);
	d->out = cap_take(&out, &d->len);
}

static void
encode(const void *text, size_t len, int strict, struct result *e)
{
	struct wtf_enc_opts opts = { strict };
	struct wtf_enc_stats st;
	struct tr_reader r;
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&e->err);
	if (tp_in_open_mem(&in, text, len, "<fuzz>", &e->err) < 0)
		abort();
	tr_init(&r, &in);
	cap_open(&out);
	e->rc = wtf_encode(&r, &out, &opts, &st, &e->err);
	if (e->rc < 0 && e->err.status == 0)
		abort();
	e->skipped = st.skipped;
	tp_in_close(&in);
	e->out = cap_take(&out, &e->len);
}

/* The text encodes, strictly, into want[0..wantlen) (or a prefix of it). */
static void
check_encodes_to(const unsigned char *text, size_t len, const uint8_t *want,
    size_t wantlen, int prefix_ok)
{
	struct result e;

	encode(text, len, 1, &e);
	if (e.rc < 0 || e.skipped != 0)
		abort();	/* the decoder's text is not encodable */
	if (prefix_ok ? e.len > wantlen : e.len != wantlen)
		abort();
	if (memcmp(e.out, want, e.len) != 0)
		abort();	/* round trip is not byte-exact */
	free(e.out);
}

/* The length of the text before its last line starting with pat (all). */
static size_t
before_last(const unsigned char *t, size_t len, const char *pat)
{
	size_t n = strlen(pat), cut = len;

	for (size_t i = 0; i + n <= len; i++)
		if ((i == 0 || t[i - 1] == '\n') && memcmp(t + i, pat, n) == 0)
			cut = i;
	return cut;
}

static void
check_decode(const uint8_t *data, size_t size)
{
	struct result d;

	decode(data, size, &d);
	if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		free(d.out);	/* the round trip is about the trace */
		return;
	}
	if (d.len > 0 && d.out[d.len - 1] != '\n')
		abort();	/* only whole records */
	if (d.rc == 0) {
		check_encodes_to(d.out, d.len, data, size, 0);
	} else if (d.err.status == TP_EXIT_DATA && d.len > 0) {
		if (d.err.offset == TP_NONE || d.err.offset > size)
			abort();
		if (data[0] == 0xde)	/* legacy: every record before */
			check_encodes_to(d.out, d.len, data,
			    (size_t)d.err.offset, 0);
		else
			check_encodes_to(d.out, before_last(d.out, d.len,
			    "wtf-chunk "), data, (size_t)d.err.offset, 1);
	}
	free(d.out);
}

static void
check_encode(const uint8_t *data, size_t size, int strict)
{
	struct result e, d;

	encode(data, size, strict, &e);
	if (e.rc == 0) {
		/* What the encoder writes, its decoder reads. */
		decode(e.out, e.len, &d);
		if (d.rc < 0)
			abort();
		check_encodes_to(d.out, d.len, e.out, e.len, 0);
		free(d.out);
	}
	free(e.out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tp_verbosity = 0;
	check_decode(data, size);
	check_encode(data, size, 0);
	check_encode(data, size, 1);
	return 0;
}
