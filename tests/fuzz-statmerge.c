/*
 * Fuzz harness for txtstat --merge's reader (ts_load_json, stat-json.c):
 * any input is a summary or one error with a reason.  A summary it reads
 * reports (--json) into a report that reads again and reports the same
 * bytes, and with an empty summary merged into it reports as itself, as
 * txtstat(1) promises of the reports it wrote.  The empty summary is
 * made each run: ts_new no longer mallocs a line's 64 MiB up front, and
 * keeping one made no difference to the runs/s.
 */
#include <stdint.h>
#include <stdlib.h>

#include "tools/stat.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct ts_opts opts = { .top = 10,
	.max_keys = TS_MAX_KEYS_DEFAULT, .json = 1, .merge = 1 };

/* s's JSON report, malloc'd. */
static unsigned char *
report(struct ts_stat *s, size_t *len)
{
	ts_report(s, cap_begin(), NULL, 0);
	return cap_take(len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_stat *s, *s2, *empty;
	unsigned char *r1, *r2, *r3;
	size_t n1, n2, n3;
	struct tp_err err;

	tp_err_clear(&err);
	if ((s = ts_load_json(&opts, (const char *)data, size, &err)) == NULL) {
		if (err.status == 0)
			abort();	/* refused without a reason */
		return 0;
	}
	if (err.status != 0)
		abort();
	r1 = report(s, &n1);
	if ((s2 = ts_load_json(&opts, (const char *)r1, n1, &err)) == NULL)
		abort();	/* its own report does not read back */
	r2 = report(s2, &n2);
	if (!fuzz_same(r1, n1, r2, n2))
		abort();	/* nor reports the same */
	if ((empty = ts_new(&opts)) == NULL)
		abort();
	if (ts_merge(s2, empty) < 0)
		abort();
	r3 = report(s2, &n3);
	if (!fuzz_same(r1, n1, r3, n3))
		abort();	/* s then nothing is not s */
	free(r1);
	free(r2);
	free(r3);
	ts_free(empty);
	ts_free(s);
	ts_free(s2);
	return 0;
}
