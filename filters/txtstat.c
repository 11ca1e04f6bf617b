/*
 * txtstat: a one-pass summary of trace text streams: records per kind,
 * thread and event name, time and seq ranges, memory and code addresses,
 * shared variables, locks, the fork tree; or a count table on one field.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/input.h"
#include "io/output.h"
#include "text/text.h"
#include "tools/stat.h"
#include "diag.h"
#include "driver.h"
#include "opts.h"

static const char about[] =
"Summarise trace text streams in one pass: records per kind, per thread and\n"
"per event name; time span and rate; seq range; data and code addresses,\n"
"reads and writes, shared and multi-writer variables, the most accessed\n"
"addresses; per lock acquisitions, threads and longest hold; the fork tree.\n"
"Several FILEs are summarised together.\n";

static int
count_arg(const char *opt, const char *s, int zero_ok, size_t *n,
    struct tp_err *err)
{
	uint64_t v;

	if (tp_parse_u64(s, strlen(s), &v) < 0 || v > SIZE_MAX / 2 ||
	    (v == 0 && !zero_ok))
		return tp_fail(err, TP_EXIT_FAIL, "%s: \"%s\" is not a %s number",
		    opt, s, zero_ok ? "" : "positive");
	*n = (size_t)v;
	return 0;
}

static int
set_by(void *target, const char *arg, struct tp_err *err)
{
	if (*arg == '\0')
		return tp_fail(err, TP_EXIT_FAIL, "--by: empty field name");
	((struct ts_opts *)target)->by = arg;
	return 0;
}

static int
set_top(void *target, const char *arg, struct tp_err *err)
{
	return count_arg("--top", arg, 1, &((struct ts_opts *)target)->top,
	    err);
}

static int
set_max_keys(void *target, const char *arg, struct tp_err *err)
{
	return count_arg("--max-keys", arg, 0,
	    &((struct ts_opts *)target)->max_keys, err);
}

static const struct tp_option options[] = {
	TP_OPTION_FLAG("json", 'j', struct ts_opts, json,
	    "one JSON object instead of the aligned report"),
	TP_OPTION_SET("by", 'b', "FIELD", set_by,
	    "only a count table of the values of FIELD (or kind)"),
	TP_OPTION_SET("top", 'n', "N", set_top,
	    "rows per table (default 10; 0: all)"),
	TP_OPTION_SET("max-keys", 0, "N", set_max_keys, "distinct keys kept "
	    "per table (default 1048576); past it, distinct counts are "
	    "estimates"),
	{ NULL }
};

static int
add_input(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	struct tr_reader r;

	(void)out;
	(void)err;
	tr_init(&r, in);
	return ts_add_input(ctx, &r);
}

/* The report, once every input is in. */
static int
report(void *ctx, struct tp_out *out, struct tp_err *err)
{
	(void)err;
	ts_report(ctx, out);
	return 0;
}

int
main(int argc, char **argv)
{
	struct ts_opts o = { .top = 10, .max_keys = TS_MAX_KEYS_DEFAULT };
	const struct tp_optset sets[] = { { options, &o, NULL } };
	struct tp_program p = { .usage = "[--json] [--by FIELD] [--top N] "
	    "[--max-keys N] [-o FILE] [FILE]...", .about = about,
	    .exit1 = "malformed input (no report)", .sets = sets, .nsets = 1 };
	int first = tp_parse(&p, argc, argv), status;
	struct tp_each each = { p.output, 0, TP_EACH_TEXT, add_input, NULL, report, NULL };
	struct ts_stat *s;

	if ((s = ts_new(&o)) == NULL) {
		tp_error("out of memory");
		return TP_EXIT_FAIL;
	}
	each.ctx = s;
	status = tp_run_each(&each, argc - first, argv + first);
	ts_free(s);
	return status;
}
