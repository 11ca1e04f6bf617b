/*
 * tracesplit: cut a trace where its format restarts into pieces that are
 * each a trace of the same format.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "split.h"

static const char about[] =
"Cut FILE (a trace of any format tracesplit knows, recognised by its\n"
"content; gzip-compressed or not) into pieces PREFIX-0000.EXT,\n"
"PREFIX-0001.EXT ... (names that sort in order), each a trace of the same\n"
"format that decodes alone, cut only where the format restarts. Without\n"
"PREFIX, FILE's name without its extension (x for standard input).\n"
"With --piece K, only piece K is written, to standard output (or -o FILE).\n";

struct cmdline {
	struct tp_split_args a;
	int rules;
};

/* A count, or for -b a size (K, M, G, T: powers of 1024). */
static int
number(struct cmdline *cl, enum tc_rule rule, const char *opt,
    const char *s, struct tp_err *err)
{
	const char *end = tp_size_parse(s, &cl->a.size);

	if (end == NULL || *end != '\0' || cl->a.size == 0 ||
	    (rule != TC_BYTES && strpbrk(s, "KMGT") != NULL))
		return tp_fail(err, TP_EXIT_FAIL, "%s: '%s' is not a positive "
		    "%s", opt, s, rule == TC_BYTES ? "size" : "number");
	cl->a.rule = rule;
	cl->rules++;
	return 0;
}

static int
set_chunks(void *target, const char *arg, struct tp_err *err)
{
	return number(target, TC_CHUNKS, "-n", arg, err);
}

static int
set_lines(void *target, const char *arg, struct tp_err *err)
{
	return number(target, TC_RECORDS, "-l", arg, err);
}

static int
set_bytes(void *target, const char *arg, struct tp_err *err)
{
	return number(target, TC_BYTES, "-b", arg, err);
}

static int
set_piece(void *target, const char *arg, struct tp_err *err)
{
	struct cmdline *cl = target;
	unsigned long long v;
	char *end;

	v = strtoull(arg, &end, 10);
	if (end == arg || *end != '\0' || *arg == '-' || v > INT64_MAX)
		return tp_fail(err, TP_EXIT_FAIL, "--piece: '%s' is not a "
		    "piece number (0, 1, ...)", arg);
	cl->a.piece = (int64_t)v;
	return 0;
}

static const struct tp_option options[] = {
	TP_OPTION_SET("number", 'n', "CHUNKS", set_chunks, "CHUNKS pieces of "
	    "about equal size (fewer where the format restarts less often); "
	    "FILE must be a file"),
	TP_OPTION_SET("lines", 'l', "RECORDS", set_lines, "pieces of at least "
	    "RECORDS records each (the records its decoder writes, structure "
	    "aside)"),
	TP_OPTION_SET("bytes", 'b', "SIZE", set_bytes, "pieces of at least "
	    "SIZE bytes of the input each (K, M, G: powers of 1024)"),
	TP_OPTION_SET("piece", 'k', "K", set_piece, "write only piece K "
	    "(from 0) to standard output or -o FILE"),
	{ NULL }
};

int
main(int argc, char **argv)
{
	struct cmdline cl = { .a = { .rule = TC_CHUNKS, .piece = -1 } };
	const struct tp_optset sets[] = { { options, &cl, NULL } };
	struct tp_program p = { .usage = "(-n CHUNKS | -l RECORDS | -b SIZE) "
	    "[--piece K [-o FILE]] FILE [PREFIX]", .about = about,
	    .exit1 = "malformed, truncated or unknown input (the pieces "
	    "before the fault are kept)", .sets = sets, .nsets = 1 };
	int first = tp_parse(&p, argc, argv);

	if (cl.rules != 1)
		tp_usage_error(&p, "%s", cl.rules ? "give one of -n, -l and -b" :
		    "give -n CHUNKS, -l RECORDS or -b SIZE");
	if (argc - first < 1)
		tp_usage_error(&p, "no FILE");
	if (argc - first > 2)
		tp_usage_error(&p, "too many operands: '%s'", argv[first + 2]);
	if (cl.a.piece >= 0 && argc - first > 1)
		tp_usage_error(&p, "--piece writes to standard output (or -o "
		    "FILE), not to PREFIX");
	if (cl.a.piece < 0 && p.output != NULL)
		tp_usage_error(&p, "-o goes with --piece; the pieces are named "
		    "by PREFIX");
	cl.a.output = p.output;
	return tp_split(&cl.a, argv[first], argc - first > 1 ?
	    argv[first + 1] : NULL);
}
