/*
 * Diagnostics, on the program side: the library reports into a struct
 * tp_err (base/err.h); these print it, and the program's warnings, as
 * one line each on stderr:
 *
 *   prog: input: offset 0x1f3a, block 812: what was wrong
 *   prog: input:1234:7: what was wrong
 */
#ifndef TP_DIAG_H
#define TP_DIAG_H

#include "base/err.h"

extern const char *tp_progname;
extern int tp_verbosity;	/* 0 quiet, 1 normal, 2 verbose */

/* Set the program name from argv[0], which becomes its base name. */
void tp_setprog(char *argv0);

/*
 * Die by signal sig, as if it had been neither ignored, blocked nor
 * caught (a reader that went away ends the program quietly by SIGPIPE).
 */
void tp_die_by_signal(int sig);

/*
 * Print "prog: name: where: msg" on stderr, e->name standing for name
 * when set (an output's errors name the output), "prog: msg" when that
 * is "".
 */
void tp_err_print(const struct tp_err *e, const char *name);

/* "prog: msg" on stderr when not quiet; a trailing ':' appends strerror. */
void tp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: msg" on stderr, even under -q (an error the program ends on). */
void tp_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same as tp_warn but only at verbosity 2 (-v). */
void tp_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#endif
