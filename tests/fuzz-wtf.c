/*
 * Fuzz harness for the wtf module: what it promises beyond the checks
 * every format has (tests/fuzz-format.c).
 *
 * - a decode without error gives text that wtf_encode turns back into the
 *   input, byte for byte, skipping nothing;
 * - a decode that fails prints whole records only, and they encode: for a
 *   legacy trace into the input up to the offset the error names; for a
 *   chunked trace, the records before the last wtf-chunk (the chunks
 *   before the fault) into a prefix of the input that ends at or before
 *   that offset;
 * - text the encoder accepts (plain or --strict) gives a trace that
 *   decodes without error and encodes back into the same trace.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/wtf/wtf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct tp_format *F;
static const struct wtf_enc_opts strict = { 1 }, plain = { 0 };

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
	struct fuzz_run d;

	fuzz_run(F, 0, NULL, NULL, data, size, &d);
	if (fuzz_is_gzip(data, size)) {
		/* The round trip is about the trace, not its compression. */
	} else if (d.rc == 0) {
		fuzz_encodes_to(F, &strict, &d, data, size, 0);
	} else if (d.err.status == TP_EXIT_DATA && d.len > 0) {
		if (d.err.offset == TP_NONE || d.err.offset > size)
			abort();
		if (data[0] == 0xde) {	/* legacy: every record before */
			fuzz_encodes_to(F, &strict, &d, data,
			    (size_t)d.err.offset, 0);
		} else {
			if (d.out[d.len - 1] != '\n')
				abort();	/* only whole records */
			d.len = before_last(d.out, d.len, "wtf-chunk ");
			/*
			 * The header line alone (a trace cut in its first
			 * chunk): the encoder completes it with a file-header
			 * chunk, as every chunked trace has, so it is no prefix.
			 */
			if (memchr(d.out, '\n', d.len) != d.out + d.len - 1)
				fuzz_encodes_to(F, &strict, &d, data,
				    (size_t)d.err.offset, 1);
		}
	}
	free(d.out);
}

static void
check_encode(const uint8_t *data, size_t size, const struct wtf_enc_opts *o)
{
	struct fuzz_run e, d;

	fuzz_run(F, 1, o, NULL, data, size, &e);
	if (e.rc == 0) {
		/* What the encoder writes, its decoder reads, and back. */
		fuzz_run(F, 0, NULL, NULL, e.out, e.len, &d);
		if (d.rc < 0)
			abort();
		fuzz_encodes_to(F, &strict, &d, e.out, e.len, 0);
		free(d.out);
	}
	free(e.out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (F == NULL)
		F = fuzz_format("wtf");
	check_decode(data, size);
	check_encode(data, size, &plain);
	check_encode(data, size, &strict);
	return 0;
}
