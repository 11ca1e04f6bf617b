/*
 * Open addressing with linear probing.  The slots hold only the id; the
 * key is compared in the keys array, which doubles as the id -> key table
 * that the metadata writer needs, so every key is stored once.
 */
#include <stdlib.h>

#include "idmap.h"

static inline size_t
idmap_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15u ^ (b + 0x632be59bd9b4e019u);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9u;
	h ^= h >> 29;
	return (size_t)h;
}

void
idmap_init(struct idmap *m)
{
	m->slot = NULL;
	m->keys = NULL;
	m->mask = 0;
	m->count = 0;
	m->keycap = 0;
}

void
idmap_free(struct idmap *m)
{
	free(m->slot);
	free(m->keys);
	idmap_init(m);
}

static int
idmap_grow(struct idmap *m)
{
	size_t nslots = m->slot ? (m->mask + 1) * 2 : 64;
	uint32_t *ns = calloc(nslots, sizeof *ns);
	size_t i;

	if (ns == NULL)
		return -1;
	for (i = 0; i < m->count; i++) {
		size_t h = idmap_hash(m->keys[2 * i], m->keys[2 * i + 1]);
		while (ns[h & (nslots - 1)] != 0)
			h++;
		ns[h & (nslots - 1)] = (uint32_t)i + 1;
	}
	free(m->slot);
	m->slot = ns;
	m->mask = nslots - 1;
	return 0;
}

int64_t
idmap_get(const struct idmap *m, uint64_t a, uint64_t b)
{
	size_t h;

	if (m->slot == NULL)
		return -1;
	for (h = idmap_hash(a, b);; h++) {
		uint32_t s = m->slot[h & m->mask];
		const uint64_t *k;
		if (s == 0)
			return -1;
		k = m->keys + 2 * (size_t)(s - 1);
		if (k[0] == a && k[1] == b)
			return (int64_t)(s - 1);
	}
}

int64_t
idmap_put(struct idmap *m, uint64_t a, uint64_t b, int *added)
{
	size_t h;

	if (added != NULL)
		*added = 0;
	/* Keep the load factor at or below one half. */
	if ((m->count + 1) * 2 > m->mask + 1 && idmap_grow(m) < 0)
		return -1;
	for (h = idmap_hash(a, b);; h++) {
		uint32_t s = m->slot[h & m->mask];
		const uint64_t *k;
		if (s == 0)
			break;
		k = m->keys + 2 * (size_t)(s - 1);
		if (k[0] == a && k[1] == b)
			return (int64_t)(s - 1);
	}
	if (m->count >= IDMAP_MAX)
		return -1;
	if (m->count == m->keycap) {
		size_t ncap = m->keycap ? m->keycap * 2 : 32;
		uint64_t *nk = realloc(m->keys, ncap * 2 * sizeof *nk);
		if (nk == NULL)
			return -1;
		m->keys = nk;
		m->keycap = ncap;
	}
	m->keys[2 * m->count] = a;
	m->keys[2 * m->count + 1] = b;
	m->slot[h & m->mask] = (uint32_t)m->count + 1;
	if (added != NULL)
		*added = 1;
	return (int64_t)m->count++;
}
