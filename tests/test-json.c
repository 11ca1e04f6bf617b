/*
 * The JSON module: the scanner (strict and Qt-lax), member walk, unescaping,
 * and the writer (escapes, serde_json's pretty layout), whose output the
 * scanner accepts and unescapes back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text/json.h"
#include "fuzz.h"
#include "tap.h"

static int
valid(const char *s, unsigned flags)
{
	struct tp_json j;
	return tp_json_check(&j, s, strlen(s), flags) == 0;
}

/* What the writer makes of fn's calls, NUL-terminated. */
static char *
written(void (*fn)(struct tp_jw *, struct tp_out *))
{
	struct tp_out *o = cap_begin();
	struct tp_jw w;
	size_t n;

	tp_jw_init(&w, o);
	fn(&w, o);
	return cap_take(&n);
}

static void
doc_empty(struct tp_jw *w, struct tp_out *o)
{
	(void)o;
	tp_jw_open_object(w);
	tp_jw_key(w, "a", 1);
	tp_jw_open_array(w);
	tp_jw_close_array(w);
	tp_jw_key(w, "m", 1);
	tp_jw_open_object(w);
	tp_jw_close_object(w);
	tp_jw_close_object(w);
}

static void
doc_nested(struct tp_jw *w, struct tp_out *o)
{
	(void)o;
	tp_jw_open_object(w);
	tp_jw_key(w, "rows", 4);
	tp_jw_open_array(w);
	tp_jw_open_object(w);
	tp_jw_key(w, "id", 2);
	tp_jw_u64(w, UINT64_MAX);
	tp_jw_key(w, "at", 2);
	tp_jw_open_object(w);
	tp_jw_key(w, "d", 1);
	tp_jw_i64(w, INT64_MIN);
	tp_jw_close_object(w);
	tp_jw_close_object(w);
	tp_jw_bool(w, 1);
	tp_jw_null(w);
	tp_jw_str(w, "x", 1);
	tp_jw_close_array(w);
	tp_jw_close_object(w);
}

static const char awkward[] = "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f \xc3\xa9 "
    "\xe2\x82\xac \xf0\x9f\x98\x80 \xff \xc3 \xed\xa0\x80 end";

static void
doc_string(struct tp_jw *w, struct tp_out *o)
{
	(void)o;
	tp_jw_str(w, awkward, sizeof awkward - 1);
}

int
main(void)
{
	static const char *const good[] = {
		"{}", "[]", " {\"a\" : [1, -0, 0.5, -1e+9, 2E-3, true, false, null]} ",
		"\"\\u00e9\\ud83d\\ude00\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "0", "-12.5e7",
		"{\"a\":{\"b\":{\"c\":[[],{}]}}}", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
	};
	static const char *const bad[] = {
		"", " ", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[1 2]",
		"01", "1.", ".5", "-", "1e", "+1", "tru", "nul", "{a:1}", "'a'",
		"\"a", "[1]x", "{} {}", "\"\\q\"", "\"\\u12g4\"", "\"\\u12\"",
		"\"a\tb\"", "{\"a\":1 \"b\":2}",
	};
	char deep[2100], buf[64];
	struct tp_json j;
	const char *cur, *k, *v, *ve, *doc;
	size_t i, kn, n;
	char *got;

	for (i = 0; i < sizeof good / sizeof good[0]; i++)
		ok(valid(good[i], 0), "valid: %s", good[i]);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ok(!valid(bad[i], 0), "invalid: '%s'", bad[i]);
	ok(valid("\"\\q\"", TP_JSON_LAX) && valid("\"a\tb\"", TP_JSON_LAX),
	    "lax (Qt): any escaped character, control characters in strings");
	ok(!valid("{\"a\":1,}", TP_JSON_LAX), "lax is still JSON's grammar");

	/* Qt's limit (x64dbg's reader): 1024 levels, not one more. */
	memset(deep, '[', 1024);
	memset(deep + 1024, ']', 1024);
	deep[2048] = '\0';
	ok(valid(deep, 0), "1024 levels of nesting");
	memset(deep, '[', 1025);
	memset(deep + 1025, ']', 1025);
	deep[2050] = '\0';
	ok(tp_json_check(&j, deep, 2050, 0) < 0 && j.status == TP_JSON_DEPTH &&
	    j.pos == 1024 && strstr(j.why, "deeper than 1024") != NULL,
	    "1025 levels of nesting are refused, at the 1025th '['");
	/* Each syntax error says what, at the byte it was found. */
	{
		static const struct { const char *doc; size_t pos; const char *why; } e[] = {
			{ "{\"a\" 1}", 5, "expected ':' after a key" },
			{ "{\"a\":1 \"b\":2}", 7, "expected ',' or '}'" },
			{ "[1 2]", 3, "expected ',' or ']'" },
			{ "{1:2}", 1, "expected a string key" },
			{ "[1,]", 3, "expected a value" },
			{ "[tru]", 1, "expected true, false or null" },
			{ "[01]", 1, "a malformed number" },
			{ "[\"ab", 1, "a string without its closing quote" },
			{ "[\"a\\qb\"]", 3, "an unknown escape in a string" },
			{ "[\"\\u12g4\"]", 2, "a \\u escape without four hex digits" },
			{ "[\"a\tb\"]", 3, "a control character in a string" },
			{ "{} x", 3, "more data after the value" },
			{ "[1,", 3, "expected a value" },
		};
		size_t bad_at = 0;

		for (i = 0; i < sizeof e / sizeof e[0]; i++)
			if (tp_json_check(&j, e[i].doc, strlen(e[i].doc), 0) == 0 ||
			    j.pos != e[i].pos || strcmp(j.why, e[i].why) != 0) {
				bad_at = i + 1;
				printf("# %s: pos %zu, %s\n", e[i].doc, j.pos,
				    j.why ? j.why : "(none)");
			}
		ok(bad_at == 0, "syntax errors: what and where");
	}

	ok(tp_json_check(&j, "[\"a\\\0b\"]", 8, 0) < 0 && j.pos == 3 &&
	    strcmp(j.why, "an unknown escape in a string") == 0,
	    "a backslash before a NUL byte is no escape");
	ok(tp_json_check(&j, "{\"ab\xff\":1}", 8, 0) < 0 &&
	    j.status == TP_JSON_UTF8 && j.pos == 4, "bad UTF-8: where");
	ok(tp_json_check(&j, "[\"\xed\xa0\x80\"]", 6, 0) < 0 &&
	    j.status == TP_JSON_UTF8 && j.pos == 2, "an encoded surrogate is not UTF-8");
	ok(tp_json_check(&j, "[\"\xc3\"]", 4, 0) < 0 &&
	    j.status == TP_JSON_UTF8, "a cut sequence is not UTF-8");
	ok(tp_json_check(&j, "[1,", 3, 0) < 0 && j.status == TP_JSON_SYNTAX,
	    "cut document: syntax");

	doc = "{ \"ver\" : 1, \"s\":\"a,}\" ,\"o\":{\"x\":[1,{}]},\"e\":{} }";
	cur = doc;
	n = 0;
	buf[0] = '\0';
	while (tp_json_member(&cur, doc + strlen(doc), &k, &kn, &v, &ve)) {
		n++;
		strncat(buf, k, kn);
		strcat(buf, "=");
		strncat(buf, v, (size_t)(ve - v));
		strcat(buf, ";");
	}
	is_str(buf, "ver=1;s=\"a,}\";o={\"x\":[1,{}]};e={};", "members in order");
	cur = "{}";
	ok(!tp_json_member(&cur, cur + 2, &k, &kn, &v, &ve), "no member in {}");
	cur = "{\"in\":{}},\"out\":1}";
	ok(tp_json_member(&cur, cur + 18, &k, &kn, &v, &ve) && kn == 2 &&
	    !tp_json_member(&cur, cur + 10, &k, &kn, &v, &ve),
	    "the walk ends at its object's '}'");
	doc = "[ 1, [2,\"]\"] ,{\"x\":[]},\"s\" ]";
	cur = doc;
	buf[0] = '\0';
	while (tp_json_element(&cur, doc + strlen(doc), &v, &ve)) {
		strncat(buf, v, (size_t)(ve - v));
		strcat(buf, ";");
	}
	is_str(buf, "1;[2,\"]\"];{\"x\":[]};\"s\";", "elements in order");
	cur = "[ ]";
	ok(!tp_json_element(&cur, cur + 3, &v, &ve), "no element in [ ]");

	doc = "\"a\\n\\u00e9\\ud83d\\ude00\\ud800x\\q\"";
	n = tp_json_unescape(doc, doc + strlen(doc), buf, sizeof buf);
	ok(n == 13 && memcmp(buf, "a\n\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdxq", 13) == 0,
	    "unescape: UTF-8, a surrogate pair, a lone surrogate, a lax escape");
	ok(tp_json_unescape(doc, doc + strlen(doc), buf, 12) == SIZE_MAX,
	    "unescape: more than cap");
	ok(tp_json_unescape("\"\"", "\"\"" + 2, buf, 0) == 0, "unescape: empty");
	doc = "{\"\\\\ud800\":\"\\ud83d\\ude00\\u00e9\"}";
	ok(tp_json_lone_surrogate(doc, doc + strlen(doc)) == NULL,
	    "lone surrogate: none in an escaped backslash and a pair");
	doc = "[\"\\ud83d\\ude00\",\"x\\ude00\\ud800\"]";
	ok(tp_json_lone_surrogate(doc, doc + strlen(doc)) == doc + 18,
	    "lone surrogate: a low one before a high one, found where it is");
	doc = "[\"\\udbff\"]";
	ok(tp_json_lone_surrogate(doc, doc + strlen(doc)) == doc + 2,
	    "lone surrogate: a high one at the end of its string");

	got = written(doc_empty);
	is_str(got, "{\n  \"a\": [],\n  \"m\": {}\n}", "writer: empty containers");
	free(got);
	got = written(doc_nested);
	is_str(got, "{\n  \"rows\": [\n    {\n      \"id\": 18446744073709551615,\n"
	    "      \"at\": {\n        \"d\": -9223372036854775808\n      }\n"
	    "    },\n    true,\n    null,\n    \"x\"\n  ]\n}",
	    "writer: serde_json's pretty layout");
	ok(valid(got, 0), "writer: its output is valid JSON");
	free(got);
	got = written(doc_string);
	is_str(got, "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f \xc3\xa9 "
	    "\xe2\x82\xac \xf0\x9f\x98\x80 \xef\xbf\xbd \xef\xbf\xbd "
	    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd end\"",
	    "writer: escapes, UTF-8 kept, invalid bytes as U+FFFD");
	ok(valid(got, 0), "writer: escaped string is valid JSON");
	n = tp_json_unescape(got, got + strlen(got), buf, sizeof buf);
	ok(n == 48 && memcmp(buf, awkward, 27) == 0 &&
	    memcmp(buf + 27, "\xef\xbf\xbd \xef\xbf\xbd ", 8) == 0,
	    "writer then unescape: the valid part comes back");
	free(got);
	return done_testing();
}
