/*
 * What txt2trac needs to write a Usercorn trace (ucir2txt's records) as
 * x64dbg blocks: where each of Unicorn's x86 register names lives in
 * x64dbg's REGDUMP, and the memory the stream wrote, from which opcode
 * bytes and the values of accesses without data come.
 *
 * Registers are placed by byte offset in REGDUMP (the reference's
 * section 2.3), so a sub-register (eax in x64, ah, a segment register
 * packed with others, an x87 register of 10 bytes) writes exactly its
 * bytes of the pointer-sized slots, as Unicorn's reg_write does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/trac/trac-private.h"

/* Byte offsets in REGDUMP, x64 and x86; -1: no such member. */
struct xreg {
	const char *name;
	short off64, off86;
	unsigned char len;
	unsigned char kind;	/* XK_* */
};

enum { XK_PLAIN, XK_XMM, XK_YMM };

#define GPR(n64, n32, n16, i) \
	{ n64, (i) * 8, -1, 8, XK_PLAIN }, \
	{ n32, (i) * 8, (i) * 4, 4, XK_PLAIN }, \
	{ n16, (i) * 8, (i) * 4, 2, XK_PLAIN }

static const struct xreg xregs[] = {
	GPR("rax", "eax", "ax", 0), GPR("rcx", "ecx", "cx", 1),
	GPR("rdx", "edx", "dx", 2), GPR("rbx", "ebx", "bx", 3),
	GPR("rsp", "esp", "sp", 4), GPR("rbp", "ebp", "bp", 5),
	GPR("rsi", "esi", "si", 6), GPR("rdi", "edi", "di", 7),
	{ "al", 0, 0, 1, 0 }, { "cl", 8, 4, 1, 0 }, { "dl", 16, 8, 1, 0 },
	{ "bl", 24, 12, 1, 0 }, { "ah", 1, 1, 1, 0 }, { "ch", 9, 5, 1, 0 },
	{ "dh", 17, 9, 1, 0 }, { "bh", 25, 13, 1, 0 },
	{ "spl", 32, -1, 1, 0 }, { "bpl", 40, -1, 1, 0 },
	{ "sil", 48, -1, 1, 0 }, { "dil", 56, -1, 1, 0 },
	{ "rip", 128, -1, 8, 0 }, { "eip", 128, 32, 4, 0 },
	{ "ip", 128, 32, 2, 0 }, { "eflags", 136, 36, 8, 0 },
	{ "gs", 144, 40, 2, 0 }, { "fs", 146, 42, 2, 0 },
	{ "es", 148, 44, 2, 0 }, { "ds", 150, 46, 2, 0 },
	{ "cs", 152, 48, 2, 0 }, { "ss", 154, 50, 2, 0 },
	{ "dr0", 160, 52, 8, 0 }, { "dr1", 168, 56, 8, 0 },
	{ "dr2", 176, 60, 8, 0 }, { "dr3", 184, 64, 8, 0 },
	{ "dr6", 192, 68, 8, 0 }, { "dr7", 200, 72, 8, 0 },
	{ "fpcw", 288, 156, 2, 0 }, { "fpsw", 290, 158, 2, 0 },
	{ "fptag", 292, 160, 2, 0 }, { "mxcsr", 316, 184, 4, 0 },
};

static const struct xreg *
xreg_find(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof xregs / sizeof xregs[0]; i++)
		if (strlen(xregs[i].name) == n &&
		    memcmp(xregs[i].name, name, n) == 0)
			return &xregs[i];
	return NULL;
}

/* "prefix" followed by a decimal number below lim: the number, else -1. */
static int
numbered(const char *name, size_t n, const char *prefix, int lim)
{
	size_t pl = strlen(prefix), i;
	int v = 0;

	if (n <= pl || n > pl + 2 || memcmp(name, prefix, pl) != 0 ||
	    (n == pl + 2 && name[pl] == '0'))
		return -1;
	for (i = pl; i < n; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		v = v * 10 + (name[i] - '0');
	}
	return v < lim ? v : -1;
}

/* Write n bytes at byte offset off of the slot words s (pointer size ps). */
static void
put_bytes(uint64_t *s, unsigned ps, unsigned off, const unsigned char *p,
    size_t n, unsigned char *touched, unsigned *nt)
{
	size_t k;

	for (k = 0; k < n; k++) {
		unsigned slot = (unsigned)((off + k) / ps);
		unsigned sh = (unsigned)((off + k) % ps) * 8;
		s[slot] = (s[slot] & ~((uint64_t)0xff << sh)) |
		    (uint64_t)p[k] << sh;
		*nt += !touched[slot];
		touched[slot] = 1;
	}
}

/*
 * Names Unicorn has for x86 that REGDUMP has no room for: known, so that
 * they are counted as such and not as a misspelling.
 */
static int
no_slot(const char *name, size_t n, int x64)
{
	static const char *const fixed[] = {
		"eiz", "riz", "idtr", "gdtr", "ldtr", "tr", "msr", "fs_base",
		"gs_base", "fpip", "fpdp", "invalid",
	};
	size_t i;

	for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		if (strlen(fixed[i]) == n && memcmp(fixed[i], name, n) == 0)
			return 1;
	if (numbered(name, n, "cr", 16) >= 0 || numbered(name, n, "dr", 16) >= 0 ||
	    numbered(name, n, "k", 8) >= 0 || numbered(name, n, "zmm", 32) >= 0 ||
	    numbered(name, n, "xmm", 32) >= 0 ||
	    numbered(name, n, "ymm", 32) >= 0)
		return 1;
	if (!x64 && (numbered(name, n, "r", 16) >= 8 ||
	    (n >= 3 && name[0] == 'r' && numbered(name, n - 1, "r", 16) >= 8 &&
	    strchr("bwd", name[n - 1]) != NULL) ||
	    (n == 3 && name[0] == 'r' && xreg_find(name, n) != NULL) ||
	    (n == 3 && name[2] == 'l' && xreg_find(name, n) != NULL)))
		return 1;
	return 0;
}

/*
 * x64dbg's REGDUMP also holds eflags' bits c, p, a, z, s, t, i, d, o
 * (0, 2, 4, 6, 7, 8, 9, 10, 11) as bytes of 0 or 1 (section 2.4): what
 * its register view shows, derived here as DbgGetRegDumpEx does.
 */
static void
derive_flags(const struct trac_arch *a, uint64_t *s, unsigned char *touched,
    unsigned *nt)
{
	static const unsigned char bit[9] = { 0, 2, 4, 6, 7, 8, 9, 10, 11 };
	int x64 = a->ptrsize == 8;
	uint64_t fl = s[x64 ? 17 : 9];
	unsigned char b[9];
	unsigned k;

	for (k = 0; k < 9; k++)
		b[k] = (unsigned char)(fl >> bit[k] & 1);
	put_bytes(s, a->ptrsize, x64 ? 1088 : 576, b, 9, touched, nt);
}

int
trac_ucir_reg(const struct trac_arch *a, const char *name, size_t n,
    const unsigned char *p, size_t len, uint64_t *s, unsigned char *touched,
    unsigned *nt)
{
	int x64 = a->ptrsize == 8, i;
	const struct xreg *x = xreg_find(name, n);
	int off = -1, size = 0, cut;

	if (x != NULL) {
		off = x64 ? x->off64 : x->off86;
		size = x->len;
		if (!x64 && size == 8)
			size = 4;	/* eflags and the debug registers */
	} else if ((i = numbered(name, n, "r", 16)) >= 8 && x64) {
		off = 64 + 8 * (i - 8), size = 8;
	} else if (n >= 3 && x64 && strchr("dwb", name[n - 1]) != NULL &&
	    (i = numbered(name, n - 1, "r", 16)) >= 8) {
		off = 64 + 8 * (i - 8);
		size = name[n - 1] == 'd' ? 4 : name[n - 1] == 'w' ? 2 : 1;
	} else if ((i = numbered(name, n, "st", 8)) >= 0) {
		/* RegisterArea holds ST0-ST7 in stack order, 10 bytes each. */
		off = (x64 ? 208 : 76) + 10 * i, size = 10;
	} else if ((i = numbered(name, n, "fp", 8)) >= 0) {
		/* Unicorn's fpN is physical register N: x87FPURegisters[N]. */
		off = (x64 ? 1100 : 588) + 20 * i, size = 10;
	} else if ((i = numbered(name, n, "mm", 8)) >= 0) {
		off = (x64 ? 1264 : 752) + 8 * i, size = 8;
	} else if ((i = numbered(name, n, "xmm", x64 ? 16 : 8)) >= 0) {
		/* YmmRegisters[i].Low repeats XmmRegisters[i] (section 2.4). */
		cut = len > 16;
		put_bytes(s, a->ptrsize, (x64 ? 320 : 192) + 16 * (unsigned)i,
		    p, cut ? 16 : len, touched, nt);
		put_bytes(s, a->ptrsize, (x64 ? 576 : 320) + 32 * (unsigned)i,
		    p, cut ? 16 : len, touched, nt);
		return cut;
	} else if ((i = numbered(name, n, "ymm", x64 ? 16 : 8)) >= 0) {
		cut = len > 32;
		put_bytes(s, a->ptrsize, (x64 ? 320 : 192) + 16 * (unsigned)i,
		    p, len > 16 ? 16 : len, touched, nt);
		put_bytes(s, a->ptrsize, (x64 ? 576 : 320) + 32 * (unsigned)i,
		    p, cut ? 32 : len, touched, nt);
		return cut;
	}
	if (off < 0)
		return no_slot(name, n, x64) ? -1 : -2;
	cut = len > (size_t)size;
	for (i = size; cut && i < (int)len; i++)
		if (p[i] != 0)
			break;
	cut = cut && i < (int)len;
	put_bytes(s, a->ptrsize, (unsigned)off, p,
	    len < (size_t)size ? len : (size_t)size, touched, nt);
	if (off == (x64 ? 136 : 36))
		derive_flags(a, s, touched, nt);
	return cut;
}

/* ------------------------------------------------------------- memory */

#define PAGE 4096u

struct trac_page {
	uint64_t base;		/* address / PAGE, plus one (0: empty) */
	unsigned char known[PAGE / 8];
	unsigned char data[PAGE];
};

static struct trac_page *
page_of(const struct trac_mem *m, uint64_t pn, size_t *slot)
{
	size_t h;

	if (m->cap == 0)
		return NULL;
	h = (size_t)((pn * 0x9e3779b97f4a7c15u) >> 20) & (m->cap - 1);
	for (; m->page[h] != NULL; h = (h + 1) & (m->cap - 1))
		if (m->page[h]->base == pn + 1)
			return m->page[h];
	if (slot != NULL)
		*slot = h;
	return NULL;
}

static int
mem_grow(struct trac_mem *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64, i, h;
	struct trac_page **np = calloc(cap, sizeof *np);

	if (np == NULL)
		return -1;
	for (i = 0; i < m->cap; i++) {
		struct trac_page *pg = m->page[i];
		if (pg == NULL)
			continue;
		h = (size_t)(((pg->base - 1) * 0x9e3779b97f4a7c15u) >> 20) &
		    (cap - 1);
		while (np[h] != NULL)
			h = (h + 1) & (cap - 1);
		np[h] = pg;
	}
	free(m->page);
	m->page = np;
	m->cap = cap;
	return 0;
}

int
trac_mem_put(struct trac_mem *m, uint64_t addr, const unsigned char *p,
    size_t n)
{
	while (n > 0) {
		uint64_t pn = addr / PAGE;
		unsigned o = (unsigned)(addr % PAGE), k;
		size_t chunk = PAGE - o < n ? PAGE - o : n, slot = 0;
		struct trac_page *pg = page_of(m, pn, &slot);

		if (pg == NULL) {
			if (2 * (m->n + 1) > m->cap) {
				if (mem_grow(m) < 0)
					return -1;
				page_of(m, pn, &slot);
			}
			if ((pg = calloc(1, sizeof *pg)) == NULL)
				return -1;
			pg->base = pn + 1;
			m->page[slot] = pg;
			m->n++;
		}
		memcpy(pg->data + o, p, chunk);
		for (k = o; k < o + chunk; k++)
			pg->known[k / 8] |= (unsigned char)(1u << k % 8);
		addr += chunk, p += chunk, n -= chunk;
	}
	return 0;
}

size_t
trac_mem_get(const struct trac_mem *m, uint64_t addr, unsigned char *p,
    size_t n)
{
	size_t got = 0, i;

	for (i = 0; i < n; i++, addr++) {
		const struct trac_page *pg = page_of(m, addr / PAGE, NULL);
		unsigned o = (unsigned)(addr % PAGE);
		if (pg != NULL && pg->known[o / 8] >> o % 8 & 1) {
			p[i] = pg->data[o];
			got++;
		} else {
			p[i] = 0;
		}
	}
	return got;
}

void
trac_mem_free(struct trac_mem *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->page[i]);
	free(m->page);
	memset(m, 0, sizeof *m);
}
