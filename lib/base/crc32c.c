/*
 * CRC-32C, a byte at a time from a table built on first use.
 */
#include "base/crc32c.h"

static uint32_t crc32c_tab[256];

uint32_t
tp_crc32c(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint32_t c = 0xffffffffu;

	if (crc32c_tab[1] == 0) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t v = i;
			for (int k = 0; k < 8; k++)
				v = v & 1 ? (v >> 1) ^ 0x82f63b78u : v >> 1;
			crc32c_tab[i] = v;
		}
	}
	while (n-- > 0)
		c = crc32c_tab[(c ^ *b++) & 0xff] ^ (c >> 8);
	return ~c;
}
