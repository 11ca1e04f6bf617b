/*
 * The format table and the probes: every row is well formed, each probe
 * knows its format and refuses the others, RapidBin's plausibility check
 * refuses each implausible header, compressed data is named.
 */
#include <stdint.h>
#include <string.h>

#include "base/bytes.h"
#include "formats/rapidbin/rapidbin.h"
#include "formats/registry.h"
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

/*
 * A codec's registration is whole: a paragraph for --help, sizes, and
 * options each named once, with one letter each at most, listed in
 * --help unless an alias, and setting an int inside the opts or parsing.
 */
static int
codec_ok(const struct tp_codec *c)
{
	const struct tp_option *o, *p;
	size_t n;

	if (c->program == NULL || c->about == NULL || c->opts_size == 0 ||
	    c->stats_size == 0 || (n = strlen(c->about)) == 0 ||
	    c->about[n - 1] != '\n')
		return 0;
	for (o = c->options; o != NULL && o->name != NULL; o++) {
		if (o->set == NULL && (o->arg != NULL ||
		    o->flag + sizeof(int) > c->opts_size))
			return 0;
		for (p = c->options; p < o; p++)
			if (strcmp(p->name, o->name) == 0 ||
			    (o->ch != 0 && p->ch == o->ch))
				return 0;
	}
	return 1;
}

static const char *
best(const void *p, size_t n)
{
	const struct tp_format *f = tp_format_probe(p, n, NULL, 0);
	return f ? f->name : "none";
}

static char said[256];
static int said_level;

static void
say_line(enum tp_say_level level, const char *msg)
{
	said_level = level;
	snprintf(said, sizeof said, "%s", msg);
}

/* Options set what they say; a report says what its program shows. */
static void
options(void)
{
	const struct tp_format *f = tp_format_find("rapidbin");
	const struct tp_option *o;
	struct rapidbin_dec_opts opts = { 0 };
	struct rapidbin_dec_stats st;
	struct tp_say say = { TP_SAY_WARN, say_line };
	struct tp_err err;
	unsigned long long v = 0;

	for (o = f->dec.options; o->name != NULL; o++)
		if (strcmp(o->name, "allow-truncated") == 0)
			break;
	tp_err_clear(&err);
	ok(o->name != NULL && tp_option_set(o, &opts, NULL, &err) == 0 &&
	    opts.allow_truncated == 1 && opts.strict == 0,
	    "a flag sets its int in the decoder's options");
	ok(f->dec.verbose != NULL, "rapidbin: -v sets something");
	f->dec.verbose(&opts);
	ok(opts.count == 1, "rapidbin: -v counts the distinct ids");
	ok(tp_option_number("--level", "7", 0, 9, &v, &err) == 0 && v == 7,
	    "a number in range");
	ok(tp_option_number("--level", "10", 0, 9, &v, &err) < 0 &&
	    err.status == TP_EXIT_FAIL, "a number out of range");
	is_str(err.msg, "--level: '10' is not a number from 0 to 9",
	    "... says so");

	memset(&st, 0, sizeof st);
	st.bit63 = 2;
	f->dec.report(&st, 0, &say);
	is_str(said, "2 events have bit 63 set (bit63=1); RAPID and Wasmgrind "
	    "readers ignore that bit", "a report's warning, word for word");
	ok(said_level == TP_SAY_WARN, "... as a warning");
	said[0] = '\0';
	st.bit63 = 0;
	st.have_header = 1;
	f->dec.report(&st, 0, &say);
	is_str(said, "", "notes are not said when only warnings are shown");
	say.level = TP_SAY_NOTE;
	f->dec.report(&st, 0, &say);
	is_str(said, "header: threads=0 locks=0 vars=0 events=0",
	    "... and are when notes are");
}

int
main(void)
{
	static const unsigned ops[] = { 0, 1, 2, 3, 9 }, bad[] = { 0, 10 };
	const struct tp_format *const *ff, *const *gg, *f;
	unsigned char b[4200];
	char detail[64];
	const char *cmd = NULL;
	size_t n;

	for (ff = tp_formats; (f = *ff) != NULL; ff++) {
		char dec[64], enc[64];
		snprintf(dec, sizeof dec, "%s2txt", f->name);
		snprintf(enc, sizeof enc, "txt2%s", f->name);
		ok(strcmp(f->dec.program, dec) == 0 &&
		    strcmp(f->enc.program, enc) == 0 &&
		    f->desc != NULL && f->exts != NULL && f->probe != NULL &&
		    f->decode != NULL && f->encode != NULL,
		    "%s: a whole row, programs named after it", f->name);
		ok(codec_ok(&f->dec) && codec_ok(&f->enc),
		    "%s: its decoder's and encoder's help, options and sizes",
		    f->name);
		ok(tp_format_find(f->name) == f, "%s: found by name", f->name);
		for (gg = tp_formats; *gg != f; gg++)
			ok(strcmp(f->name, (*gg)->name) != 0, "%s: one row",
			    f->name);
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

	options();

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
