/*
 * Sets of numbers as options and expressions give them: a list of N, A-B,
 * A-, -B and A+N, kept sorted and merged so that lookup is a bisection.
 */
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "tools/ranges.h"

static int
range_cmp(const void *a, const void *b)
{
	const struct tf_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Append a range; the set is put in order by set_normalize(). */
static int
set_add(struct tf_set *s, uint64_t lo, uint64_t hi, struct tp_err *err)
{
	if (tp_grow(&s->r, &s->cap, s->n + 1, sizeof *s->r) < 0)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	s->r[s->n].lo = lo;
	s->r[s->n].hi = hi;
	s->n++;
	return 0;
}

/* Sort and merge once per list, so that lookup is a bisection. */
static void
set_normalize(struct tf_set *s)
{
	struct tf_range *r = s->r;
	size_t i, m;

	if (s->n < 2)
		return;
	qsort(r, s->n, sizeof *r, range_cmp);
	for (i = 1, m = 0; i < s->n; i++) {
		if (r[m].hi == UINT64_MAX || r[i].lo <= r[m].hi + 1) {
			if (r[i].hi > r[m].hi)
				r[m].hi = r[i].hi;
		} else {
			r[++m] = r[i];
		}
	}
	s->n = m + 1;
}

static int
num(const char *opt, const char *s, size_t n, uint64_t *v, struct tp_err *err)
{
	char shown[TP_SHOW_MAX];

	if (tp_parse_u64(s, n, v) != 0)
		return tp_fail(err, TP_EXIT_FAIL, "%s: \"%s\" is not a number",
		    opt, tp_show(shown, s, n));
	return 0;
}

/*
 * A comma-separated list of N, A-B, A-, -B and A+N (ranges inclusive,
 * A+N holds N values).  Numbers are decimal or 0x hex.
 */
int
tf_set_parse(struct tf_set *s, const char *opt, const char *arg,
    struct tp_err *err)
{
	const char *p = arg;

	if (*arg == '\0')
		return tp_fail(err, TP_EXIT_FAIL, "%s: empty list", opt);
	for (;;) {
		const char *e = strchr(p, ','), *sep;
		size_t n;
		uint64_t lo = 0, hi = UINT64_MAX, cnt;

		if (e == NULL)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if (n == 0)
			return tp_fail(err, TP_EXIT_FAIL,
			    "%s: empty element in \"%s\"", opt, arg);
		if ((sep = memchr(p, '+', n)) != NULL) {
			if (sep == p)
				return tp_fail(err, TP_EXIT_FAIL, "%s: \"%.*s\": "
				    "a range A+N needs its start A (write "
				    "%.*s- for %.*s and after)", opt, (int)n, p,
				    (int)n - 1, p + 1, (int)n - 1, p + 1);
			if (num(opt, p, (size_t)(sep - p), &lo, err) < 0 ||
			    num(opt, sep + 1, (size_t)(e - sep - 1), &cnt, err) < 0)
				return -1;
			if (cnt == 0)
				return tp_fail(err, TP_EXIT_FAIL,
				    "%s: empty range \"%.*s\"", opt, (int)n, p);
			hi = cnt - 1 > UINT64_MAX - lo ? UINT64_MAX : lo + (cnt - 1);
		} else if ((sep = memchr(p, '-', n)) != NULL) {
			if (sep == p && n == 1)
				return tp_fail(err, TP_EXIT_FAIL,
				    "%s: \"-\" is not a range", opt);
			if (sep > p && num(opt, p, (size_t)(sep - p), &lo, err) < 0)
				return -1;
			if (sep + 1 < e &&
			    num(opt, sep + 1, (size_t)(e - sep - 1), &hi, err) < 0)
				return -1;
			if (lo > hi)
				return tp_fail(err, TP_EXIT_FAIL,
				    "%s: empty range \"%.*s\" (start after end)",
				    opt, (int)n, p);
		} else {
			if (num(opt, p, n, &lo, err) < 0)
				return -1;
			hi = lo;
		}
		if (set_add(s, lo, hi, err) < 0)
			return -1;
		if (*e == '\0') {
			set_normalize(s);
			return 0;
		}
		p = e + 1;
	}
}
