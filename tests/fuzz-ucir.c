/*
 * Fuzz harness for the ucir module.  The input is decoded as a Usercorn
 * file (plain, and with every frame's zlib level checked) and encoded as
 * trace text.  Besides crashes, hangs and sanitizer reports it checks the
 * round trips the design promises:
 *
 * - a replay file decoded without error gives text that ucir_encode turns
 *   into a file whose text is the same (the text round trip), skipping
 *   nothing; when this zlib reproduces every frame (checked), the file
 *   comes back byte for byte;
 * - a decode that fails prints the records of whole frames only: they
 *   encode, their file decodes to the same text, and with every frame
 *   reproduced it is the input up to the offset the error names;
 * - a trace-format file decodes or fails with a reason, and its text
 *   encodes (what the replay format cannot hold is skipped);
 * - text the encoder accepts gives a file that decodes without error
 *   into text that encodes back into the same file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fuzz-capture.h"
#include "input.h"
#include "output.h"
#include "text.h"
#include "ucir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Small limits, so that a fuzzed frame cannot cost much. */
#define FUZZ_MAX_FRAME (64u << 10)

struct dec_result {
	int rc;
	struct tp_err err;
	struct ucir_dec_stats st;
	unsigned char *text;
	size_t len;
};

static void
decode(const void *data, size_t size, int verify, struct dec_result *d)
{
	struct ucir_dec_opts opts = { FUZZ_MAX_FRAME, verify };
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&d->err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &d->err) < 0)
		abort();
	cap_open(&out);
	d->rc = ucir_decode(&in, &out, &opts, &d->st, &d->err);
	if (d->rc < 0 && d->err.status == 0)
		abort();	/* a failure must say why */
	if (d->rc == 0 && d->err.status != 0)
		abort();
	tp_in_close(&in);
	d->text = cap_take(&out, &d->len);
}

struct enc_result {
	int rc;
	struct tp_err err;
	struct ucir_enc_stats st;
	unsigned char *bin;
	size_t len;
};

static void
encode(const void *text, size_t len, struct enc_result *e)
{
	struct ucir_enc_opts opts = { NULL, NULL, 0, 64, FUZZ_MAX_FRAME, 0 };
	struct tr_reader r;
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&e->err);
	if (tp_in_open_mem(&in, text, len, "<fuzz>", &e->err) < 0)
		abort();
	cap_open(&out);
	tr_init(&r, &in);
	e->rc = ucir_encode(&r, &out, &opts, &e->st, &e->err);
	if (e->rc < 0 && e->err.status == 0)
		abort();
	tp_in_close(&in);
	e->bin = cap_take(&out, &e->len);
}

static int
same(const void *a, size_t an, const void *b, size_t bn)
{
	return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

/* Text from the decoder: it encodes, and its file decodes back to it. */
static void
text_round_trip(const struct dec_result *d, const uint8_t *data,
    uint64_t upto)
{
	struct enc_result e;
	struct dec_result d2;

	encode(d->text, d->len, &e);
	if (e.rc < 0)
		abort();	/* the decoder's text must encode */
	if (d->st.variant == UCIR_REPLAY) {
		if (e.st.skipped != 0 || e.st.unnested != 0)
			abort();
		decode(e.bin, e.len, 0, &d2);
		if (d2.rc < 0 || !same(d2.text, d2.len, d->text, d->len))
			abort();	/* the text round trip */
		if (d->st.level_guessed == 0 && !same(e.bin, e.len, data, upto))
			abort();	/* every frame reproduced: the bytes */
		free(d2.text);
	}
	free(e.bin);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dec_result d, dv;
	struct enc_result e, e2;

	decode(data, size, 0, &d);
	decode(data, size, 1, &dv);
	if (d.rc != dv.rc || !same(d.text, d.len, dv.text, dv.len))
		abort();	/* checking the levels changes nothing else */
	if (dv.st.header_done) {
		if (dv.rc == 0)
			text_round_trip(&dv, data, size);
		else if (dv.st.variant == UCIR_REPLAY && dv.err.offset != TP_NONE &&
		    dv.err.status == TP_EXIT_DATA)
			text_round_trip(&dv, data, dv.err.offset);
		else
			text_round_trip(&dv, data, 0);
	}
	free(d.text);
	free(dv.text);

	/* The input as text. */
	encode(data, size, &e);
	if (e.rc == 0) {
		decode(e.bin, e.len, 0, &d);
		if (d.rc < 0)
			abort();	/* encoder output always decodes */
		encode(d.text, d.len, &e2);
		if (e2.rc < 0 || !same(e2.bin, e2.len, e.bin, e.len))
			abort();	/* and re-encodes to itself */
		free(d.text);
		free(e2.bin);
	}
	free(e.bin);
	return 0;
}
