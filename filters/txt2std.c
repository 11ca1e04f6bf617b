/*
 * txt2std: the tracepipe text stream to RAPID's STD text format.
 */
#include <stdio.h>

#include "diag.h"
#include "input.h"
#include "opts.h"
#include "output.h"
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

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ "keep-request", no_argument, NULL, 'r' },
		{ "all", no_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 }
	};
	struct rs_opts opts = { 0, 0 };
	struct tp_common com = { NULL };
	struct tr_reader r;
	struct rs_stats st;
	struct tp_err err;
	struct tp_out out;
	struct tp_in in;
	const char *path;
	int c, rc;

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

	tp_err_clear(&err);
	if (tp_in_open(&in, path, &err) < 0) {
		tp_err_print(&err, in.name);
		tp_in_close(&in);
		return TP_EXIT_FAIL;
	}
	tr_init(&r, &in);
	tp_out_open(&out, com.output, 0);
	rc = rs_txt2std(&r, &out, &opts, &st);
	if (tp_in_close(&in) < 0)
		rc = -1;
	tp_out_close(&out, rc == 0 || err.status == TP_EXIT_DATA);
	if (rc < 0)
		tp_err_print(&err, in.name);
	else
		report(&st);
	return rc < 0 ? err.status : TP_EXIT_OK;
}
