/*
 * The fuzz harness every format of the table has: for the row named by
 * -DFUZZ_FORMAT=name (libFuzzer builds: scripts/fuzz format-NAME) or by
 * $FUZZ_FORMAT (make check: tests/fuzz-replay.sh), it drives that row's
 * decoder and encoder through the common entry shape, with default
 * options.  Besides crashes, hangs and sanitizer reports it checks what
 * every format promises:
 *
 * - a failed decode or encode says why (err.status set), a successful
 *   one leaves no error (fuzz_run);
 * - the probe does not crash on any prefix the driver may give it;
 * - text a decoder wrote is encoded without error, and what that gives
 *   decodes into the same text again (X2txt | txt2X | X2txt = X2txt),
 *   or, where the encoder completes what the text lacks (a full
 *   register dump, a header's counts), into text that is then a fixed
 *   point;
 * - the input read as trace text encodes or fails with a reason.
 *
 * A format with stronger promises (byte-exact round trips, options) has
 * its own harness besides (tests/fuzz-FMT.c), which checks only those.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define STR_(x) #x
#define STR(x) STR_(x)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* decode(encode(t)), which must succeed both ways. */
static void
again(const struct tp_format *f, const unsigned char *t, size_t n,
    struct fuzz_run *t2)
{
	struct fuzz_run b;

	fuzz_run(f, 1, NULL, NULL, t, n, &b);
	if (b.rc < 0)
		abort();	/* decoded text must encode */
	fuzz_run(f, 0, NULL, NULL, b.out, b.len, t2);
	if (t2->rc < 0)
		abort();	/* what the encoder wrote must decode */
	free(b.out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct tp_format *f;
	struct fuzz_run t, t2, t3, junk;
	char detail[128];

	if (f == NULL) {
#ifdef FUZZ_FORMAT
		f = fuzz_format(STR(FUZZ_FORMAT));
#else
		f = fuzz_format(getenv("FUZZ_FORMAT"));
#endif
	}
	f->probe(data, size < TP_PROBE_LEN ? size : TP_PROBE_LEN, detail,
	    sizeof detail);

	fuzz_run(f, 0, NULL, NULL, data, size, &t);
	if (t.rc == 0) {
		again(f, t.out, t.len, &t2);
		if (!fuzz_same(t.out, t.len, t2.out, t2.len)) {
			again(f, t2.out, t2.len, &t3);
			if (!fuzz_same(t2.out, t2.len, t3.out, t3.len))
				abort();	/* no X2txt | txt2X fixed point */
			free(t3.out);
		}
		free(t2.out);
	}
	free(t.out);
	fuzz_run(f, 1, NULL, NULL, data, size, &junk);
	free(junk.out);
	return 0;
}
