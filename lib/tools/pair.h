/*
 * The one rule that pairs begin and end events into slices (design.md,
 * "Slices"), for every tool that shows or measures slices: an event
 * whose name ends in an opening word and the next event of the same
 * thread whose name ends in its closing word, as dial9's
 * PollStartEvent..PollEndEvent.  WTF's scopes pair by their own rule: a
 * scope event opens, wtf.scope#leave ends the innermost open scope of
 * its zone, as WTF's loader has it.
 */
#ifndef TP_PAIR_H
#define TP_PAIR_H

#include <stddef.h>

#define TP_PAIR_NAME 256	/* bytes of a slice name */

/*
 * Event name[0..n): 1 opens a slice, 0 closes one, -1 neither; the
 * slice's name (at most TP_PAIR_NAME bytes) in out.
 */
int tp_pair_name(const char *name, size_t n, char *out, size_t *outlen);

/* The WTF event that ends the innermost scope. */
#define TP_PAIR_LEAVE "wtf.scope#leave"

#endif
