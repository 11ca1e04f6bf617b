/*
 * Fuzz harness for json2txt's reader (nj_to_text): any input ends in text
 * or in one diagnostic, never without a reason; the text it writes goes
 * through txt2json's writer (nj_from_text) and back to the same bytes, as
 * txt2json(1) promises of text the tracepipe writer wrote (the values
 * given as "@text", written as they are, once they have been through).
 */
#include <stdint.h>
#include <stdlib.h>

#include "tools/ndjson.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* JSON p[0..n) as text (json2txt): malloc'd, or NULL when it fails. */
static unsigned char *
to_text(const void *p, size_t n, size_t *len)
{
	struct nj_stats st;
	struct tp_err err;
	struct tp_in in;
	unsigned char *t;
	int rc;

	tp_err_clear(&err);
	if (tp_in_open_mem(&in, p, n, "<fuzz>", &err) < 0)
		abort();
	rc = nj_to_text(&in, cap_begin(), &st, &err);
	if (tp_in_close(&in) < 0 && rc == 0)
		rc = -1;
	if ((rc < 0) != (err.status != 0))
		abort();	/* a failure without a reason, or the reverse */
	t = cap_take(len);
	if (rc < 0) {
		free(t);
		return NULL;
	}
	return t;
}

/* Text t[0..n) as JSON (txt2json), that as text again: malloc'd. */
static unsigned char *
round_trip(const unsigned char *t, size_t n, size_t *len)
{
	unsigned char *json, *back;
	struct nj_stats st;
	struct tr_reader r;
	struct tp_err err;
	struct tp_in in;
	size_t jlen;

	tp_err_clear(&err);
	if (tp_in_open_mem(&in, t, n, "<text>", &err) < 0)
		abort();
	tr_init(&r, &in);
	r.err = &err;
	if (nj_from_text(&r, cap_begin(), &st) < 0)
		abort();	/* json2txt wrote text txt2json refuses */
	tp_in_close(&in);
	json = cap_take(&jlen);
	if ((back = to_text(json, jlen, len)) == NULL)
		abort();	/* txt2json wrote JSON json2txt refuses */
	free(json);
	return back;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *t1, *t2, *t3;
	size_t n1, n2, n3;

	tp_verbosity = 0;
	if ((t1 = to_text(data, size, &n1)) == NULL)
		return 0;
	/*
	 * Text the writer wrote comes back byte for byte.  "@text" values
	 * are written as they are, in whatever form they were given: those
	 * come back as the writer writes them, and from then on unchanged.
	 */
	t2 = round_trip(t1, n1, &n2);
	if (memmem(data, size, "@text", 5) == NULL && !fuzz_same(t1, n1, t2, n2))
		abort();
	t3 = round_trip(t2, n2, &n3);
	if (!fuzz_same(t2, n2, t3, n3))
		abort();
	free(t1);
	free(t2);
	free(t3);
	return 0;
}
