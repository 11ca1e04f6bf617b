/*
 * What each decoder's program says after an input, from the decoder's
 * statistics: the same words from X2txt and from any2txt.  Program side:
 * it prints (tp_warn, tp_note).
 */
#include <stdint.h>
#include <string.h>

#include "formats/dial9/dial9.h"
#include "driver.h"
#include "formats/rapidbin/rapidbin.h"
#include "formats/std/std.h"
#include "formats/trac/trac.h"
#include "formats/ucir/ucir.h"
#include "formats/wtf/wtf.h"

static void
trac_report(const void *stats, int failed)
{
	const struct trac_dec_stats *st = stats;

	(void)failed;
	if (st->arch == NULL)
		return;
	if (st->header_len > TRAC_HEADER_WARN)
		tp_warn("JSON header of %llu bytes: x64dbg refuses more than %d",
		    (unsigned long long)st->header_len, TRAC_HEADER_WARN);
	if (st->compression_set)
		tp_warn("the JSON header names a compression: x64dbg has none "
		    "and reads the blocks as they are, as this program does");
	if (st->first_not_full)
		tp_warn("the first instruction block is not a full register "
		    "dump: x64dbg cannot show it");
	if (st->repaired_tids > 0)
		tp_note("%llu thread id%s written without flag 0x80 %s "
		    "repaired (tidstored=noflag)",
		    (unsigned long long)st->repaired_tids,
		    tp_s(st->repaired_tids),
		    st->repaired_tids == 1 ? "was" : "were");
	if (st->truncated_at != TP_NONE)
		tp_note("trace cut at offset 0x%llx (--allow-truncated)",
		    (unsigned long long)st->truncated_at);
	tp_note("arch %s: %llu block%s, %llu instruction%s (%llu full "
	    "dump%s), %llu memory access%s, %llu user block%s", st->arch->name,
	    (unsigned long long)st->blocks, tp_s(st->blocks),
	    (unsigned long long)st->insns, tp_s(st->insns),
	    (unsigned long long)st->full_dumps, tp_s(st->full_dumps),
	    (unsigned long long)st->accesses, st->accesses == 1 ? "" : "es",
	    (unsigned long long)st->user_blocks, tp_s(st->user_blocks));
}

static void
rapidbin_report(const void *stats, int failed)
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
	if (st->strict && st->estimated && !failed)
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
	if (st->counted)
		tp_note("trace:  threads=%s%llu locks=%s%llu vars=%s%llu "
		    "events=%llu (distinct ids)", st->estimated & 1 ? "~" : "",
		    (unsigned long long)st->threads,
		    st->estimated & 2 ? "~" : "",
		    (unsigned long long)st->locks, st->estimated & 4 ? "~" : "",
		    (unsigned long long)st->vars,
		    (unsigned long long)st->events);
	if (st->estimated)
		tp_note("~: more than %u distinct ids of that kind, so the "
		    "count is an estimate (HyperLogLog, 1.6 %% standard "
		    "error, within %u %%)", RB_EXACT_IDS, RB_EST_PERCENT);
	if (events < st->events)
		tp_note("the file holds more events than the header says "
		    "(lenient: read to the end of the file)");
}

static void
std_report(const void *stats, int failed)
{
	const struct std_dec_stats *st = stats;

	(void)failed;
	tp_note("%llu event%s", (unsigned long long)st->events,
	    tp_s(st->events));
}

static void
dial9_report(const void *stats, int failed)
{
	const struct dial9_dec_stats *st = stats;

	(void)failed;
	if (st->stopped_at != TP_NONE)
		tp_note("stopped at offset 0x%llx (--lenient): %s",
		    (unsigned long long)st->stopped_at, st->stop_msg);
	tp_note("%llu segments, %llu schemas, %llu events, %llu string pools, "
	    "%llu stack pools, %llu resets (%llu backwards), %llu annotations",
	    (unsigned long long)st->headers, (unsigned long long)st->schemas,
	    (unsigned long long)st->events,
	    (unsigned long long)st->string_pools,
	    (unsigned long long)st->stack_pools,
	    (unsigned long long)st->resets,
	    (unsigned long long)st->resets_back,
	    (unsigned long long)st->annotations);
}

static void
wtf_report(const void *stats, int failed)
{
	const struct wtf_dec_stats *st = stats;

	(void)failed;
	if (st->version == 0)
		return;
	tp_note("%s trace: %llu records (%llu definitions, %llu of a wire id "
	    "defined before), %llu chunks, %llu parts, %llu records earlier "
	    "than the one before, %llu chunks and parts of unknown types",
	    st->version == WTF_LEGACY_VERSION ? "legacy v3" : "chunked v10",
	    (unsigned long long)st->records, (unsigned long long)st->defines,
	    (unsigned long long)st->redefined, (unsigned long long)st->chunks,
	    (unsigned long long)st->parts, (unsigned long long)st->backwards,
	    (unsigned long long)st->unknown);
}

static void
ucir_report(const void *stats, int failed)
{
	const struct ucir_dec_stats *st = stats;

	(void)failed;
	if (!st->header_done)
		return;
	if (st->level_guessed > 0)
		tp_note("%llu frames were not written by this zlib at any level "
		    "their header allows: txt2ucir gives back their ops, not "
		    "their bytes", (unsigned long long)st->level_guessed);
	tp_note("%s format, arch %s: %llu frames (%llu keyframes), %llu ops "
	    "(%llu bytes), %llu instructions, %llu reads, %llu writes, "
	    "%llu syscalls", st->variant == UCIR_TRACE ? "trace" : "replay",
	    st->arch, (unsigned long long)st->frames,
	    (unsigned long long)st->keyframes, (unsigned long long)st->ops,
	    (unsigned long long)st->inflated, (unsigned long long)st->insns,
	    (unsigned long long)st->reads, (unsigned long long)st->writes,
	    (unsigned long long)st->syscalls);
}

static const struct {
	const char *format;
	tp_report_fn *fn;
} reports[] = {
	{ "trac", trac_report },
	{ "rapidbin", rapidbin_report },
	{ "std", std_report },
	{ "dial9", dial9_report },
	{ "wtf", wtf_report },
	{ "ucir", ucir_report },
};

tp_report_fn *
tp_dec_report(const char *format)
{
	for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++)
		if (strcmp(reports[i].format, format) == 0)
			return reports[i].fn;
	return NULL;
}
