/*
 * txt2std: the tracepipe text stream to RAPID's STD text format.
 */
#include <stdio.h>

#include "diag.h"
#include "input.h"
#include "opts.h"
#include "output.h"
#include "prog.h"
#include "rapidstd.h"
#include "text.h"

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
report(const struct rs_stats *st)
{
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

static struct rs_opts opts = { 0, 0 };
static struct rs_stats st;

static int
run(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	struct tr_reader r;

	(void)ctx;
	(void)err;		/* the reader reports into the input's err */
	tr_init(&r, in);
	return rs_txt2std(&r, out, &opts, &st);
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
	struct tp_common com = { NULL };
	struct tp_err err;
	const char *path;
	int c, status;

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
			tp_opt_common(c, &com, help);
		}
	}
	path = tp_opt_input(argc, argv, help);

	status = tp_convert(path, com.output, TP_KEEP_PREFIX, run, NULL, &err);
	if (status == TP_EXIT_OK)
		report(&st);
	return status;
}
