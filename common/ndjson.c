/*
 * Trace text <-> NDJSON.  JSON is read with jansson (a conforming parser:
 * see tests/json-conformance.sh); the text is read and written by the one
 * text reader and writer.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fmt.h"
#include "json.h"
#include "ndjson.h"

/* ------------------------------------------------------- JSON strings */

/* Room for the content of a quoted text string, grown to the longest. */
static char *scratch;
static size_t scratch_cap;

static int
scratch_fit(size_t n)
{
	char *p;

	if (n <= scratch_cap)
		return 0;
	if ((p = realloc(scratch, n)) == NULL)
		return -1;
	scratch = p;
	scratch_cap = n;
	return 0;
}

/*
 * A quoted text string's content (its escapes undone) as a JSON string.
 * The caller has checked that the content is UTF-8 (see scan_value) and
 * that scratch holds n bytes.
 */
static void
put_quoted(struct tp_out *o, const char *v, size_t n)
{
	tp_json_put_str(o, scratch, tp_unquote(v, n, scratch));
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
	if (p != end || !frac || n >= sizeof buf)
		return 0;
	memcpy(buf, t, n);
	buf[n] = '\0';
	d = strtod(buf, NULL);
	return tp_f64_text(buf, d) == n && memcmp(buf, t, n) == 0;
}

enum bare_type { BT_STRING, BT_NUMBER, BT_LITERAL };

static enum bare_type
bare_type(const char *t, size_t n)
{
	if ((n == 4 && (memcmp(t, "true", 4) == 0 || memcmp(t, "null", 4) == 0))
	    || (n == 5 && memcmp(t, "false", 5) == 0))
		return BT_LITERAL;
	if (n > 0 && (t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) &&
	    (is_json_int(t, n) || is_json_float(t, n)))
		return BT_NUMBER;
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
	while (tr_elem(&cur, end, &key, &keylen, &val, &vallen)) {
		const char *k2, *v2, *c2 = v;
		size_t k2len, v2len;

		if (key[0] == '"' && (scan_quoted(key, keylen, 0) & VS_RAW))
			return VS_RAW;
		/* A key twice: a JSON object keeps one. */
		while (tr_elem(&c2, end, &k2, &k2len, &v2, &v2len) && k2 != key)
			if (k2len == keylen && memcmp(k2, key, keylen) == 0)
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
	if (!(scan_value(v, n, 1) & VS_RAW) && scratch_fit(n) == 0)
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
	uint64_t mark;
	char *line;
	size_t len, i, j, nq;
	int rc;

	memset(st, 0, sizeof *st);
	while ((rc = tr_line(r, &line, &len)) > 0) {
		if ((rc = tr_parse(r, line, len, &rec)) < 0)
			return -1;
		if (scratch_fit(len) < 0)
			return tp_fail(r->err, TP_EXIT_FAIL, "out of memory");
		if (rc == 0) {
			if (put_comment(r, o, line, len) < 0)
				return -1;
			st->comments++;
			continue;
		}
		mark = tp_out_tell(o);
		tp_out_puts(o, "{\"kind\":\"");
		tp_out_write(o, rec.kind, rec.kindlen);
		tp_out_putc(o, '"');
		nq = 0;
		for (i = 0; i < rec.nf; i++) {
			const struct tr_field *f = &rec.f[i];
			unsigned fl;

			for (j = 0; j < i; j++)
				if (rec.f[j].keylen == f->keylen &&
				    memcmp(rec.f[j].key, f->key, f->keylen) == 0) {
					unwrite(o, mark);
					return tr_fail(r, &rec, f, "key given twice");
				}
			/* "kind" is the record's kind; a field of that name is "@kind". */
			tp_out_puts(o, f->keylen == 4 && memcmp(f->key, "kind", 4) == 0 ?
			    ",\"@" : ",\"");
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
		tp_out_puts(o, "}\n");
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

/* Where the object being converted started, for its diagnostics. */
struct jsrc {
	struct tp_err *err;
	uint64_t line, col;
};

static int
jfail(const struct jsrc *js, const char *fmt, const char *arg)
{
	js->err->line = js->line;
	js->err->col = js->col;
	js->err->offset = TP_NONE;
	return tp_fail(js->err, TP_EXIT_DATA, fmt, arg);
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
	if (n + 4 > cap) {	/* "k v=" and the value */
		char *nb = realloc(buf, n + 4);
		if (nb == NULL)
			return 0;
		buf = nb;
		cap = n + 4;
	}
	memcpy(buf, "k v=", 4);
	memcpy(buf + 4, raw, n);
	tp_err_clear(&e);
	r.err = &e;
	r.lineno = 1;
	return memchr(raw, '\n', n) == NULL &&
	    tr_parse(&r, buf, n + 4, &rec) == 1 && rec.nf == 1 &&
	    rec.f[0].vallen == n;
}

static int
put_text(struct tp_out *o, json_t *v, int quote, int top, int depth,
    const struct jsrc *js)
{
	const char *key, *s;
	size_t keylen, n, i;
	json_t *x;
	int first = 1;

	if (depth > NJ_MAXDEPTH)
		return jfail(js, "%s", "nested deeper than trace text allows (64)");
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		x = json_object_get(v, "@text");
		if (x != NULL && json_object_size(v) == 1) {
			if (!json_is_string(x) || !raw_ok(json_string_value(x),
			    json_string_length(x), top))
				return jfail(js, "%s", "\"@text\" is not the text "
				    "of one value");
			tp_out_write(o, json_string_value(x), json_string_length(x));
			return 0;
		}
		tp_out_putc(o, '{');
		json_object_keylen_foreach(v, key, keylen, x) {
			if (!first)
				tp_out_putc(o, ',');
			first = 0;
			tv_mapkey(o, key, keylen);
			if (put_text(o, x, quote, 0, depth + 1, js) < 0)
				return -1;
		}
		tp_out_putc(o, '}');
		return 0;
	case JSON_ARRAY:
		tp_out_putc(o, '[');
		for (i = 0; i < json_array_size(v); i++) {
			if (i > 0)
				tp_out_putc(o, ',');
			if (put_text(o, json_array_get(v, i), quote, 0, depth + 1,
			    js) < 0)
				return -1;
		}
		tp_out_putc(o, ']');
		return 0;
	case JSON_STRING:
		s = json_string_value(v);
		n = json_string_length(v);
		if (!quote && bare_string(s, n))
			tp_out_write(o, s, n);
		else if (quote || !(top && n == 0))
			tv_qstr(o, s, n);
		return 0;
	case JSON_INTEGER:
		tv_i64(o, (int64_t)json_integer_value(v));
		return 0;
	case JSON_REAL:
		tv_f64(o, json_real_value(v));
		return 0;
	case JSON_TRUE:
		tv_bool(o, 1);
		return 0;
	case JSON_FALSE:
		tv_bool(o, 0);
		return 0;
	case JSON_NULL:
		tv_null(o);
		return 0;
	}
	return 0;
}

/* Is the field named in "@quoted"? */
static int
listed(json_t *quoted, const char *key, size_t keylen)
{
	size_t i;

	for (i = 0; i < json_array_size(quoted); i++) {
		json_t *s = json_array_get(quoted, i);
		if (json_is_string(s) && json_string_length(s) == keylen &&
		    memcmp(json_string_value(s), key, keylen) == 0)
			return 1;
	}
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

static int
put_record(struct tp_out *o, json_t *obj, const struct jsrc *js)
{
	json_t *kind, *quoted, *v;
	const char *key;
	size_t keylen;

	if (!json_is_object(obj))
		return jfail(js, "%s", "not a JSON object");
	v = json_object_get(obj, "@comment");
	if (v != NULL) {
		if (json_object_size(obj) != 1 || !json_is_string(v) ||
		    !comment_ok(json_string_value(v), json_string_length(v)))
			return jfail(js, "%s", "\"@comment\" is not one comment "
			    "or blank line alone");
		tp_out_write(o, json_string_value(v), json_string_length(v));
		tw_end(o);
		return 1;
	}
	kind = json_object_get(obj, "kind");
	if (kind == NULL || !json_is_string(kind) ||
	    !is_key(json_string_value(kind), json_string_length(kind)))
		return jfail(js, "%s", kind == NULL ? "object without \"kind\"" :
		    "\"kind\" is not a record kind ([A-Za-z0-9_.-]+)");
	quoted = json_object_get(obj, "@quoted");
	if (quoted != NULL && !json_is_array(quoted))
		return jfail(js, "%s", "\"@quoted\" is not a list of keys");
	tp_out_write(o, json_string_value(kind), json_string_length(kind));
	json_object_keylen_foreach(obj, key, keylen, v) {
		const char *fkey = key;
		size_t fkeylen = keylen;

		if ((keylen == 4 && memcmp(key, "kind", 4) == 0) ||
		    (keylen == 7 && memcmp(key, "@quoted", 7) == 0))
			continue;
		if (keylen == 5 && memcmp(key, "@kind", 5) == 0)
			fkey++, fkeylen--;
		else if (!is_key(key, keylen))
			return jfail(js, "key \"%.60s\" is not a trace-text key "
			    "([A-Za-z0-9_.-]+)", key);
		tp_out_putc(o, ' ');
		tp_out_write(o, fkey, fkeylen);
		tp_out_putc(o, '=');
		if (put_text(o, v, quoted && listed(quoted, fkey, fkeylen), 1, 0,
		    js) < 0)
			return -1;
	}
	tw_end(o);
	return 0;
}

/* Line and column of byte pos of a value that started at js. */
static void
locate(const char *buf, size_t pos, const struct jsrc *js, uint64_t *line,
    uint64_t *col)
{
	const char *nl = NULL, *p;

	*line = js->line;
	for (p = buf; p < buf + pos; p++)
		if (*p == '\n')
			nl = p, ++*line;
	*col = nl ? (uint64_t)(buf + pos - nl) : js->col + pos;
}

/* Parse one JSON object and write its record. */
static int
convert(struct tp_out *o, const char *buf, size_t n, const struct jsrc *js,
    struct nj_stats *st)
{
	json_error_t je;
	json_t *obj;
	uint64_t mark;
	int rc;

	obj = json_loadb(buf, n, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &je);
	if (obj == NULL) {
		size_t pos = je.position > 0 ? (size_t)je.position - 1 : 0;
		locate(buf, pos < n ? pos : n, js, &js->err->line, &js->err->col);
		js->err->offset = TP_NONE;
		return tp_fail(js->err, TP_EXIT_DATA, "invalid JSON: %s", je.text);
	}
	mark = tp_out_tell(o);
	if ((rc = put_record(o, obj, js)) < 0)
		unwrite(o, mark);
	json_decref(obj);
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
	if (*len + n > *cap) {
		size_t ncap = (*len + n) + (*len + n) / 2;
		char *nb = realloc(*buf, ncap);
		if (nb == NULL)
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
		*buf = nb;
		*cap = ncap;
	}
	memcpy(*buf + *len, p, n);
	*len += n;
	return 0;
}

int
nj_to_text(struct tp_in *in, struct tp_out *o, struct nj_stats *st,
    struct tp_err *err)
{
	struct jsrc js = { err, 0, 0 };
	char *line, *acc = NULL;
	size_t len, acclen = 0, acccap = 0;
	uint64_t lineno = 0;
	int depth = 0, instr = 0, esc = 0, rc;

	memset(st, 0, sizeof *st);
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
				if (c != '{') {
					err->line = lineno;
					err->col = pos + 1;
					rc = tp_fail(err, TP_EXIT_DATA, "expected '{': "
					    "each record is a JSON object");
					goto out;
				}
				js.line = lineno;
				js.col = pos + 1;
				start = pos;
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
				rc = convert(o, line + start, pos - start, &js, st);
			} else {
				rc = grow_append(&acc, &acclen, &acccap, line, pos,
				    err, &js);
				if (rc == 0)
					rc = convert(o, acc, acclen, &js, st);
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
	}
out:
	free(acc);
	return rc < 0 ? -1 : 0;
}
