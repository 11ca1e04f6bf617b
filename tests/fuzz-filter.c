/*
 * Fuzz harness for txtfilter's selection module: the first four lines are
 * the --tid, --addr, --ts and --type arguments, a fifth line "e EXPR" an
 * expression (-e), the rest is the stream.
 * Every line is judged; a line that tr_parse accepts must never be judged
 * an error unless a field the selectors read holds no number.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int (*add[4])(struct tf_filter *, const char *, struct tp_err *) = {
		tf_add_tid, tf_add_addr, tf_add_ts, tf_add_type
	};
	struct tf_filter f;
	struct tp_err err;
	struct tp_in in;
	struct tr_reader rd;
	char *line, arg[256];
	size_t len;
	int i;

	tp_err_clear(&err);
	if (tp_in_open_mem(&in, data, size, "fuzz", &err) < 0)
		return 0;
	tr_init(&rd, &in);
	tf_init(&f);
	for (i = 0; i < 4 && tr_line(&rd, &line, &len) > 0; i++) {
		if (len == 0 || len >= sizeof arg)
			continue;
		memcpy(arg, line, len);
		arg[len] = '\0';
		add[i](&f, arg, &err);
		tp_err_clear(&err);
	}
	if (rd.lineno > 0 && size > 1 && data[0] == '!')
		f.invert = 1;
	if (i == 4 && tr_line(&rd, &line, &len) > 0) {
		if (len >= 2 && line[0] == 'e' && line[1] == ' ' &&
		    len < sizeof arg) {
			memcpy(arg, line + 2, len - 2);
			arg[len - 2] = '\0';
			tf_add_expr(&f, arg, &err);
			tp_err_clear(&err);
		} else if (tf_judge(&f, line, len, rd.lineno, &err) < -1) {
			abort();
		}
		tp_err_clear(&err);
	}
	while (tr_line(&rd, &line, &len) > 0) {
		int v = tf_judge(&f, line, len, rd.lineno, &err);
		if (v != TF_PASS && v != TF_SELECT && v != TF_REJECT &&
		    (v != -1 || err.status == 0))
			abort();
		tp_err_clear(&err);
	}
	tf_free(&f);
	tp_in_close(&in);
	return 0;
}
