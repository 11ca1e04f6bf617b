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

/*
 * dial9's float, older than tr_value_kind's and kept so that schemas are
 * inferred as before: nan, inf, or a '.' or a signed exponent, whether
 * or not the rest reads as a number (1e5 is a word here, 1.x a float).
 */
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

/*
 * A list: [[{type:key},{type:value}],...] is a dynamic map, a list of
 * addresses (0x..., as dial92txt writes stack frames) or an empty list a
 * stack (of no frame: an empty list again), and any other list (decimal
 * or negative numbers, floats, strings: another format's array) a
 * dynamic list, its elements typed as their text says.
 */
static unsigned
infer_list(const char *s, size_t n)
{
	const char *cur = s, *v, *c2, *v2;
	size_t vl, l2;
	uint64_t u;
	int first = 1;

	while (tr_elem(&cur, s + n, NULL, NULL, &v, &vl) > 0) {
		if (first && v[0] == '[') {
			c2 = v;
			if (tr_elem(&c2, v + vl, NULL, NULL, &v2, &l2) > 0 &&
			    v2[0] == '{')
				return T_MAP;
			return T_LIST;
		}
		first = 0;
		if (vl < 3 || v[0] != '0' || v[1] != 'x' ||
		    tp_parse_u64(v, vl, &u) < 0)
			return T_LIST;
	}
	return T_STACK;
}

/*
 * A map {k:v,...}: a string map while every value is a string (dial9's
 * own, as dial92txt writes it), else a dynamic map (another format's
 * object: WTF's any), its keys strings and its values typed as their
 * text says.
 */
static unsigned
infer_map(const char *s, size_t n)
{
	const char *cur = s, *k, *v;
	size_t kl, vl;

	while (tr_elem(&cur, s + n, &k, &kl, &v, &vl) > 0)
		switch (tr_value_kind(v, vl)) {
		case TR_STRING:
		case TR_WORD:
		case TR_EMPTY:
			break;
		default:
			return T_MAP;
		}
	return T_SMAP;
}

unsigned
dial9_infer_type(const struct tr_field *f)
{
	const char *s = f->val;
	size_t n = f->vallen;

	switch (tr_value_kind(s, n)) {
	case TR_NULL:
		return 0;
	case TR_EMPTY:
		return T_BYTES;
	case TR_STRING:
		return T_STRING;
	case TR_MAP:
		return infer_map(s, n);
	case TR_LIST:
		return infer_list(s, n);
	case TR_BOOL:
		return T_BOOL;
	case TR_UINT:
		return T_VARINT;
	case TR_INT:
		return T_I64;
	case TR_FLOAT:
		return T_F64;
	case TR_WORD:
		break;
	}
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
	/* an empty list of any kind */
	if (f->vallen == 2 && memcmp(f->val, "[]", 2) == 0)
		return t == T_STACK || t == T_PSTACK || t == T_LIST || t == T_MAP;
	switch (t) {
	case T_MAP:	/* a map of strings is a dynamic map too */
		return got == T_SMAP;
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
	case T_BYTES:
		/* bytes that look like a number stay bytes (12 after ab) */
		return got == T_VARINT && dial9_hex_pairs(f->val, f->vallen);
	}
	return 0;
}
