/*
 * txtmerge: merge trace text streams, each sorted by ts, into one in ts
 * order.
 */
#include <stdlib.h>

#include "diag.h"
#include "tools/merge.h"
#include "opts.h"
#include "io/output.h"
#include "driver.h"

static const char help[] =
    "Usage: txtmerge [OPTION]... [FILE]...\n"
    "Merge trace text streams, each sorted by ts, into one in ts order\n"
    "(with --sort, streams that are not sorted, such as dial9 traces).\n"
    "Records with equal ts keep the order of the FILEs; lines without ts\n"
    "(comments, structure records) stay after the record of their own\n"
    "input they followed.  - is standard input, as is no FILE.\n"
    "\n"
    "  -t, --tag           add input=N (0 for the first FILE) to every record\n"
    "  -r, --renumber-tids give colliding thread ids of different inputs\n"
    "                      distinct numbers (tid=, and child= of fork, join)\n"
    "  -s, --sort-check    a record whose ts goes back within its input is\n"
    "                      an error (default: merged as it comes, reported)\n"
    "  -S, --sort          sort each input by ts first, in runs of at most\n"
    "      --run-size=BYTES  of text (default 64 MiB) in temporary files\n"
    "                      in $TMPDIR (default /tmp)\n"
    "  -o, --output=FILE   write to FILE instead of standard output\n"
    "  -q, --quiet         no warnings\n"
    "  -v, --verbose       report the counts on standard error\n"
    "  -h, --help          show this help and exit\n"
    "  -V, --version       show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed input or, with --sort-check, an\n"
    "unsorted one (after the records merged before it), 2 usage or\n"
    "system error.\n";

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ "tag", no_argument, NULL, 't' },
		{ "renumber-tids", no_argument, NULL, 'r' },
		{ "sort-check", no_argument, NULL, 's' },
		{ "sort", no_argument, NULL, 'S' },
		{ "run-size", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 }
	};
	struct tp_common com = { NULL };
	struct tm_opts opts = { 0, 0, 0, 0, 0 };
	char *end;
	struct tm_input *in;
	struct tm_merge m;
	struct tp_err err;
	struct tp_out out;
	size_t n, i, opened;
	int c, rc, status = TP_EXIT_OK;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "trsS", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 't': opts.tag = 1; break;
		case 'r': opts.renumber = 1; break;
		case 's': opts.sort_check = 1; break;
		case 'S': opts.sort = 1; break;
		case 'R':
			opts.run_bytes = strtoull(optarg, &end, 0);
			if (*end != '\0' || opts.run_bytes == 0 || *optarg == '-')
				tp_usage_error(help, "--run-size: '%s' is not a "
				    "positive number of bytes", optarg);
			break;
		default: tp_opt_common(c, &com, help);
		}
	}
	if (opts.sort && opts.sort_check)
		tp_usage_error(help, "--sort and --sort-check exclude each other");
	/* No FILE: standard input, which merges with nothing. */
	n = optind < argc ? (size_t)(argc - optind) : 1;
	if ((in = calloc(n, sizeof *in)) == NULL) {
		tp_error("out of memory");
		return TP_EXIT_FAIL;
	}
	tp_err_clear(&err);
	for (opened = 0; opened < n; opened++) {
		if (tp_in_open(&in[opened].in, optind < argc ?
		    argv[optind + opened] : NULL, &err) < 0) {
			tp_err_print(&err, in[opened].in.name);
			tp_in_close(&in[opened].in);
			for (i = 0; i < opened; i++)
				tp_in_close(&in[i].in);
			free(in);
			return TP_EXIT_FAIL;
		}
	}
	if ((status = tp_open_output(&out, com.output, 0)) != TP_EXIT_OK) {
		for (i = 0; i < n; i++)
			tp_in_close(&in[i].in);
		free(in);
		return status;
	}
	rc = tm_merge(&m, in, n, &opts, &out, &err);
	for (i = 0; i < n; i++) {
		if (tp_in_close(&in[i].in) < 0 && rc == 0) {
			rc = -1;
			m.failed = i;
		}
		if (in[i].backwards > 0)
			tp_warn("%s:%llu: ts %llu goes back in time (the record "
			    "before has %llu); %llu such records in %s "
			    "(--sort sorts it)",
			    in[i].in.name,
			    (unsigned long long)in[i].first_back_line,
			    (unsigned long long)in[i].first_back_ts,
			    (unsigned long long)in[i].first_back_prev,
			    (unsigned long long)in[i].backwards, in[i].in.name);
	}
	/* The records merged before bad input stay on standard output. */
	status = tp_close_output(&out, rc == 0 || (err.status == TP_EXIT_DATA &&
	    out.tmppath == NULL));
	if (rc < 0) {
		tp_err_print(&err, m.failed < n ? in[m.failed].in.name : NULL);
		status = err.status > status ? err.status : status;
	}
	tp_note("%llu lines written, %llu thread ids renumbered",
	    (unsigned long long)m.records, (unsigned long long)m.renumbered);
	tm_free(&m);
	free(in);
	return status;
}
