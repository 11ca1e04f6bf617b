/*
 * txtstat: a one-pass summary of trace text streams: records per kind,
 * thread and event name, time and seq ranges, memory and code addresses,
 * shared variables, locks, the fork tree; or a count table on one field.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "io/input.h"
#include "opts.h"
#include "io/output.h"
#include "driver.h"
#include "tools/stat.h"
#include "text/text.h"

static const char help[] =
"Usage: txtstat [--json] [--by FIELD] [--top N] [--max-keys N] [-o FILE] [FILE]...\n"
"Summarise trace text streams in one pass: records per kind, per thread and\n"
"per event name; time span and rate; seq range; data and code addresses,\n"
"reads and writes, shared and multi-writer variables, the most accessed\n"
"addresses; per lock acquisitions, threads and longest hold; the fork tree.\n"
"\n"
"  -j, --json           one JSON object instead of the aligned report\n"
"  -b, --by=FIELD       only a count table of the values of FIELD (or kind)\n"
"  -n, --top=N          rows per table (default 10; 0: all)\n"
"      --max-keys=N     distinct keys kept per table (default 1048576);\n"
"                         past it, distinct counts are estimates\n"
"  -o, --output=FILE    write to FILE instead of stdout\n"
"  -q, --quiet          no warnings\n"
"  -v, --verbose        more messages\n"
"  -h, --help           this help\n"
"  -V, --version        the version\n"
"\n"
"Several FILEs are summarised together.  Exit status: 0, 1 for malformed\n"
"input (no report), 2 for a usage or system error.\n";

enum { OPT_MAX_KEYS = 256 };

static const struct option longopts[] = {
	TP_COMMON_LONGOPTS,
	{ "json", no_argument, NULL, 'j' },
	{ "by", required_argument, NULL, 'b' },
	{ "top", required_argument, NULL, 'n' },
	{ "max-keys", required_argument, NULL, OPT_MAX_KEYS },
	{ 0 }
};

static size_t
count_arg(const char *opt, const char *s, int zero_ok)
{
	uint64_t v;

	if (tp_parse_u64(s, strlen(s), &v) < 0 || v > SIZE_MAX / 2 ||
	    (v == 0 && !zero_ok))
		tp_usage_error(help, "%s: \"%s\" is not a %s number", opt, s,
		    zero_ok ? "" : "positive");
	return (size_t)v;
}

int
main(int argc, char **argv)
{
	struct tp_common com = { 0 };
	struct ts_opts o = { .top = 10, .max_keys = TS_MAX_KEYS_DEFAULT };
	struct ts_stat *s;
	struct tp_out out;
	int c, i, nfiles, rc = 0;

	tp_setprog(argv[0]);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "jb:n:",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json = 1;
			break;
		case 'b':
			if (*optarg == '\0')
				tp_usage_error(help, "--by: empty field name");
			o.by = optarg;
			break;
		case 'n':
			o.top = count_arg("--top", optarg, 1);
			break;
		case OPT_MAX_KEYS:
			o.max_keys = count_arg("--max-keys", optarg, 0);
			break;
		default:
			tp_opt_common(c, &com, help);
		}
	}
	if ((s = ts_new(&o)) == NULL) {
		tp_error("out of memory");
		return TP_EXIT_FAIL;
	}
	/* A directory or an unusable -o is refused before any input is read. */
	if ((rc = tp_open_output(&out, com.output, 0)) != 0) {
		ts_free(s);
		return rc;
	}
	nfiles = argc - optind;
	for (i = 0; i < (nfiles > 0 ? nfiles : 1) && rc == 0; i++) {
		const char *path = nfiles > 0 ? argv[optind + i] : NULL;
		struct tp_err err;
		struct tp_in in;
		struct tr_reader r;

		tp_err_clear(&err);
		if (tp_in_open(&in, path, &err) < 0) {
			tp_err_print(&err, in.name);
			tp_in_close(&in);
			rc = TP_EXIT_FAIL;
			break;
		}
		tr_init(&r, &in);
		if (ts_add_input(s, &r) < 0 || tp_in_close(&in) < 0) {
			tp_err_print(&err, in.name);
			rc = err.status;
		}
		tp_in_close(&in);
	}
	if (rc == 0)
		ts_report(s, &out);
	if (tp_close_output(&out, rc == 0) != 0 && rc == 0)
		rc = TP_EXIT_FAIL;
	ts_free(s);
	return rc;
}
