/*
 * rapidbin2txt: RapidBin trace to the tracepipe text stream.
 */
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "input.h"
#include "opts.h"
#include "output.h"
#include "prog.h"
#include "rapidbin.h"

static const char help[] =
    "Usage: rapidbin2txt [OPTION]... [FILE]\n"
    "Decode a RapidBin trace (RAPID, Wasmgrind) into trace text, one event\n"
    "per line, after a rapidbin-header record.  FILE may be gzip-compressed;\n"
    "without FILE, or when FILE is -, read standard input.\n"
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

static void
report(const struct rb_dec_stats *st, int failed)
{
	const struct rb_header *h = &st->header;
	/* What every reader takes the count to be: the sign bit cleared. */
	uint64_t events = h->events & INT64_MAX;

	if (st->bit63 > 0)
		tp_warn("%llu events have bit 63 set (bit63=1); RAPID and "
		    "Wasmgrind readers ignore that bit",
		    (unsigned long long)st->bit63);
	if (!st->have_header)
		return;
	if (st->truncated_at != TP_NONE)
		tp_note("trace cut at offset 0x%llx: %u trailing byte%s "
		    "dropped (--allow-truncated)",
		    (unsigned long long)st->truncated_at, st->truncated_bytes,
		    st->truncated_bytes == 1 ? "" : "s");
	/* Lenient, as RAPID is, but a short file is worth a word. */
	if (st->events < events && !failed)
		tp_warn("the header says events=%llu but the file ends after "
		    "%llu events (truncated?)", (unsigned long long)events,
		    (unsigned long long)st->events);
	tp_note("header: threads=%u locks=%lu vars=%lu events=%llu",
	    (unsigned)h->threads, (unsigned long)h->locks,
	    (unsigned long)h->vars, (unsigned long long)h->events);
	tp_note("trace:  threads=%llu locks=%llu vars=%llu events=%llu "
	    "(distinct ids)", (unsigned long long)st->threads,
	    (unsigned long long)st->locks, (unsigned long long)st->vars,
	    (unsigned long long)st->events);
	if (events < st->events)
		tp_note("the file holds more events than the header says "
		    "(lenient: read to the end of the file)");
}

static struct rb_dec_opts opts = { 0, 0, 0 };
static struct rb_dec_stats st;

static int
run(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	(void)ctx;
	return rb_decode(in, out, &opts, &st, err);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		TP_COMMON_LONGOPTS,
		{ "strict", no_argument, NULL, 's' },
		{ "allow-truncated", no_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	struct tp_common com = { NULL };
	struct tp_err err;
	const char *path;
	int c, status;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "st", longopts,
	    NULL)) != -1) {
		if (c == 's')
			opts.strict = 1;
		else if (c == 't')
			opts.allow_truncated = 1;
		else
			tp_opt_common(c, &com, help);
	}
	path = tp_opt_input(argc, argv, help);
	opts.count = tp_verbosity >= 2;

	/* The events before a data fault are kept: they are valid. */
	status = tp_convert(path, com.output, TP_KEEP_PREFIX, run, NULL, &err);
	report(&st, status != TP_EXIT_OK);
	return status;
}
