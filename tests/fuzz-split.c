/*
 * The splitters' fuzz harness (tracesplit, formats/split.h).  The first
 * two bytes of the input choose the cutter's rule, the rest is the trace:
 *
 *   byte 0 % 3     the rule: -b SIZE, -l RECORDS or -n CHUNKS
 *   byte 1         the size: (byte 1 + 1) << (byte 0 / 3 % 8) bytes or
 *                  records, or byte 1 % 16 + 1 chunks
 *
 * so that the fuzzer moves the cuts as it moves the trace.  The trace's
 * format is recognised through the format table as tracesplit does, so
 * every row with a splitter is reached, a row added later too; a row
 * without one is left alone.  The cuts follow tracesplit's rule
 * (tc_piece_full, lib/tools/cutter.c); the pieces go to one memory
 * file, each read back when the cutter ends it (after the module's
 * finish) or when the module returns 0, and are checked as
 * tests/split-property.sh checks files:
 *
 * - when the whole decodes, every piece the splitter completes decodes
 *   without error through the same format's decoder, default options;
 * - the payload records of the pieces (the shared kinds of
 *   trace-text(5), WTF's restated zone events aside) add up to those of
 *   the whole when the cut and the whole's decode both succeed;
 * - a failed cut says why, and the restart points a module offers never
 *   go back in records or bytes.
 *
 * Any violation abort()s, so that libFuzzer reports it.
 */
#include <sys/stat.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "driver.h"
#include "tools/cutter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct mcut {
	struct tp_cutter c;
	struct tc_cutter t;	/* the rule and where the piece starts */
	const struct tp_format *f;
	uint64_t pieces;		/* pieces started */
	uint64_t last_records, last_offset;
	int open;
	int whole_ok;			/* the whole decodes */
	uint64_t payload;		/* of the pieces checked so far */
};

static struct tp_out piece;		/* one memory file, reused */
static unsigned char *pbuf;
static size_t pcap;

/* Payload records of decoded text: lines of a shared kind. */
static uint64_t
payload(const unsigned char *t, size_t n)
{
	const char *p = (const char *)t, *end = p + n;
	uint64_t count = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl != NULL ? nl : end;
		size_t k = strcspn(p, " \n");

		if (p + k > eol)
			k = (size_t)(eol - p);
		/* WTF's zone events are restated at the start of each piece. */
		if (tp_kind(p, k, (size_t)(end - p)) != TK_OTHER &&
		    (k != 5 || memmem(p, (size_t)(eol - p), " name=wtf.zone#",
		    15) == NULL))
			count++;
		p = eol + 1;
	}
	return count;
}

static void
piece_reset(void)
{
	if (piece.buf == NULL) {
		int fd = -1;
#ifdef MFD_CLOEXEC
		fd = memfd_create("piece", MFD_CLOEXEC);
#endif
		if (fd < 0) {
			FILE *fp = tmpfile();
			if (fp == NULL || (fd = dup(fileno(fp))) < 0)
				abort();
			fclose(fp);
		}
		if (tp_out_open_fd(&piece, fd, "<piece>") < 0)
			abort();
	}
	if (ftruncate(piece.fd, 0) < 0 || lseek(piece.fd, 0, SEEK_SET) < 0)
		abort();
	piece.len = 0;
	piece.written = 0;
	piece.error = 0;
	piece.failed = NULL;
}

/* The piece is complete: it must decode; its payload records counted. */
static void
piece_check(struct mcut *m)
{
	struct fuzz_run d;
	struct stat st;
	size_t n, got = 0;

	tp_out_flush(&piece);
	if (tp_out_failed(&piece) || fstat(piece.fd, &st) < 0)
		abort();
	n = (size_t)st.st_size;
	if (n + 1 > pcap) {
		pcap = n + 1;
		if ((pbuf = realloc(pbuf, pcap)) == NULL)
			abort();
	}
	while (got < n) {
		ssize_t r = pread(piece.fd, pbuf + got, n - got, (off_t)got);
		if (r <= 0)
			abort();
		got += (size_t)r;
	}
	fuzz_run(m->f, 0, NULL, NULL, pbuf, n, &d);
	/*
	 * A splitter checks less than its decoder (it copies what it need
	 * not read): a fault it passes over is met in the piece it is in.
	 */
	if (d.rc < 0 && m->whole_ok)
		abort();	/* a piece of a sound trace does not decode */
	m->payload += payload(d.out, d.len);
	free(d.out);
	m->open = 0;
}

static int
restart(struct tp_cutter *c, uint64_t records, uint64_t offset,
    struct tp_err *err)
{
	struct mcut *m = c->ctx;

	if (m->pieces > 0 &&
	    (records < m->last_records || offset < m->last_offset))
		abort();	/* a restart point before the last one */
	m->last_records = records;
	m->last_offset = offset;
	if (m->pieces > 0) {
		if (!tc_piece_full(&m->t, records, offset))
			return 0;
		if (c->finish != NULL && c->finish(c, err) < 0)
			return -1;
		piece_check(m);
		m->t.index++;
	}
	m->t.first_records = records;
	m->t.first_offset = offset;
	m->pieces++;
	piece_reset();
	c->out = &piece;
	m->open = 1;
	return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct tp_format *f, *tie;
	const unsigned char *p;
	struct fuzz_run whole;
	struct tp_err err;
	struct tp_in in;
	struct mcut m;
	unsigned shift;
	size_t n;
	int r;

	if (size < 2)
		return 0;
	tp_verbosity = 0;
	memset(&m, 0, sizeof m);
	m.t.o.rule = data[0] % 3 == 0 ? TC_BYTES : data[0] % 3 == 1 ?
	    TC_RECORDS : TC_CHUNKS;
	shift = (unsigned)(data[0] / 3 % 8);
	m.t.o.size = m.t.o.rule == TC_CHUNKS ? (uint64_t)(data[1] % 16 + 1) :
	    (uint64_t)(data[1] + 1) << shift;
	data += 2;
	size -= 2;
	m.t.o.total = size;

	tp_err_clear(&err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &err) < 0)
		abort();
	in.gz_fallback = 1;
	n = (size_t)tp_probe_bytes(&in, &p);
	f = tp_format_detect(p, n, NULL, 0, &tie);
	if (f == NULL || f->split == NULL) {
		tp_in_close(&in);
		return 0;
	}
	m.f = f;
	m.c.restart = restart;
	m.c.ctx = &m;

	fuzz_run(f, 0, NULL, NULL, data, size, &whole);
	m.whole_ok = whole.rc == 0;

	r = f->split(&in, &m.c, &err);
	if ((r < 0) != (err.status != 0))
		abort();	/* a failure without a reason, or the reverse */
	if (tp_in_close(&in) < 0 && r == 0)
		r = -1;
	if (r == 0 && m.open)
		piece_check(&m);	/* the module finished the last piece */
	/*
	 * Only when both succeed: a fault the splitter passes over may be
	 * one of the whole (a chunk's unused strings) that its piece,
	 * restated, no longer has.
	 */
	if (r == 0 && whole.rc == 0 &&
	    m.payload != payload(whole.out, whole.len))
		abort();	/* the pieces' records are not the whole's */
	free(whole.out);
	return 0;
}
