/*
 * Fuzz harness for txtstat's summary (lib/tools/stat*.c): what
 * txtstat --merge promises (txtstat(1), tests/txtstat-merge.sh).  Byte 0
 * picks a cut at a line boundary (after line byte0 % (lines + 1)), byte
 * 1 the table bound (byte1 % 8 == 1: --max-keys 1 + byte1 / 8 % 8, else
 * the default: a full table's 4 KiB of registers, written as hex and
 * read back, costs a run under ASan more than the rest); the rest is
 * the text.
 *
 * - The whole fails (ts_add_input) exactly when a part does, at the same
 *   line (part 2's line numbers moved by part 1's lines).
 * - Otherwise the --json report of the whole is, byte for byte, the
 *   report of the summaries of the two parts merged (ts_merge), and of
 *   the summaries read back from the parts' --json reports and merged
 *   (ts_load_json, what --merge does) -- while no table passed its
 *   bound.  Past it, the reports still read back, and a part's estimate
 *   ("estimated":true) stays one in the merge, as the whole has one.
 * - The whole's text report is written without an error.
 *
 * Cost: ts_load_json and ts_merge's 4 KiB of registers per table are
 * most of a run under ASan; the text report is made from the text, not
 * by a third load.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/stat.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* s's report, malloc'd. */
static unsigned char *
report(struct ts_stat *s, size_t *len)
{
	struct tp_out *o = cap_begin();

	ts_report(s, o, NULL, 0);
	if (o->error != 0)
		abort();
	return cap_take(len);
}

/* The summary of p[0..n), or NULL with err (the line). */
static struct ts_stat *
summary(const struct ts_opts *o, const char *p, size_t n, struct tp_err *err)
{
	struct ts_stat *s = ts_new(o);
	struct tr_reader r;
	struct tp_in in;
	int rc;

	if (s == NULL)
		abort();
	tp_err_clear(err);
	if (tp_in_open_mem(&in, p, n, "<fuzz>", err) < 0)
		abort();
	tr_init(&r, &in);
	rc = ts_add_input(s, &r);
	tp_in_close(&in);
	if ((rc < 0) != (err->status != 0))
		abort();
	if (rc < 0) {
		if (err->line == 0 || err->msg[0] == '\0')
			abort();	/* a failure names its line */
		ts_free(s);
		return NULL;
	}
	return s;
}

static struct ts_stat *
load(const struct ts_opts *o, const unsigned char *p, size_t n)
{
	struct tp_err err;
	struct ts_stat *s;

	tp_err_clear(&err);
	if ((s = ts_load_json(o, (const char *)p, n, &err)) == NULL)
		abort();	/* its own report does not read back */
	return s;
}

static int
estimated(const unsigned char *p, size_t n)
{
	static const char mark[] = "\"estimated\":true";

	return memmem(p, n, mark, sizeof mark - 1) != NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_opts o = { .top = 10, .max_keys = TS_MAX_KEYS_DEFAULT,
		.json = 1 }, ot;
	struct ts_stat *w, *a, *b, *la, *lb, *lw;
	struct tp_err ew, ea, eb;
	const char *text, *p, *cut;
	size_t n, lines = 0, k, want, nr, na, nb, nm1, nm2, nt;
	unsigned char *rw, *ra, *rb, *m1, *m2, *rt;
	int est;

	if (size < 2)
		return 0;
	if ((data[1] & 7) == 1)
		o.max_keys = 1 + (size_t)(data[1] >> 3) % 8;
	text = (const char *)data + 2;
	n = size - 2;
	for (p = text; (p = memchr(p, '\n', (size_t)(text + n - p))) != NULL;
	    p++)
		lines++;
	want = data[0] % (lines + 1);
	for (cut = text, k = 0; k < want; k++)
		cut = (const char *)memchr(cut, '\n', (size_t)(text + n - cut)) + 1;

	/* A gzip stream is read inflated, its parts would not be. */
	if (fuzz_is_gzip(text, n) || fuzz_is_gzip(cut, (size_t)(text + n - cut)))
		return 0;
	w = summary(&o, text, n, &ew);
	a = summary(&o, text, (size_t)(cut - text), &ea);
	b = a ? summary(&o, cut, (size_t)(text + n - cut), &eb) : NULL;
	if (a == NULL || b == NULL) {
		uint64_t line = a == NULL ? ea.line : eb.line + want;
		if (w != NULL || ew.line != line)
			abort();	/* a part fails, the whole not there */
		ts_free(a);
		return 0;
	}
	if (w == NULL)
		abort();	/* the whole fails, its parts not */

	rw = report(w, &nr);
	ra = report(a, &na);
	rb = report(b, &nb);
	la = load(&o, ra, na);
	lb = load(&o, rb, nb);
	if (ts_merge(a, b) < 0 || ts_merge(la, lb) < 0)
		abort();
	m1 = report(a, &nm1);
	m2 = report(la, &nm2);
	est = estimated(rw, nr) || estimated(ra, na) || estimated(rb, nb);
	if (!est) {
		if (!fuzz_same(rw, nr, m1, nm1))
			abort();	/* merged summaries: not the whole's */
		if (!fuzz_same(rw, nr, m2, nm2))
			abort();	/* merged reports: not the whole's */
	} else {
		/* Estimates stay estimates, and the reports read. */
		if (!estimated(m1, nm1) || !estimated(m2, nm2))
			abort();
		ts_free(load(&o, m1, nm1));
		ts_free(load(&o, m2, nm2));
	}
	/* The whole's text report (a summary: cheaper than a load). */
	ot = o;
	ot.json = 0;
	if ((lw = summary(&ot, text, n, &ew)) == NULL)
		abort();
	rt = report(lw, &nt);
	if (nt == 0 || rt[nt - 1] != '\n')
		abort();
	free(rw);
	free(ra);
	free(rb);
	free(m1);
	free(m2);
	free(rt);
	ts_free(w);
	ts_free(a);
	ts_free(b);
	ts_free(la);
	ts_free(lb);
	ts_free(lw);
	return 0;
}
