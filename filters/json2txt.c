/*
 * json2txt: NDJSON records (as txt2json writes them, or jq after it)
 * back into the trace text stream.
 */
#include "tools/ndjson.h"
#include "diag.h"
#include "driver.h"
#include "opts.h"

static const char about[] =
    "Write each JSON object of the input ({\"kind\":KIND, fields...}, as\n"
    "txt2json(1) writes them, one per line or spread over lines as jq\n"
    "prints them) as one line of trace text.\n"
    "Several FILEs are read in turn; without FILE, or when FILE is -,\n"
    "read standard input.\n";

static struct nj_stats st;

static int
run(struct tp_in *in, struct tp_out *out, void *ctx, struct tp_err *err)
{
	(void)ctx;
	return nj_to_text(in, out, &st, err);
}

int
main(int argc, char **argv)
{
	struct tp_program p = { .about = about, .exit1 = "invalid JSON or an "
	    "object that is no record (after the records before it)" };
	int first = tp_parse(&p, argc, argv), status;
	struct tp_each each = { p.output, 0, 0, run, NULL, NULL, NULL };

	status = tp_run_each(&each, argc - first, argv + first);
	tp_note("%llu records, %llu comments", (unsigned long long)st.records,
	    (unsigned long long)st.comments);
	return status;
}
