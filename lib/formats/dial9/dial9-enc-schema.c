/*
 * dial9 encoder: segments, schemas, the schema of an event (see
 * dial9-enc.h).
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
void
dial9_enc_need_segment(struct enc *e)
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
struct input *
dial9_enc_input_of(struct enc *e, const struct tr_rec *rec, const struct tr_field *f)
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
		dial9_enc_nomem(e);
		return NULL;
	}
	in = &e->ins[e->nins++];
	memset(in, 0, sizeof *in);
	in->n = n;
	in->tagged = 1;
	return in;
}

struct input *
dial9_enc_rec_input(struct enc *e, const struct tr_rec *rec)
{
	return dial9_enc_input_of(e, rec, tr_find(rec, "input"));
}

int
dial9_enc_header(struct enc *e, const struct tr_rec *rec)
{
	struct input *in = dial9_enc_rec_input(e, rec);
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
		return dial9_enc_nomem(e);
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

struct schema *
dial9_enc_register(struct enc *e, const struct tr_rec *rec, uint32_t id,
    int movable)
{
	struct schema *x, *prev;
	int conflict, isnew;

	if (e->fb.nomem) {
		dial9_enc_nomem(e);
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
		dial9_enc_nomem(e);
		return NULL;
	}
	/* the schemas of one name, newest first, for events that fit another */
	if (isnew && prev != x)
		x->sib = prev;
	if (dial9_enc_flush_frame(e, &e->fb) < 0)
		return NULL;
	return x;
}

/* Start a schema frame in fb: tag, id, name, ts byte, field count. */
void
dial9_enc_schema_start(struct buf *b, uint32_t id, const void *name, size_t n,
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
int
dial9_enc_id_bind(struct enc *e, struct input *in, uint64_t id, struct schema *x)
{
	int64_t k = idmap_put(&e->ids, in->n, id, NULL);

	if (k < 0 || tp_grow(&e->idr, &e->idrcap, (size_t)k + 1,
	    sizeof *e->idr) < 0)
		return dial9_enc_nomem(e);
	e->idr[k].x = x;
	e->idr[k].gen = e->gen;
	e->idr[k].hgen = in->hgen;
	return 0;
}

/* The schema input in's type id stands for, or NULL. */
struct schema *
dial9_enc_id_schema(struct enc *e, const struct input *in, uint64_t id)
{
	int64_t k;

	if (!in->tagged)
		return seg_at(&e->seg, id);
	k = idmap_get(&e->ids, in->n, id);
	if (k < 0 || e->idr[k].gen != e->gen || e->idr[k].hgen != in->hgen)
		return NULL;
	return e->idr[k].x;
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
	dial9_enc_schema_start(b, id, e->nb.p, e->nb.len, fts != NULL, 0);
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
		dial9_enc_nomem(e);
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
	if ((x = dial9_enc_register(e, rec, id, 0)) == NULL)
		return NULL;
	x->inferred = 1;
	e->st->schemas_inferred++;
	return x;
}

/* Does a raw= value look like dial9's wire details ({field:{...},...})? */
int
dial9_enc_rawspec_shape(const struct tr_field *f)
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
int
dial9_enc_foreign_keys(struct enc *e, const struct tr_rec *rec, int dialect,
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
		return dial9_enc_nomem(e);
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
const struct tr_field *
dial9_enc_thread(struct enc *e, const struct tr_rec *rec,
    const struct input *in,
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
		dial9_enc_nomem(e);
		return NULL;
	}
	if (added) {
		out = idmap_get(&e->taken, t, 0) < 0 ? t : e->maxtid + 1;
		if (idmap_put(&e->taken, out, 0, NULL) < 0) {
			dial9_enc_nomem(e);
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
int
dial9_enc_zone_create(struct enc *e, const struct tr_rec *rec,
    const struct input *in)
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
	else if (dial9_enc_span_str(e, rec, fn, &s, &n) < 0)
		return -1;
	else
		z.kind = zone_name(s, n, &z.worker, &z.input);
	/* WTF's own zones are not kept unless they take a placed one's id */
	if (z.kind == Z_WTF && (k = idmap_get(&e->zones, in->n, id)) < 0)
		return 0;
	if ((k = idmap_put(&e->zones, in->n, id, NULL)) < 0 ||
	    tp_grow(&e->zone, &e->zonecap, (size_t)k + 1, sizeof *e->zone) < 0)
		return dial9_enc_nomem(e);
	e->zone[k] = z;
	return 0;
}

/*
 * The thread of an event in a zone txt2wtf made: none, the worker's
 * number, or an input's worker kept apart from other inputs'.  Sets
 * e->ftid; 1 when it is decided here, 0 when the zone id is the thread.
 */
int
dial9_enc_zone_thread(struct enc *e, const struct tr_rec *rec,
    const struct input *in,
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
		e->ftid = dial9_enc_thread(e, rec, &zi, &e->wf);
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
		if ((x = dial9_enc_register(e, rec, id, 1)) == NULL)
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
struct schema *
dial9_enc_choose(struct enc *e, const struct tr_rec *rec,
    const struct input *in,
    const struct tr_field *fid)
{
	struct schema *x = NULL, *h, *c, *fit = NULL;
	uint64_t u = 0, hash;
	size_t j, nrec = 0, from = 0;
	int m, k;

	if (fid != NULL) {
		if (tr_u64(e->r, rec, fid, &u) < 0)
			return NULL;
		x = dial9_enc_id_schema(e, in, u);
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
