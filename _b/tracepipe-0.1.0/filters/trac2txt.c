/*
 * trac2txt: x64dbg trace file (TRAC) to the tracepipe text stream.
 */
#include <stdio.h>

#include "prog.h"
#include "trac.h"

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

static void
report(const void *stats, int failed)
{
	const struct trac_dec_stats *st = stats;

	(void)failed;
	if (st->arch == NULL)
		return;
	if (st->header_len > TRAC_HEADER_WARN)
		tp_warn("JSON header of %llu bytes: x64dbg refuses more than %d",
		    (unsigned long long)st->header_len, TRAC_HEADER_WARN);
	if (st->compression_set)
		tp_warn("the JSON header names a compression: x64dbg has none "
		    "and reads the blocks as they are, as this program does");
	if (st->first_not_full)
		tp_warn("the first instruction block is not a full register "
		    "dump: x64dbg cannot show it");
	if (st->repaired_tids > 0)
		tp_note("%llu thread ids written without flag 0x80 were "
		    "repaired (tidstored=noflag)",
		    (unsigned long long)st->repaired_tids);
	if (st->truncated_at != TP_NONE)
		tp_note("trace cut at offset 0x%llx (--allow-truncated)",
		    (unsigned long long)st->truncated_at);
	tp_note("arch %s: %llu blocks, %llu instructions (%llu full dumps), "
	    "%llu memory accesses, %llu user blocks", st->arch->name,
	    (unsigned long long)st->blocks, (unsigned long long)st->insns,
	    (unsigned long long)st->full_dumps,
	    (unsigned long long)st->accesses,
	    (unsigned long long)st->user_blocks);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ "allow-truncated", no_argument, NULL, 't' },
		{ "repair-tid", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	static struct trac_dec_opts opts;
	static struct trac_dec_stats st;
	struct tp_job job = { .format = "trac", .dir = TP_DECODE,
	    .help = help, .opts = &opts, .stats = &st, .report = report };
	int c;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "tr", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 't':
			opts.allow_truncated = 1;
			break;
		case 'r':
			opts.repair_tid = 1;
			break;
		default:
			tp_opt_common(c, &job.com, help);
		}
	}
	return tp_run(&job, argc - optind, argv + optind);
}
