/*
 * Fuzz harness for the text record reader: every line is parsed, every
 * field is read as every type, and what tr_parse accepts must be walkable
 * by tr_elem and found again by tr_peek.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tr_rec rec;
	struct tp_err err;
	struct tp_in in;
	struct tr_reader rd;
	unsigned char buf[256];
	char *line;
	size_t len, i, n;
	int rc;

	tp_err_clear(&err);
	if (tp_in_open_mem(&in, data, size, "fuzz", &err) < 0)
		return 0;
	tr_init(&rd, &in);
	while ((rc = tr_line(&rd, &line, &len)) > 0) {
		if (tr_parse(&rd, line, len, &rec) <= 0) {
			tp_err_clear(&err);
			continue;
		}
		for (i = 0; i < rec.nf; i++) {
			const struct tr_field *f = &rec.f[i];
			const char *cur = f->val, *k, *v;
			size_t kl, vl;
			uint64_t u;
			int64_t s;
			double d;
			int b, guard = 0;

			tr_u64(&rd, &rec, f, &u);
			tr_i64(&rd, &rec, f, &s);
			tr_f64(&rd, &rec, f, &d);
			tr_bool(&rd, &rec, f, &b);
			tr_bytes(&rd, &rec, f, buf, sizeof buf, &n);
			tr_str(&rd, &rec, f, buf, sizeof buf, &n);
			tp_err_clear(&err);
			if (f->vallen > 0 && (*f->val == '[' || *f->val == '{'))
				while (tr_elem(&cur, f->val + f->vallen, &k, &kl,
				    &v, &vl) && guard++ < 100000)
					;
			if (f->keylen < 60 &&
			    tr_peek(line, len, f->key, f->keylen, &v, &vl) != 1)
				abort();	/* the reader found it, so must peek */
		}
	}
	tp_in_close(&in);
	return 0;
}
