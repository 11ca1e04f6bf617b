/*
 * std2txt: RAPID's STD text format to the tracepipe text stream.
 */
#include <stdio.h>

#include "driver.h"
#include "formats/std/std.h"

static const char help[] =
    "Usage: std2txt [OPTION]... [FILE]...\n"
    "Read RAPID STD traces (T0|acq(L3)|362, or the bare-number flavour\n"
    "T0|acq(3)|362) and write trace text, one RapidBin event per line.\n"
    "FILEs are read in turn; without FILE, or when FILE is -, read\n"
    "standard input.\n"
    "\n"
    "  -o, --output=FILE  write to FILE instead of standard output\n"
    "  -q, --quiet        no warnings\n"
    "  -v, --verbose      more messages\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed input (after the lines before\n"
    "the fault), 2 usage or system error.\n";

int
main(int argc, char **argv)
{
	static struct std_dec_opts opts;
	static struct std_dec_stats st;
	struct tp_job job = { .format = "std", .dir = TP_DECODE,
	    .help = help, .opts = &opts, .stats = &st };

	return tp_main(&job, argc, argv);
}
