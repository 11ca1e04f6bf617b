/*
 * Cutting a WTF trace into traces (formats/split.h).
 *
 * Definitions and zones hold for the rest of the file, not per chunk,
 * so a piece restates them: it is the file's header (the chunked
 * format's file-header chunk with it), then, in the order they were
 * made (so that the latest definition of each name stays the latest),
 * the definitions in force (each wire id's latest wtf.event#define), the
 * zones created and not deleted (wtf.zone#create), the current zone
 * (wtf.zone#set), and any earlier definition one of those was read with
 * (a zone created before its wire id was defined again), then the input
 * from the cut on.
 *
 * Chunked v10: cut before an event-data chunk; the restated records make
 * one event-data chunk of their own in front (a string table and an
 * event buffer, as the JavaScript writer makes them: each string once
 * per use).  Legacy v3 has no chunks and no string tables: cut before
 * any record, the restated records copied as they were.
 *
 * What no piece can restate: the numbering of scopes (scope= in text is
 * the decoder's count of scopes in the trace it reads), and a scope
 * opened before the cut, which the piece's reader does not see open.
 */
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/grow.h"
#include "formats/split.h"
#include "formats/wtf/wtf-private.h"

/* A record kept to be restated: its bytes and, chunked, its strings. */
struct srec {
	size_t at, len;		/* in rbuf */
	size_t sat, nstr;	/* its strings in strs */
	uint32_t wire;		/* the wire id it is read with */
	uint32_t defines;	/* a definition: the wire id it defines */
	uint32_t zone;		/* zone#create: its zone id */
	int zonerec;		/* a zone#create */
	int live;		/* a zone not deleted (definitions: restate_use) */
};
#define NOT_A_DEF UINT32_MAX

/* A string argument of a kept record: its slot, its bytes in sbuf. */
struct sstr {
	uint32_t slot;
	size_t at, len;
};

struct sp {
	struct tp_in *in;
	struct tp_cutter *c;
	struct tp_err *err;
	int legacy;
	struct deftab defs;
	unsigned char *rbuf, *sbuf;
	size_t rlen, rcap, slen, scap;
	struct sstr *kstr;	/* the kept records' strings */
	size_t nkstr, kstrcap;
	struct srec *rec;	/* definitions and zone creations, in order */
	size_t nrec, reccap;
	long zoneset;		/* rec index of the current zone#set, or -1 */
	unsigned char *use;	/* per rec: restated (restate_use) */
	size_t usecap;
	unsigned char *wseen;	/* per wire id: restate_use's marks */
	unsigned char *head;	/* what every piece starts with */
	size_t headlen, headcap;
	unsigned char *chunk;	/* chunked: the chunk being read */
	size_t chunkcap;
	unsigned char *out;	/* chunked: the restated chunk */
	size_t outcap;
	/*
	 * chunked: the last file-header part read outside the head (in a
	 * chunk with events), which sets the timebase the piece needs
	 */
	unsigned char *tb;
	size_t tblen, tbcap;
	int have_tb;
	uint64_t records, index;
	struct wtf_strtab strs;	/* chunked: the chunk's string table */
};

static void
put(struct sp *s, const void *p, size_t n)
{
	tp_out_write(s->c->out, p, n);
}

static int
add_bytes(unsigned char **b, size_t *len, size_t *cap, const void *p,
    size_t n)
{
	if (n == 0)		/* *b may be NULL */
		return 0;
	if (tp_grow(b, cap, *len + n, 1) < 0)
		return -1;
	memcpy(*b + *len, p, n);
	*len += n;
	return 0;
}

/* An integer argument at the start of a record's arguments. */
static uint32_t
first_arg(const struct sp *s, const struct wtf_def *def,
    const unsigned char *a)
{
	unsigned sz = type_size[def->arg[0].type];

	if (!s->legacy)
		return tp_get_le32(a) & (sz == 1 ? 0xffu : sz == 2 ? 0xffffu :
		    0xffffffffu);
	return sz == 1 ? a[0] : sz == 2 ? tp_get_be16(a) : tp_get_be32(a);
}

/*
 * Keep the record at b (len bytes, arguments after 8 or 6 bytes): a
 * definition, a zone's creation or the zone set.  Chunked, its string
 * arguments are taken out of the chunk's table.  Returns its index in
 * rec, or -1 (err set).
 */
static long
keep(struct sp *s, const struct wtf_def *def, const unsigned char *b,
    size_t len)
{
	struct srec *r;

	if (tp_grow(&s->rec, &s->reccap, s->nrec + 1, sizeof *s->rec) < 0)
		return tp_fail_nomem(s->err);
	r = &s->rec[s->nrec];
	r->at = s->rlen;
	r->len = len;
	r->sat = s->nkstr;
	r->nstr = 0;
	r->live = 1;
	r->wire = def->wire;
	r->defines = NOT_A_DEF;
	r->zone = 0;
	r->zonerec = 0;
	if (add_bytes(&s->rbuf, &s->rlen, &s->rcap, b, len) < 0)
		return tp_fail_nomem(s->err);
	if (!s->legacy) {
		size_t pos = 2;		/* the slot of each argument */
		for (unsigned i = 0; i < def->nargs; i++) {
			const struct wtf_argdef *a = &def->arg[i];
			uint32_t v = tp_get_le32(b + 4 * pos);
			if (a->array) {
				if (v != 0xffffffffu)
					pos += ((uint64_t)v * type_size[a->type] +
					    3) / 4;
			} else if (type_string(a->type) && v < 0xfffffffeu) {
				/* (wtf_args_slots checked the ordinal) */
				const struct wtf_strent *en = &s->strs.ent[v];
				struct sstr *t;
				if (tp_grow(&s->kstr, &s->kstrcap, s->nkstr + 1,
				    sizeof *s->kstr) < 0)
					return tp_fail_nomem(s->err);
				t = &s->kstr[s->nkstr++];
				t->slot = (uint32_t)pos;
				t->at = s->slen;
				t->len = en->len;
				if (add_bytes(&s->sbuf, &s->slen, &s->scap,
				    s->strs.base + en->off, t->len) < 0)
					return tp_fail_nomem(s->err);
				r->nstr++;
			}
			pos++;
		}
	}
	return (long)s->nrec++;
}

/*
 * What a record changes of the state: a definition (entered, kept), a
 * zone created, deleted or set.  a: its arguments.
 */
static int
track(struct sp *s, const struct wtf_def *def, const unsigned char *b,
    size_t len, const unsigned char *a, uint64_t off)
{
	long k;

	if (def->role == ROLE_DEFINE) {
		struct wtf_defrec r;
		struct wtf_def *nd;

		if (s->legacy)
			wtf_legacy_defrec(a, &r);
		else
			wtf_cff_defrec(&s->strs, a, &r);
		if ((nd = wtf_define_make(&s->defs, &r, s->legacy, off,
		    s->index, s->err)) == NULL)
			return -1;
		/*
		 * Kept first: a definition of def's own wire id (a trace
		 * restating wtf.event#define) frees def when it is entered.
		 */
		if ((k = keep(s, def, b, len)) < 0) {
			free(nd);
			return -1;
		}
		s->rec[k].defines = r.wire;
		if (wtf_deftab_put(&s->defs, nd) < 0)
			return tp_fail_nomem(s->err);
	} else if (def->role == ROLE_ZONE_CREATE) {
		if ((k = keep(s, def, b, len)) < 0)
			return -1;
		s->rec[k].zone = first_arg(s, def, a);
		s->rec[k].zonerec = 1;
	} else if (def->role == ROLE_ZONE_SET) {
		if ((k = keep(s, def, b, len)) < 0)
			return -1;
		s->rec[k].live = 0;	/* restated while it is the latest */
		s->zoneset = k;
	} else if ((def->flags & WTF_FLAG_BUILTIN) && def->nargs >= 1 &&
	    !def->arg[0].array && type_size[def->arg[0].type] != 0 &&
	    def->namelen == 15 && memcmp(def->name, "wtf.zone#delete", 15) == 0) {
		uint32_t z = first_arg(s, def, a);
		for (size_t i = 0; i < s->nrec; i++)
			if (s->rec[i].live && s->rec[i].zonerec &&
			    s->rec[i].zone == z)
				s->rec[i].live = 0;
	}
	return 0;
}

/*
 * Mark in s->use the kept records a piece restates: walking back from
 * the last, a definition is restated when it is its wire id's latest or
 * when a record restated after it (before the wire id's next definition)
 * is read with it; a zone's creation while the zone lives; the latest
 * zone set.  Returns how many.
 */
#define W_SEEN 1	/* a later definition of the wire id was met */
#define W_NEEDED 2	/* a later restated record is read with it */

static long
restate_use(struct sp *s)
{
	long n = 0;

	if (tp_grow(&s->use, &s->usecap, s->nrec, 1) < 0)
		return tp_fail_nomem(s->err);
	for (size_t i = s->nrec; i-- > 0;) {
		const struct srec *r = &s->rec[i];
		int use;

		if (r->defines != NOT_A_DEF) {
			unsigned char *w = &s->wseen[r->defines];
			use = !(*w & W_SEEN) || (*w & W_NEEDED);
			*w = W_SEEN;
		} else {
			use = r->live || (long)i == s->zoneset;
		}
		if (use) {
			s->wseen[r->wire] |= W_NEEDED;
			n++;
		}
		s->use[i] = (unsigned char)use;
	}
	/* the marks cleared where they were made */
	for (size_t i = 0; i < s->nrec; i++) {
		s->wseen[s->rec[i].wire] = 0;
		if (s->rec[i].defines != NOT_A_DEF)
			s->wseen[s->rec[i].defines] = 0;
	}
	return n;
}

/* ---------------------------------------------------------- legacy */

static int
legacy_restate(struct sp *s)
{
	if (restate_use(s) < 0)
		return -1;
	for (size_t i = 0; i < s->nrec; i++)
		if (s->use[i])
			put(s, s->rbuf + s->rec[i].at, s->rec[i].len);
	return 0;
}

/* The legacy header's utf8 string at in->pos: its bytes, or -1. */
static long
legacy_str(struct sp *s, size_t at, const char *what)
{
	long avail = tp_in_fill(s->in, at + 4);
	const unsigned char *p;

	if (avail < 0)
		return -1;
	p = s->in->buf + s->in->pos + at;
	if ((size_t)avail >= at + 2 && tp_get_be16(p) == 0)
		return 2;
	if ((size_t)avail < at + 4)
		return tp_fail_at(s->err, s->in->base + s->in->pos + at, TP_NONE,
		    NULL, "truncated header: %s", what);
	if (tp_get_be16(p) == 0xffff)
		return tp_fail_at(s->err, s->in->base + s->in->pos + at, TP_NONE,
		    NULL, "%s: string-table reference in a legacy header",
		    what);
	return 4 + (long)tp_get_be16(p + 2);
}

static int
legacy_split(struct sp *s)
{
	struct tp_in *in = s->in;
	long l1, l2, avail;
	size_t hl;

	if ((l1 = legacy_str(s, 12, "context info")) < 0)
		return -1;
	if ((l2 = legacy_str(s, 12 + (size_t)l1 + 12, "metadata")) < 0)
		return -1;
	hl = 12 + (size_t)l1 + 12 + (size_t)l2;
	if ((avail = tp_in_fill(in, hl)) < 0)
		return -1;
	if ((size_t)avail < hl)
		return tp_fail_at(s->err, in->base + in->pos, TP_NONE, NULL,
		    "truncated header: needs %zu bytes, only %ld left", hl,
		    avail);
	if (add_bytes(&s->head, &s->headlen, &s->headcap, in->buf + in->pos,
	    hl) < 0)
		return tp_fail_nomem(s->err);
	if (tp_cut_here(s->c, 0, 0, s->err) < 0)
		return -1;
	put(s, s->head, hl);
	in->pos += hl;
	for (;;) {
		uint64_t off = tp_in_offset(in);
		const struct wtf_def *def;
		const unsigned char *b;
		const char *why = NULL;
		size_t want = 6;
		long size;
		int rc;

		for (;;) {
			if ((avail = tp_in_fill(in, want)) < 0)
				return -1;
			if (avail == 0 && want == 6)
				return 0;
			if (avail < 6)
				return tp_fail_at(s->err, off, s->index, "record",
				    "truncated record: needs 6 bytes, only %ld "
				    "left", avail);
			b = in->buf + in->pos;
			def = def_at(&s->defs, tp_get_be16(b));
			if (def == NULL)
				return tp_fail_at(s->err, off, s->index, "record",
				    "undefined wire id %u", tp_get_be16(b));
			size = wtf_legacy_args_size(def, b + 6, (size_t)avail - 6,
			    &why);
			if (size >= 0)
				break;
			if (size == -1)
				return tp_fail_at(s->err, off, s->index, "record",
				    "%s", why != NULL ? why : "bad record");
			if ((size_t)avail < want || want == TP_IN_BLOCK)
				return tp_fail_at(s->err, off, s->index, "record",
				    (size_t)avail < want ? "truncated %.*s "
				    "record: %ld bytes left" : "%.*s record "
				    "longer than 256 KiB", (int)def->namelen,
				    def->name, avail);
			want = (size_t)avail * 2 > TP_IN_BLOCK ? TP_IN_BLOCK :
			    (size_t)avail * 2;
		}
		/* before any record but a definition, which goes with them */
		if (def->role != ROLE_DEFINE) {
			if ((rc = tp_cut_here(s->c, s->records, off,
			    s->err)) < 0)
				return -1;
			if (rc == 1) {
				put(s, s->head, s->headlen);
				legacy_restate(s);
			}
			s->records++;
		}
		/* (in->buf may not move while b is used: no fill below) */
		put(s, b, 6 + (size_t)size);
		if (track(s, def, b, 6 + (size_t)size, b + 6, off) < 0) {
			s->err->index = s->index;
			s->err->unit = "record";
			return -1;
		}
		in->pos += 6 + (size_t)size;
		s->index++;
	}
}

/* --------------------------------------------------------- chunked */

/* The restated records as one event-data chunk like c, or nothing. */
static int
cff_restate(struct sp *s, const unsigned char *c)
{
	size_t i, k, tl = 0, el = 0, n = 0, len, np, tbl;
	unsigned char *o, *t, *e;
	uint32_t ord = 0;

	if (restate_use(s) < 0)
		return -1;
	for (i = 0; i < s->nrec; i++)
		if (s->use[i]) {
			n++;
			el += s->rec[i].len;
			for (k = 0; k < s->rec[i].nstr; k++)
				tl += s->kstr[s->rec[i].sat + k].len + 1;
		}
	if (n == 0 && !s->have_tb)
		return 0;
	/* [the timebase's file-header part,] string table, events */
	np = s->have_tb ? 3 : 2;
	tbl = s->have_tb ? (s->tblen + 3) / 4 * 4 : 0;
	len = 24 + 12 * np + tbl + (tl + 3) / 4 * 4 + el;
	if (tp_grow(&s->out, &s->outcap, len, 1) < 0)
		return tp_fail_nomem(s->err);
	o = s->out;
	memset(o, 0, len);
	tp_put_le32(o, tp_get_le32(c));		/* id, start, end of c */
	tp_put_le32(o + 4, WTF_CHUNK_EVENT_DATA);
	tp_put_le32(o + 8, (uint32_t)len);
	tp_put_le32(o + 12, tp_get_le32(c + 12));
	tp_put_le32(o + 16, tp_get_le32(c + 16));
	tp_put_le32(o + 20, (uint32_t)np);
	t = o + 24;
	if (s->have_tb) {
		tp_put_le32(t, WTF_PART_FILE_HEADER);
		tp_put_le32(t + 4, 0);
		tp_put_le32(t + 8, (uint32_t)s->tblen);
		t += 12;
	}
	tp_put_le32(t, WTF_PART_STRING_TABLE);
	tp_put_le32(t + 4, (uint32_t)tbl);
	tp_put_le32(t + 8, (uint32_t)tl);
	tp_put_le32(t + 12, WTF_PART_BINARY_EVENTS);
	tp_put_le32(t + 16, (uint32_t)(tbl + (tl + 3) / 4 * 4));
	tp_put_le32(t + 20, (uint32_t)el);
	t += 24;
	if (s->have_tb && s->tblen > 0)
		memcpy(t, s->tb, s->tblen);
	t += tbl;
	e = t + (tl + 3) / 4 * 4;
	for (i = 0; i < s->nrec; i++) {
		const struct srec *r = &s->rec[i];
		if (!s->use[i])
			continue;
		memcpy(e, s->rbuf + r->at, r->len);
		for (k = 0; k < r->nstr; k++) {
			const struct sstr *st = &s->kstr[r->sat + k];
			tp_put_le32(e + 4 * st->slot, ord++);
			memcpy(t, s->sbuf + st->at, st->len);
			t += st->len + 1;
		}
		e += r->len;
	}
	put(s, o, len);
	return 0;
}

/*
 * The records of a chunk's event buffer: kept state, records counted,
 * each record's size and string ordinals checked as wtf2txt checks them.
 */
static int
cff_events(struct sp *s, const unsigned char *b, size_t len, uint64_t boff)
{
	size_t nslots = len / 4, i = 0;

	while (i < nslots) {
		const unsigned char *r = b + 4 * i;
		uint64_t off = boff + 4 * i;
		const struct wtf_def *def;
		const char *why = NULL;
		uint32_t next = s->strs.next;
		long n;

		if (nslots - i < 2)
			return tp_fail_at(s->err, off, s->index, "record",
			    "truncated record: 4 bytes left in the event "
			    "buffer");
		def = def_at(&s->defs, tp_get_le32(r));
		if (def == NULL)
			return tp_fail_at(s->err, off, s->index, "record",
			    "undefined wire id %u", tp_get_le32(r));
		n = wtf_args_slots(def, r + 8, nslots - i - 2, &s->strs, &next,
		    &why);
		if (n < 0)
			return tp_fail_at(s->err, off, s->index, "record",
			    "%.*s record: %s", (int)def->namelen, def->name,
			    why);
		s->strs.next = next;
		if (def->role != ROLE_DEFINE)
			s->records++;
		if (track(s, def, r, 4 * (2 + (size_t)n), r + 8, off) < 0) {
			s->err->index = s->index;
			s->err->unit = "record";
			return -1;
		}
		s->index++;
		i += 2 + (size_t)n;
	}
	return 0;
}

/* Whether chunk c, its parts checked, has a part of type t. */
static int
has_part(const unsigned char *c, uint32_t t)
{
	uint32_t np = tp_get_le32(c + 20);

	for (uint32_t i = 0; i < np; i++)
		if (tp_get_le32(c + 24 + 12 * (size_t)i) == t)
			return 1;
	return 0;
}

/* The chunk read: its records tracked; head: it is part of the head. */
static int
cff_chunk(struct sp *s, uint64_t off, uint64_t index, int head)
{
	const unsigned char *c = s->chunk, *data;
	uint32_t np = tp_get_le32(c + 20);
	uint64_t doff = off + 24 + 12 * (uint64_t)np;
	uint32_t evoff = 0, evlen = 0;
	int have_ev = 0;

	data = c + 24 + 12 * (size_t)np;
	wtf_strtab_clear(&s->strs);
	for (uint32_t i = 0; i < np; i++) {
		const unsigned char *e = c + 24 + 12 * (size_t)i;
		uint32_t pt = tp_get_le32(e), po = tp_get_le32(e + 4);
		uint32_t pl = tp_get_le32(e + 8);
		if (pt == WTF_PART_STRING_TABLE && !s->strs.present) {
			if (wtf_strtab_load(&s->strs, data + po, pl) < 0)
				return tp_fail_nomem(s->err);
		} else if (pt == WTF_PART_BINARY_EVENTS && !have_ev) {
			have_ev = 1;
			evoff = po;
			evlen = pl;
		} else if (pt == WTF_PART_FILE_HEADER && !head) {
			/* the decoder takes the timebase of each, in order */
			s->tblen = 0;
			if (add_bytes(&s->tb, &s->tblen, &s->tbcap, data + po,
			    pl) < 0)
				return tp_fail_nomem(s->err);
			s->have_tb = 1;
		}
	}
	if (have_ev && cff_events(s, data + evoff, evlen, doff + evoff) < 0)
		return -1;
	return wtf_strtab_done(&s->strs, off, index, s->err);
}

static int
cff_split(struct sp *s)
{
	struct tp_in *in = s->in;

	if (add_bytes(&s->head, &s->headlen, &s->headcap, in->buf + in->pos,
	    12) < 0)
		return tp_fail_nomem(s->err);
	if (tp_cut_here(s->c, 0, 0, s->err) < 0)
		return -1;
	put(s, s->head, 12);
	in->pos += 12;
	for (uint64_t index = 0;; index++) {
		uint64_t off = tp_in_offset(in);
		uint32_t len;
		int rc, head;

		rc = wtf_chunk_read(in, index, &s->chunk, &s->chunkcap, &len,
		    s->err);
		if (rc == -2)
			return tp_fail_nomem(s->err);
		if (rc <= 0)
			return rc;
		if (wtf_chunk_parts(s->chunk, len, off, index, s->err) < 0)
			return -1;
		/*
		 * A file-header chunk goes in every piece's head: it holds
		 * the timebase.  Not one with events (the decoder reads the
		 * parts of any chunk, whatever its type): its events are the
		 * payload of one piece, its timebase restated after the cut.
		 */
		head = tp_get_le32(s->chunk + 4) == WTF_CHUNK_FILE_HEADER &&
		    !has_part(s->chunk, WTF_PART_BINARY_EVENTS);
		if (head) {
			if (add_bytes(&s->head, &s->headlen, &s->headcap,
			    s->chunk, len) < 0)
				return tp_fail_nomem(s->err);
			/* a later timebase than any restated */
			if (has_part(s->chunk, WTF_PART_FILE_HEADER))
				s->have_tb = 0;
		} else if (index > 0) {
			if ((rc = tp_cut_here(s->c, s->records, off,
			    s->err)) < 0)
				return -1;
			if (rc == 1) {
				put(s, s->head, s->headlen);
				if (cff_restate(s, s->chunk) < 0)
					return -1;
			}
		}
		put(s, s->chunk, len);
		if (cff_chunk(s, off, index, head) < 0)
			return -1;
	}
}

int
wtf_split(struct tp_in *in, struct tp_cutter *c, struct tp_err *err)
{
	const char *why;
	struct sp s;
	long avail;
	int rc;

	memset(&s, 0, sizeof s);
	s.in = in;
	s.c = c;
	s.err = err;
	s.zoneset = -1;
	if (wtf_deftab_init(&s.defs, &why) < 0)
		return tp_fail(err, TP_EXIT_FAIL, "out of memory");
	if ((s.wseen = calloc(WTF_MAX_WIRE + 1, 1)) == NULL) {
		rc = tp_fail_nomem(s.err);
		goto out;
	}
	avail = tp_in_fill(in, 12);
	if (avail < 0) {
		rc = -1;
	} else if (avail == 0) {
		rc = tp_fail_at(err, 0, TP_NONE, NULL, "empty input: no WTF "
		    "header");
	} else if (avail < 12) {
		rc = tp_fail_at(err, 0, TP_NONE, NULL,
		    "truncated header: needs 12 bytes, only %ld left", avail);
	} else if (tp_get_be32(in->buf + in->pos) == WTF_MAGIC) {
		s.legacy = 1;
		rc = tp_get_be32(in->buf + in->pos + 8) == WTF_LEGACY_VERSION ?
		    legacy_split(&s) : tp_fail_at(err, 8, TP_NONE, NULL,
		    "big-endian (legacy) trace of format version %u: only "
		    "version 3 is readable", tp_get_be32(in->buf + in->pos + 8));
	} else if (tp_get_le32(in->buf + in->pos) == WTF_MAGIC) {
		rc = tp_get_le32(in->buf + in->pos + 8) == WTF_CFF_VERSION ?
		    cff_split(&s) : tp_fail_at(err, 8, TP_NONE, NULL, "chunked "
		    "trace of format version %u: only version 10 exists",
		    tp_get_le32(in->buf + in->pos + 8));
	} else {
		rc = tp_fail_at(err, 0, TP_NONE, NULL, "not a WTF trace (magic "
		    "DE AD BE EF or EF BE AD DE)");
	}
out:
	wtf_deftab_free(&s.defs);
	free(s.wseen);
	free(s.use);
	free(s.rbuf);
	free(s.sbuf);
	free(s.kstr);
	wtf_strtab_free(&s.strs);
	free(s.rec);
	free(s.head);
	free(s.chunk);
	free(s.out);
	free(s.tb);
	return rc < 0 ? -1 : 0;
}
