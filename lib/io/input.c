/*
 * Buffered input with transparent gzip.  Plain input is read(2) straight
 * into the buffer; gzip input (recognised by its whole header: magic,
 * method 8, reserved flags clear) is inflated from a second buffer.  A
 * gzip stream that ends early, corrupt data and bytes after the last gzip
 * member are errors, never a silent truncation.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/input.h"

#if !defined(TP_FUZZ) && defined(__linux__)
#define TP_GZ_THREAD 1
#include <pthread.h>
#endif

static int
in_syserr(struct tp_in *in, const char *what)
{
	in->failed = 1;
	in->err->offset = TP_NONE;
	return tp_fail(in->err, TP_EXIT_FAIL, "%s: %s", what, strerror(errno));
}

static int
in_dataerr(struct tp_in *in, const char *msg)
{
	in->failed = 1;
	in->err->offset = tp_in_offset(in) + (in->len - in->pos);
	return tp_fail(in->err, TP_EXIT_DATA, "%s", msg);
}

/* Compressed bytes read at once (gzip). */
#define TP_IN_RAW (TP_IN_BUF / 2)
/* Less room than this at the buffer's end: the unread bytes move first. */
#define IN_LOW (TP_IN_BUF / 4)

void
tp_pipe_grow(int fd)
{
#ifdef F_SETPIPE_SZ
	static long max;	/* pipe-max-size, read once; -1: unknown */
	struct stat st;
	long want = TP_PIPE_SIZE;
	int now;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISFIFO(st.st_mode))
		return;
	if (max == 0) {
		FILE *f = fopen("/proc/sys/fs/pipe-max-size", "r");
		if (f == NULL || fscanf(f, "%ld", &max) != 1 || max <= 0)
			max = -1;
		if (f != NULL)
			fclose(f);
	}
	if (max > 0 && max < want)
		want = max;
	now = fcntl(fd, F_GETPIPE_SZ);
	if (now >= 0 && now < want)
		(void)fcntl(fd, F_SETPIPE_SZ, (int)want);
#else
	(void)fd;
#endif
}

static int
in_init(struct tp_in *in, const char *name, struct tp_err *err, size_t cap)
{
	memset(in, 0, sizeof *in);
	in->name = name;
	in->err = err;
	in->fd = -1;
	in->cap = cap;
	if ((in->buf = malloc(in->cap)) == NULL) {
		errno = ENOMEM;
		return in_syserr(in, "cannot allocate input buffer");
	}
	return 0;
}

int
tp_in_open(struct tp_in *in, const char *path, struct tp_err *err)
{
	int stdin_ = path == NULL || strcmp(path, "-") == 0;

	if (in_init(in, stdin_ ? "<stdin>" : path, err, TP_IN_BUF) < 0)
		return -1;
	if (stdin_) {
		in->fd = 0;
	} else if ((in->fd = open(path, O_RDONLY)) < 0) {
		int e = errno;
		free(in->buf);
		in->buf = NULL;
		in->failed = 1;
		return tp_fail(err, TP_EXIT_FAIL, "cannot open: %s", strerror(e));
	}
	tp_pipe_grow(in->fd);
	return 0;
}

int
tp_in_open_fd(struct tp_in *in, int fd, const char *name, struct tp_err *err)
{
	if (in_init(in, name, err, TP_IN_BUF) < 0)
		return -1;
	in->fd = fd;
	tp_pipe_grow(fd);
	return 0;
}

int
tp_in_open_mem(struct tp_in *in, const void *p, size_t n, const char *name,
    struct tp_err *err)
{
	/*
	 * A buffer no larger than the bytes (it grows as a file's does): a
	 * fuzz harness opens several per input, each one would otherwise
	 * be a whole buffer allocated and filled.
	 */
	size_t cap = n < 64 ? 64 : n < TP_IN_BUF ? n : TP_IN_BUF;

	if (in_init(in, name ? name : "<memory>", err, cap) < 0)
		return -1;
	in->mem = p;
	in->memlen = n;
	return 0;
}

/* Raw bytes from the source into dst; 0 at end, -1 on error. */
static long
raw_read(struct tp_in *in, void *dst, size_t n)
{
	ssize_t r;

	if (in->fd < 0) {
		if (n > in->memlen)
			n = in->memlen;
		memcpy(dst, in->mem, n);
		in->mem += n;
		in->memlen -= n;
		return (long)n;
	}
#ifdef TP_GZ_THREAD
	if (in->gzt != NULL) {
		/* The reader thread: read(2) is where tp_in_close may end it. */
		int old;
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
		do
			r = read(in->fd, dst, n);
		while (r < 0 && errno == EINTR);
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	} else
#endif
	do
		r = read(in->fd, dst, n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return in_syserr(in, "read error");
	return (long)r;
}

static int
gz_start(struct tp_in *in)
{
	/*
	 * The first read, which found the gzip magic, may have filled the
	 * whole line buffer: the compressed buffer must hold all of it.
	 */
	size_t size = in->cap > TP_IN_RAW ? in->cap : TP_IN_RAW;

	if ((in->raw = malloc(size)) == NULL) {
		errno = ENOMEM;
		return in_syserr(in, "cannot allocate input buffer");
	}
	memset(&in->zs, 0, sizeof in->zs);
	if (inflateInit2(&in->zs, 15 + 16) != Z_OK)
		return tp_fail(in->err, TP_EXIT_FAIL, "zlib initialisation failed");
	in->gz = 1;
	return 0;
}

/*
 * What looked like a gzip header is followed by no deflate data: the
 * bytes were the format's own.  Everything read so far is still in the
 * first compressed read: hand it over as it is, and read on plainly.
 */
static long
gz_abandon(struct tp_in *in)
{
	size_t n = in->gz_first;

	inflateEnd(&in->zs);
	in->gz = 0;
	in->gz_first = 0;
	memcpy(in->buf + in->len, in->raw, n);
	return (long)n;
}

/* What stopped an inflate after the bytes it made (struct gz_fault). */
enum { GZ_OK, GZ_SYSERR, GZ_DATAERR };
#define GZ_ABANDON (-2)

struct gz_fault {
	int kind;
	int errnum;		/* GZ_SYSERR */
	char msg[200];		/* GZ_DATAERR */
};

static void
gz_data_fault(struct gz_fault *f, const char *msg)
{
	f->kind = GZ_DATAERR;
	snprintf(f->msg, sizeof f->msg, "%s", msg);
}

/*
 * Inflate into out[0..room).  Returns the bytes made (0 at the end) with
 * f->kind set when something went wrong after them, or GZ_ABANDON when
 * the first read turned out not to be gzip.  Touches only the stream
 * (in->zs, in->raw, in->gz, the source), not the buffer nor in->err: the
 * reader thread runs it.
 */
static long
gz_inflate(struct tp_in *in, unsigned char *out, size_t room,
    struct gz_fault *f)
{
	int rc;

	f->kind = GZ_OK;
	for (;;) {
		if (in->zs.avail_in == 0) {
			long r;
			in->gz_first = 0;
			r = raw_read(in, in->raw, TP_IN_RAW);
			if (r < 0) {
				f->kind = GZ_SYSERR;
				f->errnum = errno;
				return 0;
			}
			if (r == 0) {
				if (in->gz != 2)
					gz_data_fault(f, "truncated gzip stream "
					    "(unexpected end of file)");
				return 0;
			}
			in->zs.next_in = in->raw;
			in->zs.avail_in = (uInt)r;
		}
		if (in->gz == 2) {
			/* Another member follows, or garbage. */
			if (in->zs.next_in[0] != 0x1f) {
				gz_data_fault(f, "data after the end of the "
				    "gzip stream");
				return 0;
			}
			if (inflateReset(&in->zs) != Z_OK) {
				gz_data_fault(f, "corrupt gzip data");
				return 0;
			}
			in->gz = 1;
		}
		in->zs.next_out = out;
		in->zs.avail_out = (uInt)room;
		rc = inflate(&in->zs, Z_NO_FLUSH);
		if (rc == Z_STREAM_END) {
			in->gz = 2;
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			if (in->gz_fallback && in->gz_first > 0 &&
			    in->zs.total_out == 0)
				return GZ_ABANDON;
			f->kind = GZ_DATAERR;
			snprintf(f->msg, sizeof f->msg, "corrupt gzip data: %s",
			    in->zs.msg ? in->zs.msg : "inflate failed");
			return (long)(room - in->zs.avail_out);
		}
		if (room - in->zs.avail_out > 0)
			return (long)(room - in->zs.avail_out);
	}
}

/*
 * The fault after made bytes, as the caller delivers them: the bytes
 * first, the error (at their end) with the next read, as in->failed is
 * set.  Returns what the read returns.
 */
static long
gz_apply(struct tp_in *in, long made, const struct gz_fault *f)
{
	if (f->kind == GZ_SYSERR) {
		errno = f->errnum;
		in_syserr(in, "read error");
	} else if (f->kind == GZ_DATAERR) {
		in_dataerr(in, f->msg);
		in->err->offset += (uint64_t)made;
	}
	return made > 0 || f->kind == GZ_OK ? made : -1;
}

#ifdef TP_GZ_THREAD
/*
 * Inflating is most of the work of reading gzip (zlib makes 250-400 MB/s
 * here, a decoder writes text at twice that): once the stream has shown
 * itself to be gzip, a reader thread inflates into a ring of blocks on
 * the second core while the program decodes.  The thread owns the stream
 * and the source from then on; the blocks carry the bytes and the fault
 * after them, delivered in order, so offsets and messages are the same.
 */
#define GZ_BLOCK (256 * 1024)
#define GZ_NBLOCK 4

struct gz_block {
	unsigned char *data;
	long len;		/* bytes made, 0 at the end */
	size_t off;		/* bytes delivered so far */
	struct gz_fault fault;
};

struct tp_gz_thread {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t filled, freed;
	struct tp_in *in;
	unsigned head, tail;	/* blocks [head, tail) are full */
	int stop;
	struct gz_block b[GZ_NBLOCK];
};

static void *
gz_thread(void *arg)
{
	struct tp_gz_thread *t = arg;
	int done = 0, old;

	/* Cancelled only inside read(2) (raw_read), at tp_in_close. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	while (!done) {
		struct gz_block *b;
		pthread_mutex_lock(&t->mu);
		while (t->tail - t->head == GZ_NBLOCK && !t->stop)
			pthread_cond_wait(&t->freed, &t->mu);
		if (t->stop) {
			pthread_mutex_unlock(&t->mu);
			break;
		}
		b = &t->b[t->tail % GZ_NBLOCK];
		pthread_mutex_unlock(&t->mu);
		b->off = 0;
		b->len = gz_inflate(t->in, b->data, GZ_BLOCK, &b->fault);
		done = b->len == 0 || b->fault.kind != GZ_OK;
		pthread_mutex_lock(&t->mu);
		t->tail++;
		pthread_cond_signal(&t->filled);
		pthread_mutex_unlock(&t->mu);
	}
	return NULL;
}

static void
gz_thread_free(struct tp_gz_thread *t)
{
	for (unsigned i = 0; i < GZ_NBLOCK; i++)
		free(t->b[i].data);
	free(t);
}

/* Start the thread; on any failure reading simply goes on without it. */
static void
gz_thread_start(struct tp_in *in)
{
	struct tp_gz_thread *t = calloc(1, sizeof *t);
	unsigned i;

	if (t == NULL)
		return;
	for (i = 0; i < GZ_NBLOCK; i++)
		if ((t->b[i].data = malloc(GZ_BLOCK)) == NULL) {
			gz_thread_free(t);
			return;
		}
	t->in = in;
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->filled, NULL);
	pthread_cond_init(&t->freed, NULL);
	in->gzt = t;
	if (pthread_create(&t->th, NULL, gz_thread, t) != 0) {
		in->gzt = NULL;
		gz_thread_free(t);
	}
}

/* The next bytes from the thread into buf[len..cap), as gz_read. */
static long
gz_thread_read(struct tp_in *in)
{
	struct tp_gz_thread *t = in->gzt;
	struct gz_block *b;
	size_t room = in->cap - in->len, n;
	long made;

	pthread_mutex_lock(&t->mu);
	while (t->tail == t->head)
		pthread_cond_wait(&t->filled, &t->mu);
	b = &t->b[t->head % GZ_NBLOCK];
	pthread_mutex_unlock(&t->mu);
	n = (size_t)b->len - b->off;
	if (n > room)
		n = room;
	memcpy(in->buf + in->len, b->data + b->off, n);
	b->off += n;
	made = (long)n;
	if (b->off < (size_t)b->len)
		return made;
	if (b->len == 0 || b->fault.kind != GZ_OK)
		return gz_apply(in, made, &b->fault);	/* the last block */
	pthread_mutex_lock(&t->mu);
	t->head++;
	pthread_cond_signal(&t->freed);
	pthread_mutex_unlock(&t->mu);
	return made;
}

static void
gz_thread_stop(struct tp_in *in)
{
	struct tp_gz_thread *t = in->gzt;

	if (t == NULL)
		return;
	pthread_mutex_lock(&t->mu);
	t->stop = 1;
	pthread_cond_signal(&t->freed);
	pthread_mutex_unlock(&t->mu);
	/* A source that never ends nor sends (a stalled pipe) must not
	   hold up the close: read(2) is where the thread waits. */
	pthread_cancel(t->th);
	pthread_join(t->th, NULL);
	in->gzt = NULL;
	gz_thread_free(t);
}
#endif

/* Inflate into buf[len..cap).  Returns bytes produced, 0 at end, -1. */
static long
gz_read(struct tp_in *in)
{
	struct gz_fault f;
	long made;

#ifdef TP_GZ_THREAD
	if (in->gzt != NULL)
		return gz_thread_read(in);
#endif
	made = gz_inflate(in, in->buf + in->len, in->cap - in->len, &f);
	if (made == GZ_ABANDON)
		return gz_abandon(in);
	if (f.kind != GZ_OK)
		return gz_apply(in, made, &f);
#ifdef TP_GZ_THREAD
	/* Gzip for sure now (the fallback window is past), from a file or
	   a pipe, and more to come. */
	if (made > 0 && in->fd >= 0 && in->gz_first == 0)
		gz_thread_start(in);
#endif
	return made;
}

static long in_more(struct tp_in *in);

/*
 * The first r bytes begin with 0x1f: gzip, or the format's own bytes?
 * RFC 1952 2.3.1: ID1 ID2, CM 8 (deflate), FLG with its three reserved
 * bits clear.  Fewer than four bytes after the magic are a cut gzip
 * stream.
 */
static long
gz_sniff(struct tp_in *in, long r)
{
	while (r < 4) {
		long more = raw_read(in, in->buf + r, in->cap - (size_t)r);
		if (more < 0)
			return -1;
		if (more == 0)
			break;
		r += more;
	}
	if (r >= 2 && in->buf[1] == 0x8b &&
	    (r < 4 || (in->buf[2] == 8 && (in->buf[3] & 0xe0) == 0))) {
		if (gz_start(in) < 0)
			return -1;
		memcpy(in->raw, in->buf, (size_t)r);
		in->zs.next_in = in->raw;
		in->zs.avail_in = (uInt)r;
		in->gz_first = (size_t)r;
		return in_more(in);
	}
	in->len += (size_t)r;
	return r;
}

/* Append more bytes to the buffer.  Returns the count, 0 at end, -1. */
static long
in_more(struct tp_in *in)
{
	long r;

	if (in->eof || in->failed)
		return in->failed ? -1 : 0;
	if (in->gzt != NULL || in->gz)	/* in->gz is the thread's */
		r = gz_read(in);
	else
		r = raw_read(in, in->buf + in->len, in->cap - in->len);
	if (r < 0)
		return -1;
	if (r == 0) {
		in->eof = 1;
		return 0;
	}
	if (!in->sniffed) {
		in->sniffed = 1;
		if (in->buf[0] == 0x1f)
			return gz_sniff(in, r);
	}
	in->len += (size_t)r;
	return r;
}

/* Move the unread bytes to the front of the buffer. */
static void
in_compact(struct tp_in *in)
{
	if (in->pos == 0)
		return;
	memmove(in->buf, in->buf + in->pos, in->len - in->pos);
	in->base += in->pos;
	in->len -= in->pos;
	in->pos = 0;
}

/* A buffer of at least n bytes (after in_compact), or -1. */
static int
in_grow(struct tp_in *in, size_t n)
{
	size_t ncap = in->cap;
	unsigned char *nb;

	while (ncap < n)
		ncap *= 2;
	if ((nb = realloc(in->buf, ncap)) == NULL) {
		errno = ENOMEM;
		return in_syserr(in, "cannot grow input buffer");
	}
	in->buf = nb;
	in->cap = ncap;
	return 0;
}

long
tp_in_fill(struct tp_in *in, size_t n)
{
	while (in->len - in->pos < n) {
		long r;
		if (in->cap - in->len < IN_LOW || in->pos + n > in->cap)
			in_compact(in);
		if (n > in->cap && in_grow(in, n) < 0)
			return -1;
		r = in_more(in);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
	}
	return (long)(in->len - in->pos);
}

long
tp_in_read(struct tp_in *in, void *dst, size_t n)
{
	unsigned char *d = dst;
	size_t got = 0;

	while (got < n) {
		size_t avail = in->len - in->pos, k;
		if (avail == 0) {
			long r = tp_in_fill(in, 1);
			if (r < 0)
				return -1;
			if (r == 0)
				break;
			avail = (size_t)r;
		}
		k = n - got < avail ? n - got : avail;
		memcpy(d + got, in->buf + in->pos, k);
		in->pos += k;
		got += k;
	}
	return (long)got;
}

int
tp_in_exact(struct tp_in *in, void *dst, size_t n, const char *what)
{
	uint64_t start = tp_in_offset(in);
	long got;

	if (in->len - in->pos >= n) {
		memcpy(dst, in->buf + in->pos, n);
		in->pos += n;
		return 1;
	}
	got = tp_in_read(in, dst, n);
	if (got < 0)
		return -1;
	if ((size_t)got == n)
		return 1;
	if (got == 0)
		return 0;
	in->err->offset = start;
	return tp_fail(in->err, TP_EXIT_DATA,
	    "truncated %s: needed %zu bytes, only %ld left", what ? what : "data",
	    n, got);
}

/* The line buffer's most: the longest line and one block more. */
#define LINE_CAP ((size_t)TP_LINE_MAX + TP_IN_BLOCK)

static int
line_too_long(struct tp_in *in)
{
	/* No offset: the text reader names the line. */
	in->err->offset = TP_NONE;
	in->failed = 1;
	return tp_fail(in->err, TP_EXIT_DATA, "line longer than %d MiB "
	    "(%d bytes), the longest line tracepipe reads",
	    TP_LINE_MAX >> 20, TP_LINE_MAX);
}

/*
 * At the end of the input, a buffer grown for a long line goes back to
 * its first size: a program that goes on after reading it (txt2wtf
 * reads its spool of the input again) does not keep it.
 */
static void
in_shrink(struct tp_in *in)
{
	unsigned char *nb;

	if (in->cap <= TP_IN_BUF || in->pos != in->len)
		return;
	in->base += in->pos;
	in->pos = in->len = 0;
	if ((nb = realloc(in->buf, TP_IN_BUF)) != NULL) {
		in->buf = nb;
		in->cap = TP_IN_BUF;
	}
}

int
tp_in_line(struct tp_in *in, char **line, size_t *len)
{
	size_t scanned = 0;

	for (;;) {
		unsigned char *start = in->buf + in->pos;
		size_t avail = in->len - in->pos;
		unsigned char *nl = memchr(start + scanned, '\n', avail - scanned);
		long r;

		if (nl != NULL) {
			size_t n = (size_t)(nl - start);
			in->pos += n + 1;
			if (n > 0 && start[n - 1] == '\r')
				n--;
			if (n > TP_LINE_MAX)
				return line_too_long(in);
			*line = (char *)start;
			*len = n;
			return 1;
		}
		scanned = avail;
		/* One byte more may be the '\r' of a "\r\n". */
		if (avail > (size_t)TP_LINE_MAX + 1)
			return line_too_long(in);
		if (in->len == in->cap && in->pos == 0) {
			size_t ncap = in->cap * 2 < LINE_CAP ? in->cap * 2 :
			    LINE_CAP;
			unsigned char *nb = realloc(in->buf, ncap);
			if (nb == NULL) {
				errno = ENOMEM;
				return in_syserr(in, "cannot grow line buffer");
			}
			in->buf = nb;
			in->cap = ncap;
		} else if (in->cap - in->len < IN_LOW) {
			in_compact(in);
		}
		r = in_more(in);
		if (r < 0)
			return -1;
		if (r == 0) {
			start = in->buf + in->pos;
			avail = in->len - in->pos;
			if (avail == 0) {
				in_shrink(in);
				return 0;
			}
			in->pos += avail;
			if (start[avail - 1] == '\r')
				avail--;
			if (avail > TP_LINE_MAX)
				return line_too_long(in);
			*line = (char *)start;
			*len = avail;
			return 1;
		}
	}
}

int
tp_in_close(struct tp_in *in)
{
	int rc = in->failed ? -1 : 0;

	/* Safe to call twice: everything released is marked so. */
#ifdef TP_GZ_THREAD
	gz_thread_stop(in);
#endif
	if (in->gz)
		inflateEnd(&in->zs);
	if (in->fd > 0)
		close(in->fd);
	free(in->raw);
	free(in->buf);
	in->gz = 0;
	in->fd = -1;
	in->raw = NULL;
	in->buf = NULL;
	return rc;
}
