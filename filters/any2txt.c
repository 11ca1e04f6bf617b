/*
 * any2txt: decode traces of any format the registry knows, each
 * recognised by its content, with that format's own decoder, in process,
 * as its own program runs it: the same options, checks and report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

static const char about[] =
"Decode traces into trace text, each FILE (gzip-compressed or not) with\n"
"the decoder of the format its content shows, as that format's own\n"
"X2txt program does; without FILE, or when FILE is -, read standard input.\n";

struct cmdline {
	const struct tp_format *forced;
	int list;
	struct tp_job *jobs;	/* each format's decoder, in registry order */
	struct tp_job *job;	/* the one that ran on the last input, or NULL */
};

/* The formats' names, for messages: "trac, rapidbin, std". */
static void
known(char *buf, size_t n)
{
	const struct tp_format *const *f;
	size_t k = 0;

	buf[0] = '\0';
	for (f = tp_formats; *f != NULL && k < n; f++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ", " : "",
		    (*f)->name);
}

static int
set_format(void *target, const char *arg, struct tp_err *err)
{
	struct cmdline *cl = target;
	char names[256];

	if ((cl->forced = tp_format_find(arg)) == NULL) {
		known(names, sizeof names);
		return tp_fail(err, TP_EXIT_FAIL, "--format: unknown format "
		    "'%s' (%s)", arg, names);
	}
	return 0;
}

static int
list_formats(void *target, const char *arg, struct tp_err *err)
{
	const struct tp_format *const *f;

	(void)target;
	(void)arg;
	(void)err;
	for (f = tp_formats; *f != NULL; f++)
		printf("%-10s %-14s %s\n", (*f)->name, (*f)->dec.program,
		    (*f)->desc);
	exit(fflush(stdout) != 0 || ferror(stdout) ? TP_EXIT_FAIL : TP_EXIT_OK);
}

static const struct tp_option options[] = {
	TP_OPTION_FLAG("list", 'l', struct cmdline, list,
	    "only print FILE: FORMAT (details) for each input"),
	TP_OPTION_SET("format", 'F', "NAME", set_format,
	    "decode as NAME, whatever the content says"),
	TP_OPTION_SET("formats", 0, NULL, list_formats,
	    "list the formats known (name, decoder, description)"),
	{ NULL }
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
		/* The first of the two is the one the registry's probe picks. */
		tp_fail(err, TP_EXIT_DATA, "%s and %s both accept it; choose "
		    "with --format", tp_format_probe(p, n, NULL, 0)->name,
		    tie->name);
		return NULL;
	}
	/*
	 * No probe accepts it.  Compressed data is named as the decoders
	 * name it: that is all tp_check_format can say here.
	 */
	if (tp_check_format(tp_formats[0], TP_DECODE, in, err) == 0) {
		known(names, sizeof names);
		tp_fail(err, TP_EXIT_DATA, "not a trace format tracepipe knows "
		    "(%s)", names);
	}
	return NULL;
}

/* Decode (or list) one input.  0, or -1 with err filled. */
static int
one(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	struct cmdline *cl = ctx;
	const struct tp_format *f;
	char detail[128];
	size_t i;

	cl->job = NULL;
	/* Any format may be one whose bytes begin like gzip. */
	in->gz_fallback = 1;
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
	for (i = 0; tp_formats[i] != f; i++)
		;
	cl->job = &cl->jobs[i];
	return tp_job_convert(cl->job, in, out, err);
}

/* What the decoder's own program says, after the records. */
static void
decoded(void *ctx, int failed)
{
	const struct cmdline *cl = ctx;

	if (cl->job != NULL)
		tp_job_report(cl->job, failed);
}

int
main(int argc, char **argv)
{
	struct cmdline cl = { .list = 0 };
	struct tp_program p = { .usage = "[-l] [-F FORMAT] [OPTION]... "
	    "[FILE]...", .about = about, .exit1 = "malformed, truncated or "
	    "unknown input (after the records before the fault)" };
	struct tp_each each = { NULL, 0, 0, one, decoded, NULL, &cl };
	struct tp_optset *sets;
	char (*titles)[160];
	size_t i, n;
	int first, status;

	for (n = 0; tp_formats[n] != NULL; n++)
		;
	cl.jobs = calloc(n, sizeof *cl.jobs);
	sets = calloc(n + 1, sizeof *sets);
	titles = calloc(n, sizeof *titles);
	if (cl.jobs == NULL || sets == NULL || titles == NULL) {
		tp_error("out of memory");
		return TP_EXIT_FAIL;
	}
	/* The decoders' options, as their programs take them. */
	sets[p.nsets++] = (struct tp_optset){ options, &cl, NULL };
	for (i = 0; i < n; i++) {
		const struct tp_format *f = tp_formats[i];
		tp_job_init(&cl.jobs[i], f->name, TP_DECODE, NULL, NULL);
		if (f->dec.options == NULL)
			continue;
		snprintf(titles[i], sizeof titles[i], "Options of %s, for %s:",
		    f->dec.program, f->desc);
		sets[p.nsets++] = (struct tp_optset){ f->dec.options,
		    cl.jobs[i].opts, titles[i] };
	}
	p.sets = sets;
	first = tp_parse(&p, argc, argv);
	for (i = 0; i < n; i++)
		tp_job_verbose(&cl.jobs[i]);
	each.output = p.output;
	/* --list goes on past an input it does not know, as file(1) does. */
	each.flags = cl.list ? TP_EACH_KEEP_GOING : 0;
	status = tp_run_each(&each, argc - first, argv + first);
	for (i = 0; i < n; i++)
		tp_job_free(&cl.jobs[i]);
	free(cl.jobs);
	free(sets);
	free(titles);
	return status;
}
