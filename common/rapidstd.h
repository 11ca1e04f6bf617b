/*
 * RAPID's "STD" text trace, one event per line: T<tid>|<op>(<P><id>)|<loc>
 * with P = L (locks), V (variables), T (threads), and T<tid>|begin|<loc>
 * for operations without an operand.  Written in Wasmgrind's spelling;
 * read in that spelling and in the bare-number one (T6|req(9)|51).
 */
#ifndef TP_RAPIDSTD_H
#define TP_RAPIDSTD_H

#include <stdint.h>

#include "diag.h"
#include "input.h"
#include "output.h"
#include "rapidbin.h"
#include "text.h"

/* The STD line of an event, '\n' included; needs RB_LINE_MAX bytes. */
char *rs_fmt_event(char *p, const struct rb_event *e);

/*
 * Parse one STD line (without its newline).  Returns 0, or -1 with a
 * message in why and the 1-based column of the fault in *col.
 */
int rs_parse(const char *line, size_t len, struct rb_event *e,
    const char **why, size_t *col);

struct rs_opts {
	int keep_request;	/* write req(L..), which mainline RAPID rejects */
	int keep_branch;	/* write branch, which mainline RAPID rejects */
};

struct rs_stats {
	uint64_t events;	/* events written */
	uint64_t requests, branches;	/* dropped */
	uint64_t lossy;		/* bit63= or decor= that STD cannot carry */
	uint64_t skipped;	/* records without a RapidBin meaning */
	uint64_t first_skipped_line;
	char first_skipped_kind[32];
};

/* Text stream to STD.  0, or -1 with the error in the reader's err. */
int rs_txt2std(struct tr_reader *r, struct tp_out *out,
    const struct rs_opts *opts, struct rs_stats *st);

/* STD to the text stream.  0, or -1 with err set (line and column). */
int rs_std2txt(struct tp_in *in, struct tp_out *out, struct rs_stats *st,
    struct tp_err *err);

#endif
