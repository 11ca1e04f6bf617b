/*
 * Fuzz harness for the trac module: the input is decoded as a trace file
 * (plain, with --allow-truncated and with --repair-tid) and encoded as
 * trace text.  Any crash, sanitizer report or hang is a bug; malformed
 * input must only give an error value.
 */
#include <stdint.h>
#include <stdlib.h>

#include "diag.h"
#include "input.h"
#include "output.h"
#include "trac.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
decode(const uint8_t *data, size_t size, int truncated, int repair)
{
	struct trac_dec_opts opts = { truncated, repair };
	struct trac_dec_stats st;
	struct tp_err err;
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &err) < 0)
		abort();
	tp_out_open_discard(&out);
	if (trac_decode(&in, &out, &opts, &st, &err) < 0 && err.status == 0)
		abort();	/* a failure must say why */
	tp_in_close(&in);
	tp_out_close(&out, 0);
}

static void
encode(const uint8_t *data, size_t size, int strict)
{
	struct trac_enc_opts opts = { strict ? &trac_x86 : &trac_x64, strict };
	struct trac_enc_stats st;
	struct tp_err err;
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &err) < 0)
		abort();
	tp_out_open_discard(&out);
	if (trac_encode(&in, &out, &opts, &st, &err) < 0 && err.status == 0)
		abort();
	tp_in_close(&in);
	tp_out_close(&out, 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	decode(data, size, 0, 0);
	decode(data, size, 1, 1);
	encode(data, size, 0);
	encode(data, size, 1);
	return 0;
}
