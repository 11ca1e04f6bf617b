/*
 * dial9 schema inference: the field type a value's text suggests, and
 * whether a value fits a type inferred before.  txt2dial9 makes a schema
 * so for an event whose stream has none (another format's events, a
 * stream filtered of its schema records), and takes a later event of
 * the same name under it only while its values fit.
 */
#include <stdint.h>
#include <string.h>

#include "base/digits.h"
#include "formats/dial9/dial9-private.h"

int
dial9_hex_pairs(const char *s, size_t n)
{
	size_t i;

	if (n % 2 != 0)
		return 0;
	for (i = 0; i < n; i++)
		if (tp_hexval(s[i]) < 0)
			return 0;
	return 1;
}

static int
span_is(const struct tr_field *f, const char *w)
{
	size_t n = strlen(w);

	return f->vallen == n && memcmp(f->val, w, n) == 0;
}

static int
looks_float(const char *s, size_t n)
{
	size_t i;

	if ((n == 3 && memcmp(s, "nan", 3) == 0) || (n > 4 &&
	    memcmp(s, "nan:", 4) == 0) || (n == 3 && memcmp(s, "inf", 3) == 0) ||
	    (n == 4 && memcmp(s, "-inf", 4) == 0))
		return 1;
	for (i = 0; i < n; i++)
		if (s[i] == '.' || ((s[i] == 'e' || s[i] == 'E') && i + 1 < n &&
		    (s[i + 1] == '+' || s[i + 1] == '-')))
			return 1;
	return 0;
}

unsigned
dial9_infer_type(const struct tr_field *f)
{
	const char *s = f->val, *cur, *v;
	size_t n = f->vallen, vl;
	uint64_t u;
	int64_t i;

	if (tr_is_null(f))
		return 0;
	if (n == 0)
		return T_BYTES;
	if (s[0] == '"')
		return T_STRING;
	if (s[0] == '{')
		return T_SMAP;
	if (s[0] == '[') {
		cur = s;
		if (tr_elem(&cur, s + n, NULL, NULL, &v, &vl) <= 0)
			return T_STACK;
		return v[0] == '{' ? T_LIST : v[0] == '[' ? T_MAP : T_STACK;
	}
	if (span_is(f, "true") || span_is(f, "false"))
		return T_BOOL;
	if (tp_parse_u64(s, n, &u) == 0)
		return T_VARINT;
	if (tp_parse_i64(s, n, &i) == 0)
		return T_I64;
	if (looks_float(s, n))
		return T_F64;
	if (dial9_hex_pairs(s, n))
		return T_BYTES;
	return T_STRING;
}

int
dial9_fits(unsigned t, const struct tr_field *f)
{
	unsigned got = dial9_infer_type(f);
	uint64_t u;

	if (got == 0)
		return (t & OPT) != 0;
	t &= ~OPT;
	if (got == t)
		return 1;
	if (span_is(f, "[]"))		/* an empty list of any kind */
		return t == T_STACK || t == T_PSTACK || t == T_LIST || t == T_MAP;
	switch (t) {
	case T_U8:
	case T_U16:
	case T_U32:
		return got == T_VARINT && tp_parse_u64(f->val, f->vallen, &u) == 0 &&
		    u <= (t == T_U8 ? 0xffu : t == T_U16 ? 0xffffu : 0xffffffffu);
	case T_I64:
		return got == T_VARINT && f->val[0] != '0' ?
		    tp_parse_u64(f->val, f->vallen, &u) == 0 && u <= INT64_MAX :
		    got == T_VARINT;
	case T_F64:
		return got == T_VARINT || got == T_I64;
	case T_PSTRING:
		return got == T_STRING;
	case T_PSTACK:
		return got == T_STACK;
	case T_STRING:
		return got == T_BYTES && f->vallen > 0;	/* a bare word */
	}
	return 0;
}
