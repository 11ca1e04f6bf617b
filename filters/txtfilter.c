/*
 * txtfilter: select records of trace text streams by thread, address,
 * kind, time or an expression on any field, passing comments and format
 * structure through; grep's habits for files, -v, -c, -m, -l, -H, -h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/digits.h"
#include "io/input.h"
#include "io/output.h"
#include "text/text.h"
#include "tools/filter.h"
#include "diag.h"
#include "driver.h"
#include "opts.h"

static const char about[] =
"Write the records of trace text streams that match every selector given;\n"
"comments, blank lines and format structure records always pass.\n"
"Repeating a selector (-e included) widens it; different selectors must all\n"
"match.\n";

struct cmdline {
	struct tf_filter f;
	int count, list;
	int quiet;		/* -q: grep's, nothing written */
	int names;		/* -H 1, -h 0, -1: by the number of files */
	struct tp_out *out;	/* while the inputs are read */
	struct tf_stats st;	/* of the last input */
	const char *name;	/* its name in what is written */
	const char *in_name;	/* and in diagnostics */
	int selected;		/* some input had a selected record */
};

static int
set_expr(void *cl, const char *arg, struct tp_err *err)
{
	return tf_add_expr(&((struct cmdline *)cl)->f, arg, err);
}

static int
set_tid(void *cl, const char *arg, struct tp_err *err)
{
	return tf_add_tid(&((struct cmdline *)cl)->f, arg, err);
}

static int
set_addr(void *cl, const char *arg, struct tp_err *err)
{
	return tf_add_addr(&((struct cmdline *)cl)->f, arg, err);
}

static int
set_type(void *cl, const char *arg, struct tp_err *err)
{
	return tf_add_type(&((struct cmdline *)cl)->f, arg, err);
}

static int
set_ts(void *cl, const char *arg, struct tp_err *err)
{
	return tf_add_ts(&((struct cmdline *)cl)->f, arg, err);
}

static int
set_max(void *cl, const char *arg, struct tp_err *err)
{
	uint64_t max;

	if (tp_parse_u64(arg, strlen(arg), &max) < 0)
		return tp_fail(err, TP_EXIT_FAIL, "-m: \"%s\" is not a number",
		    arg);
	((struct cmdline *)cl)->f.max = max;
	return 0;
}

static int
set_no_filename(void *cl, const char *arg, struct tp_err *err)
{
	(void)arg;
	(void)err;
	((struct cmdline *)cl)->names = 0;
	return 0;
}

/* grep's -q: no output at all, and no warnings (the shared -q's). */
static int
set_quiet(void *cl, const char *arg, struct tp_err *err)
{
	(void)arg;
	(void)err;
	((struct cmdline *)cl)->quiet = 1;
	tp_verbosity = 0;
	return 0;
}

static int
set_no_messages(void *cl, const char *arg, struct tp_err *err)
{
	(void)cl;
	(void)arg;
	(void)err;
	tp_verbosity = 0;
	return 0;
}

/* grep's letters: -v inverts, -h is no file name (--verbose, --help). */
static const struct tp_option options[] = {
	TP_OPTION_SET("expr", 'e', "EXPR", set_expr,
	    "an expression on any field, for example\n"
	    "  'kind == write and addr in 0x601000+0x1000 and tid != 7'\n"
	    "  'var == 5 or lock in 3-4'   'name ~ \"^tokio\\\\.\"'\n"
	    "  (comparisons == != < <= > >=, in LIST, ~ !~ REGEX,\n"
	    "  kind == KIND, has(FIELD), and, or, not, parentheses)"),
	TP_OPTION_SET("tid", 't', "LIST", set_tid,
	    "thread ids: 42,43 or ranges 1-9, 100-, -7"),
	TP_OPTION_SET("addr", 'a', "RANGES", set_addr,
	    "records whose pc or addr is in a range:\n"
	    "  0x401000-0x401fff (inclusive), 0x401000+0x1000\n"
	    "  (start and length), 0x7ff0000000 (one address)"),
	TP_OPTION_SET("type", 'k', "KINDS", set_type,
	    "shared kinds:\n"
	    "  insn,read,write,acquire,release,request,\n"
	    "  fork,join,begin,end,branch,event (also --kind)"),
	TP_OPTION_SET("kind", 0, "KINDS", set_type, NULL),
	TP_OPTION_SET("ts", 'T', "RANGE", set_ts,
	    "times: A-B (inclusive), A-, -B, A+LEN; nanoseconds,\n"
	    "  seconds with a fraction or a unit (1.5s 20ms 3us),\n"
	    "  or a UTC date (2026-03-18T12:00:00.5Z)"),
	TP_OPTION_FLAG("invert", 'v', struct cmdline, f.invert,
	    "write the records that do not match instead (also -N)"),
	TP_OPTION_FLAG("invert-match", 'N', struct cmdline, f.invert, NULL),
	TP_OPTION_FLAG("count", 'c', struct cmdline, count,
	    "print only the number of selected records"),
	TP_OPTION_SET("max-count", 'm', "N", set_max,
	    "stop reading a file after N selected records"),
	TP_OPTION_FLAG("files-with-matches", 'l', struct cmdline, list,
	    "print only the names of files with a selected record"),
	TP_OPTION_FLAG("with-filename", 'H', struct cmdline, names,
	    "start each line with its file name (the default for several "
	    "files)"),
	TP_OPTION_SET("no-filename", 'h', NULL, set_no_filename,
	    "never start lines with a file name"),
	TP_OPTION_SET("quiet", 'q', NULL, set_quiet,
	    "write nothing, no warnings either; exit 0 at the first "
	    "selected record (also --silent)"),
	TP_OPTION_SET("silent", 0, NULL, set_quiet, NULL),
	TP_OPTION_SET("no-messages", 's', NULL, set_no_messages,
	    "no warnings (what -q is to the other programs)"),
	{ NULL }
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

/* Filter one input into out (the lines before a bad one stay written). */
static int
filter_one(struct tp_in *in, struct tp_out *out, void *ctx,
    struct tp_err *err)
{
	struct cmdline *cl = ctx;
	struct tr_reader r;

	(void)err;
	/* grep's name for standard input in file-name prefixes. */
	cl->name = in->fd == 0 && strcmp(in->name, "<stdin>") == 0 ?
	    "(standard input)" : in->name;
	cl->in_name = in->name;
	cl->f.label = cl->names && !cl->count && !cl->list ? cl->name : NULL;
	cl->out = out;
	tr_init(&r, in);
	return tf_run(&cl->f, &r, cl->count || cl->list || cl->quiet ? NULL :
	    out, &cl->st);
}

/* What is said of an input that was read to its end. */
static void
filtered(void *ctx, int failed)
{
	struct cmdline *cl = ctx;
	const struct tf_stats *st = &cl->st;

	if (failed)
		return;
	if (cl->quiet) {
	} else if (cl->list) {
		if (st->selected > 0) {
			tp_out_puts(cl->out, cl->name);
			tp_out_putc(cl->out, '\n');
		}
	} else if (cl->count) {
		put_count(cl->out, cl->names ? cl->name : NULL, st->selected);
	}
	if (st->near_kinds > 0)
		tp_warn("%s:%llu: kind \"%s\" is not \"%s\": passed on as a "
		    "structure record (%llu such line%s)", cl->in_name,
		    (unsigned long long)st->first_near_line, st->first_near,
		    st->first_near_shared, (unsigned long long)st->near_kinds,
		    tp_s(st->near_kinds));
	tp_note("%s: %llu selected, %llu rejected, %llu passed", cl->in_name,
	    (unsigned long long)st->selected, (unsigned long long)st->rejected,
	    (unsigned long long)st->passed);
	if (st->selected > 0)
		cl->selected = 1;
}

int
main(int argc, char **argv)
{
	struct cmdline cl = { .names = -1 };
	const struct tp_optset sets[] = { { options, &cl, NULL } };
	struct tp_program p = { .usage = "[-cHhlqsv] [-e EXPR]... [-t LIST] "
	    "[-a RANGES] [-k KINDS] [-T RANGE] [-m N] [-o FILE] [FILE]...",
	    .about = about, .exit0 = "if a record was selected",
	    .exit1 = "if none", .sets = sets, .nsets = 1 };
	struct tp_each each = { NULL, 0, TP_EACH_KEEP_GOING | TP_EACH_TEXT,
	    filter_one,
	    filtered, NULL, &cl };
	int first, nfiles, status;

	tf_init(&cl.f);
	first = tp_parse(&p, argc, argv);
	/* -l and -q need only the first selected record of each file. */
	if (cl.list || cl.quiet)
		cl.f.max = cl.f.max < 1 ? cl.f.max : 1;
	if (cl.quiet && p.output != NULL)
		tp_usage_error(&p, "-q writes nothing: -o has no use with it");
	nfiles = argc - first;
	if (cl.names < 0)
		cl.names = nfiles > 1;
	each.output = p.output;
	/* As grep: an input that cannot be read makes it an error (2). */
	if (!cl.quiet) {
		status = tp_run_each(&each, nfiles, argv + first);
	} else {
		/*
		 * As grep -q: the first selected record ends the run, and the
		 * inputs after it are not even opened; it is a success even
		 * when an input before it could not be read.
		 */
		int i, s;
		status = tp_run_each(&each, nfiles > 0, argv + first);
		for (i = 1; i < nfiles && !cl.selected; i++)
			if ((s = tp_run_each(&each, 1, argv + first + i)) >
			    status)
				status = s;
		if (cl.selected)
			status = TP_EXIT_OK;
	}
	tf_free(&cl.f);
	if (status != TP_EXIT_OK)
		return TP_EXIT_FAIL;
	return cl.selected ? TP_EXIT_OK : 1;
}
