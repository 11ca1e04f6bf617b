/*
 * txt2std: the tracepipe text stream to RAPID's STD text format.
 */
#include <stdio.h>

#include "prog.h"
#include "rapidstd.h"

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
		tp_warn("dropped %llu request events (mainline RAPID cannot "
		    "parse req; --keep-request keeps them)",
		    (unsigned long long)st->requests);
	if (st->branches > 0)
		tp_warn("dropped %llu branch events (mainline RAPID cannot "
		    "parse branch; --all keeps them)",
		    (unsigned long long)st->branches);
	if (st->skipped > 0)
		tp_warn("skipped %llu records without a RapidBin meaning "
		    "(the first: \"%s\" at line %llu)",
		    (unsigned long long)st->skipped, st->first_skipped_kind,
		    (unsigned long long)st->first_skipped_line);
	if (st->lossy > 0)
		tp_note("%llu events carry bit63= or decor=, which STD cannot "
		    "express", (unsigned long long)st->lossy);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ "keep-request", no_argument, NULL, 'r' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	static struct std_enc_opts opts;
	static struct std_enc_stats st;
	struct tp_job job = { .format = "std", .dir = TP_ENCODE,
	    .help = help, .opts = &opts, .stats = &st, .report = report };
	int c;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "ra",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			opts.keep_branch = 1;
			/* FALLTHROUGH */
		case 'r':
			opts.keep_request = 1;
			break;
		default:
			tp_opt_common(c, &job.com, help);
		}
	}
	return tp_run(&job, argc - optind, argv + optind);
}
