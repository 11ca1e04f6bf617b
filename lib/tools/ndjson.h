/*
 * The trace text stream as newline-delimited JSON, one object per record,
 * and back (txt2json, json2txt; the mapping is in txt2json(1)):
 *
 *   insn tid=7 pc=0x401000 bytes=90 name="a b"
 *   {"kind":"insn","tid":7,"pc":"0x401000","bytes":"90","name":"a b"}
 *
 * Every value keeps its type, and json2txt writes back the text the
 * tracepipe writer wrote, byte for byte: the few things JSON cannot say
 * by its own types (a string quoted although it could be bare, a byte
 * string that is not UTF-8) travel in keys starting with '@', which no
 * trace-text key can.
 */
#ifndef TP_NDJSON_H
#define TP_NDJSON_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "io/input.h"
#include "io/output.h"
#include "text/text.h"

struct nj_stats {
	uint64_t records;	/* objects for records */
	uint64_t comments;	/* objects for comment and blank lines */
	uint64_t raw;		/* values carried as {"@text":...} */
};

/* txt2json: every line of r as one JSON object on out.  0, or -1. */
int nj_from_text(struct tr_reader *r, struct tp_out *out,
    struct nj_stats *st);

/*
 * json2txt: JSON objects (one per line, or spread over lines as jq
 * prints them) from in, as text lines on out.  0, or -1 with err naming
 * the line and column of the input.
 */
int nj_to_text(struct tp_in *in, struct tp_out *out, struct nj_stats *st,
    struct tp_err *err);

/*
 * A text value (a field's value span, as tr_parse gives it) as JSON, with
 * the types of txt2json(1).  A value JSON cannot hold (a string that is
 * not UTF-8) is written as its text in a string.
 */
void nj_put_value(struct tp_out *o, const char *v, size_t n);

#endif
