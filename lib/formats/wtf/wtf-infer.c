/*
 * Web Tracing Framework traces: definitions the encoder makes up for
 * events the stream never defined (WTF's built-in ones, else one argument
 * per field typed by its value), and values of "any" arguments as JSON.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "base/fpconv.h"
#include "formats/wtf/wtf-private.h"
#include "text/json.h"

/* The built-in events, for definitions a stream lacks. */
static const struct builtin {
	const char *name;
	uint32_t cls, flags;
	const char *sig;
} builtins[] = {
	{ "wtf.event#define", 0, 0x28, wtf_define_sig },
	{ "wtf.trace#discontinuity", 0, 0x20, NULL },
	{ "wtf.zone#create", 0, 0x28,
	    "uint16 zoneId, ascii name, ascii type, ascii location" },
	{ "wtf.zone#delete", 0, 0x28, "uint16 zoneId" },
	{ "wtf.zone#set", 0, 0x28, "uint16 zoneId" },
	{ "wtf.scope#enter", 1, 0x20, "ascii name" },
	{ "wtf.scope#enterTracing", 1, 0x2c, NULL },
	{ "wtf.scope#leave", 0, 0x28, NULL },
	{ "wtf.scope#appendData", 0, 0x38, "ascii name, any value" },
	{ "wtf.flow#branch", 0, 0x28,
	    "flowId id, flowId parentId, ascii name, any value" },
	{ "wtf.flow#extend", 0, 0x28, "flowId id, ascii name, any value" },
	{ "wtf.flow#terminate", 0, 0x28, "flowId id, any value" },
	{ "wtf.flow#appendData", 0, 0x68, "flowId id, ascii name, any value" },
	{ "wtf.trace#mark", 0, 0x28, "ascii name, any value" },
	{ "wtf.trace#timeStamp", 0, 0x20, "ascii name, any value" },
	{ "wtf.timeRange#begin", 0, 0x28, "uint32 id, ascii name, any value" },
	{ "wtf.timeRange#end", 0, 0x28, "uint32 id" },
};

/* ----------------------------------------------------------- inference */

/*
 * The argument type a value suggests: strings utf8, booleans bool, and
 * numbers, lists, maps and null "any" (their JSON text): exact for 64-bit
 * integers and doubles, and no later value can fail to fit a type the
 * first one chose (the reader keeps the first definition of a name).
 */
static const char *
infer_type(const char *v, size_t n)
{
	switch (tr_value_kind(v, n)) {
	case TR_BOOL:
		return "bool";
	case TR_NULL: case TR_UINT: case TR_INT: case TR_FLOAT: case TR_LIST:
	case TR_MAP:
		return "any";
	case TR_WORD:
		/*
		 * A word that starts as a number does (1x, -x, .x, nanx,
		 * info) is typed as one: the field's later values may be
		 * numbers, which a utf8 argument would turn into strings.
		 */
		if (v[0] == '-' || v[0] == '.' ||
		    (v[0] >= '0' && v[0] <= '9') ||
		    (n >= 3 && (memcmp(v, "nan", 3) == 0 ||
		    memcmp(v, "inf", 3) == 0)))
			return "any";
		return "utf8";
	default:	/* TR_EMPTY, TR_STRING */
		return "utf8";
	}
}

/* A lowest free wire id from 2 on, or 0 when all are taken. */
static uint32_t
free_wire(const struct enc *e, uint32_t hint)
{
	if (hint >= 2 && hint <= WTF_MAX_WIRE && def_at(&e->defs, hint) == NULL)
		return hint;
	for (uint32_t w = 2; w <= WTF_MAX_WIRE; w++)
		if (def_at(&e->defs, w) == NULL)
			return w;
	return 0;
}

/*
 * A definition for an event the stream never defined: the built-in one
 * of that name, else one argument per field, typed by its value.  The
 * encoder enters it and writes its define record (NULL with the error
 * set).
 */
struct wtf_def *
wtf_infer_def(struct enc *e, const struct tr_rec *rec, const char *name,
    size_t namelen, uint32_t hint)
{
	const struct builtin *b = NULL;
	struct buf sig = { NULL, 0, 0 };
	const char *why = NULL;
	struct wtf_def *def;
	uint32_t wire = free_wire(e, hint);

	if (wire == 0) {
		tr_fail(e->r, rec, NULL, "all 65535 wire ids are taken");
		return NULL;
	}
	for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
		if (strlen(builtins[i].name) == namelen &&
		    memcmp(builtins[i].name, name, namelen) == 0)
			b = &builtins[i];
	if (b == NULL && rec != NULL) {
		for (size_t i = 0; i < rec->nf; i++) {
			const struct tr_field *f = &rec->f[i];
			const char *k = f->key;
			size_t kl = f->keylen, j;
			const char *t;
			if (reserved_key(k, kl))
				continue;
			if (kl > 4 && memcmp(k, "arg.", 4) == 0 &&
			    !arg_extra(k, kl))
				k += 4, kl -= 4;
			for (j = 0; j < kl && is_name_char((unsigned char)k[j]); j++)
				;
			if (j < kl || kl == 0)
				continue;	/* extras, and keys no name can be */
			t = infer_type(f->val, f->vallen);
			if ((sig.len > 0 && buf_add(&sig, ", ", 2) < 0) ||
			    buf_add(&sig, t, strlen(t)) < 0 ||
			    buf_add(&sig, " ", 1) < 0 || buf_add(&sig, k, kl) < 0)
				goto nomem;
		}
	}
	if (b != NULL)
		def = wtf_def_new(wire, b->cls, b->flags, name, namelen, b->sig,
		    b->sig ? strlen(b->sig) : 0, b->sig == NULL, &why);
	else	/* scope= marks the events that open a scope */
		def = wtf_def_new(wire, rec && find_key(rec, "scope", 5) ?
		    WTF_CLASS_SCOPE : 0, 0, name, namelen, (const char *)sig.b,
		    sig.len, sig.len == 0, &why);
	free(sig.b);
	if (def == NULL) {
		if (strcmp(why, "out of memory") == 0)
			goto nomem;
		tr_fail(e->r, rec, NULL, "cannot define %.*s: %s", (int)namelen,
		    name, why);
		return NULL;
	}
	def->inferred = 1;
	return def;
nomem:
	free(sig.b);
	enc_nomem(e);
	return NULL;
}

/* ----------------------------------------------- values of any arguments */

/*
 * A string as JSON text.  In a WTF stream its bytes go as they are (esc
 * ANY_ESC), UTF-8 or not: the reader gives them back so, and the round
 * trip is byte for byte.
 */
#define ANY_ESC (TP_JSON_ESC_BYTES | TP_JSON_ESC_U)
static int
json_str(struct buf *j, const unsigned char *s, size_t n, unsigned esc)
{
	char *end;

	if (buf_reserve(j, j->len + TP_JSON_ESC_MAX(n)) < 0)
		return -1;
	end = tp_json_escape((char *)j->b + j->len, s, n, esc);
	j->len = (size_t)(end - (char *)j->b);
	return 0;
}

/* Is v[0..n) a number as JSON spells one (RFC 8259, section 6)? */
static int
json_number_syntax(const char *v, size_t n)
{
	size_t i = 0;

	if (i < n && v[i] == '-')
		i++;
	if (i < n && v[i] == '0')
		i++;
	else if (i < n && v[i] >= '1' && v[i] <= '9')
		while (i < n && v[i] >= '0' && v[i] <= '9')
			i++;
	else
		return 0;
	if (i < n && v[i] == '.') {
		size_t d = ++i;
		while (i < n && v[i] >= '0' && v[i] <= '9')
			i++;
		if (i == d)
			return 0;
	}
	if (i < n && (v[i] == 'e' || v[i] == 'E')) {
		size_t d;
		i++;
		if (i < n && (v[i] == '+' || v[i] == '-'))
			i++;
		d = i;
		while (i < n && v[i] >= '0' && v[i] <= '9')
			i++;
		if (i == d)
			return 0;
	}
	return i == n;
}

/*
 * A float as the text writes it (tr_f64 without a reader: "nan",
 * "nan:0x<bits>" too): 0, or -1.
 */
int
wtf_text_f64(const char *v, size_t n, double *d)
{
	uint64_t bits;

	if (n > 4 && memcmp(v, "nan:", 4) == 0) {
		if (tp_parse_u64(v + 4, n - 4, &bits) < 0 ||
		    (bits & UINT64_C(0x7ff0000000000000)) !=
		    UINT64_C(0x7ff0000000000000) ||
		    (bits & UINT64_C(0x000fffffffffffff)) == 0)
			return -1;
		memcpy(d, &bits, sizeof bits);
		return 0;
	}
	if (n == 3 && memcmp(v, "nan", 3) == 0) {
		*d = NAN;
		return 0;
	}
	return tp_parse_f64(v, n, d);
}

/*
 * A text value (any of the stream's values) as JSON text, for an "any"
 * argument: integers in decimal, floats as they are when JSON spells
 * them so (else their shortest form), strings and bare words as strings,
 * lists and maps as arrays and objects.  JSON has no NaN or infinity:
 * those become the strings "NaN", "Infinity", "-Infinity" as JavaScript
 * names them, and *lost is set.  Needs no reader: the decoder checks
 * with it which any values it may write bare (wtf_any_text).
 */
static int
wtf_text_json(const char *v, size_t n, struct buf *j, struct buf *tmp,
    unsigned esc, int *lost)
{
	uint64_t u;
	int64_t i;
	double d;
	char num[TP_F64_TEXT_MAX + 1];
	size_t k;

	switch (tr_value_kind(v, n)) {
	case TR_LIST: case TR_MAP: {
		const char *cur = v, *end = v + n, *key, *ev;
		size_t keylen, evl;
		int map = v[0] == '{', first = 1;
		if (buf_add(j, map ? "{" : "[", 1) < 0)
			return -1;
		while (tr_elem(&cur, end, map ? &key : NULL, map ? &keylen : NULL,
		    &ev, &evl)) {
			if (!first && buf_add(j, ",", 1) < 0)
				return -1;
			first = 0;
			if (map) {
				const char *ks = key;
				size_t kl = keylen;
				if (kl > 0 && key[0] == '"') {
					if (buf_reserve(tmp, kl) < 0)
						return -1;
					kl = tp_unquote(key, kl, (char *)tmp->b);
					ks = (const char *)tmp->b;
				}
				if (json_str(j, (const unsigned char *)ks, kl, esc) < 0 ||
				    buf_add(j, ":", 1) < 0)
					return -1;
			}
			if (wtf_text_json(ev, evl, j, tmp, esc, lost) < 0)
				return -1;
		}
		return buf_add(j, map ? "}" : "]", 1);
	}
	case TR_NULL: case TR_BOOL:
		return buf_add(j, v, n);
	case TR_UINT:
		tp_parse_u64(v, n, &u);
		return buf_add(j, num, (size_t)(tp_fmt_u64(num, u) - num));
	case TR_INT:
		tp_parse_i64(v, n, &i);
		return buf_add(j, num, (size_t)(tp_fmt_i64(num, i) - num));
	case TR_FLOAT:
		if (wtf_text_f64(v, n, &d) == 0) {
			if (isnan(d) || isinf(d)) {
				*lost = 1;
				return buf_add(j, isnan(d) ? "\"NaN\"" : d > 0 ?
				    "\"Infinity\"" : "\"-Infinity\"", isnan(d) ? 5 :
				    d > 0 ? 10 : 11);
			}
			if (json_number_syntax(v, n))
				return buf_add(j, v, n);
			k = tp_f64_text(num, d);
			if (json_number_syntax(num, k))
				return buf_add(j, num, k);
		}
		break;
	case TR_STRING:
		if (buf_reserve(tmp, n) < 0)
			return -1;
		k = tp_unquote(v, n, (char *)tmp->b);
		return json_str(j, tmp->b, k, esc);
	default:	/* TR_EMPTY, TR_WORD: a bare string */
		break;
	}
	return json_str(j, (const unsigned char *)v, n, esc);
}

#define LOST_NONFINITE "a NaN or infinity stored as a JSON string (JSON " \
	"has no such number)"

/*
 * wtf_text_json of a field, with a NaN or infinity counted as a loss.  A
 * rebuilt trace is read by others (WTF's loader): its strings are UTF-8,
 * invalid bytes U+FFFD (counted by the caller).
 */
int
wtf_json_value(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f, struct buf *j)
{
	int lost = 0;

	if (wtf_text_json(f->val, f->vallen, j, &e->sbuf, e->rebuild ?
	    TP_JSON_ESC_U : ANY_ESC, &lost) < 0)
		return -1;
	if (lost && tr_lose(e->r, rec, &e->st->skipped, LOST_NONFINITE,
	    "field \"%.*s\"", (int)f->keylen, f->key) < 0)
		return -1;
	return 0;
}

/* ------------------------------------------ any values read back as text */

/* The JSON value [v, ve) as a text value onto out: 0, -1 out of memory. */
static int
json_to_text(const char *v, const char *ve, struct buf *out, struct buf *tmp)
{
	const char *cur = v, *ev, *eve, *key;
	size_t n, keylen;
	int first = 1;

	switch (v[0]) {
	case '"':
		if (buf_reserve(tmp, (size_t)(ve - v)) < 0)
			return -1;
		n = tp_json_unescape(v, ve, (char *)tmp->b, tmp->cap);
		if (n == SIZE_MAX || buf_reserve(out, out->len + QUOTED_MAX(n)) < 0)
			return -1;
		out->len = (size_t)(fmt_qstr((char *)out->b + out->len,
		    tmp->b, n) - (char *)out->b);
		return 0;
	case '[':
		if (buf_add(out, "[", 1) < 0)
			return -1;
		while (tp_json_element(&cur, ve, &ev, &eve)) {
			if ((!first && buf_add(out, ",", 1) < 0) ||
			    json_to_text(ev, eve, out, tmp) < 0)
				return -1;
			first = 0;
		}
		return buf_add(out, "]", 1);
	case '{':
		if (buf_add(out, "{", 1) < 0)
			return -1;
		while (tp_json_member(&cur, ve, &key, &keylen, &ev, &eve)) {
			if (!first && buf_add(out, ",", 1) < 0)
				return -1;
			first = 0;
			/* key is the string's content: with its quotes again */
			if (buf_reserve(tmp, keylen + 2) < 0)
				return -1;
			n = tp_json_unescape(key - 1, key + keylen + 1,
			    (char *)tmp->b, tmp->cap);
			if (n == SIZE_MAX)
				return -1;
			if (tp_bare_ok(tmp->b, n) && memchr(tmp->b, ':', n) == NULL) {
				if (buf_add(out, tmp->b, n) < 0)
					return -1;
			} else {
				if (buf_reserve(out, out->len + QUOTED_MAX(n)) < 0)
					return -1;
				out->len = (size_t)(fmt_qstr((char *)out->b +
				    out->len, tmp->b, n) - (char *)out->b);
			}
			if (buf_add(out, ":", 1) < 0 ||
			    json_to_text(ev, eve, out, tmp) < 0)
				return -1;
		}
		return buf_add(out, "}", 1);
	}
	return buf_add(out, v, (size_t)(ve - v));
}

/*
 * The common case of wtf_any_text in one pass: JSON without whitespace,
 * escapes or non-ASCII in its strings, with numbers as txt2wtf spells
 * them.  1 with the text in out, 0 when the full check must decide.
 */
static int
fast_value(const char **pp, const char *e, struct buf *out, int depth)
{
	const char *p = *pp, *q;
	int first = 1;

	if (p >= e || depth > 32)
		return 0;
	switch (*p) {
	case '"':
		for (q = p + 1; q < e && *q != '"'; q++)
			if (*q == '\\' || (unsigned char)*q < 0x20 ||
			    (unsigned char)*q >= 0x7f)
				return 0;
		if (q >= e || buf_reserve(out, out->len + QUOTED_MAX(q - p)) < 0)
			return 0;
		out->len = (size_t)(fmt_qstr((char *)out->b + out->len, p + 1,
		    (size_t)(q - p - 1)) - (char *)out->b);
		*pp = q + 1;
		return 1;
	case '[': case '{':
		if (buf_add(out, p, 1) < 0)
			return 0;
		for (p++; p < e && *p != (**pp == '[' ? ']' : '}'); first = 0) {
			if (!first) {
				if (*p != ',' || buf_add(out, ",", 1) < 0)
					return 0;
				p++;
			}
			if (**pp == '{') {	/* a key: as tv_mapkey writes it */
				size_t k = out->len;
				if (p >= e || *p != '"' || !fast_value(&p, e, out, depth + 1) ||
				    p >= e || *p++ != ':')
					return 0;
				if (tp_bare_ok(out->b + k + 1, out->len - k - 2) &&
				    memchr(out->b + k + 1, ':', out->len - k - 2) == NULL) {
					memmove(out->b + k, out->b + k + 1, out->len - k - 2);
					out->len -= 2;
				}
				if (buf_add(out, ":", 1) < 0)
					return 0;
			}
			if (!fast_value(&p, e, out, depth + 1))
				return 0;
		}
		if (p >= e || buf_add(out, p, 1) < 0)
			return 0;
		*pp = p + 1;
		return 1;
	case 't': case 'f': case 'n':
		q = *p == 'f' ? "false" : *p == 't' ? "true" : "null";
		if ((size_t)(e - p) < strlen(q) || memcmp(p, q, strlen(q)) != 0 ||
		    (*p == 'n' && depth == 0))
			return 0;
		*pp = p + strlen(q);
		return buf_add(out, q, strlen(q)) == 0;
	}
	/* an integer as tp_fmt writes it: no leading zero, no "-0" */
	q = p + (*p == '-');
	if (q >= e || *q < '0' || *q > '9' || (*q == '0' && (q + 1 < e &&
	    q[1] >= '0' && q[1] <= '9')) || (*q == '0' && q > p))
		return 0;
	while (q < e && *q >= '0' && *q <= '9')
		q++;
	if (q - p > 18 || (q < e && (*q == '.' || *q == 'e' || *q == 'E')))
		return 0;	/* long ones and floats: the full check */
	if (buf_add(out, p, (size_t)(q - p)) < 0)
		return 0;
	*pp = q;
	return 1;
}

/*
 * An any argument's JSON text as the text value it stands for (a number,
 * a bool, a list, a map), when the encoder turns that value back into
 * the very same bytes: 1 with the value in out, 0 when the JSON text is
 * to be written as a quoted string (a string, null, whitespace, a
 * spelling the encoder would not choose), -1 out of memory.  So an
 * integer of another format comes back an integer, and every trace's
 * bytes still round-trip.
 */
int
wtf_any_text(const char *s, size_t n, struct buf *out, struct buf *chk,
    struct buf *tmp)
{
	struct tp_json j;
	int lost = 0;

	const char *p = s;

	out->len = 0;
	if (n == 0 || s[0] == '"' || s[0] == 'n' || s[0] == ' ')
		return 0;
	if (fast_value(&p, s + n, out, 0) && p == s + n)
		return 1;
	out->len = 0;
	if (tp_json_check(&j, s, n, 0) < 0)
		return 0;
	if (json_to_text(s, s + n, out, tmp) < 0)
		return -1;
	chk->len = 0;
	if (wtf_text_json((const char *)out->b, out->len, chk, tmp, ANY_ESC,
	    &lost) < 0)
		return -1;
	return !lost && chk->len == n && memcmp(chk->b, s, n) == 0;
}
