/*
 * x64dbg traces cut into pieces (formats/split.h).  A reader can start
 * afresh at a full register dump that stores its thread id: the dump
 * gives every slot, the id names the thread, and x64dbg's own reader
 * pages its files there.  Each piece is the JSON header, copied
 * verbatim, then the blocks from such a dump to the next cut.  The
 * writer stores the thread id on every full dump, so the first block of
 * each piece holds it; a full dump without one (no x64dbg writes it) is
 * no restart point.  Blocks are read as trac2txt reads them by default
 * (no --repair-tid), so what it refuses, this does too.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/split.h"
#include "formats/trac/trac-private.h"

/* Copy n bytes of the input to out (they are there, or fail). */
static int
copy(struct tp_in *in, struct tp_out *out, uint64_t n)
{
	while (n > 0) {
		size_t k = n < TP_IN_BLOCK ? (size_t)n : TP_IN_BLOCK;
		long avail = tp_in_fill(in, k);

		if (avail < (long)k)
			return -1;
		tp_out_write(out, in->buf + in->pos, k);
		in->pos += k;
		n -= k;
	}
	return 0;
}

/* The header, validated as trac2txt does: its bytes into *hdr (malloc). */
static int
read_header(struct tp_in *in, unsigned char **hdr, size_t *hlen,
    const struct trac_arch **arch, struct tp_err *err)
{
	unsigned char h8[8];
	struct json_info ji;
	uint32_t len;
	long got;
	int rc;

	err->offset = 0;
	if ((rc = tp_in_exact(in, h8, 8, "header")) <= 0)
		return rc == 0 ? tp_fail(err, TP_EXIT_DATA, "empty input: no "
		    "TRAC header") : -1;
	if (memcmp(h8, "TRAC", 4) != 0)
		return tp_fail(err, TP_EXIT_DATA, "bad magic: not an x64dbg "
		    "trace (expected \"TRAC\")");
	len = tp_get_le32(h8 + 4);
	err->offset = 4;
	if (len > TRAC_HEADER_MAX)
		return tp_fail(err, TP_EXIT_DATA, "JSON header length %lu, more "
		    "than %d", (unsigned long)len, TRAC_HEADER_MAX);
	if ((*hdr = malloc(8 + (size_t)len)) == NULL)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	memcpy(*hdr, h8, 8);
	*hlen = 8 + (size_t)len;
	err->offset = 8;
	if ((got = tp_in_read(in, *hdr + 8, len)) < 0)
		return -1;
	if ((size_t)got < len)
		return tp_fail(err, TP_EXIT_DATA, "truncated JSON header: needs "
		    "%lu bytes, only %ld left", (unsigned long)len, got);
	trac_json_scan((const char *)*hdr + 8, len, &ji);
	if (ji.why != NULL || ji.archlen == SIZE_MAX ||
	    (*arch = trac_arch_find(ji.arch, ji.archlen)) == NULL)
		return tp_fail(err, TP_EXIT_DATA, "JSON header: %s (trac2txt "
		    "says more)", ji.why != NULL ? ji.why : "no arch x64 or x86");
	err->offset = TP_NONE;
	return 0;
}

int
trac_split(struct tp_in *in, struct tp_cutter *c, struct tp_err *err)
{
	const struct trac_arch *a = NULL;
	unsigned char *hdr = NULL;
	size_t hlen = 0, maxb;
	uint64_t records = 0, blocks = 0;
	int started = 0, rc;

	if (read_header(in, &hdr, &hlen, &a, err) < 0)
		goto fail;
	maxb = trac_max_block(a);
	for (;;) {
		uint64_t off = tp_in_offset(in);
		const unsigned char *p;
		long avail = tp_in_fill(in, maxb);
		struct blk b;
		uint64_t len;
		int type;

		if (avail < 0)
			goto fail;
		if (avail == 0)
			break;
		err->offset = off;
		err->index = blocks;
		err->unit = "block";
		p = in->buf + in->pos;
		type = p[0];
		b.nmem = 0;
		if (type >= 0x80) {
			/* A plugin's block: passed on in the piece it is in. */
			if (avail < 5) {
				tp_fail(err, TP_EXIT_DATA, "truncated block: "
				    "needs at least 5 bytes, only %ld left",
				    avail);
				goto fail;
			}
			len = 5 + (uint64_t)tp_get_le32(p + 1);
			rc = 0;
		} else if (p[0] != 0) {
			tp_fail(err, TP_EXIT_DATA, "unsupported block type "
			    "0x%02x (0 or 0x80-0xff expected)", p[0]);
			goto fail;
		} else {
			rc = parse_insn(a, p, (size_t)avail, 0, &b);
			if (rc == BLK_SHORT) {
				tp_fail(err, TP_EXIT_DATA, "truncated block: "
				    "needs at least %zu bytes, only %ld left",
				    b.len, avail);
				goto fail;
			}
			if (rc == BLK_BAD) {
				tp_fail(err, TP_EXIT_DATA, "bad block (trac2txt "
				    "says what)");
				goto fail;
			}
			len = b.len;
			rc = !started || (b.nreg == a->nslots && b.tid_in == 1);
		}
		if (!started && type >= 0x80)
			rc = 1;
		if (rc) {
			if ((rc = tp_cut_here(c, records, off, err)) < 0)
				goto fail;
			if (rc == 1)
				tp_out_write(c->out, hdr, hlen);
			started = 1;
		}
		if (copy(in, c->out, len) < 0) {
			if (!in->failed)
				tp_fail_at(err, off, blocks, "block", "truncated "
				    "block: needs %llu bytes",
				    (unsigned long long)len);
			goto fail;
		}
		if (type == 0)
			records += 1 + b.nmem;
		blocks++;
	}
	if (!started) {
		/* No block: one piece, the header alone. */
		if ((rc = tp_cut_here(c, 0, hlen, err)) < 0)
			goto fail;
		tp_out_write(c->out, hdr, hlen);
	}
	free(hdr);
	err->offset = TP_NONE;
	return 0;
fail:
	free(hdr);
	return -1;
}
