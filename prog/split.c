/*
 * tracesplit's program side: open, recognise, cut, say what went wrong.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/input.h"
#include "io/output.h"
#include "diag.h"
#include "driver.h"
#include "split.h"

/* Does s end with suffix t? */
static int
ends_with(const char *s, size_t n, const char *t, size_t tn)
{
	return n >= tn && memcmp(s + n - tn, t, tn) == 0;
}

/*
 * The pieces' extension: the input's own when it is one of the format's
 * (a .trace32 stays .trace32), else the format's first.
 */
static void
piece_ext(const struct tp_format *f, const char *file, char *ext, size_t n)
{
	const char *e = f->exts != NULL ? f->exts : "";
	size_t len = file != NULL ? strlen(file) : 0;
	size_t first = strcspn(e, " ");

	if (file != NULL && ends_with(file, len, ".gz", 3))
		len -= 3;
	snprintf(ext, n, "%.*s", (int)first, e);
	while (*e != '\0' && file != NULL) {
		size_t k = strcspn(e, " ");
		if (k > 0 && ends_with(file, len, e, k)) {
			snprintf(ext, n, "%.*s", (int)k, e);
			return;
		}
		e += k;
		e += strspn(e, " ");
	}
}

/* PREFIX by default: the input's base name without .gz and ext; "x" for stdin. */
static char *
default_prefix(const char *file, const char *ext)
{
	const char *base;
	size_t len;
	char *p;

	if (file == NULL || strcmp(file, "-") == 0)
		return strdup("x");
	base = strrchr(file, '/');
	base = base != NULL ? base + 1 : file;
	len = strlen(base);
	if (ends_with(base, len, ".gz", 3))
		len -= 3;
	if (ends_with(base, len, ext, strlen(ext)) && len > strlen(ext))
		len -= strlen(ext);
	if ((p = malloc(len + 1)) != NULL) {
		memcpy(p, base, len);
		p[len] = '\0';
	}
	return p;
}

/* The input's bytes (decompressed), for -n: 0, or -1 with err filled. */
int
tp_split_input_bytes(struct tp_in *in, const char *file, uint64_t *total,
    const char *what, struct tp_err *err)
{
	struct stat st;
	struct tp_in again;
	char buf[65536];
	long n;

	if (in->fd < 0 || fstat(in->fd, &st) < 0 || !S_ISREG(st.st_mode))
		return tp_fail(err, TP_EXIT_FAIL, "%s", what);
	if (!in->gz) {
		*total = (uint64_t)st.st_size;
		return 0;
	}
	/* gzip keeps its length only modulo 4 GiB: read it once to count. */
	if (tp_in_open(&again, file, err) < 0)
		return -1;
	again.gz_fallback = 1;
	*total = 0;
	while ((n = tp_in_read(&again, buf, sizeof buf)) > 0)
		*total += (uint64_t)n;
	if (n < 0) {
		tp_in_close(&again);
		return -1;
	}
	return tp_in_close(&again);
}

/*
 * --piece to a pipe or a terminal goes through an unlinked temporary
 * file first: a module may patch the piece's header (split.h).
 */
int
tp_split_scratch(struct tp_out *o, struct tp_err *err)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	snprintf(path, sizeof path, "%s/tracesplit.XXXXXX",
	    dir != NULL && *dir != '\0' ? dir : "/tmp");
	if ((fd = mkstemp(path)) < 0)
		return tp_fail(err, TP_EXIT_FAIL, "cannot create a temporary "
		    "file in %s: %s", dir ? dir : "/tmp", strerror(errno));
	unlink(path);
	if (fd < 3 || tp_out_open_fd(o, fd, "<temporary file>") < 0) {
		close(fd);
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	}
	return 0;
}

/* Copy the scratch piece to where it goes: the exit status. */
static int
deliver(struct tp_out *scratch, const char *output)
{
	struct tp_err err;
	struct tp_out o;
	char buf[65536];
	ssize_t n;
	int fd = dup(scratch->fd), status;

	tp_err_clear(&err);
	if (tp_out_close(scratch, 1, &err) < 0) {
		tp_err_print(&err, "");
		if (fd >= 0)
			close(fd);
		return TP_EXIT_FAIL;
	}
	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		tp_error("temporary file: %s", strerror(errno));
		return TP_EXIT_FAIL;
	}
	if ((status = tp_open_output(&o, output, 1)) != 0) {
		close(fd);
		return status;
	}
	while ((n = read(fd, buf, sizeof buf)) > 0)
		tp_out_write(&o, buf, (size_t)n);
	if (n < 0) {
		tp_error("temporary file: %s", strerror(errno));
		close(fd);
		tp_close_output(&o, 0);
		return TP_EXIT_FAIL;
	}
	close(fd);
	return tp_close_output(&o, 1);
}

int
tp_split(const struct tp_split_args *a, const char *file, const char *prefix)
{
	struct tp_in in;
	struct tp_err err;
	struct tp_out scratch;
	struct tc_cutter t;
	struct tc_opts o = { .rule = a->rule, .size = a->size,
	    .only = a->piece };
	const struct tp_format *f, *tie;
	const unsigned char *p;
	char ext[32], *own = NULL;
	int r, status = 0;
	size_t n;

	tp_err_clear(&err);
	if (file != NULL && strcmp(file, "-") == 0)
		file = NULL;
	if (tp_in_open(&in, file, &err) < 0) {
		tp_err_print(&err, file ? file : "<stdin>");
		return err.status ? err.status : TP_EXIT_FAIL;
	}
	in.gz_fallback = 1;
	n = (size_t)tp_probe_bytes(&in, &p);
	if ((f = tp_format_detect(p, n, NULL, 0, &tie)) == NULL) {
		err.offset = 0;
		if (tie != NULL)
			tp_fail(&err, TP_EXIT_DATA, "%s and %s both accept it",
			    tp_format_probe(p, n, NULL, 0)->name, tie->name);
		else if (tp_check_format(tp_formats[0], TP_DECODE, &in,
		    &err) == 0)
			tp_fail(&err, TP_EXIT_DATA, "not a trace format "
			    "tracepipe knows");
		goto fail_in;
	}
	if (f->split == NULL) {
		tp_fail(&err, TP_EXIT_DATA, "%s cannot be cut yet", f->desc);
		goto fail_in;
	}
	if (!(f->flags & TP_FMT_TEXT) && in.fd == 0 && isatty(0)) {
		tp_fail(&err, TP_EXIT_FAIL, "a binary trace is not read from a "
		    "terminal");
		goto fail_in;
	}
	tp_note("%s: %s", in.name, f->desc);
	if (a->rule == TC_CHUNKS && tp_split_input_bytes(&in, file, &o.total,
	    "-n needs the input's size, which a pipe does not tell: use -b or "
	    "-l, or give a file", &err) < 0)
		goto fail_in;
	piece_ext(f, file, ext, sizeof ext);
	o.ext = ext;
	if (prefix == NULL && (prefix = own = default_prefix(file, ext)) ==
	    NULL) {
		tp_fail(&err, TP_EXIT_FAIL, "out of memory");
		goto fail_in;
	}
	o.prefix = prefix;
	if (a->piece >= 0) {
		if (tp_split_scratch(&scratch, &err) < 0)
			goto fail_in;
		o.out_only = &scratch;
	}
	if (tc_cutter_init(&t, &o, &err) < 0) {
		if (a->piece >= 0)
			tp_out_close(&scratch, 0, &err);
		goto fail_in;
	}
	tp_err_clear(&err);
	r = f->split(&in, &t.c, &err);
	if (r < 0 && !t.done) {
		/* err may name the piece, which the cutter holds till then. */
		struct tp_err e2;
		tp_err_print(&err, in.name);
		tp_err_clear(&e2);
		tc_finish(&t, 0, &e2);
		if (a->piece >= 0)
			tp_out_close(&scratch, 0, &e2);
		tp_in_close(&in);
		free(own);
		return err.status ? err.status : TP_EXIT_FAIL;
	}
	if (!t.done && tp_in_close(&in) < 0) {
		tp_err_print(&err, in.name);
		tc_finish(&t, 0, &err);
		if (a->piece >= 0)
			tp_out_close(&scratch, 0, &err);
		free(own);
		return TP_EXIT_DATA;
	}
	if (t.done)
		tp_in_close(&in);
	tp_err_clear(&err);
	if (tc_finish(&t, 1, &err) < 0) {
		tp_err_print(&err, "");
		if (a->piece >= 0)
			tp_out_close(&scratch, 0, &err);
		free(own);
		return err.status ? err.status : TP_EXIT_FAIL;
	}
	if (a->piece >= 0 && t.pieces <= (uint64_t)a->piece) {
		tp_warn("%s: %llu piece%s: piece %lld is empty", in.name,
		    (unsigned long long)t.pieces, tp_s(t.pieces),
		    (long long)a->piece);
	}
	tp_note("%s: %llu piece%s", in.name, (unsigned long long)t.pieces,
	    tp_s(t.pieces));
	if (a->piece >= 0)
		status = deliver(&scratch, a->output);
	free(own);
	return status;
fail_in:
	tp_err_print(&err, in.name);
	tp_in_close(&in);
	free(own);
	return err.status ? err.status : TP_EXIT_FAIL;
}

const char *
tp_size_parse(const char *s, uint64_t *v)
{
	unsigned long long x, mult = 1;
	const char *u;
	char *end;

	if (*s < '0' || *s > '9')
		return NULL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno != 0)
		return NULL;
	if (*end != '\0' && (u = strchr("KMGT", *end)) != NULL) {
		mult = 1ULL << (10 * (u - "KMGT" + 1));
		end++;
	}
	if (x > UINT64_MAX / mult)
		return NULL;
	*v = x * mult;
	return end;
}
