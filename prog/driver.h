/*
 * The one body every program's main() shares after its options: open
 * the inputs in turn and the output, run the work on each, close, print
 * the diagnostics and choose the exit status (tp_run_each); and for a
 * format's programs, the work itself: check that each input is of the
 * format, run the format's decoder or encoder from its registration,
 * print what it says after an input (tp_job_*).  Only this layer (and
 * the mains) print and decide the status; the modules below report into
 * values.
 *
 * A format's program is one line:
 *
 *	return tp_format_main("trac", TP_DECODE, argc, argv);
 */
#ifndef TP_PROG_H
#define TP_PROG_H

#include "formats/registry.h"
#include "diag.h"
#include "opts.h"
#include "range.h"

enum tp_dir { TP_DECODE, TP_ENCODE };

/* A format's decoder or encoder as a program runs it. */
struct tp_job {
	const struct tp_format *format;
	enum tp_dir dir;
	const struct tp_codec *codec;	/* &format->dec or &format->enc */
	void *opts;		/* the codec's options: zeroed, then set */
	void *stats;		/* the codec's stats after an input */
	int ran;		/* the codec ran on the last input */
	/*
	 * Called when every input converted, before the output is put into
	 * place (a program's other outputs go first: if one cannot, the
	 * output is dropped), or NULL.  0, or -1 with err filled.
	 */
	int (*commit)(struct tp_err *err);
	struct tp_range range;	/* a decoder's --range, if given */
	/* the codec's options, the program's, --range (a splitter's) */
	struct tp_optset sets[3];
	struct tp_program prog;	/* its command line and --help */
};

/*
 * The job of format's decoder or encoder, options at their defaults,
 * and own (or NULL), options the program adds to the codec's, which set
 * own_target (txt2rapidbin --meta writes a second file).
 */
void tp_job_init(struct tp_job *job, const char *format, enum tp_dir dir,
    const struct tp_option *own, void *own_target);

/* What tp_job_init allocated (the codec's opts and stats). */
void tp_job_free(struct tp_job *job);

/* Parse argv into the job (tp_parse, tp_job_verbose): the first operand. */
int tp_job_args(struct tp_job *job, int argc, char **argv);

/* What -v sets in the codec's options, by its registration's rule. */
void tp_job_verbose(struct tp_job *job);

/*
 * Convert one input into out: a binary format is not read from a
 * terminal, the input must be of the format (tp_check_format), then
 * the codec runs.  0, or -1 with err filled.
 */
int tp_job_convert(struct tp_job *job, struct tp_in *in, struct tp_out *out,
    struct tp_err *err);

/* What the codec says after an input it ran on (failed: it did not convert). */
void tp_job_report(const struct tp_job *job, int failed);

/*
 * Convert the nfiles files (none: standard input; "-": standard input)
 * into one output (tp_run_each): a decoder takes several in turn, an
 * encoder one.  Returns the exit status.
 */
int tp_job_run(struct tp_job *job, int nfiles, char **files);

/* tp_job_init, tp_job_args, tp_job_run: a format program's main(). */
int tp_format_main(const char *format, enum tp_dir dir, int argc, char **argv);

/* What a program does with one input: 0, or -1 with err filled. */
typedef int tp_each_fn(struct tp_in *in, struct tp_out *out, void *ctx,
    struct tp_err *err);

/* Go on after an input that failed, as grep does (else the first stops). */
#define TP_EACH_KEEP_GOING 1u
/*
 * The inputs are trace text: a binary trace (or compressed data) is
 * refused before fn reads it, naming its format and decoder, as the
 * encoders refuse it (tp_check_format).
 */
#define TP_EACH_TEXT 2u

struct tp_each {
	const char *output;	/* -o FILE, or NULL */
	int binary;		/* binary output: never to a terminal, and no
				   prefix kept on bad input */
	unsigned flags;		/* TP_EACH_KEEP_GOING, TP_EACH_TEXT */
	tp_each_fn *fn;
	void (*done)(void *ctx, int failed);	/* after each input, or NULL */
	/*
	 * After the last input when all went well, before the output is
	 * kept (the program's last words into it, its other outputs), or
	 * NULL.  0, or -1 with err filled.
	 */
	int (*commit)(void *ctx, struct tp_out *out, struct tp_err *err);
	void *ctx;
};

/*
 * The one loop over a program's inputs, as cat and grep read them: fn
 * over each of the nfiles files in turn (none: standard input) into one
 * output, made once the first input is open.  An input that cannot be
 * opened or whose fn fails is reported (prog: name: where: what) after
 * the records written before its fault; the first ends the run unless
 * TP_EACH_KEEP_GOING.  A text output keeps the records written before
 * bad input where they went as they came (standard output, a device, a
 * FIFO; with TP_EACH_KEEP_GOING whatever the failure); a file written
 * under a temporary name appears only on success.  Returns the exit
 * status: the worst failure's (2 over 1), or the output's.
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

/*
 * The first bytes of an input, for the probes, without consuming them:
 * up to TP_PROBE_LEN, fewer only at the end of the input (or before an
 * input error, which stays pending for the module to meet).  Returns the
 * count, with *p at them.
 */
long tp_probe_bytes(struct tp_in *in, const unsigned char **p);

#endif
