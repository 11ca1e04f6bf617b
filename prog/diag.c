/*
 * Diagnostics: one line each, "prog: name: where: what".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/utf8.h"
#include "io/output.h"
#include "diag.h"

const char *tp_progname = "tracepipe";
int tp_verbosity = 1;

void
tp_die_by_signal(int sig)
{
	sigset_t set;

	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

/* Remove the temporary outputs, then die by the same signal. */
static void
on_signal(int sig)
{
	tp_out_unlink_temps();
	tp_die_by_signal(sig);
}

/*
 * A signal ignored when the program started (nohup, a background job)
 * stays ignored, except SIGPIPE: a reader that went away ends the program
 * quietly whatever the parent left behind.
 */
static void
catch_signals(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);
	for (const int *s = tp_out_fatal_signals; *s != 0; s++) {
		if (*s != SIGPIPE && sigaction(*s, NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(*s, &sa, NULL);
	}
}

/*
 * Descriptors 0, 1 and 2 open before the program opens anything, so that
 * no file it opens (a temporary output) becomes standard error and gets
 * its warnings.  One that was closed becomes /dev/null, read only:
 * reading it is the end of input, and writing to it fails as writing to
 * a closed descriptor does (EBADF), so nothing is lost unsaid.
 */
static void
reserve_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* The lowest free descriptor: fd itself. */
		if ((n = open("/dev/null", O_RDONLY)) >= 0 && n != fd)
			close(n);
	}
}

void
tp_setprog(char *argv0)
{
	char *name;

	reserve_std_fds();
	catch_signals();
	if (argv0 == NULL || *argv0 == '\0')
		return;
	name = strrchr(argv0, '/');
	name = name ? name + 1 : argv0;
	/* libtool-style wrappers prefix "lt-"; keep the real name. */
	if (strncmp(name, "lt-", 3) == 0)
		name += 3;
	/*
	 * argv[0] itself becomes the bare name, so that getopt's own messages
	 * ("unrecognized option") name the program as ours do.
	 */
	memmove(argv0, name, strlen(name) + 1);
	tp_progname = argv0;
}

/*
 * s on stderr, what could act on a terminal escaped as the text writer
 * escapes a string (newline \n, tab \t, CR \r, other control bytes and
 * bytes that are not UTF-8 \xHH), and C1 controls (U+0080-U+009F, which
 * some terminals take as CSI and the like) by their bytes: names and
 * values from the input (a schema's name, a file name) reach a
 * diagnostic raw, and one line each is the rule.
 */
static void
put_safe(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0, k;

	while (i < n) {
		unsigned c = p[i];
		if (c >= 0x20 && c < 0x7f) {
			for (k = i; k < n && p[k] >= 0x20 && p[k] < 0x7f; k++)
				;
			fwrite(p + i, 1, k - i, stderr);
			i = k;
		} else if (c >= 0x80 && (k = tp_utf8_seq(p + i, n - i)) != 0) {
			if (c == 0xc2 && p[i + 1] < 0xa0)	/* C1 control */
				fprintf(stderr, "\\xc2\\x%02x", p[i + 1]);
			else
				fwrite(p + i, 1, k, stderr);
			i += k;
		} else if (c == '\n' || c == '\r' || c == '\t') {
			fputc('\\', stderr);
			fputc(c == '\n' ? 'n' : c == '\r' ? 'r' : 't', stderr);
			i++;
		} else {
			fprintf(stderr, "\\x%02x", c);
			i++;
		}
	}
}

/* "prog: " and the formatted text, put_safe, and a newline. */
static void
vline(const char *fmt, va_list ap, const char *tail)
{
	char buf[8192];

	vsnprintf(buf, sizeof buf, fmt, ap);
	fprintf(stderr, "%s: ", tp_progname);
	put_safe(buf);
	if (tail != NULL)
		fputs(tail, stderr);
	fputc('\n', stderr);
}

static void
line(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(fmt, ap, NULL);
	va_end(ap);
}

void
tp_err_print(const struct tp_err *e, const char *name)
{
	char where[128] = "";
	size_t n = 0;

	if (e->name != NULL)
		name = e->name;
	if (name == NULL)
		name = "<stdin>";
	if (*name == '\0') {
		line("%s", e->msg);
		return;
	}

	if (e->line != 0) {
		if (e->col != 0)
			snprintf(where, sizeof where, ":%llu:%llu",
			    (unsigned long long)e->line,
			    (unsigned long long)e->col);
		else
			snprintf(where, sizeof where, ":%llu",
			    (unsigned long long)e->line);
		line("%s%s: %s", name, where, e->msg);
		return;
	}
	if (e->offset != TP_NONE)
		n += snprintf(where + n, sizeof where - n, ": offset 0x%llx",
		    (unsigned long long)e->offset);
	if (e->index != TP_NONE && n < sizeof where)
		snprintf(where + n, sizeof where - n, "%s %s %llu",
		    n ? "," : ":", e->unit ? e->unit : "record",
		    (unsigned long long)e->index);
	line("%s%s: %s", name, where, e->msg);
}

static void
vwarn_(const char *fmt, va_list ap, int err)
{
	size_t len = strlen(fmt);
	char tail[256] = "";

	if (len > 0 && fmt[len - 1] == ':')
		snprintf(tail, sizeof tail, " %s", strerror(err));
	vline(fmt, ap, tail);
}

void
tp_warn(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	if (tp_verbosity < 1)
		return;
	va_start(ap, fmt);
	vwarn_(fmt, ap, err);
	va_end(ap);
}

void
tp_error(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vwarn_(fmt, ap, err);
	va_end(ap);
}

void
tp_note(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	if (tp_verbosity < 2)
		return;
	va_start(ap, fmt);
	vwarn_(fmt, ap, err);
	va_end(ap);
}
