/*
 * The fuzz harness every format of the table has: for the row named by
 * -DFUZZ_FORMAT=name (libFuzzer builds: scripts/fuzz format-NAME) or by
 * $FUZZ_FORMAT (make check: tests/fuzz-replay.sh), it drives that row's decoder and encoder through
 * the common entry shape, with default options.  Besides crashes, hangs
 * and sanitizer reports it checks what every format promises:
 *
 * - a failed decode or encode says why (err.status set), a successful
 *   one leaves no error;
 * - the probe does not crash on any prefix the driver may give it;
 * - text a decoder wrote is encoded without error, and what that gives
 *   decodes into the same text again (X2txt | txt2X | X2txt = X2txt);
 * - the input read as trace text encodes or fails with a reason.
 *
 * A format with stronger promises (byte-exact round trips, options) has
 * its own harness besides (tests/fuzz-trac.c, tests/fuzz-rapidbin.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "fuzz-capture.h"

#define STR_(x) #x
#define STR(x) STR_(x)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run one direction on [p, p + n); the output in *out (malloc'd). */
static int
run(const struct tp_format *f, int encode, const void *p, size_t n,
    unsigned char **out, size_t *outlen)
{
	struct tr_reader r;
	struct tp_err err;
	struct tp_out o;
	struct tp_in in;
	int rc;

	tp_err_clear(&err);
	if (tp_in_open_mem(&in, p, n, "<fuzz>", &err) < 0)
		abort();
	cap_open(&o);
	if (encode) {
		tr_init(&r, &in);
		rc = f->encode(&r, &o, NULL, NULL, &err);
	} else {
		rc = f->decode(&in, &o, NULL, NULL, &err);
	}
	if (tp_in_close(&in) < 0 && rc == 0)
		rc = -1;
	if ((rc < 0) != (err.status != 0))
		abort();	/* a failure without a reason, or the reverse */
	*out = cap_take(&o, outlen);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct tp_format *f;
	unsigned char *text, *bin, *text2, *junk;
	size_t tlen, blen, t2len, jlen;
	char detail[128];

	if (f == NULL) {
#ifdef FUZZ_FORMAT
		const char *name = STR(FUZZ_FORMAT);
#else
		const char *name = getenv("FUZZ_FORMAT");
#endif
		if (name == NULL || (f = tp_format_find(name)) == NULL)
			abort();
	}
	f->probe(data, size < TP_PROBE_LEN ? size : TP_PROBE_LEN, detail,
	    sizeof detail);

	if (run(f, 0, data, size, &text, &tlen) == 0) {
		if (run(f, 1, text, tlen, &bin, &blen) < 0)
			abort();	/* decoded text must encode */
		if (run(f, 0, bin, blen, &text2, &t2len) < 0 ||
		    t2len != tlen || memcmp(text, text2, tlen) != 0)
			abort();	/* X2txt | txt2X | X2txt != X2txt */
		free(bin);
		free(text2);
	}
	free(text);
	run(f, 1, data, size, &junk, &jlen);
	free(junk);
	return 0;
}
