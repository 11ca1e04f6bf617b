/*
 * Unit tests of the input and output modules: plain and gzip input read
 * the same, truncated or corrupt gzip is an error, exact reads report
 * truncation with the offset, long lines, and output files that appear
 * only on success.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "io/input.h"
#include "io/output.h"
#include "tap.h"

static unsigned char *
gzip_mem(const void *p, size_t n, size_t *outlen)
{
	z_stream zs;
	size_t cap = n + n / 10 + 1024;
	unsigned char *out = malloc(cap);

	memset(&zs, 0, sizeof zs);
	deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	zs.next_in = (unsigned char *)p;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	deflate(&zs, Z_FINISH);
	*outlen = zs.total_out;
	deflateEnd(&zs);
	return out;
}

/* Read everything through tp_in_read; returns bytes or -1. */
static long
slurp(const void *p, size_t n, unsigned char *dst, size_t cap,
    struct tp_err *err)
{
	struct tp_in in;
	long got;

	tp_err_clear(err);
	tp_in_open_mem(&in, p, n, "m", err);
	got = tp_in_read(&in, dst, cap);
	if (got >= 0 && tp_in_close(&in) < 0)
		return -1;
	if (got < 0)
		tp_in_close(&in);
	return got;
}

int
main(void)
{
	size_t n = 3 * 1000 * 1000, gzn, i;
	unsigned char *data = malloc(n), *back = malloc(n + 16), *gz, *two;
	struct tp_err err;
	struct tp_in in;
	struct tp_out out;
	unsigned char word[8];
	long got;
	char *line;
	size_t len;
	char path[] = "/tmp/tp-io-test.XXXXXX";
	struct stat st;

	for (i = 0; i < n; i++)
		data[i] = (unsigned char)((i * 2654435761u) >> 13);
	data[0] = 0x1f;		/* a plain file that starts like gzip */
	data[1] = 0x00;
	got = slurp(data, n, back, n + 16, &err);
	ok(got == (long)n && memcmp(back, data, n) == 0, "plain input read whole");

	gz = gzip_mem(data, n, &gzn);
	got = slurp(gz, gzn, back, n + 16, &err);
	ok(got == (long)n && memcmp(back, data, n) == 0,
	    "gzip input decoded transparently");

	got = slurp(gz, gzn - 9, back, n + 16, &err);
	ok(got < 0 && err.status == 1 && strstr(err.msg, "truncated gzip") != NULL,
	    "truncated gzip stream is an error: %s", err.msg);

	gz[gzn / 2] ^= 0x55;
	got = slurp(gz, gzn, back, n + 16, &err);
	ok(got < 0 && err.status == 1 && strstr(err.msg, "gzip") != NULL,
	    "corrupt gzip data is an error: %s", err.msg);
	gz[gzn / 2] ^= 0x55;

	/* A bad CRC: every byte inflated is delivered, then the error. */
	gz[gzn - 8] ^= 0x55;
	tp_err_clear(&err);
	tp_in_open_mem(&in, gz, gzn, "m", &err);
	ok(tp_in_exact(&in, back, n, "data") == 1 && memcmp(back, data, n) == 0,
	    "bad gzip CRC: the inflated bytes are delivered first");
	ok(tp_in_exact(&in, word, 1, "data") == -1 && err.offset == n &&
	    strstr(err.msg, "incorrect data check") != NULL,
	    "then the error, at their end: offset %llu: %s",
	    (unsigned long long)err.offset, err.msg);
	tp_in_close(&in);
	gz[gzn - 8] ^= 0x55;

	two = malloc(2 * gzn + 4);
	memcpy(two, gz, gzn);
	memcpy(two + gzn, gz, gzn);
	{
		unsigned char *all = malloc(2 * n);
		got = slurp(two, 2 * gzn, all, 2 * n, &err);
		ok(got == (long)(2 * n) && memcmp(all + n, data, n) == 0,
		    "concatenated gzip members read as one stream");
		memcpy(two + gzn, "junk", 4);
		got = slurp(two, gzn + 4, all, 2 * n, &err);
		ok(got < 0 && strstr(err.msg, "after the end") != NULL,
		    "garbage after gzip data is an error: %s", err.msg);
		free(all);
	}

	/* Exact reads. */
	tp_err_clear(&err);
	tp_in_open_mem(&in, data, 13, "m", &err);
	ok(tp_in_exact(&in, word, 8, "event") == 1 && tp_in_offset(&in) == 8,
	    "exact read and offset");
	ok(tp_in_exact(&in, word, 8, "event") == -1 && err.offset == 8 &&
	    strcmp(err.msg, "truncated event: needed 8 bytes, only 5 left") == 0,
	    "short exact read: %s at %llu", err.msg,
	    (unsigned long long)err.offset);
	tp_in_close(&in);
	tp_err_clear(&err);
	tp_in_open_mem(&in, data, 16, "m", &err);
	tp_in_exact(&in, word, 8, NULL);
	tp_in_exact(&in, word, 8, NULL);
	ok(tp_in_exact(&in, word, 8, NULL) == 0, "clean end of input");
	tp_in_close(&in);

	/* Lines longer than the input block, and offsets across them. */
	{
		size_t big = 3 * TP_IN_BLOCK + 17;
		char *t = malloc(big + 10);
		memset(t, 'x', big);
		memcpy(t + big, "\nab\r\ncd", 7);
		tp_err_clear(&err);
		tp_in_open_mem(&in, t, big + 7, "m", &err);
		ok(tp_in_line(&in, &line, &len) == 1 && len == big,
		    "a line longer than the input block");
		ok(tp_in_line(&in, &line, &len) == 1 && len == 2 &&
		    memcmp(line, "ab", 2) == 0, "CRLF stripped");
		ok(tp_in_offset(&in) == big + 5, "offset after lines");
		ok(tp_in_line(&in, &line, &len) == 1 && len == 2 &&
		    memcmp(line, "cd", 2) == 0, "last line without newline");
		ok(tp_in_line(&in, &line, &len) == 0, "end of lines");
		ok(in.cap == TP_IN_BUF && tp_in_offset(&in) == big + 7,
		    "at the end, the buffer grown for the long line is given "
		    "back, the offset kept");
		ok(tp_in_line(&in, &line, &len) == 0, "end of lines, again");
		tp_in_close(&in);
		free(t);
	}

	/* Output: a named file appears only on success. */
	{
		int fd = mkstemp(path);
		close(fd);
		unlink(path);
		tp_out_open(&out, path, 1, &err);
		tp_out_write(&out, "hello", 5);
		tp_out_flush(&out);
		ok(stat(path, &st) < 0, "output file absent while being written");
		ok(tp_out_seekable(&out), "file output is seekable");
		tp_out_write(&out, " world", 6);
		tp_out_pwrite(&out, "J", 1, 0);
		tp_out_close(&out, 1, &err);
		ok(stat(path, &st) == 0 && st.st_size == 11,
		    "output file renamed into place on success");
		{
			FILE *fp = fopen(path, "r");
			char b[16] = "";
			if (fp) {
				if (fread(b, 1, 11, fp) != 11)
					b[0] = '\0';
				fclose(fp);
			}
			is_str(b, "Jello world", "pwrite at an offset");
		}
		unlink(path);
		tp_out_open(&out, path, 1, &err);
		tp_out_write(&out, "partial", 7);
		tp_out_close(&out, 0, &err);
		ok(stat(path, &st) < 0, "no output file after a failure");
	}
	free(data);
	free(back);
	free(gz);
	free(two);
	return done_testing();
}
