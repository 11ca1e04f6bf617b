/*
 * One-pass summary of trace text streams (txtstat), as a pure module:
 * records are added one by one, the report is written to an output
 * object at the end.
 *
 * Memory grows with the distinct keys counted only (threads, kinds, event
 * names, data and code addresses, locks, lock-thread pairs, fork and join
 * edges, --by values), about 60 bytes per key.  Each table keeps at most
 * max_keys keys; past that, its distinct count is an estimate (about
 * 1.6 % standard error, distinct.h) and its per-key figures cover the
 * keys kept; the report says so.
 */
#ifndef TP_STAT_H
#define TP_STAT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "io/output.h"
#include "text/text.h"

struct tf_filter;

#define TS_MAX_KEYS_DEFAULT (1u << 16)

struct ts_opts {
	size_t top;		/* rows per table; 0: all */
	size_t max_keys;	/* per table */
	const char *by;		/* --by FIELD: only a count table, or NULL */
	int json;
	int merge;		/* the operands are JSON reports to merge */
	/*
	 * Only the records this selection keeps (txtfilter's, so --ts means
	 * what txtfilter --ts means: structure records are kept), or NULL.
	 */
	const struct tf_filter *select;
};

struct ts_stat;

struct ts_stat *ts_new(const struct ts_opts *o);
void ts_free(struct ts_stat *s);

/*
 * Add every record of one input.  Returns 0, or -1 with r->err filled (a
 * malformed line, or a shared field (tid, ts, seq, pc, addr, var, loc,
 * lock, child) that holds no number, or out of memory).
 */
int ts_add_input(struct ts_stat *s, struct tr_reader *r);

/*
 * Write the report: of one FILE among several (file names it), of the
 * total of files inputs (files > 0), or of the only input (NULL, 0).
 */
void ts_report(struct ts_stat *s, struct tp_out *o, const char *file,
    size_t files);

/*
 * Add the summary src of the text that follows dst's: the result is the
 * summary of both texts in turn (exact where both were, slices open at
 * dst's end paired with the ends src could not pair).  0, or -1 out of
 * memory.
 */
int ts_merge(struct ts_stat *dst, const struct ts_stat *src);

/*
 * A summary from the JSON report p[0..n) that txtstat --json wrote (its
 * last object when there are several): NULL with err filled when it is
 * none.  o: the options of the report to write.
 */
struct ts_stat *ts_load_json(const struct ts_opts *o, const char *p,
    size_t n, struct tp_err *err);

#endif
