/*
 * x64dbg trace files: the decoder (trac2txt) and the encoder (txt2trac).
 *
 * Facts used here, from the reference (shared/reference/x64dbg.md):
 * - Slots are pointer-sized words of x64dbg's REGDUMP; the segment
 *   registers are packed, so x64 has 172 slots and x86 216.  The token
 *   tables below are the reference's appendix, in slot order.
 * - A full dump is a block with RegisterChanges equal to the slot count.
 * - Builds before PR #3920 write the thread id of the block after a thread
 *   switch without setting flag 0x80 ("tidstored=noflag" here).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "text.h"
#include "trac.h"

static const char *const x64_slot[] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9",
	"r10", "r11", "r12", "r13", "r14", "r15", "rip", "rflags",
	"gs_fs_es_ds", "cs_ss", "dr0", "dr1", "dr2", "dr3", "dr6", "dr7",
	"regarea0", "regarea1", "regarea2", "regarea3", "regarea4",
	"regarea5", "regarea6", "regarea7", "regarea8", "regarea9",
	"x87cw_sw_tw", "x87erroff_errsel", "x87dataoff_datasel",
	"x87cr0npx_mxcsr", "xmm0_0", "xmm0_1", "xmm1_0", "xmm1_1", "xmm2_0",
	"xmm2_1", "xmm3_0", "xmm3_1", "xmm4_0", "xmm4_1", "xmm5_0", "xmm5_1",
	"xmm6_0", "xmm6_1", "xmm7_0", "xmm7_1", "xmm8_0", "xmm8_1", "xmm9_0",
	"xmm9_1", "xmm10_0", "xmm10_1", "xmm11_0", "xmm11_1", "xmm12_0",
	"xmm12_1", "xmm13_0", "xmm13_1", "xmm14_0", "xmm14_1", "xmm15_0",
	"xmm15_1", "ymm0_0", "ymm0_1", "ymm0_2", "ymm0_3", "ymm1_0", "ymm1_1",
	"ymm1_2", "ymm1_3", "ymm2_0", "ymm2_1", "ymm2_2", "ymm2_3", "ymm3_0",
	"ymm3_1", "ymm3_2", "ymm3_3", "ymm4_0", "ymm4_1", "ymm4_2", "ymm4_3",
	"ymm5_0", "ymm5_1", "ymm5_2", "ymm5_3", "ymm6_0", "ymm6_1", "ymm6_2",
	"ymm6_3", "ymm7_0", "ymm7_1", "ymm7_2", "ymm7_3", "ymm8_0", "ymm8_1",
	"ymm8_2", "ymm8_3", "ymm9_0", "ymm9_1", "ymm9_2", "ymm9_3", "ymm10_0",
	"ymm10_1", "ymm10_2", "ymm10_3", "ymm11_0", "ymm11_1", "ymm11_2",
	"ymm11_3", "ymm12_0", "ymm12_1", "ymm12_2", "ymm12_3", "ymm13_0",
	"ymm13_1", "ymm13_2", "ymm13_3", "ymm14_0", "ymm14_1", "ymm14_2",
	"ymm14_3", "ymm15_0", "ymm15_1", "ymm15_2", "ymm15_3",
	"flags_cpazstid", "flags_o_x87r0_d0", "x87r0_d4", "x87r0_st_tag",
	"x87r1_d0", "x87r1_d8_st", "x87r1_tag_x87r2_d0", "x87r2_d4",
	"x87r2_st_tag", "x87r3_d0", "x87r3_d8_st", "x87r3_tag_x87r4_d0",
	"x87r4_d4", "x87r4_st_tag", "x87r5_d0", "x87r5_d8_st",
	"x87r5_tag_x87r6_d0", "x87r6_d4", "x87r6_st_tag", "x87r7_d0",
	"x87r7_d8_st", "x87r7_tag", "mm0", "mm1", "mm2", "mm3", "mm4", "mm5",
	"mm6", "mm7", "mxcsrf_0", "mxcsrf_1", "x87swf_0", "x87swf_1",
	"x87cwf_0", "x87cwf_1_lasterror",
};

static const char *const x86_slot[] = {
	"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip",
	"eflags", "gs_fs", "es_ds", "cs_ss", "dr0", "dr1", "dr2", "dr3",
	"dr6", "dr7", "regarea0", "regarea1", "regarea2", "regarea3",
	"regarea4", "regarea5", "regarea6", "regarea7", "regarea8",
	"regarea9", "regarea10", "regarea11", "regarea12", "regarea13",
	"regarea14", "regarea15", "regarea16", "regarea17", "regarea18",
	"regarea19", "x87cw_sw", "x87tw", "x87erroff", "x87errsel",
	"x87dataoff", "x87datasel", "x87cr0npx", "mxcsr", "pad47", "xmm0_0",
	"xmm0_1", "xmm0_2", "xmm0_3", "xmm1_0", "xmm1_1", "xmm1_2", "xmm1_3",
	"xmm2_0", "xmm2_1", "xmm2_2", "xmm2_3", "xmm3_0", "xmm3_1", "xmm3_2",
	"xmm3_3", "xmm4_0", "xmm4_1", "xmm4_2", "xmm4_3", "xmm5_0", "xmm5_1",
	"xmm5_2", "xmm5_3", "xmm6_0", "xmm6_1", "xmm6_2", "xmm6_3", "xmm7_0",
	"xmm7_1", "xmm7_2", "xmm7_3", "ymm0_0", "ymm0_1", "ymm0_2", "ymm0_3",
	"ymm0_4", "ymm0_5", "ymm0_6", "ymm0_7", "ymm1_0", "ymm1_1", "ymm1_2",
	"ymm1_3", "ymm1_4", "ymm1_5", "ymm1_6", "ymm1_7", "ymm2_0", "ymm2_1",
	"ymm2_2", "ymm2_3", "ymm2_4", "ymm2_5", "ymm2_6", "ymm2_7", "ymm3_0",
	"ymm3_1", "ymm3_2", "ymm3_3", "ymm3_4", "ymm3_5", "ymm3_6", "ymm3_7",
	"ymm4_0", "ymm4_1", "ymm4_2", "ymm4_3", "ymm4_4", "ymm4_5", "ymm4_6",
	"ymm4_7", "ymm5_0", "ymm5_1", "ymm5_2", "ymm5_3", "ymm5_4", "ymm5_5",
	"ymm5_6", "ymm5_7", "ymm6_0", "ymm6_1", "ymm6_2", "ymm6_3", "ymm6_4",
	"ymm6_5", "ymm6_6", "ymm6_7", "ymm7_0", "ymm7_1", "ymm7_2", "ymm7_3",
	"ymm7_4", "ymm7_5", "ymm7_6", "ymm7_7", "flags_cpaz", "flags_stid",
	"flags_o", "x87r0_d0", "x87r0_d4", "x87r0_d8", "x87r0_st",
	"x87r0_tag", "x87r1_d0", "x87r1_d4", "x87r1_d8", "x87r1_st",
	"x87r1_tag", "x87r2_d0", "x87r2_d4", "x87r2_d8", "x87r2_st",
	"x87r2_tag", "x87r3_d0", "x87r3_d4", "x87r3_d8", "x87r3_st",
	"x87r3_tag", "x87r4_d0", "x87r4_d4", "x87r4_d8", "x87r4_st",
	"x87r4_tag", "x87r5_d0", "x87r5_d4", "x87r5_d8", "x87r5_st",
	"x87r5_tag", "x87r6_d0", "x87r6_d4", "x87r6_d8", "x87r6_st",
	"x87r6_tag", "x87r7_d0", "x87r7_d4", "x87r7_d8", "x87r7_st",
	"x87r7_tag", "pad187", "mm0_0", "mm0_1", "mm1_0", "mm1_1", "mm2_0",
	"mm2_1", "mm3_0", "mm3_1", "mm4_0", "mm4_1", "mm5_0", "mm5_1",
	"mm6_0", "mm6_1", "mm7_0", "mm7_1", "mxcsrf_0", "mxcsrf_1",
	"mxcsrf_2", "mxcsrf_3", "x87swf_0", "x87swf_1", "x87swf_2",
	"x87swf_3", "x87cwf_0", "x87cwf_1", "x87cwf_2", "lasterror",
};

const struct trac_arch trac_x64 = { "x64", 8, 172, 16, x64_slot };
const struct trac_arch trac_x86 = { "x86", 4, 216, 8, x86_slot };

/*
 * Per-architecture tables built once: " token=" for the decoder and an
 * open-addressing hash of the tokens for the encoder.
 */
#define SLOT_HASH 512		/* power of two, more than twice 216 */

struct slot_tab {
	char key[TRAC_MAX_SLOTS][24];	/* " token=" */
	unsigned char keylen[TRAC_MAX_SLOTS];
	unsigned char namelen[TRAC_MAX_SLOTS];
	short hash[SLOT_HASH];		/* slot + 1, 0 for empty */
};

static struct slot_tab tabs[2];
static int tabs_ready;

static unsigned
name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return (h ^ h >> 15) & (SLOT_HASH - 1);
}

static void
tabs_init(void)
{
	const struct trac_arch *arch[2] = { &trac_x64, &trac_x86 };
	unsigned i, k;

	if (tabs_ready)
		return;
	for (k = 0; k < 2; k++) {
		struct slot_tab *t = &tabs[k];
		for (i = 0; i < arch[k]->nslots; i++) {
			const char *name = arch[k]->slot[i];
			size_t n = strlen(name);
			unsigned h = name_hash(name, n);
			t->key[i][0] = ' ';
			memcpy(t->key[i] + 1, name, n);
			t->key[i][n + 1] = '=';
			t->keylen[i] = (unsigned char)(n + 2);
			t->namelen[i] = (unsigned char)n;
			while (t->hash[h] != 0)
				h = (h + 1) & (SLOT_HASH - 1);
			t->hash[h] = (short)(i + 1);
		}
	}
	tabs_ready = 1;
}

static const struct slot_tab *
tab_of(const struct trac_arch *a)
{
	tabs_init();
	return &tabs[a == &trac_x86];
}

const struct trac_arch *
trac_arch_find(const char *name, size_t n)
{
	if (n == 3 && memcmp(name, "x64", 3) == 0)
		return &trac_x64;
	if (n == 3 && memcmp(name, "x86", 3) == 0)
		return &trac_x86;
	return NULL;
}

int
trac_slot_find(const struct trac_arch *a, const char *name, size_t n)
{
	const struct slot_tab *t = tab_of(a);
	unsigned h = name_hash(name, n);

	for (; t->hash[h] != 0; h = (h + 1) & (SLOT_HASH - 1)) {
		int s = t->hash[h] - 1;
		if (t->namelen[s] == n && memcmp(a->slot[s], name, n) == 0)
			return s;
	}
	return -1;
}

static inline uint32_t
rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static inline uint64_t
rdptr(const unsigned char *p, unsigned ps)
{
	uint64_t v = rd32(p);

	if (ps == 8)
		v |= (uint64_t)rd32(p + 4) << 32;
	return v;
}

static inline unsigned char *
wr32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
	return p + 4;
}

static inline unsigned char *
wrptr(unsigned char *p, uint64_t v, unsigned ps)
{
	p = wr32(p, (uint32_t)v);
	if (ps == 8)
		p = wr32(p, (uint32_t)(v >> 32));
	return p;
}

/* ------------------------------------------------------------ JSON header */

/*
 * Just enough JSON to find the top-level "ver" and "arch" the way x64dbg's
 * reader uses them; the header itself is carried verbatim.
 */
struct json_info {
	const char *arch;	/* the arch string's content, or NULL */
	size_t archlen;
	int has_ver;
	int ver_one;		/* ver is the number 1 */
};

static const char *
json_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* p at '"'; returns the end after the closing quote, or NULL. */
static const char *
json_string(const char *p, const char *e)
{
	for (p++; p < e; p++) {
		if (*p == '"')
			return p + 1;
		if (*p == '\\' && ++p == e)
			break;
	}
	return NULL;
}

static const char *
json_value(const char *p, const char *e, int depth)
{
	if (p >= e || depth > 64)
		return NULL;
	if (*p == '"')
		return json_string(p, e);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		int obj = *p == '{';
		p = json_ws(p + 1, e);
		if (p < e && *p == close)
			return p + 1;
		for (;;) {
			if (obj) {
				if (p >= e || *p != '"' ||
				    (p = json_string(p, e)) == NULL)
					return NULL;
				p = json_ws(p, e);
				if (p >= e || *p != ':')
					return NULL;
				p = json_ws(p + 1, e);
			}
			if ((p = json_value(p, e, depth + 1)) == NULL)
				return NULL;
			p = json_ws(p, e);
			if (p < e && *p == ',') {
				p = json_ws(p + 1, e);
				continue;
			}
			if (p < e && *p == close)
				return p + 1;
			return NULL;
		}
	}
	if (*p == '\0' || strchr("-0123456789tfn", *p) == NULL)
		return NULL;
	while (p < e && *p != '\0' &&
	    strchr("+-.0123456789eEtruefalsn", *p) != NULL)
		p++;
	return p;
}

static int
json_scan(const char *s, size_t n, struct json_info *ji)
{
	const char *p = json_ws(s, s + n), *e = s + n;

	memset(ji, 0, sizeof *ji);
	if (p >= e || *p != '{' || json_value(p, e, 0) == NULL ||
	    json_ws(json_value(p, e, 0), e) != e)
		return -1;
	p = json_ws(p + 1, e);
	while (p < e && *p == '"') {
		const char *k = p + 1, *ke = json_string(p, e), *v, *ve;
		size_t kn = (size_t)(ke - 1 - k);
		v = json_ws(json_ws(ke, e) + 1, e);
		ve = json_value(v, e, 1);
		if (kn == 4 && memcmp(k, "arch", 4) == 0 && *v == '"') {
			ji->arch = v + 1;
			ji->archlen = (size_t)(ve - v - 2);
		} else if (kn == 3 && memcmp(k, "ver", 3) == 0) {
			char num[32];
			char *end;
			size_t vn = (size_t)(ve - v);
			ji->has_ver = 1;
			if (vn < sizeof num && *v != '"' && *v != '{' &&
			    *v != '[') {
				memcpy(num, v, vn);
				num[vn] = '\0';
				ji->ver_one = strtod(num, &end) == 1.0 &&
				    *end == '\0';
			}
		}
		p = json_ws(ve, e);
		if (p < e && *p == ',')
			p = json_ws(p + 1, e);
	}
	return 0;
}

/* ---------------------------------------------------------------- decoder */

enum { BLK_OK, BLK_SHORT, BLK_BAD };
enum { F_NONE, F_NREG, F_NMEM, F_OPLEN, F_POS };

/* One instruction block, pointing into the input buffer. */
struct blk {
	size_t len;		/* bytes of the block, or needed when short */
	unsigned nreg, nmem, flags, oplen, nnew;
	int tid_in;		/* 0 absent, 1 flagged, 2 without flag */
	uint32_t tid;
	int fault;
	unsigned bad;		/* the offending value */
	const unsigned char *op, *val, *mflag, *addr, *old, *new_;
	unsigned char abs[TRAC_MAX_SLOTS];
};

/*
 * Parse the instruction block at p (avail bytes there).  extra_tid: read
 * a thread id although flag 0x80 is clear (the pre-#3920 writer bug).
 */
static int
parse_insn(const struct trac_arch *a, const unsigned char *p, size_t avail,
    int extra_tid, struct blk *b)
{
	unsigned ps = a->ptrsize, i, cur;
	size_t n = 4;

	if (avail < 4) {
		b->len = 4;
		return BLK_SHORT;
	}
	b->nreg = p[1];
	b->nmem = p[2];
	b->flags = p[3];
	b->oplen = p[3] & TRAC_FLAG_OPLEN;
	b->fault = F_NONE;
	if (b->nreg > a->nslots) {
		b->fault = F_NREG, b->bad = b->nreg;
		return BLK_BAD;
	}
	if (b->nmem > TRAC_MAX_ACCESSES) {
		b->fault = F_NMEM, b->bad = b->nmem;
		return BLK_BAD;
	}
	if (b->oplen == 0) {
		b->fault = F_OPLEN, b->bad = 0;
		return BLK_BAD;
	}
	b->tid_in = (b->flags & TRAC_FLAG_TID) ? 1 : extra_tid ? 2 : 0;
	if (b->tid_in) {
		n += 4;
		if (avail < n) {
			b->len = n;
			return BLK_SHORT;
		}
		b->tid = rd32(p + 4);
	}
	b->op = p + n;
	n += b->oplen;
	if (avail < n + b->nreg) {
		b->len = n + b->nreg;
		return BLK_SHORT;
	}
	for (i = 0, cur = (unsigned)-1; i < b->nreg; i++) {
		cur += 1u + p[n + i];
		if (cur >= a->nslots) {
			b->fault = F_POS, b->bad = cur;
			return BLK_BAD;
		}
		b->abs[i] = (unsigned char)cur;
	}
	n += b->nreg;
	b->val = p + n;
	n += (size_t)b->nreg * ps;
	b->mflag = p + n;
	n += b->nmem;
	if (avail < n) {
		b->len = n;
		return BLK_SHORT;
	}
	for (i = 0, b->nnew = 0; i < b->nmem; i++)
		b->nnew += !(b->mflag[i] & TRAC_MEM_UNCHANGED);
	b->addr = p + n;
	n += (size_t)b->nmem * ps;
	b->old = p + n;
	n += (size_t)b->nmem * ps;
	b->new_ = p + n;
	n += (size_t)b->nnew * ps;
	b->len = n;
	return avail < n ? BLK_SHORT : BLK_OK;
}

/*
 * How many blocks from p on parse cleanly (up to depth), reading no
 * hidden thread ids.  Ending exactly at the end of the buffered bytes
 * counts as clean to the end; a block running past them counts no more.
 */
static int
chain_score(const struct trac_arch *a, const unsigned char *p, size_t avail,
    int depth)
{
	struct blk b;
	int k;

	for (k = 0; k < depth; k++) {
		if (avail == 0)
			return depth;
		if (p[0] >= 0x80) {
			size_t n;
			if (avail < 5)
				return k;
			n = 5 + (size_t)rd32(p + 1);
			if (avail < n)
				return k;
			p += n, avail -= n;
			continue;
		}
		if (p[0] != 0 || parse_insn(a, p, avail, 0, &b) != BLK_OK)
			return k;
		p += b.len, avail -= b.len;
	}
	return depth;
}

struct dec {
	const struct trac_arch *a;
	const struct slot_tab *t;
	const struct trac_dec_opts *opts;
	struct trac_dec_stats *st;
	struct tp_out *out;
	uint64_t seq;
	uint64_t cip;
	uint32_t tid;
	int have_tid;
	int need_tid;		/* repair: the next block surely has a tid */
	int maybe_tid;		/* repair: it may have one */
	uint64_t marker;	/* last block that looks like a switch marker */
	int prev_full;		/* the previous instruction block was a dump */
};

static void
emit_insn(struct dec *d, const struct blk *b)
{
	const struct trac_arch *a = d->a;
	const struct slot_tab *t = d->t;
	unsigned ps = a->ptrsize, i;
	int full = b->nreg == a->nslots;
	int dflt = full || !d->have_tid;	/* what txt2trac would store */
	uint32_t tid = b->tid_in ? b->tid : d->tid;
	const unsigned char *nv = b->new_;
	char head[96], *h, *p;
	size_t headlen;

	if (b->tid_in == 0 && !d->have_tid)
		tid = 0;
	dflt = dflt || tid != d->tid;
	for (i = 0; i < b->nreg; i++)
		if (b->abs[i] == a->cip)
			d->cip = rdptr(b->val + (size_t)i * ps, ps);

	/* " tid=T seq=N pc=0x..", shared by the access records. */
	h = head;
	memcpy(h, " tid=", 5);
	h = tp_fmt_u64(h + 5, tid);
	memcpy(h, " seq=", 5);
	h = tp_fmt_u64(h + 5, d->seq);
	memcpy(h, " pc=", 4);
	h = tp_fmt_hex(h + 4, d->cip);
	headlen = (size_t)(h - head);

	p = tp_out_reserve(d->out, 128 + headlen + 2 * TRAC_MAX_OPCODE +
	    (size_t)b->nreg * (24 + 18));
	memcpy(p, "insn seq=", 9);
	p = tp_fmt_u64(p + 9, d->seq);
	memcpy(p, " tid=", 5);
	p = tp_fmt_u64(p + 5, tid);
	memcpy(p, " pc=", 4);
	p = tp_fmt_hex(p + 4, d->cip);
	memcpy(p, " bytes=", 7);
	p = tp_fmt_hexbytes(p + 7, b->op, b->oplen);
	if (b->tid_in == 2) {
		memcpy(p, " tidstored=noflag", 17);
		p += 17;
	} else if (b->tid_in == 1 && !dflt) {
		memcpy(p, " tidstored=1", 12);
		p += 12;
	} else if (b->tid_in == 0 && dflt) {
		memcpy(p, " tidstored=0", 12);
		p += 12;
	}
	if (b->flags & TRAC_FLAG_RSVD) {
		memcpy(p, " rsvd=", 6);
		p = tp_fmt_hex(p + 6, b->flags & TRAC_FLAG_RSVD);
	}
	for (i = 0; i < b->nreg; i++) {
		unsigned s = b->abs[i];
		memcpy(p, t->key[s], 24);
		p = tp_fmt_hex(p + t->keylen[s],
		    rdptr(b->val + (size_t)i * ps, ps));
	}
	*p++ = '\n';
	tp_out_commit(d->out, p);

	for (i = 0; i < b->nmem; i++) {
		unsigned f = b->mflag[i];
		int unchanged = f & TRAC_MEM_UNCHANGED;
		p = tp_out_reserve(d->out, 128 + headlen);
		if (unchanged) {
			memcpy(p, "read", 4);
			p += 4;
		} else {
			memcpy(p, "write", 5);
			p += 5;
		}
		memcpy(p, head, headlen);
		p += headlen;
		memcpy(p, " addr=", 6);
		p = tp_fmt_hex(p + 6, rdptr(b->addr + (size_t)i * ps, ps));
		memcpy(p, ps == 8 ? " size=8 old=" : " size=4 old=", 12);
		p = tp_fmt_hex(p + 12, rdptr(b->old + (size_t)i * ps, ps));
		if (!unchanged) {
			memcpy(p, " new=", 5);
			p = tp_fmt_hex(p + 5, rdptr(nv, ps));
			nv += ps;	/* NewData holds the changed ones only */
		}
		if (f & ~TRAC_MEM_UNCHANGED) {
			memcpy(p, " flags=", 7);
			p = tp_fmt_hex(p + 7, f);
		}
		*p++ = '\n';
		tp_out_commit(d->out, p);
	}

	/* The state the next block is read against. */
	if (d->opts->repair_tid) {
		d->need_tid = d->maybe_tid = 0;
		if (b->tid_in == 1) {
			/*
			 * The buggy writer sets the flag on the last block of
			 * a thread (same tid as before) and then writes the
			 * next block's tid without the flag.  After a full dump
			 * or a real switch a hidden tid may follow too.
			 */
			if (!full && d->have_tid && tid == d->tid)
				d->need_tid = 1;
			else
				d->maybe_tid = 1;
		}
	}
	d->tid = tid;
	d->have_tid = 1;
	d->prev_full = full;
	d->seq++;
	d->st->insns++;
	d->st->accesses += b->nmem;
	d->st->full_dumps += full;
	if (b->tid_in == 2)
		d->st->repaired_tids++;
}

static const char bug_hint[] = " (thread id written without flag 0x80? "
    "x64dbg writer bug before PR #3920; try --repair-tid)";

static int
block_fault(struct dec *d, struct tp_err *err, const struct blk *b,
    int hint)
{
	const char *h = hint && !d->opts->repair_tid ? bug_hint : "";

	switch (b->fault) {
	case F_NREG:
		return tp_fail(err, TP_EXIT_DATA, "%u register changes, more "
		    "than the %u slots of %s%s", b->bad, d->a->nslots,
		    d->a->name, h);
	case F_NMEM:
		return tp_fail(err, TP_EXIT_DATA, "%u memory accesses, more "
		    "than %d%s", b->bad, TRAC_MAX_ACCESSES, h);
	case F_OPLEN:
		return tp_fail(err, TP_EXIT_DATA, "opcode length 0 (1 to 15 "
		    "expected)%s", h);
	default:
		return tp_fail(err, TP_EXIT_DATA, "register position %u out "
		    "of range (max %u)%s", b->bad, d->a->nslots - 1, h);
	}
}

static int
decode_header(struct tp_in *in, struct tp_out *out, struct trac_dec_stats *st,
    struct tp_err *err)
{
	struct json_info ji;
	const unsigned char *p;
	char *json;
	uint32_t len;
	long avail, got;

	err->offset = 0;
	if ((avail = tp_in_fill(in, 8)) < 0)
		return -1;
	p = in->buf + in->pos;
	if (avail == 0)
		return tp_fail(err, TP_EXIT_DATA, "empty input: no TRAC header");
	if (memcmp(p, "TRAC", avail < 4 ? (size_t)avail : 4) != 0)
		return tp_fail(err, TP_EXIT_DATA, "bad magic: not an x64dbg "
		    "trace (expected \"TRAC\")");
	if (avail < 8)
		return tp_fail(err, TP_EXIT_DATA, "truncated header: needs 8 "
		    "bytes, only %ld left", avail);
	len = rd32(p + 4);
	if (len > 0x7fffffffu)
		return tp_fail(err, TP_EXIT_DATA, "JSON header length 0x%lx is "
		    "negative for x64dbg", (unsigned long)len);
	if (len > TRAC_HEADER_MAX)
		return tp_fail(err, TP_EXIT_DATA, "JSON header length %lu, more "
		    "than %d", (unsigned long)len, TRAC_HEADER_MAX);
	in->pos += 8;
	st->header_len = len;
	err->offset = 8;
	if ((json = malloc(len + 1)) == NULL)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory for a JSON "
		    "header of %lu bytes", (unsigned long)len);
	if ((got = tp_in_read(in, json, len)) < 0) {
		free(json);
		return -1;
	}
	if ((size_t)got < len) {
		free(json);
		return tp_fail(err, TP_EXIT_DATA, "truncated JSON header: needs "
		    "%lu bytes, only %ld left", (unsigned long)len, got);
	}
	if (json_scan(json, len, &ji) < 0) {
		free(json);
		return tp_fail(err, TP_EXIT_DATA, "JSON header is corrupted");
	}
	if (!ji.has_ver || !ji.ver_one) {
		free(json);
		return tp_fail(err, TP_EXIT_DATA, "JSON header: version not "
		    "supported (\"ver\" must be the number 1)");
	}
	if (ji.arch == NULL) {
		free(json);
		return tp_fail(err, TP_EXIT_DATA, "JSON header has no \"arch\" "
		    "string");
	}
	if ((st->arch = trac_arch_find(ji.arch, ji.archlen)) == NULL) {
		tp_fail(err, TP_EXIT_DATA, "JSON header: unsupported arch "
		    "\"%.*s\" (x64 or x86 expected)",
		    ji.archlen > 20 ? 20 : (int)ji.archlen, ji.arch);
		free(json);
		return -1;
	}
	tw_begin(out, "trac-header");
	tw_str(out, "arch", st->arch->name, 3);
	tw_qstr(out, "json", json, len);
	tw_end(out);
	free(json);
	err->offset = TP_NONE;
	return 0;
}

/* A user block 0x80-0xff at the current position: u32 length, payload. */
static int
decode_user(struct dec *d, struct tp_in *in, struct tp_err *err, long avail,
    int *cut)
{
	const unsigned char *p = in->buf + in->pos;
	uint32_t len;
	unsigned type = p[0];

	if (avail < 5) {
		*cut = 1;
		return tp_fail(err, TP_EXIT_DATA, "truncated user block: needs "
		    "5 bytes, only %ld left", avail);
	}
	len = rd32(p + 1);
	/* Make small blocks whole first, so that a cut one prints nothing. */
	if (len <= TP_IN_BLOCK - 5 && (size_t)avail < 5 + (size_t)len) {
		if ((avail = tp_in_fill(in, 5 + (size_t)len)) < 0)
			return -1;
		if ((size_t)avail < 5 + (size_t)len) {
			*cut = 1;
			return tp_fail(err, TP_EXIT_DATA, "truncated user block:"
			    " needs %lu bytes, only %ld left",
			    5 + (unsigned long)len, avail);
		}
	}
	in->pos += 5;
	tw_begin(d->out, "trac-user");
	tw_hex(d->out, "type", type);
	tw_key(d->out, "data");
	while (len > 0) {
		size_t k = len < TP_OUT_SLACK / 2 ? len : TP_OUT_SLACK / 2;
		if ((avail = tp_in_fill(in, k)) < 0)
			return -1;
		if (avail == 0) {
			*cut = 1;
			return tp_fail(err, TP_EXIT_DATA, "truncated user "
			    "block: %lu payload bytes missing",
			    (unsigned long)len);
		}
		if ((size_t)avail < k)
			k = (size_t)avail;
		tv_bytes(d->out, in->buf + in->pos, k);
		in->pos += k;
		len -= (uint32_t)k;
	}
	tw_end(d->out);
	d->st->user_blocks++;
	return 0;
}

int
trac_decode(struct tp_in *in, struct tp_out *out,
    const struct trac_dec_opts *opts, struct trac_dec_stats *st,
    struct tp_err *err)
{
	struct dec d;
	struct blk b;
	size_t maxb;
	int cut = 0;

	memset(st, 0, sizeof *st);
	st->truncated_at = TP_NONE;
	if (decode_header(in, out, st, err) < 0)
		return -1;
	memset(&d, 0, sizeof d);
	d.a = st->arch;
	d.t = tab_of(d.a);
	d.opts = opts;
	d.st = st;
	d.out = out;
	d.marker = TP_NONE;
	maxb = trac_max_block(d.a);
	for (;;) {
		uint64_t off = tp_in_offset(in);
		const unsigned char *p;
		long avail = tp_in_fill(in, maxb);
		int rc, extra;

		if (avail < 0)
			return -1;
		if (avail == 0)
			return 0;
		p = in->buf + in->pos;
		err->offset = off;
		err->index = st->blocks;
		err->unit = "block";
		if (p[0] >= 0x80) {
			if (decode_user(&d, in, err, avail, &cut) < 0)
				goto fail;
			st->blocks++;
			continue;
		}
		if (p[0] != 0) {
			int hint = d.marker != TP_NONE &&
			    st->blocks - d.marker <= 3;
			return tp_fail(err, TP_EXIT_DATA, "unsupported block "
			    "type 0x%02x (0 or 0x80-0xff expected)%s", p[0],
			    hint && !opts->repair_tid ? bug_hint : "");
		}
		extra = d.need_tid;
		rc = parse_insn(d.a, p, (size_t)avail, extra, &b);
		if (d.maybe_tid && !(p[3] & TRAC_FLAG_TID)) {
			/* Ambiguous: keep the reading that parses further. */
			struct blk b2;
			int rc2 = parse_insn(d.a, p, (size_t)avail, 1, &b2);
			int s1 = rc == BLK_OK ? 1 + chain_score(d.a, p + b.len,
			    (size_t)avail - b.len, 4) : 0;
			int s2 = rc2 == BLK_OK ? 1 + chain_score(d.a,
			    p + b2.len, (size_t)avail - b2.len, 4) : 0;
			if (s2 > s1) {
				b = b2;
				rc = rc2;
			}
		}
		if (rc == BLK_SHORT) {
			cut = 1;
			tp_fail(err, TP_EXIT_DATA, "truncated block: needs at "
			    "least %zu bytes, only %ld left", b.len, avail);
			goto fail;
		}
		if (rc == BLK_BAD) {
			struct blk b2;
			int hint = (d.marker != TP_NONE &&
			    st->blocks - d.marker <= 3) ||
			    (d.prev_full && !(p[3] & TRAC_FLAG_TID) &&
			    parse_insn(d.a, p, (size_t)avail, 1, &b2) == BLK_OK);
			return block_fault(&d, err, &b, hint);
		}
		if (st->insns == 0 && b.nreg != d.a->nslots)
			st->first_not_full = 1;
		if (b.tid_in == 1 && b.nreg != d.a->nslots && d.have_tid &&
		    b.tid == d.tid)
			d.marker = st->blocks;
		emit_insn(&d, &b);
		in->pos += b.len;
		st->blocks++;
	}
fail:
	if (cut && opts->allow_truncated && err->status == TP_EXIT_DATA) {
		/* A live recording: the cut block is simply not there yet. */
		st->truncated_at = err->offset;
		tp_err_clear(err);
		return 0;
	}
	return -1;
}

/* ---------------------------------------------------------------- encoder */

#define MAX_FIELDS TR_MAXFIELDS

enum { TID_DEFAULT = -1, TID_NO = 0, TID_YES = 1, TID_NOFLAG = 2 };

struct enc {
	const struct trac_arch *a;
	const struct slot_tab *t;
	const struct trac_enc_opts *opts;
	struct trac_enc_stats *st;
	struct tp_out *out;
	struct tr_reader r;
	struct tr_rec *rec;
	unsigned char *buf;	/* JSON and user payloads */
	size_t bufcap;
	int header_done;
	uint64_t state[TRAC_MAX_SLOTS];
	uint32_t tid;		/* thread of the last block, as a reader sees it */
	int have_tid;

	/* The instruction being built; its accesses follow it. */
	int pending;
	uint32_t ptid;
	int tidmode;
	unsigned rsvd;
	unsigned oplen;
	unsigned char op[TRAC_MAX_OPCODE];
	unsigned nreg;
	unsigned char pos[MAX_FIELDS + 1];	/* room for an added cip */
	uint64_t val[MAX_FIELDS + 1];
	unsigned nmem;
	unsigned char mflag[TRAC_MAX_ACCESSES];
	uint64_t addr[TRAC_MAX_ACCESSES], old[TRAC_MAX_ACCESSES],
	    new_[TRAC_MAX_ACCESSES];
};

static int
grow(struct enc *e, size_t n)
{
	unsigned char *nb;

	if (n <= e->bufcap)
		return 0;
	if ((nb = realloc(e->buf, n)) == NULL)
		return tp_fail(e->r.err, TP_EXIT_FAIL, "out of memory");
	e->buf = nb;
	e->bufcap = n;
	return 0;
}

/* A record trac cannot express: counted, or an error under --strict. */
static int
skip(struct enc *e, const char *fmt, const char *what, size_t n)
{
	char why[100];

	snprintf(why, sizeof why, fmt, (int)(n > 40 ? 40 : n), what);
	if (e->opts->strict)
		return tr_fail(&e->r, e->rec, NULL, "%s: not expressible in an "
		    "x64dbg trace", why);
	if (e->st->skipped++ == 0) {
		e->st->first_skip_line = e->rec->lineno;
		snprintf(e->st->first_skip, sizeof e->st->first_skip, "%s", why);
	}
	return 0;
}

static int
field_u64(struct enc *e, const struct tr_field *f, uint64_t *v)
{
	if (tp_parse_u64(f->val, f->vallen, v) < 0)
		return tr_u64(&e->r, e->rec, f, v);
	return 0;
}

/* An unsigned value that must fit in a slot (pointer-sized). */
static int
field_ptr(struct enc *e, const struct tr_field *f, uint64_t *v)
{
	if (tp_parse_u64(f->val, f->vallen, v) < 0)
		return tr_u64(&e->r, e->rec, f, v);
	if (e->a->ptrsize == 4 && *v > 0xffffffffu)
		return tr_fail(&e->r, e->rec, f, "does not fit in 32 bits "
		    "(arch x86)");
	return 0;
}

static void
write_header(struct enc *e, const void *json, size_t n)
{
	unsigned char h[8];

	memcpy(h, "TRAC", 4);
	wr32(h + 4, (uint32_t)n);
	tp_out_write(e->out, h, 8);
	tp_out_write(e->out, json, n);
	e->header_done = 1;
}

static void
default_header(struct enc *e)
{
	char json[160];
	int n = snprintf(json, sizeof json, "{\"ver\":1,\"arch\":\"%s\","
	    "\"hashAlgorithm\":\"murmurhash\",\"hash\":\"0x0\","
	    "\"compression\":\"\",\"path\":\"\"}", e->a->name);

	write_header(e, json, (size_t)n);
}

static int
header_record(struct enc *e)
{
	const struct tr_field *fa = tr_find(e->rec, "arch");
	const struct tr_field *fj = tr_find(e->rec, "json");
	const struct trac_arch *a = NULL, *ja = NULL;
	struct json_info ji;
	size_t n = 0;

	if (e->header_done)
		return skip(e, "%.*s record after the first block", "trac-header",
		    11);
	if (fa != NULL && (a = trac_arch_find(fa->val, fa->vallen)) == NULL)
		return tr_fail(&e->r, e->rec, fa, "unsupported arch (x64 or x86 "
		    "expected)");
	if (fj != NULL) {
		if (grow(e, fj->vallen + 1) < 0 ||
		    tr_str(&e->r, e->rec, fj, e->buf, e->bufcap, &n) < 0)
			return -1;
		if (n > 0x7fffffff)
			return tr_fail(&e->r, e->rec, fj, "too long");
		if (json_scan((char *)e->buf, n, &ji) == 0 && ji.arch != NULL)
			ja = trac_arch_find(ji.arch, ji.archlen);
		if (a == NULL && (a = ja) == NULL)
			return tr_fail(&e->r, e->rec, fj, "no arch x64 or x86 in "
			    "the JSON header and no arch field");
		if (ja != NULL && ja != a)
			return tr_fail(&e->r, e->rec, fa, "disagrees with the "
			    "JSON header's arch %s", ja->name);
	}
	if (a != NULL)
		e->a = a;
	e->t = tab_of(e->a);
	if (fj != NULL)
		write_header(e, e->buf, n);
	else
		default_header(e);
	return 0;
}

/* Write the pending instruction block and its accesses. */
static void
flush_insn(struct enc *e)
{
	const struct trac_arch *a = e->a;
	unsigned ps = a->ptrsize, i, prev;
	int full, store, flag;
	unsigned char *p;

	if (!e->pending)
		return;
	e->pending = 0;
	full = e->nreg == a->nslots;
	if (e->st->insns == 0 && !full) {
		/* Readers start at a full dump: give them the state known. */
		for (i = 0; i < a->nslots; i++) {
			e->pos[i] = (unsigned char)i;
			e->val[i] = e->state[i];
		}
		e->nreg = a->nslots;
		full = 1;
		e->st->dump_added = 1;
	}
	switch (e->tidmode) {
	case TID_NO:
		store = flag = 0;
		break;
	case TID_YES:
		store = flag = 1;
		break;
	case TID_NOFLAG:
		store = 1, flag = 0;
		break;
	default:
		store = flag = full || !e->have_tid || e->ptid != e->tid;
		break;
	}
	p = (unsigned char *)tp_out_reserve(e->out, trac_max_block(a));
	*p++ = 0;
	*p++ = (unsigned char)e->nreg;
	*p++ = (unsigned char)e->nmem;
	*p++ = (unsigned char)((flag ? TRAC_FLAG_TID : 0) | e->rsvd | e->oplen);
	if (store)
		p = wr32(p, e->ptid);
	memcpy(p, e->op, e->oplen);
	p += e->oplen;
	for (i = 0, prev = (unsigned)-1; i < e->nreg; i++) {
		*p++ = (unsigned char)(e->pos[i] - prev - 1);
		prev = e->pos[i];
	}
	for (i = 0; i < e->nreg; i++)
		p = wrptr(p, e->val[i], ps);
	memcpy(p, e->mflag, e->nmem);
	p += e->nmem;
	for (i = 0; i < e->nmem; i++)
		p = wrptr(p, e->addr[i], ps);
	for (i = 0; i < e->nmem; i++)
		p = wrptr(p, e->old[i], ps);
	for (i = 0; i < e->nmem; i++)
		if (!(e->mflag[i] & TRAC_MEM_UNCHANGED))
			p = wrptr(p, e->new_[i], ps);
	tp_out_commit(e->out, (char *)p);
	if (store)
		e->tid = e->ptid;
	e->have_tid = 1;
	e->st->insns++;
	e->st->accesses += e->nmem;
}

/* Positions given out of order or twice: sort, the last value wins. */
static void
sort_regs(struct enc *e)
{
	unsigned i, j, n = 0;

	for (i = 1; i < e->nreg; i++) {
		unsigned char s = e->pos[i];
		uint64_t v = e->val[i];
		for (j = i; j > 0 && e->pos[j - 1] > s; j--) {
			e->pos[j] = e->pos[j - 1];
			e->val[j] = e->val[j - 1];
		}
		e->pos[j] = s;
		e->val[j] = v;
	}
	for (i = 0; i < e->nreg; i++) {
		if (n > 0 && e->pos[n - 1] == e->pos[i])
			n--;
		e->pos[n] = e->pos[i];
		e->val[n++] = e->val[i];
	}
	e->nreg = n;
}

static int
insn_record(struct enc *e)
{
	const struct tr_rec *rec = e->rec;
	const struct trac_arch *a = e->a;
	const struct slot_tab *t = e->t;
	const struct tr_field *fbytes = NULL;
	unsigned i, expect = 0, sorted = 1, has_cip = 0;
	int have_pc = 0, last = -1;
	uint64_t pc = 0, v;
	size_t n;

	flush_insn(e);
	e->ptid = e->tid;
	e->tidmode = TID_DEFAULT;
	e->rsvd = 0;
	e->nreg = 0;
	e->nmem = 0;
	for (i = 0; i < rec->nf; i++) {
		const struct tr_field *f = &rec->f[i];
		const char *k = f->key;
		int s;

		if (expect < a->nslots && f->keylen == t->namelen[expect] &&
		    memcmp(k, a->slot[expect], f->keylen) == 0) {
			s = (int)expect;
		} else if (f->keylen == 3 && memcmp(k, "tid", 3) == 0) {
			if (field_u64(e, f, &v) < 0)
				return -1;
			if (v > 0xffffffffu)
				return tr_fail(&e->r, rec, f, "thread id does "
				    "not fit in 32 bits");
			e->ptid = (uint32_t)v;
			continue;
		} else if (f->keylen == 2 && memcmp(k, "pc", 2) == 0) {
			if (field_ptr(e, f, &pc) < 0)
				return -1;
			have_pc = 1;
			continue;
		} else if (f->keylen == 5 && memcmp(k, "bytes", 5) == 0) {
			fbytes = f;
			continue;
		} else if (f->keylen == 9 && memcmp(k, "tidstored", 9) == 0) {
			if (f->vallen == 1 && (f->val[0] == '0' ||
			    f->val[0] == '1'))
				e->tidmode = f->val[0] == '1' ? TID_YES : TID_NO;
			else if (f->vallen == 6 &&
			    memcmp(f->val, "noflag", 6) == 0)
				e->tidmode = TID_NOFLAG;
			else
				return tr_fail(&e->r, rec, f, "expected 0, 1 "
				    "or noflag");
			continue;
		} else if (f->keylen == 4 && memcmp(k, "rsvd", 4) == 0) {
			if (field_u64(e, f, &v) < 0)
				return -1;
			if (v & ~(uint64_t)TRAC_FLAG_RSVD)
				return tr_fail(&e->r, rec, f, "only flag bits "
				    "4-6 (0x70) are reserved");
			e->rsvd = (unsigned)v;
			continue;
		} else if ((s = trac_slot_find(a, k, f->keylen)) < 0) {
			continue;	/* seq, and fields of other decoders */
		}
		if (field_ptr(e, f, &v) < 0)
			return -1;
		if (s <= last)
			sorted = 0;
		last = s;
		has_cip |= (unsigned)s == a->cip;
		e->pos[e->nreg] = (unsigned char)s;
		e->val[e->nreg++] = v;
		expect = (unsigned)s + 1;
	}
	if (fbytes == NULL || fbytes->vallen == 0)
		return skip(e, "%.*s record without opcode bytes", "insn", 4);
	if (fbytes->vallen > 2 * TRAC_MAX_OPCODE)
		return skip(e, "%.*s record with more than 15 opcode bytes",
		    "insn", 4);
	if (tr_bytes(&e->r, rec, fbytes, e->op, TRAC_MAX_OPCODE, &n) < 0)
		return -1;
	e->oplen = (unsigned)n;
	if (!sorted)
		sort_regs(e);
	for (i = 0; i < e->nreg; i++)
		e->state[e->pos[i]] = e->val[i];
	if (have_pc && !has_cip && pc != e->state[a->cip]) {
		/* A record from elsewhere: pc moves the instruction pointer. */
		for (i = e->nreg; i > 0 && e->pos[i - 1] > a->cip; i--) {
			e->pos[i] = e->pos[i - 1];
			e->val[i] = e->val[i - 1];
		}
		e->pos[i] = (unsigned char)a->cip;
		e->val[i] = pc;
		e->nreg++;
		e->state[a->cip] = pc;
	}
	e->pending = 1;
	return 0;
}

static int
access_record(struct enc *e, int write)
{
	const struct tr_rec *rec = e->rec;
	uint64_t addr = 0, old = 0, nv = 0, flags = 0;
	int have_addr = 0;
	unsigned i, m;

	if (!e->pending)
		return skip(e, "%.*s without an instruction before it",
		    rec->kind, rec->kindlen);
	if (e->nmem == TRAC_MAX_ACCESSES)
		return skip(e, "%.*s beyond 32 memory accesses of an "
		    "instruction", rec->kind, rec->kindlen);
	for (i = 0; i < rec->nf; i++) {
		const struct tr_field *f = &rec->f[i];
		switch (f->keylen) {
		case 4:
			if (memcmp(f->key, "addr", 4) == 0) {
				if (field_ptr(e, f, &addr) < 0)
					return -1;
				have_addr = 1;
			}
			break;
		case 3:
			if (memcmp(f->key, "old", 3) == 0) {
				if (field_ptr(e, f, &old) < 0)
					return -1;
			} else if (write && memcmp(f->key, "new", 3) == 0) {
				if (field_ptr(e, f, &nv) < 0)
					return -1;
			}
			break;
		case 5:
			if (memcmp(f->key, "flags", 5) == 0) {
				if (field_u64(e, f, &flags) < 0)
					return -1;
				if (flags > 0xff)
					return tr_fail(&e->r, rec, f, "not a "
					    "flag byte");
			}
			break;
		}
	}
	if (!have_addr)
		return skip(e, "%.*s without addr", rec->kind, rec->kindlen);
	m = e->nmem++;
	e->mflag[m] = (unsigned char)((flags & ~(uint64_t)TRAC_MEM_UNCHANGED) |
	    (write ? 0 : TRAC_MEM_UNCHANGED));
	e->addr[m] = addr;
	e->old[m] = old;
	e->new_[m] = nv;
	return 0;
}

static int
user_record(struct enc *e)
{
	const struct tr_field *ft = tr_find(e->rec, "type");
	const struct tr_field *fd = tr_find(e->rec, "data");
	unsigned char h[5];
	uint64_t type;
	size_t n = 0;

	if (ft == NULL)
		return tr_fail(&e->r, e->rec, NULL, "trac-user without type");
	if (field_u64(e, ft, &type) < 0)
		return -1;
	if (type < 0x80 || type > 0xff)
		return tr_fail(&e->r, e->rec, ft, "user block types are 0x80 "
		    "to 0xff");
	if (fd != NULL && (grow(e, fd->vallen / 2 + 1) < 0 ||
	    tr_bytes(&e->r, e->rec, fd, e->buf, e->bufcap, &n) < 0))
		return -1;
	flush_insn(e);
	h[0] = (unsigned char)type;
	wr32(h + 1, (uint32_t)n);
	tp_out_write(e->out, h, 5);
	if (n > 0)
		tp_out_write(e->out, e->buf, n);
	e->st->user_blocks++;
	return 0;
}

static int
encode_records(struct enc *e)
{
	struct tr_rec *rec = e->rec;
	int rc;

	while ((rc = tr_next(&e->r, rec)) > 0) {
		const char *k = rec->kind;
		e->st->records++;
		if (rec->kindlen == 11 && memcmp(k, "trac-header", 11) == 0) {
			if (header_record(e) < 0)
				return -1;
			continue;
		}
		if (!e->header_done)
			default_header(e);
		if (rec->kindlen == 4 && memcmp(k, "insn", 4) == 0)
			rc = insn_record(e);
		else if (rec->kindlen == 4 && memcmp(k, "read", 4) == 0)
			rc = access_record(e, 0);
		else if (rec->kindlen == 5 && memcmp(k, "write", 5) == 0)
			rc = access_record(e, 1);
		else if (rec->kindlen == 9 && memcmp(k, "trac-user", 9) == 0)
			rc = user_record(e);
		else
			rc = skip(e, "record kind \"%.*s\"", k, rec->kindlen);
		if (rc < 0)
			return -1;
	}
	if (rc < 0)
		return -1;
	if (!e->header_done)
		default_header(e);
	flush_insn(e);
	return 0;
}

int
trac_encode(struct tp_in *in, struct tp_out *out,
    const struct trac_enc_opts *opts, struct trac_enc_stats *st,
    struct tp_err *err)
{
	struct enc *e;
	int rc;

	memset(st, 0, sizeof *st);
	if ((e = calloc(1, sizeof *e)) == NULL ||
	    (e->rec = malloc(sizeof *e->rec)) == NULL) {
		free(e);
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	}
	e->a = opts->arch ? opts->arch : &trac_x64;
	e->t = tab_of(e->a);
	e->opts = opts;
	e->st = st;
	e->out = out;
	tr_init(&e->r, in);
	e->r.err = err;
	rc = encode_records(e);
	free(e->buf);
	free(e->rec);
	free(e);
	return rc;
}
