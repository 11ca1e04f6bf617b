/*
 * Buffered output.  The buffer is written with one write(2) when full.
 * A named file is written as NAME.XXXXXX beside it and renamed on success,
 * so a failed conversion never leaves a half-written file under the name.
 */
#include <sys/stat.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "output.h"

static struct tp_out *pending;	/* output whose temporary file to remove */

static void
out_cleanup(void)
{
	if (pending != NULL && pending->tmppath != NULL) {
		unlink(pending->tmppath);
		free(pending->tmppath);
		pending->tmppath = NULL;
	}
}

static void
out_alloc(struct tp_out *o)
{
	if ((o->buf = malloc(TP_OUT_BUF + TP_OUT_SLACK)) == NULL)
		tp_die(TP_EXIT_FAIL, "cannot allocate output buffer:");
	o->len = 0;
	o->written = 0;
}

int
tp_out_open(struct tp_out *o, const char *path, int binary)
{
	memset(o, 0, sizeof *o);
	if (path == NULL || strcmp(path, "-") == 0) {
		o->name = "<stdout>";
		o->fd = 1;
		if (binary && isatty(1))
			tp_die(TP_EXIT_FAIL, "refusing to write binary data "
			    "to a terminal (use -o FILE or a redirection)");
	} else {
		size_t n = strlen(path);
		o->name = path;
		if ((o->path = strdup(path)) == NULL ||
		    (o->tmppath = malloc(n + 8)) == NULL)
			tp_die(TP_EXIT_FAIL, "out of memory:");
		memcpy(o->tmppath, path, n);
		memcpy(o->tmppath + n, ".XXXXXX", 8);
		if ((o->fd = mkstemp(o->tmppath)) < 0) {
			free(o->tmppath);
			o->tmppath = NULL;
			tp_die(TP_EXIT_FAIL, "%s: cannot create:", path);
		}
		pending = o;
		tp_atdie(out_cleanup);
	}
	out_alloc(o);
	return 0;
}

void
tp_out_open_discard(struct tp_out *o)
{
	memset(o, 0, sizeof *o);
	o->name = "<discard>";
	o->fd = -1;
	out_alloc(o);
}

static void
write_all(struct tp_out *o, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(o->fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE) {
				/*
				 * The reader went away (| head): stop quietly,
				 * as the default SIGPIPE would have.
				 */
				out_cleanup();
				signal(SIGPIPE, SIG_DFL);
				raise(SIGPIPE);
				_exit(0);
			}
			tp_die(TP_EXIT_FAIL, "%s: write error:", o->name);
		}
		p += w;
		n -= (size_t)w;
	}
}

void
tp_out_flush(struct tp_out *o)
{
	if (o->len == 0)
		return;
	if (o->fd >= 0)
		write_all(o, o->buf, o->len);
	o->written += o->len;
	o->len = 0;
}

void
tp_out_write(struct tp_out *o, const void *p, size_t n)
{
	const char *s = p;

	if (n <= TP_OUT_SLACK) {
		char *d = tp_out_reserve(o, n);
		memcpy(d, s, n);
		tp_out_commit(o, d + n);
		return;
	}
	tp_out_flush(o);
	if (o->fd >= 0)
		write_all(o, s, n);
	o->written += n;
}

int
tp_out_seekable(const struct tp_out *o)
{
	struct stat st;

	return o->fd >= 0 && fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    lseek(o->fd, 0, SEEK_CUR) >= 0;
}

void
tp_out_pwrite(struct tp_out *o, const void *p, size_t n, uint64_t off)
{
	const char *s = p;

	tp_out_flush(o);
	while (n > 0) {
		ssize_t w = pwrite(o->fd, s, n, (off_t)off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			tp_die(TP_EXIT_FAIL, "%s: write error:", o->name);
		}
		s += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
}

int
tp_out_close(struct tp_out *o, int success)
{
	int rc = 0;

	if (success)
		tp_out_flush(o);
	if (o->tmppath != NULL) {
		if (!success) {
			out_cleanup();
		} else {
			struct stat st;
			/* Give the new file the permissions a plain create would. */
			mode_t mask = umask(0);
			umask(mask);
			if (fstat(o->fd, &st) == 0)
				fchmod(o->fd, 0666 & ~mask);
			if (close(o->fd) < 0)
				tp_die(TP_EXIT_FAIL, "%s: write error:", o->name);
			o->fd = -1;
			if (rename(o->tmppath, o->path) < 0)
				tp_die(TP_EXIT_FAIL, "%s: cannot rename %s:",
				    o->path, o->tmppath);
			free(o->tmppath);
			o->tmppath = NULL;
		}
	}
	if (o->fd > 1)
		close(o->fd);
	else if (o->fd == 1 && success) {
		/* stdout: a delayed error (NFS, full disk) shows up here. */
		if (close(1) < 0 && errno != EINTR && errno != EBADF)
			tp_die(TP_EXIT_FAIL, "%s: write error:", o->name);
	}
	if (pending == o)
		pending = NULL;
	free(o->path);
	free(o->buf);
	o->buf = NULL;
	o->path = NULL;
	return rc;
}
