/*
 * RAPID's "STD" text trace, one event per line: T<tid>|<op>(<P><id>)|<loc>
 * with P = L (locks), V (variables), T (threads), and T<tid>|begin|<loc>
 * for operations without an operand.  Written in Wasmgrind's spelling;
 * read in that spelling and in the bare-number one (T6|req(9)|51).
 */
#ifndef TP_RAPIDSTD_H
#define TP_RAPIDSTD_H

#include <stdint.h>

#include "base/err.h"
#include "formats/rapidbin/rapidbin.h"
#include "io/input.h"
#include "io/output.h"
#include "text/text.h"

struct std_enc_opts {
	int keep_request;	/* write req(L..), which mainline RAPID rejects */
	int keep_branch;	/* write branch, which mainline RAPID rejects */
	/* How ids are mapped, as txt2rapidbin maps them (sink: STD's). */
	struct rapidbin_enc_opts rb;
};

struct std_enc_stats {
	uint64_t events;	/* events written */
	uint64_t requests, branches;	/* dropped */
	uint64_t lossy;		/* bit63= or decor= that STD cannot carry */
	int from_std;		/* the stream had a std-header record */
	struct rapidbin_enc_stats rb;	/* the mapping's: skips, losses */
};

/* Text stream to STD.  0, or -1 with err set (err is the reader's). */
int std_encode(struct tr_reader *r, struct tp_out *out,
    const struct std_enc_opts *opts, struct std_enc_stats *st,
    struct tp_err *err);

struct std_dec_opts {
	int reserved;		/* none yet */
};

struct std_dec_stats {
	uint64_t events;	/* events written */
};

/* STD to the text stream.  0, or -1 with err set (line and column). */
int std_decode(struct tp_in *in, struct tp_out *out,
    const struct std_dec_opts *opts, struct std_dec_stats *st,
    struct tp_err *err);

/*
 * Parse one STD line (without its newline).  Returns 0, or -1 with a
 * message in why and the 1-based column of the fault in *col; *bare:
 * the operands are bare numbers (1), prefixed (0), or either (-1).
 */
struct rb_event;
int rs_parse(const char *line, size_t len, struct rb_event *e,
    const char **why, size_t *col, int *bare);

/*
 * Cut STD at any event line (formats/split.h); lines are copied as
 * they are, blank lines with the event after them.
 */
struct tp_cutter;
int std_split(struct tp_in *in, struct tp_cutter *c, struct tp_err *err);

/* Does the first line look like STD?  TP_PROBE_MAYBE or TP_PROBE_NO. */
int std_probe(const unsigned char *p, size_t n, char *detail,
    size_t detailsz);

#endif
