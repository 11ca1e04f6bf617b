/*
 * trac-states: the full register state of every instruction of an x64dbg
 * trace, one line each: "TID DIGEST", where DIGEST is an FNV-1a hash of
 * every slot value as the block's reader reconstructs it (all blocks
 * before it applied).  A decoder of its own, written from the x64dbg
 * reference and not from lib/formats/trac/, so that the tests can compare
 * register states independently of trac2txt.  With -f the line holds the
 * slot values themselves instead of their digest.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *buf;
static size_t len, at;

static int
need(size_t n)
{
	return at + n <= len;
}

static uint64_t
get(unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)buf[at + i] << (8 * i);
	at += n;
	return v;
}

static int
bad(const char *why)
{
	fprintf(stderr, "trac-states: offset %zu: %s\n", at, why);
	return 1;
}

int
main(int argc, char **argv)
{
	uint64_t state[216] = { 0 };
	size_t cap = 1 << 20;
	unsigned ps, nslots, i;
	uint32_t tid = 0;
	int full = argc > 1 && strcmp(argv[1], "-f") == 0;
	size_t n;

	if ((buf = malloc(cap)) == NULL)
		return 2;
	while ((n = fread(buf + len, 1, cap - len, stdin)) > 0) {
		len += n;
		if (len == cap && (buf = realloc(buf, cap *= 2)) == NULL)
			return 2;
	}
	if (len < 8 || memcmp(buf, "TRAC", 4) != 0)
		return bad("not a TRAC file");
	at = 4;
	n = get(4);
	if (!need(n))
		return bad("short header");
	/* The arch from the JSON: "x86" anywhere in it means 4-byte slots. */
	ps = 8;
	for (i = 0; i + 5 <= n; i++)
		if (memcmp(buf + at + i, "\"x86\"", 5) == 0)
			ps = 4;
	nslots = ps == 8 ? 172 : 216;
	at += n;
	while (at < len) {
		unsigned type = buf[at], nreg, nmem, flags, nnew = 0;
		unsigned char pos[216];
		unsigned cur = (unsigned)-1;

		if (type >= 0x80) {
			at++;
			if (!need(4))
				return bad("short user block");
			n = get(4);
			if (!need(n))
				return bad("short user block");
			at += n;
			continue;
		}
		if (type != 0 || !need(4))
			return bad("bad block");
		nreg = buf[at + 1];
		nmem = buf[at + 2];
		flags = buf[at + 3];
		at += 4;
		if (flags & 0x80) {
			if (!need(4))
				return bad("short block");
			tid = (uint32_t)get(4);
		}
		at += flags & 0x0f;
		if (nreg > nslots || !need(nreg))
			return bad("bad register count");
		for (i = 0; i < nreg; i++) {
			cur += 1u + buf[at++];
			if (cur >= nslots)
				return bad("bad position");
			pos[i] = (unsigned char)cur;
		}
		if (!need((size_t)nreg * ps + nmem))
			return bad("short block");
		for (i = 0; i < nreg; i++)
			state[pos[i]] = get(ps);
		for (i = 0; i < nmem; i++)
			nnew += !(buf[at + i] & 1);
		at += nmem;
		if (!need((size_t)(2 * nmem + nnew) * ps))
			return bad("short block");
		at += (size_t)(2 * nmem + nnew) * ps;
		printf("%lu", (unsigned long)tid);
		if (full) {
			for (i = 0; i < nslots; i++)
				printf(" %llx", (unsigned long long)state[i]);
		} else {
			uint64_t h = UINT64_C(14695981039346656037);
			for (i = 0; i < nslots * 8; i++)
				h = (h ^ (state[i / 8] >> (8 * (i % 8)) & 0xff)) *
				    UINT64_C(1099511628211);
			printf(" %016llx", (unsigned long long)h);
		}
		putchar('\n');
	}
	return fflush(stdout) != 0;
}
