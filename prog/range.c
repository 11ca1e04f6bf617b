/*
 * A decoder's --range (range.h).
 *
 * The piece is made by the format's splitter, as tracesplit --piece
 * makes it, in a forked child that writes it into a pipe the decoder
 * reads: the two run side by side, nothing of the piece is kept, and
 * the child has its own copy of the input's state, so neither the
 * splitter nor the decoder needs to be safe to run beside the other (a
 * thread would share the input's buffers and the allocator's state with
 * the decoder for no gain).  A module that patches its pieces' headers
 * when they end (RapidBin's event count, formats/split.h) cannot write
 * into a pipe: its piece goes through an unlinked temporary file, copied
 * into the pipe once whole.  The child's fault comes back through a
 * second pipe as a struct tp_err, said once by the program.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/cutter.h"
#include "range.h"
#include "split.h"

static int
set_range(void *target, const char *arg, struct tp_err *err)
{
	struct tp_range *r = target;
	const char *p;

	memset(r, 0, sizeof *r);
	r->spec = arg;
	if ((p = tp_size_parse(arg, &r->k)) != NULL && *p == '/' && p > arg &&
	    (p = tp_size_parse(p + 1, &r->n)) != NULL && *p == '\0' &&
	    strchr(arg, 'K') == NULL && strchr(arg, 'M') == NULL &&
	    strchr(arg, 'G') == NULL && strchr(arg, 'T') == NULL) {
		if (r->n == 0 || r->k >= r->n)
			return tp_fail(err, TP_EXIT_FAIL, "--range: '%s': piece "
			    "K of N must have 0 <= K < N", arg);
		r->chunks = 1;
		return 0;
	}
	r->hi = UINT64_MAX;
	if ((p = tp_size_parse(arg, &r->lo)) != NULL && *p == '-' &&
	    (p[1] == '\0' || ((p = tp_size_parse(p + 1, &r->hi)) != NULL &&
	    *p == '\0'))) {
		if (r->lo >= r->hi)
			return tp_fail(err, TP_EXIT_FAIL, "--range: '%s': an "
			    "empty byte range", arg);
		return 0;
	}
	return tp_fail(err, TP_EXIT_FAIL, "--range: '%s' is neither K/N nor "
	    "A-B (byte offsets, K, M, G: powers of 1024)", arg);
}

const struct tp_option tp_range_options[] = {
	TP_OPTION_SET("range", 0, "K/N|A-B", set_range, "decode only piece K "
	    "(from 0) of N as tracesplit -n N --piece K cuts FILE, or the "
	    "records that start in bytes [A, B) of it (A-: to the end); "
	    "FILE is read from its start to the range's end"),
	{ NULL }
};

/* The child: cut the wanted piece into fd; its fault into efd. */
static _Noreturn void
produce(const struct tp_range *r, uint64_t total, const struct tp_format *f,
    struct tp_in *in, int fd, int efd)
{
	struct tp_in own;
	struct tc_opts o = { .rule = TC_RANGE, .size = 1, .lo = r->lo,
	    .hi = r->hi, .only = 1 };
	struct tp_out pipe_out, seek_out;
	struct tc_cutter t;
	struct tp_err err;
	int r1, seekable;

	signal(SIGPIPE, SIG_DFL);	/* the decoder stopped: so do we */
	tp_err_clear(&err);
	/*
	 * A file is read afresh from its start: the parent's input has
	 * read ahead (the probe), and a gzip reader thread of its is not
	 * in this process.  Standard input (never gzip here) goes on from
	 * the parent's buffer.
	 */
	if (in->fd != 0) {
		if (tp_in_open(&own, in->name, &err) < 0)
			goto fail;
		own.gz_fallback = 1;
		in = &own;
	}
	if (r->chunks) {
		o.rule = TC_CHUNKS;
		o.size = r->n;
		o.only = (int64_t)r->k;
		o.total = total;
	}
	if (tp_out_open_fd(&pipe_out, fd, "<pipe>") < 0) {
		tp_fail(&err, TP_EXIT_FAIL, "out of memory");
		goto fail;
	}
	o.out_only = &pipe_out;
	/*
	 * Made before the module says whether it patches; without TMPDIR
	 * a patching module fails at its header (it cannot seek the pipe),
	 * the others never needed it.
	 */
	if (tp_split_scratch(&seek_out, &err) == 0)
		o.out_seek = &seek_out;
	tp_err_clear(&err);
	if (tc_cutter_init(&t, &o, &err) < 0)
		goto fail;
	tp_err_clear(&err);
	r1 = f->split(in, &t.c, &err);
	seekable = o.out_seek != NULL && t.c.out == &seek_out;
	if (r1 < 0 && !t.done) {
		struct tp_err e2;
		tc_finish(&t, 0, &e2);
		goto fail;
	}
	tp_err_clear(&err);
	if (tc_finish(&t, 1, &err) < 0)
		goto fail;
	if (seekable) {
		/* The patched piece, whole: into the pipe. */
		char buf[65536];
		ssize_t n;
		int sfd = seek_out.fd;

		tp_out_flush(&seek_out);
		if (lseek(sfd, 0, SEEK_SET) < 0)
			n = -1;
		else
			while ((n = read(sfd, buf, sizeof buf)) > 0)
				tp_out_write(&pipe_out, buf, (size_t)n);
		if (n < 0) {
			tp_fail(&err, TP_EXIT_FAIL, "temporary file: %s",
			    strerror(errno));
			goto fail;
		}
	}
	tp_out_flush(&pipe_out);
	if (tp_out_failed(&pipe_out)) {
		tp_fail(&err, TP_EXIT_FAIL, "<pipe>: %s",
		    strerror(pipe_out.error));
		goto fail;
	}
	_exit(0);
fail:
	/* Pointers into the child's heap mean nothing to the parent. */
	err.name = NULL;
	if (write(efd, &err, sizeof err) != (ssize_t)sizeof err)
		_exit(TP_EXIT_FAIL);
	_exit(err.status ? err.status : TP_EXIT_FAIL);
}

int
tp_range_decode(const struct tp_range *r, const struct tp_format *f,
    struct tp_in *in, struct tp_out *out, void *opts, void *stats,
    struct tp_err *err)
{
	struct tp_err cerr, derr;
	struct tp_in pin;
	int fds[2], efds[2], rc, wst;
	pid_t pid;
	ssize_t n;
	uint64_t total = 0;

	if (r->chunks && tp_split_input_bytes(in, in->name, &total,
	    "--range K/N needs the input's size, which a pipe does not "
	    "tell: use --range A-B, or give a file", err) < 0)
		return -1;
	if (in->fd == 0 && in->gz)
		return tp_fail(err, TP_EXIT_FAIL, "--range on gzip-compressed "
		    "standard input: give a file");
	if (pipe(fds) < 0)
		return tp_fail(err, TP_EXIT_FAIL, "pipe: %s", strerror(errno));
	if (pipe(efds) < 0) {
		close(fds[0]);
		close(fds[1]);
		return tp_fail(err, TP_EXIT_FAIL, "pipe: %s", strerror(errno));
	}
	tp_pipe_grow(fds[1]);
	tp_out_flush(out);	/* no buffered records written twice */
	if ((pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
		close(efds[0]);
		close(efds[1]);
		return tp_fail(err, TP_EXIT_FAIL, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		close(efds[0]);
		produce(r, total, f, in, fds[1], efds[1]);
	}
	close(fds[1]);
	close(efds[1]);
	tp_err_clear(&derr);
	if (tp_in_open_fd(&pin, fds[0], in->name, &derr) < 0) {
		close(fds[0]);
		rc = -1;
	} else {
		if (tp_in_fill(&pin, 1) == 0 && pin.eof)
			rc = 0;	/* an empty range: no record, no header */
		else
			rc = f->decode(&pin, out, opts, stats, &derr);
		if (tp_in_close(&pin) < 0)
			rc = -1;	/* derr filled by the input */
	}
	/* The decoder may stop first: the child then dies by SIGPIPE. */
	tp_err_clear(&cerr);
	n = read(efds[0], &cerr, sizeof cerr);
	close(efds[0]);
	while (waitpid(pid, &wst, 0) < 0 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof cerr && cerr.status != 0) {
		*err = cerr;	/* the splitter's fault explains the decoder's */
		return -1;
	}
	if (rc < 0) {
		*err = derr;
		return -1;
	}
	if (!WIFEXITED(wst) || WEXITSTATUS(wst) != 0)
		return tp_fail(err, TP_EXIT_FAIL, "the range's reader failed");
	return 0;
}
