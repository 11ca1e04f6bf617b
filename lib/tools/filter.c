/*
 * Record selection for txtfilter.  The per-line path looks at the kind
 * and at the few fields the selectors need, straight in the raw line, and
 * copies a selected line to the output as it was read.
 */
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/digits.h"
#include "tools/expr.h"
#include "tools/filter.h"
#include "tools/ranges.h"
#include "tools/timefmt.h"

#define SHARED_KINDS "insn, read, write, acquire, release, request, fork, " \
	"join, begin, end, branch, event"

void
tf_init(struct tf_filter *f)
{
	memset(f, 0, sizeof *f);
	f->max = UINT64_MAX;
}

void
tf_free(struct tf_filter *f)
{
	free(f->tid.r);
	free(f->addr.r);
	free(f->ts.r);
	tx_free(f->expr);
	memset(f, 0, sizeof *f);
}

/* Bytes before the first blank at p; more than 7 means "not a shared kind". */
static inline size_t
kind_len(const char *p, const char *end)
{
	const char *q;

#ifdef __SSE2__
	if (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(
		    _mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
		    _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
		return m != 0 ? (size_t)__builtin_ctz(m) : 16;
	}
#endif
	for (q = p; q < end && *q != ' ' && *q != '\t'; q++)
		;
	return (size_t)(q - p);
}

int
tf_add_tid(struct tf_filter *f, const char *arg, struct tp_err *err)
{
	return tf_set_parse(&f->tid, "--tid", arg, err);
}

int
tf_add_addr(struct tf_filter *f, const char *arg, struct tp_err *err)
{
	return tf_set_parse(&f->addr, "--addr", arg, err);
}

/*
 * Each element in a spelling of timefmt.h (a date holds '-', so the
 * element is read there), added as the nanosecond range it spells.
 */
int
tf_add_ts(struct tf_filter *f, const char *arg, struct tp_err *err)
{
	const char *p = arg, *e;
	char buf[48], *q;
	uint64_t lo, hi;

	if (*arg == '\0')
		return tp_fail(err, TP_EXIT_FAIL, "--ts: empty list");
	for (;; p = e + 1) {
		if ((e = strchr(p, ',')) == NULL)
			e = p + strlen(p);
		if (tp_time_range("--ts", p, (size_t)(e - p), &lo, &hi,
		    err) < 0)
			return -1;
		q = tp_fmt_u64(buf, lo);
		*q++ = '-';
		*tp_fmt_u64(q, hi) = '\0';
		if (tf_set_parse(&f->ts, "--ts", buf, err) < 0)
			return -1;
		if (*e == '\0')
			return 0;
	}
}

int
tf_add_expr(struct tf_filter *f, const char *expr, struct tp_err *err)
{
	return tx_add(&f->expr, expr, err);
}

int
tf_add_type(struct tf_filter *f, const char *arg, struct tp_err *err)
{
	const char *p = arg;

	for (;;) {
		const char *e = strchr(p, ',');
		unsigned bit;

		if (e == NULL)
			e = p + strlen(p);
		bit = tf_kind_bit(p, (size_t)(e - p), (size_t)(e - p));
		if (bit == 0)
			return tp_fail(err, TP_EXIT_FAIL,
			    "--type: \"%.*s\" is not a shared kind (%s)",
			    (int)(e - p > 40 ? 40 : e - p), p, SHARED_KINDS);
		f->kinds |= bit;
		if (*e == '\0')
			return 0;
		p = e + 1;
	}
}

/* ----------------------------------------------------------- judging */

/*
 * Is the value (n bytes at val, or val NULL when the field is absent) in
 * the set?  1 yes, 0 no or absent (null counts as absent: dial9 and WTF
 * write it for a missing optional value), -1 when it is not a number.
 */
static int
value_in(const struct tf_set *s, const char *val, size_t n, const char *line,
    const char *key, uint64_t lineno, struct tp_err *err)
{
	char shown[TP_SHOW_MAX];
	uint64_t v;

	if (val == NULL)
		return 0;
	if (tp_parse_u64(val, n, &v) == 0)
		return tf_set_has(s, v);
	if (n == 4 && memcmp(val, "null", 4) == 0)
		return 0;
	err->line = lineno;
	err->col = (uint64_t)(val - line) + 1;
	return tp_fail(err, TP_EXIT_DATA, "field \"%s\": \"%s\" is not a number",
	    key, tp_show(shown, val, n));
}

/*
 * The fields a selector decides on are looked up to the end of the
 * line: a record that gives one twice is malformed (which value counts
 * would be a guess), as for every reader.
 */
static int
field_in(const struct tf_set *s, const char *line, size_t len,
    const char *key, size_t keylen, uint64_t lineno, struct tp_err *err)
{
	const char *val, *dup;
	size_t n;

	if (!tr_peek_once(line, len, key, keylen, &val, &n, &dup))
		val = NULL;
	if (dup != NULL)
		return tr_dup_fail(err, lineno, line, len, dup);
	return value_in(s, val, n, line, key, lineno, err);
}

/* pc or addr in the set: both looked up in one pass over the line. */
static int
code_or_data_in(const struct tf_set *s, const char *line, size_t len,
    uint64_t lineno, struct tp_err *err)
{
	static const char *const keys[2] = { "pc", "addr" };
	static const size_t lens[2] = { 2, 4 };
	const char *val[2], *dup;
	size_t n[2];
	unsigned found = tr_peekn_once(line, len, keys, lens, 2, val, n, &dup);
	int r;

	if (dup != NULL)
		return tr_dup_fail(err, lineno, line, len, dup);

	r = value_in(s, found & 1 ? val[0] : NULL, n[0], line, "pc", lineno, err);
	if (r != 0)
		return r;
	return value_in(s, found & 2 ? val[1] : NULL, n[1], line, "addr", lineno,
	    err);
}

/* Does a shared-kind record meet every selector?  1, 0 or -1. */
static int
meets(const struct tf_filter *f, unsigned bit, const char *line, size_t len,
    uint64_t lineno, struct tp_err *err)
{
	const char *dup;
	int r;

	if (f->kinds != 0 && (f->kinds & bit) == 0)
		return 0;
	if (f->tid.n != 0 &&
	    (r = field_in(&f->tid, line, len, "tid", 3, lineno, err)) <= 0)
		return r;
	if (f->ts.n != 0 &&
	    (r = field_in(&f->ts, line, len, "ts", 2, lineno, err)) <= 0)
		return r;
	if (f->addr.n != 0 &&
	    (r = code_or_data_in(&f->addr, line, len, lineno, err)) <= 0)
		return r;
	if (f->expr == NULL)
		return 1;
	if ((r = tx_eval(f->expr, bit, line, len, &dup)) == -2)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	if (r < 0)
		return tr_dup_fail(err, lineno, line, len, dup);
	return r;
}

int
tf_judge(const struct tf_filter *f, const char *line, size_t len,
    uint64_t lineno, struct tp_err *err)
{
	const char *p = line, *end = line + len;
	unsigned bit;
	int r;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p == '#')
		return TF_PASS;
	if ((bit = tf_kind_bit(p, kind_len(p, end), (size_t)(end - p))) == 0)
		return TF_PASS;
	if ((r = meets(f, bit, line, len, lineno, err)) < 0)
		return -1;
	return r != f->invert ? TF_SELECT : TF_REJECT;
}

/*
 * Copy the line as it was read, with its own line end: the reader left
 * in->pos just after the bytes of this line, terminator included.
 */
static void
emit(struct tp_out *o, const struct tp_in *in, const char *line)
{
	const char *end = (const char *)in->buf + in->pos;
	size_t n = (size_t)(end - line);
	int nl = n == 0 || end[-1] != '\n';

	if (n + 1 <= TP_OUT_SLACK) {
		char *p = tp_out_reserve(o, n + 1);
		memcpy(p, line, n);
		if (nl)
			p[n++] = '\n';
		tp_out_commit(o, p + n);
	} else {
		tp_out_write(o, line, n);
		if (nl)
			tp_out_putc(o, '\n');
	}
}

/* Is a one letter away from b (one changed, added or left out)? */
static int
one_edit(const char *a, size_t n, const char *b, size_t m)
{
	size_t i = 0, j;

	if (n + 1 < m || m + 1 < n || (n == m && memcmp(a, b, n) == 0))
		return 0;
	while (i < n && i < m && a[i] == b[i])
		i++;
	for (j = 0; i + j < n && i + j < m &&
	    a[n - 1 - j] == b[m - 1 - j]; j++)
		;
	return i + j + 1 >= (n > m ? n : m);
}

static int
line_fail(struct tp_err *err, uint64_t lineno, size_t col, const char *fmt,
    const char *what, size_t n)
{
	err->line = lineno;
	err->col = col;
	err->offset = TP_NONE;
	return tp_fail(err, TP_EXIT_FAIL, fmt, (int)(n > 40 ? 40 : n), what);
}

/*
 * The grammar txtfilter relies on, for a line it passes on unjudged (no
 * line may hold a NUL byte, see tf_run): a kind made of letters, digits,
 * '_', '.' and '-'.  A kind one letter from a shared kind ("acquir") is
 * counted: it passes, as structure records do, but is probably a typo.
 */
static int
check_kind(const char *line, size_t len, uint64_t lineno, struct tp_err *err,
    struct tf_stats *st)
{
	const char *p = line, *end = line + len, *k;
	int i;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p == '#' || *p == '\r')
		return 0;
	for (k = p; p < end && *p != ' ' && *p != '\t' && *p != '\r'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' ||
		    *p == '-'))
			return line_fail(err, lineno, (size_t)(p - line) + 1,
			    "\"%.*s\" is not a record kind (letters, digits, "
			    "'_', '.' and '-')", k, (size_t)(end - k));
	for (i = 0; i < 32; i++) {
		const struct tp_kind_name *t = &tp_kind_tab[i];
		if (t->len == 0 || !one_edit(k, (size_t)(p - k), t->name,
		    t->len))
			continue;
		if (st->near_kinds++ == 0) {
			size_t n = (size_t)(p - k);
			if (n >= sizeof st->first_near)
				n = sizeof st->first_near - 1;
			memcpy(st->first_near, k, n);
			st->first_near[n] = '\0';
			memcpy(st->first_near_shared, t->name, t->len);
			st->first_near_shared[t->len] = '\0';
			st->first_near_line = lineno;
		}
		break;
	}
	return 0;
}

int
tf_run(const struct tf_filter *f, struct tr_reader *r, struct tp_out *o,
    struct tf_stats *st)
{
	char *line;
	size_t len;
	int rc;

	memset(st, 0, sizeof *st);
	if (f->max == 0)
		return 0;
	while ((rc = tr_line(r, &line, &len)) == 1) {
		const char *nul = memchr(line, '\0', len);
		int v;

		if (nul != NULL)
			return line_fail(r->err, r->lineno,
			    (size_t)(nul - line) + 1, "a NUL byte: binary "
			    "data, not trace text%.*s", "", 0);
		v = tf_judge(f, line, len, r->lineno, r->err);
		if (v == TF_PASS && check_kind(line, len, r->lineno, r->err,
		    st) < 0)
			return -1;

		if (v == TF_REJECT) {
			st->rejected++;
			continue;
		}
		if (v < 0)
			return -1;
		if (v == TF_SELECT)
			st->selected++;
		else
			st->passed++;
		if (o != NULL) {
			if (f->label != NULL) {
				tp_out_puts(o, f->label);
				tp_out_putc(o, ':');
			}
			emit(o, r->in, line);
		}
		if (st->selected == f->max)
			return 0;
	}
	return rc;
}
