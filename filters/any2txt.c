/*
 * any2txt: decode traces of any format the format table knows, each
 * recognised by its content, with that format's own decoder, in process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

static char *help;

static const char help_head[] =
"Usage: any2txt [-l] [-F FORMAT] [OPTION]... [FILE]...\n"
"Decode traces into trace text, each FILE (gzip-compressed or not) with\n"
"the decoder of the format its content shows, as that format's own\n"
"X2txt program does; without FILE, or when FILE is -, read standard input.\n"
"\n"
"  -l, --list           only print FILE: FORMAT (details) for each input\n"
"  -F, --format=NAME    decode as NAME, whatever the content says\n"
"      --formats        list the formats known (name, decoder, description)\n"
"  -o, --output=FILE    write to FILE instead of standard output\n"
"  -q, --quiet          no warnings\n"
"  -v, --verbose        say which format each input is\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"Decoder options, passed to the formats that have them:\n";

static const char help_tail[] =
"\n"
"Exit status: 0 success, 1 malformed, truncated or unknown input (after\n"
"the records before the fault), 2 usage or system error.\n";

enum { MAX_FLAGS = 64, OPT_FORMATS = 255, OPT_FLAG = 256 };

/* The decoder flags of every row, each name once. */
static const struct tp_dec_flag *flag[MAX_FLAGS];
static int nflags;

/* The formats' names, for messages: "trac, rapidbin, std". */
static void
known(char *buf, size_t n)
{
	const struct tp_format *f;
	size_t k = 0;

	buf[0] = '\0';
	for (f = tp_formats; f->name != NULL && k < n; f++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ", " : "",
		    f->name);
}

/* Build the option table and the help from the format table. */
static struct option *
options(char *shortopts, size_t n)
{
	static const struct option common[] = {
		TP_COMMON_LONGOPTS,
		{ "list", no_argument, NULL, 'l' },
		{ "format", required_argument, NULL, 'F' },
		{ "formats", no_argument, NULL, OPT_FORMATS },
	};
	size_t nc = sizeof common / sizeof common[0], len = 0, k;
	struct option *o;
	const struct tp_format *f;
	const struct tp_dec_flag *d;
	char *h;
	int i;

	for (f = tp_formats; f->name != NULL; f++)
		for (d = f->dec_flags; d != NULL && d->name != NULL; d++) {
			for (i = 0; i < nflags; i++)
				if (strcmp(flag[i]->name, d->name) == 0)
					break;
			if (i == nflags && nflags < MAX_FLAGS)
				flag[nflags++] = d;
		}
	if ((o = calloc(nc + (size_t)nflags + 1, sizeof *o)) == NULL ||
	    (h = malloc(sizeof help_head + sizeof help_tail +
	    (size_t)nflags * 160)) == NULL) {
		tp_error("out of memory");
		exit(TP_EXIT_FAIL);
	}
	memcpy(o, common, sizeof common);
	snprintf(shortopts, n, "%slF:", TP_COMMON_SHORTOPTS);
	len = strlen(help_head);
	memcpy(h, help_head, len);
	for (i = 0; i < nflags; i++) {
		char s[3] = { 0 };
		o[nc + (size_t)i].name = flag[i]->name;
		o[nc + (size_t)i].has_arg = no_argument;
		o[nc + (size_t)i].val = OPT_FLAG + i;
		/* A short form when no option has it yet. */
		if (flag[i]->shortopt != 0 && strchr(shortopts,
		    flag[i]->shortopt) == NULL && (k = strlen(shortopts)) + 1 < n) {
			shortopts[k] = (char)flag[i]->shortopt;
			shortopts[k + 1] = '\0';
			s[0] = '-';
			s[1] = (char)flag[i]->shortopt;
		}
		len += (size_t)sprintf(h + len, "  %-2s%s --%-19s %s\n", s,
		    s[0] ? "," : " ", flag[i]->name, flag[i]->help);
	}
	memcpy(h + len, help_tail, sizeof help_tail);
	help = h;
	return o;
}

static _Noreturn void
list_formats(void)
{
	const struct tp_format *f;

	for (f = tp_formats; f->name != NULL; f++)
		printf("%-10s %-14s %s\n", f->name, f->decoder, f->desc);
	exit(fflush(stdout) != 0 || ferror(stdout) ? TP_EXIT_FAIL : TP_EXIT_OK);
}

struct cmdline {
	struct tp_common com;
	const struct tp_format *forced;
	int list;
	int set[MAX_FLAGS];
};

/* The format of an input: forced, or the one the probes agree on. */
static const struct tp_format *
format_of(const struct cmdline *cl, struct tp_in *in, char *detail,
    size_t detailsz, struct tp_err *err)
{
	const struct tp_format *f, *tie;
	const unsigned char *p;
	size_t n = (size_t)tp_probe_bytes(in, &p);
	char names[256];

	detail[0] = '\0';
	if (cl->forced != NULL)
		return cl->forced;
	if ((f = tp_format_detect(p, n, detail, detailsz, &tie)) != NULL)
		return f;
	err->offset = 0;
	if (tie != NULL) {
		/* The first of the two is the one the table's own probe picks. */
		tp_fail(err, TP_EXIT_DATA, "%s and %s both accept it; choose "
		    "with --format", tp_format_probe(p, n, NULL, 0)->name,
		    tie->name);
		return NULL;
	}
	/*
	 * No probe accepts it.  Compressed data is named as the decoders
	 * name it: that is all tp_check_format can say here.
	 */
	if (tp_check_format(&tp_formats[0], TP_DECODE, in, err) == 0) {
		known(names, sizeof names);
		tp_fail(err, TP_EXIT_DATA, "not a trace format tracepipe knows "
		    "(%s)", names);
	}
	return NULL;
}

/* The options of format f's decoder (zeroed: its defaults) and the flags given. */
static void
set_flags(const struct cmdline *cl, const struct tp_format *f, void *opts)
{
	const struct tp_dec_flag *d;
	int i, one = 1;

	for (d = f->dec_flags; d != NULL && d->name != NULL; d++)
		for (i = 0; i < nflags; i++)
			if (cl->set[i] && strcmp(flag[i]->name, d->name) == 0)
				memcpy((char *)opts + d->offset, &one, sizeof one);
}

/* Decode (or list) one input.  0, or -1 with err filled. */
static int
one(const struct cmdline *cl, struct tp_in *in, struct tp_out *out,
    struct tp_err *err)
{
	const struct tp_format *f;
	char detail[128];
	void *opts, *stats;
	int rc;

	if ((f = format_of(cl, in, detail, sizeof detail, err)) == NULL)
		return -1;
	if (cl->list) {
		int gz = in->gz;
		tp_out_puts(out, in->name);
		tp_out_puts(out, ": ");
		tp_out_puts(out, f->name);
		if (detail[0] != '\0' || gz) {
			tp_out_puts(out, " (");
			tp_out_puts(out, detail);
			tp_out_puts(out, gz ? (detail[0] ? ", gzip" : "gzip") : "");
			tp_out_putc(out, ')');
		}
		tp_out_putc(out, '\n');
		return 0;
	}
	tp_note("%s: %s", in->name, f->desc);
	if (tp_refuse_terminal(f, in, err) < 0 ||
	    tp_check_format(f, TP_DECODE, in, err) < 0)
		return -1;
	opts = calloc(1, f->dec_opts_size ? f->dec_opts_size : 1);
	stats = calloc(1, f->dec_stats_size ? f->dec_stats_size : 1);
	if (opts == NULL || stats == NULL) {
		rc = tp_fail(err, TP_EXIT_FAIL, "out of memory");
	} else {
		tp_report_fn *report = tp_dec_report(f->name);
		set_flags(cl, f, opts);
		rc = f->decode(in, out, opts, stats, err);
		/* What the decoder's own program says, after the records. */
		if (report != NULL)
			report(stats, rc < 0);
	}
	free(opts);
	free(stats);
	return rc;
}

int
main(int argc, char **argv)
{
	struct cmdline cl = { .list = 0 };
	struct option *longopts;
	char shortopts[128], names[256];
	char *stdin_only[] = { NULL }, **files;
	struct tp_out out;
	struct tp_err err;
	struct tp_in in;
	int c, i, nfiles, rc = 0, failed = 0, opened = 0;

	tp_setprog(argv[0]);
	longopts = options(shortopts, sizeof shortopts);
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c >= OPT_FLAG && c < OPT_FLAG + nflags) {
			cl.set[c - OPT_FLAG] = 1;
			continue;
		}
		for (i = 0; c < 256 && i < nflags; i++)
			if (flag[i]->shortopt == c)
				break;
		if (c < 256 && i < nflags) {
			cl.set[i] = 1;
			continue;
		}
		switch (c) {
		case OPT_FORMATS:
			list_formats();
			break;
		case 'l':
			cl.list = 1;
			break;
		case 'F':
			if ((cl.forced = tp_format_find(optarg)) == NULL) {
				known(names, sizeof names);
				tp_usage_error(help, "--format: unknown format "
				    "'%s' (%s)", optarg, names);
			}
			break;
		default:
			tp_opt_common(c, &cl.com, help);
		}
	}
	nfiles = argc - optind;
	files = nfiles > 0 ? argv + optind : stdin_only;
	tp_err_clear(&err);
	for (i = 0; i < (nfiles > 0 ? nfiles : 1) && !(failed && !cl.list); i++) {
		if (tp_in_open(&in, files[i], &err) < 0) {
			tp_err_print(&err, in.name);
			tp_in_close(&in);
			failed = 1;
			rc = TP_EXIT_FAIL;
			continue;
		}
		/* Any format may be one whose bytes begin like gzip. */
		in.gz_fallback = 1;
		if (!opened) {
			int status = tp_open_output(&out, cl.com.output, 0);
			if (status != TP_EXIT_OK) {
				tp_in_close(&in);
				rc = status;
				break;
			}
			opened = 1;
		}
		if (one(&cl, &in, &out, &err) < 0 || tp_in_close(&in) < 0) {
			tp_err_print(&err, in.name);
			failed = 1;
			if (rc == 0 || err.status == TP_EXIT_FAIL)
				rc = err.status;
			tp_err_clear(&err);
		}
		tp_in_close(&in);
	}
	/*
	 * As the decoders do: the records before bad input stay where they
	 * were written as they came; a file written under a temporary name
	 * appears only on success.
	 */
	if (opened && tp_close_output(&out, !failed || (rc == TP_EXIT_DATA &&
	    out.tmppath == NULL)) != 0)
		rc = TP_EXIT_FAIL;
	free(longopts);
	free(help);
	return rc;
}
