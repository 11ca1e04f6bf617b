/*
 * Fuzz harness for the dial9 module.  Besides crashes, hangs and
 * sanitizer reports it checks the round trips:
 *
 * - a decode without error gives text that dial9_encode turns back into
 *   the input byte for byte;
 * - a decode that fails prints whole records only, and they encode into
 *   a prefix of the input that ends at or before the offset the error
 *   names; a lenient decode prints the same text and succeeds;
 * - text the encoder accepts gives dial9 that decodes without error into
 *   text that encodes into the same bytes again (the encoder's output is
 *   stable).
 *
 * With FUZZ_PREFIXES=N in the environment, every N-th prefix of each
 * input (every one of the first 300) is also decoded: exit 1 or 0, and
 * its text a prefix of the whole input's text (the truncation test of
 * make check, run here without a process per prefix).
 *
 * Input that starts with gzip's magic is decoded (through zlib) but not
 * held to the round trip, which is about the trace, not its compression.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "dial9.h"
#include "fuzz-capture.h"
#include "input.h"
#include "output.h"
#include "text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct result {
	int rc;
	struct tp_err err;
	unsigned char *out;
	size_t len;
};

static void
decode(const void *data, size_t size, int lenient, struct result *res)
{
	struct dial9_dec_opts opts = { lenient };
	struct dial9_dec_stats st;
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&res->err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &res->err) < 0)
		abort();
	cap_open(&out);
	res->rc = dial9_decode(&in, &out, &opts, &st, &res->err);
	if (res->rc < 0 && res->err.status == 0)
		abort();	/* a failure must say why */
	if (res->rc == 0 && res->err.status != 0)
		abort();	/* success leaves no error behind */
	if (lenient && res->rc == 0 && st.stopped_at != TP_NONE &&
	    st.stopped_at > size)
		abort();
	tp_in_close(&in);
	res->out = cap_take(&out, &res->len);
}

static void
encode(const void *text, size_t len, struct result *res)
{
	struct dial9_enc_opts opts = { 1 };
	struct dial9_enc_stats st;
	struct tr_reader r;
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&res->err);
	if (tp_in_open_mem(&in, text, len, "<fuzz>", &res->err) < 0)
		abort();
	tr_init(&r, &in);
	cap_open(&out);
	res->rc = dial9_encode(&r, &out, &opts, &st, &res->err);
	if (res->rc < 0 && res->err.status == 0)
		abort();
	tp_in_close(&in);
	res->out = cap_take(&out, &res->len);
}

/* The text encodes into want[0..wantlen) exactly, or (prefix) into a
 * prefix of it no longer than wantlen. */
static void
check_encodes(const struct result *d, const uint8_t *want, size_t wantlen,
    int prefix)
{
	struct result e;

	if (d->len > 0 && d->out[d->len - 1] != '\n')
		abort();	/* only whole records */
	encode(d->out, d->len, &e);
	if (e.rc < 0)
		abort();	/* the decoder's text does not encode */
	if (prefix ? e.len > wantlen : e.len != wantlen)
		abort();
	if (memcmp(e.out, want, e.len) != 0)
		abort();	/* the round trip is not byte-exact */
	free(e.out);
}

static void check_decode(const uint8_t *data, size_t size);

/* Every step-th prefix: its text is a prefix of the whole text. */
static void
check_prefixes(const uint8_t *data, size_t size, size_t step)
{
	struct result full, p;
	size_t k;

	decode(data, size, 0, &full);
	for (k = 0; k < size; k += k < 300 ? 1 : step) {
		decode(data, k, 0, &p);
		if (p.rc < 0 && p.err.status != TP_EXIT_DATA)
			abort();
		if (p.len > full.len || memcmp(p.out, full.out, p.len) != 0)
			abort();	/* not a prefix of the whole text */
		free(p.out);
		check_decode(data, k);
	}
	free(full.out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct result e, d2, e2;
	const char *step = getenv("FUZZ_PREFIXES");

	tp_verbosity = 0;
	check_decode(data, size);
	if (step != NULL && atoi(step) > 0)
		check_prefixes(data, size, (size_t)atoi(step));

	/* The input as text. */
	encode(data, size, &e);
	if (e.rc == 0) {
		decode(e.out, e.len, 0, &d2);
		if (e.len > 0 && d2.rc != 0)
			abort();	/* the encoder wrote what it cannot read */
		if (e.len > 0) {
			encode(d2.out, d2.len, &e2);
			if (e2.rc != 0 || e2.len != e.len ||
			    memcmp(e2.out, e.out, e.len) != 0)
				abort();	/* the encoder is not stable */
			free(e2.out);
		}
		free(d2.out);
	}
	free(e.out);
	return 0;
}

/* The input as dial9: the round trips of a clean and of a failed decode. */
static void
check_decode(const uint8_t *data, size_t size)
{
	struct result d, l;
	int gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;

	decode(data, size, 0, &d);
	if (!gz && d.rc == 0) {
		check_encodes(&d, data, size, 0);
	} else if (!gz && d.err.status == TP_EXIT_DATA) {
		if (d.err.offset == TP_NONE || d.err.offset > size)
			abort();
		check_encodes(&d, data, (size_t)d.err.offset, 1);
		decode(data, size, 1, &l);
		if (l.rc != 0 || l.len != d.len || memcmp(l.out, d.out, d.len) != 0)
			abort();	/* lenient: the same prefix, quietly */
		free(l.out);
	}
	free(d.out);
}
