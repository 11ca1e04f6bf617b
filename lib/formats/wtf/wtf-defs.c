/*
 * Web Tracing Framework traces: argument types and event definitions,
 * which the decoder and the encoder keep alike (see wtf-private.h), and
 * what else both sides read the same way.
 */
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "base/err.h"
#include "base/fpconv.h"
#include "formats/wtf/wtf-private.h"

/* ------------------------------------------------------------ arg types */

/* wtf.data.Variable's type names, WebIDL aliases included. */
static const struct {
	const char *name;
	unsigned char type;
} type_names[] = {
	{ "bool", WT_BOOL }, { "int8", WT_INT8 }, { "byte", WT_INT8 },
	{ "uint8", WT_UINT8 }, { "octet", WT_UINT8 }, { "int16", WT_INT16 },
	{ "short", WT_INT16 }, { "uint16", WT_UINT16 },
	{ "unsigned short", WT_UINT16 }, { "int32", WT_INT32 },
	{ "long", WT_INT32 }, { "uint32", WT_UINT32 },
	{ "unsigned long", WT_UINT32 }, { "float32", WT_FLOAT32 },
	{ "float", WT_FLOAT32 }, { "ascii", WT_ASCII }, { "utf8", WT_UTF8 },
	{ "DOMString", WT_UTF8 }, { "char", WT_CHAR }, { "wchar", WT_WCHAR },
	{ "any", WT_ANY }, { "flowId", WT_FLOWID }, { "time32", WT_TIME32 },
};

static int
is_type_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == ' ' || c == '[' || c == ']' ||
	    c == '<' || c == '>';
}

struct sigarg {
	const char *name;
	size_t namelen;
	unsigned char type, array;
};

/*
 * Parse an argument list as wtf.data.Variable does: split on ',', each
 * piece "[ ]*(type chars+) (name chars+)" with the type as long as it can
 * be, trailing text ignored; "T[]" and "sequence<T>" are arrays.
 */
static int
parse_sig(const char *s, size_t n, struct sigarg *out, const char **why)
{
	size_t i = 0;
	int nargs = 0;

	if (s == NULL || n == 0)
		return 0;
	while (i <= n) {
		size_t e = i, L, T, j, best = 0, tl;
		const char *t;
		char tbuf[64];
		int array = 0, found = 0;

		while (e < n && s[e] != ',')
			e++;
		L = i;
		while (L < e && s[L] == ' ')
			L++;
		T = L;
		while (T < e && is_type_char((unsigned char)s[T]))
			T++;
		for (j = T; j > L + 1; j--) {
			if (s[j - 1] == ' ' && j < e &&
			    is_name_char((unsigned char)s[j])) {
				best = j - 1;
				found = 1;
				break;
			}
		}
		if (!found) {
			*why = "invalid signature argument";
			return -1;
		}
		if (nargs == WTF_MAX_ARGS) {
			*why = "more than 64 arguments";
			return -1;
		}
		t = s + L;
		tl = best - L;
		out[nargs].name = s + best + 1;
		for (j = best + 1; j < e && is_name_char((unsigned char)s[j]); j++)
			;
		out[nargs].namelen = j - best - 1;
		if (tl >= sizeof tbuf) {
			*why = "invalid signature argument type";
			return -1;
		}
		memcpy(tbuf, t, tl);
		tbuf[tl] = '\0';
		if (tl > 2 && memcmp(tbuf + tl - 2, "[]", 2) == 0) {
			/* JS replace('[]', ''): the first "[]" goes. */
			char *b = strstr(tbuf, "[]");
			memmove(b, b + 2, strlen(b + 2) + 1);
			array = 1;
		}
		if (strncmp(tbuf, "sequence<", 9) == 0) {
			size_t k = strlen(tbuf);
			memmove(tbuf, tbuf + 9, k - 9 + 1);
			k -= 9;
			if (k > 0)
				tbuf[k - 1] = '\0';
			array = 1;
		}
		for (j = 0; j < sizeof type_names / sizeof type_names[0]; j++)
			if (strcmp(type_names[j].name, tbuf) == 0)
				break;
		if (j == sizeof type_names / sizeof type_names[0]) {
			*why = "invalid signature argument type";
			return -1;
		}
		out[nargs].type = type_names[j].type;
		out[nargs].array = (unsigned char)array;
		if (array && (type_string(out[nargs].type) ||
		    out[nargs].type == WT_BOOL || out[nargs].type == WT_FLOWID ||
		    out[nargs].type == WT_TIME32)) {
			*why = "arrays of this type have no encoding";
			return -1;
		}
		nargs++;
		i = e + 1;
	}
	return nargs;
}

/* ---------------------------------------------------------- definitions */

static int
name_is(const struct wtf_def *d, const char *s)
{
	size_t n = strlen(s);
	return d->namelen == n && memcmp(d->name, s, n) == 0;
}

/*
 * A string value as tv_str writes it, into a buffer of QUOTED_MAX bytes:
 * its length.
 */
static size_t
fmt_str(char *dst, const char *s, size_t n)
{
	if (tp_bare_ok(s, n)) {
		memcpy(dst, s, n);
		return n;
	}
	return (size_t)(fmt_qstr(dst, s, n) - dst);
}

/*
 * Make a definition (one allocation: the struct, its arguments, its
 * strings and the text pieces written for it).  NULL with *why on a bad
 * signature or no memory.
 */
struct wtf_def *
wtf_def_new(uint32_t wire, uint32_t cls, uint32_t flags, const char *name,
    size_t namelen, const char *sig, size_t siglen, int sig_null,
    const char **why)
{
	struct sigarg a[WTF_MAX_ARGS];
	struct wtf_def *d;
	size_t size, keys = 0;
	int nargs, i, j;
	char *p;

	nargs = parse_sig(sig_null ? NULL : sig, siglen, a, why);
	if (nargs < 0)
		return NULL;
	/*
	 * A record's text is written into room the output reserves at once
	 * (at most TP_OUT_SLACK): its name and keys must fit in it.
	 */
	if (namelen > WTF_NAME_MAX) {
		*why = "event name longer than 8192 bytes";
		return NULL;
	}
	for (i = 0; i < nargs; i++) {
		if (a[i].namelen > WTF_NAME_MAX) {
			*why = "argument name longer than 8192 bytes";
			return NULL;
		}
		keys += 2 * (a[i].namelen + 16);
	}
	/* FIELD_COPY: room to copy the last text piece in one move */
	size = sizeof *d + (size_t)nargs * sizeof d->arg[0] + namelen + 1 +
	    siglen + 1 + QUOTED_MAX(namelen) + 8 + keys + FIELD_COPY;
	if ((d = calloc(1, size)) == NULL) {
		*why = "out of memory";
		return NULL;
	}
	d->wire = wire;
	d->cls = cls;
	d->flags = flags;
	d->nargs = (unsigned)nargs;
	p = (char *)&d->arg[nargs];
	memcpy(p, name, namelen);
	d->name = p;
	d->namelen = namelen;
	p += namelen + 1;
	if (!sig_null) {
		memcpy(p, sig, siglen);
		d->sig = p;
		d->siglen = siglen;
		p += siglen + 1;
	}
	d->namefield = p;
	memcpy(p, " name=", 6);
	d->namefieldlen = 6 + fmt_str(p + 6, name, namelen);
	p += d->namefieldlen;
	for (i = 0; i < nargs; i++) {
		struct wtf_argdef *ad = &d->arg[i];
		int dup = 0;
		char *k;

		for (j = 0; j < i; j++)
			if (a[j].namelen == a[i].namelen &&
			    memcmp(a[j].name, a[i].name, a[i].namelen) == 0)
				dup = 1;
		ad->type = a[i].type;
		ad->array = a[i].array;
		if (type_size[ad->type] == 1 || type_size[ad->type] == 2)
			ad->padmask = ~UINT32_C(0) << 8 * type_size[ad->type];
		ad->field = p;
		*p++ = ' ';
		k = p;
		if (dup || reserved_key(a[i].name, a[i].namelen)) {
			memcpy(p, "arg.", 4);
			p += 4;
		}
		if (dup) {
			p = tp_fmt_u64(p, (uint64_t)i);
		} else {
			memcpy(p, a[i].name, a[i].namelen);
			p += a[i].namelen;
		}
		ad->key = k;
		ad->keylen = (unsigned short)(p - k);
		*p++ = '=';
		*p++ = '\0';
		d->has_array |= ad->array;
		if (!ad->array && type_string(ad->type))
			d->stridx[d->nstr++] = (unsigned char)i;
	}
	d->hash = name_hash(name, namelen);
	if (wire == WTF_WIRE_DEFINE)
		d->role = ROLE_DEFINE;
	else if (flags & WTF_FLAG_BUILTIN) {
		if (name_is(d, "wtf.zone#create") && nargs >= 1)
			d->role = ROLE_ZONE_CREATE;
		else if (name_is(d, "wtf.zone#set") && nargs >= 1)
			d->role = ROLE_ZONE_SET;
		else if (name_is(d, "wtf.scope#leave"))
			d->role = ROLE_SCOPE_LEAVE;
	}
	if ((d->role == ROLE_ZONE_CREATE || d->role == ROLE_ZONE_SET) &&
	    (d->arg[0].array || type_size[d->arg[0].type] == 0 ||
	    d->arg[0].type == WT_FLOAT32))
		d->role = ROLE_NONE;
	return d;
}

static void
deftab_unlink(struct deftab *t, struct wtf_def *d)
{
	struct wtf_def **pp = &t->bucket[d->hash % NAME_BUCKETS];

	while (*pp != d)
		pp = &(*pp)->next;
	*pp = d->next;
	if (d->latest) {
		/* The next most recent live definition of the name takes over. */
		struct wtf_def *e;
		for (e = d->next; e != NULL; e = e->next)
			if (e->namelen == d->namelen &&
			    memcmp(e->name, d->name, d->namelen) == 0) {
				e->latest = 1;
				break;
			}
	}
}

/*
 * Enter d; a definition of the same wire id is replaced.  0, or -1 when
 * out of memory (d freed).
 */
int
wtf_deftab_put(struct deftab *t, struct wtf_def *d)
{
	struct wtf_def **b = &t->bucket[d->hash % NAME_BUCKETS], *e;
	struct wtf_def ***page = &t->wire[d->wire / WIRE_PAGE], **slot;

	if (*page == NULL && (*page = calloc(WIRE_PAGE, sizeof **page)) == NULL) {
		free(d);
		return -1;
	}
	slot = &(*page)[d->wire % WIRE_PAGE];
	if (*slot != NULL) {
		deftab_unlink(t, *slot);
		free(*slot);
	} else {
		t->ndefs++;
	}
	for (e = *b; e != NULL; e = e->next)
		if (e->namelen == d->namelen &&
		    memcmp(e->name, d->name, d->namelen) == 0)
			e->latest = 0;
	d->latest = 1;
	d->next = *b;
	*b = d;
	*slot = d;
	return 0;
}

void
wtf_deftab_free(struct deftab *t)
{
	for (unsigned p = 0; p < (WTF_MAX_WIRE + 1) / WIRE_PAGE; p++) {
		if (t->wire[p] == NULL)
			continue;
		for (unsigned w = 0; w < WIRE_PAGE; w++)
			free(t->wire[p][w]);
		free(t->wire[p]);
	}
}

/*
 * wtf.event#define's own definition: what the reader registers before any
 * data (the C++ writer never writes it).
 */
const char wtf_define_sig[] =
    "uint16 wireId, uint16 eventClass, uint32 flags, ascii name, ascii args";

/* Put the built-in definition of wire 1; -1 when out of memory. */
int
wtf_deftab_init(struct deftab *t, const char **why)
{
	struct wtf_def *d;

	memset(t, 0, sizeof *t);
	d = wtf_def_new(WTF_WIRE_DEFINE, 0, 0x28, "wtf.event#define", 16,
	    wtf_define_sig, sizeof wtf_define_sig - 1, 0, why);
	if (d == NULL || wtf_deftab_put(t, d) < 0)
		return -1;
	t->ndefs = 0;
	return 0;
}

/* Is d the same event type as wire 1 (name and argument types)? */
int
wtf_same_as_define(const struct deftab *t, const struct wtf_def *d)
{
	const struct wtf_def *w = def_at(t, WTF_WIRE_DEFINE);

	if (!name_is(d, "wtf.event#define") || d->nargs != w->nargs)
		return 0;
	for (unsigned i = 0; i < d->nargs; i++)
		if (d->arg[i].type != w->arg[i].type ||
		    d->arg[i].array != w->arg[i].array)
			return 0;
	return 1;
}

/* --------------------------------------------------- shared by both sides */

/*
 * UTF-16 code units a legacy utf8 string of these bytes counts: one per
 * sequence, two for a 4-byte one (the writer encodes unit by unit and
 * never writes those, but a hand-made file may).
 */
uint32_t
wtf_utf16_units(const unsigned char *p, size_t n)
{
	uint32_t units = 0;

	for (size_t i = 0; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			units++;
		if (p[i] >= 0xf0)
			units++;
	}
	return units;
}

/*
 * A timebase in the file-header JSON ("timebase": milliseconds, possibly
 * fractional) as nanoseconds.  0 when absent or not a number.
 */
int64_t
wtf_json_timebase_ns(const char *s, size_t n)
{
	static const char key[] = "\"timebase\"";
	const char *p = s, *end = s + n, *q;
	int64_t ip = 0, frac = 0, scale = 100000;
	int neg = 0, round = 0;

	for (;;) {
		q = memchr(p, '"', (size_t)(end - p));
		if (q == NULL)
			return 0;
		if ((size_t)(end - q) >= sizeof key - 1 &&
		    memcmp(q, key, sizeof key - 1) == 0)
			break;
		p = q + 1;
	}
	p = q + sizeof key - 1;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	if (p == end || *p++ != ':')
		return 0;
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	q = p;
	if (p < end && *p == '-')
		neg = 1, p++;
	while (p < end && *p >= '0' && *p <= '9' && ip < INT64_C(1) << 40)
		ip = ip * 10 + (*p++ - '0');
	if (p < end && *p == '.') {
		for (p++; p < end && *p >= '0' && *p <= '9'; p++) {
			if (scale > 0) {
				frac += (*p - '0') * scale;
				scale /= 10;
			} else if (scale == 0) {
				round = *p >= '5';
				scale = -1;
			}
		}
	}
	if (p < end && (*p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9'))) {
		/*
		 * An exponent or a huge value: through a double, of the
		 * number's first 63 bytes (0 for none).
		 */
		size_t k = (size_t)(end - q) < 63 ? (size_t)(end - q) : 63;
		double v = 0;
		k = tp_f64_prefix(q, k);
		if (k > 0 && tp_parse_f64(q, k, &v) < 0)
			v = 0;
		v *= 1e6;
		if (!(v > -9.2e18 && v < 9.2e18))
			return 0;
		return (int64_t)(v < 0 ? v - 0.5 : v + 0.5);
	}
	if (ip > (INT64_MAX - 1000000) / 1000000)
		return 0;	/* as many nanoseconds as an int64 cannot hold */
	ip = ip * 1000000 + frac + round;
	return neg ? -ip : ip;
}

/* The chunked format's parts, by name in the text. */
static const struct {
	uint32_t type;
	const char *name;
} part_names[] = {
	{ WTF_PART_FILE_HEADER, "file_header" },
	{ WTF_PART_JSON_EVENTS, "json_event_buffer" },
	{ WTF_PART_LEGACY_EVENTS, "legacy_event_buffer" },
	{ WTF_PART_BINARY_EVENTS, "binary_event_buffer" },
	{ WTF_PART_STRING_TABLE, "string_table" },
	{ WTF_PART_BINARY_RESOURCE, "binary_resource" },
	{ WTF_PART_STRING_RESOURCE, "string_resource" },
};

const char *
wtf_part_name(uint32_t type)
{
	for (size_t i = 0; i < sizeof part_names / sizeof part_names[0]; i++)
		if (part_names[i].type == type)
			return part_names[i].name;
	return NULL;
}

/* The type of a part name, or -1 for none. */
int
wtf_part_type(const char *name, size_t n, uint32_t *type)
{
	for (size_t i = 0; i < sizeof part_names / sizeof part_names[0]; i++)
		if (strlen(part_names[i].name) == n &&
		    memcmp(part_names[i].name, name, n) == 0) {
			*type = part_names[i].type;
			return 0;
		}
	return -1;
}

const char *
wtf_chunk_name(uint32_t type)
{
	return type == WTF_CHUNK_FILE_HEADER ? "file_header" :
	    type == WTF_CHUNK_EVENT_DATA ? "event_data" : NULL;
}

int
wtf_strtab_load(struct wtf_strtab *t, const unsigned char *b, size_t n)
{
	size_t i = 0, k, mask;

	t->base = b;
	t->n = 0;
	t->next = 0;
	t->unique = 1;
	t->present = 1;
	while (i < n) {
		const unsigned char *z = memchr(b + i, 0, n - i);
		if (z == NULL)	/* wtf_chunk_parts refused it */
			break;
		if (t->n == t->cap &&
		    tp_grow(&t->ent, &t->cap, t->n + 1, sizeof t->ent[0]) < 0)
			return -1;
		t->ent[t->n].off = (uint32_t)i;
		t->ent[t->n].len = (uint32_t)(z - (b + i));
		t->n++;
		i = (size_t)(z - b) + 1;
	}
	for (k = 64; k < 2 * t->n; k *= 2)
		;
	if (k > t->hcap) {
		free(t->hash);
		if ((t->hash = malloc(k * sizeof *t->hash)) == NULL) {
			t->hcap = 0;
			return -1;
		}
		t->hcap = k;
	}
	memset(t->hash, 0, k * sizeof *t->hash);
	mask = k - 1;
	for (i = 0; i < t->n; i++) {
		struct wtf_strent *en = &t->ent[i];
		const unsigned char *s = b + en->off;
		uint32_t len = en->len, j;
		size_t h = name_hash(s, len) & mask;

		while ((j = t->hash[h]) != 0 && (t->ent[j - 1].len != len ||
		    memcmp(b + t->ent[j - 1].off, s, len) != 0))
			h = (h + 1) & mask;
		if (j != 0) {
			en->first = j - 1;
			t->unique = 0;
		} else {
			en->first = (uint32_t)i;
			t->hash[h] = (uint32_t)i + 1;
		}
	}
	return 0;
}

void
wtf_strtab_free(struct wtf_strtab *t)
{
	free(t->ent);
	free(t->hash);
}

int
wtf_strtab_done(const struct wtf_strtab *t, uint64_t off, uint64_t index,
    struct tp_err *err)
{
	if (t->present && t->next != t->n)
		return tp_fail_at(err, off, index, "chunk", "%zu of the %zu "
		    "strings of the chunk's table are never used (writers "
		    "store only what their records use)",
		    t->n - t->next, t->n);
	return 0;
}

struct wtf_def *
wtf_define_make(const struct deftab *defs, const struct wtf_defrec *r,
    int legacy, uint64_t off, uint64_t index, struct tp_err *err)
{
	const char *why = NULL;
	struct wtf_def *def;

	if (r->name_null || r->namelen == 0) {
		tp_fail_at(err, off, index, "record", "definition of wire id "
		    "%u without a name", r->wire);
		return NULL;
	}
	def = wtf_def_new(r->wire, r->cls, r->flags, (const char *)r->name,
	    r->namelen, (const char *)r->sig, r->siglen, r->sig_null, &why);
	if (def == NULL) {
		if (strcmp(why, "out of memory") == 0)
			tp_fail_nomem(err);
		else
			tp_fail_at(err, off, index, "record", "definition of "
			    "wire id %u (%.*s): %s: \"%.*s\"", r->wire,
			    (int)(r->namelen > 60 ? 60 : r->namelen), r->name,
			    why, (int)(r->siglen > 80 ? 80 : r->siglen),
			    r->sig ? (const char *)r->sig : "");
		return NULL;
	}
	if (r->wire == WTF_WIRE_DEFINE && !wtf_same_as_define(defs, def)) {
		free(def);
		tp_fail_at(err, off, index, "record", "wire id 1 "
		    "(wtf.event#define) redefined as another event type");
		return NULL;
	}
	if (legacy) {
		for (unsigned i = 0; i < def->nargs; i++)
			if (def->arg[i].type == WT_CHAR ||
			    def->arg[i].type == WT_WCHAR) {
				free(def);
				tp_fail_at(err, off, index, "record",
				    "definition of wire id %u: char and wchar "
				    "have no legacy encoding", r->wire);
				return NULL;
			}
	}
	return def;
}
