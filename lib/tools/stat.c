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
#include "tools/filter.h"
#include "tools/pair.h"
#include "tools/stat.h"
#include "tools/stat-int.h"

/* The fields a summary reads, by key. */
enum { K_TID, K_TS, K_SEQ, K_PC, K_ADDR, K_VAR, K_LOC, K_LOCK, K_CHILD,
	K_INPUT, K_SCOPE, K_NAME, K_ARGNAME, K_N };

#define IS(lit) (memcmp(k, lit, sizeof lit - 1) == 0)

/*
 * Which of the fields above f is, or -1: by length and first letter,
 * then one compare of a fixed length (no call).
 */
static int
field_id(const struct tr_field *f)
{
	const char *k = f->key;

	switch (f->keylen) {
	case 2:
		return k[0] == 't' ? (k[1] == 's' ? K_TS : -1) :
		    k[0] == 'p' && k[1] == 'c' ? K_PC : -1;
	case 3:
		switch (k[0]) {
		case 't': return IS("tid") ? K_TID : -1;
		case 's': return IS("seq") ? K_SEQ : -1;
		case 'v': return IS("var") ? K_VAR : -1;
		case 'l': return IS("loc") ? K_LOC : -1;
		}
		return -1;
	case 4:
		switch (k[0]) {
		case 'a': return IS("addr") ? K_ADDR : -1;
		case 'l': return IS("lock") ? K_LOCK : -1;
		case 'n': return IS("name") ? K_NAME : -1;
		}
		return -1;
	case 5:
		switch (k[0]) {
		case 'c': return IS("child") ? K_CHILD : -1;
		case 'i': return IS("input") ? K_INPUT : -1;
		case 's': return IS("scope") ? K_SCOPE : -1;
		}
		return -1;
	case 8:
		return k[0] == 'a' && IS("arg.name") ? K_ARGNAME : -1;
	}
	return -1;
}

static void
data_access(struct ts_stat *s, int kind, uint64_t a, uint64_t ns, int has_tid,
    uint64_t tid)
{
	int64_t id = ts_tab_put(s, &s->data, a, ns, NULL, 1);
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
	/* the first access with a tid, not the first access: a record
	   without one says nothing of who touched the address */
	dstat_thread(d, &d->tid, D_TIDSEEN, D_SHARED, tid);
	if (kind == TK_WRITE)
		dstat_thread(d, &d->wtid, D_WRITTEN, D_MULTIWRITER, tid);
}

/* A string value as its text: unquoted into buf when quoted. */
static size_t
str_val(const struct tr_field *f, char *buf, const char **p)
{
	if (f->vallen >= 2 && f->val[0] == '"') {
		*p = buf;
		return tp_unquote(f->val, f->vallen, buf);
	}
	*p = f->val;
	return f->vallen;
}

/* A name that can name a slice (txt2chrome's test): a short string. */
static int
slice_str(const struct tr_field *f)
{
	return f != NULL && f->vallen > 0 && f->vallen <= TP_PAIR_NAME &&
	    f->val[0] != '[' && f->val[0] != '{';
}

static int
add_record(struct ts_stat *s, struct tr_reader *r, const struct tr_rec *rec)
{
	const struct tr_field *fv[K_N] = { 0 }, *byf = NULL;
	uint64_t v[K_N];
	int kind = tp_kind(rec->kind, rec->kindlen,
	    (size_t)(rec->line + rec->len - rec->kind)), i;
	int64_t nameid = -1;
	size_t k;

	s->records++;
	if (s->o.by != NULL) {
		size_t bylen = strlen(s->o.by);
		const char *p;
		for (k = 0; k < rec->nf; k++)
			if (rec->f[k].keylen == bylen &&
			    memcmp(rec->f[k].key, s->o.by, bylen) == 0)
				byf = &rec->f[k];
		if (strcmp(s->o.by, "kind") == 0) {
			ts_tab_put_str(s, &s->by, rec->kind, rec->kindlen, 1, NULL);
		} else if (byf != NULL) {
			char *buf = ts_scratch(s, byf->vallen);
			if (buf != NULL) {
				size_t n = str_val(byf, buf, &p);
				ts_tab_put_str(s, &s->by, p, n, 1, NULL);
			}
		} else {
			s->no_by++;
		}
		return s->oom ? -1 : 0;
	}
	if (kind == TK_OTHER) {
		ts_tab_put_str(s, &s->kinds, rec->kind, rec->kindlen, 1, NULL);
		return s->oom ? -1 : 0;
	}
	s->shared_kind[kind]++;
	for (k = 0; k < rec->nf; k++) {
		const struct tr_field *f = &rec->f[k];
		if ((i = field_id(f)) >= 0 && !tr_is_null(f))
			fv[i] = f;
	}
	/* The reader's message only for a value that is no number. */
	for (i = 0; i < K_INPUT; i++)
		if (fv[i] != NULL && tp_parse_u64(fv[i]->val, fv[i]->vallen,
		    &v[i]) < 0 && tr_u64(r, rec, fv[i], &v[i]) < 0)
			return -1;
	/* input= and scope= that hold no number are not the pairing's. */
	for (; i < K_NAME; i++)
		if (fv[i] != NULL && tp_parse_u64(fv[i]->val, fv[i]->vallen,
		    &v[i]) < 0)
			fv[i] = NULL;
	if (fv[K_TID])
		ts_tab_put(s, &s->threads, v[K_TID], 0, NULL, 1);
	/* A thread that a fork or join names is a thread, records or not. */
	if (fv[K_CHILD])
		ts_tab_put(s, &s->threads, v[K_CHILD], 0, NULL, 0);
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
		const char *p;
		char *buf = ts_scratch(s, fv[K_NAME]->vallen);
		size_t n;
		if (buf == NULL)
			return -1;
		n = str_val(fv[K_NAME], buf, &p);
		nameid = ts_tab_put_str(s, &s->names, p, n, 1, NULL);
	}
	if (fv[K_PC])
		ts_tab_put(s, &s->code, v[K_PC], 0, NULL, 1);
	if (fv[K_LOC])
		ts_tab_put(s, &s->code, v[K_LOC], 1, NULL, 1);
	switch (kind) {
	case TK_READ:
	case TK_WRITE:
		if (fv[K_VAR] || fv[K_ADDR])
			data_access(s, kind, fv[K_VAR] ? v[K_VAR] : v[K_ADDR],
			    fv[K_VAR] != NULL, fv[K_TID] != NULL, v[K_TID]);
		break;
	case TK_FORK:
	case TK_JOIN:
		if (fv[K_TID] && fv[K_CHILD])
			ts_tab_put(s, kind == TK_FORK ? &s->forks : &s->joins,
			    v[K_TID], v[K_CHILD], NULL, 1);
		break;
	case TK_ACQUIRE:
	case TK_RELEASE:
		if (fv[K_LOCK] == NULL)
			break;
		/* The count is of acquisitions. */
		ts_tab_put(s, &s->locks, v[K_LOCK], 0, NULL,
		    kind == TK_ACQUIRE);
		if (kind == TK_ACQUIRE) {
			s->acquisitions++;
			if (fv[K_TID])
				ts_tab_put(s, &s->lockthr, v[K_LOCK], v[K_TID],
				    NULL, 1);
		}
		/* FALLTHROUGH */
	case TK_BEGIN:
	case TK_END:
	case TK_EVENT: {
		char nbuf[TP_PAIR_NAME], abuf[TP_PAIR_NAME];
		const char *name = NULL, *arg = NULL;
		size_t namelen = 0, arglen = 0;
		if (kind == TK_EVENT && slice_str(fv[K_NAME]))
			namelen = str_val(fv[K_NAME], nbuf, &name);
		if (kind == TK_EVENT && slice_str(fv[K_ARGNAME]))
			arglen = str_val(fv[K_ARGNAME], abuf, &arg);
		if (ts_dur_record(s, kind, name ? nameid : -1, name, namelen,
		    fv[K_SCOPE] ? &v[K_SCOPE] : NULL, arg, arglen,
		    fv[K_LOCK] ? &v[K_LOCK] : NULL,
		    fv[K_INPUT] ? &v[K_INPUT] : NULL,
		    fv[K_TID] ? &v[K_TID] : NULL,
		    fv[K_TS] ? &v[K_TS] : NULL) < 0)
			s->oom = 1;
		break;
	}
	}
	return s->oom ? -1 : 0;
}

int
ts_add_input(struct ts_stat *s, struct tr_reader *r)
{
	static struct tr_rec rec;	/* 8 KiB of fields: not on the stack */
	int rc;

	while ((rc = tr_next(r, &rec)) == 1) {
		if (s->o.select != NULL) {
			int v = tf_judge(s->o.select, rec.line, rec.len,
			    rec.lineno, r->err);
			if (v < 0)
				return -1;
			if (v == TF_REJECT)
				continue;
		}
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

/*
 * The first top ids of t (all for 0) sorted by cmp; NULL when empty or
 * out of memory.  A few of many are picked in one pass (most keys lose
 * to the last one kept at the first compare), not by sorting them all.
 */
static size_t *
sorted_ids(const struct table *t, int (*cmp)(const void *, const void *),
    size_t top)
{
	size_t i, j, m = 0, n = t->map.count, *ids;

	sort_tab = t;
	if (top == 0 || top > n)
		top = n;
	if (n == 0 || (ids = malloc(top * sizeof *ids)) == NULL)
		return NULL;
	if (top > n / 4) {
		free(ids);
		if ((ids = malloc(n * sizeof *ids)) == NULL)
			return NULL;
		for (i = 0; i < n; i++)
			ids[i] = i;
		qsort(ids, n, sizeof *ids, cmp);
		return ids;
	}
	for (i = 0; i < n; i++) {
		if (m == top && cmp(&i, &ids[m - 1]) >= 0)
			continue;
		j = m < top ? m++ : top - 1;
		for (; j > 0 && cmp(&i, &ids[j - 1]) < 0; j--)
			ids[j] = ids[j - 1];
		ids[j] = i;
	}
	return ids;
}

static size_t
rows(const struct ts_stat *s, size_t n)
{
	return s->o.top == 0 || s->o.top > n ? n : s->o.top;
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
		ts_key_text(s, &s->kinds, i, &k[n].name, &k[n].len);
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
		ts_put(o, "%*s...\n", 2 * depth + 4, "");
		return;
	}
	for (; i < n && e[2 * i] == tid; i++) {
		uint64_t c = e[2 * i + 1];
		ts_put(o, "%*s%llu%s\n", 2 * depth + 4, "", (unsigned long long)c,
		    idmap_get(&s->joins.map, tid, c) >= 0 ? " (joined)" : "");
		if (c != tid)
			tree(o, s, e, n, c, depth + 1);
	}
}

static void
report_by(struct ts_stat *s, struct tp_out *o, const char *file, size_t files)
{
	size_t *ids = sorted_ids(&s->by, by_count, s->o.top), i, n = rows(s, s->by.map.count);
	const char *p;
	size_t len;

	if (s->o.json) {
		ts_put(o, "{\"file\":");
		if (file != NULL)
			tp_json_put_str(o, file, strlen(file));
		else
			ts_put(o, "null");
		if (files > 0)
			ts_put(o, ",\"files\":%zu", files);
		ts_put(o, ",\"by\":");
		tp_json_put_str(o, s->o.by, strlen(s->o.by));
		ts_put(o, ",\"records\":%llu,\"without\":%llu,\"distinct\":%llu,"
		    "\"estimated\":%s,\"counts\":[", (unsigned long long)s->records,
		    (unsigned long long)s->no_by,
		    (unsigned long long)ts_tab_distinct(&s->by),
		    s->by.full ? "true" : "false");
		for (i = 0; ids && i < n; i++) {
			ts_key_text(s, &s->by, ids[i], &p, &len);
			ts_put(o, "%s{\"value\":", i ? "," : "");
			tp_json_put_str(o, p, len);
			ts_put(o, ",\"records\":%llu}",
			    (unsigned long long)s->by.count[ids[i]]);
		}
		ts_put(o, "],\"max_keys\":%zu,\"state\":", s->o.max_keys);
		ts_state_json(s, o);
		ts_put(o, "}\n");
	} else {
		if (file != NULL) {
			ts_put(o, "file                ");
			tv_str(o, file, strlen(file));
			tp_out_putc(o, '\n');
		} else if (files > 0) {
			ts_put(o, "total               %zu files\n", files);
		}
		for (i = 0; ids && i < n; i++) {
			ts_key_text(s, &s->by, ids[i], &p, &len);
			ts_put(o, "%12llu ", (unsigned long long)s->by.count[ids[i]]);
			tv_str(o, p, len);
			tp_out_putc(o, '\n');
		}
		if (s->no_by)
			ts_put(o, "%12llu (no %s)\n", (unsigned long long)s->no_by,
			    s->o.by);
		if (n < s->by.map.count)
			ts_put(o, "(%zu more values)\n", s->by.map.count - n);
		if (s->by.full)
			ts_put(o, "(only the first %zu distinct values were counted; "
			    "about %llu in all)\n", s->o.max_keys,
			    (unsigned long long)ts_tab_distinct(&s->by));
	}
	free(ids);
}

/*
 * Did a table keep its first max_keys keys only?  Then its per-key
 * figures cover those (a kind past the bound is in no count): both
 * reports say so, the JSON one too ("estimated" beside max_keys), since
 * the kinds and forks have no mark of their own.
 */
static int
any_estimate(const struct ts_stat *s)
{
	return s->threads.full || s->names.full || s->data.full ||
	    s->code.full || s->locks.full || s->lockthr.full ||
	    s->forks.full || s->kinds.full || s->groups.full;
}

static void
report_text(struct ts_stat *s, const struct lists *li, struct tp_out *o,
    const char *file, size_t files)
{
	size_t i, n, *ids;

	if (file != NULL) {
		ts_put(o, "file                ");
		tv_str(o, file, strlen(file));
		tp_out_putc(o, '\n');
	} else if (files > 0) {
		ts_put(o, "total               %zu files\n", files);
	}

	ts_put(o, "records             %llu\n", (unsigned long long)s->records);
	for (i = 0; i < li->nk; i++)
		ts_put(o, "  %-17.*s %llu\n", (int)li->k[i].len, li->k[i].name,
		    (unsigned long long)li->k[i].n);

	ts_put(o, "threads             %s%llu\n", est(&s->threads),
	    (unsigned long long)ts_tab_distinct(&s->threads));
	ids = sorted_ids(&s->threads, by_count, s->o.top);
	n = rows(s, s->threads.map.count);
	for (i = 0; ids && i < n; i++) {
		uint64_t tid, b;
		idmap_key(&s->threads.map, ids[i], &tid, &b);
		ts_put(o, "  tid %-13llu %llu\n", (unsigned long long)tid,
		    (unsigned long long)s->threads.count[ids[i]]);
	}
	if (n < s->threads.map.count)
		ts_put(o, "  (%zu more)\n", s->threads.map.count - n);
	free(ids);

	if (s->has_ts) {
		uint64_t d = s->ts_max - s->ts_min;
		ts_put(o, "time                first %llu, last %llu\n",
		    (unsigned long long)s->ts_first,
		    (unsigned long long)s->ts_last);
		ts_put(o, "  span              %llu - %llu: %llu.%09llu s\n",
		    (unsigned long long)s->ts_min, (unsigned long long)s->ts_max,
		    (unsigned long long)(d / 1000000000u),
		    (unsigned long long)(d % 1000000000u));
		if (d > 0)
			ts_put(o, "  rate              %.1f records/s\n",
			    (double)s->ts_records * 1e9 / (double)d);
	}
	if (s->has_seq)
		ts_put(o, "seq                 %llu - %llu\n",
		    (unsigned long long)s->seq_min,
		    (unsigned long long)s->seq_max);

	if (s->names.map.count > 0) {
		const char *p;
		size_t len;

		ts_put(o, "event names         %s%llu\n", est(&s->names),
		    (unsigned long long)ts_tab_distinct(&s->names));
		ids = sorted_ids(&s->names, by_count, s->o.top);
		n = rows(s, s->names.map.count);
		for (i = 0; ids && i < n; i++) {
			ts_key_text(s, &s->names, ids[i], &p, &len);
			ts_put(o, "  %12llu ", (unsigned long long)s->names.count[ids[i]]);
			tv_str(o, p, len);
			tp_out_putc(o, '\n');
		}
		if (n < s->names.map.count)
			ts_put(o, "  (%zu more)\n", s->names.map.count - n);
		free(ids);
	}

	if (s->reads + s->writes > 0 || s->code.map.count > 0) {
		ts_put(o, "memory\n");
		ts_put(o, "  reads             %llu\n", (unsigned long long)s->reads);
		ts_put(o, "  writes            %llu\n", (unsigned long long)s->writes);
		ts_put(o, "  data addresses    %s%llu\n", est(&s->data),
		    (unsigned long long)ts_tab_distinct(&s->data));
		ts_put(o, "  code addresses    %s%llu\n", est(&s->code),
		    (unsigned long long)ts_tab_distinct(&s->code));
		ts_put(o, "  shared            %llu (touched by more than one thread)\n",
		    (unsigned long long)count_flag(s, D_SHARED));
		ts_put(o, "  multi-writer      %llu (written by more than one thread)\n",
		    (unsigned long long)count_flag(s, D_MULTIWRITER));
		sort_dst = s->dst;
		ids = sorted_ids(&s->data, by_accesses, s->o.top);
		n = rows(s, s->data.map.count);
		if (n > 0)
			ts_put(o, "  most accessed     accesses    reads   writes\n");
		for (i = 0; ids && i < n; i++) {
			const struct dstat *d = &s->dst[ids[i]];
			char key[64];
			data_key(s, ids[i], key, sizeof key);
			ts_put(o, "    %-18s %8llu %8llu %8llu%s\n", key,
			    (unsigned long long)(d->reads + d->writes),
			    (unsigned long long)d->reads,
			    (unsigned long long)d->writes,
			    d->flags & D_MULTIWRITER ? "  multi-writer" :
			    d->flags & D_SHARED ? "  shared" : "");
		}
		free(ids);
	}

	if (s->locks.map.count > 0) {
		ts_put(o, "locks               %s%llu\n", est(&s->locks),
		    (unsigned long long)ts_tab_distinct(&s->locks));
		ts_put(o, "  acquisitions      %llu\n",
		    (unsigned long long)s->acquisitions);
		ts_put(o, "  lock          acquisitions  longest hold        threads\n");
		ids = sorted_ids(&s->locks, by_count, s->o.top);
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
			else if (l->has_rec)
				snprintf(hold, sizeof hold, "%llu records",
				    (unsigned long long)l->max_rec);
			else
				snprintf(hold, sizeof hold, "-");
			ts_put(o, "  %-13llu %12llu  %-19s", (unsigned long long)lock,
			    (unsigned long long)s->locks.count[ids[i]], hold);
			for (j = li->lp ? pairs_from(li->lp, li->nlp, lock) :
			    li->nlp; j < li->nlp && li->lp[2 * j] == lock;
			    j++, m++)
				if (m < 16)
					ts_put(o, "%s%llu", m ? "," : " ",
					    (unsigned long long)
					    li->lp[2 * j + 1]);
			if (m > 16)
				ts_put(o, ",... (%zu)", m);
			tp_out_putc(o, '\n');
		}
		if (n < s->locks.map.count)
			ts_put(o, "  (%zu more)\n", s->locks.map.count - n);
		free(ids);
	}

	ts_dur_text(s, o);

	if (li->nfe > 0 && li->fe != NULL) {
		ts_put(o, "fork tree           %s%llu forks\n", est(&s->forks),
		    (unsigned long long)ts_tab_distinct(&s->forks));
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
			ts_put(o, "  %llu\n", (unsigned long long)parent);
			tree(o, s, li->fe, li->nfe, parent, 0);
		}
	}

	if (any_estimate(s))
		ts_put(o, "(~: an estimate; a table kept its first %zu keys only, "
		    "and its per-key figures cover those)\n", s->o.max_keys);
}

static void
json_table_u64(struct tp_out *o, const struct ts_stat *s, const struct table *t,
    const char *keyname)
{
	size_t *ids = sorted_ids(t, by_count, s->o.top), i, n = rows(s, t->map.count);

	ts_put(o, "{\"distinct\":%llu,\"estimated\":%s,\"top\":[",
	    (unsigned long long)ts_tab_distinct(t), t->full ? "true" : "false");
	for (i = 0; ids && i < n; i++) {
		uint64_t a, b;
		idmap_key(&t->map, ids[i], &a, &b);
		ts_put(o, "%s{\"%s\":%llu,\"records\":%llu}", i ? "," : "", keyname,
		    (unsigned long long)a, (unsigned long long)t->count[ids[i]]);
	}
	ts_put(o, "]}");
	free(ids);
}

static void
report_json(struct ts_stat *s, const struct lists *li, struct tp_out *o,
    const char *file, size_t files)
{
	size_t i, n, *ids;
	const char *p;
	size_t len;

	ts_put(o, "{\"file\":");
	if (file != NULL)
		tp_json_put_str(o, file, strlen(file));
	else
		ts_put(o, "null");
	if (files > 0)
		ts_put(o, ",\"files\":%zu", files);
	ts_put(o, ",\"records\":%llu,\"kinds\":{", (unsigned long long)s->records);
	for (i = 0; i < li->nk; i++) {
		if (i)
			tp_out_putc(o, ',');
		tp_json_put_str(o, li->k[i].name, li->k[i].len);
		ts_put(o, ":%llu", (unsigned long long)li->k[i].n);
	}
	ts_put(o, "},\"threads\":");
	json_table_u64(o, s, &s->threads, "tid");
	if (s->has_ts)
		ts_put(o, ",\"time\":{\"first\":%llu,\"last\":%llu,\"min\":%llu,"
		    "\"max\":%llu,\"duration_ns\":%llu,\"records\":%llu}",
		    (unsigned long long)s->ts_first, (unsigned long long)s->ts_last,
		    (unsigned long long)s->ts_min, (unsigned long long)s->ts_max,
		    (unsigned long long)(s->ts_max - s->ts_min),
		    (unsigned long long)s->ts_records);
	else
		ts_put(o, ",\"time\":null");
	if (s->has_seq)
		ts_put(o, ",\"seq\":{\"min\":%llu,\"max\":%llu}",
		    (unsigned long long)s->seq_min, (unsigned long long)s->seq_max);
	else
		ts_put(o, ",\"seq\":null");

	ts_put(o, ",\"names\":{\"distinct\":%llu,\"estimated\":%s,\"top\":[",
	    (unsigned long long)ts_tab_distinct(&s->names),
	    s->names.full ? "true" : "false");
	ids = sorted_ids(&s->names, by_count, s->o.top);
	n = rows(s, s->names.map.count);
	for (i = 0; ids && i < n; i++) {
		ts_key_text(s, &s->names, ids[i], &p, &len);
		ts_put(o, "%s{\"name\":", i ? "," : "");
		tp_json_put_str(o, p, len);
		ts_put(o, ",\"records\":%llu}", (unsigned long long)s->names.count[ids[i]]);
	}
	free(ids);

	ts_put(o, "]},\"memory\":{\"reads\":%llu,\"writes\":%llu,"
	    "\"data_addresses\":%llu,\"data_estimated\":%s,"
	    "\"code_addresses\":%llu,\"code_estimated\":%s,"
	    "\"shared\":%llu,\"multi_writer\":%llu,\"top\":[",
	    (unsigned long long)s->reads, (unsigned long long)s->writes,
	    (unsigned long long)ts_tab_distinct(&s->data),
	    s->data.full ? "true" : "false",
	    (unsigned long long)ts_tab_distinct(&s->code),
	    s->code.full ? "true" : "false",
	    (unsigned long long)count_flag(s, D_SHARED),
	    (unsigned long long)count_flag(s, D_MULTIWRITER));
	sort_dst = s->dst;
	ids = sorted_ids(&s->data, by_accesses, s->o.top);
	n = rows(s, s->data.map.count);
	for (i = 0; ids && i < n; i++) {
		const struct dstat *d = &s->dst[ids[i]];
		char key[64];
		data_key(s, ids[i], key, sizeof key);
		if (key[0] == 'v')
			ts_put(o, "%s{\"var\":%s", i ? "," : "", key + 4);
		else
			ts_put(o, "%s{\"addr\":\"%s\"", i ? "," : "", key);
		ts_put(o, ",\"reads\":%llu,\"writes\":%llu,\"shared\":%s,"
		    "\"multi_writer\":%s}", (unsigned long long)d->reads,
		    (unsigned long long)d->writes,
		    d->flags & D_SHARED ? "true" : "false",
		    d->flags & D_MULTIWRITER ? "true" : "false");
	}
	free(ids);

	ts_put(o, "]},\"locks\":{\"distinct\":%llu,\"estimated\":%s,"
	    "\"acquisitions\":%llu,\"top\":[",
	    (unsigned long long)ts_tab_distinct(&s->locks),
	    s->locks.full ? "true" : "false",
	    (unsigned long long)s->acquisitions);
	ids = sorted_ids(&s->locks, by_count, s->o.top);
	n = rows(s, s->locks.map.count);
	for (i = 0; ids && i < n; i++) {
		const struct lstat *l = &s->lst[ids[i]];
		uint64_t lock, b;
		size_t j, m = 0;
		idmap_key(&s->locks.map, ids[i], &lock, &b);
		ts_put(o, "%s{\"lock\":%llu,\"acquisitions\":%llu,\"threads\":[",
		    i ? "," : "", (unsigned long long)lock,
		    (unsigned long long)s->locks.count[ids[i]]);
		for (j = li->lp ? pairs_from(li->lp, li->nlp, lock) : li->nlp;
		    j < li->nlp && li->lp[2 * j] == lock; j++, m++)
			ts_put(o, "%s%llu", m ? "," : "",
			    (unsigned long long)li->lp[2 * j + 1]);
		ts_put(o, "],\"longest_hold_records\":");
		if (l->has_rec)
			ts_put(o, "%llu", (unsigned long long)l->max_rec);
		else
			ts_put(o, "null");
		ts_put(o, ",\"longest_hold_ns\":");
		if (l->has_ns)
			ts_put(o, "%llu}", (unsigned long long)l->max_ns);
		else
			ts_put(o, "null}");
	}
	free(ids);
	ts_put(o, "]},\"forks\":[");
	for (i = 0; li->fe && i < li->nfe; i++) {
		uint64_t parent = li->fe[2 * i], child = li->fe[2 * i + 1];
		int joined = idmap_get(&s->joins.map, parent, child) >= 0;
		ts_put(o, "%s{\"parent\":%llu,\"child\":%llu,\"joined\":%s}",
		    i ? "," : "", (unsigned long long)parent,
		    (unsigned long long)child, joined ? "true" : "false");
	}
	ts_put(o, "],\"durations\":");
	ts_dur_json(s, o);
	ts_put(o, ",\"max_keys\":%zu,\"estimated\":%s,\"state\":",
	    s->o.max_keys, any_estimate(s) ? "true" : "false");
	ts_state_json(s, o);
	ts_put(o, "}\n");
}

void
ts_report(struct ts_stat *s, struct tp_out *o, const char *file, size_t files)
{
	struct lists l;

	if (s->o.by != NULL) {
		report_by(s, o, file, files);
		return;
	}
	l.nk = kind_list(s, &l.k);
	l.lp = pairs(&s->lockthr);
	l.fe = pairs(&s->forks);
	l.nlp = s->lockthr.map.count;
	l.nfe = s->forks.map.count;
	if (s->o.json)
		report_json(s, &l, o, file, files);
	else
		report_text(s, &l, o, file, files);
	free(l.k);
	free(l.lp);
	free(l.fe);
}
