/*
 * What the x64dbg decoder (trac.c) and encoder (trac-enc.c) share: the
 * slot token tables, the per-thread register states, the JSON header
 * check.  Private to lib/formats/trac.
 */
#ifndef TP_TRAC_PRIVATE_H
#define TP_TRAC_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"
#include "formats/trac/trac.h"

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


/*
 * Each thread's register state as its own instruction blocks give it:
 * what an encoder of a stream filtered by thread knows.  x64dbg stores
 * the slots that changed since the block before, whichever thread ran
 * it, so a thread that comes back after others ran finds slots that its
 * own blocks never set.  The decoder writes those (ctx. fields, see
 * trace-text(5)) and the encoder applies them to the thread's own
 * state.  Both sides keep this table with the same least-recently-used
 * eviction, so an encoder that sees some of the threads never remembers
 * one that the decoder has forgotten (the decoder then writes the whole
 * state again).
 */
#define TRAC_THREADS 256

struct thr {
	uint32_t tid;
	int have_seq;		/* last_seq is set */
	uint64_t last_seq;	/* seq of its last instruction */
	uint64_t used_at;
	unsigned nunk;		/* encoder: slots the stream did not give */
	uint64_t v[TRAC_MAX_SLOTS];
	unsigned char unk[TRAC_MAX_SLOTS];
};

/* The entries are made as threads come (most traces have a few). */
struct thr_tab {
	unsigned n;
	uint64_t clock;
	struct thr *t[TRAC_THREADS];
};


static inline uint64_t
rdptr(const unsigned char *p, unsigned ps)
{
	return ps == 8 ? tp_get_le64(p) : tp_get_le32(p);
}

static inline unsigned char *
wrptr(unsigned char *p, uint64_t v, unsigned ps)
{
	if (ps == 8)
		tp_put_le64(p, v);
	else
		tp_put_le32(p, (uint32_t)v);
	return p + ps;
}

/* ------------------------------------------------------------ blocks */

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
 * Parse the instruction block at p (avail bytes there): the decoder's
 * reading, which the splitter (trac-split.c) walks the blocks with.  extra_tid: read
 * a thread id although flag 0x80 is clear (the pre-#3920 writer bug).
 */
static inline int
parse_insn(const struct trac_arch *a, const unsigned char *p, size_t avail,
    int extra_tid, struct blk *b)
{
	unsigned ps = a->ptrsize, i, cur;
	size_t n = 4;

	b->tid = 0;
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
		b->tid = tp_get_le32(p + 4);
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

/* ------------------------------------------------------------ JSON header */

/*
 * Just enough JSON to check the header the way x64dbg's reader (Qt's
 * QJsonDocument) does and to find its top-level "ver", "arch" and
 * "compression"; the header itself is carried verbatim.  A repeated key
 * counts with its last value, as in Qt.
 */
struct json_info {
	const char *why;	/* NULL, or what is wrong */
	size_t errpos;		/* and where, from the start of the JSON */
	const char *archv;	/* the arch value as written, or NULL */
	size_t archvlen;
	char arch[8];		/* the arch string unescaped, if short ASCII */
	size_t archlen;		/* its length, or SIZE_MAX when not */
	int has_ver;
	int ver_one;		/* ver is a number whose integer value is 1 */
	int has_compression;
	int compression_set;	/* compression is not the empty string */
};

/* The arch string unescaped into out when it is short ASCII, else SIZE_MAX. */

const struct slot_tab *trac_tab_of(const struct trac_arch *a);

/* The slot whose token is name, or -1. */
int trac_slot_find(const struct trac_arch *a, const char *name, size_t n);

void trac_thr_tab_free(struct thr_tab *tt);

/*
 * The entry of thread tid (*found: it was there), made if needed; its
 * registers are set by the caller.  NULL when out of memory.
 */
struct thr *trac_thr_get(struct thr_tab *tt, uint32_t tid, int *found);

void trac_json_scan(const char *s, size_t n, struct json_info *ji);

/* ------------------------------------- Usercorn's records (trac-ucir.c) */

/*
 * Set register name (Unicorn's x86 name, as ucir2txt writes it) to the
 * len little-endian bytes p in the slot words s, marking the slots
 * changed in touched (*nt counts them): 0, 1 when bytes beyond the register were not zero
 * (cut), -1 for a Unicorn register REGDUMP has no room for, -2 for a
 * name Unicorn does not have.
 */
int trac_ucir_reg(const struct trac_arch *a, const char *name, size_t n,
    const unsigned char *p, size_t len, uint64_t *s, unsigned char *touched,
    unsigned *nt);

/* The bytes a stream wrote, by page of 4 KiB. */
struct trac_page;
struct trac_mem {
	struct trac_page **page;	/* open addressing, cap a power of 2 */
	size_t cap, n;
};

int trac_mem_put(struct trac_mem *m, uint64_t addr, const unsigned char *p,
    size_t n);		/* 0, or -1 out of memory */
/* n bytes at addr into p (0 where unknown): how many are known. */
size_t trac_mem_get(const struct trac_mem *m, uint64_t addr, unsigned char *p,
    size_t n);
void trac_mem_free(struct trac_mem *m);

#endif
