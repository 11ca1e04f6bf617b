/*
 * dial9 encoder: a field's value on the wire (see dial9-enc.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "base/grow.h"
#include "base/idmap.h"
#include "base/leb128.h"
#include "formats/dial9/dial9-enc.h"

/* The unescaped string of a span, in sb (valid until the next call). */
int
dial9_enc_span_str(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f,
    const unsigned char **s, size_t *n)
{
	if (buf_room(&e->sb, f->vallen + 1) == NULL || e->sb.nomem)
		return dial9_enc_nomem(e);
	if (tr_str(e->r, rec, f, e->sb.p, f->vallen, n) < 0)
		return -1;
	*s = e->sb.p;
	return 0;
}

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
		return dial9_enc_nomem(e);
	if (stacks)
		e->st->stacks_added++;
	else
		e->st->strings_added++;
	return dial9_enc_flush_frame(e, &e->fb);
}

/* A list of addresses into sb as u64 LE; *count gets their number. */
int
dial9_enc_span_stack(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f,
    size_t *count)
{
	const char *cur = f->val, *end = f->val + f->vallen, *v;
	size_t vl;

	if (f->vallen == 0 || f->val[0] != '[')
		return tr_fail(e->r, rec, f, "not a list of addresses");
	if (buf_room(&e->sb, 8) == NULL || e->sb.nomem)
		return dial9_enc_nomem(e);	/* and an empty list is no NULL */
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
		return dial9_enc_nomem(e);
	return 0;
}

/* A map of wire details: {len:3,id:5,present:2,byte:2}. */
int
dial9_enc_parse_rawspec(struct enc *e, const struct tr_rec *rec,
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

	if (dial9_enc_parse_rawspec(e, rec, f, &rs, 1, &tag, &vf) < 0)
		return -1;
	buf_u8(b, tag);
	/* An optional element tag has no presence byte (as upstream reads). */
	return dial9_enc_value(e, b, rec, &vf, tag & ~OPT, &rs, depth + 1);
}

/*
 * An element of another format's list (a WTF array): typed as its text
 * says.  A list holds no null: it becomes an empty string, and is said.
 */
static int
enc_plain_elem(struct enc *e, struct buf *b, const struct tr_rec *rec,
    const struct tr_field *f, int depth)
{
	unsigned t = dial9_infer_type(f);

	if (t == 0) {
		struct tr_field empty = span(f, "\"\"", 2);
		/* counted once per record, as tr_lose counts records */
		if (e->null_line != rec->lineno && tr_lose(e->r, rec, &e->st->skipped, "a null in a list or "
		    "map, written as an empty string (a dial9 dynamic list or "
		    "map holds no null)",
		    "field \"%.*s\"", (int)f->keylen, f->key) < 0)
			return -1;
		e->null_line = rec->lineno;
		buf_u8(b, T_STRING);
		return dial9_enc_value(e, b, rec, &empty, T_STRING, NULL, depth + 1);
	}
	buf_u8(b, t);
	return dial9_enc_value(e, b, rec, f, t, NULL, depth + 1);
}

/*
 * A map {k:v,...}: a string map's pairs (dyn 0), or another format's
 * map (a WTF object) as a dynamic map's (dyn 1): each key a string
 * element, each value an element typed as its text says.
 */
static int
enc_map(struct enc *e, struct buf *b, const struct tr_rec *rec,
    const struct tr_field *f, int dyn, int depth)
{
	const char *cur = f->val, *end = f->val + f->vallen, *k, *v;
	const unsigned char *s;
	size_t kl, vl, n, at = b->len;
	uint32_t count = 0;

	buf_le32(b, 0);
	while (tr_elem(&cur, end, &k, &kl, &v, &vl) > 0) {
		struct tr_field kf = span(f, k, kl), vf = span(f, v, vl);
		if (k == NULL)
			return tr_fail(e->r, rec, &vf, "expected key:value");
		if (dial9_enc_span_str(e, rec, &kf, &s, &n) < 0)
			return -1;
		if (dyn)
			buf_u8(b, T_STRING);
		buf_le32(b, (uint32_t)n);
		buf_put(b, s, n);
		if (dyn ? enc_plain_elem(e, b, rec, &vf, depth) < 0 :
		    dial9_enc_span_str(e, rec, &vf, &s, &n) < 0)
			return -1;
		if (!dyn) {
			buf_le32(b, (uint32_t)n);
			buf_put(b, s, n);
		}
		count++;
	}
	if (!b->nomem)
		tp_put_le32(b->p + at, count);
	return 0;
}

int
dial9_enc_value(struct enc *e, struct buf *b, const struct tr_rec *rec,
    const struct tr_field *f, unsigned tag, const struct rawspec *rs,
    int depth)
{
	static const struct rawspec none;
	const char *cur, *end, *v;
	const unsigned char *s;
	size_t vl, n, count, at;
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
		if (dial9_enc_span_str(e, rec, f, &s, &n) < 0)
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
				return dial9_enc_nomem(e);
			if (tr_bytes(e->r, rec, f, e->sb.p, f->vallen / 2, &n) < 0)
				return -1;
		}
		buf_le32(b, (uint32_t)n);
		buf_put(b, e->sb.p, n);
		return 0;
	case T_STACK:
	case T_PSTACK:
		if (dial9_enc_span_stack(e, rec, f, &count) < 0)
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
		return enc_map(e, b, rec, f, 0, depth);
	case T_LIST:
	case T_MAP:
		if (depth >= DIAL9_DEPTH_MAX)
			return tr_fail(e->r, rec, f, "dynamic values nested deeper "
			    "than %d", DIAL9_DEPTH_MAX);
		if (tag == T_MAP && f->vallen > 0 && f->val[0] == '{')
			return enc_map(e, b, rec, f, 1, depth);
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
				if ((vl > 0 && v[0] == '{' ? enc_elem(e, b, rec, &vf,
				    depth) : enc_plain_elem(e, b, rec, &vf, depth)) < 0)
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
