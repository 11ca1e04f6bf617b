/*
 * Fuzz harness for the RapidBin module: what it promises beyond the
 * checks every format has (tests/fuzz-format.c).  The same bytes are
 * decoded as RapidBin (plain and --strict), encoded as trace text (plain,
 * and --dense with metadata) and read as RAPID STD.
 *
 * - a RapidBin decode without error gives text that rapidbin_encode turns
 *   back into the input byte for byte (when the header's event count is
 *   the trace's: otherwise the encoder counts again, as Wasmgrind does,
 *   and only the events must come back);
 * - a decode that fails prints whole records only, and their events
 *   encode back into the input up to the offset the error names;
 * - a strict decode that succeeds gives the same text as a plain one;
 * - text the encoder accepts gives RapidBin that decodes without error
 *   (strictly too, when the encoder counted the header itself) into
 *   text that encodes into the same bytes again;
 * - STD that std2txt reads, txt2std --all writes back, and that reads
 *   into the same text again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/rapidbin/rapidbin.h"
#include "formats/std/std.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HDR_EVENTS(h) ((h)->events & INT64_MAX)

static const struct tp_format *F, *STD;
static struct tp_out meta;	/* --meta's output, thrown away */

static void
decode(const void *data, size_t size, int strict,
    struct rapidbin_dec_stats *st, struct fuzz_run *d)
{
	struct rapidbin_dec_opts opts = { strict, 1, 0 };

	fuzz_run(F, 0, &opts, st, data, size, d);
}

static void
encode(const void *text, size_t len, int strict, int dense, int with_meta,
    struct rapidbin_enc_stats *st, struct fuzz_run *e)
{
	struct rapidbin_enc_opts opts = { strict, dense, dense, NULL, NULL };

	if (with_meta)
		opts.meta = &meta;
	fuzz_run(F, 1, &opts, st, text, len, e);
}

/*
 * Decoded text encodes (strictly, nothing skipped) into RapidBin whose
 * events are want[0..wantlen) (8-byte words after the header), and
 * whose header is the decoded one when its event count is right.
 */
static void
check_encodes_to(const struct fuzz_run *d, const struct rapidbin_dec_stats *dst,
    const unsigned char *header, const unsigned char *want, size_t wantlen)
{
	struct rapidbin_enc_stats st;
	struct fuzz_run e;

	if (d->len > 0 && d->out[d->len - 1] != '\n')
		abort();	/* only whole records */
	encode(d->out, d->len, 1, 0, 0, &st, &e);
	if (e.rc < 0)
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

/*
 * The valid prefix of a failed decode: every event before the fault
 * (which a plain decode finds at an event's start).
 */
static void
check_prefix(const struct fuzz_run *d, const struct rapidbin_dec_stats *st,
    const uint8_t *data, size_t size, int at_event)
{
	if (d->err.offset < RB_HEADER_SIZE || d->err.offset > size ||
	    (at_event && (d->err.offset - RB_HEADER_SIZE) % 8 != 0))
		abort();
	check_encodes_to(d, st, data, data + RB_HEADER_SIZE,
	    (size_t)d->err.offset - RB_HEADER_SIZE);
}

static void
check_decode(const uint8_t *data, size_t size)
{
	struct rapidbin_dec_stats st, sst;
	struct fuzz_run d, s;

	decode(data, size, 0, &st, &d);
	decode(data, size, 1, &sst, &s);
	if (s.rc == 0 && (d.rc != 0 || !fuzz_same(s.out, s.len, d.out, d.len)))
		abort();	/* strict accepts what plain does not */
	if (!fuzz_is_gzip(data, size) && st.have_header) {
		if (d.rc == 0)
			check_encodes_to(&d, &st, data, data + RB_HEADER_SIZE,
			    size - RB_HEADER_SIZE);
		else if (d.err.status == TP_EXIT_DATA)
			check_prefix(&d, &st, data, size, 1);
		if (s.rc < 0 && s.err.status == TP_EXIT_DATA)
			check_prefix(&s, &sst, data, size, 0);
	}
	free(d.out);
	free(s.out);
}

static void
check_encode(const uint8_t *data, size_t size, int dense, int with_meta)
{
	struct rapidbin_enc_stats st, st2;
	struct rapidbin_dec_stats dst;
	struct fuzz_run e, d, e2;

	encode(data, size, 0, dense, with_meta, &st, &e);
	if (e.rc == 0) {
		/* What the encoder writes, its decoder reads. */
		decode(e.out, e.len, 0, &dst, &d);
		if (d.rc < 0 || dst.events != st.events)
			abort();
		encode(d.out, d.len, 1, 0, 0, &st2, &e2);
		if (e2.rc < 0 || !fuzz_same(e2.out, e2.len, e.out, e.len))
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

/* STD to text and back: the text of the STD written is the same. */
static void
check_std(const uint8_t *data, size_t size)
{
	static const struct std_enc_opts all = { 1, 1, { 0, 0, 0, NULL, NULL } };
	struct std_enc_stats st;
	struct fuzz_run t, b, t2;

	fuzz_run(STD, 0, NULL, NULL, data, size, &t);
	if (t.rc == 0) {
		fuzz_run(STD, 1, &all, &st, t.out, t.len, &b);
		if (b.rc < 0 || st.rb.skipped.count != 0 || st.lossy != 0)
			abort();	/* std2txt's text is not STD again */
		fuzz_run(STD, 0, NULL, NULL, b.out, b.len, &t2);
		if (t2.rc < 0 || !fuzz_same(t2.out, t2.len, t.out, t.len))
			abort();	/* the STD written reads differently */
		free(t2.out);
		free(b.out);
	}
	free(t.out);
	/* Text to STD --all: crashes and errors without a reason only. */
	fuzz_run(STD, 1, &all, NULL, data, size, &b);
	free(b.out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (F == NULL) {
		F = fuzz_format("rapidbin");
		STD = fuzz_format("std");
		if (tp_out_open_discard(&meta) < 0)
			abort();
	}
	check_decode(data, size);
	check_encode(data, size, 0, 0);
	check_encode(data, size, 1, 1);
	check_std(data, size);
	return 0;
}
