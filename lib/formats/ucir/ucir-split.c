/*
 * Usercorn traces cut into pieces (formats/split.h).  A reader starts
 * afresh at a top-level frame once it has the header and the setup: the
 * file's first frame when it is a keyframe (usercorn writes exactly one,
 * first, with the registers, mappings and memory; its replay applies
 * it before anything else), provided the frame's first instruction op
 * says where it is: a JMP (usercorn starts every frame with one), an
 * EXEC_ABS (not an EXEC_REL or a STEP, which go on from the instruction
 * before).  Those frames are the restart points; each piece is the
 * header, copied, the setup keyframe restated byte for byte (pieces
 * after the first), then the frames from the cut.  The replay format's frames are copied as they are (each is
 * its own zlib stream).  The trace format's Snappy stream is inflated
 * and framed again for each piece as txt2ucir --trace frames it (stored
 * chunks of 64 KiB), since its chunks do not follow frames.
 *
 * The decoder walks the input (ucir_walk), so a piece ends where
 * ucir2txt fails, with its diagnostic, and the records counted before a
 * frame are those ucir2txt writes.
 */
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "formats/split.h"
#include "formats/ucir/ucir-private.h"

struct split {
	struct tp_cutter *c;
	struct tp_err *err;
	unsigned char hdr[UCIR_REPLAY_HEADER];
	size_t hlen;
	int trace;
	unsigned char *setup;	/* the first frame's bytes, a keyframe */
	size_t setuplen, setupcap;
	int keep;		/* the frame being read is the setup */
	uint64_t frames;
	int started;
	/* The frame read till its first instruction op says if it may start. */
	unsigned char *pend;
	size_t plen, pcap;
	int pending;
	uint64_t poff, precords;
	struct ucir_sw sw;	/* the piece's Snappy stream (trace) */
};

static void
put(struct split *s, const unsigned char *p, size_t n)
{
	if (s->trace)
		ucir_sw_put(&s->sw, s->c->out, p, n);
	else
		tp_out_write(s->c->out, p, n);
}

static int
on_header(void *ctx, const unsigned char *p, size_t n, int trace)
{
	struct split *s = ctx;

	memcpy(s->hdr, p, n);
	s->hlen = n;
	s->trace = trace;
	return 0;
}

static int
append(struct split *s, unsigned char **b, size_t *len, size_t *cap,
    const unsigned char *p, size_t n)
{
	if (tp_grow(b, cap, *len + n, 1) < 0)
		return tp_fail(s->err, TP_EXIT_FAIL, "out of memory");
	memcpy(*b + *len, p, n);
	*len += n;
	return 0;
}

/* The piece a cut ends: the rest of its Snappy stream. */
static int
finish(struct tp_cutter *c, struct tp_err *err)
{
	struct split *s = c->module;

	(void)err;
	if (s->trace)
		ucir_sw_flush(&s->sw, c->out);
	return 0;
}

/* A new piece: the header, and the setup again after the first. */
static void
begin(struct split *s)
{
	s->sw.len = 0;
	s->sw.started = 0;
	tp_out_write(s->c->out, s->hdr, s->hlen);
	if (s->started && s->setuplen > 0)
		put(s, s->setup, s->setuplen);
}

/* The pending frame goes to a new piece (restart, and the first) or on. */
static int
settle(struct split *s, int restart)
{
	int rc;

	if (!s->pending)
		return 0;
	s->pending = 0;
	if (!s->started || restart) {
		if ((rc = tp_cut_here(s->c, s->precords, s->poff, s->err)) < 0)
			return -1;
		if (rc == 1)
			begin(s);
		s->started = 1;
	}
	put(s, s->pend, s->plen);
	return 0;
}

static int
on_frame(void *ctx, uint64_t off, uint64_t records, int key,
    const unsigned char *p, size_t n)
{
	struct split *s = ctx;

	/* A frame without instructions is no restart point. */
	if (settle(s, 0) < 0)
		return -1;
	s->keep = s->frames == 0 && key;
	s->frames++;
	s->pending = 1;
	s->poff = off;
	s->precords = records;
	s->plen = 0;
	if (s->keep && append(s, &s->setup, &s->setuplen, &s->setupcap, p,
	    n) < 0)
		return -1;
	return append(s, &s->pend, &s->plen, &s->pcap, p, n);
}

static int
on_bytes(void *ctx, const unsigned char *p, size_t n, int first)
{
	struct split *s = ctx;

	if (s->keep && append(s, &s->setup, &s->setuplen, &s->setupcap, p,
	    n) < 0)
		return -1;
	if (!s->pending) {
		put(s, p, n);
		return 0;
	}
	if (append(s, &s->pend, &s->plen, &s->pcap, p, n) < 0)
		return -1;
	return first != 0 ? settle(s, first == 1) : 0;
}

int
ucir_split(struct tp_in *in, struct tp_cutter *c, struct tp_err *err)
{
	struct split *s = calloc(1, sizeof *s);
	struct ucir_hook h = { on_header, on_frame, on_bytes, NULL };
	struct tp_out none;
	struct tp_err e2;
	int rc = -1;

	if (s == NULL)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	if (tp_out_open_discard(&none) < 0) {
		free(s);
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	}
	s->c = c;
	s->err = err;
	h.ctx = s;
	c->module = s;
	c->finish = finish;
	if (ucir_walk(in, &none, &h, err) < 0 || settle(s, 0) < 0)
		goto out;
	if (!s->started) {
		/* No frame: one piece, the header alone. */
		if ((rc = tp_cut_here(c, 0, s->hlen, err)) < 0)
			goto out;
		begin(s);
	}
	finish(c, err);
	err->offset = TP_NONE;
	rc = 0;
out:
	c->finish = NULL;
	tp_err_clear(&e2);
	tp_out_close(&none, 0, &e2);
	free(s->setup);
	free(s->pend);
	free(s);
	return rc;
}
