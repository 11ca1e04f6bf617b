/*
 * Fuzz harness for the ucir module: what it promises beyond the checks
 * every format has (tests/fuzz-format.c).  The input is decoded as a
 * Usercorn file (plain, and with every frame's zlib level checked) and
 * encoded as trace text.
 *
 * - a replay file decoded without error gives text that ucir_encode turns
 *   into a file whose text is the same (the text round trip), skipping
 *   nothing; when this zlib reproduces every frame (checked), the file
 *   comes back byte for byte;
 * - a decode that fails prints the records of whole frames only: they
 *   encode, their file decodes to the same text, and with every frame
 *   reproduced it is the input up to the offset the error names (unless
 *   they are a header alone of an unknown uc_arch that would read as a
 *   usercorn trace cut in its Snappy stream identifier, which the
 *   encoder refuses);
 * - a trace-format file decodes or fails with a reason, and its text
 *   encodes (what the replay format cannot hold is skipped);
 * - text the encoder accepts gives a file that decodes without error
 *   into text that encodes back into the same file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/ucir/ucir.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Small limits, so that a fuzzed frame cannot cost much. */
#define FUZZ_MAX_FRAME (64u << 10)

static const struct tp_format *F;
static const struct ucir_enc_opts enc_opts = { NULL, NULL, 0, 64,
    FUZZ_MAX_FRAME, 0, 0 };

static void
decode(const void *data, size_t size, int verify, struct ucir_dec_stats *st,
    struct fuzz_run *d)
{
	struct ucir_dec_opts opts = { FUZZ_MAX_FRAME, verify };

	fuzz_run(F, 0, &opts, st, data, size, d);
}

/* Text from the decoder: it encodes, and its file decodes back to it. */
static void
text_round_trip(const struct fuzz_run *d, const struct ucir_dec_stats *dst,
    const uint8_t *data, uint64_t upto)
{
	struct ucir_enc_stats est;
	struct fuzz_run e, d2;

	fuzz_run(F, 1, &enc_opts, &est, d->out, d->len, &e);
	if (e.rc < 0 && !(est.ambiguous && d->rc < 0))
		abort();	/* the decoder's text must encode */
	/* ... but for a replay header alone that would read as a cut
	   trace (the header of a failed decode: see txt2ucir(1)). */
	if (e.rc == 0 && dst->variant == UCIR_REPLAY) {
		if (est.skipped.count != 0 || est.unnested != 0)
			abort();
		decode(e.out, e.len, 0, NULL, &d2);
		if (d2.rc < 0 || !fuzz_same(d2.out, d2.len, d->out, d->len))
			abort();	/* the text round trip */
		if (dst->level_guessed == 0 &&
		    !fuzz_same(e.out, e.len, data, upto))
			abort();	/* every frame reproduced: the bytes */
		free(d2.out);
	}
	free(e.out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ucir_dec_stats st;
	struct fuzz_run d, dv, e, e2;

	if (F == NULL)
		F = fuzz_format("ucir");
	decode(data, size, 0, NULL, &d);
	decode(data, size, 1, &st, &dv);
	if (d.rc != dv.rc || !fuzz_same(d.out, d.len, dv.out, dv.len))
		abort();	/* checking the levels changes nothing else */
	if (st.header_done) {
		if (dv.rc == 0)
			text_round_trip(&dv, &st, data, size);
		else if (st.variant == UCIR_REPLAY && dv.err.offset != TP_NONE &&
		    dv.err.status == TP_EXIT_DATA)
			text_round_trip(&dv, &st, data, dv.err.offset);
		else
			text_round_trip(&dv, &st, data, 0);
	}
	free(d.out);
	free(dv.out);

	/* The input as text: what the encoder writes is stable. */
	fuzz_run(F, 1, &enc_opts, NULL, data, size, &e);
	if (e.rc == 0) {
		decode(e.out, e.len, 0, NULL, &d);
		if (d.rc < 0)
			abort();	/* encoder output always decodes */
		fuzz_run(F, 1, &enc_opts, NULL, d.out, d.len, &e2);
		if (e2.rc < 0 || !fuzz_same(e2.out, e2.len, e.out, e.len))
			abort();	/* and re-encodes to itself */
		free(d.out);
		free(e2.out);
	}
	free(e.out);
	return 0;
}
