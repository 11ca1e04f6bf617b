/*
 * txt2std: the tracepipe text stream to RAPID's STD text format.
 */
#include <stdio.h>

#include "driver.h"
#include "formats/std/std.h"

static const char help[] =
    "Usage: txt2std [OPTION]... [FILE]\n"
    "Write the RapidBin events of trace text in RAPID's STD format\n"
    "(T0|acq(L3)|362).  Request and branch events, which mainline RAPID\n"
    "cannot parse, are dropped and counted unless kept.  Without FILE, or\n"
    "when FILE is -, read standard input.\n"
    "\n"
    "  -r, --keep-request  write request events as req(L<n>)\n"
    "  -a, --all           keep request and branch events\n"
    "  -o, --output=FILE   write to FILE instead of standard output\n"
    "  -q, --quiet         no warnings\n"
    "  -v, --verbose       also report what STD cannot carry\n"
    "  -h, --help          show this help and exit\n"
    "  -V, --version       show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed input (after the lines before\n"
    "the fault), 2 usage or system error.\n";

static void
report(const void *stats, int failed)
{
	const struct std_enc_stats *st = stats;

	if (failed)
		return;
	if (st->requests > 0)
		tp_warn("dropped %llu request event%s (mainline RAPID cannot "
		    "parse req; --keep-request keeps them)",
		    (unsigned long long)st->requests, tp_s(st->requests));
	if (st->branches > 0)
		tp_warn("dropped %llu branch event%s (mainline RAPID cannot "
		    "parse branch; --all keeps them)",
		    (unsigned long long)st->branches, tp_s(st->branches));
	tp_warn_skips(&st->skipped);
	if (st->events == 0)
		tp_warn("no event written: the output is empty (the stream "
		    "held no event record%s)", st->requests + st->branches > 0 ?
		    " that is kept by default" : "");
	if (st->lossy > 0)
		tp_note("%llu event%s bit63= or decor=, which STD cannot "
		    "express", (unsigned long long)st->lossy,
		    st->lossy == 1 ? " carries" : "s carry");
}

static struct std_enc_opts opts;

static void
set_all(const char *arg)
{
	(void)arg;
	opts.keep_branch = opts.keep_request = 1;
}

int
main(int argc, char **argv)
{
	static struct std_enc_stats st;
	static const struct tp_option options[] = {
		TP_FLAG("keep-request", 'r', &opts.keep_request),
		TP_CALL("all", 'a', set_all),
		{ NULL }
	};
	struct tp_job job = { .format = "std", .dir = TP_ENCODE,
	    .help = help, .opts = &opts, .stats = &st, .report = report,
	    .options = options };

	return tp_main(&job, argc, argv);
}
