/*
 * JSON scanner and writer.
 */
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/digits.h"
#include "base/utf8.h"
#include "text/json.h"

/* ---------------------------------------------------------------- scanner */

const char *
tp_json_ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* The first fault found: what, and the byte it is at.  Returns NULL. */
static const char *
json_fail(struct tp_json *j, const char *at, enum tp_json_status st,
    const char *why)
{
	if (j->status == TP_JSON_OK) {
		j->status = st;
		j->pos = (size_t)(at - j->base);
		j->why = why;
	}
	return NULL;
}

/* p at '"'; the end after the closing quote, or NULL. */
static const char *
json_string(struct tp_json *j, const char *p, const char *e)
{
	const char *q = p;
	int lax = (j->flags & TP_JSON_LAX) != 0;

	for (p++; p < e;) {
		unsigned char c;
		size_t n;

#ifdef __SSE2__
		/*
		 * Most of a trace's strings is plain ASCII: skip it 16 bytes
		 * at a time up to the first byte the loop below must see (a
		 * quote, a backslash, a control or a byte of UTF-8; signed,
		 * the last two are both below ' ').
		 */
		while (e - p >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const
			    void *)p);
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
			    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
			    _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
			    _mm_cmplt_epi8(v, _mm_set1_epi8(' '))));
			if (m != 0) {
				p += __builtin_ctz(m);
				break;
			}
			p += 16;
		}
		if (p >= e)
			break;
#endif
		c = (unsigned char)*p;
		if (c == '"')
			return p + 1;
		if (c == '\\') {
			if (p + 1 >= e)
				break;
			if (p[1] == 'u' && !lax) {
				int i;
				for (i = 2; i <= 5; i++)
					if (p + i >= e || tp_hexval(p[i]) < 0)
						return json_fail(j, p,
						    TP_JSON_SYNTAX, "a \\u escape "
						    "without four hex digits");
				p += 6;
			} else if (lax || (p[1] != '\0' &&
			    strchr("\"\\/bfnrt", p[1]) != NULL)) {
				p += 2;
			} else {
				return json_fail(j, p, TP_JSON_SYNTAX,
				    "an unknown escape in a string");
			}
			continue;
		}
		if (c < 0x20 && !lax)
			return json_fail(j, p, TP_JSON_SYNTAX, "a control "
			    "character in a string");
		n = c < 0x80 ? 1 : tp_utf8_seq((const unsigned char *)p,
		    (size_t)(e - p));
		if (n == 0)
			return json_fail(j, p, TP_JSON_UTF8, "not UTF-8 in a "
			    "string");
		p += n;
	}
	return json_fail(j, q, TP_JSON_SYNTAX, "a string without its "
	    "closing quote");
}

static const char *
json_digits(const char *p, const char *e)
{
	const char *s = p;

	while (p < e && *p >= '0' && *p <= '9')
		p++;
	return p > s ? p : NULL;
}

/* number = [ "-" ] ( "0" / 1-9 *DIGIT ) [ "." 1*DIGIT ] [ e [+-] 1*DIGIT ] */
static const char *
json_number(const char *p, const char *e)
{
	if (p < e && *p == '-')
		p++;
	if (p < e && *p == '0') {
		if (++p < e && *p >= '0' && *p <= '9')
			return NULL;	/* a leading zero */
	} else if ((p = json_digits(p, e)) == NULL) {
		return NULL;
	}
	if (p < e && *p == '.' && (p = json_digits(p + 1, e)) == NULL)
		return NULL;
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if ((p = json_digits(p, e)) == NULL)
			return NULL;
	}
	return p;
}

static const char *
json_lit(const char *p, const char *e, const char *lit, size_t n)
{
	return (size_t)(e - p) >= n && memcmp(p, lit, n) == 0 ? p + n : NULL;
}

static const char *
json_value(struct tp_json *j, const char *p, const char *e, int depth)
{
	const char *end;
	char close;
	int obj;

	if (p >= e)
		return json_fail(j, p, TP_JSON_SYNTAX, "expected a value");
	if (*p == '"')
		return json_string(j, p, e);
	if (*p == 't' || *p == 'f' || *p == 'n') {
		end = *p == 't' ? json_lit(p, e, "true", 4) : *p == 'f' ?
		    json_lit(p, e, "false", 5) : json_lit(p, e, "null", 4);
		return end != NULL ? end : json_fail(j, p, TP_JSON_SYNTAX,
		    "expected true, false or null");
	}
	if (*p == '-' || (*p >= '0' && *p <= '9'))
		return (end = json_number(p, e)) != NULL ? end :
		    json_fail(j, p, TP_JSON_SYNTAX, "a malformed number");
	if (*p != '{' && *p != '[')
		return json_fail(j, p, TP_JSON_SYNTAX, "expected a value");
	if (depth >= TP_JSON_MAXDEPTH)
		return json_fail(j, p, TP_JSON_DEPTH, "nested deeper than "
		    TP_JSON_MAXDEPTH_S " arrays and objects");
	obj = *p == '{';
	close = obj ? '}' : ']';
	p = tp_json_ws(p + 1, e);
	if (p < e && *p == close)
		return p + 1;
	for (;;) {
		if (obj) {
			if (p >= e || *p != '"')
				return json_fail(j, p, TP_JSON_SYNTAX,
				    "expected a string key");
			if ((p = json_string(j, p, e)) == NULL)
				return NULL;
			p = tp_json_ws(p, e);
			if (p >= e || *p != ':')
				return json_fail(j, p, TP_JSON_SYNTAX,
				    "expected ':' after a key");
			p = tp_json_ws(p + 1, e);
		}
		if ((p = json_value(j, p, e, depth + 1)) == NULL)
			return NULL;
		p = tp_json_ws(p, e);
		if (p < e && *p == ',') {
			p = tp_json_ws(p + 1, e);
			continue;
		}
		if (p < e && *p == close)
			return p + 1;
		return json_fail(j, p, TP_JSON_SYNTAX, obj ?
		    "expected ',' or '}'" : "expected ',' or ']'");
	}
}

const char *
tp_json_value(struct tp_json *j, const char *p, const char *e)
{
	const char *end;

	if (j->base == NULL)
		j->base = p;
	if ((end = json_value(j, p, e, 0)) == NULL && j->status == TP_JSON_OK)
		json_fail(j, p, TP_JSON_SYNTAX, "not JSON");
	return end;
}

int
tp_json_check(struct tp_json *j, const char *s, size_t n, unsigned flags)
{
	const char *e = s + n, *end;

	memset(j, 0, sizeof *j);
	j->flags = flags;
	j->base = s;
	end = tp_json_value(j, tp_json_ws(s, e), e);
	if (end != NULL && (end = tp_json_ws(end, e)) != e)
		json_fail(j, end, TP_JSON_SYNTAX, "more data after the value");
	return j->status == TP_JSON_OK ? 0 : -1;
}

int
tp_json_member(const char **cur, const char *e, const char **key,
    size_t *keylen, const char **val, const char **valend)
{
	/* Valid input: a lax scan finds the same ends as the strict one. */
	struct tp_json j = { TP_JSON_LAX, NULL, TP_JSON_OK, 0, NULL };
	const char *p, *ke;

	if (**cur == '}')
		return 0;
	p = tp_json_ws(*cur + 1, e);
	if (p >= e || *p != '"')
		return 0;
	if ((ke = json_string(&j, p, e)) == NULL)
		return 0;
	*key = p + 1;
	*keylen = (size_t)(ke - 1 - *key);
	*val = tp_json_ws(tp_json_ws(ke, e) + 1, e);
	if ((*valend = tp_json_value(&j, *val, e)) == NULL)
		return 0;
	/* On the ',' before the next member or the closing '}'. */
	*cur = tp_json_ws(*valend, e);
	return 1;
}

int
tp_json_element(const char **cur, const char *e, const char **val,
    const char **valend)
{
	struct tp_json j = { TP_JSON_LAX, NULL, TP_JSON_OK, 0, NULL };
	const char *p;

	if (**cur == ']')
		return 0;
	p = tp_json_ws(*cur + 1, e);
	if (p >= e || *p == ']')
		return 0;
	*val = p;
	if ((*valend = tp_json_value(&j, p, e)) == NULL)
		return 0;
	/* On the ',' before the next element or the closing ']'. */
	*cur = tp_json_ws(*valend, e);
	return 1;
}

/* Four hex digits at p (p + 4 <= e), or -1. */
static long
hex4(const char *p, const char *e)
{
	long v = 0;
	int i, h;

	if (e - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		if ((h = tp_hexval(p[i])) < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/*
 * The \u escape at p (p[0] is the backslash): its code point, joined
 * with the low surrogate escape after it when they make a pair, and in
 * *len the bytes it takes; -1 when its four digits are not hex.  A lone
 * surrogate is returned as it is.
 */
static long
u_escape(const char *p, const char *e, size_t *len)
{
	long c = hex4(p + 2, e), lo;

	*len = 6;
	if (c >= 0xd800 && c <= 0xdbff && e - p >= 12 && p[6] == '\\' &&
	    p[7] == 'u' && (lo = hex4(p + 8, e)) >= 0xdc00 && lo <= 0xdfff) {
		*len = 12;
		return 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
	}
	return c;
}

const char *
tp_json_lone_surrogate(const char *p, const char *e)
{
	size_t len;
	long c;

	while (p < e && (p = memchr(p, '\\', (size_t)(e - p))) != NULL) {
		if (e - p < 2 || p[1] != 'u') {
			p += 2;
			continue;
		}
		if ((c = u_escape(p, e, &len)) >= 0xd800 && c <= 0xdfff)
			return p;
		p += len;
	}
	return NULL;
}

size_t
tp_json_unescape(const char *v, const char *ve, char *out, size_t cap)
{
	size_t n = 0;

	for (v++, ve--; v < ve; v++) {
		char buf[4];
		size_t k = 1, len;
		long c;

		buf[0] = *v;
		if (*v == '\\' && v + 1 < ve) {
			switch (*++v) {
			case 'b': buf[0] = '\b'; break;
			case 'f': buf[0] = '\f'; break;
			case 'n': buf[0] = '\n'; break;
			case 'r': buf[0] = '\r'; break;
			case 't': buf[0] = '\t'; break;
			case 'u':
				if ((c = u_escape(v - 1, ve, &len)) < 0) {
					buf[0] = 'u';	/* lax input */
					break;
				}
				v += len - 2;
				if (c >= 0xd800 && c <= 0xdfff)
					c = 0xfffd;
				k = tp_utf8_put(buf, (uint32_t)c);
				break;
			default: buf[0] = *v; break;
			}
		}
		if (cap - n < k)
			return SIZE_MAX;
		memcpy(out + n, buf, k);
		n += k;
	}
	return n;
}

/* ---------------------------------------------------------------- writer */

/*
 * What of s[0..n) fits in [d, e), escaped without quotes: the end
 * written, *used the bytes of s taken (whole characters).  At least 6
 * bytes of room (the longest escape) take one character or more.
 */
static char *
escape_part(char *d, char *e, const unsigned char *s, size_t n,
    unsigned flags, size_t *used)
{
	/* the short escapes, without flags and with TP_JSON_ESC_U */
	static const char esc[2][32] = {
		{ ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r',
		    ['\t'] = 't' },
		{ ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't' }
	};
	const char *short_esc = esc[(flags & TP_JSON_ESC_U) != 0];
	size_t i = 0, run;

	while (i < n) {
		size_t room = (size_t)(e - d);
		size_t stop = n - i > room ? i + room : n;
		unsigned char c;

		/* The longest run written as it is, up to stop (what fits). */
		for (run = i; run < stop; ) {
			size_t k;
			c = s[run];
			if (c < 0x20 || c == '"' || c == '\\')
				break;
			if (c < 0x80 || (flags & TP_JSON_ESC_BYTES))
				run++;
			else if ((k = tp_utf8_seq(s + run, n - run)) == 0 ||
			    run + k > stop)
				break;
			else
				run += k;
		}
		memcpy(d, s + i, run - i);
		d += run - i;
		i = run;
		if (i == n || e - d < 6)
			break;
		c = s[i++];
		if (c >= 0x80) {
			memcpy(d, "\xef\xbf\xbd", 3);	/* U+FFFD */
			d += 3;
		} else if (c == '"' || c == '\\' || short_esc[c] != 0) {
			d[0] = '\\';
			d[1] = c == '"' || c == '\\' ? (char)c : short_esc[c];
			d += 2;
		} else {
			memcpy(d, "\\u00", 4);
			d[4] = tp_hex2[c * 2];
			d[5] = tp_hex2[c * 2 + 1];
			d += 6;
		}
	}
	*used = i;
	return d;
}

char *
tp_json_escape(char *d, const void *s, size_t n, unsigned flags)
{
	size_t used;

	*d++ = '"';
	d = escape_part(d, d + 6 * n, s, n, flags, &used);
	*d++ = '"';
	return d;
}

/* Bytes escaped at a time into the output's room. */
#define JSON_PIECE 4096

void
tp_json_put_body(struct tp_out *o, const void *s, size_t n)
{
	const unsigned char *p = s;
	size_t used;

	while (n > 0) {
		char *d = tp_out_reserve(o, JSON_PIECE);

		d = escape_part(d, d + JSON_PIECE, p, n, 0, &used);
		tp_out_commit(o, d);
		p += used;
		n -= used;
	}
}

void
tp_json_put_str(struct tp_out *o, const void *s, size_t n)
{
	if (TP_JSON_ESC_MAX(n) <= JSON_PIECE) {	/* in one move: most are */
		char *d = tp_out_reserve(o, JSON_PIECE);
		tp_out_commit(o, tp_json_escape(d, s, n, 0));
		return;
	}
	tp_out_putc(o, '"');
	tp_json_put_body(o, s, n);
	tp_out_putc(o, '"');
}

void
tp_jw_init(struct tp_jw *w, struct tp_out *o)
{
	w->o = o;
	w->depth = 0;
	w->empty = 1;
	w->after_key = 0;
}

/* Before a value or a key: a separator and the indentation. */
static void
jw_place(struct tp_jw *w)
{
	int i;

	if (w->after_key) {
		w->after_key = 0;
		return;
	}
	if (w->depth == 0)
		return;
	tp_out_puts(w->o, w->empty ? "\n" : ",\n");
	for (i = 0; i < w->depth; i++)
		tp_out_write(w->o, "  ", 2);
}

static void
jw_open(struct tp_jw *w, char c)
{
	jw_place(w);
	tp_out_putc(w->o, c);
	w->depth++;
	w->empty = 1;
}

static void
jw_close(struct tp_jw *w, char c)
{
	int i;

	w->depth--;
	if (!w->empty) {
		tp_out_putc(w->o, '\n');
		for (i = 0; i < w->depth; i++)
			tp_out_write(w->o, "  ", 2);
	}
	tp_out_putc(w->o, c);
	w->empty = 0;
}

void tp_jw_open_object(struct tp_jw *w) { jw_open(w, '{'); }
void tp_jw_close_object(struct tp_jw *w) { jw_close(w, '}'); }
void tp_jw_open_array(struct tp_jw *w) { jw_open(w, '['); }
void tp_jw_close_array(struct tp_jw *w) { jw_close(w, ']'); }

void
tp_jw_key(struct tp_jw *w, const char *key, size_t n)
{
	jw_place(w);
	tp_json_put_str(w->o, key, n);
	tp_out_write(w->o, ": ", 2);
	w->after_key = 1;
	w->empty = 0;
}

/* A scalar already formatted in [b, e). */
static void
jw_scalar(struct tp_jw *w, const char *b, size_t n)
{
	jw_place(w);
	tp_out_write(w->o, b, n);
	w->empty = 0;
}

void
tp_jw_u64(struct tp_jw *w, uint64_t v)
{
	char b[24];
	jw_scalar(w, b, (size_t)(tp_fmt_u64(b, v) - b));
}

void
tp_jw_i64(struct tp_jw *w, int64_t v)
{
	char b[24];
	jw_scalar(w, b, (size_t)(tp_fmt_i64(b, v) - b));
}

void
tp_jw_bool(struct tp_jw *w, int v)
{
	jw_scalar(w, v ? "true" : "false", v ? 4 : 5);
}

void
tp_jw_null(struct tp_jw *w)
{
	jw_scalar(w, "null", 4);
}

void
tp_jw_str(struct tp_jw *w, const void *s, size_t n)
{
	jw_place(w);
	tp_json_put_str(w->o, s, n);
	w->empty = 0;
}
