/*
 * Unit tests of CRC-32C (RFC 3720's vectors and the usual check value)
 * and of the Snappy framing reader's checks: the identifier first, types
 * reserved and skippable, the length limits of each type, the masked
 * checksum, stored and compressed data, and the messages of each fault.
 */
#include <stdint.h>
#include <string.h>

#include "base/crc32c.h"
#include "base/err.h"
#include "base/snappyframe.h"
#include "tap.h"

/* A chunk header of type t and body length len. */
static void
head(unsigned char *h, unsigned t, uint32_t len)
{
	h[0] = (unsigned char)t;
	h[1] = (unsigned char)len;
	h[2] = (unsigned char)(len >> 8);
	h[3] = (unsigned char)(len >> 16);
}

static int
head_fails(struct tp_snappy *s, unsigned t, uint32_t len, const char *msg)
{
	unsigned char h[4];
	uint32_t got;
	struct tp_err e;

	tp_err_clear(&e);
	head(h, t, len);
	return tp_snappy_head(s, h, &got, &e) == -1 &&
	    e.status == TP_EXIT_DATA && strcmp(e.msg, msg) == 0;
}

int
main(void)
{
	static const unsigned char check[] = "123456789";
	/* masked CRC-32C of "123456789", little-endian, then the data */
	static const unsigned char stored[] = {
		0xe5, 0xb0, 0x8a, 0xc7, '1', '2', '3', '4', '5', '6', '7', '8', '9'
	};
	/* the same data as one Snappy literal: length 9, tag (9-1)<<2 */
	static const unsigned char compressed[] = {
		0xe5, 0xb0, 0x8a, 0xc7, 0x09, 0x20,
		'1', '2', '3', '4', '5', '6', '7', '8', '9'
	};
	unsigned char buf[64], h[4], dst[16];
	struct tp_snappy s = { 0 };
	struct tp_err e;
	uint32_t len;
	size_t n, i;
	int rc;

	/* CRC-32C */
	ok(tp_crc32c(check, 9) == 0xe3069283u, "crc32c(\"123456789\")");
	ok(tp_crc32c(check, 0) == 0, "crc32c of nothing");
	memset(buf, 0, 32);
	ok(tp_crc32c(buf, 32) == 0x8a9136aau, "crc32c of 32 zeros (RFC 3720)");
	memset(buf, 0xff, 32);
	ok(tp_crc32c(buf, 32) == 0x62a8ab43u, "crc32c of 32 0xff (RFC 3720)");
	for (i = 0; i < 32; i++)
		buf[i] = (unsigned char)i;
	ok(tp_crc32c(buf, 32) == 0x46dd794eu, "crc32c of 0..31 (RFC 3720)");
	for (i = 0; i < 32; i++)
		buf[i] = (unsigned char)(31 - i);
	ok(tp_crc32c(buf, 32) == 0x113fdb5cu, "crc32c of 31..0 (RFC 3720)");

	/* The identifier comes first. */
	ok(head_fails(&s, TP_SNAPPY_STORED, 13, "Snappy chunk type 0x01 "
	    "before the stream identifier"), "data before the identifier");
	tp_err_clear(&e);
	ok(tp_snappy_head(&s, tp_snappy_ident, &len, &e) == 0 && len == 6,
	    "identifier header");
	ok(tp_snappy_body(&s, TP_SNAPPY_IDENT, (const unsigned char *)"sNaPpX",
	    6, &n, &e) == -1 && strcmp(e.msg, "bad Snappy stream identifier")
	    == 0 && !s.ident_seen, "bad identifier refused");
	tp_err_clear(&e);
	ok(tp_snappy_body(&s, TP_SNAPPY_IDENT, tp_snappy_ident + 4, 6, &n,
	    &e) == 0 && s.ident_seen && n == 0, "identifier read");
	ok(tp_snappy_body(&s, TP_SNAPPY_IDENT, tp_snappy_ident + 4, 6, &n,
	    &e) == 0, "an identifier again is allowed");

	/* Types and lengths. */
	ok(head_fails(&s, 0x02, 0, "reserved unskippable Snappy chunk type "
	    "0x02"), "type 0x02 reserved");
	ok(head_fails(&s, 0x7f, 0, "reserved unskippable Snappy chunk type "
	    "0x7f"), "type 0x7f reserved");
	ok(head_fails(&s, TP_SNAPPY_STORED, 4 + TP_SNAPPY_BLOCK + 1,
	    "stored Snappy chunk of 65541 bytes: more than 65540"),
	    "stored chunk too long");
	ok(head_fails(&s, TP_SNAPPY_COMPRESSED, TP_SNAPPY_CHUNK_MAX + 1,
	    "compressed Snappy chunk of 76495 bytes: more than 76494"),
	    "compressed chunk too long");
	tp_err_clear(&e);
	head(h, TP_SNAPPY_STORED, 4 + TP_SNAPPY_BLOCK);
	ok(tp_snappy_head(&s, h, &len, &e) == 0 && len == 4 + TP_SNAPPY_BLOCK,
	    "stored chunk of the largest length");
	head(h, 0x80, 0xffffff);
	ok(tp_snappy_head(&s, h, &len, &e) == 0 && len == 0xffffff,
	    "skippable chunk of any length");
	ok(tp_snappy_body(&s, 0x80, buf, 3, &n, &e) == 0 &&
	    tp_snappy_body(&s, 0xfe, buf, 0, &n, &e) == 0 && n == 0,
	    "skippable and padding chunks hold no data");
	ok(tp_snappy_body(&s, TP_SNAPPY_STORED, stored, 3, &n, &e) == -1 &&
	    strcmp(e.msg, "Snappy chunk of 3 bytes: too short for its "
	    "checksum") == 0, "chunk too short for its checksum");

	/* Stored data and its checksum. */
	tp_err_clear(&e);
	rc = tp_snappy_body(&s, TP_SNAPPY_STORED, stored, sizeof stored, &n, &e);
	ok(rc == 1 && n == 9, "stored chunk holds 9 bytes");
	memset(dst, 0, sizeof dst);
	ok(tp_snappy_data(TP_SNAPPY_STORED, stored, sizeof stored, dst, n,
	    &e) == 0 && memcmp(dst, check, 9) == 0, "stored data, checksum "
	    "right");
	memcpy(buf, stored, sizeof stored);
	buf[12] ^= 1;
	ok(tp_snappy_data(TP_SNAPPY_STORED, buf, sizeof stored, dst, 9,
	    &e) == -1 && strcmp(e.msg, "Snappy chunk checksum 0xc78ab0e5, its "
	    "data sums to 0xc5830db2") == 0, "stored data, checksum wrong");
	tp_err_clear(&e);
	ok(tp_snappy_body(&s, TP_SNAPPY_STORED, (const unsigned char *)
	    "\xd8\xea\x82\xa2", 4, &n, &e) == 1 && n == 0 &&
	    tp_snappy_data(TP_SNAPPY_STORED, (const unsigned char *)
	    "\xd8\xea\x82\xa2", 4, dst, 0, &e) == 0, "empty data chunk");

	/* Compressed data. */
	tp_err_clear(&e);
	rc = tp_snappy_body(&s, TP_SNAPPY_COMPRESSED, compressed,
	    sizeof compressed, &n, &e);
#ifdef HAVE_SNAPPY
	ok(rc == 1 && n == 9, "compressed chunk holds 9 bytes");
	memset(dst, 0, sizeof dst);
	ok(tp_snappy_data(TP_SNAPPY_COMPRESSED, compressed, sizeof compressed,
	    dst, n, &e) == 0 && memcmp(dst, check, 9) == 0,
	    "compressed data, checksum right");
	memcpy(buf, compressed, sizeof compressed);
	buf[4] = 0x0a;		/* says 10 bytes, holds 9 */
	ok(tp_snappy_data(TP_SNAPPY_COMPRESSED, buf, sizeof compressed, dst,
	    10, &e) == -1 && strcmp(e.msg, "corrupt Snappy chunk") == 0,
	    "compressed data shorter than it says");
	tp_err_clear(&e);
	memcpy(buf, compressed, 4);
	memcpy(buf + 4, "\x81\x80\x04", 3);	/* 65537 bytes */
	ok(tp_snappy_body(&s, TP_SNAPPY_COMPRESSED, buf, 7, &n, &e) == -1 &&
	    strcmp(e.msg, "corrupt Snappy chunk (bad uncompressed length)") ==
	    0, "compressed chunk of more than 64 KiB");
#else
	ok(rc == TP_SNAPPY_NOLIB && e.status == 0,
	    "compressed chunk without libsnappy");
#endif
	return done_testing();
}
