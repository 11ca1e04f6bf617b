/*
 * The converters' common main() body.
 */
#include <errno.h>
#include <signal.h>

#include "prog.h"

int
tp_open_output(struct tp_out *o, const char *path, int binary)
{
	struct tp_err err;

	if (tp_out_open(o, path, binary, &err) == 0)
		return TP_EXIT_OK;
	tp_err_print(&err, o->name);
	return err.status;
}

int
tp_close_output(struct tp_out *o, int commit)
{
	struct tp_err err;

	if (tp_out_close(o, commit, &err) == 0)
		return TP_EXIT_OK;
	if (o->error == EPIPE) {
		sigset_t set;
		/* As if SIGPIPE had not been ignored or blocked. */
		signal(SIGPIPE, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, SIGPIPE);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(SIGPIPE);
	}
	tp_err_print(&err, o->name);
	return TP_EXIT_FAIL;
}

int
tp_convert(const char *path, const char *output, int flags, tp_run_fn *fn,
    void *ctx, struct tp_err *err)
{
	struct tp_out out;
	struct tp_in in;
	int rc, status;

	tp_err_clear(err);
	if (tp_in_open(&in, path, err) < 0) {
		tp_err_print(err, in.name);
		tp_in_close(&in);
		return TP_EXIT_FAIL;
	}
	if ((status = tp_open_output(&out, output, flags & TP_BINARY_OUT))) {
		tp_in_close(&in);
		return status;
	}
	rc = fn(&in, &out, ctx, err);
	if (tp_in_close(&in) < 0)
		rc = -1;
	/*
	 * The records before bad input stay where they were written as they
	 * came; a file written under a temporary name appears only on
	 * success.
	 */
	status = tp_close_output(&out, rc == 0 || ((flags & TP_KEEP_PREFIX) &&
	    err->status == TP_EXIT_DATA && out.tmppath == NULL));
	if (rc < 0) {
		tp_err_print(err, in.name);
		return err->status > status ? err->status : status;
	}
	return status;
}
