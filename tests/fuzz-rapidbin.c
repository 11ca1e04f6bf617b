/*
 * Fuzz harness for the RapidBin module: the same bytes are decoded as
 * RapidBin, encoded as trace text and read as RAPID STD.  Output is
 * counted and thrown away; the harness looks for crashes, hangs and
 * sanitizer reports.  Decoded events are also re-encoded, so that the
 * encoder sees well-formed records too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "input.h"
#include "output.h"
#include "rapidbin.h"
#include "rapidstd.h"
#include "text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
decode(const uint8_t *data, size_t size, int strict)
{
	struct rb_dec_opts opts = { strict, 1 };
	struct rb_dec_stats st;
	struct tp_err err;
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &err) < 0)
		return;
	tp_out_open_discard(&out);
	rb_decode(&in, &out, &opts, &st, &err);
	tp_in_close(&in);
	tp_out_close(&out, 0);
}

static void
encode(const uint8_t *data, size_t size, int dense, int meta)
{
	struct rb_enc_opts opts = { 0, dense, dense, NULL };
	struct rb_enc_stats st;
	struct tp_out out, mout;
	struct tr_reader r;
	struct tp_err err;
	struct tp_in in;

	tp_err_clear(&err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &err) < 0)
		return;
	tr_init(&r, &in);
	tp_out_open_discard(&out);
	tp_out_open_discard(&mout);
	if (meta)
		opts.meta = &mout;
	rb_encode(&r, &out, &opts, &st);
	tp_in_close(&in);
	tp_out_close(&out, 0);
	tp_out_close(&mout, 0);
}

static void
std_both(const uint8_t *data, size_t size)
{
	struct rs_opts opts = { 1, 1 };
	struct rs_stats st;
	struct tr_reader r;
	struct tp_err err;
	struct tp_out out;
	struct tp_in in;

	tp_err_clear(&err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &err) == 0) {
		tp_out_open_discard(&out);
		rs_std2txt(&in, &out, &st, &err);
		tp_in_close(&in);
		tp_out_close(&out, 0);
	}
	tp_err_clear(&err);
	if (tp_in_open_mem(&in, data, size, "<fuzz>", &err) == 0) {
		tr_init(&r, &in);
		tp_out_open_discard(&out);
		rs_txt2std(&r, &out, &opts, &st);
		tp_in_close(&in);
		tp_out_close(&out, 0);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tp_verbosity = 0;
	decode(data, size, 0);
	decode(data, size, 1);
	encode(data, size, 0, 0);
	encode(data, size, 1, 1);
	std_both(data, size);
	return 0;
}
