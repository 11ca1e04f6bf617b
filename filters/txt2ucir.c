/*
 * txt2ucir: the tracepipe text stream to a Usercorn replay file (UCIR).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "input.h"
#include "opts.h"
#include "output.h"
#include "prog.h"
#include "text.h"
#include "ucir.h"

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

static struct ucir_enc_opts opts = {
	NULL, NULL, 6, UCIR_FRAME_OPS, 0, 0
};
static struct ucir_enc_stats st;

static int
run(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	struct tr_reader r;

	(void)ctx;
	tr_init(&r, in);
	return ucir_encode(&r, out, &opts, &st, err);
}

static unsigned long long
number(const char *opt, const char *s, unsigned long long lo,
    unsigned long long hi)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s || *end != '\0' || v < lo || v > hi)
		tp_usage_error(help, "%s: '%s' is not a number from %llu to "
		    "%llu", opt, s, lo, hi);
	return v;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ "arch", required_argument, NULL, 'a' },
		{ "os", required_argument, NULL, 'O' },
		{ "level", required_argument, NULL, 'l' },
		{ "frame-ops", required_argument, NULL, 'n' },
		{ "max-frame", required_argument, NULL, 'm' },
		{ "strict", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	struct tp_common com = { NULL };
	struct tp_err err;
	const char *path;
	int c, status;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "a:O:l:n:m:s",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (ucir_regs_find(optarg, strlen(optarg)) == NULL ||
			    strlen(optarg) > UCIR_NAME_LEN)
				tp_usage_error(help, "unsupported arch '%s'",
				    optarg);
			opts.arch = optarg;
			break;
		case 'O':
			if (strlen(optarg) > UCIR_NAME_LEN)
				tp_usage_error(help, "os name longer than %d bytes",
				    UCIR_NAME_LEN);
			opts.os = optarg;
			break;
		case 'l':
			opts.level = (int)number("--level", optarg, 0, 9);
			break;
		case 'n':
			opts.frame_ops = (unsigned)number("--frame-ops", optarg, 1,
			    UINT32_MAX);
			break;
		case 'm':
			opts.max_frame = (size_t)number("--max-frame", optarg, 1,
			    1ull << 32);
			break;
		case 's':
			opts.strict = 1;
			break;
		default:
			tp_opt_common(c, &com, help);
		}
	}
	path = tp_opt_input(argc, argv, help);

	status = tp_convert(path, com.output, TP_BINARY_OUT, run, NULL, &err);
	if (status != TP_EXIT_OK)
		return status;
	if (st.skipped > 0)
		tp_warn("%llu records skipped that a replay file cannot hold "
		    "(first: line %llu, %s)", (unsigned long long)st.skipped,
		    (unsigned long long)st.first_skip_line, st.first_skip);
	if (st.unnested > 0)
		tp_warn("%llu records with depth= whose syscall is not in the "
		    "stream were placed one level up",
		    (unsigned long long)st.unnested);
	if (st.header_made)
		tp_note("the stream has no ucir-header: one was written for "
		    "arch %s", opts.arch ? opts.arch : "x86_64");
	tp_note("%llu records: %llu frames (%llu made here), %llu ops, "
	    "%llu skipped", (unsigned long long)st.records,
	    (unsigned long long)st.frames, (unsigned long long)st.frames_made,
	    (unsigned long long)st.ops, (unsigned long long)st.skipped);
	return TP_EXIT_OK;
}
