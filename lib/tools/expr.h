/*
 * Selection expressions over the fields of one record (txtfilter -e), as
 * a pure module: compiled once, then judged on raw lines.
 *
 *   expr := expr or expr | expr and expr | not expr | ( expr )
 *         | FIELD cmp NUMBER | FIELD in LIST | FIELD == "string"
 *         | FIELD != "string" | FIELD ~ "regex" | FIELD !~ "regex"
 *         | kind == KIND | kind != KIND | kind in KIND,KIND | has(FIELD)
 *   cmp  := == | != | < | <= | > | >=
 *
 * (&&, || and ! are accepted for and, or, not.)  NUMBER is decimal,
 * possibly negative, or 0x hex; LIST is txtfilter's list and range syntax
 * (42,43 1-9 100- -7 0x1000+0x40); a regex is a POSIX extended one.  A
 * comparison on a field the record lacks, or whose value is null, is
 * false whatever the operator; a numeric one on a value that is not an
 * integer is false.  The fields an expression names are found in one
 * pass over the line, and only when a leaf needs them.
 */
#ifndef TP_EXPR_H
#define TP_EXPR_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define TX_MAXKEYS 32	/* distinct fields one expression may name */

struct tx_expr;

/*
 * Compile text, ORed with what *x already holds (NULL at first: repeating
 * -e widens the selection as repeating --tid does).  Returns 0, or -1
 * with err->msg naming the column and what was expected there.
 */
int tx_add(struct tx_expr **x, const char *text, struct tp_err *err);
void tx_free(struct tx_expr *x);

/*
 * Does the record meet the expression?  kind is the TF_* bit of its
 * shared kind (filter.h), line the whole line without its end.  1 or 0,
 * or -1 when a field it looked at is given twice (*dup: its second key),
 * -2 when out of memory.
 */
int tx_eval(struct tx_expr *x, unsigned kind, const char *line, size_t len,
    const char **dup);

#endif
