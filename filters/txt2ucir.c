/*
 * txt2ucir: the tracepipe text stream to a Usercorn replay file (UCIR).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "formats/ucir/ucir.h"

static const char help[] =
    "Usage: txt2ucir [OPTION]... [FILE]\n"
    "Encode trace text into a Usercorn replay file: ucir-header, ucir-frame,\n"
    "insn, read, write and the other ucir- records, as ucir2txt writes them,\n"
    "or insn, read and write records of other decoders.  Ops before any\n"
    "ucir-frame record are framed here.  FILE may be gzip-compressed; without\n"
    "FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -a, --arch=ARCH       header arch when the stream has no ucir-header:\n"
    "                        x86_64 (default), x86, x86_16, arm, arm64, mips,\n"
    "                        sparc, m68k\n"
    "  -O, --os=OS           header os then (default linux)\n"
    "  -l, --level=N         zlib level 0-9 of the frames made here (6)\n"
    "  -n, --frame-ops=N     ops per frame made here (4096)\n"
    "  -m, --max-frame=BYTES refuse frames larger than BYTES (64 MiB)\n"
    "  -s, --strict          a record a replay file cannot hold is an error\n"
    "                        (by default it is skipped and counted)\n"
    "  -o, --output=FILE     write to FILE (replaced only on success)\n"
    "  -q, --quiet           no warnings\n"
    "  -v, --verbose         say what was encoded\n"
    "  -h, --help            show this help and exit\n"
    "  -V, --version         show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed input, 2 usage or system error.\n";

static void
report(const void *stats, int failed)
{
	const struct ucir_enc_stats *st = stats;

	if (failed)
		return;
	tp_warn_skips(&st->skipped);
	if (st->unnested > 0)
		tp_warn("%llu records with depth= whose syscall is not in the "
		    "stream were placed one level up",
		    (unsigned long long)st->unnested);
	if (st->header_made)
		tp_note("the stream has no ucir-header: one was written");
	tp_note("%llu records: %llu frames (%llu made here), %llu ops, "
	    "%llu skipped", (unsigned long long)st->records,
	    (unsigned long long)st->frames, (unsigned long long)st->frames_made,
	    (unsigned long long)st->ops, (unsigned long long)st->skipped.count);
}

static struct ucir_enc_opts opts;

static void
set_arch(const char *arg)
{
	if (ucir_regs_find(arg, strlen(arg)) == NULL ||
	    strlen(arg) > UCIR_NAME_LEN)
		tp_usage_error(help, "unsupported arch '%s'", arg);
	opts.arch = arg;
}

static void
set_os(const char *arg)
{
	if (strlen(arg) > UCIR_NAME_LEN)
		tp_usage_error(help, "os name longer than %d bytes",
		    UCIR_NAME_LEN);
	opts.os = arg;
}

static void
set_level(const char *arg)
{
	opts.level_plus1 = (int)tp_opt_number(help, "--level", arg, 0, 9) + 1;
}

static void
set_frame_ops(const char *arg)
{
	opts.frame_ops = (unsigned)tp_opt_number(help, "--frame-ops", arg, 1,
	    UINT32_MAX);
}

static void
set_max_frame(const char *arg)
{
	opts.max_frame = (size_t)tp_opt_number(help, "--max-frame", arg, 1,
	    1ull << 32);
}

int
main(int argc, char **argv)
{
	static struct ucir_enc_stats st;
	static const struct tp_option options[] = {
		TP_ARG("arch", 'a', set_arch),
		TP_ARG("os", 'O', set_os),
		TP_ARG("level", 'l', set_level),
		TP_ARG("frame-ops", 'n', set_frame_ops),
		TP_ARG("max-frame", 'm', set_max_frame),
		TP_FLAG("strict", 's', &opts.strict),
		{ NULL }
	};
	struct tp_job job = { .format = "ucir", .dir = TP_ENCODE,
	    .help = help, .opts = &opts, .stats = &st, .report = report,
	    .options = options };

	return tp_main(&job, argc, argv);
}
