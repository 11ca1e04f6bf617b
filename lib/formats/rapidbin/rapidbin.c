/*
 * RapidBin decoder and encoder.
 *
 * The decoder reads 8-byte words straight out of the input buffer and
 * formats each event with fixed pieces and table-driven decimals.  The
 * encoder must see the whole trace before it can write the header and
 * before it can decide, for each id space, whether the values are kept as
 * they are or renumbered densely; it spools compact raw events meanwhile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "base/distinct.h"
#include "base/hash.h"
#include "base/idmap.h"
#include "base/leb128.h"
#include "formats/probe.h"
#include "formats/rapidbin/rapidbin.h"
#include "io/spool.h"
#include "text/json.h"

static const char *const rb_kind[RB_NOPS] = {
	"acquire", "release", "read", "write", "fork", "join",
	"begin", "end", "request", "branch"
};

static const char *const rb_decor_key[RB_NOPS] = {
	"lock", "lock", "var", "var", "child", "child",
	NULL, NULL, "lock", NULL
};

const enum rb_decor_kind rb_decor_kind[RB_NOPS] = {
	RB_D_LOCK, RB_D_LOCK, RB_D_VAR, RB_D_VAR, RB_D_THREAD, RB_D_THREAD,
	RB_D_NONE, RB_D_NONE, RB_D_LOCK, RB_D_NONE
};

static void
rb_header_get(const unsigned char *b, struct rb_header *h)
{
	h->threads = tp_get_be16(b);
	h->locks = tp_get_be32(b + 2);
	h->vars = tp_get_be32(b + 6);
	h->events = tp_get_be64(b + 10);
}

static void
rb_header_put(unsigned char *b, const struct rb_header *h)
{
	tp_put_be16(b, h->threads);
	tp_put_be32(b + 2, h->locks);
	tp_put_be32(b + 6, h->vars);
	tp_put_be64(b + 10, h->events);
}

/* ------------------------------------------------------ event text */

/*
 * Fixed pieces, padded to 16 bytes so that each is copied with one
 * constant-size memcpy; the slack past the end is overwritten later.
 */
struct piece {
	char s[16];
	size_t n;
};

#define PIECE(str) { str, sizeof str - 1 }

static const struct piece kind_tid[RB_NOPS] = {
	PIECE("acquire tid="), PIECE("release tid="), PIECE("read tid="),
	PIECE("write tid="), PIECE("fork tid="), PIECE("join tid="),
	PIECE("begin tid="), PIECE("end tid="), PIECE("request tid="),
	PIECE("branch tid=")
};

static const struct piece decor_eq[RB_NOPS] = {
	PIECE(" lock="), PIECE(" lock="), PIECE(" var="), PIECE(" var="),
	PIECE(" child="), PIECE(" child="), PIECE(" decor="), PIECE(" decor="),
	PIECE(" lock="), PIECE(" decor=")
};

static inline char *
put_piece(char *p, const struct piece *pc)
{
	memcpy(p, pc->s, 16);
	return p + pc->n;
}

/* Small values (most ids) without the general routine's copy. */
static inline char *
fmt_dec(char *p, uint64_t v)
{
	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100) {
		memcpy(p, tp_digits2 + 2 * v, 2);
		return p + 2;
	}
	if (v < 10000) {
		unsigned hi = (unsigned)v / 100, lo = (unsigned)v % 100;
		if (hi < 10) {
			*p = (char)('0' + hi);
			memcpy(p + 1, tp_digits2 + 2 * lo, 2);
			return p + 3;
		}
		memcpy(p, tp_digits2 + 2 * hi, 2);
		memcpy(p + 2, tp_digits2 + 2 * lo, 2);
		return p + 4;
	}
	return tp_fmt_u64(p, v);
}

char *
rb_fmt_event(char *p, const struct rb_event *e)
{
	static const struct piece loc_eq = PIECE(" loc=");
	static const struct piece bit63 = PIECE(" bit63=1");

	p = put_piece(p, &kind_tid[e->op]);
	p = fmt_dec(p, e->tid);
	if (rb_decor_kind[e->op] != RB_D_NONE || e->decor != 0) {
		p = put_piece(p, &decor_eq[e->op]);
		p = fmt_dec(p, e->decor);
	}
	p = put_piece(p, &loc_eq);
	p = fmt_dec(p, e->loc);
	if (e->bit63)
		p = put_piece(p, &bit63);
	*p++ = '\n';
	return p;
}

/*
 * The kind of a text record: an enum rb_op, RB_K_HEADER, RB_K_END (the
 * number of events the file held, when not the header's) or RB_K_OTHER.
 */
#define RB_K_HEADER (-1)
#define RB_K_OTHER (-2)
#define RB_K_END (-3)

/* The operation of each shared kind; insn and event have none. */
static const signed char op_of_kind[TK_NKINDS] = {
	[TK_INSN] = RB_K_OTHER, [TK_READ] = RB_READ, [TK_WRITE] = RB_WRITE,
	[TK_ACQUIRE] = RB_ACQUIRE, [TK_RELEASE] = RB_RELEASE,
	[TK_REQUEST] = RB_REQUEST, [TK_FORK] = RB_FORK, [TK_JOIN] = RB_JOIN,
	[TK_BEGIN] = RB_BEGIN, [TK_END] = RB_END, [TK_BRANCH] = RB_BRANCH,
	[TK_EVENT] = RB_K_OTHER
};

static int
rb_rec_kind(const struct tr_rec *rec)
{
	int kind = tp_kind(rec->kind, rec->kindlen,
	    (size_t)(rec->line + rec->len - rec->kind));

	if (kind != TK_OTHER)
		return op_of_kind[kind];
	if (rec->kindlen == 15 && memcmp(rec->kind, "rapidbin-header", 15) == 0)
		return RB_K_HEADER;
	if (rec->kindlen == 12 && memcmp(rec->kind, "rapidbin-end", 12) == 0)
		return RB_K_END;
	return RB_K_OTHER;
}

/* Field keys the event records use, found in one pass over the fields. */
enum {
	FK_TID, FK_LOCK, FK_VAR, FK_CHILD, FK_DECOR, FK_LOC, FK_BIT63, FK_ADDR,
	FK_SIZE, FK_PC, FK_INPUT, FK_SEQ, FK_TS, FK_OLD, FK_NEW, FK_DATA,
	FK_DEPTH, FK_NKEYS
};

/*
 * From FK_SEQ on, fields of the shared kinds that RAPID's model has no
 * place for (x64dbg's sequence numbers, times, the values of accesses,
 * Usercorn's syscall depth): known, so not typos, and dropped as
 * txt2rapidbin(1) says.
 */
static const char *const field_keys[FK_NKEYS] = {
	[FK_TID] = "tid", [FK_LOCK] = "lock", [FK_VAR] = "var",
	[FK_CHILD] = "child", [FK_DECOR] = "decor", [FK_LOC] = "loc",
	[FK_BIT63] = "bit63", [FK_ADDR] = "addr", [FK_SIZE] = "size",
	[FK_PC] = "pc", [FK_INPUT] = "input", [FK_SEQ] = "seq", [FK_TS] = "ts",
	[FK_OLD] = "old", [FK_NEW] = "new", [FK_DATA] = "data",
	[FK_DEPTH] = "depth"
};

/* The first field of each key this module reads, or NULL. */
static void
find_fields(const struct tr_rec *rec, const struct tr_field *f[FK_NKEYS])
{
	static struct tr_keys keys;

	if (keys.key == NULL)
		tr_keys_init(&keys, field_keys, FK_NKEYS);
	tr_fields(&keys, rec, f);
}

static const int decor_field[RB_NOPS] = {
	FK_LOCK, FK_LOCK, FK_VAR, FK_VAR, FK_CHILD, FK_CHILD,
	FK_DECOR, FK_DECOR, FK_LOCK, FK_DECOR
};

/* tr_u64 without a call on the good path (once per field of every event). */
static inline int
field_u64(struct tr_reader *r, const struct tr_rec *rec,
    const struct tr_field *f, uint64_t *v)
{
	if (tp_parse_u64(f->val, f->vallen, v) == 0)
		return 0;
	return tr_u64(r, rec, f, v);
}

static inline int
get_bit63(struct tr_reader *r, const struct tr_rec *rec,
    const struct tr_field *f, int *bit)
{
	uint64_t v = 0;

	if (f == NULL) {
		*bit = 0;
		return 0;
	}
	if (field_u64(r, rec, f, &v) < 0)
		return -1;
	if (v > 1)
		return tr_fail(r, rec, f, "must be 0 or 1");
	*bit = (int)v;
	return 0;
}

/* ------------------------------------------------------------ decoder */

/*
 * The distinct ids of one kind (-v, -s): exact in an idmap up to
 * RB_EXACT_IDS of them, then estimated (distinct.h), so that memory stays
 * fixed whatever the trace holds.
 */
struct ids {
	struct idmap map;
	struct tp_distinct est;
	int over;		/* more than RB_EXACT_IDS: the estimate counts */
};

struct counter {
	struct ids threads, locks, vars;
};

static void
ids_init(struct ids *d)
{
	idmap_init(&d->map);
	tp_distinct_init(&d->est);
	d->over = 0;
}

static int
ids_put(struct ids *d, uint64_t v)
{
	tp_distinct_add(&d->est, tp_hash64(v, 0));
	if (d->over)
		return 0;
	if (d->map.count < RB_EXACT_IDS)
		return idmap_put(&d->map, v, 0, NULL) < 0 ? -1 : 0;
	if (idmap_get(&d->map, v, 0) < 0) {
		d->over = 1;
		idmap_free(&d->map);	/* no longer needed */
	}
	return 0;
}

static uint64_t
ids_count(const struct ids *d)
{
	return d->over ? tp_distinct_estimate(&d->est) : d->map.count;
}

static int
count_event(struct counter *c, const struct rb_event *e)
{
	if (ids_put(&c->threads, e->tid) < 0)
		return -1;
	switch (rb_decor_kind[e->op]) {
	case RB_D_LOCK:
		return ids_put(&c->locks, e->decor);
	case RB_D_VAR:
		return ids_put(&c->vars, e->decor);
	case RB_D_THREAD:
		return ids_put(&c->threads, e->decor);
	default:
		return 0;
	}
}

/* Wasmgrind's readers clear the sign bit of every header field. */
#define HDR_THREADS(h) ((uint64_t)((h)->threads & 0x7fff))
#define HDR_LOCKS(h) ((uint64_t)((h)->locks & 0x7fffffff))
#define HDR_VARS(h) ((uint64_t)((h)->vars & 0x7fffffff))
#define HDR_EVENTS(h) ((h)->events & INT64_MAX)

/* Strict: has a count gone past the header already?  (Exact counts only.) */
static int
strict_over(const struct counter *c, const struct rb_header *h,
    uint64_t events, struct tp_err *err)
{
	static const char fmt[] = "strict: more distinct %s than the "
	    "header's %s=%llu";

	if (events > HDR_EVENTS(h))
		return tp_fail(err, TP_EXIT_DATA, "strict: more events than "
		    "the header's events=%llu",
		    (unsigned long long)HDR_EVENTS(h));
	if (!c->threads.over && c->threads.map.count > HDR_THREADS(h))
		return tp_fail(err, TP_EXIT_DATA, fmt, "threads", "threads",
		    (unsigned long long)HDR_THREADS(h));
	if (!c->locks.over && c->locks.map.count > HDR_LOCKS(h))
		return tp_fail(err, TP_EXIT_DATA, fmt, "locks", "locks",
		    (unsigned long long)HDR_LOCKS(h));
	if (!c->vars.over && c->vars.map.count > HDR_VARS(h))
		return tp_fail(err, TP_EXIT_DATA, fmt, "variables", "vars",
		    (unsigned long long)HDR_VARS(h));
	return 0;
}

/*
 * A count against the header's: exactly, or, past RB_EXACT_IDS, within
 * the estimate's bound (RB_EST_PERCENT of the header's count).
 */
static int
strict_count(const struct ids *d, uint64_t hdr, const char *key,
    const char *what, struct tp_err *err)
{
	uint64_t n = ids_count(d), diff = n > hdr ? n - hdr : hdr - n;

	if (!d->over && n != hdr)
		return tp_fail(err, TP_EXIT_DATA, "strict: the header says "
		    "%s=%llu, the trace has %llu distinct %s", key,
		    (unsigned long long)hdr, (unsigned long long)n, what);
	if (d->over && diff > hdr / 100 * RB_EST_PERCENT)
		return tp_fail(err, TP_EXIT_DATA, "strict: the header says "
		    "%s=%llu, the trace has about %llu distinct %s (an "
		    "estimate past %u, within %u %%)", key,
		    (unsigned long long)hdr, (unsigned long long)n, what,
		    RB_EXACT_IDS, RB_EST_PERCENT);
	return 0;
}

static int
strict_end(const struct counter *c, const struct rb_header *h,
    uint64_t events, struct tp_err *err)
{
	if (events != HDR_EVENTS(h))
		return tp_fail(err, TP_EXIT_DATA, "strict: the header says "
		    "events=%llu, the trace has %llu events",
		    (unsigned long long)HDR_EVENTS(h),
		    (unsigned long long)events);
	if (strict_count(&c->threads, HDR_THREADS(h), "threads", "threads",
	    err) < 0 || strict_count(&c->locks, HDR_LOCKS(h), "locks", "locks",
	    err) < 0)
		return -1;
	return strict_count(&c->vars, HDR_VARS(h), "vars", "variables", err);
}

/* Events formatted per output reservation: 400 * 128 < TP_OUT_SLACK. */
#define DEC_BATCH 400

static void
event_at(struct tp_in *in, uint64_t index, struct tp_err *err)
{
	err->offset = tp_in_offset(in);
	err->index = index;
	err->unit = "event";
}

int
rb_header_read(struct tp_in *in, unsigned char *hb, struct tp_err *err)
{
	int rc = tp_in_exact(in, hb, RB_HEADER_SIZE, "header");

	if (rc == 0) {
		err->offset = 0;
		tp_fail(err, TP_EXIT_DATA, "empty input: no RapidBin header "
		    "(18 bytes)");
	}
	return rc > 0 ? 1 : -1;
}

int
rb_fail_truncated(struct tp_in *in, uint64_t index, long avail,
    struct tp_err *err)
{
	event_at(in, index, err);
	return tp_fail(err, TP_EXIT_DATA, "truncated event: %ld trailing "
	    "bytes after the last whole event", avail);
}

int
rb_fail_op(struct tp_in *in, uint64_t index, unsigned op, struct tp_err *err)
{
	event_at(in, index, err);
	return tp_fail(err, TP_EXIT_DATA, "invalid operation %u (valid: 0-9)",
	    op);
}

static int
decode_events(struct tp_in *in, struct tp_out *out,
    const struct rapidbin_dec_opts *opts, struct rapidbin_dec_stats *st,
    struct counter *cnt, struct tp_err *err)
{
	int counting = opts->strict || opts->count, badop = 0;
	uint64_t index = 0;
	struct rb_event e;

	for (;;) {
		long avail = tp_in_fill(in, 8);
		const unsigned char *b;
		size_t n, done = 0;

		if (avail < 0)
			return -1;
		if (avail < 8) {
			if (avail == 0)
				break;
			st->events = index;
			if (opts->allow_truncated) {
				/* A writer stopped in the middle of a word. */
				st->truncated_at = tp_in_offset(in);
				st->truncated_bytes = (unsigned)avail;
				in->pos += (size_t)avail;
				return 0;
			}
			return rb_fail_truncated(in, index, avail, err);
		}
		b = in->buf + in->pos;
		n = (size_t)avail / 8;
		while (done < n) {
			size_t end = n - done < DEC_BATCH ? n : done + DEC_BATCH;
			char *p = tp_out_reserve(out, DEC_BATCH * RB_LINE_MAX);
			for (; done < end; done++, index++) {
				rb_unpack(tp_get_be64(b + 8 * done), &e);
				if (e.op >= RB_NOPS) {
					badop = 1;
					goto fault;
				}
				st->bit63 += (unsigned)e.bit63;
				if (counting) {
					if (count_event(cnt, &e) < 0) {
						tp_fail(err, TP_EXIT_FAIL,
						    "out of memory");
						goto fault;
					}
					if (opts->strict && strict_over(cnt,
					    &st->header, index + 1, err) < 0)
						goto fault;
				}
				p = rb_fmt_event(p, &e);
			}
			tp_out_commit(out, p);
			continue;
fault:
			tp_out_commit(out, p);
			in->pos += 8 * done;
			st->events = index;
			if (badop)
				return rb_fail_op(in, index, e.op, err);
			event_at(in, index, err);
			return -1;
		}
		in->pos += 8 * n;
	}
	st->events = index;
	return 0;
}

int
rapidbin_decode(struct tp_in *in, struct tp_out *out,
    const struct rapidbin_dec_opts *opts, struct rapidbin_dec_stats *st,
    struct tp_err *err)
{
	unsigned char hb[RB_HEADER_SIZE];
	struct counter cnt;
	int rc;

	memset(st, 0, sizeof *st);
	st->truncated_at = TP_NONE;
	st->strict = opts->strict;
	st->counted = opts->strict || opts->count;
	if (rb_header_read(in, hb, err) < 0)
		return -1;
	rb_header_get(hb, &st->header);
	st->have_header = 1;
	tw_begin(out, "rapidbin-header");
	tw_u64(out, "threads", st->header.threads);
	tw_u64(out, "locks", st->header.locks);
	tw_u64(out, "vars", st->header.vars);
	tw_u64(out, "events", st->header.events);
	tw_end(out);

	ids_init(&cnt.threads);
	ids_init(&cnt.locks);
	ids_init(&cnt.vars);
	rc = decode_events(in, out, opts, st, &cnt, err);
	if (rc == 0 && opts->strict) {
		if (strict_end(&cnt, &st->header, st->events, err) < 0) {
			err->offset = tp_in_offset(in);
			rc = -1;
		}
	}
	if (rc == 0 && st->events != HDR_EVENTS(&st->header)) {
		/*
		 * The header does not count the events the file holds: say
		 * how many it held, so that the encoder can tell this stream
		 * untouched (header as stored) from a filtered one (counted).
		 */
		tw_begin(out, "rapidbin-end");
		tw_u64(out, "events", st->events);
		tw_end(out);
	}
	st->threads = ids_count(&cnt.threads);
	st->locks = ids_count(&cnt.locks);
	st->vars = ids_count(&cnt.vars);
	st->estimated = cnt.threads.over | cnt.locks.over << 1 |
	    cnt.vars.over << 2;
	idmap_free(&cnt.threads.map);
	idmap_free(&cnt.locks.map);
	idmap_free(&cnt.vars.map);
	return rc;
}

/*
 * Counts that no RapidBin writer makes: negative ones (RAPID reads them
 * as Java short, int and long), more threads than a 10-bit id names,
 * more events than 2^48 (two petabytes of them).
 */
int
rapidbin_probe(const unsigned char *p, size_t n, char *detail,
    size_t detailsz)
{
	struct rb_header h;
	size_t i;

	if (detailsz > 0)
		detail[0] = '\0';
	if (n < RB_HEADER_SIZE)
		return TP_PROBE_NO;
	rb_header_get(p, &h);
	if (h.threads > RB_TID_MAX + 1 || h.locks > INT32_MAX ||
	    h.vars > INT32_MAX || (h.events & INT64_MAX) >> 48 != 0)
		return TP_PROBE_NO;
	if (n < TP_PROBE_LEN && (n - RB_HEADER_SIZE) % 8 != 0)
		return TP_PROBE_NO;
	for (i = RB_HEADER_SIZE; i + 8 <= n; i += 8)
		if (((tp_get_be64(p + i) >> RB_OP_SHIFT) & RB_OP_MAX) >= RB_NOPS)
			return TP_PROBE_NO;
	if (detailsz > 0)
		snprintf(detail, detailsz, "threads=%u events=%llu",
		    (unsigned)h.threads,
		    (unsigned long long)(h.events & INT64_MAX));
	return TP_PROBE_MAYBE;
}

/* ------------------------------------------------------------ spool */

/*
 * Raw events, one spool record each: a flags byte (op in bits 0-3, bit
 * 63 in bit 4, "decor is an address" in bit 5, loc kind in bits 6-7),
 * then LEB128 tid, decor, size (addresses only) and loc (unless absent).
 * An event that is not on the line after the previous one is preceded by
 * RAW_SKIP and the number of lines skipped, so that an error found while
 * mapping can name its line (a flags byte is never 0xff: loc kind 3 does
 * not exist).  Where the input= of an event differs from the one before,
 * RAW_INPUT and the new input come first (also never a flags byte).
 */
#define RAW_SKIP 0xff
#define RAW_INPUT 0xfe		/* the input (input=) from here on */
#define RAW_MAX (1 + TP_LEB_MAX + 1 + TP_LEB_MAX + 1 + 4 * TP_LEB_MAX)

enum { LOC_NONE, LOC_NATIVE, LOC_PC };

struct raw_event {
	unsigned op;
	int bit63;
	int addr;		/* decor is an address; size is its width */
	int lockind;
	uint64_t tid, decor, size, loc;
	uint64_t input;		/* input=, 0 when absent */
	uint64_t line;		/* of the text record */
};

/* The events, and the line and input of the last one put or got. */
struct raw_spool {
	struct tp_spool s;
	uint64_t line, input;
};

static inline __attribute__((always_inline)) int
raw_put(struct raw_spool *rs, const struct raw_event *e)
{
	unsigned char b[RAW_MAX], *p = b;

	if (e->line != rs->line + 1) {
		*p++ = RAW_SKIP;
		p = tp_uleb_put(p, e->line - rs->line - 1);
	}
	rs->line = e->line;
	if (e->input != rs->input) {
		*p++ = RAW_INPUT;
		p = tp_uleb_put(p, e->input);
		rs->input = e->input;
	}
	*p++ = (unsigned char)(e->op | (unsigned)e->bit63 << 4 |
	    (unsigned)e->addr << 5 | (unsigned)e->lockind << 6);
	p = tp_uleb_put(p, e->tid);
	p = tp_uleb_put(p, e->decor);
	if (e->addr)
		p = tp_uleb_put(p, e->size);
	if (e->lockind != LOC_NONE)
		p = tp_uleb_put(p, e->loc);
	return tp_spool_put(&rs->s, b, (size_t)(p - b));
}

static int
raw_rewind(struct raw_spool *rs)
{
	rs->line = rs->input = 0;
	return tp_spool_rewind(&rs->s);
}

/* One LEB128 value of a record the spool gives back as it was put. */
static const unsigned char *
raw_uleb(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
	size_t n;

	if (p >= end || tp_uleb_get(p, (size_t)(end - p), v, &n) != TP_LEB_OK) {
		*v = 0;
		return end;
	}
	return p + n;
}

/* 1 with the next event, 0 at the end, -1 on error. */
static int
raw_get(struct raw_spool *rs, struct raw_event *e)
{
	const unsigned char *p, *end;
	uint64_t skip = 0;
	size_t n;
	int rc = tp_spool_get(&rs->s, &p, &n);

	if (rc <= 0)
		return rc;
	end = p + n;
	if (p < end && *p == RAW_SKIP)
		p = raw_uleb(p + 1, end, &skip);
	if (p < end && *p == RAW_INPUT)
		p = raw_uleb(p + 1, end, &rs->input);
	if (p >= end)
		return tp_fail(rs->s.err, TP_EXIT_FAIL, "corrupt spool record");
	e->line = rs->line += skip + 1;
	e->input = rs->input;
	e->op = *p & 0xf;
	e->bit63 = *p >> 4 & 1;
	e->addr = *p >> 5 & 1;
	e->lockind = *p >> 6;
	p = raw_uleb(p + 1, end, &e->tid);
	p = raw_uleb(p, end, &e->decor);
	e->size = 0;
	if (e->addr)
		p = raw_uleb(p, end, &e->size);
	e->loc = 0;
	if (e->lockind != LOC_NONE)
		raw_uleb(p, end, &e->loc);
	return 1;
}

/* ------------------------------------------------------------ encoder */

/* The first line where a value did not fit its field (0: none). */
struct over {
	uint64_t line;
	const char *field;
	uint64_t value;
};

static void
note_over(struct over *o, const struct tr_rec *rec, const char *field,
    uint64_t v)
{
	if (o->line == 0) {
		o->line = rec->lineno;
		o->field = field;
		o->value = v;
	}
}

/* A native variable is keyed apart from any (address, size) pair. */
#define NATIVE_WIDTH UINT64_MAX
/* Kept apart by input: the input above the width, native the widest. */
#define IN_SHIFT 40
#define WIDTH_NATIVE_IN ((UINT64_C(1) << IN_SHIFT) - 1)

struct enc {
	struct tr_reader *r;
	struct tp_err *err;
	const struct rapidbin_enc_opts *opts;
	struct rapidbin_enc_stats *st;
	struct raw_spool spool;

	struct rb_header hrec;	/* the first rapidbin-header record */
	int nhrec;
	uint64_t end_events;	/* the last rapidbin-end record's events= */
	int nend;

	/* First pass: which values do not fit. */
	int tid_over, addr_over, pc_over;	/* tid and child, addr, pc */
	struct over lock_over, var_over, loc_over;

	/* Decisions. */
	int dense_thr, dense_lock, dense_var, dense_loc;
	int counting;		/* the pass that counts for the header */

	/* Inputs (input=): the first one seen, and whether there are more. */
	uint64_t input0;
	int inputs_seen;	/* 0 none yet, 1 one, 2 several */
	int input_none;		/* every record so far of input 0 */
	int separate;		/* several: every id keyed by (input, id) */
	int foreign;		/* an access by addr=, or a loc from pc= */
	int direct;		/* events go to the sink as read: enc_direct() */
	struct tp_out *out;
	uint64_t width_max;	/* access widths keyable with an input */

	/* Maps: value -> first-appearance id (dense), or distinct sets. */
	struct idmap thr, lock, var, varval, loc, shared;
	int use_thr, use_lock, use_var, use_varval, use_loc, use_shared;
};

static int
enc_header(struct enc *x, const struct tr_rec *rec)
{
	static const char *const keys[4] = { "threads", "locks", "vars",
	    "events" };
	static const uint64_t max[4] = { UINT16_MAX, UINT32_MAX, UINT32_MAX,
	    UINT64_MAX };
	uint64_t v[4];

	for (int i = 0; i < 4; i++) {
		if (tr_get_u64(x->r, rec, keys[i], &v[i], 1) < 0)
			return -1;
		if (v[i] > max[i])
			return tr_fail(x->r, rec, tr_find(rec, keys[i]),
			    "does not fit the header field (max %llu)",
			    (unsigned long long)max[i]);
	}
	if (x->nhrec++ == 0) {
		x->hrec.threads = (uint16_t)v[0];
		x->hrec.locks = (uint32_t)v[1];
		x->hrec.vars = (uint32_t)v[2];
		x->hrec.events = v[3];
	}
	return 0;
}

static int
enc_skip(struct enc *x, const struct tr_rec *rec)
{
	if (tr_rebuilt(&x->st->skipped, rec))
		return 0;
	return tr_skip(x->r, rec, &x->st->skipped, "record kind \"%.*s\"",
	    (int)(rec->kindlen > 40 ? 40 : rec->kindlen), rec->kind);
}

/*
 * A field of none of the keys above is a typo, or a field of some other
 * format's record of a shared kind: counted, the first named.  Every key
 * once in a record (the reader refuses one twice), so counting the keys
 * found tells whether there is one.
 */
static int
unknown_field(struct enc *x, const struct tr_rec *rec, int op,
    const struct tr_field *f[FK_NKEYS])
{
	size_t known = 0, i;
	int k;

	for (k = 0; k < FK_NKEYS; k++)
		known += f[k] != NULL;
	if (known == rec->nf)
		return 0;
	for (i = 0; i < rec->nf; i++) {
		for (k = 0; k < FK_NKEYS && f[k] != &rec->f[i]; k++)
			;
		if (k == FK_NKEYS)
			break;
	}
	return tr_lose(x->r, rec, &x->st->skipped, RB_UNKNOWN_FIELD,
	    "field \"%.*s\" in a %s record", (int)(rec->f[i].keylen > 40 ? 40 :
	    rec->f[i].keylen), rec->f[i].key, rb_kind[op]);
}

/*
 * A stream of the sink's own format, untagged from its first record
 * (direct): its ids are kept, so each event goes out as it is read.  An
 * event whose ids would need mapping cannot join it then.
 */
static int
enc_direct(struct enc *x, const struct tr_rec *rec, const struct raw_event *e)
{
	const struct rb_sink *sink = x->opts->sink;
	struct rb_event m;

	if (e->addr || e->lockind == LOC_PC || e->input != x->input0)
		return tr_fail(x->r, rec, NULL, "%s, in a stream that began as "
		    "one of the target's own format and is written as it is "
		    "read: tag the inputs apart (txtmerge --tag)", e->addr ?
		    "an access by address" : e->lockind == LOC_PC ?
		    "a location from pc=" : "another input");
	m.op = e->op;
	m.bit63 = e->bit63;
	m.tid = e->tid;
	m.decor = e->decor;
	m.loc = e->loc;		/* 0 when absent */
	tp_out_commit(x->out, sink->event(sink->ctx, tp_out_reserve(x->out,
	    sink->max), &m));
	return 0;
}

/* The input of a record (input=, from txtmerge --tag), 0 without. */
static int
enc_input(struct enc *x, const struct tr_rec *rec, const struct tr_field *f,
    uint64_t *input)
{
	*input = 0;
	if (f != NULL && field_u64(x->r, rec, f, input) < 0)
		return -1;
	if (*input > 0xffffff)
		return tr_fail(x->r, rec, f, "more than 16777216 inputs are not "
		    "kept apart");
	if (x->inputs_seen == 0) {
		x->input0 = *input;
		x->inputs_seen = 1;
	} else if (*input != x->input0)
		x->inputs_seen = 2;
	x->input_none = x->inputs_seen == 1 && x->input0 == 0;
	return 0;
}

static int
enc_record(struct enc *x, const struct tr_rec *rec, int op)
{
	const struct tr_field *f[FK_NKEYS];
	struct raw_event e;
	int dk = decor_field[op];

	find_fields(rec, f);
	memset(&e, 0, sizeof e);
	e.op = (unsigned)op;
	e.line = rec->lineno;
	/* Native events (tid, operand, loc) have nothing else to look at. */
	if ((size_t)((f[FK_TID] != NULL) + (f[dk] != NULL) +
	    (f[FK_LOC] != NULL)) != rec->nf && unknown_field(x, rec, op, f) < 0)
		return -1;
	if (f[FK_TID] == NULL)
		return tr_fail(x->r, rec, NULL, "%s record without tid=",
		    rb_kind[op]);
	if (field_u64(x->r, rec, f[FK_TID], &e.tid) < 0)
		return -1;
	if (e.tid > RB_TID_MAX)
		x->tid_over = 1;
	if ((f[FK_INPUT] != NULL || !x->input_none) &&
	    enc_input(x, rec, f[FK_INPUT], &e.input) < 0)
		return -1;

	if (f[dk] != NULL) {
		if (field_u64(x->r, rec, f[dk], &e.decor) < 0)
			return -1;
		if (e.decor > RB_DECOR_MAX) {
			switch (dk) {
			case FK_LOCK:
				note_over(&x->lock_over, rec, "lock", e.decor);
				break;
			case FK_VAR:
				note_over(&x->var_over, rec, "var", e.decor);
				break;
			case FK_CHILD:
				/*
				 * A thread id from another format: the
				 * thread space is renumbered.  A child that
				 * fits the decor is kept, even above 1023:
				 * Wasmgrind writes fork targets unmasked.
				 */
				x->tid_over = 1;
				break;
			case FK_DECOR:
				if (x->opts->sink != NULL)
					break;	/* text: kept */
				return tr_fail(x->r, rec, f[dk], "does not "
				    "fit 34 bits (max 17179869183)");
			}
		}
	} else if (dk == FK_VAR && f[FK_ADDR] != NULL) {
		/* A memory access from another format: address and width. */
		e.addr = 1;
		x->foreign = 1;
		if (field_u64(x->r, rec, f[FK_ADDR], &e.decor) < 0)
			return -1;
		if (f[FK_SIZE] != NULL &&
		    field_u64(x->r, rec, f[FK_SIZE], &e.size) < 0)
			return -1;
		if (e.decor > RB_DECOR_MAX)
			x->addr_over = 1;
		if (e.size > x->width_max)
			x->width_max = e.size;
	} else if (dk != FK_DECOR) {
		return tr_fail(x->r, rec, NULL, "%s record without %s=%s",
		    rb_kind[op], rb_decor_key[op], dk == FK_VAR ?
		    " or addr= (an address and its size=, as x64dbg and "
		    "Usercorn text have)" : "");
	}

	if (f[FK_LOC] != NULL) {
		e.lockind = LOC_NATIVE;
		if (field_u64(x->r, rec, f[FK_LOC], &e.loc) < 0)
			return -1;
		if (e.loc > RB_LOC_MAX) {
			if (x->opts->sink != NULL &&
			    e.loc > x->opts->sink->wide_loc_max)
				return tr_fail(x->r, rec, f[FK_LOC], "%s",
				    x->opts->sink->wide_loc_why);
			note_over(&x->loc_over, rec, "loc", e.loc);
		}
	} else if (f[FK_PC] != NULL && !x->opts->no_pc) {
		e.lockind = LOC_PC;
		x->foreign = 1;
		if (field_u64(x->r, rec, f[FK_PC], &e.loc) < 0)
			return -1;
		if (e.loc > RB_LOC_MAX)
			x->pc_over = 1;
	}
	if (get_bit63(x->r, rec, f[FK_BIT63], &e.bit63) < 0)
		return -1;
	x->st->events++;
	if (x->direct)
		return enc_direct(x, rec, &e);
	return raw_put(&x->spool, &e);
}

/*
 * A stream that begins, untagged, as one of RapidBin or STD events needs
 * no mapping for another sink, whose ids are text: it goes out as read
 * (enc_direct()), unless the mapping is asked for (--meta).
 */
static void
may_go_direct(struct enc *x, const struct tr_rec *rec)
{
	if (x->opts->sink != NULL && x->st->events == 0 &&
	    x->inputs_seen == 0 && x->opts->meta == NULL &&
	    tr_find(rec, "input") == NULL)
		x->direct = 1;
}

/* A record of no RapidBin kind: skipped, or the sink's (a marker). */
static int
enc_other(struct enc *x, const struct tr_rec *rec)
{
	struct rb_sink *sink = x->opts->sink;
	struct raw_event e;
	int rc;

	if (sink == NULL || sink->other == NULL)
		return enc_skip(x, rec);
	memset(&e, 0, sizeof e);
	if ((rc = sink->other(sink->ctx, x->r, rec, &e.decor)) <= 0)
		return rc < 0 ? -1 : enc_skip(x, rec);
	if (rc == 1)
		return 0;
	if (sink->wide)
		may_go_direct(x, rec);
	if (x->direct) {
		struct rb_event m;
		m.op = RB_MARK;
		m.decor = e.decor;
		tp_out_commit(x->out, sink->event(sink->ctx,
		    tp_out_reserve(x->out, sink->max), &m));
		return 0;
	}
	e.op = RB_MARK;
	e.line = rec->lineno;
	e.input = x->spool.input;
	return raw_put(&x->spool, &e);
}

static int
enc_read(struct enc *x)
{
	struct tr_rec *rec = malloc(sizeof *rec);
	int rc;

	if (rec == NULL)
		return tp_fail(x->err, TP_EXIT_FAIL, "out of memory");
	while ((rc = tr_next(x->r, rec)) > 0) {
		int k = rb_rec_kind(rec);
		if (k >= 0)
			rc = enc_record(x, rec, k);
		else if (k == RB_K_HEADER) {
			may_go_direct(x, rec);
			rc = enc_header(x, rec);
		}
		else if (k == RB_K_END)
			rc = (x->nend++, tr_get_u64(x->r, rec, "events",
			    &x->end_events, 1));
		else
			rc = enc_other(x, rec);
		if (rc < 0)
			break;
	}
	free(rec);
	return rc;
}

static int
over_error(struct enc *x, const struct over *o, unsigned bits)
{
	x->err->line = o->line;
	x->err->offset = TP_NONE;
	return tp_fail(x->err, TP_EXIT_DATA, "field \"%s\": %llu does not fit "
	    "%u bits (max %llu); use --dense to renumber the %s values",
	    o->field, (unsigned long long)o->value, bits,
	    (unsigned long long)((UINT64_C(1) << bits) - 1), o->field);
}

/*
 * Each id space is kept as it is when every value fits its field, and
 * renumbered in order of first appearance otherwise.  Thread ids (tid
 * and child), x64dbg addresses and code addresses are renumbered by
 * themselves; native lock, var and loc values only with --dense, because
 * a native value that does not fit is more likely a mistake than a
 * foreign id.
 */
static int
enc_decide(struct enc *x)
{
	int dense = x->opts->dense;

	/*
	 * Another sink whose ids are text (STD) keeps native ids as they are
	 * where nothing needs mapping: a stream of an STD file, or of native
	 * events only.  Otherwise its ids are txt2rapidbin's.
	 */
	if (x->opts->sink != NULL && (x->opts->sink->wide || !x->foreign)) {
		x->tid_over = 0;
		memset(&x->lock_over, 0, sizeof x->lock_over);
		memset(&x->var_over, 0, sizeof x->var_over);
		memset(&x->loc_over, 0, sizeof x->loc_over);
	}
	/*
	 * Records of several inputs (txtmerge --tag): the same number in two
	 * inputs is two threads, variables, locks or locations, so every
	 * space is renumbered by (input, id).
	 */
	if ((x->separate = x->inputs_seen == 2)) {
		if (x->width_max >= WIDTH_NATIVE_IN)
			return tp_fail(x->err, TP_EXIT_DATA, "an access of "
			    "size=%llu: sizes of 2^40 - 1 and more are not kept "
			    "apart by input", (unsigned long long)x->width_max);
		x->dense_thr = x->dense_lock = x->dense_var = x->dense_loc = 1;
		x->st->dense_threads = x->st->dense_locks = 1;
		x->st->dense_vars = x->st->dense_locs = 1;
		return 0;
	}

	x->dense_thr = x->tid_over;
	x->dense_lock = x->lock_over.line != 0;
	if (x->dense_lock && !dense)
		return over_error(x, &x->lock_over, RB_DECOR_BITS);
	x->dense_var = x->addr_over || x->var_over.line != 0;
	if (x->var_over.line != 0 && !x->addr_over && !dense)
		return over_error(x, &x->var_over, RB_DECOR_BITS);
	x->dense_loc = x->pc_over || x->loc_over.line != 0;
	if (x->loc_over.line != 0 && !x->pc_over && !dense)
		return over_error(x, &x->loc_over, RB_LOC_BITS);
	x->st->dense_threads = x->dense_thr;
	x->st->dense_locks = x->dense_lock;
	x->st->dense_vars = x->dense_var;
	x->st->dense_locs = x->dense_loc;
	return 0;
}

static int
map_fail(struct enc *x, const struct raw_event *e, const char *msg)
{
	x->err->offset = TP_NONE;
	x->err->line = e->line;
	return tp_fail(x->err, TP_EXIT_DATA, "%s", msg);
}

/*
 * Renumbered ids that do not all fit a field (more than max + 1 of them):
 * the first max keep their own, every later one shares max.  Returns 1
 * where id is folded (in the writing pass, when the counting pass has
 * seen them all), and counts the events that may be; an id beyond the
 * field is an error under --strict.
 */
static int
fold(struct enc *x, const struct raw_event *e, int64_t id, uint64_t max,
    const struct idmap *m, uint64_t *events, const char *what)
{
	if ((uint64_t)id < max)
		return 0;
	if ((uint64_t)id > max && x->opts->strict)
		return map_fail(x, e, what);
	if (x->counting) {
		(*events)++;
		return 0;
	}
	return m->count > max + 1;
}

static int
map_nomem(struct enc *x, const struct raw_event *e)
{
	return map_fail(x, e, "out of memory (or more than 2^32 distinct "
	    "ids)");
}

/*
 * Record key in m (its id: the order first seen); when dense, *field
 * gets the id, or max where the ids do not all fit (fold()).  0, or -1.
 */
static int
renumber(struct enc *x, const struct raw_event *e, struct idmap *m,
    uint64_t key, int dense, uint64_t max, uint64_t *events,
    const char *what, uint64_t *field)
{
	int64_t id = idmap_put(m, key, x->separate ? e->input : 0, NULL);
	int rc;

	if (id < 0)
		return map_nomem(x, e);
	if (!dense)
		return 0;
	if ((rc = fold(x, e, id, max, m, events, what)) < 0)
		return -1;
	*field = rc ? max : (uint64_t)id;
	return 0;
}

/* Map one raw event to the word's fields, recording ids in the maps in use. */
static int
enc_map(struct enc *x, const struct raw_event *e, struct rb_event *out)
{
	static const char many_threads[] = "strict: more than 1024 distinct "
	    "threads: they do not fit RapidBin's 10-bit thread id";
	static const char many_locs[] = "strict: more than 32768 distinct "
	    "locations: they do not fit RapidBin's 15-bit location (--no-pc "
	    "leaves code addresses out)";
	struct rapidbin_enc_stats *st = x->st;
	int64_t id;

	out->op = e->op;
	out->bit63 = e->bit63;
	out->tid = e->tid;
	out->decor = e->decor;
	out->loc = e->loc;

	if (x->use_thr && renumber(x, e, &x->thr, e->tid, x->dense_thr,
	    RB_TID_MAX, &st->folded_thread_events, many_threads, &out->tid) < 0)
		return -1;
	switch (rb_decor_kind[e->op]) {
	case RB_D_THREAD:
		/* A child beyond them is the shared thread. */
		if (x->use_thr && renumber(x, e, &x->thr, e->decor,
		    x->dense_thr, RB_TID_MAX, &st->folded_thread_events,
		    many_threads, &out->decor) < 0)
			return -1;
		break;
	case RB_D_LOCK:
		if (x->use_lock) {
			if ((id = idmap_put(&x->lock, e->decor, x->separate ?
			    e->input : 0, NULL)) < 0)
				return map_nomem(x, e);
			if (x->dense_lock)
				out->decor = (uint64_t)id;
		}
		break;
	case RB_D_VAR:
		if (x->use_var) {
			id = idmap_put(&x->var, e->decor, !x->separate ?
			    (e->addr ? e->size : NATIVE_WIDTH) : e->input <<
			    IN_SHIFT | (e->addr ? e->size : WIDTH_NATIVE_IN),
			    NULL);
			if (id < 0)
				return map_nomem(x, e);
			if (x->dense_var)
				out->decor = (uint64_t)id;
		}
		if (x->use_varval &&
		    idmap_put(&x->varval, out->decor, 0, NULL) < 0)
			return map_nomem(x, e);
		/* (variable, thread) in one word: 34 + 10 bits. */
		if (x->use_shared && idmap_put(&x->shared, out->decor <<
		    RB_TID_BITS | out->tid, 0, NULL) < 0)
			return map_nomem(x, e);
		break;
	default:
		break;
	}
	if (e->lockind == LOC_NONE)
		out->loc = 0;
	else if (x->use_loc && renumber(x, e, &x->loc, e->loc, x->dense_loc,
	    RB_LOC_MAX, &st->folded_loc_events, many_locs, &out->loc) < 0)
		return -1;
	return 0;
}

/*
 * A pass over the spool that fills every map in use: the distinct counts
 * for the header, and the errors renumbering can still meet.  Afterwards
 * the maps are complete, and the writing pass looks up only the spaces it
 * renumbers.
 */
static int
enc_count(struct enc *x, struct rb_header *h)
{
	struct raw_event e;
	struct rb_event m;
	int rc;

	if (raw_rewind(&x->spool) < 0)
		return -1;
	x->counting = 1;
	while ((rc = raw_get(&x->spool, &e)) > 0)
		if (e.op != RB_MARK && enc_map(x, &e, &m) < 0)
			return -1;
	x->counting = 0;
	if (rc < 0)
		return -1;
	/* Ids beyond a field share its last value (fold()). */
	if (x->dense_thr && x->thr.count > RB_TID_MAX + 1)
		x->st->folded_threads = x->thr.count - RB_TID_MAX;
	else
		x->st->folded_thread_events = 0;
	if (x->dense_loc && x->loc.count > RB_LOC_MAX + 1)
		x->st->folded_locs = x->loc.count - RB_LOC_MAX;
	else
		x->st->folded_loc_events = 0;
	x->use_thr = x->dense_thr;
	x->use_lock = x->dense_lock;
	x->use_var = x->dense_var;
	x->use_loc = x->dense_loc;
	x->use_varval = x->use_shared = 0;
	if (x->opts->sink != NULL)
		return 0;	/* no header */
	if (x->thr.count > INT16_MAX && !x->dense_thr)
		return tp_fail(x->err, TP_EXIT_DATA, "too many threads for "
		    "the header");
	h->threads = (uint16_t)(x->st->folded_threads > 0 ? RB_TID_MAX + 1 :
	    x->thr.count);
	h->locks = (uint32_t)x->lock.count;
	h->vars = (uint32_t)(x->dense_var ? x->var.count : x->varval.count);
	h->events = x->st->events;
	if (x->lock.count > INT32_MAX || h->vars > INT32_MAX)
		return tp_fail(x->err, TP_EXIT_DATA, "too many distinct locks "
		    "or variables for the header's 31-bit counts");
	return 0;
}

/* Events written per output reservation. */
#define ENC_BATCH 4096

static int
enc_write(struct enc *x, struct tp_out *out, const struct rb_header *h)
{
	unsigned char hb[RB_HEADER_SIZE];
	struct raw_event e;
	struct rb_event m;
	int rc = 1, mapping = x->use_thr || x->use_lock || x->use_var ||
	    x->use_varval || x->use_loc || x->use_shared;

	rb_header_put(hb, h);
	tp_out_write(out, hb, sizeof hb);
	if (raw_rewind(&x->spool) < 0)
		return -1;
	while (rc > 0) {
		unsigned char *p = (unsigned char *)tp_out_reserve(out,
		    ENC_BATCH * 8);
		int i;
		for (i = 0; i < ENC_BATCH; i++) {
			if ((rc = raw_get(&x->spool, &e)) <= 0)
				break;
			if (mapping) {
				if (enc_map(x, &e, &m) < 0)
					return -1;
			} else {
				m.op = e.op;
				m.bit63 = e.bit63;
				m.tid = e.tid;
				m.decor = e.decor;
				m.loc = e.loc;	/* 0 when absent */
			}
			tp_put_be64(p, rb_pack(&m));
			p += 8;
		}
		tp_out_commit(out, (char *)p);
	}
	return rc;
}

/* The mapped events to another writer (struct rb_sink), markers included. */
static int
enc_send(struct enc *x, struct tp_out *out, const struct rb_sink *sink)
{
	struct raw_event e;
	struct rb_event m;
	int rc;

	if (raw_rewind(&x->spool) < 0)
		return -1;
	while ((rc = raw_get(&x->spool, &e)) > 0) {
		char *p = tp_out_reserve(out, sink->max);
		if (e.op == RB_MARK) {
			m.op = RB_MARK;
			m.decor = e.decor;
		} else if (enc_map(x, &e, &m) < 0)
			return -1;
		tp_out_commit(out, sink->event(sink->ctx, p, &m));
	}
	return rc;
}

/* ------------------------------------------------------------ metadata */

struct meta_row {
	uint64_t trace_id, a, b;
};

static int
row_cmp(const void *pa, const void *pb)
{
	const struct meta_row *x = pa, *y = pb;

	if (x->trace_id != y->trace_id)
		return x->trace_id < y->trace_id ? -1 : 1;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return 0;
}

/* The rows of a map sorted by trace id (the id itself when dense). */
static struct meta_row *
meta_rows(const struct idmap *m, int dense, uint64_t max)
{
	struct meta_row *rows = malloc((m->count ? m->count : 1) *
	    sizeof *rows);

	if (rows == NULL)
		return NULL;
	for (size_t i = 0; i < m->count; i++) {
		idmap_key(m, i, &rows[i].a, &rows[i].b);
		rows[i].trace_id = !dense ? rows[i].a :
		    i < max || m->count <= max + 1 ? i : max;
	}
	if (!dense)
		qsort(rows, m->count, sizeof *rows, row_cmp);
	return rows;
}

enum meta_shape { M_PLAIN, M_MEMORY, M_LOCATION };

/* "name": [ { "wasm_id": ..., "trace_id": ... } ... ], as Wasmgrind's. */
/*
 * separate: the ids are keyed by input too (the key's second word, above
 * the width of an access), and each row says its "input".
 */
static int
meta_array(struct tp_jw *w, const char *name, const struct idmap *m,
    int dense, uint64_t max, enum meta_shape shape, int separate)
{
	struct meta_row *rows = meta_rows(m, dense, max);

	if (rows == NULL)
		return -1;
	tp_jw_key(w, name, strlen(name));
	tp_jw_open_array(w);
	for (size_t i = 0; i < m->count; i++) {
		tp_jw_open_object(w);
		tp_jw_key(w, "wasm_id", 7);
		switch (shape) {
		case M_PLAIN:
			tp_jw_u64(w, rows[i].a);
			break;
		case M_MEMORY:
			tp_jw_open_object(w);
			tp_jw_key(w, "address", 7);
			tp_jw_u64(w, rows[i].a);
			tp_jw_key(w, "access_width", 12);
			if (separate) {
				uint64_t wd = rows[i].b & WIDTH_NATIVE_IN;
				tp_jw_u64(w, wd == WIDTH_NATIVE_IN ? 0 : wd);
				rows[i].b >>= IN_SHIFT;
			} else
				tp_jw_u64(w, rows[i].b == NATIVE_WIDTH ? 0 :
				    rows[i].b);
			tp_jw_close_object(w);
			break;
		case M_LOCATION:
			tp_jw_open_object(w);
			tp_jw_key(w, "pc", 2);
			tp_jw_u64(w, rows[i].a);
			tp_jw_close_object(w);
			break;
		}
		tp_jw_key(w, "trace_id", 8);
		tp_jw_u64(w, rows[i].trace_id);
		if (separate) {
			tp_jw_key(w, "input", 5);
			tp_jw_u64(w, rows[i].b);
		}
		tp_jw_close_object(w);
	}
	tp_jw_close_array(w);
	free(rows);
	return 0;
}

/* Variables touched by more than one thread: var -> [threads]. */
static int
meta_shared(struct tp_jw *w, const struct idmap *pairs)
{
	struct meta_row *rows = malloc((pairs->count ? pairs->count : 1) *
	    sizeof *rows);
	size_t i, j;

	if (rows == NULL)
		return -1;
	for (i = 0; i < pairs->count; i++) {
		uint64_t vt, zero;
		idmap_key(pairs, i, &vt, &zero);
		rows[i].trace_id = vt >> RB_TID_BITS;
		rows[i].a = vt & RB_TID_MAX;
		rows[i].b = 0;
	}
	qsort(rows, pairs->count, sizeof *rows, row_cmp);
	tp_jw_key(w, "shared_variables", 16);
	tp_jw_open_object(w);
	for (i = 0; i < pairs->count; i = j) {
		char key[24];
		for (j = i; j < pairs->count &&
		    rows[j].trace_id == rows[i].trace_id; j++)
			;
		if (j - i < 2)
			continue;
		tp_jw_key(w, key, (size_t)(tp_fmt_u64(key, rows[i].trace_id) -
		    key));
		tp_jw_open_array(w);
		for (size_t t = i; t < j; t++)
			tp_jw_u64(w, rows[t].a);
		tp_jw_close_array(w);
	}
	tp_jw_close_object(w);
	free(rows);
	return 0;
}

static int
enc_meta(struct enc *x, struct tp_out *o)
{
	struct tp_jw w;

	tp_jw_init(&w, o);
	tp_jw_open_object(&w);
	if (meta_array(&w, "thread_records", &x->thr, x->dense_thr,
	    RB_TID_MAX, M_PLAIN, x->separate) < 0 ||
	    meta_array(&w, "memory_records", &x->var, x->dense_var,
	    RB_DECOR_MAX, M_MEMORY, x->separate) < 0 ||
	    meta_array(&w, "lock_records", &x->lock, x->dense_lock,
	    RB_DECOR_MAX, M_PLAIN, x->separate) < 0 ||
	    meta_array(&w, "location_records", &x->loc, x->dense_loc,
	    RB_LOC_MAX, M_LOCATION, x->separate) < 0 ||
	    meta_shared(&w, &x->shared) < 0)
		return tp_fail(x->err, TP_EXIT_FAIL, "out of memory");
	/* No newline after it: serde_json::to_string_pretty writes none. */
	tp_jw_close_object(&w);
	return 0;
}

int
rapidbin_encode(struct tr_reader *r, struct tp_out *out,
    const struct rapidbin_enc_opts *opts, struct rapidbin_enc_stats *st,
    struct tp_err *err)
{
	struct enc x;
	struct rb_header h;
	int rc = -1, as_stored;

	memset(&x, 0, sizeof x);
	memset(st, 0, sizeof *st);
	st->skipped.strict = opts->strict;
	st->skipped.cannot = RB_NO_MEANING;
	r->err = err;
	x.r = r;
	x.err = err;
	x.opts = opts;
	x.st = st;
	idmap_init(&x.thr);
	idmap_init(&x.lock);
	idmap_init(&x.var);
	idmap_init(&x.varval);
	idmap_init(&x.loc);
	idmap_init(&x.shared);
	if (tp_spool_init(&x.spool.s, 0, x.err) < 0)
		return -1;
	x.out = out;
	if (enc_read(&x) < 0)
		goto done;
	if (x.direct) {
		rc = 0;
		goto done;
	}
	if (enc_decide(&x) < 0)
		goto done;
	st->separate = x.separate;

	/*
	 * A header record is written as stored when the stream still holds
	 * exactly the events of its file: the header's count (its sign bit,
	 * which readers clear, may be set), or a rapidbin-end record's where
	 * the file held another number.  Otherwise the stream was filtered,
	 * and the counts are taken again, as Wasmgrind does: distinct ids.
	 */
	st->file_events = x.nend > 0 ? x.end_events : HDR_EVENTS(&x.hrec);
	/* Another sink writes no header: none to count. */
	as_stored = opts->sink != NULL || (x.nhrec == 1 && x.nend <= 1 &&
	    st->file_events == st->events);
	st->header_record = x.nhrec == 0 ? 0 : as_stored ? 1 : 2;
	st->header_record_events = x.hrec.events;
	x.use_thr = x.dense_thr || !as_stored || opts->meta;
	x.use_lock = x.dense_lock || !as_stored || opts->meta;
	x.use_var = x.dense_var || opts->meta;
	x.use_varval = !as_stored && !x.dense_var;
	x.use_loc = x.dense_loc || opts->meta;
	x.use_shared = opts->meta != NULL;
	/*
	 * Renumbering can still fail (too many distinct threads or
	 * locations): find out before the first byte is written.
	 */
	if ((!as_stored || x.dense_thr || x.dense_loc) && enc_count(&x, &h) < 0)
		goto done;
	if (as_stored)
		h = x.hrec;
	st->header = h;
	if (opts->sink != NULL ? enc_send(&x, out, opts->sink) < 0 :
	    enc_write(&x, out, &h) < 0)
		goto done;
	if (opts->meta != NULL && enc_meta(&x, opts->meta) < 0)
		goto done;
	rc = 0;
done:
	tp_spool_free(&x.spool.s);
	idmap_free(&x.thr);
	idmap_free(&x.lock);
	idmap_free(&x.var);
	idmap_free(&x.varval);
	idmap_free(&x.loc);
	idmap_free(&x.shared);
	return rc;
}
