/*
 * txt2chrome's engine: the trace text stream as the Chrome Trace Event
 * Format (the JSON that Perfetto UI, chrome://tracing and speedscope
 * open).  One track per thread (pid from input=, tid from tid=); begin
 * and end, acquire and release of a lock, and events that pair by name
 * (FooStart/FooEnd, PollStartEvent/PollEndEvent) or by scope (WTF's
 * scope=N and its #leave) as slices; fork and join as flow arrows; other
 * events as instants with their fields as args; consecutive x64dbg
 * instructions in one address range as one slice.  Streaming: memory
 * holds the unfinished slices and one instruction run per thread.
 */
#ifndef TP_CHROME_H
#define TP_CHROME_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "io/output.h"
#include "text/text.h"

struct tc_opts {
	uint64_t insn_range;	/* bytes of one instruction run's range */
};

struct tc_stats {
	uint64_t records;	/* shared-kind records read */
	uint64_t events;	/* trace events written */
	uint64_t skipped;	/* structure records, comments */
	uint64_t unmatched;	/* ends without a begin */
	uint64_t unfinished;	/* slices still open at the end */
	int position_time;	/* the stream had no ts: time is the position */
};

int tc_convert(struct tr_reader *r, struct tp_out *out,
    const struct tc_opts *opts, struct tc_stats *st);

#endif
