/*
 * Usercorn traces: Unicorn's arches and registers, for the decoder's
 * names and the encoder's numbers.
 *
 * Register numbers are Unicorn's enums, the same in 1.0.1 to 2.1.4; the
 * tables below are the reference's (shared/reference/usercorn.md)
 * section 6.4, in enum order ("a/b": aliases of one value).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "formats/ucir/ucir-private.h"

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
	return h & (UCIR_REG_HASH - 1);
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
	while (p < end && t->n < UCIR_MAX_REGS) {
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
			    hv = (hv + 1) & (UCIR_REG_HASH - 1))
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

int
ucir_uc_arch_num(const char *name, size_t n)
{
	for (uint32_t uc_arch = 1; uc_arch < N_UC_ARCH; uc_arch++)
		if (strlen(uc_arch_names[uc_arch]) == n &&
		    memcmp(uc_arch_names[uc_arch], name, n) == 0)
			return (int)uc_arch;
	return -1;
}

const struct ucir_regs *
ucir_regs_of_uc_arch(uint32_t uc_arch)
{
	const char *s = ucir_uc_arch_name(uc_arch);

	return s == NULL ? NULL : ucir_regs_find(s, strlen(s));
}

int
ucir_reg_num(const struct ucir_regs *t, const char *name, size_t n)
{
	unsigned hv;

	if (t == NULL)
		return -1;
	for (hv = reg_hash(name, n); t->h[hv].s != NULL;
	    hv = (hv + 1) & (UCIR_REG_HASH - 1))
		if (t->h[hv].len == n && memcmp(t->h[hv].s, name, n) == 0)
			return t->h[hv].num;
	return -1;
}
