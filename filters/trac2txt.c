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
		tp_note("%llu thread id%s written without flag 0x80 %s "
		    "repaired (tidstored=noflag)",
		    (unsigned long long)st->repaired_tids,
		    tp_s(st->repaired_tids),
		    st->repaired_tids == 1 ? "was" : "were");
	if (st->truncated_at != TP_NONE)
		tp_note("trace cut at offset 0x%llx (--allow-truncated)",
		    (unsigned long long)st->truncated_at);
	tp_note("arch %s: %llu block%s, %llu instruction%s (%llu full "
	    "dump%s), %llu memory access%s, %llu user block%s", st->arch->name,
	    (unsigned long long)st->blocks, tp_s(st->blocks),
	    (unsigned long long)st->insns, tp_s(st->insns),
	    (unsigned long long)st->full_dumps, tp_s(st->full_dumps),
	    (unsigned long long)st->accesses, st->accesses == 1 ? "" : "es",
	    (unsigned long long)st->user_blocks, tp_s(st->user_blocks));
}

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
	    .help = help, .opts = &opts, .stats = &st, .report = report,
	    .options = options };

	return tp_main(&job, argc, argv);
}
