/*
 * gen-dial9: synthetic dial9 traces, written here with no code of the
 * module (an independent encoder of the wire format).
 *
 *   gen-dial9 [--kinds]            every frame kind, field type and wire
 *                                  oddity, in several segments
 *   gen-dial9 --big MIB            one event with a string of MIB MiB
 *   gen-dial9 --events N [--seed S] [--text FILE]
 *                                  N events shaped like tokio telemetry
 *                                  (segments of 40000 events), and with
 *                                  --text the text dial92txt must print
 *                                  for them, formatted here on its own
 *
 * The binary goes to standard output.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *buf;
static size_t len, cap;
static FILE *txt;

static void
put(const void *p, size_t n)
{
	if (len + n > cap) {
		cap = (len + n) * 2 + 65536;
		if ((buf = realloc(buf, cap)) == NULL) {
			perror("gen-dial9");
			exit(2);
		}
	}
	memcpy(buf + len, p, n);
	len += n;
}

static void
flush(void)
{
	if (len > 0 && fwrite(buf, 1, len, stdout) != len) {
		perror("gen-dial9: write");
		exit(2);
	}
	len = 0;
}

static void u8(unsigned v) { unsigned char c = (unsigned char)v; put(&c, 1); }

static void
le(uint64_t v, int n)
{
	while (n-- > 0) {
		u8((unsigned)(v & 0xff));
		v >>= 8;
	}
}

/* LEB128 in exactly n bytes (0: the shortest). */
static void
uleb(uint64_t v, int n)
{
	int i;

	if (n == 0) {
		do {
			unsigned b = v & 0x7f;
			v >>= 7;
			u8(b | (v ? 0x80 : 0));
		} while (v);
		return;
	}
	for (i = 0; i < n - 1; i++) {
		u8((unsigned)(v & 0x7f) | 0x80);
		v >>= 7;
	}
	u8((unsigned)v & 0x7f);
}

static void
str32(const char *s, size_t n)
{
	le(n, 4);
	put(s, n);
}

static void header(unsigned v) { put("TRC", 4); u8(v); }

/* A schema: fields as "name" and tag pairs. */
static void
schema(unsigned id, const char *name, unsigned ts, int nf, const char *const *fn,
    const unsigned *ft)
{
	int i;

	u8(1);
	le(id, 2);
	le(strlen(name), 2);
	put(name, strlen(name));
	u8(ts);
	le((uint64_t)nf, 2);
	for (i = 0; i < nf; i++) {
		le(strlen(fn[i]), 2);
		put(fn[i], strlen(fn[i]));
		u8(ft[i]);
	}
}

static void ev(unsigned id, long delta) { u8(2); le(id, 2); if (delta >= 0) le((uint64_t)delta, 3); }
static void reset(uint64_t ts) { u8(5); le(ts, 8); }

static void
strpool1(uint32_t id, const char *s, size_t n)
{
	u8(3);
	le(1, 4);
	le(id, 4);
	str32(s, n);
}

/* ------------------------------------------------------------ --kinds */

static void big(size_t mib);

static void
kinds(void)
{
	static const char *const all_n[] = {
		"i", "f", "b", "s", "by", "ps", "pstr", "st", "v", "sm", "u8",
		"u16", "u32", "dl", "dm"
	};
	static const unsigned all_t[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
	    12, 13, 14, 15 };
	static const unsigned opt_t[] = { 0x81, 0x82, 0x83, 0x84, 0x85, 0x86,
	    0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f };
	static const char *const odd_n[] = { "ts", "name", "a b", "x", "x",
	    ".dot", "tid", "raw", "id", "" };
	static const unsigned odd_t[] = { 9, 4, 11, 9, 9, 3, 13, 9, 9, 9 };
	static const char *const w_n[] = { "worker_id", "v" };
	static const unsigned w_t[] = { 0x89, 9 };
	static const char *const nots_n[] = { "v" };
	static const unsigned nots_t[] = { 9 };
	int i;

	/* Segment 1: every type, plain and optional, pools first. */
	header(1);
	u8(3);				/* a pool of three, one a duplicate */
	le(3, 4);
	le(0, 4); str32("main.rs:1", 9);
	le(7, 4); str32("tab\there \"q\" \\ \xc3\xa9 \xff", 20);
	le(9, 4); str32("main.rs:1", 9);	/* not the holder */
	u8(4);				/* stacks: two, one empty */
	le(2, 4);
	le(3, 4); le(2, 4); le(0xdeadbeef, 8); le(UINT64_MAX, 8);
	le(4, 4); le(0, 4);
	schema(0, "All", 1, 15, all_n, all_t);
	schema(1, "Opt", 1, 15, all_n, opt_t);
	reset(1000);
	ev(0, 0);
	le((uint64_t)INT64_MIN, 8);
	le(0x8000000000000000ull, 8);	/* -0.0 */
	u8(1);
	str32("", 0);
	str32("\x00\x01", 2);
	le(3, 4);
	le(0, 4);
	le(2, 4); le(1, 8); le(0x7fffffffffffffffull, 8);
	uleb(UINT64_MAX, 0);
	le(2, 4); str32("k", 1); str32("v:1", 3); str32("", 0); str32("", 0);
	u8(255); le(65535, 2); le(UINT32_MAX, 4);
	/* dyn-list: u8 7, string "x", opt-varint 5 (no presence byte), a
	 * list [bool byte 2], bytes "", a pooled string not its holder. */
	le(6, 4);
	u8(11); u8(7);
	u8(4); str32("x", 1);
	u8(0x89); uleb(5, 0);
	u8(14); le(1, 4); u8(3); u8(2);
	u8(5); le(0, 4);
	u8(7); le(9, 4);
	/* dyn-map: {varint 1 (3 bytes): f64 nan payload}, {string "": dyn-map {}} */
	le(2, 4);
	u8(9); uleb(1, 3); u8(2); le(0x7ff0000000000001ull, 8);
	u8(4); str32("", 0); u8(15); le(0, 4);
	/* Opt: every one absent, then every one present (some oddly). */
	ev(1, 5);
	for (i = 0; i < 15; i++)
		u8(0);
	ev(1, 0xffffff);
	u8(1); le(5, 8);
	u8(1); le(0x3ff8000000000000ull, 8);	/* 1.5 */
	u8(2); u8(9);				/* presence 2, bool byte 9 */
	u8(1); str32("s", 1);
	u8(1); str32("\xab", 1);
	u8(1); le(4, 4);
	u8(1); le(0, 4);
	u8(1); le(0, 4);
	u8(1); uleb(300, 5);
	u8(1); le(0, 4);
	u8(1); u8(0);
	u8(1); le(0, 2);
	u8(1); le(0, 4);
	u8(1); le(0, 4);
	u8(1); le(0, 4);
	/* A redefinition: pool id 0 becomes "main.rs:2"; 9 still holds 1. */
	strpool1(0, "main.rs:2", 9);
	ev(0, 3);
	le(1, 8); le(0, 8); u8(0); str32("a", 1); str32("", 0); le(3, 4);
	le(9, 4); le(0, 4); uleb(0, 0); le(0, 4); u8(0); le(0, 2); le(0, 4);
	le(0, 4); le(0, 4);

	/* Segment 2 (version 7): odd names, a name on two ids, no ts. */
	header(7);
	schema(5, "odd name\n", 1, 10, odd_n, odd_t);
	schema(6, "W", 1, 2, w_n, w_t);
	schema(7, "W", 1, 2, w_n, w_t);	/* W now stands for 7 */
	schema(8, "NoTs", 0, 1, nots_n, nots_t);
	schema(9, "T2", 2, 1, nots_n, nots_t);
	schema(9, "T2", 1, 1, nots_n, nots_t);	/* the same: ts byte 2 or 1 */
	reset(UINT64_MAX - 10);
	ev(5, 3);
	uleb(1, 0); str32("n", 1); u8(3); uleb(0, 10); uleb(2, 0); u8(1);
	le(77, 4); uleb(4, 0); uleb(5, 0); uleb(6, 0);
	ev(6, 0); u8(1); uleb(3, 0); uleb(1, 0);	/* id 6: not W's */
	ev(7, 0); u8(0); uleb(2, 0);
	ev(7, 0); u8(1); uleb(3, 2); uleb(3, 0);
	ev(8, -1); uleb(42, 0);
	reset(5);			/* backwards */
	ev(8, -1); uleb(43, 0);
	ev(7, 16); u8(1); uleb(9, 0); uleb(9, 0);
	ev(9, 0xffffff); uleb(44, 0);
	u8(6);				/* annotations, id in 3 bytes */
	uleb(7, 3);
	le(2, 2);
	le(0, 2); le(4, 2); put("unit", 4); le(2, 4); put("ns", 2);
	le(1, 2); le(0, 2); le(5, 4); put("a \"b\"", 5);

	/* Segment 3: an empty one, then segment 4 with a big frame. */
	header(1);
	big(3);
}

/* A segment with one event whose string takes mib MiB. */
static void
big(size_t mib)
{
	static const char *const big_n[] = { "blob" };
	static const unsigned big_t[] = { 4 };
	size_t n = mib << 20, k;
	char *s = malloc(n);

	if (s == NULL)
		exit(2);
	for (k = 0; k < n; k++)
		s[k] = (char)('a' + k % 26);
	header(1);
	schema(0, "Big", 1, 1, big_n, big_t);
	ev(0, 0);
	str32(s, n);
	free(s);
	flush();
}

/* ------------------------------------------------------------ --events */

static uint64_t rng = 88172645463325252ull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

enum { S_POLLSTART, S_POLLEND, S_WAKE, S_CPU, S_ALLOC, S_N };

static const char *const locs[] = {
	"examples/metrics-service/src/main.rs:289:14",
	"src/routes.rs:26:1", "tokio-1.50.0/src/runtime/blocking/pool.rs:40:9",
	"src/ddb.rs:122:5", "src/buffer.rs:55:13", "src/lib.rs:1:1"
};
static const char *const tnames[] = { "tokio-runtime-worker", "main",
	"dial9-flush" };

static void
bulk(uint64_t events)
{
	static const char *const sname[S_N] = { "PollStartEvent",
		"PollEndEvent", "WakeEventEvent", "CpuSampleEvent", "AllocEvent" };
	static const char *const sfields[S_N] = {
		"worker_id:varint,local_queue:u8,task_id:varint,"
		    "spawn_loc:pooled-string",
		"worker_id:varint",
		"waker_task_id:varint,woken_task_id:varint,target_worker:u8",
		"worker_id:varint,tid:u32,source:u8,thread_name:opt-pooled-string,"
		    "callchain:pooled-stack,cpu:opt-varint",
		"tid:u32,size:varint,addr:varint,callchain:stack"
	};
	static const char *const f0[] = { "worker_id", "local_queue", "task_id",
	    "spawn_loc" }, *const f1[] = { "worker_id" }, *const f2[] = {
	    "waker_task_id", "woken_task_id", "target_worker" }, *const f3[] = {
	    "worker_id", "tid", "source", "thread_name", "callchain", "cpu" },
	    *const f4[] = { "tid", "size", "addr", "callchain" };
	static const unsigned t0[] = { 9, 11, 9, 7 }, t1[] = { 9 },
	    t2[] = { 9, 9, 11 }, t3[] = { 9, 13, 11, 0x87, 6, 0x89 },
	    t4[] = { 13, 9, 9, 8 };
	static const char *const *fn[S_N] = { f0, f1, f2, f3, f4 };
	static const unsigned *const ft[S_N] = { t0, t1, t2, t3, t4 };
	static const int nf[S_N] = { 4, 1, 3, 6, 4 };
	int sid[S_N], nextid = 0, locid[6], tnid[3], stackid[8], nextpool = 0,
	    nextstack = 0;
	uint64_t i, base = 0, ts = 0, stacks[8][12];
	int k, j, named = 0;

	for (k = 0; k < 8; k++)
		for (j = 0; j < 12; j++)
			stacks[k][j] = 0xaaaac8f00000ull + rnd() % 0x100000;
	for (i = 0; i < events; i++) {
		int s;
		uint64_t w = rnd() % 4, d;
		if (i % 40000 == 0) {
			header(1);
			if (txt)
				fputs("dial9-header version=1\n", txt);
			for (k = 0; k < S_N; k++)
				sid[k] = -1;
			for (k = 0; k < 6; k++)
				locid[k] = -1;
			for (k = 0; k < 3; k++)
				tnid[k] = -1;
			for (k = 0; k < 8; k++)
				stackid[k] = -1;
			nextid = nextpool = nextstack = 0;
			base = 0;
			ts = 1773850000000000000ull + (rnd() % 1000000000);
		}
		s = (int)(rnd() % 16);
		s = s < 5 ? S_POLLSTART : s < 10 ? S_POLLEND : s < 14 ? S_WAKE :
		    s < 15 ? S_CPU : S_ALLOC;
		if (sid[s] < 0) {
			sid[s] = nextid++;
			schema((unsigned)sid[s], sname[s], 1, nf[s], fn[s], ft[s]);
			if (txt)
				fprintf(txt, "dial9-schema id=%d name=%s ts=1 "
				    "fields={%s}\n", sid[s], sname[s], sfields[s]);
		}
		/* Mostly small steps; now and then far ahead or back. */
		d = rnd() % 100;
		ts = d < 96 ? ts + rnd() % 20000 : d < 98 ? ts + 20000000 +
		    rnd() % 1000000 : ts - rnd() % 5000000;
		/* Pools before the event, as upstream's writer does. */
		if (s == S_POLLSTART) {
			k = (int)(rnd() % 6);
			if (locid[k] < 0) {
				locid[k] = nextpool++;
				strpool1((uint32_t)locid[k], locs[k], strlen(locs[k]));
				if (txt)
					fprintf(txt, "dial9-strings pool={%d:\"%s\"}\n",
					    locid[k], locs[k]);
			}
			j = k;
		} else if (s == S_CPU) {
			k = (int)(rnd() % 3);
			j = (int)(rnd() % 8);
			named = (int)(rnd() % 2);
			if (named && tnid[k] < 0) {
				tnid[k] = nextpool++;
				strpool1((uint32_t)tnid[k], tnames[k],
				    strlen(tnames[k]));
				if (txt)
					fprintf(txt, "dial9-strings pool={%d:\"%s\"}\n",
					    tnid[k], tnames[k]);
			}
			if (stackid[j] < 0) {
				stackid[j] = nextstack++;
				u8(4);
				le(1, 4);
				le((uint64_t)stackid[j], 4);
				le(12, 4);
				for (int a = 0; a < 12; a++)
					le(stacks[j][a], 8);
				if (txt) {
					fprintf(txt, "dial9-stacks pool={%d:[",
					    stackid[j]);
					for (int a = 0; a < 12; a++)
						fprintf(txt, "%s%#llx", a ? "," : "",
						    (unsigned long long)stacks[j][a]);
					fputs("]}\n", txt);
				}
			}
		} else {
			j = k = 0;
		}
		if (ts < base || ts - base > 0xffffff) {
			reset(ts);
			base = ts;
			if (txt)
				fprintf(txt, "dial9-reset ts=%llu\n",
				    (unsigned long long)ts);
		}
		ev((unsigned)sid[s], (long)(ts - base));
		base = ts;
		if (txt)
			fprintf(txt, "event name=%s ts=%llu", sname[s],
			    (unsigned long long)ts);
		switch (s) {
		case S_POLLSTART: {
			uint64_t task = rnd() >> (rnd() % 64);
			unsigned q = (unsigned)(rnd() % 256);
			uleb(w, 0); u8(q); uleb(task, 0); le((uint64_t)locid[k], 4);
			if (txt)
				fprintf(txt, " tid=%llu worker_id=%llu local_queue=%u "
				    "task_id=%llu spawn_loc=\"%s\"\n",
				    (unsigned long long)w, (unsigned long long)w, q,
				    (unsigned long long)task, locs[k]);
			break;
		}
		case S_POLLEND:
			uleb(w, 0);
			if (txt)
				fprintf(txt, " tid=%llu worker_id=%llu\n",
				    (unsigned long long)w, (unsigned long long)w);
			break;
		case S_WAKE: {
			uint64_t a = rnd() % 5000, b = rnd() % 100000;
			uleb(a, 0); uleb(b, 0); u8((unsigned)w);
			if (txt)
				fprintf(txt, " waker_task_id=%llu woken_task_id=%llu "
				    "target_worker=%llu\n", (unsigned long long)a,
				    (unsigned long long)b, (unsigned long long)w);
			break;
		}
		case S_CPU: {
			uint32_t tid = (uint32_t)(1000 + rnd() % 60000);
			int has_cpu = (int)(rnd() % 2);
			uint64_t cpu = rnd() % 16;
			uleb(w, 0); le(tid, 4); u8(1);
			if (named) {
				u8(1);
				le((uint64_t)tnid[k], 4);
			} else {
				u8(0);
			}
			le((uint64_t)stackid[j], 4);
			if (has_cpu) {
				u8(1);
				uleb(cpu, 0);
			} else {
				u8(0);
			}
			if (txt) {
				fprintf(txt, " tid=%llu worker_id=%llu .746964=%u "
				    "source=1 thread_name=", (unsigned long long)w,
				    (unsigned long long)w, tid);
				if (named)
					fprintf(txt, "\"%s\"", tnames[k]);
				else
					fputs("null", txt);
				fputs(" callchain=[", txt);
				for (int a = 0; a < 12; a++)
					fprintf(txt, "%s%#llx", a ? "," : "",
					    (unsigned long long)stacks[j][a]);
				if (has_cpu)
					fprintf(txt, "] cpu=%llu\n",
					    (unsigned long long)cpu);
				else
					fputs("] cpu=null\n", txt);
			}
			break;
		}
		case S_ALLOC: {
			uint32_t tid = (uint32_t)(1000 + rnd() % 60000);
			uint64_t size = rnd() % 100000, addr = rnd() >> 16;
			int n = (int)(rnd() % 4);
			le(tid, 4); uleb(size, 0); uleb(addr, 0); le((uint64_t)n, 4);
			for (int a = 0; a < n; a++)
				le(stacks[a][a], 8);
			if (txt) {
				fprintf(txt, " .746964=%u size=%llu addr=%llu callchain=[",
				    tid, (unsigned long long)size,
				    (unsigned long long)addr);
				for (int a = 0; a < n; a++)
					fprintf(txt, "%s%#llx", a ? "," : "",
					    (unsigned long long)stacks[a][a]);
				fputs("]\n", txt);
			}
			break;
		}
		}
		if (len > (1u << 20))
			flush();
	}
	flush();
}

int
main(int argc, char **argv)
{
	uint64_t events = 0;
	size_t mib = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--kinds") == 0) {
			events = 0;
		} else if (strcmp(argv[i], "--events") == 0 && i + 1 < argc) {
			events = strtoull(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--big") == 0 && i + 1 < argc) {
			mib = strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			rng ^= strtoull(argv[++i], NULL, 10) * 0x9e3779b97f4a7c15ull;
			if (rng == 0)
				rng = 1;
		} else if (strcmp(argv[i], "--text") == 0 && i + 1 < argc) {
			if ((txt = fopen(argv[++i], "w")) == NULL) {
				perror(argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: gen-dial9 [--kinds | --big MIB | "
			    "--events N [--seed S] [--text FILE]]\n");
			return 2;
		}
	}
	if (mib > 0)
		big(mib);
	else if (events > 0)
		bulk(events);
	else
		kinds();
	if (txt != NULL && fclose(txt) != 0) {
		perror("gen-dial9: text");
		return 2;
	}
	return fclose(stdout) != 0 ? 2 : 0;
}
