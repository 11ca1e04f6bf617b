/*
 * What the files of dial9's encoder share (dial9-private.h has what it
 * shares with the decoder):
 *
 *   dial9-enc.c         records to frames: schema, pool, reset and
 *                       annotation records, events, the entry point
 *   dial9-enc-value.c   a field's value on the wire (lists, maps, pooled
 *                       strings and stacks, raw= wire details)
 *   dial9-enc-schema.c  segments and the schemas registered in them; the
 *                       schema of an event: the stream's own, one
 *                       inferred from its values, or another format's
 *                       fields mapped (WTF zones, threads)
 *
 * The byte buffer the hot paths fill is static inline here; what crosses
 * files as a call is named dial9_*.
 */
#ifndef TP_DIAL9_ENC_H
#define TP_DIAL9_ENC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/idmap.h"
#include "formats/dial9/dial9-private.h"

struct buf {
	unsigned char *p;
	size_t len, cap;
	int nomem;
};

static inline unsigned char *
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

static inline void
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

static inline void
buf_u8(struct buf *b, unsigned v)
{
	unsigned char c = (unsigned char)v;

	buf_put(b, &c, 1);
}

static inline void
buf_le16(struct buf *b, uint32_t v)
{
	unsigned char c[2];

	tp_put_le16(c, (uint16_t)v);
	buf_put(b, c, 2);
}

static inline void
buf_le32(struct buf *b, uint32_t v)
{
	unsigned char c[4];

	tp_put_le32(c, v);
	buf_put(b, c, 4);
}

static inline void
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
static inline int
key_is(const struct tr_field *f, const char *k)
{
	size_t n = strlen(k);

	return f->keylen == n && memcmp(f->key, k, n) == 0;
}

/* A value span as a field, so that errors point into the line. */
static inline struct tr_field
span(const struct tr_field *f, const char *val, size_t vallen)
{
	struct tr_field t = *f;

	t.val = val;
	t.vallen = (uint32_t)vallen;
	return t;
}

static inline int
span_is(const struct tr_field *f, const char *w)
{
	size_t n = strlen(w);

	return f->vallen == n && memcmp(f->val, w, n) == 0;
}

static inline int
dial9_enc_nomem(struct enc *e)
{
	return tp_fail_nomem(e->err);
}

/* Write the frame in fb. */
static inline int
dial9_enc_flush_frame(struct enc *e, struct buf *b)
{
	if (b->nomem)
		return dial9_enc_nomem(e);
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

/* dial9-enc-schema.c: segments, schemas, another format's fields. */
struct input *
dial9_enc_rec_input(struct enc *e, const struct tr_rec *rec);

void
dial9_enc_need_segment(struct enc *e);

int
dial9_enc_id_bind(struct enc *e, struct input *in, uint64_t id, struct schema *x);

struct input *
dial9_enc_input_of(struct enc *e, const struct tr_rec *rec, const struct tr_field *f);

int
dial9_enc_header(struct enc *e, const struct tr_rec *rec);

struct schema *
dial9_enc_choose(struct enc *e, const struct tr_rec *rec,
    const struct input *in,
    const struct tr_field *fid);

/* dial9-enc.c: frames, segments, schema records. */
struct schema *
dial9_enc_register(struct enc *e, const struct tr_rec *rec, uint32_t id,
    int movable);

const struct tr_field *
dial9_enc_thread(struct enc *e, const struct tr_rec *rec,
    const struct input *in,
    const struct tr_field *f);

/* dial9-enc-value.c: values. */
int
dial9_enc_value(struct enc *e, struct buf *b, const struct tr_rec *rec,
    const struct tr_field *f, unsigned tag, const struct rawspec *rs,
    int depth);

int
dial9_enc_foreign_keys(struct enc *e, const struct tr_rec *rec, int dialect,
    int dial9_id, int dial9_raw);

struct schema *
dial9_enc_id_schema(struct enc *e, const struct input *in, uint64_t id);

int
dial9_enc_parse_rawspec(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f, struct rawspec *rs, int with_type,
    unsigned *tag, struct tr_field *value);

int
dial9_enc_rawspec_shape(const struct tr_field *f);

void
dial9_enc_schema_start(struct buf *b, uint32_t id, const void *name, size_t n,
    unsigned tsbyte, size_t nf);

int
dial9_enc_span_stack(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f,
    size_t *count);

int
dial9_enc_span_str(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f,
    const unsigned char **s, size_t *n);

int
dial9_enc_zone_create(struct enc *e, const struct tr_rec *rec,
    const struct input *in);

int
dial9_enc_zone_thread(struct enc *e, const struct tr_rec *rec,
    const struct input *in,
    const struct tr_field *ftid);

#endif
