/*
 * gen-wtf: deterministic synthetic Web Tracing Framework traces for the
 * tests and the benchmark, written byte by byte from the format reference
 * (independently of lib/formats/wtf/).
 *
 *   gen-wtf [--legacy] [--records N | --size-mb M] [--seed S] [--zones Z]
 *       [--chunk BYTES] [--quirks] [--count]
 *
 * Every argument type and array type of the generation (char and wchar
 * only in v10), the signature aliases, scope and instance classes, zones
 * created and switched, nested scopes, null, empty and non-ASCII strings,
 * float NaN payloads.  v10 chunks alternate JS-style string tables (one
 * entry per use) and C++-style ones (each string once).  --quirks adds
 * what writers leave or readers tolerate: nonzero slot and part padding,
 * sign-extended sub-word slots, redefined wire ids, a name defined under
 * two wire ids, times that go backwards, resource parts, unknown part and
 * chunk types, a legacy utf8 count that differs from its bytes and a
 * CESU-8 surrogate pair.  --count prints the number of records (events
 * and definitions) instead of the trace.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t seed = 1;

static uint64_t
rnd(void)
{
	uint64_t z = (seed += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static unsigned
below(unsigned n)
{
	return n ? (unsigned)(rnd() % n) : 0;
}

struct buf {
	unsigned char *b;
	size_t len, cap;
};

static void
add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		while (b->len + n > b->cap)
			b->cap = b->cap ? 2 * b->cap : 65536;
		if ((b->b = realloc(b->b, b->cap)) == NULL) {
			perror("gen-wtf");
			exit(2);
		}
	}
	memcpy(b->b + b->len, p, n);
	b->len += n;
}

static int legacy, quirks;
static struct buf out, ev, tab;
static size_t flushed;	/* bytes of out already written */
static unsigned nstr, unique_tab;
static uint32_t now = 1000;

static void
be16(struct buf *b, unsigned v)
{
	unsigned char c[2] = { (unsigned char)(v >> 8), (unsigned char)v };
	add(b, c, 2);
}

static void
be32(struct buf *b, uint32_t v)
{
	unsigned char c[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16),
	    (unsigned char)(v >> 8), (unsigned char)v };
	add(b, c, 4);
}

static void
le32(struct buf *b, uint32_t v)
{
	unsigned char c[4] = { (unsigned char)v, (unsigned char)(v >> 8),
	    (unsigned char)(v >> 16), (unsigned char)(v >> 24) };
	add(b, c, 4);
}

static void
u32(uint32_t v)
{
	if (legacy)
		be32(&ev, v);
	else
		le32(&ev, v);
}

/* A sub-word value in a v10 slot: its bytes, then the padding. */
static void
slot(uint32_t v, unsigned size, int sign)
{
	unsigned char c[4];

	for (unsigned i = 0; i < 4; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	for (unsigned i = size; i < 4; i++)
		c[i] = sign && quirks && (c[size - 1] & 0x80) ? 0xff :
		    quirks && below(8) == 0 ? (unsigned char)below(256) : 0;
	add(&ev, c, 4);
}

/* A string: legacy inline (ascii or utf8), v10 by string-table ordinal. */
static void
str(const char *s, int utf8)
{
	size_t n = s ? strlen(s) : 0;

	if (legacy) {
		unsigned units = 0;
		for (size_t i = 0; i < n; i++)
			units += ((unsigned char)s[i] & 0xc0) != 0x80;
		if (n == 0) {
			be16(&ev, 0);
		} else if (!utf8) {
			be16(&ev, (unsigned)n);
			add(&ev, s, n);
		} else {
			be16(&ev, units);
			be16(&ev, (unsigned)n);
			add(&ev, s, n);
		}
		return;
	}
	if (s == NULL) {
		le32(&ev, 0xffffffffu);
		return;
	}
	if (n == 0) {
		le32(&ev, 0xfffffffeu);
		return;
	}
	if (unique_tab) {
		/* each string once: find it */
		size_t off = 0;
		for (unsigned k = 0; k < nstr; k++) {
			size_t l = strlen((char *)tab.b + off);
			if (l == n && memcmp(tab.b + off, s, n) == 0) {
				le32(&ev, k);
				return;
			}
			off += l + 1;
		}
	}
	add(&tab, s, n + 1);
	le32(&ev, nstr++);
}

static unsigned long long nrec;	/* records written */
static int count_only;

static void
flush_out(void)
{
	if (!count_only)
		fwrite(out.b, 1, out.len, stdout);
	flushed += out.len;
	out.len = 0;
}

static void
head(unsigned wire, uint32_t time)
{
	nrec++;
	if (legacy)
		be16(&ev, wire);
	else
		le32(&ev, wire);
	u32(time);
}

static void
define(unsigned wire, unsigned cls, unsigned flags, const char *name,
    const char *args)
{
	head(1, now);
	if (legacy) {
		be16(&ev, wire);
		be16(&ev, cls);
		be32(&ev, flags);
	} else {
		slot(wire, 2, 0);
		slot(cls, 2, 0);
		le32(&ev, flags);
	}
	str(name, 0);
	str(args, 0);
}

static const char *const builtin[][3] = {
	{ "wtf.event#define", "40",
	    "uint16 wireId, uint16 eventClass, uint32 flags, ascii name, ascii args" },
	{ "wtf.trace#discontinuity", "32", NULL },
	{ "wtf.zone#create", "40", "uint16 zoneId, ascii name, ascii type, ascii location" },
	{ "wtf.zone#delete", "40", "uint16 zoneId" },
	{ "wtf.zone#set", "40", "uint16 zoneId" },
	{ "wtf.scope#enter", "32", "ascii name" },
	{ "wtf.scope#enterTracing", "44", NULL },
	{ "wtf.scope#leave", "40", NULL },
	{ "wtf.scope#appendData", "56", "ascii name, any value" },
	{ "wtf.flow#branch", "40", "flowId id, flowId parentId, ascii name, any value" },
	{ "wtf.flow#extend", "40", "flowId id, ascii name, any value" },
	{ "wtf.flow#terminate", "40", "flowId id, any value" },
};
enum { W_DEFINE = 1, W_ZCREATE = 3, W_ZSET = 5, W_ENTER = 6, W_LEAVE = 8,
	W_APPEND = 9, W_BRANCH = 10, W_SCALARS = 29, W_ARRAYS, W_SCOPE,
	W_ALIAS, W_NAMED, W_EMPTY, W_CHARS, W_TWIN };

static const char *const words[] = {
	"alpha", "", "h\xc3\xa9llo \xe2\x98\x83", "tab\there", "q\"uote",
	"{\"k\":[1,\"two\",null]}", "label0", "label1", NULL, "x y",
};

static const char *
word(void)
{
	return words[below(sizeof words / sizeof words[0])];
}

static void
defines(void)
{
	for (unsigned w = 0; w < sizeof builtin / sizeof builtin[0]; w++)
		define(w + 1, strcmp(builtin[w][0], "wtf.scope#enter") == 0 ||
		    strcmp(builtin[w][0], "wtf.scope#enterTracing") == 0,
		    (unsigned)atoi(builtin[w][1]), builtin[w][0], builtin[w][2]);
	define(W_SCALARS, 0, 0, "test#scalars", "bool b, int8 i8, uint8 u8, "
	    "int16 i16, uint16 u16, int32 i32, uint32 u32, float32 f, ascii a, "
	    "utf8 u, any x, flowId fl, time32 t");
	define(W_ARRAYS, 0, 0, "test#arrays", "int8[] ai8, uint8[] au8, "
	    "int16[] ai16, uint16[] au16, int32[] ai32, uint32[] au32, "
	    "float32[] af");
	define(W_SCOPE, 1, 0, "test#scope", "uint32 n");
	define(W_ALIAS, 0, 2, "test#alias", "byte a, octet b, short c, "
	    "unsigned short d, long e, unsigned long f, float g, DOMString h, "
	    "sequence<uint8> i");
	define(W_NAMED, 0, 0, "test#named", "ascii name, uint32 time");
	define(W_EMPTY, 0, 0, "test#empty", NULL);
	if (!legacy)
		define(W_CHARS, 0, 0, "test#chars", "char c, wchar w, char[] ca, "
		    "wchar[] wa");
	if (quirks) {
		/* a name under two wire ids, and a wire id redefined */
		define(W_TWIN, 0, 0, "test#scope", "uint32 n");
		define(W_TWIN + 1, 0, 0, "test#gone", "uint8 v");
		define(W_TWIN + 1, 0, 0, "test#again", "int16 v, ascii s");
	}
}

static void
zone_create(unsigned z)
{
	char name[32];

	snprintf(name, sizeof name, "zone%u", z);
	head(W_ZCREATE, now);
	if (legacy)
		be16(&ev, z);
	else
		slot(z, 2, 0);
	str(name, 0);
	str("script", 0);
	str(z % 2 ? NULL : "http://x/z.js", 0);
}

static void
zone_set(unsigned z)
{
	head(W_ZSET, now);
	if (legacy)
		be16(&ev, z);
	else
		slot(z, 2, 0);
}

static void
scalar(unsigned size, uint32_t v, int sign)
{
	if (legacy) {
		if (size == 1)
			add(&ev, &(unsigned char){ (unsigned char)v }, 1);
		else if (size == 2)
			be16(&ev, v);
		else
			be32(&ev, v);
	} else if (size < 4) {
		slot(v, size, sign);
	} else {
		le32(&ev, v);
	}
}

static void
f32(uint32_t bits)
{
	le32(&ev, bits);	/* little-endian in both generations */
}

static uint32_t
some_float(void)
{
	static const uint32_t f[] = { 0x3fc00000, 0x00000000, 0x80000000,
	    0x7fc00000, 0x7f800001, 0xff812345, 0x7f800000, 0xc2f6e979,
	    0x3eaaaaab, 0x00000001 };
	return f[below(sizeof f / sizeof f[0])];
}

static void
array(unsigned size, unsigned n, int isfloat)
{
	size_t bytes = (size_t)n * size;

	if (!legacy && n == 0 && below(3) == 0) {
		le32(&ev, 0xffffffffu);		/* null */
		return;
	}
	u32(n);
	for (unsigned i = 0; i < n; i++) {
		uint32_t v = (uint32_t)rnd();
		if (isfloat)
			f32(some_float());
		else if (size == 1)
			add(&ev, &(unsigned char){ (unsigned char)v }, 1);
		else if (size == 2)
			legacy ? be16(&ev, v & 0xffff) :
			    add(&ev, (unsigned char[]){ (unsigned char)v,
			    (unsigned char)(v >> 8) }, 2);
		else
			u32(v);
	}
	if (!legacy)
		while (bytes++ % 4 != 0)
			add(&ev, &(unsigned char){ quirks && below(4) == 0 ?
			    0x5a : 0 }, 1);
}

static unsigned depth, zones = 3, zone;

static void
record(void)
{
	unsigned k = below(quirks ? 12 : 11);

	now += below(50);
	if (quirks && below(200) == 0)
		now -= 2000;	/* backwards */
	switch (k) {
	case 0:
		head(W_SCALARS, now);
		scalar(1, below(2), 0);
		scalar(1, (uint32_t)rnd(), 1);
		scalar(1, (uint32_t)rnd(), 0);
		scalar(2, (uint32_t)rnd(), 1);
		scalar(2, (uint32_t)rnd(), 0);
		scalar(4, (uint32_t)rnd(), 1);
		scalar(4, (uint32_t)rnd(), 0);
		f32(some_float());
		str(word(), 0);
		str(word(), 1);
		str(below(2) ? "{\"v\":1}" : NULL, 1);
		scalar(4, below(5), 0);
		scalar(4, (uint32_t)rnd(), 0);
		break;
	case 1:
		head(W_ARRAYS, now);
		array(1, below(6), 0);
		array(1, below(6), 0);
		array(2, below(4), 0);
		array(2, below(4), 0);
		array(4, below(3), 0);
		array(4, below(3), 0);
		array(4, below(3), 1);
		break;
	case 2: case 3:
		if (below(2)) {
			head(W_SCOPE, now);
			scalar(4, depth, 0);
		} else {
			head(W_ENTER, now);
			str(word(), 0);
		}
		depth++;
		break;
	case 4: case 5:
		if (depth == 0)
			goto empty;
		head(W_LEAVE, now);
		depth--;
		break;
	case 6:
		head(W_ALIAS, now);
		scalar(1, (uint32_t)rnd(), 1);
		scalar(1, (uint32_t)rnd(), 0);
		scalar(2, (uint32_t)rnd(), 1);
		scalar(2, (uint32_t)rnd(), 0);
		scalar(4, (uint32_t)rnd(), 1);
		scalar(4, (uint32_t)rnd(), 0);
		f32(some_float());
		str(word(), 1);
		array(1, below(5), 0);
		break;
	case 7:
		head(W_NAMED, now);
		str(word(), 0);
		scalar(4, now, 0);
		break;
	case 8:
		zone = below(zones);
		zone_set(zone);
		break;
	case 9:
		if (!legacy) {
			static const char *const w[] = { "\xc3\xa9\xe2\x98\x83",
			    "\xf0\x9f\x98\x80", "abc", "" };
			unsigned i = below(4);
			head(W_CHARS, now);
			slot(0x41 + below(26), 1, 0);
			slot(i == 0 ? 0x2603 : 0xd83d, 2, 0);
			le32(&ev, 3);
			add(&ev, "xyz\0", 4);
			if (i == 3) {
				le32(&ev, below(2) ? 0xffffffffu : 0);
			} else if (i == 1) {
				le32(&ev, 2);
				add(&ev, "\x3d\xd8\x00\xde", 4);
			} else {
				(void)w;
				le32(&ev, 3);
				add(&ev, "\xe9\x00\x03\x26\x41\x00\x00\x00", 8);
			}
			break;
		}
		/* FALLTHROUGH */
	case 10:
		head(W_APPEND, now);
		str("key", 0);
		str(below(2) ? "42" : NULL, 1);
		break;
	case 11:
		if (below(2)) {
			head(W_TWIN, now);
			scalar(4, 7, 0);
		} else {
			head(W_TWIN + 1, now);
			scalar(2, (uint32_t)-3, 1);
			str("again", 0);
		}
		break;
	default:
empty:
		head(W_EMPTY, now);
		break;
	}
}

/* A v10 chunk of parts around the event buffer and the string table. */
static void
chunk(uint32_t id, uint32_t type, int with_resources)
{
	struct { uint32_t type; const unsigned char *b; size_t n; } p[5];
	unsigned np = 0, i;
	size_t off = 0, total;

	p[np].type = 0x30000; p[np].b = tab.b; p[np].n = tab.len; np++;
	p[np].type = 0x20002; p[np].b = ev.b; p[np].n = ev.len; np++;
	if (with_resources) {
		p[np].type = 0x40000; p[np].b = (const unsigned char *)"\x01\x02\x03"; p[np].n = 3; np++;
		p[np].type = 0x40001; p[np].b = (const unsigned char *)"a text resource"; p[np].n = 15; np++;
		p[np].type = 0x50007; p[np].b = (const unsigned char *)"??"; p[np].n = 2; np++;
	}
	total = 24 + 12 * np;
	for (i = 0; i < np; i++)
		total += (p[i].n + 3) / 4 * 4;
	le32(&out, id);
	le32(&out, type);
	le32(&out, (uint32_t)total);
	le32(&out, 0xffffffffu);
	le32(&out, 0xffffffffu);
	le32(&out, np);
	for (i = 0; i < np; i++) {
		le32(&out, p[i].type);
		le32(&out, (uint32_t)off);
		le32(&out, (uint32_t)p[i].n);
		off += (p[i].n + 3) / 4 * 4;
	}
	for (i = 0; i < np; i++) {
		add(&out, p[i].b, p[i].n);
		for (size_t k = p[i].n; k % 4 != 0; k++)
			add(&out, &(unsigned char){ quirks && i == 0 ? 0xee : 0 }, 1);
	}
	ev.len = tab.len = 0;
	nstr = 0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "legacy", no_argument, NULL, 'l' },
		{ "records", required_argument, NULL, 'n' },
		{ "size-mb", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 's' },
		{ "zones", required_argument, NULL, 'z' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "quirks", no_argument, NULL, 'q' },
		{ "count", no_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned long long records = 200, size = 0, chunkmax = 4096, n;
	uint32_t cid = 1;
	int c;

	while ((c = getopt_long(argc, argv, "ln:m:s:z:c:qk", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': legacy = 1; break;
		case 'n': records = strtoull(optarg, NULL, 0); break;
		case 'm': size = strtoull(optarg, NULL, 0) << 20; break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'z': zones = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'c': chunkmax = strtoull(optarg, NULL, 0); break;
		case 'q': quirks = 1; break;
		case 'k': count_only = 1; break;
		default:
			fprintf(stderr, "usage: gen-wtf [--legacy] [--records N | "
			    "--size-mb M] [--seed S] [--zones Z] [--chunk BYTES] "
			    "[--quirks]\n");
			return 2;
		}
	}
	if (zones == 0 || zones > 65535)
		zones = 1;
	if (legacy) {
		static const char ctx[] = "{\"contextType\":\"script\","
		    "\"uri\":\"gen-wtf\",\"title\":\"gen-wtf\"}";
		static const char meta[] = "{\"now_time_ns\":115}";
		be32(&out, 0xdeadbeef);
		be32(&out, 0x59f49000);
		be32(&out, 3);
		be16(&out, sizeof ctx - 1 + (quirks ? 1 : 0));
		be16(&out, sizeof ctx - 1);
		add(&out, ctx, sizeof ctx - 1);
		be32(&out, 1);
		be32(&out, 0x7c594d39);
		be32(&out, 0x13e);
		be16(&out, sizeof meta - 1);
		be16(&out, sizeof meta - 1);
		add(&out, meta, sizeof meta - 1);
	} else {
		static const char json[] = "{\"type\":\"file_header\",\"flags\":"
		    "[\"has_high_resolution_times\"],\"timebase\":975998.100943,"
		    "\"contextInfo\":{\"contextType\":\"script\",\"uri\":\"gen-wtf\"},"
		    "\"metadata\":{\"nowTimeNs\":5}}";
		le32(&out, 0xdeadbeef);
		le32(&out, 0x90ba3800);
		le32(&out, 10);
		le32(&out, cid++);
		le32(&out, 1);
		le32(&out, (uint32_t)(24 + 12 + (sizeof json - 1 + 3) / 4 * 4));
		le32(&out, 0xffffffffu);
		le32(&out, 0xffffffffu);
		le32(&out, 1);
		le32(&out, 0x10000);
		le32(&out, 0);
		le32(&out, sizeof json - 1);
		add(&out, json, sizeof json - 1);
		for (size_t k = sizeof json - 1; k % 4 != 0; k++)
			add(&out, "", 1);
	}
	defines();
	for (unsigned z = 0; z < zones; z++)
		zone_create(z);
	zone_set(0);
	if (quirks && legacy) {
		/* utf8 with a CESU-8 surrogate pair (2 units, 6 bytes) */
		head(W_SCALARS, now);
		add(&ev, "\x01\xfb\xfa", 3);
		be16(&ev, 1); be16(&ev, 2); be32(&ev, 3); be32(&ev, 4);
		f32(0x7f800001);
		be16(&ev, 1); add(&ev, "\xe9", 1);
		be16(&ev, 2); be16(&ev, 6); add(&ev, "\xed\xa0\xbd\xed\xb8\x80", 6);
		be16(&ev, 5); be16(&ev, 2); add(&ev, "42", 2);
		be32(&ev, 0); be32(&ev, 0);
	}
	for (n = 0; size ? flushed + out.len + ev.len < size : n < records; n++) {
		record();
		if (!legacy && ev.len >= chunkmax) {
			chunk(cid++, 2, quirks && below(3) == 0);
			unique_tab = chunkmax <= 65536 && below(2);
			if (quirks && below(4) == 0) {
				/* a chunk of an unknown type, with a part */
				le32(&out, cid++); le32(&out, 7); le32(&out, 40);
				le32(&out, 0); le32(&out, 0); le32(&out, 1);
				le32(&out, 0x20000); le32(&out, 0); le32(&out, 2);
				add(&out, "{}\0\0", 4);
			}
			/* each buffer starts with the current zone, as JS does */
			zone_set(zone);
		}
		if (legacy && ev.len >= 65536) {
			add(&out, ev.b, ev.len);
			ev.len = 0;
		}
		if (out.len >= (1u << 22))
			flush_out();
	}
	if (legacy)
		add(&out, ev.b, ev.len);
	else if (ev.len > 0)
		chunk(cid++, 2, 0);
	flush_out();
	if (count_only)
		printf("%llu\n", nrec);
	return fflush(stdout) == 0 ? 0 : 1;
}
