/*
 * Web Tracing Framework traces: the encoder.
 *
 * Legacy records are written as they come; a chunk is held until it is
 * complete (wtf-enc-chunk.c), because it starts with its length and part
 * table.  An event the stream never defined gets a definition made up
 * (wtf-infer.c) before its first use.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "formats/wtf/wtf-private.h"
#include "text/json.h"

/* ---------------------------------------------------------------- encoder */

/* Type names for messages, by enum wtf_type. */
static const char *const canon_type[] = {
	"bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
	"float32", "ascii", "utf8", "char", "wchar", "any", "flowId", "time32"
};

/*
 * The next UTF-16 unit(s) of bytes as the decoder writes them (put_units
 * in wtf-dec.c, surrogate pairs joined): returns the bytes used and sets
 * u[0] (and u[1] for a 4-byte sequence, *nu = 2); 0 when the bytes are
 * no such sequence.
 */
static size_t
get_units(const unsigned char *p, size_t n, unsigned u[2], int *nu)
{
	*nu = 1;
	if (p[0] < 0x80) {
		u[0] = p[0];
		return 1;
	}
	if (p[0] >= 0xc0 && p[0] < 0xe0 && n >= 2 && (p[1] & 0xc0) == 0x80) {
		u[0] = (p[0] & 0x1fu) << 6 | (p[1] & 0x3fu);
		return 2;
	}
	if (p[0] >= 0xe0 && p[0] < 0xf0 && n >= 3 && (p[1] & 0xc0) == 0x80 &&
	    (p[2] & 0xc0) == 0x80) {
		u[0] = (p[0] & 0x0fu) << 12 | (p[1] & 0x3fu) << 6 | (p[2] & 0x3fu);
		return 3;
	}
	if (p[0] >= 0xf0 && p[0] < 0xf5 && n >= 4 && (p[1] & 0xc0) == 0x80 &&
	    (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80) {
		unsigned c = (p[0] & 0x07u) << 18 | (p[1] & 0x3fu) << 12 |
		    (p[2] & 0x3fu) << 6 | (p[3] & 0x3fu);
		if (c < 0x10000 || c > 0x10ffff)
			return 0;
		c -= 0x10000;
		u[0] = 0xd800 | c >> 10;
		u[1] = 0xdc00 | (c & 0x3ff);
		*nu = 2;
		return 4;
	}
	return 0;
}

static uint32_t
f64_to_f32_bits(double v)
{
	uint64_t b = tp_f64_bits(v);

	if (isnan(v)) {
		uint32_t m = (uint32_t)((b >> 29) & 0x7fffffu);
		return (uint32_t)(b >> 63) << 31 | 0x7f800000u |
		    (m ? m : 0x400000u);
	}
	return tp_f32_bits((float)v);
}

/* Skip a record a trace cannot hold: 0, or -1 (--strict). */
static int
enc_skip(struct enc *e, const struct tr_rec *rec, const char *why)
{
	return tr_skip(e->r, rec, &e->st->skipped, "%s", why);
}

/* The first '.' of a key, or NULL (as key_eq: no call of memchr). */
static inline const char *
key_dot(const char *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (k[i] == '.')
			return k + i;
	return NULL;
}

/* "KEY.what" of an argument, when the record has such fields. */
#define find_extra(e, rec, a, what) ((e)->extras ? \
	find_key_parts(rec, (a)->key, (a)->keylen, what, sizeof what - 1) : NULL)

static const struct tr_field *
find_key_parts(const struct tr_rec *rec, const char *key, size_t n,
    const char *what, size_t wn)
{
	for (size_t i = 0; i < rec->nf; i++)
		if (rec->f[i].keylen == n + wn &&
		    memcmp(rec->f[i].key, key, n) == 0 &&
		    memcmp(rec->f[i].key + n, what, wn) == 0)
			return &rec->f[i];
	return NULL;
}

/* A string field, unescaped into e->sbuf: 0, 1 for null, -1. */
static int
get_str(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    const unsigned char **s, size_t *n)
{
	if (tr_is_null(f)) {
		*s = NULL;
		*n = 0;
		return 1;
	}
	if (buf_reserve(&e->sbuf, f->vallen + 1) < 0)
		return enc_nomem(e);
	if (f->vallen == 2 && f->val[0] == '"') {
		*s = e->sbuf.b;
		*n = 0;
		return 0;
	}
	if (tr_str(e->r, rec, f, e->sbuf.b, e->sbuf.cap, n) < 0)
		return -1;
	*s = e->sbuf.b;
	return 0;
}

/* The most recent live definition of a name, or NULL. */
static struct wtf_def *
deftab_name(const struct deftab *t, const char *name, size_t n)
{
	struct wtf_def *e;

	uint32_t h = name_hash(name, n);

	for (e = t->bucket[h % NAME_BUCKETS]; e; e = e->next)
		if (e->hash == h && e->latest && e->namelen == n &&
		    key_eq(e->name, name, n))
			return e;
	return NULL;
}

/* -------------------------------------------------------- string table */

static int
tab_rehash(struct enc *e, size_t k)
{
	uint32_t *h = calloc(k, sizeof *h);

	if (h == NULL)
		return -1;
	for (uint32_t i = 0; i < e->nstr; i++) {
		const unsigned char *s = e->tab.b + e->soff[i];
		size_t j = name_hash(s, strlen((const char *)s)) & (k - 1);
		while (h[j] != 0)
			j = (j + 1) & (k - 1);
		h[j] = i + 1;
	}
	free(e->hash);
	e->hash = h;
	e->hcap = k;
	return 0;
}

/* The ordinal of a string in the chunk's table (added at first use). */
static int
tab_add(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    const unsigned char *s, size_t n, uint32_t *ord)
{
	size_t j = 0;

	if (s == NULL) {
		*ord = 0xffffffffu;
		return 0;
	}
	if (n == 0) {
		*ord = 0xfffffffeu;
		return 0;
	}
	if (memchr(s, 0, n) != NULL)
		return tr_fail(e->r, rec, f, "a NUL byte cannot be stored in a "
		    "string table");
	if (e->unique) {
		if (2 * ((size_t)e->nstr + 1) > e->hcap &&
		    tab_rehash(e, e->hcap ? 2 * e->hcap : 1024) < 0)
			return enc_nomem(e);
		j = name_hash(s, n) & (e->hcap - 1);
		while (e->hash[j] != 0) {
			uint32_t o = e->hash[j] - 1;
			const unsigned char *t = e->tab.b + e->soff[o];
			/* A shorter string may end the table: compare only
			   what is there. */
			if (e->tab.len - e->soff[o] > n &&
			    memcmp(t, s, n) == 0 && t[n] == 0) {
				*ord = o;
				return 0;
			}
			j = (j + 1) & (e->hcap - 1);
		}
	}
	if (e->nstr == e->soffcap && tp_grow(&e->soff, &e->soffcap,
	    (size_t)e->nstr + 1, sizeof e->soff[0]) < 0)
		return enc_nomem(e);
	e->soff[e->nstr] = (uint32_t)e->tab.len;
	if (buf_add(&e->tab, s, n) < 0 || buf_add(&e->tab, "", 1) < 0)
		return enc_nomem(e);
	if (e->unique)
		e->hash[j] = e->nstr + 1;
	*ord = e->nstr++;
	return 0;
}

/* A chunk with an event buffer to append records to. */
int
wtf_event_chunk(struct enc *e, const struct tr_rec *rec)
{
	if (e->version == 0 && wtf_auto_header(e, rec) < 0)
		return -1;
	if (e->version == WTF_LEGACY_VERSION)
		return 0;
	if (e->in_chunk && e->ev_part >= 0 &&
	    !(e->auto_chunk && e->ev.len >= WTF_ENC_CHUNK))
		return 0;
	if (wtf_chunk_flush(e) < 0)
		return -1;
	wtf_chunk_start(e, e->max_cid + 1, WTF_CHUNK_EVENT_DATA);
	e->auto_chunk = 1;
	e->parts[0].type = WTF_PART_STRING_TABLE;
	e->parts[0].kind = P_STRINGS;
	e->parts[1].type = WTF_PART_BINARY_EVENTS;
	e->parts[1].kind = P_EVENTS;
	e->str_part = 0;
	e->ev_part = 1;
	e->nparts = 2;
	return 0;
}

/* ------------------------------------------------------------- records */

static inline int
rec_add(struct enc *e, const void *p, size_t n)
{
	return buf_add(&e->rec, p, n) < 0 ? enc_nomem(e) : 0;
}

static int
rec_u16(struct enc *e, uint32_t v)
{
	unsigned char b[2];
	tp_put_be16(b, (uint16_t)v);
	return rec_add(e, b, 2);
}

static inline int
rec_u32(struct enc *e, uint32_t v)
{
	unsigned char b[4];
	if (e->version == WTF_LEGACY_VERSION)
		tp_put_be32(b, v);
	else
		tp_put_le32(b, v);
	return rec_add(e, b, 4);
}

/* The record head: wire id and time. */
int
wtf_rec_head(struct enc *e, uint32_t wire, uint32_t time)
{
	e->rec.len = 0;
	if (e->version == WTF_LEGACY_VERSION) {
		if (rec_u16(e, wire) < 0)
			return -1;
	} else if (rec_u32(e, wire) < 0) {
		return -1;
	}
	return rec_u32(e, time);
}

/* The finished record into the trace. */
int
wtf_rec_emit(struct enc *e)
{
	e->st->events++;
	if (e->version == WTF_LEGACY_VERSION) {
		tp_out_write(e->out, e->rec.b, e->rec.len);
		return 0;
	}
	return buf_add(&e->ev, e->rec.b, e->rec.len) < 0 ? enc_nomem(e) : 0;
}

/* A legacy ascii string, or a CFF string slot. */
int
wtf_rec_string(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    int type, const unsigned char *s, size_t n, const struct tr_field *chars)
{
	if (e->version != WTF_LEGACY_VERSION) {
		uint32_t ord = 0;
		if (tab_add(e, rec, f, s, n, &ord) < 0)
			return -1;
		return rec_u32(e, ord);
	}
	if (type == WT_ASCII) {
		if (n >= 0xffff)
			return tr_fail(e->r, rec, f, "longer than 65534 bytes");
		return rec_u16(e, (uint32_t)n) < 0 || rec_add(e, s, n) < 0 ? -1 : 0;
	} else {
		uint32_t c = s ? wtf_utf16_units(s, n) : 0;
		if (chars != NULL && get_u32(e, rec, chars, &c) < 0)
			return -1;
		if (c > 0xfffe || n > 0xffff)
			return tr_fail(e->r, rec, f, "longer than a legacy utf8 "
			    "string holds (65534 units, 65535 bytes)");
		if (c == 0) {
			if (n > 0)
				return tr_fail(e->r, rec, f, "a string of 0 "
				    "units is null and holds no bytes");
			return rec_u16(e, 0);
		}
		return rec_u16(e, c) < 0 || rec_u16(e, (uint32_t)n) < 0 ||
		    rec_add(e, s, n) < 0 ? -1 : 0;
	}
}

/* An integer value of a field within the type's range. */
static int
get_int(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    int type, uint32_t *raw)
{
	static const int64_t lo[] = { 0, -128, 0, -32768, 0, INT32_MIN, 0 };
	static const int64_t hi[] = { 255, 127, 255, 32767, 65535, INT32_MAX,
	    UINT32_MAX };
	int64_t v;
	uint64_t u;
	int t = type == WT_FLOWID || type == WT_TIME32 ? WT_UINT32 :
	    type == WT_CHAR ? WT_UINT8 : type == WT_WCHAR ? WT_UINT16 : type;

	if (type == WT_BOOL) {
		if (f->vallen == 4 && memcmp(f->val, "true", 4) == 0) {
			*raw = 1;
			return 0;
		}
		if (f->vallen == 5 && memcmp(f->val, "false", 5) == 0) {
			*raw = 0;
			return 0;
		}
	}
	if (tp_parse_i64(f->val, f->vallen, &v) < 0) {
		if (tp_parse_u64(f->val, f->vallen, &u) < 0 || t != WT_UINT32)
			return tr_fail(e->r, rec, f, "not an integer");
		v = INT64_MAX;
	}
	if (v < lo[t] || v > hi[t])
		return tr_fail(e->r, rec, f, "out of range for %s",
		    canon_type[type]);
	*raw = (uint32_t)v;
	return 0;
}

/* Slot padding from KEY.pad (CFF), exactly n bytes, else zeros. */
static int
get_pad(struct enc *e, const struct tr_rec *rec, const struct wtf_argdef *a,
    unsigned char *pad, size_t n, int *found)
{
	const struct tr_field *f = find_extra(e, rec, a, ".pad");
	size_t got;

	memset(pad, 0, n);
	if (f == NULL)
		return 0;
	(*found)++;
	if (e->version == WTF_LEGACY_VERSION)
		return tr_fail(e->r, rec, f, "a legacy trace has no padding");
	if (tr_bytes(e->r, rec, f, pad, n, &got) < 0)
		return -1;
	if (got != n)
		return tr_fail(e->r, rec, f, "the padding here is %zu bytes", n);
	return 0;
}

static int
get_float_bits(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f, uint32_t *bits)
{
	double v;

	if (tr_f64(e->r, rec, f, &v) < 0)
		return -1;
	*bits = f64_to_f32_bits(v);
	return 0;
}

static int
rec_elem(struct enc *e, int type, uint32_t raw)
{
	unsigned char b[4];
	unsigned sz = type_size[type];
	int be = e->version == WTF_LEGACY_VERSION;

	if (sz == 1)
		b[0] = (unsigned char)raw;
	else if (sz == 2)
		be ? tp_put_be16(b, (uint16_t)raw) : tp_put_le16(b, (uint16_t)raw);
	else if (type == WT_FLOAT32 || !be)
		tp_put_le32(b, raw);	/* legacy floats: native (LE) order */
	else
		tp_put_be32(b, raw);
	return rec_add(e, b, sz);
}

/* An array argument: count, elements, padding (CFF). */
static int
rec_array(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    const struct wtf_argdef *a, int *extras)
{
	int legacy = e->version == WTF_LEGACY_VERSION;
	size_t count_at, n = 0, bytes;
	unsigned char pad[4];

	if (f == NULL || tr_is_null(f)) {
		if (rec_u32(e, legacy ? 0 : 0xffffffffu) < 0)
			return -1;
		if (f != NULL && !legacy && find_extra(e, rec, a, ".pad") != NULL)
			return tr_fail(e->r, rec, f, "a null array has no padding");
		return 0;
	}
	count_at = e->rec.len;
	if (rec_u32(e, 0) < 0)
		return -1;
	if (a->type == WT_CHAR || a->type == WT_WCHAR) {
		const unsigned char *s;
		size_t len, i = 0;
		if (get_str(e, rec, f, &s, &len) < 0)
			return -1;
		if (a->type == WT_CHAR) {
			if (rec_add(e, s, len) < 0)
				return -1;
			n = len;
		}
		while (a->type == WT_WCHAR && i < len) {
			unsigned u[2];
			int nu;
			size_t k = get_units(s + i, len - i, u, &nu);
			if (k == 0)
				return tr_fail(e->r, rec, f, "not UTF-16 text");
			for (int j = 0; j < nu; j++, n++)
				if (rec_elem(e, WT_WCHAR, u[j]) < 0)
					return -1;
			i += k;
		}
	} else {
		const char *cur = f->val, *end = f->val + f->vallen, *v;
		size_t vl;
		if (f->vallen == 0 || f->val[0] != '[')
			return tr_fail(e->r, rec, f, "not a list");
		while (tr_elem(&cur, end, NULL, NULL, &v, &vl)) {
			struct tr_field ef = *f;
			uint32_t raw;
			ef.val = v;
			ef.vallen = (uint32_t)vl;
			if (a->type == WT_FLOAT32 ?
			    get_float_bits(e, rec, &ef, &raw) < 0 :
			    get_int(e, rec, &ef, a->type, &raw) < 0)
				return -1;
			if (rec_elem(e, a->type, raw) < 0)
				return -1;
			n++;
		}
	}
	if (n > UINT32_MAX - 1)
		return tr_fail(e->r, rec, f, "too many elements");
	if (legacy)
		tp_put_be32(e->rec.b + count_at, (uint32_t)n);
	else
		tp_put_le32(e->rec.b + count_at, (uint32_t)n);
	bytes = n * type_size[a->type];
	if (!legacy && bytes % 4 != 0) {
		if (get_pad(e, rec, a, pad, 4 - bytes % 4, extras) < 0 ||
		    rec_add(e, pad, 4 - bytes % 4) < 0)
			return -1;
	} else if (get_pad(e, rec, a, pad, 0, extras) < 0) {
		return -1;
	}
	return 0;
}

/*
 * Is an any argument's value JSON text already?  A string is, in the
 * stream's own definitions and in WTF's built-in events (as wtf2txt
 * writes them, their definitions filtered away) when it reads as JSON.
 */
static int
any_json(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    const struct wtf_def *def)
{
	const unsigned char *s;
	struct tp_json j;
	size_t n;

	if (f->val[0] != '"')
		return 0;
	if (!def->inferred)
		return 1;
	return (def->flags & WTF_FLAG_BUILTIN) &&
	    get_str(e, rec, f, &s, &n) == 0 &&
	    tp_json_check(&j, (const char *)s, n, 0) == 0;
}

/*
 * The arguments of an event from the record's fields; *matched counts the
 * fields used, *arg0 gets the first argument as an integer.
 */
int
wtf_rec_args(struct enc *e, const struct tr_rec *rec, const struct wtf_def *def,
    size_t *matched, int64_t *arg0)
{
	int legacy = e->version == WTF_LEGACY_VERSION;
	int extras = 0;
	size_t next = 0;	/* fields come in the arguments' order */

	*arg0 = 0;
	for (unsigned i = 0; i < def->nargs; i++) {
		const struct wtf_argdef *a = &def->arg[i];
		const struct tr_field *f;
		unsigned sz = type_size[a->type];
		unsigned char slot[4], pad[4];
		uint32_t raw = 0;

		/* the next field, past the event's own (tid, ts, ...) */
		for (f = NULL; next < rec->nf; next++) {
			const struct tr_field *g = &rec->f[next];
			if (g->keylen == a->keylen &&
			    key_eq(g->key, a->key, a->keylen)) {
				f = &rec->f[next++];
				break;
			}
			if (!reserved_key(g->key, g->keylen))
				break;
		}
		if (f == NULL)
			f = find_key(rec, a->key, a->keylen);
		if (f != NULL)
			(*matched)++;
		if (a->array) {
			if (rec_array(e, rec, f, a, &extras) < 0)
				return -1;
			continue;
		}
		if (type_string(a->type)) {
			const unsigned char *s = NULL;
			const struct tr_field *chars = NULL;
			size_t n = 0;
			if (f != NULL && a->type == WT_ANY && f->vallen > 0 &&
			    !tr_is_null(f) && !any_json(e, rec, f, def)) {
				e->json.len = 0;
				if (wtf_json_value(e, rec, f, &e->json) < 0)
					return e->err->status ? -1 : enc_nomem(e);
				s = e->json.b;
				n = e->json.len;
			} else if (f != NULL && get_str(e, rec, f, &s, &n) < 0) {
				return -1;
			}
			if (legacy && a->type != WT_ASCII &&
			    (chars = find_extra(e, rec, a, ".chars")) != NULL)
				extras++;
			if (wtf_rec_string(e, rec, f, a->type, s, n, chars) < 0)
				return -1;
			if (!legacy && get_pad(e, rec, a, pad, 0, &extras) < 0)
				return -1;
			continue;
		}
		if (f == NULL) {
			raw = 0;
		} else if (a->type == WT_FLOAT32) {
			if (get_float_bits(e, rec, f, &raw) < 0)
				return -1;
		} else if (a->type == WT_CHAR || a->type == WT_WCHAR) {
			const unsigned char *s;
			size_t n;
			unsigned u[2];
			int nu = 0;
			if (get_str(e, rec, f, &s, &n) != 0)
				return tr_fail(e->r, rec, f, "not a string");
			if (a->type == WT_CHAR && n == 1)
				raw = s[0];
			else if (a->type == WT_WCHAR && n > 0 &&
			    get_units(s, n, u, &nu) == n && nu == 1)
				raw = u[0];
			else
				return tr_fail(e->r, rec, f, "not one %s",
				    a->type == WT_CHAR ? "byte" :
				    "UTF-16 code unit");
		} else if (get_int(e, rec, f, a->type, &raw) < 0) {
			return -1;
		}
		if (i == 0)
			*arg0 = scalar_value(a->type, raw);
		if (legacy) {
			if (a->type == WT_FLOAT32) {
				tp_put_le32(slot, raw);
				if (rec_add(e, slot, 4) < 0)
					return -1;
			} else if (rec_elem(e, a->type, raw) < 0) {
				return -1;
			}
			continue;
		}
		tp_put_le32(slot, raw);
		if (sz != 0 && sz < 4 &&
		    get_pad(e, rec, a, slot + sz, 4 - sz, &extras) < 0)
			return -1;
		if (rec_add(e, slot, 4) < 0)
			return -1;
	}
	*matched += (size_t)extras;
	return 0;
}

/* ------------------------------------------------------------- defines */

/* Write a define record (wire 1) for def. */
int
wtf_emit_define(struct enc *e, const struct tr_rec *rec,
    const struct wtf_def *def, uint32_t time, const unsigned char pads[2][2])
{
	int legacy = e->version == WTF_LEGACY_VERSION;
	unsigned char slot[4];

	if (wtf_rec_head(e, WTF_WIRE_DEFINE, time) < 0)
		return -1;
	if (legacy) {
		if (rec_u16(e, def->wire) < 0 || rec_u16(e, def->cls) < 0 ||
		    rec_u32(e, def->flags) < 0 ||
		    wtf_rec_string(e, rec, NULL, WT_ASCII,
		    (const unsigned char *)def->name, def->namelen, NULL) < 0 ||
		    wtf_rec_string(e, rec, NULL, WT_ASCII,
		    (const unsigned char *)def->sig, def->siglen, NULL) < 0)
			return -1;
	} else {
		tp_put_le16(slot, (uint16_t)def->wire);
		memcpy(slot + 2, pads[0], 2);
		if (rec_add(e, slot, 4) < 0)
			return -1;
		tp_put_le16(slot, (uint16_t)def->cls);
		memcpy(slot + 2, pads[1], 2);
		if (rec_add(e, slot, 4) < 0 || rec_u32(e, def->flags) < 0 ||
		    wtf_rec_string(e, rec, NULL, WT_ASCII,
		    (const unsigned char *)def->name, def->namelen, NULL) < 0 ||
		    wtf_rec_string(e, rec, NULL, WT_ASCII,
		    (const unsigned char *)def->sig, def->siglen, NULL) < 0)
			return -1;
	}
	return wtf_rec_emit(e);
}

/* Enter a definition; fails as the decoder would on the same bytes. */
int
wtf_enc_enter(struct enc *e, const struct tr_rec *rec, struct wtf_def *def)
{
	if (def->wire == WTF_WIRE_DEFINE &&
	    !wtf_same_as_define(&e->defs, def)) {
		free(def);
		return tr_fail(e->r, rec, NULL, "wire id 1 (wtf.event#define) "
		    "redefined as another event type");
	}
	if (e->version == WTF_LEGACY_VERSION)
		for (unsigned i = 0; i < def->nargs; i++)
			if (def->arg[i].type == WT_CHAR ||
			    def->arg[i].type == WT_WCHAR) {
				free(def);
				return tr_fail(e->r, rec, NULL, "char and wchar "
				    "have no legacy encoding");
			}
	if (wtf_deftab_put(&e->defs, def) < 0)
		return enc_nomem(e);
	return 0;
}

/*
 * The time of a record: time=, else from ts= and the timebase; a ts out
 * of the timebase's reach is an error.
 */
static int
rec_time(struct enc *e, const struct tr_rec *rec, const struct tr_field *t,
    const struct tr_field *f, uint32_t *time)
{
	int64_t ts, d;

	*time = 0;
	if (t != NULL && get_u32(e, rec, t, time) < 0)
		return -1;
	if (f == NULL)
		return 0;
	if (tr_i64(e->r, rec, f, &ts) < 0)
		return -1;
	/* time= as stored, unless it is of another timebase (merged). */
	if (t != NULL && (uint64_t)ts == (uint64_t)e->tb_ns +
	    (uint64_t)*time * 1000)
		return 0;
	d = ts - e->tb_ns;
	d = d >= 0 ? d / 1000 : -((-d + 999) / 1000);
	if (d < 0 || d > UINT32_MAX)	/* never wrapped */
		return tr_fail(e->r, rec, f, "%lld us from the timebase "
		    "ts=%lld: one WTF timebase holds 2^32 us (71.6 minutes) "
		    "after it (merged traces: txtmerge --tag rebuilds them as "
		    "one trace when they fit)", (long long)d,
		    (long long)e->tb_ns);
	*time = (uint32_t)d;
	return 0;
}

int
wtf_do_define(struct enc *e, const struct tr_rec *rec)
{
	static const char *const keys[] = { "wire", "class", "flags", "name",
	    "args" };
	const struct tr_field *f[5];
	unsigned char pads[2][2] = { { 0, 0 }, { 0, 0 } };
	const unsigned char *s;
	const char *why = NULL;
	uint32_t v[3] = { 0, 0, 0 }, time;
	size_t namelen, siglen, matched = 5;
	char *name;
	int rc;
	struct wtf_def *def;
	int signull;

	if (wtf_event_chunk(e, rec) < 0)
		return -1;
	for (int i = 0; i < 5; i++)
		if ((f[i] = find_key(rec, keys[i], strlen(keys[i]))) == NULL)
			return tr_fail(e->r, rec, NULL, "wtf-define without "
			    "field \"%s\"", keys[i]);
	if (get_u32(e, rec, f[0], &v[0]) < 0)
		return -1;
	if (v[0] > WTF_MAX_WIRE)
		return tr_fail(e->r, rec, f[0], "wire ids have 16 bits");
	if (f[1]->vallen == 8 && memcmp(f[1]->val, "instance", 8) == 0)
		v[1] = 0;
	else if (f[1]->vallen == 5 && memcmp(f[1]->val, "scope", 5) == 0)
		v[1] = 1;
	else if (get_u32(e, rec, f[1], &v[1]) < 0)
		return -1;
	if (v[1] > 0xffff)
		return tr_fail(e->r, rec, f[1], "event classes have 16 bits");
	if (get_u32(e, rec, f[2], &v[2]) < 0 || (rc = rec_time(e, rec,
	    find_key(rec, "time", 4), find_key(rec, "ts", 2), &time)) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		const struct tr_field *p = find_key(rec, i ? "class.pad" :
		    "wire.pad", 8 + (i ? 1 : 0));
		size_t got;
		if (p == NULL)
			continue;
		matched++;
		if (e->version == WTF_LEGACY_VERSION)
			return tr_fail(e->r, rec, p, "a legacy trace has no "
			    "padding");
		if (tr_bytes(e->r, rec, p, pads[i], 2, &got) < 0)
			return -1;
		if (got != 2)
			return tr_fail(e->r, rec, p, "the padding here is 2 bytes");
	}
	if (get_str(e, rec, f[3], &s, &namelen) != 0 || namelen == 0)
		return tr_fail(e->r, rec, f[3], "a definition needs a name");
	if ((name = malloc(namelen)) == NULL)
		return enc_nomem(e);
	memcpy(name, s, namelen);
	signull = get_str(e, rec, f[4], &s, &siglen);
	if (signull < 0) {
		free(name);
		return -1;
	}
	def = wtf_def_new(v[0], v[1], v[2], name, namelen, (const char *)s,
	    siglen, signull, &why);
	free(name);
	if (def == NULL)
		return tr_fail(e->r, rec, f[4], "%s", why);
	if (wtf_enc_enter(e, rec, def) < 0)
		return -1;
	for (size_t i = 0; i < rec->nf; i++) {
		const struct tr_field *g = &rec->f[i];
		if ((g->keylen == 3 && memcmp(g->key, "tid", 3) == 0) ||
		    (g->keylen == 2 && memcmp(g->key, "ts", 2) == 0) ||
		    (g->keylen == 4 && memcmp(g->key, "time", 4) == 0))
			matched++;
	}
	if (matched != rec->nf)
		return tr_fail(e->r, rec, NULL, "wtf-define with a field it "
		    "does not have");
	return wtf_emit_define(e, rec, def, time, pads);
}

/*
 * A definition made up for an event the stream never defined
 * (wtf-infer.c), entered, its define record written.
 */
static struct wtf_def *
define_inferred(struct enc *e, const struct tr_rec *rec, const char *name,
    size_t namelen, uint32_t hint, uint32_t time)
{
	static const unsigned char nopad[2][2];
	struct wtf_def *def = wtf_infer_def(e, rec, name, namelen, hint);

	if (def == NULL || wtf_enc_enter(e, rec, def) < 0 ||
	    wtf_emit_define(e, rec, def, time, nopad) < 0)
		return NULL;
	e->st->inferred++;
	return def;
}

/*
 * Is every field of the record one the encoder reads for def?  *extras:
 * are there KEY.pad or KEY.chars fields?
 */
static int
fields_known(const struct tr_rec *rec, const struct wtf_def *def,
    int *extras)
{
	unsigned next = 0;	/* fields come in the arguments' order */

	*extras = 0;
	for (size_t i = 0; i < rec->nf; i++) {
		const struct tr_field *f = &rec->f[i];
		const char *dot;
		size_t kl = f->keylen;
		unsigned j;

		/* the next argument (no argument has a key reserved) */
		if (next < def->nargs && def->arg[next].keylen == kl &&
		    key_eq(def->arg[next].key, f->key, kl)) {
			next++;
			continue;
		}
		if (reserved_key(f->key, kl))
			continue;
		dot = key_dot(f->key, kl);
		if (dot != NULL && (size_t)(dot - f->key) == 3 &&
		    memcmp(f->key, "arg", 3) == 0 && !arg_extra(f->key, kl))
			dot = key_dot(dot + 1, kl - 4);
		if (dot != NULL) {
			size_t rest = kl - (size_t)(dot - f->key);
			if (!((rest == 4 && memcmp(dot, ".pad", 4) == 0) ||
			    (rest == 6 && memcmp(dot, ".chars", 6) == 0)))
				return 0;
			kl = (size_t)(dot - f->key);
			*extras = 1;
		}
		if (next < def->nargs && def->arg[next].keylen == kl &&
		    key_eq(def->arg[next].key, f->key, kl)) {
			next++;
			continue;
		}
		for (j = 0; j < def->nargs; j++)
			if (def->arg[j].keylen == kl &&
			    key_eq(def->arg[j].key, f->key, kl))
				break;
		if (j == def->nargs)
			return 0;
	}
	return 1;
}

/* ---------------------------------------------------------- the stream */

/* A zone record the stream lacks: zone#create or zone#set of zone. */
static int
emit_zone(struct enc *e, const struct tr_rec *rec, const char *name,
    uint32_t zone, uint32_t time)
{
	struct wtf_def *def = deftab_name(&e->defs, name, strlen(name));
	char label[32];

	if (def == NULL && (def = define_inferred(e, NULL, name, strlen(name), 0,
	    time)) == NULL)
		return -1;
	if (wtf_rec_head(e, def->wire, time) < 0)
		return -1;
	memcpy(label, "tid ", 4);
	*tp_fmt_u64(label + 4, zone) = '\0';
	for (unsigned i = 0; i < def->nargs; i++) {
		const struct wtf_argdef *a = &def->arg[i];
		const char *s = i == 1 ? label : i == 2 ? "script" : NULL;
		if (a->array) {
			if (rec_u32(e, e->version == WTF_LEGACY_VERSION ? 0 :
			    0xffffffffu) < 0)
				return -1;
		} else if (type_string(a->type)) {
			if (wtf_rec_string(e, rec, NULL, a->type,
			    (const unsigned char *)s, s ? strlen(s) : 0, NULL) < 0)
				return -1;
		} else if (e->version == WTF_LEGACY_VERSION &&
		    a->type != WT_FLOAT32) {
			if (rec_elem(e, a->type, i == 0 ? zone : 0) < 0)
				return -1;
		} else if (rec_u32(e, i == 0 ? zone : 0) < 0) {
			return -1;
		}
	}
	e->st->zones_added++;
	return wtf_rec_emit(e);
}

/* The fields of an event record's own, found in one pass. */
struct head {
	const struct tr_field *name, *wire, *tid, *time, *ts;
};

static void
head_fields(const struct tr_rec *rec, struct head *h)
{
	memset(h, 0, sizeof *h);
	for (size_t i = 0; i < rec->nf; i++) {
		const struct tr_field *f = &rec->f[i], **slot = NULL;
		switch (f->keylen) {
		case 2:
			if (key_eq(f->key, "ts", 2))
				slot = &h->ts;
			break;
		case 3:
			if (key_eq(f->key, "tid", 3))
				slot = &h->tid;
			break;
		case 4:
			slot = key_eq(f->key, "name", 4) ? &h->name :
			    key_eq(f->key, "time", 4) ? &h->time :
			    key_eq(f->key, "wire", 4) ? &h->wire : NULL;
			break;
		}
		if (slot != NULL && *slot == NULL)
			*slot = f;
	}
}

int
wtf_do_event(struct enc *e, const struct tr_rec *rec)
{
	struct head h;
	const struct tr_field *nf, *wf, *tf;
	const unsigned char *s;
	struct wtf_def *def = NULL;
	uint32_t time, wire = 0;
	size_t namelen, tablen;
	int64_t arg0, tid = 0;
	uint32_t nstr;
	char *name, why[100];
	int rc;

	head_fields(rec, &h);
	if ((nf = h.name) == NULL)
		return enc_skip(e, rec, "an event without a name");
	if (wtf_event_chunk(e, rec) < 0 ||
	    (rc = rec_time(e, rec, h.time, h.ts, &time)) < 0)
		return -1;
	if (get_str(e, rec, nf, &s, &namelen) != 0 || namelen == 0)
		return tr_fail(e->r, rec, nf, "not an event name");
	if ((wf = h.wire) != NULL) {
		if (get_u32(e, rec, wf, &wire) < 0)
			return -1;
		if ((def = def_at(&e->defs, wire)) != NULL &&
		    (def->namelen != namelen || memcmp(def->name, s, namelen)))
			def = NULL;
	} else {
		def = deftab_name(&e->defs, (const char *)s, namelen);
	}
	if ((tf = h.tid) != NULL) {
		if (tr_i64(e->r, rec, tf, &tid) < 0)
			return -1;
	}
	if (def == NULL) {
		if ((name = malloc(namelen)) == NULL)
			return enc_nomem(e);
		memcpy(name, s, namelen);
		def = define_inferred(e, rec, name, namelen, wire, time);
		free(name);
		if (def == NULL)
			return -1;
	}
	if (def->role == ROLE_DEFINE)
		return tr_fail(e->r, rec, nf, "definitions are wtf-define "
		    "records");
	if (!fields_known(rec, def, &e->extras))
		return enc_skip(e, rec, "an event with a field its definition "
		    "has no argument for");
	if (tf != NULL && def->role != ROLE_ZONE_SET &&
	    (!e->have_zone || tid != e->zone)) {
		/*
		 * A zone switch the stream does not have (lines dropped).  A
		 * zone the trace set itself may be wider (a legacy zone#set
		 * defined with a uint32 zoneId); one we must set cannot.
		 */
		if (tid < 0 || tid > WTF_MAX_WIRE)
			return enc_skip(e, rec, "a tid beyond the 16-bit zone ids");
		if (!(e->zones[tid / 8] & (1u << (tid % 8))) &&
		    emit_zone(e, rec, "wtf.zone#create", (uint32_t)tid, time) < 0)
			return -1;
		if (emit_zone(e, rec, "wtf.zone#set", (uint32_t)tid, time) < 0)
			return -1;
		e->zones[tid / 8] |= (unsigned char)(1u << (tid % 8));
		e->zone = tid;
		e->have_zone = 1;
	}
	nstr = e->nstr;
	tablen = e->tab.len;
	if (wtf_rec_head(e, def->wire, time) < 0)
		return -1;
	if (wtf_rec_args(e, rec, def, &namelen, &arg0) < 0) {
		/*
		 * The reader keeps the first definition of a name, so one made
		 * up from an earlier event cannot change: a value it cannot
		 * hold skips the record (its strings are taken back).
		 */
		if (!def->inferred || e->err->status != TP_EXIT_DATA)
			return -1;
		e->nstr = nstr;
		e->tab.len = tablen;
		if (e->unique && e->hcap > 0 && tab_rehash(e, e->hcap) < 0)
			return enc_nomem(e);
		snprintf(why, sizeof why, "a value its inferred definition "
		    "cannot hold: %.50s", e->err->msg);
		tp_err_clear(e->err);
		return enc_skip(e, rec, why);
	}
	if (def->role == ROLE_ZONE_SET) {
		e->zone = arg0;
		e->have_zone = 1;
	}
	if ((def->role == ROLE_ZONE_CREATE || def->role == ROLE_ZONE_SET) &&
	    arg0 >= 0 && arg0 <= WTF_MAX_WIRE)
		e->zones[arg0 / 8] |= (unsigned char)(1u << (arg0 % 8));
	return wtf_rec_emit(e);
}

/*
 * A header string field (legacy utf8) onto the held header; the string
 * itself into keep (nothing for null).
 */
static int
header_str(struct enc *e, const struct tr_rec *rec, const char *key,
    struct buf *keep)
{
	const struct tr_field *f = find_key(rec, key, strlen(key)), *c;
	const unsigned char *s = NULL;
	size_t n = 0;
	char ck[32];

	snprintf(ck, sizeof ck, "%s.chars", key);
	c = find_key(rec, ck, strlen(ck));
	if (f != NULL && get_str(e, rec, f, &s, &n) < 0)
		return -1;
	keep->len = 0;
	if (s != NULL && buf_add(keep, s, n) < 0)
		return enc_nomem(e);
	e->rec.len = 0;
	if (wtf_rec_string(e, rec, f, WT_UTF8, s, n, c) < 0)
		return -1;
	return buf_add(&e->lhead, e->rec.b, e->rec.len) < 0 ? enc_nomem(e) : 0;
}

int
wtf_do_header(struct enc *e, const struct tr_rec *rec)
{
	uint32_t version = 0, build = WTF_DEFAULT_BUILD, flags = 1;
	const struct tr_field *f;
	unsigned char b[12];
	int64_t tb = 0;

	if (e->version != 0 || e->legacy_held) {
		/*
		 * Traces merged (txtmerge): the first header's timebase holds,
		 * times come from ts=, the encoder cuts the chunks.
		 */
		e->merged = 1;
		return tr_lose(e->r, rec, &e->st->skipped, "traces merged "
		    "without input= (txtmerge --tag): their zones of equal "
		    "ids and events of equal names fused", "a second wtf-header");
	}
	if ((f = find_key(rec, "version", 7)) == NULL)
		return tr_fail(e->r, rec, NULL, "wtf-header without field "
		    "\"version\"");
	if (get_u32(e, rec, f, &version) < 0 || opt_u32(e, rec, "build",
	    &build) < 0 || opt_u32(e, rec, "flags", &flags) < 0)
		return -1;
	if (version != WTF_LEGACY_VERSION && version != WTF_CFF_VERSION)
		return tr_fail(e->r, rec, f, "versions 3 (legacy) and 10 "
		    "(chunked) are written");
	if ((f = find_key(rec, "timebase", 8)) != NULL &&
	    tr_i64(e->r, rec, f, &tb) < 0)
		return -1;
	if (version == WTF_CFF_VERSION) {
		e->version = (int)version;
		e->st->version = (int)version;
		tp_put_le32(b, WTF_MAGIC);
		tp_put_le32(b + 4, build);
		tp_put_le32(b + 8, version);
		tp_out_write(e->out, b, 12);
		return 0;
	}
	e->version = (int)version;	/* for the header's strings */
	e->st->version = (int)version;
	e->legacy_held = 1;
	e->lhead.len = 0;
	tp_put_be32(b, WTF_MAGIC);
	tp_put_be32(b + 4, build);
	tp_put_be32(b + 8, version);
	if (buf_add(&e->lhead, b, 12) < 0)
		return enc_nomem(e);
	if (header_str(e, rec, "context", &e->lctx) < 0)
		return -1;
	tp_put_be32(b, flags);
	tp_put_be32(b + 4, (uint32_t)tb);
	tp_put_be32(b + 8, (uint32_t)((uint64_t)tb >> 32));
	if (buf_add(&e->lhead, b, 12) < 0)
		return enc_nomem(e);
	e->lflags = flags;
	e->ltb = tb;
	return header_str(e, rec, "metadata", &e->lmeta);
}

/*
 * The held legacy header, now that the next record (or the end) says
 * which generation the trace is: legacy, or chunked for an event.
 */
int
wtf_legacy_release(struct enc *e, const struct tr_rec *rec)
{
	e->legacy_held = 0;
	if (rec != NULL && tr_is(rec, "event"))
		return wtf_cff_header(e, (int64_t)((uint64_t)e->ltb * 1000000u),
		    e->lflags, &e->lctx, &e->lmeta);
	e->tb_ns = (int64_t)((uint64_t)e->ltb * 1000000u);
	tp_out_write(e->out, e->lhead.b, e->lhead.len);
	return 0;
}
