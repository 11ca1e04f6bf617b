/*
 * txt2wtf: the tracepipe text stream to a Web Tracing Framework trace.
 */
#include <stdio.h>

#include "driver.h"
#include "formats/wtf/wtf.h"

static const char help[] =
    "Usage: txt2wtf [OPTION]... [FILE]\n"
    "Encode trace text into a Web Tracing Framework trace: the generation\n"
    "its wtf-header record names (legacy v3 or chunked v10), or chunked v10\n"
    "for a stream without one (event records of other decoders).  Events\n"
    "whose definition the stream lacks are defined from their fields.\n"
    "FILE may be gzip-compressed; without FILE, or when FILE is -, read\n"
    "standard input.\n"
    "\n"
    "  -s, --strict       a record a trace cannot hold is an error\n"
    "                     (by default it is skipped and counted)\n"
    "  -o, --output=FILE  write to FILE (replaced only on success)\n"
    "  -q, --quiet        no warnings\n"
    "  -v, --verbose      say what was encoded\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed input, 2 usage or system error.\n";

static void
report(const void *stats, int failed)
{
	const struct wtf_enc_stats *st = stats;

	if (failed)
		return;
	tp_warn_skips(&st->skipped);
	if (st->inferred > 0)
		tp_note("%llu event definitions inferred from the events",
		    (unsigned long long)st->inferred);
	tp_note("%s trace: %llu records read, %llu written (%llu zone records "
	    "added), %llu skipped", st->version == WTF_LEGACY_VERSION ?
	    "legacy v3" : "chunked v10", (unsigned long long)st->records,
	    (unsigned long long)st->events,
	    (unsigned long long)st->zones_added,
	    (unsigned long long)st->skipped.count);
}

int
main(int argc, char **argv)
{
	static struct wtf_enc_opts opts;
	static struct wtf_enc_stats st;
	static const struct tp_option options[] = {
		TP_FLAG("strict", 's', &opts.strict),
		{ NULL }
	};
	struct tp_job job = { .format = "wtf", .dir = TP_ENCODE,
	    .help = help, .opts = &opts, .stats = &st, .report = report,
	    .options = options };

	return tp_main(&job, argc, argv);
}
