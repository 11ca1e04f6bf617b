/*
 * The command line of every program: its options and the shared ones,
 * parsed with getopt_long from tables, and the --help made from them.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "opts.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/* The options every program has, in the order --help lists them. */
enum { OPT_OUTPUT, OPT_QUIET, OPT_VERBOSE, OPT_HELP, OPT_VERSION };
static const struct tp_option common[] = {
	{ "output", 'o', "FILE", "write to FILE instead of standard output "
	    "(a file is created or replaced only on success)", 0, NULL },
	{ "quiet", 'q', NULL, "no warnings", 0, NULL },
	{ "verbose", 'v', NULL, "say what was done, on standard error", 0,
	    NULL },
	{ "help", 'h', NULL, "show this help and exit", 0, NULL },
	{ "version", 'V', NULL, "show the version and exit", 0, NULL },
	{ NULL, 0, NULL, NULL, 0, NULL }
};
enum { NCOMMON = sizeof common / sizeof common[0] - 1 };

/* Help lines wrap before this column; option texts start at most at 26. */
#define HELP_WIDTH 79
#define EXIT_WIDTH 72
#define FORM_MAX 22

/*
 * The options of a command line, each name once: name k is getopt's
 * value 256 + k, and letter[c] is k + 1 for the name that has -c.
 */
struct cmdline {
	const struct tp_program *p;
	const struct tp_option **names;	/* the first option of each name */
	int common_base;		/* names from here on are common[] */
	int n;
	int letter[256];
};

/* What follows the program's name on its usage line. */
static const char *
usage_of(const struct tp_program *p)
{
	return p->usage != NULL ? p->usage : p->single ?
	    "[OPTION]... [FILE]" : "[OPTION]... [FILE]...";
}

static void
print_usage_line(const struct tp_program *p)
{
	fprintf(stderr, "Usage: %s %s\nTry '%s --help' for more "
	    "information.\n", tp_progname, usage_of(p), tp_progname);
}

_Noreturn void
tp_usage_error(const struct tp_program *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tp_progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	print_usage_line(p);
	exit(TP_EXIT_FAIL);
}

/* Name k of an option, added when new; its letter when still free. */
static void
add_name(struct cmdline *cl, const struct tp_option *o)
{
	int k;

	for (k = 0; k < cl->n; k++)
		if (strcmp(cl->names[k]->name, o->name) == 0)
			break;
	if (k == cl->n)
		cl->names[cl->n++] = o;
	else if ((cl->names[k]->arg == NULL) != (o->arg == NULL))
		abort();	/* one name, two meanings */
	if (o->ch > 0 && o->ch < 256 && cl->letter[o->ch] == 0)
		cl->letter[o->ch] = k + 1;
}

/* The letter an option has on this command line, or 0. */
static int
letter_of(const struct cmdline *cl, const struct tp_option *o)
{
	return o->ch > 0 && o->ch < 256 && cl->letter[o->ch] > 0 &&
	    strcmp(cl->names[cl->letter[o->ch] - 1]->name, o->name) == 0 ?
	    o->ch : 0;
}

/* "-c, --name=ARG" or "    --name", and its length. */
static int
form(const struct cmdline *cl, const struct tp_option *o, char *buf,
    size_t n)
{
	int c = letter_of(cl, o);

	return snprintf(buf, n, "%c%c%c --%s%s%s", c ? '-' : ' ', c ? c : ' ',
	    c ? ',' : ' ', o->name, o->arg ? "=" : "", o->arg ? o->arg : "");
}

/*
 * text from column *pos (the line so far is written), lines wrapped
 * before width and continued at column indent.  A line of text that
 * starts with a blank is written as it is (an example).
 */
static void
put_wrapped(const char *text, int *pos, int indent, int width)
{
	int start = *pos;	/* nothing written on the line after it */

	while (*text != '\0') {
		size_t len;

		if (*text == '\n') {
			printf("\n%*s", indent, "");
			start = *pos = indent;
			text++;
			continue;
		}
		if (*text == ' ' && *pos == start) {
			len = strcspn(text, "\n");
			*pos += printf("%.*s", (int)len, text);
			text += len;
			continue;
		}
		text += strspn(text, " ");
		if ((len = strcspn(text, " \n")) == 0)
			continue;
		if (*pos > start && *pos + 1 + (int)len > width) {
			printf("\n%*s", indent, "");
			start = *pos = indent;
		} else if (*pos > start) {
			*pos += printf(" ");
		}
		*pos += printf("%.*s", (int)len, text);
		text += len;
	}
}

static void
put_option(const struct cmdline *cl, const struct tp_option *o, int col)
{
	char buf[128];
	int pos;

	if (o->help == NULL)
		return;
	form(cl, o, buf, sizeof buf);
	pos = printf("  %s", buf);
	pos += printf("%*s", pos + 2 <= col ? col - pos : 2, "");
	put_wrapped(o->help, &pos, col, HELP_WIDTH);
	putchar('\n');
}

/* Is a shared option's name a program option's (txtfilter's --quiet)? */
static int
shadowed(const struct cmdline *cl, const struct tp_option *o)
{
	int k;

	for (k = 0; k < cl->common_base; k++)
		if (strcmp(cl->names[k]->name, o->name) == 0)
			return 1;
	return 0;
}

/*
 * The usage line, the program's paragraph, its options with the shared
 * ones after those of no title, the exit statuses.
 */
static void
print_help(const struct cmdline *cl)
{
	const struct tp_program *p = cl->p;
	const struct tp_option *o;
	char buf[128], status[512];
	int col = 0, pos;
	size_t i;

	for (i = 0; i <= p->nsets; i++)
		for (o = i < p->nsets ? p->sets[i].options : common;
		    o != NULL && o->name != NULL; o++) {
			int w = form(cl, o, buf, sizeof buf);
			if (o->help != NULL && w <= FORM_MAX && w + 4 > col)
				col = w + 4;
		}
	printf("Usage: %s %s\n%s\n", tp_progname, usage_of(p), p->about);
	for (i = 0; i < p->nsets; i++)
		if (p->sets[i].title == NULL)
			for (o = p->sets[i].options; o && o->name; o++)
				put_option(cl, o, col);
	for (o = common; o->name != NULL; o++)
		if (!shadowed(cl, o))
			put_option(cl, o, col);
	for (i = 0; i < p->nsets; i++)
		if (p->sets[i].title != NULL) {
			printf("\n%s\n", p->sets[i].title);
			for (o = p->sets[i].options; o && o->name; o++)
				put_option(cl, o, col);
		}
	snprintf(status, sizeof status, "Exit status: 0 %s, 1 %s, 2 usage or "
	    "system error.", p->exit0 != NULL ? p->exit0 : "success",
	    p->exit1);
	putchar('\n');
	pos = 0;
	put_wrapped(status, &pos, 0, EXIT_WIDTH);
	putchar('\n');
}

static _Noreturn void
print_and_exit(void)
{
	exit(fflush(stdout) != 0 || ferror(stdout) ? TP_EXIT_FAIL : TP_EXIT_OK);
}

static void
apply_common(const struct cmdline *cl, int k, struct tp_program *p)
{
	switch (k) {
	case OPT_OUTPUT:
		if (*optarg == '\0')
			tp_usage_error(p, "-o needs a file name (- for standard "
			    "output)");
		p->output = optarg;
		break;
	case OPT_QUIET:
		tp_verbosity = 0;
		break;
	case OPT_VERBOSE:
		tp_verbosity = 2;
		break;
	case OPT_HELP:
		print_help(cl);
		print_and_exit();
	case OPT_VERSION:
		printf("%s (tracepipe) %s\n", tp_progname, PACKAGE_VERSION);
		print_and_exit();
	}
}

/* Option name k given: every set's option of that name is set. */
static void
apply(const struct cmdline *cl, int k, struct tp_program *p)
{
	const char *name = cl->names[k]->name;
	const struct tp_option *o;
	struct tp_err err;
	size_t i;

	if (k >= cl->common_base) {
		/* By name: a program's option may have taken one (--quiet). */
		int c = 0;
		while (strcmp(common[c].name, name) != 0)
			c++;
		apply_common(cl, c, p);
		return;
	}
	tp_err_clear(&err);
	for (i = 0; i < p->nsets; i++)
		for (o = p->sets[i].options; o && o->name; o++)
			if (strcmp(o->name, name) == 0 &&
			    tp_option_set(o, p->sets[i].target, optarg, &err) < 0)
				tp_usage_error(p, "%s", err.msg);
}

static void *volatile parse_tables[3];

int
tp_parse(struct tp_program *p, int argc, char **argv)
{
	struct cmdline cl = { .p = p };
	const struct tp_option *o;
	struct option *lo;
	char *so;
	size_t i, max = NCOMMON, ns = 0;
	int c, k;

	tp_setprog(argv[0]);
	for (i = 0; i < p->nsets; i++)
		for (o = p->sets[i].options; o && o->name; o++)
			max++;
	cl.names = malloc(max * sizeof *cl.names);
	lo = calloc(max + 1, sizeof *lo);
	so = malloc(2 * max + 1);
	/*
	 * --help and --version exit from inside the loop: the tables stay
	 * reachable from here till then, not only from this frame (which
	 * the optimiser may have left by then: LeakSanitizer saw a leak).
	 */
	parse_tables[0] = cl.names, parse_tables[1] = lo, parse_tables[2] = so;
	if (cl.names == NULL || lo == NULL || so == NULL) {
		tp_error("out of memory");
		exit(TP_EXIT_FAIL);
	}
	for (i = 0; i < p->nsets; i++)
		for (o = p->sets[i].options; o && o->name; o++)
			add_name(&cl, o);
	/* The shared options come last: a program's own letter wins. */
	cl.common_base = cl.n;
	for (o = common; o->name != NULL; o++)
		add_name(&cl, o);
	for (k = 0; k < cl.n; k++) {
		lo[k].name = cl.names[k]->name;
		lo[k].has_arg = cl.names[k]->arg ? required_argument :
		    no_argument;
		lo[k].val = 256 + k;
	}
	for (c = 1; c < 256; c++)
		if (cl.letter[c] > 0) {
			so[ns++] = (char)c;
			if (cl.names[cl.letter[c] - 1]->arg != NULL)
				so[ns++] = ':';
		}
	so[ns] = '\0';
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		if (c >= 256)
			k = c - 256;
		else if (c > 0 && cl.letter[c] > 0)
			k = cl.letter[c] - 1;
		else {
			/* getopt has already said what was wrong. */
			print_usage_line(p);
			exit(TP_EXIT_FAIL);
		}
		apply(&cl, k, p);
	}
	free(cl.names);
	free(lo);
	free(so);
	parse_tables[0] = parse_tables[1] = parse_tables[2] = NULL;
	if (p->single && optind < argc - 1)
		tp_usage_error(p, "too many operands: '%s'", argv[optind + 1]);
	return optind;
}
