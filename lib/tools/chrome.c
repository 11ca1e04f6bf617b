/*
 * Trace text -> Chrome Trace Event Format.  Slices are written as
 * complete events (X, with a duration) when they close: the open ones
 * are kept, with the args of the record that opened them.  B and E pairs
 * would need no memory, but the DevTools trace engine matches them on
 * one stack for all threads (and takes the args of the B only), so
 * slices of threads that interleave do not survive it.
 *
 * The viewers nest slices that share a start by their own sort rules,
 * which the order of the events has to meet:
 * - DevTools sorts a thread's slices by start, then longest first, then
 *   file order; speedscope the same for X events.  A slice that closes
 *   with the same start and end as the one it is in would come first
 *   (it closes first) and hold its parent: a closed slice that starts
 *   where the open slice under it starts is held back and written after
 *   that one.
 * - speedscope turns an X into a begin and an end and, at equal times,
 *   takes the ends first unless the next begin and end are one event: a
 *   slice of no length after a longer one that starts with it ends
 *   before it begins, and its importer breaks.  A slice of no length is
 *   a B and an E next to each other, with the same args (speedscope
 *   compares their args): explicit B events come before the B of an X
 *   of the same time in its queue, so it opens and closes in place.
 */
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "base/fpconv.h"
#include "base/grow.h"
#include "base/hash.h"
#include "base/idmap.h"
#include "text/json.h"
#include "tools/chrome.h"
#include "tools/ndjson.h"
#include "tools/pair.h"

#define TC_NAME TP_PAIR_NAME	/* bytes of a slice name kept to reopen it */
/* The tids of the tracks of records without a thread: above 32 bits. */
#define TC_NOTHREAD_TID UINT64_C(0x100000000)
#define TC_NOTHREAD_PID UINT64_C(0x8000000000000000)
#define TC_LANE_PID UINT64_C(0x4000000000000000)

enum slice_type { SL_LOCK, SL_BLOCK, SL_EVENT, SL_SCOPE };

struct buf {
	char *p;
	size_t len, cap;
};

struct open_slice {
	int type;
	uint64_t key;		/* the lock */
	uint64_t start;
	size_t namelen;
	char name[TC_NAME];
	struct buf args;	/* ,"args":{...} of the opening record */
	struct buf held;	/* closed slices with its start, to follow it */
	int late;		/* opened before the end of a slice on its track */
	int nested;		/* slices inside it went to its track: */
	uint64_t first, last;	/* their earliest start and latest end */
};

struct thread {
	uint64_t pid, tid;
	struct open_slice *stack;
	size_t n, cap;
	size_t lanes;		/* its tracks of overlapping slices */
	size_t *lane_ix;	/* the first nlane of them, as indexes of th */
	size_t nlane, lane_cap;
	uint64_t hi;		/* the latest end of the slices on its track */
	uint64_t lane_end;	/* a lane: the latest end of its slices */
	int run;		/* an instruction run is open */
	uint64_t run_base, run_start, run_end, run_insns, run_reads,
	    run_writes;
};

struct tc {
	struct tp_out *o;
	const struct tc_opts *opts;
	struct tc_stats *st;
	struct tr_reader *r;
	struct idmap ids;	/* (pid, tid) -> thread */
	struct thread *th;
	size_t nth, cap;
	struct idmap pids;	/* the inputs named so far */
	uint64_t nothread;	/* tracks of records without a thread */
	int mode;		/* 0 not known yet, 1 ns, 2 position */
	int wtf;		/* a WTF stream: time= is its raw ts */
	uint64_t now, pos, flow;
	int first;
	struct tp_out scratch;	/* args are written here, then kept */
	struct buf appends;	/* names of WTF's append-scope-data events */
};

/* -------------------------------------------------------------- writing */

static void
put_u64(struct tp_out *o, uint64_t v)
{
	tp_out_commit(o, tp_fmt_u64(tp_out_reserve(o, 20), v));
}

/* A time in microseconds: ns / 1000 with three decimals, or a position. */
static char *
fmt_time(const struct tc *c, char *p, uint64_t t)
{
	unsigned frac = (unsigned)(t % 1000);

	if (c->mode != 1)
		return tp_fmt_u64(p, t);
	p = tp_fmt_u64(p, t / 1000);
	*p++ = '.';
	*p++ = (char)('0' + frac / 100);
	*p++ = (char)('0' + frac / 10 % 10);
	*p++ = (char)('0' + frac % 10);
	return p;
}

static void
put_time(struct tc *c, struct tp_out *o, uint64_t t)
{
	tp_out_commit(o, fmt_time(c, tp_out_reserve(o, 24), t));
}

/* The separator before an event written to the trace itself. */
static void
sep(struct tc *c)
{
	if (!c->first)
		tp_out_puts(c->o, ",\n");
	c->first = 0;
}

/*
 * {"ph":PH,"name":NAME,"pid":P,"tid":T,"ts":TS  (the caller closes it)
 * into o: the trace (separated from the event before), or a buffer
 * (each event there starts with its separator).
 */
static void
head_to(struct tc *c, struct tp_out *o, const char *ph, const char *name,
    size_t namelen, const struct thread *t, uint64_t ts)
{
	if (o == c->o)
		sep(c);
	else
		tp_out_puts(o, ",\n");
	tp_out_puts(o, "{\"ph\":\"");
	tp_out_puts(o, ph);
	tp_out_putc(o, '"');
	if (name != NULL) {
		tp_out_puts(o, ",\"name\":");
		/* Names come from any bytes: not UTF-8 is U+FFFD. */
		tp_json_put_str(o, name, namelen);
	}
	tp_out_puts(o, ",\"pid\":");
	put_u64(o, t->pid);
	tp_out_puts(o, ",\"tid\":");
	put_u64(o, t->tid);
	tp_out_puts(o, ",\"ts\":");
	put_time(c, o, ts);
	c->st->events++;
}

static void
head(struct tc *c, const char *ph, const char *name, size_t namelen,
    const struct thread *t, uint64_t ts)
{
	head_to(c, c->o, ph, name, namelen, t, ts);
}

/* A metadata event naming a process or a thread. */
static void
meta(struct tc *c, const char *what, uint64_t pid, uint64_t tid,
    const char *name, size_t namelen)
{
	sep(c);
	tp_out_puts(c->o, "{\"ph\":\"M\",\"name\":\"");
	tp_out_puts(c->o, what);
	tp_out_puts(c->o, "\",\"pid\":");
	put_u64(c->o, pid);
	tp_out_puts(c->o, ",\"tid\":");
	put_u64(c->o, tid);
	tp_out_puts(c->o, ",\"args\":{\"name\":");
	tp_json_put_str(c->o, name, namelen);
	tp_out_puts(c->o, "}}");
	c->st->events++;
}

/* Is the field's key key (n bytes)? */
static inline int
key_is(const struct tr_field *f, const char *key, size_t n)
{
	return f->keylen == n && memcmp(f->key, key, n) == 0;
}

/*
 * The fields of a record as args, but those the event says itself
 * (time, thread, input, name) and drop: the field that named the slice
 * or paired it, which are not the call's values.
 */
static void
put_args(struct tc *c, struct tp_out *o, const struct tr_rec *rec,
    const char *drop, const char *drop2)
{
	/* The lengths once, not for each field: this runs per record. */
	size_t dn = drop != NULL ? strlen(drop) : 0;
	size_t dn2 = drop2 != NULL ? strlen(drop2) : 0;
	size_t i, n = 0;

	for (i = 0; i < rec->nf; i++) {
		const struct tr_field *f = &rec->f[i];
		/* WTF's time= is its raw ts, which ts already says. */
		if (key_is(f, "ts", 2) || key_is(f, "tid", 3) ||
		    key_is(f, "input", 5) || key_is(f, "name", 4) ||
		    (drop != NULL && key_is(f, drop, dn)) ||
		    (drop2 != NULL && key_is(f, drop2, dn2)) ||
		    (c->wtf && key_is(f, "time", 4)))
			continue;
		tp_out_puts(o, n++ ? ",\"" : ",\"args\":{\"");
		tp_out_write(o, f->key, f->keylen);
		tp_out_puts(o, "\":");
		nj_put_value(o, f->val, f->vallen);
	}
	if (n > 0)
		tp_out_putc(o, '}');
}

/*
 * The duration of a slice from start: the viewers add it to the start
 * in doubles, and a start and a duration in decimals may add up past
 * the end (147918382.316 + 0.458 > 147918382.774), so that the slice
 * overlaps the next one.  Then the duration is the end less the start in
 * doubles (exact: they are close), which adds up to the end.  Whole
 * microseconds add up exactly (below 2^53).
 */
/*
 * The double nearest t / 1000, ties to even: what reading fmt_time's
 * "U.FFF" gives (put_dur's check), without writing and reading the text.
 */
static double
us_value(uint64_t t)
{
	__extension__ typedef unsigned __int128 u128;
	u128 q, m, rest, half;
	uint64_t mant, hi, bits;
	int b, shift, sticky;
	double scale;

	/* Both exact below 2^53: one division rounds once. */
	if (t < (UINT64_C(1) << 53))
		return (double)t / 1000.0;
	m = (u128)t << 64;
	q = m / 1000;
	sticky = m % 1000 != 0;
	hi = (uint64_t)(q >> 64);	/* not 0: t / 1000 >= 2^43 */
	b = 128 - __builtin_clzll(hi);
	shift = b - 53;
	mant = (uint64_t)(q >> shift);
	rest = q & (((u128)1 << shift) - 1);
	half = (u128)1 << (shift - 1);
	if (rest > half || (rest == half && (sticky || (mant & 1))))
		mant++;
	bits = (uint64_t)(1023 + shift - 64) << 52;
	memcpy(&scale, &bits, sizeof scale);
	return (double)mant * scale;
}

static void
put_dur(struct tc *c, struct tp_out *o, uint64_t start, uint64_t d)
{
	char *p;
	double x, z;

	tp_out_puts(o, ",\"dur\":");
	p = tp_out_reserve(o, 32);
	if (c->mode != 1 || (start % 1000 == 0 && d % 1000 == 0) ||
	    (x = us_value(start)) + us_value(d) == (z = us_value(start + d))) {
		tp_out_commit(o, fmt_time(c, p, d));
		return;
	}
	tp_out_commit(o, tp_fmt_f64(p, z - x));
}

static int
buf_add(struct buf *b, const void *p, size_t n)
{
	if (tp_grow(&b->p, &b->cap, b->len + n, 1) < 0)
		return -1;
	if (n > 0)	/* b->p is NULL while nothing was kept */
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

/* A buffer of events into the trace (its events start with ",\n"). */
static void
put_events(struct tc *c, const struct buf *b)
{
	size_t skip = 0;

	if (b->len == 0)
		return;
	if (c->first)
		skip = 2;
	c->first = 0;
	tp_out_write(c->o, b->p + skip, b->len - skip);
}

/* -------------------------------------------------------------- threads */

static struct thread *
track(struct tc *c, uint64_t a, uint64_t b, uint64_t pid, uint64_t tid,
    int *added)
{
	int64_t id = idmap_put(&c->ids, a, b, added);

	if (id < 0)
		return NULL;
	if (*added) {
		if (tp_grow(&c->th, &c->cap, (size_t)id + 1, sizeof *c->th) < 0)
			return NULL;
		memset(&c->th[id], 0, sizeof c->th[id]);
		c->th[id].pid = pid;
		c->th[id].tid = tid;
		c->nth = (size_t)id + 1;
	}
	return &c->th[id];
}

static struct thread *
thread(struct tc *c, uint64_t pid, uint64_t tid)
{
	int added;

	return track(c, pid, tid, pid, tid, &added);
}

/*
 * The track of the records without a thread named name (dial9's wakes,
 * spawns, queue samples; WTF's zone creations): one per name and input,
 * named by it, on a tid above 32 bits that no thread id reaches.
 */
static struct thread *
no_thread(struct tc *c, uint64_t pid, const char *name, size_t n)
{
	uint64_t h = n, w;
	size_t i;
	struct thread *t;
	int added;

	for (i = 0; i < n; i += 8) {
		w = 0;
		memcpy(&w, name + i, n - i < 8 ? n - i : 8);
		h = tp_hash64(h, w);
	}
	t = track(c, pid | TC_NOTHREAD_PID, h, pid, 0, &added);
	if (t != NULL && added) {
		t->tid = TC_NOTHREAD_TID + c->nothread++;
		meta(c, "thread_name", pid, t->tid, name, n);
	}
	return t;
}

/* A merged input (pid from input=) is a process named for it. */
static int
name_input(struct tc *c, uint64_t pid)
{
	char name[32], *p;
	int added;

	if (idmap_put(&c->pids, pid, 0, &added) < 0)
		return -1;
	if (added) {
		p = tp_fmt_u64(stpcpy(name, "input "), pid);
		meta(c, "process_name", pid, 0, name, (size_t)(p - name));
	}
	return 0;
}

/*
 * The track for a slice of t that ends while a slice opened after it is
 * still open, that ends before a slice closed inside it, or that opened
 * before the end of a slice already on t's track (records that go back
 * in time: a dial9 worker's batches, WTF's gc slices written when they
 * end): it may overlap the slices of t's track without nesting, which
 * no viewer shows on one track (speedscope keeps one stack per thread
 * and closes the wrong one; DevTools leaves it out of its tree).  The
 * first of t's lanes,
 * named "TID overlap N", whose slices all end by its start.
 */
static struct thread *
lane(struct tc *c, size_t ti, uint64_t start)
{
	uint64_t pid = c->th[ti].pid, tid = c->th[ti].tid;
	char name[64], *p;
	struct thread *l;
	size_t k;
	int added;

	for (k = 0;; k++) {
		/*
		 * A stream that goes back in time walks many lanes for each
		 * slice: those known are found by index, not hashed again.
		 */
		if (k < c->th[ti].nlane) {
			l = &c->th[c->th[ti].lane_ix[k]];
			if (l->lane_end <= start)
				break;
			continue;
		}
		l = track(c, pid | TC_LANE_PID, tp_hash64(tid, k), pid, 0, &added);
		if (l == NULL)
			return NULL;
		if (added && k == c->th[ti].nlane) {
			struct thread *t = &c->th[ti];
			if (tp_grow(&t->lane_ix, &t->lane_cap, t->nlane + 1,
			    sizeof *t->lane_ix) < 0)
				return NULL;
			t->lane_ix[t->nlane++] = (size_t)(l - c->th);
		}
		if (added) {
			l->tid = TC_NOTHREAD_TID + c->nothread++;
			p = tp_fmt_u64(stpcpy(tp_fmt_u64(name, tid),
			    " overlap "), k + 1);
			meta(c, "thread_name", pid, l->tid, name,
			    (size_t)(p - name));
			c->th[ti].lanes++;
		}
		if (l->lane_end <= start)
			break;
	}
	if (c->now > l->lane_end)
		l->lane_end = c->now;
	return l;
}

static void
flush_run(struct tc *c, struct thread *t)
{
	char name[24], *p;

	if (!t->run)
		return;
	t->run = 0;
	p = tp_fmt_hex(name, t->run_base);
	head(c, "X", name, (size_t)(p - name), t, t->run_start);
	put_dur(c, c->o, t->run_start, t->run_end - t->run_start);
	tp_out_puts(c->o, ",\"args\":{\"insns\":");
	put_u64(c->o, t->run_insns);
	tp_out_puts(c->o, ",\"reads\":");
	put_u64(c->o, t->run_reads);
	tp_out_puts(c->o, ",\"writes\":");
	put_u64(c->o, t->run_writes);
	tp_out_puts(c->o, "}}");
}

/* The scratch buffer, empty; what it holds is kept only when whole. */
static struct tp_out *
scratch(struct tc *c)
{
	c->scratch.len = 0;
	c->scratch.written = 0;
	return &c->scratch;
}

static int
scratch_whole(const struct tc *c)
{
	return c->scratch.written == 0;
}

static int
open_slice(struct tc *c, struct thread *t, int type, uint64_t key,
    const char *name, size_t namelen, const struct tr_rec *rec,
    const char *drop, const char *drop2)
{
	struct open_slice *s;

	if (t->n == t->cap) {
		size_t old = t->cap;
		if (tp_grow(&t->stack, &t->cap, t->n + 1, sizeof *t->stack) < 0)
			return -1;
		memset(t->stack + old, 0, (t->cap - old) * sizeof *t->stack);
	}
	s = &t->stack[t->n++];
	s->type = type;
	s->key = key;
	s->start = c->now;
	s->namelen = namelen < TC_NAME ? namelen : TC_NAME;
	memcpy(s->name, name, s->namelen);
	s->args.len = 0;
	s->held.len = 0;
	s->nested = 0;
	s->late = c->now < t->hi;
	/* The args, kept until the slice closes (the buffers are reused). */
	put_args(c, scratch(c), rec, drop, drop2);
	/* None when they outgrew the scratch buffer. */
	if (!scratch_whole(c))
		return 0;
	return buf_add(&s->args, c->scratch.buf, c->scratch.len);
}

/*
 * Write the slice at k of t's stack, which ends now, then the slices
 * held for it: to the trace, or held in turn by the open slice under it
 * when that one starts at the same time.  0, or -1 out of memory.
 */
static int
end_slice(struct tc *c, struct thread *t, size_t k, int unfinished,
    const struct thread *on)
{
	struct open_slice *s = &t->stack[k];
	struct open_slice *under = on == t && k > 0 &&
	    t->stack[k - 1].start == s->start ? &t->stack[k - 1] : NULL;
	/* Streams out of time order (dial9's) may end a slice earlier. */
	uint64_t dur = c->now > s->start ? c->now - s->start : 0;
	struct tp_out *o = scratch(c);
	int pass;

	for (pass = 0; pass < (dur == 0 ? 2 : 1); pass++) {
		head_to(c, o, dur == 0 ? (pass ? "E" : "B") : "X", s->name,
		    s->namelen, on, s->start);
		if (dur > 0)
			put_dur(c, o, s->start, dur);
		if (s->args.len > 0)	/* p is NULL while none were kept */
			tp_out_write(o, s->args.p,
			    unfinished ? s->args.len - 1 : s->args.len);
		if (unfinished)
			tp_out_puts(o, s->args.len > 0 ? ",\"unfinished\":true}" :
			    ",\"args\":{\"unfinished\":true}");
		tp_out_putc(o, '}');
	}
	if (!scratch_whole(c))
		return -1;
	if (under != NULL) {
		if (buf_add(&under->held, o->buf, o->len) < 0 ||
		    buf_add(&under->held, s->held.p, s->held.len) < 0)
			return -1;
	} else {
		struct buf b = { o->buf, o->len, 0 };
		put_events(c, &b);
		put_events(c, &s->held);
	}
	s->held.len = 0;
	return 0;
}

/* Take the slice at k out of t's stack, its buffers kept for reuse. */
static void
drop_slice(struct thread *t, size_t k)
{
	struct open_slice done = t->stack[k];

	memmove(&t->stack[k], &t->stack[k + 1],
	    (t->n - k - 1) * sizeof t->stack[0]);
	t->stack[--t->n] = done;
}

/*
 * Close the innermost open slice of this type and key (name for events,
 * any key for WTF scopes: a leave ends the innermost scope, as WTF's
 * loader has it).  1 closed, 0 none open, -1 out of memory.
 */
static int
close_slice(struct tc *c, struct thread *t, int type, uint64_t key,
    const char *name, size_t namelen)
{
	struct open_slice *s;
	uint64_t end;
	size_t k;
	int rc = 0;

	for (k = t->n; k-- > 0;) {
		const struct open_slice *o = &t->stack[k];
		if (o->type == type && (type == SL_SCOPE || o->key == key) &&
		    (type != SL_EVENT || (o->namelen == namelen &&
		    memcmp(o->name, name, namelen) == 0)))
			break;
	}
	if (k == (size_t)-1)
		return 0;
	s = &t->stack[k];
	end = c->now > s->start ? c->now : s->start;
	/*
	 * It overlaps a slice still open above it, or one of those closed
	 * inside it on its track (the times of a dial9 stream go back).
	 */
	if (k + 1 < t->n || s->late || (s->nested &&
	    (s->first < s->start || s->last > end))) {
		size_t ti = (size_t)(t - c->th);
		const struct thread *on = lane(c, ti, s->start);
		if (on == NULL)
			return -1;
		t = &c->th[ti];	/* after the realloc of the threads */
		s = &t->stack[k];
		rc = end_slice(c, t, k, 0, on);
	} else {
		rc = end_slice(c, t, k, 0, t);
		if (end > t->hi)
			t->hi = end;
		if (!s->nested || s->start < s->first)
			s->first = s->start;
		if (!s->nested || end > s->last)
			s->last = end;
		s->nested = 1;
	}
	if (rc < 0)
		return -1;
	/* What is on t's track is inside the slice under it. */
	if (k > 0 && s->nested) {
		struct open_slice *u = &t->stack[k - 1];
		if (!u->nested || s->first < u->first)
			u->first = s->first;
		if (!u->nested || s->last > u->last)
			u->last = s->last;
		u->nested = 1;
	}
	drop_slice(t, k);
	return 1;
}

static void
instant(struct tc *c, struct thread *t, const char *name, size_t namelen,
    const struct tr_rec *rec)
{
	head(c, "I", name, namelen, t, c->now);
	tp_out_puts(c->o, ",\"s\":\"t\"");
	put_args(c, c->o, rec, NULL, NULL);
	tp_out_putc(c->o, '}');
}

/* fork and join: a short slice on each thread, and an arrow between. */
static void
flow(struct tc *c, struct thread *from, struct thread *to, const char *what)
{
	uint64_t id = ++c->flow;
	const struct thread *t[2] = { from, to };
	static const char *const ph[2] = { "s", "f" };
	int k;

	/*
	 * DevTools binds an arrow's ends to the slices of their ts, thread
	 * and cat, and keeps only arrows whose ends differ in time: the
	 * arrow lands one tick (1 ns, or one position) later.
	 */
	for (k = 0; k < 2; k++) {
		head(c, "X", what, strlen(what), t[k], c->now + (uint64_t)k);
		put_dur(c, c->o, c->now + (uint64_t)k, 1);
		tp_out_puts(c->o, ",\"cat\":\"");
		tp_out_puts(c->o, what);
		tp_out_puts(c->o, "\"}");
		head(c, ph[k], what, strlen(what), t[k], c->now + (uint64_t)k);
		tp_out_puts(c->o, ",\"cat\":\"");
		tp_out_puts(c->o, what);
		tp_out_puts(c->o, "\",\"id\":");
		put_u64(c->o, id);
		tp_out_puts(c->o, k ? ",\"bp\":\"e\"}" : "}");
	}
}

/* ------------------------------------------------------------- records */

static int
field_u64(struct tc *c, const struct tr_rec *rec, const char *key,
    uint64_t *v)
{
	const struct tr_field *f = tr_find(rec, key);

	if (f == NULL)
		return 0;
	return tr_u64(c->r, rec, f, v) < 0 ? -1 : 1;
}

static int
ends_with(const char *s, size_t n, const char *tail)
{
	size_t tl = strlen(tail);

	return n >= tl && memcmp(s + n - tl, tail, tl) == 0;
}

static int
is_name(const char *s, size_t n, const char *name)
{
	return n == strlen(name) && memcmp(s, name, n) == 0;
}

/* An integer field whose value may be anything else: 1 when it is one. */
static int
peek_u64(const struct tr_rec *rec, const char *key, uint64_t *v)
{
	const struct tr_field *f = tr_find(rec, key);

	return f != NULL && tp_parse_u64(f->val, f->vallen, v) == 0;
}

/* A string field into out (at most TC_NAME bytes): 1, 0 when not one. */
static int
peek_str(struct tc *c, const struct tr_rec *rec, const char *key, char *out,
    size_t *outlen)
{
	const struct tr_field *f = tr_find(rec, key);

	if (f == NULL || f->vallen == 0 || f->vallen > TC_NAME ||
	    f->val[0] == '[' || f->val[0] == '{')
		return 0;
	return tr_str(c->r, rec, f, out, TC_NAME, outlen) < 0 ? -1 : 1;
}

/*
 * A wtf-define of an event with APPEND_SCOPE_DATA (0x10) in its flags:
 * its name is kept, as WTF's loader merges such an event's arguments
 * into the open scope (the C++ bindings' __wtf_append_scope_N).
 */
static int
define(struct tc *c, const struct tr_rec *rec)
{
	const struct tr_field *f = tr_find(rec, "flags");
	char name[TC_NAME], *end;
	size_t namelen;
	unsigned long flags;
	int rc;

	if (f == NULL || f->vallen < 3 || f->vallen > 12)
		return 0;
	memcpy(name, f->val, f->vallen);
	name[f->vallen] = '\0';
	flags = strtoul(name, &end, 16);
	if (end != name + f->vallen || !(flags & 0x10))
		return 0;
	f = tr_find(rec, "name");
	if (f == NULL || f->vallen == 0 || f->vallen > TC_NAME)
		return 0;
	if ((rc = tr_str(c->r, rec, f, name, TC_NAME, &namelen)) < 0)
		return -1;
	if (buf_add(&c->appends, &namelen, sizeof namelen) < 0 ||
	    buf_add(&c->appends, name, namelen) < 0)
		return tp_fail(c->r->err, TP_EXIT_FAIL, "out of memory");
	return 0;
}

static int
appends(const struct tc *c, const char *name, size_t n)
{
	size_t at, len;

	for (at = 0; at < c->appends.len; at += sizeof len + len) {
		memcpy(&len, c->appends.p + at, sizeof len);
		if (len == n && memcmp(c->appends.p + at + sizeof len, name,
		    n) == 0)
			return 1;
	}
	return 0;
}

/*
 * Arguments appended to the innermost open scope of t: name=value of
 * wtf.scope#appendData (each), or every field of an append-scope-data
 * event.  1 merged, 0 no scope open or too long, -1 out of memory.
 */
static int
append_data(struct tc *c, struct thread *t, const struct tr_rec *rec,
    int named)
{
	const struct tr_field *v = tr_find(rec, "value");
	struct open_slice *s = NULL;
	struct tp_out *o;
	char key[TC_NAME];
	size_t keylen, k;

	for (k = t->n; k-- > 0;)
		if (t->stack[k].type == SL_SCOPE) {
			s = &t->stack[k];
			break;
		}
	if (s == NULL)
		return 0;
	o = scratch(c);
	if (named) {
		if (v == NULL || peek_str(c, rec, "arg.name", key, &keylen) != 1)
			return 0;
		tp_out_puts(o, ",\"args\":{");
		tp_json_put_str(o, key, keylen);
		tp_out_putc(o, ':');
		nj_put_value(o, v->val, v->vallen);
		tp_out_putc(o, '}');
	} else {
		put_args(c, o, rec, NULL, NULL);
	}
	if (!scratch_whole(c))
		return 0;
	if (o->len == 0)
		return 1;
	/* ,"args":{ONE} after the args kept: ,ONE over their closing brace. */
	if (s->args.len > 0) {
		s->args.len--;
		return buf_add(&s->args, ",", 1) < 0 ||
		    buf_add(&s->args, o->buf + 9, o->len - 9) < 0 ? -1 : 1;
	}
	return buf_add(&s->args, o->buf, o->len) < 0 ? -1 : 1;
}

/* An end without its begin: an instant, counted. */
static void
unmatched(struct tc *c, struct thread *t, const char *name, size_t namelen,
    const struct tr_rec *rec)
{
	c->st->unmatched++;
	instant(c, t, name, namelen, rec);
}

static int
event(struct tc *c, struct thread *t, const struct tr_rec *rec,
    const char *name, size_t namelen)
{
	char arg[TC_NAME], buf[TP_PAIR_NAME];
	size_t arglen = 0;
	struct tp_pair_what w;
	uint64_t v;
	int rc, has_scope, has_arg = 0;

	/* Which slice it opens or closes: the one rule (tools/pair.h). */
	has_scope = peek_u64(rec, "scope", &v);
	if (has_scope && ends_with(name, namelen, "#enter") &&
	    (has_arg = peek_str(c, rec, "arg.name", arg, &arglen)) < 0)
		return -1;
	tp_pair_what(TK_EVENT, name, namelen, has_scope ? &v : NULL,
	    has_arg ? arg : NULL, arglen, NULL, buf, &w);
	if (w.type == TP_SL_SCOPE && w.act == 0) {
		if ((rc = close_slice(c, t, SL_SCOPE, 0, NULL, 0)) < 0)
			return -1;
		if (rc == 0)
			unmatched(c, t, name, namelen, rec);
		return 0;
	}
	if (w.type == TP_SL_SCOPE)
		return open_slice(c, t, SL_SCOPE, w.key, w.name, w.namelen,
		    rec, "scope", w.name == arg ? "arg.name" : NULL);
	if (is_name(name, namelen, "wtf.scope#appendData") ||
	    (c->appends.len > 0 && appends(c, name, namelen))) {
		if ((rc = append_data(c, t, rec, is_name(name, namelen,
		    "wtf.scope#appendData"))) != 0)
			return rc;
		instant(c, t, name, namelen, rec);
		return 0;
	}
	switch (w.act) {
	case 1:
		return open_slice(c, t, SL_EVENT, 0, w.name, w.namelen, rec,
		    NULL, NULL);
	case 0:
		if ((rc = close_slice(c, t, SL_EVENT, 0, w.name,
		    w.namelen)) != 0)
			return rc;
		unmatched(c, t, name, namelen, rec);
		return 0;
	}
	instant(c, t, name, namelen, rec);
	return 0;
}

static int
record(struct tc *c, const struct tr_rec *rec, int kind)
{
	static const char *const kname[TK_NKINDS] = {
		"insn", "read", "write", "acquire", "release", "request",
		"fork", "join", "begin", "end", "branch", "event"
	};
	uint64_t ts, pid = 0, tid = 0, v;
	struct thread *t, *other;
	char name[TC_NAME + 24], *p;
	size_t namelen;
	int rc, has_pid, has_tid;

	if ((rc = field_u64(c, rec, "ts", &ts)) < 0)
		return -1;
	if (c->mode == 0)
		c->mode = rc == 1 ? 1 : 2;
	if (c->mode == 2)
		c->now = c->pos++;
	else if (rc == 1)
		c->now = ts;
	if ((has_pid = field_u64(c, rec, "input", &pid)) < 0 ||
	    (has_tid = field_u64(c, rec, "tid", &tid)) < 0)
		return -1;
	if (has_pid && name_input(c, pid) < 0)
		return tp_fail(c->r->err, TP_EXIT_FAIL, "out of memory");
	/* An event's name: name= when a string short enough to pair. */
	if (kind == TK_EVENT) {
		if ((rc = peek_str(c, rec, "name", name, &namelen)) < 0)
			return -1;
		if (rc == 0)
			namelen = (size_t)(stpcpy(name, "event") - name);
	} else {
		namelen = strlen(kname[kind]);
		memcpy(name, kname[kind], namelen);
	}
	t = has_tid ? thread(c, pid, tid) : no_thread(c, pid, name, namelen);
	if (t == NULL)
		return tp_fail(c->r->err, TP_EXIT_FAIL, "out of memory");
	if (kind == TK_INSN) {
		if ((rc = field_u64(c, rec, "pc", &v)) < 0)
			return -1;
		v -= v % c->opts->insn_range;
		if (!t->run || t->run_base != v) {
			flush_run(c, t);
			t->run = 1;
			t->run_base = v;
			t->run_start = c->now;
			t->run_insns = t->run_reads = t->run_writes = 0;
		}
		t->run_insns++;
		t->run_end = c->now + (c->mode == 2);
		return 0;
	}
	if ((kind == TK_READ || kind == TK_WRITE) && t->run &&
	    tr_find(rec, "var") == NULL) {
		/* An access of the instruction before (x64dbg). */
		if (kind == TK_READ)
			t->run_reads++;
		else
			t->run_writes++;
		t->run_end = c->now + (c->mode == 2);
		return 0;
	}
	flush_run(c, t);
	rc = 0;
	switch (kind) {
	case TK_ACQUIRE:
	case TK_RELEASE:
		if ((rc = field_u64(c, rec, "lock", &v)) < 0)
			return -1;
		p = tp_fmt_u64(memcpy(name, "lock ", 5) + 5, v);
		if (kind == TK_ACQUIRE) {
			rc = open_slice(c, t, SL_LOCK, v, name,
			    (size_t)(p - name), rec, NULL, NULL);
			break;
		}
		if ((rc = close_slice(c, t, SL_LOCK, v, NULL, 0)) == 0)
			unmatched(c, t, "release", 7, rec);
		break;
	case TK_BEGIN:
		rc = open_slice(c, t, SL_BLOCK, 0, "block", 5, rec, NULL, NULL);
		break;
	case TK_END:
		if ((rc = close_slice(c, t, SL_BLOCK, 0, NULL, 0)) == 0)
			unmatched(c, t, "end", 3, rec);
		break;
	case TK_FORK:
	case TK_JOIN:
		if ((rc = field_u64(c, rec, "child", &v)) < 0)
			return -1;
		if (rc == 0) {
			instant(c, t, name, namelen, rec);
			return 0;
		}
		if ((other = thread(c, pid, v)) == NULL)
			return tp_fail(c->r->err, TP_EXIT_FAIL, "out of memory");
		/* t after the realloc of the threads */
		t = has_tid ? thread(c, pid, tid) :
		    no_thread(c, pid, name, namelen);
		flush_run(c, other);
		if (kind == TK_FORK)
			flow(c, t, other, "fork");
		else
			flow(c, other, t, "join");
		return 0;
	case TK_EVENT:
		rc = event(c, t, rec, name, namelen);
		break;
	default:
		/* request, branch, and reads and writes of variables. */
		p = name + namelen;
		if (field_u64(c, rec, "var", &v) == 1)
			p = tp_fmt_u64(stpcpy(p, " "), v);
		instant(c, t, name, (size_t)(p - name), rec);
		return 0;
	}
	return rc < 0 ? tp_fail(c->r->err, TP_EXIT_FAIL, "out of memory") : 0;
}

/* A record of no shared kind: the definitions WTF's loader reads. */
static int
other(struct tc *c, const struct tr_rec *rec)
{
	if (rec->kindlen == 10 && memcmp(rec->kind, "wtf-header", 10) == 0)
		c->wtf = 1;
	if (rec->kindlen == 10 && memcmp(rec->kind, "wtf-define", 10) == 0)
		return define(c, rec);
	return 0;
}

int
tc_convert(struct tr_reader *r, struct tp_out *o, const struct tc_opts *opts,
    struct tc_stats *st)
{
	static struct tr_rec rec;
	struct tp_err scratch_err;
	struct tc c;
	size_t i, k;
	int rc;

	memset(st, 0, sizeof *st);
	memset(&c, 0, sizeof c);
	c.o = o;
	c.opts = opts;
	c.st = st;
	c.r = r;
	c.first = 1;
	idmap_init(&c.ids);
	idmap_init(&c.pids);
	if (tp_out_open_discard(&c.scratch) < 0)
		return tp_fail(r->err, TP_EXIT_FAIL, "out of memory");
	tp_out_puts(o, "{\"traceEvents\":[\n");
	while ((rc = tr_next(r, &rec)) > 0) {
		int kind = tp_kind(rec.kind, rec.kindlen,
		    (size_t)(rec.line + rec.len - rec.kind));
		if (kind == TK_OTHER) {
			st->skipped++;
			if ((rc = other(&c, &rec)) < 0)
				break;
			continue;
		}
		st->records++;
		if ((rc = record(&c, &rec, kind)) < 0)
			break;
	}
	/* What is still open ends at the last time seen, innermost first. */
	for (i = 0; i < c.nth; i++) {
		struct thread *t = &c.th[i];
		flush_run(&c, t);
		st->unfinished += t->n;
		for (k = t->n; k-- > 0;)
			if (end_slice(&c, t, k, 1, t) < 0 && rc >= 0)
				rc = tp_fail(r->err, TP_EXIT_FAIL,
				    "out of memory");
		for (k = 0; k < t->cap; k++) {
			free(t->stack[k].args.p);
			free(t->stack[k].held.p);
		}
		free(t->stack);
		free(t->lane_ix);
	}
	free(c.th);
	free(c.appends.p);
	idmap_free(&c.ids);
	idmap_free(&c.pids);
	tp_out_close(&c.scratch, 0, &scratch_err);
	st->position_time = c.mode == 2;
	tp_out_puts(o, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":"
	    "{\"generator\":\"txt2chrome\",\"time\":");
	tp_out_puts(o, c.mode == 2 ? "\"record position\"}}\n" :
	    "\"ts (ns)\"}}\n");
	return rc < 0 ? -1 : 0;
}
