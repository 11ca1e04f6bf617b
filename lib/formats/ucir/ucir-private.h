/*
 * Usercorn traces: what the module's files (ucir.c the decoder, ucir-enc.c
 * the encoder, ucir-regs.c the arches and registers) share, and nothing
 * outside them uses.
 */
#ifndef TP_UCIR_PRIVATE_H
#define TP_UCIR_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "formats/ucir/ucir.h"

#define UCIR_MAX_REGS 300
#define UCIR_REG_HASH 1024

struct ucir_regs {
	const char *arch;
	const char *src;
	int ready;
	unsigned n;
	const char *name[UCIR_MAX_REGS];	/* the name written */
	struct {
		const char *s;
		unsigned short len, num;
	} h[UCIR_REG_HASH];		/* every name and alias */
	char buf[1600];
};

/* Unicorn's uc_arch values and the name the text gives each, else NULL. */
const char *ucir_uc_arch_name(uint32_t uc_arch);
/* The uc_arch of a name ucir_uc_arch_name gives, or -1. */
int ucir_uc_arch_num(const char *name, size_t n);
const struct ucir_regs *ucir_regs_of_uc_arch(uint32_t uc_arch);
/* The number of the register named name (aliases too), or -1. */
int ucir_reg_num(const struct ucir_regs *t, const char *name, size_t n);

/*
 * The name of register num, or NULL (numbers are written then): inline,
 * as the decoder asks it for every register op.
 */
static inline const char *
ucir_reg_name(const struct ucir_regs *t, unsigned num)
{
	return t != NULL && num < t->n ? t->name[num] : NULL;
}

#endif
