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
#include <stdint.h>

#define TP_PAIR_NAME 256	/* bytes of a slice name */

/* The WTF event that ends the innermost scope. */
#define TP_PAIR_LEAVE "wtf.scope#leave"

/*
 * What a record does to the slices of its thread, by txt2chrome's rule:
 * acquire opens a hold of its lock that the next release of that lock on
 * the thread closes; begin and end open and close a block; an event with
 * scope= opens a WTF scope (named by arg.name for wtf.scope#enter, else
 * by its name) that TP_PAIR_LEAVE closes whatever its key; an event
 * whose name ends in an opening or closing word opens or closes the slice
 * of that name.  A close ends the innermost open slice of its thread of
 * the same type and key (and name, for TP_SL_EVENT; any scope for
 * TP_SL_SCOPE).
 */
enum tp_slice { TP_SL_EVENT, TP_SL_SCOPE, TP_SL_LOCK, TP_SL_BLOCK };

struct tp_pair_what {
	int act;		/* 1 opens, 0 closes, -1 neither */
	int type;		/* enum tp_slice */
	uint64_t key;		/* lock id, scope id, or a hash of the name */
	const char *name;	/* the slice's name (opens): in buf, or static */
	size_t namelen;
};

/*
 * kind: enum tp_kind; name[0..namelen): an event's name (unquoted), or
 * NULL; scope, argname, lock: those fields when present (else NULL).
 * buf holds TP_PAIR_NAME bytes.  Returns w->act.
 */
int tp_pair_what(int kind, const char *name, size_t namelen,
    const uint64_t *scope, const char *argname, size_t arglen,
    const uint64_t *lock, char *buf, struct tp_pair_what *w);

#endif
