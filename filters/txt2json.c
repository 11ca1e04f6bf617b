/*
 * txt2json: the trace text stream as NDJSON, one object per record, for
 * jq and pandas.
 */
#include "tools/ndjson.h"
#include "diag.h"
#include "driver.h"
#include "opts.h"

static const char about[] =
    "Write each line of a trace text stream as one JSON object:\n"
    "{\"kind\":KIND, then every field with its type}.  json2txt(1) turns\n"
    "the objects back into the same text, byte for byte.\n"
    "Several FILEs are read in turn; without FILE, or when FILE is -,\n"
    "read standard input.\n";

static struct nj_stats st;

static int
run(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	struct tr_reader r;

	(void)ctx;
	(void)err;
	tr_init(&r, in);
	return nj_from_text(&r, out, &st);
}

int
main(int argc, char **argv)
{
	struct tp_program p = { .about = about, .exit1 = "malformed input "
	    "(after the lines before the fault)" };
	int first = tp_parse(&p, argc, argv), status;
	struct tp_each each = { p.output, 0, TP_EACH_TEXT, run, NULL, NULL, NULL };

	status = tp_run_each(&each, argc - first, argv + first);
	tp_note("%llu records, %llu comments, %llu values as \"@text\"",
	    (unsigned long long)st.records, (unsigned long long)st.comments,
	    (unsigned long long)st.raw);
	return status;
}
