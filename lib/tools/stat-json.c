/*
 * The state of a summary in its JSON report ("state"), read back, and the
 * merge of two summaries: every key of every table in the order first
 * seen, with the figures kept per key, so that the merge of the summaries
 * of consecutive pieces of a text is the summary of the whole while the
 * tables keep all their keys; a table that did not (past --max-keys)
 * carries its HyperLogLog registers instead, and the merged distinct
 * count is their estimate, as the whole's would be.  Strings are written
 * as hex of their bytes: any bytes come back as they were.
 */
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "base/grow.h"
#include "text/json.h"
#include "tools/stat-int.h"

/* -------------------------------------------------------------- write */

static void
hex(struct tp_out *o, const void *p, size_t n)
{
	char buf[2 * 256 + 1];
	const unsigned char *b = p;

	tp_out_putc(o, '"');
	while (n > 0) {
		size_t k = n < 256 ? n : 256;
		tp_out_write(o, buf, (size_t)(tp_fmt_hexbytes(buf, b, k) - buf));
		b += k;
		n -= k;
	}
	tp_out_putc(o, '"');
}

static void
u(struct tp_out *o, uint64_t v)
{
	char buf[24];

	tp_out_write(o, buf, (size_t)(tp_fmt_u64(buf, v) - buf));
}

static void
table(const struct ts_stat *s, struct tp_out *o, const char *name,
    const struct table *t)
{
	size_t i, k;

	ts_put(o, ",\"%s\":{\"full\":%s", name, t->full ? "true" : "false");
	if (t->full) {
		ts_put(o, ",\"hll\":");
		hex(o, t->est.reg, sizeof t->est.reg);
	}
	ts_put(o, ",\"keys\":[");
	for (i = 0; i < t->map.count; i++) {
		uint64_t a, b;
		tp_out_puts(o, i ? ",[" : "[");
		if (t->str) {
			const char *p;
			size_t n;
			ts_key_text(s, t, i, &p, &n);
			hex(o, p, n);
		} else {
			idmap_key(&t->map, i, &a, &b);
			u(o, a);
			tp_out_putc(o, ',');
			u(o, b);
		}
		tp_out_putc(o, ',');
		u(o, t->count[i]);
		if (t == &s->data) {
			const struct dstat *d = &s->dst[i];
			ts_put(o, ",%llu,%llu,%llu,%llu,%u",
			    (unsigned long long)d->reads,
			    (unsigned long long)d->writes,
			    (unsigned long long)d->tid,
			    (unsigned long long)d->wtid, d->flags);
		} else if (t == &s->locks) {
			const struct lstat *l = &s->lst[i];
			ts_put(o, ",%u,%llu,%u,%llu", l->has_rec,
			    (unsigned long long)l->max_rec, l->has_ns,
			    (unsigned long long)l->max_ns);
		} else if (t == &s->groups) {
			const struct dgroup *d = &s->dg[i];
			ts_put(o, ",%llu,%llu,%llu,%llu,%llu,",
			    (unsigned long long)d->count,
			    (unsigned long long)d->untimed,
			    (unsigned long long)d->total,
			    (unsigned long long)d->min,
			    (unsigned long long)d->max);
			if (d->hist != NULL) {
				/* buckets as [index,count] pairs, the empty left out */
				int first = 1;
				tp_out_puts(o, "{\"hist\":[");
				for (k = 0; k < TS_HIST; k++)
					if (d->hist[k]) {
						ts_put(o, "%s%zu,%llu", first ? "" :
						    ",", k, (unsigned long long)
						    d->hist[k]);
						first = 0;
					}
				tp_out_puts(o, "]}");
			} else {
				tp_out_putc(o, '[');
				for (k = 0; k < d->nv; k++) {
					if (k)
						tp_out_putc(o, ',');
					u(o, d->v[k]);
				}
				tp_out_putc(o, ']');
			}
			tp_out_puts(o, ",[");
			for (k = 0; k < d->ntop; k++) {
				const struct longest *l = &d->top[k];
				ts_put(o, "%s[%llu,%llu,%llu,%u,%llu]", k ? "," : "",
				    (unsigned long long)l->ns,
				    (unsigned long long)l->start,
				    (unsigned long long)l->input, l->has_tid,
				    (unsigned long long)l->tid);
			}
			tp_out_putc(o, ']');
		}
		tp_out_putc(o, ']');
	}
	tp_out_puts(o, "]}");
}

static void
slice(struct tp_out *o, const struct oslice *c, int first)
{
	ts_put(o, "%s[%llu,%u,%llu,%u,%llu,%u,%llu,%llu,%lld]", first ? "" : ",",
	    (unsigned long long)c->input, c->has_tid,
	    (unsigned long long)c->tid, c->type, (unsigned long long)c->key,
	    c->has_ts, (unsigned long long)c->ts, (unsigned long long)c->rec,
	    (long long)c->group);
}

static int
by_rec(const void *a, const void *b)
{
	const struct oslice *x = a, *y = b;

	return x->rec < y->rec ? -1 : x->rec > y->rec;
}

void
ts_state_json(const struct ts_stat *s, struct tp_out *o)
{
	struct oslice *all;
	size_t i, k, m;
	int first = 1;

	ts_put(o, "{\"v\":1,\"records\":%llu,\"reads\":%llu,\"writes\":%llu,"
	    "\"acquisitions\":%llu,\"no_by\":%llu,\"kind\":[",
	    (unsigned long long)s->records, (unsigned long long)s->reads,
	    (unsigned long long)s->writes,
	    (unsigned long long)s->acquisitions,
	    (unsigned long long)s->no_by);
	for (i = 0; i < TK_NKINDS; i++) {
		if (i)
			tp_out_putc(o, ',');
		u(o, s->shared_kind[i]);
	}
	ts_put(o, "],\"ts\":");
	if (s->has_ts)
		ts_put(o, "[%llu,%llu,%llu,%llu,%llu]",
		    (unsigned long long)s->ts_first,
		    (unsigned long long)s->ts_last,
		    (unsigned long long)s->ts_min,
		    (unsigned long long)s->ts_max,
		    (unsigned long long)s->ts_records);
	else
		ts_put(o, "null");
	ts_put(o, ",\"seq\":");
	if (s->has_seq)
		ts_put(o, "[%llu,%llu]", (unsigned long long)s->seq_min,
		    (unsigned long long)s->seq_max);
	else
		ts_put(o, "null");
	table(s, o, "kinds", &s->kinds);
	table(s, o, "threads", &s->threads);
	table(s, o, "names", &s->names);
	table(s, o, "data", &s->data);
	table(s, o, "code", &s->code);
	table(s, o, "locks", &s->locks);
	table(s, o, "lockthr", &s->lockthr);
	table(s, o, "forks", &s->forks);
	table(s, o, "joins", &s->joins);
	table(s, o, "by", &s->by);
	table(s, o, "groups", &s->groups);
	ts_put(o, ",\"unpaired\":%llu,\"partial\":%s,\"ends\":[",
	    (unsigned long long)s->unpaired, s->pair_cut ? "true" : "false");
	for (i = 0; i < s->num; i++)
		slice(o, &s->um[i], i == 0);
	ts_put(o, "],\"open\":[");
	/* In the order they opened, whichever thread the merge saw first. */
	if (s->nopen > 0 && (all = malloc(s->nopen * sizeof *all)) != NULL) {
		for (i = 0, m = 0; i < s->thr.count; i++)
			for (k = 0; k < s->stk[i].n; k++)
				all[m++] = s->stk[i].s[k];
		qsort(all, m, sizeof *all, by_rec);
		for (i = 0; i < m; i++, first = 0)
			slice(o, &all[i], first);
		free(all);
	}
	ts_put(o, "]}");
}

/* --------------------------------------------------------------- merge */

/* Key i of src's table st into dst's dt: its id there, or -1. */
static int64_t
put_key(struct ts_stat *dst, struct table *dt, const struct ts_stat *src,
    const struct table *st, size_t i, int *added)
{
	uint64_t a, b;

	*added = 0;
	if (st->str) {
		const char *p;
		size_t n;
		ts_key_text(src, st, i, &p, &n);
		return ts_tab_put_str(dst, dt, p, n, st->count[i], added);
	}
	idmap_key(&st->map, i, &a, &b);
	return ts_tab_put(dst, dt, a, b, added, st->count[i]);
}

static void
merge_data(struct dstat *d, const struct dstat *x, int added)
{
	if (added) {
		*d = *x;
		return;
	}
	d->reads += x->reads;
	d->writes += x->writes;
	d->flags |= x->flags & (D_SHARED | D_MULTIWRITER);
	/* x's accesses with a tid were all by x->tid unless x is shared
	   (and its writes by x->wtid unless multi-writer): x counts as one
	   access by that thread; d without one takes x's thread. */
	if (x->flags & D_TIDSEEN)
		dstat_thread(d, &d->tid, D_TIDSEEN, D_SHARED, x->tid);
	if (x->flags & D_WRITTEN)
		dstat_thread(d, &d->wtid, D_WRITTEN, D_MULTIWRITER, x->wtid);
}

static int
merge_table(struct ts_stat *dst, struct table *dt, const struct ts_stat *src,
    const struct table *st)
{
	size_t i, r;
	int added;
	int64_t id;

	for (i = 0; i < st->map.count && !dst->oom; i++) {
		if ((id = put_key(dst, dt, src, st, i, &added)) < 0)
			continue;
		if (dt == &dst->data) {
			merge_data(&dst->dst[id], &src->dst[i], added);
		} else if (dt == &dst->locks) {
			struct lstat *l = &dst->lst[id];
			const struct lstat *x = &src->lst[i];
			if (x->has_rec && (!l->has_rec || x->max_rec > l->max_rec))
				l->max_rec = x->max_rec;
			if (x->has_ns && (!l->has_ns || x->max_ns > l->max_ns))
				l->max_ns = x->max_ns;
			l->has_rec |= x->has_rec;
			l->has_ns |= x->has_ns;
		} else if (dt == &dst->groups &&
		    ts_dur_merge(dst, id, &src->dg[i]) < 0) {
			dst->oom = 1;
		}
	}
	if (st->full && !dt->full)
		ts_tab_full(dt);
	for (r = 0; r < sizeof dt->est.reg; r++)
		if (st->est.reg[r] > dt->est.reg[r])
			dt->est.reg[r] = st->est.reg[r];
	return dst->oom ? -1 : 0;
}

int
ts_merge(struct ts_stat *dst, const struct ts_stat *src)
{
	uint64_t off = dst->records;
	size_t i, k;
	struct table *dt[] = { &dst->kinds, &dst->threads, &dst->names,
	    &dst->data, &dst->code, &dst->locks, &dst->lockthr, &dst->forks,
	    &dst->joins, &dst->by, &dst->groups };
	const struct table *st[] = { &src->kinds, &src->threads, &src->names,
	    &src->data, &src->code, &src->locks, &src->lockthr, &src->forks,
	    &src->joins, &src->by, &src->groups };

	dst->records += src->records;
	for (i = 0; i < TK_NKINDS; i++)
		dst->shared_kind[i] += src->shared_kind[i];
	dst->reads += src->reads;
	dst->writes += src->writes;
	dst->acquisitions += src->acquisitions;
	dst->no_by += src->no_by;
	if (src->has_ts) {
		if (!dst->has_ts) {
			dst->ts_first = src->ts_first;
			dst->ts_min = src->ts_min;
			dst->ts_max = src->ts_max;
			dst->has_ts = 1;
		}
		dst->ts_last = src->ts_last;
		if (src->ts_min < dst->ts_min)
			dst->ts_min = src->ts_min;
		if (src->ts_max > dst->ts_max)
			dst->ts_max = src->ts_max;
		dst->ts_records += src->ts_records;
	}
	if (src->has_seq) {
		if (!dst->has_seq || src->seq_min < dst->seq_min)
			dst->seq_min = src->seq_min;
		if (!dst->has_seq || src->seq_max > dst->seq_max)
			dst->seq_max = src->seq_max;
		dst->has_seq = 1;
	}
	for (i = 0; i < sizeof dt / sizeof dt[0]; i++)
		if (merge_table(dst, dt[i], src, st[i]) < 0)
			return -1;
	/* src's ends pair with what dst left open, in src's order. */
	for (i = 0; i < src->num; i++) {
		struct oslice c = src->um[i];
		c.rec += off;
		if (ts_dur_close(dst, &c) < 0)
			return -1;
	}
	dst->unpaired += src->unpaired - src->num;
	for (i = 0; i < src->thr.count; i++)
		for (k = 0; k < src->stk[i].n; k++) {
			struct oslice o = src->stk[i].s[k];
			o.rec += off;
			if (o.group >= 0) {
				const char *p;
				size_t n;
				ts_key_text(src, &src->groups, (size_t)o.group,
				    &p, &n);
				o.group = ts_tab_put_str(dst, &dst->groups, p, n,
				    0, NULL);
			}
			if (dst->oom || ts_dur_push(dst, &o) < 0)
				return -1;
		}
	dst->pair_cut |= src->pair_cut;
	return dst->oom ? -1 : 0;
}

/* ---------------------------------------------------------------- read */

struct rd {
	const char *e;
	int bad;
};

static const char *
member(const char *obj, const char *e, const char *name, const char **ve)
{
	const char *cur = obj, *k, *v;
	size_t kl, n = strlen(name);

	if (obj == NULL || *obj != '{')
		return NULL;
	while (tp_json_member(&cur, e, &k, &kl, &v, ve) == 1)
		if (kl == n && memcmp(k, name, n) == 0)
			return v;
	return NULL;
}

static uint64_t
num(struct rd *r, const char *v, const char *ve)
{
	uint64_t x = 0;

	if (v == NULL || tp_parse_u64(v, (size_t)(ve - v), &x) < 0)
		r->bad = 1;
	return x;
}

static int64_t
snum(struct rd *r, const char *v, const char *ve)
{
	if (v != NULL && ve - v >= 2 && *v == '-')
		return -(int64_t)num(r, v + 1, ve);
	return (int64_t)num(r, v, ve);
}

static uint64_t
mnum(struct rd *r, const char *obj, const char *name)
{
	const char *ve, *v = member(obj, r->e, name, &ve);

	return num(r, v, ve);
}

/* Up to n numbers of an array into x; how many. */
static size_t
nums(struct rd *r, const char *v, uint64_t *x, size_t n)
{
	const char *cur = v, *el, *ee;
	size_t i = 0;

	if (v == NULL || *v != '[') {
		r->bad = 1;
		return 0;
	}
	while (tp_json_element(&cur, r->e, &el, &ee) == 1) {
		if (i < n)
			x[i] = *el == 'n' ? 0 : num(r, el, ee);
		i++;
	}
	return i;
}

/* A hex string's bytes into buf (cap): the length, or SIZE_MAX. */
static size_t
unhex(const char *v, const char *ve, unsigned char *buf, size_t cap)
{
	size_t n = (size_t)(ve - v), i;

	if (n < 2 || *v != '"' || n % 2 != 0 || (n - 2) / 2 > cap)
		return SIZE_MAX;
	for (i = 0; i < (n - 2) / 2; i++) {
		int h = tp_hexval(v[1 + 2 * i]), l = tp_hexval(v[2 + 2 * i]);
		if (h < 0 || l < 0)
			return SIZE_MAX;
		buf[i] = (unsigned char)(h << 4 | l);
	}
	return i;
}

static void
load_group(struct rd *r, struct dgroup *d, const char **el, const char **ee)
{
	uint64_t x[5];
	const char *cur, *v, *ve;
	size_t i;

	for (i = 0; i < 5; i++)
		x[i] = num(r, el[i], ee[i]);
	d->count = x[0];
	d->untimed = x[1];
	d->total = x[2];
	d->min = x[3];
	d->max = x[4];
	if (el[5] == NULL || el[6] == NULL) {
		r->bad = 1;
		return;
	}
	if (*el[5] == '{') {
		uint64_t pr[2];
		const char *h = member(el[5], r->e, "hist", &ve);
		if (h == NULL || *h != '[' ||
		    (d->hist = calloc(TS_HIST, sizeof *d->hist)) == NULL) {
			r->bad = 1;
			return;
		}
		cur = h;
		i = 0;
		while (tp_json_element(&cur, r->e, &v, &ve) == 1) {
			pr[i % 2] = num(r, v, ve);
			if (i++ % 2 == 1 && pr[0] < TS_HIST)
				d->hist[pr[0]] = pr[1];
		}
	} else {
		cur = el[5];
		while (tp_json_element(&cur, r->e, &v, &ve) == 1) {
			if (tp_grow(&d->v, &d->cap, d->nv + 1, sizeof *d->v) < 0) {
				r->bad = 1;
				return;
			}
			d->v[d->nv++] = num(r, v, ve);
		}
		if (d->nv != d->count)
			r->bad = 1;
	}
	cur = el[6];
	while (tp_json_element(&cur, r->e, &v, &ve) == 1) {
		uint64_t l[5];
		struct longest t;
		if (nums(r, v, l, 5) != 5)
			r->bad = 1;
		t.ns = l[0];
		t.start = l[1];
		t.input = l[2];
		t.has_tid = l[3] != 0;
		t.tid = l[4];
		ts_longest_add(d, &t);
	}
}

static void
load_table(struct rd *r, struct ts_stat *s, const char *state,
    const char *name, struct table *t)
{
	const char *ve, *obj = member(state, r->e, name, &ve), *keys, *cur;
	const char *el[9], *ee[9], *v;
	unsigned char *buf;
	int added;

	if (obj == NULL || (keys = member(obj, r->e, "keys", &ve)) == NULL ||
	    *keys != '[') {
		r->bad = 1;
		return;
	}
	cur = keys;
	while (!r->bad && !s->oom && tp_json_element(&cur, r->e, &v, &ve) == 1) {
		const char *c2 = v;
		size_t n = 0;
		int64_t id;
		if (*v != '[') {
			r->bad = 1;
			break;
		}
		memset(el, 0, sizeof el);
		while (n < 9 && tp_json_element(&c2, r->e, &el[n], &ee[n]) == 1)
			n++;
		if (t->str) {
			size_t len = SIZE_MAX, need = el[0] ?
			    (size_t)(ee[0] - el[0]) / 2 : 0;
			if (el[0] != NULL && need <= TP_LINE_MAX &&
			    (buf = (unsigned char *)ts_scratch(s, need)) != NULL)
				len = unhex(el[0], ee[0], buf, TP_LINE_MAX);
			if (s->oom)
				break;
			if (len == SIZE_MAX || n < 2) {
				r->bad = 1;
				break;
			}
			id = ts_tab_put_str(s, t, (char *)buf, len,
			    num(r, el[1], ee[1]), &added);
			el[0] = el[1];	/* the rest from el[2] as for numbers */
		} else {
			if (n < 3) {
				r->bad = 1;
				break;
			}
			id = ts_tab_put(s, t, num(r, el[0], ee[0]),
			    num(r, el[1], ee[1]), &added, num(r, el[2], ee[2]));
		}
		if (id < 0)
			continue;
		{
			/* the figures after the key and count */
			const char **x = t->str ? el + 2 : el + 3;
			const char **xe = t->str ? ee + 2 : ee + 3;
			if (t == &s->data) {
				struct dstat *d = &s->dst[id];
				d->reads = num(r, x[0], xe[0]);
				d->writes = num(r, x[1], xe[1]);
				d->tid = num(r, x[2], xe[2]);
				d->wtid = num(r, x[3], xe[3]);
				d->flags = (unsigned char)num(r, x[4], xe[4]);
			} else if (t == &s->locks) {
				struct lstat *l = &s->lst[id];
				l->has_rec = num(r, x[0], xe[0]) != 0;
				l->max_rec = num(r, x[1], xe[1]);
				l->has_ns = num(r, x[2], xe[2]) != 0;
				l->max_ns = num(r, x[3], xe[3]);
			} else if (t == &s->groups) {
				load_group(r, &s->dg[id], x, xe);
			}
		}
	}
	if ((v = member(obj, r->e, "full", &ve)) != NULL && *v == 't' &&
	    !t->full)
		ts_tab_full(t);
	if ((v = member(obj, r->e, "hll", &ve)) != NULL) {
		unsigned char reg[sizeof t->est.reg];
		size_t i;
		if (unhex(v, ve, reg, sizeof reg) != sizeof reg) {
			r->bad = 1;
			return;
		}
		for (i = 0; i < sizeof reg; i++)
			if (reg[i] > t->est.reg[i])
				t->est.reg[i] = reg[i];
	}
}

/* A slice of "ends" or "open". */
static int
load_slice(struct rd *r, const char *v, struct oslice *c)
{
	uint64_t x[9];
	const char *cur = v, *el, *ee;
	size_t n = 0;

	if (v == NULL || *v != '[')
		return -1;
	while (tp_json_element(&cur, r->e, &el, &ee) == 1) {
		if (n < 8)
			x[n] = num(r, el, ee);
		else if (n == 8)
			c->group = snum(r, el, ee);
		n++;
	}
	if (n != 9)
		return -1;
	c->input = x[0];
	c->has_tid = x[1] != 0;
	c->tid = x[2];
	c->type = (unsigned char)x[3];
	c->key = x[4];
	c->has_ts = x[5] != 0;
	c->ts = x[6];
	c->rec = x[7];
	return 0;
}

static void
load_state(struct rd *r, struct ts_stat *s, const char *st)
{
	uint64_t x[TK_NKINDS + 5];
	const char *v, *ve, *cur, *el, *ee;
	size_t i;

	if (mnum(r, st, "v") != 1) {
		r->bad = 1;
		return;
	}
	s->records = mnum(r, st, "records");
	s->reads = mnum(r, st, "reads");
	s->writes = mnum(r, st, "writes");
	s->acquisitions = mnum(r, st, "acquisitions");
	s->no_by = mnum(r, st, "no_by");
	if (nums(r, member(st, r->e, "kind", &ve), x, TK_NKINDS) != TK_NKINDS)
		r->bad = 1;
	for (i = 0; i < TK_NKINDS; i++)
		s->shared_kind[i] = x[i];
	if ((v = member(st, r->e, "ts", &ve)) != NULL && *v == '[') {
		if (nums(r, v, x, 5) != 5)
			r->bad = 1;
		s->has_ts = 1;
		s->ts_first = x[0];
		s->ts_last = x[1];
		s->ts_min = x[2];
		s->ts_max = x[3];
		s->ts_records = x[4];
	}
	if ((v = member(st, r->e, "seq", &ve)) != NULL && *v == '[') {
		if (nums(r, v, x, 2) != 2)
			r->bad = 1;
		s->has_seq = 1;
		s->seq_min = x[0];
		s->seq_max = x[1];
	}
	load_table(r, s, st, "kinds", &s->kinds);
	load_table(r, s, st, "threads", &s->threads);
	load_table(r, s, st, "names", &s->names);
	load_table(r, s, st, "data", &s->data);
	load_table(r, s, st, "code", &s->code);
	load_table(r, s, st, "locks", &s->locks);
	load_table(r, s, st, "lockthr", &s->lockthr);
	load_table(r, s, st, "forks", &s->forks);
	load_table(r, s, st, "joins", &s->joins);
	load_table(r, s, st, "by", &s->by);
	load_table(r, s, st, "groups", &s->groups);
	if (r->bad || s->oom)
		return;
	/* The ends first: with no slice open yet, each is kept as it was. */
	cur = member(st, r->e, "ends", &ve);
	while (cur != NULL && !r->bad && tp_json_element(&cur, r->e, &el, &ee) == 1) {
		struct oslice c;
		if (load_slice(r, el, &c) < 0 || ts_dur_close(s, &c) < 0)
			r->bad = 1;
	}
	cur = member(st, r->e, "open", &ve);
	while (cur != NULL && !r->bad && tp_json_element(&cur, r->e, &el, &ee) == 1) {
		struct oslice c;
		if (load_slice(r, el, &c) < 0) {
			r->bad = 1;
			break;
		}
		/* A kind past this --max-keys: the slice is of no kind kept. */
		if (c.group >= (int64_t)s->groups.map.count)
			c.group = s->groups.full ? -1 : (r->bad = 1, -1);
		if (!r->bad && ts_dur_push(s, &c) < 0)
			r->bad = 1;
	}
	s->unpaired = mnum(r, st, "unpaired");
	if ((v = member(st, r->e, "partial", &ve)) != NULL && *v == 't')
		s->pair_cut = 1;
}

struct ts_stat *
ts_load_json(const struct ts_opts *o, const char *p, size_t n,
    struct tp_err *err)
{
	const char *e = p + n, *line = p, *q, *st, *ve;
	struct tp_json j;
	struct rd r;
	struct ts_stat *s;

	/* The last object: the total after the files' own. */
	while (e > p && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' '))
		e--;
	for (q = p; q < e; q++)
		if (*q == '\n')
			line = q + 1;
	if (line >= e || tp_json_check(&j, line, (size_t)(e - line), 0) < 0)
		return tp_fail(err, TP_EXIT_DATA, "not a JSON report of "
		    "txtstat --json"), NULL;
	line = tp_json_ws(line, e);
	if ((st = member(line, e, "state", &ve)) == NULL || *st != '{') {
		tp_fail(err, TP_EXIT_DATA, "no \"state\" in this JSON: not "
		    "written by txtstat --json of this version");
		return NULL;
	}
	if ((s = ts_new(o)) == NULL) {
		tp_fail(err, TP_EXIT_FAIL, "out of memory");
		return NULL;
	}
	r.e = e;
	r.bad = 0;
	load_state(&r, s, st);
	if (r.bad || s->oom) {
		tp_fail(err, s->oom ? TP_EXIT_FAIL : TP_EXIT_DATA, s->oom ?
		    "out of memory" :
		    "a \"state\" that txtstat --json did not write");
		ts_free(s);
		return NULL;
	}
	return s;
}
