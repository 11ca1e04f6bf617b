/*
 * trac2txt: x64dbg trace file (TRAC) to the tracepipe text stream.
 */
#include <stdio.h>

#include "driver.h"
#include "formats/trac/trac.h"

static const char help[] =
    "Usage: trac2txt [OPTION]... [FILE]...\n"
    "Decode x64dbg trace files (*.trace64, *.trace32) into trace text: a\n"
    "trac-header record, then one insn record per instruction followed by\n"
    "its read and write records, and trac-user records for user blocks.\n"
    "FILEs may be gzip-compressed and are decoded in turn; without FILE, or\n"
    "when FILE is -, read standard input.\n"
    "\n"
    "  -t, --allow-truncated  end quietly at a cut last block (a recording\n"
    "                         still being written)\n"
    "  -r, --repair-tid       read files of x64dbg builds before PR #3920,\n"
    "                         which write a thread id without flag 0x80\n"
    "                         after a thread switch\n"
    "  -o, --output=FILE      write to FILE instead of standard output\n"
    "  -q, --quiet            no warnings\n"
    "  -v, --verbose          say what was decoded\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed or truncated input (after the\n"
    "records before the fault), 2 usage or system error.\n";

int
main(int argc, char **argv)
{
	static struct trac_dec_opts opts;
	static struct trac_dec_stats st;
	static const struct tp_option options[] = {
		TP_FLAG("allow-truncated", 't', &opts.allow_truncated),
		TP_FLAG("repair-tid", 'r', &opts.repair_tid),
		{ NULL }
	};
	struct tp_job job = { .format = "trac", .dir = TP_DECODE,
	    .help = help, .opts = &opts, .stats = &st,
	    .options = options };

	return tp_main(&job, argc, argv);
}
