/*
 * The one body every converter's main() shares after its options: open
 * the inputs and the output, check that each input is of the format, run
 * the format module through its row of the format table, close, print
 * the diagnostic and choose the exit status.  Only this layer (and the
 * mains) print and decide the status; the modules below report into
 * values.
 *
 * A converter's main() sets its format's options while parsing argv and
 * ends with
 *
 *	return tp_run(&job, argc - optind, argv + optind);
 */
#ifndef TP_PROG_H
#define TP_PROG_H

#include "diag.h"
#include "format.h"
#include "opts.h"

enum tp_dir { TP_DECODE, TP_ENCODE };

struct tp_job {
	const char *format;	/* the row's name: "trac" */
	enum tp_dir dir;
	const char *help;	/* for usage errors */
	const void *opts;	/* the format's dec or enc options */
	void *stats;		/* the format's dec or enc stats */
	/*
	 * Called after each input (stats as that input left them, failed
	 * when it did not convert), or NULL.
	 */
	void (*report)(const void *stats, int failed);
	/*
	 * Called when every input converted, before the output is put into
	 * place (a program's other outputs go first: if one cannot, the
	 * output is dropped), or NULL.  0, or -1 with err filled.
	 */
	int (*commit)(struct tp_err *err);
	struct tp_common com;	/* filled by tp_opt_common() */
};

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

#endif
