/*
 * k-way merge of trace text streams by ts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/digits.h"
#include "base/grow.h"
#include "io/spool.h"
#include "tools/merge.h"

static int
before(const struct tm_merge *m, size_t a, size_t b)
{
	return m->in[a].ts < m->in[b].ts ||
	    (m->in[a].ts == m->in[b].ts && a < b);
}

static void
heap_push(struct tm_merge *m, size_t i)
{
	size_t k = m->nheap++;

	while (k > 0 && before(m, i, m->heap[(k - 1) / 2])) {
		m->heap[k] = m->heap[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	m->heap[k] = i;
}

static size_t
heap_pop(struct tm_merge *m)
{
	size_t top = m->heap[0], last = m->heap[--m->nheap], k = 0, c;

	while ((c = 2 * k + 1) < m->nheap) {
		if (c + 1 < m->nheap && before(m, m->heap[c + 1], m->heap[c]))
			c++;
		if (!before(m, m->heap[c], last))
			break;
		m->heap[k] = m->heap[c];
		k = c;
	}
	if (m->nheap > 0)
		m->heap[k] = last;
	return top;
}

static int
is_comment(const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return i == len || line[i] == '#';
}

/* The new number of tid t of input i. */
static int
map_tid(struct tm_merge *m, size_t i, uint64_t t, uint64_t *nt,
    struct tp_err *err)
{
	int64_t id = idmap_get(&m->assign, i, t);
	int added;

	if (id >= 0) {
		*nt = m->newtid[id];
		return 0;
	}
	*nt = t;
	if (idmap_get(&m->used, t, 0) >= 0) {
		/* Another input has it: the next number no input had yet. */
		if (m->max_tid == UINT64_MAX)
			return tp_fail(err, TP_EXIT_DATA, "no thread id left "
			    "to renumber tid %llu", (unsigned long long)t);
		*nt = m->max_tid + 1;
		m->renumbered++;
	}
	if (*nt > m->max_tid)
		m->max_tid = *nt;
	if (idmap_put(&m->used, *nt, 0, &added) < 0 ||
	    (id = idmap_put(&m->assign, i, t, &added)) < 0)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory for thread ids");
	if (tp_grow(&m->newtid, &m->newtid_cap, (size_t)id + 1,
	    sizeof *m->newtid) < 0)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory for thread ids");
	m->newtid[id] = *nt;
	return 0;
}

/* A field's value span to replace, and what with. */
struct patch {
	const char *at;
	size_t len;
	char text[24];
	size_t textlen;
};

/*
 * The tid (and a fork's or join's child) of one line of input i: bit k
 * of *found set when field k is there, its value in t[k] and its text in
 * val[k].  0, or -1 when one is not a number.
 */
static int
tids(const struct tm_merge *m, size_t i, const char *line, size_t len,
    const char *val[2], size_t vallen[2], uint64_t t[2], unsigned *found,
    struct tp_err *err)
{
	const char *kend = line;
	int kind;
	size_t k;

	while (kend < line + len && *kend != ' ' && *kend != '\t')
		kend++;
	kind = tp_kind(line, (size_t)(kend - line), len);
	*found = tr_peek2(line, len, "tid", 3, "child", 5, val, vallen);
	if (kind != TK_FORK && kind != TK_JOIN)
		*found &= 1;
	for (k = 0; k < 2; k++)
		if ((*found & (1u << k)) &&
		    tp_parse_u64(val[k], vallen[k], &t[k]) < 0) {
			err->line = m->in[i].r.lineno;
			err->col = (uint64_t)(val[k] - line) + 1;
			return tp_fail(err, TP_EXIT_DATA, "field \"%s\": not an "
			    "unsigned 64-bit number", k ? "child" : "tid");
		}
	return 0;
}

/* With --tag, a record of input i must not have an input field. */
static int
untagged(const struct tm_merge *m, size_t i, const char *line, size_t len,
    struct tp_err *err)
{
	const char *v;
	size_t vl;

	if (!tr_peek(line, len, "input", 5, &v, &vl))
		return 0;
	err->line = m->in[i].r.lineno;
	err->col = (uint64_t)(v - line) + 1;
	return tp_fail(err, TP_EXIT_DATA, "the record has an input field "
	    "already (merged with --tag before?)");
}

/*
 * The errors emit can find in a line, found where it is read (sorting
 * cuts inputs into runs, whose line numbers are not the input's).
 */
static int
check(const struct tm_merge *m, size_t i, const char *line, size_t len,
    struct tp_err *err)
{
	const char *val[2];
	size_t vallen[2];
	uint64_t t[2];
	unsigned found;

	if (is_comment(line, len))
		return 0;
	if (m->opts.renumber &&
	    tids(m, i, line, len, val, vallen, t, &found, err) < 0)
		return -1;
	return m->opts.tag ? untagged(m, i, line, len, err) : 0;
}

/* Renumber the tid (and a fork's or join's child) of one line. */
static int
renumber(struct tm_merge *m, size_t i, const char *line, size_t len,
    struct patch p[2], size_t *np, struct tp_err *err)
{
	const char *val[2];
	size_t vallen[2], k;
	uint64_t t[2];
	unsigned found;

	*np = 0;
	if (tids(m, i, line, len, val, vallen, t, &found, err) < 0)
		return -1;
	for (k = 0; k < 2; k++) {
		uint64_t nt;
		if (!(found & (1u << k)))
			continue;
		if (map_tid(m, m->in[i].origin, t[k], &nt, err) < 0)
			return -1;
		if (nt == t[k])
			continue;
		p[*np].at = val[k];
		p[*np].len = vallen[k];
		p[*np].textlen = (size_t)(tp_fmt_u64(p[*np].text, nt) -
		    p[*np].text);
		++*np;
	}
	if (*np == 2 && p[1].at < p[0].at) {
		struct patch tmp = p[0];
		p[0] = p[1];
		p[1] = tmp;
	}
	return 0;
}

/* Write one line of input i, with its changes. */
static int
emit(struct tm_merge *m, size_t i, const char *line, size_t len,
    struct tp_out *out, struct tp_err *err)
{
	struct patch p[2];
	size_t np = 0, k;
	const char *at = line;

	if (is_comment(line, len)) {
		tp_out_write(out, line, len);
		tw_end(out);
		return 0;
	}
	if (m->opts.renumber && renumber(m, i, line, len, p, &np, err) < 0)
		return -1;
	/* A line as it is, most of them: one copy with its newline. */
	if (np == 0 && !m->opts.tag && len < TP_OUT_SLACK) {
		char *d = tp_out_reserve(out, len + 1);
		memcpy(d, line, len);
		d[len] = '\n';
		tp_out_commit(out, d + len + 1);
		m->records++;
		return 0;
	}
	for (k = 0; k < np; k++) {
		tp_out_write(out, at, (size_t)(p[k].at - at));
		tp_out_write(out, p[k].text, p[k].textlen);
		at = p[k].at + p[k].len;
	}
	tp_out_write(out, at, (size_t)(line + len - at));
	if (m->opts.tag) {
		if (untagged(m, i, line, len, err) < 0)
			return -1;
		tw_u64(out, "input", m->in[i].origin);
	}
	tw_end(out);
	m->records++;
	return 0;
}

/*
 * 1 when the line has a time: a record with a ts (its value in *v) whose
 * kind is not a format's structure record, named FORMAT-WHAT
 * (dial9-schema's ts= is a flag, a wtf-define carries the time it was
 * written): those keep their place, as lines without ts do.
 */
static int
timed(const char *line, size_t len, const char **v, size_t *vl, uint64_t *ts)
{
	const char *k = line;

	if (is_comment(line, len))
		return 0;
	while (k < line + len && *k != ' ' && *k != '\t' && *k != '-')
		k++;
	/*
	 * ts the first field (most records of a timed stream): a bare value
	 * is read here, the blank-separated span tr_peek would give, and
	 * when it is up to 19 decimal digits (no overflow) its number too:
	 * 2.
	 */
	if (line + len - k > 4 && (*k == ' ' || *k == '\t') && k[1] == 't' &&
	    k[2] == 's' && k[3] == '=' && k[4] >= '0' && k[4] <= '9') {
		const char *p = k + 4, *end = line + len;
		uint64_t x = 0;
		unsigned d;
		while (p < end && (d = (unsigned)(unsigned char)*p - '0') <= 9) {
			x = x * 10 + d;
			p++;
		}
		*v = k + 4;
		if ((p == end || *p == ' ' || *p == '\t') && p - *v < 20) {
			*vl = (size_t)(p - *v);
			*ts = x;
			return 2;
		}
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		*vl = (size_t)(p - *v);
		return 1;
	}
	return (k == line + len || *k != '-') &&
	    tr_peek(line, len, "ts", 2, v, vl);
}

static int
parse_ts(const struct tm_input *t, const char *v, size_t vl, uint64_t *ts,
    struct tp_err *err)
{
	if (tp_parse_u64(v, vl, ts) == 0)
		return 0;
	err->line = t->r.lineno;
	err->col = (uint64_t)(v - t->line) + 1;
	return tp_fail(err, TP_EXIT_DATA, "field \"ts\": \"%.*s\": not an "
	    "unsigned 64-bit number", vl > 40 ? 40 : (int)vl, v);
}

static int
hold(struct tm_input *t)
{
	if (tp_grow(&t->held, &t->heldcap, t->heldlen + t->len + 1, 1) < 0)
		return -1;
	memcpy(t->held + t->heldlen, t->line, t->len);
	t->held[t->heldlen + t->len] = '\n';
	t->heldlen += t->len + 1;
	return 0;
}

static int
emit_held(struct tm_merge *m, size_t i, struct tp_out *out,
    struct tp_err *err)
{
	struct tm_input *t = &m->in[i];
	const char *p = t->held, *end = t->held + t->heldlen, *nl;

	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (emit(m, i, p, (size_t)(nl - p), out, err) < 0)
			return -1;
	}
	t->heldlen = 0;
	return 0;
}

/*
 * Read input i on to its next timed record, writing the lines without
 * ts on the way; push it on the heap.  At the end of the input nothing
 * is pushed.
 */
static int
advance(struct tm_merge *m, size_t i, struct tp_out *out, struct tp_err *err)
{
	struct tm_input *t = &m->in[i];
	const char *v;
	size_t vl;
	int rc;

	t->heldlen = 0;
	while ((rc = tr_line(&t->r, &t->line, &t->len)) > 0) {
		uint64_t ts;
		int has = timed(t->line, t->len, &v, &vl, &ts);
		if (!has) {
			/* In a sorted run they wait for the record after them,
			   but for the lines after the input's last record. */
			int now = !m->units || (t->r.lineno >= t->tail_first &&
			    t->r.lineno <= t->tail_last);
			if (!now && hold(t) < 0)
				return tp_fail(err, TP_EXIT_FAIL, "out of memory");
			if (now &&
			    emit(m, i, t->line, t->len, out, err) < 0)
				return -1;
			continue;
		}
		if (has == 1 && parse_ts(t, v, vl, &ts, err) < 0)
			return -1;
		if (t->started && ts < t->prev_ts) {
			if (m->opts.sort_check) {
				err->line = t->r.lineno;
				err->col = (uint64_t)(v - t->line) + 1;
				return tp_fail(err, TP_EXIT_DATA, "ts %llu goes "
				    "back in time (the record before has %llu)",
				    (unsigned long long)ts,
				    (unsigned long long)t->prev_ts);
			}
			if (t->backwards++ == 0) {
				t->first_back_line = t->r.lineno;
				t->first_back_ts = ts;
				t->first_back_prev = t->prev_ts;
			}
		}
		t->started = 1;
		t->prev_ts = t->ts = ts;
		heap_push(m, i);
		return 0;
	}
	if (rc == 0 && emit_held(m, i, out, err) < 0)
		return -1;
	return rc;
}

/* ---------------------------------------------------------------- sort */

/*
 * A timed record and the lines without time before it (headers, schemas,
 * definitions: what the records after them use), in the run's text.
 */
struct unit {
	uint64_t ts;
	size_t off, len;
};

struct run {
	char *text;
	size_t len, cap;
	char *out;		/* the sorted text on its way to the file */
	size_t room;
	struct unit *u;
	size_t n, ucap;
	size_t open;		/* start of the lines waiting for a record */
	int tail;		/* the last unit is the input's last lines */
};

static int
write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static uint64_t
count_lines(const char *p, size_t n)
{
	const char *end = p + n;
	uint64_t k = 0;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		k++;
		p++;
	}
	return k;
}

static int
unit_cmp(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int
run_syserr(struct tp_err *err, const char *what)
{
	int e = errno;

	err->line = 0;
	err->offset = TP_NONE;
	return tp_fail(err, TP_EXIT_FAIL, "cannot %s a sorted run in %s: %s",
	    what, tp_tmpdir(), strerror(e));
}

/*
 * A new temporary file in $TMPDIR with no name: a signal that ends the
 * process (SIGTERM, SIGINT...) leaves none of the input's text behind.
 */
static int
run_create(int *fd, struct tp_err *err)
{
	if ((*fd = tp_tmpfile("txtmerge-run")) < 0)
		return run_syserr(err, "create");
	return 0;
}

/*
 * The run written to fd (bad: it could not be), read from its start as
 * the last run, a part of input origin.  fd is the run's from now on, or
 * closed.
 */
static int
run_push(struct tm_merge *m, int fd, int bad, size_t origin,
    unsigned level, struct tp_err *err)
{
	struct tm_input *t;

	if (m->nruns % 16 == 0) {
		struct tm_input *nr = realloc(m->runs,
		    (m->nruns + 16) * sizeof *nr);
		if (nr == NULL) {
			close(fd);
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
		}
		m->runs = nr;
	}
	t = &m->runs[m->nruns];
	memset(t, 0, sizeof *t);
	if (bad || lseek(fd, 0, SEEK_SET) != 0 ||
	    tp_in_open_fd(&t->in, fd, m->in[origin].in.name, err) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return run_syserr(err, "write");
	}
	t->origin = origin;
	t->level = level;
	m->nruns++;
	return 0;
}

/* The inputs m->in[0..n) merged onto out in (ts, index) order. */
static int
merge_inputs(struct tm_merge *m, struct tp_out *out, struct tp_err *err)
{
	size_t i;

	if ((m->heap = malloc((m->n ? m->n : 1) * sizeof *m->heap)) == NULL)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	for (i = 0; i < m->n; i++)
		if (advance(m, i, out, err) < 0) {
			m->failed = m->in[i].origin;
			return -1;
		}
	while (m->nheap > 0) {
		i = heap_pop(m);
		if (emit_held(m, i, out, err) < 0 ||
		    emit(m, i, m->in[i].line, m->in[i].len, out, err) < 0 ||
		    advance(m, i, out, err) < 0) {
			m->failed = m->in[i].origin;
			return -1;
		}
	}
	return 0;
}

/*
 * The last TM_FANIN runs, when they are of one input and one level,
 * merged into one run of the level above (as sort(1) merges at most
 * NMERGE files at a time), so that fewer than TM_FANIN runs of each
 * level stay open.  Ties keep cut order: the runs are the merge's inputs
 * in that order.
 */
static int
merge_tail(struct tm_merge *m, struct tp_err *err)
{
	while (m->nruns >= TM_FANIN) {
		struct tm_input *t = m->runs + m->nruns - TM_FANIN;
		size_t k, origin = t[0].origin;
		unsigned level = t[0].level;
		struct tm_merge sub;
		struct tp_out o;
		int fd, wfd, rc;

		for (k = 1; k < TM_FANIN; k++)
			if (t[k].origin != origin || t[k].level != level)
				return 0;
		if (run_create(&fd, err) < 0)
			return -1;
		/* o closes its copy; fd stays open to read the run back. */
		if ((wfd = dup(fd)) < 0 || tp_out_open_fd(&o, wfd,
		    "sorted run") < 0) {
			int e = wfd < 0 ? errno : ENOMEM;
			if (wfd >= 0)
				close(wfd);
			close(fd);
			errno = e;
			return run_syserr(err, "write");
		}
		memset(&sub, 0, sizeof sub);
		sub.in = t;
		sub.n = TM_FANIN;
		sub.units = 1;
		idmap_init(&sub.assign);
		idmap_init(&sub.used);
		for (k = 0; k < TM_FANIN; k++) {
			tr_init(&t[k].r, &t[k].in);
			t[k].r.err = err;
		}
		rc = merge_inputs(&sub, &o, err);
		tm_free(&sub);
		for (k = 0; k < TM_FANIN; k++) {
			tp_in_close(&t[k].in);
			free(t[k].held);
		}
		m->nruns -= TM_FANIN;
		if (rc < 0) {
			tp_out_close(&o, 0, NULL);
			close(fd);
			return -1;
		}
		rc = tp_out_close(&o, 1, NULL);
		errno = o.error;
		if (run_push(m, fd, rc < 0, origin, level + 1, err) < 0)
			return -1;
	}
	return 0;
}

/*
 * The run's units sorted into an unlinked temporary file, an input of the
 * merge; the lines still waiting for a record move to the start.
 */
static int
flush_run(struct tm_merge *m, size_t origin, struct run *r,
    struct tp_err *err)
{
	size_t k, tail_off = r->tail ? r->u[r->n - 1].off : 0;
	uint64_t tail_first = 0, tail_last = 0;
	int fd, bad;

	/* A run in order already (a stream sorted but for a few records,
	   or a merge of sorted ones) is left as it is: the order the sort
	   gives, its keys being distinct. */
	for (k = 1; k < r->n && unit_cmp(&r->u[k - 1], &r->u[k]) < 0; k++)
		;
	if (k < r->n)
		qsort(r->u, r->n, sizeof *r->u, unit_cmp);
	/*
	 * The lines after the input's last record: the unit of the same ts
	 * and the highest offset, right after that record's.  The merge
	 * writes them as soon as that record (see advance).
	 */
	for (k = 0; r->tail; k++) {
		uint64_t n = count_lines(r->text + r->u[k].off, r->u[k].len);
		if (r->u[k].off == tail_off) {
			tail_first = tail_last + 1;
			tail_last += n;
			break;
		}
		tail_last += n;
	}
	if (run_create(&fd, err) < 0)
		return -1;
	/* The units in order, gathered into writes of about 1 MiB. */
	for (k = 0, bad = 0; k < r->n && !bad;) {
		size_t len = 0;
		if (r->u[k].len > r->room) {	/* a unit longer than that */
			bad = write_all(fd, r->text + r->u[k].off, r->u[k].len);
			k++;
			continue;
		}
		for (; k < r->n && len + r->u[k].len <= r->room; k++) {
			memcpy(r->out + len, r->text + r->u[k].off, r->u[k].len);
			len += r->u[k].len;
		}
		bad = write_all(fd, r->out, len);
	}
	if (run_push(m, fd, bad, origin, 0, err) < 0)
		return -1;
	m->runs[m->nruns - 1].tail_first = tail_first;
	m->runs[m->nruns - 1].tail_last = tail_last;
	memmove(r->text, r->text + r->open, r->len - r->open);
	r->len -= r->open;
	r->open = 0;
	r->n = 0;
	return 0;
}

static int
run_add(struct run *r, const char *line, size_t len)
{
	if (tp_grow(&r->text, &r->cap, r->len + len + 1, 1) < 0)
		return -1;
	memcpy(r->text + r->len, line, len);
	r->text[r->len + len] = '\n';
	r->len += len + 1;
	return 0;
}

/* The lines since r->open, ending in a record at ts, one unit. */
static int
run_unit(struct run *r, uint64_t ts)
{
	if (tp_grow(&r->u, &r->ucap, r->n + 1, sizeof *r->u) < 0)
		return -1;
	r->u[r->n].ts = ts;
	r->u[r->n].off = r->open;
	r->u[r->n++].len = r->len - r->open;
	r->open = r->len;
	return 0;
}

/*
 * Input i cut into sorted runs.  Its lines before the first timed record
 * are written at once, as the merge would; its lines after the last one
 * stay after it.
 */
static int
sort_input(struct tm_merge *m, size_t i, struct run *r, struct tp_out *out,
    struct tp_err *err)
{
	struct tm_input *t = &m->in[i];
	size_t cap = m->opts.run_bytes ? m->opts.run_bytes : TM_RUN_BYTES;
	const char *v;
	size_t vl;
	uint64_t ts = 0;
	int rc;

	while ((rc = tr_line(&t->r, &t->line, &t->len)) > 0) {
		int has_ts = timed(t->line, t->len, &v, &vl, &ts);
		if (!has_ts && !t->started) {
			if (emit(m, i, t->line, t->len, out, err) < 0)
				return -1;
			continue;
		}
		if ((has_ts == 1 && parse_ts(t, v, vl, &ts, err) < 0) ||
		    check(m, i, t->line, t->len, err) < 0)
			return -1;
		t->started = 1;
		/* A full run goes when the next record comes: the last one
		   keeps the lines after the input's last record, found by
		   their line numbers in it, so it is not merged with others
		   (merge_tail). */
		if (has_ts && r->open >= cap &&
		    (flush_run(m, i, r, err) < 0 || merge_tail(m, err) < 0))
			return -1;
		if (run_add(r, t->line, t->len) < 0 ||
		    (has_ts && run_unit(r, ts) < 0))
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	}
	if (rc < 0)
		return -1;
	if (r->open < r->len) {
		if (run_unit(r, ts) < 0)
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
		r->tail = 1;
	}
	rc = r->n > 0 ? flush_run(m, i, r, err) : 0;
	r->tail = 0;
	return rc;
}

int
tm_merge(struct tm_merge *m, struct tm_input *in, size_t n,
    const struct tm_opts *opts, struct tp_out *out, struct tp_err *err)
{
	size_t i;

	memset(m, 0, sizeof *m);
	m->opts = *opts;
	/* Renumbered tids keep threads apart; input=N keeps apart what the
	   encoders number per input (workers, zones, locks, schema ids). */
	if (m->opts.renumber)
		m->opts.tag = 1;
	m->in = in;
	m->n = n;
	m->failed = n;
	idmap_init(&m->assign);
	idmap_init(&m->used);
	for (i = 0; i < n; i++) {
		tr_init(&in[i].r, &in[i].in);
		in[i].r.err = err;
		in[i].origin = i;
	}
	if (opts->sort) {
		struct run r = { NULL, 0, 0, NULL, 1 << 20, NULL, 0, 0, 0, 0 };

		if ((r.out = malloc(r.room)) == NULL)
			return tp_fail(err, TP_EXIT_FAIL, "out of memory");
		for (i = 0; i < n; i++)
			if (sort_input(m, i, &r, out, err) < 0)
				break;
		free(r.text);
		free(r.out);
		free(r.u);
		if (i < n) {
			m->failed = i;
			return -1;
		}
		/* Now the runs are the inputs: in FILE order, then cut order. */
		m->in = m->runs;
		m->n = m->nruns;
		m->units = 1;
		for (i = 0; i < m->n; i++) {
			tr_init(&m->in[i].r, &m->in[i].in);
			m->in[i].r.err = err;
		}
	}
	return merge_inputs(m, out, err);
}

void
tm_free(struct tm_merge *m)
{
	size_t i;

	for (i = 0; i < m->nruns; i++) {
		tp_in_close(&m->runs[i].in);
		free(m->runs[i].held);
	}
	free(m->runs);
	idmap_free(&m->assign);
	idmap_free(&m->used);
	free(m->newtid);
	free(m->heap);
}
