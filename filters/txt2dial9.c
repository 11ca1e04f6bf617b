/*
 * txt2dial9: the tracepipe text stream to dial9-trace-format.
 */
#include <stdio.h>

#include "formats/dial9/dial9.h"
#include "driver.h"

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

static void
report(const void *stats, int failed)
{
	const struct dial9_enc_stats *st = stats;

	if (failed)
		return;
	tp_warn_skips(&st->skipped);
	tp_note("%llu records: %llu events in %llu frames; added %llu "
	    "headers, %llu inferred schemas, %llu resets, %llu pooled strings, "
	    "%llu pooled stacks", (unsigned long long)st->records,
	    (unsigned long long)st->events, (unsigned long long)st->frames,
	    (unsigned long long)st->headers_added,
	    (unsigned long long)st->schemas_inferred,
	    (unsigned long long)st->resets_added,
	    (unsigned long long)st->strings_added,
	    (unsigned long long)st->stacks_added);
}

int
main(int argc, char **argv)
{
	static struct dial9_enc_opts opts;
	static struct dial9_enc_stats st;
	static const struct tp_option options[] = {
		TP_FLAG("strict", 's', &opts.strict),
		{ NULL }
	};
	struct tp_job job = { .format = "dial9", .dir = TP_ENCODE,
	    .help = help, .opts = &opts, .stats = &st, .report = report,
	    .options = options };

	return tp_main(&job, argc, argv);
}
