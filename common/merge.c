/*
 * k-way merge of trace text streams by ts.
 */
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "merge.h"

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
	if ((size_t)id >= m->newtid_cap) {
		size_t cap = m->newtid_cap ? 2 * m->newtid_cap : 64;
		uint64_t *nb = realloc(m->newtid, cap * sizeof *nb);
		if (nb == NULL)
			return tp_fail(err, TP_EXIT_FAIL,
			    "out of memory for thread ids");
		m->newtid = nb;
		m->newtid_cap = cap;
	}
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

/* Renumber the tid (and a fork's or join's child) of one line. */
static int
renumber(struct tm_merge *m, size_t i, const char *line, size_t len,
    struct patch p[2], size_t *np, struct tp_err *err)
{
	const char *val[2];
	size_t vallen[2], k;
	unsigned found;
	int kind;
	const char *kend = line;

	*np = 0;
	while (kend < line + len && *kend != ' ' && *kend != '\t')
		kend++;
	kind = tp_kind(line, (size_t)(kend - line), len);
	found = tr_peek2(line, len, "tid", 3, "child", 5, val, vallen);
	if (kind != TK_FORK && kind != TK_JOIN)
		found &= 1;
	for (k = 0; k < 2; k++) {
		uint64_t t, nt;
		if (!(found & (1u << k)))
			continue;
		if (tp_parse_u64(val[k], vallen[k], &t) < 0) {
			err->line = m->in[i].r.lineno;
			err->col = (uint64_t)(val[k] - line) + 1;
			return tp_fail(err, TP_EXIT_DATA, "field \"%s\": not an "
			    "unsigned 64-bit number", k ? "child" : "tid");
		}
		if (map_tid(m, i, t, &nt, err) < 0)
			return -1;
		if (nt == t)
			continue;
		p[*np].at = val[k];
		p[*np].len = vallen[k];
		p[*np].textlen = (size_t)(tp_fmt_u64(p[*np].text, nt) -
		    p[*np].text);
		++*np;
	}
	if (*np == 2 && p[1].at < p[0].at) {
		struct patch t = p[0];
		p[0] = p[1];
		p[1] = t;
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
	for (k = 0; k < np; k++) {
		tp_out_write(out, at, (size_t)(p[k].at - at));
		tp_out_write(out, p[k].text, p[k].textlen);
		at = p[k].at + p[k].len;
	}
	tp_out_write(out, at, (size_t)(line + len - at));
	if (m->opts.tag) {
		const char *v;
		size_t vl;
		if (tr_peek(line, len, "input", 5, &v, &vl)) {
			err->line = m->in[i].r.lineno;
			err->col = (uint64_t)(v - line) + 1;
			return tp_fail(err, TP_EXIT_DATA, "the record has an "
			    "input field already (merged with --tag before?)");
		}
		tw_u64(out, "input", i);
	}
	tw_end(out);
	m->records++;
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

	while ((rc = tr_line(&t->r, &t->line, &t->len)) > 0) {
		uint64_t ts;
		if (is_comment(t->line, t->len) ||
		    !tr_peek(t->line, t->len, "ts", 2, &v, &vl)) {
			if (emit(m, i, t->line, t->len, out, err) < 0)
				return -1;
			continue;
		}
		if (tp_parse_u64(v, vl, &ts) < 0) {
			err->line = t->r.lineno;
			err->col = (uint64_t)(v - t->line) + 1;
			return tp_fail(err, TP_EXIT_DATA, "field \"ts\": \"%.*s\": "
			    "not an unsigned 64-bit number", vl > 40 ? 40 :
			    (int)vl, v);
		}
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
	return rc;
}

int
tm_merge(struct tm_merge *m, struct tm_input *in, size_t n,
    const struct tm_opts *opts, struct tp_out *out, struct tp_err *err)
{
	size_t i;

	memset(m, 0, sizeof *m);
	m->opts = *opts;
	m->in = in;
	m->n = n;
	m->failed = n;
	idmap_init(&m->assign);
	idmap_init(&m->used);
	if ((m->heap = malloc((n ? n : 1) * sizeof *m->heap)) == NULL)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	for (i = 0; i < n; i++) {
		tr_init(&in[i].r, &in[i].in);
		in[i].r.err = err;
		if (advance(m, i, out, err) < 0) {
			m->failed = i;
			return -1;
		}
	}
	while (m->nheap > 0) {
		i = heap_pop(m);
		if (emit(m, i, in[i].line, in[i].len, out, err) < 0 ||
		    advance(m, i, out, err) < 0) {
			m->failed = i;
			return -1;
		}
	}
	return 0;
}

void
tm_free(struct tm_merge *m)
{
	idmap_free(&m->assign);
	idmap_free(&m->used);
	free(m->newtid);
	free(m->heap);
}
