/*
 * x64dbg trace files: the encoder (txt2trac).  Records of trac2txt give
 * their blocks back; insn, read and write records of other decoders are
 * mapped (Usercorn's: trac-ucir.c).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "base/grow.h"
#include "formats/trac/trac.h"
#include "formats/trac/trac-private.h"
#include "text/text.h"

#define MAX_FIELDS TR_MAXFIELDS

enum { TID_DEFAULT = -1, TID_NO = 0, TID_YES = 1, TID_NOFLAG = 2 };
enum { TPREV_NO, TPREV_SEQ, TPREV_NONE };	/* tprev= absent, N, none */

struct enc {
	const struct trac_arch *a;
	const struct slot_tab *t;
	const struct trac_enc_opts *opts;
	struct trac_enc_stats *st;
	struct tp_out *out;
	struct tr_reader *r;
	struct tr_rec *rec;
	unsigned char *buf;	/* JSON and user payloads */
	size_t bufcap;
	uint64_t user_left;	/* bytes of a user block still to come */
	uint64_t user_size;
	uint64_t user_line;	/* where that block began */
	int header_done;
	uint64_t state[TRAC_MAX_SLOTS];	/* as a reader of the output has it */
	uint32_t tid;		/* thread of the last block, as a reader sees it */
	int have_tid;
	struct thr_tab tt;
	struct thr *thr;	/* the thread of the last instruction */
	uint64_t want[TRAC_MAX_SLOTS];	/* the state of the one being built */
	unsigned char given[TRAC_MAX_SLOTS];	/* ... set by its record */

	/* The instruction being built; its accesses follow it. */
	int pending;
	uint32_t ptid;
	int have_ptid, have_pseq, have_ppc;	/* fields it has */
	uint64_t pseq, ppc;
	int tidmode;
	unsigned rsvd;
	unsigned oplen;
	unsigned char op[TRAC_MAX_OPCODE];
	unsigned nreg;
	/* Room for an added cip and Usercorn's registers. */
	unsigned char pos[MAX_FIELDS + TRAC_MAX_SLOTS + 1];
	uint64_t val[MAX_FIELDS + TRAC_MAX_SLOTS + 1];
	unsigned nctx;		/* ctx. fields: the thread's state, not stored */
	unsigned char cpos[MAX_FIELDS];
	uint64_t cval[MAX_FIELDS];
	int have_tprev;
	uint64_t tprev;
	unsigned nmem;
	unsigned char mflag[TRAC_MAX_ACCESSES];
	uint64_t addr[TRAC_MAX_ACCESSES], old[TRAC_MAX_ACCESSES],
	    new_[TRAC_MAX_ACCESSES];

	/*
	 * Usercorn's records (ucir2txt).  Its register records set ustate,
	 * the state the next instruction starts from.  In its trace format
	 * an instruction's accesses and register changes come before it
	 * (utrace): they go to unext and the accesses wait in the arrays
	 * above, until the instruction comes.
	 */
	int ucir, utrace;
	int ukey;		/* in a keyframe, before an instruction */
	struct trac_mem mem;	/* what data= fields said, for opcodes */
	uint64_t ustate[TRAC_MAX_SLOTS], unext[TRAC_MAX_SLOTS];
	unsigned char utouch[TRAC_MAX_SLOTS];	/* ustate changed since */
	unsigned char ntouch[TRAC_MAX_SLOTS];	/* unext changed */
	unsigned nutouch, nntouch;
};

static int
grow(struct enc *e, size_t n)
{
	if (tp_grow(&e->buf, &e->bufcap, n, 1) < 0)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "out of memory");
	return 0;
}

/* A record trac cannot express: counted, or an error under --strict. */
static int
skip(struct enc *e, const char *fmt, const char *what, size_t n)
{
	return tr_skip(e->r, e->rec, &e->st->skipped, fmt,
	    (int)(n > 40 ? 40 : n), what);
}

static int
field_u64(struct enc *e, const struct tr_field *f, uint64_t *v)
{
	if (tp_parse_u64(f->val, f->vallen, v) < 0)
		return tr_u64(e->r, e->rec, f, v);
	return 0;
}

/* An unsigned value that must fit in a slot (pointer-sized). */
static int
field_ptr(struct enc *e, const struct tr_field *f, uint64_t *v)
{
	if (tp_parse_u64(f->val, f->vallen, v) < 0)
		return tr_u64(e->r, e->rec, f, v);
	if (e->a->ptrsize == 4 && *v > 0xffffffffu)
		return tr_fail(e->r, e->rec, f, "does not fit in 32 bits "
		    "(arch x86)");
	return 0;
}

static void
write_header(struct enc *e, const void *json, size_t n)
{
	unsigned char h[8];

	memcpy(h, "TRAC", 4);
	tp_put_le32(h + 4, (uint32_t)n);
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

static int unknown_field(struct enc *e, const struct tr_field *f);

/* The first field of the record not among keys: counted (see below). */
static int
unknown_among(struct enc *e, const char *const *keys, unsigned nkeys)
{
	const struct tr_rec *rec = e->rec;
	unsigned i, k;

	for (i = 0; i < rec->nf; i++) {
		for (k = 0; k < nkeys; k++)
			if (rec->f[i].keylen == strlen(keys[k]) &&
			    memcmp(rec->f[i].key, keys[k], rec->f[i].keylen) == 0)
				break;
		if (k == nkeys)
			return unknown_field(e, &rec->f[i]);
	}
	return 0;
}

static int
header_record(struct enc *e)
{
	static const char *const keys[] = { "arch", "json" };
	const struct tr_field *fa = tr_find(e->rec, "arch");
	const struct tr_field *fj = tr_find(e->rec, "json");
	const struct trac_arch *a = NULL, *ja = NULL;
	struct json_info ji;
	size_t n = 0;

	if (unknown_among(e, keys, 2) < 0)
		return -1;
	if (fa != NULL && (a = trac_arch_find(fa->val, fa->vallen)) == NULL)
		return tr_fail(e->r, e->rec, fa, "unsupported arch (x64 or x86 "
		    "expected)");
	if (fj != NULL) {
		if (grow(e, fj->vallen + 1) < 0 ||
		    tr_str(e->r, e->rec, fj, e->buf, e->bufcap, &n) < 0)
			return -1;
		if (n > 0x7fffffff)
			return tr_fail(e->r, e->rec, fj, "too long");
		/* Write no header that x64dbg and trac2txt would refuse. */
		trac_json_scan((char *)e->buf, n, &ji);
		if (ji.why != NULL)
			return tr_fail(e->r, e->rec, fj, "the JSON: %s, at its "
			    "byte %zu", ji.why, ji.errpos);
		if (!ji.has_ver || !ji.ver_one)
			return tr_fail(e->r, e->rec, fj, "\"ver\" is not the "
			    "number 1");
		if (ji.archv == NULL || !ji.has_compression)
			return tr_fail(e->r, e->rec, fj, "no \"%s\" key",
			    ji.archv == NULL ? "arch" : "compression");
		if (ji.archlen == SIZE_MAX ||
		    (ja = trac_arch_find(ji.arch, ji.archlen)) == NULL)
			return tr_fail(e->r, e->rec, fj, "the JSON's arch is "
			    "not \"x64\" or \"x86\"");
		if (a == NULL)
			a = ja;
		if (ja != a)
			return tr_fail(e->r, e->rec, fa, "disagrees with the "
			    "JSON header's arch %s", ja->name);
	}
	if (e->header_done) {
		/* Appended sessions share the file's one header and arch. */
		if (a != NULL && a != e->a)
			return tr_fail(e->r, e->rec, fa != NULL ? fa : fj,
			    "arch %s after blocks of arch %s: one trace file "
			    "holds one architecture", a->name, e->a->name);
		return skip(e, "%.*s record after the first block", "trac-header",
		    11);
	}
	if (a != NULL)
		e->a = a;
	e->t = trac_tab_of(e->a);
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
	if (store) {
		tp_put_le32(p, e->ptid);
		p += 4;
	}
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
	e->nmem = 0;
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

/*
 * The slots of the thread of an instruction that no record gave since
 * lines of the thread were dropped (its seq does not follow the seq of
 * its last instruction, or tprev= says another): counted, or an error
 * under --strict.
 */
static int
insn_unknown(struct enc *e, struct thr *t, int full, int fresh)
{
	const struct trac_arch *a = e->a;
	unsigned i;

	if (full || fresh) {
		if (t->nunk > 0)
			memset(t->unk, 0, a->nslots);
		t->nunk = 0;
		return 0;
	}
	if (e->have_pseq && (!t->have_seq || t->last_seq !=
	    (e->have_tprev ? e->tprev : e->pseq - 1))) {
		memset(t->unk, 1, a->nslots);
		t->nunk = a->nslots;
	}
	if (t->nunk == 0)
		return 0;
	for (i = 0; i < e->nreg; i++)
		t->nunk -= t->unk[e->pos[i]], t->unk[e->pos[i]] = 0;
	for (i = 0; i < e->nctx; i++)
		t->nunk -= t->unk[e->cpos[i]], t->unk[e->cpos[i]] = 0;
	if (t->nunk == 0)
		return 0;
	if (e->opts->strict)
		return tr_fail(e->r, e->rec, NULL, "%u registers of thread %lu "
		    "unknown: lines of its instructions before this one are "
		    "missing", t->nunk, (unsigned long)t->tid);
	if (e->st->unknown++ == 0) {
		e->st->first_unknown_line = e->rec->lineno;
		e->st->first_unknown_regs = t->nunk;
	}
	return 0;
}

/*
 * The register state of the instruction: its thread's own state (which
 * a stream filtered by thread, where other threads' blocks are missing,
 * needs), its stored slots and its ctx. fields.  The block stores its
 * own slots and every other one in which that state differs from what a
 * reader of the output has, so an unfiltered stream gives back the same
 * blocks.
 */
static int
insn_state(struct enc *e, int have_pc, uint64_t pc)
{
	const struct trac_arch *a = e->a;
	size_t size = a->nslots * sizeof e->state[0];
	struct thr *t = e->thr;
	unsigned i, k, s, n, given = e->nreg;
	int sw = t == NULL || t->tid != e->ptid, found = 1, fresh;

	if (sw) {
		if (t != NULL)
			memcpy(t->v, e->state, size);
		if ((e->thr = t = trac_thr_get(&e->tt, e->ptid, &found)) == NULL)
			return tp_fail(e->r->err, TP_EXIT_FAIL, "out of memory");
	}
	/*
	 * A thread's first instruction: its state is its stored and ctx.
	 * fields over zeros.  The first of the stream may lack tprev=none.
	 */
	fresh = e->have_tprev == TPREV_NONE || (!found && e->st->insns == 0);
	if (!found || e->have_tprev == TPREV_NONE)
		memset(t->v, 0, size);
	if (!sw && e->nctx == 0 && !fresh) {
		if (insn_unknown(e, t, e->nreg == a->nslots, 0) < 0)
			return -1;
		for (i = 0; i < e->nreg; i++)
			e->state[e->pos[i]] = e->val[i];
		if (have_pc && pc != e->state[a->cip]) {
			/* A record from elsewhere: pc moves the instruction
			 * pointer. */
			for (i = e->nreg; i > 0 && e->pos[i - 1] > a->cip; i--) {
				e->pos[i] = e->pos[i - 1];
				e->val[i] = e->val[i - 1];
			}
			e->pos[i] = (unsigned char)a->cip;
			e->val[i] = pc;
			e->nreg++;
			e->state[a->cip] = pc;
		}
		goto done;
	}

	memcpy(e->want, sw || fresh ? t->v : e->state, size);
	for (i = 0; i < e->nreg; i++)
		e->given[e->pos[i]] = 1;
	for (i = 0; i < e->nctx; i++) {
		s = e->cpos[i];
		given += !e->given[s];
		if (!e->given[s])
			e->want[s] = e->cval[i];
		e->given[s] = 1;
	}
	if (insn_unknown(e, t, given == a->nslots, fresh) < 0)
		return -1;
	if (have_pc && !e->given[a->cip])
		e->want[a->cip] = pc;
	/* The stored slots, and the others that the output must change. */
	for (s = 0, k = 0, n = 0; s < a->nslots; s++) {
		e->given[s] = 0;
		if (k < e->nreg && e->pos[k] == s) {
			e->want[s] = e->val[k++];
		} else if (e->want[s] == e->state[s]) {
			continue;
		}
		e->cpos[n] = (unsigned char)s;
		e->cval[n++] = e->want[s];
	}
	memcpy(e->pos, e->cpos, n);
	memcpy(e->val, e->cval, n * sizeof e->val[0]);
	e->nreg = n;
	memcpy(e->state, e->want, size);
done:
	t->last_seq = e->pseq;
	t->have_seq = e->have_pseq;
	return 0;
}

/*
 * A field txt2trac does not know in a record of its own kinds (insn,
 * read, write, trac-*): a misspelling, or another decoder's field whose
 * meaning the trace cannot hold; named, counted, refused by --strict.
 */
static int
unknown_field(struct enc *e, const struct tr_field *f)
{
	return tr_lose(e->r, e->rec, &e->st->skipped, "an unknown field "
	    "dropped", "%.*s field \"%.*s\"", (int)e->rec->kindlen,
	    e->rec->kind, (int)(f->keylen > 40 ? 40 : f->keylen), f->key);
}

/*
 * An access record's unknown field, found by tr_fields' count alone
 * (each key at most once), so that a record without one costs nothing.
 */
static int
unknown_of(struct enc *e, const struct tr_field **found,
    const char *const *keys, unsigned nkeys)
{
	unsigned k, got = 0;

	for (k = 0; k < nkeys; k++)
		got += found[k] != NULL;
	return got < e->rec->nf ? unknown_among(e, keys, nkeys) : 0;
}

/* The register changes of unext become the state of the next insn. */
static void
ucir_commit(struct enc *e)
{
	unsigned s;

	for (s = 0; s < e->a->nslots && e->nntouch > 0; s++) {
		if (!e->ntouch[s])
			continue;
		e->ntouch[s] = 0;
		e->nntouch--;
		e->ustate[s] = e->unext[s];
		e->nutouch += !e->utouch[s];
		e->utouch[s] = 1;
	}
}

/*
 * The slots Usercorn's records set since the instruction before, where
 * they differ from what a reader of the output has: stored in this
 * block, as x64dbg stores the slots that changed.
 */
static int
ucir_regs(struct enc *e)
{
	unsigned s;
	uint64_t ip = 0;
	int contra = 0;

	if (e->ucir && (e->thr == NULL || e->thr->tid != e->ptid)) {
		/*
		 * Usercorn emulates one CPU: a frame of another pid (thread
		 * here) continues its registers, where x64dbg would give the
		 * thread its own.
		 */
		for (s = 0; s < e->a->nslots; s++) {
			if (s == e->a->cip)
				continue;	/* pc= says it */
			e->cpos[e->nctx] = (unsigned char)s;
			e->cval[e->nctx++] = e->ustate[s];
		}
		memset(e->utouch, 0, e->a->nslots);
		e->nutouch = 0;
	}
	for (s = 0; s < e->a->nslots && e->nutouch > 0; s++) {
		if (!e->utouch[s])
			continue;
		e->utouch[s] = 0;
		e->nutouch--;
		if (s == e->a->cip && e->have_ppc) {
			/* x64dbg's instruction pointer is where the
			 * instruction is: pc= says it */
			contra = e->ustate[s] != e->ppc;
			ip = e->ustate[s];
			continue;
		}
		if (e->ustate[s] == e->state[s])
			continue;
		e->pos[e->nreg] = (unsigned char)s;
		e->val[e->nreg++] = e->ustate[s];
	}
	if (e->utrace)
		ucir_commit(e);
	if (contra) {
		char a[24], b[24];
		*tp_fmt_hex(a, ip) = '\0';
		*tp_fmt_hex(b, e->ppc) = '\0';
		return tr_lose(e->r, e->rec, &e->st->skipped, "an instruction "
		    "pointer the insn's pc contradicts, dropped", "%s=%s, "
		    "pc=%s", e->a == &trac_x64 ? "rip" : "eip", a, b);
	}
	return 0;
}

static int
insn_record(struct enc *e)
{
	const struct tr_rec *rec = e->rec;
	const struct trac_arch *a = e->a;
	const struct slot_tab *t = e->t;
	const struct tr_field *fbytes = NULL, *fsize = NULL, *unknown = NULL;
	unsigned i, expect = 0, sorted = 1, has_cip = 0;
	int have_pc = 0, last = -1;
	uint64_t pc = 0, v, size = 0;
	size_t n;

	flush_insn(e);
	e->ptid = e->tid;
	e->have_ptid = e->have_pseq = 0;
	e->tidmode = TID_DEFAULT;
	e->rsvd = 0;
	e->nreg = 0;
	e->nctx = 0;
	e->have_tprev = 0;
	if (!e->utrace)
		e->nmem = 0;	/* accesses with no instruction were skipped */
	e->ukey = 0;
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
				return tr_fail(e->r, rec, f, "thread id does "
				    "not fit in 32 bits");
			e->ptid = (uint32_t)v;
			e->have_ptid = 1;
			continue;
		} else if (f->keylen == 3 && memcmp(k, "seq", 3) == 0) {
			if (field_u64(e, f, &e->pseq) < 0)
				return -1;
			e->have_pseq = 1;
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
				return tr_fail(e->r, rec, f, "expected 0, 1 "
				    "or noflag");
			continue;
		} else if (f->keylen == 4 && memcmp(k, "rsvd", 4) == 0) {
			if (field_u64(e, f, &v) < 0)
				return -1;
			if (v & ~(uint64_t)TRAC_FLAG_RSVD)
				return tr_fail(e->r, rec, f, "only flag bits "
				    "4-6 (0x70) are reserved");
			e->rsvd = (unsigned)v;
			continue;
		} else if (f->keylen == 5 && memcmp(k, "tprev", 5) == 0) {
			e->have_tprev = TPREV_SEQ;
			if (f->vallen == 4 && memcmp(f->val, "none", 4) == 0)
				e->have_tprev = TPREV_NONE;
			else if (field_u64(e, f, &e->tprev) < 0)
				return -1;
			continue;
		} else if (f->keylen > 4 && memcmp(k, "ctx.", 4) == 0 &&
		    (s = trac_slot_find(a, k + 4, f->keylen - 4)) >= 0) {
			if (field_ptr(e, f, &v) < 0)
				return -1;
			e->cpos[e->nctx] = (unsigned char)s;
			e->cval[e->nctx++] = v;
			continue;
		} else if ((s = trac_slot_find(a, k, f->keylen)) < 0) {
			/* Usercorn's size= and depth= (inside a syscall). */
			if (f->keylen == 4 && memcmp(k, "size", 4) == 0)
				fsize = f;
			else if (!(f->keylen == 5 && memcmp(k, "depth", 5) == 0) &&
			    unknown == NULL)
				unknown = f;
			continue;
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
	if (fbytes != NULL && fbytes->vallen > 2 * TRAC_MAX_OPCODE)
		return skip(e, "%.*s record with more than 15 opcode bytes",
		    "insn", 4);
	if (fsize != NULL && field_u64(e, fsize, &size) < 0)
		return -1;
	if (unknown != NULL && unknown_field(e, unknown) < 0)
		return -1;
	if ((fbytes == NULL || fbytes->vallen == 0) && have_pc &&
	    size >= 1 && size <= TRAC_MAX_OPCODE && e->mem.n > 0 &&
	    trac_mem_get(&e->mem, pc, e->op, (size_t)size) == size) {
		/* A decoder without opcodes, whose stream wrote them. */
		n = (size_t)size;
		e->st->op_from_mem++;
	} else if (fbytes == NULL || fbytes->vallen == 0) {
		/*
		 * A block needs 1 to 15 bytes: a nop for each byte of the
		 * instruction's size, else one, counted (an error with
		 * --strict).
		 */
		if (e->opts->strict)
			return tr_fail(e->r, rec, NULL, "insn record without "
			    "opcode bytes%s: an x64dbg trace needs 1 to 15",
			    e->mem.n > 0 ? " (nor the stream's memory)" : "");
		if (e->st->no_opcode++ == 0)
			e->st->first_no_opcode_line = rec->lineno;
		n = size >= 1 && size <= TRAC_MAX_OPCODE ? (size_t)size : 1;
		memset(e->op, TRAC_NO_OPCODE, n);
	} else if (tr_bytes(e->r, rec, fbytes, e->op, TRAC_MAX_OPCODE,
	    &n) < 0) {
		return -1;
	}
	e->oplen = (unsigned)n;
	e->have_ppc = have_pc;
	e->ppc = pc;
	if (e->nutouch > 0 || e->nntouch > 0 || e->ucir) {
		if (ucir_regs(e) < 0)
			return -1;
		sorted = 0;
	}
	if (!sorted)
		sort_regs(e);
	if (have_pc && has_cip)
		have_pc = 0;	/* the slot says it */
	if (insn_state(e, have_pc, pc) < 0)
		return -1;
	e->pending = 1;
	return 0;
}

/* A field of an access and of its instruction that must agree. */
static int
access_mismatch(struct enc *e, const char *what, uint64_t v, uint64_t want)
{
	int hex = what[0] == 'p';
	char fmt[120], a[24], b[24];

	*(hex ? tp_fmt_hex(a, v) : tp_fmt_u64(a, v)) = '\0';
	*(hex ? tp_fmt_hex(b, want) : tp_fmt_u64(b, want)) = '\0';
	snprintf(fmt, sizeof fmt, "%%.*s with %s=%s after an insn with %s=%s",
	    what, a, what, b);
	return skip(e, fmt, e->rec->kind, e->rec->kindlen);
}

/*
 * A read or write: one memory access, or ceil(size / pointer size) of
 * them at consecutive pointer-sized addresses for a larger operand, as
 * x64dbg records it.  Values are pointer-sized; a larger value is split
 * little-endian over the accesses.
 */
enum { AK_PC, AK_OLD, AK_NEW, AK_TID, AK_SEQ, AK_ADDR, AK_SIZE, AK_FLAGS,
	AK_DATA, AK_DEPTH, AK_NKEYS };

static const char *const access_key[AK_NKEYS] = {
	"pc", "old", "new", "tid", "seq", "addr", "size", "flags", "data",
	"depth"
};

static struct tr_keys access_keys;

/* Little-endian bytes p[0..ps) as a slot value. */
static uint64_t
le_value(const unsigned char *p, unsigned ps)
{
	uint64_t v = 0;
	unsigned i;

	for (i = ps; i > 0; i--)
		v = v << 8 | p[i - 1];
	return v;
}

/*
 * An access whose value is bytes (data=, Usercorn's): x64dbg's
 * pointer-sized old and new values, little endian, a narrower access's
 * bytes in the low end of one value (the rest 0), a wider one's over
 * consecutive pointer-sized accesses as x64dbg splits operands.  A
 * read's value is its data, or where it has none (Usercorn's trace
 * format) the stream's memory; a write's old value is the stream's
 * memory.  Bytes the stream never gave are 0, counted.  The stream's
 * memory learns every data= (reads too: they show what memory holds).
 */
static int
access_bytes(struct enc *e, int write, const struct tr_field **f)
{
	const struct tr_rec *rec = e->rec;
	unsigned ps = e->a->ptrsize, i, m, count;
	uint64_t addr, size, v, depth = 0;
	unsigned char *old, *nw;
	size_t n = 0, got, cap;
	int setup;

	if (f[AK_ADDR] == NULL)
		return skip(e, "%.*s without addr", rec->kind, rec->kindlen);
	if (field_ptr(e, f[AK_ADDR], &addr) < 0)
		return -1;
	if (f[AK_DATA] != NULL) {
		if (grow(e, f[AK_DATA]->vallen / 2 + 1) < 0 ||
		    tr_bytes(e->r, rec, f[AK_DATA], e->buf, e->bufcap, &n) < 0)
			return -1;
	}
	size = n;
	if (f[AK_SIZE] != NULL) {
		if (field_u64(e, f[AK_SIZE], &size) < 0)
			return -1;
		if (f[AK_DATA] != NULL && size != n)
			return tr_fail(e->r, rec, f[AK_SIZE], "%llu bytes, "
			    "data= has %zu", (unsigned long long)size, n);
	}
	if (f[AK_DEPTH] != NULL && field_u64(e, f[AK_DEPTH], &depth) < 0)
		return -1;
	if (f[AK_PC] != NULL) {
		if (field_u64(e, f[AK_PC], &v) < 0)
			return -1;
		if (!e->utrace && e->pending && e->have_ppc && v != e->ppc &&
		    depth == 0 && !e->ukey)
			return access_mismatch(e, "pc", v, e->ppc);
	}
	if (size > (uint64_t)TRAC_MAX_ACCESSES * ps)
		count = TRAC_MAX_ACCESSES + 1;
	else
		count = (unsigned)((size + ps - 1) / ps);
	cap = (size_t)count * ps;
	setup = write && (e->ukey || depth > 0);
	if (!setup && e->utrace && e->pending)
		flush_insn(e);	/* the accesses of the next instruction */
	if (setup || (!e->utrace && !e->pending) || size == 0 ||
	    e->nmem + count > TRAC_MAX_ACCESSES) {
		/* Not an access of an instruction: the memory still is. */
		if (n > 0 && trac_mem_put(&e->mem, addr, e->buf, n) < 0)
			return tp_fail(e->r->err, TP_EXIT_FAIL, "out of memory");
		if (write && e->ukey)
			return skip(e, "%.*s of a keyframe (the memory set up "
			    "before the first instruction: its bytes give "
			    "opcodes and old values)", rec->kind, rec->kindlen);
		if (setup)
			return skip(e, "%.*s inside a syscall (the kernel's, "
			    "no instruction's: its bytes are kept for later "
			    "accesses)", rec->kind, rec->kindlen);
		if (!e->utrace && !e->pending)
			return skip(e, "%.*s without an instruction before it",
			    rec->kind, rec->kindlen);
		if (size == 0)
			return skip(e, "%.*s of size 0", rec->kind,
			    rec->kindlen);
		return skip(e, "%.*s beyond 32 memory accesses of an "
		    "instruction", rec->kind, rec->kindlen);
	}
	if (grow(e, n + 2 * cap) < 0)
		return -1;
	old = e->buf + n;
	nw = old + cap;
	memset(old, 0, 2 * cap);
	if (write) {
		memcpy(nw, e->buf, n);
		if (n < size && tr_lose(e->r, rec, &e->st->skipped, "a write "
		    "without its value, 0 written", "%llu of its %llu bytes",
		    (unsigned long long)(size - n), (unsigned long long)size) < 0)
			return -1;
		got = trac_mem_get(&e->mem, addr, old, (size_t)size);
	} else {
		memcpy(old, e->buf, n);
		got = n + (n < size ? trac_mem_get(&e->mem, addr + n, old + n,
		    (size_t)(size - n)) : 0);
	}
	if (got < size && tr_lose(e->r, rec, &e->st->skipped, write ?
	    "a write's old value not in the stream, 0 written" :
	    "a read's value not in the stream, 0 written", "%llu of its "
	    "%llu bytes at 0x%llx unknown", (unsigned long long)(size - got),
	    (unsigned long long)size, (unsigned long long)addr) < 0)
		return -1;
	if (n > 0 && trac_mem_put(&e->mem, addr, e->buf, n) < 0)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "out of memory");
	for (i = 0; i < count; i++) {
		m = e->nmem++;
		e->addr[m] = (addr + (uint64_t)i * ps) &
		    (ps == 8 ? UINT64_MAX : 0xffffffffu);
		e->old[m] = le_value(old + i * ps, ps);
		e->new_[m] = le_value(nw + i * ps, ps);
		/* x64dbg's flag: the value did not change. */
		e->mflag[m] = !write || e->old[m] == e->new_[m] ?
		    TRAC_MEM_UNCHANGED : 0;
	}
	return 0;
}

static int
access_record(struct enc *e, int write)
{
	const struct tr_rec *rec = e->rec;
	const struct tr_field *f[AK_NKEYS];
	unsigned ps = e->a->ptrsize;
	uint64_t addr = 0, old = 0, nv = 0, flags = 0, size = ps, v;
	uint64_t mask = ps == 8 ? UINT64_MAX : 0xffffffffu;
	int have_addr = 0;
	unsigned i, m, count, known;

	if (access_keys.key == NULL)
		tr_keys_init(&access_keys, access_key, AK_NKEYS);
	tr_fields(&access_keys, rec, f);
	if (f[AK_DATA] != NULL || (e->ucir && f[AK_OLD] == NULL &&
	    f[AK_NEW] == NULL))
		return unknown_of(e, f, access_key, AK_NKEYS) < 0 ? -1 :
		    access_bytes(e, write, f);
	if (!e->pending)
		return skip(e, "%.*s without an instruction before it",
		    rec->kind, rec->kindlen);
	/* The fields found, counted on the way (the per-record path). */
	known = (f[AK_NEW] != NULL) + (f[AK_DEPTH] != NULL) +
	    (f[AK_OLD] != NULL);
	if (f[AK_PC] != NULL) {
		known++;
		if (field_u64(e, f[AK_PC], &v) < 0)
			return -1;
		if (e->have_ppc && v != e->ppc)
			return access_mismatch(e, "pc", v, e->ppc);
	}
	if ((f[AK_OLD] != NULL && field_u64(e, f[AK_OLD], &old) < 0) ||
	    (write && f[AK_NEW] != NULL && field_u64(e, f[AK_NEW], &nv) < 0))
		return -1;
	if (f[AK_TID] != NULL) {
		known++;
		if (field_u64(e, f[AK_TID], &v) < 0)
			return -1;
		if (e->have_ptid && v != e->ptid)
			return access_mismatch(e, "tid", v, e->ptid);
	}
	if (f[AK_SEQ] != NULL) {
		known++;
		if (field_u64(e, f[AK_SEQ], &v) < 0)
			return -1;
		if (e->have_pseq && v != e->pseq)
			return access_mismatch(e, "seq", v, e->pseq);
	}
	if (f[AK_ADDR] != NULL) {
		known++;
		if (field_ptr(e, f[AK_ADDR], &addr) < 0)
			return -1;
		have_addr = 1;
	}
	if (f[AK_SIZE] != NULL) {
		known++;
		if (field_u64(e, f[AK_SIZE], &size) < 0)
			return -1;
	}
	if (f[AK_FLAGS] != NULL) {
		known++;
		if (field_u64(e, f[AK_FLAGS], &flags) < 0)
			return -1;
		if (flags > 0xff)
			return tr_fail(e->r, rec, f[AK_FLAGS], "not a flag byte");
	}
	if (known < rec->nf && unknown_among(e, access_key, AK_NKEYS) < 0)
		return -1;
	if (!have_addr)
		return skip(e, "%.*s without addr", rec->kind, rec->kindlen);
	if (size == 0)
		return skip(e, "%.*s of size 0", rec->kind, rec->kindlen);
	count = size <= ps ? 1 : size > (uint64_t)TRAC_MAX_ACCESSES * ps ?
	    TRAC_MAX_ACCESSES + 1 : (unsigned)((size + ps - 1) / ps);
	if (e->nmem + count > TRAC_MAX_ACCESSES)
		return skip(e, "%.*s beyond 32 memory accesses of an "
		    "instruction", rec->kind, rec->kindlen);
	if (count == 1 && ((old | nv) & ~mask) != 0) {
		return tr_fail(e->r, rec, f[(old & ~mask) != 0 ? AK_OLD :
		    AK_NEW], "does not fit in 32 bits (arch "
		    "x86)");
	}
	for (i = 0; i < count; i++) {
		/* Of a split write, a part that kept its value is unchanged. */
		int same = !write || (count > 1 && (old & mask) == (nv & mask));
		m = e->nmem++;
		e->mflag[m] = (unsigned char)((flags &
		    ~(uint64_t)TRAC_MEM_UNCHANGED) |
		    (same ? TRAC_MEM_UNCHANGED : 0));
		e->addr[m] = (addr + (uint64_t)i * ps) & mask;
		e->old[m] = old & mask;
		e->new_[m] = nv & mask;
		if (ps == 4) {
			old >>= 32;
			nv >>= 32;
		} else {
			old = nv = 0;
		}
	}
	return 0;
}

/* ------------------------------------------------ Usercorn's own records */

static int
ucir_header(struct enc *e)
{
	const struct tr_field *fa = tr_find(e->rec, "arch");
	const struct tr_field *ff = tr_find(e->rec, "format");
	const struct trac_arch *a = NULL;

	if (fa != NULL && fa->vallen == 6 && memcmp(fa->val, "x86_64", 6) == 0)
		a = &trac_x64;
	else if (fa != NULL && fa->vallen == 3 && memcmp(fa->val, "x86", 3) == 0)
		a = &trac_x86;
	else
		return tr_fail(e->r, e->rec, fa, "a Usercorn trace of arch "
		    "%.*s: x64dbg traces hold x86 (x86) and x86_64 (x64) only",
		    fa != NULL ? (int)(fa->vallen > 40 ? 40 : fa->vallen) : 4,
		    fa != NULL ? fa->val : "none");
	if (e->header_done && a != e->a)
		return tr_fail(e->r, e->rec, fa, "arch %s after blocks of arch "
		    "%s: one trace file holds one architecture", a->name,
		    e->a->name);
	e->ucir = 1;
	e->utrace = ff != NULL && ff->vallen == 5 &&
	    memcmp(ff->val, "trace", 5) == 0;
	if (!e->header_done) {
		e->a = a;
		e->t = trac_tab_of(a);
		default_header(e);
	}
	return 0;
}

/*
 * A register record (ucir-reg value=, ucir-spreg data=): the slots it
 * sets, in the state of the next instruction; at once in the replay
 * format, after the next instruction in the trace format (whose
 * register changes come before their instruction), at once in a
 * keyframe (the state before the first instruction).
 */
static int
ucir_reg(struct enc *e, int special)
{
	const struct tr_field *fr = tr_find(e->rec, "reg");
	const struct tr_field *fv = tr_find(e->rec, special ? "data" : "value");
	unsigned char b[64];
	size_t n = 0;
	uint64_t v;
	int rc;

	if (fr == NULL || fv == NULL)
		return skip(e, "%.*s without reg or its value", e->rec->kind,
		    e->rec->kindlen);
	if (special) {
		if (tr_bytes(e->r, e->rec, fv, b, sizeof b, &n) < 0)
			return -1;
	} else {
		if (field_u64(e, fv, &v) < 0)
			return -1;
		tp_put_le64(b, v);
		n = 8;
	}
	rc = trac_ucir_reg(e->a, fr->val, fr->vallen, b, n, e->unext,
	    e->ntouch, &e->nntouch);
	if (!e->utrace || e->ukey)
		ucir_commit(e);
	if (rc == 1)
		return tr_lose(e->r, e->rec, &e->st->skipped, "a register value "
		    "wider than its x64dbg slot, cut", "%.*s", (int)(fr->vallen >
		    40 ? 40 : fr->vallen), fr->val);
	if (rc < 0)
		return tr_lose(e->r, e->rec, &e->st->skipped, rc == -1 ?
		    "a register x64dbg has no slot for, dropped" :
		    "an unknown register name dropped", "%.*s register %.*s",
		    e->a == &trac_x64 ? 6 : 3, e->a == &trac_x64 ? "x86_64" :
		    "x86", (int)(fr->vallen > 40 ? 40 : fr->vallen), fr->val);
	return 0;
}

static int
user_record(struct enc *e)
{
	const struct tr_field *ft = tr_find(e->rec, "type");
	const struct tr_field *fd = tr_find(e->rec, "data");
	const struct tr_field *fs = tr_find(e->rec, "size");
	static const char *const keys[] = { "type", "data", "size" };
	unsigned char h[5];
	uint64_t type, size;
	size_t n = 0;

	if (unknown_among(e, keys, 3) < 0)
		return -1;
	if (ft == NULL)
		return tr_fail(e->r, e->rec, NULL, "trac-user without type");
	if (field_u64(e, ft, &type) < 0)
		return -1;
	if (type < 0x80 || type > 0xff)
		return tr_fail(e->r, e->rec, ft, "user block types are 0x80 "
		    "to 0xff");
	if (fd != NULL && (grow(e, fd->vallen / 2 + 1) < 0 ||
	    tr_bytes(e->r, e->rec, fd, e->buf, e->bufcap, &n) < 0))
		return -1;
	size = n;
	if (fs != NULL) {
		if (field_u64(e, fs, &size) < 0)
			return -1;
		if (size > 0xffffffffu)
			return tr_fail(e->r, e->rec, fs, "more than a 32-bit "
			    "length");
		if (size < n)
			return tr_fail(e->r, e->rec, fs, "less than the %zu "
			    "bytes of data", n);
	}
	flush_insn(e);
	h[0] = (unsigned char)type;
	tp_put_le32(h + 1, (uint32_t)size);
	tp_out_write(e->out, h, 5);
	if (n > 0)
		tp_out_write(e->out, e->buf, n);
	/* The rest follows in trac-user-data records. */
	e->user_left = size - n;
	e->user_size = size;
	e->user_line = e->rec->lineno;
	e->st->user_blocks++;
	return 0;
}

static int
user_data_record(struct enc *e)
{
	static const char *const keys[] = { "data" };
	const struct tr_field *fd = tr_find(e->rec, "data");
	size_t n = 0;

	if (unknown_among(e, keys, 1) < 0)
		return -1;
	if (e->user_left == 0)
		return tr_fail(e->r, e->rec, NULL, "trac-user-data without a "
		    "trac-user whose size= it completes");
	if (fd != NULL && (grow(e, fd->vallen / 2 + 1) < 0 ||
	    tr_bytes(e->r, e->rec, fd, e->buf, e->bufcap, &n) < 0))
		return -1;
	if (n > e->user_left)
		return tr_fail(e->r, e->rec, fd, "%zu bytes, more than the "
		    "%llu the user block of line %llu still needs", n,
		    (unsigned long long)e->user_left,
		    (unsigned long long)e->user_line);
	tp_out_write(e->out, e->buf, n);
	e->user_left -= n;
	return 0;
}

/* A user block whose size= is not reached: an error at line lineno. */
static int
user_incomplete(struct enc *e, uint64_t lineno)
{
	e->r->err->line = lineno;
	e->r->err->col = 0;
	e->r->err->offset = TP_NONE;
	return tp_fail(e->r->err, TP_EXIT_DATA, "the user block of line %llu "
	    "(size=%llu) lacks %llu bytes: trac-user-data records expected",
	    (unsigned long long)e->user_line,
	    (unsigned long long)e->user_size,
	    (unsigned long long)e->user_left);
}

/* Usercorn's structure and registers: 0, -1, or 1 for another kind. */
static int
ucir_record(struct enc *e)
{
	const char *k = e->rec->kind + 5;
	size_t n = e->rec->kindlen - 5;

	if (n == 3 && memcmp(k, "reg", 3) == 0)
		return ucir_reg(e, 0);
	if (n == 5 && memcmp(k, "spreg", 5) == 0)
		return ucir_reg(e, 1);
	if (n == 5 && memcmp(k, "frame", 5) == 0) {
		const struct tr_field *f = tr_find(e->rec, "keyframe");
		e->ukey = f != NULL && f->vallen == 4 &&
		    memcmp(f->val, "true", 4) == 0;
		return 0;
	}
	/* A basic block's start and size, and a marker: the insns say it. */
	if ((n == 3 && memcmp(k, "jmp", 3) == 0) ||
	    (n == 3 && memcmp(k, "nop", 3) == 0))
		return 0;
	return 1;
}

static int
encode_records(struct enc *e)
{
	struct tr_rec *rec = e->rec;
	int rc;

	while ((rc = tr_next(e->r, rec)) > 0) {
		const char *k = rec->kind;
		e->st->records++;
		if (rec->kindlen == 14 && memcmp(k, "trac-user-data", 14) == 0) {
			if (user_data_record(e) < 0)
				return -1;
			continue;
		}
		if (e->user_left > 0)
			return user_incomplete(e, rec->lineno);
		if (rec->kindlen == 11 && memcmp(k, "trac-header", 11) == 0) {
			if (header_record(e) < 0)
				return -1;
			continue;
		}
		if (rec->kindlen == 11 && memcmp(k, "ucir-header", 11) == 0) {
			if (ucir_header(e) < 0)
				return -1;
			continue;
		}
		if (!e->header_done)
			default_header(e);
		if (rec->kindlen > 5 && memcmp(k, "ucir-", 5) == 0 &&
		    (rc = ucir_record(e)) != 1) {
			if (rc < 0)
				return -1;
			continue;
		}
		if (rec->kindlen == 4 && memcmp(k, "insn", 4) == 0)
			rc = insn_record(e);
		else if (rec->kindlen == 4 && memcmp(k, "read", 4) == 0)
			rc = access_record(e, 0);
		else if (rec->kindlen == 5 && memcmp(k, "write", 5) == 0)
			rc = access_record(e, 1);
		else if (rec->kindlen == 9 && memcmp(k, "trac-user", 9) == 0)
			rc = user_record(e);
		else if (!tr_rebuilt(&e->st->skipped, rec))
			rc = skip(e, "record kind \"%.*s\"", k, rec->kindlen);
		if (rc < 0)
			return -1;
	}
	if (rc < 0)
		return -1;
	if (e->user_left > 0)
		return user_incomplete(e, e->r->lineno);
	if (e->nmem > 0 && !e->pending && tr_skip(e->r, rec, &e->st->skipped,
	    "%u memory accesses after the last instruction", e->nmem) < 0)
		return -1;
	if (!e->header_done)
		default_header(e);
	flush_insn(e);
	return 0;
}

int
trac_encode(struct tr_reader *r, struct tp_out *out,
    const struct trac_enc_opts *opts, struct trac_enc_stats *st,
    struct tp_err *err)
{
	/*
	 * On the stack, as the decoder's (some 30 KiB): a run then costs
	 * what its input does, where an allocation would be fresh memory,
	 * filled and faulted in, for every call (HACKING.md, fuzzing).
	 */
	struct enc enc, *e = &enc;
	struct tr_rec rec;
	int rc;

	memset(st, 0, sizeof *st);
	st->skipped.strict = opts->strict;
	st->skipped.cannot = "not expressible in an x64dbg trace";
	memset(e, 0, sizeof *e);
	e->rec = &rec;
	e->a = opts->arch ? opts->arch : &trac_x64;
	e->t = trac_tab_of(e->a);
	e->opts = opts;
	e->st = st;
	e->out = out;
	r->err = err;
	e->r = r;
	rc = encode_records(e);
	trac_thr_tab_free(&e->tt);
	trac_mem_free(&e->mem);
	free(e->buf);
	return rc;
}
