/*
 * Unit tests of the id map: ids in order of first appearance, keys given
 * back exactly (second words coded in a byte, then in full once one does
 * not fit), growth, and the memory per key that txt2rapidbin(1) documents.
 */
#include <stdint.h>
#include <stdio.h>

#include "base/idmap.h"
#include "tap.h"

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15u;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
	return x ^ (x >> 31);
}

/* Every id's key equals the one put, and every key finds its id. */
static int
all_keys_back(const struct idmap *m, uint64_t n, uint64_t (*key_a)(uint64_t),
    uint64_t (*key_b)(uint64_t))
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t a, b;
		idmap_key(m, (size_t)i, &a, &b);
		if (a != key_a(i) || b != key_b(i) ||
		    idmap_get(m, a, b) != (int64_t)i)
			return 0;
	}
	return 1;
}

static uint64_t random_a(uint64_t i) { return mix(i); }
static uint64_t width_b(uint64_t i) { return (uint64_t[]){ 1, 2, 4, 8, UINT64_MAX }[i % 5]; }
static uint64_t wide_b(uint64_t i) { return i % 7 == 3 ? mix(i + 1) : width_b(i); }

int
main(void)
{
	struct idmap m;
	int added;
	uint64_t a, b, i;
	int good;

	idmap_init(&m);
	ok(idmap_get(&m, 1, 0) == -1, "empty map: nothing found");
	ok(idmap_put(&m, 500, 0, &added) == 0 && added == 1, "first key: id 0, added");
	ok(idmap_put(&m, 500, 0, &added) == 0 && added == 0, "same key again: id 0, not added");
	ok(idmap_put(&m, 7, 0, NULL) == 1 && idmap_put(&m, 500, 0, NULL) == 0 &&
	    idmap_put(&m, 7, 0, NULL) == 1, "ids in order of first appearance");
	ok(idmap_put(&m, 7, 8, NULL) == 2 && idmap_put(&m, 7, UINT64_MAX, NULL) == 3 &&
	    idmap_put(&m, 7, 254, NULL) == 4, "second words 8, all ones and 254 are other keys");
	ok(idmap_put(&m, UINT64_MAX, 0, NULL) == 5, "a first word of all ones");
	idmap_key(&m, 3, &a, &b);
	ok(a == 7 && b == UINT64_MAX, "all ones given back in full");
	ok(m.kbw == NULL, "second words still coded in a byte");
	ok(idmap_get(&m, 7, 255) == -1 && idmap_get(&m, 7, 1u << 20) == -1,
	    "a second word that does not fit the byte is not found");
	ok(idmap_put(&m, 7, 255, NULL) == 6 && m.kbw != NULL,
	    "second word 255: a new key, the map keeps them in full");
	good = idmap_get(&m, 500, 0) == 0 && idmap_get(&m, 7, 0) == 1 &&
	    idmap_get(&m, 7, 8) == 2 && idmap_get(&m, 7, UINT64_MAX) == 3 &&
	    idmap_get(&m, 7, 254) == 4 && idmap_get(&m, UINT64_MAX, 0) == 5 &&
	    idmap_get(&m, 7, 255) == 6;
	idmap_key(&m, 3, &a, &b);
	ok(good && a == 7 && b == UINT64_MAX && m.count == 7,
	    "after widening every key keeps its id and value");
	idmap_free(&m);
	ok(m.count == 0 && m.ka == NULL && idmap_get(&m, 7, 0) == -1, "freed map is empty");

	/* Many keys: (random address, width), as x64dbg accesses give. */
	idmap_init(&m);
	good = 1;
	for (i = 0; i < 300000; i++) {
		if (idmap_put(&m, random_a(i), width_b(i), &added) != (int64_t)i || !added)
			good = 0;
		/* Every tenth key again, right away and later. */
		if (i % 10 == 0 && (idmap_put(&m, random_a(i), width_b(i), &added) != (int64_t)i ||
		    added || idmap_put(&m, random_a(i / 2), width_b(i / 2), NULL) != (int64_t)(i / 2)))
			good = 0;
	}
	ok(good && m.count == 300000, "300000 keys: new ids in order, old ones found");
	ok(all_keys_back(&m, 300000, random_a, width_b), "every key given back, every id found");
	ok(m.kbw == NULL, "widths and all ones stay coded in a byte");
	/*
	 * 9 bytes of key per id (the arrays' unused tail is never touched)
	 * and slots between 4/0.75 and 4/0.375 bytes per id.
	 */
	ok(idmap_bytes(&m) == m.keycap * 9 + (m.mask + 1) * 4 &&
	    (m.mask + 1) * 3 >= m.count * 4 && (m.mask + 1) * 3 < m.count * 8,
	    "memory: 9 bytes of key per id, %zu slots for %zu ids",
	    m.mask + 1, m.count);
	printf("# %.1f bytes per id in use\n",
	    (double)(m.count * 9 + (m.mask + 1) * 4) / (double)m.count);
	idmap_free(&m);

	/* Widening in the middle of a big map. */
	idmap_init(&m);
	good = 1;
	for (i = 0; i < 100000; i++)
		if (idmap_put(&m, random_a(i), wide_b(i), NULL) != (int64_t)i)
			good = 0;
	ok(good && m.kbw != NULL && all_keys_back(&m, 100000, random_a, wide_b),
	    "100000 keys with some wide second words: all given back");
	idmap_free(&m);
	return done_testing();
}
