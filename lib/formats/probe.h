/*
 * What a format's probe answers about the first bytes of an input: all a
 * format module needs of the registry (formats/registry.h).
 */
#ifndef TP_PROBE_H
#define TP_PROBE_H

/* What a probe says about the first bytes of an input. */
enum tp_probe {
	TP_PROBE_NO = 0,	/* certainly not this format */
	TP_PROBE_MAYBE = 1,	/* plausible (formats without a magic) */
	TP_PROBE_YES = 2	/* the format's magic and a sane header */
};

/*
 * Bytes a probe is given when the input has them: n < TP_PROBE_LEN means
 * that p holds the whole input.
 */
#define TP_PROBE_LEN 4096

#endif
