/*
 * RAPID's STD text format's registration: its row, its programs' options
 * and help, what std2txt and txt2std say after an input.
 */
#include "formats/registry.h"
#include "formats/std/std.h"

TP_FORMAT_ADAPT(std)

static void
dec_report(const void *stats, int failed, const struct tp_say *say)
{
	const struct std_dec_stats *st = stats;

	(void)failed;
	tp_say(say, TP_SAY_NOTE, "%llu event%s", (unsigned long long)st->events,
	    tp_s(st->events));
}

static void
enc_report(const void *stats, int failed, const struct tp_say *say)
{
	const struct std_enc_stats *st = stats;

	if (failed)
		return;
	if (st->requests > 0)
		tp_say(say, TP_SAY_WARN, "dropped %llu request event%s (mainline "
		    "RAPID cannot parse req; --keep-request keeps them)",
		    (unsigned long long)st->requests, tp_s(st->requests));
	if (st->branches > 0)
		tp_say(say, TP_SAY_WARN, "dropped %llu branch event%s (mainline "
		    "RAPID cannot parse branch; --all keeps them)",
		    (unsigned long long)st->branches, tp_s(st->branches));
	rapidbin_enc_say(&st->rb, 0, say);
	if (st->events == 0)
		tp_say(say, TP_SAY_WARN, "no event written: the output is empty "
		    "(the stream held no event record%s)",
		    st->requests + st->branches > 0 ?
		    " that is kept by default" : "");
	if (st->lossy > 0)
		tp_say(say, TP_SAY_NOTE, "%llu event%s bit63= or decor=, which STD "
		    "cannot express", (unsigned long long)st->lossy,
		    st->lossy == 1 ? " carries" : "s carry");
}

static int
set_all(void *target, const char *arg, struct tp_err *err)
{
	struct std_enc_opts *opts = target;

	(void)arg;
	(void)err;
	opts->keep_branch = opts->keep_request = 1;
	return 0;
}

static const struct tp_option enc_options[] = {
	TP_OPTION_FLAG("keep-request", 'r', struct std_enc_opts, keep_request,
	    "write request events as req(L<n>)"),
	TP_OPTION_SET("all", 'a', NULL, set_all,
	    "keep request and branch events"),
	TP_OPTION_FLAG("dense", 'd', struct std_enc_opts, rb.dense,
	    "renumber lock, var, child and loc values that do not fit "
	    "RapidBin's fields, instead of failing (as txt2rapidbin does)"),
	TP_OPTION_FLAG("no-pc", 'P', struct std_enc_opts, rb.no_pc,
	    "do not map pc= to locations (all get location 0)"),
	TP_OPTION_FLAG("strict", 's', struct std_enc_opts, rb.strict,
	    "records without a RapidBin meaning, and unknown fields, are "
	    "errors"),
	{ NULL }
};

const struct tp_format tp_format_std = {
	TP_FORMAT_MODULE(std),
	.desc = "RAPID STD text",
	.exts = ".std",
	.split = std_split,
	.flags = TP_FMT_TEXT,
	.dec.about =
	    "Read RAPID STD traces (T0|acq(L3)|362, or the bare-number flavour\n"
	    "T0|acq(3)|362) and write trace text, one RapidBin event per line.\n"
	    "FILEs are read in turn; without FILE, or when FILE is -, read\n"
	    "standard input.\n",
	.dec.exit1 = "malformed input (after the lines before the fault)",
	.dec.report = dec_report,
	.enc.about =
	    "Write the RapidBin events of trace text in RAPID's STD format\n"
	    "(T0|acq(L3)|362), mapped as txt2rapidbin maps them: the read and\n"
	    "write records of other formats (addr=, size=, pc=) become variables\n"
	    "and locations, inputs tagged input=N stay apart.  Request and branch\n"
	    "events, which mainline RAPID cannot parse, are dropped and counted\n"
	    "unless kept.  Without FILE, or when FILE is -, read standard input.\n",
	.enc.exit1 = "malformed input (after the lines before the fault)",
	.enc.options = enc_options,
	.enc.report = enc_report,
};
