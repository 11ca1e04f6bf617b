/*
 * Usercorn traces: the encoder (txt2ucir), text records into a replay
 * file (usercorn's 2016 PROTOCOL.md: 80-byte big-endian header, OP_FRAME
 * messages of zlib-compressed big-endian ops; see ucir.c for the widths
 * and the flag).
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
	int frame_open, frame_made;
	unsigned frame_flag;
	int frame_level;
	uint32_t frame_count;
	unsigned depth;		/* syscalls open */
	size_t sys_at[UCIR_MAX_DEPTH];	/* where each one's op_count is */
	uint32_t sys_count[UCIR_MAX_DEPTH];
	uint64_t next;		/* where an EXEC_REL instruction would be */
};

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
get_bytes(struct enc *e, const char *key, size_t *n)
{
	const struct tr_field *f = tr_find(e->rec, key);

	if (f == NULL)
		return 0;
	if (zf_buf_reserve(&e->data, f->vallen / 2 + 1) < 0)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "out of memory");
	if (tr_bytes(e->r, e->rec, f, e->data.p, e->data.cap, n) < 0)
		return -1;
	return 1;
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
	tp_put_be16(e->raw.p + e->sys_at[e->depth],
	    (uint16_t)e->sys_count[e->depth]);
}

/*
 * The header, written before the first frame or at the end.  A header
 * alone whose os padding puts the start of the Snappy stream identifier
 * at offset 74 is refused: ucir2txt reads such 80 bytes as a usercorn
 * trace cut inside the identifier (a frame after the header tells them
 * apart: byte 80 is OP_FRAME).  Only a replay header's padding can do
 * that: a trace header's is not carried, and a name holds no NUL.
 */
static int
put_header(struct enc *e, int alone)
{
	if (!e->hdr_pending)
		return 0;
	if (alone && memcmp(e->hdr + UCIR_TRACE_HEADER, tp_snappy_ident,
	    UCIR_REPLAY_HEADER - UCIR_TRACE_HEADER) == 0) {
		e->st->ambiguous = 1;
		e->r->err->line = e->hdr_line;
		e->r->err->col = 0;
		e->r->err->offset = TP_NONE;
		return tp_fail(e->r->err, TP_EXIT_DATA, "os_pad puts the start "
		    "of a Snappy stream identifier at offset 74: this header "
		    "alone would read as a usercorn trace cut there (a frame "
		    "after it tells them apart)");
	}
	tp_out_write(e->out, e->hdr, sizeof e->hdr);
	e->hdr_pending = 0;
	return 0;
}

static int
frame_flush(struct enc *e)
{
	unsigned char h[10];
	int rc;

	if (!e->frame_open)
		return 0;
	while (e->depth > 0)
		close_syscall(e);
	rc = zf_deflate(&e->z, e->frame_level, e->raw.p, e->raw.len, &e->comp);
	if (rc < 0)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "zlib: %s", e->z.msg);
	if (e->comp.len > UINT32_MAX)
		return tp_fail(e->r->err, TP_EXIT_DATA, "a frame compresses to "
		    "more than 4 GiB");
	if (put_header(e, 0) < 0)
		return -1;
	h[0] = UCIR_OP_FRAME;
	h[1] = (unsigned char)e->frame_flag;
	tp_put_be32(h + 2, e->frame_count);
	tp_put_be32(h + 6, (uint32_t)e->comp.len);
	tp_out_write(e->out, h, sizeof h);
	tp_out_write(e->out, e->comp.p, e->comp.len);
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

static void
write_header(struct enc *e, uint32_t version, uint32_t uc_arch,
    uint32_t uc_mode, const unsigned char *arch, const unsigned char *os,
    uint64_t line)
{
	unsigned char *h = e->hdr;

	memcpy(h, "UCIR", 4);
	tp_put_be32(h + 4, version);
	tp_put_be32(h + 8, uc_arch);
	tp_put_be32(h + 12, uc_mode);
	memcpy(h + 16, arch, UCIR_NAME_LEN);
	memcpy(h + 48, os, UCIR_NAME_LEN);
	e->header_done = 1;
	e->hdr_pending = 1;
	e->hdr_line = line;
}

static int
default_header(struct enc *e)
{
	const char *arch = e->opts->arch ? e->opts->arch : "x86_64";
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
	write_header(e, 0, uc_arch, uc_mode, a, o, 0);
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
	if (header_name(e, "arch", trace ? NULL : "arch_pad", a, as, &asn) < 0 ||
	    header_name(e, "os", trace ? NULL : "os_pad", o, os, &osn) < 0)
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
	if (e->frame_open && e->frame_made && depth == 0 &&
	    e->frame_count >= e->frame_ops && frame_flush(e) < 0)
		return -1;
	if (!e->frame_open) {
		e->frame_open = 1;
		e->frame_made = 1;
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

static int
insn_record(struct enc *e)
{
	const struct tr_field *f;
	uint64_t pc, size;
	unsigned char *p;
	int abs, rc;
	size_t n;

	if ((rc = get_u64(e, "pc", &pc, 0)) <= 0)
		return rc < 0 ? -1 : enc_skip(e, "insn without pc=");
	if ((rc = get_uint(e, "size", &size, 32, 0)) < 0)
		return -1;
	if (rc == 0) {
		/* Other decoders give the opcode bytes. */
		if ((f = tr_find(e->rec, "bytes")) == NULL)
			return enc_skip(e, "insn without size= or bytes=");
		size = f->vallen / 2;
	}
	abs = pc != e->next;
	if ((f = tr_find(e->rec, "exec")) != NULL) {
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

static int
access_record(struct enc *e, int write)
{
	uint64_t addr, size;
	size_t n = 0;
	unsigned char *p;
	int rc, hs;

	if (get_u64(e, "addr", &addr, 1) < 0 ||
	    (hs = get_u64(e, "size", &size, 0)) < 0 ||
	    (rc = get_bytes(e, "data", &n)) < 0)
		return -1;
	if (rc == 0)
		return enc_skip(e, write ? "write without data=" :
		    "read without data=");
	if (hs > 0 && size != n)
		return tr_fail(e->r, e->rec, tr_find(e->rec, "size"), "%llu, "
		    "but data= holds %zu bytes", (unsigned long long)size, n);
	if (op_place(e) < 0 || (p = room(e, 17 + n)) == NULL)
		return -1;
	p[0] = write ? UCIR_OP_MEM_WRITE : UCIR_OP_MEM_READ;
	tp_put_be64(p + 1, addr);
	tp_put_be64(p + 9, n);
	memcpy(p + 17, e->data.p, n);
	e->raw.len += 17 + n;
	return 0;
}

static int
get_reg(struct enc *e, unsigned *num)
{
	const struct tr_field *f = tr_find(e->rec, "reg");
	char name[40];
	size_t n;
	uint64_t v;
	int r;

	if (f == NULL)
		return tr_fail(e->r, e->rec, NULL, "no reg= field");
	if (tp_parse_u64(f->val, f->vallen, &v) == 0) {
		if (v > UINT16_MAX)
			return tr_fail(e->r, e->rec, f, "does not fit in 16 bits");
		*num = (unsigned)v;
		return 0;
	}
	if (tr_str(e->r, e->rec, f, name, sizeof name, &n) < 0)
		return -1;
	if ((r = ucir_reg_num(e->regs, name, n)) < 0)
		return tr_fail(e->r, e->rec, f, "no register of that name for "
		    "the header's arch (a number is always accepted)");
	*num = (unsigned)r;
	return 0;
}

static int
reg_record(struct enc *e, int special)
{
	unsigned num = 0;
	uint64_t value = 0;
	size_t n = 0;
	unsigned char *p;
	int rc;

	if (get_reg(e, &num) < 0)
		return -1;
	if (special) {
		if ((rc = get_bytes(e, "data", &n)) < 0)
			return -1;
		if (rc == 0)
			return tr_fail(e->r, e->rec, NULL, "no data= field");
		if (n > UINT16_MAX)
			return tr_fail(e->r, e->rec, tr_find(e->rec, "data"),
			    "longer than 65535 bytes");
	} else if (get_u64(e, "value", &value, 1) < 0) {
		return -1;
	}
	if (op_place(e) < 0 || (p = room(e, special ? 5 + n : 11)) == NULL)
		return -1;
	tp_put_be16(p + 1, (uint16_t)num);
	if (special) {
		p[0] = UCIR_OP_SPREG_CHANGE;
		tp_put_be16(p + 3, (uint16_t)n);
		memcpy(p + 5, e->data.p, n);
		e->raw.len += 5 + n;
	} else {
		p[0] = UCIR_OP_REG_CHANGE;
		tp_put_be64(p + 3, value);
		e->raw.len += 11;
	}
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

static int
map_record(struct enc *e, int map)
{
	uint64_t addr, size;
	unsigned prot = 0;
	unsigned char *p;

	if (get_u64(e, "addr", &addr, 1) < 0 ||
	    get_u64(e, "size", &size, 1) < 0 || (map && get_prot(e, &prot) < 0))
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

	if (get_u64(e, "num", &num, 1) < 0 || get_u64(e, "ret", &ret, 0) < 0)
		return -1;
	if (num > UINT16_MAX)
		return enc_skip(e, "a syscall number over 65535");
	if (f != NULL && (f->vallen < 2 || f->val[0] != '['))
		return tr_fail(e->r, e->rec, f, "a list [a,b,...] expected");
	if (op_place(e) < 0)
		return -1;
	if (e->depth + 1 >= UCIR_MAX_DEPTH)
		return tr_fail(e->r, e->rec, NULL, "syscalls nested deeper than "
		    "%d", UCIR_MAX_DEPTH);
	if ((p = room(e, 15)) == NULL)
		return -1;
	at = e->raw.len;
	p[0] = UCIR_OP_SYSCALL;
	tp_put_be16(p + 1, (uint16_t)num);
	tp_put_be64(p + 3, ret);
	tp_put_be16(p + 13, 0);
	e->raw.len += 15;
	if (f != NULL) {
		cur = f->val;
		end = f->val + f->vallen;
		while (tr_elem(&cur, end, NULL, NULL, &val, &vlen) == 1) {
			uint64_t v;
			if (tp_parse_u64(val, vlen, &v) < 0)
				return tr_fail(e->r, e->rec, f, "argument %zu is "
				    "not a number", argc + 1);
			if (argc == UINT16_MAX)
				return tr_fail(e->r, e->rec, f, "more than 65535 "
				    "arguments");
			if ((p = room(e, 8)) == NULL)
				return -1;
			tp_put_be64(p, v);
			e->raw.len += 8;
			argc++;
		}
	}
	tp_put_be16(e->raw.p + at + 11, (uint16_t)argc);
	e->sys_at[e->depth] = at + 13;
	e->sys_count[e->depth] = 0;
	e->depth++;
	return 0;
}

static int
plain_record(struct enc *e, unsigned op)
{
	unsigned char *p;

	if (op_place(e) < 0 || (p = room(e, 1)) == NULL)
		return -1;
	p[0] = (unsigned char)op;
	e->raw.len++;
	return 0;
}

static int
encode_record(struct enc *e)
{
	int kind = tp_kind(e->rec->kind, e->rec->kindlen,
	    (size_t)(e->rec->line + e->rec->len - e->rec->kind));

	if (IS("ucir-header"))
		return header_record(e);
	if (!e->header_done && default_header(e) < 0)
		return -1;
	if (kind == TK_INSN)
		return insn_record(e);
	if (kind == TK_READ || kind == TK_WRITE)
		return access_record(e, kind == TK_WRITE);
	if (e->rec->kindlen < 5 || memcmp(e->rec->kind, "ucir-", 5) != 0)
		return enc_skip(e, "a record of another format");
	if (IS("ucir-frame"))
		return frame_record(e);
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
		return enc_skip(e, "ucir-jmp (trace format only)");
	if (IS("ucir-prot"))
		return enc_skip(e, "ucir-prot (trace format only)");
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
		rc = default_header(e);
	if (rc == 0)
		rc = frame_flush(e);
	if (rc == 0)
		rc = put_header(e, 1);
	else
		put_header(e, 0);	/* what went before the error, as ever */
	zf_free(&e->z);
	zf_buf_free(&e->raw);
	zf_buf_free(&e->comp);
	zf_buf_free(&e->data);
	free(e->rec);
	free(e);
	return rc;
}
