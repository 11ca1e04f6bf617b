/*
 * tracesplit's cutter (formats/split.h): the user's rule for where a
 * piece ends (-n CHUNKS, -l RECORDS, -b SIZE), and where pieces go
 * (PREFIX-0000.EXT ... through the output layer, or only one piece to
 * one output).  A format module asks it at each restart point of its
 * trace; the cutter never sees the format.
 *
 * Names sort in the order of the pieces, as split(1)'s numeric suffixes
 * widen: 0000 to 8999, then 900000 to 989999, then 99000000 ..., so a
 * shell glob lists them in order however many there are.
 *
 * A piece is at least the rule's size: it ends at the first restart
 * point past it (-b, -n) or after at least RECORDS payload records (-l),
 * so a format with few restart points (x64dbg's full register dumps,
 * Usercorn's keyframes) gives fewer, larger pieces.
 */
#ifndef TP_CUTTER_H
#define TP_CUTTER_H

#include <stdint.h>

#include "base/err.h"
#include "formats/split.h"
#include "io/output.h"

/*
 * TC_RANGE: piece 0 is the records whose restart point lies before lo,
 * piece 1 those in [lo, hi), piece 2 the rest (a decoder's --range A-B:
 * ranges that tile the input give each record to one of them).
 */
enum tc_rule { TC_BYTES, TC_RECORDS, TC_CHUNKS, TC_RANGE };

struct tc_opts {
	enum tc_rule rule;
	uint64_t size;		/* bytes, records or chunks (> 0) */
	uint64_t total;		/* TC_CHUNKS: the input's bytes */
	uint64_t lo, hi;	/* TC_RANGE: the wanted bytes [lo, hi) */
	const char *prefix;	/* pieces PREFIX-NNNN.EXT ... */
	const char *ext;	/* ".trace64", or "" */
	/*
	 * Only piece number `only` (0-based) is wanted, written to out_only
	 * (seekable: a module may patch it); the others are thrown away,
	 * and the cut stops after it.  -1: every piece, to files.
	 */
	int64_t only;
	struct tp_out *out_only;
	/*
	 * Or NULL: where piece `only` goes instead when the module patches
	 * its pieces (it set c.finish before the piece began), because
	 * out_only cannot seek (a pipe).
	 */
	struct tp_out *out_seek;
};

struct tc_cutter {
	struct tp_cutter c;	/* what the module sees */
	struct tc_opts o;
	struct tp_out piece;	/* the piece being written (c.out) */
	int open;		/* piece is open */
	uint64_t index;		/* the piece's number */
	uint64_t first_records, first_offset;	/* where it starts */
	uint64_t pieces;	/* pieces started */
	int done;		/* `only` is complete: the module was stopped */
	char *name;		/* the piece's path */
	size_t namecap;
	int nullfd;		/* /dev/null, for the pieces not wanted */
};

/*
 * Has the piece t is writing (t->index, from t->first_records and
 * t->first_offset) reached the rule's size at this restart point?  The
 * splitters' fuzz harness cuts by it too.
 */
int tc_piece_full(const struct tc_cutter *t, uint64_t records,
    uint64_t offset);

/* 0, or -1 with err filled. */
int tc_cutter_init(struct tc_cutter *t, const struct tc_opts *o, struct tp_err *err);

/*
 * After the module: ok (it returned 0, or it was stopped after the one
 * piece wanted, t->done) keeps the last piece; otherwise the piece being
 * written at the fault is removed, the pieces before it stay.  Frees what
 * the cutter holds.  0, or -1 with err filled (a write or rename failed).
 */
int tc_finish(struct tc_cutter *t, int ok, struct tp_err *err);

#endif
