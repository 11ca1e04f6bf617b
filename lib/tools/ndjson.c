/*
 * Trace text <-> NDJSON.  JSON is read with the one JSON scanner
 * (json.h: RFC 8259, see tests/json-conformance.sh), each object checked
 * as it is found and then walked in place; the text is read and written
 * by the one text reader and writer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "base/fpconv.h"
#include "base/grow.h"
#include "text/json.h"
#include "tools/ndjson.h"

/* ------------------------------------------------------- JSON strings */

/* Room for the content of a quoted text string, grown to the longest. */
static char *scratch;
static size_t scratch_cap;

static int
scratch_fit(size_t n)
{
	return n <= scratch_cap ? 0 : tp_grow(&scratch, &scratch_cap, n, 1);
}

/*
 * A quoted text string's content (its escapes undone) as a JSON string,
 * a part at a time: memory holds a part, not a copy of the line.  The
 * caller has checked that the content is UTF-8 (see scan_value): a
 * character cut at the end of a part goes with the next.
 */
static void
put_quoted(struct tp_out *o, const char *v, size_t n)
{
	char part[4096 + 4];
	const char *p = v + 1, *end = v + n - 1;
	size_t have = 0, k, cut;

	if (n - 2 <= 4096) {
		tp_json_put_str(o, part, tp_unquote(v, n, part));
		return;
	}
	tp_out_putc(o, '"');
	while (p < end) {
		have += tp_unquote_part(&p, end, part + have, 4096);
		/* The last character's lead byte, and whether it is whole. */
		for (cut = have, k = 0; cut > 0 && k < 4; k++)
			if (((unsigned char)part[--cut] & 0xc0) != 0x80)
				break;
		if (cut < have && (unsigned char)part[cut] >= 0xc0 &&
		    have - cut < ((unsigned char)part[cut] >= 0xf0 ? 4u :
		    (unsigned char)part[cut] >= 0xe0 ? 3u : 2u) && p < end)
			k = cut;
		else
			k = have;
		tp_json_put_body(o, part, k);
		memmove(part, part + k, have - k);
		have -= k;
	}
	tp_json_put_body(o, part, have);
	tp_out_putc(o, '"');
}

/* ---------------------------------------------------- text -> JSON types */

/* An integer JSON holds exactly in a double: -?(0|[1-9][0-9]*), |v| <= 2^53. */
static int
is_json_int(const char *t, size_t n)
{
	size_t i = n > 0 && t[0] == '-';
	uint64_t v = 0;

	if (i == n || n - i > 16)
		return 0;
	if (t[i] == '0')
		return n == 1;		/* "0"; never "-0", which reads as 0 */
	for (; i < n; i++) {
		if (t[i] < '0' || t[i] > '9')
			return 0;
		v = v * 10 + (uint64_t)(t[i] - '0');
	}
	return v <= UINT64_C(1) << 53;
}

/* Digits from p on; returns where they end. */
static const char *
digits(const char *p, const char *end)
{
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/*
 * A float as the text writer writes it (so that json2txt writes it back
 * the same), which is also a JSON number: "1.0", "-2.5e-07", "1e+300".
 */
static int
is_json_float(const char *t, size_t n)
{
	const char *p = t, *end = t + n, *q;
	char buf[TP_F64_TEXT_MAX];
	double d;
	int frac = 0;

	/* The JSON grammar first: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? */
	if (p < end && *p == '-')
		p++;
	q = digits(p, end);
	if (q == p || (*p == '0' && q - p > 1))
		return 0;
	p = q;
	if (p < end && *p == '.') {
		if ((q = digits(p + 1, end)) == p + 1)
			return 0;
		p = q;
		frac = 1;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		frac = 1;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if ((q = digits(p, end)) == p)
			return 0;
		p = q;
	}
	if (p != end || !frac || n >= sizeof buf || tp_parse_f64(t, n, &d) < 0)
		return 0;
	return tp_f64_text(buf, d) == n && memcmp(buf, t, n) == 0;
}

enum bare_type { BT_STRING, BT_NUMBER, BT_LITERAL };

/*
 * What JSON reads a bare text value as.  JSON's number grammar, not the
 * text's (tr_value_kind): no 0x, leading zeros, nan or inf, and only
 * numbers a double gives back as written; testing that first costs far
 * less than parsing every integer in full.
 */
static enum bare_type
bare_type(const char *t, size_t n)
{
	unsigned c = n > 0 ? (unsigned char)t[0] : 0;

	if (c == '-' || (c >= '0' && c <= '9')) {
		/* "0x..", the most common value of a trace: a '0' followed
		   by anything but '.', 'e' or 'E' begins no JSON number. */
		if (c == '0' && n > 1 && t[1] != '.' && t[1] != 'e' &&
		    t[1] != 'E')
			return BT_STRING;
		return is_json_int(t, n) || is_json_float(t, n) ? BT_NUMBER :
		    BT_STRING;
	}
	if ((n == 4 && (memcmp(t, "true", 4) == 0 || memcmp(t, "null", 4) == 0))
	    || (n == 5 && memcmp(t, "false", 5) == 0))
		return BT_LITERAL;
	return BT_STRING;
}

/*
 * Would json2txt write this string bare?  When it reads back as a string:
 * not as a number or as true, false or null.
 */
static int
bare_string(const char *s, size_t n)
{
	return tp_bare_ok(s, n) && bare_type(s, n) == BT_STRING;
}

/*
 * What the first pass over a field's value found.  json2txt writes a
 * string bare when it can (tv_str; an empty one at the top as an empty
 * value), unless the field is listed in "@quoted"; a field that has both
 * (or anything JSON cannot hold) is carried as {"@text":"..."}.
 */
enum {
	VS_QUOTED = 1,	/* a quoted string that json2txt would write bare */
	VS_BARE = 2,	/* a bare string */
	VS_RAW = 4	/* not UTF-8, or a map JSON cannot hold as it is */
};

/* The text of a quoted string: is it UTF-8, and could it be bare? */
static unsigned
scan_quoted(const char *v, size_t n, int top)
{
	const char *p = v + 1, *end = v + n - 1, *esc;
	int escaped = 0;

	/* UTF-8 is checked between escapes, as an escape cuts it. */
	while ((esc = memchr(p, '\\', (size_t)(end - p))) != NULL) {
		if (tp_utf8_valid(p, (size_t)(esc - p)) != (size_t)(esc - p))
			return VS_RAW;
		if (esc[1] == 'x' &&
		    (tp_hexval(esc[2]) << 4 | tp_hexval(esc[3])) >= 0x80)
			return VS_RAW;	/* a byte of non-UTF-8 */
		p = esc + (esc[1] == 'x' ? 4 : 2);
		escaped = 1;
	}
	if (tp_utf8_valid(p, (size_t)(end - p)) != (size_t)(end - p))
		return VS_RAW;
	/* The writer escapes nothing that could be bare. */
	return (!escaped && bare_string(v + 1, n - 2)) || (top && n == 2) ?
	    VS_QUOTED : 0;
}

/* The keys of a map as JSON has them (quoted ones unquoted), in keybuf. */
static struct keyspan {
	size_t off, n;
} *keys;
static size_t keys_cap;
static char *keybuf;
static size_t keybuf_cap;

static int
keyspan_cmp(const void *a, const void *b)
{
	const struct keyspan *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return memcmp(keybuf + x->off, keybuf + y->off, x->n);
}

/*
 * Has the map [v, v + n) a key twice, as JSON would have them?  (Or is
 * there no memory to tell: 1, and the map goes as its text.)  Pairs for
 * a few keys, sorted for many.
 */
static int
key_twice(const char *v, size_t n)
{
	const char *cur = v, *end = v + n, *key, *val;
	size_t keylen, vallen, k = 0, used = 0, i, j;

	/* the keys are no longer than the map */
	if (tp_grow(&keybuf, &keybuf_cap, n, 1) < 0)
		return 1;
	while (tr_elem(&cur, end, &key, &keylen, &val, &vallen)) {
		if (k == keys_cap &&
		    tp_grow(&keys, &keys_cap, k + 1, sizeof *keys) < 0)
			return 1;
		keys[k].off = used;
		if (key[0] == '"') {
			keys[k].n = tp_unquote(key, keylen, keybuf + used);
		} else {
			memcpy(keybuf + used, key, keylen);
			keys[k].n = keylen;
		}
		used += keys[k++].n;
	}
	if (k > 16) {
		qsort(keys, k, sizeof *keys, keyspan_cmp);
		for (i = 1; i < k; i++)
			if (keyspan_cmp(&keys[i - 1], &keys[i]) == 0)
				return 1;
		return 0;
	}
	for (i = 1; i < k; i++)
		for (j = 0; j < i; j++)
			if (keyspan_cmp(&keys[j], &keys[i]) == 0)
				return 1;
	return 0;
}

static unsigned
scan_value(const char *v, size_t n, int top)
{
	const char *cur = v, *end = v + n, *key, *val;
	size_t keylen, vallen, nkeys = 0;
	unsigned fl = 0;
	int attext = 0;

	if (n > 0 && v[0] == '"')
		return scan_quoted(v, n, top);
	if (n == 0 || (v[0] != '[' && v[0] != '{'))
		return bare_type(v, n) == BT_STRING ? VS_BARE : 0;
	if (v[0] == '[') {
		while (tr_elem(&cur, end, NULL, NULL, &val, &vallen))
			fl |= scan_value(val, vallen, 0);
		return fl;
	}
	/* A key twice: a JSON object keeps one. */
	if (key_twice(v, n))
		return VS_RAW;
	while (tr_elem(&cur, end, &key, &keylen, &val, &vallen)) {
		if (key[0] == '"' && (scan_quoted(key, keylen, 0) & VS_RAW))
			return VS_RAW;
		if (nkeys++ == 0)
			attext = (keylen == 5 && memcmp(key, "@text", 5) == 0) ||
			    (keylen == 7 && memcmp(key, "\"@text\"", 7) == 0);
		fl |= scan_value(val, vallen, 0);
	}
	/* {"@text":"..."} is how json2txt is told of a raw value. */
	if (nkeys == 1 && attext)
		fl |= VS_RAW;
	return fl;
}

/* The JSON form of a value whose scan found no VS_RAW. */
static void
put_value(struct tp_out *o, const char *v, size_t n)
{
	const char *cur = v, *end = v + n, *key, *val;
	size_t keylen, vallen;
	int first = 1;

	if (n > 0 && v[0] == '"') {
		put_quoted(o, v, n);
	} else if (n > 0 && v[0] == '[') {
		tp_out_putc(o, '[');
		while (tr_elem(&cur, end, NULL, NULL, &val, &vallen)) {
			if (!first)
				tp_out_putc(o, ',');
			first = 0;
			put_value(o, val, vallen);
		}
		tp_out_putc(o, ']');
	} else if (n > 0 && v[0] == '{') {
		tp_out_putc(o, '{');
		while (tr_elem(&cur, end, &key, &keylen, &val, &vallen)) {
			if (!first)
				tp_out_putc(o, ',');
			first = 0;
			/* A JSON key is a string, even where the text's is 0. */
			if (key[0] == '"') {
				put_quoted(o, key, keylen);
			} else {
				tp_out_putc(o, '"');
				tp_out_write(o, key, keylen);
				tp_out_putc(o, '"');
			}
			tp_out_putc(o, ':');
			put_value(o, val, vallen);
		}
		tp_out_putc(o, '}');
	} else if (bare_type(v, n) != BT_STRING) {
		tp_out_write(o, v, n);
	} else {
		/* Bare strings hold no character JSON escapes. */
		tp_out_putc(o, '"');
		tp_out_write(o, v, n);
		tp_out_putc(o, '"');
	}
}

/* The value as its own text, for json2txt to write as it is. */
static void
put_raw(struct tp_out *o, const char *v, size_t n)
{
	tp_out_puts(o, "{\"@text\":");
	tp_json_put_str(o, v, n);
	tp_out_putc(o, '}');
}

void
nj_put_value(struct tp_out *o, const char *v, size_t n)
{
	/* A bare value, most of them: typed once, not scanned and then
	   written (put_value's last two cases). */
	if (n > 0 && v[0] != '"' && v[0] != '[' && v[0] != '{' &&
	    n + 2 <= TP_OUT_SLACK) {
		int str = bare_type(v, n) == BT_STRING;
		char *d = tp_out_reserve(o, n + 2);
		if (str)
			*d++ = '"';
		memcpy(d, v, n);
		d += n;
		if (str)
			*d++ = '"';
		tp_out_commit(o, d);
		return;
	}
	if (!(scan_value(v, n, 1) & VS_RAW))
		put_value(o, v, n);
	else if (tp_utf8_valid(v, n) == n)
		put_raw(o, v, n);
	else
		tp_out_puts(o, "\"(not UTF-8)\"");
}

/*
 * Take back what was written since mark, so that a record that fails is
 * not left half written (unless a full buffer went out meanwhile).
 */
static void
unwrite(struct tp_out *o, uint64_t mark)
{
	if (mark >= o->written)
		o->len = (size_t)(mark - o->written);
}

/* A comment or blank line: {"@comment":"the line"}. */
static int
put_comment(struct tr_reader *r, struct tp_out *o, const char *line,
    size_t len)
{
	size_t ok = tp_utf8_valid(line, len);

	if (ok != len) {
		r->err->line = r->lineno;
		r->err->col = ok + 1;
		return tp_fail(r->err, TP_EXIT_DATA,
		    "comment is not valid UTF-8: JSON cannot hold it");
	}
	tp_out_puts(o, "{\"@comment\":");
	tp_json_put_str(o, line, len);
	tp_out_puts(o, "}\n");
	return 0;
}

int
nj_from_text(struct tr_reader *r, struct tp_out *o, struct nj_stats *st)
{
	static struct tr_rec rec;
	uint16_t quoted[TR_MAXFIELDS];
	uint64_t mark, seen2[2];
	char *line;
	size_t len, i, j, nq;
	int rc;

	memset(st, 0, sizeof *st);
	while ((rc = tr_line(r, &line, &len)) > 0) {
		if ((rc = tr_parse(r, line, len, &rec)) < 0)
			return -1;
		if (rc == 0) {
			if (put_comment(r, o, line, len) < 0)
				return -1;
			st->comments++;
			continue;
		}
		mark = tp_out_tell(o);
		if (rec.kindlen + 10 <= TP_OUT_SLACK) {
			char *d = tp_out_reserve(o, rec.kindlen + 10);
			memcpy(d, "{\"kind\":\"", 9);
			memcpy(d + 9, rec.kind, rec.kindlen);
			d[9 + rec.kindlen] = '"';
			tp_out_commit(o, d + 10 + rec.kindlen);
		} else {
			tp_out_puts(o, "{\"kind\":\"");
			tp_out_write(o, rec.kind, rec.kindlen);
			tp_out_putc(o, '"');
		}
		nq = 0;
		seen2[0] = seen2[1] = 0;
		for (i = 0; i < rec.nf; i++) {
			const struct tr_field *f = &rec.f[i];
			/* Second and last bytes too: rax, rcx, rsp... */
			unsigned h = ((unsigned char)f->key[0] +
			    (unsigned char)f->key[f->keylen > 1] * 5u +
			    (unsigned char)f->key[f->keylen - 1] * 17u +
			    f->keylen * 3u) & 127u;
			uint64_t bit = UINT64_C(1) << (h & 63);
			uint64_t *seen = &seen2[h >> 6];
			unsigned fl;
			int atkind;

			/* Keys that differ in first byte or length are not
			   compared. */
			for (j = 0; (*seen & bit) && j < i; j++)
				if (rec.f[j].keylen == f->keylen &&
				    memcmp(rec.f[j].key, f->key, f->keylen) == 0) {
					unwrite(o, mark);
					return tr_fail(r, &rec, f, "key given twice");
				}
			*seen |= bit;
			/* "kind" is the record's kind; a field of that name is "@kind". */
			atkind = f->keylen == 4 && memcmp(f->key, "kind", 4) == 0;
			/*
			 * A bare value, most of them: typed once and written
			 * with the key into room reserved for both, not in
			 * five small writes.
			 */
			if ((f->vallen == 0 || (f->val[0] != '"' &&
			    f->val[0] != '[' && f->val[0] != '{')) &&
			    f->keylen + f->vallen + 8 <= TP_OUT_SLACK) {
				int str = bare_type(f->val, f->vallen) ==
				    BT_STRING;
				char *d = tp_out_reserve(o, f->keylen +
				    f->vallen + 8);
				*d++ = ',';
				*d++ = '"';
				if (atkind)
					*d++ = '@';
				memcpy(d, f->key, f->keylen);
				d += f->keylen;
				*d++ = '"';
				*d++ = ':';
				if (str)
					*d++ = '"';
				memcpy(d, f->val, f->vallen);
				d += f->vallen;
				if (str)
					*d++ = '"';
				tp_out_commit(o, d);
				continue;
			}
			tp_out_puts(o, atkind ? ",\"@" : ",\"");
			tp_out_write(o, f->key, f->keylen);
			tp_out_puts(o, "\":");
			fl = scan_value(f->val, f->vallen, 1);
			if ((fl & VS_RAW) || fl == (VS_QUOTED | VS_BARE)) {
				if (tp_utf8_valid(f->val, f->vallen) != f->vallen) {
					unwrite(o, mark);
					return tr_fail(r, &rec, f,
					    "not valid UTF-8: JSON cannot hold it");
				}
				put_raw(o, f->val, f->vallen);
				st->raw++;
				continue;
			}
			if (fl & VS_QUOTED)
				quoted[nq++] = (uint16_t)i;
			put_value(o, f->val, f->vallen);
		}
		if (nq > 0) {
			tp_out_puts(o, ",\"@quoted\":[");
			for (j = 0; j < nq; j++) {
				const struct tr_field *f = &rec.f[quoted[j]];
				if (j > 0)
					tp_out_putc(o, ',');
				tp_out_putc(o, '"');
				tp_out_write(o, f->key, f->keylen);
				tp_out_putc(o, '"');
			}
			tp_out_putc(o, ']');
		}
		tp_out_putc(o, '}');
		tp_out_putc(o, '\n');
		st->records++;
	}
	return rc;
}

/* ---------------------------------------------------------- JSON -> text */

#define NJ_MAXDEPTH 64		/* the text reader's nesting limit */

static int
is_key(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

/* An object's member: its key (unescaped) and its value's span. */
struct member {
	const char *key;
	size_t keylen;
	const char *val, *valend;
};

/*
 * The object being converted: where it started (for diagnostics), room
 * for its keys unescaped (they are no longer than the object), and the
 * members of the objects open in it, innermost last.
 */
struct jsrc {
	struct tp_err *err;
	uint64_t line, col;
	const char *buf;
	char *keys;
	size_t keyslen, keyscap;
	struct member *m;
	size_t nm, mcap;
};

static int
jfail(const struct jsrc *js, const char *fmt, const char *arg)
{
	js->err->line = js->line;
	js->err->col = js->col;
	js->err->offset = TP_NONE;
	return tp_fail(js->err, TP_EXIT_DATA, fmt, arg);
}

/* Line and column of byte pos of the object (js->buf). */
static void
locate(const struct jsrc *js, size_t pos, uint64_t *line, uint64_t *col)
{
	const char *nl = NULL, *p;

	*line = js->line;
	for (p = js->buf; p < js->buf + pos; p++)
		if (*p == '\n')
			nl = p, ++*line;
	*col = nl ? (uint64_t)(js->buf + pos - nl) : js->col + pos;
}

/* "invalid JSON: why" at byte at of the object. */
static int
jinvalid(const struct jsrc *js, const char *at, const char *why)
{
	locate(js, (size_t)(at - js->buf), &js->err->line, &js->err->col);
	js->err->offset = TP_NONE;
	return tp_fail(js->err, TP_EXIT_DATA, "invalid JSON: %s", why);
}

/*
 * The string [v, ve) (quotes included) unescaped: into out (room for
 * ve - v bytes) when it has escapes, else in place.
 */
static void
unescape(const char *v, const char *ve, char *out, const char **s,
    size_t *n)
{
	if (memchr(v + 1, '\\', (size_t)(ve - v - 2)) == NULL) {
		*s = v + 1;
		*n = (size_t)(ve - v - 2);
	} else {
		*s = out;
		*n = tp_json_unescape(v, ve, out, (size_t)(ve - v));
	}
}

/*
 * A \u escape of a lone surrogate, which UTF-8 cannot hold, anywhere in
 * the object [p, e) (valid JSON: every backslash is in a string): an
 * error, as it was when jansson read the objects.
 */
static int
surrogates_ok(const struct jsrc *js, const char *p, const char *e)
{
	if ((p = tp_json_lone_surrogate(p, e)) != NULL)
		return jinvalid(js, p, "invalid Unicode: a \\u escape "
		    "of a lone surrogate");
	return 0;
}

static int
member_cmp(const struct member *x, const struct member *y)
{
	if (x->keylen != y->keylen)
		return x->keylen < y->keylen ? -1 : 1;
	return memcmp(x->key, y->key, x->keylen);
}

/* Members sorted by their indexes (qsort has no context argument). */
static const struct member *sorting;

static int
index_cmp(const void *a, const void *b)
{
	return member_cmp(&sorting[*(const uint32_t *)a],
	    &sorting[*(const uint32_t *)b]);
}

/*
 * The members of the object at v (valid JSON) pushed on js->m, keys
 * unescaped; a key twice is an error.  Their count, or -1.
 */
static long
members(struct jsrc *js, const char *v, const char *ve)
{
	const char *cur = v, *key, *val, *valend;
	size_t keylen, first = js->nm, n, i;

	while (tp_json_member(&cur, ve, &key, &keylen, &val, &valend)) {
		struct member *m;
		if (js->nm == js->mcap &&
		    tp_grow(&js->m, &js->mcap, js->nm + 1, sizeof *js->m) < 0)
			return tp_fail(js->err, TP_EXIT_FAIL, "out of memory");
		m = &js->m[js->nm++];
		unescape(key - 1, key + keylen + 1, js->keys + js->keyslen,
		    &m->key, &m->keylen);
		if (m->key == js->keys + js->keyslen)
			js->keyslen += m->keylen;
		m->val = val;
		m->valend = valend;
	}
	/* A key twice: pairs for a few, sorted indexes for many (an object
	   is under TP_LINE_MAX bytes: its members fit 32 bits). */
	n = js->nm - first;
	if (n <= 16) {
		for (i = first + 1; i < js->nm; i++) {
			size_t k;
			for (k = first; k < i; k++)
				if (member_cmp(&js->m[k], &js->m[i]) == 0)
					return jinvalid(js, js->m[i].val,
					    "duplicate object key");
		}
	} else {
		uint32_t *ix = malloc(n * sizeof *ix);
		int dup = 0;
		if (ix == NULL)
			return tp_fail(js->err, TP_EXIT_FAIL, "out of memory");
		for (i = 0; i < n; i++)
			ix[i] = (uint32_t)i;
		sorting = js->m + first;
		qsort(ix, n, sizeof *ix, index_cmp);
		for (i = 1; i < n && !dup; i++)
			dup = index_cmp(&ix[i - 1], &ix[i]) == 0;
		free(ix);
		if (dup)
			return jinvalid(js, v, "duplicate object key");
	}
	return (long)n;
}

/* The member named key among js->m[first..], or NULL. */
static const struct member *
lookup(const struct jsrc *js, size_t first, const char *key)
{
	size_t i, n = strlen(key);

	for (i = first; i < js->nm; i++)
		if (js->m[i].keylen == n && memcmp(js->m[i].key, key, n) == 0)
			return &js->m[i];
	return NULL;
}

/*
 * The JSON string [v, ve) unescaped (into scratch when it has escapes):
 * 0, or -1 when it is no string or scratch cannot hold it.
 */
static int
string_val(const char *v, const char *ve, const char **s, size_t *n)
{
	if (*v != '"' || scratch_fit((size_t)(ve - v)) < 0)
		return -1;
	unescape(v, ve, scratch, s, n);
	return 0;
}

/* Is [v, ve) a JSON string that unescapes to s? */
static int
string_is(const char *v, const char *ve, const char *s, size_t n)
{
	const char *u;
	size_t ul;

	return string_val(v, ve, &u, &ul) == 0 && ul == n &&
	    memcmp(u, s, n) == 0;
}

/* Does raw read as one text value (top: a whole field's value)? */
static int
raw_ok(const char *raw, size_t n, int top)
{
	static struct tr_rec rec;
	static char *buf;
	static size_t cap;
	struct tr_reader r;
	struct tp_err e;

	if (!top && n == 0)
		return 0;
	if (tp_grow(&buf, &cap, n + 4, 1) < 0)	/* "k v=" and the value */
		return 0;
	memcpy(buf, "k v=", 4);
	memcpy(buf + 4, raw, n);
	tp_err_clear(&e);
	r.err = &e;
	r.lineno = 1;
	return memchr(raw, '\n', n) == NULL &&
	    tr_parse(&r, buf, n + 4, &rec) == 1 && rec.nf == 1 &&
	    rec.f[0].vallen == n;
}

/* A JSON number as text: an integer (no '.', 'e', 'E') or a double. */
static int
put_number(struct tp_out *o, const struct jsrc *js, const char *v,
    const char *ve)
{
	size_t n = (size_t)(ve - v);
	int neg = *v == '-';
	const char *p;
	double d;

	for (p = v; p < ve && *p != '.' && *p != 'e' && *p != 'E'; p++)
		;
	if (p == ve) {
		uint64_t u;
		if (tp_parse_u64(v + neg, n - neg, &u) < 0 ||
		    u > (uint64_t)INT64_MAX + neg)
			return jinvalid(js, v, neg ?
			    "too big negative integer" : "too big integer");
		/* jq 1.6 writes -0.0 as -0: its sign is kept for the reader. */
		if (neg && u == 0)
			tp_out_write(o, "-0", 2);
		else
			tv_i64(o, neg ? (int64_t)(0 - u) : (int64_t)u);
		return 0;
	}
	/* JSON's numbers have no length limit; tp_parse_f64's stops at 63. */
	if (tp_parse_f64(v, n, &d) < 0) {
		if (scratch_fit(n + 1) < 0)
			return tp_fail(js->err, TP_EXIT_FAIL, "out of memory");
		memcpy(scratch, v, n);
		scratch[n] = '\0';
		d = strtod(scratch, NULL);
	}
	if (d == HUGE_VAL || d == -HUGE_VAL)
		return jinvalid(js, v, "real number overflow");
	tv_f64(o, d);
	return 0;
}

/* The value [v, ve) as text; quote: strings quoted ("@quoted"). */
static int
put_text(struct tp_out *o, struct jsrc *js, const char *v, const char *ve,
    int quote, int top, int depth)
{
	const char *s, *cur, *x, *xe;
	size_t n, first, i;
	long k;

	if (depth > NJ_MAXDEPTH)
		return jfail(js, "%s", "nested deeper than trace text allows (64)");
	switch (*v) {
	case '{':
		first = js->nm;
		if ((k = members(js, v, ve)) < 0)
			return -1;
		if (k == 1 && js->m[first].keylen == 5 &&
		    memcmp(js->m[first].key, "@text", 5) == 0) {
			x = js->m[first].val;
			xe = js->m[first].valend;
			if (string_val(x, xe, &s, &n) < 0 || !raw_ok(s, n, top))
				return jfail(js, "%s", "\"@text\" is not the "
				    "text of one value");
			tp_out_write(o, s, n);
			js->nm = first;
			return 0;
		}
		tp_out_putc(o, '{');
		for (i = first; i < first + (size_t)k; i++) {
			if (i > first)
				tp_out_putc(o, ',');
			tv_mapkey(o, js->m[i].key, js->m[i].keylen);
			if (put_text(o, js, js->m[i].val, js->m[i].valend, quote,
			    0, depth + 1) < 0)
				return -1;
		}
		tp_out_putc(o, '}');
		js->nm = first;
		return 0;
	case '[':
		tp_out_putc(o, '[');
		for (cur = v, i = 0; tp_json_element(&cur, ve, &x, &xe); i++) {
			if (i > 0)
				tp_out_putc(o, ',');
			if (put_text(o, js, x, xe, quote, 0, depth + 1) < 0)
				return -1;
		}
		tp_out_putc(o, ']');
		return 0;
	case '"':
		if (scratch_fit((size_t)(ve - v)) < 0)
			return tp_fail(js->err, TP_EXIT_FAIL, "out of memory");
		unescape(v, ve, scratch, &s, &n);
		if (!quote && bare_string(s, n))
			tp_out_write(o, s, n);
		else if (quote || !(top && n == 0))
			tv_qstr(o, s, n);
		return 0;
	case 't':
		tv_bool(o, 1);
		return 0;
	case 'f':
		tv_bool(o, 0);
		return 0;
	case 'n':
		tv_null(o);
		return 0;
	}
	return put_number(o, js, v, ve);
}

/* Is the field named in "@quoted" (an array)? */
static int
listed(const struct member *quoted, const char *key,
    size_t keylen)
{
	const char *cur = quoted->val, *x, *xe;

	while (tp_json_element(&cur, quoted->valend, &x, &xe))
		if (string_is(x, xe, key, keylen))
			return 1;
	return 0;
}

/* A comment line may hold anything but a record or a line break. */
static int
comment_ok(const char *s, size_t n)
{
	size_t i = 0;

	if (memchr(s, '\n', n) != NULL || memchr(s, '\r', n) != NULL)
		return 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i == n || s[i] == '#';
}

/* The object [v, ve) (valid JSON) as a record or comment line: 0 or 1. */
static int
put_record(struct tp_out *o, struct jsrc *js, const char *v, const char *ve)
{
	/* Copies: js->m moves as the values' maps are read. */
	const struct member *c, *kind;
	struct member quoted;
	const char *s;
	size_t n, i;
	long k;

	js->nm = 0;
	js->keyslen = 0;
	if ((k = members(js, v, ve)) < 0)
		return -1;
	if ((c = lookup(js, 0, "@comment")) != NULL) {
		if (k != 1 || string_val(c->val, c->valend, &s, &n) < 0 ||
		    !comment_ok(s, n))
			return jfail(js, "%s", "\"@comment\" is not one comment "
			    "or blank line alone");
		tp_out_write(o, s, n);
		tw_end(o);
		return 1;
	}
	kind = lookup(js, 0, "kind");
	if (kind == NULL || string_val(kind->val, kind->valend, &s, &n) < 0 ||
	    !is_key(s, n))
		return jfail(js, "%s", kind == NULL ? "object without \"kind\"" :
		    "\"kind\" is not a record kind ([A-Za-z0-9_.-]+)");
	if ((c = lookup(js, 0, "@quoted")) != NULL && *c->val != '[')
		return jfail(js, "%s", "\"@quoted\" is not a list of keys");
	memset(&quoted, 0, sizeof quoted);
	if (c != NULL)
		quoted = *c;
	tp_out_write(o, s, n);
	for (i = 0; i < (size_t)k; i++) {
		struct member m = js->m[i];
		const char *fkey = m.key;
		size_t fkeylen = m.keylen;

		if ((fkeylen == 4 && memcmp(fkey, "kind", 4) == 0) ||
		    (fkeylen == 7 && memcmp(fkey, "@quoted", 7) == 0))
			continue;
		if (fkeylen == 5 && memcmp(fkey, "@kind", 5) == 0) {
			fkey++, fkeylen--;
		} else if (!is_key(fkey, fkeylen)) {
			js->err->line = js->line;
			js->err->col = js->col;
			js->err->offset = TP_NONE;
			return tp_fail(js->err, TP_EXIT_DATA, "key \"%.*s\" is "
			    "not a trace-text key ([A-Za-z0-9_.-]+)",
			    fkeylen > 60 ? 60 : (int)fkeylen, fkey);
		}
		tp_out_putc(o, ' ');
		tp_out_write(o, fkey, fkeylen);
		tp_out_putc(o, '=');
		if (put_text(o, js, m.val, m.valend, quoted.val != NULL &&
		    listed(&quoted, fkey, fkeylen), 1, 0) < 0)
			return -1;
	}
	tw_end(o);
	return 0;
}

/* Check one JSON object (unless checked) and write its record. */
static int
convert(struct tp_out *o, const char *buf, size_t n, struct jsrc *js,
    struct nj_stats *st, int checked)
{
	struct tp_json j;
	uint64_t mark;
	int rc;

	js->buf = buf;
	if (!checked && tp_json_check(&j, buf, n, 0) < 0) {
		if (j.status == TP_JSON_DEPTH)
			return jfail(js, "%s",
			    "nested deeper than trace text allows (64)");
		return jinvalid(js, buf + j.pos, j.why);
	}
	if (surrogates_ok(js, buf, buf + n) < 0)
		return -1;
	if (n > js->keyscap && tp_grow(&js->keys, &js->keyscap, n, 1) < 0)
		return tp_fail(js->err, TP_EXIT_FAIL, "out of memory");
	/*
	 * An object of more than 8 MiB may make a line over the limit the
	 * encoders read (a byte 0x7f is \x7f in text): measured first, so
	 * that none of it is written (the buffer goes out as it fills).
	 */
	if (n > TP_LINE_MAX / 8) {
		struct tp_out d;
		uint64_t len;
		if (tp_out_open_discard(&d) < 0)
			return tp_fail(js->err, TP_EXIT_FAIL, "out of memory");
		rc = put_record(&d, js, buf, buf + n);
		len = tp_out_tell(&d);
		tp_out_close(&d, 0, NULL);
		if (rc < 0)
			return -1;
		if (len - 1 > TP_LINE_MAX)
			return jfail(js, "its text would be longer than 64 MiB, "
			    "the line limit of trace text (%s), which no "
			    "encoder reads", "trace-text(5)");
	}
	mark = tp_out_tell(o);
	if ((rc = put_record(o, js, buf, buf + n)) < 0)
		unwrite(o, mark);
	if (rc < 0)
		return -1;
	if (rc == 1)
		st->comments++;
	else
		st->records++;
	return 0;
}

/* Append to the buffer of an object spread over lines. */
static int
grow_append(char **buf, size_t *len, size_t *cap, const char *p, size_t n,
    struct tp_err *err, const struct jsrc *js)
{
	if (*len + n > TP_LINE_MAX) {
		err->line = js->line;
		err->col = js->col;
		return tp_fail(err, TP_EXIT_DATA, "JSON object longer than %u "
		    "bytes", TP_LINE_MAX);
	}
	if (tp_grow(buf, cap, *len + n, 1) < 0)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	memcpy(*buf + *len, p, n);
	*len += n;
	return 0;
}

/*
 * A byte c outside objects, at column pos of line lineno: the array's
 * brackets and commas are taken (1), an object may start (0), anything
 * else is an error (-1).
 */
static int
array_step(int *arr, char c, uint64_t lineno, size_t pos, uint64_t *arr_line,
    uint64_t *arr_col, struct tp_err *err)
{
	const char *why;

	if (c == '{' && *arr != 2)
		return 0;
	if (c == '[' && *arr == 0) {
		*arr = 1;
		*arr_line = lineno;
		*arr_col = pos + 1;
		return 1;
	}
	if (c == ']' && (*arr == 1 || *arr == 2)) {
		*arr = 0;
		return 1;
	}
	if (c == ',' && *arr == 2) {
		*arr = 3;
		return 1;
	}
	if (*arr == 0)
		why = "expected '{' or '[': each record is a JSON object, "
		    "alone or in an array";
	else if (c == '[')
		why = "an array in the array: each element is a record, a "
		    "JSON object";
	else if (*arr == 2)
		why = "expected ',' or ']' after an element of the array";
	else
		why = "expected '{': each element of the array is a record, "
		    "a JSON object";
	err->line = lineno;
	err->col = pos + 1;
	err->offset = TP_NONE;
	return tp_fail(err, TP_EXIT_DATA, "%s", why);
}

int
nj_to_text(struct tp_in *in, struct tp_out *o, struct nj_stats *st,
    struct tp_err *err)
{
	struct jsrc js;
	struct tp_json j;
	const char *end;
	char *line, *acc = NULL;
	size_t len, acclen = 0, acccap = 0;
	uint64_t lineno = 0, arr_line = 0, arr_col = 0;
	int depth = 0, instr = 0, esc = 0, rc;
	/*
	 * jq -s writes the records as one array: outside objects, a '['
	 * opens it (arr: 1 before its first element, 2 after an element,
	 * 3 after a comma), a ']' closes it.
	 */
	int arr = 0;

	memset(st, 0, sizeof *st);
	memset(&js, 0, sizeof js);
	js.err = err;
	while ((rc = tp_in_line(in, &line, &len)) > 0) {
		size_t pos = 0, start = 0;

		lineno++;
		while (pos < len) {
			if (depth == 0) {
				char c = line[pos];
				if (c == ' ' || c == '\t' || c == '\r') {
					pos++;
					continue;
				}
				if ((rc = array_step(&arr, c, lineno, pos,
				    &arr_line, &arr_col, err)) != 0) {
					if (rc < 0)
						goto out;
					pos++;
					continue;
				}
				js.line = lineno;
				js.col = pos + 1;
				start = pos;
				if (arr != 0)
					arr = 2;
				/* Most objects are one line: checked as found. */
				memset(&j, 0, sizeof j);
				if ((end = tp_json_value(&j, line + pos,
				    line + len)) != NULL) {
					rc = convert(o, line + pos,
					    (size_t)(end - line - pos), &js, st, 1);
					if (rc < 0)
						goto out;
					pos = (size_t)(end - line);
					continue;
				}
			}
			/* Find the end of the object: brackets outside strings. */
			for (; pos < len; pos++) {
				char c = line[pos];
				if (c == '\0') {
					err->line = lineno;
					err->col = pos + 1;
					rc = tp_fail(err, TP_EXIT_DATA, "invalid JSON: "
					    "a NUL byte");
					goto out;
				}
				if (instr) {
					if (esc)
						esc = 0;
					else if (c == '\\')
						esc = 1;
					else if (c == '"')
						instr = 0;
				} else if (c == '"') {
					instr = 1;
				} else if (c == '{' || c == '[') {
					depth++;
				} else if ((c == '}' || c == ']') && --depth == 0) {
					break;
				}
			}
			if (pos == len)
				break;
			pos++;
			if (acclen == 0) {
				rc = convert(o, line + start, pos - start, &js, st,
				    0);
			} else {
				rc = grow_append(&acc, &acclen, &acccap, line, pos,
				    err, &js);
				if (rc == 0)
					rc = convert(o, acc, acclen, &js, st, 0);
				acclen = 0;
			}
			if (rc < 0)
				goto out;
		}
		if (depth > 0) {
			/* The object goes on on the next line. */
			size_t from = acclen == 0 ? start : 0;
			if (grow_append(&acc, &acclen, &acccap, line + from,
			    len - from, err, &js) < 0 ||
			    grow_append(&acc, &acclen, &acccap, "\n", 1, err,
			    &js) < 0) {
				rc = -1;
				goto out;
			}
		}
	}
	if (rc == 0 && depth > 0) {
		err->line = js.line;
		err->col = js.col;
		rc = tp_fail(err, TP_EXIT_DATA, "truncated: the input ends "
		    "inside this JSON object");
	} else if (rc == 0 && arr != 0) {
		err->line = arr_line;
		err->col = arr_col;
		rc = tp_fail(err, TP_EXIT_DATA, "truncated: the input ends "
		    "inside this JSON array (no ']')");
	}
out:
	free(acc);
	free(js.keys);
	free(js.m);
	return rc < 0 ? -1 : 0;
}
