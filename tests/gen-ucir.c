/*
 * gen-ucir: write a synthetic Usercorn trace to standard output and,
 * with --text FILE, the text ucir2txt must print for it, made here from
 * the generator's own values (not by decoding), so that tests compare the
 * decoder record by record with an independent account at any size.
 *
 *   gen-ucir [--format replay|trace] [--arch ARCH] [--frames N] [--ops N]
 *            [--seed S] [--quirks] [--foreign] [--text FILE]
 *            [--size-mb N]   (replay: frames until N MiB of ops)
 *   gen-ucir --wrap-trace [--arch ARCH]     (ops on stdin, stored chunks)
 *   gen-ucir --wrap-replay COUNT [--level N] (ops on stdin: one keyframe)
 *   gen-ucir --bomb BYTES [--level N]        (a frame of BYTES NOP ops)
 *
 * The replay format: every op of the spec (EXEC_ABS and EXEC_REL in runs
 * and jumps, REG_CHANGE of known and unknown registers, SPREG_CHANGE,
 * MEM_READ and MEM_WRITE with data, MEM_MAP, MEM_UNMAP, SYSCALL with
 * arguments and ops nested two deep, NOP, EXIT), keyframes, an empty
 * frame, frames at zlib levels 6, 1, 2 and 7 (--level N: all at N).  --quirks adds what a
 * writer may leave (NUL padding with garbage, a keyframe flag of 0x80,
 * EXEC_ABS where EXEC_REL would do); --foreign writes the frames with
 * another deflater setting (memLevel 9), which no level of this zlib
 * reproduces.  The trace format follows usercorn's writer: a KEYFRAME of
 * registers, mappings and their contents, then FRAMEs starting at a JMP,
 * each instruction's reads, writes and register changes before its
 * STEP, syscalls with their side effects (and EXIT) nested, NOP, SPREG,
 * MEM_PROT; the Snappy framing with stored chunks (Snappy-compressed too
 * when built with libsnappy), padding and skippable chunks.
 *
 * Deterministic for a seed.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rng.h"

#ifdef HAVE_SNAPPY
#include <snappy-c.h>
#endif

struct reg {
	unsigned num;
	const char *name;	/* as ucir2txt writes it */
};

struct arch {
	const char *name, *uc_name;
	unsigned uc_arch, uc_mode, big;
	struct reg reg[3];	/* REG_CHANGE */
	struct reg spreg;	/* SPREG_CHANGE */
};

/* Names checked by hand against the reference's section 6.4 tables. */
static const struct arch archs[] = {
	{ "x86_64", "x86", 4, 8, 0, { { 35, "rax" }, { 44, "rsp" },
	    { 113, "r15" } }, { 122, "xmm0" } },
	{ "x86", "x86", 4, 4, 0, { { 19, "eax" }, { 30, "esp" },
	    { 25, "eflags" } }, { 122, "xmm0" } },
	{ "x86_16", "x86", 4, 2, 0, { { 3, "ax" }, { 47, "sp" },
	    { 34, "ip" } }, { 114, "st0" } },
	{ "arm", "arm", 1, 0, 0, { { 66, "r0" }, { 10, "lr" },
	    { 12, "sp" } }, { 50, "q0" } },
	{ "arm64", "arm64", 2, 0, 0, { { 199, "x0" }, { 1, "x29" },
	    { 260, "pc" } }, { 228, "v0" } },
	{ "mips", "mips", 3, 4, 0, { { 2, "zero" }, { 31, "sp" },
	    { 32, "fp" } }, { 57, "f0" } },
	{ "sparc", "sparc", 6, 0x40000004, 1, { { 84, "sp" }, { 54, "g1" },
	    { 68, "i7" } }, { 1, "f0" } },
	{ "m68k", "m68k", 7, 0x40000000, 1, { { 8, "a7" }, { 9, "d0" },
	    { 18, "pc" } }, { 17, "sr" } },
};
#define NARCH (sizeof archs / sizeof archs[0])

/* ------------------------------------------------------------- buffers */

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void
need(struct buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	while (b->len + n > b->cap)
		b->cap = b->cap ? b->cap * 2 : 1 << 16;
	if ((b->p = realloc(b->p, b->cap)) == NULL) {
		perror("gen-ucir");
		exit(2);
	}
}

static int little;	/* op byte order: the trace format's */

static void
put(struct buf *b, uint64_t v, unsigned n)
{
	need(b, n);
	for (unsigned i = 0; i < n; i++)
		b->p[b->len + i] = (unsigned char)(little ? v >> (8 * i) :
		    v >> (8 * (n - 1 - i)));
	b->len += n;
}

static void
put_raw(struct buf *b, const void *p, size_t n)
{
	need(b, n);
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static FILE *text;

static void
tx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
tx(const char *fmt, ...)
{
	va_list ap;

	if (text == NULL)
		return;
	va_start(ap, fmt);
	vfprintf(text, fmt, ap);
	va_end(ap);
}

static void
tx_hex(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n && text != NULL; i++)
		fprintf(text, "%02x", p[i]);
}

static unsigned cur_tid;	/* the frame's pid (trace format) */

static void
tx_depth(unsigned depth)
{
	tx("tid=%u", cur_tid);
	if (depth > 0)
		tx(" depth=%u", depth);
}

/* Memory contents: mostly small values, as instructions move them. */
static size_t
fill_data(unsigned char *d, int big)
{
	static const unsigned char widths[] = { 1, 2, 4, 8, 8, 8, 16, 0, 3 };
	size_t n = big ? 200 + below(3000) : widths[below(sizeof widths)];

	for (size_t i = 0; i < n; i++)
		d[i] = below(4) == 0 ? (unsigned char)rnd() : (unsigned char)i;
	return n;
}

static const char *
prot_str(unsigned prot)
{
	static char s[4];

	s[0] = prot & 1 ? 'r' : '-';
	s[1] = prot & 2 ? 'w' : '-';
	s[2] = prot & 4 ? 'x' : '-';
	s[3] = '\0';
	return s;
}

/* ------------------------------------------------------- replay format */

static const struct arch *arch;
static int quirks;
static uint64_t next_pc, last_pc;	/* as a reader starts: 0 */

static void
replay_op(struct buf *b, unsigned depth)
{
	unsigned char data[4096];
	unsigned k = below(100), i, n;
	uint64_t a, v;

	if (k < 40) {
		unsigned size = 1 + below(15);
		if (below(10) == 0 || next_pc == 0) {
			a = 0x400000 + (uint64_t)below(1 << 20);
			if (a == next_pc)
				a++;
			put(b, 2, 1), put(b, a, 8), put(b, size, 4);
			tx("insn "), tx_depth(depth);
			tx(" pc=0x%llx size=%u\n", (unsigned long long)a, size);
		} else if (quirks && below(10) == 0) {
			a = next_pc;
			put(b, 2, 1), put(b, a, 8), put(b, size, 4);
			tx("insn "), tx_depth(depth);
			tx(" pc=0x%llx size=%u exec=abs\n", (unsigned long long)a,
			    size);
		} else {
			a = next_pc;
			put(b, 3, 1), put(b, size, 4);
			tx("insn "), tx_depth(depth);
			tx(" pc=0x%llx size=%u\n", (unsigned long long)a, size);
		}
		last_pc = a;
		next_pc = a + size;
	} else if (k < 64) {
		int w = k >= 52;
		size_t len = fill_data(data, below(200) == 0);
		a = 0x7fff0000 + (uint64_t)below(1 << 16) * 8;
		put(b, w ? 7 : 6, 1), put(b, a, 8), put(b, len, 8);
		put_raw(b, data, len);
		tx("%s ", w ? "write" : "read"), tx_depth(depth);
		tx(" pc=0x%llx addr=0x%llx size=%zu data=",
		    (unsigned long long)last_pc, (unsigned long long)a, len);
		tx_hex(data, len);
		tx("\n");
	} else if (k < 79) {
		const struct reg *r = &arch->reg[below(3)];
		v = below(3) == 0 ? rnd() : below(1000);
		if (quirks && below(20) == 0) {
			put(b, 4, 1), put(b, 999, 2), put(b, v, 8);
			tx("ucir-reg "), tx_depth(depth);
			tx(" reg=999 value=0x%llx\n", (unsigned long long)v);
		} else {
			put(b, 4, 1), put(b, r->num, 2), put(b, v, 8);
			tx("ucir-reg "), tx_depth(depth);
			tx(" reg=%s value=0x%llx\n", r->name,
			    (unsigned long long)v);
		}
	} else if (k < 82) {
		n = 16;
		for (i = 0; i < n; i++)
			data[i] = (unsigned char)rnd();
		put(b, 5, 1), put(b, arch->spreg.num, 2), put(b, n, 2);
		put_raw(b, data, n);
		tx("ucir-spreg "), tx_depth(depth);
		tx(" reg=%s data=", arch->spreg.name);
		tx_hex(data, n);
		tx("\n");
	} else if (k < 85) {
		unsigned prot = below(8), size = 0x1000 * (1 + below(64));
		a = 0x10000000 + (uint64_t)below(1 << 12) * 0x1000;
		put(b, 8, 1), put(b, a, 8), put(b, size, 4), put(b, prot, 1);
		tx("ucir-map "), tx_depth(depth);
		tx(" addr=0x%llx size=%u prot=%s\n", (unsigned long long)a, size,
		    prot_str(prot));
	} else if (k < 87) {
		unsigned size = 0x1000 * (1 + below(64));
		a = 0x10000000 + (uint64_t)below(1 << 12) * 0x1000;
		put(b, 9, 1), put(b, a, 8), put(b, size, 4);
		tx("ucir-unmap "), tx_depth(depth);
		tx(" addr=0x%llx size=%u\n", (unsigned long long)a, size);
	} else if (k < 93 && depth < 2) {
		unsigned num = below(400), argc = below(7), nops = below(5);
		uint64_t args[6], ret = below(4) == 0 ? (uint64_t)-2 : below(100);
		put(b, 10, 1), put(b, num, 2), put(b, ret, 8);
		put(b, argc, 2), put(b, nops, 2);
		tx("ucir-syscall "), tx_depth(depth);
		tx(" num=%u ret=0x%llx args=[", num, (unsigned long long)ret);
		for (i = 0; i < argc; i++) {
			args[i] = below(2) ? below(4096) : rnd();
			put(b, args[i], 8);
			tx("%s0x%llx", i ? "," : "", (unsigned long long)args[i]);
		}
		tx("]\n");
		for (i = 0; i < nops; i++)
			replay_op(b, depth + 1);
	} else if (k < 97) {
		put(b, 0, 1);
		tx("ucir-nop "), tx_depth(depth), tx("\n");
	} else {
		put(b, 11, 1);
		tx("ucir-exit "), tx_depth(depth), tx("\n");
	}
}

static void
name_field(struct buf *b, const char *s, int garbage)
{
	unsigned char f[32] = { 0 };
	size_t n = strlen(s);

	memcpy(f, s, n);
	if (garbage)
		for (size_t i = n + 1; i < 32; i += 3)
			f[i] = (unsigned char)(0x41 + i);
	put_raw(b, f, 32);
}

static void
deflate_frame(const struct buf *raw, int level, int foreign, struct buf *out)
{
	z_stream zs;

	memset(&zs, 0, sizeof zs);
	if (deflateInit2(&zs, level, Z_DEFLATED, 15, foreign ? 9 : 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		exit(2);
	out->len = 0;
	need(out, deflateBound(&zs, raw->len));
	zs.next_in = raw->p;
	zs.avail_in = (uInt)raw->len;
	zs.next_out = out->p;
	zs.avail_out = (uInt)out->cap;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		exit(2);
	out->len = zs.total_out;
	deflateEnd(&zs);
}

static uint64_t size_target;	/* --size-mb: frames until this many op bytes */
static int one_level = -1;	/* --level: every frame at it */

static void
gen_replay(unsigned frames, unsigned ops, int foreign)
{
	uint64_t total = 0;

	static const int levels[] = { 6, 1, 6, 2, 7, 6 };
	struct buf h = { 0 }, raw = { 0 }, comp = { 0 };
	unsigned f, i;

	put_raw(&h, "UCIR", 4);
	put(&h, 0, 4), put(&h, arch->uc_arch, 4), put(&h, arch->uc_mode, 4);
	name_field(&h, arch->name, 0);
	name_field(&h, "linux", quirks);
	fwrite(h.p, 1, h.len, stdout);
	tx("ucir-header format=replay version=0 uc_arch=%s uc_mode=0x%x "
	    "arch=%s os=linux", arch->uc_name, arch->uc_mode, arch->name);
	if (quirks) {
		tx(" os_pad=");
		tx_hex(h.p + 48 + 6, 26);
	}
	tx("\n");
	for (f = 0; size_target ? total < size_target : f < frames; f++) {
		unsigned n = f == 3 ? 0 : ops / 2 + below(ops + 1);
		int key = f % 16 == 0, level = one_level >= 0 ? one_level :
		    levels[f % 6];
		unsigned flag = key ? (quirks && f == 16 ? 0x80 : 1) : 0;
		unsigned char fh[10];

		tx("ucir-frame tid=0 keyframe=%s level=%d", key ? "true" :
		    "false", level);
		if (flag > 1)
			tx(" flag=0x%x", flag);
		tx("\n");
		raw.len = 0;
		for (i = 0; i < n; i++)
			replay_op(&raw, 0);
		total += raw.len;
		deflate_frame(&raw, level, foreign, &comp);
		fh[0] = 1;
		fh[1] = (unsigned char)flag;
		for (i = 0; i < 4; i++) {
			fh[2 + i] = (unsigned char)(n >> (24 - 8 * i));
			fh[6 + i] = (unsigned char)(comp.len >> (24 - 8 * i));
		}
		fwrite(fh, 1, 10, stdout);
		fwrite(comp.p, 1, comp.len, stdout);
	}
	free(h.p), free(raw.p), free(comp.p);
}

/* -------------------------------------------------------- trace format */

static uint32_t
crc32c_bitwise(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	while (n-- > 0) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
	}
	return ~c;
}

static void
chunk(unsigned type, const unsigned char *p, size_t n)
{
	unsigned char h[4] = { (unsigned char)type, (unsigned char)n,
	    (unsigned char)(n >> 8), (unsigned char)(n >> 16) };

	fwrite(h, 1, 4, stdout);
	fwrite(p, 1, n, stdout);
}

/* The ops through the Snappy framing format, 65536 bytes a chunk. */
static void
snappy_stream(const struct buf *ops, int extras)
{
	static const unsigned char ident[6] = { 's', 'N', 'a', 'P', 'p', 'Y' };
	unsigned char c[4 + 80000];
	size_t at = 0;
	unsigned k = 0;

	chunk(0xff, ident, 6);
	while (at < ops->len) {
		size_t n = ops->len - at < 65536 ? ops->len - at : 65536;
		uint32_t crc = crc32c_bitwise(ops->p + at, n);
		int done = 0;

		crc = ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
		c[0] = (unsigned char)crc, c[1] = (unsigned char)(crc >> 8);
		c[2] = (unsigned char)(crc >> 16), c[3] = (unsigned char)(crc >> 24);
		if (extras && k % 3 == 1) {
			chunk(0xfe, c, 3);		/* padding */
			chunk(0x80, ops->p, 5);		/* skippable */
			chunk(0xff, ident, 6);		/* repeated */
		}
#ifdef HAVE_SNAPPY
		if (k % 2 == 0) {
			size_t cl = sizeof c - 4;
			if (snappy_compress((const char *)ops->p + at, n,
			    (char *)c + 4, &cl) == SNAPPY_OK) {
				chunk(0x00, c, 4 + cl);
				done = 1;
			}
		}
#endif
		if (!done) {
			memcpy(c + 4, ops->p + at, n);
			chunk(0x01, c, 4 + n);
		}
		at += n;
		k++;
	}
}

static void
trace_header(const char *os)
{
	struct buf h = { 0 };

	little = 0;
	put_raw(&h, "UCIR", 4);
	put(&h, 1, 4);
	name_field(&h, arch->name, 0);
	name_field(&h, os, 0);
	put(&h, arch->big, 1), put(&h, arch->big, 1);
	fwrite(h.p, 1, h.len, stdout);
	free(h.p);
	little = 1;
	tx("ucir-header format=trace version=1 arch=%s os=%s code_order=%s "
	    "data_order=%s\n", arch->name, os, arch->big ? "big" : "little",
	    arch->big ? "big" : "little");
}

static uint64_t tpc;	/* the replayed pc */

static void
trace_access(struct buf *b, unsigned depth, int w)
{
	unsigned char data[4096];
	size_t len = fill_data(data, below(100) == 0);
	uint64_t a = 0x7fff0000 + (uint64_t)below(1 << 16) * 8;

	put(b, w ? 8 : 7, 1), put(b, a, 8), put(b, len, 4);
	if (w)
		put_raw(b, data, len);
	tx("%s ", w ? "write" : "read"), tx_depth(depth);
	tx(" pc=0x%llx addr=0x%llx size=%zu", (unsigned long long)tpc,
	    (unsigned long long)a, len);
	if (w) {
		tx(" data=");
		tx_hex(data, len);
	}
	tx("\n");
}

static void
trace_reg(struct buf *b, unsigned depth)
{
	const struct reg *r = &arch->reg[below(3)];
	uint64_t v = below(2) ? rnd() : below(100);

	put(b, 5, 1), put(b, r->num, 2), put(b, v, 8);
	tx("ucir-reg "), tx_depth(depth);
	tx(" reg=%s value=0x%llx\n", r->name, (unsigned long long)v);
}

static void
trace_map(struct buf *b, unsigned depth, const char *desc, const char *file)
{
	uint64_t a = 0x10000000 + (uint64_t)below(1 << 12) * 0x1000;
	uint64_t size = 0x1000 * (uint64_t)(1 + below(64)), off = 0x1000 *
	    (uint64_t)below(4), len = below(2) ? size : 0;
	unsigned prot = below(8);

	put(b, 9, 1), put(b, a, 8), put(b, size, 8), put(b, prot, 1);
	put(b, off, 8), put(b, len, 8);
	put(b, strlen(desc), 2), put(b, strlen(file), 2);
	put_raw(b, desc, strlen(desc));
	put_raw(b, file, strlen(file));
	tx("ucir-map "), tx_depth(depth);
	tx(" addr=0x%llx size=%llu prot=%s off=0x%llx len=%llu desc=%s%s%s "
	    "file=%s%s%s\n", (unsigned long long)a, (unsigned long long)size,
	    prot_str(prot), (unsigned long long)off, (unsigned long long)len,
	    *desc == '[' || !*desc ? "\"" : "", desc,
	    *desc == '[' || !*desc ? "\"" : "", *file ? "" : "\"", file,
	    *file ? "" : "\"");
}

static void
gen_trace(unsigned frames, unsigned ops)
{
	struct buf b = { 0 };
	unsigned f, i, k;

	trace_header("linux");
	/* The keyframe: registers, then each mapping and its contents. */
	put(&b, 2, 1), put(&b, 0, 8), put(&b, 5, 4);
	tx("ucir-frame tid=0 keyframe=true\n");
	trace_reg(&b, 0);
	trace_reg(&b, 0);
	trace_map(&b, 0, "exe", "/bin/x");
	trace_access(&b, 0, 1);
	trace_map(&b, 0, "[stack]", "");
	for (f = 0; f < frames; f++) {
		unsigned n = 1 + below(ops + 1), pid = f % 7 == 6 ? 42 : 0;
		size_t count_at;
		uint32_t count = 0;

		cur_tid = pid;
		put(&b, 1, 1), put(&b, pid, 8);
		count_at = b.len;
		put(&b, 0, 4);
		tx("ucir-frame tid=%u keyframe=false\n", pid);
		if (f % 5 == 4) {
			put(&b, 0, 1);	/* MemBatch's NOP before the JMP */
			tx("ucir-nop tid=%u\n", pid);
			count++;
		}
		tpc = 0x400000 + (uint64_t)below(1 << 20);
		put(&b, 3, 1), put(&b, tpc, 8), put(&b, 4 * n, 4);
		tx("ucir-jmp tid=%u pc=0x%llx size=%u\n", pid,
		    (unsigned long long)tpc, 4 * n);
		count++;
		for (i = 0; i < n; i++) {
			unsigned size = 1 + below(8);
			k = below(20);
			if (k < 4)
				trace_access(&b, 0, 0), count++;
			else if (k < 7)
				trace_access(&b, 0, 1), count++;
			else if (k < 10)
				trace_reg(&b, 0), count++;
			else if (k == 10) {
				unsigned char v[10];
				for (unsigned j = 0; j < 10; j++)
					v[j] = (unsigned char)rnd();
				put(&b, 6, 1), put(&b, arch->spreg.num, 2);
				put(&b, 10, 2), put_raw(&b, v, 10);
				tx("ucir-spreg "), tx_depth(0);
				tx(" reg=%s data=", arch->spreg.name);
				tx_hex(v, 10);
				tx("\n");
				count++;
			} else if (k == 11) {
				uint64_t a = 0x10000000 + (uint64_t)below(99) *
				    0x1000;
				unsigned prot = below(8);
				put(&b, 11, 1), put(&b, a, 8), put(&b, 0x2000, 8);
				put(&b, prot, 1);
				tx("ucir-prot "), tx_depth(0);
				tx(" addr=0x%llx size=8192 prot=%s\n",
				    (unsigned long long)a, prot_str(prot));
				count++;
			} else if (k == 12) {
				/* A syscall and the kernel's side effects. */
				unsigned num = below(300), argc = below(6), j;
				unsigned sub = 1 + below(4), exit_ = below(10) == 0;
				uint64_t ret = below(50);
				put(&b, 12, 1), put(&b, num, 4), put(&b, ret, 8);
				put(&b, argc, 1), put(&b, sub + exit_, 2);
				tx("ucir-syscall "), tx_depth(0);
				tx(" num=%u ret=0x%llx args=[", num,
				    (unsigned long long)ret);
				for (j = 0; j < argc; j++) {
					uint64_t a = below(2) ? below(99) : rnd();
					put(&b, a, 8);
					tx("%s0x%llx", j ? "," : "",
					    (unsigned long long)a);
				}
				tx("]\n");
				for (j = 0; j < sub; j++) {
					switch (below(4)) {
					case 0:
						trace_access(&b, 1, 1);
						break;
					case 1:
						trace_reg(&b, 1);
						break;
					case 2:
						trace_map(&b, 1, "", "/lib/y.so");
						break;
					default: {
						uint64_t a = 0x10000000;
						put(&b, 10, 1), put(&b, a, 8);
						put(&b, 0x1000, 8);
						tx("ucir-unmap "), tx_depth(1);
						tx(" addr=0x10000000 size=4096\n");
					}
					}
				}
				if (exit_) {
					put(&b, 13, 1);
					tx("ucir-exit "), tx_depth(1), tx("\n");
				}
				count++;
			}
			put(&b, 4, 1), put(&b, size, 1);
			tx("insn tid=%u pc=0x%llx size=%u\n", pid,
			    (unsigned long long)tpc, size);
			tpc += size;
			count++;
		}
		for (k = 0; k < 4; k++)
			b.p[count_at + k] = (unsigned char)(count >> (8 * k));
	}
	cur_tid = 0;
	put(&b, 1, 1), put(&b, 0, 8), put(&b, 1, 4), put(&b, 13, 1);
	tx("ucir-frame tid=0 keyframe=false\nucir-exit tid=0\n");
	snappy_stream(&b, 1);
	free(b.p);
}

/* Raw trace ops on stdin into a trace file (for hand-made vectors). */
static void
wrap_trace(void)
{
	struct buf b = { 0 };
	size_t n;

	do {
		need(&b, 65536);
		n = fread(b.p + b.len, 1, 65536, stdin);
		b.len += n;
	} while (n > 0);
	trace_header("linux");
	snappy_stream(&b, 0);
	free(b.p);
}

/* A replay file of one keyframe holding raw (count ops). */
static void
one_frame(const struct buf *raw, unsigned long count, int level)
{
	struct buf h = { 0 }, comp = { 0 };

	put_raw(&h, "UCIR", 4);
	put(&h, 0, 4), put(&h, arch->uc_arch, 4), put(&h, arch->uc_mode, 4);
	name_field(&h, arch->name, 0);
	name_field(&h, "linux", 0);
	deflate_frame(raw, level, 0, &comp);
	put(&h, 1, 1), put(&h, 1, 1), put(&h, count, 4), put(&h, comp.len, 4);
	put_raw(&h, comp.p, comp.len);
	fwrite(h.p, 1, h.len, stdout);
	free(h.p), free(comp.p);
}

static void
wrap_replay(unsigned long count, int level)
{
	struct buf b = { 0 };
	size_t n;

	do {
		need(&b, 65536);
		n = fread(b.p + b.len, 1, 65536, stdin);
		b.len += n;
	} while (n > 0);
	one_frame(&b, count, level);
	free(b.p);
}

/* NOP ops are zero bytes: a frame that inflates enormously. */
static void
bomb(unsigned long bytes, int level)
{
	struct buf b = { 0 };

	need(&b, bytes);
	memset(b.p, 0, bytes);
	b.len = bytes;
	one_frame(&b, bytes, level);
	free(b.p);
}

int
main(int argc, char **argv)
{
	unsigned frames = 20, ops = 50, seed = 1;
	unsigned long wrap_count = 0, bomb_bytes = 0;
	int trace = 0, foreign = 0, wrap = 0, level = 6;

	arch = &archs[0];
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--quirks") == 0) {
			quirks = 1;
		} else if (strcmp(a, "--foreign") == 0) {
			foreign = 1;
		} else if (strcmp(a, "--wrap-trace") == 0) {
			wrap = 1;
		} else if (v == NULL) {
			fprintf(stderr, "gen-ucir: bad or incomplete option %s\n", a);
			return 2;
		} else if (i++, strcmp(a, "--wrap-replay") == 0) {
			wrap_count = strtoul(v, NULL, 10);
			wrap = 2;
		} else if (strcmp(a, "--bomb") == 0) {
			bomb_bytes = strtoul(v, NULL, 10);
		} else if (strcmp(a, "--size-mb") == 0) {
			size_target = strtoull(v, NULL, 10) << 20;
		} else if (strcmp(a, "--level") == 0) {
			level = one_level = atoi(v);
		} else if (strcmp(a, "--frames") == 0) {
			frames = (unsigned)strtoul(v, NULL, 10);
		} else if (strcmp(a, "--ops") == 0) {
			ops = (unsigned)strtoul(v, NULL, 10);
		} else if (strcmp(a, "--seed") == 0) {
			seed = (unsigned)strtoul(v, NULL, 10);
		} else if (strcmp(a, "--format") == 0) {
			trace = strcmp(v, "trace") == 0;
		} else if (strcmp(a, "--text") == 0) {
			if ((text = fopen(v, "w")) == NULL) {
				perror(v);
				return 2;
			}
		} else if (strcmp(a, "--arch") == 0) {
			size_t k;
			for (k = 0; k < NARCH && strcmp(archs[k].name, v) != 0; k++)
				;
			if (k == NARCH) {
				fprintf(stderr, "gen-ucir: unknown arch %s\n", v);
				return 2;
			}
			arch = &archs[k];
		} else {
			fprintf(stderr, "gen-ucir: unknown option %s\n", a);
			return 2;
		}
	}
	rng_state = seed;
	if (wrap == 1)
		wrap_trace();
	else if (wrap == 2)
		wrap_replay(wrap_count, level);
	else if (bomb_bytes > 0)
		bomb(bomb_bytes, level);
	else if (trace)
		gen_trace(frames, ops);
	else
		gen_replay(frames, ops, foreign);
	if (text != NULL && fclose(text) != 0)
		return 2;
	return fflush(stdout) != 0 || ferror(stdout) ? 2 : 0;
}
