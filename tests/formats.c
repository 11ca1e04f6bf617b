/*
 * formats: the registry, one format a line, for the scripts that need
 * the list of programs (tests/cli.sh, tests/format-probe.sh,
 * scripts/bench):
 *
 *   NAME DECODER ENCODER binary|text DESCRIPTION
 */
#include <stdio.h>

#include "formats/registry.h"

int
main(void)
{
	const struct tp_format *const *f;

	for (f = tp_formats; *f != NULL; f++)
		printf("%s %s %s %s %s\n", (*f)->name, (*f)->dec.program,
		    (*f)->enc.program, (*f)->flags & TP_FMT_TEXT ? "text" :
		    "binary", (*f)->desc);
	return fflush(stdout) != 0 || ferror(stdout);
}
