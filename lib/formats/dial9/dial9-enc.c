/*
 * dial9-trace-format encoder: text records to frames.
 *
 * Events name their schema; a stream without schema records (another
 * format's events, a filtered stream) gets schemas inferred from the
 * values (dial9-infer.c).  Pools, schemas, headers and timestamp resets
 * that the stream lacks are written before the event that needs them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "base/grow.h"
#include "base/leb128.h"
#include "formats/dial9/dial9-private.h"

struct buf {
	unsigned char *p;
	size_t len, cap;
	int nomem;
};

static unsigned char *
buf_room(struct buf *b, size_t n)
{
	static unsigned char sink[64];

	if (b->cap - b->len < n && (b->nomem ||
	    tp_grow(&b->p, &b->cap, b->len + n, 1) < 0)) {
		/* Reported at the end of the record. */
		b->nomem = 1;
		b->len = 0;
		return n <= sizeof sink ? sink : NULL;
	}
	return b->p + b->len;
}

static void
buf_put(struct buf *b, const void *s, size_t n)
{
	unsigned char *p;

	if (n == 0)
		return;
	p = buf_room(b, n);
	if (p != NULL && !b->nomem) {
		memcpy(p, s, n);
		b->len += n;
	}
}

static void
buf_u8(struct buf *b, unsigned v)
{
	unsigned char c = (unsigned char)v;

	buf_put(b, &c, 1);
}

static void
buf_le16(struct buf *b, uint32_t v)
{
	unsigned char c[2];

	tp_put_le16(c, (uint16_t)v);
	buf_put(b, c, 2);
}

static void
buf_le32(struct buf *b, uint32_t v)
{
	unsigned char c[4];

	tp_put_le32(c, v);
	buf_put(b, c, 4);
}

static void
buf_le64(struct buf *b, uint64_t v)
{
	unsigned char c[8];

	tp_put_le64(c, v);
	buf_put(b, c, 8);
}

/* Wire details of one value from raw= or a list element's map. */
struct rawspec {
	unsigned has;
	uint64_t present, len, id, byte;
};
#define RS_PRESENT 1u
#define RS_LEN 2u
#define RS_ID 4u
#define RS_BYTE 8u

struct enc {
	struct tr_reader *r;
	struct tp_out *out;
	struct tp_err *err;
	const struct dial9_enc_opts *opts;
	struct dial9_enc_stats *st;
	struct seg seg;
	int in_seg;
	struct buf fb;		/* a frame written at once */
	struct buf eb;		/* the event frame, written after its pools */
	struct buf sb;		/* unescaped strings */
	struct buf nb;		/* the event's name */
	const struct tr_field **fv;	/* record field of each schema field */
	size_t fvcap;
	struct rawspec *rs;
	size_t rscap;
	uint32_t *seen;
	size_t seencap;
};

static int
enc_nomem(struct enc *e)
{
	e->err->offset = TP_NONE;
	return tp_fail(e->err, TP_EXIT_FAIL, "out of memory");
}

/* Write the frame in fb. */
static int
enc_flush_frame(struct enc *e, struct buf *b)
{
	if (b->nomem)
		return enc_nomem(e);
	/* The frame limit dial92txt reads (dial9.h), refused here. */
	if (b->len >= DIAL9_FRAME_MAX) {
		e->err->line = e->r->lineno;
		e->err->offset = TP_NONE;
		return tp_fail(e->err, TP_EXIT_DATA, "the record makes a frame "
		    "of %zu bytes, over the %u-byte frame limit of dial92txt",
		    b->len, DIAL9_FRAME_MAX - 1);
	}
	tp_out_write(e->out, b->p, b->len);
	b->len = 0;
	e->st->frames++;
	return 0;
}

static int
key_is(const struct tr_field *f, const char *k)
{
	size_t n = strlen(k);

	return f->keylen == n && memcmp(f->key, k, n) == 0;
}

/* A value span as a field, so that errors point into the line. */
static struct tr_field
span(const struct tr_field *f, const char *val, size_t vallen)
{
	struct tr_field t = *f;

	t.val = val;
	t.vallen = (uint32_t)vallen;
	return t;
}

/* The unescaped string of a span, in sb (valid until the next call). */
static int
span_str(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    const unsigned char **s, size_t *n)
{
	if (buf_room(&e->sb, f->vallen + 1) == NULL || e->sb.nomem)
		return enc_nomem(e);
	if (tr_str(e->r, rec, f, e->sb.p, f->vallen, n) < 0)
		return -1;
	*s = e->sb.p;
	return 0;
}

static int
span_is(const struct tr_field *f, const char *w)
{
	size_t n = strlen(w);

	return f->vallen == n && memcmp(f->val, w, n) == 0;
}

/* Start a segment (write a header). */
static void
enc_segment(struct enc *e, unsigned version)
{
	unsigned char h[HEADER_LEN] = { 'T', 'R', 'C', 0, 0 };

	h[4] = (unsigned char)version;
	tp_out_write(e->out, h, HEADER_LEN);
	dial9_seg_reset(&e->seg);
	e->in_seg = 1;
	e->st->frames++;
}

/* A header where the stream has none (yet). */
static void
enc_need_segment(struct enc *e)
{
	if (!e->in_seg) {
		enc_segment(e, 1);
		e->st->headers_added++;
	}
}

static int
enc_header(struct enc *e, const struct tr_rec *rec)
{
	uint64_t v = 1;

	if (tr_get_u64(e->r, rec, "version", &v, 0) < 0)
		return -1;
	if (v > 255)
		return tr_fail(e->r, rec, tr_find(rec, "version"),
		    "a version is one byte");
	enc_segment(e, (unsigned)v);
	return 0;
}

static int
enc_need_fields(struct enc *e, size_t nf)
{
	if (tp_grow(&e->fv, &e->fvcap, nf, sizeof *e->fv) < 0 ||
	    tp_grow(&e->rs, &e->rscap, nf, sizeof *e->rs) < 0)
		return enc_nomem(e);
	return 0;
}

/*
 * Register and write the schema whose frame is in fb (tag and type id
 * first).  Returns the schema, or NULL with the error set.
 */
static struct schema *
enc_register(struct enc *e, const struct tr_rec *rec, uint32_t id)
{
	struct schema *x;
	int conflict;

	(void)rec;
	if (e->fb.nomem) {
		enc_nomem(e);
		return NULL;
	}
	x = dial9_seg_register(&e->seg, id, e->fb.p + 3, e->fb.len - 3, &e->seen,
	    &e->seencap, &conflict);
	if (conflict) {
		/*
		 * Segments of merged or sorted streams meet (txtmerge): a
		 * new segment holds the later schema.
		 */
		enc_segment(e, 1);
		e->st->headers_added++;
		x = dial9_seg_register(&e->seg, id, e->fb.p + 3, e->fb.len - 3,
		    &e->seen, &e->seencap, &conflict);
	}
	if (x == NULL || enc_need_fields(e, x->nf) < 0) {
		enc_nomem(e);
		return NULL;
	}
	if (enc_flush_frame(e, &e->fb) < 0)
		return NULL;
	return x;
}

/* Start a schema frame in fb: tag, id, name, ts byte, field count. */
static void
schema_start(struct buf *b, uint32_t id, const void *name, size_t n,
    unsigned tsbyte, size_t nf)
{
	b->len = 0;
	buf_u8(b, TAG_SCHEMA);
	buf_le16(b, id);
	buf_le16(b, (uint32_t)n);
	buf_put(b, name, n);
	buf_u8(b, tsbyte);
	buf_le16(b, (uint32_t)nf);
}

static int
enc_schema(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *fn = tr_find(rec, "name"), *ff = tr_find(rec,
	    "fields");
	const char *cur, *end, *k, *v;
	size_t kl, vl, n, nf = 0, namelen;
	uint64_t id, ts = 1;
	const unsigned char *s;
	unsigned char *countp;
	struct schema *x;

	if (tr_get_u64(e->r, rec, "id", &id, 1) < 0 ||
	    tr_get_u64(e->r, rec, "ts", &ts, 0) < 0)
		return -1;
	if (id > 0xffff)
		return tr_fail(e->r, rec, tr_find(rec, "id"),
		    "a type id is 16 bits");
	if (ts > 255)
		return tr_fail(e->r, rec, tr_find(rec, "ts"),
		    "the timestamp flag is one byte");
	if (fn == NULL)
		return tr_fail(e->r, rec, NULL, "dial9-schema record without "
		    "field \"name\"");
	if (span_str(e, rec, fn, &s, &namelen) < 0)
		return -1;
	if (namelen > 0xffff)
		return tr_fail(e->r, rec, fn, "longer than 65535 bytes");
	enc_need_segment(e);
	schema_start(&e->fb, (uint32_t)id, s, namelen, (unsigned)ts, 0);
	if (ff != NULL) {
		if (ff->vallen == 0 || ff->val[0] != '{')
			return tr_fail(e->r, rec, ff, "not a map of field types");
		cur = ff->val;
		end = ff->val + ff->vallen;
		while (tr_elem(&cur, end, &k, &kl, &v, &vl) > 0) {
			struct tr_field kf = span(ff, k, kl), vf = span(ff, v, vl);
			unsigned tag;
			if (k == NULL)
				return tr_fail(e->r, rec, &vf, "expected name:type");
			if (span_str(e, rec, &vf, &s, &n) < 0)
				return -1;
			if ((tag = dial9_tag_parse((const char *)s, n)) == 0)
				return tr_fail(e->r, rec, &vf, "unknown field type");
			if (span_str(e, rec, &kf, &s, &n) < 0)
				return -1;
			if (n > 0xffff || ++nf > 0xffff)
				return tr_fail(e->r, rec, &kf, "too long a name "
				    "or too many fields");
			buf_le16(&e->fb, (uint32_t)n);
			buf_put(&e->fb, s, n);
			buf_u8(&e->fb, tag);
		}
	}
	if (e->fb.nomem)
		return enc_nomem(e);
	countp = e->fb.p + 3 + 2 + namelen + 1;
	tp_put_le16(countp, (uint16_t)nf);
	if ((x = enc_register(e, rec, (uint32_t)id)) == NULL)
		return -1;
	x->inferred = 0;
	return 0;
}

/* The pool id for content data: the id asked for, the holder's, or new. */
static int
pool_ref(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    int stacks, const unsigned char *data, size_t n, const struct rawspec *rs,
    uint32_t *id)
{
	struct pool *p = stacks ? &e->seg.stacks : &e->seg.strings;
	struct pent *pe;
	size_t slot;

	if (rs != NULL && (rs->has & RS_ID)) {
		if (rs->id > UINT32_MAX)
			return tr_fail(e->r, rec, f, "raw id above 2^32-1");
		*id = (uint32_t)rs->id;
		pe = pool_get(p, *id);
		if (pe != NULL && pe->len == n && memcmp(pe->data, data, n) == 0)
			return 0;
	} else if ((pe = dial9_pool_holder(p, data, n, tp_hash_mem(data, n),
	    &slot)) != NULL) {
		*id = pe->id;
		return 0;
	} else if (p->any && p->maxid == UINT32_MAX) {
		/*
		 * The stream used the top id: the lowest free one, searched
		 * from where the last search ended (ids are never freed
		 * within a segment, so none below it is free).
		 */
		while (pool_get(p, p->freefrom) != NULL)
			if (p->freefrom++ == UINT32_MAX)
				return tr_fail(e->r, rec, f, "every pool id of "
				    "the segment is taken (2^32 of them)");
		*id = p->freefrom;
	} else {
		*id = p->any ? p->maxid + 1 : 0;
	}
	/* A frame defining it, before the event. */
	e->fb.len = 0;
	buf_u8(&e->fb, stacks ? TAG_STACKS : TAG_STRINGS);
	buf_le32(&e->fb, 1);
	buf_le32(&e->fb, *id);
	buf_le32(&e->fb, (uint32_t)(stacks ? n / 8 : n));
	buf_put(&e->fb, data, n);
	if (dial9_pool_define(p, &e->seg.arena, *id, data, n) == NULL)
		return enc_nomem(e);
	if (stacks)
		e->st->stacks_added++;
	else
		e->st->strings_added++;
	return enc_flush_frame(e, &e->fb);
}

/* A list of addresses into sb as u64 LE; *count gets their number. */
static int
span_stack(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    size_t *count)
{
	const char *cur = f->val, *end = f->val + f->vallen, *v;
	size_t vl;

	if (f->vallen == 0 || f->val[0] != '[')
		return tr_fail(e->r, rec, f, "not a list of addresses");
	if (buf_room(&e->sb, 8) == NULL || e->sb.nomem)
		return enc_nomem(e);	/* and an empty list is no NULL */
	e->sb.len = 0;
	*count = 0;
	while (tr_elem(&cur, end, NULL, NULL, &v, &vl) > 0) {
		uint64_t a;
		if (tp_parse_u64(v, vl, &a) < 0) {
			struct tr_field t = span(f, v, vl);
			return tr_fail(e->r, rec, &t, "not an address");
		}
		buf_le64(&e->sb, a);
		(*count)++;
	}
	if (e->sb.nomem)
		return enc_nomem(e);
	return 0;
}

static int enc_value(struct enc *e, struct buf *b, const struct tr_rec *rec,
    const struct tr_field *f, unsigned tag, const struct rawspec *rs,
    int depth);

/* A map of wire details: {len:3,id:5,present:2,byte:2}. */
static int
parse_rawspec(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f, struct rawspec *rs, int with_type,
    unsigned *tag, struct tr_field *value)
{
	const char *cur = f->val, *end = f->val + f->vallen, *k, *v;
	size_t kl, vl;
	int first = 1;

	memset(rs, 0, sizeof *rs);
	if (f->vallen == 0 || f->val[0] != '{')
		return tr_fail(e->r, rec, f, with_type ? "expected {type:value}" :
		    "expected a map of wire details");
	while (tr_elem(&cur, end, &k, &kl, &v, &vl) > 0) {
		struct tr_field vf = span(f, v, vl);
		uint64_t x;
		if (k == NULL)
			return tr_fail(e->r, rec, &vf, "expected key:value");
		if (with_type && first) {
			first = 0;
			if ((*tag = dial9_tag_parse(k, kl)) == 0)
				return tr_fail(e->r, rec, &vf, "unknown type %.*s",
				    (int)kl, k);
			*value = vf;
			continue;
		}
		if (tp_parse_u64(v, vl, &x) < 0)
			return tr_fail(e->r, rec, &vf, "not a number");
		if (kl == 7 && memcmp(k, "present", 7) == 0)
			rs->has |= RS_PRESENT, rs->present = x;
		else if (kl == 3 && memcmp(k, "len", 3) == 0)
			rs->has |= RS_LEN, rs->len = x;
		else if (kl == 2 && memcmp(k, "id", 2) == 0)
			rs->has |= RS_ID, rs->id = x;
		else if (kl == 4 && memcmp(k, "byte", 4) == 0)
			rs->has |= RS_BYTE, rs->byte = x;
		else
			return tr_fail(e->r, rec, &vf, "unknown wire detail %.*s",
			    (int)kl, k);
	}
	if (with_type && first)
		return tr_fail(e->r, rec, f, "expected {type:value}");
	return 0;
}

/* A dynamic element {type:value,...}: its tag byte and value. */
static int
enc_elem(struct enc *e, struct buf *b, const struct tr_rec *rec,
    const struct tr_field *f, int depth)
{
	struct rawspec rs;
	struct tr_field vf;
	unsigned tag = 0;

	if (parse_rawspec(e, rec, f, &rs, 1, &tag, &vf) < 0)
		return -1;
	buf_u8(b, tag);
	/* An optional element tag has no presence byte (as upstream reads). */
	return enc_value(e, b, rec, &vf, tag & ~OPT, &rs, depth + 1);
}

static int
enc_value(struct enc *e, struct buf *b, const struct tr_rec *rec,
    const struct tr_field *f, unsigned tag, const struct rawspec *rs,
    int depth)
{
	static const struct rawspec none;
	const char *cur, *end, *k, *v;
	const unsigned char *s;
	size_t kl, vl, n, count, at;
	uint64_t u;
	int64_t i;
	double d;
	int bv;
	uint32_t id;

	if (rs == NULL)
		rs = &none;
	if (tag & OPT) {
		if (tr_is_null(f)) {
			buf_u8(b, 0);
			return 0;
		}
		if ((rs->has & RS_PRESENT) && (rs->present == 0 ||
		    rs->present > 255))
			return tr_fail(e->r, rec, f, "raw present must be 1 to 255");
		buf_u8(b, (rs->has & RS_PRESENT) ? (unsigned)rs->present : 1);
		tag &= ~OPT;
	} else if (tr_is_null(f)) {
		return tr_fail(e->r, rec, f, "null for a field that is not "
		    "optional (%s)", dial9_type_names[tag]);
	}
	switch (tag) {
	case T_VARINT:
		if (tr_u64(e->r, rec, f, &u) < 0)
			return -1;
		n = tp_uleb_size(u);
		if (rs->has & RS_LEN) {
			if (rs->len < n || rs->len > TP_LEB_MAX)
				return tr_fail(e->r, rec, f, "raw len %llu cannot "
				    "hold it", (unsigned long long)rs->len);
			n = (size_t)rs->len;
		}
		{
			unsigned char *p = buf_room(b, TP_LEB_MAX);
			if (p != NULL && !b->nomem)
				b->len += (size_t)(tp_uleb_put_n(p, u, n) - p);
		}
		return 0;
	case T_U8:
	case T_U16:
	case T_U32:
		if (tr_u64(e->r, rec, f, &u) < 0)
			return -1;
		if (u > (tag == T_U8 ? 0xffu : tag == T_U16 ? 0xffffu :
		    0xffffffffu))
			return tr_fail(e->r, rec, f, "too large for %s",
			    dial9_type_names[tag]);
		if (tag == T_U8)
			buf_u8(b, (unsigned)u);
		else if (tag == T_U16)
			buf_le16(b, (uint32_t)u);
		else
			buf_le32(b, (uint32_t)u);
		return 0;
	case T_I64:
		if (tr_i64(e->r, rec, f, &i) < 0)
			return -1;
		buf_le64(b, (uint64_t)i);
		return 0;
	case T_F64:
		if (tr_f64(e->r, rec, f, &d) < 0)
			return -1;
		buf_le64(b, tp_f64_bits(d));
		return 0;
	case T_BOOL:
		if (tr_bool(e->r, rec, f, &bv) < 0)
			return -1;
		if (rs->has & RS_BYTE) {
			if (rs->byte > 255 || (rs->byte != 0) != (bv != 0))
				return tr_fail(e->r, rec, f, "raw byte %llu "
				    "does not say that",
				    (unsigned long long)rs->byte);
			bv = (int)rs->byte;
		}
		buf_u8(b, (unsigned)bv);
		return 0;
	case T_STRING:
	case T_PSTRING:
		if (span_str(e, rec, f, &s, &n) < 0)
			return -1;
		if (n > UINT32_MAX)
			return tr_fail(e->r, rec, f, "longer than 2^32-1 bytes");
		if (tag == T_STRING) {
			buf_le32(b, (uint32_t)n);
			buf_put(b, s, n);
			return 0;
		}
		if (pool_ref(e, rec, f, 0, s, n, rs, &id) < 0)
			return -1;
		buf_le32(b, id);
		return 0;
	case T_BYTES:
		n = 0;
		if (f->vallen > 0 && !span_is(f, "\"\"")) {
			if (buf_room(&e->sb, f->vallen / 2 + 1) == NULL ||
			    e->sb.nomem)
				return enc_nomem(e);
			if (tr_bytes(e->r, rec, f, e->sb.p, f->vallen / 2, &n) < 0)
				return -1;
		}
		buf_le32(b, (uint32_t)n);
		buf_put(b, e->sb.p, n);
		return 0;
	case T_STACK:
	case T_PSTACK:
		if (span_stack(e, rec, f, &count) < 0)
			return -1;
		if (count > UINT32_MAX)
			return tr_fail(e->r, rec, f, "more than 2^32-1 addresses");
		if (tag == T_STACK) {
			buf_le32(b, (uint32_t)count);
			buf_put(b, e->sb.p, e->sb.len);
			return 0;
		}
		if (pool_ref(e, rec, f, 1, e->sb.p, e->sb.len, rs, &id) < 0)
			return -1;
		buf_le32(b, id);
		return 0;
	case T_SMAP:
		if (f->vallen == 0 || f->val[0] != '{')
			return tr_fail(e->r, rec, f, "not a map of strings");
		at = b->len;
		buf_le32(b, 0);
		count = 0;
		cur = f->val;
		end = f->val + f->vallen;
		while (tr_elem(&cur, end, &k, &kl, &v, &vl) > 0) {
			struct tr_field kf = span(f, k, kl), vf = span(f, v, vl);
			if (k == NULL)
				return tr_fail(e->r, rec, &vf, "expected key:value");
			if (span_str(e, rec, &kf, &s, &n) < 0)
				return -1;
			buf_le32(b, (uint32_t)n);
			buf_put(b, s, n);
			if (span_str(e, rec, &vf, &s, &n) < 0)
				return -1;
			buf_le32(b, (uint32_t)n);
			buf_put(b, s, n);
			count++;
		}
		if (!b->nomem)
			tp_put_le32(b->p + at, (uint32_t)count);
		return 0;
	case T_LIST:
	case T_MAP:
		if (depth >= DIAL9_DEPTH_MAX)
			return tr_fail(e->r, rec, f, "dynamic values nested deeper "
			    "than %d", DIAL9_DEPTH_MAX);
		if (f->vallen == 0 || f->val[0] != '[')
			return tr_fail(e->r, rec, f, tag == T_LIST ?
			    "not a list of {type:value}" :
			    "not a list of [{type:key},{type:value}]");
		at = b->len;
		buf_le32(b, 0);
		count = 0;
		cur = f->val;
		end = f->val + f->vallen;
		while (tr_elem(&cur, end, NULL, NULL, &v, &vl) > 0) {
			struct tr_field vf = span(f, v, vl);
			if (tag == T_LIST) {
				if (enc_elem(e, b, rec, &vf, depth) < 0)
					return -1;
			} else {
				const char *c2 = v, *v2;
				size_t l2;
				int m = 0;
				if (vl == 0 || v[0] != '[')
					return tr_fail(e->r, rec, &vf,
					    "expected [{type:key},{type:value}]");
				while (tr_elem(&c2, v + vl, NULL, NULL, &v2, &l2) > 0) {
					struct tr_field ef = span(f, v2, l2);
					if (++m > 2 || enc_elem(e, b, rec, &ef, depth) < 0)
						return m > 2 ? tr_fail(e->r, rec, &vf,
						    "a pair has two elements") : -1;
				}
				if (m != 2)
					return tr_fail(e->r, rec, &vf,
					    "a pair has two elements");
			}
			count++;
		}
		if (!b->nomem)
			tp_put_le32(b->p + at, (uint32_t)count);
		return 0;
	}
	return tr_fail(e->r, rec, f, "unknown field type");
}

/* ------------------------------------------------- schemas for events */

/* The field name a record key stands for, into sb: ".HEX[.N]" or as is. */
static int
key_name(struct enc *e, const struct tr_field *f, const unsigned char **s,
    size_t *n)
{
	size_t i, m;

	if (f->keylen == 0 || f->key[0] != '.') {
		*s = (const unsigned char *)f->key;
		*n = f->keylen;
		return 0;
	}
	for (m = 1; m < f->keylen && f->key[m] != '.'; m++)
		;
	if (!dial9_hex_pairs(f->key + 1, m - 1))
		return -1;
	e->sb.len = 0;
	for (i = 1; i < m; i += 2)
		buf_u8(&e->sb, (unsigned)(tp_hexval(f->key[i]) << 4 |
		    tp_hexval(f->key[i + 1])));
	if (e->sb.nomem)
		return -1;
	*s = e->sb.p;
	*n = e->sb.len;
	return 0;
}

/*
 * Match the record's fields to x's: e->fv and e->rs.  Returns 0, or -1
 * with the error set (for an inferred schema: the record does not fit).
 */
static int
enc_match(struct enc *e, const struct tr_rec *rec, const struct schema *x)
{
	const struct tr_field *ftid = NULL;
	uint32_t i, next = 0;
	size_t j;

	for (i = 0; i < x->nf; i++)
		e->fv[i] = NULL;
	for (j = 0; j < rec->nf; j++) {
		const struct tr_field *f = &rec->f[j];
		if (reserved_key(f->key, f->keylen)) {
			if (key_is(f, "tid"))
				ftid = f;
			continue;
		}
		i = next;
		if (i >= x->nf || x->f[i].keylen != f->keylen ||
		    memcmp(x->f[i].key, f->key, f->keylen) != 0)
			for (i = 0; i < x->nf; i++)
				if (x->f[i].keylen == f->keylen &&
				    memcmp(x->f[i].key, f->key, f->keylen) == 0)
					break;
		if (i == x->nf)
			return tr_fail(e->r, rec, NULL, "field \"%.*s\" is not in "
			    "schema %.*s (type id %u)", (int)f->keylen, f->key,
			    (int)(x->namelen > 60 ? 60 : x->namelen),
			    (const char *)x->name, x->id);
		if (e->fv[i] != NULL)
			return tr_fail(e->r, rec, f, "field given twice");
		if (x->inferred && !dial9_fits(x->f[i].tag, f))
			return tr_fail(e->r, rec, f, "does not fit the inferred "
			    "type");
		e->fv[i] = f;
		next = i + 1;
	}
	/* tid= is the worker: it stands for a worker_id= the record lacks */
	i = (uint32_t)x->worker_field;
	if (x->worker_field >= 0 && e->fv[i] == NULL && ftid != NULL) {
		if (x->inferred && !dial9_fits(x->f[i].tag, ftid))
			return tr_fail(e->r, rec, ftid, "does not fit the "
			    "inferred type");
		e->fv[i] = ftid;
	}
	for (i = 0; i < x->nf; i++)
		if (e->fv[i] == NULL && !(x->f[i].tag & OPT))
			return tr_fail(e->r, rec, NULL, "event %.*s without field "
			    "\"%.*s\" of its schema",
			    (int)(x->namelen > 60 ? 60 : x->namelen),
			    (const char *)x->name, (int)x->f[i].keylen, x->f[i].key);
	return 0;
}

/* A schema for the record from its values (and prev's types). */
static struct schema *
enc_infer(struct enc *e, const struct tr_rec *rec, const struct schema *prev)
{
	const struct tr_field *fts = tr_find(rec, "ts");
	const struct tr_field *fworker = tr_find(rec, "worker_id");
	struct buf *b = &e->fb;
	struct schema *x;
	uint32_t id;
	size_t j, nf = 0;

	for (id = e->seg.next_free; id < 0x10000 && seg_at(&e->seg, id) != NULL; id++)
		;
	if (id == 0x10000) {
		tr_fail(e->r, rec, NULL, "no free type id in this segment");
		return NULL;
	}
	e->seg.next_free = id + 1;
	schema_start(b, id, e->nb.p, e->nb.len, fts != NULL, 0);
	for (j = 0; j < rec->nf; j++) {
		const struct tr_field *f = &rec->f[j];
		const char *key = f->key;
		const unsigned char *s;
		size_t n, keylen = f->keylen;
		unsigned t = 0;
		uint32_t i;
		/*
		 * tid= is the worker: derived from worker_id=, or without it
		 * (another format's thread) a worker_id field of its own.
		 */
		if (key_is(f, "tid")) {
			if (fworker != NULL)
				continue;
			key = "worker_id";
			keylen = 9;
		} else if (reserved_key(f->key, f->keylen))
			continue;
		if (prev != NULL)
			for (i = 0; i < prev->nf; i++)
				if (prev->f[i].keylen == keylen &&
				    memcmp(prev->f[i].key, key, keylen) == 0) {
					if (dial9_fits(prev->f[i].tag, f))
						t = prev->f[i].tag;
					else if (tr_is_null(f))
						t = prev->f[i].tag | OPT;
					break;
				}
		if (t == 0)
			t = dial9_infer_type(f);
		if (t == 0)
			t = OPT | T_VARINT;
		if (key != f->key) {
			s = (const unsigned char *)key;
			n = keylen;
		} else if (key_name(e, f, &s, &n) < 0) {
			tr_fail(e->r, rec, f, "bad escaped key");
			return NULL;
		}
		buf_le16(b, (uint32_t)n);
		buf_put(b, s, n);
		buf_u8(b, t);
		nf++;
	}
	if (b->nomem) {
		enc_nomem(e);
		return NULL;
	}
	tp_put_le16(b->p + 3 + 2 + e->nb.len + 1, (uint16_t)nf);
	if ((x = enc_register(e, rec, id)) == NULL)
		return NULL;
	x->inferred = 1;
	e->st->schemas_inferred++;
	return x;
}

static int
enc_event(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *fname = NULL, *fts = NULL, *fid = NULL,
	    *fraw = NULL;
	const unsigned char *s;
	struct schema *x = NULL;
	uint64_t ts = 0, u;
	uint32_t i;
	size_t j, n;
	int reset = 0;

	for (j = 0; j < rec->nf; j++) {
		const struct tr_field *f = &rec->f[j];
		if (key_is(f, "name"))
			fname = f;
		else if (key_is(f, "ts"))
			fts = f;
		else if (key_is(f, "id"))
			fid = f;
		else if (key_is(f, "raw"))
			fraw = f;
	}
	if (fname == NULL)
		return tr_fail(e->r, rec, NULL, "event record without field "
		    "\"name\"");
	if (span_str(e, rec, fname, &s, &n) < 0)
		return -1;
	if (n > 0xffff)
		return tr_fail(e->r, rec, fname, "longer than 65535 bytes");
	e->nb.len = 0;
	buf_put(&e->nb, s, n);
	if (e->nb.nomem)
		return enc_nomem(e);
	enc_need_segment(e);
	if (fid != NULL) {
		if (tr_u64(e->r, rec, fid, &u) < 0)
			return -1;
		if ((x = seg_at(&e->seg, u)) == NULL)
			return tr_fail(e->r, rec, fid, "no schema with this type "
			    "id in this segment");
		if (x->namelen != n ||
		    (n > 0 && memcmp(x->name, e->nb.p, n) != 0))
			return tr_fail(e->r, rec, fid, "the schema of this type "
			    "id has another name");
		if (enc_match(e, rec, x) < 0)
			return -1;
	} else {
		x = dial9_seg_by_name(&e->seg, e->nb.p, n);
		if (x != NULL && enc_match(e, rec, x) < 0) {
			if (!x->inferred)
				return -1;
			tp_err_clear(e->err);
			if ((x = enc_infer(e, rec, x)) == NULL ||
			    enc_match(e, rec, x) < 0)
				return -1;
		} else if (x == NULL) {
			if ((x = enc_infer(e, rec, NULL)) == NULL ||
			    enc_match(e, rec, x) < 0)
				return -1;
		}
	}
	for (i = 0; i < x->nf; i++)
		e->rs[i].has = 0;
	if (fraw != NULL) {
		const char *cur = fraw->val, *end = fraw->val + fraw->vallen,
		    *k, *v;
		size_t kl, vl;
		if (fraw->vallen == 0 || fraw->val[0] != '{')
			return tr_fail(e->r, rec, fraw, "not a map");
		while (tr_elem(&cur, end, &k, &kl, &v, &vl) > 0) {
			struct tr_field vf = span(fraw, v, vl);
			for (i = 0; i < x->nf; i++)
				if (x->f[i].keylen == kl &&
				    memcmp(x->f[i].key, k, kl) == 0)
					break;
			if (k == NULL || i == x->nf)
				return tr_fail(e->r, rec, &vf, "raw: no such field");
			if (parse_rawspec(e, rec, &vf, &e->rs[i], 0, NULL, NULL) < 0)
				return -1;
		}
	}
	/* The timestamp: a reset first where the delta cannot say it. */
	if (x->tsbyte) {
		ts = e->seg.base;
		if (fts != NULL && tr_u64(e->r, rec, fts, &ts) < 0)
			return -1;
		if (ts < e->seg.base || ts - e->seg.base > DELTA_MAX)
			reset = 1;
	}
	e->eb.len = 0;
	buf_u8(&e->eb, TAG_EVENT);
	buf_le16(&e->eb, x->id);
	if (x->tsbyte) {
		uint32_t delta = reset ? 0 : (uint32_t)(ts - e->seg.base);
		unsigned char d3[3] = { (unsigned char)delta,
		    (unsigned char)(delta >> 8), (unsigned char)(delta >> 16) };
		buf_put(&e->eb, d3, 3);
	}
	for (i = 0; i < x->nf; i++) {
		static const struct tr_field absent = { "", "null", 0, 4 };
		const struct tr_field *f = e->fv[i] ? e->fv[i] : &absent;
		if (enc_value(e, &e->eb, rec, f, x->f[i].tag, &e->rs[i], 0) < 0)
			return -1;
	}
	if (reset) {
		e->fb.len = 0;
		buf_u8(&e->fb, TAG_RESET);
		buf_le64(&e->fb, ts);
		if (enc_flush_frame(e, &e->fb) < 0)
			return -1;
		e->st->resets_added++;
	}
	if (x->tsbyte)
		e->seg.base = ts;
	e->st->events++;
	return enc_flush_frame(e, &e->eb);
}

static int
enc_pool(struct enc *e, const struct tr_rec *rec, int stacks)
{
	const struct tr_field *fp = tr_find(rec, "pool");
	struct pool *pool = stacks ? &e->seg.stacks : &e->seg.strings;
	const char *cur, *end, *k, *v;
	size_t kl, vl, count = 0;
	struct buf *b = &e->fb;

	if (fp == NULL || fp->vallen == 0 || fp->val[0] != '{')
		return tr_fail(e->r, rec, fp, "expected pool={id:value,...}");
	enc_need_segment(e);
	b->len = 0;
	buf_u8(b, stacks ? TAG_STACKS : TAG_STRINGS);
	buf_le32(b, 0);
	cur = fp->val;
	end = fp->val + fp->vallen;
	while (tr_elem(&cur, end, &k, &kl, &v, &vl) > 0) {
		struct tr_field kf = span(fp, k, kl), vf = span(fp, v, vl);
		const unsigned char *s;
		uint64_t id;
		size_t n;
		if (k == NULL || tp_parse_u64(k, kl, &id) < 0 || id > UINT32_MAX)
			return tr_fail(e->r, rec, &kf, "expected a pool id");
		if (stacks) {
			if (span_stack(e, rec, &vf, &n) < 0)
				return -1;
			s = e->sb.p;
		} else if (span_str(e, rec, &vf, &s, &n) < 0) {
			return -1;
		}
		buf_le32(b, (uint32_t)id);
		buf_le32(b, (uint32_t)n);
		if (stacks)
			n *= 8;
		buf_put(b, s, n);
		if (dial9_pool_define(pool, &e->seg.arena, (uint32_t)id, s, n) == NULL)
			return enc_nomem(e);
		count++;
	}
	if (!b->nomem)
		tp_put_le32(b->p + 1, (uint32_t)count);
	return enc_flush_frame(e, b);
}

static int
enc_reset(struct enc *e, const struct tr_rec *rec)
{
	uint64_t ts;

	if (tr_get_u64(e->r, rec, "ts", &ts, 1) < 0)
		return -1;
	enc_need_segment(e);
	e->fb.len = 0;
	buf_u8(&e->fb, TAG_RESET);
	buf_le64(&e->fb, ts);
	e->seg.base = ts;
	return enc_flush_frame(e, &e->fb);
}

static int
enc_annot(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *fl = tr_find(rec, "list");
	const char *cur, *end, *v;
	struct buf *b = &e->fb;
	uint64_t id, idlen = 0;
	size_t vl, count = 0, n;
	unsigned char *p;

	if (tr_get_u64(e->r, rec, "id", &id, 1) < 0 ||
	    tr_get_u64(e->r, rec, "idlen", &idlen, 0) < 0)
		return -1;
	n = tp_uleb_size(id);
	if (idlen != 0) {
		if (idlen < n || idlen > TP_LEB_MAX)
			return tr_fail(e->r, rec, tr_find(rec, "idlen"),
			    "cannot hold the id");
		n = (size_t)idlen;
	}
	if (fl == NULL || fl->vallen == 0 || fl->val[0] != '[')
		return tr_fail(e->r, rec, fl, "expected list=[[field,key,value],...]");
	enc_need_segment(e);
	b->len = 0;
	buf_u8(b, TAG_ANNOT);
	if ((p = buf_room(b, TP_LEB_MAX)) != NULL && !b->nomem)
		b->len += (size_t)(tp_uleb_put_n(p, id, n) - p);
	buf_le16(b, 0);
	cur = fl->val;
	end = fl->val + fl->vallen;
	while (tr_elem(&cur, end, NULL, NULL, &v, &vl) > 0) {
		struct tr_field ef = span(fl, v, vl);
		const char *c2 = v, *v2;
		size_t l2;
		int m = 0;
		if (vl == 0 || v[0] != '[')
			return tr_fail(e->r, rec, &ef, "expected [field,key,value]");
		while (tr_elem(&c2, v + vl, NULL, NULL, &v2, &l2) > 0) {
			struct tr_field xf = span(fl, v2, l2);
			const unsigned char *s;
			uint64_t idx;
			size_t sl;
			if (m == 0) {
				if (tp_parse_u64(v2, l2, &idx) < 0 || idx > 0xffff)
					return tr_fail(e->r, rec, &xf,
					    "expected a field index");
				buf_le16(b, (uint32_t)idx);
			} else if (m < 3) {
				if (span_str(e, rec, &xf, &s, &sl) < 0)
					return -1;
				if (m == 1 && sl > 0xffff)
					return tr_fail(e->r, rec, &xf,
					    "longer than 65535 bytes");
				if (m == 1)
					buf_le16(b, (uint32_t)sl);
				else
					buf_le32(b, (uint32_t)sl);
				buf_put(b, s, sl);
			}
			m++;
		}
		if (m != 3)
			return tr_fail(e->r, rec, &ef, "expected [field,key,value]");
		if (++count > 0xffff)
			return tr_fail(e->r, rec, fl, "more than 65535 annotations");
	}
	if (!b->nomem)
		tp_put_le16(b->p + 1 + n, (uint16_t)count);
	return enc_flush_frame(e, b);
}

int
dial9_encode(struct tr_reader *r, struct tp_out *out,
    const struct dial9_enc_opts *opts, struct dial9_enc_stats *st,
    struct tp_err *err)
{
	struct tr_rec *rec = malloc(sizeof *rec);
	struct enc e;
	int rc = 0;

	memset(st, 0, sizeof *st);
	st->skipped.strict = opts->strict;
	st->skipped.cannot = "not expressible in a dial9 trace";
	memset(&e, 0, sizeof e);
	r->err = err;
	e.r = r;
	e.out = out;
	e.err = err;
	e.opts = opts;
	e.st = st;
	if (rec == NULL || seg_init(&e.seg) < 0) {
		rc = enc_nomem(&e);
		goto done;
	}
	while ((rc = tr_next(r, rec)) > 0) {
		int kind = tp_kind(rec->kind, rec->kindlen,
		    (size_t)(rec->line + rec->len - rec->kind));
		st->records++;
		if (kind == TK_EVENT)
			rc = enc_event(&e, rec);
		else if (tr_is(rec, "dial9-header"))
			rc = enc_header(&e, rec);
		else if (tr_is(rec, "dial9-schema"))
			rc = enc_schema(&e, rec);
		else if (tr_is(rec, "dial9-strings"))
			rc = enc_pool(&e, rec, 0);
		else if (tr_is(rec, "dial9-stacks"))
			rc = enc_pool(&e, rec, 1);
		else if (tr_is(rec, "dial9-reset"))
			rc = enc_reset(&e, rec);
		else if (tr_is(rec, "dial9-annotations"))
			rc = enc_annot(&e, rec);
		else
			rc = tr_skip(r, rec, &st->skipped, "record kind "
			    "\"%.*s\"", (int)rec->kindlen, rec->kind);
		if (rc < 0)
			break;
	}
	/* An empty (or fully filtered) stream is a trace of no event. */
	if (rc == 0 && !e.in_seg)
		enc_need_segment(&e);
done:
	free(rec);
	free(e.fb.p);
	free(e.eb.p);
	free(e.sb.p);
	free(e.nb.p);
	free(e.fv);
	free(e.rs);
	free(e.seen);
	dial9_seg_free(&e.seg);
	return rc < 0 ? -1 : 0;
}
