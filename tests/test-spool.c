/*
 * Unit tests of the spool: records of every length, at, below and far
 * above the memory part, read back whole and in order after each of
 * several rewinds, in memory and through the temporary file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/spool.h"
#include "tap.h"

/* The bytes of record i are a function of i: checkable without a copy. */
static unsigned char
byte_of(uint64_t i, size_t j)
{
	return (unsigned char)(i * 131 + j * 7 + (i >> 8));
}

static void
make(unsigned char *b, uint64_t i, size_t n)
{
	for (size_t j = 0; j < n; j++)
		b[j] = byte_of(i, j);
}

/* Put count records of lengths len(i); 0 or -1. */
static int
put_all(struct tp_spool *s, uint64_t count, size_t (*len)(uint64_t),
    unsigned char *scratch)
{
	for (uint64_t i = 0; i < count; i++) {
		size_t n = len(i);
		make(scratch, i, n);
		if (tp_spool_put(s, scratch, n) < 0)
			return -1;
	}
	return 0;
}

/*
 * Rewind and read everything back: the number of records read in the
 * right order with the right bytes, or -1 at the first wrong one.
 */
static int64_t
check_all(struct tp_spool *s, uint64_t count, size_t (*len)(uint64_t))
{
	const unsigned char *p;
	uint64_t i = 0;
	size_t n;
	int rc;

	if (tp_spool_rewind(s) < 0)
		return -1;
	while ((rc = tp_spool_get(s, &p, &n)) > 0) {
		if (i >= count || n != len(i))
			return -1;
		for (size_t j = 0; j < n; j++)
			if (p[j] != byte_of(i, j))
				return -1;
		i++;
	}
	return rc < 0 ? -1 : (int64_t)i;
}

static size_t cur_mem, cur_fixed;

static size_t
len_fixed(uint64_t i)
{
	(void)i;
	return cur_fixed;
}

/* 0 to 300 bytes: one- and two-byte lengths, records across the edges. */
static size_t
len_mixed(uint64_t i)
{
	return (size_t)((i * 2654435761u) >> 7) % 301;
}

/* Mostly short, now and then longer than the whole memory part. */
static size_t
len_huge(uint64_t i)
{
	return i % 97 == 5 ? 3 * cur_mem + i % 13 : (size_t)(i % 40);
}

/* Short records as an encoder spools them (rapidbin: 3 to 20 bytes). */
static size_t
len_small(uint64_t i)
{
	return 3 + (size_t)((i ^ (i >> 5)) % 18);
}

static void
scenario(const char *what, size_t mem, uint64_t count,
    size_t (*len)(uint64_t), int want_file, int rewinds)
{
	struct tp_spool s;
	struct tp_err err;
	unsigned char *scratch = malloc(4 * (mem ? mem : TP_SPOOL_CAP) + 64);
	int good = 1;

	tp_err_clear(&err);
	cur_mem = mem ? mem : TP_SPOOL_CAP;
	if (scratch == NULL || tp_spool_init(&s, mem, &err) < 0) {
		ok(0, "%s: set up (%s)", what, err.msg);
		free(scratch);
		return;
	}
	if (put_all(&s, count, len, scratch) < 0) {
		ok(0, "%s: put (%s)", what, err.msg);
		goto out;
	}
	ok(s.records == count, "%s: %llu records put", what,
	    (unsigned long long)count);
	for (int r = 1; r <= rewinds; r++) {
		int64_t got = check_all(&s, count, len);
		if (got != (int64_t)count) {
			good = 0;
			ok(0, "%s: pass %d read %lld of %llu records (%s)",
			    what, r, (long long)got, (unsigned long long)count,
			    err.msg);
		}
	}
	if (good)
		ok(1, "%s: %d passes read every record, in order, byte for "
		    "byte, none twice", what, rewinds);
	if (want_file >= 0)
		ok((s.fd >= 0) == want_file, "%s: %s", what, want_file ?
		    "spilled into the file" : "stayed in memory");
	ok(tp_spool_put(&s, "x", 1) < 0 && err.status == TP_EXIT_FAIL,
	    "%s: a put after the rewind is refused", what);
out:
	tp_spool_free(&s);
	free(scratch);
}

int
main(void)
{
	static const size_t mems[] = { 64, 1024, 4096 };
	char name[160];

	for (size_t m = 0; m < sizeof mems / sizeof mems[0]; m++) {
		size_t mem = mems[m];
		/* 15 bytes and their length: mem / 16 fill it exactly. */
		cur_fixed = 15;
		for (int d = -1; d <= 1; d++) {
			uint64_t count = mem / 16 + (uint64_t)(int64_t)d;
			snprintf(name, sizeof name, "mem %zu, %llu records of "
			    "16 bytes (%s the memory part)", mem,
			    (unsigned long long)count, d < 0 ? "below" :
			    d == 0 ? "exactly" : "one above");
			scenario(name, mem, count, len_fixed, d > 0, 3);
		}
		cur_fixed = 0;
		snprintf(name, sizeof name, "mem %zu, empty records", mem);
		scenario(name, mem, 5 * mem, len_fixed, 1, 3);
		cur_fixed = mem - 2;
		snprintf(name, sizeof name, "mem %zu, records of mem-2 bytes", mem);
		scenario(name, mem, 7, len_fixed, 1, 3);
		cur_fixed = mem + 1;
		snprintf(name, sizeof name, "mem %zu, records of mem+1 bytes", mem);
		scenario(name, mem, 7, len_fixed, 1, 3);
		snprintf(name, sizeof name, "mem %zu, 0-300 byte records, "
		    "far above", mem);
		scenario(name, mem, 20000, len_mixed, 1, 4);
		snprintf(name, sizeof name, "mem %zu, records 3x the memory "
		    "part among short ones", mem);
		scenario(name, mem, 2000, len_huge, 1, 3);
	}
	scenario("no records at all", 64, 0, len_fixed, 0, 2);
	scenario("default memory part, 3 M short records", 0, 3000000,
	    len_small, 1, 3);
	cur_fixed = 100;
	scenario("default memory part, below it", 0, TP_SPOOL_CAP / 101,
	    len_fixed, 0, 3);

	/* The temporary file's directory is named when it is unusable. */
	{
		struct tp_spool s;
		struct tp_err err;
		unsigned char b[100] = { 0 };
		int rc = 0;

		setenv("TMPDIR", "/nonexistent/spool-dir", 1);
		tp_err_clear(&err);
		tp_spool_init(&s, 64, &err);
		for (int i = 0; i < 10 && rc == 0; i++)
			rc = tp_spool_put(&s, b, 30);
		ok(rc < 0 && err.status == TP_EXIT_FAIL &&
		    strstr(err.msg, "/nonexistent/spool-dir") != NULL,
		    "an unusable $TMPDIR is an error naming it: %s", err.msg);
		tp_spool_free(&s);
		unsetenv("TMPDIR");
	}
	return done_testing();
}
