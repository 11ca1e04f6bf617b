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
#include "formats/dial9/dial9-enc.h"


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
		return dial9_enc_nomem(e);
	l = &e->lay[e->nlay];
	if ((l->body = malloc(x->bodylen)) == NULL)
		return dial9_enc_nomem(e);
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

	struct input *in = dial9_enc_rec_input(e, rec);

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
	if (dial9_enc_span_str(e, rec, fn, &s, &namelen) < 0)
		return -1;
	if (namelen > 0xffff)
		return tr_fail(e->r, rec, fn, "longer than 65535 bytes");
	dial9_enc_need_segment(e);
	dial9_enc_schema_start(&e->fb, (uint32_t)id, s, namelen, (unsigned)ts, 0);
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
			if (dial9_enc_span_str(e, rec, &vf, &s, &n) < 0)
				return -1;
			if ((tag = dial9_tag_parse((const char *)s, n)) == 0)
				return tr_fail(e->r, rec, &vf, "unknown field type");
			if (dial9_enc_span_str(e, rec, &kf, &s, &n) < 0)
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
		return dial9_enc_nomem(e);
	countp = e->fb.p + 3 + 2 + namelen + 1;
	tp_put_le16(countp, (uint16_t)nf);
	if ((x = dial9_enc_register(e, rec, (uint32_t)id, in->tagged)) == NULL)
		return -1;
	x->inferred = 0;
	if (in->tagged && dial9_enc_id_bind(e, in, id, x) < 0)
		return -1;
	return layout_keep(e, x);
}

/* The pool id for content data: the id asked for, the holder's, or new. */
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
		return dial9_enc_nomem(e);
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
	if ((in = dial9_enc_input_of(e, rec, finput)) == NULL)
		return -1;
	if (dial9_enc_span_str(e, rec, fname, &s, &n) < 0)
		return -1;
	if (n > 0xffff)
		return tr_fail(e->r, rec, fname, "longer than 65535 bytes");
	e->nb.len = 0;
	buf_put(&e->nb, s, n);
	if (e->nb.nomem)
		return dial9_enc_nomem(e);
	dial9_enc_need_segment(e);
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
		    (x = dial9_enc_id_schema(e, in, u)) == NULL || x->namelen != n ||
		    memcmp(x->name, e->nb.p, n) != 0))
			dial9_id = 0;
		if (fraw != NULL && !dial9_enc_rawspec_shape(fraw))
			dial9_raw = 0;
	} else if (dialect != D_DIAL9) {
		dial9_id = dial9_raw = 0;
	}
	if ((dialect != D_DIAL9 && dialect != D_UNKNOWN) ||
	    (fid != NULL && !dial9_id) || (fraw != NULL && !dial9_raw))
		if (dial9_enc_foreign_keys(e, rec, dialect, dial9_id, dial9_raw) < 0)
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
		    dial9_enc_zone_create(e, rec, in) < 0)
			return -1;
		if (ftid != NULL && (zr = dial9_enc_zone_thread(e, rec, in, ftid)) < 0)
			return -1;
		if (zr)
			ftid = NULL;	/* decided: not renumbered again */
	}
	if (ftid != NULL && in->tagged &&
	    (e->ftid = dial9_enc_thread(e, rec, in, e->ftid)) == NULL)
		return -1;
	if ((x = dial9_enc_choose(e, rec, in, fid)) == NULL)
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
			if (dial9_enc_parse_rawspec(e, rec, &vf, &e->rs[i], 0, NULL, NULL) < 0)
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
		if (dial9_enc_value(e, &e->eb, rec, f, x->f[i].tag, &e->rs[i], 0) < 0)
			return -1;
	}
	if (reset) {
		e->fb.len = 0;
		buf_u8(&e->fb, TAG_RESET);
		buf_le64(&e->fb, ts);
		if (dial9_enc_flush_frame(e, &e->fb) < 0)
			return -1;
		e->st->resets_added++;
	}
	if (x->tsbyte)
		e->seg.base = ts;
	e->st->events++;
	return dial9_enc_flush_frame(e, &e->eb);
}

static int
enc_pool(struct enc *e, const struct tr_rec *rec, int stacks)
{
	const struct tr_field *fp = tr_find(rec, "pool");
	struct pool *pool = stacks ? &e->seg.stacks : &e->seg.strings;
	const char *cur, *end, *k, *v;
	size_t kl, vl, count = 0;
	struct buf *b = &e->fb;

	struct input *in = dial9_enc_rec_input(e, rec);

	if (in == NULL)
		return -1;
	in->dialect = D_DIAL9;
	in->seen |= 1u << D_DIAL9;
	if (fp == NULL || fp->vallen == 0 || fp->val[0] != '{')
		return tr_fail(e->r, rec, fp, "expected pool={id:value,...}");
	/* an input's pool ids are its own: its events' values make ours */
	if (in->tagged)
		return 0;
	dial9_enc_need_segment(e);
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
			if (dial9_enc_span_stack(e, rec, &vf, &n) < 0)
				return -1;
			s = e->sb.p;
		} else if (dial9_enc_span_str(e, rec, &vf, &s, &n) < 0) {
			return -1;
		}
		buf_le32(b, (uint32_t)id);
		buf_le32(b, (uint32_t)n);
		if (stacks)
			n *= 8;
		buf_put(b, s, n);
		if (dial9_pool_define(pool, &e->seg.arena, (uint32_t)id, s, n) == NULL)
			return dial9_enc_nomem(e);
		count++;
	}
	if (!b->nomem)
		tp_put_le32(b->p + 1, (uint32_t)count);
	return dial9_enc_flush_frame(e, b);
}

static int
enc_reset(struct enc *e, const struct tr_rec *rec)
{
	struct input *in = dial9_enc_rec_input(e, rec);
	uint64_t ts;

	if (in == NULL || tr_get_u64(e->r, rec, "ts", &ts, 1) < 0)
		return -1;
	in->dialect = D_DIAL9;
	in->seen |= 1u << D_DIAL9;
	dial9_enc_need_segment(e);
	e->fb.len = 0;
	buf_u8(&e->fb, TAG_RESET);
	buf_le64(&e->fb, ts);
	e->seg.base = ts;
	return dial9_enc_flush_frame(e, &e->fb);
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

	struct input *in = dial9_enc_rec_input(e, rec);
	struct schema *x;

	if (in == NULL || tr_get_u64(e->r, rec, "id", &id, 1) < 0 ||
	    tr_get_u64(e->r, rec, "idlen", &idlen, 0) < 0)
		return -1;
	in->dialect = D_DIAL9;
	in->seen |= 1u << D_DIAL9;
	if (in->tagged) {
		/* the input's type id: the output's for its schema */
		if (id > 0xffff || (x = dial9_enc_id_schema(e, in, id)) == NULL)
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
	dial9_enc_need_segment(e);
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
				if (dial9_enc_span_str(e, rec, &xf, &s, &sl) < 0)
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
	return dial9_enc_flush_frame(e, b);
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
	if ((in = dial9_enc_rec_input(e, rec)) == NULL) {
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
		rc = dial9_enc_nomem(&e);
		goto done;
	}
	while ((rc = tr_next(r, rec)) > 0) {
		int kind = tp_kind(rec->kind, rec->kindlen,
		    (size_t)(rec->line + rec->len - rec->kind));
		st->records++;
		if (kind == TK_EVENT)
			rc = enc_event(&e, rec);
		else if (tr_is(rec, "dial9-header"))
			rc = dial9_enc_header(&e, rec);
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
		dial9_enc_need_segment(&e);
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
