/*
 * CRC-32C (Castagnoli, reflected polynomial 0x82f63b78): the checksum of
 * the Snappy framing format's data chunks (base/snappyframe.h).
 */
#ifndef TP_CRC32C_H
#define TP_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32C of p[0..n) ("123456789" gives 0xe3069283). */
uint32_t tp_crc32c(const void *p, size_t n);

#endif
