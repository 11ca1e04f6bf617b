/*
 * txtstat's durations: slices paired by txt2chrome's rule (tools/pair.h)
 * on a stack per thread, measured when they close, per kind of slice.
 * What cannot be paired inside one text (a slice still open at its end,
 * an end whose begin came before it) is kept, so that the summaries of
 * the pieces of a text merge into the summary of the whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hash.h"
#include "text/json.h"
#include "tools/pair.h"
#include "tools/stat-int.h"

/* Threads: tid and input, or for records without a tid their name. */
static int64_t
thread_id(struct ts_stat *s, const struct oslice *o, int add)
{
	uint64_t b = o->input << 1 | o->has_tid;
	int added = 0;
	int64_t id;

	if (!add)
		return idmap_get(&s->thr, o->tid, b);
	if ((id = idmap_put(&s->thr, o->tid, b, &added)) < 0)
		return -1;
	if ((size_t)id >= s->stkcap) {
		size_t old = s->stkcap;
		if (tp_grow(&s->stk, &s->stkcap, (size_t)id + 1,
		    sizeof *s->stk) < 0)
			return -1;
		memset(s->stk + old, 0, (s->stkcap - old) * sizeof *s->stk);
	}
	return id;
}

int
ts_dur_push(struct ts_stat *s, const struct oslice *o)
{
	struct stack *st;
	int64_t id;

	if (s->nopen >= TS_PAIR_KEEP) {
		s->pair_cut = 1;
		return 0;
	}
	if ((id = thread_id(s, o, 1)) < 0)
		return -1;
	st = &s->stk[id];
	if (tp_grow(&st->s, &st->cap, st->n + 1, sizeof *st->s) < 0)
		return -1;
	st->s[st->n++] = *o;
	s->nopen++;
	return 0;
}

static int
long_cmp(const struct longest *a, const struct longest *b)
{
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->input != b->input)
		return a->input < b->input ? -1 : 1;
	if (a->has_tid != b->has_tid)
		return a->has_tid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/*
 * The longest few, by a total order, so that they do not depend on the
 * order the slices came in (a merge adds them in another).
 */
void
ts_longest_add(struct dgroup *d, const struct longest *l)
{
	unsigned k = d->ntop;

	if (k == TS_LONGEST && long_cmp(l, &d->top[k - 1]) >= 0)
		return;
	if (k < TS_LONGEST)
		d->ntop++;
	else
		k--;
	while (k > 0 && long_cmp(l, &d->top[k - 1]) < 0) {
		d->top[k] = d->top[k - 1];
		k--;
	}
	d->top[k] = *l;
}

static size_t
ts_hist_index(uint64_t v)
{
	unsigned e;

	if (v < TS_HIST_SUB)
		return (size_t)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	return (size_t)(e - 5) * TS_HIST_SUB + (size_t)((v >> (e - 6)) & 63);
}

static uint64_t
ts_hist_mid(size_t i)
{
	unsigned e;
	uint64_t lo, w;

	if (i < TS_HIST_SUB)
		return i;
	e = (unsigned)(i / TS_HIST_SUB) + 5;
	lo = (uint64_t)(TS_HIST_SUB + i % TS_HIST_SUB) << (e - 6);
	w = (uint64_t)1 << (e - 6);
	return lo + w / 2;
}

/* Past TS_DUR_EXACT durations: the exact ones into buckets. */
static int
to_hist(struct dgroup *d)
{
	size_t i;

	if (d->hist != NULL)
		return 0;
	if ((d->hist = calloc(TS_HIST, sizeof *d->hist)) == NULL)
		return -1;
	for (i = 0; i < d->nv; i++)
		d->hist[ts_hist_index(d->v[i])]++;
	free(d->v);
	d->v = NULL;
	d->nv = d->cap = 0;
	return 0;
}

static int
add_value(struct dgroup *d, uint64_t ns)
{
	if (d->hist == NULL && d->count <= TS_DUR_EXACT)
		return tp_grow(&d->v, &d->cap, d->nv + 1, sizeof *d->v) < 0 ?
		    -1 : (d->v[d->nv++] = ns, 0);
	if (to_hist(d) < 0)
		return -1;
	d->hist[ts_hist_index(ns)]++;
	return 0;
}

static int
ts_dur_add(struct ts_stat *s, int64_t g, uint64_t ns, uint64_t start,
    const struct oslice *who)
{
	struct dgroup *d = &s->dg[g];
	struct longest l;

	if (d->count == 0 || ns < d->min)
		d->min = ns;
	if (d->count == 0 || ns > d->max)
		d->max = ns;
	d->count++;
	d->total += ns;
	l.ns = ns;
	l.start = start;
	l.input = who->input;
	l.tid = who->tid;
	l.has_tid = who->has_tid;
	ts_longest_add(d, &l);
	return add_value(d, ns);
}

static int
match(const struct oslice *o, const struct oslice *c)
{
	return o->type == c->type && (c->type == TP_SL_SCOPE ||
	    o->key == c->key);
}

/* A slice closes: its duration, and a lock's longest hold. */
static int
closed(struct ts_stat *s, const struct oslice *o, const struct oslice *c)
{
	int64_t id;

	if (o->type == TP_SL_LOCK &&
	    (id = idmap_get(&s->locks.map, o->key, 0)) >= 0) {
		struct lstat *l = &s->lst[id];
		uint64_t n = c->rec - o->rec;
		if (!l->has_rec || n > l->max_rec)
			l->max_rec = n;
		l->has_rec = 1;
		if (o->has_ts && c->has_ts) {
			n = c->ts > o->ts ? c->ts - o->ts : 0;
			if (!l->has_ns || n > l->max_ns)
				l->max_ns = n;
			l->has_ns = 1;
		}
	}
	if (o->group < 0)
		return 0;
	if (!o->has_ts || !c->has_ts) {
		s->dg[o->group].untimed++;
		return 0;
	}
	/* A clock that goes back ends the slice where it began. */
	return ts_dur_add(s, o->group, c->ts > o->ts ? c->ts - o->ts : 0,
	    o->ts, o);
}

int
ts_dur_close(struct ts_stat *s, const struct oslice *c)
{
	int64_t id = thread_id(s, c, 0);
	struct stack *st;
	size_t k;

	if (id >= 0) {
		st = &s->stk[id];
		for (k = st->n; k-- > 0;)
			if (match(&st->s[k], c)) {
				struct oslice o = st->s[k];
				memmove(&st->s[k], &st->s[k + 1],
				    (st->n - k - 1) * sizeof *st->s);
				st->n--;
				s->nopen--;
				return closed(s, &o, c);
			}
	}
	s->unpaired++;
	if (s->num >= TS_PAIR_KEEP) {
		s->pair_cut = 1;
		return 0;
	}
	if (tp_grow(&s->um, &s->umcap, s->num + 1, sizeof *s->um) < 0)
		return -1;
	s->um[s->num++] = *c;
	return 0;
}

/* The cached pairing of an event name, or NULL to work it out anew. */
static struct ncache *
name_cache(struct ts_stat *s, int64_t nameid, const char *name,
    size_t namelen, const uint64_t *scope, const char *argname)
{
	struct ncache *c;
	char buf[TP_PAIR_NAME];
	struct tp_pair_what w;

	/* wtf.scope#enter is named by its argument, which varies. */
	if (nameid < 0 || (scope != NULL && argname != NULL))
		return NULL;
	if ((size_t)nameid >= s->nccap) {
		size_t old = s->nccap;
		if (tp_grow(&s->nc, &s->nccap, (size_t)nameid + 1,
		    sizeof *s->nc) < 0)
			return NULL;
		memset(s->nc + old, 0, (s->nccap - old) * sizeof *s->nc);
	}
	c = &s->nc[nameid][scope != NULL];
	if (c->set)
		return c;
	tp_pair_what(TK_EVENT, name, namelen, scope, NULL, 0, NULL, buf, &w);
	c->act = (signed char)w.act;
	c->type = (unsigned char)w.type;
	c->key = w.key;
	c->group = -1;
	if (w.act == 1) {
		int64_t g = ts_tab_put_str(s, &s->groups, w.name, w.namelen, 0,
		    NULL);
		if (g > INT32_MAX)
			return NULL;
		c->group = (int32_t)g;
	}
	c->set = 1;
	return c;
}

int
ts_dur_record(struct ts_stat *s, int kind, int64_t nameid, const char *name,
    size_t namelen, const uint64_t *scope, const char *argname, size_t arglen,
    const uint64_t *lock, const uint64_t *input, const uint64_t *tid,
    const uint64_t *ts)
{
	char buf[TP_PAIR_NAME];
	struct tp_pair_what w;
	struct oslice o;
	struct ncache *c = NULL;

	if (kind == TK_EVENT)
		c = name_cache(s, nameid, name, namelen, scope, argname);
	if (c != NULL) {
		if (c->act < 0)
			return 0;
		w.act = c->act;
		w.type = c->type;
		w.key = c->type == TP_SL_SCOPE && scope ? *scope : c->key;
	} else if (tp_pair_what(kind, name, namelen, scope, argname, arglen,
	    lock, buf, &w) < 0) {
		return 0;
	}
	memset(&o, 0, sizeof o);
	o.input = input ? *input : 0;
	o.has_tid = tid != NULL;
	o.tid = tid ? *tid : 0;
	if (tid == NULL) {
		/*
		 * txt2chrome's track of records without a thread: one per
		 * input and record name, so that nothing pairs on it.
		 */
		static const char *const kname[TK_NKINDS] = {
			[TK_ACQUIRE] = "acquire", [TK_RELEASE] = "release",
			[TK_BEGIN] = "begin", [TK_END] = "end"
		};
		const char *n = kind == TK_EVENT ? (name ? name : "event") :
		    kname[kind];
		uint64_t h2;
		tp_hash_bytes(n, kind == TK_EVENT && name ? namelen : strlen(n),
		    &o.tid, &h2);
	}
	o.has_ts = ts != NULL;
	o.ts = ts ? *ts : 0;
	o.rec = s->records;
	o.type = (unsigned char)w.type;
	o.key = w.key;
	o.group = -1;
	if (w.act == 0)
		return ts_dur_close(s, &o);
	o.group = c != NULL ? c->group :
	    ts_tab_put_str(s, &s->groups, w.name, w.namelen, 0, NULL);
	return s->oom ? -1 : ts_dur_push(s, &o);
}

int
ts_dur_merge(struct ts_stat *s, int64_t g, const struct dgroup *src)
{
	struct dgroup *d = &s->dg[g];
	size_t i;

	if (src->count > 0) {
		if (d->count == 0 || src->min < d->min)
			d->min = src->min;
		if (d->count == 0 || src->max > d->max)
			d->max = src->max;
	}
	d->count += src->count;
	d->total += src->total;
	d->untimed += src->untimed;
	for (i = 0; i < src->ntop; i++)
		ts_longest_add(d, &src->top[i]);
	if (d->hist == NULL && src->hist == NULL && d->count <= TS_DUR_EXACT) {
		if (src->nv > 0 && tp_grow(&d->v, &d->cap, d->nv + src->nv,
		    sizeof *d->v) < 0)
			return -1;
		if (src->nv > 0)
			memcpy(d->v + d->nv, src->v, src->nv * sizeof *d->v);
		d->nv += src->nv;
		return 0;
	}
	if (to_hist(d) < 0)
		return -1;
	for (i = 0; i < src->nv; i++)
		d->hist[ts_hist_index(src->v[i])]++;
	for (i = 0; src->hist != NULL && i < TS_HIST; i++)
		d->hist[i] += src->hist[i];
	return 0;
}

static int
u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with p % of them at or below it. */
static uint64_t
ts_dur_pct(const struct dgroup *d, unsigned p)
{
	uint64_t rank = (d->count * p + 99) / 100, seen = 0, v;
	size_t i;

	if (rank == 0)
		rank = 1;
	if (d->hist == NULL)
		return d->v[rank - 1];	/* sorted by ts_dur_text/json */
	for (i = 0; i < TS_HIST; i++)
		if ((seen += d->hist[i]) >= rank)
			break;
	v = ts_hist_mid(i < TS_HIST ? i : TS_HIST - 1);
	return v < d->min ? d->min : v > d->max ? d->max : v;
}

static const struct dgroup *sort_dg;

static int
by_total(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct dgroup *p = &sort_dg[x], *q = &sort_dg[y];

	if (p->total != q->total)
		return p->total > q->total ? -1 : 1;
	if (p->count + p->untimed != q->count + q->untimed)
		return p->count + p->untimed > q->count + q->untimed ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The groups with a slice, by total time; their exact values sorted. */
static size_t
groups(struct ts_stat *s, size_t **out)
{
	size_t i, n = 0, *ids;

	*out = NULL;
	if (s->groups.map.count == 0 ||
	    (ids = malloc(s->groups.map.count * sizeof *ids)) == NULL)
		return 0;
	for (i = 0; i < s->groups.map.count; i++) {
		struct dgroup *d = &s->dg[i];
		if (d->count + d->untimed == 0)
			continue;
		if (d->hist == NULL && d->nv > 1)
			qsort(d->v, d->nv, sizeof *d->v, u64_cmp);
		ids[n++] = i;
	}
	sort_dg = s->dg;
	qsort(ids, n, sizeof *ids, by_total);
	*out = ids;
	return n;
}

static size_t
rows(const struct ts_stat *s, size_t n)
{
	return s->o.top == 0 || s->o.top > n ? n : s->o.top;
}

static const unsigned pct[3] = { 50, 90, 99 };

void
ts_dur_text(struct ts_stat *s, struct tp_out *o)
{
	size_t *ids, n = groups(s, &ids), i, shown = rows(s, n);
	unsigned k;

	if (n == 0 && s->unpaired == 0 && s->nopen == 0)
		return;
	if (s->groups.full)	/* kinds past --max-keys: their number */
		ts_put(o, "slices              ~%llu kinds (paired as by "
		    "txt2chrome)\n", (unsigned long long)ts_tab_distinct(&s->groups));
	else
		ts_put(o, "slices              %zu kinds (paired as by "
		    "txt2chrome)\n", n);
	for (i = 0; ids && i < n && s->dg[ids[i]].count == 0; i++)
		;
	if (i < n)	/* a kind with a time */
		ts_put(o, "  durations (ns)   count         total       min       "
		    "p50       p90       p99       max\n");
	for (i = 0; ids && i < shown; i++) {
		const struct dgroup *d = &s->dg[ids[i]];
		const char *p;
		size_t len;
		ts_key_text(s, &s->groups, ids[i], &p, &len);
		ts_put(o, "  ");
		tv_str(o, p, len);
		tp_out_putc(o, '\n');
		if (d->count > 0) {
			ts_put(o, "    %16llu %13llu %9llu",
			    (unsigned long long)d->count,
			    (unsigned long long)d->total,
			    (unsigned long long)d->min);
			for (k = 0; k < 3; k++) {
				char v[32];
				snprintf(v, sizeof v, "%s%llu", d->hist ? "~" : "",
				    (unsigned long long)ts_dur_pct(d, pct[k]));
				ts_put(o, " %9s", v);
			}
			ts_put(o, " %9llu\n", (unsigned long long)d->max);
		}
		if (d->untimed > 0)
			ts_put(o, "    %llu without a time\n",
			    (unsigned long long)d->untimed);
		for (k = 0; k < d->ntop; k++) {
			const struct longest *l = &d->top[k];
			ts_put(o, "    longest %llu ns at %llu", (unsigned long long)
			    l->ns, (unsigned long long)l->start);
			if (l->has_tid)
				ts_put(o, " tid %llu", (unsigned long long)l->tid);
			if (l->input)
				ts_put(o, " input %llu",
				    (unsigned long long)l->input);
			tp_out_putc(o, '\n');
		}
	}
	if (shown < n)
		ts_put(o, "  (%zu more)\n", n - shown);
	if (s->unpaired > 0)
		ts_put(o, "  ends without a begin %llu\n",
		    (unsigned long long)s->unpaired);
	if (s->nopen > 0 || s->pair_cut)
		ts_put(o, "  open at the end     %s%llu\n", s->pair_cut ? ">" : "",
		    (unsigned long long)s->nopen);
	for (i = 0; ids && i < n; i++)
		if (s->dg[ids[i]].hist != NULL) {
			ts_put(o, "  (~: from buckets of 1/64 of a power of two, "
			    "within 0.8 %%: more than %u slices)\n", TS_DUR_EXACT);
			break;
		}
	free(ids);
}

void
ts_dur_json(struct ts_stat *s, struct tp_out *o)
{
	size_t *ids, n = groups(s, &ids), i, shown = rows(s, n);
	unsigned k;

	ts_put(o, "{\"rule\":\"txt2chrome\",\"kinds\":%zu,\"ends_without_begin\""
	    ":%llu,\"open_at_end\":%llu,\"partial\":%s,\"slices\":[", n,
	    (unsigned long long)s->unpaired, (unsigned long long)s->nopen,
	    s->pair_cut ? "true" : "false");
	for (i = 0; ids && i < shown; i++) {
		const struct dgroup *d = &s->dg[ids[i]];
		const char *p;
		size_t len;
		ts_key_text(s, &s->groups, ids[i], &p, &len);
		ts_put(o, "%s{\"slice\":", i ? "," : "");
		tp_json_put_str(o, p, len);
		ts_put(o, ",\"count\":%llu,\"untimed\":%llu,\"total_ns\":%llu",
		    (unsigned long long)d->count,
		    (unsigned long long)d->untimed,
		    (unsigned long long)d->total);
		if (d->count > 0) {
			ts_put(o, ",\"min_ns\":%llu", (unsigned long long)d->min);
			for (k = 0; k < 3; k++)
				ts_put(o, ",\"p%u_ns\":%llu", pct[k],
				    (unsigned long long)ts_dur_pct(d, pct[k]));
			ts_put(o, ",\"max_ns\":%llu", (unsigned long long)d->max);
		}
		ts_put(o, ",\"estimated\":%s,\"longest\":[",
		    d->hist ? "true" : "false");
		for (k = 0; k < d->ntop; k++) {
			const struct longest *l = &d->top[k];
			ts_put(o, "%s{\"ns\":%llu,\"ts\":%llu,\"tid\":", k ? "," : "",
			    (unsigned long long)l->ns,
			    (unsigned long long)l->start);
			if (l->has_tid)
				ts_put(o, "%llu", (unsigned long long)l->tid);
			else
				ts_put(o, "null");
			ts_put(o, ",\"input\":%llu}", (unsigned long long)l->input);
		}
		ts_put(o, "]}");
	}
	ts_put(o, "]}");
	free(ids);
}
