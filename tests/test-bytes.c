/*
 * bytes.h and leb128.h at every boundary: byte order both ways at every
 * width, floats by their bits (NaN payloads), LEB128 of every length 1 to
 * 10, over-long forms kept and written back, 64-bit edges, overflow in
 * the tenth byte, truncation at every cut, never a read past the bytes.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/leb128.h"
#include "tap.h"

/* The bytes of v in the given length at the end of a heap block, so that
 * a read past them is a fault under AddressSanitizer. */
static unsigned char *
tail_copy(const unsigned char *b, size_t n)
{
	unsigned char *p = malloc(n ? n : 1);
	memcpy(p, b, n);
	return p;
}

/* An independent reference (128-bit arithmetic): a ULEB128's value and
 * length. */
static int
ref_uleb(const unsigned char *p, size_t n, uint64_t *v, size_t *len)
{
	unsigned __int128 x = 0;
	size_t i;

	for (i = 0; i < n && i < 10; i++) {
		/* Bits beyond 64 overflow even in a tenth byte that goes on. */
		if (i == 9 && (p[i] & 0x7e))
			return TP_LEB_OVERFLOW;
		x |= (unsigned __int128)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			if (x >> 64)
				return TP_LEB_OVERFLOW;
			*v = (uint64_t)x;
			*len = i + 1;
			return TP_LEB_OK;
		}
	}
	return i == 10 ? TP_LEB_TOOLONG : TP_LEB_TRUNC;
}

int
main(void)
{
	static const uint64_t edges[] = {
		0, 1, 0x7f, 0x80, 0x3fff, 0x4000, 0x1fffff, 0x200000,
		UINT32_MAX, (uint64_t)1 << 35, ((uint64_t)1 << 56) - 1,
		(uint64_t)1 << 56, ((uint64_t)1 << 63) - 1, (uint64_t)1 << 63,
		UINT64_MAX
	};
	static const int64_t sedges[] = {
		0, 1, -1, 63, 64, -64, -65, 8191, 8192, -8192, -8193,
		INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, INT64_MIN + 1
	};
	unsigned char b[16], *t;
	uint64_t v, u;
	int64_t s;
	size_t i, n, len, k;
	int rc, good;

	v = 0;
	len = 0;

	/* Byte order. */
	tp_put_le16(b, 0x0102);
	ok(b[0] == 2 && b[1] == 1 && tp_get_le16(b) == 0x0102, "le16");
	tp_put_be16(b, 0x0102);
	ok(b[0] == 1 && b[1] == 2 && tp_get_be16(b) == 0x0102, "be16");
	tp_put_le32(b, 0x01020304);
	ok(memcmp(b, "\4\3\2\1", 4) == 0 && tp_get_le32(b) == 0x01020304, "le32");
	tp_put_be32(b, 0x01020304);
	ok(memcmp(b, "\1\2\3\4", 4) == 0 && tp_get_be32(b) == 0x01020304, "be32");
	tp_put_le64(b, 0x0102030405060708);
	ok(memcmp(b, "\10\7\6\5\4\3\2\1", 8) == 0 &&
	    tp_get_le64(b) == 0x0102030405060708, "le64");
	tp_put_be64(b, 0x0102030405060708);
	ok(memcmp(b, "\1\2\3\4\5\6\7\10", 8) == 0 &&
	    tp_get_be64(b) == 0x0102030405060708, "be64");
	for (i = 0; i < 8; i++) {
		/* Unaligned, and every byte's high bit (no sign extension). */
		unsigned char *q = b + i % 8;
		tp_put_be64(q, UINT64_MAX - i);
		good = tp_get_be64(q) == UINT64_MAX - i;
		tp_put_le64(q, UINT64_MAX - i);
		good &= tp_get_le64(q) == UINT64_MAX - i;
		tp_put_be32(q, UINT32_MAX - (uint32_t)i);
		good &= tp_get_be32(q) == UINT32_MAX - i;
		tp_put_le16(q, (uint16_t)(0xffff - i));
		good &= tp_get_le16(q) == 0xffff - i;
		ok(good, "all-ones values at offset %zu", i % 8);
	}

	/* Floats by their bits. */
	ok(tp_f32_bits(1.0f) == 0x3f800000 && tp_f32_from_bits(0xc0000000) == -2.0f,
	    "float32 bits");
	ok(tp_f64_bits(1.0) == 0x3ff0000000000000 &&
	    tp_f64_from_bits(0x8000000000000000) == 0.0 &&
	    signbit(tp_f64_from_bits(0x8000000000000000)), "float64 bits, -0");
	ok(tp_f32_bits(tp_f32_from_bits(0x7fc01234)) == 0x7fc01234 &&
	    tp_f64_bits(tp_f64_from_bits(0x7ff8000000abcdef)) == 0x7ff8000000abcdef &&
	    tp_f64_bits(tp_f64_from_bits(0xfff0000000000001)) == 0xfff0000000000001,
	    "NaN payloads survive (quiet, signalling, negative)");

	/* LEB128: each edge written, read back, at every cut. */
	for (i = 0; i < sizeof edges / sizeof edges[0]; i++) {
		n = (size_t)(tp_uleb_put(b, edges[i]) - b);
		good = n == tp_uleb_size(edges[i]);
		t = tail_copy(b, n);
		good &= tp_uleb_get(t, n, &v, &len) == TP_LEB_OK && v == edges[i] &&
		    len == n;
		for (k = 0; k < n; k++)
			good &= tp_uleb_get(t, k, &v, &len) == TP_LEB_TRUNC;
		free(t);
		ok(good, "uleb %llu: %zu bytes, back, truncated at every cut",
		    (unsigned long long)edges[i], n);
	}
	ok(tp_uleb_size(UINT64_MAX) == 10 && tp_uleb_size(0) == 1 &&
	    tp_uleb_size((uint64_t)1 << 63) == 10 &&
	    tp_uleb_size(((uint64_t)1 << 63) - 1) == 9, "uleb sizes at 64 bits");
	for (i = 0; i < sizeof sedges / sizeof sedges[0]; i++) {
		n = (size_t)(tp_sleb_put(b, sedges[i]) - b);
		good = n == tp_sleb_size(sedges[i]);
		t = tail_copy(b, n);
		good &= tp_sleb_get(t, n, &s, &len) == TP_LEB_OK && s == sedges[i] &&
		    len == n;
		for (k = 0; k < n; k++)
			good &= tp_sleb_get(t, k, &s, &len) == TP_LEB_TRUNC;
		free(t);
		good &= tp_zigzag_dec(tp_zigzag_enc(sedges[i])) == sedges[i];
		ok(good, "sleb and zigzag %lld: %zu bytes", (long long)sedges[i], n);
	}
	ok(tp_zigzag_enc(0) == 0 && tp_zigzag_enc(-1) == 1 && tp_zigzag_enc(1) == 2 &&
	    tp_zigzag_enc(INT64_MAX) == UINT64_MAX - 1 &&
	    tp_zigzag_enc(INT64_MIN) == UINT64_MAX, "zigzag edges");

	/* Over-long forms: every length from the shortest to 10, kept. */
	for (v = 0; v < 3; v++) {
		u = v == 2 ? 0x7f : v;
		good = 1;
		for (n = 1; n <= TP_LEB_MAX; n++) {
			unsigned char w[TP_LEB_MAX];
			uint64_t got = UINT64_MAX;
			size_t m = (size_t)(tp_uleb_put_n(b, u, n) - b);
			good &= m == n && tp_uleb_get(b, n, &got, &len) == TP_LEB_OK &&
			    got == u && len == n;
			/* Written back the same way, byte for byte. */
			good &= tp_uleb_put_n(w, got, len) - w == (long)n &&
			    memcmp(w, b, n) == 0;
		}
		ok(good, "uleb %llu over-long in 1..10 bytes: read, length kept, "
		    "written back", (unsigned long long)u);
	}
	memcpy(b, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 10);
	ok(tp_uleb_get(b, 10, &v, &len) == TP_LEB_OK && v == 0 && len == 10,
	    "ten-byte zero");
	memcpy(b, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 11);
	ok(tp_uleb_get(b, 11, &v, &len) == TP_LEB_TOOLONG, "eleven bytes: too long");
	ok(tp_sleb_get(b, 11, &s, &len) == TP_LEB_TOOLONG, "sleb eleven bytes: too long");
	memcpy(b, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
	ok(tp_uleb_get(b, 10, &v, &len) == TP_LEB_OK && v == UINT64_MAX,
	    "ten bytes: UINT64_MAX");
	for (k = 2; k < 0x80; k++) {
		b[9] = (unsigned char)k;
		if (tp_uleb_get(b, 10, &v, &len) != TP_LEB_OVERFLOW)
			break;
	}
	ok(k == 0x80, "ten bytes: any bit beyond 64 overflows");
	memcpy(b, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10);
	ok(tp_sleb_get(b, 10, &s, &len) == TP_LEB_OK && s == -1 && len == 10,
	    "sleb over-long -1 in ten bytes");
	memcpy(b, "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x7f", 10);
	ok(tp_sleb_get(b, 10, &s, &len) == TP_LEB_OK && s == INT64_MIN,
	    "sleb ten bytes: INT64_MIN");
	memcpy(b, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00", 10);
	ok(tp_sleb_get(b, 10, &s, &len) == TP_LEB_OK && s == INT64_MAX,
	    "sleb ten bytes: INT64_MAX");
	b[9] = 0x01;
	ok(tp_sleb_get(b, 10, &s, &len) == TP_LEB_OVERFLOW,
	    "sleb ten bytes: sign bits that disagree overflow");
	b[9] = 0x7e;
	ok(tp_sleb_get(b, 10, &s, &len) == TP_LEB_OVERFLOW,
	    "sleb ten bytes: 0x7e overflows");

	/* Every two-byte input against the reference, then pseudo-random
	 * ten-byte ones: the same answer, never a read past n. */
	good = 1;
	for (i = 0; i < 65536; i++) {
		uint64_t rv = 0, gv = 0;
		size_t rl = 0, gl = 0;
		b[0] = (unsigned char)i;
		b[1] = (unsigned char)(i >> 8);
		for (n = 0; n <= 2; n++) {
			t = tail_copy(b, n);
			rc = tp_uleb_get(t, n, &gv, &gl);
			good &= rc == ref_uleb(t, n, &rv, &rl) &&
			    (rc != TP_LEB_OK || (gv == rv && gl == rl));
			free(t);
		}
	}
	ok(good, "every input of 0 to 2 bytes agrees with the reference");
	good = 1;
	srand(1);
	for (i = 0; i < 200000; i++) {
		uint64_t rv = 0, gv = 0;
		size_t rl = 0, gl = 0;
		for (k = 0; k < 12; k++)
			b[k] = (unsigned char)(rand() % 3 ? 0x80 | rand() : rand());
		n = (size_t)rand() % 13;
		rc = tp_uleb_get(b, n, &gv, &gl);
		good &= rc == ref_uleb(b, n, &rv, &rl) &&
		    (rc != TP_LEB_OK || (gv == rv && gl == rl));
	}
	ok(good, "200000 random inputs of 0 to 12 bytes agree with the reference");
	return done_testing();
}
