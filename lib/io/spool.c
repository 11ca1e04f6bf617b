/*
 * The spool: a memory buffer that spills into an unlinked temporary file.
 *
 * While writing, buf holds the records not yet in the file.  The first
 * rewind writes them out (when there is a file at all) and the spool
 * turns to reading for good: from then on buf holds bytes read back from
 * the file, which a later rewind must not write again.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/leb128.h"
#include "io/output.h"
#include "io/spool.h"

const char *
tp_tmpdir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir != NULL && *dir != '\0' ? dir : "/tmp";
}

static int
spool_syserr(struct tp_spool *s, const char *what)
{
	int e = errno;

	s->err->offset = TP_NONE;
	return tp_fail(s->err, TP_EXIT_FAIL, "%s spool file in %s: %s", what,
	    tp_tmpdir(), strerror(e));
}

int
tp_spool_init(struct tp_spool *s, size_t mem, struct tp_err *err)
{
	memset(s, 0, sizeof *s);
	s->fd = -1;
	s->err = err;
	s->mem = mem != 0 ? mem : TP_SPOOL_CAP;
	s->cap = s->mem < TP_SPOOL_FIRST ? s->mem : TP_SPOOL_FIRST;
	if ((s->buf = malloc(s->cap)) == NULL)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory for the spool");
	return 0;
}

void
tp_spool_free(struct tp_spool *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	s->buf = NULL;
	s->fd = -1;
}

/*
 * A file nobody else can see: O_TMPFILE, or a name unlinked at once, with
 * the fatal signals held back in between so that no name outlives the
 * process (the file holds the input's text).
 */
int
tp_tmpfile(const char *prefix)
{
	const char *dir = tp_tmpdir();
	size_t dl = strlen(dir), pl = strlen(prefix);
	sigset_t set, old;
	char *path;
	int fd, e;

#ifdef O_TMPFILE
	fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
	if (fd >= 0 || (errno != EISDIR && errno != EOPNOTSUPP &&
	    errno != EINVAL))
		return fd;
#endif
	if ((path = malloc(dl + pl + sizeof "/.XXXXXX")) == NULL)
		return -1;
	memcpy(path, dir, dl);
	path[dl] = '/';
	memcpy(path + dl + 1, prefix, pl);
	memcpy(path + dl + 1 + pl, ".XXXXXX", sizeof ".XXXXXX");
	sigemptyset(&set);
	for (const int *sig = tp_out_fatal_signals; *sig != 0; sig++)
		sigaddset(&set, *sig);
	sigprocmask(SIG_BLOCK, &set, &old);
	if ((fd = mkstemp(path)) >= 0)
		unlink(path);
	e = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(path);
	errno = e;
	return fd;
}

static int
spool_create(struct tp_spool *s)
{
	s->fd = tp_tmpfile("tracepipe-spool");
	return s->fd >= 0 ? 0 : spool_syserr(s, "cannot create a");
}

static int
spool_write(struct tp_spool *s, const void *p, size_t n)
{
	const unsigned char *b = p;

	if (s->fd < 0 && spool_create(s) < 0)
		return -1;
	while (n > 0) {
		ssize_t w = write(s->fd, b, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return spool_syserr(s, "cannot write the");
		}
		b += w;
		n -= (size_t)w;
		s->file_bytes += (uint64_t)w;
	}
	return 0;
}

static int
spool_flush(struct tp_spool *s)
{
	if (s->len > 0 && spool_write(s, s->buf, s->len) < 0)
		return -1;
	s->len = 0;
	return 0;
}

int
tp_spool_put_slow(struct tp_spool *s, const void *p, size_t n)
{
	unsigned char head[TP_LEB_MAX];
	size_t hl = (size_t)(tp_uleb_put(head, n) - head);

	if (s->reading)
		return tp_fail(s->err, TP_EXIT_FAIL, "spool written after a "
		    "rewind");
	if (s->len + hl + n > s->cap && s->cap < s->mem) {
		/* The memory part grows (doubling) before anything spills. */
		size_t want = s->len + hl + n, c = s->cap;
		unsigned char *nb;
		while (c < want && c < s->mem)
			c = c > s->mem / 2 ? s->mem : 2 * c;
		if ((nb = realloc(s->buf, c)) == NULL)
			return tp_fail(s->err, TP_EXIT_FAIL, "out of memory "
			    "for the spool");
		s->buf = nb;
		s->cap = c;
	}
	if (s->len + hl + n > s->mem && spool_flush(s) < 0)
		return -1;
	if (hl + n > s->mem) {
		/* Longer than the memory part: straight to the file. */
		if (spool_write(s, head, hl) < 0 || spool_write(s, p, n) < 0)
			return -1;
	} else {
		memcpy(s->buf + s->len, head, hl);
		memcpy(s->buf + s->len + hl, p, n);
		s->len += hl + n;
	}
	s->records++;
	return 0;
}

int
tp_spool_rewind(struct tp_spool *s)
{
	if (!s->reading) {
		s->reading = 1;
		if (s->fd >= 0 && spool_flush(s) < 0)
			return -1;
	}
	s->pos = 0;
	if (s->fd < 0)
		return 0;	/* all of it in buf[0..len) */
	if (lseek(s->fd, 0, SEEK_SET) < 0)
		return spool_syserr(s, "cannot rewind the");
	s->file_read = 0;
	s->len = 0;
	return 0;
}

/* At least want unread bytes in buf, unless the file ends first. */
static int
spool_fill(struct tp_spool *s, size_t want)
{
	if (s->len - s->pos >= want || s->file_read == s->file_bytes)
		return 0;
	if (want > s->cap) {
		unsigned char *nb = realloc(s->buf, want);
		if (nb == NULL)
			return tp_fail(s->err, TP_EXIT_FAIL, "out of memory "
			    "for a spooled record of %zu bytes", want);
		s->buf = nb;
		s->cap = want;
	}
	memmove(s->buf, s->buf + s->pos, s->len - s->pos);
	s->len -= s->pos;
	s->pos = 0;
	while (s->len < want && s->file_read < s->file_bytes) {
		uint64_t left = s->file_bytes - s->file_read;
		size_t room = s->cap - s->len;
		ssize_t r = read(s->fd, s->buf + s->len,
		    left < room ? (size_t)left : room);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;	/* shorter than written */
			return spool_syserr(s, "cannot read the");
		}
		s->len += (size_t)r;
		s->file_read += (uint64_t)r;
	}
	return 0;
}

int
tp_spool_get(struct tp_spool *s, const unsigned char **p, size_t *n)
{
	uint64_t v;
	size_t hl;

	if (!s->reading)
		return tp_fail(s->err, TP_EXIT_FAIL, "spool read before a "
		    "rewind");
	if (spool_fill(s, TP_LEB_MAX) < 0)
		return -1;
	if (s->pos == s->len)
		return 0;
	if (tp_uleb_get(s->buf + s->pos, s->len - s->pos, &v, &hl) !=
	    TP_LEB_OK || v > SIZE_MAX - hl)
		goto corrupt;
	if (spool_fill(s, hl + (size_t)v) < 0)
		return -1;
	if (s->len - s->pos < hl + (size_t)v)
		goto corrupt;
	*p = s->buf + s->pos + hl;
	*n = (size_t)v;
	s->pos += hl + (size_t)v;
	return 1;
corrupt:
	errno = EIO;
	return spool_syserr(s, "cannot read the");
}
