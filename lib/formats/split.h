/*
 * Cutting a trace where its format restarts (tracesplit, and a decoder
 * started on one piece of a file): the format module walks its input and,
 * at each point where a reader could start afresh, asks a cutter whether
 * a new piece begins there.  The module knows where it may cut and what
 * a piece needs before its first record (x64dbg's header, Usercorn's
 * header and keyframe, dial9's schemas, pools and timestamp base, WTF's
 * definitions and zones, RapidBin's counted header); the cutter knows
 * the user's rule (-n CHUNKS, -l RECORDS, -b SIZE) and where pieces go.
 *
 *   int FMT_split(struct tp_in *in, struct tp_cutter *c,
 *       struct tp_err *err);
 *
 * The module copies (or restates) the input's bytes into c->out, calling
 * tp_cut_here() at every restart point before the bytes of the record
 * that starts there; when it returns 1, c->out is a new, empty piece and
 * the module writes into it what a piece needs before that record, then
 * the record.  At the end of the input the module finishes the last
 * piece (a header's counts, a trailer) and returns 0; or -1 with err
 * filled at a fault (the byte offset, as its decoder says it).  Pieces
 * whose header holds counts are patched with tp_out_pwrite (tracesplit's
 * pieces are always seekable), the piece a cut ends through c->finish.
 * The cutter may stop the module after the piece it wants: restart then
 * returns -1, and the module returns -1 as at any error.
 *
 * Property every module keeps (tests/split-*.sh): decoding the pieces
 * and concatenating their payload records gives the records of decoding
 * the whole, structure records aside; each piece round-trips by itself.
 */
#ifndef TP_SPLIT_H
#define TP_SPLIT_H

#include <stdint.h>

#include "base/err.h"
#include "io/input.h"
#include "io/output.h"

struct tp_cutter {
	struct tp_out *out;	/* the piece being written */
	/*
	 * A restart point: records is the number of payload records
	 * (the records its decoder writes, structure aside) before it,
	 * offset the input byte offset where the record starts.  1: a
	 * new piece starts here and out is it; 0: go on in this piece;
	 * -1: err filled (an output could not be opened).  The first
	 * call always starts the first piece.
	 */
	int (*restart)(struct tp_cutter *c, uint64_t records, uint64_t offset,
	    struct tp_err *err);
	void *ctx;		/* the cutter's own state */
	/*
	 * Left NULL by the cutter; set by a module whose pieces need last
	 * words once their records are known (RapidBin's event count in
	 * the header): the cutter calls it when a piece ends at a cut,
	 * before it closes out (still that piece, always seekable), with
	 * module the module's own state.  0, or -1 with err filled.  At
	 * the end of the input the module finishes the last piece itself.
	 */
	int (*finish)(struct tp_cutter *c, struct tp_err *err);
	void *module;
};

static inline int
tp_cut_here(struct tp_cutter *c, uint64_t records, uint64_t offset,
    struct tp_err *err)
{
	return c->restart(c, records, offset, err);
}

typedef int tp_split_fn(struct tp_in *in, struct tp_cutter *c,
    struct tp_err *err);

#endif
