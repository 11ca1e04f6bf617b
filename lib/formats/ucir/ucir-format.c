/*
 * The Usercorn format's registration: its row, its programs' options and
 * help, what ucir2txt and txt2ucir say after an input.
 */
#include <stdint.h>
#include <string.h>

#include "formats/registry.h"
#include "formats/ucir/ucir.h"

TP_FORMAT_ADAPT(ucir)

static void
dec_report(const void *stats, int failed, const struct tp_say *say)
{
	const struct ucir_dec_stats *st = stats;

	(void)failed;
	if (!st->header_done)
		return;
	if (st->level_guessed > 0)
		tp_say(say, TP_SAY_NOTE, "%llu frames were not written by this "
		    "zlib at any level their header allows: txt2ucir gives back "
		    "their ops, not their bytes",
		    (unsigned long long)st->level_guessed);
	tp_say(say, TP_SAY_NOTE, "%s format, arch %s: %llu frames (%llu "
	    "keyframes), %llu ops (%llu bytes), %llu instructions, %llu reads, "
	    "%llu writes, %llu syscalls",
	    st->variant == UCIR_TRACE ? "trace" : "replay", st->arch,
	    (unsigned long long)st->frames, (unsigned long long)st->keyframes,
	    (unsigned long long)st->ops, (unsigned long long)st->inflated,
	    (unsigned long long)st->insns, (unsigned long long)st->reads,
	    (unsigned long long)st->writes, (unsigned long long)st->syscalls);
}

static void
enc_report(const void *stats, int failed, const struct tp_say *say)
{
	const struct ucir_enc_stats *st = stats;

	if (failed)
		return;
	tp_report_skips(say, &st->skipped);
	if (st->unnested > 0)
		tp_say(say, TP_SAY_WARN, "%llu records with depth= whose syscall "
		    "is not in the stream were placed one level up",
		    (unsigned long long)st->unnested);
	if (st->header_made)
		tp_say(say, TP_SAY_NOTE, "the stream has no ucir-header: one was "
		    "written");
	tp_say(say, TP_SAY_NOTE, "%llu records: %llu frames (%llu made here), "
	    "%llu ops, %llu skipped", (unsigned long long)st->records,
	    (unsigned long long)st->frames, (unsigned long long)st->frames_made,
	    (unsigned long long)st->ops, (unsigned long long)st->skipped.count);
}

/* Frames larger than this are refused, decoding and encoding alike. */
static int
max_frame(const char *arg, size_t *v, struct tp_err *err)
{
	unsigned long long n;

	if (tp_option_number("--max-frame", arg, 1, 1ull << 32, &n, err) < 0)
		return -1;
	*v = (size_t)n;
	return 0;
}

static int
set_dec_max_frame(void *target, const char *arg, struct tp_err *err)
{
	return max_frame(arg, &((struct ucir_dec_opts *)target)->max_frame,
	    err);
}

static int
set_enc_max_frame(void *target, const char *arg, struct tp_err *err)
{
	return max_frame(arg, &((struct ucir_enc_opts *)target)->max_frame,
	    err);
}

static int
set_arch(void *target, const char *arg, struct tp_err *err)
{
	if (ucir_regs_find(arg, strlen(arg)) == NULL ||
	    strlen(arg) > UCIR_NAME_LEN)
		return tp_fail(err, TP_EXIT_FAIL, "unsupported arch '%s'", arg);
	((struct ucir_enc_opts *)target)->arch = arg;
	return 0;
}

static int
set_os(void *target, const char *arg, struct tp_err *err)
{
	if (strlen(arg) > UCIR_NAME_LEN)
		return tp_fail(err, TP_EXIT_FAIL, "os name longer than %d bytes",
		    UCIR_NAME_LEN);
	((struct ucir_enc_opts *)target)->os = arg;
	return 0;
}

static int
set_level(void *target, const char *arg, struct tp_err *err)
{
	unsigned long long n;

	if (tp_option_number("--level", arg, 0, 9, &n, err) < 0)
		return -1;
	((struct ucir_enc_opts *)target)->level_plus1 = (int)n + 1;
	return 0;
}

static int
set_frame_ops(void *target, const char *arg, struct tp_err *err)
{
	unsigned long long n;

	if (tp_option_number("--frame-ops", arg, 1, UINT32_MAX, &n, err) < 0)
		return -1;
	((struct ucir_enc_opts *)target)->frame_ops = (unsigned)n;
	return 0;
}

static const struct tp_option dec_options[] = {
	TP_OPTION_SET("max-frame", 'm', "BYTES", set_dec_max_frame,
	    "refuse frames and ops larger than BYTES, compressed or inflated "
	    "(default 64 MiB)"),
	TP_OPTION_FLAG("check-level", 'c', struct ucir_dec_opts, verify_level,
	    "also try the zlib level of frames whose header allows only one, "
	    "and count those it does not reproduce (-v shows the count)"),
	{ NULL }
};

static const struct tp_option enc_options[] = {
	TP_OPTION_SET("arch", 'a', "ARCH", set_arch, "header arch when the "
	    "stream has no ucir-header: x86_64 (default), x86, x86_16, arm, "
	    "arm64, mips, sparc, m68k"),
	TP_OPTION_SET("os", 'O', "OS", set_os, "header os then (default "
	    "linux)"),
	TP_OPTION_SET("level", 'l', "N", set_level, "zlib level 0-9 of the "
	    "frames made here (6)"),
	TP_OPTION_SET("frame-ops", 'n', "N", set_frame_ops, "ops per frame "
	    "made here (4096)"),
	TP_OPTION_SET("max-frame", 'm', "BYTES", set_enc_max_frame,
	    "refuse frames larger than BYTES (64 MiB)"),
	TP_OPTION_FLAG("trace", 't', struct ucir_enc_opts, trace,
	    "write the trace format usercorn run -trace writes and its trace "
	    "reader reads (Snappy framed), not a replay"),
	TP_OPTION_STRICT(struct ucir_enc_opts, "a Usercorn file"),
	{ NULL }
};

const struct tp_format tp_format_ucir = {
	TP_FORMAT_MODULE(ucir),
	.split = ucir_split,
	.desc = "a Usercorn trace (UCIR: replay or trace format)",
	.exts = ".ucir",
	.dec.about =
	    "Decode a Usercorn trace into trace text: a ucir-header record, then a\n"
	    "ucir-frame record per frame followed by its ops: insn, read, write,\n"
	    "ucir-reg, ucir-spreg, ucir-map, ucir-unmap, ucir-syscall (its ops carry\n"
	    "depth=), ucir-exit, ucir-nop, and for usercorn's trace format ucir-jmp\n"
	    "and ucir-prot.  Reads the replay format (zlib frames, big-endian) and\n"
	    "the format `usercorn run -trace` writes (Snappy, little-endian).  FILEs\n"
	    "may be gzip-compressed and are decoded in turn; without FILE, or when\n"
	    "FILE is -, read standard input.\n",
	.dec.exit1 = "malformed or truncated input (after the records of the "
	    "frames before the fault)",
	.dec.options = dec_options,
	.dec.report = dec_report,
	.enc.about =
	    "Encode trace text into a Usercorn replay file (--trace: the trace format\n"
	    "usercorn's own reader reads): ucir-header, ucir-frame,\n"
	    "insn, read, write and the other ucir- records, as ucir2txt writes them,\n"
	    "or insn, read and write records of other decoders.  Ops before any\n"
	    "ucir-frame record are framed here.  FILE may be gzip-compressed; without\n"
	    "FILE, or when FILE is -, read standard input.\n",
	.enc.options = enc_options,
	.enc.report = enc_report,
};
