/*
 * Web Tracing Framework traces: the encoder's driver (wtf_encode), and a
 * stream that is not one WTF trace (the
 * events of another decoder, lines written by hand, or inputs merged by
 * txtmerge --tag) becomes one chunked trace rebuilt from its events.
 *
 * Two passes over the stream, spooled (tp_spool: memory, then an
 * unlinked temporary file): the first learns what a WTF trace must say
 * before its first event, the second writes it.
 *   - the timebase: the earliest time (one WTF timebase holds 2^32 us:
 *     a trace spanning more is refused, naming its first and last times);
 *   - one definition per event name, each argument typed by every value
 *     it takes (the reader keeps the first definition of a name, so no
 *     later value may fail to fit; null does not choose a type);
 *   - the zones: one per thread (tid) of each input (input=), and one per
 *     event name for the events of no thread, with the names the inputs
 *     gave their WTF zones.
 * Records of other formats' structure (headers, schemas, pools, chunks,
 * definitions, zone records) are rebuilt, not counted as skipped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "base/fpconv.h"
#include "base/utf8.h"
#include "formats/wtf/wtf-private.h"
#include "io/spool.h"

/* ------------------------------------------------------------ the tables */

/* What one argument's values were (bits), and their integer range. */
enum { V_NULL = 1, V_BOOL = 2, V_INT = 4, V_FLOAT = 8, V_STR = 16,
	V_OTHER = 32, V_NOTF32 = 64, V_BADSTR = 128 };

struct farg {
	char *key;		/* the text key */
	size_t keylen;
	char name[2 + 2 * 64 + 1];	/* the argument's name in WTF */
	unsigned bits;
	uint64_t seen;		/* events of the name that have it */
	int64_t lo;		/* the least integer */
	uint64_t hi;		/* the greatest (0 when all are negative) */
};

struct fname {
	struct fname *next;
	char *name;
	size_t namelen;
	uint32_t hash;
	uint64_t events;
	unsigned nargs;
	struct farg arg[WTF_MAX_ARGS];
	int scope;		/* an event of it carries scope= */
	char *sig;		/* a wtf-define's signature, else NULL */
	size_t siglen;
	int sig_null, sig_conflict, declared;
	uint32_t cls, flags;
	struct wtf_def *def;	/* entered, in pass 2 */
};

/* A zone: a thread of an input, or the events of no thread of a name. */
struct fzone {
	struct fzone *next;
	int64_t input;		/* -1: no input= */
	int has_tid;
	int64_t tid;
	char *label;		/* no tid: the event name */
	size_t labellen;
	uint32_t hash;
	uint32_t id;		/* the zone id written */
	int created;
	char *zname, *ztype, *zloc;	/* from the input's wtf.zone#create */
	size_t znamelen, ztypelen, zloclen;
};

#define RB_BUCKETS 4096

struct rb {
	struct enc *e;
	struct tp_spool spool;
	struct fname *names[RB_BUCKETS];
	struct fzone *zones[RB_BUCKETS];
	struct fzone **zorder;
	size_t nzones, zcap;
	int64_t min_ts, max_ts;
	uint64_t min_line, max_line;
	int have_ts, zero_ts;
	uint64_t headers_seen;
	int tagged;
	struct fzone *cur;
	uint32_t next_wire;
	struct buf line;
	unsigned char used[(WTF_MAX_WIRE + 1) / 8];	/* zone ids taken */
};

static uint32_t
mix(uint32_t h, int64_t v)
{
	uint64_t x = (uint64_t)v * 0x9e3779b97f4a7c15u;
	return h ^ (uint32_t)(x >> 32) ^ (uint32_t)x;
}

static char *
dup_mem(const void *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s != NULL) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

static struct fname *
name_get(struct rb *b, const char *name, size_t n, int make)
{
	uint32_t h = name_hash(name, n);
	struct fname **slot = &b->names[h % RB_BUCKETS], *f;

	for (f = *slot; f; f = f->next)
		if (f->hash == h && f->namelen == n && memcmp(f->name, name, n) == 0)
			return f;
	if (!make || (f = calloc(1, sizeof *f)) == NULL)
		return NULL;
	if ((f->name = dup_mem(name, n)) == NULL) {
		free(f);
		return NULL;
	}
	f->namelen = n;
	f->hash = h;
	f->next = *slot;
	*slot = f;
	return f;
}

static struct fzone *
zone_get(struct rb *b, int64_t input, int has_tid, int64_t tid,
    const char *label, size_t labellen)
{
	uint32_t h = mix(mix(has_tid ? 1 : 2, input), tid);
	struct fzone **slot, *z;

	if (!has_tid)
		h ^= name_hash(label, labellen);
	slot = &b->zones[h % RB_BUCKETS];
	for (z = *slot; z; z = z->next)
		if (z->hash == h && z->input == input && z->has_tid == has_tid &&
		    (has_tid ? z->tid == tid : (z->labellen == labellen &&
		    memcmp(z->label, label, labellen) == 0)))
			return z;
	if (b->nzones >= WTF_MAX_WIRE)	/* ids 1 to 65535 */
		return NULL;
	if ((z = calloc(1, sizeof *z)) == NULL)
		return NULL;
	z->input = input;
	z->has_tid = has_tid;
	z->tid = tid;
	z->hash = h;
	if (!has_tid && (z->label = dup_mem(label, labellen)) == NULL) {
		free(z);
		return NULL;
	}
	z->labellen = labellen;
	if (b->nzones == b->zcap && tp_grow(&b->zorder, &b->zcap,
	    b->nzones + 1, sizeof b->zorder[0]) < 0) {
		free(z->label);
		free(z);
		return NULL;
	}
	b->zorder[b->nzones++] = z;
	z->next = *slot;
	*slot = z;
	return z;
}

/* ------------------------------------------------------ keys and names */

static int
ident(const char *s, size_t n)
{
	if (n == 0 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!is_name_char((unsigned char)s[i]))
			return 0;
	return 1;
}

static int
hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ?
	    c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/*
 * The WTF argument name of a text key: the key when it is a name WTF
 * takes ([A-Za-z0-9_]); the name a ".HEX" key (trace-text(5): a field
 * name that is no plain key, dial9's "tid") or an "arg.NAME" key (wtf2txt:
 * an argument named as a record's own key) stands for; else "_x" and the
 * key's bytes in hex, which gives the key back.  0, or -1 when no name
 * fits (a key longer than 64 bytes).
 */
/* "_x" and the key's bytes in hex: 0, or -1 for a key over 63 bytes. */
static int
hex_name(const char *k, size_t n, char *out)
{
	static const char hex[] = "0123456789abcdef";

	if (n > 63)
		return -1;
	out[0] = '_';
	out[1] = 'x';
	for (size_t i = 0; i < n; i++) {
		out[2 + 2 * i] = hex[(unsigned char)k[i] >> 4];
		out[3 + 2 * i] = hex[(unsigned char)k[i] & 15];
	}
	out[2 + 2 * n] = '\0';
	return 0;
}

static int
arg_name(const char *k, size_t n, char *out)
{
	size_t i;

	if (ident(k, n)) {
		memcpy(out, k, n);
		out[n] = '\0';
		return 0;
	}
	if (n > 4 && memcmp(k, "arg.", 4) == 0 && ident(k + 4, n - 4) &&
	    reserved_key(k + 4, n - 4)) {
		memcpy(out, k + 4, n - 4);
		out[n - 4] = '\0';
		return 0;
	}
	if (n >= 3 && n % 2 == 1 && k[0] == '.' && n / 2 <= 64) {
		for (i = 1; i < n; i += 2) {
			int hi = hexval(k[i]), lo = hexval(k[i + 1]);
			if (hi < 0 || lo < 0 || !is_name_char(hi << 4 | lo))
				break;
			out[i / 2] = (char)(hi << 4 | lo);
		}
		if (i >= n) {
			out[n / 2] = '\0';
			return 0;
		}
	}
	return hex_name(k, n, out);
}

/* Keys of the record itself, not arguments, in a rebuilt trace. */
static int
own_key(const char *k, size_t n)
{
	size_t d;

	if (reserved_key(k, n) || (n == 5 && memcmp(k, "input", 5) == 0))
		return 1;
	/* a WTF argument's padding and utf8 length: rebuilt */
	for (d = n; d > 0 && k[d - 1] != '.'; d--)
		;
	return d > 1 && ((n - d == 3 && memcmp(k + d, "pad", 3) == 0) ||
	    (n - d == 5 && memcmp(k + d, "chars", 5) == 0));
}

/* ------------------------------------------------------------ pass one */

static void
see_value(struct farg *a, const char *v, size_t n)
{
	uint64_t u;
	int64_t i;
	double d;

	switch (tr_value_kind(v, n)) {
	case TR_NULL:
		a->bits |= V_NULL;
		break;
	case TR_BOOL:
		a->bits |= V_BOOL;
		break;
	case TR_UINT:
		tp_parse_u64(v, n, &u);
		i = u > INT64_MAX ? INT64_MAX : (int64_t)u;
		if (!(a->bits & V_INT) || i < a->lo)
			a->lo = i;
		if (!(a->bits & V_INT) || u > a->hi)
			a->hi = u;
		a->bits |= V_INT;
		break;
	case TR_INT:
		tp_parse_i64(v, n, &i);
		if (!(a->bits & V_INT) || i < a->lo)
			a->lo = i;
		if (!(a->bits & V_INT))
			a->hi = 0;
		a->bits |= V_INT;
		break;
	case TR_FLOAT:
		a->bits |= V_FLOAT;
		if (wtf_text_f64(v, n, &d) < 0 || (!isnan(d) &&
		    (double)(float)d != d) || (isnan(d) && n > 4))
			a->bits |= V_NOTF32;	/* NaN payloads kept in JSON */
		break;
	case TR_STRING: case TR_WORD: case TR_EMPTY:
		a->bits |= V_STR;
		break;
	default:
		a->bits |= V_OTHER;
	}
}

/* The string of a quoted or bare value, unescaped into sb. */
static int
value_str(struct buf *sb, const char *v, size_t n, const char **s, size_t *len)
{
	if (n > 0 && v[0] == '"') {
		if (buf_reserve(sb, n) < 0)
			return -1;
		*len = tp_unquote(v, n, (char *)sb->b);
		*s = (const char *)sb->b;
	} else {
		*s = v;
		*len = n;
	}
	return 0;
}

static int
rb_nomem(struct rb *b)
{
	return enc_nomem(b->e);
}

/* A wtf.zone#create of an input: the name of its zone. */
static int
learn_zone(struct rb *b, const struct tr_rec *rec, int64_t input)
{
	const struct tr_field *id = find_key(rec, "zoneId", 6);
	const struct tr_field *f[3] = { find_key(rec, "arg.name", 8),
	    find_key(rec, "type", 4), find_key(rec, "location", 8) };
	char **dst[3];
	size_t *dlen[3];
	struct fzone *z;
	int64_t zid;

	if (id == NULL || tp_parse_i64(id->val, id->vallen, &zid) < 0)
		return 0;
	if ((z = zone_get(b, input, 1, zid, NULL, 0)) == NULL)
		return rb_nomem(b);
	dst[0] = &z->zname, dst[1] = &z->ztype, dst[2] = &z->zloc;
	dlen[0] = &z->znamelen, dlen[1] = &z->ztypelen, dlen[2] = &z->zloclen;
	for (int i = 0; i < 3; i++) {
		const char *s;
		size_t n;
		if (f[i] == NULL || tr_is_null(f[i]))
			continue;
		if (value_str(&b->e->sbuf, f[i]->val, f[i]->vallen, &s, &n) < 0)
			return rb_nomem(b);
		free(*dst[i]);
		if ((*dst[i] = dup_mem(s, n)) == NULL)
			return rb_nomem(b);
		*dlen[i] = n;
	}
	return 0;
}

/* A wtf-define of an input: the types its events' arguments have. */
static int
learn_define(struct rb *b, const struct tr_rec *rec)
{
	const struct tr_field *nf = find_key(rec, "name", 4);
	const struct tr_field *af = find_key(rec, "args", 4);
	const struct tr_field *cf = find_key(rec, "class", 5);
	const struct tr_field *ff = find_key(rec, "flags", 5);
	struct fname *fn;
	const char *s;
	size_t n, sl = 0;
	uint64_t u;
	int null;

	if (nf == NULL || af == NULL ||
	    value_str(&b->e->sbuf, nf->val, nf->vallen, &s, &n) < 0 || n == 0)
		return 0;	/* the events speak for themselves */
	if ((fn = name_get(b, s, n, 1)) == NULL)
		return rb_nomem(b);
	null = tr_is_null(af);
	if (!null && value_str(&b->e->sbuf, af->val, af->vallen, &s, &sl) < 0)
		return rb_nomem(b);
	if (fn->declared) {
		if (fn->sig_null != null || (!null && (fn->siglen != sl ||
		    memcmp(fn->sig, s, sl) != 0)))
			fn->sig_conflict = 1;
		return 0;
	}
	fn->declared = 1;
	fn->sig_null = null;
	if (!null && (fn->sig = dup_mem(s, sl)) == NULL)
		return rb_nomem(b);
	fn->siglen = sl;
	fn->cls = cf && cf->vallen == 5 && memcmp(cf->val, "scope", 5) == 0;
	if (ff != NULL && tp_parse_u64(ff->val, ff->vallen, &u) == 0)
		fn->flags = (uint32_t)u;
	return 0;
}

static int
input_of(const struct tr_rec *rec, int64_t *input)
{
	const struct tr_field *f = find_key(rec, "input", 5);

	*input = -1;
	return f != NULL && tp_parse_i64(f->val, f->vallen, input) == 0;
}

static int
is_zone_event(const char *s, size_t n)
{
	return n > 9 && memcmp(s, "wtf.zone#", 9) == 0;
}

static int
learn_event(struct rb *b, const struct tr_rec *rec)
{
	const struct tr_field *nf = find_key(rec, "name", 4);
	const struct tr_field *tf = find_key(rec, "tid", 3);
	const struct tr_field *sf = find_key(rec, "ts", 2);
	struct fname *fn;
	const char *s;
	size_t n;
	int64_t input, tid = 0, ts;

	if (nf == NULL)
		return 0;	/* skipped in pass two */
	input_of(rec, &input);
	if (sf != NULL) {
		if (tr_i64(b->e->r, rec, sf, &ts) < 0)
			return -1;
		if (ts == 0) {
			b->zero_ts = 1;
		} else {
			if (!b->have_ts || ts < b->min_ts) {
				b->min_ts = ts;
				b->min_line = rec->lineno;
			}
			if (!b->have_ts || ts > b->max_ts) {
				b->max_ts = ts;
				b->max_line = rec->lineno;
			}
			b->have_ts = 1;
		}
	}
	if (tf != NULL && tr_i64(b->e->r, rec, tf, &tid) < 0)
		return -1;
	if (value_str(&b->e->sbuf, nf->val, nf->vallen, &s, &n) < 0)
		return rb_nomem(b);
	if (n == 0)
		return 0;
	if (is_zone_event(s, n)) {
		if (n == 15 && memcmp(s, "wtf.zone#create", 15) == 0)
			return learn_zone(b, rec, input);
		return 0;	/* zone#set, zone#delete: rebuilt */
	}
	if ((fn = name_get(b, s, n, 1)) == NULL)
		return rb_nomem(b);
	if ((tf != NULL ? zone_get(b, input, 1, tid, NULL, 0) :
	    zone_get(b, input, 0, 0, fn->name, fn->namelen)) == NULL)
		return b->nzones >= WTF_MAX_WIRE ? tr_fail(b->e->r, rec, tf,
		    "more than 65535 zones (threads of the inputs and names of "
		    "events without a thread): zone ids have 16 bits") :
		    rb_nomem(b);
	fn->events++;
	if (find_key(rec, "scope", 5) != NULL)
		fn->scope = 1;
	for (size_t i = 0; i < rec->nf; i++) {
		const struct tr_field *f = &rec->f[i];
		struct farg *a = NULL;
		unsigned j;
		if (own_key(f->key, f->keylen))
			continue;
		for (j = 0; j < fn->nargs; j++)
			if (fn->arg[j].keylen == f->keylen &&
			    memcmp(fn->arg[j].key, f->key, f->keylen) == 0) {
				a = &fn->arg[j];
				break;
			}
		if (a == NULL) {
			if (fn->nargs == WTF_MAX_ARGS)
				continue;	/* counted in pass two */
			a = &fn->arg[fn->nargs];
			if (arg_name(f->key, f->keylen, a->name) < 0)
				continue;
			for (j = 0; j < fn->nargs; j++)
				if (strcmp(fn->arg[j].name, a->name) == 0)
					break;
			/* two keys of one name (arg.tid and .746964) */
			if (j < fn->nargs && hex_name(f->key, f->keylen,
			    a->name) < 0)
				continue;
			if ((a->key = dup_mem(f->key, f->keylen)) == NULL)
				return rb_nomem(b);
			a->keylen = f->keylen;
			fn->nargs++;
		}
		a->seen++;
		see_value(a, f->val, f->vallen);
		if ((a->bits & V_STR) && !(a->bits & V_BADSTR)) {
			const char *str;
			size_t sl;
			if (value_str(&b->e->sbuf, f->val, f->vallen, &str, &sl) < 0)
				return rb_nomem(b);
			if (memchr(str, 0, sl) != NULL || tp_utf8_valid(str, sl) != sl)
				a->bits |= V_BADSTR;
		}
	}
	return 0;
}

/* --------------------------------------------------------- definitions */

/*
 * The WTF type of an argument from all its values: the narrowest that
 * holds every one of them exactly and reads back as the same kind; else
 * any (JSON text: wtf2txt gives numbers, lists and maps back as such).
 */
static const char *
arg_type(const struct fname *fn, const struct farg *a)
{
	unsigned k = a->bits & (V_BOOL | V_INT | V_FLOAT | V_STR | V_OTHER);
	int always = a->seen == fn->events;

	if (k == V_STR && !(a->bits & V_BADSTR))
		return "utf8";	/* null is the null string */
	if (!always || (a->bits & V_NULL))
		return "any";
	if (k == V_BOOL)
		return "bool";
	if (k == V_INT && a->lo >= INT32_MIN && a->hi <= INT32_MAX)
		return "int32";
	if (k == V_INT && a->lo >= 0 && a->hi <= UINT32_MAX)
		return "uint32";
	if (k == V_FLOAT && !(a->bits & V_NOTF32))
		return "float32";
	return "any";
}

static struct wtf_def *
make_def(struct rb *b, const struct tr_rec *rec, struct fname *fn,
    uint32_t time)
{
	static const unsigned char nopad[2][2];
	struct enc *e = b->e;
	struct buf sig = { NULL, 0, 0 };
	struct wtf_def *def = NULL;
	const char *why = "out of memory";
	uint32_t wire = b->next_wire++;
	int builtin = fn->namelen > 4 && memcmp(fn->name, "wtf.", 4) == 0;

	if (wire > WTF_MAX_WIRE) {
		tr_fail(e->r, rec, NULL, "more than 65534 event names");
		return NULL;
	}
	if (fn->declared && !fn->sig_conflict) {
		def = wtf_def_new(wire, fn->cls, fn->flags, fn->name, fn->namelen,
		    fn->sig, fn->siglen, fn->sig_null, &why);
	} else if (builtin && !fn->declared &&
	    (def = wtf_infer_def(e, NULL, fn->name, fn->namelen, wire)) != NULL &&
	    def->wire == wire && (def->flags & WTF_FLAG_BUILTIN)) {
		def->inferred = 0;	/* its any values are JSON text */
		why = NULL;
	} else {
		if (def != NULL)
			free(def);
		tp_err_clear(e->err);
		for (unsigned i = 0; i < fn->nargs; i++) {
			const char *t = arg_type(fn, &fn->arg[i]);
			if ((sig.len > 0 && buf_add(&sig, ", ", 2) < 0) ||
			    buf_add(&sig, t, strlen(t)) < 0 ||
			    buf_add(&sig, " ", 1) < 0 ||
			    buf_add(&sig, fn->arg[i].name,
			    strlen(fn->arg[i].name)) < 0) {
				free(sig.b);
				enc_nomem(e);
				return NULL;
			}
		}
		def = wtf_def_new(wire, fn->scope ? WTF_CLASS_SCOPE : 0, 0,
		    fn->name, fn->namelen, (const char *)sig.b, sig.len,
		    sig.len == 0, &why);
		free(sig.b);
		if (def != NULL) {
			def->inferred = 1;
			/* the arguments are read from the stream's keys */
			for (unsigned i = 0; i < def->nargs; i++) {
				def->arg[i].key = fn->arg[i].key;
				def->arg[i].keylen = (unsigned short)fn->arg[i].keylen;
			}
		}
	}
	if (def == NULL) {
		if (strcmp(why, "out of memory") == 0)
			enc_nomem(e);
		else
			tr_fail(e->r, rec, NULL, "cannot define %.*s: %s",
			    (int)fn->namelen, fn->name, why);
		return NULL;
	}
	if (wtf_enc_enter(e, rec, def) < 0 ||
	    wtf_emit_define(e, rec, def, time, nopad) < 0)
		return NULL;
	e->st->inferred++;
	fn->def = def;
	return def;
}

/* ----------------------------------------------------------- pass two */

/* Zone ids: a thread keeps its tid where it can, others take free ids. */
static void
number_zones(struct rb *b)
{
	unsigned char *used = b->used;
	uint32_t next = 1;

	for (size_t i = 0; i < b->nzones; i++) {
		struct fzone *z = b->zorder[i];
		if (z->has_tid && z->tid >= 1 && z->tid <= WTF_MAX_WIRE &&
		    !(used[z->tid / 8] & (1u << (z->tid % 8)))) {
			z->id = (uint32_t)z->tid;
			used[z->id / 8] |= (unsigned char)(1u << (z->id % 8));
		}
	}
	for (size_t i = 0; i < b->nzones; i++) {
		struct fzone *z = b->zorder[i];
		if (z->id != 0)
			continue;
		while (used[next / 8] & (1u << (next % 8)))
			next++;
		z->id = next;
		used[next / 8] |= (unsigned char)(1u << (next % 8));
	}
}

static int
emit_zone_rec(struct rb *b, const struct tr_rec *rec, struct fzone *z,
    int create, uint32_t time)
{
	struct enc *e = b->e;
	struct fname *fn = name_get(b, create ? "wtf.zone#create" :
	    "wtf.zone#set", create ? 15 : 12, 1);
	struct wtf_def *def;
	char label[96];
	const char *s[3];
	size_t n[3];
	unsigned char slot[4];

	if (fn == NULL)
		return rb_nomem(b);
	fn->declared = 0;	/* the built-in signature, always */
	if ((def = fn->def) == NULL && (def = make_def(b, rec, fn, time)) == NULL)
		return -1;
	tp_put_le32(slot, z->id);	/* uint16 zoneId in its 4-byte slot */
	if (wtf_rec_head(e, def->wire, time) < 0 ||
	    buf_add(&e->rec, slot, 4) < 0)
		return -1;
	if (create) {
		/*
		 * WTF's loader takes zones of one name, type and location for
		 * one: the zones of inputs after the first say which they are.
		 */
		const char *nm = z->zname ? z->zname : z->has_tid ? NULL : z->label;
		size_t nl = z->zname ? z->znamelen : z->labellen;
		int k = nm == NULL ? snprintf(label, sizeof label, "tid %lld",
		    (long long)z->tid) : 0;
		e->json.len = 0;
		if (nm == NULL)
			nm = label, nl = (size_t)k;
		if (buf_add(&e->json, nm, nl) < 0)
			return rb_nomem(b);
		if (z->input > 0) {
			k = snprintf(label, sizeof label, " (input %lld)",
			    (long long)z->input);
			if (buf_add(&e->json, label, (size_t)k) < 0)
				return rb_nomem(b);
		}
		s[0] = (const char *)e->json.b, n[0] = e->json.len;
		s[1] = z->ztype ? z->ztype : z->has_tid ? "script" : "events";
		n[1] = z->ztype ? z->ztypelen : strlen(s[1]);
		s[2] = z->zloc;	/* NULL: null */
		n[2] = z->zloc ? z->zloclen : 0;
		for (int i = 0; i < 3; i++)
			if (wtf_rec_string(e, rec, NULL, WT_ASCII,
			    (const unsigned char *)s[i], n[i], NULL) < 0)
				return -1;
		e->st->zones_added++;
		z->created = 1;
	}
	return wtf_rec_emit(e);
}

#define LOST_TIME "an event without a time, or at dial9's untimed ts=0, " \
	"written at the timebase"
#define LOST_FIELDS "a field past WTF's 64 arguments of an event dropped"
#define LOST_ABSENT "a field the event lacks (others of its name have it) " \
	"written as null"
#define LOST_FUSED "traces merged without input= (txtmerge --tag): their " \
	"zones of equal ids and events of equal names fused"
#define LOST_MIXED "a string in a field that holds other kinds too, stored " \
	"as JSON text (wtf2txt gives that text)"
#define LOST_UTF8 "a string that is not UTF-8 (or holds NUL) stored as " \
	"JSON text, invalid bytes as U+FFFD"

static int
write_event(struct rb *b, const struct tr_rec *rec)
{
	struct enc *e = b->e;
	const struct tr_field *nf = find_key(rec, "name", 4);
	const struct tr_field *tf = find_key(rec, "tid", 3);
	const struct tr_field *sf = find_key(rec, "ts", 2);
	struct fname *fn;
	struct fzone *z;
	struct wtf_def *def;
	const char *s;
	size_t n, matched = 0, tablen;
	int64_t input, tid = 0, ts = 0, arg0;
	uint32_t time = 0, nstr;
	char why[100];

	if (nf == NULL)
		return tr_skip(e->r, rec, &e->st->skipped, "an event without "
		    "a name");
	if (value_str(&e->sbuf, nf->val, nf->vallen, &s, &n) < 0)
		return rb_nomem(b);
	if (n == 0)
		return tr_fail(e->r, rec, nf, "not an event name");
	if (is_zone_event(s, n))
		return 0;	/* rebuilt */
	if ((fn = name_get(b, s, n, 0)) == NULL)
		return rb_nomem(b);	/* every name was seen in pass one */
	input_of(rec, &input);
	if (tf != NULL && tr_i64(e->r, rec, tf, &tid) < 0)
		return -1;
	if (sf != NULL && tr_i64(e->r, rec, sf, &ts) < 0)
		return -1;
	if (sf != NULL && ts >= e->tb_ns) {
		time = (uint32_t)((uint64_t)(ts - e->tb_ns) / 1000);
	} else if (tr_lose(e->r, rec, &e->st->skipped, LOST_TIME,
	    sf ? "ts=0" : "no ts") < 0) {
		return -1;
	}
	if (wtf_event_chunk(e, rec) < 0)
		return -1;
	z = tf != NULL ? zone_get(b, input, 1, tid, NULL, 0) :
	    zone_get(b, input, 0, 0, fn->name, fn->namelen);
	if (z == NULL)
		return rb_nomem(b);
	/* the definition before the zone records, as WTF's writers order them */
	if ((def = fn->def) == NULL && (def = make_def(b, rec, fn, time)) == NULL)
		return -1;
	if (z != b->cur) {
		if (!z->created && emit_zone_rec(b, rec, z, 1, time) < 0)
			return -1;
		if (emit_zone_rec(b, rec, z, 0, time) < 0)
			return -1;
		b->cur = z;
	}
	for (unsigned i = 0; def->inferred && i < fn->nargs; i++)
		if (fn->arg[i].seen != fn->events &&
		    find_key(rec, fn->arg[i].key, fn->arg[i].keylen) == NULL) {
			if (tr_lose(e->r, rec, &e->st->skipped, LOST_ABSENT,
			    "field \"%.40s\"", fn->arg[i].key) < 0)
				return -1;
			break;
		}
	for (unsigned i = 0; def->inferred && i < fn->nargs; i++) {
		const struct tr_field *f;
		enum tr_kind k;
		if (def->arg[i].type != WT_ANY || !(fn->arg[i].bits & V_STR) ||
		    (fn->arg[i].bits & V_BADSTR) || (f = find_key(rec,
		    fn->arg[i].key, fn->arg[i].keylen)) == NULL)
			continue;
		k = tr_value_kind(f->val, f->vallen);
		if (k != TR_STRING && k != TR_WORD && k != TR_EMPTY)
			continue;
		if (tr_lose(e->r, rec, &e->st->skipped, LOST_MIXED,
		    "field \"%.40s\"", fn->arg[i].key) < 0)
			return -1;
		break;	/* a record counts once */
	}
	for (unsigned i = 0; def->inferred && i < fn->nargs; i++) {
		const struct tr_field *f;
		if (!(fn->arg[i].bits & V_BADSTR) ||
		    (f = find_key(rec, fn->arg[i].key, fn->arg[i].keylen)) == NULL ||
		    f->vallen == 0 || (f->val[0] != '"' && tr_value_kind(f->val,
		    f->vallen) != TR_WORD))
			continue;
		if (value_str(&e->sbuf, f->val, f->vallen, &s, &n) < 0)
			return rb_nomem(b);
		if (memchr(s, 0, n) == NULL && tp_utf8_valid(s, n) == n)
			continue;
		if (tr_lose(e->r, rec, &e->st->skipped, LOST_UTF8,
		    "field \"%.40s\"", fn->arg[i].key) < 0)
			return -1;
		break;	/* a record counts once */
	}
	if (fn->nargs == WTF_MAX_ARGS) {
		size_t own = 0;
		for (size_t i = 0; i < rec->nf; i++)
			own += own_key(rec->f[i].key, rec->f[i].keylen) != 0;
		if (rec->nf - own > WTF_MAX_ARGS && tr_lose(e->r, rec,
		    &e->st->skipped, LOST_FIELDS, "%zu fields",
		    rec->nf - own) < 0)
			return -1;
	}
	nstr = e->nstr;
	tablen = e->tab.len;
	e->extras = 0;
	if (wtf_rec_head(e, def->wire, time) < 0)
		return -1;
	if (wtf_rec_args(e, rec, def, &matched, &arg0) < 0) {
		/* a value a declared type cannot hold: its strings taken back */
		if (e->err->status != TP_EXIT_DATA)
			return -1;
		e->nstr = nstr;
		e->tab.len = tablen;
		if (e->unique && e->hcap > 0)
			return enc_nomem(e);
		snprintf(why, sizeof why, "a value its definition cannot hold: "
		    "%.50s", e->err->msg);
		tp_err_clear(e->err);
		return tr_skip(e->r, rec, &e->st->skipped, "%s", why);
	}
	return wtf_rec_emit(e);
}

/* ---------------------------------------------------------- the driver */

static int
spool_line(struct rb *b, const char *line, size_t len, uint64_t lineno)
{
	unsigned char ln[8];

	b->line.len = 0;
	tp_put_le64(ln, lineno);
	if (buf_add(&b->line, ln, 8) < 0 || buf_add(&b->line, line, len) < 0)
		return rb_nomem(b);
	return tp_spool_put(&b->spool, b->line.b, b->line.len);
}

static int
pass_one(struct rb *b, struct tr_rec *rec)
{
	struct enc *e = b->e;
	int64_t input;

	if (input_of(rec, &input))
		b->tagged = 1;
	if (rec->kindlen == 5 && memcmp(rec->kind, "event", 5) == 0)
		return learn_event(b, rec);
	if (tr_is(rec, "wtf-define"))
		return learn_define(b, rec);
	(void)e;
	return 0;
}

static int
pass_two(struct rb *b, struct tr_rec *rec)
{
	struct enc *e = b->e;

	if (rec->kindlen == 5 && memcmp(rec->kind, "event", 5) == 0)
		return write_event(b, rec);
	if (tr_is(rec, "wtf-header") && !b->tagged && ++b->headers_seen == 2) {
		return tr_lose(e->r, rec, &e->st->skipped, LOST_FUSED,
		    "a second wtf-header");
	}
	if (tr_rebuilt(&e->st->skipped, rec))
		return 0;
	return tr_skip(e->r, rec, &e->st->skipped, "record kind \"%.*s\"",
	    (int)rec->kindlen, rec->kind);
}

static void
rb_free(struct rb *b)
{
	for (size_t i = 0; i < RB_BUCKETS; i++) {
		struct fname *f, *fn;
		struct fzone *z, *zn;
		for (f = b->names[i]; f; f = fn) {
			fn = f->next;
			for (unsigned j = 0; j < f->nargs; j++)
				free(f->arg[j].key);
			free(f->name);
			free(f->sig);
			free(f);
		}
		for (z = b->zones[i]; z; z = zn) {
			zn = z->next;
			free(z->label);
			free(z->zname);
			free(z->ztype);
			free(z->zloc);
			free(z);
		}
	}
	free(b->zorder);
	free(b->line.b);
	tp_spool_free(&b->spool);
	free(b);
}

/* Seconds from a to b (nanoseconds), for messages. */
static double
span_s(int64_t a, int64_t b)
{
	return ((double)b - (double)a) / 1e9;
}

static int
wtf_rebuild(struct enc *e, struct tr_rec *rec)
{
	struct tr_reader *r = e->r;
	struct rb *b = calloc(1, sizeof *b);
	const unsigned char *p;
	char *line;
	size_t len;
	int rc = 0;

	if (b == NULL)
		return enc_nomem(e);
	b->e = e;
	e->rebuild = 1;
	b->next_wire = 2;
	if (tp_spool_init(&b->spool, 0, e->err) < 0) {
		free(b);
		return -1;
	}
	/* pass one, spooling the lines */
	if (spool_line(b, rec->line, rec->len, rec->lineno) < 0 ||
	    pass_one(b, rec) < 0)
		goto fail;
	while ((rc = tr_line(r, &line, &len)) > 0) {
		uint64_t lineno = r->lineno;
		if ((rc = tr_parse(r, line, len, rec)) < 0)
			goto fail;
		if (rc == 0)
			continue;
		e->st->records++;
		if (spool_line(b, line, len, lineno) < 0 || pass_one(b, rec) < 0)
			goto fail;
	}
	if (rc < 0)
		goto fail;
	/* the copy of the longest line is not needed again */
	free(b->line.b);
	b->line = (struct buf){ NULL, 0, 0 };
	/* the timebase: the earliest time, in whole milliseconds */
	if (b->have_ts) {
		int64_t tb = b->min_ts - (b->min_ts % 1000000 + 1000000) % 1000000;
		if (b->zero_ts && b->min_ts / 1000 <= UINT32_MAX)
			tb = 0;	/* ts=0 fits: kept */
		if ((uint64_t)(b->max_ts - tb) / 1000 > UINT32_MAX) {
			tp_fail(e->err, TP_EXIT_DATA, "the trace spans %.0f s, "
			    "from ts=%lld (line %llu) to ts=%lld (line %llu): one "
			    "WTF timebase holds 2^32 us (71.6 minutes); split it "
			    "(txtfilter, tracesplit) or convert each input alone",
			    span_s(b->min_ts, b->max_ts), (long long)b->min_ts,
			    (unsigned long long)b->min_line, (long long)b->max_ts,
			    (unsigned long long)b->max_line);
			goto fail;
		}
		if (wtf_cff_header(e, tb, 1, NULL, NULL) < 0)
			goto fail;
		if (tb == 0)
			b->have_ts = 0;	/* ts=0 is a time like any other */
	} else if (wtf_cff_header(e, 0, 1, NULL, NULL) < 0) {
		goto fail;
	}
	number_zones(b);
	/* pass two */
	if (tp_spool_rewind(&b->spool) < 0)
		goto fail;
	while ((rc = tp_spool_get(&b->spool, &p, &len)) > 0) {
		r->lineno = tp_get_le64(p);
		if (tr_parse(r, (const char *)p + 8, len - 8, rec) <= 0 ||
		    pass_two(b, rec) < 0)
			goto fail;
	}
	if (rc < 0)
		goto fail;
	rb_free(b);
	return 0;
fail:
	rb_free(b);
	return -1;
}

/* ------------------------------------------------------------ the stream */

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
	if (wtf_deftab_init(&e->defs, &why) < 0) {
		free(e);
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	}
	while ((rc = tr_next(r, rec)) > 0) {
		st->records++;
		/*
		 * A stream that is not one WTF trace (another format's events,
		 * WTF events whose structure was filtered away; input=: inputs
		 * merged by txtmerge --tag) is rebuilt from its events, in two
		 * passes.  WTF's own records first (a header, a definition, a
		 * chunk) are one trace, written as it comes.
		 */
		if (st->records == 1 && (rec->kindlen < 4 ||
		    memcmp(rec->kind, "wtf-", 4) != 0 ||
		    find_key(rec, "input", 5) != NULL)) {
			rc = wtf_rebuild(e, rec);
			break;
		}
		if (e->legacy_held && rec->kindlen > 4 &&
		    (tr_is(rec, "event") || memcmp(rec->kind, "wtf-", 4) == 0) &&
		    wtf_legacy_release(e, rec) < 0) {
			rc = -1;
			break;
		}
		if (rec->kindlen == 5 && key_eq(rec->kind, "event", 5))
			rc = wtf_do_event(e, rec);
		else if (tr_is(rec, "wtf-define"))
			rc = wtf_do_define(e, rec);
		else if (e->merged && (tr_is(rec, "wtf-chunk") ||
		    tr_is(rec, "wtf-part")))
			rc = 0;	/* the encoder cuts its own chunks */
		else if (tr_is(rec, "wtf-chunk"))
			rc = wtf_do_chunk(e, rec);
		else if (tr_is(rec, "wtf-part"))
			rc = wtf_do_part(e, rec);
		else if (tr_is(rec, "wtf-header"))
			rc = wtf_do_header(e, rec);
		else if (tr_rebuilt(&st->skipped, rec))
			rc = 0;
		else
			rc = tr_skip(r, rec, &st->skipped, "record kind "
			    "\"%.*s\"", (int)rec->kindlen, rec->kind);
		if (rc < 0)
			break;
	}
	if (rc == 0 && e->legacy_held)
		rc = wtf_legacy_release(e, NULL);
	if (rc == 0 && e->version == 0)
		rc = wtf_auto_header(e, NULL);
	/* a chunked trace holds at least its file header (its timebase) */
	if (rc == 0 && e->version == WTF_CFF_VERSION && e->max_cid == 0 &&
	    !e->in_chunk)
		rc = wtf_cff_header(e, 0, 1, NULL, NULL) < 0 ? -1 :
		    wtf_chunk_flush(e);
	if (rc == 0)
		rc = wtf_chunk_flush(e);
	wtf_deftab_free(&e->defs);
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
