/*
 * An open-addressing hash map from a key (two 64-bit words) to a dense id:
 * 0, 1, 2, ... in order of first insertion.  Memory grows with the number
 * of distinct keys only.  Used by txt2rapidbin to map thread, address and
 * code-address spaces onto RapidBin's narrow fields, and to count distinct
 * ids for the header.
 */
#ifndef TP_IDMAP_H
#define TP_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#define IDMAP_MAX 0xfffffffeu	/* ids are kept in 32 bits */

struct idmap {
	uint32_t *slot;		/* id + 1, or 0 for an empty slot */
	uint64_t *keys;		/* two words per id, in id order */
	size_t mask;		/* slot count - 1 (a power of two) */
	size_t count;		/* ids handed out */
	size_t keycap;		/* ids the keys array can hold */
};

void idmap_init(struct idmap *m);
void idmap_free(struct idmap *m);

/*
 * The id of (a, b), a new one if the key was not seen yet (*added is then
 * set to 1 when added is not NULL).  -1 when memory runs out or the map
 * holds IDMAP_MAX ids.
 */
int64_t idmap_put(struct idmap *m, uint64_t a, uint64_t b, int *added);

/* The id of (a, b), or -1 if absent. */
int64_t idmap_get(const struct idmap *m, uint64_t a, uint64_t b);

/* The key of an id (two words). */
static inline const uint64_t *
idmap_key(const struct idmap *m, size_t id)
{
	return m->keys + 2 * id;
}

#endif
