/*
 * txtstat's counting: each table is an idmap (dense ids for keys) with
 * arrays indexed by id, a bound on the keys kept and a HyperLogLog that
 * sees every key, so that the distinct count stays right (as an
 * estimate) past the bound.  Strings (kinds, names, --by values) are
 * keyed by a 128-bit hash and stored once in an arena.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "base/distinct.h"
#include "base/grow.h"
#include "base/hash.h"
#include "base/idmap.h"
#include "io/input.h"
#include "text/json.h"
#include "tools/stat.h"

struct table {
	struct idmap map;
	struct tp_distinct est;
	size_t max;		/* keys kept at most */
	int full;		/* a key was not kept */
	size_t cap;		/* ids the arrays below can hold */
	uint64_t *count;	/* records per id */
	size_t *soff;		/* string tables: each key's text in the arena */
	uint32_t *slen;
};

/* Per data address. */
enum { D_SHARED = 1, D_WRITTEN = 2, D_MULTIWRITER = 4 };
struct dstat {
	uint64_t reads, writes;
	uint64_t tid, wtid;	/* first thread that touched it, wrote it */
	unsigned char flags;
};

/* Per lock. */
struct lstat {
	uint64_t holder;
	uint64_t start_rec, start_ts;
	uint64_t max_rec, max_ns;
	uint32_t depth, nthreads;
	unsigned char start_has_ts, has_ns;
};

struct ts_stat {
	struct ts_opts o;
	uint64_t records, lines;
	uint64_t shared_kind[TK_NKINDS];
	struct table kinds;	/* the other kinds, by name */
	struct table threads, names, data, code, locks, lockthr, forks, joins;
	struct table by;
	uint64_t no_by;		/* records without the --by field */
	struct dstat *dst;
	struct lstat *lst;
	uint64_t reads, writes, acquisitions;
	int has_ts, has_seq;
	uint64_t ts_first, ts_last, ts_min, ts_max, ts_records;
	uint64_t seq_min, seq_max;
	char *arena;
	size_t arenalen, arenacap;
	char *scratch;		/* a quoted value unquoted (a whole line) */
	int oom;
};

/* ------------------------------------------------------------- tables */

static void
tab_init(struct table *t, size_t max)
{
	memset(t, 0, sizeof *t);
	idmap_init(&t->map);
	tp_distinct_init(&t->est);
	t->max = max;
}

static void
tab_free(struct table *t)
{
	idmap_free(&t->map);
	free(t->count);
	free(t->soff);
	free(t->slen);
}

/* One column of a table grown to cap entries, the new ones zeroed. */
static int
grow(void *pp, size_t elem, size_t old, size_t cap)
{
	size_t have = old;
	char *n;

	if (tp_grow(pp, &have, cap, elem) < 0)
		return -1;
	memcpy(&n, pp, sizeof n);
	memset(n + old * elem, 0, (have - old) * elem);
	return 0;
}

/*
 * The id of key (a, b), added when new and there is room (*added set);
 * -1 when it is not kept.  Every key reaches the estimate.
 */
static int64_t
tab_put(struct ts_stat *s, struct table *t, uint64_t a, uint64_t b,
    int *added, uint64_t inc)
{
	int64_t id;
	int add = 0;

	tp_distinct_add(&t->est, tp_hash64(a, b));
	if (t->map.count >= t->max) {
		if ((id = idmap_get(&t->map, a, b)) < 0)
			t->full = 1;
	} else if ((id = idmap_put(&t->map, a, b, &add)) < 0) {
		s->oom = 1;
	}
	if (add && (size_t)id >= t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		if (grow(&t->count, sizeof *t->count, t->cap, cap) < 0 ||
		    (t == &s->data && grow(&s->dst, sizeof *s->dst, t->cap, cap) < 0) ||
		    (t == &s->locks && grow(&s->lst, sizeof *s->lst, t->cap, cap) < 0) ||
		    grow(&t->soff, sizeof *t->soff, t->cap, cap) < 0 ||
		    grow(&t->slen, sizeof *t->slen, t->cap, cap) < 0) {
			s->oom = 1;
			return -1;
		}
		t->cap = cap;
	}
	if (added != NULL)
		*added = add;
	if (id >= 0)
		t->count[id] += inc;
	return id;
}

/* A string key: its text is kept in the arena when new. */
static int64_t
tab_put_str(struct ts_stat *s, struct table *t, const char *p, size_t n)
{
	uint64_t h1, h2;
	int added;
	int64_t id;

	tp_hash_bytes(p, n, &h1, &h2);
	if ((id = tab_put(s, t, h1, h2, &added, 1)) < 0 || !added)
		return id;
	if (tp_grow(&s->arena, &s->arenacap, s->arenalen + n, 1) < 0) {
		s->oom = 1;
		return -1;
	}
	memcpy(s->arena + s->arenalen, p, n);
	t->soff[id] = s->arenalen;
	t->slen[id] = (uint32_t)n;
	s->arenalen += n;
	return id;
}

static uint64_t
tab_distinct(const struct table *t)
{
	return t->full ? tp_distinct_estimate(&t->est) : t->map.count;
}

/* ------------------------------------------------------------- records */

struct ts_stat *
ts_new(const struct ts_opts *o)
{
	struct ts_stat *s = calloc(1, sizeof *s);
	struct table *t[] = { &s->kinds, &s->threads, &s->names, &s->data,
	    &s->code, &s->locks, &s->lockthr, &s->forks, &s->joins, &s->by };
	size_t i;

	if (s == NULL)
		return NULL;
	s->o = *o;
	if (s->o.max_keys == 0)
		s->o.max_keys = TS_MAX_KEYS_DEFAULT;
	for (i = 0; i < sizeof t / sizeof t[0]; i++)
		tab_init(t[i], s->o.max_keys);
	/* Untouched pages cost no memory: only what values use. */
	if ((s->scratch = malloc(TP_LINE_MAX)) == NULL) {
		free(s);
		return NULL;
	}
	return s;
}

void
ts_free(struct ts_stat *s)
{
	struct table *t[] = { &s->kinds, &s->threads, &s->names, &s->data,
	    &s->code, &s->locks, &s->lockthr, &s->forks, &s->joins, &s->by };
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < sizeof t / sizeof t[0]; i++)
		tab_free(t[i]);
	free(s->dst);
	free(s->lst);
	free(s->arena);
	free(s->scratch);
	free(s);
}

/* The fields a summary reads, by key. */
enum { K_TID, K_TS, K_SEQ, K_PC, K_ADDR, K_VAR, K_LOC, K_LOCK, K_CHILD,
	K_NAME, K_N };
static const char *const fname[K_N] = {
	"tid", "ts", "seq", "pc", "addr", "var", "loc", "lock", "child", "name"
};

/* Which of the fields above f is, or -1: by length and first letter. */
static int
field_id(const struct tr_field *f)
{
	const char *k = f->key;
	int i;

	switch (f->keylen) {
	case 2: i = k[0] == 't' ? K_TS : k[0] == 'p' ? K_PC : -1; break;
	case 3: i = k[0] == 't' ? K_TID : k[0] == 's' ? K_SEQ :
	    k[0] == 'v' ? K_VAR : k[0] == 'l' ? K_LOC : -1; break;
	case 4: i = k[0] == 'a' ? K_ADDR : k[0] == 'l' ? K_LOCK :
	    k[0] == 'n' ? K_NAME : -1; break;
	case 5: i = k[0] == 'c' ? K_CHILD : -1; break;
	default: return -1;
	}
	return i >= 0 && memcmp(k, fname[i], f->keylen) == 0 ? i : -1;
}

static void
lock_event(struct ts_stat *s, int kind, uint64_t lock, int has_tid,
    uint64_t tid, int has_ts, uint64_t ts)
{
	struct lstat *l;
	int added;
	/* The count is of acquisitions. */
	int64_t id = tab_put(s, &s->locks, lock, 0, NULL, kind == TK_ACQUIRE);

	if (id < 0)
		return;
	l = &s->lst[id];
	if (kind == TK_RELEASE) {
		if (l->depth == 0 || !has_tid || l->holder != tid || --l->depth)
			return;
		if (s->records - l->start_rec > l->max_rec)
			l->max_rec = s->records - l->start_rec;
		if (has_ts && l->start_has_ts && ts >= l->start_ts) {
			if (!l->has_ns || ts - l->start_ts > l->max_ns)
				l->max_ns = ts - l->start_ts;
			l->has_ns = 1;
		}
		return;
	}
	s->acquisitions++;
	if (has_tid && tab_put(s, &s->lockthr, lock, tid, &added, 1) >= 0 &&
	    added)
		l->nthreads++;
	if (has_tid && l->depth > 0 && l->holder == tid) {
		l->depth++;	/* re-entrant */
		return;
	}
	l->holder = tid;
	l->depth = has_tid;
	l->start_rec = s->records;
	l->start_ts = ts;
	l->start_has_ts = (unsigned char)has_ts;
}

static void
data_access(struct ts_stat *s, int kind, uint64_t a, uint64_t ns, int has_tid,
    uint64_t tid)
{
	int added;
	int64_t id = tab_put(s, &s->data, a, ns, &added, 1);
	struct dstat *d;

	if (kind == TK_READ)
		s->reads++;
	else
		s->writes++;
	if (id < 0)
		return;
	d = &s->dst[id];
	if (kind == TK_READ)
		d->reads++;
	else
		d->writes++;
	if (!has_tid)
		return;
	if (added)
		d->tid = tid;
	else if (d->tid != tid)
		d->flags |= D_SHARED;
	if (kind == TK_WRITE) {
		if (!(d->flags & D_WRITTEN)) {
			d->flags |= D_WRITTEN;
			d->wtid = tid;
		} else if (d->wtid != tid) {
			d->flags |= D_MULTIWRITER;
		}
	}
}

static int
add_record(struct ts_stat *s, struct tr_reader *r, const struct tr_rec *rec)
{
	const struct tr_field *fv[K_N] = { 0 }, *byf = NULL;
	uint64_t v[K_N] = { 0 };
	size_t bylen = s->o.by ? strlen(s->o.by) : 0;
	int kind = tp_kind(rec->kind, rec->kindlen, rec->kindlen), i;
	size_t k;

	s->records++;
	for (k = 0; k < rec->nf; k++) {
		const struct tr_field *f = &rec->f[k];
		if (s->o.by && f->keylen == bylen &&
		    memcmp(f->key, s->o.by, bylen) == 0)
			byf = f;
		if ((i = field_id(f)) >= 0 && !tr_is_null(f))
			fv[i] = f;
	}
	if (s->o.by != NULL) {
		if (strcmp(s->o.by, "kind") == 0)
			tab_put_str(s, &s->by, rec->kind, rec->kindlen);
		else if (byf != NULL && byf->vallen >= 2 && byf->val[0] == '"')
			tab_put_str(s, &s->by, s->scratch,
			    tp_unquote(byf->val, byf->vallen, s->scratch));
		else if (byf != NULL)
			tab_put_str(s, &s->by, byf->val, byf->vallen);
		else
			s->no_by++;
		return s->oom ? -1 : 0;
	}
	if (kind == TK_OTHER) {
		tab_put_str(s, &s->kinds, rec->kind, rec->kindlen);
		return s->oom ? -1 : 0;
	}
	s->shared_kind[kind]++;
	for (i = 0; i < K_NAME; i++)
		if (fv[i] != NULL && tr_u64(r, rec, fv[i], &v[i]) < 0)
			return -1;
	if (fv[K_TID])
		tab_put(s, &s->threads, v[K_TID], 0, NULL, 1);
	/* A thread that a fork or join names is a thread, records or not. */
	if (fv[K_CHILD])
		tab_put(s, &s->threads, v[K_CHILD], 0, NULL, 0);
	if (fv[K_TS]) {
		if (!s->has_ts) {
			s->ts_first = s->ts_min = s->ts_max = v[K_TS];
			s->has_ts = 1;
		}
		s->ts_last = v[K_TS];
		s->ts_records++;
		if (v[K_TS] < s->ts_min)
			s->ts_min = v[K_TS];
		if (v[K_TS] > s->ts_max)
			s->ts_max = v[K_TS];
	}
	if (fv[K_SEQ]) {
		if (!s->has_seq)
			s->seq_min = s->seq_max = v[K_SEQ];
		s->has_seq = 1;
		if (v[K_SEQ] < s->seq_min)
			s->seq_min = v[K_SEQ];
		if (v[K_SEQ] > s->seq_max)
			s->seq_max = v[K_SEQ];
	}
	if (fv[K_NAME]) {
		const struct tr_field *f = fv[K_NAME];
		size_t n = f->vallen;
		const char *p = f->val;
		if (n >= 2 && p[0] == '"') {
			n = tp_unquote(p, n, s->scratch);
			p = s->scratch;
		}
		tab_put_str(s, &s->names, p, n);
	}
	if (fv[K_PC])
		tab_put(s, &s->code, v[K_PC], 0, NULL, 1);
	if (fv[K_LOC])
		tab_put(s, &s->code, v[K_LOC], 1, NULL, 1);
	if ((kind == TK_READ || kind == TK_WRITE) && (fv[K_VAR] || fv[K_ADDR]))
		data_access(s, kind, fv[K_VAR] ? v[K_VAR] : v[K_ADDR],
		    fv[K_VAR] != NULL, fv[K_TID] != NULL, v[K_TID]);
	if ((kind == TK_ACQUIRE || kind == TK_RELEASE) && fv[K_LOCK])
		lock_event(s, kind, v[K_LOCK], fv[K_TID] != NULL, v[K_TID],
		    fv[K_TS] != NULL, v[K_TS]);
	if ((kind == TK_FORK || kind == TK_JOIN) && fv[K_TID] && fv[K_CHILD])
		tab_put(s, kind == TK_FORK ? &s->forks : &s->joins, v[K_TID],
		    v[K_CHILD], NULL, 1);
	return s->oom ? -1 : 0;
}

int
ts_add_input(struct ts_stat *s, struct tr_reader *r)
{
	static struct tr_rec rec;	/* 8 KiB of fields: not on the stack */
	int rc;

	while ((rc = tr_next(r, &rec)) == 1) {
		if (add_record(s, r, &rec) < 0) {
			if (s->oom) {
				r->err->line = rec.lineno;
				return tp_fail(r->err, TP_EXIT_FAIL, "out of memory");
			}
			return -1;
		}
	}
	return rc;
}

/* -------------------------------------------------------------- report */

/* ids of a table, by count (descending), then by id (first seen). */
static const struct table *sort_tab;

static int
by_count(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t cx = sort_tab->count[x], cy = sort_tab->count[y];

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return x < y ? -1 : x > y;
}

static const struct dstat *sort_dst;

static int
by_accesses(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t cx = sort_dst[x].reads + sort_dst[x].writes;
	uint64_t cy = sort_dst[y].reads + sort_dst[y].writes;

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The ids of t, sorted by cmp; NULL when empty or out of memory. */
static size_t *
sorted_ids(const struct table *t, int (*cmp)(const void *, const void *))
{
	size_t i, n = t->map.count, *ids;

	if (n == 0 || (ids = malloc(n * sizeof *ids)) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		ids[i] = i;
	sort_tab = t;
	qsort(ids, n, sizeof *ids, cmp);
	return ids;
}

static size_t
rows(const struct ts_stat *s, size_t n)
{
	return s->o.top == 0 || s->o.top > n ? n : s->o.top;
}

static void
put(struct tp_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
put(struct tp_out *o, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0)
		tp_out_write(o, buf, (size_t)n < sizeof buf ? (size_t)n :
		    sizeof buf - 1);
}

/* A string key as text: bare when it is, quoted as in the text grammar. */
static void
text_str(struct tp_out *o, const char *p, size_t n)
{
	if (tp_bare_ok(p, n))
		tp_out_write(o, p, n);
	else
		tv_qstr(o, p, n);
}

static void
key_text(const struct ts_stat *s, const struct table *t, size_t id,
    const char **p, size_t *n)
{
	*p = s->arena + t->soff[id];
	*n = t->slen[id];
}

static const char *
est(const struct table *t)
{
	return t->full ? "~" : "";
}

/* The kinds, shared ones first, in one list with their counts. */
struct kc {
	const char *name;
	size_t len;
	uint64_t n;
	size_t order;	/* ties: shared kinds first, then first appearance */
};

static int
kc_cmp(const void *a, const void *b)
{
	const struct kc *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static size_t
kind_list(const struct ts_stat *s, struct kc **out)
{
	size_t n = 0, i;
	struct kc *k = malloc((TK_NKINDS + s->kinds.map.count + 1) * sizeof *k);

	*out = k;
	if (k == NULL)
		return 0;
	for (i = 0; i < TK_NKINDS; i++) {
		const struct tp_kind_name *t;
		size_t j;
		if (s->shared_kind[i] == 0)
			continue;
		for (j = 0, t = tp_kind_tab; j < 32; j++, t++)
			if (t->len != 0 && t->kind == (int)i)
				break;
		k[n].name = t->name;
		k[n].len = t->len;
		k[n].order = n;
		k[n++].n = s->shared_kind[i];
	}
	for (i = 0; i < s->kinds.map.count; i++) {
		key_text(s, &s->kinds, i, &k[n].name, &k[n].len);
		k[n].order = n;
		k[n++].n = s->kinds.count[i];
	}
	qsort(k, n, sizeof *k, kc_cmp);
	return n;
}

static uint64_t
count_flag(const struct ts_stat *s, unsigned flag)
{
	size_t i;
	uint64_t n = 0;

	for (i = 0; i < s->data.map.count; i++)
		n += (s->dst[i].flags & flag) != 0;
	return n;
}

/* The threads that took a lock, from the (lock, tid) pairs. */
static int
pair_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

static uint64_t *
pairs(const struct table *t)
{
	size_t i, n = t->map.count;
	uint64_t *p = malloc((n ? n : 1) * 2 * sizeof *p);

	if (p == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		idmap_key(&t->map, i, &p[2 * i], &p[2 * i + 1]);
	qsort(p, n, 2 * sizeof *p, pair_cmp);
	return p;
}

/*
 * What the text and the JSON report both list, made once by ts_report:
 * the kinds by count, the (lock, tid) and (parent, child) pairs sorted
 * (NULL when out of memory).
 */
struct lists {
	struct kc *k;
	size_t nk;
	uint64_t *lp, *fe;
	size_t nlp, nfe;
};

/* The first pair (lock, *) in sorted pairs p of n, or n. */
static size_t
pairs_from(const uint64_t *p, size_t n, uint64_t lock)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p[2 * mid] < lock)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A data address as text: "0x..." or "var N". */
static void
data_key(const struct ts_stat *s, size_t id, char *buf, size_t n)
{
	uint64_t a, ns;
	char hex[24];

	idmap_key(&s->data.map, id, &a, &ns);
	*tp_fmt_hex(hex, a) = '\0';
	if (ns)
		snprintf(buf, n, "var %llu", (unsigned long long)a);
	else
		snprintf(buf, n, "%s", hex);
}

/* Fork edges from a parent, depth first, as an indented tree. */
static void
tree(struct tp_out *o, const struct ts_stat *s, const uint64_t *e, size_t n,
    uint64_t tid, int depth)
{
	size_t i = pairs_from(e, n, tid);

	if (depth > 64) {	/* a cycle, or a very deep tree */
		put(o, "%*s...\n", 2 * depth + 4, "");
		return;
	}
	for (; i < n && e[2 * i] == tid; i++) {
		uint64_t c = e[2 * i + 1];
		put(o, "%*s%llu%s\n", 2 * depth + 4, "", (unsigned long long)c,
		    idmap_get(&s->joins.map, tid, c) >= 0 ? " (joined)" : "");
		if (c != tid)
			tree(o, s, e, n, c, depth + 1);
	}
}

static void
report_by(struct ts_stat *s, struct tp_out *o)
{
	size_t *ids = sorted_ids(&s->by, by_count), i, n = rows(s, s->by.map.count);
	const char *p;
	size_t len;

	if (s->o.json) {
		put(o, "{\"by\":");
		tp_json_put_str(o, s->o.by, strlen(s->o.by));
		put(o, ",\"records\":%llu,\"without\":%llu,\"distinct\":%llu,"
		    "\"estimated\":%s,\"counts\":[", (unsigned long long)s->records,
		    (unsigned long long)s->no_by,
		    (unsigned long long)tab_distinct(&s->by),
		    s->by.full ? "true" : "false");
		for (i = 0; ids && i < n; i++) {
			key_text(s, &s->by, ids[i], &p, &len);
			put(o, "%s{\"value\":", i ? "," : "");
			tp_json_put_str(o, p, len);
			put(o, ",\"records\":%llu}",
			    (unsigned long long)s->by.count[ids[i]]);
		}
		put(o, "]}\n");
	} else {
		for (i = 0; ids && i < n; i++) {
			key_text(s, &s->by, ids[i], &p, &len);
			put(o, "%12llu ", (unsigned long long)s->by.count[ids[i]]);
			text_str(o, p, len);
			tp_out_putc(o, '\n');
		}
		if (s->no_by)
			put(o, "%12llu (no %s)\n", (unsigned long long)s->no_by,
			    s->o.by);
		if (n < s->by.map.count)
			put(o, "(%zu more values)\n", s->by.map.count - n);
		if (s->by.full)
			put(o, "(only the first %zu distinct values were counted; "
			    "about %llu in all)\n", s->o.max_keys,
			    (unsigned long long)tab_distinct(&s->by));
	}
	free(ids);
}

static void
report_text(struct ts_stat *s, const struct lists *li, struct tp_out *o)
{
	size_t i, n, *ids;
	int any_est = 0;

	put(o, "records             %llu\n", (unsigned long long)s->records);
	for (i = 0; i < li->nk; i++)
		put(o, "  %-17.*s %llu\n", (int)li->k[i].len, li->k[i].name,
		    (unsigned long long)li->k[i].n);

	put(o, "threads             %s%llu\n", est(&s->threads),
	    (unsigned long long)tab_distinct(&s->threads));
	ids = sorted_ids(&s->threads, by_count);
	n = rows(s, s->threads.map.count);
	for (i = 0; ids && i < n; i++) {
		uint64_t tid, b;
		idmap_key(&s->threads.map, ids[i], &tid, &b);
		put(o, "  tid %-13llu %llu\n", (unsigned long long)tid,
		    (unsigned long long)s->threads.count[ids[i]]);
	}
	if (n < s->threads.map.count)
		put(o, "  (%zu more)\n", s->threads.map.count - n);
	free(ids);

	if (s->has_ts) {
		uint64_t d = s->ts_max - s->ts_min;
		put(o, "time                first %llu, last %llu\n",
		    (unsigned long long)s->ts_first,
		    (unsigned long long)s->ts_last);
		put(o, "  span              %llu - %llu: %llu.%09llu s\n",
		    (unsigned long long)s->ts_min, (unsigned long long)s->ts_max,
		    (unsigned long long)(d / 1000000000u),
		    (unsigned long long)(d % 1000000000u));
		if (d > 0)
			put(o, "  rate              %.1f records/s\n",
			    (double)s->ts_records * 1e9 / (double)d);
	}
	if (s->has_seq)
		put(o, "seq                 %llu - %llu\n",
		    (unsigned long long)s->seq_min,
		    (unsigned long long)s->seq_max);

	if (s->names.map.count > 0) {
		const char *p;
		size_t len;

		put(o, "event names         %s%llu\n", est(&s->names),
		    (unsigned long long)tab_distinct(&s->names));
		ids = sorted_ids(&s->names, by_count);
		n = rows(s, s->names.map.count);
		for (i = 0; ids && i < n; i++) {
			key_text(s, &s->names, ids[i], &p, &len);
			put(o, "  %12llu ", (unsigned long long)s->names.count[ids[i]]);
			text_str(o, p, len);
			tp_out_putc(o, '\n');
		}
		if (n < s->names.map.count)
			put(o, "  (%zu more)\n", s->names.map.count - n);
		free(ids);
	}

	if (s->reads + s->writes > 0 || s->code.map.count > 0) {
		put(o, "memory\n");
		put(o, "  reads             %llu\n", (unsigned long long)s->reads);
		put(o, "  writes            %llu\n", (unsigned long long)s->writes);
		put(o, "  data addresses    %s%llu\n", est(&s->data),
		    (unsigned long long)tab_distinct(&s->data));
		put(o, "  code addresses    %s%llu\n", est(&s->code),
		    (unsigned long long)tab_distinct(&s->code));
		put(o, "  shared            %llu (touched by more than one thread)\n",
		    (unsigned long long)count_flag(s, D_SHARED));
		put(o, "  multi-writer      %llu (written by more than one thread)\n",
		    (unsigned long long)count_flag(s, D_MULTIWRITER));
		sort_dst = s->dst;
		ids = sorted_ids(&s->data, by_accesses);
		n = rows(s, s->data.map.count);
		if (n > 0)
			put(o, "  most accessed     accesses    reads   writes\n");
		for (i = 0; ids && i < n; i++) {
			const struct dstat *d = &s->dst[ids[i]];
			char key[64];
			data_key(s, ids[i], key, sizeof key);
			put(o, "    %-18s %8llu %8llu %8llu%s\n", key,
			    (unsigned long long)(d->reads + d->writes),
			    (unsigned long long)d->reads,
			    (unsigned long long)d->writes,
			    d->flags & D_MULTIWRITER ? "  multi-writer" :
			    d->flags & D_SHARED ? "  shared" : "");
		}
		free(ids);
	}

	if (s->locks.map.count > 0) {
		put(o, "locks               %s%llu\n", est(&s->locks),
		    (unsigned long long)tab_distinct(&s->locks));
		put(o, "  acquisitions      %llu\n",
		    (unsigned long long)s->acquisitions);
		put(o, "  lock          acquisitions  longest hold        threads\n");
		ids = sorted_ids(&s->locks, by_count);
		n = rows(s, s->locks.map.count);
		for (i = 0; ids && i < n; i++) {
			const struct lstat *l = &s->lst[ids[i]];
			uint64_t lock, b;
			char hold[48];
			size_t j, m = 0;
			idmap_key(&s->locks.map, ids[i], &lock, &b);
			if (l->has_ns)
				snprintf(hold, sizeof hold, "%llu ns",
				    (unsigned long long)l->max_ns);
			else
				snprintf(hold, sizeof hold, "%llu records",
				    (unsigned long long)l->max_rec);
			put(o, "  %-13llu %12llu  %-19s", (unsigned long long)lock,
			    (unsigned long long)s->locks.count[ids[i]], hold);
			for (j = li->lp ? pairs_from(li->lp, li->nlp, lock) :
			    li->nlp; j < li->nlp && li->lp[2 * j] == lock;
			    j++, m++)
				if (m < 16)
					put(o, "%s%llu", m ? "," : " ",
					    (unsigned long long)
					    li->lp[2 * j + 1]);
			if (m > 16)
				put(o, ",... (%zu)", m);
			tp_out_putc(o, '\n');
		}
		if (n < s->locks.map.count)
			put(o, "  (%zu more)\n", s->locks.map.count - n);
		free(ids);
	}

	if (li->nfe > 0 && li->fe != NULL) {
		put(o, "fork tree           %s%llu forks\n", est(&s->forks),
		    (unsigned long long)tab_distinct(&s->forks));
		/* Roots: parents that no fork made. */
		for (i = 0; i < li->nfe; i++) {
			uint64_t parent = li->fe[2 * i];
			size_t j;
			int child = 0;
			if (i > 0 && li->fe[2 * i - 2] == parent)
				continue;
			for (j = 0; j < li->nfe && !child; j++)
				child = li->fe[2 * j + 1] == parent;
			if (child)
				continue;
			put(o, "  %llu\n", (unsigned long long)parent);
			tree(o, s, li->fe, li->nfe, parent, 0);
		}
	}

	any_est = s->threads.full || s->names.full || s->data.full ||
	    s->code.full || s->locks.full || s->lockthr.full ||
	    s->forks.full || s->kinds.full;
	if (any_est)
		put(o, "(~: an estimate; a table kept its first %zu keys only, "
		    "and its per-key figures cover those)\n", s->o.max_keys);
}

static void
json_table_u64(struct tp_out *o, const struct ts_stat *s, const struct table *t,
    const char *keyname)
{
	size_t *ids = sorted_ids(t, by_count), i, n = rows(s, t->map.count);

	put(o, "{\"distinct\":%llu,\"estimated\":%s,\"top\":[",
	    (unsigned long long)tab_distinct(t), t->full ? "true" : "false");
	for (i = 0; ids && i < n; i++) {
		uint64_t a, b;
		idmap_key(&t->map, ids[i], &a, &b);
		put(o, "%s{\"%s\":%llu,\"records\":%llu}", i ? "," : "", keyname,
		    (unsigned long long)a, (unsigned long long)t->count[ids[i]]);
	}
	put(o, "]}");
	free(ids);
}

static void
report_json(struct ts_stat *s, const struct lists *li, struct tp_out *o)
{
	size_t i, n, *ids;
	const char *p;
	size_t len;

	put(o, "{\"records\":%llu,\"kinds\":{", (unsigned long long)s->records);
	for (i = 0; i < li->nk; i++) {
		if (i)
			tp_out_putc(o, ',');
		tp_json_put_str(o, li->k[i].name, li->k[i].len);
		put(o, ":%llu", (unsigned long long)li->k[i].n);
	}
	put(o, "},\"threads\":");
	json_table_u64(o, s, &s->threads, "tid");
	if (s->has_ts)
		put(o, ",\"time\":{\"first\":%llu,\"last\":%llu,\"min\":%llu,"
		    "\"max\":%llu,\"duration_ns\":%llu,\"records\":%llu}",
		    (unsigned long long)s->ts_first, (unsigned long long)s->ts_last,
		    (unsigned long long)s->ts_min, (unsigned long long)s->ts_max,
		    (unsigned long long)(s->ts_max - s->ts_min),
		    (unsigned long long)s->ts_records);
	else
		put(o, ",\"time\":null");
	if (s->has_seq)
		put(o, ",\"seq\":{\"min\":%llu,\"max\":%llu}",
		    (unsigned long long)s->seq_min, (unsigned long long)s->seq_max);
	else
		put(o, ",\"seq\":null");

	put(o, ",\"names\":{\"distinct\":%llu,\"estimated\":%s,\"top\":[",
	    (unsigned long long)tab_distinct(&s->names),
	    s->names.full ? "true" : "false");
	ids = sorted_ids(&s->names, by_count);
	n = rows(s, s->names.map.count);
	for (i = 0; ids && i < n; i++) {
		key_text(s, &s->names, ids[i], &p, &len);
		put(o, "%s{\"name\":", i ? "," : "");
		tp_json_put_str(o, p, len);
		put(o, ",\"records\":%llu}", (unsigned long long)s->names.count[ids[i]]);
	}
	free(ids);

	put(o, "]},\"memory\":{\"reads\":%llu,\"writes\":%llu,"
	    "\"data_addresses\":%llu,\"data_estimated\":%s,"
	    "\"code_addresses\":%llu,\"code_estimated\":%s,"
	    "\"shared\":%llu,\"multi_writer\":%llu,\"top\":[",
	    (unsigned long long)s->reads, (unsigned long long)s->writes,
	    (unsigned long long)tab_distinct(&s->data),
	    s->data.full ? "true" : "false",
	    (unsigned long long)tab_distinct(&s->code),
	    s->code.full ? "true" : "false",
	    (unsigned long long)count_flag(s, D_SHARED),
	    (unsigned long long)count_flag(s, D_MULTIWRITER));
	sort_dst = s->dst;
	ids = sorted_ids(&s->data, by_accesses);
	n = rows(s, s->data.map.count);
	for (i = 0; ids && i < n; i++) {
		const struct dstat *d = &s->dst[ids[i]];
		char key[64];
		data_key(s, ids[i], key, sizeof key);
		if (key[0] == 'v')
			put(o, "%s{\"var\":%s", i ? "," : "", key + 4);
		else
			put(o, "%s{\"addr\":\"%s\"", i ? "," : "", key);
		put(o, ",\"reads\":%llu,\"writes\":%llu,\"shared\":%s,"
		    "\"multi_writer\":%s}", (unsigned long long)d->reads,
		    (unsigned long long)d->writes,
		    d->flags & D_SHARED ? "true" : "false",
		    d->flags & D_MULTIWRITER ? "true" : "false");
	}
	free(ids);

	put(o, "]},\"locks\":{\"distinct\":%llu,\"estimated\":%s,"
	    "\"acquisitions\":%llu,\"top\":[",
	    (unsigned long long)tab_distinct(&s->locks),
	    s->locks.full ? "true" : "false",
	    (unsigned long long)s->acquisitions);
	ids = sorted_ids(&s->locks, by_count);
	n = rows(s, s->locks.map.count);
	for (i = 0; ids && i < n; i++) {
		const struct lstat *l = &s->lst[ids[i]];
		uint64_t lock, b;
		size_t j, m = 0;
		idmap_key(&s->locks.map, ids[i], &lock, &b);
		put(o, "%s{\"lock\":%llu,\"acquisitions\":%llu,\"threads\":[",
		    i ? "," : "", (unsigned long long)lock,
		    (unsigned long long)s->locks.count[ids[i]]);
		for (j = li->lp ? pairs_from(li->lp, li->nlp, lock) : li->nlp;
		    j < li->nlp && li->lp[2 * j] == lock; j++, m++)
			put(o, "%s%llu", m ? "," : "",
			    (unsigned long long)li->lp[2 * j + 1]);
		put(o, "],\"longest_hold_records\":%llu,\"longest_hold_ns\":",
		    (unsigned long long)l->max_rec);
		if (l->has_ns)
			put(o, "%llu}", (unsigned long long)l->max_ns);
		else
			put(o, "null}");
	}
	free(ids);
	put(o, "]},\"forks\":[");
	for (i = 0; li->fe && i < li->nfe; i++) {
		uint64_t parent = li->fe[2 * i], child = li->fe[2 * i + 1];
		int joined = idmap_get(&s->joins.map, parent, child) >= 0;
		put(o, "%s{\"parent\":%llu,\"child\":%llu,\"joined\":%s}",
		    i ? "," : "", (unsigned long long)parent,
		    (unsigned long long)child, joined ? "true" : "false");
	}
	put(o, "],\"max_keys\":%zu}\n", s->o.max_keys);
}

void
ts_report(struct ts_stat *s, struct tp_out *o)
{
	struct lists l;

	if (s->o.by != NULL) {
		report_by(s, o);
		return;
	}
	l.nk = kind_list(s, &l.k);
	l.lp = pairs(&s->lockthr);
	l.fe = pairs(&s->forks);
	l.nlp = s->lockthr.map.count;
	l.nfe = s->forks.map.count;
	if (s->o.json)
		report_json(s, &l, o);
	else
		report_text(s, &l, o);
	free(l.k);
	free(l.lp);
	free(l.fe);
}
