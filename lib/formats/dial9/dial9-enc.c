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
#include "base/idmap.h"
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

/*
 * Where a stream's records come from, as far as the text says: dial9's
 * own text (a dial9- record came), WTF's (a wtf- record: wtf2txt(1)'s
 * event vocabulary), another format's (a header of its own), or not said
 * (no such record yet: a filtered stream).
 */
enum { D_UNKNOWN, D_DIAL9, D_WTF, D_OTHER };

/* One input of a merged stream (input=N), or the untagged stream. */
struct input {
	uint64_t n;
	int tagged;
	int dialect;		/* of its last format record */
	unsigned seen;		/* 1 << each dialect its records had */
	uint64_t hgen;		/* its headers so far: the era of its type ids */
};

/* An input's type id: the schema that stands for it in the output. */
struct idref {
	struct schema *x;
	uint64_t gen, hgen;
};

/*
 * A schema a record defined, kept across segments: events of a merged
 * stream whose segment the output has left find their schema here.
 */
struct layout {
	unsigned char *body;
	size_t len;
	uint64_t namehash;
	struct schema *out;	/* registered in output segment gen */
	uint64_t gen;
};

/* A record field as a schema field's key, or structure (skip). */
struct fkey {
	const char *key;
	uint32_t keylen;
	uint32_t off;		/* in kb, when key is NULL until fixed */
	int skip;
};

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
	struct fkey *fk;	/* the record's fields */
	size_t fkcap;
	struct buf kb;		/* keys of foreign fields spelled as dial9's */
	const struct tr_field *ftid;	/* the record's thread, as written */
	struct tr_field wf;	/* a renumbered thread */
	char wbuf[24];
	struct input plain;	/* records without input= */
	struct input *ins;	/* each input= seen */
	size_t nins, inscap;
	uint64_t gen;		/* output segments begun */
	struct idmap ids;	/* (input, type id) -> idr index */
	struct idref *idr;
	size_t idrcap;
	struct idmap tids;	/* (input, tid) -> tidout index */
	uint64_t *tidout;
	size_t tidcap;
	struct idmap taken;	/* output threads in use */
	uint64_t maxtid;
	struct layout *lay;
	size_t nlay, laycap;
	uint64_t null_line;	/* a null in a list said for this record */
	struct idmap zones;	/* (input, WTF zone id) -> zone index */
	struct zone *zone;
	size_t zonecap;
	uint64_t zworker;	/* the record's worker by its zone's name */
	int zoned;		/* zworker holds (it may be renumbered) */
};

/*
 * A WTF zone that txt2wtf made for dial9's events: a worker's ("tid N",
 * or "tid N (input I)" for a tagged merge's) or the events of no thread
 * (type "events").  Other zones are WTF's own: their id is the thread.
 */
enum { Z_WTF, Z_NONE, Z_WORKER, Z_INPUT_WORKER };
struct zone {
	int kind;
	uint64_t worker, input;
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
	e->gen++;
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

/*
 * The input a record comes from: its input= (txtmerge --tag), or the
 * untagged stream.  NULL with the error set.
 */
static struct input *
input_of(struct enc *e, const struct tr_rec *rec, const struct tr_field *f)
{
	struct input *in;
	uint64_t n;
	size_t i;

	if (f == NULL)
		return &e->plain;
	if (tr_u64(e->r, rec, f, &n) < 0)
		return NULL;
	for (i = 0; i < e->nins; i++)
		if (e->ins[i].n == n)
			return &e->ins[i];
	if (tp_grow(&e->ins, &e->inscap, e->nins + 1, sizeof *e->ins) < 0) {
		enc_nomem(e);
		return NULL;
	}
	in = &e->ins[e->nins++];
	memset(in, 0, sizeof *in);
	in->n = n;
	in->tagged = 1;
	return in;
}

static struct input *
rec_input(struct enc *e, const struct tr_rec *rec)
{
	return input_of(e, rec, tr_find(rec, "input"));
}

static int
enc_header(struct enc *e, const struct tr_rec *rec)
{
	struct input *in = rec_input(e, rec);
	uint64_t v = 1;

	if (in == NULL || tr_get_u64(e->r, rec, "version", &v, 0) < 0)
		return -1;
	if (v > 255)
		return tr_fail(e->r, rec, tr_find(rec, "version"),
		    "a version is one byte");
	in->dialect = D_DIAL9;
	in->seen |= 1u << D_DIAL9;
	/*
	 * An input's header forgets its own type ids; the output, one
	 * trace of all inputs, goes on in its segment.
	 */
	if (in->tagged) {
		in->hgen++;
		if (e->in_seg)
			return 0;
	}
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
/* The first type id free in the segment, or -1 with the error set. */
static int
free_id(struct enc *e, const struct tr_rec *rec, uint32_t *idp)
{
	uint32_t id;

	for (id = e->seg.next_free; id < 0x10000 && seg_at(&e->seg, id) != NULL;
	    id++)
		;
	if (id == 0x10000)
		return tr_fail(e->r, rec, NULL, "no free type id in this segment");
	e->seg.next_free = id + 1;
	*idp = id;
	return 0;
}

static struct schema *
enc_register(struct enc *e, const struct tr_rec *rec, uint32_t id,
    int movable)
{
	struct schema *x, *prev;
	int conflict, isnew;

	if (e->fb.nomem) {
		enc_nomem(e);
		return NULL;
	}
	prev = dial9_seg_by_name(&e->seg, e->fb.p + 5, tp_get_le16(e->fb.p + 3));
	isnew = seg_at(&e->seg, id) == NULL;
	x = dial9_seg_register(&e->seg, id, e->fb.p + 3, e->fb.len - 3, &e->seen,
	    &e->seencap, &conflict);
	if (conflict && movable) {
		/* another input's schema has the id: the first free one */
		if (free_id(e, rec, &id) < 0)
			return NULL;
		tp_put_le16(e->fb.p + 1, (uint16_t)id);
		isnew = 1;
		x = dial9_seg_register(&e->seg, id, e->fb.p + 3, e->fb.len - 3,
		    &e->seen, &e->seencap, &conflict);
	} else if (conflict) {
		/*
		 * Segments of merged or sorted streams meet (txtmerge): a
		 * new segment holds the later schema.
		 */
		enc_segment(e, 1);
		e->st->headers_added++;
		prev = NULL;
		x = dial9_seg_register(&e->seg, id, e->fb.p + 3, e->fb.len - 3,
		    &e->seen, &e->seencap, &conflict);
	}
	if (x == NULL || enc_need_fields(e, x->nf) < 0) {
		enc_nomem(e);
		return NULL;
	}
	/* the schemas of one name, newest first, for events that fit another */
	if (isnew && prev != x)
		x->sib = prev;
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

/* Input in's type id stands for x from now on. */
static int
id_bind(struct enc *e, struct input *in, uint64_t id, struct schema *x)
{
	int64_t k = idmap_put(&e->ids, in->n, id, NULL);

	if (k < 0 || tp_grow(&e->idr, &e->idrcap, (size_t)k + 1,
	    sizeof *e->idr) < 0)
		return enc_nomem(e);
	e->idr[k].x = x;
	e->idr[k].gen = e->gen;
	e->idr[k].hgen = in->hgen;
	return 0;
}

/* The schema input in's type id stands for, or NULL. */
static struct schema *
id_schema(struct enc *e, const struct input *in, uint64_t id)
{
	int64_t k;

	if (!in->tagged)
		return seg_at(&e->seg, id);
	k = idmap_get(&e->ids, in->n, id);
	if (k < 0 || e->idr[k].gen != e->gen || e->idr[k].hgen != in->hgen)
		return NULL;
	return e->idr[k].x;
}

/* Keep the layout of x, a schema a record defined, for later segments. */
static int
layout_keep(struct enc *e, struct schema *x)
{
	struct layout *l;
	size_t i;

	for (i = 0; i < e->nlay; i++) {
		l = &e->lay[i];
		if (l->namehash == x->namehash && l->len == x->bodylen &&
		    memcmp(l->body, x->body, l->len) == 0) {
			l->out = x;
			l->gen = e->gen;
			return 0;
		}
	}
	if (tp_grow(&e->lay, &e->laycap, e->nlay + 1, sizeof *e->lay) < 0)
		return enc_nomem(e);
	l = &e->lay[e->nlay];
	if ((l->body = malloc(x->bodylen)) == NULL)
		return enc_nomem(e);
	memcpy(l->body, x->body, x->bodylen);
	l->len = x->bodylen;
	l->namehash = x->namehash;
	l->out = x;
	l->gen = e->gen;
	e->nlay++;
	return 0;
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

	struct input *in = rec_input(e, rec);

	if (in == NULL || tr_get_u64(e->r, rec, "id", &id, 1) < 0 ||
	    tr_get_u64(e->r, rec, "ts", &ts, 0) < 0)
		return -1;
	in->dialect = D_DIAL9;
	in->seen |= 1u << D_DIAL9;
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
	if ((x = enc_register(e, rec, (uint32_t)id, in->tagged)) == NULL)
		return -1;
	x->inferred = 0;
	if (in->tagged && id_bind(e, in, id, x) < 0)
		return -1;
	return layout_keep(e, x);
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
		return enc_value(e, b, rec, &empty, T_STRING, NULL, depth + 1);
	}
	buf_u8(b, t);
	return enc_value(e, b, rec, f, t, NULL, depth + 1);
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
		if (span_str(e, rec, &kf, &s, &n) < 0)
			return -1;
		if (dyn)
			buf_u8(b, T_STRING);
		buf_le32(b, (uint32_t)n);
		buf_put(b, s, n);
		if (dyn ? enc_plain_elem(e, b, rec, &vf, depth) < 0 :
		    span_str(e, rec, &vf, &s, &n) < 0)
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

static int
enc_value(struct enc *e, struct buf *b, const struct tr_rec *rec,
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

/* ------------------------------------------------- schemas for events */

/* The field name a record key stands for, into sb: ".HEX[.N]" or as is. */
static int
key_name(struct enc *e, const char *key, size_t keylen,
    const unsigned char **s, size_t *n)
{
	size_t i, m;

	if (keylen == 0 || key[0] != '.') {
		*s = (const unsigned char *)key;
		*n = keylen;
		return 0;
	}
	for (m = 1; m < keylen && key[m] != '.'; m++)
		;
	if (!dial9_hex_pairs(key + 1, m - 1))
		return -1;
	e->sb.len = 0;
	for (i = 1; i < m; i += 2)
		buf_u8(&e->sb, (unsigned)(tp_hexval(key[i]) << 4 |
		    tp_hexval(key[i + 1])));
	if (e->sb.nomem)
		return -1;
	*s = e->sb.p;
	*n = e->sb.len;
	return 0;
}

/*
 * Match the record's fields to x's: e->fv and e->rs.  With fit, every
 * value must fit its field's type (an inferred schema, or one of several
 * a name has).  Returns 0 when every field of x is there, 1 when optional
 * ones are not (they are null), or -1 with the error set.
 */
static int
enc_match(struct enc *e, const struct tr_rec *rec, const struct schema *x,
    int fit)
{
	uint32_t i, next = 0;
	size_t j;
	int missing = 0;

	for (i = 0; i < x->nf; i++)
		e->fv[i] = NULL;
	for (j = 0; j < rec->nf; j++) {
		const struct tr_field *f = &rec->f[j];
		const char *key = e->fk[j].key;
		uint32_t kl = e->fk[j].keylen;
		if (e->fk[j].skip)
			continue;
		i = next;
		if (i >= x->nf || x->f[i].keylen != kl ||
		    memcmp(x->f[i].key, key, kl) != 0)
			for (i = 0; i < x->nf; i++)
				if (x->f[i].keylen == kl &&
				    memcmp(x->f[i].key, key, kl) == 0)
					break;
		if (i == x->nf)
			return tr_fail(e->r, rec, NULL, "field \"%.*s\" is not in "
			    "schema %.*s (type id %u)", (int)f->keylen, f->key,
			    (int)(x->namelen > 60 ? 60 : x->namelen),
			    (const char *)x->name, x->id);
		if (e->fv[i] != NULL)
			return tr_fail(e->r, rec, f, "field given twice");
		if (fit && !dial9_fits(x->f[i].tag, f))
			return tr_fail(e->r, rec, f, "does not fit the inferred "
			    "type");
		e->fv[i] = f;
		next = i + 1;
	}
	/*
	 * tid= is the worker: it stands for a worker_id= the record lacks,
	 * and where both are there and differ (txtmerge --renumber-tids) it
	 * is the truth.
	 */
	i = (uint32_t)x->worker_field;
	if (x->worker_field < 0 && e->ftid != NULL)
		return tr_fail(e->r, rec, e->ftid, "schema %.*s (type id %u) has "
		    "no worker_id for the tid", (int)(x->namelen > 60 ? 60 :
		    x->namelen), (const char *)x->name, x->id);
	if (x->worker_field >= 0 && e->ftid != NULL) {
		if (fit && !dial9_fits(x->f[i].tag, e->ftid))
			return tr_fail(e->r, rec, e->ftid, "does not fit the "
			    "inferred type");
		e->fv[i] = e->ftid;
	}
	for (i = 0; i < x->nf; i++)
		if (e->fv[i] == NULL) {
			if (!(x->f[i].tag & OPT))
				return tr_fail(e->r, rec, NULL, "event %.*s without "
				    "field \"%.*s\" of its schema",
				    (int)(x->namelen > 60 ? 60 : x->namelen),
				    (const char *)x->name, (int)x->f[i].keylen,
				    x->f[i].key);
			missing = 1;
		}
	return missing;
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
	int k;

	if (free_id(e, rec, &id) < 0)
		return NULL;
	schema_start(b, id, e->nb.p, e->nb.len, fts != NULL, 0);
	for (j = 0; j < rec->nf; j++) {
		const struct tr_field *f = &rec->f[j];
		const char *key = e->fk[j].key;
		const unsigned char *s;
		size_t n, keylen = e->fk[j].keylen;
		unsigned t = 0;
		uint32_t i;
		/*
		 * tid= is the worker: derived from worker_id=, or without it
		 * (another format's thread) a worker_id field of its own.
		 */
		if (key_is(f, "tid") && e->ftid != NULL) {
			if (fworker != NULL)
				continue;
			f = e->ftid;
			key = "worker_id";
			keylen = 9;
		} else if (e->fk[j].skip) {
			continue;
		} else if (f == fworker && e->ftid != NULL) {
			/* the worker field holds the thread: an integer */
			f = e->ftid;
		}
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
		if (key_name(e, key, keylen, &s, &n) < 0) {
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
	/*
	 * Values that alternate between kinds (1, "s", 1, ...) take the
	 * schema made for them before, not one more each time.
	 */
	for (x = (struct schema *)prev, k = 0; x != NULL && k < 256; x = x->sib, k++)
		if (x->bodylen == b->len - 3 &&
		    memcmp(x->body, b->p + 3, x->bodylen) == 0) {
			e->seg.next_free = id;
			return x;
		}
	if ((x = enc_register(e, rec, id, 0)) == NULL)
		return NULL;
	x->inferred = 1;
	e->st->schemas_inferred++;
	return x;
}

/* Does a raw= value look like dial9's wire details ({field:{...},...})? */
static int
rawspec_shape(const struct tr_field *f)
{
	const char *p = memchr(f->val, ':', f->vallen);

	return f->vallen > 2 && f->val[0] == '{' && p != NULL &&
	    p + 1 < f->val + f->vallen && p[1] == '{';
}

/* Field name n bytes at s as a key of event records, into fk[j]. */
static void
fkey_name(struct enc *e, size_t j, const char *s, size_t n)
{
	if (plain_key((const unsigned char *)s, n)) {
		e->fk[j].key = s;
		e->fk[j].keylen = (uint32_t)n;
		return;
	}
	e->fk[j].key = NULL;
	e->fk[j].off = (uint32_t)e->kb.len;
	buf_u8(&e->kb, '.');
	{
		unsigned char *p = buf_room(&e->kb, 2 * n);
		if (p != NULL && !e->kb.nomem)
			e->kb.len += (size_t)(tp_fmt_hexbytes((char *)p,
			    (const unsigned char *)s, n) - (char *)p);
	}
	e->fk[j].keylen = (uint32_t)(e->kb.len - e->fk[j].off);
}

/*
 * Another format's fields as dial9 field names: every key is a name (id,
 * raw and names with a dot are ordinary fields).  wtf2txt(1)'s own
 * fields are WTF's structure (time=, wire=, scope=, an argument's .pad=
 * and .chars=), and arg.X its argument X.
 */
static int
foreign_keys(struct enc *e, const struct tr_rec *rec, int dialect,
    int dial9_id, int dial9_raw)
{
	size_t j;

	e->kb.len = 0;
	for (j = 0; j < rec->nf; j++) {
		const struct tr_field *f = &rec->f[j];
		const char *k = f->key;
		size_t n = f->keylen;
		if (e->fk[j].skip && !((key_is(f, "id") && !dial9_id) ||
		    (key_is(f, "raw") && !dial9_raw)))
			continue;
		e->fk[j].skip = 0;
		if (dialect == D_WTF) {
			if (key_is(f, "time") || key_is(f, "wire") ||
			    key_is(f, "scope") || (n > 4 &&
			    memcmp(k + n - 4, ".pad", 4) == 0) || (n > 6 &&
			    memcmp(k + n - 6, ".chars", 6) == 0)) {
				e->fk[j].skip = 1;
				continue;
			}
			if (n > 4 && memcmp(k, "arg.", 4) == 0)
				k += 4, n -= 4;
		} else if (dialect != D_OTHER && k[0] == '.') {
			continue;	/* dial9's own ".HEX" */
		}
		fkey_name(e, j, k, n);
	}
	if (e->kb.nomem)
		return enc_nomem(e);
	for (j = 0; j < rec->nf; j++)
		if (!e->fk[j].skip && e->fk[j].key == NULL)
			e->fk[j].key = (const char *)e->kb.p + e->fk[j].off;
	return 0;
}

/*
 * A thread of an input of a merged stream: its own number unless a
 * thread of another input had it first, then the highest so far plus
 * one (as txtmerge --renumber-tids), so that inputs keep their workers
 * apart.  NULL with the error set.
 */
static const struct tr_field *
enc_thread(struct enc *e, const struct tr_rec *rec, const struct input *in,
    const struct tr_field *f)
{
	uint64_t t, out;
	int64_t k;
	int added = 0;

	if (tr_u64(e->r, rec, f, &t) < 0)
		return NULL;
	if ((k = idmap_put(&e->tids, in->n, t, &added)) < 0 ||
	    tp_grow(&e->tidout, &e->tidcap, (size_t)k + 1,
	    sizeof *e->tidout) < 0) {
		enc_nomem(e);
		return NULL;
	}
	if (added) {
		out = idmap_get(&e->taken, t, 0) < 0 ? t : e->maxtid + 1;
		if (idmap_put(&e->taken, out, 0, NULL) < 0) {
			enc_nomem(e);
			return NULL;
		}
		if (out > e->maxtid)
			e->maxtid = out;
		e->tidout[k] = out;
	}
	if ((out = e->tidout[k]) == t)
		return f;
	e->wf = span(f, e->wbuf, (size_t)(tp_fmt_u64(e->wbuf, out) - e->wbuf));
	return &e->wf;
}

/* "tid N" or "tid N (input I)": the kind of zone, N and I. */
static int
zone_name(const unsigned char *s, size_t n, uint64_t *w, uint64_t *in)
{
	const char *p = (const char *)s, *end = p + n, *q;

	if (n < 5 || memcmp(p, "tid ", 4) != 0)
		return Z_WTF;
	for (q = p += 4; q < end && *q >= '0' && *q <= '9'; q++)
		;
	if (q == p || tp_parse_u64(p, (size_t)(q - p), w) < 0)
		return Z_WTF;
	if (q == end)
		return Z_WORKER;
	if (end - q < 10 || memcmp(q, " (input ", 8) != 0 || end[-1] != ')' ||
	    tp_parse_u64(q + 8, (size_t)(end - 1 - (q + 8)), in) < 0)
		return Z_WTF;
	return Z_INPUT_WORKER;
}

/*
 * A wtf.zone#create of another format's stream: which thread its events
 * have in dial9 (txt2wtf's zones give back the worker or no thread).
 */
static int
zone_create(struct enc *e, const struct tr_rec *rec, const struct input *in)
{
	const struct tr_field *fz = tr_find(rec, "zoneId"),
	    *fn = tr_find(rec, "arg.name"), *ft = tr_find(rec, "type");
	const unsigned char *s;
	struct zone z = { Z_WTF, 0, 0 };
	uint64_t id;
	size_t n;
	int64_t k;

	if (fz == NULL || fn == NULL || tp_parse_u64(fz->val, fz->vallen,
	    &id) < 0)
		return 0;	/* not one this can place: events keep their zone */
	if (ft != NULL && ft->vallen == 8 && memcmp(ft->val, "\"events\"", 8) == 0)
		z.kind = Z_NONE;
	else if (span_str(e, rec, fn, &s, &n) < 0)
		return -1;
	else
		z.kind = zone_name(s, n, &z.worker, &z.input);
	/* WTF's own zones are not kept unless they take a placed one's id */
	if (z.kind == Z_WTF && (k = idmap_get(&e->zones, in->n, id)) < 0)
		return 0;
	if ((k = idmap_put(&e->zones, in->n, id, NULL)) < 0 ||
	    tp_grow(&e->zone, &e->zonecap, (size_t)k + 1, sizeof *e->zone) < 0)
		return enc_nomem(e);
	e->zone[k] = z;
	return 0;
}

/*
 * The thread of an event in a zone txt2wtf made: none, the worker's
 * number, or an input's worker kept apart from other inputs'.  Sets
 * e->ftid; 1 when it is decided here, 0 when the zone id is the thread.
 */
static int
zone_thread(struct enc *e, const struct tr_rec *rec, const struct input *in,
    const struct tr_field *ftid)
{
	const struct zone *z;
	struct input zi;
	uint64_t id;
	int64_t k;

	if (e->zones.count == 0 || tp_parse_u64(ftid->val, ftid->vallen,
	    &id) < 0 || (k = idmap_get(&e->zones, in->n, id)) < 0)
		return 0;
	z = &e->zone[k];
	switch (z->kind) {
	case Z_NONE:
		e->ftid = NULL;
		return 1;
	case Z_WORKER:
	case Z_INPUT_WORKER:
		e->zoned = 1;
		e->zworker = z->worker;
		e->wf = span(ftid, e->wbuf, (size_t)(tp_fmt_u64(e->wbuf,
		    z->worker) - e->wbuf));
		e->ftid = &e->wf;
		if (in->tagged)
			return 0;	/* the record's input= says whose */
		/* "tid N" is the first input's (txt2wtf names it so) */
		memset(&zi, 0, sizeof zi);
		zi.n = z->kind == Z_WORKER ? 0 : z->input;
		zi.tagged = 1;
		e->ftid = enc_thread(e, rec, &zi, &e->wf);
		return e->ftid == NULL ? -1 : 1;
	}
	return 0;
}

/*
 * The layout of a schema a record defined, of this name, that the
 * output's segment lacks, registered there: the first one whose field
 * count can be the record's.  NULL: none (err clear), or with the error.
 */
static struct schema *
layout_next(struct enc *e, const struct tr_rec *rec, uint64_t h,
    size_t nrec, size_t *from)
{
	const unsigned char *name = e->nb.p;
	size_t n = e->nb.len;

	for (; *from < e->nlay; (*from)++) {
		struct layout *l = &e->lay[*from];
		uint32_t id, nf;
		struct schema *x;
		if (l->namehash != h || tp_get_le16(l->body) != n ||
		    memcmp(l->body + 2, name, n) != 0 || l->gen == e->gen)
			continue;
		nf = tp_get_le16(l->body + 2 + n + 1);
		if (nf != nrec && nf != nrec + 1)
			continue;
		if (free_id(e, rec, &id) < 0)
			return NULL;
		e->fb.len = 0;
		buf_u8(&e->fb, TAG_SCHEMA);
		buf_le16(&e->fb, id);
		buf_put(&e->fb, l->body, l->len);
		if ((x = enc_register(e, rec, id, 1)) == NULL)
			return NULL;
		x->inferred = 0;
		l->out = x;
		l->gen = e->gen;
		(*from)++;
		return x;
	}
	return NULL;
}

/*
 * The schema of an event: the one its id= names, else the one its name
 * stands for, else another of that name its fields fit (merged streams:
 * inputs or segments of several eras), else one inferred.
 */
static struct schema *
enc_choose(struct enc *e, const struct tr_rec *rec, const struct input *in,
    const struct tr_field *fid)
{
	struct schema *x = NULL, *h, *c, *fit = NULL;
	uint64_t u = 0, hash;
	size_t j, nrec = 0, from = 0;
	int m, k;

	if (fid != NULL) {
		if (tr_u64(e->r, rec, fid, &u) < 0)
			return NULL;
		x = id_schema(e, in, u);
		if (x != NULL && x->namelen == e->nb.len && (e->nb.len == 0 ||
		    memcmp(x->name, e->nb.p, e->nb.len) == 0)) {
			if (enc_match(e, rec, x, x->inferred) >= 0)
				return x;
			tp_err_clear(e->err);
		}
	}
	h = dial9_seg_by_name(&e->seg, e->nb.p, e->nb.len);
	/*
	 * The fields of an inferred schema with a value of another kind:
	 * one schema for both (the kinds widened), as before.
	 */
	if (h != NULL && h->inferred && h != x && (m = enc_match(e, rec, h, 1)) != 0) {
		tp_err_clear(e->err);
		if (m > 0 || enc_match(e, rec, h, 0) >= 0) {
			tp_err_clear(e->err);
			goto infer;
		}
		tp_err_clear(e->err);
	}
	for (c = h, k = 0; c != NULL && k < 256; c = c->sib, k++) {
		if (c == x)
			continue;
		m = enc_match(e, rec, c, c->inferred || c != h);
		if (m == 0)
			return c;
		if (m > 0 && fit == NULL)
			fit = c;
		tp_err_clear(e->err);
	}
	if (e->nlay > 0) {
		for (j = 0; j < rec->nf; j++)
			nrec += !e->fk[j].skip;
		hash = tp_hash_mem(e->nb.p, e->nb.len);
		while ((c = layout_next(e, rec, hash, nrec, &from)) != NULL) {
			m = enc_match(e, rec, c, 1);
			if (m == 0)
				return c;
			if (m > 0 && fit == NULL)
				fit = c;
			tp_err_clear(e->err);
		}
		if (e->err->status)
			return NULL;
	}
	if (fit != NULL && enc_match(e, rec, fit, fit->inferred || fit != h) >= 0)
		return fit;
	/* dial9's own text naming a schema it does not fit is wrong */
	if (fid != NULL) {
		if (x == NULL)
			tr_fail(e->r, rec, fid, "no schema with this type id in "
			    "this segment");
		else if (x->namelen != e->nb.len || (e->nb.len > 0 &&
		    memcmp(x->name, e->nb.p, e->nb.len) != 0))
			tr_fail(e->r, rec, fid, "the schema of this type id has "
			    "another name");
		else
			enc_match(e, rec, x, x->inferred);
		return NULL;
	}
	if (h != NULL && !h->inferred && (in->dialect == D_DIAL9 ||
	    in->dialect == D_UNKNOWN)) {
		enc_match(e, rec, h, 0);
		return NULL;
	}
infer:
	if ((x = enc_infer(e, rec, h != NULL && h->inferred ? h : NULL)) == NULL ||
	    enc_match(e, rec, x, 0) < 0)
		return NULL;
	return x;
}

/*
 * A stream of dial9's text and another format's merged without --tag
 * (headers come first): an event is dial9's when a record defined a
 * schema of its name, else the other format's.
 */
static int
mixed_dialect(struct enc *e, const struct input *in)
{
	struct schema *h = dial9_seg_by_name(&e->seg, e->nb.p, e->nb.len);
	uint64_t hash;
	size_t i;

	if (h != NULL)
		return h->inferred ? (in->seen & 1u << D_WTF ? D_WTF : D_OTHER) :
		    D_DIAL9;
	hash = tp_hash_mem(e->nb.p, e->nb.len);
	for (i = 0; i < e->nlay; i++)
		if (e->lay[i].namehash == hash &&
		    tp_get_le16(e->lay[i].body) == e->nb.len &&
		    memcmp(e->lay[i].body + 2, e->nb.p, e->nb.len) == 0)
			return D_DIAL9;
	return in->seen & 1u << D_WTF ? D_WTF : D_OTHER;
}

static int
enc_event(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *fname = NULL, *fts = NULL, *fid = NULL,
	    *fraw = NULL, *finput = NULL, *ftid = NULL;
	const unsigned char *s;
	struct schema *x = NULL;
	struct input *in;
	uint64_t ts = 0, u;
	uint32_t i;
	size_t j, n;
	int reset = 0, dialect, dial9_id = 1, dial9_raw = 1;

	if (tp_grow(&e->fk, &e->fkcap, rec->nf + 1, sizeof *e->fk) < 0)
		return enc_nomem(e);
	for (j = 0; j < rec->nf; j++) {
		const struct tr_field *f = &rec->f[j];
		struct fkey *k = &e->fk[j];
		k->key = f->key;
		k->keylen = f->keylen;
		k->skip = 1;
		if (key_is(f, "name"))
			fname = f;
		else if (key_is(f, "ts"))
			fts = f;
		else if (key_is(f, "tid"))
			ftid = f;
		else if (key_is(f, "id"))
			fid = f;
		else if (key_is(f, "raw"))
			fraw = f;
		else if (key_is(f, "input"))
			finput = f;
		else
			k->skip = 0;
	}
	if (fname == NULL)
		return tr_fail(e->r, rec, NULL, "event record without field "
		    "\"name\"");
	if ((in = input_of(e, rec, finput)) == NULL)
		return -1;
	if (span_str(e, rec, fname, &s, &n) < 0)
		return -1;
	if (n > 0xffff)
		return tr_fail(e->r, rec, fname, "longer than 65535 bytes");
	e->nb.len = 0;
	buf_put(&e->nb, s, n);
	if (e->nb.nomem)
		return enc_nomem(e);
	enc_need_segment(e);
	/*
	 * id= and raw= are dial9's structure in dial9's text; in another
	 * format's they are fields, and where the text does not say (no
	 * header: a filtered stream), an id= naming no schema of this name
	 * or a raw= not shaped as wire details is a field.
	 */
	dialect = in->dialect;
	if ((in->seen & 1u << D_DIAL9) && in->seen != 1u << D_DIAL9)
		dialect = mixed_dialect(e, in);
	if (dialect == D_UNKNOWN) {
		if (fid != NULL && (tp_parse_u64(fid->val, fid->vallen, &u) < 0 ||
		    (x = id_schema(e, in, u)) == NULL || x->namelen != n ||
		    memcmp(x->name, e->nb.p, n) != 0))
			dial9_id = 0;
		if (fraw != NULL && !rawspec_shape(fraw))
			dial9_raw = 0;
	} else if (dialect != D_DIAL9) {
		dial9_id = dial9_raw = 0;
	}
	if ((dialect != D_DIAL9 && dialect != D_UNKNOWN) ||
	    (fid != NULL && !dial9_id) || (fraw != NULL && !dial9_raw))
		if (foreign_keys(e, rec, dialect, dial9_id, dial9_raw) < 0)
			return -1;
	if (!dial9_id)
		fid = NULL;
	/* wire details of another trace (or format) are not this one's */
	if (!dial9_raw || in->tagged)
		fraw = NULL;
	e->ftid = ftid;
	e->zoned = 0;
	if (dialect == D_WTF) {
		int zr = 0;
		if (n == 15 && memcmp(e->nb.p, "wtf.zone#create", 15) == 0 &&
		    zone_create(e, rec, in) < 0)
			return -1;
		if (ftid != NULL && (zr = zone_thread(e, rec, in, ftid)) < 0)
			return -1;
		if (zr)
			ftid = NULL;	/* decided: not renumbered again */
	}
	if (ftid != NULL && in->tagged &&
	    (e->ftid = enc_thread(e, rec, in, e->ftid)) == NULL)
		return -1;
	if ((x = enc_choose(e, rec, in, fid)) == NULL)
		return -1;
	/*
	 * Another format's argument worker_id is the worker field, which
	 * the thread fills: where the two differ the argument's value is
	 * lost (in dial9's text tid= is the truth: renumbered).
	 */
	if (dialect != D_DIAL9 && dialect != D_UNKNOWN && e->ftid != NULL &&
	    x->worker_field >= 0) {
		const struct tr_field *fw = tr_find(rec, "worker_id"),
		    *ft = e->ftid;
		uint64_t w;
		/* the worker its zone names, renumbered apart: not lost */
		if (fw != NULL && e->zoned && tp_parse_u64(fw->val, fw->vallen,
		    &w) == 0 && w == e->zworker)
			fw = NULL;
		if (fw != NULL && (fw->vallen != ft->vallen ||
		    memcmp(fw->val, ft->val, fw->vallen) != 0) &&
		    tr_lose(e->r, rec, &e->st->skipped, "an argument worker_id "
		    "other than the event's thread, replaced by the thread",
		    "worker_id=%.*s, tid=%.*s", (int)fw->vallen, fw->val,
		    (int)ft->vallen, ft->val) < 0)
			return -1;
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

	struct input *in = rec_input(e, rec);

	if (in == NULL)
		return -1;
	in->dialect = D_DIAL9;
	in->seen |= 1u << D_DIAL9;
	if (fp == NULL || fp->vallen == 0 || fp->val[0] != '{')
		return tr_fail(e->r, rec, fp, "expected pool={id:value,...}");
	/* an input's pool ids are its own: its events' values make ours */
	if (in->tagged)
		return 0;
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
	struct input *in = rec_input(e, rec);
	uint64_t ts;

	if (in == NULL || tr_get_u64(e->r, rec, "ts", &ts, 1) < 0)
		return -1;
	in->dialect = D_DIAL9;
	in->seen |= 1u << D_DIAL9;
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

	struct input *in = rec_input(e, rec);
	struct schema *x;

	if (in == NULL || tr_get_u64(e->r, rec, "id", &id, 1) < 0 ||
	    tr_get_u64(e->r, rec, "idlen", &idlen, 0) < 0)
		return -1;
	in->dialect = D_DIAL9;
	in->seen |= 1u << D_DIAL9;
	if (in->tagged) {
		/* the input's type id: the output's for its schema */
		if (id > 0xffff || (x = id_schema(e, in, id)) == NULL)
			return tr_lose(e->r, rec, &e->st->skipped, "annotations "
			    "of a type id its input has no schema for, left out",
			    "type id %llu", (unsigned long long)id);
		id = x->id;
		idlen = 0;
	}
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

/*
 * Another format's structure: WTF's header, chunks, parts and
 * definitions, a header of any format.  The events say what dial9
 * keeps (schemas are made from them), so none is counted as skipped;
 * they say which vocabulary the input's events speak.  0: not such a
 * record.
 */
static int
foreign_structure(struct enc *e, const struct tr_rec *rec, int *rc)
{
	struct input *in;
	int wtf = rec->kindlen > 4 && memcmp(rec->kind, "wtf-", 4) == 0;

	if (!wtf && !(rec->kindlen > 7 && memcmp(rec->kind + rec->kindlen - 7,
	    "-header", 7) == 0))
		return 0;
	if ((in = rec_input(e, rec)) == NULL) {
		*rc = -1;
		return 1;
	}
	in->dialect = wtf ? D_WTF : D_OTHER;
	in->seen |= 1u << in->dialect;
	tr_rebuilt(&e->st->skipped, rec);
	*rc = 0;
	return 1;
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
	idmap_init(&e.ids);
	idmap_init(&e.tids);
	idmap_init(&e.taken);
	idmap_init(&e.zones);
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
		else if (foreign_structure(&e, rec, &rc) ||
		    tr_rebuilt(&st->skipped, rec))
			;
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
	free(e.fk);
	free(e.kb.p);
	free(e.ins);
	free(e.idr);
	free(e.tidout);
	while (e.nlay > 0)
		free(e.lay[--e.nlay].body);
	free(e.lay);
	idmap_free(&e.ids);
	idmap_free(&e.tids);
	idmap_free(&e.taken);
	idmap_free(&e.zones);
	free(e.zone);
	dial9_seg_free(&e.seg);
	return rc < 0 ? -1 : 0;
}
