/*
 * An open-addressing hash map from a key (two 64-bit words) to a dense id:
 * 0, 1, 2, ... in order of first insertion.  Memory grows with the number
 * of distinct keys only: 9 bytes of key and 5.3 to 10.7 bytes of slots per
 * key while every second word is below 255 or all ones (ids, (address,
 * width) pairs, native variables), 7 more per key once one is not.  Used
 * by txt2rapidbin to map thread, address and code-address spaces onto
 * RapidBin's narrow fields, and to count distinct ids for the header.
 */
#ifndef TP_IDMAP_H
#define TP_IDMAP_H

#include <stddef.h>
#include <stdint.h>

#define IDMAP_MAX 0xfffffffeu	/* ids are kept in 32 bits */

struct idmap {
	uint32_t *slot;		/* id + 1, or 0 for an empty slot */
	uint64_t *ka;		/* the keys' first words, in id order */
	unsigned char *kb;	/* their second words, coded in a byte, */
	uint64_t *kbw;		/* or as they are once one does not fit */
	size_t mask;		/* slot count - 1 (a power of two) */
	size_t count;		/* ids handed out */
	size_t keycap;		/* ids the key arrays can hold */
	int broken;		/* out of memory: every call fails */
	uint64_t last_a, last_b;	/* the last key put, and its id: */
	int64_t last_id;		/* runs of one thread cost nothing */
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

/* The key of an id. */
void idmap_key(const struct idmap *m, size_t id, uint64_t *a, uint64_t *b);

/* Bytes held (slots and keys arrays, as allocated). */
size_t idmap_bytes(const struct idmap *m);

#endif
