/*
 * txtfilter: select records of a trace text stream by thread, address,
 * kind and time, passing comments and format structure through.
 */
#include <stdio.h>
#include <stdlib.h>

#include "diag.h"
#include "filter.h"
#include "fmt.h"
#include "input.h"
#include "opts.h"
#include "output.h"
#include "prog.h"
#include "text.h"

static const char help[] =
"Usage: txtfilter [-cN] [-t LIST] [-a RANGES] [-k KINDS] [-T RANGE]... [-o FILE] [FILE]\n"
"Write the records of a trace text stream that match every selector given;\n"
"comments, blank lines and format structure records always pass.\n"
"\n"
"  -t, --tid=LIST       thread ids: 42,43 or ranges 1-9, 100-, -7\n"
"  -a, --addr=RANGES    records whose pc or addr is in a range:\n"
"                         0x401000-0x401fff (inclusive), 0x401000+0x1000\n"
"                         (start and length), 0x7ff0000000 (one address)\n"
"  -k, --type=KINDS     shared kinds: insn,read,write,acquire,release,request,\n"
"                         fork,join,begin,end,branch,event (also --kind)\n"
"  -T, --ts=RANGE       time in nanoseconds: A-B (inclusive), A-, -B, A+N\n"
"  -N, --invert         write the records that do not match instead\n"
"  -c, --count          print only the number of selected records\n"
"  -o, --output=FILE    write to FILE instead of stdout\n"
"  -q, --quiet          no warnings\n"
"  -v, --verbose        report the counts on stderr\n"
"  -h, --help           this help\n"
"  -V, --version        the version\n"
"\n"
"Repeating a selector widens it; different selectors must all match.\n"
"Exit status: 0 if a record was selected, 1 if none, 2 on error.\n";

static const struct option longopts[] = {
	TP_COMMON_LONGOPTS,
	{ "tid", required_argument, NULL, 't' },
	{ "addr", required_argument, NULL, 'a' },
	{ "type", required_argument, NULL, 'k' },
	{ "kind", required_argument, NULL, 'k' },
	{ "ts", required_argument, NULL, 'T' },
	{ "invert", no_argument, NULL, 'N' },
	{ "count", no_argument, NULL, 'c' },
	{ 0 }
};

int
main(int argc, char **argv)
{
	struct tp_common com = { 0 };
	struct tf_filter f;
	struct tf_stats st;
	struct tp_err err;
	struct tp_in in;
	struct tp_out out;
	struct tr_reader r;
	const char *input;
	int c, count = 0, rc;

	tp_setprog(argv[0]);
	tp_err_clear(&err);
	tf_init(&f);
	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "t:a:k:T:Nc",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			rc = tf_add_tid(&f, optarg, &err);
			break;
		case 'a':
			rc = tf_add_addr(&f, optarg, &err);
			break;
		case 'k':
			rc = tf_add_type(&f, optarg, &err);
			break;
		case 'T':
			rc = tf_add_ts(&f, optarg, &err);
			break;
		case 'N':
			f.invert = 1;
			rc = 0;
			break;
		case 'c':
			count = 1;
			rc = 0;
			break;
		default:
			tp_opt_common(c, &com, help);
			rc = 0;
		}
		if (rc < 0)
			tp_usage_error(help, "%s", err.msg);
	}
	input = tp_opt_input(argc, argv, help);

	if (tp_in_open(&in, input, &err) < 0) {
		tp_err_print(&err, in.name);
		tp_in_close(&in);
		tf_free(&f);
		return TP_EXIT_FAIL;
	}
	if ((rc = tp_open_output(&out, com.output, 0)) != 0) {
		tp_in_close(&in);
		tf_free(&f);
		return rc;
	}
	tr_init(&r, &in);
	rc = tf_run(&f, &r, count ? NULL : &out, &st);
	if (tp_in_close(&in) < 0)
		rc = -1;
	tf_free(&f);
	if (rc < 0) {
		/*
		 * The lines before the bad one stay written where they went
		 * as they came, as grep's would; a file written under a
		 * temporary name is not created.
		 */
		tp_close_output(&out, out.tmppath == NULL);
		tp_err_print(&err, in.name);
		return TP_EXIT_FAIL;
	}
	if (count) {
		char buf[24], *p = tp_fmt_u64(buf, st.selected);
		*p++ = '\n';
		tp_out_write(&out, buf, (size_t)(p - buf));
	}
	if (tp_close_output(&out, 1) != 0)
		return TP_EXIT_FAIL;
	tp_note("%llu selected, %llu rejected, %llu passed",
	    (unsigned long long)st.selected, (unsigned long long)st.rejected,
	    (unsigned long long)st.passed);
	return st.selected > 0 ? TP_EXIT_OK : 1;
}
