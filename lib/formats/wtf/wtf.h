/*
 * Web Tracing Framework binary traces (*.wtf-trace): decoder to the text
 * stream and encoder back.
 *
 * Two generations share the magic 0xDEADBEEF.  Legacy BinaryTrace v3 is
 * big-endian (on disk DE AD BE EF): a header with inline strings, then
 * packed event records (u16 wire id, u32 time in microseconds, arguments).
 * The chunked file format v10 is little-endian (EF BE AD DE): chunks of
 * parts (a JSON file header, per-chunk string tables, event buffers of
 * 4-byte slots, resources).  Only wire id 1 (wtf.event#define) is fixed;
 * every other id is defined by the file.  See wtf2txt(1), txt2wtf(1),
 * trace-text(5).
 *
 * The module is pure: it reads a struct tp_in, writes a struct tp_out and
 * reports into a struct tp_err.  It never prints and never exits.
 */
#ifndef TP_WTF_H
#define TP_WTF_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "io/input.h"
#include "formats/split.h"
#include "io/output.h"
#include "text/text.h"

#define WTF_MAGIC 0xdeadbeefu
#define WTF_LEGACY_VERSION 3
#define WTF_CFF_VERSION 10
#define WTF_WIRE_DEFINE 1
#define WTF_MAX_WIRE 0xffff	/* define records carry the wire id in 16 bits */
#define WTF_MAX_ARGS 64		/* arguments of one event type */
/*
 * The longest chunk read.  A chunk is held whole (its string table is
 * addressed by ordinal from anywhere in its event buffer); memory grows
 * only as far as the input backs it.
 */
#define WTF_CHUNK_MAX (256u * 1024 * 1024)
/* Event buffers txt2wtf fills before it starts a new chunk. */
#define WTF_ENC_CHUNK (1024 * 1024)

/* Chunk and part types of the chunked format. */
#define WTF_CHUNK_FILE_HEADER 1
#define WTF_CHUNK_EVENT_DATA 2
#define WTF_PART_FILE_HEADER 0x10000
#define WTF_PART_JSON_EVENTS 0x20000
#define WTF_PART_LEGACY_EVENTS 0x20001
#define WTF_PART_BINARY_EVENTS 0x20002
#define WTF_PART_STRING_TABLE 0x30000
#define WTF_PART_BINARY_RESOURCE 0x40000
#define WTF_PART_STRING_RESOURCE 0x40001

/* ---------------------------------------------------------------- decoder */

struct wtf_dec_opts {
	int unused;
};

struct wtf_dec_stats {
	int version;		/* 3 or 10; 0 until the header is read */
	uint64_t records;	/* event records, definitions included */
	uint64_t defines;
	uint64_t redefined;	/* defines of a wire id already defined */
	uint64_t chunks;
	uint64_t parts;
	uint64_t backwards;	/* records whose time is before the last one */
	uint64_t unknown;	/* chunks and parts of unknown types */
};

/*
 * Decode a whole trace into text records.  Returns 0, or -1 with err
 * filled (offset, and the record or chunk index); the records before the
 * fault (in the chunked format: of every record before it) are written.
 */
/*
 * Cut the trace into traces where a reader can start (formats/split.h):
 * chunked at an event-data chunk, legacy at any record, each piece with
 * the definitions and zones in force restated.
 */
int wtf_split(struct tp_in *in, struct tp_cutter *c, struct tp_err *err);

int wtf_decode(struct tp_in *in, struct tp_out *out,
    const struct wtf_dec_opts *opts, struct wtf_dec_stats *st,
    struct tp_err *err);

/* ---------------------------------------------------------------- encoder */

struct wtf_enc_opts {
	int strict;		/* a record a trace cannot hold is an error */
};

struct wtf_enc_stats {
	int version;		/* generation written */
	uint64_t records;	/* text records read */
	uint64_t events;	/* event records written, definitions included */
	uint64_t inferred;	/* definitions made up from events */
	uint64_t zones_added;	/* wtf.zone#create/#set records added */
	struct tr_skips skipped;	/* records a trace cannot hold */
};

/*
 * Encode text records into a trace: the generation of the stream's
 * wtf-header record, or the chunked format for a stream without one.
 * Returns 0, or -1 with err filled (line and column for data errors).
 */
int wtf_encode(struct tr_reader *r, struct tp_out *out,
    const struct wtf_enc_opts *opts, struct wtf_enc_stats *st,
    struct tp_err *err);

/*
 * Probe the first n bytes: TP_PROBE_YES for either generation with a
 * known version; detail gets "legacy v3" or "chunked v10".
 */
int wtf_probe(const unsigned char *p, size_t n, char *detail,
    size_t detailsz);

#endif
