/*
 * Tables of chosen fields (txtcut), as a pure module: one row per record
 * of a trace text stream, one column per field named, TSV or CSV.
 *
 *   insn seq=3 tid=7 pc=0x401000 name="a\tb"    -f kind,tid,pc,name,size
 *   kind	tid	pc	name	size
 *   insn	7	0x401000	a\tb
 *
 * A value is written as the text writes it, a quoted string without its
 * quotes: in TSV with the text's escapes (a tab, a newline, a CR or a
 * backslash cannot stand in a cell: \t \n \r \\, and \xHH as the text
 * has it), with only \" undone; in CSV with every escape undone (the
 * string's bytes exactly) and the cell quoted as RFC 4180 says.  A
 * record that lacks a field has an empty cell.  The column named kind is
 * the record's kind.  --time shows ts in a spelling of timefmt.h.
 */
#ifndef TP_CUT_H
#define TP_CUT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "io/output.h"
#include "text/text.h"
#include "tools/timefmt.h"

#define TC_MAXCOLS 64	/* columns of a table (a field may repeat) */

struct tc_cut {
	/* Set by the caller. */
	int csv;		/* else TSV */
	int no_header;
	int shared_only;	/* rows only for records of the shared kinds */
	enum tp_time_mode time;

	/* Set by tc_fields. */
	unsigned ncols;
	int col[TC_MAXCOLS];	/* index into key[], or -1: the kind */
	const char *key[TR_KEYS_MAX];
	unsigned nkeys;
	int ts;			/* index of "ts" in key[], or -1 */
	struct tr_keys keys;
	char *names;		/* the list as given, split at its commas */

	/* What the table has seen so far, over every input. */
	int header_done;
	int have_first, have_prev;
	uint64_t first, prev;
	struct tr_rec *rec;	/* the record being cut */
	char *scratch;		/* a string unquoted: the longest yet */
	size_t scratchcap;
	uint64_t rows;
};

void tc_init(struct tc_cut *c);
void tc_free(struct tc_cut *c);

/*
 * The columns, "kind,ts,tid" (repeating -f appends): field names of the
 * text grammar ([A-Za-z0-9_.-]+).  0, or -1 with err naming the bad
 * element.
 */
int tc_fields(struct tc_cut *c, const char *list, struct tp_err *err);

/*
 * The rows of one input on o (the header row before the first input's);
 * lines that are blank or comments make none.  0, or -1 with r->err
 * naming the line and column: a malformed line (which tr_parse refuses),
 * or under --time a ts that is no integer.
 */
int tc_run(struct tc_cut *c, struct tr_reader *r, struct tp_out *o);

#endif
