/*
 * Usercorn traces: the decoder (ucir2txt) and the encoder (txt2ucir).
 *
 * Facts used here, from the reference (shared/reference/usercorn.md):
 * - The replay format is usercorn's 2016 PROTOCOL.md: 80-byte big-endian
 *   header, OP_FRAME messages of zlib-compressed big-endian ops.  Its op
 *   rows carry copy-paste errors; each table's title is right.  Widths
 *   are the spec's tables (EXEC size u32, MEM_MAP/UNMAP size u32, SYSCALL
 *   num u16), not the never-used 2016 Go code's.  Sub-ops carry their op
 *   byte, a keyframe flag is non-zero (the Go writer inverted it).
 * - The trace format (usercorn run -trace, 2017 on): 74-byte header (magic,
 *   version u32 BE, arch[32], os[32], code and data byte order), then one
 *   Snappy framing stream of little-endian ops, FRAME and KEYFRAME at top
 *   level carrying pid u64 and count u32; nested frames are refused.
 * - Register numbers are Unicorn's enums, the same in 1.0.1 to 2.1.4;
 *   the tables below are the reference's section 6.4, in enum order
 *   ("a/b": aliases of one value).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "base/snappyframe.h"
#include "formats/probe.h"
#include "text/text.h"
#include "formats/ucir/ucir.h"
#include "io/zframe.h"

static const char regs_x86[] =
    "invalid ah al ax bh bl bp bpl bx ch cl cs cx dh di dil dl ds "
    "dx eax ebp ebx ecx edi edx eflags eip eiz es esi esp fpsw fs "
    "gs ip rax rbp rbx rcx rdi rdx rip riz rsi rsp si sil sp spl "
    "ss cr0 cr1 cr2 cr3 cr4 cr5 cr6 cr7 cr8 cr9 cr10 cr11 cr12 "
    "cr13 cr14 cr15 dr0 dr1 dr2 dr3 dr4 dr5 dr6 dr7 dr8 dr9 dr10 "
    "dr11 dr12 dr13 dr14 dr15 fp0 fp1 fp2 fp3 fp4 fp5 fp6 fp7 k0 "
    "k1 k2 k3 k4 k5 k6 k7 mm0 mm1 mm2 mm3 mm4 mm5 mm6 mm7 r8 r9 "
    "r10 r11 r12 r13 r14 r15 st0 st1 st2 st3 st4 st5 st6 st7 xmm0 "
    "xmm1 xmm2 xmm3 xmm4 xmm5 xmm6 xmm7 xmm8 xmm9 xmm10 xmm11 "
    "xmm12 xmm13 xmm14 xmm15 xmm16 xmm17 xmm18 xmm19 xmm20 xmm21 "
    "xmm22 xmm23 xmm24 xmm25 xmm26 xmm27 xmm28 xmm29 xmm30 xmm31 "
    "ymm0 ymm1 ymm2 ymm3 ymm4 ymm5 ymm6 ymm7 ymm8 ymm9 ymm10 ymm11 "
    "ymm12 ymm13 ymm14 ymm15 ymm16 ymm17 ymm18 ymm19 ymm20 ymm21 "
    "ymm22 ymm23 ymm24 ymm25 ymm26 ymm27 ymm28 ymm29 ymm30 ymm31 "
    "zmm0 zmm1 zmm2 zmm3 zmm4 zmm5 zmm6 zmm7 zmm8 zmm9 zmm10 zmm11 "
    "zmm12 zmm13 zmm14 zmm15 zmm16 zmm17 zmm18 zmm19 zmm20 zmm21 "
    "zmm22 zmm23 zmm24 zmm25 zmm26 zmm27 zmm28 zmm29 zmm30 zmm31 "
    "r8b r9b r10b r11b r12b r13b r14b r15b r8d r9d r10d r11d r12d "
    "r13d r14d r15d r8w r9w r10w r11w r12w r13w r14w r15w idtr "
    "gdtr ldtr tr fpcw fptag msr mxcsr fs_base gs_base";

static const char regs_arm[] =
    "invalid apsr apsr_nzcv cpsr fpexc fpinst fpscr fpscr_nzcv "
    "fpsid itstate lr/r14 pc/r15 sp/r13 spsr d0 d1 d2 d3 d4 d5 d6 "
    "d7 d8 d9 d10 d11 d12 d13 d14 d15 d16 d17 d18 d19 d20 d21 d22 "
    "d23 d24 d25 d26 d27 d28 d29 d30 d31 fpinst2 mvfr0 mvfr1 mvfr2 "
    "q0 q1 q2 q3 q4 q5 q6 q7 q8 q9 q10 q11 q12 q13 q14 q15 r0 r1 "
    "r2 r3 r4 r5 r6 r7 r8 r9/sb r10/sl r11/fp r12/ip s0 s1 s2 s3 "
    "s4 s5 s6 s7 s8 s9 s10 s11 s12 s13 s14 s15 s16 s17 s18 s19 s20 "
    "s21 s22 s23 s24 s25 s26 s27 s28 s29 s30 s31 c1_c0_2 c13_c0_2 "
    "c13_c0_3 ipsr msp psp control";

static const char regs_arm64[] =
    "invalid x29/fp x30/lr nzcv sp wsp wzr xzr b0 b1 b2 b3 b4 b5 "
    "b6 b7 b8 b9 b10 b11 b12 b13 b14 b15 b16 b17 b18 b19 b20 b21 "
    "b22 b23 b24 b25 b26 b27 b28 b29 b30 b31 d0 d1 d2 d3 d4 d5 d6 "
    "d7 d8 d9 d10 d11 d12 d13 d14 d15 d16 d17 d18 d19 d20 d21 d22 "
    "d23 d24 d25 d26 d27 d28 d29 d30 d31 h0 h1 h2 h3 h4 h5 h6 h7 "
    "h8 h9 h10 h11 h12 h13 h14 h15 h16 h17 h18 h19 h20 h21 h22 h23 "
    "h24 h25 h26 h27 h28 h29 h30 h31 q0 q1 q2 q3 q4 q5 q6 q7 q8 q9 "
    "q10 q11 q12 q13 q14 q15 q16 q17 q18 q19 q20 q21 q22 q23 q24 "
    "q25 q26 q27 q28 q29 q30 q31 s0 s1 s2 s3 s4 s5 s6 s7 s8 s9 s10 "
    "s11 s12 s13 s14 s15 s16 s17 s18 s19 s20 s21 s22 s23 s24 s25 "
    "s26 s27 s28 s29 s30 s31 w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 "
    "w12 w13 w14 w15 w16 w17 w18 w19 w20 w21 w22 w23 w24 w25 w26 "
    "w27 w28 w29 w30 x0 x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x11 x12 x13 "
    "x14 x15 x16/ip0 x17/ip1 x18 x19 x20 x21 x22 x23 x24 x25 x26 "
    "x27 x28 v0 v1 v2 v3 v4 v5 v6 v7 v8 v9 v10 v11 v12 v13 v14 v15 "
    "v16 v17 v18 v19 v20 v21 v22 v23 v24 v25 v26 v27 v28 v29 v30 "
    "v31 pc cpacr_el1 tpidr_el0 tpidrro_el0 tpidr_el1 pstate "
    "elr_el0 elr_el1 elr_el2 elr_el3 sp_el0 sp_el1 sp_el2 sp_el3 "
    "ttbr0_el1 ttbr1_el1 esr_el0 esr_el1 esr_el2 esr_el3 far_el0 "
    "far_el1 far_el2 far_el3 par_el1 mair_el1 vbar_el0 vbar_el1 "
    "vbar_el2 vbar_el3";

static const char regs_mips[] =
    "invalid pc 0/zero 1/at 2/v0 3/v1 4/a0 5/a1 6/a2 7/a3 8/t0 "
    "9/t1 10/t2 11/t3 12/t4 13/t5 14/t6 15/t7 16/s0 17/s1 18/s2 "
    "19/s3 20/s4 21/s5 22/s6 23/s7 24/t8 25/t9 26/k0 27/k1 28/gp "
    "29/sp 30/fp/s8 31/ra dspccond dspcarry dspefi dspoutflag "
    "dspoutflag16_19 dspoutflag20 dspoutflag21 dspoutflag22 "
    "dspoutflag23 dsppos dspscount ac0/hi0/lo0 ac1/hi1/lo1 "
    "ac2/hi2/lo2 ac3/hi3/lo3 cc0 cc1 cc2 cc3 cc4 cc5 cc6 cc7 f0 f1 "
    "f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14 f15 f16 f17 f18 "
    "f19 f20 f21 f22 f23 f24 f25 f26 f27 f28 f29 f30 f31 fcc0 fcc1 "
    "fcc2 fcc3 fcc4 fcc5 fcc6 fcc7 w0 w1 w2 w3 w4 w5 w6 w7 w8 w9 "
    "w10 w11 w12 w13 w14 w15 w16 w17 w18 w19 w20 w21 w22 w23 w24 "
    "w25 w26 w27 w28 w29 w30 w31 hi lo p0 p1 p2 mpl0 mpl1 mpl2 "
    "cp0_config3 cp0_userlocal";

static const char regs_sparc[] =
    "invalid f0 f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14 f15 "
    "f16 f17 f18 f19 f20 f21 f22 f23 f24 f25 f26 f27 f28 f29 f30 "
    "f31 f32 f34 f36 f38 f40 f42 f44 f46 f48 f50 f52 f54 f56 f58 "
    "f60 f62 fcc0 fcc1 fcc2 fcc3 g0 g1 g2 g3 g4 g5 g6 g7 i0 i1 i2 "
    "i3 i4 i5 fp/i6 i7 icc l0 l1 l2 l3 l4 l5 l6 l7 o0 o1 o2 o3 o4 "
    "o5 sp/o6 o7 y xcc pc";

static const char regs_m68k[] =
    "invalid a0 a1 a2 a3 a4 a5 a6 a7 d0 d1 d2 d3 d4 d5 d6 d7 sr pc";

#define MAX_REGS 300
#define REG_HASH 1024

struct ucir_regs {
	const char *arch;
	const char *src;
	int ready;
	unsigned n;
	const char *name[MAX_REGS];	/* the name written */
	struct {
		const char *s;
		unsigned short len, num;
	} h[REG_HASH];			/* every name and alias */
	char buf[1600];
};

#define FITS(tab) _Static_assert(sizeof tab <= \
	sizeof ((struct ucir_regs *)0)->buf, #tab " outgrew its buffer")
FITS(regs_x86);
FITS(regs_arm);
FITS(regs_arm64);
FITS(regs_mips);
FITS(regs_sparc);
FITS(regs_m68k);
#undef FITS

static struct ucir_regs reg_tabs[] = {
	{ "x86", regs_x86, 0, 0, { 0 }, { { 0 } }, { 0 } },
	{ "arm", regs_arm, 0, 0, { 0 }, { { 0 } }, { 0 } },
	{ "arm64", regs_arm64, 0, 0, { 0 }, { { 0 } }, { 0 } },
	{ "mips", regs_mips, 0, 0, { 0 }, { { 0 } }, { 0 } },
	{ "sparc", regs_sparc, 0, 0, { 0 }, { { 0 } }, { 0 } },
	{ "m68k", regs_m68k, 0, 0, { 0 }, { { 0 } }, { 0 } },
};

static unsigned
reg_hash(const char *s, size_t n)
{
	unsigned h = 2166136261u;

	while (n-- > 0)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h & (REG_HASH - 1);
}

static int
all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* Split the table once: "lr/r14" is written "lr"; mips "2/zero" "zero". */
static const struct ucir_regs *
regs_ready(struct ucir_regs *t)
{
	char *p, *end;

	if (t->ready)
		return t;
	snprintf(t->buf, sizeof t->buf, "%s", t->src);	/* they fit: below */
	p = t->buf;
	end = p + strlen(p);
	while (p < end && t->n < MAX_REGS) {
		char *tok = p, *te = strchr(p, ' ');
		if (te == NULL)
			te = end;
		*te = '\0';
		t->name[t->n] = NULL;
		while (tok < te) {
			char *a = tok, *ae = strchr(tok, '/');
			unsigned hv;
			if (ae == NULL)
				ae = te;
			*ae = '\0';
			if (t->name[t->n] == NULL && !all_digits(a, (size_t)(ae - a)))
				t->name[t->n] = a;
			for (hv = reg_hash(a, (size_t)(ae - a)); t->h[hv].s != NULL;
			    hv = (hv + 1) & (REG_HASH - 1))
				;
			t->h[hv].s = a;
			t->h[hv].len = (unsigned short)(ae - a);
			t->h[hv].num = (unsigned short)t->n;
			tok = ae + 1;
		}
		t->n++;
		p = te + 1;
	}
	t->ready = 1;
	return t;
}

const struct ucir_regs *
ucir_regs_find(const char *arch, size_t n)
{
	int i = -1;

#define PFX(s) (n >= sizeof s - 1 && memcmp(arch, s, sizeof s - 1) == 0)
	if (PFX("x86") || PFX("i386") || PFX("amd64"))
		i = 0;
	else if (PFX("arm64") || PFX("aarch64"))
		i = 2;
	else if (PFX("arm"))
		i = 1;
	else if (PFX("mips"))
		i = 3;
	else if (PFX("sparc"))
		i = 4;
	else if (PFX("m68k"))
		i = 5;
#undef PFX
	return i < 0 ? NULL : regs_ready(&reg_tabs[i]);
}

static const char *const uc_arch_names[] = {
	NULL, "arm", "arm64", "mips", "x86", "ppc", "sparc", "m68k", "riscv",
	"s390x", "tricore"
};
#define N_UC_ARCH (sizeof uc_arch_names / sizeof uc_arch_names[0])

const char *
ucir_uc_arch_name(uint32_t uc_arch)
{
	return uc_arch < N_UC_ARCH ? uc_arch_names[uc_arch] : NULL;
}

const struct ucir_regs *
ucir_regs_of_uc_arch(uint32_t uc_arch)
{
	const char *s = ucir_uc_arch_name(uc_arch);

	return s == NULL ? NULL : ucir_regs_find(s, strlen(s));
}

const char *
ucir_reg_name(const struct ucir_regs *t, unsigned num)
{
	return t != NULL && num < t->n ? t->name[num] : NULL;
}

int
ucir_reg_num(const struct ucir_regs *t, const char *name, size_t n)
{
	unsigned hv;

	if (t == NULL)
		return -1;
	for (hv = reg_hash(name, n); t->h[hv].s != NULL;
	    hv = (hv + 1) & (REG_HASH - 1))
		if (t->h[hv].len == n && memcmp(t->h[hv].s, name, n) == 0)
			return t->h[hv].num;
	return -1;
}

/* The uc_arch and uc_mode usercorn gave each arch (reference 6.2). */
static const struct {
	const char *arch;
	uint32_t uc_arch, uc_mode;
} arch_modes[] = {
	{ "x86", 4, 4 }, { "x86_64", 4, 8 }, { "x86_16", 4, 2 },
	{ "arm", 1, 0 }, { "arm64", 2, 0 }, { "mips", 3, 4 },
	{ "sparc", 6, 0x40000004 }, { "m68k", 7, 0x40000000 },
};

/* ---------------------------------------------------------------- decoder */

enum { OP_BAD = -1, OP_SHORT = -2 };

/* The chunk each stretch of the Snappy stream came from (diagnostics). */
struct chunk_at {
	uint64_t soff, foff;	/* stream offset of its first byte; file offset */
};

struct dec {
	struct tp_out *out;
	struct ucir_dec_stats *st;
	const struct ucir_regs *regs;
	size_t max;
	int trace;		/* little-endian trace-format ops */
	int verify;		/* try even an unambiguous zlib level */
	uint64_t tid;		/* the frame's pid (trace), else 0 */
	uint64_t pc;		/* instruction the accesses belong to */
	uint64_t next;		/* replay: where EXEC_REL's instruction is */
	char why[160];		/* what is wrong with an op */
	size_t at;		/* where: offset in the buffer walked */
	struct zframe z;
	struct zf_buf comp, raw, scratch;
	/* The trace format's decompressed stream: sb.p[spos..sb.len). */
	struct zf_buf sb, chunk;
	size_t spos;
	uint64_t sbase;		/* stream offset of sb.p[0] */
	struct chunk_at *cmap;
	size_t ncmap, capcmap;
	struct tp_snappy sn;
	uint64_t frame_ix;	/* the frame being read, for diagnostics */
};

static uint16_t
g16(const struct dec *d, const unsigned char *p)
{
	return d->trace ? tp_get_le16(p) : tp_get_be16(p);
}

static uint64_t
g64(const struct dec *d, const unsigned char *p)
{
	return d->trace ? tp_get_le64(p) : tp_get_be64(p);
}

static long
op_bad(struct dec *d, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static long
op_bad(struct dec *d, size_t at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->why, sizeof d->why, fmt, ap);
	va_end(ap);
	d->at = at;
	return OP_BAD;
}

static void
rec_begin(struct dec *d, const char *kind, unsigned depth)
{
	tw_begin(d->out, kind);
	tw_u64(d->out, "tid", d->tid);
	if (depth > 0)
		tw_u64(d->out, "depth", depth);
}

static void
put_reg(struct dec *d, unsigned num)
{
	const char *name = ucir_reg_name(d->regs, num);

	if (name != NULL)
		tw_str(d->out, "reg", name, strlen(name));
	else
		tw_u64(d->out, "reg", num);
}

static void
put_prot(struct dec *d, unsigned prot)
{
	char s[3];

	if (prot > 7) {
		tw_hex(d->out, "prot", prot);
		return;
	}
	s[0] = prot & 1 ? 'r' : '-';
	s[1] = prot & 2 ? 'w' : '-';
	s[2] = prot & 4 ? 'x' : '-';
	tw_str(d->out, "prot", s, 3);
}

/*
 * The hot records (insn, read, write, reg) are formatted straight into the
 * output buffer, without the writer's per-field calls.  Each starts with
 * "KIND tid=N" and " depth=D" inside a syscall.
 */
#define FAST_DATA 4096	/* longer data goes through tw_bytes */

static char *
fast_head(struct dec *d, char *p, const char *kind, size_t klen,
    unsigned depth)
{
	memcpy(p, kind, klen);
	memcpy(p + klen, " tid=", 5);
	p = tp_fmt_u64(p + klen + 5, d->tid);
	if (depth > 0) {
		memcpy(p, " depth=", 7);
		p = tp_fmt_u64(p + 7, depth);
	}
	return p;
}

static void
put_insn(struct dec *d, unsigned depth, uint64_t pc, uint64_t size, int abs)
{
	char *p = fast_head(d, tp_out_reserve(d->out, 128), "insn", 4, depth);

	memcpy(p, " pc=", 4);
	p = tp_fmt_hex(p + 4, pc);
	memcpy(p, " size=", 6);
	p = tp_fmt_u64(p + 6, size);
	if (abs) {
		memcpy(p, " exec=abs", 9);
		p += 9;
	}
	*p++ = '\n';
	tp_out_commit(d->out, p);
	d->st->insns++;
}

static void
put_access(struct dec *d, int write, unsigned depth, uint64_t addr,
    uint64_t size, const unsigned char *data, int has_data)
{
	int fast = !has_data || size <= FAST_DATA;
	char *p = tp_out_reserve(d->out, 128 + (fast && has_data ?
	    2 * (size_t)size : 0));

	p = write ? fast_head(d, p, "write", 5, depth) :
	    fast_head(d, p, "read", 4, depth);
	memcpy(p, " pc=", 4);
	p = tp_fmt_hex(p + 4, d->pc);
	memcpy(p, " addr=", 6);
	p = tp_fmt_hex(p + 6, addr);
	memcpy(p, " size=", 6);
	p = tp_fmt_u64(p + 6, size);
	if (has_data && fast) {
		memcpy(p, " data=", 6);
		p = tp_fmt_hexbytes(p + 6, data, (size_t)size);
	}
	if (!fast) {
		tp_out_commit(d->out, p);
		tw_bytes(d->out, "data", data, (size_t)size);
		p = tp_out_reserve(d->out, 1);
	}
	*p++ = '\n';
	tp_out_commit(d->out, p);
	if (write)
		d->st->writes++;
	else
		d->st->reads++;
}

static void
put_reg_value(struct dec *d, unsigned depth, unsigned num, uint64_t value)
{
	const char *name = ucir_reg_name(d->regs, num);
	char *p = fast_head(d, tp_out_reserve(d->out, 128), "ucir-reg", 8,
	    depth);

	memcpy(p, " reg=", 5);
	p += 5;
	if (name != NULL) {
		size_t n = strlen(name);
		memcpy(p, name, n);
		p += n;
	} else {
		p = tp_fmt_u64(p, num);
	}
	memcpy(p, " value=", 7);
	p = tp_fmt_hex(p + 7, value);
	*p++ = '\n';
	tp_out_commit(d->out, p);
}

static const char *const replay_op_name[UCIR_NOPS] = {
	"NOP", "FRAME", "EXEC_ABS", "EXEC_REL", "REG_CHANGE", "SPREG_CHANGE",
	"MEM_READ", "MEM_WRITE", "MEM_MAP", "MEM_UNMAP", "SYSCALL", "EXIT"
};
static const char *const trace_op_name[UCIR_T_NOPS] = {
	"NOP", "FRAME", "KEYFRAME", "JMP", "STEP", "REG", "SPREG", "MEM_READ",
	"MEM_WRITE", "MEM_MAP", "MEM_UNMAP", "MEM_PROT", "SYSCALL", "EXIT"
};

/* Fixed op sizes (op byte included), 0 where the size varies. */
static const unsigned char replay_fixed[UCIR_NOPS] = {
	1, 0, 13, 5, 11, 0, 0, 0, 14, 13, 0, 1
};
static const unsigned char trace_fixed[UCIR_T_NOPS] = {
	1, 0, 0, 13, 2, 11, 0, 13, 0, 0, 17, 18, 0, 1
};

static long op_walk(struct dec *d, const unsigned char *p, size_t n,
    size_t at, unsigned depth, int emit);

/*
 * A syscall: header, arguments, then its ops one level deeper.  Same
 * returns as op_walk.
 */
static long
syscall_walk(struct dec *d, const unsigned char *p, size_t n, size_t at,
    unsigned depth, int emit)
{
	size_t hl = d->trace ? 16 : 15, len;
	unsigned argc, count, i;
	uint64_t num;

	if (n < hl)
		return OP_SHORT;
	if (d->trace) {
		num = tp_get_le32(p + 1);
		argc = p[13];
		count = tp_get_le16(p + 14);
	} else {
		num = tp_get_be16(p + 1);
		argc = tp_get_be16(p + 11);
		count = tp_get_be16(p + 13);
	}
	if (depth + 1 >= UCIR_MAX_DEPTH)
		return op_bad(d, at, "syscalls nested deeper than %d",
		    UCIR_MAX_DEPTH);
	len = hl + 8 * (size_t)argc;
	if (n < len)
		return OP_SHORT;
	if (emit) {
		rec_begin(d, "ucir-syscall", depth);
		tw_u64(d->out, "num", num);
		tw_hex(d->out, "ret", g64(d, p + (d->trace ? 5 : 3)));
		tw_key(d->out, "args");
		tv_open_list(d->out);
		for (i = 0; i < argc; i++) {
			if (i > 0)
				tv_sep(d->out);
			tv_hex(d->out, g64(d, p + hl + 8 * (size_t)i));
		}
		tv_close_list(d->out);
		tw_end(d->out);
		d->st->syscalls++;
	}
	for (i = 0; i < count; i++) {
		long k = op_walk(d, p + len, n - len, at + len, depth + 1, emit);
		if (k < 0)
			return k;
		len += (size_t)k;
	}
	return (long)len;
}

/*
 * One op at p (n bytes available, at its offset for messages): its whole
 * length, OP_SHORT when n is too few bytes, or OP_BAD with d->why.  With
 * emit it also writes its records; without, it only checks.
 */
static long
op_walk(struct dec *d, const unsigned char *p, size_t n, size_t at,
    unsigned depth, int emit)
{
	unsigned op = p[0], nops = d->trace ? UCIR_T_NOPS : UCIR_NOPS;
	const unsigned char *fixed = d->trace ? trace_fixed : replay_fixed;
	uint64_t v, size;
	size_t len;

	if (n == 0)
		return OP_SHORT;
	if (op >= nops)
		return op_bad(d, at, "unknown op %u (0-%u)", op, nops - 1);
	if (op == UCIR_OP_FRAME || (d->trace && op == UCIR_T_KEYFRAME))
		return op_bad(d, at, "OP_%s inside a %s", d->trace ?
		    trace_op_name[op] : replay_op_name[op], depth > 0 ?
		    "syscall" : "frame");
	len = fixed[op];
	if (len > 0 && n < len)
		return OP_SHORT;
	if (d->trace) {
		switch (op) {
		case UCIR_T_NOP:
		case UCIR_T_EXIT:
			if (emit) {
				rec_begin(d, op == UCIR_T_NOP ? "ucir-nop" :
				    "ucir-exit", depth);
				tw_end(d->out);
			}
			break;
		case UCIR_T_JMP:
			if (emit) {
				d->pc = tp_get_le64(p + 1);
				rec_begin(d, "ucir-jmp", depth);
				tw_hex(d->out, "pc", d->pc);
				tw_u64(d->out, "size", tp_get_le32(p + 9));
				tw_end(d->out);
			}
			break;
		case UCIR_T_STEP:
			if (emit) {
				put_insn(d, depth, d->pc, p[1], 0);
				d->pc += p[1];
			}
			break;
		case UCIR_T_MEM_READ:
			if (emit)
				put_access(d, 0, depth, tp_get_le64(p + 1),
				    tp_get_le32(p + 9), NULL, 0);
			break;
		case UCIR_T_MEM_WRITE:
			if (n < 13)
				return OP_SHORT;
			size = tp_get_le32(p + 9);
			if (size > UCIR_MAX_DATA)
				return op_bad(d, at, "MEM_WRITE of %llu bytes: more "
				    "than %u", (unsigned long long)size,
				    UCIR_MAX_DATA);
			len = 13 + (size_t)size;
			if (n < len)
				return OP_SHORT;
			if (emit)
				put_access(d, 1, depth, tp_get_le64(p + 1),
				    size, p + 13, 1);
			break;
		case UCIR_T_MEM_MAP: {
			unsigned dl, fl;
			if (n < 38)
				return OP_SHORT;
			dl = tp_get_le16(p + 34);
			fl = tp_get_le16(p + 36);
			len = 38 + (size_t)dl + fl;
			if (n < len)
				return OP_SHORT;
			if (emit) {
				rec_begin(d, "ucir-map", depth);
				tw_hex(d->out, "addr", tp_get_le64(p + 1));
				tw_u64(d->out, "size", tp_get_le64(p + 9));
				put_prot(d, p[17]);
				tw_hex(d->out, "off", tp_get_le64(p + 18));
				tw_u64(d->out, "len", tp_get_le64(p + 26));
				tw_str(d->out, "desc", p + 38, dl);
				tw_str(d->out, "file", p + 38 + dl, fl);
				tw_end(d->out);
			}
			break;
		}
		case UCIR_T_MEM_UNMAP:
		case UCIR_T_MEM_PROT:
			if (emit) {
				rec_begin(d, op == UCIR_T_MEM_UNMAP ? "ucir-unmap" :
				    "ucir-prot", depth);
				tw_hex(d->out, "addr", tp_get_le64(p + 1));
				tw_u64(d->out, "size", tp_get_le64(p + 9));
				if (op == UCIR_T_MEM_PROT)
					put_prot(d, p[17]);
				tw_end(d->out);
			}
			break;
		case UCIR_T_REG:
		case UCIR_T_SPREG:
			goto reg;
		case UCIR_T_SYSCALL:
			goto syscall;
		}
		goto done;
	}

	switch (op) {
	case UCIR_OP_NOP:
	case UCIR_OP_EXIT:
		if (emit) {
			rec_begin(d, op == UCIR_OP_NOP ? "ucir-nop" : "ucir-exit",
			    depth);
			tw_end(d->out);
		}
		break;
	case UCIR_OP_EXEC_ABS:
	case UCIR_OP_EXEC_REL:
		if (emit) {
			uint64_t pc = op == UCIR_OP_EXEC_ABS ?
			    tp_get_be64(p + 1) : d->next;
			uint32_t isz = tp_get_be32(op == UCIR_OP_EXEC_ABS ?
			    p + 9 : p + 1);
			/* txt2ucir writes EXEC_REL where it can. */
			put_insn(d, depth, pc, isz, op == UCIR_OP_EXEC_ABS &&
			    pc == d->next);
			d->pc = pc;
			d->next = pc + isz;
		}
		break;
	case UCIR_OP_REG_CHANGE:
	case UCIR_OP_SPREG_CHANGE:
		goto reg;
	case UCIR_OP_MEM_READ:
	case UCIR_OP_MEM_WRITE:
		if (n < 17)
			return OP_SHORT;
		size = tp_get_be64(p + 9);
		if (size > UCIR_MAX_DATA)
			return op_bad(d, at, "%s of %llu bytes: more than %u",
			    replay_op_name[op], (unsigned long long)size,
			    UCIR_MAX_DATA);
		len = 17 + (size_t)size;
		if (n < len)
			return OP_SHORT;
		if (emit)
			put_access(d, op == UCIR_OP_MEM_WRITE, depth,
			    tp_get_be64(p + 1), size, p + 17, 1);
		break;
	case UCIR_OP_MEM_MAP:
	case UCIR_OP_MEM_UNMAP:
		if (emit) {
			rec_begin(d, op == UCIR_OP_MEM_MAP ? "ucir-map" :
			    "ucir-unmap", depth);
			tw_hex(d->out, "addr", tp_get_be64(p + 1));
			tw_u64(d->out, "size", tp_get_be32(p + 9));
			if (op == UCIR_OP_MEM_MAP)
				put_prot(d, p[13]);
			tw_end(d->out);
		}
		break;
	case UCIR_OP_SYSCALL:
		goto syscall;
	}
	goto done;

reg:
	/* REG and SPREG have the same layout in both formats. */
	if (op == (d->trace ? UCIR_T_REG : UCIR_OP_REG_CHANGE)) {
		if (emit)
			put_reg_value(d, depth, g16(d, p + 1), g64(d, p + 3));
	} else {
		if (n < 5)
			return OP_SHORT;
		v = g16(d, p + 3);
		len = 5 + (size_t)v;
		if (n < len)
			return OP_SHORT;
		if (emit) {
			rec_begin(d, "ucir-spreg", depth);
			put_reg(d, g16(d, p + 1));
			tw_bytes(d->out, "data", p + 5, (size_t)v);
			tw_end(d->out);
		}
	}
	goto done;

syscall: {
	long k = syscall_walk(d, p, n, at, depth, emit);
	if (k < 0)
		return k;
	len = (size_t)k;
	}
done:
	if (emit)
		d->st->ops++;
	return (long)len;
}

static int
dec_fail(struct tp_err *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
dec_fail(struct tp_err *err, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tp_failv(err, status, fmt, ap);
	va_end(ap);
	return -1;
}

/* A zframe or buffer error: out of memory is a system error. */
static int
zf_fail_to(struct tp_err *err, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
zf_fail_to(struct tp_err *err, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tp_failv(err, rc == ZF_NOMEM ? TP_EXIT_FAIL : TP_EXIT_DATA, fmt, ap);
	va_end(ap);
	return -1;
}

/* Walk the ops of an inflated replay frame: check (emit 0) or write. */
static int
frame_ops(struct dec *d, const unsigned char *p, size_t n, uint32_t count,
    int emit, struct tp_err *err)
{
	size_t pos = 0;
	uint64_t k = 0;

	while (pos < n) {
		long len = op_walk(d, p + pos, n - pos, pos, 0, emit);
		if (len == OP_SHORT)
			return dec_fail(err, TP_EXIT_DATA, "op at byte 0x%zx of "
			    "the inflated frame (%zu bytes): cut by the frame's "
			    "end", pos, n);
		if (len < 0)
			return dec_fail(err, TP_EXIT_DATA, "byte 0x%zx of the "
			    "inflated frame: %s", d->at, d->why);
		pos += (size_t)len;
		k++;
	}
	if (k != count)
		return dec_fail(err, TP_EXIT_DATA, "the frame header says %u "
		    "ops, its data holds %llu", count, (unsigned long long)k);
	return 0;
}

static int
decode_replay(struct dec *d, struct tp_in *in, struct tp_err *err)
{
	struct ucir_dec_stats *st = d->st;

	for (;;) {
		uint64_t off = tp_in_offset(in);
		unsigned char h[10];
		uint32_t count, size;
		int rc, level, exact;

		err->offset = off;
		err->index = st->frames;
		err->unit = "frame";
		if ((rc = tp_in_exact(in, h, 1, "op")) <= 0)
			return rc;
		if (h[0] != UCIR_OP_FRAME)
			return dec_fail(err, TP_EXIT_DATA, "op %u at top level: "
			    "a replay file holds OP_FRAME (1) messages only",
			    h[0]);
		if ((rc = tp_in_exact(in, h + 1, 9, "frame header")) <= 0) {
			if (rc == 0)
				dec_fail(err, TP_EXIT_DATA, "truncated frame "
				    "header: needed 9 bytes after the op, none left");
			err->offset = off;
			return -1;
		}
		count = tp_get_be32(h + 2);
		size = tp_get_be32(h + 6);
		if (size > d->max)
			return dec_fail(err, TP_EXIT_DATA, "frame of %u compressed "
			    "bytes: more than the limit of %zu (--max-frame)",
			    size, d->max);
		if (zf_buf_reserve(&d->comp, size) < 0)
			return dec_fail(err, TP_EXIT_FAIL, "out of memory");
		rc = size == 0 ? 0 : tp_in_exact(in, d->comp.p, size,
		    "frame data");
		if (rc <= 0 && size > 0) {
			if (rc == 0)
				dec_fail(err, TP_EXIT_DATA, "truncated frame data: "
				    "needed %u bytes, none left", size);
			err->offset = off;
			return -1;
		}
		rc = zf_inflate(&d->z, d->comp.p, size, &d->raw, d->max);
		if (rc == ZF_TOO_BIG)
			return dec_fail(err, TP_EXIT_DATA, "frame data inflates "
			    "to more than the limit of %zu bytes (--max-frame): "
			    "refused", d->max);
		if (rc < 0)
			return zf_fail_to(err, rc, "frame data (%u bytes): %s at "
			    "byte %zu", size, d->z.msg, d->z.in_used);
		if (frame_ops(d, d->raw.p, d->raw.len, count, 0, err) < 0)
			return -1;
		level = zf_level_of(&d->z, d->comp.p, size, d->raw.p,
		    d->raw.len, &d->scratch, d->verify, &exact);
		if (level < 0)
			return dec_fail(err, TP_EXIT_FAIL, "out of memory");
		st->level_guessed += exact == 0;
		rec_begin(d, "ucir-frame", 0);
		tw_bool(d->out, "keyframe", h[1] != 0);
		tw_u64(d->out, "level", (unsigned)level);
		if (h[1] > 1)
			tw_hex(d->out, "flag", h[1]);
		tw_end(d->out);
		st->frames++;
		st->ops++;
		st->keyframes += h[1] != 0;
		st->inflated += d->raw.len;
		if (frame_ops(d, d->raw.p, d->raw.len, count, 1, err) < 0)
			return -1;
	}
}

/* ------------------------------------------------- the trace format's stream */

/* Remember which file offset the stream bytes from soff on came from. */
static int
cmap_add(struct dec *d, uint64_t soff, uint64_t foff)
{
	if (d->ncmap == d->capcmap) {
		size_t cap = d->capcmap ? d->capcmap * 2 : 16;
		struct chunk_at *m = realloc(d->cmap, cap * sizeof *m);
		if (m == NULL)
			return -1;
		d->cmap = m;
		d->capcmap = cap;
	}
	d->cmap[d->ncmap].soff = soff;
	d->cmap[d->ncmap].foff = foff;
	d->ncmap++;
	return 0;
}

/* The file offset of the chunk holding stream byte soff. */
static uint64_t
cmap_find(const struct dec *d, uint64_t soff)
{
	size_t i = d->ncmap;

	while (i > 0 && d->cmap[i - 1].soff > soff)
		i--;
	return i > 0 ? d->cmap[i - 1].foff : UCIR_TRACE_HEADER;
}

/*
 * Append the next data chunk's bytes to the stream buffer.  1, 0 at the
 * end of the file, -1 with err (offset: the chunk).
 */
static int
sn_more(struct dec *d, struct tp_in *in, struct tp_err *err)
{
	for (;;) {
		uint64_t foff = tp_in_offset(in);
		unsigned char h[4];
		uint32_t len;
		size_t n;
		int rc;

		if ((rc = tp_in_exact(in, h, 4, "Snappy chunk header")) <= 0) {
			err->offset = foff;
			return rc;
		}
		err->offset = foff;
		err->index = d->st->chunks;
		err->unit = "chunk";
		if (tp_snappy_head(&d->sn, h, &len, err) < 0)
			return -1;
		if (zf_buf_reserve(&d->chunk, len) < 0)
			return dec_fail(err, TP_EXIT_FAIL, "out of memory");
		if ((rc = tp_in_exact(in, d->chunk.p, len,
		    "Snappy chunk")) <= 0) {
			if (rc == 0 && len > 0)
				dec_fail(err, TP_EXIT_DATA, "truncated Snappy chunk: "
				    "needed %u bytes, none left", len);
			err->offset = foff;
			if (rc < 0 || len > 0)
				return -1;
		}
		d->st->chunks++;
		rc = tp_snappy_body(&d->sn, h[0], d->chunk.p, len, &n, err);
		if (rc == TP_SNAPPY_NOLIB)
			return dec_fail(err, TP_EXIT_FAIL, "Snappy-compressed "
			    "chunk: this program was built without libsnappy "
			    "(Debian: libsnappy-dev), so it reads only the stored "
			    "chunks of a usercorn trace");
		if (rc < 0)
			return -1;
		if (rc == 0)
			continue;
		if (zf_buf_reserve(&d->sb, d->sb.len + n) < 0)
			return dec_fail(err, TP_EXIT_FAIL, "out of memory");
		if (tp_snappy_data(h[0], d->chunk.p, len, d->sb.p + d->sb.len, n,
		    err) < 0)
			return -1;
		if (n == 0)
			continue;
		if (cmap_add(d, d->sbase + d->sb.len, foff) < 0)
			return dec_fail(err, TP_EXIT_FAIL, "out of memory");
		d->sb.len += n;
		d->st->inflated += n;
		return 1;
	}
}

/*
 * At least n bytes at sb.p + spos.  Returns how many are there (fewer
 * than n only at the end of the file), or -1.
 */
static long
sn_need(struct dec *d, struct tp_in *in, size_t n, struct tp_err *err)
{
	while (d->sb.len - d->spos < n) {
		int rc;
		if (d->spos > 0) {
			/* Keep only the unread bytes, and their chunk offsets. */
			size_t keep = d->sb.len - d->spos, i = 0;
			memmove(d->sb.p, d->sb.p + d->spos, keep);
			d->sbase += d->spos;
			d->sb.len = keep;
			d->spos = 0;
			while (i + 1 < d->ncmap && d->cmap[i + 1].soff <= d->sbase)
				i++;
			memmove(d->cmap, d->cmap + i, (d->ncmap - i) *
			    sizeof *d->cmap);
			d->ncmap -= i;
		}
		if ((rc = sn_more(d, in, err)) < 0)
			return -1;
		if (rc == 0)
			break;
	}
	return (long)(d->sb.len - d->spos);
}

/* A fault at stream byte soff: the chunk it is in, and the stream offset. */
static int
stream_fail(struct dec *d, struct tp_err *err, uint64_t soff, const char *what)
{
	err->offset = cmap_find(d, soff);
	err->index = d->frame_ix;
	err->unit = "frame";
	return dec_fail(err, TP_EXIT_DATA, "byte 0x%llx of the Snappy stream: %s",
	    (unsigned long long)soff, what);
}

/* The next whole op of a frame at sb.p + spos, read from in as needed. */
static long
trace_op(struct dec *d, struct tp_in *in, struct tp_err *err, size_t *want)
{
	for (;;) {
		long avail = sn_need(d, in, *want, err), len;
		uint64_t soff = d->sbase + d->spos;

		if (avail < 0)
			return -1;
		if (avail == 0)
			return 0;
		len = op_walk(d, d->sb.p + d->spos, (size_t)avail, 0, 0, 0);
		if (len > 0)
			return len;
		if (len == OP_BAD)
			return stream_fail(d, err, soff + d->at, d->why);
		if ((size_t)avail < *want)
			return stream_fail(d, err, soff, "op cut by the end of "
			    "the file");
		if (*want >= d->max)
			return stream_fail(d, err, soff, "op longer than the "
			    "limit (--max-frame)");
		*want = *want * 2 > d->max ? d->max : *want * 2;
	}
}

static int
decode_trace(struct dec *d, struct tp_in *in, struct tp_err *err)
{
	struct ucir_dec_stats *st = d->st;

	for (;;) {
		long avail = sn_need(d, in, 13, err);
		const unsigned char *p;
		uint64_t soff = d->sbase + d->spos;
		uint32_t count, i;

		d->frame_ix = st->frames;
		if (avail <= 0)
			return (int)avail;
		p = d->sb.p + d->spos;
		if (p[0] != UCIR_T_FRAME && p[0] != UCIR_T_KEYFRAME) {
			char what[80];
			snprintf(what, sizeof what, "op %u at top level: usercorn "
			    "writes KEYFRAME and FRAME ops only", p[0]);
			return stream_fail(d, err, soff, what);
		}
		if (avail < 13)
			return stream_fail(d, err, soff, "frame header cut by the "
			    "end of the file");
		d->tid = tp_get_le64(p + 1);
		count = tp_get_le32(p + 9);
		rec_begin(d, "ucir-frame", 0);
		tw_bool(d->out, "keyframe", p[0] == UCIR_T_KEYFRAME);
		tw_end(d->out);
		st->frames++;
		st->keyframes += p[0] == UCIR_T_KEYFRAME;
		st->ops++;
		d->spos += 13;
		for (i = 0; i < count; i++) {
			size_t want = 64;
			long len = trace_op(d, in, err, &want);
			if (len < 0)
				return -1;
			if (len == 0) {
				char what[80];
				snprintf(what, sizeof what, "the file ends inside "
				    "the frame after %u of its %u ops", i, count);
				return stream_fail(d, err, d->sbase + d->spos, what);
			}
			op_walk(d, d->sb.p + d->spos, (size_t)len, 0, 0, 1);
			d->spos += (size_t)len;
		}
	}
}

/* ---------------------------------------------------------------- header */

/* A NUL-padded name: the string, then the padding when it is not zeros. */
static void
put_name(struct tp_out *o, const char *key, const char *padkey,
    const unsigned char *p)
{
	const unsigned char *nul = memchr(p, 0, UCIR_NAME_LEN);
	size_t n = nul ? (size_t)(nul - p) : UCIR_NAME_LEN, i;

	tw_str(o, key, p, n);
	for (i = n; i < UCIR_NAME_LEN; i++)
		if (p[i] != 0)
			break;
	if (i < UCIR_NAME_LEN)
		tw_bytes(o, padkey, p + n + 1, UCIR_NAME_LEN - n - 1);
}

static void
put_order(struct tp_out *o, const char *key, unsigned v)
{
	if (v <= 1)
		tw_str(o, key, v ? "big" : "little", v ? 3 : 6);
	else
		tw_u64(o, key, v);
}

/* Which format follows the magic: the Snappy identifier says trace. */
static int
variant_of(const unsigned char *p, size_t n, const char **old)
{
	*old = NULL;
	if (n > UCIR_TRACE_HEADER && memcmp(p + UCIR_TRACE_HEADER, tp_snappy_ident,
	    n - UCIR_TRACE_HEADER < 10 ? n - UCIR_TRACE_HEADER : 10) == 0)
		return UCIR_TRACE;	/* (cut inside the identifier: too) */
	if (n >= 72 + 10 && memcmp(p + 72, tp_snappy_ident, 10) == 0)
		*old = "a usercorn trace of May-August 2017 (72-byte header, "
		    "commits a9e5566 to 2118735)";
	else if (n >= 80 + 10 && memcmp(p + 80, tp_snappy_ident, 10) == 0)
		*old = "a usercorn trace of May 2017 (80-byte header with "
		    "uc_arch and uc_mode, commits 0f01a36 to a9e5566)";
	return UCIR_REPLAY;
}

static int
decode_header(struct dec *d, struct tp_in *in, struct tp_err *err)
{
	struct ucir_dec_stats *st = d->st;
	const unsigned char *p;
	const char *old;
	long avail;
	const unsigned char *nul;
	size_t hl;

	err->offset = 0;
	if ((avail = tp_in_fill(in, UCIR_REPLAY_HEADER + 10)) < 0)
		return -1;
	p = in->buf + in->pos;
	if (avail < 4 || memcmp(p, "UCIR", 4) != 0) {
		if (avail == 0)
			return dec_fail(err, TP_EXIT_DATA, "empty input: not a "
			    "Usercorn trace");
		if (avail >= 4 || memcmp(p, "UCIR", (size_t)avail) != 0)
			return dec_fail(err, TP_EXIT_DATA, "not a Usercorn "
			    "trace: no UCIR magic");
	}
	st->variant = variant_of(p, (size_t)avail, &old);
	if (old != NULL)
		return dec_fail(err, TP_EXIT_DATA, "%s: not supported (this "
		    "program reads the replay format and usercorn's trace "
		    "format of September 2017 on)", old);
	hl = st->variant == UCIR_TRACE ? UCIR_TRACE_HEADER : UCIR_REPLAY_HEADER;
	if ((size_t)avail < hl)
		return dec_fail(err, TP_EXIT_DATA, "truncated header: %ld of "
		    "%zu bytes", avail, hl);
	d->trace = st->variant == UCIR_TRACE;
	tw_begin(d->out, "ucir-header");
	if (d->trace) {
		tw_str(d->out, "format", "trace", 5);
		tw_u64(d->out, "version", tp_get_be32(p + 4));
		put_name(d->out, "arch", "arch_pad", p + 8);
		put_name(d->out, "os", "os_pad", p + 40);
		put_order(d->out, "code_order", p[72]);
		put_order(d->out, "data_order", p[73]);
		nul = p + 8;
	} else {
		uint32_t uc_arch = tp_get_be32(p + 8);
		const char *an = ucir_uc_arch_name(uc_arch);
		tw_str(d->out, "format", "replay", 6);
		tw_u64(d->out, "version", tp_get_be32(p + 4));
		if (an != NULL)
			tw_str(d->out, "uc_arch", an, strlen(an));
		else
			tw_u64(d->out, "uc_arch", uc_arch);
		tw_hex(d->out, "uc_mode", tp_get_be32(p + 12));
		put_name(d->out, "arch", "arch_pad", p + 16);
		put_name(d->out, "os", "os_pad", p + 48);
		nul = p + 16;
		d->regs = ucir_regs_of_uc_arch(uc_arch);
	}
	tw_end(d->out);
	memcpy(st->arch, nul, UCIR_NAME_LEN);
	st->arch[UCIR_NAME_LEN] = '\0';
	if (ucir_regs_find(st->arch, strlen(st->arch)) != NULL)
		d->regs = ucir_regs_find(st->arch, strlen(st->arch));
	in->pos += hl;
	st->header_done = 1;
	return 0;
}

int
ucir_decode(struct tp_in *in, struct tp_out *out,
    const struct ucir_dec_opts *opts, struct ucir_dec_stats *st,
    struct tp_err *err)
{
	static const struct ucir_dec_opts defaults;
	struct ucir_dec_stats dummy;
	struct dec d;
	int rc;

	if (opts == NULL)
		opts = &defaults;
	if (st == NULL)
		st = &dummy;
	memset(st, 0, sizeof *st);
	memset(&d, 0, sizeof d);
	d.out = out;
	d.st = st;
	d.max = opts->max_frame ? opts->max_frame : UCIR_MAX_FRAME;
	d.verify = opts->verify_level;
	zf_init(&d.z);
	rc = decode_header(&d, in, err);
	if (rc == 0)
		rc = d.trace ? decode_trace(&d, in, err) :
		    decode_replay(&d, in, err);
	zf_free(&d.z);
	zf_buf_free(&d.comp);
	zf_buf_free(&d.raw);
	zf_buf_free(&d.scratch);
	zf_buf_free(&d.sb);
	zf_buf_free(&d.chunk);
	free(d.cmap);
	return rc < 0 ? -1 : 0;
}

int
ucir_probe(const unsigned char *p, size_t n, char *detail, size_t detailsz)
{
	const char *old;
	int v;

	if (n < 4 || memcmp(p, "UCIR", 4) != 0)
		return TP_PROBE_NO;
	v = variant_of(p, n, &old);
	if (detail != NULL && detailsz > 0) {
		size_t at = v == UCIR_TRACE ? 8 : 16;
		char arch[UCIR_NAME_LEN + 1] = "";
		if (n >= at + UCIR_NAME_LEN) {
			memcpy(arch, p + at, UCIR_NAME_LEN);
			arch[UCIR_NAME_LEN] = '\0';
		}
		snprintf(detail, detailsz, "%s%s%s", old ? "old trace" :
		    v == UCIR_TRACE ? "trace" : "replay", arch[0] ? ", " : "",
		    arch);
	}
	return TP_PROBE_YES;
}

/* ---------------------------------------------------------------- encoder */

struct enc {
	struct tr_reader *r;
	struct tr_rec *rec;
	struct tp_out *out;
	const struct ucir_enc_opts *opts;
	struct ucir_enc_stats *st;
	const struct ucir_regs *regs;
	size_t max;
	int level;		/* of the frames made here */
	unsigned frame_ops;
	int header_done;
	/* The header waits for the first frame (see put_header). */
	unsigned char hdr[UCIR_REPLAY_HEADER];
	int hdr_pending;
	uint64_t hdr_line;	/* its record's, or 0 */
	struct zframe z;
	struct zf_buf raw, comp, data;
	int frame_open, frame_made;
	unsigned frame_flag;
	int frame_level;
	uint32_t frame_count;
	unsigned depth;		/* syscalls open */
	size_t sys_at[UCIR_MAX_DEPTH];	/* where each one's op_count is */
	uint32_t sys_count[UCIR_MAX_DEPTH];
	uint64_t next;		/* where an EXEC_REL instruction would be */
};

#define IS(k) (e->rec->kindlen == sizeof k - 1 && \
	memcmp(e->rec->kind, k, sizeof k - 1) == 0)

/* A record the replay format cannot hold: 1 (counted), or -1 (--strict). */
static int
enc_skip(struct enc *e, const char *why)
{
	return tr_skip(e->r, e->rec, &e->st->skipped, "%s", why) < 0 ? -1 : 1;
}

static int
get_u64(struct enc *e, const char *key, uint64_t *v, int required)
{
	return tr_get_u64(e->r, e->rec, key, v, required);
}

/* An integer field that must fit in bits bits. */
static int
get_uint(struct enc *e, const char *key, uint64_t *v, unsigned bits,
    int required)
{
	int rc = get_u64(e, key, v, required);

	if (rc > 0 && bits < 64 && *v >> bits != 0)
		return tr_fail(e->r, e->rec, tr_find(e->rec, key), "does not "
		    "fit in %u bits", bits);
	return rc;
}

/* A bytes field into e->data; 1, 0 when absent, -1. */
static int
get_bytes(struct enc *e, const char *key, size_t *n)
{
	const struct tr_field *f = tr_find(e->rec, key);

	if (f == NULL)
		return 0;
	if (zf_buf_reserve(&e->data, f->vallen / 2 + 1) < 0)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "out of memory");
	if (tr_bytes(e->r, e->rec, f, e->data.p, e->data.cap, n) < 0)
		return -1;
	return 1;
}

/* A string field; 1, 0 when absent, -1. */
static int
get_str(struct enc *e, const char *key, char *dst, size_t cap, size_t *n)
{
	const struct tr_field *f = tr_find(e->rec, key);

	if (f == NULL)
		return 0;
	return tr_str(e->r, e->rec, f, dst, cap, n) < 0 ? -1 : 1;
}

/* Room for n more bytes of the frame being built. */
static unsigned char *
room(struct enc *e, size_t n)
{
	if (e->raw.len + n > e->max) {
		tr_fail(e->r, e->rec, NULL, "the frame grows past the limit of "
		    "%zu bytes (--max-frame)", e->max);
		return NULL;
	}
	if (zf_buf_reserve(&e->raw, e->raw.len + n) < 0) {
		tp_fail(e->r->err, TP_EXIT_FAIL, "out of memory");
		return NULL;
	}
	return e->raw.p + e->raw.len;
}

static void
close_syscall(struct enc *e)
{
	e->depth--;
	tp_put_be16(e->raw.p + e->sys_at[e->depth],
	    (uint16_t)e->sys_count[e->depth]);
}

/*
 * The header, written before the first frame or at the end.  A header
 * alone whose os padding puts the start of the Snappy stream identifier
 * at offset 74 is refused: ucir2txt reads such 80 bytes as a usercorn
 * trace cut inside the identifier (a frame after the header tells them
 * apart: byte 80 is OP_FRAME).  Only a replay header's padding can do
 * that: a trace header's is not carried, and a name holds no NUL.
 */
static int
put_header(struct enc *e, int alone)
{
	if (!e->hdr_pending)
		return 0;
	if (alone && memcmp(e->hdr + UCIR_TRACE_HEADER, tp_snappy_ident,
	    UCIR_REPLAY_HEADER - UCIR_TRACE_HEADER) == 0) {
		e->st->ambiguous = 1;
		e->r->err->line = e->hdr_line;
		e->r->err->col = 0;
		e->r->err->offset = TP_NONE;
		return tp_fail(e->r->err, TP_EXIT_DATA, "os_pad puts the start "
		    "of a Snappy stream identifier at offset 74: this header "
		    "alone would read as a usercorn trace cut there (a frame "
		    "after it tells them apart)");
	}
	tp_out_write(e->out, e->hdr, sizeof e->hdr);
	e->hdr_pending = 0;
	return 0;
}

static int
frame_flush(struct enc *e)
{
	unsigned char h[10];
	int rc;

	if (!e->frame_open)
		return 0;
	while (e->depth > 0)
		close_syscall(e);
	rc = zf_deflate(&e->z, e->frame_level, e->raw.p, e->raw.len, &e->comp);
	if (rc < 0)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "zlib: %s", e->z.msg);
	if (e->comp.len > UINT32_MAX)
		return tp_fail(e->r->err, TP_EXIT_DATA, "a frame compresses to "
		    "more than 4 GiB");
	if (put_header(e, 0) < 0)
		return -1;
	h[0] = UCIR_OP_FRAME;
	h[1] = (unsigned char)e->frame_flag;
	tp_put_be32(h + 2, e->frame_count);
	tp_put_be32(h + 6, (uint32_t)e->comp.len);
	tp_out_write(e->out, h, sizeof h);
	tp_out_write(e->out, e->comp.p, e->comp.len);
	e->st->frames++;
	e->st->frames_made += e->frame_made;
	e->frame_open = 0;
	e->raw.len = 0;
	return 0;
}

static void
put_name_field(unsigned char *dst, const char *s, size_t n,
    const unsigned char *pad, size_t padn)
{
	memset(dst, 0, UCIR_NAME_LEN);
	memcpy(dst, s, n);
	if (padn > 0)
		memcpy(dst + n + 1, pad, padn);
}

static const struct ucir_regs *
regs_for(const char *arch, size_t n, uint32_t uc_arch)
{
	const struct ucir_regs *t = ucir_regs_find(arch, n);

	return t != NULL ? t : ucir_regs_of_uc_arch(uc_arch);
}

static void
arch_mode(const char *arch, size_t n, uint32_t *uc_arch, uint32_t *uc_mode)
{
	*uc_arch = *uc_mode = 0;
	for (size_t i = 0; i < sizeof arch_modes / sizeof arch_modes[0]; i++)
		if (strlen(arch_modes[i].arch) == n &&
		    memcmp(arch_modes[i].arch, arch, n) == 0) {
			*uc_arch = arch_modes[i].uc_arch;
			*uc_mode = arch_modes[i].uc_mode;
		}
}

static void
write_header(struct enc *e, uint32_t version, uint32_t uc_arch,
    uint32_t uc_mode, const unsigned char *arch, const unsigned char *os,
    uint64_t line)
{
	unsigned char *h = e->hdr;

	memcpy(h, "UCIR", 4);
	tp_put_be32(h + 4, version);
	tp_put_be32(h + 8, uc_arch);
	tp_put_be32(h + 12, uc_mode);
	memcpy(h + 16, arch, UCIR_NAME_LEN);
	memcpy(h + 48, os, UCIR_NAME_LEN);
	e->header_done = 1;
	e->hdr_pending = 1;
	e->hdr_line = line;
}

static int
default_header(struct enc *e)
{
	const char *arch = e->opts->arch ? e->opts->arch : "x86_64";
	const char *os = e->opts->os ? e->opts->os : "linux";
	unsigned char a[UCIR_NAME_LEN], o[UCIR_NAME_LEN];
	size_t an = strlen(arch), on = strlen(os);
	uint32_t uc_arch, uc_mode;

	if (an > UCIR_NAME_LEN || on > UCIR_NAME_LEN)
		return tp_fail(e->r->err, TP_EXIT_FAIL, "arch or os name longer "
		    "than %d bytes", UCIR_NAME_LEN);
	put_name_field(a, arch, an, NULL, 0);
	put_name_field(o, os, on, NULL, 0);
	arch_mode(arch, an, &uc_arch, &uc_mode);
	e->regs = regs_for(arch, an, uc_arch);
	write_header(e, 0, uc_arch, uc_mode, a, o, 0);
	e->st->header_made = 1;
	return 0;
}

/* A name and its padding, into the 32-byte field. */
static int
header_name(struct enc *e, const char *key, const char *padkey,
    unsigned char *dst, char *s, size_t *n)
{
	size_t padn = 0;
	int rc;

	*n = 0;
	if ((rc = get_str(e, key, s, UCIR_NAME_LEN + 1, n)) < 0)
		return -1;
	if (rc > 0 && *n > UCIR_NAME_LEN)
		return tr_fail(e->r, e->rec, tr_find(e->rec, key), "longer than "
		    "%d bytes", UCIR_NAME_LEN);
	if (memchr(s, 0, *n) != NULL)
		return tr_fail(e->r, e->rec, tr_find(e->rec, key), "holds a NUL "
		    "byte");
	if ((rc = padkey ? get_bytes(e, padkey, &padn) : 0) < 0)
		return -1;
	if (rc > 0 && *n + 1 + padn != UCIR_NAME_LEN)
		return tr_fail(e->r, e->rec, tr_find(e->rec, padkey), "must be "
		    "%zu bytes (the rest of %d after the name and its NUL)",
		    *n < UCIR_NAME_LEN ? UCIR_NAME_LEN - *n - 1 : 0,
		    UCIR_NAME_LEN);
	put_name_field(dst, s, *n, e->data.p, rc > 0 ? padn : 0);
	return 0;
}

static int
header_record(struct enc *e)
{
	unsigned char a[UCIR_NAME_LEN], o[UCIR_NAME_LEN];
	char as[UCIR_NAME_LEN + 1], os[UCIR_NAME_LEN + 1], fmt[8], an[16];
	size_t asn, osn, fn = 0, ann = 0;
	uint64_t version = 0, uc_mode = 0, v;
	uint32_t uc_arch, mode;
	int trace = 0, rc;

	if (e->header_done)
		return tr_fail(e->r, e->rec, NULL, "ucir-header after the first "
		    "frame: a replay file has one header");
	if ((rc = get_str(e, "format", fmt, sizeof fmt, &fn)) < 0)
		return -1;
	if (rc > 0) {
		trace = fn == 5 && memcmp(fmt, "trace", 5) == 0;
		if (!trace && !(fn == 6 && memcmp(fmt, "replay", 6) == 0))
			return tr_fail(e->r, e->rec, tr_find(e->rec, "format"),
			    "replay or trace expected");
	}
	/* A trace's padding is not carried (see put_header). */
	if (header_name(e, "arch", trace ? NULL : "arch_pad", a, as, &asn) < 0 ||
	    header_name(e, "os", trace ? NULL : "os_pad", o, os, &osn) < 0)
		return -1;
	arch_mode(as, asn, &uc_arch, &mode);
	uc_mode = mode;
	if (!trace) {
		const struct tr_field *f = tr_find(e->rec, "uc_arch");
		if (get_uint(e, "version", &version, 32, 0) < 0 ||
		    get_uint(e, "uc_mode", &uc_mode, 32, 0) < 0)
			return -1;
		if (f != NULL && tp_parse_u64(f->val, f->vallen, &v) == 0) {
			if (v > UINT32_MAX)
				return tr_fail(e->r, e->rec, f, "does not fit in "
				    "32 bits");
			uc_arch = (uint32_t)v;
		} else if (f != NULL) {
			if (get_str(e, "uc_arch", an, sizeof an, &ann) < 0)
				return -1;
			for (uc_arch = 1; uc_arch < N_UC_ARCH; uc_arch++)
				if (strlen(uc_arch_names[uc_arch]) == ann &&
				    memcmp(uc_arch_names[uc_arch], an, ann) == 0)
					break;
			if (uc_arch == N_UC_ARCH)
				return tr_fail(e->r, e->rec, f, "unknown Unicorn "
				    "arch (a number, or arm arm64 mips x86 ppc "
				    "sparc m68k riscv s390x tricore)");
		}
	}
	e->regs = regs_for(as, asn, uc_arch);
	write_header(e, (uint32_t)version, uc_arch, (uint32_t)uc_mode, a, o,
	    e->rec->lineno);
	return 0;
}

static int
frame_record(struct enc *e)
{
	const struct tr_field *f;
	uint64_t level = (uint64_t)e->level, flag;
	int key = 0;

	if (frame_flush(e) < 0)
		return -1;
	if ((f = tr_find(e->rec, "keyframe")) != NULL &&
	    tr_bool(e->r, e->rec, f, &key) < 0)
		return -1;
	flag = (uint64_t)key;
	if (get_uint(e, "level", &level, 64, 0) < 0 ||
	    get_uint(e, "flag", &flag, 8, 0) < 0)
		return -1;
	if (level > 9)
		return tr_fail(e->r, e->rec, tr_find(e->rec, "level"), "a zlib "
		    "level is 0 to 9");
	if ((flag != 0) != key)
		return tr_fail(e->r, e->rec, tr_find(e->rec, "flag"), "a "
		    "keyframe's flag is not 0, a frame's is 0");
	e->frame_open = 1;
	e->frame_made = 0;
	e->frame_flag = (unsigned)flag;
	e->frame_level = (int)level;
	e->frame_count = 0;
	e->depth = 0;
	return 0;
}

/*
 * Place the op about to be written: open a frame if none is, close the
 * syscalls its depth= leaves, count it in its container.
 */
static int
op_place(struct enc *e)
{
	uint64_t depth = 0;
	uint32_t *count;

	if (get_u64(e, "depth", &depth, 0) < 0)
		return -1;
	if (e->frame_open && e->frame_made && depth == 0 &&
	    e->frame_count >= e->frame_ops && frame_flush(e) < 0)
		return -1;
	if (!e->frame_open) {
		e->frame_open = 1;
		e->frame_made = 1;
		e->frame_flag = 0;
		e->frame_level = e->level;
		e->frame_count = 0;
		e->depth = 0;
	}
	if (depth > e->depth) {
		e->st->unnested++;
		depth = e->depth;
	}
	while (e->depth > depth)
		close_syscall(e);
	count = depth == 0 ? &e->frame_count : &e->sys_count[depth - 1];
	if (depth > 0 && *count == UINT16_MAX)
		return tr_fail(e->r, e->rec, NULL, "more than 65535 ops in one "
		    "syscall");
	if (*count == UINT32_MAX)
		return tr_fail(e->r, e->rec, NULL, "more than 2^32-1 ops in one "
		    "frame");
	++*count;
	e->st->ops++;
	return 0;
}

static int
insn_record(struct enc *e)
{
	const struct tr_field *f;
	uint64_t pc, size;
	unsigned char *p;
	int abs, rc;
	size_t n;

	if ((rc = get_u64(e, "pc", &pc, 0)) <= 0)
		return rc < 0 ? -1 : enc_skip(e, "insn without pc=");
	if ((rc = get_uint(e, "size", &size, 32, 0)) < 0)
		return -1;
	if (rc == 0) {
		/* Other decoders give the opcode bytes. */
		if ((f = tr_find(e->rec, "bytes")) == NULL)
			return enc_skip(e, "insn without size= or bytes=");
		size = f->vallen / 2;
	}
	abs = pc != e->next;
	if ((f = tr_find(e->rec, "exec")) != NULL) {
		if (f->vallen != 3 || (memcmp(f->val, "abs", 3) != 0 &&
		    memcmp(f->val, "rel", 3) != 0))
			return tr_fail(e->r, e->rec, f, "abs or rel expected");
		abs |= f->val[0] == 'a';
	}
	if (op_place(e) < 0 || (p = room(e, 13)) == NULL)
		return -1;
	if (abs) {
		p[0] = UCIR_OP_EXEC_ABS;
		tp_put_be64(p + 1, pc);
		tp_put_be32(p + 9, (uint32_t)size);
		n = 13;
	} else {
		p[0] = UCIR_OP_EXEC_REL;
		tp_put_be32(p + 1, (uint32_t)size);
		n = 5;
	}
	e->raw.len += n;
	e->next = pc + size;
	return 0;
}

static int
access_record(struct enc *e, int write)
{
	uint64_t addr, size;
	size_t n = 0;
	unsigned char *p;
	int rc, hs;

	if (get_u64(e, "addr", &addr, 1) < 0 ||
	    (hs = get_u64(e, "size", &size, 0)) < 0 ||
	    (rc = get_bytes(e, "data", &n)) < 0)
		return -1;
	if (rc == 0)
		return enc_skip(e, write ? "write without data=" :
		    "read without data=");
	if (hs > 0 && size != n)
		return tr_fail(e->r, e->rec, tr_find(e->rec, "size"), "%llu, "
		    "but data= holds %zu bytes", (unsigned long long)size, n);
	if (op_place(e) < 0 || (p = room(e, 17 + n)) == NULL)
		return -1;
	p[0] = write ? UCIR_OP_MEM_WRITE : UCIR_OP_MEM_READ;
	tp_put_be64(p + 1, addr);
	tp_put_be64(p + 9, n);
	memcpy(p + 17, e->data.p, n);
	e->raw.len += 17 + n;
	return 0;
}

static int
get_reg(struct enc *e, unsigned *num)
{
	const struct tr_field *f = tr_find(e->rec, "reg");
	char name[40];
	size_t n;
	uint64_t v;
	int r;

	if (f == NULL)
		return tr_fail(e->r, e->rec, NULL, "no reg= field");
	if (tp_parse_u64(f->val, f->vallen, &v) == 0) {
		if (v > UINT16_MAX)
			return tr_fail(e->r, e->rec, f, "does not fit in 16 bits");
		*num = (unsigned)v;
		return 0;
	}
	if (tr_str(e->r, e->rec, f, name, sizeof name, &n) < 0)
		return -1;
	if ((r = ucir_reg_num(e->regs, name, n)) < 0)
		return tr_fail(e->r, e->rec, f, "no register of that name for "
		    "the header's arch (a number is always accepted)");
	*num = (unsigned)r;
	return 0;
}

static int
reg_record(struct enc *e, int special)
{
	unsigned num = 0;
	uint64_t value = 0;
	size_t n = 0;
	unsigned char *p;
	int rc;

	if (get_reg(e, &num) < 0)
		return -1;
	if (special) {
		if ((rc = get_bytes(e, "data", &n)) < 0)
			return -1;
		if (rc == 0)
			return tr_fail(e->r, e->rec, NULL, "no data= field");
		if (n > UINT16_MAX)
			return tr_fail(e->r, e->rec, tr_find(e->rec, "data"),
			    "longer than 65535 bytes");
	} else if (get_u64(e, "value", &value, 1) < 0) {
		return -1;
	}
	if (op_place(e) < 0 || (p = room(e, special ? 5 + n : 11)) == NULL)
		return -1;
	tp_put_be16(p + 1, (uint16_t)num);
	if (special) {
		p[0] = UCIR_OP_SPREG_CHANGE;
		tp_put_be16(p + 3, (uint16_t)n);
		memcpy(p + 5, e->data.p, n);
		e->raw.len += 5 + n;
	} else {
		p[0] = UCIR_OP_REG_CHANGE;
		tp_put_be64(p + 3, value);
		e->raw.len += 11;
	}
	return 0;
}

static int
get_prot(struct enc *e, unsigned *prot)
{
	const struct tr_field *f = tr_find(e->rec, "prot");
	uint64_t v;

	if (f == NULL)
		return tr_fail(e->r, e->rec, NULL, "no prot= field");
	if (f->vallen == 3 && (f->val[0] == 'r' || f->val[0] == '-') &&
	    (f->val[1] == 'w' || f->val[1] == '-') &&
	    (f->val[2] == 'x' || f->val[2] == '-')) {
		*prot = (f->val[0] == 'r') | (f->val[1] == 'w') << 1 |
		    (f->val[2] == 'x') << 2;
		return 0;
	}
	if (tr_u64(e->r, e->rec, f, &v) < 0)
		return -1;
	if (v > 0xff)
		return tr_fail(e->r, e->rec, f, "does not fit in 8 bits");
	*prot = (unsigned)v;
	return 0;
}

static int
map_record(struct enc *e, int map)
{
	uint64_t addr, size;
	unsigned prot = 0;
	unsigned char *p;

	if (get_u64(e, "addr", &addr, 1) < 0 ||
	    get_u64(e, "size", &size, 1) < 0 || (map && get_prot(e, &prot) < 0))
		return -1;
	if (size > UINT32_MAX)
		return enc_skip(e, "a mapping of 4 GiB or more");
	if (op_place(e) < 0 || (p = room(e, 14)) == NULL)
		return -1;
	p[0] = map ? UCIR_OP_MEM_MAP : UCIR_OP_MEM_UNMAP;
	tp_put_be64(p + 1, addr);
	tp_put_be32(p + 9, (uint32_t)size);
	p[13] = (unsigned char)prot;
	e->raw.len += map ? 14 : 13;
	return 0;
}

static int
syscall_record(struct enc *e)
{
	const struct tr_field *f = tr_find(e->rec, "args");
	uint64_t num, ret = 0;
	const char *cur, *end, *val;
	size_t vlen, argc = 0, at;
	unsigned char *p;

	if (get_u64(e, "num", &num, 1) < 0 || get_u64(e, "ret", &ret, 0) < 0)
		return -1;
	if (num > UINT16_MAX)
		return enc_skip(e, "a syscall number over 65535");
	if (f != NULL && (f->vallen < 2 || f->val[0] != '['))
		return tr_fail(e->r, e->rec, f, "a list [a,b,...] expected");
	if (op_place(e) < 0)
		return -1;
	if (e->depth + 1 >= UCIR_MAX_DEPTH)
		return tr_fail(e->r, e->rec, NULL, "syscalls nested deeper than "
		    "%d", UCIR_MAX_DEPTH);
	if ((p = room(e, 15)) == NULL)
		return -1;
	at = e->raw.len;
	p[0] = UCIR_OP_SYSCALL;
	tp_put_be16(p + 1, (uint16_t)num);
	tp_put_be64(p + 3, ret);
	tp_put_be16(p + 13, 0);
	e->raw.len += 15;
	if (f != NULL) {
		cur = f->val;
		end = f->val + f->vallen;
		while (tr_elem(&cur, end, NULL, NULL, &val, &vlen) == 1) {
			uint64_t v;
			if (tp_parse_u64(val, vlen, &v) < 0)
				return tr_fail(e->r, e->rec, f, "argument %zu is "
				    "not a number", argc + 1);
			if (argc == UINT16_MAX)
				return tr_fail(e->r, e->rec, f, "more than 65535 "
				    "arguments");
			if ((p = room(e, 8)) == NULL)
				return -1;
			tp_put_be64(p, v);
			e->raw.len += 8;
			argc++;
		}
	}
	tp_put_be16(e->raw.p + at + 11, (uint16_t)argc);
	e->sys_at[e->depth] = at + 13;
	e->sys_count[e->depth] = 0;
	e->depth++;
	return 0;
}

static int
plain_record(struct enc *e, unsigned op)
{
	unsigned char *p;

	if (op_place(e) < 0 || (p = room(e, 1)) == NULL)
		return -1;
	p[0] = (unsigned char)op;
	e->raw.len++;
	return 0;
}

static int
encode_record(struct enc *e)
{
	int kind = tp_kind(e->rec->kind, e->rec->kindlen,
	    (size_t)(e->rec->line + e->rec->len - e->rec->kind));

	if (IS("ucir-header"))
		return header_record(e);
	if (!e->header_done && default_header(e) < 0)
		return -1;
	if (kind == TK_INSN)
		return insn_record(e);
	if (kind == TK_READ || kind == TK_WRITE)
		return access_record(e, kind == TK_WRITE);
	if (e->rec->kindlen < 5 || memcmp(e->rec->kind, "ucir-", 5) != 0)
		return enc_skip(e, "a record of another format");
	if (IS("ucir-frame"))
		return frame_record(e);
	if (IS("ucir-reg"))
		return reg_record(e, 0);
	if (IS("ucir-spreg"))
		return reg_record(e, 1);
	if (IS("ucir-map"))
		return map_record(e, 1);
	if (IS("ucir-unmap"))
		return map_record(e, 0);
	if (IS("ucir-syscall"))
		return syscall_record(e);
	if (IS("ucir-exit"))
		return plain_record(e, UCIR_OP_EXIT);
	if (IS("ucir-nop"))
		return plain_record(e, UCIR_OP_NOP);
	if (IS("ucir-jmp"))
		return enc_skip(e, "ucir-jmp (trace format only)");
	if (IS("ucir-prot"))
		return enc_skip(e, "ucir-prot (trace format only)");
	return enc_skip(e, "an unknown ucir- record");
}

int
ucir_encode(struct tr_reader *r, struct tp_out *out,
    const struct ucir_enc_opts *opts, struct ucir_enc_stats *st,
    struct tp_err *err)
{
	static const struct ucir_enc_opts defaults;
	struct ucir_enc_stats dummy;
	struct enc *e;
	int rc = 0;

	r->err = err;	/* the reader's errors are the encoder's */
	if (opts == NULL)
		opts = &defaults;
	if (st == NULL)
		st = &dummy;
	memset(st, 0, sizeof *st);
	st->skipped.strict = opts->strict;
	st->skipped.cannot = "not expressible in a Usercorn replay file";
	if ((e = calloc(1, sizeof *e)) == NULL ||
	    (e->rec = malloc(sizeof *e->rec)) == NULL) {
		free(e);
		return tp_fail(r->err, TP_EXIT_FAIL, "out of memory");
	}
	e->r = r;
	e->out = out;
	e->opts = opts;
	e->st = st;
	e->max = opts->max_frame ? opts->max_frame : UCIR_MAX_FRAME;
	e->level = opts->level_plus1 ? opts->level_plus1 - 1 : UCIR_LEVEL;
	e->frame_ops = opts->frame_ops ? opts->frame_ops : UCIR_FRAME_OPS;
	zf_init(&e->z);
	if (e->level < 0 || e->level > 9)
		rc = tp_fail(r->err, TP_EXIT_FAIL, "zlib level %d (0-9)",
		    e->level);
	while (rc == 0) {
		int got = tr_next(r, e->rec);
		if (got <= 0) {
			rc = got;
			break;
		}
		st->records++;
		if (encode_record(e) < 0)
			rc = -1;
	}
	if (rc == 0 && !e->header_done)
		rc = default_header(e);
	if (rc == 0)
		rc = frame_flush(e);
	if (rc == 0)
		rc = put_header(e, 1);
	else
		put_header(e, 0);	/* what went before the error, as ever */
	zf_free(&e->z);
	zf_buf_free(&e->raw);
	zf_buf_free(&e->comp);
	zf_buf_free(&e->data);
	free(e->rec);
	free(e);
	return rc;
}
