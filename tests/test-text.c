/*
 * Unit tests of the text record writer and reader: every value type
 * written, read back exactly, escapes, malformed lines with their line and
 * column, and the filters' fast field lookup.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "text/text.h"
#include "tap.h"

static struct tp_out out;

/* What has been written since the last call, as a C string. */
static const char *
written(void)
{
	static char buf[1 << 16];
	size_t n = out.len < sizeof buf - 1 ? out.len : sizeof buf - 1;

	memcpy(buf, out.buf, n);
	buf[n] = '\0';
	out.len = 0;
	return buf;
}

/* Parse one line held in s; returns tr_parse's result. */
static struct tp_in in;
static struct tp_err err;
static struct tr_reader rd;
static struct tr_rec rec;

static int
parse(const char *s)
{
	char *line;
	size_t len;

	tp_in_close(&in);	/* the previous line's input; closing twice is safe */
	tp_err_clear(&err);
	tp_in_open_mem(&in, s, strlen(s), "t", &err);
	tr_init(&rd, &in);
	if (tr_line(&rd, &line, &len) <= 0)
		return -2;
	return tr_parse(&rd, line, len, &rec);
}

static void
test_writer(void)
{
	static const unsigned char bin[] = { 0x48, 0x89, 0xe5, 0x00, 0xff };
	static const char odd[] = "a \"q\" \\ \n\r\t\x01\x7f\xc3\xa9\xff\xe0\x80";

	tw_begin(&out, "insn");
	tw_u64(&out, "seq", 0);
	tw_u64(&out, "tid", UINT64_MAX);
	tw_hex(&out, "pc", 0x401000);
	tw_hex(&out, "z", 0);
	tw_i64(&out, "neg", INT64_MIN);
	tw_bytes(&out, "bytes", bin, sizeof bin);
	tw_bytes(&out, "empty", bin, 0);
	tw_end(&out);
	is_str(written(), "insn seq=0 tid=18446744073709551615 pc=0x401000 z=0x0 "
	    "neg=-9223372036854775808 bytes=4889e500ff empty=\n",
	    "integers, hex and bytes");

	tw_begin(&out, "s");
	tw_str(&out, "bare", "C:/x_y.z@1%+#-", 14);
	tw_str(&out, "sp", "a b", 3);
	tw_str(&out, "empty", "", 0);
	tw_str(&out, "t", "true", 4);
	tw_qstr(&out, "q", "abc", 3);
	tw_str(&out, "odd", odd, sizeof odd - 1);
	tw_end(&out);
	is_str(written(), "s bare=C:/x_y.z@1%+#- sp=\"a b\" empty=\"\" t=\"true\" "
	    "q=\"abc\" odd=\"a \\\"q\\\" \\\\ \\n\\r\\t\\x01\\x7f\xc3\xa9\\xff\\xe0\\x80\"\n",
	    "strings: bare, quoted, escapes, UTF-8 kept, invalid UTF-8 as \\x");

	tw_begin(&out, "v");
	tw_bool(&out, "y", 1);
	tw_bool(&out, "n", 0);
	tw_null(&out, "nil");
	tw_f64(&out, "f", 0.1);
	tw_f64(&out, "one", 1.0);
	tw_f64(&out, "mz", -0.0);
	tw_f64(&out, "big", 1e300);
	tw_f64(&out, "inf", INFINITY);
	tw_f64(&out, "ninf", -INFINITY);
	tw_f64(&out, "nan", NAN);
	tw_end(&out);
	is_str(written(), "v y=true n=false nil=null f=0.1 one=1.0 mz=-0.0 "
	    "big=1e+300 inf=inf ninf=-inf nan=nan\n", "bool, null, floats");

	tw_begin(&out, "n");
	tw_key(&out, "stack");
	tv_open_list(&out);
	tv_hex(&out, 0x10);
	tv_sep(&out);
	tv_qstr(&out, "x,y", 3);
	tv_sep(&out);
	tv_open_map(&out);
	tv_mapkey(&out, "k", 1);
	tv_i64(&out, -1);
	tv_sep(&out);
	tv_mapkey(&out, "a:b", 3);
	tv_null(&out);
	tv_close_map(&out);
	tv_sep(&out);
	tv_open_list(&out);
	tv_close_list(&out);
	tv_close_list(&out);
	tw_end(&out);
	is_str(written(), "n stack=[0x10,\"x,y\",{k:-1,\"a:b\":null},[]]\n",
	    "nested lists and maps");
}

static void
test_reader_values(void)
{
	const struct tr_field *f;
	uint64_t u;
	int64_t i;
	int b;
	double d;
	unsigned char buf[64];
	size_t n;

	ok(parse("insn seq=7 pc=0x401000 big=18446744073709551615 "
	    "neg=-42 bytes=4889e5 s=\"a\\\"b\\\\c\\n\\x00\\xff\" e= t=true\n") == 1,
	    "a record parses");
	ok(rec.kindlen == 4 && memcmp(rec.kind, "insn", 4) == 0 && rec.nf == 8,
	    "kind and field count");
	ok(tr_get_u64(&rd, &rec, "seq", &u, 1) == 1 && u == 7, "decimal");
	ok(tr_get_u64(&rd, &rec, "pc", &u, 1) == 1 && u == 0x401000, "hex");
	ok(tr_get_u64(&rd, &rec, "big", &u, 1) == 1 && u == UINT64_MAX,
	    "largest u64");
	ok(tr_get_u64(&rd, &rec, "nope", &u, 0) == 0, "absent optional field");
	f = tr_find(&rec, "neg");
	ok(f && tr_i64(&rd, &rec, f, &i) == 0 && i == -42, "signed");
	ok(f && tr_u64(&rd, &rec, f, &u) < 0 &&
	    strstr(err.msg, "negative") != NULL && err.line == 1 && err.col == 53,
	    "negative where unsigned: error with column (%s, col %llu)", err.msg,
	    (unsigned long long)err.col);
	tp_err_clear(&err);
	f = tr_find(&rec, "bytes");
	ok(f && tr_bytes(&rd, &rec, f, buf, sizeof buf, &n) == 0 && n == 3 &&
	    memcmp(buf, "\x48\x89\xe5", 3) == 0, "bytes");
	ok(f && tr_bytes(&rd, &rec, f, buf, 2, &n) < 0, "bytes over capacity");
	tp_err_clear(&err);
	f = tr_find(&rec, "s");
	ok(f && tr_str(&rd, &rec, f, buf, sizeof buf, &n) == 0 && n == 8 &&
	    memcmp(buf, "a\"b\\c\n\0\xff", 8) == 0, "quoted string unescaped");
	f = tr_find(&rec, "e");
	ok(f && f->vallen == 0 && tr_bytes(&rd, &rec, f, buf, 4, &n) == 0 &&
	    n == 0, "empty value is empty bytes");
	f = tr_find(&rec, "t");
	ok(f && tr_bool(&rd, &rec, f, &b) == 0 && b == 1, "bool");
	ok(tr_get_u64(&rd, &rec, "missing", &u, 1) < 0 &&
	    strstr(err.msg, "without field \"missing\"") != NULL,
	    "required field missing");
	tp_err_clear(&err);

	ok(parse("x n=12x\n") == 1 && tr_get_u64(&rd, &rec, "n", &u, 1) < 0 &&
	    strcmp(err.msg, "field \"n\": \"12x\": not an unsigned 64-bit number")
	    == 0, "bad number message: %s", err.msg);
	ok(parse("x n=18446744073709551616 h=0x10000000000000000\n") == 1 &&
	    tr_get_u64(&rd, &rec, "n", &u, 1) < 0, "decimal overflow");
	tp_err_clear(&err);
	ok(tr_get_u64(&rd, &rec, "h", &u, 1) < 0, "hex overflow");
	tp_err_clear(&err);
	/* Up to 19 digits take the path without an overflow check. */
	ok(tp_parse_u64("9999999999999999999", 19, &u) == 0 &&
	    u == UINT64_C(9999999999999999999), "19 digits");
	ok(tp_parse_u64("123456789012345678x", 19, &u) < 0,
	    "19 characters, one not a digit");
	ok(tp_parse_u64("00000000000000000001", 20, &u) == 0 && u == 1,
	    "20 digits with leading zeros");
	ok(tp_parse_u64("18446744073709551615", 20, &u) == 0 &&
	    u == UINT64_MAX && tp_parse_u64("18446744073709551616", 20, &u) < 0 &&
	    tp_parse_u64("99999999999999999999", 20, &u) < 0,
	    "20 digits: the largest u64, one more, and far more");
	ok(tp_parse_u64("0xffffffffffffffff", 18, &u) == 0 && u == UINT64_MAX &&
	    tp_parse_u64("0x000000000000000000ff", 22, &u) == 0 && u == 255 &&
	    tp_parse_u64("0x1ffffffffffffffff", 19, &u) < 0 &&
	    tp_parse_u64("0xfffffffffffffffg", 18, &u) < 0 &&
	    tp_parse_u64("0x7ff6a00010 0", 14, &u) < 0 &&
	    tp_parse_u64("0xAbC", 5, &u) == 0 && u == 0xabc &&
	    tp_parse_u64("0x", 2, &u) < 0,
	    "hex: 16 digits, leading zeros past 16, 17 digits, a bad digit "
	    "last or inside, upper case, no digits");
	{
		/*
		 * 9 to 16 digits go eight at a time: every length, every
		 * position, against strtoull; each byte that is no hex
		 * digit (those next to the ranges, controls that look like
		 * digits once lower-cased, bytes from 0x80) refused there.
		 */
		static const unsigned char badc[] = { 0x10, 0x19, '/', ':',
		    '@', 'G', '`', 'g', 0x80, 0xb0, 0xe1, 0xff, ' ', '=' };
		const char *digs = "0123456789abcdefABCDEF";
		char hx[20];
		unsigned seed = 1, fails = 0;
		for (size_t m = 1; m <= 16; m++)
			for (int t = 0; t < 200; t++) {
				hx[0] = '0', hx[1] = 'x';
				for (size_t j = 0; j < m; j++) {
					seed = seed * 1103515245u + 12345u;
					hx[2 + j] = digs[(seed >> 16) % 22];
				}
				hx[2 + m] = '\0';
				if (tp_parse_u64(hx, m + 2, &u) != 0 ||
				    u != strtoull(hx, NULL, 16))
					fails++;
				for (size_t k = 0; k < sizeof badc; k++) {
					char save = hx[2 + t % m];
					hx[2 + t % m] = (char)badc[k];
					fails += tp_parse_u64(hx, m + 2, &u) == 0;
					hx[2 + t % m] = save;
				}
			}
		ok(fails == 0, "hex of 1 to 16 digits as strtoull reads them, "
		    "a byte that is no digit refused anywhere (%u wrong)", fails);
	}
	ok(parse("x f=1e+300 g=-0.0 n=nan:0x7ff0000000000001 i=-inf\r\n") == 1,
	    "floats parse, CRLF accepted");
	f = tr_find(&rec, "f");
	ok(f && tr_f64(&rd, &rec, f, &d) == 0 && d == 1e300, "float");
	f = tr_find(&rec, "g");
	ok(f && tr_f64(&rd, &rec, f, &d) == 0 && d == 0 && signbit(d),
	    "negative zero");
	f = tr_find(&rec, "n");
	ok(f && tr_f64(&rd, &rec, f, &d) == 0 && isnan(d) &&
	    memcmp(&d, &(uint64_t){ UINT64_C(0x7ff0000000000001) }, 8) == 0,
	    "NaN payload");
	f = tr_find(&rec, "i");
	ok(f && tr_f64(&rd, &rec, f, &d) == 0 && isinf(d) && d < 0, "-inf");
	tp_in_close(&in);
}

/* Every value written reads back to the same value. */
static void
test_roundtrip(void)
{
	uint64_t seed = 88172645463325252ULL;
	int i, bad_f = 0, bad_s = 0, bad_i = 0;
	static char text[1 << 16];

	for (i = 0; i < 2000; i++) {
		uint64_t bits, u;
		double d, back;
		unsigned char s[40], got[40];
		size_t n, k, j;
		int64_t sv, sback;
		const struct tr_field *f;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		bits = seed;
		memcpy(&d, &bits, 8);
		n = seed % 40;
		for (j = 0; j < n; j++) {
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			s[j] = (unsigned char)(seed % 7 == 0 ? seed >> 8 :
			    (seed % 5 == 0 ? ' ' : 'a' + seed % 26));
		}
		sv = (int64_t)bits;
		tw_begin(&out, "r");
		tw_f64(&out, "f", d);
		tw_str(&out, "s", s, n);
		tw_i64(&out, "i", sv);
		tw_hex(&out, "h", bits);
		tw_end(&out);
		strcpy(text, written());
		if (parse(text) != 1) {
			bad_s++;
			continue;
		}
		f = tr_find(&rec, "f");
		if (tr_f64(&rd, &rec, f, &back) < 0 ||
		    memcmp(&back, &d, 8) != 0)
			bad_f++;
		f = tr_find(&rec, "s");
		if (n == 0) {
			if (f->vallen != 2)
				bad_s++;
		} else if (tr_str(&rd, &rec, f, got, sizeof got, &k) < 0 ||
		    k != n || memcmp(got, s, n) != 0) {
			bad_s++;
		}
		if (tr_i64(&rd, &rec, tr_find(&rec, "i"), &sback) < 0 ||
		    sback != sv || tr_u64(&rd, &rec, tr_find(&rec, "h"), &u) < 0 ||
		    u != bits)
			bad_i++;
		tp_in_close(&in);
	}
	ok(bad_f == 0, "2000 random float bit patterns round-trip (%d bad)", bad_f);
	ok(bad_s == 0, "2000 random byte strings round-trip (%d bad)", bad_s);
	ok(bad_i == 0, "2000 random integers round-trip (%d bad)", bad_i);
}

/*
 * A key twice, in a record of as many keys as x64dbg's full register
 * dump and of the shapes its keys have (xmm3_1, r10, regarea7): each key
 * of the record given again at its end is found, at its column; the
 * record without it parses.
 */
static void
test_duplicates(void)
{
	static char line[8192];
	size_t n = 0, at[TR_MAXFIELDS], i;
	int nk = 0, missed = 0, rc;

	n += (size_t)sprintf(line + n, "insn");
	for (i = 0; i < 16; i++)
		for (int j = 0; j < 4; j++, nk++) {
			at[nk] = n + 1;
			n += (size_t)sprintf(line + n, " ymm%zu_%d=0x%zx", i, j, i);
		}
	for (i = 0; i < 100; i++, nk++) {
		at[nk] = n + 1;
		n += (size_t)sprintf(line + n, " %s%zu=%zu", i % 3 ? "r" :
		    "regarea", i, i);
	}
	rc = parse(line);
	ok(rc == 1 && rec.nf == (size_t)nk, "a record of %d keys, none twice",
	    nk);
	tp_in_close(&in);
	for (i = 0; i < (size_t)nk; i++) {
		size_t klen = strcspn(line + at[i], "=");
		line[n] = ' ';
		memmove(line + n + 1, line + at[i], klen);
		memcpy(line + n + 1 + klen, "=1", 3);
		rc = parse(line);
		if (rc != -1 || err.col != n + 2 ||
		    strstr(err.msg, "twice in one record") == NULL)
			missed++;
		tp_in_close(&in);
	}
	ok(missed == 0, "each of its keys given again at its end is refused, "
	    "at its column (%d missed)", missed);
	/* 20 keys that all differ in first byte, then one again. */
	rc = parse("insn a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1 j=1 k=1 l=1 m=1 "
	    "n=1 o=1 p=1 q=1 r=1 s=1 t=1 c=2");
	ok(rc == -1 && err.col == 86, "and where it is the first key to "
	    "meet another (col %llu)", (unsigned long long)err.col);
	tp_in_close(&in);
}

static void
test_malformed(void)
{
	static const struct {
		const char *line;
		unsigned col;
		const char *msg;
	} cases[] = {
		{ "insn seq", 9, "expected key=value" },
		{ "insn =5", 6, "expected key=value" },
		{ "insn s=\"abc", 12, "unterminated string" },
		{ "insn s=\"a\\qb\"", 10, "unknown escape in string" },
		{ "insn s=\"a\\x4g\"", 10, "bad \\x escape" },
		{ "insn s=a\"b", 9, "unexpected character in value" },
		{ "insn l=[1,2", 12, "expected ',' or ']'" },
		{ "insn l=[1,,2]", 11, "missing value in list or map" },
		{ "insn m={a:1,b}", 14, "expected key: in map" },
		{ "in$n a=1", 3, "bad record kind" },
		{ "insn a=\"x\"y", 11, "expected a blank after the value" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = parse(cases[i].line);
		ok(rc == -1 && err.line == 1 && err.col == cases[i].col &&
		    strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) == 0,
		    "malformed '%s': col %u %s (got rc %d col %llu: %s)",
		    cases[i].line, cases[i].col, cases[i].msg, rc,
		    (unsigned long long)err.col, err.msg);
		tp_in_close(&in);
	}
	test_duplicates();
	ok(parse("  # a comment\n") == 0, "comment line");
	tp_in_close(&in);
	ok(parse("   \n") == 0, "blank line");
	tp_in_close(&in);
}

static void
test_lines(void)
{
	static const char text[] = "a x=1\n# c\r\n\nb y=2\r\nc z=3";
	int kinds = 0, rc;
	char seen[8] = "";

	tp_err_clear(&err);
	tp_in_open_mem(&in, text, sizeof text - 1, "t", &err);
	tr_init(&rd, &in);
	while ((rc = tr_next(&rd, &rec)) == 1)
		seen[kinds++] = rec.kind[0];
	ok(rc == 0 && kinds == 3 && strcmp(seen, "abc") == 0 && rd.lineno == 5,
	    "records across comment, blank, CRLF and a last line without newline");
	tp_in_close(&in);
}

static void
test_elem_and_peek(void)
{
	const char *cur, *k, *v;
	size_t kl, vl;
	int n = 0;
	static const char line[] =
	    "event ts=5 name=\"a tid=42 b\" tid=7 m={x:[1,2],\"y z\":\"q\"}";

	ok(parse(line) == 1, "nested record parses");
	cur = tr_find(&rec, "m")->val;
	while (tr_elem(&cur, rec.line + rec.len, &k, &kl, &v, &vl))
		n++;
	ok(n == 2, "two map elements");
	cur = tr_find(&rec, "m")->val;
	ok(tr_elem(&cur, rec.line + rec.len, &k, &kl, &v, &vl) &&
	    kl == 1 && *k == 'x' && vl == 5 && memcmp(v, "[1,2]", 5) == 0,
	    "first map element is x:[1,2]");
	tp_in_close(&in);

	/* A list is walked without keys: its elements may hold a ':'. */
	ok(parse("e l=[nan:0x7ff0000000000001,http://a/b,{k:1}]") == 1,
	    "list of bare words with ':' parses");
	cur = tr_find(&rec, "l")->val;
	n = 0;
	while (tr_elem(&cur, rec.line + rec.len, NULL, NULL, &v, &vl))
		n++;
	ok(n == 3, "list elements walked without keys");
	cur = tr_find(&rec, "l")->val;
	ok(tr_elem(&cur, rec.line + rec.len, NULL, NULL, &v, &vl) &&
	    vl == 22 && memcmp(v, "nan:0x7ff0000000000001", 22) == 0 &&
	    tr_elem(&cur, rec.line + rec.len, NULL, NULL, &v, &vl) &&
	    vl == 10 && memcmp(v, "http://a/b", 10) == 0,
	    "a list element with ':' is not split into key and value");
	tp_in_close(&in);

	ok(tr_peek(line, strlen(line), "tid", 3, &v, &vl) == 1 && vl == 1 &&
	    *v == '7', "peek skips a quoted ' tid=42'");
	ok(tr_peek("read tid=42 addr=0x10", 21, "addr", 4, &v, &vl) == 1 &&
	    vl == 4 && memcmp(v, "0x10", 4) == 0, "peek fast path");
	ok(tr_peek("read tid=42", 11, "pc", 2, &v, &vl) == 0, "peek absent");
	ok(tr_peek("read xtid=1 tid=2", 17, "tid", 3, &v, &vl) == 1 &&
	    *v == '2', "peek matches whole keys only");
	ok(tr_peek("read\ttid=3", 10, "tid", 3, &v, &vl) == 1 && *v == '3',
	    "peek with tabs");

	/* tr_peek_once reads on: a second key anywhere, a quoted one not. */
	{
		static const char *const keys[2] = { "pc", "addr" };
		static const size_t lens[2] = { 2, 4 };
		const char *vv[2], *dup;
		size_t vvl[2];
		char buf[128];
		int pad, bad = 0;

		for (pad = 0; pad < 40; pad++) {
			int len = snprintf(buf, sizeof buf, "read tid=1 s=\"a "
			    "tid=2\" p=%.*s\ttid=3", pad,
			    "0123456789012345678901234567890123456789");
			if (!tr_peek_once(buf, (size_t)len, "tid", 3, &v, &vl,
			    &dup) || *v != '1' || dup != buf + len - 5)
				bad++;
			if (!tr_peek_once(buf, (size_t)len - 6, "tid", 3, &v,
			    &vl, &dup) || dup != NULL)
				bad++;
		}
		ok(bad == 0, "peek_once: the second key at every offset, "
		    "none in a quoted value");
		ok(tr_peekn_once("w pc=1 addr=2 pc=3", 18, keys, lens, 2, vv,
		    vvl, &dup) == 3 && dup != NULL && memcmp(dup, "pc=3", 4) == 0,
		    "peekn_once: pc twice");
		ok(tr_peekn_once("w pc=1 x=2", 10, keys, lens, 2, vv, vvl,
		    &dup) == 1 && dup == NULL, "peekn_once: addr absent, no dup");
		dup = "x";
		{
			static const char l[] = "w s=\"ab tid=1";
			struct tp_err e;
			tp_err_clear(&e);
			/* The fields after it are out of sight: *dup names the
			   bad value, and tr_dup_fail the reader's reason. */
			ok(tr_peek_once(l, 14, "tid", 3, &v, &vl, &dup) == 0 &&
			    dup == l + 4 && tr_dup_fail(&e, 1, l, 14, dup) < 0 &&
			    strcmp(e.msg, "unterminated string") == 0 &&
			    e.col == 15,
			    "peek_once: a quote never closed: refused, with why");
		}
	}
}

/* The table-driven formatters agree with printf on every digit count. */
static void
test_fmt(void)
{
	uint64_t v = 1;
	char a[48], b[48];
	int i, bad_hex = 0, bad_dec = 0, bad_wide = 0;

	for (i = 0; i < 200000; i++) {
		uint64_t x;
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
		x = i < 65 ? (i == 64 ? 0 : UINT64_C(1) << i) - (i & 1) :
		    v >> (v % 64);
		*tp_fmt_hex(a, x) = '\0';
		snprintf(b, sizeof b, "0x%llx", (unsigned long long)x);
		bad_hex += strcmp(a, b) != 0;
		/* The wide one: the same digits, nothing written past 18. */
		memset(a, '#', sizeof a);
		{
			char *e = tp_fmt_hex_wide(a, x);
			bad_wide += a[18] != '#';
			*e = '\0';
		}
		bad_wide += strcmp(a, b) != 0;
		*tp_fmt_i64(a, (int64_t)x) = '\0';
		snprintf(b, sizeof b, "%lld", (long long)x);
		bad_dec += strcmp(a, b) != 0;
	}
	ok(bad_hex == 0, "tp_fmt_hex agrees with printf %%#llx (%d bad)", bad_hex);
	ok(bad_wide == 0, "tp_fmt_hex_wide agrees with printf %%#llx and "
	    "stays within 18 bytes (%d bad)", bad_wide);
	ok(bad_dec == 0, "tp_fmt_i64 agrees with printf %%lld (%d bad)", bad_dec);
	/* Each number of digits and the 8-digit pieces' edges. */
	bad_dec = 0;
	for (v = 1, i = 0; i < 20; i++, v *= 10) {
		int k;
		for (k = -2; k <= 2; k++) {
			uint64_t x = v + (uint64_t)(int64_t)k;
			*tp_fmt_u64(a, x) = '\0';
			snprintf(b, sizeof b, "%llu", (unsigned long long)x);
			bad_dec += strcmp(a, b) != 0;
		}
	}
	for (v = 0; v < 100000; v++) {
		*tp_fmt_u64(a, v * 1000003) = '\0';
		snprintf(b, sizeof b, "%llu", (unsigned long long)v * 1000003);
		bad_dec += strcmp(a, b) != 0;
		*tp_fmt_u64(a, v) = '\0';
		snprintf(b, sizeof b, "%llu", (unsigned long long)v);
		bad_dec += strcmp(a, b) != 0;
	}
	*tp_fmt_u64(a, UINT64_MAX) = '\0';
	bad_dec += strcmp(a, "18446744073709551615") != 0;
	ok(bad_dec == 0, "tp_fmt_u64 at every power of ten, below 10^5, "
	    "10^5 multiples of 1000003 and 2^64-1 (%d bad)",
	    bad_dec);
}

/*
 * tp_fmt_qbody against a byte-at-a-time escaper: one special byte at each
 * position of a plain string, across the 8-byte steps of the fast scan.
 */
static void
test_qbody(void)
{
	static const unsigned char special[] = {
		0x00, 0x09, 0x0a, 0x0d, 0x1f, '"', '\\', 0x7f, 0x80, 0xc3, 0xff
	};
	char got[128], want[128];
	unsigned char src[24];
	size_t len, pos, k, used;
	int bad = 0;

	for (len = 0; len <= sizeof src; len++)
		for (pos = 0; pos <= len; pos++)
			for (k = 0; k < sizeof special; k++) {
				char *w = want, *e;
				size_t i;
				for (i = 0; i < len; i++)
					src[i] = (unsigned char)(' ' + (i * 7 + k) % 95);
				if (pos < len)
					src[pos] = special[k];
				for (i = 0; i < len; i++) {
					unsigned c = src[i];
					if (c == '"' || c == '\\')
						w += sprintf(w, "\\%c", c);
					else if (c >= 0x20 && c < 0x7f)
						*w++ = (char)c;
					else if (c == '\n' || c == '\r' || c == '\t')
						w += sprintf(w, "\\%c", c == '\n' ? 'n' :
						    c == '\r' ? 'r' : 't');
					else
						w += sprintf(w, "\\x%02x", c);
				}
				e = tp_fmt_qbody(got, got + sizeof got - 8, src, len,
				    &used);
				bad += used != len || (size_t)(e - got) != (size_t)(w - want) ||
				    memcmp(got, want, (size_t)(w - want)) != 0;
			}
	ok(bad == 0, "tp_fmt_qbody: one byte to escape at every position of "
	    "strings up to 24 bytes (%d bad)", bad);
}

/* Losses count per cause, the first of each kept, later causes together. */
static void
test_losses(void)
{
	static const char text[] = "a\nb\nc\nd\n";
	static const char *const causes[] = { "c0", "c1", "c2", "c3", "c4",
	    "c5", "c6", "c7", "c8", "c9" };
	struct tr_skips sk = { .cannot = "not here" };
	char other[] = "c0";
	unsigned i;
	int rc;

	tp_err_clear(&err);
	tp_in_open_mem(&in, text, sizeof text - 1, "t", &err);
	tr_init(&rd, &in);
	rc = tr_next(&rd, &rec);
	ok(rc == 1 && tr_lose(&rd, &rec, &sk, "c0", "first %d", 1) == 0,
	    "a loss is counted");
	rc = tr_next(&rd, &rec);
	/* Equal text at another address is the same cause. */
	tr_lose(&rd, &rec, &sk, other, "second");
	for (i = 1; i < 10; i++)
		tr_lose(&rd, &rec, &sk, causes[i], "cause %u", i);
	ok(sk.nlost == TR_CAUSES && sk.lost[0].count == 2 &&
	    sk.lost[0].first_line == 1 && strcmp(sk.lost[0].first_why,
	    "first 1") == 0, "equal causes count together, first kept");
	ok(sk.lost[TR_CAUSES].count == 2 &&
	    strcmp(sk.lost[TR_CAUSES].cause, "other changes") == 0 &&
	    strcmp(sk.lost[TR_CAUSES].first_why, "cause 8") == 0,
	    "causes past the first eight are counted together");
	ok(sk.count == 0, "a loss is not a skip");
	sk.strict = 1;
	rc = tr_next(&rd, &rec);
	ok(tr_lose(&rd, &rec, &sk, "c1", "bad") == -1 &&
	    strstr(err.msg, "bad: c1") != NULL && sk.lost[1].count == 1,
	    "under strict a loss is an error naming it");
	tp_in_close(&in);
}

/*
 * Skips count per cause (the text of their why), as losses do: two
 * causes are two counts, each with its first line; a format's structure
 * is counted as rebuilt, not as skipped.
 */
static void
test_skips(void)
{
	static const char text[] = "insn pc=1\nread addr=2\ninsn pc=3\n"
	    "dial9-schema id=1\ndial9-schema id=2\nwtf-define x=1\n"
	    "ucir-map addr=1\n";
	struct tr_skips sk = { .cannot = "not here" };
	int i, rebuilt = 0, skipped = 0;

	tp_err_clear(&err);
	tp_in_open_mem(&in, text, sizeof text - 1, "t", &err);
	tr_init(&rd, &in);
	while (tr_next(&rd, &rec) == 1) {
		if (tr_rebuilt(&sk, &rec))
			rebuilt++;
		else if (tr_skip(&rd, &rec, &sk, "record kind \"%.*s\"",
		    (int)rec.kindlen, rec.kind) == 0)
			skipped++;
	}
	ok(rebuilt == 3 && skipped == 4 && sk.count == 4,
	    "structure is rebuilt, the rest skipped");
	ok(sk.nskip == 3 && sk.skip[0].count == 2 &&
	    sk.skip[0].first_line == 1 &&
	    strcmp(sk.skip[0].first_why, "record kind \"insn\"") == 0 &&
	    sk.skip[1].count == 1 && sk.skip[1].first_line == 2 &&
	    strcmp(sk.skip[1].first_why, "record kind \"read\"") == 0 &&
	    sk.skip[2].count == 1 && sk.skip[2].first_line == 7,
	    "two causes of skips are two counts, each with its first line");
	ok(sk.nrebuilt == 2 && sk.rebuilt[0].count == 2 &&
	    strcmp(sk.rebuilt[0].kind, "dial9-schema") == 0 &&
	    sk.rebuilt[1].count == 1 &&
	    strcmp(sk.rebuilt[1].kind, "wtf-define") == 0,
	    "rebuilt structure counted by kind");
	tr_skip(&rd, &rec, &sk, "read with seq=%d at 0x%x", 5, 0x1000);
	tr_skip(&rd, &rec, &sk, "read with seq=%d at 0x%x", 19, 0xbeef);
	ok(sk.nskip == 4 && sk.skip[3].count == 2 &&
	    strcmp(sk.skip[3].first_why, "read with seq=5 at 0x1000") == 0,
	    "whys that differ only in their numbers are one cause");
	for (i = 0; i < 10; i++)
		tr_skip(&rd, &rec, &sk, "cause %c", 'a' + i);
	ok(sk.nskip == TR_CAUSES && sk.skip[TR_CAUSES].count == 6 &&
	    sk.skip[TR_CAUSES].cause != NULL &&
	    strcmp(sk.skip[TR_CAUSES].first_why, "cause e") == 0,
	    "skip causes past the first eight are counted together");
	tp_in_close(&in);
}

/*
 * On a text output (lines, as the decoders' is), a record whose text
 * outgrows the line limit the reader takes fails the output, a record
 * just under it does not: what a decoder writes, its encoder must read
 * (issue 27, point 4).  Written in 1 MiB pieces (past the buffer) and
 * in small ones (through it).
 */
static void
test_line_limit(void)
{
	static char chunk[1 << 20];
	struct tp_out o;
	size_t i;

	memset(chunk, 'a', sizeof chunk);
	tp_out_open_discard(&o);
	o.lines = 1;
	tw_begin(&o, "e");
	tp_out_puts(&o, " s=");
	for (i = 0; i < TP_LINE_MAX / sizeof chunk - 1; i++)
		tp_out_write(&o, chunk, sizeof chunk);
	tw_end(&o);
	ok(!tp_out_failed(&o), "a record just under 64 MiB is written");
	tw_begin(&o, "e");
	tp_out_puts(&o, " s=");
	for (i = 0; i < TP_LINE_MAX / sizeof chunk; i++)
		tp_out_write(&o, chunk, sizeof chunk);
	tw_end(&o);
	tp_out_flush(&o);
	ok(tp_out_failed(&o) && o.error == EFBIG &&
	    strcmp(o.failed, TP_OUT_TOO_LONG) == 0,
	    "a record over 64 MiB fails the output, saying why");
	free(o.buf);
	tp_out_open_discard(&o);
	o.lines = 1;
	tw_begin(&o, "e");
	for (i = 0; i < TP_LINE_MAX / 4096; i++)
		tp_out_write(&o, chunk, 4096);
	tp_out_putc(&o, 'a');
	tw_end(&o);
	tw_begin(&o, "e");
	tw_end(&o);
	tp_out_flush(&o);
	ok(tp_out_failed(&o), "the same, written through the buffer");
	free(o.buf);
}

int
main(void)
{
	tp_out_open_discard(&out);
	test_fmt();
	test_qbody();
	test_writer();
	test_reader_values();
	test_roundtrip();
	test_malformed();
	test_lines();
	test_elem_and_peek();
	test_losses();
	test_skips();
	test_line_limit();
	tp_in_close(&in);
	free(out.buf);
	return done_testing();
}
