/*
 * tracesplit's program side: the input opened and recognised by its
 * content (as any2txt does), the format's splitter (its registration's
 * split) run into the cutter (tools/cutter.h), diagnostics and the exit
 * status.
 */
#ifndef TP_SPLIT_PROG_H
#define TP_SPLIT_PROG_H

#include <stdint.h>

#include "io/input.h"
#include "io/output.h"
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

/*
 * The input's bytes (decompressed; file names it again for gzip), or -1
 * with err filled: `what` when the input is no regular file.
 */
int tp_split_input_bytes(struct tp_in *in, const char *file, uint64_t *total,
    const char *what, struct tp_err *err);

/* An unlinked temporary file for a piece a module patches: 0, or -1. */
int tp_split_scratch(struct tp_out *o, struct tp_err *err);
/*
 * A size at s: decimal, with K, M, G or T (powers of 1024) after it;
 * where it ends, or NULL (no digit first, or over 64 bits).  For
 * tracesplit -b and a decoder's --range.
 */
const char *tp_size_parse(const char *s, uint64_t *v);

#endif
