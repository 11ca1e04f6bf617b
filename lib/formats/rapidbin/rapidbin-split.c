/*
 * RapidBin cut into pieces (formats/split.h): every event is a restart
 * point, since an event is one self-contained word.  A piece is the
 * whole's header with its own event count, then its events.  The
 * thread, lock and variable counts are the whole trace's: the ids keep
 * their numbers, and a reader that sizes its tables from the header
 * (vector clocks per thread) needs the id space, not the piece's share.
 */
#include <string.h>

#include "base/bytes.h"
#include "formats/rapidbin/rapidbin.h"
#include "formats/split.h"

/* The piece's event count into its header (cutter outputs are seekable). */
static int
finish_piece(struct tp_cutter *c, struct tp_err *err)
{
	unsigned char b[8];
	uint64_t bytes = tp_out_tell(c->out);

	tp_put_be64(b, bytes > RB_HEADER_SIZE ? (bytes - RB_HEADER_SIZE) / 8 : 0);
	tp_out_pwrite(c->out, b, sizeof b, 10);
	if (tp_out_failed(c->out))
		return tp_fail(err, TP_EXIT_FAIL, "%s: cannot write the piece's "
		    "header: %s", c->out->name, strerror(c->out->error));
	return 0;
}

int
rapidbin_split(struct tp_in *in, struct tp_cutter *c, struct tp_err *err)
{
	unsigned char hb[RB_HEADER_SIZE];
	uint64_t index = 0;
	int rc, started = 0;

	if (rb_header_read(in, hb, err) < 0)
		return -1;
	/* Counted anew for each piece. */
	memset(hb + 10, 0, 8);
	c->finish = finish_piece;
	for (;;) {
		long avail = tp_in_fill(in, 8);
		const unsigned char *b;
		size_t n, i;

		if (avail < 0)
			return -1;
		if (avail < 8) {
			if (avail == 0)
				break;
			return rb_fail_truncated(in, index, avail, err);
		}
		b = in->buf + in->pos;
		n = (size_t)avail / 8;
		for (i = 0; i < n; i++, index++) {
			unsigned op = (unsigned)(b[8 * i + 6] >> 2) & RB_OP_MAX;
			char *p;

			if (op >= RB_NOPS) {
				in->pos += 8 * i;
				return rb_fail_op(in, index, op, err);
			}
			rc = tp_cut_here(c, index, RB_HEADER_SIZE + 8 * index,
			    err);
			if (rc < 0)
				return -1;
			if (rc == 1) {
				tp_out_write(c->out, hb, sizeof hb);
				started = 1;
			}
			p = tp_out_reserve(c->out, 8);
			memcpy(p, b + 8 * i, 8);
			tp_out_commit(c->out, p + 8);
		}
		in->pos += 8 * n;
	}
	if (!started) {
		/* No event: one piece, the header alone. */
		if ((rc = tp_cut_here(c, 0, RB_HEADER_SIZE, err)) < 0)
			return -1;
		tp_out_write(c->out, hb, sizeof hb);
	}
	return finish_piece(c, err);
}
