/*
 * A decoder's --range: decode one piece of a file as tracesplit cuts it
 * (K/N), or the records whose restart point lies in a byte range (A-B),
 * through the format's splitter (its registration's split) and the
 * cutter (tools/cutter.h), so that several processes share one file
 * without pieces written first.
 */
#ifndef TP_RANGE_H
#define TP_RANGE_H

#include <stdint.h>

#include "base/err.h"
#include "formats/registry.h"
#include "io/input.h"
#include "io/output.h"

struct tp_range {
	const char *spec;	/* as given, or NULL: no --range */
	int chunks;		/* K/N, else A-B */
	uint64_t k, n;		/* K/N */
	uint64_t lo, hi;	/* A-B (hi UINT64_MAX: to the end) */
};

/* The --range option, setting a struct tp_range. */
extern const struct tp_option tp_range_options[];

/*
 * Decode r's part of in (open, the format's) with f's decoder into out:
 * what the decoder returns, with err filled at a fault (a split fault at
 * the file's byte offset).
 */
int tp_range_decode(const struct tp_range *r, const struct tp_format *f,
    struct tp_in *in, struct tp_out *out, void *opts, void *stats,
    struct tp_err *err);

#endif
