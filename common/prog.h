/*
 * The one shape every converter's main() has after its options: open the
 * input, open the output, run the format module, close both, print the
 * diagnostic and choose the exit status.
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
 * With TP_KEEP_PREFIX the records written before bad input are kept on
 * standard output; a named output file is created only on success.
 * Returns the exit status: 0, or err->status after printing err.
 */
int tp_convert(const char *path, const char *output, int flags,
    tp_run_fn *fn, void *ctx, struct tp_err *err);

#endif
