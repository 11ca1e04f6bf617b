/*
 * dial9-trace-format decoder.
 *
 * It holds frames whole in a window of its own (grown up to
 * DIAL9_FRAME_MAX for one big frame) and works in two passes per frame:
 * parse and check everything into a value array, then format.  A frame
 * cut by the end of the window is parsed again once more bytes are in,
 * and a bad frame leaves no text behind.  Runs of common events take a
 * fast path of one pass (event_run, event_fast), all in this file so
 * that it is compiled as one piece.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "base/grow.h"
#include "base/leb128.h"
#include "formats/dial9/dial9-private.h"

/*
 * Decoder text made once and copied per event (an event's prefix, a
 * field's " KEY=", a pooled value) has PAD zero bytes after it, so that
 * it is copied in fixed steps of PAD bytes, without a call per copy.
 */
#define PAD 32

static char *
padded_alloc(struct arena *a, size_t n)
{
	return dial9_arena_alloc(a, n + PAD);
}

/* s (from padded_alloc) keeps its first n bytes and the padding. */
static void
padded_trim(struct arena *a, char *s, size_t n)
{
	memset(s + n, 0, PAD);
	dial9_arena_trim(a, s, n + PAD);
}

/* n bytes of padded text at d, which has room for n + PAD. */
static inline char *
copy_padded(char *d, const char *s, size_t n)
{
	char *e = d + n;

	memcpy(d, s, PAD);	/* most are this short */
	while (n > PAD) {
		d += PAD;
		s += PAD;
		n -= PAD;
		memcpy(d, s, PAD);
	}
	return e;
}

/* Padded text of at most PAD bytes: one copy. */
static inline char *
copy_short(char *d, const char *s, size_t n)
{
	memcpy(d, s, PAD);
	return d + n;
}

/* One value, as parsed in the first pass. */
struct val {
	uint64_t v;		/* integers, float bits, bool byte, pool id */
	const unsigned char *p;	/* bytes, strings; the elements of a list */
	const struct pent *pe;	/* pooled values */
	uint32_t n;		/* length, or count of elements */
	unsigned char present;	/* optional: the presence byte, else 1 */
	unsigned char len;	/* varint: its length when not the shortest */
};

struct dec {
	struct tp_in *in;
	struct tp_out *out;
	struct tp_err *err;
	struct dial9_dec_stats *st;
	unsigned char *win;	/* frames are decoded from here */
	size_t len, pos;
	uint64_t base;		/* stream offset of win[0] */
	int eof;
	uint64_t frames;
	struct seg seg;
	struct val *vals;
	size_t nvals;
	uint32_t *seen;
	size_t seencap;
	uint64_t tsbase;	/* the last ts but for its last 8 digits, */
	char tshitext[16];	/* the digits above them */
	size_t tshilen;
};

enum { FR_OK = 0, FR_MORE = 1, FR_BAD = -1, FR_SLOW = 2 };

/* Less unread than this: read more. */
#define WIN_LOW (TP_IN_BUF / 128)

/* A data fault at byte at of the window, in the current frame: FR_BAD. */
#define dec_fail(d, at, ...) \
	tp_fail_at((d)->err, (d)->base + (uint64_t)((at) - (d)->win), \
	    (d)->frames, "frame", __VA_ARGS__)

static int
dec_nomem(struct dec *d)
{
	tp_fail_nomem(d->err);
	return FR_BAD;
}

/*
 * The window is the input's own buffer (no copy): at least want unread
 * bytes in it, unless the input ends first.
 */
static int
win_fill(struct dec *d, size_t want)
{
	d->in->pos = d->pos;
	if (tp_in_fill(d->in, want) < 0)
		return -1;
	d->win = d->in->buf;
	d->pos = d->in->pos;
	d->len = d->in->len;
	d->base = d->in->base;
	d->eof = d->in->eof;
	return 0;
}

/*
 * One value of type t (no optional bit) at *qp: checked, stored in v,
 * *qp moved past it.  FR_MORE when the bytes end inside it.
 */
static int
parse_value(struct dec *d, unsigned t, const unsigned char **qp,
    const unsigned char *end, struct val *v, int depth)
{
	const unsigned char *q = *qp, *r;
	size_t left = (size_t)(end - q), l;
	uint64_t n, k;
	struct val ev;
	int rc;

	v->len = 0;
	switch (t) {
	case T_VARINT:
		rc = tp_uleb_get(q, left, &v->v, &l);
		if (rc == TP_LEB_TRUNC)
			return FR_MORE;
		if (rc == TP_LEB_TOOLONG)
			return dec_fail(d, q, "varint longer than 10 bytes");
		if (rc == TP_LEB_OVERFLOW)
			return dec_fail(d, q, "varint above 2^64-1");
		if (l != tp_uleb_size(v->v))
			v->len = (unsigned char)l;
		q += l;
		break;
	case T_U8:
	case T_BOOL:
		if (left < 1)
			return FR_MORE;
		v->v = q[0];
		q += 1;
		break;
	case T_U16:
		if (left < 2)
			return FR_MORE;
		v->v = tp_get_le16(q);
		q += 2;
		break;
	case T_U32:
		if (left < 4)
			return FR_MORE;
		v->v = tp_get_le32(q);
		q += 4;
		break;
	case T_I64:
	case T_F64:
		if (left < 8)
			return FR_MORE;
		v->v = tp_get_le64(q);
		q += 8;
		break;
	case T_STRING:
	case T_BYTES:
		if (left < 4)
			return FR_MORE;
		n = tp_get_le32(q);
		if (left - 4 < n)
			return FR_MORE;
		v->p = q + 4;
		v->n = (uint32_t)n;
		q += 4 + n;
		break;
	case T_PSTRING:
	case T_PSTACK:
		if (left < 4)
			return FR_MORE;
		v->v = tp_get_le32(q);
		v->pe = pool_get(t == T_PSTRING ? &d->seg.strings :
		    &d->seg.stacks, (uint32_t)v->v);
		if (v->pe == NULL)
			return dec_fail(d, q, "undefined %s pool id %u",
			    t == T_PSTRING ? "string" : "stack", (unsigned)v->v);
		q += 4;
		break;
	case T_STACK:
		if (left < 4)
			return FR_MORE;
		n = tp_get_le32(q);
		if ((left - 4) / 8 < n)
			return FR_MORE;
		v->p = q + 4;
		v->n = (uint32_t)n;
		q += 4 + 8 * n;
		break;
	case T_SMAP:
		if (left < 4)
			return FR_MORE;
		n = tp_get_le32(q);
		r = q + 4;
		for (k = 0; k < 2 * n; k++) {
			uint64_t m;
			if (end - r < 4)
				return FR_MORE;
			m = tp_get_le32(r);
			if ((uint64_t)(end - r) - 4 < m)
				return FR_MORE;
			r += 4 + m;
		}
		v->p = q + 4;
		v->n = (uint32_t)n;
		q = r;
		break;
	case T_LIST:
	case T_MAP:
		if (depth >= DIAL9_DEPTH_MAX)
			return dec_fail(d, q, "dynamic values nested deeper "
			    "than %d", DIAL9_DEPTH_MAX);
		if (left < 4)
			return FR_MORE;
		n = tp_get_le32(q);
		r = q + 4;
		for (k = 0; k < (t == T_MAP ? 2 * n : n); k++) {
			if (r >= end)
				return FR_MORE;
			if (!tag_ok(*r))
				return dec_fail(d, r, "unknown element type 0x%02x",
				    *r);
			r++;
			rc = parse_value(d, r[-1] & ~OPT, &r, end, &ev, depth + 1);
			if (rc != FR_OK)
				return rc;
		}
		v->p = q + 4;
		v->n = (uint32_t)n;
		q = r;
		break;
	}
	*qp = q;
	return FR_OK;
}

/*
 * The common values (integers, bools, pool ids) without the call, for a
 * caller who knows that the bytes left hold the longest of them
 * (TP_LEB_MAX).  0: the value is for parse_value (another type, a varint
 * of 10 bytes, an undefined pool id).  An over-long varint ends in a zero
 * byte.
 */
static inline __attribute__((always_inline)) int
parse_fast(struct dec *d, unsigned t, const unsigned char **qp,
    struct val *v)
{
	const unsigned char *q = *qp;
	uint64_t r;
	unsigned b, sh;

	switch (t) {
	case T_VARINT:
		v->len = 0;
		r = *q++;
		if (r >= 0x80) {
			for (r &= 0x7f, sh = 7;; sh += 7) {
				b = *q++;
				r |= (uint64_t)(b & 0x7f) << sh;
				if (b < 0x80)
					break;
				if (sh == 56)
					return 0;
			}
			if (b == 0)
				v->len = (unsigned char)(q - *qp);
		}
		v->v = r;
		break;
	case T_U8:
	case T_BOOL:
		v->v = *q++;
		break;
	case T_U16:
		v->v = tp_get_le16(q);
		q += 2;
		break;
	case T_U32:
		v->v = tp_get_le32(q);
		q += 4;
		break;
	case T_PSTRING:
	case T_PSTACK:
		v->v = tp_get_le32(q);
		v->pe = pool_get(t == T_PSTRING ? &d->seg.strings :
		    &d->seg.stacks, (uint32_t)v->v);
		if (v->pe == NULL)
			return 0;
		q += 4;
		break;
	default:
		return 0;
	}
	*qp = q;
	return 1;
}

static void print_val(struct dec *d, unsigned t, const struct val *v,
    int depth);

/* A dynamic element: {type:value} and its wire details. */
static void
print_elem(struct dec *d, const unsigned char **qp, int depth)
{
	struct tp_out *o = d->out;
	unsigned tag = **qp, t = tag & ~OPT;
	char name[24];
	struct val ev;

	(*qp)++;
	parse_value(d, t, qp, d->win + d->len, &ev, depth);
	tv_open_map(o);
	tv_mapkey(o, name, dial9_tag_name(tag, name));
	print_val(d, t, &ev, depth);
	if (ev.len) {
		tv_sep(o);
		tv_mapkey(o, "len", 3);
		tv_u64(o, ev.len);
	}
	if ((t == T_PSTRING || t == T_PSTACK) && !ev.pe->holder) {
		tv_sep(o);
		tv_mapkey(o, "id", 2);
		tv_u64(o, ev.v);
	}
	if (t == T_BOOL && ev.v > 1) {
		tv_sep(o);
		tv_mapkey(o, "byte", 4);
		tv_u64(o, ev.v);
	}
	tv_close_map(o);
}

/* Any value, with the text writer (the rarer types). */
static void
print_val(struct dec *d, unsigned t, const struct val *v, int depth)
{
	struct tp_out *o = d->out;
	const unsigned char *q = v->p;
	uint32_t k;

	switch (t) {
	case T_I64:
		tv_i64(o, (int64_t)v->v);
		break;
	case T_F64:
		tv_f64(o, tp_f64_from_bits(v->v));
		break;
	case T_BOOL:
		tv_bool(o, v->v != 0);
		break;
	case T_STRING:
		tv_qstr(o, v->p, v->n);
		break;
	case T_BYTES:
		/* Empty bytes are an empty value, but not inside a list. */
		if (v->n == 0 && depth > 0)
			tv_qstr(o, "", 0);
		else
			tv_bytes(o, v->p, v->n);
		break;
	case T_PSTRING:
	case T_PSTACK:
		tp_out_write(o, v->pe->text, v->pe->textlen);
		break;
	case T_STACK:
		tv_open_list(o);
		for (k = 0; k < v->n; k++) {
			if (k > 0)
				tv_sep(o);
			tv_hex(o, tp_get_le64(q + 8 * (size_t)k));
		}
		tv_close_list(o);
		break;
	case T_SMAP:
		tv_open_map(o);
		for (k = 0; k < v->n; k++) {
			uint32_t kl = tp_get_le32(q), vl;
			if (k > 0)
				tv_sep(o);
			tv_mapkey(o, (const char *)q + 4, kl);
			q += 4 + kl;
			vl = tp_get_le32(q);
			tv_qstr(o, q + 4, vl);
			q += 4 + vl;
		}
		tv_close_map(o);
		break;
	case T_LIST:
		tv_open_list(o);
		for (k = 0; k < v->n; k++) {
			if (k > 0)
				tv_sep(o);
			print_elem(d, &q, depth + 1);
		}
		tv_close_list(o);
		break;
	case T_MAP:
		tv_open_list(o);
		for (k = 0; k < v->n; k++) {
			if (k > 0)
				tv_sep(o);
			tv_open_list(o);
			print_elem(d, &q, depth + 1);
			tv_sep(o);
			print_elem(d, &q, depth + 1);
			tv_close_list(o);
		}
		tv_close_list(o);
		break;
	default:		/* the unsigned integers */
		tv_u64(o, v->v);
		break;
	}
}

/* --------------------------------------------------- event text, fast */

/* A window on the output buffer for the formatting of one record. */
struct cur {
	struct tp_out *o;
	char *p, *lim;
};

#define CUR_ROOM 32768

static inline void
cur_begin(struct cur *c, struct tp_out *o)
{
	c->o = o;
	c->p = tp_out_reserve(o, CUR_ROOM);
	c->lim = c->p + CUR_ROOM;
}

static inline void
cur_end(struct cur *c)
{
	tp_out_commit(c->o, c->p);
}

/* Room for n <= CUR_ROOM bytes at c->p. */
static inline void
cur_need(struct cur *c, size_t n)
{
	if ((size_t)(c->lim - c->p) < n) {
		cur_end(c);
		cur_begin(c, c->o);
	}
}

static void
cur_write(struct cur *c, const void *s, size_t n)
{
	if (n <= 4096) {
		cur_need(c, n);
		memcpy(c->p, s, n);
		c->p += n;
	} else {
		cur_end(c);
		tp_out_write(c->o, s, n);
		cur_begin(c, c->o);
	}
}

/* Padded text, and room for a number after it. */
static inline void
cur_text(struct cur *c, const char *s, size_t n)
{
	if (n <= 4096) {
		cur_need(c, n + PAD + 32);
		c->p = copy_padded(c->p, s, n);
	} else {
		cur_write(c, s, n);
		cur_need(c, 32);
	}
}

/* An integer of type t (no optional bit), as tp_fmt_u64_wide writes it. */
static inline __attribute__((always_inline)) char *
fmt_int(char *p, unsigned t, uint64_t v)
{
	if (t == T_I64 && (int64_t)v < 0) {
		*p = '-';
		return tp_fmt_u64_wide(p + 1, (uint64_t)0 - v);
	}
	return tp_fmt_u64_wide(p, v);
}

/*
 * A timestamp: the digits above the last 8 change seldom from one event
 * to the next, so they are kept with the value they stand for (tsbase, a
 * multiple of 10^8) and only the last 8 are made anew.
 */
static inline char *
fmt_ts(struct dec *d, char *p, uint64_t ts)
{
	uint64_t lo = ts - d->tsbase;

	/* (ts < tsbase: lo wraps, and can wrap below 10^8 near 2^64) */
	if (lo >= 100000000 || ts < d->tsbase || d->tshilen == 0) {
		uint64_t hi = ts / 100000000;
		if (hi == 0)
			return tp_fmt_u64(p, ts);
		d->tsbase = hi * 100000000;
		d->tshilen = (size_t)(tp_fmt_u64(d->tshitext, hi) - d->tshitext);
		lo = ts - d->tsbase;
	}
	memcpy(p, d->tshitext, 16);
	p += d->tshilen;
	tp_put_le64(p, tp_digits8((uint32_t)lo));
	return p + 8;
}

static void
print_raw(struct dec *d, const struct schema *x)
{
	struct tp_out *o = d->out;
	const struct val *v = d->vals;
	uint32_t i;
	int first = 1;

	tw_key(o, "raw");
	tv_open_map(o);
	for (i = 0; i < x->nf; i++) {
		unsigned t = x->f[i].tag & ~OPT;
		int sep = 0;
		int pres = v[i].present > 1;
		int len = v[i].present && t == T_VARINT && v[i].len;
		int id = v[i].present && (t == T_PSTRING || t == T_PSTACK) &&
		    !v[i].pe->holder;
		int byte = v[i].present && t == T_BOOL && v[i].v > 1;
		if (!pres && !len && !id && !byte)
			continue;
		if (!first)
			tv_sep(o);
		first = 0;
		tv_mapkey(o, x->f[i].key, x->f[i].keylen);
		tv_open_map(o);
#define RAW_ITEM(cond, name, value) \
		if (cond) { \
			if (sep++) \
				tv_sep(o); \
			tv_mapkey(o, name, sizeof name - 1); \
			tv_u64(o, value); \
		}
		RAW_ITEM(pres, "present", v[i].present)
		RAW_ITEM(len, "len", v[i].len)
		RAW_ITEM(id, "id", v[i].v)
		RAW_ITEM(byte, "byte", v[i].v)
#undef RAW_ITEM
		tv_close_map(o);
	}
	tv_close_map(o);
}

/* An integer or a bool; *raw set when its wire form needs telling. */
static inline char *
fmt_simple(char *p, unsigned t, const struct val *v, int *raw)
{
	if (t == T_BOOL) {
		if (v->v > 1 && raw != NULL)
			*raw = 1;
		if (v->v) {
			memcpy(p, "true", 4);
			return p + 4;
		}
		memcpy(p, "false", 5);
		return p + 5;
	}
	if (t == T_VARINT && v->len)
		*raw = 1;
	return fmt_int(p, t, v->v);
}

static void
fmt_event(struct dec *d, const struct schema *x, uint64_t ts)
{
	const struct val *v = d->vals;
	struct cur c;
	uint32_t i;
	int raw = 0;

	cur_begin(&c, d->out);
	cur_text(&c, x->prefix, x->prefixlen - 4);	/* not its " ts=" */
	cur_need(&c, 80);
	if (!x->holder) {
		memcpy(c.p, " id=", 4);
		c.p = tp_fmt_u64(c.p + 4, x->id);
	}
	/* an untimed event has no time: the base is not its */
	if (x->tsbyte) {
		memcpy(c.p, " ts=", 4);
		c.p = fmt_ts(d, c.p + 4, ts);
	}
	if (x->worker_field >= 0 && v[x->worker_field].present) {
		memcpy(c.p, " tid=", 5);
		c.p = fmt_int(c.p + 5, x->f[x->worker_field].tag & ~OPT,
		    v[x->worker_field].v);
	}
	for (i = 0; i < x->nf; i++) {
		const struct field *f = &x->f[i];
		unsigned t = f->tag & ~OPT;
		cur_text(&c, f->lead, f->leadlen);
		if (!v[i].present) {
			memcpy(c.p, "null", 4);
			c.p += 4;
			continue;
		}
		if (v[i].present > 1)
			raw = 1;
		switch (t) {
		case T_VARINT:
		case T_U8:
		case T_U16:
		case T_U32:
		case T_I64:
		case T_BOOL:
			c.p = fmt_simple(c.p, t, &v[i], &raw);
			break;
		case T_PSTRING:
		case T_PSTACK:
			if (!v[i].pe->holder)
				raw = 1;
			cur_text(&c, v[i].pe->text, v[i].pe->textlen);
			break;
		default:
			cur_end(&c);
			print_val(d, t, &v[i], 0);
			cur_begin(&c, d->out);
			break;
		}
	}
	if (raw) {
		cur_end(&c);
		print_raw(d, x);
		cur_begin(&c, d->out);
	}
	*c.p++ = '\n';
	cur_end(&c);
}

/* ------------------------------------------------------------ frames */

static const char *const frame_names[] = {
	"unknown", "schema", "event", "string pool", "stack pool",
	"timestamp reset", "schema annotations"
};

/* Prefix err's message with the event and field it is about. */
static int
in_field(struct dec *d, const struct schema *x, uint32_t i)
{
	char msg[sizeof d->err->msg];

	memcpy(msg, d->err->msg, sizeof msg);
	snprintf(d->err->msg, sizeof d->err->msg, "event %.*s, field %.*s: %.120s",
	    (int)(x->namelen > 60 ? 60 : x->namelen), (const char *)x->name,
	    (int)(x->f[i].namelen > 60 ? 60 : x->f[i].namelen),
	    (const char *)x->f[i].name, msg);
	return FR_BAD;
}

/*
 * Can event_fast() write this schema's events (its keys short enough for
 * copy_short)?  If so, x->maxwire is the
 * most bytes one takes after its timestamp, x->maxtext the most text it
 * makes but for its pooled values and stacks (with the padding of each
 * copy), and each field's op says how it is read and written.
 */
static int
schema_fast(struct schema *x)
{
	static const unsigned char size[16] = {
		[T_VARINT] = TP_LEB_MAX, [T_U8] = 1, [T_BOOL] = 1, [T_U16] = 2,
		[T_U32] = 4, [T_I64] = 8, [T_PSTRING] = 4, [T_PSTACK] = 4,
		[T_STACK] = 4	/* the count; event_fast checks the rest */
	};
	uint32_t i;

	if (x->worker_field > 0 || !x->tsbyte)	/* its tid comes before
						   earlier fields; no ts */
		return 0;
	x->maxwire = 0;
	/* the prefix (its " ts="), 20 digits, " tid=" and 21, the newline */
	x->maxtext = x->prefixlen + PAD + 20 + 26 + 1;
	for (i = 0; i < x->nf; i++) {
		unsigned t = x->f[i].tag;
		if (size[t & 0x0f] == 0 || (t & 0x70) || x->f[i].leadlen > PAD)
			return 0;
		x->f[i].op = (unsigned char)(t | (i == 0 &&
		    x->worker_field == 0 ? OP_TID : 0));
		x->maxwire += size[t & 0x0f] + (t & OPT ? 1 : 0);
		x->maxtext += x->f[i].leadlen + PAD + 21;
	}
	return x->maxtext <= CUR_ROOM / 2;
}

/*
 * An event of a schema that schema_fast() accepts, in one pass: each
 * field parsed and written at once at p, which has room up to lim, at
 * least x->maxtext.  Returns the end of the text, or NULL (whatever was
 * written is not committed) for what the two passes of dec_event() do
 * better: an event near the end of the bytes, a value that is not the
 * common case (a pool id or a varint of 10 bytes that may be wrong, wire
 * details that raw= must tell, an id=), a record longer than the room.
 */
static inline __attribute__((always_inline)) char *
event_fast(struct dec *d, const struct schema *x, const unsigned char **qp,
    const unsigned char *end, uint64_t ts, char *p, const char *lim)
{
	/* in locals: the text written through p could alias them */
	const struct field *f = x->f, *fend = f + x->nf;
	const unsigned char *q = *qp;
	size_t room = (size_t)(lim - p) - x->maxtext;

	if ((size_t)(end - q) < x->maxwire || !x->holder)
		return NULL;
	p = copy_padded(p, x->prefix, x->prefixlen);
	p = fmt_ts(d, p, ts);
	for (; f < fend; f++) {
		unsigned op = f->op;
		const struct pent *pe;
		uint64_t v, n, k;
		unsigned b, sh;

		if (op & OPT) {
			if (*q != 1) {
				if (*q != 0)
					return NULL;
				q++;
				p = copy_short(p, f->lead, f->leadlen);
				memcpy(p, "null", 4);
				p += 4;
				continue;
			}
			q++;
		}
		switch (op & 0x0f) {
		case T_VARINT:
			v = *q++;
			if (v >= 0x80) {
				b = *q++;
				v = (v & 0x7f) | (uint64_t)(b & 0x7f) << 7;
				if (b < 0x80) {
					if (b == 0)	/* not the shortest form */
						return NULL;
					break;
				}
				for (sh = 14;; sh += 7) {
					b = *q++;
					v |= (uint64_t)(b & 0x7f) << sh;
					if (b < 0x80)
						break;
					if (sh == 56)	/* 10 bytes: may be wrong */
						return NULL;
				}
				if (b == 0)	/* not the shortest form */
					return NULL;
			}
			break;
		case T_U8:
			v = *q++;
			break;
		case T_U16:
			v = tp_get_le16(q);
			q += 2;
			break;
		case T_U32:
			v = tp_get_le32(q);
			q += 4;
			break;
		case T_I64:
			v = tp_get_le64(q);
			q += 8;
			if ((int64_t)v < 0) {
				if (op & OP_TID) {
					memcpy(p, " tid=-", 6);
					p = tp_fmt_u64_wide(p + 6, (uint64_t)0 - v);
				}
				p = copy_short(p, f->lead, f->leadlen);
				*p = '-';
				p = tp_fmt_u64_wide(p + 1, (uint64_t)0 - v);
				continue;
			}
			break;
		case T_BOOL:
			if (*q > 1)
				return NULL;
			p = copy_short(p, f->lead, f->leadlen);
			memcpy(p, *q ? "true" : "false", 5);
			p += 5 - *q++;
			continue;
		case T_PSTRING:
		case T_PSTACK:
			pe = pool_get((op & 0x0f) == T_PSTRING ? &d->seg.strings :
			    &d->seg.stacks, tp_get_le32(q));
			if (pe == NULL || !pe->holder || pe->textlen + PAD > room)
				return NULL;
			q += 4;
			room -= pe->textlen + PAD;
			p = copy_short(p, f->lead, f->leadlen);
			p = copy_padded(p, pe->text, pe->textlen);
			continue;
		case T_STACK:
			n = tp_get_le32(q);
			if ((uint64_t)(end - q) < 4 + 8 * n + x->maxwire ||
			    19 * n + 2 + PAD > room)
				return NULL;
			room -= 19 * n + 2 + PAD;
			p = copy_short(p, f->lead, f->leadlen);
			*p++ = '[';
			for (k = 0; k < n; k++) {
				if (k > 0)
					*p++ = ',';
				p = tp_fmt_hex(p, tp_get_le64(q + 4 + 8 * k));
			}
			*p++ = ']';
			q += 4 + 8 * n;
			continue;
		default:	/* schema_fast() lets no other type by */
			__builtin_unreachable();
		}
		/* an integer */
		if (op & OP_TID) {
			memcpy(p, " tid=", 5);
			p = tp_fmt_u64_wide(p + 5, v);
		}
		p = copy_short(p, f->lead, f->leadlen);
		p = tp_fmt_u64_wide(p, v);
	}
	*qp = q;
	*p++ = '\n';
	return p;
}

static int
dec_event(struct dec *d, const unsigned char *p, const unsigned char *end,
    size_t *flen)
{
	const unsigned char *q = p + 3;
	struct schema *x;
	uint64_t ts = d->seg.base;
	uint32_t i;

	if (end - p < 3)
		return FR_MORE;
	x = seg_at(&d->seg, tp_get_le16(p + 1));
	if (x == NULL)
		return dec_fail(d, p, "event of type id %u before its schema",
		    tp_get_le16(p + 1));
	if (x->tsbyte) {
		uint32_t delta;
		if (end - q < 3)
			return FR_MORE;
		delta = (uint32_t)q[0] | (uint32_t)q[1] << 8 |
		    (uint32_t)q[2] << 16;
		if (ts + delta < ts)
			return dec_fail(d, q, "event %.*s: timestamp base %llu "
			    "+ delta %u overflows 64 bits",
			    (int)(x->namelen > 60 ? 60 : x->namelen),
			    (const char *)x->name, (unsigned long long)ts,
			    delta);
		ts += delta;
		q += 3;
	}
	for (i = 0; i < x->nf; i++) {
		struct val *v = &d->vals[i];
		unsigned t = x->f[i].tag;
		int rc;
		v->present = 1;
		if (t & OPT) {
			if (q >= end)
				return FR_MORE;
			v->present = *q++;
			if (!v->present)
				continue;
			t &= ~OPT;
		}
		if (end - q >= TP_LEB_MAX && parse_fast(d, t, &q, v))
			continue;
		rc = parse_value(d, t, &q, end, v, 0);
		if (rc == FR_BAD)
			return in_field(d, x, i);
		if (rc != FR_OK)
			return rc;
	}
	fmt_event(d, x, ts);
	*flen = (size_t)(q - p);
	if (x->tsbyte)
		d->seg.base = ts;
	d->st->events++;
	return FR_OK;
}

static int
dec_header(struct dec *d, const unsigned char *p, const unsigned char *end,
    size_t *flen)
{
	if (end - p < HEADER_LEN) {
		/* Say early when the bytes present cannot be a header. */
		size_t n = (size_t)(end - p) < 4 ? (size_t)(end - p) : 4;
		if (memcmp(p, "TRC", n) != 0)
			goto bad;
		return FR_MORE;
	}
	if (memcmp(p, "TRC", 4) != 0)
		goto bad;
	dial9_seg_reset(&d->seg);
	tw_begin(d->out, "dial9-header");
	tw_u64(d->out, "version", p[4]);
	tw_end(d->out);
	d->st->headers++;
	*flen = HEADER_LEN;
	return FR_OK;
bad:
	if (d->base + (uint64_t)(p - d->win) == 0)
		return dec_fail(d, p, "not a dial9 trace: no TRC\\0 header");
	return dec_fail(d, p, "unknown frame tag 0x%02x", p[0]);
}

static int
dec_schema(struct dec *d, const unsigned char *p, const unsigned char *end,
    size_t *flen)
{
	const unsigned char *q = p + 1;
	struct tp_out *o = d->out;
	struct schema *x;
	uint32_t id, nf, i;
	size_t namelen;
	int conflict;
	char tn[24];

	if (end - q < 4)
		return FR_MORE;
	id = tp_get_le16(q);
	namelen = tp_get_le16(q + 2);
	q += 4;
	if ((size_t)(end - q) < namelen + 3)
		return FR_MORE;
	q += namelen + 1;
	nf = tp_get_le16(q);
	q += 2;
	for (i = 0; i < nf; i++) {
		size_t fl;
		if (end - q < 2)
			return FR_MORE;
		fl = tp_get_le16(q);
		if ((size_t)(end - q) < fl + 3)
			return FR_MORE;
		if (!tag_ok(q[2 + fl]))
			return dec_fail(d, q + 2 + fl, "schema %.*s (type id %u), "
			    "field %u: unknown field type 0x%02x",
			    (int)(namelen > 60 ? 60 : namelen),
			    (const char *)p + 5, id, i, q[2 + fl]);
		q += fl + 3;
	}
	x = dial9_seg_register(&d->seg, id, p + 3, (size_t)(q - p - 3), &d->seen,
	    &d->seencap, &conflict);
	if (conflict)
		return dec_fail(d, p, "type id %u registered again with a "
		    "different schema (%.*s)", id,
		    (int)(namelen > 60 ? 60 : namelen), (const char *)p + 5);
	if (x == NULL)
		return dec_nomem(d);
	if (x->prefix == NULL) {
		/* "event name=NAME ts=", NAME bare or quoted, made once. */
		size_t cap = 11 + 4 * (size_t)x->namelen + 2 + 4, k;
		char *s = padded_alloc(&d->seg.arena, cap), *e;
		if (s == NULL)
			return dec_nomem(d);
		memcpy(s, "event name=", 11);
		e = s + 11;
		if (tp_bare_ok(x->name, x->namelen)) {
			memcpy(e, x->name, x->namelen);
			e += x->namelen;
		} else {
			*e++ = '"';
			e = tp_fmt_qbody(e, s + cap - 4, x->name, x->namelen, &k);
			*e++ = '"';
		}
		memcpy(e, " ts=", 4);
		e += 4;
		padded_trim(&d->seg.arena, s, (size_t)(e - s));
		x->prefix = s;
		x->prefixlen = (uint32_t)(e - s);
		for (i = 0; i < x->nf; i++) {
			struct field *f = &x->f[i];
			if ((s = padded_alloc(&d->seg.arena, f->keylen + 2)) == NULL)
				return dec_nomem(d);
			s[0] = ' ';
			memcpy(s + 1, f->key, f->keylen);
			s[1 + f->keylen] = '=';
			padded_trim(&d->seg.arena, s, f->keylen + 2);
			f->lead = s;
			f->leadlen = f->keylen + 2;
		}
		x->fast = schema_fast(x);
		if (tp_grow(&d->vals, &d->nvals, x->nf, sizeof *d->vals) < 0)
			return dec_nomem(d);
	}
	tw_begin(o, "dial9-schema");
	tw_u64(o, "id", id);
	tw_str(o, "name", x->name, x->namelen);
	tw_u64(o, "ts", p[5 + namelen]);	/* this frame's, not the first */
	tw_key(o, "fields");
	tv_open_map(o);
	for (i = 0; i < x->nf; i++) {
		if (i > 0)
			tv_sep(o);
		tv_mapkey(o, (const char *)x->f[i].name, x->f[i].namelen);
		tp_out_write(o, tn, dial9_tag_name(x->f[i].tag, tn));
	}
	tv_close_map(o);
	tw_end(o);
	d->st->schemas++;
	*flen = (size_t)(q - p);
	return FR_OK;
}

/* The text of a pool entry, made once at its definition. */
static int
pent_text(struct dec *d, struct pent *e, int stacks)
{
	size_t cap = stacks ? 19 * (size_t)(e->len / 8) + 2 : 4 * (size_t)e->len + 2;
	char *s = padded_alloc(&d->seg.arena, cap), *p = s;
	size_t k;

	if (s == NULL)
		return -1;
	if (stacks) {
		*p++ = '[';
		for (k = 0; k < e->len; k += 8) {
			if (k > 0)
				*p++ = ',';
			p = tp_fmt_hex(p, tp_get_le64(e->data + k));
		}
		*p++ = ']';
	} else {
		*p++ = '"';
		p = tp_fmt_qbody(p, s + cap, e->data, e->len, &k);
		*p++ = '"';
	}
	padded_trim(&d->seg.arena, s, (size_t)(p - s));
	e->text = s;
	e->textlen = (uint32_t)(p - s);
	return 0;
}

static int
dec_pool(struct dec *d, const unsigned char *p, const unsigned char *end,
    size_t *flen, int stacks)
{
	struct pool *pool = stacks ? &d->seg.stacks : &d->seg.strings;
	const unsigned char *q = p + 5;
	struct tp_out *o = d->out;
	uint64_t count, i;

	if (end - p < 5)
		return FR_MORE;
	count = tp_get_le32(p + 1);
	for (i = 0; i < count; i++) {
		uint64_t n;
		if (end - q < 8)
			return FR_MORE;
		n = tp_get_le32(q + 4);
		if ((uint64_t)(end - q - 8) / (stacks ? 8 : 1) < n)
			return FR_MORE;
		q += 8 + n * (stacks ? 8 : 1);
	}
	*flen = (size_t)(q - p);
	/* as the text writer would write it, without a call per item */
	if (stacks)
		tp_out_write(o, "dial9-stacks pool={", 19);
	else
		tp_out_write(o, "dial9-strings pool={", 20);
	for (q = p + 5, i = 0; i < count; i++) {
		uint32_t id = tp_get_le32(q);
		size_t n = (size_t)tp_get_le32(q + 4) * (stacks ? 8 : 1);
		struct pent *e = dial9_pool_define(pool, &d->seg.arena, id, q + 8, n);
		char *w;
		if (e == NULL || pent_text(d, e, stacks) < 0)
			return dec_nomem(d);
		w = tp_out_reserve(o, 24);
		if (i > 0)
			*w++ = ',';
		w = tp_fmt_u64_wide(w, id);
		*w++ = ':';
		tp_out_commit(o, w);
		tp_out_write(o, e->text, e->textlen);
		q += 8 + n;
	}
	tp_out_write(o, "}\n", 2);
	if (stacks)
		d->st->stack_pools++;
	else
		d->st->string_pools++;
	return FR_OK;
}

static int
dec_reset(struct dec *d, const unsigned char *p, const unsigned char *end,
    size_t *flen)
{
	uint64_t ts;
	char *o;

	if (end - p < 9)
		return FR_MORE;
	ts = tp_get_le64(p + 1);
	/* as tw_begin, tw_u64 and tw_end would write it, without the calls */
	o = tp_out_reserve(d->out, 64);
	memcpy(o, "dial9-reset ts=", 15);
	o = tp_fmt_u64_wide(o + 15, ts);
	*o++ = '\n';
	tp_out_commit(d->out, o);
	d->st->resets++;
	if (ts < d->seg.base)
		d->st->resets_back++;
	d->seg.base = ts;
	*flen = 9;
	return FR_OK;
}

static int
dec_annot(struct dec *d, const unsigned char *p, const unsigned char *end,
    size_t *flen)
{
	const unsigned char *q = p + 1, *r;
	struct tp_out *o = d->out;
	uint64_t id;
	uint32_t count, i;
	size_t l;
	int rc;

	rc = tp_uleb_get(q, (size_t)(end - q), &id, &l);
	if (rc == TP_LEB_TRUNC)
		return FR_MORE;
	if (rc != TP_LEB_OK)
		return dec_fail(d, q, "schema annotations: type id varint %s",
		    rc == TP_LEB_TOOLONG ? "longer than 10 bytes" :
		    "above 2^64-1");
	q += l;
	if (end - q < 2)
		return FR_MORE;
	count = tp_get_le16(q);
	q += 2;
	for (r = q, i = 0; i < count; i++) {
		size_t kl, vl;
		if (end - r < 4)
			return FR_MORE;
		kl = tp_get_le16(r + 2);
		if ((size_t)(end - r - 4) < kl + 4)
			return FR_MORE;
		vl = tp_get_le32(r + 4 + kl);
		if ((size_t)(end - r - 8 - kl) < vl)
			return FR_MORE;
		r += 8 + kl + vl;
	}
	*flen = (size_t)(r - p);
	tw_begin(o, "dial9-annotations");
	tw_u64(o, "id", id);
	if (l != tp_uleb_size(id))
		tw_u64(o, "idlen", l);
	tw_key(o, "list");
	tv_open_list(o);
	for (i = 0; i < count; i++) {
		size_t kl = tp_get_le16(q + 2), vl = tp_get_le32(q + 4 + kl);
		if (i > 0)
			tv_sep(o);
		tv_open_list(o);
		tv_u64(o, tp_get_le16(q));
		tv_sep(o);
		tv_str(o, q + 4, kl);
		tv_sep(o);
		tv_str(o, q + 8 + kl, vl);
		tv_close_list(o);
		q += 8 + kl + vl;
	}
	tv_close_list(o);
	tw_end(o);
	d->st->annotations++;
	return FR_OK;
}

static int
dec_frame(struct dec *d, size_t *flen)
{
	const unsigned char *p = d->win + d->pos, *end = d->win + d->len;

	if (d->base + d->pos == 0)
		return dec_header(d, p, end, flen);
	switch (p[0]) {
	case TAG_EVENT:
		return dec_event(d, p, end, flen);
	case TAG_SCHEMA:
		return dec_schema(d, p, end, flen);
	case TAG_STRINGS:
		return dec_pool(d, p, end, flen, 0);
	case TAG_STACKS:
		return dec_pool(d, p, end, flen, 1);
	case TAG_RESET:
		return dec_reset(d, p, end, flen);
	case TAG_ANNOT:
		return dec_annot(d, p, end, flen);
	case 'T':
		return dec_header(d, p, end, flen);
	default:
		return dec_fail(d, p, "unknown frame tag 0x%02x", p[0]);
	}
}

/*
 * The event frames from d->pos on that event_fast() writes, in a loop of
 * their own; the first it does not (another frame, an event that is not
 * the common case, a fault) is left to dec_frame().
 */
static void
event_run(struct dec *d)
{
	const unsigned char *p = d->win + d->pos, *end = d->win + d->len;
	uint64_t base = d->seg.base, n = 0, w;
	struct tp_out *o = d->out;
	char *t = tp_out_reserve(o, CUR_ROOM), *lim = t + CUR_ROOM, *e;

	/* the tag, the type id and the timestamp delta in one load */
	while (end - p >= 8 && (w = tp_get_le64(p), (w & 0xff) == TAG_EVENT)) {
		const struct schema *x = seg_at(&d->seg, (uint16_t)(w >> 8));
		const unsigned char *q = p + 3;
		uint64_t ts = base;
		if (x == NULL || !x->fast)
			break;
		if (x->tsbyte) {
			ts += (w >> 24) & 0xffffff;
			if (ts < base)
				break;
			q += 3;
		}
		/* schema_fast: x->maxtext <= CUR_ROOM / 2 */
		if (lim - t < CUR_ROOM / 2) {
			tp_out_commit(o, t);
			t = tp_out_reserve(o, CUR_ROOM);
			lim = t + CUR_ROOM;
		}
		if ((e = event_fast(d, x, &q, end, ts, t, lim)) == NULL)
			break;
		t = e;
		base = ts;
		n++;
		p = q;
	}
	tp_out_commit(o, t);
	d->seg.base = base;
	d->st->events += n;
	d->frames += n;
	d->pos = (size_t)(p - d->win);
}

static int
dec_run(struct dec *d)
{
	for (;;) {
		size_t flen, want;
		int rc;

		if (d->len - d->pos < WIN_LOW && !d->eof &&
		    win_fill(d, WIN_LOW) < 0)
			return -1;
		if (d->pos == d->len) {
			if (d->base == 0 && d->len == 0)
				return dec_fail(d, d->win, "empty input: not a "
				    "dial9 trace");
			return 0;
		}
		if (d->win[d->pos] == TAG_EVENT && d->base + d->pos > 0) {
			event_run(d);
			if (d->pos == d->len)
				continue;
		}
		rc = dec_frame(d, &flen);
		if (rc == FR_OK) {
			d->pos += flen;
			d->frames++;
			continue;
		}
		if (rc == FR_BAD)
			return -1;
		/* The frame goes on past the window. */
		if (d->eof) {
			unsigned tag = d->win[d->pos];
			const unsigned char *p = d->win + d->pos;
			if (d->base + d->pos == 0 || tag == 'T')
				return dec_fail(d, p, "truncated header: %zu "
				    "bytes", d->len - d->pos);
			return dec_fail(d, p, "truncated %s frame: only %zu "
			    "bytes left", frame_names[tag < 7 ? tag : 0],
			    d->len - d->pos);
		}
		if (d->len - d->pos >= DIAL9_FRAME_MAX)
			return dec_fail(d, d->win + d->pos, "%s frame longer than "
			    "%u bytes", frame_names[d->win[d->pos] < 7 ?
			    d->win[d->pos] : 0], DIAL9_FRAME_MAX);
		/* Twice the bytes, so that a long frame is parsed few times. */
		want = 2 * (d->len - d->pos) + 1;
		if (win_fill(d, want < DIAL9_FRAME_MAX ? want : DIAL9_FRAME_MAX) < 0)
			return -1;
	}
}

int
dial9_decode(struct tp_in *in, struct tp_out *out,
    const struct dial9_dec_opts *opts, struct dial9_dec_stats *st,
    struct tp_err *err)
{
	struct dec d;
	int rc;

	memset(st, 0, sizeof *st);
	st->stopped_at = TP_NONE;
	memset(&d, 0, sizeof d);
	d.in = in;
	d.out = out;
	d.err = err;
	d.st = st;
	d.win = in->buf;
	d.pos = d.len = in->pos;	/* nothing of it is the window yet */
	d.base = in->base;
	if (seg_init(&d.seg) < 0)
		rc = dec_nomem(&d);
	else
		rc = dec_run(&d);
	in->pos = d.pos;
	free(d.vals);
	free(d.seen);
	dial9_seg_free(&d.seg);
	if (rc < 0 && opts->lenient && err->status == TP_EXIT_DATA &&
	    !in->failed) {
		st->stopped_at = err->offset;
		memcpy(st->stop_msg, err->msg, sizeof st->stop_msg);
		tp_err_clear(err);
		rc = 0;
	}
	return rc < 0 ? -1 : 0;
}

