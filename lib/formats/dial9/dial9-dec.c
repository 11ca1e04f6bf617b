/*
 * dial9-trace-format decoder and encoder.
 *
 * Both sides keep the same segment state (schemas by type id, the string
 * and stack pools, the timestamp base) with the same code, so that the
 * decoder can tell exactly where the encoder would choose differently by
 * itself (a pool id, a type id) and print only those choices.
 *
 * The decoder holds frames whole in a window of its own (grown up to
 * DIAL9_FRAME_MAX for one big frame) and works in two passes per frame:
 * parse and check everything into a value array, then format.  A frame
 * cut by the end of the window is parsed again once more bytes are in,
 * and a bad frame leaves no text behind.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "formats/dial9/dial9.h"
#include "base/digits.h"
#include "formats/probe.h"
#include "base/leb128.h"

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

static const char *const type_names[16] = {
	NULL, "i64", "f64", "bool", "string", "bytes", "pooled-stack",
	"pooled-string", "stack", "varint", "string-map", "u8", "u16", "u32",
	"dyn-list", "dyn-map"
};

static int
tag_ok(unsigned t)
{
	return (t >= 1 && t <= 15) || (t >= 0x81 && t <= 0x8f);
}

static int
tag_int(unsigned t)
{
	t &= ~OPT;
	return t == T_VARINT || t == T_U8 || t == T_U16 || t == T_U32 ||
	    t == T_I64;
}

/* "varint", "opt-u8" ... into buf; returns its length. */
static size_t
tag_name(unsigned t, char *buf)
{
	size_t n = 0;

	if (t & OPT) {
		memcpy(buf, "opt-", 4);
		n = 4;
	}
	strcpy(buf + n, type_names[t & 0x0f]);
	return n + strlen(type_names[t & 0x0f]);
}

/* The tag named by s[0..n), or 0. */
static unsigned
tag_parse(const char *s, size_t n)
{
	unsigned opt = 0, t;

	if (n > 4 && memcmp(s, "opt-", 4) == 0) {
		opt = OPT;
		s += 4;
		n -= 4;
	}
	for (t = 1; t < 16; t++)
		if (strlen(type_names[t]) == n && memcmp(type_names[t], s, n) == 0)
			return t | opt;
	return 0;
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

static void *
arena_alloc(struct arena *a, size_t n)
{
	struct chunk *c = a->head;
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (c == NULL || c->cap - c->used < n) {
		size_t cap = n > 60000 ? n : 65536 - sizeof *c;
		if ((c = malloc(sizeof *c + cap)) == NULL)
			return NULL;
		c->cap = cap;
		c->used = 0;
		c->next = a->head;
		a->head = c;
		a->bytes += cap;
	}
	p = c->data + c->used;
	c->used += n;
	return p;
}

/* Give back the end of the last allocation p, keeping n bytes. */
static void
arena_trim(struct arena *a, void *p, size_t n)
{
	struct chunk *c = a->head;

	n = (n + 7) & ~(size_t)7;
	if (c != NULL && (unsigned char *)p >= c->data &&
	    (unsigned char *)p < c->data + c->used)
		c->used = (size_t)((unsigned char *)p - c->data) + n;
}

static void
arena_free(struct arena *a)
{
	while (a->head != NULL) {
		struct chunk *c = a->head;
		a->head = c->next;
		free(c);
	}
	a->bytes = 0;
}

/* Keep one chunk for the next segment. */
static void
arena_reset(struct arena *a)
{
	struct chunk *keep = a->head;

	if (keep == NULL)
		return;
	a->head = keep->next;
	arena_free(a);
	keep->next = NULL;
	keep->used = 0;
	a->head = keep;
	a->bytes = keep->cap;
}

/*
 * Decoder text made once and copied per event (an event's prefix, a
 * field's " KEY=", a pooled value) has PAD zero bytes after it, so that
 * it is copied in fixed steps of PAD bytes, without a call per copy.
 */
#define PAD 32

static char *
padded_alloc(struct arena *a, size_t n)
{
	return arena_alloc(a, n + PAD);
}

/* s (from padded_alloc) keeps its first n bytes and the padding. */
static void
padded_trim(struct arena *a, char *s, size_t n)
{
	memset(s + n, 0, PAD);
	arena_trim(a, s, n + PAD);
}

/* n bytes of padded text at d, which has room for n + PAD. */
static inline char *
copy_padded(char *d, const char *s, size_t n)
{
	char *e = d + n;

	memcpy(d, s, PAD);	/* most are this short */
	while (n > PAD) {
		d += PAD;
		s += PAD;
		n -= PAD;
		memcpy(d, s, PAD);
	}
	return e;
}

/* Padded text of at most PAD bytes: one copy. */
static inline char *
copy_short(char *d, const char *s, size_t n)
{
	memcpy(d, s, PAD);
	return d + n;
}

/* ------------------------------------------------------------ hashing */

static uint64_t
hash_bytes(const void *s, size_t n)
{
	const unsigned char *p = s;
	uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ n, w;

	while (n >= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 32;
		p += 8;
		n -= 8;
	}
	w = 0;
	if (n > 0)
		memcpy(&w, p, n);
	h = (h ^ w) * UINT64_C(0xc4ceb9fe1a85ec53);
	return h ^ (h >> 29);
}

static inline size_t
hash_id(uint32_t id)
{
	return (size_t)(((uint64_t)id * UINT64_C(0x9e3779b97f4a7c15)) >> 32);
}

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
	int any;
};

static void
pool_free(struct pool *p)
{
	free(p->e);
	free(p->byid);
	free(p->bydata);
	memset(p, 0, sizeof *p);
}

static void
pool_reset(struct pool *p)
{
	p->n = 0;
	p->any = 0;
	p->maxid = 0;
	p->dataused = 0;
	if (p->byid != NULL)
		memset(p->byid, 0, (p->idmask + 1) * sizeof *p->byid);
	if (p->bydata != NULL)
		memset(p->bydata, 0, (p->datamask + 1) * sizeof *p->bydata);
}

static inline struct pent *
pool_get(const struct pool *p, uint32_t id)
{
	size_t i;

	/* ids are mostly defined in order from 0: entry id is e[id] */
	if (id < p->n && p->e[id].id == id)
		return &p->e[id];
	if (p->byid == NULL)
		return NULL;
	for (i = hash_id(id) & p->idmask; p->byid[i] != 0; i = (i + 1) & p->idmask)
		if (p->e[p->byid[i] - 1].id == id)
			return &p->e[p->byid[i] - 1];
	return NULL;
}

/* The holder of this content, or NULL; *slot gets its bydata slot. */
static struct pent *
pool_holder(const struct pool *p, const void *data, size_t len, uint64_t h,
    size_t *slot)
{
	size_t i;

	if (p->bydata == NULL)
		return NULL;
	for (i = (size_t)h & p->datamask; p->bydata[i] != 0;
	    i = (i + 1) & p->datamask) {
		struct pent *e;
		if (p->bydata[i] == TOMB)
			continue;
		e = &p->e[p->bydata[i] - 1];
		if (e->hash == h && e->len == len && memcmp(e->data, data, len) == 0) {
			*slot = i;
			return e;
		}
	}
	return NULL;
}

static int
pool_grow_ids(struct pool *p)
{
	size_t cap = p->idmask ? (p->idmask + 1) * 2 : 256, i;
	uint32_t *t = calloc(cap, sizeof *t);

	if (t == NULL)
		return -1;
	free(p->byid);
	p->byid = t;
	p->idmask = cap - 1;
	for (i = 0; i < p->n; i++) {
		size_t j = hash_id(p->e[i].id) & p->idmask;
		while (t[j] != 0)
			j = (j + 1) & p->idmask;
		t[j] = (uint32_t)i + 1;
	}
	return 0;
}

static int
pool_grow_data(struct pool *p)
{
	size_t cap = p->datamask ? (p->datamask + 1) * 2 : 256, i;
	uint32_t *t = calloc(cap, sizeof *t);

	if (t == NULL)
		return -1;
	free(p->bydata);
	p->bydata = t;
	p->datamask = cap - 1;
	p->dataused = 0;
	for (i = 0; i < p->n; i++) {
		size_t j;
		if (!p->e[i].holder)
			continue;
		j = (size_t)p->e[i].hash & p->datamask;
		while (t[j] != 0)
			j = (j + 1) & p->datamask;
		t[j] = (uint32_t)i + 1;
		p->dataused++;
	}
	return 0;
}

/*
 * Define id as data (copied into the arena).  Returns the entry, or NULL
 * when memory runs out.
 */
static struct pent *
pool_define(struct pool *p, struct arena *a, uint32_t id, const void *data,
    size_t len)
{
	struct pent *e = pool_get(p, id), *h;
	uint64_t hash = hash_bytes(data, len);
	unsigned char *copy;
	size_t slot;

	if (e != NULL && e->holder) {
		/* It gives up what it held. */
		if (pool_holder(p, e->data, e->len, e->hash, &slot) == e)
			p->bydata[slot] = TOMB;
		e->holder = 0;
	}
	if (e == NULL) {
		if (p->n == p->cap) {
			size_t cap = p->cap ? p->cap * 2 : 256;
			struct pent *ne = realloc(p->e, cap * sizeof *ne);
			if (ne == NULL)
				return NULL;
			p->e = ne;
			p->cap = cap;
		}
		if ((p->n + 1) * 2 > p->idmask + 1 && pool_grow_ids(p) < 0)
			return NULL;
		e = &p->e[p->n++];
		e->id = id;
		e->holder = 0;
		slot = hash_id(id) & p->idmask;
		while (p->byid[slot] != 0)
			slot = (slot + 1) & p->idmask;
		p->byid[slot] = (uint32_t)p->n;
	}
	if ((copy = arena_alloc(a, len ? len : 1)) == NULL)
		return NULL;
	if (len > 0)
		memcpy(copy, data, len);
	e->data = copy;
	e->len = (uint32_t)len;
	e->hash = hash;
	e->text = NULL;
	e->textlen = 0;
	if (!p->any || id > p->maxid)
		p->maxid = id;
	p->any = 1;
	h = pool_holder(p, data, len, hash, &slot);
	if (h == NULL) {
		if ((p->dataused + 1) * 2 > p->datamask + 1 &&
		    pool_grow_data(p) < 0)
			return NULL;
		slot = (size_t)hash & p->datamask;
		while (p->bydata[slot] != 0 && p->bydata[slot] != TOMB)
			slot = (slot + 1) & p->datamask;
		if (p->bydata[slot] == 0)
			p->dataused++;
		p->bydata[slot] = (uint32_t)(e - p->e) + 1;
		e->holder = 1;
	}
	return e;
}

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

static int
seg_init(struct seg *s)
{
	memset(s, 0, sizeof *s);
	return 0;
}

/* The schema of type id (any number), or NULL. */
static struct schema *
seg_at(const struct seg *s, uint64_t id)
{
	struct schema **page;

	if (id > 0xffff || (page = s->byid[id / ID_PAGE]) == NULL)
		return NULL;
	return page[id % ID_PAGE];
}

/* Enter x under its free type id.  0, or -1 out of memory. */
static int
seg_put(struct seg *s, struct schema *x)
{
	struct schema ***page = &s->byid[x->id / ID_PAGE];

	if (*page == NULL && (*page = calloc(ID_PAGE, sizeof **page)) == NULL)
		return -1;
	if (s->nused == s->usedcap) {
		size_t cap = s->usedcap ? 2 * s->usedcap : 64;
		uint32_t *u = realloc(s->used, cap * sizeof *u);
		if (u == NULL)
			return -1;
		s->used = u;
		s->usedcap = cap;
	}
	(*page)[x->id % ID_PAGE] = x;
	s->used[s->nused++] = x->id;
	return 0;
}

static void
seg_reset(struct seg *s)
{
	size_t i;

	for (i = 0; i < s->nused; i++)
		s->byid[s->used[i] / ID_PAGE][s->used[i] % ID_PAGE] = NULL;
	s->nused = 0;
	if (s->byname != NULL)
		memset(s->byname, 0, (s->namemask + 1) * sizeof *s->byname);
	s->names = 0;
	pool_reset(&s->strings);
	pool_reset(&s->stacks);
	arena_reset(&s->arena);
	s->base = 0;
	s->next_free = 0;
}

static void
seg_free(struct seg *s)
{
	for (size_t i = 0; i < 65536 / ID_PAGE; i++)
		free(s->byid[i]);
	free(s->used);
	free(s->byname);
	pool_free(&s->strings);
	pool_free(&s->stacks);
	arena_free(&s->arena);
}

static struct schema **
name_slot(struct seg *s, const void *name, size_t n, uint64_t h)
{
	size_t i;

	for (i = (size_t)h & s->namemask; s->byname[i] != NULL;
	    i = (i + 1) & s->namemask) {
		struct schema *x = s->byname[i];
		if (x->namehash == h && x->namelen == n &&
		    (n == 0 || memcmp(x->name, name, n) == 0))
			break;
	}
	return &s->byname[i];
}

/* The schema a name stands for in this segment, or NULL. */
static struct schema *
seg_by_name(struct seg *s, const void *name, size_t n)
{
	if (s->byname == NULL)
		return NULL;
	return *name_slot(s, name, n, hash_bytes(name, n));
}

/* x becomes the holder of its name.  0, or -1 out of memory. */
static int
seg_hold_name(struct seg *s, struct schema *x)
{
	struct schema **slot;

	if ((s->names + 1) * 2 > s->namemask + 1) {
		size_t cap = s->namemask ? (s->namemask + 1) * 2 : 64, i;
		struct schema **old = s->byname, **t = calloc(cap, sizeof *t);
		size_t oldcap = s->byname ? s->namemask + 1 : 0;
		if (t == NULL)
			return -1;
		s->byname = t;
		s->namemask = cap - 1;
		for (i = 0; i < oldcap; i++)
			if (old[i] != NULL)
				*name_slot(s, old[i]->name, old[i]->namelen,
				    old[i]->namehash) = old[i];
		free(old);
	}
	slot = name_slot(s, x->name, x->namelen, x->namehash);
	if (*slot == NULL)
		s->names++;
	else
		(*slot)->holder = 0;
	*slot = x;
	x->holder = 1;
	return 0;
}

/* Do two schema bodies describe the same layout (any non-zero ts byte)? */
static int
same_body(const struct schema *a, const unsigned char *body, size_t len,
    unsigned tsbyte)
{
	size_t at = 2 + a->namelen;

	return a->bodylen == len && (a->tsbyte != 0) == (tsbyte != 0) &&
	    memcmp(a->body, body, at) == 0 &&
	    memcmp(a->body + at + 1, body + at + 1, len - at - 1) == 0;
}

/*
 * The key of field i in event records: its name when that is a plain key
 * no other field or record key uses, else "." and the name in hex (and
 * ".N" for a name an earlier field has).  seen is a scratch hash set.
 */
static const char *const reserved_keys[] = {
	"name", "ts", "id", "raw", "tid", NULL
};

static int
plain_key(const unsigned char *name, size_t n)
{
	size_t i;

	if (!tp_key_ok(name, n) || name[0] == '.')
		return 0;
	for (i = 0; reserved_keys[i] != NULL; i++)
		if (strlen(reserved_keys[i]) == n &&
		    memcmp(reserved_keys[i], name, n) == 0)
			return 0;
	return 1;
}

/*
 * Build the schema's fields from a body already checked: names, tags and
 * keys.  Returns 0, or -1 out of memory.
 */
static int
schema_fields(struct seg *s, struct schema *x, uint32_t **seen,
    size_t *seencap)
{
	const unsigned char *p = x->body + 2 + x->namelen + 1;
	uint32_t i, j;
	size_t cap = 16;

	x->nf = tp_get_le16(p);
	p += 2;
	x->f = arena_alloc(&s->arena, (x->nf ? x->nf : 1) * sizeof *x->f);
	if (x->f == NULL)
		return -1;
	while (cap < (size_t)x->nf * 2)
		cap *= 2;
	if (*seencap < cap) {
		free(*seen);
		if ((*seen = malloc(cap * sizeof **seen)) == NULL) {
			*seencap = 0;
			return -1;
		}
		*seencap = cap;
	}
	memset(*seen, 0, cap * sizeof **seen);
	x->worker_field = -1;
	for (i = 0; i < x->nf; i++) {
		struct field *f = &x->f[i];
		int dup = 0;
		uint64_t h;
		f->namelen = tp_get_le16(p);
		f->name = p + 2;
		p += 2 + f->namelen;
		f->tag = *p++;
		h = hash_bytes(f->name, f->namelen);
		for (j = (uint32_t)h & (cap - 1); (*seen)[j] != 0;
		    j = (j + 1) & (uint32_t)(cap - 1)) {
			struct field *g = &x->f[(*seen)[j] - 1];
			if (g->namelen == f->namelen &&
			    memcmp(g->name, f->name, f->namelen) == 0) {
				dup = 1;
				break;
			}
		}
		if (!dup)
			(*seen)[j] = i + 1;
		if (!dup && plain_key(f->name, f->namelen)) {
			f->key = (const char *)f->name;
			f->keylen = f->namelen;
		} else {
			char *k = arena_alloc(&s->arena, 2 * f->namelen + 8);
			char *e = k;
			if (k == NULL)
				return -1;
			*e++ = '.';
			e = tp_fmt_hexbytes(e, f->name, f->namelen);
			if (dup) {
				*e++ = '.';
				e = tp_fmt_u64(e, i);
			}
			f->key = k;
			f->keylen = (uint32_t)(e - k);
		}
		if (!dup && f->namelen == 9 && memcmp(f->name, "worker_id", 9) == 0 &&
		    tag_int(f->tag))
			x->worker_field = (int)i;
	}
	return 0;
}

/*
 * Register a schema whose body (checked) is at body[0..len).  *conflict
 * is set (and NULL returned) when the id holds a different layout.
 */
static struct schema *
seg_register(struct seg *s, uint32_t id, const unsigned char *body,
    size_t len, uint32_t **seen, size_t *seencap, int *conflict)
{
	struct schema *x = seg_at(s, id);
	unsigned tsbyte = body[2 + tp_get_le16(body)];
	unsigned char *copy;

	*conflict = 0;
	if (x != NULL) {
		if (!same_body(x, body, len, tsbyte)) {
			*conflict = 1;
			return NULL;
		}
		if (seg_hold_name(s, x) < 0)
			return NULL;
		return x;
	}
	if ((x = arena_alloc(&s->arena, sizeof *x)) == NULL ||
	    (copy = arena_alloc(&s->arena, len)) == NULL)
		return NULL;
	memset(x, 0, sizeof *x);
	memcpy(copy, body, len);
	x->id = id;
	x->body = copy;
	x->bodylen = (uint32_t)len;
	x->namelen = tp_get_le16(copy);
	x->name = copy + 2;
	x->namehash = hash_bytes(x->name, x->namelen);
	x->tsbyte = tsbyte;
	if (schema_fields(s, x, seen, seencap) < 0 || seg_hold_name(s, x) < 0 ||
	    seg_put(s, x) < 0)
		return NULL;
	return x;
}

/* ------------------------------------------------------------ probe */

int
dial9_probe(const unsigned char *p, size_t n, char *detail, size_t detailsz)
{
	if (n < HEADER_LEN || memcmp(p, "TRC", 4) != 0)
		return TP_PROBE_NO;
	if (detail != NULL && detailsz > 0) {
		char *e = detail;
		if (detailsz >= 12) {
			memcpy(e, "version ", 8);
			e = tp_fmt_u64(e + 8, p[4]);
		}
		*e = '\0';
	}
	return TP_PROBE_YES;
}

/* ============================================================ decoder */

/* One value, as parsed in the first pass. */
struct val {
	uint64_t v;		/* integers, float bits, bool byte, pool id */
	const unsigned char *p;	/* bytes, strings; the elements of a list */
	const struct pent *pe;	/* pooled values */
	uint32_t n;		/* length, or count of elements */
	unsigned char present;	/* optional: the presence byte, else 1 */
	unsigned char len;	/* varint: its length when not the shortest */
};

struct dec {
	struct tp_in *in;
	struct tp_out *out;
	struct tp_err *err;
	struct dial9_dec_stats *st;
	unsigned char *win;	/* frames are decoded from here */
	size_t len, pos;
	uint64_t base;		/* stream offset of win[0] */
	int eof;
	uint64_t frames;
	struct seg seg;
	struct val *vals;
	size_t nvals;
	uint32_t *seen;
	size_t seencap;
	uint64_t tsbase;	/* the last ts but for its last 8 digits, */
	char tshitext[16];	/* the digits above them */
	size_t tshilen;
};

enum { FR_OK = 0, FR_MORE = 1, FR_BAD = -1, FR_SLOW = 2 };

/* Less unread than this: read more. */
#define WIN_LOW (TP_IN_BUF / 128)

static int
dec_fail(struct dec *d, const unsigned char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
dec_fail(struct dec *d, const unsigned char *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tp_failv(d->err, TP_EXIT_DATA, fmt, ap);
	va_end(ap);
	d->err->offset = d->base + (uint64_t)(at - d->win);
	d->err->index = d->frames;
	d->err->unit = "frame";
	return FR_BAD;
}

static int
dec_nomem(struct dec *d)
{
	d->err->offset = TP_NONE;
	tp_fail(d->err, TP_EXIT_FAIL, "out of memory");
	return FR_BAD;
}

/*
 * The window is the input's own buffer (no copy): at least want unread
 * bytes in it, unless the input ends first.
 */
static int
win_fill(struct dec *d, size_t want)
{
	d->in->pos = d->pos;
	if (tp_in_fill(d->in, want) < 0)
		return -1;
	d->win = d->in->buf;
	d->pos = d->in->pos;
	d->len = d->in->len;
	d->base = d->in->base;
	d->eof = d->in->eof;
	return 0;
}

/*
 * One value of type t (no optional bit) at *qp: checked, stored in v,
 * *qp moved past it.  FR_MORE when the bytes end inside it.
 */
static int
parse_value(struct dec *d, unsigned t, const unsigned char **qp,
    const unsigned char *end, struct val *v, int depth)
{
	const unsigned char *q = *qp, *r;
	size_t left = (size_t)(end - q), l;
	uint64_t n, k;
	struct val ev;
	int rc;

	v->len = 0;
	switch (t) {
	case T_VARINT:
		rc = tp_uleb_get(q, left, &v->v, &l);
		if (rc == TP_LEB_TRUNC)
			return FR_MORE;
		if (rc == TP_LEB_TOOLONG)
			return dec_fail(d, q, "varint longer than 10 bytes");
		if (rc == TP_LEB_OVERFLOW)
			return dec_fail(d, q, "varint above 2^64-1");
		if (l != tp_uleb_size(v->v))
			v->len = (unsigned char)l;
		q += l;
		break;
	case T_U8:
	case T_BOOL:
		if (left < 1)
			return FR_MORE;
		v->v = q[0];
		q += 1;
		break;
	case T_U16:
		if (left < 2)
			return FR_MORE;
		v->v = tp_get_le16(q);
		q += 2;
		break;
	case T_U32:
		if (left < 4)
			return FR_MORE;
		v->v = tp_get_le32(q);
		q += 4;
		break;
	case T_I64:
	case T_F64:
		if (left < 8)
			return FR_MORE;
		v->v = tp_get_le64(q);
		q += 8;
		break;
	case T_STRING:
	case T_BYTES:
		if (left < 4)
			return FR_MORE;
		n = tp_get_le32(q);
		if (left - 4 < n)
			return FR_MORE;
		v->p = q + 4;
		v->n = (uint32_t)n;
		q += 4 + n;
		break;
	case T_PSTRING:
	case T_PSTACK:
		if (left < 4)
			return FR_MORE;
		v->v = tp_get_le32(q);
		v->pe = pool_get(t == T_PSTRING ? &d->seg.strings :
		    &d->seg.stacks, (uint32_t)v->v);
		if (v->pe == NULL)
			return dec_fail(d, q, "undefined %s pool id %u",
			    t == T_PSTRING ? "string" : "stack", (unsigned)v->v);
		q += 4;
		break;
	case T_STACK:
		if (left < 4)
			return FR_MORE;
		n = tp_get_le32(q);
		if ((left - 4) / 8 < n)
			return FR_MORE;
		v->p = q + 4;
		v->n = (uint32_t)n;
		q += 4 + 8 * n;
		break;
	case T_SMAP:
		if (left < 4)
			return FR_MORE;
		n = tp_get_le32(q);
		r = q + 4;
		for (k = 0; k < 2 * n; k++) {
			uint64_t m;
			if (end - r < 4)
				return FR_MORE;
			m = tp_get_le32(r);
			if ((uint64_t)(end - r) - 4 < m)
				return FR_MORE;
			r += 4 + m;
		}
		v->p = q + 4;
		v->n = (uint32_t)n;
		q = r;
		break;
	case T_LIST:
	case T_MAP:
		if (depth >= DIAL9_DEPTH_MAX)
			return dec_fail(d, q, "dynamic values nested deeper "
			    "than %d", DIAL9_DEPTH_MAX);
		if (left < 4)
			return FR_MORE;
		n = tp_get_le32(q);
		r = q + 4;
		for (k = 0; k < (t == T_MAP ? 2 * n : n); k++) {
			if (r >= end)
				return FR_MORE;
			if (!tag_ok(*r))
				return dec_fail(d, r, "unknown element type 0x%02x",
				    *r);
			r++;
			rc = parse_value(d, r[-1] & ~OPT, &r, end, &ev, depth + 1);
			if (rc != FR_OK)
				return rc;
		}
		v->p = q + 4;
		v->n = (uint32_t)n;
		q = r;
		break;
	}
	*qp = q;
	return FR_OK;
}

/*
 * The common values (integers, bools, pool ids) without the call, for a
 * caller who knows that the bytes left hold the longest of them
 * (TP_LEB_MAX).  0: the value is for parse_value (another type, a varint
 * of 10 bytes, an undefined pool id).  An over-long varint ends in a zero
 * byte.
 */
static inline __attribute__((always_inline)) int
parse_fast(struct dec *d, unsigned t, const unsigned char **qp,
    struct val *v)
{
	const unsigned char *q = *qp;
	uint64_t r;
	unsigned b, sh;

	switch (t) {
	case T_VARINT:
		v->len = 0;
		r = *q++;
		if (r >= 0x80) {
			for (r &= 0x7f, sh = 7;; sh += 7) {
				b = *q++;
				r |= (uint64_t)(b & 0x7f) << sh;
				if (b < 0x80)
					break;
				if (sh == 56)
					return 0;
			}
			if (b == 0)
				v->len = (unsigned char)(q - *qp);
		}
		v->v = r;
		break;
	case T_U8:
	case T_BOOL:
		v->v = *q++;
		break;
	case T_U16:
		v->v = tp_get_le16(q);
		q += 2;
		break;
	case T_U32:
		v->v = tp_get_le32(q);
		q += 4;
		break;
	case T_PSTRING:
	case T_PSTACK:
		v->v = tp_get_le32(q);
		v->pe = pool_get(t == T_PSTRING ? &d->seg.strings :
		    &d->seg.stacks, (uint32_t)v->v);
		if (v->pe == NULL)
			return 0;
		q += 4;
		break;
	default:
		return 0;
	}
	*qp = q;
	return 1;
}

static void print_val(struct dec *d, unsigned t, const struct val *v,
    int depth);

/* A dynamic element: {type:value} and its wire details. */
static void
print_elem(struct dec *d, const unsigned char **qp, int depth)
{
	struct tp_out *o = d->out;
	unsigned tag = **qp, t = tag & ~OPT;
	char name[24];
	struct val ev;

	(*qp)++;
	parse_value(d, t, qp, d->win + d->len, &ev, depth);
	tv_open_map(o);
	tv_mapkey(o, name, tag_name(tag, name));
	print_val(d, t, &ev, depth);
	if (ev.len) {
		tv_sep(o);
		tv_mapkey(o, "len", 3);
		tv_u64(o, ev.len);
	}
	if ((t == T_PSTRING || t == T_PSTACK) && !ev.pe->holder) {
		tv_sep(o);
		tv_mapkey(o, "id", 2);
		tv_u64(o, ev.v);
	}
	if (t == T_BOOL && ev.v > 1) {
		tv_sep(o);
		tv_mapkey(o, "byte", 4);
		tv_u64(o, ev.v);
	}
	tv_close_map(o);
}

/* Any value, with the text writer (the rarer types). */
static void
print_val(struct dec *d, unsigned t, const struct val *v, int depth)
{
	struct tp_out *o = d->out;
	const unsigned char *q = v->p;
	uint32_t k;

	switch (t) {
	case T_I64:
		tv_i64(o, (int64_t)v->v);
		break;
	case T_F64:
		tv_f64(o, tp_f64_from_bits(v->v));
		break;
	case T_BOOL:
		tv_bool(o, v->v != 0);
		break;
	case T_STRING:
		tv_qstr(o, v->p, v->n);
		break;
	case T_BYTES:
		/* Empty bytes are an empty value, but not inside a list. */
		if (v->n == 0 && depth > 0)
			tv_qstr(o, "", 0);
		else
			tv_bytes(o, v->p, v->n);
		break;
	case T_PSTRING:
	case T_PSTACK:
		tp_out_write(o, v->pe->text, v->pe->textlen);
		break;
	case T_STACK:
		tv_open_list(o);
		for (k = 0; k < v->n; k++) {
			if (k > 0)
				tv_sep(o);
			tv_hex(o, tp_get_le64(q + 8 * (size_t)k));
		}
		tv_close_list(o);
		break;
	case T_SMAP:
		tv_open_map(o);
		for (k = 0; k < v->n; k++) {
			uint32_t kl = tp_get_le32(q), vl;
			if (k > 0)
				tv_sep(o);
			tv_mapkey(o, (const char *)q + 4, kl);
			q += 4 + kl;
			vl = tp_get_le32(q);
			tv_qstr(o, q + 4, vl);
			q += 4 + vl;
		}
		tv_close_map(o);
		break;
	case T_LIST:
		tv_open_list(o);
		for (k = 0; k < v->n; k++) {
			if (k > 0)
				tv_sep(o);
			print_elem(d, &q, depth + 1);
		}
		tv_close_list(o);
		break;
	case T_MAP:
		tv_open_list(o);
		for (k = 0; k < v->n; k++) {
			if (k > 0)
				tv_sep(o);
			tv_open_list(o);
			print_elem(d, &q, depth + 1);
			tv_sep(o);
			print_elem(d, &q, depth + 1);
			tv_close_list(o);
		}
		tv_close_list(o);
		break;
	default:		/* the unsigned integers */
		tv_u64(o, v->v);
		break;
	}
}

/* --------------------------------------------------- event text, fast */

/* A window on the output buffer for the formatting of one record. */
struct cur {
	struct tp_out *o;
	char *p, *lim;
};

#define CUR_ROOM 32768

static inline void
cur_begin(struct cur *c, struct tp_out *o)
{
	c->o = o;
	c->p = tp_out_reserve(o, CUR_ROOM);
	c->lim = c->p + CUR_ROOM;
}

static inline void
cur_end(struct cur *c)
{
	tp_out_commit(c->o, c->p);
}

/* Room for n <= CUR_ROOM bytes at c->p. */
static inline void
cur_need(struct cur *c, size_t n)
{
	if ((size_t)(c->lim - c->p) < n) {
		cur_end(c);
		cur_begin(c, c->o);
	}
}

static void
cur_write(struct cur *c, const void *s, size_t n)
{
	if (n <= 4096) {
		cur_need(c, n);
		memcpy(c->p, s, n);
		c->p += n;
	} else {
		cur_end(c);
		tp_out_write(c->o, s, n);
		cur_begin(c, c->o);
	}
}

/* Padded text, and room for a number after it. */
static inline void
cur_text(struct cur *c, const char *s, size_t n)
{
	if (n <= 4096) {
		cur_need(c, n + PAD + 32);
		c->p = copy_padded(c->p, s, n);
	} else {
		cur_write(c, s, n);
		cur_need(c, 32);
	}
}

/* An integer of type t (no optional bit), as tp_fmt_u64_wide writes it. */
static inline __attribute__((always_inline)) char *
fmt_int(char *p, unsigned t, uint64_t v)
{
	if (t == T_I64 && (int64_t)v < 0) {
		*p = '-';
		return tp_fmt_u64_wide(p + 1, (uint64_t)0 - v);
	}
	return tp_fmt_u64_wide(p, v);
}

/*
 * A timestamp: the digits above the last 8 change seldom from one event
 * to the next, so they are kept with the value they stand for (tsbase, a
 * multiple of 10^8) and only the last 8 are made anew.
 */
static inline char *
fmt_ts(struct dec *d, char *p, uint64_t ts)
{
	uint64_t lo = ts - d->tsbase;

	/* (ts < tsbase: lo wraps, and can wrap below 10^8 near 2^64) */
	if (lo >= 100000000 || ts < d->tsbase || d->tshilen == 0) {
		uint64_t hi = ts / 100000000;
		if (hi == 0)
			return tp_fmt_u64(p, ts);
		d->tsbase = hi * 100000000;
		d->tshilen = (size_t)(tp_fmt_u64(d->tshitext, hi) - d->tshitext);
		lo = ts - d->tsbase;
	}
	memcpy(p, d->tshitext, 16);
	p += d->tshilen;
	tp_put_le64(p, tp_digits8((uint32_t)lo));
	return p + 8;
}

static void
print_raw(struct dec *d, const struct schema *x)
{
	struct tp_out *o = d->out;
	const struct val *v = d->vals;
	uint32_t i;
	int first = 1;

	tw_key(o, "raw");
	tv_open_map(o);
	for (i = 0; i < x->nf; i++) {
		unsigned t = x->f[i].tag & ~OPT;
		int sep = 0;
		int pres = v[i].present > 1;
		int len = v[i].present && t == T_VARINT && v[i].len;
		int id = v[i].present && (t == T_PSTRING || t == T_PSTACK) &&
		    !v[i].pe->holder;
		int byte = v[i].present && t == T_BOOL && v[i].v > 1;
		if (!pres && !len && !id && !byte)
			continue;
		if (!first)
			tv_sep(o);
		first = 0;
		tv_mapkey(o, x->f[i].key, x->f[i].keylen);
		tv_open_map(o);
#define RAW_ITEM(cond, name, value) \
		if (cond) { \
			if (sep++) \
				tv_sep(o); \
			tv_mapkey(o, name, sizeof name - 1); \
			tv_u64(o, value); \
		}
		RAW_ITEM(pres, "present", v[i].present)
		RAW_ITEM(len, "len", v[i].len)
		RAW_ITEM(id, "id", v[i].v)
		RAW_ITEM(byte, "byte", v[i].v)
#undef RAW_ITEM
		tv_close_map(o);
	}
	tv_close_map(o);
}

/* An integer or a bool; *raw set when its wire form needs telling. */
static inline char *
fmt_simple(char *p, unsigned t, const struct val *v, int *raw)
{
	if (t == T_BOOL) {
		if (v->v > 1 && raw != NULL)
			*raw = 1;
		if (v->v) {
			memcpy(p, "true", 4);
			return p + 4;
		}
		memcpy(p, "false", 5);
		return p + 5;
	}
	if (t == T_VARINT && v->len)
		*raw = 1;
	return fmt_int(p, t, v->v);
}

static void
fmt_event(struct dec *d, const struct schema *x, uint64_t ts)
{
	const struct val *v = d->vals;
	struct cur c;
	uint32_t i;
	int raw = 0;

	cur_begin(&c, d->out);
	cur_text(&c, x->prefix, x->prefixlen - 4);	/* not its " ts=" */
	cur_need(&c, 80);
	if (!x->holder) {
		memcpy(c.p, " id=", 4);
		c.p = tp_fmt_u64(c.p + 4, x->id);
	}
	memcpy(c.p, " ts=", 4);
	c.p = fmt_ts(d, c.p + 4, ts);
	if (x->worker_field >= 0 && v[x->worker_field].present) {
		memcpy(c.p, " tid=", 5);
		c.p = fmt_int(c.p + 5, x->f[x->worker_field].tag & ~OPT,
		    v[x->worker_field].v);
	}
	for (i = 0; i < x->nf; i++) {
		const struct field *f = &x->f[i];
		unsigned t = f->tag & ~OPT;
		cur_text(&c, f->lead, f->leadlen);
		if (!v[i].present) {
			memcpy(c.p, "null", 4);
			c.p += 4;
			continue;
		}
		if (v[i].present > 1)
			raw = 1;
		switch (t) {
		case T_VARINT:
		case T_U8:
		case T_U16:
		case T_U32:
		case T_I64:
		case T_BOOL:
			c.p = fmt_simple(c.p, t, &v[i], &raw);
			break;
		case T_PSTRING:
		case T_PSTACK:
			if (!v[i].pe->holder)
				raw = 1;
			cur_text(&c, v[i].pe->text, v[i].pe->textlen);
			break;
		default:
			cur_end(&c);
			print_val(d, t, &v[i], 0);
			cur_begin(&c, d->out);
			break;
		}
	}
	if (raw) {
		cur_end(&c);
		print_raw(d, x);
		cur_begin(&c, d->out);
	}
	*c.p++ = '\n';
	cur_end(&c);
}

/* ------------------------------------------------------------ frames */

static const char *const frame_names[] = {
	"unknown", "schema", "event", "string pool", "stack pool",
	"timestamp reset", "schema annotations"
};

/* Prefix err's message with the event and field it is about. */
static int
in_field(struct dec *d, const struct schema *x, uint32_t i)
{
	char msg[sizeof d->err->msg];

	memcpy(msg, d->err->msg, sizeof msg);
	snprintf(d->err->msg, sizeof d->err->msg, "event %.*s, field %.*s: %.120s",
	    (int)(x->namelen > 60 ? 60 : x->namelen), (const char *)x->name,
	    (int)(x->f[i].namelen > 60 ? 60 : x->f[i].namelen),
	    (const char *)x->f[i].name, msg);
	return FR_BAD;
}

/*
 * Can event_fast() write this schema's events (its keys short enough for
 * copy_short)?  If so, x->maxwire is the
 * most bytes one takes after its timestamp, x->maxtext the most text it
 * makes but for its pooled values and stacks (with the padding of each
 * copy), and each field's op says how it is read and written.
 */
static int
schema_fast(struct schema *x)
{
	static const unsigned char size[16] = {
		[T_VARINT] = TP_LEB_MAX, [T_U8] = 1, [T_BOOL] = 1, [T_U16] = 2,
		[T_U32] = 4, [T_I64] = 8, [T_PSTRING] = 4, [T_PSTACK] = 4,
		[T_STACK] = 4	/* the count; event_fast checks the rest */
	};
	uint32_t i;

	if (x->worker_field > 0)	/* its tid comes before earlier fields */
		return 0;
	x->maxwire = 0;
	/* the prefix (its " ts="), 20 digits, " tid=" and 21, the newline */
	x->maxtext = x->prefixlen + PAD + 20 + 26 + 1;
	for (i = 0; i < x->nf; i++) {
		unsigned t = x->f[i].tag;
		if (size[t & 0x0f] == 0 || (t & 0x70) || x->f[i].leadlen > PAD)
			return 0;
		x->f[i].op = (unsigned char)(t | (i == 0 &&
		    x->worker_field == 0 ? OP_TID : 0));
		x->maxwire += size[t & 0x0f] + (t & OPT ? 1 : 0);
		x->maxtext += x->f[i].leadlen + PAD + 21;
	}
	return x->maxtext <= CUR_ROOM / 2;
}

/*
 * An event of a schema that schema_fast() accepts, in one pass: each
 * field parsed and written at once at p, which has room up to lim, at
 * least x->maxtext.  Returns the end of the text, or NULL (whatever was
 * written is not committed) for what the two passes of dec_event() do
 * better: an event near the end of the bytes, a value that is not the
 * common case (a pool id or a varint of 10 bytes that may be wrong, wire
 * details that raw= must tell, an id=), a record longer than the room.
 */
static inline __attribute__((always_inline)) char *
event_fast(struct dec *d, const struct schema *x, const unsigned char **qp,
    const unsigned char *end, uint64_t ts, char *p, const char *lim)
{
	/* in locals: the text written through p could alias them */
	const struct field *f = x->f, *fend = f + x->nf;
	const unsigned char *q = *qp;
	size_t room = (size_t)(lim - p) - x->maxtext;

	if ((size_t)(end - q) < x->maxwire || !x->holder)
		return NULL;
	p = copy_padded(p, x->prefix, x->prefixlen);
	p = fmt_ts(d, p, ts);
	for (; f < fend; f++) {
		unsigned op = f->op;
		const struct pent *pe;
		uint64_t v, n, k;
		unsigned b, sh;

		if (op & OPT) {
			if (*q != 1) {
				if (*q != 0)
					return NULL;
				q++;
				p = copy_short(p, f->lead, f->leadlen);
				memcpy(p, "null", 4);
				p += 4;
				continue;
			}
			q++;
		}
		switch (op & 0x0f) {
		case T_VARINT:
			v = *q++;
			if (v >= 0x80) {
				b = *q++;
				v = (v & 0x7f) | (uint64_t)(b & 0x7f) << 7;
				if (b < 0x80) {
					if (b == 0)	/* not the shortest form */
						return NULL;
					break;
				}
				for (sh = 14;; sh += 7) {
					b = *q++;
					v |= (uint64_t)(b & 0x7f) << sh;
					if (b < 0x80)
						break;
					if (sh == 56)	/* 10 bytes: may be wrong */
						return NULL;
				}
				if (b == 0)	/* not the shortest form */
					return NULL;
			}
			break;
		case T_U8:
			v = *q++;
			break;
		case T_U16:
			v = tp_get_le16(q);
			q += 2;
			break;
		case T_U32:
			v = tp_get_le32(q);
			q += 4;
			break;
		case T_I64:
			v = tp_get_le64(q);
			q += 8;
			if ((int64_t)v < 0) {
				if (op & OP_TID) {
					memcpy(p, " tid=-", 6);
					p = tp_fmt_u64_wide(p + 6, (uint64_t)0 - v);
				}
				p = copy_short(p, f->lead, f->leadlen);
				*p = '-';
				p = tp_fmt_u64_wide(p + 1, (uint64_t)0 - v);
				continue;
			}
			break;
		case T_BOOL:
			if (*q > 1)
				return NULL;
			p = copy_short(p, f->lead, f->leadlen);
			memcpy(p, *q ? "true" : "false", 5);
			p += 5 - *q++;
			continue;
		case T_PSTRING:
		case T_PSTACK:
			pe = pool_get((op & 0x0f) == T_PSTRING ? &d->seg.strings :
			    &d->seg.stacks, tp_get_le32(q));
			if (pe == NULL || !pe->holder || pe->textlen + PAD > room)
				return NULL;
			q += 4;
			room -= pe->textlen + PAD;
			p = copy_short(p, f->lead, f->leadlen);
			p = copy_padded(p, pe->text, pe->textlen);
			continue;
		case T_STACK:
			n = tp_get_le32(q);
			if ((uint64_t)(end - q) < 4 + 8 * n + x->maxwire ||
			    19 * n + 2 + PAD > room)
				return NULL;
			room -= 19 * n + 2 + PAD;
			p = copy_short(p, f->lead, f->leadlen);
			*p++ = '[';
			for (k = 0; k < n; k++) {
				if (k > 0)
					*p++ = ',';
				p = tp_fmt_hex(p, tp_get_le64(q + 4 + 8 * k));
			}
			*p++ = ']';
			q += 4 + 8 * n;
			continue;
		default:	/* schema_fast() lets no other type by */
			__builtin_unreachable();
		}
		/* an integer */
		if (op & OP_TID) {
			memcpy(p, " tid=", 5);
			p = tp_fmt_u64_wide(p + 5, v);
		}
		p = copy_short(p, f->lead, f->leadlen);
		p = tp_fmt_u64_wide(p, v);
	}
	*qp = q;
	*p++ = '\n';
	return p;
}

static int
dec_event(struct dec *d, const unsigned char *p, const unsigned char *end,
    size_t *flen)
{
	const unsigned char *q = p + 3;
	struct schema *x;
	uint64_t ts = d->seg.base;
	uint32_t i;

	if (end - p < 3)
		return FR_MORE;
	x = seg_at(&d->seg, tp_get_le16(p + 1));
	if (x == NULL)
		return dec_fail(d, p, "event of type id %u before its schema",
		    tp_get_le16(p + 1));
	if (x->tsbyte) {
		uint32_t delta;
		if (end - q < 3)
			return FR_MORE;
		delta = (uint32_t)q[0] | (uint32_t)q[1] << 8 |
		    (uint32_t)q[2] << 16;
		if (ts + delta < ts)
			return dec_fail(d, q, "event %.*s: timestamp base %llu "
			    "+ delta %u overflows 64 bits",
			    (int)(x->namelen > 60 ? 60 : x->namelen),
			    (const char *)x->name, (unsigned long long)ts,
			    delta);
		ts += delta;
		q += 3;
	}
	for (i = 0; i < x->nf; i++) {
		struct val *v = &d->vals[i];
		unsigned t = x->f[i].tag;
		int rc;
		v->present = 1;
		if (t & OPT) {
			if (q >= end)
				return FR_MORE;
			v->present = *q++;
			if (!v->present)
				continue;
			t &= ~OPT;
		}
		if (end - q >= TP_LEB_MAX && parse_fast(d, t, &q, v))
			continue;
		rc = parse_value(d, t, &q, end, v, 0);
		if (rc == FR_BAD)
			return in_field(d, x, i);
		if (rc != FR_OK)
			return rc;
	}
	fmt_event(d, x, ts);
	*flen = (size_t)(q - p);
	if (x->tsbyte)
		d->seg.base = ts;
	d->st->events++;
	return FR_OK;
}

static int
dec_header(struct dec *d, const unsigned char *p, const unsigned char *end,
    size_t *flen)
{
	if (end - p < HEADER_LEN) {
		/* Say early when the bytes present cannot be a header. */
		size_t n = (size_t)(end - p) < 4 ? (size_t)(end - p) : 4;
		if (memcmp(p, "TRC", n) != 0)
			goto bad;
		return FR_MORE;
	}
	if (memcmp(p, "TRC", 4) != 0)
		goto bad;
	seg_reset(&d->seg);
	tw_begin(d->out, "dial9-header");
	tw_u64(d->out, "version", p[4]);
	tw_end(d->out);
	d->st->headers++;
	*flen = HEADER_LEN;
	return FR_OK;
bad:
	if (d->base + (uint64_t)(p - d->win) == 0)
		return dec_fail(d, p, "not a dial9 trace: no TRC\\0 header");
	return dec_fail(d, p, "unknown frame tag 0x%02x", p[0]);
}

static int
dec_schema(struct dec *d, const unsigned char *p, const unsigned char *end,
    size_t *flen)
{
	const unsigned char *q = p + 1;
	struct tp_out *o = d->out;
	struct schema *x;
	uint32_t id, nf, i;
	size_t namelen;
	int conflict;
	char tn[24];

	if (end - q < 4)
		return FR_MORE;
	id = tp_get_le16(q);
	namelen = tp_get_le16(q + 2);
	q += 4;
	if ((size_t)(end - q) < namelen + 3)
		return FR_MORE;
	q += namelen + 1;
	nf = tp_get_le16(q);
	q += 2;
	for (i = 0; i < nf; i++) {
		size_t fl;
		if (end - q < 2)
			return FR_MORE;
		fl = tp_get_le16(q);
		if ((size_t)(end - q) < fl + 3)
			return FR_MORE;
		if (!tag_ok(q[2 + fl]))
			return dec_fail(d, q + 2 + fl, "schema %.*s (type id %u), "
			    "field %u: unknown field type 0x%02x",
			    (int)(namelen > 60 ? 60 : namelen),
			    (const char *)p + 5, id, i, q[2 + fl]);
		q += fl + 3;
	}
	x = seg_register(&d->seg, id, p + 3, (size_t)(q - p - 3), &d->seen,
	    &d->seencap, &conflict);
	if (conflict)
		return dec_fail(d, p, "type id %u registered again with a "
		    "different schema (%.*s)", id,
		    (int)(namelen > 60 ? 60 : namelen), (const char *)p + 5);
	if (x == NULL)
		return dec_nomem(d);
	if (x->prefix == NULL) {
		/* "event name=NAME ts=", NAME bare or quoted, made once. */
		size_t cap = 11 + 4 * (size_t)x->namelen + 2 + 4, k;
		char *s = padded_alloc(&d->seg.arena, cap), *e;
		if (s == NULL)
			return dec_nomem(d);
		memcpy(s, "event name=", 11);
		e = s + 11;
		if (tp_bare_ok(x->name, x->namelen)) {
			memcpy(e, x->name, x->namelen);
			e += x->namelen;
		} else {
			*e++ = '"';
			e = tp_fmt_qbody(e, s + cap - 4, x->name, x->namelen, &k);
			*e++ = '"';
		}
		memcpy(e, " ts=", 4);
		e += 4;
		padded_trim(&d->seg.arena, s, (size_t)(e - s));
		x->prefix = s;
		x->prefixlen = (uint32_t)(e - s);
		for (i = 0; i < x->nf; i++) {
			struct field *f = &x->f[i];
			if ((s = padded_alloc(&d->seg.arena, f->keylen + 2)) == NULL)
				return dec_nomem(d);
			s[0] = ' ';
			memcpy(s + 1, f->key, f->keylen);
			s[1 + f->keylen] = '=';
			padded_trim(&d->seg.arena, s, f->keylen + 2);
			f->lead = s;
			f->leadlen = f->keylen + 2;
		}
		x->fast = schema_fast(x);
		if (x->nf > d->nvals) {
			struct val *nv = realloc(d->vals, x->nf * sizeof *nv);
			if (nv == NULL)
				return dec_nomem(d);
			d->vals = nv;
			d->nvals = x->nf;
		}
	}
	tw_begin(o, "dial9-schema");
	tw_u64(o, "id", id);
	tw_str(o, "name", x->name, x->namelen);
	tw_u64(o, "ts", p[5 + namelen]);	/* this frame's, not the first */
	tw_key(o, "fields");
	tv_open_map(o);
	for (i = 0; i < x->nf; i++) {
		if (i > 0)
			tv_sep(o);
		tv_mapkey(o, (const char *)x->f[i].name, x->f[i].namelen);
		tp_out_write(o, tn, tag_name(x->f[i].tag, tn));
	}
	tv_close_map(o);
	tw_end(o);
	d->st->schemas++;
	*flen = (size_t)(q - p);
	return FR_OK;
}

/* The text of a pool entry, made once at its definition. */
static int
pent_text(struct dec *d, struct pent *e, int stacks)
{
	size_t cap = stacks ? 19 * (size_t)(e->len / 8) + 2 : 4 * (size_t)e->len + 2;
	char *s = padded_alloc(&d->seg.arena, cap), *p = s;
	size_t k;

	if (s == NULL)
		return -1;
	if (stacks) {
		*p++ = '[';
		for (k = 0; k < e->len; k += 8) {
			if (k > 0)
				*p++ = ',';
			p = tp_fmt_hex(p, tp_get_le64(e->data + k));
		}
		*p++ = ']';
	} else {
		*p++ = '"';
		p = tp_fmt_qbody(p, s + cap, e->data, e->len, &k);
		*p++ = '"';
	}
	padded_trim(&d->seg.arena, s, (size_t)(p - s));
	e->text = s;
	e->textlen = (uint32_t)(p - s);
	return 0;
}

static int
dec_pool(struct dec *d, const unsigned char *p, const unsigned char *end,
    size_t *flen, int stacks)
{
	struct pool *pool = stacks ? &d->seg.stacks : &d->seg.strings;
	const unsigned char *q = p + 5;
	struct tp_out *o = d->out;
	uint64_t count, i;

	if (end - p < 5)
		return FR_MORE;
	count = tp_get_le32(p + 1);
	for (i = 0; i < count; i++) {
		uint64_t n;
		if (end - q < 8)
			return FR_MORE;
		n = tp_get_le32(q + 4);
		if ((uint64_t)(end - q - 8) / (stacks ? 8 : 1) < n)
			return FR_MORE;
		q += 8 + n * (stacks ? 8 : 1);
	}
	*flen = (size_t)(q - p);
	/* as the text writer would write it, without a call per item */
	if (stacks)
		tp_out_write(o, "dial9-stacks pool={", 19);
	else
		tp_out_write(o, "dial9-strings pool={", 20);
	for (q = p + 5, i = 0; i < count; i++) {
		uint32_t id = tp_get_le32(q);
		size_t n = (size_t)tp_get_le32(q + 4) * (stacks ? 8 : 1);
		struct pent *e = pool_define(pool, &d->seg.arena, id, q + 8, n);
		char *w;
		if (e == NULL || pent_text(d, e, stacks) < 0)
			return dec_nomem(d);
		w = tp_out_reserve(o, 24);
		if (i > 0)
			*w++ = ',';
		w = tp_fmt_u64_wide(w, id);
		*w++ = ':';
		tp_out_commit(o, w);
		tp_out_write(o, e->text, e->textlen);
		q += 8 + n;
	}
	tp_out_write(o, "}\n", 2);
	if (stacks)
		d->st->stack_pools++;
	else
		d->st->string_pools++;
	return FR_OK;
}

static int
dec_reset(struct dec *d, const unsigned char *p, const unsigned char *end,
    size_t *flen)
{
	uint64_t ts;
	char *o;

	if (end - p < 9)
		return FR_MORE;
	ts = tp_get_le64(p + 1);
	/* as tw_begin, tw_u64 and tw_end would write it, without the calls */
	o = tp_out_reserve(d->out, 64);
	memcpy(o, "dial9-reset ts=", 15);
	o = tp_fmt_u64_wide(o + 15, ts);
	*o++ = '\n';
	tp_out_commit(d->out, o);
	d->st->resets++;
	if (ts < d->seg.base)
		d->st->resets_back++;
	d->seg.base = ts;
	*flen = 9;
	return FR_OK;
}

static int
dec_annot(struct dec *d, const unsigned char *p, const unsigned char *end,
    size_t *flen)
{
	const unsigned char *q = p + 1, *r;
	struct tp_out *o = d->out;
	uint64_t id;
	uint32_t count, i;
	size_t l;
	int rc;

	rc = tp_uleb_get(q, (size_t)(end - q), &id, &l);
	if (rc == TP_LEB_TRUNC)
		return FR_MORE;
	if (rc != TP_LEB_OK)
		return dec_fail(d, q, "schema annotations: type id varint %s",
		    rc == TP_LEB_TOOLONG ? "longer than 10 bytes" :
		    "above 2^64-1");
	q += l;
	if (end - q < 2)
		return FR_MORE;
	count = tp_get_le16(q);
	q += 2;
	for (r = q, i = 0; i < count; i++) {
		size_t kl, vl;
		if (end - r < 4)
			return FR_MORE;
		kl = tp_get_le16(r + 2);
		if ((size_t)(end - r - 4) < kl + 4)
			return FR_MORE;
		vl = tp_get_le32(r + 4 + kl);
		if ((size_t)(end - r - 8 - kl) < vl)
			return FR_MORE;
		r += 8 + kl + vl;
	}
	*flen = (size_t)(r - p);
	tw_begin(o, "dial9-annotations");
	tw_u64(o, "id", id);
	if (l != tp_uleb_size(id))
		tw_u64(o, "idlen", l);
	tw_key(o, "list");
	tv_open_list(o);
	for (i = 0; i < count; i++) {
		size_t kl = tp_get_le16(q + 2), vl = tp_get_le32(q + 4 + kl);
		if (i > 0)
			tv_sep(o);
		tv_open_list(o);
		tv_u64(o, tp_get_le16(q));
		tv_sep(o);
		tv_str(o, q + 4, kl);
		tv_sep(o);
		tv_str(o, q + 8 + kl, vl);
		tv_close_list(o);
		q += 8 + kl + vl;
	}
	tv_close_list(o);
	tw_end(o);
	d->st->annotations++;
	return FR_OK;
}

static int
dec_frame(struct dec *d, size_t *flen)
{
	const unsigned char *p = d->win + d->pos, *end = d->win + d->len;

	if (d->base + d->pos == 0)
		return dec_header(d, p, end, flen);
	switch (p[0]) {
	case TAG_EVENT:
		return dec_event(d, p, end, flen);
	case TAG_SCHEMA:
		return dec_schema(d, p, end, flen);
	case TAG_STRINGS:
		return dec_pool(d, p, end, flen, 0);
	case TAG_STACKS:
		return dec_pool(d, p, end, flen, 1);
	case TAG_RESET:
		return dec_reset(d, p, end, flen);
	case TAG_ANNOT:
		return dec_annot(d, p, end, flen);
	case 'T':
		return dec_header(d, p, end, flen);
	default:
		return dec_fail(d, p, "unknown frame tag 0x%02x", p[0]);
	}
}

/*
 * The event frames from d->pos on that event_fast() writes, in a loop of
 * their own; the first it does not (another frame, an event that is not
 * the common case, a fault) is left to dec_frame().
 */
static void
event_run(struct dec *d)
{
	const unsigned char *p = d->win + d->pos, *end = d->win + d->len;
	uint64_t base = d->seg.base, n = 0, w;
	struct tp_out *o = d->out;
	char *t = tp_out_reserve(o, CUR_ROOM), *lim = t + CUR_ROOM, *e;

	/* the tag, the type id and the timestamp delta in one load */
	while (end - p >= 8 && (w = tp_get_le64(p), (w & 0xff) == TAG_EVENT)) {
		const struct schema *x = seg_at(&d->seg, (uint16_t)(w >> 8));
		const unsigned char *q = p + 3;
		uint64_t ts = base;
		if (x == NULL || !x->fast)
			break;
		if (x->tsbyte) {
			ts += (w >> 24) & 0xffffff;
			if (ts < base)
				break;
			q += 3;
		}
		/* schema_fast: x->maxtext <= CUR_ROOM / 2 */
		if (lim - t < CUR_ROOM / 2) {
			tp_out_commit(o, t);
			t = tp_out_reserve(o, CUR_ROOM);
			lim = t + CUR_ROOM;
		}
		if ((e = event_fast(d, x, &q, end, ts, t, lim)) == NULL)
			break;
		t = e;
		base = ts;
		n++;
		p = q;
	}
	tp_out_commit(o, t);
	d->seg.base = base;
	d->st->events += n;
	d->frames += n;
	d->pos = (size_t)(p - d->win);
}

static int
dec_run(struct dec *d)
{
	for (;;) {
		size_t flen, want;
		int rc;

		if (d->len - d->pos < WIN_LOW && !d->eof &&
		    win_fill(d, WIN_LOW) < 0)
			return -1;
		if (d->pos == d->len) {
			if (d->base == 0 && d->len == 0)
				return dec_fail(d, d->win, "empty input: not a "
				    "dial9 trace");
			return 0;
		}
		if (d->win[d->pos] == TAG_EVENT && d->base + d->pos > 0) {
			event_run(d);
			if (d->pos == d->len)
				continue;
		}
		rc = dec_frame(d, &flen);
		if (rc == FR_OK) {
			d->pos += flen;
			d->frames++;
			continue;
		}
		if (rc == FR_BAD)
			return -1;
		/* The frame goes on past the window. */
		if (d->eof) {
			unsigned tag = d->win[d->pos];
			const unsigned char *p = d->win + d->pos;
			if (d->base + d->pos == 0 || tag == 'T')
				return dec_fail(d, p, "truncated header: %zu "
				    "bytes", d->len - d->pos);
			return dec_fail(d, p, "truncated %s frame: only %zu "
			    "bytes left", frame_names[tag < 7 ? tag : 0],
			    d->len - d->pos);
		}
		if (d->len - d->pos >= DIAL9_FRAME_MAX)
			return dec_fail(d, d->win + d->pos, "%s frame longer than "
			    "%u bytes", frame_names[d->win[d->pos] < 7 ?
			    d->win[d->pos] : 0], DIAL9_FRAME_MAX);
		/* Twice the bytes, so that a long frame is parsed few times. */
		want = 2 * (d->len - d->pos) + 1;
		if (win_fill(d, want < DIAL9_FRAME_MAX ? want : DIAL9_FRAME_MAX) < 0)
			return -1;
	}
}

int
dial9_decode(struct tp_in *in, struct tp_out *out,
    const struct dial9_dec_opts *opts, struct dial9_dec_stats *st,
    struct tp_err *err)
{
	struct dec d;
	int rc;

	memset(st, 0, sizeof *st);
	st->stopped_at = TP_NONE;
	memset(&d, 0, sizeof d);
	d.in = in;
	d.out = out;
	d.err = err;
	d.st = st;
	d.win = in->buf;
	d.pos = d.len = in->pos;	/* nothing of it is the window yet */
	d.base = in->base;
	if (seg_init(&d.seg) < 0)
		rc = dec_nomem(&d);
	else
		rc = dec_run(&d);
	in->pos = d.pos;
	free(d.vals);
	free(d.seen);
	seg_free(&d.seg);
	if (rc < 0 && opts->lenient && err->status == TP_EXIT_DATA &&
	    !in->failed) {
		st->stopped_at = err->offset;
		memcpy(st->stop_msg, err->msg, sizeof st->stop_msg);
		tp_err_clear(err);
		rc = 0;
	}
	return rc < 0 ? -1 : 0;
}

/* ============================================================ encoder */

struct buf {
	unsigned char *p;
	size_t len, cap;
	int nomem;
};

static unsigned char *
buf_room(struct buf *b, size_t n)
{
	static unsigned char sink[64];

	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *np;
		while (cap - b->len < n)
			cap *= 2;
		if (b->nomem || (np = realloc(b->p, cap)) == NULL) {
			/* Reported at the end of the record. */
			b->nomem = 1;
			b->len = 0;
			return n <= sizeof sink ? sink : NULL;
		}
		b->p = np;
		b->cap = cap;
	}
	return b->p + b->len;
}

static void
buf_put(struct buf *b, const void *s, size_t n)
{
	unsigned char *p;

	if (n == 0)
		return;
	p = buf_room(b, n);
	if (p != NULL && !b->nomem) {
		memcpy(p, s, n);
		b->len += n;
	}
}

static void
buf_u8(struct buf *b, unsigned v)
{
	unsigned char c = (unsigned char)v;

	buf_put(b, &c, 1);
}

static void
buf_le16(struct buf *b, uint32_t v)
{
	unsigned char c[2];

	tp_put_le16(c, (uint16_t)v);
	buf_put(b, c, 2);
}

static void
buf_le32(struct buf *b, uint32_t v)
{
	unsigned char c[4];

	tp_put_le32(c, v);
	buf_put(b, c, 4);
}

static void
buf_le64(struct buf *b, uint64_t v)
{
	unsigned char c[8];

	tp_put_le64(c, v);
	buf_put(b, c, 8);
}

/* Wire details of one value from raw= or a list element's map. */
struct rawspec {
	unsigned has;
	uint64_t present, len, id, byte;
};
#define RS_PRESENT 1u
#define RS_LEN 2u
#define RS_ID 4u
#define RS_BYTE 8u

struct enc {
	struct tr_reader *r;
	struct tp_out *out;
	struct tp_err *err;
	const struct dial9_enc_opts *opts;
	struct dial9_enc_stats *st;
	struct seg seg;
	int in_seg;
	struct buf fb;		/* a frame written at once */
	struct buf eb;		/* the event frame, written after its pools */
	struct buf sb;		/* unescaped strings */
	struct buf nb;		/* the event's name */
	const struct tr_field **fv;	/* record field of each schema field */
	struct rawspec *rs;
	size_t nfv;
	uint32_t *seen;
	size_t seencap;
};

static int
enc_nomem(struct enc *e)
{
	e->err->offset = TP_NONE;
	return tp_fail(e->err, TP_EXIT_FAIL, "out of memory");
}

/* Write the frame in fb. */
static int
enc_flush_frame(struct enc *e, struct buf *b)
{
	if (b->nomem)
		return enc_nomem(e);
	tp_out_write(e->out, b->p, b->len);
	b->len = 0;
	e->st->frames++;
	return 0;
}

static int
key_is(const struct tr_field *f, const char *k)
{
	size_t n = strlen(k);

	return f->keylen == n && memcmp(f->key, k, n) == 0;
}

/* A value span as a field, so that errors point into the line. */
static struct tr_field
span(const struct tr_field *f, const char *val, size_t vallen)
{
	struct tr_field t = *f;

	t.val = val;
	t.vallen = (uint32_t)vallen;
	return t;
}

/* The unescaped string of a span, in sb (valid until the next call). */
static int
span_str(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    const unsigned char **s, size_t *n)
{
	if (buf_room(&e->sb, f->vallen + 1) == NULL || e->sb.nomem)
		return enc_nomem(e);
	if (tr_str(e->r, rec, f, e->sb.p, f->vallen, n) < 0)
		return -1;
	*s = e->sb.p;
	return 0;
}

static int
span_is(const struct tr_field *f, const char *w)
{
	size_t n = strlen(w);

	return f->vallen == n && memcmp(f->val, w, n) == 0;
}

/* Start a segment (write a header). */
static void
enc_segment(struct enc *e, unsigned version)
{
	unsigned char h[HEADER_LEN] = { 'T', 'R', 'C', 0, 0 };

	h[4] = (unsigned char)version;
	tp_out_write(e->out, h, HEADER_LEN);
	seg_reset(&e->seg);
	e->in_seg = 1;
	e->st->frames++;
}

/* A header where the stream has none (yet). */
static void
enc_need_segment(struct enc *e)
{
	if (!e->in_seg) {
		enc_segment(e, 1);
		e->st->headers_added++;
	}
}

static int
enc_header(struct enc *e, const struct tr_rec *rec)
{
	uint64_t v = 1;

	if (tr_get_u64(e->r, rec, "version", &v, 0) < 0)
		return -1;
	if (v > 255)
		return tr_fail(e->r, rec, tr_find(rec, "version"),
		    "a version is one byte");
	enc_segment(e, (unsigned)v);
	return 0;
}

static int
enc_need_fields(struct enc *e, size_t nf)
{
	if (nf > e->nfv) {
		const struct tr_field **fv = realloc(e->fv, nf * sizeof *fv);
		struct rawspec *rs;
		if (fv == NULL)
			return enc_nomem(e);
		e->fv = fv;
		if ((rs = realloc(e->rs, nf * sizeof *rs)) == NULL)
			return enc_nomem(e);
		e->rs = rs;
		e->nfv = nf;
	}
	return 0;
}

/*
 * Register and write the schema whose frame is in fb (tag and type id
 * first).  Returns the schema, or NULL with the error set.
 */
static struct schema *
enc_register(struct enc *e, const struct tr_rec *rec, uint32_t id)
{
	struct schema *x;
	int conflict;

	(void)rec;
	if (e->fb.nomem) {
		enc_nomem(e);
		return NULL;
	}
	x = seg_register(&e->seg, id, e->fb.p + 3, e->fb.len - 3, &e->seen,
	    &e->seencap, &conflict);
	if (conflict) {
		/*
		 * Segments of merged or sorted streams meet (txtmerge): a
		 * new segment holds the later schema.
		 */
		enc_segment(e, 1);
		e->st->headers_added++;
		x = seg_register(&e->seg, id, e->fb.p + 3, e->fb.len - 3,
		    &e->seen, &e->seencap, &conflict);
	}
	if (x == NULL || enc_need_fields(e, x->nf) < 0) {
		enc_nomem(e);
		return NULL;
	}
	if (enc_flush_frame(e, &e->fb) < 0)
		return NULL;
	return x;
}

/* Start a schema frame in fb: tag, id, name, ts byte, field count. */
static void
schema_start(struct buf *b, uint32_t id, const void *name, size_t n,
    unsigned tsbyte, size_t nf)
{
	b->len = 0;
	buf_u8(b, TAG_SCHEMA);
	buf_le16(b, id);
	buf_le16(b, (uint32_t)n);
	buf_put(b, name, n);
	buf_u8(b, tsbyte);
	buf_le16(b, (uint32_t)nf);
}

static int
enc_schema(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *fn = tr_find(rec, "name"), *ff = tr_find(rec,
	    "fields");
	const char *cur, *end, *k, *v;
	size_t kl, vl, n, nf = 0, namelen;
	uint64_t id, ts = 1;
	const unsigned char *s;
	unsigned char *countp;
	struct schema *x;

	if (tr_get_u64(e->r, rec, "id", &id, 1) < 0 ||
	    tr_get_u64(e->r, rec, "ts", &ts, 0) < 0)
		return -1;
	if (id > 0xffff)
		return tr_fail(e->r, rec, tr_find(rec, "id"),
		    "a type id is 16 bits");
	if (ts > 255)
		return tr_fail(e->r, rec, tr_find(rec, "ts"),
		    "the timestamp flag is one byte");
	if (fn == NULL)
		return tr_fail(e->r, rec, NULL, "dial9-schema record without "
		    "field \"name\"");
	if (span_str(e, rec, fn, &s, &namelen) < 0)
		return -1;
	if (namelen > 0xffff)
		return tr_fail(e->r, rec, fn, "longer than 65535 bytes");
	enc_need_segment(e);
	schema_start(&e->fb, (uint32_t)id, s, namelen, (unsigned)ts, 0);
	if (ff != NULL) {
		if (ff->vallen == 0 || ff->val[0] != '{')
			return tr_fail(e->r, rec, ff, "not a map of field types");
		cur = ff->val;
		end = ff->val + ff->vallen;
		while (tr_elem(&cur, end, &k, &kl, &v, &vl) > 0) {
			struct tr_field kf = span(ff, k, kl), vf = span(ff, v, vl);
			unsigned tag;
			if (k == NULL)
				return tr_fail(e->r, rec, &vf, "expected name:type");
			if (span_str(e, rec, &vf, &s, &n) < 0)
				return -1;
			if ((tag = tag_parse((const char *)s, n)) == 0)
				return tr_fail(e->r, rec, &vf, "unknown field type");
			if (span_str(e, rec, &kf, &s, &n) < 0)
				return -1;
			if (n > 0xffff || ++nf > 0xffff)
				return tr_fail(e->r, rec, &kf, "too long a name "
				    "or too many fields");
			buf_le16(&e->fb, (uint32_t)n);
			buf_put(&e->fb, s, n);
			buf_u8(&e->fb, tag);
		}
	}
	if (e->fb.nomem)
		return enc_nomem(e);
	countp = e->fb.p + 3 + 2 + namelen + 1;
	tp_put_le16(countp, (uint16_t)nf);
	if ((x = enc_register(e, rec, (uint32_t)id)) == NULL)
		return -1;
	x->inferred = 0;
	return 0;
}

/* The pool id for content data: the id asked for, the holder's, or new. */
static int
pool_ref(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    int stacks, const unsigned char *data, size_t n, const struct rawspec *rs,
    uint32_t *id)
{
	struct pool *p = stacks ? &e->seg.stacks : &e->seg.strings;
	struct pent *pe;
	size_t slot;

	if (rs != NULL && (rs->has & RS_ID)) {
		if (rs->id > UINT32_MAX)
			return tr_fail(e->r, rec, f, "raw id above 2^32-1");
		*id = (uint32_t)rs->id;
		pe = pool_get(p, *id);
		if (pe != NULL && pe->len == n && memcmp(pe->data, data, n) == 0)
			return 0;
	} else if ((pe = pool_holder(p, data, n, hash_bytes(data, n),
	    &slot)) != NULL) {
		*id = pe->id;
		return 0;
	} else {
		if (p->any && p->maxid == UINT32_MAX)
			return tr_fail(e->r, rec, f, "every pool id is taken");
		*id = p->any ? p->maxid + 1 : 0;
	}
	/* A frame defining it, before the event. */
	e->fb.len = 0;
	buf_u8(&e->fb, stacks ? TAG_STACKS : TAG_STRINGS);
	buf_le32(&e->fb, 1);
	buf_le32(&e->fb, *id);
	buf_le32(&e->fb, (uint32_t)(stacks ? n / 8 : n));
	buf_put(&e->fb, data, n);
	if (pool_define(p, &e->seg.arena, *id, data, n) == NULL)
		return enc_nomem(e);
	if (stacks)
		e->st->stacks_added++;
	else
		e->st->strings_added++;
	return enc_flush_frame(e, &e->fb);
}

/* A list of addresses into sb as u64 LE; *count gets their number. */
static int
span_stack(struct enc *e, const struct tr_rec *rec, const struct tr_field *f,
    size_t *count)
{
	const char *cur = f->val, *end = f->val + f->vallen, *v;
	size_t vl;

	if (f->vallen == 0 || f->val[0] != '[')
		return tr_fail(e->r, rec, f, "not a list of addresses");
	if (buf_room(&e->sb, 8) == NULL || e->sb.nomem)
		return enc_nomem(e);	/* and an empty list is no NULL */
	e->sb.len = 0;
	*count = 0;
	while (tr_elem(&cur, end, NULL, NULL, &v, &vl) > 0) {
		uint64_t a;
		if (tp_parse_u64(v, vl, &a) < 0) {
			struct tr_field t = span(f, v, vl);
			return tr_fail(e->r, rec, &t, "not an address");
		}
		buf_le64(&e->sb, a);
		(*count)++;
	}
	if (e->sb.nomem)
		return enc_nomem(e);
	return 0;
}

static int enc_value(struct enc *e, struct buf *b, const struct tr_rec *rec,
    const struct tr_field *f, unsigned tag, const struct rawspec *rs,
    int depth);

/* A map of wire details: {len:3,id:5,present:2,byte:2}. */
static int
parse_rawspec(struct enc *e, const struct tr_rec *rec,
    const struct tr_field *f, struct rawspec *rs, int with_type,
    unsigned *tag, struct tr_field *value)
{
	const char *cur = f->val, *end = f->val + f->vallen, *k, *v;
	size_t kl, vl;
	int first = 1;

	memset(rs, 0, sizeof *rs);
	if (f->vallen == 0 || f->val[0] != '{')
		return tr_fail(e->r, rec, f, with_type ? "expected {type:value}" :
		    "expected a map of wire details");
	while (tr_elem(&cur, end, &k, &kl, &v, &vl) > 0) {
		struct tr_field vf = span(f, v, vl);
		uint64_t x;
		if (k == NULL)
			return tr_fail(e->r, rec, &vf, "expected key:value");
		if (with_type && first) {
			first = 0;
			if ((*tag = tag_parse(k, kl)) == 0)
				return tr_fail(e->r, rec, &vf, "unknown type %.*s",
				    (int)kl, k);
			*value = vf;
			continue;
		}
		if (tp_parse_u64(v, vl, &x) < 0)
			return tr_fail(e->r, rec, &vf, "not a number");
		if (kl == 7 && memcmp(k, "present", 7) == 0)
			rs->has |= RS_PRESENT, rs->present = x;
		else if (kl == 3 && memcmp(k, "len", 3) == 0)
			rs->has |= RS_LEN, rs->len = x;
		else if (kl == 2 && memcmp(k, "id", 2) == 0)
			rs->has |= RS_ID, rs->id = x;
		else if (kl == 4 && memcmp(k, "byte", 4) == 0)
			rs->has |= RS_BYTE, rs->byte = x;
		else
			return tr_fail(e->r, rec, &vf, "unknown wire detail %.*s",
			    (int)kl, k);
	}
	if (with_type && first)
		return tr_fail(e->r, rec, f, "expected {type:value}");
	return 0;
}

/* A dynamic element {type:value,...}: its tag byte and value. */
static int
enc_elem(struct enc *e, struct buf *b, const struct tr_rec *rec,
    const struct tr_field *f, int depth)
{
	struct rawspec rs;
	struct tr_field vf;
	unsigned tag = 0;

	if (parse_rawspec(e, rec, f, &rs, 1, &tag, &vf) < 0)
		return -1;
	buf_u8(b, tag);
	/* An optional element tag has no presence byte (as upstream reads). */
	return enc_value(e, b, rec, &vf, tag & ~OPT, &rs, depth + 1);
}

static int
enc_value(struct enc *e, struct buf *b, const struct tr_rec *rec,
    const struct tr_field *f, unsigned tag, const struct rawspec *rs,
    int depth)
{
	static const struct rawspec none;
	const char *cur, *end, *k, *v;
	const unsigned char *s;
	size_t kl, vl, n, count, at;
	uint64_t u;
	int64_t i;
	double d;
	int bv;
	uint32_t id;

	if (rs == NULL)
		rs = &none;
	if (tag & OPT) {
		if (tr_is_null(f)) {
			buf_u8(b, 0);
			return 0;
		}
		if ((rs->has & RS_PRESENT) && (rs->present == 0 ||
		    rs->present > 255))
			return tr_fail(e->r, rec, f, "raw present must be 1 to 255");
		buf_u8(b, (rs->has & RS_PRESENT) ? (unsigned)rs->present : 1);
		tag &= ~OPT;
	} else if (tr_is_null(f)) {
		return tr_fail(e->r, rec, f, "null for a field that is not "
		    "optional (%s)", type_names[tag]);
	}
	switch (tag) {
	case T_VARINT:
		if (tr_u64(e->r, rec, f, &u) < 0)
			return -1;
		n = tp_uleb_size(u);
		if (rs->has & RS_LEN) {
			if (rs->len < n || rs->len > TP_LEB_MAX)
				return tr_fail(e->r, rec, f, "raw len %llu cannot "
				    "hold it", (unsigned long long)rs->len);
			n = (size_t)rs->len;
		}
		{
			unsigned char *p = buf_room(b, TP_LEB_MAX);
			if (p != NULL && !b->nomem)
				b->len += (size_t)(tp_uleb_put_n(p, u, n) - p);
		}
		return 0;
	case T_U8:
	case T_U16:
	case T_U32:
		if (tr_u64(e->r, rec, f, &u) < 0)
			return -1;
		if (u > (tag == T_U8 ? 0xffu : tag == T_U16 ? 0xffffu :
		    0xffffffffu))
			return tr_fail(e->r, rec, f, "too large for %s",
			    type_names[tag]);
		if (tag == T_U8)
			buf_u8(b, (unsigned)u);
		else if (tag == T_U16)
			buf_le16(b, (uint32_t)u);
		else
			buf_le32(b, (uint32_t)u);
		return 0;
	case T_I64:
		if (tr_i64(e->r, rec, f, &i) < 0)
			return -1;
		buf_le64(b, (uint64_t)i);
		return 0;
	case T_F64:
		if (tr_f64(e->r, rec, f, &d) < 0)
			return -1;
		buf_le64(b, tp_f64_bits(d));
		return 0;
	case T_BOOL:
		if (tr_bool(e->r, rec, f, &bv) < 0)
			return -1;
		if (rs->has & RS_BYTE) {
			if (rs->byte > 255 || (rs->byte != 0) != (bv != 0))
				return tr_fail(e->r, rec, f, "raw byte %llu "
				    "does not say that",
				    (unsigned long long)rs->byte);
			bv = (int)rs->byte;
		}
		buf_u8(b, (unsigned)bv);
		return 0;
	case T_STRING:
	case T_PSTRING:
		if (span_str(e, rec, f, &s, &n) < 0)
			return -1;
		if (n > UINT32_MAX)
			return tr_fail(e->r, rec, f, "longer than 2^32-1 bytes");
		if (tag == T_STRING) {
			buf_le32(b, (uint32_t)n);
			buf_put(b, s, n);
			return 0;
		}
		if (pool_ref(e, rec, f, 0, s, n, rs, &id) < 0)
			return -1;
		buf_le32(b, id);
		return 0;
	case T_BYTES:
		n = 0;
		if (f->vallen > 0 && !span_is(f, "\"\"")) {
			if (buf_room(&e->sb, f->vallen / 2 + 1) == NULL ||
			    e->sb.nomem)
				return enc_nomem(e);
			if (tr_bytes(e->r, rec, f, e->sb.p, f->vallen / 2, &n) < 0)
				return -1;
		}
		buf_le32(b, (uint32_t)n);
		buf_put(b, e->sb.p, n);
		return 0;
	case T_STACK:
	case T_PSTACK:
		if (span_stack(e, rec, f, &count) < 0)
			return -1;
		if (count > UINT32_MAX)
			return tr_fail(e->r, rec, f, "more than 2^32-1 addresses");
		if (tag == T_STACK) {
			buf_le32(b, (uint32_t)count);
			buf_put(b, e->sb.p, e->sb.len);
			return 0;
		}
		if (pool_ref(e, rec, f, 1, e->sb.p, e->sb.len, rs, &id) < 0)
			return -1;
		buf_le32(b, id);
		return 0;
	case T_SMAP:
		if (f->vallen == 0 || f->val[0] != '{')
			return tr_fail(e->r, rec, f, "not a map of strings");
		at = b->len;
		buf_le32(b, 0);
		count = 0;
		cur = f->val;
		end = f->val + f->vallen;
		while (tr_elem(&cur, end, &k, &kl, &v, &vl) > 0) {
			struct tr_field kf = span(f, k, kl), vf = span(f, v, vl);
			if (k == NULL)
				return tr_fail(e->r, rec, &vf, "expected key:value");
			if (span_str(e, rec, &kf, &s, &n) < 0)
				return -1;
			buf_le32(b, (uint32_t)n);
			buf_put(b, s, n);
			if (span_str(e, rec, &vf, &s, &n) < 0)
				return -1;
			buf_le32(b, (uint32_t)n);
			buf_put(b, s, n);
			count++;
		}
		if (!b->nomem)
			tp_put_le32(b->p + at, (uint32_t)count);
		return 0;
	case T_LIST:
	case T_MAP:
		if (depth >= DIAL9_DEPTH_MAX)
			return tr_fail(e->r, rec, f, "dynamic values nested deeper "
			    "than %d", DIAL9_DEPTH_MAX);
		if (f->vallen == 0 || f->val[0] != '[')
			return tr_fail(e->r, rec, f, tag == T_LIST ?
			    "not a list of {type:value}" :
			    "not a list of [{type:key},{type:value}]");
		at = b->len;
		buf_le32(b, 0);
		count = 0;
		cur = f->val;
		end = f->val + f->vallen;
		while (tr_elem(&cur, end, NULL, NULL, &v, &vl) > 0) {
			struct tr_field vf = span(f, v, vl);
			if (tag == T_LIST) {
				if (enc_elem(e, b, rec, &vf, depth) < 0)
					return -1;
			} else {
				const char *c2 = v, *v2;
				size_t l2;
				int m = 0;
				if (vl == 0 || v[0] != '[')
					return tr_fail(e->r, rec, &vf,
					    "expected [{type:key},{type:value}]");
				while (tr_elem(&c2, v + vl, NULL, NULL, &v2, &l2) > 0) {
					struct tr_field ef = span(f, v2, l2);
					if (++m > 2 || enc_elem(e, b, rec, &ef, depth) < 0)
						return m > 2 ? tr_fail(e->r, rec, &vf,
						    "a pair has two elements") : -1;
				}
				if (m != 2)
					return tr_fail(e->r, rec, &vf,
					    "a pair has two elements");
			}
			count++;
		}
		if (!b->nomem)
			tp_put_le32(b->p + at, (uint32_t)count);
		return 0;
	}
	return tr_fail(e->r, rec, f, "unknown field type");
}

/* ---------------------------------------------------- schema inference */

static int
all_hex_pairs(const char *s, size_t n)
{
	size_t i;

	if (n % 2 != 0)
		return 0;
	for (i = 0; i < n; i++)
		if (tp_hexval(s[i]) < 0)
			return 0;
	return 1;
}

static int
looks_float(const char *s, size_t n)
{
	size_t i;

	if ((n == 3 && memcmp(s, "nan", 3) == 0) || (n > 4 &&
	    memcmp(s, "nan:", 4) == 0) || (n == 3 && memcmp(s, "inf", 3) == 0) ||
	    (n == 4 && memcmp(s, "-inf", 4) == 0))
		return 1;
	for (i = 0; i < n; i++)
		if (s[i] == '.' || ((s[i] == 'e' || s[i] == 'E') && i + 1 < n &&
		    (s[i + 1] == '+' || s[i + 1] == '-')))
			return 1;
	return 0;
}

/* The type a value's text suggests (without the optional bit); 0: null. */
static unsigned
infer_type(const struct tr_field *f)
{
	const char *s = f->val, *cur, *v;
	size_t n = f->vallen, vl;
	uint64_t u;
	int64_t i;

	if (tr_is_null(f))
		return 0;
	if (n == 0)
		return T_BYTES;
	if (s[0] == '"')
		return T_STRING;
	if (s[0] == '{')
		return T_SMAP;
	if (s[0] == '[') {
		cur = s;
		if (tr_elem(&cur, s + n, NULL, NULL, &v, &vl) <= 0)
			return T_STACK;
		return v[0] == '{' ? T_LIST : v[0] == '[' ? T_MAP : T_STACK;
	}
	if (span_is(f, "true") || span_is(f, "false"))
		return T_BOOL;
	if (tp_parse_u64(s, n, &u) == 0)
		return T_VARINT;
	if (tp_parse_i64(s, n, &i) == 0)
		return T_I64;
	if (looks_float(s, n))
		return T_F64;
	if (all_hex_pairs(s, n))
		return T_BYTES;
	return T_STRING;
}

/* Can a value of this text be written as type t (optional bit kept)? */
static int
fits(unsigned t, const struct tr_field *f)
{
	unsigned got = infer_type(f);
	uint64_t u;

	if (got == 0)
		return (t & OPT) != 0;
	t &= ~OPT;
	if (got == t)
		return 1;
	if (span_is(f, "[]"))		/* an empty list of any kind */
		return t == T_STACK || t == T_PSTACK || t == T_LIST || t == T_MAP;
	switch (t) {
	case T_U8:
	case T_U16:
	case T_U32:
		return got == T_VARINT && tp_parse_u64(f->val, f->vallen, &u) == 0 &&
		    u <= (t == T_U8 ? 0xffu : t == T_U16 ? 0xffffu : 0xffffffffu);
	case T_I64:
		return got == T_VARINT && f->val[0] != '0' ? 
		    tp_parse_u64(f->val, f->vallen, &u) == 0 && u <= INT64_MAX :
		    got == T_VARINT;
	case T_F64:
		return got == T_VARINT || got == T_I64;
	case T_PSTRING:
		return got == T_STRING;
	case T_PSTACK:
		return got == T_STACK;
	case T_STRING:
		return got == T_BYTES && f->vallen > 0;	/* a bare word */
	}
	return 0;
}

static int
reserved_key(const struct tr_field *f)
{
	size_t i;

	for (i = 0; reserved_keys[i] != NULL; i++)
		if (key_is(f, reserved_keys[i]))
			return 1;
	return 0;
}

/* The field name a record key stands for, into sb: ".HEX[.N]" or as is. */
static int
key_name(struct enc *e, const struct tr_field *f, const unsigned char **s,
    size_t *n)
{
	size_t i, m;

	if (f->keylen == 0 || f->key[0] != '.') {
		*s = (const unsigned char *)f->key;
		*n = f->keylen;
		return 0;
	}
	for (m = 1; m < f->keylen && f->key[m] != '.'; m++)
		;
	if (!all_hex_pairs(f->key + 1, m - 1))
		return -1;
	e->sb.len = 0;
	for (i = 1; i < m; i += 2)
		buf_u8(&e->sb, (unsigned)(tp_hexval(f->key[i]) << 4 |
		    tp_hexval(f->key[i + 1])));
	if (e->sb.nomem)
		return -1;
	*s = e->sb.p;
	*n = e->sb.len;
	return 0;
}

/*
 * Match the record's fields to x's: e->fv and e->rs.  Returns 0, or -1
 * with the error set (for an inferred schema: the record does not fit).
 */
static int
enc_match(struct enc *e, const struct tr_rec *rec, const struct schema *x)
{
	const struct tr_field *ftid = NULL;
	uint32_t i, next = 0;
	size_t j;

	for (i = 0; i < x->nf; i++)
		e->fv[i] = NULL;
	for (j = 0; j < rec->nf; j++) {
		const struct tr_field *f = &rec->f[j];
		if (reserved_key(f)) {
			if (key_is(f, "tid"))
				ftid = f;
			continue;
		}
		i = next;
		if (i >= x->nf || x->f[i].keylen != f->keylen ||
		    memcmp(x->f[i].key, f->key, f->keylen) != 0)
			for (i = 0; i < x->nf; i++)
				if (x->f[i].keylen == f->keylen &&
				    memcmp(x->f[i].key, f->key, f->keylen) == 0)
					break;
		if (i == x->nf)
			return tr_fail(e->r, rec, NULL, "field \"%.*s\" is not in "
			    "schema %.*s (type id %u)", (int)f->keylen, f->key,
			    (int)(x->namelen > 60 ? 60 : x->namelen),
			    (const char *)x->name, x->id);
		if (e->fv[i] != NULL)
			return tr_fail(e->r, rec, f, "field given twice");
		if (x->inferred && !fits(x->f[i].tag, f))
			return tr_fail(e->r, rec, f, "does not fit the inferred "
			    "type");
		e->fv[i] = f;
		next = i + 1;
	}
	/* tid= is the worker: it stands for a worker_id= the record lacks */
	i = (uint32_t)x->worker_field;
	if (x->worker_field >= 0 && e->fv[i] == NULL && ftid != NULL) {
		if (x->inferred && !fits(x->f[i].tag, ftid))
			return tr_fail(e->r, rec, ftid, "does not fit the "
			    "inferred type");
		e->fv[i] = ftid;
	}
	for (i = 0; i < x->nf; i++)
		if (e->fv[i] == NULL && !(x->f[i].tag & OPT))
			return tr_fail(e->r, rec, NULL, "event %.*s without field "
			    "\"%.*s\" of its schema",
			    (int)(x->namelen > 60 ? 60 : x->namelen),
			    (const char *)x->name, (int)x->f[i].keylen, x->f[i].key);
	return 0;
}

/* A schema for the record from its values (and prev's types). */
static struct schema *
enc_infer(struct enc *e, const struct tr_rec *rec, const struct schema *prev)
{
	const struct tr_field *fts = tr_find(rec, "ts");
	const struct tr_field *fworker = tr_find(rec, "worker_id");
	struct buf *b = &e->fb;
	struct schema *x;
	uint32_t id;
	size_t j, nf = 0;

	for (id = e->seg.next_free; id < 0x10000 && seg_at(&e->seg, id) != NULL; id++)
		;
	if (id == 0x10000) {
		tr_fail(e->r, rec, NULL, "no free type id in this segment");
		return NULL;
	}
	e->seg.next_free = id + 1;
	schema_start(b, id, e->nb.p, e->nb.len, fts != NULL, 0);
	for (j = 0; j < rec->nf; j++) {
		const struct tr_field *f = &rec->f[j];
		const char *key = f->key;
		const unsigned char *s;
		size_t n, keylen = f->keylen;
		unsigned t = 0;
		uint32_t i;
		/*
		 * tid= is the worker: derived from worker_id=, or without it
		 * (another format's thread) a worker_id field of its own.
		 */
		if (key_is(f, "tid")) {
			if (fworker != NULL)
				continue;
			key = "worker_id";
			keylen = 9;
		} else if (reserved_key(f))
			continue;
		if (prev != NULL)
			for (i = 0; i < prev->nf; i++)
				if (prev->f[i].keylen == keylen &&
				    memcmp(prev->f[i].key, key, keylen) == 0) {
					if (fits(prev->f[i].tag, f))
						t = prev->f[i].tag;
					else if (tr_is_null(f))
						t = prev->f[i].tag | OPT;
					break;
				}
		if (t == 0)
			t = infer_type(f);
		if (t == 0)
			t = OPT | T_VARINT;
		if (key != f->key) {
			s = (const unsigned char *)key;
			n = keylen;
		} else if (key_name(e, f, &s, &n) < 0) {
			tr_fail(e->r, rec, f, "bad escaped key");
			return NULL;
		}
		buf_le16(b, (uint32_t)n);
		buf_put(b, s, n);
		buf_u8(b, t);
		nf++;
	}
	if (b->nomem) {
		enc_nomem(e);
		return NULL;
	}
	tp_put_le16(b->p + 3 + 2 + e->nb.len + 1, (uint16_t)nf);
	if ((x = enc_register(e, rec, id)) == NULL)
		return NULL;
	x->inferred = 1;
	e->st->schemas_inferred++;
	return x;
}

static int
enc_event(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *fname = NULL, *fts = NULL, *fid = NULL,
	    *fraw = NULL;
	const unsigned char *s;
	struct schema *x = NULL;
	uint64_t ts = 0, u;
	uint32_t i;
	size_t j, n;
	int reset = 0;

	for (j = 0; j < rec->nf; j++) {
		const struct tr_field *f = &rec->f[j];
		if (key_is(f, "name"))
			fname = f;
		else if (key_is(f, "ts"))
			fts = f;
		else if (key_is(f, "id"))
			fid = f;
		else if (key_is(f, "raw"))
			fraw = f;
	}
	if (fname == NULL)
		return tr_fail(e->r, rec, NULL, "event record without field "
		    "\"name\"");
	if (span_str(e, rec, fname, &s, &n) < 0)
		return -1;
	if (n > 0xffff)
		return tr_fail(e->r, rec, fname, "longer than 65535 bytes");
	e->nb.len = 0;
	buf_put(&e->nb, s, n);
	if (e->nb.nomem)
		return enc_nomem(e);
	enc_need_segment(e);
	if (fid != NULL) {
		if (tr_u64(e->r, rec, fid, &u) < 0)
			return -1;
		if ((x = seg_at(&e->seg, u)) == NULL)
			return tr_fail(e->r, rec, fid, "no schema with this type "
			    "id in this segment");
		if (x->namelen != n ||
		    (n > 0 && memcmp(x->name, e->nb.p, n) != 0))
			return tr_fail(e->r, rec, fid, "the schema of this type "
			    "id has another name");
		if (enc_match(e, rec, x) < 0)
			return -1;
	} else {
		x = seg_by_name(&e->seg, e->nb.p, n);
		if (x != NULL && enc_match(e, rec, x) < 0) {
			if (!x->inferred)
				return -1;
			tp_err_clear(e->err);
			if ((x = enc_infer(e, rec, x)) == NULL ||
			    enc_match(e, rec, x) < 0)
				return -1;
		} else if (x == NULL) {
			if ((x = enc_infer(e, rec, NULL)) == NULL ||
			    enc_match(e, rec, x) < 0)
				return -1;
		}
	}
	for (i = 0; i < x->nf; i++)
		e->rs[i].has = 0;
	if (fraw != NULL) {
		const char *cur = fraw->val, *end = fraw->val + fraw->vallen,
		    *k, *v;
		size_t kl, vl;
		if (fraw->vallen == 0 || fraw->val[0] != '{')
			return tr_fail(e->r, rec, fraw, "not a map");
		while (tr_elem(&cur, end, &k, &kl, &v, &vl) > 0) {
			struct tr_field vf = span(fraw, v, vl);
			for (i = 0; i < x->nf; i++)
				if (x->f[i].keylen == kl &&
				    memcmp(x->f[i].key, k, kl) == 0)
					break;
			if (k == NULL || i == x->nf)
				return tr_fail(e->r, rec, &vf, "raw: no such field");
			if (parse_rawspec(e, rec, &vf, &e->rs[i], 0, NULL, NULL) < 0)
				return -1;
		}
	}
	/* The timestamp: a reset first where the delta cannot say it. */
	if (x->tsbyte) {
		ts = e->seg.base;
		if (fts != NULL && tr_u64(e->r, rec, fts, &ts) < 0)
			return -1;
		if (ts < e->seg.base || ts - e->seg.base > DELTA_MAX)
			reset = 1;
	}
	e->eb.len = 0;
	buf_u8(&e->eb, TAG_EVENT);
	buf_le16(&e->eb, x->id);
	if (x->tsbyte) {
		uint32_t delta = reset ? 0 : (uint32_t)(ts - e->seg.base);
		unsigned char d3[3] = { (unsigned char)delta,
		    (unsigned char)(delta >> 8), (unsigned char)(delta >> 16) };
		buf_put(&e->eb, d3, 3);
	}
	for (i = 0; i < x->nf; i++) {
		static const struct tr_field absent = { "", "null", 0, 4 };
		const struct tr_field *f = e->fv[i] ? e->fv[i] : &absent;
		if (enc_value(e, &e->eb, rec, f, x->f[i].tag, &e->rs[i], 0) < 0)
			return -1;
	}
	if (reset) {
		e->fb.len = 0;
		buf_u8(&e->fb, TAG_RESET);
		buf_le64(&e->fb, ts);
		if (enc_flush_frame(e, &e->fb) < 0)
			return -1;
		e->st->resets_added++;
	}
	if (x->tsbyte)
		e->seg.base = ts;
	e->st->events++;
	return enc_flush_frame(e, &e->eb);
}

static int
enc_pool(struct enc *e, const struct tr_rec *rec, int stacks)
{
	const struct tr_field *fp = tr_find(rec, "pool");
	struct pool *pool = stacks ? &e->seg.stacks : &e->seg.strings;
	const char *cur, *end, *k, *v;
	size_t kl, vl, count = 0;
	struct buf *b = &e->fb;

	if (fp == NULL || fp->vallen == 0 || fp->val[0] != '{')
		return tr_fail(e->r, rec, fp, "expected pool={id:value,...}");
	enc_need_segment(e);
	b->len = 0;
	buf_u8(b, stacks ? TAG_STACKS : TAG_STRINGS);
	buf_le32(b, 0);
	cur = fp->val;
	end = fp->val + fp->vallen;
	while (tr_elem(&cur, end, &k, &kl, &v, &vl) > 0) {
		struct tr_field kf = span(fp, k, kl), vf = span(fp, v, vl);
		const unsigned char *s;
		uint64_t id;
		size_t n;
		if (k == NULL || tp_parse_u64(k, kl, &id) < 0 || id > UINT32_MAX)
			return tr_fail(e->r, rec, &kf, "expected a pool id");
		if (stacks) {
			if (span_stack(e, rec, &vf, &n) < 0)
				return -1;
			s = e->sb.p;
		} else if (span_str(e, rec, &vf, &s, &n) < 0) {
			return -1;
		}
		buf_le32(b, (uint32_t)id);
		buf_le32(b, (uint32_t)n);
		if (stacks)
			n *= 8;
		buf_put(b, s, n);
		if (pool_define(pool, &e->seg.arena, (uint32_t)id, s, n) == NULL)
			return enc_nomem(e);
		count++;
	}
	if (!b->nomem)
		tp_put_le32(b->p + 1, (uint32_t)count);
	return enc_flush_frame(e, b);
}

static int
enc_reset(struct enc *e, const struct tr_rec *rec)
{
	uint64_t ts;

	if (tr_get_u64(e->r, rec, "ts", &ts, 1) < 0)
		return -1;
	enc_need_segment(e);
	e->fb.len = 0;
	buf_u8(&e->fb, TAG_RESET);
	buf_le64(&e->fb, ts);
	e->seg.base = ts;
	return enc_flush_frame(e, &e->fb);
}

static int
enc_annot(struct enc *e, const struct tr_rec *rec)
{
	const struct tr_field *fl = tr_find(rec, "list");
	const char *cur, *end, *v;
	struct buf *b = &e->fb;
	uint64_t id, idlen = 0;
	size_t vl, count = 0, n;
	unsigned char *p;

	if (tr_get_u64(e->r, rec, "id", &id, 1) < 0 ||
	    tr_get_u64(e->r, rec, "idlen", &idlen, 0) < 0)
		return -1;
	n = tp_uleb_size(id);
	if (idlen != 0) {
		if (idlen < n || idlen > TP_LEB_MAX)
			return tr_fail(e->r, rec, tr_find(rec, "idlen"),
			    "cannot hold the id");
		n = (size_t)idlen;
	}
	if (fl == NULL || fl->vallen == 0 || fl->val[0] != '[')
		return tr_fail(e->r, rec, fl, "expected list=[[field,key,value],...]");
	enc_need_segment(e);
	b->len = 0;
	buf_u8(b, TAG_ANNOT);
	if ((p = buf_room(b, TP_LEB_MAX)) != NULL && !b->nomem)
		b->len += (size_t)(tp_uleb_put_n(p, id, n) - p);
	buf_le16(b, 0);
	cur = fl->val;
	end = fl->val + fl->vallen;
	while (tr_elem(&cur, end, NULL, NULL, &v, &vl) > 0) {
		struct tr_field ef = span(fl, v, vl);
		const char *c2 = v, *v2;
		size_t l2;
		int m = 0;
		if (vl == 0 || v[0] != '[')
			return tr_fail(e->r, rec, &ef, "expected [field,key,value]");
		while (tr_elem(&c2, v + vl, NULL, NULL, &v2, &l2) > 0) {
			struct tr_field xf = span(fl, v2, l2);
			const unsigned char *s;
			uint64_t idx;
			size_t sl;
			if (m == 0) {
				if (tp_parse_u64(v2, l2, &idx) < 0 || idx > 0xffff)
					return tr_fail(e->r, rec, &xf,
					    "expected a field index");
				buf_le16(b, (uint32_t)idx);
			} else if (m < 3) {
				if (span_str(e, rec, &xf, &s, &sl) < 0)
					return -1;
				if (m == 1 && sl > 0xffff)
					return tr_fail(e->r, rec, &xf,
					    "longer than 65535 bytes");
				if (m == 1)
					buf_le16(b, (uint32_t)sl);
				else
					buf_le32(b, (uint32_t)sl);
				buf_put(b, s, sl);
			}
			m++;
		}
		if (m != 3)
			return tr_fail(e->r, rec, &ef, "expected [field,key,value]");
		if (++count > 0xffff)
			return tr_fail(e->r, rec, fl, "more than 65535 annotations");
	}
	if (!b->nomem)
		tp_put_le16(b->p + 1 + n, (uint16_t)count);
	return enc_flush_frame(e, b);
}

int
dial9_encode(struct tr_reader *r, struct tp_out *out,
    const struct dial9_enc_opts *opts, struct dial9_enc_stats *st,
    struct tp_err *err)
{
	struct tr_rec *rec = malloc(sizeof *rec);
	struct enc e;
	int rc = 0;

	memset(st, 0, sizeof *st);
	st->skipped.strict = opts->strict;
	st->skipped.cannot = "not expressible in a dial9 trace";
	memset(&e, 0, sizeof e);
	r->err = err;
	e.r = r;
	e.out = out;
	e.err = err;
	e.opts = opts;
	e.st = st;
	if (rec == NULL || seg_init(&e.seg) < 0) {
		rc = enc_nomem(&e);
		goto done;
	}
	while ((rc = tr_next(r, rec)) > 0) {
		int kind = tp_kind(rec->kind, rec->kindlen,
		    (size_t)(rec->line + rec->len - rec->kind));
		st->records++;
		if (kind == TK_EVENT)
			rc = enc_event(&e, rec);
		else if (tr_is(rec, "dial9-header"))
			rc = enc_header(&e, rec);
		else if (tr_is(rec, "dial9-schema"))
			rc = enc_schema(&e, rec);
		else if (tr_is(rec, "dial9-strings"))
			rc = enc_pool(&e, rec, 0);
		else if (tr_is(rec, "dial9-stacks"))
			rc = enc_pool(&e, rec, 1);
		else if (tr_is(rec, "dial9-reset"))
			rc = enc_reset(&e, rec);
		else if (tr_is(rec, "dial9-annotations"))
			rc = enc_annot(&e, rec);
		else
			rc = tr_skip(r, rec, &st->skipped, "record kind "
			    "\"%.*s\"", (int)rec->kindlen, rec->kind);
		if (rc < 0)
			break;
	}
done:
	free(rec);
	free(e.fb.p);
	free(e.eb.p);
	free(e.sb.p);
	free(e.nb.p);
	free(e.fv);
	free(e.rs);
	free(e.seen);
	seg_free(&e.seg);
	return rc < 0 ? -1 : 0;
}
