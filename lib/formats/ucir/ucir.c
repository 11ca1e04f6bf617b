/*
 * Usercorn traces: the decoder (ucir2txt); the encoder (txt2ucir) is
 * ucir-enc.c, the arches and registers ucir-regs.c.
 *
 * Facts used here, from the reference (shared/reference/usercorn.md):
 * - The replay format is usercorn's 2016 PROTOCOL.md: 80-byte big-endian
 *   header, OP_FRAME messages of zlib-compressed big-endian ops.  Its op
 *   rows carry copy-paste errors; each table's title is right.  Widths
 *   are the spec's tables (EXEC size u32, MEM_MAP/UNMAP size u32, SYSCALL
 *   num u16), not the never-used 2016 Go code's.  Sub-ops carry their op
 *   byte, a keyframe flag is non-zero (the Go writer inverted it).
 * - The trace format (usercorn run -trace, 2017 on): 74-byte header (magic,
 *   version u32 BE, arch[32], os[32], code and data byte order), then one
 *   Snappy framing stream of little-endian ops, FRAME and KEYFRAME at top
 *   level carrying pid u64 and count u32; nested frames are refused.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "base/grow.h"
#include "base/snappyframe.h"
#include "formats/probe.h"
#include "formats/ucir/ucir-private.h"
#include "io/zframe.h"
#include "text/text.h"

/* ---------------------------------------------------------------- decoder */

enum { OP_BAD = -1, OP_SHORT = -2 };

/* The chunk each stretch of the Snappy stream came from (diagnostics). */
struct chunk_at {
	uint64_t soff, foff;	/* stream offset of its first byte; file offset */
};

struct dec {
	struct tp_out *out;
	struct ucir_dec_stats *st;
	const struct ucir_regs *regs;
	size_t max;
	int trace;		/* little-endian trace-format ops */
	int verify;		/* try even an unambiguous zlib level */
	uint64_t tid;		/* the frame's pid (trace), else 0 */
	uint64_t pc;		/* instruction the accesses belong to */
	uint64_t next;		/* replay: where EXEC_REL's instruction is */
	char why[160];		/* what is wrong with an op */
	size_t at;		/* where: offset in the buffer walked */
	struct zframe z;
	struct zf_buf comp, raw, scratch;
	/* The trace format's decompressed stream: sb.p[spos..sb.len). */
	struct zf_buf sb, chunk;
	size_t spos;
	uint64_t sbase;		/* stream offset of sb.p[0] */
	struct chunk_at *cmap;
	size_t ncmap, capcmap;
	size_t cstride, cskip;	/* a chunk in cstride is kept (CMAP_MAX) */
	struct tp_snappy sn;
	uint64_t frame_ix;	/* the frame being read, for diagnostics */
	const struct ucir_hook *hook;	/* the splitter's (ucir-split.c) */
	/*
	 * For the splitter, whether the frame read starts afresh: 0 till
	 * its first instruction or access op, then 1 when that op needs
	 * nothing before it (a JMP; an EXEC_ABS whose pc the text marks
	 * neither in the whole nor after the setup), else 2 (an access
	 * names the instruction before).  3 when not splitting.
	 */
	int first;
	uint64_t setup_next;	/* replay: next after the setup keyframe */
};

static uint16_t
g16(const struct dec *d, const unsigned char *p)
{
	return d->trace ? tp_get_le16(p) : tp_get_be16(p);
}

static uint64_t
g64(const struct dec *d, const unsigned char *p)
{
	return d->trace ? tp_get_le64(p) : tp_get_be64(p);
}

static long
op_bad(struct dec *d, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static long
op_bad(struct dec *d, size_t at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->why, sizeof d->why, fmt, ap);
	va_end(ap);
	d->at = at;
	return OP_BAD;
}

static void
rec_begin(struct dec *d, const char *kind, unsigned depth)
{
	tw_begin(d->out, kind);
	tw_u64(d->out, "tid", d->tid);
	if (depth > 0)
		tw_u64(d->out, "depth", depth);
}

static void
put_reg(struct dec *d, unsigned num)
{
	const char *name = ucir_reg_name(d->regs, num);

	if (name != NULL)
		tw_str(d->out, "reg", name, strlen(name));
	else
		tw_u64(d->out, "reg", num);
}

static void
put_prot(struct dec *d, unsigned prot)
{
	char s[3];

	if (prot > 7) {
		tw_hex(d->out, "prot", prot);
		return;
	}
	s[0] = prot & 1 ? 'r' : '-';
	s[1] = prot & 2 ? 'w' : '-';
	s[2] = prot & 4 ? 'x' : '-';
	tw_str(d->out, "prot", s, 3);
}

/*
 * The hot records (insn, read, write, reg) are formatted straight into the
 * output buffer, without the writer's per-field calls.  Each starts with
 * "KIND tid=N" and " depth=D" inside a syscall.
 */
#define FAST_DATA 4096	/* longer data goes through tw_bytes */

static char *
fast_head(struct dec *d, char *p, const char *kind, size_t klen,
    unsigned depth)
{
	memcpy(p, kind, klen);
	memcpy(p + klen, " tid=", 5);
	p = tp_fmt_u64_wide(p + klen + 5, d->tid);
	if (depth > 0) {
		memcpy(p, " depth=", 7);
		p = tp_fmt_u64_wide(p + 7, depth);
	}
	return p;
}

static void
put_insn(struct dec *d, unsigned depth, uint64_t pc, uint64_t size, int abs)
{
	char *p = fast_head(d, tp_out_reserve(d->out, 128), "insn", 4, depth);

	memcpy(p, " pc=", 4);
	p = tp_fmt_hex_wide(p + 4, pc);
	memcpy(p, " size=", 6);
	p = tp_fmt_u64_wide(p + 6, size);
	if (abs) {
		memcpy(p, " exec=abs", 9);
		p += 9;
	}
	*p++ = '\n';
	tp_out_commit(d->out, p);
	d->st->insns++;
}

static void
put_access(struct dec *d, int write, unsigned depth, uint64_t addr,
    uint64_t size, const unsigned char *data, int has_data)
{
	int fast = !has_data || size <= FAST_DATA;
	char *p = tp_out_reserve(d->out, 128 + (fast && has_data ?
	    2 * (size_t)size : 0));

	p = write ? fast_head(d, p, "write", 5, depth) :
	    fast_head(d, p, "read", 4, depth);
	memcpy(p, " pc=", 4);
	p = tp_fmt_hex_wide(p + 4, d->pc);
	memcpy(p, " addr=", 6);
	p = tp_fmt_hex_wide(p + 6, addr);
	memcpy(p, " size=", 6);
	p = tp_fmt_u64_wide(p + 6, size);
	if (has_data && fast) {
		memcpy(p, " data=", 6);
		p = tp_fmt_hexbytes(p + 6, data, (size_t)size);
	}
	if (!fast) {
		tp_out_commit(d->out, p);
		tw_bytes(d->out, "data", data, (size_t)size);
		p = tp_out_reserve(d->out, 1);
	}
	*p++ = '\n';
	tp_out_commit(d->out, p);
	if (write)
		d->st->writes++;
	else
		d->st->reads++;
}

static void
put_reg_value(struct dec *d, unsigned depth, unsigned num, uint64_t value)
{
	const char *name = ucir_reg_name(d->regs, num);
	char *p = fast_head(d, tp_out_reserve(d->out, 128), "ucir-reg", 8,
	    depth);

	memcpy(p, " reg=", 5);
	p += 5;
	if (name != NULL) {
		size_t n = strlen(name);
		memcpy(p, name, n);
		p += n;
	} else {
		p = tp_fmt_u64_wide(p, num);
	}
	memcpy(p, " value=", 7);
	p = tp_fmt_hex_wide(p + 7, value);
	*p++ = '\n';
	tp_out_commit(d->out, p);
}

static const char *const replay_op_name[UCIR_NOPS] = {
	"NOP", "FRAME", "EXEC_ABS", "EXEC_REL", "REG_CHANGE", "SPREG_CHANGE",
	"MEM_READ", "MEM_WRITE", "MEM_MAP", "MEM_UNMAP", "SYSCALL", "EXIT"
};
static const char *const trace_op_name[UCIR_T_NOPS] = {
	"NOP", "FRAME", "KEYFRAME", "JMP", "STEP", "REG", "SPREG", "MEM_READ",
	"MEM_WRITE", "MEM_MAP", "MEM_UNMAP", "MEM_PROT", "SYSCALL", "EXIT"
};

/* Fixed op sizes (op byte included), 0 where the size varies. */
static const unsigned char replay_fixed[UCIR_NOPS] = {
	1, 0, 13, 5, 11, 0, 0, 0, 14, 13, 0, 1
};
static const unsigned char trace_fixed[UCIR_T_NOPS] = {
	1, 0, 0, 13, 2, 11, 0, 13, 0, 0, 17, 18, 0, 1
};

static long op_walk(struct dec *d, const unsigned char *p, size_t n,
    size_t at, unsigned depth, int emit);

/*
 * A syscall: header, arguments, then its ops one level deeper.  Same
 * returns as op_walk.
 */
static long
syscall_walk(struct dec *d, const unsigned char *p, size_t n, size_t at,
    unsigned depth, int emit)
{
	size_t hl = d->trace ? 16 : 15, len;
	unsigned argc, count, i;
	uint64_t num;

	if (n < hl)
		return OP_SHORT;
	if (d->trace) {
		num = tp_get_le32(p + 1);
		argc = p[13];
		count = tp_get_le16(p + 14);
	} else {
		num = tp_get_be16(p + 1);
		argc = tp_get_be16(p + 11);
		count = tp_get_be16(p + 13);
	}
	if (depth + 1 >= UCIR_MAX_DEPTH)
		return op_bad(d, at, "syscalls nested deeper than %d",
		    UCIR_MAX_DEPTH);
	len = hl + 8 * (size_t)argc;
	if (n < len)
		return OP_SHORT;
	if (emit) {
		rec_begin(d, "ucir-syscall", depth);
		tw_u64(d->out, "num", num);
		tw_hex(d->out, "ret", g64(d, p + (d->trace ? 5 : 3)));
		tw_key(d->out, "args");
		tv_open_list(d->out);
		for (i = 0; i < argc; i++) {
			if (i > 0)
				tv_sep(d->out);
			tv_hex(d->out, g64(d, p + hl + 8 * (size_t)i));
		}
		tv_close_list(d->out);
		tw_end(d->out);
		d->st->syscalls++;
	}
	for (i = 0; i < count; i++) {
		long k = op_walk(d, p + len, n - len, at + len, depth + 1, emit);
		if (k < 0)
			return k;
		len += (size_t)k;
	}
	return (long)len;
}

/*
 * One op at p (n bytes available, at its offset for messages): its whole
 * length, OP_SHORT when n is too few bytes, or OP_BAD with d->why.  With
 * emit it also writes its records; without, it only checks.
 */
static long
op_walk(struct dec *d, const unsigned char *p, size_t n, size_t at,
    unsigned depth, int emit)
{
	unsigned op = p[0], nops = d->trace ? UCIR_T_NOPS : UCIR_NOPS;
	const unsigned char *fixed = d->trace ? trace_fixed : replay_fixed;
	uint64_t v, size;
	size_t len;

	if (n == 0)
		return OP_SHORT;
	if (op >= nops)
		return op_bad(d, at, "unknown op %u (0-%u)", op, nops - 1);
	if (op == UCIR_OP_FRAME || (d->trace && op == UCIR_T_KEYFRAME))
		return op_bad(d, at, "OP_%s inside a %s", d->trace ?
		    trace_op_name[op] : replay_op_name[op], depth > 0 ?
		    "syscall" : "frame");
	len = fixed[op];
	if (len > 0 && n < len)
		return OP_SHORT;
	if (d->trace) {
		switch (op) {
		case UCIR_T_NOP:
		case UCIR_T_EXIT:
			if (emit) {
				rec_begin(d, op == UCIR_T_NOP ? "ucir-nop" :
				    "ucir-exit", depth);
				tw_end(d->out);
			}
			break;
		case UCIR_T_JMP:
			if (emit) {
				d->pc = tp_get_le64(p + 1);
				rec_begin(d, "ucir-jmp", depth);
				tw_hex(d->out, "pc", d->pc);
				tw_u64(d->out, "size", tp_get_le32(p + 9));
				tw_end(d->out);
			}
			break;
		case UCIR_T_STEP:
			if (emit) {
				put_insn(d, depth, d->pc, p[1], 0);
				d->pc += p[1];
			}
			break;
		case UCIR_T_MEM_READ:
			if (emit)
				put_access(d, 0, depth, tp_get_le64(p + 1),
				    tp_get_le32(p + 9), NULL, 0);
			break;
		case UCIR_T_MEM_WRITE:
			if (n < 13)
				return OP_SHORT;
			size = tp_get_le32(p + 9);
			if (size > UCIR_MAX_DATA)
				return op_bad(d, at, "MEM_WRITE of %llu bytes: more "
				    "than %u", (unsigned long long)size,
				    UCIR_MAX_DATA);
			len = 13 + (size_t)size;
			if (n < len)
				return OP_SHORT;
			if (emit)
				put_access(d, 1, depth, tp_get_le64(p + 1),
				    size, p + 13, 1);
			break;
		case UCIR_T_MEM_MAP: {
			unsigned dl, fl;
			if (n < 38)
				return OP_SHORT;
			dl = tp_get_le16(p + 34);
			fl = tp_get_le16(p + 36);
			len = 38 + (size_t)dl + fl;
			if (n < len)
				return OP_SHORT;
			if (emit) {
				rec_begin(d, "ucir-map", depth);
				tw_hex(d->out, "addr", tp_get_le64(p + 1));
				tw_u64(d->out, "size", tp_get_le64(p + 9));
				put_prot(d, p[17]);
				tw_hex(d->out, "off", tp_get_le64(p + 18));
				tw_u64(d->out, "len", tp_get_le64(p + 26));
				tw_str(d->out, "desc", p + 38, dl);
				tw_str(d->out, "file", p + 38 + dl, fl);
				tw_end(d->out);
			}
			break;
		}
		case UCIR_T_MEM_UNMAP:
		case UCIR_T_MEM_PROT:
			if (emit) {
				rec_begin(d, op == UCIR_T_MEM_UNMAP ? "ucir-unmap" :
				    "ucir-prot", depth);
				tw_hex(d->out, "addr", tp_get_le64(p + 1));
				tw_u64(d->out, "size", tp_get_le64(p + 9));
				if (op == UCIR_T_MEM_PROT)
					put_prot(d, p[17]);
				tw_end(d->out);
			}
			break;
		case UCIR_T_REG:
		case UCIR_T_SPREG:
			goto reg;
		case UCIR_T_SYSCALL:
			goto syscall;
		}
		goto done;
	}

	switch (op) {
	case UCIR_OP_NOP:
	case UCIR_OP_EXIT:
		if (emit) {
			rec_begin(d, op == UCIR_OP_NOP ? "ucir-nop" : "ucir-exit",
			    depth);
			tw_end(d->out);
		}
		break;
	case UCIR_OP_EXEC_ABS:
	case UCIR_OP_EXEC_REL:
		if (d->first == 0)
			d->first = op == UCIR_OP_EXEC_ABS && tp_get_be64(p + 1) !=
			    d->next && tp_get_be64(p + 1) != d->setup_next ? 1 : 2;
		if (emit) {
			uint64_t pc = op == UCIR_OP_EXEC_ABS ?
			    tp_get_be64(p + 1) : d->next;
			uint32_t isz = tp_get_be32(op == UCIR_OP_EXEC_ABS ?
			    p + 9 : p + 1);
			/* txt2ucir writes EXEC_REL where it can. */
			put_insn(d, depth, pc, isz, op == UCIR_OP_EXEC_ABS &&
			    pc == d->next);
			d->pc = pc;
			d->next = pc + isz;
		}
		break;
	case UCIR_OP_REG_CHANGE:
	case UCIR_OP_SPREG_CHANGE:
		goto reg;
	case UCIR_OP_MEM_READ:
	case UCIR_OP_MEM_WRITE:
		if (d->first == 0)	/* of the instruction before */
			d->first = 2;
		if (n < 17)
			return OP_SHORT;
		size = tp_get_be64(p + 9);
		if (size > UCIR_MAX_DATA)
			return op_bad(d, at, "%s of %llu bytes: more than %u",
			    replay_op_name[op], (unsigned long long)size,
			    UCIR_MAX_DATA);
		len = 17 + (size_t)size;
		if (n < len)
			return OP_SHORT;
		if (emit)
			put_access(d, op == UCIR_OP_MEM_WRITE, depth,
			    tp_get_be64(p + 1), size, p + 17, 1);
		break;
	case UCIR_OP_MEM_MAP:
	case UCIR_OP_MEM_UNMAP:
		if (emit) {
			rec_begin(d, op == UCIR_OP_MEM_MAP ? "ucir-map" :
			    "ucir-unmap", depth);
			tw_hex(d->out, "addr", tp_get_be64(p + 1));
			tw_u64(d->out, "size", tp_get_be32(p + 9));
			if (op == UCIR_OP_MEM_MAP)
				put_prot(d, p[13]);
			tw_end(d->out);
		}
		break;
	case UCIR_OP_SYSCALL:
		goto syscall;
	}
	goto done;

reg:
	/* REG and SPREG have the same layout in both formats. */
	if (op == (d->trace ? UCIR_T_REG : UCIR_OP_REG_CHANGE)) {
		if (emit)
			put_reg_value(d, depth, g16(d, p + 1), g64(d, p + 3));
	} else {
		if (n < 5)
			return OP_SHORT;
		v = g16(d, p + 3);
		len = 5 + (size_t)v;
		if (n < len)
			return OP_SHORT;
		if (emit) {
			rec_begin(d, "ucir-spreg", depth);
			put_reg(d, g16(d, p + 1));
			tw_bytes(d->out, "data", p + 5, (size_t)v);
			tw_end(d->out);
		}
	}
	goto done;

syscall: {
	long k = syscall_walk(d, p, n, at, depth, emit);
	if (k < 0)
		return k;
	len = (size_t)k;
	}
done:
	if (emit)
		d->st->ops++;
	return (long)len;
}

/* Walk the ops of an inflated replay frame: check (emit 0) or write. */
static int
frame_ops(struct dec *d, const unsigned char *p, size_t n, uint32_t count,
    int emit, struct tp_err *err)
{
	size_t pos = 0;
	uint64_t k = 0;

	while (pos < n) {
		long len = op_walk(d, p + pos, n - pos, pos, 0, emit);
		if (len == OP_SHORT)
			return tp_fail(err, TP_EXIT_DATA, "op at byte 0x%zx of "
			    "the inflated frame (%zu bytes): cut by the frame's "
			    "end", pos, n);
		if (len < 0)
			return tp_fail(err, TP_EXIT_DATA, "byte 0x%zx of the "
			    "inflated frame: %s", d->at, d->why);
		pos += (size_t)len;
		k++;
	}
	if (k != count)
		return tp_fail(err, TP_EXIT_DATA, "the frame header says %u "
		    "ops, its data holds %llu", count, (unsigned long long)k);
	return 0;
}

static int
decode_replay(struct dec *d, struct tp_in *in, struct tp_err *err)
{
	struct ucir_dec_stats *st = d->st;

	for (;;) {
		uint64_t off = tp_in_offset(in);
		unsigned char h[10];
		uint32_t count, size;
		int rc, level, exact;

		err->offset = off;
		err->index = st->frames;
		err->unit = "frame";
		if ((rc = tp_in_exact(in, h, 1, "op")) <= 0)
			return rc;
		if (h[0] != UCIR_OP_FRAME)
			return tp_fail(err, TP_EXIT_DATA, "op %u at top level: "
			    "a replay file holds OP_FRAME (1) messages only",
			    h[0]);
		if ((rc = tp_in_exact(in, h + 1, 9, "frame header")) <= 0) {
			if (rc == 0)
				tp_fail(err, TP_EXIT_DATA, "truncated frame "
				    "header: needed 9 bytes after the op, none left");
			err->offset = off;
			return -1;
		}
		count = tp_get_be32(h + 2);
		size = tp_get_be32(h + 6);
		if (size > d->max)
			return tp_fail(err, TP_EXIT_DATA, "frame of %u compressed "
			    "bytes: more than the limit of %zu (--max-frame)",
			    size, d->max);
		if (zf_buf_reserve(&d->comp, size) < 0)
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
		rc = size == 0 ? 0 : tp_in_exact(in, d->comp.p, size,
		    "frame data");
		if (rc <= 0 && size > 0) {
			if (rc == 0)
				tp_fail(err, TP_EXIT_DATA, "truncated frame data: "
				    "needed %u bytes, none left", size);
			err->offset = off;
			return -1;
		}
		rc = zf_inflate(&d->z, d->comp.p, size, &d->raw, d->max);
		if (rc == ZF_TOO_BIG)
			return tp_fail(err, TP_EXIT_DATA, "frame data inflates "
			    "to more than the limit of %zu bytes (--max-frame): "
			    "refused", d->max);
		if (rc < 0)	/* out of memory is a system error */
			return tp_fail(err, rc == ZF_NOMEM ? TP_EXIT_FAIL :
			    TP_EXIT_DATA, "frame data (%u bytes): %s at byte %zu",
			    size, d->z.msg, d->z.in_used);
		if (d->hook != NULL) {
			if (st->frames == 1 && st->keyframes == 1)
				d->setup_next = d->next;
			d->first = 0;
		}
		if (frame_ops(d, d->raw.p, d->raw.len, count, 0, err) < 0)
			return -1;
		level = zf_level_of(&d->z, d->comp.p, size, d->raw.p,
		    d->raw.len, &d->scratch, d->verify, &exact);
		if (level < 0)
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
		st->level_guessed += exact == 0;
		if (d->hook != NULL && (d->hook->frame(d->hook->ctx, off,
		    st->ops, h[1] != 0, h, 10) < 0 || d->hook->bytes(
		    d->hook->ctx, d->comp.p, size, d->first) < 0))
			return -1;
		rec_begin(d, "ucir-frame", 0);
		tw_bool(d->out, "keyframe", h[1] != 0);
		tw_u64(d->out, "level", (unsigned)level);
		if (h[1] > 1)
			tw_hex(d->out, "flag", h[1]);
		tw_end(d->out);
		st->frames++;
		st->ops++;
		st->keyframes += h[1] != 0;
		st->inflated += d->raw.len;
		if (frame_ops(d, d->raw.p, d->raw.len, count, 1, err) < 0)
			return -1;
	}
}

/* ------------------------------------------------- the trace format's stream */

/*
 * The chunks of the unread stream remembered at most: an op of 16 MiB in
 * 1-byte chunks would take 16 bytes a chunk, 256 MiB.  Past it every
 * other one is dropped and half as many kept from then on, so a fault
 * deep in such an op names a chunk at or before its own.
 */
#define CMAP_MAX 4096

/* Remember which file offset the stream bytes from soff on came from. */
static int
cmap_add(struct dec *d, uint64_t soff, uint64_t foff)
{
	if (d->cstride > 1 && d->cskip++ % d->cstride != 0)
		return 0;
	if (d->ncmap == CMAP_MAX) {
		size_t i;
		for (i = 0; i < CMAP_MAX / 2; i++)
			d->cmap[i] = d->cmap[2 * i];
		d->ncmap = CMAP_MAX / 2;
		d->cstride = d->cstride > 1 ? 2 * d->cstride : 2;
		d->cskip = 1;
	}
	if (tp_grow(&d->cmap, &d->capcmap, d->ncmap + 1, sizeof *d->cmap) < 0)
		return -1;
	d->cmap[d->ncmap].soff = soff;
	d->cmap[d->ncmap].foff = foff;
	d->ncmap++;
	return 0;
}

/* The file offset of the chunk holding stream byte soff. */
static uint64_t
cmap_find(const struct dec *d, uint64_t soff)
{
	size_t i = d->ncmap;

	while (i > 0 && d->cmap[i - 1].soff > soff)
		i--;
	return i > 0 ? d->cmap[i - 1].foff : UCIR_TRACE_HEADER;
}

/*
 * Append the next data chunk's bytes to the stream buffer.  1, 0 at the
 * end of the file, -1 with err (offset: the chunk).
 */
static int
sn_more(struct dec *d, struct tp_in *in, struct tp_err *err)
{
	for (;;) {
		uint64_t foff = tp_in_offset(in);
		unsigned char h[4];
		uint32_t len;
		size_t n;
		int rc;

		if ((rc = tp_in_exact(in, h, 4, "Snappy chunk header")) <= 0) {
			err->offset = foff;
			return rc;
		}
		err->offset = foff;
		err->index = d->st->chunks;
		err->unit = "chunk";
		if (tp_snappy_head(&d->sn, h, &len, err) < 0)
			return -1;
		if (zf_buf_reserve(&d->chunk, len) < 0)
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
		if ((rc = tp_in_exact(in, d->chunk.p, len,
		    "Snappy chunk")) <= 0) {
			if (rc == 0 && len > 0)
				tp_fail(err, TP_EXIT_DATA, "truncated Snappy chunk: "
				    "needed %u bytes, none left", len);
			err->offset = foff;
			if (rc < 0 || len > 0)
				return -1;
		}
		d->st->chunks++;
		rc = tp_snappy_body(&d->sn, h[0], d->chunk.p, len, &n, err);
		if (rc == TP_SNAPPY_NOLIB)
			return tp_fail(err, TP_EXIT_FAIL, "Snappy-compressed "
			    "chunk: this program was built without libsnappy "
			    "(Debian: libsnappy-dev), so it reads only the stored "
			    "chunks of a usercorn trace");
		if (rc < 0)
			return -1;
		if (rc == 0)
			continue;
		if (zf_buf_reserve(&d->sb, d->sb.len + n) < 0)
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
		if (tp_snappy_data(h[0], d->chunk.p, len, d->sb.p + d->sb.len, n,
		    err) < 0)
			return -1;
		if (n == 0)
			continue;
		if (cmap_add(d, d->sbase + d->sb.len, foff) < 0)
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
		d->sb.len += n;
		d->st->inflated += n;
		return 1;
	}
}

/*
 * At least n bytes at sb.p + spos.  Returns how many are there (fewer
 * than n only at the end of the file), or -1.
 */
static long
sn_need(struct dec *d, struct tp_in *in, size_t n, struct tp_err *err)
{
	while (d->sb.len - d->spos < n) {
		int rc;
		if (d->spos > 0) {
			/* Keep only the unread bytes, and their chunk offsets. */
			size_t keep = d->sb.len - d->spos, i = 0;
			memmove(d->sb.p, d->sb.p + d->spos, keep);
			d->sbase += d->spos;
			d->sb.len = keep;
			d->spos = 0;
			while (i + 1 < d->ncmap && d->cmap[i + 1].soff <= d->sbase)
				i++;
			memmove(d->cmap, d->cmap + i, (d->ncmap - i) *
			    sizeof *d->cmap);
			d->ncmap -= i;
			if (d->ncmap <= 1)
				d->cstride = 1;	/* the long op is read */
		}
		if ((rc = sn_more(d, in, err)) < 0)
			return -1;
		if (rc == 0)
			break;
	}
	return (long)(d->sb.len - d->spos);
}

/* A fault at stream byte soff: the chunk it is in, and the stream offset. */
static int
stream_fail(struct dec *d, struct tp_err *err, uint64_t soff, const char *what)
{
	return tp_fail_at(err, cmap_find(d, soff), d->frame_ix, "frame",
	    "byte 0x%llx of the Snappy stream: %s", (unsigned long long)soff,
	    what);
}

/*
 * The splitter's d->first for a checked trace op at p (n bytes): 1 for a
 * JMP, 2 for what goes on from the instruction before (a STEP, an
 * access), found in a syscall's ops too; 0 for none of those.
 */
static int
trace_first(struct dec *d, const unsigned char *p, size_t n)
{
	size_t len;
	unsigned count, i;

	switch (p[0]) {
	case UCIR_T_JMP:
		return 1;
	case UCIR_T_STEP:
	case UCIR_T_MEM_READ:
	case UCIR_T_MEM_WRITE:
		return 2;
	case UCIR_T_SYSCALL:
		len = 16 + 8 * (size_t)p[13];
		count = tp_get_le16(p + 14);
		for (i = 0; i < count; i++) {
			int f = trace_first(d, p + len, n - len);
			long k;

			if (f != 0)
				return f;
			if ((k = op_walk(d, p + len, n - len, 0, 1, 0)) <= 0)
				return 0;
			len += (size_t)k;
		}
		break;
	}
	return 0;
}

/* The next whole op of a frame at sb.p + spos, read from in as needed. */
static long
trace_op(struct dec *d, struct tp_in *in, struct tp_err *err, size_t *want)
{
	for (;;) {
		long avail = sn_need(d, in, *want, err), len;
		uint64_t soff = d->sbase + d->spos;

		if (avail < 0)
			return -1;
		if (avail == 0)
			return 0;
		len = op_walk(d, d->sb.p + d->spos, (size_t)avail, 0, 0, 0);
		if (len > 0)
			return len;
		if (len == OP_BAD)
			return stream_fail(d, err, soff + d->at, d->why);
		if ((size_t)avail < *want)
			return stream_fail(d, err, soff, "op cut by the end of "
			    "the file");
		if (*want >= d->max)
			return stream_fail(d, err, soff, "op longer than the "
			    "limit (--max-frame)");
		*want = *want * 2 > d->max ? d->max : *want * 2;
	}
}

static int
decode_trace(struct dec *d, struct tp_in *in, struct tp_err *err)
{
	struct ucir_dec_stats *st = d->st;

	for (;;) {
		long avail = sn_need(d, in, 13, err);
		const unsigned char *p;
		uint64_t soff = d->sbase + d->spos;
		uint32_t count, i;

		d->frame_ix = st->frames;
		if (avail <= 0)
			return (int)avail;
		p = d->sb.p + d->spos;
		if (p[0] != UCIR_T_FRAME && p[0] != UCIR_T_KEYFRAME) {
			char what[80];
			snprintf(what, sizeof what, "op %u at top level: usercorn "
			    "writes KEYFRAME and FRAME ops only", p[0]);
			return stream_fail(d, err, soff, what);
		}
		if (avail < 13)
			return stream_fail(d, err, soff, "frame header cut by the "
			    "end of the file");
		d->tid = tp_get_le64(p + 1);
		count = tp_get_le32(p + 9);
		if (d->hook != NULL && (d->first = 0, d->hook->frame(
		    d->hook->ctx, cmap_find(d, soff), st->ops,
		    p[0] == UCIR_T_KEYFRAME, p, 13) < 0))
			return -1;
		rec_begin(d, "ucir-frame", 0);
		tw_bool(d->out, "keyframe", p[0] == UCIR_T_KEYFRAME);
		tw_end(d->out);
		st->frames++;
		st->keyframes += p[0] == UCIR_T_KEYFRAME;
		st->ops++;
		d->spos += 13;
		for (i = 0; i < count; i++) {
			size_t want = 64;
			long len = trace_op(d, in, err, &want);
			if (len < 0)
				return -1;
			if (len == 0) {
				char what[80];
				snprintf(what, sizeof what, "the file ends inside "
				    "the frame after %u of its %u ops", i, count);
				return stream_fail(d, err, d->sbase + d->spos, what);
			}
			op_walk(d, d->sb.p + d->spos, (size_t)len, 0, 0, 1);
			if (d->first != 3) {	/* splitting: one test an op */
				if (d->first == 0)
					d->first = trace_first(d, d->sb.p +
					    d->spos, (size_t)len);
				if (d->hook->bytes(d->hook->ctx, d->sb.p +
				    d->spos, (size_t)len, d->first) < 0)
					return -1;
			}
			d->spos += (size_t)len;
		}
	}
}

/* ---------------------------------------------------------------- header */

/* A NUL-padded name: the string, then the padding when it is not zeros. */
static void
put_name(struct tp_out *o, const char *key, const char *padkey,
    const unsigned char *p)
{
	const unsigned char *nul = memchr(p, 0, UCIR_NAME_LEN);
	size_t n = nul ? (size_t)(nul - p) : UCIR_NAME_LEN, i;

	tw_str(o, key, p, n);
	for (i = n; i < UCIR_NAME_LEN; i++)
		if (p[i] != 0)
			break;
	if (i < UCIR_NAME_LEN)
		tw_bytes(o, padkey, p + n + 1, UCIR_NAME_LEN - n - 1);
}

static void
put_order(struct tp_out *o, const char *key, unsigned v)
{
	if (v <= 1)
		tw_str(o, key, v ? "big" : "little", v ? 3 : 6);
	else
		tw_u64(o, key, v);
}

/* Which format follows the magic: the Snappy identifier says trace. */
static int
variant_of(const unsigned char *p, size_t n, const char **old)
{
	*old = NULL;
	/*
	 * A file cut inside the identifier reads as a cut trace, but for one
	 * of exactly 80 bytes with a known uc_arch: a replay header alone,
	 * whose os padding ends with the identifier's first six bytes.  A
	 * trace's bytes 8-11 start its arch name, never a uc_arch number
	 * (see ucir2txt(1)).
	 */
	if (n > UCIR_TRACE_HEADER && !(n == UCIR_REPLAY_HEADER &&
	    ucir_uc_arch_name(tp_get_be32(p + 8)) != NULL) &&
	    memcmp(p + UCIR_TRACE_HEADER, tp_snappy_ident,
	    n - UCIR_TRACE_HEADER < 10 ? n - UCIR_TRACE_HEADER : 10) == 0)
		return UCIR_TRACE;
	if (n >= 72 + 10 && memcmp(p + 72, tp_snappy_ident, 10) == 0)
		*old = "a usercorn trace of May-August 2017 (72-byte header, "
		    "commits a9e5566 to 2118735)";
	else if (n >= 80 + 10 && memcmp(p + 80, tp_snappy_ident, 10) == 0)
		*old = "a usercorn trace of May 2017 (80-byte header with "
		    "uc_arch and uc_mode, commits 0f01a36 to a9e5566)";
	return UCIR_REPLAY;
}

static int
decode_header(struct dec *d, struct tp_in *in, struct tp_err *err)
{
	struct ucir_dec_stats *st = d->st;
	const unsigned char *p;
	const char *old;
	long avail;
	const unsigned char *nul;
	size_t hl;

	err->offset = 0;
	if ((avail = tp_in_fill(in, UCIR_REPLAY_HEADER + 10)) < 0)
		return -1;
	p = in->buf + in->pos;
	if (avail < 4 || memcmp(p, "UCIR", 4) != 0) {
		if (avail == 0)
			return tp_fail(err, TP_EXIT_DATA, "empty input: not a "
			    "Usercorn trace");
		if (avail >= 4 || memcmp(p, "UCIR", (size_t)avail) != 0)
			return tp_fail(err, TP_EXIT_DATA, "not a Usercorn "
			    "trace: no UCIR magic");
	}
	st->variant = variant_of(p, (size_t)avail, &old);
	if (old != NULL)
		return tp_fail(err, TP_EXIT_DATA, "%s: not supported (this "
		    "program reads the replay format and usercorn's trace "
		    "format of September 2017 on)", old);
	hl = st->variant == UCIR_TRACE ? UCIR_TRACE_HEADER : UCIR_REPLAY_HEADER;
	if ((size_t)avail < hl)
		return tp_fail(err, TP_EXIT_DATA, "truncated header: %ld of "
		    "%zu bytes", avail, hl);
	d->trace = st->variant == UCIR_TRACE;
	tw_begin(d->out, "ucir-header");
	if (d->trace) {
		tw_str(d->out, "format", "trace", 5);
		tw_u64(d->out, "version", tp_get_be32(p + 4));
		put_name(d->out, "arch", "arch_pad", p + 8);
		put_name(d->out, "os", "os_pad", p + 40);
		put_order(d->out, "code_order", p[72]);
		put_order(d->out, "data_order", p[73]);
		nul = p + 8;
	} else {
		uint32_t uc_arch = tp_get_be32(p + 8);
		const char *an = ucir_uc_arch_name(uc_arch);
		tw_str(d->out, "format", "replay", 6);
		tw_u64(d->out, "version", tp_get_be32(p + 4));
		if (an != NULL)
			tw_str(d->out, "uc_arch", an, strlen(an));
		else
			tw_u64(d->out, "uc_arch", uc_arch);
		tw_hex(d->out, "uc_mode", tp_get_be32(p + 12));
		put_name(d->out, "arch", "arch_pad", p + 16);
		put_name(d->out, "os", "os_pad", p + 48);
		nul = p + 16;
		d->regs = ucir_regs_of_uc_arch(uc_arch);
	}
	tw_end(d->out);
	memcpy(st->arch, nul, UCIR_NAME_LEN);
	st->arch[UCIR_NAME_LEN] = '\0';
	if (ucir_regs_find(st->arch, strlen(st->arch)) != NULL)
		d->regs = ucir_regs_find(st->arch, strlen(st->arch));
	if (d->hook != NULL && d->hook->header(d->hook->ctx, p, hl, d->trace) < 0)
		return -1;
	in->pos += hl;
	st->header_done = 1;
	return 0;
}

static int decode(struct tp_in *in, struct tp_out *out,
    const struct ucir_dec_opts *opts, struct ucir_dec_stats *st,
    const struct ucir_hook *hook, struct tp_err *err);

int
ucir_decode(struct tp_in *in, struct tp_out *out,
    const struct ucir_dec_opts *opts, struct ucir_dec_stats *st,
    struct tp_err *err)
{
	return decode(in, out, opts, st, NULL, err);
}

/*
 * The decoder itself walks the input for the splitter, so that a piece
 * ends where ucir2txt would fail, with its words, and the records before
 * a frame are those ucir2txt writes (they go to out, a discarding one).
 */
int
ucir_walk(struct tp_in *in, struct tp_out *out, const struct ucir_hook *hook,
    struct tp_err *err)
{
	struct ucir_dec_stats st;

	return decode(in, out, NULL, &st, hook, err);
}

static int
decode(struct tp_in *in, struct tp_out *out,
    const struct ucir_dec_opts *opts, struct ucir_dec_stats *st,
    const struct ucir_hook *hook, struct tp_err *err)
{
	static const struct ucir_dec_opts defaults;
	struct ucir_dec_stats dummy;
	struct dec d;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	if (st == NULL)
		st = &dummy;
	memset(st, 0, sizeof *st);
	memset(&d, 0, sizeof d);
	d.out = out;
	d.st = st;
	d.max = opts->max_frame ? opts->max_frame : UCIR_MAX_FRAME;
	d.verify = opts->verify_level;
	d.hook = hook;
	d.first = hook != NULL ? 0 : 3;
	zf_init(&d.z);
	rc = decode_header(&d, in, err);
	if (rc == 0)
		rc = d.trace ? decode_trace(&d, in, err) :
		    decode_replay(&d, in, err);
	zf_free(&d.z);
	zf_buf_free(&d.comp);
	zf_buf_free(&d.raw);
	zf_buf_free(&d.scratch);
	zf_buf_free(&d.sb);
	zf_buf_free(&d.chunk);
	free(d.cmap);
	return rc < 0 ? -1 : 0;
}

int
ucir_probe(const unsigned char *p, size_t n, char *detail, size_t detailsz)
{
	const char *old;
	int v;

	if (n < 4 || memcmp(p, "UCIR", 4) != 0)
		return TP_PROBE_NO;
	v = variant_of(p, n, &old);
	if (detail != NULL && detailsz > 0) {
		size_t at = v == UCIR_TRACE ? 8 : 16;
		char arch[UCIR_NAME_LEN + 1] = "";
		if (n >= at + UCIR_NAME_LEN) {
			memcpy(arch, p + at, UCIR_NAME_LEN);
			arch[UCIR_NAME_LEN] = '\0';
		}
		snprintf(detail, detailsz, "%s%s%s", old ? "old trace" :
		    v == UCIR_TRACE ? "trace" : "replay", arch[0] ? ", " : "",
		    arch);
	}
	return TP_PROBE_YES;
}
