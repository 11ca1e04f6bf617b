/*
 * Web Tracing Framework traces: the decoder, both generations.
 *
 * Legacy records are read straight out of the input buffer; a chunk of
 * the chunked format is read whole (its string table may sit anywhere in
 * it) and its event buffer walked slot by slot.  A record's text is
 * written into room the output reserves at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "base/fpconv.h"
#include "base/utf8.h"
#include "formats/probe.h"
#include "formats/wtf/wtf-private.h"

/* -------------------------------------------------------------- scopes */

/*
 * Open scopes, innermost last, of every zone: a scope event carries
 * scope=N (N-th scope of the trace) and the wtf.scope#leave that closes
 * it in the same zone carries the same N.
 */
#define SCOPE_MAX 65536

struct scopes {
	struct { int64_t zone; uint64_t id; } *s;
	size_t n, cap;		/* n grows to SCOPE_MAX as scopes nest */
	uint64_t count;
};

static __attribute__((noinline)) uint64_t
scope_enter(struct scopes *sc, int64_t zone)
{
	uint64_t id = ++sc->count;

	if (sc->n == sc->cap && sc->n < SCOPE_MAX &&
	    tp_grow(&sc->s, &sc->cap, sc->n + 1, sizeof sc->s[0]) < 0)
		return id;
	if (sc->n == SCOPE_MAX) {
		/* The outermost scope is forgotten: its leave goes unnamed. */
		memmove(sc->s, sc->s + 1, (SCOPE_MAX - 1) * sizeof sc->s[0]);
		sc->n--;
	}
	sc->s[sc->n].zone = zone;
	sc->s[sc->n].id = id;
	sc->n++;
	return id;
}

/* The scope a leave in zone closes, or 0 when none is open. */
static __attribute__((noinline)) uint64_t
scope_leave(struct scopes *sc, int64_t zone)
{
	size_t i = sc->n;

	while (i > 0) {
		i--;
		if (sc->s[i].zone == zone) {
			uint64_t id = sc->s[i].id;
			memmove(sc->s + i, sc->s + i + 1,
			    (sc->n - i - 1) * sizeof sc->s[0]);
			sc->n--;
			return id;
		}
	}
	return 0;
}

/*
 * A float32 as a double without the FPU, so that a signalling NaN keeps
 * its payload (the text writer prints a NaN's double bits).
 */
static double
f32_to_f64(uint32_t b)
{
	if ((b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu) != 0)
		return tp_f64_from_bits((uint64_t)(b >> 31) << 63 |
		    UINT64_C(0x7ff) << 52 | (uint64_t)(b & 0x7fffffu) << 29);
	return (double)tp_f32_from_bits(b);
}

/* ---------------------------------------------------------------- decoder */

/* A string table entry's qlen when it is longer than QSTR_INLINE: quoted
   at each use. */
#define QLEN_NONE UINT32_MAX

/*
 * The leading digits of the last number written in a column (ts, time):
 * consecutive records share them.  hi 0: nothing kept.
 */
struct lead {
	uint64_t hi;
	size_t len;
	char text[32];
};

struct dec {
	struct tp_in *in;
	struct tp_out *out;
	struct tp_err *err;
	struct wtf_dec_stats *st;
	int legacy;
	struct deftab defs;
	int64_t tb_ns;		/* timebase in nanoseconds (set_timebase) */
	uint64_t tb_us;		/* its microseconds, when a ts is written as */
	uint32_t tb_ns3;	/* tb_us + time and these 3 digits; else 0 */
	int have_zone;
	int64_t zone;
	char evhead[48];	/* "event tid=ZONE ts=" (or "event ts="), */
	size_t evheadlen;	/* copied in one move: see put_event_head */
	struct lead ts_lead, time_lead;
	uint32_t last_time;
	struct scopes scopes;
	uint64_t rec_index;
	/* chunked format */
	unsigned char *chunk;
	size_t chunkcap;
	uint64_t chunk_off;	/* input offset of the chunk */
	uint64_t part_off;	/* input offset of the event buffer */
	struct wtf_strtab strs;
	unsigned char *qtext;	/* the quoted strings of strs */
	size_t qtextcap;
	unsigned char *scratch;
	size_t scratchcap;
	struct buf anyout, anychk, anytmp;	/* wtf_any_text's */
};

static int
dec_nomem(struct dec *d)
{
	return tp_fail(d->err, TP_EXIT_FAIL, "out of memory");
}

/*
 * Room for one argument besides its key: a string of up to QSTR_INLINE
 * bytes quoted, or 64 numbers and their commas (an array renews it every
 * 64 elements; a longer string and the extra fields, ".pad=" and
 * ".chars=", reserve their own).
 */
#define NUM_ROOM TP_F64_TEXT_MAX
#define QSTR_INLINE 64
#define ARG_ROOM (64 * (NUM_ROOM + 1) + 256)

/* Everything up to p is written; room for n bytes more at the result. */
static inline char *
room(struct dec *d, char *p, size_t n)
{
	tp_out_commit(d->out, p);
	return tp_out_reserve(d->out, n);
}

/* A string value, quoted unless bare is allowed (ARG_ROOM after it). */
static char *
put_str(struct dec *d, char *p, const void *s, size_t n, int bare)
{
	tp_out_commit(d->out, p);
	if (bare)
		tv_str(d->out, s, n);
	else
		tv_qstr(d->out, s, n);
	return tp_out_reserve(d->out, ARG_ROOM);
}

/* A string value, quoted: in place when short (ARG_ROOM at p). */
static inline char *
put_qstr(struct dec *d, char *p, const void *s, size_t n)
{
	if (n > QSTR_INLINE)
		return put_str(d, p, s, n, 0);
	return fmt_qstr(p, s, n);
}

static inline char *
put_lit(char *p, const char *s)
{
	size_t n = strlen(s);
	memcpy(p, s, n);
	return p + n;
}

static inline char *
put_piece(char *p, const char *piece, size_t n)
{
	if (n <= FIELD_COPY)
		memcpy(p, piece, FIELD_COPY);
	else
		memcpy(p, piece, n);
	return p + n;
}

/* " key=" of an argument. */
static inline char *
put_field(char *p, const struct wtf_argdef *a)
{
	return put_piece(p, a->field, a->keylen + 2u);
}

/* Extra field "KEY.what=" for an argument (its value: 32 bytes or less). */
static char *
put_extra_key(struct dec *d, char *p, const struct wtf_argdef *a,
    const char *what)
{
	p = room(d, p, a->keylen + 64u);
	*p++ = ' ';
	memcpy(p, a->key, a->keylen);
	p += a->keylen;
	return put_lit(p, what);
}

static char *
put_pad(struct dec *d, char *p, const struct wtf_argdef *a,
    const unsigned char *b, size_t n)
{
	p = put_extra_key(d, p, a, ".pad=");
	return tp_fmt_hexbytes(p, b, n);
}

static int
nonzero(const unsigned char *b, size_t n)
{
	while (n-- > 0)
		if (*b++ != 0)
			return 1;
	return 0;
}

/* The kind and tid of a record, "KIND tid=ZONE ts=" (48 bytes of room). */
static size_t
fmt_kind(const struct dec *d, char *buf, const char *kind)
{
	char *p = put_lit(buf, kind);

	if (d->have_zone)
		p = tp_fmt_i64_wide(put_lit(p, " tid="), d->zone);
	return (size_t)(put_lit(p, " ts=") - buf);
}

/* New leading digits (out of line: once in many records). */
static __attribute__((noinline)) void
lead_set(struct lead *l, uint64_t hi)
{
	l->hi = hi;
	l->len = (size_t)(tp_fmt_u64(l->text, hi) - l->text);
}

/*
 * v in decimal (20 bytes of room at p) as its leading digits, kept in l
 * from the last call when they are the same, and its last 4 digits.
 */
static inline __attribute__((always_inline)) char *
put_lead(struct lead *l, char *p, uint64_t v)
{
	uint64_t hi = v / 10000;
	uint32_t lo = (uint32_t)(v % 10000);

	if (hi == 0)
		return tp_fmt_u64(p, v);
	if (hi != l->hi)
		lead_set(l, hi);
	memcpy(p, l->text, 16);
	p += l->len;
	tp_put_le32(p, tp_digits4[lo]);
	return p + 4;
}

/*
 * The timebase, and how a ts is written: timebase plus microseconds is
 * the microseconds tb_us + time followed by the timebase's last 3 digits
 * of nanoseconds, when the timebase is not negative and no sum overflows.
 */
static void
set_timebase(struct dec *d, int64_t ns)
{
	d->tb_ns = ns;
	d->tb_ns3 = 0;
	if (ns >= 0 && ns <= INT64_MAX - (int64_t)UINT32_MAX * 1000) {
		d->tb_us = (uint64_t)ns / 1000;
		d->tb_ns3 = (uint32_t)(tp_digits8((uint32_t)(ns % 1000)) >> 40);
	}
}

/* The rest of a record's start after fmt_kind: ts, time (50 bytes). */
static inline char *
put_ts_time(struct dec *d, char *p, uint32_t time)
{
	uint64_t us = d->tb_us + time;

	if (d->tb_ns3 != 0 && us != 0) {
		p = put_lead(&d->ts_lead, p, us);
		tp_put_le32(p, d->tb_ns3);
		p += 3;
	} else {
		p = tp_fmt_i64(p, (int64_t)((uint64_t)d->tb_ns +
		    (uint64_t)time * 1000));
	}
	memcpy(p, " time=", 6);
	return put_lead(&d->time_lead, p + 6, time);
}

/* The start of a record: kind, tid, ts, time. */
static char *
put_head(struct dec *d, char *p, const char *kind, uint32_t time)
{
	char buf[48];
	size_t n = fmt_kind(d, buf, kind);

	memcpy(p, buf, n);
	return put_ts_time(d, p + n, time);
}

/*
 * A numeric value (not a string, not an array element list), with
 * NUM_ROOM bytes of room at p.
 */
static inline char *
put_number(char *p, int type, uint32_t raw)
{
	switch (type) {	/* as scalar_value reads them */
	case WT_BOOL:
		if ((raw & 0xff) <= 1) {
			memcpy(p, (raw & 0xff) ? "true\0\0\0\0" : "false\0\0\0", 8);
			return p + 5 - (raw & 1);
		}
		return tp_fmt_u64_wide(p, raw & 0xff);
	case WT_FLOAT32: return tp_fmt_f64(p, f32_to_f64(raw));
	case WT_INT8: return tp_fmt_i64_wide(p, (int8_t)raw);
	case WT_INT16: return tp_fmt_i64_wide(p, (int16_t)raw);
	case WT_INT32:
		*p = '-';
		return tp_fmt_u32_wide(p + (raw >> 31), (int32_t)raw < 0 ?
		    0 - raw : raw);
	case WT_UINT8: case WT_CHAR: return tp_fmt_u64_wide(p, (uint8_t)raw);
	case WT_UINT16: case WT_WCHAR: return tp_fmt_u64_wide(p, (uint16_t)raw);
	default: return tp_fmt_u32_wide(p, raw);
	}
}

/* Elements of a numeric array: [v,v,...] (ARG_ROOM at p, and after). */
static char *
put_array(struct dec *d, char *p, int type, const unsigned char *b,
    uint32_t count, int be)
{
	unsigned sz = type_size[type];

	*p++ = '[';
	for (uint32_t i = 0; i < count; i++, b += sz) {
		uint32_t raw = sz == 1 ? b[0] : sz == 2 ?
		    (be ? tp_get_be16(b) : tp_get_le16(b)) :
		    /* legacy floats are in the writer's native order: LE */
		    (be && type != WT_FLOAT32 ? tp_get_be32(b) : tp_get_le32(b));
		if (i > 0)
			*p++ = ',';
		p = put_number(p, type, raw);
		if ((i & 63) == 63)
			p = room(d, p, ARG_ROOM);
	}
	*p++ = ']';
	return p;
}

/* UTF-16 units as UTF-8 text (surrogate pairs joined), quoted. */
static char *
put_units(struct dec *d, char *p, const unsigned char *b, uint32_t count)
{
	size_t n = 0;

	if (tp_grow(&d->scratch, &d->scratchcap, (size_t)count * 3 + 4, 1) < 0)
		return NULL;
	for (uint32_t i = 0; i < count; i++) {
		unsigned u = tp_get_le16(b + 2 * i);
		if (u >= 0xd800 && u < 0xdc00 && i + 1 < count) {
			unsigned v = tp_get_le16(b + 2 * i + 2);
			if (v >= 0xdc00 && v < 0xe000) {
				n += tp_utf8_put(d->scratch + n, 0x10000 +
				    ((u - 0xd800) << 10) + (v - 0xdc00));
				i++;
				continue;
			}
		}
		/* a lone surrogate as its 3 bytes, as the writer has it */
		n += tp_utf8_put(d->scratch + n, u);
	}
	return put_str(d, p, d->scratch, n, 0);
}

static const char *
class_name(uint32_t cls)
{
	return cls == 0 ? "instance" : cls == 1 ? "scope" : NULL;
}

/* Enter a definition read from the trace; the record is written after. */
static int
dec_define(struct dec *d, const struct wtf_defrec *r, uint64_t off)
{
	struct wtf_def *def;

	def = wtf_define_make(&d->defs, r, d->legacy, off, d->rec_index - 1,
	    d->err);
	if (def == NULL)
		return -1;
	if (def_at(&d->defs, r->wire) != NULL && r->wire != WTF_WIRE_DEFINE)
		d->st->redefined++;
	if (wtf_deftab_put(&d->defs, def) < 0)
		return dec_nomem(d);
	d->st->defines++;
	return 0;
}

static void
put_define(struct dec *d, const struct wtf_defrec *r, uint32_t time)
{
	const char *cn = class_name(r->cls);
	char *p = tp_out_reserve(d->out, 256);

	p = put_head(d, p, "wtf-define", time);
	p = put_lit(p, " wire=");
	p = tp_fmt_u64(p, r->wire);
	p = put_lit(p, " class=");
	p = cn ? put_lit(p, cn) : tp_fmt_u64(p, r->cls);
	p = put_lit(p, " flags=");
	p = tp_fmt_hex(p, r->flags);
	if (r->pad[0] && nonzero(r->pad[0], 2)) {
		p = put_lit(p, " wire.pad=");
		p = tp_fmt_hexbytes(p, r->pad[0], 2);
	}
	if (r->pad[1] && nonzero(r->pad[1], 2)) {
		p = put_lit(p, " class.pad=");
		p = tp_fmt_hexbytes(p, r->pad[1], 2);
	}
	p = put_str(d, put_lit(p, " name="), r->name, r->namelen, 1);
	if (r->sig_null)
		p = put_lit(p, " args=null");
	else
		p = put_str(d, put_lit(p, " args="), r->sig, r->siglen, 0);
	*p++ = '\n';
	tp_out_commit(d->out, p);
}

/* Zone, scope and time bookkeeping of a record; returns its scope id. */
static inline uint64_t
dec_track(struct dec *d, const struct wtf_def *def, uint32_t time,
    int64_t zone_arg)
{
	uint64_t scope = 0;

	d->rec_index++;
	d->st->records++;
	if (time < d->last_time)
		d->st->backwards++;
	d->last_time = time;
	if (def->role == ROLE_ZONE_SET) {
		d->zone = zone_arg;
		d->have_zone = 1;
		d->evheadlen = fmt_kind(d, d->evhead, "event");
	}
	if (def->cls == WTF_CLASS_SCOPE)
		scope = scope_enter(&d->scopes, d->have_zone ? d->zone : -1);
	else if (def->role == ROLE_SCOPE_LEAVE)
		scope = scope_leave(&d->scopes, d->have_zone ? d->zone : -1);
	return scope;
}

/* An event record up to its arguments (room for a record without any). */
static char *
put_event_head(struct dec *d, const struct wtf_def *def, uint32_t time,
    uint64_t scope)
{
	char *p = tp_out_reserve(d->out, 256 + def->namefieldlen);

	memcpy(p, d->evhead, sizeof d->evhead);
	p = put_ts_time(d, p + d->evheadlen, time);
	p = put_piece(p, def->namefield, def->namefieldlen);
	if (!def->latest) {
		p = put_lit(p, " wire=");
		p = tp_fmt_u64_wide(p, def->wire);
	}
	if (scope != 0) {
		p = put_lit(p, " scope=");
		p = tp_fmt_u64_wide(p, scope);
	}
	return p;
}

/* ------------------------------------------------------ legacy records */

/*
 * Bytes of a legacy record's arguments at b[0..n): the size, -2 when more
 * bytes are needed, -1 with *why on a value no reader accepts.
 */
static inline long
legacy_args_size(const struct wtf_def *def, const unsigned char *b, size_t n,
    const char **why)
{
	uint64_t pos = 0;

	for (unsigned i = 0; i < def->nargs; i++) {
		const struct wtf_argdef *a = &def->arg[i];
		if (a->array) {
			if (pos + 4 > n)
				return -2;
			pos += 4 + (uint64_t)tp_get_be32(b + pos) *
			    type_size[a->type];
		} else if (type_string(a->type)) {
			uint32_t c;
			if (pos + 2 > n)
				return -2;
			c = tp_get_be16(b + pos);
			if (c == 0xffff) {
				*why = "string-table reference (count 0xffff): "
				    "no legacy writer has a string table";
				return -1;
			}
			if (a->type == WT_ASCII)
				pos += 2 + c;
			else if (c == 0)
				pos += 2;
			else if (pos + 4 > n)
				return -2;
			else
				pos += 4 + tp_get_be16(b + pos + 2);
		} else {
			pos += type_size[a->type];
		}
		if (pos > n)
			return -2;
	}
	return (long)pos;
}

/* legacy_args_size for the splitter (wtf-split.c), which sizes records too. */
long
wtf_legacy_args_size(const struct wtf_def *def, const unsigned char *b,
    size_t n, const char **why)
{
	return legacy_args_size(def, b, n, why);
}

/*
 * A legacy any argument: as cff_put_any, when its count of UTF-16 units
 * is that of its bytes (else ".chars=" follows the string).  Kept out of
 * legacy_put_args, which is inlined into the record loop.
 */
static __attribute__((noinline)) char *
legacy_put_any(struct dec *d, char *p, const unsigned char *s, uint32_t n,
    uint32_t units)
{
	if (wtf_utf16_units(s, n) != units || wtf_any_text((const char *)s, n,
	    &d->anyout, &d->anychk, &d->anytmp) <= 0)
		return put_qstr(d, p, s, n);
	p = room(d, p, d->anyout.len + ARG_ROOM);
	memcpy(p, d->anyout.b, d->anyout.len);
	return p + d->anyout.len;
}

static char *
legacy_put_args(struct dec *d, char *p, const struct wtf_def *def,
    const unsigned char *b)
{
	for (unsigned i = 0; i < def->nargs; i++) {
		const struct wtf_argdef *a = &def->arg[i];
		uint32_t raw;

		p = room(d, p, ARG_ROOM + a->keylen);
		p = put_field(p, a);
		if (a->array) {
			uint32_t count = tp_get_be32(b);
			p = put_array(d, p, a->type, b + 4, count, 1);
			b += 4 + (size_t)count * type_size[a->type];
		} else if (type_string(a->type)) {
			uint32_t c = tp_get_be16(b);
			if (c == 0) {
				p = put_lit(p, "null");
				b += 2;
			} else if (a->type == WT_ASCII) {
				p = put_qstr(d, p, b + 2, c);
				b += 2 + c;
			} else {
				uint32_t bl = tp_get_be16(b + 2);
				if (a->type == WT_ANY)
					p = legacy_put_any(d, p, b + 4, bl, c);
				else
					p = put_qstr(d, p, b + 4, bl);
				if (wtf_utf16_units(b + 4, bl) != c) {
					p = put_extra_key(d, p, a, ".chars=");
					p = tp_fmt_u64(p, c);
				}
				b += 4 + bl;
			}
		} else {
			switch (type_size[a->type]) {
			case 1: raw = b[0]; break;
			case 2: raw = tp_get_be16(b); break;
			default: raw = tp_get_be32(b); break;
			}
			/* legacy floats are in the writer's native order: LE */
			if (a->type == WT_FLOAT32)
				raw = tp_get_le32(b);
			p = put_number(p, a->type, raw);
			b += type_size[a->type];
		}
	}
	return p;
}

/* The define record's fields from legacy bytes (sized already). */
static int
legacy_records(struct dec *d)
{
	struct tp_in *in = d->in;

	for (;;) {
		uint64_t off = tp_in_offset(in);
		const unsigned char *b;
		const struct wtf_def *def;
		const char *why = NULL;
		uint32_t wire, time;
		size_t want = 6;
		long avail, size;
		uint64_t scope;
		int64_t zone_arg = 0;
		char *p;

		for (;;) {
			avail = tp_in_fill(in, want);
			if (avail < 0)
				return -1;
			if (avail == 0 && want == 6)
				return 0;
			if (avail < 6)
				return tp_fail_at(d->err, off, d->rec_index,
				    "record", "truncated record: needs 6 "
				    "bytes, only %ld left", avail);
			b = in->buf + in->pos;
			wire = tp_get_be16(b);
			def = def_at(&d->defs, wire);
			if (def == NULL)
				return tp_fail_at(d->err, off, d->rec_index,
				    "record", "undefined wire id %u", wire);
			size = legacy_args_size(def, b + 6, (size_t)avail - 6,
			    &why);
			if (size >= 0)
				break;
			/* An input error while the record is read is of it. */
			d->err->index = d->rec_index;
			d->err->unit = "record";
			if (size == -1)
				return tp_fail_at(d->err, off, d->rec_index,
				    "record", "%s", why);
			if ((size_t)avail < want || want == TP_IN_BLOCK)
				return tp_fail_at(d->err, off, d->rec_index,
				    "record", (size_t)avail < want ?
				    "truncated %.*s record: %ld bytes left" :
				    "%.*s record longer than 256 KiB",
				    (int)def->namelen, def->name, avail);
			want = (size_t)avail * 2 > TP_IN_BLOCK ? TP_IN_BLOCK :
			    (size_t)avail * 2;
		}
		time = tp_get_be32(b + 2);
		if (def->role == ROLE_DEFINE) {
			struct wtf_defrec r;
			wtf_legacy_defrec(b + 6, &r);
			dec_track(d, def, time, 0);
			if (dec_define(d, &r, off) < 0) {
				d->err->index = d->rec_index - 1;
				d->err->unit = "record";
				return -1;
			}
			put_define(d, &r, time);
		} else {
			if (def->role == ROLE_ZONE_SET) {
				unsigned sz = type_size[def->arg[0].type];
				zone_arg = scalar_value(def->arg[0].type,
				    sz == 1 ? b[6] : sz == 2 ? tp_get_be16(b + 6) :
				    tp_get_be32(b + 6));
			}
			scope = dec_track(d, def, time, zone_arg);
			p = put_event_head(d, def, time, scope);
			p = legacy_put_args(d, p, def, b + 6);
			*p++ = '\n';
			tp_out_commit(d->out, p);
		}
		in->pos += 6 + (size_t)size;
	}
}

/* Read a legacy utf8 string of the header: 0, or -1 (error set). */
static int
legacy_header_str(struct dec *d, const char *what, const unsigned char **s,
    uint32_t *chars, uint32_t *len)
{
	struct tp_in *in = d->in;
	uint64_t off = tp_in_offset(in);
	long avail = tp_in_fill(in, 4);

	if (avail < 0)
		return -1;
	if (avail < 2 || (avail < 4 && tp_get_be16(in->buf + in->pos) != 0))
		return tp_fail_at(d->err, off, TP_NONE, NULL,
		    "truncated header: %s", what);
	*chars = tp_get_be16(in->buf + in->pos);
	if (*chars == 0) {
		*s = NULL;
		*len = 0;
		in->pos += 2;
		return 0;
	}
	if (*chars == 0xffff)
		return tp_fail_at(d->err, off, TP_NONE, NULL,
		    "%s: string-table reference in a legacy header", what);
	*len = tp_get_be16(in->buf + in->pos + 2);
	avail = tp_in_fill(in, 4 + *len);
	if (avail < 0)
		return -1;
	if ((size_t)avail < 4 + *len)
		return tp_fail_at(d->err, off, TP_NONE, NULL,
		    "truncated header: %s needs %u bytes, only %ld left", what,
		    4 + *len, avail);
	*s = in->buf + in->pos + 4;
	return 0;
}

static void
put_header_str(struct dec *d, const char *key, const unsigned char *s,
    uint32_t chars, uint32_t len)
{
	if (s == NULL) {
		tw_null(d->out, key);
		return;
	}
	tw_qstr(d->out, key, s, len);
	if (wtf_utf16_units(s, len) != chars) {
		char k[32];
		snprintf(k, sizeof k, "%s.chars", key);
		tw_u64(d->out, k, chars);
	}
}

static int
legacy_decode(struct dec *d, uint32_t build)
{
	struct tp_in *in = d->in;
	const unsigned char *s, *m;
	uint32_t cchars, clen, mchars, mlen, flags;
	int have_context;
	uint64_t off;
	int64_t tb;
	long avail;

	/* The whole header is read before its record is written. */
	in->pos += 12;
	if (legacy_header_str(d, "context info", &s, &cchars, &clen) < 0)
		return -1;
	have_context = s != NULL;
	if (have_context) {
		if (tp_grow(&d->scratch, &d->scratchcap, clen + 1, 1) < 0)
			return dec_nomem(d);
		memcpy(d->scratch, s, clen);
		in->pos += 4 + clen;
	}
	off = tp_in_offset(in);
	if ((avail = tp_in_fill(in, 12)) < 0)
		return -1;
	if (avail < 12)
		return tp_fail_at(d->err, off, TP_NONE, NULL,
		    "truncated header: flags and timebase need 12 bytes, only "
		    "%ld left", avail);
	flags = tp_get_be32(in->buf + in->pos);
	tb = (int64_t)((uint64_t)tp_get_be32(in->buf + in->pos + 8) << 32 |
	    tp_get_be32(in->buf + in->pos + 4));
	in->pos += 12;
	set_timebase(d, (int64_t)((uint64_t)tb * 1000000u));
	if (legacy_header_str(d, "metadata", &m, &mchars, &mlen) < 0)
		return -1;
	tw_begin(d->out, "wtf-header");
	tw_u64(d->out, "version", WTF_LEGACY_VERSION);
	tw_u64(d->out, "build", build);
	put_header_str(d, "context", have_context ? d->scratch : NULL, cchars,
	    clen);
	tw_hex(d->out, "flags", flags);
	tw_i64(d->out, "timebase", tb);
	put_header_str(d, "metadata", m, mchars, mlen);
	tw_end(d->out);
	if (m != NULL)
		in->pos += 4 + mlen;
	return legacy_records(d);
}

/* ------------------------------------------------------ chunked format */

/* Parts whose opaque bytes are text (written as a quoted string). */
static int
part_is_text(uint32_t type)
{
	return type == WTF_PART_JSON_EVENTS || type == WTF_PART_STRING_RESOURCE;
}

static void
put_type(struct tp_out *o, const char *name, uint32_t type)
{
	if (name != NULL)
		tw_str(o, "type", name, strlen(name));
	else
		tw_hex(o, "type", type);
}

/*
 * Index a string table part (wtf_strtab_load) and quote its strings up
 * to QSTR_INLINE bytes once, equal strings sharing their text.
 */
static int
strtab_load(struct dec *d, const unsigned char *b, size_t n)
{
	struct wtf_strtab *t = &d->strs;
	size_t i, used = 0, need;

	if (wtf_strtab_load(t, b, n) < 0)
		return dec_nomem(d);
	for (i = 0; i < t->n; i++) {
		struct wtf_strent *en = &t->ent[i];
		char *q;

		if (en->first != i) {
			en->qoff = t->ent[en->first].qoff;
			en->qlen = t->ent[en->first].qlen;
			continue;
		}
		en->qlen = QLEN_NONE;
		if (en->len > QSTR_INLINE || used > UINT32_MAX / 2)
			continue;
		/* FIELD_COPY: room to copy the last one in one move */
		need = used + QUOTED_MAX(en->len) + FIELD_COPY;
		if (need > d->qtextcap &&
		    tp_grow(&d->qtext, &d->qtextcap, need, 1) < 0)
			return dec_nomem(d);
		q = (char *)d->qtext + used;
		en->qoff = (uint32_t)used;
		en->qlen = (uint32_t)(fmt_qstr(q, b + en->off, en->len) - q);
		used += en->qlen;
	}
	return 0;
}

static char *
cff_put_string(struct dec *d, char *p, uint32_t o)
{
	const struct wtf_strent *en;

	if (o == 0xffffffffu)
		return put_lit(p, "null");
	if (o == 0xfffffffeu)
		return put_str(d, p, "", 0, 0);
	en = &d->strs.ent[o];
	if (en->qlen != QLEN_NONE)
		return put_piece(p, (const char *)d->qtext + en->qoff,
		    en->qlen);
	return put_str(d, p, d->strs.base + en->off, en->len, 0);
}

/*
 * An any argument: its JSON text as the value it stands for when the
 * encoder gives the same bytes back (wtf_any_text); NULL when it is to be
 * written as a string (cff_put_string, called once: inlined).
 */
static __attribute__((noinline)) char *
cff_put_any(struct dec *d, char *p, uint32_t o)
{
	const struct wtf_strent *en;

	if (o >= 0xfffffffeu)
		return NULL;
	en = &d->strs.ent[o];
	if (wtf_any_text((const char *)d->strs.base + en->off, en->len,
	    &d->anyout, &d->anychk, &d->anytmp) <= 0)
		return NULL;	/* out of memory too: as a string */
	p = room(d, p, d->anyout.len + ARG_ROOM);
	memcpy(p, d->anyout.b, d->anyout.len);
	return p + d->anyout.len;
}

static char *
cff_put_args(struct dec *d, char *p, const struct wtf_def *def,
    const unsigned char *s)
{
	for (unsigned i = 0; i < def->nargs; i++) {
		const struct wtf_argdef *a = &def->arg[i];
		uint32_t v = tp_get_le32(s);
		unsigned sz = type_size[a->type];

		p = room(d, p, ARG_ROOM + a->keylen);
		p = put_field(p, a);
		if (a->array) {
			size_t bytes, slots;
			s += 4;
			if (v == 0xffffffffu) {
				p = put_lit(p, "null");
				continue;
			}
			bytes = (size_t)v * sz;
			slots = (bytes + 3) / 4;
			if (a->type == WT_CHAR) {
				p = put_qstr(d, p, s, v);
			} else if (a->type == WT_WCHAR) {
				p = put_units(d, p, s, v);
				if (p == NULL)
					return NULL;
			} else {
				p = put_array(d, p, a->type, s, v, 0);
			}
			if (nonzero(s + bytes, 4 * slots - bytes))
				p = put_pad(d, p, a, s + bytes, 4 * slots - bytes);
			s += 4 * slots;
		} else {
			unsigned char u[4];
			char *q;
			switch (a->type) {
			case WT_ANY:
				if ((q = cff_put_any(d, p, v)) != NULL) {
					p = q;
					break;
				}
				/* FALLTHROUGH */
			case WT_ASCII: case WT_UTF8:
				p = cff_put_string(d, p, v);
				break;
			case WT_CHAR:
				u[0] = (unsigned char)v;
				p = put_qstr(d, p, u, 1);
				break;
			case WT_WCHAR:
				p = put_qstr(d, p, u,
				    tp_utf8_put(u, v & 0xffff));
				break;
			default:
				p = put_number(p, a->type, v);
			}
			/* the slot's bytes past the value: v's high bytes */
			if (v & a->padmask)
				p = put_pad(d, p, a, s + sz, 4 - sz);
			s += 4;
		}
	}
	return p;
}

/* The records of an event buffer part. */
static int
cff_events(struct dec *d, const unsigned char *b, size_t len, uint64_t boff)
{
	size_t nslots = len / 4, i = 0;

	while (i < nslots) {
		const unsigned char *s = b + 4 * i;
		uint64_t off = boff + 4 * i;
		const struct wtf_def *def;
		const char *why = NULL;
		uint32_t wire, time, next = d->strs.next;
		uint64_t scope;
		long n;
		char *p;

		/* An error below (memory, a definition) is of this record. */
		d->err->index = d->rec_index;
		d->err->unit = "record";
		if (nslots - i < 2)
			return tp_fail_at(d->err, off, d->rec_index, "record",
			    "truncated record: 4 bytes left in the event "
			    "buffer");
		wire = tp_get_le32(s);
		time = tp_get_le32(s + 4);
		def = def_at(&d->defs, wire);
		if (def == NULL)
			return tp_fail_at(d->err, off, d->rec_index, "record",
			    "undefined wire id %u", wire);
		n = wtf_args_slots(def, s + 8, nslots - i - 2, &d->strs, &next,
		    &why);
		if (n < 0)
			return tp_fail_at(d->err, off, d->rec_index, "record",
			    "%.*s record: %s", (int)def->namelen, def->name,
			    why);
		d->strs.next = next;
		if (def->role == ROLE_DEFINE) {
			struct wtf_defrec r;
			wtf_cff_defrec(&d->strs, s + 8, &r);
			dec_track(d, def, time, 0);
			if (dec_define(d, &r, off) < 0)
				return -1;
			put_define(d, &r, time);
		} else {
			int64_t zone_arg = def->role == ROLE_ZONE_SET ?
			    scalar_value(def->arg[0].type, tp_get_le32(s + 8)) : 0;
			scope = dec_track(d, def, time, zone_arg);
			p = put_event_head(d, def, time, scope);
			p = cff_put_args(d, p, def, s + 8);
			if (p == NULL)
				return dec_nomem(d);
			*p++ = '\n';
			tp_out_commit(d->out, p);
		}
		i += 2 + (size_t)n;
	}
	return 0;
}

struct part {
	uint32_t type, off, len;
};

/* Padding after a part as writers leave it: zeros to a multiple of 4. */
static int
pad_canonical(const unsigned char *pad, size_t n, uint32_t len)
{
	return n == (4 - len % 4) % 4 && !nonzero(pad, n);
}

int
wtf_chunk_read(struct tp_in *in, uint64_t index, unsigned char **buf,
    size_t *cap, uint32_t *len, struct tp_err *err)
{
	uint64_t off = tp_in_offset(in);
	uint32_t np;
	size_t got = 0;
	long avail = tp_in_fill(in, 24);

	if (avail < 0)
		return -1;
	if (avail == 0 && index == 0)
		/*
		 * Every writer starts with the file-header chunk (it holds
		 * the timebase): a trace of 12 bytes was cut.
		 */
		return tp_fail_at(err, off, index, "chunk", "cut after "
		    "the header: a chunked trace has at least its "
		    "file-header chunk");
	if (avail == 0)
		return 0;
	if (avail < 24)
		return tp_fail_at(err, off, index, "chunk",
		    "truncated chunk header: needs 24 bytes, only %ld "
		    "left", avail);
	*len = tp_get_le32(in->buf + in->pos + 8);
	np = tp_get_le32(in->buf + in->pos + 20);
	if (np > (WTF_CHUNK_MAX - 24) / 12 || *len < 24 + 12 * np)
		return tp_fail_at(err, off, index, "chunk",
		    "chunk length %u is less than its header and table "
		    "of %u parts", *len, np);
	if (*len > WTF_CHUNK_MAX)
		return tp_fail_at(err, off, index, "chunk",
		    "chunk length %u is more than the %u bytes read at "
		    "most", *len, WTF_CHUNK_MAX);
	/* Memory grows only as far as the bytes have arrived. */
	while (got < *len) {
		size_t want = *len - got > TP_IN_BLOCK ? TP_IN_BLOCK :
		    *len - got;
		long n;
		if (tp_grow(buf, cap, got + want, 1) < 0)
			return -2;
		n = tp_in_read(in, *buf + got, want);
		if (n < 0)
			return -1;
		if (n == 0)
			return tp_fail_at(err, off, index, "chunk",
			    "truncated chunk: needs %u bytes, only %zu "
			    "left", *len, got);
		got += (size_t)n;
	}
	return 1;
}

int
wtf_chunk_parts(const unsigned char *c, uint32_t len, uint64_t off,
    uint64_t index, struct tp_err *err)
{
	uint32_t np = tp_get_le32(c + 20);
	const unsigned char *data = c + 24 + 12 * (size_t)np;
	size_t dlen = len - 24 - 12 * (size_t)np, end = 0;
	uint64_t doff = off + 24 + 12 * (uint64_t)np;
	int have_ev = 0, have_tab = 0;

	for (uint32_t i = 0; i < np; i++) {
		const unsigned char *e = c + 24 + 12 * (size_t)i;
		uint32_t po = tp_get_le32(e + 4), pl = tp_get_le32(e + 8);
		uint32_t pt = tp_get_le32(e);
		if ((uint64_t)po + pl > dlen)
			return tp_fail_at(err, off + 24 + 12 * (uint64_t)i,
			    index, "chunk", "part %u (offset %u, length %u) "
			    "runs past the end of its chunk (%zu bytes of part "
			    "data)", i, po, pl, dlen);
		if (po != end && (i == 0 || po < end))
			return tp_fail_at(err, off + 24 + 12 * (uint64_t)i,
			    index, "chunk", i == 0 ? "part 0 does not start "
			    "the part data (offset %u): not supported" :
			    "part %u (offset %u) overlaps the part before it",
			    i == 0 ? po : i, i == 0 ? 0 : po);
		end = (size_t)po + pl;
		if (pt == WTF_PART_STRING_TABLE && !have_tab) {
			size_t k = 0, n = 0;
			have_tab = 1;
			while (k < pl) {
				const unsigned char *z = memchr(data + po + k,
				    0, pl - k);
				if (z == NULL)
					return tp_fail_at(err, doff + po + k,
					    index, "chunk", "string table "
					    "entry %zu has no terminating NUL "
					    "byte", n);
				n++;
				k = (size_t)(z - (data + po)) + 1;
			}
		} else if (pt == WTF_PART_BINARY_EVENTS && !have_ev) {
			if (pl % 4 != 0)
				return tp_fail_at(err,
				    off + 24 + 12 * (uint64_t)i, index, "chunk",
				    "event buffer length %u is not a multiple "
				    "of 4", pl);
			have_ev = 1;
		}
	}
	return 0;
}

static int
cff_chunk(struct dec *d, uint32_t len, uint64_t index)
{
	const unsigned char *c = d->chunk, *data;
	uint32_t np = tp_get_le32(c + 20), type = tp_get_le32(c + 4);
	uint64_t off = d->chunk_off, doff;
	struct part ev = { 0, 0, 0 };
	size_t dlen;
	int have_ev = 0;
	struct tp_out *o = d->out;

	data = c + 24 + 12 * (size_t)np;
	dlen = len - 24 - 12 * (size_t)np;
	doff = off + 24 + 12 * (uint64_t)np;
	wtf_strtab_clear(&d->strs);
	/* The layout first: nothing of a bad chunk is written. */
	if (wtf_chunk_parts(c, len, off, index, d->err) < 0)
		return -1;
	for (uint32_t i = 0; i < np; i++) {
		const unsigned char *e = c + 24 + 12 * (size_t)i;
		uint32_t po = tp_get_le32(e + 4), pl = tp_get_le32(e + 8);
		uint32_t pt = tp_get_le32(e);
		if (pt == WTF_PART_STRING_TABLE && !d->strs.present) {
			if (strtab_load(d, data + po, pl) < 0)
				return -1;
		} else if (pt == WTF_PART_BINARY_EVENTS && !have_ev) {
			ev.off = po;
			ev.len = pl;
			have_ev = 1;
		}
	}
	d->st->chunks++;
	tw_begin(o, "wtf-chunk");
	tw_u64(o, "id", tp_get_le32(c));
	put_type(o, wtf_chunk_name(type), type);
	tw_u64(o, "start", tp_get_le32(c + 12));
	tw_u64(o, "end", tp_get_le32(c + 16));
	if (np == 0 && dlen > 0)
		tw_bytes(o, "pad", data, dlen);
	tw_end(o);
	if (wtf_chunk_name(type) == NULL)
		d->st->unknown++;
	have_ev = 0;
	int have_tab = 0;
	for (uint32_t i = 0; i < np; i++) {
		const unsigned char *e = c + 24 + 12 * (size_t)i;
		uint32_t pt = tp_get_le32(e), po = tp_get_le32(e + 4);
		uint32_t pl = tp_get_le32(e + 8);
		size_t pend = i + 1 < np ? tp_get_le32(e + 16) : dlen;
		const char *pn = wtf_part_name(pt);

		d->st->parts++;
		tw_begin(o, "wtf-part");
		put_type(o, pn, pt);
		if (pt == WTF_PART_FILE_HEADER) {
			tw_qstr(o, "json", data + po, pl);
			set_timebase(d, wtf_json_timebase_ns(
			    (const char *)data + po, pl));
		} else if (pt == WTF_PART_STRING_TABLE && !have_tab) {
			have_tab = 1;
			if (d->strs.unique && d->strs.n > 0)
				tw_bool(o, "unique", 1);
		} else if (pt == WTF_PART_BINARY_EVENTS && !have_ev) {
			have_ev = 1;
		} else {
			if (pn == NULL)
				d->st->unknown++;
			if (part_is_text(pt))
				tw_qstr(o, "data", data + po, pl);
			else
				tw_bytes(o, "data", data + po, pl);
		}
		if (!pad_canonical(data + po + pl, pend - po - pl, pl))
			tw_bytes(o, "pad", data + po + pl, pend - po - pl);
		tw_end(o);
	}
	if (have_ev && cff_events(d, data + ev.off, ev.len, doff + ev.off) < 0)
		return -1;
	return wtf_strtab_done(&d->strs, off, index, d->err);
}

static int
cff_decode(struct dec *d, uint32_t build)
{
	struct tp_in *in = d->in;

	in->pos += 12;
	tw_begin(d->out, "wtf-header");
	tw_u64(d->out, "version", WTF_CFF_VERSION);
	tw_u64(d->out, "build", build);
	tw_end(d->out);
	for (uint64_t index = 0;; index++) {
		uint32_t len;
		int rc;

		/* An error below (input, memory) is of this chunk. */
		d->err->index = index;
		d->err->unit = "chunk";
		d->chunk_off = tp_in_offset(in);
		rc = wtf_chunk_read(in, index, &d->chunk, &d->chunkcap, &len,
		    d->err);
		if (rc == -2)
			return dec_nomem(d);
		if (rc <= 0)
			return rc;
		if (cff_chunk(d, len, index) < 0)
			return -1;
	}
}

int
wtf_probe(const unsigned char *p, size_t n, char *detail, size_t detailsz)
{
	const char *what = NULL;

	if (n >= 12 && tp_get_be32(p) == WTF_MAGIC &&
	    tp_get_be32(p + 8) == WTF_LEGACY_VERSION)
		what = "legacy v3";
	else if (n >= 12 && tp_get_le32(p) == WTF_MAGIC &&
	    tp_get_le32(p + 8) == WTF_CFF_VERSION)
		what = "chunked v10";
	if (what == NULL)
		return TP_PROBE_NO;
	if (detail != NULL && detailsz > 0)
		snprintf(detail, detailsz, "%s", what);
	return TP_PROBE_YES;
}

int
wtf_decode(struct tp_in *in, struct tp_out *out,
    const struct wtf_dec_opts *opts, struct wtf_dec_stats *st,
    struct tp_err *err)
{
	struct wtf_dec_stats dummy;
	const char *why;
	struct dec *d;
	const unsigned char *h;
	long avail;
	int rc;

	(void)opts;
	if (st == NULL)
		st = &dummy;
	memset(st, 0, sizeof *st);
	if ((d = calloc(1, sizeof *d)) == NULL)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	d->in = in;
	d->out = out;
	d->err = err;
	d->st = st;
	d->evheadlen = fmt_kind(d, d->evhead, "event");
	if (wtf_deftab_init(&d->defs, &why) < 0) {
		free(d);
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	}
	avail = tp_in_fill(in, 12);
	h = in->buf + in->pos;
	if (avail < 0) {
		rc = -1;
	} else if (avail == 0) {
		rc = tp_fail_at(err, 0, TP_NONE, NULL, "empty input: no WTF "
		    "header");
	} else if (avail < 12) {
		rc = tp_fail_at(err, 0, TP_NONE, NULL,
		    "truncated header: needs 12 bytes, only %ld left", avail);
	} else if (tp_get_be32(h) == WTF_MAGIC) {
		uint32_t v = tp_get_be32(h + 8);
		d->legacy = 1;
		st->version = (int)v;
		rc = v == WTF_LEGACY_VERSION ? legacy_decode(d, tp_get_be32(h + 4)) :
		    tp_fail_at(err, 8, TP_NONE, NULL, "big-endian (legacy) "
		    "trace of format version %u: only version 3 is readable%s",
		    v, v == 10 ?
		    " (big-endian v10 is the 2013-06 first cut of the chunked "
		    "format, which no reader accepts)" : "");
	} else if (tp_get_le32(h) == WTF_MAGIC) {
		uint32_t v = tp_get_le32(h + 8);
		st->version = (int)v;
		rc = v == WTF_CFF_VERSION ? cff_decode(d, tp_get_le32(h + 4)) :
		    tp_fail_at(err, 8, TP_NONE, NULL, "chunked trace of format "
		    "version %u: only version 10 exists", v);
	} else {
		rc = tp_fail_at(err, 0, TP_NONE, NULL, "bad magic %02x %02x "
		    "%02x %02x: not a WTF trace (DE AD BE EF or EF BE AD DE)",
		    h[0], h[1], h[2], h[3]);
	}
	wtf_deftab_free(&d->defs);
	free(d->scopes.s);
	free(d->chunk);
	wtf_strtab_free(&d->strs);
	free(d->qtext);
	free(d->scratch);
	free(d->anyout.b);
	free(d->anychk.b);
	free(d->anytmp.b);
	free(d);
	return rc;
}
