/*
 * Trace text -> Chrome Trace Event Format.  Slices are written as
 * complete events (X, with a duration) when they close: the open ones
 * are kept, with the args of the record that opened them.  B and E pairs
 * would need no memory, but the DevTools trace engine matches them on
 * one stack for all threads, so slices of threads that interleave do not
 * survive it.
 */
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "base/grow.h"
#include "base/idmap.h"
#include "text/json.h"
#include "tools/chrome.h"
#include "tools/ndjson.h"

#define TC_NAME 256		/* bytes of a slice name kept to reopen it */

enum slice_type { SL_LOCK, SL_BLOCK, SL_EVENT, SL_SCOPE };

struct open_slice {
	int type;
	uint64_t key;		/* the lock */
	uint64_t start;
	size_t namelen;
	char name[TC_NAME];
	char *args;		/* ,"args":{...} of the opening record */
	size_t argslen, argscap;
};

struct thread {
	uint64_t pid, tid;
	struct open_slice *stack;
	size_t n, cap;
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
	int mode;		/* 0 not known yet, 1 ns, 2 position */
	uint64_t now, pos, flow;
	int first;
	struct tp_out scratch;	/* args are written here, then kept */
};

/* -------------------------------------------------------------- writing */

static void
put_u64(struct tp_out *o, uint64_t v)
{
	tp_out_commit(o, tp_fmt_u64(tp_out_reserve(o, 20), v));
}

/* A time in microseconds: ns / 1000 with three decimals, or a position. */
static void
put_time(struct tc *c, uint64_t t)
{
	unsigned frac = (unsigned)(t % 1000);
	char *p;

	if (c->mode != 1) {
		put_u64(c->o, t);
		return;
	}
	p = tp_fmt_u64(tp_out_reserve(c->o, 24), t / 1000);
	*p++ = '.';
	*p++ = (char)('0' + frac / 100);
	*p++ = (char)('0' + frac / 10 % 10);
	*p++ = (char)('0' + frac % 10);
	tp_out_commit(c->o, p);
}

/* {"ph":PH,"name":NAME,"pid":P,"tid":T,"ts":TS  (the caller closes it) */
static void
head(struct tc *c, const char *ph, const char *name, size_t namelen,
    const struct thread *t, uint64_t ts)
{
	tp_out_puts(c->o, c->first ? "{\"ph\":\"" : ",\n{\"ph\":\"");
	c->first = 0;
	tp_out_puts(c->o, ph);
	tp_out_putc(c->o, '"');
	if (name != NULL) {
		tp_out_puts(c->o, ",\"name\":");
		/* Names come from any bytes: not UTF-8 is U+FFFD. */
		tp_json_put_str(c->o, name, namelen);
	}
	tp_out_puts(c->o, ",\"pid\":");
	put_u64(c->o, t->pid);
	tp_out_puts(c->o, ",\"tid\":");
	put_u64(c->o, t->tid);
	tp_out_puts(c->o, ",\"ts\":");
	put_time(c, ts);
	c->st->events++;
}

/* The fields of a record as args, but those the event says itself. */
static void
put_args(struct tp_out *o, const struct tr_rec *rec)
{
	static const char *const own[] = { "ts", "tid", "input", "name" };
	size_t i, k, n = 0;

	for (i = 0; i < rec->nf; i++) {
		const struct tr_field *f = &rec->f[i];
		for (k = 0; k < 4; k++)
			if (f->keylen == strlen(own[k]) &&
			    memcmp(f->key, own[k], f->keylen) == 0)
				break;
		if (k < 4)
			continue;
		tp_out_puts(o, n++ ? ",\"" : ",\"args\":{\"");
		tp_out_write(o, f->key, f->keylen);
		tp_out_puts(o, "\":");
		nj_put_value(o, f->val, f->vallen);
	}
	if (n > 0)
		tp_out_putc(o, '}');
}

static void
put_dur(struct tc *c, uint64_t d)
{
	tp_out_puts(c->o, ",\"dur\":");
	put_time(c, d);
}

/* -------------------------------------------------------------- threads */

static struct thread *
thread(struct tc *c, uint64_t pid, uint64_t tid)
{
	int added;
	int64_t id = idmap_put(&c->ids, pid, tid, &added);

	if (id < 0)
		return NULL;
	if (added) {
		if (tp_grow(&c->th, &c->cap, (size_t)id + 1, sizeof *c->th) < 0)
			return NULL;
		memset(&c->th[id], 0, sizeof c->th[id]);
		c->th[id].pid = pid;
		c->th[id].tid = tid;
		c->nth = (size_t)id + 1;
	}
	return &c->th[id];
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
	put_dur(c, t->run_end - t->run_start);
	tp_out_puts(c->o, ",\"args\":{\"insns\":");
	put_u64(c->o, t->run_insns);
	tp_out_puts(c->o, ",\"reads\":");
	put_u64(c->o, t->run_reads);
	tp_out_puts(c->o, ",\"writes\":");
	put_u64(c->o, t->run_writes);
	tp_out_puts(c->o, "}}");
}

/*
 * The args written in c->scratch kept in s after its first at bytes
 * (none when they outgrew the scratch buffer).  0, or -1 out of memory.
 */
static int
keep_args(struct tc *c, struct open_slice *s, size_t at)
{
	size_t n = c->scratch.written > 0 ? 0 : c->scratch.len;

	if (tp_grow(&s->args, &s->argscap, at + n, 1) < 0)
		return -1;
	if (n > 0)	/* s->args is NULL while no args were kept */
		memcpy(s->args + at, c->scratch.buf, n);
	s->argslen = at + n;
	return 0;
}

static int
open_slice(struct tc *c, struct thread *t, int type, uint64_t key,
    const char *name, size_t namelen, const struct tr_rec *rec)
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
	/* The args, kept until the slice closes (the buffers are reused). */
	c->scratch.len = 0;
	c->scratch.written = 0;
	put_args(&c->scratch, rec);
	return keep_args(c, s, 0);
}

static void
end_slice(struct tc *c, struct thread *t, const struct open_slice *s,
    int unfinished)
{
	head(c, "X", s->name, s->namelen, t, s->start);
	/* Streams out of time order (dial9's) may end a slice earlier. */
	put_dur(c, c->now > s->start ? c->now - s->start : 0);
	if (unfinished)
		tp_out_puts(c->o, ",\"args\":{\"unfinished\":true}");
	else if (s->argslen > 0)	/* args is NULL while none were kept */
		tp_out_write(c->o, s->args, s->argslen);
	tp_out_putc(c->o, '}');
}

/* Close the innermost open slice of this type and key (name for events). */
static int
close_slice(struct tc *c, struct thread *t, int type, uint64_t key,
    const char *name, size_t namelen)
{
	struct open_slice done;
	size_t k;

	for (k = t->n; k-- > 0;) {
		const struct open_slice *s = &t->stack[k];
		if (s->type == type && s->key == key && (type != SL_EVENT ||
		    (s->namelen == namelen && memcmp(s->name, name, namelen) == 0)))
			break;
	}
	if (k == (size_t)-1)
		return 0;
	end_slice(c, t, &t->stack[k], 0);
	/* Out of the stack, its buffer kept in the slot that frees up. */
	done = t->stack[k];
	memmove(&t->stack[k], &t->stack[k + 1],
	    (t->n - k - 1) * sizeof t->stack[0]);
	t->stack[--t->n] = done;
	return 1;
}

static void
instant(struct tc *c, struct thread *t, const char *name, size_t namelen,
    const struct tr_rec *rec)
{
	head(c, "I", name, namelen, t, c->now);
	tp_out_puts(c->o, ",\"s\":\"t\"");
	put_args(c->o, rec);
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
		put_dur(c, 1);
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

/*
 * Event names that open and close a slice: a word at the end of the
 * name (before an "Event" suffix and before a ":detail" tail), as in
 * PollStartEvent..PollEndEvent (dial9), SpanEnter:site..SpanExit:site,
 * wtf.timing#frameStart..frameEnd.  The slice is named without the word,
 * but a park is named after it: WorkerParkEvent..WorkerUnparkEvent is
 * the slice WorkerPark.
 */
static const struct {
	const char *word;
	int opens;
	const char *keep;	/* kept in the slice's name: this open word */
} pair_word[] = {
	{ "Start", 1, NULL }, { "Begin", 1, NULL }, { "Enter", 1, NULL },
	{ "Park", 1, "Park" },
	{ "End", 0, NULL }, { "Stop", 0, NULL }, { "Exit", 0, NULL },
	{ "Leave", 0, NULL }, { "Unpark", 0, "Park" },
};

/*
 * 1 opens, 0 closes, -1 neither; the slice's name (at most TC_NAME
 * bytes) in out.
 */
static int
pairing(const char *name, size_t n, char *out, size_t *outlen)
{
	const char *colon = memchr(name, ':', n);
	size_t head = colon ? (size_t)(colon - name) : n, k, wl, stem, kl;

	if (head > 5 && memcmp(name + head - 5, "Event", 5) == 0)
		head -= 5;
	for (k = 0; k < sizeof pair_word / sizeof pair_word[0]; k++) {
		wl = strlen(pair_word[k].word);
		if (head > wl && memcmp(name + head - wl, pair_word[k].word,
		    wl) == 0)
			break;
	}
	if (k == sizeof pair_word / sizeof pair_word[0])
		return -1;
	stem = head - wl;
	kl = pair_word[k].keep ? strlen(pair_word[k].keep) : 0;
	if (colon == NULL)
		colon = name + n;
	if (stem + kl + (size_t)(name + n - colon) > TC_NAME)
		return -1;
	memcpy(out, name, stem);
	if (kl > 0)	/* memcpy takes no NULL, even for 0 bytes */
		memcpy(out + stem, pair_word[k].keep, kl);
	memcpy(out + stem + kl, colon, (size_t)(name + n - colon));
	*outlen = stem + kl + (size_t)(name + n - colon);
	return pair_word[k].opens;
}

static int
ends_with(const char *s, size_t n, const char *tail)
{
	size_t tl = strlen(tail);

	return n >= tl && memcmp(s + n - tl, tail, tl) == 0;
}

/* An integer field whose value may be anything else: 1 when it is one. */
static int
peek_u64(const struct tr_rec *rec, const char *key, uint64_t *v)
{
	const struct tr_field *f = tr_find(rec, key);

	return f != NULL && tp_parse_u64(f->val, f->vallen, v) == 0;
}

/* wtf.scope#appendData: name=value into the args of the open scope. */
static int
append_data(struct tc *c, struct thread *t, const struct tr_rec *rec)
{
	const struct tr_field *k = tr_find(rec, "arg.name"),
	    *v = tr_find(rec, "value");
	struct open_slice *s;
	char key[TC_NAME];
	size_t keylen;

	if (t->n == 0 || k == NULL || v == NULL || k->vallen == 0 ||
	    k->vallen > sizeof key || k->val[0] != '"' || tr_str(c->r, rec, k, key, sizeof key,
	    &keylen) < 0)
		return 0;
	s = &t->stack[t->n - 1];
	c->scratch.len = 0;
	c->scratch.written = 0;
	tp_out_puts(&c->scratch, s->argslen ? "," : ",\"args\":{");
	tp_json_put_str(&c->scratch, key, keylen);
	tp_out_putc(&c->scratch, ':');
	nj_put_value(&c->scratch, v->val, v->vallen);
	tp_out_putc(&c->scratch, '}');
	if (c->scratch.written > 0)
		return 0;
	/* Over the closing brace, which the new arg writes again. */
	return keep_args(c, s, s->argslen ? s->argslen - 1 : 0) < 0 ? -1 : 1;
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
	int rc;

	if ((rc = field_u64(c, rec, "ts", &ts)) < 0)
		return -1;
	if (c->mode == 0)
		c->mode = rc == 1 ? 1 : 2;
	if (c->mode == 2)
		c->now = c->pos++;
	else if (rc == 1)
		c->now = ts;
	if (field_u64(c, rec, "input", &pid) < 0 ||
	    field_u64(c, rec, "tid", &tid) < 0)
		return -1;
	if ((t = thread(c, pid, tid)) == NULL)
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
	switch (kind) {
	case TK_ACQUIRE:
	case TK_RELEASE:
		if ((rc = field_u64(c, rec, "lock", &v)) < 0)
			return -1;
		p = tp_fmt_u64(memcpy(name, "lock ", 5) + 5, v);
		if (kind == TK_ACQUIRE)
			return open_slice(c, t, SL_LOCK, v, name,
			    (size_t)(p - name), rec);
		if (close_slice(c, t, SL_LOCK, v, NULL, 0) == 0) {
			c->st->unmatched++;
			instant(c, t, "release", 7, rec);
		}
		return 0;
	case TK_BEGIN:
		return open_slice(c, t, SL_BLOCK, 0, "block", 5, rec);
	case TK_END:
		if (close_slice(c, t, SL_BLOCK, 0, NULL, 0) == 0) {
			c->st->unmatched++;
			instant(c, t, "end", 3, rec);
		}
		return 0;
	case TK_FORK:
	case TK_JOIN:
		if ((rc = field_u64(c, rec, "child", &v)) < 0)
			return -1;
		if (rc == 0) {
			instant(c, t, kname[kind], strlen(kname[kind]), rec);
			return 0;
		}
		if ((other = thread(c, pid, v)) == NULL)
			return tp_fail(c->r->err, TP_EXIT_FAIL, "out of memory");
		t = &c->th[idmap_get(&c->ids, pid, tid)];	/* after realloc */
		flush_run(c, other);
		if (kind == TK_FORK)
			flow(c, t, other, "fork");
		else
			flow(c, other, t, "join");
		return 0;
	case TK_EVENT: {
		const struct tr_field *f = tr_find(rec, "name");
		char slice[TC_NAME];
		size_t slicelen;
		int how = -1;

		/* Named by name= when it is a string short enough to pair. */
		if (f == NULL || f->vallen == 0 || f->vallen > TC_NAME ||
		    f->val[0] == '[' || f->val[0] == '{') {
			namelen = (size_t)(stpcpy(name, "event") - name);
		} else if (tr_str(c->r, rec, f, name, TC_NAME, &namelen) < 0) {
			return -1;
		}
		/* WTF scopes: scope=N opens, the #leave of scope N closes. */
		if (peek_u64(rec, "scope", &v)) {
			if (!ends_with(name, namelen, "#leave")) {
				/* wtf.scope#enter is named by its argument. */
				f = tr_find(rec, "arg.name");
				if (ends_with(name, namelen, "#enter") &&
				    f != NULL && f->vallen > 0 &&
				    f->vallen <= TC_NAME && f->val[0] == '"' &&
				    tr_str(c->r, rec, f,
				    slice, TC_NAME, &slicelen) == 0)
					return open_slice(c, t, SL_SCOPE, v,
					    slice, slicelen, rec);
				return open_slice(c, t, SL_SCOPE, v, name,
				    namelen, rec);
			}
			if (close_slice(c, t, SL_SCOPE, v, NULL, 0))
				return 0;
			c->st->unmatched++;
		} else if (ends_with(name, namelen, "#appendData")) {
			if ((rc = append_data(c, t, rec)) != 0)
				return rc < 0 ? tp_fail(c->r->err, TP_EXIT_FAIL,
				    "out of memory") : 0;
		} else {
			how = pairing(name, namelen, slice, &slicelen);
		}
		if (how == 1)
			return open_slice(c, t, SL_EVENT, 0, slice, slicelen,
			    rec);
		if (how == 0 && close_slice(c, t, SL_EVENT, 0, slice, slicelen))
			return 0;
		instant(c, t, name, namelen, rec);
		return 0;
	}
	default:
		/* request, branch, and reads and writes of variables. */
		p = stpcpy(name, kname[kind]);
		if (field_u64(c, rec, "var", &v) == 1)
			p = tp_fmt_u64(stpcpy(p, " "), v);
		instant(c, t, name, (size_t)(p - name), rec);
		return 0;
	}
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
	if (tp_out_open_discard(&c.scratch) < 0)
		return tp_fail(r->err, TP_EXIT_FAIL, "out of memory");
	tp_out_puts(o, "{\"traceEvents\":[\n");
	while ((rc = tr_next(r, &rec)) > 0) {
		int kind = tp_kind(rec.kind, rec.kindlen,
		    (size_t)(rec.line + rec.len - rec.kind));
		if (kind == TK_OTHER) {
			st->skipped++;
			continue;
		}
		st->records++;
		if ((rc = record(&c, &rec, kind)) < 0)
			break;
	}
	/* What is still open ends at the last time seen. */
	for (i = 0; i < c.nth; i++) {
		struct thread *t = &c.th[i];
		flush_run(&c, t);
		st->unfinished += t->n;
		for (k = 0; k < t->n; k++)
			end_slice(&c, t, &t->stack[k], 1);
		for (k = 0; k < t->cap; k++)
			free(t->stack[k].args);
		free(t->stack);
	}
	free(c.th);
	idmap_free(&c.ids);
	tp_out_close(&c.scratch, 0, &scratch_err);
	st->position_time = c.mode == 2;
	tp_out_puts(o, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":"
	    "{\"generator\":\"txt2chrome\",\"time\":");
	tp_out_puts(o, c.mode == 2 ? "\"record position\"}}\n" :
	    "\"ts (ns)\"}}\n");
	return rc < 0 ? -1 : 0;
}
