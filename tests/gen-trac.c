/*
 * gen-trac (installed as trac-sample): write a synthetic x64dbg trace
 * file to standard output,
 * following x64dbg's writer (TraceRecord.cpp, see the x64dbg reference):
 *
 * - block N holds the registers as they were before instruction N, at the
 *   positions that N changes or that N-1 changed, so blocks list some
 *   unchanged values too, and two "jmp $" in a row give an empty block;
 * - a full dump opens every session and every 512th block after it; the
 *   sessions are appended without a new header;
 * - flag 0x80 and the thread id: the fixed writer (PR #3920) stores both
 *   when the thread changes after N, when it changed after N-1, and on
 *   full dumps; with --tid-bug the old writer leaves the flag clear in the
 *   second case;
 * - padding slots hold stack garbage; 0 to 32 memory accesses, read
 *   (unchanged, flag bit 0) or written, full pointer-sized values;
 * - --user-blocks adds blocks 0x80-0xff (u32 length, payload) as plugins
 *   do, --big-user N one of N bytes after the first block; --quirks adds what no x64dbg writes but a file may hold (reserved
 *   flag bits, memory flag bits, thread ids stored without need).
 *
 * Deterministic for a seed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rng.h"

#define MAX_SLOTS 216

struct arch {
	const char *name;
	unsigned ps, nslots, cip, flags;
	const unsigned char *pad;	/* padding slots, 0-terminated list */
	unsigned npad;
};

static const unsigned char x64_pad[] = { 19, 36, 137, 138, 141, 143, 146,
    148, 151, 153, 156, 157, 169 };
static const unsigned char x86_pad[] = { 40, 47, 146, 149, 154, 159, 164,
    169, 174, 179, 184, 187, 211 };
static const struct arch x64 = { "x64", 8, 172, 16, 17, x64_pad, 13 };
static const struct arch x86 = { "x86", 4, 216, 8, 9, x86_pad, 13 };

static int
chance(unsigned percent)
{
	return below(1000) < percent * 10;
}

static unsigned char obuf[4096];
static size_t olen;
static uint64_t total;

static void
put(const void *p, size_t n)
{
	memcpy(obuf + olen, p, n);
	olen += n;
}

static void
put8(unsigned v)
{
	obuf[olen++] = (unsigned char)v;
}

static void
put32(uint32_t v)
{
	put8(v & 0xff);
	put8(v >> 8 & 0xff);
	put8(v >> 16 & 0xff);
	put8(v >> 24);
}

static void
putptr(uint64_t v, unsigned ps)
{
	put32((uint32_t)v);
	if (ps == 8)
		put32((uint32_t)(v >> 32));
}

static void
flush_block(void)
{
	if (fwrite(obuf, 1, olen, stdout) != olen) {
		perror("gen-trac: write");
		exit(2);
	}
	total += olen;
	olen = 0;
}

/* A plausible value for a slot: pointers, small numbers, garbage. */
static uint64_t
value(const struct arch *a)
{
	uint64_t mask = a->ps == 8 ? UINT64_MAX : 0xffffffffu;

	switch (below(4)) {
	case 0:
		return below(256);
	case 1:
		return (a->ps == 8 ? UINT64_C(0x7ff600000000) : 0x00400000) +
		    (rnd() & 0xffff8);
	case 2:
		return (a->ps == 8 ? UINT64_C(0x14f000) : 0x19f000) +
		    (rnd() & 0xff8);
	default:
		return rnd() & mask;
	}
}

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static const char *progname = "gen-trac";

static void
usage(void)
{
	fprintf(stderr, "Usage: %s [--arch x64|x86] [--blocks N] [--seed S] "
	    "[--threads T] [--sessions K] [--user-blocks] [--big-user N] "
	    "[--tid-bug] [--quirks] [--size-mb M]\n", progname);
	exit(2);
}

/* The last value given to opt (what the user typed). */
static const char *
argv_value(int argc, char **argv, const char *opt)
{
	const char *v = "";
	int i;

	for (i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], opt) == 0)
			v = argv[i + 1];
	return v;
}

/* Say which option's value is wrong, then the usage line. */
static void
bad_value(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "%s: %s: '%s' is not %s\n", progname, opt, val, want);
	usage();
}

static unsigned long long
num(int argc, char **argv, int *i)
{
	const char *opt = argv[*i];
	char *end;
	unsigned long long v;

	if (*i + 1 >= argc) {
		fprintf(stderr, "%s: %s needs a value\n", progname, opt);
		usage();
	}
	/* strtoull takes "-5" for 2^64-5: a count is never negative. */
	if (argv[++*i][0] == '-' || argv[*i][0] == '\0')
		bad_value(opt, argv[*i], "a number of 0 or more");
	v = strtoull(argv[*i], &end, 0);
	if (*end != '\0')
		bad_value(opt, argv[*i], "a number of 0 or more");
	return v;
}

int
main(int argc, char **argv)
{
	const struct arch *a = &x64;
	unsigned long long blocks = 100, seed = 1, size_mb = 0, big_user = 0;
	unsigned threads = 1, sessions = 1, user = 0, tidbug = 0, quirks = 0;
	uint64_t state[MAX_SLOTS], tids[16], hash;
	unsigned char changed[MAX_SLOTS], prevchanged[MAX_SLOTS];
	char json[256];
	unsigned long long n, session_end = 0;
	unsigned session = 0, count = 0, cur = 0, next = 0, need = 0;
	unsigned jmpself = 0, i, shift;
	int len;

	if (argc > 0 && (progname = strrchr(argv[0], '/')) != NULL)
		progname++;
	else if (argc > 0)
		progname = argv[0];
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		printf("Usage: %s [--arch x64|x86] [--blocks N] [--seed S] "
		    "[--threads T] [--sessions K] [--user-blocks] "
		    "[--big-user N] [--tid-bug] [--quirks] [--size-mb M]\n"
		    "Write a synthetic x64dbg trace file (TRAC) to standard "
		    "output, as x64dbg's\nwriter makes them; the same for the "
		    "same options.  See %s(1).\n", progname, progname);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		printf("%s (tracepipe) %s\n", progname, PACKAGE_VERSION);
		return 0;
	}
	for (i = 1; i < (unsigned)argc; i++) {
		const char *o = argv[i];
		int k = (int)i;
		if (strcmp(o, "--arch") == 0 && k + 1 < argc) {
			o = argv[++i];
			if (strcmp(o, "x64") == 0)
				a = &x64;
			else if (strcmp(o, "x86") == 0)
				a = &x86;
			else
				bad_value("--arch", o, "x64 or x86");
			continue;
		}
		if (strcmp(o, "--blocks") == 0)
			blocks = num(argc, argv, &k);
		else if (strcmp(o, "--seed") == 0)
			seed = num(argc, argv, &k);
		else if (strcmp(o, "--threads") == 0)
			threads = (unsigned)num(argc, argv, &k);
		else if (strcmp(o, "--sessions") == 0)
			sessions = (unsigned)num(argc, argv, &k);
		else if (strcmp(o, "--size-mb") == 0)
			size_mb = num(argc, argv, &k);
		else if (strcmp(o, "--big-user") == 0)
			big_user = num(argc, argv, &k);
		else if (strcmp(o, "--user-blocks") == 0)
			user = 1;
		else if (strcmp(o, "--tid-bug") == 0)
			tidbug = 1;
		else if (strcmp(o, "--quirks") == 0)
			quirks = 1;
		else {
			fprintf(stderr, "%s: unknown option '%s'\n", progname,
			    o);
			usage();
		}
		i = (unsigned)k;
	}
	if (threads < 1 || threads > 16)
		bad_value("--threads", argv_value(argc, argv, "--threads"),
		    "a number from 1 to 16");
	if (sessions < 1)
		bad_value("--sessions", "0", "a number of 1 or more");
	if (isatty(STDOUT_FILENO)) {
		fprintf(stderr, "%s: a binary trace is not written to a "
		    "terminal; redirect standard output\n", progname);
		exit(2);
	}
	rng_state = seed;
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);

	for (i = 0; i < threads; i++)
		tids[i] = 0x1000 + 4 * i + 4 * below(0x400) * 16;
	/* Two draws, in a fixed order (not as unsequenced arguments). */
	hash = rnd();
	shift = (unsigned)below(40);
	hash >>= shift;
	len = snprintf(json, sizeof json, "{\"ver\":1,\"arch\":\"%s\","
	    "\"hashAlgorithm\":\"murmurhash\",\"hash\":\"0x%llX\","
	    "\"compression\":\"\",\"path\":\"C:\\\\work\\\\gen-%llu.exe\"}",
	    a->name, (unsigned long long)hash, seed);
	put("TRAC", 4);
	put32((uint32_t)len);
	put(json, (size_t)len);
	flush_block();

	for (n = 0;; n++) {
		uint64_t pc;
		unsigned nreg = 0, nmem, oplen, flags, writetid, full;
		unsigned char pos[MAX_SLOTS];
		unsigned char op[15];

		if (size_mb ? total >= size_mb * 1048576ULL : n >= blocks)
			break;
		if (n == session_end) {
			/* A new recording: state, counters and threads reset. */
			for (i = 0; i < a->nslots; i++) {
				state[i] = value(a);
				prevchanged[i] = 1;
			}
			state[a->cip] = a->ps == 8 ? UINT64_C(0x7ff6a0001000) :
			    0x401000;
			session++;
			session_end = size_mb ? UINT64_MAX :
			    blocks * session / sessions;
			count = 0;
			need = 0;
			cur = below(threads);
		}
		if (n == 1 && big_user > 0) {
			unsigned long long u;
			put8(0x80 + below(128));
			put32((uint32_t)big_user);
			flush_block();
			for (u = 0; u < big_user; u++) {
				put8((unsigned)(rnd() & 0xff));
				if (olen == sizeof obuf)
					flush_block();
			}
			flush_block();
		}
		if (user && chance(4)) {
			unsigned ulen = below(6) == 0 ? 0 : below(300);
			put8(0x80 + below(128));
			put32(ulen);
			for (i = 0; i < ulen; i++)
				put8(below(256));
			flush_block();
		}

		/* Instruction N: what it changes, and who runs N+1. */
		memset(changed, 0, sizeof changed);
		next = threads > 1 && chance(8) ? below(threads) : cur;
		if (jmpself > 0) {
			jmpself--;	/* "jmp $": nothing changes */
		} else if (chance(2)) {
			jmpself = 1;
		} else {
			changed[a->cip] = 1;
			if (chance(60))
				changed[below(a->ps == 8 ? 16 : 8)] = 1;
			if (chance(30))
				changed[below(a->ps == 8 ? 16 : 8)] = 1;
			if (chance(40))
				changed[a->flags] = 1;
			if (chance(10))
				changed[below(a->nslots)] = 1;
			if (chance(15))
				changed[a->pad[below(a->npad)]] = 1;
			if (next != cur)
				for (i = 0; i < 8; i++)
					changed[below(a->nslots)] = 1;
		}
		full = count % 512 == 0;
		for (i = 0; i < a->nslots; i++)
			if (full || changed[i] || prevchanged[i])
				pos[nreg++] = (unsigned char)i;

		/* The thread id, as the fixed or the buggy writer stores it. */
		writetid = next != cur || need || full;
		flags = (tidbug ? next != cur || full : writetid) ? 0x80 : 0;
		if (quirks && !writetid && chance(3))
			writetid = 1, flags = 0x80;
		if (quirks && full && count > 0 && chance(20))
			writetid = 0, flags = 0;
		need = next != cur;

		oplen = jmpself > 0 || (changed[a->cip] == 0 && nreg == 0) ? 2 :
		    1 + below(chance(90) ? 7 : 15);
		for (i = 0; i < oplen; i++)
			op[i] = (unsigned char)below(256);
		if (quirks && chance(2))
			flags |= 0x10u << below(3);
		nmem = chance(45) ? 0 : chance(5) ? 32 : chance(85) ?
		    1 + below(3) : below(33);

		put8(0);
		put8(nreg);
		put8(nmem);
		put8(flags | oplen);
		if (writetid)
			put32((uint32_t)tids[cur]);
		put(op, oplen);
		for (i = 0; i < nreg; i++)
			put8(i == 0 ? pos[0] : pos[i] - pos[i - 1] - 1u);
		for (i = 0; i < nreg; i++)
			putptr(state[pos[i]], a->ps);
		{
			unsigned char mf[32];
			uint64_t old[32];
			for (i = 0; i < nmem; i++) {
				mf[i] = chance(50) ? 1 : 0;
				if (quirks && chance(3))
					mf[i] |= (unsigned char)(2u << below(7));
				put8(mf[i]);
			}
			for (i = 0; i < nmem; i++)
				putptr(value(a) & ~(uint64_t)(a->ps - 1), a->ps);
			for (i = 0; i < nmem; i++)
				putptr(old[i] = value(a), a->ps);
			for (i = 0; i < nmem; i++)
				if (!(mf[i] & 1))
					putptr(old[i] ^ (1 + below(0xffff)),
					    a->ps);
		}
		flush_block();

		/* Registers before N+1. */
		pc = state[a->cip];
		for (i = 0; i < a->nslots; i++)
			if (changed[i])
				state[i] = value(a);
		if (changed[a->cip])
			state[a->cip] = chance(85) ? pc + oplen :
			    (a->ps == 8 ? UINT64_C(0x7ff6a0000000) : 0x400000) +
			    (rnd() & 0xfffff);
		if (a->ps == 4)
			state[a->cip] &= 0xffffffffu;
		memcpy(prevchanged, changed, sizeof changed);
		cur = next;
		count++;
	}
	if (fflush(stdout) != 0) {
		perror("gen-trac: write");
		return 2;
	}
	return 0;
}
