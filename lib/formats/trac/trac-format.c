/*
 * The x64dbg trace format's registration: its row, its programs' options
 * and help, what trac2txt and txt2trac say after an input.
 */
#include <string.h>

#include "formats/registry.h"
#include "formats/trac/trac.h"

TP_FORMAT_ADAPT(trac)

static void
dec_report(const void *stats, int failed, const struct tp_say *say)
{
	const struct trac_dec_stats *st = stats;

	(void)failed;
	if (st->arch == NULL)
		return;
	if (st->header_len > TRAC_HEADER_WARN)
		tp_say(say, TP_SAY_WARN, "JSON header of %llu bytes: x64dbg "
		    "refuses more than %d", (unsigned long long)st->header_len,
		    TRAC_HEADER_WARN);
	if (st->compression_set)
		tp_say(say, TP_SAY_WARN, "the JSON header names a compression: "
		    "x64dbg has none and reads the blocks as they are, as this "
		    "program does");
	if (st->first_not_full)
		tp_say(say, TP_SAY_WARN, "the first instruction block is not a "
		    "full register dump: x64dbg cannot show it");
	if (st->repaired_tids > 0)
		tp_say(say, TP_SAY_NOTE, "%llu thread id%s written without flag "
		    "0x80 %s repaired (tidstored=noflag)",
		    (unsigned long long)st->repaired_tids,
		    tp_s(st->repaired_tids),
		    st->repaired_tids == 1 ? "was" : "were");
	if (st->truncated_at != TP_NONE)
		tp_say(say, TP_SAY_NOTE, "trace cut at offset 0x%llx "
		    "(--allow-truncated)", (unsigned long long)st->truncated_at);
	tp_say(say, TP_SAY_NOTE, "arch %s: %llu block%s, %llu instruction%s "
	    "(%llu full dump%s), %llu memory access%s, %llu user block%s",
	    st->arch->name, (unsigned long long)st->blocks, tp_s(st->blocks),
	    (unsigned long long)st->insns, tp_s(st->insns),
	    (unsigned long long)st->full_dumps, tp_s(st->full_dumps),
	    (unsigned long long)st->accesses, st->accesses == 1 ? "" : "es",
	    (unsigned long long)st->user_blocks, tp_s(st->user_blocks));
}

static void
enc_report(const void *stats, int failed, const struct tp_say *say)
{
	const struct trac_enc_stats *st = stats;

	if (failed)
		return;
	tp_report_skips(say, &st->skipped);
	if (st->no_opcode > 0)
		tp_say(say, TP_SAY_WARN, "%llu insn record%s without opcode "
		    "bytes %s given nop opcodes (%02x, one per byte of size=, "
		    "else one) (first: line %llu)",
		    (unsigned long long)st->no_opcode, tp_s(st->no_opcode),
		    st->no_opcode == 1 ? "was" : "were", TRAC_NO_OPCODE,
		    (unsigned long long)st->first_no_opcode_line);
	if (st->op_from_mem > 0)
		tp_say(say, TP_SAY_NOTE, "%llu opcode%s taken from the memory "
		    "the stream wrote", (unsigned long long)st->op_from_mem,
		    tp_s(st->op_from_mem));
	if (st->unknown > 0)
		tp_say(say, TP_SAY_WARN, "%llu instruction%s with registers that "
		    "the stream does not give (lines of their thread are "
		    "missing; first: line %llu, %u register%s): their register "
		    "state is a guess (--strict refuses)",
		    (unsigned long long)st->unknown, tp_s(st->unknown),
		    (unsigned long long)st->first_unknown_line,
		    st->first_unknown_regs, tp_s(st->first_unknown_regs));
	if (st->dump_added)
		tp_say(say, TP_SAY_NOTE, "the stream did not start with a full "
		    "register dump: the first instruction was written as one");
	tp_say(say, TP_SAY_NOTE, "%llu record%s: %llu instruction%s, %llu "
	    "memory access%s, %llu user block%s, %llu skipped",
	    (unsigned long long)st->records, tp_s(st->records),
	    (unsigned long long)st->insns, tp_s(st->insns),
	    (unsigned long long)st->accesses, st->accesses == 1 ? "" : "es",
	    (unsigned long long)st->user_blocks, tp_s(st->user_blocks),
	    (unsigned long long)st->skipped.count);
	if (st->insns == 0 && st->user_blocks == 0)
		tp_say(say, TP_SAY_WARN, "no instruction written: the trace is a "
		    "header only (the stream held no insn record)");
}

static int
set_arch(void *target, const char *arg, struct tp_err *err)
{
	struct trac_enc_opts *opts = target;

	if ((opts->arch = trac_arch_find(arg, strlen(arg))) == NULL)
		return tp_fail(err, TP_EXIT_FAIL, "unsupported arch '%s' (x64 "
		    "or x86)", arg);
	return 0;
}

static const struct tp_option dec_options[] = {
	TP_OPTION_FLAG("allow-truncated", 't', struct trac_dec_opts,
	    allow_truncated, "end quietly at a cut last block (a recording "
	    "still being written)"),
	TP_OPTION_FLAG("repair-tid", 'r', struct trac_dec_opts, repair_tid,
	    "read files of x64dbg builds before PR #3920, which write a "
	    "thread id without flag 0x80 after a thread switch"),
	{ NULL }
};

static const struct tp_option enc_options[] = {
	TP_OPTION_SET("arch", 'a', "ARCH", set_arch, "x64 (default) or x86, "
	    "for a stream without a trac-header record"),
	TP_OPTION_STRICT(struct trac_enc_opts, "a trace file"),
	{ NULL }
};

const struct tp_format tp_format_trac = {
	TP_FORMAT_MODULE(trac),
	.desc = "an x64dbg trace (TRAC)",
	.exts = ".trace64 .trace32",
	.split = trac_split,
	.dec.about =
	    "Decode x64dbg trace files (*.trace64, *.trace32) into trace text: a\n"
	    "trac-header record, then one insn record per instruction followed by\n"
	    "its read and write records, and trac-user records for user blocks.\n"
	    "FILEs may be gzip-compressed and are decoded in turn; without FILE, or\n"
	    "when FILE is -, read standard input.\n",
	.dec.options = dec_options,
	.dec.report = dec_report,
	.enc.about =
	    "Encode trace text into an x64dbg trace file: trac-header, insn, read,\n"
	    "write, trac-user and trac-user-data records, as trac2txt writes them,\n"
	    "or insn, read and write records of other decoders.  FILE may be\n"
	    "gzip-compressed; without FILE, or when FILE is -, read standard input.\n",
	.enc.options = enc_options,
	.enc.report = enc_report,
};
