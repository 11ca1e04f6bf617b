/*
 * --meta of txt2rapidbin and txt2std, the programs whose ids are
 * txt2rapidbin's: the mapping goes to a second file, which only the
 * program opens.  The formats' registrations have the rest.
 */
#include "formats/rapidbin/rapidbin.h"
#include "driver.h"
#include "rb-meta.h"

static struct tp_out meta;
static int meta_open;
static const char *meta_path;

/*
 * The metadata goes into place before the output: if it cannot, the
 * output does not either.
 */
static int
commit_meta(struct tp_err *err)
{
	meta_open = 0;
	return tp_out_close(&meta, 1, err);
}

static int
set_meta(void *target, const char *arg, struct tp_err *err)
{
	(void)target;
	if (arg[0] == '\0' || (arg[0] == '-' && arg[1] == '\0'))
		return tp_fail(err, TP_EXIT_FAIL, "--meta needs a file name");
	meta_path = arg;
	return 0;
}

int
tp_rb_meta_main(const char *format, size_t rb_offset, int argc, char **argv)
{
	static const struct tp_option own[] = {
		TP_OPTION_SET("meta", 'm', "FILE", set_meta,
		    "write the id mapping as Wasmgrind-style JSON"),
		{ NULL }
	};
	struct tp_job job;
	int first, status;

	tp_job_init(&job, format, TP_ENCODE, own, NULL);
	first = tp_job_args(&job, argc, argv);
	if (meta_path != NULL) {
		if ((status = tp_open_output(&meta, meta_path, 0)) != 0) {
			tp_job_free(&job);
			return status;
		}
		meta_open = 1;
		((struct rapidbin_enc_opts *)((char *)job.opts +
		    rb_offset))->meta = &meta;
		job.commit = commit_meta;
	}
	status = tp_job_run(&job, argc - first, argv + first);
	if (meta_open)
		tp_out_close(&meta, 0, NULL);
	tp_job_free(&job);
	return status;
}
