/*
 * What the parts of txtstat share: the state of a summary.  stat.c counts
 * records and writes the report, stat-dur.c pairs slices and measures
 * their durations, stat-json.c writes the state as JSON, reads it back
 * and merges two states.
 */
#ifndef TP_STAT_INT_H
#define TP_STAT_INT_H

#include "base/distinct.h"
#include "base/idmap.h"
#include "tools/stat.h"

struct table {
	struct idmap map;
	struct tp_distinct est;	/* of every key seen, once full is set */
	size_t max;		/* keys kept at most */
	int full;		/* a key was not kept */
	int str;		/* keys are strings (their text in the arena) */
	size_t cap;		/* ids the arrays below can hold */
	uint64_t *count;	/* records per id */
	size_t *soff;		/* string tables: each key's text in the arena */
	uint32_t *slen;
	/* The last key put and its id: a run of one key costs no lookup. */
	uint64_t last_a, last_b;
	int64_t last_id;
};

/* Per data address. */
enum { D_SHARED = 1, D_WRITTEN = 2, D_MULTIWRITER = 4, D_TIDSEEN = 8 };
struct dstat {
	uint64_t reads, writes;
	uint64_t tid, wtid;	/* first thread that touched it, wrote it */
	unsigned char flags;
};

/*
 * One thread's touch of an address, as one access or as a whole part's
 * (txtstat --merge): the first thread is kept under flag seen, another
 * sets flag other.  The same rule for both, so a merge of parts says
 * what the whole said.
 */
static inline void
dstat_thread(struct dstat *d, uint64_t *first, unsigned char seen,
    unsigned char other, uint64_t tid)
{
	if (!(d->flags & seen)) {
		d->flags |= seen;
		*first = tid;
	} else if (*first != tid) {
		d->flags |= other;
	}
}

/* Per lock: the longest hold, from the pairing of its slices. */
struct lstat {
	uint64_t max_rec, max_ns;
	unsigned char has_rec, has_ns;
};

/*
 * Durations of one kind of slice (its name): exact while TS_DUR_EXACT
 * fit, then a log-linear histogram of TS_HIST buckets: 64 per power of
 * two, each value shown as its bucket's middle (within 0.8 %).
 */
#define TS_DUR_EXACT 8192
#define TS_HIST_SUB 64
#define TS_HIST ((64 - 5) * TS_HIST_SUB)
#define TS_LONGEST 5

struct longest {
	uint64_t ns, start, input, tid;
	unsigned char has_tid;
};

struct dgroup {
	uint64_t count, untimed, total, min, max;
	uint64_t *v;		/* exact durations, while hist is NULL */
	size_t nv, cap;
	uint64_t *hist;
	struct longest top[TS_LONGEST];
	unsigned ntop;
};

/* An open slice, or a close that found none open (the merge pairs it). */
struct oslice {
	uint64_t input, tid, key, ts, rec;	/* tid: a hash of the record's
						   name when it has none */
	int64_t group;		/* in s->groups, or -1 */
	unsigned char type, has_ts, has_tid;
};

struct stack {
	struct oslice *s;
	size_t n, cap;
};

/*
 * What an event name does to slices, found once per name (by its id in
 * the names table) rather than hashed and matched on every event: [0]
 * without scope=, [1] with it (then the key is the scope's).
 */
struct ncache {
	uint64_t key;
	int32_t group;
	signed char act;
	unsigned char type, set;
};

/* Open slices and unpaired closes kept at most (each). */
#define TS_PAIR_KEEP 65536

struct ts_stat {
	struct ts_opts o;
	uint64_t records;
	uint64_t shared_kind[TK_NKINDS];
	struct table kinds;	/* the other kinds, by name */
	struct table threads, names, data, code, locks, lockthr, forks, joins;
	struct table by;
	struct table groups;	/* kinds of slice, by name */
	uint64_t no_by;		/* records without the --by field */
	struct dstat *dst;
	struct lstat *lst;
	struct dgroup *dg;
	uint64_t reads, writes, acquisitions;
	int has_ts, has_seq;
	uint64_t ts_first, ts_last, ts_min, ts_max, ts_records;
	uint64_t seq_min, seq_max;
	/* Pairing: the open slices per thread, the closes paired with none. */
	struct idmap thr;
	struct stack *stk;
	size_t stkcap;
	struct oslice *um;
	size_t num, umcap;
	uint64_t nopen;		/* open slices kept, over all stacks */
	uint64_t unpaired;	/* closes paired with none (kept or not) */
	struct ncache (*nc)[2];	/* per name id */
	size_t nccap;
	int pair_cut;		/* an open slice or an unpaired close was
				   not kept: pairing across parts is partial */
	char *arena;
	size_t arenalen, arenacap;
	char *scratch;		/* a quoted value unquoted: ts_scratch() */
	size_t scratchcap;
	int oom;
};

#define TABLES(s) { &(s)->kinds, &(s)->threads, &(s)->names, &(s)->data, \
	&(s)->code, &(s)->locks, &(s)->lockthr, &(s)->forks, &(s)->joins, \
	&(s)->by, &(s)->groups }

int64_t ts_tab_put(struct ts_stat *s, struct table *t, uint64_t a,
    uint64_t b, int *added, uint64_t inc);
int64_t ts_tab_put_str(struct ts_stat *s, struct table *t, const char *p,
    size_t n, uint64_t inc, int *added);
void ts_key_text(const struct ts_stat *s, const struct table *t, size_t id,
    const char **p, size_t *n);
uint64_t ts_tab_distinct(const struct table *t);
/* s->scratch with room for n bytes, or NULL with s->oom set. */
char *ts_scratch_grow(struct ts_stat *s, size_t n);
static inline char *
ts_scratch(struct ts_stat *s, size_t n)
{
	return n < s->scratchcap ? s->scratch : ts_scratch_grow(s, n);
}
/* A key was not kept: the estimate takes over (made from the keys). */
void ts_tab_full(struct table *t);

void ts_put(struct tp_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* stat-dur.c */
/* nameid: the name's id in s->names, or -1 (see struct ncache). */
int ts_dur_record(struct ts_stat *s, int kind, int64_t nameid, const char *name,
    size_t namelen, const uint64_t *scope, const char *argname,
    size_t arglen, const uint64_t *lock, const uint64_t *input,
    const uint64_t *tid, const uint64_t *ts);
/* A close c (of another part, rec and ts its own) against the stacks. */
int ts_dur_close(struct ts_stat *s, const struct oslice *c);
int ts_dur_push(struct ts_stat *s, const struct oslice *o);
void ts_dur_text(struct ts_stat *s, struct tp_out *o);
void ts_dur_json(struct ts_stat *s, struct tp_out *o);
/* Merge group src into dst's group g (the same name). */
int ts_dur_merge(struct ts_stat *s, int64_t g, const struct dgroup *src);
void ts_longest_add(struct dgroup *d, const struct longest *l);

/* stat-json.c */
void ts_state_json(const struct ts_stat *s, struct tp_out *o);

#endif
