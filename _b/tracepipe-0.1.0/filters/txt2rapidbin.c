/*
 * txt2rapidbin: the tracepipe text stream to a RapidBin trace.
 */
#include <stdio.h>

#include "prog.h"
#include "rapidbin.h"

static const char help[] =
    "Usage: txt2rapidbin [OPTION]... [FILE]\n"
    "Encode trace text as a RapidBin trace.  RapidBin event records\n"
    "(acquire release read write fork join begin end request branch) are\n"
    "encoded; read and write records from other formats (addr=, size=, pc=)\n"
    "are mapped; other records are skipped and counted.  Without FILE, or\n"
    "when FILE is -, read standard input.\n"
    "\n"
    "  -d, --dense        renumber lock, var, child and loc values that do\n"
    "                     not fit their field, instead of failing\n"
    "  -m, --meta=FILE    write the id mapping as Wasmgrind-style JSON\n"
    "  -P, --no-pc        do not map pc= to locations (all get location 0)\n"
    "  -s, --strict       records without a RapidBin meaning are errors\n"
    "  -o, --output=FILE  write to FILE instead of standard output\n"
    "  -q, --quiet        no warnings\n"
    "  -v, --verbose      say how the header and the ids were made\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed input (nothing is written),\n"
    "2 usage or system error.\n";

static void
report(const void *stats, int failed)
{
	const struct rapidbin_enc_stats *st = stats;
	static const char *const what[] = { "thread ids", "lock ids",
	    "variables", "locations" };
	const int dense[] = { st->dense_threads, st->dense_locks,
	    st->dense_vars, st->dense_locs };

	if (failed)
		return;
	if (st->skipped > 0)
		tp_warn("skipped %llu records without a RapidBin meaning "
		    "(the first: \"%s\" at line %llu)",
		    (unsigned long long)st->skipped, st->first_skipped_kind,
		    (unsigned long long)st->first_skipped_line);
	if (st->header_record == 2)
		tp_note("the rapidbin-header record says events=%llu but %llu "
		    "events were encoded: header counted again",
		    (unsigned long long)st->header_record_events,
		    (unsigned long long)st->events);
	for (int i = 0; i < 4; i++)
		if (dense[i])
			tp_note("%s renumbered densely in order of first "
			    "appearance (some do not fit)", what[i]);
	tp_note("header: threads=%u locks=%lu vars=%lu events=%llu (%s)",
	    (unsigned)st->header.threads, (unsigned long)st->header.locks,
	    (unsigned long)st->header.vars,
	    (unsigned long long)st->header.events,
	    st->header_record == 1 ? "as stored in the header record" :
	    "distinct ids");
}

static struct tp_out meta;
static int meta_open;

/*
 * The metadata goes into place before the output: if it cannot, the
 * output does not either.
 */
static int
commit_meta(struct tp_err *err)
{
	meta_open = 0;
	return tp_out_close(&meta, 1, err);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ "dense", no_argument, NULL, 'd' },
		{ "meta", required_argument, NULL, 'm' },
		{ "no-pc", no_argument, NULL, 'P' },
		{ "strict", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	static struct rapidbin_enc_opts opts;
	static struct rapidbin_enc_stats st;
	struct tp_job job = { .format = "rapidbin", .dir = TP_ENCODE,
	    .help = help, .opts = &opts, .stats = &st, .report = report };
	const char *meta_path = NULL;
	int c, status;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "dm:Ps",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			opts.dense = 1;
			break;
		case 'm':
			meta_path = optarg;
			break;
		case 'P':
			opts.no_pc = 1;
			break;
		case 's':
			opts.strict = 1;
			break;
		default:
			tp_opt_common(c, &job.com, help);
		}
	}
	if (meta_path != NULL && (meta_path[0] == '\0' ||
	    (meta_path[0] == '-' && meta_path[1] == '\0')))
		tp_usage_error(help, "--meta needs a file name");

	if (meta_path != NULL) {
		if ((status = tp_open_output(&meta, meta_path, 0)) != 0)
			return status;
		meta_open = 1;
		opts.meta = &meta;
		job.commit = commit_meta;
	}
	status = tp_run(&job, argc - optind, argv + optind);
	if (meta_open)
		tp_out_close(&meta, 0, NULL);
	return status;
}
