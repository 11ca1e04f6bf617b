/*
 * The RapidBin format's registration: its row, its programs' options and
 * help, what rapidbin2txt and txt2rapidbin say after an input.
 */
#include <stdint.h>

#include "formats/rapidbin/rapidbin.h"
#include "formats/registry.h"

TP_FORMAT_ADAPT(rapidbin)

static void
dec_report(const void *stats, int failed, const struct tp_say *say)
{
	const struct rapidbin_dec_stats *st = stats;
	const struct rb_header *h = &st->header;
	/* What every reader takes the count to be: the sign bit cleared. */
	uint64_t events = h->events & INT64_MAX;

	if (st->bit63 > 0)
		tp_say(say, TP_SAY_WARN, "%llu event%s %s bit 63 set (bit63=1); "
		    "RAPID and Wasmgrind readers ignore that bit",
		    (unsigned long long)st->bit63, tp_s(st->bit63),
		    st->bit63 == 1 ? "has" : "have");
	if (!st->have_header)
		return;
	if (st->strict && st->estimated && !failed)
		tp_say(say, TP_SAY_WARN, "strict: more than %u distinct ids of a "
		    "kind: the header's count was checked against an estimate, "
		    "within %u %%", RB_EXACT_IDS, RB_EST_PERCENT);
	if (st->truncated_at != TP_NONE)
		tp_say(say, TP_SAY_NOTE, "trace cut at offset 0x%llx: %u "
		    "trailing byte%s dropped (--allow-truncated)",
		    (unsigned long long)st->truncated_at, st->truncated_bytes,
		    tp_s(st->truncated_bytes));
	/* Lenient, as RAPID is, but a short file is worth a word. */
	if (st->events < events && !failed)
		tp_say(say, TP_SAY_WARN, "the header says events=%llu but the "
		    "file ends after %llu event%s (truncated?)",
		    (unsigned long long)events, (unsigned long long)st->events,
		    tp_s(st->events));
	tp_say(say, TP_SAY_NOTE, "header: threads=%u locks=%lu vars=%lu "
	    "events=%llu", (unsigned)h->threads, (unsigned long)h->locks,
	    (unsigned long)h->vars, (unsigned long long)h->events);
	if (st->counted)
		tp_say(say, TP_SAY_NOTE, "trace:  threads=%s%llu locks=%s%llu "
		    "vars=%s%llu events=%llu (distinct ids)",
		    st->estimated & 1 ? "~" : "",
		    (unsigned long long)st->threads,
		    st->estimated & 2 ? "~" : "",
		    (unsigned long long)st->locks, st->estimated & 4 ? "~" : "",
		    (unsigned long long)st->vars,
		    (unsigned long long)st->events);
	if (st->estimated)
		tp_say(say, TP_SAY_NOTE, "~: more than %u distinct ids of that "
		    "kind, so the count is an estimate (HyperLogLog, 1.6 %% "
		    "standard error, within %u %%)", RB_EXACT_IDS,
		    RB_EST_PERCENT);
	if (events < st->events)
		tp_say(say, TP_SAY_NOTE, "the file holds more events than the "
		    "header says (lenient: read to the end of the file)");
}

/* -v compares the header with the trace: the distinct ids are counted. */
static void
dec_verbose(void *opts)
{
	((struct rapidbin_dec_opts *)opts)->count = 1;
}

/* Ids past a field's width (max) share its last value: n of them. */
static void
folded(const struct tp_say *say, const char *ids, const char *id,
    unsigned max, uint64_t n, uint64_t events)
{
	if (n > 0)
		tp_say(say, TP_SAY_WARN, "%llu distinct %s: the first %u have "
		    "their own, the other %llu share %s %u (%llu event%s; "
		    "--strict refuses)", (unsigned long long)(n + max), ids,
		    max, (unsigned long long)n, id, max,
		    (unsigned long long)events, tp_s(events));
}

void
rapidbin_enc_say(const struct rapidbin_enc_stats *st, int header,
    const struct tp_say *say)
{
	static const char *const what[] = { "thread ids", "lock ids",
	    "variables", "locations" };
	const int dense[] = { st->dense_threads, st->dense_locks,
	    st->dense_vars, st->dense_locs };

	tp_report_skips(say, &st->skipped);
	if (st->header_record == 2 && header)
		tp_say(say, TP_SAY_NOTE, "the decoded file held %llu event%s but "
		    "%llu %s encoded: header counted again",
		    (unsigned long long)st->file_events,
		    tp_s(st->file_events),
		    (unsigned long long)st->events,
		    st->events == 1 ? "was" : "were");
	folded(say, "locations", "location", RB_LOC_MAX, st->folded_locs,
	    st->folded_loc_events);
	folded(say, "threads", "thread", RB_TID_MAX, st->folded_threads,
	    st->folded_thread_events);
	if (st->events == 0 && header)
		tp_say(say, TP_SAY_WARN, "no event written: the trace is a header "
		    "only (the stream held no event record)");
	if (st->separate)
		tp_say(say, TP_SAY_NOTE, "records of several inputs (input=): "
		    "threads, locks, variables and locations renumbered densely "
		    "by (input, id), so that no two inputs share one");
	else
		for (int i = 0; i < 4; i++)
			if (dense[i])
				tp_say(say, TP_SAY_NOTE, "%s renumbered densely in "
				    "order of first appearance (some do not fit)",
				    what[i]);
	if (!header)
		return;
	tp_say(say, TP_SAY_NOTE, "header: threads=%u locks=%lu vars=%lu "
	    "events=%llu (%s)", (unsigned)st->header.threads,
	    (unsigned long)st->header.locks, (unsigned long)st->header.vars,
	    (unsigned long long)st->header.events,
	    st->header_record == 1 ? "as stored in the header record" :
	    "distinct ids");
}

static void
enc_report(const void *stats, int failed, const struct tp_say *say)
{
	if (!failed)
		rapidbin_enc_say(stats, 1, say);
}

static const struct tp_option dec_options[] = {
	TP_OPTION_FLAG("strict", 's', struct rapidbin_dec_opts, strict,
	    "apply Wasmgrind's rules: the header's thread, lock and variable "
	    "counts must equal the distinct ids in the trace, and its event "
	    "count the events"),
	TP_OPTION_FLAG("allow-truncated", 't', struct rapidbin_dec_opts,
	    allow_truncated, "end quietly at a cut last event (a writer "
	    "stopped in the middle of a word)"),
	{ NULL }
};

/* txt2rapidbin's --meta is its program's: it writes a second file. */
static const struct tp_option enc_options[] = {
	TP_OPTION_FLAG("dense", 'd', struct rapidbin_enc_opts, dense,
	    "renumber lock, var, child and loc values that do not fit their "
	    "field, instead of failing"),
	TP_OPTION_FLAG("no-pc", 'P', struct rapidbin_enc_opts, no_pc,
	    "do not map pc= to locations (all get location 0)"),
	TP_OPTION_FLAG("strict", 's', struct rapidbin_enc_opts, strict,
	    "records without a RapidBin meaning, and unknown fields, are "
	    "errors"),
	{ NULL }
};

const struct tp_format tp_format_rapidbin = {
	TP_FORMAT_MODULE(rapidbin),
	.desc = "a RapidBin trace (RAPID, Wasmgrind)",
	.exts = ".data .bin .rapidbin",
	.flags = TP_FMT_NOMAGIC,
	.split = rapidbin_split,
	.dec.about =
	    "Decode RapidBin traces (RAPID, Wasmgrind) into trace text, one event\n"
	    "per line, after a rapidbin-header record.  FILEs may be gzip-compressed\n"
	    "and are decoded in turn; without FILE, or when FILE is -, read\n"
	    "standard input.  With -v, compare the header with the trace.\n",
	.dec.options = dec_options,
	.dec.verbose = dec_verbose,
	.dec.report = dec_report,
	.enc.about =
	    "Encode trace text as a RapidBin trace.  RapidBin event records\n"
	    "(acquire release read write fork join begin end request branch) are\n"
	    "encoded; read and write records from other formats (addr=, size=, pc=)\n"
	    "are mapped, inputs tagged input=N stay apart; other records are\n"
	    "skipped and counted.  Without FILE, or when FILE is -, read standard\n"
	    "input.\n",
	.enc.exit1 = "malformed input (nothing is written)",
	.enc.options = enc_options,
	.enc.report = enc_report,
};
