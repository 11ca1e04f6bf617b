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
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "base/fpconv.h"
#include "base/grow.h"
#include "formats/probe.h"
#include "formats/trac/trac.h"
#include "formats/trac/trac-private.h"
#include "text/json.h"
#include "text/text.h"

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

const struct slot_tab *
trac_tab_of(const struct trac_arch *a)
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

/* The slot whose token is name, or -1. */
int
trac_slot_find(const struct trac_arch *a, const char *name, size_t n)
{
	const struct slot_tab *t = trac_tab_of(a);
	unsigned h = name_hash(name, n);

	for (; t->hash[h] != 0; h = (h + 1) & (SLOT_HASH - 1)) {
		int s = t->hash[h] - 1;
		if (t->namelen[s] == n && memcmp(a->slot[s], name, n) == 0)
			return s;
	}
	return -1;
}
void
trac_thr_tab_free(struct thr_tab *tt)
{
	for (unsigned i = 0; i < tt->n; i++)
		free(tt->t[i]);
}

/*
 * The entry of thread tid (*found: it was there), made if needed; its
 * registers are set by the caller.  NULL when out of memory.
 */
struct thr *
trac_thr_get(struct thr_tab *tt, uint32_t tid, int *found)
{
	struct thr *t, *lru = NULL;
	unsigned i;

	*found = 0;
	for (i = 0; i < tt->n; i++) {
		t = tt->t[i];
		if (t->tid == tid) {
			*found = 1;
			goto use;
		}
		if (lru == NULL || t->used_at < lru->used_at)
			lru = t;
	}
	if (tt->n < TRAC_THREADS) {
		if ((t = malloc(sizeof *t)) == NULL)
			return NULL;
		tt->t[tt->n++] = t;
	} else {
		t = lru;
	}
	t->tid = tid;
	t->have_seq = 0;
	t->nunk = 0;
	memset(t->unk, 0, sizeof t->unk);
use:
	t->used_at = ++tt->clock;
	return t;
}


static size_t
arch_string(const char *v, const char *ve, char *out, size_t cap)
{
	size_t n = *v == '"' ? tp_json_unescape(v, ve, out, cap) : SIZE_MAX, i;

	for (i = 0; n != SIZE_MAX && i < n; i++)
		if (out[i] == 0 || (unsigned char)out[i] > 0x7f)
			n = SIZE_MAX;
	return n;
}

void
trac_json_scan(const char *s, size_t n, struct json_info *ji)
{
	const char *b = s, *e = s + n, *p, *k, *v, *ve;
	struct tp_json j;
	size_t kn;

	memset(ji, 0, sizeof *ji);
	ji->archlen = SIZE_MAX;
	/* x64dbg's writer measures the JSON with strlen(): no NUL in it. */
	if ((p = memchr(s, '\0', n)) != NULL) {
		ji->why = "a NUL byte (x64dbg writes none)";
		ji->errpos = (size_t)(p - s);
		return;
	}
	if (n >= 3 && memcmp(s, "\357\273\277", 3) == 0)
		b += 3;		/* a byte order mark, which Qt skips */
	p = tp_json_ws(b, e);
	if (tp_json_check(&j, b, (size_t)(e - b), TP_JSON_LAX) < 0) {
		ji->why = j.why;
		ji->errpos = (size_t)(b - s) + j.pos;
		return;
	}
	if (*p != '{') {
		ji->why = "not an object";
		ji->errpos = (size_t)(p - s);
		return;
	}
	/* Valid: walk the top-level members. */
	while (tp_json_member(&p, e, &k, &kn, &v, &ve)) {
		if (kn == 4 && memcmp(k, "arch", 4) == 0) {
			ji->archv = v;
			ji->archvlen = (size_t)(ve - v);
			ji->archlen = arch_string(v, ve, ji->arch,
			    sizeof ji->arch);
		} else if (kn == 3 && memcmp(k, "ver", 3) == 0) {
			size_t vn = (size_t)(ve - v);
			double ver;
			ji->has_ver = 1;
			/* a number of up to 31 bytes that reads as 1 */
			ji->ver_one = vn < 32 && (*v == '-' ||
			    (*v >= '0' && *v <= '9')) &&
			    tp_parse_f64(v, vn, &ver) == 0 && ver == 1.0;
		} else if (kn == 11 && memcmp(k, "compression", 11) == 0) {
			ji->has_compression = 1;
			ji->compression_set = !(ve - v == 2 && *v == '"');
		}
	}
}

/* ---------------------------------------------------------------- decoder */

/*
 * How far the blocks from p on parse cleanly: 2 points per block, up to
 * 2 * depth, which is also the score of ending exactly at the end of the
 * bytes.  A block running past them ends the count, except at the end of
 * the input (eof), where the input may be cut: 2 * depth - 1 then, for a
 * plausible block (one that ends exactly is more likely still).  A block
 * after one with flag 0x80 (flagged: the first) that fails is tried with
 * a hidden thread id, so that the next bug site does not end the count.
 */
static int
chain_score(const struct trac_arch *a, const unsigned char *p, size_t avail,
    int depth, int eof, int flagged)
{
	struct blk b;
	int k;

	for (k = 0; k < depth; k++) {
		int rc;
		if (avail == 0)
			return 2 * depth;
		if (p[0] >= 0x80) {
			size_t n;
			if (avail < 5)
				return eof ? 2 * depth - 1 : 2 * k;
			n = 5 + (size_t)tp_get_le32(p + 1);
			if (avail < n)
				return eof && n - 5 <= TRAC_USER_CHUNK ?
				    2 * depth - 1 : 2 * k;
			p += n, avail -= n;
			continue;
		}
		if (p[0] != 0)
			return 2 * k;
		rc = parse_insn(a, p, avail, 0, &b);
		if (rc == BLK_BAD && flagged && !(p[3] & TRAC_FLAG_TID))
			rc = parse_insn(a, p, avail, 1, &b);
		if (rc != BLK_OK)
			return rc == BLK_SHORT && eof ? 2 * depth - 1 : 2 * k;
		flagged = (b.flags & TRAC_FLAG_TID) != 0;
		p += b.len, avail -= b.len;
	}
	return 2 * depth;
}

/*
 * The thread-id bug of x64dbg before PR #3920: after a block with flag
 * 0x80 (the buggy writer sets it when the thread changes after that
 * block, and on full dumps) the next block may hold a thread id with the
 * flag clear.  Both readings of such a block are tried on this many
 * blocks: the one that parses further wins.
 */
#define TID_LOOKAHEAD 8

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
	uint64_t g[TRAC_MAX_SLOTS];	/* the registers, all blocks applied */
	struct thr_tab tt;
	struct thr *thr;	/* the thread of the last instruction */
	int prev_flag;		/* the last instruction block had flag 0x80 */
	int prev_marker;	/* ... without being a dump or a thread change */
	uint64_t suspect;	/* a block that reads better with a hidden tid */
	uint64_t suspect_off;
	unsigned char *ubuf;	/* a user block's payload, when large */
	struct tp_err inerr;	/* a gzip error, reported after the blocks */
	int in_failed;		/* before it */
};

/*
 * tp_in_fill, except that corrupt or truncated gzip input ends the bytes
 * like an end of file: the blocks inflated before it are decoded first.
 */
static long
dec_fill(struct dec *d, struct tp_in *in, size_t n, struct tp_err *err)
{
	long avail;

	if (d->in_failed)
		return (long)(in->len - in->pos);
	avail = tp_in_fill(in, n);
	if (avail < 0 && err->status == TP_EXIT_DATA && in->gz) {
		d->inerr = *err;
		d->in_failed = 1;
		tp_err_clear(err);
		return (long)(in->len - in->pos);
	}
	return avail;
}

/* 0, or -1 out of memory. */
static int
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
	struct thr *back = NULL;	/* the thread, when it changed */
	int known = 0;			/* ... and was seen before */

	if (b->tid_in == 0 && !d->have_tid)
		tid = 0;
	dflt = dflt || tid != d->tid;
	if (d->thr == NULL || d->thr->tid != tid) {
		/* The thread left keeps the state before its last block. */
		if (d->thr != NULL) {
			memcpy(d->thr->v, d->g, a->nslots * sizeof d->g[0]);
			d->thr->last_seq = d->seq - 1;
			d->thr->have_seq = 1;
		}
		if ((d->thr = trac_thr_get(&d->tt, tid, &known)) == NULL)
			return -1;
		back = d->thr;
	}
	for (i = 0; i < b->nreg; i++)
		d->g[b->abs[i]] = rdptr(b->val + (size_t)i * ps, ps);
	d->cip = d->g[a->cip];

	/* " tid=T seq=N pc=0x..", shared by the access records. */
	h = head;
	memcpy(h, " tid=", 5);
	h = tp_fmt_u64_wide(h + 5, tid);
	memcpy(h, " seq=", 5);
	h = tp_fmt_u64_wide(h + 5, d->seq);
	memcpy(h, " pc=", 4);
	h = tp_fmt_hex_wide(h + 4, d->cip);
	headlen = (size_t)(h - head);

	p = tp_out_reserve(d->out, 128 + headlen + 2 * TRAC_MAX_OPCODE +
	    (size_t)(back != NULL ? a->nslots : b->nreg) * (28 + 18));
	memcpy(p, "insn seq=", 9);
	p = tp_fmt_u64_wide(p + 9, d->seq);
	memcpy(p, " tid=", 5);
	p = tp_fmt_u64_wide(p + 5, tid);
	memcpy(p, " pc=", 4);
	p = tp_fmt_hex_wide(p + 4, d->cip);
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
		p = tp_fmt_hex_wide(p + 6, b->flags & TRAC_FLAG_RSVD);
	}
	if (back != NULL && known) {
		memcpy(p, " tprev=", 7);
		p = tp_fmt_u64_wide(p + 7, back->last_seq);
	} else if (back != NULL && !full && d->seq > 0) {
		memcpy(p, " tprev=none", 11);
		p += 11;
	}
	for (i = 0; i < b->nreg; i++) {
		unsigned s = b->abs[i];
		memcpy(p, t->key[s], 24);
		p = tp_fmt_hex_wide(p + t->keylen[s],
		    rdptr(b->val + (size_t)i * ps, ps));
	}
	if (back != NULL) {
		/*
		 * The thread is back: the slots that differ from its own
		 * last state (from 0 for a thread not seen before) without
		 * being stored here.
		 */
		unsigned k = 0, s;
		for (s = 0; s < a->nslots; s++) {
			if (k < b->nreg && b->abs[k] == s) {
				k++;
				continue;
			}
			if (d->g[s] == (known ? back->v[s] : 0))
				continue;
			memcpy(p, " ctx.", 5);
			memcpy(p + 5, t->key[s] + 1, 23);
			p = tp_fmt_hex_wide(p + 4 + t->keylen[s], d->g[s]);
		}
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
		p = tp_fmt_hex_wide(p + 6, rdptr(b->addr + (size_t)i * ps, ps));
		memcpy(p, ps == 8 ? " size=8 old=" : " size=4 old=", 12);
		p = tp_fmt_hex_wide(p + 12, rdptr(b->old + (size_t)i * ps, ps));
		if (!unchanged) {
			memcpy(p, " new=", 5);
			p = tp_fmt_hex_wide(p + 5, rdptr(nv, ps));
			nv += ps;	/* NewData holds the changed ones only */
		}
		if (f & ~TRAC_MEM_UNCHANGED) {
			memcpy(p, " flags=", 7);
			p = tp_fmt_hex_wide(p + 7, f);
		}
		*p++ = '\n';
		tp_out_commit(d->out, p);
	}

	d->tid = tid;
	d->have_tid = 1;
	d->seq++;
	d->st->insns++;
	d->st->accesses += b->nmem;
	d->st->full_dumps += full;
	if (b->tid_in == 2)
		d->st->repaired_tids++;
	return 0;
}

/* The fault is near a block that reads better with a hidden thread id. */
static int
near_suspect(const struct dec *d)
{
	return d->suspect != TP_NONE &&
	    d->st->blocks - d->suspect <= TID_LOOKAHEAD;
}

/* A data error at the current block, naming the writer bug if it fits. */
static int
block_fail(struct dec *d, struct tp_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
block_fail(struct dec *d, struct tp_err *err, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	tp_failv(err, TP_EXIT_DATA, fmt, ap);
	va_end(ap);
	n = strlen(err->msg);
	if (near_suspect(d) && n < sizeof err->msg)
		snprintf(err->msg + n, sizeof err->msg - n, " (thread-id bug "
		    "of x64dbg before PR #3920: block %llu at offset 0x%llx "
		    "holds a thread id without flag 0x80; try --repair-tid)",
		    (unsigned long long)d->suspect,
		    (unsigned long long)d->suspect_off);
	return -1;
}

static int
block_fault(struct dec *d, struct tp_err *err, const struct blk *b)
{
	switch (b->fault) {
	case F_NREG:
		return block_fail(d, err, "%u register changes, more than the "
		    "%u slots of %s", b->bad, d->a->nslots, d->a->name);
	case F_NMEM:
		return block_fail(d, err, "%u memory accesses, more than %d",
		    b->bad, TRAC_MAX_ACCESSES);
	case F_OPLEN:
		return block_fail(d, err, "opcode length 0 (1 to 15 expected)");
	default:
		return block_fail(d, err, "register position %u out of range "
		    "(max %u)", b->bad, d->a->nslots - 1);
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
	len = tp_get_le32(p + 4);
	err->offset = 4;
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
	trac_json_scan(json, len, &ji);
	if (ji.why != NULL) {
		free(json);
		err->offset = 8 + ji.errpos;
		return tp_fail(err, TP_EXIT_DATA, "JSON header: %s%s", ji.why,
		    ji.errpos == len ? " (the header ends there)" : "");
	}
	if (!ji.has_ver || !ji.ver_one) {
		free(json);
		return tp_fail(err, TP_EXIT_DATA, "JSON header: version not "
		    "supported (\"ver\" must be the number 1)");
	}
	if (ji.archv == NULL || !ji.has_compression) {
		free(json);
		return tp_fail(err, TP_EXIT_DATA, "JSON header has no \"%s\" "
		    "key (x64dbg needs it)", ji.archv != NULL ? "compression" :
		    "arch");
	}
	if (ji.archlen == SIZE_MAX ||
	    (st->arch = trac_arch_find(ji.arch, ji.archlen)) == NULL) {
		tp_fail(err, TP_EXIT_DATA, "JSON header: unsupported arch %.*s "
		    "(\"x64\" or \"x86\" expected)",
		    ji.archvlen > 24 ? 24 : (int)ji.archvlen, ji.archv);
		free(json);
		return -1;
	}
	st->compression_set = ji.compression_set;
	tw_begin(out, "trac-header");
	tw_str(out, "arch", st->arch->name, 3);
	tw_qstr(out, "json", json, len);
	tw_end(out);
	free(json);
	err->offset = TP_NONE;
	return 0;
}

/*
 * n bytes of a user block, whole, at *pp: in the input buffer when they
 * fit, else copied into d->ubuf; consumed when they are all there.
 * Returns how many there are (fewer than n only at the end of the input),
 * or -1.
 */
static long
user_bytes(struct dec *d, struct tp_in *in, struct tp_err *err, size_t n,
    const unsigned char **pp)
{
	size_t got = 0;
	long avail;

	if (n <= TP_IN_BLOCK) {
		if ((avail = dec_fill(d, in, n, err)) < 0)
			return -1;
		*pp = in->buf + in->pos;
		if ((size_t)avail < n)
			return avail;
		in->pos += n;	/* the bytes stay there until the next fill */
		return (long)n;
	}
	if (d->ubuf == NULL && (d->ubuf = malloc(TRAC_USER_CHUNK)) == NULL)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	while (got < n) {
		size_t k = n - got < TP_IN_BLOCK ? n - got : TP_IN_BLOCK;
		if ((avail = dec_fill(d, in, k, err)) < 0)
			return -1;
		if (avail == 0)
			break;
		if ((size_t)avail < k)
			k = (size_t)avail;
		memcpy(d->ubuf + got, in->buf + in->pos, k);
		in->pos += k;
		got += k;
	}
	*pp = d->ubuf;
	return (long)got;
}

/*
 * A user block 0x80-0xff at the current position: u32 length, payload.
 * Nothing of a record is written before its bytes are all there: a
 * payload up to TRAC_USER_CHUNK is one trac-user record; a longer one is
 * written in pieces of that size, trac-user with size= and then
 * trac-user-data records.  *cut: 1 when the block is cut before its
 * first record, 2 when after (records of it were written).
 */
static int
decode_user(struct dec *d, struct tp_in *in, struct tp_err *err, long avail,
    int *cut)
{
	const unsigned char *p = in->buf + in->pos;
	unsigned type = p[0];
	uint32_t len, left;
	size_t k;
	long got;

	if (avail < 5) {
		*cut = 1;
		return block_fail(d, err, "truncated user block: needs 5 bytes, "
		    "only %ld left", avail);
	}
	len = tp_get_le32(p + 1);
	k = len < TRAC_USER_CHUNK ? len : TRAC_USER_CHUNK;
	if (5 + k <= TP_IN_BLOCK) {
		if ((got = user_bytes(d, in, err, 5 + k, &p)) < 0)
			return -1;
		got -= 5;
		p += 5;
	} else {
		in->pos += 5;
		if ((got = user_bytes(d, in, err, k, &p)) < 0)
			return -1;
	}
	if ((size_t)got < k) {
		*cut = 1;
		return block_fail(d, err, "truncated user block: needs %llu "
		    "bytes, only %llu left", 5 + (unsigned long long)len,
		    5 + (unsigned long long)got);
	}
	tw_begin(d->out, "trac-user");
	tw_hex(d->out, "type", type);
	if (len > k)
		tw_u64(d->out, "size", len);
	tw_bytes(d->out, "data", p, k);
	tw_end(d->out);
	for (left = len - (uint32_t)k; left > 0; left -= (uint32_t)k) {
		k = left < TRAC_USER_CHUNK ? left : TRAC_USER_CHUNK;
		if ((got = user_bytes(d, in, err, k, &p)) < 0)
			return -1;
		if ((size_t)got < k) {
			*cut = 2;
			return block_fail(d, err, "truncated user block: %llu of "
			    "%lu payload bytes (its first %llu were written)",
			    (unsigned long long)(len - left) +
			    (unsigned long long)got, (unsigned long)len,
			    (unsigned long long)(len - left));
		}
		tw_begin(d->out, "trac-user-data");
		tw_bytes(d->out, "data", p, k);
		tw_end(d->out);
	}
	d->st->user_blocks++;
	return 0;
}

/*
 * Read the instruction block at the current position into b, trying the
 * hidden thread id of the writer bug where it may be.  Returns BLK_*.
 */
static int
read_insn(struct dec *d, struct tp_in *in, struct tp_err *err, long *avail,
    struct blk *b)
{
	const unsigned char *p = in->buf + in->pos;
	size_t want = TID_LOOKAHEAD * trac_max_block(d->a);
	struct blk b2;
	int rc, rc2, s1, s2, hidden, eof, plausible;

	if (!d->prev_flag || (*avail >= 4 && (p[3] & TRAC_FLAG_TID)))
		return parse_insn(d->a, p, (size_t)*avail, 0, b);
	/*
	 * The buggy writer hides the id of a new thread, and Windows thread
	 * ids are multiples of 4: a reading without these is taken only
	 * where the flags leave no doubt (and needs no look ahead).
	 */
	rc2 = parse_insn(d->a, p, (size_t)*avail, 1, &b2);
	plausible = rc2 != BLK_BAD && b2.tid % 4 == 0 && b2.tid != d->tid;
	if (!plausible && !(d->opts->repair_tid && d->prev_marker))
		return parse_insn(d->a, p, (size_t)*avail, 0, b);
	/* Enough bytes to look ahead; the blocks are read again there. */
	if (want > TP_IN_BLOCK)
		want = TP_IN_BLOCK;
	if ((*avail = dec_fill(d, in, want, err)) < 0)
		return -1;
	eof = (size_t)*avail < want;
	p = in->buf + in->pos;
	rc = parse_insn(d->a, p, (size_t)*avail, 0, b);
	rc2 = parse_insn(d->a, p, (size_t)*avail, 1, &b2);
	s1 = rc == BLK_OK ? 2 + chain_score(d->a, p + b->len,
	    (size_t)*avail - b->len, TID_LOOKAHEAD, eof,
	    (b->flags & TRAC_FLAG_TID) != 0) :
	    rc == BLK_SHORT ? 2 * TID_LOOKAHEAD + 1 : 0;
	s2 = rc2 == BLK_OK ? 2 + chain_score(d->a, p + b2.len,
	    (size_t)*avail - b2.len, TID_LOOKAHEAD, eof, 0) :
	    rc2 == BLK_SHORT ? 2 * TID_LOOKAHEAD + 1 : 0;
	if (d->opts->repair_tid) {
		/*
		 * After the last block of a thread (flag 0x80, same thread)
		 * the buggy writer always hides a thread id: take it unless
		 * the other reading parses further.  After a dump or a
		 * thread change it may: take it if it parses further.
		 */
		if (d->prev_marker)
			hidden = rc2 != BLK_BAD && s2 >= s1;
		else
			hidden = plausible && s2 > s1;
		if (hidden) {
			*b = b2;
			return rc2;
		}
	} else if (plausible && s2 > s1) {
		d->suspect = d->st->blocks;
		d->suspect_off = tp_in_offset(in);
	}
	return rc;
}

int
trac_decode(struct tp_in *in, struct tp_out *out,
    const struct trac_dec_opts *opts, struct trac_dec_stats *st,
    struct tp_err *err)
{
	struct dec d;
	struct blk b;
	size_t maxb;
	int cut = 0, rc;

	memset(st, 0, sizeof *st);
	st->truncated_at = TP_NONE;
	if (decode_header(in, out, st, err) < 0)
		return -1;
	memset(&d, 0, sizeof d);
	d.a = st->arch;
	d.t = trac_tab_of(d.a);
	d.opts = opts;
	d.st = st;
	d.out = out;
	d.suspect = TP_NONE;
	maxb = trac_max_block(d.a);
	for (;;) {
		uint64_t off = tp_in_offset(in);
		const unsigned char *p;
		long avail = dec_fill(&d, in, maxb, err);

		if (avail < 0)
			goto fail;
		err->offset = off;
		err->index = st->blocks;
		err->unit = "block";
		if (avail == 0)
			break;
		p = in->buf + in->pos;
		if (p[0] >= 0x80) {
			if (decode_user(&d, in, err, avail, &cut) < 0)
				goto fail;
			st->blocks++;
			continue;
		}
		if (p[0] != 0) {
			block_fail(&d, err, "unsupported block type 0x%02x (0 or "
			    "0x80-0xff expected)", p[0]);
			goto fail;
		}
		if ((rc = read_insn(&d, in, err, &avail, &b)) < 0)
			goto fail;
		if (rc == BLK_SHORT) {
			cut = 1;
			block_fail(&d, err, "truncated block: needs at least %zu "
			    "bytes, only %ld left", b.len, avail);
			goto fail;
		}
		if (rc == BLK_BAD) {
			block_fault(&d, err, &b);
			goto fail;
		}
		if (st->insns == 0 && b.nreg != d.a->nslots)
			st->first_not_full = 1;
		d.prev_flag = b.tid_in == 1;
		d.prev_marker = b.tid_in == 1 && b.nreg != d.a->nslots &&
		    d.have_tid && b.tid == d.tid;
		if (emit_insn(&d, &b) < 0) {
			tp_fail(err, TP_EXIT_FAIL, "out of memory");
			goto fail;
		}
		in->pos += b.len;
		st->blocks++;
	}
	free(d.ubuf);
	trac_thr_tab_free(&d.tt);
	if (d.in_failed) {
		/* The blocks before it are out: now the gzip error. */
		*err = d.inerr;
		err->index = st->blocks;
		err->unit = "block";
		return -1;
	}
	return 0;
fail:
	free(d.ubuf);
	trac_thr_tab_free(&d.tt);
	if (d.in_failed && cut) {
		/* Cut by the gzip error, not by the recording. */
		*err = d.inerr;
		err->index = st->blocks;
		err->unit = "block";
		return -1;
	}
	if (cut == 1 && opts->allow_truncated && err->status == TP_EXIT_DATA &&
	    !near_suspect(&d)) {
		/* A live recording: the cut block is simply not there yet. */
		st->truncated_at = err->offset;
		tp_err_clear(err);
		return 0;
	}
	return -1;
}

/*
 * The magic alone says TRAC: a file that starts with it and is broken
 * after is still a trace for trac2txt to diagnose.
 */
int
trac_probe(const unsigned char *p, size_t n, char *detail, size_t detailsz)
{
	if (detailsz > 0)
		detail[0] = '\0';
	if (n < 4 || memcmp(p, "TRAC", 4) != 0)
		return TP_PROBE_NO;
	if (n >= 8 && detailsz > 0) {
		/*
		 * The architecture and version, as the header's JSON names
		 * them: its members that are whole in the bytes seen.
		 */
		uint32_t len = tp_get_le32(p + 4);
		const char *json = (const char *)p + 8, *cur, *k, *v, *ve;
		const char *e = json + (len < n - 8 ? len : n - 8);
		char arch[8] = "";
		size_t kn, alen = 0, vlen = 0;
		const char *ver = "?";

		cur = tp_json_ws(json, e);
		while (cur < e && (*cur == '{' || *cur == ',') &&
		    tp_json_member(&cur, e, &k, &kn, &v, &ve)) {
			if (kn == 4 && memcmp(k, "arch", 4) == 0 &&
			    (alen = arch_string(v, ve, arch, sizeof arch)) ==
			    SIZE_MAX)
				alen = 0;
			if (kn == 3 && memcmp(k, "ver", 3) == 0 && ve - v < 16) {
				ver = v;
				vlen = (size_t)(ve - v);
			}
		}
		snprintf(detail, detailsz, "%.*s%sversion %.*s, JSON header of "
		    "%lu bytes", (int)alen, arch, alen ? ", " : "",
		    vlen ? (int)vlen : 1, ver, (unsigned long)len);
	}
	return TP_PROBE_YES;
}
