/*
 * Per-buffer zlib: one frame (a whole zlib stream, RFC 1950) inflated or
 * deflated at once, with the output capped before it is allocated, as
 * formats that compress each frame on its own need (Usercorn OP_FRAME).
 * Format-neutral: the caller names the frame in its diagnostics.
 *
 * The z_streams and the buffers are kept from frame to frame: no
 * allocation per frame once the largest has been seen.
 */
#ifndef TP_ZFRAME_H
#define TP_ZFRAME_H

#include <stddef.h>
#include <zlib.h>

/* A growable byte buffer; p is NULL until the first use. */
struct zf_buf {
	unsigned char *p;
	size_t len, cap;
};

struct zframe {
	z_stream inf, def;
	int have_inf, have_def;
	int def_level;		/* level def was set up for */
	size_t in_used;		/* compressed bytes the last inflate read */
	char msg[96];		/* what went wrong, for the caller's message */
};

enum {
	ZF_OK = 0,
	ZF_CORRUPT = -1,	/* not a valid zlib stream (msg says why) */
	ZF_TOO_BIG = -2,	/* inflates to more than the cap */
	ZF_SHORT = -3,		/* the bytes end before the stream does */
	ZF_TRAILING = -4,	/* bytes after the end of the stream */
	ZF_NOMEM = -5
};

void zf_init(struct zframe *z);
void zf_free(struct zframe *z);
void zf_buf_free(struct zf_buf *b);
/* Room for n bytes in b (b->len unchanged); 0 or ZF_NOMEM. */
int zf_buf_reserve(struct zf_buf *b, size_t n);

/*
 * Inflate the zlib stream src[0..n) into out (out->len = its size).  The
 * output never grows past max bytes: a frame that inflates to more is
 * refused with ZF_TOO_BIG (a decompression bomb costs max, not its
 * size).  z->in_used tells how far the stream got.  Returns ZF_OK or an
 * error, with z->msg filled.
 */
int zf_inflate(struct zframe *z, const void *src, size_t n,
    struct zf_buf *out, size_t max);

/* Deflate src[0..n) as one zlib stream at level (0-9) into out. */
int zf_deflate(struct zframe *z, int level, const void *src, size_t n,
    struct zf_buf *out);

/*
 * The zlib level (0-9) at which this zlib build, with its defaults
 * (window 15, memory level 8, default strategy), turns raw into comp: the
 * first of the levels the header's FLEVEL bits allow ({1,0}, {2,3,4,5},
 * {6}, {7,8,9}, in this order) that reproduces comp byte for byte, or the
 * first of them when none does (comp came from another deflater).  The
 * answer is stable: deflating raw at it and asking again gives it back.
 * scratch holds the trial output.  Where the bits allow one level only,
 * it is not tried unless verify is set.  *exact (may be NULL) gets 1 when
 * the level reproduces comp, 0 when none does, -1 when not tried.
 * Returns the level, or ZF_NOMEM.
 */
int zf_level_of(struct zframe *z, const void *comp, size_t clen,
    const void *raw, size_t rawlen, struct zf_buf *scratch, int verify,
    int *exact);

/*
 * A second thread deflating frames while the caller builds the next ones
 * (frames of formats that compress each on its own are independent).
 * Frames go over in batches (a hand-over per frame of a few KiB costs
 * more than it saves); each frame's stream is the bytes zf_deflate
 * makes of it on the caller's thread.
 */
struct zf_job {
	size_t end;		/* of its bytes in the batch's raw */
	int level, rc;
	struct zf_buf comp;	/* its stream, once done */
	unsigned char user[16];	/* the caller's, carried along */
};
struct zf_batch {
	struct zf_buf raw;	/* the frames' bytes, one after the other */
	struct zf_job *job;
	size_t n, cap;		/* jobs (their buffers kept past n) */
	char msg[96];		/* what went wrong, of the first job failed */
};
/* A frame into the batch; 0 or ZF_NOMEM. */
int zf_batch_add(struct zf_batch *b, const void *src, size_t n, int level,
    const void *user, size_t ulen);
void zf_batch_free(struct zf_batch *b);

struct zf_worker;
/* NULL where no thread can be had: the caller deflates on its own. */
struct zf_worker *zf_worker_new(void);
/*
 * Hand a batch over, only when none is pending: *b is swapped with the
 * worker's last (emptied), so no bytes are copied.
 */
void zf_worker_put(struct zf_worker *w, struct zf_batch *b);
/*
 * Wait for the batch handed over: its jobs done, their streams in
 * job[i].comp (until the next put); ZF_OK or the first job's error.
 */
int zf_worker_get(struct zf_worker *w, struct zf_batch **done);
void zf_worker_free(struct zf_worker *w);

/* One word for an error code: "corrupt", "too big", ... */
const char *zf_strerror(int rc);

#endif
