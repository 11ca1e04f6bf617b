/*
 * Web Tracing Framework traces: decoder and encoder of both generations.
 *
 * Both sides keep the same table of event definitions (wire id -> name,
 * class, flags and argument types), filled by wtf.event#define records as
 * they come, so that a record's bytes can be read and written by its
 * type.  The decoder reads legacy records straight out of the input
 * buffer; a chunk of the chunked format is read whole (its string table
 * may sit anywhere in it) and its event buffer walked slot by slot.  The
 * encoder writes legacy records as they come and holds one chunk until it
 * is complete, because a chunk starts with its length and part table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "formats/probe.h"
#include "base/fpconv.h"
#include "base/grow.h"
#include "base/hash.h"
#include "text/json.h"
#include "formats/wtf/wtf.h"

/* ------------------------------------------------------------ arg types */

enum wtf_type {
	WT_BOOL, WT_INT8, WT_UINT8, WT_INT16, WT_UINT16, WT_INT32, WT_UINT32,
	WT_FLOAT32, WT_ASCII, WT_UTF8, WT_CHAR, WT_WCHAR, WT_ANY, WT_FLOWID,
	WT_TIME32
};

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

static const char *const canon_type[] = {
	"bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
	"float32", "ascii", "utf8", "char", "wchar", "any", "flowId", "time32"
};

/* Bytes of one element of a numeric type (legacy sizes, CFF arrays). */
static const unsigned char type_size[] = {
	1, 1, 1, 2, 2, 4, 4, 4, 0, 0, 1, 2, 0, 4, 4
};

static int
type_string(int t)
{
	return t == WT_ASCII || t == WT_UTF8 || t == WT_ANY;
}

/* ---------------------------------------------------------- definitions */

enum { ROLE_NONE, ROLE_DEFINE, ROLE_ZONE_CREATE, ROLE_ZONE_SET,
	ROLE_SCOPE_LEAVE };

#define WTF_CLASS_SCOPE 1
#define WTF_FLAG_BUILTIN 0x20

struct wtf_argdef {
	unsigned char type;
	unsigned char array;
	unsigned short keylen;	/* the text key, without " " and "=" */
	uint32_t padmask;	/* the bits of a 4-byte slot past the value */
	const char *key;
	const char *field;	/* " key=" */
};

struct wtf_def {
	struct wtf_def *next;	/* in its name bucket, most recent first */
	uint32_t wire, cls, flags;
	int role;
	int latest;		/* the most recent live definition of its name */
	int inferred;
	uint32_t hash;
	const char *name;
	size_t namelen;
	const char *sig;	/* NULL for a null signature */
	size_t siglen;
	const char *namefield;	/* " name=..." as written */
	size_t namefieldlen;
	unsigned nargs;
	int has_array;		/* an argument is an array */
	unsigned nstr;		/* string arguments (not arrays): */
	unsigned char stridx[WTF_MAX_ARGS];	/* their indexes, in order */
	struct wtf_argdef arg[];
};

/*
 * Definitions by name: a few hundred in the largest traces.  The table is
 * part of every decoder's and encoder's state, cleared for every trace
 * (and every fuzz input): small.
 */
#define NAME_BUCKETS 512

/*
 * Definitions by wire id, in pages made on first use: a trace uses a few
 * of the 65536 ids, and a table of them all would be cleared and walked
 * for every trace.
 */
#define WIRE_PAGE 256

struct deftab {
	struct wtf_def **wire[(WTF_MAX_WIRE + 1) / WIRE_PAGE];
	struct wtf_def *bucket[NAME_BUCKETS];
	unsigned ndefs;
};

/* The definition of wire id w (any number), or NULL. */
static struct wtf_def *
def_at(const struct deftab *t, uint32_t w)
{
	struct wtf_def **page;

	if (w > WTF_MAX_WIRE || (page = t->wire[w / WIRE_PAGE]) == NULL)
		return NULL;
	return page[w % WIRE_PAGE];
}

/*
 * The hash of names (every event's name is looked up) and table strings
 * (every string of a table is entered): tp_hash_mem's high half, which
 * every byte reaches (the low bits miss the last bytes of a long name).
 */
static inline uint32_t
name_hash(const void *s, size_t n)
{
	return (uint32_t)(tp_hash_mem(s, n) >> 32);
}

/* Keys of the event record itself: an argument of such a name is "arg.X". */
static inline int
reserved_key(const char *s, size_t n)
{
	switch (n) {	/* on every field of every event */
	case 2: return memcmp(s, "ts", 2) == 0;
	case 3: return memcmp(s, "tid", 3) == 0;
	case 4: return memcmp(s, "name", 4) == 0 || memcmp(s, "time", 4) == 0 ||
		    memcmp(s, "wire", 4) == 0;
	case 5: return memcmp(s, "scope", 5) == 0;
	}
	return 0;
}

/*
 * "arg.pad" and "arg.chars" are the extras of an argument named "arg",
 * not an escaped argument: neither "pad" nor "chars" is a reserved key.
 */
static inline int
arg_extra(const char *s, size_t n)
{
	return (n == 7 && memcmp(s, "arg.pad", 7) == 0) ||
	    (n == 9 && memcmp(s, "arg.chars", 9) == 0);
}

static int
is_type_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == ' ' || c == '[' || c == ']' ||
	    c == '<' || c == '>';
}

static int
is_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
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

static int
name_is(const struct wtf_def *d, const char *s)
{
	size_t n = strlen(s);
	return d->namelen == n && memcmp(d->name, s, n) == 0;
}

/*
 * The text pieces of a definition (" name=...", " key=") are copied into
 * the output as FIELD_COPY bytes in one move when they are no longer:
 * the definition's allocation has that much room after its last piece.
 */
#define FIELD_COPY 32

static inline char *
put_piece(char *p, const char *piece, size_t n)
{
	if (n <= FIELD_COPY)
		memcpy(p, piece, FIELD_COPY);
	else
		memcpy(p, piece, n);
	return p + n;
}

/* Bytes of a string written as a text value (quoted, worst case). */
#define QUOTED_MAX(n) (4 * (n) + 2)
/* The longest event or argument name (QUOTED_MAX of it fits the slack). */
#define WTF_NAME_MAX 8192

/* A string value as tv_qstr writes it, at p (QUOTED_MAX bytes): the end. */
static inline char *
fmt_qstr(char *p, const void *s, size_t n)
{
	size_t used;

	*p++ = '"';
	p = tp_fmt_qbody(p, p + 4 * n, s, n, &used);
	*p++ = '"';
	return p;
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
static struct wtf_def *
def_new(uint32_t wire, uint32_t cls, uint32_t flags, const char *name,
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
static int
deftab_put(struct deftab *t, struct wtf_def *d)
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

/*
 * Keys and names are short: compared inline, 8 or 4 bytes at a time (the
 * last piece overlapping), not by a call of memcmp, which every field of
 * every event would cost.
 */
static inline int
key_eq(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	uint32_t u, v;

	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return 0;
		}
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return x == y;
	}
	if (n >= 4) {
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		if (u != v)
			return 0;
		memcpy(&u, a + n - 4, 4);
		memcpy(&v, b + n - 4, 4);
		return u == v;
	}
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
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

static void
deftab_free(struct deftab *t)
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
static const char define_sig[] =
    "uint16 wireId, uint16 eventClass, uint32 flags, ascii name, ascii args";

/* Put the built-in definition of wire 1; -1 when out of memory. */
static int
deftab_init(struct deftab *t, const char **why)
{
	struct wtf_def *d;

	memset(t, 0, sizeof *t);
	d = def_new(WTF_WIRE_DEFINE, 0, 0x28, "wtf.event#define", 16,
	    define_sig, sizeof define_sig - 1, 0, why);
	if (d == NULL || deftab_put(t, d) < 0)
		return -1;
	t->ndefs = 0;
	return 0;
}

/* Is d the same event type as wire 1 (name and argument types)? */
static int
same_as_define(const struct deftab *t, const struct wtf_def *d)
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

/* --------------------------------------------------------- UTF-8, UTF-16 */

/*
 * UTF-16 code units a legacy utf8 string of these bytes counts: one per
 * sequence, two for a 4-byte one (the writer encodes unit by unit and
 * never writes those, but a hand-made file may).
 */
static uint32_t
utf16_units(const unsigned char *p, size_t n)
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

/* One UTF-16 unit as 1-3 bytes of UTF-8 (a lone surrogate as 3 bytes). */
static size_t
put_unit(unsigned char *d, unsigned u)
{
	if (u < 0x80) {
		d[0] = (unsigned char)u;
		return 1;
	}
	if (u < 0x800) {
		d[0] = (unsigned char)(0xc0 | u >> 6);
		d[1] = (unsigned char)(0x80 | (u & 0x3f));
		return 2;
	}
	d[0] = (unsigned char)(0xe0 | u >> 12);
	d[1] = (unsigned char)(0x80 | ((u >> 6) & 0x3f));
	d[2] = (unsigned char)(0x80 | (u & 0x3f));
	return 3;
}

/*
 * The next UTF-16 unit(s) of bytes written by units_to_utf8: returns the
 * bytes used and sets u[0] (and u[1] for a 4-byte sequence, *nu = 2);
 * 0 when the bytes are no such sequence.
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

/* ---------------------------------------------------------- float bits */

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

/* ---------------------------------------------------------------- decoder */

struct strent {
	uint32_t off, len;		/* in the part's bytes */
	/*
	 * The string as a quoted value in text (fmt_qstr), at text + qoff,
	 * made once for equal strings; qlen QLEN_NONE when longer than
	 * QSTR_INLINE (written at each use).
	 */
	uint32_t qoff, qlen;
};

struct strtab {
	const unsigned char *base;	/* the part's bytes */
	struct strent *ent;		/* per ordinal */
	unsigned char *text;
	size_t textcap;
	uint32_t *hash;			/* open addressing, ordinals + 1 */
	size_t n, cap, hcap;
	uint32_t next;			/* ordinal the encoder would give next */
	int unique;			/* no two entries equal: deduplicated */
	int present;
};
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
	struct strtab strs;
	unsigned char *scratch;
	size_t scratchcap;
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

/* A scalar of a numeric type read as an integer (sign-extended). */
static int64_t
scalar_value(int type, uint32_t raw)
{
	switch (type) {
	case WT_INT8: return (int8_t)raw;
	case WT_INT16: return (int16_t)raw;
	case WT_INT32: return (int32_t)raw;
	case WT_UINT8: case WT_BOOL: case WT_CHAR: return (uint8_t)raw;
	case WT_UINT16: case WT_WCHAR: return (uint16_t)raw;
	default: return raw;
	}
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
				unsigned c = 0x10000 + ((u - 0xd800) << 10) +
				    (v - 0xdc00);
				unsigned char *q = d->scratch + n;
				q[0] = (unsigned char)(0xf0 | c >> 18);
				q[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
				q[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
				q[3] = (unsigned char)(0x80 | (c & 0x3f));
				n += 4;
				i++;
				continue;
			}
		}
		n += put_unit(d->scratch + n, u);
	}
	return put_str(d, p, d->scratch, n, 0);
}

/*
 * A timebase in the file-header JSON ("timebase": milliseconds, possibly
 * fractional) as nanoseconds.  0 when absent or not a number.
 */
static int64_t
json_timebase_ns(const char *s, size_t n)
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
		size_t k = tp_f64_prefix(q, end - q < 63 ? (size_t)(end - q) : 63);
		double v = 0;
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

static const char *
class_name(uint32_t cls)
{
	return cls == 0 ? "instance" : cls == 1 ? "scope" : NULL;
}

struct defrec {
	uint32_t wire, cls, flags;
	const unsigned char *name, *sig;
	size_t namelen, siglen;
	int name_null, sig_null;
	const unsigned char *pad[2];	/* CFF: slot padding of wire, class */
};

/* Enter a definition read from the trace; the record is written after. */
static int
dec_define(struct dec *d, const struct defrec *r, uint64_t off)
{
	const char *why = NULL;
	struct wtf_def *def;

	if (r->name_null || r->namelen == 0)
		return tp_fail_at(d->err, off, d->rec_index - 1, "record",
		    "definition of wire id %u without a name", r->wire);
	def = def_new(r->wire, r->cls, r->flags, (const char *)r->name,
	    r->namelen, (const char *)r->sig, r->siglen, r->sig_null, &why);
	if (def == NULL) {
		if (strcmp(why, "out of memory") == 0)
			return dec_nomem(d);
		return tp_fail_at(d->err, off, d->rec_index - 1, "record",
		    "definition of wire id %u (%.*s): %s: \"%.*s\"", r->wire,
		    (int)(r->namelen > 60 ? 60 : r->namelen), r->name, why, (int)(r->siglen > 80 ? 80 : r->siglen),
		    r->sig ? (const char *)r->sig : "");
	}
	if (r->wire == WTF_WIRE_DEFINE && !same_as_define(&d->defs, def)) {
		free(def);
		return tp_fail_at(d->err, off, d->rec_index - 1, "record",
		    "wire id 1 (wtf.event#define) redefined as another event "
		    "type");
	}
	if (d->legacy) {
		for (unsigned i = 0; i < def->nargs; i++)
			if (def->arg[i].type == WT_CHAR ||
			    def->arg[i].type == WT_WCHAR) {
				free(def);
				return tp_fail_at(d->err, off,
				    d->rec_index - 1, "record", "definition "
				    "of wire id %u: char and wchar have no "
				    "legacy encoding", r->wire);
			}
	}
	if (def_at(&d->defs, r->wire) != NULL && r->wire != WTF_WIRE_DEFINE)
		d->st->redefined++;
	if (deftab_put(&d->defs, def) < 0)
		return dec_nomem(d);
	d->st->defines++;
	return 0;
}

static void
put_define(struct dec *d, const struct defrec *r, uint32_t time)
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
static long
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
				p = put_qstr(d, p, b + 4, bl);
				if (utf16_units(b + 4, bl) != c) {
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
static void
legacy_defrec(const unsigned char *b, struct defrec *r)
{
	uint32_t c;

	memset(r, 0, sizeof *r);
	r->wire = tp_get_be16(b);
	r->cls = tp_get_be16(b + 2);
	r->flags = tp_get_be32(b + 4);
	c = tp_get_be16(b + 8);
	r->name = b + 10;
	r->namelen = c;
	r->name_null = c == 0;
	b += 10 + c;
	c = tp_get_be16(b);
	r->sig = b + 2;
	r->siglen = c;
	r->sig_null = c == 0;
}

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
				    "record", "truncated record: needs 6 bytes, "
				    "only %ld left", avail);
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
			struct defrec r;
			legacy_defrec(b + 6, &r);
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
		return tp_fail_at(d->err, off, TP_NONE, NULL, "truncated header: "
		    "%s", what);
	*chars = tp_get_be16(in->buf + in->pos);
	if (*chars == 0) {
		*s = NULL;
		*len = 0;
		in->pos += 2;
		return 0;
	}
	if (*chars == 0xffff)
		return tp_fail_at(d->err, off, TP_NONE, NULL, "%s: string-table "
		    "reference in a legacy header", what);
	*len = tp_get_be16(in->buf + in->pos + 2);
	avail = tp_in_fill(in, 4 + *len);
	if (avail < 0)
		return -1;
	if ((size_t)avail < 4 + *len)
		return tp_fail_at(d->err, off, TP_NONE, NULL, "truncated header: "
		    "%s needs %u bytes, only %ld left", what, 4 + *len, avail);
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
	if (utf16_units(s, len) != chars) {
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
		return tp_fail_at(d->err, off, TP_NONE, NULL, "truncated header: "
		    "flags and timebase need 12 bytes, only %ld left", avail);
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

static const char *
part_name(uint32_t type)
{
	for (size_t i = 0; i < sizeof part_names / sizeof part_names[0]; i++)
		if (part_names[i].type == type)
			return part_names[i].name;
	return NULL;
}

/* Parts whose opaque bytes are text (written as a quoted string). */
static int
part_is_text(uint32_t type)
{
	return type == WTF_PART_JSON_EVENTS || type == WTF_PART_STRING_RESOURCE;
}

static const char *
chunk_name(uint32_t type)
{
	return type == WTF_CHUNK_FILE_HEADER ? "file_header" :
	    type == WTF_CHUNK_EVENT_DATA ? "event_data" : NULL;
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
 * Index a string table part: NUL-terminated strings.  Whether two entries
 * are equal tells how the writer filled it (the C++ writer stores each
 * string once, the JS writer once per use).
 */
static int
strtab_load(struct dec *d, const unsigned char *b, size_t n, uint64_t off,
    uint64_t chunk)
{
	struct strtab *t = &d->strs;
	size_t i = 0, k, mask, used = 0, need;

	t->base = b;
	t->n = 0;
	t->next = 0;
	t->unique = 1;
	t->present = 1;
	while (i < n) {
		const unsigned char *z = memchr(b + i, 0, n - i);
		if (z == NULL)
			return tp_fail_at(d->err, off + i, chunk, "chunk",
			    "string table entry %zu has no terminating NUL "
			    "byte", t->n);
		if (t->n == t->cap &&
		    tp_grow(&t->ent, &t->cap, t->n + 1, sizeof t->ent[0]) < 0)
			return dec_nomem(d);
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
			return dec_nomem(d);
		}
		t->hcap = k;
	}
	memset(t->hash, 0, k * sizeof *t->hash);
	mask = k - 1;
	for (i = 0; i < t->n; i++) {
		struct strent *en = &t->ent[i];
		const unsigned char *s = b + en->off;
		uint32_t len = en->len, j;
		size_t h = name_hash(s, len) & mask;
		char *q;

		while ((j = t->hash[h]) != 0 && (t->ent[j - 1].len != len ||
		    memcmp(b + t->ent[j - 1].off, s, len) != 0))
			h = (h + 1) & mask;
		if (j != 0) {
			en->qoff = t->ent[j - 1].qoff;
			en->qlen = t->ent[j - 1].qlen;
			t->unique = 0;
			continue;
		}
		t->hash[h] = (uint32_t)i + 1;
		en->qlen = QLEN_NONE;
		if (len > QSTR_INLINE || used > UINT32_MAX / 2)
			continue;
		/* FIELD_COPY: room to copy the last one in one move */
		need = used + QUOTED_MAX(len) + FIELD_COPY;
		if (need > t->textcap &&
		    tp_grow(&t->text, &t->textcap, need, 1) < 0)
			return dec_nomem(d);
		q = (char *)t->text + used;
		en->qoff = (uint32_t)used;
		en->qlen = (uint32_t)(fmt_qstr(q, s, len) - q);
		used += en->qlen;
	}
	return 0;
}

/*
 * Check a string ordinal against the order the encoder writes (each
 * string at its first use, once per use unless the table is unique);
 * *next is advanced.  NULL when fine, else why not.
 */
static inline const char *
strtab_check(const struct strtab *t, uint32_t o, uint32_t *next)
{
	if (o >= 0xfffffffeu)
		return NULL;
	if (!t->present)
		return "string ordinal in a chunk without a string table";
	if (o >= t->n)
		return "string ordinal past the end of the string table";
	if (t->ent[o].len == 0)
		return "reference to an empty string table entry (readers take "
		    "it for null; writers use 0xfffffffe for \"\")";
	if (o == *next) {
		(*next)++;
		return NULL;
	}
	if (t->unique && o < *next)
		return NULL;
	return "string table not in the order of its uses (not written by "
	    "a known writer; not supported)";
}

/*
 * Slots of a record's arguments at s (avail slots left): >= 0, or -1
 * with *why.  String ordinals are checked (and *next advanced).
 */
static long
cff_args_slots(const struct dec *d, const struct wtf_def *def,
    const unsigned char *s, size_t avail, uint32_t *next, const char **why)
{
	size_t pos = 0;

	if (!def->has_array) {
		/* one slot each: only the strings' ordinals to check */
		for (unsigned k = 0; k < def->nstr && def->stridx[k] < avail;
		    k++)
			if ((*why = strtab_check(&d->strs,
			    tp_get_le32(s + 4 * def->stridx[k]), next)) != NULL)
				return -1;
		if (def->nargs > avail)
			goto short_;
		return (long)def->nargs;
	}
	for (unsigned i = 0; i < def->nargs; i++) {
		const struct wtf_argdef *a = &def->arg[i];
		uint32_t v;

		if (pos >= avail)
			goto short_;
		v = tp_get_le32(s + 4 * pos);
		if (a->array) {
			if (v != 0xffffffffu)
				pos += ((uint64_t)v * type_size[a->type] + 3) / 4;
		} else if (type_string(a->type)) {
			if ((*why = strtab_check(&d->strs, v, next)) != NULL)
				return -1;
		}
		pos++;
		if (pos > avail)
			goto short_;
	}
	return (long)pos;
short_:
	*why = "truncated record: it runs past the end of the event buffer";
	return -1;
}

static char *
cff_put_string(struct dec *d, char *p, uint32_t o)
{
	const struct strent *en;

	if (o == 0xffffffffu)
		return put_lit(p, "null");
	if (o == 0xfffffffeu)
		return put_str(d, p, "", 0, 0);
	en = &d->strs.ent[o];
	if (en->qlen != QLEN_NONE)
		return put_piece(p, (const char *)d->strs.text + en->qoff,
		    en->qlen);
	return put_str(d, p, d->strs.base + en->off, en->len, 0);
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
			unsigned char u[3];
			switch (a->type) {
			case WT_ASCII: case WT_UTF8: case WT_ANY:
				p = cff_put_string(d, p, v);
				break;
			case WT_CHAR:
				u[0] = (unsigned char)v;
				p = put_qstr(d, p, u, 1);
				break;
			case WT_WCHAR:
				p = put_qstr(d, p, u, put_unit(u, v & 0xffff));
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

static void
cff_defrec(const struct dec *d, const unsigned char *s, struct defrec *r)
{
	const struct strtab *t = &d->strs;
	uint32_t o;

	memset(r, 0, sizeof *r);
	r->wire = tp_get_le16(s);
	r->pad[0] = s + 2;
	r->cls = tp_get_le16(s + 4);
	r->pad[1] = s + 6;
	r->flags = tp_get_le32(s + 8);
	o = tp_get_le32(s + 12);
	r->name_null = o == 0xffffffffu;
	if (o < 0xfffffffeu) {
		r->name = t->base + t->ent[o].off;
		r->namelen = t->ent[o].len;
	} else {
		r->name = (const unsigned char *)"";
	}
	o = tp_get_le32(s + 16);
	r->sig_null = o == 0xffffffffu;
	if (o < 0xfffffffeu) {
		r->sig = t->base + t->ent[o].off;
		r->siglen = t->ent[o].len;
	} else {
		r->sig = (const unsigned char *)"";
	}
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
		n = cff_args_slots(d, def, s + 8, nslots - i - 2, &next, &why);
		if (n < 0)
			return tp_fail_at(d->err, off, d->rec_index, "record",
			    "%.*s record: %s", (int)def->namelen, def->name,
			    why);
		d->strs.next = next;
		if (def->role == ROLE_DEFINE) {
			struct defrec r;
			cff_defrec(d, s + 8, &r);
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

static int
cff_chunk(struct dec *d, uint32_t len, uint64_t index)
{
	const unsigned char *c = d->chunk, *data;
	uint32_t np = tp_get_le32(c + 20), type = tp_get_le32(c + 4);
	uint64_t off = d->chunk_off, doff;
	struct part ev = { 0, 0, 0 };
	size_t dlen, end = 0;
	int have_ev = 0;
	struct tp_out *o = d->out;

	data = c + 24 + 12 * (size_t)np;
	dlen = len - 24 - 12 * (size_t)np;
	doff = off + 24 + 12 * (uint64_t)np;
	d->strs.present = 0;
	d->strs.n = 0;
	d->strs.next = 0;
	/* The layout first: nothing of a bad chunk is written. */
	for (uint32_t i = 0; i < np; i++) {
		const unsigned char *e = c + 24 + 12 * (size_t)i;
		uint32_t po = tp_get_le32(e + 4), pl = tp_get_le32(e + 8);
		uint32_t pt = tp_get_le32(e);
		if ((uint64_t)po + pl > dlen)
			return tp_fail_at(d->err, off + 24 + 12 * (uint64_t)i,
			    index, "chunk", "part %u (offset %u, length %u) "
			    "runs past the end of its chunk (%zu bytes of part "
			    "data)", i, po, pl, dlen);
		if (po != end && (i == 0 || po < end))
			return tp_fail_at(d->err, off + 24 + 12 * (uint64_t)i,
			    index, "chunk", i == 0 ? "part 0 does not start "
			    "the part data (offset %u): not supported" :
			    "part %u (offset %u) overlaps the part before it",
			    i == 0 ? po : i, i == 0 ? 0 : po);
		end = (size_t)po + pl;
		if (pt == WTF_PART_STRING_TABLE && !d->strs.present) {
			if (strtab_load(d, data + po, pl, doff + po, index) < 0)
				return -1;
		} else if (pt == WTF_PART_BINARY_EVENTS && !have_ev) {
			if (pl % 4 != 0)
				return tp_fail_at(d->err,
				    off + 24 + 12 * (uint64_t)i, index, "chunk",
				    "event buffer length %u is not a multiple "
				    "of 4", pl);
			ev.off = po;
			ev.len = pl;
			have_ev = 1;
		}
	}
	d->st->chunks++;
	tw_begin(o, "wtf-chunk");
	tw_u64(o, "id", tp_get_le32(c));
	put_type(o, chunk_name(type), type);
	tw_u64(o, "start", tp_get_le32(c + 12));
	tw_u64(o, "end", tp_get_le32(c + 16));
	if (np == 0 && dlen > 0)
		tw_bytes(o, "pad", data, dlen);
	tw_end(o);
	if (chunk_name(type) == NULL)
		d->st->unknown++;
	have_ev = 0;
	int have_tab = 0;
	for (uint32_t i = 0; i < np; i++) {
		const unsigned char *e = c + 24 + 12 * (size_t)i;
		uint32_t pt = tp_get_le32(e), po = tp_get_le32(e + 4);
		uint32_t pl = tp_get_le32(e + 8);
		size_t pend = i + 1 < np ? tp_get_le32(e + 16) : dlen;
		const char *pn = part_name(pt);

		d->st->parts++;
		tw_begin(o, "wtf-part");
		put_type(o, pn, pt);
		if (pt == WTF_PART_FILE_HEADER) {
			tw_qstr(o, "json", data + po, pl);
			set_timebase(d, json_timebase_ns((const char *)data +
			    po, pl));
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
	if (d->strs.present && d->strs.next != d->strs.n)
		return tp_fail_at(d->err, off, index, "chunk", "%zu of the %zu "
		    "strings of the chunk's table are never used (writers "
		    "store only what their records use)",
		    d->strs.n - d->strs.next, d->strs.n);
	return 0;
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
		uint64_t off = tp_in_offset(in);
		uint32_t len, np;
		size_t got = 0;
		long avail = tp_in_fill(in, 24);

		/* An error below (input, memory) is of this chunk. */
		d->err->index = index;
		d->err->unit = "chunk";
		if (avail < 0)
			return -1;
		if (avail == 0)
			return 0;
		if (avail < 24)
			return tp_fail_at(d->err, off, index, "chunk",
			    "truncated chunk header: needs 24 bytes, only %ld "
			    "left", avail);
		len = tp_get_le32(in->buf + in->pos + 8);
		np = tp_get_le32(in->buf + in->pos + 20);
		if (np > (WTF_CHUNK_MAX - 24) / 12 || len < 24 + 12 * np)
			return tp_fail_at(d->err, off, index, "chunk",
			    "chunk length %u is less than its header and table "
			    "of %u parts", len, np);
		if (len > WTF_CHUNK_MAX)
			return tp_fail_at(d->err, off, index, "chunk",
			    "chunk length %u is more than the %u bytes read at "
			    "most", len, WTF_CHUNK_MAX);
		d->chunk_off = off;
		/* Memory grows only as far as the bytes have arrived. */
		while (got < len) {
			size_t want = len - got > TP_IN_BLOCK ? TP_IN_BLOCK :
			    len - got;
			long n;
			if (tp_grow(&d->chunk, &d->chunkcap, got + want, 1) < 0)
				return dec_nomem(d);
			n = tp_in_read(in, d->chunk + got, want);
			if (n < 0)
				return -1;
			if (n == 0)
				return tp_fail_at(d->err, off, index, "chunk",
				    "truncated chunk: needs %u bytes, only %zu "
				    "left", len, got);
			got += (size_t)n;
		}
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
	if (deftab_init(&d->defs, &why) < 0) {
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
		rc = tp_fail_at(err, 0, TP_NONE, NULL, "truncated header: needs "
		    "12 bytes, only %ld left", avail);
	} else if (tp_get_be32(h) == WTF_MAGIC) {
		uint32_t v = tp_get_be32(h + 8);
		d->legacy = 1;
		st->version = (int)v;
		rc = v == WTF_LEGACY_VERSION ? legacy_decode(d, tp_get_be32(h + 4)) :
		    tp_fail_at(err, 8, TP_NONE, NULL, "big-endian (legacy) trace "
		    "of format version %u: only version 3 is readable%s", v,
		    v == 10 ?
		    " (big-endian v10 is the 2013-06 first cut of the chunked "
		    "format, which no reader accepts)" : "");
	} else if (tp_get_le32(h) == WTF_MAGIC) {
		uint32_t v = tp_get_le32(h + 8);
		st->version = (int)v;
		rc = v == WTF_CFF_VERSION ? cff_decode(d, tp_get_le32(h + 4)) :
		    tp_fail_at(err, 8, TP_NONE, NULL, "chunked trace of format "
		    "version %u: only version 10 exists", v);
	} else {
		rc = tp_fail_at(err, 0, TP_NONE, NULL, "bad magic %02x %02x %02x "
		    "%02x: not a WTF trace (DE AD BE EF or EF BE AD DE)", h[0],
		    h[1], h[2], h[3]);
	}
	deftab_free(&d->defs);
	free(d->scopes.s);
	free(d->chunk);
	free(d->strs.ent);
	free(d->strs.text);
	free(d->strs.hash);
	free(d->scratch);
	free(d);
	return rc;
}

/* ---------------------------------------------------------------- encoder */

/* The built-in events, for definitions a stream lacks. */
static const struct builtin {
	const char *name;
	uint32_t cls, flags;
	const char *sig;
} builtins[] = {
	{ "wtf.event#define", 0, 0x28, define_sig },
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

/* The npm writer's build (2015-07-15), for a header the stream lacks. */
#define WTF_DEFAULT_BUILD 0x90ba3800u
#define MAX_PARTS 64

enum { P_EVENTS, P_STRINGS, P_DATA };

struct epart {
	uint32_t type;
	int kind;
	size_t off, len;	/* P_DATA: in pbuf */
	size_t padoff, padlen;	/* in pbuf */
	int has_pad;
};

struct buf {
	unsigned char *b;
	size_t len, cap;
};

struct enc {
	struct tr_reader *r;
	struct tp_out *out;
	const struct wtf_enc_opts *opts;
	struct wtf_enc_stats *st;
	struct tp_err *err;
	int version;		/* 0 until a header is written */
	int merged;		/* a second header came: traces merged */
	int64_t tb_ns;
	int have_zone;
	int64_t zone;
	unsigned char zones[(WTF_MAX_WIRE + 1) / 8];	/* created zone ids */
	struct deftab defs;
	struct buf rec;		/* the record being encoded */
	struct buf sbuf;	/* a string value, unescaped */
	struct buf json;	/* a value as JSON text */
	/* the chunk being built */
	int in_chunk, auto_chunk;
	uint32_t cid, ctype, cstart, cend, max_cid;
	size_t cpadoff, cpadlen;
	int has_cpad;
	struct epart parts[MAX_PARTS];
	unsigned nparts;
	int ev_part, str_part;
	struct buf pbuf, ev, tab;
	uint32_t *soff, *hash;
	size_t soffcap, hcap;
	uint32_t nstr;
	int unique;
	int extras;		/* the event has KEY.pad or KEY.chars fields */
	/*
	 * A legacy header waits for the record after it: every legacy trace
	 * defines its events first, so an event there means the definitions
	 * were filtered away: the trace becomes a chunked one with inferred
	 * definitions, as a stream without a header does.
	 */
	int legacy_held;
	struct buf lhead;	/* the legacy header's bytes */
	struct buf lctx, lmeta;	/* its context and metadata strings */
	uint32_t lflags;
	int64_t ltb;		/* its timebase, ms */
};

/* Room for n bytes in b; nothing to do (nearly every call) inline. */
static inline int
buf_reserve(struct buf *b, size_t n)
{
	return n <= b->cap ? 0 : tp_grow(&b->b, &b->cap, n, 1);
}

static inline int
buf_add(struct buf *b, const void *p, size_t n)
{
	if (n == 0)
		return 0;	/* p may be NULL (a null string) */
	if (buf_reserve(b, b->len + n) < 0)
		return -1;
	memcpy(b->b + b->len, p, n);
	b->len += n;
	return 0;
}

static int
buf_str(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

static int
enc_nomem(struct enc *e)
{
	return tp_fail(e->err, TP_EXIT_FAIL, "out of memory");
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

static const struct tr_field *
find_key(const struct tr_rec *rec, const char *key, size_t n)
{
	for (size_t i = 0; i < rec->nf; i++)
		if (rec->f[i].keylen == n && key_eq(rec->f[i].key, key, n))
			return &rec->f[i];
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

static int
get_u32(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    uint32_t *v)
{
	uint64_t x;

	if (tr_u64(e->r, rec, f, &x) < 0)
		return -1;
	if (x > UINT32_MAX)
		return tr_fail(e->r, rec, f, "more than 32 bits");
	*v = (uint32_t)x;
	return 0;
}

/* An optional u32 field: 0 absent (v untouched), 1, -1. */
static int
opt_u32(struct enc *e, const struct tr_rec *rec, const char *key, uint32_t *v)
{
	const struct tr_field *f = find_key(rec, key, strlen(key));

	if (f == NULL)
		return 0;
	return get_u32(e, rec, f, v) < 0 ? -1 : 1;
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
			if (memcmp(t, s, n) == 0 && t[n] == 0) {
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

/* -------------------------------------------------------------- chunks */

static void
put_le32(struct tp_out *o, uint32_t v)
{
	unsigned char b[4];
	tp_put_le32(b, v);
	tp_out_write(o, b, 4);
}

static void
part_bytes(const struct enc *e, const struct epart *p,
    const unsigned char **b, size_t *n)
{
	if (p->kind == P_EVENTS) {
		*b = e->ev.b;
		*n = e->ev.len;
	} else if (p->kind == P_STRINGS) {
		*b = e->tab.b;
		*n = e->tab.len;
	} else {
		*b = e->pbuf.b + p->off;
		*n = p->len;
	}
}

static int
chunk_flush(struct enc *e)
{
	static const unsigned char zero[4];
	uint64_t total, off = 0;
	unsigned i;

	if (!e->in_chunk)
		return 0;
	e->in_chunk = 0;
	if (e->nstr > 0 && e->str_part < 0) {
		/* Strings were used: a table goes before the event buffer. */
		if (e->nparts == MAX_PARTS)
			return tp_fail(e->err, TP_EXIT_DATA, "more than %d parts "
			    "in a chunk", MAX_PARTS);
		memmove(e->parts + e->ev_part + 1, e->parts + e->ev_part,
		    (e->nparts - (unsigned)e->ev_part) * sizeof e->parts[0]);
		memset(&e->parts[e->ev_part], 0, sizeof e->parts[0]);
		e->parts[e->ev_part].type = WTF_PART_STRING_TABLE;
		e->parts[e->ev_part].kind = P_STRINGS;
		e->nparts++;
	}
	total = 24 + 12 * (uint64_t)e->nparts;
	for (i = 0; i < e->nparts; i++) {
		const unsigned char *b;
		size_t n;
		part_bytes(e, &e->parts[i], &b, &n);
		total += n + (e->parts[i].has_pad ? e->parts[i].padlen :
		    (4 - n % 4) % 4);
	}
	if (e->nparts == 0 && e->has_cpad)
		total += e->cpadlen;
	if (total > UINT32_MAX)
		return tp_fail(e->err, TP_EXIT_DATA, "chunk of %llu bytes: more "
		    "than 4 GiB", (unsigned long long)total);
	put_le32(e->out, e->cid);
	put_le32(e->out, e->ctype);
	put_le32(e->out, (uint32_t)total);
	put_le32(e->out, e->cstart);
	put_le32(e->out, e->cend);
	put_le32(e->out, e->nparts);
	for (i = 0; i < e->nparts; i++) {
		const unsigned char *b;
		size_t n;
		part_bytes(e, &e->parts[i], &b, &n);
		put_le32(e->out, e->parts[i].type);
		put_le32(e->out, (uint32_t)off);
		put_le32(e->out, (uint32_t)n);
		off += n + (e->parts[i].has_pad ? e->parts[i].padlen :
		    (4 - n % 4) % 4);
	}
	for (i = 0; i < e->nparts; i++) {
		const unsigned char *b;
		size_t n;
		part_bytes(e, &e->parts[i], &b, &n);
		tp_out_write(e->out, b, n);
		if (e->parts[i].has_pad)
			tp_out_write(e->out, e->pbuf.b + e->parts[i].padoff,
			    e->parts[i].padlen);
		else
			tp_out_write(e->out, zero, (4 - n % 4) % 4);
	}
	if (e->nparts == 0 && e->has_cpad)
		tp_out_write(e->out, e->pbuf.b + e->cpadoff, e->cpadlen);
	return 0;
}

static void
chunk_start(struct enc *e, uint32_t id, uint32_t type)
{
	e->in_chunk = 1;
	e->auto_chunk = 0;
	e->cid = id;
	e->ctype = type;
	e->cstart = e->cend = 0xffffffffu;
	e->has_cpad = 0;
	e->nparts = 0;
	e->ev_part = e->str_part = -1;
	e->pbuf.len = e->ev.len = e->tab.len = 0;
	e->nstr = 0;
	e->unique = 0;
	if (e->hash != NULL)
		memset(e->hash, 0, e->hcap * sizeof *e->hash);
	if (id > e->max_cid)
		e->max_cid = id;
}

/*
 * ns as JSON milliseconds at p (32 bytes of room): whole, or with six
 * decimals.  Returns the end.
 */
static char *
json_num_ms(char *p, int64_t ns)
{
	int64_t ms = ns / 1000000, frac = ns % 1000000;

	if (frac == 0)
		return tp_fmt_i64(p, ms);
	if (ns < 0)
		*p++ = '-';
	p = tp_fmt_u64(p, (uint64_t)(ns < 0 ? -ms : ms));
	*p++ = '.';
	/* 8 digits, the first 2 of them zeros, shifted out */
	tp_put_le64(p, tp_digits8((uint32_t)(ns < 0 ? -frac : frac)) >> 16);
	return p + 6;
}

static const char default_context[] = "{\"contextType\":\"script\","
    "\"uri\":\"\",\"title\":\"txt2wtf\"}";

/* A JSON object's text, or dflt when s is none (a header's context). */
static const char *
json_object_or(const unsigned char *s, size_t n, const char *dflt, size_t *len)
{
	struct tp_json j;
	const char *p = (const char *)s;

	if (s == NULL || tp_json_check(&j, p, n, 0) < 0 ||
	    *tp_json_ws(p, p + n) != '{') {
		*len = strlen(dflt);
		return dflt;
	}
	*len = n;
	return p;
}

/*
 * A chunked trace's start: its header and a file-header chunk with the
 * timebase tb_ns (whole milliseconds), the context and the metadata.
 */
static int
cff_header(struct enc *e, int64_t tb_ns, uint32_t flags,
    const struct buf *ctx, const struct buf *meta)
{
	static const char *const flag_names[] = { "has_high_resolution_times",
	    "times_as_count" };
	const char *c, *m;
	size_t cn, mn;
	char tb[40], *tbend;
	int comma = 0;

	c = json_object_or(ctx ? ctx->b : NULL, ctx ? ctx->len : 0,
	    default_context, &cn);
	m = json_object_or(meta ? meta->b : NULL, meta ? meta->len : 0, "{}",
	    &mn);
	e->version = WTF_CFF_VERSION;
	e->st->version = WTF_CFF_VERSION;
	e->tb_ns = tb_ns;
	tbend = json_num_ms(tb, tb_ns);
	put_le32(e->out, WTF_MAGIC);
	put_le32(e->out, WTF_DEFAULT_BUILD);
	put_le32(e->out, WTF_CFF_VERSION);
	chunk_start(e, 1, WTF_CHUNK_FILE_HEADER);
	if (buf_str(&e->pbuf, "{\"type\":\"file_header\",\"flags\":[") < 0)
		return enc_nomem(e);
	for (unsigned i = 0; i < 2; i++)
		if ((flags & (1u << i)) && ((comma++ && buf_str(&e->pbuf, ",") < 0) ||
		    buf_str(&e->pbuf, "\"") < 0 ||
		    buf_str(&e->pbuf, flag_names[i]) < 0 ||
		    buf_str(&e->pbuf, "\"") < 0))
			return enc_nomem(e);
	if (buf_str(&e->pbuf, "],\"timebase\":") < 0 ||
	    buf_add(&e->pbuf, tb, (size_t)(tbend - tb)) < 0 ||
	    buf_str(&e->pbuf, ",\"contextInfo\":") < 0 ||
	    buf_add(&e->pbuf, c, cn) < 0 ||
	    buf_str(&e->pbuf, ",\"metadata\":") < 0 ||
	    buf_add(&e->pbuf, m, mn) < 0 || buf_str(&e->pbuf, "}") < 0)
		return enc_nomem(e);
	e->parts[0].type = WTF_PART_FILE_HEADER;
	e->parts[0].kind = P_DATA;
	e->parts[0].off = 0;
	e->parts[0].len = e->pbuf.len;
	e->nparts = 1;
	return chunk_flush(e);
}

/*
 * The header of a stream that has none: the chunked format, with the
 * timebase of the first record's ts (whole milliseconds).
 */
static int
auto_header(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *f = rec ? find_key(rec, "ts", 2) : NULL;
	int64_t ts = 0;

	if (f != NULL && tr_i64(e->r, rec, f, &ts) < 0)
		return -1;
	return cff_header(e, ts - (ts % 1000000 + 1000000) % 1000000, 1,
	    NULL, NULL);
}

/* A chunk with an event buffer to append records to. */
static int
event_chunk(struct enc *e, const struct tr_rec *rec)
{
	if (e->version == 0 && auto_header(e, rec) < 0)
		return -1;
	if (e->version == WTF_LEGACY_VERSION)
		return 0;
	if (e->in_chunk && e->ev_part >= 0 &&
	    !(e->auto_chunk && e->ev.len >= WTF_ENC_CHUNK))
		return 0;
	if (chunk_flush(e) < 0)
		return -1;
	chunk_start(e, e->max_cid + 1, WTF_CHUNK_EVENT_DATA);
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

static int json_value(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f, struct buf *j);

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
static int
rec_head(struct enc *e, uint32_t wire, uint32_t time)
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
static int
rec_emit(struct enc *e)
{
	e->st->events++;
	if (e->version == WTF_LEGACY_VERSION) {
		tp_out_write(e->out, e->rec.b, e->rec.len);
		return 0;
	}
	return buf_add(&e->ev, e->rec.b, e->rec.len) < 0 ? enc_nomem(e) : 0;
}

/* A legacy ascii string, or a CFF string slot. */
static int
rec_string(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
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
		uint32_t c = s ? utf16_units(s, n) : 0;
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
static int
rec_args(struct enc *e, const struct tr_rec *rec, const struct wtf_def *def,
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
				if (json_value(e, rec, f, &e->json) < 0)
					return e->err->status ? -1 : enc_nomem(e);
				s = e->json.b;
				n = e->json.len;
			} else if (f != NULL && get_str(e, rec, f, &s, &n) < 0) {
				return -1;
			}
			if (legacy && a->type != WT_ASCII &&
			    (chars = find_extra(e, rec, a, ".chars")) != NULL)
				extras++;
			if (rec_string(e, rec, f, a->type, s, n, chars) < 0)
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
static int
emit_define(struct enc *e, const struct tr_rec *rec, const struct wtf_def *def,
    uint32_t time, const unsigned char pads[2][2])
{
	int legacy = e->version == WTF_LEGACY_VERSION;
	unsigned char slot[4];

	if (rec_head(e, WTF_WIRE_DEFINE, time) < 0)
		return -1;
	if (legacy) {
		if (rec_u16(e, def->wire) < 0 || rec_u16(e, def->cls) < 0 ||
		    rec_u32(e, def->flags) < 0 ||
		    rec_string(e, rec, NULL, WT_ASCII,
		    (const unsigned char *)def->name, def->namelen, NULL) < 0 ||
		    rec_string(e, rec, NULL, WT_ASCII,
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
		    rec_string(e, rec, NULL, WT_ASCII,
		    (const unsigned char *)def->name, def->namelen, NULL) < 0 ||
		    rec_string(e, rec, NULL, WT_ASCII,
		    (const unsigned char *)def->sig, def->siglen, NULL) < 0)
			return -1;
	}
	return rec_emit(e);
}

/* Enter a definition; fails as the decoder would on the same bytes. */
static int
enc_enter(struct enc *e, const struct tr_rec *rec, struct wtf_def *def)
{
	if (def->wire == WTF_WIRE_DEFINE && !same_as_define(&e->defs, def)) {
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
	if (deftab_put(&e->defs, def) < 0)
		return enc_nomem(e);
	return 0;
}

#define TIME_RANGE "a ts outside the 2^32 us after the timebase (merged " \
	"traces too far apart)"

/*
 * The time of a record: time=, else from ts= and the timebase.  1 when
 * time= is of another timebase and ts= is out of this one's reach.
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
	if (t != NULL && (d < 0 || d > UINT32_MAX))
		return 1;
	*time = (uint32_t)d;
	return 0;
}

static int
do_define(struct enc *e, const struct tr_rec *rec)
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

	if (event_chunk(e, rec) < 0)
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
	if (rc > 0)
		return enc_skip(e, rec, TIME_RANGE);
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
	def = def_new(v[0], v[1], v[2], name, namelen, (const char *)s, siglen,
	    signull, &why);
	free(name);
	if (def == NULL)
		return tr_fail(e->r, rec, f[4], "%s", why);
	if (enc_enter(e, rec, def) < 0)
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
	return emit_define(e, rec, def, time, pads);
}

/* ----------------------------------------------------------- inference */

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
static int
json_value(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    struct buf *j)
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
			if (json_value(e, rec, &ef, j) < 0)
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
		if (v[0] == '-' || v[0] == '.' || (v[0] >= '0' && v[0] <= '9') ||
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
 * define record is written first.
 */
static struct wtf_def *
infer_def(struct enc *e, const struct tr_rec *rec, const char *name,
    size_t namelen, uint32_t hint, uint32_t time)
{
	static const unsigned char nopad[2][2];
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
		def = def_new(wire, b->cls, b->flags, name, namelen, b->sig,
		    b->sig ? strlen(b->sig) : 0, b->sig == NULL, &why);
	else	/* scope= marks the events that open a scope */
		def = def_new(wire, rec && find_key(rec, "scope", 5) ?
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
	if (enc_enter(e, rec, def) < 0 || emit_define(e, rec, def, time,
	    nopad) < 0)
		return NULL;
	e->st->inferred++;
	return def;
nomem:
	free(sig.b);
	enc_nomem(e);
	return NULL;
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

	if (def == NULL && (def = infer_def(e, NULL, name, strlen(name), 0,
	    time)) == NULL)
		return -1;
	if (rec_head(e, def->wire, time) < 0)
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
			if (rec_string(e, rec, NULL, a->type,
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
	return rec_emit(e);
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

static int
do_event(struct enc *e, const struct tr_rec *rec)
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
	if (event_chunk(e, rec) < 0 ||
	    (rc = rec_time(e, rec, h.time, h.ts, &time)) < 0)
		return -1;
	if (rc > 0)
		return enc_skip(e, rec, TIME_RANGE);
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
		def = infer_def(e, rec, name, namelen, wire, time);
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
	if (rec_head(e, def->wire, time) < 0)
		return -1;
	if (rec_args(e, rec, def, &namelen, &arg0) < 0) {
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
	return rec_emit(e);
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
	if (rec_string(e, rec, f, WT_UTF8, s, n, c) < 0)
		return -1;
	return buf_add(&e->lhead, e->rec.b, e->rec.len) < 0 ? enc_nomem(e) : 0;
}

static int
do_header(struct enc *e, const struct tr_rec *rec)
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
		return enc_skip(e, rec, "a second wtf-header (merged traces)");
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
static int
legacy_release(struct enc *e, const struct tr_rec *rec)
{
	e->legacy_held = 0;
	if (rec != NULL && tr_is(rec, "event"))
		return cff_header(e, (int64_t)((uint64_t)e->ltb * 1000000u),
		    e->lflags, &e->lctx, &e->lmeta);
	e->tb_ns = (int64_t)((uint64_t)e->ltb * 1000000u);
	tp_out_write(e->out, e->lhead.b, e->lhead.len);
	return 0;
}

/* A type= field: a name from the table, or a number. */
static int
get_type(struct enc *e, const struct tr_rec *rec, int part, uint32_t *type)
{
	const struct tr_field *f = find_key(rec, "type", 4);

	if (f == NULL)
		return tr_fail(e->r, rec, NULL, "%s without field \"type\"",
		    part ? "wtf-part" : "wtf-chunk");
	if (f->vallen > 0 && f->val[0] >= '0' && f->val[0] <= '9')
		return get_u32(e, rec, f, type);
	if (part) {
		for (size_t i = 0; i < sizeof part_names / sizeof part_names[0];
		    i++)
			if (strlen(part_names[i].name) == f->vallen &&
			    memcmp(part_names[i].name, f->val, f->vallen) == 0) {
				*type = part_names[i].type;
				return 0;
			}
	} else {
		for (uint32_t t = 1; t <= 2; t++)
			if (strlen(chunk_name(t)) == f->vallen &&
			    memcmp(chunk_name(t), f->val, f->vallen) == 0) {
				*type = t;
				return 0;
			}
	}
	return tr_fail(e->r, rec, f, "unknown type");
}

/* Bytes of a data= or pad= field into pbuf: hex, or a quoted string. */
static int
pbuf_field(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    size_t *off, size_t *len)
{
	size_t n;

	if (buf_reserve(&e->pbuf, e->pbuf.len + f->vallen + 1) < 0)
		return enc_nomem(e);
	*off = e->pbuf.len;
	if (f->vallen > 0 && f->val[0] == '"') {
		if (f->vallen == 2)
			n = 0;
		else if (tr_str(e->r, rec, f, e->pbuf.b + *off, f->vallen, &n) < 0)
			return -1;
	} else if (tr_bytes(e->r, rec, f, e->pbuf.b + *off, f->vallen, &n) < 0) {
		return -1;
	}
	e->pbuf.len += n;
	*len = n;
	return 0;
}

static int
do_chunk(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *f;
	uint32_t id = e->max_cid + 1, type;

	if (e->version == WTF_LEGACY_VERSION)
		return tr_fail(e->r, rec, NULL, "a wtf-chunk in a legacy trace");
	if (e->version == 0) {
		unsigned char b[12];
		tp_put_le32(b, WTF_MAGIC);
		tp_put_le32(b + 4, WTF_DEFAULT_BUILD);
		tp_put_le32(b + 8, WTF_CFF_VERSION);
		tp_out_write(e->out, b, 12);
		e->version = WTF_CFF_VERSION;
		e->st->version = WTF_CFF_VERSION;
	}
	if (opt_u32(e, rec, "id", &id) < 0 || get_type(e, rec, 0, &type) < 0 ||
	    chunk_flush(e) < 0)
		return -1;
	chunk_start(e, id, type);
	if (opt_u32(e, rec, "start", &e->cstart) < 0 ||
	    opt_u32(e, rec, "end", &e->cend) < 0)
		return -1;
	if ((f = find_key(rec, "pad", 3)) != NULL) {
		if (pbuf_field(e, rec, f, &e->cpadoff, &e->cpadlen) < 0)
			return -1;
		e->has_cpad = 1;
	}
	return 0;
}

static int
do_part(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *data, *pad, *json;
	struct epart *p;
	uint32_t type;

	if (!e->in_chunk || e->auto_chunk)
		return tr_fail(e->r, rec, NULL, "a wtf-part outside a wtf-chunk");
	if (e->nparts == MAX_PARTS)
		return tr_fail(e->r, rec, NULL, "more than %d parts in a chunk",
		    MAX_PARTS);
	if (get_type(e, rec, 1, &type) < 0)
		return -1;
	p = &e->parts[e->nparts];
	memset(p, 0, sizeof *p);
	p->type = type;
	data = find_key(rec, "data", 4);
	json = find_key(rec, "json", 4);
	if (data != NULL && ((type == WTF_PART_STRING_TABLE && e->str_part < 0) ||
	    (type == WTF_PART_BINARY_EVENTS && e->ev_part < 0)))
		return tr_fail(e->r, rec, data, "the first %s of a chunk is "
		    "made from the records", type == WTF_PART_STRING_TABLE ?
		    "string table" : "event buffer");
	if (data != NULL || (json != NULL && type == WTF_PART_FILE_HEADER)) {
		p->kind = P_DATA;
		if (pbuf_field(e, rec, data ? data : json, &p->off, &p->len) < 0)
			return -1;
		if (type == WTF_PART_FILE_HEADER)
			e->tb_ns = json_timebase_ns((const char *)e->pbuf.b +
			    p->off, p->len);
	} else if ((type == WTF_PART_STRING_TABLE && e->str_part >= 0) ||
	    (type == WTF_PART_BINARY_EVENTS && e->ev_part >= 0)) {
		return tr_fail(e->r, rec, NULL, "wtf-part without its data= "
		    "(or json= for a file header)");
	} else if (type == WTF_PART_STRING_TABLE) {
		const struct tr_field *u = find_key(rec, "unique", 6);
		int uv = 0;
		if (u != NULL && tr_bool(e->r, rec, u, &uv) < 0)
			return -1;
		p->kind = P_STRINGS;
		e->str_part = (int)e->nparts;
		e->unique = uv;
	} else if (type == WTF_PART_BINARY_EVENTS) {
		p->kind = P_EVENTS;
		e->ev_part = (int)e->nparts;
	} else {
		return tr_fail(e->r, rec, NULL, "wtf-part without its data= "
		    "(or json= for a file header)");
	}
	if ((pad = find_key(rec, "pad", 3)) != NULL) {
		if (pbuf_field(e, rec, pad, &p->padoff, &p->padlen) < 0)
			return -1;
		p->has_pad = 1;
	}
	e->nparts++;
	return 0;
}

int
wtf_encode(struct tr_reader *r, struct tp_out *out,
    const struct wtf_enc_opts *opts, struct wtf_enc_stats *st,
    struct tp_err *err)
{
	static const struct wtf_enc_opts defaults;
	struct wtf_enc_stats dummy;
	struct tr_rec trec, *rec = &trec;
	const char *why;
	struct enc *e;
	int rc;

	if (st == NULL)
		st = &dummy;
	memset(st, 0, sizeof *st);
	if ((e = calloc(1, sizeof *e)) == NULL)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	e->r = r;
	e->out = out;
	e->opts = opts ? opts : &defaults;
	st->skipped.strict = e->opts->strict;
	st->skipped.cannot = "not expressible in a WTF trace";
	e->st = st;
	e->err = err;
	if (deftab_init(&e->defs, &why) < 0) {
		free(e);
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	}
	while ((rc = tr_next(r, rec)) > 0) {
		st->records++;
		if (e->legacy_held && rec->kindlen > 4 &&
		    (tr_is(rec, "event") || memcmp(rec->kind, "wtf-", 4) == 0) &&
		    legacy_release(e, rec) < 0) {
			rc = -1;
			break;
		}
		if (rec->kindlen == 5 && key_eq(rec->kind, "event", 5))
			rc = do_event(e, rec);
		else if (tr_is(rec, "wtf-define"))
			rc = do_define(e, rec);
		else if (e->merged && (tr_is(rec, "wtf-chunk") ||
		    tr_is(rec, "wtf-part")))
			rc = enc_skip(e, rec, "a chunk of merged traces (the "
			    "encoder cuts its own)");
		else if (tr_is(rec, "wtf-chunk"))
			rc = do_chunk(e, rec);
		else if (tr_is(rec, "wtf-part"))
			rc = do_part(e, rec);
		else if (tr_is(rec, "wtf-header"))
			rc = do_header(e, rec);
		else
			rc = tr_skip(r, rec, &st->skipped, "record kind "
			    "\"%.*s\"", (int)rec->kindlen, rec->kind);
		if (rc < 0)
			break;
	}
	if (rc == 0 && e->legacy_held)
		rc = legacy_release(e, NULL);
	if (rc == 0 && e->version == 0)
		rc = auto_header(e, NULL);
	if (rc == 0)
		rc = chunk_flush(e);
	deftab_free(&e->defs);
	free(e->rec.b);
	free(e->sbuf.b);
	free(e->json.b);
	free(e->pbuf.b);
	free(e->lhead.b);
	free(e->lctx.b);
	free(e->lmeta.b);
	free(e->ev.b);
	free(e->tab.b);
	free(e->soff);
	free(e->hash);
	free(e);
	return rc < 0 ? -1 : 0;
}
