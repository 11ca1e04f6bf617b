/*
 * Fuzz harness for the dial9 module: what it promises beyond the checks
 * every format has (tests/fuzz-format.c).
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
#include <stdlib.h>
#include <string.h>

#include "formats/dial9/dial9.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct tp_format *F;
static const struct dial9_enc_opts strict = { 1 };

static void
decode(const void *data, size_t size, int lenient, struct fuzz_run *d)
{
	struct dial9_dec_opts opts = { lenient };
	struct dial9_dec_stats st;

	fuzz_run(F, 0, &opts, &st, data, size, d);
	if (lenient && d->rc == 0 && st.stopped_at != TP_NONE &&
	    st.stopped_at > size)
		abort();
}

/* The input as dial9: the round trips of a clean and of a failed decode. */
static void
check_decode(const uint8_t *data, size_t size)
{
	struct fuzz_run d, l;

	decode(data, size, 0, &d);
	if (fuzz_is_gzip(data, size)) {
		/* The round trip is about the trace, not its compression. */
	} else if (d.rc == 0) {
		fuzz_encodes_to(F, &strict, &d, data, size, 0);
	} else if (d.err.status == TP_EXIT_DATA) {
		if (d.err.offset == TP_NONE || d.err.offset > size)
			abort();
		/*
		 * No record at all (a cut header) encodes to a trace of no
		 * event, a whole header: not a prefix of the cut one.
		 */
		if (d.len > 0)
			fuzz_encodes_to(F, &strict, &d, data,
			    (size_t)d.err.offset, 1);
		decode(data, size, 1, &l);
		if (l.rc != 0 || !fuzz_same(l.out, l.len, d.out, d.len))
			abort();	/* lenient: the same prefix, quietly */
		free(l.out);
	}
	free(d.out);
}

/* Every step-th prefix: its text is a prefix of the whole text. */
static void
check_prefixes(const uint8_t *data, size_t size, size_t step)
{
	struct fuzz_run full, p;
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
	struct fuzz_run e, d, e2;
	const char *step = getenv("FUZZ_PREFIXES");

	if (F == NULL)
		F = fuzz_format("dial9");
	check_decode(data, size);
	if (step != NULL && atoi(step) > 0)
		check_prefixes(data, size, (size_t)atoi(step));

	/* The input as text: what the encoder writes is stable. */
	fuzz_run(F, 1, &strict, NULL, data, size, &e);
	if (e.rc == 0 && e.len > 0) {
		decode(e.out, e.len, 0, &d);
		if (d.rc != 0)
			abort();	/* the encoder wrote what it cannot read */
		fuzz_run(F, 1, &strict, NULL, d.out, d.len, &e2);
		if (e2.rc != 0 || !fuzz_same(e2.out, e2.len, e.out, e.len))
			abort();	/* the encoder is not stable */
		free(e2.out);
		free(d.out);
	}
	free(e.out);
	return 0;
}
