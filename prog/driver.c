/*
 * The converters' common main() body.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "driver.h"

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

void
tp_warn_skips(const struct tr_skips *sk)
{
	if (sk->count > 0)
		tp_warn("%llu record%s skipped, %s (first at line %llu: %s)",
		    (unsigned long long)sk->count, sk->count == 1 ? "" : "s",
		    sk->cannot, (unsigned long long)sk->first_line,
		    sk->first_why);
}

void
tp_inputs_init(struct tp_inputs *it, int nfiles, char **files, unsigned flags)
{
	it->files = files;
	it->nfiles = nfiles;
	it->next = 0;
	it->flags = flags;
	it->path = NULL;
	it->out = NULL;
	it->status = 0;
	tp_err_clear(&it->err);
}

/* The worst failure's status is the program's (2 over 1, as grep). */
static void
inputs_failed(struct tp_inputs *it)
{
	int status = it->err.status ? it->err.status : TP_EXIT_FAIL;

	/* After the valid records before the fault, on a shared terminal. */
	if (it->out != NULL && status == TP_EXIT_DATA)
		tp_out_flush(it->out);
	tp_err_print(&it->err, it->in.name);
	if (status > it->status)
		it->status = status;
}

int
tp_inputs_next(struct tp_inputs *it)
{
	while (it->next < (it->nfiles > 0 ? it->nfiles : 1)) {
		if (it->status != 0 && !(it->flags & TP_INPUTS_KEEP_GOING))
			return 0;
		it->path = it->nfiles > 0 ? it->files[it->next] : NULL;
		it->next++;
		tp_err_clear(&it->err);
		if (tp_in_open(&it->in, it->path, &it->err) == 0)
			return 1;
		inputs_failed(it);
		tp_in_close(&it->in);
	}
	return 0;
}

int
tp_inputs_done(struct tp_inputs *it, int rc)
{
	if (tp_in_close(&it->in) < 0)
		rc = -1;
	if (rc < 0)
		inputs_failed(it);
	return rc < 0 ? -1 : 0;
}

static int
run_one(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	const struct tp_job *job = ctx;
	const struct tp_format *f = tp_format_find(job->format);
	struct tr_reader r;

	in->gz_fallback = job->dir == TP_DECODE && (f->flags & TP_FMT_NOMAGIC);
	if (job->dir == TP_DECODE && !(f->flags & TP_FMT_TEXT) &&
	    in->fd >= 0 && isatty(in->fd))
		return tp_fail(err, TP_EXIT_FAIL, "refusing to read binary "
		    "data from a terminal");
	if (tp_check_format(f, job->dir, in, err) < 0)
		return -1;
	if (job->dir == TP_DECODE)
		return f->decode(in, out, job->opts, job->stats, err);
	tr_init(&r, in);
	return f->encode(&r, out, job->opts, job->stats, err);
}

static void
report_one(void *ctx, int failed)
{
	const struct tp_job *job = ctx;

	job->report(job->stats, failed);
}

static int
commit_job(void *ctx, struct tp_err *err)
{
	const struct tp_job *job = ctx;

	return job->commit(err);
}

int
tp_run(struct tp_job *job, int nfiles, char **files)
{
	const struct tp_format *f = tp_format_find(job->format);
	struct tp_each each;

	if (job->report == NULL && job->dir == TP_DECODE)
		job->report = tp_dec_report(job->format);
	each = (struct tp_each){ job->com.output,
	    !(job->dir == TP_DECODE || (f->flags & TP_FMT_TEXT)),
	    run_one, job->report != NULL ? report_one : NULL,
	    job->commit != NULL ? commit_job : NULL, job };
	if (job->dir == TP_ENCODE && nfiles > 1)
		tp_usage_error(job->help, "too many operands: '%s'", files[1]);
	return tp_run_each(&each, nfiles, files);
}

int
tp_getopts(struct tp_job *job, int argc, char **argv)
{
	static const struct option common[] = { TP_COMMON_LONGOPTS };
	enum { NCOMMON = sizeof common / sizeof common[0] };
	struct option lo[NCOMMON + TP_OPTIONS_MAX + 1] = { TP_COMMON_LONGOPTS };
	char so[sizeof TP_COMMON_SHORTOPTS + 2 * TP_OPTIONS_MAX] =
	    TP_COMMON_SHORTOPTS;
	const struct tp_option *o = job->options;
	size_t nl = NCOMMON, ns = sizeof TP_COMMON_SHORTOPTS - 1;
	int c;

	tp_setprog(argv[0]);
	for (; o != NULL && o->name != NULL; o++) {
		if (nl == NCOMMON + TP_OPTIONS_MAX)
			abort();	/* raise TP_OPTIONS_MAX */
		lo[nl].name = o->name;
		lo[nl].has_arg = o->has_arg ? required_argument : no_argument;
		lo[nl++].val = o->ch;
		so[ns++] = (char)o->ch;
		if (o->has_arg)
			so[ns++] = ':';
	}
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		for (o = job->options; o != NULL && o->name != NULL; o++)
			if (o->ch == c)
				break;
		if (o == NULL || o->name == NULL)
			tp_opt_common(c, &job->com, job->help);
		else if (o->fn != NULL)
			o->fn(optarg);
		else
			*o->flag = 1;
	}
	return optind;
}

int
tp_main(struct tp_job *job, int argc, char **argv)
{
	int first = tp_getopts(job, argc, argv);

	return tp_run(job, argc - first, argv + first);
}

int
tp_run_each(const struct tp_each *each, int nfiles, char **files)
{
	char *stdin_only[] = { NULL };
	struct tp_out out;
	struct tp_err err;
	struct tp_in in;
	int i, rc = 0, opened = 0, status = TP_EXIT_OK;

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
			status = tp_open_output(&out, each->output, each->binary);
			if (status != TP_EXIT_OK) {
				tp_in_close(&in);
				return status;
			}
			opened = 1;
		}
		rc = each->fn(&in, &out, each->ctx, &err);
		if (tp_in_close(&in) < 0)
			rc = -1;
		if (each->done != NULL)
			each->done(each->ctx, rc < 0);
	}
	if (rc == 0 && each->commit != NULL && each->commit(each->ctx, &err) < 0)
		rc = -1;
	/*
	 * The records before bad input stay where they were written as they
	 * came; a file written under a temporary name appears only on
	 * success.
	 */
	if (opened)
		status = tp_close_output(&out, rc == 0 || (!each->binary &&
		    err.status == TP_EXIT_DATA && out.tmppath == NULL));
	if (rc < 0) {
		tp_err_print(&err, in.name);
		return err.status > status ? err.status : status;
	}
	return status;
}
