/*
 * Usercorn traces: the Snappy framing of the trace format txt2ucir
 * --trace writes.  Chunks are stored, not compressed: usercorn's writer
 * (golang/snappy's buffered writer) compresses, but the framing format
 * lets any chunk be stored and every reader, usercorn's included, takes
 * both; a build without libsnappy then writes and reads its own traces.
 */
#include <string.h>

#include "base/bytes.h"
#include "base/crc32c.h"
#include "base/snappyframe.h"
#include "formats/ucir/ucir-private.h"

static void
chunk(struct ucir_sw *w, struct tp_out *out)
{
	unsigned char h[8];
	uint32_t crc = tp_crc32c(w->buf, w->len);

	if (!w->started) {
		tp_out_write(out, tp_snappy_ident, sizeof tp_snappy_ident);
		w->started = 1;
	}
	if (w->len == 0)
		return;
	/* The framing format's masked checksum. */
	crc = ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
	h[0] = TP_SNAPPY_STORED;
	h[1] = (unsigned char)((w->len + 4) & 0xff);
	h[2] = (unsigned char)((w->len + 4) >> 8 & 0xff);
	h[3] = (unsigned char)((w->len + 4) >> 16);
	tp_put_le32(h + 4, crc);
	tp_out_write(out, h, sizeof h);
	tp_out_write(out, w->buf, w->len);
	w->len = 0;
}

void
ucir_sw_put(struct ucir_sw *w, struct tp_out *out, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n > 0) {
		size_t k = sizeof w->buf - w->len;
		if (k > n)
			k = n;
		memcpy(w->buf + w->len, s, k);
		w->len += k;
		s += k;
		n -= k;
		if (w->len == sizeof w->buf)
			chunk(w, out);
	}
}

void
ucir_sw_flush(struct ucir_sw *w, struct tp_out *out)
{
	chunk(w, out);
}
