/*
 * txt2chrome: the trace text stream as a Chrome trace (JSON), for
 * Perfetto UI, chrome://tracing and speedscope.
 */
#include <stdlib.h>

#include "tools/chrome.h"
#include "diag.h"
#include "opts.h"
#include "driver.h"

static const char help[] =
    "Usage: txt2chrome [OPTION]... [FILE]\n"
    "Write a trace text stream as a Chrome trace (Trace Event Format JSON)\n"
    "for Perfetto UI, chrome://tracing and speedscope: one track per\n"
    "thread, begin..end and acquire..release as slices, fork and join as\n"
    "arrows, events as instants or, where they pair (FooStart..FooEnd,\n"
    "dial9's PollStartEvent..PollEndEvent, WTF's scope..wtf.scope#leave), as\n"
    "slices.  Without ts (RapidBin, x64dbg) a record's position is its time.\n"
    "Without FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -r, --insn-range=BYTES  one slice per run of instructions of a thread\n"
    "                      within one aligned range of BYTES (default 4096)\n"
    "  -o, --output=FILE   write to FILE instead of standard output\n"
    "  -q, --quiet         no warnings\n"
    "  -v, --verbose       report the counts on standard error\n"
    "  -h, --help          show this help and exit\n"
    "  -V, --version       show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed input (the trace is closed after\n"
    "the records before the fault), 2 usage or system error.\n";

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

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ "insn-range", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	struct tp_common com = { NULL };
	struct tp_each each = { NULL, 0, run, NULL, NULL, NULL };
	char *end;
	int c, status;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "r:", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'r':
			opts.insn_range = strtoull(optarg, &end, 0);
			if (*end != '\0' || opts.insn_range == 0 || *optarg == '-')
				tp_usage_error(help, "--insn-range: '%s' is not a "
				    "positive number of bytes", optarg);
			break;
		default:
			tp_opt_common(c, &com, help);
		}
	}
	tp_opt_input(argc, argv, help);
	each.output = com.output;
	status = tp_run_each(&each, argc - optind, argv + optind);
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
