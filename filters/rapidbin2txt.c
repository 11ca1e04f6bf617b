/*
 * rapidbin2txt: RapidBin trace to the tracepipe text stream.
 */
#include <stdint.h>
#include <stdio.h>

#include "prog.h"
#include "rapidbin.h"

static const char help[] =
    "Usage: rapidbin2txt [OPTION]... [FILE]...\n"
    "Decode RapidBin traces (RAPID, Wasmgrind) into trace text, one event\n"
    "per line, after a rapidbin-header record.  FILEs may be gzip-compressed\n"
    "and are decoded in turn; without FILE, or when FILE is -, read\n"
    "standard input.\n"
    "\n"
    "  -s, --strict       apply Wasmgrind's rules: the header's thread, lock\n"
    "                     and variable counts must equal the distinct ids in\n"
    "                     the trace, and its event count the events\n"
    "  -t, --allow-truncated  end quietly at a cut last event (a writer\n"
    "                     stopped in the middle of a word)\n"
    "  -o, --output=FILE  write to FILE instead of standard output\n"
    "  -q, --quiet        no warnings\n"
    "  -v, --verbose      compare the header with the trace and say so\n"
    "  -h, --help         show this help and exit\n"
    "  -V, --version      show the version and exit\n"
    "\n"
    "Exit status: 0 success, 1 malformed or truncated input (after the\n"
    "events before the fault), 2 usage or system error.\n";

static struct rapidbin_dec_opts opts;

static void
report(const void *stats, int failed)
{
	const struct rapidbin_dec_stats *st = stats;
	const struct rb_header *h = &st->header;
	/* What every reader takes the count to be: the sign bit cleared. */
	uint64_t events = h->events & INT64_MAX;

	if (st->bit63 > 0)
		tp_warn("%llu event%s %s bit 63 set (bit63=1); RAPID and "
		    "Wasmgrind readers ignore that bit",
		    (unsigned long long)st->bit63, tp_s(st->bit63),
		    st->bit63 == 1 ? "has" : "have");
	if (!st->have_header)
		return;
	if (opts.strict && st->estimated && !failed)
		tp_warn("strict: more than %u distinct ids of a kind: the "
		    "header's count was checked against an estimate, "
		    "within %u %%", RB_EXACT_IDS, RB_EST_PERCENT);
	if (st->truncated_at != TP_NONE)
		tp_note("trace cut at offset 0x%llx: %u trailing byte%s "
		    "dropped (--allow-truncated)",
		    (unsigned long long)st->truncated_at, st->truncated_bytes,
		    tp_s(st->truncated_bytes));
	/* Lenient, as RAPID is, but a short file is worth a word. */
	if (st->events < events && !failed)
		tp_warn("the header says events=%llu but the file ends after "
		    "%llu event%s (truncated?)", (unsigned long long)events,
		    (unsigned long long)st->events, tp_s(st->events));
	tp_note("header: threads=%u locks=%lu vars=%lu events=%llu",
	    (unsigned)h->threads, (unsigned long)h->locks,
	    (unsigned long)h->vars, (unsigned long long)h->events);
	tp_note("trace:  threads=%s%llu locks=%s%llu vars=%s%llu events=%llu "
	    "(distinct ids)", st->estimated & 1 ? "~" : "",
	    (unsigned long long)st->threads, st->estimated & 2 ? "~" : "",
	    (unsigned long long)st->locks, st->estimated & 4 ? "~" : "",
	    (unsigned long long)st->vars, (unsigned long long)st->events);
	if (st->estimated)
		tp_note("~: more than %u distinct ids of that kind, so the "
		    "count is an estimate (HyperLogLog, 1.6 %% standard "
		    "error, within %u %%)", RB_EXACT_IDS, RB_EST_PERCENT);
	if (events < st->events)
		tp_note("the file holds more events than the header says "
		    "(lenient: read to the end of the file)");
}

int
main(int argc, char **argv)
{
	static struct rapidbin_dec_stats st;
	static const struct tp_option options[] = {
		TP_FLAG("strict", 's', &opts.strict),
		TP_FLAG("allow-truncated", 't', &opts.allow_truncated),
		{ NULL }
	};
	struct tp_job job = { .format = "rapidbin", .dir = TP_DECODE,
	    .help = help, .opts = &opts, .stats = &st, .report = report,
	    .options = options };
	int first = tp_getopts(&job, argc, argv);

	opts.count = tp_verbosity >= 2;
	return tp_run(&job, argc - first, argv + first);
}
