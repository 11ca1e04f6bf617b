/*
 * The one body every converter's main() shares after its options: open
 * the inputs and the output, check that each input is of the format, run
 * the format module through its row of the format table, close, print
 * the diagnostic and choose the exit status.  Only this layer (and the
 * mains) print and decide the status; the modules below report into
 * values.
 *
 * A converter's main() is its job, with a table of its own options, and
 *
 *	return tp_main(&job, argc, argv);
 */
#ifndef TP_PROG_H
#define TP_PROG_H

#include "diag.h"
#include "formats/registry.h"
#include "opts.h"

enum tp_dir { TP_DECODE, TP_ENCODE };

/*
 * A program's own option, besides the shared ones (opts.h): a flag that
 * sets *flag to 1, or fn called with the argument (NULL for an option
 * without one), which may end the program with tp_usage_error().
 */
struct tp_option {
	const char *name;	/* --name; NULL ends the table */
	int ch;			/* -c */
	int has_arg;
	int *flag;
	void (*fn)(const char *arg);
};

#define TP_FLAG(name, ch, flag)	{ name, ch, 0, flag, NULL }
#define TP_CALL(name, ch, fn)	{ name, ch, 0, NULL, fn }
#define TP_ARG(name, ch, fn)	{ name, ch, 1, NULL, fn }
#define TP_OPTIONS_MAX 16

/* What a program says after an input, from its statistics. */
typedef void tp_report_fn(const void *stats, int failed);

/* The report of format's decoder (report.c), or NULL. */
tp_report_fn *tp_dec_report(const char *format);

struct tp_job {
	const char *format;	/* the row's name: "trac" */
	enum tp_dir dir;
	const char *help;	/* for usage errors */
	const void *opts;	/* the format's dec or enc options */
	void *stats;		/* the format's dec or enc stats */
	/*
	 * Called after each input (stats as that input left them, failed
	 * when it did not convert), or NULL: then a decoder's is
	 * tp_dec_report's.
	 */
	tp_report_fn *report;
	/*
	 * Called when every input converted, before the output is put into
	 * place (a program's other outputs go first: if one cannot, the
	 * output is dropped), or NULL.  0, or -1 with err filled.
	 */
	int (*commit)(struct tp_err *err);
	const struct tp_option *options;	/* the program's own, or NULL */
	struct tp_common com;	/* filled by tp_opt_common() */
};

/*
 * Parse argv: the shared options and the job's own (their table ends
 * with a NULL name, at most TP_OPTIONS_MAX).  Returns the index of the
 * first operand; a usage error ends the program.
 */
int tp_getopts(struct tp_job *job, int argc, char **argv);

/* tp_getopts, then tp_run on the operands: a converter's main(). */
int tp_main(struct tp_job *job, int argc, char **argv);

/*
 * Convert the nfiles files (none: standard input; "-": standard input).
 * A decoder takes several and decodes each in turn into one output,
 * stopping at the first that fails; an encoder takes at most one.  With
 * text output the records written before bad input are kept where they
 * were written as they came (standard output, a device, a FIFO); a
 * regular file is created or replaced only on success.  Returns the exit
 * status.
 */
int tp_run(struct tp_job *job, int nfiles, char **files);

/* What a program does with one input: 0, or -1 with err filled. */
typedef int tp_each_fn(struct tp_in *in, struct tp_out *out, void *ctx,
    struct tp_err *err);

struct tp_each {
	const char *output;	/* -o FILE, or NULL */
	int binary;		/* binary output: never to a terminal, and no
				   prefix kept on bad input */
	tp_each_fn *fn;
	void (*done)(void *ctx, int failed);	/* after each input, or NULL */
	/* After the last input, before the output is kept, or NULL. */
	int (*commit)(void *ctx, struct tp_err *err);
	void *ctx;
};

/*
 * tp_run's body for any program: fn over each of the nfiles files in
 * turn (none: standard input) into one output, stopping at the first
 * that fails.  Returns the exit status.
 */
int tp_run_each(const struct tp_each *each, int nfiles, char **files);

/*
 * Open an output for a program (tp_out_open): 0, or the exit status
 * after printing why not.
 */
int tp_open_output(struct tp_out *o, const char *path, int binary);

/*
 * Close an output (commit: it is wanted) and say what went wrong: 0, or
 * the exit status after printing the error.  A reader that went away
 * (EPIPE) ends the program quietly, by SIGPIPE.
 */
int tp_close_output(struct tp_out *o, int commit);

/*
 * Does the input hold what dir of format f reads?  Looks at the first
 * bytes (without consuming them): compressed data tracepipe does not read,
 * a binary format given to an encoder, another format's decoder's input.
 * 0, or -1 with err filled ("offset 0x0: this is an x64dbg trace (TRAC);
 * use trac2txt").
 */
int tp_check_format(const struct tp_format *f, enum tp_dir dir,
    struct tp_in *in, struct tp_err *err);

/* "prog: N records skipped, CANNOT (first at line L: WHY)", if any. */
void tp_warn_skips(const struct tr_skips *sk);

/*
 * The first bytes of an input, for the probes, without consuming them:
 * up to TP_PROBE_LEN, fewer only at the end of the input (or before an
 * input error, which stays pending for the module to meet).  Returns the
 * count, with *p at them.
 */
long tp_probe_bytes(struct tp_in *in, const unsigned char **p);

/* A binary format is not read from a terminal: 0, or -1 with err filled. */
int tp_refuse_terminal(const struct tp_format *f, const struct tp_in *in,
    struct tp_err *err);

/*
 * The inputs of a program that reads several, as cat and grep do: each
 * FILE in turn ("-" is standard input; none, standard input alone).
 *
 *	tp_inputs_init(&it, argc - optind, argv + optind, 0);
 *	while (tp_inputs_next(&it))
 *		tp_inputs_done(&it, work(&it.in, &it.err));
 *	return it.status;
 *
 * A file that cannot be opened, or whose work failed (-1, with it.err
 * filled), is reported on stderr (prog: name: where: what).  The first
 * failure ends the run, unless TP_INPUTS_KEEP_GOING (grep) is given.
 * Set out to have the records written so far flushed before the
 * diagnostic of bad input (text output, whose valid prefix is kept).
 */
#define TP_INPUTS_KEEP_GOING 1u

struct tp_inputs {
	char **files;
	int nfiles, next;
	unsigned flags;
	const char *path;	/* of the current input: NULL is stdin */
	struct tp_in in;	/* the current input, open */
	struct tp_err err;	/* where the current input's errors go */
	struct tp_out *out;	/* flushed before bad input's diagnostic */
	int status;		/* 0, or the worst failure's exit status */
};

void tp_inputs_init(struct tp_inputs *it, int nfiles, char **files,
    unsigned flags);
/* Open the next input: 1, or 0 when there is none left to read. */
int tp_inputs_next(struct tp_inputs *it);
/* Close the current input after work that returned rc.  0 or -1. */
int tp_inputs_done(struct tp_inputs *it, int rc);

#endif
