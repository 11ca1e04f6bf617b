/*
 * txt2trac: the tracepipe text stream to an x64dbg trace file (TRAC).
 */
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "formats/trac/trac.h"

static const char help[] =
    "Usage: txt2trac [OPTION]... [FILE]\n"
    "Encode trace text into an x64dbg trace file: trac-header, insn, read,\n"
    "write, trac-user and trac-user-data records, as trac2txt writes them,\n"
    "or insn, read and write records of other decoders.  FILE may be\n"
    "gzip-compressed; without FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -a, --arch=ARCH    x64 (default) or x86, for a stream without a\n"
    "                     trac-header record\n"
    "  -s, --strict       a record a trace file cannot hold is an error\n"
    "                     (by default it is skipped and counted)\n"
    "  -o, --output=FILE  write to FILE (replaced only on success)\n"
    "  -q, --quiet        no warnings\n"
    "  -v, --verbose      say what was encoded\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed input, 2 usage or system error.\n";

static void
report(const void *stats, int failed)
{
	const struct trac_enc_stats *st = stats;

	if (failed)
		return;
	tp_warn_skips(&st->skipped);
	if (st->no_opcode > 0)
		tp_warn("%llu insn record%s without opcode bytes %s given the "
		    "one-byte opcode %02x (nop) (first: line %llu)",
		    (unsigned long long)st->no_opcode, tp_s(st->no_opcode),
		    st->no_opcode == 1 ? "was" : "were", TRAC_NO_OPCODE,
		    (unsigned long long)st->first_no_opcode_line);
	if (st->unknown > 0)
		tp_warn("%llu instruction%s with registers that the stream does "
		    "not give (lines of their thread are missing; first: line "
		    "%llu, %u register%s): their register state is a guess "
		    "(--strict refuses)", (unsigned long long)st->unknown,
		    tp_s(st->unknown),
		    (unsigned long long)st->first_unknown_line,
		    st->first_unknown_regs, tp_s(st->first_unknown_regs));
	if (st->dump_added)
		tp_note("the stream did not start with a full register dump: "
		    "the first instruction was written as one");
	tp_note("%llu record%s: %llu instruction%s, %llu memory access%s, "
	    "%llu user block%s, %llu skipped", (unsigned long long)st->records,
	    tp_s(st->records), (unsigned long long)st->insns,
	    tp_s(st->insns), (unsigned long long)st->accesses,
	    st->accesses == 1 ? "" : "es", (unsigned long long)st->user_blocks,
	    tp_s(st->user_blocks), (unsigned long long)st->skipped.count);
	if (st->insns == 0 && st->user_blocks == 0)
		tp_warn("no instruction written: the trace is a header only "
		    "(the stream held no insn record)");
}

static struct trac_enc_opts opts;

static void
set_arch(const char *arg)
{
	if ((opts.arch = trac_arch_find(arg, strlen(arg))) == NULL)
		tp_usage_error(help, "unsupported arch '%s' (x64 or x86)", arg);
}

int
main(int argc, char **argv)
{
	static struct trac_enc_stats st;
	static const struct tp_option options[] = {
		TP_ARG("arch", 'a', set_arch),
		TP_FLAG("strict", 's', &opts.strict),
		{ NULL }
	};
	struct tp_job job = { .format = "trac", .dir = TP_ENCODE,
	    .help = help, .opts = &opts, .stats = &st, .report = report,
	    .options = options };

	return tp_main(&job, argc, argv);
}
