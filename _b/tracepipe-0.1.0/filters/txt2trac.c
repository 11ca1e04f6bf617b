/*
 * txt2trac: the tracepipe text stream to an x64dbg trace file (TRAC).
 */
#include <stdio.h>
#include <string.h>

#include "prog.h"
#include "trac.h"

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
	if (st->skipped > 0)
		tp_warn("%llu records skipped that an x64dbg trace cannot hold "
		    "(first: line %llu, %s)", (unsigned long long)st->skipped,
		    (unsigned long long)st->first_skip_line, st->first_skip);
	if (st->no_opcode > 0)
		tp_warn("%llu insn records without opcode bytes were given the "
		    "one-byte opcode %02x (nop) (first: line %llu)",
		    (unsigned long long)st->no_opcode, TRAC_NO_OPCODE,
		    (unsigned long long)st->first_no_opcode_line);
	if (st->dump_added)
		tp_note("the stream did not start with a full register dump: "
		    "the first instruction was written as one");
	tp_note("%llu records: %llu instructions, %llu memory accesses, "
	    "%llu user blocks, %llu skipped", (unsigned long long)st->records,
	    (unsigned long long)st->insns, (unsigned long long)st->accesses,
	    (unsigned long long)st->user_blocks,
	    (unsigned long long)st->skipped);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ "arch", required_argument, NULL, 'a' },
		{ "strict", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	static struct trac_enc_opts opts;
	static struct trac_enc_stats st;
	struct tp_job job = { .format = "trac", .dir = TP_ENCODE,
	    .help = help, .opts = &opts, .stats = &st, .report = report };
	int c;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "a:s", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'a':
			opts.arch = trac_arch_find(optarg, strlen(optarg));
			if (opts.arch == NULL)
				tp_usage_error(help, "unsupported arch '%s' "
				    "(x64 or x86)", optarg);
			break;
		case 's':
			opts.strict = 1;
			break;
		default:
			tp_opt_common(c, &job.com, help);
		}
	}
	return tp_run(&job, argc - optind, argv + optind);
}
