/*
 * split-check FORMAT (-l RECORDS | -b BYTES | -n PIECES) FILE PREFIX
 *
 * A small cutter driving a format module's split entry (formats/split.h)
 * for tests/split-*.sh, so that they test the modules by themselves:
 * pieces PREFIX000000, PREFIX000001, ...; -n cuts at the restart point after
 * each 1/n of the file's bytes.  Faults: the pieces before are kept, one
 * line on stderr with the offset, exit 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "formats/registry.h"
#include "io/input.h"
#include "io/output.h"

struct cut {
	struct tp_out out;
	int open;
	char mode;
	uint64_t arg, size;
	uint64_t first_rec, first_off;	/* of the piece */
	unsigned pieces;
	const char *prefix;
};

static int
restart(struct tp_cutter *c, uint64_t records, uint64_t offset,
    struct tp_err *err)
{
	struct cut *k = c->ctx;
	char path[4096];
	int go = !k->open;

	if (!go) {
		switch (k->mode) {
		case 'l':
			go = records - k->first_rec >= k->arg;
			break;
		case 'b':
			go = offset - k->first_off >= k->arg;
			break;
		case 'n':
			go = offset * k->arg >= (uint64_t)k->size * (k->pieces);
			break;
		}
	}
	if (!go)
		return 0;
	if (k->open && tp_out_close(&k->out, 1, err) < 0)
		return -1;
	snprintf(path, sizeof path, "%s%06u", k->prefix, k->pieces++);
	if (tp_out_open(&k->out, path, 1, err) < 0)
		return -1;
	k->open = 1;
	k->first_rec = records;
	k->first_off = offset;
	c->out = &k->out;
	return 1;
}

int
main(int argc, char **argv)
{
	const struct tp_format *f;
	struct tp_err err;
	struct tp_in in;
	struct cut k;
	struct tp_cutter c;
	struct stat sb;
	int rc;

	if (argc != 6 || argv[2][0] != '-' || strchr("lbn", argv[2][1]) == NULL) {
		fprintf(stderr, "usage: split-check FORMAT -l|-b|-n N FILE "
		    "PREFIX\n");
		return 2;
	}
	if ((f = tp_format_find(argv[1])) == NULL || f->split == NULL) {
		fprintf(stderr, "split-check: %s: no such format or no split\n",
		    argv[1]);
		return 2;
	}
	memset(&k, 0, sizeof k);
	memset(&err, 0, sizeof err);
	k.mode = argv[2][1];
	k.arg = strtoull(argv[3], NULL, 10);
	k.prefix = argv[5];
	if (stat(argv[4], &sb) == 0)
		k.size = (uint64_t)sb.st_size;
	tp_err_clear(&err);
	if (tp_in_open(&in, argv[4], &err) < 0) {
		fprintf(stderr, "split-check: %s: %s\n", argv[4], err.msg);
		return 2;
	}
	c.out = NULL;
	c.restart = restart;
	c.ctx = &k;
	rc = f->split(&in, &c, &err);
	if (k.open) {
		struct tp_err e2;
		tp_err_clear(&e2);
		/* the piece the fault is in is not kept */
		if (tp_out_close(&k.out, rc == 0, &e2) < 0 && rc == 0) {
			fprintf(stderr, "split-check: %s\n", e2.msg);
			return 2;
		}
	}
	if (rc < 0) {
		if (err.offset != TP_NONE)
			fprintf(stderr, "split-check: %s: byte %llu: %s\n",
			    argv[4], (unsigned long long)err.offset, err.msg);
		else
			fprintf(stderr, "split-check: %s: %s\n", argv[4],
			    err.msg);
		return 1;
	}
	printf("%u\n", k.pieces);
	tp_in_close(&in);
	return 0;
}
