/*
 * Buffered output.  The buffer is written with one write(2) when full.
 * A regular file is written as NAME.XXXXXX beside it and renamed on
 * success, so a failed conversion never leaves a half-written file under
 * the name, and no temporary file outlives its output object: not on
 * failure, not on any signal whose default ends the process.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/input.h"
#include "io/output.h"

/*
 * The signals whose default action ends the process, as GNU sort's list
 * (sort.c, sighandler's caught list): a temporary file must not outlive
 * any of them.
 */
const int tp_out_fatal_signals[] = {
	SIGALRM, SIGHUP, SIGINT, SIGPIPE, SIGQUIT, SIGTERM,
#ifdef SIGIO
	SIGIO,
#endif
#ifdef SIGPROF
	SIGPROF,
#endif
#ifdef SIGVTALRM
	SIGVTALRM,
#endif
#ifdef SIGXCPU
	SIGXCPU,
#endif
#ifdef SIGXFSZ
	SIGXFSZ,
#endif
	SIGUSR1, SIGUSR2, 0
};

/* The outputs with a temporary file, walked by tp_out_unlink_temps. */
static struct tp_out *volatile live;

void
tp_out_unlink_temps(void)
{
	for (struct tp_out *o = live; o != NULL; o = o->next)
		if (o->tmppath != NULL)
			unlink(o->tmppath);
}

/* The list changes with the caught signals held back. */
static void
hold_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (const int *s = tp_out_fatal_signals; *s != 0; s++)
		sigaddset(&set, *s);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void
unlist(struct tp_out *o)
{
	struct tp_out *volatile *pp;

	for (pp = &live; *pp != NULL; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			break;
		}
}

/* "NAME: what [arg]: strerror", status 2; the object holds nothing. */
static int
open_fail(struct tp_out *o, struct tp_err *err, int e, const char *what,
    const char *arg)
{
	tp_err_clear(err);
	err->name = o->name;
	tp_fail(err, TP_EXIT_FAIL, "%s%s%s: %s", what, arg != NULL ? " " : "",
	    arg != NULL ? arg : "", strerror(e));
	free(o->path);
	o->path = NULL;
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	return -1;
}

/*
 * Follow symlinks from path to the file they name (which may not exist
 * yet).  Returns the final path (malloc'd) with *st filled and *exists
 * set, or NULL with errno set.
 */
static char *
follow_links(const char *path, struct stat *st, int *exists)
{
	char *p = strdup(path);

	for (int hops = 0; p != NULL; hops++) {
		char target[PATH_MAX], *q, *slash;
		ssize_t n;

		if (lstat(p, st) < 0) {
			if (errno != ENOENT)
				break;
			*exists = 0;
			return p;
		}
		*exists = 1;
		if (!S_ISLNK(st->st_mode))
			return p;
		if (hops == 40) {
			errno = ELOOP;
			break;
		}
		if ((n = readlink(p, target, sizeof target - 1)) < 0)
			break;
		target[n] = '\0';
		/* A relative target is relative to the link's directory. */
		slash = strrchr(p, '/');
		if (target[0] == '/' || slash == NULL) {
			q = strdup(target);
		} else if ((q = malloc((size_t)(slash - p) + 2 +
		    (size_t)n)) != NULL) {
			memcpy(q, p, (size_t)(slash - p) + 1);
			memcpy(q + (slash - p) + 1, target, (size_t)n + 1);
		}
		free(p);
		p = q;
	}
	free(p);
	return NULL;
}

/* NAME.XXXXXX beside the file, listed for the signal handler. */
static int
open_temporary(struct tp_out *o, struct tp_err *err)
{
	size_t n = strlen(o->path);
	char *slash;
	sigset_t old;
	int e;

	if ((o->tmppath = malloc(n + sizeof ".XXXXXX")) == NULL)
		return open_fail(o, err, ENOMEM, "cannot open", NULL);
	memcpy(o->tmppath, o->path, n);
	memcpy(o->tmppath + n, ".XXXXXX", sizeof ".XXXXXX");
	hold_signals(&old);
	o->fd = mkstemp(o->tmppath);
	e = errno;
	if (o->fd >= 0) {
		o->next = live;
		live = o;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (o->fd >= 0)
		return 0;
	free(o->tmppath);
	o->tmppath = NULL;
	slash = strrchr(o->path, '/');
	if (slash != NULL)
		slash[slash == o->path] = '\0';
	return open_fail(o, err, e, "cannot create a temporary file in",
	    slash != NULL ? o->path : ".");
}

/*
 * The temporary file gets the owner and group of the file it replaces
 * (root writing another user's file would make it root's); when that is
 * not allowed, nothing is written: the file would change hands.
 */
static int
keep_owner(struct tp_out *o, const struct stat *was, struct tp_err *err)
{
	struct stat now;
	char what[96];
	int e;

	if (fstat(o->fd, &now) == 0 && now.st_uid == was->st_uid &&
	    now.st_gid == was->st_gid)
		return 0;
	if (fchown(o->fd, was->st_uid, was->st_gid) == 0)
		return 0;
	e = errno;
	snprintf(what, sizeof what, "cannot keep the owner of the file "
	    "(uid %lu, gid %lu) in its replacement",
	    (unsigned long)was->st_uid, (unsigned long)was->st_gid);
	close(o->fd);
	o->fd = -1;
	{
		sigset_t old;
		hold_signals(&old);
		unlink(o->tmppath);
		unlist(o);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	free(o->tmppath);
	o->tmppath = NULL;
	return open_fail(o, err, e, what, NULL);
}

static int
open_path(struct tp_out *o, const char *path, int binary, struct tp_err *err)
{
	struct stat st, fst;
	int exists = 1;
	mode_t mask = umask(0);

	umask(mask);
	o->name = path;
	o->mode = 0666 & ~mask;
	if (stat(path, &st) < 0) {
		if (errno != ENOENT)
			return open_fail(o, err, errno, "cannot open", NULL);
		exists = 0;
	}
	if (exists && S_ISDIR(st.st_mode))
		return open_fail(o, err, EISDIR, "cannot write", NULL);
	if (!exists || S_ISREG(st.st_mode)) {
		/*
		 * A new file, or one replaced (keeping its permissions),
		 * through its symlinks: unless the links cannot be followed
		 * by name (/proc's magic links to deleted files), which
		 * leaves writing it in place.
		 */
		if ((o->path = follow_links(path, &fst, &exists)) == NULL)
			return open_fail(o, err, errno, "cannot open", NULL);
		if (!exists)
			return open_temporary(o, err);
		if (S_ISREG(fst.st_mode) && fst.st_dev == st.st_dev &&
		    fst.st_ino == st.st_ino) {
			o->mode = st.st_mode & 07777;
			if (fst.st_nlink > 1) {
				/* sort -o keeps them by writing in place; a
				   temporary renamed into place cannot. */
				free(o->path);
				o->path = NULL;
				tp_err_clear(err);
				err->name = o->name;
				return tp_fail(err, TP_EXIT_FAIL, "the file has "
				    "%lu hard links, which a new file renamed "
				    "into place would break: write to another "
				    "name and copy it over",
				    (unsigned long)fst.st_nlink);
			}
			return open_temporary(o, err) < 0 ? -1 :
			    keep_owner(o, &fst, err);
		}
	}
	/* A device, a FIFO: written as it is, where it is. */
	free(o->path);
	o->path = NULL;
	o->fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC |
	    (exists && S_ISREG(st.st_mode) ? O_TRUNC : 0));
	if (o->fd < 0)
		return open_fail(o, err, errno, "cannot open", NULL);
	tp_pipe_grow(o->fd);
	if (binary && isatty(o->fd)) {
		close(o->fd);
		o->fd = -1;
		tp_err_clear(err);
		err->name = "";
		return tp_fail(err, TP_EXIT_FAIL, "refusing to write binary "
		    "data to a terminal (%s)", path);
	}
	return 0;
}

int
tp_out_open(struct tp_out *o, const char *path, int binary,
    struct tp_err *err)
{
	memset(o, 0, sizeof *o);
	o->fd = -1;
	if (path == NULL || strcmp(path, "-") == 0) {
		o->name = "<stdout>";
		if (binary && isatty(1)) {
			tp_err_clear(err);
			err->name = "";
			return tp_fail(err, TP_EXIT_FAIL, "refusing to write "
			    "binary data to a terminal (use -o FILE or a "
			    "redirection)");
		}
		o->fd = 1;
		tp_pipe_grow(1);
	} else if (open_path(o, path, binary, err) < 0) {
		return -1;
	}
	if ((o->buf = malloc(TP_OUT_BUF + TP_OUT_SLACK)) == NULL) {
		tp_out_close(o, 0, NULL);
		tp_err_clear(err);
		err->name = o->name;
		return tp_fail(err, TP_EXIT_FAIL, "cannot allocate the output "
		    "buffer");
	}
	return 0;
}

int
tp_out_open_fd(struct tp_out *o, int fd, const char *name)
{
	memset(o, 0, sizeof *o);
	o->name = name;
	o->fd = fd;
	tp_pipe_grow(fd);
	o->buf = malloc(TP_OUT_BUF + TP_OUT_SLACK);
	return o->buf != NULL ? 0 : -1;
}

int
tp_out_open_discard(struct tp_out *o)
{
	memset(o, 0, sizeof *o);
	o->name = "<discard>";
	o->fd = -1;
	o->buf = malloc(TP_OUT_BUF + TP_OUT_SLACK);
	return o->buf != NULL ? 0 : -1;
}

static void
out_error(struct tp_out *o, const char *what)
{
	if (o->error == 0) {
		o->error = errno != 0 ? errno : EIO;
		o->failed = what;
	}
}

static void
out_fail(struct tp_out *o, int e, const char *what)
{
	errno = e;
	out_error(o, what);
}

static void
write_all(struct tp_out *o, const char *p, size_t n)
{
	while (n > 0 && o->error == 0) {
		ssize_t w = write(o->fd, p, n);
		if (w < 0) {
			if (errno != EINTR)
				out_error(o, "write error");
			continue;
		}
		p += w;
		n -= (size_t)w;
	}
}

/*
 * With o->lines, the line limit of trace text (a decoder's record that
 * outgrew what the encoders read): checked at each flush, where the last
 * newline of the buffer is found from its end, so records cost nothing.
 * The bytes still go out (the reader after refuses the long line rather
 * than take a cut one as whole), then the output fails.
 */
static int
line_too_long(struct tp_out *o, const char *buf, size_t n)
{
	const char *p = buf + n, *first;
	uint64_t before = o->line_len;

	while (p > buf && p[-1] != '\n')
		p--;
	if (p == buf) {
		o->line_len += n;
		return o->line_len > TP_LINE_MAX;
	}
	o->line_len = (uint64_t)(buf + n - p);
	first = memchr(buf, '\n', n);
	return before + (uint64_t)(first - buf) > TP_LINE_MAX;
}

void
tp_out_flush(struct tp_out *o)
{
	int too_long;

	if (o->len == 0)
		return;
	too_long = o->lines && line_too_long(o, o->buf, o->len);
	if (o->fd >= 0)
		write_all(o, o->buf, o->len);
	o->written += o->len;
	o->len = 0;
	if (too_long)
		out_fail(o, EFBIG, TP_OUT_TOO_LONG);
}

void
tp_out_write(struct tp_out *o, const void *p, size_t n)
{
	const char *s = p;
	int too_long;

	if (n == 0)
		return;		/* p may be NULL */
	if (n <= TP_OUT_SLACK) {
		char *d = tp_out_reserve(o, n);
		memcpy(d, s, n);
		tp_out_commit(o, d + n);
		return;
	}
	tp_out_flush(o);
	too_long = o->lines && line_too_long(o, s, n);
	if (o->fd >= 0)
		write_all(o, s, n);
	o->written += n;
	if (too_long)
		out_fail(o, EFBIG, TP_OUT_TOO_LONG);
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
	while (n > 0 && o->error == 0) {
		ssize_t w = pwrite(o->fd, s, n, (off_t)off);
		if (w < 0) {
			if (errno != EINTR)
				out_error(o, "write error");
			continue;
		}
		s += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
}

int
tp_out_close(struct tp_out *o, int commit, struct tp_err *err)
{
	int renamed = 0;

	if (commit)
		tp_out_flush(o);
	if (o->tmppath != NULL) {
		if (commit && o->error == 0) {
			if (fchmod(o->fd, o->mode) < 0)
				out_error(o, "cannot set the permissions of "
				    "the temporary file");
			if (close(o->fd) < 0)
				out_error(o, "write error");
			o->fd = -1;
			if (o->error == 0) {
				if (rename(o->tmppath, o->path) == 0)
					renamed = 1;
				else
					out_error(o, "cannot rename the "
					    "temporary file into place");
			}
		}
		if (o->fd >= 0)
			close(o->fd);
		o->fd = -1;
		{
			sigset_t old;
			hold_signals(&old);
			if (!renamed)
				unlink(o->tmppath);
			unlist(o);
			free(o->tmppath);
			o->tmppath = NULL;
			sigprocmask(SIG_SETMASK, &old, NULL);
		}
	} else if (o->fd > 1) {
		if (close(o->fd) < 0 && commit)
			out_error(o, "write error");
	} else if (o->fd == 1 && commit) {
		/* stdout: a delayed error (NFS, full disk) shows up here. */
		if (close(1) < 0 && errno != EINTR && errno != EBADF)
			out_error(o, "write error");
	}
	o->fd = -1;
	free(o->path);
	free(o->buf);
	o->buf = NULL;
	o->path = NULL;
	if (o->error == 0)
		return 0;
	if (err != NULL) {
		tp_err_clear(err);
		err->name = o->name;
		tp_fail(err, TP_EXIT_FAIL, "%s: %s", o->failed,
		    strerror(o->error));
	}
	return -1;
}
