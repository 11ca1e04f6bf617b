/*
 * dial9-trace-format (TRC), the tokio runtime telemetry of dial9.
 *
 * A stream is a header ("TRC\0" and a version byte) and frames, each
 * starting with a tag: 1 schema, 2 event, 3 string pool, 4 stack pool,
 * 5 timestamp reset, 6 schema annotations.  Another header in mid-stream
 * starts a new segment: schemas, pools and the timestamp base are reset.
 * All integers are little-endian; varints are unsigned LEB128.  See
 * dial92txt(1), txt2dial9(1) and trace-text(5).
 *
 * The module is pure: it reads a struct tp_in or a struct tr_reader,
 * writes a struct tp_out and reports into a struct tp_err.  It never
 * prints and never exits.
 */
#ifndef TP_DIAL9_H
#define TP_DIAL9_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "io/input.h"
#include "formats/split.h"
#include "io/output.h"
#include "text/text.h"

/* The longest frame decoded (a frame is held whole in memory). */
#define DIAL9_FRAME_MAX (16u << 20)

/* Dynamic lists and maps nested deeper than this are refused. */
#define DIAL9_DEPTH_MAX 24

/* ------------------------------------------------------------ decoder */

struct dial9_dec_opts {
	int lenient;		/* stop quietly at the first bad frame */
};

struct dial9_dec_stats {
	uint64_t headers, schemas, events, string_pools, stack_pools;
	uint64_t resets, resets_back, annotations;
	uint64_t stopped_at;	/* lenient: offset of the bad frame, or TP_NONE */
	char stop_msg[256];	/* lenient: what was wrong there */
};

/*
 * dial9 to text.  Returns 0, or -1 with err set: the records of every
 * frame before the fault have been written.  With opts->lenient a data
 * fault ends the decoding with 0, recorded in st->stopped_at.
 */
int dial9_decode(struct tp_in *in, struct tp_out *out,
    const struct dial9_dec_opts *opts, struct dial9_dec_stats *st,
    struct tp_err *err);

/* ------------------------------------------------------------ encoder */

struct dial9_enc_opts {
	int strict;		/* a record dial9 cannot hold is an error */
};

struct dial9_enc_stats {
	uint64_t records, frames, events;
	uint64_t headers_added, schemas_inferred, resets_added;
	uint64_t strings_added, stacks_added;
	struct tr_skips skipped;	/* records dial9 cannot hold */
};

/* Text to dial9.  Returns 0, or -1 with err set (line and column). */
int dial9_encode(struct tr_reader *r, struct tp_out *out,
    const struct dial9_enc_opts *opts, struct dial9_enc_stats *st,
    struct tp_err *err);

/*
 * Cut the trace into traces where a reader can start (formats/split.h):
 * at a header, or between frames with the schemas, pool entries and
 * timestamp base the piece uses restated.
 */
int dial9_split(struct tp_in *in, struct tp_cutter *c, struct tp_err *err);

/* TP_PROBE_YES for "TRC\0" and a version byte; detail "version N". */
int dial9_probe(const unsigned char *p, size_t n, char *detail,
    size_t detailsz);

#endif
