/*
 * The format table and the probes: every row is well formed, each probe
 * knows its format and refuses the others, RapidBin's plausibility check
 * refuses each implausible header, compressed data is named.
 */
#include <stdint.h>
#include <string.h>

#include "base/bytes.h"
#include "formats/registry.h"
#include "formats/rapidbin/rapidbin.h"
#include "tap.h"

static const unsigned char trac[] = "TRAC\x0d\0\0\0{\"ver\":1}";
static const char std[] = "\n  T0|acq(L3)|362\nT1|rel(L3)|7\n";

/* A RapidBin header and events of the given ops. */
static size_t
rapidbin(unsigned char *b, unsigned threads, uint32_t locks, uint64_t events,
    const unsigned *ops, size_t nops)
{
	size_t i;

	tp_put_be16(b, (uint16_t)threads);
	tp_put_be32(b + 2, locks);
	tp_put_be32(b + 6, 1);
	tp_put_be64(b + 10, events);
	for (i = 0; i < nops; i++)
		tp_put_be64(b + 18 + 8 * i, (uint64_t)ops[i] << RB_OP_SHIFT | 1);
	return 18 + 8 * nops;
}

static const char *
best(const void *p, size_t n)
{
	const struct tp_format *f = tp_format_probe(p, n, NULL, 0);
	return f ? f->name : "none";
}

int
main(void)
{
	static const unsigned ops[] = { 0, 1, 2, 3, 9 }, bad[] = { 0, 10 };
	const struct tp_format *f, *g;
	unsigned char b[4200];
	char detail[64];
	const char *cmd = NULL;
	size_t n;

	for (f = tp_formats; f->name != NULL; f++) {
		char dec[64], enc[64];
		snprintf(dec, sizeof dec, "%s2txt", f->name);
		snprintf(enc, sizeof enc, "txt2%s", f->name);
		ok(strcmp(f->decoder, dec) == 0 && strcmp(f->encoder, enc) == 0 &&
		    f->desc != NULL && f->exts != NULL && f->probe != NULL &&
		    f->decode != NULL && f->encode != NULL &&
		    f->dec_stats_size > 0 && f->enc_stats_size > 0,
		    "%s: a whole row, programs named after it", f->name);
		ok(tp_format_find(f->name) == f, "%s: found by name", f->name);
		for (g = tp_formats; g < f; g++)
			ok(strcmp(f->name, g->name) != 0, "%s: one row", f->name);
		ok(f->probe((const unsigned char *)"", 0, detail,
		    sizeof detail) == TP_PROBE_NO, "%s: nothing is not it",
		    f->name);
	}
	ok(tp_format_find("nosuch") == NULL, "no row for an unknown name");

	is_str(best(trac, sizeof trac - 1), "trac", "TRAC magic");
	is_str(best("TRAC", 4), "trac", "TRAC magic alone, cut after it");
	is_str(best("TRA", 3), "none", "three bytes of the magic are nothing");
	is_str(best(std, sizeof std - 1), "std", "STD text after blank lines");
	is_str(best("T0|acq(3)|362", 13), "std", "bare-number STD, no newline");
	is_str(best("insn tid=1 pc=0x1\n", 18), "none", "trace text is no format");

	n = rapidbin(b, 4, 2, 5, ops, 5);
	is_str(best(b, n), "rapidbin", "RapidBin: plausible header, valid ops");
	ok(tp_format_find("rapidbin")->probe(b, n, detail, sizeof detail) ==
	    TP_PROBE_MAYBE, "RapidBin is never more than plausible");
	is_str(detail, "threads=4 events=5", "RapidBin probe detail");
	is_str(best(b, 18), "rapidbin", "RapidBin header alone");
	is_str(best(b, 17), "none", "less than a RapidBin header");
	is_str(best(b, n - 3), "none", "a whole RapidBin file with a cut event");
	n = rapidbin(b, 1025, 2, 5, ops, 5);
	is_str(best(b, n), "none", "more threads than a 10-bit id names");
	n = rapidbin(b, 1024, 2, 5, ops, 5);
	is_str(best(b, n), "rapidbin", "1024 threads");
	n = rapidbin(b, 0xffff, 2, 5, ops, 5);
	is_str(best(b, n), "none", "a negative thread count");
	n = rapidbin(b, 4, 0x80000000u, 5, ops, 5);
	is_str(best(b, n), "none", "a negative lock count");
	n = rapidbin(b, 4, 2, UINT64_C(1) << 48, ops, 5);
	is_str(best(b, n), "none", "2^48 events");
	n = rapidbin(b, 4, 2, (UINT64_C(1) << 63) | 5, ops, 5);
	is_str(best(b, n), "rapidbin", "bit 63 of the count, which readers clear");
	n = rapidbin(b, 4, 2, 2, bad, 2);
	is_str(best(b, n), "none", "an invalid op in the first events");
	/* Past what a probe sees, a partial event is no reason to refuse. */
	memset(b, 0, sizeof b);
	rapidbin(b, 4, 2, 600, ops, 1);
	is_str(best(b, TP_PROBE_LEN), "rapidbin", "a long file is judged on its start");
	n = rapidbin(b, 4, 2, 2, ops, 2);
	memcpy(b, "TRAC", 4);
	is_str(best(b, n), "trac", "the TRAC magic wins over plausible counts");

	is_str(tp_compressed((const unsigned char *)"\xfd" "7zXZ\0\0", 7, &cmd),
	    "xz", "xz magic");
	is_str(cmd, "xz -dc", "xz command");
	is_str(tp_compressed((const unsigned char *)"\x28\xb5\x2f\xfd\0", 5,
	    NULL), "zstd", "zstd magic");
	is_str(tp_compressed((const unsigned char *)"BZh91AY", 7, NULL),
	    "bzip2", "bzip2 magic");
	ok(tp_compressed((const unsigned char *)"BZhx", 4, NULL) == NULL,
	    "BZh without a block size is not bzip2");
	ok(tp_compressed((const unsigned char *)"\xfd" "7zX", 4, NULL) == NULL,
	    "a cut xz magic is not xz");
	ok(tp_compressed((const unsigned char *)"\x1f\x8b\x08", 3, NULL) == NULL,
	    "gzip is read, not named");
	return done_testing();
}
