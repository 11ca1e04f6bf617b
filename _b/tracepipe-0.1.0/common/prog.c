/*
 * The converters' common main() body.
 */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

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

long
tp_probe_bytes(struct tp_in *in, const unsigned char **p)
{
	long n = tp_in_fill(in, 1);

	/*
	 * An input error (damaged gzip) stays pending in the input for the
	 * module to meet after the bytes before it.
	 */
	if (n > 0 && n < TP_PROBE_LEN && !in->eof && !in->failed) {
		long m = tp_in_fill(in, TP_PROBE_LEN);
		if (m >= 0)
			n = m;
	}
	*p = in->buf + in->pos;
	return n < 0 ? 0 : n;
}

int
tp_refuse_terminal(const struct tp_format *f, const struct tp_in *in,
    struct tp_err *err)
{
	if (!(f->flags & TP_FMT_TEXT) && in->fd >= 0 && isatty(in->fd))
		return tp_fail(err, TP_EXIT_FAIL, "refusing to read binary "
		    "data from a terminal");
	return 0;
}

int
tp_check_format(const struct tp_format *f, enum tp_dir dir, struct tp_in *in,
    struct tp_err *err)
{
	const struct tp_format *g, *other = NULL;
	const unsigned char *p;
	const char *z, *cmd;
	char detail[128];
	int own, level = TP_PROBE_NO;
	size_t n = (size_t)tp_probe_bytes(in, &p);

	if ((z = tp_compressed(p, n, &cmd)) != NULL) {
		err->offset = 0;
		return tp_fail(err, TP_EXIT_DATA, "this is %s-compressed data; "
		    "decompress it first (%s)", z, cmd);
	}
	/* Trace text is no format of the table: any claim on it is right. */
	own = dir == TP_DECODE ? f->probe(p, n, detail, sizeof detail) :
	    TP_PROBE_NO;
	for (g = tp_formats; g->name != NULL; g++) {
		int v;
		if (g == f && dir == TP_DECODE)
			continue;
		v = g->probe(p, n, detail, sizeof detail);
		if (v > level) {
			level = v;
			other = g;
		}
	}
	if (other == NULL || level <= own)
		return 0;
	err->offset = 0;
	return tp_fail(err, TP_EXIT_DATA, "this %s %s%s; use %s",
	    level == TP_PROBE_YES ? "is" : "looks like", other->desc,
	    dir == TP_ENCODE ? ", not trace text" : "", other->decoder);
}

static int
run_one(const struct tp_job *job, const struct tp_format *f, struct tp_in *in,
    struct tp_out *out, struct tp_err *err)
{
	struct tr_reader r;

	if (job->dir == TP_DECODE && tp_refuse_terminal(f, in, err) < 0)
		return -1;
	if (tp_check_format(f, job->dir, in, err) < 0)
		return -1;
	if (job->dir == TP_DECODE)
		return f->decode(in, out, job->opts, job->stats, err);
	tr_init(&r, in);
	return f->encode(&r, out, job->opts, job->stats, err);
}

int
tp_run(struct tp_job *job, int nfiles, char **files)
{
	const struct tp_format *f = tp_format_find(job->format);
	int text_out = job->dir == TP_DECODE || (f->flags & TP_FMT_TEXT);
	char *stdin_only[] = { NULL };
	struct tp_out out;
	struct tp_err err;
	struct tp_in in;
	int i, rc = 0, opened = 0, status = TP_EXIT_OK;

	if (job->dir == TP_ENCODE && nfiles > 1)
		tp_usage_error(job->help, "too many operands: '%s'", files[1]);
	if (nfiles == 0) {
		files = stdin_only;
		nfiles = 1;
	}
	for (i = 0; i < nfiles && rc == 0; i++) {
		tp_err_clear(&err);
		if (tp_in_open(&in, files[i], &err) < 0) {
			tp_in_close(&in);
			rc = -1;
			break;
		}
		/* The output is made once the first input is open. */
		if (!opened) {
			status = tp_open_output(&out, job->com.output, !text_out);
			if (status != TP_EXIT_OK) {
				tp_in_close(&in);
				return status;
			}
			opened = 1;
		}
		rc = run_one(job, f, &in, &out, &err);
		if (tp_in_close(&in) < 0)
			rc = -1;
		if (job->report != NULL)
			job->report(job->stats, rc < 0);
	}
	if (rc == 0 && job->commit != NULL && job->commit(&err) < 0)
		rc = -1;
	/*
	 * The records before bad input stay where they were written as they
	 * came; a file written under a temporary name appears only on
	 * success.
	 */
	if (opened)
		status = tp_close_output(&out, rc == 0 || (text_out &&
		    err.status == TP_EXIT_DATA && out.tmppath == NULL));
	if (rc < 0) {
		tp_err_print(&err, in.name);
		return err.status > status ? err.status : status;
	}
	return status;
}
