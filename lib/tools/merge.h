/*
 * txtmerge's engine: N trace text streams, each sorted by ts, into one in
 * ts order, as mergecap and babeltrace's muxer do.  A heap over the
 * inputs holds one pending record each, so memory does not grow with the
 * inputs' length.  Ties go to the input named first.  A line without ts
 * (comment, blank, structure record) stays after the record of its own
 * input that it followed: it is written as soon as that record is.
 * The time of a record is the ts of a record of a shared kind: a format's
 * structure records (dial9-schema's ts= is a flag, wtf-define carries the
 * time it was written) stay in place like lines without ts.
 *
 * Inputs that are not sorted (dial9 threads write their buffers in
 * batches) are sorted first with sort: each input is cut into runs of
 * about run_bytes, each run sorted by ts (stable, a record with the lines
 * that follow it) into an unlinked temporary file in $TMPDIR, and the
 * runs are merged as inputs are, so memory holds one run at a time.
 * As sort(1) does, the runs of an input are merged TM_FANIN at a time
 * into one longer run whenever that many of one length are there, so
 * open files and read buffers stay few however long the input.
 */
#ifndef TP_MERGE_H
#define TP_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/idmap.h"
#include "io/input.h"
#include "io/output.h"
#include "text/text.h"

struct tm_input {
	struct tp_in in;	/* opened by the caller */
	struct tr_reader r;
	size_t origin;		/* the FILE it comes from (runs: sorted part) */
	char *line;		/* the pending timed record */
	size_t len;
	uint64_t ts;		/* its ts */
	uint64_t prev_ts;	/* the ts of the timed record before it */
	int started;		/* a timed record was read */
	char *held;		/* runs: the lines without time before it */
	size_t heldlen, heldcap;
	unsigned level;		/* runs: merged from TM_FANIN^level cuts */
	uint64_t tail_first;	/* runs: lines after the input's last record */
	uint64_t tail_last;	/* (0, 0: none) */
	uint64_t backwards;	/* records whose ts is below the one before */
	uint64_t first_back_line, first_back_ts, first_back_prev;
};

struct tm_opts {
	int tag;		/* add input=INDEX to every record */
	int renumber;		/* make tids of different inputs distinct
				   (and tag, as the encoders need) */
	int sort_check;		/* a record back in time is an error */
	int sort;		/* sort each input first */
	size_t run_bytes;	/* text of one sorted run (0: TM_RUN_BYTES) */
};

#define TM_RUN_BYTES (64u << 20)
/* Sorted runs of one input merged into one when there are this many. */
#define TM_FANIN 16

struct tm_merge {
	struct tm_opts opts;
	struct tm_input *in;
	size_t n;
	struct tm_input *runs;	/* with sort: the sorted runs, merged */
	size_t nruns;
	int units;		/* lines without ts wait for the record after */
	size_t *heap;		/* input indexes, by (ts, index) */
	size_t nheap;
	struct idmap assign;	/* (input, tid) -> slot in newtid */
	struct idmap used;	/* tids handed out */
	uint64_t *newtid;
	size_t newtid_cap;
	uint64_t max_tid;
	uint64_t records;	/* lines written */
	uint64_t renumbered;	/* tids that got a new number */
	size_t failed;		/* the FILE err is about, or n */
};

/*
 * Merge the n inputs (in[i].in open) onto out.  0, or -1 with err filled
 * and m->failed naming the input (n when the error is not an input's).
 */
int tm_merge(struct tm_merge *m, struct tm_input *in, size_t n,
    const struct tm_opts *opts, struct tp_out *out, struct tp_err *err);

void tm_free(struct tm_merge *m);

#endif
