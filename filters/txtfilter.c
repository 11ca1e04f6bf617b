/*
 * txtfilter: select records of trace text streams by thread, address,
 * kind, time or an expression on any field, passing comments and format
 * structure through; grep's habits for files, -v, -c, -m, -l, -H, -h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "tools/filter.h"
#include "base/digits.h"
#include "io/input.h"
#include "opts.h"
#include "io/output.h"
#include "driver.h"
#include "text/text.h"

static const char help[] =
"Usage: txtfilter [-cHhlv] [-e EXPR]... [-t LIST] [-a RANGES] [-k KINDS] [-T RANGE] [-m N] [-o FILE] [FILE]...\n"
"Write the records of trace text streams that match every selector given;\n"
"comments, blank lines and format structure records always pass.\n"
"\n"
"  -e, --expr=EXPR      an expression on any field, for example\n"
"                         'kind == write and addr in 0x601000+0x1000 and tid != 7'\n"
"                         'var == 5 or lock in 3-4'   'name ~ \"^tokio\\\\.\"'\n"
"                         (comparisons == != < <= > >=, in LIST, ~ !~ REGEX,\n"
"                         kind == KIND, has(FIELD), and, or, not, parentheses)\n"
"  -t, --tid=LIST       thread ids: 42,43 or ranges 1-9, 100-, -7\n"
"  -a, --addr=RANGES    records whose pc or addr is in a range:\n"
"                         0x401000-0x401fff (inclusive), 0x401000+0x1000\n"
"                         (start and length), 0x7ff0000000 (one address)\n"
"  -k, --type=KINDS     shared kinds: insn,read,write,acquire,release,request,\n"
"                         fork,join,begin,end,branch,event (also --kind)\n"
"  -T, --ts=RANGE       time in nanoseconds: A-B (inclusive), A-, -B, A+N\n"
"  -v, --invert         write the records that do not match instead (also -N)\n"
"  -c, --count          print only the number of selected records\n"
"  -m, --max-count=N    stop reading a file after N selected records\n"
"  -l, --files-with-matches  print only the names of files with a selected record\n"
"  -H, --with-filename  start each line with its file name (the default for\n"
"                         several files)\n"
"  -h, --no-filename    never start lines with a file name\n"
"  -o, --output=FILE    write to FILE instead of stdout\n"
"  -q, --quiet          no warnings\n"
"      --verbose        report the counts on stderr\n"
"      --help           this help\n"
"  -V, --version        the version\n"
"\n"
"Repeating a selector (-e included) widens it; different selectors must all\n"
"match.  Exit status: 0 if a record was selected, 1 if none, 2 on error.\n";

enum { OPT_VERBOSE = 256, OPT_HELP };

static const struct option longopts[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, 'V' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "expr", required_argument, NULL, 'e' },
	{ "tid", required_argument, NULL, 't' },
	{ "addr", required_argument, NULL, 'a' },
	{ "type", required_argument, NULL, 'k' },
	{ "kind", required_argument, NULL, 'k' },
	{ "ts", required_argument, NULL, 'T' },
	{ "invert", no_argument, NULL, 'v' },
	{ "invert-match", no_argument, NULL, 'v' },
	{ "count", no_argument, NULL, 'c' },
	{ "max-count", required_argument, NULL, 'm' },
	{ "files-with-matches", no_argument, NULL, 'l' },
	{ "with-filename", no_argument, NULL, 'H' },
	{ "no-filename", no_argument, NULL, 'h' },
	{ 0 }
};

struct cmdline {
	struct tp_common com;
	struct tf_filter f;
	int count, list;
	int names;		/* -H 1, -h 0, -1: by the number of files */
};

/* "FILE:N\n" or "N\n" */
static void
put_count(struct tp_out *o, const char *label, uint64_t n)
{
	char buf[24], *p = tp_fmt_u64(buf, n);

	if (label != NULL) {
		tp_out_puts(o, label);
		tp_out_putc(o, ':');
	}
	*p++ = '\n';
	tp_out_write(o, buf, (size_t)(p - buf));
}

/*
 * Filter one input into out; returns its selected count, or -1 after
 * printing a diagnostic (the lines before a bad one stay written).
 */
static int64_t
filter_one(struct cmdline *cl, const char *path, int label, struct tp_out *out)
{
	struct tf_stats st;
	struct tp_err err;
	struct tp_in in;
	struct tr_reader r;
	const char *name;
	int rc;

	tp_err_clear(&err);
	if (tp_in_open(&in, path, &err) < 0) {
		tp_err_print(&err, in.name);
		tp_in_close(&in);
		return -1;
	}
	/* grep's name for standard input in file-name prefixes. */
	name = path == NULL || strcmp(path, "-") == 0 ? "(standard input)" : path;
	cl->f.label = label && !cl->count && !cl->list ? name : NULL;
	tr_init(&r, &in);
	rc = tf_run(&cl->f, &r, cl->count || cl->list ? NULL : out, &st);
	if (tp_in_close(&in) < 0)
		rc = -1;
	if (rc < 0) {
		tp_err_print(&err, in.name);
		return -1;
	}
	if (cl->list) {
		if (st.selected > 0) {
			tp_out_puts(out, name);
			tp_out_putc(out, '\n');
		}
	} else if (cl->count) {
		put_count(out, label ? name : NULL, st.selected);
	}
	if (st.near_kinds > 0)
		tp_warn("%s:%llu: kind \"%s\" is not \"%s\": passed on as a "
		    "structure record (%llu such line%s)", in.name,
		    (unsigned long long)st.first_near_line, st.first_near,
		    st.first_near_shared, (unsigned long long)st.near_kinds,
		    tp_s(st.near_kinds));
	tp_note("%s: %llu selected, %llu rejected, %llu passed", in.name,
	    (unsigned long long)st.selected, (unsigned long long)st.rejected,
	    (unsigned long long)st.passed);
	return (int64_t)st.selected;
}

int
main(int argc, char **argv)
{
	struct cmdline cl = { .names = -1 };
	struct tp_err err;
	struct tp_out out;
	uint64_t max;
	int c, i, nfiles, selected = 0, failed = 0, rc;

	tp_setprog(argv[0]);
	tp_err_clear(&err);
	tf_init(&cl.f);
	while ((c = getopt_long(argc, argv, "o:qVe:t:a:k:T:vNcm:lHh", longopts,
	    NULL)) != -1) {
		rc = 0;
		switch (c) {
		case 'e':
			rc = tf_add_expr(&cl.f, optarg, &err);
			break;
		case 't':
			rc = tf_add_tid(&cl.f, optarg, &err);
			break;
		case 'a':
			rc = tf_add_addr(&cl.f, optarg, &err);
			break;
		case 'k':
			rc = tf_add_type(&cl.f, optarg, &err);
			break;
		case 'T':
			rc = tf_add_ts(&cl.f, optarg, &err);
			break;
		case 'v':
		case 'N':
			cl.f.invert = 1;
			break;
		case 'c':
			cl.count = 1;
			break;
		case 'm':
			if (tp_parse_u64(optarg, strlen(optarg), &max) < 0)
				tp_usage_error(help, "-m: \"%s\" is not a number",
				    optarg);
			cl.f.max = max;
			break;
		case 'l':
			cl.list = 1;
			break;
		case 'H':
		case 'h':
			cl.names = c == 'H';
			break;
		case OPT_VERBOSE:
			tp_opt_common('v', &cl.com, help);
			break;
		case OPT_HELP:
			tp_opt_common('h', &cl.com, help);
			break;
		default:
			tp_opt_common(c, &cl.com, help);
		}
		if (rc < 0)
			tp_usage_error(help, "%s", err.msg);
	}
	/* -l needs only the first selected record of each file. */
	if (cl.list)
		cl.f.max = cl.f.max < 1 ? cl.f.max : 1;
	nfiles = argc - optind;
	if (cl.names < 0)
		cl.names = nfiles > 1;

	if ((rc = tp_open_output(&out, cl.com.output, 0)) != 0) {
		tf_free(&cl.f);
		return rc;
	}
	for (i = 0; i < (nfiles > 0 ? nfiles : 1); i++) {
		int64_t n = filter_one(&cl, nfiles > 0 ? argv[optind + i] : NULL,
		    cl.names, &out);
		if (n < 0)
			failed = 1;
		else if (n > 0)
			selected = 1;
	}
	tf_free(&cl.f);
	/*
	 * The lines before a bad one stay written where they went as they
	 * came, as grep's would; a file written under a temporary name is
	 * created only when all went well.
	 */
	if (tp_close_output(&out, !failed || out.tmppath == NULL) != 0 ||
	    failed)
		return TP_EXIT_FAIL;
	return selected ? TP_EXIT_OK : 1;
}
