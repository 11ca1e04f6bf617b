/*
 * The format table: one row per binary trace format, as libpcap's
 * check_headers[] is.  Dispatch (any2txt, "this is an x64dbg trace; use
 * trac2txt"), the CLI conventions test, the benchmarks and the fuzz
 * harnesses all walk this table.
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
 * table holds them behind void pointers (TP_FORMAT_ADAPT makes the
 * adapters) so that one driver can run any format: opts NULL means the
 * format's defaults, st may be NULL.
 *
 * Adding a format: common/FMT.c and .h, its row in common/format.c, two
 * mains in filters/ that read alike, mk/FMT.am, man pages, tests named
 * tests/FMT-ROLE.sh.  See HACKING.md.
 */
#ifndef TP_FORMAT_H
#define TP_FORMAT_H

#include <stddef.h>

#include "base/err.h"
#include "formats/probe.h"
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
 * A decoder option without argument that a driver other than the
 * format's own main can pass through (any2txt): --NAME (or -SHORT) sets
 * the int at offset in the format's dec opts to 1.
 */
struct tp_dec_flag {
	const char *name;	/* "allow-truncated" */
	int shortopt;		/* 't', or 0 */
	size_t offset;		/* offsetof(struct trac_dec_opts, ...) */
	const char *help;	/* one line for --help */
};

struct tp_format {
	const char *name;	/* short name: "trac", "rapidbin", "dial9" */
	const char *desc;	/* "an x64dbg trace (TRAC)" */
	const char *exts;	/* space-separated: ".trace64 .trace32" */
	const char *decoder;	/* "trac2txt" */
	const char *encoder;	/* "txt2trac" */
	unsigned flags;		/* TP_FMT_TEXT, TP_FMT_NOMAGIC */
	tp_probe_fn *probe;	/* detail gets "version 1, x64" or "" */
	tp_decode_fn *decode;
	tp_encode_fn *encode;
	size_t dec_stats_size;	/* so a driver can hold any format's stats */
	size_t enc_stats_size;
	size_t dec_opts_size;	/* and its decoder's options */
	const struct tp_dec_flag *dec_flags;	/* ending with a NULL name, or NULL */
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
 * In common/format.c, for a module that follows the naming pattern:
 * TP_FORMAT_ADAPT(trac) defines the void-pointer adapters of trac_decode
 * and trac_encode, and TP_FORMAT_ROW(trac, desc, exts, flags) is its row
 * (programs trac2txt and txt2trac, probe trac_probe).
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

#define TP_FORMAT_ROW(fmt, desc, exts, flags) \
	TP_FORMAT_ROW_FLAGS(fmt, desc, exts, flags, NULL)

/* The same with the decoder's pass-through options (struct tp_dec_flag). */
#define TP_FORMAT_ROW_FLAGS(fmt, desc, exts, flags, dec_flags) \
	{ #fmt, desc, exts, #fmt "2txt", "txt2" #fmt, flags, fmt##_probe, \
	  fmt##_decode_any, fmt##_encode_any, \
	  sizeof(struct fmt##_dec_stats), sizeof(struct fmt##_enc_stats), \
	  sizeof(struct fmt##_dec_opts), dec_flags }

/* The rows, ending with a row whose name is NULL. */
extern const struct tp_format tp_formats[];

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
