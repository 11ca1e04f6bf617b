/*
 * Web Tracing Framework traces: the chunks the encoder writes.  A chunk
 * is held until it is complete (it starts with its length and its part
 * table): the parts the stream gives (wtf-chunk, wtf-part records), the
 * string table and event buffer its records fill, the file header.
 */
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "formats/wtf/wtf-private.h"
#include "text/json.h"

/* -------------------------------------------------------------- chunks */

static int
buf_str(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

static void
put_le32(struct tp_out *o, uint32_t v)
{
	unsigned char b[4];
	tp_put_le32(b, v);
	tp_out_write(o, b, 4);
}

static void
part_bytes(const struct enc *e, const struct epart *p,
    const unsigned char **b, size_t *n)
{
	if (p->kind == P_EVENTS) {
		*b = e->ev.b;
		*n = e->ev.len;
	} else if (p->kind == P_STRINGS) {
		*b = e->tab.b;
		*n = e->tab.len;
	} else {
		*b = e->pbuf.b + p->off;
		*n = p->len;
	}
}

int
wtf_chunk_flush(struct enc *e)
{
	static const unsigned char zero[4];
	uint64_t total, off = 0;
	unsigned i;

	if (!e->in_chunk)
		return 0;
	e->in_chunk = 0;
	if (e->nstr > 0 && e->str_part < 0) {
		/* Strings were used: a table goes before the event buffer. */
		if (e->nparts == MAX_PARTS)
			return tp_fail(e->err, TP_EXIT_DATA, "more than %d parts "
			    "in a chunk", MAX_PARTS);
		memmove(e->parts + e->ev_part + 1, e->parts + e->ev_part,
		    (e->nparts - (unsigned)e->ev_part) * sizeof e->parts[0]);
		memset(&e->parts[e->ev_part], 0, sizeof e->parts[0]);
		e->parts[e->ev_part].type = WTF_PART_STRING_TABLE;
		e->parts[e->ev_part].kind = P_STRINGS;
		e->nparts++;
	}
	total = 24 + 12 * (uint64_t)e->nparts;
	for (i = 0; i < e->nparts; i++) {
		const unsigned char *b;
		size_t n;
		part_bytes(e, &e->parts[i], &b, &n);
		total += n + (e->parts[i].has_pad ? e->parts[i].padlen :
		    (4 - n % 4) % 4);
	}
	if (e->nparts == 0 && e->has_cpad)
		total += e->cpadlen;
	if (total > UINT32_MAX)
		return tp_fail(e->err, TP_EXIT_DATA, "chunk of %llu bytes: more "
		    "than 4 GiB", (unsigned long long)total);
	put_le32(e->out, e->cid);
	put_le32(e->out, e->ctype);
	put_le32(e->out, (uint32_t)total);
	put_le32(e->out, e->cstart);
	put_le32(e->out, e->cend);
	put_le32(e->out, e->nparts);
	for (i = 0; i < e->nparts; i++) {
		const unsigned char *b;
		size_t n;
		part_bytes(e, &e->parts[i], &b, &n);
		put_le32(e->out, e->parts[i].type);
		put_le32(e->out, (uint32_t)off);
		put_le32(e->out, (uint32_t)n);
		off += n + (e->parts[i].has_pad ? e->parts[i].padlen :
		    (4 - n % 4) % 4);
	}
	for (i = 0; i < e->nparts; i++) {
		const unsigned char *b;
		size_t n;
		part_bytes(e, &e->parts[i], &b, &n);
		tp_out_write(e->out, b, n);
		if (e->parts[i].has_pad)
			tp_out_write(e->out, e->pbuf.b + e->parts[i].padoff,
			    e->parts[i].padlen);
		else
			tp_out_write(e->out, zero, (4 - n % 4) % 4);
	}
	if (e->nparts == 0 && e->has_cpad)
		tp_out_write(e->out, e->pbuf.b + e->cpadoff, e->cpadlen);
	return 0;
}

void
wtf_chunk_start(struct enc *e, uint32_t id, uint32_t type)
{
	e->in_chunk = 1;
	e->auto_chunk = 0;
	e->cid = id;
	e->ctype = type;
	e->cstart = e->cend = 0xffffffffu;
	e->has_cpad = 0;
	e->nparts = 0;
	e->ev_part = e->str_part = -1;
	e->pbuf.len = e->ev.len = e->tab.len = 0;
	e->nstr = 0;
	e->unique = 0;
	if (e->hash != NULL)
		memset(e->hash, 0, e->hcap * sizeof *e->hash);
	if (id > e->max_cid)
		e->max_cid = id;
}

/*
 * ns as JSON milliseconds at p (32 bytes of room): whole, or with six
 * decimals.  Returns the end.
 */
static char *
json_num_ms(char *p, int64_t ns)
{
	int64_t ms = ns / 1000000, frac = ns % 1000000;

	if (frac == 0)
		return tp_fmt_i64(p, ms);
	if (ns < 0)
		*p++ = '-';
	p = tp_fmt_u64(p, (uint64_t)(ns < 0 ? -ms : ms));
	*p++ = '.';
	/* 8 digits, the first 2 of them zeros, shifted out */
	tp_put_le64(p, tp_digits8((uint32_t)(ns < 0 ? -frac : frac)) >> 16);
	return p + 6;
}

static const char default_context[] = "{\"contextType\":\"script\","
    "\"uri\":\"\",\"title\":\"txt2wtf\"}";

/* A JSON object's text, or dflt when s is none (a header's context). */
static const char *
json_object_or(const unsigned char *s, size_t n, const char *dflt, size_t *len)
{
	struct tp_json j;
	const char *p = (const char *)s;

	if (s == NULL || tp_json_check(&j, p, n, 0) < 0 ||
	    *tp_json_ws(p, p + n) != '{') {
		*len = strlen(dflt);
		return dflt;
	}
	*len = n;
	return p;
}

/*
 * A chunked trace's start: its header and a file-header chunk with the
 * timebase tb_ns (whole milliseconds), the context and the metadata.
 */
int
wtf_cff_header(struct enc *e, int64_t tb_ns, uint32_t flags,
    const struct buf *ctx, const struct buf *meta)
{
	static const char *const flag_names[] = { "has_high_resolution_times",
	    "times_as_count" };
	const char *c, *m;
	size_t cn, mn;
	char tb[40], *tbend;
	int comma = 0;

	c = json_object_or(ctx ? ctx->b : NULL, ctx ? ctx->len : 0,
	    default_context, &cn);
	m = json_object_or(meta ? meta->b : NULL, meta ? meta->len : 0, "{}",
	    &mn);
	if (e->version != WTF_CFF_VERSION) {
		put_le32(e->out, WTF_MAGIC);
		put_le32(e->out, WTF_DEFAULT_BUILD);
		put_le32(e->out, WTF_CFF_VERSION);
	}	/* else the stream's header was written: only its chunk */
	e->version = WTF_CFF_VERSION;
	e->st->version = WTF_CFF_VERSION;
	e->tb_ns = tb_ns;
	tbend = json_num_ms(tb, tb_ns);
	wtf_chunk_start(e, 1, WTF_CHUNK_FILE_HEADER);
	if (buf_str(&e->pbuf, "{\"type\":\"file_header\",\"flags\":[") < 0)
		return enc_nomem(e);
	for (unsigned i = 0; i < 2; i++)
		if ((flags & (1u << i)) && ((comma++ && buf_str(&e->pbuf, ",") < 0) ||
		    buf_str(&e->pbuf, "\"") < 0 ||
		    buf_str(&e->pbuf, flag_names[i]) < 0 ||
		    buf_str(&e->pbuf, "\"") < 0))
			return enc_nomem(e);
	if (buf_str(&e->pbuf, "],\"timebase\":") < 0 ||
	    buf_add(&e->pbuf, tb, (size_t)(tbend - tb)) < 0 ||
	    buf_str(&e->pbuf, ",\"contextInfo\":") < 0 ||
	    buf_add(&e->pbuf, c, cn) < 0 ||
	    buf_str(&e->pbuf, ",\"metadata\":") < 0 ||
	    buf_add(&e->pbuf, m, mn) < 0 || buf_str(&e->pbuf, "}") < 0)
		return enc_nomem(e);
	e->parts[0].type = WTF_PART_FILE_HEADER;
	e->parts[0].kind = P_DATA;
	e->parts[0].off = 0;
	e->parts[0].len = e->pbuf.len;
	e->nparts = 1;
	return wtf_chunk_flush(e);
}

/*
 * The header of a stream that has none: the chunked format, with the
 * timebase of the first record's ts (whole milliseconds).
 */
int
wtf_auto_header(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *f = rec ? find_key(rec, "ts", 2) : NULL;
	int64_t ts = 0;

	if (f != NULL && tr_i64(e->r, rec, f, &ts) < 0)
		return -1;
	return wtf_cff_header(e, ts - (ts % 1000000 + 1000000) % 1000000, 1,
	    NULL, NULL);
}

/* ------------------------------------ the stream's own chunks and parts */

/* A type= field: a name from the table, or a number. */
static int
get_type(struct enc *e, const struct tr_rec *rec, int part, uint32_t *type)
{
	const struct tr_field *f = find_key(rec, "type", 4);

	if (f == NULL)
		return tr_fail(e->r, rec, NULL, "%s without field \"type\"",
		    part ? "wtf-part" : "wtf-chunk");
	if (f->vallen > 0 && f->val[0] >= '0' && f->val[0] <= '9')
		return get_u32(e, rec, f, type);
	if (part) {
		if (wtf_part_type(f->val, f->vallen, type) == 0)
			return 0;
	} else {
		for (uint32_t t = 1; t <= 2; t++)
			if (strlen(wtf_chunk_name(t)) == f->vallen &&
			    memcmp(wtf_chunk_name(t), f->val, f->vallen) == 0) {
				*type = t;
				return 0;
			}
	}
	return tr_fail(e->r, rec, f, "unknown type");
}

/* Bytes of a data= or pad= field into pbuf: hex, or a quoted string. */
static int
pbuf_field(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    size_t *off, size_t *len)
{
	size_t n;

	if (buf_reserve(&e->pbuf, e->pbuf.len + f->vallen + 1) < 0)
		return enc_nomem(e);
	*off = e->pbuf.len;
	if (f->vallen > 0 && f->val[0] == '"') {
		if (f->vallen == 2)
			n = 0;
		else if (tr_str(e->r, rec, f, e->pbuf.b + *off, f->vallen, &n) < 0)
			return -1;
	} else if (tr_bytes(e->r, rec, f, e->pbuf.b + *off, f->vallen, &n) < 0) {
		return -1;
	}
	e->pbuf.len += n;
	*len = n;
	return 0;
}

int
wtf_do_chunk(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *f;
	uint32_t id = e->max_cid + 1, type;

	if (e->version == WTF_LEGACY_VERSION)
		return tr_fail(e->r, rec, NULL, "a wtf-chunk in a legacy trace");
	if (e->version == 0) {
		unsigned char b[12];
		tp_put_le32(b, WTF_MAGIC);
		tp_put_le32(b + 4, WTF_DEFAULT_BUILD);
		tp_put_le32(b + 8, WTF_CFF_VERSION);
		tp_out_write(e->out, b, 12);
		e->version = WTF_CFF_VERSION;
		e->st->version = WTF_CFF_VERSION;
	}
	if (opt_u32(e, rec, "id", &id) < 0 || get_type(e, rec, 0, &type) < 0 ||
	    wtf_chunk_flush(e) < 0)
		return -1;
	wtf_chunk_start(e, id, type);
	if (opt_u32(e, rec, "start", &e->cstart) < 0 ||
	    opt_u32(e, rec, "end", &e->cend) < 0)
		return -1;
	if ((f = find_key(rec, "pad", 3)) != NULL) {
		if (pbuf_field(e, rec, f, &e->cpadoff, &e->cpadlen) < 0)
			return -1;
		e->has_cpad = 1;
	}
	return 0;
}

int
wtf_do_part(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *data, *pad, *json;
	struct epart *p;
	uint32_t type;

	if (!e->in_chunk || e->auto_chunk)
		return tr_fail(e->r, rec, NULL, "a wtf-part outside a wtf-chunk");
	if (e->nparts == MAX_PARTS)
		return tr_fail(e->r, rec, NULL, "more than %d parts in a chunk",
		    MAX_PARTS);
	if (get_type(e, rec, 1, &type) < 0)
		return -1;
	p = &e->parts[e->nparts];
	memset(p, 0, sizeof *p);
	p->type = type;
	data = find_key(rec, "data", 4);
	json = find_key(rec, "json", 4);
	if (data != NULL && ((type == WTF_PART_STRING_TABLE && e->str_part < 0) ||
	    (type == WTF_PART_BINARY_EVENTS && e->ev_part < 0)))
		return tr_fail(e->r, rec, data, "the first %s of a chunk is "
		    "made from the records", type == WTF_PART_STRING_TABLE ?
		    "string table" : "event buffer");
	if (data != NULL || (json != NULL && type == WTF_PART_FILE_HEADER)) {
		p->kind = P_DATA;
		if (pbuf_field(e, rec, data ? data : json, &p->off, &p->len) < 0)
			return -1;
		if (type == WTF_PART_FILE_HEADER)
			e->tb_ns = wtf_json_timebase_ns(
			    (const char *)e->pbuf.b + p->off, p->len);
	} else if ((type == WTF_PART_STRING_TABLE && e->str_part >= 0) ||
	    (type == WTF_PART_BINARY_EVENTS && e->ev_part >= 0)) {
		return tr_fail(e->r, rec, NULL, "wtf-part without its data= "
		    "(or json= for a file header)");
	} else if (type == WTF_PART_STRING_TABLE) {
		const struct tr_field *u = find_key(rec, "unique", 6);
		int uv = 0;
		if (u != NULL && tr_bool(e->r, rec, u, &uv) < 0)
			return -1;
		p->kind = P_STRINGS;
		e->str_part = (int)e->nparts;
		e->unique = uv;
	} else if (type == WTF_PART_BINARY_EVENTS) {
		p->kind = P_EVENTS;
		e->ev_part = (int)e->nparts;
	} else {
		return tr_fail(e->r, rec, NULL, "wtf-part without its data= "
		    "(or json= for a file header)");
	}
	if ((pad = find_key(rec, "pad", 3)) != NULL) {
		if (pbuf_field(e, rec, pad, &p->padoff, &p->padlen) < 0)
			return -1;
		p->has_pad = 1;
	}
	e->nparts++;
	return 0;
}
