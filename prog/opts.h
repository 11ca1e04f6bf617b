/*
 * Options every program shares: --help, --version, -o, -q, -v.
 *
 * A program lists its own options after TP_COMMON_LONGOPTS and lets
 * tp_opt_common() handle the shared ones:
 *
 *	static const struct option longopts[] = {
 *		TP_COMMON_LONGOPTS,
 *		{ "strict", no_argument, NULL, 's' },
 *		{ 0 }
 *	};
 *	while ((c = getopt_long(argc, argv, TP_COMMON_SHORTOPTS "s",
 *	    longopts, NULL)) != -1) {
 *		switch (c) {
 *		case 's': ...; break;
 *		default: tp_opt_common(c, &common, usage_text);
 *		}
 *	}
 */
#ifndef TP_OPTS_H
#define TP_OPTS_H

#include <getopt.h>

#define TP_COMMON_SHORTOPTS "ho:qvV"
#define TP_COMMON_LONGOPTS \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, 'V' }, \
	{ "output", required_argument, NULL, 'o' }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "verbose", no_argument, NULL, 'v' }

struct tp_common {
	const char *output;	/* -o FILE, NULL for stdout */
};

/*
 * Handle a shared option (or '?' / ':' from getopt).  help is the full
 * --help text, printed on --help (exit 0); its first line, the usage
 * line, is repeated on a usage error (exit 2).
 */
void tp_opt_common(int c, struct tp_common *com, const char *help);

/* "prog: msg" then the usage hint; exit 2. */
_Noreturn void tp_usage_error(const char *help, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * The single optional input operand: argv[optind] or NULL (stdin).  More
 * than one operand is a usage error.
 */
const char *tp_opt_input(int argc, char **argv, const char *help);

/*
 * The decimal number of option opt ("--level"), from lo to hi; anything
 * else is a usage error.
 */
unsigned long long tp_opt_number(const char *help, const char *opt,
    const char *s, unsigned long long lo, unsigned long long hi);

#endif
