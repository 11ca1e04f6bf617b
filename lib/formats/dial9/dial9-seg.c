/*
 * dial9: the segment state both sides keep (see dial9-private.h), the
 * field types, the probe.
 */
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/digits.h"
#include "base/grow.h"
#include "formats/dial9/dial9-private.h"
#include "formats/probe.h"

/* ------------------------------------------------------- field types */

const char *const dial9_type_names[16] = {
	NULL, "i64", "f64", "bool", "string", "bytes", "pooled-stack",
	"pooled-string", "stack", "varint", "string-map", "u8", "u16", "u32",
	"dyn-list", "dyn-map"
};

static int
tag_int(unsigned t)
{
	t &= ~OPT;
	return t == T_VARINT || t == T_U8 || t == T_U16 || t == T_U32 ||
	    t == T_I64;
}

size_t
dial9_tag_name(unsigned t, char *buf)
{
	size_t n = 0;

	if (t & OPT) {
		memcpy(buf, "opt-", 4);
		n = 4;
	}
	strcpy(buf + n, dial9_type_names[t & 0x0f]);
	return n + strlen(dial9_type_names[t & 0x0f]);
}

unsigned
dial9_tag_parse(const char *s, size_t n)
{
	unsigned opt = 0, t;

	if (n > 4 && memcmp(s, "opt-", 4) == 0) {
		opt = OPT;
		s += 4;
		n -= 4;
	}
	for (t = 1; t < 16; t++)
		if (strlen(dial9_type_names[t]) == n &&
		    memcmp(dial9_type_names[t], s, n) == 0)
			return t | opt;
	return 0;
}

/* ------------------------------------------------------------ arena */

void *
dial9_arena_alloc(struct arena *a, size_t n)
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

void
dial9_arena_trim(struct arena *a, void *p, size_t n)
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

/* ------------------------------------------------------------ pools */

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
	p->freefrom = 0;
	p->dataused = 0;
	if (p->byid != NULL)
		memset(p->byid, 0, (p->idmask + 1) * sizeof *p->byid);
	if (p->bydata != NULL)
		memset(p->bydata, 0, (p->datamask + 1) * sizeof *p->bydata);
}

struct pent *
dial9_pool_holder(const struct pool *p, const void *data, size_t len,
    uint64_t h, size_t *slot)
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
		size_t j = (size_t)(tp_hash_u32(p->e[i].id) >> 32) & p->idmask;
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

struct pent *
dial9_pool_define(struct pool *p, struct arena *a, uint32_t id,
    const void *data, size_t len)
{
	struct pent *e = pool_get(p, id), *h;
	uint64_t hash = tp_hash_mem(data, len);
	unsigned char *copy;
	size_t slot;

	if (e != NULL && e->holder) {
		/* It gives up what it held. */
		if (dial9_pool_holder(p, e->data, e->len, e->hash, &slot) == e)
			p->bydata[slot] = TOMB;
		e->holder = 0;
	}
	if (e == NULL) {
		/* (a definition per pool entry: no call until it is full) */
		if ((p->n == p->cap &&
		    tp_grow(&p->e, &p->cap, p->n + 1, sizeof *p->e) < 0) ||
		    ((p->n + 1) * 2 > p->idmask + 1 && pool_grow_ids(p) < 0))
			return NULL;
		e = &p->e[p->n++];
		e->id = id;
		e->holder = 0;
		slot = (size_t)(tp_hash_u32(id) >> 32) & p->idmask;
		while (p->byid[slot] != 0)
			slot = (slot + 1) & p->idmask;
		p->byid[slot] = (uint32_t)p->n;
	}
	if ((copy = dial9_arena_alloc(a, len ? len : 1)) == NULL)
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
	h = dial9_pool_holder(p, data, len, hash, &slot);
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

/* Enter x under its free type id.  0, or -1 out of memory. */
static int
seg_put(struct seg *s, struct schema *x)
{
	struct schema ***page = &s->byid[x->id / ID_PAGE];

	if (*page == NULL && (*page = calloc(ID_PAGE, sizeof **page)) == NULL)
		return -1;
	if (tp_grow(&s->used, &s->usedcap, s->nused + 1, sizeof *s->used) < 0)
		return -1;
	(*page)[x->id % ID_PAGE] = x;
	s->used[s->nused++] = x->id;
	return 0;
}

void
dial9_seg_reset(struct seg *s)
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

void
dial9_seg_free(struct seg *s)
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

struct schema *
dial9_seg_by_name(struct seg *s, const void *name, size_t n)
{
	if (s->byname == NULL)
		return NULL;
	return *name_slot(s, name, n, tp_hash_mem(name, n));
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
 * Build the schema's fields from a body already checked: names, tags and
 * keys (the key of field i in event records: its name when that is a
 * plain key no other field or record key uses, else "." and the name in
 * hex, and ".N" for a name an earlier field has; seen is a scratch hash
 * set).  Returns 0, or -1 out of memory.
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
	x->f = dial9_arena_alloc(&s->arena, (x->nf ? x->nf : 1) * sizeof *x->f);
	if (x->f == NULL)
		return -1;
	while (cap < (size_t)x->nf * 2)
		cap *= 2;
	if (tp_grow(seen, seencap, cap, sizeof **seen) < 0)
		return -1;
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
		h = tp_hash_mem(f->name, f->namelen);
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
			char *k = dial9_arena_alloc(&s->arena, 2 * f->namelen + 8);
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

struct schema *
dial9_seg_register(struct seg *s, uint32_t id, const unsigned char *body,
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
	if ((x = dial9_arena_alloc(&s->arena, sizeof *x)) == NULL ||
	    (copy = dial9_arena_alloc(&s->arena, len)) == NULL)
		return NULL;
	memset(x, 0, sizeof *x);
	memcpy(copy, body, len);
	x->id = id;
	x->body = copy;
	x->bodylen = (uint32_t)len;
	x->namelen = tp_get_le16(copy);
	x->name = copy + 2;
	x->namehash = tp_hash_mem(x->name, x->namelen);
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
