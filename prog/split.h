/*
 * tracesplit's program side: the input opened and recognised by its
 * content (as any2txt does), the format's splitter (its registration's
 * split) run into the cutter (tools/cutter.h), diagnostics and the exit
 * status.
 */
#ifndef TP_SPLIT_PROG_H
#define TP_SPLIT_PROG_H

#include <stdint.h>

#include "tools/cutter.h"

struct tp_split_args {
	enum tc_rule rule;
	uint64_t size;		/* > 0 */
	int64_t piece;		/* --piece K, or -1 */
	const char *output;	/* -o FILE with --piece, or NULL */
};

/* Cut file (NULL or "-": stdin) into prefix (NULL: its name's). Exit status. */
int tp_split(const struct tp_split_args *a, const char *file,
    const char *prefix);

#endif
