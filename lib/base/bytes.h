/*
 * Byte order: little- and big-endian loads and stores of 16, 32 and 64
 * bits from unaligned memory, and floats by their bits.  Compilers turn
 * these into single moves (and a bswap where needed).
 */
#ifndef TP_BYTES_H
#define TP_BYTES_H

#include <stdint.h>
#include <string.h>

static inline uint16_t
tp_get_le16(const void *p)
{
	const unsigned char *b = p;
	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t
tp_get_le32(const void *p)
{
	const unsigned char *b = p;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	    (uint32_t)b[3] << 24;
}

static inline uint64_t
tp_get_le64(const void *p)
{
	const unsigned char *b = p;
	return (uint64_t)tp_get_le32(b) | (uint64_t)tp_get_le32(b + 4) << 32;
}

static inline uint16_t
tp_get_be16(const void *p)
{
	const unsigned char *b = p;
	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t
tp_get_be32(const void *p)
{
	const unsigned char *b = p;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	    (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

static inline uint64_t
tp_get_be64(const void *p)
{
	const unsigned char *b = p;
	return (uint64_t)tp_get_be32(b) << 32 | (uint64_t)tp_get_be32(b + 4);
}

static inline void
tp_put_le16(void *p, uint16_t v)
{
	unsigned char *b = p;
	b[0] = (unsigned char)v;
	b[1] = (unsigned char)(v >> 8);
}

static inline void
tp_put_le32(void *p, uint32_t v)
{
	unsigned char *b = p;
	b[0] = (unsigned char)v;
	b[1] = (unsigned char)(v >> 8);
	b[2] = (unsigned char)(v >> 16);
	b[3] = (unsigned char)(v >> 24);
}

static inline void
tp_put_le64(void *p, uint64_t v)
{
	unsigned char *b = p;
	tp_put_le32(b, (uint32_t)v);
	tp_put_le32(b + 4, (uint32_t)(v >> 32));
}

static inline void
tp_put_be16(void *p, uint16_t v)
{
	unsigned char *b = p;
	b[0] = (unsigned char)(v >> 8);
	b[1] = (unsigned char)v;
}

static inline void
tp_put_be32(void *p, uint32_t v)
{
	unsigned char *b = p;
	b[0] = (unsigned char)(v >> 24);
	b[1] = (unsigned char)(v >> 16);
	b[2] = (unsigned char)(v >> 8);
	b[3] = (unsigned char)v;
}

static inline void
tp_put_be64(void *p, uint64_t v)
{
	unsigned char *b = p;
	tp_put_be32(b, (uint32_t)(v >> 32));
	tp_put_be32(b + 4, (uint32_t)v);
}

/* Floats by their bit patterns: NaN payloads survive. */
static inline float
tp_f32_from_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

static inline uint32_t
tp_f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

static inline double
tp_f64_from_bits(uint64_t u)
{
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

static inline uint64_t
tp_f64_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

#endif
