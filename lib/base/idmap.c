/*
 * Open addressing with linear probing, at most three quarters full.  The
 * slots hold only the id (4 bytes); the key is compared in the key
 * arrays, which double as the id -> key table that the metadata writer
 * needs, so every key is stored once.  A key's second word is kept in one
 * byte (0-254 as they are, 255 for all ones: sizes, widths, the native
 * marker) until a key comes whose second word does not fit; from then on
 * all are kept in full.  Growing frees the old slots before allocating
 * the new ones, which the key arrays alone rebuild.
 */
#include <stdlib.h>

#include "base/hash.h"
#include "base/idmap.h"

#define B_ONES 255u		/* the byte of b = UINT64_MAX */

static inline int
b_fits(uint64_t b)
{
	return b < B_ONES || b == UINT64_MAX;
}

static inline unsigned char
b_code(uint64_t b)
{
	return b == UINT64_MAX ? B_ONES : (unsigned char)b;
}

void
idmap_init(struct idmap *m)
{
	m->slot = NULL;
	m->ka = NULL;
	m->kb = NULL;
	m->kbw = NULL;
	m->mask = 0;
	m->count = 0;
	m->keycap = 0;
	m->broken = 0;
	m->last_a = m->last_b = 0;
	m->last_id = -1;
}

void
idmap_free(struct idmap *m)
{
	free(m->slot);
	free(m->ka);
	free(m->kb);
	free(m->kbw);
	idmap_init(m);
}

void
idmap_key(const struct idmap *m, size_t id, uint64_t *a, uint64_t *b)
{
	*a = m->ka[id];
	if (m->kbw != NULL)
		*b = m->kbw[id];
	else
		*b = m->kb[id] == B_ONES ? UINT64_MAX : m->kb[id];
}

size_t
idmap_bytes(const struct idmap *m)
{
	return (m->slot ? (m->mask + 1) * sizeof *m->slot : 0) +
	    m->keycap * (sizeof *m->ka + (m->kbw ? sizeof *m->kbw : 1));
}

static int
idmap_fail(struct idmap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->broken = 1;
	return -1;
}

/* Rebuild the slots, nslots of them, from the key arrays. */
static int
idmap_rehash(struct idmap *m, size_t nslots)
{
	size_t i;

	free(m->slot);
	if ((m->slot = calloc(nslots, sizeof *m->slot)) == NULL)
		return idmap_fail(m);
	m->mask = nslots - 1;
	for (i = 0; i < m->count; i++) {
		uint64_t a, b;
		size_t h;
		idmap_key(m, i, &a, &b);
		for (h = (size_t)tp_hash64(a, b); m->slot[h & m->mask] != 0; h++)
			;
		m->slot[h & m->mask] = (uint32_t)i + 1;
	}
	return 0;
}

/* Second words in full from now on. */
static int
idmap_widen(struct idmap *m)
{
	uint64_t *w = malloc((m->keycap ? m->keycap : 1) * sizeof *w);
	size_t i;

	if (w == NULL)
		return idmap_fail(m);
	for (i = 0; i < m->count; i++)
		w[i] = m->kb[i] == B_ONES ? UINT64_MAX : m->kb[i];
	free(m->kb);
	m->kb = NULL;
	m->kbw = w;
	return 0;
}

static int
idmap_more_keys(struct idmap *m)
{
	size_t ncap = m->keycap ? m->keycap * 2 : 32;
	uint64_t *ka = realloc(m->ka, ncap * sizeof *ka);

	if (ka == NULL)
		return idmap_fail(m);
	m->ka = ka;
	if (m->kbw != NULL) {
		uint64_t *w = realloc(m->kbw, ncap * sizeof *w);
		if (w == NULL)
			return idmap_fail(m);
		m->kbw = w;
	} else {
		unsigned char *b = realloc(m->kb, ncap);
		if (b == NULL)
			return idmap_fail(m);
		m->kb = b;
	}
	m->keycap = ncap;
	return 0;
}

/*
 * The id of (a, b), or -1 with *at set to the empty slot where it would
 * go.  The map has slots.
 */
static inline int64_t
idmap_find(const struct idmap *m, uint64_t a, uint64_t b, size_t *at)
{
	size_t h = (size_t)tp_hash64(a, b);
	uint32_t s;

	if (m->kbw != NULL) {
		for (; (s = m->slot[h & m->mask]) != 0; h++)
			if (m->ka[s - 1] == a && m->kbw[s - 1] == b)
				return (int64_t)(s - 1);
	} else if (b_fits(b)) {
		unsigned char code = b_code(b);
		for (; (s = m->slot[h & m->mask]) != 0; h++)
			if (m->ka[s - 1] == a && m->kb[s - 1] == code)
				return (int64_t)(s - 1);
	} else {
		/* Not widened yet: no key has such a second word. */
		while (m->slot[h & m->mask] != 0)
			h++;
	}
	*at = h & m->mask;
	return -1;
}

int64_t
idmap_get(const struct idmap *m, uint64_t a, uint64_t b)
{
	size_t at;

	if (m->slot == NULL)
		return -1;
	if (m->last_id >= 0 && a == m->last_a && b == m->last_b)
		return m->last_id;
	return idmap_find(m, a, b, &at);
}

int64_t
idmap_put(struct idmap *m, uint64_t a, uint64_t b, int *added)
{
	size_t at;
	int64_t id;

	if (added != NULL)
		*added = 0;
	if (m->broken)
		return -1;
	if (m->last_id >= 0 && a == m->last_a && b == m->last_b)
		return m->last_id;
	/* At most three quarters full: about 2.5 probes for a key found. */
	if ((m->count + 1) * 4 > (m->slot ? m->mask + 1 : 0) * 3 &&
	    idmap_rehash(m, m->slot ? (m->mask + 1) * 2 : 64) < 0)
		return -1;
	if ((id = idmap_find(m, a, b, &at)) >= 0)
		goto found;
	if (m->count >= IDMAP_MAX)
		return -1;
	if (m->kbw == NULL && !b_fits(b) && idmap_widen(m) < 0)
		return -1;
	if (m->count == m->keycap && idmap_more_keys(m) < 0)
		return -1;
	m->ka[m->count] = a;
	if (m->kbw != NULL)
		m->kbw[m->count] = b;
	else
		m->kb[m->count] = b_code(b);
	m->slot[at] = (uint32_t)m->count + 1;
	if (added != NULL)
		*added = 1;
	id = (int64_t)m->count++;
found:
	m->last_a = a;
	m->last_b = b;
	m->last_id = id;
	return id;
}
