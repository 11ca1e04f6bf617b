/*
 * txt2dial9: the tracepipe text stream to dial9-trace-format.
 */
#include <stdio.h>

#include "diag.h"
#include "dial9.h"
#include "input.h"
#include "opts.h"
#include "output.h"
#include "prog.h"
#include "text.h"

static const char help[] =
    "Usage: txt2dial9 [OPTION]... [FILE]\n"
    "Encode trace text into a dial9 trace (dial9-trace-format, TRC): the\n"
    "records dial92txt writes, or event records of any decoder or written\n"
    "by hand, whose schemas are then inferred from their values.  FILE may\n"
    "be gzip-compressed; without FILE, or when FILE is -, read standard\n"
    "input.\n"
    "\n"
    "  -s, --strict       a record dial9 cannot hold is an error (by\n"
    "                     default it is skipped and counted)\n"
    "  -o, --output=FILE  write to FILE (replaced only on success)\n"
    "  -q, --quiet        no warnings\n"
    "  -v, --verbose      say what was encoded\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed input, 2 usage or system error.\n";

struct job {
	struct dial9_enc_opts opts;
	struct dial9_enc_stats st;
};

static int
run(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	struct job *j = ctx;
	struct tr_reader r;

	tr_init(&r, in);
	return dial9_encode(&r, out, &j->opts, &j->st, err);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ "strict", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	struct job j = { { 0 }, { 0 } };
	struct tp_common com = { NULL };
	struct tp_err err;
	const char *path;
	int c, status;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "s", longopts,
	    NULL)) != -1) {
		if (c == 's')
			j.opts.strict = 1;
		else
			tp_opt_common(c, &com, help);
	}
	path = tp_opt_input(argc, argv, help);

	status = tp_convert(path, com.output, TP_BINARY_OUT, run, &j, &err);
	if (status != TP_EXIT_OK)
		return status;
	if (j.st.skipped > 0)
		tp_warn("%llu records skipped that dial9 cannot hold (first: "
		    "line %llu, %s)", (unsigned long long)j.st.skipped,
		    (unsigned long long)j.st.first_skipped_line,
		    j.st.first_skipped_kind);
	tp_note("%llu records: %llu events in %llu frames; added %llu "
	    "headers, %llu inferred schemas, %llu resets, %llu pooled strings, "
	    "%llu pooled stacks", (unsigned long long)j.st.records,
	    (unsigned long long)j.st.events, (unsigned long long)j.st.frames,
	    (unsigned long long)j.st.headers_added,
	    (unsigned long long)j.st.schemas_inferred,
	    (unsigned long long)j.st.resets_added,
	    (unsigned long long)j.st.strings_added,
	    (unsigned long long)j.st.stacks_added);
	return TP_EXIT_OK;
}
