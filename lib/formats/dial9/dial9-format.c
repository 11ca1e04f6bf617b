/*
 * The dial9 format's registration: its row, its programs' options and
 * help, what dial92txt and txt2dial9 say after an input.
 */
#include "formats/dial9/dial9.h"
#include "formats/registry.h"

TP_FORMAT_ADAPT(dial9)

static void
dec_report(const void *stats, int failed, const struct tp_say *say)
{
	const struct dial9_dec_stats *st = stats;

	(void)failed;
	if (st->stopped_at != TP_NONE)
		tp_say(say, TP_SAY_NOTE, "stopped at offset 0x%llx (--lenient): "
		    "%s", (unsigned long long)st->stopped_at, st->stop_msg);
	tp_say(say, TP_SAY_NOTE, "%llu segments, %llu schemas, %llu events, "
	    "%llu string pools, %llu stack pools, %llu resets (%llu "
	    "backwards), %llu annotations", (unsigned long long)st->headers,
	    (unsigned long long)st->schemas, (unsigned long long)st->events,
	    (unsigned long long)st->string_pools,
	    (unsigned long long)st->stack_pools,
	    (unsigned long long)st->resets,
	    (unsigned long long)st->resets_back,
	    (unsigned long long)st->annotations);
}

static void
enc_report(const void *stats, int failed, const struct tp_say *say)
{
	const struct dial9_enc_stats *st = stats;

	if (failed)
		return;
	tp_report_skips(say, &st->skipped);
	tp_say(say, TP_SAY_NOTE, "%llu records: %llu events in %llu frames; "
	    "added %llu headers, %llu inferred schemas, %llu resets, %llu "
	    "pooled strings, %llu pooled stacks",
	    (unsigned long long)st->records, (unsigned long long)st->events,
	    (unsigned long long)st->frames,
	    (unsigned long long)st->headers_added,
	    (unsigned long long)st->schemas_inferred,
	    (unsigned long long)st->resets_added,
	    (unsigned long long)st->strings_added,
	    (unsigned long long)st->stacks_added);
}

static const struct tp_option dec_options[] = {
	TP_OPTION_FLAG("lenient", 'l', struct dial9_dec_opts, lenient,
	    "stop quietly at the first frame that does not decode, as "
	    "upstream's frame iterator does"),
	{ NULL }
};

static const struct tp_option enc_options[] = {
	TP_OPTION_STRICT(struct dial9_enc_opts, "dial9"),
	{ NULL }
};

const struct tp_format tp_format_dial9 = {
	TP_FORMAT_MODULE(dial9),
	.split = dial9_split,
	.desc = "a dial9 trace (dial9-trace-format, TRC)",
	.exts = ".trc",
	.dec.about =
	    "Decode dial9 traces (dial9-trace-format, TRC) into trace text: one\n"
	    "record per frame: dial9-header at each segment, dial9-schema,\n"
	    "dial9-strings, dial9-stacks, dial9-reset, dial9-annotations, and one\n"
	    "event record per event with its schema name, absolute ts, tid and\n"
	    "every field by name.  FILEs may be gzip-compressed and are decoded in\n"
	    "turn; without FILE, or when FILE is -, read standard input.\n",
	.dec.options = dec_options,
	.dec.report = dec_report,
	.enc.about =
	    "Encode trace text into a dial9 trace (dial9-trace-format, TRC): the\n"
	    "records dial92txt writes, or event records of any decoder or written\n"
	    "by hand, whose schemas are then inferred from their values.  FILE may\n"
	    "be gzip-compressed; without FILE, or when FILE is -, read standard\n"
	    "input.\n",
	.enc.options = enc_options,
	.enc.report = enc_report,
};
