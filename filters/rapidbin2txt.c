/*
 * rapidbin2txt: RapidBin trace to the tracepipe text stream.
 */
#include <stdint.h>
#include <stdio.h>

#include "driver.h"
#include "formats/rapidbin/rapidbin.h"

static const char help[] =
    "Usage: rapidbin2txt [OPTION]... [FILE]...\n"
    "Decode RapidBin traces (RAPID, Wasmgrind) into trace text, one event\n"
    "per line, after a rapidbin-header record.  FILEs may be gzip-compressed\n"
    "and are decoded in turn; without FILE, or when FILE is -, read\n"
    "standard input.\n"
    "\n"
    "  -s, --strict       apply Wasmgrind's rules: the header's thread, lock\n"
    "                     and variable counts must equal the distinct ids in\n"
    "                     the trace, and its event count the events\n"
    "  -t, --allow-truncated  end quietly at a cut last event (a writer\n"
    "                     stopped in the middle of a word)\n"
    "  -o, --output=FILE  write to FILE instead of standard output\n"
    "  -q, --quiet        no warnings\n"
    "  -v, --verbose      compare the header with the trace and say so\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed or truncated input (after the\n"
    "events before the fault), 2 usage or system error.\n";

static struct rapidbin_dec_opts opts;

int
main(int argc, char **argv)
{
	static struct rapidbin_dec_stats st;
	static const struct tp_option options[] = {
		TP_FLAG("strict", 's', &opts.strict),
		TP_FLAG("allow-truncated", 't', &opts.allow_truncated),
		{ NULL }
	};
	struct tp_job job = { .format = "rapidbin", .dir = TP_DECODE,
	    .help = help, .opts = &opts, .stats = &st,
	    .options = options };
	int first = tp_getopts(&job, argc, argv);

	opts.count = tp_verbosity >= 2;
	return tp_run(&job, argc - first, argv + first);
}
