/*
 * The registry: the formats' registrations, and what finds one by name
 * or by content.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "formats/registry.h"

/*
 * One line a format (its registration is tp_format_NAME, in
 * formats/NAME/NAME-format.c).  The order is the order of the probes
 * and of the program lists (tests/cli.sh, scripts/bench, scripts/fuzz).
 */
#define TP_FORMAT_ROWS \
	TP_FORMAT_ROW(trac) \
	TP_FORMAT_ROW(rapidbin) \
	TP_FORMAT_ROW(std) \
	TP_FORMAT_ROW(dial9) \
	TP_FORMAT_ROW(ucir) \
	TP_FORMAT_ROW(wtf)

#define TP_FORMAT_ROW(fmt) extern const struct tp_format tp_format_##fmt;
TP_FORMAT_ROWS
#undef TP_FORMAT_ROW
#define TP_FORMAT_ROW(fmt) &tp_format_##fmt,
const struct tp_format *const tp_formats[] = { TP_FORMAT_ROWS NULL };
#undef TP_FORMAT_ROW

const struct tp_format *
tp_format_find(const char *name)
{
	const struct tp_format *const *f;

	for (f = tp_formats; *f != NULL; f++)
		if (strcmp((*f)->name, name) == 0)
			return *f;
	return NULL;
}

const struct tp_format *
tp_format_probe(const unsigned char *p, size_t n, char *detail,
    size_t detailsz)
{
	const struct tp_format *const *f, *best = NULL;
	int level = TP_PROBE_NO;
	char d[128];

	if (detail != NULL && detailsz > 0)
		detail[0] = '\0';
	for (f = tp_formats; *f != NULL; f++) {
		int v = (*f)->probe(p, n, d, sizeof d);
		if (v > level) {
			level = v;
			best = *f;
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
	const struct tp_format *const *f, *best = NULL;
	int level = TP_PROBE_NO;
	char d[128];

	*tie = NULL;
	for (f = tp_formats; *f != NULL; f++) {
		int v = (*f)->probe(p, n, d, sizeof d);
		if (v == TP_PROBE_NO || v < level)
			continue;
		if (v == level) {
			*tie = *f;
			continue;
		}
		level = v;
		best = *f;
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

int
tp_option_set(const struct tp_option *o, void *target, const char *arg,
    struct tp_err *err)
{
	int one = 1;

	if (o->set != NULL)
		return o->set(target, arg, err);
	memcpy((char *)target + o->flag, &one, sizeof one);
	return 0;
}
