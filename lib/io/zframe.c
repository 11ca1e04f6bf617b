/*
 * Per-buffer zlib (see zframe.h).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/zframe.h"

/* zlib's z_stream counts in uInt: feed it in pieces of at most this. */
#define ZF_STEP ((size_t)1 << 30)

void
zf_init(struct zframe *z)
{
	memset(z, 0, sizeof *z);
	z->def_level = -1;
}

void
zf_free(struct zframe *z)
{
	if (z->have_inf)
		inflateEnd(&z->inf);
	if (z->have_def)
		deflateEnd(&z->def);
	zf_init(z);
}

void
zf_buf_free(struct zf_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

int
zf_buf_reserve(struct zf_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	unsigned char *p;

	if (n == 0)
		n = 1;		/* b->p is never NULL after a reserve */
	if (n <= b->cap)
		return ZF_OK;
	while (cap < n)
		cap = cap > SIZE_MAX / 2 ? n : cap * 2;
	if ((p = realloc(b->p, cap)) == NULL)
		return ZF_NOMEM;
	b->p = p;
	b->cap = cap;
	return ZF_OK;
}

/* Exactly n bytes of room: the inflate output never passes its cap. */
static int
buf_resize(struct zf_buf *b, size_t n)
{
	unsigned char *p;

	if (n <= b->cap)
		return ZF_OK;
	if ((p = realloc(b->p, n)) == NULL)
		return ZF_NOMEM;
	b->p = p;
	b->cap = n;
	return ZF_OK;
}

static int
zf_fail(struct zframe *z, int rc, const char *what)
{
	snprintf(z->msg, sizeof z->msg, "%s", what ? what : zf_strerror(rc));
	return rc;
}

int
zf_inflate(struct zframe *z, const void *src, size_t n, struct zf_buf *out,
    size_t max)
{
	z_stream *s = &z->inf;
	int rc;

	z->msg[0] = '\0';
	out->len = 0;
	if (!z->have_inf) {
		memset(s, 0, sizeof *s);
		if (inflateInit(s) != Z_OK)
			return zf_fail(z, ZF_NOMEM, NULL);
		z->have_inf = 1;
	} else if (inflateReset(s) != Z_OK) {
		return zf_fail(z, ZF_NOMEM, NULL);
	}
	s->next_in = (unsigned char *)(uintptr_t)src;
	s->avail_in = 0;
	for (;;) {
		size_t in_left = n - (size_t)((const unsigned char *)s->next_in -
		    (const unsigned char *)src) - s->avail_in;
		size_t room;

		if (s->avail_in == 0 && in_left > 0)
			s->avail_in = (uInt)(in_left < ZF_STEP ? in_left : ZF_STEP);
		if (out->len == out->cap) {
			/* Grow towards the cap, never past it (max + 1 detects more). */
			size_t want = out->cap ? out->cap * 2 : 4096;
			if (want > max + 1)
				want = max + 1;
			if (want <= out->len || buf_resize(out, want) < 0)
				return zf_fail(z, ZF_NOMEM, NULL);
		}
		room = out->cap - out->len;
		s->next_out = out->p + out->len;
		s->avail_out = (uInt)(room < ZF_STEP ? room : ZF_STEP);
		rc = inflate(s, Z_NO_FLUSH);
		out->len = (size_t)(s->next_out - out->p);
		z->in_used = (size_t)((const unsigned char *)s->next_in -
		    (const unsigned char *)src);
		if (out->len > max)
			return zf_fail(z, ZF_TOO_BIG, NULL);
		if (rc == Z_STREAM_END) {
			if (z->in_used != n)
				return zf_fail(z, ZF_TRAILING, NULL);
			return ZF_OK;
		}
		if (rc == Z_NEED_DICT)
			return zf_fail(z, ZF_CORRUPT, "needs a preset dictionary");
		if (rc == Z_DATA_ERROR)
			return zf_fail(z, ZF_CORRUPT, s->msg);
		if (rc == Z_MEM_ERROR)
			return zf_fail(z, ZF_NOMEM, NULL);
		if (rc == Z_BUF_ERROR && s->avail_in == 0 && z->in_used == n)
			return zf_fail(z, ZF_SHORT, NULL);
	}
}

/*
 * A stream just reset, set to another level without allocating (another
 * deflateInit allocates some 256 KiB): 1, or 0 where this zlib would
 * compress something first (zlib before 1.2.12 may, after a reset), and
 * the stream must be made again.  Its bytes are those of deflateInit at
 * that level (tests/test-zframe.c checks it).
 */
static int
def_relevel(z_stream *s, int level)
{
	unsigned char none;

	s->next_in = &none;
	s->avail_in = 0;
	s->next_out = &none;
	s->avail_out = 0;
	return deflateParams(s, level, Z_DEFAULT_STRATEGY) == Z_OK &&
	    s->total_out == 0;
}

int
zf_deflate(struct zframe *z, int level, const void *src, size_t n,
    struct zf_buf *out)
{
	z_stream *s = &z->def;
	const unsigned char *in = src;
	int rc;

	z->msg[0] = '\0';
	out->len = 0;
	if (z->have_def && (deflateReset(s) != Z_OK ||
	    (z->def_level != level && !def_relevel(s, level)))) {
		deflateEnd(s);
		z->have_def = 0;
	}
	if (!z->have_def) {
		memset(s, 0, sizeof *s);
		if (deflateInit(s, level) != Z_OK)
			return zf_fail(z, ZF_NOMEM, NULL);
		z->have_def = 1;
	}
	z->def_level = level;
	if (n <= ZF_STEP && zf_buf_reserve(out, deflateBound(s, (uLong)n)) < 0)
		return zf_fail(z, ZF_NOMEM, NULL);
	s->next_in = (unsigned char *)(uintptr_t)in;
	s->avail_in = 0;
	do {
		size_t used = (size_t)(s->next_in - in), left = n - used -
		    s->avail_in;
		if (s->avail_in == 0 && left > 0)
			s->avail_in = (uInt)(left < ZF_STEP ? left : ZF_STEP);
		if (out->len == out->cap &&
		    zf_buf_reserve(out, out->cap * 2) < 0)
			return zf_fail(z, ZF_NOMEM, NULL);
		s->next_out = out->p + out->len;
		s->avail_out = (uInt)(out->cap - out->len < ZF_STEP ?
		    out->cap - out->len : ZF_STEP);
		rc = deflate(s, (size_t)(s->next_in - in) + s->avail_in == n ?
		    Z_FINISH : Z_NO_FLUSH);
		out->len = (size_t)(s->next_out - out->p);
		if (rc == Z_STREAM_ERROR)
			return zf_fail(z, ZF_NOMEM, NULL);
	} while (rc != Z_STREAM_END);
	return ZF_OK;
}

int
zf_level_of(struct zframe *z, const void *comp, size_t clen, const void *raw,
    size_t rawlen, struct zf_buf *scratch, int verify, int *exact)
{
	static const signed char cand[4][5] = {
		{ 1, 0, -1 }, { 2, 3, 4, 5, -1 }, { 6, -1 }, { 7, 8, 9, -1 }
	};
	const unsigned char *c = comp;
	const signed char *l;
	int flevel = clen >= 2 ? c[1] >> 6 : 2, dummy;

	if (exact == NULL)
		exact = &dummy;
	*exact = -1;
	l = cand[flevel];
	if (l[1] < 0 && !verify)
		return l[0];	/* one level has these FLEVEL bits */
	for (; *l >= 0; l++) {
		int rc = zf_deflate(z, *l, raw, rawlen, scratch);
		if (rc == ZF_NOMEM)
			return rc;
		if (scratch->len == clen && memcmp(scratch->p, comp, clen) == 0) {
			*exact = 1;
			return *l;
		}
	}
	*exact = 0;
	return cand[flevel][0];
}

int
zf_batch_add(struct zf_batch *b, const void *src, size_t n, int level,
    const void *user, size_t ulen)
{
	struct zf_job *j;

	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;
		if ((j = realloc(b->job, cap * sizeof *j)) == NULL)
			return ZF_NOMEM;
		memset(j + b->cap, 0, (cap - b->cap) * sizeof *j);
		b->job = j;
		b->cap = cap;
	}
	if (zf_buf_reserve(&b->raw, b->raw.len + n) < 0)
		return ZF_NOMEM;
	if (n > 0)	/* an empty frame: src may be NULL */
		memcpy(b->raw.p + b->raw.len, src, n);
	b->raw.len += n;
	j = &b->job[b->n++];
	j->end = b->raw.len;
	j->level = level;
	j->rc = ZF_OK;
	memcpy(j->user, user, ulen < sizeof j->user ? ulen : sizeof j->user);
	return ZF_OK;
}

void
zf_batch_free(struct zf_batch *b)
{
	for (size_t i = 0; i < b->cap; i++)
		zf_buf_free(&b->job[i].comp);
	free(b->job);
	zf_buf_free(&b->raw);
	memset(b, 0, sizeof *b);
}

struct zf_worker {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* both ways: two threads only */
	int state;		/* 0 idle, 1 a batch given, 2 it is done */
	int quit, rc;
	struct zframe z;
	struct zf_batch b;
};

static int
batch_run(struct zframe *z, struct zf_batch *b)
{
	size_t start = 0;

	b->msg[0] = '\0';
	for (size_t i = 0; i < b->n; i++) {
		struct zf_job *j = &b->job[i];
		j->rc = zf_deflate(z, j->level, b->raw.p + start,
		    j->end - start, &j->comp);
		if (j->rc < 0) {
			snprintf(b->msg, sizeof b->msg, "%s", z->msg);
			return j->rc;
		}
		start = j->end;
	}
	return ZF_OK;
}

static void *
zf_worker_run(void *arg)
{
	struct zf_worker *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->state != 1 && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->quit)
			break;
		pthread_mutex_unlock(&w->mu);
		w->rc = batch_run(&w->z, &w->b);
		pthread_mutex_lock(&w->mu);
		w->state = 2;
		pthread_cond_signal(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct zf_worker *
zf_worker_new(void)
{
	struct zf_worker *w = calloc(1, sizeof *w);

	if (w == NULL)
		return NULL;
	zf_init(&w->z);
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->th, NULL, zf_worker_run, w) != 0) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		free(w);
		return NULL;
	}
	return w;
}

void
zf_worker_put(struct zf_worker *w, struct zf_batch *b)
{
	struct zf_batch t;

	pthread_mutex_lock(&w->mu);
	t = w->b;
	w->b = *b;
	*b = t;
	b->raw.len = 0;
	b->n = 0;
	w->state = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

int
zf_worker_get(struct zf_worker *w, struct zf_batch **done)
{
	pthread_mutex_lock(&w->mu);
	while (w->state == 1)
		pthread_cond_wait(&w->cv, &w->mu);
	w->state = 0;
	pthread_mutex_unlock(&w->mu);
	*done = &w->b;
	return w->rc;
}

void
zf_worker_free(struct zf_worker *w)
{
	if (w == NULL)
		return;
	pthread_mutex_lock(&w->mu);
	w->quit = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	zf_free(&w->z);
	zf_batch_free(&w->b);
	free(w);
}

const char *
zf_strerror(int rc)
{
	switch (rc) {
	case ZF_OK:
		return "no error";
	case ZF_CORRUPT:
		return "corrupt zlib data";
	case ZF_TOO_BIG:
		return "inflates past the size limit";
	case ZF_SHORT:
		return "zlib stream cut short";
	case ZF_TRAILING:
		return "bytes after the end of the zlib stream";
	default:
		return "out of memory";
	}
}
