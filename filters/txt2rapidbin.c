/*
 * txt2rapidbin: the tracepipe text stream to a RapidBin trace.
 */
#include <stdio.h>

#include "driver.h"
#include "formats/rapidbin/rapidbin.h"

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
	tp_warn_skips(&st->skipped);
	if (st->header_record == 2)
		tp_note("the decoded file held %llu event%s but %llu %s "
		    "encoded: header counted again",
		    (unsigned long long)st->file_events,
		    tp_s(st->file_events),
		    (unsigned long long)st->events,
		    st->events == 1 ? "was" : "were");
	if (st->folded_locs > 0)
		tp_warn("%llu distinct locations: the first 32767 have their "
		    "own, the other %llu share location 32767 (%llu event%s; "
		    "--strict refuses)", (unsigned long long)(st->folded_locs +
		    RB_LOC_MAX), (unsigned long long)st->folded_locs,
		    (unsigned long long)st->folded_loc_events,
		    tp_s(st->folded_loc_events));
	if (st->folded_threads > 0)
		tp_warn("%llu distinct threads: the first 1023 have their own, "
		    "the other %llu share thread 1023 (%llu event%s; --strict "
		    "refuses)", (unsigned long long)(st->folded_threads +
		    RB_TID_MAX), (unsigned long long)st->folded_threads,
		    (unsigned long long)st->folded_thread_events,
		    tp_s(st->folded_thread_events));
	if (st->events == 0)
		tp_warn("no event written: the trace is a header only (the "
		    "stream held no event record)");
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

static const char *meta_path;

static void
set_meta(const char *arg)
{
	if (arg[0] == '\0' || (arg[0] == '-' && arg[1] == '\0'))
		tp_usage_error(help, "--meta needs a file name");
	meta_path = arg;
}

int
main(int argc, char **argv)
{
	static struct rapidbin_enc_opts opts;
	static struct rapidbin_enc_stats st;
	static const struct tp_option options[] = {
		TP_FLAG("dense", 'd', &opts.dense),
		TP_ARG("meta", 'm', set_meta),
		TP_FLAG("no-pc", 'P', &opts.no_pc),
		TP_FLAG("strict", 's', &opts.strict),
		{ NULL }
	};
	struct tp_job job = { .format = "rapidbin", .dir = TP_ENCODE,
	    .help = help, .opts = &opts, .stats = &st, .report = report,
	    .options = options };
	int first = tp_getopts(&job, argc, argv), status;

	if (meta_path != NULL) {
		if ((status = tp_open_output(&meta, meta_path, 0)) != 0)
			return status;
		meta_open = 1;
		opts.meta = &meta;
		job.commit = commit_meta;
	}
	status = tp_run(&job, argc - first, argv + first);
	if (meta_open)
		tp_out_close(&meta, 0, NULL);
	return status;
}
