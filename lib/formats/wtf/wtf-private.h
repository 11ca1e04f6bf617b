/*
 * The parts of the wtf module (wtf.h is what other modules see), and
 * what they share.
 *
 *   wtf-defs.c       argument types and event definitions (signatures
 *                    parsed, the table by wire id and by name), both
 *                    sides' shared tables (part and chunk names, the
 *                    file header's timebase)
 *   wtf-dec.c        the decoder, both generations, and its fast path
 *   wtf-enc.c        the encoder: events, definitions, the stream
 *   wtf-enc-chunk.c  the encoder's chunks: held until complete, then
 *                    written with their part table; the file header
 *   wtf-enc-rebuild.c  the encoder's driver, and a stream that is not one
 *                    WTF trace (other formats' events, inputs merged
 *                    with input=) rebuilt in two spooled passes
 *   wtf-infer.c      definitions made up for events the stream never
 *                    defined, and values of "any" arguments as JSON
 *
 * Both sides keep the same table of event definitions (wire id -> name,
 * class, flags and argument types), filled by wtf.event#define records as
 * they come, so that a record's bytes can be read and written by its
 * type.
 */
#ifndef TP_WTF_PRIVATE_H
#define TP_WTF_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/bytes.h"
#include "base/grow.h"
#include "base/hash.h"
#include "formats/wtf/wtf.h"

/* ------------------------------------------------------------ arg types */

enum wtf_type {
	WT_BOOL, WT_INT8, WT_UINT8, WT_INT16, WT_UINT16, WT_INT32, WT_UINT32,
	WT_FLOAT32, WT_ASCII, WT_UTF8, WT_CHAR, WT_WCHAR, WT_ANY, WT_FLOWID,
	WT_TIME32
};

/* Bytes of one element of a numeric type (legacy sizes, CFF arrays). */
static const unsigned char type_size[] = {
	1, 1, 1, 2, 2, 4, 4, 4, 0, 0, 1, 2, 0, 4, 4
};

static inline int
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
static inline struct wtf_def *
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

static inline int
is_name_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

/*
 * The text pieces of a definition (" name=...", " key=") are copied into
 * the output as FIELD_COPY bytes in one move when they are no longer:
 * the definition's allocation has that much room after its last piece.
 */
#define FIELD_COPY 32

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

/* A scalar of a numeric type read as an integer (sign-extended). */
static inline int64_t
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

/* A definition, parsed (wtf-defs.c): NULL with *why ("out of memory"). */
struct wtf_def *wtf_def_new(uint32_t wire, uint32_t cls, uint32_t flags,
    const char *name, size_t namelen, const char *sig, size_t siglen,
    int sig_null, const char **why);
int wtf_deftab_put(struct deftab *t, struct wtf_def *d);

/*
 * Bytes of a legacy record's arguments at b[0..n) (wtf-dec.c): the size,
 * -2 when more bytes are needed, -1 with *why on a value no reader
 * accepts.
 */
long wtf_legacy_args_size(const struct wtf_def *def, const unsigned char *b,
    size_t n, const char **why);
int wtf_deftab_init(struct deftab *t, const char **why);
void wtf_deftab_free(struct deftab *t);
int wtf_same_as_define(const struct deftab *t, const struct wtf_def *d);
/* wtf.event#define's own argument list. */
extern const char wtf_define_sig[];

uint32_t wtf_utf16_units(const unsigned char *p, size_t n);
int64_t wtf_json_timebase_ns(const char *s, size_t n);
const char *wtf_part_name(uint32_t type);
int wtf_part_type(const char *name, size_t n, uint32_t *type);
const char *wtf_chunk_name(uint32_t type);

/* -------------------------------------------------------------- encoder */

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
	int rebuild;		/* not one WTF trace: rebuilt (wtf-enc-rebuild.c) */
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

static inline int
enc_nomem(struct enc *e)
{
	return tp_fail(e->err, TP_EXIT_FAIL, "out of memory");
}

static inline const struct tr_field *
find_key(const struct tr_rec *rec, const char *key, size_t n)
{
	for (size_t i = 0; i < rec->nf; i++)
		if (rec->f[i].keylen == n && key_eq(rec->f[i].key, key, n))
			return &rec->f[i];
	return NULL;
}

static inline int
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
static inline int
opt_u32(struct enc *e, const struct tr_rec *rec, const char *key, uint32_t *v)
{
	const struct tr_field *f = find_key(rec, key, strlen(key));

	if (f == NULL)
		return 0;
	return get_u32(e, rec, f, v) < 0 ? -1 : 1;
}

/* wtf-enc-chunk.c */
int wtf_chunk_flush(struct enc *e);
void wtf_chunk_start(struct enc *e, uint32_t id, uint32_t type);
int wtf_cff_header(struct enc *e, int64_t tb_ns, uint32_t flags,
    const struct buf *ctx, const struct buf *meta);
int wtf_auto_header(struct enc *e, const struct tr_rec *rec);
int wtf_do_chunk(struct enc *e, const struct tr_rec *rec);
int wtf_do_part(struct enc *e, const struct tr_rec *rec);

/* wtf-enc.c, for wtf-enc-rebuild.c */
int wtf_event_chunk(struct enc *e, const struct tr_rec *rec);
int wtf_rec_head(struct enc *e, uint32_t wire, uint32_t time);
int wtf_rec_emit(struct enc *e);
int wtf_rec_string(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f, int type, const unsigned char *s, size_t n,
    const struct tr_field *chars);
int wtf_rec_args(struct enc *e, const struct tr_rec *rec,
    const struct wtf_def *def, size_t *matched, int64_t *arg0);
int wtf_emit_define(struct enc *e, const struct tr_rec *rec,
    const struct wtf_def *def, uint32_t time, const unsigned char pads[2][2]);
int wtf_enc_enter(struct enc *e, const struct tr_rec *rec,
    struct wtf_def *def);

int wtf_do_event(struct enc *e, const struct tr_rec *rec);
int wtf_do_define(struct enc *e, const struct tr_rec *rec);
int wtf_do_header(struct enc *e, const struct tr_rec *rec);
int wtf_legacy_release(struct enc *e, const struct tr_rec *rec);

/* wtf-infer.c */
struct wtf_def *wtf_infer_def(struct enc *e, const struct tr_rec *rec,
    const char *name, size_t namelen, uint32_t hint);
int wtf_json_value(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f, struct buf *j);
int wtf_text_f64(const char *v, size_t n, double *d);
int wtf_any_text(const char *s, size_t n, struct buf *out, struct buf *chk,
    struct buf *tmp);

/*
 * The chunked format's framing, one rule for the decoder and the
 * splitter (the same diagnostics): wtf_chunk_read reads chunk index at
 * the input's position into *buf, its length in *len, the header
 * checked: 1, 0 at the end of the input, -1 on an error (told), -2 out
 * of memory (the caller tells).  wtf_chunk_parts checks the part table
 * of a chunk so read (each part inside the part data, in order, a
 * string table's entries NUL-terminated, an event buffer a multiple of
 * 4 bytes long), at offset off: 0 or -1 (told).
 */
struct tp_in;
struct tp_err;
int wtf_chunk_read(struct tp_in *in, uint64_t index, unsigned char **buf,
    size_t *cap, uint32_t *len, struct tp_err *err);
int wtf_chunk_parts(const unsigned char *c, uint32_t len, uint64_t off,
    uint64_t index, struct tp_err *err);

/*
 * A chunk's string table, as the decoder and the splitter read it (one
 * rule, the same diagnostics).  wtf_strtab_load indexes the
 * NUL-terminated strings of a part (checked by wtf_chunk_parts) and
 * tells whether two are equal (the C++ writer stores each string once,
 * the JS writer once per use): 0, or -1 out of memory.
 */
struct wtf_strent {
	uint32_t off, len;	/* in the part's bytes */
	uint32_t first;		/* ordinal of the first entry equal to it */
	/* the decoder's: the string quoted, made once for equal strings */
	uint32_t qoff, qlen;
};

struct wtf_strtab {
	const unsigned char *base;	/* the part's bytes */
	struct wtf_strent *ent;		/* per ordinal */
	uint32_t *hash;			/* open addressing, ordinals + 1 */
	size_t n, cap, hcap;
	uint32_t next;			/* ordinal the encoder would give next */
	int unique;			/* no two entries equal */
	int present;
};

/* A chunk's start: no table yet (the memory of the last is kept). */
static inline void
wtf_strtab_clear(struct wtf_strtab *t)
{
	t->present = 0;
	t->n = 0;
	t->next = 0;
}

int wtf_strtab_load(struct wtf_strtab *t, const unsigned char *b, size_t n);
void wtf_strtab_free(struct wtf_strtab *t);
/* A chunk's end: every string of its table used, or -1 (told). */
int wtf_strtab_done(const struct wtf_strtab *t, uint64_t off, uint64_t index,
    struct tp_err *err);

/* A wtf.event#define record's fields, as either generation stores them. */
struct wtf_defrec {
	uint32_t wire, cls, flags;
	const unsigned char *name, *sig;
	size_t namelen, siglen;
	int name_null, sig_null;
	const unsigned char *pad[2];	/* CFF: slot padding of wire, class */
};

/*
 * The definition r makes, not yet entered in defs, checked as the decoder
 * and the splitter check it; NULL with err told (the record at off, index
 * in its file; or out of memory).
 */
struct wtf_def *wtf_define_make(const struct deftab *defs,
    const struct wtf_defrec *r, int legacy, uint64_t off, uint64_t index,
    struct tp_err *err);

/*
 * Check a string ordinal against the order the encoder writes (each
 * string at its first use, once per use unless the table is unique);
 * *next is advanced.  NULL when fine, else why not.
 */
static inline const char *
wtf_strtab_check(const struct wtf_strtab *t, uint32_t o, uint32_t *next)
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
 * Slots of a chunked record's arguments at s (avail slots left): >= 0,
 * or -1 with *why.  String ordinals are checked against t (and *next
 * advanced).
 */
static inline long
wtf_args_slots(const struct wtf_def *def, const unsigned char *s,
    size_t avail, const struct wtf_strtab *t, uint32_t *next,
    const char **why)
{
	size_t pos = 0;

	if (!def->has_array) {
		/* one slot each: only the strings' ordinals to check */
		for (unsigned k = 0; k < def->nstr && def->stridx[k] < avail;
		    k++)
			if ((*why = wtf_strtab_check(t,
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
			if ((*why = wtf_strtab_check(t, v, next)) != NULL)
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

/* A definition record's arguments at b: legacy (sized by
   wtf_legacy_args_size) or chunked (its string ordinals checked by
   wtf_args_slots against t). */
static inline void
wtf_legacy_defrec(const unsigned char *b, struct wtf_defrec *r)
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

static inline void
wtf_cff_defrec(const struct wtf_strtab *t, const unsigned char *s,
    struct wtf_defrec *r)
{
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

#endif
