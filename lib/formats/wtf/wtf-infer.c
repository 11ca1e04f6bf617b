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
 * A string as JSON text.  Its bytes go as they are, UTF-8 or not: the
 * reader gives them back so, and the round trip is byte for byte.
 */
static int
json_str(struct buf *j, const unsigned char *s, size_t n)
{
	char *end;

	if (buf_reserve(j, j->len + TP_JSON_ESC_MAX(n)) < 0)
		return -1;
	end = tp_json_escape((char *)j->b + j->len, s, n,
	    TP_JSON_ESC_BYTES | TP_JSON_ESC_U);
	j->len = (size_t)(end - (char *)j->b);
	return 0;
}

/*
 * Does v spell a NaN or an infinity as strtod reads one (nan, NaN,
 * Infinity, nan(1), in any case)?
 */
static int
nonfinite_word(const char *v, size_t n)
{
	static const char *const words[] = { "inf", "infinity", "nan" };
	size_t i, k, wl;

	for (k = 0; k < sizeof words / sizeof words[0]; k++) {
		wl = strlen(words[k]);
		if (n < wl)
			continue;
		for (i = 0; i < wl && (v[i] | 0x20) == words[k][i]; i++)
			;
		if (i < wl)
			continue;
		if (n == wl)
			return 1;
		if (words[k][0] == 'n' && v[wl] == '(' && v[n - 1] == ')') {
			for (i = wl + 1; i < n - 1 && (is_name_char(
			    (unsigned char)v[i])); i++)
				;
			return i == n - 1;
		}
	}
	return 0;
}

/*
 * Is v (under 32 bytes) a decimal number, read whole: 1 finite, 0 NaN
 * or an infinity (which JSON has not), -1 not one.  The stream's own
 * spellings are read by tp_parse_f64; a '+' and the words other writers
 * use (NaN, -Infinity) are taken as strtod took them.
 */
static int
json_number(const char *v, size_t n)
{
	size_t plus = n > 1 && v[0] == '+' && v[1] != '+' && v[1] != '-';
	size_t sign = n > 0 && (v[0] == '+' || v[0] == '-');
	double d;

	if (n >= 32 || memchr(v, 'x', n) != NULL)
		return -1;	/* nor is hexadecimal (0x) */
	if (tp_parse_f64(v + plus, n - plus, &d) == 0)
		return !isnan(d) && !isinf(d);
	return nonfinite_word(v + sign, n - sign) ? 0 : -1;
}

/*
 * A text value (any of the stream's values) as JSON text, for an "any"
 * argument: strings quoted, numbers as they are (hexadecimal in decimal,
 * NaN and infinities as null), lists and maps as arrays and objects.
 */
int
wtf_json_value(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f, struct buf *j)
{
	const char *v = f->val;
	size_t n = f->vallen;
	uint64_t u;
	char num[24];

	if (n > 0 && (v[0] == '[' || v[0] == '{')) {
		const char *cur = v, *end = v + n, *key, *ev;
		size_t keylen, evl;
		int map = v[0] == '{', first = 1;
		if (buf_add(j, map ? "{" : "[", 1) < 0)
			return -1;
		while (tr_elem(&cur, end, map ? &key : NULL, map ? &keylen : NULL,
		    &ev, &evl)) {
			struct tr_field ef = *f;
			if (!first && buf_add(j, ",", 1) < 0)
				return -1;
			first = 0;
			if (map) {
				struct tr_field kf = *f;
				size_t kl;
				kf.val = key;
				kf.vallen = (uint32_t)keylen;
				if (buf_reserve(&e->sbuf, keylen + 1) < 0 ||
				    tr_str(e->r, rec, &kf, e->sbuf.b, e->sbuf.cap,
				    &kl) < 0 || json_str(j, e->sbuf.b, kl) < 0 ||
				    buf_add(j, ":", 1) < 0)
					return -1;
			}
			ef.val = ev;
			ef.vallen = (uint32_t)evl;
			if (wtf_json_value(e, rec, &ef, j) < 0)
				return -1;
		}
		return buf_add(j, map ? "}" : "]", 1);
	}
	if ((n == 4 && memcmp(v, "true", 4) == 0) ||
	    (n == 5 && memcmp(v, "false", 5) == 0) ||
	    (n == 4 && memcmp(v, "null", 4) == 0))
		return buf_add(j, v, n);
	if (n > 2 && v[0] == '0' && v[1] == 'x' && tp_parse_u64(v, n, &u) == 0)
		return buf_add(j, num, (size_t)(tp_fmt_u64(num, u) - num));
	if (n > 0 && v[0] != '"') {
		switch (json_number(v, n)) {
		case 1:
			return buf_add(j, v, n);
		case 0:
			return buf_add(j, "null", 4);
		}
		if (strncmp(v, "nan", 3) == 0 || strncmp(v, "inf", 3) == 0 ||
		    strncmp(v, "-inf", 4) == 0)
			return buf_add(j, "null", 4);
	}
	{
		size_t sl;
		if (buf_reserve(&e->sbuf, n + 1) < 0)
			return -1;
		if (n == 2 && v[0] == '"')
			sl = 0;
		else if (tr_str(e->r, rec, f, e->sbuf.b, e->sbuf.cap, &sl) < 0)
			return -1;
		return json_str(j, e->sbuf.b, sl);
	}
}
