/*
 * RapidBin, the binary concurrency trace of RAPID and Wasmgrind.
 *
 * An 18-byte big-endian header (i16 threads, i32 locks, i32 variables,
 * i64 events) and then one big-endian 64-bit word per event: thread id in
 * bits 0-9, operation 10-13, decor (lock, variable or child thread) 14-47,
 * location 48-62; bit 63 is unused.  See rapidbin2txt(1), trace-text(5).
 *
 * The module is pure: it reads a struct tp_in, writes a struct tp_out and
 * reports into a struct tp_err.  It never prints and never exits.
 */
#ifndef TP_RAPIDBIN_H
#define TP_RAPIDBIN_H

#include <stdint.h>

#include "base/err.h"
#include "io/input.h"
#include "io/output.h"
#include "text/text.h"

#define RB_HEADER_SIZE 18

#define RB_TID_BITS 10
#define RB_OP_BITS 4
#define RB_DECOR_BITS 34
#define RB_LOC_BITS 15
#define RB_OP_SHIFT 10
#define RB_DECOR_SHIFT 14
#define RB_LOC_SHIFT 48
#define RB_TID_MAX 0x3ffu
#define RB_OP_MAX 0xfu
#define RB_DECOR_MAX UINT64_C(0x3ffffffff)
#define RB_LOC_MAX 0x7fffu
#define RB_BIT63 (UINT64_C(1) << 63)

enum rb_op {
	RB_ACQUIRE, RB_RELEASE, RB_READ, RB_WRITE, RB_FORK, RB_JOIN,
	RB_BEGIN, RB_END, RB_REQUEST, RB_BRANCH,
	RB_NOPS			/* 10..15 are invalid */
};

/* What an operation's decor names. */
enum rb_decor_kind { RB_D_NONE, RB_D_LOCK, RB_D_VAR, RB_D_THREAD };

/* One event, with values wide enough for text that does not fit yet. */
struct rb_event {
	unsigned op;		/* enum rb_op */
	int bit63;
	uint64_t tid;
	uint64_t decor;
	uint64_t loc;
};

/* The header fields as stored (raw two's complement bits). */
struct rb_header {
	uint16_t threads;
	uint32_t locks;
	uint32_t vars;
	uint64_t events;
};

extern const enum rb_decor_kind rb_decor_kind[RB_NOPS];

static inline uint64_t
rb_pack(const struct rb_event *e)
{
	return (e->tid & RB_TID_MAX) | (uint64_t)(e->op & RB_OP_MAX) << RB_OP_SHIFT |
	    (e->decor & RB_DECOR_MAX) << RB_DECOR_SHIFT |
	    (e->loc & RB_LOC_MAX) << RB_LOC_SHIFT | (e->bit63 ? RB_BIT63 : 0);
}

static inline void
rb_unpack(uint64_t w, struct rb_event *e)
{
	e->tid = w & RB_TID_MAX;
	e->op = (unsigned)(w >> RB_OP_SHIFT) & RB_OP_MAX;
	e->decor = (w >> RB_DECOR_SHIFT) & RB_DECOR_MAX;
	e->loc = (w >> RB_LOC_SHIFT) & RB_LOC_MAX;
	e->bit63 = (int)(w >> 63);
}

/*
 * The text line of an event, '\n' included, at p; returns the end.  Needs
 * RB_LINE_MAX bytes of room plus 16 bytes of slack past the end.
 */
#define RB_LINE_MAX 128
char *rb_fmt_event(char *p, const struct rb_event *e);

/* ------------------------------------------------------------ decoder */

struct rapidbin_dec_opts {
	int strict;		/* Wasmgrind's rules: exact counts */
	int count;		/* count distinct ids even when not strict */
	int allow_truncated;	/* a cut last event ends the trace quietly */
};

/*
 * Distinct ids (-v, -s) are counted exactly up to RB_EXACT_IDS of a kind,
 * then estimated in fixed memory (distinct.h: 1.6 % standard error; the
 * estimate is taken to hold within RB_EST_PERCENT, three standard errors).
 */
#define RB_EXACT_IDS 65536u
#define RB_EST_PERCENT 5u

struct rapidbin_dec_stats {
	struct rb_header header;
	int have_header;
	uint64_t events;	/* events decoded */
	uint64_t threads, locks, vars;	/* distinct, when counted */
	unsigned estimated;	/* estimates: 1 threads, 2 locks, 4 vars */
	uint64_t bit63;		/* events with bit 63 set */
	uint64_t truncated_at;	/* offset of a cut last event, or TP_NONE */
	unsigned truncated_bytes;	/* ... and its bytes */
	int strict;		/* decoded with opts->strict (-s) */
	int counted;		/* threads, locks and vars were counted */
};

/*
 * RapidBin to text.  Returns 0, or -1 with err set: the text of every
 * event before the fault has been written.
 */
int rapidbin_decode(struct tp_in *in, struct tp_out *out,
    const struct rapidbin_dec_opts *opts, struct rapidbin_dec_stats *st,
    struct tp_err *err);

/* ------------------------------------------------------------ encoder */

/* What a skipped record lacks (struct tr_skips), for txt2rapidbin and txt2std. */
#define RB_NO_MEANING "no RapidBin meaning"

/* The cause of an unknown field in an event record (tr_lose). */
#define RB_UNKNOWN_FIELD "an unknown field dropped"

/* A marker the sink gets between events (op RB_MARK, its value in decor). */
#define RB_MARK 15u

/*
 * Another writer of the mapped events (txt2std): each event, with its
 * ids mapped as txt2rapidbin maps them, goes to event() instead of into
 * a RapidBin word, and no header is written.
 */
struct rb_sink {
	size_t max;		/* bytes event() may write */
	/* Write e at p and return the end (p itself: e not written). */
	char *(*event)(void *ctx, char *p, const struct rb_event *e);
	/*
	 * A record of a kind RapidBin has none for: 0 skip it, 1 drop it
	 * quietly, 2 pass *mark to event() in its place, -1 error.
	 */
	int (*other)(void *ctx, struct tr_reader *r, const struct tr_rec *rec,
	    uint64_t *mark);
	void *ctx;
	/*
	 * The ids are text, which any value fits: native ids are kept as
	 * they are where the stream has no address or pc to map, or where
	 * other() set wide (a stream of the sink's own format).  A loc=
	 * beyond wide_loc_max (at least RB_LOC_MAX) is refused, saying
	 * wide_loc_why.
	 */
	int wide;
	uint64_t wide_loc_max;
	const char *wide_loc_why;
};

struct rapidbin_enc_opts {
	int strict;		/* records without a RapidBin meaning: error */
	int dense;		/* map out-of-range lock/var/child/loc values */
	int no_pc;		/* pc= is not mapped to a location (loc 0) */
	struct tp_out *meta;	/* Wasmgrind-style metadata JSON, or NULL */
	struct rb_sink *sink;	/* write the events there instead, or NULL */
};

struct rapidbin_enc_stats {
	uint64_t events;
	struct tr_skips skipped;	/* records without a RapidBin meaning */
	int header_record;	/* 0 none, 1 used as stored, 2 recounted */
	uint64_t header_record_events;
	uint64_t file_events;	/* the events the decoded file held */
	struct rb_header header;	/* as written */
	int dense_threads, dense_vars, dense_locks, dense_locs;
	/* Renumbered ids beyond a field's width, sharing its last value. */
	uint64_t folded_threads, folded_thread_events;
	uint64_t folded_locs, folded_loc_events;
	/* Records tagged with more than one input=N: ids kept apart. */
	int separate;
};

/*
 * What txt2rapidbin says after an input (rapidbin-format.c); header: the
 * RapidBin header was written (not for another sink).
 */
struct tp_say;
void rapidbin_enc_say(const struct rapidbin_enc_stats *st, int header,
    const struct tp_say *say);

/*
 * Text to RapidBin.  Events are spooled (in memory, then in a temporary
 * file under $TMPDIR) until the end of input, because the header and the
 * identity-or-dense decision need the whole trace.  Nothing is written to
 * out unless the whole input is valid.  Returns 0, or -1 with err filled
 * (with the line number where one applies); the reader reports into err.
 */
int rapidbin_encode(struct tr_reader *r, struct tp_out *out,
    const struct rapidbin_enc_opts *opts, struct rapidbin_enc_stats *st,
    struct tp_err *err);

/*
 * Cut RapidBin at any event (formats/split.h): each piece is the
 * header with the piece's own event count, then its events.
 */
struct tp_cutter;
int rapidbin_split(struct tp_in *in, struct tp_cutter *c, struct tp_err *err);

/*
 * RapidBin has no magic: plausible header counts, whole 8-byte events
 * when p holds the whole input, valid operations in the first events.
 * TP_PROBE_MAYBE or TP_PROBE_NO.
 */
int rapidbin_probe(const unsigned char *p, size_t n, char *detail,
    size_t detailsz);

/*
 * The two faults of the event words, one wording for the decoder and
 * the splitter: at the input's position, event index, avail (1-7)
 * bytes left where a word needs 8, or a word of operation op (not
 * valid).  Both fill err and return -1.
 */
struct tp_in;
int rb_fail_truncated(struct tp_in *in, uint64_t index, long avail,
    struct tp_err *err);
int rb_fail_op(struct tp_in *in, uint64_t index, unsigned op,
    struct tp_err *err);
/* The header's 18 bytes into hb: 1, or -1 with err filled. */
int rb_header_read(struct tp_in *in, unsigned char *hb, struct tp_err *err);

#endif
