/*
 * gen-rapidbin: deterministic synthetic RapidBin traces for the tests and
 * the benchmark.
 *
 *   gen-rapidbin [--events N] [--seed S] [--threads T] [--locks L]
 *       [--vars V] [--locs C] [--ops all|wasmgrind|rw] [--odd] [--header H]
 *
 * --ops all uses operations 0-9, wasmgrind only 0-5 and 8, rw only reads
 * and writes (2 and 3: as many variables as events).  --odd also
 * sets bit 63 and nonzero begin/end/branch decors now and then, and uses
 * values up to the top of each field.  --header distinct (the default)
 * writes the distinct counts as Wasmgrind does, plus1 distinct+1 for
 * locks and variables as the SPD traces have, random any bit pattern
 * (and the sign bit of the event count, which readers clear).
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gen {
	uint64_t events, seed, threads, locks, vars, locs;
	int wasmgrind, odd;	/* wasmgrind: 1, rw: 2 */
	const char *header;
};

static uint64_t
next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static uint64_t
below(uint64_t *s, uint64_t n)
{
	return n ? next(s) % n : 0;
}

static uint64_t
event(const struct gen *g, uint64_t *s)
{
	static const unsigned wasm_ops[] = { 0, 1, 2, 3, 4, 5, 8 };
	/* Weighted like real traces: mostly memory accesses. */
	static const unsigned all_ops[] = { 0, 1, 2, 2, 2, 3, 3, 4, 5, 6, 7, 8,
	    9, 2, 3, 0, 1 };
	uint64_t op, tid, decor, loc, w;

	if (g->wasmgrind == 2)
		op = 2 + below(s, 2);
	else if (g->wasmgrind)
		op = wasm_ops[below(s, sizeof wasm_ops / sizeof *wasm_ops)];
	else
		op = all_ops[below(s, sizeof all_ops / sizeof *all_ops)];
	tid = below(s, g->threads);
	switch (op) {
	case 0: case 1: case 8:
		decor = below(s, g->locks);
		break;
	case 2: case 3:
		decor = below(s, g->vars);
		break;
	case 4: case 5:
		decor = below(s, g->threads);
		break;
	default:
		decor = g->odd && below(s, 4) == 0 ? below(s, 1u << 20) : 0;
	}
	loc = below(s, g->locs);
	w = tid | op << 10 | decor << 14 | loc << 48;
	if (g->odd && below(s, 16) == 0)
		w |= UINT64_C(1) << 63;
	return w;
}

static void
put64(unsigned char *b, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = (unsigned char)v;
}

static void
setbit(unsigned char *map, uint64_t i, uint64_t *count)
{
	if (!(map[i >> 3] & (1u << (i & 7)))) {
		map[i >> 3] |= (unsigned char)(1u << (i & 7));
		(*count)++;
	}
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "events", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "locks", required_argument, NULL, 'l' },
		{ "vars", required_argument, NULL, 'r' },
		{ "locs", required_argument, NULL, 'c' },
		{ "ops", required_argument, NULL, 'o' },
		{ "odd", no_argument, NULL, 'x' },
		{ "header", required_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 }
	};
	struct gen g = { 1000, 1, 8, 16, 1000, 4096, 0, 0, "distinct" };
	unsigned char *tmap, *lmap, *vmap, buf[8 * 4096], hdr[18];
	uint64_t s, i, nt = 0, nl = 0, nv = 0;
	size_t n = 0;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': g.events = strtoull(optarg, NULL, 0); break;
		case 's': g.seed = strtoull(optarg, NULL, 0); break;
		case 't': g.threads = strtoull(optarg, NULL, 0); break;
		case 'l': g.locks = strtoull(optarg, NULL, 0); break;
		case 'r': g.vars = strtoull(optarg, NULL, 0); break;
		case 'c': g.locs = strtoull(optarg, NULL, 0); break;
		case 'o': g.wasmgrind = strcmp(optarg, "wasmgrind") == 0 ? 1 :
			    strcmp(optarg, "rw") == 0 ? 2 : 0; break;
		case 'x': g.odd = 1; break;
		case 'H': g.header = optarg; break;
		default:
			fprintf(stderr, "usage: gen-rapidbin [--events N] "
			    "[--seed S] [--threads T] [--locks L] [--vars V] "
			    "[--locs C] [--ops all|wasmgrind|rw] [--odd] "
			    "[--header distinct|plus1|random]\n");
			return 2;
		}
	}
	if (g.odd) {
		g.threads = 1024;
		g.locs = 32768;
	}
	if (g.threads < 1 || g.threads > 1024 || g.locs > 32768 ||
	    g.locks > (UINT64_C(1) << 34) || g.vars > (UINT64_C(1) << 34) ||
	    g.locks > (UINT64_C(1) << 30) || g.vars > (UINT64_C(1) << 30)) {
		fprintf(stderr, "gen-rapidbin: a count is out of range\n");
		return 2;
	}
	if (isatty(1)) {
		fprintf(stderr, "gen-rapidbin: not writing binary to a "
		    "terminal\n");
		return 2;
	}
	/* First pass: the distinct counts for the header. */
	tmap = calloc(1024 / 8 + 1, 1);
	lmap = calloc(g.locks / 8 + 1, 1);
	vmap = calloc(g.vars / 8 + 1, 1);
	if (tmap == NULL || lmap == NULL || vmap == NULL)
		return 2;
	s = g.seed;
	for (i = 0; i < g.events; i++) {
		uint64_t w = event(&g, &s), op = w >> 10 & 15,
		    d = w >> 14 & 0x3ffffffffu;
		setbit(tmap, w & 1023, &nt);
		if (op == 0 || op == 1 || op == 8)
			setbit(lmap, d, &nl);
		else if (op == 2 || op == 3)
			setbit(vmap, d, &nv);
		else if (op == 4 || op == 5)
			setbit(tmap, d, &nt);
	}
	if (strcmp(g.header, "plus1") == 0) {
		nl++;
		nv++;
	}
	hdr[0] = (unsigned char)(nt >> 8);
	hdr[1] = (unsigned char)nt;
	for (int k = 0; k < 4; k++) {
		hdr[2 + k] = (unsigned char)(nl >> (24 - 8 * k));
		hdr[6 + k] = (unsigned char)(nv >> (24 - 8 * k));
	}
	put64(hdr + 10, g.events);
	if (strcmp(g.header, "random") == 0) {
		uint64_t r = g.seed ^ 0x5555;
		for (int k = 0; k < 10; k++)
			hdr[k] = (unsigned char)next(&r);
		hdr[10] |= 0x80;	/* the event count's sign bit */
	}
	fwrite(hdr, 1, sizeof hdr, stdout);
	s = g.seed;
	for (i = 0; i < g.events; i++) {
		put64(buf + n, event(&g, &s));
		n += 8;
		if (n == sizeof buf) {
			fwrite(buf, 1, n, stdout);
			n = 0;
		}
	}
	fwrite(buf, 1, n, stdout);
	free(tmap);
	free(lmap);
	free(vmap);
	return fflush(stdout) != 0 || ferror(stdout) ? 2 : 0;
}
