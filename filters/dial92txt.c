/*
 * dial92txt: dial9-trace-format (tokio runtime telemetry) to the
 * tracepipe text stream.
 */
#include <stdio.h>

#include "formats/dial9/dial9.h"
#include "driver.h"

static const char help[] =
    "Usage: dial92txt [OPTION]... [FILE]...\n"
    "Decode dial9 traces (dial9-trace-format, TRC) into trace text: one\n"
    "record per frame: dial9-header at each segment, dial9-schema,\n"
    "dial9-strings, dial9-stacks, dial9-reset, dial9-annotations, and one\n"
    "event record per event with its schema name, absolute ts, tid and\n"
    "every field by name.  FILEs may be gzip-compressed and are decoded in\n"
    "turn; without FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -l, --lenient      stop quietly at the first frame that does not\n"
    "                     decode, as upstream's frame iterator does\n"
    "  -o, --output=FILE  write to FILE instead of standard output\n"
    "  -q, --quiet        no warnings\n"
    "  -v, --verbose      say what was decoded\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed or truncated input (after the\n"
    "records before the fault), 2 usage or system error.\n";

int
main(int argc, char **argv)
{
	static struct dial9_dec_opts opts;
	static struct dial9_dec_stats st;
	static const struct tp_option options[] = {
		TP_FLAG("lenient", 'l', &opts.lenient),
		{ NULL }
	};
	struct tp_job job = { .format = "dial9", .dir = TP_DECODE,
	    .help = help, .opts = &opts, .stats = &st,
	    .options = options };

	return tp_main(&job, argc, argv);
}
