/*
 * txt2chrome: the trace text stream as a Chrome trace (JSON), for
 * Perfetto UI, chrome://tracing and speedscope.
 */
#include <stdlib.h>

#include "tools/chrome.h"
#include "diag.h"
#include "driver.h"
#include "opts.h"

static const char about[] =
    "Write a trace text stream as a Chrome trace (Trace Event Format JSON)\n"
    "for Perfetto UI, chrome://tracing and speedscope: one track per\n"
    "thread, begin..end and acquire..release as slices, fork and join as\n"
    "arrows, events as instants or, where they pair (FooStart..FooEnd,\n"
    "dial9's PollStartEvent..PollEndEvent, WTF's scope..wtf.scope#leave), as\n"
    "slices.  Without ts (RapidBin, x64dbg) a record's position is its time.\n"
    "Without FILE, or when FILE is -, read standard input.\n";

static struct tc_opts opts = { 4096 };
static struct tc_stats st;

static int
run(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	struct tr_reader r;

	(void)ctx;
	(void)err;
	tr_init(&r, in);
	return tc_convert(&r, out, &opts, &st);
}

static int
set_insn_range(void *target, const char *arg, struct tp_err *err)
{
	unsigned long long v;

	if (tp_option_bytes("--insn-range", arg, &v, err) < 0)
		return -1;
	((struct tc_opts *)target)->insn_range = v;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct tp_option options[] = {
		TP_OPTION_SET("insn-range", 'r', "BYTES", set_insn_range,
		    "one slice per run of instructions of a thread within one "
		    "aligned range of BYTES (default 4096)"),
		{ NULL }
	};
	const struct tp_optset sets[] = { { options, &opts, NULL } };
	struct tp_program p = { .about = about, .exit1 = "malformed input "
	    "(the trace is closed after the records before the fault)",
	    .single = 1, .sets = sets, .nsets = 1 };
	int first = tp_parse(&p, argc, argv), status;
	struct tp_each each = { p.output, 0, TP_EACH_TEXT, run, NULL, NULL, NULL };

	status = tp_run_each(&each, argc - first, argv + first);
	if (st.position_time && st.records > 0)
		tp_note("no ts in the stream: a record's position is its time "
		    "(1 record = 1 us)");
	tp_note("%llu records, %llu trace events, %llu skipped, %llu ends "
	    "without a begin, %llu slices unfinished",
	    (unsigned long long)st.records, (unsigned long long)st.events,
	    (unsigned long long)st.skipped, (unsigned long long)st.unmatched,
	    (unsigned long long)st.unfinished);
	return status;
}
