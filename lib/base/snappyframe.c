/*
 * The Snappy framing format's chunks, checked and opened.
 */
#include <string.h>

#ifdef HAVE_SNAPPY
#include <snappy-c.h>
#endif

#include "base/bytes.h"
#include "base/crc32c.h"
#include "base/snappyframe.h"

const unsigned char tp_snappy_ident[10] = {
	0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'
};

/* The framing format's masked checksum. */
static uint32_t
snappy_mask(uint32_t c)
{
	return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

int
tp_snappy_head(const struct tp_snappy *s, const unsigned char *h,
    uint32_t *len, struct tp_err *err)
{
	*len = h[1] | (uint32_t)h[2] << 8 | (uint32_t)h[3] << 16;
	if (!s->ident_seen && h[0] != TP_SNAPPY_IDENT)
		return tp_fail(err, TP_EXIT_DATA, "Snappy chunk type 0x%02x "
		    "before the stream identifier", h[0]);
	if (h[0] >= 0x02 && h[0] <= 0x7f)
		return tp_fail(err, TP_EXIT_DATA, "reserved unskippable Snappy "
		    "chunk type 0x%02x", h[0]);
	if (h[0] == TP_SNAPPY_COMPRESSED && *len > TP_SNAPPY_CHUNK_MAX)
		return tp_fail(err, TP_EXIT_DATA, "compressed Snappy chunk of "
		    "%u bytes: more than %d", *len, TP_SNAPPY_CHUNK_MAX);
	if (h[0] == TP_SNAPPY_STORED && *len > 4 + TP_SNAPPY_BLOCK)
		return tp_fail(err, TP_EXIT_DATA, "stored Snappy chunk of %u "
		    "bytes: more than %d", *len, 4 + TP_SNAPPY_BLOCK);
	return 0;
}

int
tp_snappy_body(struct tp_snappy *s, unsigned type,
    const unsigned char *body, uint32_t len, size_t *n, struct tp_err *err)
{
	*n = 0;
	if (type == TP_SNAPPY_IDENT) {
		if (len != 6 || memcmp(body, tp_snappy_ident + 4, 6) != 0)
			return tp_fail(err, TP_EXIT_DATA, "bad Snappy stream "
			    "identifier");
		s->ident_seen = 1;
		return 0;
	}
	if (type >= 0x80)
		return 0;	/* skippable, or padding (0xfe) */
	if (len < 4)
		return tp_fail(err, TP_EXIT_DATA, "Snappy chunk of %u bytes: "
		    "too short for its checksum", len);
	if (type == TP_SNAPPY_STORED) {
		*n = len - 4;
		return 1;
	}
#ifdef HAVE_SNAPPY
	if (snappy_uncompressed_length((const char *)body + 4, len - 4, n) !=
	    SNAPPY_OK || *n > TP_SNAPPY_BLOCK) {
		*n = 0;
		return tp_fail(err, TP_EXIT_DATA, "corrupt Snappy chunk (bad "
		    "uncompressed length)");
	}
	return 1;
#else
	(void)err;
	return TP_SNAPPY_NOLIB;
#endif
}

int
tp_snappy_data(unsigned type, const unsigned char *body, uint32_t len,
    unsigned char *dst, size_t n, struct tp_err *err)
{
	uint32_t stored = tp_get_le32(body), sum;

	if (type == TP_SNAPPY_STORED) {
		memcpy(dst, body + 4, n);
	} else {
#ifdef HAVE_SNAPPY
		size_t got = n;
		if (snappy_uncompress((const char *)body + 4, len - 4,
		    (char *)dst, &got) != SNAPPY_OK || got != n)
			return tp_fail(err, TP_EXIT_DATA, "corrupt Snappy chunk");
#else
		(void)len;
		return tp_fail(err, TP_EXIT_FAIL, "Snappy-compressed chunk: "
		    "built without libsnappy");
#endif
	}
	sum = snappy_mask(tp_crc32c(dst, n));
	if (sum != stored)
		return tp_fail(err, TP_EXIT_DATA, "Snappy chunk checksum 0x%08x, "
		    "its data sums to 0x%08x", stored, sum);
	return 0;
}
