/*
 * The formats: one registration per binary trace format, in its folder
 * (formats/FMT/FMT-format.c), listed by the registry as libpcap's
 * check_headers[] lists its readers.  A registration says all that is
 * known of the format outside its module: its name, description and
 * file extensions, its probe, its decoder's and encoder's entry points,
 * their options (what each sets in the module's opts struct), what each
 * says after an input (its report) and what its program's --help says
 * of it.  Dispatch (any2txt, "this is an x64dbg trace; use trac2txt"),
 * the programs FMT2txt and txt2FMT, the CLI conventions test, the
 * benchmarks and the fuzz harnesses all read it there.
 *
 * Every format module FMT exposes the same entry shape:
 *
 *   int FMT_decode(struct tp_in *in, struct tp_out *out,
 *       const struct FMT_dec_opts *opts, struct FMT_dec_stats *st,
 *       struct tp_err *err);
 *   int FMT_encode(struct tr_reader *r, struct tp_out *out,
 *       const struct FMT_enc_opts *opts, struct FMT_enc_stats *st,
 *       struct tp_err *err);
 *   int FMT_probe(const unsigned char *p, size_t n, char *detail,
 *       size_t detailsz);
 *
 * Both return 0, or -1 with err filled.  A decoder writes the records of
 * everything before a fault, then fails with the byte offset.  An encoder
 * points the reader's err at its err (the reader reports there).  The
 * registration holds them behind void pointers (TP_FORMAT_ADAPT makes the
 * adapters) so that one driver can run any format: opts NULL means the
 * format's defaults (zeroed options are the defaults), st may be NULL.
 *
 * Adding a format: its folder formats/FMT/ (the module, and FMT-format.c
 * with its registration), one line in registry.c, two one-line mains in
 * filters/, its lines in mk/FMT.am, man pages, tests/FMT-ROLE.sh.
 */
#ifndef TP_FORMAT_H
#define TP_FORMAT_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "base/err.h"
#include "formats/probe.h"
#include "formats/split.h"
#include "io/input.h"
#include "io/output.h"
#include "text/text.h"

typedef int tp_probe_fn(const unsigned char *p, size_t n, char *detail,
    size_t detailsz);
typedef int tp_decode_fn(struct tp_in *in, struct tp_out *out,
    const void *opts, void *st, struct tp_err *err);
typedef int tp_encode_fn(struct tr_reader *r, struct tp_out *out,
    const void *opts, void *st, struct tp_err *err);

/*
 * A command-line option, and what it sets in its target (a format's opts
 * struct, or a program's own state): without set, the int at offset
 * flag becomes 1; with set, set parses the argument (NULL for an option
 * without one) into the target and returns 0, or -1 with err filled
 * (the program makes that a usage error).  set is pure, as the rest of
 * the library.
 */
struct tp_option {
	const char *name;	/* --name; NULL ends a table */
	int ch;			/* -c, or 0 for none */
	const char *arg;	/* the argument's name in --help ("BYTES"),
				   or NULL: the option takes none */
	const char *help;	/* what --help says of it (wrapped there;
				   a line starting with a blank is kept as
				   it is), or NULL: an alias, not listed */
	size_t flag;		/* offset of the int set to 1 */
	int (*set)(void *target, const char *arg, struct tp_err *err);
};

#define TP_OPTION_FLAG(name, ch, type, member, help) \
	{ name, ch, NULL, help, offsetof(type, member), NULL }
#define TP_OPTION_SET(name, ch, arg, set, help) \
	{ name, ch, arg, help, 0, set }
/*
 * An encoder's --strict, in the words every encoder says it with: what
 * ("a trace file") cannot hold is skipped and counted, or with it an
 * error.
 */
#define TP_OPTION_STRICT(type, what) \
	TP_OPTION_FLAG("strict", 's', type, strict, "a record " what \
	    " cannot hold is an error (by default it is skipped and counted)")

/* Option o given (with arg), into target: 0, or -1 with err filled. */
int tp_option_set(const struct tp_option *o, void *target, const char *arg,
    struct tp_err *err);

/*
 * What a decoder or an encoder says after an input, from its stats
 * (failed: the input did not convert), through say.
 */
typedef void tp_report_fn(const void *stats, int failed,
    const struct tp_say *say);


/*
 * The helpers of registrations and mains, inline: a format's object uses
 * nothing of the registry that lists it (tests/library-objects.sh).
 */

/*
 * The decimal number s of option opt ("--level"), from lo to hi, into
 * *v: 0, or -1 with err filled ("--level: 'x' is not a number from 0
 * to 9").
 */
static inline int
tp_option_number(const char *opt, const char *s, unsigned long long lo,
    unsigned long long hi, unsigned long long *v, struct tp_err *err)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	if (end == s || *end != '\0' || *s == '-' || errno != 0 || *v < lo ||
	    *v > hi)
		return tp_fail(err, TP_EXIT_FAIL, "%s: '%s' is not a number "
		    "from %llu to %llu", opt, s, lo, hi);
	return 0;
}

/*
 * A positive number of bytes s of option opt, decimal or 0x hex, into
 * *v: 0, or -1 with err filled ("--run-size: 'x' is not a positive
 * number of bytes").
 */
static inline int
tp_option_bytes(const char *opt, const char *s, unsigned long long *v,
    struct tp_err *err)
{
	char *end;

	*v = strtoull(s, &end, 0);
	if (*end != '\0' || *v == 0 || *s == '-')
		return tp_fail(err, TP_EXIT_FAIL, "%s: '%s' is not a positive "
		    "number of bytes", opt, s);
	return 0;
}

/*
 * For each cause of a skip "N records skipped, CANNOT (first at line L:
 * WHY)", and of a loss "N records changed: CAUSE (first at line L:
 * WHY)": warnings.  Under -v, what the target rebuilt: "rebuilt: N KIND
 * records (...)".
 */
static inline void
tp_report_skips(const struct tp_say *say, const struct tr_skips *sk)
{
	unsigned i;

	for (i = 0; i < TR_CAUSES + 1; i++) {
		const struct tr_cause *c = &sk->skip[i];

		if (c->count == 0)
			continue;
		tp_say(say, TP_SAY_WARN, "%llu record%s skipped, %s (%sfirst "
		    "at line %llu: %s)", (unsigned long long)c->count,
		    tp_s(c->count), sk->cannot, c->cause != NULL ?
		    "other causes; " : "", (unsigned long long)c->first_line,
		    c->first_why);
	}
	for (i = 0; i < TR_CAUSES + 1; i++) {
		const struct tr_cause *c = &sk->lost[i];

		if (c->count == 0)
			continue;
		tp_say(say, TP_SAY_WARN, "%llu record%s changed: %s (first "
		    "at line %llu: %s)", (unsigned long long)c->count,
		    tp_s(c->count), c->cause,
		    (unsigned long long)c->first_line, c->first_why);
	}
	for (i = 0; i < TR_CAUSES + 1; i++)
		if (sk->rebuilt[i].count > 0)
			tp_say(say, TP_SAY_NOTE, "rebuilt: %llu %s record%s "
			    "(another format's structure; this trace has its "
			    "own)", (unsigned long long)sk->rebuilt[i].count,
			    sk->rebuilt[i].kind, tp_s(sk->rebuilt[i].count));
}

/* One direction of a format: its program, options and report. */
struct tp_codec {
	const char *program;	/* "trac2txt" */
	const char *about;	/* the paragraph of its --help after the
				   usage line: lines ending with \n */
	const char *exit1;	/* what exit status 1 means, or NULL for
				   the usual words of its direction */
	const struct tp_option *options;	/* set its opts; or NULL */
	void (*verbose)(void *opts);	/* what -v sets in its opts, or NULL */
	tp_report_fn *report;	/* or NULL */
	size_t opts_size, stats_size;
};

struct tp_format {
	const char *name;	/* short name: "trac", "rapidbin", "dial9" */
	const char *desc;	/* "an x64dbg trace (TRAC)" */
	const char *exts;	/* space-separated: ".trace64 .trace32" */
	unsigned flags;		/* TP_FMT_TEXT, TP_FMT_NOMAGIC */
	tp_probe_fn *probe;	/* detail gets "version 1, x64" or "" */
	tp_decode_fn *decode;
	tp_encode_fn *encode;
	tp_split_fn *split;	/* cut where the format restarts (split.h),
				   or NULL */
	struct tp_codec dec, enc;
};

/* The format is text (RAPID's STD): it may be read from a terminal. */
#define TP_FMT_TEXT 1u
/*
 * The format has no magic number, so its own first bytes may look like a
 * gzip header (RapidBin: 8075 threads are 1f 8b): the decoder's input is
 * read as it is when no deflate data follows (tp_in.gz_fallback).
 */
#define TP_FMT_NOMAGIC 2u

/*
 * In formats/FMT/FMT-format.c, for a module that follows the naming
 * pattern: TP_FORMAT_ADAPT(fmt) defines the void-pointer adapters of
 * fmt_decode and fmt_encode, and TP_FORMAT_MODULE(fmt) starts the
 * registration's initializer with what follows from the names (the
 * format's name, its programs fmt2txt and txt2fmt, probe, adapters,
 * the sizes of its opts and stats):
 *
 *	TP_FORMAT_ADAPT(trac)
 *	const struct tp_format tp_format_trac = {
 *		TP_FORMAT_MODULE(trac),
 *		.desc = "an x64dbg trace (TRAC)",
 *		...
 *	};
 */
#define TP_FORMAT_ADAPT(fmt) \
static int \
fmt##_decode_any(struct tp_in *in, struct tp_out *out, const void *opts, \
    void *st, struct tp_err *err) \
{ \
	static const struct fmt##_dec_opts defaults; \
	struct fmt##_dec_stats scratch; \
	return fmt##_decode(in, out, opts ? opts : &defaults, \
	    st ? st : &scratch, err); \
} \
static int \
fmt##_encode_any(struct tr_reader *r, struct tp_out *out, const void *opts, \
    void *st, struct tp_err *err) \
{ \
	static const struct fmt##_enc_opts defaults; \
	struct fmt##_enc_stats scratch; \
	return fmt##_encode(r, out, opts ? opts : &defaults, \
	    st ? st : &scratch, err); \
}

#define TP_FORMAT_MODULE(fmt) \
	.name = #fmt, .probe = fmt##_probe, \
	.decode = fmt##_decode_any, .encode = fmt##_encode_any, \
	.dec.program = #fmt "2txt", .enc.program = "txt2" #fmt, \
	.dec.opts_size = sizeof(struct fmt##_dec_opts), \
	.dec.stats_size = sizeof(struct fmt##_dec_stats), \
	.enc.opts_size = sizeof(struct fmt##_enc_opts), \
	.enc.stats_size = sizeof(struct fmt##_enc_stats)

/* The registrations, in the registry's order, ending with NULL. */
extern const struct tp_format *const tp_formats[];

const struct tp_format *tp_format_find(const char *name);

/*
 * The best match for the first n bytes: a YES beats a MAYBE; NULL when no
 * probe accepts them.  detail (may be NULL) gets the probe's detail.
 */
const struct tp_format *tp_format_probe(const unsigned char *p, size_t n,
    char *detail, size_t detailsz);

/*
 * The format of the first n bytes: the one row whose probe says the most.
 * NULL when no probe accepts them, or when two say the same most (*tie
 * then gets the second: two formats, not a guess).  detail as above.
 */
const struct tp_format *tp_format_detect(const unsigned char *p, size_t n,
    char *detail, size_t detailsz, const struct tp_format **tie);

/*
 * A compressed stream tracepipe does not read itself (xz, zstd, bzip2;
 * gzip is read transparently): "xz" and the command that decompresses
 * it, or NULL.
 */
const char *tp_compressed(const unsigned char *p, size_t n, const char **cmd);

#endif
