/*
 * The one shape every converter's main() has after its options: open the
 * input, open the output, run the format module, close both, print the
 * diagnostic and choose the exit status.  Only this layer (and the mains)
 * print and decide the status; the modules below report into values.
 */
#ifndef TP_PROG_H
#define TP_PROG_H

#include "diag.h"
#include "input.h"
#include "output.h"

/* A format module's run: 0, or -1 with err filled. */
typedef int tp_run_fn(struct tp_in *in, struct tp_out *out, void *ctx,
    struct tp_err *err);

enum {
	TP_BINARY_OUT = 1,	/* refuse to write to a terminal */
	TP_KEEP_PREFIX = 2	/* on bad input, keep what stdout got */
};

/*
 * Run fn from path (NULL or "-": stdin) to output (NULL or "-": stdout).
 * With TP_KEEP_PREFIX the records written before bad input are kept where
 * they were written as they came (standard output, a device, a FIFO); a
 * regular file is created or replaced only on success.
 * Returns the exit status: 0, or err->status after printing err.
 */
int tp_convert(const char *path, const char *output, int flags,
    tp_run_fn *fn, void *ctx, struct tp_err *err);

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

#endif
