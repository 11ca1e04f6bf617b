/*
 * Usercorn traces: x64dbg's register dumps as Unicorn x86 registers, for
 * txt2ucir reading trac2txt's text.
 *
 * trac2txt names the pointer-sized slots of x64dbg's REGDUMP (x64: 172
 * of 8 bytes, x86: 216 of 4; see trac2txt(1) NOTES and the x64dbg
 * reference's section 2.3).  The encoder keeps each thread's dump as
 * bytes and reads the Unicorn registers out of it by offset, so a slot
 * that packs several registers (gs_fs_es_ds) or splits one (xmm3_1)
 * needs no rule of its own.  The names are written here as patterns:
 * "xmm{0-15}_{0-1}" is xmm0_0 xmm0_1 xmm1_0 ... in slot order, the
 * first range outermost; "{d0,d4}" lists.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/hash.h"
#include "formats/ucir/ucir-private.h"

static const char slots_x64[] =
    "rax rcx rdx rbx rsp rbp rsi rdi r{8-15} rip rflags gs_fs_es_ds "
    "cs_ss dr{0-3} dr6 dr7 regarea{0-9} x87cw_sw_tw x87erroff_errsel "
    "x87dataoff_datasel x87cr0npx_mxcsr xmm{0-15}_{0-1} ymm{0-15}_{0-3} "
    "flags_cpazstid flags_o_x87r0_d0 x87r0_d4 x87r0_st_tag x87r1_d0 "
    "x87r1_d8_st x87r1_tag_x87r2_d0 x87r2_d4 x87r2_st_tag x87r3_d0 "
    "x87r3_d8_st x87r3_tag_x87r4_d0 x87r4_d4 x87r4_st_tag x87r5_d0 "
    "x87r5_d8_st x87r5_tag_x87r6_d0 x87r6_d4 x87r6_st_tag x87r7_d0 "
    "x87r7_d8_st x87r7_tag mm{0-7} mxcsrf_{0-1} x87swf_{0-1} x87cwf_0 "
    "x87cwf_1_lasterror";

static const char slots_x86[] =
    "eax ecx edx ebx esp ebp esi edi eip eflags gs_fs es_ds cs_ss "
    "dr{0-3} dr6 dr7 regarea{0-19} x87cw_sw x87tw x87erroff x87errsel "
    "x87dataoff x87datasel x87cr0npx mxcsr pad47 xmm{0-7}_{0-3} "
    "ymm{0-7}_{0-7} flags_cpaz flags_stid flags_o "
    "x87r{0-7}_{d0,d4,d8,st,tag} pad187 mm{0-7}_{0-1} mxcsrf_{0-3} "
    "x87swf_{0-3} x87cwf_{0-2} lasterror";

/*
 * Where each Unicorn register lies in the dump (reference 2.3), x64 then
 * x86 offset, and its length; 0 for the pointer-sized ones (general
 * registers, eflags, the debug registers).  The x87 stack
 * RegisterArea is in ST order, as Unicorn's st0-st7; mmN is x64dbg's own
 * copy of physical register N's mantissa, as Unicorn's mmN.
 */
#define GPR(n64, n86, i) { n64, n86, (i) * 8, (i) * 4, 0, 0 }
static const struct ucir_xreg xregs[] = {
	GPR(35, 19, 0), GPR(38, 22, 1), GPR(40, 24, 2), GPR(37, 21, 3),
	GPR(44, 30, 4), GPR(36, 20, 5), GPR(43, 29, 6), GPR(39, 23, 7),
	{ 106, 0, 64, 0, 0, 0 }, { 107, 0, 72, 0, 0, 0 },
	{ 108, 0, 80, 0, 0, 0 }, { 109, 0, 88, 0, 0, 0 },
	{ 110, 0, 96, 0, 0, 0 }, { 111, 0, 104, 0, 0, 0 },
	{ 112, 0, 112, 0, 0, 0 }, { 113, 0, 120, 0, 0, 0 },
	{ 25, 25, 136, 36, 0, 0 },			/* eflags */
	{ 33, 33, 144, 40, 2, 0 }, { 32, 32, 146, 42, 2, 0 },	/* gs fs */
	{ 28, 28, 148, 44, 2, 0 }, { 17, 17, 150, 46, 2, 0 },	/* es ds */
	{ 11, 11, 152, 48, 2, 0 }, { 49, 49, 154, 50, 2, 0 },	/* cs ss */
	{ 66, 66, 160, 52, 0, 0 }, { 67, 67, 168, 56, 0, 0 },	/* dr0-3 */
	{ 68, 68, 176, 60, 0, 0 }, { 69, 69, 184, 64, 0, 0 },
	{ 72, 72, 192, 68, 0, 0 }, { 73, 73, 200, 72, 0, 0 },	/* dr6 dr7 */
#define ST(i) { 114 + (i), 114 + (i), 208 + (i) * 10, 76 + (i) * 10, 10, 1 }
	ST(0), ST(1), ST(2), ST(3), ST(4), ST(5), ST(6), ST(7),
	{ 246, 246, 288, 156, 2, 0 },			/* fpcw */
	{ 31, 31, 290, 158, 2, 0 },			/* fpsw */
	{ 247, 247, 292, 160, 2, 0 },			/* fptag */
	{ 249, 249, 316, 184, 4, 0 },			/* mxcsr */
#define XMM(i) { 122 + (i), (i) < 8 ? 122 + (i) : 0, 320 + (i) * 16, \
	192 + (i) * 16, 16, 1 }
	XMM(0), XMM(1), XMM(2), XMM(3), XMM(4), XMM(5), XMM(6), XMM(7),
	XMM(8), XMM(9), XMM(10), XMM(11), XMM(12), XMM(13), XMM(14), XMM(15),
#define YMM(i) { 154 + (i), (i) < 8 ? 154 + (i) : 0, 576 + (i) * 32, \
	320 + (i) * 32, 32, 1 }
	YMM(0), YMM(1), YMM(2), YMM(3), YMM(4), YMM(5), YMM(6), YMM(7),
	YMM(8), YMM(9), YMM(10), YMM(11), YMM(12), YMM(13), YMM(14), YMM(15),
#define MM(i) { 98 + (i), 98 + (i), 1264 + (i) * 8, 752 + (i) * 8, 8, 0 }
	MM(0), MM(1), MM(2), MM(3), MM(4), MM(5), MM(6), MM(7),
};

/*
 * What Unicorn has no enum for: the x87 error and data pointers with
 * their selectors, Cr0NpxState, lastError.  (The decoded flag bytes,
 * x87FPURegisters, the MXCSR and x87 word fields are x64dbg's copies of
 * registers above; padding is stack garbage.)
 */
static const struct ucir_xrange noenum[2][2] = {
	{ { 296, 20 }, { 1372, 4 } },		/* x64 */
	{ { 164, 20 }, { 860, 4 } },		/* x86 */
};

#define SLOT_HASH 1024

static struct slot_tab {
	const char *src;
	unsigned n;
	int ready;
	struct {
		unsigned short off, len, slot;
	} h[SLOT_HASH];
	char buf[4096];
	size_t used;
} tabs[2] = { { slots_x64, 0, 0, { { 0, 0, 0 } }, "", 0 },
	      { slots_x86, 0, 0, { { 0, 0, 0 } }, "", 0 } };

static unsigned
slot_hash(const char *s, size_t n)
{
	return (unsigned)(tp_hash_mem(s, n) >> 54);	/* SLOT_HASH buckets */
}

static void
slot_add(struct slot_tab *t, const char *s, size_t n)
{
	unsigned hv = slot_hash(s, n);

	if (t->used + n > sizeof t->buf)
		return;		/* not reached: the tables fit */
	memcpy(t->buf + t->used, s, n);
	while (t->h[hv].len != 0)
		hv = (hv + 1) & (SLOT_HASH - 1);
	t->h[hv].off = (unsigned short)t->used;
	t->h[hv].len = (unsigned short)n;
	t->h[hv].slot = (unsigned short)t->n++;
	t->used += n;
}

static unsigned
dec(const char *p, const char *e)
{
	unsigned v = 0;

	while (p < e)
		v = v * 10 + (unsigned)(*p++ - '0');
	return v;
}

/* The alternatives of "{a-b}" or "{x,y}" at p: their count, the k-th. */
static unsigned
alt(const char *p, const char *e, unsigned k, char *dst, size_t *n)
{
	const char *dash = memchr(p, '-', (size_t)(e - p));
	unsigned lo, hi, cnt = 1;

	if (dash != NULL) {
		lo = dec(p, dash);
		hi = dec(dash + 1, e);
		if (dst != NULL)
			*n = (size_t)snprintf(dst, 8, "%u", lo + k);
		return hi - lo + 1;
	}
	for (const char *q = p; q < e; q++)
		cnt += *q == ',';
	if (dst != NULL) {
		const char *a = p, *b;
		for (unsigned i = 0; i < k; i++)
			a = (const char *)memchr(a, ',', (size_t)(e - a)) + 1;
		b = memchr(a, ',', (size_t)(e - a));
		if (b == NULL)
			b = e;
		memcpy(dst, a, (size_t)(b - a));
		*n = (size_t)(b - a);
	}
	return cnt;
}

/* Expand one pattern word (at most two ranges) into the table. */
static void
expand(struct slot_tab *t, const char *w, const char *we)
{
	const char *b[2], *c[2];
	unsigned nb = 0, cnt[2] = { 1, 1 };
	char name[48];

	for (const char *q = w; q < we && nb < 2; q++)
		if (*q == '{') {
			b[nb] = q;
			c[nb] = memchr(q, '}', (size_t)(we - q));
			cnt[nb] = alt(q + 1, c[nb], 0, NULL, NULL);
			q = c[nb];
			nb++;
		}
	for (unsigned i = 0; i < cnt[0]; i++)
		for (unsigned j = 0; j < cnt[1]; j++) {
			const char *q = w;
			size_t n = 0, k;
			for (unsigned r = 0; r < nb; r++) {
				memcpy(name + n, q, (size_t)(b[r] - q));
				n += (size_t)(b[r] - q);
				alt(b[r] + 1, c[r], r == 0 ? i : j, name + n, &k);
				n += k;
				q = c[r] + 1;
			}
			memcpy(name + n, q, (size_t)(we - q));
			n += (size_t)(we - q);
			slot_add(t, name, n);
		}
}

static struct slot_tab *
tab_ready(int x86)
{
	struct slot_tab *t = &tabs[x86 != 0];
	const char *p, *e;

	if (t->ready)
		return t;
	for (p = t->src; *p != '\0'; p = *e ? e + 1 : e) {
		if ((e = strchr(p, ' ')) == NULL)
			e = p + strlen(p);
		expand(t, p, e);
	}
	t->ready = 1;
	return t;
}

int
ucir_xdbg_slot(int x86, const char *name, size_t n)
{
	const struct slot_tab *t = tab_ready(x86);
	unsigned hv;

	for (hv = slot_hash(name, n); t->h[hv].len != 0;
	    hv = (hv + 1) & (SLOT_HASH - 1))
		if (t->h[hv].len == n && memcmp(t->buf + t->h[hv].off, name,
		    n) == 0)
			return t->h[hv].slot;
	return -1;
}

unsigned
ucir_xdbg_nslots(int x86)
{
	return tab_ready(x86)->n;
}

const struct ucir_xreg *
ucir_xdbg_regs(size_t *n)
{
	*n = sizeof xregs / sizeof xregs[0];
	return xregs;
}

const struct ucir_xrange *
ucir_xdbg_noenum(int x86, size_t *n)
{
	*n = 2;
	return noenum[x86 != 0];
}
