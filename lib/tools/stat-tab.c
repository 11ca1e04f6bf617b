/*
 * txtstat's state: each table is an idmap (dense ids for keys) with
 * arrays indexed by id, a bound on the keys kept and a HyperLogLog that
 * sees every key, so that the distinct count stays right (as an
 * estimate) past the bound.  Strings (kinds, names, --by values, kinds
 * of slice) are keyed by a 128-bit hash and stored once in an arena.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/hash.h"
#include "io/input.h"
#include "tools/stat-int.h"

void
ts_put(struct tp_out *o, const char *fmt, ...)
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

/* ------------------------------------------------------------- tables */

static void
tab_init(struct table *t, size_t max, int str)
{
	memset(t, 0, sizeof *t);
	idmap_init(&t->map);
	tp_distinct_init(&t->est);
	t->max = max;
	t->str = str;
	t->last_id = -1;
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
int64_t
ts_tab_put(struct ts_stat *s, struct table *t, uint64_t a, uint64_t b,
    int *added, uint64_t inc)
{
	int64_t id;
	int add = 0;

	if (t->last_id >= 0 && a == t->last_a && b == t->last_b) {
		if (added != NULL)
			*added = 0;
		t->count[t->last_id] += inc;
		return t->last_id;
	}
	if (t->map.count >= t->max) {
		if ((id = idmap_get(&t->map, a, b)) < 0 && !t->full)
			ts_tab_full(t);
		tp_distinct_add(&t->est, tp_hash64(a, b));
	} else if ((id = idmap_put(&t->map, a, b, &add)) < 0) {
		s->oom = 1;
	}
	if (add && (size_t)id >= t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		if (grow(&t->count, sizeof *t->count, t->cap, cap) < 0 ||
		    (t == &s->data && grow(&s->dst, sizeof *s->dst, t->cap, cap) < 0) ||
		    (t == &s->locks && grow(&s->lst, sizeof *s->lst, t->cap, cap) < 0) ||
		    (t == &s->groups && grow(&s->dg, sizeof *s->dg, t->cap, cap) < 0) ||
		    (t->str && grow(&t->soff, sizeof *t->soff, t->cap, cap) < 0) ||
		    (t->str && grow(&t->slen, sizeof *t->slen, t->cap, cap) < 0)) {
			s->oom = 1;
			return -1;
		}
		t->cap = cap;
	}
	if (added != NULL)
		*added = add;
	if (id >= 0) {
		t->count[id] += inc;
		t->last_a = a;
		t->last_b = b;
		t->last_id = id;
	}
	return id;
}

/*
 * The estimate is needed once a key is not kept: until then the keys
 * are all there, and the sketch is made from them when it is.
 */
void
ts_tab_full(struct table *t)
{
	size_t i;
	uint64_t a, b;

	t->full = 1;
	for (i = 0; i < t->map.count; i++) {
		idmap_key(&t->map, i, &a, &b);
		tp_distinct_add(&t->est, tp_hash64(a, b));
	}
}

/* A string key: its text is kept in the arena when new. */
int64_t
ts_tab_put_str(struct ts_stat *s, struct table *t, const char *p, size_t n,
    uint64_t inc, int *addedp)
{
	uint64_t h1, h2;
	int added = 0;
	int64_t id;

	tp_hash_bytes(p, n, &h1, &h2);
	id = ts_tab_put(s, t, h1, h2, &added, inc);
	if (addedp != NULL)
		*addedp = added;
	if (id < 0 || !added)
		return id;
	/* A byte more: an empty first key makes an arena too (no NULL + 0). */
	if (tp_grow(&s->arena, &s->arenacap, s->arenalen + n + 1, 1) < 0) {
		s->oom = 1;
		return -1;
	}
	memcpy(s->arena + s->arenalen, p, n);
	t->soff[id] = s->arenalen;
	t->slen[id] = (uint32_t)n;
	s->arenalen += n;
	return id;
}

uint64_t
ts_tab_distinct(const struct table *t)
{
	return t->full ? tp_distinct_estimate(&t->est) : t->map.count;
}

/* ------------------------------------------------------------- records */

/*
 * Grown to the longest value met, not made a line's 64 MiB up front: a
 * summary of a small part (txtstat of many files, a fuzz run) costs what
 * its lines do.
 */
char *
ts_scratch_grow(struct ts_stat *s, size_t n)
{
	if (tp_grow(&s->scratch, &s->scratchcap, n + 1, 1) < 0) {
		s->oom = 1;
		return NULL;
	}
	return s->scratch;
}

struct ts_stat *
ts_new(const struct ts_opts *o)
{
	struct ts_stat *s = calloc(1, sizeof *s);
	size_t i;

	if (s == NULL)
		return NULL;
	{
		struct table *t[] = TABLES(s);
		s->o = *o;
		if (s->o.max_keys == 0)
			s->o.max_keys = TS_MAX_KEYS_DEFAULT;
		for (i = 0; i < sizeof t / sizeof t[0]; i++)
			tab_init(t[i], s->o.max_keys, t[i] == &s->kinds ||
			    t[i] == &s->names || t[i] == &s->by ||
			    t[i] == &s->groups);
	}
	idmap_init(&s->thr);
	return s;
}

void
ts_free(struct ts_stat *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->groups.map.count && s->dg != NULL; i++) {
		free(s->dg[i].v);
		free(s->dg[i].hist);
	}
	free(s->dg);
	for (i = 0; i < s->stkcap; i++)
		free(s->stk[i].s);
	free(s->stk);
	free(s->um);
	free(s->nc);
	idmap_free(&s->thr);
	{
		struct table *t[] = TABLES(s);
		for (i = 0; i < sizeof t / sizeof t[0]; i++)
			tab_free(t[i]);
	}
	free(s->dst);
	free(s->lst);
	free(s->arena);
	free(s->scratch);
	free(s);
}

void
ts_key_text(const struct ts_stat *s, const struct table *t, size_t id,
    const char **p, size_t *n)
{
	*p = s->arena + t->soff[id];
	*n = t->slen[id];
}
