/*
 * wtf2txt: Web Tracing Framework trace (.wtf-trace) to the tracepipe text
 * stream.
 */
#include <stdio.h>

#include "driver.h"
#include "formats/wtf/wtf.h"

static const char help[] =
    "Usage: wtf2txt [OPTION]... [FILE]...\n"
    "Decode Web Tracing Framework traces (*.wtf-trace), legacy binary v3 or\n"
    "chunked v10, into trace text: a wtf-header record, wtf-chunk and\n"
    "wtf-part records (chunked traces), a wtf-define record per event\n"
    "definition and an event record per event, with its zone as tid, ts in\n"
    "nanoseconds and every argument by name.  FILEs may be gzip-compressed\n"
    "and are decoded in turn; without FILE, or when FILE is -, read\n"
    "standard input.\n"
    "\n"
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
	static struct wtf_dec_opts opts;
	static struct wtf_dec_stats st;
	struct tp_job job = { .format = "wtf", .dir = TP_DECODE,
	    .help = help, .opts = &opts, .stats = &st };

	return tp_main(&job, argc, argv);
}
