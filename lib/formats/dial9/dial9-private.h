/*
 * What the files of the dial9 module share; no other module includes it
 * (they see dial9.h).
 *
 *   dial9-seg.c    the segment state both sides keep (the arena, the
 *                  string and stack pools, the schemas), field types,
 *                  the probe
 *   dial9-dec.c    the decoder, its fast path whole in that one file
 *   dial9-enc*.c   the encoder (dial9-enc.h: what its parts share)
 *   dial9-infer.c  what a value's text says its field type is
 *
 * Both sides keep the segment state with the same code, so that the
 * decoder can tell exactly where the encoder would choose differently by
 * itself (a pool id, a type id) and print only those choices.
 *
 * What a hot loop calls per event (the decoder's pool_get and seg_at,
 * the encoder's reserved_key) is static inline here; what crosses files
 * as a call is named dial9_*.
 */
#ifndef TP_DIAL9_PRIVATE_H
#define TP_DIAL9_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/hash.h"
#include "formats/dial9/dial9.h"
#include "text/text.h"

enum {
	TAG_SCHEMA = 1, TAG_EVENT, TAG_STRINGS, TAG_STACKS, TAG_RESET,
	TAG_ANNOT
};

enum {
	T_I64 = 1, T_F64, T_BOOL, T_STRING, T_BYTES, T_PSTACK, T_PSTRING,
	T_STACK, T_VARINT, T_SMAP, T_U8, T_U16, T_U32, T_LIST, T_MAP
};
#define OPT 0x80u
#define OP_TID 0x40u	/* decoder: this field is also the tid */
#define DELTA_MAX 0xffffffu
#define HEADER_LEN 5

/* ------------------------------------------------------- field types */

extern const char *const dial9_type_names[16];

static inline int
tag_ok(unsigned t)
{
	return (t >= 1 && t <= 15) || (t >= 0x81 && t <= 0x8f);
}

/* "varint", "opt-u8" ... into buf; returns its length. */
size_t dial9_tag_name(unsigned t, char *buf);

/* The tag named by s[0..n), or 0. */
unsigned dial9_tag_parse(const char *s, size_t n);

/* Is this a key of event records themselves (name=, ts=, tid= ...)? */
static inline int
reserved_key(const void *key, size_t n)
{
	static const char *const reserved[] = {
		"name", "ts", "id", "raw", "tid", "input", NULL
	};
	size_t i;

	for (i = 0; reserved[i] != NULL; i++)
		if (strlen(reserved[i]) == n && memcmp(reserved[i], key, n) == 0)
			return 1;
	return 0;
}

/* Is name a key of its own in event records (not ".HEX")? */
static inline int
plain_key(const unsigned char *name, size_t n)
{
	return tp_key_ok(name, n) && name[0] != '.' &&
	    !reserved_key(name, n);
}

/* ------------------------------------------------------------ arena */

/*
 * Per-segment memory (schemas, pool entries and their text): bumped out
 * of chunks, all released at once when a segment ends.
 */
struct chunk {
	struct chunk *next;
	size_t cap, used;
	unsigned char data[];
};

struct arena {
	struct chunk *head;
	size_t bytes;		/* held in chunks */
};

/* n bytes (8-aligned), or NULL out of memory. */
void *dial9_arena_alloc(struct arena *a, size_t n);

/* Give back the end of the last allocation p, keeping n bytes. */
void dial9_arena_trim(struct arena *a, void *p, size_t n);

/* ------------------------------------------------------------ pools */

/*
 * A string or stack pool: entries by id, and by content the entry that
 * "holds" it: the one the encoder picks for that content.  An entry
 * takes the content when nobody holds it at its definition and loses it
 * when redefined; both sides run these same steps, so the decoder knows
 * which references the encoder would write by itself (holders) and which
 * need their id in the text.
 */
struct pent {
	const unsigned char *data;	/* string bytes; stack: count*8 LE bytes */
	uint32_t len;
	uint32_t id;
	uint64_t hash;
	const char *text;		/* decoder: the value as printed */
	uint32_t textlen;
	int holder;
};

#define TOMB UINT32_MAX

struct pool {
	struct pent *e;
	size_t n, cap;
	uint32_t *byid;		/* entry index + 1 */
	size_t idmask;
	uint32_t *bydata;	/* entry index + 1, TOMB for a removed one */
	size_t datamask, dataused;	/* dataused: live and tombstones */
	uint32_t maxid;
	uint32_t freefrom;	/* once maxid is 2^32-1: no free id below */
	int any;
};

static inline struct pent *
pool_get(const struct pool *p, uint32_t id)
{
	size_t i;

	/* ids are mostly defined in order from 0: entry id is e[id] */
	if (id < p->n && p->e[id].id == id)
		return &p->e[id];
	if (p->byid == NULL)
		return NULL;
	for (i = (size_t)(tp_hash_u32(id) >> 32) & p->idmask; p->byid[i] != 0;
	    i = (i + 1) & p->idmask)
		if (p->e[p->byid[i] - 1].id == id)
			return &p->e[p->byid[i] - 1];
	return NULL;
}

/*
 * The holder of this content (h: tp_hash_mem of it), or NULL; *slot gets
 * its bydata slot.
 */
struct pent *dial9_pool_holder(const struct pool *p, const void *data,
    size_t len, uint64_t h, size_t *slot);

/*
 * Define id as data (copied into the arena).  Returns the entry, or NULL
 * when memory runs out.
 */
struct pent *dial9_pool_define(struct pool *p, struct arena *a, uint32_t id,
    const void *data, size_t len);

/* ------------------------------------------------------------ schemas */

struct field {
	const unsigned char *name;
	uint32_t namelen;
	unsigned tag;
	const char *key;	/* as in event records */
	uint32_t keylen;
	const char *lead;	/* decoder: " KEY=", padded */
	uint32_t leadlen;
	unsigned char op;	/* decoder: the tag, OP_TID (see schema_fast) */
};

struct schema {
	uint32_t id;
	unsigned tsbyte;
	int holder;		/* the one its name stands for */
	int inferred;		/* encoder: made from values, not a record */
	struct schema *sib;	/* encoder: the one of its name before it */
	const unsigned char *name;
	uint32_t namelen;
	uint64_t namehash;
	struct field *f;
	uint32_t nf;
	const char *prefix;	/* decoder: "event name=NAME ts=", padded */
	uint32_t prefixlen;
	int worker_field;	/* an integer worker_id (tid= in text), or -1 */
	int fast;		/* decoder: event_fast() can write its events, */
	size_t maxwire;		/* the most bytes of their fields, */
	size_t maxtext;		/* and of their text (see schema_fast) */
	const unsigned char *body;	/* the frame after the type id */
	uint32_t bodylen;
};

/*
 * Schemas by type id come in pages made on first use: a trace uses a few
 * of the 65536 ids, and a table of them all would be made and cleared
 * for every trace.
 */
#define ID_PAGE 256

/* What a segment holds; reset by every header. */
struct seg {
	struct arena arena;
	struct schema **byid[65536 / ID_PAGE];
	uint32_t *used;		/* type ids in use, for the reset */
	size_t nused, usedcap;
	struct schema **byname;	/* the holder of each name */
	size_t namemask, names;
	struct pool strings, stacks;
	uint64_t base;		/* timestamp base */
	uint32_t next_free;	/* encoder: first type id to try */
};

static inline int
seg_init(struct seg *s)
{
	memset(s, 0, sizeof *s);
	return 0;
}

/* The schema of type id (any number), or NULL. */
static inline struct schema *
seg_at(const struct seg *s, uint64_t id)
{
	struct schema **page;

	if (id > 0xffff || (page = s->byid[id / ID_PAGE]) == NULL)
		return NULL;
	return page[id % ID_PAGE];
}

/* A new segment: no schemas, empty pools, timestamp base 0. */
void dial9_seg_reset(struct seg *s);
void dial9_seg_free(struct seg *s);

/* The schema a name stands for in this segment, or NULL. */
struct schema *dial9_seg_by_name(struct seg *s, const void *name, size_t n);

/*
 * Register a schema whose body (checked) is at body[0..len): the frame
 * after its type id.  seen and seencap are the caller's scratch (a hash
 * set of field names).  *conflict is set (and NULL returned) when the id
 * holds a different layout; NULL without it: out of memory.
 */
struct schema *dial9_seg_register(struct seg *s, uint32_t id,
    const unsigned char *body, size_t len, uint32_t **seen, size_t *seencap,
    int *conflict);

/* ------------------------------------------------- schema inference */

/* The type a value's text suggests (without the optional bit); 0: null. */
unsigned dial9_infer_type(const struct tr_field *f);

/* Can a value of this text be written as type t (optional bit kept)? */
int dial9_fits(unsigned t, const struct tr_field *f);

/* Is s[0..n) hex pairs only (bytes, or an escaped field name)? */
int dial9_hex_pairs(const char *s, size_t n);

#endif
