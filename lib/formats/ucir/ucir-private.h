/*
 * Usercorn traces: what the module's files (ucir.c the decoder, ucir-enc.c
 * the encoder, ucir-regs.c the arches and registers) share, and nothing
 * outside them uses.
 */
#ifndef TP_UCIR_PRIVATE_H
#define TP_UCIR_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "formats/ucir/ucir.h"

#define UCIR_MAX_REGS 300
#define UCIR_REG_HASH 1024

struct ucir_regs {
	const char *arch;
	const char *src;
	int ready;
	unsigned n;
	const char *name[UCIR_MAX_REGS];	/* the name written */
	struct {
		const char *s;
		unsigned short len, num;
	} h[UCIR_REG_HASH];		/* every name and alias */
	char buf[1600];
};

/* Unicorn's uc_arch values and the name the text gives each, else NULL. */
const char *ucir_uc_arch_name(uint32_t uc_arch);
/* The uc_arch of a name ucir_uc_arch_name gives, or -1. */
int ucir_uc_arch_num(const char *name, size_t n);
const struct ucir_regs *ucir_regs_of_uc_arch(uint32_t uc_arch);
/* The number of the register named name (aliases too), or -1. */
int ucir_reg_num(const struct ucir_regs *t, const char *name, size_t n);

/*
 * The name of register num, or NULL (numbers are written then): inline,
 * as the decoder asks it for every register op.
 */
static inline const char *
ucir_reg_name(const struct ucir_regs *t, unsigned num)
{
	return t != NULL && num < t->n ? t->name[num] : NULL;
}

/*
 * x64dbg's register dumps (ucir-x64dbg.c): a Unicorn x86 register and
 * where it lies in REGDUMP's bytes, on x64 and on x86 (num86 0: none);
 * len 0: pointer-sized (8 bytes on x64, 4 on x86).
 */
struct ucir_xreg {
	unsigned short num64, num86, off64, off86;
	unsigned char len, spreg;
};
struct ucir_xrange {
	unsigned short off, len;
};
#define UCIR_XDBG_BYTES 1376	/* x64's dump; x86's is 864 */

/* The slot trac2txt names name (x86 or x64 dump), or -1. */
int ucir_xdbg_slot(int x86, const char *name, size_t n);
unsigned ucir_xdbg_nslots(int x86);
const struct ucir_xreg *ucir_xdbg_regs(size_t *n);
/* The bytes of the dump Unicorn has no register for. */
const struct ucir_xrange *ucir_xdbg_noenum(int x86, size_t *n);

/*
 * The Snappy framing-format stream of usercorn's trace format, as its
 * Go reader reads it (ucir-trace-enc.c): the stream identifier, then the
 * bytes in stored chunks of 64 KiB (the framing format's uncompressed
 * chunk, which every reader takes and needs no libsnappy).
 */
struct ucir_sw {
	size_t len;
	int started;
	unsigned char buf[65536];
};
void ucir_sw_put(struct ucir_sw *w, struct tp_out *out, const void *p,
    size_t n);
void ucir_sw_flush(struct ucir_sw *w, struct tp_out *out);

/*
 * The decoder's walk for the splitter (ucir-split.c): header gets the
 * file's header bytes (trace: 1 for the trace format); frame is called at
 * each top-level frame once it is known good, with the input offset it
 * starts at (the trace format: its chunk's), the records written before
 * it, whether it is a keyframe and its header bytes (replay: the 10-byte
 * OP_FRAME header; trace: the 13-byte op); bytes then gets the rest of
 * it (replay: the zlib data; trace: each op, inflated), with first: 0
 * while the frame has had no instruction or memory access op, 1 when
 * the first of those needs no state before the frame (a JMP, an
 * EXEC_ABS whose text is the same in the whole and after the setup
 * keyframe: a piece may start there), 2 when it does (an access's pc,
 * an EXEC_REL's or STEP's address) (the first frame, when a keyframe, is what a piece
 * restates before it).  Each returns 0, or -1 with the walk's err
 * filled.
 */
struct ucir_hook {
	int (*header)(void *ctx, const unsigned char *p, size_t n, int trace);
	int (*frame)(void *ctx, uint64_t off, uint64_t records, int key,
	    const unsigned char *p, size_t n);
	int (*bytes)(void *ctx, const unsigned char *p, size_t n, int first);
	void *ctx;
};
int ucir_walk(struct tp_in *in, struct tp_out *out,
    const struct ucir_hook *hook, struct tp_err *err);

#endif
