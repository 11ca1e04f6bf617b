/*
 * The Web Tracing Framework format's registration: its row, its
 * programs' options and help, what wtf2txt and txt2wtf say after an
 * input.
 */
#include "formats/registry.h"
#include "formats/wtf/wtf.h"

TP_FORMAT_ADAPT(wtf)

static const char *
generation(int version)
{
	return version == WTF_LEGACY_VERSION ? "legacy v3" : "chunked v10";
}

static void
dec_report(const void *stats, int failed, const struct tp_say *say)
{
	const struct wtf_dec_stats *st = stats;

	(void)failed;
	if (st->version == 0)
		return;
	tp_say(say, TP_SAY_NOTE, "%s trace: %llu records (%llu definitions, "
	    "%llu of a wire id defined before), %llu chunks, %llu parts, %llu "
	    "records earlier than the one before, %llu chunks and parts of "
	    "unknown types", generation(st->version),
	    (unsigned long long)st->records, (unsigned long long)st->defines,
	    (unsigned long long)st->redefined, (unsigned long long)st->chunks,
	    (unsigned long long)st->parts, (unsigned long long)st->backwards,
	    (unsigned long long)st->unknown);
}

static void
enc_report(const void *stats, int failed, const struct tp_say *say)
{
	const struct wtf_enc_stats *st = stats;

	if (failed)
		return;
	tp_report_skips(say, &st->skipped);
	if (st->inferred > 0)
		tp_say(say, TP_SAY_NOTE, "%llu event definitions inferred from "
		    "the events", (unsigned long long)st->inferred);
	tp_say(say, TP_SAY_NOTE, "%s trace: %llu records read, %llu written "
	    "(%llu zone records added), %llu skipped", generation(st->version),
	    (unsigned long long)st->records, (unsigned long long)st->events,
	    (unsigned long long)st->zones_added,
	    (unsigned long long)st->skipped.count);
}

static const struct tp_option enc_options[] = {
	TP_OPTION_STRICT(struct wtf_enc_opts, "a trace"),
	{ NULL }
};

const struct tp_format tp_format_wtf = {
	TP_FORMAT_MODULE(wtf),
	.split = wtf_split,
	.desc = "a Web Tracing Framework trace",
	.exts = ".wtf-trace",
	.dec.about =
	    "Decode Web Tracing Framework traces (*.wtf-trace), legacy binary v3 or\n"
	    "chunked v10, into trace text: a wtf-header record, wtf-chunk and\n"
	    "wtf-part records (chunked traces), a wtf-define record per event\n"
	    "definition and an event record per event, with its zone as tid, ts in\n"
	    "nanoseconds and every argument by name.  FILEs may be gzip-compressed\n"
	    "and are decoded in turn; without FILE, or when FILE is -, read\n"
	    "standard input.\n",
	.dec.report = dec_report,
	.enc.about =
	    "Encode trace text into a Web Tracing Framework trace: the generation\n"
	    "its wtf-header record names (legacy v3 or chunked v10), or chunked v10\n"
	    "for a stream without one (event records of other decoders).  Events\n"
	    "whose definition the stream lacks are defined from their fields.\n"
	    "FILE may be gzip-compressed; without FILE, or when FILE is -, read\n"
	    "standard input.\n",
	.enc.options = enc_options,
	.enc.report = enc_report,
};
