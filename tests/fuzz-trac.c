/*
 * Fuzz harness for the trac module: what it promises beyond the checks
 * every format has (tests/fuzz-format.c).  The input is decoded as a
 * trace file (plain, with --repair-tid, with --allow-truncated, with
 * both) and encoded as trace text (x64 and x86, plain and --strict).
 *
 * - a decode without error gives text that trac_encode turns back into
 *   the input, byte for byte, skipping nothing (a cut trace accepted by
 *   --allow-truncated: the bytes before the cut);
 * - a decode that fails prints whole records only, and those encode back
 *   into the input up to the offset the error names;
 * - text the encoder accepts gives a trace that decodes without error
 *   (unless the text asks for thread ids the reader cannot see) and
 *   encodes back into the same trace.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/trac/trac.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct tp_format *F;
static struct trac_enc_opts strict = { NULL, 1 };

static void
decode(const uint8_t *data, size_t size, int truncated, int repair,
    struct trac_dec_stats *st, struct fuzz_run *d)
{
	struct trac_dec_opts opts = { truncated, repair };

	fuzz_run(F, 0, &opts, st, data, size, d);
}

/*
 * A user block longer than the decoder holds at once is written in
 * records as it is read (trac-user size=, trac-user-data), so a cut one
 * leaves the records of its first part before the error.
 */
static int
ends_in_long_user_block(const unsigned char *text, size_t len)
{
	const unsigned char *last = text, *p;

	if (len == 0)
		return 0;
	for (p = text; p < text + len - 1; p++)
		if (*p == '\n')
			last = p + 1;
	len = (size_t)(text + len - last);
	return (len > 15 && memcmp(last, "trac-user-data ", 15) == 0) ||
	    (len > 10 && memcmp(last, "trac-user ", 10) == 0 &&
	    memmem(last, len, " size=", 6) != NULL);
}

/* Decode with these options and check; returns the decoder's status. */
static int
check_decode(const uint8_t *data, size_t size, int truncated, int repair)
{
	struct trac_dec_stats st;
	struct fuzz_run d;
	int rc;

	decode(data, size, truncated, repair, &st, &d);
	if (fuzz_is_gzip(data, size)) {
		/* The round trip is about the trace, not its compression. */
	} else if (st.first_not_full) {
		/*
		 * A first instruction block that is no full dump is given one
		 * by the encoder (x64dbg always writes one); the decoder
		 * warns.  No round trip is promised for such a file.
		 */
	} else if (d.rc == 0) {
		size_t n = size;
		if (st.truncated_at != TP_NONE) {
			if (!truncated || st.truncated_at > size)
				abort();
			n = (size_t)st.truncated_at;
		}
		fuzz_encodes_to(F, &strict, &d, data, n, 0);
	} else if (d.err.status == TP_EXIT_DATA && d.len > 0 &&
	    !ends_in_long_user_block(d.out, d.len)) {
		/* The valid prefix: every block before the one at fault. */
		if (d.err.offset == TP_NONE || d.err.offset > size)
			abort();
		fuzz_encodes_to(F, &strict, &d, data, (size_t)d.err.offset, 0);
	}
	rc = d.rc;
	free(d.out);
	return rc;
}

static void
check_encode(const uint8_t *data, size_t size, const struct trac_arch *arch,
    int strictly)
{
	struct trac_enc_opts opts = { arch, strictly };
	struct trac_dec_stats st;
	struct fuzz_run e, d;

	fuzz_run(F, 1, &opts, NULL, data, size, &e);
	/* tidstored=noflag anywhere (a cheap over-estimate) asks for ids
	   the reader cannot see. */
	if (e.rc == 0 && memmem(data, size, "noflag", 6) == NULL) {
		/* What the encoder writes, its decoder reads. */
		decode(e.out, e.len, 0, 0, &st, &d);
		if (d.rc < 0)
			abort();
		if (!st.first_not_full)
			fuzz_encodes_to(F, &strict, &d, e.out, e.len, 0);
		free(d.out);
	}
	free(e.out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (F == NULL) {
		F = fuzz_format("trac");
		strict.arch = &trac_x64;
	}
	/* --allow-truncated changes nothing where the decode succeeds. */
	if (check_decode(data, size, 0, 0) < 0)
		check_decode(data, size, 1, 0);
	if (check_decode(data, size, 0, 1) < 0)
		check_decode(data, size, 1, 1);
	check_encode(data, size, &trac_x64, 0);
	check_encode(data, size, &trac_x86, 1);
	return 0;
}
