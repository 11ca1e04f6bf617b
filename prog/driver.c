/*
 * The programs' common main() body: the loop over the inputs, and the
 * format programs' work on each.
 */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "range.h"

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
	if (o->error == EPIPE)
		tp_die_by_signal(SIGPIPE);
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

/*
 * Do the first bytes read as trace text: a first line that begins with a
 * record kind (or is a comment), no control byte but tab, CR and newline
 * in them?  A binary format without a magic number (RapidBin) would
 * otherwise decode text into a nonsense header before its first error.
 */
static int
looks_like_text(const unsigned char *p, size_t n)
{
	size_t i = 0;

	while (i < n && (isalnum(p[i]) || p[i] == '_' || p[i] == '.' ||
	    p[i] == '-'))
		i++;
	if (n == 0 || (i == 0 && p[0] != '#') ||
	    (i > 0 && i < n && p[i] != ' ' && p[i] != '\n'))
		return 0;
	for (i = 0; i < n; i++)
		if ((p[i] < 0x20 && p[i] != '\t' && p[i] != '\n' &&
		    p[i] != '\r') || p[i] == 0x7f)
			return 0;
	return 1;
}

int
tp_check_format(const struct tp_format *f, enum tp_dir dir, struct tp_in *in,
    struct tp_err *err)
{
	const struct tp_format *const *g, *other = NULL;
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
	for (g = tp_formats; *g != NULL; g++) {
		int v;
		if (*g == f && dir == TP_DECODE)
			continue;
		v = (*g)->probe(p, n, detail, sizeof detail);
		if (v > level) {
			level = v;
			other = *g;
		}
	}
	if (dir == TP_DECODE && own == TP_PROBE_NO && other == NULL &&
	    (f->flags & TP_FMT_NOMAGIC) && looks_like_text(p, n)) {
		err->offset = 0;
		return tp_fail(err, TP_EXIT_DATA, "this looks like trace text, "
		    "not %s; use %s to encode it", f->desc, f->enc.program);
	}
	if (other == NULL || level <= own)
		return 0;
	err->offset = 0;
	return tp_fail(err, TP_EXIT_DATA, "this %s %s%s; use %s",
	    level == TP_PROBE_YES ? "is" : "looks like", other->desc,
	    dir == TP_ENCODE ? ", not trace text" : "", other->dec.program);
}

/* A failed input: said after the records before it; the worst status kept. */
static void
input_failed(const struct tp_each *each, struct tp_out *out,
    const struct tp_err *err, const char *name, int *status)
{
	int st = err->status ? err->status : TP_EXIT_FAIL;

	/* On a terminal that shows both, the records come first. */
	if (out != NULL && !each->binary && st == TP_EXIT_DATA)
		tp_out_flush(out);
	tp_err_print(err, name);
	if (st > *status)
		*status = st;
}

int
tp_run_each(const struct tp_each *each, int nfiles, char **files)
{
	char *stdin_only[] = { NULL };
	struct tp_out out;
	struct tp_err err;
	struct tp_in in;
	int i, rc, opened = 0, status = TP_EXIT_OK, keep;

	if (nfiles == 0) {
		files = stdin_only;
		nfiles = 1;
	}
	for (i = 0; i < nfiles && (status == TP_EXIT_OK ||
	    (each->flags & TP_EACH_KEEP_GOING)); i++) {
		tp_err_clear(&err);
		if (tp_in_open(&in, files[i], &err) < 0) {
			tp_in_close(&in);
			input_failed(each, opened ? &out : NULL, &err, in.name,
			    &status);
			continue;
		}
		/* The output is made once the first input is open. */
		if (!opened) {
			int st = tp_open_output(&out, each->output,
			    each->binary);
			if (st != TP_EXIT_OK) {
				tp_in_close(&in);
				return st > status ? st : status;
			}
			opened = 1;
		}
		rc = (each->flags & TP_EACH_TEXT) &&
		    tp_check_format(NULL, TP_ENCODE, &in, &err) < 0 ? -1 :
		    each->fn(&in, &out, each->ctx, &err);
		if (tp_in_close(&in) < 0)
			rc = -1;
		if (each->done != NULL)
			each->done(each->ctx, rc < 0);
		if (rc < 0)
			input_failed(each, &out, &err, in.name, &status);
	}
	if (opened && status == TP_EXIT_OK && each->commit != NULL &&
	    each->commit(each->ctx, &out, &err) < 0)
		input_failed(each, NULL, &err, in.name, &status);
	if (!opened)
		return status;
	/*
	 * The records before bad input stay where they were written as they
	 * came; a file written under a temporary name appears only on
	 * success.
	 */
	keep = status == TP_EXIT_OK || (!each->binary && out.tmppath == NULL &&
	    (status == TP_EXIT_DATA || (each->flags & TP_EACH_KEEP_GOING)));
	rc = tp_close_output(&out, keep);
	return rc > status ? rc : status;
}

static void
say_line(enum tp_say_level level, const char *msg)
{
	if (level == TP_SAY_WARN)
		tp_warn("%s", msg);
	else
		tp_note("%s", msg);
}

void
tp_job_report(const struct tp_job *job, int failed)
{
	const struct tp_say say = { tp_verbosity, say_line };

	if (job->ran && job->codec->report != NULL)
		job->codec->report(job->stats, failed, &say);
}

int
tp_job_convert(struct tp_job *job, struct tp_in *in, struct tp_out *out,
    struct tp_err *err)
{
	const struct tp_format *f = job->format;
	struct tr_reader r;

	job->ran = 0;
	if (job->dir == TP_DECODE) {
		if (f->flags & TP_FMT_NOMAGIC)
			in->gz_fallback = 1;
		if (!(f->flags & TP_FMT_TEXT) && in->fd >= 0 && isatty(in->fd))
			return tp_fail(err, TP_EXIT_FAIL, "refusing to read "
			    "binary data from a terminal");
	}
	if (tp_check_format(f, job->dir, in, err) < 0)
		return -1;
	/* A decoder writes no line its encoder would refuse. */
	if (job->dir == TP_DECODE)
		out->lines = 1;
	job->ran = 1;
	if (job->dir == TP_DECODE && job->range.spec != NULL)
		return tp_range_decode(&job->range, f, in, out, job->opts,
		    job->stats, err);
	if (job->dir == TP_DECODE)
		return f->decode(in, out, job->opts, job->stats, err);
	tr_init(&r, in);
	return f->encode(&r, out, job->opts, job->stats, err);
}

void
tp_job_init(struct tp_job *job, const char *format, enum tp_dir dir,
    const struct tp_option *own, void *own_target)
{
	const struct tp_format *f = tp_format_find(format);

	if (f == NULL)
		abort();	/* a main names a format the registry lacks */
	memset(job, 0, sizeof *job);
	job->format = f;
	job->dir = dir;
	job->codec = dir == TP_DECODE ? &f->dec : &f->enc;
	job->opts = calloc(1, job->codec->opts_size);
	job->stats = calloc(1, job->codec->stats_size);
	if (job->opts == NULL || job->stats == NULL) {
		tp_error("out of memory");
		exit(TP_EXIT_FAIL);
	}
	job->sets[0] = (struct tp_optset){ job->codec->options, job->opts,
	    NULL };
	job->sets[1] = (struct tp_optset){ own, own_target, NULL };
	job->prog.about = job->codec->about;
	job->prog.exit1 = job->codec->exit1 != NULL ? job->codec->exit1 :
	    dir == TP_DECODE ? "malformed or truncated input (after the "
	    "records before the fault)" : "malformed input";
	job->prog.single = dir == TP_ENCODE;
	job->prog.sets = job->sets;
	job->prog.nsets = 2;
	if (dir == TP_DECODE && f->split != NULL) {
		job->sets[2] = (struct tp_optset){ tp_range_options,
		    &job->range, NULL };
		job->prog.nsets = 3;
	}
}

void
tp_job_free(struct tp_job *job)
{
	free(job->opts);
	free(job->stats);
	job->opts = job->stats = NULL;
}

void
tp_job_verbose(struct tp_job *job)
{
	if (tp_verbosity >= 2 && job->codec->verbose != NULL)
		job->codec->verbose(job->opts);
}

int
tp_job_args(struct tp_job *job, int argc, char **argv)
{
	int first = tp_parse(&job->prog, argc, argv);

	tp_job_verbose(job);
	return first;
}

static int
convert_one(struct tp_in *in, struct tp_out *out, void *ctx,
    struct tp_err *err)
{
	return tp_job_convert(ctx, in, out, err);
}

static void
report_one(void *ctx, int failed)
{
	tp_job_report(ctx, failed);
}

static int
commit_job(void *ctx, struct tp_out *out, struct tp_err *err)
{
	const struct tp_job *job = ctx;

	(void)out;
	return job->commit(err);
}

int
tp_job_run(struct tp_job *job, int nfiles, char **files)
{
	const struct tp_each each = { job->prog.output,
	    job->dir == TP_ENCODE && !(job->format->flags & TP_FMT_TEXT), 0,
	    convert_one, report_one, job->commit != NULL ? commit_job : NULL,
	    job };

	return tp_run_each(&each, nfiles, files);
}

int
tp_format_main(const char *format, enum tp_dir dir, int argc, char **argv)
{
	struct tp_job job;
	int first, status;

	tp_job_init(&job, format, dir, NULL, NULL);
	first = tp_job_args(&job, argc, argv);
	status = tp_job_run(&job, argc - first, argv + first);
	tp_job_free(&job);
	return status;
}
