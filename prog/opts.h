/*
 * The command line of every program, in one style: a program is a
 * struct tp_program (what its --help says, its options in tables of
 * struct tp_option, formats/registry.h), and tp_parse() reads argv
 * against its options and the ones every program shares (-o, -q, -v,
 * -h, -V), whose help and the exit-status paragraph are written once,
 * here.
 *
 *	static const struct tp_option options[] = {
 *		TP_OPTION_FLAG("count", 'c', struct cmdline, count,
 *		    "print only the number of selected records"),
 *		{ NULL }
 *	};
 *	struct tp_optset sets[] = { { options, &cl, NULL } };
 *	struct tp_program p = { .about = ..., .exit1 = ..., .sets = sets,
 *	    .nsets = 1 };
 *	int first = tp_parse(&p, argc, argv);
 *
 * A program's own option may take a letter of the shared ones (txtfilter
 * -v, -h): the shared option then has its long name only.  An option
 * name in several sets (any2txt's decoder options) is one option that
 * sets every target that has it.
 */
#ifndef TP_OPTS_H
#define TP_OPTS_H

#include <stddef.h>

#include "formats/registry.h"

/* Options and what they set; a title heads them in --help, or NULL. */
struct tp_optset {
	const struct tp_option *options;	/* ends with a NULL name */
	void *target;
	const char *title;
};

struct tp_program {
	const char *usage;	/* after "Usage: PROG ", or NULL: "[OPTION]...
				   [FILE]..." ("[FILE]" when single) */
	const char *about;	/* the paragraph after it, lines ending \n */
	const char *exit0;	/* what exit status 0 means, NULL: success */
	const char *exit1;	/* what exit status 1 means */
	int single;		/* one FILE at most */
	const struct tp_optset *sets;
	size_t nsets;
	const char *output;	/* set by tp_parse: -o FILE, or NULL */
};

/*
 * Parse argv (the program name from argv[0] first, tp_setprog): the
 * shared options and the program's.  --help and --version print and
 * exit; a bad option or operand count is a usage error.  Returns the
 * index of the first operand.
 */
int tp_parse(struct tp_program *p, int argc, char **argv);

/* "prog: msg", then the usage line and where to find more; exit 2. */
_Noreturn void tp_usage_error(const struct tp_program *p, const char *fmt,
    ...) __attribute__((format(printf, 2, 3)));

#endif
