/*
 * x64dbg trace files (TRAC, *.trace64 / *.trace32): decoder to the text
 * stream and encoder back.
 *
 * A file is "TRAC", a u32 LE JSON length, the JSON header, then blocks.
 * Type 0 describes one instruction: counts, flags (bit 7: a thread id
 * follows; bits 0-3: opcode length), the opcode, delta-coded positions of
 * pointer-sized REGDUMP slots with their values, and up to 32 memory
 * accesses.  Types 0x80-0xff are user blocks (u32 LE length, payload).
 * See trac2txt(1), txt2trac(1), trace-text(5) and the x64dbg reference.
 *
 * The module is pure: it reads a struct tp_in, writes a struct tp_out and
 * reports into a struct tp_err.  It never prints and never exits.
 */
#ifndef TP_TRAC_H
#define TP_TRAC_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "io/input.h"
#include "io/output.h"
#include "text/text.h"

#define TRAC_MAX_SLOTS 216	/* x86; x64 has 172 */
#define TRAC_MAX_ACCESSES 32	/* x64dbg's MAX_MEMORY_OPERANDS */
#define TRAC_MAX_OPCODE 15
#define TRAC_NO_OPCODE 0x90	/* nop, for an insn without bytes= */
#define TRAC_FLAG_TID 0x80
#define TRAC_FLAG_RSVD 0x70
#define TRAC_FLAG_OPLEN 0x0f
#define TRAC_MEM_UNCHANGED 0x01
#define TRAC_HEADER_WARN 16384	/* x64dbg refuses longer JSON headers */
/*
 * The longest JSON header read: escaped as a quoted string (at most 4
 * bytes a byte) it stays well within the text reader's 64 MiB lines.
 */
#define TRAC_HEADER_MAX (8 * 1024 * 1024)
#define TRAC_FULL_DUMP_EVERY 512	/* x64dbg's full-dump period */
/*
 * User block payloads up to this size are one trac-user record; longer
 * ones are written in pieces of this size (trac-user-data records), so
 * that neither side holds a whole block in memory.  Fuzz builds
 * (-DTP_FUZZ) cut small ones, which their inputs can reach.
 */
#ifdef TP_FUZZ
#define TRAC_USER_CHUNK 1024
#else
#define TRAC_USER_CHUNK (1024 * 1024)
#endif

struct trac_arch {
	const char *name;	/* "x64", "x86" */
	unsigned ptrsize;	/* bytes per slot and per memory value */
	unsigned nslots;	/* slots in a full register dump */
	unsigned cip;		/* slot of the instruction pointer */
	const char *const *slot;	/* token of each slot (rax, ...) */
};

extern const struct trac_arch trac_x64, trac_x86;

/* "x64" or "x86", else NULL. */
const struct trac_arch *trac_arch_find(const char *name, size_t n);

/*
 * The largest instruction block: header, thread id, opcode, positions and
 * values of every slot, 32 changed accesses.
 */
static inline size_t
trac_max_block(const struct trac_arch *a)
{
	return 4 + 4 + TRAC_MAX_OPCODE + a->nslots * (1 + a->ptrsize) +
	    TRAC_MAX_ACCESSES * (1 + 3 * a->ptrsize);
}

/* ---------------------------------------------------------------- decoder */

struct trac_dec_opts {
	int allow_truncated;	/* a cut last block ends the trace quietly */
	int repair_tid;		/* undo the pre-PR #3920 thread-id bug */
};

struct trac_dec_stats {
	const struct trac_arch *arch;	/* NULL until the header is read */
	uint64_t header_len;	/* JSON bytes */
	uint64_t blocks;	/* all blocks, user blocks included */
	uint64_t insns;
	uint64_t user_blocks;
	uint64_t accesses;
	uint64_t full_dumps;
	uint64_t repaired_tids;	/* blocks read with tidstored=noflag */
	uint64_t truncated_at;	/* offset of a cut last block, or TP_NONE */
	int first_not_full;	/* the first instruction block is no full dump */
	int compression_set;	/* the JSON's "compression" is not "" */
};

/*
 * Decode a whole trace file into text records.  Returns 0, or -1 with err
 * filled (offset and block index for data errors); the records of every
 * block before the fault have been written.
 */
int trac_decode(struct tp_in *in, struct tp_out *out,
    const struct trac_dec_opts *opts, struct trac_dec_stats *st,
    struct tp_err *err);

/*
 * Cut a trace at full register dumps that store their thread id
 * (formats/split.h): each piece is the header and the blocks from one.
 */
struct tp_cutter;
int trac_split(struct tp_in *in, struct tp_cutter *c, struct tp_err *err);

/* ---------------------------------------------------------------- encoder */

struct trac_enc_opts {
	const struct trac_arch *arch;	/* when the stream has no trac-header */
	int strict;		/* a record trac cannot express is an error */
};

struct trac_enc_stats {
	uint64_t records;	/* records read, comments and blanks excluded */
	uint64_t insns;		/* instruction blocks written */
	uint64_t accesses;
	uint64_t user_blocks;
	struct tr_skips skipped;	/* records trac cannot express */
	uint64_t no_opcode;	/* insn records given TRAC_NO_OPCODE */
	uint64_t op_from_mem;	/* opcodes from the memory the stream wrote */
	uint64_t first_no_opcode_line;
	int dump_added;		/* the first block was made a full dump */
	uint64_t unknown;	/* instructions with registers not given */
	uint64_t first_unknown_line;
	unsigned first_unknown_regs;	/* how many there */
};

/*
 * Encode text records into a trace file.  Returns 0, or -1 with err filled
 * (line and column for data errors); the reader reports into err.
 */
int trac_encode(struct tr_reader *r, struct tp_out *out,
    const struct trac_enc_opts *opts, struct trac_enc_stats *st,
    struct tp_err *err);

/* "TRAC", a sane JSON length and '{': TP_PROBE_YES, else TP_PROBE_NO. */
int trac_probe(const unsigned char *p, size_t n, char *detail,
    size_t detailsz);

#endif
