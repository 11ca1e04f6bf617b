/*
 * Fuzz harness for the text record reader and writer.
 *
 * 1. Every line is parsed; every field is read as every type; what
 *    tr_parse accepts must be walkable by tr_elem and found again, with
 *    the same value, by tr_peek and tr_peek2.
 * 2. Parse, write, parse: every value tr_parse accepts is classified by
 *    what the text alone says (null, bool, unsigned or signed integer,
 *    float, quoted or bare string, bytes, list, map) and written again
 *    with the writer function of that class (tv_u64/tv_hex, tv_i64,
 *    tv_f64, tv_qstr, tv_str, tv_bool, tv_null, lists and maps with
 *    tv_mapkey, nested).  The line written must parse into the same
 *    kind, keys, classes and values (floats bit for bit, strings byte for
 *    byte), and writing that again must give the same line.
 * 3. Write, parse: the input bytes also drive a writer directly (typed
 *    values of every kind: any 64-bit integer, any float bit pattern with
 *    NaN payloads, strings of any bytes bare or quoted, byte strings,
 *    null, nested lists and maps with any keys); the line must parse and
 *    every value must read back as what was written.
 * 4. The input compressed with gzip (one member, or two split where the
 *    input says) reads as the same lines as the input itself (unless it
 *    starts with gzip's magic: then it is gzip to the plain reader too).
 *
 * Written lines are captured with tests/fuzz.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXDEPTH 64		/* the reader's nesting limit */

/* ------------------------------------------------------- reading spans */

/*
 * The typed readers take a field of a record; a value inside a list or
 * map is read through a field made for it.  Errors go to a scratch
 * reader: here they only mean "not of this type".
 */
static struct tp_err scratch_err;
static struct tr_reader scratch = { NULL, &scratch_err, 0 };

static struct tr_field
span(const char *v, size_t n)
{
	struct tr_field f;

	f.key = "v";
	f.keylen = 1;
	f.val = v;
	f.vallen = (uint32_t)n;
	return f;
}

static int
read_u64(const struct tr_rec *rec, const char *v, size_t n, uint64_t *u)
{
	struct tr_field f = span(v, n);

	return tr_u64(&scratch, rec, &f, u);
}

static int
read_i64(const struct tr_rec *rec, const char *v, size_t n, int64_t *i)
{
	struct tr_field f = span(v, n);

	return tr_i64(&scratch, rec, &f, i);
}

/* A float as its bits, so that NaN payloads and -0.0 compare. */
static int
read_f64(const struct tr_rec *rec, const char *v, size_t n, uint64_t *bits)
{
	struct tr_field f = span(v, n);
	double d;

	if (tr_f64(&scratch, rec, &f, &d) < 0)
		return -1;
	memcpy(bits, &d, sizeof *bits);
	return 0;
}

/* A string, unescaped, into a malloc'd buffer (a value is never longer). */
static unsigned char *
read_str(const struct tr_rec *rec, const char *v, size_t n, size_t *len)
{
	struct tr_field f = span(v, n);
	unsigned char *b = malloc(n + 1);

	if (b == NULL)
		abort();
	if (tr_str(&scratch, rec, &f, b, n, len) < 0) {
		free(b);
		return NULL;
	}
	return b;
}

static unsigned char *
read_bytes(const struct tr_rec *rec, const char *v, size_t n, size_t *len)
{
	struct tr_field f = span(v, n);
	unsigned char *b = malloc(n / 2 + 1);

	if (b == NULL)
		abort();
	if (tr_bytes(&scratch, rec, &f, b, n / 2, len) < 0) {
		free(b);
		return NULL;
	}
	return b;
}

/*
 * The next element of a list (map 0) or map (map 1): key span (maps
 * only) and value span.
 */
static int
next_elem(const char **cur, const char *end, int map, const char **k,
    size_t *kl, const char **v, size_t *vl)
{
	if (!map) {
		*k = NULL;
		*kl = 0;
		return tr_elem(cur, end, NULL, NULL, v, vl);
	}
	if (!tr_elem(cur, end, k, kl, v, vl))
		return 0;
	if (*k == NULL)
		abort();	/* tr_parse let a map element without key by */
	return 1;
}

/* ----------------------------------------------- 1. the reader, directly */

static void
read_every_way(struct tr_reader *rd, const struct tr_rec *rec)
{
	unsigned char buf[256];
	size_t i, n;

	for (i = 0; i < rec->nf; i++) {
		const struct tr_field *f = &rec->f[i], *first;
		const char *cur = f->val, *k, *v, *pv[2];
		size_t kl, vl, pvl[2];
		uint64_t u;
		int64_t s;
		double d;
		int b, guard = 0;

		tr_u64(rd, rec, f, &u);
		tr_i64(rd, rec, f, &s);
		tr_f64(rd, rec, f, &d);
		tr_bool(rd, rec, f, &b);
		tr_bytes(rd, rec, f, buf, sizeof buf, &n);
		tr_str(rd, rec, f, buf, sizeof buf, &n);
		tr_is_null(f);
		if (f->vallen > 0 && (*f->val == '[' || *f->val == '{'))
			while (next_elem(&cur, f->val + f->vallen,
			    *f->val == '{', &k, &kl, &v, &vl) &&
			    guard++ < 100000)
				;
		/* peek finds the first field of a key, as tr_find does. */
		first = f;
		for (n = 0; n < i; n++)
			if (rec->f[n].keylen == f->keylen &&
			    memcmp(rec->f[n].key, f->key, f->keylen) == 0) {
				first = &rec->f[n];
				break;
			}
		if (tr_peek(rec->line, rec->len, f->key, f->keylen, &v,
		    &vl) != 1 || v != first->val || vl != first->vallen)
			abort();
		if (i > 0) {
			const struct tr_field *g = &rec->f[0];
			unsigned want = 1u | (g->keylen == f->keylen &&
			    memcmp(g->key, f->key, f->keylen) == 0 ? 0 : 2u);
			unsigned got = tr_peek2(rec->line, rec->len, g->key,
			    g->keylen, f->key, f->keylen, pv, pvl);
			if ((got & want) != want || pv[0] != g->val ||
			    pvl[0] != g->vallen ||
			    (want & 2 && (pv[1] != first->val ||
			    pvl[1] != first->vallen)))
				abort();
		}
	}
	tp_err_clear(rd->err);
}

/* ----------------------------------------- 2. parse, write, parse again */

enum cls {
	C_EMPTY, C_NULL, C_BOOL, C_INT, C_FLOAT, C_QSTR, C_BARE, C_LIST,
	C_MAP
};

/*
 * An integer as sign and magnitude: "-0" is the integer 0 and is written
 * "0"; anything in -2^63 .. 2^64-1 is one.
 */
static int
read_int(const struct tr_rec *rec, const char *v, size_t n, int *neg,
    uint64_t *mag)
{
	int64_t s;

	*neg = 0;
	if (read_u64(rec, v, n, mag) == 0)
		return 0;
	if (read_i64(rec, v, n, &s) < 0)
		return -1;
	*neg = s < 0;
	*mag = s < 0 ? 0 - (uint64_t)s : (uint64_t)s;
	return 0;
}

static enum cls
classify(const struct tr_rec *rec, const char *v, size_t n)
{
	uint64_t u;
	int neg;

	if (n == 0)
		return C_EMPTY;
	if (*v == '"')
		return C_QSTR;
	if (*v == '[')
		return C_LIST;
	if (*v == '{')
		return C_MAP;
	if (n == 4 && memcmp(v, "null", 4) == 0)
		return C_NULL;
	if ((n == 4 && memcmp(v, "true", 4) == 0) ||
	    (n == 5 && memcmp(v, "false", 5) == 0))
		return C_BOOL;
	if (read_int(rec, v, n, &neg, &u) == 0)
		return C_INT;
	if (read_f64(rec, v, n, &u) == 0)
		return C_FLOAT;
	return C_BARE;
}

static void
write_key(struct tp_out *o, const struct tr_rec *rec, const char *k,
    size_t kl)
{
	size_t n;
	unsigned char *s = read_str(rec, k, kl, &n);

	if (s == NULL)
		abort();	/* a map key that is no string */
	tv_mapkey(o, (const char *)s, n);
	free(s);
}

/* Write the value v again with the writer of its class. */
static void
rewrite(struct tp_out *o, const struct tr_rec *rec, const char *v, size_t n)
{
	const char *cur = v, *k, *e;
	size_t kl, el, len;
	unsigned char *s;
	uint64_t u;
	int map, neg, first = 1;

	switch (classify(rec, v, n)) {
	case C_EMPTY:
		tv_bytes(o, "", 0);
		break;
	case C_NULL:
		tv_null(o);
		break;
	case C_BOOL:
		tv_bool(o, *v == 't');
		break;
	case C_INT:
		if (read_int(rec, v, n, &neg, &u) < 0)
			abort();
		if (neg)
			tv_i64(o, (int64_t)(0 - u));
		else if (n > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X'))
			tv_hex(o, u);
		else
			tv_u64(o, u);
		break;
	case C_FLOAT: {
		double d;
		if (read_f64(rec, v, n, &u) < 0)
			abort();
		memcpy(&d, &u, sizeof d);
		tv_f64(o, d);
		break;
	}
	case C_QSTR:
	case C_BARE:
		if ((s = read_str(rec, v, n, &len)) == NULL)
			abort();	/* tr_parse accepted it */
		if (*v == '"')
			tv_qstr(o, s, len);
		else
			tv_str(o, s, len);
		free(s);
		break;
	case C_LIST:
	case C_MAP:
		map = *v == '{';
		if (map)
			tv_open_map(o);
		else
			tv_open_list(o);
		while (next_elem(&cur, v + n, map, &k, &kl, &e, &el)) {
			if (!first)
				tv_sep(o);
			first = 0;
			if (map)
				write_key(o, rec, k, kl);
			rewrite(o, rec, e, el);
		}
		if (map)
			tv_close_map(o);
		else
			tv_close_list(o);
		break;
	}
}

static int
same_str(const struct tr_rec *ra, const char *a, size_t an,
    const struct tr_rec *rb, const char *b, size_t bn)
{
	size_t la, lb;
	unsigned char *sa = read_str(ra, a, an, &la);
	unsigned char *sb = read_str(rb, b, bn, &lb);
	int same = sa != NULL && sb != NULL && la == lb &&
	    memcmp(sa, sb, la) == 0;

	free(sa);
	free(sb);
	return same;
}

/* Are the values a (of record ra) and b (of rb) of one class and equal? */
static int
same_value(const struct tr_rec *ra, const char *a, size_t an,
    const struct tr_rec *rb, const char *b, size_t bn)
{
	enum cls c = classify(ra, a, an);
	const char *ca = a, *cb = b, *ka, *kb, *ea, *eb;
	size_t kal, kbl, eal, ebl;
	uint64_t ua, ub;
	int map, more, na, nb;

	if (classify(rb, b, bn) != c)
		return 0;
	switch (c) {
	case C_EMPTY:
	case C_NULL:
		return 1;
	case C_BOOL:
		return *a == *b;
	case C_INT:
		return read_int(ra, a, an, &na, &ua) == 0 &&
		    read_int(rb, b, bn, &nb, &ub) == 0 && na == nb && ua == ub;
	case C_FLOAT:
		return read_f64(ra, a, an, &ua) == 0 &&
		    read_f64(rb, b, bn, &ub) == 0 && ua == ub;
	case C_QSTR:
	case C_BARE:
		return same_str(ra, a, an, rb, b, bn);
	case C_LIST:
	case C_MAP:
		map = c == C_MAP;
		for (;;) {
			more = next_elem(&ca, a + an, map, &ka, &kal, &ea, &eal);
			if (more != next_elem(&cb, b + bn, map, &kb, &kbl, &eb,
			    &ebl))
				return 0;
			if (!more)
				return 1;
			if (map && !same_str(ra, ka, kal, rb, kb, kbl))
				return 0;
			if (!same_value(ra, ea, eal, rb, eb, ebl))
				return 0;
		}
	}
	return 0;
}

/* The record written again, field by field; a malloc'd line. */
static char *
rewrite_record(const struct tr_rec *rec, size_t *len)
{
	struct tp_out *o = cap_begin();
	size_t i;

	tp_out_write(o, rec->kind, rec->kindlen);
	for (i = 0; i < rec->nf; i++) {
		const struct tr_field *f = &rec->f[i];
		tp_out_putc(o, ' ');
		tp_out_write(o, f->key, f->keylen);
		tp_out_putc(o, '=');
		rewrite(o, rec, f->val, f->vallen);
	}
	tw_end(o);
	return cap_take(len);
}

/* text[0..len) is one line, as a writer must write it; parse it. */
static void
parse_line(const char *text, size_t len, struct tr_rec *rec)
{
	static struct tp_err err;
	struct tr_reader rd = { NULL, &err, 1 };

	if (len == 0 || text[len - 1] != '\n' ||
	    memchr(text, '\n', len - 1) != NULL ||
	    (len > 1 && text[len - 2] == '\r'))
		abort();	/* not exactly one line */
	tp_err_clear(&err);
	if (tr_parse(&rd, text, len - 1, rec) != 1)
		abort();	/* the writer's line does not parse */
}

static void
round_trip(const struct tr_rec *rec)
{
	static struct tr_rec rec2, rec3;
	char *w2, *w3;
	size_t n2, n3, i;

	w2 = rewrite_record(rec, &n2);
	parse_line(w2, n2, &rec2);
	if (rec2.kindlen != rec->kindlen ||
	    memcmp(rec2.kind, rec->kind, rec->kindlen) != 0 ||
	    rec2.nf != rec->nf)
		abort();
	for (i = 0; i < rec->nf; i++) {
		const struct tr_field *a = &rec->f[i], *b = &rec2.f[i];
		if (a->keylen != b->keylen ||
		    memcmp(a->key, b->key, a->keylen) != 0)
			abort();
		if (!same_value(rec, a->val, a->vallen, &rec2, b->val,
		    b->vallen))
			abort();	/* a value changed in the round trip */
	}
	/* The written form is canonical: writing it again changes nothing. */
	w3 = rewrite_record(&rec2, &n3);
	if (n3 != n2 || memcmp(w3, w2, n2) != 0)
		abort();
	parse_line(w3, n3, &rec3);
	free(w3);
	free(w2);
}

/* ---------------------------------------------- 3. write, then read back */

/*
 * The input read as a program for the writer: each value starts with a
 * byte that chooses its type, then what that type needs.  The same
 * program is run twice, once writing and once checking what was read;
 * past the end of the input every byte is 0.  A budget bounds the work.
 */
enum gtype {
	G_U64, G_I64, G_HEX, G_F64, G_BOOL, G_NULL, G_STR, G_QSTR, G_BYTES,
	G_LIST, G_MAP, G_NTYPES
};

struct gen {
	const uint8_t *p, *end;
	int budget;
};

static unsigned
gbyte(struct gen *g)
{
	return g->p < g->end ? *g->p++ : 0;
}

static uint64_t
gword(struct gen *g)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | gbyte(g);
	return v;
}

/* A short byte string from the input: a length byte, then the bytes. */
static const uint8_t *
gstring(struct gen *g, size_t *n, unsigned max)
{
	const uint8_t *s = g->p;
	size_t want = gbyte(g) % (max + 1), have = (size_t)(g->end - g->p);

	s = g->p;
	*n = want < have ? want : have;
	g->p += *n;
	return s;
}

static enum gtype
gtype(struct gen *g, int depth)
{
	enum gtype t = (enum gtype)(gbyte(g) % G_NTYPES);

	if (--g->budget < 0 || depth >= MAXDEPTH) {
		if (t == G_LIST || t == G_MAP)
			t = G_NULL;
	}
	return t;
}

/*
 * Write (o != NULL) or check (o == NULL: the value read is v, of record
 * rec) one generated value at nesting depth depth.
 */
static void
gvalue(struct gen *g, struct tp_out *o, const struct tr_rec *rec,
    const char *v, size_t vn, int depth)
{
	enum gtype t = gtype(g, depth);
	const char *cur = v, *k, *e;
	size_t n, kl, el, len, i, keylen;
	const uint8_t *s, *key;
	enum cls c;
	unsigned char *got;
	uint64_t u, bits;
	int64_t si;
	double d;
	int map;

	switch (t) {
	case G_U64:
	case G_HEX:
		u = gword(g);
		if (o != NULL) {
			if (t == G_HEX)
				tv_hex(o, u);
			else
				tv_u64(o, u);
		} else if (read_u64(rec, v, vn, &bits) < 0 || bits != u ||
		    (t == G_HEX && (vn < 3 || memcmp(v, "0x", 2) != 0))) {
			abort();
		}
		break;
	case G_I64:
		u = gword(g);
		if (o != NULL)
			tv_i64(o, (int64_t)u);
		else if (read_i64(rec, v, vn, &si) < 0 || (uint64_t)si != u)
			abort();
		break;
	case G_F64:
		u = gword(g);
		memcpy(&d, &u, sizeof d);
		if (o != NULL)
			tv_f64(o, d);
		else if (read_f64(rec, v, vn, &bits) < 0 || bits != u ||
		    (!isnan(d) && !isinf(d) && classify(rec, v, vn) != C_FLOAT))
			abort();	/* not bit for bit, or reads as an integer */
		break;
	case G_BOOL:
		u = gbyte(g) & 1;
		if (o != NULL)
			tv_bool(o, (int)u);
		else if (vn != (u ? 4u : 5u) ||
		    memcmp(v, u ? "true" : "false", vn) != 0)
			abort();
		break;
	case G_NULL:
		if (o != NULL)
			tv_null(o);
		else if (vn != 4 || memcmp(v, "null", 4) != 0)
			abort();
		break;
	case G_STR:
	case G_QSTR:
		s = gstring(g, &n, 48);
		if (o != NULL) {
			if (t == G_QSTR)
				tv_qstr(o, s, n);
			else
				tv_str(o, s, n);
			break;
		}
		if ((got = read_str(rec, v, vn, &len)) == NULL ||
		    len != n || memcmp(got, s, n) != 0 ||
		    (t == G_QSTR && *v != '"'))
			abort();	/* a string did not come back */
		free(got);
		c = classify(rec, v, vn);
		if (c == C_EMPTY || c == C_NULL || c == C_BOOL || c == C_LIST ||
		    c == C_MAP || (t == G_QSTR && c != C_QSTR))
			abort();	/* a string that reads as another type */
		break;
	case G_BYTES:
		s = gstring(g, &n, 32);
		/* Inside a list or map, an empty value is no value: 00. */
		if (o != NULL) {
			if (n == 0 && depth > 0)
				tv_bytes(o, "", 1);
			else
				tv_bytes(o, s, n);
			break;
		}
		if ((got = read_bytes(rec, v, vn, &len)) == NULL ||
		    (n == 0 && depth > 0 ? len != 1 || got[0] != 0 :
		    len != n || memcmp(got, s, n) != 0))
			abort();
		free(got);
		break;
	case G_LIST:
	case G_MAP:
		map = t == G_MAP;
		n = gbyte(g) % 6;
		if (o != NULL) {
			if (map)
				tv_open_map(o);
			else
				tv_open_list(o);
		}
		for (i = 0; i < n; i++) {
			if (o != NULL) {
				if (i > 0)
					tv_sep(o);
				if (map) {
					key = gstring(g, &keylen, 12);
					tv_mapkey(o, (const char *)key, keylen);
				}
				gvalue(g, o, NULL, NULL, 0, depth + 1);
				continue;
			}
			if (!next_elem(&cur, v + vn, map, &k, &kl, &e, &el))
				abort();	/* an element is missing */
			if (map) {
				key = gstring(g, &keylen, 12);
				if ((got = read_str(rec, k, kl, &len)) == NULL ||
				    len != keylen || memcmp(got, key, keylen) != 0)
					abort();	/* a map key changed */
				free(got);
			}
			gvalue(g, NULL, rec, e, el, depth + 1);
		}
		if (o != NULL) {
			if (map)
				tv_close_map(o);
			else
				tv_close_list(o);
		} else if (next_elem(&cur, v + vn, map, &k, &kl, &e, &el)) {
			abort();	/* an element too many */
		}
		break;
	default:
		abort();
	}
}

static void
write_then_read(const uint8_t *data, size_t size)
{
	static struct tr_rec rec;
	static const char *const keys[] = { "a", "tid", "k_2", "x.y", "Z-9",
	    "b", "pc", "k_3", "y.z", "Z-8", "c", "addr" };	/* distinct: a key twice is malformed */
	struct gen g = { data, data + size, 4000 };
	struct tp_out *o = cap_begin();
	unsigned nf = gbyte(&g) % 12, i;
	char *line;
	size_t len;

	tw_begin(o, "rec");
	for (i = 0; i < nf; i++) {
		tw_key(o, keys[i]);
		gvalue(&g, o, NULL, NULL, 0, 0);
	}
	tw_end(o);
	line = cap_take(&len);
	parse_line(line, len, &rec);
	if (rec.nf != nf)
		abort();
	g.p = data;
	g.budget = 4000;
	gbyte(&g);
	for (i = 0; i < nf; i++)
		gvalue(&g, NULL, &rec, rec.f[i].val, rec.f[i].vallen, 0);
	free(line);
}

/* ---------------------------------------------- 4. gzip reads the same */

/* Append data as one gzip member to *out (realloc'd). */
static void
gzip_member(const uint8_t *data, size_t size, unsigned char **out,
    size_t *len)
{
	z_stream zs;
	size_t cap = *len + deflateBound(NULL, (uLong)size) + 64;

	if ((*out = realloc(*out, cap)) == NULL)
		abort();
	memset(&zs, 0, sizeof zs);
	if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	zs.next_in = (unsigned char *)(uintptr_t)data;
	zs.avail_in = (uInt)size;
	zs.next_out = *out + *len;
	zs.avail_out = (uInt)(cap - *len);
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		abort();
	*len = cap - zs.avail_out;
	deflateEnd(&zs);
}

static void
gzip_same_lines(const uint8_t *data, size_t size)
{
	unsigned char *gz = NULL;
	size_t gzlen = 0, split = size > 0 ? data[0] * size / 256 : 0;
	struct tp_err err1, err2;
	struct tp_in in1, in2;
	char *l1, *l2;
	size_t n1, n2;
	int r1, r2;

	/* Input that starts with gzip's magic is gzip to the plain reader
	   too (by design: a cut header is a cut gzip stream). */
	if (fuzz_is_gzip(data, size))
		return;
	gzip_member(data, split > 0 ? split : size, &gz, &gzlen);
	if (split > 0)
		gzip_member(data + split, size - split, &gz, &gzlen);
	tp_err_clear(&err1);
	tp_err_clear(&err2);
	if (tp_in_open_mem(&in1, data, size, "plain", &err1) < 0 ||
	    tp_in_open_mem(&in2, gz, gzlen, "gzip", &err2) < 0)
		abort();
	do {
		r1 = tp_in_line(&in1, &l1, &n1);
		r2 = tp_in_line(&in2, &l2, &n2);
		if (r1 != r2 || (r1 > 0 && (n1 != n2 ||
		    memcmp(l1, l2, n1) != 0)))
			abort();	/* gzip input reads differently */
	} while (r1 > 0);
	if (tp_in_close(&in2) < 0 || tp_in_offset(&in1) != size)
		abort();
	tp_in_close(&in1);
	free(gz);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tr_rec rec;
	struct tp_err err;
	struct tp_in in;
	struct tr_reader rd;
	char *line;
	size_t len;

	tp_err_clear(&err);
	if (tp_in_open_mem(&in, data, size, "fuzz", &err) < 0)
		return 0;
	tr_init(&rd, &in);
	while (tr_line(&rd, &line, &len) > 0) {
		if (tr_parse(&rd, line, len, &rec) <= 0) {
			tp_err_clear(&err);
			continue;
		}
		read_every_way(&rd, &rec);
		round_trip(&rec);
	}
	tp_in_close(&in);
	write_then_read(data, size);
	gzip_same_lines(data, size);
	return 0;
}
