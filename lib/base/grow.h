/*
 * Growable arrays: the one way the library makes room.
 */
#ifndef TP_GROW_H
#define TP_GROW_H

#include <stddef.h>

/*
 * Make the array at *(void **)pp, *cap items of elem bytes, hold at least
 * need items: it grows by half again (at least to need, from 16 items).
 * 0, or -1 when out of memory or the size overflows; then the array and
 * *cap are as they were.
 */
int tp_grow(void *pp, size_t *cap, size_t need, size_t elem);

#endif
