/*
 * The trace text stream: the one reader and the one writer of lines.
 * See trace-text(5) for the grammar.
 *
 *   KIND key=value key=value ...
 *
 * Values: decimal (signed or not), hex "0x..", byte strings as bare hex
 * pairs, strings bare ([A-Za-z0-9_.:/@%+#-]+) or "quoted" with \\ \" \n
 * \r \t \xHH, true/false, floats (shortest round-trip, nan, inf, -inf,
 * nan:0x<bits>), null, lists [v,v] and maps {k:v,k:v}, nestable.
 */
#ifndef TP_TEXT_H
#define TP_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/err.h"
#include "base/utf8.h"
#include "io/input.h"
#include "io/output.h"

/* ---------------------------------------------------------------- writer */

/* Start a record: writes KIND. */
void tw_begin(struct tp_out *o, const char *kind);
/* End the record: writes '\n'. */
void tw_end(struct tp_out *o);

/* Fields: each writes " key=value". */
void tw_u64(struct tp_out *o, const char *key, uint64_t v);
void tw_i64(struct tp_out *o, const char *key, int64_t v);
void tw_hex(struct tp_out *o, const char *key, uint64_t v);
void tw_bytes(struct tp_out *o, const char *key, const void *p, size_t n);
/* Bare when it can be, quoted otherwise. */
void tw_str(struct tp_out *o, const char *key, const void *p, size_t n);
/* Always quoted: for fields whose type the schema does not fix. */
void tw_qstr(struct tp_out *o, const char *key, const void *p, size_t n);
void tw_bool(struct tp_out *o, const char *key, int v);
void tw_f64(struct tp_out *o, const char *key, double v);
void tw_null(struct tp_out *o, const char *key);
/* " key=" alone, for a nested value written with the tv_ functions. */
void tw_key(struct tp_out *o, const char *key);

/* Values without a key: inside lists and maps, after tw_key(). */
void tv_u64(struct tp_out *o, uint64_t v);
void tv_i64(struct tp_out *o, int64_t v);
void tv_hex(struct tp_out *o, uint64_t v);
void tv_bytes(struct tp_out *o, const void *p, size_t n);
void tv_str(struct tp_out *o, const void *p, size_t n);
void tv_qstr(struct tp_out *o, const void *p, size_t n);
void tv_bool(struct tp_out *o, int v);
void tv_f64(struct tp_out *o, double v);
void tv_null(struct tp_out *o);
/* '[' ']' '{' '}' ','; a map key is written with tv_mapkey ("key:"). */
void tv_open_list(struct tp_out *o);
void tv_close_list(struct tp_out *o);
void tv_open_map(struct tp_out *o);
void tv_close_map(struct tp_out *o);
void tv_sep(struct tp_out *o);
void tv_mapkey(struct tp_out *o, const char *key, size_t n);

/*
 * The body of a quoted string (no quotes) into memory at d: the bytes of
 * s[0..n) escaped as tv_qstr escapes them, while d is below lim (each
 * byte takes at most 4 bytes past it).  *used gets the bytes of s taken;
 * returns the end.
 */
char *tp_fmt_qbody(char *d, const char *lim, const void *s, size_t n,
    size_t *used);

/* Is s non-empty and made only of [A-Za-z0-9_.:/@%+#-] ? */
int tp_bare_ok(const void *s, size_t n);
/* Could s be a kind or a key (non-empty, only [A-Za-z0-9_.-]) ? */
int tp_key_ok(const void *s, size_t n);
/* A float as tv_f64 writes it, into buf; returns the length. */
#define TP_F64_TEXT_MAX 48
size_t tp_f64_text(char *buf, double v);

/* ---------------------------------------------------------------- reader */

#define TR_MAXFIELDS 512

struct tr_field {
	const char *key;
	const char *val;
	uint32_t keylen;
	uint32_t vallen;
};

struct tr_rec {
	const char *kind;
	size_t kindlen;
	struct tr_field f[TR_MAXFIELDS];
	size_t nf;
	const char *line;	/* the whole line, as read */
	size_t len;
	uint64_t lineno;
	uint64_t keyhash[64];	/* tr_parse's, for records of many keys */
};

struct tr_reader {
	struct tp_in *in;
	struct tp_err *err;
	uint64_t lineno;	/* number of the line last read */
};

void tr_init(struct tr_reader *r, struct tp_in *in);

/*
 * The next raw line, blank and comment lines included.  1, 0 at end, -1
 * on error.  Increments r->lineno.
 */
int tr_line(struct tr_reader *r, char **line, size_t *len);

/*
 * Split a line into kind and fields, checking the whole syntax (quotes,
 * escapes, brackets).  Returns 1 for a record, 0 for a blank or comment
 * line, -1 for a malformed line (err has line and column).
 */
int tr_parse(struct tr_reader *r, const char *line, size_t len,
    struct tr_rec *rec);

/* The next record, skipping blank and comment lines.  1, 0 at end, -1. */
int tr_next(struct tr_reader *r, struct tr_rec *rec);

/* Is the record of this kind? */
int tr_is(const struct tr_rec *rec, const char *kind);
/* First field with this key, or NULL. */
const struct tr_field *tr_find(const struct tr_rec *rec, const char *key);

/*
 * Typed values.  Each returns 0, or -1 with an error naming the line,
 * the column of the value, the field and what is wrong.
 */
int tr_u64(struct tr_reader *r, const struct tr_rec *rec,
    const struct tr_field *f, uint64_t *v);	/* decimal or 0x hex */
int tr_i64(struct tr_reader *r, const struct tr_rec *rec,
    const struct tr_field *f, int64_t *v);
int tr_bool(struct tr_reader *r, const struct tr_rec *rec,
    const struct tr_field *f, int *v);
int tr_f64(struct tr_reader *r, const struct tr_rec *rec,
    const struct tr_field *f, double *v);
/* Bare hex pairs (possibly none) into dst; *n gets the byte count. */
int tr_bytes(struct tr_reader *r, const struct tr_rec *rec,
    const struct tr_field *f, void *dst, size_t cap, size_t *n);
/* A bare or quoted string, unescaped, into dst (not NUL-terminated). */
int tr_str(struct tr_reader *r, const struct tr_rec *rec,
    const struct tr_field *f, void *dst, size_t cap, size_t *n);
int tr_is_null(const struct tr_field *f);

/*
 * What a value's text alone says it is, where no schema says
 * (trace-text(5): strings of schema-typed fields are quoted, integers
 * bare).  Encoders that infer a type, and txt2json, start from this and
 * map it to their own types.
 */
enum tr_kind {
	TR_EMPTY,	/* an empty value */
	TR_NULL,	/* null */
	TR_BOOL,	/* true, false */
	TR_UINT,	/* an integer 0 .. 2^64-1, decimal or 0x hex */
	TR_INT,		/* a negative integer, -2^63 .. -1 */
	TR_FLOAT,	/* nan, inf, -inf, nan:0x..., or a number with '.'
			   or an exponent that reads as a double */
	TR_STRING,	/* a quoted string */
	TR_LIST,	/* [...] */
	TR_MAP,		/* {...} */
	TR_WORD		/* anything else: a bare string */
};
enum tr_kind tr_value_kind(const char *v, size_t n);

/*
 * Look a field up by key and read it as an integer.  Returns 1 when found
 * and valid, 0 when absent (then required makes it an error: -1).
 */
int tr_get_u64(struct tr_reader *r, const struct tr_rec *rec, const char *key,
    uint64_t *v, int required);

/*
 * s[0..n) for a message: at most 40 bytes of it, bytes that are not
 * printable ASCII (a NUL, a control, UTF-8) as \xHH, "..." when cut.
 * Returns buf, which needs TP_SHOW_MAX bytes.
 */
#define TP_SHOW_MAX (40 * 4 + 4)
const char *tp_show(char *buf, const char *s, size_t n);

/*
 * The fields an encoder reads, looked up by a table of keys in one pass
 * over a record: tr_keys_init() once, then tr_fields() per record sets
 * f[i] to the first field whose key is key[i], or NULL.
 */
#define TR_KEYS_MAX 32

struct tr_keys {
	const char *const *key;
	unsigned n;
	signed char head[64];	/* first key of each hash bucket, or -1 */
	signed char next[TR_KEYS_MAX];
	unsigned char len[TR_KEYS_MAX];
};

void tr_keys_init(struct tr_keys *t, const char *const *key, unsigned n);
void tr_fields(const struct tr_keys *t, const struct tr_rec *rec,
    const struct tr_field **f);

/*
 * Records an encoder cannot express are skipped and counted per cause
 * (the text WHY says: equal texts are one cause), or under --strict are
 * an error: "WHY: CANNOT" at the record.  The program says "N records
 * skipped, CANNOT (first at line L: WHY)" for each cause
 * (tp_report_skips).
 *
 * A record that is written but loses part of its meaning on the way (a
 * value mapped to another kind, a field the target cannot hold or the
 * encoder does not know) is counted per cause, each cause a fixed
 * string: "N records changed: CAUSE (first at line L: WHY)", even
 * without -v; under --strict it is an error "WHY: CAUSE".  Causes past
 * the TR_CAUSES first are counted together.
 *
 * A record of another format's structure (its header, schemas,
 * definitions, pools, chunks, frames) is neither: the target writes its
 * own structure, so such records are counted by kind as rebuilt, said
 * only under -v (tr_rebuilt).
 */
#define TR_CAUSES 8

struct tr_cause {
	const char *cause;	/* "a 64-bit integer stored as a string";
				   NULL for a skip: first_why is its cause */
	uint64_t count;
	uint64_t first_line;
	char first_why[120];
};

struct tr_skips {
	int strict;		/* a skip or a loss is an error */
	const char *cannot;	/* "not expressible in an x64dbg trace" */
	uint64_t count;		/* records skipped, all causes */
	struct tr_cause skip[TR_CAUSES + 1];	/* the last: all others */
	unsigned nskip;
	struct tr_cause lost[TR_CAUSES + 1];	/* the last: all others */
	unsigned nlost;
	struct {
		char kind[32];
		uint64_t count;
	} rebuilt[TR_CAUSES + 1];	/* the last: all others */
	unsigned nrebuilt;
};

/* Skip rec for the reason fmt says: 0, or under strict -1 (r's err set). */
int tr_skip(struct tr_reader *r, const struct tr_rec *rec,
    struct tr_skips *sk, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Count rec, written with part of its meaning lost, under cause (a
 * string that lives as long as sk; equal causes are one count), fmt
 * saying what: 0, or under strict -1 (r's err set).
 */
int tr_lose(struct tr_reader *r, const struct tr_rec *rec,
    struct tr_skips *sk, const char *cause, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/*
 * 1 if rec is a record of a format's structure (trac-header,
 * dial9-schema, wtf-define...), counted in sk as rebuilt; else 0.  An
 * encoder asks it for a kind not of its own format, before tr_skip.
 */
int tr_rebuilt(struct tr_skips *sk, const struct tr_rec *rec);

/* Report an error about a record or a field of it (f may be NULL). */
int tr_fail(struct tr_reader *r, const struct tr_rec *rec,
    const struct tr_field *f, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Nested values.  *cur starts at the value of a list or map field; each
 * call gives the next element (for a map, key and value) and returns 1,
 * 0 after the last one.  The syntax was checked by tr_parse.  For a list
 * pass key and keylen as NULL: a bare list element may hold a ':' (a
 * URL, a NaN payload "nan:0x...") and must not be split at it.
 */
int tr_elem(const char **cur, const char *end, const char **key,
    size_t *keylen, const char **val, size_t *vallen);

/*
 * Fast path for filters: find " key=" in a raw line without building the
 * record.  Returns 1 with the value span, 0 if absent.  Correct also when
 * quoted strings contain the pattern.
 */
int tr_peek(const char *line, size_t len, const char *key, size_t keylen,
    const char **val, size_t *vallen);
/*
 * The same for two keys in one pass: returns a bit mask of those found
 * (1 the first key, 2 the second) with their values in val[0], val[1].
 */
unsigned tr_peek2(const char *line, size_t len, const char *key1,
    size_t keylen1, const char *key2, size_t keylen2, const char *val[2],
    size_t vallen[2]);

/*
 * tr_peek, and the same for up to 32 distinct keys in one pass (bit i of
 * the result is set when keys[i] was found, with its value in vals[i],
 * vallens[i]), for filters that decide on the values: they read
 * the whole line, and a second field with a key looked for makes *dup
 * point at that key (a record with a key twice is malformed, and which
 * value counts would be a guess), as does a malformed value met on the
 * way (its first byte: the fields after it cannot be found); else *dup
 * is NULL.
 */
int tr_peek_once(const char *line, size_t len, const char *key,
    size_t keylen, const char **val, size_t *vallen, const char **dup);
uint32_t tr_peekn_once(const char *line, size_t len, const char *const *keys,
    const size_t *keylens, unsigned nkeys, const char **vals,
    size_t *vallens, const char **dup);
/*
 * The error for what tr_peek_once's *dup points at in the line of len
 * bytes (line number and column): a second field with the key at key,
 * or a malformed quoted, list or map value starting at key, which hides
 * the fields after it (the reader's words: "unterminated string", "lists
 * and maps nested too deeply"...).
 */
int tr_dup_fail(struct tp_err *err, uint64_t lineno, const char *line,
    size_t len, const char *key);

/*
 * The string a quoted value (as the reader accepted it, quotes included)
 * stands for, into dst (room for n - 2 bytes); returns its length.
 */
size_t tp_unquote(const char *val, size_t n, char *dst);
/*
 * The same a part at a time: the content from *at (inside the quotes) up
 * to end (the closing quote) into dst, at most room bytes; *at moves past
 * what was read (never into an escape); returns the bytes written.
 */
size_t tp_unquote_part(const char **at, const char *end, char *dst,
    size_t room);

/* Parse a whole value span as an unsigned integer (decimal or 0x hex). */
int tp_parse_u64(const char *s, size_t n, uint64_t *v);
int tp_parse_i64(const char *s, size_t n, int64_t *v);

/* ---------------------------------------------------------- shared kinds */

/*
 * The kinds with one meaning in every format (trace-text(5)); any other
 * kind is a format's own structure record.
 */
enum tp_kind {
	TK_INSN, TK_READ, TK_WRITE, TK_ACQUIRE, TK_RELEASE, TK_REQUEST,
	TK_FORK, TK_JOIN, TK_BEGIN, TK_END, TK_BRANCH, TK_EVENT,
	TK_NKINDS,
	TK_OTHER = -1
};

/*
 * The names in a table indexed by a hash of the first and third letters
 * and the length, collision-free for these twelve (the compiler would
 * warn of a slot set twice): one probe and one masked word compare per
 * record instead of a chain of compares that mispredicts on mixed kinds.
 */
#define TP_KIND_HASH(c0, c2, n) (((unsigned)(c0) * 24u + (unsigned)(c2) + \
	(unsigned)(n)) & 31u)

struct tp_kind_name {
	char name[8];
	char mask[8];		/* the first len bytes set */
	unsigned char len;	/* 0 for an empty slot */
	signed char kind;	/* enum tp_kind */
};

extern const struct tp_kind_name tp_kind_tab[32];

/*
 * The shared kind named by k[0..n), or TK_OTHER.  avail is how many bytes
 * may be read at k (at least n): with 8 or more the name is compared as
 * one masked word, with no loop whose length varies from record to record.
 */
static inline int
tp_kind(const char *k, size_t n, size_t avail)
{
	const struct tp_kind_name *t;

	if (n < 3 || n > 7)
		return TK_OTHER;
	t = &tp_kind_tab[TP_KIND_HASH((unsigned char)k[0],
	    (unsigned char)k[2], n)];
	if (t->len != n)
		return TK_OTHER;
	if (avail >= 8) {
		uint64_t w, name, mask;
		memcpy(&w, k, 8);
		memcpy(&name, t->name, 8);
		memcpy(&mask, t->mask, 8);
		return (w & mask) == name ? t->kind : TK_OTHER;
	}
	return memcmp(k, t->name, n) == 0 ? t->kind : TK_OTHER;
}

#endif
