/*
 * Record selection for txtfilter, as a pure module: the program, the
 * tests and a fuzzer drive the same code.
 *
 * A line is judged from the raw text, looking up only the fields the
 * selectors need (tr_peek); no record is built.  Comments, blank lines
 * and records whose kind is not one of the shared kinds (format
 * structure: headers, schemas, definitions) always pass, so that the
 * filtered stream still encodes.  Every range is inclusive: "A-B" holds
 * A and B; "A+N" holds the N values from A on (A .. A+N-1).
 */
#ifndef TP_FILTER_H
#define TP_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "io/output.h"
#include "text/text.h"
#include "tools/ranges.h"

struct tx_expr;

struct tf_filter {
	struct tf_set tid, addr, ts;
	unsigned kinds;		/* TF_* bits chosen by --type; 0: any */
	struct tx_expr *expr;	/* -e, ANDed with the rest; NULL: none */
	int invert;
	uint64_t max;		/* stop after this many selected records */
	const char *label;	/* written with ':' before each line, or NULL */
};

/* What tf_judge decided about one line. */
enum tf_verdict {
	TF_PASS,	/* comment, blank or structure: always written */
	TF_SELECT,	/* a shared-kind record that is selected */
	TF_REJECT	/* a shared-kind record that is not */
};

struct tf_stats {
	uint64_t selected;	/* shared-kind records written (or counted) */
	uint64_t rejected;
	uint64_t passed;	/* comments, blanks, structure records */
	uint64_t near_kinds;	/* structure kinds one letter from a shared one */
	uint64_t first_near_line;
	char first_near[12], first_near_shared[8];	/* "acquir", "acquire" */
};

void tf_init(struct tf_filter *f);
void tf_free(struct tf_filter *f);

/*
 * Add the values of one option to a selector; repeating an option widens
 * it.  Each returns 0, or -1 with err->msg naming the bad element.
 *   tid:  "42,43,1-9,100-"	decimal or 0x hex, ranges inclusive
 *   addr: "0x401000-0x401fff,0x7ff0000000,0x1000+0x100"
 *   ts:   "A-B", "A-", "-B", "A+N", "T": nanoseconds, or any time
 *         spelling of timefmt.h (1773850000.5, 20ms, a UTC date)
 *   type: "insn,write" (shared kinds only)
 */
int tf_add_tid(struct tf_filter *f, const char *arg, struct tp_err *err);
int tf_add_addr(struct tf_filter *f, const char *arg, struct tp_err *err);
int tf_add_ts(struct tf_filter *f, const char *arg, struct tp_err *err);
int tf_add_type(struct tf_filter *f, const char *arg, struct tp_err *err);

/* -e EXPR (expr.h); repeating it widens the selection. */
int tf_add_expr(struct tf_filter *f, const char *expr, struct tp_err *err);

/*
 * Judge one raw line (without its newline).  Returns a tf_verdict, or -1
 * when a field that the decision needs holds no number (err gets the
 * line number, the column and the message).
 */
int tf_judge(const struct tf_filter *f, const char *line, size_t len,
    uint64_t lineno, struct tp_err *err);

/*
 * Filter a whole input: each selected or passing line is written to o
 * unchanged (its "\n" or "\r\n" included; a last line without one gets
 * "\n"), after "label:" when f->label is set; o NULL only counts.  It
 * stops after f->max selected records.  Returns 0, or -1 with r->err
 * filled.
 */
int tf_run(const struct tf_filter *f, struct tr_reader *r, struct tp_out *o,
    struct tf_stats *st);

#endif
