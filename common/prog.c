/*
 * The converters' common main() body.
 */
#include "prog.h"

int
tp_convert(const char *path, const char *output, int flags, tp_run_fn *fn,
    void *ctx, struct tp_err *err)
{
	struct tp_out out;
	struct tp_in in;
	int rc;

	tp_err_clear(err);
	if (tp_in_open(&in, path, err) < 0) {
		tp_err_print(err, in.name);
		tp_in_close(&in);
		return TP_EXIT_FAIL;
	}
	tp_out_open(&out, output, flags & TP_BINARY_OUT);
	rc = fn(&in, &out, ctx, err);
	if (tp_in_close(&in) < 0)
		rc = -1;
	/*
	 * The records before bad input stay on standard output; a named
	 * output file appears only on success.
	 */
	tp_out_close(&out, rc == 0 || ((flags & TP_KEEP_PREFIX) &&
	    err->status == TP_EXIT_DATA && out.tmppath == NULL));
	if (rc < 0) {
		tp_err_print(err, in.name);
		return err->status;
	}
	return TP_EXIT_OK;
}
