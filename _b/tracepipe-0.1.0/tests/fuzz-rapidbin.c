/*
 * Fuzz harness for the RapidBin module: the same bytes are decoded as
 * RapidBin, encoded as trace text and read as RAPID STD.  Besides
 * crashes, hangs and sanitizer reports it checks the round trips:
 *
 * - a RapidBin decode without error gives text that rapidbin_encode turns back
 *   into the input byte for byte (when the header's event count is the
 *   trace's: otherwise the encoder counts again, as Wasmgrind does, and
 *   only the events must come back);
 * - a decode that fails prints whole records only, and their events
 *   encode back into the input up to the offset the error names;
 * - a strict decode that succeeds gives the same text as a plain one;
 * - text the encoder accepts gives RapidBin that decodes without error
 *   (strictly too, when the encoder counted the header itself) into
 *   text that encodes into the same bytes again;
 * - STD that std2txt reads, txt2std --all writes back, and that reads
 *   into the same text again.
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
#include "rapidbin.h"
#include "rapidstd.h"
#include "text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ------------------------------------------------------------ the module */

#define HDR_EVENTS(h) ((h)->events & INT64_MAX)

struct result {
	int rc;
	struct tp_err err;
	unsigned char *out;
	size_t len;
};

static void
decode(const void *data, size_t size, int strict, struct rapidbin_dec_stats *st,
    struct result *res)
{
	struct rapidbin_dec_opts opts = { strict, 1 };
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&res->err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &res->err) < 0)
		abort();
	cap_open(&out);
	res->rc = rapidbin_decode(&in, &out, &opts, st, &res->err);
	if (res->rc < 0 && res->err.status == 0)
		abort();	/* a failure must say why */
	if (res->rc == 0 && res->err.status != 0)
		abort();
	tp_in_close(&in);
	res->out = cap_take(&out, &res->len);
}

static void
encode(const void *text, size_t len, int strict, int dense, int meta,
    struct rapidbin_enc_stats *st, struct result *res)
{
	struct rapidbin_enc_opts opts = { strict, dense, dense, NULL };
	struct tp_out out, mout;
	struct tr_reader r;
	struct tp_in in;

	tp_err_clear(&res->err);
	if (tp_in_open_mem(&in, text, len, "<fuzz>", &res->err) < 0)
		abort();
	tr_init(&r, &in);
	cap_open(&out);
	tp_out_open_discard(&mout);
	if (meta)
		opts.meta = &mout;
	res->rc = rapidbin_encode(&r, &out, &opts, st, &res->err);
	if (res->rc < 0 && res->err.status == 0)
		abort();
	tp_in_close(&in);
	res->out = cap_take(&out, &res->len);
	tp_out_close(&mout, 0, NULL);
}

static int
is_gzip(const void *data, size_t size)
{
	const unsigned char *p = data;

	return size >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/*
 * Decoded text encodes (strictly, nothing skipped) into RapidBin whose
 * events are want[0..wantlen) (8-byte words after the header), and
 * whose header is the decoded one when its event count is right.
 */
static void
check_encodes_to(const struct result *d, const struct rapidbin_dec_stats *dst,
    const unsigned char *header, const unsigned char *want, size_t wantlen)
{
	struct rapidbin_enc_stats st;
	struct result e;

	if (d->len > 0 && d->out[d->len - 1] != '\n')
		abort();	/* only whole records */
	encode(d->out, d->len, 1, 0, 0, &st, &e);
	if (e.rc < 0 || st.skipped != 0)
		abort();	/* the decoder's text is not encodable */
	if (e.len != RB_HEADER_SIZE + wantlen || st.events != wantlen / 8 ||
	    memcmp(e.out + RB_HEADER_SIZE, want, wantlen) != 0)
		abort();	/* the events do not come back */
	if (HDR_EVENTS(&dst->header) == dst->events &&
	    memcmp(e.out, header, RB_HEADER_SIZE) != 0)
		abort();	/* a right header is not kept */
	if (dst->events != wantlen / 8)
		abort();	/* the decoder miscounts its events */
	free(e.out);
}

static void
check_decode(const uint8_t *data, size_t size)
{
	struct rapidbin_dec_stats st, sst;
	struct result d, s;

	decode(data, size, 0, &st, &d);
	decode(data, size, 1, &sst, &s);
	if (s.rc == 0 && (d.rc != 0 || s.len != d.len ||
	    memcmp(s.out, d.out, d.len) != 0))
		abort();	/* strict accepts what plain does not */
	if (!is_gzip(data, size) && st.have_header) {
		const unsigned char *ev = data + RB_HEADER_SIZE;
		if (d.rc == 0) {
			check_encodes_to(&d, &st, data, ev,
			    size - RB_HEADER_SIZE);
		} else if (d.err.status == TP_EXIT_DATA) {
			/* The valid prefix: every event before the fault. */
			if (d.err.offset < RB_HEADER_SIZE ||
			    d.err.offset > size ||
			    (d.err.offset - RB_HEADER_SIZE) % 8 != 0)
				abort();
			check_encodes_to(&d, &st, data, ev,
			    (size_t)d.err.offset - RB_HEADER_SIZE);
		}
		if (s.rc < 0 && s.err.status == TP_EXIT_DATA) {
			if (s.err.offset < RB_HEADER_SIZE ||
			    s.err.offset > size)
				abort();
			check_encodes_to(&s, &sst, data, ev,
			    (size_t)s.err.offset - RB_HEADER_SIZE);
		}
	}
	free(d.out);
	free(s.out);
}

static void
check_encode(const uint8_t *data, size_t size, int dense, int meta)
{
	struct rapidbin_enc_stats st, st2;
	struct rapidbin_dec_stats dst;
	struct result e, d, e2;

	encode(data, size, 0, dense, meta, &st, &e);
	if (e.rc == 0) {
		/* What the encoder writes, its decoder reads. */
		decode(e.out, e.len, 0, &dst, &d);
		if (d.rc < 0 || dst.events != st.events)
			abort();
		encode(d.out, d.len, 1, 0, 0, &st2, &e2);
		if (e2.rc < 0 || e2.len != e.len ||
		    memcmp(e2.out, e.out, e.len) != 0)
			abort();	/* encode(decode(x)) is not x */
		free(e2.out);
		free(d.out);
		if (st.header_record != 1) {
			/* A header the encoder counted meets Wasmgrind's rules. */
			decode(e.out, e.len, 1, &dst, &d);
			if (d.rc < 0)
				abort();
			free(d.out);
		}
	}
	free(e.out);
}

static void
std_both(const uint8_t *data, size_t size)
{
	struct std_enc_opts opts = { 1, 1 };
	struct std_enc_stats st;
	struct std_dec_stats dst;
	struct tr_reader r;
	struct result t, t2;
	struct tp_out out;
	struct tp_in in;
	unsigned char *std;
	size_t stdlen;
	int rc;

	/* STD to text and back; the text of the STD written is the same. */
	tp_err_clear(&t.err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &t.err) < 0)
		abort();
	cap_open(&out);
	t.rc = std_decode(&in, &out, NULL, &dst, &t.err);
	tp_in_close(&in);
	t.out = cap_take(&out, &t.len);
	if (t.rc < 0 && t.err.status == 0)
		abort();
	if (t.rc == 0) {
		tp_err_clear(&t2.err);
		if (tp_in_open_mem(&in, t.out, t.len, "<fuzz>", &t2.err) < 0)
			abort();
		tr_init(&r, &in);
		cap_open(&out);
		rc = std_encode(&r, &out, &opts, &st, &t2.err);
		tp_in_close(&in);
		std = cap_take(&out, &stdlen);
		if (rc < 0 || st.skipped != 0 || st.lossy != 0)
			abort();	/* std2txt's text is not STD again */
		if (tp_in_open_mem(&in, std, stdlen, "<fuzz>", &t2.err) < 0)
			abort();
		cap_open(&out);
		t2.rc = std_decode(&in, &out, NULL, &dst, &t2.err);
		tp_in_close(&in);
		t2.out = cap_take(&out, &t2.len);
		if (t2.rc < 0 || t2.len != t.len ||
		    memcmp(t2.out, t.out, t.len) != 0)
			abort();	/* the STD written reads differently */
		free(t2.out);
		free(std);
	}
	free(t.out);

	/* Text to STD: crashes and errors without a reason only. */
	tp_err_clear(&t.err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &t.err) < 0)
		abort();
	tr_init(&r, &in);
	tp_out_open_discard(&out);
	if (std_encode(&r, &out, &opts, &st, &t.err) < 0 && t.err.status == 0)
		abort();
	tp_in_close(&in);
	tp_out_close(&out, 0, NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tp_verbosity = 0;
	check_decode(data, size);
	check_encode(data, size, 0, 0);
	check_encode(data, size, 1, 1);
	std_both(data, size);
	return 0;
}
