/*
 * Sets of numbers as txtfilter's options and expressions take them
 * ("42,43,1-9,100-", "0x1000+0x100"; every range inclusive, A+N the N
 * values from A on), and the shared kinds as bits: what the selection
 * (filter.h) and the expressions (expr.h) both use.
 */
#ifndef TP_RANGES_H
#define TP_RANGES_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "text/text.h"

/* The shared kinds (trace-text(5)), one bit each: 1 << enum tp_kind. */
enum {
	TF_INSN = 1u << TK_INSN,
	TF_READ = 1u << TK_READ,
	TF_WRITE = 1u << TK_WRITE,
	TF_ACQUIRE = 1u << TK_ACQUIRE,
	TF_RELEASE = 1u << TK_RELEASE,
	TF_REQUEST = 1u << TK_REQUEST,
	TF_FORK = 1u << TK_FORK,
	TF_JOIN = 1u << TK_JOIN,
	TF_BEGIN = 1u << TK_BEGIN,
	TF_END = 1u << TK_END,
	TF_BRANCH = 1u << TK_BRANCH,
	TF_EVENT = 1u << TK_EVENT
};

struct tf_range {
	uint64_t lo, hi;	/* inclusive */
};

/* Sorted, merged, non-overlapping ranges. */
struct tf_set {
	struct tf_range *r;
	size_t n, cap;
};

/*
 * The TF_* bit of a shared kind, or 0 for any other kind; avail (at least
 * n) as for tp_kind(): bytes that may be read at k.
 */
static inline unsigned
tf_kind_bit(const char *k, size_t n, size_t avail)
{
	int kind = tp_kind(k, n, avail);

	return kind == TK_OTHER ? 0 : 1u << kind;
}

/*
 * Add the elements of arg (a comma-separated list of N, A-B, A-, -B and
 * A+N, decimal or 0x hex) to s; what names the option in messages.  0, or
 * -1 with err filled.
 */
int tf_set_parse(struct tf_set *s, const char *what, const char *arg,
    struct tp_err *err);

/* Is v in s? */
static inline int
tf_set_has(const struct tf_set *s, uint64_t v)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v < s->r[mid].lo)
			hi = mid;
		else if (v > s->r[mid].hi)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

#endif
