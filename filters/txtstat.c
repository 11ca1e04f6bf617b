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
#include "tools/filter.h"
#include "tools/stat.h"
#include "diag.h"
#include "driver.h"
#include "opts.h"

static const char about[] =
"Summarise trace text streams in one pass: records per kind, per thread and\n"
"per event name; time span and rate; seq range; data and code addresses,\n"
"reads and writes, shared and multi-writer variables, the most accessed\n"
"addresses; per lock acquisitions, threads and longest hold; the fork tree.\n"
"With several FILEs, a report of each and then of the total. The durations\n"
"of slices (paired as txt2chrome pairs them) per kind of slice. --json\n"
"reports carry what --merge needs to print the report of their whole.\n"
"--ts summarises the records txtfilter --ts would pass.\n";

static int
count_arg(const char *opt, const char *s, int zero_ok, size_t *n,
    struct tp_err *err)
{
	uint64_t v;

	if (tp_parse_u64(s, strlen(s), &v) < 0 || v > SIZE_MAX / 2 ||
	    (v == 0 && !zero_ok))
		return tp_fail(err, TP_EXIT_FAIL, "%s: \"%s\" is not a %snumber",
		    opt, s, zero_ok ? "" : "positive ");
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

/* --ts: txtfilter's own selector, so that a range means the same. */
static int
set_ts(void *target, const char *arg, struct tp_err *err)
{
	return tf_add_ts(target, arg, err);
}

static const struct tp_option select_options[] = {
	TP_OPTION_SET("ts", 'T', "RANGE", set_ts, "only the records whose ts "
	    "is in RANGE (as txtfilter --ts: 1773850000.5-1773850001, "
	    "A+20ms, a UTC date)"),
	{ NULL }
};

static const struct tp_option options[] = {
	TP_OPTION_FLAG("json", 'j', struct ts_opts, json,
	    "one JSON object instead of the aligned report"),
	TP_OPTION_FLAG("merge", 'm', struct ts_opts, merge,
	    "the FILEs are reports of txtstat --json: report their whole"),
	TP_OPTION_SET("by", 'b', "FIELD", set_by,
	    "only a count table of the values of FIELD (or kind)"),
	TP_OPTION_SET("top", 'n', "N", set_top,
	    "rows per table (default 10; 0: all)"),
	TP_OPTION_SET("max-keys", 0, "N", set_max_keys, "distinct keys kept "
	    "per table (default 65536); past it, distinct counts are "
	    "estimates"),
	{ NULL }
};

struct run {
	struct ts_opts *o;
	struct ts_stat *total;
	int nfiles;
};

/*
 * One FILE: into the total when it is the only one, else its own
 * report, then merged into the total.
 */
static int
add_input(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	struct run *run = ctx;
	struct tr_reader r;
	struct ts_stat *part;
	int rc;

	tr_init(&r, in);
	if (run->nfiles <= 1)
		return ts_add_input(run->total, &r);
	if ((part = ts_new(run->o)) == NULL)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	if ((rc = ts_add_input(part, &r)) == 0) {
		ts_report(part, out, in->name, 0);
		if (ts_merge(run->total, part) < 0)
			rc = tp_fail(err, TP_EXIT_FAIL, "out of memory");
	}
	ts_free(part);
	return rc;
}

/* --merge: one JSON report, read whole, into the total. */
static int
merge_input(struct tp_in *in, struct tp_out *out, void *ctx,
    struct tp_err *err)
{
	struct run *run = ctx;
	struct ts_stat *part;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	long n;
	int rc = 0;

	(void)out;
	for (;;) {
		if (len + 65536 > cap) {
			char *nb = realloc(buf, cap = 2 * cap + 65536);
			if (nb == NULL) {
				free(buf);
				return tp_fail(err, TP_EXIT_FAIL, "out of memory");
			}
			buf = nb;
		}
		if ((n = tp_in_read(in, buf + len, cap - len)) < 0) {
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if ((part = ts_load_json(run->o, buf, len, err)) == NULL)
		rc = -1;
	else if (ts_merge(run->total, part) < 0)
		rc = tp_fail(err, TP_EXIT_FAIL, "out of memory");
	ts_free(part);
	free(buf);
	return rc;
}

/* The report, once every input is in. */
static int
report(void *ctx, struct tp_out *out, struct tp_err *err)
{
	struct run *run = ctx;

	(void)err;
	ts_report(run->total, out, NULL, run->nfiles > 1 && !run->o->merge ?
	    (size_t)run->nfiles : 0);
	return 0;
}

int
main(int argc, char **argv)
{
	struct ts_opts o = { .top = 10, .max_keys = TS_MAX_KEYS_DEFAULT };
	struct tf_filter sel;
	const struct tp_optset sets[] = { { options, &o, NULL },
	    { select_options, &sel, NULL } };
	struct tp_program p = { .usage = "[--json] [--by FIELD] [--top N] "
	    "[--max-keys N] [--ts RANGE] [-o FILE] [FILE]...\n"
	    "       txtstat --merge [--json] [--top N] [--max-keys N] [-o FILE] "
	    "REPORT.json...", .about = about,
	    .exit1 = "malformed input (no report)", .sets = sets, .nsets = 2 };
	int first, status;
	struct tp_each each = { NULL, 0, TP_EACH_TEXT, add_input, NULL,
	    report, NULL };
	struct run run = { &o, NULL, 0 };

	tf_init(&sel);
	first = tp_parse(&p, argc, argv);
	run.nfiles = argc - first;
	each.output = p.output;
	if (sel.ts.n != 0) {
		/* A report holds no records left to choose from. */
		if (o.merge) {
			tp_error("--ts: not with --merge (select before "
			    "txtstat --json)");
			tf_free(&sel);
			return TP_EXIT_FAIL;
		}
		o.select = &sel;
	}
	if (o.merge) {
		each.flags = 0;
		each.fn = merge_input;
	}
	if ((run.total = ts_new(&o)) == NULL) {
		tp_error("out of memory");
		return TP_EXIT_FAIL;
	}
	each.ctx = &run;
	status = tp_run_each(&each, argc - first, argv + first);
	ts_free(run.total);
	tf_free(&sel);
	return status;
}
