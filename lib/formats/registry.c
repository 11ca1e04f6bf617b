/*
 * The format table.  A new format adds its TP_FORMAT_ADAPT line and its
 * row; the order of the rows is the order of the probes and of the
 * program lists (tests/cli.sh, scripts/bench).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "formats/dial9/dial9.h"
#include "formats/registry.h"
#include "formats/rapidbin/rapidbin.h"
#include "formats/std/std.h"
#include "formats/trac/trac.h"
#include "formats/ucir/ucir.h"
#include "formats/wtf/wtf.h"

TP_FORMAT_ADAPT(trac)
TP_FORMAT_ADAPT(rapidbin)
TP_FORMAT_ADAPT(std)
TP_FORMAT_ADAPT(dial9)
TP_FORMAT_ADAPT(ucir)
TP_FORMAT_ADAPT(wtf)

/* The decoders' options that any2txt passes through, as their mains spell them. */
static const struct tp_dec_flag trac_flags[] = {
	{ "allow-truncated", 't', offsetof(struct trac_dec_opts,
	    allow_truncated), "x64dbg: end quietly at a cut last block" },
	{ "repair-tid", 'r', offsetof(struct trac_dec_opts, repair_tid),
	    "x64dbg: repair thread ids written without flag 0x80" },
	{ NULL, 0, 0, NULL }
};
static const struct tp_dec_flag rapidbin_flags[] = {
	{ "strict", 's', offsetof(struct rapidbin_dec_opts, strict),
	    "RapidBin: header counts must equal the distinct ids" },
	{ NULL, 0, 0, NULL }
};
static const struct tp_dec_flag ucir_flags[] = {
	{ "check-level", 'c', offsetof(struct ucir_dec_opts, verify_level),
	    "Usercorn: try the zlib level of every frame (-v counts misses)" },
	{ NULL, 0, 0, NULL }
};

static const struct tp_dec_flag dial9_flags[] = {
	{ "lenient", 0, offsetof(struct dial9_dec_opts, lenient),
	    "dial9: stop quietly at the first frame that does not decode" },
	{ NULL, 0, 0, NULL }
};

const struct tp_format tp_formats[] = {
	TP_FORMAT_ROW_FLAGS(trac, "an x64dbg trace (TRAC)", ".trace64 .trace32",
	    0, trac_flags),
	TP_FORMAT_ROW_FLAGS(rapidbin, "a RapidBin trace (RAPID, Wasmgrind)",
	    ".data .bin .rapidbin", TP_FMT_NOMAGIC, rapidbin_flags),
	TP_FORMAT_ROW(std, "RAPID STD text", ".std", TP_FMT_TEXT),
	TP_FORMAT_ROW_FLAGS(dial9, "a dial9 trace (dial9-trace-format, TRC)",
	    ".trc", 0, dial9_flags),
	TP_FORMAT_ROW_FLAGS(ucir, "a Usercorn trace (UCIR: replay or trace "
	    "format)", ".ucir", 0, ucir_flags),
	TP_FORMAT_ROW(wtf, "a Web Tracing Framework trace", ".wtf-trace", 0),
	{ NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, 0, 0, NULL }
};

const struct tp_format *
tp_format_find(const char *name)
{
	const struct tp_format *f;

	for (f = tp_formats; f->name != NULL; f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

const struct tp_format *
tp_format_probe(const unsigned char *p, size_t n, char *detail,
    size_t detailsz)
{
	const struct tp_format *f, *best = NULL;
	int level = TP_PROBE_NO;
	char d[128];

	if (detail != NULL && detailsz > 0)
		detail[0] = '\0';
	for (f = tp_formats; f->name != NULL; f++) {
		int v = f->probe(p, n, d, sizeof d);
		if (v > level) {
			level = v;
			best = f;
			if (detail != NULL && detailsz > 0) {
				strncpy(detail, d, detailsz - 1);
				detail[detailsz - 1] = '\0';
			}
		}
	}
	return best;
}

const struct tp_format *
tp_format_detect(const unsigned char *p, size_t n, char *detail,
    size_t detailsz, const struct tp_format **tie)
{
	const struct tp_format *f, *best = NULL;
	int level = TP_PROBE_NO;
	char d[128];

	*tie = NULL;
	for (f = tp_formats; f->name != NULL; f++) {
		int v = f->probe(p, n, d, sizeof d);
		if (v == TP_PROBE_NO || v < level)
			continue;
		if (v == level) {
			*tie = f;
			continue;
		}
		level = v;
		best = f;
		*tie = NULL;
		if (detail != NULL && detailsz > 0)
			snprintf(detail, detailsz, "%s", d);
	}
	return *tie != NULL ? NULL : best;
}

/* Magic numbers from the formats' specifications (xz 1.0.4 2.1.1.1,
 * RFC 8878 3.1.1, bzip2's "BZh" and block size digit). */
static const struct {
	const char *name, *cmd, *magic;
	size_t len;
} compressed[] = {
	{ "xz", "xz -dc", "\xfd" "7zXZ\0", 6 },
	{ "zstd", "zstd -dc", "\x28\xb5\x2f\xfd", 4 },
	{ "bzip2", "bzip2 -dc", "BZh", 3 },
};

const char *
tp_compressed(const unsigned char *p, size_t n, const char **cmd)
{
	size_t i;

	for (i = 0; i < sizeof compressed / sizeof compressed[0]; i++) {
		size_t k = compressed[i].len;
		if (n < k || memcmp(p, compressed[i].magic, k) != 0)
			continue;
		/* bzip2: a block size '1' to '9', then a block or the end. */
		if (strcmp(compressed[i].name, "bzip2") == 0 &&
		    (n < 4 || p[3] < '1' || p[3] > '9'))
			continue;
		if (cmd != NULL)
			*cmd = compressed[i].cmd;
		return compressed[i].name;
	}
	return NULL;
}
