/*
 * Usercorn traces: the encoder (txt2ucir), text records into a replay
 * file (usercorn's 2016 PROTOCOL.md: 80-byte big-endian header, OP_FRAME
 * messages of zlib-compressed big-endian ops; see ucir.c for the widths
 * and the flag) or, with opts->trace, into the trace format usercorn's
 * own reader reads (74-byte header, Snappy-framed little-endian ops).
 *
 * trac2txt's text maps in: each thread's x64dbg register dump is kept
 * as bytes (ucir-x64dbg.c) and the Unicorn registers that differ from
 * what a reader of the output has are written before the instruction
 * (replay: after the EXEC before it, which is where a replay puts an
 * instruction's effects; trace: before the STEP of the instruction
 * before, after its accesses, as usercorn's writer lags one
 * instruction).  The first dump is the setup keyframe.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/snappyframe.h"
#include "formats/ucir/ucir-private.h"
#include "io/zframe.h"
#include "text/text.h"

/* The uc_arch and uc_mode usercorn gave each arch (reference 6.2). */
static const struct {
	const char *arch;
	uint32_t uc_arch, uc_mode;
} arch_modes[] = {
	{ "x86", 4, 4 }, { "x86_64", 4, 8 }, { "x86_16", 4, 2 },
	{ "arm", 1, 0 }, { "arm64", 2, 0 }, { "mips", 3, 4 },
	{ "sparc", 6, 0x40000004 }, { "m68k", 7, 0x40000000 },
};

#define XDBG_THREADS 256	/* threads whose dump is kept, as trac2txt */

/* x64dbg's state, allocated at the first register dump seen. */
struct xdbg {
	unsigned char shown[UCIR_XDBG_BYTES];	/* what a reader has */
	unsigned char noenum[UCIR_XDBG_BYTES];	/* dropped, as last said */
	uint64_t tid[XDBG_THREADS];
	uint64_t seq[XDBG_THREADS];	/* of each one's last instruction */
	uint64_t last_seq, last_tid;	/* of the instruction before */
	int any;			/* an instruction was seen */
	unsigned n, next;
	unsigned char img[XDBG_THREADS][UCIR_XDBG_BYTES];
};

struct enc {
	struct tr_reader *r;
	struct tr_rec *rec;
	struct tp_out *out;
	const struct ucir_enc_opts *opts;
	struct ucir_enc_stats *st;
	const struct ucir_regs *regs;
	size_t max;
	int level;		/* of the frames made here */
	unsigned frame_ops;
	int header_done;
	/* The header waits for the first frame (see put_header). */
	unsigned char hdr[UCIR_REPLAY_HEADER];
	int hdr_pending;
	uint64_t hdr_line;	/* its record's, or 0 */
	struct zframe z;
	struct zf_buf raw, comp, data;
	/*
	 * Frames are deflated on a second thread (zw) while the next ones
	 * are built: flushed frames gather in zb (their op headers in its
	 * jobs, the lengths to come) and go over ZW_BATCH bytes at a time;
	 * the batch handed over is written at the next hand-over or the end.
	 */
	struct zf_worker *zw;
	struct zf_batch zb;
	int zw_tried, zw_pending;
	int frame_open, frame_made;
	unsigned frame_flag;
	int frame_level;
	uint32_t frame_count;
	unsigned depth;		/* syscalls open */
	size_t sys_at[UCIR_MAX_DEPTH];	/* where each one's op_count is */
	uint32_t sys_count[UCIR_MAX_DEPTH];
	uint64_t next;		/* where an EXEC_REL instruction would be */
	size_t hdr_len;		/* 80 (replay) or 74 (trace) */
	int trace;		/* writing the trace format */
	struct ucir_sw *sw;
	uint64_t frame_pid, tid;	/* the frame's, the record's */
	uint64_t tpc;		/* trace: where the next STEP is */
	int have_tpc;
	int frame_jmp;		/* trace: the frame has had its JMP */
	int step_pending;	/* trace: an x64dbg instruction's STEP waits
				   for its accesses and the registers after */
	unsigned step_size;
	int xarch;		/* x64dbg dump: 0 x64, 1 x86, -1 not seen */
	int hdr_xarch;		/* the header's arch: 0 x86_64, 1 x86, -1 */
	int dumps;		/* full dumps seen */
	struct xdbg *x;
};

/* Raw frame bytes a batch holds before it goes to the second thread. */
#define ZW_BATCH ((size_t)256 << 10)

/* Multi-byte fields: big-endian in a replay, little in a trace. */
static void
put16(const struct enc *e, unsigned char *p, uint16_t v)
{
	if (e->trace)
		tp_put_le16(p, v);
	else
		tp_put_be16(p, v);
}

static void
put64(const struct enc *e, unsigned char *p, uint64_t v)
{
	if (e->trace)
		tp_put_le64(p, v);
	else
		tp_put_be64(p, v);
}

#define IS(k) (e->rec->kindlen == sizeof k - 1 && \
	memcmp(e->rec->kind, k, sizeof k - 1) == 0)

/* A record the replay format cannot hold: 1 (counted), or -1 (--strict). */
static int
enc_skip(struct enc *e, const char *why)
{
	return tr_skip(e->r, e->rec, &e->st->skipped, "%s", why) < 0 ? -1 : 1;
}

static int
get_u64(struct enc *e, const char *key, uint64_t *v, int required)
{
	return tr_get_u64(e->r, e->rec, key, v, required);
}

/* An integer field that must fit in bits bits. */
static int
get_uint(struct enc *e, const char *key, uint64_t *v, unsigned bits,
    int required)
{
	int rc = get_u64(e, key, v, required);

	if (rc > 0 && bits < 64 && *v >> bits != 0)
		return tr_fail(e->r, e->rec, tr_find(e->rec, key), "does not "
		    "fit in %u bits", bits);
	return rc;
}

/* A bytes field into e->data; 1, 0 when absent, -1. */
static int
field_bytes(struct enc *e, const struct tr_field *f, size_t *n)
{
	if (f == NULL)
		return 0;
	if (zf_buf_reserve(&e->data, f->vallen / 2 + 1) < 0)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "out of memory");
	if (tr_bytes(e->r, e->rec, f, e->data.p, e->data.cap, n) < 0)
		return -1;
	return 1;
}

static int
get_bytes(struct enc *e, const char *key, size_t *n)
{
	return field_bytes(e, tr_find(e->rec, key), n);
}

/* A string field; 1, 0 when absent, -1. */
static int
get_str(struct enc *e, const char *key, char *dst, size_t cap, size_t *n)
{
	const struct tr_field *f = tr_find(e->rec, key);

	if (f == NULL)
		return 0;
	return tr_str(e->r, e->rec, f, dst, cap, n) < 0 ? -1 : 1;
}

/* Room for n more bytes of the frame being built. */
static unsigned char *
room(struct enc *e, size_t n)
{
	if (e->raw.len + n > e->max) {
		tr_fail(e->r, e->rec, NULL, "the frame grows past the limit of "
		    "%zu bytes (--max-frame)", e->max);
		return NULL;
	}
	if (zf_buf_reserve(&e->raw, e->raw.len + n) < 0) {
		tp_fail(e->r->err, TP_EXIT_FAIL, "out of memory");
		return NULL;
	}
	return e->raw.p + e->raw.len;
}

static void
close_syscall(struct enc *e)
{
	e->depth--;
	put16(e, e->raw.p + e->sys_at[e->depth],
	    (uint16_t)e->sys_count[e->depth]);
}

/* The STEP of an x64dbg instruction, into the frame it belongs to. */
static int
flush_step(struct enc *e)
{
	unsigned char *p;

	if (!e->step_pending || !e->frame_open)
		return 0;
	e->step_pending = 0;
	if ((p = room(e, 2)) == NULL)
		return -1;
	p[0] = UCIR_T_STEP;
	p[1] = (unsigned char)e->step_size;
	e->raw.len += 2;
	e->frame_count++;
	e->st->ops++;
	return 0;
}

/*
 * The header, written before the first frame or at the end.  A replay
 * header alone whose os padding ends with the start of the Snappy
 * identifier reads back as the replay it is when its uc_arch is known
 * (ucir2txt(1)); with another uc_arch it would read as a trace cut
 * inside its identifier, and is refused.
 */
static int
put_header(struct enc *e, int alone)
{
	if (!e->hdr_pending)
		return 0;
	if (alone && !e->trace && memcmp(e->hdr + UCIR_TRACE_HEADER,
	    tp_snappy_ident, UCIR_REPLAY_HEADER - UCIR_TRACE_HEADER) == 0 &&
	    ucir_uc_arch_name(tp_get_be32(e->hdr + 8)) == NULL) {
		e->st->ambiguous = 1;
		e->r->err->line = e->hdr_line;
		e->r->err->col = 0;
		e->r->err->offset = TP_NONE;
		return tp_fail(e->r->err, TP_EXIT_DATA, "os_pad puts the start "
		    "of a Snappy stream identifier at offset 74 and uc_arch is "
		    "unknown: this header alone would read as a usercorn trace "
		    "cut there (a frame after it tells them apart)");
	}
	tp_out_write(e->out, e->hdr, e->hdr_len);
	e->hdr_pending = 0;
	return 0;
}

/* A deflated frame after its op header h (its length still to fill). */
static int
frame_put(struct enc *e, unsigned char *h, const struct zf_buf *comp)
{
	if (comp->len > UINT32_MAX)
		return tp_fail(e->r->err, TP_EXIT_DATA, "a frame compresses to "
		    "more than 4 GiB");
	put_header(e, 0);
	tp_put_be32(h + 6, (uint32_t)comp->len);
	tp_out_write(e->out, h, 10);
	tp_out_write(e->out, comp->p, comp->len);
	return 0;
}

/* The batch on the second thread, when done, written where it belongs. */
static int
frame_drain(struct enc *e)
{
	struct zf_batch *b;

	if (!e->zw_pending)
		return 0;
	e->zw_pending = 0;
	if (zf_worker_get(e->zw, &b) < 0)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "zlib: %s", b->msg);
	for (size_t i = 0; i < b->n; i++)
		if (frame_put(e, b->job[i].user, &b->job[i].comp) < 0)
			return -1;
	return 0;
}

/* The frames gathered to the second thread, once the last batch is out. */
static int
frame_send(struct enc *e)
{
	if (frame_drain(e) < 0)
		return -1;
	if (e->zb.n > 0) {
		zf_worker_put(e->zw, &e->zb);
		e->zw_pending = 1;
	}
	return 0;
}

static int
frame_flush(struct enc *e)
{
	unsigned char h[10];
	int rc;

	if (!e->frame_open)
		return 0;
	if (flush_step(e) < 0)
		return -1;
	while (e->depth > 0)
		close_syscall(e);
	if (e->trace) {
		unsigned char fh[13];
		put_header(e, 0);
		fh[0] = e->frame_flag ? UCIR_T_KEYFRAME : UCIR_T_FRAME;
		tp_put_le64(fh + 1, e->frame_pid);
		tp_put_le32(fh + 9, e->frame_count);
		ucir_sw_put(e->sw, e->out, fh, sizeof fh);
		ucir_sw_put(e->sw, e->out, e->raw.p, e->raw.len);
		goto done;
	}
	h[0] = UCIR_OP_FRAME;
	h[1] = (unsigned char)e->frame_flag;
	tp_put_be32(h + 2, e->frame_count);
	if (!e->zw_tried) {
		e->zw_tried = 1;
		e->zw = zf_worker_new();
	}
	if (e->zw != NULL) {
		if (zf_batch_add(&e->zb, e->raw.p, e->raw.len, e->frame_level,
		    h, sizeof h) < 0)
			return tp_fail(e->r->err, TP_EXIT_FAIL, "out of memory");
		if (e->zb.raw.len >= ZW_BATCH && frame_send(e) < 0)
			return -1;
		goto done;
	}
	/*
	 * zlib at the frame's level, made here or named by a ucir-frame
	 * record: ucir2txt names a frame's level by the bytes zlib gives,
	 * so any other deflater's frame would come back in other bytes.
	 */
	rc = zf_deflate(&e->z, e->frame_level, e->raw.p, e->raw.len,
	    &e->comp);
	if (rc < 0)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "zlib: %s", e->z.msg);
	if (frame_put(e, h, &e->comp) < 0)
		return -1;
done:
	e->st->frames++;
	e->st->frames_made += e->frame_made;
	e->frame_open = 0;
	e->raw.len = 0;
	return 0;
}

static void
put_name_field(unsigned char *dst, const char *s, size_t n,
    const unsigned char *pad, size_t padn)
{
	memset(dst, 0, UCIR_NAME_LEN);
	memcpy(dst, s, n);
	if (padn > 0)
		memcpy(dst + n + 1, pad, padn);
}

static const struct ucir_regs *
regs_for(const char *arch, size_t n, uint32_t uc_arch)
{
	const struct ucir_regs *t = ucir_regs_find(arch, n);

	return t != NULL ? t : ucir_regs_of_uc_arch(uc_arch);
}

static void
arch_mode(const char *arch, size_t n, uint32_t *uc_arch, uint32_t *uc_mode)
{
	*uc_arch = *uc_mode = 0;
	for (size_t i = 0; i < sizeof arch_modes / sizeof arch_modes[0]; i++)
		if (strlen(arch_modes[i].arch) == n &&
		    memcmp(arch_modes[i].arch, arch, n) == 0) {
			*uc_arch = arch_modes[i].uc_arch;
			*uc_mode = arch_modes[i].uc_mode;
		}
}

/*
 * The trace header has no uc_arch or uc_mode; its byte orders say big
 * for the arches Unicorn runs big-endian (uc_mode's bit 30).
 */
static void
write_header(struct enc *e, uint32_t version, uint32_t uc_arch,
    uint32_t uc_mode, const unsigned char *arch, const unsigned char *os,
    uint64_t line)
{
	unsigned char *h = e->hdr;

	memcpy(h, "UCIR", 4);
	tp_put_be32(h + 4, version);
	if (e->trace) {
		memcpy(h + 8, arch, UCIR_NAME_LEN);
		memcpy(h + 40, os, UCIR_NAME_LEN);
		if (e->hdr_len == 0)
			h[72] = h[73] = (uc_mode >> 30 & 1) != 0;
		e->hdr_len = UCIR_TRACE_HEADER;
	} else {
		tp_put_be32(h + 8, uc_arch);
		tp_put_be32(h + 12, uc_mode);
		memcpy(h + 16, arch, UCIR_NAME_LEN);
		memcpy(h + 48, os, UCIR_NAME_LEN);
		e->hdr_len = UCIR_REPLAY_HEADER;
	}
	e->hdr_xarch = memcmp(arch, "x86_64", 7) == 0 ? 0 :
	    memcmp(arch, "x86", 4) == 0 ? 1 : -1;
	e->header_done = 1;
	e->hdr_pending = 1;
	e->hdr_line = line;
}

/* The header for --arch, else for arch, else x86_64. */
static int
default_header(struct enc *e, const char *arch)
{
	if (e->opts->arch != NULL || arch == NULL)
		arch = e->opts->arch ? e->opts->arch : "x86_64";
	const char *os = e->opts->os ? e->opts->os : "linux";
	unsigned char a[UCIR_NAME_LEN], o[UCIR_NAME_LEN];

	size_t an = strlen(arch), on = strlen(os);
	uint32_t uc_arch, uc_mode;

	if (an > UCIR_NAME_LEN || on > UCIR_NAME_LEN)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "arch or os name longer "
		    "than %d bytes", UCIR_NAME_LEN);
	put_name_field(a, arch, an, NULL, 0);
	put_name_field(o, os, on, NULL, 0);
	arch_mode(arch, an, &uc_arch, &uc_mode);
	e->regs = regs_for(arch, an, uc_arch);
	write_header(e, e->trace, uc_arch, uc_mode, a, o, 0);
	e->st->header_made = 1;
	return 0;
}

/* A name and its padding, into the 32-byte field. */
static int
header_name(struct enc *e, const char *key, const char *padkey,
    unsigned char *dst, char *s, size_t *n)
{
	size_t padn = 0;
	int rc;

	*n = 0;
	if ((rc = get_str(e, key, s, UCIR_NAME_LEN + 1, n)) < 0)
		return -1;
	if (rc > 0 && *n > UCIR_NAME_LEN)
		return tr_fail(e->r, e->rec, tr_find(e->rec, key), "longer than "
		    "%d bytes", UCIR_NAME_LEN);
	if (memchr(s, 0, *n) != NULL)
		return tr_fail(e->r, e->rec, tr_find(e->rec, key), "holds a NUL "
		    "byte");
	if ((rc = padkey ? get_bytes(e, padkey, &padn) : 0) < 0)
		return -1;
	if (rc > 0 && *n + 1 + padn != UCIR_NAME_LEN)
		return tr_fail(e->r, e->rec, tr_find(e->rec, padkey), "must be "
		    "%zu bytes (the rest of %d after the name and its NUL)",
		    *n < UCIR_NAME_LEN ? UCIR_NAME_LEN - *n - 1 : 0,
		    UCIR_NAME_LEN);
	put_name_field(dst, s, *n, e->data.p, rc > 0 ? padn : 0);
	return 0;
}

/* A trace header's byte order: little, big, or the byte's number. */
static int
get_order(struct enc *e, const char *key, unsigned char *dst)
{
	const struct tr_field *f = tr_find(e->rec, key);
	uint64_t v;

	*dst = (unsigned char)(e->hdr_len == 0 ? 0 : *dst);
	if (f == NULL)
		return 0;
	if (f->vallen == 6 && memcmp(f->val, "little", 6) == 0)
		v = 0;
	else if (f->vallen == 3 && memcmp(f->val, "big", 3) == 0)
		v = 1;
	else if (tr_u64(e->r, e->rec, f, &v) < 0)
		return -1;
	if (v > 0xff)
		return tr_fail(e->r, e->rec, f, "does not fit in 8 bits");
	*dst = (unsigned char)v;
	return 0;
}

static int
header_record(struct enc *e)
{
	unsigned char a[UCIR_NAME_LEN], o[UCIR_NAME_LEN];
	char as[UCIR_NAME_LEN + 1], os[UCIR_NAME_LEN + 1], fmt[8], an[16];
	size_t asn, osn, fn = 0, ann = 0;
	uint64_t version = 0, uc_mode = 0, v;
	uint32_t uc_arch, mode;
	int trace = 0, rc;

	if (e->header_done)
		return tr_fail(e->r, e->rec, NULL, "ucir-header after the first "
		    "frame: a replay file has one header");
	if ((rc = get_str(e, "format", fmt, sizeof fmt, &fn)) < 0)
		return -1;
	if (rc > 0) {
		trace = fn == 5 && memcmp(fmt, "trace", 5) == 0;
		if (!trace && !(fn == 6 && memcmp(fmt, "replay", 6) == 0))
			return tr_fail(e->r, e->rec, tr_find(e->rec, "format"),
			    "replay or trace expected");
	}
	/* A trace's padding is not carried (see put_header). */
	/* A trace's padding goes into a trace only (see ucir2txt(1)). */
	if (header_name(e, "arch", trace && !e->trace ? NULL : "arch_pad", a,
	    as, &asn) < 0 || header_name(e, "os", trace && !e->trace ? NULL :
	    "os_pad", o, os, &osn) < 0)
		return -1;
	arch_mode(as, asn, &uc_arch, &mode);
	uc_mode = mode;
	if (!trace) {
		const struct tr_field *f = tr_find(e->rec, "uc_arch");
		if (get_uint(e, "version", &version, 32, 0) < 0 ||
		    get_uint(e, "uc_mode", &uc_mode, 32, 0) < 0)
			return -1;
		if (f != NULL && tp_parse_u64(f->val, f->vallen, &v) == 0) {
			if (v > UINT32_MAX)
				return tr_fail(e->r, e->rec, f, "does not fit in "
				    "32 bits");
			uc_arch = (uint32_t)v;
		} else if (f != NULL) {
			int num;
			if (get_str(e, "uc_arch", an, sizeof an, &ann) < 0)
				return -1;
			if ((num = ucir_uc_arch_num(an, ann)) < 0)
				return tr_fail(e->r, e->rec, f, "unknown Unicorn "
				    "arch (a number, or arm arm64 mips x86 ppc "
				    "sparc m68k riscv s390x tricore)");
			uc_arch = (uint32_t)num;
		}
	}
	e->regs = regs_for(as, asn, uc_arch);
	if (e->trace) {
		/* A replay header's version 0 is no trace's: usercorn writes 1. */
		if (!trace)
			version = 1;
		else if (get_uint(e, "version", &version, 32, 0) < 0 ||
		    get_order(e, "code_order", &e->hdr[72]) < 0 ||
		    get_order(e, "data_order", &e->hdr[73]) < 0)
			return -1;
		else
			e->hdr_len = 1;	/* the orders are set */
	}
	write_header(e, (uint32_t)version, uc_arch, (uint32_t)uc_mode, a, o,
	    e->rec->lineno);
	return 0;
}

static int
frame_record(struct enc *e)
{
	const struct tr_field *f;
	uint64_t level = (uint64_t)e->level, flag;
	int key = 0;

	if (frame_flush(e) < 0)
		return -1;
	if ((f = tr_find(e->rec, "keyframe")) != NULL &&
	    tr_bool(e->r, e->rec, f, &key) < 0)
		return -1;
	flag = (uint64_t)key;
	if (get_uint(e, "level", &level, 64, 0) < 0 ||
	    get_uint(e, "flag", &flag, 8, 0) < 0)
		return -1;
	if (level > 9)
		return tr_fail(e->r, e->rec, tr_find(e->rec, "level"), "a zlib "
		    "level is 0 to 9");
	if ((flag != 0) != key)
		return tr_fail(e->r, e->rec, tr_find(e->rec, "flag"), "a "
		    "keyframe's flag is not 0, a frame's is 0");
	e->frame_open = 1;
	e->frame_made = 0;
	e->frame_jmp = 0;
	e->frame_pid = e->tid;
	e->frame_flag = (unsigned)flag;
	e->frame_level = (int)level;
	e->frame_count = 0;
	e->depth = 0;
	return 0;
}

/*
 * Place the op about to be written: open a frame if none is, close the
 * syscalls its depth= leaves, count it in its container.
 */
static int
op_place(struct enc *e)
{
	uint64_t depth = 0;
	uint32_t *count;

	if (get_u64(e, "depth", &depth, 0) < 0)
		return -1;
	/* A trace's frames are per pid: x64dbg's threads get their own. */
	if (e->frame_open && e->frame_made && depth == 0 &&
	    (e->frame_count >= e->frame_ops || (e->trace &&
	    e->tid != e->frame_pid)) && frame_flush(e) < 0)
		return -1;
	if (!e->frame_open) {
		e->frame_open = 1;
		e->frame_made = 1;
		e->frame_jmp = 0;
		e->frame_pid = e->tid;
		e->frame_flag = 0;
		e->frame_level = e->level;
		e->frame_count = 0;
		e->depth = 0;
	}
	if (depth > e->depth) {
		e->st->unnested++;
		depth = e->depth;
	}
	while (e->depth > depth)
		close_syscall(e);
	count = depth == 0 ? &e->frame_count : &e->sys_count[depth - 1];
	if (depth > 0 && *count == UINT16_MAX)
		return tr_fail(e->r, e->rec, NULL, "more than 65535 ops in one "
		    "syscall");
	if (*count == UINT32_MAX)
		return tr_fail(e->r, e->rec, NULL, "more than 2^32-1 ops in one "
		    "frame");
	++*count;
	e->st->ops++;
	return 0;
}

/* ------------------------------------------------------ x64dbg registers */

static const char lose_tid[] = "a thread id dropped (the replay format has "
    "no threads)";
static const char lose_unknown[] = "an unknown field dropped";
static const char lose_bytes[] = "an instruction's opcode bytes dropped "
    "(Usercorn instructions have a size only)";
static const char lose_noenum[] = "an x64dbg register with no Unicorn enum "
    "dropped (x87 error and data pointers, Cr0NpxState, lastError)";
static const char lose_dump[] = "a full register dump written as the "
    "registers it changes (Usercorn has one keyframe)";
static const char lose_arch[] = "x64dbg registers dropped (the header's "
    "arch is not x86 or x86_64)";

/* A register op of n little-endian bytes (REG if it fits 8, else SPREG). */
static int
put_reg_op(struct enc *e, unsigned num, const unsigned char *v, size_t n,
    int spreg)
{
	unsigned char *p;
	uint64_t x = 0;

	if (op_place(e) < 0 || (p = room(e, spreg ? 5 + n : 11)) == NULL)
		return -1;
	put16(e, p + 1, (uint16_t)num);
	if (spreg) {
		p[0] = e->trace ? UCIR_T_SPREG : UCIR_OP_SPREG_CHANGE;
		put16(e, p + 3, (uint16_t)n);
		memcpy(p + 5, v, n);
		e->raw.len += 5 + n;
	} else {
		for (size_t i = n; i-- > 0;)
			x = x << 8 | v[i];
		p[0] = e->trace ? UCIR_T_REG : UCIR_OP_REG_CHANGE;
		put64(e, p + 3, x);
		e->raw.len += 11;
	}
	return 0;
}

/*
 * The slot of thread tid, its dump fresh (zeros) when new or fresh is
 * set; *known: it was there.
 */
static unsigned
xdbg_thread(struct xdbg *x, uint64_t tid, int fresh, int *known)
{
	unsigned i;

	for (i = 0; i < x->n; i++)
		if (x->tid[i] == tid)
			break;
	if (i == x->n) {
		if (x->n < XDBG_THREADS)
			x->n++;
		else
			i = x->next++ % XDBG_THREADS;	/* the longest kept */
		x->tid[i] = tid;
		fresh = 1;
		*known = 0;
	} else {
		*known = 1;
	}
	if (fresh)
		memset(x->img[i], 0, sizeof x->img[i]);
	return i;
}

/* The value of a slot field into the dump. */
static int
xdbg_slot(struct enc *e, unsigned char *img, const struct tr_field *f,
    int slot)
{
	unsigned ps = e->xarch ? 4 : 8;
	uint64_t v;

	if (tr_u64(e->r, e->rec, f, &v) < 0)
		return -1;
	if (ps == 4 && v > UINT32_MAX)
		return tr_fail(e->r, e->rec, f, "does not fit in an x86 slot");
	if (ps == 4)
		tp_put_le32(img + (size_t)slot * 4, (uint32_t)v);
	else
		tp_put_le64(img + (size_t)slot * 8, v);
	return 0;
}

/*
 * An x64dbg instruction's registers: its thread's dump updated by the
 * stored slots and the ctx. fields (trace-text(5)), then an op for every
 * Unicorn register in which it differs from what a reader has.  The
 * first dump goes into a keyframe of its own, before the instruction.
 */
static const char lose_gap[] = "registers not known (instructions of "
    "the thread are missing before it)";

static int
xdbg_insn(struct enc *e, unsigned nslots, const struct tr_field *seqf)
{
	const struct tr_field *f = tr_find(e->rec, "tprev");
	const struct ucir_xreg *xr;
	const struct ucir_xrange *nr;
	unsigned char *img;
	size_t n, nn;
	uint64_t seq = 0, prev = 0;
	unsigned t;
	int x86, lost = 0, setup = 0, none, known, gap;

	if (e->xarch < 0)
		e->xarch = e->hdr_xarch == 1;
	x86 = e->xarch;
	if (e->hdr_xarch != x86)
		return tr_lose(e->r, e->rec, &e->st->skipped, lose_arch,
		    "registers of an x64dbg %s trace", x86 ? "x86" : "x64");
	if (e->x == NULL && (e->x = calloc(1, sizeof *e->x)) == NULL)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "out of memory");
	none = f != NULL && f->vallen == 4 && memcmp(f->val, "none", 4) == 0;
	if ((seqf != NULL && tr_u64(e->r, e->rec, seqf, &seq) < 0) ||
	    (f != NULL && !none && tr_u64(e->r, e->rec, f, &prev) < 0))
		return -1;
	t = xdbg_thread(e->x, e->tid, none, &known);
	img = e->x->img[t];
	/*
	 * The slots a block does not store are those of the thread's
	 * instruction before it (trace-text(5)): tprev= names it after a
	 * switch, else it is the instruction just before.
	 */
	if (none)
		gap = 0;
	else if (f != NULL)
		gap = !known || e->x->seq[t] != prev;
	else
		gap = e->x->any && (e->x->last_tid != e->tid ||
		    e->x->last_seq + 1 != seq);
	e->x->seq[t] = e->x->last_seq = seq;
	e->x->last_tid = e->tid;
	e->x->any = 1;
	if (gap && tr_lose(e->r, e->rec, &e->st->skipped, lose_gap, "seq=%llu",
	    (unsigned long long)seq) < 0)
		return -1;
	for (size_t i = 0; i < e->rec->nf; i++) {
		const struct tr_field *g = &e->rec->f[i];
		int ctx = g->keylen > 4 && memcmp(g->key, "ctx.", 4) == 0;
		int slot = ucir_xdbg_slot(x86, g->key + 4 * ctx,
		    g->keylen - 4u * ctx);
		if (slot >= 0 && xdbg_slot(e, img, g, slot) < 0)
			return -1;
	}
	if (nslots == ucir_xdbg_nslots(x86) && e->dumps++ > 0 &&
	    tr_lose(e->r, e->rec, &e->st->skipped, lose_dump, "a full dump "
	    "after the first") < 0)
		return -1;
	if (e->st->ops == 0 && !e->frame_open) {
		/* The setup state: usercorn's keyframe. */
		e->frame_open = 1;
		e->frame_made = 1;
		e->frame_pid = e->tid;
		e->frame_flag = 1;
		e->frame_level = e->level;
		e->frame_count = 0;
		setup = 1;
	}
	xr = ucir_xdbg_regs(&n);
	for (size_t i = 0; i < n; i++) {
		unsigned num = x86 ? xr[i].num86 : xr[i].num64;
		size_t off = x86 ? xr[i].off86 : xr[i].off64;
		size_t len = xr[i].len ? xr[i].len : x86 ? 4 : 8;
		if (num == 0 || memcmp(e->x->shown + off, img + off, len) == 0)
			continue;
		memcpy(e->x->shown + off, img + off, len);
		if (put_reg_op(e, num, img + off, len, xr[i].spreg) < 0)
			return -1;
	}
	nr = ucir_xdbg_noenum(x86, &nn);
	for (size_t i = 0; i < nn; i++)
		if (memcmp(e->x->noenum + nr[i].off, img + nr[i].off,
		    nr[i].len) != 0) {
			memcpy(e->x->noenum + nr[i].off, img + nr[i].off,
			    nr[i].len);
			lost = 1;
		}
	if (lost && tr_lose(e->r, e->rec, &e->st->skipped, lose_noenum,
	    "x87 pointers or lastError changed") < 0)
		return -1;
	if (setup && frame_flush(e) < 0)
		return -1;
	return 0;
}

/* ---------------------------------------------------------- field names */

/*
 * The fields of each kind written here or read from other decoders
 * (x64dbg's own: seq, tprev, tidstored, rsvd, flags, old, new).  Any
 * other is a typo: counted and named, or refused under --strict.
 */
/* In the order ucir2txt writes them: a record of its walks them once. */
#define KEY(s) { s, sizeof s - 1 }
struct key {
	const char *s;
	unsigned len;
};
static const struct key known_insn[] = { KEY("tid"), KEY("depth"),
	KEY("pc"), KEY("size"), KEY("exec"), KEY("bytes"), KEY("seq"),
	KEY("tprev"), KEY("tidstored"), KEY("rsvd"), { NULL, 0 } };
static const struct key known_access[] = { KEY("tid"), KEY("depth"),
	KEY("pc"), KEY("addr"), KEY("size"), KEY("data"), KEY("seq"),
	KEY("old"), KEY("new"), KEY("flags"), { NULL, 0 } };
static const struct key known_header[] = { KEY("format"), KEY("version"),
	KEY("uc_arch"), KEY("uc_mode"), KEY("arch"), KEY("arch_pad"),
	KEY("os"), KEY("os_pad"), KEY("code_order"), KEY("data_order"),
	{ NULL, 0 } };
static const struct key known_frame[] = { KEY("tid"), KEY("keyframe"),
	KEY("level"), KEY("flag"), { NULL, 0 } };
static const struct key known_reg[] = { KEY("tid"), KEY("depth"),
	KEY("reg"), KEY("value"), { NULL, 0 } };
static const struct key known_spreg[] = { KEY("tid"), KEY("depth"),
	KEY("reg"), KEY("data"), { NULL, 0 } };
static const struct key known_map[] = { KEY("tid"), KEY("depth"),
	KEY("addr"), KEY("size"), KEY("prot"), KEY("off"), KEY("len"),
	KEY("desc"), KEY("file"), { NULL, 0 } };
static const struct key known_syscall[] = { KEY("tid"), KEY("depth"),
	KEY("num"), KEY("ret"), KEY("args"), { NULL, 0 } };
static const struct key known_jmp[] = { KEY("tid"), KEY("depth"),
	KEY("pc"), KEY("size"), { NULL, 0 } };
static const struct key known_plain[] = { KEY("tid"), KEY("depth"),
	{ NULL, 0 } };
#define NKEYS 12

/* (Keys are short: a loop, not a call to memcmp, per field.) */
static inline int
key_is(const struct key *k, const struct tr_field *f)
{
	if (k->len != f->keylen)
		return 0;
	for (unsigned i = 0; i < k->len; i++)
		if (k->s[i] != f->key[i])
			return 0;
	return 1;
}

/* Fields out of ucir2txt's order: x64dbg's slots, unknown ones. */
static int
check_other(struct enc *e, const struct key *k, size_t nk,
    const struct tr_field **got, unsigned *nslots)
{
	char show[TP_SHOW_MAX];
	int lost = 0;

	for (size_t i = 0; i < e->rec->nf; i++) {
		const struct tr_field *f = &e->rec->f[i];
		size_t j;
		for (j = 0; j < nk && !key_is(&k[j], f); j++)
			;
		if (j < nk) {
			if (got[j] == NULL)
				got[j] = f;
			continue;
		}
		if (nslots != NULL) {
			int x86 = e->xarch >= 0 ? e->xarch : e->hdr_xarch == 1;
			int ctx = f->keylen > 4 && memcmp(f->key, "ctx.", 4) == 0;
			if (ucir_xdbg_slot(x86, f->key + 4 * ctx,
			    f->keylen - 4u * ctx) >= 0) {
				*nslots += !ctx;
				continue;
			}
		}
		if (!lost++ && tr_lose(e->r, e->rec, &e->st->skipped,
		    lose_unknown, "field \"%s\"", tp_show(show, f->key,
		    f->keylen)) < 0)
			return -1;
	}
	return 0;
}

/*
 * Check rec's fields against the kind's keys k, and find them: got[i] is
 * the field of key k[i], or NULL (got may be NULL).  Sets e->tid.  For an
 * insn also count x64dbg's slots (stored and ctx.) into *nslots.  0, or
 * -1 (--strict).
 */
static int
check_fields(struct enc *e, const struct key *k, const struct tr_field **got,
    unsigned *nslots)
{
	const struct tr_field *tmp[NKEYS];
	size_t i, j, nk;

	if (got == NULL)
		got = tmp;
	memset(got, 0, NKEYS * sizeof *got);
	/* Fields in k's order: one pass. */
	for (i = j = 0; i < e->rec->nf; i++) {
		while (k[j].s != NULL && !key_is(&k[j], &e->rec->f[i]))
			j++;
		if (k[j].s == NULL)
			break;
		got[j] = &e->rec->f[i];
		j++;
	}
	if (i < e->rec->nf) {
		for (nk = 0; k[nk].s != NULL; nk++)
			got[nk] = NULL;
		if (check_other(e, k, nk, got, nslots) < 0)
			return -1;
	}
	/* tid= comes first; 0 (a replay's) is not parsed. */
	if (k[0].len == 3 && got[0] != NULL && !(got[0]->vallen == 1 &&
	    got[0]->val[0] == '0') && tr_u64(e->r, e->rec, got[0], &e->tid) < 0)
		return -1;
	return 0;
}

/* ----------------------------------------------------------------- ops */

/* The replay has no threads: a record of another than 0 loses its own. */
static int
check_tid(struct enc *e)
{
	if (e->trace || e->tid == 0)
		return 0;
	return tr_lose(e->r, e->rec, &e->st->skipped, lose_tid, "tid=%llu",
	    (unsigned long long)e->tid);
}

enum { I_TID, I_DEPTH, I_PC, I_SIZE, I_EXEC, I_BYTES, I_SEQ };

static int
insn_record(struct enc *e)
{
	const struct tr_field *f, *got[NKEYS];
	uint64_t pc, size = 0;
	unsigned char *p;
	unsigned nslots = 0;
	int abs, lag;
	size_t n;

	if (check_fields(e, known_insn, got, &nslots) < 0)
		return -1;
	if (got[I_PC] == NULL)
		return enc_skip(e, "insn without pc=");
	if (tr_u64(e->r, e->rec, got[I_PC], &pc) < 0 || (got[I_SIZE] != NULL &&
	    tr_u64(e->r, e->rec, got[I_SIZE], &size) < 0))
		return -1;
	if (size > UINT32_MAX)
		return tr_fail(e->r, e->rec, got[I_SIZE], "does not fit in 32 "
		    "bits");
	f = got[I_BYTES];
	if (got[I_SIZE] == NULL) {
		/* Other decoders give the opcode bytes. */
		if (f == NULL)
			return enc_skip(e, "insn without size= or bytes=");
		size = f->vallen / 2;
	}
	if (e->trace && size > UINT8_MAX)
		return enc_skip(e, "an instruction over 255 bytes (a trace's "
		    "STEP holds one byte)");
	if (check_tid(e) < 0)
		return -1;
	if (f != NULL && tr_lose(e->r, e->rec, &e->st->skipped, lose_bytes,
	    "bytes=") < 0)
		return -1;
	/* x64dbg's: its accesses follow it (see the top of the file). */
	lag = got[I_SEQ] != NULL;
	if ((nslots > 0 || (lag && e->x != NULL)) &&
	    xdbg_insn(e, nslots, got[I_SEQ]) < 0)
		return -1;
	if (e->trace) {
		if (flush_step(e) < 0)
			return -1;
		/*
		 * Usercorn's frames start at a JMP; for a thread's frame made
		 * here, that also ends the registers it starts with.
		 */
		if (!e->have_tpc || pc != e->tpc || (lag && !e->frame_jmp)) {
			if (op_place(e) < 0 || (p = room(e, 13)) == NULL)
				return -1;
			e->frame_jmp = 1;
			p[0] = UCIR_T_JMP;
			tp_put_le64(p + 1, pc);
			tp_put_le32(p + 9, (uint32_t)size);
			e->raw.len += 13;
		}
		e->tpc = pc + size;
		e->have_tpc = 1;
		if (lag) {
			if (op_place(e) < 0)
				return -1;
			e->frame_count--;	/* flush_step counts it */
			e->st->ops--;
			e->step_pending = 1;
			e->step_size = (unsigned)size;
			return 0;
		}
		if (op_place(e) < 0 || (p = room(e, 2)) == NULL)
			return -1;
		p[0] = UCIR_T_STEP;
		p[1] = (unsigned char)size;
		e->raw.len += 2;
		return 0;
	}
	abs = pc != e->next;
	if ((f = got[I_EXEC]) != NULL) {
		if (f->vallen != 3 || (memcmp(f->val, "abs", 3) != 0 &&
		    memcmp(f->val, "rel", 3) != 0))
			return tr_fail(e->r, e->rec, f, "abs or rel expected");
		abs |= f->val[0] == 'a';
	}
	if (op_place(e) < 0 || (p = room(e, 13)) == NULL)
		return -1;
	if (abs) {
		p[0] = UCIR_OP_EXEC_ABS;
		tp_put_be64(p + 1, pc);
		tp_put_be32(p + 9, (uint32_t)size);
		n = 13;
	} else {
		p[0] = UCIR_OP_EXEC_REL;
		tp_put_be32(p + 1, (uint32_t)size);
		n = 5;
	}
	e->raw.len += n;
	e->next = pc + size;
	return 0;
}

static const char lose_old[] = "a write's old value dropped (Usercorn "
    "writes hold the new bytes only)";
static const char lose_read[] = "a read's value dropped (the trace format's "
    "reads carry none)";
static const char lose_wide[] = "a value wider than its access cut to the "
    "access size";

/*
 * x64dbg's pointer-sized value (old= of a read, new= of a write) as the
 * access's bytes, little-endian, size of them.  1 done, 0 no value, -1.
 */
static int
value_bytes(struct enc *e, int write, int have_size, uint64_t size,
    size_t *n)
{
	const struct tr_field *f = tr_find(e->rec, write ? "new" : "old");
	uint64_t v;

	if (f == NULL)
		return 0;
	if (tr_u64(e->r, e->rec, f, &v) < 0)
		return -1;
	if (!have_size || size == 0 || size > 8)
		return enc_skip(e, "an access of an integer value whose size= "
		    "is not 1 to 8") < 0 ? -1 : 2;
	if (zf_buf_reserve(&e->data, 8) < 0)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "out of memory");
	tp_put_le64(e->data.p, v);
	*n = (size_t)size;
	if (size < 8 && v >> (size * 8) != 0 && tr_lose(e->r, e->rec,
	    &e->st->skipped, lose_wide, "%s=0x%llx, size=%llu",
	    write ? "new" : "old", (unsigned long long)v,
	    (unsigned long long)size) < 0)
		return -1;
	if (write && tr_find(e->rec, "old") != NULL && tr_lose(e->r, e->rec,
	    &e->st->skipped, lose_old, "old=") < 0)
		return -1;
	return 1;
}

enum { A_TID, A_DEPTH, A_PC, A_ADDR, A_SIZE, A_DATA };

static int
access_record(struct enc *e, int write)
{
	const struct tr_field *got[NKEYS];
	uint64_t addr, size = 0;
	size_t n = 0;
	unsigned char *p;
	int rc, hs;

	if (check_fields(e, known_access, got, NULL) < 0)
		return -1;
	if (got[A_ADDR] == NULL)
		return tr_fail(e->r, e->rec, NULL, "no addr= field");
	hs = got[A_SIZE] != NULL;
	if (tr_u64(e->r, e->rec, got[A_ADDR], &addr) < 0 ||
	    (hs && tr_u64(e->r, e->rec, got[A_SIZE], &size) < 0) ||
	    (rc = field_bytes(e, got[A_DATA], &n)) < 0)
		return -1;
	if (rc == 0 && (rc = value_bytes(e, write, hs, size, &n)) != 1) {
		if (rc != 0)
			return rc < 0 ? -1 : 1;
		if (!e->trace || write)
			return enc_skip(e, write ? "write without data=" :
			    "read without data=");
		if (hs == 0)
			return tr_fail(e->r, e->rec, NULL, "no size= field");
		n = (size_t)size;
	} else if (hs > 0 && size != n) {
		return tr_fail(e->r, e->rec, tr_find(e->rec, "size"), "%llu, "
		    "but data= holds %zu bytes", (unsigned long long)size, n);
	}
	if (check_tid(e) < 0)
		return -1;
	if (e->trace && !write) {
		if (rc > 0 && tr_lose(e->r, e->rec, &e->st->skipped, lose_read,
		    "read of %zu bytes", n) < 0)
			return -1;
		if (n > UINT32_MAX)
			return enc_skip(e, "a read of 4 GiB or more");
		if (op_place(e) < 0 || (p = room(e, 13)) == NULL)
			return -1;
		p[0] = UCIR_T_MEM_READ;
		tp_put_le64(p + 1, addr);
		tp_put_le32(p + 9, (uint32_t)n);
		e->raw.len += 13;
		return 0;
	}
	if (e->trace) {
		if (n > UINT32_MAX)
			return enc_skip(e, "a write of 4 GiB or more");
		if (op_place(e) < 0 || (p = room(e, 13 + n)) == NULL)
			return -1;
		p[0] = UCIR_T_MEM_WRITE;
		tp_put_le64(p + 1, addr);
		tp_put_le32(p + 9, (uint32_t)n);
		memcpy(p + 13, e->data.p, n);
		e->raw.len += 13 + n;
		return 0;
	}
	if (op_place(e) < 0 || (p = room(e, 17 + n)) == NULL)
		return -1;
	p[0] = write ? UCIR_OP_MEM_WRITE : UCIR_OP_MEM_READ;
	tp_put_be64(p + 1, addr);
	tp_put_be64(p + 9, n);
	memcpy(p + 17, e->data.p, n);
	e->raw.len += 17 + n;
	return 0;
}

static const char lose_reg[] = "an unknown register name dropped";

/* The register's number: 1, 0 for an unknown name (counted), -1. */
static int
get_reg(struct enc *e, const struct tr_field *f, unsigned *num)
{
	char name[40], show[TP_SHOW_MAX];
	size_t n;
	uint64_t v;
	int r;

	if (f == NULL)
		return tr_fail(e->r, e->rec, NULL, "no reg= field");
	if (tp_parse_u64(f->val, f->vallen, &v) == 0) {
		if (v > UINT16_MAX)
			return tr_fail(e->r, e->rec, f, "does not fit in 16 bits");
		*num = (unsigned)v;
		return 1;
	}
	/* A value that is no string is an error, not a name to drop. */
	if (f->vallen < sizeof name && tr_str(e->r, e->rec, f, name,
	    sizeof name, &n) < 0)
		return -1;
	if (f->vallen >= sizeof name ||
	    (r = ucir_reg_num(e->regs, name, n)) < 0)
		return tr_lose(e->r, e->rec, &e->st->skipped, lose_reg,
		    "reg=%s: no register of that name for the header's arch (a "
		    "number is always accepted)", tp_show(show, f->val,
		    f->vallen)) < 0 ? -1 : 0;
	*num = (unsigned)r;
	return 1;
}

static int
reg_record(struct enc *e, int special)
{
	const struct tr_field *got[NKEYS];
	unsigned num = 0;
	uint64_t value = 0;
	size_t n = 0;
	unsigned char *p;
	int rc, named;

	/* reg= is key 2, value= or data= key 3 (known_reg, known_spreg) */
	if (check_fields(e, special ? known_spreg : known_reg, got, NULL) < 0 ||
	    (named = get_reg(e, got[2], &num)) < 0)
		return -1;
	if (special) {
		if ((rc = field_bytes(e, got[3], &n)) < 0)
			return -1;
		if (rc == 0)
			return tr_fail(e->r, e->rec, NULL, "no data= field");
		if (n > UINT16_MAX)
			return tr_fail(e->r, e->rec, got[3], "longer than 65535 "
			    "bytes");
	} else if (got[3] == NULL) {
		return tr_fail(e->r, e->rec, NULL, "ucir-reg record without "
		    "field \"value\"");
	} else if (tr_u64(e->r, e->rec, got[3], &value) < 0) {
		return -1;
	}
	if (named == 0)
		return 0;
	if (special)
		return put_reg_op(e, num, e->data.p, n, 1);
	if (op_place(e) < 0 || (p = room(e, 11)) == NULL)
		return -1;
	p[0] = e->trace ? UCIR_T_REG : UCIR_OP_REG_CHANGE;
	put16(e, p + 1, (uint16_t)num);
	put64(e, p + 3, value);
	e->raw.len += 11;
	return 0;
}

static int
get_prot(struct enc *e, unsigned *prot)
{
	const struct tr_field *f = tr_find(e->rec, "prot");
	uint64_t v;

	if (f == NULL)
		return tr_fail(e->r, e->rec, NULL, "no prot= field");
	if (f->vallen == 3 && (f->val[0] == 'r' || f->val[0] == '-') &&
	    (f->val[1] == 'w' || f->val[1] == '-') &&
	    (f->val[2] == 'x' || f->val[2] == '-')) {
		*prot = (f->val[0] == 'r') | (f->val[1] == 'w') << 1 |
		    (f->val[2] == 'x') << 2;
		return 0;
	}
	if (tr_u64(e->r, e->rec, f, &v) < 0)
		return -1;
	if (v > 0xff)
		return tr_fail(e->r, e->rec, f, "does not fit in 8 bits");
	*prot = (unsigned)v;
	return 0;
}

static const char lose_mapfile[] = "a mapping's file, offset and "
    "description dropped (the replay format has none)";

/* A trace's MEM_MAP: the file-backed part and the names too. */
static int
trace_map(struct enc *e, uint64_t addr, uint64_t size, unsigned prot)
{
	uint64_t off = 0, len = 0;
	size_t dl = 0, fl = 0;
	unsigned char *p;
	const struct tr_field *d = tr_find(e->rec, "desc"),
	    *f = tr_find(e->rec, "file");

	if (get_u64(e, "off", &off, 0) < 0 || get_u64(e, "len", &len, 0) < 0)
		return -1;
	if ((d != NULL && d->vallen > UINT16_MAX) ||
	    (f != NULL && f->vallen > UINT16_MAX))
		return tr_fail(e->r, e->rec, d, "desc and file hold 65535 bytes "
		    "at most");
	if (op_place(e) < 0 || (p = room(e, 38 + (d ? d->vallen : 0) +
	    (f ? f->vallen : 0))) == NULL)
		return -1;
	p[0] = UCIR_T_MEM_MAP;
	tp_put_le64(p + 1, addr);
	tp_put_le64(p + 9, size);
	p[17] = (unsigned char)prot;
	tp_put_le64(p + 18, off);
	tp_put_le64(p + 26, len);
	if (d != NULL && tr_str(e->r, e->rec, d, p + 38, d->vallen, &dl) < 0)
		return -1;
	if (f != NULL && tr_str(e->r, e->rec, f, p + 38 + dl, f->vallen,
	    &fl) < 0)
		return -1;
	tp_put_le16(p + 34, (uint16_t)dl);
	tp_put_le16(p + 36, (uint16_t)fl);
	e->raw.len += 38 + dl + fl;
	return 0;
}

/* map: 1 ucir-map, 0 ucir-unmap, 2 ucir-prot (trace format only). */
static int
map_record(struct enc *e, int map)
{
	uint64_t addr, size;
	unsigned prot = 0;
	unsigned char *p;

	if (check_fields(e, known_map, NULL, NULL) < 0)
		return -1;
	if (map == 2 && !e->trace)
		return enc_skip(e, "ucir-prot (trace format only)");
	if (get_u64(e, "addr", &addr, 1) < 0 ||
	    get_u64(e, "size", &size, 1) < 0 || (map && get_prot(e, &prot) < 0))
		return -1;
	if (e->trace && map == 1)
		return trace_map(e, addr, size, prot);
	if (e->trace) {
		if (op_place(e) < 0 || (p = room(e, 18)) == NULL)
			return -1;
		p[0] = map ? UCIR_T_MEM_PROT : UCIR_T_MEM_UNMAP;
		tp_put_le64(p + 1, addr);
		tp_put_le64(p + 9, size);
		p[17] = (unsigned char)prot;
		e->raw.len += map ? 18 : 17;
		return 0;
	}
	if (map && (tr_find(e->rec, "file") != NULL ||
	    tr_find(e->rec, "desc") != NULL) && tr_lose(e->r, e->rec,
	    &e->st->skipped, lose_mapfile, "desc= or file=") < 0)
		return -1;
	if (size > UINT32_MAX)
		return enc_skip(e, "a mapping of 4 GiB or more");
	if (op_place(e) < 0 || (p = room(e, 14)) == NULL)
		return -1;
	p[0] = map ? UCIR_OP_MEM_MAP : UCIR_OP_MEM_UNMAP;
	tp_put_be64(p + 1, addr);
	tp_put_be32(p + 9, (uint32_t)size);
	p[13] = (unsigned char)prot;
	e->raw.len += map ? 14 : 13;
	return 0;
}

static int
syscall_record(struct enc *e)
{
	const struct tr_field *f = tr_find(e->rec, "args");
	uint64_t num, ret = 0;
	const char *cur, *end, *val;
	size_t vlen, argc = 0, at;
	unsigned char *p;

	size_t hl = e->trace ? 16 : 15;

	if (check_fields(e, known_syscall, NULL, NULL) < 0)
		return -1;
	if (get_u64(e, "num", &num, 1) < 0 || get_u64(e, "ret", &ret, 0) < 0)
		return -1;
	if (num > (e->trace ? UINT32_MAX : UINT16_MAX))
		return enc_skip(e, e->trace ? "a syscall number over 2^32-1" :
		    "a syscall number over 65535");
	if (f != NULL && (f->vallen < 2 || f->val[0] != '['))
		return tr_fail(e->r, e->rec, f, "a list [a,b,...] expected");
	if (op_place(e) < 0)
		return -1;
	if (e->depth + 1 >= UCIR_MAX_DEPTH)
		return tr_fail(e->r, e->rec, NULL, "syscalls nested deeper than "
		    "%d", UCIR_MAX_DEPTH);
	if ((p = room(e, hl)) == NULL)
		return -1;
	at = e->raw.len;
	if (e->trace) {
		p[0] = UCIR_T_SYSCALL;
		tp_put_le32(p + 1, (uint32_t)num);
		tp_put_le64(p + 5, ret);
		tp_put_le16(p + 14, 0);
	} else {
		p[0] = UCIR_OP_SYSCALL;
		tp_put_be16(p + 1, (uint16_t)num);
		tp_put_be64(p + 3, ret);
		tp_put_be16(p + 13, 0);
	}
	e->raw.len += hl;
	if (f != NULL) {
		cur = f->val;
		end = f->val + f->vallen;
		while (tr_elem(&cur, end, NULL, NULL, &val, &vlen) == 1) {
			uint64_t v;
			if (tp_parse_u64(val, vlen, &v) < 0)
				return tr_fail(e->r, e->rec, f, "argument %zu is "
				    "not a number", argc + 1);
			if (argc == (e->trace ? UINT8_MAX : UINT16_MAX))
				return tr_fail(e->r, e->rec, f, "more than %u "
				    "arguments", e->trace ? UINT8_MAX : UINT16_MAX);
			if ((p = room(e, 8)) == NULL)
				return -1;
			put64(e, p, v);
			e->raw.len += 8;
			argc++;
		}
	}
	if (e->trace)
		e->raw.p[at + 13] = (unsigned char)argc;
	else
		tp_put_be16(e->raw.p + at + 11, (uint16_t)argc);
	e->sys_at[e->depth] = at + hl - 2;
	e->sys_count[e->depth] = 0;
	e->depth++;
	return 0;
}

static int
plain_record(struct enc *e, unsigned op)
{
	unsigned char *p;

	if (check_fields(e, known_plain, NULL, NULL) < 0)
		return -1;
	if (e->trace)
		op = op == UCIR_OP_EXIT ? UCIR_T_EXIT : UCIR_T_NOP;
	if (op_place(e) < 0 || (p = room(e, 1)) == NULL)
		return -1;
	p[0] = (unsigned char)op;
	e->raw.len++;
	return 0;
}

/* A trace's basic block: where the STEPs after it are. */
static int
jmp_record(struct enc *e)
{
	uint64_t pc, size;
	unsigned char *p;

	if (check_fields(e, known_jmp, NULL, NULL) < 0)
		return -1;
	if (!e->trace)
		return enc_skip(e, "ucir-jmp (trace format only)");
	if (get_u64(e, "pc", &pc, 1) < 0 || get_uint(e, "size", &size, 32,
	    1) < 0 || op_place(e) < 0 || (p = room(e, 13)) == NULL)
		return -1;
	p[0] = UCIR_T_JMP;
	tp_put_le64(p + 1, pc);
	tp_put_le32(p + 9, (uint32_t)size);
	e->raw.len += 13;
	e->tpc = pc;
	e->have_tpc = 1;
	e->frame_jmp = 1;
	return 0;
}

/*
 * x64dbg's header says the dump's layout, and the Usercorn arch when
 * the stream has no ucir-header.
 */
static int
trac_header(struct enc *e)
{
	const struct tr_field *f = tr_find(e->rec, "arch");

	if (f == NULL || f->vallen != 3 || (memcmp(f->val, "x64", 3) != 0 &&
	    memcmp(f->val, "x86", 3) != 0))
		return enc_skip(e, "an x64dbg trace of another arch than x64 "
		    "and x86");
	e->xarch = f->val[2] == '6';
	if (!e->header_done)
		return default_header(e, e->xarch ? "x86" : "x86_64");
	return 0;
}

static int
encode_record(struct enc *e)
{
	int kind = tp_kind(e->rec->kind, e->rec->kindlen,
	    (size_t)(e->rec->line + e->rec->len - e->rec->kind));

	e->tid = 0;
	if (IS("ucir-header"))
		return check_fields(e, known_header, NULL, NULL) < 0 ? -1 :
		    header_record(e);
	if (IS("trac-header"))
		return trac_header(e);
	if (!e->header_done && default_header(e, NULL) < 0)
		return -1;
	if (kind == TK_INSN)
		return insn_record(e);
	if (kind == TK_READ || kind == TK_WRITE)
		return access_record(e, kind == TK_WRITE);
	/* An x64dbg instruction's accesses came; what comes now is after it. */
	if (e->step_pending && flush_step(e) < 0)
		return -1;
	if (e->rec->kindlen < 5 || memcmp(e->rec->kind, "ucir-", 5) != 0)
		return tr_rebuilt(&e->st->skipped, e->rec) ? 1 :
		    enc_skip(e, "a record of another format");
	if (IS("ucir-frame"))
		return check_fields(e, known_frame, NULL, NULL) < 0 ? -1 :
		    frame_record(e);
	if (IS("ucir-reg"))
		return reg_record(e, 0);
	if (IS("ucir-spreg"))
		return reg_record(e, 1);
	if (IS("ucir-map"))
		return map_record(e, 1);
	if (IS("ucir-unmap"))
		return map_record(e, 0);
	if (IS("ucir-syscall"))
		return syscall_record(e);
	if (IS("ucir-exit"))
		return plain_record(e, UCIR_OP_EXIT);
	if (IS("ucir-nop"))
		return plain_record(e, UCIR_OP_NOP);
	if (IS("ucir-jmp"))
		return jmp_record(e);
	if (IS("ucir-prot"))
		return map_record(e, 2);
	return enc_skip(e, "an unknown ucir- record");
}

int
ucir_encode(struct tr_reader *r, struct tp_out *out,
    const struct ucir_enc_opts *opts, struct ucir_enc_stats *st,
    struct tp_err *err)
{
	static const struct ucir_enc_opts defaults;
	struct ucir_enc_stats dummy;
	struct enc *e;
	int rc = 0;

	r->err = err;	/* the reader's errors are the encoder's */
	if (opts == NULL)
		opts = &defaults;
	if (st == NULL)
		st = &dummy;
	memset(st, 0, sizeof *st);
	st->skipped.strict = opts->strict;
	st->skipped.cannot = "not expressible in a Usercorn replay file";
	if ((e = calloc(1, sizeof *e)) == NULL ||
	    (e->rec = malloc(sizeof *e->rec)) == NULL) {
		free(e);
		return tp_fail(r->err, TP_EXIT_FAIL, "out of memory");
	}
	e->r = r;
	e->out = out;
	e->opts = opts;
	e->st = st;
	e->max = opts->max_frame ? opts->max_frame : UCIR_MAX_FRAME;
	e->level = opts->level_plus1 ? opts->level_plus1 - 1 : UCIR_LEVEL;
	e->frame_ops = opts->frame_ops ? opts->frame_ops : UCIR_FRAME_OPS;
	e->trace = opts->trace;
	e->xarch = e->hdr_xarch = -1;
	if (e->trace) {
		st->skipped.cannot = "not expressible in a Usercorn trace";
		if ((e->sw = calloc(1, sizeof *e->sw)) == NULL)
			rc = tp_fail(r->err, TP_EXIT_FAIL, "out of memory");
	}
	zf_init(&e->z);
	if (e->level < 0 || e->level > 9)
		rc = tp_fail(r->err, TP_EXIT_FAIL, "zlib level %d (0-9)",
		    e->level);
	while (rc == 0) {
		int got = tr_next(r, e->rec);
		if (got <= 0) {
			rc = got;
			break;
		}
		st->records++;
		if (encode_record(e) < 0)
			rc = -1;
	}
	if (rc == 0 && !e->header_done)
		rc = default_header(e, NULL);
	if (rc == 0)
		rc = frame_flush(e);
	/* A trace always starts with a keyframe, if an empty one. */
	if (rc == 0 && e->trace && st->frames == 0) {
		e->frame_open = e->frame_flag = 1;
		e->frame_count = 0;
		e->raw.len = 0;
		rc = frame_flush(e);
	}
	/* Frames flushed before an error are written, as without the thread. */
	if (e->zw != NULL && (frame_send(e) < 0 || frame_drain(e) < 0))
		rc = -1;
	zf_worker_free(e->zw);
	zf_batch_free(&e->zb);
	if (rc == 0)
		rc = put_header(e, 1);
	else
		put_header(e, 0);	/* what went before the error, as ever */
	if (e->trace)
		ucir_sw_flush(e->sw, out);
	free(e->sw);
	free(e->x);
	zf_free(&e->z);
	zf_buf_free(&e->raw);
	zf_buf_free(&e->comp);
	zf_buf_free(&e->data);
	free(e->rec);
	free(e);
	return rc;
}
