/*
 * ucir2txt: Usercorn trace (UCIR) to the tracepipe text stream.
 */
#include <stdio.h>
#include <stdlib.h>

#include "driver.h"
#include "formats/ucir/ucir.h"

static const char help[] =
    "Usage: ucir2txt [OPTION]... [FILE]...\n"
    "Decode a Usercorn trace into trace text: a ucir-header record, then a\n"
    "ucir-frame record per frame followed by its ops: insn, read, write,\n"
    "ucir-reg, ucir-spreg, ucir-map, ucir-unmap, ucir-syscall (its ops carry\n"
    "depth=), ucir-exit, ucir-nop, and for usercorn's trace format ucir-jmp\n"
    "and ucir-prot.  Reads the replay format (zlib frames, big-endian) and\n"
    "the format `usercorn run -trace` writes (Snappy, little-endian).  FILEs\n"
    "may be gzip-compressed and are decoded in turn; without FILE, or when\n"
    "FILE is -, read standard input.\n"
    "\n"
    "  -m, --max-frame=BYTES  refuse frames and ops larger than BYTES,\n"
    "                         compressed or inflated (default 64 MiB)\n"
    "  -c, --check-level      also try the zlib level of frames whose header\n"
    "                         allows only one, and count those it does not\n"
    "                         reproduce (-v shows the count)\n"
    "  -o, --output=FILE      write to FILE instead of standard output\n"
    "  -q, --quiet            no warnings\n"
    "  -v, --verbose          say what was decoded\n"
    "  -h, --help             show this help and exit\n"
    "  -V, --version          show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed or truncated input (after the\n"
    "records of the frames before the fault), 2 usage or system error.\n";

static struct ucir_dec_opts opts;

static void
set_max_frame(const char *arg)
{
	opts.max_frame = (size_t)tp_opt_number(help, "--max-frame", arg, 1,
	    1ull << 32);
}

int
main(int argc, char **argv)
{
	static struct ucir_dec_stats st;
	static const struct tp_option options[] = {
		TP_ARG("max-frame", 'm', set_max_frame),
		TP_FLAG("check-level", 'c', &opts.verify_level),
		{ NULL }
	};
	struct tp_job job = { .format = "ucir", .dir = TP_DECODE,
	    .help = help, .opts = &opts, .stats = &st,
	    .options = options };

	return tp_main(&job, argc, argv);
}
