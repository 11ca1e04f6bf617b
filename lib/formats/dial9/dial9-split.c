/*
 * Cutting a dial9 trace into traces (formats/split.h).
 *
 * A reader may start afresh at a header (a segment: it forgets all) and,
 * given what it must know, between any two frames: the schemas of the
 * events that follow, the string and stack pool entries they name, and
 * the timestamp base.  A piece cut between frames is its segment's
 * header, then the frames of the input, each event preceded by what it
 * needs that the piece does not hold yet: its schema (with its
 * annotations), the pool entries of its pooled fields, a timestamp reset
 * to the base.  So a piece restates only what it uses, where it first
 * uses it.
 *
 * What makes an event's text is kept too: dial92txt writes a pool id or
 * a type id where the entry or schema does not "hold" its content or
 * name (dial9-seg.c), so a restated entry that does not hold its content
 * in the input comes after the one that does, and a schema that does not
 * hold its name is followed by the one that does.  Frames between two
 * events go with the event after them: a cut before an event is made
 * before the structure frames in front of it (unless a header comes
 * between), so that a piece holds the pools and schemas it uses itself.
 */
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/grow.h"
#include "base/leb128.h"
#include "formats/dial9/dial9-private.h"
#include "formats/split.h"

enum { SW_OK = 0, SW_MORE = 1, SW_BAD = -1 };

/* A structure frame read but not yet written: it waits for the cut. */
struct pend {
	uint64_t off, index;
	size_t at, len;		/* in sp->pbuf */
};

/* An annotations frame of the segment, for a schema restated later. */
struct annot {
	uint32_t id;
	size_t at, len;		/* in sp->abuf */
	uint64_t gen;
};

struct sp {
	struct tp_in *in;
	struct tp_cutter *c;
	struct tp_err *err;
	struct seg seg;		/* the input's state */
	uint32_t *seen;
	size_t seencap;
	unsigned version;	/* of the segment's header */
	/*
	 * gen: the piece and segment being written; a schema or pool
	 * entry is in the piece when its stamp is gen.
	 */
	uint64_t gen;
	uint64_t *xgen;		/* by type id */
	uint64_t *sgen, *kgen;	/* by string, stack pool entry index */
	size_t sgencap, kgencap;
	uint64_t piece_base;	/* the piece's timestamp base */
	unsigned char *pbuf;
	size_t plen, pcap;
	struct pend *pend;
	size_t npend, pendcap;
	unsigned char *abuf;
	size_t alen, acap;
	struct annot *ann;
	size_t nann, anncap;
	uint64_t records, frames;
};

static void
put(struct sp *s, const void *p, size_t n)
{
	tp_out_write(s->c->out, p, n);
}

/* --------------------------------------------------- frame lengths */

/*
 * Walk a value of type t (no optional bit) at *qp; with restate, write
 * into the piece the pool entries it names that the piece lacks.
 */
static int restate_entry(struct sp *s, int stacks, struct pent *e);

static int
walk_value(struct sp *s, unsigned t, const unsigned char **qp,
    const unsigned char *end, int depth, int restate, uint64_t off0,
    const unsigned char *p0)
{
	const unsigned char *q = *qp;
	size_t left = (size_t)(end - q), l;
	uint64_t n, k, v;
	int rc;

#define BAD(at, ...) tp_fail_at(s->err, off0 + (uint64_t)((at) - p0), \
	    s->frames, "frame", __VA_ARGS__)
	switch (t) {
	case T_VARINT:
		rc = tp_uleb_get(q, left, &v, &l);
		if (rc == TP_LEB_TRUNC)
			return SW_MORE;
		if (rc != TP_LEB_OK)
			return BAD(q, "varint %s", rc == TP_LEB_TOOLONG ?
			    "longer than 10 bytes" : "above 2^64-1");
		q += l;
		break;
	case T_U8:
	case T_BOOL:
		if (left < 1)
			return SW_MORE;
		q += 1;
		break;
	case T_U16:
		if (left < 2)
			return SW_MORE;
		q += 2;
		break;
	case T_U32:
		if (left < 4)
			return SW_MORE;
		q += 4;
		break;
	case T_I64:
	case T_F64:
		if (left < 8)
			return SW_MORE;
		q += 8;
		break;
	case T_STRING:
	case T_BYTES:
		if (left < 4)
			return SW_MORE;
		n = tp_get_le32(q);
		if (left - 4 < n)
			return SW_MORE;
		q += 4 + n;
		break;
	case T_PSTRING:
	case T_PSTACK: {
		struct pool *pool = t == T_PSTRING ? &s->seg.strings :
		    &s->seg.stacks;
		struct pent *e;
		if (left < 4)
			return SW_MORE;
		e = pool_get(pool, tp_get_le32(q));
		if (e == NULL)
			return BAD(q, "undefined %s pool id %u", t == T_PSTRING ?
			    "string" : "stack", (unsigned)tp_get_le32(q));
		if (restate && restate_entry(s, t == T_PSTACK, e) < 0)
			return SW_BAD;
		q += 4;
		break;
	}
	case T_STACK:
		if (left < 4)
			return SW_MORE;
		n = tp_get_le32(q);
		if ((left - 4) / 8 < n)
			return SW_MORE;
		q += 4 + 8 * n;
		break;
	case T_SMAP:
		if (left < 4)
			return SW_MORE;
		n = tp_get_le32(q);
		q += 4;
		for (k = 0; k < 2 * n; k++) {
			uint64_t m;
			if (end - q < 4)
				return SW_MORE;
			m = tp_get_le32(q);
			if ((uint64_t)(end - q) - 4 < m)
				return SW_MORE;
			q += 4 + m;
		}
		break;
	case T_LIST:
	case T_MAP:
		if (depth >= DIAL9_DEPTH_MAX)
			return BAD(q, "dynamic values nested deeper than %d",
			    DIAL9_DEPTH_MAX);
		if (left < 4)
			return SW_MORE;
		n = tp_get_le32(q);
		q += 4;
		for (k = 0; k < (t == T_MAP ? 2 * n : n); k++) {
			unsigned et;
			if (q >= end)
				return SW_MORE;
			if (!tag_ok(*q))
				return BAD(q, "unknown element type 0x%02x", *q);
			et = *q++ & ~OPT;
			rc = walk_value(s, et, &q, end, depth + 1, restate, off0,
			    p0);
			if (rc != SW_OK)
				return rc;
		}
		break;
	}
#undef BAD
	*qp = q;
	return SW_OK;
}

/* An event frame's length at p[0..end); restate: see walk_value. */
static int
event_len(struct sp *s, const unsigned char *p, const unsigned char *end,
    uint64_t off, int restate, size_t *flen)
{
	const unsigned char *q = p + 3;
	const struct schema *x;
	uint32_t i;
	int rc;

	if (end - p < 3)
		return SW_MORE;
	x = seg_at(&s->seg, tp_get_le16(p + 1));
	if (x == NULL)
		return tp_fail_at(s->err, off, s->frames, "frame", "event of "
		    "type id %u before its schema", tp_get_le16(p + 1));
	if (x->tsbyte) {
		if (end - q < 3)
			return SW_MORE;
		q += 3;
	}
	for (i = 0; i < x->nf; i++) {
		unsigned t = x->f[i].tag;
		if (t & OPT) {
			if (q >= end)
				return SW_MORE;
			if (*q++ == 0)
				continue;
			t &= ~OPT;
		}
		rc = walk_value(s, t, &q, end, 0, restate, off, p);
		if (rc != SW_OK)
			return rc;
	}
	*flen = (size_t)(q - p);
	return SW_OK;
}

/* A structure frame's length (self-delimiting: no state needed). */
static int
struct_len(struct sp *s, const unsigned char *p, const unsigned char *end,
    uint64_t off, size_t *flen)
{
	const unsigned char *q;
	uint64_t count, i, id;
	size_t l;
	int rc;

	switch (p[0]) {
	case TAG_SCHEMA: {
		size_t namelen;
		uint32_t nf, k;
		if (end - p < 5)
			return SW_MORE;
		namelen = tp_get_le16(p + 3);
		q = p + 5;
		if ((size_t)(end - q) < namelen + 3)
			return SW_MORE;
		q += namelen + 1;
		nf = tp_get_le16(q);
		q += 2;
		for (k = 0; k < nf; k++) {
			size_t fl;
			if (end - q < 2)
				return SW_MORE;
			fl = tp_get_le16(q);
			if ((size_t)(end - q) < fl + 3)
				return SW_MORE;
			if (!tag_ok(q[2 + fl]))
				return tp_fail_at(s->err, off + (uint64_t)(q + 2 +
				    fl - p), s->frames, "frame", "schema "
				    "(type id %u), field %u: unknown field "
				    "type 0x%02x", tp_get_le16(p + 1), k,
				    q[2 + fl]);
			q += fl + 3;
		}
		break;
	}
	case TAG_STRINGS:
	case TAG_STACKS:
		if (end - p < 5)
			return SW_MORE;
		count = tp_get_le32(p + 1);
		q = p + 5;
		for (i = 0; i < count; i++) {
			uint64_t n;
			if (end - q < 8)
				return SW_MORE;
			n = tp_get_le32(q + 4);
			if ((uint64_t)(end - q - 8) / (p[0] == TAG_STACKS ? 8 : 1) <
			    n)
				return SW_MORE;
			q += 8 + n * (p[0] == TAG_STACKS ? 8 : 1);
		}
		break;
	case TAG_RESET:
		if (end - p < 9)
			return SW_MORE;
		q = p + 9;
		break;
	case TAG_ANNOT:
		q = p + 1;
		rc = tp_uleb_get(q, (size_t)(end - q), &id, &l);
		if (rc == TP_LEB_TRUNC)
			return SW_MORE;
		if (rc != TP_LEB_OK)
			return tp_fail_at(s->err, off + 1, s->frames, "frame",
			    "schema annotations: type id varint %s",
			    rc == TP_LEB_TOOLONG ? "longer than 10 bytes" :
			    "above 2^64-1");
		q += l;
		if (end - q < 2)
			return SW_MORE;
		count = tp_get_le16(q);
		q += 2;
		for (i = 0; i < count; i++) {
			size_t kl, vl;
			if (end - q < 4)
				return SW_MORE;
			kl = tp_get_le16(q + 2);
			if ((size_t)(end - q - 4) < kl + 4)
				return SW_MORE;
			vl = tp_get_le32(q + 4 + kl);
			if ((size_t)(end - q - 8 - kl) < vl)
				return SW_MORE;
			q += 8 + kl + vl;
		}
		break;
	default:
		return tp_fail_at(s->err, off, s->frames, "frame",
		    "unknown frame tag 0x%02x", p[0]);
	}
	*flen = (size_t)(q - p);
	return SW_OK;
}

/* ---------------------------------------------------- the piece's state */

static uint64_t *
stamp_of(struct sp *s, int stacks, const struct pent *e)
{
	struct pool *pool = stacks ? &s->seg.stacks : &s->seg.strings;
	uint64_t **g = stacks ? &s->kgen : &s->sgen;
	size_t *cap = stacks ? &s->kgencap : &s->sgencap, old = *cap;
	size_t i = (size_t)(e - pool->e);

	if (i >= *cap) {
		if (tp_grow(g, cap, i + 1, sizeof **g) < 0)
			return NULL;
		memset(*g + old, 0, (*cap - old) * sizeof **g);
	}
	return &(*g)[i];
}

static void write_def(struct sp *s, int stacks, uint32_t id,
    const void *data, size_t len);

static int
write_entry(struct sp *s, int stacks, const struct pent *e)
{
	uint64_t *st = stamp_of(s, stacks, e);

	if (st == NULL)
		return tp_fail_nomem(s->err);
	write_def(s, stacks, e->id, e->data, e->len);
	*st = s->gen;
	return 0;
}

/* Define id as data[0..len) in the piece: one pool frame. */
static void
write_def(struct sp *s, int stacks, uint32_t id, const void *data,
    size_t len)
{
	unsigned char h[13];

	h[0] = stacks ? TAG_STACKS : TAG_STRINGS;
	tp_put_le32(h + 1, 1);
	tp_put_le32(h + 5, id);
	tp_put_le32(h + 9, (uint32_t)(stacks ? len / 8 : len));
	put(s, h, sizeof h);
	put(s, data, len);
}

/*
 * e holds no content in the input, and no entry holds its content any
 * more (its holder was defined again since): in the piece, a spare id
 * holds the content while e is defined, then takes the content of a
 * holder, which it cannot hold.  So the spare holds nothing and changes
 * no later choice; its id is one the input does not use now.  0, or -1.
 */
static int
restate_orphan(struct sp *s, int stacks, struct pent *e)
{
	struct pool *pool = stacks ? &s->seg.stacks : &s->seg.strings;
	struct pent *h2 = NULL;
	uint32_t spare;
	uint64_t *st;
	size_t i;

	for (i = 0; i < pool->n && h2 == NULL; i++)
		if (pool->e[i].holder)
			h2 = &pool->e[i];
	for (spare = pool->maxid + 1; pool_get(pool, spare) != NULL; spare++)
		;
	if (h2 == NULL)		/* nothing to give it: e holds in the piece */
		return write_entry(s, stacks, e);
	if ((st = stamp_of(s, stacks, h2)) == NULL)
		return tp_fail_nomem(s->err);
	if (*st != s->gen && write_entry(s, stacks, h2) < 0)
		return -1;
	write_def(s, stacks, spare, e->data, e->len);
	if (write_entry(s, stacks, e) < 0)
		return -1;
	write_def(s, stacks, spare, h2->data, h2->len);
	return 0;
}

static int
restate_entry(struct sp *s, int stacks, struct pent *e)
{
	struct pool *pool = stacks ? &s->seg.stacks : &s->seg.strings;
	uint64_t *st = stamp_of(s, stacks, e);
	size_t slot;

	if (st == NULL)
		return tp_fail_nomem(s->err);
	if (*st == s->gen)
		return 0;
	if (!e->holder) {
		/* the holder first, so that e is no holder in the piece */
		struct pent *h = dial9_pool_holder(pool, e->data, e->len,
		    e->hash, &slot);
		uint64_t *hs;
		if (h == NULL)
			return restate_orphan(s, stacks, e);
		if (h != e) {
			if ((hs = stamp_of(s, stacks, h)) == NULL)
				return tp_fail_nomem(s->err);
			if (*hs != s->gen && write_entry(s, stacks, h) < 0)
				return -1;
		}
	}
	return write_entry(s, stacks, e);
}

static void
write_schema(struct sp *s, const struct schema *x)
{
	unsigned char h[3];
	size_t i;

	h[0] = TAG_SCHEMA;
	tp_put_le16(h + 1, (uint16_t)x->id);
	put(s, h, 3);
	put(s, x->body, x->bodylen);
	s->xgen[x->id] = s->gen;
	for (i = 0; i < s->nann; i++)
		if (s->ann[i].id == x->id && s->ann[i].gen != s->gen) {
			put(s, s->abuf + s->ann[i].at, s->ann[i].len);
			s->ann[i].gen = s->gen;
		}
}

static void
restate_schema(struct sp *s, const struct schema *x)
{
	const struct schema *h;

	if (s->xgen[x->id] == s->gen)
		return;
	write_schema(s, x);
	/* the holder of its name again after it, as in the input */
	if (!x->holder && (h = dial9_seg_by_name(&s->seg, x->name,
	    x->namelen)) != NULL && h != x)
		write_schema(s, h);
}

/* A new segment (a header in the input). */
static void
new_segment(struct sp *s, unsigned version)
{
	dial9_seg_reset(&s->seg);
	s->version = version;
	s->nann = 0;
	s->alen = 0;
	s->gen++;
	s->piece_base = 0;
}

/* The piece starts: its header; it holds nothing yet. */
static void
new_piece(struct sp *s)
{
	unsigned char h[HEADER_LEN] = { 'T', 'R', 'C', 0, 0 };

	h[4] = (unsigned char)s->version;
	put(s, h, HEADER_LEN);
	s->gen++;
	s->piece_base = 0;
}

/* Apply a structure frame to the state and write it into the piece. */
static int
apply(struct sp *s, const unsigned char *p, size_t len, uint64_t off)
{
	const unsigned char *q;
	uint32_t count, i;
	int conflict;

	switch (p[0]) {
	case TAG_SCHEMA: {
		struct schema *x = dial9_seg_register(&s->seg,
		    tp_get_le16(p + 1), p + 3, len - 3, &s->seen, &s->seencap,
		    &conflict);
		if (conflict)
			return tp_fail_at(s->err, off, TP_NONE, NULL, "type id "
			    "%u registered again with a different schema",
			    tp_get_le16(p + 1));
		if (x == NULL)
			return tp_fail_nomem(s->err);
		put(s, p, len);
		s->xgen[x->id] = s->gen;
		return 0;
	}
	case TAG_STRINGS:
	case TAG_STACKS: {
		int stacks = p[0] == TAG_STACKS;
		struct pool *pool = stacks ? &s->seg.stacks : &s->seg.strings;
		size_t w = stacks ? 8 : 1, slot;
		count = tp_get_le32(p + 1);
		/*
		 * An entry whose content another entry holds in the input
		 * must find that one in the piece, or it would hold it.
		 */
		for (q = p + 5, i = 0; i < count; i++) {
			size_t n = tp_get_le32(q + 4) * w;
			struct pent *e = pool_get(pool, tp_get_le32(q));
			struct pent *h = dial9_pool_holder(pool, q + 8, n,
			    tp_hash_mem(q + 8, n), &slot);
			uint64_t *hs;
			if (h != NULL && h != e) {
				if ((hs = stamp_of(s, stacks, h)) == NULL)
					return tp_fail_nomem(s->err);
				if (*hs != s->gen && write_entry(s, stacks, h) < 0)
					return -1;
			}
			q += 8 + n;
		}
		put(s, p, len);
		for (q = p + 5, i = 0; i < count; i++) {
			size_t n = tp_get_le32(q + 4) * w;
			struct pent *e = dial9_pool_define(pool, &s->seg.arena,
			    tp_get_le32(q), q + 8, n);
			uint64_t *st;
			if (e == NULL || (st = stamp_of(s, stacks, e)) == NULL)
				return tp_fail_nomem(s->err);
			*st = s->gen;
			q += 8 + n;
		}
		return 0;
	}
	case TAG_RESET:
		put(s, p, len);
		s->seg.base = s->piece_base = tp_get_le64(p + 1);
		return 0;
	case TAG_ANNOT: {
		uint64_t id = 0;
		size_t l;
		put(s, p, len);
		(void)tp_uleb_get(p + 1, len - 1, &id, &l);
		if (id > 0xffff)
			return 0;	/* no schema can have it */
		if (tp_grow(&s->abuf, &s->acap, s->alen + len, 1) < 0 ||
		    tp_grow(&s->ann, &s->anncap, s->nann + 1, sizeof *s->ann) < 0)
			return tp_fail_nomem(s->err);
		memcpy(s->abuf + s->alen, p, len);
		s->ann[s->nann].id = (uint32_t)id;
		s->ann[s->nann].at = s->alen;
		s->ann[s->nann].len = len;
		s->ann[s->nann].gen = s->gen;
		s->nann++;
		s->alen += len;
		return 0;
	}
	}
	return 0;
}

static int
flush_pending(struct sp *s)
{
	size_t i;

	for (i = 0; i < s->npend; i++)
		if (apply(s, s->pbuf + s->pend[i].at, s->pend[i].len,
		    s->pend[i].off) < 0)
			return -1;
	s->npend = 0;
	s->plen = 0;
	return 0;
}

/* ------------------------------------------------------------ the walk */

static const char *const frame_names[] = {
	"unknown", "schema", "event", "string pool", "stack pool",
	"timestamp reset", "schema annotations"
};

/*
 * The frame at in->pos whole in the window: *flen set.  -1 with err set
 * (a fault, a frame cut by the end of the input).
 */
static int
frame_at(struct sp *s, size_t *flen)
{
	struct tp_in *in = s->in;
	size_t want = 64;

	for (;;) {
		const unsigned char *p = in->buf + in->pos;
		const unsigned char *end = in->buf + in->len;
		uint64_t off = tp_in_offset(in);
		size_t have = in->len - in->pos;
		int rc;

		if (p[0] == 'T') {
			rc = SW_MORE;
			if (have >= HEADER_LEN) {
				if (memcmp(p, "TRC", 4) != 0)
					return tp_fail_at(s->err, off, s->frames,
					    "frame", "unknown frame tag 0x%02x",
					    p[0]);
				*flen = HEADER_LEN;
				rc = SW_OK;
			}
		} else if (p[0] == TAG_EVENT)
			rc = event_len(s, p, end, off, 0, flen);
		else
			rc = struct_len(s, p, end, off, flen);
		if (rc == SW_OK)
			return 0;
		if (rc == SW_BAD)
			return -1;
		if (in->eof) {
			if (p[0] == 'T')
				return tp_fail_at(s->err, off, s->frames, "frame",
				    "truncated header: %zu bytes", have);
			return tp_fail_at(s->err, off, s->frames, "frame",
			    "truncated %s frame: only %zu bytes left",
			    frame_names[p[0] < 7 ? p[0] : 0], have);
		}
		if (have >= DIAL9_FRAME_MAX)
			return tp_fail_at(s->err, off, s->frames, "frame",
			    "%s frame longer than %u bytes",
			    frame_names[p[0] < 7 ? p[0] : 0], DIAL9_FRAME_MAX);
		if (want <= have)
			want = 2 * have + 1;
		if (want > DIAL9_FRAME_MAX)
			want = DIAL9_FRAME_MAX;
		if (tp_in_fill(in, want) < 0)
			return -1;
	}
}

static int
cut(struct sp *s, uint64_t off)
{
	int rc = tp_cut_here(s->c, s->records, off, s->err);

	if (rc == 1)
		new_piece(s);
	return rc < 0 ? -1 : 0;
}

static int
event(struct sp *s, const unsigned char *p, size_t flen, uint64_t off)
{
	const struct schema *x = seg_at(&s->seg, tp_get_le16(p + 1));
	size_t l2;
	uint64_t ts = s->seg.base;

	restate_schema(s, x);
	if (event_len(s, p, p + flen, off, 1, &l2) != SW_OK)
		return -1;
	if (x->tsbyte) {
		uint32_t delta = (uint32_t)p[3] | (uint32_t)p[4] << 8 |
		    (uint32_t)p[5] << 16;
		if (ts + delta < ts)
			return tp_fail_at(s->err, off + 3, s->frames, "frame",
			    "event %.*s: timestamp base %llu + delta %u "
			    "overflows 64 bits", (int)(x->namelen > 60 ? 60 :
			    x->namelen), (const char *)x->name,
			    (unsigned long long)ts, delta);
		if (s->piece_base != s->seg.base) {
			unsigned char r[9];
			r[0] = TAG_RESET;
			tp_put_le64(r + 1, s->seg.base);
			put(s, r, 9);
		}
		s->seg.base = s->piece_base = ts + delta;
	}
	put(s, p, flen);
	s->records++;
	return 0;
}

static int
split_run(struct sp *s)
{
	struct tp_in *in = s->in;

	if (tp_in_fill(in, HEADER_LEN) < 0)
		return -1;
	if (in->len == in->pos)
		return tp_fail_at(s->err, 0, TP_NONE, NULL, "empty input: not "
		    "a dial9 trace");
	if (in->len - in->pos < 4 || memcmp(in->buf + in->pos, "TRC", 4) != 0)
		return tp_fail_at(s->err, 0, 0, "frame", "not a dial9 trace: "
		    "no TRC\\0 header");
	for (;;) {
		const unsigned char *p;
		uint64_t off;
		size_t flen;

		if (in->len - in->pos < 64 && !in->eof &&
		    tp_in_fill(in, 64) < 0)
			return -1;
		if (in->pos == in->len)
			break;
		off = tp_in_offset(in);
		/*
		 * An event's length needs its schema, which may be in the
		 * frames waiting: they go first, after the cut.
		 */
		if (in->buf[in->pos] == TAG_EVENT &&
		    (cut(s, s->npend ? s->pend[0].off : off) < 0 ||
		    flush_pending(s) < 0))
			return -1;
		if (frame_at(s, &flen) < 0)
			return -1;
		p = in->buf + in->pos;
		if (p[0] == 'T') {
			/* the frames before it end its segment */
			if (flush_pending(s) < 0 ||
			    tp_cut_here(s->c, s->records, off, s->err) < 0)
				return -1;
			/* a new piece or not, the header is copied */
			new_segment(s, p[4]);
			put(s, p, HEADER_LEN);
		} else if (p[0] == TAG_EVENT) {
			if (event(s, p, flen, off) < 0)
				return -1;
		} else {
			if (tp_grow(&s->pbuf, &s->pcap, s->plen + flen, 1) < 0 ||
			    tp_grow(&s->pend, &s->pendcap, s->npend + 1,
			    sizeof *s->pend) < 0)
				return tp_fail_nomem(s->err);
			memcpy(s->pbuf + s->plen, p, flen);
			s->pend[s->npend].off = off;
			s->pend[s->npend].index = s->frames;
			s->pend[s->npend].at = s->plen;
			s->pend[s->npend].len = flen;
			s->npend++;
			s->plen += flen;
		}
		in->pos += flen;
		s->frames++;
	}
	return flush_pending(s);
}

int
dial9_split(struct tp_in *in, struct tp_cutter *c, struct tp_err *err)
{
	struct sp s;
	int rc;

	memset(&s, 0, sizeof s);
	s.in = in;
	s.c = c;
	s.err = err;
	if (seg_init(&s.seg) < 0 ||
	    (s.xgen = calloc(65536, sizeof *s.xgen)) == NULL)
		rc = tp_fail_nomem(s.err);
	else
		rc = split_run(&s);
	free(s.xgen);
	free(s.sgen);
	free(s.kgen);
	free(s.pbuf);
	free(s.pend);
	free(s.abuf);
	free(s.ann);
	free(s.seen);
	dial9_seg_free(&s.seg);
	return rc < 0 ? -1 : 0;
}
