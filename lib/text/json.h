/*
 * JSON (RFC 8259): one bounded scanner that validates and walks a
 * document in place (no allocation, no copy), and one writer that escapes
 * strings and lays out objects and arrays as serde_json's pretty printer
 * does.  For x64dbg's JSON headers, WTF and Wasmgrind metadata and the
 * JSON outputs of the programs.
 */
#ifndef TP_JSON_H
#define TP_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "io/output.h"

/* ---------------------------------------------------------------- scanner */

/*
 * Arrays and objects nested deeper than this are refused: the limit of
 * Qt's JSON parser (qjsonparser.cpp, nestingLimit), which reads x64dbg's
 * headers, so that what x64dbg reads is read.
 */
#define TP_JSON_MAXDEPTH 1024
#define TP_JSON_MAXDEPTH_S "1024"

enum tp_json_status {
	TP_JSON_OK = 0,
	TP_JSON_SYNTAX,		/* not JSON */
	TP_JSON_UTF8,		/* a string that is not UTF-8 */
	TP_JSON_DEPTH		/* nested deeper than TP_JSON_MAXDEPTH */
};

/*
 * Qt's QJsonDocument (x64dbg's reader) takes any character after a
 * backslash as itself and control characters in strings as they are.
 */
#define TP_JSON_LAX 1u

struct tp_json {
	unsigned flags;		/* TP_JSON_LAX */
	const char *base;	/* where pos counts from */
	enum tp_json_status status;
	size_t pos;		/* of the first fault, from base */
	const char *why;	/* what it is ("expected ':' after a key") */
};

/* Skip JSON whitespace. */
const char *tp_json_ws(const char *p, const char *e);

/*
 * The end of the value that starts at p (no whitespace before it), or
 * NULL with j->status set.
 */
const char *tp_json_value(struct tp_json *j, const char *p, const char *e);

/*
 * Is [s, s + n) one JSON value with only whitespace around it?  0, or -1
 * with j->status (and j->pos) set.  flags as in struct tp_json.
 */
int tp_json_check(struct tp_json *j, const char *s, size_t n, unsigned flags);

/*
 * The members of a valid object, in order: *cur starts at its '{'.
 * Returns 1 with the key's content (between its quotes, still escaped)
 * and the value's span, 0 after the last one.
 */
int tp_json_member(const char **cur, const char *e, const char **key,
    size_t *keylen, const char **val, const char **valend);

/*
 * The elements of a valid array, in order: *cur starts at its '['.
 * Returns 1 with the element's span, 0 after the last one.
 */
int tp_json_element(const char **cur, const char *e, const char **val,
    const char **valend);

/*
 * The string value [v, ve) (quotes included) unescaped into out as UTF-8:
 * its length, or SIZE_MAX when it needs more than cap bytes.  A \u escape
 * of a lone surrogate gives U+FFFD; an unknown escape (TP_JSON_LAX input)
 * gives the character itself.
 */
size_t tp_json_unescape(const char *v, const char *ve, char *out, size_t cap);

/*
 * The first \u escape of a lone surrogate (which UTF-8 cannot hold) in
 * [p, e), valid JSON, or NULL.
 */
const char *tp_json_lone_surrogate(const char *p, const char *e);

/* ---------------------------------------------------------------- writer */

struct tp_jw {
	struct tp_out *o;
	int depth;
	int empty;		/* nothing written yet in the innermost one */
	int after_key;		/* the next value follows "key": */
};

void tp_jw_init(struct tp_jw *w, struct tp_out *o);
void tp_jw_open_object(struct tp_jw *w);
void tp_jw_close_object(struct tp_jw *w);
void tp_jw_open_array(struct tp_jw *w);
void tp_jw_close_array(struct tp_jw *w);
/* "key": (escaped); the next value is its value. */
void tp_jw_key(struct tp_jw *w, const char *key, size_t n);
void tp_jw_u64(struct tp_jw *w, uint64_t v);
void tp_jw_i64(struct tp_jw *w, int64_t v);
/* A string of any bytes: escaped, invalid UTF-8 as U+FFFD. */
void tp_jw_str(struct tp_jw *w, const void *s, size_t n);
void tp_jw_bool(struct tp_jw *w, int v);
void tp_jw_null(struct tp_jw *w);

/*
 * A string escaped as JSON, quotes included, written to o: control
 * characters as \b \f \n \r \t or \u00XX, invalid UTF-8 as U+FFFD.
 */
void tp_json_put_str(struct tp_out *o, const void *s, size_t n);
/* The same without the quotes: a string written a part at a time. */
void tp_json_put_body(struct tp_out *o, const void *s, size_t n);

/*
 * Flags of tp_json_escape.  TP_JSON_ESC_BYTES: bytes from 0x80 on go as
 * they are, UTF-8 or not (a string that must come back byte for byte
 * from a reader that takes them so, not U+FFFD).  TP_JSON_ESC_U: control
 * characters other than \n \r \t as \u00XX (\b and \f too).
 */
#define TP_JSON_ESC_BYTES 1u
#define TP_JSON_ESC_U 2u
/* The most bytes tp_json_escape writes for n. */
#define TP_JSON_ESC_MAX(n) (6 * (n) + 2)

/*
 * s[0..n) escaped as a JSON string, quotes included, at d (room for
 * TP_JSON_ESC_MAX(n) bytes), as tp_json_put_str does but for flags:
 * returns the end.
 */
char *tp_json_escape(char *d, const void *s, size_t n, unsigned flags);

#endif
