/*
 * The Snappy framing format (google/snappy framing_format.txt): a stream
 * identifier chunk, then chunks of a type byte, a 24-bit little-endian
 * length and a body; a data chunk holds at most 64 KiB, stored or
 * Snappy-compressed, after the masked CRC-32C of that data.
 *
 * The caller reads the bytes (and knows where they are, for its
 * messages): it hands each chunk's header, then its body, to these
 * checks, and gets the data where it wants it.  Errors go into a
 * struct tp_err as TP_EXIT_DATA; the caller sets where.
 */
#ifndef TP_SNAPPYFRAME_H
#define TP_SNAPPYFRAME_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define TP_SNAPPY_BLOCK 65536	/* uncompressed bytes per chunk, at most */
/* Snappy's bound for a compressed block of TP_SNAPPY_BLOCK bytes, + CRC. */
#define TP_SNAPPY_CHUNK_MAX (4 + 32 + TP_SNAPPY_BLOCK + TP_SNAPPY_BLOCK / 6)

/* The stream identifier chunk, header included: how a stream starts. */
extern const unsigned char tp_snappy_ident[10];

enum {
	TP_SNAPPY_COMPRESSED = 0x00,
	TP_SNAPPY_STORED = 0x01,
	TP_SNAPPY_IDENT = 0xff
};

/* tp_snappy_body's answer for a compressed chunk without libsnappy. */
#define TP_SNAPPY_NOLIB (-2)

struct tp_snappy {
	int ident_seen;		/* the stream identifier was read */
};

/*
 * The 4-byte header h of the next chunk: its body's length in *len.
 * 0, or -1 with err (a type out of place or reserved, a body longer
 * than its type allows).
 */
int tp_snappy_head(const struct tp_snappy *s, const unsigned char *h,
    uint32_t *len, struct tp_err *err);

/*
 * The body of a chunk of that type: 1 for a data chunk, with the number
 * of data bytes it holds in *n (0 to TP_SNAPPY_BLOCK); 0 for a chunk
 * without data (the identifier, padding, skippable ones); -1 with err;
 * TP_SNAPPY_NOLIB, err untouched, for a compressed chunk in a build
 * without libsnappy.
 */
int tp_snappy_body(struct tp_snappy *s, unsigned type,
    const unsigned char *body, uint32_t len, size_t *n, struct tp_err *err);

/*
 * The n data bytes of a data chunk (as tp_snappy_body counted them) into
 * dst, checked against the chunk's checksum.  0, or -1 with err.
 */
int tp_snappy_data(unsigned type, const unsigned char *body, uint32_t len,
    unsigned char *dst, size_t n, struct tp_err *err);

#endif
