/*
 * Usercorn traces (UCIR): decoder to the text stream and encoder back.
 *
 * Two formats share the magic "UCIR":
 * - the replay format of usercorn's 2016 PROTOCOL.md ("replay" here): an
 *   80-byte big-endian header (version, Unicorn arch and mode, arch and
 *   os names), then OP_FRAME messages, each holding a zlib stream of
 *   big-endian ops.  Read and written.
 * - the format `usercorn run -trace` writes since 2017 ("trace" here): a
 *   74-byte header, then one Snappy framing-format stream of little-endian
 *   ops (KEYFRAME, FRAME, JMP, STEP, MEM_PROT ...).  Read, and written
 *   on request; told apart by the Snappy stream identifier at offset 74.
 * See ucir2txt(1), txt2ucir(1), trace-text(5) and the usercorn reference.
 *
 * The module is pure: it never prints and never exits.
 */
#ifndef TP_UCIR_H
#define TP_UCIR_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "io/input.h"
#include "io/output.h"
#include "text/text.h"

#define UCIR_REPLAY_HEADER 80
#define UCIR_TRACE_HEADER 74
#define UCIR_NAME_LEN 32	/* arch and os names, NUL-padded */
/*
 * The largest frame (compressed and inflated) and the largest op held in
 * memory, by default: a frame that claims or inflates to more is refused
 * before it is allocated.
 */
#define UCIR_MAX_FRAME (64u * 1024 * 1024)
/* The longest data of one op: its hex must fit a text line. */
#define UCIR_MAX_DATA (16u * 1024 * 1024)
#define UCIR_MAX_DEPTH 16	/* syscalls inside syscalls */
/* Ops per frame when the encoder frames a stream without ucir-frame. */
#define UCIR_FRAME_OPS 4096

enum ucir_variant { UCIR_REPLAY = 0, UCIR_TRACE = 1 };

/* Replay-format op numbers (the spec's table). */
enum {
	UCIR_OP_NOP, UCIR_OP_FRAME, UCIR_OP_EXEC_ABS, UCIR_OP_EXEC_REL,
	UCIR_OP_REG_CHANGE, UCIR_OP_SPREG_CHANGE, UCIR_OP_MEM_READ,
	UCIR_OP_MEM_WRITE, UCIR_OP_MEM_MAP, UCIR_OP_MEM_UNMAP,
	UCIR_OP_SYSCALL, UCIR_OP_EXIT, UCIR_NOPS
};

/* Trace-format op numbers (usercorn go/models/trace/ops.go). */
enum {
	UCIR_T_NOP, UCIR_T_FRAME, UCIR_T_KEYFRAME, UCIR_T_JMP, UCIR_T_STEP,
	UCIR_T_REG, UCIR_T_SPREG, UCIR_T_MEM_READ, UCIR_T_MEM_WRITE,
	UCIR_T_MEM_MAP, UCIR_T_MEM_UNMAP, UCIR_T_MEM_PROT, UCIR_T_SYSCALL,
	UCIR_T_EXIT, UCIR_T_NOPS
};

/* The register table of an arch name ("x86_64", "arm"...), else NULL. */
const struct ucir_regs *ucir_regs_find(const char *arch, size_t n);

/* ---------------------------------------------------------------- decoder */

/* Zeros are the defaults. */
struct ucir_dec_opts {
	size_t max_frame;	/* 0: UCIR_MAX_FRAME */
	int verify_level;	/* check every frame's level (see stats) */
};

struct ucir_dec_stats {
	int variant;		/* enum ucir_variant, once the header is read */
	int header_done;
	char arch[UCIR_NAME_LEN + 1];
	uint64_t frames, keyframes;
	uint64_t ops;		/* all ops, nested ones included */
	uint64_t insns, reads, writes, syscalls;
	uint64_t inflated;	/* bytes of ops (after zlib or Snappy) */
	uint64_t chunks;	/* Snappy chunks (trace format) */
	/*
	 * Frames no zlib level reproduces (written by another deflater); with
	 * verify_level this includes the frames whose header bits allow only
	 * one level, which are otherwise not tried.
	 */
	uint64_t level_guessed;
};

/*
 * Decode a whole file into text records.  Returns 0, or -1 with err
 * filled (offset of the frame or chunk, frame index); the records of
 * every frame before the fault have been written.
 */
int ucir_decode(struct tp_in *in, struct tp_out *out,
    const struct ucir_dec_opts *opts, struct ucir_dec_stats *st,
    struct tp_err *err);

/*
 * Cut the trace into traces a reader can start (formats/split.h): each
 * piece is the header, the setup keyframe restated, then whole frames.
 */
#include "formats/split.h"
int ucir_split(struct tp_in *in, struct tp_cutter *c, struct tp_err *err);

/* ---------------------------------------------------------------- encoder */

/* Zeros are the defaults (in brackets). */
struct ucir_enc_opts {
	const char *arch;	/* header when the stream has none [x86_64] */
	const char *os;		/* [linux] */
	int level_plus1;	/* zlib level + 1 of frames made here [6] */
	unsigned frame_ops;	/* ops per frame made here [UCIR_FRAME_OPS] */
	size_t max_frame;	/* [UCIR_MAX_FRAME] */
	int strict;		/* a record the format cannot hold is an error */
	int trace;		/* write usercorn's trace format, not a replay */
};

struct ucir_enc_stats {
	uint64_t records;	/* records read, comments and blanks excluded */
	uint64_t frames, frames_made;	/* written; made without ucir-frame */
	uint64_t ops;
	struct tr_skips skipped;	/* records the format cannot hold */
	uint64_t unnested;	/* depth= records whose syscall was gone */
	int header_made;	/* the stream had no ucir-header */
	int ambiguous;		/* refused: a header alone that would read as
				   a cut usercorn trace (see ucir2txt(1)) */
};

/*
 * Encode text records into a replay-format file (opts->trace: a trace,
 * as usercorn run -trace writes).  Returns 0, or -1 with
 * err filled (line and column for data errors).
 */
int ucir_encode(struct tr_reader *r, struct tp_out *out,
    const struct ucir_enc_opts *opts, struct ucir_enc_stats *st,
    struct tp_err *err);

/* TP_PROBE_YES for "UCIR" (detail: "replay, x86_64" or "trace, arm"). */
int ucir_probe(const unsigned char *p, size_t n, char *detail,
    size_t detailsz);

#define UCIR_LEVEL 6		/* zlib's default */

#endif
