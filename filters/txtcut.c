/*
 * txtcut: a table of chosen fields of trace text streams, one row per
 * record, as TSV or CSV, with ts in seconds or as a date on request.
 */
#include <string.h>

#include "io/input.h"
#include "io/output.h"
#include "text/text.h"
#include "tools/cut.h"
#include "tools/timefmt.h"
#include "diag.h"
#include "driver.h"
#include "opts.h"

static const char about[] =
"Write the fields named by -f of each record of trace text streams as a\n"
"table, one row per record (comments and blank lines make none), TSV with\n"
"a header row unless told otherwise.  A record lacking a field has an empty\n"
"cell; the field kind is the record's kind.  Several FILEs make one table.\n";

static int
set_fields(void *target, const char *arg, struct tp_err *err)
{
	return tc_fields(target, arg, err);
}

static int
set_time(void *target, const char *arg, struct tp_err *err)
{
	int m = tp_time_mode(arg);

	if (m < 0)
		return tp_fail(err, TP_EXIT_FAIL, "--time: \"%s\" is not one of "
		    "%s", arg, TP_TIME_MODES);
	((struct tc_cut *)target)->time = (enum tp_time_mode)m;
	return 0;
}

static const struct tp_option options[] = {
	TP_OPTION_SET("fields", 'f', "LIST", set_fields,
	    "the fields, in the order of the columns: kind,ts,tid,pc"),
	TP_OPTION_FLAG("csv", 'c', struct tc_cut, csv,
	    "CSV (RFC 4180 quoting) instead of TSV"),
	TP_OPTION_FLAG("no-header", 0, struct tc_cut, no_header,
	    "no header row"),
	TP_OPTION_SET("time", 't', "MODE", set_time,
	    "ts as ns (as written), seconds, rel (since the first record), "
	    "delta (since the previous one) or date (UTC, ISO 8601)"),
	TP_OPTION_FLAG("shared", 's', struct tc_cut, shared_only,
	    "rows only for records of the shared kinds (no headers, "
	    "schemas or definitions)"),
	{ NULL }
};

static int
cut_one(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	struct tr_reader r;

	(void)err;
	tr_init(&r, in);
	return tc_run(ctx, &r, out);
}

int
main(int argc, char **argv)
{
	struct tc_cut c;
	const struct tp_optset sets[] = { { options, &c, NULL } };
	struct tp_program p = { .usage = "-f FIELD[,FIELD]... [--csv] "
	    "[--no-header] [--time MODE] [-s] [-o FILE] [FILE]...",
	    .about = about, .exit1 = "malformed input (after the rows "
	    "before it)", .sets = sets, .nsets = 1 };
	struct tp_each each = { NULL, 0, TP_EACH_TEXT, cut_one, NULL, NULL,
	    &c };
	int first, status;

	tc_init(&c);
	first = tp_parse(&p, argc, argv);
	if (c.ncols == 0)
		tp_usage_error(&p, "no fields: -f FIELD[,FIELD]... says which");
	each.output = p.output;
	status = tp_run_each(&each, argc - first, argv + first);
	tp_note("%llu rows", (unsigned long long)c.rows);
	tc_free(&c);
	return status;
}
