/*
 * The trace text stream: the only code that writes or reads a line.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/digits.h"
#include "base/fpconv.h"
#include "text/text.h"

/* ------------------------------------------------------------ characters */

/* 1: allowed in a bare string; 2: allowed in a key. */
static const unsigned char cclass[256] = {
	['A'] = 3, ['B'] = 3, ['C'] = 3, ['D'] = 3, ['E'] = 3, ['F'] = 3,
	['G'] = 3, ['H'] = 3, ['I'] = 3, ['J'] = 3, ['K'] = 3, ['L'] = 3,
	['M'] = 3, ['N'] = 3, ['O'] = 3, ['P'] = 3, ['Q'] = 3, ['R'] = 3,
	['S'] = 3, ['T'] = 3, ['U'] = 3, ['V'] = 3, ['W'] = 3, ['X'] = 3,
	['Y'] = 3, ['Z'] = 3,
	['a'] = 3, ['b'] = 3, ['c'] = 3, ['d'] = 3, ['e'] = 3, ['f'] = 3,
	['g'] = 3, ['h'] = 3, ['i'] = 3, ['j'] = 3, ['k'] = 3, ['l'] = 3,
	['m'] = 3, ['n'] = 3, ['o'] = 3, ['p'] = 3, ['q'] = 3, ['r'] = 3,
	['s'] = 3, ['t'] = 3, ['u'] = 3, ['v'] = 3, ['w'] = 3, ['x'] = 3,
	['y'] = 3, ['z'] = 3,
	['0'] = 3, ['1'] = 3, ['2'] = 3, ['3'] = 3, ['4'] = 3, ['5'] = 3,
	['6'] = 3, ['7'] = 3, ['8'] = 3, ['9'] = 3,
	['_'] = 3, ['.'] = 3, ['-'] = 3,
	[':'] = 1, ['/'] = 1, ['@'] = 1, ['%'] = 1, ['+'] = 1, ['#'] = 1,
};

#define IS_BARE(c) (cclass[(unsigned char)(c)] & 1)
#define IS_KEY(c) (cclass[(unsigned char)(c)] & 2)
#define IS_BLANK(c) ((c) == ' ' || (c) == '\t')

int
tp_bare_ok(const void *s, size_t n)
{
	const unsigned char *p = s;
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!IS_BARE(p[i]))
			return 0;
	/* Words the reader would take for another type stay quoted. */
	if ((n == 4 && memcmp(p, "true", 4) == 0) ||
	    (n == 5 && memcmp(p, "false", 5) == 0) ||
	    (n == 4 && memcmp(p, "null", 4) == 0))
		return 0;
	return 1;
}

int
tp_key_ok(const void *s, size_t n)
{
	const unsigned char *p = s;
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!IS_KEY(p[i]))
			return 0;
	return 1;
}

/* ---------------------------------------------------------------- writer */

void
tw_begin(struct tp_out *o, const char *kind)
{
	tp_out_puts(o, kind);
}

void
tw_end(struct tp_out *o)
{
	tp_out_putc(o, '\n');
}

void
tw_key(struct tp_out *o, const char *key)
{
	size_t n = strlen(key);
	char *p = tp_out_reserve(o, n + 2);

	*p++ = ' ';
	memcpy(p, key, n);
	p += n;
	*p++ = '=';
	tp_out_commit(o, p);
}

void
tv_u64(struct tp_out *o, uint64_t v)
{
	tp_out_commit(o, tp_fmt_u64(tp_out_reserve(o, 20), v));
}

void
tv_i64(struct tp_out *o, int64_t v)
{
	tp_out_commit(o, tp_fmt_i64(tp_out_reserve(o, 21), v));
}

void
tv_hex(struct tp_out *o, uint64_t v)
{
	tp_out_commit(o, tp_fmt_hex(tp_out_reserve(o, 18), v));
}

void
tv_bytes(struct tp_out *o, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n > 0) {
		size_t k = n < TP_OUT_SLACK / 2 ? n : TP_OUT_SLACK / 2;
		tp_out_commit(o, tp_fmt_hexbytes(tp_out_reserve(o, 2 * k), b, k));
		b += k;
		n -= k;
	}
}

/*
 * Are all 8 bytes of w printable ASCII other than '"' and '\\' (written
 * as they are in a quoted string)?  Each test sets a byte's top bit for
 * a byte that fails it: below 0x20, above 0x7e, equal to '"' or '\\'.
 */
static inline int
plain8(uint64_t w)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), high = ones * 0x80;
	uint64_t q = w ^ ones * '"', b = w ^ ones * '\\';

	return ((((w - ones * 0x20) & ~w) | ((w + ones) | w) |
	    ((q - ones) & ~q) | ((b - ones) & ~b)) & high) == 0;
}

char *
tp_fmt_qbody(char *d, const char *lim, const void *s, size_t n,
    size_t *used)
{
	const unsigned char *p = s;
	size_t i = 0;

	while (i < n && d < lim) {
		unsigned c;
		/* Eight bytes at a time while none needs an escape. */
		while (n - i >= 8 && lim - d >= 8) {
			uint64_t w;
			memcpy(&w, p + i, 8);
			if (!plain8(w))
				break;
			memcpy(d, &w, 8);
			d += 8;
			i += 8;
		}
		if (i == n)
			break;
		c = p[i];
		if (c >= 0x20 && c < 0x7f) {
			if (c == '"' || c == '\\')
				*d++ = '\\';
			*d++ = (char)c;
			i++;
		} else if (c >= 0x80) {
			size_t k = tp_utf8_seq(p + i, n - i);
			if (k == 0)
				goto hex;
			memcpy(d, p + i, k);
			d += k;
			i += k;
		} else if (c == '\n') {
			*d++ = '\\', *d++ = 'n', i++;
		} else if (c == '\r') {
			*d++ = '\\', *d++ = 'r', i++;
		} else if (c == '\t') {
			*d++ = '\\', *d++ = 't', i++;
		} else {
hex:
			*d++ = '\\', *d++ = 'x';
			memcpy(d, tp_hex2 + c * 2, 2);
			d += 2;
			i++;
		}
	}
	*used = i;
	return d;
}

void
tv_qstr(struct tp_out *o, const void *s, size_t n)
{
	const unsigned char *p = s;
	size_t i = 0, k;
	char *d;

	tp_out_putc(o, '"');
	while (i < n) {
		/* Room for a chunk; the worst case is 4 output bytes per byte. */
		d = tp_out_reserve(o, 4096);
		d = tp_fmt_qbody(d, d + 4096 - 8, p + i, n - i, &k);
		i += k;
		tp_out_commit(o, d);
	}
	tp_out_putc(o, '"');
}

void
tv_str(struct tp_out *o, const void *s, size_t n)
{
	if (tp_bare_ok(s, n))
		tp_out_write(o, s, n);
	else
		tv_qstr(o, s, n);
}

void
tv_bool(struct tp_out *o, int v)
{
	tp_out_puts(o, v ? "true" : "false");
}

void
tv_null(struct tp_out *o)
{
	tp_out_puts(o, "null");
}

size_t
tp_f64_text(char *buf, double v)
{
	return (size_t)(tp_fmt_f64(buf, v) - buf);
}

void
tv_f64(struct tp_out *o, double v)
{
	tp_out_commit(o, tp_fmt_f64(tp_out_reserve(o, TP_F64_TEXT_MAX), v));
}

void
tv_open_list(struct tp_out *o)
{
	tp_out_putc(o, '[');
}

void
tv_close_list(struct tp_out *o)
{
	tp_out_putc(o, ']');
}

void
tv_open_map(struct tp_out *o)
{
	tp_out_putc(o, '{');
}

void
tv_close_map(struct tp_out *o)
{
	tp_out_putc(o, '}');
}

void
tv_sep(struct tp_out *o)
{
	tp_out_putc(o, ',');
}

void
tv_mapkey(struct tp_out *o, const char *key, size_t n)
{
	if (tp_bare_ok(key, n) && memchr(key, ':', n) == NULL)
		tp_out_write(o, key, n);
	else
		tv_qstr(o, key, n);
	tp_out_putc(o, ':');
}

void
tw_u64(struct tp_out *o, const char *key, uint64_t v)
{
	tw_key(o, key);
	tv_u64(o, v);
}

void
tw_i64(struct tp_out *o, const char *key, int64_t v)
{
	tw_key(o, key);
	tv_i64(o, v);
}

void
tw_hex(struct tp_out *o, const char *key, uint64_t v)
{
	tw_key(o, key);
	tv_hex(o, v);
}

void
tw_bytes(struct tp_out *o, const char *key, const void *p, size_t n)
{
	tw_key(o, key);
	tv_bytes(o, p, n);
}

void
tw_str(struct tp_out *o, const char *key, const void *p, size_t n)
{
	tw_key(o, key);
	tv_str(o, p, n);
}

void
tw_qstr(struct tp_out *o, const char *key, const void *p, size_t n)
{
	tw_key(o, key);
	tv_qstr(o, p, n);
}

void
tw_bool(struct tp_out *o, const char *key, int v)
{
	tw_key(o, key);
	tv_bool(o, v);
}

void
tw_f64(struct tp_out *o, const char *key, double v)
{
	tw_key(o, key);
	tv_f64(o, v);
}

void
tw_null(struct tp_out *o, const char *key)
{
	tw_key(o, key);
	tv_null(o);
}

/* ---------------------------------------------------------------- reader */

void
tr_init(struct tr_reader *r, struct tp_in *in)
{
	r->in = in;
	r->err = in->err;
	r->lineno = 0;
}

int
tr_line(struct tr_reader *r, char **line, size_t *len)
{
	int rc = tp_in_line(r->in, line, len);

	if (rc > 0)
		r->lineno++;
	else if (rc < 0 && r->err->line == 0 && r->err->offset == TP_NONE)
		r->err->line = r->lineno + 1;
	return rc;
}

static int
syntax_error(struct tr_reader *r, const char *line, const char *at,
    const char *what)
{
	r->err->line = r->lineno;
	r->err->col = (uint64_t)(at - line) + 1;
	r->err->offset = TP_NONE;
	return tp_fail(r->err, TP_EXIT_DATA, "%s", what);
}

#define UNQUOTED "unexpected character in value (strings with such " \
	"characters must be quoted)"

/*
 * Check one value starting at p; returns its end, or NULL with *bad set
 * to where and *why to what is wrong.  depth > 0 inside a list or map,
 * where ',' ']' and '}' end a bare word.
 */
static const char *
scan_value(const char *p, const char *end, int depth, const char **bad,
    const char **why)
{
	if (depth > 64) {
		*bad = p, *why = "lists and maps nested too deeply";
		return NULL;
	}
	if (p < end && *p == '"') {
		for (p++; p < end; p++) {
			if (*p == '"')
				return p + 1;
			if (*p != '\\')
				continue;
			if (++p >= end)
				break;
			switch (*p) {
			case '\\': case '"': case 'n': case 'r': case 't':
				break;
			case 'x':
				if (end - p < 3 || tp_hexval(p[1]) < 0 ||
				    tp_hexval(p[2]) < 0) {
					*bad = p - 1, *why = "bad \\x escape";
					return NULL;
				}
				p += 2;
				break;
			default:
				*bad = p - 1, *why = "unknown escape in string";
				return NULL;
			}
		}
		*bad = end, *why = "unterminated string";
		return NULL;
	}
	if (p < end && (*p == '[' || *p == '{')) {
		char close = *p == '[' ? ']' : '}';
		int map = *p == '{';
		p++;
		if (p < end && *p == close)
			return p + 1;
		for (;;) {
			if (map) {
				const char *k = p;
				if (p < end && *p == '"') {
					p = scan_value(p, end, depth + 1, bad, why);
					if (p == NULL)
						return NULL;
				} else {
					while (p < end && IS_BARE(*p) && *p != ':')
						p++;
				}
				if (p == k || p >= end || *p != ':') {
					*bad = p, *why = "expected key: in map";
					return NULL;
				}
				p++;
			}
			if (p >= end || *p == ',' || *p == close || IS_BLANK(*p)) {
				*bad = p, *why = "missing value in list or map";
				return NULL;
			}
			p = scan_value(p, end, depth + 1, bad, why);
			if (p == NULL)
				return NULL;
			if (p < end && *p == ',') {
				p++;
				continue;
			}
			if (p < end && *p == close)
				return p + 1;
			*bad = p, *why = map ? "expected ',' or '}'" :
			    "expected ',' or ']'";
			return NULL;
		}
	}
	while (p < end && IS_BARE(*p))
		p++;
	if (p < end && !IS_BLANK(*p) &&
	    !(depth > 0 && (*p == ',' || *p == ']' || *p == '}'))) {
		*bad = p, *why = UNQUOTED;
		return NULL;
	}
	return p;
}

int
tr_dup_fail(struct tp_err *err, uint64_t lineno, const char *line,
    size_t len, const char *key)
{
	const char *e = key, *bad, *why;

	/* tr_peek_once's malformed value: the reader's own words. */
	if (*key == '"' || *key == '[' || *key == '{') {
		if (scan_value(key, line + len, 0, &bad, &why) != NULL)
			bad = key, why = "malformed value";
		err->line = lineno;
		err->col = (uint64_t)(bad - line) + 1;
		err->offset = TP_NONE;
		return tp_fail(err, TP_EXIT_DATA, "%s", why);
	}
	while (IS_KEY(*e))
		e++;
	err->line = lineno;
	err->col = (uint64_t)(key - line) + 1;
	err->offset = TP_NONE;
	return tp_fail(err, TP_EXIT_DATA, "key \"%.*s%s\" twice in one record",
	    e - key > 40 ? 40 : (int)(e - key), key, e - key > 40 ? "..." : "");
}

/*
 * tr_parse's bitmap of key hashes (4096 bits, in the record), for records
 * of DUP_HASH_FROM keys or more: set the bit of key k[0..n), and say
 * whether it was set.
 */
#define DUP_HASH_FROM 16

static int
dup_hash_add(uint64_t *words, const char *k, size_t n)
{
	uint32_t h = 0;
	uint64_t bit, *w;
	int was;

	while (n-- > 0)
		h = h * 33 + (unsigned char)*k++;
	h *= UINT32_C(2654435761);	/* its top 12 bits pick the bit */
	w = &words[h >> 26];
	bit = UINT64_C(1) << ((h >> 20) & 63);
	was = (*w & bit) != 0;
	*w |= bit;
	return was;
}

/* Has the record a field with key k[0..n) already? */
static int
tr_dup(const struct tr_rec *rec, const char *k, size_t n)
{
	for (size_t i = 0; i < rec->nf; i++)
		if (rec->f[i].keylen == n && memcmp(rec->f[i].key, k, n) == 0)
			return 1;
	return 0;
}

/*
 * Key k[0..n) meets an earlier key in tr_parse's mask *seen: is it one of
 * them?  From DUP_HASH_FROM keys on, the bitmap of hashes takes over:
 * made of the keys so far, it answers first, and *seen is made full so
 * that every key comes here to be added to it.  Not inlined: tr_parse's
 * loop keeps its registers (txt2rapidbin's records never come here).
 */
static __attribute__((noinline)) int
dup_key(struct tr_rec *rec, const char *k, size_t n, uint64_t *seen,
    int *hashed)
{
	if (!*hashed && rec->nf >= DUP_HASH_FROM) {
		memset(rec->keyhash, 0, sizeof rec->keyhash);
		for (size_t i = 0; i < rec->nf; i++)
			dup_hash_add(rec->keyhash, rec->f[i].key,
			    rec->f[i].keylen);
		*hashed = 1;
		*seen = UINT64_MAX;
	}
	if (*hashed && !dup_hash_add(rec->keyhash, k, n))
		return 0;
	return tr_dup(rec, k, n);
}

int
tr_parse(struct tr_reader *r, const char *line, size_t len, struct tr_rec *rec)
{
	const char *p = line, *end = line + len, *bad, *why;
	/*
	 * A key seen before makes the record malformed.  A 64-bit mask of
	 * (second byte, last byte, length) spares the comparisons for records whose
	 * keys all differ there; where two meet in it, the key is compared
	 * with those before it.  In a record of many keys (a full register
	 * dump: xmm3_1, xmm4_1...) the mask is full, and a bitmap of the
	 * keys' hashes takes over (dup_key), so that only a key whose hash
	 * was seen is compared.
	 */
	uint64_t seen = 0, bit;
	int hashed = 0;

	rec->line = line;
	rec->len = len;
	rec->lineno = r->lineno;
	rec->nf = 0;
	while (p < end && IS_BLANK(*p))
		p++;
	if (p == end || *p == '#')
		return 0;
	rec->kind = p;
	while (p < end && IS_KEY(*p))
		p++;
	rec->kindlen = (size_t)(p - rec->kind);
	if (rec->kindlen == 0 || (p < end && !IS_BLANK(*p)))
		return syntax_error(r, line, p, "bad record kind");
	for (;;) {
		struct tr_field *f;
		const char *k;

		while (p < end && IS_BLANK(*p))
			p++;
		if (p == end)
			return 1;
		k = p;
		while (p < end && IS_KEY(*p))
			p++;
		if (p == k || p == end || *p != '=')
			return syntax_error(r, line, p == k ? k : p,
			    "expected key=value");
		if (rec->nf == TR_MAXFIELDS)
			return syntax_error(r, line, k, "too many fields");
		/* k[1] is '=' for a key of one byte. */
		bit = UINT64_C(1) << (((unsigned char)k[1] +
		    (unsigned char)p[-1] * 2u + (unsigned)(p - k)) & 63);
		if ((seen & bit) && dup_key(rec, k, (size_t)(p - k), &seen,
		    &hashed))
			return tr_dup_fail(r->err, r->lineno, line, len, k);
		seen |= bit;
		f = &rec->f[rec->nf++];
		f->key = k;
		f->keylen = (uint32_t)(p - k);
		f->val = ++p;
		if (p < end && (*p == '"' || *p == '[' || *p == '{')) {
			p = scan_value(p, end, 0, &bad, &why);
			if (p == NULL)
				return syntax_error(r, line, bad, why);
		} else {
			/* A bare value, most of them: scan_value's loop, inline. */
			while (p < end && IS_BARE(*p))
				p++;
			if (p < end && !IS_BLANK(*p))
				return syntax_error(r, line, p, UNQUOTED);
		}
		if (p < end && !IS_BLANK(*p))
			return syntax_error(r, line, p,
			    "expected a blank after the value");
		f->vallen = (uint32_t)(p - f->val);
	}
}

int
tr_next(struct tr_reader *r, struct tr_rec *rec)
{
	char *line;
	size_t len;
	int rc;

	while ((rc = tr_line(r, &line, &len)) > 0) {
		rc = tr_parse(r, line, len, rec);
		if (rc != 0)
			return rc;
	}
	return rc;
}

int
tr_is(const struct tr_rec *rec, const char *kind)
{
	size_t n = strlen(kind);

	return rec->kindlen == n && memcmp(rec->kind, kind, n) == 0;
}

const struct tr_field *
tr_find(const struct tr_rec *rec, const char *key)
{
	size_t n = strlen(key), i;

	for (i = 0; i < rec->nf; i++)
		if (rec->f[i].keylen == n && memcmp(rec->f[i].key, key, n) == 0)
			return &rec->f[i];
	return NULL;
}

int
tr_fail(struct tr_reader *r, const struct tr_rec *rec, const struct tr_field *f,
    const char *fmt, ...)
{
	char msg[200], shown[TP_SHOW_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	r->err->line = rec->lineno;
	r->err->col = f ? (uint64_t)(f->val - rec->line) + 1 : 0;
	r->err->offset = TP_NONE;
	if (f == NULL)
		return tp_fail(r->err, TP_EXIT_DATA, "%s", msg);
	return tp_fail(r->err, TP_EXIT_DATA, "field \"%.*s\": \"%s\": %s",
	    (int)f->keylen, f->key, tp_show(shown, f->val, f->vallen), msg);
}

const char *
tp_show(char *buf, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	char *p = buf;

	for (size_t i = 0; i < n && i < 40; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\') {
			*p++ = (char)c;
		} else if (c == '\\') {
			*p++ = '\\';
			*p++ = '\\';
		} else {
			*p++ = '\\';
			*p++ = 'x';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	if (n > 40) {
		memcpy(p, "...", 3);
		p += 3;
	}
	*p = '\0';
	return buf;
}

static unsigned
key_hash(const char *k, size_t n)
{
	return ((unsigned)n * 7 + (unsigned char)k[0] +
	    (unsigned char)k[n - 1] * 3) & 63;
}

void
tr_keys_init(struct tr_keys *t, const char *const *key, unsigned n)
{
	unsigned i;

	t->key = key;
	t->n = n < TR_KEYS_MAX ? n : TR_KEYS_MAX;
	memset(t->head, -1, sizeof t->head);
	/* Backwards, so that each bucket lists its keys in table order. */
	for (i = t->n; i-- > 0;) {
		unsigned h = key_hash(key[i], strlen(key[i]));
		t->len[i] = (unsigned char)strlen(key[i]);
		t->next[i] = t->head[h];
		t->head[h] = (signed char)i;
	}
}

void
tr_fields(const struct tr_keys *t, const struct tr_rec *rec,
    const struct tr_field **f)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		f[i] = NULL;
	for (i = 0; i < rec->nf; i++) {
		const struct tr_field *fi = &rec->f[i];
		int k;
		if (fi->keylen == 0)
			continue;
		for (k = t->head[key_hash(fi->key, fi->keylen)]; k >= 0;
		    k = t->next[k])
			if (t->len[k] == fi->keylen &&
			    memcmp(t->key[k], fi->key, fi->keylen) == 0)
				break;
		if (k >= 0 && f[k] == NULL)
			f[k] = fi;
	}
}

/*
 * Are two skips' whys one cause?  Equal but for the numbers in them
 * ("seq=5", "at 0x1000"): a number names the record, not the cause.
 */
static int
same_why(const char *a, const char *b)
{
	static const char num[] = "0123456789abcdefABCDEFx";

	while (*a != '\0' && *a == *b) {
		if (*a >= '0' && *a <= '9') {
			a += strspn(a, num);
			b += strspn(b, num);
		} else
			a++, b++;
	}
	if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9')
		return same_why(a + strspn(a, num), b + strspn(b, num));
	return *a == *b;
}

/* The cause of sk->lost (or of sk->skip: cause NULL, keyed by why). */
static struct tr_cause *
cause_of(struct tr_cause *list, unsigned *n, const char *cause,
    const char *why, const char *other)
{
	unsigned i;

	for (i = 0; i < *n; i++)
		if (cause != NULL ? list[i].cause == cause ||
		    strcmp(list[i].cause, cause) == 0 :
		    same_why(list[i].first_why, why))
			break;
	if (i == *n) {
		if (*n == TR_CAUSES)
			cause = other;
		else
			++*n;
	}
	if (list[i].count == 0)
		list[i].cause = cause;
	return &list[i];
}

static void
count_cause(struct tr_cause *c, const struct tr_rec *rec, const char *why)
{
	if (c->count++ == 0) {
		c->first_line = rec->lineno;
		memcpy(c->first_why, why, sizeof c->first_why);
	}
}

int
tr_skip(struct tr_reader *r, const struct tr_rec *rec, struct tr_skips *sk,
    const char *fmt, ...)
{
	char why[sizeof sk->skip[0].first_why];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (sk->strict)
		return tr_fail(r, rec, NULL, "%s: %s", why, sk->cannot);
	sk->count++;
	count_cause(cause_of(sk->skip, &sk->nskip, NULL, why, "other causes"),
	    rec, why);
	return 0;
}

int
tr_lose(struct tr_reader *r, const struct tr_rec *rec, struct tr_skips *sk,
    const char *cause, const char *fmt, ...)
{
	char why[sizeof sk->lost[0].first_why];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (sk->strict)
		return tr_fail(r, rec, NULL, "%s: %s", why, cause);
	count_cause(cause_of(sk->lost, &sk->nlost, cause, why,
	    "other changes"), rec, why);
	return 0;
}

/*
 * The kinds of the formats' structure (trace-text(5)): what an encoder
 * of another format makes of its own, so never a loss.
 */
static int
structure_kind(const char *k, size_t n)
{
	static const char *const kinds[] = {
		"trac-header", "rapidbin-header", "std-header",
		"ucir-header", "ucir-frame", "dial9-header", "dial9-schema",
		"dial9-strings", "dial9-stacks", "dial9-reset", "wtf-header",
		"wtf-define", "wtf-chunk", "wtf-part",
	};
	size_t i;

	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strlen(kinds[i]) == n && memcmp(kinds[i], k, n) == 0)
			return 1;
	return 0;
}

int
tr_rebuilt(struct tr_skips *sk, const struct tr_rec *rec)
{
	unsigned i;

	if (!structure_kind(rec->kind, rec->kindlen))
		return 0;
	for (i = 0; i < sk->nrebuilt; i++)
		if (strlen(sk->rebuilt[i].kind) == rec->kindlen &&
		    memcmp(sk->rebuilt[i].kind, rec->kind, rec->kindlen) == 0)
			break;
	if (i == sk->nrebuilt) {
		if (sk->nrebuilt == TR_CAUSES)
			strcpy(sk->rebuilt[i].kind, "other structure");
		else {
			memcpy(sk->rebuilt[i].kind, rec->kind, rec->kindlen);
			sk->rebuilt[i].kind[rec->kindlen] = '\0';
			sk->nrebuilt++;
		}
	}
	sk->rebuilt[i].count++;
	return 1;
}

/* tp_hexval + 1 as a table (0: not a hex digit), for the number parser. */
static const unsigned char hexdigit[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
	['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/*
 * Eight hex digits at s as one word: their value, or -1 when a byte is
 * no hex digit.  Per byte, with no carry between bytes (each is below
 * 0x80 when added to): a digit is 0x30-0x39, a letter 0x61-0x66 once
 * lower-cased.
 */
static int64_t
hex8(const char *s)
{
	const uint64_t ones = UINT64_C(0x0101010101010101), high = ones * 0x80;
	uint64_t x, y, c, digit, letter, v;

	memcpy(&x, s, 8);
	y = x & ~high;
	c = y | ones * 0x20;
	digit = (y + ones * 0x50) & ~(y + ones * 0x46);
	letter = (c + ones * 0x1f) & ~(c + ones * 0x19);
	if (((digit | letter) & high) != high || (x & high) != 0)
		return -1;
	/* Letters have bit 6: 'a' (0x61) & 15 is 1, plus 9. */
	v = (y & ones * 0x0f) + ((y >> 6) & ones) * 9;
	/* The first digit is the lowest byte: the most significant nibble. */
	v = __builtin_bswap64(v);
	v = (v | v >> 4) & UINT64_C(0x00ff00ff00ff00ff);
	v = (v | v >> 8) & UINT64_C(0x0000ffff0000ffff);
	v = (v | v >> 16) & UINT64_C(0x00000000ffffffff);
	return (int64_t)v;
}

int
tp_parse_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	unsigned bad = 0;
	size_t i;

	/*
	 * Hex (registers, addresses: up to 16 digits) without a branch per
	 * digit: whether a byte was no digit is gathered in bad and asked
	 * once.  Up to 16 hex and 19 decimal digits cannot overflow.
	 */
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (n - 2 > 16) {
			/* Leading zeros: 0x0000000000000000001 is 1. */
			while (n - 2 > 16 && s[2] == '0')
				s++, n--;
			if (n - 2 > 16)
				return -1;
		}
		if (n - 2 > 8) {
			/*
			 * Registers and addresses: two words of eight
			 * digits, the first and the last eight (they overlap
			 * below 16 digits).
			 */
			int64_t a = hex8(s + 2), b = hex8(s + n - 8);
			if (a < 0 || b < 0)
				return -1;
			*v = (uint64_t)a >> 4 * (16 - (n - 2)) << 32 |
			    (uint64_t)b;
			return 0;
		}
		for (i = 2; i < n; i++) {
			unsigned h = hexdigit[(unsigned char)s[i]] - 1u;
			bad |= h;
			x = x << 4 | (h & 15u);
		}
		if (bad > 15)
			return -1;
		*v = x;
		return 0;
	}
	if (n == 0)
		return -1;
	if (n < 20) {
		/* Short numbers mostly (tid=3): a branch each is cheaper. */
		for (i = 0; i < n; i++) {
			unsigned d = (unsigned char)s[i] - '0';
			if (d > 9)
				return -1;
			x = x * 10 + d;
		}
		*v = x;
		return 0;
	}
	for (i = 0; i < n; i++) {
		unsigned d = (unsigned char)s[i] - '0';
		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

int
tp_parse_i64(const char *s, size_t n, int64_t *v)
{
	uint64_t x;

	if (n > 0 && s[0] == '-') {
		if (tp_parse_u64(s + 1, n - 1, &x) < 0 ||
		    x > (uint64_t)INT64_MAX + 1)
			return -1;
		*v = x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x;
		return 0;
	}
	if (tp_parse_u64(s, n, &x) < 0 || x > INT64_MAX)
		return -1;
	*v = (int64_t)x;
	return 0;
}

int
tr_u64(struct tr_reader *r, const struct tr_rec *rec, const struct tr_field *f,
    uint64_t *v)
{
	if (tp_parse_u64(f->val, f->vallen, v) < 0)
		return tr_fail(r, rec, f, f->vallen > 0 && f->val[0] == '-' ?
		    "negative value where an unsigned one is expected" :
		    "not an unsigned 64-bit number");
	return 0;
}

int
tr_i64(struct tr_reader *r, const struct tr_rec *rec, const struct tr_field *f,
    int64_t *v)
{
	if (tp_parse_i64(f->val, f->vallen, v) < 0)
		return tr_fail(r, rec, f, "not a signed 64-bit number");
	return 0;
}

int
tr_bool(struct tr_reader *r, const struct tr_rec *rec, const struct tr_field *f,
    int *v)
{
	if (f->vallen == 4 && memcmp(f->val, "true", 4) == 0)
		*v = 1;
	else if (f->vallen == 5 && memcmp(f->val, "false", 5) == 0)
		*v = 0;
	else
		return tr_fail(r, rec, f, "not true or false");
	return 0;
}

int
tr_f64(struct tr_reader *r, const struct tr_rec *rec, const struct tr_field *f,
    double *v)
{
	uint64_t bits;

	if (f->vallen > 4 && memcmp(f->val, "nan:", 4) == 0) {
		if (tp_parse_u64(f->val + 4, f->vallen - 4, &bits) < 0 ||
		    (bits & UINT64_C(0x7ff0000000000000)) !=
		    UINT64_C(0x7ff0000000000000) ||
		    (bits & UINT64_C(0x000fffffffffffff)) == 0)
			return tr_fail(r, rec, f, "bad NaN bit pattern");
		memcpy(v, &bits, sizeof bits);
		return 0;
	}
	if (f->vallen == 3 && memcmp(f->val, "nan", 3) == 0) {
		bits = UINT64_C(0x7ff8000000000000);
		memcpy(v, &bits, sizeof bits);
		return 0;
	}
	if (tp_parse_f64(f->val, f->vallen, v) < 0)
		return tr_fail(r, rec, f, "not a number");
	return 0;
}

int
tr_bytes(struct tr_reader *r, const struct tr_rec *rec, const struct tr_field *f,
    void *dst, size_t cap, size_t *n)
{
	unsigned char *d = dst;
	size_t i;

	if (f->vallen % 2 != 0)
		return tr_fail(r, rec, f, "odd number of hex digits");
	if (f->vallen / 2 > cap)
		return tr_fail(r, rec, f, "more than %zu bytes", cap);
	for (i = 0; i < f->vallen; i += 2) {
		int hi = tp_hexval(f->val[i]), lo = tp_hexval(f->val[i + 1]);
		if (hi < 0 || lo < 0)
			return tr_fail(r, rec, f, "not a hex byte string");
		d[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	*n = f->vallen / 2;
	return 0;
}

/* The length of the string a quoted value stands for. */
static size_t
unquoted_len(const char *val, size_t n)
{
	const char *p = val + 1, *end = val + n - 1;
	size_t k = 0;

	for (; p < end; p++, k++)
		if (*p == '\\')
			p += p[1] == 'x' ? 3 : 1;
	return k;
}

/* The byte the quoted text at *pp stands for; *pp moves past it. */
static inline char
unquote_at(const char **pp)
{
	const char *p = *pp;
	char c = *p;

	if (c == '\\') {
		switch (*++p) {
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'x':
			c = (char)(tp_hexval(p[1]) << 4 | tp_hexval(p[2]));
			p += 2;
			break;
		default: c = *p; break;
		}
	}
	*pp = p + 1;
	return c;
}

size_t
tp_unquote_part(const char **at, const char *end, char *dst, size_t room)
{
	const char *p = *at;
	size_t k = 0;

	/* Each escape is longer than its byte: room for all needs no count. */
	if ((size_t)(end - p) <= room)
		while (p < end)
			dst[k++] = unquote_at(&p);
	else
		while (p < end && k < room)
			dst[k++] = unquote_at(&p);
	*at = p;
	return k;
}

size_t
tp_unquote(const char *val, size_t n, char *dst)
{
	const char *p = val + 1, *end = val + n - 1;
	size_t k = 0;

	while (p < end)
		dst[k++] = unquote_at(&p);
	return k;
}

int
tr_str(struct tr_reader *r, const struct tr_rec *rec, const struct tr_field *f,
    void *dst, size_t cap, size_t *n)
{
	const char *p = f->val;

	if (f->vallen == 0 || *p != '"') {
		if (f->vallen > cap)
			return tr_fail(r, rec, f, "longer than %zu bytes", cap);
		if (f->vallen == 0 || *p == '[' || *p == '{')
			return tr_fail(r, rec, f, "not a string");
		memcpy(dst, p, f->vallen);
		*n = f->vallen;
		return 0;
	}
	/* Each escape is longer than its byte: the string is at most vallen - 2. */
	if (f->vallen - 2 > cap && unquoted_len(p, f->vallen) > cap)
		return tr_fail(r, rec, f, "longer than %zu bytes", cap);
	*n = tp_unquote(p, f->vallen, dst);
	return 0;
}

int
tr_is_null(const struct tr_field *f)
{
	return f->vallen == 4 && memcmp(f->val, "null", 4) == 0;
}

enum tr_kind
tr_value_kind(const char *v, size_t n)
{
	uint64_t u;
	int64_t i;
	double d;
	size_t k;

	if (n == 0)
		return TR_EMPTY;
	switch (v[0]) {
	case '"':
		return TR_STRING;
	case '[':
		return TR_LIST;
	case '{':
		return TR_MAP;
	}
	if (n == 4 && memcmp(v, "null", 4) == 0)
		return TR_NULL;
	if ((n == 4 && memcmp(v, "true", 4) == 0) ||
	    (n == 5 && memcmp(v, "false", 5) == 0))
		return TR_BOOL;
	if (tp_parse_u64(v, n, &u) == 0)
		return TR_UINT;
	if (tp_parse_i64(v, n, &i) == 0)
		return TR_INT;
	if ((n == 3 && (memcmp(v, "nan", 3) == 0 || memcmp(v, "inf", 3) == 0))
	    || (n == 4 && memcmp(v, "-inf", 4) == 0) ||
	    (n > 4 && memcmp(v, "nan:", 4) == 0))
		return TR_FLOAT;
	for (k = 0; k < n; k++)
		if (v[k] == '.' || v[k] == 'e' || v[k] == 'E')
			return tp_parse_f64(v, n, &d) == 0 ? TR_FLOAT : TR_WORD;
	return TR_WORD;
}

int
tr_get_u64(struct tr_reader *r, const struct tr_rec *rec, const char *key,
    uint64_t *v, int required)
{
	const struct tr_field *f = tr_find(rec, key);

	if (f == NULL) {
		if (!required)
			return 0;
		return tr_fail(r, rec, NULL, "%.*s record without field \"%s\"",
		    (int)rec->kindlen, rec->kind, key);
	}
	return tr_u64(r, rec, f, v) < 0 ? -1 : 1;
}

int
tr_elem(const char **cur, const char *end, const char **key, size_t *keylen,
    const char **val, size_t *vallen)
{
	const char *p = *cur, *bad, *why;
	int map;

	if (p >= end)
		return 0;
	if (*p == '[' || *p == '{')
		p++;			/* first call: step into the container */
	else if (*p == ',')
		p++;
	else
		return 0;		/* at the closing bracket */
	if (p < end && (*p == ']' || *p == '}')) {
		*cur = p;
		return 0;
	}
	map = 0;
	if (key != NULL) {
		/* A map element is key ':' value; the key has no '[' or '{'. */
		const char *q = p;
		if (q < end && *q == '"')
			q = scan_value(q, end, 1, &bad, &why);
		else
			while (q < end && IS_BARE(*q) && *q != ':')
				q++;
		if (q != NULL && q < end && *q == ':' && q > p) {
			map = 1;
			*key = p;
			*keylen = (size_t)(q - p);
			p = q + 1;
		}
	}
	if (!map && key != NULL) {
		*key = NULL;
		*keylen = 0;
	}
	*val = p;
	p = scan_value(p, end, 1, &bad, &why);
	if (p == NULL)
		return 0;
	*vallen = (size_t)(p - *val);
	*cur = p;
	return 1;
}

/* The next '=' in [p, end), or NULL; inline, as lines are short. */
static inline const char *
next_eq(const char *p, const char *end)
{
#ifdef __SSE2__
	const __m128i eq = _mm_set1_epi8('=');

	for (; end - p >= 16; p += 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
		    _mm_loadu_si128((const __m128i *)(const void *)p), eq));
		if (m != 0)
			return p + __builtin_ctz(m);
	}
#endif
	for (; p < end; p++)
		if (*p == '=')
			return p;
	return NULL;
}

/* Is [eq - keylen, eq) the whole key, after a blank? */
static inline int
key_before(const char *line, const char *eq, const char *key, size_t keylen)
{
	const char *k = eq - keylen;
	size_t i;

	if ((size_t)(eq - line) <= keylen || !IS_BLANK(k[-1]))
		return 0;
	for (i = 0; i < keylen; i++)
		if (k[i] != key[i])
			return 0;
	return 1;
}

/*
 * Is there, in [p, end), a blank, one of the keys and '='?  Perhaps in a
 * quoted value: a yes is only a reason to look closer.  16 bytes at a
 * time, the last ones by a load that ends at end (bytes before p masked
 * off); an '=' is a candidate when a blank and the key's first byte
 * stand where they would (three compares per key), and only candidates
 * are compared whole.  p - line > the longest keylen (p is past a key).
 */
static inline int
keys_ahead(const char *line, const char *p, const char *end,
    const char *const *key, const size_t *keylen, unsigned nkeys)
{
	unsigned k;

#ifdef __SSE2__
	const __m128i eq = _mm_set1_epi8('='), sp = _mm_set1_epi8(' '),
	    tab = _mm_set1_epi8('\t');

	while (end - p > 0) {
		const char *q = end - p >= 16 ? p : end - 16;
		unsigned m, cand = 0;

		if (q < line)
			break;
		m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
		    _mm_loadu_si128((const __m128i *)(const void *)q), eq)) &
		    (~0u << (p - q));
		for (k = 0; m != 0 && k < nkeys; k++) {
			const char *s = q - keylen[k];
			__m128i b, c;

			if (s - 1 < line) {
				cand = m;	/* too near the start: all */
				break;
			}
			b = _mm_loadu_si128((const __m128i *)(const void *)(s - 1));
			c = _mm_loadu_si128((const __m128i *)(const void *)s);
			cand |= (unsigned)_mm_movemask_epi8(_mm_and_si128(
			    _mm_or_si128(_mm_cmpeq_epi8(b, sp),
			    _mm_cmpeq_epi8(b, tab)),
			    _mm_cmpeq_epi8(c, _mm_set1_epi8(key[k][0]))));
		}
		for (m &= cand; m != 0; m &= m - 1)
			for (k = 0; k < nkeys; k++)
				if (key_before(line, q + __builtin_ctz(m), key[k],
				    keylen[k]))
					return 1;
		p = q + 16;
	}
#endif
	for (; p < end; p++)
		for (k = 0; *p == '=' && k < nkeys; k++)
			if (key_before(line, p, key[k], keylen[k]))
				return 1;
	return 0;
}

/*
 * One pass over the line, from '=' to '='.  Outside quoted,
 * list and map values every '=' ends a key: keys, kinds and bare values
 * cannot hold one.  So the key is checked backwards from each '=', and a
 * value that may hold quotes ('"', '[' or '{') is skipped whole.
 *
 * It looks for up to 32 keys at once (each key once in keys[]) and
 * returns a bit mask of the keys found and their values.  With dup NULL
 * it stops when all are found; otherwise it reads on to the end of the
 * line (quickly, keys_ahead, unless a key may be there) and stops at a
 * second field with one of the keys, which *dup then points at (else
 * NULL).  Inline, so that each caller gets a loop over a constant count
 * and no test of dup it does not need.
 */
static inline uint32_t
peek_keys(const char *line, size_t len, const char *const *key,
    const size_t *keylen, unsigned nkeys, const char **val, size_t *vallen,
    const char **dup)
{
	const char *p = line, *end = line + len, *eq, *bad, *why;
	uint32_t found = 0, all = nkeys >= 32 ? UINT32_MAX :
	    (UINT32_C(1) << nkeys) - 1;

	if (dup != NULL)
		*dup = NULL;

	while ((eq = next_eq(p, end)) != NULL) {
		const char *v = eq + 1;
		unsigned which;

		for (which = 0; which < nkeys; which++)
			if (key_before(line, eq, key[which], keylen[which]))
				break;
		if (v < end && (*v == '"' || *v == '[' || *v == '{')) {
			if ((p = scan_value(v, end, 0, &bad, &why)) == NULL) {
				/* The keys after it are out of sight: a filter
				   refuses the line (tr_dup_fail says why), an
				   encoder's reader will. */
				if (dup == NULL)
					return 0;
				*dup = v;
				return found;
			}
		} else {
			/* A bare value holds no '=': look for its end only if wanted. */
			p = v;
			if (which < nkeys)
				while (p < end && !IS_BLANK(*p))
					p++;
		}
		if (which >= nkeys)
			continue;
		if (!(found & (UINT32_C(1) << which))) {
			val[which] = v;
			vallen[which] = (size_t)(p - v);
			found |= UINT32_C(1) << which;
			/* The rest is read closely only if a key may be in it. */
			if (found == all && (dup == NULL || !keys_ahead(line,
			    p, end, key, keylen, nkeys)))
				break;
		} else if (dup != NULL) {
			*dup = eq - keylen[which];
			return found;
		}
	}
	return found;
}

int
tr_peek(const char *line, size_t len, const char *key, size_t keylen,
    const char **val, size_t *vallen)
{
	return (int)peek_keys(line, len, &key, &keylen, 1, val, vallen, NULL);
}

int
tr_peek_once(const char *line, size_t len, const char *key, size_t keylen,
    const char **val, size_t *vallen, const char **dup)
{
	return (int)peek_keys(line, len, &key, &keylen, 1, val, vallen, dup);
}

unsigned
tr_peek2(const char *line, size_t len, const char *key1, size_t keylen1,
    const char *key2, size_t keylen2, const char *val[2], size_t vallen[2])
{
	const char *keys[2] = { key1, key2 };
	size_t lens[2] = { keylen1, keylen2 };

	return peek_keys(line, len, keys, lens, 2, val, vallen, NULL);
}

uint32_t
tr_peekn_once(const char *line, size_t len, const char *const *keys,
    const size_t *keylens, unsigned nkeys, const char **vals,
    size_t *vallens, const char **dup)
{
	return peek_keys(line, len, keys, keylens, nkeys > 32 ? 32 : nkeys,
	    vals, vallens, dup);
}

/* ---------------------------------------------------------- shared kinds */

#define M3 "\377\377\377"
#define M4 M3 "\377"
#define M5 M4 "\377"
#define M6 M5 "\377"
#define M7 M6 "\377"
#define KIND(name, c0, c2, n, mask, kind) \
	[TP_KIND_HASH(c0, c2, n)] = { name, mask, n, kind }

const struct tp_kind_name tp_kind_tab[32] = {
	KIND("insn", 'i', 's', 4, M4, TK_INSN),
	KIND("read", 'r', 'a', 4, M4, TK_READ),
	KIND("write", 'w', 'i', 5, M5, TK_WRITE),
	KIND("acquire", 'a', 'q', 7, M7, TK_ACQUIRE),
	KIND("release", 'r', 'l', 7, M7, TK_RELEASE),
	KIND("request", 'r', 'q', 7, M7, TK_REQUEST),
	KIND("fork", 'f', 'r', 4, M4, TK_FORK),
	KIND("join", 'j', 'i', 4, M4, TK_JOIN),
	KIND("begin", 'b', 'g', 5, M5, TK_BEGIN),
	KIND("end", 'e', 'd', 3, M3, TK_END),
	KIND("branch", 'b', 'a', 6, M6, TK_BRANCH),
	KIND("event", 'e', 'e', 5, M5, TK_EVENT),
};
