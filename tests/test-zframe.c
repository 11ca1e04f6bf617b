/*
 * Unit tests of per-frame zlib: round trips at every level, the output
 * cap (a decompression bomb costs the cap, not its size), corrupt, cut
 * and over-long streams, and the level finder: it names a level that
 * gives the frame back byte for byte, and its answer is stable.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "io/zframe.h"
#include "tap.h"

static uint64_t rs = 7;

static unsigned char
rbyte(void)
{
	rs = rs * 6364136223846793005u + 1442695040888963407u;
	return (unsigned char)(rs >> 56);
}

/* Trace-like bytes: repeats with some noise, so levels differ. */
static void
fill(unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = i > 64 && rbyte() < 200 ? p[i - 1 - rbyte() % 64] :
		    rbyte();
}

int
main(void)
{
	struct zframe z;
	struct zf_buf comp = { 0 }, out = { 0 }, scratch = { 0 };
	size_t n = 300000, i;
	unsigned char *raw = malloc(n), *zeros;
	int level, rc, exact;

	if (raw == NULL)
		return 99;
	fill(raw, n);
	zf_init(&z);

	for (level = 0; level <= 9; level++) {
		int found;
		rc = zf_deflate(&z, level, raw, n, &comp);
		ok(rc == ZF_OK, "deflate at level %d", level);
		rc = zf_inflate(&z, comp.p, comp.len, &out, n);
		ok(rc == ZF_OK && out.len == n && memcmp(out.p, raw, n) == 0 &&
		    z.in_used == comp.len, "level %d inflates back with the cap "
		    "at the exact size", level);
		found = zf_level_of(&z, comp.p, comp.len, raw, n, &scratch, 1,
		    &exact);
		ok(found >= 0 && exact == 1, "level %d: a level reproducing it "
		    "is found (%d)", level, found);
		/* Deflating at the level found gives the same bytes back. */
		rc = zf_deflate(&z, found, raw, n, &scratch);
		ok(rc == ZF_OK && scratch.len == comp.len &&
		    memcmp(scratch.p, comp.p, comp.len) == 0,
		    "level %d: the level found reproduces the stream", level);
	}
	level = zf_level_of(&z, comp.p, comp.len, raw, n, &scratch, 0, &exact);
	ok(level >= 7 && exact == 1, "level 9 is tried without verify (FLEVEL "
	    "3 is ambiguous): %d reproduces it", level);
	zf_deflate(&z, 6, raw, n, &comp);
	ok(zf_level_of(&z, comp.p, comp.len, raw, n, &scratch, 0, &exact) ==
	    6 && exact == -1, "level 6 is the only one of its FLEVEL: not "
	    "tried without verify");

	/* Another deflater (memLevel 9): the first level of its FLEVEL. */
	{
		z_stream zs;
		unsigned char *f = malloc(n + 1000);
		int first;
		memset(&zs, 0, sizeof zs);
		deflateInit2(&zs, 4, Z_DEFLATED, 15, 9, Z_DEFAULT_STRATEGY);
		zs.next_in = raw;
		zs.avail_in = (uInt)n;
		zs.next_out = f;
		zs.avail_out = (uInt)(n + 1000);
		deflate(&zs, Z_FINISH);
		first = zf_level_of(&z, f, zs.total_out, raw, n, &scratch, 1,
		    &exact);
		ok(first == 2 && exact == 0, "foreign stream at FLEVEL 1: level "
		    "2, not reproduced (got %d, exact %d)", first, exact);
		zf_deflate(&z, first, raw, n, &comp);
		ok(zf_level_of(&z, comp.p, comp.len, raw, n, &scratch, 1,
		    &exact) == first && exact == 1, "and the answer is stable "
		    "on its re-encoding");
		deflateEnd(&zs);
		free(f);
	}

	/*
	 * One stream for every level in turn (zf_deflate changes its level
	 * without making it again) gives the bytes of a stream made at that
	 * level: every pair of levels, sizes across the window and across
	 * zlib's 16 KiB literal buffer, some runs of zeros (level 0's stored
	 * blocks, the longest matches).
	 */
	{
		static const size_t sizes[] = { 0, 1, 100, 5000, 70000 };
		struct zframe fresh;
		struct zf_buf want = { 0 };
		int from, to, bad = 0, tried = 0;

		memset(raw + 1000, 0, 3000);
		for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
			for (from = 0; from <= 9; from++)
				for (to = 0; to <= 9; to++) {
					zf_deflate(&z, from, raw, sizes[i], &comp);
					zf_deflate(&z, to, raw + 7, sizes[i], &comp);
					zf_init(&fresh);
					zf_deflate(&fresh, to, raw + 7, sizes[i], &want);
					zf_free(&fresh);
					tried++;
					if (comp.len != want.len || (want.len > 0 &&
					    memcmp(comp.p, want.p, want.len) != 0))
						bad++;
				}
		ok(bad == 0, "a stream set from one level to another deflates "
		    "as one made at that level (%d of %d pairs and sizes differ)",
		    bad, tried);
		zf_buf_free(&want);
		fill(raw, n);
	}

	/* The cap: a bomb of 64 MiB of zeros against a 1 MiB cap. */
	zeros = calloc(64u << 20, 1);
	if (zeros == NULL)
		return 99;
	zf_deflate(&z, 9, zeros, 64u << 20, &comp);
	ok(comp.len < 100000, "64 MiB of zeros deflate to %zu bytes", comp.len);
	free(zeros);
	zf_buf_free(&out);
	rc = zf_inflate(&z, comp.p, comp.len, &out, 1u << 20);
	ok(rc == ZF_TOO_BIG, "inflating it with a 1 MiB cap is refused");
	ok(out.cap <= (1u << 20) + 1, "having allocated at most the cap + 1 "
	    "(%zu)", out.cap);
	rc = zf_inflate(&z, comp.p, comp.len, &out, 64u << 20);
	ok(rc == ZF_OK && out.len == 64u << 20, "with a cap of its size it "
	    "inflates");

	/* Bad streams. */
	zf_deflate(&z, 6, raw, 5000, &comp);
	rc = zf_inflate(&z, comp.p, comp.len - 1, &out, n);
	ok(rc == ZF_SHORT, "a cut stream is short (%s)", zf_strerror(rc));
	for (i = 0; i < 3; i++)
		comp.p[comp.len + i] = 0;
	rc = zf_inflate(&z, comp.p, comp.len + 3, &out, n);
	ok(rc == ZF_TRAILING && z.in_used == comp.len, "bytes after the end "
	    "are trailing, the stream ends at %zu", z.in_used);
	comp.p[0] ^= 0x01;
	rc = zf_inflate(&z, comp.p, comp.len, &out, n);
	ok(rc == ZF_CORRUPT && z.msg[0] != '\0', "a bad header is corrupt "
	    "(%s)", z.msg);
	comp.p[0] ^= 0x01;
	comp.p[comp.len - 2] ^= 0x40;	/* the Adler-32 */
	rc = zf_inflate(&z, comp.p, comp.len, &out, n);
	ok(rc == ZF_CORRUPT, "a bad checksum is corrupt (%s)", z.msg);
	rc = zf_inflate(&z, "", 0, &out, n);
	ok(rc == ZF_SHORT, "no bytes at all are short");
	zf_deflate(&z, 6, "", 0, &comp);
	rc = zf_inflate(&z, comp.p, comp.len, &out, 0);
	ok(rc == ZF_OK && out.len == 0, "an empty frame with a cap of 0");

	zf_free(&z);
	zf_buf_free(&comp);
	zf_buf_free(&out);
	zf_buf_free(&scratch);
	free(raw);
	return done_testing();
}
