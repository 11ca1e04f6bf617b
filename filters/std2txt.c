/*
 * std2txt: RAPID's STD text format to the tracepipe text stream.
 */
#include <stdio.h>

#include "diag.h"
#include "input.h"
#include "opts.h"
#include "output.h"
#include "prog.h"
#include "rapidstd.h"

static const char help[] =
    "Usage: std2txt [OPTION]... [FILE]\n"
    "Read a RAPID STD trace (T0|acq(L3)|362, or the bare-number flavour\n"
    "T0|acq(3)|362) and write trace text, one RapidBin event per line.\n"
    "Without FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -o, --output=FILE  write to FILE instead of standard output\n"
    "  -q, --quiet        no warnings\n"
    "  -v, --verbose      more messages\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed input (after the lines before\n"
    "the fault), 2 usage or system error.\n";

static struct rs_stats st;

static int
run(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	(void)ctx;
	return rs_std2txt(in, out, &st, err);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct tp_common com = { NULL };
	struct tp_err err;
	const char *path;
	int c, status;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS, longopts,
	    NULL)) != -1)
		tp_opt_common(c, &com, help);
	path = tp_opt_input(argc, argv, help);

	status = tp_convert(path, com.output, TP_KEEP_PREFIX, run, NULL, &err);
	tp_note("%llu events", (unsigned long long)st.events);
	return status;
}
