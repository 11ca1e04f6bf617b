/*
 * txtmerge: merge trace text streams, each sorted by ts, into one in ts
 * order.
 */
#include <stdlib.h>

#include "io/output.h"
#include "tools/merge.h"
#include "diag.h"
#include "driver.h"
#include "opts.h"

static const char about[] =
    "Merge trace text streams, each sorted by ts, into one in ts order\n"
    "(with --sort, streams that are not sorted, such as dial9 traces).\n"
    "Records with equal ts keep the order of the FILEs; lines without ts\n"
    "(comments, structure records) stay after the record of their own\n"
    "input they followed.  - is standard input, as is no FILE.\n";

static int
set_run_size(void *target, const char *arg, struct tp_err *err)
{
	unsigned long long v;

	if (tp_option_bytes("--run-size", arg, &v, err) < 0)
		return -1;
	((struct tm_opts *)target)->run_bytes = (size_t)v;
	return 0;
}

static const struct tp_option options[] = {
	TP_OPTION_FLAG("tag", 't', struct tm_opts, tag,
	    "add input=N (0 for the first FILE) to every record"),
	TP_OPTION_FLAG("renumber-tids", 'r', struct tm_opts, renumber,
	    "give colliding thread ids of different inputs distinct numbers "
	    "(tid=, and child= of fork, join), and tag as --tag does"),
	TP_OPTION_FLAG("sort-check", 's', struct tm_opts, sort_check,
	    "a record whose ts goes back within its input is an error "
	    "(default: merged as it comes, reported)"),
	TP_OPTION_FLAG("sort", 'S', struct tm_opts, sort,
	    "sort each input by ts first, in runs of at most --run-size bytes "
	    "of text in temporary files in $TMPDIR (default /tmp)"),
	TP_OPTION_SET("run-size", 0, "BYTES", set_run_size,
	    "the text of one run of --sort (default 64 MiB)"),
	{ NULL }
};

int
main(int argc, char **argv)
{
	struct tm_opts opts = { 0, 0, 0, 0, 0 };
	const struct tp_optset sets[] = { { options, &opts, NULL } };
	struct tp_program p = { .about = about, .exit1 = "malformed input or, "
	    "with --sort-check, an unsorted one (after the records merged "
	    "before it)", .sets = sets, .nsets = 1 };
	struct tm_input *in;
	struct tm_merge m;
	struct tp_err err;
	struct tp_out out;
	size_t n, i, opened;
	int first = tp_parse(&p, argc, argv), rc, status = TP_EXIT_OK;

	if (opts.sort && opts.sort_check)
		tp_usage_error(&p, "--sort and --sort-check exclude each other");
	/* No FILE: standard input, which merges with nothing. */
	n = first < argc ? (size_t)(argc - first) : 1;
	if ((in = calloc(n, sizeof *in)) == NULL) {
		tp_error("out of memory");
		return TP_EXIT_FAIL;
	}
	tp_err_clear(&err);
	for (opened = 0; opened < n; opened++) {
		/* A binary trace is refused before anything is merged. */
		if (tp_in_open(&in[opened].in, first < argc ?
		    argv[first + opened] : NULL, &err) < 0 ||
		    tp_check_format(NULL, TP_ENCODE, &in[opened].in,
		    &err) < 0) {
			tp_err_print(&err, in[opened].in.name);
			tp_in_close(&in[opened].in);
			for (i = 0; i < opened; i++)
				tp_in_close(&in[i].in);
			free(in);
			return err.status ? err.status : TP_EXIT_FAIL;
		}
	}
	if ((status = tp_open_output(&out, p.output, 0)) != TP_EXIT_OK) {
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
