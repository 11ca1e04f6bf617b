/*
 * Options shared by every program.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "opts.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static void
print_usage_line(const char *help)
{
	const char *nl = strchr(help, '\n');
	int n = nl ? (int)(nl - help) : (int)strlen(help);

	fprintf(stderr, "%.*s\nTry '%s --help' for more information.\n", n,
	    help, tp_progname);
}

_Noreturn void
tp_usage_error(const char *help, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tp_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	print_usage_line(help);
	exit(TP_EXIT_FAIL);
}

void
tp_opt_common(int c, struct tp_common *com, const char *help)
{
	switch (c) {
	case 'h':
		fputs(help, stdout);
		if (fflush(stdout) != 0 || ferror(stdout))
			exit(TP_EXIT_FAIL);
		exit(TP_EXIT_OK);
	case 'V':
		printf("%s (tracepipe) %s\n", tp_progname, PACKAGE_VERSION);
		if (fflush(stdout) != 0 || ferror(stdout))
			exit(TP_EXIT_FAIL);
		exit(TP_EXIT_OK);
	case 'o':
		if (*optarg == '\0')
			tp_usage_error(help, "-o needs a file name (- for "
			    "standard output)");
		com->output = optarg;
		break;
	case 'q':
		tp_verbosity = 0;
		break;
	case 'v':
		tp_verbosity = 2;
		break;
	default:
		/* getopt has already said what was wrong. */
		print_usage_line(help);
		exit(TP_EXIT_FAIL);
	}
}

const char *
tp_opt_input(int argc, char **argv, const char *help)
{
	if (optind < argc - 1)
		tp_usage_error(help, "too many operands: '%s'", argv[optind + 1]);
	return optind < argc ? argv[optind] : NULL;
}

unsigned long long
tp_opt_number(const char *help, const char *opt, const char *s,
    unsigned long long lo, unsigned long long hi)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || *end != '\0' || *s == '-' || errno != 0 || v < lo ||
	    v > hi)
		tp_usage_error(help, "%s: '%s' is not a number from %llu to %llu",
		    opt, s, lo, hi);
	return v;
}
