/*
 * wtf2txt: Web Tracing Framework trace (.wtf-trace) to the tracepipe text
 * stream.
 */
#include <stdio.h>

#include "diag.h"
#include "input.h"
#include "opts.h"
#include "output.h"
#include "prog.h"
#include "wtf.h"

static const char help[] =
    "Usage: wtf2txt [OPTION]... [FILE]\n"
    "Decode a Web Tracing Framework trace (*.wtf-trace), legacy binary v3 or\n"
    "chunked v10, into trace text: a wtf-header record, wtf-chunk and\n"
    "wtf-part records (chunked traces), a wtf-define record per event\n"
    "definition and an event record per event, with its zone as tid, ts in\n"
    "nanoseconds and every argument by name.  FILE may be gzip-compressed;\n"
    "without FILE, or when FILE is -, read standard input.\n"
    "\n"
    "  -o, --output=FILE  write to FILE instead of standard output\n"
    "  -q, --quiet        no warnings\n"
    "  -v, --verbose      say what was decoded\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed or truncated input (after the\n"
    "records before the fault), 2 usage or system error.\n";

static struct wtf_dec_stats st;

static int
run(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	(void)ctx;
	return wtf_decode(in, out, NULL, &st, err);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 }
	};
	struct tp_common com = { NULL };
	struct tp_err err;
	const char *path;
	int c, status;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS, longopts,
	    NULL)) != -1)
		tp_opt_common(c, &com, help);
	path = tp_opt_input(argc, argv, help);

	/* The records before a data fault are kept: they are valid. */
	status = tp_convert(path, com.output, TP_KEEP_PREFIX, run, NULL, &err);
	if (st.version != 0)
		tp_note("%s trace: %llu records (%llu definitions, %llu of a "
		    "wire id defined before), %llu chunks, %llu parts, %llu "
		    "records earlier than the one before, %llu chunks and parts "
		    "of unknown types", st.version == 3 ? "legacy v3" :
		    "chunked v10", (unsigned long long)st.records,
		    (unsigned long long)st.defines,
		    (unsigned long long)st.redefined,
		    (unsigned long long)st.chunks, (unsigned long long)st.parts,
		    (unsigned long long)st.backwards,
		    (unsigned long long)st.unknown);
	return status;
}
