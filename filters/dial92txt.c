/*
 * dial92txt: dial9-trace-format (tokio runtime telemetry) to the
 * tracepipe text stream.
 */
#include <stdio.h>

#include "diag.h"
#include "dial9.h"
#include "input.h"
#include "opts.h"
#include "output.h"
#include "prog.h"

static const char help[] =
    "Usage: dial92txt [OPTION]... [FILE]\n"
    "Decode a dial9 trace (dial9-trace-format, TRC) into trace text: one\n"
    "record per frame: dial9-header at each segment, dial9-schema,\n"
    "dial9-strings, dial9-stacks, dial9-reset, dial9-annotations, and one\n"
    "event record per event with its schema name, absolute ts, tid and\n"
    "every field by name.  FILE may be gzip-compressed; without FILE, or\n"
    "when FILE is -, read standard input.\n"
    "\n"
    "  -l, --lenient      stop quietly at the first frame that does not\n"
    "                     decode, as upstream's frame iterator does\n"
    "  -o, --output=FILE  write to FILE instead of standard output\n"
    "  -q, --quiet        no warnings\n"
    "  -v, --verbose      say what was decoded\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed or truncated input (after the\n"
    "records before the fault), 2 usage or system error.\n";

struct job {
	struct dial9_dec_opts opts;
	struct dial9_dec_stats st;
};

static int
run(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	struct job *j = ctx;

	return dial9_decode(in, out, &j->opts, &j->st, err);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ "lenient", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 }
	};
	struct job j = { { 0 }, { 0 } };
	struct tp_common com = { NULL };
	struct tp_err err;
	const char *path;
	int c, status;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "l", longopts,
	    NULL)) != -1) {
		if (c == 'l')
			j.opts.lenient = 1;
		else
			tp_opt_common(c, &com, help);
	}
	path = tp_opt_input(argc, argv, help);

	/* The records before a data fault are kept: they are valid. */
	status = tp_convert(path, com.output, TP_KEEP_PREFIX, run, &j, &err);
	if (j.st.stopped_at != TP_NONE)
		tp_note("stopped at offset 0x%llx (--lenient): %s",
		    (unsigned long long)j.st.stopped_at, j.st.stop_msg);
	tp_note("%llu segments, %llu schemas, %llu events, %llu string pools, "
	    "%llu stack pools, %llu resets (%llu backwards), %llu annotations",
	    (unsigned long long)j.st.headers, (unsigned long long)j.st.schemas,
	    (unsigned long long)j.st.events,
	    (unsigned long long)j.st.string_pools,
	    (unsigned long long)j.st.stack_pools,
	    (unsigned long long)j.st.resets,
	    (unsigned long long)j.st.resets_back,
	    (unsigned long long)j.st.annotations);
	return status;
}
